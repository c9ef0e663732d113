// Reductions, scans and sorts. Dims follow PyTorch: `dims` unset or empty reduces every dim, negative dims
// count from the end, a 0-dim tensor accepts dim 0 and -1.
#pragma once
#include <optional>
#include <utility>

#include "core/tensor.h"

namespace tandem {

using OptDims = std::optional<DimVector>;
using OptDType = std::optional<DType>;
// (values, indices), the pair max(dim)/min(dim)/sort/topk return.
using ValuesIndices = std::pair<Tensor, Tensor>;

// Sum/prod of integral or bool inputs are int64 unless `dtype` says otherwise; `dtype` converts first.
Tensor sum(const Tensor& x, const OptDims& dims = {}, bool keepdim = false, OptDType dtype = {});
Tensor mean(const Tensor& x, const OptDims& dims = {}, bool keepdim = false, OptDType dtype = {});
Tensor prod(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false, OptDType dtype = {});
// NaN propagates. Empty reductions raise PyTorch's errors.
Tensor amax(const Tensor& x, const OptDims& dims = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const OptDims& dims = {}, bool keepdim = false);
Tensor max(const Tensor& x);
Tensor min(const Tensor& x);
ValuesIndices max(const Tensor& x, int64_t dim, bool keepdim = false);
ValuesIndices min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = {}, bool keepdim = false);
// Bool results (uint8 for uint8 input, as PyTorch does).
Tensor all(const Tensor& x, const OptDims& dims = {}, bool keepdim = false);
Tensor any(const Tensor& x, const OptDims& dims, bool keepdim = false);
Tensor any(const Tensor& x);  // every dim, a 0-dim bool tensor
// Variance with `correction` subtracted from the element count (1: unbiased).
Tensor var(const Tensor& x, const OptDims& dims = {}, double correction = 1, bool keepdim = false);
// var with float32 deviations in float32 (var's are in float64): the normalisation layers' statistics, which
// PyTorch's layer/group norm kernels accumulate in float too; var's float64 copy of the input took LayerNorm's
// forward from 5.7 to 10.2 ms (32 x 128 x 768).
Tensor var_in_input_dtype(const Tensor& x, const OptDims& dims = {}, double correction = 1, bool keepdim = false);
Tensor stddev(const Tensor& x, const OptDims& dims = {}, double correction = 1, bool keepdim = false);
// Vector p-norm over `dims` (p may be +-inf or 0); 'fro' is p = 2.
Tensor norm(const Tensor& x, double p = 2, const OptDims& dims = {}, bool keepdim = false,
            OptDType dtype = {});
Tensor logsumexp(const Tensor& x, const DimVector& dims, bool keepdim = false);
Tensor softmax(const Tensor& x, int64_t dim, OptDType dtype = {});
Tensor log_softmax(const Tensor& x, int64_t dim, OptDType dtype = {});
Tensor cumsum(const Tensor& x, int64_t dim, OptDType dtype = {});
// Sorted along `dim`; NaN counts as the largest value. Equal values keep their order.
ValuesIndices sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
ValuesIndices topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);

}  // namespace tandem
