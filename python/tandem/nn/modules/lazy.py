"""Lazy layers: in_features / in_channels / num_features come from the first input. Until then the weights
are UninitializedParameter placeholders (empty tensors); the first forward materialises them, runs
reset_parameters, and turns the layer into its ordinary class (LazyLinear becomes Linear), as in PyTorch.

Loading a state dict into a lazy layer before its first forward materialises the placeholders with the saved
shapes (a load_state_dict pre-hook, as PyTorch's); a lazy layer's own state dict keeps the placeholders.
"""
import inspect

import tandem

from ...autograd import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .conv import Conv2d
from .conv_more import Conv1d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from .linear import Linear
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = [
    "UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d",
    "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
    "LazyBatchNorm2d",
]


class LazyModuleMixin:
    """Put first in the bases; the class defines initialize_parameters(input) and cls_to_become."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(LazyModuleMixin._infer_parameters)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Placeholders are saved as themselves (not detached empty tensors), so that loading the state dict
        # of a lazy layer into another one leaves it lazy, as in PyTorch.
        super()._save_to_state_dict(destination, prefix, keep_vars)
        for name, tensor in list(self._parameters.items()) + list(self._buffers.items()):
            if is_lazy(tensor) and prefix + name in destination:
                destination[prefix + name] = tensor

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """A placeholder takes the shape of the initialised tensor loaded into it; the load then copies it."""
        for name, tensor in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if key in state_dict and is_lazy(tensor) and not is_lazy(state_dict[key]):
                with no_grad():
                    tensor.materialize(state_dict[key].shape)

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in list(self._parameters.values()) + list(self._buffers.values()))

    @staticmethod
    def _infer_parameters(module, args):
        with no_grad():
            module.initialize_parameters(*args)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        del module._initialize_hook, module._load_hook
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def initialize_parameters(self, *args):
        raise NotImplementedError(f"initialize_parameters is not implemented for {type(self).__name__}")


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device=device, dtype=dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
        if self.in_features == 0:  # materialised by load_state_dict: in_features comes from the first input
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(LazyModuleMixin):
    """Shared by the lazy convolutions: in_channels is the input's channel dim (dim 0 when unbatched)."""

    def __init__(self, out_channels, *args, **kwargs):
        # The arguments of cls_to_become after in_channels (its order differs for the transposed layers).
        bound = inspect.signature(self.cls_to_become.__init__).bind(self, 0, out_channels, *args, **kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        del arguments["self"]
        bias, device, dtype = arguments["bias"], arguments["device"], arguments["dtype"]
        super().__init__(**dict(arguments, out_channels=0, bias=False))
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args):
        if not self.has_uninitialized_params():
            return
        n = self._dims
        if input.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {type(self).__name__}, "
                               f"but got input of size: {input.shape}")
        self.in_channels = input.shape[1] if input.dim() == n + 2 else input.shape[0]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            self.weight.materialize((self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size))
        else:
            self.weight.materialize((self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvXdMixin, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvXdMixin, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin):
    """LazyBatchNorm: weight, bias and the running statistics wait for num_features = input.shape[1]."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        # affine and track_running_stats start False so that no tensor is built only to be replaced.
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine, self.track_running_stats, self.use_bias = affine, track_running_stats, affine and bias
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tandem.tensor(0, dtype=tandem.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            for name in ("weight", "bias", "running_mean", "running_var"):
                tensor = getattr(self, name)
                if tensor is not None:
                    tensor.materialize((self.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d
