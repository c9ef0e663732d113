"""tandem.ao.nn.quantized.dynamic.Linear: a Linear whose weight is int8 (or float16) and whose input is quantized
at every call, as PyTorch's DynamicQuantizedLinear (x86/fbgemm arithmetic: ao/quantization/_dynamic_math.py)."""
import tandem
from tandem import nn

from ....._quantized_types import per_channel_affine, per_channel_symmetric, per_tensor_affine, qint8
from ._packed import PackedWeight

__all__ = ["Linear"]


def weight_options(qconfig):
    """(dtype, per_channel) that a layer's qconfig asks its weight for."""
    if qconfig is None:
        raise AssertionError("Input float module must have qconfig defined")
    spec = qconfig.weight()
    return spec.dtype, getattr(spec, "qscheme", None) in (per_channel_symmetric, per_channel_affine)


class Linear(nn.Module):
    """y = x W^T + b with W quantized once and x quantized per call; float32 in and out."""

    _FLOAT_MODULE = nn.Linear

    def __init__(self, in_features, out_features, bias_=True, dtype=qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.scale, self.zero_point = 1.0, 0
        bias = tandem.zeros(out_features) if bias_ else None
        self._packed_params = PackedWeight.from_float(tandem.zeros(out_features, in_features), bias, dtype)

    def forward(self, x):
        return self._packed_params.linear(x)

    def _get_name(self):
        return "DynamicQuantizedLinear"

    def extra_repr(self):
        s = f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._packed_params.dtype}"
        if self._packed_params.dtype is qint8:
            s += f", qscheme={per_channel_affine if self._packed_params.per_channel else per_tensor_affine}"
        return s

    def weight(self):
        """The weight as float32 values (PyTorch returns a quantized tensor; tandem has none: docs/compat.md)."""
        return self._packed_params.dequantize()

    def bias(self):
        return self._packed_params.bias

    def _weight_bias(self):
        return self.weight(), self.bias()

    def set_weight_bias(self, w, b):
        """Quantizes float weight w (and keeps bias b) in this layer's dtype and scheme."""
        packed = self._packed_params
        self._packed_params = PackedWeight.from_float(w, b, packed.dtype, packed.per_channel)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is not nn.Linear:
            raise AssertionError("nn.quantized.dynamic.Linear.from_float only works for Linear, got "
                                 f"{type(mod).__name__}")
        dtype, per_channel = weight_options(getattr(mod, "qconfig", None))
        new = cls(mod.in_features, mod.out_features, dtype=dtype)
        new._packed_params = PackedWeight.from_float(mod.weight, mod.bias, dtype, per_channel)
        return new

    def _apply(self, fn, recurse=True):
        self._packed_params.apply(fn)
        return super()._apply(fn, recurse)

    # state_dict: scale and zero_point as PyTorch's, then the packed tensors under _packed_params.
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = tandem.tensor(self.scale)
        destination[prefix + "zero_point"] = tandem.tensor(self.zero_point)
        destination[prefix + "_packed_params.dtype"] = self._packed_params.dtype
        destination[prefix + "_packed_params._packed_params"] = self._packed_params.state()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        keys = [prefix + k for k in ("scale", "zero_point", "_packed_params.dtype", "_packed_params._packed_params")]
        missing = [k for k in keys if k not in state_dict]
        if missing:
            missing_keys.extend(missing)
        else:
            self.scale = float(state_dict[keys[0]])
            self.zero_point = int(state_dict[keys[1]])
            values, scale, bias = state_dict[keys[3]]
            self._packed_params = PackedWeight(state_dict[keys[2]], values, scale, bias)
        for k in keys:
            state_dict.pop(k, None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)
