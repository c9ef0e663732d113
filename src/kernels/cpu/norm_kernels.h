// The layer normalisation kernels, registered together with the rest of the nn family.
#pragma once
#include "kernels/cpu/isa_region.h"

namespace tandem {
struct KernelTable;
}

TANDEM_CPU_KERNELS_BEGIN
void register_norm_kernels(KernelTable& table);
TANDEM_CPU_KERNELS_END
