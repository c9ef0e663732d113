"""The math of COO tensors, composed from dense tandem ops on indices and values (index_select, index_add,
unique, searchsorted, ...), so autograd through the values and the dense operands, dtypes and every device come
from those ops. Nothing loops in Python over entries but the merge of two uncoalesced operands of a sum
(_merge_walk), and only to_dense() builds a tensor of the full size: sparse @ dense costs O(nnz * columns)."""
import math
import numbers

from .. import _C
from .._creation import tensor
from . import _autocast, _coo
from ._base import is_dense, wrap_dim

Tensor = _C.Tensor
_INT64_MAX = 2**63 - 1


def _is_sparse(x):
    return type(x) is _coo.SparseCooTensor


def is_operand(x):
    """What a sparse tensor's operators take: tensors of either layout and numbers (else NotImplemented)."""
    return isinstance(x, numbers.Number) or is_dense(x) or _is_sparse(x)


def linear_index(indices, sizes):
    """Each entry's row-major position among the sparse dims (sizes): one int64 per column of indices."""
    if math.prod(sizes) > _INT64_MAX:
        raise RuntimeError(f"sparse tensor of sparse size {list(sizes)} has more elements than int64 can number")
    if len(sizes) == 0:
        return _C.zeros(indices.shape[1], dtype=_C.int64, device=indices.device)
    lin = indices[0]
    for d in range(1, len(sizes)):
        lin = lin * sizes[d] + indices[d]
    return lin


def unravel(lin, sizes):
    """The indices (len(sizes) x n) of row-major positions lin."""
    if lin.shape[0] == 0 or len(sizes) == 0:
        return _C.zeros((len(sizes), lin.shape[0]), dtype=_C.int64, device=lin.device)
    rows = []
    for size in reversed(sizes[1:]):
        rows.append(lin % size)
        lin = lin // size
    rows.append(lin)
    return _C.stack(rows[::-1])


def _dense_shape(t):
    return list(t._size[t.sparse_dim():])


def coalesce(t):
    """Duplicates summed (index_add over the unique positions, which unique returns sorted), so the values keep
    their autograd history."""
    if t._coalesced:
        return t
    sizes = list(t._size[:t.sparse_dim()])
    lin = linear_index(t._idx, sizes)
    unique, inverse = _C.unique(lin, sorted=True, return_inverse=True)
    values = _C.zeros([unique.shape[0]] + _dense_shape(t), dtype=t.dtype, device=t.device)
    values = values.index_add(0, inverse, t._vals)
    return _coo.wrap(unravel(unique, sizes), values, t._size, True)


def leaf_grad(t):
    """The gradient of a sparse leaf as a coalesced sparse tensor: the gradient w.r.t. each stored value is the
    gradient w.r.t. the element it sits on, so duplicates carry equal gradients and their mean is that element's."""
    grad = t._vals.grad
    if t._coalesced:
        return _coo.wrap(t._idx, grad, t._size, True)
    sizes = list(t._size[:t.sparse_dim()])
    unique, inverse, counts = _C.unique(linear_index(t._idx, sizes), sorted=True, return_inverse=True,
                                        return_counts=True)
    summed = _C.zeros([unique.shape[0]] + _dense_shape(t), dtype=grad.dtype, device=grad.device)
    summed = summed.index_add(0, inverse, grad)
    counts = counts.reshape([-1] + [1] * t.dense_dim()).to(grad.dtype)
    return _coo.wrap(unravel(unique, sizes), summed / counts, t._size, True)


def to_dense(t):
    values = t._vals
    sizes = list(t._size[:t.sparse_dim()])
    flat = _C.zeros([math.prod(sizes)] + _dense_shape(t), dtype=values.dtype, device=values.device)
    return flat.index_add(0, linear_index(t._idx, sizes), values).reshape(list(t._size))


# ---- transposes ---------------------------------------------------------------------------------------------------

def transpose(t, dim0, dim1):
    ndim, sparse_dim = t.dim(), t.sparse_dim()
    dim0, dim1 = wrap_dim(dim0, ndim), wrap_dim(dim1, ndim)
    if dim0 >= sparse_dim or dim1 >= sparse_dim:
        raise RuntimeError(f"sparse transpose: transposed dimensions must be sparse Got sparse_dim: {sparse_dim}, "
                           f"d0: {dim0}, d1: {dim1}")
    if dim0 == dim1:
        return t
    order = list(range(sparse_dim))
    order[dim0], order[dim1] = dim1, dim0
    size = list(t._size)
    size[dim0], size[dim1] = size[dim1], size[dim0]
    indices = t._idx.index_select(0, tensor(order, device=t._idx.device))
    return _coo.wrap(indices, t._vals, size, False)


def t(self):
    if self.sparse_dim() > 2 or self.dense_dim() > 0:
        raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, but got "
                           f"{self.sparse_dim()} sparse and {self.dense_dim()} dense dimensions")
    return transpose(self, 0, 1) if self.dim() == 2 else self


def matrix_transpose(t, name):
    """t.mT / t.mH / t.H: the last two dimensions swapped (conjugated for mH and H), with PyTorch's errors."""
    if name == "H" and t.dim() != 2:
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {t.dim()}-D tensor.")
    if t.dim() < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of matrices. Got {t.dim()}-D "
                           "tensor.")
    swapped = transpose(t, -2, -1)
    if name == "mT" or not t.is_complex():
        return swapped
    return _coo.wrap(swapped._idx, swapped._vals.conj_physical(), list(swapped._size), False)


# ---- products -----------------------------------------------------------------------------------------------------

def _check_sparse_matrix(a):
    if a.sparse_dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {a.sparse_dim()}D tensor")
    if a.dense_dim() != 0:
        raise RuntimeError(f"addmm: scalar values expected, got {a.dense_dim() + 1}D values\nhint: sparse @ dense "
                           "needs a sparse tensor without dense dims")


def _check_dtypes(a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected scalar type {a.dtype._scalar_type_name} but found {b.dtype._scalar_type_name}")


def _check_dense_operand(b, fn, arg):
    if not is_dense(b):
        raise TypeError(f"{fn}(): argument '{arg}' must be Tensor, not {type(b).__name__}")


def _sparse_dense_into(base, a, b, alpha=1):
    """base + alpha * (a @ b) for a sparse matrix a and dense b: each entry (i, j, v) adds v * b[j] to row i.
    The gathered rows (nnz x columns) are the only temporary; they are scaled in place unless the values need
    them for their gradient."""
    rows, cols = a._idx.unbind(0)
    gathered = b.index_select(0, cols)
    scale = a._vals.unsqueeze(1)
    gathered = gathered * scale if a._vals.requires_grad else gathered.mul_(scale)
    return base.index_add(0, rows, gathered, alpha=alpha) if alpha != 1 else base.index_add(0, rows, gathered)


def _check_sparse_dense(a, b, fn="mm"):
    _check_sparse_matrix(a)
    _check_dense_operand(b, fn, "mat2")
    if b.dim() == 1:  # PyTorch's message for a vector here
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if b.dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {b.dim()}D tensor")
    if b.shape[0] != a._size[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a._size[1]}, got {b.shape[0]}")
    _check_dtypes(a, b)


def sparse_dense_mm(a, b):
    _check_sparse_dense(a, b)
    base = _C.zeros((a._size[0], b.shape[1]), dtype=b.dtype, device=b.device)
    return _sparse_dense_into(base, a, b)


def dense_sparse_mm(a, b):
    """dense @ sparse, as (b.t() @ a.t()).t(): the sparse operand's entries pick columns of a."""
    _check_sparse_matrix(b)
    if a.dim() != 2:
        raise RuntimeError(f"addmm: matrices expected, got {a.dim()}D tensor")
    if a.shape[1] != b._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                           f"{b._size[0]}x{b._size[1]})")
    return sparse_dense_mm(t(b), a.t()).t()


def sparse_sparse_mm(a, b):
    """sparse @ sparse -> sparse (coalesced): each entry (i, k) of a meets the entries (k, j) of b's row k, found
    as a range of the coalesced (row-sorted) b; repeat_interleave lists the pairs."""
    _check_sparse_matrix(a)
    _check_sparse_matrix(b)
    if a._size[1] != b._size[0]:
        raise RuntimeError(f"_sparse_sparse_matmul: mat1 and mat2 shapes cannot be multiplied ({a._size[0]}x"
                           f"{a._size[1]} and {b._size[0]}x{b._size[1]})")
    _check_dtypes(a, b)
    a, b = coalesce(a), coalesce(b)
    a_rows, a_cols = a._idx.unbind(0)
    b_rows, b_cols = b._idx.unbind(0)
    per_row = _C.bincount(b_rows, minlength=b._size[0])
    row_start = per_row.cumsum(0) - per_row
    pairs = per_row.index_select(0, a_cols)  # how many entries of b each entry of a meets
    a_pos = _C.arange(a_cols.shape[0], device=a_cols.device).repeat_interleave(pairs)
    first_pair = pairs.cumsum(0) - pairs
    within = _C.arange(a_pos.shape[0], device=a_pos.device) - first_pair.index_select(0, a_pos)
    b_pos = row_start.index_select(0, a_cols.index_select(0, a_pos)) + within
    values = a._vals.index_select(0, a_pos) * b._vals.index_select(0, b_pos)
    indices = _C.stack([a_rows.index_select(0, a_pos), b_cols.index_select(0, b_pos)])
    return coalesce(_coo.wrap(indices, values, (a._size[0], b._size[1]), False))


def mm(a, b):
    """torch.mm / torch.sparse.mm / torch.spmm with a sparse operand."""
    a, b = _autocast.lower(a, b)
    if _is_sparse(a):
        return sparse_sparse_mm(a, b) if _is_sparse(b) else sparse_dense_mm(a, b)
    _check_dense_operand(a, "mm", "input")
    return dense_sparse_mm(a, b)


def matmul(a, b):
    """torch.matmul / @ with a sparse matrix: as mm, plus a dense vector as the other operand."""
    a, b = _autocast.lower(a, b)
    if _is_sparse(a) and is_dense(b) and b.dim() == 1:
        return sparse_dense_mm(a, b.unsqueeze(1)).squeeze(1)
    if _is_sparse(b) and is_dense(a) and a.dim() == 1:
        return dense_sparse_mm(a.unsqueeze(0), b).squeeze(0)
    for x, arg in ((a, "input"), (b, "other")):
        if not (_is_sparse(x) or is_dense(x)):
            raise TypeError(f"matmul(): argument '{arg}' must be Tensor, not {type(x).__name__}")
        if _is_sparse(x) and x.sparse_dim() != 2:
            raise RuntimeError("reshape is not implemented for sparse tensors\nhint: matmul takes sparse "
                               "matrices (2 sparse dims)")
    return mm(a, b)


def addmm(input, mat1, mat2, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2) for a sparse mat1 and dense input and mat2."""
    input, mat1, mat2 = _autocast.lower(input, mat1, mat2)
    _check_dense_operand(input, "addmm", "input")
    _check_sparse_dense(mat1, mat2, "addmm")
    shape = (mat1._size[0], mat2.shape[1])
    if beta == 0:  # input is ignored, NaNs included (PyTorch's rule)
        base = _C.zeros(shape, dtype=mat2.dtype, device=mat2.device)
    else:
        base = (input * beta if beta != 1 else input).expand(shape)
    return _sparse_dense_into(base, mat1, mat2, alpha)


# ---- elementwise --------------------------------------------------------------------------------------------------

def _same_sizes(a, b, message):
    if list(a._size) != list(b._size) or a.sparse_dim() != b.sparse_dim():
        raise RuntimeError(message)


def add(a, b, alpha=1, name="add"):
    """sparse + sparse -> sparse (the entries of both; coalesced when both were). sparse + dense is refused, as in
    PyTorch (dense + sparse is add_to_dense)."""
    if not _is_sparse(b):
        raise RuntimeError(f"{name}(sparse, dense) is not supported. Use {name}(dense, sparse) instead.")
    _same_sizes(a, b, f"{name}: expected sizes of 'self' and 'other' to match, but {list(a._size)} != "
                      f"{list(b._size)}")
    indices, values, coalesced = _summed_parts(a, b, alpha, _C.promote_types(a.dtype, b.dtype))
    return _coo.wrap(indices, values, a._size, coalesced)


def add_(a, b, alpha=1):
    """a += alpha * b for sparse a and b, in place (a keeps its identity and dtype): PyTorch's sparse add_, which
    is also how a sparse gradient accumulates into a sparse .grad."""
    if not _is_sparse(b):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")
    _same_sizes(a, b, f"add: expected sizes of 'self' and 'other' to match, but {list(a._size)} != {list(b._size)}")
    from .._dtype_functions import can_cast  # noqa: PLC0415  (imported while tandem is being built)

    result_type = _C.promote_types(a.dtype, b.dtype)
    if not can_cast(result_type, a.dtype):
        raise RuntimeError(f"Can't convert result type {result_type._scalar_type_name} to output "
                           f"{a.dtype._scalar_type_name} in add operation")
    a._idx, a._vals, a._coalesced = _summed_parts(a, b, alpha, a.dtype)
    return a


def _summed_parts(a, b, alpha, dtype):
    """(indices, values, coalesced) of a + alpha * b, entry by entry as PyTorch's CPU sum of sparse tensors: an
    empty operand adds nothing; with contiguous values both lists of entries are merged as sorted lists are
    (entries with equal indices where the walk meets them become one), so a gradient accumulated over the same
    rows keeps its entries and coalesced operands give a coalesced sum; otherwise the entries are concatenated (and
    coalesced once there are more entries than elements)."""
    other = b._vals * alpha if alpha != 1 else b._vals
    if b._nnz() == 0:
        return a._idx, a._vals.to(dtype), a._coalesced
    if a._nnz() == 0:
        return b._idx, other.to(dtype), b._coalesced
    a_vals, b_vals = a._vals.to(dtype), other.to(dtype)
    contiguous = a._vals.is_contiguous() and b._vals.is_contiguous()
    if contiguous and a._idx.shape == b._idx.shape and bool((a._idx == b._idx).all()):
        return a._idx, a_vals + b_vals, a._coalesced
    if not contiguous or (a._coalesced and b._coalesced):
        summed = _coo.wrap(_C.cat([a._idx, b._idx], 1), _C.cat([a_vals, b_vals]), a._size, False)
        # The merge of two sorted lists of distinct indices is their coalesced sum; a concatenation is coalesced
        # only once it holds more entries than elements.
        return _parts(coalesce(summed) if contiguous or summed._nnz() > summed.numel() else summed)
    sizes = list(a._size[:a.sparse_dim()])
    from_a, from_b = _merge_walk(linear_index(a._idx, sizes).tolist(), linear_index(b._idx, sizes).tolist())
    device = a._idx.device
    take_a = tensor([k for k in from_a if k >= 0], dtype=_C.int64, device=device)
    take_b = tensor([k for k in from_b if k >= 0], dtype=_C.int64, device=device)
    slot_a = tensor([n for n, k in enumerate(from_a) if k >= 0], dtype=_C.int64, device=device)
    slot_b = tensor([n for n, k in enumerate(from_b) if k >= 0], dtype=_C.int64, device=device)
    indices = _C.zeros((a.sparse_dim(), len(from_a)), dtype=_C.int64, device=device)
    indices = indices.index_copy(1, slot_a, a._idx.index_select(1, take_a))
    indices = indices.index_copy(1, slot_b, b._idx.index_select(1, take_b))
    values = _C.zeros([len(from_a)] + _dense_shape(a), dtype=dtype, device=a._vals.device)
    values = values.index_add(0, slot_a, a_vals.index_select(0, take_a))
    values = values.index_add(0, slot_b, b_vals.index_select(0, take_b))
    return indices, values, False


def _parts(t):
    return t._idx, t._vals, t._coalesced


def _merge_walk(a, b):
    """The walk that merges two sorted lists, over lists of keys that need not be sorted: at each step the smaller
    head is taken, or both heads when they are equal. Returns, per output entry, its position in a and in b (-1:
    none). A loop over the entries, the one place this module has one: the order depends on every comparison
    before it (PyTorch's CPU kernel walks the same way)."""
    from_a, from_b = [], []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            from_a.append(i)
            from_b.append(j)
            i, j = i + 1, j + 1
        elif a[i] < b[j]:
            from_a.append(i)
            from_b.append(-1)
            i += 1
        else:
            from_a.append(-1)
            from_b.append(j)
            j += 1
    from_a += list(range(i, len(a))) + [-1] * (len(b) - j)
    from_b += [-1] * (len(a) - i) + list(range(j, len(b)))
    return from_a, from_b


def add_to_dense(dense, sparse, alpha=1, name="add"):
    """dense + alpha * sparse -> dense, without broadcasting (PyTorch's rule)."""
    if not is_dense(dense):
        raise RuntimeError(f"{name}(sparse, dense) is not supported. Use {name}(dense, sparse) instead.")
    if list(dense.shape) != list(sparse._size):
        raise RuntimeError(f"{name}: expected 'self' and 'other' to have same size, but self has size "
                           f"{list(dense.shape)} while other has size {list(sparse._size)} (FYI: dense-sparse "
                           "addition does not currently support broadcasting)")
    other = to_dense(sparse)
    return dense + other if alpha == 1 else dense + other * alpha


def check_scalar_operand(t, other, fn):
    if is_dense(other) and other.dim() == 0:
        return
    if isinstance(other, (Tensor, _coo.SparseCooTensor)) or not isinstance(other, numbers.Number):
        raise RuntimeError(f"{fn}(): a sparse tensor can be scaled in place by a number or a 0-d tensor only\n"
                           "hint: use the out-of-place form")


def _intersection(a, b):
    """a * b for sparse a, b of one size: the entries at indices both hold (coalesced)."""
    _same_sizes(a, b, "sparse_binary_op_intersection(): expects sparse inputs with equal dimensionality, number of "
                      "sparse dimensions, and shape of sparse dimensions")
    a, b = coalesce(a), coalesce(b)
    sizes = list(a._size[:a.sparse_dim()])
    lin_a, lin_b = linear_index(a._idx, sizes), linear_index(b._idx, sizes)
    if lin_a.shape[0] == 0:
        hit = pos = lin_a  # empty
    else:
        pos = _C.searchsorted(lin_a, lin_b).clamp(max=lin_a.shape[0] - 1)
        hit = (lin_a.index_select(0, pos) == lin_b).nonzero().squeeze(1)
        pos = pos.index_select(0, hit)
    values = a._vals.index_select(0, pos) * b._vals.index_select(0, hit)
    return _coo.wrap(b._idx.index_select(1, hit), values, a._size, True)


def _check_broadcast(a_shape, b_shape):
    """PyTorch's broadcasting error (expand would word it as an expand) for a dense operand that does not
    broadcast to the sparse one's size."""
    for i in range(1, min(len(a_shape), len(b_shape)) + 1):
        sa, sb = a_shape[-i], b_shape[-i]
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {max(len(a_shape), len(b_shape)) - i}")


def mul(a, b):
    """sparse * number, 0-d tensor, dense tensor (broadcast to a's size: the product keeps a's pattern) or sparse
    tensor (the intersection)."""
    if _is_sparse(b):
        return _intersection(a, b)
    if is_dense(b) and b.dim() > 0:
        _check_broadcast(b.shape, a._size)
        at_entries = b.expand(list(a._size))[tuple(a._idx.unbind(0))]
        return _coo.wrap(a._idx, a._vals * at_entries, a._size, a._coalesced)
    if not (is_dense(b) or isinstance(b, numbers.Number)):
        raise TypeError(f"mul(): argument 'other' must be Tensor or Number, not {type(b).__name__}")
    return _coo.wrap(a._idx, a._vals * b, a._size, a._coalesced)


def div(a, b, rounding_mode=None):
    if (is_dense(b) and b.dim() > 0) or _is_sparse(b):
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor (got shape "
                           f"{list(b.shape)} for divisor)")
    if not (is_dense(b) or isinstance(b, numbers.Number)):
        raise TypeError(f"div(): argument 'other' must be Tensor or Number, not {type(b).__name__}")
    values = a._vals.div(b) if rounding_mode is None else a._vals.div(b, rounding_mode=rounding_mode)
    return _coo.wrap(a._idx, values, a._size, a._coalesced)


def pow(a, exponent):  # noqa: A001  (the method's name)
    """Values raised to a positive number (zero stays zero, so the pattern holds)."""
    if not is_dense(exponent) and not _is_sparse(exponent) and exponent == 0:  # PyTorch's words
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make the result tensor "
                           "dense\nhint: use .to_dense() first")
    if is_dense(exponent) or _is_sparse(exponent) or not exponent > 0:
        raise RuntimeError(f"pow(): a sparse tensor's exponent must be a positive number, got {exponent!r}\nhint: "
                           "other exponents do not keep zeros zero; use .to_dense() first")
    c = coalesce(a)
    return _coo.wrap(c._idx, c._vals.pow(exponent), c._size, True)


# ---- reductions ---------------------------------------------------------------------------------------------------

def norm(t, p="fro", dim=None, keepdim=False, dtype=None):
    """The norm of all of t's elements (PyTorch's sparse norm takes full reductions only): the vector norm of
    the coalesced values, the elements not stored being zeros (p=0 counts the nonzero values, inf/-inf take the
    largest/smallest stored magnitude, as PyTorch's)."""
    if dim is not None and sorted(_dims(dim, t.dim())) != list(range(t.dim())):
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must either be empty or "
                           "contain all dimensions of the input")
    if keepdim:
        raise RuntimeError("norm_sparse currently does not support keepdim=True")
    if dtype is not None:
        if p == "fro":
            raise ValueError("dtype argument is not supported in frobenius norm")
        raise RuntimeError("norm_sparse currently does not support 'dtype' argument")
    if isinstance(p, str) and p != "fro":
        raise t._refuse("_linalg_svd" if p == "nuc" else "norm")
    from .. import linalg  # noqa: PLC0415  (imported while tandem is being built)

    return linalg.vector_norm(coalesce(t)._vals, 2 if p == "fro" else p)


def _dims(dim, ndim):
    dims = [dim] if isinstance(dim, int) else list(dim)
    wrapped = []
    for d in dims:
        d = wrap_dim(d, ndim)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return wrapped


def sum(t, dim=None, keepdim=False, dtype=None):  # noqa: A001  (torch.sparse.sum)
    """All elements (a dense 0-d tensor), or over dims: a dense tensor when every sparse dim is summed, else a
    sparse tensor over the sparse dims left (coalesced)."""
    values = t._vals if dtype is None else t._vals.to(dtype)
    if dim is None:
        return values.sum()
    sparse_dim = t.sparse_dim()
    dims = _dims(dim, t.dim())
    summed_sparse = [d for d in dims if d < sparse_dim]
    summed_dense = [d - sparse_dim + 1 for d in dims if d >= sparse_dim]
    if summed_dense:
        values = values.sum(summed_dense, keepdim=keepdim)
    dense_shape = list(values.shape[1:])
    if len(summed_sparse) == sparse_dim:
        out = values.sum(0)
        return out.reshape([1] * sparse_dim + dense_shape) if keepdim else out
    if keepdim:
        kept = [1 if d in summed_sparse else t._size[d] for d in range(sparse_dim)]
        rows = [_C.zeros_like(row) if d in summed_sparse else row for d, row in enumerate(t._idx.unbind(0))]
        indices = _C.stack(rows)
    else:
        kept = [t._size[d] for d in range(sparse_dim) if d not in summed_sparse]
        keep = tensor([d for d in range(sparse_dim) if d not in summed_sparse], device=t._idx.device)
        indices = t._idx.index_select(0, keep)
    return coalesce(_coo.wrap(indices, values, kept + dense_shape, False))


def softmax(t, dim, dtype=None, log=False):
    """torch.sparse.softmax / log_softmax: over the stored entries of each slice along dim (the unstored ones
    count as -inf, i.e. not at all). Each slice's max is subtracted (detached: the result does not depend on it),
    exp sums per slice with index_add."""
    name = "log_softmax" if log else "softmax"
    dim = wrap_dim(dim, t.dim())
    t = coalesce(t)
    values = t._vals if dtype is None else t._vals.to(dtype)
    if not (values.dtype.is_floating_point or values.dtype.is_complex):
        raise NotImplementedError(f"\"{name}\" not implemented for '{values.dtype._scalar_type_name}'")
    sparse_dim = t.sparse_dim()
    if dim >= sparse_dim:  # along a dense dim: each stored row of values on its own
        dense_dim = dim - sparse_dim + 1
        out = values.log_softmax(dense_dim) if log else values.softmax(dense_dim)
        return _coo.wrap(t._idx, out, t._size, True)
    others = [d for d in range(sparse_dim) if d != dim]
    slice_sizes = [t._size[d] for d in others]
    keep = tensor(others, dtype=_C.int64, device=t._idx.device)
    slice_id = linear_index(t._idx.index_select(0, keep), slice_sizes)
    slices = math.prod(slice_sizes)
    if slices > 4 * slice_id.shape[0] + 4096:  # numbering every possible slice would cost more than a sort
        unique, slice_id = _C.unique(slice_id, sorted=False, return_inverse=True)
        slices = unique.shape[0]
    dense_shape = list(values.shape[1:])
    spread = slice_id.reshape([-1] + [1] * len(dense_shape)).expand(values.shape)
    peak = _C.full([slices] + dense_shape, float("-inf"), dtype=values.dtype, device=values.device)
    peak = peak.scatter_reduce(0, spread, values.detach(), "amax")
    shifted = values - peak.index_select(0, slice_id)
    exp = shifted.exp()
    total = _C.zeros([slices] + dense_shape, dtype=values.dtype, device=values.device).index_add(0, slice_id, exp)
    out = shifted - total.log().index_select(0, slice_id) if log else exp / total.index_select(0, slice_id)
    return _coo.wrap(t._idx, out, t._size, True)
