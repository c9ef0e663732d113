// The emulated device's decomposition slots: the CPU's LAPACK kernels queued on the device's stream.
#include "kernels/emulated/async_kernels.h"
#include "kernels/lapack_kernels.h"

namespace tandem::emulated {

namespace {
const LapackKernels* cpu_lapack = nullptr;
}

#define TANDEM_WRAP_LAPACK(slot)                                            \
  do {                                                                      \
    struct Get {                                                            \
      static auto fn() { return cpu_lapack->slot; }                         \
      static const char* name() { return "tandem::kernel::lapack." #slot; } \
    };                                                                      \
    if (cpu.slot) table.slot = &AsyncSlot<decltype(table.slot)>::call<Get>; \
  } while (0)

void register_emulated_lapack_kernels(LapackKernels& table, const LapackKernels& cpu) {
  cpu_lapack = &cpu;
  TANDEM_WRAP_LAPACK(lu_factor);
  TANDEM_WRAP_LAPACK(lu_solve);
  TANDEM_WRAP_LAPACK(cholesky);
  TANDEM_WRAP_LAPACK(cholesky_solve);
  TANDEM_WRAP_LAPACK(triangular_solve);
  TANDEM_WRAP_LAPACK(qr_factor);
  TANDEM_WRAP_LAPACK(qr_q);
  TANDEM_WRAP_LAPACK(qr_multiply);
  TANDEM_WRAP_LAPACK(ldl_factor);
  TANDEM_WRAP_LAPACK(ldl_solve);
  TANDEM_WRAP_LAPACK(eigh);
  TANDEM_WRAP_LAPACK(svd);
  TANDEM_WRAP_LAPACK(eig);
  table.ldl_hermitian = cpu.ldl_hermitian;
  table.complex = cpu.complex;
}
#undef TANDEM_WRAP_LAPACK

}  // namespace tandem::emulated
