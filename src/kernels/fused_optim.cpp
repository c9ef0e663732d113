#include "kernels/fused_optim.h"

namespace tandem {

OptimStepKernel& optim_step_kernel(DeviceType type) {
  static OptimStepKernel slots[kNumDeviceTypes] = {};
  return slots[static_cast<int>(type)];
}

}  // namespace tandem
