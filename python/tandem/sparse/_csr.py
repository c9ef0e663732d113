"""SparseCsrTensor: PyTorch's sparse CSR tensor (layout tandem.sparse_csr), a 2-d matrix held as ``crow_indices``
(nrows + 1 row starts), ``col_indices`` (nnz) and ``values`` (nnz): row i's entries are positions
crow_indices[i]:crow_indices[i + 1] of col_indices and values.

A tandem.Tensor subclass over a placeholder, like SparseCooTensor (see _coo.py); its transpose is the CSC matrix
over the same tensors (_csc.py). The math reads the matrix as a COO tensor over the same values (row
indices expanded from crow_indices with one repeat_interleave), so products, sums and to_dense are COO's
(_math.py), with autograd through the values and every device coming from the dense ops they compose."""
import numbers

from .. import _C
from .._creation import tensor
from .._layouts import sparse_csc, sparse_csr, strided
from .._legacy import _target_of_type_arg
from .._size import Size
from .._tensor_str import _add_suffixes, _options
from . import _autocast, _conversion_args, _coo, _math
from ._base import _SparseBase, is_dense, repr_part, wrap_dim
from ._beta_warning import warn_csr_beta

Tensor = _C.Tensor


def wrap(crow_indices, col_indices, values, size):
    """A CSR tensor over parts the caller has validated or derived (no checks, no copies). Every CSR tensor is
    made here, so here PyTorch's beta warning is given."""
    warn_csr_beta()
    t = SparseCsrTensor.new_instance(values, Size(size))
    t._crow, t._col = crow_indices, col_indices
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



def compressed_to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse of a CSR or CSC matrix: the COO form (layout sparse_coo, the default), self (its own
    layout), the other compressed layout or to_dense() (strided), with PyTorch's checks."""
    own = self.layout
    source = _conversion_args._NAMES[own]
    if sparse_dim is not None:
        if sparse_dim != 2:
            raise RuntimeError(f"sparse_compressed_to_sparse: conversion from {source} to Sparse with sparse_dim "
                               "argument !=2 is not supported")
        return self.to_sparse_coo()
    layout = _conversion_args.target_layout(layout)
    if layout is own:
        _conversion_args.check("to_sparse", self, own, own, blocksize, dense_dim)
        return self
    _conversion_args.check("sparse_compressed_to_sparse", self, own, layout, blocksize, dense_dim)
    if layout is strided:
        return self.to_dense()
    if layout is sparse_csr:
        return self.to_sparse_csr()
    return self.to_sparse_csc() if layout is sparse_csc else self.to_sparse_coo()

class SparseCsrTensor(_SparseBase):
    """A sparse CSR matrix (layout tandem.sparse_csr); build one with tandem.sparse_csr_tensor(crow_indices,
    col_indices, values, size) or dense.to_sparse_csr()."""

    __module__ = "tandem.sparse"
    __slots__ = ("_crow", "_col")
    is_sparse_csr = True
    is_sparse = False
    layout = sparse_csr
    _backend = "SparseCsr"  # PyTorch's name for the layout in its messages (SparseCsrCPU, "SparseCsr layout")
    _refuse_hint = ("tandem's sparse CSR tensors support the operations listed in docs/ops.md (Sparse tensors); call "
                    ".to_dense() or .to_sparse_coo() first for the others")
    _made_by = "tandem.sparse_csr_tensor(crow_indices, col_indices, values, size) or dense.to_sparse_csr()"

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
        return self._vals.dim() - 1  # a hybrid tensor's values are (nnz, *dense dims)

    # ---- shape (the rest of shape, dtype, device and autograd is _base.py's) ----------------------------------
    def is_contiguous(self, memory_format=None):
        raise RuntimeError("Sparse CSR tensors do not have is_contiguous")

    @property
    def nbytes(self):
        return self.numel() * self._vals.element_size()  # PyTorch's: the equivalent dense tensor's

    # ---- what _SparseBase builds on ---------------------------------------------------------------------------
    def _index_tensors(self):
        return self._crow, self._col

    def _rewrap(self, indices, values):
        """Self's size over other (crow_indices, col_indices) and values tensors."""
        return wrap(*indices, values, self._size)

    def _leaf_grad(self):
        """A CSR tensor on the leaf's pattern (PyTorch's mm gives a dense one)."""
        return wrap(self._crow, self._col, self._vals.grad, self._size)

    # ---- devices and dtypes -----------------------------------------------------------------------------------
    def to(self, *args, **kwargs):
        """Tensor.to's forms (device, dtype, other tensor, non_blocking, copy), applied to the three parts."""
        if args and isinstance(args[0], (SparseCsrTensor, _coo.SparseCooTensor)):
            args = (args[0].device, args[0].dtype) + args[1:]
        return self._with_values(self._vals.to(*args, **kwargs), kwargs.get("non_blocking", False),
                                 kwargs.get("copy", False))

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            backend = self._backend + ("CUDA" if self.is_cuda else "CPU")
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
        return compressed_to_sparse(self, sparse_dim, layout=layout, blocksize=blocksize, dense_dim=dense_dim)

    def to_sparse_csr(self, dense_dim=None):
        _conversion_args.check("to_sparse_csr", self, sparse_csr, sparse_csr, None, dense_dim)
        return self

    # ---- views: the transpose of a CSR matrix is the CSC matrix over the same tensors --------------------------
    def t(self):
        from ._csc import from_csr_transpose  # noqa: PLC0415  (_csc imports this module)

        if len(self._size) > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(self._size)}D")
        return from_csr_transpose(self)

    def transpose(self, dim0, dim1):
        from ._csc import from_csr_transpose  # noqa: PLC0415

        dim0, dim1 = wrap_dim(dim0, len(self._size)), wrap_dim(dim1, len(self._size))
        if dim0 == dim1:
            return self
        if {dim0, dim1} != {0, 1}:
            raise NotImplementedError("transpose(): a sparse CSR tensor transposes its two sparse dims only\nhint: "
                                      "use the COO form (.to_sparse_coo())")
        return from_csr_transpose(self)

    def to_sparse_csc(self):
        from ._csc import to_sparse_csc  # noqa: PLC0415

        return to_sparse_csc(self)

    @property
    def T(self):  # noqa: N802  (PyTorch's name)
        raise self._refuse("as_strided")  # PyTorch's .T of a CSR tensor fails this way too

    # ---- arithmetic -------------------------------------------------------------------------------------------
    def mm(self, mat2):
        return mm(self, mat2)

    def matmul(self, other):
        return matmul(self, other)

    def __matmul__(self, other):
        return matmul(self, other) if _is_operand(other) else NotImplemented

    def __rmatmul__(self, other):
        return matmul(other, self) if _is_operand(other) else NotImplemented

    def add(self, other, *, alpha=1):
        """csr + csr -> csr (the entries of both, summed where they meet; row-sorted, self's index dtype);
        csr + dense -> dense, where PyTorch's kernel scales self, not other, by alpha (other + alpha * self)."""
        return _add(self, other, alpha)

    def __add__(self, other):
        return _add(self, other, 1) if _is_operand(other) else NotImplemented

    def add_(self, other, *, alpha=1):
        """In place: self takes the sum's pattern and values (a CSR operand only, as the result stays CSR)."""
        if not isinstance(other, SparseCsrTensor):
            raise self._refuse("add_")
        total = _add(self, other, alpha)
        self._crow, self._col, self._vals = total._crow, total._col, total._vals
        return self

    def sub(self, other, *, alpha=1):
        raise RuntimeError("unsupported tensor layout: SparseCsr\nhint: subtract the COO forms "
                           "(.to_sparse_coo()) or the dense ones")

    def __sub__(self, other):
        return self.sub(other) if _is_operand(other) else NotImplemented

    def __rsub__(self, other):
        return self.sub(other) if _is_operand(other) else NotImplemented

    def __radd__(self, other):
        """dense + csr -> dense (also dense.add(csr) and tandem.add(dense, csr)), as PyTorch's."""
        if not _is_operand(other):
            return NotImplemented
        return add_to_dense(other, self, 1)

    def mul(self, other):
        """By a number or a 0-d tensor (the values scaled), by a dense matrix of self's size (the values times
        its entries at self's pattern), or by a sparse matrix (the entries both hold): a CSR result, as PyTorch's."""
        if isinstance(other, _SparseBase):
            return _mul_sparse(self, other)
        if isinstance(other, Tensor) and other.dim() > 0:
            if list(other.shape) != list(self._size):
                raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                                   f"{list(other.shape)} but mask has size {list(self._size)}")
            col = self._col if self._col.dtype == _C.int64 else self._col.to(_C.int64)
            return wrap(self._crow, self._col, self._vals * other[row_indices(self), col], self._size)
        if not isinstance(other, (Tensor, numbers.Number)):
            raise TypeError(f"mul(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
        return wrap(self._crow, self._col, self._vals * other, self._size)

    def __mul__(self, other):
        return self.mul(other) if _is_operand(other) else NotImplemented

    def mul_(self, other):
        """In place: self takes the product's pattern and values."""
        product = self.mul(other)
        self._crow, self._col, self._vals = product._crow, product._col, product._vals
        return self

    __rmul__ = __mul__

    def div(self, other, *, rounding_mode=None):
        if isinstance(other, Tensor) and other.dim() > 0:
            raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                               f"{list(other.shape)} for divisor)")
        if not isinstance(other, (Tensor, numbers.Number)):
            raise TypeError(f"div(): argument 'other' must be Tensor or Number, not {type(other).__name__}")
        values = self._vals.div(other) if rounding_mode is None else self._vals.div(other, rounding_mode=rounding_mode)
        return wrap(self._crow, self._col, values, self._size)

    def __truediv__(self, other):
        return self.div(other) if _is_operand(other) else NotImplemented

    def sum(self, dim=None, keepdim=False, dtype=None):
        """All elements, as a dense 0-d tensor (PyTorch's only sum of a CSR tensor without keepdim)."""
        if dim is not None:
            if not keepdim:
                raise RuntimeError("reduction operations on CSR tensors with keepdim=False is unsupported")
            raise NotImplementedError("sum(dim, keepdim=True) of a sparse CSR tensor is not supported\nhint: use "
                                      "the COO form: .to_sparse_coo().sum(dim)")
        return (self._vals if dtype is None else self._vals.to(dtype)).sum()

    # ---- comparisons: PyTorch's elementwise machinery refuses the layout ------------------------------------
    def _compare(self, op, other):
        """What _base.py's comparison operators and methods do with a CSR tensor (either side of the operator)."""
        if not _is_operand(other):
            return NotImplemented
        raise RuntimeError("unsupported tensor layout: SparseCsr\nhint: compare the stored values (t.values()) or "
                           "the dense form (t.to_dense())")

    # ---- pickling and printing (what a CSR tensor refuses is _base.py's) --------------------------------------
    def __reduce_ex__(self, protocol):
        return _rebuild, (self._crow, self._col, self._vals, tuple(self._size))

    def __repr__(self):
        """PyTorch's repr of a CSR tensor: crow_indices, col_indices and values, then size, nnz, dtype, layout."""
        indent = len("tensor(")
        values = self._vals.detach()
        parts = []
        for name, part in (("crow_indices", self._crow), ("col_indices", self._col), ("values", values)):
            parts.append(f"{name}=tensor(" + repr_part(part, indent + len(name) + len("=tensor(")) + ")")
        text = "tensor(" + (",\n" + " " * indent).join(parts)
        return _add_suffixes(text, self._repr_suffixes(values), indent, _options.linewidth)

    __str__ = __repr__


def _mul_sparse(self, other):
    """csr * sparse: the entries both hold (explicit zeros included), as a CSR matrix."""
    if list(self._size) != list(other._size):
        raise RuntimeError(f"sparse_binary_op_intersection_{self.device.type}(): expects sparse inputs with equal "
                           "dimensionality, number of sparse dimensions, and shape of sparse dimensions")
    other = as_coo(other) if isinstance(other, SparseCsrTensor) else other
    return from_coo(_math.mul(as_coo(self), other))  # int64 indices, whatever self's (PyTorch's product)


def add_to_dense(dense, csr, alpha):
    """dense + alpha * csr -> dense, same sizes only (PyTorch's message for a CSR operand says op2-sparse)."""
    if list(dense.shape) != list(csr._size):
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense.shape)} while other has size {list(csr._size)} (FYI: op2-sparse "
                           "addition does not currently support broadcasting)")
    return _math.add_to_dense(dense, as_coo(csr), alpha)


def _add(self, other, alpha):
    """PyTorch's csr + other: its dtype and shape checks in its words, then the sum (see SparseCsrTensor.add)."""
    if isinstance(other, _SparseBase) and not isinstance(other, SparseCsrTensor):
        raise self._refuse("add")
    if not isinstance(other, SparseCsrTensor):
        dense = other if isinstance(other, Tensor) else tensor(other, device=self.device)
        return add_to_dense(dense, self, alpha)
    if list(self._size) != list(other._size):
        raise RuntimeError(f"torch.add: Expected input tensors to have the same shape, but got tensor `self` with "
                           f"shape {list(self._size)} and tensor `other` with shape {list(other._size)}")
    promoted = _C.promote_types(self.dtype, other.dtype)
    if self.dtype != other.dtype:
        found = self.dtype if self.dtype != promoted else other.dtype
        raise RuntimeError(f"expected scalar type {promoted._scalar_type_name} but found {found._scalar_type_name}")
    if not (self.dtype.is_floating_point or self.dtype.is_complex) and self.device.type == "cpu":
        raise NotImplementedError(f'"add_out_sparse_csr_impl_mkl" not implemented for '
                                  f"'{self.dtype._scalar_type_name}'")
    total = _math.coalesce(_math.add(as_coo(self), as_coo(other), alpha))
    return from_coo(total, self._crow.dtype)


def _rebuild(crow_indices, col_indices, values, size):
    from ._csr_construct import sparse_csr_tensor  # noqa: PLC0415  (_csr_construct imports this module)

    return sparse_csr_tensor(crow_indices, col_indices, values, size, check_invariants=False)


def _is_operand(x):
    """What a CSR tensor's operators take: tensors of any layout and numbers (else NotImplemented)."""
    return isinstance(x, (Tensor, numbers.Number))


def _check_csr_dense(a, b):
    """PyTorch's checks of csr @ dense (its addmm's messages)."""
    if len(a._size) > 2:
        raise RuntimeError("Sparse CSR tensors do not have strides\nhint: a hybrid CSR tensor (values with dense "
                           "dims) takes no part in products, as in PyTorch; use its .to_dense()")
    if not is_dense(b):
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
    a, b = _autocast.lower(a, b)
    if _is_csr(a) and is_dense(b):
        _check_csr_dense(a, b)
        return _math.sparse_dense_mm(as_coo(a), b)
    if is_dense(a) and _is_csr(b) and a.dim() == 2 and a.shape[1] != b._size[0]:
        raise RuntimeError(f"addmm: mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b._size[0]}x{b._size[1]})")
    result = _math.mm(_operand(a), _operand(b))
    return from_coo(result) if _is_csr(a) and _is_csr(b) else result


def matmul(a, b):
    """torch.matmul / @ with a CSR matrix: as mm, plus a dense vector as the other operand."""
    if _is_csr(a) and is_dense(b) and b.dim() == 1:
        return mm(a, b.unsqueeze(1)).squeeze(1)
    if _is_csr(b) and is_dense(a) and a.dim() == 1:
        return mm(a.unsqueeze(0), b).squeeze(0)
    for x, arg in ((a, "input"), (b, "other")):
        if not isinstance(x, Tensor):
            raise TypeError(f"matmul(): argument '{arg}' must be Tensor, not {type(x).__name__}")
        if is_dense(x) and x.dim() != 2:
            raise RuntimeError(f"matmul(): a sparse CSR matrix multiplies 1-d and 2-d tensors only, got a "
                               f"{x.dim()}-d one\nhint: reshape it to 2-d first")
    return mm(a, b)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) for a CSR mat1 and dense input and mat2."""
    input, mat1, mat2 = _autocast.lower(input, mat1, mat2)
    _math._check_dense_operand(input, "addmm", "input")
    _check_csr_dense(mat1, mat2)
    return _math.addmm(input, as_coo(mat1), mat2, beta, alpha)


def _unary(name):
    def method(self):
        return wrap(self._crow, self._col, getattr(self._vals, name)(), self._size)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{name} of each stored value: zero maps to zero, so the pattern stays."
    return method


for _name in _coo.ZERO_PRESERVING:
    setattr(SparseCsrTensor, _name, _unary(_name))
del _name
