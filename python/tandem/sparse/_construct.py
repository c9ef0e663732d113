"""Making COO tensors: tandem.sparse_coo_tensor (with PyTorch's checks and messages) and dense.to_sparse().

Indices are always checked against the size (PyTorch checks only under check_invariants=True): an index out of
range would otherwise land on another element when the math linearises indices, a wrong answer rather than an
error. The check costs one amin/amax and one small device-to-host copy per construction."""
import math

import tandem

from .. import _C
from .._layouts import sparse_csc, sparse_csr, strided
from . import _conversion_args, _coo, _csr_construct, _invariants
from ._base import _SparseBase

Tensor = _C.Tensor


def _as_values(values, dtype, device):
    if isinstance(values, _SparseBase):
        raise TypeError("sparse_coo_tensor(): argument 'values' must be a dense Tensor, not a sparse one\n"
                        "hint: pass its .values() (after .coalesce())")
    if not isinstance(values, Tensor):
        from .. import tensor  # noqa: PLC0415  (tandem's namespace is complete by the first call)

        return tensor(values, dtype=dtype, device=device)
    if dtype is not None or device is not None:
        return values.to(device=device, dtype=dtype)
    return values


def _as_indices(indices, values, device):
    """int64 indices on values' device. Integer tensors convert as in PyTorch; a floating, complex or bool tensor
    is refused (PyTorch truncates or maps it to 0/1, silently giving other elements)."""
    if isinstance(indices, _SparseBase):
        raise TypeError("sparse_coo_tensor(): argument 'indices' must be a dense Tensor, not a sparse one")
    if not isinstance(indices, Tensor):
        from .. import as_tensor  # noqa: PLC0415

        indices = as_tensor(indices, device=values.device)  # a list or an array: it has no device of its own
    elif device is not None:
        indices = indices.to(device)
    # (an empty floating tensor, torch.tensor([[], []]), has nothing to truncate: PyTorch takes it, as here)
    if (indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype == _C.bool) and indices.numel():
        raise RuntimeError(f"indices must be an int64 tensor\nhint: the indices are {indices.dtype}; pass "
                           "integer indices (indices.long())")
    if indices.device != values.device:
        raise RuntimeError(f"device of indices ({indices.device}) must match device of values ({values.device})\n"
                           "hint: move both to one device, or pass device=")
    return indices if indices.dtype == _C.int64 else indices.to(_C.int64)


def _check_size(size, sparse_dim, values):
    size = [int(s) for s in size]
    dense_dim = values.dim() - 1
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) = {len(size)}, "
                           f"sparse_dim = {sparse_dim}, dense_dim = {dense_dim}")
    for s in size:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {size}")
    if math.prod(size) >= 2**63:  # to_dense and the linearised indices would overflow int64
        raise RuntimeError(f"numel: integer multiplication overflow\nhint: the size {size} has more than 2**63 - 1 "
                           "elements")
    expected = [values.shape[0]] + size[sparse_dim:]
    if list(values.shape) != expected:
        raise RuntimeError(f"values has incorrect size, expected {expected}, got {list(values.shape)}")
    return size


def _index_bounds(indices):
    """Per sparse dim, the smallest and largest index (one transfer for both)."""
    if indices.shape[1] == 0:
        return [], []
    bounds = _C.stack([indices.amin(1), indices.amax(1)]).tolist()
    return bounds[0], bounds[1]


_MISSING = object()

_COO_FORMS = (
    " * (object indices, object values, *, tandem.dtype dtype = None, tandem.device device = None, bool pin_memory = "
    "False, bool requires_grad = False, bool check_invariants = None, bool is_coalesced = None)\n"
    " * (object indices, object values, tuple of ints size, *, tandem.dtype dtype = None, tandem.device device = "
    "None, bool pin_memory = False, bool requires_grad = False, bool check_invariants = None, bool is_coalesced = "
    "None)\n"
    " * (tuple of ints size, *, tandem.dtype dtype = None, tandem.device device = None, bool requires_grad = False, "
    "bool check_invariants = None)\n")


def sparse_coo_tensor(indices=_MISSING, values=_MISSING, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor with ``values[k]`` at ``indices[:, k]`` (duplicates add up). ``size`` defaults to the
    smallest that holds the indices (and values' trailing dims, for hybrid tensors). The indices are checked
    against the size whatever check_invariants says; it is read (as PyTorch's) for its once-a-process warning.
    ``sparse_coo_tensor(size)`` (or ``size=`` alone) is PyTorch's third form: an empty tensor of that size."""
    if values is _MISSING:
        if indices is not _MISSING and size is None and isinstance(indices, (tuple, list)):
            indices, size = _MISSING, indices  # sparse_coo_tensor((5, 3)): the size form
        if indices is not _MISSING or size is None or pin_memory or is_coalesced is not None:
            given = [type(a).__name__ for a in (indices, size) if a is not _MISSING and a is not None]
            raise TypeError(f"sparse_coo_tensor() received an invalid combination of arguments - got "
                            f"({', '.join(given)}), but expected one of:\n" + _COO_FORMS)
        size = [int(n) for n in size]
        dtype = dtype if dtype is not None else tandem.get_default_dtype()
        return sparse_coo_tensor(_C.empty((len(size), 0), dtype=tandem.int64, device=device),
                                 _C.empty(0, dtype=dtype, device=device), size, requires_grad=requires_grad,
                                 check_invariants=check_invariants)
    _invariants.resolve(check_invariants)
    values = _as_values(values, dtype, device)
    indices = _as_indices(indices, values, device)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    sparse_dim, nnz = indices.shape
    values_nnz = values.shape[0] if values.dim() else 1
    if values.dim() == 0 or values_nnz != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: {nnz}, nnz from "
                           f"values: {values_nnz}")
    low, high = _index_bounds(indices)
    for d, v in enumerate(low):
        if v < 0:
            raise RuntimeError(f"found negative index {v} for dim {d}")
    if size is None:
        size = [h + 1 for h in high] if nnz else [0] * sparse_dim
        size += list(values.shape[1:])
    size = _check_size(size, sparse_dim, values)
    for d, v in enumerate(high):
        if v >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is {size[d]} but found "
                               f"index {v}")
    if requires_grad and not values.requires_grad:
        if not (values.dtype.is_floating_point or values.dtype.is_complex):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        values = values.detach().requires_grad_()  # a leaf of its own: the caller's tensor stays as it was
    elif values.requires_grad and values.grad_fn is None:
        # The result is not a leaf (as in PyTorch): its gradient flows into the given leaf's .grad.
        values = values.view_as(values)
    coalesced = nnz < 2  # as PyTorch marks them
    if is_coalesced:
        coalesced = _construct_is_sorted(indices, size[:sparse_dim])
        if not coalesced:
            raise RuntimeError("sparse_coo_tensor(): is_coalesced=True but the indices are not sorted and unique\n"
                               "hint: leave is_coalesced out and call .coalesce()")
    return _coo.wrap(indices, values, size, coalesced)


def _construct_is_sorted(indices, sizes):
    from ._math import linear_index  # noqa: PLC0415  (_math imports this module)

    lin = linear_index(indices, sizes)
    return lin.shape[0] < 2 or bool((lin[1:] > lin[:-1]).all())


def dense_to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """Tensor.to_sparse: the nonzero elements of a dense tensor (rows of the first sparse_dim dims with any
    nonzero, for hybrid results), coalesced; with layout=tandem.sparse_csr, to_sparse_csr(dense_dim); with
    sparse_csc, to_sparse_csc(); with layout=tandem.strided, self. Differentiable: the values are gathered from self."""
    layout = _conversion_args.target_layout(layout)
    if layout is strided:
        _conversion_args.check("to_sparse", self, strided, strided, blocksize, dense_dim)
        return self
    _conversion_args.check("dense_to_sparse", self, strided, layout, blocksize, dense_dim)
    if layout is sparse_csr:
        return _csr_construct.dense_to_sparse_csr(self, dense_dim)
    if layout is sparse_csc:
        return _dense_to_sparse_csc(self)
    ndim = self.dim()
    if sparse_dim is None:
        sparse_dim = ndim - (dense_dim or 0)
    if not 0 <= sparse_dim <= ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, but {sparse_dim} is "
                           "given")
    if sparse_dim == 0:
        if ndim > 0:
            raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when self.dim()>0")
        values = self.reshape(1)
        values = values.index_select(0, (values != 0).nonzero().squeeze(1))  # one entry, unless it is zero
        indices = _C.zeros((0, values.shape[0]), dtype=_C.int64, device=self.device)
        return _coo.wrap(indices, values, (), True)
    nonzero = self != 0
    if sparse_dim < ndim:
        per_row = 1
        for s in self.shape[sparse_dim:]:
            per_row *= s
        nonzero = nonzero.reshape(list(self.shape[:sparse_dim]) + [per_row]).any(-1)
    indices = nonzero.nonzero().t().contiguous()
    return _coo.wrap(indices, self[tuple(indices.unbind(0))], self.shape, True)


def to_sparse_coo(self):
    return dense_to_sparse(self)


def dense_to_dense(self, dtype=None, *, masked_grad=None):
    """Tensor.to_dense on a dense tensor: itself (converted when dtype is given), as in PyTorch."""
    return self if dtype is None else self.to(dtype)


def _no_sparse_dims(self):
    return 0


def _all_dense_dims(self):
    return self.dim()


def _layout_error(name, what="sparse coordinate tensor"):
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {what} layout but got Strided")

    refuse.__name__ = name
    return refuse


def _no_sparse_kernel(name):
    def refuse(self, *args, **kwargs):
        backend = "CUDA" if self.device.type == "cuda" else "CPU"
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the '{backend}' backend.\n"
                                  "hint: the tensor is dense; this method is for sparse tensors")

    refuse.__name__ = name
    return refuse


def _dense_to_sparse_csc(self):
    """A dense matrix as CSC: its transpose's CSR form over the same tensors."""
    from ._csc import to_sparse_csc  # noqa: PLC0415  (_csc imports the layouts)

    if self.dim() != 2:
        raise RuntimeError(f"to_sparse_csc(): a tandem CSC tensor is a 2-d matrix, got {self.dim()} dims")
    return to_sparse_csc(self)


def dense_methods():
    """Tensor methods PyTorch gives dense tensors for sparse work: conversions, and the sparse queries' errors."""
    methods = {"to_sparse": dense_to_sparse, "to_sparse_coo": to_sparse_coo, "to_dense": dense_to_dense,
               "to_sparse_csr": _csr_construct.dense_to_sparse_csr, "to_sparse_csc": _dense_to_sparse_csc,
               "sparse_dim": _no_sparse_dims,
               "dense_dim": _all_dense_dims}
    for name in ("coalesce", "is_coalesced", "indices"):
        methods[name] = _layout_error(name)
    for name in ("crow_indices", "col_indices"):
        methods[name] = _layout_error(name, "sparse row compressed tensor")
    methods["values"] = _layout_error("values", "sparse tensor")
    methods["_indices"], methods["_values"] = _no_sparse_kernel("_indices"), _no_sparse_kernel("_values")
    return methods

