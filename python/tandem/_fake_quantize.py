"""torch.fake_quantize_per_tensor_affine and torch.fake_quantize_per_channel_affine: round to an integer grid,
clamp to [quant_min, quant_max] and map back, with the straight-through gradient of quantisation-aware training
(the incoming gradient where the rounded value fell inside the range, zero where it was clamped).

Written with tandem's ops. Numbers follow PyTorch's CPU kernels: the input is multiplied by the float32 reciprocal
of the scale (not divided by the scale), rounded half to even, and half-precision inputs are computed in float32;
an integer zero point is added after rounding, a floating one before (and the value mapped back in float64). A NaN input lands on quant_min, as it does
in PyTorch's kernel (its NaN becomes the smallest int64 before the clamp). There are no quantized tensors: these
functions return ordinary floating tensors, as PyTorch's do."""
import numbers

import tandem

from ._dim_args import _wrap_dim
from .autograd.function import Function

_RANGE_MESSAGE = "`quant_min` should be less than or         equal to `quant_max`."  # PyTorch's, spaces included
_ZERO_POINT_MESSAGE = "`zero_point` must be between `quant_min` and `quant_max`."


class _FakeQuantize(Function):
    """Forward: the fake-quantised values; backward: the gradient masked to the values that were not clamped.
    `scale` and `zero_point` arrive already shaped to broadcast against the input and carry no gradient."""

    @staticmethod
    def forward(ctx, input, scale, zero_point, quant_min, quant_max, float_zero_point):
        compute = tandem.float64 if input.dtype == tandem.float64 else tandem.float32
        x = input.to(compute)
        inverse = (1.0 / scale).to(compute)  # PyTorch's kernels multiply by the float32 reciprocal
        zero_point = zero_point.to(compute)
        if float_zero_point:
            q = tandem.round(x * inverse + zero_point)
        else:
            q = tandem.round(x * inverse) + zero_point
        q = tandem.nan_to_num(q, nan=float(quant_min))
        inside = (q >= quant_min) & (q <= quant_max) & ~tandem.isnan(x)
        ctx.save_for_backward(inside)
        q = q.clamp(quant_min, quant_max)
        if float_zero_point:  # PyTorch's kernel maps back in double here (its clamp mixes int64 bounds in)
            return ((q.double() - zero_point.double()) * scale.double()).to(input.dtype)
        return ((q - zero_point) * scale.to(compute)).to(input.dtype)

    @staticmethod
    def backward(ctx, grad):
        inside, = ctx.saved_tensors
        return grad * inside.to(grad.dtype), None, None, None, None, None


def _check_floating_input(input, kernel):
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype._scalar_type_name}\'')


def _check_not_requiring_grad(tensor, function, argument):
    if tensor.requires_grad:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument '{argument}'. "
                           "This input cannot have requires_grad True.")


def _check_range(quant_min, quant_max):
    if quant_min > quant_max:
        raise RuntimeError(_RANGE_MESSAGE)


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):
    """One scale and zero point for the whole tensor: numbers (float, int), or one-element tensors (the zero point
    read as an integer, a fractional one truncated as PyTorch's kernel does)."""
    if isinstance(scale, tandem.Tensor) != isinstance(zero_point, tandem.Tensor) or \
            not isinstance(quant_min, numbers.Integral) or not isinstance(quant_max, numbers.Integral) or \
            (not isinstance(scale, tandem.Tensor) and not (isinstance(scale, numbers.Real)
                                                            and isinstance(zero_point, numbers.Integral))):
        raise TypeError(
            "fake_quantize_per_tensor_affine() received an invalid combination of arguments, but expected one of:\n"
            " * (Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max)\n"
            " * (Tensor input, float scale, int zero_point, int quant_min, int quant_max)")
    if isinstance(scale, tandem.Tensor):
        _check_not_requiring_grad(scale, "_fake_quantize_per_tensor_affine_cachemask_tensor_qparams", "scale")
        scale, zero_point = scale.item(), int(zero_point.item())
    _check_range(quant_min, quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError(_ZERO_POINT_MESSAGE)
    _check_floating_input(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
    scale_t = tandem.tensor(float(scale), dtype=tandem.float32, device=input.device)
    zero_t = tandem.tensor(zero_point, dtype=tandem.float32, device=input.device)
    return _FakeQuantize.apply(input, scale_t, zero_t, quant_min, quant_max, False)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):
    """A scale and zero point per slice along `axis`: `scale` a 1-D float32 (or bfloat16) tensor, `zero_point` a
    1-D int32 tensor (added after rounding, checked against the range) or a float32/float16 one (added before
    rounding, not checked), both as long as input.shape[axis]."""
    for name, value in (("scale", scale), ("zero_point", zero_point)):
        if not isinstance(value, tandem.Tensor):
            raise TypeError(f"fake_quantize_per_channel_affine(): argument '{name}' (position "
                            f"{2 if name == 'scale' else 3}) must be Tensor, not {type(value).__name__}")
    _check_not_requiring_grad(scale, "fake_quantize_per_channel_affine_cachemask", "scale")
    if scale.dtype not in (tandem.float32, tandem.bfloat16):
        raise RuntimeError(f"Scale must be Float or BFloat16, found {scale.dtype._scalar_type_name}")
    if zero_point.dtype not in (tandem.int32, tandem.float32, tandem.float16):
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {zero_point.dtype._scalar_type_name}")
    if scale.dim() != 1:
        raise RuntimeError("scale should be a 1-D tensor")
    if zero_point.dim() != 1:
        raise RuntimeError("zero point should be a 1-D tensor")
    if scale.numel() != zero_point.numel():
        raise RuntimeError("scale and zero-point need to have the same dimensions")
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {axis} but tensor has no dimensions")
    if scale.numel() != input.shape[_wrap_dim(axis, input.dim())]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    _check_range(quant_min, quant_max)
    float_zero_point = zero_point.is_floating_point()
    if not float_zero_point and zero_point.numel() and \
            not (quant_min <= int(zero_point.min()) and int(zero_point.max()) <= quant_max):
        raise RuntimeError(_ZERO_POINT_MESSAGE)
    if axis < 0 or axis > input.dim():  # PyTorch's check: a negative axis is refused (after the size lookup)
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    _check_floating_input(input, "fake_quantize_channel_cachemask_cpu_type_handling")
    shape = [1] * input.dim()
    shape[axis] = -1
    scale_t = scale.detach().to(device=input.device, dtype=tandem.float32).reshape(shape)
    zero_t = zero_point.detach().to(device=input.device, dtype=tandem.float32).reshape(shape)
    return _FakeQuantize.apply(input, scale_t, zero_t, quant_min, quant_max, float_zero_point)



# ---- learnable scale and zero point (LSQ: torch.ao.quantization's _LearnableFakeQuantize calls these) -------------
class _LearnableFakeQuantize(Function):
    """Forward: fake quantisation with the zero point rounded and clamped into the range (as PyTorch's forward
    reads it). Backward: PyTorch's learnable-quantiser gradients, elementwise in float32 and then summed per
    scale: the input's gradient passes where the rounded value fell inside the range; the scale's is
    (x_fq - x) / scale inside and quant_min - zp or quant_max - zp outside; the zero point's is -scale outside
    and 0 inside; both times grad_factor. `axis` None is the per-tensor form."""

    @staticmethod
    def forward(ctx, input, scale, zero_point, axis, quant_min, quant_max, grad_factor):
        ctx.save_for_backward(input, scale, zero_point)
        ctx.axis, ctx.quant_min, ctx.quant_max, ctx.grad_factor = axis, quant_min, quant_max, grad_factor
        if axis is None:
            zp = _rounded_zero_point(zero_point.reshape(-1)[:1], quant_min, quant_max, forward=True)
            return fake_quantize_per_tensor_affine(input.detach(), float(scale.float()[0]), int(zp), quant_min,
                                                   quant_max)
        rounded = zero_point.detach().round().clamp(quant_min, quant_max).to(tandem.int32)
        return fake_quantize_per_channel_affine(input.detach(), scale.detach(), rounded, axis, quant_min, quant_max)

    @staticmethod
    def backward(ctx, grad):
        input, scale, zero_point = ctx.saved_tensors
        qmin, qmax, axis = ctx.quant_min, ctx.quant_max, ctx.axis
        for name, t in (("dY_", grad), ("X_", input), ("scale_", scale), ("zero_point_", zero_point)):
            if t.dtype != tandem.float32:  # PyTorch's backward kernels are float32 only
                raise RuntimeError(f"Expected {name}.scalar_type() == ScalarType::Float to be true, but got false.  "
                                   "(Could this error message be improved?  If so, please report an enhancement "
                                   "request to PyTorch.)")
        shape = [1] * input.dim()
        if axis is None:
            if not (qmin <= 0 <= qmax):
                raise RuntimeError(_RANGE_MESSAGE[:-1] + ", and the quantization range should include 0.")
            s = scale.reshape(-1)[:1].reshape(shape)
            zp = _rounded_zero_point(zero_point.reshape(-1)[:1], qmin, qmax, forward=False).reshape(shape)
            xq = zp + tandem.round(input * (1.0 / s))  # the float32 reciprocal, as the kernel multiplies by it
        else:
            if not (qmin <= 0 <= qmax):
                raise RuntimeError("Expecting `quant_min` <= 0 and `quant_max` >= 0")
            shape[axis] = -1
            s = scale.reshape(shape)
            zp = zero_point.round().clamp(qmin, qmax).reshape(shape)
            xq = tandem.round(zp + input * (1.0 / s))
        factor = tandem.tensor(ctx.grad_factor, dtype=tandem.float32, device=grad.device)  # the kernel's float
        inside = (xq >= qmin) & (xq <= qmax)
        x_fq = (xq.clamp(qmin, qmax) - zp) * s
        d_scale_inside = (x_fq - input) * (1.0 / s) * grad * factor
        d_scale_outside = tandem.where(xq < qmin, grad * (qmin - zp), grad * (qmax - zp)) * factor
        d_scale = tandem.where(inside, d_scale_inside, d_scale_outside)
        d_zero_point = tandem.where(inside, tandem.zeros_like(grad), grad * -1 * s * factor)
        if axis is None:
            d_scale, d_zero_point = d_scale.sum().reshape(1), d_zero_point.sum().reshape(1)
        else:
            others = [d for d in range(input.dim()) if d != axis]
            d_scale, d_zero_point = d_scale.sum(others), d_zero_point.sum(others)
        return grad * inside.to(grad.dtype), d_scale, d_zero_point, None, None, None, None


def _rounded_zero_point(zero_point, quant_min, quant_max, forward):
    """PyTorch's per-tensor zero point read as an integer (a float32 tensor): rounded to nearest even in the
    forward, plus a half and truncated in the backward, clamped into the range in both."""
    zp = zero_point.detach().float()
    zp = zp.round() if forward else zp + 0.5
    return zp.clamp(quant_min, quant_max).trunc()


def _fake_quantize_learnable_per_tensor_affine(input, scale, zero_point, quant_min, quant_max, grad_factor=1.0):
    """torch._fake_quantize_learnable_per_tensor_affine: `scale` and `zero_point` float tensors whose first
    element is read (so a 0-dim one raises PyTorch's IndexError), both learned through the backward above."""
    if scale.dim() == 0 or zero_point.dim() == 0:  # PyTorch reads scale[0] and zero_point[0]
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    _check_range(quant_min, quant_max)
    _check_floating_input(input, "fake_quantize_tensor_cachemask_kernel_type_handling")
    return _LearnableFakeQuantize.apply(input, scale, zero_point, None, quant_min, quant_max, float(grad_factor))


def _fake_quantize_learnable_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max,
                                                grad_factor=1.0):
    """torch._fake_quantize_learnable_per_channel_affine: one scale and one float zero point per slice along
    `axis` (the zero point rounded and clamped, then checked by fake_quantize_per_channel_affine in the forward)."""
    return _LearnableFakeQuantize.apply(input, scale, zero_point, axis, quant_min, quant_max, float(grad_factor))
