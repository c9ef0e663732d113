"""The arithmetic of dynamic quantization, as PyTorch's x86/fbgemm engine does it, so a quantized model's outputs
match PyTorch's to float rounding.

Weights are quantized once (``quantize_weight``): int8, symmetric (zero point 0), scale = max|w| / 127.5 per tensor
or per output row, values round(w / scale) clamped to [-128, 127]. Activations are quantized at every call
(``dynamic_linear``): the range [min(x, 0), max(x, 0)] of this input is mapped onto 0..127 (uint8 with
"reduce_range", which leaves fbgemm's 16-bit intermediate sums room), the zero point chosen and nudged as fbgemm
does. The integer product sum is exact here: a float32 matrix product while every partial sum stays below 2**24,
float64 beyond. The result is scale_x * scale_w * sum + bias in float32.
"""
import math
import struct

import tandem

_F32 = struct.Struct("f")
_SMALL_SCALE = 6.1e-5  # fbgemm's smallest activation scale: below it the range is widened
_ACT_QMAX = 127  # uint8 with reduce_range: 0..127
_EXACT_FLOAT32_TERMS = (1 << 24) // (255 * 128)  # products of |x_q - zp| <= 255 and |w_q| <= 128 summed exactly


def f32(value):
    """value rounded to float32 (one rounding of an exact double product or quotient is the float32 result)."""
    return _F32.unpack(_F32.pack(value))[0]


def quantize_weight(weight, per_channel):
    """(int8 values, float32 scales): one scale, or one per output row when per_channel."""
    with tandem.no_grad():
        w = weight.detach().float()
        if per_channel:
            amax = tandem.maximum(w.amax(dim=1).clamp_min(0), (-w.amin(dim=1)).clamp_min(0))
        else:
            amax = tandem.maximum(w.max().clamp_min(0), (-w.min()).clamp_min(0))
        eps = tandem.finfo(tandem.float32).eps
        scale = (amax / 127.5).clamp_min(eps)
        values = tandem.round(w * (1.0 / scale).unsqueeze(-1) if per_channel else w * (1.0 / scale))
        return values.clamp(-128, 127).to(tandem.int8), scale


def activation_qparams(low, high):
    """(scale, zero point) for an input whose values lie in [low, high], as fbgemm chooses them."""
    low, high = min(low, 0.0), max(high, 0.0)
    scale = (high - low) / _ACT_QMAX
    if f32(scale) == 0.0 or math.isinf(1.0 / f32(scale)):
        scale = 0.1
    if scale < _SMALL_SCALE:  # widen the range so the scale is the smallest allowed
        if low == 0.0:
            high = _SMALL_SCALE * _ACT_QMAX
        elif high == 0.0:
            low = -_SMALL_SCALE * _ACT_QMAX
        else:
            low, high = low * (_SMALL_SCALE / scale), high * (_SMALL_SCALE / scale)
        scale = _SMALL_SCALE
    scale = f32(scale)
    from_low, from_high = -low / scale, _ACT_QMAX - high / scale
    error_low, error_high = -abs(low / scale), _ACT_QMAX - abs(high / scale)
    initial = from_low if error_low < error_high else from_high
    zero_point = 0 if initial < 0 else _ACT_QMAX if initial > _ACT_QMAX else int(round(initial))  # half to even
    return scale, zero_point


def dynamic_linear(x, values, scale, bias):
    """x @ W.T + bias with W = values * scale quantized as above and x quantized per call."""
    if x.dim() < 2:
        raise RuntimeError("The dimension of input tensor should be larger than or equal to 2\nhint: a dynamically "
                           "quantized Linear takes (batch, in_features); add a batch dimension with x.unsqueeze(0)")
    if x.dtype != tandem.float32:
        raise RuntimeError(f"expected scalar type Float but found {x.dtype._scalar_type_name}\nhint: a dynamically "
                           "quantized layer computes in float32: pass x.float()")
    k = values.shape[1]
    if x.shape[-1] != k:
        raise RuntimeError(f"The number of rows in the packB should be equal to K: {x.shape[-1]}\nhint: the layer "
                           f"takes in_features={k}, the input's last dimension is {x.shape[-1]}")
    with tandem.no_grad():
        rows = x.reshape(-1, k)
        out_shape = tuple(x.shape[:-1]) + (values.shape[0],)
        if rows.numel() == 0:
            return tandem.zeros(out_shape, dtype=tandem.float32, device=x.device)
        low, high = (v.item() for v in tandem.aminmax(rows))  # one pass over the input
        if math.isnan(low) or math.isnan(high):
            raise RuntimeError("In ChooseQuantizationParams, min should be less than or equal to max\nhint: the "
                               "input holds NaN, which has no place on the quantization grid")
        if math.isinf(low) or math.isinf(high):  # no grid holds them: the float product gives PyTorch's inf/nan
            product = rows.matmul((values.float() * _column(scale)).t())
            return (product if bias is None else product + bias).reshape(out_shape)
        x_scale, zero_point = activation_qparams(low, high)
        centred = tandem.round(rows * f32(1.0 / x_scale)).add_(zero_point).clamp_(0, 255).sub_(zero_point)
        exact = tandem.float32 if k <= _EXACT_FLOAT32_TERMS else tandem.float64
        sums = centred.to(exact).matmul(values.to(exact).t()).float()
        multiplier = scale * x_scale  # float32: fbgemm's per-output multiplier
        out = sums * multiplier
        if bias is not None:
            out = out + bias
        return out.reshape(out_shape)


def _column(scale):
    return scale.unsqueeze(-1) if scale.dim() == 1 else scale
