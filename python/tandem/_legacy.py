"""PyTorch's legacy tensor types and conversions that old programs still use: FloatTensor(...),
LongTensor(...), isinstance(t, FloatTensor), t.type(), t.type(dtype or "tandem.FloatTensor"), and
autograd.Variable. Each type stands for a CPU tensor of one dtype."""
from . import _C
from ._layouts import _check_format, sparse_coo, sparse_csr, strided

Tensor = _C.Tensor

_NAMES = {
    "FloatTensor": _C.float32, "DoubleTensor": _C.float64, "HalfTensor": _C.float16,
    "BFloat16Tensor": _C.bfloat16, "ByteTensor": _C.uint8, "CharTensor": _C.int8, "ShortTensor": _C.int16,
    "IntTensor": _C.int32, "LongTensor": _C.int64, "BoolTensor": _C.bool,
    "UInt16Tensor": _C.uint16, "UInt32Tensor": _C.uint32, "UInt64Tensor": _C.uint64,
    "ComplexFloatTensor": _C.complex64, "ComplexDoubleTensor": _C.complex128,
}
_BY_DTYPE = {d: n for n, d in _NAMES.items()}


class tensortype(type):
    """The class of FloatTensor & co.: isinstance(t, FloatTensor) is true for float32 CPU tensors."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device.type == "cpu"

    def __repr__(cls):
        return f"<class 'tandem.{cls.__name__}'>"


def _type_name(obj):
    """A type as CPython's tp_name spells it in PyTorch's messages: a class made at run time (Python classes,
    Tensor) by its name, a static type by its module and name ('float', 'numpy.float64')."""
    t = type(obj)
    if t.__flags__ & (1 << 9) or t.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return t.__name__
    return f"{t.__module__}.{t.__qualname__}"


def _is_size(obj):
    """An argument PyTorch's size parser takes as one dimension: an int or anything with __index__ (NumPy integers
    and 0-d integer arrays), not a bool."""
    import operator  # noqa: PLC0415

    if isinstance(obj, (bool, Tensor)):
        return False
    try:
        operator.index(obj)
    except TypeError:
        return False
    return True


def _is_sequence(obj):
    """PySequence_Check: what PyTorch's legacy constructors accept as data (lists, tuples, ranges, arrays,
    storages, user classes with __getitem__), not dicts or sets or numbers (NumPy's scalars subscript as mappings,
    not sequences)."""
    numpy_scalar = type(obj).__module__ == "numpy" and type(obj).__name__ != "ndarray"
    return hasattr(type(obj), "__getitem__") and not isinstance(obj, dict) and not numpy_scalar


def legacy_new_arguments(args, kwargs):
    """How PyTorch's legacy constructors (torch.FloatTensor(...), torch.Tensor(...), torch.cuda.LongTensor(...))
    read their arguments: ('alias', tensor), ('data', sequence), ('size', [ints]) or ('size', None) for an empty
    tensor. Sizes come as ints (NumPy integers too), one torch.Size, or a list or tuple as size=; a single list,
    tuple, range or array is data, as data=; a single tensor (or other=) is aliased; a number that is not an integer
    is refused."""
    from ._size import Size  # noqa: PLC0415

    size, other, data = kwargs.get("size"), kwargs.get("other"), kwargs.get("data")
    unknown = kwargs.keys() - {"size", "data", "other"}
    if (unknown or (kwargs and args) or len(kwargs) > 1 or ("size" in kwargs and not isinstance(size, (list, tuple)))
            or ("other" in kwargs and not isinstance(other, Tensor))):
        positional = [_type_name(a) for a in args]
        keywords = [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
        got = ", ".join(positional + keywords) if positional else "".join(k + ", " for k in keywords)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                        " * (tuple of ints size, *, torch.device device = None)\n"
                        " * (object data, *, torch.device device = None)\n")
    if "size" in kwargs:
        return "size", list(size)
    if "other" in kwargs:
        return "alias", other
    if "data" in kwargs:
        if isinstance(data, Tensor) or not _is_sequence(data):
            raise TypeError(f"new(): data must be a sequence (got {_type_name(data)})")
        return "data", data
    if not args:
        return "size", None
    first = args[0]
    if len(args) == 1:
        if isinstance(first, Tensor):
            return "alias", first
        if isinstance(first, Size):
            return "size", list(first)
        if _is_size(first):
            return "size", [first]
        if not _is_sequence(first):
            raise TypeError(f"new(): data must be a sequence (got {_type_name(first)})")
        return "data", first
    for pos, a in enumerate(args, 1):
        if not _is_size(a):
            raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos} with error \"type "
                            f"must be tuple of ints,but got {_type_name(a)}\"")
    return "size", list(args)


def _construct(cls, *args, device=None, **kwargs):
    from . import tensor, empty  # noqa: PLC0415  (tandem's namespace is complete by the first call)

    kind, value = legacy_new_arguments(args, kwargs)
    if device is not None and _C.device(device).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{_C.device(device).type} was passed\nhint: use tandem.tensor(data, "
                           f"dtype={cls.dtype}, device=...) or tandem.empty(size, dtype=..., device=...)")
    if kind == "alias":
        if value.dtype != cls.dtype or value.device.type != "cpu":
            raise TypeError(f"expected {cls.dtype} on cpu (got {value.dtype} on {value.device})\n"
                            f"hint: convert first: t.to({cls.dtype})")
        return value.detach()  # an alias of the same memory, as in PyTorch
    if kind == "data":
        return tensor(value, dtype=cls.dtype)  # a list, tuple, range or NumPy array
    return empty([int(s) for s in value] if value is not None else 0, dtype=cls.dtype)  # uninitialised, as PyTorch


def construct_tensor(cls, *args, device=None, **kwargs):
    """tandem.Tensor(...): the legacy constructor of the default dtype (FloatTensor unless set_default_dtype
    changed it); a Python subclass of Tensor gets an instance of itself sharing the new tensor's memory."""
    from . import get_default_dtype  # noqa: PLC0415

    t = _construct(LEGACY_TYPES[_BY_DTYPE[get_default_dtype()]], *args, device=device, **kwargs)
    return t if cls is Tensor else _C._make_subclass(cls, t, False)


def type_attributes(dtype, layout=None, is_cuda=False):
    """What PyTorch's tensortype classes say about their tensors (torch.cuda.FloatTensor.is_cuda,
    torch.FloatTensor.layout, torch.sparse.FloatTensor.is_sparse), shared by the dense, CUDA and sparse types."""
    layout = strided if layout is None else layout
    return {"dtype": dtype, "layout": layout, "is_cuda": is_cuda, "is_xpu": False,
            "is_sparse": layout == sparse_coo, "is_sparse_csr": layout == sparse_csr}


def _make(name, dtype):
    return tensortype(name, (), {**type_attributes(dtype), "__new__": _construct, "__module__": "tandem",
                                 "__doc__": f"Legacy constructor of {dtype} CPU tensors."})


# uint16..64 and the complex dtypes have type() names but no classes in PyTorch's namespace.
LEGACY_TYPES = {name: _make(name, dtype) for name, dtype in _NAMES.items()
                if not name.startswith(("UInt", "Complex"))}


def _target_of_type_arg(arg):
    """(dtype, device type) a t.type() argument names: a CUDA type (class or 'tandem.cuda.FloatTensor') names
    the cuda device type, a CPU one 'cpu', a bare dtype none (the tensor stays where it is)."""
    if isinstance(arg, _C.dtype):
        return arg, None
    if isinstance(arg, tensortype):
        return arg.dtype, "cuda" if getattr(arg, "is_cuda", False) else "cpu"
    if arg is Tensor:  # t.type(torch.Tensor): the default dtype, as in PyTorch
        from . import get_default_dtype  # noqa: PLC0415

        return get_default_dtype(), None
    if isinstance(arg, str):
        prefix, _, name = arg.rpartition(".")
        if prefix in ("tandem", "torch") and name in _NAMES:
            return _NAMES[name], "cpu"
        if prefix in ("tandem.sparse", "torch.sparse") and name in _NAMES:  # PyTorch takes the dtype, not the layout
            return _NAMES[name], "cpu"
        if prefix in ("tandem.cuda", "torch.cuda", "tandem.cuda.sparse", "torch.cuda.sparse") and name in _NAMES:
            return _NAMES[name], "cuda"
        if prefix in ("tandem.meta", "torch.meta") and name in _NAMES:
            return _NAMES[name], "meta"
        raise ValueError(f"invalid type: {arg!r}\nhint: pass a dtype (tandem.float64) or a name such as "
                         "'tandem.DoubleTensor'")
    if isinstance(arg, type):  # another class (nn.Parameter, a subclass): PyTorch's ValueError
        raise ValueError(f"invalid type: '{arg.__name__}'")
    raise TypeError("dtype must be a type, str, or dtype object")  # PyTorch's words (a tensor, an int, a list)


def _type_arguments(args, kwargs):
    """(self, dtype, non_blocking, memory_format) of a t.type(...) call, with PyTorch's argument errors (its
    signature: type(dtype=None, non_blocking=False, *, memory_format=None))."""
    if not args:
        raise TypeError("unbound method TensorBase.type() needs an argument")
    self, args = args[0], args[1:]
    if not isinstance(self, Tensor):
        raise TypeError(f"descriptor 'type' for 'tandem._C.TensorBase' objects doesn't apply to a "
                        f"'{type(self).__name__}' object")
    if len(args) > 2:
        raise TypeError(f"type() takes from 0 to 2 positional arguments but {len(args)} were given")
    given = dict(zip(("dtype", "non_blocking"), args))
    for key, value in kwargs.items():
        if key not in ("dtype", "non_blocking", "memory_format"):
            raise TypeError(f"type() got an unexpected keyword argument '{key}'")
        if key in given:
            raise TypeError(f"type() got multiple values for argument '{key}'")
        given[key] = value
    non_blocking = given.get("non_blocking", False)
    if not isinstance(non_blocking, bool):
        where = " (position 2)" if len(args) == 2 else ""
        raise TypeError(f"type(): argument 'non_blocking'{where} must be bool, not {type(non_blocking).__name__}")
    memory_format = given.get("memory_format")
    if memory_format is not None:
        _check_format("type", memory_format)
    return self, given.get("dtype"), non_blocking, memory_format


def tensor_type(*args, **kwargs):
    """t.type() -> 'tandem.FloatTensor' (or 'tandem.cuda.FloatTensor'); t.type(dtype or type or name) -> t
    converted to that dtype (t itself when it already has it). A type of the other device type moves t there
    (a CUDA type to the current CUDA device), as PyTorch's x.type(torch.cuda.FloatTensor) does. memory_format=
    lays the result out as Tensor.to's does."""
    self, dtype, non_blocking, memory_format = _type_arguments(args, kwargs)
    if dtype is None:
        where = "tandem." if self.device.type == "cpu" else f"tandem.{self.device.type}."
        return where + _BY_DTYPE[self.dtype]
    target, device_type = _target_of_type_arg(dtype)
    options = {"non_blocking": non_blocking}
    if memory_format is not None:
        options["memory_format"] = memory_format
    if device_type is not None and device_type != self.device.type:
        return self.to(device_type, target, **options)
    return self if target == self.dtype and memory_format is None else self.to(target, **options)


_dtype_only_type_as = Tensor.type_as  # the binding: converts the dtype


def tensor_type_as(self, *args, **kwargs):
    """t.type_as(other) is t.type(other.type()) in PyTorch: other's dtype, and other's device type too (a CPU
    tensor goes to the current CUDA device when other is on CUDA; linear_operator writes eye(n).type_as(A))."""
    for name in kwargs.keys() - {"other"}:
        raise TypeError(f"type_as() got an unexpected keyword argument '{name}'")
    if len(args) > 1:
        raise TypeError(f"type_as() takes 1 positional argument but {len(args)} were given")
    if not args and not kwargs:
        raise TypeError('type_as() missing 1 required positional arguments: "other"')
    other = args[0] if args else kwargs["other"]
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    if other.device.type != self.device.type:
        return tensor_type(self, tensor_type(other))
    return _dtype_only_type_as(self, other)


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)


def _byte_flag(value):
    """PyArg's 'b' format, which PyTorch's Variable constructor reads requires_grad and volatile with: an integer
    (bool included) from 0 to 255."""
    import operator  # noqa: PLC0415

    number = operator.index(value)  # "'NoneType' object cannot be interpreted as an integer"
    if number < 0:
        raise OverflowError("unsigned byte integer is less than minimum")
    if number > 255:
        raise OverflowError("unsigned byte integer is greater than maximum")
    return bool(number)


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 autograd wrapper. A tensor is its own Variable today: Variable(t) is a detached alias of t
    with the requires_grad given (as in PyTorch), and isinstance(t, Variable) holds for every tensor."""

    def __new__(cls, data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None):
        if data is None:
            from . import empty  # noqa: PLC0415

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(data)}")
        requires_grad, volatile = _byte_flag(requires_grad), _byte_flag(volatile)
        if _grad_fn is not None:
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {_type_name(_grad_fn)}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"argument 5 must be str or None, not {_type_name(name)}")
        if volatile:
            import warnings  # noqa: PLC0415

            warnings.warn("volatile was removed and now has no effect. Use `with tandem.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        alias = data.detach()
        if requires_grad and not (alias.is_floating_point() or alias.is_complex()):
            # PyTorch's Variable constructor checks with the message of requires_grad=True in a factory
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return alias.requires_grad_(requires_grad)


def _volatile_get(self):
    import warnings  # noqa: PLC0415

    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
    return False


def _volatile_set(self, value):
    import warnings  # noqa: PLC0415

    warnings.warn("volatile was removed and now has no effect. Use `with tandem.no_grad():` instead.", UserWarning,
                  stacklevel=2)


# t.volatile of 0.3-era code: always False, with PyTorch's warnings on reading and on setting.
volatile = property(_volatile_get, _volatile_set)


def tensor_where(self, condition, other):
    """t.where(condition, other): tandem.where(condition, t, other), as PyTorch's method."""
    return _C.where(condition, self, other)
