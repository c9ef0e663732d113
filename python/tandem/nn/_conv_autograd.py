"""Convolution and pooling: the C++ forward ops, joined to autograd with their C++ backward functions."""
from .. import _C


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    return _C._max_pool2d_with_indices(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if divisor_override is not None:
        raise NotImplementedError("avg_pool2d: divisor_override is not supported\nhint: divide the sum yourself")
    return _C._avg_pool2d(input, kernel_size, stride or None, padding, ceil_mode, count_include_pad)


def adaptive_avg_pool2d(input, output_size):
    if isinstance(output_size, (tuple, list)):
        output_size = tuple(input.shape[-2 + i] if s is None else s for i, s in enumerate(output_size))
    return _C._adaptive_avg_pool2d(input, output_size)
