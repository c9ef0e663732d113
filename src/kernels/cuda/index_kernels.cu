// Fills the CUDA table's index family; the kernels live in index_*.cu.
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/index_entry.h"
#include "kernels/kernel_table.h"

namespace tandem::cuda {

void register_index_kernels(KernelTable& table) {
  table.index.gather = &gather;
  table.index.put = &put;
  table.index.min_max = &min_max;
  table.index.count_nonzero = &count_nonzero;
  table.index.nonzero = &nonzero;
  table.index.masked_scatter = &masked_scatter;
}

}  // namespace tandem::cuda
