"""nn.functional's 1-d, 3-d, adaptive and power-average pooling (re-exported by nn.functional): compositions of
tandem's C++ 2-d pooling ops with index maps built on the input's device, so autograd and every device come for
free."""
import math
import numbers

import tandem

from .._layouts import follow_input_layout
from .functional import adaptive_avg_pool2d, avg_pool2d, max_pool2d, max_pool2d_with_indices, relu
from ._functional_conv import _arange, _unbatch

__all__ = [
    "max_pool1d", "max_pool1d_with_indices", "max_pool3d", "max_pool3d_with_indices", "avg_pool1d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
]


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
    """PyTorch's max_pool1d_with_indices: its rank and size-1 checks, then max_pool2d_with_indices over the input
    with a unit height, whose checks (and words) cover the sizes."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for max_pool1d)")
    k, s, p, d = _one_ints_1d(kernel_size, stride, padding, dilation)
    if 0 in input.shape[-2:]:  # PyTorch pools through max_pool2d_with_indices, whose check words the 4-d shape
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(input.unsqueeze(-2).shape)}")
    values, indices = max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return values.squeeze(-2), indices.squeeze(-2)


def _one_ints_1d(kernel_size, stride, padding, dilation):
    message = "max_pool1d() {} must be an int, list of ints or tuple of ints of size 1 but got size {{}}"
    return (_one_int(value, message.format(name)) for name, value in (
        ("kernel_size", kernel_size), ("stride", kernel_size if _no_stride(stride) else stride),
        ("padding", padding), ("dilation", dilation)))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    # PyTorch's max_pool1d without indices has its own kernel, for floating types only, with its own checks and
    # words (with indices it pools through max_pool2d, which takes integers)
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f"\"max_pool1d_impl\" not implemented for '{input.dtype._scalar_type_name}'\n"
                                  "hint: pool a floating-point tensor (input.float()), or ask for return_indices")
    if input.dim() not in (2, 3) or 0 in input.shape[-2:]:
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    k, s, p, d = _one_ints_1d(kernel_size, stride, padding, dilation)
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
    values, _ = max_pool2d_with_indices(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode)
    return values.squeeze(-2)


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
    for i in range(1, input.dim()):  # PyTorch's kernels check the dims past the batch (an unbatched input's all but 0)
        if input.shape[i] == 0:
            where = (f"max_pool3d_with_indices_out_{input.device.type}_template()" if fn == "max_pool3d"
                     else f"{fn}()")
            raise RuntimeError(f"{where}: Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {i} being empty")
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


def _is_int_argument(value):
    """An element PyTorch's int-list parser takes: an int (NumPy's too; not a bool) or a one-element integer tensor."""
    if isinstance(value, tandem.Tensor):
        return value.numel() == 1 and not (value.is_floating_point() or value.is_complex() or value.dtype == tandem.bool)
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _parse_output_size_1d(fn, output_size):
    """PyTorch's parser for the 1-d pools' output_size (an int list of one element, position 2): a float, None or
    bool was a silent output size here (None kept the input's length, True gave 1)."""
    if not isinstance(output_size, (tuple, list)):
        if not _is_int_argument(output_size):
            raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, not "
                            f"{type(output_size).__name__}")
        return
    bad = next((v for v in output_size if not _is_int_argument(v)), None)
    if bad is None and all(_is_int_argument(v) for v in output_size):
        return
    if len(output_size) == 1:
        raise TypeError(f"{fn}(): argument 'output_size' (position 2) must be tuple of ints, but found element of "
                        f"type {type(bad).__name__} at pos 0")
    raise TypeError(f"{fn}(): argument 'output_size' failed to unpack the object at pos 2 with error \"type must be "
                    f"tuple of ints,but got {type(bad).__name__}\"")


def _check_adaptive_1d(fn, input, output_size):
    _parse_output_size_1d(fn, output_size)
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
        # the 1-d form pools through the 2-d kernel: its output shape has a unit height
        shape = list(input.shape[:-n]) + ([1] if fn == "adaptive_max_pool1d" else []) + list(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {next(v for v in sizes if v < 0)}: "
                           f"{shape}")


def adaptive_avg_pool1d(input, output_size):
    size = _check_adaptive_1d("adaptive_avg_pool1d", input, output_size)
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_avg_pool3d(input, output_size):
    """The C++ adaptive_avg_pool2d over every depth plane, then a (D_out, D) averaging matrix over depth."""
    sizes = _output_sizes(output_size, input, 3)
    _check_adaptive("adaptive_avg_pool3d", input, sizes, 3)
    if not (input.is_floating_point() or input.is_complex()):  # PyTorch's 3-d kernel names itself
        raise NotImplementedError(f"\"adaptive_avg_pool3d_{input.device.type}\" not implemented for "
                                  f"'{input.dtype._scalar_type_name}'\nhint: pool input.float() and convert back")
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
