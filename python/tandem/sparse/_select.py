"""SparseCooTensor.index_select (GNN mini-batch code takes rows of an adjacency: adj.index_select(0, batch)), with
PyTorch's result: along a sparse dim, for each position j of index in turn, the entries whose coordinate is
index[j] in their stored order, moved to coordinate j; along a dense dim, the values' index_select. As in
PyTorch, the result is marked coalesced only when it has under 2 entries. The entries are matched with one
stable sort and two searchsorted calls (no nnz x len(index) table).

select and narrow_copy (a row of an adjacency, a block of it) follow PyTorch's COO kernels the same way: the
matching entries in their stored order; select of the last sparse dim sums them into a dense tensor."""
import operator

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


def _int_arg(value, function, name, position):
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, not "
                        f"{type(value).__name__}") from None


def select(self, dim, index):
    """The slice of self at index along dim: sparse with one dim fewer (coalesced only when under 2 entries), or,
    when dim is the only sparse dim, the dense sum of its matching entries' values."""
    dim = wrap_dim(_int_arg(dim, "select", "dim", 1), self.dim())
    index = _int_arg(index, "select", "index", 2)
    length = self.shape[dim]
    if not -length <= index < length:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(self.shape)} at dimension "
                         f"{dim}")
    index %= length
    size = list(self.shape[:dim]) + list(self.shape[dim + 1:])
    sparse_dim = self.sparse_dim()
    if dim >= sparse_dim:  # a dense dim: every entry stays, its values are sliced
        return _coo.wrap(self._idx, self._vals.select(dim - sparse_dim + 1, index), size, self._nnz() < 2)
    entries = (self._idx[dim] == index).nonzero().squeeze(1)  # in stored order
    values = self._vals.index_select(0, entries)
    if sparse_dim == 1:
        return values.sum(0, dtype=values.dtype)  # duplicates and all: the dense slice
    indices = _C.cat([self._idx[:dim], self._idx[dim + 1:]]).index_select(1, entries)
    return _coo.wrap(indices, values, size, entries.shape[0] < 2)


def narrow_copy(self, dim, start, length):
    """Entries with start <= coordinate < start + length along dim, the coordinate moved down by start (a dense
    dim narrows the values); the coalesced flag is self's."""
    dim = _int_arg(dim, "narrow_copy", "dim", 1)
    if not 0 <= dim < self.dim():  # PyTorch's sparse kernel takes no negative dim either
        raise RuntimeError(f"Dimension {dim} out of range. Expecting 0 <= dim < {self.dim()}.")
    start = _int_arg(start, "narrow_copy", "start", 2)
    length = _int_arg(length, "narrow_copy", "length", 3)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start < 0 or start + length > self.shape[dim]:  # PyTorch's sparse kernel takes no negative start
        raise RuntimeError(f"Invalid range to narrow. range(start, start+length) must be a subset of range(0, "
                           f"{self.shape[dim]}).")
    size = list(self.shape)
    size[dim] = length
    sparse_dim = self.sparse_dim()
    if dim >= sparse_dim:
        return _coo.wrap(self._idx, self._vals.narrow(dim - sparse_dim + 1, start, length).clone(), size,
                         self._coalesced)
    coords = self._idx[dim]
    entries = ((coords >= start) & (coords < start + length)).nonzero().squeeze(1)
    indices = self._idx.index_select(1, entries)
    indices[dim] -= start
    return _coo.wrap(indices, self._vals.index_select(0, entries), size, self._coalesced)
