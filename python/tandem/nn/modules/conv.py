"""What every convolution layer shares (_ConvNd), and Conv2d. The other dimensions and the transposed layers
live in conv_more.py; the 2-D pooling layers, once here, in pooling.py (still importable from here)."""
import math

import tandem

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _ntuple as _parse_ntuple, own_init
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d  # noqa: F401 (their old home)

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value, n):
    return _parse_ntuple(n)(value)  # PyTorch's: any iterable as given (a str as its characters), else repeated


def _pair(value):
    return _ntuple(value, 2)


class _ConvNd(Module):
    """PyTorch's _ConvNd: argument checks, the weight ((out, in/groups, *k), or (in, out/groups, *k) when
    transposed), its init, the padding for non-zero padding modes, and the repr."""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed, self.output_padding = transposed, output_padding
        self.groups, self.padding_mode = groups, padding_mode
        # F.pad's (left, right) pairs, last dim first; 'same' puts the odd one on the right, as conv does.
        self._reversed_padding_repeated_twice = []
        per_dim = (padding,) * len(kernel_size) if isinstance(padding, str) else padding  # 'same'/'valid' each dim
        for d, k, p in reversed(list(zip(dilation, kernel_size, per_dim))):
            if p == "same":
                total = d * (k - 1)
                self._reversed_padding_repeated_twice += [total // 2, total - total // 2]
            else:
                self._reversed_padding_repeated_twice += [0, 0] if p == "valid" else [p, p]
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(tandem.empty(shape + tuple(kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(tandem.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _ConvForwardNd(_ConvNd):
    """Conv1d/2d/3d: the constructor they share; _dims and _conv (the functional op) say which one."""

    _dims = 2
    _conv = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        n = self._dims
        super().__init__(in_channels, out_channels, _ntuple(kernel_size, n), _ntuple(stride, n),
                         padding if isinstance(padding, str) else _ntuple(padding, n), _ntuple(dilation, n), False,
                         (0,) * n, groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._conv(padded, weight, bias, self.stride, (0,) * self._dims, self.dilation, self.groups)
        return self._conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


@own_init
class Conv2d(_ConvForwardNd):
    """2-D convolution (grouped too, any padding mode), initialised as PyTorch does."""

    _dims = 2
    _conv = staticmethod(F.conv2d)


# PyTorch's module path for these (torch.nn.modules.conv.Conv1d); they are defined in conv_more.py.
from .conv_more import (Conv1d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,  # noqa: E402,F401
                        _ConvTransposeNd)
