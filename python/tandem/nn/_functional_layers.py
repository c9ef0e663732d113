"""nn.functional normalisation, padding, dropout variants and shape layers (re-exported by nn.functional).

Each is a composition of tandem tensor ops (index_select, cat, reshape/permute, reductions), so autograd and
every device come for free; only index maps and masks are built, never a Python loop over elements.
"""
import math
import numbers
import operator
import warnings

import tandem

from .. import _C
from .. import _func_transforms
from .._autocast import active as _amp_active, run as _amp_run
from .functional import _check_float_arguments, _layer_norm_is_mixed, _softmax_dim
from .._dim_args import _require_tensor, _tp_name
from .._layouts import follow_input_layout
from .parameter import untracked

__all__ = [
    "group_norm", "instance_norm", "rms_norm", "local_response_norm", "normalize",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "pad", "pixel_shuffle", "pixel_unshuffle", "prelu", "glu", "softmin",
]


# ---------------------------------------------------------------------------------------------- normalisation
def _verify_batch_size(size):
    count = size[0]
    for s in size[2:]:
        count *= s
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size):
    spatial = 1
    for s in size[2:]:
        spatial *= s
    if spatial == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def _channel_shape(input):
    """[1, C, 1, ...]: a per-channel vector broadcast against an (N, C, *) input."""
    return [1, input.size(1)] + [1] * (input.dim() - 2)


def _affine(out, weight, bias, shape):
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def _require_floating(input, kernel):
    if not input.is_floating_point():  # PyTorch's kernel refuses it, named so
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_C._dtype_title(input.dtype)}'\n"
                                  "hint: convert the input to a floating dtype first, e.g. x.float()")


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalises each sample's channels in num_groups groups (biased variance), then the per-channel affine."""
    if _amp_active():  # PyTorch's autocast list: cuda fp32
        return _amp_run("cuda_fp32", group_norm, input, num_groups, weight, bias, eps)
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups] + list(input.shape[2:]))
    c = input.size(1)
    hxw = math.prod(input.shape[2:])
    if hxw <= 0:  # PyTorch's group_norm checks the spatial size first
        raise RuntimeError(f"Expected HxW to be greater than 0, got {hxw}")
    if num_groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {num_groups}")
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.dim() != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    _layer_norm_is_mixed(input, weight, bias)  # the CPU kernel's dtype rules for the parameters come first
    _require_floating(input, "GroupNormKernelImpl")
    return _C._group_norm(input, num_groups, weight, bias, eps)  # batch_norm's kernels (ops/group_norm.h)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalises every (sample, channel) plane over its spatial dims. With input statistics the running ones
    move towards the batch average of the per-instance mean and unbiased variance, as PyTorch's does."""
    if _amp_active():  # one op outside PyTorch's autocast lists: its inner reductions keep the input dtype
        return _amp_run("none", instance_norm, input, running_mean, running_var, weight, bias, use_input_stats,
                        momentum, eps)
    if use_input_stats:
        _verify_spatial_size(input.shape)  # PyTorch's Python check, before the op's vmap rule
    _check_float_arguments("instance_norm", (("momentum", 7, momentum), ("eps", 8, eps)))  # PyTorch's parser
    if use_input_stats:
        _func_transforms.check_batch_norm_running_stats(running_mean, running_var)
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    n, c = input.size(0), input.size(1)
    if input.numel() == 0:
        return _empty_instance_norm(input, running_mean, running_var, weight, bias, use_input_stats)
    # PyTorch runs batch_norm on the (1, N*C, *) view with everything repeated N times; its messages count so.
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {t.numel() * n}")
    shape = _channel_shape(input)
    _require_floating(input, "batch_norm")  # PyTorch runs instance_norm through batch_norm
    if use_input_stats and running_mean is None and running_var is None:  # InstanceNorm's default
        # a group per channel (ops/group_norm.h); row-major like PyTorch's result, whatever input's layout
        return _C._group_norm(input.contiguous(), c, weight, bias, eps)
    if use_input_stats:
        dims = list(range(2, input.dim()))
        mean = input.mean(dim=dims, keepdim=True)
        var = _C._var_in_input_dtype(input, dims, keepdim=True)
        count = input.numel() // max(n * c, 1)
        if running_mean is not None:
            batch_mean = untracked(mean).reshape(n, c).mean(dim=0)
            untracked(running_mean).mul_(1 - momentum).add_(batch_mean * momentum)
        if running_var is not None:
            batch_var = untracked(var).reshape(n, c).mean(dim=0)
            untracked(running_var).mul_(1 - momentum).add_(batch_var * (momentum * count / (count - 1)))
    else:
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = _affine((input - mean) * tandem.rsqrt(var + eps), weight, bias, shape)
    # float32 statistics or parameters of a 16-bit input compute in float32; the result keeps the input's dtype
    return out.to(input.dtype) if input.dtype in (tandem.float16, tandem.bfloat16) else out


def _empty_instance_norm(input, running_mean, running_var, weight, bias, use_input_stats):
    """PyTorch's instance_norm of an empty input, step by step: the parameters repeated per sample, batch_norm's
    empty-batch result (a copy of the input times weight[0] plus bias[0]), and with input statistics each running
    statistic set to the mean over the samples of its repeated copy (NaN for an empty batch; a wrong size fails the
    view)."""
    n, c = input.size(0), input.size(1)
    out = input.clone()
    if weight is not None:
        out = out * weight.repeat(n).select(0, 0)  # C++ indexing: select()'s message for an empty batch
    if bias is not None:
        out = out + bias.repeat(n).select(0, 0)
    for stat in (running_mean, running_var):
        if stat is not None and use_input_stats:
            untracked(stat).copy_(stat.repeat(n).view(n, c).mean(0))
    return out


# Machine epsilon of the type rms_norm computes in: float64, or float32 (half types are upcast, as in PyTorch).
_FLOAT64_EPS, _FLOAT32_EPS = 2.220446049250313e-16, 1.1920928955078125e-07


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2) + eps) over the trailing normalized_shape dims, times weight; eps=None is the
    computing type's machine epsilon."""
    if isinstance(normalized_shape, numbers.Integral):
        raise TypeError("rms_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not int")
    normalized_shape = [int(s) for s in normalized_shape]
    if not normalized_shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if weight is not None and list(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {normalized_shape}")
    k = len(normalized_shape)
    if input.dim() < k:
        raise ValueError(f"Input tensor must have at least {k} dimensions, but got {input.dim()}")
    if list(input.shape[input.dim() - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with shape "
                           f"[*{', '.join(str(s) for s in normalized_shape)}], but got input of size"
                           f"{list(input.shape)}")
    if not (input.is_floating_point() or input.is_complex()):  # PyTorch's kernel, checked after the shapes
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{input.dtype._scalar_type_name}'\nhint: "
                                  "normalize a floating-point copy, e.g. input.float()")
    # complex inputs are squared as complex numbers (not |x|**2), as PyTorch's composite
    x = input if input.dtype in (tandem.float32, tandem.float64, tandem.complex64, tandem.complex128) else \
        input.float()
    if eps is None:
        eps = _FLOAT64_EPS if x.dtype in (tandem.float64, tandem.complex128) else _FLOAT32_EPS
    dims = list(range(input.dim() - k, input.dim()))
    out = x * tandem.rsqrt((x * x).mean(dim=dims, keepdim=True) + eps)
    if weight is not None:  # in the computing type, as PyTorch's: one rounding, to the input's dtype
        out = out * weight
    return out.to(input.dtype)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over a window of `size` channels)^beta; the window is zero-padded by
    size // 2 channels before and (size - 1) // 2 after, as PyTorch's average pooling is."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} "
                         f"dimensions)")
    if input.numel() == 0:
        return input
    # PyTorch's composition: the squares averaged over a zero-padded window of channels by avg_pool2d (3-d
    # input) or avg_pool3d (more dims), whose kernels decide which dtypes run; then * alpha + k, ** beta
    from ._functional_pool import avg_pool2d, avg_pool3d  # noqa: PLC0415  (the pool module imports this one)
    div = input.mul(input)
    if dim == 3:
        div = pad(div.unsqueeze(1), (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.view(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p over dim, eps)."""
    # the method, as PyTorch's F.normalize calls it: a NumPy array is its AttributeError ('... has no attribute
    # 'norm''), not a TypeError from the function's binding
    denom = input.norm(p, dim, keepdim=True).clamp(min=eps).expand_as(input)
    if out is None:
        return input / denom
    with tandem.no_grad():  # PyTorch: with out=, the result is not differentiable
        return tandem.div(input, denom, out=out)  # div's out= rules: a wrong shape is resized, with a warning


# ---------------------------------------------------------------------------------------------------- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


_SELU_ALPHA_PRIME = 1.7580993408473766  # -scale * alpha of SELU: where alpha dropout parks dropped units


def _dropout(input, p, training, inplace, alpha, feature, channel_dim=1):
    """PyTorch's _dropout_impl: a Bernoulli(1 - p) keep mask per element or (feature) per channel plane
    (the dims up to channel_dim; 0 for inputs without a batch dim, which PyTorch unsqueezes first), then plain
    rescaling or alpha dropout's affine correction."""
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if feature:
        if input.dim() < channel_dim + 1:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = list(input.shape[:channel_dim + 1]) + [1] * (input.dim() - channel_dim - 1)
    else:
        shape = list(input.shape)
    keep = tandem.empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
    if not alpha:
        keep.mul_(1.0 / (1.0 - p))
        return input.mul_(keep) if inplace else input * keep
    a = 1.0 / math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    shift = (keep - 1) * (_SELU_ALPHA_PRIME * a) + _SELU_ALPHA_PRIME * a * p
    keep.mul_(a)
    return input.mul_(keep).add_(shift) if inplace else input * keep + shift


def _nd_warning(name, n, dim):
    return (f"{name}: Received a {dim}-D input to {name}, which is deprecated and will result in an error in a "
            f"future release. To retain the behavior and silence this warning, please use dropout instead. Note "
            f"that {name} exists to provide channel-wise dropout on inputs with {n} spatial dimensions, a channel "
            f"dimension, and an optional batch dimension (i.e. {n + 1}D or {n + 2}D inputs).")


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs with probability p."""
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that dropout1d exists "
            "to provide channel-wise dropout on inputs with 1 spatial dimension, a channel dimension, and an "
            "optional batch dimension (i.e. 2D or 3D inputs).")
    return _dropout(input, p, training, inplace, False, True, 1 if input.dim() == 3 else 0)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, H, W) inputs; a 3-D input is read as (N, C, L), as PyTorch does."""
    _check_p(p)
    if input.dim() not in (3, 4):
        warnings.warn(_nd_warning("dropout2d", 2, input.dim()), stacklevel=2)
    if input.dim() == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
            "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
            "change in a future release to interpret the input as one without a batch dimension, i.e. shape "
            "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d "
            "instead.", stacklevel=2)
    return _dropout(input, p, training, inplace, False, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""
    _check_p(p)
    if input.dim() not in (4, 5):
        warnings.warn(_nd_warning("dropout3d", 3, input.dim()), stacklevel=2)
    return _dropout(input, p, training, inplace, False, True, 1 if input.dim() == 5 else 0)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's zero mean and unit variance: dropped units go to SELU's negative saturation,
    then everything is scaled and shifted back."""
    _check_p(p)
    return _dropout(input, p, training, inplace, True, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout with one draw per channel plane."""
    _check_p(p)
    return _dropout(input, p, training, inplace, True, True)


# ---------------------------------------------------------------------------------------------------- padding
_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_ints(pad):
    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not {type(pad).__name__}")
    try:
        return [operator.index(v) for v in pad]
    except TypeError:
        bad = next(i for i, v in enumerate(pad) if not hasattr(v, "__index__"))
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                        f"{type(pad[bad]).__name__} at pos {bad}") from None


def _padded_dims(input, pad):
    """(dim, left, right) for each padded dim, the last dim first (pad's order)."""
    return [(input.dim() - 1 - i, pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]


def _constant_pad(input, pad, value):
    """Crops for negative amounts (narrow), then concatenates blocks of `value` for positive ones."""
    out = input
    for dim, left, right in _padded_dims(input, pad):
        kept = out.size(dim) + min(left, 0) + min(right, 0)
        if kept < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        out = out.narrow(dim, max(-left, 0), kept)
    for dim, left, right in _padded_dims(input, pad):
        pieces = []
        for amount in (left, right):
            shape = list(out.shape)
            shape[dim] = max(amount, 0)
            pieces.append(tandem.full(shape, value, dtype=input.dtype, device=input.device))
        if left > 0 or right > 0:
            out = tandem.cat([pieces[0], out, pieces[1]], dim)
    return out.clone() if out is input or out._is_view_of(input) else out  # always a new tensor, as PyTorch's


def _check_index_pad(input, pad, mode):
    """PyTorch's kernel checks for reflect/replicate/circular, in its order."""
    dims = _padded_dims(input, pad)
    k = len(dims)
    if mode == "circular":
        for dim, left, right in reversed(dims):  # PyTorch goes outermost spatial dim first
            if left > input.size(dim) or right > input.size(dim):
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if input.size(dim) + left + right < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    non_batch = input.shape[1:] if input.dim() == k + 2 else input.shape
    if 0 in non_batch:
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(input.shape)}")
    if mode == "reflect":
        for i, (dim, left, right) in enumerate(dims):
            if left >= input.size(dim) or right >= input.size(dim):
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({left}, {right}) at dimension {dim} of input "
                                   f"{list(input.shape)}")
    sizes = [input.size(dim) for dim, _, _ in reversed(dims)]
    outs = [input.size(dim) + left + right for dim, left, right in reversed(dims)]
    if min(outs) < 1:
        if k == 1:
            raise RuntimeError(f"input (W: {sizes[0]}) is too small. Calculated output W: {outs[0]}")
        names = "DHW"[3 - k:]
        raise RuntimeError(f"Calculated output {' '.join(f'{n}: {o}' for n, o in zip(names, outs))} must be >= 1 in "
                           f"every dimension (input {', '.join(f'{n}: {s}' for n, s in zip(names, sizes))})")


def _source_index(size, left, right, mode, device):
    """For each output position along one dim, the input position it copies (int64, on the device)."""
    if mode == "circular":  # PyTorch wraps the cropped input (negative amounts crop first)
        start = max(-left, 0)
        kept = size - start - max(-right, 0)
        if kept <= 0:  # nothing left to wrap (a zero-length result, or PyTorch reads unset memory)
            if kept + max(left, 0) + max(right, 0) > 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
            return tandem.arange(0, device=device)
        position = tandem.arange(kept + max(left, 0) + max(right, 0), device=device) - max(left, 0)
        return tandem.remainder(position, kept) + start
    position = tandem.arange(size + left + right, device=device) - left
    if mode == "replicate":
        return tandem.clamp(position, 0, size - 1)
    # reflect: |p| folds the left edge, (size - 1) - |(size - 1) - |p|| the right one (padding < size).
    return (size - 1) - tandem.abs((size - 1) - tandem.abs(position))


def pad(input, pad, mode="constant", value=None):
    """Pads (or, for negative amounts, crops) the last len(pad) // 2 dims; pad lists (left, right) pairs from
    the last dim backwards. Non-constant modes gather input positions with index_select, so gradients of
    repeated positions add up."""
    if not isinstance(mode, str):  # PyTorch's parser: a str (bytes are decoded), before the pad's checks
        if not isinstance(mode, bytes):
            raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not {type(mode).__name__}")
        mode = mode.decode()
    pad = _pad_ints(pad)
    if isinstance(value, (complex, str, bytes)) or (value is not None and not hasattr(value, "__float__")):
        raise TypeError(f"pad(): argument 'value' (position 4) must be float, not {type(value).__name__}")
    if _amp_active() and (mode == "replicate" or (mode == "reflect" and len(pad) < 6)):
        # PyTorch's cpu autocast list: fp32 for replication_pad1d/2d/3d and reflection_pad1d/2d
        return _amp_run("cpu_fp32", _pad, input, pad, mode, value)
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode == "constant":
        return follow_input_layout(_constant_pad(input, pad, 0 if value is None else value), input)
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\nSupported combinations for "
            "non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: "
            "padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 "
            "dimensions)")
    _check_index_pad(input, pad, mode)
    if input.dtype == tandem.bool and mode != "circular":  # PyTorch's reflection/replication kernels
        kernel = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kernel}_pad{k}d\" not implemented for 'Bool'\n"
                                  "hint: pad a uint8 copy, e.g. input.to(torch.uint8), and compare it with 0")
    out = input
    for dim, left, right in _padded_dims(input, pad):
        out = tandem.index_select(out, dim, _source_index(input.size(dim), left, right, mode, input.device))
    return out if mode == "circular" else follow_input_layout(out, input)  # PyTorch's circular one is row-major


_pad = pad  # pad() by another name, for its autocast hook (inside it the argument `pad` hides the function)


# ------------------------------------------------------------------------------------------- shape and gates
def _check_factor_int(factor, fn, name):
    """PyTorch's parser: the factor is an int (a bool or a float is its TypeError)."""
    # an ndarray (even a 0-d one, which has __index__) is refused as PyTorch's int parser does
    if isinstance(factor, bool) or not hasattr(factor, "__index__") or _tp_name(factor) == "numpy.ndarray":
        raise TypeError(f"{fn}(): argument '{name}' (position 2) must be int, not {_tp_name(factor)}")


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    _require_tensor("pixel_shuffle", "input", input, 1)  # the parser reads input first (numpy.ndarray)
    _check_factor_int(upscale_factor, "pixel_shuffle", "upscale_factor")
    r = upscale_factor
    if input.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    batch = list(input.shape[:-3])
    b = len(batch)
    x = input.reshape(batch + [c // (r * r), r, r, h, w])
    x = x.permute(list(range(b)) + [b, b + 3, b + 1, b + 4, b + 2])
    return follow_input_layout(x.reshape(batch + [c // (r * r), h * r, w * r]), input)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    _require_tensor("pixel_unshuffle", "input", input, 1)  # the parser reads input first (numpy.ndarray)
    _check_factor_int(downscale_factor, "pixel_unshuffle", "downscale_factor")
    r = downscale_factor
    if input.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = input.shape[-3:]
    for name, size, index in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({index})={size} is not divisible by {r}")
    batch = list(input.shape[:-3])
    b = len(batch)
    x = input.reshape(batch + [c, h // r, r, w // r, r])
    x = x.permute(list(range(b)) + [b, b + 2, b + 4, b + 1, b + 3])
    return follow_input_layout(x.reshape(batch + [c * r * r, h // r, w // r]), input)


def _dtype_name(dtype):
    return dtype._scalar_type_name  # PyTorch's ScalarType names: Float, Long, Byte, Bool, ComplexFloat, ...


def prelu(input, weight):
    """x for x > 0, weight * x otherwise, with one weight shared or one per channel (dim 1)."""
    if _amp_active():  # PyTorch's autocast list: lower
        return _amp_run("lower", prelu, input, weight)
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {_dtype_name(input.dtype)} and "
                           f"{_dtype_name(weight.dtype)}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.size(1) if input.dim() > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                               f"{weight.numel()} and channel size = {channels}.")
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if not input.is_floating_point():  # PyTorch's kernel takes floating dtypes (torch.prelu checks this first)
        raise NotImplementedError(f"\"prelu_{input.device.type}\" not implemented for "
                                  f"'{input.dtype._scalar_type_name}'")
    w = weight.reshape([]) if weight.numel() == 1 else weight.reshape(_channel_shape(input))
    return tandem.where(input > 0, input, w * input)


def glu(input, dim=-1):
    """a * sigmoid(b), where a and b are the two halves of input along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.size(dim)  # PyTorch's IndexError for a dim out of range
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    if not input.is_floating_point():  # PyTorch's kernel: floating types only (sigmoid would promote an integer)
        raise NotImplementedError(f"\"glu_{input.device.type}\" not implemented for '{input.dtype._scalar_type_name}'")
    a, b = input.chunk(2, dim)
    if input.dtype in (tandem.float16, tandem.bfloat16):
        return _HalfGlu.apply(a, b)
    return a * tandem.sigmoid(b)


class _HalfGlu(tandem.autograd.Function):
    """glu of float16/bfloat16 halves as PyTorch's CPU kernels round it: the forward in float32, rounded once; the
    backward from the sigmoid stored in the 16-bit dtype, each gradient computed in float32 and rounded once."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return (a.float() * tandem.sigmoid(b.float())).to(a.dtype)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        sig = tandem.sigmoid(b).float()
        g = grad.float()
        return (sig * g).to(a.dtype), ((1 - sig) * sig * a.float() * g).to(a.dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-input)."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim, dtype=dtype)
