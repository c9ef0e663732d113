#include "backend/cuda/cuda_allocator.h"

#include <algorithm>

#include "backend/allocation_sites.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_context.h"
#include "backend/out_of_memory.h"

namespace tandem::cuda {

// What a DataPtr's deleter needs to give its block back.
struct CudaAllocator::BlockHandle {
  CudaAllocator* allocator;
  int device;
  Block* block;
  // Other streams named by record_stream (guarded by the device's mu).
  std::vector<cudaStream_t> used_on = {};
};

CudaAllocator::CudaAllocator(std::vector<size_t> capacities) : capacities_(std::move(capacities)) {
  for (size_t i = 0; i < capacities_.size(); ++i) {
    devices_.push_back(std::make_unique<DeviceState>());
    devices_.back()->pool.stats().total = capacities_[i];
  }
}

DataPtr CudaAllocator::allocate(size_t nbytes, int device, cudaStream_t stream) {
  DeviceState& d = *devices_[device];
  auto key = reinterpret_cast<StreamKey>(stream);
  std::lock_guard<std::mutex> lock(d.mu);
  if (nbytes > kMaxRequest) throw_out_of_memory(device, d, nbytes);  // no device has that much
  if (!d.awaited.empty()) reclaim_awaited(d);
  Block* block = d.pool.take(nbytes, key);
  if (!block) {
    size_t segment = segment_size_for(round_request(nbytes));
    DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, segment);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();  // clear the error so later calls do not report it again
      d.pool.stats().alloc_retries++;
      release_cached(device, d);
      err = cudaMalloc(&p, segment);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        throw_out_of_memory(device, d, nbytes);
      }
    }
    TANDEM_CUDA_CHECK(err);
    block = d.pool.add_segment(reinterpret_cast<uintptr_t>(p), segment, nbytes, key);
  }
  // The size noted is the one largest_live_allocations reports for the block (allocation_sites.h).
  allocation_sites::note_allocation(Device(DeviceType::CUDA, static_cast<int16_t>(device)), block->ptr(),
                                    block->requested);
  return DataPtr(block->ptr(), new BlockHandle{this, device, block}, &free_block);
}

// No device sync here: the block goes back to the pool of the stream it was allocated on, and whoever gets
// it next queues behind the work that still uses it on that stream. Streams named by record_stream get an
// event each, and the block waits for them. Failures to make the events (a broken device) are reported by
// the next checked CUDA call: a deleter cannot throw, and the block is then kept out of reuse for good.
void CudaAllocator::free_block(void* ctx) {
  auto* h = static_cast<BlockHandle*>(ctx);
  DeviceState& d = *h->allocator->devices_[h->device];
  allocation_sites::note_free(h->block->ptr());
  {
    std::lock_guard<std::mutex> lock(d.mu);
    if (h->used_on.empty()) {
      d.pool.release(h->block);
    } else {
      // Not a DeviceGuard: it throws on failure, and a deleter must not.
      int previous = -1;
      (void)cudaGetDevice(&previous);
      (void)cudaSetDevice(h->device);
      AwaitedBlock awaited{h->block, {}};
      bool recorded = true;
      for (cudaStream_t s : h->used_on) {
        cudaEvent_t e = nullptr;
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
          recorded = false;
          break;
        }
        awaited.events.push_back(e);
        recorded = recorded && cudaEventRecord(e, s) == cudaSuccess;
      }
      if (recorded)
        d.awaited.push_back(std::move(awaited));
      else
        for (cudaEvent_t e : awaited.events) (void)cudaEventDestroy(e);
      if (previous >= 0 && previous != h->device) (void)cudaSetDevice(previous);
    }
  }
  delete h;
}

void CudaAllocator::reclaim_awaited(DeviceState& d) {
  std::erase_if(d.awaited, [&](AwaitedBlock& a) {
    for (cudaEvent_t e : a.events) {
      cudaError_t err = cudaEventQuery(e);
      if (err == cudaErrorNotReady) {
        (void)cudaGetLastError();  // not an error: keep it out of the next launch check
        return false;
      }
    }
    for (cudaEvent_t e : a.events) (void)cudaEventDestroy(e);
    d.pool.release(a.block);
    return true;
  });
}

bool CudaAllocator::record_stream(const DataPtr& data, cudaStream_t stream) {
  if (data.deleter != &free_block) return false;
  auto* h = static_cast<BlockHandle*>(data.ctx);
  DeviceState& d = *devices_[h->device];
  std::lock_guard<std::mutex> lock(d.mu);
  auto& used = h->used_on;
  if (reinterpret_cast<StreamKey>(stream) != h->block->stream &&
      std::find(used.begin(), used.end(), stream) == used.end())
    used.push_back(stream);
  return true;
}

void CudaAllocator::release_cached(int device, DeviceState& d) {
  DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
  TANDEM_CUDA_CHECK(cudaDeviceSynchronize());  // no queued work may still use a block we free
  reclaim_awaited(d);                          // so every awaited block's events are done
  for (const FreedSegment& s : d.pool.take_free_segments())
    TANDEM_CUDA_CHECK(cudaFree(reinterpret_cast<void*>(s.addr)));
}

void CudaAllocator::empty_cache() {
  for (size_t i = 0; i < devices_.size(); ++i) {
    DeviceState& d = *devices_[i];
    std::lock_guard<std::mutex> lock(d.mu);
    // A device with nothing cached is left alone: the guard's cudaSetDevice would create a context on a
    // device this process never used.
    if (d.pool.cached_blocks() == 0) continue;
    release_cached(static_cast<int>(i), d);
  }
}

void CudaAllocator::throw_out_of_memory(int device, DeviceState& d, size_t nbytes) {
  d.pool.stats().ooms++;
  size_t free_bytes = 0, total = 0;
  {
    DeviceGuard guard(Device(DeviceType::CUDA, static_cast<int16_t>(device)));
    TANDEM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  }
  OutOfMemoryReport r;
  r.device = Device(DeviceType::CUDA, static_cast<int16_t>(device));
  r.requested = nbytes;
  r.total = total;
  r.free = free_bytes;
  r.allocated = d.pool.stats().allocated;
  r.reserved = d.pool.stats().reserved;
  r.largest = d.pool.largest_live(3);
  ::tandem::throw_out_of_memory(r);
}

DeviceMemoryStats CudaAllocator::stats(int device) {
  DeviceState& d = *devices_[device];
  std::lock_guard<std::mutex> lock(d.mu);
  return d.pool.stats();
}

void CudaAllocator::reset_peak_stats(int device) {
  DeviceState& d = *devices_[device];
  std::lock_guard<std::mutex> lock(d.mu);
  d.pool.stats().max_allocated = d.pool.stats().allocated;
  d.pool.stats().max_reserved = d.pool.stats().reserved;
}

std::vector<size_t> CudaAllocator::largest_live_allocations(int device, size_t count) {
  DeviceState& d = *devices_[device];
  std::lock_guard<std::mutex> lock(d.mu);
  return d.pool.largest_live(count);
}

}  // namespace tandem::cuda
