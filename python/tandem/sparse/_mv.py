"""torch.mv / Tensor.mv with a sparse matrix (PageRank-style power iterations call torch.mv(adjacency, r)): PyTorch's
checks and messages for each layout, then the sparse @ dense product with the vector as a column (a dense vector,
gradients to the values and the vector)."""
from .. import _C
from . import _autocast, _math
from ._base import is_dense
from ._csr import SparseCsrTensor, matmul

Tensor = _C.Tensor


def _check_coo(a, vec):
    if a.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"mv: two tensor dim should be 2 and 1, but got SparseTensor Dim: {a.dim()}Tensor Dim: "
                           f"{vec.dim()}")
    if a.shape[1] != vec.shape[0]:
        raise RuntimeError("mv: expected self.size(-1) == vec.size(-1)")
    _math._check_dtypes(a, vec)


def _check_csr(a, vec):
    if vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.dim()}, {vec.dim()}")
    if a.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x{a.shape[1]}), vec "
                           f"({vec.shape[0]})")
    if a.dtype != vec.dtype:
        names = vec.dtype._scalar_type_name, a.dtype._scalar_type_name, vec.dtype._scalar_type_name
        raise RuntimeError("addmv input tensors must have the same dtype, but got {}, {}, and {}".format(*names))


def mv(input, vec):
    """input @ vec for a sparse matrix input and a dense vector vec."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"mv(): argument 'vec' (position 2) must be Tensor, not {type(vec).__name__}")
    input, vec = _autocast.lower(input, vec)  # PyTorch's sparse mv runs through autocast-listed addmm
    if isinstance(input, SparseCsrTensor):
        _check_csr(input, vec)
    else:
        _check_coo(input, vec)
    if not is_dense(vec):
        raise NotImplementedError("mv(): a sparse vec is not supported\nhint: pass vec.to_dense()")
    return matmul(input, vec) if isinstance(input, SparseCsrTensor) else _math.matmul(input, vec)
