"""ExponentialFamily: the base for families written as p(x) = h(x) exp(<t(x), theta> - F(theta)).

Subclasses give ``_natural_params``, ``_log_normalizer`` (F) and ``_mean_carrier_measure`` (E[log h(x)]); the
generic entropy below (and the Bregman-divergence KL in kl.py) follow from them through autograd.
"""
import tandem

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[log h(x)] (the gradient taken by autograd)."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = tandem.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(*self._batch_shape, -1).sum(-1)
        return result
