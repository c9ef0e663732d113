"""xp.linalg, the standard's linalg extension, over tandem.linalg (LAPACK/cuSOLVER front ends, float32/float64/
complex64/complex128).

The standard's signatures differ from PyTorch's in names and conventions, which is all this module adapts:
axis/keepdims for dim/keepdim, vector_norm's and matrix_norm's keyword order, pinv/matrix_rank with rtol only,
solve reading a right-hand side as a vector only when it is 1-d, diagonal/trace over the last two axes, and the
standard's promotion of two arrays of different dtypes. matmul, matrix_transpose, tensordot and vecdot are the
main namespace's functions (the standard makes them the same functions).
"""
from .. import _C
from .. import _compositions
from .. import linalg as _linalg
from ._manipulation import _same_dtype, matmul, matrix_transpose, tensordot, vecdot  # noqa: F401

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]


def cholesky(x, /, *, upper=False):
    return _linalg.cholesky(x, upper=upper)


def cross(x1, x2, /, *, axis=-1):
    """The standard broadcasts x1 and x2 (tandem's cross, as PyTorch's, wants equal ranks)."""
    x1, x2 = _compositions.broadcast_tensors(*_same_dtype(x1, x2))
    return _linalg.cross(x1, x2, dim=axis)


def det(x, /):
    return _linalg.det(x)


def diagonal(x, /, *, offset=0):
    return _compositions.diagonal(x, offset, -2, -1)


def eigh(x, /):
    return _linalg.eigh(x)


def eigvalsh(x, /):
    return _linalg.eigvalsh(x)


def inv(x, /):
    return _linalg.inv(x)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return _linalg.matrix_norm(x, ord, (-2, -1), keepdims)


def matrix_power(x, n, /):
    return _linalg.matrix_power(x, n)


def matrix_rank(x, /, *, rtol=None):
    return _linalg.matrix_rank(x, rtol=rtol)  # an array rtol: one per matrix, as in PyTorch


def outer(x1, x2, /):
    x1, x2 = _same_dtype(x1, x2)
    return _C.outer(x1, x2)


def pinv(x, /, *, rtol=None):
    return _linalg.pinv(x, rtol=rtol)


def qr(x, /, *, mode="reduced"):
    return _linalg.qr(x, mode)


def slogdet(x, /):
    return _linalg.slogdet(x)


def solve(x1, x2, /):
    """tandem.linalg.solve, as PyTorch's, also reads x2 of shape x1.shape[:-1] as a batch of vectors; the standard
    reads only a 1-d x2 as a vector, so such an x2 gets a leading batch dim (it is then a stack of matrices)."""
    x1, x2 = _same_dtype(x1, x2)
    if x2.ndim != 1 and x2.ndim == x1.ndim - 1 and tuple(x2.shape) == tuple(x1.shape[:-1]):
        x2 = x2.unsqueeze(0)
    return _linalg.solve(x1, x2)


def svd(x, /, *, full_matrices=True):
    return _linalg.svd(x, full_matrices=full_matrices)


def svdvals(x, /):
    return _linalg.svdvals(x)


def trace(x, /, *, offset=0, dtype=None):
    """The sum of each matrix's diagonal; integers sum in int64 (unsigned ones in uint64), as the standard asks."""
    if dtype is None and not x.dtype.is_floating_point and not x.dtype.is_complex:
        dtype = _C.int64 if x.dtype == _C.bool or x.dtype.is_signed else _C.uint64
    return _C.sum(diagonal(x, offset=offset), dim=-1, dtype=dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """tandem.linalg.vector_norm over the standard's axis; axis=None with keepdims keeps every dim as size 1, so
    it is passed as all of x's dims."""
    if axis is None and x.ndim > 0:
        axis = tuple(range(x.ndim))
    return _linalg.vector_norm(x, ord, axis, keepdims)
