// The real CUDA backend: devices, the caching allocator, streams and events, copies. Streams are
// cudaStreamNonBlocking streams that tandem creates (StreamId 0 is each device's default stream, not the
// legacy NULL stream), so work on user streams never serialises behind the legacy stream.
#pragma once
#include <cuda_runtime_api.h>

#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/accelerator.h"
#include "backend/cuda/cuda_allocator.h"
#include "backend/cuda/pinned_allocator.h"
#include "backend/cuda/staged_copy.h"

namespace tandem::cuda {

class CudaBackend final : public AcceleratorBackend {
 public:
  explicit CudaBackend(int device_count);

  DataPtr allocate(size_t nbytes, Device device) override;
  void copy_host_to_device(void* dst, const void* src, size_t nbytes, Device device) override;
  void copy_device_to_host(void* dst, const void* src, size_t nbytes, Device device) override;
  void copy_within_device(void* dst, const void* src, size_t nbytes, Device device) override;
  IntrusivePtr<PendingWrite> copy_device_to_host_async(void* dst, const void* src, size_t nbytes,
                                                       Device device) override;
  void copy_host_to_device_async(void* dst, const void* src, size_t nbytes, Device device,
                                 const Storage& host_owner) override;
  void synchronize(Device device) override;
  int device_count() const override { return static_cast<int>(devices_.size()); }
  Device resolve(Device device) override;

  int current_device() const override;
  void set_current_device(int index) override;
  DeviceProperties properties(int index) override;
  DeviceMemoryStats memory_stats(int index) override;
  void reset_peak_memory_stats(int index) override;
  std::pair<size_t, size_t> mem_get_info(int index) override;
  std::vector<size_t> largest_live_allocations(int index, size_t count) override;
  void empty_cache() override;
  bool record_stream(const DataPtr& data, int device, StreamId stream) override;
  DataPtr allocate_pinned(size_t nbytes) override;
  bool is_pinned(const void* ptr) override;

  StreamId create_stream(int device) override;
  StreamId current_stream(int device) override;
  void set_current_stream(int device, StreamId stream) override;
  void synchronize_stream(int device, StreamId stream) override;
  bool query_stream(int device, StreamId stream) override;

  EventId create_event(bool timing) override;
  void destroy_event(EventId event) override;
  void record_event(EventId event, int device, StreamId stream) override;
  void wait_event(EventId event, int device, StreamId stream) override;
  void synchronize_event(EventId event) override;
  bool query_event(EventId event) override;
  double elapsed_ms(EventId start, EventId end) override;
  void delay_stream(int device, StreamId stream, double ms) override;

  bool has_native_handles() const override { return true; }
  uintptr_t native_stream(int device, StreamId stream) override;
  void foreign_stream_wait(int device, uintptr_t foreign, StreamId stream) override;
  void stream_wait_foreign(int device, StreamId stream, uintptr_t foreign) override;
  int native_pointer_device(const void* ptr) override;

  // The cudaStream_t of one of our streams (created on first use for the default stream).
  cudaStream_t stream(int device, StreamId id);
  // Scratch and tensor memory for work on `stream` of `device`.
  DataPtr allocate_on(size_t nbytes, int device, cudaStream_t stream);

 private:
  struct DeviceState {
    std::mutex mu;
    std::vector<cudaStream_t> streams;  // [0]: the default stream
    DeviceProperties props;
    StagedCopier staging;
  };
  struct Event {
    cudaEvent_t handle = nullptr;
    int device = 0;  // where it was created (re-created when recorded on another device)
    bool timing = false;
    bool recorded = false;
  };
  // A non_blocking host-to-device copy in flight and the host storage it reads, kept alive until done.
  struct InFlightRead {
    cudaEvent_t done;
    int device;
    Storage host;
  };
  DeviceState& state(int index) { return *devices_[index]; }
  Event& event(EventId id);  // with events_mu_ held
  void release_finished_reads();

  std::vector<std::unique_ptr<DeviceState>> devices_;
  std::unique_ptr<CudaAllocator> allocator_;
  PinnedAllocator pinned_;
  std::mutex events_mu_;
  std::unordered_map<EventId, Event> events_;
  EventId next_event_ = 1;
  std::mutex reads_mu_;
  std::deque<InFlightRead> in_flight_reads_;
};

// The registered CUDA backend (only called once it exists: kernels run only on its devices).
CudaBackend& cuda_runtime();

}  // namespace tandem::cuda
