// Front ends of the indexing ops: advanced indexing (what t[idx] / t[idx] = v reduce to once ints, slices,
// None and Ellipsis have become views), and the gather/scatter family.
#pragma once
#include <optional>
#include <vector>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

// Advanced indexing as PyTorch's index(): indices[d] indexes dim d of self (an undefined Tensor keeps the
// whole dim). Integer (int64/int32) indices broadcast together; bool/uint8 masks stand for their nonzero()
// coordinates. Adjacent indices put their broadcast shape where they stand; separated ones put it first.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
// Which op PyTorch's Python indexing writes through: t[mask] = number runs masked_fill_, t[index] = number
// index_fill_ (one advanced index each), t[mask] = one-element tensor index_put_ and then masked_fill_, the
// rest index_put_. Only the deprecation warnings for a write into an expanded tensor name them.
enum class IndexWriteOp { IndexPut, IndexFill, MaskedFill, IndexPutMaskedFill };
// self[indices] = values (values broadcast to the indexed shape and converted to self's dtype), or += when
// accumulating. Returns self. Into an expanded self, PyTorch's deprecation warning (naming `op`) and a write
// in which elements that share memory write in turn.
Tensor index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                  bool accumulate = false, IndexWriteOp op = IndexWriteOp::IndexPut);
// The int64 coordinates (one vector per mask dim) a bool/uint8 mask selects when it indexes dims
// [dim, dim + mask.dim()) of self; IndexError when the mask's shape does not match those dims.
std::vector<Tensor> mask_indices(const Tensor& self, int64_t dim, const Tensor& mask);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate = false);

// [count, x.dim()] int64 coordinates of the non-zero elements, in row-major order.
Tensor nonzero(const Tensor& x);
// One 1-D int64 tensor per dim of x (nonzero(x, as_tuple=True)); a 0-d x counts as 1-D.
std::vector<Tensor> nonzero_tuple(const Tensor& x);

Tensor masked_fill(const Tensor& x, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);  // value: 0-d
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const Scalar& value);
Tensor masked_fill_(const Tensor& x, const Tensor& mask, const Tensor& value);
Tensor masked_select(const Tensor& x, const Tensor& mask);

// The index_select family: a 1-D index picks whole slices along dim. index_add_/index_copy_ write
// source's slices there (adding up duplicates / last one wins), index_fill_ fills them.
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_add_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                  const Scalar& alpha = Scalar(int64_t{1}));
Tensor index_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = Scalar(int64_t{1}));
// The source checks index_add_ and index_reduce_ share, in PyTorch's order (dim already wrapped for self):
// dim within the source's dims, one index per source slice, the source's slices shaped as self's.
void check_index_func_source(const char* op, const Tensor& x, int64_t dim, int64_t index_count,
                             const Tensor& source);
Tensor index_copy_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_copy(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill_(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& value);  // value: 0-d
Tensor index_fill(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
// x flattened, indexed by `index` (negative entries count from the end); the result has index's shape.
Tensor take(const Tensor& x, const Tensor& index);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
// scatter: self[... index[i] ...] = src[i] along dim; scatter_add adds instead (duplicates add up).
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_(const Tensor& x, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_add_(const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src);
// dim nullopt: both flattened.
Tensor take_along_dim(const Tensor& x, const Tensor& indices, std::optional<int64_t> dim);
// int64 input -> int64 [..., num_classes]; num_classes -1 infers max + 1.
Tensor one_hot(const Tensor& x, int64_t num_classes = -1);
Tensor flip(const Tensor& x, IntArrayRef dims);
Tensor fliplr(const Tensor& x);
Tensor flipud(const Tensor& x);

}  // namespace tandem
