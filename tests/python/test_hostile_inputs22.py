"""Regression tests for what the twenty-second round of the differential hostile-input harness (fuzz/hostile_diff.py,
the index_args_matrix, join_split_matrix, activations_matrix and factory_args_matrix tables) found and fixed in
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


sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
from hostile_cases import (activations_matrix, factory_args_matrix, index_args_matrix,  # noqa: E402
                           join_split_matrix)

N, INF = math.nan, math.inf

# The cases the round fixed, by table and op: the rest of each case name (its inputs), space-separated.
_FIXED_NAMES = {
    index_args_matrix: {op: " ".join(f"{x}/{i}" for x in index_args_matrix.SELVES for i in ("int", "list"))
                        for op in ("put", "put_", "put_accumulate")},
    join_split_matrix: {
        "repeat_interleave_float": "bool c23 c234 c64 expanded i64 scalar sliced transposed vec zero zero_mid",
        "repeat_interleave_output_size": "transposed vec zero",
        "repeat_interleave_output_size_wrong": "bool c23 c234 c64 expanded i64 scalar sliced zero_mid",
        "repeat_interleave_tensor": "scalar",
        "repeat_interleave_tensor_float": "scalar transposed vec zero",
        "repeat_interleave_tensor_negative": "scalar",
        "repeat_interleave_tensor_short": "scalar",
        "roll_dim": "scalar",
        "roll_dim_past": "scalar",
        "roll_huge": "scalar",
        "roll_tuple": "scalar",
        "rot90_float_k": "bool c23 c234 c64 expanded i64 scalar sliced transposed vec zero zero_mid",
        "split_with_sizes": "scalar",
        "tensor_split_float": "scalar",
        "tile_int": "bool c23 c234 c64 expanded i64 scalar sliced transposed vec zero zero_mid",
    },
    activations_matrix: {
        "GELU_module_bad": "bool i64",
        "gelu_bad": "bool i64",
        "hardtanh_nan": "bf16 f16 f32 f32_3d f64 i64 nonfinite scalar transposed vec",
        "softshrink": "c64",
        "softshrink_negative": "c64",
        "threshold": "c64",
        "threshold_inf": "c64 i64",
        "threshold_inplace": "c64",
        "threshold_nan": "c64 i64",
        "threshold_tensor": "c64",
        "threshold_value_nan": "c64 i64",
    },
    factory_args_matrix: {
        "kw/empty_strided": ("device_float dtype_int dtype_numpy dtype_str grad_bool grad_int grad_str layout_str "
                             "python_float python_int"),
        "kw/logspace": ("bool channels_last complex64 contiguous_format device_float dtype_int dtype_numpy "
                        "dtype_str grad_bool grad_int grad_str int64 layout_str preserve_format python_float "
                        "python_int uint8"),
        "kw/scalar_tensor": "device_float dtype_int dtype_numpy dtype_str grad_str layout_str",
        "logspace/big": "None bool complex64 float16 int64",
        "logspace/complex_end": "None bool complex64 float16 int64",
        "logspace/end_inf": "bool int64",
        "logspace/ok": "bool complex64 int64",
        "logspace/reversed": "bool complex64 int64",
        "logspace/start_nan": "bool int64",
        "logspace/steps_bool": "None bool complex64 float16 int64",
        "logspace/steps_float": "None bool complex64 float16 int64",
        "logspace/steps_tensor": "bool complex64 int64",
        "logspace/str_end": "None bool complex64 float16 int64",
        "logspace/tensor_end": "bool complex64 int64",
        "size/empty_strided": "numpy_int",
    },
}
FIXED = [(table, f"{op}/{rest}" if rest else op) for table, ops in _FIXED_NAMES.items()
         for op, rests in ops.items() for rest in (rests.split() or [""])]
CASES = fixed_cases(FIXED)
# Random or uninitialised results (the tables' "shape" cases) compare by dtype and shape only, as the harness does.
SHAPE_ONLY = {f"{table.__name__.rsplit('.', 1)[1]}/{name}" for table, name in FIXED
              if getattr(table.CASES[name], "mode", "close") == "shape"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device, shape_only=name in SHAPE_ONLY)


def _v(L, d, n=3, dtype="float32"):
    return L.arange(float(n), device=d).to(getattr(L, dtype))


# Neighbours of the put/put_ fix: an argument that is not a tensor is the parser's TypeError, positions counted as
# PyTorch counts them (the function's input is 1, the method's index is 1); tensors still put as before.
PUTS = {
    "method_source_number": lambda L, d: _v(L, d).put(L.tensor([0], device=d), 2.0),
    "method_index_tuple": lambda L, d: _v(L, d).put((0,), _v(L, d, 1)),
    "in_place_source_list": lambda L, d: _v(L, d).put_(L.tensor([0], device=d), [1.0]),
    "function_input_list": lambda L, d: L.put([1.0, 2.0], L.tensor([0]), L.ones(1)),
    "function_source_int": lambda L, d: L.put(_v(L, d), L.tensor([1], device=d), 5),
    "function_ok": lambda L, d: L.put(_v(L, d), L.tensor([2, 0], device=d), _v(L, d, 2) + 7),
    "method_accumulate": lambda L, d: _v(L, d).put(L.tensor([1, 1], device=d), _v(L, d, 2) + 1, True),
    "in_place_accumulate": lambda L, d: _v(L, d).put_(L.tensor([-1, -1], device=d), _v(L, d, 2) + 1, accumulate=True),
    "in_place_transposed": lambda L, d: X(L, (3, 2), d).t().put_(L.tensor([0, 5], device=d), _v(L, d, 2)),
}


@pytest.mark.parametrize("name", sorted(PUTS))
def test_put_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(PUTS[name], device)


# Neighbours of the join/split fixes: repeat_interleave's output_size (checked for int repeats always and for CPU
# repeats tensors, as PyTorch's CPU kernel), its dim and length checks in PyTorch's order, the method's and the
# function's overload listings; roll, rot90, tile, split_with_sizes and tensor_split on odd arguments.
SHAPES = {
    "ri_output_size_right": lambda L, d: _v(L, d, 4).repeat_interleave(3, output_size=12),
    "ri_output_size_flat": lambda L, d: X(L, (2, 3), d).repeat_interleave(2, output_size=11),
    "ri_tensor_output_size_right": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([1, 2]), 0,
                                                                                   output_size=3),
    "ri_tensor_output_size_short": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([1, 2]), 0,
                                                                                   output_size=2),
    "ri_tensor_negative_with_size": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([-1, 4]), 0,
                                                                                    output_size=3),
    "ri_tensor_negative": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([-1, 4]), 0),
    "ri_0d_negative": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor(-1), 0),
    "ri_one_element_negative": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([-1]), 0),
    "ri_one_element": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([2]), -1),
    "ri_0d_output_size": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor(2), 0, output_size=4),
    "ri_0d_output_size_wrong": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor(2), 0, output_size=5),
    "ri_int_negative_with_size": lambda L, d: X(L, (2, 3), d).repeat_interleave(-1, 0, output_size=4),
    "ri_repeats_only_sized": lambda L, d: L.repeat_interleave(L.tensor([1, 2]), output_size=3),
    "ri_repeats_only_wrong": lambda L, d: L.repeat_interleave(L.tensor([1, 2]), output_size=5),
    "ri_function_float": lambda L, d: L.repeat_interleave(X(L, (2, 3), d), 2.0),
    "ri_function_str": lambda L, d: L.repeat_interleave(X(L, (2, 3), d), "2"),
    "ri_dim_past": lambda L, d: X(L, (2, 3), d).repeat_interleave(L.tensor([1, 2]), dim=4),
    "ri_0d_repeats_2d": lambda L, d: L.tensor(1.5, device=d).repeat_interleave(L.tensor([[1]]), dim=0),
    "ri_0d_int_dim": lambda L, d: L.tensor(1.5, device=d).repeat_interleave(2, dim=0),
    "ri_0d_no_dim": lambda L, d: L.tensor(1.5, device=d).repeat_interleave(3),
    "roll_0d_negative_dim": lambda L, d: L.roll(L.tensor(1.5, device=d), 1, -1),
    "roll_0d_no_dim": lambda L, d: L.roll(L.tensor(1.5, device=d), 1),
    "roll_empty_dim_past": lambda L, d: L.roll(L.empty(0, 3, device=d), 1, 5),
    "rot90_bool_k": lambda L, d: L.rot90(X(L, (2, 3), d), True),
    "rot90_method_float": lambda L, d: X(L, (2, 3), d).rot90(1.0),
    "rot90_keyword_float": lambda L, d: X(L, (2, 3), d).rot90(k=1.0),
    "rot90_int_k": lambda L, d: X(L, (2, 3), d).rot90(7, [1, 0]),
    "tile_method_int": lambda L, d: X(L, (2, 3), d).tile(2),
    "tile_list": lambda L, d: L.tile(X(L, (2, 3), d), [2, 1]),
    "tile_float_element": lambda L, d: L.tile(X(L, (2, 3), d), (2.0,)),
    "split_with_sizes_fn_0d": lambda L, d: L.split_with_sizes(L.tensor(1.5, device=d), [1]),
    "tensor_split_0d_int": lambda L, d: L.tensor(1.5, device=d).tensor_split(2),
    "tensor_split_fn_0d_float": lambda L, d: L.tensor_split(L.tensor(1.5, device=d), 2.5),
    "tensor_split_tensor_sections": lambda L, d: _v(L, d, 5).tensor_split(L.tensor(2)),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_join_split_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(SHAPES[name], device)


# Neighbours of the activation fixes: hardtanh with a NaN bound is NaN everywhere (PyTorch's clamp), also in place,
# as a module and for its gradient; the overflow check of the numbers hardtanh (int64_t for any integer input) and
# threshold (the input's type, float for 16-bit inputs) convert; threshold and softshrink of complex inputs; gelu's
# approximate before the dtype.
def _F(L):
    return L.nn.functional


ACTIVATIONS = {
    "hardtanh_max_nan": lambda L, d: _F(L).hardtanh(X(L, (2, 3), d), -1.0, N),
    "hardtanh_both_nan": lambda L, d: _F(L).hardtanh(X(L, (2, 3), d), N, N),
    "hardtanh_nan_in_place": lambda L, d: (lambda x: (_F(L).hardtanh(x, N, 1.0, True), x))(X(L, (2, 3), d)),
    "hardtanh__nan": lambda L, d: _F(L).hardtanh_(X(L, (4,), d), N, 0.5),
    "hardtanh_module_nan": lambda L, d: L.nn.Hardtanh(N, 1.0)(X(L, (2, 3), d)),
    "hardtanh_nan_grad": lambda L, d: (lambda x: L.autograd.grad(_F(L).hardtanh(x, N, 1.0).sum(), x))(
        X(L, (2, 3), d).requires_grad_()),
    "hardtanh_grad": lambda L, d: (lambda x: L.autograd.grad(_F(L).hardtanh(x, -1.0, 1.0).sum(), x))(
        X(L, (2, 3), d).requires_grad_()),
    "hardtanh_int_huge": lambda L, d: _F(L).hardtanh(X(L, (3,), d).long(), -1e30, 1),
    "hardtanh_int_neg_inf": lambda L, d: _F(L).hardtanh(X(L, (3,), d).long(), -INF, 1),
    "hardtanh_uint8_past": lambda L, d: _F(L).hardtanh(X(L, (3,), d).abs().to(L.uint8), 0, 300),
    "hardtanh_uint8_negative": lambda L, d: _F(L).hardtanh(X(L, (3,), d).abs().to(L.uint8), -1.0, 1),
    "hardtanh_int32_big": lambda L, d: _F(L).hardtanh(X(L, (3,), d).int(), 0, 2**40),
    "hardtanh_half_past": lambda L, d: _F(L).hardtanh(X(L, (3,), d, "float16"), 0, 1e6),
    "hardtanh_half_int_past": lambda L, d: _F(L).hardtanh(X(L, (3,), d, "float16"), 0, 100000),
    "hardtanh_half_inf": lambda L, d: _F(L).hardtanh(X(L, (3,), d, "float16"), 0, INF),
    "hardtanh_float_past": lambda L, d: _F(L).hardtanh(X(L, (3,), d), -1e300, 1),
    "hardtanh_double_big": lambda L, d: _F(L).hardtanh(X(L, (3,), d, "float64"), -1e300, 1),
    "hardtanh_complex_nan": lambda L, d: _F(L).hardtanh(X(L, (3,), d).to(L.complex64), N, 1.0),
    "relu6_nan_input": lambda L, d: _F(L).relu6(L.tensor([1.0, N, -INF], device=d)),
    "threshold_int32_past": lambda L, d: _F(L).threshold(X(L, (3,), d).int(), 1e10, 1.0),
    "threshold_uint8_value_past": lambda L, d: _F(L).threshold(X(L, (3,), d).abs().to(L.uint8), 1, 300.0),
    "threshold_uint8_float_negative": lambda L, d: _F(L).threshold(X(L, (3,), d).abs().to(L.uint8), 1, -1.0),
    "threshold_uint8_int_negative": lambda L, d: _F(L).threshold(X(L, (3,), d).abs().to(L.uint8), 1, -1),
    "threshold_uint8_int_wraps_past": lambda L, d: _F(L).threshold(X(L, (3,), d).abs().to(L.uint8), 1, -256),
    "threshold_int8_inf": lambda L, d: _F(L).threshold(X(L, (3,), d).to(L.int8), 1, INF),
    "threshold_int16_nan": lambda L, d: _F(L).threshold(X(L, (3,), d).to(L.int16), N, 1),
    "threshold_bool_nan": lambda L, d: _F(L).threshold(X(L, (3,), d) > 0, N, 1),
    "threshold_half_big": lambda L, d: _F(L).threshold(X(L, (3,), d, "float16"), 1e6, 1),
    "threshold_float_past": lambda L, d: _F(L).threshold(X(L, (3,), d), 1e300, 1),
    "threshold_double_big": lambda L, d: _F(L).threshold(X(L, (3,), d, "float64"), 1e300, 1),
    "threshold_int_fraction": lambda L, d: _F(L).threshold(X(L, (3,), d).long(), 0.5, 1.5),
    "threshold__complex": lambda L, d: _F(L).threshold_(X(L, (3,), d).to(L.complex64), 0.5, 1),
    "threshold_module_complex": lambda L, d: L.nn.Threshold(0.1, 2.0)(X(L, (3,), d).to(L.complex64)),
    "softshrink_complex128": lambda L, d: _F(L).softshrink(X(L, (3,), d).to(L.complex128), 0.5),
    "softshrink_int_negative": lambda L, d: _F(L).softshrink(X(L, (3,), d).long(), -0.5),
    "softshrink_negative": lambda L, d: _F(L).softshrink(X(L, (3,), d), -0.5),
    "Softshrink_module_complex": lambda L, d: L.nn.Softshrink()(X(L, (3,), d).to(L.complex64)),
    "gelu_bad_complex": lambda L, d: _F(L).gelu(X(L, (3,), d).to(L.complex64), approximate="fast"),
    "gelu_bad_bytes_int": lambda L, d: _F(L).gelu(X(L, (3,), d).long(), approximate=b"x"),
    "gelu_tanh_int": lambda L, d: _F(L).gelu(X(L, (3,), d).long(), approximate="tanh"),
    "gelu_tanh_values": lambda L, d: _F(L).gelu(X(L, (2, 3), d), approximate="tanh"),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(ACTIVATIONS[name], device)


# logspace as PyTorch's kernel computes it: the bounds converted to the dtype (an integer one truncates them), the
# step and powers in double and each power truncated for an integer dtype, complex powers for a complex dtype, from
# start for the first half and back from end for the rest.
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "float16", "bfloat16", "float32",
                                   "float64", "complex64", "complex128"])
@pytest.mark.parametrize("bounds", [(0, 1, 5, 2.0), (0, 3, 4, 10.0), (0.5, 2.5, 3, 2.0), (-2, 10, 6, 1.5),
                                    (2, 10, 7, 3.0), (1, 0, 4, 2.0), (3, -1.5, 9, 0.5), (0, 6, 13, 10.0)])
def test_logspace_values_match_pytorch(dtype, bounds, device):
    start, end, steps, base = bounds
    assert_matches_pytorch(lambda L, d: L.logspace(start, end, steps, base, dtype=getattr(L, dtype), device=d),
                           device)


FACTORIES = {
    "logspace_default": lambda L, d: L.logspace(-1, 2, 7, device=d),
    "logspace_keywords": lambda L, d: L.logspace(start=0, end=1, steps=3, base=4, device=d),
    "logspace_one_step_bool": lambda L, d: L.logspace(0, 1, 1, 2.0, dtype=L.bool, device=d),
    "logspace_zero_steps_bool": lambda L, d: L.logspace(0, 1, 0, 2.0, dtype=L.bool, device=d),
    "logspace_one_step_int": lambda L, d: L.logspace(2.5, 1, 1, 2.0, dtype=L.int64, device=d),
    "logspace_one_step_complex": lambda L, d: L.logspace(1j, 1, 1, 2.0, device=d),
    "logspace_complex_float64": lambda L, d: L.logspace(0, 1j, 3, 2.0, dtype=L.float64, device=d),
    "logspace_complex128": lambda L, d: L.logspace(0, 1 + 1j, 4, 2.0, dtype=L.complex128, device=d),
    "logspace_negative_steps": lambda L, d: L.logspace(0, 1, -1, device=d),
    "logspace_tensor_bounds": lambda L, d: L.logspace(L.tensor(1.0), L.tensor(2), 3, device=d),
    "logspace_1d_start": lambda L, d: L.logspace(L.ones(2), 1, 3, device=d),
    "logspace_1d_end": lambda L, d: L.logspace(0, L.ones(1), 3, device=d),
    "logspace_tensor_base": lambda L, d: L.logspace(0, 1, 5, L.tensor(2.0), device=d),
    "logspace_missing_steps": lambda L, d: L.logspace(0, 1, device=d),
    "logspace_unknown_keyword": lambda L, d: L.logspace(0, 1, 3, foo=1),
    "logspace_pin_memory_int": lambda L, d: L.logspace(0, 1, 3, pin_memory=1),
    "logspace_grad": lambda L, d: L.logspace(0, 1, 3, device=d, requires_grad=True),
    "logspace_grad_complex": lambda L, d: L.logspace(0, 1, 3, dtype=L.complex64, device=d, requires_grad=True),
    "logspace_nan_int": lambda L, d: L.logspace(N, 1, 3, dtype=L.int32, device=d),
    "logspace_nan_float": lambda L, d: L.logspace(N, 1, 3, device=d),
    "logspace_inf_float": lambda L, d: L.logspace(0, INF, 3, device=d),
    "logspace_int_past_int32": lambda L, d: L.logspace(0, 2**40, 3, dtype=L.int32, device=d),
    "logspace_out_int": lambda L, d: L.logspace(0, 1, 3, 2, out=L.empty(3, dtype=L.int64, device=d)),
    "logspace_python_int_dtype": lambda L, d: L.logspace(0, 3, 4, dtype=int, device=d),
    "empty_strided_python_float": lambda L, d: str(L.empty_strided((2, 3), (3, 1), dtype=float, device=d).dtype)[-7:],
    "empty_strided_float_stride": lambda L, d: L.empty_strided((2, 3), 1.5, device=d),
    "empty_strided_grad": lambda L, d: L.empty_strided((2, 3), (3, 1), device=d, requires_grad=True).requires_grad,
    "empty_strided_grad_complex": lambda L, d: L.empty_strided((2,), (1,), dtype=L.complex64, device=d,
                                                               requires_grad=True).requires_grad,
    "empty_strided_expanded_grad_int": lambda L, d: L.empty_strided((2, 3), (0, 1), dtype=L.int32, device=d,
                                                                    requires_grad=True),
    "empty_strided_pin_memory_int": lambda L, d: L.empty_strided((2,), (1,), pin_memory=0),
    "scalar_tensor_values": lambda L, d: L.scalar_tensor(2.5, dtype=L.float64, device=d),
    "scalar_tensor_python_int": lambda L, d: L.scalar_tensor(3, dtype=int, device=d),
    "scalar_tensor_layout": lambda L, d: L.scalar_tensor(3, layout=L.strided, device=d),
    "scalar_tensor_grad_int": lambda L, d: L.scalar_tensor(3, dtype=L.int64, requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(FACTORIES[name], device)


# Findings whose cause is in C++ (their KNOWN entries in the tables say what to change): strict xfails.
TABLES = (index_args_matrix, join_split_matrix, activations_matrix, factory_args_matrix)
NEEDS_CPP = needs_cpp(TABLES)
CPP_CASES = fixed_cases(NEEDS_CPP)


CPP_SHAPE_ONLY = {f"{table.__name__.rsplit('.', 1)[1]}/{name}" for table, name in NEEDS_CPP
                  if getattr(table.CASES[name], "mode", "close") == "shape"}


@pytest.mark.parametrize("name", sorted(CPP_CASES))
@pytest.mark.xfail(strict=True, reason="C++: the table's KNOWN entry names the change")
def test_needs_cpp(name):
    assert_matches_pytorch(CPP_CASES[name], "cpu", shape_only=name in CPP_SHAPE_ONLY)


# Fixed in C++ in session 48, as the round ended and after (each table's CPP_FIXED comment names the change).
CPP_FIXED = fixed_cases([(table, name) for table in (factory_args_matrix, index_args_matrix, activations_matrix,
                                                      join_split_matrix)
                         for name in table.CPP_FIXED])


@pytest.mark.parametrize("name", sorted(CPP_FIXED))
def test_fixed_in_cpp(name, device):
    assert_matches_pytorch(CPP_FIXED[name], device)
