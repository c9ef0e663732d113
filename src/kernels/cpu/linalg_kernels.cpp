// CPU kernels of the linalg family.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem::cpu {

void register_linalg_kernels(KernelTable& table) { (void)table; }

}  // namespace tandem::cpu
