"""The probs-or-logits parametrisation shared by the families of one binary event (Bernoulli,
ContinuousBernoulli, LogitRelaxedBernoulli): exactly one of the two is given and stored, the other is derived
lazily on first use."""
from numbers import Number

import tandem

from .utils import lazy_property, logits_to_probs, probs_to_logits, broadcast_all


class BinaryProbsLogits:
    def _set_probs_or_logits(self, probs, logits):
        """Stores the given parameter (as a tensor) and returns the batch shape it implies."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        (value,) = broadcast_all(given)
        setattr(self, name, value)  # the instance attribute shadows the lazy property of that name
        self._param = value
        return tandem.Size() if isinstance(given, Number) else value.size()

    def _set_count_and_probs_or_logits(self, total_count, probs, logits):
        """The binomial-like families: total_count broadcast with the given parameter and given its dtype; returns
        the batch shape."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        total_count, value = broadcast_all(total_count, given)
        self.total_count = total_count.type_as(value)
        setattr(self, name, value)
        self._param = value
        return value.size()

    def _expand_count_and_probs_or_logits(self, new, batch_shape):
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)

    def _new(self, *args, **kwargs):
        return self._param.new(*args, **kwargs)

    def _expand_probs_or_logits(self, new, batch_shape):
        """Gives ``new`` this distribution's stored (or already derived) parameters expanded to batch_shape."""
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()
