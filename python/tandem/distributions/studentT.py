"""Student's t-distribution with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""
import math

import tandem

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return tandem.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        finite = self.scale.pow(2) * self.df / (self.df - 2)
        m = tandem.where(self.df > 2, finite, self.df)
        m = tandem.where((self.df <= 2) & (self.df > 1), math.inf, m)
        return tandem.where(self.df <= 1, math.nan, m)

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        batch_shape = self.df.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = tandem.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        # X ~ Normal(0, 1), Z ~ Chi2(df): X / sqrt(Z / df) ~ StudentT(df)
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * tandem.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + tandem.lgamma(0.5 * self.df)
            - tandem.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * tandem.log1p(y**2.0 / self.df) - z

    def entropy(self):
        lbeta = tandem.lgamma(0.5 * self.df) + math.lgamma(0.5) - tandem.lgamma(0.5 * (self.df + 1))
        return (
            self.scale.log()
            + 0.5 * (self.df + 1) * (tandem.digamma(0.5 * (self.df + 1)) - tandem.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
