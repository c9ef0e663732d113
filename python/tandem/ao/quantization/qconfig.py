"""QConfig and the dynamic-quantization configurations PyTorch names (default_dynamic_qconfig, ...).

A QConfig pairs how activations and weights are quantized. tandem's entries are descriptions, not observers that
collect statistics: dynamic quantization needs none (activations are measured at every call), and the weight's
dtype and scheme are all a layer's from_float reads (``qconfig.weight()`` gives an object with ``dtype`` and
``qscheme``, as an observer has).
"""
from collections import namedtuple

import tandem

from ..._quantized_types import per_channel_symmetric, per_tensor_symmetric, qint8, quint8

__all__ = ["QConfig", "default_dynamic_qconfig", "float16_dynamic_qconfig", "per_channel_dynamic_qconfig"]

QConfig = namedtuple("QConfig", ["activation", "weight"])


class QuantizationSpec:
    """How one side of a layer is quantized: calling it gives itself, as calling PyTorch's observer factory gives
    an observer with these attributes."""

    def __init__(self, kind, dtype, qscheme=None, is_dynamic=False):
        self.kind, self.dtype, self.qscheme, self.is_dynamic = kind, dtype, qscheme, is_dynamic

    def __call__(self):
        return self

    def __repr__(self):
        fields = [f"dtype={self.dtype}"]
        if self.qscheme is not None:
            fields.append(f"qscheme={self.qscheme}")
        if self.is_dynamic:
            fields.append("is_dynamic=True")
        return f"{self.kind}({', '.join(fields)})"


_dynamic_uint8 = QuantizationSpec("PlaceholderObserver", quint8, is_dynamic=True)
default_dynamic_qconfig = QConfig(activation=_dynamic_uint8,
                                  weight=QuantizationSpec("MinMaxObserver", qint8, per_tensor_symmetric))
per_channel_dynamic_qconfig = QConfig(activation=_dynamic_uint8,
                                      weight=QuantizationSpec("PerChannelMinMaxObserver", qint8,
                                                              per_channel_symmetric))
float16_dynamic_qconfig = QConfig(activation=QuantizationSpec("PlaceholderObserver", tandem.float16,
                                                              is_dynamic=True),
                                  weight=QuantizationSpec("PlaceholderObserver", tandem.float16))
