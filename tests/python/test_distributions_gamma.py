"""The rejection samplers (_standard_gamma, poisson, binomial, _sample_dirichlet, _standard_gamma_grad) and the
gamma families of tandem.distributions (Gamma, Chi2, Beta, Dirichlet, StudentT, Poisson, Binomial,
FisherSnedecor, Kumaraswamy, InverseGamma, VonMises) against PyTorch and against the exact distributions
(scipy.stats): sample moments and goodness of fit with fixed seeds, densities/moments/entropies and KL values in
float64, reparameterised gradients, the same numbers on every device for a seed, and hostile inputs. Every test
runs on every device."""
import math
import re

import numpy as np
import pytest
import scipy.stats
import torch

import tandem
from oracle import assert_same, assert_same_error, from_torch, to_torch

N = 20000  # draws per parameter: mean errors of a few 1e-2 relative, enough for a KS test to see a wrong law


def _gen(device, seed=1234):
    return tandem.Generator(device=device).manual_seed(seed)


def _np(t):
    return to_torch(t).double().numpy()


def _check_moments(samples, mean, var, sigmas=5.0):
    """Sample mean and variance within `sigmas` standard errors of the exact ones."""
    n = samples.shape[0]
    assert abs(samples.mean() - mean) <= sigmas * math.sqrt(var / n) + 1e-12, (samples.mean(), mean)
    # the variance's standard error from the fourth central moment, estimated from the samples
    m4 = ((samples - samples.mean()) ** 4).mean()
    assert abs(samples.var() - var) <= sigmas * math.sqrt(max(m4 - var**2, 1e-30) / n) + 1e-12, (samples.var(), var)


def _chi_square_pvalue(samples, pmf, lo, hi):
    """Pearson's chi-square p-value of integer samples against pmf on lo..hi, the tails pooled into end bins."""
    ks = np.arange(lo, hi + 1)
    probs = pmf(ks)
    probs[0] += pmf(np.arange(0, lo)).sum() if lo > 0 else 0.0
    probs[-1] = 1.0 - probs[:-1].sum()
    counts = np.array([(samples == k).sum() for k in ks], dtype=np.float64)
    counts[0] += (samples < lo).sum()
    counts[-1] += (samples > hi).sum()
    return scipy.stats.chisquare(counts, probs * len(samples)).pvalue


# ---- the samplers' laws ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("alpha", [0.05, 0.4, 1.0, 2.5, 30.0])
def test_standard_gamma_law(device, alpha):
    a = tandem.full((N,), alpha, dtype=tandem.float64, device=device)
    x = _np(tandem._standard_gamma(a, generator=_gen(device)))
    _check_moments(x, alpha, alpha)
    assert scipy.stats.kstest(x, "gamma", args=(alpha,)).pvalue > 1e-3


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_standard_gamma_low_precision_law(device, dtype):
    a = tandem.full((N,), 3.0, dtype=getattr(tandem, dtype), device=device)
    x = tandem._standard_gamma(a, generator=_gen(device))
    assert x.dtype == a.dtype
    xs = _np(x)
    assert abs(xs.mean() - 3.0) < 0.1 and abs(xs.var() - 3.0) < 0.3
    if dtype == "float32":
        assert scipy.stats.kstest(xs, "gamma", args=(3.0,)).pvalue > 1e-3


@pytest.mark.parametrize("rate", [0.3, 4.0, 9.9, 10.0, 37.5, 2000.0])
def test_poisson_law(device, rate):
    r = tandem.full((N,), rate, dtype=tandem.float64, device=device)
    x = _np(tandem.poisson(r, generator=_gen(device)))
    assert np.all(x == np.floor(x)) and np.all(x >= 0)
    _check_moments(x, rate, rate)
    sd = math.sqrt(rate)
    lo, hi = max(0, int(rate - 3 * sd)), int(rate + 3 * sd) + 1
    assert _chi_square_pvalue(x, lambda k: scipy.stats.poisson.pmf(k, rate), lo, hi) > 1e-3


@pytest.mark.parametrize("count,prob", [(10, 0.3), (7, 0.5), (100, 0.4), (40, 0.85), (1000, 0.7), (5000, 0.01)])
def test_binomial_law(device, count, prob):
    c = tandem.full((N,), float(count), dtype=tandem.float64, device=device)
    p = tandem.full((N,), prob, dtype=tandem.float64, device=device)
    x = _np(tandem.binomial(c, p, generator=_gen(device)))
    assert np.all(x == np.floor(x)) and np.all((x >= 0) & (x <= count))
    _check_moments(x, count * prob, count * prob * (1 - prob))
    sd = math.sqrt(count * prob * (1 - prob))
    lo, hi = max(0, int(count * prob - 3 * sd)), min(count, int(count * prob + 3 * sd) + 1)
    assert _chi_square_pvalue(x, lambda k: scipy.stats.binom.pmf(k, count, prob), lo, hi) > 1e-3


def test_sample_dirichlet_law(device):
    alpha = [0.3, 1.0, 4.0]
    a = tandem.tensor([alpha] * N, dtype=tandem.float64, device=device)
    x = _np(tandem._sample_dirichlet(a, generator=_gen(device)))
    np.testing.assert_allclose(x.sum(-1), 1.0, atol=1e-12)
    total = sum(alpha)
    for j, aj in enumerate(alpha):
        # each coordinate is Beta(a_j, total - a_j)
        assert scipy.stats.kstest(x[:, j], "beta", args=(aj, total - aj)).pvalue > 1e-3


def test_a_wrong_law_fails_the_checks():
    """The goodness-of-fit checks above can fail: Gamma(2.5) draws are rejected as Gamma(2.6), Poisson(37.5)
    draws as Poisson(38.5)."""
    g = tandem.full((N,), 2.5, dtype=tandem.float64)
    assert scipy.stats.kstest(_np(tandem._standard_gamma(g, generator=_gen("cpu"))), "gamma", args=(2.6,)).pvalue < 1e-3
    x = _np(tandem.poisson(tandem.full((N,), 37.5, dtype=tandem.float64), generator=_gen("cpu")))
    assert _chi_square_pvalue(x, lambda k: scipy.stats.poisson.pmf(k, 38.5), 20, 57) < 1e-3


# ---- streams: PyTorch's numbers on the CPU, reproducible Philox numbers on CUDA (every ordinal alike) -----------

def test_same_seed_same_numbers_on_every_device(device):
    def draws(dev):
        g = _gen(dev, seed=77)
        alpha = tandem.tensor([0.01, 0.5, 1.0, 3.0, 250.0] * 40, dtype=tandem.float32, device=dev)
        rates = tandem.tensor([0.0, 0.7, 9.0, 11.0, 1e4] * 40, dtype=tandem.float64, device=dev)
        count = tandem.tensor([3.0, 20.0, 500.0, 1e6] * 50, dtype=tandem.float64, device=dev)
        prob = tandem.tensor([0.2, 0.6, 0.05, 0.999] * 50, dtype=tandem.float64, device=dev)
        return [
            tandem._standard_gamma(alpha, generator=g),
            tandem._standard_gamma(alpha.to(tandem.float16), generator=g),
            tandem.poisson(rates, generator=g),
            tandem.binomial(count, prob, generator=g),
            tandem._sample_dirichlet(alpha.reshape(40, 5), generator=g),
        ]

    reference = "cpu" if device == "cpu" else "cuda:0"
    for got, want in zip(draws(device), draws(reference)):
        assert got.device == tandem.device(device)
        assert torch.equal(to_torch(got), to_torch(want))


def test_cpu_gamma_and_poisson_draws_are_pytorchs():
    """The CPU samplers read the MT19937 stream as PyTorch's do (ops/random_cpu_stream.cpp): the same values for
    a seed, through the boost below alpha 1, both Poisson regimes and the Dirichlet normalisation."""
    alpha = [0.01, 0.5, 1.0, 3.0, 250.0] * 8
    rates = [0.0, 0.7, 9.0, 11.0, 1e4] * 8
    for lib in (tandem, torch):
        lib.manual_seed(77)
    for make in (lambda L: L._standard_gamma(L.tensor(alpha)),
                 lambda L: L._standard_gamma(L.tensor(alpha, dtype=L.float64)),
                 lambda L: L.poisson(L.tensor(rates, dtype=L.float64)),
                 lambda L: L._sample_dirichlet(L.tensor(alpha).reshape(8, 5)),
                 lambda L: L.distributions.Beta(L.tensor(0.5), L.tensor(2.0)).sample((30,)),
                 lambda L: L.distributions.StudentT(L.tensor(3.0)).sample((30,))):
        assert make(tandem).tolist() == make(torch).tolist()


def test_cpu_binomial_draws_are_pytorchs_for_infinite_counts():
    """An infinite count runs PyTorch's BTRS (inf or NaN after a few draws, in the float32 kernel's arithmetic or
    float64's), so the draws after it stay PyTorch's."""
    count = [float("inf")] * 6 + [20.0, 100.0, 3.0]
    prob = [0.5, 0.7, 0.2, 0.99, 0.01, 0.4, 0.9, 0.3, 0.2]
    for dtype in ("float32", "float64"):
        got = []
        for lib in (tandem, torch):
            lib.manual_seed(3)
            dt = getattr(lib, dtype)
            got.append(str(lib.binomial(lib.tensor(count, dtype=dt), lib.tensor(prob, dtype=dt)).tolist()))
        assert got[0] == got[1]


def test_draws_advance_the_generator_and_follow_manual_seed(device):
    a = tandem.full((100,), 2.0, device=device)
    tandem.manual_seed(5)
    first, second = tandem._standard_gamma(a), tandem._standard_gamma(a)
    assert not torch.equal(to_torch(first), to_torch(second))
    tandem.manual_seed(5)
    assert torch.equal(to_torch(tandem._standard_gamma(a)), to_torch(first))
    g = _gen(device, 3)
    p1 = tandem.poisson(a, g)  # generator may be positional, as in PyTorch
    assert torch.equal(to_torch(p1), to_torch(tandem.poisson(a, generator=_gen(device, 3))))


def test_strided_and_broadcast_operands(device):
    alpha = tandem.tensor([[1.0, 2.0], [3.0, 4.0]], device=device).t()  # non-contiguous
    assert tuple(tandem._standard_gamma(alpha).shape) == (2, 2)
    out = tandem.binomial(tandem.full((3, 1), 10.0, device=device), tandem.full((2,), 0.5, device=device))
    assert tuple(out.shape) == (3, 2) and out.device == tandem.device(device)
    grad = tandem._standard_gamma_grad(tandem.ones(3, 1, device=device), tandem.ones(2, device=device))
    assert tuple(grad.shape) == (3, 2)


# ---- the reparameterised gradient -----------------------------------------------------------------------------

def test_standard_gamma_grad_matches_torch(device):
    # the three regimes of the formula: x < 0.8 (series), alpha > 8 (saddle point), else the rational fit
    alpha = torch.tensor([0.01, 0.3, 1.0, 2.0, 5.0, 9.0, 20.0, 200.0, 200.0, 3.0, 50.0], dtype=torch.float64)
    x = torch.tensor([1e-4, 0.1, 0.5, 2.0, 7.0, 9.5, 15.0, 200.0, 150.0, 0.79, 50.0], dtype=torch.float64)
    for dtype in [torch.float64, torch.float32]:
        want = torch._standard_gamma_grad(alpha.to(dtype), x.to(dtype))
        got = tandem._standard_gamma_grad(from_torch(alpha.to(dtype), device), from_torch(x.to(dtype), device))
        assert_same(got, want, rtol=1e-5 if dtype == torch.float32 else 1e-10, atol=0)


def test_standard_gamma_backward(device):
    alpha = tandem.tensor([0.3, 1.5, 12.0], dtype=tandem.float64, device=device, requires_grad=True)
    x = tandem._standard_gamma(alpha.expand(N, 3), generator=_gen(device))
    assert x.grad_fn.name() == "StandardGammaBackward0"
    x.sum().backward()
    # each draw's gradient is PyTorch's formula at that draw; their mean estimates d E[x] / d alpha = 1
    want = torch._standard_gamma_grad(to_torch(alpha.detach()).expand(N, 3), to_torch(x.detach())).sum(0)
    assert_same(alpha.grad, want, rtol=1e-9, atol=0)
    np.testing.assert_allclose(_np(alpha.grad) / N, 1.0, rtol=0.05)


@pytest.mark.parametrize("family", ["Gamma", "Beta", "Dirichlet", "Chi2", "InverseGamma"])
def test_rsample_mean_gradient_matches_the_analytic_one(device, family):
    conc = tandem.tensor([2.0, 5.0], dtype=tandem.float64, device=device, requires_grad=True)
    other = tandem.tensor([1.5, 3.0], dtype=tandem.float64, device=device, requires_grad=True)
    D = tandem.distributions
    tandem.manual_seed(11)
    if family == "Gamma":
        d, analytic = D.Gamma(conc, other), lambda c, r: c / r
    elif family == "Beta":
        d, analytic = D.Beta(conc, other), lambda c, r: c / (c + r)
    elif family == "Dirichlet":
        d, analytic = D.Dirichlet(tandem.stack([conc, other], -1)), lambda c, r: c / (c + r)
    elif family == "Chi2":
        d, analytic = D.Chi2(conc), lambda c, r: c + 0 * r
    else:
        d, analytic = D.InverseGamma(conc + 2, other), lambda c, r: r / (c + 1)
    sample = d.rsample((N,))
    if family == "Dirichlet":
        sample = sample[..., 0]
    sample.mean(0).sum().backward()
    c, r = torch.tensor([2.0, 5.0], dtype=torch.float64, requires_grad=True), torch.tensor(
        [1.5, 3.0], dtype=torch.float64, requires_grad=True)
    analytic(c, r).sum().backward()
    np.testing.assert_allclose(_np(conc.grad), c.grad.numpy(), rtol=0.08, atol=0.01)
    if family != "Chi2":
        np.testing.assert_allclose(_np(other.grad), r.grad.numpy(), rtol=0.08, atol=0.01)


def test_poisson_has_a_zero_gradient(device):
    rate = tandem.tensor([1.0, 20.0], device=device, requires_grad=True)
    out = tandem.poisson(rate)
    assert out.grad_fn.name() == "PoissonBackward0"
    out.sum().backward()
    assert rate.grad.tolist() == [0.0, 0.0]


# ---- hostile inputs --------------------------------------------------------------------------------------------

def test_standard_gamma_edge_values_match_torch(device):
    alpha = [-1.0, 0.0, float("nan"), float("inf"), -float("inf")]
    for dtype in [torch.float32, torch.float64]:
        want = torch._standard_gamma(torch.tensor(alpha, dtype=dtype))
        assert_same(tandem._standard_gamma(from_torch(torch.tensor(alpha, dtype=dtype), device)), want)
    half = tandem._standard_gamma(tandem.tensor([0.0, 1e-3], dtype=tandem.float16, device=device))
    assert half.tolist() == [2.0**-14, 2.0**-14]  # the smallest normal half, as PyTorch's CUDA kernel


def test_poisson_and_binomial_edge_values(device):
    got = tandem.poisson(tandem.tensor([0.0, float("inf")], dtype=tandem.float64, device=device))
    assert got.tolist() == [0.0, float("inf")]  # PyTorch: 0 and -2^63 cast to the dtype
    count = tandem.tensor([-3.0, 0.0, 10.0, 10.0, 10.0, 10.0, float("nan"), float("inf")], device=device)
    prob = tandem.tensor([0.5, 0.5, 0.0, 1.0, 1.5, -0.2, 0.5, 0.5], device=device)
    out = tandem.binomial(count, prob).tolist()
    assert out[:6] == [0.0, 0.0, 0.0, 10.0, 10.0, 0.0]  # PyTorch's values
    assert math.isnan(out[6])  # PyTorch never returns on a NaN count
    assert out[7] == float("inf") or math.isnan(out[7])  # PyTorch's BTRS: inf, or NaN for a negative candidate
    nan_prob = tandem.binomial(tandem.tensor([10.0], device=device), tandem.tensor([float("nan")], device=device))
    assert math.isnan(nan_prob.item())


def test_dirichlet_edge_values_match_torch(device):
    alpha = torch.tensor([[0.0, 0.0], [float("inf"), 1.0], [float("nan"), -1.0]])
    assert_same(tandem._sample_dirichlet(from_torch(alpha, device)), torch._sample_dirichlet(alpha))
    scalar = tandem._sample_dirichlet(tandem.tensor(2.0, device=device))
    assert scalar.item() == torch._sample_dirichlet(torch.tensor(2.0)).item()


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)])
def test_empty_inputs(device, shape):
    e = tandem.empty(shape, device=device)
    for out in [tandem._standard_gamma(e), tandem.poisson(e), tandem.binomial(e, e), tandem._sample_dirichlet(e),
                tandem._standard_gamma_grad(e, e)]:
        assert tuple(out.shape) == shape and out.dtype == tandem.float32 and out.device == tandem.device(device)


def _on(lib, device):
    """Moves a tensor to the case's device (tandem) or leaves it on the CPU (PyTorch, the oracle)."""
    return (lambda t: t.to(device)) if lib is tandem else (lambda t: t)


@pytest.mark.parametrize("case", [
    lambda lib, on: lib._standard_gamma(on(lib.tensor([1, 2]))),
    lambda lib, on: lib._standard_gamma(on(lib.tensor([True]))),
    lambda lib, on: lib.poisson(on(lib.tensor([1, 2]))),
    lambda lib, on: lib.poisson(on(lib.tensor([-1.0, 2.0]))),
    lambda lib, on: lib.poisson(on(lib.tensor([float("nan")]))),
    lambda lib, on: lib.binomial(on(lib.tensor([10, 5])), on(lib.tensor([0.5, 0.2]))),
    lambda lib, on: lib.binomial(on(lib.tensor([10.0, 5.0])), on(lib.tensor([1, 0]))),
    lambda lib, on: lib.binomial(on(lib.tensor([10.0])), on(lib.tensor([0.5], dtype=lib.float64))),
    lambda lib, on: lib._sample_dirichlet(on(lib.tensor([1, 2]))),
    lambda lib, on: lib._standard_gamma_grad(on(lib.tensor([1, 2])), on(lib.tensor([1, 2]))),
    lambda lib, on: lib._standard_gamma_grad(on(lib.ones(2, dtype=lib.float64)), on(lib.ones(2))),
])
def test_errors_match_torch(device, case):
    assert_same_error(lambda lib: case(lib, _on(lib, device)))


def test_generator_for_another_device_type_is_refused(device):
    if device == "cpu":
        return
    with pytest.raises(RuntimeError, match="device type for generator"):
        tandem.poisson(tandem.ones(2, device=device), generator=tandem.Generator())


# ---- the distribution families against torch.distributions ---------------------------------------------------

G = torch.Generator().manual_seed(99)


def _rand(*shape, low=0.0, high=1.0):
    return torch.rand(*shape, generator=G, dtype=torch.float64) * (high - low) + low


# name -> (parameters, values in the support)
FAMILIES = {
    "Gamma": (lambda: {"concentration": _rand(2, 3, low=0.5, high=4), "rate": _rand(2, 3, low=0.5, high=2)},
              lambda: _rand(4, 2, 3, low=0.1, high=5)),
    "Chi2": (lambda: {"df": _rand(3, low=0.5, high=6)}, lambda: _rand(5, 3, low=0.1, high=5)),
    "Beta": (lambda: {"concentration1": _rand(3, low=0.5, high=4), "concentration0": _rand(3, low=0.5, high=4)},
             lambda: _rand(5, 3, low=0.05, high=0.95)),
    "Dirichlet": (lambda: {"concentration": _rand(2, 4, low=0.5, high=3)},
                  lambda: torch.softmax(_rand(5, 2, 4, low=-2, high=2), -1)),
    "StudentT": (lambda: {"df": _rand(4, low=0.5, high=6), "loc": _rand(4, low=-1, high=1),
                          "scale": _rand(4, low=0.5, high=2)}, lambda: _rand(3, 4, low=-4, high=4)),
    "Poisson": (lambda: {"rate": _rand(3, low=0.5, high=20)}, lambda: torch.randint(0, 25, (5, 3), generator=G).double()),
    "Binomial": (lambda: {"total_count": torch.tensor([5.0, 10.0, 20.0], dtype=torch.float64),
                          "probs": _rand(3, low=0.1, high=0.9)}, lambda: torch.randint(0, 6, (4, 3), generator=G).double()),
    "Binomial_logits": (lambda: {"total_count": 10, "logits": _rand(3, low=-3, high=3)},
                        lambda: torch.randint(0, 11, (4, 3), generator=G).double()),
    "FisherSnedecor": (lambda: {"df1": _rand(3, low=1, high=8), "df2": _rand(3, low=1, high=9)},
                       lambda: _rand(4, 3, low=0.1, high=4)),
    "Kumaraswamy": (lambda: {"concentration1": _rand(3, low=0.5, high=4), "concentration0": _rand(3, low=0.5, high=4)},
                    lambda: _rand(4, 3, low=0.05, high=0.95)),
    "InverseGamma": (lambda: {"concentration": _rand(3, low=0.5, high=4), "rate": _rand(3, low=0.5, high=2)},
                     lambda: _rand(4, 3, low=0.1, high=5)),
    "VonMises": (lambda: {"loc": _rand(3, low=-3, high=3), "concentration": _rand(3, low=0.2, high=8)},
                 lambda: _rand(4, 3, low=-3, high=3)),
}
CACHED = {name: (params(), values()) for name, (params, values) in FAMILIES.items()}


def _build(lib, name, params, device=None):
    cls = getattr(lib.distributions, name.split("_")[0])
    conv = (lambda v: from_torch(v, device) if isinstance(v, torch.Tensor) else v) if lib is tandem else (lambda v: v)
    return cls(**{k: conv(v) for k, v in params.items()})


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_matches_torch(device, name):
    params, values = CACHED[name]
    theirs, ours = _build(torch, name, params), _build(tandem, name, params, device)
    assert ours.batch_shape == tuple(theirs.batch_shape) and ours.event_shape == tuple(theirs.event_shape)
    assert re.sub(r", device='cuda:\d'", "", repr(ours.support).replace("tandem.", "torch.")) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    assert_same(ours.log_prob(from_torch(values, device)), theirs.log_prob(values), rtol=1e-9, atol=1e-9)
    for prop in ["mean", "variance", "mode"]:
        assert_same(getattr(ours, prop), getattr(theirs, prop), rtol=1e-9, atol=1e-9)
    # PyTorch has no entropy for the first three; Binomial's needs one total_count (its own test below)
    if name not in ("FisherSnedecor", "VonMises", "Poisson", "Binomial"):
        assert_same(ours.entropy(), theirs.entropy(), rtol=1e-7, atol=1e-9)
    expanded = ours.expand((2,) + tuple(ours.batch_shape))
    assert expanded.batch_shape == (2,) + tuple(ours.batch_shape)
    x = ours.sample((6,))
    assert tuple(x.shape) == (6,) + tuple(theirs.batch_shape + theirs.event_shape)
    assert x.device == tandem.device(device) and x.dtype == tandem.float64
    assert bool(ours.support.check(x).all())


@pytest.mark.parametrize("name", ["Gamma", "Beta", "StudentT", "Kumaraswamy", "FisherSnedecor", "InverseGamma"])
def test_family_samples_follow_the_law(device, name):
    params, _ = CACHED[name]
    first = {k: v.reshape(-1)[:1] if isinstance(v, torch.Tensor) else v for k, v in params.items()}
    d, t = _build(tandem, name, first, device), _build(torch, name, first)
    tandem.manual_seed(3)
    x = d.sample((N,)).reshape(N, -1)[:, 0]
    # KS against the exact cdf, computed through PyTorch's (or scipy's) closed form of the same law
    cdf = {
        "Gamma": lambda v: scipy.stats.gamma.cdf(v, t.concentration.item(), scale=1 / t.rate.item()),
        "Beta": lambda v: scipy.stats.beta.cdf(v, t.concentration1.item(), t.concentration0.item()),
        "StudentT": lambda v: scipy.stats.t.cdf(v, t.df.item(), t.loc.item(), t.scale.item()),
        "Kumaraswamy": lambda v: 1 - (1 - v ** t.concentration1.item()) ** t.concentration0.item(),
        "FisherSnedecor": lambda v: scipy.stats.f.cdf(v, t.df1.item(), t.df2.item()),
        "InverseGamma": lambda v: scipy.stats.invgamma.cdf(v, t.concentration.item(), scale=t.rate.item()),
    }[name]
    assert scipy.stats.kstest(_np(x), cdf).pvalue > 1e-3


def test_von_mises_samples(device):
    # loc 0: scipy's von Mises lives on [loc - pi, loc + pi], the samples on [-pi, pi]
    d = tandem.distributions.VonMises(tandem.tensor([0.0], dtype=tandem.float64, device=device),
                                      tandem.tensor([2.0], dtype=tandem.float64, device=device))
    tandem.manual_seed(4)
    x = _np(d.sample((N,)))[:, 0]
    assert np.all((x >= -math.pi) & (x <= math.pi))
    assert scipy.stats.kstest(x, scipy.stats.vonmises(2.0).cdf).pvalue > 1e-3


def test_binomial_entropy_and_enumerate_support(device):
    params = {"total_count": 6.0, "probs": torch.tensor([0.2, 0.7], dtype=torch.float64)}
    theirs, ours = _build(torch, "Binomial", params), _build(tandem, "Binomial", params, device)
    assert_same(ours.entropy(), theirs.entropy(), rtol=1e-9, atol=1e-12)
    assert_same(ours.enumerate_support(), theirs.enumerate_support())


def test_validation_errors_match_torch(device):
    for case in [
        lambda lib: lib.distributions.Gamma(lib.tensor([-1.0]), lib.tensor([1.0]), validate_args=True),
        lambda lib: lib.distributions.Beta(lib.tensor([1.0]), lib.tensor([0.0]), validate_args=True),
        lambda lib: lib.distributions.Poisson(lib.tensor([-0.5]), validate_args=True),
        lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
        lambda lib: lib.distributions.Binomial(10, probs=lib.tensor([0.5]), logits=lib.tensor([0.0])),
        lambda lib: lib.distributions.Poisson(lib.tensor([1.0]), validate_args=True).log_prob(lib.tensor([0.5])),
    ]:
        assert_same_error(case)


KL_PAIRS = [
    ("Gamma", "Gamma"), ("Beta", "Beta"), ("Dirichlet", "Dirichlet"), ("Poisson", "Poisson"), ("Binomial", "Binomial"),
    ("Beta", "Gamma"), ("Beta", "Normal"), ("Beta", "Exponential"), ("Beta", "Uniform"), ("Beta", "Pareto"),
    ("Beta", "ContinuousBernoulli"), ("Gamma", "Exponential"), ("Gamma", "Normal"), ("Gamma", "Gumbel"),
    ("Gamma", "Beta"), ("Gamma", "Uniform"), ("Exponential", "Gamma"), ("Exponential", "Beta"), ("Normal", "Gamma"),
    ("Laplace", "Beta"), ("Gumbel", "Gamma"), ("Pareto", "Gamma"), ("Pareto", "Beta"), ("Uniform", "Beta"),
    ("Uniform", "Gamma"), ("Bernoulli", "Poisson"), ("Poisson", "Bernoulli"), ("Poisson", "Binomial"),
    ("Chi2", "Gamma"),
]
KL_PARAMS = {
    "Gamma": lambda: {"concentration": _rand(3, low=0.5, high=3), "rate": _rand(3, low=0.5, high=2)},
    "Chi2": lambda: {"df": _rand(3, low=1, high=5)},
    "Beta": lambda: {"concentration1": _rand(3, low=0.5, high=3), "concentration0": _rand(3, low=0.5, high=3)},
    "Dirichlet": lambda: {"concentration": _rand(3, 4, low=0.5, high=3)},
    "Poisson": lambda: {"rate": _rand(3, low=0.5, high=5)},
    "Binomial": lambda: {"total_count": 8.0, "probs": _rand(3, low=0.1, high=0.9)},
    "Normal": lambda: {"loc": _rand(3, low=-1, high=1), "scale": _rand(3, low=0.5, high=2)},
    "Laplace": lambda: {"loc": _rand(3, low=-1, high=1), "scale": _rand(3, low=0.5, high=2)},
    "Gumbel": lambda: {"loc": _rand(3, low=-1, high=1), "scale": _rand(3, low=0.5, high=2)},
    "Exponential": lambda: {"rate": _rand(3, low=0.5, high=2)},
    "Uniform": lambda: {"low": _rand(3, low=0.05, high=0.3), "high": _rand(3, low=0.5, high=0.9)},
    "Pareto": lambda: {"scale": _rand(3, low=0.5, high=1), "alpha": _rand(3, low=0.5, high=3)},
    "ContinuousBernoulli": lambda: {"probs": _rand(3, low=0.1, high=0.9)},
    "Bernoulli": lambda: {"probs": _rand(3, low=0.1, high=0.9)},
}
KL_CACHED = {name: make() for name, make in KL_PARAMS.items()}


@pytest.mark.parametrize("p_name,q_name", KL_PAIRS)
def test_kl_matches_torch(device, p_name, q_name):
    p_params, q_params = KL_CACHED[p_name], KL_CACHED[q_name]
    want = torch.distributions.kl_divergence(_build(torch, p_name, p_params), _build(torch, q_name, q_params))
    got = tandem.distributions.kl_divergence(_build(tandem, p_name, p_params, device),
                                             _build(tandem, q_name, q_params, device))
    assert_same(got, want, rtol=1e-8, atol=1e-10)


def test_cpu_binomial_draws_are_pytorchs():
    """PyTorch's inversion and BTRS samplers on the MT19937 stream, float32 arithmetic where its float kernel
    has it: the same counts for a seed, over both regimes and both sides of p = 0.5."""
    counts = [10.0, 30.0, 100.0, 1000.0, 5.0, 1e6, 50.0, 0.0, 20.0, 3.0] * 30
    probs = [0.3, 0.5, 0.05, 0.9, 0.99, 0.2, 0.7, 0.5, 1.0, 0.01] * 30
    for dtype in ("float32", "float64"):
        got, want = [], []
        for lib, out in ((tandem, got), (torch, want)):
            lib.manual_seed(21)
            out.append(lib.binomial(lib.tensor(counts, dtype=getattr(lib, dtype)),
                                    lib.tensor(probs, dtype=getattr(lib, dtype))).tolist())
            out.append(lib.distributions.Binomial(40, lib.tensor([0.25, 0.75])).sample((20,)).tolist())
        assert got == want, dtype
