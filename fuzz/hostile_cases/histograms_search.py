"""Counting, histograms, sorted search and uniqueness beyond statistics.py, scans_sorting.py, string_enums.py,
integer_arith_edges.py and out_variants2.py: bincount with float64/bool/NaN weights, weights that require grad,
non-contiguous inputs and int32 inputs; histc with one bin, a given range that excludes every value, 16-bit and
integer inputs and its missing derivative; histogram with integer bins tensors or weights, a one-edge bins tensor,
non-uniform edges with density and a range of the wrong length; searchsorted with sorter and side='right', a sorter
of int32 or with a 2-d sequence, infinite boundaries and values, float16/bool/integer sequences, non-contiguous
operands, a scalar value with out_int32; bucketize with non-contiguous boundaries, 0-dim inputs, integer and bool
inputs, float16; unique/unique_consecutive along dims of 3-d tensors with inverse and counts, of bool and
negative int8 values, of non-contiguous inputs, and with sorted=False along a dim."""
from . import R, T


def x(L, d, shape=(6,), dtype="float32"):
    return R(L, shape, d, dtype)


def i(L, d, values, dtype="int64"):
    return T(L, values, d, dtype)


def f(L, d, values, dtype="float32"):
    return T(L, values, d, dtype)


SEQ = [1.0, 3.0, 5.0, 7.0, 9.0]
VALS = [0.0, 3.0, 6.0, 9.0, 10.0]


CASES = {
    # ---- bincount
    "bincount/weights_float64": lambda L, d: L.bincount(i(L, d, [0, 1, 1, 3]), f(L, d, [0.5, 1.0, 2.0, 3.0],
                                                                                 "float64")),
    "bincount/weights_bool": lambda L, d: L.bincount(i(L, d, [0, 1, 1]), i(L, d, [True, False, True], "bool")),
    "bincount/weights_nan": lambda L, d: L.bincount(i(L, d, [0, 1, 1]), f(L, d, [float("nan"), 1.0, 2.0])),
    "bincount/weights_requires_grad": lambda L, d: L.bincount(i(L, d, [0, 1, 1]),
                                                              f(L, d, [1.0, 1.0, 2.0]).requires_grad_()),
    "bincount/non_contiguous": lambda L, d: L.bincount(i(L, d, [[0, 1], [2, 2], [4, 0]]).t().reshape(-1)[::2]),
    "bincount/int32": lambda L, d: L.bincount(i(L, d, [0, 5, 5, 2], "int32")),
    "bincount/int16_minlength": lambda L, d: L.bincount(i(L, d, [0, 5, 5, 2], "int16"), minlength=8),
    "bincount/minlength_smaller": lambda L, d: L.bincount(i(L, d, [0, 5]), minlength=2),
    "bincount/minlength_float": lambda L, d: L.bincount(i(L, d, [0, 5]), minlength=2.0),
    "bincount/weights_0dim": lambda L, d: L.bincount(i(L, d, [0, 1]), f(L, d, 1.0)),
    "bincount/0dim_input": lambda L, d: L.bincount(i(L, d, 3)),
    "bincount/weights_non_contiguous": lambda L, d: L.bincount(i(L, d, [0, 1, 1]),
                                                               x(L, d, (3, 2)).t()[0]),
    # ---- histc
    "histc/one_bin": lambda L, d: L.histc(x(L, d), bins=1),
    "histc/range_excludes_all": lambda L, d: L.histc(x(L, d), bins=4, min=10, max=20),
    "histc/edges_inclusive": lambda L, d: L.histc(f(L, d, [0.0, 1.0, 2.0, 3.0, 4.0]), bins=4, min=0, max=4),
    "histc/float16": lambda L, d: L.histc(x(L, d, dtype="float16"), bins=3),
    "histc/int_cpu": lambda L, d: L.histc(i(L, d, [0, 1, 2, 2]), bins=3),
    "histc/requires_grad": lambda L, d: L.histc(x(L, d).requires_grad_(), bins=3),
    "histc/grad": lambda L, d: L.histc(x(L, d).requires_grad_(), bins=3).sum().backward(),
    "histc/min_only": lambda L, d: L.histc(x(L, d), bins=3, min=0),
    "histc/2d": lambda L, d: L.histc(x(L, d, (2, 3)), bins=3),
    "histc/negative_zero_range": lambda L, d: L.histc(f(L, d, [0.0, -0.0]), bins=2, min=-0.0, max=0.0),
    # ---- histogram
    "histogram/bins_tensor_int": lambda L, d: L.histogram(x(L, d), i(L, d, [-5, 0, 5])),
    "histogram/weight_int": lambda L, d: L.histogram(x(L, d), 3, weight=i(L, d, [1, 1, 1, 1, 1, 1])),
    "histogram/bins_one_edge": lambda L, d: L.histogram(x(L, d), f(L, d, [0.0])),
    "histogram/nonuniform_density": lambda L, d: L.histogram(x(L, d), f(L, d, [-5.0, -1.0, 0.0, 5.0]), density=True),
    "histogram/range_three": lambda L, d: L.histogram(x(L, d), 3, range=(0.0, 1.0, 2.0)),
    "histogram/range_equal": lambda L, d: L.histogram(x(L, d), 3, range=(1.0, 1.0)),
    "histogram/bins_tensor_float64": lambda L, d: L.histogram(x(L, d), f(L, d, [-5.0, 0.0, 5.0], "float64")),
    "histogram/weight_requires_grad": lambda L, d: L.histogram(x(L, d), 3, weight=x(L, d).abs().requires_grad_()),
    "histogram/float64_input": lambda L, d: L.histogram(x(L, d, dtype="float64"), 4),
    "histogram/bins_bool": lambda L, d: L.histogram(x(L, d), True),
    # ---- searchsorted
    "searchsorted/sorter_right": lambda L, d: L.searchsorted(f(L, d, [9.0, 1.0, 5.0, 3.0, 7.0]), f(L, d, VALS),
                                                             side="right", sorter=i(L, d, [1, 3, 2, 4, 0])),
    "searchsorted/sorter_int32": lambda L, d: L.searchsorted(f(L, d, [9.0, 1.0, 5.0]), f(L, d, [2.0]),
                                                             sorter=i(L, d, [1, 2, 0], "int32")),
    "searchsorted/sorter_2d": lambda L, d: L.searchsorted(f(L, d, [[3.0, 1.0, 2.0], [6.0, 4.0, 5.0]]),
                                                          f(L, d, [[2.5], [4.5]]),
                                                          sorter=i(L, d, [[1, 2, 0], [1, 2, 0]])),
    "searchsorted/sorter_negative": lambda L, d: L.searchsorted(f(L, d, [9.0, 1.0, 5.0]), f(L, d, [2.0]),
                                                                sorter=i(L, d, [1, -1, 0])),
    "searchsorted/sorter_with_right_true": lambda L, d: L.searchsorted(f(L, d, [9.0, 1.0, 5.0]), f(L, d, [5.0]),
                                                                       right=True, sorter=i(L, d, [1, 2, 0])),
    "searchsorted/inf_boundaries": lambda L, d: L.searchsorted(f(L, d, [-float("inf"), 0.0, float("inf")]),
                                                               f(L, d, [-float("inf"), 1.0, float("inf")])),
    "searchsorted/inf_boundaries_right": lambda L, d: L.searchsorted(f(L, d, [-float("inf"), 0.0, float("inf")]),
                                                                     f(L, d, [-float("inf"), 1.0, float("inf")]),
                                                                     right=True),
    "searchsorted/float16": lambda L, d: L.searchsorted(f(L, d, SEQ, "float16"), f(L, d, VALS, "float16")),
    "searchsorted/bool": lambda L, d: L.searchsorted(i(L, d, [False, True], "bool"), i(L, d, [True], "bool")),
    "searchsorted/int_sequence_int_values": lambda L, d: L.searchsorted(i(L, d, [1, 3, 5]), i(L, d, [0, 3, 6])),
    "searchsorted/int_sequence_float_values": lambda L, d: L.searchsorted(i(L, d, [1, 3, 5]), f(L, d, [2.5])),
    "searchsorted/non_contiguous_sequence": lambda L, d: L.searchsorted(f(L, d, SEQ * 2).reshape(2, 5)[0, ::2],
                                                                        f(L, d, VALS)),
    "searchsorted/non_contiguous_values": lambda L, d: L.searchsorted(f(L, d, SEQ), f(L, d, VALS * 2)[::2]),
    "searchsorted/scalar_out_int32": lambda L, d: L.searchsorted(f(L, d, SEQ), 4.0, out_int32=True),
    "searchsorted/scalar_2d_sequence": lambda L, d: L.searchsorted(f(L, d, [SEQ, SEQ]), 4.0),
    "searchsorted/values_0dim_tensor": lambda L, d: L.searchsorted(f(L, d, SEQ), f(L, d, 4.0)),
    "searchsorted/batched_values_more_cols": lambda L, d: L.searchsorted(f(L, d, [SEQ, SEQ]),
                                                                         f(L, d, [VALS, VALS])),
    "searchsorted/values_3d_sequence_1d": lambda L, d: L.searchsorted(f(L, d, SEQ), x(L, d, (2, 2, 2))),
    "searchsorted/method_right": lambda L, d: f(L, d, SEQ).searchsorted(f(L, d, VALS), right=True),
    # ---- bucketize
    "bucketize/non_contiguous_boundaries": lambda L, d: L.bucketize(f(L, d, VALS), f(L, d, SEQ * 2)[::2]),
    "bucketize/0dim_right": lambda L, d: L.bucketize(f(L, d, 5.0), f(L, d, SEQ), right=True),
    "bucketize/int_input_float_boundaries": lambda L, d: L.bucketize(i(L, d, [0, 3, 10]), f(L, d, SEQ)),
    "bucketize/bool_input": lambda L, d: L.bucketize(i(L, d, [True, False], "bool"), f(L, d, [0.5])),
    "bucketize/float16": lambda L, d: L.bucketize(f(L, d, VALS, "float16"), f(L, d, SEQ, "float16"), right=True),
    "bucketize/out_int32_right": lambda L, d: L.bucketize(f(L, d, VALS), f(L, d, SEQ), out_int32=True, right=True),
    "bucketize/2d_input": lambda L, d: L.bucketize(x(L, d, (2, 3)), f(L, d, [-1.0, 0.0, 1.0])),
    "bucketize/method": lambda L, d: f(L, d, VALS).bucketize(f(L, d, SEQ)),
    "bucketize/boundaries_int8": lambda L, d: L.bucketize(f(L, d, VALS), i(L, d, [1, 3, 5], "int8")),
    # ---- unique / unique_consecutive along dims
    "unique/3d_dim2_inverse_counts": lambda L, d: L.unique(i(L, d, [[[1, 0, 1], [2, 2, 2]], [[1, 0, 1], [3, 3, 3]]]),
                                                           dim=2, return_inverse=True, return_counts=True),
    "unique/3d_dim1": lambda L, d: L.unique(i(L, d, [[[1, 0], [1, 0], [2, 2]]]), dim=1, return_counts=True),
    "unique/bool_dim0": lambda L, d: L.unique(i(L, d, [[True, False], [True, False], [False, False]], "bool"),
                                              dim=0, return_inverse=True),
    "unique/int8_negative": lambda L, d: L.unique(i(L, d, [-128, 127, -1, -128, 0], "int8"), return_counts=True),
    "unique/non_contiguous": lambda L, d: L.unique(i(L, d, [[3, 1], [1, 2], [3, 3]]).t(), return_inverse=True),
    "unique/sorted_false_dim": lambda L, d: L.unique(i(L, d, [[3, 1], [1, 2], [3, 1]]), sorted=False, dim=0),
    "unique/float_dim_nan_rows": lambda L, d: L.unique(f(L, d, [[float("nan"), 1.0], [float("nan"), 1.0]]), dim=0),
    "unique/dim_empty_other": lambda L, d: L.unique(L.zeros(3, 0, device=d), dim=0, return_counts=True),
    "unique/return_inverse_0dim": lambda L, d: L.unique(i(L, d, 4), return_inverse=True, return_counts=True),
    "unique_consecutive/dim1_inverse_counts": lambda L, d: L.unique_consecutive(
        i(L, d, [[1, 1, 2, 2, 1], [0, 0, 3, 3, 0]]), dim=1, return_inverse=True, return_counts=True),
    "unique_consecutive/3d_dim0": lambda L, d: L.unique_consecutive(
        i(L, d, [[[1, 2]], [[1, 2]], [[0, 2]]]), dim=0, return_counts=True),
    "unique_consecutive/bool": lambda L, d: L.unique_consecutive(i(L, d, [True, True, False, True], "bool"),
                                                                 return_counts=True),
    "unique_consecutive/float16_inverse": lambda L, d: L.unique_consecutive(
        f(L, d, [1.0, 1.0, 2.0, 2.0, 1.0], "float16"), return_inverse=True),
    "unique_consecutive/non_contiguous_dim": lambda L, d: L.unique_consecutive(
        i(L, d, [[1, 1], [2, 2], [2, 2]]).t(), dim=1),
    "unique_consecutive/dim_negative": lambda L, d: L.unique_consecutive(i(L, d, [[1, 1], [2, 2], [2, 2]]), dim=-2,
                                                                         return_counts=True),
    "Tensor.unique_consecutive/method": lambda L, d: i(L, d, [3, 3, 1, 1, 3]).unique_consecutive(return_counts=True),
}

KNOWN = {
    "histogram/bins_bool": "needs C++ (wording only, TypeError both): python/src/order_stats.cpp histogram names its "
                           "bins argument (\"argument 'bins' must be int, not bool\"); PyTorch's overloaded parser "
                           "says \"histogram() received an invalid combination of arguments - got (Tensor, bool)\"",
}
