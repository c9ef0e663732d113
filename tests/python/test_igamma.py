"""The regularized incomplete gamma functions against PyTorch: torch.igamma/igammac, special.gammainc/gammaincc and
the Tensor methods (in-place too), across every regime of the method (series, continued fraction, Temme's
expansion near the diagonal for large a) and the boundary values, float32/float64/float16/bfloat16, integer
operands, the errors, out=, the gradient in x (gradcheck) and PyTorch's error for the gradient in a, and the
distributions' cdf built on them (Gamma, Chi2, InverseGamma)."""
import math

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, to_torch

FNS = [("igamma", "gammainc"), ("igammac", "gammaincc")]


def grid(dtype=torch.float64):
    a = torch.tensor([1e-3, 0.1, 0.5, 1.0, 1.5, 3.0, 7.5, 19.0, 25.0, 60.0, 150.0, 199.0, 250.0, 1e3, 1e5],
                     dtype=dtype)
    x = torch.tensor([1e-5, 0.1, 0.45, 0.5, 0.8, 1.0, 1.05, 1.2, 2.5, 8.0, 21.0, 26.0, 55.0, 160.0, 240.0, 260.0,
                      1e3, 1.01e5, 1e6], dtype=dtype)
    return torch.meshgrid(a, x, indexing="ij")


@pytest.mark.parametrize("name,special", FNS)
def test_float64_values_over_every_regime(name, special, device):
    a, x = grid()
    expected = getattr(torch, name)(a, x)
    got = getattr(tandem, name)(from_torch(a, device), from_torch(x, device))
    # PyTorch's Temme expansion uses a float pi (c10::pi<float>): its values there are up to ~3e-10 off, tandem's
    # (double pi) are not (test_temme_expansion_is_exact)
    torch.testing.assert_close(to_torch(got), expected, rtol=2e-9, atol=1e-12, equal_nan=True)
    assert_same(getattr(tandem.special, special)(from_torch(a, device), from_torch(x, device)), expected, rtol=2e-9,
                atol=1e-12)


def test_temme_expansion_is_exact():
    # P(a, x) for integer a: x^a e^-x / a! sum_k x^k / ((a+1)...(a+k)), summed in 40-digit decimals
    from decimal import Decimal, getcontext
    import math
    getcontext().prec = 40

    def exact(a, x):
        x = Decimal(x)
        term = total = Decimal(1)
        k = 0
        while term > Decimal(10) ** -38:
            k += 1
            term = term * x / (a + k)
            total += term
        return float(total * x ** a * (-x).exp() / math.factorial(a))

    for a, x in ((25, 21), (60, 55), (199, 160), (150, 160), (25, 26)):
        p = tandem.igamma(tandem.tensor([float(a)], dtype=tandem.float64), tandem.tensor([float(x)],
                                                                                        dtype=tandem.float64))
        q = tandem.igammac(tandem.tensor([float(a)], dtype=tandem.float64), tandem.tensor([float(x)],
                                                                                         dtype=tandem.float64))
        assert math.isclose(p.item(), exact(a, x), rel_tol=1e-14), (a, x)
        assert math.isclose(q.item(), 1 - exact(a, x), rel_tol=1e-13), (a, x)


def test_accuracy_against_mpmath_in_every_regime():
    # the power series of P, the alternating series of Q (small a), the continued fraction, Temme's expansion
    # (a > 1000 near x) and both sides of each switch, against 40-digit values
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    cases = [(0.01, 1.0), (0.01, 1.49), (0.01, 1.51), (0.3, 0.2), (2.0, 1.6), (2.0, 3.1), (9.9, 9.9), (10.1, 9.0),
             (50.0, 55.05), (199.0, 160.0), (999.0, 1008.99), (1001.0, 1011.01), (1001.0, 1101.2), (2000.0, 1900.0),
             (1e4, 1.01e4), (1e5, 0.95e5), (1e5, 1e5), (1e6, 1.002e6)]
    a = torch.tensor([c[0] for c in cases], dtype=torch.float64)
    x = torch.tensor([c[1] for c in cases], dtype=torch.float64)
    p = to_torch(tandem.igamma(from_torch(a), from_torch(x))).tolist()
    q = to_torch(tandem.igammac(from_torch(a), from_torch(x))).tolist()
    for (ai, xi), got_p, got_q in zip(cases, p, q):
        want_p = mpmath.gammainc(ai, 0, xi, regularized=True)
        want_q = mpmath.gammainc(ai, xi, mpmath.inf, regularized=True)
        assert math.isclose(got_p, float(want_p), rel_tol=1e-13), (ai, xi, got_p, float(want_p))
        assert math.isclose(got_q, float(want_q), rel_tol=1e-13), (ai, xi, got_q, float(want_q))


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_boundary_values(name, device):
    inf, nan = float("inf"), float("nan")
    a = torch.tensor([0.0, 0.0, 0.0, 2.0, inf, inf, 2.0, -1.0, 2.0, nan, 2.0, 0.0, inf], dtype=torch.float64)
    x = torch.tensor([0.0, 1.0, inf, 0.0, 3.0, inf, inf, 1.0, -1.0, 1.0, nan, -0.0, 0.0], dtype=torch.float64)
    assert_same(getattr(tandem, name)(from_torch(a, device), from_torch(x, device)), getattr(torch, name)(a, x),
                rtol=0, atol=0)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_sweeps_along_the_diagonal(name):
    # a and x close together, where Temme's expansion takes over from the series and the continued fraction
    a = torch.linspace(0.5, 400.0, 1500, dtype=torch.float64)
    for ratio in (0.6, 0.71, 0.9, 1.0, 1.1, 1.29, 1.31, 1.8):
        x = a * ratio
        torch.testing.assert_close(to_torch(getattr(tandem, name)(from_torch(a), from_torch(x))),
                                   getattr(torch, name)(a, x), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("dtype,tol", [("float32", (3e-6, 1e-6)), ("float16", (2e-3, 1e-3)),
                                       ("bfloat16", (1.6e-2, 8e-3))])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_lower_precisions(name, dtype, tol, device):
    a, x = grid(torch.float32)
    a, x = a.to(getattr(torch, dtype)), x.to(getattr(torch, dtype))
    got = getattr(tandem, name)(from_torch(a, device), from_torch(x, device))
    assert_same(got, getattr(torch, name)(a, x), rtol=tol[0], atol=tol[1])


def test_promotion_and_dtype_errors(device):
    x = torch.tensor([0.3, 1.7, 2.0])
    ints = torch.tensor([1, 2, 3])
    tx, ti = from_torch(x, device), from_torch(ints, device)
    assert_same(tandem.igamma(tx, ti), torch.igamma(x, ints), rtol=1e-6, atol=1e-7)
    assert_same(tandem.igamma(tx, tx.half()), torch.igamma(x, x.half()), rtol=1e-6, atol=1e-7)
    assert_same(tandem.igammac(tx.double(), tx), torch.igammac(x.double(), x), rtol=1e-13, atol=0)
    kernel = "igamma_cpu"
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Long'"):
        tandem.igamma(ti, ti)
    with pytest.raises(NotImplementedError, match="^\"igammac_cpu\" not implemented for 'Bool'"):
        tandem.igammac(ti > 1, ti > 1)
    with pytest.raises(NotImplementedError):
        tandem.igamma(tx.to(tandem.complex64), tx.to(tandem.complex64))
    with pytest.raises(NotImplementedError):
        torch.igamma(ints, ints)


def test_only_tensor_operands(device):
    x = tandem.tensor([0.5, 2.0], device=device)
    for fn in (tandem.igamma, tandem.igammac, tandem.special.gammainc, tandem.special.gammaincc):
        with pytest.raises(TypeError, match=r"argument 'other' \(position 2\) must be Tensor, not float"):
            fn(x, 2.0)
        with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor, not float"):
            fn(2.0, x)
    with pytest.raises(TypeError, match=r"^igamma\(\): argument 'other' \(position 2\) must be Tensor, not float"):
        torch.igamma(torch.tensor([0.5]), 2.0)
    with pytest.raises(TypeError):
        x.igamma(2.0)
    with pytest.raises(TypeError):
        x.clone().igammac_(2)


def test_methods_in_place_keywords_and_out(device):
    a = torch.tensor([0.5, 1.5, 4.0])
    x = torch.tensor([0.2, 2.0, 3.5])
    ta, tx = from_torch(a, device), from_torch(x, device)
    assert_same(ta.igamma(tx), a.igamma(x), rtol=1e-6, atol=0)
    assert_same(ta.igammac(other=tx), a.igammac(other=x), rtol=1e-6, atol=0)
    assert_same(tandem.special.gammainc(input=ta, other=tx), torch.special.gammainc(input=a, other=x), rtol=1e-6,
                atol=0)
    t = ta.clone()
    assert t.igamma_(tx) is t
    assert_same(t, a.clone().igamma_(x), rtol=1e-6, atol=0)
    t = ta.clone()
    t.igammac_(tx)
    assert_same(t, a.clone().igammac_(x), rtol=1e-6, atol=0)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long"):
        from_torch(torch.tensor([1, 2, 3]), device).igamma_(tx)
    out = tandem.empty(3, dtype=tandem.float64, device=device)
    assert tandem.igamma(ta, tx, out=out) is out
    assert_same(out, torch.igamma(a, x, out=torch.empty(3, dtype=torch.float64)), rtol=1e-6, atol=0)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long"):
        tandem.igammac(ta, tx, out=tandem.empty(3, dtype=tandem.int64, device=device))


@pytest.mark.parametrize("name,node", [("igamma", "IgammaBackward0"), ("igammac", "IgammacBackward0")])
def test_gradient_in_x_and_pytorchs_error_in_a(name, node, device):
    a = tandem.tensor([0.7, 1.5, 3.0, 30.0], dtype=tandem.float64, device=device)
    x = tandem.tensor([0.4, 2.5, 1.2, 28.0], dtype=tandem.float64, device=device, requires_grad=True)
    assert tandem.autograd.gradcheck(lambda v: getattr(tandem, name)(a, v), (x,))
    out = getattr(tandem, name)(a, x)
    assert out.grad_fn.name() == node
    ta = torch.tensor(a.tolist(), dtype=torch.float64)
    tx = torch.tensor(x.tolist(), dtype=torch.float64, requires_grad=True)
    getattr(torch, name)(ta, tx).sum().backward()
    out.sum().backward()
    assert_same(x.grad, tx.grad, rtol=1e-12, atol=0)
    # PyTorch has no derivative in a: its NotImplementedError when backward reaches it
    ra = a.clone().requires_grad_()
    r = getattr(tandem, name)(ra, x.detach())
    assert r.grad_fn.name() == node
    message = f"the derivative for '{name}: input' is not implemented."
    with pytest.raises(NotImplementedError, match=f"^{message}"):
        r.sum().backward()
    with pytest.raises(NotImplementedError, match=f"^{message}"):
        getattr(torch, name)(ta.clone().requires_grad_(), tx.detach()).sum().backward()


# ---- the distributions whose cdf PyTorch builds on gammainc ----

def test_gamma_and_chi2_cdf(device):
    conc, rate = [0.5, 2.0, 9.0], [1.0, 0.5, 3.0]
    value = [0.3, 4.0, 2.5]
    t = torch.distributions.Gamma(torch.tensor(conc, dtype=torch.float64), torch.tensor(rate, dtype=torch.float64))
    g = tandem.distributions.Gamma(tandem.tensor(conc, dtype=tandem.float64, device=device),
                                   tandem.tensor(rate, dtype=tandem.float64, device=device))
    assert_same(g.cdf(tandem.tensor(value, dtype=tandem.float64, device=device)),
                t.cdf(torch.tensor(value, dtype=torch.float64)), rtol=1e-12, atol=0)
    c = tandem.distributions.Chi2(tandem.tensor([1.0, 3.0, 10.0], device=device))
    tc = torch.distributions.Chi2(torch.tensor([1.0, 3.0, 10.0]))
    assert_same(c.cdf(tandem.tensor(value, device=device)), tc.cdf(torch.tensor(value)), rtol=1e-6, atol=0)
    # differentiable in the value (the gradient flows through rate * value), as PyTorch's
    v = tandem.tensor(value, dtype=tandem.float64, device=device, requires_grad=True)
    g.cdf(v).sum().backward()
    tv = torch.tensor(value, dtype=torch.float64, requires_grad=True)
    t.cdf(tv).sum().backward()
    assert_same(v.grad, tv.grad, rtol=1e-12, atol=0)
    # out of the support: PyTorch's validation error
    with pytest.raises(ValueError):
        g.cdf(tandem.tensor([-1.0, 1.0, 1.0], dtype=tandem.float64, device=device))
    with pytest.raises(ValueError):
        t.cdf(torch.tensor([-1.0, 1.0, 1.0], dtype=torch.float64))


def test_inverse_gamma_cdf_through_the_transform():
    d = tandem.distributions.InverseGamma(tandem.tensor([2.0, 3.5]), tandem.tensor([1.0, 0.5]))
    td = torch.distributions.InverseGamma(torch.tensor([2.0, 3.5]), torch.tensor([1.0, 0.5]))
    assert_same(d.cdf(tandem.tensor([0.7, 0.2])), td.cdf(torch.tensor([0.7, 0.2])), rtol=1e-6, atol=1e-7)
