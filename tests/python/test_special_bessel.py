"""torch.special's Bessel functions (J0, J1, Y0, Y1, I0, I1, K0, K1, scaled K0/K1, spherical j0, Airy Ai) against
mpmath, and against PyTorch where PyTorch is accurate (its J0/J1/Y0/Y1 and Ai are not, docs/ops.md), and the
orthogonal polynomials (Chebyshev T/U/V/W and their shifted forms, Hermite H/He, Laguerre, Legendre) against
PyTorch: values across the domain and at the edges (0, negatives, poles, inf, NaN, large arguments) in float32
and float64, integer inputs, how n is taken (truncated, negative gives 0, NaN/inf, huge), the scalar forms,
dtype promotion, out=, the errors, and the gradients PyTorch has (gradcheck) or the absence it has."""
import functools
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
    torch.testing.assert_close(to_torch(got) if isinstance(got, tandem.Tensor) else got, expected, rtol=rtol,
                               atol=atol, equal_nan=True)


# ---- the reference: mpmath, computed once at collection ----
#
# PyTorch (2.15) drops the leading coefficient 1 that Cephes leaves unwritten in the denominators of J0, J1, Y0,
# Y1 and of Ai below -2.09, so its float64 values are off there (up to ~9e-7 just beyond 5, ~1e-8 just below,
# ~3e-6 for Ai just below -2.09); tandem keeps the 1 (docs/ops.md). Values are therefore held to mpmath, and to
# PyTorch only where PyTorch is accurate.

EPS64 = 2.0 ** -52


def _reference_functions(mp):
    """op -> (f, f') as functions of an mpf, the derivatives by the Bessel recurrences (each J, Y, I, K value
    computed once: mpmath's K and Y take milliseconds)."""
    j, y, i, k = (functools.lru_cache(maxsize=None)(f) for f in (mp.besselj, mp.bessely, mp.besseli, mp.besselk))
    e = mp.exp
    return {
        "bessel_j0": (lambda x: j(0, x), lambda x: -j(1, x)),
        "bessel_j1": (lambda x: j(1, x), lambda x: j(0, x) - j(1, x) / x),
        "bessel_y0": (lambda x: y(0, x), lambda x: -y(1, x)),
        "bessel_y1": (lambda x: y(1, x), lambda x: y(0, x) - y(1, x) / x),
        "modified_bessel_i0": (lambda x: i(0, x), lambda x: i(1, x)),
        "modified_bessel_i1": (lambda x: i(1, x), lambda x: i(0, x) - i(1, x) / x),
        "modified_bessel_k0": (lambda x: k(0, x), lambda x: -k(1, x)),
        "modified_bessel_k1": (lambda x: k(1, x), lambda x: -k(0, x) - k(1, x) / x),
        "scaled_modified_bessel_k0": (lambda x: e(x) * k(0, x), lambda x: e(x) * (k(0, x) - k(1, x))),
        "scaled_modified_bessel_k1": (lambda x: e(x) * k(1, x), lambda x: e(x) * (k(1, x) - k(0, x) - k(1, x) / x)),
        "spherical_bessel_j0": (lambda x: mp.sin(x) / x, lambda x: mp.cos(x) / x - mp.sin(x) / x ** 2),
        "airy_ai": (mp.airyai, lambda x: mp.airyai(x, derivative=1)),
    }


def _float32(v):
    return float(torch.tensor(v, dtype=torch.float32))


def _grid(op, mp):
    """Where each op is checked: log-spaced magnitudes from 1e-3 to 1e3 (both signs where defined; I and K up to
    their float64 range), both sides of every branch switch (2, 5, 8, 2.09, 8.3203353), float32 numbers all, so
    the float32 test shares them; plus, in float64 only, the doubles nearest the first zeros."""
    top = 700.0 if "modified" in op else 1e3
    branches = [2.0, 2.09, 5.0, 8.0, 8.3203353]
    magnitudes = [10.0 ** (-3 + 0.05 * n) for n in range(121)] + [20.5, 54.7]
    magnitudes = sorted({_float32(m) for m in magnitudes if m <= top} |
                        {_float32(m * s) for m in branches for s in (1 - 2 ** -22, 1.0, 1 + 2 ** -22)})
    both_signs = op in ("bessel_j0", "bessel_j1", "modified_bessel_i0", "modified_bessel_i1", "spherical_bessel_j0",
                        "airy_ai")
    xs = magnitudes + ([-m for m in magnitudes] if both_signs else [])
    zero = {"bessel_j0": lambda n: mp.besseljzero(0, n), "bessel_j1": lambda n: mp.besseljzero(1, n),
            "bessel_y0": lambda n: mp.besselyzero(0, n), "bessel_y1": lambda n: mp.besselyzero(1, n),
            "spherical_bessel_j0": lambda n: n * mp.pi, "airy_ai": mp.airyaizero}.get(op)
    zeros = [float(zero(n)) for n in (1, 2, 3, 10, 30)] if zero else []
    return xs, zeros


def _reference():
    mp = pytest.importorskip("mpmath")
    table = {}
    with mp.workdps(30):
        for op, (f, df) in _reference_functions(mp).items():
            xs, zeros = _grid(op, mp)
            rows = []
            for x in xs + zeros:
                v, d = f(mp.mpf(x)), df(mp.mpf(x))
                rows.append((x, float(v), float(abs(v) + abs(x * d)), x not in zeros))
            table[op] = rows
    return table


REFERENCE = _reference()


def assert_near_reference(op, xs, got, want, scale, ulps, rounding=0.0):
    """|got - want| within `ulps` units of rounding of the function's condition, eps (|f| + |x f'|): what an
    evaluation from a rounded argument can reach (relative error eps near 0, absolute eps |x f'| at the zeros and
    in the oscillating tails, where rounding x - pi/4 alone costs that much), plus the smallest normal number
    (Ai and K underflow through the subnormals), plus `rounding` |want| for a result rounded to float32."""
    bad = [(x, g, w) for x, g, w, s in zip(xs, got, want, scale)
           if not (g == w or abs(g - w) <= ulps * EPS64 * s + 2.3e-308 + rounding * abs(w))]
    assert not bad, (op, bad[:5])


@pytest.mark.parametrize("op", BESSEL)
def test_bessel_float64_matches_mpmath(op, device):
    xs, want, scale, _ = zip(*REFERENCE[op])
    got = getattr(tandem.special, op)(tandem.tensor(list(xs), dtype=tandem.float64, device=device)).tolist()
    assert_near_reference(op, xs, got, want, scale, 16)


@pytest.mark.parametrize("op", BESSEL)
def test_bessel_float32_is_mpmath_rounded(op, device):
    # tandem computes float32 in double and rounds once: mpmath's value rounded to float32, or its neighbour
    # where the value lies within the double's error of a rounding boundary (one ulp)
    rows = [r for r in REFERENCE[op] if r[3]]  # the grid is float32 numbers (the zeros are doubles)
    xs = [r[0] for r in rows]
    got = to_torch(getattr(tandem.special, op)(tandem.tensor(xs, dtype=tandem.float32, device=device)))
    assert got.dtype == torch.float32
    want = torch.tensor([r[1] for r in rows], dtype=torch.float64).float()
    ulps = ((got.double() - want.double()).abs() / torch.finfo(torch.float32).eps /
            want.double().abs().clamp(min=torch.finfo(torch.float32).tiny))
    finite = want.isfinite()
    assert torch.equal(got.isinf(), want.isinf()) and not got.isnan().any()
    assert ulps[finite].max().item() <= 1.0, (op, xs[int(ulps[finite].argmax())])


def pytorch_is_accurate(op, x):
    """Where PyTorch's float64 values are right to ~1e-13: everywhere but J0/J1/Y0/Y1 beyond |x| = 2, where its
    missing denominator terms start to count, and Ai below -2.09 (non-finite x and Y's NaN below 0 included)."""
    special = ~x.isfinite() | ((x < 0) if op in ("bessel_y0", "bessel_y1") else torch.zeros_like(x, dtype=torch.bool))
    if op in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1"):
        return special | (x.abs() <= 2)
    if op == "airy_ai":
        return special | (x >= -2.09)
    return torch.ones_like(x, dtype=torch.bool)


@pytest.mark.parametrize("op", BESSEL)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_values_at_the_edges(op, dtype, device):
    x = torch.tensor(EDGES, dtype=getattr(torch, dtype))
    got = getattr(tandem.special, op)(from_torch(x, device))
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    got = to_torch(got)
    # where PyTorch is accurate (and at 0, the infinities, NaN, outside the domain) its values
    double = x.double()
    expected = getattr(torch.special, op)(double)
    accurate = pytorch_is_accurate(op, double)
    if dtype == "float64":
        check_close(got[accurate], expected[accurate], 1e-13, 1e-300)
    else:
        # PyTorch's float64 values rounded to float32; its float loop agrees up to its own rounding (a few 1e-8
        # absolute near zeros) but reduces x - pi/4 in float for huge arguments, where its result is noise
        check_close(got[accurate], expected[accurate].float(), 1e-6, 1e-30)
        moderate = accurate & (x.abs() < 1e3)
        check_close(got[moderate], getattr(torch.special, op)(x)[moderate], 1e-5, 1e-6)
    # elsewhere mpmath's
    mp = pytest.importorskip("mpmath")
    f, df = _reference_functions(mp)[op]
    with mp.workdps(30):
        for index in (~accurate).nonzero().flatten().tolist():
            value = double[index].item()
            v, d = f(mp.mpf(value)), df(mp.mpf(value))
            scale = float(abs(v) + abs(value * d))
            want = float(v) if dtype == "float64" else _float32(float(v))
            assert_near_reference(op, [value], [got[index].item()], [want], [scale], 16,
                                  0.0 if dtype == "float64" else 2.0 ** -23)


def test_pytorch_float64_is_off_where_tandem_matches_mpmath():
    # PyTorch evaluates Cephes's denominators without their leading 1 (docs/ops.md): J0/J1/Y0/Y1 differ from the
    # true values by more than 1e-7 somewhere beyond 5 (by ~1e-8 just below 5), Ai by more than 1e-6 below -2.09
    mp = pytest.importorskip("mpmath")
    f = _reference_functions(mp)
    x = torch.linspace(5.0, 8.0, 61, dtype=torch.float64)
    cases = [(op, x, 1e-7) for op in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1")]
    cases.append(("airy_ai", torch.linspace(-5.0, -2.1, 59, dtype=torch.float64), 1e-6))
    with mp.workdps(30):
        for op, xs, off in cases:
            values = [f[op][0](mp.mpf(v)) for v in xs.tolist()]
            want = torch.tensor([float(v) for v in values], dtype=torch.float64)
            scale = [float(abs(v) + abs(u * f[op][1](mp.mpf(u)))) for v, u in zip(values, xs.tolist())]
            assert (getattr(torch.special, op)(xs) - want).abs().max().item() > off, op
            got = getattr(tandem.special, op)(from_torch(xs)).tolist()
            assert_near_reference(op, xs.tolist(), got, want.tolist(), scale, 16)


# (op, low, high): float64 sweeps over both sides of every branch switch (2 and 8 for K, 8 for I, 2.09 and 8.32
# for Ai) against PyTorch, where PyTorch is accurate (pytorch_is_accurate)
SWEEPS = [("bessel_j0", -60.0, 60.0), ("bessel_j1", -60.0, 60.0), ("bessel_y0", 1e-3, 60.0), ("bessel_y1", 1e-3, 60.0),
          ("modified_bessel_i0", -60.0, 60.0), ("modified_bessel_i1", -60.0, 60.0),
          ("modified_bessel_k0", 1e-3, 60.0), ("modified_bessel_k1", 1e-3, 60.0),
          ("scaled_modified_bessel_k0", 1e-3, 600.0), ("scaled_modified_bessel_k1", 1e-3, 600.0),
          ("spherical_bessel_j0", -40.0, 40.0), ("airy_ai", -30.0, 30.0)]


@pytest.mark.parametrize("op,low,high", SWEEPS, ids=[s[0] for s in SWEEPS])
def test_bessel_float64_sweep_agrees_with_pytorch_where_it_is_accurate(op, low, high):
    x = torch.linspace(low, high, 3001, dtype=torch.float64)
    accurate = pytorch_is_accurate(op, x)
    got = to_torch(getattr(tandem.special, op)(from_torch(x)))
    # the same Cephes approximations: agreement to rounding, absolute near the functions' zeros
    torch.testing.assert_close(got[accurate], getattr(torch.special, op)(x)[accurate], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("op", BESSEL)
def test_bessel_float32_sweep(op, device):
    # PyTorch's float loop, within its float rounding plus, for J0/J1/Y0/Y1 and Ai, its missing denominator
    # terms (~1e-6 relative, ~3e-6 absolute near Ai's first zero)
    x = torch.linspace(-30, 30, 1201, dtype=torch.float32)
    got = getattr(tandem.special, op)(from_torch(x, device))
    check_close(got, getattr(torch.special, op)(x), 2e-5, 4e-6)


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
    # at 0 and on the negative side: PyTorch's values (removable singularities, poles, NaN outside the domain),
    # and one regular point where PyTorch's J/Y are accurate (pytorch_is_accurate)
    edge = [0.0, -1.5, -0.25, 1.75]
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
