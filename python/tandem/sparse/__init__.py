"""tandem.sparse: sparse COO tensors (layout tandem.sparse_coo), CSR and CSC matrices (tandem.sparse_csr,
sparse_csc), all tandem.Tensor instances (_base.py, _dispatch.py), PyTorch's
torch.sparse functions on them (mm, addmm, sum, softmax, log_softmax) and the legacy FloatTensor(indices, values,
size) constructors. tandem.sparse_coo_tensor, sparse_csr_tensor, Tensor.to_sparse() / to_sparse_csr() and the
sparse paths of tandem.mm / matmul / addmm / spmm are installed into tandem by install(). docs/ops.md ("Sparse
tensors") lists what a sparse tensor supports."""
from .. import _C
from . import (_compressed_indices, _construct, _csc, _csr, _csr_construct, _join, _legacy, _masked, _math, _mm_reduce,
               _mv, _select)
from . import _bmm  # after the layouts (_coo and _csr import each other through _construct)
from ._base import _SparseBase
from ._coo import SparseCooTensor
from ._csc import SparseCscTensor
from ._invariants import check_sparse_tensor_invariants
from ._csr import SparseCsrTensor
from ._spdiags import spdiags

Tensor = _C.Tensor


def mm(mat1, mat2, reduce=None):
    """sparse @ dense -> dense, sparse @ sparse -> sparse, dense @ sparse -> dense; differentiable w.r.t. the
    sparse operand's values and the dense operand. reduce= ("sum", "mean", "amax", "amin") for a CSR mat1."""
    if reduce is not None:
        return _mm_reduce.mm_reduce(mat1, mat2, reduce)
    return _sparse_mm(mat1, mat2)


def addmm(mat, mat1, mat2, *, beta=1.0, alpha=1.0):
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1 and dense mat and mat2."""
    return _sparse_addmm(mat, mat1, mat2, beta, alpha)


def sum(input, dim=None, dtype=None):  # noqa: A001  (PyTorch's name)
    """All elements as a dense 0-d tensor, or over dim(s): sparse over the sparse dims left, dense when every
    sparse dim is summed."""
    if type(input) in (SparseCsrTensor, SparseCscTensor):
        return input.sum(dim, False, dtype)
    if not isinstance(input, _SparseBase):  # PyTorch's errors for a dense input
        if dim is None:
            raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
        raise _SparseBase._refuse_dense("_indices", input)
    return _math.sum(input, dim, False, dtype)


def softmax(input, dim, *, dtype=None):
    """Softmax over the stored entries of each slice along dim (unstored elements do not take part); the result
    has input's pattern, coalesced."""
    if not isinstance(input, _SparseBase):
        raise _SparseBase._refuse_dense("_sparse_softmax", input)
    return _math.softmax(input, dim, dtype)


def log_softmax(input, dim, *, dtype=None):
    if not isinstance(input, _SparseBase):
        raise _SparseBase._refuse_dense("_sparse_log_softmax", input)
    return _math.softmax(input, dim, dtype, log=True)


# tandem.mm / matmul / addmm with a sparse path: a set lookup of each operand's type in front of the dense
# function, so dense calls stay as fast as they were.
_SPARSE_TYPES = frozenset((SparseCooTensor, SparseCsrTensor, SparseCscTensor))


def _no_csc(x):
    """A CSC operand as COO (its products are COO's); anything else as it is."""
    return x.to_sparse_coo() if type(x) is SparseCscTensor else x


def _sparse_mm(a, b):
    a, b = _no_csc(a), _no_csc(b)
    if type(a) is SparseCsrTensor or type(b) is SparseCsrTensor:
        return _csr.mm(a, b)
    return _math.mm(a, b)


def _sparse_matmul(a, b):
    a, b = _no_csc(a), _no_csc(b)
    if type(a) is SparseCsrTensor or type(b) is SparseCsrTensor:
        return _csr.matmul(a, b)
    return _math.matmul(a, b)


def _sparse_addmm(input, mat1, mat2, beta, alpha):
    mat1 = _no_csc(mat1)
    if type(mat1) is SparseCsrTensor:
        return _csr.addmm(input, mat1, mat2, beta, alpha)
    return _math.addmm(input, mat1, mat2, beta, alpha)


def _refuse_keywords(name, kwargs):
    """A sparse call takes no keyword beyond the dense signature's (out= has no sparse form here)."""
    if "out" in kwargs:
        raise TypeError(f"{name}(): out= is not supported with a sparse operand\nhint: assign the result instead "
                        f"(c = tandem.{name}(a, b))")
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")


def _mm(dense_mm):
    def mm(input, mat2, **kwargs):  # kwargs: out=, for the dense path
        if type(input) in _SPARSE_TYPES or type(mat2) in _SPARSE_TYPES:
            _refuse_keywords("mm", kwargs)
            return _sparse_mm(input, mat2)
        return dense_mm(input, mat2, **kwargs)

    mm.__doc__ = dense_mm.__doc__
    return mm


def _matmul(dense_matmul):
    def matmul(input, other, **kwargs):
        if type(input) in _SPARSE_TYPES or type(other) in _SPARSE_TYPES:
            _refuse_keywords("matmul", kwargs)
            return _sparse_matmul(input, other)
        return dense_matmul(input, other, **kwargs)

    matmul.__doc__ = dense_matmul.__doc__
    return matmul


def _addmm(dense_addmm):
    def addmm(input, mat1, mat2, *, beta=1, alpha=1, **kwargs):
        if type(mat1) in _SPARSE_TYPES:
            _refuse_keywords("addmm", kwargs)
            return _sparse_addmm(input, mat1, mat2, beta, alpha)
        if type(input) in _SPARSE_TYPES or type(mat2) in _SPARSE_TYPES:
            raise TypeError("addmm(): of the operands only mat1 may be sparse\nhint: convert the others with "
                            ".to_dense()")
        if beta == 1 and alpha == 1 and not kwargs:  # keywords cost the C++ call ~0.5 us
            return dense_addmm(input, mat1, mat2)
        return dense_addmm(input, mat1, mat2, beta=beta, alpha=alpha, **kwargs)

    addmm.__doc__ = dense_addmm.__doc__
    return addmm


def _mv_wrapper(dense_mv):
    def mv(input, vec, **kwargs):  # kwargs: out=, for the dense path
        if type(input) in _SPARSE_TYPES:
            _refuse_keywords("mv", kwargs)
            return _mv.mv(_no_csc(input), vec)
        return dense_mv(input, vec, **kwargs)

    mv.__doc__ = dense_mv.__doc__
    return mv


SparseCooTensor.mv = SparseCsrTensor.mv = _mv.mv
SparseCooTensor.index_select = _select.index_select
SparseCooTensor.select = _select.select
SparseCooTensor.narrow_copy = _select.narrow_copy
SparseCooTensor.unsqueeze = _join.unsqueeze
SparseCooTensor.bmm = _bmm.bmm
SparseCooTensor._rbmm = _bmm.rbmm
SparseCooTensor.smm = _masked.smm  # PyTorch has Tensor.smm but no Tensor.hspmm
sampled_addmm = _masked.sampled_addmm


def _is_tensor(dense_is_tensor):
    def is_tensor(obj):
        """True for tensors of any layout (as torch.is_tensor); False for anything else, None included (the
        binding refuses None: filter(torch.is_tensor, [W, H]) with H=None is torchsde's check)."""
        return type(obj) in _SPARSE_TYPES or (obj is not None and dense_is_tensor(obj))

    return is_tensor


_installed = []


def install(namespace):
    """tandem.sparse_coo_tensor, sparse_csr_tensor and spmm, the sparse paths of mm / matmul / addmm / mv / is_tensor,
    and the Tensor methods for sparse work (to_sparse, to_sparse_csr, to_dense, ...)."""
    namespace["sparse_coo_tensor"] = _construct.sparse_coo_tensor
    namespace["sparse_csr_tensor"] = _csr_construct.sparse_csr_tensor
    namespace["sparse_csc_tensor"] = _csc.sparse_csc_tensor
    namespace["sparse_compressed_tensor"] = _csc.sparse_compressed_tensor
    namespace["smm"], namespace["hspmm"] = _masked.smm, _masked.hspmm
    Tensor.sparse_mask = _masked.sparse_mask
    for name in ("_convert_indices_from_coo_to_csr", "_convert_indices_from_csr_to_coo"):
        namespace[name] = getattr(_compressed_indices, name)  # PyTorch Geometric's index2ptr / ptr2index
    if _installed:
        return  # the wrappers must wrap tandem's own functions, not themselves
    _installed.append(True)
    namespace["mm"] = namespace["spmm"] = _mm(namespace["mm"])
    namespace["matmul"] = _matmul(namespace["matmul"])
    namespace["addmm"] = _addmm(namespace["addmm"])
    namespace["mv"] = _mv_wrapper(namespace["mv"])
    namespace["is_tensor"] = _is_tensor(namespace["is_tensor"])
    for name, method in _construct.dense_methods().items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)


_LEGACY_TYPES = _legacy.legacy_types()
globals().update(_LEGACY_TYPES)  # FloatTensor(indices, values, size), ... (Kipf's pygcn builds with them)

__all__ = ["SparseCooTensor", "SparseCsrTensor", "SparseCscTensor", "check_sparse_tensor_invariants", "mm", "addmm",
           "sum", "softmax", "log_softmax", "spdiags", "sampled_addmm", *_LEGACY_TYPES]
