"""Gamma distribution with shape ``concentration`` and ``rate`` (= 1 / scale)."""
import tandem

from . import constraints
from ._params import expand_params, set_broadcast_params
from .exp_family import ExponentialFamily

__all__ = ["Gamma"]


def _standard_gamma(concentration, generator=None):
    return tandem._standard_gamma(concentration, generator=generator)


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        batch_shape = set_broadcast_params(self, concentration=concentration, rate=rate)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return expand_params(Gamma, self, ("concentration", "rate"), batch_shape, _instance)

    def sample(self, sample_shape=(), *, generator=None):
        with tandem.no_grad():
            return self.rsample(sample_shape, generator=generator)

    def rsample(self, sample_shape=(), generator=None):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape), generator=generator) / self.rate.expand(shape)
        value.detach().clamp_(min=tandem.finfo(value.dtype).tiny)  # in place on the data: not recorded
        return value

    def log_prob(self, value):
        value = tandem.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (
            tandem.xlogy(self.concentration, self.rate)
            + tandem.xlogy(self.concentration - 1, value)
            - self.rate * value
            - tandem.lgamma(self.concentration)
        )

    def cdf(self, value):
        """P(concentration, rate * value), the regularized lower incomplete gamma function (as PyTorch's)."""
        if self._validate_args:
            self._validate_sample(value)
        return tandem.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        return (
            self.concentration
            - tandem.log(self.rate)
            + tandem.lgamma(self.concentration)
            + (1.0 - self.concentration) * tandem.digamma(self.concentration)
        )

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return tandem.lgamma(x + 1) + (x + 1) * tandem.log(-y.reciprocal())
