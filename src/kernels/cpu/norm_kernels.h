// The layer and batch normalisation kernels, registered together with the rest of the nn family.
#pragma once
#include "kernels/cpu/isa_region.h"

namespace tandem {
struct KernelTable;
}

TANDEM_CPU_KERNELS_BEGIN
void register_norm_kernels(KernelTable& table);        // layer_norm: norm_kernels.cpp
void register_batch_norm_kernels(KernelTable& table);  // batch_norm: batch_norm_kernels.cpp
TANDEM_CPU_KERNELS_END
