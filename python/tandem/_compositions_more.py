"""More PyTorch functions and Tensor methods built from tandem's ops: NumPy-style aliases (arccos, greater_equal),
NaN/inf helpers (nan_to_num, isposinf, fmin), fused products (addr, addmv, addbmm, baddbmm), distances, the
legacy linear-algebra spellings (pinverse, lu, lu_unpack), flat puts, frexp/ldexp and Tensor-only methods
(fill_diagonal_, sum_to_size, H, ...). They run on every device and differentiate because the ops they
are made of do. install() also adds asarray/frombuffer/empty_strided (_creation_more.py) and the random fills
(_random_fills.py), and only what tandem does not already have."""
import collections
import functools
import math
import numbers
import operator
import warnings

from . import _C, _compositions, _parser_errors
from ._autocast import active as _amp_active, run as _amp_run
from ._compositions import _in_place, _name, _sizes_arg
from ._dim_args import _require_tensor, _tp_name, _wrap_dim
from ._out import (CASTABLE, FOUND_DTYPE, MULTI_DOT_DTYPE, STRUCTURED, TENSORDOT_DTYPE, TENSORDOT_GRAD, call_with_out,
                   with_out)
from ._creation_more import asarray, empty_strided, frombuffer  # noqa: F401  (listed in __all__)
from ._random_fills import METHODS as _RANDOM_FILLS
from ._size import Size
from ._storage import TypedStorage, UntypedStorage

Tensor = _C.Tensor

__all__ = [
    "nan_to_num", "nan_to_num_", "isneginf", "isposinf", "fix", "fmin", "fmax", "inner", "divide", "div",
    "arccos", "arcsin", "arctan", "arccosh", "arcsinh", "arctanh", "arctan2", "greater_equal", "less_equal",
    "not_equal", "positive", "ravel", "detach",
    "addr", "addmv", "addbmm", "baddbmm", "cosine_similarity", "pairwise_distance", "pdist",
    "dropout", "alpha_dropout", "feature_dropout", "feature_alpha_dropout",
    "is_nonzero", "is_same_size", "is_complex", "is_conj", "is_neg", "typename", "resolve_conj", "resolve_neg",
    "empty_strided", "frombuffer", "asarray", "frexp", "logit", "ldexp", "chain_matmul", "dist", "renorm",
    "matrix_power", "matrix_exp", "pinverse", "lu", "lu_unpack", "lu_solve", "index_put", "index_put_", "put",
    "svd_lowrank", "pca_lowrank", "heaviside",
]

_div = _C.div  # the core's div, which has no rounding_mode
_MISSING = object()  # a required argument not given: PyTorch's parser words that TypeError its own way


# ---- NaN, infinity and sign helpers ----

def _float_max(dtype):
    from ._finfo import finfo  # noqa: PLC0415  (finfo imports tandem's dtypes at call time)
    return finfo(dtype).max


def _as_dtype_value(value, dtype):
    """value rounded to dtype as PyTorch's static_cast does: past the largest finite value it becomes an
    infinity (tandem's checked scalar conversion would refuse it)."""
    if not math.isfinite(value) or dtype == _C.float64:
        return value
    if dtype in (_C.float16, _C.float32):
        import numpy as np  # noqa: PLC0415
        with np.errstate(over="ignore"):
            return float(np.dtype(_name(dtype)).type(value))
    return value if abs(value) <= _float_max(dtype) else math.copysign(math.inf, value)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    if out is not None:
        return call_with_out("nan_to_num", nan_to_num, (input, nan, posinf, neginf), {}, out,
                             "nan_to_num: dtype of out: {out} should be same as input: {result}")
    _require_tensors("nan_to_num", ("input", input))
    for label, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None and not isinstance(value, (int, float)):
            raise TypeError(f"nan_to_num(): argument '{label}' must be float, not {type(value).__name__}")
    if input.dtype.is_complex:  # PyTorch replaces in the real and imaginary parts independently
        parts = (nan_to_num(part, nan, posinf, neginf) for part in (input.real, input.imag))
        return _C.complex(*parts)
    if not input.dtype.is_floating_point:
        return input.clone()  # integers and bools hold no NaN or infinity
    big = _float_max(input.dtype)
    posinf = big if posinf is None else _as_dtype_value(float(posinf), input.dtype)
    neginf = -big if neginf is None else _as_dtype_value(float(neginf), input.dtype)
    nan = _as_dtype_value(float(nan), input.dtype)
    # One where per special value: the gradient reaches only the entries that were kept, as in PyTorch.
    out = _C.where(input.isnan(), nan, input)
    out = _C.where(input == math.inf, posinf, out)
    return _C.where(input == -math.inf, neginf, out)


nan_to_num_ = _in_place(nan_to_num)


def _isinf_of_sign(name, input, value):
    _require_tensors(name, ("input", input))
    if input.dtype.is_complex:
        raise TypeError(f"{name} does not support complex inputs.")
    if not input.dtype.is_floating_point:
        return _C.zeros_like(input, dtype=_C.bool)
    return input == value


def isposinf(input, *, out=None):
    if out is not None:
        return call_with_out("isposinf", isposinf, (input,), {}, out, "isposinf does not support non-boolean outputs.")
    return _isinf_of_sign("isposinf", input, math.inf)


def isneginf(input, *, out=None):
    if out is not None:
        return call_with_out("isneginf", isneginf, (input,), {}, out, "isneginf does not support non-boolean outputs.")
    return _isinf_of_sign("isneginf", input, -math.inf)


def fix(input, *, out=None):
    if out is not None:
        return call_with_out("fix", fix, (input,), {}, out, FOUND_DTYPE)
    return _C.trunc(input)


def _require_tensors(name, *args):
    for position, (label, value) in enumerate(args, 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{label}' (position {position}) must be Tensor, not "
                            f"{_tp_name(value)}")  # PyTorch prints tp_name: numpy.ndarray


def _nan_ignoring_extremum(name, input, other, better):
    _require_tensors(name, ("input", input), ("other", other))
    if input.dtype.is_complex or other.dtype.is_complex:
        raise TypeError(f"{name} not implemented for complex tensors.")
    out = _C.where(better(input, other).logical_or(other.isnan()), input, other)
    if not out.dtype.is_floating_point:
        return out
    # PyTorch splits the gradient of a tie evenly; input + (other - input) / 2 is input's value with that gradient.
    tie = (input == other).logical_and(input.isfinite())
    return _C.where(tie, input + (other - input) * 0.5, out)


def fmin(input, other, *, out=None):
    if out is not None:
        return call_with_out("fmin", fmin, (input, other), {}, out, CASTABLE)
    return _nan_ignoring_extremum("fmin", input, other, _C.lt)


def fmax(input, other, *, out=None):
    if out is not None:
        return call_with_out("fmax", fmax, (input, other), {}, out, CASTABLE)
    return _nan_ignoring_extremum("fmax", input, other, _C.gt)


def inner(input, other, *, out=None):
    if out is not None:
        return call_with_out("inner", inner, (input, other), {}, out, TENSORDOT_DTYPE, refuse_grad=False,
                             grad_resize_error=TENSORDOT_GRAD)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    from ._einsum import tensordot  # noqa: PLC0415
    return tensordot(input, other, ([input.dim() - 1], [other.dim() - 1]))


def _check_rounding_mode(mode, *tensors):
    """The mode as a str (PyTorch's parser decodes bytes), after PyTorch's checks of it and the operands."""
    if isinstance(mode, bytes):
        mode = mode.decode()
    if mode is not None and not isinstance(mode, str):  # PyTorch's parser refuses it before the op runs
        got = ", ".join("Tensor" if isinstance(t, Tensor) else type(t).__name__ for t in tensors)
        raise TypeError(f"div() received an invalid combination of arguments - got ({got}, rounding_mode="
                        f"{type(mode).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, str "
                        "rounding_mode)\n * (Tensor input, Number other, *, str rounding_mode)")
    if mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")
    if mode is not None:
        # the kernel runs in the operands' common dtype: a bool tensor by a number is an int64 division
        device = next((t.device.type for t in tensors if isinstance(t, Tensor)), "cpu")
        common = _C.result_type(*tensors) if any(isinstance(t, Tensor) for t in tensors) else None
        if common == _C.bool:
            raise NotImplementedError(f"\"div_{mode}_{device}\" not implemented for 'Bool'")
        common = common if isinstance(tensors[0], Tensor) else None
        if common is not None and common.is_complex:  # rounding has no complex form, the kernel is named per mode
            raise NotImplementedError(f"\"div_{mode}_{tensors[0].device.type}\" not implemented for "
                                      f"'{common._scalar_type_name}'")
    return mode


def _trunc_divide(input, other):
    if _C.result_type(input, other).is_floating_point:
        return _C.trunc(_div(input, other))
    q = _C.floor_divide(input, other)  # raises PyTorch's ZeroDivisionError for an integer zero divisor
    # The quotient used each operand converted to its dtype (a Python int or 0-d tensor past the result's
    # range wraps, as PyTorch's wrapped numbers do: uint8 // -4 divides by 252), so the signs are read so too.
    input, other = (x.to(q.dtype) if isinstance(x, Tensor) else
                    _C.full((), x, dtype=_C.int64, device=q.device).to(q.dtype) for x in (input, other))
    # floor and trunc differ by one where the quotient is negative and inexact.
    inexact = (q * other != input).logical_and((input < 0) != (other < 0))
    return q + inexact.to(q.dtype)


def div(input, other, *, rounding_mode=None, out=None):
    if rounding_mode is None:
        return _div(input, other, out=out) if out is not None else _div(input, other)
    rounding_mode = _check_rounding_mode(rounding_mode, input, other)
    # a number as input is PyTorch's wrapped number (torch.div(7, t, rounding_mode="floor")), as without rounding
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"div(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    result = _C.floor_divide(input, other) if rounding_mode == "floor" else _trunc_divide(input, other)
    return result if out is None else out.copy_(result)


def divide(input, other, *, rounding_mode=None, out=None):
    return div(input, other, rounding_mode=rounding_mode, out=out)


_core_div_method = Tensor.div  # the C++ method, whose errors count `other` as position 1 (PyTorch's method's)


def _div_method(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _core_div_method(self, other)
    return div(self, other, rounding_mode=rounding_mode)


_core_div_ = Tensor.div_
_rounded_div_ = _in_place(_div_method)


def _div_(self, other, *, rounding_mode=None):
    if rounding_mode is None:
        return _core_div_(self, other)
    return _rounded_div_(self, other, rounding_mode=rounding_mode)

# NumPy's spellings, the same functions as tandem's own.
arccos, arcsin, arctan = _C.acos, _C.asin, _C.atan
arccosh, arcsinh, arctanh, arctan2 = _C.acosh, _C.asinh, _C.atanh, _C.atan2
greater_equal, less_equal, not_equal = _C.ge, _C.le, _C.ne


def positive(input):
    _require_tensor("positive", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if input.dtype == _C.bool:
        raise NotImplementedError("The `+` operator, on a bool tensor is not supported.")
    return input


def ravel(input):
    _require_tensor("ravel", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    return input.ravel()


def detach(input):
    _require_tensor("detach", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    return input.detach()


# ---- fused products: beta * input + alpha * product ----

def _scaled_sum(input, product, beta, alpha, blas_alpha_zero=False):
    """beta * input + alpha * product, PyTorch's way: input expanded to the product's shape, beta == 0 ignores
    input (its NaNs too), integral results truncate beta and alpha, bools combine with and/or. blas_alpha_zero
    (addmv, addbmm: PyTorch's BLAS path skips the product when alpha is 0): NaN and inf of the product are
    dropped too, the graph kept (their gradients are zeros, as PyTorch's)."""
    input = input.expand(product.shape)
    if blas_alpha_zero and alpha == 0 and product.dtype.is_floating_point:
        product = product.nan_to_num(0.0, 0.0, 0.0)
    if product.dtype == _C.bool:
        product = product if alpha else _C.zeros_like(product)
        return product.logical_or(input) if beta else product.logical_or(_C.zeros_like(product))
    if not _C.result_type(input, product).is_floating_point:
        beta, alpha = int(beta), int(alpha)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product + _C.zeros_like(input, dtype=product.dtype)
    return product + (input if beta == 1 else input * beta)


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return call_with_out("addr", addr, (input, vec1, vec2), {"beta": beta, "alpha": alpha}, out, CASTABLE)
    if _amp_active():  # autocast-listed in PyTorch (cuda_lower): inputs cast, then run with autocast off
        return _amp_run("cuda_lower", functools.partial(addr, beta=beta, alpha=alpha), input, vec1, vec2)
    for label, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {label}, but got {v.dim()}-D")
    if not _C.promote_types(input.dtype, _C.result_type(vec1, vec2)).is_floating_point:
        for label, v in (("beta", beta), ("alpha", alpha)):
            if isinstance(v, float):
                raise RuntimeError(f"For integral input tensors, argument {label} must not be a floating point "
                                   "number.")
    both_bool = vec1.dtype == vec2.dtype == _C.bool
    if both_bool and input.dtype != _C.bool:  # PyTorch's result dtype: an int32 input adds the 0/1 outer product
        vec1, vec2 = vec1.to(input.dtype), vec2.to(input.dtype)
        both_bool = False
    product = vec1.unsqueeze(1).logical_and(vec2) if both_bool else _C.outer(vec1, vec2)
    if _C.result_type(input, product) in _HALF_DTYPES:  # PyTorch's kernel order, alpha * vec1 * vec2: no overflow
        return _scaled_sum(input, _C.outer(vec1 * alpha, vec2), beta, 1)
    return _scaled_sum(input, product, beta, alpha)


# float16/bfloat16 products PyTorch's kernels compute and scale in float32 before rounding once
_HALF_DTYPES = (_C.float16, _C.bfloat16)


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    if out is not None:
        return call_with_out("addmv", addmv, (input, mat, vec), {"beta": beta, "alpha": alpha}, out, STRUCTURED)
    if _amp_active():  # autocast-listed in PyTorch (cuda_lower): inputs cast, then run with autocast off
        return _amp_run("cuda_lower", functools.partial(addmv, beta=beta, alpha=alpha), input, mat, vec)
    if input.dim() > 1 or mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, {mat.dim()}, {vec.dim()}")
    if mat.shape[1] != vec.shape[0] or input.numel() not in (1, mat.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({'x'.join(map(str, input.shape))}), mat "
                           f"({'x'.join(map(str, mat.shape))}), vec ({'x'.join(map(str, vec.shape))})")
    if not input.dtype == mat.dtype == vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got " +
                           ", ".join(t.dtype._scalar_type_name for t in (input, mat)) +
                           f", and {vec.dtype._scalar_type_name}")
    if input.dtype in _HALF_DTYPES:
        return _scaled_sum(input.float(), _C.mv(mat.float(), vec.float()), beta, alpha,
                           blas_alpha_zero=True).to(input.dtype)
    return _scaled_sum(input, _C.mv(mat, vec), beta, alpha, blas_alpha_zero=True)


def _check_batches(input, batch1, batch2, target):
    """PyTorch's order: the result's shape (sizes read from both batches), input's expansion to it, then the
    batches' ranks."""
    for d in (0, 1):
        _wrap_dim(d, batch1.dim())
    _wrap_dim(2, batch2.dim())
    input.expand(target(batch2.shape[2]))
    for label, b in (("batch1", batch1), ("batch2", batch2)):
        if b.dim() != 3:
            raise RuntimeError(f"{label} must be a 3D tensor")


def _refuse_bool_product(input, kernel):
    """PyTorch's CPU kernels for addbmm/baddbmm have no bool form (tandem's bmm would name itself instead)."""
    if input.dtype == _C.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'\nhint: multiply integer copies, e.g. "
                                  "x.long()")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return call_with_out("addbmm", addbmm, (input, batch1, batch2), {"beta": beta, "alpha": alpha}, out,
                             "self and mat2 must have the same dtype, but got {out} and {result}", quiet_resize=True)
    if _amp_active():  # autocast-listed in PyTorch (lower): inputs cast, then run with autocast off
        return _amp_run("lower", functools.partial(addbmm, beta=beta, alpha=alpha), input, batch1, batch2)
    _check_batches(input, batch1, batch2, lambda p: (batch1.shape[1], p))
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    if input.dtype != batch2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {input.dtype._scalar_type_name} and "
                           f"{batch2.dtype._scalar_type_name}")
    _refuse_bool_product(input, "addmm_impl_cpu_")  # PyTorch runs addbmm as addmm
    if input.dtype in _HALF_DTYPES and batch1.shape[0] > 0:
        # PyTorch's addbmm is one addmm_ per batch (beta on the first only), each rounded to the 16-bit dtype
        result = input
        for b in range(batch1.shape[0]):
            result = _C.addmm(result, batch1[b], batch2[b], beta=beta if b == 0 else 1, alpha=alpha)
        return result
    if input.dtype in _HALF_DTYPES:
        return _scaled_sum(input.float(), _C.bmm(batch1.float(), batch2.float()).sum(0), beta, alpha,
                           blas_alpha_zero=True).to(input.dtype)
    # the batch sum stays in the dtype (a uint8 sum would otherwise widen to int64, as sum() does)
    return _scaled_sum(input, _C.bmm(batch1, batch2).sum(0, dtype=input.dtype), beta, alpha, blas_alpha_zero=True)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    if out is not None:
        return call_with_out("baddbmm", baddbmm, (input, batch1, batch2), {"beta": beta, "alpha": alpha}, out,
                             STRUCTURED)
    if _amp_active():  # autocast-listed in PyTorch (lower): inputs cast, then run with autocast off
        return _amp_run("lower", functools.partial(baddbmm, beta=beta, alpha=alpha), input, batch1, batch2)
    _check_batches(input, batch1, batch2, lambda p: (batch1.shape[0], batch1.shape[1], p))
    if batch1.dtype != batch2.dtype:
        raise RuntimeError(f"expected scalar type {batch1.dtype._scalar_type_name} but found "
                           f"{batch2.dtype._scalar_type_name}")
    half = batch1.dtype in _HALF_DTYPES  # computed and scaled in float32, rounded once (as PyTorch's kernel)
    if batch1.dtype == _C.bool and batch1.shape[2] == batch2.shape[1]:  # no bool bmm: PyTorch's checks first
        if input.dtype != batch1.dtype:
            raise RuntimeError(f"Input dtypes must be the same, got: input {input.dtype._cpp_type_name}, batch1: "
                               f"{batch1.dtype._cpp_type_name}, batch2: {batch2.dtype._cpp_type_name}")
        _refuse_bool_product(input, "baddbmm")
    product = _C.bmm(batch1.float(), batch2.float()) if half else _C.bmm(batch1, batch2)
    if input.dtype != batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {input.dtype._cpp_type_name}, batch1: "
                           f"{batch1.dtype._cpp_type_name}, batch2: {batch2.dtype._cpp_type_name}")
    if half:
        return _scaled_sum(input.float(), product, beta, alpha).to(input.dtype)
    return _scaled_sum(input, product, beta, alpha)


# ---- distances ----

def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    from .nn import functional  # noqa: PLC0415  (nn imports this package)
    return functional.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    from .nn import functional  # noqa: PLC0415
    return functional.pairwise_distance(x1, x2, p, eps, keepdim)


def _p_number(fn, p, position):
    """PyTorch's parser: p is a float (an int or bool too, or a one-element tensor); position is None when p came
    by keyword (its message then names no position)."""
    if isinstance(p, (int, float)) or (isinstance(p, _C.Tensor) and p.numel() == 1):
        return
    where = "" if position is None else f" (position {position})"
    raise TypeError(f"{fn}(): argument 'p'{where} must be float, not {type(p).__name__}")


def _check_distance_kernel_dtype(fn, x):
    """PyTorch's distance kernels take float and double only (named per device: "pdist", "pdist_cuda")."""
    if x.dtype in (_C.float16, _C.bfloat16):
        kernel = fn if x.device.type == "cpu" else f"{fn}_{x.device.type}"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{x.dtype._scalar_type_name}'\n"
                                  "hint: compute the distances in float32 (x.float())")


def pdist(input, *args, p=2):
    _require_tensor("pdist", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if len(args) > 1:
        raise TypeError(f"pdist() takes from 1 to 2 positional arguments but {len(args) + 1} were given")
    if args:
        p = args[0]
    _p_number("pdist", p, 2 if args else None)
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if not p >= 0:  # NaN too
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    if n > 1 and input.shape[1] > 0:  # the kernel runs only where there are distances to compute
        _check_distance_kernel_dtype("pdist", input)
    rows, cols = _compositions.triu_indices(n, n, 1, device=input.device)
    diff_ = input.index_select(0, rows) - input.index_select(0, cols)
    return _C.norm(diff_, p, dim=1)


def dist(input, other, p=2):
    difference = input - other
    if not (difference.dtype.is_floating_point or difference.dtype.is_complex):
        raise NotImplementedError("norm(): input dtype should be either floating point or complex. Got "
                                  f"{difference.dtype._scalar_type_name} instead.")
    return _C.norm(difference, p)


@with_out("renorm", STRUCTURED)
def renorm(input, p, dim, maxnorm):
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    d = _wrap_dim(dim, input.dim())
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # PyTorch's norm refuses integers
        raise NotImplementedError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                                  f"{input.dtype._scalar_type_name}")
    others = tuple(i for i in range(input.dim()) if i != d)
    half = input.dtype in (_C.float16, _C.bfloat16)
    norm = _vector_norm(input, p, others, _C.float32 if half else None)
    # PyTorch's factor: rows above maxnorm are scaled to maxnorm (the 1e-7 keeps the division finite); for 16-bit
    # inputs it comes from the float32 norm and is rounded once, to the input's dtype, before the product.
    factor = _C.where(norm > maxnorm, maxnorm / (norm + 1e-7), _C.ones_like(norm))
    return input * (factor.to(input.dtype) if half else factor)


def _vector_norm(input, p, dims, dtype=None):
    from . import linalg  # noqa: PLC0415
    return linalg.vector_norm(input, p, dim=dims, keepdim=True, dtype=dtype)


# ---- dropout under torch's names: (input, p, train), all positional ----

def _dropout_fn(alpha, feature):
    def fn(input, p, train=_MISSING):
        if train is _MISSING:  # PyTorch's parser names the missing argument this way
            raise TypeError(f'{fn.__name__}() missing 1 required positional arguments: "train"')
        if p < 0 or p > 1:
            raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
        if feature and train and input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        from .nn import _functional_layers  # noqa: PLC0415
        return _functional_layers._dropout(input, p, train, False, alpha, feature)

    return fn


dropout = _dropout_fn(False, False)
alpha_dropout = _dropout_fn(True, False)
feature_dropout = _dropout_fn(False, True)
feature_alpha_dropout = _dropout_fn(True, True)
for _fn, _fn_name in ((dropout, "dropout"), (alpha_dropout, "alpha_dropout"), (feature_dropout, "feature_dropout"),
                      (feature_alpha_dropout, "feature_alpha_dropout")):
    _fn.__name__ = _fn.__qualname__ = _fn_name


# ---- predicates and no-op conversions (tandem has no conjugate or negative-bit tensors: conj() is eager) ----

def is_nonzero(input):
    _require_tensors("is_nonzero", ("input", input))
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_same_size(input, other):
    return tuple(input.shape) == tuple(other.shape)


def is_complex(input):
    return input.dtype.is_complex


def is_conj(input):
    return False


def is_neg(input):
    return False


def resolve_conj(input):
    return input


def resolve_neg(input):
    return input


def typename(obj):
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# ---- floating-point decomposition ----

_frexp_result = collections.namedtuple("frexp", ["mantissa", "exponent"])
_frexp_result.__module__ = "tandem.return_types"


@with_out("frexp", ("torch.frexp() expects mantissa to have dtype {result_cpp} but got {out_cpp}",
                   "torch.frexp() expects exponent to have int dtype but got {out_cpp}"))
def frexp(input):
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    x = input.double()  # every dtype's values and exponents are exact in float64
    special = (x == 0).logical_or(x.isfinite().logical_not())
    a = _C.where(special, 1.0, x.abs())
    e = (a.log2().floor() + 1).detach()
    # x * 2^-e in two steps: 2^-e alone overflows for float64 subnormals.
    half = (-e / 2).floor()
    m = x * half.exp2() * (-e - half).exp2()
    # log2 may round across a power of two; one halving or doubling puts |m| back in [0.5, 1).
    low, high = m.abs() < 0.5, m.abs() >= 1
    m = _C.where(low, m * 2, _C.where(high, m / 2, m))
    e = e - low.to(e.dtype) + high.to(e.dtype)
    m = _C.where(special, x, m)
    e = _C.where(special, 0.0, e)
    return _frexp_result(m.to(input.dtype), e.to(_C.int32))


_core_logit = _C.logit


# heaviside of two tensors checks them in PyTorch's order: complex, then the dtypes, then the shapes (the core
# broadcasts first). A Python number operand stays tandem's documented extension (docs/compat.md).
_core_heaviside, _core_heaviside_method, _core_heaviside_ = _C.heaviside, Tensor.heaviside, Tensor.heaviside_


def _check_heaviside(input, values, position=2, name="heaviside"):
    if not isinstance(values, (Tensor, bool, int, float, complex)):  # a NumPy array: PyTorch's name for it
        raise TypeError(f"{name}(): argument 'values' (position {position}) must be Tensor, not {_tp_name(values)}")
    if isinstance(input, Tensor) and isinstance(values, Tensor):
        if input.dtype.is_complex or values.dtype.is_complex:
            raise NotImplementedError("heaviside is not yet implemented for complex tensors.")
        if input.dtype != values.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def heaviside(input, values, *, out=None):
    _check_heaviside(input, values)
    return _core_heaviside(input, values) if out is None else _core_heaviside(input, values, out=out)


def _heaviside_method(self, values):
    _check_heaviside(self, values, 1)
    return _core_heaviside_method(self, values)


def _heaviside_(self, values):
    _check_heaviside(self, values, 1, "heaviside_")
    return _core_heaviside_(self, values)


_heaviside_method.__name__ = _heaviside_method.__qualname__ = "heaviside"
_heaviside_.__name__ = _heaviside_.__qualname__ = "heaviside_"


_LOGIT_SIGNATURE = [(["Tensor input", "float eps = None"], "*, Tensor out = None")]


def logit(*args, out=None, **kwargs):
    """torch.logit (and torch.special.logit): the core's out= form takes no eps, so eps with out= writes the
    result computed with eps into out with PyTorch's rules. Arguments of the wrong type are PyTorch's parser
    errors for its one signature (the core's two forms would be nanobind's listing)."""
    bound = dict(zip(("input", "eps"), args))
    given_twice = any(key in bound for key in kwargs)
    bound.update(kwargs)
    input, eps = bound.get("input"), bound.get("eps")
    if len(args) > 2 or given_twice or set(bound) - {"input", "eps"} or \
            not isinstance(input, Tensor) or not (eps is None or _parser_errors._is_float(eps)):
        refused = _parser_errors.refusal("logit", _LOGIT_SIGNATURE, args, kwargs)
        if refused:
            raise TypeError(refused)
    if out is None:
        return _core_logit(input, eps)
    if eps is None:
        return _core_logit(input, out=out)
    return call_with_out("logit", _core_logit, (input, eps), {}, out, CASTABLE)


def ldexp(input, other, *, out=None):
    if out is not None:
        _require_tensors("ldexp", ("input", input), ("other", other))
        if isinstance(out, _C.Tensor) and not (out.dtype.is_floating_point or out.dtype.is_complex):
            _refuse_integer_ldexp_result(out)
        return call_with_out("ldexp", ldexp, (input, other), {}, out, CASTABLE)
    _require_tensors("ldexp", ("input", input), ("other", other))
    dtype = _C.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _C.get_default_dtype()
    compute = _ldexp_compute_dtype(dtype)
    # As PyTorch: the power of two in the result's compute dtype (float64 keeps 2**200; a float32 power was inf),
    # float16/bfloat16 scaled in float32 and rounded once (ldexp(half(1e-3), 20) is 1049, not inf).
    return (input.to(compute) * _C.pow(2.0, other.to(compute))).to(dtype)


def _ldexp_compute_dtype(dtype):
    return _C.float32 if dtype in (_C.float16, _C.bfloat16) else dtype


def _refuse_integer_ldexp_result(target):
    # PyTorch's ldexp writes a floating result; its message names the op, not the result type.
    raise RuntimeError(f"ldexp can't be cast to the desired output type {target.dtype._scalar_type_name}")


def _ldexp_(self, other):
    _require_tensors("ldexp_", ("self", self), ("other", other))
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        _refuse_integer_ldexp_result(self)
    compute = _ldexp_compute_dtype(_C.result_type(self, other))
    if not (compute.is_floating_point or compute.is_complex):
        compute = _C.get_default_dtype()
    return self.mul_(_C.pow(2.0, other.to(compute)))


# ---- linear algebra under its older names ----

@with_out("chain_matmul", MULTI_DOT_DTYPE, grad_name="mm")
def chain_matmul(*matrices):
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=3)  # past with_out
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = tuple(matrices[0])
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    from . import linalg  # noqa: PLC0415
    return linalg.multi_dot(list(matrices))


@with_out("matrix_power", STRUCTURED)
def matrix_power(input, n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    from . import linalg  # noqa: PLC0415
    return linalg.matrix_power(input, n)


def matrix_exp(input):
    _require_tensor("matrix_exp", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    from . import linalg  # noqa: PLC0415
    return linalg.matrix_exp(input)


def pinverse(input, rcond=1e-15):
    from . import linalg  # noqa: PLC0415
    return linalg.pinv(input, rtol=rcond)


# ---- randomized low-rank SVD and PCA (Halko, Martinsson and Tropp 2009), PyTorch's torch._lowrank ----
def _approximate_basis(A, q, niter=2, M=None):
    """An orthonormal basis of A's range (minus M's) from q random directions and niter power iterations."""
    from . import linalg  # noqa: PLC0415

    niter = 2 if niter is None else niter
    dtype = A.dtype if A.is_floating_point() or A.is_complex() else _C.float32
    R = _C.randn(A.shape[-1], q, dtype=dtype, device=A.device)
    X = A @ R
    if M is not None:
        X = X - M @ R
    Q = linalg.qr(X).Q
    for _ in range(niter):
        X = A.mH @ Q
        if M is not None:
            X = X - M.mH @ Q
        Q = linalg.qr(X).Q
        X = A @ Q
        if M is not None:
            X = X - M @ Q
        Q = linalg.qr(X).Q
    return Q


def svd_lowrank(A, q=6, niter=2, M=None):
    """An approximate rank-q SVD (U, S, V) of A - M, as torch.svd_lowrank (random: a different draw than
    PyTorch's, the same accuracy)."""
    from . import linalg  # noqa: PLC0415

    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if M is not None:
        M = M.broadcast_to(A.size())
    if m < n:
        A = A.mH
        if M is not None:
            M = M.mH
    Q = _approximate_basis(A, q, niter=niter, M=M)
    B = Q.mH @ A
    if M is not None:
        B = B - Q.mH @ M
    U, S, Vh = linalg.svd(B, full_matrices=False)
    V = Vh.mH
    U = Q.matmul(U)
    if m < n:
        U, V = V, U
    return U, S, V


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of A's rows: svd_lowrank of A less its column means (when center)."""
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not (niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter=niter, M=None)
    return svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)


def lu(A, pivot=True, get_infos=False):
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will "
                  "be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be "
                  "replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = "
                  "torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
                  "torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=2)
    from . import linalg  # noqa: PLC0415
    LU, pivots, infos = linalg.lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


@with_out("lu_solve", STRUCTURED)
def lu_solve(b, LU_data, LU_pivots):
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future "
                  "PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = "
                  "torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)",
                  UserWarning, stacklevel=2)
    from . import linalg  # noqa: PLC0415
    return linalg.lu_solve(LU_data, LU_pivots, b)


_lu_unpack_result = collections.namedtuple("lu_unpack", ["P", "L", "U"])
_lu_unpack_result.__module__ = "tandem.return_types"


def _permutation_from_pivots(pivots, m):
    """LAPACK's pivots (row i was swapped with row pivots[i] - 1, in order) as the permutation they build."""
    batch = tuple(pivots.shape[:-1])
    perm = _C.arange(m, device=pivots.device).expand(batch + (m,)).contiguous()
    piv = pivots.to(_C.int64) - 1
    for i in range(pivots.shape[-1]):
        j = piv[..., i:i + 1]
        at_i, at_j = perm[..., i:i + 1], perm.gather(-1, j)
        perm = perm.scatter(-1, j, at_i).scatter(-1, _C.full_like(j, i), at_j)
    return perm


@with_out("lu_unpack", STRUCTURED)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    if LU_data.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = _C.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    L = U = P = empty
    if unpack_data:
        eye = _C.eye(m, k, dtype=LU_data.dtype, device=LU_data.device)
        L = _compositions.tril(LU_data[..., :, :k], -1) + eye
        U = _compositions.triu(LU_data[..., :k, :])
    if unpack_pivots:
        if LU_pivots.dtype != _C.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
                               "dtype.\nNote: this function is intended to be used with the output produced by "
                               "torch.linalg.lu_factor")
        _check_same_device(LU_data, LU_pivots)
        want = list(LU_data.shape[:-2]) + [k]
        if list(LU_pivots.shape) != want:
            raise ValueError(f"Expected LU_pivots to have shape {want} but got {list(LU_pivots.shape)} instead.")
        # Pivots out of [1, m] would index past the rows (the gathers below would raise an unrelated error).
        if LU_pivots.numel() and not bool(((LU_pivots >= 1) & (LU_pivots <= m)).all()):
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                               "properly pass the result of lu_factor?")
        perm = _permutation_from_pivots(LU_pivots, m)
        # A = P @ L @ U with P[perm[i], i] = 1: column i of P marks the row that moved to place i.
        P = _C.one_hot(perm, m).to(LU_data.dtype).mT
    return _lu_unpack_result(P, L, U)


# ---- flat and functional indexing ----

def _check_indices(name, indices):
    if not isinstance(indices, (tuple, list)):  # position 2 in the function form (the method's says 1)
        kind = "Tensor" if isinstance(indices, Tensor) else type(indices).__name__
        raise TypeError(f"{name}(): argument 'indices' (position 2) must be tuple of Tensors, not {kind}")
    for i, t in enumerate(indices):  # the method checks these too, naming itself argument 0
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}")


def index_put(input, indices, values, accumulate=False):
    _check_indices("index_put", indices)
    return input.index_put(indices, values, accumulate)


def index_put_(input, indices, values, accumulate=False):
    _check_indices("index_put_", indices)
    return input.index_put_(indices, values, accumulate)


def _check_same_device(*tensors):
    """PyTorch's refusal of operands on another device (the index_put_ these are built on would move them)."""
    first = tensors[0].device
    for t in tensors[1:]:
        if t.device != first:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                               f"{first} and {t.device}!\nhint: move them first, e.g. t.to({str(first)!r})")


def _check_put_types(name, first, *args):
    """PyTorch's parser refusal of an argument that is not a tensor (an AttributeError here otherwise); first: the
    position of the first one named."""
    for position, (arg, value) in enumerate(args, first):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                            f"{type(value).__name__}")


def _check_put(self, index, source):
    _check_same_device(self, index, source)
    if index.dtype != _C.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype._scalar_type_name}")
    if self.dtype != source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{self.dtype._scalar_type_name} and source.dtype = {source.dtype._scalar_type_name}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    n = self.numel()
    if n == 0 and index.numel():
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    if index.numel():
        bad = (index >= n).logical_or(index < -n)
        if bool(bad.any()):
            value = int(index.flatten()[bad.flatten().nonzero()[0, 0]])
            raise IndexError(f"out of range: tried to access index {value} on a tensor of {n} elements.")


def put(input, index, source, accumulate=False):
    _check_put_types("put", 1, ("input", input), ("index", index), ("source", source))
    return _put(input, index, source, accumulate)


def _put_method(self, index, source, accumulate=False):
    _check_put_types("put", 1, ("index", index), ("source", source))
    return _put(self, index, source, accumulate)


def _put(input, index, source, accumulate):
    _check_put(input, index, source)
    flat = input.reshape(-1).index_put((index.flatten(),), source.flatten(), accumulate)
    return flat.view(input.shape)


def _put_(self, index, source, accumulate=False):
    _check_put_types("put_", 1, ("index", index), ("source", source))
    _check_put(self, index, source)
    if self.is_contiguous():  # the flat view writes straight into self
        self.view(-1).index_put_((index.flatten(),), source.flatten(), accumulate)
        return self
    return self.copy_(_put(self, index, source, accumulate))


# ---- Tensor-only methods ----

def _fill_diagonal_(self, fill_value, wrap=False):
    if not isinstance(fill_value, (int, float, complex, Tensor)):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be Number, not "
                        f"{type(fill_value).__name__}")
    if self.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.dim() > 2 and any(s != self.shape[0] for s in self.shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    rows, cols = self.shape[0], self.shape[-1]
    step = sum(cols ** i for i in range(self.dim())) if self.dim() > 2 else cols + 1
    numel = self.numel()
    # Row-major positions k * step: all of them with wrap (a tall matrix starts over below its square part),
    # else only the first min(rows, cols) diagonal entries.
    limit = numel if wrap or self.dim() > 2 else min(numel, (min(rows, cols) - 1) * step + 1)
    flat = _C.arange(numel, device=self.device)
    mask = (flat.remainder(step) == 0).logical_and(flat < limit)
    return self.masked_fill_(mask.view(self.shape), fill_value)


def _H(self):
    if self.dim() == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return self
    if self.dim() != 2:
        extra = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.{extra}")
    return self.transpose(0, 1).conj()  # the conjugate transpose (conj is the identity for real tensors)


def _mH(self):
    if self.dim() == 0:
        warnings.warn("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return self
    if self.dim() < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D "
                           "tensor.")
    return self.transpose(-2, -1).conj()


def _sum_to_size(self, *size):
    size = _sizes_arg(size, "sum_to_size(): argument 'size' (position 1)")
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s not in (1, t) for s, t in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    out = self.sum(tuple(range(lead))) if lead else self
    dims = tuple(i for i, s in enumerate(size) if s == 1 and out.shape[i] != 1)
    return out.sum(dims, keepdim=True) if dims else out


def _is_signed(self):
    return self.dtype not in (_C.uint8, _C.uint16, _C.uint32, _C.uint64, _C.bool)


def _reversed(self):
    return self if self.dim() == 0 else self.flip(0)


def _contains(self, element):
    # PyTorch's test is numbers.Number: complex numbers and NumPy scalars (registered there) are scalars too
    if isinstance(element, (Tensor, numbers.Number)):
        return bool((element == self).any())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")


def _bytes(self):
    """bytes(t) as CPython reads a PyTorch tensor, which has no buffer protocol (tandem's has, for NumPy): an
    integer tensor of one element is a count of zero bytes, any other tensor an iterable of such counts."""
    try:
        count = operator.index(self)
    except TypeError:
        if self.dim() == 0:
            raise TypeError("cannot convert 'Tensor' object to bytes") from None
        return bytes(list(self))  # each row's __index__ refuses a float or many elements
    if count < 0:
        raise ValueError("negative count")
    return bytes(count)


def _new(self, *args, **kwargs):
    """The legacy constructor: new(*sizes) is uninitialised memory, new(data) copies data, both with self's dtype
    and device."""
    dtype, device = self.dtype, kwargs.pop("device", self.device)
    if kwargs:
        raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype != dtype:
            raise TypeError(f"expected dtype {dtype._scalar_type_name} (got {args[0].dtype._scalar_type_name})")
        return args[0].view_as(args[0])  # an alias, recorded as PyTorch's is
    if len(args) == 1 and isinstance(args[0], (UntypedStorage, TypedStorage)):
        # new(storage): a 1-D tensor of self's dtype over all of the storage (PyTorch Geometric's collate writes a
        # batch straight into a shared storage this way).
        storage = args[0]
        if isinstance(storage, TypedStorage) and storage.dtype != dtype:  # set_'s words, with new()'s type names
            raise RuntimeError(f"Expected a Storage of type {_C._dtype_title(dtype)} or an UntypedStorage, but got "
                               f"type {_C._dtype_title(storage.dtype)} for argument 1 'storage'")
        return _C.empty((0,), dtype=dtype, device=storage.device).set_(storage)
    if len(args) == 1 and isinstance(args[0], (list, tuple)) and not isinstance(args[0], Size):
        from ._creation import tensor  # noqa: PLC0415
        return tensor(args[0], dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], str):
        raise TypeError("new(): invalid data type 'str'")
    if len(args) == 1 and (args[0] is None or isinstance(args[0], float)):  # neither a size nor data
        raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
    return _C.empty(_sizes_arg(args, "new(): argument 'size'") if args else (0,), dtype=dtype, device=device)


def _method(fn):
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)

    method.__name__ = fn.__name__
    return method


def _methods():
    own = {name: globals()[name] for name in (
        "nan_to_num", "isneginf", "isposinf", "fix", "fmin", "fmax", "inner", "divide", "positive", "addr",
        "addmv", "addbmm", "baddbmm", "is_nonzero", "is_same_size", "is_complex", "is_conj", "is_neg",
        "resolve_conj", "resolve_neg", "frexp", "ldexp", "dist", "renorm", "matrix_power", "matrix_exp",
        "pinverse", "lu_solve")}
    methods = {name: _method(fn) for name, fn in own.items()}
    methods["put"] = _put_method  # its own positions (PyTorch counts index as 1)
    methods.update({"nan_to_num_": nan_to_num_}, **_RANDOM_FILLS)
    methods.update({name + "_": _in_place(globals()[name], bad_call=name in ("addmv", "baddbmm")) for name in (
        "addr", "addmv", "addbmm", "baddbmm", "renorm")})
    methods.update({"lu": _method(lu), "div": _div_method, "div_": _div_, "divide_": _div_,
                    "ldexp_": _ldexp_, "put_": _put_,
                    "fill_diagonal_": _fill_diagonal_,
                    "sum_to_size": _sum_to_size, "is_signed": _is_signed,
                    "__reversed__": _reversed, "__contains__": _contains, "__bytes__": _bytes,
                    "new": _new, "addmm_": _in_place(_C.addmm, bad_call=True)})
    methods.update({"heaviside": _heaviside_method, "heaviside_": _heaviside_})
    # Other spellings of the core's methods.
    for alias, name in (("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"),
                        ("arcsinh", "asinh"), ("arctanh", "atanh"), ("arctan2", "atan2"), ("absolute", "abs"),
                        ("multiply", "mul"), ("subtract", "sub"), ("negative", "neg"), ("greater", "gt"),
                        ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne"),
                        ("sgn", "sign"), ("fix", "trunc"), ("clip", "clamp")):
        for suffix in ("", "_"):
            if hasattr(Tensor, name + suffix):
                methods.setdefault(alias + suffix, getattr(Tensor, name + suffix))
    return methods


# The core's div has no rounding_mode, and its fmax was maximum (NaN-propagating): these replace them. The random
# fills uniform_/normal_/bernoulli_ are wrapped with PyTorch's autograd rules (_random_fills.py); heaviside checks two
# tensors in PyTorch's order.
_REPLACED = ("div", "div_", "fmax", "uniform_", "normal_", "bernoulli_", "logit", "heaviside", "heaviside_")


def install(namespace):
    """Adds the functions, methods and properties tandem's core does not already provide (its own ops win,
    except for _REPLACED)."""
    for name in __all__:
        if name in _REPLACED or name not in namespace:
            namespace[name] = globals()[name]
    for name, method in _methods().items():
        if name in _REPLACED or not hasattr(Tensor, name):
            setattr(Tensor, name, method)
    for name, getter in (("H", _H), ("mH", _mH)):
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(getter))
    for name, result in (("frexp", _frexp_result), ("lu_unpack", _lu_unpack_result)):
        if not hasattr(_C.return_types, name):
            setattr(_C.return_types, name, result)
