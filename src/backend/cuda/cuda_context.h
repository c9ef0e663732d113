// What CUDA kernels need from the CUDA backend: the stream to launch on, the device to run on, scratch
// memory from the caching allocator, and the cuBLAS handle. Implemented in backend/cuda/; used by
// kernels/cuda/. Kernels launch on the calling thread's current stream of the tensor's device, never on
// the legacy default stream, so user streams (tandem.cuda.stream) order work as in PyTorch.
#pragma once
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/device.h"
#include "core/storage.h"

namespace tandem::cuda {

// The calling thread's current stream on `device` (a cuda device with an index).
cudaStream_t current_stream(Device device);

// Makes `device` the calling thread's current CUDA device for the guard's lifetime, and restores the
// previous one after. Every launch and CUDA call on a tensor's memory happens under one.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_;
};

// Temporary device memory for a kernel (partial sums, CUB temp storage) from the caching allocator, freed
// for reuse in stream order when the DataPtr dies: safe to drop right after the launches that use it.
DataPtr allocate_scratch(size_t nbytes, Device device);

// The cuBLAS handle of the calling thread for `device`, bound to current_stream(device), with the math mode
// that allow_tf32() asks for.
cublasHandle_t cublas_handle(Device device);

// TF32 tensor-core math for float32 matmul: off by default as in PyTorch
// (tandem.backends.cuda.matmul.allow_tf32 switches it).
bool allow_tf32();
void set_allow_tf32(bool allow);

}  // namespace tandem::cuda
