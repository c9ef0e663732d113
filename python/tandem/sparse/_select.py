"""SparseCooTensor.index_select (GNN mini-batch code takes rows of an adjacency: adj.index_select(0, batch)), with
PyTorch's result: along a sparse dim, for each position j of index in turn, the entries whose coordinate is
index[j] in their stored order, moved to coordinate j; along a dense dim, the values' index_select. As in
PyTorch, the result is marked coalesced only when it has under 2 entries. The entries are matched with one
stable sort and two searchsorted calls (no nnz x len(index) table)."""
from .. import _C
from . import _coo
from ._base import is_dense, wrap_dim

Tensor = _C.Tensor


def _check_index(t, dim, index):
    if not is_dense(index) or index.dim() != 1 or index.dtype != _C.int64:
        raise IndexError("index_select() argument index must be 1-D strided (non-sparse) long-tensor.")
    if index.numel():
        low, high = _C.stack([index.amin(), index.amax()]).tolist()  # one device-to-host copy
        bad = low if low < 0 else high if high >= t.shape[dim] else None
        if bad is not None:
            raise IndexError(f"index_select(): index contains {bad} that is out of range for tensor of size "
                             f"{list(t.shape)} at dimension {dim}")


def index_select(self, dim, index):
    """The slices of self at index along dim (a sparse tensor; gradients reach the selected values)."""
    dim = wrap_dim(dim, self.dim())
    _check_index(self, dim, index)
    size = list(self.shape)
    size[dim] = index.shape[0]
    index = index.to(self._idx.device)
    if dim >= self.sparse_dim():  # a dense dim: every entry stays, its values are sliced
        return _coo.wrap(self._idx, self._vals.index_select(dim - self.sparse_dim() + 1, index), size,
                         self._nnz() < 2)
    coords = self._idx[dim]
    order = _C.argsort(coords, stable=True)
    sorted_coords = coords[order]
    first = _C.searchsorted(sorted_coords, index)
    counts = _C.searchsorted(sorted_coords, index, right=True) - first
    positions = _C.arange(index.shape[0], device=index.device).repeat_interleave(counts)  # j of each result entry
    starts = counts.cumsum(0) - counts
    within = _C.arange(positions.shape[0], device=index.device) - starts.repeat_interleave(counts)
    entries = order[first.repeat_interleave(counts) + within]
    indices = self._idx.index_select(1, entries)
    indices[dim] = positions
    return _coo.wrap(indices, self._vals.index_select(0, entries), size, positions.shape[0] < 2)
