"""HalfCauchy: |X| for X ~ Cauchy(0, scale), as a TransformedDistribution."""
import math

import tandem

from .cauchy import Cauchy
from .half_normal import _HalfDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(_HalfDistribution):
    def __init__(self, scale, validate_args=None):
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        # PyTorch's HalfCauchy (not HalfNormal) reads the value in the scale's dtype and device first, so a float64
        # value gives a float32 log_prob for a float32 scale.
        if self._validate_args:
            self._validate_sample(value)
        value = tandem.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        return super().log_prob(value)

    @property
    def mean(self):
        return tandem.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self):
        return self.base_dist.variance
