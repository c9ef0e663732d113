"""Regression tests for what the twenty-first round of the differential hostile-input harness (fuzz/hostile_diff.py,
the norm_layers_matrix, ternary_matrix, shape_view_matrix and reduction_dims_matrix tables) found and fixed in
tandem's Python layer: each fixed case taken by name from the harness's own tables (so the test runs the expression
the harness ran) and run with PyTorch (the oracle, on the CPU) and tandem on every device. The direct tests below
check the neighbours of each fix the tables do not reach, and the findings whose cause is in C++ run as strict
xfails, so the session that fixes them sees them pass."""
import math
import os
import sys

import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import X, assert_matches_pytorch, fixed_cases, needs_cpp  # noqa: E402

import tandem  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
from hostile_cases import (norm_layers_matrix, reduction_dims_matrix, shape_view_matrix,  # noqa: E402
                           ternary_matrix)

# The cases the round fixed, by table and op: the rest of each case name (its inputs), space-separated.
_FIXED_NAMES = {
    norm_layers_matrix: {
        "BatchNorm1d_wrong_C": "zero_batch zero_length",
        "GroupNorm": "bool complex int64 zero_length",
        "GroupNorm_no_affine": "zero_length",
        "InstanceNorm1d_track": "zero_length",
        "InstanceNorm1d_track_eval": "bf16 f16",
        "InstanceNorm2d": "zero_batch",
        "RMSNorm": "complex",
        "RMSNorm_eps": "complex scalar_0d vector_1d",
        "RMSNorm_no_affine": "complex scalar_0d",
        "bn_bias_long": "scalar_0d zero_batch zero_length",
        "bn_eps_nan": "scalar_0d",
        "bn_eps_negative": "scalar_0d",
        "bn_eval_no_stats": "bool complex int64 scalar_0d vector_1d zero_batch zero_length",
        "bn_grad": "scalar_0d",
        "bn_momentum_none": "scalar_0d vector_1d",
        "bn_momentum_one": "scalar_0d",
        "bn_stats_f64": "scalar_0d zero_batch zero_length",
        "bn_stats_f64_eval": "zero_batch zero_length",
        "bn_stats_int": "zero_batch zero_length",
        "bn_stats_short": "scalar_0d zero_batch zero_length",
        "bn_stats_short_eval": "zero_batch zero_length",
        "bn_train": "scalar_0d",
        "bn_train_no_stats": "scalar_0d",
        "bn_weight_2d": "zero_batch zero_length",
        "bn_weight_short": "scalar_0d zero_batch zero_length",
        "gn_1": "zero_length",
        "gn_3": "zero_length",
        "gn_bias_wrong": "zero_length",
        "gn_eps_nan": "zero_length",
        "gn_eps_negative": "zero_length",
        "gn_grad": "complex zero_length",
        "gn_negative": "batch1 batch1_2d bf16 bool complex f16 f32 f32_4d f64 int64 rows_2d zero_batch zero_length",
        "gn_not_dividing": "zero_length",
        "gn_weight_wrong": "zero_length",
        "in_grad": "zero_batch zero_length",
        "in_momentum_none": "batch1 bf16 bool complex f16 f32 f32_4d f64 int64 zero_batch zero_length",
        "in_stats": "zero_length",
        "in_stats_short": "zero_batch zero_length",
        "in_weight_wrong": "zero_batch zero_length",
        "lrn_size_0": "bool complex",
        "rms_eps_nan": "complex",
        "rms_eps_negative": "complex",
        "rms_eps_none": "complex",
        "rms_grad": "complex",
        "rms_last": "complex",
        "rms_mismatch": "scalar_0d",
        "rms_weight_f64": "complex",
    },
    ternary_matrix: {
        "addcdiv": ("0d_f64/f32_f32/complex 0d_f64/i64_f32/complex 0d_f64/py_f32/default bad_row/f32_f32/complex "
                 "bad_row/i64_f32/complex bad_row/py_f32/default bool/bad/default bool/py_f32/default "
                 "c64/bad/default c64/py_f32/default col/py_f32/default empty/bad/default "
                 "empty/f32_f32/complex empty/i64_f32/complex empty/py_f32/default f16/bad/default "
                 "f16/py_f32/default f32/0d_0d/complex f32/bad/0d f32/bad/bool f32/bad/complex f32/bad/default "
                 "f32/bad/float f32/bad/int f32/bad/nan f32/py_f32/0d f32/py_f32/bool f32/py_f32/complex "
                 "f32/py_f32/default f32/py_f32/float f32/py_f32/int f32/py_f32/nan f64/bad/default "
                 "f64/py_f32/default i64/bad/0d i64/bad/bool i64/bad/complex i64/bad/default i64/bad/float "
                 "i64/bad/int i64/bad/nan i64/py_f32/0d i64/py_f32/bool i64/py_f32/complex i64/py_f32/default "
                 "i64/py_f32/float i64/py_f32/int i64/py_f32/nan py_float/0d_0d/default py_float/bad/default "
                 "py_float/bool_bool/default py_float/c64_f32/0d py_float/c64_f32/bool "
                 "py_float/c64_f32/complex py_float/c64_f32/default py_float/c64_f32/float "
                 "py_float/c64_f32/int py_float/c64_f32/nan py_float/f16_f32/default py_float/f32_col/default "
                 "py_float/f32_f32/0d py_float/f32_f32/bool py_float/f32_f32/complex py_float/f32_f32/default "
                 "py_float/f32_f32/float py_float/f32_f32/int py_float/f32_f32/nan py_float/i64_f32/0d "
                 "py_float/i64_f32/bool py_float/i64_f32/complex py_float/i64_f32/default "
                 "py_float/i64_f32/float py_float/i64_f32/int py_float/i64_f32/nan py_float/i64_i64/0d "
                 "py_float/i64_i64/bool py_float/i64_i64/complex py_float/i64_i64/default "
                 "py_float/i64_i64/float py_float/i64_i64/int py_float/i64_i64/nan py_float/py_f32/default"),
        "addcmul": ("0d_f64/f32_f32/complex 0d_f64/i64_f32/complex 0d_f64/py_f32/default bad_row/f32_f32/complex "
                 "bad_row/i64_f32/complex bad_row/i64_i64/complex bad_row/py_f32/default bool/bad/default "
                 "bool/i64_i64/nan bool/py_f32/default c64/bad/default c64/py_f32/default col/py_f32/default "
                 "empty/bad/default empty/f32_f32/complex empty/i64_f32/complex empty/i64_i64/complex "
                 "empty/py_f32/default f16/bad/default f16/py_f32/default f32/0d_0d/complex f32/bad/0d "
                 "f32/bad/bool f32/bad/complex f32/bad/default f32/bad/float f32/bad/int f32/bad/nan "
                 "f32/py_f32/0d f32/py_f32/bool f32/py_f32/complex f32/py_f32/default f32/py_f32/float "
                 "f32/py_f32/int f32/py_f32/nan f64/bad/default f64/py_f32/default i64/bad/0d i64/bad/bool "
                 "i64/bad/complex i64/bad/default i64/bad/float i64/bad/int i64/bad/nan i64/bool_bool/nan "
                 "i64/i64_i64/nan i64/py_f32/0d i64/py_f32/bool i64/py_f32/complex i64/py_f32/default "
                 "i64/py_f32/float i64/py_f32/int i64/py_f32/nan py_float/0d_0d/default py_float/bad/default "
                 "py_float/bool_bool/default py_float/c64_f32/0d py_float/c64_f32/bool "
                 "py_float/c64_f32/complex py_float/c64_f32/default py_float/c64_f32/float "
                 "py_float/c64_f32/int py_float/c64_f32/nan py_float/f16_f32/default py_float/f32_col/default "
                 "py_float/f32_f32/0d py_float/f32_f32/bool py_float/f32_f32/complex py_float/f32_f32/default "
                 "py_float/f32_f32/float py_float/f32_f32/int py_float/f32_f32/nan py_float/i64_f32/0d "
                 "py_float/i64_f32/bool py_float/i64_f32/complex py_float/i64_f32/default "
                 "py_float/i64_f32/float py_float/i64_f32/int py_float/i64_f32/nan py_float/i64_i64/0d "
                 "py_float/i64_i64/bool py_float/i64_i64/complex py_float/i64_i64/default "
                 "py_float/i64_i64/float py_float/i64_i64/int py_float/i64_i64/nan py_float/py_f32/default"),
        "heaviside": ("0d_f64/c64 0d_i64/c64 bool/bad_row bool/c64 bool/empty c64/0d_f64 c64/0d_i64 c64/bad_row "
                 "c64/bool c64/col c64/empty c64/f16 c64/f32 c64/f64 c64/i32 c64/i64 c64/u8 f16/bad_row "
                 "f16/c64 f16/empty f32/c64 f64/bad_row f64/c64 f64/empty i64/bad_row i64/c64 i64/empty "
                 "u8/bad_row u8/c64 u8/empty"),
        "lerp": ("0d_f64/0d_f64/py_complex 0d_f64/f64/py_complex bad_row/bad_row/0d_f64 bad_row/bad_row/f32 "
                 "bad_row/bad_row/py_complex bad_row/f32/0d_f64 bad_row/f32/col bad_row/f32/f32 "
                 "bad_row/f32/nan bad_row/f32/py_bool bad_row/f32/py_complex bad_row/f32/py_float "
                 "bad_row/f32/py_int c64/c64/0d_f64 col/col/0d_f64 col/col/py_complex col/f32/0d_f64 "
                 "col/f32/py_complex f16/f16/0d_f64 f16/f16/py_complex f32/bad_row/0d_f64 f32/bad_row/col "
                 "f32/bad_row/f32 f32/bad_row/nan f32/bad_row/py_bool f32/bad_row/py_complex "
                 "f32/bad_row/py_float f32/bad_row/py_int f32/col/0d_f64 f32/col/py_complex f32/f32/0d_f64 "
                 "f32/f32/py_complex f64/0d_f64/py_complex f64/f64/py_complex i64/i64/0d_f64 "
                 "inplace/col/0d_f64 inplace/f32/0d_f64 missing_weight py_start"),
    },
    shape_view_matrix: {
        "adjoint": "scalar",
        "diagonal": "zero zero_mid",
        "diagonal_negative_dims": "zero zero_mid",
        "diagonal_offset": "zero zero_mid",
        "diagonal_offset_big": "bool c23 c234 c64 i64 sliced transposed zero zero_mid",
        "diagonal_offset_negative": "zero zero_mid",
        "movedim_dup_source": "scalar vec",
        "unflatten_infer": "zero_mid",
        "unflatten_list": "zero_mid",
    },
    reduction_dims_matrix: {
        "aminmax": ("bools/c64 dup/c64 dup_wrapped/c64 empty_list/c64 empty_tuple/c64 float/c64 "
                 "keep_empty_list/c64 keep_pair/c64 pair/c64 str/c64"),
        "count_nonzero": ("bools/bool bools/c64 bools/empty bools/f16 bools/f32 bools/f32_nan bools/f64 bools/i64 "
                 "bools/scalar bools/u8 bools/vec dims_list_keepdim dtype_keyword float/bool float/c64 "
                 "float/empty float/f16 float/f32 float/f32_nan float/f64 float/i64 float/scalar float/u8 "
                 "float/vec keep_empty_list/bool keep_empty_list/c64 keep_empty_list/empty keep_empty_list/f16 "
                 "keep_empty_list/f32 keep_empty_list/f32_nan keep_empty_list/f64 keep_empty_list/i64 "
                 "keep_empty_list/scalar keep_empty_list/u8 keep_empty_list/vec keep_neg1/bool keep_neg1/c64 "
                 "keep_neg1/empty keep_neg1/f16 keep_neg1/f32 keep_neg1/f32_nan keep_neg1/f64 keep_neg1/i64 "
                 "keep_neg1/scalar keep_neg1/u8 keep_neg1/vec keep_none/bool keep_none/c64 keep_none/empty "
                 "keep_none/f16 keep_none/f32 keep_none/f32_nan keep_none/f64 keep_none/i64 keep_none/scalar "
                 "keep_none/u8 keep_none/vec keep_pair/bool keep_pair/c64 keep_pair/empty keep_pair/f16 "
                 "keep_pair/f32 keep_pair/f32_nan keep_pair/f64 keep_pair/i64 keep_pair/scalar keep_pair/u8 "
                 "keep_pair/vec str/bool str/c64 str/empty str/f16 str/f32 str/f32_nan str/f64 str/i64 "
                 "str/scalar str/u8 str/vec"),
        "nanmean": ("bools/bool bools/c64 bools/empty bools/f16 bools/f32 bools/f32_nan bools/f64 bools/i64 "
                 "bools/scalar bools/u8 bools/vec dim_dtype_c128/empty dtype_c128/empty dtype_str dup/c64 "
                 "dup_wrapped/c64 float/bool float/c64 float/empty float/f16 float/f32 float/f32_nan float/f64 "
                 "float/i64 float/scalar float/u8 float/vec out_i64 past/c64 past_negative/c64 str/bool "
                 "str/c64 str/empty str/f16 str/f32 str/f32_nan str/f64 str/i64 str/scalar str/u8 str/vec"),
        "nansum": ("bools/bool bools/c64 bools/empty bools/f16 bools/f32 bools/f32_nan bools/f64 bools/i64 "
                 "bools/scalar bools/u8 bools/vec dim_dtype_c128/empty dtype_c128/empty dtype_str dup/c64 "
                 "dup_wrapped/c64 float/bool float/c64 float/empty float/f16 float/f32 float/f32_nan float/f64 "
                 "float/i64 float/scalar float/u8 float/vec out_i64 past/c64 past_negative/c64 str/bool "
                 "str/c64 str/empty str/f16 str/f32 str/f32_nan str/f64 str/i64 str/scalar str/u8 str/vec"),
        "vector_norm": ("bools/bool bools/c64 bools/empty bools/f16 bools/f32 bools/f32_nan bools/f64 bools/i64 "
                 "bools/scalar bools/u8 bools/vec dtype_str float/bool float/c64 float/empty float/f16 "
                 "float/f32 float/f32_nan float/f64 float/i64 float/scalar float/u8 float/vec str/bool str/c64 "
                 "str/empty str/f16 str/f32 str/f32_nan str/f64 str/i64 str/scalar str/u8 str/vec"),
    },
}
FIXED = [(table, f"{op}/{rest}" if rest else op) for table, ops in _FIXED_NAMES.items()
         for op, rests in ops.items() for rest in (rests.split() or [""])]
CASES = fixed_cases(FIXED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device)


# Neighbours of the batch_norm fixes: an empty batch is PyTorch's early return (a copy of the input times weight[0]
# plus bias[0], before any check of the statistics), a 0-d input in training is _verify_batch_size's IndexError, the
# parser refuses a momentum or eps that is not a number before the size checks, and "running_mean must be defined in
# evaluation mode" comes before the kernel's dtype refusal.
def _bn(L, x, *args, **kwargs):
    return L.nn.functional.batch_norm(x, *args, **kwargs)


def _c(L, d, n=3, dtype="float32"):
    return L.arange(float(n), device=d).to(getattr(L, dtype)) + 1


BATCH_NORM = {
    "empty_weight_bias_values": lambda L, d: _bn(L, L.empty(0, 3, 2, device=d), None, None, _c(L, d), _c(L, d),
                                                 training=True),
    "empty_weight_f64": lambda L, d: _bn(L, L.empty(0, 3, device=d), None, None, _c(L, d, dtype="float64")),
    "empty_weight_empty": lambda L, d: _bn(L, L.empty(0, 3, device=d), None, None, L.empty(0, device=d)),
    "empty_bias_2d": lambda L, d: _bn(L, L.empty(2, 3, 0, device=d), None, None, None, L.ones(3, 3, device=d)),
    "empty_stats_untouched": lambda L, d: (lambda rm, rv: (_bn(L, L.empty(0, 3, device=d), rm, rv, training=True),
                                                           rm, rv))(_c(L, d), _c(L, d)),
    "empty_int_eval": lambda L, d: _bn(L, L.empty(0, 3, dtype=L.int64, device=d), None, None),
    "empty_grad": lambda L, d: (lambda w: L.autograd.grad(_bn(L, L.empty(0, 3, device=d), None, None, w).sum(),
                                                          w))(_c(L, d).requires_grad_()),
    "empty_grad_fn": lambda L, d: _bn(L, L.empty(0, 3, device=d).requires_grad_(), None, None, None,
                                      _c(L, d)).grad_fn.name(),
    "scalar_training_stats": lambda L, d: _bn(L, L.tensor(1.0, device=d), _c(L, d), _c(L, d), training=True),
    "vector_momentum_str": lambda L, d: _bn(L, L.ones(3, device=d), _c(L, d), _c(L, d), momentum="a"),
    "momentum_none_eval": lambda L, d: _bn(L, X(L, (2, 3), d), _c(L, d), _c(L, d), momentum=None),
    "eps_none_eval": lambda L, d: _bn(L, X(L, (2, 3), d), _c(L, d), _c(L, d), eps=None),
    "int_eval_var_missing": lambda L, d: _bn(L, X(L, (2, 3), d).long(), _c(L, d), None),
    "vector_eval_no_stats": lambda L, d: _bn(L, L.ones(3, device=d), None, None),
    "vector_eval_var_missing": lambda L, d: _bn(L, L.ones(3, device=d), L.ones(0, device=d), None),
    "vector_training_weight": lambda L, d: _bn(L, L.ones(3, device=d), None, None, _c(L, d), training=True),
    "rows_eval": lambda L, d: _bn(L, X(L, (4, 3), d), _c(L, d), _c(L, d)),
    "module_empty_batch": lambda L, d: (lambda m: (m(L.empty(0, 3, device=d)), m.num_batches_tracked))(
        L.nn.BatchNorm1d(3).to(d)),
}


@pytest.mark.parametrize("name", sorted(BATCH_NORM))
def test_batch_norm_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(BATCH_NORM[name], device)


# Neighbours of the instance_norm, group_norm, rms_norm and local_response_norm fixes.
def _in(L, x, *args, **kwargs):
    return L.nn.functional.instance_norm(x, *args, **kwargs)


NORMS = {
    "in_empty_batch_stats": lambda L, d: (lambda rm, rv: (_in(L, L.empty(0, 3, 4, device=d), rm, rv), rm, rv))(
        _c(L, d), _c(L, d)),
    "in_empty_length_stats": lambda L, d: (lambda rm, rv: (_in(L, L.empty(2, 3, 0, device=d), rm, rv), rm, rv))(
        _c(L, d), _c(L, d)),
    "in_empty_eval_stats": lambda L, d: (lambda rm, rv: (_in(L, L.empty(0, 3, 4, device=d), rm, rv,
                                                             use_input_stats=False), rm, rv))(_c(L, d), _c(L, d)),
    "in_empty_weight_bias": lambda L, d: _in(L, L.empty(2, 3, 0, device=d), weight=_c(L, d), bias=_c(L, d)),
    "in_empty_stats_long": lambda L, d: _in(L, L.empty(2, 3, 0, device=d), _c(L, d, 5), _c(L, d, 5)),
    "in_eps_str": lambda L, d: _in(L, X(L, (2, 3, 4), d), eps="a"),
    "in_momentum_none_no_stats": lambda L, d: _in(L, X(L, (2, 3, 4), d), momentum=None),
    "in_half_eval_float_stats": lambda L, d: _in(L, X(L, (2, 3, 4), d, "float16"), _c(L, d), _c(L, d),
                                                 use_input_stats=False),
    "in_bfloat16_eval_float_weight": lambda L, d: _in(L, X(L, (2, 3, 4), d, "bfloat16"), _c(L, d), _c(L, d),
                                                      _c(L, d), use_input_stats=False),
    "gn_empty_spatial_4d": lambda L, d: L.nn.functional.group_norm(L.empty(2, 3, 4, 0, device=d), 3),
    "gn_empty_batch_negative": lambda L, d: L.nn.functional.group_norm(L.empty(0, 3, 4, device=d), -1),
    "gn_int_weight_float": lambda L, d: L.nn.functional.group_norm(X(L, (2, 3, 4), d).int(), 3, _c(L, d)),
    "gn_half_weight_float": lambda L, d: L.nn.functional.group_norm(X(L, (2, 3, 4), d, "float16"), 3, _c(L, d)),
    "gn_half_weight_double": lambda L, d: L.nn.functional.group_norm(X(L, (2, 3, 4), d, "float16"), 3,
                                                                     _c(L, d, dtype="float64")),
    "gn_float_bias_double": lambda L, d: L.nn.functional.group_norm(X(L, (2, 3, 4), d), 3, None,
                                                                    _c(L, d, dtype="float64")),
    "gn_half_weight_float_bias_half": lambda L, d: L.nn.functional.group_norm(
        X(L, (2, 3, 4), d, "float16"), 3, _c(L, d), _c(L, d, dtype="float16")),
    "gn_int_no_weight": lambda L, d: L.nn.functional.group_norm(X(L, (2, 3, 4), d).int(), 3),
    "gn_zero_groups_2d": lambda L, d: L.nn.functional.group_norm(X(L, (2, 3), d), 0),
    "rms_complex_imaginary": lambda L, d: L.nn.functional.rms_norm(L.tensor([[1 + 2j, 3 - 1j]], device=d), (2,)),
    "rms_complex128_eps_none": lambda L, d: L.nn.functional.rms_norm(
        L.tensor([[1e-5j, 0]], dtype=L.complex128, device=d), (2,)),
    "rms_complex64_eps_none": lambda L, d: L.nn.functional.rms_norm(L.tensor([[1e-5j, 0]], device=d), (2,)),
    "rms_complex_weight": lambda L, d: L.nn.functional.rms_norm(L.tensor([[1j, 2.0]], device=d), (2,),
                                                                L.tensor([2.0, 0.5], device=d)),
    "rms_rank_before_shape": lambda L, d: L.nn.functional.rms_norm(X(L, (2, 3), d), (2, 3, 3)),
    "rms_weight_before_rank": lambda L, d: L.nn.functional.rms_norm(L.tensor(1.0, device=d), (4,),
                                                                    L.ones(3, device=d)),
    "rms_int_rank": lambda L, d: L.nn.functional.rms_norm(L.tensor(1, device=d), (4,)),
    "rms_int_shape_mismatch": lambda L, d: L.nn.functional.rms_norm(X(L, (2, 3), d).long(), (4,)),
    "lrn_size_0_uint8": lambda L, d: L.nn.functional.local_response_norm(L.ones(1, 3, 4, dtype=L.uint8,
                                                                                device=d), 0),
    "avg_pool2d_bool_kernel_0": lambda L, d: L.nn.functional.avg_pool2d(L.ones(1, 3, 3, dtype=L.bool, device=d),
                                                                        (0, 1)),
    "avg_pool2d_bool_kernel_1": lambda L, d: L.nn.functional.avg_pool2d(L.ones(1, 3, 3, dtype=L.bool, device=d),
                                                                        1),
}


@pytest.mark.parametrize("name", sorted(NORMS))
def test_norm_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(NORMS[name], device)


# Neighbours of the addcmul/addcdiv/lerp fixes: the parser's refusals of numbers, the broadcast error naming the
# operands in PyTorch's order, value's conversion (NaN into an integer result, a complex value after the broadcast),
# addcdiv's kernel order value * tensor1 / tensor2, lerp's 0-d weight promotion and its number weight's conversion.
def _r(L, d, dtype="float32"):
    return L.tensor([[-2.5, 0.0, 3.0], [1.5, 2.0, 7.0]], device=d).to(getattr(L, dtype))


ADDC_LERP = {
    "addcmul_tensor1_number": lambda L, d: L.addcmul(_r(L, d), 2.0, _r(L, d)),
    "addcmul_tensor2_list": lambda L, d: L.addcmul(_r(L, d), _r(L, d), [1.0, 2.0, 3.0]),
    "addcdiv_input_int": lambda L, d: L.addcdiv(3, _r(L, d), _r(L, d)),
    "addcmul_broadcast_tensor2": lambda L, d: L.addcmul(_r(L, d), _r(L, d)[:, :1], L.ones(4, device=d)),
    "addcdiv_broadcast_input": lambda L, d: L.addcdiv(L.ones(5, device=d), _r(L, d), _r(L, d) + 10),
    "addcmul_inf_value_int": lambda L, d: L.addcmul(_r(L, d, "int32"), _r(L, d, "int32"), _r(L, d, "int32"),
                                                    value=math.inf),
    "addcmul_nan_value_uint8": lambda L, d: L.addcmul(_r(L, d, "uint8"), _r(L, d, "uint8"), _r(L, d, "uint8"),
                                                      value=math.nan),
    "addcmul_nan_value_float": lambda L, d: L.addcmul(_r(L, d), _r(L, d), _r(L, d), value=math.nan),
    "addcmul_complex_value_f64": lambda L, d: L.addcmul(_r(L, d, "float64"), _r(L, d), _r(L, d), value=1j),
    "addcmul_complex_value_0d_input": lambda L, d: L.addcmul(L.tensor(1.0, dtype=L.float64, device=d), _r(L, d),
                                                             _r(L, d), value=2j),
    "addcdiv_complex_by_zero": lambda L, d: L.addcdiv(L.zeros(3, dtype=L.complex64, device=d),
                                                      L.tensor([-1j, 2 + 0j, 1 - 1j], device=d),
                                                      L.zeros(3, device=d)),
    "addcdiv_value_2_complex_by_zero": lambda L, d: L.addcdiv(L.zeros(3, dtype=L.complex64, device=d),
                                                              L.tensor([-1j, 2 + 0j, 1 - 1j], device=d),
                                                              L.zeros(3, device=d), value=2),
    "addcdiv_inplace_complex_by_zero": lambda L, d: L.zeros(3, dtype=L.complex64, device=d).addcdiv_(
        L.tensor([-1j, 2 + 0j, 1 - 1j], device=d), L.zeros(3, device=d), value=-0.5),
    "addcdiv_value_order_float": lambda L, d: L.addcdiv(_r(L, d), _r(L, d) * 1e-20, _r(L, d) + 0.3, value=1e20),
    "lerp_int_ends_f64_0d_weight": lambda L, d: L.lerp(_r(L, d, "int64"), _r(L, d, "int64") * 2,
                                                       L.tensor(0.25, dtype=L.float64, device=d)),
    "lerp_int_ends_int_0d_weight": lambda L, d: L.lerp(_r(L, d, "int64"), _r(L, d, "int64"),
                                                       L.tensor(1, device=d)),
    "lerp_half_ends_float_0d_weight": lambda L, d: L.lerp(_r(L, d, "float16"), _r(L, d, "float16") * 3,
                                                          L.tensor(0.5, device=d)),
    "lerp_float_complex_0d_weight": lambda L, d: L.lerp(_r(L, d), _r(L, d) + 1, L.tensor(0.5j, device=d)),
    "lerp_1d_f64_weight": lambda L, d: L.lerp(_r(L, d), _r(L, d), L.ones(3, dtype=L.float64, device=d)),
    "lerp_end_f64": lambda L, d: L.lerp(_r(L, d), _r(L, d, "float64"), L.tensor(0.5, dtype=L.float64, device=d)),
    "lerp_complex_weight_f64": lambda L, d: L.lerp(_r(L, d, "float64"), _r(L, d, "float64"), 1j),
    "lerp_complex_weight_int": lambda L, d: L.lerp(_r(L, d, "int64"), _r(L, d, "int64"), 1j),
    "lerp_complex_weight_complex": lambda L, d: L.lerp(_r(L, d, "complex64"), _r(L, d, "complex64") * 1j, 0.5j),
    "lerp_broadcast_weight": lambda L, d: L.lerp(_r(L, d), _r(L, d), L.ones(4, device=d)),
    "lerp_weight_str": lambda L, d: L.lerp(_r(L, d), _r(L, d), "a"),
    "lerp_end_number": lambda L, d: L.lerp(_r(L, d), 2.0, 0.5),
    "lerp_method_0d_weight": lambda L, d: _r(L, d).lerp(_r(L, d) * 2, L.tensor(0.75, dtype=L.float64, device=d)),
    "lerp_inplace_0d_f64_weight": lambda L, d: _r(L, d).lerp_(_r(L, d) * 2, L.tensor(0.75, dtype=L.float64,
                                                                                        device=d)),
    "lerp_out_0d_weight": lambda L, d: (lambda out: (L.lerp(_r(L, d), _r(L, d) * 2, L.tensor(
        0.5, dtype=L.float64, device=d), out=out), out))(L.empty(2, 3, device=d)),
    "lerp_numpy_weight": lambda L, d: L.lerp(_r(L, d), _r(L, d) * 2, __import__("numpy").float32(0.5)),
}


@pytest.mark.parametrize("name", sorted(ADDC_LERP))
def test_addc_lerp_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(ADDC_LERP[name], device)


# Neighbours of the heaviside fix: two tensors are checked complex first, then for equal dtypes, then broadcast, as
# PyTorch (functions, methods, in-place and out=); a Python number operand stays tandem's documented extension
# (docs/compat.md) and is checked below directly.
PAIRS = {
    "heaviside_values_keyword": lambda L, d: L.heaviside(_r(L, d), values=L.tensor([0.5], device=d)),
    "heaviside_complex_first": lambda L, d: L.heaviside(_r(L, d, "complex64"), L.ones(4, device=d)),
    "heaviside_complex_values_int_input": lambda L, d: L.heaviside(_r(L, d, "int64"), _r(L, d, "complex128")),
    "heaviside_dtypes_before_broadcast": lambda L, d: L.heaviside(_r(L, d), L.ones(4, dtype=L.float64, device=d)),
    "heaviside_same_dtype_broadcast": lambda L, d: L.heaviside(_r(L, d), L.ones(4, device=d)),
    "heaviside_int": lambda L, d: L.heaviside(_r(L, d, "int64"), L.tensor([7], device=d)),
    "heaviside_0d_values_other_dtype": lambda L, d: L.heaviside(_r(L, d), L.tensor(0.5, dtype=L.float64, device=d)),
    "heaviside_method_dtypes": lambda L, d: _r(L, d).heaviside(_r(L, d, "float16")),
    "heaviside_inplace_complex": lambda L, d: _r(L, d).heaviside_(_r(L, d, "complex64")),
    "heaviside_inplace_broadcast": lambda L, d: _r(L, d)[:1].heaviside_(_r(L, d)),
    "heaviside_inplace": lambda L, d: _r(L, d).heaviside_(L.tensor([2.0, 3.0, 4.0], device=d)),
    "heaviside_out": lambda L, d: (lambda out: (L.heaviside(_r(L, d), _r(L, d)[1], out=out), out))(
        L.empty(2, 3, device=d)),
    "heaviside_out_int": lambda L, d: L.heaviside(_r(L, d), _r(L, d), out=L.empty(2, 3, dtype=L.int64, device=d)),
    "heaviside_numpy_values": lambda L, d: L.heaviside(_r(L, d), __import__("numpy").ones(3)),
    "hypot_complex_broadcast": lambda L, d: L.hypot(_r(L, d, "complex64"), L.ones(4, device=d)),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_heaviside_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(PAIRS[name], device)


def test_heaviside_keeps_number_operands_and_identity(device):
    """A Python number operand is still taken (docs/compat.md), by the function, the method and in place; the
    replacement is still tandem's public builtin (pickled by name, dispatched through __torch_function__)."""
    import pickle

    x = tandem.tensor([-1.0, 0.0, 2.0], device=device)
    assert tandem.heaviside(x, 0.5).tolist() == [0.0, 0.5, 1.0]
    assert x.heaviside(7).tolist() == [0.0, 7.0, 1.0] and x.clone().heaviside_(True).tolist() == [0.0, 1.0, 1.0]
    assert pickle.loads(pickle.dumps(tandem.heaviside)) is tandem.heaviside
    seen = []

    class Traced(tandem.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    y = tandem.ones(2, device=device).as_subclass(Traced)
    tandem.heaviside(y, tandem.zeros(2, device=device))
    y.heaviside(tandem.zeros(2, device=device))
    assert seen[0] is tandem.heaviside and seen[1].__name__ == "heaviside"


# Neighbours of the shape fixes: movedim wraps both dim lists before its repeat check, an empty diagonal has the
# stride a diagonal steps by, unflatten infers -1 from the dim's own size, adjoint of a 0-d tensor is its conjugate.
SHAPES = {
    "movedim_dest_out_before_source_repeat": lambda L, d: L.movedim(X(L, (2, 3), d), (0, 0), (0, 2)),
    "movedim_source_out_before_dest_repeat": lambda L, d: L.movedim(X(L, (2, 3), d), (0, 5), (1, 1)),
    "moveaxis_dest_repeat": lambda L, d: L.moveaxis(X(L, (2, 3, 4), d), (0, 1), (-1, 2)),
    "movedim_0d_repeat": lambda L, d: L.movedim(L.tensor(1.0, device=d), (0, -1), (0, 0)),
    "diagonal_empty_3d": lambda L, d: (lambda v: (v, v.stride(), v.storage_offset()))(
        L.empty(3, 0, 2, device=d).diagonal(0, 0, 2)),
    "diagonal_past_offset_view": lambda L, d: (lambda v: (v, v.stride(), v.storage_offset()))(
        X(L, (4, 6), d)[1:, 2:].diagonal(-9)),
    "diagonal_empty_grad": lambda L, d: (lambda x: L.autograd.grad(x.diagonal(5).sum(), x))(
        X(L, (2, 3), d).requires_grad_()),
    "diagonal_transposed_empty": lambda L, d: (lambda v: (v, v.stride()))(X(L, (3, 4), d).t().diagonal(7)),
    "unflatten_zero_dim_infer": lambda L, d: L.empty(2, 0, 4, device=d).unflatten(1, (-1, 2)).shape,
    "unflatten_zero_infer_ambiguous": lambda L, d: L.empty(2, 0, 4, device=d).unflatten(1, (0, -1)),
    "unflatten_batch_infer": lambda L, d: L.empty(6, 0, device=d).unflatten(0, (3, -1)).shape,
    "unflatten_infer_values": lambda L, d: X(L, (2, 6), d).unflatten(-1, (-1, 3)),
    "adjoint_0d_complex": lambda L, d: L.tensor(1.5 + 2j, device=d).adjoint(),
    "adjoint_0d_real": lambda L, d: L.adjoint(L.tensor(1.5, device=d)),
    "adjoint_1d": lambda L, d: L.ones(3, device=d).adjoint(),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shape_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(SHAPES[name], device)


def test_adjoint_of_a_0d_tensor_warns_as_pytorch():
    with pytest.warns(UserWarning, match=r"^adjoint\(\) is deprecated on 0-D tensors\. Consider using x\.conj\(\)\.$"):
        y = tandem.tensor(2.0 - 1j).adjoint()
    assert y.item() == 2.0 + 1j and y.dtype == tandem.complex64


# Neighbours of the reduction fixes: PyTorch's parser errors (dim by position: "but found element of type bool at
# pos 0" and the position; by keyword: "not tuple"; keepdim and dtype too) before the dtype checks, count_nonzero's
# listing for what its overloads refuse, nansum's int out=, and every accepted form still computing.
def _m(L, d, dtype="float32"):
    return L.tensor([[1.0, math.nan, 3.0], [-2.0, 0.5, 4.0]], device=d).to(getattr(L, dtype))


REDUCTIONS = {
    "nansum_positional_bools": lambda L, d: L.nansum(_m(L, d), (True, False)),
    "nansum_positional_float": lambda L, d: L.nansum(_m(L, d), 0.5),
    "nansum_keepdim_int": lambda L, d: L.nansum(_m(L, d), 0, 1),
    "nansum_keepdim_keyword_int": lambda L, d: L.nansum(_m(L, d), keepdim=1),
    "nansum_dtype_int": lambda L, d: L.nansum(_m(L, d), dtype=3),
    "nansum_four_positional": lambda L, d: L.nansum(_m(L, d), 0, True, L.float64),
    "nansum_dim_twice": lambda L, d: L.nansum(_m(L, d), 0, dim=1),
    "nansum_axis_keepdims": lambda L, d: L.nansum(_m(L, d), axis=1, keepdims=True),
    "nansum_axis_and_dim": lambda L, d: L.nansum(_m(L, d), axis=1, dim=0),
    "nansum_positional_and_axis": lambda L, d: L.nansum(_m(L, d), 1, axis=0),
    "nanmean_axis": lambda L, d: L.nanmean(_m(L, d), axis=0),
    "nansum_later_bool_dim": lambda L, d: L.nansum(_m(L, d), dim=(1, True)),
    "nansum_first_bool_dim_keyword": lambda L, d: L.nansum(_m(L, d), dim=[True, 1]),
    "count_nonzero_axis": lambda L, d: L.count_nonzero(_m(L, d), axis=1),
    "nansum_positional": lambda L, d: L.nansum(_m(L, d), [0, 1], True),
    "nansum_method": lambda L, d: _m(L, d).nansum(1),
    "nansum_method_bools": lambda L, d: _m(L, d).nansum(dim=(True,)),
    "nansum_complex_past": lambda L, d: L.nansum(_m(L, d, "complex64"), 3),
    "nansum_complex_bad_dim": lambda L, d: L.nansum(_m(L, d, "complex64"), 0.5),
    "nansum_out_bool": lambda L, d: L.nansum(_m(L, d), 0, out=L.empty(3, dtype=L.bool, device=d)),
    "nansum_out_int_from_int": lambda L, d: (lambda out: (L.nansum(_m(L, d).nan_to_num().long(), 0, out=out), out))(
        L.empty(3, dtype=L.int32, device=d)),
    "nansum_out_half": lambda L, d: (lambda out: (L.nansum(_m(L, d), 0, out=out), out))(
        L.empty(3, dtype=L.float16, device=d)),
    "nansum_empty_complex_dtype_dim": lambda L, d: L.nansum(L.empty(0, 3, device=d), 0, dtype=L.complex64),
    "nanmean_positional_bools": lambda L, d: L.nanmean(_m(L, d), [0, False]),
    "nanmean_int_dim_past": lambda L, d: L.nanmean(_m(L, d).nan_to_num().long(), 5),
    "nanmean_int_bad_dim": lambda L, d: L.nanmean(_m(L, d).nan_to_num().long(), "a"),
    "nanmean_out_int": lambda L, d: L.nanmean(_m(L, d), 0, out=L.empty(3, dtype=L.int64, device=d)),
    "nanmean_keepdim": lambda L, d: L.nanmean(_m(L, d), 1, True),
    "count_nonzero_positional_keepdim": lambda L, d: L.count_nonzero(_m(L, d), 0, keepdim=True),
    "count_nonzero_three_positional": lambda L, d: L.count_nonzero(_m(L, d), 0, 1),
    "count_nonzero_dim_twice": lambda L, d: L.count_nonzero(_m(L, d), 0, dim=1),
    "count_nonzero_dims": lambda L, d: L.count_nonzero(_m(L, d), (0, 1)),
    "count_nonzero_dim_keyword": lambda L, d: L.count_nonzero(_m(L, d), dim=-1),
    "count_nonzero_input_list": lambda L, d: L.count_nonzero([1, 0]),
    "count_nonzero_method_varargs": lambda L, d: _m(L, d).count_nonzero(0, 1),
    "vector_norm_keepdim_int": lambda L, d: L.linalg.vector_norm(_m(L, d), keepdim=1),
    "vector_norm_dim_list_bool_int": lambda L, d: L.linalg.vector_norm(_m(L, d), dim=[0, True]),
    "vector_norm_int_dtype_str": lambda L, d: L.linalg.vector_norm(_m(L, d).long(), dtype="a"),
    "vector_norm_dims": lambda L, d: L.linalg.vector_norm(_m(L, d).nan_to_num(), 3, (0, 1), True),
    "aminmax_complex_dim_float": lambda L, d: L.aminmax(_m(L, d, "complex64"), dim=1.0),
    "aminmax_complex_dim": lambda L, d: L.aminmax(_m(L, d, "complex64"), dim=0),
    "aminmax_dim_bool": lambda L, d: L.aminmax(_m(L, d), dim=True),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(REDUCTIONS[name], device)


# Findings whose cause is in C++ (their KNOWN entries in the tables say what to change): strict xfails.
TABLES = (norm_layers_matrix, ternary_matrix, shape_view_matrix, reduction_dims_matrix)
NEEDS_CPP = needs_cpp(TABLES)
CPP_CASES = fixed_cases(NEEDS_CPP)


@pytest.mark.parametrize("name", sorted(CPP_CASES))
@pytest.mark.xfail(strict=True, reason="C++: the table's KNOWN entry names the change")
def test_needs_cpp(name):
    assert_matches_pytorch(CPP_CASES[name], "cpu")


# Fixed in C++ after the round (session 47): complex division by a zero with a negative sign divides each part by
# +0, as c10::complex (std::abs) does: (2-2j) / -0.0 is inf-infj (src/core/complex.h), seen through addcdiv;
# amax/amin/median check their dims before refusing complex (src/ops/reduce.cpp, order_stats.cpp); mean/prod of a
# complex input with a real or bool dtype= reduce the real parts (src/ops/reduce.cpp as_reduce_dtype).
CPP_FIXED = fixed_cases([(ternary_matrix, name) for name in sorted(ternary_matrix.CASES)
                         if ternary_matrix.complex_division_case(name)] +
                        [(reduction_dims_matrix, f"{op}/{variant}/{x}") for op in ("amax", "amin")
                         for variant, x in (("dup", "c64"), ("dup", "empty"), ("dup_wrapped", "c64"), ("past", "c64"),
                                            ("past_negative", "c64"))] +
                        [(reduction_dims_matrix, f"{op}/{variant}/c64") for op in ("median", "nanmedian")
                         for variant in ("past", "past_negative")] +
                        [(reduction_dims_matrix, f"{op}/{form}{suffix}/c64") for op, suffixes in (
                            ("mean", ("_f16", "_f64")), ("prod", ("_f16", "_f64", "_i32", "_bool")))
                         for form in ("dtype", "dim_dtype") for suffix in suffixes] +
                        # session 48 (each table's comment names the change): clamp's bounds and out=, masked_fill's
                        # value and order of checks; size varargs, listings and torch.reshape(x, 6); the reductions'
                        # dim and dtype parsing
                        [(ternary_matrix, name) for name in sorted(ternary_matrix.CASES)
                         if ternary_matrix.cpp_fixed_case(name)] +
                        [(shape_view_matrix, f"{op}/{x}") for op in shape_view_matrix.CPP_FIXED_OPS
                         for x in shape_view_matrix.INPUTS] +
                        [(reduction_dims_matrix, name) for name in sorted(reduction_dims_matrix.CASES)
                         if reduction_dims_matrix.cpp_fixed_case(name)])


@pytest.mark.parametrize("source", ["float32", "float64", "complex64", "int64"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_mean_of_a_wider_input(source, dtype, device):
    """PyTorch's mean(x, dtype=float16/bfloat16) of a wider input sums in float32 and rounds once (the input is not
    rounded to 16 bits first; a complex input gives its real parts)."""
    import warnings
    g = torch.Generator().manual_seed(3)
    x = (torch.randn(64, 33, generator=g) * 3).to(getattr(torch, source))
    t = tandem.from_numpy(x.numpy()).to(device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the complex input's discard warning, in both libraries
        want, got = torch.mean(x, dtype=getattr(torch, dtype)), tandem.mean(t, dtype=getattr(tandem, dtype))
        rows, got_rows = torch.mean(x, 0, dtype=getattr(torch, dtype)), tandem.mean(t, 0, dtype=getattr(tandem, dtype))
    assert str(got.dtype) == f"tandem.{dtype}" and got.float().item() == want.float().item()
    assert got_rows.float().cpu().tolist() == pytest.approx(rows.float().tolist(), rel=2 ** -7)


@pytest.mark.parametrize("name", sorted(CPP_FIXED))
def test_fixed_in_cpp(name, device):
    assert_matches_pytorch(CPP_FIXED[name], device)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 40])  # one element, and enough for the vectorised loops
def test_complex_division_by_signed_zeros(dtype, n, device):
    got = []
    for L in (torch, tandem):
        d = device if L is tandem else "cpu"
        zeros = [complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)]
        num = L.tensor([1 + 1j, 2 - 2j, -1 + 0j, 0j] * n, dtype=getattr(L, dtype), device=d)
        den = L.tensor([z for z in zeros for _ in range(n)], dtype=getattr(L, dtype), device=d)
        got.append([str(v) for v in (num / den).cpu().tolist()])
    assert got[0] == got[1]
