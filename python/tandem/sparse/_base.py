"""_SparseBase: what tandem.sparse's COO and CSR tensors share. Both are tandem.Tensor instances (as PyTorch's sparse
tensors are torch.Tensors) and hold a dense ``values`` tensor (dtype, device and autograd all live on it), a ``size``
and index tensors of their own. The C++ tensor each instance carries is a placeholder with the sparse tensor's size,
dtype and device over one element of memory (a zero expanded, stride 0): nothing reads it as data, because every
public function, Tensor method and operator that reaches a sparse tensor goes to _SparseBase.__torch_function__,
which runs the few functions written for sparse operands and refuses the others with PyTorch's "Could not run"
error, and the members a sparse tensor answers itself (shape, dtype, grad, to_dense, mm, ...) are defined on its
class, so Python finds them before Tensor's. A subclass keeps what differs (its layout,
index members, conversions, math, pickling and repr body) and gives the base what it builds on: its index tensors
(_index_tensors), itself over other parts (_rewrap), a leaf's gradient (_leaf_grad), PyTorch's name for its
backend (_backend: 'Sparse' makes 'SparseCPU'), the hint of its refusals (_refuse_hint) and its constructors
(_made_by)."""
import numbers

from .. import _C
from .._tensor_str import _dtype_is_implied, _dtype_suffix, _suffix, tensor_body

Tensor = _C.Tensor


def wrap_dim(dim, ndim):
    """dim counted from the front (negative dims count from the back), PyTorch's IndexError when out of range."""
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim % ndim if ndim else 0


def repr_part(t, indent):
    """An index or values tensor as the sparse reprs print it: an empty one says its size."""
    body = tensor_body(t, indent)
    return body + f", size={tuple(t.shape)}" if t.numel() == 0 else body


def is_dense(x):
    """A strided tandem tensor (sparse tensors are Tensor instances too)."""
    return isinstance(x, Tensor) and not isinstance(x, _SparseBase)


_placeholder_zeros = {}  # device -> the 0-d zero that placeholders on it expand (one element per device)


def _placeholder(values, size):
    """A zero expanded to size on values' device. Its dtype is bfloat16 whatever the values' (the class answers
    dtype, itemsize and element_size from the values): NumPy has no bfloat16, so the buffer protocol, which
    np.asarray tries before __array__ and which a Python subclass cannot turn off, refuses the placeholder and
    NumPy falls back to __array__, whose error names to_dense(), instead of copying zeros."""
    zero = _placeholder_zeros.get(values.device)
    if zero is None:
        zero = _placeholder_zeros[values.device] = _C.zeros((), dtype=_C.bfloat16, device=values.device)
    return zero.expand(size)


class _SparseBase(Tensor):
    """The members a sparse tensor of either layout answers alike. Not a layout of its own: only its subclasses
    are ever made (by new_instance, from their modules' wrap())."""

    __slots__ = ("_vals", "_size")
    is_quantized = is_meta = is_nested = is_mkldnn = False
    __hash__ = object.__hash__  # identity, as tensors hash (the comparisons below refuse)

    def __new__(cls, *args, **kwargs):
        # Each layout's wrap() makes its tensors (new_instance over parts already checked); users go through the
        # constructors its _made_by names.
        raise TypeError(f"{cls.__name__} cannot be constructed directly\nhint: use {cls._made_by}")

    @classmethod
    def new_instance(cls, values, size):
        """An instance over a placeholder of size's shape and values' dtype and device (_make_subclass does not
        call __new__); the caller sets the parts."""
        t = Tensor._make_subclass(cls, _placeholder(values, size), False)
        t._vals, t._size = values, size
        return t

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        """Public functions and Tensor methods that reach a sparse tensor: see _dispatch.py."""
        from ._dispatch import torch_function  # noqa: PLC0415  (_dispatch imports the layouts, which import this)

        return torch_function(cls, func, types, args, kwargs or {})

    # ---- shape, dtype, device ---------------------------------------------------------------------------------
    @property
    def shape(self):
        return self._size

    def size(self, dim=None):
        return self._size if dim is None else self._size[wrap_dim(dim, len(self._size))]

    def dim(self):
        return len(self._size)

    ndimension = dim

    @property
    def ndim(self):
        return len(self._size)

    def numel(self):
        n = 1
        for s in self._size:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        if not self._size:
            raise TypeError("len() of a 0-d tensor")
        return self._size[0]

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    @property
    def is_cuda(self):
        return self._vals.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._vals.device.type == "cpu"

    def get_device(self):
        return self._vals.get_device()

    def element_size(self):
        return self._vals.element_size()

    @property
    def itemsize(self):
        return self._vals.element_size()

    @property
    def real(self):
        return self._rewrap(self._index_tensors(), self._vals.real) if self._vals.is_complex() else self

    @property
    def imag(self):
        if not self._vals.is_complex():
            raise TypeError("imag is not implemented for tensors with non-complex dtypes.")
        return self._rewrap(self._index_tensors(), self._vals.imag)

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def is_complex(self):
        return self._vals.is_complex()

    # ---- autograd: everything lives on the values -------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Makes this (leaf) sparse tensor require grad: its values become a leaf of their own, so the tensor
        the values came from is left as it was (PyTorch's values are a separate alias too)."""
        if self._vals.requires_grad == bool(requires_grad):
            return self
        if self._vals.grad_fn is not None:
            self._vals.requires_grad_(requires_grad)  # tandem's error for a non-leaf
        self._vals = self._vals.detach().requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    @property
    def is_leaf(self):
        return self._vals.grad_fn is None

    @property
    def grad(self):
        """A leaf's gradient on the leaf's pattern (its layout's _leaf_grad says in which form)."""
        if self._vals.grad_fn is not None or self._vals.grad is None:
            return None
        return self._leaf_grad()

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise NotImplementedError("assigning .grad of a sparse tensor is not supported\nhint: set it to None "
                                      "(the next backward then starts from zero)")
        self._vals.grad = None

    @property
    def data(self):
        return self.detach()

    def detach(self):
        return self._rewrap(self._index_tensors(), self._vals.detach())

    def clone(self, *, memory_format=None):
        return self._rewrap(tuple(i.clone() for i in self._index_tensors()), self._vals.clone())

    def neg(self):
        return self._rewrap(self._index_tensors(), self._vals.neg())

    __neg__ = neg

    # ---- devices and dtypes -----------------------------------------------------------------------------------
    def _with_values(self, values, non_blocking=False, copy=False):
        """Self over values converted by Tensor.to and friends; the index tensors follow them to their device."""
        if values is self._vals:
            return self
        indices = self._index_tensors()
        if indices[0].device != values.device:
            indices = tuple(i.to(values.device, non_blocking=non_blocking) for i in indices)
        elif copy:
            indices = tuple(i.clone() for i in indices)
        return self._rewrap(indices, values)

    def cuda(self, device=None, non_blocking=False):
        return self._with_values(self._vals.cuda(device, non_blocking=non_blocking), non_blocking)

    def cpu(self):
        return self._with_values(self._vals.cpu())

    # ---- conversions ------------------------------------------------------------------------------------------
    def numpy(self, *, force=False):
        raise TypeError(f"can't convert {self._backend} layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage\nhint: call "
                           ".to_dense() first")

    # ---- what a sparse tensor refuses -------------------------------------------------------------------------
    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.to_dense().item()

    def __format__(self, format_spec):
        if format_spec:  # PyTorch formats only one-element tensors with a spec
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    def __copy__(self):
        return self._rewrap(self._index_tensors(), self._vals)

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.to_dense().item())

    @staticmethod
    def _refuse_dense(op, t):
        """PyTorch's error for a dense tensor where its sparse kernel reads a sparse field (aten::_values, ...)."""
        backend = "CUDA" if t.is_cuda else "CPU"
        return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the '{backend}' backend.\n"
                                   "hint: the tensor is dense; make it sparse first (t.to_sparse())")

    def _refuse(self, op):
        backend = self._backend + ("CUDA" if self.is_cuda else "CPU")
        return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the '{backend}' backend.\n"
                                   f"hint: {self._refuse_hint}")

    def __getitem__(self, index):
        raise self._refuse("index")

    def __setitem__(self, index, value):
        raise self._refuse("index_put_")

    def __iter__(self):
        raise self._refuse("unbind")

    def _compare(self, op, other):
        """A comparison operator (op: PyTorch's name, 'lt') with a tensor or number: the layout's refusal, naming
        PyTorch's overload for the operand; anything else is NotImplemented, so == and != fall back to identity
        (False / True, as PyTorch's) and <, <=, >, >= raise Python's TypeError."""
        if not isinstance(other, (Tensor, numbers.Number)):
            return NotImplemented
        raise self._refuse(f"{op}.{'Scalar' if isinstance(other, numbers.Number) else 'Tensor'}")

    def __eq__(self, other):
        return self._compare("eq", other)

    def __ne__(self, other):
        return self._compare("ne", other)

    def __lt__(self, other):
        return self._compare("lt", other)

    def __le__(self, other):
        return self._compare("le", other)

    def __gt__(self, other):
        return self._compare("gt", other)

    def __ge__(self, other):
        return self._compare("ge", other)

    # ---- copying and printing ---------------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        values = self._vals.detach().clone().requires_grad_(self._vals.requires_grad)
        result = self._rewrap(tuple(i.clone() for i in self._index_tensors()), values)
        memo[id(self)] = result
        return result

    def _repr_suffixes(self, values):
        """What follows the parts in PyTorch's repr of a sparse tensor: device, size, nnz, dtype, layout and
        autograd."""
        suffixes = []
        if values.device.type != "cpu":
            suffixes.append(_suffix(f"device='{values.device}'"))
        suffixes += [_suffix(f"size={tuple(self._size)}"), _suffix(f"nnz={self._nnz()}")]
        if not _dtype_is_implied(values.dtype):
            suffixes.append(_dtype_suffix(values.dtype))
        # Laid out with the length of PyTorch's spelling (torch.<layout>), so lines break where PyTorch's do.
        layout = repr(self.layout)
        suffixes.append((f"layout={layout}", len("layout=torch.") + len(layout.partition(".")[2])))
        if self.grad_fn is not None:
            suffixes.append(_suffix(f"grad_fn=<{self.grad_fn.name()}>"))
        elif self.requires_grad:
            suffixes.append(_suffix("requires_grad=True"))
        return suffixes


def _comparison_method(name, op):
    """Tensor.eq / lt / ... and their aliases and in-place forms (op: PyTorch's name, 'lt_' for lt_ and less_):
    the layout's refusal, or the binding's TypeError for an operand no comparison takes."""
    def method(self, other):
        if self._compare(op, other) is NotImplemented:
            raise TypeError(f"{name}(): argument 'other' must be Tensor or Number, not {type(other).__name__}")

    method.__name__ = method.__qualname__ = name
    return method


for _op, _aliases in (("eq", ()), ("ne", ("not_equal",)), ("lt", ("less",)), ("le", ("less_equal",)),
                      ("gt", ("greater",)), ("ge", ("greater_equal",))):
    for _name in (_op, *_aliases):
        setattr(_SparseBase, _name, _comparison_method(_name, _op))
        setattr(_SparseBase, _name + "_", _comparison_method(_name + "_", _op + "_"))
del _op, _aliases, _name


def _conversion(dtype):
    def method(self, memory_format=None):
        return self.to(dtype)

    return method


for _name, _dtype in (("float", _C.float32), ("double", _C.float64), ("half", _C.float16), ("bfloat16", _C.bfloat16),
                      ("long", _C.int64), ("int", _C.int32), ("short", _C.int16), ("char", _C.int8),
                      ("byte", _C.uint8), ("bool", _C.bool)):
    setattr(_SparseBase, _name, _conversion(_dtype))
del _name, _dtype
