#include "kernels/kernel_table.h"
#include "kernels/lapack_kernels.h"

namespace tandem {

LapackKernels& lapack_kernels_for_registration(DeviceType type) {
  static LapackKernels tables[kNumDeviceTypes];
  return tables[static_cast<int>(type)];
}

const LapackKernels& lapack_kernels(DeviceType type) {
  kernel_table(type);  // starts the device type, whose registration fills this table too
  return lapack_kernels_for_registration(type);
}

}  // namespace tandem
