"""Regression tests for what the thirteenth round of the differential hostile-input harness (fuzz/hostile_diff.py,
the out_variants, out_variants2, empty_degenerate and half_precision_edges tables) found and fixed in tandem's
Python layer: one case per finding, taken by name from the harness's own tables (so the test runs the expression
the harness ran) and run with PyTorch (the oracle, on the CPU) and tandem on every device. Where PyTorch raises,
tandem raises the same exception type with PyTorch's first line; where it returns, tandem returns the same values,
dtype and shape. The direct tests below check the neighbours of each fix the tables do not reach (the other
functions composed in Python with several results or a factory's out=, logit's and special.softmax's other
forms), and the findings whose cause was in C++ (fixed in session 40) with their neighbours."""
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


# The findings whose cause was in C++, fixed in session 40 (python/src: reductions.cpp, factory_args.h,
# indexing_ops.cpp, elementwise.cpp into_outs/write_out, order_stats.cpp; src/ops: elementwise.cpp unary_out/
# binary_out, copy.cpp fill_; and nn/_functional_conv.py's empty transposed convolution).
FIXED_IN_CPP = [(out_variants, name) for name in (
    "sum/out_long_of_float", "prod/out_long", "sum/out_dtype_mismatch", "zeros/out_dtype_conflict",
    "cat/out_long_of_float", "stack/out_long_of_float", "index_select/out_is_input", "take/out_is_input",
    "kthvalue/out_indices_float", "sort/out_one_tuple", "sort/out_three", "arange/out_requires_grad",
    "zeros/out_requires_grad", "mean/out_long")]
FIXED_IN_CPP += [(out_variants2, name) for name in (
    "all/out_float", "any/out_long", "signbit/out_float", "heaviside/out_float64", "logsumexp/out_long",
    "round/decimals_out_long", "mean/dtype_and_out_differ", "median/no_dim_out_not_taken",
    "rand/out_dtype_conflict", "randperm/out_dtype_conflict",
    "special.entr/input_requires_grad", "special.i0e/out_requires_grad")]
FIXED_IN_CPP += [(empty_degenerate, "conv_transpose1d/batch0_length0_ok")]
CPP_CASES = fixed_cases(FIXED_IN_CPP)


@pytest.mark.parametrize("name", sorted(CPP_CASES))
def test_cpp_out_rules_match_pytorch(name, device):
    assert_matches_pytorch(CPP_CASES[name], device)


def X(L, d, dtype="float32"):
    return L.tensor([[1.5, -2.0, 3.0], [0.5, 2.5, -1.0]], device=d, dtype=getattr(L, dtype))


def _grad_out(L, d, shape=(2,)):
    return L.zeros(shape, device=d).requires_grad_()


# Their neighbours: the same rules on the other functions of each family and the cases either side of each rule.
CPP_NEIGHBOURS = {
    # the folds run in out's dtype without dtype=; mean only where it can (floating input and out)
    "mean_int_input_float_out": lambda L, d: L.mean(X(L, d, "int64"), 1, out=E(L, d)),
    "mean_out_float64": lambda L, d: L.mean(X(L, d), 1, out=E(L, d, "float64")),
    "mean_out_complex": lambda L, d: L.mean(X(L, d), 1, out=E(L, d, "complex64")),
    "sum_int_out_float16": lambda L, d: L.sum(X(L, d, "int64"), 1, out=E(L, d, "float16")),
    "sum_out_bool": lambda L, d: L.sum(X(L, d), 1, out=E(L, d, "bool")),
    "prod_out_int8": lambda L, d: L.prod(X(L, d), 1, out=E(L, d, "int8")),
    "prod_dtype_and_out_differ": lambda L, d: L.prod(X(L, d), 1, dtype=L.float64, out=E(L, d)),
    # a factory's dtype=/device= against out's
    **{f"{name}_dtype_conflict": (lambda f: lambda L, d: f(L, d, L.float64, E(L, d)))(f) for name, f in {
        "ones": lambda L, d, t, o: L.ones(2, dtype=t, out=o),
        "full": lambda L, d, t, o: L.full((2,), 1.0, dtype=t, out=o),
        "empty": lambda L, d, t, o: L.empty(2, dtype=t, out=o),
        "randn": lambda L, d, t, o: L.randn(2, dtype=t, out=o),
        "randint": lambda L, d, t, o: L.randint(5, (2,), dtype=t, out=o),
        "arange": lambda L, d, t, o: L.arange(2, dtype=t, out=o),
        "linspace": lambda L, d, t, o: L.linspace(0, 1, 2, dtype=t, out=o),
        "logspace": lambda L, d, t, o: L.logspace(0, 1, 2, dtype=t, out=o),
        "eye": lambda L, d, t, o: L.eye(2, dtype=t, out=o),
        "normal": lambda L, d, t, o: L.normal(0.0, 1.0, size=(2,), dtype=t, out=o),
    }.items()},
    "zeros_same_dtype_ok": lambda L, d: L.zeros(2, dtype=L.float32, out=E(L, d)),
    "range_dtype_conflict": lambda L, d: L.range(0, 1, dtype=L.float64, out=E(L, d)),
    # the factories' out= autograd refusal names the ATen op; randn's out is resized first (resize_'s error)
    "full_out_requires_grad": lambda L, d: L.full((2,), 1.0, out=_grad_out(L, d)),
    "rand_out_requires_grad": lambda L, d: L.rand(2, out=_grad_out(L, d)),
    "randperm_out_requires_grad": lambda L, d: L.randperm(2, out=_grad_out(L, d)),
    "eye_out_requires_grad": lambda L, d: L.eye(2, out=_grad_out(L, d, (2, 2))),
    "normal_out_requires_grad": lambda L, d: L.normal(0.0, 1.0, size=(2,), out=_grad_out(L, d)),
    "randn_out_requires_grad": lambda L, d: L.randn(2, out=_grad_out(L, d)),
    "randn_out_requires_grad_no_grad": lambda L, d: _no_grad(L, lambda: L.randn(2, out=_grad_out(L, d))),
    "rand_out_requires_grad_no_grad": lambda L, d: _no_grad(L, lambda: L.rand(2, out=_grad_out(L, d)).shape),
    # every joining function is cat underneath; a narrower float out is castable
    **{f"{name}_out_long": (lambda n: lambda L, d: getattr(L, n)([X(L, d), X(L, d)], out=E(L, d, "int64")))(name)
       for name in ("concat", "concatenate", "hstack", "vstack", "dstack")},
    "cat_out_float16_ok": lambda L, d: L.cat([X(L, d), X(L, d)], out=E(L, d, "float16")),
    "cat_long_into_bool": lambda L, d: L.cat([X(L, d, "int64")], out=E(L, d, "bool")),
    # each result of a tuple out with its own message; a tuple of the wrong length
    "mode_indices_float": lambda L, d: L.mode(X(L, d), 1, out=(E(L, d), E(L, d))),
    "mode_values_long": lambda L, d: L.mode(X(L, d), 1, out=(E(L, d, "int64"), E(L, d, "int64"))),
    "kthvalue_values_long": lambda L, d: L.kthvalue(X(L, d), 1, 1, out=(E(L, d, "int64"), E(L, d, "int64"))),
    "topk_one_tuple": lambda L, d: L.topk(X(L, d), 1, out=(E(L, d),)),
    "max_dim_three": lambda L, d: L.max(X(L, d), 1, out=[E(L, d), E(L, d, "int64"), E(L, d)]),
    "nanmedian_no_dim_out": lambda L, d: L.nanmedian(X(L, d), out=E(L, d)),
    "median_no_dim_ok": lambda L, d: L.median(X(L, d)),
    # the single ops' out dtype rules
    "all_uint8_out_ok": lambda L, d: L.all(X(L, d), 1, out=E(L, d, "uint8")),
    "any_out_bool_ok": lambda L, d: L.any(X(L, d), 1, out=E(L, d, "bool")),
    "all_no_dim_out_float": lambda L, d: L.all(X(L, d), out=E(L, d)),
    "signbit_out_uint8": lambda L, d: L.signbit(X(L, d), out=E(L, d, "uint8")),
    "signbit_out_bool_ok": lambda L, d: L.signbit(X(L, d), out=E(L, d, "bool")),
    "logical_not_out_float_ok": lambda L, d: L.logical_not(X(L, d), out=E(L, d)),
    "heaviside_int_out_float": lambda L, d: L.heaviside(X(L, d, "int64"), X(L, d, "int64"), out=E(L, d)),
    "heaviside_same_dtype_ok": lambda L, d: L.heaviside(X(L, d), X(L, d), out=E(L, d)),
    "logsumexp_out_complex_ok": lambda L, d: L.logsumexp(X(L, d), 1, out=E(L, d, "complex64")),
    "logsumexp_int_input_long_out": lambda L, d: L.logsumexp(X(L, d, "int64"), 1, out=E(L, d, "int64")),
    "round_out_float64": lambda L, d: L.round(X(L, d), out=E(L, d, "float64")),
    "round_decimals_out_ok": lambda L, d: L.round(X(L, d), decimals=1, out=E(L, d)),
    # out= autograd: torch.special ops named special_*, ops without a derivative formula not checked at all,
    # heaviside's out alone (named aten::heaviside)
    "special_i1_input_requires_grad": lambda L, d: L.special.i1(G(L, d), out=E(L, d)),
    "special_erfcx_out_requires_grad": lambda L, d: L.special.erfcx(M(L, d), out=_grad_out(L, d, (2, 2))),
    "special_xlog1py_input_requires_grad": lambda L, d: L.special.xlog1py(G(L, d), M(L, d), out=E(L, d)),
    "special_zeta_out_requires_grad": lambda L, d: L.special.zeta(M(L, d) + 1, M(L, d), out=_grad_out(L, d, (2, 2))),
    "special_bessel_j0_input_requires_grad": lambda L, d: L.special.bessel_j0(G(L, d), out=E(L, d)),
    "airy_ai_input_requires_grad_ok": lambda L, d: L.special.airy_ai(G(L, d), out=E(L, d)),
    "spherical_bessel_j0_out_requires_grad_ok": lambda L, d: L.special.spherical_bessel_j0(
        M(L, d), out=_grad_out(L, d, (2, 2))).detach(),
    "chebyshev_t_out_requires_grad_ok": lambda L, d: L.special.chebyshev_polynomial_t(
        M(L, d), M(L, d), out=_grad_out(L, d, (2, 2))).detach(),
    "eq_out_requires_grad_ok": lambda L, d: L.eq(M(L, d), M(L, d), out=_grad_out(L, d, (2, 2))).detach(),
    "logical_and_input_requires_grad_ok": lambda L, d: L.logical_and(G(L, d), M(L, d), out=E(L, d)),
    "heaviside_out_requires_grad": lambda L, d: L.heaviside(M(L, d), M(L, d), out=_grad_out(L, d, (2, 2))),
    "floor_out_requires_grad": lambda L, d: L.floor(M(L, d), out=_grad_out(L, d, (2, 2))),
    "exp_input_requires_grad": lambda L, d: L.exp(G(L, d), out=E(L, d)),
    # transposed convolution of an empty batch or channel axis: PyTorch's empty backend
    "conv_transpose1d_batch0_output_padding_ok": lambda L, d: L.nn.functional.conv_transpose1d(
        L.zeros(0, 2, 0, device=d), L.ones(2, 3, 1, device=d), output_padding=1),
    "conv_transpose1d_batch0_negative_length": lambda L, d: L.nn.functional.conv_transpose1d(
        L.zeros(0, 2, 0, device=d), L.ones(2, 3, 1, device=d), padding=1),
    "conv_transpose2d_batch0_negative": lambda L, d: L.nn.functional.conv_transpose2d(
        L.zeros(0, 2, 0, 0, device=d), L.ones(2, 3, 1, 1, device=d), padding=1),
    "conv_transpose2d_batch0_bias": lambda L, d: L.nn.functional.conv_transpose2d(
        L.zeros(0, 2, 5, 5, device=d), L.ones(2, 3, 3, 3, device=d), L.ones(3, device=d), stride=2),
    "conv_transpose3d_batch0": lambda L, d: L.nn.functional.conv_transpose3d(
        L.zeros(0, 2, 0, 1, 2, device=d), L.ones(2, 3, 1, 2, 1, device=d)),
}


@pytest.mark.parametrize("name", sorted(CPP_NEIGHBOURS))
def test_cpp_out_rule_neighbours_match_pytorch(name, device):
    assert_matches_pytorch(CPP_NEIGHBOURS[name], device)


@pytest.mark.parametrize("factory", ["zeros", "rand"])
def test_factory_device_type_conflict_names_both_types(factory, device):
    out = tandem.empty(0, device=device)
    kind = tandem.device(device).type
    with pytest.raises(RuntimeError, match=rf"^device type meta does not match device type of out parameter \({kind}\)"):
        getattr(tandem, factory)(2, device="meta", out=out)
    other = "cpu" if kind == "cuda" else "cuda:0"
    if other == "cuda:0" and not tandem.cuda.is_available():
        return
    with pytest.raises(RuntimeError, match=rf"^device type {other[:4]} does not match device type of out parameter"):
        getattr(tandem, factory)(2, device=other, out=out)
    assert_matches_pytorch(lambda L, d: getattr(L, factory)(2, device="meta", out=L.empty(0)), "cpu")


@pytest.mark.parametrize("fn", ["median", "nanmedian"])
def test_median_out_dtype_messages_name_the_legacy_types(fn, device):
    x = tandem.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    legacy = "torch.cuda." if device.startswith("cuda") else "torch."
    with pytest.raises(RuntimeError, match=(r"^Expected tensor for argument #1 'indices' to have scalar type Long; "
                                            rf"but got {legacy}FloatTensor instead \(while checking arguments for "
                                            r"median\)")):
        getattr(tandem, fn)(x, 1, out=(E(tandem, device), E(tandem, device)))
    with pytest.raises(RuntimeError, match=(r"^Expected tensor for 'values' to have the same type as tensor for "
                                            rf"argument #2 'self'; but type {legacy}LongTensor does not equal "
                                            rf"{legacy}FloatTensor")):
        getattr(tandem, fn)(x, 1, out=(E(tandem, device, "int64"), E(tandem, device, "int64")))
    if device == "cpu":
        assert_matches_pytorch(lambda L, d: getattr(L, fn)(X(L, d), 1, out=(E(L, d), E(L, d))), device)


def test_empty_conv_transpose_gives_zero_gradients(device):
    weight = tandem.ones(2, 3, 1, device=device, requires_grad=True)
    bias = tandem.ones(3, device=device, requires_grad=True)
    out = tandem.nn.functional.conv_transpose1d(tandem.zeros(0, 2, 0, device=device), weight, bias)
    assert out.shape == (0, 3, 0) and out.requires_grad and out.device == tandem.device(device)
    out.sum().backward()
    assert weight.grad.tolist() == [[[0.0]] * 3] * 2 and bias.grad.tolist() == [0.0, 0.0, 0.0]


# max_pool3d's empty-dim message names PyTorch's kernel template, whose name carries the device: on the CPU only.
MAX_POOL3D_EMPTY = fixed_cases([(empty_degenerate, name) for name in (
    "max_pool3d/depth0", "max_pool3d/unbatched_channels0")])


@pytest.mark.parametrize("name", sorted(MAX_POOL3D_EMPTY))
def test_max_pool3d_empty_dims_on_cpu(name):
    assert_matches_pytorch(MAX_POOL3D_EMPTY[name], "cpu")


# PyTorch's one-element CPU fill_ writes inf for a float past float16's or bfloat16's range (its fast path); more
# elements, float32, and its CUDA fill_ raise the overflow error, as tandem's do.
ONE_ELEMENT_FILL = fixed_cases([(half_precision_edges, name) for name in (
    "setitem/half_one_element_too_big", "fill_/half_one_element_too_big")])
ONE_ELEMENT_FILL.update({
    "bfloat16_one_element": lambda L, d: L.zeros(1, dtype=L.bfloat16, device=d).fill_(1e39),
    "float16_one_element_negative": lambda L, d: L.zeros(1, dtype=L.float16, device=d).fill_(-1e6),
    "float16_setitem_2d": lambda L, d: (lambda t: (t.__setitem__((0, 1), 1e6), t)[1])(
        L.zeros(2, 2, dtype=L.float16, device=d)),
    "float16_setitem_row": lambda L, d: (lambda t: (t.__setitem__(0, 1e6), t)[1])(
        L.zeros(2, 2, dtype=L.float16, device=d)),
    "float16_two_elements": lambda L, d: L.zeros(2, dtype=L.float16, device=d).fill_(1e6),
    "float32_one_element": lambda L, d: L.zeros(1, device=d).fill_(1e39),
    "int8_one_element": lambda L, d: L.zeros(1, dtype=L.int8, device=d).fill_(300),
})


@pytest.mark.parametrize("name", sorted(ONE_ELEMENT_FILL))
def test_one_element_fill_overflow_on_cpu(name):
    assert_matches_pytorch(ONE_ELEMENT_FILL[name], "cpu")


@pytest.mark.parametrize("cuda", ["cuda:0", "cuda:1"])
def test_one_element_fill_overflow_raises_on_the_gpu(cuda):
    if not tandem.cuda.is_available():
        pytest.skip("no cuda device (real or emulated)")
    t = tandem.zeros(1, dtype=tandem.float16, device=cuda)
    with pytest.raises(RuntimeError, match="^value cannot be converted to type c10::Half without overflow"):
        t.fill_(1e6)
