// The CUDA caching device allocator: cudaMalloc'd segments cut into blocks by BlockPool (block_pool.h), one
// pool per device and stream. Freed blocks are kept for reuse; when cudaMalloc fails the cache is given back
// (after a device sync) and the call retried once before tandem's "CUDA out of memory" error is raised.
#pragma once
#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <vector>

#include "backend/accelerator.h"
#include "backend/cuda/block_pool.h"

namespace tandem::cuda {

class CudaAllocator {
 public:
  // `capacities`: total memory of each device, reported in the statistics and the OOM message.
  explicit CudaAllocator(std::vector<size_t> capacities);
  // nbytes on `device`, for work on `stream`; the block returns to that stream's pool when the DataPtr dies.
  DataPtr allocate(size_t nbytes, int device, cudaStream_t stream);
  // Tensor.record_stream: `data` is also used by work on `stream`; when freed, it returns to its pool only
  // after that work (as queued at the free) has run, which an event recorded on `stream` then tells. False
  // when `data` is not from this allocator.
  bool record_stream(const DataPtr& data, cudaStream_t stream);
  // Frees every cached block of every device (cudaFree after a device sync).
  void empty_cache();
  DeviceMemoryStats stats(int device);
  void reset_peak_stats(int device);
  std::vector<size_t> largest_live_allocations(int device, size_t count);

 private:
  // A freed block waiting for the events recorded on the other streams that used it.
  struct AwaitedBlock {
    Block* block;
    std::vector<cudaEvent_t> events;
  };
  struct DeviceState {
    std::mutex mu;
    BlockPool pool;
    std::vector<AwaitedBlock> awaited;
  };
  struct BlockHandle;
  static void free_block(void* ctx);
  // With the device's lock held: returns the awaited blocks whose events have completed to the pool.
  static void reclaim_awaited(DeviceState& d);
  // With the device's lock held: syncs the device and cudaFrees its entirely free segments.
  void release_cached(int device, DeviceState& d);
  [[noreturn]] void throw_out_of_memory(int device, DeviceState& d, size_t nbytes);

  std::vector<std::unique_ptr<DeviceState>> devices_;
  std::vector<size_t> capacities_;
};

}  // namespace tandem::cuda
