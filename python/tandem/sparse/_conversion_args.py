"""PyTorch's argument checks for the layout conversions (its _to_sparse_check_arguments): Tensor.to_sparse(layout=,
blocksize=, dense_dim=) and to_sparse_csr(dense_dim) from dense, COO, CSR and CSC tensors, so they refuse the same
arguments with PyTorch's messages. Each message starts with the PyTorch function that checks (funcname): the
same-layout no-op is "to_sparse" / "to_sparse_csr", a conversion names its source ("dense_to_sparse",
"sparse_coo_to_sparse", "sparse_compressed_to_sparse", "coo_to_sparse_csr", ...)."""
from .._layouts import sparse_coo, sparse_csc, sparse_csr, strided

# how PyTorch's messages name them
_NAMES = {strided: "Strided", sparse_coo: "Sparse", sparse_csr: "SparseCsr", sparse_csc: "SparseCsc"}


def target_layout(layout):
    """to_sparse's layout= as one tandem has (None: sparse_coo, as in PyTorch); BSR and BSC are refused."""
    if layout is None:
        return sparse_coo
    if layout not in _NAMES:
        raise NotImplementedError(f"to_sparse(): layout={layout} is not supported\nhint: tandem has the strided, "
                                  "sparse_coo, sparse_csr and sparse_csc layouts (no BSR or BSC)")
    return layout


def check(funcname, t, layout_from, layout_to, blocksize, dense_dim):
    """PyTorch's checks in its order: a COO source needs 2 sparse dims to leave its layout; a blocksize is only for
    the blocked layouts (which tandem lacks, so any well-formed one is refused); dense_dim only from dense tensors,
    within the target's range."""
    source, target = _NAMES[layout_from], _NAMES[layout_to]
    if layout_from is sparse_coo and layout_to is not sparse_coo and t.sparse_dim() != 2:
        raise RuntimeError(f"{funcname}: conversion from {source} to {target} for input tensors with sparse_dim()!=2 "
                           "is not supported")
    if blocksize is not None:
        if len(blocksize) != 2:
            raise RuntimeError(f"{funcname}: blocksize needs to be a tuple of size 2, but got {len(blocksize)}")
        if min(blocksize) <= 0:
            raise RuntimeError(f"{funcname}: blocksize needs to be positive, but got {list(blocksize)}")
        raise RuntimeError(f"{funcname}: conversion from {source} to {target} with blocksize argument given is not "
                           "supported")
    if dense_dim is None:
        return
    if layout_from is not strided:
        raise RuntimeError(f"{funcname}: conversion from {source} to {target} with dense_dim argument given is not "
                           "supported")
    ndim = t.dim()
    if layout_to is sparse_coo:
        if dense_dim == ndim and ndim > 0:
            raise RuntimeError(f"{funcname}: dense_dim argument must be !=self.dim() when self.dim()>0")
        high = ndim
    else:  # the compressed layouts keep 2 sparse dims
        high = ndim - 2
    if not 0 <= dense_dim <= high:
        raise RuntimeError(f"{funcname}: dense_dim argument must be in [0,{high}] range, but {dense_dim} is given")
