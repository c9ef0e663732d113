"""nn.functional: layers and losses as functions. Each one is a composition of tandem's C++ ops (or a
dedicated C++ op such as conv2d), so autograd and every device come for free; nothing loops in Python."""
import math
import numbers
import operator
import warnings

import tandem

from .. import _C
from .. import _func_transforms
from .._autocast import active as _amp_active, run as _amp_run
from .._compositions_more import _require_tensors
from .._dim_args import _ints, _require_tensor, _tp_name
from .._layouts import is_sparse_tensor
from .._scalar_convert import check_converts as _check_converts
from .._transfer_guard import _crossing
from . import _reduction
from . import _reduction as _Reduction  # noqa: F401  (PyTorch's functional has it under this name)
from .parameter import untracked
from ._sparse_grad import gather_rows

__all__ = [
    "linear", "relu", "relu_", "gelu", "silu", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu",
    "celu_", "softplus", "hardtanh", "hardtanh_", "relu6", "hardsigmoid", "hardswish", "mish", "softsign",
    "logsigmoid", "tanhshrink", "threshold", "threshold_", "hardshrink", "softshrink", "sigmoid", "tanh", "softmax",
    "log_softmax", "dropout", "flatten",
    "conv2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm",
    "layer_norm", "embedding", "nll_loss", "cross_entropy", "mse_loss", "l1_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "one_hot",
]


def linear(input, weight, bias=None):
    """input @ weight.T + bias, as one addmm for the common 2-D case."""
    if _amp_active():  # PyTorch's autocast list: lower
        return _amp_run("lower", linear, input, weight, bias)
    # A tandem.Tensor goes straight to the C++ functions; tandem.addmm/matmul also take sparse tensors, at the
    # cost of a Python call per use.
    sparse = type(input) is not _C.Tensor and is_sparse_tensor(input)
    dense = isinstance(input, _C.Tensor) and not sparse  # a sparse tensor is a Tensor over a placeholder
    if not dense and not sparse:
        _require_tensors("linear", ("input", input))  # a number (a forward pre-hook's): PyTorch's TypeError
    if input.dim() == 2 and bias is not None:
        return (_C.addmm if dense else tandem.addmm)(bias, input, weight.t())
    if input.dim() == 0 or weight.dim() == 0:  # matmul would name itself in the message
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.dim()}D and "
                           f"{weight.dim()}D")
    if bias is not None and input.dim() != 2 and bias.dim() == 1 and input.is_contiguous():
        # As PyTorch, the leading dims fold into one addmm (a 1-D input is one row): the bias joins the product
        # before its single rounding, so a float16/bfloat16 result is PyTorch's bit for bit (matmul then + bias
        # rounds twice), and a width mismatch is addmm's error, as PyTorch's.
        rows = math.prod(input.shape[:-1])
        out = (_C.addmm if dense else tandem.addmm)(bias, input.reshape(rows, input.shape[-1]), weight.t())
        return out.view(*input.shape[:-1], out.shape[1])
    out = (_C.matmul if dense else tandem.matmul)(input, weight.t())
    return out + bias if bias is not None else out


def relu(input, inplace=False):
    return input.relu_() if inplace else tandem.relu(input)


def relu_(input):
    return input.relu_()


def _floating_kernel_only(input, kernel):
    """PyTorch's NotImplementedError for an integer or bool input to a floating-point-only kernel (tandem's ops
    would promote it)."""
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype._scalar_type_name}\'\n'
                                  f"hint: convert the input first, e.g. input.float()")


def gelu(input, approximate="none"):
    if not isinstance(approximate, str):  # PyTorch's parser: a str (bytes are decoded), checked before the op
        if not isinstance(approximate, bytes):
            raise TypeError(f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
        approximate = approximate.decode()
    if approximate not in ("none", "tanh"):  # before the dtype check, as PyTorch's
        raise RuntimeError(f"approximate argument must be either none or tanh.\nhint: got "
                           f"approximate={approximate!r}")
    _floating_kernel_only(input, "GeluKernelImpl")
    return tandem.gelu(input) if approximate == "none" else tandem.gelu_tanh(input)


def silu(input, inplace=False):
    """x * sigmoid(x) (also called swish)."""
    _floating_kernel_only(input, f"silu_{input.device.type}")
    if input.is_complex():  # PyTorch's complex kernel, x / (1 + exp(-x)), has no derivative
        _refuse_complex_autograd("silu", input)
        out = input / (1 + tandem.exp(-input))
        return input.copy_(out) if inplace else out
    return input.silu_() if inplace else tandem.silu(input)


def _refuse_complex_autograd(name, tensor):
    """PyTorch's refusal of an op whose complex output would need a derivative it does not have."""
    if tensor.is_complex() and tensor.requires_grad and tandem.is_grad_enabled():
        raise NotImplementedError(f"{name} does not support automatic differentiation for outputs with complex "
                                  "dtype.")


# Activations with parameters run as one C++ kernel each (ops/activation.h, kernels/activation_functors.h),
# forward and backward, on every device; _C._activation takes the parameters in its own order.
# (function, argument) -> the argument's position in PyTorch's signature and the C type it becomes, for the messages
_NUMBER_ARGS = {("leaky_relu", "negative_slope"): (2, "float"), ("elu", "alpha"): (2, "float"),
                ("celu", "alpha"): (2, "double"), ("softplus", "beta"): (2, "float"),
                ("softplus", "threshold"): (3, "float"), ("hardtanh", "min_val"): (2, "float"),
                ("hardtanh", "max_val"): (3, "float"), ("threshold", "threshold"): (2, "float"),
                ("threshold", "value"): (3, "float"), ("hardshrink", "lambd"): (2, "float"),
                ("softshrink", "lambd"): (2, "double"), ("rrelu", "lower"): (2, "double"),
                ("rrelu", "upper"): (3, "double")}


def _number(value, fn, arg):
    """value as a float, or PyTorch's TypeError naming the function and the argument. As PyTorch's argument
    parser, a 0-dim tensor that needs no gradient counts as the number it holds (LAMB-style code passes a trust
    ratio computed as a tensor); a complex number cannot become the C float."""
    position, c_type = _NUMBER_ARGS[(fn, arg)]
    if isinstance(value, _C.Tensor) and value.dim() == 0 and not value.requires_grad:
        value = value.item()
    if isinstance(value, complex):
        raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{fn}(): argument '{arg}' (position {position}) must be Number, not {type(value).__name__}")
    return float(value)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x for x > 0, negative_slope * x otherwise (the gradient at 0 is negative_slope, as in PyTorch)."""
    return _C._activation("leaky_relu", input, _number(negative_slope, "leaky_relu", "negative_slope"),
                          inplace=inplace)


def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    return _C._activation("elu", input, _number(alpha, "elu", "alpha"), 1.0, 1.0, inplace)


def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    return _C._activation("selu", input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace)


def selu_(input):
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    alpha = _number(alpha, "celu", "alpha")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _C._activation("celu", input, alpha, 1.0, 1.0 / alpha, inplace)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (where the two agree in float)."""
    return _C._activation("softplus", input, _number(beta, "softplus", "beta"),
                          _number(threshold, "softplus", "threshold"))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clamped to [min_val, max_val]."""
    if min_val > max_val:  # first, on the values as given (PyTorch's order: a str or complex fails here)
        raise ValueError("min_val cannot be greater than max_val")
    given = min_val, max_val
    min_val, max_val = _number(min_val, "hardtanh", "min_val"), _number(max_val, "hardtanh", "max_val")
    _refuse_bool_hardtanh(input)
    if isinstance(input, tandem.Tensor) and not input.is_complex():  # (the kernel refuses complex first)
        for bound in given:  # PyTorch's clamp converts each bound to the input's dtype (an integer one to int64_t)
            _check_converts(bound, input.dtype if input.is_floating_point() else tandem.int64)
        if math.isnan(min_val) or math.isnan(max_val):
            # PyTorch's forward is clamp's (a NaN bound makes every element NaN); its gradient is the kernel's
            # (passed where x is not on the far side of the other bound), which tandem's kernel computes
            return _C._activation("hardtanh", input, min_val, max_val, inplace=inplace).add_(math.nan)
    return _C._activation("hardtanh", input, min_val, max_val, inplace=inplace)


def _refuse_bool_hardtanh(input):
    if isinstance(input, tandem.Tensor) and input.dtype == tandem.bool:  # PyTorch's hardtanh (and relu6) check
        raise NotImplementedError("Bool inputs not supported for hardtanh")


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input, inplace=False):
    """min(max(0, x), 6)."""
    _refuse_bool_hardtanh(input)
    return _C._activation("relu6", input, 0.0, 6.0, inplace=inplace)


def hardsigmoid(input, inplace=False):
    """relu6(x + 3) / 6."""
    return _C._activation("hardsigmoid", input, inplace=inplace)


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6."""
    return _C._activation("hardswish", input, inplace=inplace)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    return _C._activation("mish", input, inplace=inplace)


def logsigmoid(input):
    """log(sigmoid(x)), without overflow for large |x|."""
    return _C._activation("logsigmoid", input)


def _threshold(input, th, value, inplace):
    numbers = _number(th, "threshold", "threshold"), _number(value, "threshold", "value")
    if isinstance(input, _C.Tensor):
        if input.is_complex():  # PyTorch's kernel has no complex case (tandem's composition would name "le")
            raise NotImplementedError(f"\"threshold_{input.device.type}\" not implemented for "
                                      f"'{input.dtype._scalar_type_name}'")
        for number in (th, value):  # converted as the kernel's compute type (float for 16-bit inputs)
            _check_converts(number, input.dtype, half_as_float=True)
    return _C._activation("threshold", input, *numbers, inplace=inplace)


def threshold(input, threshold, value, inplace=False):
    """value where x <= threshold, x elsewhere."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input, threshold, value):
    return _threshold(input, threshold, value, True)


def hardshrink(input, lambd=0.5):
    """0 on [-lambd, lambd], x elsewhere."""
    return _C._activation("hardshrink", input, _number(lambd, "hardshrink", "lambd"))


# Each floating dtype's largest value and PyTorch's name for it, for softshrink's range message.
_LARGEST = {tandem.float32: (3.4028234663852886e38, "Float"), tandem.float64: (1.7976931348623157e308, "Double"),
            tandem.float16: (65504.0, "Half"), tandem.bfloat16: (3.3895313892515355e38, "BFloat16")}


def softshrink(input, lambd=0.5):
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    lambd = _number(lambd, "softshrink", "lambd")
    if isinstance(input, tandem.Tensor) and not input.is_floating_point():
        # PyTorch's lambda check dispatches on the (real floating) dtype first, so it names that kernel
        raise NotImplementedError(f"\"softshrink_check\" not implemented for '{input.dtype._scalar_type_name}'")
    if lambd < 0:
        top, name = _LARGEST.get(input.dtype, (3.4028234663852886e38, str(input.dtype)))
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {name}, but found {lambd:g}")
    return _C._activation("softshrink", input, lambd)


# As in PyTorch, two activations are compositions (their autograd nodes are DivBackward0 and SubBackward0).
def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - input.tanh()


def sigmoid(input):
    return tandem.sigmoid(input)


def tanh(input):
    return tandem.tanh(input)


def _softmax_dim(name, ndim, stacklevel):
    """PyTorch's legacy dim when none is given, with its deprecation warning. stacklevel counts from this frame
    (as PyTorch's _get_softmax_dim), so F.softmax's default of 3 names the caller's line."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return tandem.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return tandem.log_softmax(input, dim, dtype=dtype)


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0) if inplace else input * 0
    mask = tandem.empty_like(input).bernoulli_(1.0 - p)
    mask.div_(1.0 - p)  # PyTorch's noise.div_(1 - p): the same mask values, so a seed gives its outputs
    return input.mul_(mask) if inplace else input * mask


def flatten(input, start_dim=0, end_dim=-1):
    return tandem.flatten(input, start_dim, end_dim)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (a C++ op: im2col + one GEMM; records ConvolutionBackward0)."""
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def _pool_stride(stride):
    """None (the kernel size) for PyTorch's "no stride" spellings, None and []; a zero stride is refused."""
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return None
    if 0 in (tuple(stride) if isinstance(stride, (list, tuple)) else (stride,)):
        raise RuntimeError("stride should not be zero\nhint: use a positive stride, or stride=None for the kernel size")
    return stride


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    if _is_integer_tensor(input):
        return _integer_max_pool2d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)
    return _C._max_pool2d_with_indices(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def _is_integer_tensor(t):
    return isinstance(t, _C.Tensor) and not (t.is_floating_point() or t.is_complex() or t.dtype == tandem.bool)


def _integer_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode):
    """PyTorch pools integer images (uint8 masks and label maps) too; the core pools floats, so the windows' argmax
    comes from a float64 copy and the values are gathered from the input itself, exact for every integer (only
    int64 magnitudes past 2**53 could pick another of two values that round alike)."""
    from .._layouts import follow_input_layout
    _, indices = _C._max_pool2d_with_indices(input.to(tandem.float64), kernel_size, stride, padding, dilation,
                                             ceil_mode)
    values = input.flatten(-2).gather(-1, indices.flatten(-2)).view(indices.shape)
    return follow_input_layout(values, input), indices


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if divisor_override == 0:  # PyTorch's check, before tandem's refusal of the option
        raise RuntimeError("divisor must be not zero")
    if isinstance(input, _C.Tensor):
        _check_avg_pool2d_input(input)
        if not (input.is_floating_point() or input.dtype == tandem.int64):
            _check_pool_sizes(kernel_size, stride)  # PyTorch's shape checks come before its kernel's dtype refusal
    if isinstance(input, _C.Tensor) and input.dtype == tandem.int64:
        sums = avg_pool2d(input.to(tandem.float64), kernel_size, stride, padding, ceil_mode, True, 1)
        return _integer_average(sums, input, kernel_size, stride, padding, count_include_pad, divisor_override)
    if divisor_override is not None and input.dtype in (tandem.float16, tandem.bfloat16):  # one rounding, as PyTorch
        return avg_pool2d(input.float(), kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override).to(input.dtype)
    include_pad = count_include_pad or divisor_override is not None
    out = _C._avg_pool2d(input, kernel_size, _pool_stride(stride), padding, ceil_mode, include_pad)
    if divisor_override is None:
        return out
    # the core's averages times each window's padded size are the window sums, which the override divides
    return out * _window_sizes(input, out, kernel_size, stride, padding, True).to(out.dtype) / divisor_override


def _check_pool_sizes(kernel_size, stride):
    kh, kw = _pool_pair(kernel_size)
    sh, sw = _pool_pair(_pool_stride(stride) or kernel_size)  # no stride: the kernel's size
    if 0 in (sh, sw):
        raise RuntimeError("stride should not be zero")
    if isinstance(kh, int) and isinstance(kw, int) and (kh <= 0 or kw <= 0):
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")


def _check_avg_pool2d_input(input):
    """PyTorch's avg_pool2d shape checks, with its input's own size in the message (the core's is max_pool2d's)."""
    if input.dim() < 3:  # PyTorch reads the third dim from the end first
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(input.dim(), 1)}, "
                         f"{max(input.dim(), 1) - 1}], but got -3)")
    if input.dim() > 4 or 0 in input.shape[input.dim() - 3:]:
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(input.shape)}\nhint: avg_pool2d takes images as (C, H, W) or (N, C, H, W)")


def _window_sizes(input, out, kernel_size, stride, padding, include_pad):
    """(out_h, out_w): how many elements each 2-d pooling window divides by (PyTorch's pool_size rule)."""
    k = _pool_pair(kernel_size)
    s = _pool_pair(_pool_stride(stride) or kernel_size)
    p = _pool_pair(padding)
    counts = [_functional_pool._window_counts(input.size(i - 2), out.size(i - 2), k[i], s[i], p[i], include_pad,
                                              input.device) for i in range(2)]
    return counts[0].unsqueeze(1) * counts[1]


def _integer_average(sums, input, kernel_size, stride, padding, count_include_pad, divisor_override):
    """PyTorch's CPU averages int64 images in integers: each window's sum (exact from float64 below 2**53)
    divided by its count, truncated toward zero as C++ divides."""
    divisor = divisor_override if divisor_override is not None else _window_sizes(
        input, sums, kernel_size, stride, padding, count_include_pad)
    return tandem.div(sums.round().to(tandem.int64), divisor, rounding_mode="trunc")


def _pool_pair(value):
    """A 2-d pooling size as (h, w): an int, or a sequence of one or two ints."""
    if isinstance(value, (list, tuple)):
        return (value[0], value[0]) if len(value) == 1 else tuple(value)
    return (value, value)


def adaptive_avg_pool2d(input, output_size):
    if isinstance(output_size, (tuple, list)):
        output_size = tuple(_functional_pool._output_sizes(output_size, input, 2))
    if output_size in (1, (1, 1)):
        # PyTorch's own shortcut for the global average pool: a mean over the last two dims, whatever the rank
        # (a 2-D input works, a 1-D one is mean's dimension error), recorded as MeanBackward1.
        out = input.mean((-1, -2), keepdim=True)
        if input.dim() == 4 and not input.is_contiguous() and input.is_contiguous(memory_format=tandem.channels_last):
            n, c = input.shape[:2]
            out = out.as_strided((n, c, 1, 1), (c, 1, c, c))  # keeps channels last, as PyTorch's
        return out
    if input.dim() not in (3, 4):  # PyTorch's message (the core's names max_pool2d's condition)
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    return _C._adaptive_avg_pool2d(input, output_size)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    out, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, indices) if return_indices else out


def _reduce_dims(x, dims):
    return [d for d in range(x.dim()) if d not in dims]


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalises over every dim but the channel dim 1; in training the batch statistics are used and the
    running ones updated in place (with the unbiased variance, as PyTorch does). Three kernels (ops/batch_norm.h):
    per-channel statistics, one elementwise pass, and NativeBatchNormBackward0's sums and pass."""
    if _amp_active():  # one op outside PyTorch's autocast lists: its inner reductions keep the input dtype
        return _amp_run("none", batch_norm, input, running_mean, running_var, weight, bias, training, momentum, eps)
    _require_tensors("batch_norm", ("input", input))
    if training:
        size = list(input.shape)
        if not size:  # PyTorch's _verify_batch_size reads size[0] of a 0-d input
            raise IndexError("tuple index out of range")
        count = size[0]
        for s in size[2:]:
            count *= s
        if count == 1:  # PyTorch's check (an empty batch passes), in Python before the op's vmap rule
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
        _func_transforms.check_batch_norm_running_stats(running_mean, running_var)
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    _check_float_arguments("batch_norm", (("momentum", 7, momentum), ("eps", 8, eps)))
    if input.dim() >= 2 and input.numel() == 0 and all(
            t is None or isinstance(t, _C.Tensor) for t in (running_mean, running_var, weight, bias)):
        # PyTorch's _batch_norm_impl_index returns an empty batch before any other check: a copy of the input
        # (a view or an empty tensor would break the gradient chain) times weight[0] plus bias[0]
        out = input.clone()
        if weight is not None:
            out = out * weight.select(0, 0)  # C++ indexing: select()'s message for an empty weight
        return out + bias.select(0, 0) if bias is not None else out
    try:
        return _C._batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    except TypeError:
        # positions in torch.batch_norm(input, weight, bias, running_mean, running_var, ...), as PyTorch names them
        for label, position, t in (("weight", 2, weight), ("bias", 3, bias), ("running_mean", 4, running_mean),
                                   ("running_var", 5, running_var)):
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"batch_norm(): argument '{label}' (position {position}) must be Tensor, not "
                                f"{type(t).__name__}") from None
        raise
    except (RuntimeError, NotImplementedError, IndexError):
        _check_batch_norm_parameters(input, running_mean, running_var, weight, bias, training)
        raise


def _check_batch_norm_parameters(input, running_mean, running_var, weight, bias, training):
    """PyTorch's checks of the parameters, in its order, where the core refused the call: they come before the
    kernel's dtype refusal and before the core's own checks' order (a 0-d or 1-d input has 0 channels). A correct
    call pays nothing."""
    channels = input.size(1) if input.dim() >= 2 else 0
    for label, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                     ("bias", bias)):
        if isinstance(t, _C.Tensor) and t.numel() != channels:
            raise RuntimeError(f"{label} should contain {channels} elements not {t.numel()}") from None
        if t is None and not training and label.startswith("running_"):
            raise RuntimeError(f"{label} must be defined in evaluation mode") from None


def _check_float_arguments(name, arguments):
    """PyTorch's parser refusal of a float argument that is not a number ((label, position, value) each)."""
    for label, position, v in arguments:
        if not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
            raise TypeError(f"{name}(): argument '{label}' (position {position}) must be float, not "
                            f"{type(v).__name__}")


def _call_layer_norm(fn, name, input, normalized_shape, weight, bias, eps):
    """fn(input, normalized_shape as a tuple, weight, bias, eps) (a _C layer_norm binding). When the binding
    refuses an argument's type, PyTorch's TypeError names it: checked only then, so a correct call pays nothing."""
    try:
        return fn(input, tuple(normalized_shape), weight, bias, eps)
    except TypeError:
        _require_tensors(name, ("input", input))
        if not isinstance(normalized_shape, (list, tuple)):  # PyTorch takes no bare int here (nn.LayerNorm does)
            raise TypeError(f"{name}(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                            f"{type(normalized_shape).__name__}") from None
        _ints(normalized_shape, f"{name}(): argument 'normalized_shape' (position 2)")
        for label, position, t in (("weight", 3, weight), ("bias", 4, bias)):
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not "
                                f"{_tp_name(t)}") from None  # PyTorch prints tp_name: numpy.ndarray
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real):
            raise TypeError(f"{name}(): argument 'eps' (position 5) must be float, not {type(eps).__name__}") from None
        raise


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """One kernel forward and one backward (NativeLayerNormBackward0): statistics in float for 16-bit inputs,
    PyTorch's checks and messages (ops/norm.cpp)."""
    if _amp_active():  # PyTorch's autocast list: cuda fp32
        return _amp_run("cuda_fp32", layer_norm, input, normalized_shape, weight, bias, eps)
    if _layer_norm_is_mixed(input, weight, bias):
        # A 16-bit input with float32 weight and bias (mixed precision): PyTorch's kernel computes in float32 with
        # the float32 parameters and rounds the output once; so does this (the conversions are differentiable: the
        # input's gradient comes back in its dtype, the parameters' in float32).
        out = _call_layer_norm(_C._layer_norm, "layer_norm", input.float(), normalized_shape, weight, bias, eps)
        return out.to(input.dtype)
    return _call_layer_norm(_C._layer_norm, "layer_norm", input, normalized_shape, weight, bias, eps)


def _layer_norm_is_mixed(input, weight, bias):
    """PyTorch's CPU dtype rule for layer_norm's parameters: the first one given decides. Of the input's dtype,
    every other must be too ("expected scalar type Float but found Double"); of another dtype (mixed), all must be
    float32 and the input 16-bit. True for an accepted mixed call."""
    params = [t for t in (weight, bias) if isinstance(t, _C.Tensor)]
    if not isinstance(input, _C.Tensor) or not params:
        return False
    if params[0].dtype == input.dtype:
        for t in params[1:]:
            if t.dtype != input.dtype:
                raise RuntimeError(f"expected scalar type {input.dtype._scalar_type_name} but found "
                                   f"{t.dtype._scalar_type_name}")
        return False
    if any(t.dtype != tandem.float32 for t in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in (tandem.float16, tandem.bfloat16):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return True


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` picked by the integer ``input`` (any shape), as PyTorch: positions holding
    ``padding_idx`` pass no gradient to their row; ``max_norm`` first rescales, in place and outside autograd, the
    referenced rows whose ``norm_type``-norm exceeds it; ``scale_grad_by_freq`` divides each row's gradient by
    how often the batch uses it. ``sparse`` is accepted and gives the same dense gradient (no op produces a
    sparse COO gradient for a dense parameter yet); with ``scale_grad_by_freq`` too the backward refuses, as
    PyTorch's sparse backward does."""
    if max_norm is None:  # torch.embedding's parser (with max_norm PyTorch first calls input.contiguous())
        if padding_idx is None:
            _require_tensor("embedding", "weight", weight, 1)
        elif isinstance(weight, _C.Tensor) and not -weight.size(0) <= padding_idx < weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")  # F.embedding asserts before it
        _require_tensor("embedding", "indices", input, 2)  # NumPy indices: PyTorch's TypeError
    if weight.dim() != 2:  # PyTorch's check (weight.size(1) below would raise an IndexError instead)
        raise RuntimeError("'weight' must be 2-D")
    if input.dtype not in (tandem.int64, tandem.int32):
        # PyTorch names a bool tensor by its legacy backend type, any other by its tensor type; with max_norm its
        # embedding_renorm_ runs (and checks) first, where the indices are argument #2
        got = f"{'CUDA' if input.is_cuda else 'CPU'}BoolType" if input.dtype == tandem.bool else input.type()
        where = "#1 'indices'" if max_norm is None else "#2 'indices'"
        op = "embedding" if max_norm is None else "embedding_renorm_"
        raise RuntimeError(f"Expected tensor for argument {where} to have one of the following scalar types: "
                           f"Long, Int; but got {got} instead (while checking arguments for {op})\n"
                           f"hint: indices are integers, e.g. indices.long()")
    if padding_idx is not None:
        if not -weight.size(0) <= padding_idx < weight.size(0):
            raise AssertionError("Padding_idx must be within num_embeddings")
        # PyTorch's argument parser, after its range assert (a bool is not an int there)
        if isinstance(padding_idx, bool) or not hasattr(padding_idx, "__index__"):
            raise TypeError(f"embedding(): argument 'padding_idx' (position 3) must be int, not "
                            f"{type(padding_idx).__name__}")
        padding_idx %= weight.size(0)
    _refuse_complex_autograd("embedding", weight)
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    if sparse and weight.requires_grad and tandem.is_grad_enabled():
        out = gather_rows(weight, input.reshape(-1), padding_idx).reshape(list(input.shape) + [weight.size(1)])
    else:
        out = tandem.index_select(weight, 0, input.reshape(-1)).reshape(list(input.shape) + [weight.size(1)])
    if not out.requires_grad:
        return out
    if sparse and scale_grad_by_freq:  # PyTorch's sparse backward refuses it when the gradient is computed
        out.register_hook(_refuse_sparse_scaled_grad)
    if scale_grad_by_freq:
        uses = tandem.bincount(input.reshape(-1), minlength=weight.size(0))
        scale = (1.0 / uses.index_select(0, input.reshape(-1)).to(out.dtype)).reshape(list(input.shape) + [1])
        out = out.detach() + (out - out.detach()) * scale  # the same values; gradients divided by the counts
    if padding_idx is not None:
        keep = (input != padding_idx).unsqueeze(-1)
        out = tandem.where(keep, out, out.detach())
    return out


def _refuse_sparse_scaled_grad(grad):
    raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with sparse gradients")


def embedding_renorm_(weight, input, max_norm, norm_type=2.0):
    """Rescales the rows of ``weight`` that ``input`` uses whose ``norm_type``-norm exceeds ``max_norm`` to
    max_norm / (norm + 1e-7) of their length, in place and outside autograd (PyTorch's embedding_renorm_)."""
    if not (weight.is_floating_point() or weight.is_complex()):  # PyTorch's norm of each row refuses it
        raise NotImplementedError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{weight.dtype._scalar_type_name} instead.")
    with tandem.no_grad():
        rows = tandem.unique(input.reshape(-1))  # sorted, as PyTorch's CPU loop visits them
        if rows.device.type == "cpu" and rows.numel():  # on the CPU only, as PyTorch (a device assert on CUDA)
            low, high = (int(v) for v in rows[[0, -1]].tolist())
            bad = low if low < -weight.size(0) else high if high >= weight.size(0) else None
            if bad is not None:  # PyTorch's loop selects each row (a negative index counts from the end)
                raise IndexError(f"select(): index {bad} out of range for tensor of size {list(weight.shape)} at "
                                 "dimension 0")
        rows = rows % weight.size(0)
        picked = untracked(weight).index_select(0, rows)
        norms = tandem.linalg.vector_norm(picked, norm_type, dim=1, keepdim=True)
        scale = tandem.where(norms > max_norm, max_norm / (norms + 1e-7), tandem.ones_like(norms))
        untracked(weight).index_copy_(0, rows, picked * scale)
    return weight


def one_hot(tensor, *positional, num_classes=-1):
    """int64 one-hot rows, as PyTorch: class values must lie in [0, num_classes). num_classes is taken by position
    or by name; PyTorch's TypeError for one that is not an int names its position only when it was given so."""
    where = ""
    if positional:
        if len(positional) > 1:
            raise TypeError(f"one_hot() takes from 1 to 2 positional arguments but {len(positional) + 1} were given")
        num_classes, where = positional[0], " (position 2)"
    # the parser reads the input first: a NumPy array or a list is PyTorch's TypeError, not a dtype RuntimeError
    _require_tensor("one_hot", "input", tensor, 1)
    # NumPy integers pass; an ndarray (even a 0-d one, which has __index__) is refused as PyTorch's parser does
    if isinstance(num_classes, bool) or not hasattr(type(num_classes), "__index__") or \
            _tp_name(num_classes) == "numpy.ndarray":
        raise TypeError(f"one_hot(): argument 'num_classes'{where} must be int, not {_tp_name(num_classes)}")
    num_classes = operator.index(num_classes)
    if tensor.dtype != tandem.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.\nhint: convert the "
                           "class indices with .long()")
    if num_classes == -1 and tensor.is_meta:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors\nhint: one_hot of a meta tensor cannot "
                           "infer the number of classes from its values; pass num_classes")
    if num_classes == -1 and tensor.numel() == 0:
        raise RuntimeError("Can not infer total number of classes from empty tensor.\nhint: pass num_classes")
    if tensor.numel() and (num_classes == -1 or tensor.device.type == "cpu"):
        # One read of both bounds (on a device only when num_classes has to be inferred anyway).
        with _crossing("F.one_hot"):  # a device read the caller did not name (implicit for transfer_guard)
            low, high = (int(v) for v in tandem.stack([tensor.min(), tensor.max()]).tolist())
        if low < 0:
            raise RuntimeError("Class values must be non-negative.")
        if num_classes == -1:
            num_classes = high + 1
        elif high >= num_classes:
            raise RuntimeError(f"Class values must be smaller than num_classes.\nhint: the largest class value is "
                               f"{high}, so num_classes must be at least {high + 1}")
    if num_classes < 0 or (num_classes == 0 and tensor.numel()):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return tandem.zeros(list(tensor.shape) + [num_classes], dtype=tandem.int64, device=tensor.device).scatter_(
        -1, tensor.unsqueeze(-1), 1
    )


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _class_weight_shape(input):
    return [1, input.size(1)] + [1] * (input.dim() - 2)


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's deprecated size_average/reduce pair: when either is given it overrides reduction (with a warning)."""
    if size_average is None and reduce is None:
        return reduction
    reduction = _reduction.legacy_get_string(size_average, reduce, emit_warning=False)
    warnings.warn(_reduction._legacy_warning(reduction), stacklevel=3)
    return reduction


def _check_optional_tensor(value, fn, name, position):
    """PyTorch's TypeError for a weight that is not a tensor (a Python or NumPy number would otherwise broadcast
    silently where PyTorch's argument parser refuses it)."""
    if value is not None:
        _require_tensor(fn, name, value, position)  # tp_name: numpy.ndarray, a user's class bare


def _check_class_weight(weight, input, prefix=""):
    num_classes = input.size(1 if input.dim() >= 2 else 0)
    if weight is not None and (weight.dim() != 1 or weight.numel() != num_classes):
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {num_classes} classes or no "
                           f"classes but got weight tensor of shape: {list(weight.shape)}")


def _check_targets(target, classes):
    """PyTorch's IndexError for a class index out of range. On the CPU only, as PyTorch (which asserts on the
    device): on a GPU the check would cost a synchronisation per loss, and gather's own check still raises."""
    if target.device.type != "cpu" or target.numel() == 0:
        return
    bad = (target < 0) | (target >= classes)
    if bad.any():
        raise IndexError(f"Target {int(target[bad][0])} is out of bounds.")


def _check_class_target(input, target):
    """PyTorch's checks of class-index targets against an (N, C, *) input: the shape, then the dtype."""
    if input.dim() == 2 and target.dim() != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.dim() == 4 and target.dim() != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.dim()}")
    expected = [input.size(0)] + list(input.shape[2:])
    if list(target.shape) != expected:
        if input.dim() == 4:  # PyTorch's 2-d kernel words it so (its parenthesis unclosed)
            raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: {list(target.shape)}")
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
    if target.dtype not in (tandem.int64, tandem.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype._scalar_type_name}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-input[n, target[n]] (times the class weight), averaged over the weights of the kept targets."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", nll_loss, input, target, weight, size_average, ignore_index, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    # PyTorch's parser, after the reduction's check: NumPy arrays (or lists) are a TypeError, not an AttributeError
    _require_tensor("nll_loss_nd", "input", input, 1)
    _require_tensor("nll_loss_nd", "target", target, 2)
    _check_optional_tensor(weight, "nll_loss_nd", "weight", 3)
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    _check_class_weight(weight, input)
    batched = input.dim() >= 2
    if not batched:
        if target.dim() == 1:  # PyTorch takes a 1-element 1-D target for a 1-D input
            if target.numel() != 1:
                raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.numel()}")
            target = target.reshape(())
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    target_batch = target.shape[0] if target.dim() > 0 else 0  # PyTorch counts a 0-dim target as batch 0
    if target_batch != input.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target_batch}).")
    _check_class_target(input, target)
    if weight is not None and weight.dtype != input.dtype:  # PyTorch's kernel reads both as one type
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_type_name} but found "
                           f"{weight.dtype._scalar_type_name}")
    keep = target != ignore_index
    safe_target = tandem.where(keep, target, 0).long()  # uint8 targets too (gather takes int64 indices)
    _check_targets(safe_target, input.shape[1])
    picked = -tandem.gather(input, 1, safe_target.unsqueeze(1)).squeeze(1)
    w = keep.to(input.dtype)
    if weight is not None:
        w = w * tandem.index_select(weight, 0, safe_target.reshape(-1)).reshape(safe_target.shape)
    # Ignored targets as PyTorch's kernel leaves them: a 0 loss and a 0 gradient, even where the mean divides by a
    # total weight of 0 (all ignored): masked_fill's gradient there is 0, where w * (1 / 0) would be NaN.
    loss = (picked * w).masked_fill(~keep, 0.0)
    if reduction == "none":
        return loss if batched else loss.squeeze(0)
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over dim 1, then nll_loss; class-probability targets and label smoothing as in PyTorch."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", cross_entropy, input, target, weight, size_average, ignore_index, reduce, reduction,
                        label_smoothing)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    # PyTorch's parser, after the reduction's check: NumPy arrays (or lists) are a TypeError, not an AttributeError
    _require_tensor("cross_entropy_loss", "input", input, 1)
    _require_tensor("cross_entropy_loss", "target", target, 2)
    _check_optional_tensor(weight, "cross_entropy_loss", "weight", 3)
    if label_smoothing > 1.0:  # PyTorch checks only past 1: a negative smoothing is no smoothing
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    label_smoothing = label_smoothing if label_smoothing > 0.0 else 0.0  # NaN too: PyTorch smooths only if > 0
    class_dim = 1 if input.dim() >= 2 else 0
    # As PyTorch: a target of the input's shape holds class probabilities, any other class indices.
    probabilities = tuple(target.shape) == tuple(input.shape)
    if probabilities and not (target.is_floating_point() or target.is_complex()):
        raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                           f"{target.dtype._scalar_type_name}")
    if probabilities and ignore_index >= 0:  # PyTorch's check: a probability target has no class to ignore
        raise RuntimeError("ignore_index is not supported for floating point target")
    _check_class_weight(weight, input, "cross_entropy: " if probabilities else "")
    logp = log_softmax(input, class_dim)
    num_classes = input.size(class_dim)
    if probabilities:
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / num_classes
        per_class = logp * target
        if weight is not None:
            per_class = per_class * (weight.reshape(_class_weight_shape(input)) if class_dim else weight)
        loss = -per_class.sum(class_dim)
        if reduction == "mean":  # PyTorch divides by the number of samples (batch times spatial positions)
            return loss.sum() / (input.numel() // num_classes)
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0.0:
        return nll
    if class_dim == 0:
        logp, target = logp.unsqueeze(0), target.unsqueeze(0)
    keep = target != ignore_index
    per_class = logp if weight is None else logp * weight.reshape(_class_weight_shape(logp))
    smooth = (-per_class.sum(1)).masked_fill(~keep, 0.0)  # as PyTorch's masked_fill_: ignored rows add nothing
    if reduction == "none":
        smooth = smooth if class_dim else smooth.squeeze(0)
    elif reduction == "sum":
        smooth = smooth.sum()
    elif weight is None:
        smooth = smooth.sum() / keep.sum()
    else:
        safe_target = tandem.where(keep, target, 0)
        picked_w = tandem.gather(weight, 0, safe_target.reshape(-1)).reshape(safe_target.shape)  # PyTorch's op
        smooth = smooth.sum() / (picked_w * keep.to(logp.dtype)).sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / num_classes)


def _check_same_size(input, target):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) "
            "is deprecated. Please ensure they have the same size."
        )


def _weighted_reduce(loss, weight, reduction, input):
    """mse_loss/l1_loss with weight=: one weight per element of the input; 'mean' is the weighted mean,
    sum(weight * loss) / sum(weight), as PyTorch (not the plain mean of the weighted losses)."""
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", mse_loss, input, target, size_average, reduce, reduction, weight)
    _functional_losses._warn_if_sizes_differ(input, target)  # PyTorch's broadcasting warning (the forums' bug)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:  # PyTorch's Python branch: its own checks and messages
        return _weighted_reduce((input - target).pow(2), weight, reduction, input)
    _check_reduction(reduction)
    diff = input - target
    if not diff.is_floating_point():  # PyTorch's kernel takes the promoted dtype, real floating only
        raise NotImplementedError(f'"mse_{diff.device.type}" not implemented for \'{diff.dtype._scalar_type_name}\'\n'
                                  f"hint: compare floating-point tensors, e.g. input.float()")
    return _reduce(diff * diff, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", l1_loss, input, target, size_average, reduce, reduction, weight)
    _functional_losses._warn_if_sizes_differ(input, target)  # PyTorch's broadcasting warning (the forums' bug)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:  # PyTorch's Python branch: its own checks and messages
        return _weighted_reduce(tandem.abs(input - target), weight, reduction, input)
    _check_reduction(reduction)
    return _reduce(tandem.abs(input - target), reduction)


def _check_probabilities(input, target):
    """PyTorch's checks that binary_cross_entropy's input and target are probabilities (NaN is not), made element
    by element in order, the input's before the target's, so the first offending element names the tensor. On the
    CPU only, as PyTorch (which asserts on the device): on a GPU the check would cost a synchronisation per loss."""
    if input.device.type != "cpu" or not input.numel():
        return
    bad_input = ~((input >= 0) & (input <= 1))
    bad = bad_input | ~((target >= 0) & (target <= 1))
    if bad.any():
        first = bad.reshape(-1).nonzero()[0, 0]
        which = "input" if bad_input.reshape(-1)[first] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as PyTorch does."""
    if _amp_active():  # PyTorch's autocast list: bce
        return _amp_run("bce", binary_cross_entropy, input, target, weight, size_average, reduce, reduction)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_same_size(input, target)
    if target.dtype != input.dtype:  # PyTorch's kernel takes one dtype; it does not promote
        raise RuntimeError(f"Found dtype {target.dtype._scalar_type_name} but expected "
                           f"{input.dtype._scalar_type_name}\nhint: give the target the input's dtype, e.g. "
                           "target.to(input.dtype)")
    if not input.is_floating_point():  # PyTorch's kernel: floating types only
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{input.dtype._scalar_type_name}'")
    _check_probabilities(input, target)
    if weight is not None:
        # As PyTorch's: the weight expands to its broadcast with the target (torch._C._infer_size's message), and
        # the kernel writes the weighted loss into a tensor of the input's shape, which cannot grow.
        shape = tandem.broadcast_shapes(target.size(), weight.size())  # weight.size() first: a float's error
        weight = weight.expand(shape)
        _check_in_place_broadcast(input, weight)
    return _reduce(_BinaryCrossEntropy.apply(input, target, weight), reduction)


_BCE_EPSILON = 9.999999960041972e-13  # PyTorch's EPSILON, the float32 nearest 1e-12 (also for float64 inputs)


class _BinaryCrossEntropy(tandem.autograd.Function):
    """The elementwise loss (t - 1) max(log1p(-x), -100) - t max(log x, -100) (PyTorch's kernel, term for term,
    so a small x keeps its log1p digits and a perfect prediction gives PyTorch's signed zeros), with PyTorch's
    gradients: (x - t) / max(x (1 - x), 1e-12) for the input, which stays finite where the prediction saturates
    at 0 or 1 (the chain rule through the clamped logs gives 0 * inf = NaN there), and -logit(x) for the target."""

    @staticmethod
    def forward(ctx, input, target, weight):
        loss = ((target - 1) * tandem.clamp(tandem.log1p(-input), min=-100)
                - target * tandem.clamp(tandem.log(input), min=-100))
        if weight is not None:
            loss = (loss * weight).to(input.dtype)  # PyTorch multiplies in place: the loss keeps the input's dtype
        ctx.save_for_backward(input, target, weight)
        return loss

    @staticmethod
    def backward(ctx, grad):
        input, target, weight = ctx.saved_tensors
        if weight is not None:
            grad = (grad * weight).to(input.dtype)
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * (input - target) / tandem.clamp((1 - input) * input, min=_BCE_EPSILON)
        if ctx.needs_input_grad[1]:
            grad_target = grad * -tandem.logit(input)
        return grad_input, grad_target, None


def _check_in_place_broadcast(result, other):
    """The error of PyTorch's kernels that multiply `other` into a result of `result`'s shape in place (mul_):
    shapes that do not broadcast, or a broadcast that would grow the result. Checked on meta tensors (no data)."""
    tandem.empty(result.shape, device="meta").mul_(tandem.empty(other.shape, device="meta"))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """The stable form (1 - t) x + (1 + (pw - 1) t) softplus(-x)."""
    if _amp_active():  # PyTorch's autocast list: fp32
        return _amp_run("fp32", binary_cross_entropy_with_logits, input, target, weight, size_average, reduce,
                        reduction, pos_weight)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    _check_optional_tensor(weight, "binary_cross_entropy_with_logits", "weight", 3)
    _check_optional_tensor(pos_weight, "binary_cross_entropy_with_logits", "pos_weight", 4)
    # PyTorch's kernel, step by step: log_sigmoid(input) (floating inputs only), times (pos_weight - 1) target + 1
    # in place, then (1 - target) * input in place, times weight in place: none of the in-place steps may grow.
    if not input.is_floating_point():
        raise NotImplementedError(f"\"log_sigmoid_{input.device.type}\" not implemented for "
                                  f"'{input.dtype._scalar_type_name}'\nhint: give floating-point logits, e.g. "
                                  "input.float()")
    if pos_weight is not None:
        log_weight = tandem.empty(pos_weight.shape, device="meta").mul(tandem.empty(target.shape, device="meta"))
        _check_in_place_broadcast(input, log_weight)
    # PyTorch's loss starts as (1 - target) and takes the other terms in place, so it has the target's dtype
    # (float64 logits with a float32 target give a float32 loss), and an integer target cannot hold it.
    one_minus_target = 1 - target
    if not (one_minus_target.is_floating_point() or one_minus_target.is_complex()):
        raise RuntimeError(f"result type {tandem.result_type(one_minus_target, input)._scalar_type_name} can't be cast "
                           f"to the desired output type {one_minus_target.dtype._scalar_type_name}\n"
                           f"hint: give a floating-point target, e.g. target.float()")
    # softplus(-x) = log(1 + e^-x) as -log_sigmoid(x), PyTorch's term: stable, smooth at x = 0 (the split form
    # max(-x, 0) + log1p(e^-|x|) has kinks there whose subgradients gave -t instead of 1/2 - t), and its second
    # derivative stays finite for large |x| (logaddexp(-x, 0)'s was NaN past |x| ~ 89 in float32: AdaHessian).
    softplus_neg = -logsigmoid(input)
    if pos_weight is not None:
        loss = one_minus_target * input + (1 + (pos_weight - 1) * target) * softplus_neg
    else:
        loss = one_minus_target * input + softplus_neg
    if weight is not None:
        _check_in_place_broadcast(loss, weight)
        loss = loss * weight
    return _reduce(loss.to(one_minus_target.dtype), reduction)


# Further functions, one file per family (each with its own __all__).
from . import _functional_losses, _functional_layers, _functional_attention, _functional_conv  # noqa: E402
from . import _functional_pool, _functional_interpolate  # noqa: E402
from ._functional_losses import *  # noqa: F401,F403,E402
from ._functional_layers import *  # noqa: F401,F403,E402
from ._functional_attention import *  # noqa: F401,F403,E402
from ._functional_conv import *  # noqa: F401,F403,E402  (its conv2d adds padding="same"/"valid")
from ._functional_pool import *  # noqa: F401,F403,E402
from ._functional_interpolate import *  # noqa: F401,F403,E402

__all__ = list(dict.fromkeys(__all__ + _functional_losses.__all__ + _functional_layers.__all__
                             + _functional_attention.__all__ + _functional_conv.__all__ + _functional_pool.__all__
                             + _functional_interpolate.__all__))

from . import _functional_grid, _functional_breadth, _functional_fractional  # noqa: E402
from ._functional_grid import *  # noqa: F401,F403,E402
from ._functional_breadth import *  # noqa: F401,F403,E402
from ._functional_fractional import *  # noqa: F401,F403,E402

__all__ = list(dict.fromkeys(__all__ + _functional_grid.__all__ + _functional_breadth.__all__
                             + _functional_fractional.__all__))

from . import _functional_linear_ce  # noqa: E402
from ._functional_linear_ce import linear_cross_entropy  # noqa: E402,F401

__all__ = list(dict.fromkeys(__all__ + _functional_linear_ce.__all__))

from . import _functional_grouped_mm  # noqa: E402
from ._functional_grouped_mm import grouped_mm  # noqa: E402,F401

__all__ = list(dict.fromkeys(__all__ + _functional_grouped_mm.__all__))

from . import grad  # noqa: E402,F401  (F.grad is torch.nn.grad, as in PyTorch)

# Names PyTorch's nn.functional carries from its own imports and that code reaches through F (F.Tensor in type
# hints, F.has_torch_function in __torch_function__-aware helpers, grid_sample's mode tables).
from .._C import Tensor  # noqa: E402,F401
from ..overrides import (handle_torch_function, has_torch_function, has_torch_function_unary,  # noqa: E402,F401
                         has_torch_function_variadic)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}
from .._torch_functional_forms import conv_tbc  # noqa: E402,F401  (F.conv_tbc is torch.conv_tbc)

# Private helpers PyTorch's nn.functional carries, which code copied from PyTorch's own layers calls (a forked
# TransformerEncoderLayer's F._canonical_mask/_none_or_dtype, a custom BatchNorm's F._verify_batch_size, a custom
# conv's F._pair): the functions tandem's layers use. Plain functions, as in PyTorch (wrap_functional skips "_").
from ._functional_attention import (_canonical_mask, _in_projection, _in_projection_packed,  # noqa: E402,F401
                                    _mha_shape_check, _none_or_dtype)
from ._functional_layers import _verify_batch_size, _verify_spatial_size  # noqa: E402,F401
from .modules.utils import _pair, _single, _triple  # noqa: E402,F401
_get_softmax_dim = _softmax_dim

from .._builtin_functions import wrap_functional  # noqa: E402
wrap_functional(globals())  # last: the functions dispatch to __torch_function__ (docs/compat.md)
