"""torch.ao.quantization.observer: modules that watch the tensors passing through them (their running min and max,
per tensor or per channel) and turn what they saw into a scale and zero point (calculate_qparams), as
quantisation-aware training's FakeQuantize modules use them (fake_quantize.py). They compose tandem ops on
buffers, so they run on every device and save and load as PyTorch's (buffers eps, min_val, max_val).

Here: MinMaxObserver, MovingAverageMinMaxObserver, PerChannelMinMaxObserver,
MovingAveragePerChannelMinMaxObserver, with PyTorch's quantisation ranges (dtype, reduce_range, a custom
quant_min/quant_max), its affine and symmetric qparams and its checks. Not here: the histogram, placeholder and
float16 observers (static quantisation needs quantized tensors, which tandem has not)."""
import functools
import warnings

import tandem

from ... import nn
from ..._quantized_types import (per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric,
                                 per_tensor_affine, per_tensor_symmetric, qint8, qint32, quint4x2, quint8)

_EPS = 2.0 ** -23  # torch.finfo(torch.float32).eps, the observers' default floor for a scale
_PER_TENSOR = (per_tensor_affine, per_tensor_symmetric)
_PER_CHANNEL = (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams)
_SYMMETRIC = (per_tensor_symmetric, per_channel_symmetric)
# the dtypes PyTorch's observers take, in the order its message lists them (the float8 ones it names are missing)
_DTYPES = (qint8, quint8, quint4x2, qint32, tandem.int8, tandem.uint8, tandem.int16, tandem.int32, tandem.uint16)
_DTYPES_MESSAGE = ("Default Observer only works for (torch.qint8, torch.quint8, torch.quint4x2, torch.qint32, "
                   "torch.int8, torch.uint8, torch.int16, torch.int32, torch.float8_e5m2, torch.float8_e4m3fn, "
                   "torch.uint16) data type")


class _PartialWrapper:
    """What Observer.with_args returns: a callable that makes the module with the given keyword arguments
    (a partial whose `p` attribute is the functools.partial, as PyTorch's wrapper has)."""

    def __init__(self, p):
        self.p = p

    def __call__(self, *args, **kwargs):
        return self.p(*args, **kwargs)

    def __repr__(self):
        return self.p.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self.p, **kwargs)


def _with_args(cls_or_self, **kwargs):
    return _PartialWrapper(functools.partial(cls_or_self, **kwargs))


def _quant_range(dtype, reduce_range, quant_min, quant_max):
    """PyTorch's calculate_qmin_qmax: the dtype's range (halved by reduce_range), or the user's (checked against
    the dtype's bit width, halved by reduce_range too)."""
    if quant_min is not None and quant_max is not None:
        length = quant_max - quant_min + 1
        if dtype in (qint8, tandem.int8) and not 0 < length <= 256:
            raise AssertionError("quantization range should be positive and not exceed the maximum bit range (=256).")
        if dtype in (qint32, tandem.int32) and not 0 < length <= 2 ** 32:
            raise AssertionError("quantization range should be positive and not exceed the maximum bit range "
                                 "(=4294967296).")
        return (quant_min // 2, quant_max // 2) if reduce_range else (quant_min, quant_max)
    if dtype in (qint8, tandem.int8):
        return (-64, 63) if reduce_range else (-128, 127)
    if dtype in (quint8, tandem.uint8):
        return (0, 127) if reduce_range else (0, 255)
    if dtype in (qint32, tandem.int32):
        return -2 ** 31, 2 ** 31 - 1
    if dtype == tandem.uint16:
        return 0, 2 ** 16 - 1
    if dtype == tandem.int16:
        return -2 ** 15, 2 ** 15 - 1
    return 0, 15


class ObserverBase(nn.Module):
    """An observer records statistics of what passes through forward() and gives qparams from them."""

    with_args = classmethod(_with_args)

    def __init__(self, dtype, is_dynamic=False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic


class UniformQuantizationObserverBase(ObserverBase):
    """The range and qparams logic the min/max observers share."""

    eps: tandem.Tensor

    def __init__(self, dtype=quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False,
                 **kwargs):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        factory_kwargs = dict(factory_kwargs or {})
        self.qscheme = qscheme
        if reduce_range:
            warnings.warn("Please use quant_min and quant_max to specify the range for observers. reduce_range "
                          "will be deprecated in a future release of PyTorch.", stacklevel=2)
        self.reduce_range = reduce_range
        self.register_buffer("eps", tandem.tensor([eps], **factory_kwargs))
        if qscheme not in _PER_TENSOR + _PER_CHANNEL:
            raise AssertionError("Default Observer only works for per_tensor_affine, per_tensor_symmetric, "
                                 "per_channel_affine, per_channel_symmetric and per_channel_float_qparams "
                                 "quantization scheme")
        if dtype not in _DTYPES:
            raise AssertionError(_DTYPES_MESSAGE)
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            if not quant_min <= 0 <= quant_max:
                raise AssertionError("Used-specified quantization range must include 0.")
            if not quant_min < quant_max:
                raise AssertionError("qmin must be strictly less than qmax for user-specified quantization range.")
        self.quant_min, self.quant_max = _quant_range(dtype, reduce_range, quant_min, quant_max)

    def _min_max_valid(self, min_val, max_val):
        if min_val.numel() == 0 or max_val.numel() == 0:
            warnings.warn("must run observer before calling calculate_qparams. Returning default values.",
                          stacklevel=3)
            return False
        if min_val.dim() == 0 or max_val.dim() == 0:
            if min_val.item() == float("inf") and max_val.item() == float("-inf"):
                warnings.warn("must run observer before calling calculate_qparams. Returning default values.",
                              stacklevel=3)
                return False
            if not min_val.item() <= max_val.item():
                raise AssertionError(f"min {min_val} should be less than max {max_val}")
        elif not bool((min_val <= max_val).all()):
            raise AssertionError(f"min {min_val} should be less than max {max_val}")
        return True

    def _calculate_qparams(self, min_val, max_val):
        """PyTorch's qparams from a min and max (0-d or per channel): the range is widened to hold 0; symmetric
        schemes centre it (zero point 0, or the middle of an unsigned range), affine ones map min to quant_min."""
        device = min_val.device
        if not self._min_max_valid(min_val, max_val):
            return tandem.tensor([1.0], device=device.type), tandem.tensor([0], device=device.type)
        qmin, qmax = self.quant_min, self.quant_max
        min_neg = tandem.minimum(min_val, tandem.zeros_like(min_val))
        max_pos = tandem.maximum(max_val, tandem.zeros_like(max_val))
        zero_point = tandem.zeros(min_neg.shape, dtype=tandem.int64, device=device)
        if self.qscheme in _SYMMETRIC:
            max_pos = tandem.maximum(-min_neg, max_pos)
            scale = tandem.maximum(max_pos / (float(qmax - qmin) / 2), self.eps)
            if self.dtype in (quint8, tandem.uint8):
                middle = (qmin + qmax) // 2 if self.has_customized_qrange else 128
                zero_point = tandem.full(min_neg.shape, middle, dtype=tandem.int64, device=device)
            elif self.dtype == tandem.uint16:
                middle = (qmin + qmax) // 2 if self.has_customized_qrange else 2 ** 15
                zero_point = tandem.full(min_neg.shape, middle, dtype=tandem.int64, device=device)
        elif self.qscheme == per_channel_affine_float_qparams:
            scale = (max_val - min_val) / float(qmax - qmin)
            scale = tandem.where(scale > self.eps, scale, tandem.ones_like(scale))
            zero_point = -1 * min_val / scale
        else:
            scale = tandem.maximum((max_pos - min_neg) / float(qmax - qmin), self.eps)
            zero_point = qmin - tandem.round(min_neg / scale).to(tandem.int32)
            zero_point = tandem.clamp(zero_point, qmin, qmax)
        if scale.dim() == 0:
            scale = scale.reshape(1)
        if zero_point.dim() == 0:
            zero_point = zero_point.reshape(1)
        return scale, zero_point

    def reset_min_max_vals(self):
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


def _aminmax(x):
    return tandem.aminmax(x)


class MinMaxObserver(UniformQuantizationObserverBase):
    """The running minimum and maximum of everything observed (0-d buffers, inf and -inf before the first)."""

    min_val: tandem.Tensor
    max_val: tandem.Tensor

    def __init__(self, dtype=quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None, quant_max=None,
                 factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("MinMaxObserver's qscheme only support torch.per_tensor_symmetric"
                                      + " " * 21 + "and torch.per_tensor_affine.")  # PyTorch's spaces
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        factory_kwargs = dict(factory_kwargs or {})
        self.register_buffer("min_val", tandem.tensor(float("inf"), **factory_kwargs))
        self.register_buffer("max_val", tandem.tensor(float("-inf"), **factory_kwargs))
        if self.qscheme == per_tensor_symmetric and self.reduce_range and self.dtype == quint8:
            raise NotImplementedError("Cannot reduce range for symmetric" + " " * 40 + "quantization for quint8")

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        low, high = _aminmax(x_orig.detach().to(self.min_val.dtype))
        self.min_val.copy_(tandem.minimum(low, self.min_val))
        self.max_val.copy_(tandem.maximum(high, self.max_val))
        return x_orig

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        self.min_val.fill_(float("inf"))
        self.max_val.fill_(float("-inf"))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """min and max as exponential moving averages (the first observation taken as it is)."""

    def __init__(self, averaging_constant=0.01, dtype=quint8, qscheme=per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("MovingAverageMinMaxObserver's qscheme only support" + " " * 17 +
                                      "torch.per_tensor_symmetric and torch.per_tensor_affine." + " " * 17 +
                                      f"but got: {qscheme}")
        self.averaging_constant = averaging_constant
        if is_dynamic and self.averaging_constant != 1:
            raise NotImplementedError("MovingAverageMinMaxObserver doesn't support dynamic quantization for "
                                      f"averaging constant of {self.averaging_constant}")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, eps=eps, **kwargs)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        low, high = _aminmax(x_orig.detach().to(self.min_val.dtype))
        if not (self.min_val.item() == float("inf") and self.max_val.item() == float("-inf")):
            low = self.min_val + self.averaging_constant * (low - self.min_val)
            high = self.max_val + self.averaging_constant * (high - self.max_val)
        self.min_val.copy_(low)
        self.max_val.copy_(high)
        return x_orig


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """The running minimum and maximum of each slice along ch_axis (1-d buffers, empty before the first)."""

    min_val: tandem.Tensor
    max_val: tandem.Tensor

    def __init__(self, ch_axis=0, dtype=quint8, qscheme=per_channel_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False,
                 **kwargs):
        name = type(self).__name__  # PyTorch's messages name the class (the moving-average subclass too)
        if qscheme not in _PER_CHANNEL:
            raise NotImplementedError(f"{name}'s qscheme only support" + " " * 21 +
                                      "torch.per_channel_symmetric, torch.per_channel_affine and "
                                      "torch.per_channel_affine_float_qparams.")
        if is_dynamic:
            raise NotImplementedError(f"{name} doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic,
                         **kwargs)
        factory_kwargs = dict(factory_kwargs or {})
        self.ch_axis = ch_axis
        self.register_buffer("min_val", tandem.tensor([], **factory_kwargs))
        self.register_buffer("max_val", tandem.tensor([], **factory_kwargs))
        if self.qscheme == per_channel_symmetric and self.reduce_range and self.dtype == quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def _per_channel(self, x):
        """x with ch_axis moved to the front and the rest flattened: one row per channel."""
        order = list(range(x.dim()))
        order[self.ch_axis], order[0] = 0, self.ch_axis
        return x.permute(order).to(self.min_val.dtype).flatten(1)

    def _update(self, low, high):
        if self.min_val.numel() and self.max_val.numel():
            low, high = tandem.minimum(low, self.min_val), tandem.maximum(high, self.max_val)
        return low, high

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        low, high = self._update(*tandem.aminmax(self._per_channel(x_orig.detach()), dim=1))
        self.min_val.resize_(low.shape)
        self.max_val.resize_(high.shape)
        self.min_val.copy_(low)
        self.max_val.copy_(high)
        return x_orig

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for name in ("min_val", "max_val"):  # the saved per-channel buffers may have another length
            key = prefix + name
            if key in state_dict:
                getattr(self, name).resize_(state_dict[key].shape)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def reset_min_max_vals(self):
        self.min_val = tandem.tensor([], device=self.min_val.device)
        self.max_val = tandem.tensor([], device=self.max_val.device)


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel min and max as exponential moving averages."""

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=quint8, qscheme=per_channel_affine,
                 reduce_range=False, quant_min=None, quant_max=None, eps=_EPS,
                 is_dynamic=False, **kwargs):
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.averaging_constant = averaging_constant

    def _update(self, low, high):
        if self.min_val.numel() and self.max_val.numel():
            low = self.min_val + self.averaging_constant * (low - self.min_val)
            high = self.max_val + self.averaging_constant * (high - self.max_val)
        return low, high


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_weight_observer = MinMaxObserver.with_args(dtype=qint8, qscheme=per_tensor_symmetric)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(dtype=qint8,
                                                                         qscheme=per_channel_symmetric)
