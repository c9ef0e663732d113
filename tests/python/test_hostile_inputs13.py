"""Regression tests for what the thirteenth round of the differential hostile-input harness (fuzz/hostile_diff.py,
the out_variants, out_variants2, empty_degenerate and half_precision_edges tables) found and fixed in tandem's
Python layer: one case per finding, taken by name from the harness's own tables (so the test runs the expression
the harness ran) and run with PyTorch (the oracle, on the CPU) and tandem on every device. Where PyTorch raises,
tandem raises the same exception type with PyTorch's first line; where it returns, tandem returns the same values,
dtype and shape. The direct tests below check the neighbours of each fix the tables do not reach (the other
functions composed in Python with several results or a factory's out=, logit's and special.softmax's other
forms), and the findings whose cause is in C++ run as strict xfails, so the session that fixes them sees them
pass."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import assert_matches_pytorch, fixed_cases  # noqa: E402

import tandem  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "fuzz"))
from hostile_cases import empty_degenerate, half_precision_edges, out_variants, out_variants2  # noqa: E402

FIXED = [(out_variants, name) for name in (
    "linalg.qr/out_one", "linalg.eigh/out_one_tensor", "linalg.svd/out_two", "linalg.lstsq/out_one",
    "aminmax/out_list_one", "aminmax/out_tensor", "linalg.inv/out_tuple", "linalg.inv/out_int",
    "linalg.qr/input_requires_grad", "linalg.eig/input_requires_grad", "linalg.matrix_rank/input_requires_grad_ok",
    "linalg.eigvals/input_requires_grad_ok", "logspace/out_requires_grad")]
FIXED += [(out_variants2, name) for name in (
    "empty/out_requires_grad", "empty/out_requires_grad_same_shape", "frexp/out_exponent_long", "logit/out_ok",
    "logit/eps_out_long", "logit/eps_out_requires_grad", "special.logit/eps_out_ok",
    "special.log_softmax/dtype_positional", "special.log_softmax/out_not_taken", "special.softmax/out_not_taken",
    # fixed in C++ (session 39): out= next to an input that requires grad, for results without a gradient
    "argmax/input_requires_grad_ok", "nonzero/input_requires_grad_ok", "heaviside/input_requires_grad",
    "quantile/input_requires_grad")]
FIXED += [(half_precision_edges, "clamp/half_bound_out_of_range")]  # C++, session 39: the bound's overflow check
FIXED += [(empty_degenerate, name) for name in (
    "grid_sample/batch0_bilinear", "grid_sample/batch0_nearest_3d", "grid_sample/batch0_bicubic",
    "grid_sample/batch0_grad", "ctc_loss/batch0", "ctc_loss/frames0", "ctc_loss/labels0",
    "fractional_max_pool2d/batch0", "fractional_max_pool3d/batch0_indices", "fractional_max_pool2d/channels0",
    "fractional_max_pool3d/depth0", "fractional_max_pool2d/output0", "fractional_max_pool2d/batch0_grad",
    "max_pool1d/length0", "max_pool1d/channels0", "max_pool1d/unbatched_length0", "max_pool1d/length0_indices",
    "max_pool1d/length0_requires_grad", "avg_pool3d/depth0", "conv_transpose1d/length0",
    "conv_transpose2d/height0")]

CASES = fixed_cases(FIXED)


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device)


def E(L, d, dtype="float32"):
    return L.empty(0, device=d, dtype=getattr(L, dtype))


def M(L, d):
    return L.tensor([[2.0, 1.0], [1.0, 3.0]], device=d)


def G(L, d):
    return M(L, d).requires_grad_()


# The functions composed in Python with several results (tandem/_out.py write_outs): an out that is not a tuple
# names the ATen op ("linalg_slogdet"), a tuple of the wrong length is the parser's "expected tuple of N elements".
TUPLE_OUTS = {
    "slogdet_tensor": lambda L, d: L.linalg.slogdet(M(L, d), out=E(L, d)),
    "slogdet_three": lambda L, d: L.linalg.slogdet(M(L, d), out=(E(L, d), E(L, d), E(L, d))),
    "lu_two": lambda L, d: L.linalg.lu(M(L, d), out=(E(L, d), E(L, d))),
    "lu_factor_tensor": lambda L, d: L.linalg.lu_factor(M(L, d), out=E(L, d)),
    "eig_one": lambda L, d: L.linalg.eig(M(L, d), out=(E(L, d, "complex64"),)),
    "svd_old_tensor": lambda L, d: L.svd(M(L, d), out=E(L, d)),
    "cholesky_ex_list_one": lambda L, d: L.linalg.cholesky_ex(M(L, d), out=[E(L, d)]),
    "qr_list_ok": lambda L, d: L.linalg.qr(M(L, d), out=[E(L, d), E(L, d)]),
    "eigh_tuple_ok": lambda L, d: L.linalg.eigh(M(L, d), out=(E(L, d), E(L, d))),
    "det_tuple": lambda L, d: L.linalg.det(M(L, d), out=(E(L, d),)),
    "tril_str": lambda L, d: L.tril(M(L, d), out="x"),
}


@pytest.mark.parametrize("name", sorted(TUPLE_OUTS))
def test_tuple_outs_match_pytorch(name, device):
    assert_matches_pytorch(TUPLE_OUTS[name], device)


# The autograd refusal of out= names the ATen op (linalg_lu, linalg_householder_product) and a factory's as
# aten::name; linalg.matrix_rank's integer result has no gradient, so PyTorch writes it.
GRAD_OUTS = {
    "lu": lambda L, d: L.linalg.lu(G(L, d), out=(E(L, d), E(L, d), E(L, d))),
    "lu_factor_ex": lambda L, d: L.linalg.lu_factor_ex(G(L, d), out=(E(L, d), E(L, d, "int32"), E(L, d, "int32"))),
    "householder_product": lambda L, d: L.linalg.householder_product(G(L, d), L.ones(1, device=d), out=E(L, d)),
    "logspace_base": lambda L, d: L.logspace(0, 1, 3, base=2.0, out=E(L, d).requires_grad_()),
    "range": lambda L, d: L.range(0, 2, out=E(L, d).requires_grad_()),
    "logspace_no_grad_ok": lambda L, d: L.logspace(0, 1, 3, out=E(L, d)),
    "matrix_rank_hermitian_ok": lambda L, d: L.linalg.matrix_rank(G(L, d), hermitian=True, out=E(L, d, "int64")),
}


@pytest.mark.parametrize("name", sorted(GRAD_OUTS))
def test_out_autograd_refusal_matches_pytorch(name, device):
    assert_matches_pytorch(GRAD_OUTS[name], device)


def test_matrix_rank_out_is_written_and_returned(device):
    x = tandem.eye(3, device=device).requires_grad_()
    out = tandem.empty(0, dtype=tandem.int64, device=device)
    r = tandem.linalg.matrix_rank(x, out=out)
    assert r is out and out.tolist() == 3 and not out.requires_grad


# logit takes eps with out= (the core's out= form has no eps), torch.special's softmax/log_softmax have PyTorch's
# signatures there (no out=, dtype positional for softmax only), frexp checks each out with its own message, and
# empty(out=) refuses an out that requires grad as PyTorch's resize does (in any grad mode).
def _no_grad(L, fn):
    with L.no_grad():
        return fn()


NEIGHBOURS = {
    "logit_eps_keyword_out": lambda L, d: L.logit(M(L, d) / 4, eps=0.3, out=E(L, d)),
    "logit_eps_none_out": lambda L, d: L.logit(M(L, d) / 4, None, out=E(L, d)),
    "logit_eps_no_out": lambda L, d: L.logit(M(L, d) / 4, 0.3),
    "logit_eps_out_float64": lambda L, d: L.special.logit(M(L, d) / 4, 0.3, out=E(L, d, "float64")),
    "logit_eps_out_resized": lambda L, d: L.logit(M(L, d) / 4, 0.3, out=L.zeros(5, device=d)),
    "logit_method_eps": lambda L, d: (M(L, d) / 4).logit(0.3),
    "logit_inplace_eps": lambda L, d: (M(L, d) / 4).logit_(0.3),
    "logit_eps_out_no_grad": lambda L, d: _no_grad(L, lambda: L.logit(G(L, d) / 4, 0.3, out=E(L, d))),
    "logit_int_input_eps_out": lambda L, d: L.logit(L.tensor([0, 1], device=d), 0.3, out=E(L, d)),
    "special_softmax_keywords": lambda L, d: L.special.softmax(input=M(L, d), dim=0, dtype=L.float64),
    "special_softmax_four_positional": lambda L, d: L.special.softmax(M(L, d), 0, None, 1),
    "special_softmax_dim_twice": lambda L, d: L.special.softmax(M(L, d), 0, dim=0),
    "special_softmax_no_dim": lambda L, d: L.special.softmax(M(L, d)),
    "special_softmax_unknown_keyword": lambda L, d: L.special.softmax(M(L, d), 0, foo=1),
    "special_log_softmax_dtype_keyword": lambda L, d: L.special.log_softmax(M(L, d), 1, dtype=L.float64),
    "special_log_softmax_grad": lambda L, d: (lambda g: (L.special.log_softmax(g, 1)[:, 0].sum().backward(),
                                                         g.grad)[1])(G(L, d)),
    "frexp_both_wrong": lambda L, d: L.frexp(M(L, d), out=(E(L, d, "float64"), E(L, d, "int64"))),
    "frexp_out_ok": lambda L, d: L.frexp(M(L, d), out=(E(L, d), E(L, d, "int32"))),
    "empty_out_requires_grad_no_grad": lambda L, d: _no_grad(L, lambda: L.empty(2, out=E(L, d).requires_grad_())),
    "empty_out_ok": lambda L, d: L.empty(2, 3, out=E(L, d)).shape,
}


@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_python_out_forms_match_pytorch(name, device):
    assert_matches_pytorch(NEIGHBOURS[name], device)


# Findings whose cause is in C++ (their KNOWN entries in the tables say what to change): strict xfails, so the
# session that makes the change sees them pass and removes them here and in KNOWN.
NEEDS_CPP = [(out_variants, name) for name in (
    "sum/out_long_of_float", "prod/out_long", "sum/out_dtype_mismatch", "zeros/out_dtype_conflict",
    "cat/out_long_of_float", "stack/out_long_of_float", "index_select/out_is_input", "take/out_is_input",
    "kthvalue/out_indices_float", "sort/out_one_tuple", "arange/out_requires_grad", "zeros/out_requires_grad")]
NEEDS_CPP += [(out_variants2, name) for name in (
    "all/out_float", "any/out_long", "signbit/out_float", "heaviside/out_float64", "logsumexp/out_long",
    "round/decimals_out_long", "mean/dtype_and_out_differ", "median/no_dim_out_not_taken",
    "rand/out_dtype_conflict", "randperm/out_dtype_conflict",
    "special.entr/input_requires_grad")]
NEEDS_CPP += [(empty_degenerate, "conv_transpose1d/batch0_length0_ok")]
CPP_CASES = fixed_cases(NEEDS_CPP)


@pytest.mark.parametrize("name", sorted(CPP_CASES))
@pytest.mark.xfail(strict=True, reason="needs C++ (the table's KNOWN entry says what)")
def test_needs_cpp(name, device):
    assert_matches_pytorch(CPP_CASES[name], device)


# max_pool3d's empty-dim message names PyTorch's kernel template, whose name carries the device: on the CPU only.
MAX_POOL3D_EMPTY = fixed_cases([(empty_degenerate, name) for name in (
    "max_pool3d/depth0", "max_pool3d/unbatched_channels0")])


@pytest.mark.parametrize("name", sorted(MAX_POOL3D_EMPTY))
def test_max_pool3d_empty_dims_on_cpu(name):
    assert_matches_pytorch(MAX_POOL3D_EMPTY[name], "cpu")


# PyTorch's one-element CPU fill_ writes inf for a float past float16's range (its fast path); its CUDA raises.
ONE_ELEMENT_FILL = fixed_cases([(half_precision_edges, name) for name in (
    "setitem/half_one_element_too_big", "fill_/half_one_element_too_big")])


@pytest.mark.parametrize("name", sorted(ONE_ELEMENT_FILL))
@pytest.mark.xfail(strict=True, reason="needs C++: PyTorch's one-element CPU fill_ skips the overflow check")
def test_one_element_fill_overflow_on_cpu(name):
    assert_matches_pytorch(ONE_ELEMENT_FILL[name], "cpu")
