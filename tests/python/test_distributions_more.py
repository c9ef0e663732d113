"""Multinomial, NegativeBinomial, Weibull, Wishart and LKJCholesky of tandem.distributions against PyTorch:
densities, entropies and moments in float64 for fixed parameters, sample shapes/dtypes/devices, sample moments
for fixed seeds, gradients of log_prob and rsample, expand, and PyTorch's errors for invalid parameters. Every
test runs on every device."""
import math
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, to_torch

N = 20000


def _t(lib, values, device=None):
    kw = {"dtype": lib.float64}
    if lib is tandem and device is not None:
        kw["device"] = device
    return lib.tensor(values, **kw)


def _pair(device, build):
    """build(lib, tensor) -> distribution, for tandem (on device) and PyTorch (cpu)."""
    return (build(tandem, lambda v: _t(tandem, v, device)), build(torch, lambda v: _t(torch, v)))


def _same_stats(d_ours, d_ref, device, names=("mean", "variance", "mode"), rtol=1e-7, atol=1e-9):
    for name in names:
        assert_same(getattr(d_ours, name), getattr(d_ref, name), rtol=rtol, atol=atol, device=tandem.device(device))


# ---- Multinomial ------------------------------------------------------------------------------------------------

PROBS = [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]


def _multinomial(lib, t, n=7, logits=False):
    probs = t(PROBS)
    return lib.distributions.Multinomial(n, logits=probs.log()) if logits else lib.distributions.Multinomial(
        n, probs=probs)


@pytest.mark.parametrize("logits", [False, True])
def test_multinomial_values(device, logits):
    ours, ref = _pair(device, lambda lib, t: _multinomial(lib, t, logits=logits))
    _same_stats(ours, ref, device, names=("mean", "variance"))
    value = [[2.0, 0.0, 5.0], [1.0, 3.0, 3.0]]
    assert_same(ours.log_prob(_t(tandem, value, device)), ref.log_prob(_t(torch, value)))
    assert_same(ours.entropy(), ref.entropy())
    assert ours.support.check(_t(tandem, value, device)).all()
    assert ours.batch_shape == (2,) and ours.event_shape == (3,)


def test_multinomial_zero_probability_category(device):
    ours, ref = _pair(device, lambda lib, t: lib.distributions.Multinomial(4, probs=t([0.0, 0.25, 0.75])))
    for value in ([0.0, 1.0, 3.0], [1.0, 1.0, 2.0]):
        assert_same(ours.log_prob(_t(tandem, value, device)), ref.log_prob(_t(torch, value)))


def test_multinomial_sample(device):
    d = _multinomial(tandem, lambda v: _t(tandem, v, device), n=10)
    tandem.manual_seed(3)
    x = d.sample((N,))
    assert x.shape == (N, 2, 3) and x.dtype == tandem.float64 and x.device == tandem.device(device)
    xs = to_torch(x)
    assert torch.all(xs.sum(-1) == 10)
    p = torch.tensor(PROBS, dtype=torch.float64)
    mean, var = 10 * p, 10 * p * (1 - p)
    assert torch.all((xs.mean(0) - mean).abs() <= 5 * (var / N).sqrt())
    assert torch.allclose(xs.var(0), var, rtol=0.05)
    e = d.expand((4, 2))
    assert e.batch_shape == (4, 2) and e.sample((5,)).shape == (5, 4, 2, 3)
    assert_same(e.entropy(), _multinomial(torch, lambda v: _t(torch, v), n=10).entropy().expand(4, 2))


def test_multinomial_log_prob_grad(device):
    logits = _t(tandem, [0.1, -0.4, 0.7], device).requires_grad_()
    tl = _t(torch, [0.1, -0.4, 0.7]).requires_grad_()
    value = [2.0, 1.0, 4.0]
    tandem.distributions.Multinomial(7, logits=logits).log_prob(_t(tandem, value, device)).backward()
    torch.distributions.Multinomial(7, logits=tl).log_prob(_t(torch, value)).backward()
    assert_same(logits.grad, tl.grad)


def test_multinomial_errors():
    assert_same_error(lambda lib: lib.distributions.Multinomial(2.5, probs=lib.tensor([0.5, 0.5])))
    assert_same_error(lambda lib: lib.distributions.Multinomial(3, probs=lib.tensor([-0.5, 1.5]), validate_args=True))
    assert_same_error(lambda lib: lib.distributions.Multinomial(
        3, probs=lib.tensor([0.5, 0.5]), validate_args=True).log_prob(lib.tensor([3.0, 2.0])))
    assert_same_error(lambda lib: lib.distributions.Multinomial(3))


# ---- NegativeBinomial -------------------------------------------------------------------------------------------

def _negbin(lib, t, logits=False):
    count, p = t([0.0, 2.5, 4.0, 10.0]), t([0.3, 0.5, 0.7, 0.05])
    if logits:
        return lib.distributions.NegativeBinomial(count, logits=(p / (1 - p)).log())
    return lib.distributions.NegativeBinomial(count, probs=p)


@pytest.mark.parametrize("logits", [False, True])
def test_negative_binomial_values(device, logits):
    ours, ref = _pair(device, lambda lib, t: _negbin(lib, t, logits))
    _same_stats(ours, ref, device)
    for value in ([0.0, 0.0, 3.0, 1.0], [0.0, 4.0, 7.0, 0.0], [2.0, 1.0, 0.0, 12.0]):
        assert_same(ours.log_prob(_t(tandem, value, device)), ref.log_prob(_t(torch, value)))
    assert ours.support is tandem.distributions.constraints.nonnegative_integer


def test_negative_binomial_sample(device):
    d = tandem.distributions.NegativeBinomial(_t(tandem, [3.0, 0.5], device), probs=_t(tandem, [0.4, 0.8], device))
    tandem.manual_seed(5)
    x = d.sample((N,))
    assert x.shape == (N, 2) and x.dtype == tandem.float64 and x.device == tandem.device(device)
    xs = to_torch(x)
    assert torch.all(xs == xs.floor()) and torch.all(xs >= 0)
    mean, var = to_torch(d.mean), to_torch(d.variance)
    assert torch.all((xs.mean(0) - mean).abs() <= 5 * (var / N).sqrt()), (xs.mean(0), mean)
    assert torch.allclose(xs.var(0), var, rtol=0.1), (xs.var(0), var)
    e = d.expand((3, 2))
    assert e.sample((4,)).shape == (4, 3, 2)
    assert_same(e.mean, to_torch(d.mean).expand(3, 2))


def test_negative_binomial_log_prob_grad(device):
    c, l = _t(tandem, [2.5, 4.0], device).requires_grad_(), _t(tandem, [0.3, -1.0], device).requires_grad_()
    tc, tl = _t(torch, [2.5, 4.0]).requires_grad_(), _t(torch, [0.3, -1.0]).requires_grad_()
    value = [3.0, 1.0]
    tandem.distributions.NegativeBinomial(c, logits=l).log_prob(_t(tandem, value, device)).sum().backward()
    torch.distributions.NegativeBinomial(tc, logits=tl).log_prob(_t(torch, value)).sum().backward()
    assert_same(c.grad, tc.grad)
    assert_same(l.grad, tl.grad)


def test_negative_binomial_errors():
    assert_same_error(lambda lib: lib.distributions.NegativeBinomial(3.0))
    assert_same_error(lambda lib: lib.distributions.NegativeBinomial(3.0, probs=0.5, logits=0.0))
    assert_same_error(lambda lib: lib.distributions.NegativeBinomial(
        lib.tensor([-1.0]), probs=lib.tensor([0.5]), validate_args=True))
    assert_same_error(lambda lib: lib.distributions.NegativeBinomial(
        lib.tensor([1.0]), probs=lib.tensor([1.0]), validate_args=True))
    assert_same_error(lambda lib: lib.distributions.NegativeBinomial(
        lib.tensor([1.0]), probs=lib.tensor([0.5]), validate_args=True).log_prob(lib.tensor([1.5])))


# ---- Weibull ----------------------------------------------------------------------------------------------------

def _weibull(lib, t):
    return lib.distributions.Weibull(t([1.0, 2.5, 0.7]), t([0.8, 1.5, 4.0]))


def test_weibull_values(device):
    ours, ref = _pair(device, _weibull)
    _same_stats(ours, ref, device)
    value = [0.3, 2.0, 0.9]
    assert_same(ours.log_prob(_t(tandem, value, device)), ref.log_prob(_t(torch, value)))
    assert_same(ours.cdf(_t(tandem, value, device)), ref.cdf(_t(torch, value)))
    q = [0.1, 0.5, 0.95]
    assert_same(ours.icdf(_t(tandem, q, device)), ref.icdf(_t(torch, q)))
    assert_same(ours.entropy(), ref.entropy())
    assert ours.has_rsample and ours.support is tandem.distributions.constraints.positive


def test_weibull_sample(device):
    d = tandem.distributions.Weibull(_t(tandem, [1.0, 2.5], device), _t(tandem, [0.8, 3.0], device))
    tandem.manual_seed(7)
    x = d.rsample((N,))
    assert x.shape == (N, 2) and x.dtype == tandem.float64 and x.device == tandem.device(device)
    xs = to_torch(x)
    mean, var = to_torch(d.mean), to_torch(d.variance)
    assert torch.all((xs.mean(0) - mean).abs() <= 5 * (var / N).sqrt()), (xs.mean(0), mean)
    assert torch.allclose(xs.var(0), var, rtol=0.15), (xs.var(0), var)
    f32 = tandem.distributions.Weibull(tandem.ones(3, device=device), 2.0)
    assert f32.sample((4,)).dtype == tandem.float32 and f32.sample((4,)).shape == (4, 3)
    e = d.expand((5, 2))
    assert e.sample((3,)).shape == (3, 5, 2)
    assert_same(e.entropy(), to_torch(d.entropy()).expand(5, 2))


def test_weibull_rsample_grad(device):
    scale = _t(tandem, [2.0], device).requires_grad_()
    conc = _t(tandem, [1.7], device).requires_grad_()
    tandem.manual_seed(11)
    x = tandem.distributions.Weibull(scale, conc).rsample((N,))
    x.mean().backward()
    # d E[X] / d scale = Gamma(1 + 1/k); the sample mean's derivative is its unbiased estimate
    assert abs(scale.grad.item() - math.gamma(1 + 1 / 1.7)) < 0.03, scale.grad
    # x = scale * E^(1/k): per-draw d x / d scale = x / scale, exactly
    s = _t(tandem, [2.0], device).requires_grad_()
    y = tandem.distributions.Weibull(s, _t(tandem, [1.7], device)).rsample((5,))
    (g,) = tandem.autograd.grad(y.sum(), s)
    assert abs(g.item() - (y.detach() / 2.0).sum().item()) < 1e-10
    # d E[X] / dk = scale * Gamma(1 + 1/k) * digamma(1 + 1/k) * (-1/k^2)
    k = 1.7
    digamma = float(torch.digamma(torch.tensor(1 + 1 / k, dtype=torch.float64)))
    want = 2.0 * math.gamma(1 + 1 / k) * digamma * (-1 / k**2)
    assert abs(conc.grad.item() - want) < 0.03, (conc.grad, want)


def test_weibull_log_prob_grad(device):
    s, k = _t(tandem, [1.5], device).requires_grad_(), _t(tandem, [2.2], device).requires_grad_()
    ts, tk = _t(torch, [1.5]).requires_grad_(), _t(torch, [2.2]).requires_grad_()
    tandem.distributions.Weibull(s, k).log_prob(_t(tandem, [0.8], device)).sum().backward()
    torch.distributions.Weibull(ts, tk).log_prob(_t(torch, [0.8])).sum().backward()
    assert_same(s.grad, ts.grad)
    assert_same(k.grad, tk.grad)


def test_weibull_errors():
    assert_same_error(lambda lib: lib.distributions.Weibull(lib.tensor([-1.0]), lib.tensor([1.0]),
                                                            validate_args=True))
    assert_same_error(lambda lib: lib.distributions.Weibull(lib.tensor([1.0]), lib.tensor([0.0]),
                                                            validate_args=True))
    assert_same_error(lambda lib: lib.distributions.Weibull(lib.tensor([1.0]), lib.tensor([1.0]),
                                                            validate_args=True).log_prob(lib.tensor([-1.0])))


# ---- Wishart ----------------------------------------------------------------------------------------------------

COV = [[[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]], [[1.0, 0.0, 0.0], [0.0, 3.0, 0.9], [0.0, 0.9, 1.0]]]


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_values(device, param):
    def build(lib, t):
        cov = t(COV)
        given = {"covariance_matrix": cov, "precision_matrix": lib.linalg.inv(cov),
                 "scale_tril": lib.linalg.cholesky(cov)}[param]
        return lib.distributions.Wishart(t([4.5, 6.0]), **{param: given})

    ours, ref = _pair(device, build)
    _same_stats(ours, ref, device)
    for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
        assert_same(getattr(ours, name), getattr(ref, name), rtol=1e-7, atol=1e-9)
    value = [[[3.0, 0.5, 0.2], [0.5, 2.0, 0.1], [0.2, 0.1, 1.5]], [[1.0, 0.2, 0.0], [0.2, 4.0, 1.0], [0.0, 1.0, 2.0]]]
    assert_same(ours.log_prob(_t(tandem, value, device)), ref.log_prob(_t(torch, value)))
    assert_same(ours.entropy(), ref.entropy())
    # the exponential-family entropy (autograd of the log normaliser) agrees with the closed form
    assert_same(tandem.distributions.ExponentialFamily.entropy(ours), ref.entropy(), rtol=1e-6, atol=1e-8)


def test_wishart_scalar_df_and_expand(device):
    ours, ref = _pair(device, lambda lib, t: lib.distributions.Wishart(5.0, covariance_matrix=t(COV[0])))
    assert ours.batch_shape == () and ours.event_shape == (3, 3)
    e, te = ours.expand((4,)), ref.expand((4,))
    _same_stats(e, te, device)
    assert_same(e.entropy(), te.entropy())
    assert e.rsample((2,)).shape == (2, 4, 3, 3)


def test_wishart_sample(device):
    d = tandem.distributions.Wishart(_t(tandem, [4.5, 6.0], device), covariance_matrix=_t(tandem, COV, device))
    tandem.manual_seed(13)
    x = d.rsample((N,))
    assert x.shape == (N, 2, 3, 3) and x.dtype == tandem.float64 and x.device == tandem.device(device)
    xs = to_torch(x)
    assert torch.allclose(xs, xs.transpose(-1, -2))
    assert torch.all(torch.linalg.eigvalsh(xs) > 0)
    mean, var = to_torch(d.mean), to_torch(d.variance)
    assert torch.all((xs.mean(0) - mean).abs() <= 5 * (var / N).sqrt()), (xs.mean(0), mean)
    assert torch.allclose(xs.var(0), var, rtol=0.15), (xs.var(0), var)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # well-conditioned draws are not "singular" (PyTorch 2.x warns here)
        d.rsample((8,))
    f32 = tandem.distributions.Wishart(3.0, scale_tril=tandem.eye(2, device=device))
    s = f32.sample((6,))
    assert s.dtype == tandem.float32 and s.shape == (6, 2, 2) and s.device == tandem.device(device)


def test_wishart_singular_draws_are_redrawn(device):
    # df just above p - 1: float32 Bartlett factors are often numerically singular; each retry redraws those
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = tandem.distributions.Wishart(tandem.tensor([2.001], device=device),
                                         covariance_matrix=tandem.eye(3, device=device))
    tandem.manual_seed(23)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        once = d.support.check(d.rsample((400,), max_try_correction=0)).double().mean().item()
        retried = d.support.check(d.rsample((400,), max_try_correction=10)).double().mean().item()
    assert [str(w.message) for w in caught] == ["Singular sample detected."] * 2
    assert once < 0.9 and retried > once + 0.05, (once, retried)


def test_wishart_grads(device):
    df, tdf = _t(tandem, 5.0, device).requires_grad_(), _t(torch, 5.0).requires_grad_()
    cov, tcov = _t(tandem, COV[0], device).requires_grad_(), _t(torch, COV[0]).requires_grad_()
    value = [[3.0, 0.5, 0.2], [0.5, 2.0, 0.1], [0.2, 0.1, 1.5]]
    ours = tandem.distributions.Wishart(df, covariance_matrix=cov)
    ref = torch.distributions.Wishart(tdf, covariance_matrix=tcov)
    (ours.log_prob(_t(tandem, value, device)) + ours.entropy()).backward()
    (ref.log_prob(_t(torch, value)) + ref.entropy()).backward()
    assert_same(df.grad, tdf.grad)
    assert_same(cov.grad, tcov.grad, rtol=1e-6, atol=1e-9)
    # rsample's gradient: the sample mean's derivative estimates d E[X] / d df = covariance
    df2 = _t(tandem, 5.0, device).requires_grad_()
    tandem.manual_seed(17)
    x = tandem.distributions.Wishart(df2, covariance_matrix=_t(tandem, COV[0], device)).rsample((N,))
    x.mean(0).trace().backward()
    assert abs(df2.grad.item() - 3.5) < 0.1, df2.grad


def test_wishart_errors():
    eye = lambda lib: lib.eye(3, dtype=lib.float64)  # noqa: E731
    assert_same_error(lambda lib: lib.distributions.Wishart(5.0))
    assert_same_error(lambda lib: lib.distributions.Wishart(5.0, covariance_matrix=eye(lib), scale_tril=eye(lib)))
    assert_same_error(lambda lib: lib.distributions.Wishart(5.0, covariance_matrix=lib.ones(3, dtype=lib.float64)))
    assert_same_error(lambda lib: lib.distributions.Wishart(2.0, covariance_matrix=eye(lib)))
    assert_same_error(lambda lib: lib.distributions.Wishart(5.0, covariance_matrix=-lib.eye(3), validate_args=True))
    assert_same_error(lambda lib: lib.distributions.Wishart(
        5.0, covariance_matrix=lib.eye(3), validate_args=True).log_prob(-lib.eye(3)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tandem.distributions.Wishart(2.5, covariance_matrix=tandem.eye(3, dtype=tandem.float64))
    assert any("Low df values detected" in str(w.message) for w in caught)


# ---- LKJCholesky ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [2, 4])
def test_lkj_cholesky_values(device, dim):
    ours, ref = _pair(device, lambda lib, t: lib.distributions.LKJCholesky(dim, t([0.5, 1.0, 3.0])))
    torch.manual_seed(0)
    value = ref.sample((2,))
    assert_same(ours.log_prob(tandem.tensor(value.tolist(), dtype=tandem.float64, device=device)), ref.log_prob(value))
    assert ours.batch_shape == (3,) and ours.event_shape == (dim, dim)
    assert ours.support is tandem.distributions.constraints.corr_cholesky


def test_lkj_cholesky_sample(device):
    conc = 2.0
    d = tandem.distributions.LKJCholesky(3, _t(tandem, [conc], device))
    tandem.manual_seed(19)
    x = d.sample((N,))
    assert x.shape == (N, 1, 3, 3) and x.dtype == tandem.float64 and x.device == tandem.device(device)
    assert d.support.check(x).all()
    xs = to_torch(x)[:, 0]
    corr = xs @ xs.transpose(-1, -2)
    # each off-diagonal correlation of LKJ(eta) in dimension d is 2 Beta(b, b) - 1 with b = eta - 1 + d/2: mean 0,
    # variance 1 / (2b + 1)
    b = conc - 1 + 3 / 2
    off = corr[:, [1, 2, 2], [0, 0, 1]]
    assert torch.all(off.mean(0).abs() <= 5 * math.sqrt(1 / (2 * b + 1) / N)), off.mean(0)
    assert torch.allclose(off.var(0), torch.full((3,), 1 / (2 * b + 1), dtype=torch.float64), rtol=0.05)
    # dimension 4: all six correlations share the marginal (PyTorch's sampler spreads rows 2 and 3 wider)
    x4 = to_torch(tandem.distributions.LKJCholesky(4, _t(tandem, conc, device)).sample((N,)))
    corr4 = x4 @ x4.transpose(-1, -2)
    b4 = conc - 1 + 4 / 2
    off4 = corr4[:, [1, 2, 3, 2, 3, 3], [0, 0, 0, 1, 1, 2]]
    assert torch.allclose(off4.var(0), torch.full((6,), 1 / (2 * b4 + 1), dtype=torch.float64), rtol=0.05), off4.var(0)
    e = d.expand((2, 4))
    assert e.sample((3,)).shape == (3, 2, 4, 3, 3)
    f32 = tandem.distributions.LKJCholesky(2, 1.0)
    assert f32.sample().dtype == tandem.float32


def test_lkj_cholesky_log_prob_grad(device):
    c, tc = _t(tandem, [1.5], device).requires_grad_(), _t(torch, [1.5]).requires_grad_()
    value = [[[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]]
    tandem.distributions.LKJCholesky(3, c).log_prob(_t(tandem, value, device)).sum().backward()
    torch.distributions.LKJCholesky(3, tc).log_prob(_t(torch, value)).sum().backward()
    assert_same(c.grad, tc.grad)


def test_lkj_cholesky_errors():
    assert_same_error(lambda lib: lib.distributions.LKJCholesky(1, 1.0))
    assert_same_error(lambda lib: lib.distributions.LKJCholesky(2, lib.tensor([-1.0]), validate_args=True))
    assert_same_error(lambda lib: lib.distributions.LKJCholesky(2, 1.0, validate_args=True).log_prob(
        lib.tensor([[1.0, 0.0], [1.0, 1.0]])))


# ---- Gumbel-Gumbel KL -------------------------------------------------------------------------------------------

def test_kl_gumbel_gumbel(device):
    locs, scales = [0.0, 1.5, -2.0], [1.0, 0.4, 3.0]
    p = tandem.distributions.Gumbel(_t(tandem, locs, device).requires_grad_(), _t(tandem, scales, device))
    q = tandem.distributions.Gumbel(_t(tandem, [0.5, 1.0, 1.0], device), _t(tandem, [2.0, 0.4, 0.5], device))
    tp = torch.distributions.Gumbel(_t(torch, locs).requires_grad_(), _t(torch, scales))
    tq = torch.distributions.Gumbel(_t(torch, [0.5, 1.0, 1.0]), _t(torch, [2.0, 0.4, 0.5]))
    kl, tkl = tandem.distributions.kl_divergence(p, q), torch.distributions.kl_divergence(tp, tq)
    assert_same(kl, tkl, device=tandem.device(device))
    kl.sum().backward()
    tkl.sum().backward()
    assert_same(p.loc.grad, tp.loc.grad)
    assert_same(tandem.distributions.kl_divergence(p, p), torch.zeros(3, dtype=torch.float64), atol=1e-12, rtol=0)


def test_kl_through_generic_pairs(device):
    # Wishart-Wishart through the ExponentialFamily pair (as in PyTorch); Weibull-Weibull is not implemented
    D, T = tandem.distributions, torch.distributions
    kl = D.kl_divergence(D.Wishart(_t(tandem, 5.0, device), covariance_matrix=_t(tandem, COV[0], device)),
                         D.Wishart(_t(tandem, 4.0, device), covariance_matrix=_t(tandem, COV[1], device)))
    want = T.kl_divergence(T.Wishart(_t(torch, 5.0), covariance_matrix=_t(torch, COV[0])),
                           T.Wishart(_t(torch, 4.0), covariance_matrix=_t(torch, COV[1])))
    assert_same(kl, want, rtol=1e-6, atol=1e-9, device=tandem.device(device))
    assert_same_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Weibull(lib.tensor([1.0]), lib.tensor([2.0])),
        lib.distributions.Weibull(lib.tensor([2.0]), lib.tensor([3.0]))))


# ---- constraints, reprs and modes at the edges ------------------------------------------------------------------

def _families(lib):
    D = lib.distributions
    eye = lib.eye(2, dtype=lib.float64)
    return [D.Multinomial(4, probs=lib.tensor([0.3, 0.7], dtype=lib.float64)),
            D.NegativeBinomial(lib.tensor([2.0], dtype=lib.float64), logits=lib.tensor([0.1], dtype=lib.float64)),
            D.Weibull(lib.tensor([1.0], dtype=lib.float64), lib.tensor([2.0], dtype=lib.float64)),
            D.Wishart(lib.tensor([2.5, 4.0], dtype=lib.float64), scale_tril=eye),
            D.LKJCholesky(3, lib.tensor([0.5], dtype=lib.float64))]


def test_supports_and_arg_constraints_match_torch():
    for ours, ref in zip(_families(tandem), _families(torch)):
        assert type(ours).__name__ == type(ref).__name__
        assert repr(ours.support) == repr(ref.support), (ours.support, ref.support)
        assert ours.support.event_dim == ref.support.event_dim and ours.support.is_discrete == ref.support.is_discrete
        assert {k: repr(v) for k, v in ours.arg_constraints.items()} == {
            k: repr(v) for k, v in ref.arg_constraints.items()}
        assert ours.has_rsample == ref.has_rsample
        assert ours.batch_shape == ref.batch_shape and ours.event_shape == ref.event_shape
        assert repr(ours).replace("tandem.", "torch.") == repr(ref)


def test_modes_at_the_edges(device):
    # Wishart's mode is nan where df <= p + 1; NegativeBinomial's is 0 for total_count <= 1; Weibull's nan for k < 1
    ours, ref = _pair(device, lambda lib, t: lib.distributions.Wishart(t([2.5, 4.0]), scale_tril=t([[1.0, 0.0],
                                                                                                   [0.5, 2.0]])))
    assert_same(ours.mode, ref.mode, device=tandem.device(device))
    ours, ref = _pair(device, lambda lib, t: lib.distributions.NegativeBinomial(t([0.5, 1.0, 3.0]), probs=t(0.6)))
    assert_same(ours.mode, ref.mode)
    ours, ref = _pair(device, lambda lib, t: lib.distributions.Weibull(t([1.0, 1.0]), t([0.5, 1.0])))
    assert_same(ours.mode, ref.mode)
