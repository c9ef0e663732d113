"""The weight and bias of one dynamically quantized product, as PyTorch's packed parameters hold them: int8
values with their scale(s) (qint8) or float16 values (float16). They live outside the module's parameters, as
PyTorch's do (a quantized layer has no Parameters), and state_dict stores them under the layer's own keys."""
import tandem
from tandem.nn import functional as F

from ....._quantized_types import qint8
from ....quantization._dynamic_math import dynamic_linear, quantize_weight

_FLOAT16_MAX = 65504.0


class PackedWeight:
    def __init__(self, dtype, values, scale, bias):
        self.dtype, self.values, self.scale, self.bias = dtype, values, scale, bias

    @classmethod
    def from_float(cls, weight, bias, dtype, per_channel=False):
        """Quantizes a float weight: int8 with per-tensor or per-row scales (qint8), or float16 (values beyond
        float16's range saturate at +-65504, as PyTorch's packing does, instead of becoming inf)."""
        with tandem.no_grad():
            if dtype is qint8:
                values, scale = quantize_weight(weight, per_channel)
            elif dtype is tandem.float16:
                values, scale = weight.detach().float().clamp(-_FLOAT16_MAX, _FLOAT16_MAX).half(), None
            else:
                raise RuntimeError(f"Unsupported dtype specified for dynamic quantization: {dtype}\nhint: "
                                   "quantize_dynamic takes dtype=tandem.qint8 or tandem.float16")
            bias = None if bias is None else bias.detach().float().clone()
        return cls(dtype, values, scale, bias)

    @property
    def per_channel(self):
        return self.scale is not None and self.scale.dim() == 1

    def linear(self, x, bias=None):
        """x @ W.T + bias (the packed bias unless another is given)."""
        bias = self.bias if bias is None else bias
        if self.dtype is qint8:
            return dynamic_linear(x, self.values, self.scale, bias)
        if x.dtype != tandem.float32:
            raise RuntimeError(f"expected scalar type Float but found {x.dtype._scalar_type_name}\nhint: a "
                               "dynamically quantized layer computes in float32: pass x.float()")
        with tandem.no_grad():
            return F.linear(x, self.values.float(), bias)

    def dequantize(self):
        """The weight as float32 values (what the layer multiplies by)."""
        if self.dtype is qint8:
            scale = self.scale.unsqueeze(-1) if self.per_channel else self.scale
            return self.values.float() * scale
        return self.values.float()

    def apply(self, fn):
        """Moves the tensors where fn (a module's .to/.cuda/.cpu) sends them, keeping their dtypes: a quantized
        layer's arithmetic is fixed, as PyTorch's .half() leaves its packed weights alone."""
        device = fn(tandem.empty(0, device=self.values.device)).device  # where fn sends tensors from here

        def moved(t):
            return None if t is None else t.to(device)

        self.values, self.scale, self.bias = moved(self.values), moved(self.scale), moved(self.bias)

    def state(self):
        return self.values, self.scale, self.bias
