// What an accelerator backend (CUDA, or its emulation) offers beyond Backend: a current device per thread,
// properties, memory statistics, streams and events. tandem.cuda is a thin layer over this interface, so the
// emulated and the real backend answer the same calls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend.h"

namespace tandem {

struct DeviceProperties {
  std::string name;
  size_t total_memory = 0;
  int major = 0, minor = 0;
  int multi_processor_count = 0;
  bool emulated = false;
};

struct DeviceMemoryStats {
  size_t allocated = 0, max_allocated = 0;  // bytes held by live tensors
  size_t reserved = 0, max_reserved = 0;    // allocated + cached by the allocator
  size_t total = 0;                         // device capacity
  uint64_t alloc_retries = 0, ooms = 0;
  uint64_t allocations = 0, frees = 0;
};

using StreamId = int64_t;  // 0 is each device's default stream
using EventId = int64_t;

class AcceleratorBackend : public Backend {
 public:
  virtual int current_device() const = 0;  // per thread
  virtual void set_current_device(int index) = 0;
  virtual DeviceProperties properties(int index) = 0;
  virtual DeviceMemoryStats memory_stats(int index) = 0;
  virtual void reset_peak_memory_stats(int index) = 0;
  // (free, total) bytes of the device. A real device asks the driver (other processes and the context use
  // memory too); an emulated one has only what its allocator reserved.
  virtual std::pair<size_t, size_t> mem_get_info(int index) {
    DeviceMemoryStats s = memory_stats(index);
    return {s.total - s.reserved, s.total};
  }
  virtual std::vector<size_t> largest_live_allocations(int index, size_t count) = 0;
  size_t live_bytes() override {
    size_t total = 0;
    for (int i = 0; i < device_count(); ++i) total += memory_stats(i).allocated;
    return total;
  }
  virtual void empty_cache() = 0;
  // Tensor.record_stream: memory this backend allocated on `device` is also used by work on `stream`, so once
  // freed it is not reused before the work queued on `stream` by then has run. False (and nothing done) when
  // `data` did not come from this backend's allocator.
  virtual bool record_stream(const DataPtr& data, int device, StreamId stream) = 0;

  // Page-locked ("pinned") host memory: the copy engine reads and writes it directly, so copies to and from
  // it run at full bandwidth and may be asynchronous. is_pinned answers for any address inside a block.
  virtual DataPtr allocate_pinned(size_t nbytes) = 0;
  virtual bool is_pinned(const void* ptr) = 0;

  virtual StreamId create_stream(int device) = 0;
  virtual StreamId current_stream(int device) = 0;  // per thread
  virtual void set_current_stream(int device, StreamId stream) = 0;
  virtual void synchronize_stream(int device, StreamId stream) = 0;
  virtual bool query_stream(int device, StreamId stream) = 0;

  virtual EventId create_event(bool timing) = 0;
  virtual void destroy_event(EventId event) = 0;
  virtual void record_event(EventId event, int device, StreamId stream) = 0;
  virtual void wait_event(EventId event, int device, StreamId stream) = 0;  // the stream waits, not the host
  virtual void synchronize_event(EventId event) = 0;
  virtual bool query_event(EventId event) = 0;
  virtual double elapsed_ms(EventId start, EventId end) = 0;
  // Testing aid (tandem.cuda._sleep): `stream` waits `ms` milliseconds before its next work, so tests can
  // prove that host reads wait for queued work.
  virtual void delay_stream(int device, StreamId stream, double ms) = 0;

  // Interop with other CUDA libraries (DLPack, __cuda_array_interface__). Only a real backend has device
  // pointers and streams that another library can use; the emulated one answers false and callers raise.
  virtual bool has_native_handles() const { return false; }
  // The cudaStream_t behind one of our streams, as an integer (0 for the emulated backend).
  virtual uintptr_t native_stream(int device, StreamId stream) { return 0; }
  // Orders foreign work after ours: `foreign` (a cudaStream_t; 1 and 2 are the legacy and per-thread
  // default streams) waits for everything queued so far on our `stream`.
  virtual void foreign_stream_wait(int device, uintptr_t foreign, StreamId stream) {}
  // Orders our work after foreign work: our `stream` waits for everything queued so far on `foreign`.
  virtual void stream_wait_foreign(int device, StreamId stream, uintptr_t foreign) {}
  // The device whose memory `ptr` (from another library) points into, or -1 when it is not device memory.
  virtual int native_pointer_device(const void* ptr) { return -1; }
};

// Registers `backend` as the CUDA-type accelerator (also as the CUDA Backend).
void register_cuda_accelerator(AcceleratorBackend* backend);
// The CUDA-type accelerator (real or emulated), or a RuntimeError saying why there is none.
AcceleratorBackend& cuda_backend();
bool cuda_available();

}  // namespace tandem
