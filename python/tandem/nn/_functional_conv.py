"""nn.functional convolutions beyond conv2d (1-d, 3-d, transposed) and unfold/fold (re-exported by
nn.functional), and the helpers the pooling and interpolation files share with them.

Each is a composition of tandem's C++ conv2d with index_select, index_add, matmul and reductions, so autograd and
every device come for free. Python only builds small index maps (on the input's device) and loops over spatial
dims, never over elements.
"""
import math

import tandem

from .. import _C
from .._autocast import active as _amp_active, run as _amp_run
from .._layouts import follow_input_layout
from ._functional_layers import pad

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "unfold", "fold"]


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


def _complex_convolution(conv, input, weight, bias, *args):
    """A convolution of complex tensors by PyTorch's Gauss trick, three real convolutions (conv is the public
    function, so every check runs on the real parts): with a = conv(xr, wr, br), b = conv(xi, wi) and
    c = conv(xr + xi, wr + wi, br + bi), conv(x, w, b) = a - b + i (c - a - b)."""
    x_r, x_i = input.real, input.imag
    w_r, w_i = weight.real, weight.imag
    b_r, b_i = (None, None) if bias is None else (bias.real, bias.imag)
    a = conv(x_r, w_r, b_r, *args)
    b = conv(x_i, w_i, None, *args)
    c = conv(x_r + x_i, w_r + w_i, None if bias is None else b_r + b_i, *args)
    return a - b + 1j * (c - a - b)


def _is_complex_call(input, weight):
    """Both operands complex: the Gauss-trick path (a mix of real and complex is refused by the usual dtype check)."""
    return isinstance(input, tandem.Tensor) and isinstance(weight, tandem.Tensor) and input.is_complex() and \
        weight.is_complex()


def _same_exact_dtype(input, weight, bias):
    """Input, weight (and bias) of one integer or bool dtype: PyTorch's CPU convolves integers in their own dtype
    (wrapping around) and refuses bool; tandem's C++ conv2d takes floating dtypes only."""
    tensors = [t for t in (input, weight, bias) if t is not None]
    if not all(isinstance(t, tandem.Tensor) for t in tensors) or len({t.dtype for t in tensors}) != 1:
        return False
    return not (input.is_floating_point() or input.is_complex())


def _bool_input(input, weight):
    """A bool input with a weight of another dtype: PyTorch's CPU picks its kernel by the input's dtype, which
    refuses bool (NotImplementedError) after the shape checks; tandem's C++ op would name the dtype mismatch."""
    return isinstance(input, tandem.Tensor) and input.dtype == tandem.bool and isinstance(weight, tandem.Tensor) \
        and weight.dtype != tandem.bool and input.numel() > 0


# The C++ type names PyTorch's convolution prints in "Input type (bool) and bias type (float) should be the same"
_CPP_TYPE_NAMES = {"bool": "bool", "float32": "float", "float64": "double", "int64": "long int", "int32": "int",
                   "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "float16": "c10::Half",
                   "bfloat16": "c10::BFloat16", "complex64": "c10::complex<float>",
                   "complex128": "c10::complex<double>"}


def _refuse_bool_input(x, bias, dilation, n):
    """A bool input with a weight of another dtype: a bias of another dtype than the input is refused first
    (PyTorch's convolution checks it before picking the kernel), then the bool kernel."""
    if bias is not None and bias.dtype != x.dtype:
        name = str(bias.dtype).split(".")[-1]
        raise RuntimeError(f"Input type (bool) and bias type ({_CPP_TYPE_NAMES.get(name, name)}) should be the same")
    _refuse_exact_kernel(x, dilation, n)


def _refuse_exact_kernel(x, dilation, n):
    """PyTorch's CPU kernels for integer and bool convolutions: a dilated one takes int64 only, an undilated one
    every integer dtype but not bool; an empty input gives an empty result before any kernel runs."""
    if x.numel() == 0:
        return
    if any(d != 1 for d in dilation):
        kernel = None if x.dtype == tandem.int64 else "slow_conv_dilated<>"
    else:
        kernel = None if x.dtype != tandem.bool else "compute_columns3d" if n == 3 else "slow_conv2d_cpu"
    if kernel:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{x.dtype._scalar_type_name}'\n"
                                  "hint: convolve an int64 or floating-point copy, e.g. input.long()")


def _integer_conv_core(x, weight, bias, stride, padding, dilation, groups):
    """An integer n-d convolution as PyTorch's CPU computes it (im2col, then a GEMM): the zero-padded input's
    windows gathered with one index_select, one int64 matmul per group, and the sum cast back to the input's
    dtype, which wraps around exactly as summing in that dtype does."""
    n = x.dim() - 2
    batch, channels = x.size(0), x.size(1)
    out_channels, kernel = weight.size(0), list(weight.shape[2:])
    sizes = list(x.shape[2:])
    padded = [s + 2 * p for s, p in zip(sizes, padding)]
    blocks = [(padded[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1 for i in range(n)]
    amounts = []
    for p in reversed(padding):
        amounts += [p, p]
    plane = pad(x, amounts).reshape(batch, channels, math.prod(padded))
    index = _block_index(padded, blocks, kernel, dilation, stride, x.device)
    columns = plane.index_select(2, index).reshape(batch, groups, channels // groups * math.prod(kernel),
                                                   math.prod(blocks))
    if channels == 0:  # PyTorch's shape: an input without channels has an output without channels
        return x.new_zeros([batch, 0] + blocks)
    w = weight.reshape(groups, out_channels // groups, -1)
    out = tandem.matmul(w.to(tandem.int64), columns.to(tandem.int64)).reshape([batch, out_channels] + blocks)
    if bias is not None:
        out = out + bias.to(tandem.int64).reshape([out_channels] + [1] * n)
    return out.to(x.dtype)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (a C++ op: im2col + one GEMM); padding may also be 'same' or 'valid'."""
    if _is_complex_call(input, weight):
        return _complex_convolution(conv2d, input, weight, bias, stride, padding, dilation, groups)
    if _same_exact_dtype(input, weight, bias) or _bool_input(input, weight):
        return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)
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
    core = _CONV_CORES[n]
    if _bool_input(x, weight):
        _refuse_bool_input(x, bias, dilation, n)
    if _same_exact_dtype(x, weight, bias):
        _refuse_exact_kernel(x, dilation, n)
        core = _integer_conv_core
    out = core(x, weight, bias, stride, padding, dilation, groups)
    # PyTorch's layouts: a 1-d result is row-major (conv2d would keep a transposed input's channels-last look); a
    # 3-d one follows a channels_last_3d input or weight (2-d: the C++ op does, the integer core does not)
    out = out.contiguous() if n == 1 else follow_input_layout(out, x, weight) if n == 3 or core is not \
        _C.conv2d else out
    return _unbatch(out, batched)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L): conv2d on a height-1 plane."""
    if _is_complex_call(input, weight):
        return _complex_convolution(conv1d, input, weight, bias, stride, padding, dilation, groups)
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W): one conv2d over the gathered depth windows."""
    if _is_complex_call(input, weight):
        return _complex_convolution(conv3d, input, weight, bias, stride, padding, dilation, groups)
    return _convolution("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def _transposed_output_sizes(x, weight, stride, padding, output_padding, dilation):
    """The spatial sizes a transposed convolution of x gives (unchecked: may be 0 or negative)."""
    return [(s - 1) * st - 2 * p + d * (k - 1) + op + 1
            for s, st, p, d, k, op in zip(x.shape[2:], stride, padding, dilation, weight.shape[2:], output_padding)]


def _check_transposed_sizes(x, weight, stride, padding, output_padding, dilation):
    """PyTorch's slow_conv_transpose shape checks; a 1-d call reports itself as the 2-d one it runs as."""
    n = len(stride)
    sizes = list(x.shape[2:])
    out = _transposed_output_sizes(x, weight, stride, padding, output_padding, dilation)
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


def _empty_conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups):
    """An input with an empty batch or channel axis takes PyTorch's empty backend: the output sizes by the formula
    with no output-size or output_padding check (a negative one is the shape error of the 2-d shape a 1-d call
    runs as), zeros, and gradients (zeros) for weight and bias through empty sums."""
    out = _transposed_output_sizes(x, weight, stride, padding, output_padding, dilation)
    shape = [x.size(0), weight.size(1) * groups] + ([1] if len(out) == 1 else []) + out
    for i, size in enumerate(shape):
        if size < 0:
            raise RuntimeError(f"invalid shape dimension {size} at index {i} of shape {shape}")
    result = x.new_zeros([x.size(0), weight.size(1) * groups] + out)
    if x.requires_grad or weight.requires_grad:  # floating then: empty sums keep the dtype
        result = result + weight.flatten()[:0].sum() + x.flatten()[:0].sum()
    if bias is not None:
        result = result + bias.reshape([-1] + [1] * len(out))
    return result


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
    if x.numel() == 0 and x.shape[0] != 0 and x.shape[1] != 0:  # PyTorch's backend choice (1-d seen as 2-d)
        shape = list(x.shape) if n > 1 else [x.shape[0], x.shape[1], 1, x.shape[2]]
        raise RuntimeError(f"Only zero batch or zero channel inputs are supported, but got input shape: {shape}")
    if x.shape[0] == 0 or x.shape[1] == 0:
        return _unbatch(_empty_conv_transpose(x, weight, bias, stride, padding, output_padding, dilation, groups),
                        batched)
    _check_transposed_sizes(x, weight, stride, padding, output_padding, dilation)
    exact = _same_exact_dtype(x, weight, bias)
    # PyTorch's CPU kernels take int64 alone of the integer dtypes, and refuse a bool input whatever the weight
    if (exact and x.dtype != tandem.int64 and x.numel()) or _bool_input(x, weight):
        raise NotImplementedError(f"\"slow_conv_transpose{3 if n == 3 else 2}d_out_cpu\" not implemented for "
                                  f"'{x.dtype._scalar_type_name}'\nhint: convolve an int64 or floating-point copy")
    if n < 3 and not exact:  # the C++ op (a 1-d one runs over a height-1 plane)
        if n == 1:
            out = _C._conv_transpose2d(x.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride, (0,) + padding,
                                       (0,) + output_padding, (1,) + dilation, groups).squeeze(2)
        else:
            out = follow_input_layout(
                _C._conv_transpose2d(x, weight, bias, stride, padding, output_padding, dilation, groups), x, weight)
        return _unbatch(out, batched)
    if exact and x.dtype != tandem.int64:  # an empty bool or small-integer input: int64 sums of nothing, cast back
        out = _conv_transpose(fn, n, input.long(), weight.long(), None if bias is None else bias.long(), stride,
                              padding, output_padding, groups, dilation)
        return out.to(x.dtype)
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
    if _is_complex_call(input, weight):
        return _complex_convolution(conv_transpose1d, input, weight, bias, stride, padding, output_padding, groups,
                                    dilation)
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if _is_complex_call(input, weight):
        return _complex_convolution(conv_transpose2d, input, weight, bias, stride, padding, output_padding, groups,
                                    dilation)
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    if _is_complex_call(input, weight):
        return _complex_convolution(conv_transpose3d, input, weight, bias, stride, padding, output_padding, groups,
                                    dilation)
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
    """PyTorch's im2col/col2im take floating, complex and bool inputs only (the index_select below would take any;
    fold of bool blocks is their logical or, as index_add of bools)."""
    if not (input.is_floating_point() or input.is_complex() or input.dtype == tandem.bool):
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
