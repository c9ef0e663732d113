"""PyTorch's quantized dtypes (tandem.qint8, quint8, qint32, quint4x2, quint2x4) and quantization schemes
(tandem.per_tensor_affine, ...) as names.

tandem has no quantized tensors: dynamic quantization (tandem.ao.quantization.quantize_dynamic) keeps its int8
weights in ordinary int8 tensors with their scales beside them. These objects exist for the arguments that name
them (``quantize_dynamic(model, dtype=tandem.qint8)``), for code that compares against them, and so that a saved
quantized model names them as PyTorch's files do (torch.qint8). Making a tensor of one is a TypeError.
"""

from ._layouts import NamedConstant

__all__ = ["qint8", "quint8", "qint32", "quint4x2", "quint2x4", "qscheme", "per_tensor_affine",
           "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric", "per_channel_affine_float_qparams"]


class _QuantizedDType(NamedConstant):
    """One quantized dtype: its name and element size, as torch.dtype reports them."""

    is_floating_point = False
    is_complex = False

    def __init__(self, name, itemsize):
        super().__init__(name)
        self.itemsize = itemsize

    @property
    def is_signed(self):
        raise RuntimeError("isSignedType not supported for quantized types")

    def to_real(self):
        return self

    def to_complex(self):
        return self


class qscheme(NamedConstant):
    """A quantization scheme (tandem.per_tensor_affine, ...), as torch.qscheme."""


_QuantizedDType.__module__ = qscheme.__module__ = "tandem"

qint8 = _QuantizedDType("qint8", 1)
quint8 = _QuantizedDType("quint8", 1)
qint32 = _QuantizedDType("qint32", 4)
quint4x2 = _QuantizedDType("quint4x2", 1)
quint2x4 = _QuantizedDType("quint2x4", 1)
QUANTIZED_DTYPES = (qint8, quint8, qint32, quint4x2, quint2x4)

per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")
QSCHEMES = (per_tensor_affine, per_channel_affine, per_tensor_symmetric, per_channel_symmetric,
            per_channel_affine_float_qparams)
