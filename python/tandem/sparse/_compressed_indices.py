"""tandem._convert_indices_from_coo_to_csr and _convert_indices_from_csr_to_coo: PyTorch's conversions between
a sorted row index and a compressed row pointer, on plain index tensors. PyTorch Geometric builds its CSR pointers
(`index2ptr`, in every message-passing layer's sorted path) with the first. Both are searchsorted over the index,
so they run on every device and never write out of bounds (PyTorch's kernels assume valid input and may)."""
import numbers

from .. import _C
from .._out import call_with_out
from ._base import _SparseBase

Tensor = _C.Tensor
_INTEGER_DTYPES = frozenset((_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64))


def _check_tensor(fn, name, position, value):
    if not isinstance(value, Tensor) or isinstance(value, _SparseBase):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


def _check_integer(kernel, t):
    # PyTorch's kernels dispatch over the integer types only; its message names the kernel of t's device.
    if t.dtype not in _INTEGER_DTYPES:
        device = "cuda" if t.device.type == "cuda" else "cpu"
        raise NotImplementedError(f"\"{kernel}_{device}\" not implemented for '{t.dtype._scalar_type_name}'")


def _coo_to_csr(input, size, out_int32):
    fn = "_convert_indices_from_coo_to_csr"
    _check_tensor(fn, "input", 1, input)
    if isinstance(size, bool) or not isinstance(size, numbers.Integral):
        raise TypeError(f"{fn}(): argument 'size' (position 2) must be int, not {type(size).__name__}")
    if input.dim() > 1:
        raise RuntimeError(f"Input is supposed to be a vector, but got {input.dim()} dimensional tensor.")
    if size < 0:
        raise RuntimeError(f"size must be non-negative, got {size}")
    _check_integer("convert_indices_from_coo_to_csr", input)
    dtype = _C.int32 if out_int32 else _C.int64
    index = input.reshape(-1).to(_C.int64)
    rows = _C.arange(size + 1, device=input.device)
    if index.numel() == 0:
        return _C.zeros(size + 1, dtype=dtype, device=input.device)
    # ptr[r] = how many entries lie in rows before r. PyTorch's CPU kernel walks the index keeping its running
    # maximum and then fills every row after the last entry's with nnz: the same numbers for a sorted index,
    # and PyTorch's CPU numbers for an unsorted one too.
    running_max = index.cummax(0).values
    ptr = _C.searchsorted(running_max, rows)
    ptr = ptr.masked_fill(rows > index[-1], index.numel())
    return ptr.to(dtype)


def _convert_indices_from_coo_to_csr(input, size, *, out_int32=False, out=None):
    """The compressed row pointer (size + 1 entries) of a sorted row index: ptr[r] is the number of entries in
    rows before r. int64, or int32 with out_int32=True."""
    if out is None:
        return _coo_to_csr(input, size, out_int32)
    return call_with_out("_convert_indices_from_coo_to_csr", _coo_to_csr, (input, size, out_int32), {}, out)


def _csr_to_coo(crow_indices, col_indices, out_int32, transpose):
    fn = "_convert_indices_from_csr_to_coo"
    _check_tensor(fn, "crow_indices", 1, crow_indices)
    _check_tensor(fn, "col_indices", 2, col_indices)
    if crow_indices.dim() != col_indices.dim():
        raise RuntimeError("crow_indices and col_indices are supposed to have the same dimensionality, but got "
                           f"{crow_indices.dim()} and {col_indices.dim()} dimensional tensors, respectively.")
    crow_indices.size(-1)  # a 0-d pair: PyTorch's IndexError ("Dimension specified as -1 but ...")
    _check_integer("convert_indices_from_csr_to_coo", crow_indices)  # col_indices of any dtype is converted
    dtype = _C.int32 if out_int32 else _C.int64
    device = crow_indices.device
    nnz = col_indices.size(-1)
    # Entry j lies in the row whose pointer range [crow[r], crow[r + 1]) holds j: the number of row ends <= j.
    ends = crow_indices[..., 1:].to(_C.int64).contiguous()
    positions = _C.arange(nnz, device=device).expand(*ends.shape[:-1], nnz).contiguous()
    rows = _C.searchsorted(ends, positions, right=True).to(dtype)
    cols = col_indices.to(dtype)
    if transpose:
        rows, cols = cols, rows
    if crow_indices.dim() == 1:
        return _C.stack([rows, cols])
    # Batched (*batch, rows + 1) pointers: one index row per batch dim comes first (PyTorch's batched COO form).
    batch_shape = tuple(ends.shape[:-1])
    count = 1
    for s in batch_shape:
        count *= s
    flat = _C.arange(count, device=device).repeat_interleave(nnz)
    batch_rows, stride = [], count
    for s in batch_shape:
        stride //= s
        batch_rows.append((flat // stride % s).to(dtype))
    return _C.stack([*batch_rows, rows.reshape(-1), cols.reshape(-1)])

def _convert_indices_from_csr_to_coo(crow_indices, col_indices, *, out_int32=False, transpose=False, out=None):
    """The (2, nnz) COO indices [rows, cols] of a CSR matrix's crow/col indices ([cols, rows] with
    transpose=True); batched (*b, n + 1) / (*b, nnz) indices give one more index row per batch dim, first."""
    if out is None:
        return _csr_to_coo(crow_indices, col_indices, out_int32, transpose)
    return call_with_out("_convert_indices_from_csr_to_coo", _csr_to_coo,
                         (crow_indices, col_indices, out_int32, transpose), {}, out)
