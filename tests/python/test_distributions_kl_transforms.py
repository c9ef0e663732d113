"""tandem.distributions: kl_divergence and register_kl, transforms, Independent, TransformedDistribution and the
constraints module, against torch.distributions evaluated on the same parameters. Every test runs on every device."""
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, to_torch

G = torch.Generator().manual_seed(99)


def _rand(*shape, low=0.0, high=1.0):
    return torch.rand(*shape, generator=G, dtype=torch.float64) * (high - low) + low


def _randn(*shape):
    return torch.randn(*shape, generator=G, dtype=torch.float64)


def _spd(n, *batch):
    a = _randn(*batch, n, n)
    return a @ a.mT + n * torch.eye(n, dtype=torch.float64)


# (p family, p params, q family, q params); params are torch tensors shared by both libraries
KL_PAIRS = [
    ("Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
     "Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}),
    ("Bernoulli", {"probs": torch.tensor([0.0, 0.3, 1.0, 0.6], dtype=torch.float64)},
     "Bernoulli", {"probs": torch.tensor([0.2, 0.0, 0.5, 1.0], dtype=torch.float64)}),
    ("Categorical", {"probs": torch.tensor([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]], dtype=torch.float64)},
     "Categorical", {"probs": torch.tensor([[0.1, 0.6, 0.3], [0.0, 0.5, 0.5]], dtype=torch.float64)}),
    ("OneHotCategorical", {"logits": _randn(2, 4)}, "OneHotCategorical", {"logits": _randn(2, 4)}),
    ("Geometric", {"probs": _rand(3, low=0.1, high=0.9)}, "Geometric", {"probs": _rand(3, low=0.1, high=0.9)}),
    ("Uniform", {"low": torch.tensor([0.0, -1.0]), "high": torch.tensor([1.0, 2.0])},
     "Uniform", {"low": torch.tensor([-1.0, 0.0]), "high": torch.tensor([2.0, 3.0])}),
    ("Laplace", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
     "Laplace", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}),
    ("Exponential", {"rate": _rand(3, low=0.5, high=2)}, "Exponential", {"rate": _rand(3, low=0.5, high=2)}),
    ("Cauchy", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
     "Cauchy", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}),
    ("MultivariateNormal", {"loc": _randn(2, 3), "covariance_matrix": _spd(3, 2)},
     "MultivariateNormal", {"loc": _randn(3), "scale_tril": torch.linalg.cholesky(_spd(3))}),
    ("LowRankMultivariateNormal", {"loc": _randn(2, 3), "cov_factor": _randn(3, 2), "cov_diag": _rand(3, low=0.5)},
     "LowRankMultivariateNormal", {"loc": _randn(3), "cov_factor": _randn(2, 3, 1), "cov_diag": _rand(3, low=0.5)}),
    ("LowRankMultivariateNormal", {"loc": _randn(3), "cov_factor": _randn(3, 2), "cov_diag": _rand(3, low=0.5)},
     "MultivariateNormal", {"loc": _randn(3), "covariance_matrix": _spd(3)}),
    ("MultivariateNormal", {"loc": _randn(3), "covariance_matrix": _spd(3)},
     "LowRankMultivariateNormal", {"loc": _randn(3), "cov_factor": _randn(3, 2), "cov_diag": _rand(3, low=0.5)}),
    ("HalfNormal", {"scale": _rand(3, low=0.5, high=2)}, "HalfNormal", {"scale": _rand(3, low=0.5, high=2)}),
    ("Pareto", {"scale": torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64), "alpha": _rand(3, low=0.5, high=3)},
     "Pareto", {"scale": torch.tensor([0.5, 2.5, 0.5], dtype=torch.float64), "alpha": _rand(3, low=0.5, high=3)}),
    ("Uniform", {"low": _rand(3, low=-2, high=-1), "high": _rand(3, low=1, high=2)},
     "Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}),
    ("Uniform", {"low": torch.tensor([0.5, -1.0], dtype=torch.float64),
                 "high": torch.tensor([2.0, 1.0], dtype=torch.float64)},
     "Exponential", {"rate": _rand(2, low=0.5, high=2)}),
    ("Exponential", {"rate": _rand(3, low=0.5, high=2)},
     "Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}),
    ("Laplace", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
     "Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}),
    ("Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, "Uniform", {"low": -_rand(3), "high": _rand(3)}),
    ("Normal", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, "Exponential", {"rate": _rand(3, low=0.5)}),
    ("Laplace", {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)}, "Exponential", {"rate": _rand(3, low=0.5)}),
]


# every cross-family pair both libraries have, on shared parameter sets per family (some give infinite KL)
FAMILY_PARAMS = {
    "Normal": {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
    "Laplace": {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
    "Gumbel": {"loc": _randn(3), "scale": _rand(3, low=0.5, high=2)},
    "Exponential": {"rate": _rand(3, low=0.5, high=2)},
    "Uniform": {"low": torch.tensor([0.2, -0.5, 1.5], dtype=torch.float64),
                "high": torch.tensor([0.9, 2.0, 3.0], dtype=torch.float64)},
    "Pareto": {"scale": torch.tensor([0.1, 1.0, 2.0], dtype=torch.float64),
               "alpha": torch.tensor([0.8, 1.5, 3.0], dtype=torch.float64)},
    "ContinuousBernoulli": {"probs": torch.tensor([0.2, 0.5, 0.9], dtype=torch.float64)},
}
CROSS_PAIRS = [(p, q) for p in FAMILY_PARAMS for q in FAMILY_PARAMS
               if p != q and (getattr(torch.distributions, p), getattr(torch.distributions, q))
               in torch.distributions.kl._KL_REGISTRY]


@pytest.mark.parametrize("pair", CROSS_PAIRS, ids=[f"{p}-{q}" for p, q in CROSS_PAIRS])
def test_cross_family_kl_matches_torch(pair, device):
    pf, qf = pair
    p, p_params = _dist(tandem, pf, FAMILY_PARAMS[pf], device, requires_grad=True)
    q, q_params = _dist(tandem, qf, FAMILY_PARAMS[qf], device, requires_grad=True)
    tp, tp_params = _dist(torch, pf, FAMILY_PARAMS[pf], requires_grad=True)
    tq, tq_params = _dist(torch, qf, FAMILY_PARAMS[qf], requires_grad=True)
    got = tandem.distributions.kl_divergence(p, q)
    want = torch.distributions.kl_divergence(tp, tq)
    assert_same(got, want, device=device)
    # gradients on the batch entries with finite KL (each parameter set is one vector over the batch)
    keep = torch.isfinite(want).nonzero().flatten()
    if keep.numel():
        pick = {f: {k: v[keep] for k, v in FAMILY_PARAMS[f].items()} for f in (pf, qf)}
        p, p_params = _dist(tandem, pf, pick[pf], device, requires_grad=True)
        q, q_params = _dist(tandem, qf, pick[qf], device, requires_grad=True)
        tp, tp_params = _dist(torch, pf, pick[pf], requires_grad=True)
        tq, tq_params = _dist(torch, qf, pick[qf], requires_grad=True)
        tandem.distributions.kl_divergence(p, q).sum().backward()
        torch.distributions.kl_divergence(tp, tq).sum().backward()
        for mine, theirs in zip(list(p_params.values()) + list(q_params.values()),
                                list(tp_params.values()) + list(tq_params.values())):
            if theirs.grad is not None:
                assert_same(mine.grad, theirs.grad, device=device)


def test_kl_between_exponential_families_uses_bregman_divergence(device):
    D = tandem.distributions
    T = lambda v: from_torch(torch.tensor(v, dtype=torch.float64), device)  # noqa: E731
    p, q = D.Bernoulli(T([0.2, 0.6])), D.Bernoulli(T([0.5, 0.3]))
    generic = D.kl._kl_expfamily_expfamily(p, q)
    assert_same(generic, torch.distributions.kl_divergence(torch.distributions.Bernoulli(torch.tensor([0.2, 0.6],
                dtype=torch.float64)), torch.distributions.Bernoulli(torch.tensor([0.5, 0.3], dtype=torch.float64))),
                device=device)
    with pytest.raises(NotImplementedError, match="The cross KL-divergence between different exponential families"):
        D.kl_divergence(p, D.Normal(T([0.0]), T([1.0])))


def _dist(lib, family, params, device="cpu", requires_grad=False):
    ps = {}
    for k, v in params.items():
        t = v.clone() if lib is torch else from_torch(v, device)
        ps[k] = t.requires_grad_() if requires_grad else t
    return getattr(lib.distributions, family)(**ps), ps


@pytest.mark.parametrize("case", range(len(KL_PAIRS)), ids=[f"{p}-{q}" for p, _, q, _ in KL_PAIRS])
def test_kl_divergence_matches_torch(case, device):
    pf, pp, qf, qp = KL_PAIRS[case]
    p, p_params = _dist(tandem, pf, pp, device, requires_grad=True)
    q, q_params = _dist(tandem, qf, qp, device, requires_grad=True)
    tp, tp_params = _dist(torch, pf, pp, requires_grad=True)
    tq, tq_params = _dist(torch, qf, qp, requires_grad=True)
    got = tandem.distributions.kl_divergence(p, q)
    want = torch.distributions.kl_divergence(tp, tq)
    assert_same(got, want, device=device)
    finite = torch.isfinite(want)
    if bool(finite.all()) and pf != "Categorical":
        got.sum().backward()
        want.sum().backward()
        for mine, theirs in zip(list(p_params.values()) + list(q_params.values()),
                                list(tp_params.values()) + list(tq_params.values())):
            if theirs.grad is not None:
                assert_same(mine.grad, theirs.grad, device=device)


def test_kl_independent_and_transformed(device):
    D, TD = tandem.distributions, torch.distributions
    a, b, c, d = _randn(2, 3), _rand(2, 3, low=0.5), _randn(2, 3), _rand(2, 3, low=0.5)
    T = lambda x: from_torch(x, device)  # noqa: E731
    got = D.kl_divergence(D.Independent(D.Normal(T(a), T(b)), 1), D.Independent(D.Normal(T(c), T(d)), 1))
    want = TD.kl_divergence(TD.Independent(TD.Normal(a, b), 1), TD.Independent(TD.Normal(c, d), 1))
    assert_same(got, want, device=device)
    got = D.kl_divergence(D.LogNormal(T(a), T(b)), D.LogNormal(T(c), T(d)))
    want = TD.kl_divergence(TD.LogNormal(a, b), TD.LogNormal(c, d))
    assert_same(got, want, device=device)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.Independent(D.Normal(T(a), T(b)), 1), D.Independent(D.Normal(T(c), T(d)), 2))


def test_register_kl_dispatch_and_ambiguity():
    D = tandem.distributions

    class MyNormal(D.Normal):
        pass

    class MyLaplace(D.Laplace):
        pass

    p, q = MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)
    # subclasses inherit the parent's rule until a more specific one is registered
    assert D.kl_divergence(p, q).item() == pytest.approx(D.kl_divergence(D.Normal(0.0, 1.0), q).item())

    @D.register_kl(MyNormal, D.Normal)
    def _mine(p, q):
        return tandem.tensor(42.0)

    assert D.kl_divergence(p, q).item() == 42.0
    assert D.kl_divergence(q, p).item() != 42.0

    # (MyNormal, Normal) and (Normal, MyNormal) both match (MyNormal, MyNormal): ambiguous
    @D.register_kl(D.Normal, MyNormal)
    def _theirs(p, q):
        return tandem.tensor(7.0)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        D.kl_divergence(MyNormal(0.0, 1.0), MyNormal(0.0, 1.0))
    assert any("Ambiguous kl_divergence(MyNormal, MyNormal)" in str(w.message) for w in caught)
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type MyLaplace"):
        D.kl_divergence(MyLaplace(0.0, 1.0), D.Categorical(tandem.ones(2)))


# ---- transforms ------------------------------------------------------------------------------------------

def _vec(lib, device, values):
    return lib.tensor(values, dtype=lib.float64, device=device)


TRANSFORMS = {
    "Exp": (lambda T, lib, dev: T.ExpTransform(), _randn(4, 3)),
    "Sigmoid": (lambda T, lib, dev: T.SigmoidTransform(), _randn(4, 3) * 3),
    "Tanh": (lambda T, lib, dev: T.TanhTransform(), _randn(4, 3)),
    "Softplus": (lambda T, lib, dev: T.SoftplusTransform(), _randn(4, 3) * 3),
    "Affine": (lambda T, lib, dev: T.AffineTransform(1.5, -2.0), _randn(4, 3)),
    "AffineTensor": (lambda T, lib, dev: T.AffineTransform(_vec(lib, dev, [0.5, 1.0, -1.0]),
                                                           _vec(lib, dev, [2.0, -0.5, 3.0])), _randn(4, 3)),
    "AffineEvent": (lambda T, lib, dev: T.AffineTransform(0.5, _vec(lib, dev, [2.0, -0.5, 3.0]), event_dim=1),
                    _randn(4, 3)),
    "Power": (lambda T, lib, dev: T.PowerTransform(_vec(lib, dev, 2.5)), _rand(4, 3, low=0.2, high=3)),
    "Compose": (lambda T, lib, dev: T.ComposeTransform([T.AffineTransform(0.3, 2.0), T.TanhTransform(),
                                                   T.AffineTransform(1.0, 0.5)]), _randn(4, 3)),
    "Independent": (lambda T, lib, dev: T.IndependentTransform(T.SigmoidTransform(), 1), _randn(4, 3)),
    "InverseExp": (lambda T, lib, dev: T.ExpTransform().inv, _rand(4, 3, low=0.1, high=3)),
    "StickBreaking": (lambda T, lib, dev: T.StickBreakingTransform(), _randn(4, 3)),
    "CorrCholesky": (lambda T, lib, dev: T.CorrCholeskyTransform(), _randn(4, 6)),
    "LowerCholesky": (lambda T, lib, dev: T.LowerCholeskyTransform(), _randn(4, 3, 3)),
    "PositiveDefinite": (lambda T, lib, dev: T.PositiveDefiniteTransform(), _randn(4, 3, 3)),
    "Reshape": (lambda T, lib, dev: T.ReshapeTransform((3,), (3, 1)), _randn(4, 3)),
    "Cat": (lambda T, lib, dev: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], -1, [1, 2]),
            _randn(4, 3)),
    "CatBatchDim": (lambda T, lib, dev: T.CatTransform([T.ExpTransform(), T.TanhTransform()], 0, [1, 3]),
                    _randn(4, 3)),
    "Stack": (lambda T, lib, dev: T.StackTransform([T.ExpTransform(), T.TanhTransform(), T.SigmoidTransform()], -1),
              _randn(4, 3)),
    "CumulativeDistribution": (lambda T, lib, dev: T.CumulativeDistributionTransform(
        lib.distributions.Normal(_vec(lib, dev, 0.5), _vec(lib, dev, 2.0))), _randn(4, 3)),
}


def _outcome(fn):
    """fn()'s value, or the type of the exception it raises (to compare what each library refuses)."""
    try:
        return fn()
    except (NotImplementedError, ValueError) as e:
        return type(e)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_matches_torch(name, device):
    make, x = TRANSFORMS[name]
    mine = make(tandem.distributions.transforms, tandem, device)
    theirs = make(torch.distributions.transforms, torch, "cpu")
    mine_x = from_torch(x, device)
    y, want_y = mine(mine_x), theirs(x)
    assert_same(y, want_y, device=device)
    assert_same(mine.inv(y), theirs.inv(want_y), device=device)
    ladj = _outcome(lambda: mine.log_abs_det_jacobian(mine_x, y))
    want_ladj = _outcome(lambda: theirs.log_abs_det_jacobian(x, want_y))
    if isinstance(want_ladj, type):
        assert ladj is want_ladj
    else:
        assert_same(ladj, want_ladj, device=device)
    assert repr(mine) == repr(theirs)
    assert repr(mine.domain) == repr(theirs.domain) and repr(mine.codomain) == repr(theirs.codomain)
    assert mine.bijective == theirs.bijective
    sign, want_sign = _outcome(lambda: mine.sign), _outcome(lambda: theirs.sign)
    assert (sign.tolist() if isinstance(sign, tandem.Tensor) else sign) == (
        want_sign.tolist() if isinstance(want_sign, torch.Tensor) else want_sign)
    shape = (2,) + tuple(x.shape)
    for method in ("forward_shape", "inverse_shape"):
        got = _outcome(lambda: getattr(mine, method)(shape))
        want = _outcome(lambda: getattr(theirs, method)(shape))
        assert (got if isinstance(got, type) else tuple(got)) == (want if isinstance(want, type) else tuple(want))


def test_transform_cache_equality_and_inverse():
    T = tandem.distributions.transforms
    t = T.ExpTransform(cache_size=1)
    x = tandem.randn(3)
    y = t(x)
    assert t.inv(y) is x  # the cached input comes back, not a recomputation
    assert t(x) is y
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
    assert T.AffineTransform(0.0, 1.0) == T.AffineTransform(0.0, 1.0) != T.AffineTransform(0.0, 2.0)
    assert t.inv.inv is t
    assert T.ExpTransform().with_cache(1)._cache_size == 1
    assert repr(T.identity_transform) == repr(torch.distributions.transforms.identity_transform)
    assert T.identity_transform(x) is x


# (constraint from a constraints module, the shape of an unconstrained input for its transform)
CONSTRAINTS = [
    (lambda C: C.real, (4, 3)), (lambda C: C.positive, (4, 3)), (lambda C: C.nonnegative, (4, 3)),
    (lambda C: C.greater_than(1.5), (4, 3)), (lambda C: C.less_than(-0.5), (4, 3)),
    (lambda C: C.unit_interval, (4, 3)), (lambda C: C.interval(-2.0, 3.0), (4, 3)),
    (lambda C: C.half_open_interval(0.0, 1.0), (4, 3)), (lambda C: C.simplex, (4, 3)),
    (lambda C: C.real_vector, (4, 3)), (lambda C: C.independent(C.positive, 1), (4, 3)),
    (lambda C: C.corr_cholesky, (4, 6)), (lambda C: C.lower_cholesky, (4, 3, 3)),
    (lambda C: C.positive_definite, (4, 3, 3)), (lambda C: C.cat([C.real, C.positive], -1, [1, 2]), (4, 3)),
    (lambda C: C.stack([C.real, C.positive, C.real], -1), (4, 3)),
]


@pytest.mark.parametrize("case", range(len(CONSTRAINTS)))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_biject_to_and_transform_to_match_torch(case, registry, device):
    make, shape = CONSTRAINTS[case]
    c_mine = make(tandem.distributions.constraints)
    c_theirs = make(torch.distributions.constraints)
    mine = _outcome(lambda: getattr(tandem.distributions, registry)(c_mine))
    theirs = _outcome(lambda: getattr(torch.distributions, registry)(c_theirs))
    if isinstance(theirs, type):
        assert mine is theirs
        return
    assert repr(mine) == repr(theirs)
    x = _randn(*shape)
    y, want_y = mine(from_torch(x, device)), theirs(x)
    assert_same(y, want_y, device=device)
    assert bool(c_mine.check(y).all())
    ladj = _outcome(lambda: mine.log_abs_det_jacobian(from_torch(x, device), y))
    want_ladj = _outcome(lambda: theirs.log_abs_det_jacobian(x, want_y))
    if not isinstance(want_ladj, type):
        assert_same(ladj, want_ladj, device=device)


def test_constraint_registry_register():
    D = tandem.distributions

    class Odd(D.constraints.Constraint):
        def check(self, value):
            return value % 2 == 1

    with pytest.raises(NotImplementedError, match="Cannot transform Odd constraints"):
        D.biject_to(Odd())
    D.biject_to.register(Odd, lambda c: D.transforms.AffineTransform(1.0, 2.0))
    assert isinstance(D.biject_to(Odd()), D.transforms.AffineTransform)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        D.transform_to.register(int, lambda c: None)


# ---- TransformedDistribution, Independent ------------------------------------------------------------------

def test_transformed_distribution_matches_torch(device):
    D, TD = tandem.distributions, torch.distributions
    loc, scale = _randn(2, 3), _rand(2, 3, low=0.5, high=1.5)

    def build(lib, mod, dev):
        T = (lambda v: from_torch(v, dev)) if lib is tandem else (lambda v: v.clone())  # noqa: E731
        base = mod.Normal(T(loc), T(scale))
        tr = [mod.transforms.AffineTransform(T(loc), -2.0), mod.transforms.TanhTransform()]
        return mod.TransformedDistribution(base, tr)

    d, e = build(tandem, D, device), build(torch, TD, "cpu")
    v = _rand(5, 2, 3, low=-0.9, high=0.9)
    assert_same(d.log_prob(from_torch(v, device)), e.log_prob(v), device=device)
    assert_same(d.cdf(from_torch(v, device)), e.cdf(v), device=device)  # decreasing: cdf is 1 - base cdf
    q = _rand(5, 2, 3, low=0.1, high=0.9)
    assert_same(d.icdf(from_torch(q, device)), e.icdf(q), device=device)
    assert tuple(d.batch_shape) == (2, 3) and tuple(d.sample((4,)).shape) == (4, 2, 3)
    assert repr(d.support) == repr(e.support) and d.has_rsample
    dx = d.expand((5, 2, 3))
    assert tuple(dx.batch_shape) == (5, 2, 3)
    # an event-dim transform folds batch dims into the event
    f = D.TransformedDistribution(D.Normal(from_torch(loc, device), from_torch(scale, device)),
                                  D.transforms.AffineTransform(0.0, 2.0, event_dim=1))
    g = TD.TransformedDistribution(TD.Normal(loc, scale), TD.transforms.AffineTransform(0.0, 2.0, event_dim=1))
    assert tuple(f.event_shape) == tuple(g.event_shape) == (3,)
    w = _randn(2, 3)
    assert_same(f.log_prob(from_torch(w, device)), g.log_prob(w), device=device)


def test_independent_matches_torch(device):
    D, TD = tandem.distributions, torch.distributions
    loc, scale = _randn(4, 2, 3), _rand(4, 2, 3, low=0.5)
    d = D.Independent(D.Normal(from_torch(loc, device), from_torch(scale, device)), 2)
    e = TD.Independent(TD.Normal(loc, scale), 2)
    assert tuple(d.batch_shape) == (4,) and tuple(d.event_shape) == (2, 3)
    v = _randn(5, 4, 2, 3)
    assert_same(d.log_prob(from_torch(v, device)), e.log_prob(v), device=device)
    assert_same(d.entropy(), e.entropy(), device=device)
    assert_same(d.mean, e.mean, device=device)
    assert repr(d) == repr(e).replace("torch.Size", "tandem.Size")
    assert repr(d.support) == repr(e.support) and d.has_rsample and not d.has_enumerate_support
    assert tuple(d.expand((3, 4)).sample((2,)).shape) == (2, 3, 4, 2, 3)
    b = D.Independent(D.Bernoulli(tandem.full((2,), 0.5, device=device)), 0)
    assert b.has_enumerate_support and tuple(b.enumerate_support().shape) == (2, 2)


# ---- smaller family behaviours ---------------------------------------------------------------------------

def test_edge_values_match_torch(device):
    D, TD = tandem.distributions, torch.distributions
    T = lambda v: from_torch(torch.tensor(v, dtype=torch.float64), device)  # noqa: E731
    W = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
    # Bernoulli's mode is nan at 0.5; Categorical's entropy ignores zero-probability classes
    assert_same(D.Bernoulli(T([0.5, 0.2, 0.8])).mode, TD.Bernoulli(W([0.5, 0.2, 0.8])).mode, device=device)
    assert_same(D.Categorical(T([0.0, 0.3, 0.7])).entropy(), TD.Categorical(W([0.0, 0.3, 0.7])).entropy(),
                device=device)
    # unnormalised Categorical probs are normalised; logits are shifted to log-probabilities
    assert_same(D.Categorical(T([1.0, 3.0])).probs, TD.Categorical(W([1.0, 3.0])).probs, device=device)
    assert_same(D.Categorical(logits=T([1.0, 3.0])).logits, TD.Categorical(logits=W([1.0, 3.0])).logits,
                device=device)
    # Geometric with probs 1: outcome 0 is certain
    assert_same(D.Geometric(T([1.0])).log_prob(T([0.0, 1.0])), TD.Geometric(W([1.0])).log_prob(W([0.0, 1.0])),
                device=device)
    assert_same(D.Uniform(T([0.0]), T([1.0])).log_prob(T([0.0, 1.0])),
                TD.Uniform(W([0.0]), W([1.0])).log_prob(W([0.0, 1.0])), device=device)
    # probs <-> logits round trips and the lazily computed alternative
    assert_same(D.Bernoulli(logits=T([3.0, -1.0])).probs, TD.Bernoulli(logits=W([3.0, -1.0])).probs, device=device)
    assert_same(D.Bernoulli(probs=T([0.0, 0.3])).logits, TD.Bernoulli(probs=W([0.0, 0.3])).logits, device=device)


def test_exponential_family_entropy_via_autograd(device):
    """The generic Bregman entropy (autograd on the log normaliser) agrees with each closed form."""
    D = tandem.distributions
    T = lambda v: from_torch(torch.tensor(v, dtype=torch.float64), device)  # noqa: E731
    for d in [D.Normal(T([0.3, -1.0]), T([0.5, 2.0])), D.Exponential(T([0.5, 3.0])), D.Bernoulli(T([0.2, 0.7]))]:
        generic = D.ExponentialFamily.entropy(d)
        assert_same(generic, to_torch(d.entropy()), device=device)


def test_straight_through_and_relaxed_gradients(device):
    D = tandem.distributions
    logits = tandem.tensor([0.2, -1.0, 0.5], dtype=tandem.float64, device=device, requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(logits=logits)
    tandem.manual_seed(0)
    s = d.rsample((4,))
    assert sorted(set(s.detach().flatten().tolist())) == [0.0, 1.0]
    (s * tandem.arange(3, dtype=tandem.float64, device=device)).sum().backward()
    # the straight-through gradient is that of 4 * sum_k k * softmax(logits)_k
    probs = tandem.softmax(logits.detach(), -1)
    k = tandem.arange(3, dtype=tandem.float64, device=device)
    expected = 4 * probs * (k - (probs * k).sum())
    assert_same(logits.grad, to_torch(expected), device=device)


def test_constraints_check_match_torch(device):
    C, TC = tandem.distributions.constraints, torch.distributions.constraints
    values = [_randn(3, 4), _rand(3, 4), torch.tensor([[0.0, 1.0], [1.0, 1.0]], dtype=torch.float64),
              torch.tensor([[0.3, 0.7], [0.5, 0.6]], dtype=torch.float64), torch.floor(_randn(4) * 3),
              torch.tensor([float("nan"), 1.0, -0.0, 2.5], dtype=torch.float64)]
    names = ["real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
             "positive_integer", "simplex", "one_hot", "real_vector"]
    for v in values:
        for name in names:
            mine, theirs = getattr(C, name), getattr(TC, name)
            if v.dim() < theirs.event_dim:
                continue
            assert_same(mine.check(from_torch(v, device)), theirs.check(v), device=device)
        for mine, theirs in [(C.interval(-0.5, 0.5), TC.interval(-0.5, 0.5)),
                             (C.half_open_interval(0.0, 1.0), TC.half_open_interval(0.0, 1.0)),
                             (C.integer_interval(0, 2), TC.integer_interval(0, 2)),
                             (C.greater_than_eq(0.5), TC.greater_than_eq(0.5)), (C.less_than(0.2), TC.less_than(0.2)),
                             (C.independent(C.positive, 1), TC.independent(TC.positive, 1))]:
            assert_same(mine.check(from_torch(v, device)), theirs.check(v), device=device)
            assert repr(mine) == repr(theirs)
    mats = [_spd(3, 2), torch.linalg.cholesky(_spd(3, 2)), _randn(2, 3, 3),
            torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=torch.float64)]
    for m in mats:
        for name in ["lower_triangular", "lower_cholesky", "positive_definite", "positive_semidefinite",
                     "symmetric", "square"]:
            assert_same(getattr(C, name).check(from_torch(m, device)), getattr(TC, name).check(m), device=device)
    for name in dir(TC):
        obj = getattr(TC, name)
        if isinstance(obj, TC.Constraint) and not isinstance(obj, TC._Dependent):
            mine = getattr(C, name)
            assert repr(mine) == repr(obj)
            assert (mine.is_discrete, mine.event_dim) == (obj.is_discrete, obj.event_dim)
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
