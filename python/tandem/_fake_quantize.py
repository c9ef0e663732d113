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
    axis = _wrap_dim(axis, input.dim())
    if scale.numel() != input.shape[axis]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    _check_range(quant_min, quant_max)
    float_zero_point = zero_point.is_floating_point()
    if not float_zero_point and zero_point.numel() and \
            not (quant_min <= int(zero_point.min()) and int(zero_point.max()) <= quant_max):
        raise RuntimeError(_ZERO_POINT_MESSAGE)
    _check_floating_input(input, "fake_quantize_channel_cachemask_cpu_type_handling")
    shape = [1] * input.dim()
    shape[axis] = -1
    scale_t = scale.detach().to(device=input.device, dtype=tandem.float32).reshape(shape)
    zero_t = zero_point.detach().to(device=input.device, dtype=tandem.float32).reshape(shape)
    return _FakeQuantize.apply(input, scale_t, zero_t, quant_min, quant_max, float_zero_point)

