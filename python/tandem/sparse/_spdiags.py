"""tandem.sparse.spdiags: a sparse 2-D tensor with the rows of `diagonals` along the diagonals named by
`offsets`, as PyTorch's (and SciPy's) spdiags: the value for column j of the output is taken from column j of its
row of `diagonals`, so a diagonal above the main one starts at `diagonals[i, offset]`. The entries come out
diagonal by diagonal, column by column, uncoalesced, as PyTorch's. Composed of gathers, so gradients reach
`diagonals` (PyTorch has no derivative for it)."""
from .. import _C
from .._layouts import sparse_coo, sparse_csr, strided
from . import _coo
from ._base import is_dense

Tensor = _C.Tensor

# ATen's names for the layouts, which its layout message prints
_ATEN_LAYOUT_NAMES = {strided: "Strided", sparse_coo: "Sparse", sparse_csr: "SparseCsr"}


def _argument_error(name, position, expected, value):
    raise TypeError(f"_spdiags(): argument '{name}' (position {position}) must be {expected}, not "
                    f"{type(value).__name__}")


def _check_arguments(diagonals, offsets, shape, layout):
    """PyTorch's checks, in its order: argument types, then diagonals' rank, shape's, offsets' rank, the counts,
    the layout, the offsets' dtype and their uniqueness."""
    if not is_dense(diagonals):
        _argument_error("diagonals", 1, "Tensor", diagonals)
    if not is_dense(offsets):
        _argument_error("offsets", 2, "Tensor", offsets)
    if not isinstance(shape, (tuple, list)):
        _argument_error("shape", 3, "tuple of ints", shape)
    for i, s in enumerate(shape):
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"_spdiags(): argument 'shape' (position 3) must be tuple of ints, but found element of "
                            f"type {type(s).__name__} at pos {i}")
    if layout is not None and type(layout) is not type(strided):
        _argument_error("layout", 4, "torch.layout", layout)
    if diagonals.dim() not in (1, 2):
        raise RuntimeError("Diagonals must be vector or matrix")
    if len(shape) != 2:
        raise RuntimeError("Output shape must be 2d")
    if offsets.dim() > 1:
        raise RuntimeError("Offsets must be scalar or vector")
    n_diagonals = diagonals.shape[0] if diagonals.dim() == 2 else 1
    if n_diagonals != offsets.numel():
        raise RuntimeError(f"Number of diagonals ({n_diagonals}) does not match the number of offsets "
                           f"({offsets.numel()})")
    if layout not in (None, sparse_coo, sparse_csr):
        name = _ATEN_LAYOUT_NAMES.get(layout)
        if name is not None:  # strided: PyTorch refuses it too
            raise RuntimeError(f"Only output layouts (Sparse, SparseCsc, SparseCsr) are supported, got {name}")
        raise NotImplementedError(f"spdiags: layout {layout} is not supported by tandem\nhint: use "
                                  "layout=torch.sparse_coo or torch.sparse_csr")
    if offsets.dtype != _C.int64:
        raise RuntimeError(f"Offset Tensor must have dtype Long but got {offsets.dtype._scalar_type_name}")


def spdiags(diagonals, offsets, shape, layout=None):
    _check_arguments(diagonals, offsets, shape, layout)
    rows_out, cols_out = shape
    if rows_out < 0 or cols_out < 0:  # PyTorch does not check (and crashes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    table = diagonals if diagonals.dim() == 2 else diagonals.unsqueeze(0)
    offset_list = offsets.reshape(-1).tolist()  # a few numbers: the host decides each diagonal's extent
    if len(set(offset_list)) != len(offset_list):
        raise RuntimeError("Offset tensor contains duplicate values")
    device = table.device
    rows, cols, values = [], [], []
    for i, k in enumerate(offset_list):
        if not -rows_out <= k <= cols_out:
            # PyTorch reads outside the diagonal's row here (a wrong entry or a negative-size error)
            raise RuntimeError(f"spdiags: offset {k} lies outside the output of shape {tuple(shape)}\nhint: "
                               f"offsets must be in [-{rows_out}, {cols_out}]")
        first, last = max(0, k), min(cols_out, rows_out + k, table.shape[1])
        if last <= first:
            continue
        col = _C.arange(first, last, device=device)
        rows.append(col - k)
        cols.append(col)
        values.append(table[i].narrow(0, first, last - first))
    if values:
        indices = _C.stack([_C.cat(rows), _C.cat(cols)])
        value_tensor = _C.cat(values)
    else:
        indices = _C.zeros(2, 0, dtype=_C.int64, device=device)
        value_tensor = table.reshape(-1).narrow(0, 0, 0)
    out = _coo.wrap(indices, value_tensor, [rows_out, cols_out], len(value_tensor) < 2)
    return out.to_sparse_csr() if layout is sparse_csr else out
