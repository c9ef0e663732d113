"""Making CSR tensors: tandem.sparse_csr_tensor with PyTorch's size inference and invariant messages, and the
conversions into CSR (dense.to_sparse_csr(), to_sparse(layout=tandem.sparse_csr), coo.to_sparse_csr()).

PyTorch checks the index invariants only under check_invariants=True; tandem always checks the ones whose breach
would read another element or past the end (crow_indices' first and last entries and steps, col_indices' range),
as COO indices are always checked, at the cost of a few reductions and one small device-to-host copy. Whether
each row's columns are sorted and distinct is checked only under check_invariants=True, as in PyTorch: the math
adds duplicates up and does not need the order."""
import math
import operator

from .. import _C
from .._layouts import sparse_coo, sparse_csr, strided
from . import _conversion_args, _coo, _csr, _invariants, _math
from ._base import _SparseBase

Tensor = _C.Tensor


def _as_values(values, dtype, device):
    if isinstance(values, _SparseBase):
        raise TypeError("sparse_csr_tensor(): argument 'values' must be a dense Tensor, not a sparse one")
    if not isinstance(values, Tensor):
        from .. import tensor  # noqa: PLC0415  (tandem's namespace is complete by the first call)

        return tensor(values, dtype=dtype, device=device)
    if dtype is not None or device is not None:
        return values.to(device=device, dtype=dtype)
    return values


def _as_index(indices, values, device):
    if isinstance(indices, _SparseBase):
        raise TypeError("sparse_csr_tensor(): index arguments must be dense Tensors, not sparse ones")
    if not isinstance(indices, Tensor):
        from .. import as_tensor  # noqa: PLC0415

        indices = as_tensor(indices, device=values.device)
        # An empty list has no dtype of its own (as_tensor makes it float): it holds no index, so int64.
        return indices.to(_C.int64) if indices.numel() == 0 else indices
    return indices.to(device) if device is not None else indices


def _check_index_tensors(crow, col, values):
    if crow.dtype != col.dtype:
        raise RuntimeError(f"crow_indices and col_indices must have the same dtype, bot got "
                           f"{crow.dtype._scalar_type_name} and {col.dtype._scalar_type_name}, respectively")
    if crow.dtype not in (_C.int32, _C.int64):
        raise RuntimeError(f"crow_indices and col_indices dtype must be Int or Long, but got "
                           f"{crow.dtype._scalar_type_name}")
    for name, part in (("crow_indices", crow), ("col_indices", col)):
        if part.device != values.device:
            raise RuntimeError(f"device of {name} ({part.device}) must match device of values ({values.device})\n"
                               "hint: move all three to one device, or pass device=")
    if crow.dim() != col.dim():
        raise RuntimeError(f"crow_indices and col_indices dimensionalities must be equal but got {crow.dim()} and "
                           f"{col.dim()}, respectively")
    if crow.dim() != 1:
        raise NotImplementedError(f"sparse_csr_tensor(): batched CSR tensors are not supported (crow_indices has "
                                  f"{crow.dim()} dims)\nhint: tandem's CSR tensors are 2-d matrices; pass 1-d "
                                  "crow_indices and col_indices")
    if values.dim() == 0:
        raise RuntimeError("sparse_csr_tensor(): values must have at least 1 dim (one entry per row of values, "
                           "a hybrid tensor's dense dims after it), got a 0-d tensor")


def _check_invariants(crow, col, nnz, size, sorted_rows):
    nrows, ncols = size
    if crow.shape[0] != nrows + 1:
        raise RuntimeError(f"crow_indices.shape[-1] must be equal to the number of rows + 1 (={nrows + 1}), but "
                           f"got {crow.shape[0]}")
    if col.shape[0] != nnz:
        raise RuntimeError(f"col_indices.shape[-1] must be equal to nnz (={nnz}) as defined by values.shape[0], "
                           f"but got {col.shape[0]}")
    crow = crow.to(_C.int64)
    col = col.to(_C.int64)
    zero = _C.zeros(1, dtype=_C.int64, device=crow.device)
    steps = crow[1:] - crow[:-1] if nrows else zero
    cols = col if nnz else zero
    # One transfer for every bound: crow's ends, its steps' range, col's range.
    first, last, low_step, high_step, low_col, high_col = _C.stack(
        [crow[0], crow[-1], steps.amin(), steps.amax(), cols.amin(), cols.amax()]).tolist()
    if first != 0:
        raise RuntimeError("`crow_indices[..., 0] == 0` is not satisfied.")
    if last != nnz:
        raise RuntimeError("`crow_indices[..., -1] == nnz` is not satisfied.")
    if nnz and (low_col < 0 or high_col >= ncols):  # before the steps' check, as PyTorch reports them
        raise RuntimeError("`0 <= col_indices < ncols` is not satisfied.")
    if low_step < 0 or high_step > ncols:
        raise RuntimeError("`0 <= crow_indices[..., 1:] - crow_indices[..., :-1] <= ncols` is not satisfied.")
    if sorted_rows and nnz > 1:
        rows = _C.arange(nrows, dtype=_C.int64, device=crow.device).repeat_interleave(crow[1:] - crow[:-1])
        same_row = rows[1:] == rows[:-1]
        if bool((same_row & (col[1:] <= col[:-1])).any()):
            raise RuntimeError("`col_indices[..., crow_indices[..., i - 1]:crow_indices[..., i]] for all i = 1, "
                               "..., nrows are sorted and distinct along the last dimension values` is not "
                               "satisfied.")


def _size_ints(size):
    """size as ints; a float (which int() would truncate) is refused with PyTorch's TypeError."""
    ints = []
    for pos, s in enumerate(size):
        try:
            ints.append(operator.index(s))
        except TypeError:
            raise TypeError(f"sparse_csr_tensor(): argument 'size' failed to unpack the object at pos {pos + 1} "
                            f"with error \"type must be tuple of ints,but got {type(s).__name__}\"") from None
    return ints


def _inferred_size(crow, col):
    """PyTorch's size when none is given: a row per crow step, columns up to the largest column index."""
    ncols = int(col.amax().item()) + 1 if col.numel() else 0
    return [max(crow.shape[0] - 1, 0), ncols]  # (+ the values' dense dims)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, layout=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
    """A sparse CSR matrix: row i holds values[k] at column col_indices[k] for k in
    crow_indices[i]:crow_indices[i + 1]."""
    if layout is not None and layout is not sparse_csr:
        raise RuntimeError(f"sparse_csr_tensor(): layout must be tandem.sparse_csr, got {layout}")
    values = _as_values(values, dtype, device)
    crow = _as_index(crow_indices, values, device)
    col = _as_index(col_indices, values, device)
    _check_index_tensors(crow, col, values)
    dense_dims = list(values.shape[1:])  # a hybrid CSR tensor: each entry a dense block (GAT's attention heads)
    if size is None:
        size = _inferred_size(crow, col) + dense_dims
    else:
        size = _size_ints(size)
        for s in size:
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {size}")
        if len(size) != 2 + len(dense_dims):
            raise RuntimeError(f"tensor dimensionality must be sum of batch, base, and dense dimensionalities (=0 "
                               f"+ 2 + {len(dense_dims)}) but got {len(size)}")
        if size[2:] != dense_dims:  # PyTorch builds such a tensor and reads past its values later
            raise RuntimeError(f"sparse_csr_tensor(): the dense dims of size {size[2:]} must match values' "
                               f"{dense_dims}")
        if math.prod(size) >= 2**63:  # to_dense and the COO form's linear indices would overflow int64
            raise RuntimeError(f"numel: integer multiplication overflow\nhint: the size {size} has more than "
                               "2**63 - 1 elements")
    _check_invariants(crow, col, values.shape[0], size[:2], _invariants.resolve(check_invariants))
    if requires_grad and not values.requires_grad:
        if not (values.dtype.is_floating_point or values.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        values = values.detach().requires_grad_()  # a leaf of its own: the caller's tensor stays as it was
    elif values.requires_grad and values.grad_fn is None:
        values = values.view_as(values)  # not a leaf (as in PyTorch): gradients flow into the given leaf's .grad
    return _csr.wrap(crow, col, values, size)


def dense_to_sparse_csr(self, dense_dim=None):
    """Tensor.to_sparse_csr for a 2-d dense tensor: its nonzero elements, row by row. Differentiable: the values
    are gathered from self."""
    _conversion_args.check("dense_to_sparse_csr", self, strided, sparse_csr, None, dense_dim)
    if self.dim() != 2:
        raise RuntimeError(f"to_sparse_csr(): expected a 2-d tensor, got {self.dim()}-d\nhint: tandem's CSR "
                           "tensors are matrices (no batched CSR); use .to_sparse() for the COO layout")
    indices = (self != 0).nonzero().t().contiguous()
    coo = _coo.wrap(indices, self[tuple(indices.unbind(0))], self.shape, True)
    return _csr.from_coo(coo)


def coo_to_sparse_csr(self, dense_dim=None):
    """SparseCooTensor.to_sparse_csr: coalesced, then rows compressed (values keep their autograd history; a hybrid
    tensor's dense dims stay with its values)."""
    _conversion_args.check("coo_to_sparse_csr", self, sparse_coo, sparse_csr, None, dense_dim)
    return _csr.from_coo(_math.coalesce(self))

