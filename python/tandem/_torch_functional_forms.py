"""The torch.X spellings of nn.functional ops (torch.conv1d, torch.batch_norm, torch.kl_div, ...) and the
in-place function forms torch.X_(t, ...). PyTorch's torch.X is its ATen signature, which often differs from
F.X: every argument of torch.batch_norm is required, losses take an int `reduction` (0 none, 1 mean, 2 sum),
torch.embedding takes (weight, indices). Each form only maps its arguments onto tandem.nn.functional, so it
runs on every device and differentiates exactly as the F op does."""
from . import _C, _compositions
from ._out import CASTABLE, FOUND_DTYPE, with_out

Tensor = _C.Tensor

__all__ = [
    "conv1d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool2d",
    "max_pool3d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
    "batch_norm", "layer_norm", "group_norm", "instance_norm", "rms_norm", "embedding", "embedding_bag",
    "native_layer_norm", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle", "selu",
    "celu", "prelu", "threshold", "hardshrink", "selu_", "celu_", "threshold_", "dropout_", "alpha_dropout_",
    "feature_dropout_", "feature_alpha_dropout_", "kl_div", "poisson_nll_loss", "cosine_embedding_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "triplet_margin_loss", "ctc_loss",
    "binary_cross_entropy_with_logits", "fill", "embedding_renorm_", "rrelu", "rrelu_", "bilinear",
    "convolution", "conv_tbc", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator",
    "norm_except_dim",
]

# The in-place function forms: torch.X_(t, *args) is t.X_(*args). One list, PyTorch's top-level X_ names;
# install() adds those whose Tensor method tandem has.
IN_PLACE_FORMS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ ceil_ "
    "clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ "
    "frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ "
    "rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_"
).split()


_MISSING = object()  # a required ATen argument not given: PyTorch's parser words that TypeError its own way


def _require(name, **arguments):
    missing = [label for label, value in arguments.items() if value is _MISSING]
    if missing:
        # PyTorch's wording, plural and all: "1 ... arguments", "3 ... argument".
        plural = "arguments" if len(missing) == 1 else "argument"
        raise TypeError(f"{name}() missing {len(missing)} required positional {plural}: "
                        + ", ".join(f'"{label}"' for label in missing))


def _F():
    from .nn import functional  # noqa: PLC0415  (nn imports tandem: resolved at call time)
    return functional


def _check_tensor(name, value, label="input", position=1):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _reduction(name, reduction, position):
    """ATen's int reduction as F's string: 1 mean, 2 sum, any other int none (ATen's apply_loss_reduction)."""
    if isinstance(reduction, bool) or not isinstance(reduction, int):
        raise TypeError(f"{name}(): argument 'reduction' (position {position}) must be int, not "
                        f"{type(reduction).__name__}")
    return {1: "mean", 2: "sum"}.get(reduction, "none")


# ---- convolutions and pooling ----

def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _F().conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _F().conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _stride(stride):
    return None if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, return_indices=True)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _F().avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def adaptive_avg_pool1d(input, output_size):
    return _F().adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size):
    """(values, indices), as PyTorch's torch.adaptive_max_pool1d always returns both."""
    return _F().adaptive_max_pool1d(input, output_size, return_indices=True)


def _int_list(name, label, position, value):
    """ATen's int[] argument: a list or tuple of ints (a bare int or a string is a TypeError)."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, int) and not isinstance(v, bool)
                                                       for v in value):
        raise TypeError(f"{name}(): argument '{label}' (position {position}) must be tuple of ints, not "
                        f"{type(value).__name__}")
    return list(value)


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """ATen's convolution: conv{1,2,3}d or, with transposed, conv_transpose{1,2,3}d by the weight's dims."""
    _check_tensor("convolution", input)
    _check_tensor("convolution", weight, "weight", 2)
    stride, padding, dilation = (_int_list("convolution", label, pos, value) for label, pos, value in
                                 (("stride", 4, stride), ("padding", 5, padding), ("dilation", 6, dilation)))
    output_padding = _int_list("convolution", "output_padding", 8, output_padding)
    n = weight.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D weight for convolution, but got {weight.dim()}D weight of size "
                           f"{list(weight.shape)}")
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
                           f"{list(input.shape)} instead")
    if transposed:
        return getattr(_F(), f"conv_transpose{n}d")(input, weight, bias, stride, padding, output_padding, groups,
                                                    dilation)
    return getattr(_F(), f"conv{n}d")(input, weight, bias, stride, padding, dilation, groups)


def conv_tbc(input, weight, bias, pad=0):
    """A 1-D convolution over time of input (time, batch, in_channels) with weight (kernel_width, in_channels,
    out_channels) and bias (out_channels,), `pad` zeros at both ends: (time + 2 pad - kernel_width + 1, batch,
    out_channels)."""
    for label, value, position in (("input", input, 1), ("weight", weight, 2), ("bias", bias, 3)):
        _check_tensor("conv_tbc", value, label, position)
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.size(2) != bias.size(0):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = _F().conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, 1, pad)
    return out.permute(2, 0, 1)


_GRID_MODES = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_GRID_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def _grid_sampler(name, dims):
    def sampler(input, grid, interpolation_mode, padding_mode, align_corners):
        """F.grid_sample with ATen's int modes: interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros,
        1 border, 2 reflection."""
        _check_tensor(name, input)
        _check_tensor(name, grid, "grid", 2)
        if dims is not None and (input.dim() != dims or grid.dim() != dims):
            raise RuntimeError(f"grid_sampler(): expected {dims}D input and grid with same number of dimensions, "
                               f"but got input with sizes {list(input.shape)} and grid with sizes "
                               f"{list(grid.shape)}")
        if interpolation_mode not in _GRID_MODES or padding_mode not in _GRID_PADDING:
            raise RuntimeError(f"{name}(): interpolation_mode must be 0, 1 or 2 and padding_mode 0, 1 or 2, but got "
                               f"{interpolation_mode} and {padding_mode}")
        return _F().grid_sample(input, grid, _GRID_MODES[interpolation_mode], _GRID_PADDING[padding_mode],
                                bool(align_corners))

    sampler.__name__ = sampler.__qualname__ = name
    return sampler


grid_sampler = _grid_sampler("grid_sampler", None)
grid_sampler_2d = _grid_sampler("grid_sampler_2d", 4)
grid_sampler_3d = _grid_sampler("grid_sampler_3d", 5)


def affine_grid_generator(theta, size, align_corners):
    """F.affine_grid with ATen's required align_corners."""
    _check_tensor("affine_grid_generator", theta, "theta", 1)
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    return _F().affine_grid(theta, list(size), bool(align_corners))


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002  (ATen's name)
    """The pow-norm of v over every dim but `dim`, kept as size-1 dims (weight_norm's g); dim=-1 is the norm of
    all of v, a 0-dim tensor."""
    _check_tensor("norm_except_dim", v, "v", 1)
    if dim == -1:
        return v.norm(pow)
    if not -v.dim() <= dim < v.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of [{-v.dim()}, {v.dim() - 1}], but got "
                         f"{dim})")
    dim %= v.dim()
    others = [d for d in range(v.dim()) if d != dim]
    return v.norm(pow, others, keepdim=True)


# ---- normalization and embeddings ----

def batch_norm(input, weight, bias, running_mean, running_var, training=_MISSING, momentum=_MISSING, eps=_MISSING,
               cudnn_enabled=_MISSING):
    _require("batch_norm", training=training, momentum=momentum, eps=eps, cudnn_enabled=cudnn_enabled)
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats=_MISSING, momentum=_MISSING,
                  eps=_MISSING, cudnn_enabled=_MISSING):
    _require("instance_norm", use_input_stats=use_input_stats, momentum=momentum, eps=eps,
             cudnn_enabled=cudnn_enabled)
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(output, mean, rstd) as PyTorch's: the statistics have the input's leading dims followed by a 1 per
    normalised dim, in the input's dtype on the CPU and the accumulation dtype (float for 16-bit) on CUDA."""
    out, mean, rstd = _F()._call_layer_norm(_C._native_layer_norm, "native_layer_norm", input, normalized_shape,
                                            weight, bias, eps)
    k = len(normalized_shape)
    stats_shape = tuple(input.shape[:input.dim() - k]) + (1,) * k
    if not input.is_cuda:
        mean, rstd = mean.to(input.dtype), rstd.to(input.dtype)
    return out, mean.view(stats_shape), rstd.view(stats_shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F().group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    return _F().rms_norm(input, normalized_shape, weight, eps)


def _no_sparse_or_freq(name, scale_grad_by_freq, sparse):
    if scale_grad_by_freq or sparse:
        raise NotImplementedError(f"{name}(): scale_grad_by_freq=True and sparse=True are not supported\nhint: "
                                  "tandem has no sparse gradients; leave both False")


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """Rows of weight; a padding_idx >= 0 gets no gradient (a negative one means none, as in ATen)."""
    _check_tensor("embedding", weight, "weight", 1)
    _check_tensor("embedding", indices, "indices", 2)
    if indices.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {indices.type().replace('tandem.', 'torch.', 1)} instead (while "
                           "checking arguments for embedding)")
    return _F().embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    if generator is not None:
        raise NotImplementedError("rrelu(): generator= is not supported\nhint: seed with tandem.manual_seed")
    return _F().rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    if generator is not None:
        raise NotImplementedError("rrelu_(): generator= is not supported\nhint: seed with tandem.manual_seed")
    return _F().rrelu_(input, lower, upper, training)


def bilinear(input1, input2, weight, bias=None):
    return _F().bilinear(input1, input2, weight, bias)


def embedding_renorm_(input, indices, max_norm, norm_type):
    """Rescales in place the rows of ``input`` (the table) that ``indices`` uses whose norm exceeds max_norm."""
    return _F().embedding_renorm_(input, indices, max_norm, norm_type)


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """(output, offset2bag, bag_size, max_indices). Only output is computed; the other three are ATen's
    backward bookkeeping, returned as the bag of each index, the bag sizes and (max mode) nothing: see
    docs/compat.md."""
    _no_sparse_or_freq("embedding_bag", scale_grad_by_freq, sparse)
    if mode not in _BAG_MODES:
        raise RuntimeError("mode has to be one of sum, mean or max")
    out = _F().embedding_bag(indices, weight, offsets, None, 2, False, _BAG_MODES[mode], False, per_sample_weights,
                             include_last_offset, padding_idx)
    n = indices.numel()
    starts = offsets[:-1] if include_last_offset else offsets
    positions = _C.arange(n, device=indices.device)
    offset2bag = (positions.unsqueeze(1) >= starts.unsqueeze(0)).sum(1) - 1 if n else positions
    ends = _C.cat([starts[1:], _C.full([1], n, device=indices.device, dtype=starts.dtype)])
    bag_size = (ends - starts).to(_C.int64)
    return out, offset2bag.to(_C.int64), bag_size, _C.empty(0, dtype=_C.int64, device=indices.device)


def pixel_shuffle(input, upscale_factor):
    return _F().pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input, groups):
    """Splits the channels (dim 1) into `groups` groups and interleaves them: a view reshape and a transpose."""
    _check_tensor("channel_shuffle", input, "input", 1)
    if input.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, rest = input.shape[0], input.shape[1], tuple(input.shape[2:])
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    return input.reshape((n, groups, c // groups) + rest).transpose(1, 2).reshape((n, c) + rest)


def native_channel_shuffle(input, groups):
    return channel_shuffle(input, groups)


# ---- activations ----

def selu(input):
    return _F().selu(input)


def celu(input, alpha=1.0):
    return _F().celu(input, alpha)


def prelu(input, weight):
    if not input.is_floating_point():
        raise NotImplementedError(f"\"prelu_{input.device.type}\" not implemented for "
                                  f"'{input.dtype._scalar_type_name}'")
    return _F().prelu(input, weight)


@with_out("threshold", CASTABLE)
def threshold(input, threshold, value):
    return _F().threshold(input, threshold, value)


@with_out("hardshrink", FOUND_DTYPE)
def hardshrink(input, lambd=0.5):
    return _F().hardshrink(input, lambd)


def selu_(input):
    return _F().selu_(input)


def celu_(input, alpha=1.0):
    return _F().celu_(input, alpha)


def threshold_(input, threshold, value):
    return _F().threshold_(input, threshold, value)


def _dropout_in_place(name, alpha, feature):
    def fn(input, p, train):
        _check_tensor(name, input)
        if p < 0 or p > 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        if feature and train and input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        from .nn import _functional_layers  # noqa: PLC0415
        return _functional_layers._dropout(input, p, train, True, alpha, feature)

    fn.__name__ = fn.__qualname__ = name
    return fn


dropout_ = _dropout_in_place("dropout_", False, False)
alpha_dropout_ = _dropout_in_place("alpha_dropout_", True, False)
feature_dropout_ = _dropout_in_place("feature_dropout_", False, True)
feature_alpha_dropout_ = _dropout_in_place("feature_alpha_dropout_", True, True)


def fill(input, value):
    """A new tensor like input, every element value (torch.fill, the out-of-place fill_)."""
    _check_tensor("fill", input)
    if isinstance(value, Tensor):  # a 0-dim tensor value: the result differentiates with respect to it
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               "dimensions.")
        return value.to(input.dtype).expand(input.shape).clone()
    return _C.full_like(input, value)


# ---- losses (int reduction) ----

def kl_div(input, target, reduction=1, *, log_target=False):
    # F.kl_div's 'mean' warns (it means batchmean to most); ATen's int form is the plain element mean.
    loss = _F().kl_div(input, target, reduction="none", log_target=log_target)
    how = _reduction("kl_div", reduction, 3)
    return loss.mean() if how == "mean" else loss.sum() if how == "sum" else loss


def poisson_nll_loss(input, target, log_input=_MISSING, full=_MISSING, eps=_MISSING, reduction=_MISSING):
    _require("poisson_nll_loss", log_input=log_input, full=full, eps=eps, reduction=reduction)
    return _F().poisson_nll_loss(input, target, log_input, full, None, eps, None,
                                 _reduction("poisson_nll_loss", reduction, 6))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction("cosine_embedding_loss", reduction, 5))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_reduction("margin_ranking_loss", reduction, 5))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction("hinge_embedding_loss", reduction, 4))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=1):
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction("triplet_margin_loss", reduction, 8))


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1, zero_infinity=False):
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction("ctc_loss", reduction, 6), zero_infinity)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    if tuple(input.shape) != tuple(target.shape):  # ATen broadcasts target and input (F requires equal sizes)
        target, input = _compositions.broadcast_tensors(target, input)
    return _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits", reduction, 5),
        pos_weight=pos_weight)


def _in_place_form(name):
    def fn(input, *args, **kwargs):
        _check_tensor(name, input)
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"torch.{name}(input, ...): input.{name}(...), in place."
    return fn


def install(namespace):
    """Adds the forms tandem does not already have (its own ops win)."""
    for name in __all__:
        namespace.setdefault(name, globals()[name])
    for name in IN_PLACE_FORMS:
        if hasattr(Tensor, name) and name not in namespace:
            namespace[name] = _in_place_form(name)
