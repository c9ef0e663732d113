"""MixtureSameFamily: a mixture whose K components are the rightmost batch dim of one distribution, weighted by a
Categorical over K (for example a batch of Gaussian mixtures from one Normal with batch shape (..., K))."""
import tandem

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(self._mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of tandem.distributions.Categorical")
        if not isinstance(self._component_distribution, Distribution):
            raise ValueError(
                "The Component distribution needs to be an instance of tandem.distributions.Distribution"
            )
        mdbs = self._mixture_distribution.batch_shape
        cdbs = self._component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(
                    f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                    f"compatible with `component_distribution.batch_shape`({cdbs})"
                )
        km = self._mixture_distribution.logits.shape[-1]
        kc = self._component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(
                f"`mixture_distribution component` ({km}) does not equal "
                f"`component_distribution.batch_shape[-1]` ({kc})"
            )
        self._num_component = km
        event_shape = self._component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(batch_shape=cdbs, event_shape=event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tandem.Size(batch_shape)
        batch_shape_comp = tuple(batch_shape) + (self._num_component,)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        new._component_distribution = self._component_distribution.expand(batch_shape_comp)
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        super(MixtureSameFamily, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    def _mixture_weights(self):
        """Mixture probabilities shaped (..., K, 1 per event dim), so they broadcast against component values."""
        probs = self._mixture_distribution.probs
        return probs.reshape(*probs.shape, *([1] * self._event_ndims))

    def _pad(self, x):
        """x with a component dim inserted before the event dims, so it broadcasts over the K components."""
        return x.unsqueeze(-1 - self._event_ndims)

    @property
    def mean(self):
        return (self._mixture_weights() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        # law of total variance: E[Var(X | k)] + Var(E[X | k])
        probs = self._mixture_weights()
        mean_cond_var = (probs * self._component_distribution.variance).sum(-1 - self._event_ndims)
        deviation = self._component_distribution.mean - self._pad(self.mean)
        var_cond_mean = (probs * deviation.pow(2)).sum(-1 - self._event_ndims)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        x = self._pad(x)
        cdf_x = self._component_distribution.cdf(x)
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        x = self._pad(x)
        log_prob_x = self._component_distribution.log_prob(x)  # [S, B, K]
        log_mix_prob = tandem.log_softmax(self._mixture_distribution.logits, dim=-1)  # [B, K]
        return tandem.logsumexp(log_prob_x + log_mix_prob, dim=-1)  # [S, B]

    def sample(self, sample_shape=()):
        with tandem.no_grad():
            sample_shape = tuple(sample_shape)
            gather_dim = len(sample_shape) + len(self.batch_shape)
            event_shape = tuple(self.event_shape)
            mix_sample = self._mixture_distribution.sample(sample_shape)  # [S, B]
            comp_samples = self._component_distribution.sample(sample_shape)  # [S, B, K, E]
            # pick each draw's component: gather along K with the index repeated over the event dims (and over
            # the batch dims a mixture with a smaller batch shape broadcasts across)
            mix_batch = tuple(self._mixture_distribution.batch_shape)
            missing = len(self.batch_shape) - len(mix_batch)
            index_shape = sample_shape + (1,) * missing + mix_batch + (1,) * (len(event_shape) + 1)
            index = mix_sample.reshape(index_shape)
            index = index.expand(tuple(comp_samples.shape[:gather_dim]) + (1,) + event_shape)
            samples = tandem.gather(comp_samples, gather_dim, index)
            return samples.squeeze(gather_dim)

    def __repr__(self):
        args_string = f"\n  {self.mixture_distribution},\n  {self.component_distribution}"
        return "MixtureSameFamily" + "(" + args_string + ")"
