"""The fifteenth program sweep: numerics and tensor manipulation as code ported from NumPy and scientific or
algorithmic code writes it, each program written once against a module called `torch`, run with PyTorch and with
tandem standing in for it, and their results compared case by case (sweep15_common.py). The programs live in
sweep15_sorting.py (searchsorted with sorter/side, bucketize binning, unique / unique_consecutive in every form,
stable sorts with ties and NaN, kthvalue / topk / msort, merging sorted runs), sweep15_graphs.py (min-plus shortest
paths, label propagation by scatter_reduce(amin), PageRank with a sparse COO matrix, BFS frontiers over CSR by
index_select, triangles and a topological order), sweep15_integers.py (wrap-around, division signs, bitwise ops and
shifts, gcd/lcm and number theory, dtype promotion corners), sweep15_floats.py (float16/bfloat16 arithmetic,
rounding and ulps, NaN handling, closeness, compensated sums), sweep15_stats.py (quantiles with every
interpolation, histograms, cov/corrcoef with weights, cumulative extremes, running statistics) and sweep15_misc.py
(Generator reproducibility, tensor printing and print options, einsum/tensordot/kron, combinatorics). The focused
tests below cover what they found (docs/compat.md, "Program sweep 15")."""
import pytest

import sweep15_floats
import sweep15_graphs
import sweep15_integers
import sweep15_misc
import sweep15_sorting
import sweep15_stats
import tandem
from test_programs_sweeputil import program_test
from test_programs_sweeputil import same_outcome  # noqa: E402

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep15_sorting, sweep15_graphs, sweep15_integers, sweep15_floats, sweep15_stats, sweep15_misc)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


_same = same_outcome


def _t(lib, device, values, dtype):
    return lib.tensor(values, dtype=getattr(lib, dtype), device=device)


# ---- addcmul / addcdiv / lerp compute float16 and bfloat16 in float32, every operand in the result's dtype ------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.addcmul(_t(L, d, [1.0], "float16"), _t(L, d, [300.0], "float16"), _t(L, d, [300.0], "float16"),
                           value=0.001),
    lambda L, d: L.addcmul(_t(L, d, [1.0], "bfloat16"), _t(L, d, [3e38], "bfloat16"), _t(L, d, [10.0], "bfloat16"),
                           value=0.01),
    lambda L, d: L.addcmul(_t(L, d, [1.0], "float16"), L.tensor(300.0, device=d), _t(L, d, [300.0], "float16"),
                           value=0.001),
    lambda L, d: L.addcmul(L.tensor(1.0, device=d), _t(L, d, [300.0], "float16"), _t(L, d, [300.0], "float16"),
                           value=0.001),
    lambda L, d: L.addcmul(_t(L, d, [1.0], "float16"), _t(L, d, [300.0], "float16"), _t(L, d, [300.0], "float32"),
                           value=0.001),
    lambda L, d: L.addcmul(_t(L, d, [1.0], "float32"), _t(L, d, [100, 100], "int8"), _t(L, d, [100, 3], "int8")),
    lambda L, d: L.addcmul(_t(L, d, [1.0], "float16"), _t(L, d, [3], "int64"), _t(L, d, [3], "int64"), value=2),
    lambda L, d: L.addcmul(_t(L, d, [1], "int64"), _t(L, d, [3], "int64"), _t(L, d, [3], "int64"), value=2),
    lambda L, d: L.addcdiv(_t(L, d, [1.0], "float16"), _t(L, d, [60000.0], "float16"), _t(L, d, [0.01], "float16"),
                           value=1e-6),
    lambda L, d: _t(L, d, [1.0], "float16").addcmul_(_t(L, d, [300.0], "float16"), _t(L, d, [300.0], "float16"),
                                                     value=0.001),
    lambda L, d: _t(L, d, [1.0], "float16").addcdiv_(_t(L, d, [60000.0], "float16"), _t(L, d, [0.01], "float16"),
                                                     value=1e-6),
    lambda L, d: _t(L, d, [1], "int64").addcmul_(_t(L, d, [3.0], "float32"), _t(L, d, [3.0], "float32")),
    lambda L, d: L.addcmul(_t(L, d, [1.0], "float16"), _t(L, d, [300.0], "float16"), _t(L, d, [300.0], "float16"),
                           value=0.001, out=L.empty(1, dtype=L.float16, device=d)),
    lambda L, d: L.lerp(_t(L, d, [-60000.0], "float16"), _t(L, d, [60000.0], "float16"), 0.5),
    lambda L, d: L.lerp(_t(L, d, [-60000.0], "float16"), _t(L, d, [60000.0], "float16"), _t(L, d, [0.25], "float16")),
    lambda L, d: L.lerp(_t(L, d, [1.0], "bfloat16"), _t(L, d, [3e38], "bfloat16"), 0.9),
    lambda L, d: _t(L, d, [-60000.0], "float16").lerp_(_t(L, d, [60000.0], "float16"), 0.5),
], ids=lambda c: "")
def test_addcmul_addcdiv_lerp_compute_half_in_float(call, device):
    _same(call, device)


@pytest.mark.parametrize("device", DEVICES)
def test_half_addcmul_keeps_its_gradient(device):
    x = _t(tandem, device, [1.0], "float16").requires_grad_()
    t1 = _t(tandem, device, [300.0], "float16").requires_grad_()
    y = tandem.addcmul(x, t1, _t(tandem, device, [300.0], "float16"), value=0.001)
    y.sum().backward()
    assert y.dtype == tandem.float16 and y.item() == 91.0
    assert x.grad.dtype == tandem.float16 and x.grad.item() == 1.0 and t1.grad.item() == pytest.approx(0.3, rel=1e-3)


# ---- ldexp: the result's dtype as PyTorch's, the power of two in its compute dtype ------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.ldexp(_t(L, d, [1e-3, 1e4], "float16"), _t(L, d, [20, -20], "int64")),
    lambda L, d: L.ldexp(_t(L, d, [1.0], "bfloat16"), _t(L, d, [2], "int32")),
    lambda L, d: L.ldexp(_t(L, d, [1.0], "float16"), _t(L, d, [2.0], "float32")),
    lambda L, d: L.ldexp(_t(L, d, [1.0], "float16"), _t(L, d, [2.0], "float64")),
    lambda L, d: L.ldexp(_t(L, d, [1.0], "float64"), _t(L, d, [200], "int64")),
    lambda L, d: L.ldexp(_t(L, d, [3.0], "float32"), _t(L, d, [200], "int64")),
    lambda L, d: L.ldexp(_t(L, d, [3], "int64"), _t(L, d, [2], "int64")),
    lambda L, d: L.ldexp(_t(L, d, [True], "bool"), _t(L, d, [2], "int64")),
    lambda L, d: L.ldexp(_t(L, d, [1 + 1j], "complex64"), _t(L, d, [2], "int64")),
    lambda L, d: L.ldexp(L.tensor(1.0, dtype=L.float16, device=d), _t(L, d, [3], "int64")),
    lambda L, d: L.ldexp(L.tensor(1.0, dtype=L.float16, device=d), _t(L, d, [3.0], "float32")),
    lambda L, d: _t(L, d, [1e-3], "float16").ldexp_(_t(L, d, [20], "int64")),
    lambda L, d: _t(L, d, [1.0], "float64").ldexp_(_t(L, d, [200], "int64")),
    lambda L, d: _t(L, d, [3], "int64").ldexp_(_t(L, d, [1], "int64")),
    lambda L, d: _t(L, d, [True], "bool").ldexp_(_t(L, d, [1], "int64")),
    lambda L, d: _t(L, d, [3], "uint8").ldexp_(_t(L, d, [1], "int64")),
    lambda L, d: L.ldexp(_t(L, d, [1.0], "float32"), _t(L, d, [1], "int64"), out=L.empty(1, dtype=L.int64, device=d)),
    lambda L, d: L.ldexp(_t(L, d, [1.0], "float32"), _t(L, d, [3], "int64"), out=L.empty(1, dtype=L.float64,
                                                                                       device=d)),
], ids=lambda c: "")
def test_ldexp_dtypes_and_range_match_pytorch(call, device):
    _same(call, device)


# ---- vector_norm / renorm, addr / addmv / addbmm / baddbmm, trapezoid: float16 and bfloat16 without overflow ------
def _h(L, d, values, dtype="float16"):
    return _t(L, d, values, dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.linalg.vector_norm(_h(L, d, [300.0, -400.0, 500.0])),
    lambda L, d: L.linalg.vector_norm(_h(L, d, [[300.0, -400.0], [1.0, 2.0]]), ord=3, dim=1, keepdim=True),
    lambda L, d: L.linalg.vector_norm(_h(L, d, [3e37, 4e37], "bfloat16"), ord=float("inf")),
    lambda L, d: L.linalg.vector_norm(_h(L, d, [3e37, 4e37], "bfloat16")),
    lambda L, d: L.linalg.norm(_h(L, d, [300.0, -400.0, 500.0])),
    lambda L, d: L.linalg.vector_norm(_h(L, d, [300.0, -400.0]), dtype=L.float32),
    lambda L, d: L.renorm(_h(L, d, [[300.0, -400.0], [0.1, 0.2]]), 2, 0, 1.0),
    lambda L, d: L.addr(_h(L, d, [[1.0]]), _h(L, d, [-330.0]), _h(L, d, [-330.0]), alpha=0.001),
    lambda L, d: L.addr(_h(L, d, [[1.0]]), _h(L, d, [-330.0]), _h(L, d, [-330.0]), alpha=0.001, beta=0),
    lambda L, d: L.addmv(_h(L, d, [1.0]), _h(L, d, [[300.0, 500.0]]), _h(L, d, [300.0, 500.0]), alpha=1e-4),
    lambda L, d: L.addbmm(_h(L, d, [[1.0]]), _h(L, d, [[[300.0, 500.0]]]), _h(L, d, [[[300.0], [500.0]]]),
                          alpha=1e-4),
    lambda L, d: L.baddbmm(_h(L, d, [[[1.0]]]), _h(L, d, [[[300.0, 500.0]]]), _h(L, d, [[[300.0], [500.0]]]),
                           alpha=1e-4, beta=0.5),
    lambda L, d: L.baddbmm(_h(L, d, [[[1.0]]], "bfloat16"), _h(L, d, [[[3e20, 5e20]]], "bfloat16"),
                           _h(L, d, [[[3e20], [5e20]]], "bfloat16"), alpha=1e-4),
    lambda L, d: L.trapezoid(_h(L, d, [50000.0] * 4), dx=0.5),
    lambda L, d: L.trapezoid(_h(L, d, [[1.0, 2.5, 4.0]], "float32"), dx=0.3, dim=1),
    lambda L, d: L.trapezoid(_t(L, d, [1, 2, 4], "int64"), dx=0.5),
    lambda L, d: L.cumulative_trapezoid(_h(L, d, [40000.0] * 6)),
    lambda L, d: L.cumulative_trapezoid(_t(L, d, [1, 2, 4], "int64"), dx=0.5),
], ids=lambda c: "")
def test_half_norms_products_and_integrals_do_not_overflow(call, device):
    _same(call, device)


@pytest.mark.parametrize("device", DEVICES)
def test_half_vector_norm_keeps_its_gradient(device):
    x = _h(tandem, device, [300.0, -400.0]).requires_grad_()
    n = tandem.linalg.vector_norm(x)
    n.backward()
    assert n.dtype == tandem.float16 and n.item() == 500.0
    assert x.grad.dtype == tandem.float16 and x.grad.tolist() == pytest.approx([0.6, -0.8], rel=1e-3)


# ---- div with rounding_mode refuses only a bool common dtype; addr of bool vectors takes the input's dtype --------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.div(_t(L, d, [True, False], "bool"), 3, rounding_mode="floor"),
    lambda L, d: L.div(_t(L, d, [True, False], "bool"), 3, rounding_mode="trunc"),
    lambda L, d: L.div(_t(L, d, [True, False], "bool"), 2.5, rounding_mode="floor"),
    lambda L, d: _t(L, d, [True, False], "bool").div(L.tensor(2, device=d), rounding_mode="floor"),
    lambda L, d: _t(L, d, [True, False], "bool").div(_t(L, d, [2, 3], "uint8"), rounding_mode="trunc"),
    lambda L, d: L.div(_t(L, d, [True, False], "bool"), _t(L, d, [True, True], "bool"), rounding_mode="floor"),
    lambda L, d: L.div(_t(L, d, [True, False], "bool"), True, rounding_mode="trunc"),
    lambda L, d: L.div(_t(L, d, [7, -7], "int64"), _t(L, d, [True, True], "bool"), rounding_mode="floor"),
    lambda L, d: _t(L, d, [True, False], "bool").div_(2, rounding_mode="floor"),
    lambda L, d: L.addr(_t(L, d, [[1], [1], [1]], "int32"), _t(L, d, [True, False, True], "bool"),
                        _t(L, d, [True], "bool")),
    lambda L, d: L.addr(_t(L, d, [[1.5], [1.5]], "float16"), _t(L, d, [True, False], "bool"),
                        _t(L, d, [True], "bool"), alpha=2),
    lambda L, d: L.addr(_t(L, d, [[True], [False]], "bool"), _t(L, d, [True, False], "bool"),
                        _t(L, d, [True], "bool")),
], ids=lambda c: "")
def test_bool_operands_of_rounded_div_and_addr(call, device):
    _same(call, device)


# ---- Generator.set_state returns the generator ----------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_generator_set_state_returns_the_generator(device):
    g = tandem.Generator(device=device).manual_seed(3)
    state = g.get_state()
    first = tandem.rand(4, generator=g, device=device)
    again = tandem.Generator(device=device).set_state(state)  # chained, as PyTorch's
    assert isinstance(again, tandem.Generator) and tandem.equal(tandem.rand(4, generator=again, device=device), first)
    assert g.set_state(state) is g
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        g.set_state(tandem.zeros(3))
    assert torch.Generator().set_state(torch.Generator().get_state()) is not None  # the reference's behaviour


# ---- result_type / promote_types take PyTorch's argument names and words -----------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("call", [
    lambda L, d: L.result_type(tensor=_t(L, d, [1], "uint8"), other=2.5),
    lambda L, d: L.result_type(_t(L, d, [1], "int8"), other=1j),
    lambda L, d: L.result_type(scalar=2.5, tensor=_t(L, d, [1], "int64")),
    lambda L, d: L.result_type(scalar1=2, scalar2=True),
    lambda L, d: L.result_type(_t(L, d, [1], "float16"), L.tensor(1.0, dtype=L.float64, device=d)),
    lambda L, d: L.result_type("a", _t(L, d, [1], "int64")),
    lambda L, d: L.result_type(None, _t(L, d, [1], "int64")),
    lambda L, d: L.result_type(_t(L, d, [1], "int64"), foo=1),
    lambda L, d: L.result_type(_t(L, d, [1], "int64")),
    lambda L, d: L.promote_types(type1=L.int8, type2=L.uint8),
    lambda L, d: L.promote_types(L.float32, "float64"),
    lambda L, d: L.promote_types(3, L.int8),
], ids=lambda c: "")
def test_result_type_and_promote_types_forms(call, device):
    def outcome(L, d):
        try:
            return str(call(L, d))
        except TypeError as exc:  # the first line: PyTorch's list of overloads below it is its own layout
            return "TypeError: " + str(exc).split("\n")[0]
    _same(outcome, device)


# ---- fixed in C++ afterwards (session 37) ---------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_round_decimals_of_half_computes_in_float(device):
    _same(lambda L, d: (L.round(_t(L, d, [60000.0, 1.26], "float16"), decimals=2),
                        L.round(_t(L, d, [1.26], "bfloat16"), decimals=1)), device)


@pytest.mark.parametrize("device", DEVICES)
def test_std_of_half_rounds_once(device):
    _same(lambda L, d: (_h(L, d, [300.0, -400.0, 500.0]).std(), L.std_mean(_h(L, d, [300.0, -400.0, 500.0])),
                        _h(L, d, [60000.0, -60000.0], "bfloat16").std()), device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kw", [dict(rtol=-1.0), dict(atol=-0.5), dict(rtol=-1.0, atol=-1.0)], ids=str)
def test_isclose_negative_tolerance_message(kw, device):
    _same(lambda L, d: L.isclose(_t(L, d, [1.0], "float32"), _t(L, d, [1.0], "float32"), **kw), device)
    _same(lambda L, d: L.allclose(_t(L, d, [1.0], "float32"), _t(L, d, [1.0], "float32"), **kw), device)
