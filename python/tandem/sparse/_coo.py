"""SparseCooTensor: PyTorch's sparse COO tensor. It holds ``indices`` (int64, sparse_dim x nnz), ``values`` (a dense
tandem tensor of shape (nnz, *dense dims)) and a ``size``; element ``indices[:, k]`` holds ``values[k]`` and every
other element is zero (duplicates add up until coalesce() merges them).

It is a Python class, not a tandem.Tensor subclass: a subclass carries a dense C++ tensor that every dense op would
read as the data (giving garbage), whereas a class of its own makes each dense op that does not know sparse tensors
refuse it with a TypeError. The math (_math.py) composes dense tandem ops on indices and values, so autograd through
the values, dtypes and every device (cpu, cuda, emulated cuda) come from those ops."""
from .. import _C
from .._layouts import sparse_coo, sparse_csr
from .._legacy import _BY_DTYPE, _target_of_type_arg
from .._size import Size
from .._tensor_str import _add_suffixes, _dtype_is_implied, _dtype_suffix, _options, _suffix, tensor_body
from . import _construct, _math

Tensor = _C.Tensor


def wrap(indices, values, size, coalesced):
    """A sparse tensor over parts the caller has validated or derived (no checks, no copies)."""
    t = object.__new__(SparseCooTensor)
    t._idx, t._vals, t._size, t._coalesced = indices, values, Size(size), coalesced
    return t


def wrap_dim(dim, ndim):
    """dim counted from the front (negative dims count from the back), PyTorch's IndexError when out of range."""
    low, high = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not low <= dim <= high:
        raise IndexError(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {dim})")
    return dim % ndim if ndim else 0


class SparseCooTensor:
    """A sparse COO tensor (layout tandem.sparse_coo); build one with tandem.sparse_coo_tensor(indices, values,
    size) or dense.to_sparse()."""

    __module__ = "tandem.sparse"  # where users meet it (and how dense ops' TypeErrors name it)
    __slots__ = ("_idx", "_vals", "_size", "_coalesced", "__weakref__")
    is_sparse = True
    is_sparse_csr = is_quantized = is_meta = is_nested = is_mkldnn = False
    layout = sparse_coo
    __hash__ = object.__hash__  # identity, as tensors hash (the comparisons below refuse)

    def __new__(cls, *args, **kwargs):
        raise TypeError("SparseCooTensor cannot be constructed directly\nhint: use tandem.sparse_coo_tensor(indices, "
                        "values, size) or dense.to_sparse()")

    # ---- what it is made of -------------------------------------------------------------------------------
    def _indices(self):
        return self._idx

    def _values(self):
        return self._vals

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call .coalesce() first")
        return self._idx

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call .coalesce() first")
        return self._vals

    def _nnz(self):
        return self._idx.shape[1]

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return self._vals.dim() - 1

    def is_coalesced(self):
        return self._coalesced

    def coalesce(self):
        """Duplicates summed, entries sorted by index (self when already coalesced)."""
        return _math.coalesce(self)

    # ---- shape, dtype, device --------------------------------------------------------------------------------
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

    def is_floating_point(self):
        return self._vals.is_floating_point()

    def is_complex(self):
        return self._vals.is_complex()

    def is_contiguous(self, memory_format=None):
        return False  # no strides: PyTorch answers False too

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
        """A leaf's gradient: sparse and coalesced, on the leaf's pattern (as torch.sparse.mm gives it)."""
        if self._vals.grad_fn is not None or self._vals.grad is None:
            return None
        return _math.leaf_grad(self)

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
        return wrap(self._idx, self._vals.detach(), self._size, self._coalesced)

    def clone(self, *, memory_format=None):
        return wrap(self._idx.clone(), self._vals.clone(), self._size, self._coalesced)

    # ---- devices and dtypes -----------------------------------------------------------------------------------
    def _with_values(self, values, non_blocking=False, copy=False):
        if values is self._vals:
            return self
        indices = self._idx
        if indices.device != values.device:
            indices = indices.to(values.device, non_blocking=non_blocking)
        elif copy:
            indices = indices.clone()
        return wrap(indices, values, self._size, self._coalesced)

    def to(self, *args, **kwargs):
        """Tensor.to's forms (device, dtype, other tensor, non_blocking, copy), applied to values and indices."""
        if args and isinstance(args[0], SparseCooTensor):
            args = (args[0].device, args[0].dtype) + args[1:]
        return self._with_values(self._vals.to(*args, **kwargs), kwargs.get("non_blocking", False),
                                 kwargs.get("copy", False))

    def cuda(self, device=None, non_blocking=False):
        return self._with_values(self._vals.cuda(device, non_blocking=non_blocking), non_blocking)

    def cpu(self):
        return self._with_values(self._vals.cpu())

    def type(self, dtype=None, non_blocking=False):
        """'tandem.sparse.FloatTensor' (or 'tandem.cuda.sparse.FloatTensor'); with a dtype, self converted."""
        if dtype is None:
            where = "tandem.cuda.sparse." if self.is_cuda else "tandem.sparse."
            return where + _BY_DTYPE[self.dtype]
        return self.to(_target_of_type_arg(dtype)[0], non_blocking=non_blocking)

    # ---- conversions ------------------------------------------------------------------------------------------
    def to_dense(self, dtype=None, *, masked_grad=None):
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_to_dense\nhint: convert after: "
                               ".to_dense().to(dtype)")
        return _math.to_dense(self)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        if layout is sparse_csr:
            return _construct._to_csr(self, blocksize, dense_dim, "Sparse")
        _construct.check_coo_layout(layout, blocksize, "Sparse")
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                               "!=self.sparse_dim() is not supported")
        return self

    def to_sparse_coo(self):
        return self

    def to_sparse_csr(self, dense_dim=None):
        return _construct._to_csr(self, None, dense_dim, "Sparse")

    def numpy(self, *, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage\nhint: call "
                           ".to_dense() first")

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self.to_dense().item()

    # ---- views ------------------------------------------------------------------------------------------------
    def t(self):
        return _math.t(self)

    def transpose(self, dim0, dim1):
        return _math.transpose(self, dim0, dim1)

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        return _math.t(self)

    # ---- arithmetic -------------------------------------------------------------------------------------------
    def mm(self, mat2):
        return _math.mm(self, mat2)

    def matmul(self, other):
        return _math.matmul(self, other)

    def __matmul__(self, other):
        return _math.matmul(self, other) if _math.is_operand(other) else NotImplemented

    def __rmatmul__(self, other):
        return _math.matmul(other, self) if _math.is_operand(other) else NotImplemented

    def add(self, other, *, alpha=1):
        return _math.add(self, other, alpha)

    __add__ = add

    def __radd__(self, other):
        return _math.add_to_dense(other, self, 1)

    def sub(self, other, *, alpha=1):
        return _math.add(self, other, -alpha, "sub")

    __sub__ = sub

    def __rsub__(self, other):
        return _math.add_to_dense(other, self, -1, "sub")

    def mul(self, other):
        return _math.mul(self, other)

    def __mul__(self, other):
        return _math.mul(self, other) if _math.is_operand(other) else NotImplemented

    __rmul__ = __mul__

    def div(self, other, *, rounding_mode=None):
        return _math.div(self, other, rounding_mode)

    def __truediv__(self, other):
        return _math.div(self, other) if _math.is_operand(other) else NotImplemented

    def neg(self):
        return wrap(self._idx, self._vals.neg(), self._size, self._coalesced)

    __neg__ = neg

    def pow(self, exponent):
        return _math.pow(self, exponent)

    __pow__ = pow

    def mul_(self, other):
        """In place by a number or 0-d tensor (the values are scaled; the pattern stays)."""
        _math.check_scalar_operand(self, other, "mul_")
        self._vals.mul_(other)
        return self

    def div_(self, other):
        _math.check_scalar_operand(self, other, "div_")
        self._vals.div_(other)
        return self

    def zero_(self):
        """No entries left, as PyTorch's zero_ leaves a sparse tensor (nnz 0, coalesced)."""
        self._idx = self._idx[:, :0]
        self._vals = self._vals.detach()[:0].requires_grad_(self._vals.requires_grad)
        self._coalesced = True
        return self

    def sum(self, dim=None, keepdim=False, dtype=None):
        return _math.sum(self, dim, keepdim, dtype)

    # ---- what a sparse tensor refuses --------------------------------------------------------------------------
    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def _refuse(self, op):
        backend = "SparseCUDA" if self.is_cuda else "SparseCPU"
        return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the '{backend}' backend.\n"
                                   "hint: tandem's sparse COO tensors support the operations listed in docs/ops.md "
                                   "(Sparse tensors); call .to_dense() first for the others")

    def __getattr__(self, name):
        # Only reached for names the class lacks: a Tensor method or property gets PyTorch's "Could not run"
        # error (not an AttributeError that reads like a typo).
        if not name.startswith("_") and hasattr(Tensor, name):
            raise self._refuse(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __getitem__(self, index):
        raise self._refuse("index")

    def __setitem__(self, index, value):
        raise self._refuse("index_put_")

    def __iter__(self):
        raise self._refuse("unbind")

    def __eq__(self, other):
        raise self._refuse("eq.Tensor")

    def __ne__(self, other):
        raise self._refuse("ne.Tensor")

    def __lt__(self, other):
        raise self._refuse("lt.Tensor")

    def __le__(self, other):
        raise self._refuse("le.Tensor")

    def __gt__(self, other):
        raise self._refuse("gt.Tensor")

    def __ge__(self, other):
        raise self._refuse("ge.Tensor")

    # ---- copying and pickling ---------------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        values = self._vals.detach().clone().requires_grad_(self._vals.requires_grad)
        result = wrap(self._idx.clone(), values, self._size, self._coalesced)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return _rebuild, (self._idx, self._vals, tuple(self._size), self._coalesced)

    # ---- printing ---------------------------------------------------------------------------------------------
    def __repr__(self):
        """PyTorch's repr of a sparse tensor: indices and values, then size, nnz, dtype and layout."""
        indent = len("tensor(")
        values = self._vals.detach()
        suffixes = []
        if values.device.type != "cpu":
            suffixes.append(_suffix(f"device='{values.device}'"))
        suffixes += [_suffix(f"size={tuple(self._size)}"), _suffix(f"nnz={self._nnz()}")]
        if not _dtype_is_implied(values.dtype):
            suffixes.append(_dtype_suffix(values.dtype))
        # Laid out with the length of PyTorch's spelling, so lines break where PyTorch's do.
        suffixes.append((f"layout={sparse_coo!r}", len("layout=torch.sparse_coo")))
        if self.grad_fn is not None:
            suffixes.append(_suffix(f"grad_fn=<{self.grad_fn.name()}>"))
        elif self.requires_grad:
            suffixes.append(_suffix("requires_grad=True"))
        text = ("tensor(indices=tensor(" + _part(self._idx, indent + len("indices=tensor(")) + "),\n"
                + " " * indent + "values=tensor(" + _part(values, indent + len("values=tensor(")) + ")")
        return _add_suffixes(text, suffixes, indent, _options.linewidth, newline_first=True)

    __str__ = __repr__


def _part(t, indent):
    """indices or values as the sparse repr prints them: an empty one says its size."""
    body = tensor_body(t, indent)
    return body + f", size={tuple(t.shape)}" if t.numel() == 0 else body


def _rebuild(indices, values, size, coalesced):
    return _construct.sparse_coo_tensor(indices, values, size, check_invariants=False,
                                        is_coalesced=coalesced or None)


def _unary(name):
    def method(self):
        c = _math.coalesce(self)
        return wrap(c._idx, getattr(c._vals, name)(), c._size, True)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{name} of each stored value (after coalesce): zero maps to zero, so the pattern stays."
    return method


def _conversion(dtype):
    def method(self, memory_format=None):
        return self.to(dtype)

    return method


# Elementwise ops that map zero to zero, so they act on the values alone (PyTorch's sparse COO kernels).
ZERO_PRESERVING = ("abs", "asin", "asinh", "atan", "atanh", "ceil", "deg2rad", "erf", "erfinv", "expm1", "floor",
                   "frac", "log1p", "rad2deg", "relu", "round", "sgn", "sign", "sin", "sinh", "sqrt", "square", "tan",
                   "tanh", "trunc")
for _name in ZERO_PRESERVING:
    setattr(SparseCooTensor, _name, _unary(_name))
for _name, _dtype in (("float", _C.float32), ("double", _C.float64), ("half", _C.float16), ("bfloat16", _C.bfloat16),
                      ("long", _C.int64), ("int", _C.int32), ("short", _C.int16), ("char", _C.int8),
                      ("byte", _C.uint8), ("bool", _C.bool)):
    setattr(SparseCooTensor, _name, _conversion(_dtype))
del _name, _dtype
