"""SparseCscTensor: PyTorch's sparse CSC matrix (layout tandem.sparse_csc), held as ``ccol_indices`` (ncols + 1
column starts), ``row_indices`` (nnz) and ``values`` (nnz). A CSC matrix is the transpose of the CSR matrix over
the same three tensors, so t() turns one into the other without a copy (PyTorch Geometric builds adjacencies as
CSC and hands their t(), a CSR matrix, to its layers), and everything else reads the matrix as that CSR's
transpose: products, sums and conversions are CSR's and COO's, with autograd through the values."""
from .._layouts import sparse_csc, sparse_csr
from .._size import Size
from .._tensor_str import _add_suffixes, _options
from . import _coo, _csr, _math
from ._base import _SparseBase, repr_part, wrap_dim


def wrap(ccol_indices, row_indices, values, size):
    """A CSC tensor over parts the caller has validated or derived (no checks, no copies)."""
    t = SparseCscTensor.new_instance(values, Size(size))
    t._ccol, t._row = ccol_indices, row_indices
    return t


def from_csr_transpose(c):
    """The CSC matrix whose transpose is the CSR matrix c (the same tensors)."""
    return wrap(c._crow, c._col, c._vals, (c._size[1], c._size[0], *c._size[2:]))


class SparseCscTensor(_SparseBase):
    """A sparse CSC matrix (layout tandem.sparse_csc); build one with tandem.sparse_csc_tensor(ccol_indices,
    row_indices, values, size), csr.t() or dense.to_sparse_csc()."""

    __module__ = "tandem.sparse"
    __slots__ = ("_ccol", "_row")
    is_sparse = is_sparse_csr = False
    layout = sparse_csc
    _backend = "SparseCsc"
    _refuse_hint = ("tandem's sparse CSC tensors support the operations listed in docs/ops.md (Sparse tensors); call "
                    ".to_dense() or .to_sparse_coo() first for the others")
    _made_by = "tandem.sparse_csc_tensor(ccol_indices, row_indices, values, size) or dense.to_sparse_csc()"

    def ccol_indices(self):
        return self._ccol

    def row_indices(self):
        return self._row

    def values(self):
        return self._vals

    def _nnz(self):
        return self._row.shape[0]

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return self._vals.dim() - 1

    def is_contiguous(self, memory_format=None):
        raise RuntimeError("Sparse CSC tensors do not have is_contiguous")

    @property
    def nbytes(self):
        return self.numel() * self._vals.element_size()

    def _index_tensors(self):
        return self._ccol, self._row

    def _rewrap(self, indices, values):
        return wrap(*indices, values, self._size)

    def _leaf_grad(self):
        return wrap(self._ccol, self._row, self._vals.grad, self._size)

    def _transposed_csr(self):
        return _csr.wrap(self._ccol, self._row, self._vals, (self._size[1], self._size[0], *self._size[2:]))

    def to(self, *args, **kwargs):
        if args and isinstance(args[0], _SparseBase):
            args = (args[0].device, args[0].dtype) + args[1:]
        return self._with_values(self._vals.to(*args, **kwargs), kwargs.get("non_blocking", False),
                                 kwargs.get("copy", False))

    # ---- conversions and views --------------------------------------------------------------------------------
    def t(self):
        if len(self._size) > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {len(self._size)}D")
        return self._transposed_csr()

    def transpose(self, dim0, dim1):
        if wrap_dim(dim0, 2) == wrap_dim(dim1, 2):
            return self
        return self._transposed_csr()

    def to_dense(self, dtype=None, *, masked_grad=None):
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_csr_to_dense\nhint: convert after: "
                               ".to_dense().to(dtype)")
        return self._transposed_csr().to_dense().transpose(0, 1).contiguous()

    def to_sparse_coo(self):
        return _math.coalesce(_math.transpose(_csr.as_coo(self._transposed_csr()), 0, 1))

    to_sparse = _csr.compressed_to_sparse

    def to_sparse_csr(self, dense_dim=None):
        return self.to_sparse_coo().to_sparse_csr()

    def to_sparse_csc(self):
        return self

    # ---- arithmetic: the CSR transpose's, transposed back -----------------------------------------------------
    def mm(self, mat2):
        return _math.mm(self.to_sparse_coo(), mat2)

    def matmul(self, other):
        return _math.matmul(self.to_sparse_coo(), other)

    def __matmul__(self, other):
        return self.matmul(other) if _math.is_operand(other) else NotImplemented

    def __rmatmul__(self, other):
        return _math.matmul(other, self.to_sparse_coo()) if _math.is_operand(other) else NotImplemented

    def mul(self, other):
        return from_csr_transpose(self._transposed_csr().mul(other))

    def __mul__(self, other):
        return self.mul(other) if _csr._is_operand(other) else NotImplemented

    __rmul__ = __mul__

    def __radd__(self, other):
        if not _csr._is_operand(other):
            return NotImplemented
        return _math.add_to_dense(other, self.to_sparse_coo(), 1)

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is not None:
            return self.to_sparse_coo().sum(dim, keepdim, dtype)
        return (self._vals if dtype is None else self._vals.to(dtype)).sum()

    # ---- pickling and printing --------------------------------------------------------------------------------
    def __reduce_ex__(self, protocol):
        return _rebuild, (self._ccol, self._row, self._vals, tuple(self._size))

    def __repr__(self):
        indent = len("tensor(")
        values = self._vals.detach()
        parts = []
        for name, part in (("ccol_indices", self._ccol), ("row_indices", self._row), ("values", values)):
            parts.append(f"{name}=tensor(" + repr_part(part, indent + len(name) + len("=tensor(")) + ")")
        text = "tensor(" + (",\n" + " " * indent).join(parts)
        return _add_suffixes(text, self._repr_suffixes(values), indent, _options.linewidth)

    __str__ = __repr__


def _rebuild(ccol_indices, row_indices, values, size):
    return sparse_csc_tensor(ccol_indices, row_indices, values, size, check_invariants=False)


def sparse_csc_tensor(ccol_indices, row_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None):
    """PyTorch's torch.sparse_csc_tensor: checked and built as the CSR matrix of the transpose."""
    from ._csr_construct import sparse_csr_tensor  # noqa: PLC0415  (_csr_construct imports the layouts)

    args = () if size is None else ((size[1], size[0], *size[2:]) if len(size) >= 2 else size,)
    csr = sparse_csr_tensor(ccol_indices, row_indices, values, *args, dtype=dtype, device=device,
                            pin_memory=pin_memory, requires_grad=requires_grad, check_invariants=check_invariants)
    return from_csr_transpose(csr)



def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None):
    """PyTorch's torch.sparse_compressed_tensor: sparse_csr_tensor or sparse_csc_tensor, as layout says (tandem has
    no BSR/BSC); any other layout is PyTorch's error, which names it as its messages do ("none", "Strided")."""
    from ._conversion_args import _NAMES  # noqa: PLC0415
    from ._csr_construct import sparse_csr_tensor  # noqa: PLC0415

    if layout is not sparse_csr and layout is not sparse_csc:
        got = "none" if layout is None else _NAMES.get(layout, str(layout))
        raise RuntimeError(f"sparse_compressed_tensor expected sparse compressed tensor layout but got {got}")
    make = sparse_csr_tensor if layout is sparse_csr else sparse_csc_tensor
    args = () if size is None else (size,)
    return make(compressed_indices, plain_indices, values, *args, dtype=dtype, device=device, pin_memory=pin_memory,
                requires_grad=requires_grad, check_invariants=check_invariants)

def to_sparse_csc(t):
    """Tensor.to_sparse_csc() of a dense matrix, a COO or a CSR tensor: the transpose's CSR form, transposed."""
    if isinstance(t, SparseCscTensor):
        return t
    if isinstance(t, _SparseBase):
        transposed = _math.transpose(t.to_sparse_coo(), 0, 1)  # the sparse dims (a hybrid's dense dims stay)
        return from_csr_transpose(_math.coalesce(transposed).to_sparse_csr())
    return from_csr_transpose(t.transpose(0, 1).to_sparse_csr())


def _unary(name):
    def method(self):
        return wrap(self._ccol, self._row, getattr(self._vals, name)(), self._size)

    method.__name__ = method.__qualname__ = name
    return method


for _name in _coo.ZERO_PRESERVING:
    setattr(SparseCscTensor, _name, _unary(_name))
del _name
