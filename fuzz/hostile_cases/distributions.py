"""tandem.distributions: constructors with parameters outside their constraints (validated by default, as
PyTorch), with validate_args=False, with both or neither of probs/logits and with parameters of the wrong rank;
log_prob/cdf/icdf outside the support; sample shapes (ints, negative sizes, tuples), rsample where there is none,
expand/Independent/TransformedDistribution misuse, and the moments of degenerate distributions."""
import math

from . import T, Case

N, INF = math.nan, math.inf


def D(L):
    return L.distributions


def S(fn):
    """A random result: compared by dtype and shape (errors as usual)."""
    return Case(fn, "shape")


def v(L, d, values):
    return T(L, values, d, "float32")


def normal(L, d, loc=(0.0, 1.0), scale=(1.0, 2.0), **kw):
    return D(L).Normal(v(L, d, list(loc)), v(L, d, list(scale)), **kw)


def shapes(dist):
    """What a constructor that returns made: its batch and event shapes."""
    return dist.batch_shape, dist.event_shape


def spd(L, d):
    return v(L, d, [[2.0, 0.5], [0.5, 1.0]])


CASES = {
    # ---- constructors: parameters outside their constraints
    "Normal/scale_negative": lambda L, d: normal(L, d, scale=(1.0, -1.0)),
    "Normal/scale_zero": lambda L, d: normal(L, d, scale=(1.0, 0.0)),
    "Normal/scale_nan": lambda L, d: normal(L, d, scale=(1.0, N)),
    "Normal/loc_inf": lambda L, d: shapes(normal(L, d, loc=(INF, 0.0))),
    "Normal/loc_nan": lambda L, d: normal(L, d, loc=(N, 0.0)),
    "Normal/scale_negative_no_validate": lambda L, d: normal(L, d, scale=(1.0, -1.0), validate_args=False).scale,
    "Normal/float_params": lambda L, d: D(L).Normal(0.0, 1.0).log_prob(v(L, d, [0.5])),
    "Normal/shapes_broadcast": lambda L, d: D(L).Normal(v(L, d, [[0.0], [1.0]]), v(L, d, [1.0, 2.0, 3.0])).batch_shape,
    "Normal/shapes_differ": lambda L, d: D(L).Normal(v(L, d, [0.0, 1.0]), v(L, d, [1.0, 2.0, 3.0])),
    "Normal/int_params": lambda L, d: D(L).Normal(T(L, [0, 1], d), T(L, [1, 2], d)).loc,
    "Normal/str_param": lambda L, d: D(L).Normal("a", 1.0),
    "Uniform/low_above_high": lambda L, d: D(L).Uniform(v(L, d, [2.0]), v(L, d, [1.0])),
    "Uniform/low_equals_high": lambda L, d: D(L).Uniform(v(L, d, [1.0]), v(L, d, [1.0])),
    "Uniform/ok_log_prob_outside": lambda L, d: D(L).Uniform(v(L, d, [0.0]), v(L, d, [1.0]),
                                                             validate_args=False).log_prob(v(L, d, [2.0])),
    "Bernoulli/probs_above_one": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.5, 1.5])),
    "Bernoulli/probs_negative": lambda L, d: D(L).Bernoulli(probs=v(L, d, [-0.1])),
    "Bernoulli/both": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.5]), logits=v(L, d, [0.0])),
    "Bernoulli/neither": lambda L, d: D(L).Bernoulli(),
    "Bernoulli/logits_inf": lambda L, d: D(L).Bernoulli(logits=v(L, d, [INF, -INF])).probs,
    "Bernoulli/rsample": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.5])).rsample(),
    "Bernoulli/log_prob_outside": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.5])).log_prob(v(L, d, [2.0])),
    "Bernoulli/log_prob_fraction": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.5])).log_prob(v(L, d, [0.5])),
    "Bernoulli/entropy_edges": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.0, 1.0, 0.5])).entropy(),
    "Categorical/probs_negative": lambda L, d: D(L).Categorical(probs=v(L, d, [0.5, -0.5])),
    "Categorical/probs_0dim": lambda L, d: D(L).Categorical(probs=T(L, 1.0, d)),
    "Categorical/logits_0dim": lambda L, d: D(L).Categorical(logits=T(L, 1.0, d)),
    "Categorical/probs_all_zero": lambda L, d: D(L).Categorical(probs=v(L, d, [0.0, 0.0])),
    "Categorical/probs_unnormalized": lambda L, d: D(L).Categorical(probs=v(L, d, [1.0, 3.0])).probs,
    "Categorical/both": lambda L, d: D(L).Categorical(probs=v(L, d, [0.5, 0.5]), logits=v(L, d, [0.0, 0.0])),
    "Categorical/log_prob_past": lambda L, d: D(L).Categorical(probs=v(L, d, [0.5, 0.5])).log_prob(T(L, [2], d)),
    "Categorical/log_prob_negative": lambda L, d: D(L).Categorical(probs=v(L, d, [0.5, 0.5])).log_prob(
        T(L, [-1], d)),
    "Categorical/log_prob_float": lambda L, d: D(L).Categorical(probs=v(L, d, [0.5, 0.5])).log_prob(
        v(L, d, [1.0])),
    "Categorical/log_prob_no_validate_past": lambda L, d: D(L).Categorical(
        probs=v(L, d, [0.5, 0.5]), validate_args=False).log_prob(T(L, [2], d)),
    "Categorical/sample_shape": S(lambda L, d: D(L).Categorical(probs=v(L, d, [[0.5, 0.5]] * 3)).sample((2,))),
    "Categorical/enumerate_support": lambda L, d: D(L).Categorical(probs=v(L, d, [0.2, 0.3, 0.5])).enumerate_support(),
    "OneHotCategorical/log_prob_not_one_hot": lambda L, d: D(L).OneHotCategorical(probs=v(L, d, [0.5, 0.5])).log_prob(
        v(L, d, [1.0, 1.0])),
    "Beta/concentration_zero": lambda L, d: D(L).Beta(v(L, d, [0.0]), v(L, d, [1.0])),
    "Beta/log_prob_outside": lambda L, d: D(L).Beta(v(L, d, [2.0]), v(L, d, [2.0])).log_prob(v(L, d, [1.5])),
    "Beta/log_prob_edge": lambda L, d: D(L).Beta(v(L, d, [2.0]), v(L, d, [2.0])).log_prob(v(L, d, [0.0])),
    "Gamma/rate_negative": lambda L, d: D(L).Gamma(v(L, d, [1.0]), v(L, d, [-1.0])),
    "Gamma/log_prob_negative": lambda L, d: D(L).Gamma(v(L, d, [1.0]), v(L, d, [1.0])).log_prob(v(L, d, [-1.0])),
    "Gamma/log_prob_zero": lambda L, d: D(L).Gamma(v(L, d, [2.0]), v(L, d, [1.0])).log_prob(v(L, d, [0.0])),
    "Exponential/rate_zero": lambda L, d: D(L).Exponential(v(L, d, [0.0])),
    "Exponential/log_prob_negative": lambda L, d: D(L).Exponential(v(L, d, [1.0])).log_prob(v(L, d, [-1.0])),
    "Exponential/log_prob_no_validate": lambda L, d: D(L).Exponential(v(L, d, [1.0]), validate_args=False).log_prob(
        v(L, d, [-1.0])),
    "Exponential/cdf_negative": lambda L, d: D(L).Exponential(v(L, d, [1.0])).cdf(v(L, d, [-1.0])),
    "Exponential/icdf_above_one": lambda L, d: D(L).Exponential(v(L, d, [1.0])).icdf(v(L, d, [1.5])),
    "Exponential/icdf_one": lambda L, d: D(L).Exponential(v(L, d, [1.0])).icdf(v(L, d, [1.0])),
    "Poisson/rate_negative": lambda L, d: D(L).Poisson(v(L, d, [-1.0])),
    "Poisson/rate_zero_log_prob": lambda L, d: D(L).Poisson(v(L, d, [0.0])).log_prob(v(L, d, [0.0, 1.0])),
    "Poisson/log_prob_fraction": lambda L, d: D(L).Poisson(v(L, d, [2.0])).log_prob(v(L, d, [1.5])),
    "Binomial/total_count_negative": lambda L, d: D(L).Binomial(-1, probs=v(L, d, [0.5])),
    "Binomial/total_count_fraction": lambda L, d: D(L).Binomial(v(L, d, [2.5]), probs=v(L, d, [0.5])),
    "Binomial/log_prob_past_count": lambda L, d: D(L).Binomial(3, probs=v(L, d, [0.5])).log_prob(v(L, d, [4.0])),
    "Binomial/ok": lambda L, d: D(L).Binomial(4, probs=v(L, d, [0.3])).log_prob(v(L, d, [0.0, 2.0, 4.0])),
    "Multinomial/total_count_float": lambda L, d: D(L).Multinomial(2.5, probs=v(L, d, [0.5, 0.5])),
    "Multinomial/log_prob_wrong_sum": lambda L, d: D(L).Multinomial(3, probs=v(L, d, [0.5, 0.5])).log_prob(
        v(L, d, [1.0, 1.0])),
    "Multinomial/sample_total_count_zero": S(lambda L, d: D(L).Multinomial(0, probs=v(L, d, [0.5, 0.5])).sample()),
    "Geometric/probs_zero": lambda L, d: D(L).Geometric(v(L, d, [0.0])),
    "Geometric/probs_one": lambda L, d: D(L).Geometric(v(L, d, [1.0])).log_prob(v(L, d, [0.0, 1.0])),
    "StudentT/df_negative": lambda L, d: D(L).StudentT(v(L, d, [-1.0])),
    "StudentT/variance_df_small": lambda L, d: D(L).StudentT(v(L, d, [0.5, 1.5, 3.0])).variance,
    "Cauchy/mean": lambda L, d: D(L).Cauchy(v(L, d, [0.0]), v(L, d, [1.0])).mean,
    "Cauchy/scale_negative": lambda L, d: D(L).Cauchy(v(L, d, [0.0]), v(L, d, [-1.0])),
    "Laplace/scale_zero": lambda L, d: D(L).Laplace(v(L, d, [0.0]), v(L, d, [0.0])),
    "LogNormal/log_prob_negative": lambda L, d: D(L).LogNormal(v(L, d, [0.0]), v(L, d, [1.0])).log_prob(
        v(L, d, [-1.0])),
    "Chi2/df_zero": lambda L, d: D(L).Chi2(v(L, d, [0.0])),
    "HalfNormal/log_prob_negative": lambda L, d: D(L).HalfNormal(v(L, d, [1.0])).log_prob(v(L, d, [-1.0])),
    "Pareto/alpha_negative": lambda L, d: D(L).Pareto(v(L, d, [1.0]), v(L, d, [-1.0])),
    "Pareto/log_prob_below_scale": lambda L, d: D(L).Pareto(v(L, d, [1.0]), v(L, d, [2.0])).log_prob(
        v(L, d, [0.5])),
    "Weibull/scale_negative": lambda L, d: D(L).Weibull(v(L, d, [-1.0]), v(L, d, [1.0])),
    "Gumbel/scale_zero": lambda L, d: D(L).Gumbel(v(L, d, [0.0]), v(L, d, [0.0])),
    "VonMises/concentration_negative": lambda L, d: D(L).VonMises(v(L, d, [0.0]), v(L, d, [-1.0])),
    "Kumaraswamy/log_prob_outside": lambda L, d: D(L).Kumaraswamy(v(L, d, [2.0]), v(L, d, [2.0])).log_prob(
        v(L, d, [1.5])),
    "Dirichlet/concentration_0dim": lambda L, d: D(L).Dirichlet(T(L, 1.0, d)),
    "Dirichlet/concentration_negative": lambda L, d: D(L).Dirichlet(v(L, d, [1.0, -1.0])),
    "Dirichlet/log_prob_not_simplex": lambda L, d: D(L).Dirichlet(v(L, d, [1.0, 1.0])).log_prob(v(L, d, [0.5, 0.6])),
    "RelaxedBernoulli/temperature_negative": lambda L, d: D(L).RelaxedBernoulli(v(L, d, [-1.0]),
                                                                                probs=v(L, d, [0.5])).temperature,
    "FisherSnedecor/df_zero": lambda L, d: D(L).FisherSnedecor(v(L, d, [0.0]), v(L, d, [1.0])),
    "ContinuousBernoulli/probs_above_one": lambda L, d: D(L).ContinuousBernoulli(probs=v(L, d, [1.5])).probs,
    # ---- MultivariateNormal and friends
    "MultivariateNormal/none": lambda L, d: D(L).MultivariateNormal(v(L, d, [0.0, 0.0])),
    "MultivariateNormal/two": lambda L, d: D(L).MultivariateNormal(v(L, d, [0.0, 0.0]), covariance_matrix=spd(L, d),
                                                                   scale_tril=spd(L, d)),
    "MultivariateNormal/loc_0dim": lambda L, d: D(L).MultivariateNormal(T(L, 0.0, d), covariance_matrix=spd(L, d)),
    "MultivariateNormal/cov_1d": lambda L, d: D(L).MultivariateNormal(v(L, d, [0.0, 0.0]),
                                                                      covariance_matrix=v(L, d, [1.0, 1.0])),
    "MultivariateNormal/cov_not_pd": lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 0.0]), covariance_matrix=v(L, d, [[1.0, 2.0], [2.0, 1.0]])),
    "MultivariateNormal/cov_not_symmetric": lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 0.0]), covariance_matrix=v(L, d, [[1.0, 0.5], [0.0, 1.0]])),
    "MultivariateNormal/size_mismatch": lambda L, d: shapes(D(L).MultivariateNormal(v(L, d, [0.0, 0.0, 0.0]),
                                                                                    covariance_matrix=spd(L, d))),
    "MultivariateNormal/scale_tril_upper": lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 0.0]), scale_tril=v(L, d, [[1.0, 1.0], [0.0, 1.0]])),
    "MultivariateNormal/log_prob": lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 1.0]), covariance_matrix=spd(L, d)).log_prob(v(L, d, [[0.5, 0.5], [1.0, -1.0]])),
    "MultivariateNormal/log_prob_wrong_event": lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 1.0]), covariance_matrix=spd(L, d)).log_prob(v(L, d, [0.5, 0.5, 0.5])),
    "MultivariateNormal/precision": lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 1.0]), precision_matrix=spd(L, d)).covariance_matrix,
    "LowRankMultivariateNormal/cov_diag_negative": lambda L, d: D(L).LowRankMultivariateNormal(
        v(L, d, [0.0, 0.0]), v(L, d, [[1.0], [0.0]]), v(L, d, [1.0, -1.0])),
    "LowRankMultivariateNormal/factor_1d": lambda L, d: D(L).LowRankMultivariateNormal(
        v(L, d, [0.0, 0.0]), v(L, d, [1.0, 0.0]), v(L, d, [1.0, 1.0])),
    "Wishart/df_too_small": lambda L, d: D(L).Wishart(v(L, d, [0.5]), covariance_matrix=spd(L, d)),
    "LKJCholesky/dim_one": lambda L, d: D(L).LKJCholesky(1, 1.0),
    "LKJCholesky/concentration_negative": lambda L, d: D(L).LKJCholesky(3, v(L, d, [-1.0])),
    # ---- sample shapes
    "Normal/sample_int": S(lambda L, d: normal(L, d).sample(3)),
    "Normal/sample_tuple": S(lambda L, d: normal(L, d).sample((2, 3))),
    "Normal/sample_list": S(lambda L, d: normal(L, d).sample([2])),
    "Normal/sample_negative": S(lambda L, d: normal(L, d).sample((-1,))),
    "Normal/sample_size": S(lambda L, d: normal(L, d).sample(L.Size([2, 1]))),
    "Normal/rsample_grad": lambda L, d: (lambda m: (D(L).Normal(m, v(L, d, [1.0, 2.0])).rsample((4,)).sum()
                                                    .backward(), m.grad)[1])(v(L, d, [0.0, 1.0]).requires_grad_()),
    "Normal/sample_n": S(lambda L, d: normal(L, d).sample_n(3)),
    "Normal/sample_float": S(lambda L, d: normal(L, d).sample((2.0,))),
    "Gamma/sample_zero_concentration": S(lambda L, d: D(L).Gamma(v(L, d, [1e-30]), v(L, d, [1.0])).sample()),
    "Dirichlet/sample_shape": S(lambda L, d: D(L).Dirichlet(v(L, d, [1.0, 2.0, 3.0])).sample((2,))),
    "MultivariateNormal/sample_shape": S(lambda L, d: D(L).MultivariateNormal(
        v(L, d, [0.0, 1.0]), covariance_matrix=spd(L, d)).sample((3,))),
    "Uniform/rsample_shape": S(lambda L, d: D(L).Uniform(v(L, d, [0.0]), v(L, d, [2.0])).rsample((2, 2))),
    "Poisson/sample_exact_zero": lambda L, d: D(L).Poisson(v(L, d, [0.0, 0.0])).sample((2,)),
    "Bernoulli/sample_exact": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.0, 1.0])).sample((3,)),
    # ---- expand / Independent / TransformedDistribution
    "Normal/expand_ok": lambda L, d: normal(L, d).expand((3, 2)).batch_shape,
    "Normal/expand_incompatible": lambda L, d: normal(L, d).expand((3,)),
    "Normal/expand_fewer_dims": lambda L, d: D(L).Normal(v(L, d, [[0.0, 1.0]]), v(L, d, [[1.0, 1.0]])).expand((2,)),
    "Independent/too_many_dims": lambda L, d: D(L).Independent(normal(L, d), 2),
    "Independent/negative": lambda L, d: shapes(D(L).Independent(normal(L, d), -1)),
    "Independent/log_prob": lambda L, d: D(L).Independent(normal(L, d), 1).log_prob(v(L, d, [0.5, 0.5])),
    "Independent/event_shape": lambda L, d: D(L).Independent(D(L).Normal(L.zeros(2, 3, device=d),
                                                                          L.ones(2, 3, device=d)), 1).event_shape,
    "TransformedDistribution/not_transform": lambda L, d: D(L).TransformedDistribution(normal(L, d), [3]),
    "TransformedDistribution/exp_log_prob": lambda L, d: D(L).TransformedDistribution(
        normal(L, d), [D(L).transforms.ExpTransform()]).log_prob(v(L, d, [0.5, 2.0])),
    "TransformedDistribution/exp_log_prob_negative": lambda L, d: D(L).TransformedDistribution(
        normal(L, d), [D(L).transforms.ExpTransform()]).log_prob(v(L, d, [-0.5, 2.0])),
    "TransformedDistribution/affine_scale_zero": lambda L, d: D(L).TransformedDistribution(
        normal(L, d), [D(L).transforms.AffineTransform(0.0, 0.0)]).log_prob(v(L, d, [0.0, 0.0])),
    "MixtureSameFamily/batch_mismatch": lambda L, d: D(L).MixtureSameFamily(
        D(L).Categorical(probs=v(L, d, [0.5, 0.5])), D(L).Normal(v(L, d, [0.0, 1.0, 2.0]), v(L, d, [1.0] * 3))),
    "MixtureSameFamily/mixture_not_categorical": lambda L, d: D(L).MixtureSameFamily(
        normal(L, d), normal(L, d)),
    # ---- log_prob with shapes that do not broadcast, values of the wrong dtype
    "Normal/log_prob_shape": lambda L, d: normal(L, d).log_prob(v(L, d, [0.0, 1.0, 2.0])),
    "Normal/log_prob_int": lambda L, d: normal(L, d).log_prob(T(L, [0, 1], d)),
    "Normal/log_prob_number": lambda L, d: normal(L, d).log_prob(0.5),
    "Normal/log_prob_float64": lambda L, d: normal(L, d).log_prob(T(L, [0.0, 1.0], d, "float64")),
    "Normal/cdf_inf": lambda L, d: normal(L, d).cdf(v(L, d, [INF, -INF])),
    "Normal/icdf_outside": lambda L, d: normal(L, d).icdf(v(L, d, [1.5, 0.5])),
    "Normal/icdf_edges": lambda L, d: normal(L, d, validate_args=False).icdf(v(L, d, [0.0, 1.0])),
    "Normal/entropy": lambda L, d: normal(L, d).entropy(),
    "Bernoulli/enumerate_expand_false": lambda L, d: D(L).Bernoulli(probs=v(L, d, [0.3, 0.7])).enumerate_support(
        expand=False),
    "Normal/enumerate_support": lambda L, d: normal(L, d).enumerate_support(),
    "kl_divergence/normal_normal": lambda L, d: D(L).kl_divergence(normal(L, d), normal(L, d, loc=(1.0, 0.0))),
    "kl_divergence/not_registered": lambda L, d: D(L).kl_divergence(normal(L, d), D(L).Poisson(v(L, d, [1.0, 2.0]))),
    "kl_divergence/uniform_support_mismatch": lambda L, d: D(L).kl_divergence(
        D(L).Uniform(v(L, d, [0.0]), v(L, d, [2.0])), D(L).Uniform(v(L, d, [0.0]), v(L, d, [1.0]))),
    "set_default_validate_args/int": lambda L, d: D(L).Distribution.set_default_validate_args(2),
}

KNOWN = {}
