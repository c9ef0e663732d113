"""torch.distributions as a matrix, beyond distributions.py (one case per corner): each scalar-parameter family
built with good parameters, with a bad one (negative, zero, NaN, inf, a 0-d int tensor) with validate_args True and
False; for the good ones: log_prob of a value inside, outside the support, of another shape and dtype, with
validation on and off; sample() and rsample() (availability, shapes for sample_shape () (3,) and [2, 2], dtype);
mean/variance/stddev/mode/entropy/cdf/icdf where the family has them; expand() to a larger, a smaller and an
incompatible batch shape; kl_divergence between every pair of families (registered or not), compared by value
or by the error."""
import math

from . import Case

NAN, INF = math.nan, math.inf


def S(fn):
    return Case(fn, "shape")


def D(L):
    return L.distributions


def t(L, d, v, dtype="float32"):
    return L.tensor(v, device=d, dtype=getattr(L, dtype))


# name: (constructor(L, d, params...), good params, {bad param set name: params}, value inside, value outside)
FAMILIES = {
    "Normal": (lambda L, d, a, b, **kw: D(L).Normal(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
               0.5, None),
    "Laplace": (lambda L, d, a, b, **kw: D(L).Laplace(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
                0.5, None),
    "Cauchy": (lambda L, d, a, b, **kw: D(L).Cauchy(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
               0.5, None),
    "Gumbel": (lambda L, d, a, b, **kw: D(L).Gumbel(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
               0.5, None),
    "LogNormal": (lambda L, d, a, b, **kw: D(L).LogNormal(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
                  0.5, -1.0),
    "Uniform": (lambda L, d, a, b, **kw: D(L).Uniform(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
                0.75, 5.0),
    "Gamma": (lambda L, d, a, b, **kw: D(L).Gamma(t(L, d, a), t(L, d, b), **kw), ([1.0, 2.0], [1.0, 0.5]),
              0.5, -1.0),
    "Beta": (lambda L, d, a, b, **kw: D(L).Beta(t(L, d, a), t(L, d, b), **kw), ([1.0, 2.0], [1.5, 0.5]),
             0.5, 1.5),
    "Weibull": (lambda L, d, a, b, **kw: D(L).Weibull(t(L, d, a), t(L, d, b), **kw), ([1.0, 2.0], [1.5, 0.5]),
                0.5, -1.0),
    "Kumaraswamy": (lambda L, d, a, b, **kw: D(L).Kumaraswamy(t(L, d, a), t(L, d, b), **kw),
                    ([1.0, 2.0], [1.5, 0.5]), 0.5, 1.5),
    "Pareto": (lambda L, d, a, b, **kw: D(L).Pareto(t(L, d, a), t(L, d, b), **kw), ([1.0, 2.0], [1.5, 3.0]),
               2.5, 0.5),
    "FisherSnedecor": (lambda L, d, a, b, **kw: D(L).FisherSnedecor(t(L, d, a), t(L, d, b), **kw),
                       ([1.0, 2.0], [3.0, 5.0]), 0.5, -1.0),
    "StudentT": (lambda L, d, a, b, **kw: D(L).StudentT(t(L, d, a), t(L, d, b), **kw), ([3.0, 5.0], [0.0, 1.0]),
                 0.5, None),
    "VonMises": (lambda L, d, a, b, **kw: D(L).VonMises(t(L, d, a), t(L, d, b), **kw), ([0.0, 1.0], [1.0, 2.0]),
                 0.5, None),
    "Exponential": (lambda L, d, a, **kw: D(L).Exponential(t(L, d, a), **kw), ([1.0, 2.0],), 0.5, -1.0),
    "Chi2": (lambda L, d, a, **kw: D(L).Chi2(t(L, d, a), **kw), ([1.0, 2.0],), 0.5, -1.0),
    "HalfNormal": (lambda L, d, a, **kw: D(L).HalfNormal(t(L, d, a), **kw), ([1.0, 2.0],), 0.5, -1.0),
    "HalfCauchy": (lambda L, d, a, **kw: D(L).HalfCauchy(t(L, d, a), **kw), ([1.0, 2.0],), 0.5, -1.0),
    "Poisson": (lambda L, d, a, **kw: D(L).Poisson(t(L, d, a), **kw), ([1.0, 2.0],), 2.0, -1.0),
    "Bernoulli": (lambda L, d, a, **kw: D(L).Bernoulli(t(L, d, a), **kw), ([0.25, 0.5],), 1.0, 0.5),
    "Geometric": (lambda L, d, a, **kw: D(L).Geometric(t(L, d, a), **kw), ([0.25, 0.5],), 2.0, -1.0),
    "ContinuousBernoulli": (lambda L, d, a, **kw: D(L).ContinuousBernoulli(t(L, d, a), **kw), ([0.25, 0.7],),
                            0.5, 1.5),
    "Binomial": (lambda L, d, a, **kw: D(L).Binomial(10, t(L, d, a), **kw), ([0.25, 0.5],), 3.0, 11.0),
    "NegativeBinomial": (lambda L, d, a, **kw: D(L).NegativeBinomial(5.0, t(L, d, a), **kw), ([0.25, 0.5],),
                         3.0, -1.0),
}
BAD = {"negative": -1.0, "zero": 0.0, "nan": NAN, "inf": INF, "above_one": 1.5}


def _params(good, which, value):
    params = [list(p) for p in good]
    params[which][0] = value
    return params


CASES = {}
for _f, (_make, _good, _inside, _outside) in FAMILIES.items():
    for _i in range(len(_good)):
        for _b, _v in BAD.items():
            for _va in (True, False):
                CASES[f"{_f}/p{_i}_{_b}/validate_{_va}"] = S(
                    lambda L, d, mk=_make, g=_good, i=_i, v=_v, va=_va: mk(L, d, *_params(g, i, v),
                                                                         validate_args=va).batch_shape)
    good = lambda L, d, mk=_make, g=_good, va=True: mk(L, d, *g, validate_args=va)
    CASES[f"{_f}/ok_batch_shape"] = lambda L, d, g=good: (g(L, d).batch_shape, g(L, d).event_shape)
    CASES[f"{_f}/log_prob_inside"] = lambda L, d, g=good, x=_inside: g(L, d).log_prob(t(L, d, [x, x]))
    CASES[f"{_f}/log_prob_broadcast"] = lambda L, d, g=good, x=_inside: g(L, d).log_prob(t(L, d, [[x], [x]]))
    CASES[f"{_f}/log_prob_bad_shape"] = lambda L, d, g=good, x=_inside: g(L, d).log_prob(t(L, d, [x, x, x]))
    CASES[f"{_f}/log_prob_float64"] = lambda L, d, g=good, x=_inside: g(L, d).log_prob(t(L, d, [x, x], "float64"))
    CASES[f"{_f}/log_prob_python_float"] = lambda L, d, g=good, x=_inside: g(L, d).log_prob(x)
    CASES[f"{_f}/log_prob_nan"] = lambda L, d, g=good: g(L, d).log_prob(t(L, d, [NAN, NAN]))
    CASES[f"{_f}/log_prob_nan_no_validate"] = lambda L, d, g=good: g(L, d, va=False).log_prob(t(L, d, [NAN, NAN]))
    if _outside is not None:
        CASES[f"{_f}/log_prob_outside"] = lambda L, d, g=good, x=_outside: g(L, d).log_prob(t(L, d, [x, x]))
        CASES[f"{_f}/log_prob_outside_no_validate"] = lambda L, d, g=good, x=_outside: g(L, d, va=False).log_prob(
            t(L, d, [x, x]))
    CASES[f"{_f}/sample"] = S(lambda L, d, g=good: g(L, d).sample())
    CASES[f"{_f}/sample_3"] = S(lambda L, d, g=good: g(L, d).sample((3,)))
    CASES[f"{_f}/sample_int"] = S(lambda L, d, g=good: g(L, d).sample(3))
    CASES[f"{_f}/sample_list"] = S(lambda L, d, g=good: g(L, d).sample([2, 2]))
    CASES[f"{_f}/sample_negative"] = S(lambda L, d, g=good: g(L, d).sample((-1,)))
    CASES[f"{_f}/rsample"] = S(lambda L, d, g=good: g(L, d).rsample((2,)))
    CASES[f"{_f}/has_rsample"] = lambda L, d, g=good: g(L, d).has_rsample
    CASES[f"{_f}/support"] = lambda L, d, g=good: str(g(L, d).support).split("(")[0]
    for _m in ("mean", "variance", "stddev", "mode", "entropy"):
        CASES[f"{_f}/{_m}"] = lambda L, d, g=good, m=_m: (lambda v: v() if callable(v) else v)(getattr(g(L, d), m))
    CASES[f"{_f}/cdf"] = lambda L, d, g=good, x=_inside: g(L, d).cdf(t(L, d, [x, x]))
    CASES[f"{_f}/icdf"] = lambda L, d, g=good: g(L, d).icdf(t(L, d, [0.25, 0.75]))
    CASES[f"{_f}/expand_larger"] = lambda L, d, g=good: g(L, d).expand((3, 2)).batch_shape
    CASES[f"{_f}/expand_larger_log_prob"] = lambda L, d, g=good, x=_inside: g(L, d).expand((3, 2)).log_prob(
        t(L, d, [x, x]))
    CASES[f"{_f}/expand_smaller"] = lambda L, d, g=good: g(L, d).expand((1,)).batch_shape
    CASES[f"{_f}/expand_incompatible"] = lambda L, d, g=good: g(L, d).expand((3,)).batch_shape
    CASES[f"{_f}/expand_int"] = lambda L, d, g=good: g(L, d).expand(2).batch_shape
    CASES[f"{_f}/repr"] = lambda L, d, g=good: repr(g(L, d)).split("(")[0]

_KL = ("Normal", "Laplace", "Exponential", "Gamma", "Beta", "Uniform", "Bernoulli", "Poisson", "Cauchy",
       "Gumbel", "HalfNormal", "Pareto", "Geometric", "Binomial", "ContinuousBernoulli", "Chi2", "LogNormal")
for _p in _KL:
    for _q in _KL:
        _mp, _gp = FAMILIES[_p][:2]
        _mq, _gq = FAMILIES[_q][:2]
        CASES[f"kl/{_p}_{_q}"] = lambda L, d, mp=_mp, gp=_gp, mq=_mq, gq=_gq: D(L).kl_divergence(
            mp(L, d, *gp), mq(L, d, *gq))

CASES["kl/not_distribution"] = lambda L, d: D(L).kl_divergence(D(L).Normal(0.0, 1.0), 3)
CASES["kl/batch_mismatch"] = lambda L, d: D(L).kl_divergence(D(L).Normal(t(L, d, [0.0, 1.0]), 1.0),
                                                             D(L).Normal(t(L, d, [0.0, 1.0, 2.0]), 1.0))
CASES["kl/Independent_Normal"] = lambda L, d: D(L).kl_divergence(
    D(L).Independent(D(L).Normal(t(L, d, [0.0, 1.0]), 1.0), 1), D(L).Independent(D(L).Normal(t(L, d, [1.0, 1.0]),
                                                                                            2.0), 1))
CASES["kl/Independent_mismatch"] = lambda L, d: D(L).kl_divergence(
    D(L).Independent(D(L).Normal(t(L, d, [0.0, 1.0]), 1.0), 1), D(L).Normal(t(L, d, [1.0, 1.0]), 2.0))
CASES["kl/Categorical_sizes"] = lambda L, d: D(L).kl_divergence(D(L).Categorical(t(L, d, [0.5, 0.5])),
                                                                D(L).Categorical(t(L, d, [0.2, 0.3, 0.5])))
CASES["kl/MVN_dims"] = lambda L, d: D(L).kl_divergence(
    D(L).MultivariateNormal(t(L, d, [0.0, 0.0]), L.eye(2, device=d)),
    D(L).MultivariateNormal(t(L, d, [0.0, 0.0, 0.0]), L.eye(3, device=d)))
CASES["register_kl/not_type"] = lambda L, d: D(L).register_kl(3, D(L).Normal)
CASES["Normal/args_none"] = lambda L, d: D(L).Normal(None, 1.0)
CASES["Normal/args_str"] = lambda L, d: D(L).Normal("a", 1.0)
CASES["Normal/int_tensor_loc"] = lambda L, d: D(L).Normal(L.tensor([0, 1], device=d), 1.0).mean
CASES["Normal/mixed_devices_scalar"] = lambda L, d: D(L).Normal(t(L, d, [0.0]), 1.0).loc
CASES["Normal/validate_args_int"] = lambda L, d: D(L).Normal(0.0, -1.0, validate_args=1)
CASES["Normal/validate_args_none"] = lambda L, d: D(L).Normal(0.0, -1.0, validate_args=None)
CASES["Normal/scale_grad"] = lambda L, d: D(L).Normal(0.0, t(L, d, [1.0]).requires_grad_()).rsample().shape
CASES["Bernoulli/probs_and_logits"] = lambda L, d: D(L).Bernoulli(probs=0.5, logits=0.0)
CASES["Bernoulli/neither"] = lambda L, d: D(L).Bernoulli()
CASES["Categorical/0d_probs"] = lambda L, d: D(L).Categorical(t(L, d, 1.0))
CASES["Categorical/log_prob_float_value"] = lambda L, d: D(L).Categorical(t(L, d, [0.5, 0.5])).log_prob(
    t(L, d, [0.5]))
CASES["Categorical/log_prob_out_no_validate"] = lambda L, d: D(L).Categorical(
    t(L, d, [0.5, 0.5]), validate_args=False).log_prob(L.tensor([5], device=d))
CASES["Categorical/rsample"] = lambda L, d: D(L).Categorical(t(L, d, [0.5, 0.5])).rsample()
CASES["Categorical/expand"] = lambda L, d: D(L).Categorical(t(L, d, [0.5, 0.5])).expand((3,)).sample().shape
CASES["OneHotCategorical/log_prob_not_one_hot"] = lambda L, d: D(L).OneHotCategorical(
    t(L, d, [0.5, 0.5])).log_prob(t(L, d, [1.0, 1.0]))
CASES["Multinomial/log_prob_wrong_total"] = lambda L, d: D(L).Multinomial(3, t(L, d, [0.5, 0.5])).log_prob(
    t(L, d, [1.0, 1.0]))
CASES["Multinomial/total_count_tensor"] = lambda L, d: D(L).Multinomial(L.tensor([3, 4]), t(L, d, [0.5, 0.5]))
CASES["Dirichlet/1_element"] = lambda L, d: D(L).Dirichlet(t(L, d, [1.0])).log_prob(t(L, d, [1.0]))
CASES["MVN/cov_and_scale_tril"] = lambda L, d: D(L).MultivariateNormal(t(L, d, [0.0, 0.0]), L.eye(2, device=d),
                                                                       scale_tril=L.eye(2, device=d))
CASES["MVN/loc_scalar"] = lambda L, d: D(L).MultivariateNormal(t(L, d, 0.0), L.eye(1, device=d))
CASES["MVN/log_prob_shape"] = lambda L, d: D(L).MultivariateNormal(t(L, d, [0.0, 0.0]), L.eye(2, device=d)).log_prob(
    t(L, d, [0.0, 0.0, 0.0]))
CASES["MVN/precision_not_pd"] = lambda L, d: D(L).MultivariateNormal(t(L, d, [0.0, 0.0]),
                                                                     precision_matrix=-L.eye(2, device=d))
CASES["Independent/reinterpreted_float"] = lambda L, d: D(L).Independent(D(L).Normal(t(L, d, [0.0]), 1.0), 1.0)
CASES["TransformedDistribution/bad_transform"] = lambda L, d: D(L).TransformedDistribution(D(L).Normal(0.0, 1.0), 3)
CASES["TransformedDistribution/log_prob_exp"] = lambda L, d: D(L).TransformedDistribution(
    D(L).Normal(t(L, d, 0.0), 1.0), [D(L).transforms.ExpTransform()]).log_prob(t(L, d, [-1.0, 2.0]))
CASES["set_default_validate_args_str"] = lambda L, d: D(L).Distribution.set_default_validate_args("yes")
CASES["Distribution/batch_shape_list"] = lambda L, d: D(L).Distribution(batch_shape=[2]).batch_shape
CASES["Distribution/sample_unimplemented"] = lambda L, d: D(L).Distribution().sample()
CASES["Distribution/log_prob_unimplemented"] = lambda L, d: D(L).Distribution().log_prob(1.0)

KNOWN = {
    "Beta/log_prob_float64": "C++ (the float32 lgamma kernel): lgamma(1.5) in float32 is -0.12078224 in tandem, "
                             "-0.12078223 (one ulp away) in PyTorch; the float64 value shows that term's float32 "
                             "rounding",
    "ContinuousBernoulli/log_prob_float64": "C++ (the float32 log_sigmoid/logaddexp kernels): PyTorch's float32 "
                                            "log_sigmoid differs from tandem's by one ulp for about a quarter of "
                                            "inputs, seen here through binary_cross_entropy_with_logits' float64 loss",
}
