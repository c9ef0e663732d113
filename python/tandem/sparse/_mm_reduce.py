"""torch.sparse.mm(csr, dense, reduce): each output row reduces the products of its row's entries with the dense
rows they pick ("sum", "mean", "amax"/"max", "amin"/"min"), as PyTorch's sparse_mm_reduce (PyTorch Geometric's
SAGEConv and friends aggregate neighbours this way). The products are one gather (nnz x columns); the reduction
is one index_reduce into zeros, so a row without entries stays zero (PyTorch's too) and autograd reaches the
values and the dense operand through those ops."""
from .. import _C
from . import _csr, _math

_REDUCTIONS = {"sum": "sum", "mean": "mean", "amax": "amax", "max": "amax", "amin": "amin", "min": "amin"}


def mm_reduce(a, b, reduce):
    if type(a) is not _csr.SparseCsrTensor:
        raise a._refuse("_sparse_mm_reduce_impl") if hasattr(a, "_refuse") else TypeError(
            f"sparse.mm(): reduce= needs a sparse CSR mat1, not {type(a).__name__}")
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"sparse_mm_reduce: reduce type of {reduce} has not been enabled.")
    _csr._check_csr_dense(a, b)
    kind = _REDUCTIONS[reduce]
    coo = _csr.as_coo(a)
    if kind == "sum":
        return _math.sparse_dense_mm(coo, b)
    rows, cols = coo._idx.unbind(0)
    products = coo._vals.unsqueeze(1) * b.index_select(0, cols)
    out = _C.zeros((a._size[0], b.shape[1]), dtype=b.dtype, device=b.device)
    if kind == "mean":
        counts = (a._crow[1:] - a._crow[:-1]).clamp(min=1).to(b.dtype).unsqueeze(1)
        return out.index_add(0, rows, products) / counts
    return out.index_reduce(0, rows, products, kind, include_self=False)
