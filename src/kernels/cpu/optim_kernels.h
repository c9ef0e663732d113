// The fused optimizer-update kernels, registered together with the rest of the nn family.
#pragma once

namespace tandem {
struct KernelTable;
namespace cpu {
void register_optim_kernels(KernelTable& table);
}  // namespace cpu
}  // namespace tandem
