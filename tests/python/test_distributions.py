"""tandem.distributions against torch.distributions: densities, moments, entropies and cdfs evaluated on the same
parameters and values; shapes, supports, validation errors; gradients through log_prob and rsample; sampling
statistics with fixed seeds. Every test runs on every device."""
import math

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, from_torch

G = torch.Generator().manual_seed(1234)


def _rand(*shape, low=0.0, high=1.0):
    return torch.rand(*shape, generator=G, dtype=torch.float64) * (high - low) + low


def _randn(*shape):
    return torch.randn(*shape, generator=G, dtype=torch.float64)


def _spd(n, *batch):
    a = _randn(*batch, n, n)
    return a @ a.mT + n * torch.eye(n, dtype=torch.float64)


# name -> (parameters as torch tensors, values in the support, kwargs passed through unchanged)
CASES = {
    "Normal": (lambda: {"loc": _randn(2, 3), "scale": _rand(2, 3, low=0.5, high=2)}, lambda: _randn(4, 2, 3)),
    "Laplace": (lambda: {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, lambda: _randn(5, 3)),
    "Cauchy": (lambda: {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, lambda: _randn(5, 3)),
    "Uniform": (lambda: {"low": _rand(3, low=-2, high=-1), "high": _rand(3, low=1, high=2)},
                lambda: _rand(5, 3, low=-1, high=1)),
    "Exponential": (lambda: {"rate": _rand(2, 3, low=0.5, high=2)}, lambda: _rand(4, 2, 3, high=3)),
    "LogNormal": (lambda: {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, lambda: _rand(5, 3, low=0.1, high=4)),
    "Bernoulli": (lambda: {"probs": _rand(4, low=0.05, high=0.95)}, lambda: (_rand(3, 4) > 0.5).double()),
    # a zero logit checks the gradient at probs 1/2, where the log-sum-exp form has kinks
    "Bernoulli_logits": (lambda: {"logits": torch.cat([_randn(3), torch.zeros(1, dtype=torch.float64)])},
                         lambda: (_rand(3, 4) > 0.5).double()),
    "Geometric": (lambda: {"probs": _rand(4, low=0.1, high=0.9)}, lambda: torch.floor(_rand(3, 4, high=6))),
    "Categorical": (lambda: {"probs": _rand(2, 5, low=0.1, high=1)}, lambda: torch.randint(0, 5, (3, 2), generator=G)),
    "Categorical_logits": (lambda: {"logits": _randn(2, 5)}, lambda: torch.randint(0, 5, (3, 2), generator=G)),
    "OneHotCategorical": (lambda: {"logits": _randn(2, 4)},
                          lambda: torch.nn.functional.one_hot(torch.randint(0, 4, (3, 2), generator=G), 4).double()),
    "MultivariateNormal": (lambda: {"loc": _randn(2, 3), "covariance_matrix": _spd(3, 2)}, lambda: _randn(4, 2, 3)),
    "MultivariateNormal_tril": (lambda: {"loc": _randn(3), "scale_tril": torch.linalg.cholesky(_spd(3, 2))},
                                lambda: _randn(4, 2, 3)),
    "MultivariateNormal_prec": (lambda: {"loc": _randn(3), "precision_matrix": _spd(3)}, lambda: _randn(4, 3)),
    "HalfNormal": (lambda: {"scale": _rand(3, low=0.5, high=2)}, lambda: _rand(5, 3, high=3)),
    "HalfCauchy": (lambda: {"scale": _rand(3, low=0.5, high=2)}, lambda: _rand(5, 3, high=3)),
    "Gumbel": (lambda: {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, lambda: _randn(5, 3)),
    "Pareto": (lambda: {"scale": _rand(3, low=0.5, high=1), "alpha": _rand(3, low=0.5, high=4)},
               lambda: _rand(5, 3, low=1, high=4)),
    "ContinuousBernoulli": (lambda: {"probs": torch.tensor([0.1, 0.4995, 0.5, 0.7, 0.98], dtype=torch.float64)},
                            lambda: _rand(3, 5, low=0.01, high=0.99)),
    "ContinuousBernoulli_logits": (lambda: {"logits": torch.tensor([-3.0, -0.001, 0.0, 1.0], dtype=torch.float64)},
                                   lambda: _rand(3, 4, low=0.01, high=0.99)),
    "LowRankMultivariateNormal": (lambda: {"loc": _randn(2, 4), "cov_factor": _randn(4, 2),
                                           "cov_diag": _rand(2, 4, low=0.5, high=2)}, lambda: _randn(3, 2, 4)),
    "LogisticNormal": (lambda: {"loc": _randn(2, 3), "scale": _rand(2, 3, low=0.5, high=1.5)},
                       lambda: torch.softmax(_randn(5, 2, 4), -1)),
    "RelaxedBernoulli": (lambda: {"temperature": _rand((), low=0.3, high=1), "probs": _rand(3, low=0.1, high=0.9)},
                         lambda: _rand(4, 3, low=0.05, high=0.95)),
    "RelaxedOneHotCategorical": (lambda: {"temperature": _rand((), low=0.3, high=1), "logits": _randn(2, 3)},
                                 lambda: torch.softmax(_randn(4, 2, 3), -1)),
}

PARAMS = {name: make() for name, (make, _) in CASES.items()}
VALUES = {name: CASES[name][1]() for name in CASES}



def _family(name):
    return name.split("_")[0]


def build(lib, name, device="cpu", requires_grad=False):
    """The distribution ``name`` from library ``lib`` (torch or tandem) on the shared parameters."""
    params = {}
    for key, value in PARAMS[name].items():
        v = value.clone() if lib is torch else from_torch(value, device)
        if requires_grad:
            v.requires_grad_()
        params[key] = v
    return getattr(lib.distributions, _family(name))(**params), params


def value_for(lib, name, device):
    v = VALUES[name]
    return v.clone() if lib is torch else from_torch(v, device)


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_matches_torch(name, device):
    d, _ = build(tandem, name, device)
    e, _ = build(torch, name)
    got = d.log_prob(value_for(tandem, name, device))
    assert_same(got, e.log_prob(value_for(torch, name, device)), device=device)
    assert tuple(d.batch_shape) == tuple(e.batch_shape)
    assert tuple(d.event_shape) == tuple(e.event_shape)
    assert repr(d) == repr(e).replace("torch.Size", "tandem.Size")


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_gradients_match_torch(name, device):
    d, params = build(tandem, name, device, requires_grad=True)
    e, tparams = build(torch, name, requires_grad=True)
    d.log_prob(value_for(tandem, name, device)).sum().backward()
    e.log_prob(value_for(torch, name, device)).sum().backward()
    for key in params:
        assert_same(params[key].grad, tparams[key].grad, device=device)


MOMENTS = ["mean", "mode", "variance", "stddev"]


def _moment(d, attr):
    """The moment, or the type of the exception asking for it raises (PyTorch has no mode for some families)."""
    try:
        return getattr(d, attr)
    except NotImplementedError:
        return NotImplementedError


@pytest.mark.parametrize("name", sorted(n for n in CASES if not n.startswith(("Relaxed", "LogisticNormal"))))
def test_moments_and_entropy_match_torch(name, device):
    d, _ = build(tandem, name, device)
    e, _ = build(torch, name)
    for attr in MOMENTS:
        mine, theirs = _moment(d, attr), _moment(e, attr)
        if theirs is NotImplementedError:
            assert mine is NotImplementedError, attr
        else:
            assert_same(mine, theirs, device=device)
    assert_same(d.entropy(), e.entropy(), device=device)
    assert_same(d.perplexity(), e.perplexity(), device=device)


@pytest.mark.parametrize("name", ["Normal", "Laplace", "Cauchy", "Uniform", "Exponential", "LogNormal",
                                  "HalfNormal", "HalfCauchy", "Gumbel", "Pareto", "ContinuousBernoulli"])
def test_cdf_icdf_match_torch(name, device):
    d, _ = build(tandem, name, device)
    e, _ = build(torch, name)
    assert_same(d.cdf(value_for(tandem, name, device)), e.cdf(value_for(torch, name, device)), device=device)
    q = _rand(5, *e.batch_shape, low=0.05, high=0.95)
    assert_same(d.icdf(from_torch(q, device)), e.icdf(q), device=device)
    # icdf inverts cdf
    assert_same(d.cdf(d.icdf(from_torch(q, device))), q, device=device)


@pytest.mark.parametrize("name", sorted(CASES))
def test_sample_shapes_dtype_device(name, device):
    d, _ = build(tandem, name, device)
    e, _ = build(torch, name)
    tandem.manual_seed(0)
    for sample_shape in [(), (2,), (2, 3)]:
        s = d.sample(sample_shape)
        want = e.sample(sample_shape)
        assert tuple(s.shape) == tuple(want.shape)
        assert s.dtype == getattr(tandem, str(want.dtype).split(".")[-1])
        assert str(s.device) == device
        assert not s.requires_grad
        assert bool(d.support.check(s).all()), name
    assert d.has_rsample == e.has_rsample
    if d.has_rsample:
        assert tuple(d.rsample((2,)).shape) == tuple(e.rsample((2,)).shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_support_and_arg_constraints_repr(name):
    d, _ = build(tandem, name)
    e, _ = build(torch, name)
    assert repr(d.support) == repr(e.support).replace("torch.", "tandem.")
    assert d.support.event_dim == e.support.event_dim and d.support.is_discrete == e.support.is_discrete
    want = {k: repr(v).replace("torch.", "tandem.") for k, v in e.arg_constraints.items()}
    assert {k: repr(v) for k, v in d.arg_constraints.items()} == want


@pytest.mark.parametrize("name", sorted(CASES))
def test_expand(name, device):
    d, _ = build(tandem, name, device)
    e, _ = build(torch, name)
    new_batch = (2,) + tuple(e.batch_shape)
    de, ee = d.expand(new_batch), e.expand(new_batch)
    assert type(de) is type(d)
    assert tuple(de.batch_shape) == tuple(ee.batch_shape) and tuple(de.event_shape) == tuple(ee.event_shape)
    v = VALUES[name]
    v = v.unsqueeze(v.dim() - len(e.batch_shape) - len(e.event_shape))  # broadcasts against the new batch dim
    assert_same(de.log_prob(from_torch(v, device)), ee.log_prob(v), device=device)
    assert tuple(de.sample((3,)).shape) == tuple(ee.sample((3,)).shape)


@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical"])
def test_enumerate_support(name, device):
    d, _ = build(tandem, name, device)
    e, _ = build(torch, name)
    assert d.has_enumerate_support and e.has_enumerate_support
    for expand in (True, False):
        assert_same(d.enumerate_support(expand), e.enumerate_support(expand), device=device)
    assert_same(d.log_prob(d.enumerate_support()), e.log_prob(e.enumerate_support()), device=device)


@pytest.mark.parametrize("name", ["Normal", "Laplace", "Cauchy", "Uniform", "Exponential", "LogNormal",
                                  "MultivariateNormal", "RelaxedBernoulli", "RelaxedOneHotCategorical",
                                  "HalfNormal", "Gumbel", "Pareto", "ContinuousBernoulli",
                                  "LowRankMultivariateNormal", "LogisticNormal"])
def test_rsample_gradients_are_pathwise(name, device):
    """Gradients of rsample match finite differences of the same draw (re-seeded) in float64."""
    d, params = build(tandem, name, device, requires_grad=True)
    tandem.manual_seed(7)
    s = d.rsample((3,))
    weights = tandem.linspace(-1, 1, s.numel(), dtype=tandem.float64, device=device).reshape(s.shape)
    (s * weights).sum().backward()
    for key, p in params.items():
        if key in ("covariance_matrix",):
            continue  # perturbing one entry of a symmetric matrix is not what autograd differentiates
        flat = p.detach().flatten()
        grad = p.grad.flatten().tolist()
        for i in range(min(3, flat.numel())):
            h = 1e-6
            vals = []
            for sign in (1, -1):
                q = {k: v.detach() for k, v in params.items()}
                bumped = flat.clone()
                bumped[i] = flat[i] + sign * h
                q[key] = bumped.reshape(p.shape)
                tandem.manual_seed(7)
                x = getattr(tandem.distributions, _family(name))(**q).rsample((3,))
                vals.append(float((x * weights).sum()))
            assert abs((vals[0] - vals[1]) / (2 * h) - grad[i]) < 1e-5 * max(1.0, abs(grad[i])), (key, i)


@pytest.mark.parametrize("device_seed", [0, 1])
def test_sampling_statistics(device, device_seed):
    """Sample means and variances land within ~5 standard errors of the exact moments."""
    tandem.manual_seed(device_seed)
    n = 20000
    f64 = {"dtype": tandem.float64, "device": device}
    D = tandem.distributions
    cases = [
        D.Normal(tandem.tensor([0.5, -2.0], **f64), tandem.tensor([1.5, 0.3], **f64)),
        D.Laplace(tandem.tensor([1.0], **f64), tandem.tensor([2.0], **f64)),
        D.Uniform(tandem.tensor([-1.0], **f64), tandem.tensor([3.0], **f64)),
        D.Exponential(tandem.tensor([0.5, 4.0], **f64)),
        D.Bernoulli(tandem.tensor([0.2, 0.9], **f64)),
        D.Geometric(tandem.tensor([0.3, 0.7], **f64)),
        D.OneHotCategorical(tandem.tensor([0.1, 0.2, 0.7], **f64)),
        D.LogNormal(tandem.tensor([0.0], **f64), tandem.tensor([0.5], **f64)),
        D.HalfNormal(tandem.tensor([0.7, 2.0], **f64)),
        D.Gumbel(tandem.tensor([1.0, -2.0], **f64), tandem.tensor([0.5, 2.0], **f64)),
        D.Pareto(tandem.tensor([1.0], **f64), tandem.tensor([8.0], **f64)),
        D.ContinuousBernoulli(tandem.tensor([0.2, 0.5, 0.9], **f64)),
        D.GeneralizedPareto(tandem.tensor([0.5, -1.0, 0.0], **f64), tandem.tensor([1.0, 2.0, 0.5], **f64),
                            tandem.tensor([0.0, 0.02, -0.5], **f64)),  # light tails: variance converges
        D.LowRankMultivariateNormal(tandem.tensor([1.0, -1.0, 0.0], **f64),
                                    tandem.tensor([[1.0], [0.5], [-1.0]], **f64),
                                    tandem.tensor([0.5, 1.0, 2.0], **f64)),
        D.MixtureSameFamily(D.Categorical(tandem.tensor([0.3, 0.7], **f64)),
                            D.Normal(tandem.tensor([-2.0, 1.0], **f64), tandem.tensor([0.5, 1.0], **f64))),
        D.MultivariateNormal(tandem.tensor([1.0, -1.0], **f64),
                             tandem.tensor([[2.0, 0.6], [0.6, 1.0]], **f64)),
    ]
    for dist in cases:
        s = dist.sample((n,))
        mean, var = dist.mean, dist.variance
        se_mean = (var / n).sqrt()
        assert bool(((s.mean(0) - mean).abs() < 5 * se_mean + 1e-12).all()), (dist, s.mean(0), mean)
        # the sample variance's standard error is at most ~sqrt(kurtosis/n) * var; 10% is well beyond it here
        assert bool(((s.var(0) - var).abs() < 0.1 * var + 1e-12).all()), (dist, s.var(0), var)
    c = D.Categorical(tandem.tensor([0.1, 0.2, 0.7], **f64))
    counts = tandem.nn.functional.one_hot(c.sample((n,)), 3).sum(0).double() / n
    assert bool(((counts - c.probs).abs() < 0.015).all()), counts
    cauchy = D.Cauchy(tandem.tensor([2.0], **f64), tandem.tensor([0.5], **f64)).sample((n,))
    # the mean does not exist: half the mass lies below loc, half within loc +- scale (standard error 0.0035)
    assert abs(float((cauchy < 2.0).double().mean()) - 0.5) < 0.02
    assert abs(float(((cauchy - 2.0).abs() < 0.5).double().mean()) - 0.5) < 0.02
    mvn = cases[-1].sample((n,))
    cov = float(((mvn[:, 0] - 1.0) * (mvn[:, 1] + 1.0)).mean())
    assert abs(cov - 0.6) < 0.06


# concentration 0 (the exponential limit), positive with and without finite moments, and negative (bounded
# support). PyTorch 2.15's GeneralizedPareto fails on float64 parameters (its isclose compares with a float32
# zero), so the comparison runs in float32.
GP = {"loc": torch.tensor([0.3, -1.0, 0.5, 2.0, 0.0]), "scale": torch.tensor([1.0, 2.0, 0.5, 1.5, 0.8]),
      "concentration": torch.tensor([0.0, 0.3, 0.7, 1.2, -0.4])}
GP_Z = torch.rand(4, 5, generator=G) * 0.95 + 0.05  # standard draws; for c = -0.4 the support ends at z = 2.5


def test_generalized_pareto_matches_torch(device):
    mine = {k: from_torch(v, device).requires_grad_() for k, v in GP.items()}
    theirs = {k: v.clone().requires_grad_() for k, v in GP.items()}
    d, e = tandem.distributions.GeneralizedPareto(**mine), torch.distributions.GeneralizedPareto(**theirs)
    v = GP["loc"] + GP["scale"] * GP_Z
    assert_same(d.log_prob(from_torch(v, device)), e.log_prob(v), device=device)
    assert_same(d.cdf(from_torch(v, device)), e.cdf(v), device=device)
    q = GP_Z * 0.9
    assert_same(d.icdf(from_torch(q, device)), e.icdf(q), device=device)
    for attr in ["mean", "mode", "variance", "stddev"]:
        assert_same(getattr(d, attr), getattr(e, attr), device=device)
    assert_same(d.entropy(), e.entropy(), device=device)
    assert repr(d) == repr(e).replace("torch.Size", "tandem.Size")
    if device == "cpu":  # the bounds print their device otherwise
        assert repr(d.support) == repr(e.support)
    assert d.has_rsample and tuple(d.expand((3, 5)).rsample((2,)).shape) == (2, 3, 5)
    d.log_prob(from_torch(v, device)).sum().backward()
    e.log_prob(v).sum().backward()
    for k in ["loc", "scale"]:
        assert_same(mine[k].grad, theirs[k].grad, device=device)
    got_c, want_c = mine["concentration"].grad, theirs["concentration"].grad.clone()
    # at c = 0 PyTorch's gradient in c is 0; ours is the limit's true derivative sum(z^2 / 2 - z)
    z = GP_Z[:, 0]
    want_c[0] = (z.pow(2) / 2 - z).sum()
    assert_same(got_c, want_c, device=device)


def test_generalized_pareto_gradients_at_zero_concentration_match_finite_differences(device):
    D = tandem.distributions
    f64 = {"dtype": tandem.float64, "device": device}
    v = tandem.tensor([0.2, 1.5, 4.0], **f64)
    u = tandem.tensor([0.1, 0.5, 0.95], **f64)
    for fn in (lambda d: d.log_prob(v), lambda d: d.cdf(v), lambda d: d.icdf(u)):
        c = tandem.zeros(3, **f64).requires_grad_()
        fn(D.GeneralizedPareto(tandem.zeros(3, **f64), tandem.ones(3, **f64), c)).sum().backward()
        h = 1e-6
        plus = fn(D.GeneralizedPareto(tandem.zeros(3, **f64), tandem.ones(3, **f64), tandem.full((3,), h, **f64)))
        minus = fn(D.GeneralizedPareto(tandem.zeros(3, **f64), tandem.ones(3, **f64), tandem.full((3,), -h, **f64)))
        fd = ((plus - minus) / (2 * h)).tolist()
        assert all(abs(a - b) < 1e-5 * max(1.0, abs(b)) for a, b in zip(c.grad.tolist(), fd)), (c.grad, fd)


def _mixture(lib, device, event):
    """A batch of 2 mixtures of 3 components: Normal components, or 2-d MultivariateNormal ones (event=True)."""
    D = lib.distributions
    T = (lambda v: from_torch(v, device)) if lib is tandem else (lambda v: v.clone())  # noqa: E731
    mix = D.Categorical(logits=T(MIX["logits"]))
    if event:
        comp = D.MultivariateNormal(T(MIX["loc2"]), scale_tril=T(MIX["tril"]))
    else:
        comp = D.Normal(T(MIX["loc"]), T(MIX["scale"]))
    return D.MixtureSameFamily(mix, comp)


MIX = {"logits": _randn(2, 3), "loc": _randn(2, 3), "scale": _rand(2, 3, low=0.5, high=1.5),
       "loc2": _randn(2, 3, 2), "tril": torch.linalg.cholesky(_spd(2, 2, 3))}


@pytest.mark.parametrize("event", [False, True])
def test_mixture_same_family_matches_torch(device, event):
    d, e = _mixture(tandem, device, event), _mixture(torch, "cpu", event)
    v = _randn(4, 2, 2) if event else _randn(4, 2)
    assert_same(d.log_prob(from_torch(v, device)), e.log_prob(v), device=device)
    assert_same(d.mean, e.mean, device=device)
    assert_same(d.variance, e.variance, device=device)
    if not event:
        assert_same(d.cdf(from_torch(v, device)), e.cdf(v), device=device)
    assert repr(d) == repr(e).replace("torch.Size", "tandem.Size")
    assert tuple(d.batch_shape) == tuple(e.batch_shape) and tuple(d.event_shape) == tuple(e.event_shape)
    tandem.manual_seed(0)
    assert tuple(d.sample((5,)).shape) == tuple(e.sample((5,)).shape)
    de = d.expand((3, 2))
    assert tuple(de.sample((5,)).shape) == (5,) + tuple(e.expand((3, 2)).sample().shape)
    assert d.has_rsample is False and repr(d.support) == repr(e.support)


def test_mixture_with_unbatched_weights_samples(device):
    """Weights without batch dims over a batch of component sets: PyTorch's sample raises an index error here;
    ours broadcasts the chosen component over the batch."""
    D = tandem.distributions
    f64 = {"dtype": tandem.float64, "device": device}
    comp = D.Normal(tandem.tensor([[-5.0, 5.0]] * 4, **f64), tandem.ones(4, 2, **f64))
    m = D.MixtureSameFamily(D.Categorical(tandem.tensor([0.3, 0.7], **f64)), comp)
    tandem.manual_seed(0)
    s = m.sample((20000,))
    assert tuple(s.shape) == (20000, 4)
    assert bool(((s.mean(0) - 2.0).abs() < 0.2).all())  # 0.3 * -5 + 0.7 * 5; standard error 0.033
    assert_same(m.mean, torch.full((4,), 2.0, dtype=torch.float64), device=device)


def test_manual_seed_reproduces_draws(device):
    D = tandem.distributions
    d = D.Normal(tandem.zeros(3, device=device), 1.0)
    c = D.Categorical(logits=tandem.zeros(4, device=device))
    tandem.manual_seed(3)
    a = (d.sample((5,)), d.rsample((2,)), c.sample((6,)))
    tandem.manual_seed(3)
    b = (d.sample((5,)), d.rsample((2,)), c.sample((6,)))
    for x, y in zip(a, b):
        assert x.tolist() == y.tolist()
    assert a[0].tolist() != a[1].tolist()


# ---- validation and errors --------------------------------------------------------------------------------

ERROR_CASES = [
    lambda lib: lib.distributions.Normal(lib.tensor([float("nan")]), 1.0),
    lambda lib: lib.distributions.Normal(0.0, -1.0),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob([1.0]),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.ones(2)),
    lambda lib: lib.distributions.Normal(0.0, 1.0).cdf(lib.tensor([float("nan")])),
    lambda lib: lib.distributions.Bernoulli(0.3).log_prob(lib.tensor(0.5)),
    lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([1.5])),
    lambda lib: lib.distributions.Bernoulli(),
    lambda lib: lib.distributions.Categorical(probs=lib.tensor([0.2, 0.8]), logits=lib.tensor([1.0, 2.0])),
    lambda lib: lib.distributions.Categorical(lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(logits=lib.tensor(0.5)),
    lambda lib: lib.distributions.Categorical(lib.tensor([0.5, -1.0])),
    lambda lib: lib.distributions.Categorical(lib.tensor([[1.0, 3.0]])).log_prob(lib.tensor([1.5])),
    lambda lib: lib.distributions.Uniform(1.0, 0.0),
    lambda lib: lib.distributions.Uniform(lib.tensor([0.0, 2.0]), lib.ones(2)),
    lambda lib: lib.distributions.Uniform(0.0, 1.0).log_prob(lib.tensor([2.0, 0.5])),
    lambda lib: lib.distributions.Exponential(2.0).log_prob(lib.tensor(-1.0)),
    lambda lib: lib.distributions.Exponential(lib.tensor([0.0])),
    lambda lib: lib.distributions.Geometric(lib.tensor([0.0, 0.5])),
    lambda lib: lib.distributions.Laplace(0.0, lib.tensor([0.0])),
    lambda lib: lib.distributions.OneHotCategorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor([1.0, 1.0])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), precision_matrix=lib.ones(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), 1.0), 2),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2), 1.0), 1).enumerate_support(),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(3), 1.0), 1).log_prob(lib.ones(2)),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).expand((2,)),
    lambda lib: lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), 3),
    lambda lib: lib.distributions.TransformedDistribution(lib.distributions.Normal(0.0, 1.0), [3]),
    lambda lib: lib.distributions.transforms.AffineTransform(0.0, 1.0, cache_size=2),
    lambda lib: lib.distributions.kl_divergence(lib.distributions.Normal(0.0, 1.0),
                                                lib.distributions.Categorical(lib.ones(2))),
    lambda lib: lib.distributions.constraints.dependent.check(lib.ones(1)),
    lambda lib: lib.distributions.HalfNormal(1.0).log_prob(lib.tensor(-1.0)),
    lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([1.3]), validate_args=True),
    lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([0.3])).log_prob(lib.tensor([1.3])),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(2, 1), lib.ones(3)),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3), lib.ones(3)),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3, 1), lib.ones(2)),
    lambda lib: lib.distributions.LowRankMultivariateNormal(lib.zeros(2, 3), lib.ones(4, 3, 1), lib.ones(3)),
    lambda lib: _subclass_without_expand(lib).expand((2,)),
    lambda lib: lib.distributions.Pareto(1.0, 2.0).log_prob(lib.tensor(0.5)),
    lambda lib: lib.distributions.Gumbel(0.0, lib.tensor([-1.0])),
    lambda lib: lib.distributions.MixtureSameFamily(lib.distributions.Categorical(lib.ones(2, 3)),
                                                    lib.distributions.Normal(lib.zeros(4, 3), 1.0)),
    lambda lib: lib.distributions.MixtureSameFamily(lib.distributions.Categorical(lib.ones(2)),
                                                    lib.distributions.Normal(lib.zeros(3), 1.0)),
]


def _subclass_without_expand(lib):
    class Shifted(lib.distributions.Normal):
        def __init__(self, shift):
            super().__init__(shift, 1.0)

    return Shifted(lib.zeros(2))


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    assert_same_error(ERROR_CASES[case])


def test_errors_with_tandem_wording():
    D = tandem.distributions
    with pytest.raises(NotImplementedError, match="<class 'tandem.distributions.distribution.Distribution'> does "
                       "not implement mode"):
        with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
            D.Distribution().mode
    # PyTorch's message, run of spaces (from a line continuation inside its string) included: the first line of
    # an error is PyTorch's
    with pytest.raises(ValueError) as caught:
        D.kl_divergence(D.MultivariateNormal(tandem.zeros(2), tandem.eye(2)),
                        D.MultivariateNormal(tandem.zeros(3), tandem.eye(3)))
    with pytest.raises(ValueError) as expected:
        torch.distributions.kl_divergence(torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)),
                                          torch.distributions.MultivariateNormal(torch.zeros(3), torch.eye(3)))
    assert str(caught.value) == str(expected.value)


def test_validate_args_can_be_turned_off(device):
    D = tandem.distributions
    d = D.Bernoulli(tandem.tensor(0.3, device=device), validate_args=False)
    e = torch.distributions.Bernoulli(torch.tensor(0.3), validate_args=False)
    assert_same(d.log_prob(tandem.tensor(0.5, device=device)), e.log_prob(torch.tensor(0.5)), device=device)
    D.Normal(0.0, -1.0, validate_args=False)  # accepted without checking
    D.Distribution.set_default_validate_args(False)
    try:
        D.Normal(0.0, -1.0)
        assert D.Uniform(0.0, 1.0).log_prob(tandem.tensor(2.0)).item() == -math.inf
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(0.0, -1.0)


def test_sample_n_warns_and_samples(device):
    d = tandem.distributions.Normal(tandem.zeros(3, device=device), 1.0)
    with pytest.warns(UserWarning, match=r"sample_n will be deprecated. Use .sample\(\(n,\)\) instead"):
        s = d.sample_n(4)
    assert tuple(s.shape) == (4, 3) and str(s.device) == device


def test_parameters_of_the_common_shape_are_kept_as_given():
    loc = tandem.zeros(3, requires_grad=True)
    d = tandem.distributions.Normal(loc, tandem.ones(3))
    assert d.loc is loc  # as in PyTorch: the leaf itself, so d.loc.grad is loc.grad
    d = tandem.distributions.Normal(loc, 2.0)
    assert d.loc is loc and tuple(d.scale.shape) == (3,)
    d = tandem.distributions.Normal(loc, tandem.ones(2, 1))
    assert tuple(d.loc.shape) == (2, 3) and d.loc is not loc


def test_python_number_parameters_use_default_dtype():
    D = tandem.distributions
    d = D.Normal(0.0, 1.0)
    assert d.batch_shape == tandem.Size([]) and d.loc.dtype == tandem.float32
    d = D.Normal(tandem.zeros(2, dtype=tandem.float64), 1.0)
    assert d.scale.dtype == tandem.float64 and tuple(d.batch_shape) == (2,)
    e = torch.distributions.Normal(0.0, 1.0)
    assert_same(D.Normal(0.0, 1.0).log_prob(tandem.tensor(0.5)), e.log_prob(torch.tensor(0.5)))


@pytest.mark.parametrize("name", ["Normal", "Laplace", "Cauchy", "Exponential", "Bernoulli", "Categorical_logits",
                                  "Geometric", "LogNormal", "MultivariateNormal", "Gumbel"])
def test_float32_parameters_match_torch(name, device):
    """Float32 parameters give float32 results within float32 tolerance of PyTorch's float32 results."""
    def build32(lib):
        ps = {k: v.float() if lib is torch else from_torch(v.float(), device) for k, v in PARAMS[name].items()}
        return getattr(lib.distributions, _family(name))(**ps)

    d, e = build32(tandem), build32(torch)
    v = VALUES[name].float() if VALUES[name].is_floating_point() else VALUES[name]
    assert_same(d.log_prob(from_torch(v, device)), e.log_prob(v), device=device)
    assert_same(d.entropy(), e.entropy(), device=device)
    tandem.manual_seed(1)
    assert d.sample((2,)).dtype == getattr(tandem, str(e.sample((2,)).dtype).split(".")[-1])


def test_submodules_mirror_torch_layout():
    """`from torch.distributions.<module> import <Class>` works with tandem in place of torch."""
    import importlib

    for name in tandem.distributions.__all__:
        theirs = getattr(torch.distributions, name)
        module = importlib.import_module(theirs.__module__.replace("torch.", "tandem.", 1))
        assert getattr(module, name) is getattr(tandem.distributions, name), name
    utils = importlib.import_module("tandem.distributions.utils")
    for helper in ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs", "lazy_property",
                   "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]:
        assert hasattr(utils, helper), helper
    v = tandem.arange(6.0).reshape(2, 3)
    mat = utils.vec_to_tril_matrix(v)
    assert tuple(mat.shape) == (2, 2, 2) and utils.tril_matrix_to_vec(mat).tolist() == v.tolist()
    assert_same(mat, torch.distributions.utils.vec_to_tril_matrix(torch.arange(6.0).reshape(2, 3)))
