// Emulated CUDA: N devices backed by host memory that tandem never hands out as CPU memory, each with its
// own capped caching allocator and in-order work queues (streams) run by worker threads with the CPU kernels.
// Enabled by TANDEM_EMULATE_CUDA=N when no real CUDA device is in use; a testing tool for GPU code paths.
#pragma once
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backend/accelerator.h"
#include "backend/emulated/work_queue.h"

namespace tandem::emulated {

class EmulatedBackend final : public AcceleratorBackend {
 public:
  EmulatedBackend(int devices, size_t capacity_per_device);
  ~EmulatedBackend() override;

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

  // Runs `task` on the device's current stream, in order with everything queued there before.
  void enqueue(Device device, std::function<void()> task);
  // The same, then waits for it (for kernels whose result the host needs at once).
  void run_and_wait(Device device, std::function<void()> task);

 private:
  struct DeviceState;
  struct EventState;
  struct BlockContext;
  DeviceState& state(int index);
  WorkQueue& queue(int device, StreamId stream);
  void release(const BlockContext& block);
  [[noreturn]] void throw_oom(int device, size_t requested);
  friend void release_block(void* ctx);
  friend void release_pinned(void* ctx);

  std::vector<std::unique_ptr<DeviceState>> devices_;
  size_t capacity_;
  std::mutex events_mu_;
  std::unordered_map<EventId, std::shared_ptr<EventState>> events_;
  EventId next_event_ = 1;
  std::mutex pinned_mu_;
  std::map<uintptr_t, size_t> pinned_;  // start address -> size of each live pinned block
  // Host storages read by queued non_blocking host-to-device copies, released on a host thread once done
  // (a storage's deleter may need the Python interpreter, which worker threads must not touch).
  struct InFlightRead {
    WorkQueue* queue;
    uint64_t seq;
    Storage host;
  };
  std::mutex reads_mu_;
  std::vector<InFlightRead> in_flight_reads_;
  void release_finished_reads();
};

// Parses sizes like "512MiB", "2GiB", "1.5GB", "1048576"; returns 0 when the text is not a size.
size_t parse_memory_size(const char* text);

}  // namespace tandem::emulated
