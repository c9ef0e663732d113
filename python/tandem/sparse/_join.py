"""Joining sparse COO tensors and the *_like constructors for them: tandem.cat / concat / concatenate / stack of
sparse tensors (batching the adjacency matrices of several graphs into one), SparseCooTensor.unsqueeze (what stack
is made of), and zeros_like / empty_like of a sparse tensor (an empty one of the same size). As PyTorch's, cat
keeps every entry of every operand (nothing is summed, so the result is not coalesced): along a sparse dim the
operands' indices are shifted by the sizes before them; along a dense dim each operand's values are padded with
zeros outside its own slice."""
from .. import _C
from .._layouts import sparse_coo, strided
from . import _coo
from ._base import _SparseBase, wrap_dim

Tensor = _C.Tensor


def _check_operands(tensors, name):
    tensors = list(tensors)
    if not tensors:
        raise ValueError(f"tandem.{name}(): expected a non-empty list of Tensors")
    for position, t in enumerate(tensors):
        if type(t) is not _coo.SparseCooTensor:
            if isinstance(t, _SparseBase):
                raise t._refuse(name)  # CSR / CSC operands: PyTorch has no kernel for them either
            if position == 0:  # PyTorch's sparse cat reads the first operand's values before any check
                raise _SparseBase._refuse_dense("_values", t)
            raise RuntimeError(f"Concatenating sparse tensors, but a dense tensor was found at position {position}.")
    return tensors


def _check_layouts(tensors):
    first = tensors[0]
    for position, t in enumerate(tensors[1:], 1):
        if t.sparse_dim() != first.sparse_dim() or t.dense_dim() != first.dense_dim():
            raise RuntimeError(f"All tensors must have the same sparse_dim and dense_dim: {first.sparse_dim()}, "
                               f"{first.dense_dim()}, but tensor at position {position} has {t.sparse_dim()}, "
                               f"{t.dense_dim()}.")
        if t.device != first.device:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{first.device} and {t.device}!")


def cat(tensors, dim=0, *, out=None, _name="cat"):
    """The sparse operands side by side along dim, every stored entry kept (uncoalesced, as PyTorch's)."""
    if out is not None:
        raise RuntimeError(f"{_name}(): out= is not supported for sparse tensors in tandem\nhint: assign the result")
    tensors = _check_operands(tensors, _name)
    first = tensors[0]
    dim = wrap_dim(dim, first.dim())
    for position, t in enumerate(tensors[1:], 1):
        if any(a != b for d, (a, b) in enumerate(zip(first.shape, t.shape)) if d != dim):
            raise RuntimeError(f"All tensors must have the same shape: {list(first.shape)} (except in the "
                               f"concatenating dimension), but found shape: {list(t.shape)} at position {position}.")
    _check_layouts(tensors)
    dtype = first.dtype
    for t in tensors[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    size = list(first.shape)
    size[dim] = sum(t.shape[dim] for t in tensors)
    sparse_dim = first.sparse_dim()
    if dim < sparse_dim:  # shift each operand's coordinates along dim past the operands before it
        parts, offset = [], 0
        for t in tensors:
            indices = t._idx.clone()
            indices[dim] += offset
            parts.append(indices)
            offset += t.shape[dim]
        values = _C.cat([t._vals.to(dtype) for t in tensors])
        return _coo.wrap(_C.cat(parts, 1), values, size, False)
    value_dim = dim - sparse_dim + 1  # a dense dim: each operand's values padded to the whole length
    padded, before = [], 0
    for t in tensors:
        after = size[dim] - before - t.shape[dim]
        pad_shape = list(t._vals.shape)
        pieces = []
        for length in (before, after):
            pad_shape[value_dim] = length
            pieces.append(_C.zeros(pad_shape, dtype=dtype, device=t.device))
        padded.append(_C.cat([pieces[0], t._vals.to(dtype), pieces[1]], value_dim))
        before += t.shape[dim]
    return _coo.wrap(_C.cat([t._idx for t in tensors], 1), _C.cat(padded), size, False)


def stack(tensors, dim=0, *, out=None):
    """The sparse operands along a new dim (each unsqueezed there, then cat)."""
    tensors = _check_operands(tensors, "stack")
    for position, t in enumerate(tensors[1:], 1):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} at "
                               f"entry 0 and {list(t.shape)} at entry {position}")
    dim = wrap_dim(dim, tensors[0].dim() + 1)
    return cat([unsqueeze(t, dim) for t in tensors], dim, out=out, _name="stack")


def unsqueeze(self, dim):
    """A new dim of size 1: a sparse one (a row of zero coordinates) at or before the last sparse dim, else a
    dense one (the values unsqueezed)."""
    dim = wrap_dim(dim, self.dim() + 1)
    size = list(self.shape)
    size.insert(dim, 1)
    sparse_dim = self.sparse_dim()
    if dim <= sparse_dim:
        zeros = _C.zeros((1, self._idx.shape[1]), dtype=self._idx.dtype, device=self._idx.device)
        indices = _C.cat([self._idx[:dim], zeros, self._idx[dim:]])
        return _coo.wrap(indices, self._vals, size, False)
    return _coo.wrap(self._idx, self._vals.unsqueeze(dim - sparse_dim + 1), size, self._coalesced)


def _like(name):
    def like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
             pin_memory=False):
        """No stored entries, the input's size (and its dtype, device and layout unless given); layout=strided
        gives the dense zeros."""
        dtype = input.dtype if dtype is None else dtype
        device = input.device if device is None else device
        if layout is strided:
            return _C.zeros(list(input.shape), dtype=dtype, device=device).requires_grad_(requires_grad)
        if layout not in (None, sparse_coo) or type(input) is not _coo.SparseCooTensor:
            raise input._refuse(name)
        indices = _C.zeros((input.sparse_dim(), 0), dtype=_C.int64, device=device)
        values = _C.zeros([0] + list(input.shape[input.sparse_dim():]), dtype=dtype, device=device)
        return _coo.wrap(indices, values.requires_grad_(requires_grad), input.shape, True)

    like.__name__ = like.__qualname__ = name
    return like


# tandem.<name>(...) with a sparse operand, by function name (_dispatch.py): functions whose first argument is a
# list of tensors, or that build a new tensor like their argument, are no method of the sparse layout.
FUNCTIONS = {"cat": cat, "concat": cat, "concatenate": cat, "stack": stack, "zeros_like": _like("zeros_like"),
             "empty_like": _like("empty_like")}
