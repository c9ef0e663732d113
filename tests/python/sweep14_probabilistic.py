"""Sweep 14 programs, torch.distributions-heavy models: a VAE whose ELBO is built from Independent Normals,
Bernoulli / ContinuousBernoulli likelihoods and kl_divergence (reparameterised with NumPy noise), conjugate Bayesian
linear regression with MultivariateNormal / LowRankMultivariateNormal posteriors and the evidence, a Gaussian mixture
by MixtureSameFamily trained by gradient and by EM, TransformedDistribution flows with the transform zoo and
biject_to, the discrete families with enumerate_support, and the continuous families' cdf / icdf / entropy.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep14.py). Draws from a library's own generator give different numbers in the two libraries, so
only what does not depend on the stream (shapes, supports) is returned from sample()."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy as _init


# ---- a VAE whose ELBO comes from torch.distributions ---------------------------------------------------------------
def vae_distributions_elbo(torch, device):
    nn = torch.nn
    D = torch.distributions
    rng = np.random.default_rng(1430)
    x = torch.tensor((rng.uniform(size=(16, 12)) > 0.5).astype(np.float32), device=device)
    eps = torch.tensor(rng.standard_normal((16, 3)), dtype=torch.float32, device=device)

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 6))
            self.dec = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 12))

        def forward(self, x, eps):
            mu, log_sigma = self.enc(x).chunk(2, dim=-1)
            q = D.Independent(D.Normal(mu, log_sigma.exp()), 1)
            z = mu + log_sigma.exp() * eps  # rsample with the noise from NumPy
            prior = D.Independent(D.Normal(torch.zeros_like(mu), torch.ones_like(mu)), 1)
            px = D.Independent(D.Bernoulli(logits=self.dec(z)), 1)
            kl = D.kl_divergence(q, prior)
            mc_kl = q.log_prob(z) - prior.log_prob(z)
            return px.log_prob(x) - kl, kl, mc_kl, q, px

    vae = VAE().to(device)
    _init(torch, vae, 1431)
    opt = torch.optim.Adam(vae.parameters(), lr=1e-2)
    history = []
    for step in range(20):
        opt.zero_grad()
        elbo, kl, mc_kl, q, px = vae(x, eps)
        (-elbo.mean()).backward()
        opt.step()
        if step % 5 == 0:
            history.append(elbo.mean().item())
    shapes = [list(q.batch_shape), list(q.event_shape), list(px.batch_shape), list(px.event_shape),
              list(q.rsample((2,)).shape), list(px.sample().shape)]
    probs = torch.sigmoid(vae.dec(eps)).clamp(1e-3, 1 - 1e-3)
    cb = D.ContinuousBernoulli(probs=probs)
    cb_lp = cb.log_prob(x).sum(-1)
    return {"history": history, "kl": kl[:4].tolist(), "mc_kl": mc_kl[:4].tolist(), "shapes": shapes,
            "cb": cb_lp[:4].tolist(), "cb_mean": cb.mean[0, :4].tolist(), "entropy": q.entropy()[:4].tolist(),
            "bern_entropy": px.entropy()[:4].tolist(), "has_rsample": [q.has_rsample, px.has_rsample],
            "repr": repr(q.base_dist)[:7]}


# ---- conjugate Bayesian linear regression: posterior, predictive and evidence ------------------------------------
def bayesian_linear_regression(torch, device):
    D = torch.distributions
    rng = np.random.default_rng(1432)
    X = torch.tensor(np.c_[np.ones(30), rng.uniform(-2, 2, (30, 2))], device=device)
    w_true = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, device=device)
    noise = 0.3
    y = X @ w_true + noise * torch.tensor(rng.standard_normal(30), device=device)
    alpha = 1.0
    prior = D.MultivariateNormal(torch.zeros(3, dtype=torch.float64, device=device),
                                 precision_matrix=alpha * torch.eye(3, dtype=torch.float64, device=device))
    S_inv = alpha * torch.eye(3, dtype=torch.float64, device=device) + X.T @ X / noise ** 2
    S = torch.linalg.inv(S_inv)
    m = S @ X.T @ y / noise ** 2
    post = D.MultivariateNormal(m, scale_tril=torch.linalg.cholesky(S))
    Xs = torch.tensor([[1.0, 0.0, 0.0], [1.0, 1.0, -1.0]], dtype=torch.float64, device=device)
    pred_mean = Xs @ post.mean
    pred_var = (Xs @ post.covariance_matrix * Xs).sum(-1) + noise ** 2
    evidence_cov = X @ X.T / alpha + noise ** 2 * torch.eye(30, dtype=torch.float64, device=device)
    evidence = D.MultivariateNormal(torch.zeros(30, dtype=torch.float64, device=device), evidence_cov).log_prob(y)
    lowrank = D.LowRankMultivariateNormal(torch.zeros(30, dtype=torch.float64, device=device),
                                          cov_factor=X / math.sqrt(alpha),
                                          cov_diag=torch.full((30,), noise ** 2, dtype=torch.float64, device=device))
    kl = D.kl_divergence(post, prior)
    return {"mean": post.mean.tolist(), "stddev": post.stddev.tolist(), "pred": pred_mean.tolist(),
            "pred_var": pred_var.tolist(), "evidence": evidence.item(), "lowrank": lowrank.log_prob(y).item(),
            "lowrank_entropy": lowrank.entropy().item(), "entropy": post.entropy().item(), "kl": kl.item(),
            "prior_cov": prior.covariance_matrix.diagonal().tolist(),
            "prec_ok": torch.allclose(post.precision_matrix, S_inv, rtol=1e-8),
            "lp_batch": post.log_prob(torch.stack([w_true, m])).tolist(),
            "variance": lowrank.variance[:3].tolist()}


# ---- a Gaussian mixture: MixtureSameFamily by gradient, then EM with responsibilities -----------------------------
def gaussian_mixture_fit(torch, device):
    D = torch.distributions
    rng = np.random.default_rng(1433)
    data = np.concatenate([rng.normal(-2, 0.5, (60, 2)), rng.normal(2, 0.8, (40, 2))])
    x = torch.tensor(data, dtype=torch.float32, device=device)
    logits = torch.zeros(2, device=device, requires_grad=True)
    means = torch.tensor([[-1.0, -1.0], [1.0, 1.0]], device=device, requires_grad=True)
    log_scales = torch.zeros(2, 2, device=device, requires_grad=True)
    opt = torch.optim.Adam([logits, means, log_scales], lr=0.1)
    for _ in range(40):
        opt.zero_grad()
        mix = D.MixtureSameFamily(D.Categorical(logits=logits),
                                  D.Independent(D.Normal(means, log_scales.exp()), 1))
        nll = -mix.log_prob(x).mean()
        nll.backward()
        opt.step()
    grad_fit = [nll.item(), torch.softmax(logits, 0).tolist(), means.detach().tolist()]
    mix_stats = [mix.mean.tolist(), mix.variance.tolist(), list(mix.batch_shape), list(mix.event_shape)]
    # EM
    pi = torch.tensor([0.5, 0.5], device=device)
    mu = torch.tensor([[-1.0, 0.0], [1.0, 0.0]], device=device)
    cov = torch.eye(2, device=device).repeat(2, 1, 1)
    lls = []
    for _ in range(15):
        comp = D.MultivariateNormal(mu, covariance_matrix=cov)
        log_r = comp.log_prob(x.unsqueeze(1)) + pi.log()
        ll = torch.logsumexp(log_r, dim=1)
        lls.append(ll.sum().item())
        r = (log_r - ll.unsqueeze(1)).exp()
        nk = r.sum(0)
        pi = nk / nk.sum()
        mu = (r.T @ x) / nk.unsqueeze(1)
        diff = x.unsqueeze(1) - mu
        cov = torch.einsum("nk,nki,nkj->kij", r, diff, diff) / nk.view(2, 1, 1) + 1e-6 * torch.eye(2, device=device)
    labels = log_r.argmax(1)
    dirichlet = D.Dirichlet(torch.tensor([2.0, 2.0], device=device))
    return {"grad_fit": grad_fit, "mix": mix_stats, "em": lls[::3], "pi": pi.tolist(), "mu": mu.tolist(),
            "cov": cov.flatten().tolist(), "counts": torch.bincount(labels).tolist(),
            "prior": dirichlet.log_prob(pi).item(), "cat_entropy": D.Categorical(probs=pi).entropy().item()}


# ---- TransformedDistribution flows, the transform zoo, biject_to and constraints ---------------------------------
def transformed_distribution_flows(torch, device):
    D = torch.distributions
    T = D.transforms
    C = D.constraints
    base = D.Normal(torch.zeros(3, device=device), torch.ones(3, device=device))
    loc = torch.tensor([0.5, -0.2, 1.0], device=device, requires_grad=True)
    log_scale = torch.tensor([0.1, -0.3, 0.2], device=device, requires_grad=True)
    flow = D.TransformedDistribution(base, [T.AffineTransform(loc, log_scale.exp()), T.TanhTransform(cache_size=1)])
    pts = torch.tensor([[0.3, -0.5, 0.9], [0.0, 0.2, -0.1]], device=device)
    lp = flow.log_prob(pts)
    lp.sum().backward()
    lognormal = D.TransformedDistribution(D.Normal(torch.tensor(0.2, device=device), torch.tensor(0.5, device=device)),
                                          [T.ExpTransform()])
    ref = D.LogNormal(torch.tensor(0.2, device=device), torch.tensor(0.5, device=device))
    v = torch.tensor([0.5, 1.0, 2.5], device=device)
    compose = T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.SigmoidTransform()])
    u = torch.tensor([-1.0, 0.0, 0.7], device=device)
    fwd = compose(u)
    inv = compose.inv(fwd)
    ladj = compose.log_abs_det_jacobian(u, fwd)
    sb = T.StickBreakingTransform()
    simplex = sb(torch.tensor([0.1, -0.4, 0.3], device=device))
    to_simplex = D.biject_to(C.simplex)
    to_pos = D.biject_to(C.positive)
    to_interval = D.biject_to(C.interval(-1.0, 3.0))
    corr = D.transforms.CorrCholeskyTransform()(torch.tensor([0.2, -0.1, 0.4], device=device))
    lower = D.transform_to(C.lower_cholesky)(torch.tensor([[0.1, 0.0], [0.5, -0.2]], device=device))
    checks = [bool(C.simplex.check(simplex)), bool(C.positive.check(to_pos(torch.tensor(-3.0, device=device)))),
              C.real.check(torch.tensor([1.0, float("inf")], device=device)).tolist(),
              bool(C.corr_cholesky.check(corr)), bool(C.lower_cholesky.check(lower)),
              C.integer_interval(0, 3).check(torch.tensor([0.0, 2.0, 4.0, 1.5], device=device)).tolist()]
    power = T.PowerTransform(torch.tensor(2.0, device=device))
    return {"lp": lp.tolist(), "grads": [loc.grad.tolist(), log_scale.grad.tolist()],
            "lognormal": [lognormal.log_prob(v).tolist(), ref.log_prob(v).tolist()],
            "compose": [fwd.tolist(), inv.tolist(), ladj.tolist()], "simplex": simplex.tolist(),
            "simplex_sum": simplex.sum().item(), "to_simplex": to_simplex(torch.zeros(2, device=device)).tolist(),
            "interval": to_interval(torch.tensor([0.0, 10.0], device=device)).tolist(), "corr": corr.tolist(),
            "lower": lower.tolist(), "checks": checks, "power": power(v).tolist(),
            "power_inv": power.inv(v).tolist(), "bijective": [compose.bijective, str(flow.support)[:20],
                                                              T.ExpTransform().sign, flow.has_rsample],
            "event": [list(flow.batch_shape), list(flow.event_shape), list(flow.sample((4,)).shape)]}


# ---- the discrete families: log_prob, enumerate_support, mean/variance, entropy, sample shapes ---------------------
def discrete_families(torch, device):
    D = torch.distributions
    k = torch.arange(6, dtype=torch.float32, device=device)
    poisson = D.Poisson(torch.tensor([0.5, 2.0, 4.0], device=device).unsqueeze(-1))
    binom = D.Binomial(total_count=5, probs=torch.tensor([0.3, 0.7], device=device).unsqueeze(-1))
    negbin = D.NegativeBinomial(total_count=torch.tensor(3.0, device=device), logits=torch.tensor(0.2, device=device))
    geom = D.Geometric(probs=torch.tensor(0.3, device=device))
    cat = D.Categorical(logits=torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0]], device=device))
    onehot = D.OneHotCategorical(probs=torch.tensor([0.2, 0.5, 0.3], device=device))
    multi = D.Multinomial(total_count=4, probs=torch.tensor([0.2, 0.5, 0.3], device=device))
    bern = D.Bernoulli(probs=torch.tensor([0.1, 0.9], device=device))
    relaxed = D.RelaxedBernoulli(torch.tensor(0.5, device=device), probs=torch.tensor([0.3, 0.6], device=device))
    relaxed_cat = D.RelaxedOneHotCategorical(torch.tensor(0.7, device=device),
                                             probs=torch.tensor([0.2, 0.5, 0.3], device=device))
    return {"poisson": poisson.log_prob(k).flatten().tolist(), "binom": binom.log_prob(k[:6]).flatten().tolist(),
            "negbin": [negbin.log_prob(k).tolist(), negbin.mean.item(), negbin.variance.item()],
            "geom": [geom.log_prob(k).tolist(), geom.mean.item(), geom.entropy().item()],
            "cat": [cat.log_prob(torch.tensor([1, 2], device=device)).tolist(), cat.entropy().tolist(),
                    cat.probs.tolist(), cat.enumerate_support().flatten().tolist(),
                    list(cat.enumerate_support(expand=False).shape)],
            "onehot": [onehot.log_prob(torch.eye(3, device=device)).tolist(),
                       onehot.enumerate_support().tolist()],
            "multi": [multi.log_prob(torch.tensor([1.0, 2.0, 1.0], device=device)).item(), multi.mean.tolist(),
                      multi.variance.tolist(), list(multi.sample((5,)).shape), multi.sample().sum().item()],
            "bern": [bern.enumerate_support().tolist(), bern.entropy().tolist(), bern.logits.tolist()],
            "relaxed": [relaxed.log_prob(torch.tensor([0.2, 0.9], device=device)).tolist(),
                        list(relaxed.rsample((3,)).shape)],
            "relaxed_cat": [relaxed_cat.log_prob(torch.tensor([0.1, 0.6, 0.3], device=device)).item(),
                            list(relaxed_cat.rsample((2,)).shape)],
            "poisson_stats": [poisson.mean.flatten().tolist(), list(poisson.sample((2,)).shape),
                              str(poisson.sample().dtype)],
            "binom_support": binom.enumerate_support(expand=False).flatten().tolist()}


# ---- the continuous families: cdf, icdf, entropy, moments; a Student-t regression by maximum likelihood ----------
def continuous_families(torch, device):
    D = torch.distributions
    x = torch.tensor([0.2, 0.5, 0.9], device=device)
    fams = {
        "normal": D.Normal(torch.tensor(0.3, device=device), torch.tensor(0.8, device=device)),
        "laplace": D.Laplace(torch.tensor(0.1, device=device), torch.tensor(0.5, device=device)),
        "cauchy": D.Cauchy(torch.tensor(0.0, device=device), torch.tensor(1.5, device=device)),
        "gumbel": D.Gumbel(torch.tensor(0.2, device=device), torch.tensor(1.1, device=device)),
        "exponential": D.Exponential(torch.tensor(2.0, device=device)),
        "uniform": D.Uniform(torch.tensor(0.0, device=device), torch.tensor(2.0, device=device)),
        "half_normal": D.HalfNormal(torch.tensor(1.2, device=device)),
        "half_cauchy": D.HalfCauchy(torch.tensor(0.7, device=device)),
        "log_normal": D.LogNormal(torch.tensor(0.0, device=device), torch.tensor(0.5, device=device)),
        "pareto": D.Pareto(torch.tensor(0.1, device=device), torch.tensor(3.0, device=device)),
        "kumaraswamy": D.Kumaraswamy(torch.tensor(2.0, device=device), torch.tensor(3.0, device=device)),
    }
    out = {}
    for name, d in fams.items():
        row = [d.log_prob(x).tolist(), d.entropy().item()]
        for fn in ("cdf", "icdf"):
            try:
                row.append(getattr(d, fn)(x).tolist())
            except NotImplementedError:
                row.append(fn + " missing")
        try:
            row.append([repr(round(d.mean.item(), 5)), repr(round(d.variance.item(), 5))])  # nan / inf too
        except Exception as exc:
            row.append(type(exc).__name__)
        out[name] = row
    beta = D.Beta(torch.tensor([2.0, 0.5], device=device), torch.tensor([3.0, 0.5], device=device))
    gamma = D.Gamma(torch.tensor([2.0, 5.0], device=device), torch.tensor([1.0, 0.5], device=device))
    chi2 = D.Chi2(torch.tensor(4.0, device=device))
    inv_gamma = D.InverseGamma(torch.tensor(3.0, device=device), torch.tensor(2.0, device=device))
    weibull = D.Weibull(torch.tensor(1.5, device=device), torch.tensor(2.0, device=device))
    vm = D.VonMises(torch.tensor(0.5, device=device), torch.tensor(2.0, device=device))
    out["beta"] = [beta.log_prob(x[:2]).tolist(), beta.entropy().tolist(), beta.mean.tolist()]
    out["gamma"] = [gamma.log_prob(x[1:]).tolist(), gamma.entropy().tolist(), gamma.variance.tolist()]
    out["chi2"] = [chi2.log_prob(x).tolist(), chi2.mean.item()]
    out["inv_gamma"] = [inv_gamma.log_prob(x).tolist(), inv_gamma.mean.item()]
    out["weibull"] = [weibull.log_prob(x).tolist(), weibull.entropy().item(), weibull.mean.item()]
    out["vonmises"] = [vm.log_prob(x).tolist(), vm.variance.item()]
    # Student-t regression (robust to outliers) by maximum likelihood
    rng = np.random.default_rng(1434)
    t = torch.tensor(np.linspace(0, 1, 40), dtype=torch.float32, device=device)
    yv = 1.0 + 2.0 * np.linspace(0, 1, 40) + 0.1 * rng.standard_normal(40)
    yv[::10] += 5.0
    y = torch.tensor(yv, dtype=torch.float32, device=device)
    params = torch.zeros(4, device=device, requires_grad=True)
    opt = torch.optim.Adam([params], lr=0.05)
    for _ in range(60):
        opt.zero_grad()
        d = D.StudentT(df=torch.nn.functional.softplus(params[3]) + 1, loc=params[0] + params[1] * t,
                       scale=params[2].exp())
        loss = -d.log_prob(y).mean()
        loss.backward()
        opt.step()
    out["student_t"] = [loss.item(), params.detach().tolist()]
    return out


PROGRAMS = [vae_distributions_elbo, bayesian_linear_regression, gaussian_mixture_fit, transformed_distribution_flows,
            discrete_families, continuous_families]
NEEDS_CPP = {}
