"""BatchNorm1d/2d (running statistics used in eval) and LayerNorm."""
import tandem

from .. import functional as F
from .. import init
from ..._transfer_guard import _crossing
from ..parameter import Parameter, untracked
from .module import Module


class _NormBase(Module):
    """The parameters, running-statistics buffers, resets, checkpoint loading and repr that batch and instance
    norms share (PyTorch's _NormBase: an InstanceNorm is not a _BatchNorm, which isinstance checks rely on)."""

    _version = 2  # PyTorch's: num_batches_tracked exists from version 2 on

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # A checkpoint from before num_batches_tracked (version < 2, e.g. old torchvision weights) loads with the
        # module's own counter, as in PyTorch.
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else tandem.tensor(0, dtype=tandem.int64))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.use_bias = affine and bias
        if affine:
            self.weight = Parameter(tandem.empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if self.use_bias:
            self.bias = Parameter(tandem.empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", tandem.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", tandem.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", tandem.tensor(0, dtype=tandem.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            untracked(self.running_mean).zero_()
            untracked(self.running_var).fill_(1)
            untracked(self.num_batches_tracked).zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
        if self.use_bias:
            init.zeros_(self.bias)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, bias={self.use_bias}, "
                f"track_running_stats={self.track_running_stats}")

    def _check_input_dim(self, input):
        raise NotImplementedError  # each norm names the ranks it takes; a subclass that names none cannot run


class _BatchNorm(_NormBase):
    _expected_dims = ()  # the ranks a BatchNormNd takes

    def _check_input_dim(self, input):
        # forward calls this hook, as PyTorch's does, so a subclass can widen or narrow the ranks by overriding it
        if not self._expected_dims:
            super()._check_input_dim(input)
        if input.dim() not in self._expected_dims:
            raise ValueError(f"expected {' or '.join(f'{d}D' for d in self._expected_dims)} input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        momentum = self.momentum
        if self.training and self.track_running_stats:
            untracked(self.num_batches_tracked).add_(1)
            if momentum is None:  # cumulative moving average
                with _crossing("BatchNorm(momentum=None)"):  # implicit for transfer_guard
                    momentum = 1.0 / float(self.num_batches_tracked.item())
        use_batch_stats = self.training or self.running_mean is None
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, use_batch_stats, momentum if momentum is not None else 0.0, self.eps,
        )


class BatchNorm1d(_BatchNorm):
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _expected_dims = (4,)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:  # empty, then reset_parameters, as PyTorch (a bad shape is empty()'s error)
            self.weight = Parameter(tandem.empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(tandem.empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight back to ones and bias to zeros (nothing to reset without elementwise_affine)."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


# PyTorch's module path for these (torch.nn.modules.normalization.GroupNorm), which pickled models and
# safe_globals lists name; they are defined in normalization_more.py.
from .normalization_more import GroupNorm, LocalResponseNorm, RMSNorm  # noqa: E402,F401
