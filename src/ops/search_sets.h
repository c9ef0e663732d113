// Searching sorted sequences and set operations, composed from sort, gather and elementwise ops so every
// device has them: searchsorted, bucketize, unique, unique_consecutive, isin.
#pragma once
#include <optional>
#include <string_view>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tandem {

// For each value, the index where it would be inserted into the innermost dim of `sorted_sequence` to keep
// it sorted (right/side="right": after equal elements). sorted_sequence is 1-D, or its leading dims match
// values'. int64 results (int32 with out_int32). `sorter` (int64, same shape) gives the sorting order of an
// unsorted sequence. A vectorised binary search: about log2(M) rounds of gather + compare over all values.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& values, bool out_int32 = false,
                    bool right = false, std::optional<std::string_view> side = {},
                    const std::optional<Tensor>& sorter = {});
// A Python number as `values`: a 0-dim int64/float64/bool tensor, as PyTorch's scalar_to_tensor.
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& value, bool out_int32 = false,
                    bool right = false, std::optional<std::string_view> side = {},
                    const std::optional<Tensor>& sorter = {});
// searchsorted with 1-D boundaries and the arguments swapped.
Tensor bucketize(const Tensor& x, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& x, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// The shape and dtype checks of searchsorted's out= (the tensor the result is written into).
void check_searchsorted_out(const Tensor& out, bool out_int32);

struct UniqueResult {
  Tensor values;   // sorted unique elements (flattened), or unique slices along dim
  Tensor inverse;  // where each input element (or slice) went: input's shape, or [size(dim)]
  Tensor counts;   // how often each unique element or slice occurs
};
// Always sorted (as PyTorch's CPU unique). NaNs are never equal, so each NaN stays its own element.
UniqueResult unique(const Tensor& x, std::optional<int64_t> dim = {});
// Collapses runs of equal consecutive elements (or slices along dim).
UniqueResult unique_consecutive(const Tensor& x, std::optional<int64_t> dim = {});
// A bool tensor of elements' shape: whether each element equals one of test_elements (NaN matches nothing).
// assume_unique is accepted for PyTorch's signature; the search does not need it.
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false,
            bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false,
            bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false,
            bool invert = false);

}  // namespace tandem
