"""ContinuousBernoulli: the density C(p) p^x (1-p)^(1-x) on [0, 1] (Loaiza-Ganem & Cunningham, 2019), for
VAEs on [0, 1]-valued data.

Its normaliser, mean and variance have removable singularities at p = 1/2; inside ``lims`` they are replaced by
Taylor expansions around 1/2 (the closed forms are evaluated at a safe point there, so their gradients stay
finite, and ``where`` keeps the expansion).
"""
import math

import tandem

from . import constraints
from ._binary_params import BinaryProbsLogits
from .exp_family import ExponentialFamily
from .utils import (
    binary_cross_entropy_with_logits,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
)

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryProbsLogits, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        if probs is not None:
            # probs is clamped away from 0 and 1 here, so an explicit validation request checks it first
            if validate_args is not None:
                if not bool(self.arg_constraints["probs"].check(self.probs).all()):
                    raise ValueError("The parameter probs has invalid values")
            self.probs = self._param = clamp_probs(self.probs)
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = tandem.Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """probs, with the values near 1/2 moved to lims[0] so the closed forms stay finite there."""
        return tandem.where(self._outside_unstable_region(), self.probs, tandem.full_like(self.probs, self._lims[0]))

    def _cont_bern_log_norm(self):
        """log C(p) = log(|log(1-p) - log p| / |1 - 2p|), or its expansion around p = 1/2."""
        cut_probs = self._cut_probs()
        below_half = cut_probs <= 0.5
        cut_probs_below_half = tandem.where(below_half, cut_probs, tandem.zeros_like(cut_probs))
        cut_probs_above_half = tandem.where(cut_probs >= 0.5, cut_probs, tandem.ones_like(cut_probs))
        log_norm = tandem.log(tandem.abs(tandem.log1p(-cut_probs) - tandem.log(cut_probs))) - tandem.where(
            below_half, tandem.log1p(-2.0 * cut_probs_below_half), tandem.log(2.0 * cut_probs_above_half - 1.0)
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return tandem.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (tandem.log1p(-cut_probs) - tandem.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return tandem.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return tandem.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        vars_ = cut_probs * (cut_probs - 1.0) / (1.0 - 2.0 * cut_probs).pow(2) + 1.0 / (
            tandem.log1p(-cut_probs) - tandem.log(cut_probs)
        ).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return tandem.where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = tandem.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
        with tandem.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = tandem.rand(tuple(shape), dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value) + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (cut_probs.pow(value) * (1.0 - cut_probs).pow(1.0 - value) + cut_probs - 1.0) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = tandem.where(self._outside_unstable_region(), cdfs, value)
        return tandem.where(
            value <= 0.0, tandem.zeros_like(value), tandem.where(value >= 1.0, tandem.ones_like(value), unbounded_cdfs)
        )

    def icdf(self, value):
        cut_probs = self._cut_probs()
        return tandem.where(
            self._outside_unstable_region(),
            (tandem.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - tandem.log1p(-cut_probs))
            / (tandem.log(cut_probs) - tandem.log1p(-cut_probs)),
            value,
        )

    def entropy(self):
        log_probs0 = tandem.log1p(-self.probs)
        log_probs1 = tandem.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """log of the normaliser as a function of the natural parameter (the logit), expanded near 0."""
        out_unst_reg = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut_nat_params = tandem.where(out_unst_reg, x, tandem.full_like(x, self._lims[0] - 0.5))
        log_norm = tandem.log(tandem.abs(tandem.exp(cut_nat_params) - 1.0)) - tandem.log(tandem.abs(cut_nat_params))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return tandem.where(out_unst_reg, log_norm, taylor)
