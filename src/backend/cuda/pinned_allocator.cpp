#include "backend/cuda/pinned_allocator.h"

#include <cuda_runtime_api.h>

#include <iterator>

#include "backend/cuda/cuda_check.h"
#include "backend/size_class.h"
#include "core/error.h"

namespace tandem::cuda {

namespace {
struct PinnedHandle {
  PinnedAllocator* allocator;
  void* ptr;
  size_t cls;
};
}  // namespace

DataPtr PinnedAllocator::allocate(size_t nbytes) {
  size_t cls = allocation_size_class(nbytes ? nbytes : 1);
  std::lock_guard<std::mutex> lock(mu_);
  void* p = nullptr;
  auto it = free_.find(cls);
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
  } else {
    cudaError_t err = cudaHostAlloc(&p, cls, cudaHostAllocDefault);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      release_cache_locked();  // give the cached pinned blocks back and try once more
      err = cudaHostAlloc(&p, cls, cudaHostAllocDefault);
      if (err == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        TANDEM_THROW(
            OutOfMemory, "CUDA out of memory. Tried to allocate ", nbytes,
            " bytes of pinned host memory.\nhint: the OS refused to lock that much memory; pin smaller "
            "tensors, or use pageable memory (drop pin_memory=True)");
      }
    }
    TANDEM_CUDA_CHECK(err);
  }
  live_[reinterpret_cast<uintptr_t>(p)] = cls;
  return DataPtr(p, new PinnedHandle{this, p, cls}, &free_block);
}

void PinnedAllocator::free_block(void* ctx) {
  auto* h = static_cast<PinnedHandle*>(ctx);
  {
    std::lock_guard<std::mutex> lock(h->allocator->mu_);
    h->allocator->live_.erase(reinterpret_cast<uintptr_t>(h->ptr));
    h->allocator->free_[h->cls].push_back(h->ptr);
  }
  delete h;
}

bool PinnedAllocator::is_pinned(const void* ptr) {
  auto addr = reinterpret_cast<uintptr_t>(ptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.upper_bound(addr);
    if (it != live_.begin() && addr < std::prev(it)->first + std::prev(it)->second) return true;
  }
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError();  // an unknown pointer is an answer ("no"), not an error
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

void PinnedAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mu_);
  release_cache_locked();
}

void PinnedAllocator::release_cache_locked() {
  for (auto& [cls, blocks] : free_) {
    for (void* p : blocks) TANDEM_CUDA_CHECK(cudaFreeHost(p));
  }
  free_.clear();
}

}  // namespace tandem::cuda
