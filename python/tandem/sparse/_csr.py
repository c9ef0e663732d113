"""SparseCsrTensor: PyTorch's sparse CSR tensor (layout tandem.sparse_csr), a 2-d matrix held as ``crow_indices``
(nrows + 1 row starts), ``col_indices`` (nnz) and ``values`` (nnz): row i's entries are positions
crow_indices[i]:crow_indices[i + 1] of col_indices and values.

A Python class, like SparseCooTensor and for the same reason (every dense op refuses it with a TypeError instead
of reading a dense tensor it does not have). The math reads the matrix as a COO tensor over the same values (row
indices expanded from crow_indices with one repeat_interleave), so products, sums and to_dense are COO's
(_math.py), with autograd through the values and every device coming from the dense ops they compose."""
import numbers

from .. import _C
from .._layouts import sparse_coo, sparse_csr
from .._legacy import _target_of_type_arg
from .._size import Size
from .._tensor_str import _add_suffixes, _dtype_is_implied, _dtype_suffix, _options, _suffix
from . import _coo, _math

Tensor = _C.Tensor


def wrap(crow_indices, col_indices, values, size):
    """A CSR tensor over parts the caller has validated or derived (no checks, no copies)."""
    t = object.__new__(SparseCsrTensor)
    t._crow, t._col, t._vals, t._size = crow_indices, col_indices, values, Size(size)
    return t


def row_indices(t):
    """Each entry's row (int64), expanded from crow_indices."""
    crow = t._crow if t._crow.dtype == _C.int64 else t._crow.to(_C.int64)
    rows = _C.arange(t._size[0], dtype=_C.int64, device=crow.device)
    return rows.repeat_interleave(crow[1:] - crow[:-1])


def as_coo(t):
    """The same matrix as a COO tensor over the same values tensor (so gradients reach them). Entries come in
    row order; they are coalesced when each row's columns are sorted and distinct, which PyTorch's invariants
    ask for but do not check by default, so the tensor is marked uncoalesced unless it has under 2 entries."""
    col = t._col if t._col.dtype == _C.int64 else t._col.to(_C.int64)
    indices = _C.stack([row_indices(t), col])
    return _coo.wrap(indices, t._vals, t._size, t._vals.shape[0] < 2)


def from_coo(c, index_dtype=_C.int64):
    """A coalesced 2-d COO tensor (no dense dims) as CSR: its entries are sorted by row, so row i starts where
    searchsorted puts i among the rows."""
    rows, cols = c._idx.unbind(0)
    bounds = _C.arange(c._size[0] + 1, dtype=_C.int64, device=rows.device)
    crow = _C.searchsorted(rows.contiguous(), bounds)
    if index_dtype != _C.int64:
        crow, cols = crow.to(index_dtype), cols.to(index_dtype)
    return wrap(crow, cols.contiguous(), c._vals, c._size)


class SparseCsrTensor:
    """A sparse CSR matrix (layout tandem.sparse_csr); build one with tandem.sparse_csr_tensor(crow_indices,
    col_indices, values, size) or dense.to_sparse_csr()."""

    __module__ = "tandem.sparse"
    __slots__ = ("_crow", "_col", "_vals", "_size", "__weakref__")
    is_sparse_csr = True
    is_sparse = is_quantized = is_meta = is_nested = is_mkldnn = False
    layout = sparse_csr
    __hash__ = object.__hash__

    def __new__(cls, *args, **kwargs):
        raise TypeError("SparseCsrTensor cannot be constructed directly\nhint: use tandem.sparse_csr_tensor("
                        "crow_indices, col_indices, values, size) or dense.to_sparse_csr()")

    # ---- what it is made of -------------------------------------------------------------------------------
    def crow_indices(self):
        return self._crow

    def col_indices(self):
        return self._col

    def values(self):
        return self._vals

    def _nnz(self):
        return self._col.shape[0]

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return 0

    # ---- shape, dtype, device --------------------------------------------------------------------------------
    @property
    def shape(self):
        return self._size

    def size(self, dim=None):
        return self._size if dim is None else self._size[_coo.wrap_dim(dim, 2)]

    def dim(self):
        return 2

    ndimension = dim

    @property
    def ndim(self):
        return 2

    def numel(self):
        return self._size[0] * self._size[1]

    nelement = numel

    def __len__(self):
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
        raise RuntimeError("Sparse CSR tensors do not have is_contiguous")

    # ---- autograd: everything lives on the values -------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        """Makes this (leaf) CSR tensor require grad: its values become a leaf of their own (the tensor they
        came from is left as it was)."""
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
        """A leaf's gradient as a CSR tensor on the leaf's pattern (PyTorch's mm gives a dense one)."""
        if self._vals.grad_fn is not None or self._vals.grad is None:
            return None
        return wrap(self._crow, self._col, self._vals.grad, self._size)

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
        return wrap(self._crow, self._col, self._vals.detach(), self._size)

    def clone(self, *, memory_format=None):
        return wrap(self._crow.clone(), self._col.clone(), self._vals.clone(), self._size)

    # ---- devices and dtypes -----------------------------------------------------------------------------------
    def _with_values(self, values, non_blocking=False, copy=False):
        if values is self._vals:
            return self
        crow, col = self._crow, self._col
        if crow.device != values.device:
            crow = crow.to(values.device, non_blocking=non_blocking)
            col = col.to(values.device, non_blocking=non_blocking)
        elif copy:
            crow, col = crow.clone(), col.clone()
        return wrap(crow, col, values, self._size)

    def to(self, *args, **kwargs):
        """Tensor.to's forms (device, dtype, other tensor, non_blocking, copy), applied to the three parts."""
        if args and isinstance(args[0], (SparseCsrTensor, _coo.SparseCooTensor)):
            args = (args[0].device, args[0].dtype) + args[1:]
        return self._with_values(self._vals.to(*args, **kwargs), kwargs.get("non_blocking", False),
                                 kwargs.get("copy", False))

    def cuda(self, device=None, non_blocking=False):
        return self._with_values(self._vals.cuda(device, non_blocking=non_blocking), non_blocking)

    def cpu(self):
        return self._with_values(self._vals.cpu())

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            backend = "SparseCsrCUDA" if self.is_cuda else "SparseCsrCPU"
            raise RuntimeError(f"Unimplemented backend {backend}\nhint: tandem.sparse has legacy type names for "
                               "COO tensors only; read .dtype and .device")
        return self.to(_target_of_type_arg(dtype)[0], non_blocking=non_blocking)

    # ---- conversions ------------------------------------------------------------------------------------------
    def to_dense(self, dtype=None, *, masked_grad=None):
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_csr_to_dense\nhint: convert after: "
                               ".to_dense().to(dtype)")
        return _math.to_dense(as_coo(self))

    def to_sparse_coo(self):
        """The COO tensor with these entries, coalesced (one sort when a row's columns are out of order)."""
        return _math.coalesce(as_coo(self))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        if layout is sparse_csr:
            if dense_dim is not None:
                raise RuntimeError("to_sparse_csr: conversion from SparseCsr to SparseCsr with dense_dim argument "
                                   "given is not supported")
            return self
        if layout is not None and layout is not sparse_coo:
            raise NotImplementedError(f"to_sparse(): layout={layout} is not supported\nhint: tandem has the "
                                      "sparse_coo and sparse_csr layouts")
        if sparse_dim is not None and sparse_dim != 2:
            raise RuntimeError("sparse_compressed_to_sparse: conversion from SparseCsr to Sparse with sparse_dim "
                               "argument !=2 is not supported")
        return self.to_sparse_coo()

    def to_sparse_csr(self, dense_dim=None):
        if dense_dim is not None:
            raise RuntimeError("to_sparse_csr: conversion from SparseCsr to SparseCsr with dense_dim argument "
                               "given is not supported")
        return self

    def numpy(self, *, force=False):
        raise TypeError("can't convert SparseCsr layout tensor to numpy. Use Tensor.to_dense() first.")

    def __array__(self, dtype=None, copy=None):
        self.numpy()

    def tolist(self):
        raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage\nhint: call "
                           ".to_dense() first")

    # ---- views: the transpose of a CSR matrix is a CSC one, which tandem lacks ---------------------------------
    def t(self):
        raise self._no_csc("t")

    def transpose(self, dim0, dim1):
        dim0, dim1 = _coo.wrap_dim(dim0, 2), _coo.wrap_dim(dim1, 2)
        if dim0 == dim1:
            return self
        raise self._no_csc("transpose")

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        raise self._refuse("as_strided")  # PyTorch's .T of a CSR tensor fails this way too

    @staticmethod
    def _no_csc(name):
        return NotImplementedError(f"{name}(): the transpose of a sparse CSR tensor is a sparse CSC tensor, which "
                                   "tandem does not have\nhint: transpose the COO form: .to_sparse_coo().t()")

    # ---- arithmetic -------------------------------------------------------------------------------------------
    def mm(self, mat2):
        return mm(self, mat2)

    def matmul(self, other):
        return matmul(self, other)

    def __matmul__(self, other):
        return matmul(self, other) if _is_operand(other) else NotImplemented

    def __rmatmul__(self, other):
        return matmul(other, self) if _is_operand(other) else NotImplemented

    def mul(self, other):
        """By a number or a 0-d tensor: the values are scaled, the pattern stays."""
        if isinstance(other, (SparseCsrTensor, _coo.SparseCooTensor)) or (isinstance(other, Tensor)
                                                                          and other.dim() > 0):
            raise NotImplementedError("mul(): a sparse CSR tensor multiplies by a number or a 0-d tensor only\n"
                                      "hint: use the COO form (.to_sparse_coo()) for elementwise products")
        if not isinstance(other, (Tensor, numbers.Number)):
            raise TypeError(f"mul(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
        return wrap(self._crow, self._col, self._vals * other, self._size)

    def __mul__(self, other):
        return self.mul(other) if _is_operand(other) else NotImplemented

    __rmul__ = __mul__

    def div(self, other, *, rounding_mode=None):
        if (isinstance(other, Tensor) and other.dim() > 0) or isinstance(other, (SparseCsrTensor,
                                                                                  _coo.SparseCooTensor)):
            raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                               f"{list(other.shape)} for divisor)")
        if not isinstance(other, (Tensor, numbers.Number)):
            raise TypeError(f"div(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
        values = self._vals.div(other) if rounding_mode is None else self._vals.div(other, rounding_mode=rounding_mode)
        return wrap(self._crow, self._col, values, self._size)

    def __truediv__(self, other):
        return self.div(other) if _is_operand(other) else NotImplemented

    def neg(self):
        return wrap(self._crow, self._col, self._vals.neg(), self._size)

    __neg__ = neg

    def sum(self, dim=None, keepdim=False, dtype=None):
        """All elements, as a dense 0-d tensor (PyTorch's only sum of a CSR tensor without keepdim)."""
        if dim is not None:
            if not keepdim:
                raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
            raise NotImplementedError("sum(dim, keepdim=True) of a sparse CSR tensor is not supported\nhint: use "
                                      "the COO form: .to_sparse_coo().sum(dim)")
        return (self._vals if dtype is None else self._vals.to(dtype)).sum()

    # ---- what a CSR tensor refuses ------------------------------------------------------------------------------
    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.to_dense().item())

    def _refuse(self, op):
        backend = "SparseCsrCUDA" if self.is_cuda else "SparseCsrCPU"
        return NotImplementedError(f"Could not run 'aten::{op}' with arguments from the '{backend}' backend.\n"
                                   "hint: tandem's sparse CSR tensors support the operations listed in docs/ops.md "
                                   "(Sparse tensors); call .to_dense() or .to_sparse_coo() first for the others")

    def __getattr__(self, name):
        # Only reached for names the class lacks: a Tensor method gets PyTorch's "Could not run" error.
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

    # ---- copying and pickling ---------------------------------------------------------------------------------
    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        values = self._vals.detach().clone().requires_grad_(self._vals.requires_grad)
        result = wrap(self._crow.clone(), self._col.clone(), values, self._size)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return _rebuild, (self._crow, self._col, self._vals, tuple(self._size))

    # ---- printing ---------------------------------------------------------------------------------------------
    def __repr__(self):
        """PyTorch's repr of a CSR tensor: crow_indices, col_indices and values, then size, nnz, dtype, layout."""
        indent = len("tensor(")
        values = self._vals.detach()
        suffixes = []
        if values.device.type != "cpu":
            suffixes.append(_suffix(f"device='{values.device}'"))
        suffixes += [_suffix(f"size={tuple(self._size)}"), _suffix(f"nnz={self._nnz()}")]
        if not _dtype_is_implied(values.dtype):
            suffixes.append(_dtype_suffix(values.dtype))
        suffixes.append((f"layout={sparse_csr!r}", len("layout=torch.sparse_csr")))
        if self.grad_fn is not None:
            suffixes.append(_suffix(f"grad_fn=<{self.grad_fn.name()}>"))
        elif self.requires_grad:
            suffixes.append(_suffix("requires_grad=True"))
        parts = []
        for name, part in (("crow_indices", self._crow), ("col_indices", self._col), ("values", values)):
            parts.append(f"{name}=tensor(" + _coo._part(part, indent + len(name) + len("=tensor(")) + ")")
        text = "tensor(" + (",\n" + " " * indent).join(parts)
        return _add_suffixes(text, suffixes, indent, _options.linewidth)

    __str__ = __repr__


def _rebuild(crow_indices, col_indices, values, size):
    from ._csr_construct import sparse_csr_tensor  # noqa: PLC0415  (_csr_construct imports this module)

    return sparse_csr_tensor(crow_indices, col_indices, values, size, check_invariants=False)


def _is_operand(x):
    """What a CSR tensor's operators take: tensors of any layout and numbers (else NotImplemented)."""
    return isinstance(x, (Tensor, SparseCsrTensor, _coo.SparseCooTensor, numbers.Number))


def _check_csr_dense(a, b):
    """PyTorch's checks of csr @ dense (its addmm's messages)."""
    if not isinstance(b, Tensor):
        raise TypeError(f"mm(): argument 'mat2' must be Tensor, not {type(b).__name__}")
    if b.dim() == 1:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if b.dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {b.dim()}D tensor")
    if b.shape[0] != a._size[1]:
        raise RuntimeError(f"addmm: mat1 and mat2 shapes cannot be multiplied ({a._size[0]}x{a._size[1]} and "
                           f"{b.shape[0]}x{b.shape[1]})")
    _math._check_dtypes(a, b)


def _is_csr(x):
    return type(x) is SparseCsrTensor


def _operand(x):
    """A CSR operand as COO (the math's form); anything else as it is."""
    return as_coo(x) if _is_csr(x) else x


def mm(a, b):
    """csr @ dense -> dense; dense @ csr -> dense; csr @ csr -> csr (PyTorch's layouts)."""
    if _is_csr(a) and isinstance(b, Tensor):
        _check_csr_dense(a, b)
        return _math.sparse_dense_mm(as_coo(a), b)
    if isinstance(a, Tensor) and _is_csr(b) and a.dim() == 2 and a.shape[1] != b._size[0]:
        raise RuntimeError(f"addmm: mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b._size[0]}x{b._size[1]})")
    result = _math.mm(_operand(a), _operand(b))
    return from_coo(result) if _is_csr(a) and _is_csr(b) else result


def matmul(a, b):
    """torch.matmul / @ with a CSR matrix: as mm, plus a dense vector as the other operand."""
    if _is_csr(a) and isinstance(b, Tensor) and b.dim() == 1:
        return mm(a, b.unsqueeze(1)).squeeze(1)
    if _is_csr(b) and isinstance(a, Tensor) and a.dim() == 1:
        return mm(a.unsqueeze(0), b).squeeze(0)
    for x, arg in ((a, "input"), (b, "other")):
        if not isinstance(x, (Tensor, SparseCsrTensor, _coo.SparseCooTensor)):
            raise TypeError(f"matmul(): argument '{arg}' must be Tensor, not {type(x).__name__}")
        if isinstance(x, Tensor) and x.dim() != 2:
            raise RuntimeError(f"matmul(): a sparse CSR matrix multiplies 1-d and 2-d tensors only, got a "
                               f"{x.dim()}-d one\nhint: reshape it to 2-d first")
    return mm(a, b)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) for a CSR mat1 and dense input and mat2."""
    _math._check_dense_operand(input, "addmm", "input")
    _check_csr_dense(mat1, mat2)
    return _math.addmm(input, as_coo(mat1), mat2, beta, alpha)


def _unary(name):
    def method(self):
        return wrap(self._crow, self._col, getattr(self._vals, name)(), self._size)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{name} of each stored value: zero maps to zero, so the pattern stays."
    return method


def _conversion(dtype):
    def method(self, memory_format=None):
        return self.to(dtype)

    return method


for _name in _coo.ZERO_PRESERVING:
    setattr(SparseCsrTensor, _name, _unary(_name))
for _name, _dtype in (("float", _C.float32), ("double", _C.float64), ("half", _C.float16), ("bfloat16", _C.bfloat16),
                      ("long", _C.int64), ("int", _C.int32), ("short", _C.int16), ("char", _C.int8),
                      ("byte", _C.uint8), ("bool", _C.bool)):
    setattr(SparseCsrTensor, _name, _conversion(_dtype))
del _name, _dtype
