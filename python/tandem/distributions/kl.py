"""kl_divergence(p, q) and register_kl: closed-form KL divergences looked up by the pair of distribution types.

A lookup picks the registered pair whose types are the closest ancestors of (type(p), type(q)) in method
resolution order; if ranking p first and ranking q first disagree, the pair is ambiguous and a RuntimeWarning
asks for a more specific registration. Results are memoised per type pair.
"""
import math
import warnings

import tandem
from tandem.nn.functional import softplus

from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> function
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the function the registry resolves to


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of type_p and q of type_q (or subclasses)."""
    # PyTorch's check: a non-class reaches issubclass, whose TypeError ("issubclass() arg 1 must be a class") is the
    # error users see; any class registers.
    for name, cls in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(cls, type) and issubclass(cls, Distribution):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {cls}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # a new rule may change earlier resolutions
        return fun

    return decorator


def _dispatch_kl(type_p, type_q):
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    p_mro, q_mro = type_p.__mro__, type_q.__mro__
    left_p, left_q = min(matches, key=lambda m: (p_mro.index(m[0]), q_mro.index(m[1])))
    right_p, right_q = min(matches, key=lambda m: (q_mro.index(m[1]), p_mro.index(m[0])))
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
        )
    return left_fun


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], over the batch shape of p and q."""
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type {q.__class__.__name__}"
        )
    return fun(p, q)


def _infinite_like(tensor):
    return tandem.full_like(tensor, math.inf)


def _where(cond, value, tensor):
    """tensor with ``value`` where cond holds (an out-of-place masked fill)."""
    return tandem.where(cond, tandem.full_like(tensor, value), tensor)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _where(q.probs == 0, math.inf, t1)
    t1 = _where(p.probs == 0, 0.0, t1)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _where(q.probs == 1, math.inf, t2)
    t2 = _where(p.probs == 1, 0.0, t2)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _where((q.probs == 0).expand_as(t), math.inf, t)
    t = _where((p.probs == 0).expand_as(t), 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - tandem.log1p(-q.probs) / p.probs - q.logits


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * tandem.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return rate_ratio - 1 - rate_ratio.log()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + tandem.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - tandem.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normaliser F between the natural parameters:
    KL = F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>, the gradient taken by autograd."""
    if type(p) is not type(q):
        raise NotImplementedError(
            # PyTorch's message keeps its source's line-continuation indent
            "The cross KL-divergence between different exponential families cannot " + " " * 28 +
            "be computed using Bregman divergences"
        )
    p_nparams = [np_.detach().requires_grad_() for np_ in p._natural_params]
    q_nparams = q._natural_params
    lg_normal = p._log_normalizer(*p_nparams)
    gradients = tandem.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        result = result - _sum_rightmost((qnp - pnp) * g, len(q.event_shape))
    return result


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # log of ((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q)
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # |X| is one-to-one on the half line, and both halves of the symmetric bases carry equal KL
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    # infinite when p puts mass below q's lower bound
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    return _where(p.support.lower_bound < q.support.lower_bound, math.inf, result)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with" + " " * 26 +  # PyTorch's source indent
            "different event shapes cannot be computed"
        )
    p_L, q_L = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q_L.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p_L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    n = p.event_shape[0]
    batch = tuple(tandem.broadcast_shapes(q_L.shape[:-2], p_L.shape[:-2]))
    q_scale_tril = q_L.expand(batch + (n, n))
    p_scale_tril = p_L.expand(batch + (n, n))
    # trace(Sigma_q^{-1} Sigma_p) = ||L_q^{-1} L_p||_F^2
    term2 = tandem.linalg.solve_triangular(q_scale_tril, p_scale_tril, upper=False).pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(q_L, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


def _as_full_rank(d):
    """The same Gaussian as a MultivariateNormal (its exact Cholesky factor; O(n^3), fine for KL)."""
    if isinstance(d, LowRankMultivariateNormal):
        return MultivariateNormal(d.loc, scale_tril=d.scale_tril, validate_args=False)
    return d


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_gaussians(p, q):
    return _kl_multivariatenormal_multivariatenormal(_as_full_rank(p), _as_full_rank(q))


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    # a shared bijection leaves KL unchanged; sum over event dims the transforms added
    extra_event_dim = len(p.event_shape) - len(p.base_dist.event_shape)
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra_event_dim)


from . import _kl_cross  # noqa: E402,F401  (registers the cross-family pairs; it uses register_kl above)
from . import _kl_gamma  # noqa: E402,F401  (the gamma families' pairs)
