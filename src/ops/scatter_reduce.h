// Reducing scatters: scatter_reduce (sum, prod, mean, amax, amin), index_reduce (prod, mean, amax, amin) and
// masked_scatter, composed from the index kernels (scatter_add, index_put) and a segmented log-step scan over
// the scattered values sorted by target, so every device gets them without new kernel slots.
#pragma once
#include <string_view>

#include "core/tensor.h"

namespace tandem {

// out = self, then for each element i of index: out[..index[i]..] = reduce(out[...], src[i]) along dim.
// include_self=false leaves self's value out of the positions that receive something (others keep self).
// Integer means round down, as PyTorch's. src may be larger than index (only index's extent is read).
Tensor scatter_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self = true);
Tensor scatter_reduce_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                       std::string_view reduce, bool include_self = true);
// The index_select-style form: a 1-D index names, for each slice of source along dim, the slice of self it
// reduces into.
Tensor index_reduce(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                    std::string_view reduce, bool include_self = true);
Tensor index_reduce_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                     std::string_view reduce, bool include_self = true);
// The positions where mask (a bool tensor broadcast with self; for the in-place form, to self) is true take
// source's leading elements in row-major order.
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source);
Tensor masked_scatter_(const Tensor& x, const Tensor& mask, const Tensor& source);

}  // namespace tandem
