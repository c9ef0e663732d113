"""SparseCooTensor: PyTorch's sparse COO tensor. It holds ``indices`` (int64, sparse_dim x nnz), ``values`` (a dense
tandem tensor of shape (nnz, *dense dims)) and a ``size``; element ``indices[:, k]`` holds ``values[k]`` and every
other element is zero (duplicates add up until coalesce() merges them).

It is a tandem.Tensor subclass, as PyTorch's sparse tensors are torch.Tensors. The C++ tensor it carries is a
placeholder (a zero expanded to the size, _base.py) that nothing reads as data: its own members answer shape,
dtype, values and the rest, and every public function, Tensor method and operator that reaches it goes to
_SparseBase.__torch_function__ (_dispatch.py), which runs the functions written for sparse operands and refuses the
others with PyTorch's "Could not run 'aten::<op>'" error. The math (_math.py) composes dense tandem ops on indices
and values, so autograd through the values, dtypes and every device (cpu, cuda, emulated cuda) come from those
ops."""
from .._layouts import sparse_coo, sparse_csc, strided
from .._legacy import _BY_DTYPE, _target_of_type_arg
from .._size import Size
from .._tensor_str import _add_suffixes, _options
from . import _construct, _conversion_args, _math
from .. import _C
from ._base import _SparseBase, is_dense, repr_part


def wrap(indices, values, size, coalesced):
    """A sparse tensor over parts the caller has validated or derived (no checks, no copies)."""
    t = SparseCooTensor.new_instance(values, Size(size))
    t._idx, t._coalesced = indices, coalesced
    return t


class SparseCooTensor(_SparseBase):
    """A sparse COO tensor (layout tandem.sparse_coo); build one with tandem.sparse_coo_tensor(indices, values,
    size) or dense.to_sparse()."""

    __module__ = "tandem.sparse"  # where users meet it (and how dense ops' TypeErrors name it)
    __slots__ = ("_idx", "_coalesced")
    is_sparse = True
    is_sparse_csr = False
    layout = sparse_coo
    _backend = "Sparse"  # PyTorch's name for the layout in its messages (SparseCPU, "Sparse layout")
    _refuse_hint = ("tandem's sparse COO tensors support the operations listed in docs/ops.md (Sparse tensors); call "
                    ".to_dense() first for the others")
    _made_by = "tandem.sparse_coo_tensor(indices, values, size) or dense.to_sparse()"

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

    def _coalesced_(self, coalesced):
        """Marks self coalesced (or not) in place without checking, as PyTorch's: the caller vouches for it."""
        self._coalesced = bool(coalesced)
        return self

    def coalesce(self):
        """Duplicates summed, entries sorted by index (self when already coalesced)."""
        return _math.coalesce(self)

    # ---- shape (the rest of shape, dtype, device and autograd is _base.py's) ----------------------------------
    def is_contiguous(self, memory_format=None):
        return False  # no strides: PyTorch answers False too

    @property
    def nbytes(self):
        raise RuntimeError("nbytes is not defined for sparse tensors.  If you want the size of the constituent "
                           "tensors, add the nbytes of the indices and values.  If you want the size of the  "
                           "equivalent dense tensor, multiply numel() by element_size()")

    # ---- what _SparseBase builds on ---------------------------------------------------------------------------
    def _index_tensors(self):
        return (self._idx,)

    def _rewrap(self, indices, values):
        """Self's size and coalesced flag over other (index, values) tensors."""
        return wrap(indices[0], values, self._size, self._coalesced)

    def _leaf_grad(self):
        """Sparse and coalesced, on the leaf's pattern (as torch.sparse.mm gives it)."""
        return _math.leaf_grad(self)

    # ---- devices and dtypes -----------------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Tensor.to's forms (device, dtype, other tensor, non_blocking, copy), applied to values and indices."""
        if args and isinstance(args[0], SparseCooTensor):
            args = (args[0].device, args[0].dtype) + args[1:]
        return self._with_values(self._vals.to(*args, **kwargs), kwargs.get("non_blocking", False),
                                 kwargs.get("copy", False))

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
        """Self (in layout sparse_coo), its CSR or CSC form or to_dense() (strided), with PyTorch's checks."""
        if sparse_dim is not None:
            if sparse_dim != self.sparse_dim():
                raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim argument "
                                   "!=self.sparse_dim() is not supported")
            return self
        layout = _conversion_args.target_layout(layout)
        if layout is sparse_coo:
            _conversion_args.check("to_sparse", self, sparse_coo, sparse_coo, blocksize, dense_dim)
            return self
        _conversion_args.check("sparse_coo_to_sparse", self, sparse_coo, layout, blocksize, dense_dim)
        if layout is strided:
            return self.to_dense()
        return self.to_sparse_csc() if layout is sparse_csc else self.to_sparse_csr()

    def to_sparse_coo(self):
        return self

    def to_sparse_csc(self):
        from ._csc import to_sparse_csc  # noqa: PLC0415  (_csc imports this module)

        return to_sparse_csc(self)

    def to_sparse_csr(self, dense_dim=None):
        from ._csr_construct import coo_to_sparse_csr  # noqa: PLC0415  (_csr_construct imports this module)

        return coo_to_sparse_csr(self, dense_dim)

    # ---- views ------------------------------------------------------------------------------------------------
    def t(self):
        return _math.t(self)

    def transpose(self, dim0, dim1):
        return _math.transpose(self, dim0, dim1)

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        return _math.t(self)

    @property
    def mT(self):  # noqa: N802  (PyTorch's name; linear_operator's sparse matmul backward uses it)
        return _math.matrix_transpose(self, "mT")

    @property
    def mH(self):  # noqa: N802
        return _math.matrix_transpose(self, "mH")

    @property
    def H(self):  # noqa: N802
        return _math.matrix_transpose(self, "H")

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

    def add_(self, other, *, alpha=1):
        return _math.add_(self, other, alpha)

    __iadd__ = add_

    def sub_(self, other, *, alpha=1):
        return _math.add_(self, other, -alpha)

    __isub__ = sub_

    def sub(self, other, *, alpha=1):
        return _math.add(self, other, -alpha)  # PyTorch's sub is its add, and its errors name add

    __sub__ = sub

    def __rsub__(self, other):
        return _math.add_to_dense(other, self, -1)

    def mul(self, other):
        return _math.mul(self, other)

    def __mul__(self, other):
        return _math.mul(self, other) if _math.is_operand(other) else NotImplemented

    __rmul__ = __mul__

    def div(self, other, *, rounding_mode=None):
        return _math.div(self, other, rounding_mode)

    def __truediv__(self, other):
        return _math.div(self, other) if _math.is_operand(other) else NotImplemented

    def __rtruediv__(self, other):
        """dense / sparse: PyTorch refuses it, naming the sparse divisor's shape."""
        if not _math.is_operand(other):
            return NotImplemented
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{list(self._size)} for divisor)")

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

    def new(self, *args, device=None):
        """The legacy constructor on a sparse tensor: new() is an empty (0,)-sized tensor, new(*sizes) or
        new(Size) an empty one of that size, both of self's dtype; new(indices, values[, size]) is
        sparse_coo_tensor of them (values keep their dtype, uncoalesced). pytorch_optimizer's SM3 builds its
        sparse updates this way."""
        device = self.device if device is None else device
        if len(args) in (2, 3) and is_dense(args[0]) and is_dense(args[1]) and (
                len(args) == 2 or isinstance(args[2], (tuple, list, Size))):
            return _construct.sparse_coo_tensor(*args, device=device, check_invariants=False)
        if len(args) == 1 and isinstance(args[0], (tuple, list)) and not isinstance(args[0], Size):
            raise TypeError("SparseTensor.new(sequence) only accepts sizes.  Please use torch.sparse_coo_tensor() "
                            "or construct a strided tensor and convert it to sparse via to_sparse.")
        size = list(args[0]) if len(args) == 1 and isinstance(args[0], Size) else list(args)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in size):
            raise TypeError(f"new() received an invalid combination of arguments - got "
                            f"({', '.join(_type_name(a) for a in args)}), but expected one of:\n" + _NEW_FORMS)
        size = size or [0]
        return wrap(_C.zeros((len(size), 0), dtype=_C.int64, device=device),
                    _C.zeros([0], dtype=self.dtype, device=device), Size(size), True)

    def resize_as_(self, other):
        """Self emptied to other's size, sparse and dense dims (PyTorch's sparse resize_as_ keeps no entries
        when self has none)."""
        if not isinstance(other, SparseCooTensor) or self._nnz():
            raise NotImplementedError("tandem: sparse resize_as_ takes an empty sparse tensor and a sparse COO "
                                      "template\nhint: build the tensor with other.new(indices, values, size)")
        dense = tuple(other._vals.shape[1:])
        self._idx = _C.zeros((other.sparse_dim(), 0), dtype=_C.int64, device=self.device)
        self._vals = _C.zeros((0,) + dense, dtype=self.dtype, device=self.device)
        self._size, self._coalesced = other._size, True
        return self

    def sum(self, dim=None, keepdim=False, dtype=None):
        return _math.sum(self, dim, keepdim, dtype)

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None):
        return _math.norm(self, p, dim, keepdim, dtype)

    # ---- pickling and printing --------------------------------------------------------------------------------
    def __reduce_ex__(self, protocol):
        return _rebuild, (self._idx, self._vals, tuple(self._size), self._coalesced)

    def __repr__(self):
        """PyTorch's repr of a sparse tensor: indices and values, then size, nnz, dtype and layout."""
        indent = len("tensor(")
        values = self._vals.detach()
        text = ("tensor(indices=tensor(" + repr_part(self._idx, indent + len("indices=tensor(")) + "),\n"
                + " " * indent + "values=tensor(" + repr_part(values, indent + len("values=tensor(")) + ")")
        return _add_suffixes(text, self._repr_suffixes(values), indent, _options.linewidth, newline_first=True)

    __str__ = __repr__


_NEW_FORMS = (" * (*, torch.device device = None)\n * (Tensor indices, Tensor values, *, torch.device device = None)\n"
              " * (Tensor indices, Tensor values, tuple of ints size, *, torch.device device = None)\n"
              " * (tuple of ints size, *, torch.device device = None)\n")


def _type_name(value):
    return "Tensor" if isinstance(value, _C.Tensor) else type(value).__name__


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


# Elementwise ops that map zero to zero, so they act on the values alone (PyTorch's sparse COO kernels).
ZERO_PRESERVING = ("abs", "asin", "asinh", "atan", "atanh", "ceil", "deg2rad", "erf", "erfinv", "expm1", "floor",
                   "frac", "log1p", "rad2deg", "relu", "round", "sgn", "sign", "sin", "sinh", "sqrt", "square", "tan",
                   "tanh", "trunc")
for _name in ZERO_PRESERVING:
    setattr(SparseCooTensor, _name, _unary(_name))
del _name
