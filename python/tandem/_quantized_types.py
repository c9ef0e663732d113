"""PyTorch's quantized dtypes (tandem.qint8, quint8, qint32, quint4x2, quint2x4) and quantization schemes
(tandem.per_tensor_affine, ...) as names.

tandem has no quantized tensors: dynamic quantization (tandem.ao.quantization.quantize_dynamic) keeps its int8
weights in ordinary int8 tensors with their scales beside them. These objects exist for the arguments that name
them (``quantize_dynamic(model, dtype=tandem.qint8)``), for code that compares against them, and so that a saved
quantized model names them as PyTorch's files do (torch.qint8). Making a tensor of one is a TypeError.
"""

__all__ = ["qint8", "quint8", "qint32", "quint4x2", "quint2x4", "qscheme", "per_tensor_affine",
           "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric", "per_channel_affine_float_qparams"]


class _QuantizedDType:
    """One quantized dtype: its name and element size, as torch.dtype reports them."""

    __slots__ = ("_name", "itemsize")
    is_floating_point = False
    is_complex = False

    def __init__(self, name, itemsize):
        self._name, self.itemsize = name, itemsize

    @property
    def is_signed(self):
        raise RuntimeError("isSignedType not supported for quantized types")

    def __repr__(self):
        return f"tandem.{self._name}"

    def __reduce__(self):  # pickled as the module attribute, so a loaded copy is this very object
        return self._name

    def to_real(self):
        return self

    def to_complex(self):
        return self


class qscheme:
    """A quantization scheme (tandem.per_tensor_affine, ...), as torch.qscheme."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"tandem.{self._name}"

    def __reduce__(self):
        return self._name


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
