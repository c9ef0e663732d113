#include "backend/cuda/staged_copy.h"

#include <algorithm>
#include <cstring>

#include "backend/cuda/cuda_check.h"
#include "core/parallel.h"

namespace tandem::cuda {

namespace {
// Host memcpy on several threads: one thread cannot saturate memory bandwidth, and first-touch page faults
// of a fresh destination are spread over the threads too.
void parallel_memcpy(void* dst, const void* src, size_t n) {
  constexpr int64_t kGrain = int64_t{1} << 20;
  parallel_for(0, static_cast<int64_t>(n), kGrain, [&](int64_t b, int64_t e) {
    std::memcpy(static_cast<char*>(dst) + b, static_cast<const char*>(src) + b, static_cast<size_t>(e - b));
  });
}
}  // namespace

void StagedCopier::ensure_buffers() {
  if (done_[kStages - 1]) return;
  // Slot by slot, so a failure part-way (out of pinned memory) is retried at the next copy, not half-used.
  for (int i = 0; i < kStages; ++i) {
    if (!buffers_[i]) {
      void* p = nullptr;
      TANDEM_CUDA_CHECK(cudaHostAlloc(&p, kChunk, cudaHostAllocDefault));
      buffers_[i] = p;
    }
    if (!done_[i]) {
      cudaEvent_t e = nullptr;
      TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
      done_[i] = e;
    }
  }
}

void StagedCopier::device_to_host(void* dst, const void* src, size_t n, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  ensure_buffers();
  size_t chunks = (n + kChunk - 1) / kChunk;
  auto chunk_bytes = [&](size_t i) { return std::min(kChunk, n - i * kChunk); };
  auto start_dma = [&](size_t i) {
    int slot = static_cast<int>(i % kStages);
    TANDEM_CUDA_CHECK(cudaMemcpyAsync(buffers_[slot], static_cast<const char*>(src) + i * kChunk,
                                      chunk_bytes(i), cudaMemcpyDeviceToHost, stream));
    TANDEM_CUDA_CHECK(cudaEventRecord(done_[slot], stream));
  };
  for (size_t i = 0; i < std::min<size_t>(chunks, kStages); ++i) start_dma(i);
  for (size_t i = 0; i < chunks; ++i) {
    int slot = static_cast<int>(i % kStages);
    TANDEM_CUDA_CHECK(cudaEventSynchronize(done_[slot]));
    parallel_memcpy(static_cast<char*>(dst) + i * kChunk, buffers_[slot], chunk_bytes(i));
    if (i + kStages < chunks) start_dma(i + kStages);  // the buffer is free again
  }
}

void StagedCopier::host_to_device(void* dst, const void* src, size_t n, cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(mu_);
  ensure_buffers();
  size_t chunks = (n + kChunk - 1) / kChunk;
  for (size_t i = 0; i < chunks; ++i) {
    int slot = static_cast<int>(i % kStages);
    size_t bytes = std::min(kChunk, n - i * kChunk);
    if (i >= static_cast<size_t>(kStages)) TANDEM_CUDA_CHECK(cudaEventSynchronize(done_[slot]));
    parallel_memcpy(buffers_[slot], static_cast<const char*>(src) + i * kChunk, bytes);
    TANDEM_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + i * kChunk, buffers_[slot], bytes,
                                      cudaMemcpyHostToDevice, stream));
    TANDEM_CUDA_CHECK(cudaEventRecord(done_[slot], stream));
  }
  // The stream runs the chunks in order: the last one done means all are.
  if (chunks) TANDEM_CUDA_CHECK(cudaEventSynchronize(done_[(chunks - 1) % kStages]));
}

}  // namespace tandem::cuda
