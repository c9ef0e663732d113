"""Dense results kept at a sparse pattern: Tensor.sparse_mask (a dense tensor's elements where a sparse mask has
entries), torch.sparse.sampled_addmm (the SDDMM of graph attention: mat1 @ mat2 computed only at a CSR matrix's
entries) and torch.smm / torch.hspmm (sparse @ dense returned as a sparse COO tensor: every column of each row
that has an entry; hspmm keeps the rows as one sparse dim over dense rows of values). Each gathers with dense
ops, so gradients reach the dense operands (and the sparse operand's values through sparse.mm)."""
from .. import _C
from . import _coo, _csr
from ._base import _SparseBase, is_dense

Tensor = _C.Tensor


def sparse_mask(self, mask):
    """self's elements at mask's stored positions, in mask's layout and entry order (its coalesced flag too)."""
    if not isinstance(mask, _SparseBase):
        backend = "CUDA" if mask.is_cuda else "CPU"
        raise NotImplementedError(f"Could not run 'aten::sparse_mask' with arguments from the '{backend}' backend."
                                  f"\nhint: the mask must be a sparse tensor (mask.to_sparse())")
    if isinstance(self, _SparseBase):  # a sparse self: its (summed) elements at mask's positions, as PyTorch's
        self = self.to_dense()
    if list(self.shape) != list(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size {list(self.shape)} but "
                           f"mask has size {list(mask.shape)}")
    if type(mask) is _csr.SparseCsrTensor:
        rows, cols = _csr.row_indices(mask), mask._col.to(_C.int64)
        return _csr.wrap(mask._crow, mask._col, self[rows.to(self.device), cols.to(self.device)], mask.shape)
    if type(mask) is not _coo.SparseCooTensor:
        raise mask._refuse("sparse_mask")
    indices = mask._idx.to(self.device)
    values = self[tuple(indices.unbind(0))] if mask.sparse_dim() else self.unsqueeze(0)[indices[:1] * 0]
    return _coo.wrap(mask._idx, values, mask.shape, mask._coalesced)


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):
    """beta * input + alpha * (mat1 @ mat2), computed at input's entries only (a CSR matrix of input's pattern)."""
    if out is not None:
        raise RuntimeError("sampled_addmm(): out= is not supported in tandem\nhint: assign the result")
    if not isinstance(input, _csr.SparseCsrTensor):
        if isinstance(input, _SparseBase):
            raise input._refuse("sparse_sampled_addmm")
        backend = "CUDA" if input.is_cuda else "CPU"
        raise NotImplementedError(f"Could not run 'aten::sparse_sampled_addmm' with arguments from the '{backend}' "
                                  f"backend.\nhint: input must be a sparse CSR matrix (input.to_sparse_csr())")
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if not is_dense(m) or m.dim() != 2:
            raise RuntimeError(f"sampled_addmm: Expected {name} to be a 2-d strided tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"sampled_addmm: mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    if input.shape[0] != mat1.shape[0]:
        raise RuntimeError("sampled_addmm: self.shape[-2] must match mat1.shape[-2]")
    if input.shape[1] != mat2.shape[1]:
        raise RuntimeError("sampled_addmm: self.shape[-1] must match mat2.shape[-1]")
    if mat1.dtype != mat2.dtype:
        raise RuntimeError(f"sampled_addmm: Expected mat1 and mat2 to have the same dtype, but got "
                           f"{mat1.dtype._scalar_type_name} and {mat2.dtype._scalar_type_name}")
    rows, cols = _csr.row_indices(input), input._col.to(_C.int64)
    products = (mat1.index_select(0, rows) * mat2.t().index_select(0, cols)).sum(-1)
    values = products * alpha if beta == 0 else input._vals * beta + products * alpha
    return _csr.wrap(input._crow, input._col, values, input.shape)


def _sparse_times_dense(name, input, mat2):
    """input @ mat2 (dense) and input's rows that have entries, sorted, after PyTorch's checks."""
    label = "sspaddmm" if name == "smm" else name  # PyTorch's smm runs through sspaddmm and names it
    if type(input) is not _coo.SparseCooTensor:
        if name == "hspmm" and not isinstance(input, _SparseBase):  # no dense kernel for hspmm in PyTorch
            raise _SparseBase._refuse_dense("hspmm", input)
        raise RuntimeError(f"tensor.{label}(...) can only be called on sparse tensors")
    if input.dim() != 2:
        raise RuntimeError(f"{label}: Argument #2: matrices expected, got {input.dim()}D tensor")
    if input.sparse_dim() != 2 or input.dense_dim() != 0 or not is_dense(mat2) or mat2.dim() != 2:
        raise RuntimeError(f"{name}: Argument #2: Expected a 2-d sparse matrix and a 2-d dense matrix")
    if mat2.shape[0] != input.shape[1]:
        raise RuntimeError(f"{label}: Argument #3: Expected dim 0 size {input.shape[1]}, got {mat2.shape[0]}")
    from . import mm  # noqa: PLC0415  (the package imports this module)

    product = mm(input, mat2)
    rows = _C.unique(input._idx[0], sorted=True)
    return product, rows


def hspmm(mat1, mat2):
    """mat1 (sparse COO) @ mat2 as a hybrid COO tensor: one sparse dim (the rows of mat1 with entries) over dense
    rows of the product."""
    product, rows = _sparse_times_dense("hspmm", mat1, mat2)
    return _coo.wrap(rows.unsqueeze(0), product.index_select(0, rows), (mat1.shape[0], mat2.shape[1]), False)


def smm(input, mat):
    """input (sparse COO) @ mat as a sparse COO matrix: every column of each row of input that has entries."""
    product, rows = _sparse_times_dense("smm", input, mat)
    width = mat.shape[1]
    indices = _C.stack([rows.repeat_interleave(width),
                        _C.arange(width, device=rows.device).repeat(rows.shape[0])])
    return _coo.wrap(indices, product.index_select(0, rows).reshape(-1), (input.shape[0], width), False)
