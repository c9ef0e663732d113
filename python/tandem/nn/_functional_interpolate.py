"""nn.functional.interpolate and the legacy upsample functions (re-exported by nn.functional): separable
resampling, one spatial dim at a time, as index_select plus weighted sums of taps computed on the input's device
(nearest, linear, cubic and antialiased taps, area), so autograd and every device come for free."""
import math
import numbers
import struct
import warnings

import tandem

from .._autocast import active as _amp_active, run as _amp_run
from .._layouts import follow_input_layout
from .functional import adaptive_avg_pool2d
from ._functional_conv import _arange
from ._functional_pool import adaptive_avg_pool1d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]


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


def _linear_taps(in_size, out_size, scale, align_corners, cubic, device, dtype=None):
    """(index, weight), each (out, 2) or (out, 4) for cubic: PyTorch's source index and lambda guards, computed
    in `dtype` (PyTorch's opmath type: float32 for every input but float64; float64 when not given)."""
    dtype = dtype or tandem.float64
    ratio = _area_scale(in_size, out_size, align_corners, scale)
    if dtype != tandem.float64:  # PyTorch computes the scale in the opmath type too
        ratio = _float32(ratio)
    dst = _arange(out_size, device, dtype)
    src = dst * ratio if align_corners else ratio * (dst + 0.5) - 0.5
    if not cubic:
        src = src.clamp(min=0)
    base = src.floor().clamp(max=in_size - 1)
    t = (src - base).clamp(0, 1).unsqueeze(1)
    base = base.long().unsqueeze(1)
    if not cubic:
        return tandem.cat([base, (base + 1).clamp(max=in_size - 1)], 1), tandem.cat([1 - t, t], 1)
    a = _CUBIC_A
    opposite = 1 - t  # PyTorch's get_cubic_upsample_coefficients rounds 1 - t before adding 1
    weight = tandem.cat([_cubic_far(t + 1, a), _cubic_near(t, a), _cubic_near(opposite, a),
                         _cubic_far(opposite + 1, a)], 1)
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
    products = gathered * weight.to(x.dtype).reshape(weight_shape)
    if weight.shape[1] > 4:
        return products.sum(dim + 1)
    # linear and cubic taps: summed one after another, PyTorch's order (a reduction pairs them up, which rounds
    # differently in the last bit)
    out = products.select(dim + 1, 0)
    for k in range(1, weight.shape[1]):
        out = out + products.select(dim + 1, k)
    return out


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


def _check_interp_dtype(input, mode, antialias=False):
    """PyTorch's kernels take floating inputs (and uint8 for some modes); integers and complex are refused (the
    antialiased ones by the kernel that weighs the taps)."""
    if input.is_floating_point():
        return
    if input.dtype == tandem.uint8 and mode != "linear" and mode != "trilinear":
        return
    kernel = "compute_index_ranges_weights" if antialias else _INTERP_INT_KERNELS.get(mode) or (
        "upsample_nearest2d_channels_last" if input.dim() == 4 else "compute_indices_weights_nearest")
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{input.dtype._scalar_type_name}'\n"
                              "hint: interpolate floating-point tensors, e.g. input.float()")


def _is_size_integer(v):
    """An output size as PyTorch's interpolate takes it: an int (NumPy's too) or a one-element integer tensor
    (torchattacks' DIFGSM draws the size with torch.randint(..., size=(1,)))."""
    if isinstance(v, tandem.Tensor):
        return v.numel() == 1 and not (v.is_floating_point() or v.is_complex() or v.dtype == tandem.bool)
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _upsample_kernel(mode, dim, antialias):
    """The name of PyTorch's upsample kernel for `mode`, as its parser errors name it, and whether it takes
    align_corners (every mode but the nearest ones)."""
    if mode in ("nearest", "nearest-exact"):
        return f"{'_upsample_nearest_exact' if mode == 'nearest-exact' else 'upsample_nearest'}{dim}d", False
    return f"{'_' if antialias else ''}upsample_{mode}{dim}d{'_aa' if antialias else ''}", True


def _refuse_tensor_scales(mode, dim, antialias, scale_factor):
    """PyTorch's TypeError for tensor scale factors that reach its kernel (without recompute_scale_factor): the
    kernel's parser takes floats only, and names the kernel and the argument types it got."""
    kernel, aligned = _upsample_kernel(mode, dim, antialias)
    got = "Tensor, NoneType, bool" if aligned else "Tensor, NoneType"
    given = type(scale_factor).__name__ if isinstance(scale_factor, (list, tuple)) else "list"
    raise TypeError(f"{kernel}() received an invalid combination of arguments - got ({got}, {given}), but expected "
                    "one of:\nhint: give the scale factors as Python floats, e.g. float(scale)")


def _refuse_size_arguments(mode, dim, antialias, output_size):
    """PyTorch's TypeError for a size that is one float (or another non-integer) repeated per dim: its interpolate
    hands the list to the kernel (area: the adaptive pool), whose parser refuses it."""
    if mode == "area":
        pos = next(i for i, v in enumerate(output_size) if not _is_size_integer(v) or not -2**63 <= v < 2**63)
        if _is_size_integer(output_size[pos]):  # the parser's 1-based position here
            raise TypeError(f"adaptive_avg_pool{dim}d(): argument 'output_size' failed to unpack the object at pos "
                            f"{pos + 1} with error \"Overflow when unpacking long long\n\"\n"
                            "hint: the scale factor makes an output size past int64; give a smaller scale_factor")
        raise TypeError(f"adaptive_avg_pool{dim}d(): argument 'output_size' (position 2) must be tuple of ints, but "
                        f"found element of type {type(output_size[pos]).__name__} at pos {pos}")
    kernel, aligned = _upsample_kernel(mode, dim, antialias)
    got = "Tensor, list, bool, NoneType" if aligned else "Tensor, list, NoneType"
    raise TypeError(f"{kernel}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                    "hint: give the size as ints, e.g. size=int(n)")


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
        else:  # a float, str or tensor: PyTorch passes it on, and the kernel's parser refuses it (after the checks
            output_size = [size] * dim  # of mode and rank below)
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
    if output_size is None and recompute_scale_factor:
        # PyTorch's Python int() of in * scale, whose ValueError/OverflowError a NaN or infinite scale raises
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
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
    if scale_factors is not None and any(isinstance(s, tandem.Tensor) for s in scale_factors):
        _refuse_tensor_scales(mode, dim, antialias, scale_factor)
    if not all(_is_size_integer(v) and (mode != "area" or -2**63 <= v < 2**63) for v in output_size or ()):
        _refuse_size_arguments(mode, dim, antialias, output_size)
    if output_size is None:  # the kernel truncates in * scale (with its error for a product past int64)
        output_size = [_scaled_size(input.size(i + 2), scale_factors[i]) for i in range(dim)]
    if mode == "area":
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dim - 1](input, output_size)
    _check_interp_sizes(input, output_size)
    _check_interp_dtype(input, mode, antialias)
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
            taps = _linear_taps(in_size, out_size, scale, align_corners, mode == "bicubic", input.device,
                                tandem.float64 if input.dtype == tandem.float64 else tandem.float32)
            if half and mode == "bicubic":  # PyTorch stores the cubic weights in the input's dtype
                taps = (taps[0], taps[1].to(input.dtype).float())
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
