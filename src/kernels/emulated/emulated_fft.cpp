// The emulated device's FFT slots: the CPU's FFTW kernels queued on the device's stream.
#include "kernels/emulated/async_kernels.h"
#include "kernels/fft_kernels.h"

namespace tandem::emulated {

namespace {
const FftKernels* cpu_fft = nullptr;
}

#define TANDEM_WRAP_FFT(slot)                                               \
  do {                                                                      \
    struct Get {                                                            \
      static auto fn() { return cpu_fft->slot; }                            \
      static const char* name() { return "tandem::kernel::fft." #slot; }    \
    };                                                                      \
    if (cpu.slot) table.slot = &AsyncSlot<decltype(table.slot)>::call<Get>; \
  } while (0)

void register_emulated_fft_kernels(FftKernels& table, const FftKernels& cpu) {
  cpu_fft = &cpu;
  TANDEM_WRAP_FFT(c2c);
  TANDEM_WRAP_FFT(r2c);
  TANDEM_WRAP_FFT(c2r);
  // cuFFT's limit, so the emulated device also takes the path that splits transforms of more dims.
  table.max_rank = 3;
  table.library = cpu.library;
}
#undef TANDEM_WRAP_FFT

}  // namespace tandem::emulated
