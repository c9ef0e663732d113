"""Negative binomial distribution: failures before ``total_count`` successes, each trial failing with ``probs``
(or ``logits``). Sampled as a gamma-Poisson mixture through the C++ gamma and Poisson samplers."""
import tandem
import tandem.nn.functional as F

from . import constraints
from ._binary_params import BinaryProbsLogits
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsLogits, Distribution):
    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_count_and_probs_or_logits(total_count, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = tandem.Size(batch_shape)
        self._expand_count_and_probs_or_logits(new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * tandem.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / tandem.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # not validated: total_count may be 0, where the mixture is the point mass at 0
        return Gamma(concentration=self.total_count, rate=tandem.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=()):
        with tandem.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return tandem.poisson(rate)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_normalization = (
            -tandem.lgamma(self.total_count + value) + tandem.lgamma(1.0 + value) + tandem.lgamma(self.total_count)
        )
        # total_count == 0 and value == 0 has probability 1, but lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
