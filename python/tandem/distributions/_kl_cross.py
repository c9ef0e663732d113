"""KL divergences between different families (imported by kl.py, whose registry they join).

Each finite one is KL(p || q) = -H(p) - E_p[log q(x)], with E_p[log q] written from the moments of p that q's
log-density needs. Pairs where p puts mass outside q's support (or has tails q cannot match) are infinite.
"""
import math

import tandem

from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gumbel import Gumbel
from .kl import _infinite_like, _where, register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform


def _normal_cross_entropy(q, second_moment_about_loc):
    """-E_p[log q(x)] for q = Normal, given E_p[(x - q.loc)^2]."""
    return q.scale.log() + 0.5 * math.log(2 * math.pi) + second_moment_about_loc / (2 * q.scale.pow(2))


def _gumbel_cross_entropy(q, mean_p, laplace_transform_at_inv_scale):
    """-E_p[log q(x)] for q = Gumbel(m, s): log s + E[(x - m)/s] + exp(m/s) E[exp(-x/s)], given E_p[x] and
    E_p[exp(-x/s)] * exp(m/s) (passed in because its closed form depends on p)."""
    return q.scale.log() + (mean_p - q.loc) / q.scale + laplace_transform_at_inv_scale


# ---- finite pairs ----------------------------------------------------------------------------------------

@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    # E_p[(x - m)^2] for x uniform on [a, b] is ((b - m)^3 - (a - m)^3) / (3 (b - a))
    second = ((p.high - q.loc).pow(3) - (p.low - q.loc).pow(3)) / (3 * width)
    return -p.entropy() + _normal_cross_entropy(q, second)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    mean = p.rate.reciprocal()
    second = 2 * mean.pow(2) - 2 * q.loc * mean + q.loc.pow(2)
    return -p.entropy() + _normal_cross_entropy(q, second)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    second = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -p.entropy() + _normal_cross_entropy(q, second)


@register_kl(Gumbel, Normal)
@register_kl(ContinuousBernoulli, Normal)
@register_kl(Pareto, Normal)
def _kl_moments_normal(p, q):
    # E_p[(x - m)^2] = Var(p) + (E_p[x] - m)^2; infinite where p's variance is (Pareto with alpha <= 2)
    second = p.variance + (p.mean - q.loc).pow(2)
    return -p.entropy() + _normal_cross_entropy(q, second)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # E|x - m| for x ~ Normal(mu, sigma), d = mu - m: sigma sqrt(2/pi) exp(-d^2/(2 sigma^2)) + d erf(d/(sigma sqrt2))
    d = p.loc - q.loc
    folded = p.scale * math.sqrt(2 / math.pi) * tandem.exp(-d.pow(2) / (2 * p.scale.pow(2)))
    mean_abs = folded + d * tandem.erf(d / (p.scale * math.sqrt(2)))
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # exp(m/s) E[exp(-x/s)] = exp((m - mu)/s + sigma^2 / (2 s^2)) (the normal's moment generating function)
    mgf = tandem.exp((q.loc - p.loc) / q.scale + p.scale.pow(2) / (2 * q.scale.pow(2)))
    return -p.entropy() + _gumbel_cross_entropy(q, p.loc, mgf)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    # p = m1 - s1 log(-log U): E_p[exp(-x/s2)] exp(m2/s2) = exp((m2 - m1)/s2) Gamma(1 + s1/s2)
    transform = tandem.exp((q.loc - p.loc) / q.scale + tandem.lgamma(1 + p.scale / q.scale))
    return -p.entropy() + _gumbel_cross_entropy(q, p.mean, transform)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # exp(m/s) E[exp(-x/s)] = exp(m/s) r s / (r s + 1)
    scale_rate_prod = p.rate * q.scale
    mgf = tandem.exp(q.loc / q.scale) * scale_rate_prod / (scale_rate_prod + 1)
    return -p.entropy() + _gumbel_cross_entropy(q, p.rate.reciprocal(), mgf)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    # exp(m/s) E[exp(-x/s)] = s (exp((m - a)/s) - exp((m - b)/s)) / (b - a)
    mgf = q.scale * (tandem.exp((q.loc - p.low) / q.scale) - tandem.exp((q.loc - p.high) / q.scale))
    mgf = mgf / (p.high - p.low)
    return -p.entropy() + _gumbel_cross_entropy(q, p.mean, mgf)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = -p.entropy() - q.rate.log() + q.rate * p.mean
    return _where(p.low < 0, math.inf, result)  # p puts mass below 0, where q has none


@register_kl(ContinuousBernoulli, Exponential)
@register_kl(Pareto, Exponential)
def _kl_nonnegative_exponential(p, q):
    # infinite for Pareto with alpha <= 1, whose mean is
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    # E[log x] for x uniform on [a, b] is (b log b - a log a) / (b - a) - 1
    mean_log = (p.high * p.high.log() - p.low * p.low.log()) / (p.high - p.low) - 1
    result = -p.entropy() - q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * mean_log
    return _where(p.low < q.scale, math.inf, result)  # p puts mass below q's lower bound


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    # E_p[log q(x)] = log C(lambda) + E[x] logit(lambda) + log(1 - lambda)
    result = -p.entropy() - q._cont_bern_log_norm() - p.mean * q.logits - tandem.log1p(-q.probs)
    # PyTorch's test, kept for its values: inf where p reaches either end of [0, 1] (a Uniform(0, 1) included)
    return _where((p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound), math.inf, result)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # PyTorch's test, kept for its values: inf unless q reaches past both ends of [0, 1] (its `max` of the two
    # comparisons is an or), so a Uniform(0, 1) gives inf too
    return _where((q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound), math.inf, result)


# ---- infinite pairs: p has mass (or tails) q does not cover --------------------------------------------------

@register_kl(Normal, Exponential)
@register_kl(Normal, Uniform)
@register_kl(Normal, Pareto)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Uniform)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Uniform)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, ContinuousBernoulli)
def _kl_real_line_to_half_line_or_interval(p, q):
    return _infinite_like(p.loc)


@register_kl(Exponential, Uniform)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, ContinuousBernoulli)
def _kl_exponential_infinity(p, q):
    return _infinite_like(p.rate)


@register_kl(Pareto, Uniform)
@register_kl(Pareto, ContinuousBernoulli)
def _kl_pareto_infinity(p, q):
    return _infinite_like(p.scale)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_pareto(p, q):
    return _infinite_like(p.probs)
