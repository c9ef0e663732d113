// CPU kernels of the index family.
#include "kernels/cpu/cpu_kernels.h"
#include "kernels/kernel_table.h"

namespace tandem::cpu {

void register_index_kernels(KernelTable& table) { (void)table; }

}  // namespace tandem::cpu
