"""PyTorch functions that are compositions of tandem's ops: triangles and diagonals, repeats and rolls,
broadcasting helpers, einsum/tensordot/kron, splits and stacks, NaN-aware and paired reductions, and fused
arithmetic such as addcmul and lerp. They run on every device and differentiate because the ops they are made
of do. install() adds them to the tandem namespace and, where PyTorch has the method, to Tensor."""
import collections
import math
import operator
import warnings

from . import _C, _layouts, _parser_errors, _parser_types
from ._autocast import active as _amp_active, run as _amp_run
from ._dim_args import (_check_reduction_args, _int, _ints, _is_int, _is_int_list, _parser_type_name,
                        _require_tensor, _require_tensor_list, _tp_name, _wrap_dim)
from ._memory_overlap import check_no_partial_overlap
from ._out import CASTABLE, FOUND_DTYPE, STRUCTURED, call_with_out, with_out
from ._einsum import einsum, tensordot  # noqa: F401  (contractions, in their own file; listed in __all__)
from ._size import Size

Tensor = _C.Tensor

__all__ = [
    "tril", "triu", "tril_indices", "triu_indices", "diagonal", "diag", "diag_embed", "trace",
    "repeat_interleave", "tile", "roll", "rot90",
    "broadcast_shapes", "broadcast_tensors", "meshgrid", "cartesian_prod", "kron", "tensordot", "einsum",
    "cross", "cdist", "diff",
    "movedim", "moveaxis", "swapaxes", "swapdims", "atleast_1d", "atleast_2d", "atleast_3d", "column_stack",
    "hsplit", "vsplit", "dsplit", "tensor_split", "unflatten", "narrow_copy", "count_nonzero", "aminmax",
    "var_mean", "std_mean", "nansum", "nanmean", "clone",
    "addcmul", "addcdiv", "lerp", "square", "reciprocal", "clamp_min", "clamp_max", "rsub",
]


def _name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _category(dtype):
    """0 bool, 1 integer, 2 floating: a result may be written into a tensor of the same or a higher one."""
    return 2 if dtype.is_floating_point else 0 if dtype == _C.bool else 1


def _sizes_arg(args, arg):
    """f(2, 3) and f((2, 3)) alike, as PyTorch's varargs size methods take them. Sizes one by one whose first is no
    int (an int that is no bool, or a one-element integer tensor) are PyTorch's one-argument form given too many."""
    if len(args) > 1 and not _int_list_head(args[0]):
        raise TypeError(f"{arg.split('(')[0]}() takes 1 positional argument but {len(args)} were given")
    return _ints(args[0] if len(args) == 1 else args, arg)


def _int_list_head(value):
    if isinstance(value, _C.Tensor):
        return value.numel() == 1 and not (value.is_floating_point() or value.is_complex())
    return not isinstance(value, (bool, float)) and hasattr(type(value), "__index__")


def _zero(x):
    return _C.zeros((), dtype=x.dtype, device=x.device)


def _check_same_dims(name, dim1, dim2, d1, d2):
    if d1 == d2:
        raise RuntimeError(f"{name} dimensions cannot be identical {dim1}, {dim2}")


# ---- triangles and diagonals ----

def _triangle_mask(rows, cols, diagonal, device, lower):
    r = _C.arange(rows, device=device).unsqueeze(-1)
    c = _C.arange(cols, device=device)
    return (c - r <= diagonal) if lower else (c - r >= diagonal)


def _triangle(name, x, diagonal, lower):
    if x.dim() < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return _triangle_mask(x.shape[-2], x.shape[-1], diagonal, x.device, lower)


def tril(input, diagonal=0, *, out=None):
    if out is not None:
        return call_with_out("tril", tril, (input, diagonal), {}, out, STRUCTURED)
    return _C.where(_triangle("tril", input, diagonal, True), input, _zero(input))


def triu(input, diagonal=0, *, out=None):
    if out is not None:
        return call_with_out("triu", triu, (input, diagonal), {}, out, STRUCTURED)
    return _C.where(_triangle("triu", input, diagonal, False), input, _zero(input))


def _tril_(self, diagonal=0):
    return self.masked_fill_(_triangle("tril", self, diagonal, True).logical_not(), 0)


def _triu_(self, diagonal=0):
    return self.masked_fill_(_triangle("triu", self, diagonal, False).logical_not(), 0)


def _triangle_indices(name, row, col, offset, dtype, device, lower):
    if row < 0 or col < 0:
        which, value = ("row", row) if row < 0 else ("col", col)
        raise RuntimeError(f"{which} must be non-negative, got{value}")  # sic: PyTorch's text has no space
    dtype = _C.int64 if dtype is None else dtype
    if dtype not in (_C.int32, _C.int64):
        raise NotImplementedError(f"\"{name}\" not implemented for '{dtype._scalar_type_name}'")
    mask = _triangle_mask(row, col, offset, device, lower)
    return _C.nonzero(mask).t().contiguous().to(dtype)  # nonzero lists row-major, PyTorch's order


_TRIANGLE_TYPES = (("row", "int"), ("col", "int"), ("offset", "int"))


def tril_indices(*args, **kwargs):
    _parser_types.check("tril_indices", args, kwargs, _TRIANGLE_TYPES)  # PyTorch's parser: ints, named
    return _tril_indices(*args, **kwargs)


def triu_indices(*args, **kwargs):
    _parser_types.check("triu_indices", args, kwargs, _TRIANGLE_TYPES)
    return _triu_indices(*args, **kwargs)


def _tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    _layouts.check_dense(layout, "tril_indices")
    out = _triangle_indices("tril_indices", row, col, offset, dtype, device or "cpu", True)
    return out.pin_memory() if pin_memory else out


def _triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None, pin_memory=False):
    _layouts.check_dense(layout, "triu_indices")
    out = _triangle_indices("triu_indices", row, col, offset, dtype, device or "cpu", False)
    return out.pin_memory() if pin_memory else out


def _diagonal_view(m, offset, length):
    """The diagonal of m's last two dims by flattening them and slicing with stride cols + 1, or None when
    they do not flatten into one strided dim."""
    rows, cols = m.shape[-2:]
    if rows != 1 and cols != 1 and m.stride(-2) != cols * m.stride(-1):
        return None
    flat = m.view(*m.shape[:-2], rows * cols)
    start = offset if offset >= 0 else -offset * cols
    return flat[..., start:start + (length - 1) * (cols + 1) + 1:cols + 1]


def _last_two_diagonal(m, offset):
    """The diagonal of m's last two dims, always a view as in PyTorch: flattened and sliced when they flatten
    into one dim (contiguous or transposed layouts: the gradient is a slice's), through as_strided otherwise."""
    rows, cols = m.shape[-2:]
    length = max(0, min(rows - max(-offset, 0), cols - max(offset, 0)))
    strides = m.stride()
    if length == 0 or m.numel() == 0:  # PyTorch's strides even where nothing is read (a flattened view's differ)
        start = m.storage_offset() if length == 0 else \
            m.storage_offset() + max(-offset, 0) * strides[-2] + max(offset, 0) * strides[-1]
        return m.as_strided((*m.shape[:-2], length), (*strides[:-2], strides[-2] + strides[-1]), start)
    view = _diagonal_view(m, offset, length)
    if view is None:  # the same diagonal, read along the transposed pair
        view = _diagonal_view(m.transpose(-2, -1), -offset, length)
    if view is not None:
        return view
    start = m.storage_offset() + max(-offset, 0) * strides[-2] + max(offset, 0) * strides[-1]
    return m.as_strided((*m.shape[:-2], length), (*strides[:-2], strides[-2] + strides[-1]), start)


def diagonal(input, offset=0, dim1=0, dim2=1):
    _require_tensor("diagonal", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    d1, d2 = _wrap_dim(dim1, input.dim()), _wrap_dim(dim2, input.dim())
    _check_same_dims("diagonal", dim1, dim2, d1, d2)
    return _last_two_diagonal(movedim(input, (d1, d2), (-2, -1)), offset)


def _embed_last(v, offset):
    """(..., n) -> (..., n + |offset|, n + |offset|) with v on that diagonal: v padded to n + |offset| becomes
    column |offset| of an (N, N + 1) block whose first N * N elements, read as (N, N), place it there."""
    k, batch = abs(offset), tuple(v.shape[:-1])
    n = v.shape[-1] + k

    def zeros(*shape):
        return _C.zeros(batch + shape, dtype=v.dtype, device=v.device)

    column = _C.cat([v, zeros(k)], -1).unsqueeze(-1)
    block = _C.cat([zeros(n, k), column, zeros(n, n - k)], -1)
    square = block.reshape(*batch, n * (n + 1)).narrow(-1, 0, n * n).reshape(*batch, n, n)
    return square if offset >= 0 else square.transpose(-2, -1)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    _require_tensor("diag_embed", "input", input, 1)  # a NumPy array: PyTorch's TypeError, not an AttributeError
    ndim = input.dim() + 1
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    _check_same_dims("diagonal", dim1, dim2, d1, d2)
    return movedim(_embed_last(input, offset), (-2, -1), (d1, d2))


def diag(input, diagonal=0, *, out=None):
    _require_tensor("diag", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if out is not None:
        return call_with_out("diag", diag, (input, diagonal), {}, out, STRUCTURED)
    if input.dim() == 1:
        return _embed_last(input, diagonal)
    if input.dim() == 2:
        return _last_two_diagonal(input, diagonal).clone()
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def trace(input):
    _require_tensor("trace", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if input.dtype == _C.bool:  # PyTorch's kernel refuses bool before it looks at the shape
        raise NotImplementedError("\"trace\" not implemented for 'Bool'\nhint: trace an integer copy, e.g. "
                                  "input.long()")
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return diagonal(input).sum()


# ---- repeats, rolls, rotations ----

def _repeat(self, *sizes, repeats=None):
    if repeats is not None:  # x.repeat(repeats=(2, 1))
        if sizes:
            raise TypeError("repeat() got multiple values for argument 'repeats'")
        sizes = (repeats,)
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    sizes = _sizes_arg(sizes, "repeat(): argument 'repeats' (position 1)")
    if len(sizes) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    shape = (1,) * (len(sizes) - self.dim()) + tuple(self.shape)
    target = [r * s for r, s in zip(sizes, shape)]
    if any(t < 0 for t in target):
        bad = next(t for t in target if t < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {target}")
    # Each dim d becomes (repeats[d], size[d]); expanding the repeats and merging the pairs copies once.
    paired = self.reshape([v for s in shape for v in (1, s)])
    out = paired.expand([v for r, s in zip(sizes, shape) for v in (r, s)]).reshape(target)
    # The result always owns its memory, as PyTorch's: where the reshape could stay a view (repeats only over
    # new or size-1 dims, or none), it would alias the input, with zero strides an in-place op then refuses.
    if out.numel() and out.data_ptr() == self.data_ptr():
        out = out.contiguous()  # copies a zero-stride view
        if out.data_ptr() == self.data_ptr():
            out = out.clone()  # a plain view of the input (nothing repeated)
    return out


def tile(input, dims):
    if not isinstance(dims, (list, tuple, Size)):  # only the method takes a bare int (x.tile(2))
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    dims = _ints(dims, "tile(): argument 'dims' (position 2)")
    return _repeat(input, (1,) * (input.dim() - len(dims)) + dims)


def _tile_method(self, *args, dims=None):
    if dims is not None:  # x.tile(dims=(2,))
        if args:
            raise TypeError("tile() got multiple values for argument 'dims'")
        args = (dims,)
    dims = _sizes_arg(args, "tile(): argument 'dims' (position 1)")
    return _repeat(self, (1,) * (self.dim() - len(dims)) + dims)


def _check_repeats_dtype(repeats):
    if repeats.dtype not in (_C.int32, _C.int64):
        raise NotImplementedError(f"\"repeat_interleave_{repeats.device.type}\" not implemented for "
                                  f"'{repeats.dtype._scalar_type_name}'")


def _repeat_index(repeats, output_size):
    """[0] * repeats[0] + [1] * repeats[1] + ...: ones scattered at each run's end, then a running sum."""
    if repeats.dim() != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    _check_repeats_dtype(repeats)
    if output_size is None:  # output_size lets callers skip this device sync, as in PyTorch
        if bool((repeats < 0).any()):
            raise RuntimeError("repeats can not be negative")
        output_size = int(repeats.sum())
    elif repeats.device.type == "cpu" and repeats.numel():  # PyTorch's CPU kernel checks it (no sync to skip)
        if int(repeats.sum()) != output_size:
            raise RuntimeError("allocated size does not match required size")
        if bool((repeats < 0).any()):
            raise RuntimeError("repeats can not be negative")
    ends = repeats.cumsum(0)[:-1].clamp(max=output_size)
    marks = _C.zeros(output_size + 1, dtype=_C.int64, device=repeats.device)
    marks = marks.scatter_add(0, ends, _C.ones_like(ends))
    return marks[:output_size].cumsum(0).to(repeats.dtype)


def _size_at(input, dim):
    """input.size(dim) as PyTorch's: a 0-d tensor has no dim to name (no scalar wrap, unlike _wrap_dim)."""
    if input.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return input.shape[_wrap_dim(dim, input.dim())]


_REPEAT_INTERLEAVE_FORMS = {  # PyTorch's overload listings, the function's and the method's
    True: " * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n"
          " * (Tensor repeats, *, int output_size = None)\n"
          " * (Tensor input, int repeats, int dim = None, *, int output_size = None)",
    False: " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
           " * (int repeats, int dim = None, *, int output_size = None)"}


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    return _repeat_interleave(input, repeats, dim, output_size, True)


def _repeat_interleave_method(self, repeats=None, dim=None, *, output_size=None):
    return _repeat_interleave(self, repeats, dim, output_size, False)


def _repeat_interleave(input, repeats, dim, output_size, function):
    if repeats is None:
        return _repeat_index(input, output_size)
    if not isinstance(repeats, Tensor) and (isinstance(repeats, bool) or not hasattr(repeats, "__index__")):
        got = ("Tensor, " if function else "") + _parser_type_name(repeats)
        raise TypeError(f"repeat_interleave() received an invalid combination of arguments - got ({got}), but "
                        f"expected one of:\n{_REPEAT_INTERLEAVE_FORMS[function]}")
    if dim is None:
        flat, dim = input.flatten(), 0
    else:
        flat = input
    if isinstance(repeats, Tensor):
        if repeats.dim() > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        size = _size_at(flat, dim)  # PyTorch's order: the repeats' rank, the dim, their length, their dtype
        if repeats.numel() != 1 or output_size is not None:
            if repeats.numel() != 1 and repeats.shape[0] != size:
                raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                                   f"{repeats.shape[0]} and input.size({dim}) = {size}")
            if repeats.numel() == 1:
                repeats = repeats.reshape(1).expand(size)
            # on the repeats' device, as PyTorch (CPU repeats: its CPU kernel checks output_size)
            index = _repeat_index(repeats, output_size)
            return flat.index_select(dim, index.to(flat.device))
        _check_repeats_dtype(repeats)
        repeats = int(repeats.reshape(1)[0])
        if repeats < 0:
            raise RuntimeError("repeats can not be negative")
    input, dim = flat, _wrap_dim(dim, input.dim())
    repeats = operator.index(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    x = input.unsqueeze(dim + 1)  # first, as PyTorch's (a 0-d input refuses dim + 1 here)
    if output_size is not None and output_size != input.shape[dim] * repeats:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {input.shape[dim] * repeats} but got "
                           f"{output_size}")
    shape = list(x.shape)
    shape[dim + 1] = repeats
    # A copy, as PyTorch's (a row-major clone, flattened): flattening the expanded view alone can stay a view of
    # the input (a size-1 dim, or repeats == 1), and writing into the result then wrote into the input (torchquad)
    return x.expand(shape).clone(memory_format=_layouts.contiguous_format).flatten(dim, dim + 1)


def roll(input, shifts, dims=None):
    return _roll(input, shifts, dims, 2)


def _roll_method(self, shifts, dims=None):
    return _roll(self, shifts, dims, 1)


def _roll(input, shifts, dims, first):
    """first: shifts' position as PyTorch's parser counts it (2 for the function, 1 for the method)."""
    shifts = _ints(shifts, f"roll(): argument 'shifts' (position {first})")
    dims = () if dims is None else _ints(dims, f"roll(): argument 'dims' (position {first + 1})")
    if not shifts:
        raise RuntimeError("`shifts` required")
    if len(shifts) != len(dims) and (dims or len(shifts) != 1):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.numel() == 0:  # PyTorch checks no dims here
        return input.clone()
    if not dims:
        return roll(input.flatten(), shifts, 0).view(input.shape)
    out = input
    if input.dim() == 0:  # PyTorch's size(dim): a 0-d tensor has no dim to roll along
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    for shift, dim in zip(shifts, dims):
        dim = _wrap_dim(dim, input.dim())
        n = input.shape[dim]
        if n and shift % n:
            s = shift % n
            out = _C.cat([out.narrow(dim, n - s, s), out.narrow(dim, 0, n - s)], dim)
    # PyTorch's roll keeps a channels-last input's layout (cat writes row-major)
    return input.clone() if out is input else _layouts.follow_input_layout(out, input)


def rot90(input, *args, **kwargs):
    return _rot90(input, args, kwargs, 2)


def _rot90_method(self, *args, **kwargs):
    return _rot90(self, args, kwargs, 1)


def _rot90_arguments(k=1, dims=(0, 1)):
    return k, dims


def _rot90(input, args, kwargs, first):
    """first: k's position as PyTorch's parser counts it (2 for the function, 1 for the method); an argument given
    by keyword has none in its messages."""
    _require_tensor("rot90", "input", input, 1)  # a NumPy array: PyTorch's TypeError, not an AttributeError
    k, dims = _rot90_arguments(*args, **kwargs)
    k = _int(k, "rot90", "k", first if args else 0)  # a float or bool k: the parser's TypeError, before the shape
    where = f" (position {first + 1})" if len(args) > 1 else ""
    dims = _ints(dims, f"rot90(): argument 'dims'{where}")
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    if dims[0] == dims[1] or abs(dims[0] - dims[1]) == input.dim():
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    d0, d1 = (_wrap_dim(d, input.dim()) for d in dims)
    k %= 4
    if k == 1:
        return input.flip(d1).transpose(d0, d1)
    if k == 2:
        return input.flip((d0, d1))
    if k == 3:
        return input.flip(d0).transpose(d0, d1)
    return input.clone()


# ---- broadcasting and products ----

def _broadcast(shapes, mismatch):
    """The broadcast of shapes; mismatch(index, shape, dim, result) raises for sizes that do not broadcast."""
    result = [1] * max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for j in range(-1, -len(shape) - 1, -1):
            if shape[j] < 0:
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if shape[j] == 1 or shape[j] == result[j]:
                continue
            if result[j] != 1:
                mismatch(index, shape, j, result)
            result[j] = shape[j]
    return Size(result)


def broadcast_shapes(*shapes):
    def mismatch(index, shape, j, result):
        given = shapes[index]  # PyTorch prints the argument as given: a Size as torch.Size([3]), a tuple as (3,)
        shown = given if isinstance(given, Size) else shape
        raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[j]} at {j}! Mismatching argument "
                           f"at index {index} had {shown}; but expected shape should be broadcastable to {result}")

    return _broadcast([_ints(s, "broadcast_shapes(): shape") for s in shapes], mismatch)


def _tensor_mismatch(index, shape, j, result):
    raise RuntimeError(f"The size of tensor a ({result[j]}) must match the size of tensor b ({shape[j]}) at "
                       f"non-singleton dimension {len(result) + j}")


def broadcast_tensors(*tensors):
    _require_tensor_list(tensors)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    shape = _broadcast([tuple(t.shape) for t in tensors], _tensor_mismatch)
    return tuple(t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing=None):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    _require_tensor_list(tensors)  # PyTorch's parser reads the tensors before indexing (NumPy arrays: TypeError)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    elif not isinstance(indexing, str):  # PyTorch's parser: a str (bytes are decoded) or None
        if not isinstance(indexing, bytes):
            raise TypeError(f"meshgrid(): argument 'indexing' must be str, not {type(indexing).__name__}")
        indexing = indexing.decode()
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    # "xy" is "ij" over the inputs with the first two swapped: the grids vary along (y, x, ...).
    order = [1, 0, *range(2, len(tensors))] if indexing == "xy" and len(tensors) >= 2 else range(len(tensors))
    shape = [tensors[i].numel() for i in order]
    grids = [None] * len(tensors)
    for axis, i in enumerate(order):
        grids[i] = tensors[i].reshape([-1 if a == axis else 1 for a in range(len(shape))]).expand(shape)
    return tuple(grids)


def cartesian_prod(*tensors):
    _require_tensor_list(tensors)  # a NumPy array: PyTorch's TypeError, not an AttributeError
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return _C.stack([g.flatten() for g in meshgrid(*tensors, indexing="ij")], 1)


def kron(input, other, *, out=None):
    if out is not None:
        return call_with_out("kron", kron, (input, other), {}, out, CASTABLE, grad_name="mul")
    _require_tensor("kron", "input", input, 1)  # NumPy arrays: PyTorch's TypeError, not an AttributeError
    _require_tensor("kron", "other", other, 2)
    ndim = max(input.dim(), other.dim())
    a_shape = (1,) * (ndim - input.dim()) + tuple(input.shape)
    b_shape = (1,) * (ndim - other.dim()) + tuple(other.shape)
    a = input.reshape([v for s in a_shape for v in (s, 1)])
    b = other.reshape([v for s in b_shape for v in (1, s)])
    return (a * b).reshape([x * y for x, y in zip(a_shape, b_shape)])



def cross(input, other, dim=None, *, out=None):
    if out is not None:
        return call_with_out("cross", cross, (input, other, dim), {}, out, STRUCTURED, grad_name="linalg_cross")
    _require_tensor("cross", "input", input, 1)  # NumPy arrays: PyTorch's TypeError, not an AttributeError
    _require_tensor("cross", "other", other, 2)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        dim = next((d for d, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    if _amp_active():  # promoted by PyTorch's CUDA autocast
        return _amp_run("cuda_promote", lambda a, b: cross(a, b, dim), input, other)
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype._scalar_type_name} but found "
                           f"{other.dtype._scalar_type_name}")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    a, b = ([x.narrow(d, i, 1) for i in range(3)] for x in broadcast_tensors(input, other))
    return _C.cat([a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3] for i in range(3)], d)


_CDIST_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    # the parser reads x1 and x2 before p: NumPy arrays are PyTorch's TypeError, not an AttributeError
    _require_tensor("cdist", "x1", x1, 1)
    _require_tensor("cdist", "x2", x2, 2)
    if not (isinstance(p, (int, float)) or (isinstance(p, Tensor) and p.numel() == 1)):
        # PyTorch's torch.cdist passes p on by position to its op, whose parser takes a float
        raise TypeError(f"cdist(): argument 'p' (position 3) must be float, not {type(p).__name__}")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dim() < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.dim()}D")
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {x.dtype._scalar_type_name}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if not p >= 0:  # NaN too
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype._scalar_type_name} but found {x2.dtype._scalar_type_name}")
    batch = tuple(_broadcast([tuple(x1.shape[:-2]), tuple(x2.shape[:-2])], _tensor_mismatch))
    x1, x2 = x1.expand(batch + tuple(x1.shape[-2:])), x2.expand(batch + tuple(x2.shape[-2:]))
    rows = max(x1.shape[-2], x2.shape[-2])
    euclid_mm = p == 2 and (compute_mode == _CDIST_MODES[1] or (compute_mode == _CDIST_MODES[0] and rows > 25))
    if not euclid_mm and x1.dtype in (_C.float16, _C.bfloat16) and x1.numel() and x2.numel():
        # PyTorch's distance kernel takes float and double only; the matrix-product form (p=2, many rows) and
        # empty inputs never reach it
        kernel = "cdist" if x1.device.type == "cpu" else f"cdist_{x1.device.type}"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{x1.dtype._scalar_type_name}'\n"
                                  "hint: compute the distances in float32 (x1.float(), x2.float()), or for p=2 pass "
                                  "compute_mode='use_mm_for_euclid_dist'")
    if euclid_mm:
        # |a - b|^2 = |a|^2 + |b|^2 - 2 a.b as one matrix product, PyTorch's _euclidean_dist.
        n1, n2 = x1.pow(2).sum(-1, keepdim=True), x2.pow(2).sum(-1, keepdim=True)
        a = _C.cat([x1 * -2, n1, _C.ones_like(n1)], -1)
        b = _C.cat([x2, _C.ones_like(n2), n2], -1)
        return a.matmul(b.mT).clamp(min=0).sqrt()
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    dist = _C.norm(diff, p, dim=-1)
    if not dist.requires_grad or (p >= 1 and p != math.inf):
        return dist  # the norm's gradient is cdist's (p = 2 keeps its second derivative)
    # Where PyTorch's cdist backward differs from the norm's: the whole gradient to every coordinate tied for the max
    # when p is inf (the norm splits it), zeros when p is 0, and for p < 1 sign(diff) (|diff| / dist)^(p-1) with 0
    # where diff or dist is 0 (the norm's gives NaN). The same value, with that gradient through a detached weight
    # (piecewise linear for inf and 0, so nothing is lost to a second derivative there):
    a = diff.abs()
    a_, d = a.detach(), dist.detach().unsqueeze(-1)
    if p == math.inf:
        weight = (a_ == d).to(a.dtype)
    elif p == 0:
        weight = _C.zeros_like(a_)
    else:
        weight = _C.where(d == 0, 0.0, (a_ / d).pow(p - 1))
        if p < 1:
            weight = _C.where(a_ == 0, 0.0, weight)
    return dist.detach() + ((a - a_) * weight).sum(-1)


def diff(input, n=1, dim=-1, prepend=None, append=None, *, out=None):
    if out is not None:
        return call_with_out("diff", diff, (input, n, dim, prepend, append), {}, out, CASTABLE)
    _require_tensor("diff", "input", input, 1)  # a NumPy array: PyTorch's TypeError, not an AttributeError
    n, dim = _int(n, "diff", "n"), _int(dim, "diff", "dim")
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.dim())
    for label, t in (("prepend", prepend), ("append", append)):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"diff(): argument '{label}' must be Tensor, not {_tp_name(t)}")  # numpy.ndarray
        if t.dim() != input.dim():
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(input.dim()):
            if i != d and t.shape[i] != input.shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to match that of input "
                                   f"except along the differencing dimension; input.size({i}) = {input.shape[i]}, "
                                   f"but got tensor.size({i}) = {t.shape[i]}")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = _C.cat(parts, d) if len(parts) > 1 else input
    for _ in range(min(n, x.shape[d] + 1)):  # past the length, every further difference is empty: no 2**40 loops
        length = max(x.shape[d] - 1, 0)
        hi, lo = x.narrow(d, x.shape[d] - length, length), x.narrow(d, 0, length)
        x = hi.logical_xor(lo) if x.dtype == _C.bool else hi - lo
    return x


# ---- dims, stacks and splits ----

def _movedim_args(name, args, source, destination):
    """source and destination as tuples: both ints or both lists of ints (PyTorch's two overloads), else the
    parser's TypeError naming the argument types (args: those before source, "Tensor, " for the function)."""
    if not (_is_int(source) and _is_int(destination) or _is_int_list(source) and _is_int_list(destination)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({args}"
                        f"{_parser_type_name(source)}, {_parser_type_name(destination)}), but expected one of:\n"
                        " * (Tensor input, tuple of ints source, tuple of ints destination)\n"
                        " * (Tensor input, int source, int destination)")
    return _ints(source, name), _ints(destination, name)


def movedim(input, source, destination):
    return _movedim(input, source, destination, "movedim", "Tensor, ")


def _movedim(input, source, destination, name, args):
    src, dst = _movedim_args(name, args, source, destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    ndim = input.dim()
    wrapped = [[_wrap_dim(d, ndim) for d in raw] for raw in (src, dst)]  # both wrapped (IndexError) before...
    for label, raw, dims in (("source", src, wrapped[0]), ("destination", dst, wrapped[1])):
        if len(set(dims)) != len(raw):  # ...either is checked for repeats, as PyTorch's
            raise RuntimeError(f"movedim: repeated dim in `{label}` ({list(raw)})")
    if ndim == 0:
        return input.view(())
    order = [None] * ndim
    for s, d in zip(src, dst):
        order[_wrap_dim(d, ndim)] = _wrap_dim(s, ndim)
    rest = iter(d for d in range(ndim) if d not in order)
    return input.permute([o if o is not None else next(rest) for o in order])


def moveaxis(input, source, destination):
    return _movedim(input, source, destination, "moveaxis", "Tensor, ")


# The Tensor methods' forms: PyTorch's parser counts positions and lists types without self.
def _movedim_method(self, source, destination):
    return _movedim(self, source, destination, "movedim", "")


def _moveaxis_method(self, source, destination):
    return _movedim(self, source, destination, "moveaxis", "")


def swapaxes(input, axis0, axis1):
    return input.transpose(axis0, axis1)


def swapdims(input, dim0, dim1):
    return input.transpose(dim0, dim1)


def _atleast(name, tensors, shape):
    single = len(tensors) == 1 and isinstance(tensors[0], Tensor)
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}() received an invalid combination of arguments - got ({type(t).__name__}), but "
                            "expected one of:\n * (Tensor input)\n * (tuple of Tensors tensors)")
    out = tuple(t.reshape(shape(tuple(t.shape))) for t in tensors)
    return out[0] if single else out


def atleast_1d(*tensors):
    return _atleast("atleast_1d", tensors, lambda s: s or (1,))


def atleast_2d(*tensors):
    return _atleast("atleast_2d", tensors, lambda s: (1,) * (2 - len(s)) + s if len(s) < 2 else s)


def atleast_3d(*tensors):
    return _atleast("atleast_3d", tensors, lambda s: {0: (1, 1, 1), 1: (1, *s, 1), 2: (*s, 1)}.get(len(s), s))


@with_out("column_stack", CASTABLE)
def column_stack(tensors):
    _require_tensor_list(tensors)  # a NumPy array: PyTorch's TypeError, not an AttributeError
    return _C.hstack([t.reshape(t.numel(), 1) if t.dim() <= 1 else t for t in tensors])


def tensor_split(input, indices_or_sections, dim=0):
    return _tensor_split(input, indices_or_sections, dim, "Tensor, ")


def _tensor_split_method(self, indices_or_sections, dim=0):
    return _tensor_split(self, indices_or_sections, dim, "")


def _tensor_split_listing(args, arg):
    raise TypeError(f"tensor_split() received an invalid combination of arguments - got ({args}"
                    f"{_parser_type_name(arg)}), but expected one of:\n * (Tensor input, tuple of ints "
                    "indices, int dim = 0)\n * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n"
                    " * (Tensor input, int sections, int dim = 0)")


def _tensor_split(input, indices_or_sections, dim, args):
    """args: the types PyTorch's parser lists before indices_or_sections ("Tensor, " for the function)."""
    if isinstance(indices_or_sections, (list, tuple)) and not _is_int_list(indices_or_sections) or \
            isinstance(indices_or_sections, bool):
        raise TypeError(f"tensor_split() received an invalid combination of arguments - got ({args}"
                        f"{_parser_type_name(indices_or_sections)}), but expected one of:\n"
                        " * (Tensor input, tuple of ints indices, int dim = 0)\n"
                        " * (Tensor input, Tensor tensor_indices_or_sections, int dim = 0)\n"
                        " * (Tensor input, int sections, int dim = 0)")
    if not isinstance(indices_or_sections, (Tensor, list, tuple)) and not hasattr(indices_or_sections, "__index__"):
        _tensor_split_listing(args, indices_or_sections)  # the parser's refusal comes before the rank check
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = _wrap_dim(_int(dim, "tensor_split", "dim"), input.dim())
    arg = indices_or_sections
    if isinstance(arg, Tensor):
        if arg.device.type != "cpu":
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on "
                               f"{arg.device}")
        if arg.dtype != _C.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{arg.dtype._scalar_type_name}")
        if arg.dim() > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {arg.dim()} dims")
        arg = arg.tolist()
    if isinstance(arg, (list, tuple)):  # indices as Python slice bounds: negative count from the end
        lead = (slice(None),) * d
        bounds = [0, *_ints(arg, "tensor_split(): argument 'indices' (position 2)"), None]
        return tuple(input[lead + (slice(a, b),)] for a, b in zip(bounds, bounds[1:]))
    sections = operator.index(arg)
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    size, extra = divmod(input.shape[d], sections)
    starts = [i * size + min(i, extra) for i in range(sections + 1)]
    return tuple(input.narrow(d, a, b - a) for a, b in zip(starts, starts[1:]))


def _split_along(name, input, arg, dim, min_dims):
    if input.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(arg, int) and (arg == 0 or input.shape[dim] % arg):
        raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                           f"{input.shape[dim]} is not divisible by the split_size {arg}!")
    return tensor_split(input, arg, dim)


def hsplit(input, indices_or_sections):
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input, indices_or_sections):
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def unflatten(input, dim, sizes):
    return _unflatten(input, dim, sizes, 3)


def _unflatten(input, dim, sizes, position):
    """position: sizes' position as PyTorch's parser counts it (3 for the function, 2 for the method)."""
    if not isinstance(sizes, (list, tuple, Size)):  # an int is not a size list here (PyTorch's parser)
        raise TypeError(f"unflatten(): argument 'sizes' (position {position}) must be tuple of ints, not "
                        f"{type(sizes).__name__}")
    sizes = _ints(sizes, f"unflatten(): argument 'sizes' (position {position})")
    dim = _int(dim, "unflatten", "dim", position - 1)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap_dim(dim, max(input.dim(), 1))  # a 0-dim tensor's dim 0 wraps; reading its size fails below
    n = input.shape[d] if input.dim() else None
    known = math.prod(s for s in sizes if s != -1)
    if n is not None and sizes.count(-1) <= 1 and (n % known if -1 in sizes and known else known != n):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} ({n}) "
                           "in the input tensor")
    # PyTorch infers the sizes inside a try that rewraps what fails (a second -1, a negative or ambiguous size)
    # as "unflatten got an unexpected error:" followed by the original message.
    try:
        if n is None:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if sizes.count(-1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        if sizes.count(-1) == 1 and known:  # inferred from the dim's size (a dim of an empty tensor has one too)
            sizes = tuple(n // known if s == -1 else s for s in sizes)
        return input.reshape(tuple(input.shape[:d]) + sizes + tuple(input.shape[d + 1:]))
    except (RuntimeError, IndexError) as e:
        raise RuntimeError(f"unflatten got an unexpected error:\n{e}") from None


def _unflatten_method(self, dim, sizes):
    return _unflatten(self, dim, sizes, 2)


@with_out("narrow_copy", "Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error "
                         "message be improved?  If so, please report an enhancement request to PyTorch.)")
def narrow_copy(input, dim, start, length):
    return input.narrow(dim, start, length).clone()


# ---- reductions ----

_COUNT_NONZERO_SIGNATURES = [(["Tensor input", "tuple of ints dim"], None), (["Tensor input", "int? dim = None"], None)]


def count_nonzero(input, *args, **kwargs):
    if "axis" in kwargs and "dim" not in kwargs:  # NumPy's name, as PyTorch's parser takes it
        kwargs["dim"] = kwargs.pop("axis")
    dim = args[0] if args else kwargs.get("dim")
    if not args and not kwargs:  # with a dim PyTorch lists its two forms instead
        _require_tensor("count_nonzero", "input", input, 1)
    if len(args) > 1 or set(kwargs) - {"dim"} or args and kwargs or \
            not (dim is None or _is_int(dim) or _is_int_list(dim)):
        # its two overloads take nothing else (keepdim=, dtype=, a float or bool dim): PyTorch's listing
        raise TypeError(_parser_errors.refusal("count_nonzero", _COUNT_NONZERO_SIGNATURES, (input,) + args, kwargs))
    return (input != 0).sum() if dim is None else (input != 0).sum(_ints(dim, "count_nonzero(): argument 'dim'"))


def _count_nonzero_method(self, *dims, **kwargs):
    """Tensor.count_nonzero takes its dims as varargs too (t.count_nonzero(0, 1)), as PyTorch's int[] dim does."""
    return count_nonzero(self, dims, **kwargs) if len(dims) > 1 else count_nonzero(self, *dims, **kwargs)


_aminmax_result = collections.namedtuple("aminmax", ["min", "max"])
_aminmax_result.__module__ = "tandem.return_types"


@with_out("aminmax", STRUCTURED)
def aminmax(input, *, dim=None, keepdim=False):
    if dim is not None:
        dim = _int(dim, "aminmax", "dim")  # one int: PyTorch's parser refuses a list or tuple of dims, first
    if input.dtype.is_complex:
        raise TypeError(f"aminmax not implemented for {input.dtype._scalar_type_name}")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims = tuple(range(input.dim()))
    else:
        dim = _int(dim, "aminmax", "dim")  # one int: PyTorch's parser refuses a list or tuple of dims
        wrapped = _wrap_dim(dim, input.dim())  # a 0-d input takes dims 0 and -1 only, as every reduction
        if input.dim() and input.shape[wrapped] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size.")
        dims = (dim,) if input.dim() else ()
    return _aminmax_result(input.amin(dims, keepdim=keepdim), input.amax(dims, keepdim=keepdim))


# PyTorch's overloads of var_mean and std_mean, for its parser's errors (their out-less forms of var and std).
_STAT_MEAN_SIGNATURES = [
    (["Tensor input", "tuple of ints dim", "bool unbiased = True", "bool keepdim = False"], None),
    (["Tensor input", "tuple of ints dim = None"], "*, Number correction = None, bool keepdim = False"),
    (["Tensor input", "bool unbiased = True"], None)]
_STAT_MEAN_PARAMS = ("input", "dim", "unbiased", "keepdim")


def _stat_mean(name, stat, args, kwargs):
    """var_mean/std_mean: (stat, mean). A call none of PyTorch's overloads takes (unbiased with correction, a float
    dim, too many arguments) is its parser's TypeError, raised before the dtype check, as the parser runs first."""
    def refused(error=None):
        text = _parser_errors.refusal(name, _STAT_MEAN_SIGNATURES, args, kwargs)
        if text is None and error is not None:
            raise error
        return TypeError(text or f"{name}() received an invalid combination of arguments")

    bound = dict(zip(_STAT_MEAN_PARAMS, args))
    if len(args) > len(_STAT_MEAN_PARAMS) or any(k in bound or k not in _STAT_MEAN_PARAMS + ("correction",)
                                                  for k in kwargs):
        raise refused()
    bound.update(kwargs)
    input, dim, unbiased = bound.get("input"), bound.get("dim"), bound.get("unbiased")
    keepdim, correction = bound.get("keepdim", False), bound.get("correction")
    if isinstance(dim, bool):  # the (input, unbiased) overload
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None or not isinstance(input, Tensor):
        raise refused()
    floating = input.dtype.is_floating_point or input.dtype.is_complex
    try:  # an integer input's arguments are parsed on a meta stand-in, which computes nothing
        x = input if floating else _C.empty(tuple(input.shape), dtype=_C.float32, device="meta")
        value = stat(x, dim, unbiased=unbiased, keepdim=keepdim, correction=correction)
    except TypeError as e:
        raise refused(e) from None
    except Exception:  # noqa: BLE001 - an integer input's other errors come after its dtype error
        if floating:
            raise
    if not floating:
        raise NotImplementedError(f"{name} only support floating point and complex dtypes")
    return value, input.mean(dim, keepdim=keepdim)


def var_mean(*args, **kwargs):
    return _stat_mean("var_mean", _C.var, args, kwargs)


def std_mean(*args, **kwargs):
    return _stat_mean("std_mean", _C.std, args, kwargs)


_NUMPY_NAMES = {"axis": "dim", "keepdims": "keepdim"}  # PyTorch's parser takes NumPy's names too


def _nan_reduction_args(name, input, args, kwargs, dtype):
    """(dim, keepdim) of nansum/nanmean(input, dim=None, keepdim=False), checked as PyTorch's parser does (the
    position of dim shows in its errors, so the positional arguments are read here)."""
    _require_tensor(name, "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if len(args) > 2:
        raise TypeError(f"{name}() takes from 1 to 3 positional arguments but {len(args) + 1} were given")
    bound = dict(zip(("dim", "keepdim"), args))
    for given, value in kwargs.items():
        key = _NUMPY_NAMES.get(given, given)  # axis=, keepdims=: PyTorch's parser takes NumPy's names
        if key not in ("dim", "keepdim") or key in bound or key != given and key in kwargs:
            word = "multiple values for argument" if key in bound and key == given else \
                "an unexpected keyword argument"
            raise TypeError(f"{name}() got {word} '{given}'")
        bound[key] = value
    dim, keepdim = bound.get("dim"), bound.get("keepdim", False)
    return _check_reduction_args(name, dim, keepdim, dtype, 2 if args else None), keepdim


def _out_of_nansum(name, input, dim, keepdim, dtype, out, fn):
    if isinstance(out, Tensor) and dtype is None and input.dtype.is_floating_point and \
            not (out.dtype.is_floating_point or out.dtype.is_complex):  # PyTorch's kernel runs in out's dtype
        raise NotImplementedError(f"\"nansum_{input.device.type}\" not implemented for "
                                  f"'{out.dtype._scalar_type_name}'")
    return call_with_out(name, fn, (input, dim, keepdim), {"dtype": dtype}, out, CASTABLE)


def nansum(input, *args, dtype=None, out=None, **kwargs):
    dim, keepdim = _nan_reduction_args("nansum", input, args, kwargs, dtype)
    if out is not None:
        return _out_of_nansum("nansum", input, dim, keepdim, dtype, out, nansum)
    if input.dtype.is_complex:  # PyTorch's refusal, after the dims are checked (a meta stand-in checks them)
        _C.empty(tuple(input.shape), device="meta").sum(dim, keepdim=keepdim)
        where = "on CPU " if input.device.type == "cpu" else ""
        raise NotImplementedError(f"nansum {where}does not support complex inputs")
    if dtype is not None and dtype.is_complex and input.dtype.is_floating_point:  # PyTorch's kernel has no such form
        if input.numel() == 0:  # where no kernel runs, PyTorch's result (zeros)
            return _C.zeros(tuple(input.shape), device=input.device).sum(dim, keepdim=keepdim, dtype=dtype)
        raise NotImplementedError(f'"nansum_{input.device.type}" not implemented for \'{dtype._scalar_type_name}\'')
    x = _C.where(input.isnan(), _zero(input), input) if input.dtype.is_floating_point else input
    return x.sum(dim, keepdim=keepdim, dtype=dtype)


def nanmean(input, *args, dtype=None, out=None, **kwargs):
    dim, keepdim = _nan_reduction_args("nanmean", input, args, kwargs, dtype)
    if out is not None:
        return _out_of_nansum("nanmean", input, dim, keepdim, dtype, out, nanmean)
    if not input.dtype.is_floating_point and not input.dtype.is_complex:  # (complex: nansum refuses it)
        raise NotImplementedError(f"nanmean(): expected input to have floating point or complex dtype but got "
                                  f"{input.dtype._scalar_type_name}")
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):  # a mean is never integral
        raise RuntimeError(f"nanmean(): could not infer output dtype. Optional dtype must be either a floating point "
                           f"or complex dtype. Got: {dtype._scalar_type_name}")
    return nansum(input, dim, keepdim, dtype=dtype) / input.isnan().logical_not().sum(dim, keepdim=keepdim)


def clone(input, *, memory_format=None):
    _require_tensor("clone", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    return input.clone(memory_format=memory_format)  # Tensor.clone takes memory_format (_layouts.py)


# ---- fused and helper arithmetic ----

def _integral_value(value, *tensors):
    """PyTorch casts value to an integral result's dtype (0.5 -> 0) before it multiplies; a floating or complex
    result keeps it as given (NaN and infinities cannot be cast: PyTorch's overflow error)."""
    if any(t.dtype.is_floating_point or t.dtype.is_complex for t in tensors):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        name = _VALUE_TYPE.get(str(_addc_dtypes(*tensors)[0]).split(".")[-1], "int64_t")
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return int(value)


def _check_operands(name, input, tensor1, tensor2):
    """PyTorch's parser refuses an operand that is not a tensor (a Python number), before any dtype check."""
    for position, (label, t) in enumerate((("input", input), ("tensor1", tensor1), ("tensor2", tensor2)), 1):
        _require_tensor(name, label, t, position)


def _check_broadcast(*tensors):
    """PyTorch's TensorIterator broadcasts the operands in its order (input first): its size error names them so,
    where a composition that multiplies tensor1 and tensor2 first would name them the other way round."""
    _broadcast([tuple(t.shape) for t in tensors if isinstance(t, Tensor)], _tensor_mismatch)


# The C++ type PyTorch's kernels convert `value` to (float16/bfloat16 compute in float), named in its error.
_VALUE_TYPE = {"float16": "float", "bfloat16": "float", "float32": "float", "float64": "double", "int64": "int64_t",
               "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t", "bool": "bool"}


def _check_value(value, *tensors):
    """addcmul/addcdiv refuse a complex value for a real computation, as PyTorch's scalar conversion does (after
    broadcasting the operands), naming the C++ type of the result's dtype."""
    if isinstance(value, complex):
        _check_broadcast(*tensors)
        common = _addc_dtypes(*tensors)[0] if len(tensors) == 3 else tensors[0].dtype
        if not common.is_complex:
            name = _VALUE_TYPE.get(str(common).split(".")[-1], "float")
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")


_HALF_DTYPES = (_C.float16, _C.bfloat16)
_MISSING_WEIGHT = object()  # lerp without a weight: PyTorch's listing of its overloads, not Python's own TypeError


def _addc_dtypes(input, tensor1, tensor2):
    """The dtype of input + tensor1 * tensor2 and the one PyTorch's addcmul/addcdiv kernels compute in: every operand
    converted to that first, float16/bfloat16 in float32 rounded once (300 * 300 * 0.001 is 90 in half, not inf)."""
    ndim = max(tensor1.dim(), tensor2.dim())
    product = _C.empty((0,) * ndim, dtype=_C.result_type(tensor1, tensor2))  # stands in for the product's dtype
    dtype = _C.result_type(input, product)
    return dtype, (_C.float32 if dtype in _HALF_DTYPES else dtype)


def _as_dtype(dtype, *tensors):
    return [t.to(dtype) if isinstance(t, Tensor) and t.dtype != dtype else t for t in tensors]


def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    if out is not None:
        return call_with_out("addcmul", addcmul, (input, tensor1, tensor2), {"value": value}, out, CASTABLE)
    _check_operands("addcmul", input, tensor1, tensor2)
    _check_value(value, input, tensor1, tensor2)
    if _C.result_type(tensor1, tensor2) == _C.bool and input.dtype == _C.bool:
        raise NotImplementedError(f"\"addcmul_{input.device.type}_out\" not implemented for 'Bool'")
    value = _integral_value(value, input, tensor1, tensor2)
    dtype, compute = _addc_dtypes(input, tensor1, tensor2)
    input, tensor1, tensor2 = _as_dtype(compute, input, tensor1, tensor2)
    # PyTorch's kernel order, value * tensor1 * tensor2 (value=1, the default, costs no pass)
    try:
        result = input + (tensor1 * tensor2 if value == 1 else value * tensor1 * tensor2)
    except RuntimeError:
        _check_broadcast(input, tensor1, tensor2)
        raise
    return result if compute == dtype else result.to(dtype)


def _check_addcdiv(tensor1, tensor2):
    inexact = [t.dtype.is_floating_point or t.dtype.is_complex for t in (tensor1, tensor2)]
    if not any(inexact):
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                           "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")


def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    if out is not None:
        return call_with_out("addcdiv", addcdiv, (input, tensor1, tensor2), {"value": value}, out, CASTABLE)
    _check_operands("addcdiv", input, tensor1, tensor2)
    _check_addcdiv(tensor1, tensor2)
    _check_value(value, input, tensor1, tensor2)
    dtype, compute = _addc_dtypes(input, tensor1, tensor2)
    input, tensor1, tensor2 = _as_dtype(compute, input, tensor1, tensor2)
    try:
        # PyTorch's kernel order, value * tensor1 / tensor2: (-1j) / 0 is nan-infj, value * (-1j / 0) is nan+nanj
        result = input + (tensor1 / tensor2 if value == 1 else value * tensor1 / tensor2)
    except RuntimeError:
        _check_broadcast(input, tensor1, tensor2)
        raise
    return result if compute == dtype else result.to(dtype)


def _addcmul_(self, tensor1, tensor2, *, value=1):
    check_no_partial_overlap(self, (tensor1, tensor2))
    _check_value(value, self, tensor1, tensor2)
    value = _integral_value(value, self, tensor1, tensor2)
    tensor1, tensor2 = _as_dtype(_addc_dtypes(self, tensor1, tensor2)[1], tensor1, tensor2)
    return self.add_(value * tensor1 * tensor2)


def _addcdiv_(self, tensor1, tensor2, *, value=1):
    check_no_partial_overlap(self, (tensor1, tensor2))
    _check_addcdiv(tensor1, tensor2)
    _check_value(value, self, tensor1, tensor2)
    tensor1, tensor2 = _as_dtype(_addc_dtypes(self, tensor1, tensor2)[1], tensor1, tensor2)
    return self.add_(tensor1 / tensor2 if value == 1 else value * tensor1 / tensor2)


def lerp(input, end, weight=_MISSING_WEIGHT, *, out=None):
    _check_lerp(input, end, weight)
    if out is not None:
        return call_with_out("lerp", lerp, (input, end, weight), {}, out, CASTABLE)
    if isinstance(weight, Tensor) and weight.dim() == 0 and weight.dtype != input.dtype:
        # a 0-d weight of another dtype promotes as a 0-d operand does (int64 ends and a float64 weight: float64)
        dtype = _C.result_type(input, weight)
        if not (dtype.is_floating_point or dtype.is_complex):
            raise NotImplementedError(f"\"lerp_kernel_tensor\" not implemented for '{dtype._scalar_type_name}'")
        return lerp(*_as_dtype(dtype, input, end, weight))
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        kind = "tensor" if isinstance(weight, Tensor) else "scalar"
        raise NotImplementedError(f"\"lerp_kernel_{kind}\" not implemented for '{input.dtype._scalar_type_name}'")
    if isinstance(weight, complex) and not input.dtype.is_complex:  # PyTorch's conversion of the scalar weight
        name = _VALUE_TYPE.get(str(input.dtype).split(".")[-1], "float")
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    if input.dtype in _HALF_DTYPES:  # computed in float32 and rounded once, as PyTorch's kernel (no overflow)
        return lerp(*_as_dtype(_C.float32, input, end, weight)).to(input.dtype)
    diff_ = end - input
    # PyTorch's two-sided formula: exact at weight 0 and at weight 1.
    if isinstance(weight, Tensor):
        return _C.where(weight.abs() < 0.5, input + weight * diff_, end - diff_ * (1 - weight))
    return input + weight * diff_ if abs(weight) < 0.5 else end - diff_ * (1 - weight)


_LERP_SIGNATURES = [(["Tensor input", "Tensor end", "Tensor weight"], "*, Tensor out = None"),
                    (["Tensor input", "Tensor end", "Number weight"], "*, Tensor out = None")]


def _check_lerp(input, end, weight):
    """PyTorch's checks before lerp computes, in its order: the parser (tensors, a number or tensor weight), the
    dtypes of end and of a weight with dimensions, then the operands' broadcast (input, end, weight)."""
    if not (isinstance(input, Tensor) and isinstance(end, Tensor) and
            (isinstance(weight, (Tensor, complex)) or _parser_errors._is_float(weight))):
        given = (input, end) if weight is _MISSING_WEIGHT else (input, end, weight)
        raise TypeError(_parser_errors.refusal("lerp", _LERP_SIGNATURES, given, {}))
    for label, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype != input.dtype and (label == "end" or t.dim() > 0):
            raise RuntimeError(f"expected dtype {input.dtype._cpp_type_name} for `{label}` but got dtype "
                               f"{t.dtype._cpp_type_name}")
    _check_broadcast(input, end, weight)


def square(input, *, out=None):
    _require_tensor("square", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if out is not None:
        return call_with_out("square", square, (input,), {}, out, CASTABLE)
    x = input.to(_C.int64) if input.dtype == _C.bool else input
    return x * x


def reciprocal(input, *, out=None):
    _require_tensor("reciprocal", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if out is not None:
        return call_with_out("reciprocal", reciprocal, (input,), {}, out, CASTABLE)
    return 1 / input


def clamp_min(input, min, *, out=None):
    if out is not None:
        return call_with_out("clamp_min", clamp_min, (input, min), {}, out, FOUND_DTYPE)
    return _C.clamp(input, min=min)


def clamp_max(input, max, *, out=None):
    if out is not None:
        return call_with_out("clamp_max", clamp_max, (input, max), {}, out, FOUND_DTYPE)
    return _C.clamp(input, max=max)


def rsub(input, other, *, alpha=1):
    if not isinstance(input, Tensor):
        raise TypeError(f"rsub(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if isinstance(alpha, float) and not _C.result_type(input, other).is_floating_point:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    return other - (input if alpha == 1 else input * alpha)


# ---- in-place forms ----

def _in_place(fn, bad_call=False):
    """Tensor.<op>_ for composition fn: fn's result written into self, with PyTorch's shape and dtype checks.
    While autograd records, fn reads a clone: values it saved for backward must not be the ones overwritten.
    bad_call: the op's result may be larger than a self it broadcasts (addmm_, addmv_, baddbmm_), refused
    with PyTorch's "Bad in-place call" wording."""
    def method(self, *args, **kwargs):
        check_no_partial_overlap(self, (*args, *kwargs.values()))
        tensors = [t for t in (self, *args, *kwargs.values()) if isinstance(t, Tensor)]
        recording = _C.is_grad_enabled() and any(t.requires_grad for t in tensors)
        src = self.clone() if recording else self
        result = fn(src, *args, **kwargs)
        if tuple(result.shape) != tuple(self.shape):
            if bad_call:
                raise RuntimeError(f"Bad in-place call: input tensor size {list(self.shape)} and output tensor size "
                                   f"{list(result.shape)} should match\nhint: self must already have the result's "
                                   f"shape; use the out-of-place {fn.__name__}()")
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        if _category(result.dtype) > _category(self.dtype):
            raise RuntimeError(f"result type {result.dtype._scalar_type_name} can't be cast to the desired output type "
                               f"{self.dtype._scalar_type_name}")
        return self.copy_(result)

    method.__name__ = fn.__name__ + "_"
    return method


def _geometry_in_place(name):
    """Tensor.<view>_ for a view method: self re-pointed at the view's geometry. The autograd graph cannot follow
    the re-pointing, so a tensor that records gradients gets PyTorch's leaf error or a hint instead."""
    def method(self, *args, **kwargs):
        if name == "t_" and self.dim() > 2:
            raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        result = getattr(self, name[:-1])(*args, **kwargs)
        if self.requires_grad and _C.is_grad_enabled():
            if self.is_leaf:  # PyTorch names a leaf that is a view (of a base that records nothing) so
                raise RuntimeError(("a view of a leaf" if self._is_view() else "a leaf") +
                                   " Variable that requires grad is being used in an in-place operation.")
            if self._is_view():  # the core's checks of in-place writes to views come first, in PyTorch's words:
                self.mul_(1)  # a view of a leaf, an output of unbind/split/chunk (a no-op write when allowed)
            raise NotImplementedError(f"{name}() on a tensor that requires grad is not supported\nhint: use the "
                                      f"out-of-place form, x = x.{name[:-1]}(...)")
        _bump_version(self)
        _C._set_data(self, result)
        return self

    method.__name__ = name
    return method


def _bump_version(t):
    """Marks t as written, so autograd nodes that saved it refuse its new geometry, as PyTorch's in-place view
    ops do. _set_data leaves the version alone; rewriting one element in place moves it."""
    if t.numel():
        one = t
        for d in range(t.dim()):
            one = one.narrow(d, 0, 1)
        one.copy_(one.clone())


def _broadcast_to(self, size):
    return _C.broadcast_to(self, size)


def _check_clamp_bound(self, bound):
    if isinstance(bound, float) and not self.dtype.is_floating_point:  # PyTorch names the type in C++ here
        raise RuntimeError(f"result type Float can't be cast to the desired output type {self.dtype._cpp_type_name}")


def _clamp_min_(self, min):
    _check_clamp_bound(self, min)
    return self.clamp_(min=min)


def _clamp_max_(self, max):
    _check_clamp_bound(self, max)
    return self.clamp_(max=max)


def _true_divide(self, other):
    return self.div(other)


def _true_divide_(self, other):
    return self.div_(other)


def _methods():
    """Tensor methods by name; each takes self where the function takes input."""
    both = ["tril", "triu", "diagonal", "diag", "diag_embed", "trace", "repeat_interleave", "roll", "rot90", "kron",
            "cross", "diff", "movedim", "moveaxis", "swapaxes", "swapdims", "hsplit", "vsplit", "dsplit",
            "tensor_split", "unflatten", "narrow_copy", "count_nonzero", "aminmax", "nansum", "nanmean", "addcmul",
            "addcdiv", "lerp", "square", "reciprocal", "clamp_min", "clamp_max"]
    methods = {name: globals()[name] for name in both}
    methods.update({
        "movedim": _movedim_method, "moveaxis": _moveaxis_method, "tensor_split": _tensor_split_method,
        "unflatten": _unflatten_method, "roll": _roll_method, "rot90": _rot90_method,
        "repeat_interleave": _repeat_interleave_method, "count_nonzero": _count_nonzero_method,
        "repeat": _repeat, "tile": _tile_method, "broadcast_to": _broadcast_to,
        "true_divide": _true_divide, "true_divide_": _true_divide_, "tril_": _tril_, "triu_": _triu_,
        "addcmul_": _addcmul_, "addcdiv_": _addcdiv_,
        "clamp_min_": _clamp_min_, "clamp_max_": _clamp_max_,
    })
    methods.update({name: _geometry_in_place(name) for name in ("transpose_", "swapaxes_", "swapdims_", "t_",
                                                                 "squeeze_", "unsqueeze_")})
    methods.update({name + "_": _in_place(globals()[name]) for name in ("lerp", "square", "reciprocal")})
    return methods


def install(namespace):
    """Adds the functions and methods that tandem's core does not already provide (its own ops win)."""
    for name in __all__:
        namespace.setdefault(name, globals()[name])
    for name, method in _methods().items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)
    if not hasattr(_C.return_types, "aminmax"):
        _C.return_types.aminmax = _aminmax_result
