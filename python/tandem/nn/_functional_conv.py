"""nn.functional convolutions beyond conv2d (1-d, 3-d, transposed), unfold/fold, the 1-d, 3-d, adaptive and
power-average pooling family, and interpolate (re-exported by nn.functional).

Each is a composition of tandem's C++ conv2d and 2-d pooling ops with index_select, index_add, matmul and
reductions, so autograd and every device come for free. Python only builds small index maps (on the input's
device) and loops over spatial dims, never over elements.
"""
import math
import numbers
import struct
import warnings

import tandem

from .. import _C
from .._autocast import active as _amp_active, run as _amp_run
from .._layouts import follow_input_layout
from ._functional_layers import pad
from .functional import adaptive_avg_pool2d, avg_pool2d, max_pool2d, max_pool2d_with_indices, relu

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold",
    "max_pool1d", "max_pool1d_with_indices", "max_pool3d", "max_pool3d_with_indices", "avg_pool1d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear",
]


# ------------------------------------------------------------------------------------------- shared helpers
def _arange(n, device, dtype=None):
    return tandem.arange(n, dtype=dtype, device=device)


def _batched(input, n, fn):
    """(input with a batch dim, whether it came with one), refusing other ranks with PyTorch's message."""
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {fn}, but got input of "
                           f"size: {list(input.shape)}")
    return (input, True) if input.dim() == n + 2 else (input.unsqueeze(0), False)


def _unbatch(out, batched):
    return out if batched else out.squeeze(0)


def _pad_right(x, extra):
    """Zero-pads the end of each trailing spatial dim by extra[i] (extra lists dims first to last)."""
    amounts = []
    for e in reversed(extra):
        amounts += [0, e]
    return pad(x, amounts)


# ------------------------------------------------------------------------------------------- convolutions
def _conv_tuple(value, n, name):
    """PyTorch's expand_param_if_needed: an int, or a sequence of 1 or n ints."""
    if not isinstance(value, (tuple, list)):
        return (value,) * n
    if len(value) == 1:
        return tuple(value) * n
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match the "
                           f"convolution dimensions, but got {name}={list(value)}")
    return tuple(value)


def _conv_padding(padding, weight, stride, dilation, n):
    """(symmetric padding, extra right padding or None): 'same' splits d(k-1) with the odd one on the right."""
    if not isinstance(padding, str):
        return _conv_tuple(padding, n, "padding"), None
    if padding == "valid":
        return (0,) * n, None
    if padding != "same":
        raise RuntimeError(f"Invalid padding string: '{padding}'")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    total = [d * (k - 1) for d, k in zip(dilation, weight.shape[-n:])]
    extra = [t % 2 for t in total]
    return tuple(t // 2 for t in total), (extra if any(extra) else None)


def _check_conv(x, weight, bias, stride, padding, dilation, groups, output_padding=None):
    """PyTorch's check_shape_forward, in its order; output_padding is given for transposed convolutions."""
    transposed = output_padding is not None
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if transposed and any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):  # PyTorch words a negative dilation and a zero one differently
        raise RuntimeError("dilation should be greater than zero")
    if any(d <= 0 for d in dilation):
        if transposed and len(dilation) == 2:  # PyTorch's transposed kernel words it per axis
            raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dilation[0]}, "
                               f"dilation_width: {dilation[1]}")
        if len(dilation) == 1:  # PyTorch's conv1d checks before running as a 2-d convolution
            raise RuntimeError("non-positive dilation is not supported")
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    ws = list(weight.shape)
    if weight.dim() != x.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight {ws}, "
                           f"but got {x.dim()}-dimensional input of size {list(x.shape)} instead")
    if ws[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if ws[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    channels, out_channels = (ws[0], ws[1] * groups) if transposed else (ws[1] * groups, ws[0])
    given = "Given transposed=1, " if transposed else f"Given groups={groups}, "
    if x.size(1) != channels:
        raise RuntimeError(f"{given}weight of size {ws}, expected input{list(x.shape)} to have {channels} channels, "
                           f"but got {x.size(1)} channels instead")
    if bias is not None and (bias.dim() != 1 or bias.size(0) != out_channels):
        given = "Given transposed=1, " if transposed else "Given "
        raise RuntimeError(f"{given}weight of size {ws}, expected bias to be 1-dimensional with {out_channels} "
                           f"elements, but got bias of size {list(bias.shape)} instead")
    if not transposed:
        padded = [x.size(2 + i) + 2 * p for i, p in enumerate(padding)]
        kernel = [d * (k - 1) + 1 for d, k in zip(dilation, ws[2:])]
        if any(p < k for p, k in zip(padded, kernel)):
            raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel "
                               f"size: ({' x '.join(map(str, kernel))}). Kernel size can't be greater than actual "
                               f"input size")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (a C++ op: im2col + one GEMM); padding may also be 'same' or 'valid'."""
    if isinstance(padding, str):
        padding, extra = _conv_padding(padding, weight, _conv_tuple(stride, 2, "stride"),
                                       _conv_tuple(dilation, 2, "dilation"), 2)
        if extra:
            input = _pad_right(input, extra)
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def _conv1d_core(x, weight, bias, stride, padding, dilation, groups):
    """A 1-d convolution is a 2-d one over a height-1 plane."""
    out = _C.conv2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride, (0,) + padding, (1,) + dilation,
                    groups)
    return out.squeeze(2)


def _conv3d_core(x, weight, bias, stride, padding, dilation, groups):
    """One conv2d over (N * D_out) planes: each plane stacks the k_D input planes its output depth reads
    (gathered with index_select) along the channels, and the weight's depth folds into its input channels."""
    n, c, depth = x.shape[:3]
    o, cg, kd, kh, kw = weight.shape
    sd, pd, dd = stride[0], padding[0], dilation[0]
    if pd:
        x = pad(x, [0, 0, 0, 0, pd, pd])
    d_out = (depth + 2 * pd - dd * (kd - 1) - 1) // sd + 1
    planes = (_arange(kd, x.device) * dd).unsqueeze(1) + (_arange(d_out, x.device) * sd).unsqueeze(0)
    h, w = x.shape[3:]
    cols = x.index_select(2, planes.reshape(-1)).reshape(n, groups, cg, kd, d_out, h, w)
    cols = cols.permute(0, 4, 1, 3, 2, 5, 6).reshape(n * d_out, groups * kd * cg, h, w)
    w2 = weight.permute(0, 2, 1, 3, 4).reshape(o, kd * cg, kh, kw)
    out = _C.conv2d(cols, w2, bias, stride[1:], padding[1:], dilation[1:], groups)
    # out.size(1), not o: an input without channels has an output without channels (conv2d's, PyTorch's shape)
    return out.reshape(n, d_out, out.size(1), out.size(2), out.size(3)).permute(0, 2, 1, 3, 4).contiguous()


_CONV_CORES = {1: _conv1d_core, 2: _C.conv2d, 3: _conv3d_core}


def _convolution(fn, n, input, weight, bias, stride, padding, dilation, groups):
    x, batched = _batched(input, n, fn)
    stride, dilation = _conv_tuple(stride, n, "stride"), _conv_tuple(dilation, n, "dilation")
    padding, extra = _conv_padding(padding, weight, stride, dilation, n)
    if extra:
        x = _pad_right(x, extra)
    _check_conv(x, weight, bias, stride, padding, dilation, groups)
    out = _CONV_CORES[n](x, weight, bias, stride, padding, dilation, groups)
    # PyTorch's layouts: a 1-d result is row-major (conv2d would keep a transposed input's channels-last look); a
    # 3-d one follows a channels_last_3d input or weight (2-d: the C++ op does)
    out = out.contiguous() if n == 1 else follow_input_layout(out, x, weight) if n == 3 else out
    return _unbatch(out, batched)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L): conv2d on a height-1 plane."""
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W): one conv2d over the gathered depth windows."""
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _check_transposed_sizes(x, weight, stride, padding, output_padding, dilation):
    """PyTorch's slow_conv_transpose shape checks; a 1-d call reports itself as the 2-d one it runs as."""
    n = len(stride)
    sizes = [x.size(2 + i) for i in range(n)]
    out = [(s - 1) * st - 2 * p + d * (k - 1) + op + 1
           for s, st, p, d, k, op in zip(sizes, stride, padding, dilation, weight.shape[2:], output_padding)]
    if n == 1:
        sizes, out, stride, output_padding, dilation = ([1] + sizes, [1] + out, (1,) + stride,
                                                        (0,) + output_padding, (1,) + dilation)
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        names = ("depth", "height", "width")[3 - len(stride):]
        parts = [f"{kind}_{name}: {v}" for kind, values in (("output_padding", output_padding), ("stride", stride),
                                                              ("dilation", dilation))
                 for name, v in zip(names, values)]
        raise RuntimeError("output padding must be smaller than either stride or dilation, but got " + " ".join(parts))
    if any(o < 1 for o in out):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, sizes))}). Calculated output size "
                           f"per channel: ({' x '.join(map(str, out))}). Output size is too small")


def _conv_transpose(fn, n, input, weight, bias, stride, padding, output_padding, groups, dilation):
    """The adjoint of a strided convolution, as PyTorch computes it: one matmul gives every input position's
    contribution to its k-window of the output (columns), and col2im sums them in place. 1-d and 2-d run as the
    C++ conv_transpose2d (a kernel col2im); 3-d composes matmul with one index_add."""
    if _amp_active():  # PyTorch's autocast list: lower
        return _amp_run("lower", _conv_transpose,
                        fn, n, input, weight, bias, stride, padding, output_padding, groups, dilation)
    if isinstance(padding, str):
        raise TypeError(f"{fn}(): argument 'padding' must be tuple of ints, not str")
    x, batched = _batched(input, n, fn)
    stride, padding = _conv_tuple(stride, n, "stride"), _conv_tuple(padding, n, "padding")
    output_padding = _conv_tuple(output_padding, n, "output_padding")
    dilation = _conv_tuple(dilation, n, "dilation")
    _check_conv(x, weight, bias, stride, padding, dilation, groups, output_padding)
    _check_transposed_sizes(x, weight, stride, padding, output_padding, dilation)
    if n < 3:  # the C++ op (a 1-d one runs over a height-1 plane)
        if n == 1:
            out = _C._conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride, (0,) + padding,
                                       (0,) + output_padding, (1,) + dilation, groups).squeeze(2)
        else:
            out = follow_input_layout(
                _C._conv_transpose2d(x, weight, bias, stride, padding, output_padding, dilation, groups), x, weight)
        return _unbatch(out, batched)
    batch, c_in, c_out_g = x.size(0), x.size(1), weight.size(1)
    kernel, sizes = list(weight.shape[2:]), list(x.shape[2:])
    padded = [(size - 1) * s + d * (k - 1) + op + 1
              for size, s, d, k, op in zip(sizes, stride, dilation, kernel, output_padding)]
    taps, blocks, c_out = math.prod(kernel), math.prod(sizes), groups * c_out_g
    columns = tandem.matmul(weight.reshape(groups, c_in // groups, c_out_g * taps).transpose(1, 2),
                            x.reshape(batch, groups, c_in // groups, blocks))
    index = _block_index(padded, sizes, kernel, dilation, stride, x.device)
    out = x.new_zeros((batch, c_out, math.prod(padded)))
    out = out.index_add(2, index, columns.reshape(batch, c_out, taps * blocks)).reshape([batch, c_out] + padded)
    for i, p in enumerate(padding):
        out = out.narrow(2 + i, p, padded[i] - 2 * p)
    out = out + bias.reshape([c_out] + [1] * n) if bias is not None else out.contiguous()
    return _unbatch(follow_input_layout(out, x, weight), batched)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


# ------------------------------------------------------------------------------------------- unfold and fold
def _fold_pair(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
        return tuple(value)
    return (value, value)


def _fold_params(kernel_size, dilation, padding, stride):
    """The four pairs, with im2col's/col2im's checks and messages."""
    k, d = _fold_pair(kernel_size, "kernel_size"), _fold_pair(dilation, "dilation")
    p, s = _fold_pair(padding, "padding"), _fold_pair(stride, "stride")
    for values, what, names in ((k, "kernel size should be greater than zero", ("kernel_height", "kernel_width")),
                                (s, "stride should be greater than zero", ("stride_height", "stride_width")),
                                (d, "dilation should be greater than zero", ("dilation_height", "dilation_width"))):
        if min(values) <= 0:
            raise RuntimeError(f"{what}, but got {names[0]}: {values[0]} {names[1]}: {values[1]}")
    if min(p) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")
    return k, d, p, s


def _block_index(padded, blocks, kernel, dilation, stride, device):
    """Flat positions in a padded volume read by each (kernel offset..., block...) in that order: the im2col
    map that unfold gathers with and fold / the transposed convolutions scatter with."""
    n = len(padded)
    index = tandem.zeros((), dtype=tandem.int64, device=device)
    for i in range(n):
        pos = (_arange(kernel[i], device) * dilation[i]).unsqueeze(1) + _arange(blocks[i], device) * stride[i]
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = kernel[i], blocks[i]
        index = index + (pos * math.prod(padded[i + 1:])).reshape(shape)
    return index.reshape(-1)


def _blocks(size, k, d, p, s):
    return [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(len(size))]


def _check_floating(input, kernel):
    """PyTorch's im2col/col2im take floating and complex inputs only (the index_select below would take any)."""
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._scalar_type_name}'\n"
                                  "hint: unfold/fold floating-point tensors, e.g. input.float()")


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C * kH * kW, L), one index_select over the zero-padded plane."""
    k, d, p, s = _fold_params(kernel_size, dilation, padding, stride)
    if input.dim() not in (3, 4) or 0 in input.shape[-3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    x, batched = (input, True) if input.dim() == 4 else (input.unsqueeze(0), False)
    n, c, h, w = x.shape
    blocks = _blocks((h, w), k, d, p, s)
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={k}, dilation={d}, padding={p}, "
                           f"calculated shape of the array of sliding blocks as {tuple(blocks)}, but its components "
                           f"must be at least one.")
    _check_floating(input, "im2col_out_cpu")
    padded = [h + 2 * p[0], w + 2 * p[1]]
    plane = pad(x, [p[1], p[1], p[0], p[0]]).reshape(n, c, padded[0] * padded[1])
    out = plane.index_select(2, _block_index(padded, blocks, k, d, s, x.device))
    out = out.reshape(n, c * k[0] * k[1], blocks[0] * blocks[1])
    return _unbatch(out, batched)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: (N, C * kH * kW, L) -> (N, C, H, W), summing overlaps with one index_add (so its gradient is
    the matching gather)."""
    size = _fold_pair(output_size, "output_size")
    k, d, p, s = _fold_params(kernel_size, dilation, padding, stride)
    if input.dim() not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    x, batched = (input, True) if input.dim() == 3 else (input.unsqueeze(0), False)
    if x.size(1) % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.size(1)} and kernel_size={k}.")
    blocks = _blocks(size, k, d, p, s)
    if x.size(2) != blocks[0] * blocks[1]:
        blocks = [max(b, 0) for b in blocks]
        raise RuntimeError(f"Given output_size={size}, kernel_size={k}, dilation={d}, padding={p}, stride={s}, "
                           f"expected size of input's dimension 2 to match the calculated number of sliding blocks "
                           f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={x.size(2)}.")
    _check_floating(input, "col2im_out_cpu")
    n, c = x.size(0), x.size(1) // (k[0] * k[1])
    hp, wp = size[0] + 2 * p[0], size[1] + 2 * p[1]
    index = _block_index((hp, wp), blocks, k, d, s, x.device)
    plane = x.new_zeros((n, c, hp * wp)).index_add(2, index, x.reshape(n, c, k[0] * k[1] * x.size(2)))
    out = plane.reshape(n, c, hp, wp).narrow(2, p[0], size[0]).narrow(3, p[1], size[1])
    return _unbatch(out.contiguous(), batched)


# ------------------------------------------------------------------------------------------- pooling helpers
def _pool_output_size(size, k, p, s, d, ceil_mode):
    """PyTorch's pooling_output_shape, with its stride and padding checks."""
    if s == 0:
        raise RuntimeError("stride should not be zero")
    if p < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
    if p > (d * (k - 1) + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} "
                           f"and dilation={d}")
    return _pooled_length(size, k, p, s, d, ceil_mode)


def _pooled_length(size, k, p, s, d, ceil_mode):
    """Windows along one dim; in ceil mode the last one must start inside the input or its left padding."""
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    return out - 1 if ceil_mode and (out - 1) * s >= size + p else out


def _window_positions(size, out, k, s, p, d, device):
    """(out, k) input positions of each pooling window along one dim. Padding slots repeat the window's first
    real position, which leaves a max unchanged and keeps PyTorch's first-maximum index."""
    start = _arange(out, device) * s - p
    pos = start.unsqueeze(1) + _arange(k, device) * d
    first = start + ((-start).clamp(min=0) + d - 1) // d * d
    return tandem.where((pos >= 0) & (pos < size), pos, first.unsqueeze(1))


def _adaptive_positions(size, out, device):
    """(out, K) positions of adaptive windows [floor(i L / O), ceil((i + 1) L / O)); short windows repeat their
    first position."""
    i = _arange(out, device)
    start, end = (i * size) // out, ((i + 1) * size + out - 1) // out
    longest = -(-size // out) + (1 if size % out else 0)
    pos = start.unsqueeze(1) + _arange(longest, device)
    return tandem.where(pos < end.unsqueeze(1), pos, start.unsqueeze(1))


def _windowed_max(x, dim, positions, inner_index=None, inner_numel=1):
    """Max of x over the windows `positions` (out, K) along dim, and the flat index of each maximum over dim
    and the already-reduced dims after it (inner_index indexes those, inner_numel elements per step of dim)."""
    out, k = positions.shape
    shape = list(x.shape)
    windows = x.index_select(dim, positions.reshape(-1)).reshape(shape[:dim] + [out, k] + shape[dim + 1:])
    values, slot = windows.max(dim + 1)
    row = (_arange(out, x.device) * k).reshape([out] + [1] * (len(shape) - dim - 1))
    chosen = tandem.take(positions, slot + row)
    if inner_index is None:
        return values, chosen
    return values, chosen * inner_numel + inner_index.gather(dim, chosen)


def _window_counts(size, out, k, s, p, include_pad, device):
    """Per window along one dim, how many elements avg pooling divides by (PyTorch's pool_size rule)."""
    start = _arange(out, device) * s - p
    end = (start + k).clamp(max=size + p)
    if not include_pad:
        start, end = start.clamp(min=0), end.clamp(max=size)
    return end - start


def _one_int(value, message):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(message.format(len(value)))
        return value[0]
    return value


def _three_ints(value, message):
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return tuple(value) * 3
        if len(value) != 3:
            raise RuntimeError(message)
        return tuple(value)
    return (value,) * 3


def _no_stride(stride):
    return stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)


# ------------------------------------------------------------------------------------------- 1-d pooling
def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    message = "max_pool1d() {} must be an int, list of ints or tuple of ints of size 1 but got size {{}}"
    k, s, p, d = (_one_int(value, message.format(name)) for name, value in (
        ("kernel_size", kernel_size), ("stride", kernel_size if _no_stride(stride) else stride),
        ("padding", padding), ("dilation", dilation)))
    for bad, message in ((k <= 0, f"kernel_size must be greater than zero, but got {k}"),
                         (s <= 0, f"stride must be greater than zero, but got {s}"),
                         (p < 0, f"padding must be non-negative, but got {p}"),
                         (p > k // 2, f"padding should be at most half of kernel size, but got padding={p} and "
                                      f"kernel_size={k}"),
                         (d <= 0, f"dilation must be greater than zero, but got {d}")):
        if bad:
            raise RuntimeError("max_pool1d() " + message)
    out = _pooled_length(input.size(-1), k, p, s, d, ceil_mode)
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    values, indices = max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return values.squeeze(-2), indices.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if not return_indices and not (input.is_floating_point() or input.is_complex()):
        # PyTorch's max_pool1d without indices has its own kernel, for floating types only (with indices it pools
        # through max_pool2d, which takes integers)
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{input.dtype._scalar_type_name}'\n"
                                  "hint: pool a floating-point tensor (input.float()), or ask for return_indices")
    values, indices = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for avg_pool1d)")
    k = _one_int(kernel_size, "avg_pool1d() argument 'kernel_size' should contain one int (got {})")
    s = k if _no_stride(stride) else _one_int(stride, "avg_pool1d() argument 'stride' should contain one int (got {})")
    p = _one_int(padding, "avg_pool1d() argument 'padding' should contain one int (got {})")
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return out.squeeze(-2)


# ------------------------------------------------------------------------------------------- 3-d pooling
def _pool3d_args(fn, input, kernel_size, stride, padding, dilation, ceil_mode):
    """(batched input, whether it had a batch dim, k, s, p, d, output sizes) with PyTorch's checks."""
    either = "either " if fn == "max_pool3d" else ""
    k = _three_ints(kernel_size, f"{fn}: kernel_size must {either}be a single int, or a tuple of three ints")
    s = k if _no_stride(stride) else _three_ints(
        stride, f"{fn}: stride must {either}be omitted, a single int, or a tuple of three ints")
    p = _three_ints(padding, f"{fn}: padding must {either}be a single int, or a tuple of three ints")
    d = _three_ints(dilation, f"{fn}: dilation must be either a single int, or a tuple of three ints")
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    x, batched = (input, True) if input.dim() == 5 else (input.unsqueeze(0), False)
    sizes = list(x.shape[2:])
    out = [_pool_output_size(sizes[i], k[i], p[i], s[i], d[i], ceil_mode) for i in range(3)]
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    if fn == "avg_pool3d" and any(size < kk for size, kk in zip(sizes, k)):
        raise RuntimeError(f"input image (T: {sizes[0]} H: {sizes[1]} W: {sizes[2]}) smaller than kernel size "
                           f"(kT: {k[0]} kH: {k[1]} kW: {k[2]})")
    if min(out) < 1:
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, [x.size(1)] + sizes))}). Calculated output size: "
                           f"({'x'.join(map(str, [x.size(1)] + out))}). Output size is too small")
    return x, batched, k, s, p, d, out


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """The C++ max_pool2d over every depth plane, then the max over each depth window (indices combined)."""
    x, batched, k, s, p, d, out = _pool3d_args("max_pool3d", input, kernel_size, stride, padding, dilation,
                                               ceil_mode)
    if x.dtype == tandem.bool:  # the planes' pooling would name max_pool2d
        raise NotImplementedError("\"max_pool3d\" not implemented for 'Bool'\nhint: pool input.float() (or "
                                  "input.to(torch.uint8)) and compare the result")
    n, c, depth, h, w = x.shape
    planes, plane_index = max_pool2d_with_indices(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], d[1:],
                                                  ceil_mode)
    shape = (n, c, depth) + tuple(planes.shape[2:])
    positions = _window_positions(depth, out[0], k[0], s[0], p[0], d[0], x.device)
    values, indices = _windowed_max(planes.reshape(shape), 2, positions, plane_index.reshape(shape), h * w)
    values, indices = (follow_input_layout(t, x) for t in (values, indices))  # x: the batched input
    return _unbatch(values, batched), _unbatch(indices, batched)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    values, indices = max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (values, indices) if return_indices else values


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The C++ avg_pool2d over every depth plane, then a sum over each depth window: the divisor of a box
    window is the product of its per-dim counts, so the two stages compose exactly."""
    x, batched, k, s, p, _, out = _pool3d_args("avg_pool3d", input, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if not (x.is_floating_point() or x.is_complex() or x.dtype == tandem.int64):  # the planes' pool names itself
        raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for '{x.dtype._scalar_type_name}'"
                                  "\nhint: pool input.float() (PyTorch averages int64 too)")
    if x.dtype == tandem.int64:  # PyTorch's integer average: window sums divided in integers (truncated)
        sums = avg_pool3d(x.to(tandem.float64), k, s, p, ceil_mode, True, 1).round().to(tandem.int64)
        divisor = divisor_override
        if divisor is None:
            sizes = [_window_counts(size, o, kk, ss, pp, count_include_pad, x.device)
                     for size, o, kk, ss, pp in zip(x.shape[2:], out, k, s, p)]
            divisor = sizes[0].view(-1, 1, 1) * sizes[1].view(-1, 1) * sizes[2]
        return _unbatch(tandem.div(sums, divisor, rounding_mode="trunc"), batched)
    n, c, depth, h, w = x.shape
    include_pad = count_include_pad or divisor_override is not None
    planes = avg_pool2d(x.reshape(n, c * depth, h, w), k[1:], s[1:], p[1:], ceil_mode, include_pad)
    planes = planes.reshape(n, c, depth, out[1], out[2])
    if divisor_override is not None:  # back to window sums
        counts = [_window_counts(size, o, kk, ss, pp, True, x.device).to(x.dtype)
                  for size, o, kk, ss, pp in zip((h, w), out[1:], k[1:], s[1:], p[1:])]
        planes = planes * (counts[0].unsqueeze(1) * counts[1])
    start = _arange(out[0], x.device) * s[0] - p[0]
    pos = start.unsqueeze(1) + _arange(k[0], x.device)
    pos = pos.masked_fill((pos < 0) | (pos >= depth), depth)  # padding reads the appended zero plane
    planes = tandem.cat([planes, planes.new_zeros((n, c, 1, out[1], out[2]))], 2)
    sums = planes.index_select(2, pos.reshape(-1)).reshape(n, c, out[0], k[0], out[1], out[2]).sum(3)
    if divisor_override is not None:
        return _unbatch(sums / divisor_override, batched)
    divisor = _window_counts(depth, out[0], k[0], s[0], p[0], count_include_pad, x.device).to(x.dtype)
    return _unbatch(sums / divisor.reshape(-1, 1, 1), batched)


# ------------------------------------------------------------------------------------------- adaptive pooling
def _output_sizes(output_size, x, n):
    """output_size as n ints, None meaning the input's size (PyTorch's _list_with_default, with its ValueError for
    an input with no more dimensions than a tuple output_size has entries)."""
    if isinstance(output_size, (tuple, list)) and x.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * n
    return [x.size(x.dim() - len(sizes) + i) if v is None else v for i, v in enumerate(sizes)]


def _check_adaptive_1d(fn, input, output_size):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {fn})")
    return _one_int(output_size, fn + "() argument 'output_size' should contain one int (got {})")


def _check_adaptive(fn, input, sizes, n):
    average = fn.startswith("adaptive_avg")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{fn}(): Expected {n + 1}D or {n + 2}D tensor, but got{' ' if average else ': '}"
                           f"{list(input.shape)}")
    if len(sizes) != n:
        raise RuntimeError(f"{fn}: output_size must be {n}" if average
                           else f"{fn}(): internal error: output_size.size() must be {n}")
    for dim in range(input.dim() - n - 1, input.dim()):
        if input.size(dim) == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {dim} being empty")
    if min(sizes) < 0:
        if average:  # only adaptive_avg_pool3d gets here
            raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                               f"{{{sizes[0]}, {sizes[1]},{sizes[2]}}}")
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(v for v in sizes if v < 0)}: "
                           f"{list(input.shape[:-n]) + list(sizes)}")


def adaptive_avg_pool1d(input, output_size):
    size = _check_adaptive_1d("adaptive_avg_pool1d", input, output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_avg_pool3d(input, output_size):
    """The C++ adaptive_avg_pool2d over every depth plane, then a (D_out, D) averaging matrix over depth."""
    sizes = _output_sizes(output_size, input, 3)
    _check_adaptive("adaptive_avg_pool3d", input, sizes, 3)
    x = input.reshape((-1,) + tuple(input.shape[-4:]))
    n, c, depth, h, w = x.shape
    planes = adaptive_avg_pool2d(x.reshape(n, c * depth, h, w), sizes[1:]).reshape(n, c, depth, -1)
    i = _arange(sizes[0], x.device).unsqueeze(1)
    start, end = (i * depth) // sizes[0], ((i + 1) * depth + sizes[0] - 1) // sizes[0]
    j = _arange(depth, x.device)
    weights = ((j >= start) & (j < end)).to(x.dtype) / (end - start).to(x.dtype)
    out = tandem.matmul(weights, planes)
    return out.reshape(tuple(input.shape[:-3]) + tuple(sizes))


def _adaptive_max(fn, input, sizes, n):
    _check_adaptive(fn, input, sizes, n)
    if not input.is_floating_point():  # PyTorch's kernels (1-d pools through the 2-d one) take floats only
        kernel = {"adaptive_max_pool1d": "adaptive_max_pool2d", "adaptive_max_pool3d": "adaptive_max_pool3d_cpu"}
        raise NotImplementedError(f"\"{kernel.get(fn, fn)}\" not implemented for '{input.dtype._scalar_type_name}'"
                                  "\nhint: pool input.float() and convert the result back")
    x = input
    if 0 in sizes:  # an empty output (PyTorch returns one); the windows below would divide by the size
        shape = list(x.shape[:x.dim() - n]) + list(sizes)
        return x.new_empty(shape), tandem.empty(shape, dtype=tandem.int64, device=x.device)
    values, indices, numel = x, None, 1
    for dim in range(x.dim() - 1, x.dim() - 1 - n, -1):
        positions = _adaptive_positions(x.size(dim), sizes[dim - x.dim() + n], x.device)
        values, indices = _windowed_max(values, dim, positions, indices, numel)
        numel *= x.size(dim)
    return values, indices


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    size = _check_adaptive_1d("adaptive_max_pool1d", input, output_size)
    return _adaptive_max("adaptive_max_pool1d", input, [size], 1)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    values, indices = _adaptive_max("adaptive_max_pool2d", input, _output_sizes(output_size, input, 2), 2)
    return follow_input_layout(values, input), follow_input_layout(indices, input)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    return _adaptive_max("adaptive_max_pool3d", input, _output_sizes(output_size, input, 3), 3)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    values, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input, output_size, return_indices=False):
    values, indices = adaptive_max_pool2d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d(input, output_size, return_indices=False):
    values, indices = adaptive_max_pool3d_with_indices(input, output_size)
    return (values, indices) if return_indices else values


# ------------------------------------------------------------------------------------------- power-average pooling
def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, max_pool, avg_pool):
    """PyTorch's formula: (sum over the window of x^p)^(1/p), the sum taken as avg_pool * window size."""
    if isinstance(norm_type, (int, float)):
        if norm_type == 0:
            raise ValueError(f"norm_type must be a non-zero value, but got {norm_type}")
        if norm_type == float("inf"):
            return max_pool(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    if stride is not None:
        out = avg_pool(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    window = math.prod(kernel_size) if isinstance(kernel_size, (tuple, list)) else kernel_size ** n
    return (tandem.sign(out) * relu(tandem.abs(out))).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, max_pool1d, avg_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, max_pool2d, avg_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, max_pool3d, avg_pool3d)


# ------------------------------------------------------------------------------------------- interpolate
_CUBIC_A = -0.75  # PyTorch's bicubic convolution constant (antialiasing uses -0.5, as PIL does)


def _float32(value):
    """value rounded to float32, as PyTorch's nearest kernels compute their scale."""
    return struct.unpack("f", struct.pack("f", value))[0]


def _cubic_near(x, a):  # |x| <= 1
    return ((a + 2) * x - (a + 3)) * x * x + 1


def _cubic_far(x, a):  # 1 < |x| < 2
    return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a


def _area_scale(in_size, out_size, align_corners, scale):
    """PyTorch's area_pixel_compute_scale: input pixels per output pixel."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _nearest_taps(in_size, out_size, scale, exact, device):
    """Source index of each output position, with PyTorch's float32 arithmetic (so ties round alike)."""
    ratio = _float32(1.0 / scale) if scale is not None and scale > 0 else _float32(in_size / out_size)
    dst = _arange(out_size, device, tandem.float64 if exact else tandem.float32)
    src = ((dst + 0.5) * ratio).float() if exact else dst * ratio
    return src.floor().long().clamp(max=in_size - 1)


def _linear_taps(in_size, out_size, scale, align_corners, cubic, device):
    """(index, weight), each (out, 2) or (out, 4) for cubic: PyTorch's source index and lambda guards."""
    ratio = _area_scale(in_size, out_size, align_corners, scale)
    dst = _arange(out_size, device, tandem.float64)
    src = dst * ratio if align_corners else ratio * (dst + 0.5) - 0.5
    if not cubic:
        src = src.clamp(min=0)
    base = src.floor().clamp(max=in_size - 1)
    t = (src - base).clamp(0, 1).unsqueeze(1)
    base = base.long().unsqueeze(1)
    if not cubic:
        return tandem.cat([base, (base + 1).clamp(max=in_size - 1)], 1), tandem.cat([1 - t, t], 1)
    a = _CUBIC_A
    weight = tandem.cat([_cubic_far(t + 1, a), _cubic_near(t, a), _cubic_near(1 - t, a), _cubic_far(2 - t, a)], 1)
    return (base + _arange(4, device) - 1).clamp(0, in_size - 1), weight


def _antialias_taps(in_size, out_size, scale, align_corners, cubic, device):
    """PyTorch's _compute_index_ranges_weights: a triangle (or a = -0.5 cubic) filter stretched by the
    downscale factor, each window's weights normalised to sum to one."""
    ratio = _area_scale(in_size, out_size, align_corners, scale)
    support = (2.0 if cubic else 1.0) * max(ratio, 1.0)
    taps = math.ceil(support) * 2 + 1
    center = ratio * (_arange(out_size, device, tandem.float64) + 0.5)
    low = (center - support + 0.5).trunc().clamp(min=0)
    count = ((center + support + 0.5).trunc().clamp(max=in_size) - low).clamp(0, taps).unsqueeze(1)
    j = _arange(taps, device, tandem.float64)
    x = ((j + low.unsqueeze(1) - center.unsqueeze(1) + 0.5) * (1.0 / max(ratio, 1.0))).abs()
    if cubic:
        weight = tandem.where(x < 1, _cubic_near(x, -0.5), _cubic_far(x, -0.5).masked_fill(x >= 2, 0.0))
    else:
        weight = (1 - x).clamp(min=0)
    weight = weight.masked_fill(j >= count, 0.0)
    total = weight.sum(1, keepdim=True)
    weight = weight / total.masked_fill(total == 0, 1.0)
    return (low.long().unsqueeze(1) + j.long()).clamp(max=in_size - 1), weight


def _resample(x, dim, index, weight):
    """Along dim: gather index (out,) or (out, K) positions; with weights, their weighted sum over K."""
    gathered = x.index_select(dim, index.reshape(-1))
    if weight is None:
        return gathered
    shape = list(x.shape)
    gathered = gathered.reshape(shape[:dim] + list(index.shape) + shape[dim + 1:])
    weight_shape = [1] * (len(shape) + 1)
    weight_shape[dim:dim + 2] = list(weight.shape)
    return (gathered * weight.to(x.dtype).reshape(weight_shape)).sum(dim + 1)


_INTERP_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_MODE_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def _check_interp_sizes(input, output_size):
    names = ("D", "H", "W")[3 - len(output_size):]
    sizes = list(input.shape[2:])
    if min(sizes + list(output_size)) <= 0:
        fmt = lambda values: ", ".join(f"{n}: {v}" for n, v in zip(names, values))  # noqa: E731
        joint = " and " if len(sizes) == 1 else " "  # PyTorch's 1-d wording
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({fmt(sizes)}){joint}"
                           f"output ({fmt(output_size)})")
    if input.numel() == 0 and input.size(0) != 0:
        raise RuntimeError(f"Non-empty {input.dim()}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")


def _scaled_size(size, scale):
    """int(size * scale) with PyTorch's error for a NaN, infinite or past-int64 product (int() would raise a
    ValueError or OverflowError)."""
    product = size * scale
    if not math.isfinite(product) or abs(product) >= 2**63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(product)


# The kernel PyTorch names when it refuses an integer input, per mode (uint8 is resampled by the nearest, bilinear
# and bicubic kernels; 4-D nearest inputs go through the channels-last kernel).
_INTERP_INT_KERNELS = {"linear": "compute_indices_weights_linear", "trilinear": "compute_indices_weights_linear",
                       "bilinear": "upsample_bilinear2d_channels_last", "bicubic": "compute_indices_weights_cubic"}


def _check_interp_dtype(input, mode):
    if input.is_floating_point() or input.is_complex():
        return
    if input.dtype == tandem.uint8 and mode != "linear" and mode != "trilinear":
        return
    kernel = _INTERP_INT_KERNELS.get(mode) or (
        "upsample_nearest2d_channels_last" if input.dim() == 4 else "compute_indices_weights_nearest")
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._scalar_type_name}'\n"
                              "hint: interpolate floating-point tensors, e.g. input.float()")


def _is_size_integer(v):
    """An output size as PyTorch's interpolate takes it: an int (NumPy's too) or a one-element integer tensor
    (torchattacks' DIFGSM draws the size with torch.randint(..., size=(1,)))."""
    if isinstance(v, tandem.Tensor):
        return v.numel() == 1 and not (v.is_floating_point() or v.is_complex() or v.dtype == tandem.bool)
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resamples the spatial dims one at a time (last first): nearest modes gather, linear and cubic modes
    take weighted sums of 2 or 4 gathered neighbours, 'area' is adaptive average pooling."""
    if _amp_active():  # PyTorch's autocast list: cuda fp32
        return _amp_run("cuda_fp32", interpolate,
                        input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 f"(o1, o2, ...,oK) format.")
            if not all(_is_size_integer(v) for v in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
            output_size = [int(v) for v in size]
        elif _is_size_integer(size):
            output_size = [int(size)] * dim
        else:  # a float or a tensor: PyTorch's parser refuses it as its kernel's size argument
            raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                            f"Tuple[int, int, int], but got size with types {[type(size)]}")
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                                 f"format and scale_factor in (s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor] * dim
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if output_size is None:  # PyTorch truncates in * scale; recomputing forgets the scale, keeping the size
        output_size = [_scaled_size(input.size(i + 2), scale_factors[i]) for i in range(dim)]
        if recompute_scale_factor:
            scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    if input.dim() not in (3, 4, 5) or mode not in ("nearest", "nearest-exact", "area", "lanczos", *_MODE_DIMS):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: {_INTERP_MODES} (got {mode})")
    if mode == "lanczos":
        raise NotImplementedError("interpolate: mode='lanczos' is not supported by tandem\n"
                                  "hint: use mode='bicubic' with antialias=True")
    if mode == "bicubic" and input.dim() != 4:  # PyTorch has no "needs 4D" message for bicubic
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
                                  f"the modes: {_INTERP_MODES} (got {mode})")
    if mode in _MODE_DIMS and input.dim() != _MODE_DIMS[mode]:
        wanted = _MODE_DIMS[mode]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted}D input")
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
    _check_interp_sizes(input, output_size)
    _check_interp_dtype(input, mode)
    if input.dtype == tandem.uint8 and mode in ("bilinear", "bicubic"):
        from ._interpolate_uint8 import resample_uint8
        out = resample_uint8(input, output_size, scale_factors, align_corners, mode == "bicubic", antialias)
        return follow_input_layout(out, input)
    # Half-precision inputs are weighed and summed in float32 and rounded once, as PyTorch's bilinear kernel does
    # (bit for bit); summing in the input's type rounded the weights and every partial sum, a few ulps off
    half = input.dtype in (tandem.float16, tandem.bfloat16) and mode in _MODE_DIMS
    out = input.float() if half else input
    for i in reversed(range(dim)):
        in_size, out_size = input.size(2 + i), output_size[i]
        scale = scale_factors[i] if scale_factors is not None else None
        if mode in ("nearest", "nearest-exact"):
            taps = (_nearest_taps(in_size, out_size, scale, mode == "nearest-exact", input.device), None)
        elif antialias:
            taps = _antialias_taps(in_size, out_size, scale, align_corners, mode == "bicubic", input.device)
        else:
            taps = _linear_taps(in_size, out_size, scale, align_corners, mode == "bicubic", input.device)
        out = _resample(out, 2 + i, *taps)
    return follow_input_layout(out.to(input.dtype), input)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
