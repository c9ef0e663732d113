#include "kernels/fft_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem {

FftKernels& fft_kernels_for_registration(DeviceType type) {
  static FftKernels tables[kNumDeviceTypes];
  return tables[static_cast<int>(type)];
}

const FftKernels& fft_kernels(DeviceType type) {
  kernel_table(type);  // starts the device type, whose registration fills this table too
  return fft_kernels_for_registration(type);
}

}  // namespace tandem
