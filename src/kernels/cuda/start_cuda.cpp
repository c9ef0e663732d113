// The CUDA slot of a build with the CUDA backend: the real GPUs and their kernels.
#include "backend/backend.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/fft_kernels.h"
#include "kernels/kernel_table.h"
#include "kernels/lapack_kernels.h"
#include "kernels/startup.h"

namespace tandem {

bool cuda_backend_built() { return true; }

void start_cuda_hardware() {
  if (!register_cuda_backend()) return;
  cuda::register_all_kernels(kernel_table_for_registration(DeviceType::CUDA));
  cuda::register_lapack_cusolver_kernels(lapack_kernels_for_registration(DeviceType::CUDA));
  cuda::register_fft_cufft_kernels(fft_kernels_for_registration(DeviceType::CUDA));
}

}  // namespace tandem
