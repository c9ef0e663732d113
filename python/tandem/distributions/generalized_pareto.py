"""GeneralizedPareto(loc, scale, concentration): the peaks-over-threshold law; with z = (x - loc) / scale and
c = concentration its survival function is (1 + c z)^(-1/c) (exp(-z) at c = 0). The support is [loc, inf) for
c >= 0 and [loc, loc - scale / c] for c < 0."""
import math
from numbers import Number

import tandem

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if isinstance(loc, Number) and isinstance(scale, Number) and isinstance(concentration, Number):
            batch_shape = tandem.Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = tandem.Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _is_exponential(self):
        """Where c is treated as 0 (|c| <= 1e-8, PyTorch's isclose(c, 0)), the c -> 0 limit formulas are used."""
        return self.concentration.abs() <= 1e-8

    def _nonzero_concentration(self):
        """concentration with the near-zero entries replaced by 1, for the c != 0 branch (keeps 1/c and its
        gradient finite where ``where`` picks the limit branch)."""
        c = self.concentration
        return tandem.where(self._is_exponential(), tandem.ones_like(c), c)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = tandem.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        c = self._nonzero_concentration()
        general = -(1 + c.reciprocal()) * tandem.log1p(c * z)
        # the limit branch carries its first-order term in c: the same value at c = 0, and the true derivative
        # in c there (PyTorch's plain limit has a zero one, so a fit started at c = 0 never moves c)
        limit = -z - self.concentration * (z - z.pow(2) / 2)
        return tandem.where(self._is_exponential(), limit, general) - self.scale.log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        c = self._nonzero_concentration()
        limit = -z + self.concentration * z.pow(2) / 2  # first order in c, as in log_prob
        log_survival = tandem.where(self._is_exponential(), limit, -tandem.log1p(c * z) / c)
        return -tandem.expm1(log_survival)

    def icdf(self, value):
        log_survival = tandem.log1p(-value)
        c = self._nonzero_concentration()
        limit = -log_survival + self.concentration * log_survival.pow(2) / 2  # first order in c
        z = tandem.where(self._is_exponential(), limit, tandem.expm1(-c * log_survival) / c)
        return self.loc + self.scale * z

    # moments that do not exist (c >= 1 for the mean, c >= 1/2 for the variance) are nan, as in PyTorch
    @property
    def mean(self):
        c = self.concentration
        finite = c < 1
        safe = tandem.where(finite, c, tandem.zeros_like(c))
        return tandem.where(finite, self.loc + self.scale / (1 - safe), tandem.full_like(c, math.nan))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        c = self.concentration
        finite = c < 0.5
        safe = tandem.where(finite, c, tandem.zeros_like(c))
        var = self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe))
        return tandem.where(finite, var, tandem.full_like(c, math.nan))

    def entropy(self):
        return self.scale.log() + self.concentration + 1

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        c = self.concentration
        negative = c < 0
        safe = tandem.where(negative, c, -tandem.ones_like(c))
        upper = tandem.where(negative, self.loc - self.scale / safe, tandem.full_like(c, math.inf))
        return constraints.interval(self.loc, upper)
