"""Regression tests for what the differential hostile-input harness (fuzz/hostile_diff.py) found: one case per
finding, written once for both libraries and run with PyTorch (the oracle, on the CPU) and tandem on every device.
Where PyTorch raises, tandem raises the same exception type with PyTorch's first line (tandem may add a `hint:`
line); where PyTorch returns, tandem returns the same values, dtype and shape. Findings where tandem differs from
PyTorch on purpose are in the harness's KNOWN tables with their reasons, and below where a test pins tandem's
behaviour."""
import math

import pytest
import torch

import tandem
from hostile_helpers import T, assert_matches_pytorch

N, INF = math.nan, math.inf


A3 = [[4., 1., 2.], [1., 5., 3.], [2., 3., 6.]]


def lu(L, d):
    return L.linalg.lu_factor(T(L, A3, d, "float64"))


def B(L, d, shape=(3, 2)):
    return L.arange(float(shape[0] * shape[1]), dtype=L.float64, device=d).reshape(shape).sin()


CASES = {
    # ---- crash: a pivot of 0 made LAPACK's getrs abort the process; others out of range gave wrong answers
    # (on the emulated GPU they corrupted the heap)
    "lu_solve/pivots_zero": lambda L, d: L.linalg.lu_solve(lu(L, d)[0], T(L, [0, 2, 3], d, "int32"), B(L, d)),
    "lu_solve/pivots_negative": lambda L, d: L.linalg.lu_solve(lu(L, d)[0], T(L, [-1, 2, 3], d, "int32"), B(L, d)),
    "lu_solve/pivots_past_rows": lambda L, d: L.linalg.lu_solve(lu(L, d)[0], T(L, [9, 2, 3], d, "int32"), B(L, d)),
    "lu_solve/pivots_short": lambda L, d: L.linalg.lu_solve(lu(L, d)[0], T(L, [1, 2], d, "int32"), B(L, d)),
    "lu_solve/pivots_int64": lambda L, d: L.linalg.lu_solve(lu(L, d)[0], T(L, [1, 2, 3], d), B(L, d)),
    "lu_solve/pivots_batch_shape": lambda L, d: L.linalg.lu_solve(lu(L, d)[0], T(L, [[1, 2, 3]], d, "int32"),
                                                                  B(L, d)),
    "lu_solve/LU_not_square": lambda L, d: L.linalg.lu_solve(B(L, d), T(L, [1, 2], d, "int32"), B(L, d, (3, 1))),
    "lu_solve/ok": lambda L, d: L.linalg.lu_solve(*lu(L, d), B(L, d)),
    # ---- wrong values
    "svd/empty_rows": lambda L, d: L.linalg.svd(L.empty(0, 3, device=d, dtype=L.float64)),  # Vh was unset memory
    "svd/empty_cols": lambda L, d: L.linalg.svd(L.empty(2, 0, device=d, dtype=L.float64)),
    "svd/empty_batch_of_empty": lambda L, d: L.linalg.svd(L.empty(2, 3, 0, device=d, dtype=L.float64)),
    "linspace/complex_ends": lambda L, d: L.linspace(0, 1 + 2j, 3, device=d),  # was float32 holding the real parts
    "linspace/complex_dtype": lambda L, d: L.linspace(-1j, 2, 4, dtype=L.complex128, device=d),
    "logit/eps_above_half": lambda L, d: L.special.logit(T(L, [0., 0.5, 1., 0.4], d), eps=0.7),
    "solve_triangular/mixed_dtypes": lambda L, d: L.linalg.solve_triangular(T(L, A3, d, "float64"),
                                                                            B(L, d).float(), upper=True),
    # ---- hangs: polygamma looped n times for n!, diff n times
    "polygamma/n_huge": lambda L, d: L.special.polygamma(2**40, T(L, [1.], d)),
    "diff/n_huge": lambda L, d: L.diff(T(L, [1., 2., 4.], d), n=2**40),
    "diff/n_past_length": lambda L, d: L.diff(T(L, [[1., 2., 4.]], d), n=5, dim=1),
    # ---- missing errors
    "matrix_power/n_bool": lambda L, d: L.linalg.matrix_power(T(L, A3, d), True),
    "matrix_power/n_float": lambda L, d: L.linalg.matrix_power(T(L, A3, d), 2.0),
    "matrix_power/n_past_int64": lambda L, d: L.linalg.matrix_power(L.eye(2, device=d), 2**64),
    "matrix_power/n_0dim_tensor": lambda L, d: L.linalg.matrix_power(T(L, A3, d), T(L, 2, d)),
    "linspace/float16_end_past_max": lambda L, d: L.linspace(0, 1e5, 3, device=d, dtype=L.float16),
    "linspace/int8_end_past_max": lambda L, d: L.linspace(0, 300, 3, device=d, dtype=L.int8),
    "sparse_coo/size_past_int64": lambda L, d: L.sparse_coo_tensor(T(L, [[0], [0]], d), T(L, [1.], d),
                                                                   (2**62, 2**62)),
    "index_add/0dim_self_1d_source": lambda L, d: T(L, 1., d).index_add(0, T(L, [0], d), T(L, [2.], d)),
    "index_add/0dim_self_0dim_source": lambda L, d: T(L, 1., d).index_add(0, T(L, [0], d), T(L, 2., d)),
    "conv2d/no_output_channels": lambda L, d: L.nn.functional.conv2d(L.ones(1, 2, 5, 5, device=d),
                                                                     L.ones(0, 2, 2, 2, device=d)),
    "unfold/int": lambda L, d: L.nn.functional.unfold(L.ones(1, 2, 5, 5, dtype=L.int64, device=d), 2),
    "fold/int": lambda L, d: L.nn.functional.fold(L.ones(1, 8, 16, dtype=L.int64, device=d), (5, 5), 2),
    "interpolate/int_bilinear": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, 5, dtype=L.int64,
                                                                                device=d), size=3,
                                                                         mode="bilinear"),
    "interpolate/int_linear": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, dtype=L.int32, device=d),
                                                                       size=3, mode="linear"),
    "interpolate/uint8_linear": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, dtype=L.uint8, device=d),
                                                                         size=3, mode="linear"),
    "interpolate/int_nearest_4d": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, 5, dtype=L.int64,
                                                                                  device=d), size=3),
    "interpolate/int_nearest_3d": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, dtype=L.int8, device=d),
                                                                           size=3),
    "interpolate/bool_bicubic": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, 5, dtype=L.bool,
                                                                                device=d), size=3,
                                                                         mode="bicubic"),
    "interpolate/uint8_nearest": lambda L, d: L.nn.functional.interpolate(
        L.arange(25, dtype=L.uint8, device=d).reshape(1, 1, 5, 5), size=3),
    # ---- wrong exception types
    "matrix_exp/int": lambda L, d: L.linalg.matrix_exp(T(L, [[1, 2], [3, 4]], d)),
    "matrix_exp/1d": lambda L, d: L.linalg.matrix_exp(T(L, [1., 2.], d)),
    "matrix_exp/not_square": lambda L, d: L.linalg.matrix_exp(L.ones(2, 3, device=d)),
    "lstsq/int": lambda L, d: L.linalg.lstsq(T(L, [[1, 2], [3, 4]], d), T(L, [[1], [2]], d)),
    "tensor/dict": lambda L, d: L.tensor({1: 2}, device=d),
    "tensor/set": lambda L, d: L.tensor({1, 2}, device=d),
    "tensor/object": lambda L, d: L.tensor(object(), device=d),
    "tensor/none": lambda L, d: L.tensor(None, device=d),
    "tensor/list_with_none": lambda L, d: L.tensor([1, None], device=d),
    "tensor/generator": lambda L, d: L.tensor((i for i in range(3)), device=d),
    "tensor/list_of_str": lambda L, d: L.tensor(["a"], device=d),
    "tensor/str": lambda L, d: L.tensor("abc", device=d),
    "tensor/number_where_a_list_belongs": lambda L, d: L.tensor([[[1], [2]], [[3], 4]], device=d),
    "tensor/ragged": lambda L, d: L.tensor([[1, 2], [3]], device=d),
    "tensor/self_referencing_list": lambda L, d: (lambda x: (x.append(x), L.tensor(x, device=d)))([1]),
    "tensor/int_past_int64": lambda L, d: L.tensor([2**63], device=d),
    "tensor/int_below_int64": lambda L, d: L.tensor([-2**63 - 1], device=d),
    "tensor/int_past_int64_float_dtype": lambda L, d: L.tensor([2**64], device=d, dtype=L.float32),
    "tensor/int_past_int64_with_floats": lambda L, d: L.tensor([1.5, 2**70], device=d),
    "tensor/int_past_int64_int32": lambda L, d: L.tensor([2**64], device=d, dtype=L.int32),
    "cross_entropy/target_past_classes": lambda L, d: L.nn.functional.cross_entropy(L.zeros(2, 3, device=d),
                                                                                   T(L, [0, 3], d)),
    "cross_entropy/target_negative": lambda L, d: L.nn.functional.cross_entropy(L.zeros(2, 3, device=d),
                                                                               T(L, [0, -2], d)),
    "nll_loss/target_past_classes": lambda L, d: L.nn.functional.nll_loss(L.zeros(2, 3, device=d), T(L, [0, 3], d)),
    "nll_loss/ignored_target_past_classes": lambda L, d: L.nn.functional.nll_loss(
        L.zeros(2, 3, device=d), T(L, [0, 7], d), ignore_index=7),
    "embedding/weight_1d": lambda L, d: L.nn.functional.embedding(T(L, [1], d), L.ones(5, device=d)),
    "embedding/empty_weight": lambda L, d: L.nn.functional.embedding(T(L, [0], d), L.ones(0, 3, device=d)),
    "index_select/empty_dim": lambda L, d: L.zeros(0, 4, device=d).index_select(0, T(L, [0], d)),
    "index_select/empty_dim_empty_index": lambda L, d: L.zeros(0, 4, device=d).index_select(
        0, T(L, [], d, "int64")),
    "interpolate/scale_nan": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, 5, device=d),
                                                                      scale_factor=N),
    "interpolate/scale_inf": lambda L, d: L.nn.functional.interpolate(L.ones(1, 2, 5, 5, device=d),
                                                                      scale_factor=INF),
    "conv2d/stride_of_3": lambda L, d: L.nn.functional.conv2d(L.ones(1, 2, 5, 5, device=d),
                                                              L.ones(3, 2, 2, 2, device=d), stride=(1, 1, 1)),
    "unbind/0dim": lambda L, d: T(L, 1., d).unbind(),
    "cummax/complex": lambda L, d: L.cummax(T(L, [1j, 2.], d), 0),
    "cummin/complex": lambda L, d: T(L, [1j, 2.], d, "complex128").cummin(0),
    "arange/step_inf": lambda L, d: L.arange(0, 5, INF, device=d),
    "arange/step_nan": lambda L, d: L.arange(0, 5, N, device=d),
    "arange/complex_end": lambda L, d: L.arange(0, 1j, device=d),
    "arange/complex_end_real_valued": lambda L, d: L.arange(0, 3 + 0j, device=d),
    # ---- spurious errors
    "adaptive_max_pool1d/output_0": lambda L, d: L.nn.functional.adaptive_max_pool1d(L.ones(1, 2, 5, device=d), 0,
                                                                                     return_indices=True),
    "adaptive_max_pool2d/output_0": lambda L, d: L.nn.functional.adaptive_max_pool2d(L.ones(2, 5, 5, device=d),
                                                                                     (0, 2), return_indices=True),
}

CPU_ONLY = {"cross_entropy/target_past_classes", "cross_entropy/target_negative", "nll_loss/target_past_classes"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    if name in CPU_ONLY and device != "cpu":
        pytest.skip("PyTorch checks targets on the CPU only (a device-side assert on CUDA)")
    assert_matches_pytorch(CASES[name], device)


def test_out_of_range_targets_on_a_gpu_still_raise(device):
    """On a GPU the target check is gather's own (no extra synchronisation per loss); it still refuses."""
    if device == "cpu":
        pytest.skip("the CPU raises PyTorch's IndexError (above)")
    with pytest.raises(RuntimeError, match="out of bounds"):
        tandem.nn.functional.nll_loss(tandem.zeros(2, 3, device=device), tandem.tensor([0, 3], device=device))
        tandem.cuda.synchronize(device)


def test_polygamma_of_huge_order_is_immediate_and_matches_its_limits(device):
    # The n! loop ran 2**40 times; n! is inf from n = 171, so the result is the limit PyTorch gives.
    x = tandem.tensor([1.0, 0.5], device=device)
    got = tandem.special.polygamma(200, x).cpu().tolist()
    assert got == torch.special.polygamma(200, torch.tensor([1.0, 0.5])).tolist() == [-math.inf, -math.inf]


def test_matrix_exp_of_half_and_bfloat16_is_right_where_pytorch_is_not(device):
    # PyTorch (2.x, CPU) returns -21040 for exp(0.5) in float16 and -1.3e30 in bfloat16 (harness KNOWN table).
    for dtype in (tandem.float16, tandem.bfloat16):
        got = tandem.linalg.matrix_exp(tandem.tensor([[0.5, 0.0], [0.0, 1.0]], dtype=dtype, device=device))
        assert got.dtype == dtype
        assert got.float().cpu().flatten().tolist() == pytest.approx([math.exp(0.5), 0.0, 0.0, math.e], rel=1e-2)
