"""PyTorch's legacy tensor types and conversions that old programs still use: FloatTensor(...),
LongTensor(...), isinstance(t, FloatTensor), t.type(), t.type(dtype or "tandem.FloatTensor"), and
autograd.Variable. Each type stands for a CPU tensor of one dtype."""
from . import _C
from ._layouts import sparse_coo, sparse_csr, strided

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


def _construct(cls, *args, device=None):
    from . import tensor, empty, Size  # noqa: PLC0415  (tandem's namespace is complete by the first call)

    if device is not None and _C.device(device).type != "cpu":
        raise RuntimeError(f"legacy constructor expects device type: cpu but device type: "
                           f"{_C.device(device).type} was passed\nhint: use tandem.tensor(data, "
                           f"dtype={cls.dtype}, device=...) or tandem.empty(size, dtype=..., device=...)")
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if t.dtype != cls.dtype or t.device.type != "cpu":
            raise TypeError(f"expected {cls.dtype} on cpu (got {t.dtype} on {t.device})\n"
                            f"hint: convert first: t.to({cls.dtype})")
        return t.detach()  # an alias of the same memory, as in PyTorch
    if len(args) == 1 and not isinstance(args[0], (int, Size)):
        return tensor(args[0], dtype=cls.dtype)  # data: a list, tuple or NumPy array
    if not args:
        return empty(0, dtype=cls.dtype)
    return empty(*args, dtype=cls.dtype)  # sizes: uninitialised memory, as in PyTorch


def construct_tensor(cls, *args, device=None):
    """tandem.Tensor(...): the legacy constructor of the default dtype (FloatTensor unless set_default_dtype
    changed it); a Python subclass of Tensor gets an instance of itself sharing the new tensor's memory."""
    from . import get_default_dtype  # noqa: PLC0415

    t = _construct(LEGACY_TYPES[_BY_DTYPE[get_default_dtype()]], *args, device=device)
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
        if prefix in ("tandem.cuda", "torch.cuda") and name in _NAMES:
            return _NAMES[name], "cuda"
        if prefix in ("tandem.meta", "torch.meta") and name in _NAMES:
            return _NAMES[name], "meta"
        raise ValueError(f"invalid type: {arg!r}\nhint: pass a dtype (tandem.float64) or a name such as "
                         "'tandem.DoubleTensor'")
    if isinstance(arg, type):  # another class (nn.Parameter, a subclass): PyTorch's ValueError
        raise ValueError(f"invalid type: '{arg.__name__}'")
    raise TypeError(f"type(): expected a dtype, a tensor type or its name, not {type(arg).__name__}")


def tensor_type(self, dtype=None, non_blocking=False, **kwargs):
    """t.type() -> 'tandem.FloatTensor' (or 'tandem.cuda.FloatTensor'); t.type(dtype or type or name) -> t
    converted to that dtype (t itself when it already has it). A type of the other device type moves t there
    (a CUDA type to the current CUDA device), as PyTorch's x.type(torch.cuda.FloatTensor) does."""
    if kwargs:
        raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is None:
        where = "tandem." if self.device.type == "cpu" else f"tandem.{self.device.type}."
        return where + _BY_DTYPE[self.dtype]
    target, device_type = _target_of_type_arg(dtype)
    if device_type is not None and device_type != self.device.type:
        return self.to(device_type, target, non_blocking=non_blocking)
    return self if target == self.dtype else self.to(target, non_blocking=non_blocking)


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


class Variable(metaclass=_VariableMeta):
    """The pre-0.4 autograd wrapper. A tensor is its own Variable today: Variable(t) is a detached alias of t
    with the requires_grad given (as in PyTorch), and isinstance(t, Variable) holds for every tensor."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            import warnings  # noqa: PLC0415

            warnings.warn("volatile was removed and now has no effect. Use `with tandem.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        alias = data.detach()
        if requires_grad and not (alias.is_floating_point() or alias.is_complex()):
            # PyTorch's Variable constructor checks with the message of requires_grad=True in a factory
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        return alias.requires_grad_(requires_grad)


def tensor_where(self, condition, other):
    """t.where(condition, other): tandem.where(condition, t, other), as PyTorch's method."""
    return _C.where(condition, self, other)
