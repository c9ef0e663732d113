"""torch.ao.quantization.fake_quantize: FakeQuantize, the module quantisation-aware training puts after weights
and activations. In training it lets its observer (observer.py) watch the input, copies the observer's scale and
zero point into its own buffers, and fake-quantises the input with them (tandem.fake_quantize_per_tensor_affine
or _per_channel_affine, with their straight-through gradient); fake quantisation and observation can each be
switched off (model.apply(disable_observer) freezes the qparams late in training). Buffers, state_dict keys and
repr are PyTorch's."""
import tandem

from ... import nn
from ..._quantized_types import (per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric,
                                 per_tensor_affine, per_tensor_symmetric, qint8, qint32, quint4x2, quint8)
from .observer import MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver, _with_args

__all__ = ["FakeQuantizeBase", "FakeQuantize", "default_fake_quant", "default_weight_fake_quant",
           "default_per_channel_weight_fake_quant", "disable_fake_quant", "enable_fake_quant", "disable_observer",
           "enable_observer"]

_PER_TENSOR = (per_tensor_affine, per_tensor_symmetric)
_PER_CHANNEL = (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams)
# torch.iinfo of the quantized dtypes and the integer ones an observer takes
_BOUNDS = {qint8: (-128, 127), quint8: (0, 255), qint32: (-2 ** 31, 2 ** 31 - 1), quint4x2: (0, 15)}


def _bounds(dtype):
    if dtype in _BOUNDS:
        return _BOUNDS[dtype]
    info = tandem.iinfo(dtype)
    return info.min, info.max


class FakeQuantizeBase(nn.Module):
    """The switches every fake quantiser has: fake_quant_enabled and observer_enabled (uint8 buffers)."""

    fake_quant_enabled: tandem.Tensor
    observer_enabled: tandem.Tensor

    with_args = classmethod(_with_args)

    def __init__(self):
        super().__init__()
        self.register_buffer("fake_quant_enabled", tandem.tensor([1], dtype=tandem.uint8))
        self.register_buffer("observer_enabled", tandem.tensor([1], dtype=tandem.uint8))

    def enable_fake_quant(self, enabled=True):
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        self.enable_fake_quant(False)

    def enable_observer(self, enabled=True):
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        self.enable_observer(False)


class FakeQuantize(FakeQuantizeBase):
    """Observe, then fake-quantise with the observed qparams (per tensor or per channel, by the observer's
    qscheme). quant_min/quant_max, when given, are checked against the dtype and handed to the observer."""

    scale: tandem.Tensor
    zero_point: tandem.Tensor

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None, is_dynamic=False,
                 **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if not quant_min <= quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            dtype = observer_kwargs.get("dtype", quint8)
            if hasattr(observer, "p"):  # a with_args wrapper: its dtype, if it names one
                dtype = getattr(observer.p, "keywords", {}).get("dtype", dtype)
            low, high = _bounds(dtype)
            if not low <= quant_min:
                raise AssertionError("quant_min out of bound")
            if not quant_max <= high:
                raise AssertionError("quant_max out of bound")
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        post = self.activation_post_process
        self.quant_min, self.quant_max, self.is_dynamic = post.quant_min, post.quant_max, post.is_dynamic
        float_qparams = post.qscheme == per_channel_affine_float_qparams
        self.register_buffer("scale", tandem.tensor([1.0], dtype=tandem.float32))
        self.register_buffer("zero_point", tandem.tensor([0], dtype=tandem.float32 if float_qparams else tandem.int32))
        self.dtype = post.dtype
        self.qscheme = post.qscheme
        self.ch_axis = post.ch_axis if hasattr(post, "ch_axis") else -1
        if self.qscheme not in _PER_TENSOR + _PER_CHANNEL:
            raise AssertionError("Only per channel and per tensor quantization are supported in fake quantize got "
                                 f"qscheme: {self.qscheme}")
        self.is_per_channel = self.qscheme in _PER_CHANNEL

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def forward(self, X):
        if self.observer_enabled[0].item() == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self.calculate_qparams()
            scale, zero_point = scale.to(self.scale.device), zero_point.to(self.zero_point.device)
            if self.scale.shape != scale.shape:
                self.scale.resize_(scale.shape)
                self.zero_point.resize_(zero_point.shape)
            self.scale.copy_(scale)
            self.zero_point.copy_(zero_point)
        if self.fake_quant_enabled[0].item() == 1:
            if self.is_per_channel:
                X = tandem.fake_quantize_per_channel_affine(X, self.scale, self.zero_point, self.ch_axis,
                                                            self.activation_post_process.quant_min,
                                                            self.activation_post_process.quant_max)
            else:
                X = tandem.fake_quantize_per_tensor_affine(X, self.scale, self.zero_point,
                                                           self.activation_post_process.quant_min,
                                                           self.activation_post_process.quant_max)
        return X

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled={self.observer_enabled}, "
                f"quant_min={self.activation_post_process.quant_min}, "
                f"quant_max={self.activation_post_process.quant_max}, dtype={self.dtype}, qscheme={self.qscheme}, "
                f"ch_axis={self.ch_axis}, scale={self.scale}, zero_point={self.zero_point}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for name in ("scale", "zero_point"):  # a per-channel checkpoint's qparams have another length
            key = prefix + name
            if key in state_dict:
                getattr(self, name).resize_(state_dict[key].shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


default_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                            dtype=quint8, qscheme=per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=-128,
                                                   quant_max=127, dtype=qint8, qscheme=per_tensor_symmetric,
                                                   reduce_range=False)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver,
                                                               quant_min=-128, quant_max=127, dtype=qint8,
                                                               qscheme=per_channel_symmetric, reduce_range=False,
                                                               ch_axis=0)


def _is_fake_quant(module):
    return isinstance(module, FakeQuantizeBase)


def disable_fake_quant(mod):
    """For module.apply(): switch fake quantisation off in every fake quantiser."""
    if _is_fake_quant(mod):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    if _is_fake_quant(mod):
        mod.enable_fake_quant()


def disable_observer(mod):
    """For module.apply(): freeze every fake quantiser's qparams."""
    if _is_fake_quant(mod):
        mod.disable_observer()


def enable_observer(mod):
    if _is_fake_quant(mod):
        mod.enable_observer()
