// Copies between pageable host memory and a device at close to pinned bandwidth. The DMA engine can only
// read and write pinned memory, so a pageable copy goes through a ring of pinned staging buffers: while the
// device copies chunk i+1 (and i+2, ...), host threads move chunk i between its buffer and the pageable side.
// One instance per device; copies on it are serialised (the buffers are shared).
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <mutex>

namespace tandem::cuda {

class StagedCopier {
 public:
  static constexpr size_t kChunk = size_t{8} << 20;
  static constexpr int kStages = 4;

  // Both return once the copy has finished (the host may then reuse or read its memory).
  void device_to_host(void* dst, const void* src, size_t nbytes, cudaStream_t stream);
  void host_to_device(void* dst, const void* src, size_t nbytes, cudaStream_t stream);

 private:
  void ensure_buffers();  // first use, on the owning device

  std::mutex mu_;
  std::array<void*, kStages> buffers_{};
  std::array<cudaEvent_t, kStages> done_{};  // recorded after the DMA of the chunk in that buffer
};

}  // namespace tandem::cuda
