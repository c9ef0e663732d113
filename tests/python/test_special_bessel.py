"""torch.special's Bessel functions (J0, J1, Y0, Y1, I0, I1, K0, K1, scaled K0/K1, spherical j0, Airy Ai) and
orthogonal polynomials (Chebyshev T/U/V/W and their shifted forms, Hermite H/He, Laguerre, Legendre) against
PyTorch: values across the domain and at the edges (0, negatives, poles, inf, NaN, large arguments) in float32
and float64, integer inputs, how n is taken (truncated, negative gives 0, NaN/inf, huge), the scalar forms,
dtype promotion, out=, the errors, and the gradients PyTorch has (gradcheck) or the absence it has."""
import math
import time

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, to_torch

BESSEL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
          "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
          "spherical_bessel_j0", "airy_ai"]
DIFFERENTIABLE = {"bessel_j0": "SpecialBesselJ0Backward0", "bessel_j1": "SpecialBesselJ1Backward0",
                  "bessel_y0": "SpecialBesselY0Backward0", "bessel_y1": "SpecialBesselY1Backward0",
                  "modified_bessel_i0": "SpecialModifiedBesselI0Backward0",
                  "modified_bessel_i1": "SpecialModifiedBesselI1Backward0",
                  "modified_bessel_k0": "SpecialModifiedBesselK0Backward0",
                  "modified_bessel_k1": "SpecialModifiedBesselK1Backward0"}
POLYNOMIALS = [p + "_polynomial_" + k for p in ("chebyshev", "shifted_chebyshev") for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]

EDGES = [0.0, -0.0, 1e-300, 1e-8, 1e-5, 0.5, 1.0, 2.0, 2.09, 2.1, 2.404825557695773, 5.0, 5.01, 8.0, 8.32, 8.4,
         10.0, 25.0, 100.0, 103.8, 104.0, 700.0, 710.0, 1e4, 1e10, -1e-8, -0.5, -1.0, -2.0, -2.1, -5.0, -8.5, -25.0,
         -1e4, float("inf"), float("-inf"), float("nan")]


def check_close(got, expected, rtol, atol):
    torch.testing.assert_close(to_torch(got), expected, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("op", BESSEL)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_values_at_the_edges(op, dtype, device):
    x = torch.tensor(EDGES, dtype=getattr(torch, dtype))
    expected = getattr(torch.special, op)(x)
    got = getattr(tandem.special, op)(from_torch(x, device))
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    if dtype == "float64":
        check_close(got, expected, 1e-13, 1e-300)
        return
    # tandem computes float32 in double and rounds once: PyTorch's float64 values rounded to float32. PyTorch's
    # float loop agrees up to its own rounding (a few 1e-8 absolute near zeros), except for huge arguments, where
    # it reduces x - pi/4 in float and its result is noise (J0(1e10) is a few 1e-6 off)
    check_close(got, getattr(torch.special, op)(x.double()).float(), 1e-6, 1e-30)
    moderate = x.abs() < 1e3
    torch.testing.assert_close(to_torch(got)[moderate], expected[moderate], rtol=1e-5, atol=1e-6, equal_nan=True)


# (op, low, high): float64 sweeps over both sides of every branch switch (5 for J/Y, 2 and 8 for K, -2.09 and
# 2.09/8.32 for Ai), against PyTorch
SWEEPS = [("bessel_j0", -60.0, 60.0), ("bessel_j1", -60.0, 60.0), ("bessel_y0", 1e-3, 60.0), ("bessel_y1", 1e-3, 60.0),
          ("modified_bessel_i0", -60.0, 60.0), ("modified_bessel_i1", -60.0, 60.0),
          ("modified_bessel_k0", 1e-3, 60.0), ("modified_bessel_k1", 1e-3, 60.0),
          ("scaled_modified_bessel_k0", 1e-3, 600.0), ("scaled_modified_bessel_k1", 1e-3, 600.0),
          ("spherical_bessel_j0", -40.0, 40.0), ("airy_ai", -30.0, 30.0)]


@pytest.mark.parametrize("op,low,high", SWEEPS, ids=[s[0] for s in SWEEPS])
def test_bessel_float64_sweep(op, low, high):
    x = torch.linspace(low, high, 3001, dtype=torch.float64)
    got = getattr(tandem.special, op)(from_torch(x))
    # the same Cephes approximations as PyTorch: agreement to rounding, absolute near the functions' zeros
    check_close(got, getattr(torch.special, op)(x), 1e-12, 1e-15)


@pytest.mark.parametrize("op", BESSEL)
def test_bessel_float32_sweep(op, device):
    x = torch.linspace(-30, 30, 1201, dtype=torch.float32)
    got = getattr(tandem.special, op)(from_torch(x, device))
    check_close(got, getattr(torch.special, op)(x), 2e-5, 2e-6)


@pytest.mark.parametrize("op", BESSEL)
def test_bessel_promotes_integers_and_refuses_half_and_complex(op, device):
    ints = torch.tensor([0, 1, 2, 7, -3])
    got = getattr(tandem.special, op)(from_torch(ints, device))
    assert_same(got, getattr(torch.special, op)(ints), rtol=1e-5, atol=1e-7)
    flags = torch.tensor([True, False])
    assert_same(getattr(tandem.special, op)(from_torch(flags, device)), getattr(torch.special, op)(flags),
                rtol=1e-5, atol=1e-7)
    kernel = op + ("_cpu" if device == "cpu" else "_cuda")
    for dtype, title in ((tandem.float16, "Half"), (tandem.bfloat16, "BFloat16")):
        with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for \'{title}\''):
            getattr(tandem.special, op)(tandem.ones(2, dtype=dtype, device=device))
    with pytest.raises(NotImplementedError):
        torch.special.bessel_j0(torch.ones(2, dtype=torch.float16))
    with pytest.raises(NotImplementedError):
        getattr(tandem.special, op)(tandem.ones(2, dtype=tandem.complex64, device=device))
    with pytest.raises(TypeError):
        getattr(tandem.special, op)(1.0)


def test_bessel_out_argument(device):
    x = tandem.tensor([0.5, 1.5, 3.0], device=device)
    out = tandem.empty(3, dtype=tandem.float64, device=device)
    assert tandem.special.bessel_j0(x, out=out) is out
    expected = torch.special.bessel_j0(torch.tensor([0.5, 1.5, 3.0]), out=torch.empty(3, dtype=torch.float64))
    assert_same(out, expected, rtol=1e-6, atol=0)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long"):
        tandem.special.airy_ai(x, out=tandem.empty(3, dtype=tandem.int64, device=device))


@pytest.mark.parametrize("op", sorted(DIFFERENTIABLE))
def test_bessel_gradients(op, device):
    x = tandem.tensor([0.3, 1.2, 2.7, 6.5, 11.0], dtype=tandem.float64, device=device, requires_grad=True)
    out = getattr(tandem.special, op)(x)
    assert out.grad_fn.name() == DIFFERENTIABLE[op]
    assert getattr(torch.special, op)(torch.tensor([1.0], requires_grad=True)).grad_fn.name() == DIFFERENTIABLE[op]
    assert tandem.autograd.gradcheck(getattr(tandem.special, op), (x,))
    # at 0 and on the negative side: PyTorch's values (removable singularities, poles, NaN outside the domain)
    edge = [0.0, -1.5, -0.25, 2.5]
    t = torch.tensor(edge, dtype=torch.float64, requires_grad=True)
    getattr(torch.special, op)(t).sum().backward()
    u = tandem.tensor(edge, dtype=tandem.float64, device=device, requires_grad=True)
    getattr(tandem.special, op)(u).sum().backward()
    check_close(u.grad, t.grad, 1e-12, 0)


@pytest.mark.parametrize("op", sorted(set(BESSEL) - set(DIFFERENTIABLE)))
def test_bessel_without_derivative(op, device):
    x = tandem.tensor([0.5, 1.5], dtype=tandem.float64, device=device, requires_grad=True)
    out = getattr(tandem.special, op)(x)
    assert out.grad_fn is None and not out.requires_grad
    assert not getattr(torch.special, op)(torch.tensor([0.5], requires_grad=True)).requires_grad
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn"):
        out.sum().backward()


def test_modified_bessel_i_are_their_own_ops():
    x = torch.tensor([-3.0, 0.0, 0.4, 9.5, 40.0], dtype=torch.float64)
    for op in ("modified_bessel_i0", "modified_bessel_i1"):
        check_close(getattr(tandem.special, op)(from_torch(x)), getattr(torch.special, op)(x), 1e-14, 0)
    assert tandem.special.modified_bessel_i0 is not tandem.special.i0


# ---- orthogonal polynomials ----

POLY_X = [-3.0, -1.0, -0.999, -0.7, -0.3, 0.0, 0.2, 0.5, 0.75, 0.9, 1.0, 1.3, 2.0, 5.0]


@pytest.mark.parametrize("op", POLYNOMIALS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polynomial_values(op, dtype, device):
    grid_x = torch.tensor(POLY_X, dtype=getattr(torch, dtype))
    n = torch.arange(-2, 16, dtype=getattr(torch, dtype))
    x, nn = torch.meshgrid(grid_x, n, indexing="ij")
    expected = getattr(torch.special, op)(x, nn)
    got = getattr(tandem.special, op)(from_torch(x, device), from_torch(nn, device))
    assert got.dtype == getattr(tandem, dtype)
    rtol, atol = (2e-6, 1e-5) if dtype == "float32" else (1e-12, 1e-12)
    check_close(got, expected, rtol, atol)


@pytest.mark.parametrize("op", POLYNOMIALS)
def test_polynomial_degree_is_truncated_and_non_finite_degrees_give_zero(op, device):
    x = torch.tensor([0.3, -0.6, 1.7, 0.0, 2.0, -1.0, 0.3, 0.3, 0.3], dtype=torch.float64)
    n = torch.tensor([3.7, -0.5, 2.9, -2.5, float("nan"), float("inf"), float("-inf"), 1e19, -1e19],
                     dtype=torch.float64)
    check_close(getattr(tandem.special, op)(from_torch(x, device), from_torch(n, device)),
                getattr(torch.special, op)(x, n), 1e-13, 0)
    special_x = torch.tensor([float("nan"), float("inf"), float("-inf"), 1.0, -1.0, 0.0])
    check_close(getattr(tandem.special, op)(from_torch(special_x, device), 5),
                getattr(torch.special, op)(special_x, 5), 1e-6, 0)


@pytest.mark.parametrize("op", POLYNOMIALS)
@pytest.mark.parametrize("n", [30, 100, 200, 600, 1000])
def test_polynomial_large_degrees_overflow_as_pytorch(op, n, device):
    # float32 recurrences overflow (inf, then NaN) where PyTorch's do, and Hermite past its limit is NaN
    for dtype in (torch.float32, torch.float64):
        x = torch.tensor([-2.5, -1.1, -0.97, -0.4, 0.0, 0.35, 0.8, 1.05, 3.0], dtype=dtype)
        expected = getattr(torch.special, op)(x, n)
        got = to_torch(getattr(tandem.special, op)(from_torch(x, device), n))
        assert torch.equal(got.isnan(), expected.isnan()) and torch.equal(got.isinf(), expected.isinf())
        finite = expected.isfinite()
        torch.testing.assert_close(got[finite], expected[finite], rtol=2e-3 if dtype == torch.float32 else 1e-9,
                                   atol=1e-4 if dtype == torch.float32 else 1e-12)


@pytest.mark.parametrize("op", POLYNOMIALS)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_polynomial_huge_degree_returns_promptly(op, dtype, device):
    # PyTorch runs n recurrence steps, so n = 2**61 with |x| < 1 never returns for Legendre (x > 0 for Laguerre);
    # tandem runs at most 2**24 and gives NaN there (docs/ops.md). Everywhere PyTorch does return (closed forms,
    # the ends, overflow to NaN, Hermite's limit) the values are its.
    x = torch.tensor([0.3, -0.7, 0.0, 1.0, -1.0, 2.0, -1.5, 0.5, float("nan")], dtype=dtype)
    n = 2.0 ** 61
    start = time.perf_counter()
    got = to_torch(getattr(tandem.special, op)(from_torch(x, device), n))
    assert time.perf_counter() - start < 5
    if op == "legendre_polynomial_p":
        pytorch_returns = ~(x.abs() < 1)
    elif op == "laguerre_polynomial_l":
        pytorch_returns = ~(x > 0)
    else:
        pytorch_returns = torch.ones_like(x, dtype=torch.bool)
    expected = getattr(torch.special, op)(x[pytorch_returns], n)
    torch.testing.assert_close(got[pytorch_returns], expected, rtol=1e-5, atol=1e-6, equal_nan=True)
    assert got[~pytorch_returns].isnan().all()
    # from 2**62 on, 2n + 1 (W at 1, V at -1) no longer fits int64: PyTorch's wraps to a negative value
    ends = getattr(tandem.special, op)(tandem.tensor([1.0, -1.0], dtype=tandem.float64), 2.0 ** 62).tolist()
    if op in ("chebyshev_polynomial_w", "shifted_chebyshev_polynomial_w"):
        assert ends[0] == 2.0 ** 63
    if op == "chebyshev_polynomial_v":
        assert ends[1] == 2.0 ** 63


def test_chebyshev_past_the_recurrence_limit_outside_the_interval():
    # just outside [-1, 1] a double overflows only after ~1e10 steps; past degree 2**24 the hyperbolic closed
    # forms replace the recurrence. The reference takes U from mpmath's sinh form and V, W, T from U's identities
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    n = 2 ** 24 + 1
    for x in (1 + 2.0 ** -40, -(1 + 2.0 ** -40)):
        g = mpmath.acosh(abs(mpmath.mpf(x)))

        def u(m):
            return (-1) ** (m if x < 0 else 0) * mpmath.sinh((m + 1) * g) / mpmath.sinh(g)

        want = {"chebyshev_polynomial_t": (u(n) - u(n - 2)) / 2, "chebyshev_polynomial_u": u(n),
                "chebyshev_polynomial_v": u(n) - u(n - 1), "chebyshev_polynomial_w": u(n) + u(n - 1)}
        for op, value in want.items():
            got = getattr(tandem.special, op)(tandem.tensor([x], dtype=tandem.float64), float(n)).item()
            assert math.isclose(got, float(value), rel_tol=1e-12), (op, x, got, float(value))
        shifted = tandem.special.shifted_chebyshev_polynomial_u(tandem.tensor([(x + 1) / 2], dtype=tandem.float64),
                                                                float(n)).item()
        assert math.isclose(shifted, float(want["chebyshev_polynomial_u"]), rel_tol=1e-9)


def test_shifted_chebyshev_w_just_below_one(device):
    # cos(arccos(2x - 1) / 2) rounds to 1 there: the value is W's at 1, 2n + 1 (PyTorch's shifted W gives -1;
    # docs/ops.md), continuous with its neighbour one ulp further down
    x = torch.tensor([1 - 2.0 ** -24, 1 - 2.0 ** -23], dtype=torch.float32)
    got = to_torch(tandem.special.shifted_chebyshev_polynomial_w(from_torch(x, device), 11))
    assert got[0].item() == 23.0
    assert torch.special.shifted_chebyshev_polynomial_w(x, 11)[0].item() == -1.0
    torch.testing.assert_close(got[1], torch.special.shifted_chebyshev_polynomial_w(x, 11)[1], rtol=1e-6, atol=0)
    assert got[1].item() == pytest.approx(23.0, rel=1e-4)


def test_polynomial_forms_and_promotion(device):
    S, T = torch.special, tandem.special
    x = torch.tensor([0.3, -0.7, 2.0])
    ints = torch.tensor([1, 2, 3])
    tx, tints = from_torch(x, device), from_torch(ints, device)
    # tensor x, number n; number x, tensor n; integer tensors -> the default float dtype
    assert_same(T.chebyshev_polynomial_t(tx, 3), S.chebyshev_polynomial_t(x, 3), rtol=1e-6, atol=1e-6)
    assert_same(T.chebyshev_polynomial_t(tx, 3.7), S.chebyshev_polynomial_t(x, 3.7), rtol=1e-6, atol=1e-6)
    assert_same(T.chebyshev_polynomial_t(tx, True), S.chebyshev_polynomial_t(x, True), rtol=1e-6, atol=1e-6)
    assert_same(T.chebyshev_polynomial_t(0.5, tints), S.chebyshev_polynomial_t(0.5, ints), rtol=1e-6, atol=1e-6)
    assert_same(T.hermite_polynomial_h(tints, tints), S.hermite_polynomial_h(ints, ints), rtol=1e-6, atol=1e-6)
    assert_same(T.legendre_polynomial_p(tints, 2), S.legendre_polynomial_p(ints, 2), rtol=1e-6, atol=1e-6)
    assert_same(T.laguerre_polynomial_l(tx, tints), S.laguerre_polynomial_l(x, ints), rtol=1e-6, atol=1e-6)
    n64 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    assert_same(T.chebyshev_polynomial_u(tx, from_torch(n64, device)), S.chebyshev_polynomial_u(x, n64), rtol=1e-6,
                atol=1e-6)
    n0 = torch.tensor(3.0, dtype=torch.float64)  # a 0-dim n does not promote a dimensioned x
    assert_same(T.chebyshev_polynomial_w(tx, from_torch(n0, device)), S.chebyshev_polynomial_w(x, n0), rtol=1e-6,
                atol=1e-6)
    # keywords are PyTorch's (x, n), and out=
    assert_same(T.chebyshev_polynomial_v(x=tx, n=2), S.chebyshev_polynomial_v(x=x, n=2), rtol=1e-6, atol=1e-6)
    out = tandem.empty(3, device=device)
    assert T.shifted_chebyshev_polynomial_t(tx, 2, out=out) is out
    assert_same(out, S.shifted_chebyshev_polynomial_t(x, 2), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("op", POLYNOMIALS)
def test_polynomial_errors(op, device):
    fn = getattr(tandem.special, op)
    kernel = op + ("_cpu" if device == "cpu" else "_cuda")
    with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for \'Half\''):
        fn(tandem.ones(2, dtype=tandem.float16, device=device), 2)
    with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for \'BFloat16\''):
        fn(tandem.ones(2, dtype=tandem.bfloat16, device=device), 2)
    with pytest.raises(NotImplementedError):
        fn(tandem.ones(2, device=device), 1j)
    with pytest.raises(NotImplementedError):
        fn(tandem.ones(2, dtype=tandem.complex64, device=device), 2)
    with pytest.raises(TypeError):
        fn(1, 2)
    with pytest.raises(TypeError):
        getattr(torch.special, op)(1, 2)


def test_polynomials_are_not_differentiable(device):
    x = tandem.tensor([0.5, 1.5], dtype=tandem.float64, device=device, requires_grad=True)
    for op in POLYNOMIALS:
        for out in (getattr(tandem.special, op)(x, 3), getattr(tandem.special, op)(0.5, x),
                    getattr(tandem.special, op)(x, x)):
            assert out.grad_fn is None and not out.requires_grad
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad"):
        tandem.special.hermite_polynomial_h(x, 3).sum().backward()


def test_special_namespace_has_every_torch_special_function():
    names = {n for n in dir(torch.special) if not n.startswith("_") and callable(getattr(torch.special, n))}
    names -= {"Tensor", "torch"}
    missing = sorted(n for n in names if not hasattr(tandem.special, n))
    assert not missing, missing
    assert set(BESSEL + POLYNOMIALS) <= set(tandem.special.__all__)
    assert math.isclose(tandem.special.bessel_j0(tandem.tensor([1.0], dtype=tandem.float64)).item(),
                        0.7651976865579666, rel_tol=1e-15)
