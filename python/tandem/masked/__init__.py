"""torch.masked's masked reductions and normalisations for dense tensors: ``tandem.masked.sum(x, dim, mask=m)``
and the others read only the elements where ``m`` (broadcast to ``x``) is True, as PyTorch's torch.masked does.
Each replaces the masked-out elements by the operation's identity (0 for sum, -inf for amax, ...) and calls the
ordinary op; mean, var and std divide by the count of masked-in elements, so a fully masked-out slice is nan. The
semantics, argument order and messages are PyTorch's (torch/masked/_ops.py).

Not here: MaskedTensor (a ``__torch_dispatch__`` subclass; ``masked_tensor``/``as_masked_tensor`` raise
NotImplementedError) and sparse inputs (PyTorch takes COO/CSR for a few of these)."""
import tandem as _t
from .._layouts import strided

__all__ = ["amax", "amin", "argmax", "argmin", "as_masked_tensor", "cumprod", "cumsum", "is_masked_tensor",
           "log_softmax", "logaddexp", "logsumexp", "masked_tensor", "mean", "median", "norm", "normalize", "prod",
           "softmax", "softmin", "std", "sum", "var"]

_SMALL_INTEGERS = ("uint8", "bool", "int8", "int16", "int32")  # summed and multiplied in int64, as in PyTorch


def _dtype_name(dtype):
    return str(dtype).rsplit(".", 1)[-1]


def _reduction_identity(op_name, input, *args):
    """The value that leaves op's result unchanged (PyTorch's _reduction_identity); None where there is none."""
    dtype, device = input.dtype, input.device
    floating = dtype.is_floating_point
    integral = not floating and not dtype.is_complex and dtype != _t.bool
    if op_name in ("sum", "cumsum"):
        return _t.tensor(0, dtype=dtype, device=device)
    if op_name in ("prod", "cumprod"):
        return _t.tensor(1, dtype=dtype, device=device)
    if op_name in ("amax", "argmax", "logaddexp", "logsumexp"):
        if floating:
            return _t.tensor(float("-inf"), dtype=dtype, device=device)
        if op_name == "logsumexp" and dtype.is_complex:
            return _t.tensor(complex(float("-inf"), 0), dtype=dtype, device=device)
        if integral:
            return _t.tensor(_t.iinfo(dtype).min, dtype=dtype, device=device)
    elif op_name in ("amin", "argmin"):
        if floating:
            return _t.tensor(float("inf"), dtype=dtype, device=device)
        if integral:
            return _t.tensor(_t.iinfo(dtype).max, dtype=dtype, device=device)
    elif op_name in ("mean", "var", "std"):
        return None  # the mean of nothing is undefined: the count decides (nan)
    elif op_name == "norm":
        if (args[0] if args else 2) == float("-inf"):
            if not floating:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return _t.tensor(float("inf"), dtype=dtype, device=device)
        return _t.tensor(0, dtype=dtype, device=device)
    elif op_name == "median":  # nanmedian skips NaN
        return _t.tensor(float("nan"), dtype=dtype if floating else _t.float32, device=device)
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim):
    """dim as a sorted tuple of non-negative dims (None or () for all), with PyTorch's errors."""
    if dim == () or dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _check_strided(op_name, input):
    if input.layout is not strided:
        raise NotImplementedError(f"masked {op_name}: tandem.masked takes strided (dense) tensors, got "
                                  f"{input.layout}\nhint: call .to_dense() on the input (and the mask) first")


def _input_mask(input, mask):
    """The mask as a bool tensor of input's shape (broadcast; a mask with more dims is PyTorch's IndexError)."""
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.dim() > input.dim():
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality higher than of the "
                             "input)")
        mask = _t.broadcast_to(mask.clone(), input.shape)
    if mask.layout is not strided:
        mask = mask.to_dense()
    return mask.to(dtype=_t.bool)


def _combine_input_and_mask(op_name, input, mask, *args):
    """input with its masked-out elements replaced by op's identity (input itself without a mask)."""
    _check_strided(op_name, input)
    if mask is None:
        return input
    return _t.where(_input_mask(input, mask), input, _reduction_identity(op_name, input, *args))


def _sum_dtype(input, dtype):
    if dtype is None:
        dtype = _t.int64 if _dtype_name(input.dtype) in _SMALL_INTEGERS else input.dtype
    return dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.dim())
    return _t.sum(_combine_input_and_mask("sum", input, mask), dim_, bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _sum_dtype(input, dtype)
    dim_ = _canonical_dim(dim, input.dim())
    result = _combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(dim_):
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    return _t.cumsum(_combine_input_and_mask("sum", input, mask), dim_, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    return _t.cumprod(_combine_input_and_mask("prod", input, mask), dim_, dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("amax", input, mask)
    return _t.amax(mask_input, _canonical_dim(dim, mask_input.dim()), bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("amin", input, mask)
    return _t.amin(mask_input, _canonical_dim(dim, mask_input.dim()), bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype  # PyTorch casts the indices to the input's dtype
    return _t.argmax(_combine_input_and_mask("argmax", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    return _t.argmin(_combine_input_and_mask("argmin", input, mask), dim, bool(keepdim)).to(dtype=dtype)


def _count_and_total(input, dim, keepdim, dtype, mask):
    """The number of masked-in elements and their sum over dim (every element without a mask)."""
    _check_strided("mean", input)
    if mask is None:
        count = sum(_t.ones(input.shape, dtype=_t.int64, device=input.device), dim, keepdim=keepdim)
        return count, sum(input, dim, keepdim=keepdim, dtype=dtype)
    inmask = _input_mask(input, mask)
    return inmask.sum(dim=dim, keepdim=bool(keepdim)), sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or "
                         f"complex dtype. Got: {dtype}")
    count, total = _count_and_total(input, dim, keepdim, dtype, mask)
    return total / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=_t.float32)
    output = _t.nanmedian(_combine_input_and_mask("median", input, mask), dim_, keepdim).values
    if is_float:
        return output
    if not bool(_t.isnan(output).any()):
        return output.to(dtype=dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating point")


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())
    return _t.logsumexp(_combine_input_and_mask("logsumexp", input, mask), dim_, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    dtype = input.dtype if dtype is None else dtype
    if input.layout is not strided or other.layout is not strided:
        raise ValueError(f"masked logaddexp expects strided tensors (got {input.layout} tensor for input, "
                         f"{other.layout} for other)")
    return _t.logaddexp(_combine_input_and_mask("logaddexp", input, input_mask),
                        _combine_input_and_mask("logaddexp", other, other_mask)).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("norm", input, mask, ord)
    return _t.linalg.vector_norm(mask_input, ord, _canonical_dim(dim, input.dim()), bool(keepdim), dtype=dtype)


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _t.float32
    compute_dtype = dtype if dtype.is_floating_point or dtype.is_complex else _t.float32
    count, sample_total = _count_and_total(input, dim, True, dtype, mask)
    inmask = None if mask is None else _input_mask(input, mask)
    x = _t.subtract(input, _t.divide(sample_total, count))
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real_dtype = compute_dtype.to_real() if compute_dtype.is_complex else compute_dtype
        count = _t.subtract(count.to(real_dtype), correction)
        count = _t.maximum(count, count.new_zeros([]))
    output = _t.divide(total, count).to(dtype=dtype)
    return _t.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


def softmax(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    return _t.nn.functional.softmax(_combine_input_and_mask("amax", input, mask), dim_, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    return _t.nn.functional.log_softmax(_combine_input_and_mask("amax", input, mask), dim_, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dim_ = _canonical_dim(dim, input.dim())[0]
    return _t.nn.functional.softmin(_combine_input_and_mask("amin", input, mask), dim_, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    mask_input = _combine_input_and_mask("sum", input, mask)
    nrm_ = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return _t.divide(mask_input, _t.maximum(nrm_, nrm_.new_full([], eps)))


def is_masked_tensor(obj):
    """False: tandem has no MaskedTensor (PyTorch's answers whether obj is one)."""
    return False


def _no_masked_tensor(*args, **kwargs):
    raise NotImplementedError("tandem.masked has the masked reductions and normalisations (mask=) but no "
                              "MaskedTensor\nhint: keep the data and the mask as two tensors and pass mask= to "
                              "tandem.masked.sum/mean/amax/softmax/...")


masked_tensor = as_masked_tensor = _no_masked_tensor

