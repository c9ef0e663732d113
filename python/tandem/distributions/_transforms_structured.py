"""Transforms that change shapes or act on whole vectors/matrices: reshape, cat, stack, stick-breaking (vectors to
the simplex), lower-Cholesky, positive-definite and correlation-Cholesky maps, and the cdf transform.
Re-exported by transforms.py, which holds the elementwise ones and the Transform base."""
import math

import tandem
from tandem.nn.functional import logsigmoid, pad, softplus

from . import constraints
from .transforms import Transform
from .utils import _sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = [
    "CatTransform", "CorrCholeskyTransform", "CumulativeDistributionTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "ReshapeTransform", "StackTransform", "StickBreakingTransform",
]


class ReshapeTransform(Transform):
    """Reshapes the rightmost dims from ``in_shape`` to ``out_shape`` (same number of elements)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = tandem.Size(in_shape)
        self.out_shape = tandem.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        batch_shape = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return tandem.zeros(batch_shape, dtype=x.dtype, device=x.device)

    def _swap(self, shape, have, want):
        if len(shape) < len(have):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(have)
        if tuple(shape[cut:]) != tuple(have):
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {tuple(have)}")
        return tuple(shape[:cut]) + tuple(want)

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class CatTransform(Transform):
    """Applies ``tseq[i]`` to consecutive slices of sizes ``lengths[i]`` along ``dim`` (like tandem.cat)."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("CatTransform expects a sequence of Transforms")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("CatTransform needs one length per transform")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _map_slices(self, x, use_inverse):
        if not -x.dim() <= self.dim < x.dim() or x.size(self.dim) != self.length:
            raise ValueError(f"CatTransform expects size {self.length} at dim {self.dim}, got shape {tuple(x.shape)}")
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            piece = x.narrow(self.dim, start, length)
            out.append(trans.inv(piece) if use_inverse else trans(piece))
            start += length
        return tandem.cat(out, dim=self.dim)

    def _call(self, x):
        return self._map_slices(x, use_inverse=False)

    def _inverse(self, y):
        return self._map_slices(y, use_inverse=True)

    def log_abs_det_jacobian(self, x, y):
        logdetjacs, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            xslice, yslice = x.narrow(self.dim, start, length), y.narrow(self.dim, start, length)
            logdetjac = trans.log_abs_det_jacobian(xslice, yslice)
            if trans.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
            start += length
        # dim counted from the right, after the event dims are summed away
        dim = self.dim if self.dim < 0 else self.dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return tandem.cat(logdetjacs, dim=dim)
        total = logdetjacs[0]
        for term in logdetjacs[1:]:
            total = total + term
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to the i-th slice along ``dim`` (like tandem.stack)."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise TypeError("StackTransform expects a sequence of Transforms")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z):
        if not -z.dim() <= self.dim < z.dim() or z.size(self.dim) != len(self.transforms):
            raise ValueError(
                f"StackTransform expects size {len(self.transforms)} at dim {self.dim}, got shape {tuple(z.shape)}"
            )
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return tandem.stack([t(s) for t, s in zip(self.transforms, self._slices(x))], dim=self.dim)

    def _inverse(self, y):
        return tandem.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [t.log_abs_det_jacobian(xs, ys) for t, xs, ys in zip(self.transforms, self._slices(x), self._slices(y))]
        return tandem.stack(terms, dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


def _clipped_sigmoid(x):
    finfo = tandem.finfo(x.dtype)
    return tandem.clamp(tandem.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


def _stick_offsets(k, like):
    """log(K - i) for i = 0..K-1: centring each break so x = 0 maps to the uniform point of the simplex."""
    return (k - tandem.arange(k, dtype=like.dtype, device=like.device)).log()


class StickBreakingTransform(Transform):
    """R^K -> the (K+1)-simplex by stick breaking: each coordinate takes a sigmoid fraction of what is left."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offsets(x.shape[-1], x))
        z_cumprod = (1 - z).cumprod(-1)
        return pad(z, [0, 1], value=1) * pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = _stick_offsets(y_crop.shape[-1], y)
        sf = 1 - y_crop.cumsum(-1)
        # the remaining stick can round to 0 or below; clamp so its log stays finite
        sf = tandem.clamp(sf, min=tandem.finfo(y.dtype).tiny)
        return y_crop.log() - sf.log() + offset

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offsets(x.shape[-1], x)
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """Unconstrained square matrices -> lower-triangular ones with a positive diagonal (exp of the diagonal)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Unconstrained square matrices -> positive definite ones, as L L^T of the LowerCholeskyTransform."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        y = tandem.linalg.cholesky(y)
        return LowerCholeskyTransform().inv(y)


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals -> the Cholesky factor of a D x D correlation matrix: tanh to (-1, 1), then
    stick breaking along each row so every row has unit norm."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def __eq__(self, other):
        return isinstance(other, CorrCholeskyTransform)

    def _call(self, x):
        x = tandem.tanh(x)
        eps = tandem.finfo(x.dtype).eps
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # row i: y_ij = r_ij * sqrt(1 - sum_{k<j} y_ik^2), built from cumulative products of sqrt(1 - r^2)
        z1m_cumprod_sqrt = (1 - r.pow(2)).sqrt().cumprod(-1)
        r = r + tandem.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        y_cumsum = 1 - tandem.cumsum(y * y, dim=-1)
        y_cumsum_shifted = pad(y_cumsum[..., :-1], [1, 0], value=1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * y1m_cumsum_tril.log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return tuple(shape[:-2]) + (D * (D - 1) // 2,)


class CumulativeDistributionTransform(Transform):
    """x -> distribution.cdf(x): maps the distribution's support onto [0, 1]; log-det is its log density."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)
