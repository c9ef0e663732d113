"""Sweep 20 programs, Bayesian and probabilistic code with torch.distributions: a mixture density network over
MixtureSameFamily(Categorical, Independent(Normal)), a full-covariance variational posterior with
MultivariateNormal(scale_tril) and LowRankMultivariateNormal under an ELBO loop, a Dirichlet-Categorical topic
posterior, a normalising flow built from TransformedDistribution with composed transforms, REINFORCE with a
Categorical policy and an entropy bonus, and the shapes and checks of distributions (batch/event shapes, expand,
validate_args, support, constraints, kl registrations), validation messages and register_kl, and the moments of
the less common families.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Where a program samples, it returns only what does not depend on the generator's
stream (shapes, log-probabilities of fixed values, reproducibility under one seed)."""
import math

from sweep15_common import cases
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- a mixture density network ----------------------------------------------------------------------------------------
def mixture_density_network(torch, device):
    nn, D = torch.nn, torch.distributions
    K, dim = 3, 2
    net = _fill(torch, nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, K * (1 + 2 * dim))), 2100).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=0.02)
    x = torch.linspace(-1, 1, 24, device=device).unsqueeze(1)
    noise = _randn(torch, 2101, 24, dim, device=device)
    y = torch.cat([x.sin(), x.cos()], 1) + 0.1 * noise

    def dist(inp):
        out = net(inp)
        logits, mu, log_sigma = out.split([K, K * dim, K * dim], dim=-1)
        comp = D.Independent(D.Normal(mu.view(-1, K, dim), log_sigma.view(-1, K, dim).exp()), 1)
        return D.MixtureSameFamily(D.Categorical(logits=logits), comp)

    log = []
    for _ in range(6):
        m = dist(x)
        nll = -m.log_prob(y).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        log.append(_r(nll, 4))
    m = dist(x[:4])
    torch.manual_seed(3)
    s = m.sample((5,))
    return {"log": log, "batch": list(m.batch_shape), "event": list(m.event_shape), "sample": list(s.shape),
            "mean": _r(m.mean, 4), "var": _r(m.variance, 4),
            "comp_batch": list(m.component_distribution.batch_shape),
            "mix_probs": _r(m.mixture_distribution.probs.sum(-1), 5)}


# ---- a full-covariance variational posterior -------------------------------------------------------------------------
def full_covariance_elbo(torch, device):
    D = torch.distributions
    torch.manual_seed(0)
    X = _randn(torch, 2110, 20, 3, device=device)
    w_true = torch.tensor([1.0, -2.0, 0.5], device=device)
    y = X @ w_true + 0.3 * _randn(torch, 2111, 20, device=device)
    prior = D.MultivariateNormal(torch.zeros(3, device=device), scale_tril=torch.eye(3, device=device))
    loc = torch.zeros(3, device=device, requires_grad=True)
    raw = torch.zeros(3, 3, device=device, requires_grad=True)
    opt = torch.optim.Adam([loc, raw], lr=0.05)
    eps = _randn(torch, 2112, 8, 3, device=device)  # fixed reparameterisation noise

    def posterior():
        tril = torch.tril(raw, -1) + torch.diag_embed(torch.nn.functional.softplus(raw.diagonal()) + 1e-3)
        return D.MultivariateNormal(loc, scale_tril=tril)

    log = []
    for _ in range(8):
        q = posterior()
        w = q.loc + eps @ q.scale_tril.T  # what rsample does with this noise
        lik = D.Normal(w @ X.T, 0.3).log_prob(y).sum(-1).mean()
        elbo = lik - D.kl_divergence(q, prior)
        opt.zero_grad()
        (-elbo).backward()
        opt.step()
        log.append(_r(elbo, 3))
    q = posterior()
    lr = D.LowRankMultivariateNormal(loc.detach(), cov_factor=torch.ones(3, 1, device=device) * 0.5,
                                     cov_diag=torch.full((3,), 0.2, device=device))
    full = D.MultivariateNormal(loc.detach(), covariance_matrix=lr.covariance_matrix)
    pt = torch.tensor([0.5, -1.0, 0.2], device=device)
    return {"log": log, "entropy": _r(q.entropy(), 4), "cov_sym": _r((q.covariance_matrix - q.covariance_matrix.T)
                                                                      .abs().max(), 6),
            "lp_lowrank": _r(lr.log_prob(pt), 5), "lp_full": _r(full.log_prob(pt), 5),
            "ent_lowrank": _r(lr.entropy(), 5), "ent_full": _r(full.entropy(), 5),
            "precision": _r(full.precision_matrix @ full.covariance_matrix, 4),
            "rsample_shape": list(q.rsample((4, 2)).shape), "kl_self": _r(D.kl_divergence(full, full), 5)}


# ---- a Dirichlet-Categorical posterior --------------------------------------------------------------------------------
def dirichlet_categorical(torch, device):
    D = torch.distributions
    alpha0 = torch.full((4,), 0.5, device=device)
    counts = torch.tensor([[3, 0, 1, 6], [0, 0, 5, 5]], device=device)
    post = D.Dirichlet(alpha0 + counts)
    probs = torch.tensor([[0.25, 0.05, 0.1, 0.6], [0.1, 0.1, 0.4, 0.4]], device=device)
    pred = D.Categorical(probs=post.mean)
    obs = torch.tensor([3, 2], device=device)
    mult = D.Multinomial(10, probs=post.mean)
    beta = D.Beta(torch.tensor([2.0, 5.0], device=device), torch.tensor([3.0, 1.0], device=device))
    torch.manual_seed(7)
    draws = post.sample((100,))
    # reparameterised gradient through a Dirichlet (a learned concentration)
    conc = torch.full((3,), 2.0, device=device, requires_grad=True)
    torch.manual_seed(8)
    z = D.Dirichlet(conc).rsample((50,))
    (z[:, 0] ** 2).mean().backward()
    return {"lp": _r(post.log_prob(probs), 4), "mean": _r(post.mean, 5), "mode": _r(post.mode, 5),
            "var": _r(post.variance, 6), "entropy": _r(post.entropy(), 4),
            "pred_lp": _r(pred.log_prob(obs), 5), "pred_ent": _r(pred.entropy(), 5),
            "mult_lp": _r(mult.log_prob(torch.tensor([[2.0, 1.0, 2.0, 5.0], [0.0, 0.0, 4.0, 6.0]], device=device)),
                          4),
            "beta": [_r(beta.log_prob(torch.tensor([0.3, 0.9], device=device)), 5), _r(beta.entropy(), 5),
                     _r(beta.mean, 5)],
            "kl": _r(D.kl_divergence(post, D.Dirichlet(torch.ones(4, device=device))), 4),
            "simplex": bool(((draws.sum(-1) - 1).abs() < 1e-5).all()), "draws": list(draws.shape),
            "grad_shape": list(conc.grad.shape), "grad_finite": bool(conc.grad.isfinite().all())}


# ---- a flow from TransformedDistribution -----------------------------------------------------------------------------
def transformed_flow(torch, device):
    D, T = torch.distributions, torch.distributions.transforms
    base = D.Independent(D.Normal(torch.zeros(2, device=device), torch.ones(2, device=device)), 1)
    scale = torch.tensor([0.5, 2.0], device=device, requires_grad=True)
    shift = torch.tensor([1.0, -1.0], device=device, requires_grad=True)
    flow = D.TransformedDistribution(base, [T.AffineTransform(shift, scale, event_dim=1), T.TanhTransform()])
    y = torch.tensor([[0.3, -0.5], [0.9, 0.1], [-0.2, -0.95]], device=device)
    lp = flow.log_prob(y)
    lp.sum().backward()
    lognorm = D.LogNormal(torch.tensor(0.2, device=device), torch.tensor(0.7, device=device))
    by_hand = D.TransformedDistribution(D.Normal(torch.tensor(0.2, device=device), torch.tensor(0.7, device=device)),
                                        T.ExpTransform())
    v = torch.tensor([0.5, 1.0, 3.0], device=device)
    sig = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.SigmoidTransform()])
    stick = T.StickBreakingTransform()
    u = torch.tensor([0.2, -0.3, 1.0], device=device)
    p = stick(u)
    return {"lp": _r(lp, 4), "g_scale": _r(scale.grad, 4), "g_shift": _r(shift.grad, 4),
            "lognorm": [_r(lognorm.log_prob(v), 5), _r(by_hand.log_prob(v), 5), _r(lognorm.mean, 5)],
            "inv": _r(sig.inv(sig(u)), 5), "ladj": _r(sig.log_abs_det_jacobian(u, sig(u)), 5),
            "stick": [_r(p, 5), _r(stick.inv(p), 5), list(p.shape)],
            "event": list(flow.event_shape), "sign": sig.sign, "bijective": T.TanhTransform().bijective,
            "codomain": str(T.SigmoidTransform().codomain)}


# ---- REINFORCE with a Categorical policy -----------------------------------------------------------------------------
def reinforce_categorical(torch, device):
    nn, D = torch.nn, torch.distributions
    policy = _fill(torch, nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)), 2130).to(device)
    opt = torch.optim.Adam(policy.parameters(), lr=0.01)
    states = _randn(torch, 2131, 12, 4, device=device)
    actions = torch.tensor([i % 3 for i in range(12)], device=device)  # logged actions (off the generator)
    rewards = torch.tensor([1.0, -0.5, 0.2, 0.0, 1.5, -1.0, 0.3, 0.8, -0.2, 0.4, 0.0, 1.0], device=device)
    gamma = 0.9
    returns, g = [], 0.0
    for r in reversed(rewards.tolist()):
        g = r + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns, device=device)
    adv = (returns - returns.mean()) / (returns.std() + 1e-8)
    log = []
    for _ in range(4):
        dist = D.Categorical(logits=policy(states))
        loss = -(dist.log_prob(actions) * adv).mean() - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(_r(loss, 5))
    dist = D.Categorical(logits=policy(states))
    torch.manual_seed(11)
    a1 = dist.sample()
    torch.manual_seed(11)
    a2 = dist.sample()
    oh = D.OneHotCategorical(logits=policy(states[:2]))
    rel = D.RelaxedOneHotCategorical(torch.tensor(0.5, device=device), logits=policy(states[:2]))
    return {"log": log, "returns": _r(returns, 4), "repeat": bool((a1 == a2).all()),
            "probs": _r(dist.probs[:3], 4), "support": str(dist.support),
            "enum": dist.enumerate_support(expand=False).flatten().tolist(),
            "oh": [list(oh.sample().shape), _r(oh.log_prob(torch.eye(3, device=device)[:2]), 5)],
            "rel": list(rel.rsample().shape), "has_rsample": [dist.has_rsample, rel.has_rsample]}


# ---- shapes, expand, validation and errors ---------------------------------------------------------------------------
def distribution_shapes_and_checks(torch, device):
    D = torch.distributions

    def t(v):
        return torch.tensor(v, device=device)

    n = D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    table = {
        "expand": lambda: [list(n.expand((3, 2)).batch_shape), list(n.expand((3, 2)).sample().shape)],
        "independent": lambda: [list(D.Independent(n, 1).batch_shape), list(D.Independent(n, 1).event_shape)],
        "lp_broadcast": lambda: list(n.log_prob(torch.zeros(4, 1, device=device)).shape),
        "cdf_icdf": lambda: n.icdf(n.cdf(t([0.3, -0.7]))),
        "bad_scale": lambda: D.Normal(t(0.0), t(-1.0)),
        "bad_probs": lambda: D.Bernoulli(probs=t(1.5)),
        "both_args": lambda: D.Categorical(probs=t([0.5, 0.5]), logits=t([0.0, 0.0])),
        "outside_support": lambda: D.Poisson(t(2.0)).log_prob(t(-1.0)),
        "no_validate": lambda: D.Normal(t(0.0), t(-1.0), validate_args=False).scale,
        "mvn_no_arg": lambda: D.MultivariateNormal(t([0.0, 0.0])),
        "no_kl": lambda: D.kl_divergence(D.Beta(t(1.0), t(2.0)), D.Poisson(t(1.0))),
        "kl_normal": lambda: D.kl_divergence(n, D.Normal(t([0.5, 0.5]), t([1.0, 1.0]))),
        "kl_bern": lambda: D.kl_divergence(D.Bernoulli(logits=t([0.3])), D.Bernoulli(probs=t([0.6]))),
        "laplace": lambda: [D.Laplace(t(0.0), t(2.0)).log_prob(t(1.0)), D.Laplace(t(0.0), t(2.0)).entropy()],
        "gamma": lambda: [D.Gamma(t(2.0), t(3.0)).log_prob(t(0.5)), D.Gamma(t(2.0), t(3.0)).mean],
        "studentt": lambda: D.StudentT(t(4.0)).log_prob(t(1.5)),
        "vonmises": lambda: D.VonMises(t(0.5), t(2.0)).log_prob(t(1.0)),
        "binomial": lambda: D.Binomial(5, t(0.3)).log_prob(t(2.0)),
        "geometric": lambda: [D.Geometric(t(0.25)).log_prob(t(3.0)), D.Geometric(t(0.25)).mean],
        "constraint_check": lambda: D.constraints.simplex.check(t([[0.5, 0.5], [0.7, 0.7]])),
        "interval": lambda: [D.constraints.interval(0.0, 1.0).check(t([0.5, 2.0])),
                             str(D.constraints.unit_interval)],
        "arg_constraints": lambda: sorted(D.Normal.arg_constraints),
        "batch_mismatch": lambda: D.Normal(t([0.0, 1.0]), t([1.0, 1.0, 1.0])),
        "sample_n": lambda: list(D.Exponential(t([1.0, 2.0])).sample((3,)).shape),
        "repr": lambda: repr(D.Normal(t(0.0), t(1.0))),
        "perplexity": lambda: D.Categorical(logits=t([0.0, 0.0, 0.0, 0.0])).perplexity(),
        "entropy_math": lambda: abs(D.Uniform(t(0.0), t(math.e)).entropy().item() - 1.0) < 1e-6,
    }
    return cases(torch, table)


PROGRAMS = [mixture_density_network, full_covariance_elbo, dirichlet_categorical, transformed_flow,
            reinforce_categorical, distribution_shapes_and_checks]
NEEDS_CPP = {}


# ---- validation messages, custom KL registrations and transforms' caches ---------------------------------------------
def distribution_validation_and_registry(torch, device):
    D, T = torch.distributions, torch.distributions.transforms

    def t(v):
        return torch.tensor(v, device=device)

    class Shifted(D.Normal):
        pass

    @D.register_kl(Shifted, Shifted)
    def _kl_shifted(p, q):
        return (p.loc - q.loc).abs()

    exp_cached = T.ExpTransform(cache_size=1)
    u = t([0.5, 1.5])
    y = exp_cached(u)
    table = {
        "support_msg": lambda: D.Normal(t(0.0), t(1.0)).log_prob(t(float("nan"))),
        "bern_value": lambda: D.Bernoulli(probs=t(0.3)).log_prob(t(0.5)),
        "cat_value": lambda: D.Categorical(logits=t([0.0, 1.0])).log_prob(t(2)),
        "cat_float": lambda: D.Categorical(logits=t([0.0, 1.0])).log_prob(t(1.0)),
        "dirichlet_value": lambda: D.Dirichlet(t([1.0, 2.0])).log_prob(t([0.5, 0.6])),
        "mvn_bad_tril": lambda: D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 0.0], [0.5, -1.0]])),
        "mvn_bad_cov": lambda: D.MultivariateNormal(t([0.0, 0.0]), covariance_matrix=t([[1.0, 2.0], [2.0, 1.0]])),
        "mvn_two": lambda: D.MultivariateNormal(t([0.0]), covariance_matrix=t([[1.0]]), scale_tril=t([[1.0]])),
        "independent_too_many": lambda: D.Independent(D.Normal(t([0.0]), t([1.0])), 2),
        "mixture_types": lambda: D.MixtureSameFamily(D.Normal(t(0.0), t(1.0)), D.Normal(t([0.0]), t([1.0]))),
        "mixture_batch": lambda: D.MixtureSameFamily(D.Categorical(logits=t([0.0, 0.0])),
                                                     D.Normal(t([0.0, 1.0, 2.0]), t([1.0, 1.0, 1.0]))),
        "transformed_base": lambda: D.TransformedDistribution(3.0, [T.ExpTransform()]),
        "kl_custom": lambda: D.kl_divergence(Shifted(t(1.0), t(1.0)), Shifted(t(3.0), t(1.0))),
        "kl_mvn_normal": lambda: D.kl_divergence(D.MultivariateNormal(t([0.0]), t([[1.0]])), D.Normal(t(0.0), t(1.0))),
        "kl_independent": lambda: D.kl_divergence(D.Independent(D.Normal(t([0.0, 1.0]), t([1.0, 2.0])), 1),
                                                  D.Independent(D.Normal(t([0.5, 0.5]), t([1.0, 1.0])), 1)),
        "cache_hit": lambda: exp_cached.inv(y) is u,
        "cache_miss": lambda: T.ExpTransform().inv(y) is u,
        "bad_cache": lambda: T.ExpTransform(cache_size=2),
        "inv_inv": lambda: T.ExpTransform().inv.inv == T.ExpTransform(),
        "compose_eq": lambda: T.ComposeTransform([T.ExpTransform(), T.SigmoidTransform()]).event_dim,
        "reshape": lambda: [list(T.ReshapeTransform((4,), (2, 2))(t([1.0, 2.0, 3.0, 4.0])).shape),
                            T.ReshapeTransform((4,), (2, 2)).event_dim],
        "reshape_bad": lambda: T.ReshapeTransform((4,), (3,)),
        "softmax_tf": lambda: T.SoftmaxTransform()(t([0.0, 1.0, 2.0])),
        "power": lambda: T.PowerTransform(t(2.0)).log_abs_det_jacobian(t(3.0), t(9.0)),
        "corr_cholesky": lambda: T.CorrCholeskyTransform()(t([0.1, -0.2, 0.3])),
        "lkj": lambda: D.LKJCholesky(3, t(2.0)).log_prob(torch.eye(3, device=device)),
        "wishart": lambda: D.Wishart(t(4.0), covariance_matrix=torch.eye(2, device=device)).log_prob(
            torch.eye(2, device=device) * 2),
        "validate_default": lambda: D.Distribution._validate_args,
        "sample_no_grad": lambda: D.Normal(t(0.0), t(1.0).requires_grad_()).sample().requires_grad,
        "rsample_grad": lambda: D.Normal(t(0.0), t(1.0).requires_grad_()).rsample().requires_grad,
        "no_rsample": lambda: D.Categorical(logits=t([0.0, 1.0])).rsample(),
        "cat_entropy_neg_inf": lambda: D.Categorical(logits=t([0.0, float("-inf")])).entropy(),
        "cat_probs_norm": lambda: D.Categorical(probs=t([2.0, 6.0])).probs,
    }
    return cases(torch, table)


PROGRAMS.append(distribution_validation_and_registry)


# ---- the less common families: moments, cdf/icdf, entropy ------------------------------------------------------------
def distribution_zoo_moments(torch, device):
    D = torch.distributions

    def t(v):
        return torch.tensor(v, device=device)

    zoo = {
        "kumaraswamy": (lambda: D.Kumaraswamy(t(2.0), t(3.0)), t(0.4)),
        "weibull": (lambda: D.Weibull(t(1.5), t(2.0)), t(1.2)),
        "pareto": (lambda: D.Pareto(t(1.0), t(3.0)), t(1.5)),
        "half_cauchy": (lambda: D.HalfCauchy(t(1.5)), t(0.7)),
        "half_normal": (lambda: D.HalfNormal(t(1.5)), t(0.7)),
        "cauchy": (lambda: D.Cauchy(t(0.5), t(2.0)), t(-1.0)),
        "gumbel": (lambda: D.Gumbel(t(0.5), t(2.0)), t(1.0)),
        "logistic_normal": (lambda: D.LogisticNormal(t([0.0, 1.0]), t([1.0, 0.5])), t([0.2, 0.5, 0.3])),
        "cont_bernoulli": (lambda: D.ContinuousBernoulli(probs=t(0.3)), t(0.6)),
        "fisher": (lambda: D.FisherSnedecor(t(5.0), t(7.0)), t(1.3)),
        "chi2": (lambda: D.Chi2(t(3.0)), t(2.0)),
        "inverse_gamma": (lambda: D.InverseGamma(t(3.0), t(2.0)), t(0.8)),
        "neg_binomial": (lambda: D.NegativeBinomial(t(4.0), probs=t(0.3)), t(2.0)),
        "poisson": (lambda: D.Poisson(t(3.5)), t(2.0)),
        "log_normal": (lambda: D.LogNormal(t(0.0), t(0.5)), t(1.5)),
        "uniform": (lambda: D.Uniform(t(-1.0), t(3.0)), t(0.5)),
        "exponential": (lambda: D.Exponential(t(2.0)), t(0.3)),
        "gen_pareto": (lambda: D.GeneralizedPareto(t(0.0), t(1.0), t(0.2)), t(0.5)),
        "binomial_logits": (lambda: D.Binomial(6, logits=t(0.4)), t(3.0)),
        "relaxed_bern": (lambda: D.RelaxedBernoulli(t(0.5), probs=t(0.3)), t(0.4)),
        "lowrank": (lambda: D.LowRankMultivariateNormal(t([0.0, 1.0]), t([[1.0], [0.5]]), t([0.5, 0.5])),
                    t([0.2, 0.3])),
    }
    out = {}
    for name, (make, value) in zoo.items():
        def attr(a, make=make):
            return lambda: getattr(make(), a)
        table = {"mean": attr("mean"), "variance": attr("variance"), "mode": attr("mode"),
                 "stddev": attr("stddev"), "entropy": lambda make=make: make().entropy(),
                 "log_prob": lambda make=make, value=value: make().log_prob(value),
                 "cdf": lambda make=make, value=value: make().cdf(value),
                 "icdf": lambda make=make: make().icdf(t(0.3)),
                 "support": lambda make=make: str(make().support),
                 "shapes": lambda make=make: [list(make().batch_shape), list(make().event_shape),
                                              list(make().sample((2,)).shape)]}
        out[name] = cases(torch, table)
    return out


PROGRAMS.append(distribution_zoo_moments)
