"""torch.sparse.FloatTensor & co., the legacy constructors older graph programs still call (Kipf's pygcn:
``torch.sparse.FloatTensor(indices, values, shape)``), with PyTorch's behaviour: given indices and values they
make sparse_coo_tensor(indices, values, size) (the values keep their dtype, as in PyTorch); given sizes, an
empty sparse tensor of the type's dtype. isinstance(t, tandem.sparse.FloatTensor) holds for float32 CPU sparse
tensors. Each form warns as PyTorch's does (deprecated in favour of sparse_coo_tensor)."""
import warnings

from .. import _C
from .._layouts import sparse_coo
from .._legacy import _NAMES, type_attributes
from .._size import Size
from . import _construct, _coo
from ._base import is_dense

Tensor = _C.Tensor

_SPARSE_TYPES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
                 "ShortTensor", "IntTensor", "LongTensor")


class sparsetensortype(type):  # noqa: N801  (the metaclass, named as tandem's dense one)
    def __instancecheck__(cls, obj):
        return type(obj) is _coo.SparseCooTensor and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'tandem.sparse.{cls.__name__}'>"


def _deprecated(form, instead):
    warnings.warn(f"tandem.sparse.SparseTensor({form}) is deprecated.  Please use tandem.sparse_coo_tensor({instead}).",
                  UserWarning, stacklevel=3)


def _construct_legacy(cls, *args, device=None):
    if len(args) in (2, 3) and is_dense(args[0]) and is_dense(args[1]):
        if len(args) == 3:
            _deprecated("indices, values, shape, *, device=", "indices, values, shape, dtype=, device=")
        else:
            _deprecated("indices, values, *, device=", "indices, values, dtype=, device=")
        return _construct.sparse_coo_tensor(*args, device=device, check_invariants=False)  # no warning, as PyTorch
    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        raise TypeError("torch.sparse.SparseTensor(sequence) only accepts sizes.  Please use "
                        "torch.sparse_coo_tensor() or construct a strided tensor and convert it to sparse via "
                        "to_sparse.")
    if args:
        _deprecated("shape, *, device=", "shape, dtype=, device=")
    else:
        _deprecated("", "(0,), dtype=")
    size = list(args[0]) if len(args) == 1 and isinstance(args[0], Size) else [int(s) for s in args] or [0]
    indices = _C.zeros((len(size), 0), dtype=_C.int64, device=device)
    values = _C.zeros([0], dtype=cls.dtype, device=device)
    return _construct.sparse_coo_tensor(indices, values, size, check_invariants=False)


def legacy_types():
    """name -> type, for tandem.sparse's namespace."""
    return {name: sparsetensortype(name, (), {**type_attributes(_NAMES[name], sparse_coo),
                                              "__new__": _construct_legacy,
                                              "__module__": "tandem.sparse",
                                              "__doc__": f"Legacy constructor of {_NAMES[name]} sparse tensors."})
            for name in _SPARSE_TYPES}
