"""Bernoulli distribution over {0, 1}, parametrised by ``probs`` or ``logits`` (log-odds)."""
import tandem

from . import constraints
from ._binary_params import BinaryProbsLogits
from .exp_family import ExponentialFamily
from .utils import binary_cross_entropy_with_logits, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbsLogits, ExponentialFamily):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        batch_shape = self._set_probs_or_logits(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = tandem.Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        # at probs == 0.5 both outcomes are modes: PyTorch reports nan there
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return tandem.where(self.probs == 0.5, tandem.full_like(mode, float("nan")), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with tandem.no_grad():
            return tandem.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value)

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = tandem.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (tandem.log(self.probs) - tandem.log1p(-self.probs),)

    def _log_normalizer(self, x):
        return tandem.log1p(tandem.exp(x))
