"""Further PyTorch functions and Tensor methods composed of tandem's ops: angle conversions, spaced ranges and
signal windows, block_diag/combinations/vander, statistics (cov, corrcoef), integration (trapezoid,
cumulative_trapezoid, gradient), index helpers (unravel_index, *_scatter), the deprecated norm spellings, the
*_copy forms of the view ops and a few Tensor predicates. Each runs on every device and differentiates because
the ops it is made of do; install() adds only what tandem does not already have."""
import builtins
import itertools
import math
import warnings

from . import _C, _compositions, _cov_checks, _creation_args, _layouts, _parser_errors, _parser_types, _scalar_convert
from ._creation import tensor as _tensor
from ._dim_args import _require_tensor, _require_tensor_list, _tp_name, _wrap_dim
from ._finfo import _PYTHON_TYPES
from ._out import CASTABLE, STRUCTURED, call_with_out, with_out
from ._windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window

Tensor = _C.Tensor

__all__ = [
    "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "logspace", "hann_window", "hamming_window", "blackman_window",
    "bartlett_window", "kaiser_window", "block_diag", "combinations", "vander", "cov", "corrcoef", "trapezoid",
    "trapz", "cumulative_trapezoid", "diagflat", "unravel_index", "range", "scalar_tensor", "select_scatter",
    "slice_scatter", "diagonal_scatter", "isreal", "split_with_sizes", "frobenius_norm", "nuclear_norm",
    "gradient", "is_inference", "conj", "conj_physical", "conj_physical_", "real", "angle", "adjoint",
]


def _float_result_dtype(input):
    return input.dtype if input.is_floating_point() or input.dtype.is_complex else _C.get_default_dtype()


# ---- angles ----

def _scaled(input, factor):
    """input * factor in input's float dtype; 16-bit inputs compute in float32 and round once (PyTorch keeps the
    constant in full precision, where tandem's scalar multiply would round it to the 16-bit dtype first)."""
    dtype = _float_result_dtype(input)
    if dtype in (_C.float16, _C.bfloat16):
        return (input.float() * factor).to(dtype)
    return input.to(dtype) * factor


def deg2rad(input, *, out=None):
    if out is not None:
        return call_with_out("deg2rad", deg2rad, (input,), {}, out, CASTABLE)
    return _scaled(input, math.pi / 180.0)


def rad2deg(input, *, out=None):
    if out is not None:
        return call_with_out("rad2deg", rad2deg, (input,), {}, out, CASTABLE)
    return _scaled(input, 180.0 / math.pi)


def _angle_in_place(name, factor):
    def fn(input):
        if not input.is_floating_point():
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{input.dtype._scalar_type_name}")
        return input.copy_(_scaled(input, factor)) if input.dtype in (_C.float16, _C.bfloat16) else \
            input.mul_(factor)

    fn.__name__ = fn.__qualname__ = name
    return fn


deg2rad_ = _angle_in_place("deg2rad_", math.pi / 180.0)
rad2deg_ = _angle_in_place("rad2deg_", 180.0 / math.pi)


# ---- ranges ----

_FACTORY_OPTIONS = ("*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
                    "None, bool pin_memory = False, bool requires_grad = False")
_LOGSPACE_SIGNATURES = [([f"{a} start", f"{b} end", "int steps", "float base = 10.0"], _FACTORY_OPTIONS)
                        for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                                     ("Number", "Number"))]


def _logspace_arguments(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, requires_grad=False,
                        pin_memory=False):
    return start, end, steps, base, dtype, layout, device, requires_grad, pin_memory


def _parser_takes_logspace(start, end, steps, base, dtype, layout, device, requires_grad, pin_memory):
    """Whether PyTorch's parser takes these (one of its four overloads): a number or tensor for each bound, an int
    (or 0-d integer tensor) for steps, a float for base, and the factory keywords of their types."""
    def number(v):
        return isinstance(v, (Tensor, int, float, complex)) or hasattr(type(v), "__index__")

    def integer(v):
        return (isinstance(v, Tensor) and v.dim() == 0 and not v.is_floating_point() and not v.is_complex()) or \
            (not isinstance(v, (bool, float)) and hasattr(type(v), "__index__"))

    def floating(v):
        return isinstance(v, Tensor) and v.dim() == 0 or not isinstance(v, (str, bytes, complex)) and \
            hasattr(type(v), "__float__")

    return (number(start) and number(end) and integer(steps) and floating(base)
            and (dtype is None or isinstance(dtype, _C.dtype) or dtype in _PYTHON_TYPES)
            and (layout is None or isinstance(layout, _layouts.layout))
            and (device is None or isinstance(device, (str, _C.device)) or _parser_errors._is_int(device))
            and type(requires_grad) is bool and type(pin_memory) is bool)


@with_out("logspace", CASTABLE, factory=True)
def logspace(*args, **kwargs):
    """base ** linspace(start, end, steps), as PyTorch's kernel computes it: the bounds converted to the dtype first
    (an integer dtype truncates them, and each value), in double for integer dtypes."""
    try:
        parsed = _logspace_arguments(*args, **kwargs)
    except TypeError:  # an unknown keyword, a missing or extra argument: PyTorch's listing of its four overloads
        parsed = None
    if parsed is None or not _parser_takes_logspace(*parsed):
        raise TypeError(_parser_errors.refusal("logspace", _LOGSPACE_SIGNATURES, args, kwargs))
    start, end, steps, base, dtype, layout, device, requires_grad, pin_memory = parsed
    _layouts.check_dense(layout, "logspace")
    bounds = []
    for label, bound in (("start", start), ("end", end)):
        if isinstance(bound, Tensor):
            if bound.dim() != 0:
                raise RuntimeError(f"logspace only supports 0-dimensional start and end tensors, but got {label} "
                                   f"with {bound.dim()} dimension(s).")
            bound = bound.item()
        bounds.append(bound)
    start, end = bounds
    steps, base = int(steps), float(base)
    default = _C.get_default_dtype()
    inferred = ({_C.float64: _C.complex128}.get(default, _C.complex64)
                if isinstance(start, complex) or isinstance(end, complex) else default)
    dtype = inferred if dtype is None else _PYTHON_TYPES.get(dtype, dtype) if isinstance(dtype, type) else dtype
    if inferred.is_complex and not dtype.is_complex:
        part = "double" if inferred == _C.complex128 else "float"
        raise RuntimeError(f"torch.logspace(): inferred dtype c10::complex<{part}> can't be safely cast to passed "
                           f"dtype {dtype._scalar_type_name}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps == 0:
        out = _C.empty(0, dtype=dtype, device=device)
    elif steps == 1:  # PyTorch fills base ** start without its kernel (so a bool dtype is taken here)
        out = _C.full((1,), base ** start, dtype=_C.complex128 if dtype.is_complex else _C.float64,
                      device=device).to(dtype)
    else:
        if dtype == _C.bool:  # refused by the kernel, after PyTorch allocated the result
            where = _C.empty(steps, dtype=dtype, device=device).device.type
            raise NotImplementedError(f"\"logspace_{where}\" not implemented for 'Bool'")
        for bound in (start, end):  # the kernel converts each bound to the dtype (Scalar::to<scalar_t>)
            _scalar_convert.check_converts(bound, dtype)
        integral = not (dtype.is_floating_point or dtype.is_complex)
        if integral:  # truncated to the integer dtype first (an int wraps into uint8); step and powers in double
            start, end = int(start.real), int(end.real)
            if dtype == _C.uint8:
                start, end = start % 256, end % 256
        work = _C.complex128 if dtype.is_complex else _C.float64
        step = (end - start) / (steps - 1)
        index = _C.arange(steps, dtype=_C.float64, device=device)
        # PyTorch's kernel: from start for the first half, back from end for the rest (the ends are exact)
        exponents = _C.where(index < steps // 2, index * step + start, end - (steps - 1 - index) * step).to(work)
        out = _C.pow(base, exponents)
        out = out.trunc().to(dtype) if integral else out.to(dtype)
    out = out.pin_memory() if pin_memory else out
    return _creation_args.requires_grad_(out, requires_grad)


@with_out("range", CASTABLE, factory=True)
def range(start, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A001
          pin_memory=False):
    """Deprecated (PyTorch warns): start..end inclusive, default dtype float."""
    _layouts.check_dense(layout, "range")
    if end is None:  # required: PyTorch's parser words the TypeError this way
        raise TypeError('range() missing 1 required positional arguments: "end"')
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    count = int(math.floor((end - start) / step)) + 1
    if count < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    out = (_C.arange(count, dtype=_C.float64, device=device) * step + start).to(dtype or _C.get_default_dtype())
    out = out.pin_memory() if pin_memory else out
    return out.requires_grad_() if requires_grad else out


# ---- building matrices ----

def block_diag(*tensors):
    _require_tensor_list(tensors)  # PyTorch's argument parser: the tensors form argument 0 (numpy.ndarray)
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
    if not tensors:
        return _C.empty(1, 0)
    device = tensors[0].device
    for i, t in enumerate(tensors):
        if t.device != device:
            raise RuntimeError(f"torch.block_diag: input tensors must all be on the same device. Input 0 is on "
                               f"device {device} and input {i} is on device {t.device}.")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _C.promote_types(dtype, t.dtype)
    blocks = [t.reshape(1, -1) if t.dim() < 2 else t for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        rows.append(_C.cat([_C.zeros(r, left, dtype=dtype, device=device), b.to(dtype),
                            _C.zeros(r, width - left - c, dtype=dtype, device=device)], 1))
        left += c
    return _C.cat(rows, 0)


def combinations(input, r=2, with_replacement=False):
    if isinstance(r, bool) or not isinstance(r, int):
        raise TypeError(f"combinations(): argument 'r' must be int, not {type(r).__name__}")
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _C.empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = [i for combo in pick(builtins.range(input.shape[0]), r) for i in combo]  # bookkeeping: positions
    positions = _tensor(index, dtype=_C.int64, device=input.device)
    return input.index_select(0, positions).reshape(-1, r)



def _powers(x, n, increasing):
    """x[..., None] ** [0, 1, ..., n-1] as a running product (exact for integers, differentiable)."""
    if n == 0:
        return _C.empty(tuple(x.shape) + (0,), dtype=x.dtype, device=x.device)
    ones = _C.ones_like(x).unsqueeze(-1)
    out = _C.cat([ones, x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,))], -1).cumprod(-1)
    return out if increasing else out.flip(-1)


def vander(x, N=None, increasing=False):
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.is_floating_point() or x.dtype.is_complex):  # integers and bool in int64; complex as it is
        x = x.to(_C.int64)
    return _powers(x, n, increasing)


def linalg_vander(x, *, N=None):
    if x.dtype in (_C.float16, _C.bfloat16, _C.bool):  # PyTorch's first check
        raise NotImplementedError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                                  f"{x.dtype._scalar_type_name}")
    if x.dim() == 0:
        x = x.reshape(1)  # ATen treats a 0-dim x as one value
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if not (x.is_floating_point() or x.dtype.is_complex):  # integers and bool in int64; complex as it is
        x = x.to(_C.int64)
    return _powers(x, n, True)


def diagflat(input, offset=0):
    return _compositions.diag(input.reshape(-1), offset)


# ---- statistics ----

def cov(input, *, correction=1, fweights=None, aweights=None):
    _require_tensor("cov", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    _parser_types.check("cov", (input,), {"correction": correction}, (("input", None), ("correction", "int")))
    _cov_checks.check_cov(input, fweights, aweights)
    x = input.reshape(1, -1) if input.dim() < 2 else input
    x = x.to(_float_result_dtype(x))
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        mean = x.mean(1, keepdim=True)
        norm = n - correction
    else:
        x = x.to(_C.promote_types(x.dtype, w.dtype))  # float weights raise the result's precision, as PyTorch's
        w = w.to(x.dtype)
        total = w.sum()
        if not bool(total != 0):
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        mean = (x * w).sum(1, keepdim=True) / total
        norm = total - correction * ((w * aweights).sum() / total if aweights is not None else 1)
    centered = x - mean
    # conj: the covariance of complex observations is E[(x - mean)(y - mean)^*]
    product = _C.matmul(centered * w if w is not None else centered, centered.t().conj())
    if not isinstance(norm, Tensor) and norm <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = 0
    out = product / (norm.clamp(min=0) if isinstance(norm, Tensor) else norm)
    return out.squeeze() if input.dim() < 2 or input.shape[0] == 1 else out


def corrcoef(input):
    _require_tensor("corrcoef", "input", input, 1)  # NumPy arrays: PyTorch's TypeError (program sweep 21)
    if input.dim() > 2 or input.dtype == _C.bool:
        _cov_checks.check_cov(input, None, None, "corrcoef" if input.dim() > 2 else "cov")
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = (d.real if d.dtype.is_complex else d).sqrt()  # a complex variance is real: its real part
    out = c / std.unsqueeze(1) / std.unsqueeze(0)
    if out.dtype.is_complex:  # rounding can push |r| past 1: clipped part by part, as PyTorch's
        return _C.complex(out.real.clamp(-1, 1), out.imag.clamp(-1, 1))
    return out.clamp(-1, 1)


# ---- integration and differences ----

def _slices(y, dim):
    n = y.shape[dim]
    return y.narrow(dim, 1, n - 1), y.narrow(dim, 0, n - 1)


def _spacing(x, y, dim):
    if x.dim() == 1:
        d = x[1:] - x[:-1]
        shape = [1] * y.dim()
        shape[dim] = d.shape[0]
        return d.reshape(shape)
    hi, lo = _slices(x, dim if x.dim() == y.dim() else -1)
    return hi - lo


def _check_x(name, x, dx):
    """PyTorch's parser: x is a Tensor, and not given with dx."""
    if x is None:
        return
    if not isinstance(x, Tensor) or dx is not None:
        got = f"Tensor, {_tp_name(x)}" + (f", dx={_tp_name(dx)}" if dx is not None else "")  # numpy.ndarray
        forms = [" * (Tensor y, Tensor x, *, int dim = -1)\n", " * (Tensor y, *, Number dx = 1, int dim = -1)\n"]
        if name == "trapz":  # its overloads are listed the other way round, dx a float
            forms = [forms[1].replace("Number", "float"), forms[0]]
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), but expected one "
                        "of:\n" + "".join(forms))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    _require_tensor("trapezoid", "y", y, 1)  # a NumPy array: PyTorch's TypeError, not an AttributeError
    _check_x("trapezoid", x, dx)
    _cov_checks.check_integration("trapezoid", y, x, dim)
    dim = _wrap_dim(dim, y.dim())
    if y.shape[dim] == 0:
        return y.to(_float_result_dtype(y)).sum(dim) if not isinstance(x, Tensor) else (y * 0).sum(dim)
    hi, lo = _slices(y, dim)
    if isinstance(x, Tensor):
        return ((hi + lo) * _spacing(x, y, dim)).sum(dim) / 2
    step = 1 if dx is None else dx
    if y.dtype.is_floating_point or y.dtype.is_complex:
        # PyTorch's form: the sum less half the end points (no pairwise sums, which overflow float16 first)
        return (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * step
    total = (hi + lo).sum(dim)
    return total.to(_float_result_dtype(total)) * (step / 2)


def trapz(y, x=None, *, dx=None, dim=-1):
    _check_x("trapz", x, dx)
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    if x is None and dx is None and dim == -1:  # otherwise PyTorch lists its forms
        _require_tensor("cumulative_trapezoid", "y", y, 1)
    _check_x("cumulative_trapezoid", x, dx)
    _cov_checks.check_integration("cumulative_trapezoid", y, x, dim)
    dim = _wrap_dim(dim, y.dim())
    if y.shape[dim] == 0:
        return y.to(_float_result_dtype(y))
    hi, lo = _slices(y, dim)
    if isinstance(x, Tensor):
        return ((hi + lo) * _spacing(x, y, dim) / 2).cumsum(dim)
    step = 1 if dx is None else dx
    total = (hi + lo).to(_float_result_dtype(y))
    return (total * (step / 2)).cumsum(dim)  # PyTorch's order: halved before the running sum (float16 range)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Second-order central differences inside, first- or second-order one-sided ones at the edges (NumPy's
    and PyTorch's torch.gradient), for a scalar spacing, one per dim, or coordinate tensors."""
    if spacing == 1 and dim is None and edge_order == 1:  # otherwise PyTorch lists its forms
        _require_tensor("gradient", "input", input, 1)
    if input.dtype == _C.uint8:  # PyTorch's first check (a bool input fails at its first subtraction below)
        raise NotImplementedError("torch.gradient does not support uint8 input.")
    dims = list(builtins.range(input.dim())) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    dims = [_wrap_dim(d, input.dim()) for d in dims]
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    spacings = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if any(isinstance(h, Tensor) for h in spacings):  # PyTorch's parser then reads a list of coordinate tensors
        for i, h in enumerate(spacings):
            if not isinstance(h, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(h).__name__}")
    if len(spacings) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length "
                           f"{len(spacings)} and a dim argument of length {len(dims)}.")
    for h in spacings:
        if isinstance(h, Tensor) and h.dim() != 1:
            raise RuntimeError(f"torch.gradient expected each element of spacing to have one dimension, but got an "
                               f"element with {h.dim()} dimensions!")
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, spacings))


def _gradient_along(f, d, h, edge_order):
    """PyTorch's gradient_helper / gradient_helper_float step by step, on the input as it is: each product and
    quotient promotes as PyTorch's does (half values on float32 coordinates give float32; the one-sided edges
    divide by a 0-dim coordinate difference; bool values fail at their first subtraction)."""
    n = f.shape[d]

    def at(start, length=None):
        return f.narrow(d, start, n - start if length is None else length)

    if isinstance(h, Tensor):  # coordinates along d
        shape = [1] * f.dim()
        shape[d] = -1
        ax_dx = h.diff()
        dx1, dx2 = ax_dx[:-1], ax_dx[1:]
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        center = a * at(0, n - 2) + b * at(1, n - 2) + c * at(2)
        if edge_order == 1:
            first = (at(1, 1) - at(0, 1)) / ax_dx[0]
            last = (at(n - 1, 1) - at(n - 2, 1)) / ax_dx[-1]
        else:
            h0, h1, hm, hn = ax_dx[0], ax_dx[1], ax_dx[-2], ax_dx[-1]
            first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * at(0, 1) + (h0 + h1) / (h0 * h1) * at(1, 1)
                     + (-h0) / (h1 * (h0 + h1)) * at(2, 1))
            last = (hn / (hm * (hn + hm)) * at(n - 3, 1) + (-(hn + hm) / (hn * hm)) * at(n - 2, 1)
                    + (2 * hn + hm) / (hn * (hn + hm)) * at(n - 1, 1))
        return _C.cat([first, center, last], d)
    center = (at(2) - at(0, n - 2)) / h
    if edge_order == 1:
        first = (at(1, 1) - at(0, 1)) / h
        last = (at(n - 1, 1) - at(n - 2, 1)) / h
    else:
        first = (-1.5 * at(0, 1) + 2 * at(1, 1) - 0.5 * at(2, 1)) / h
        last = (0.5 * at(n - 3, 1) - 2 * at(n - 2, 1) + 1.5 * at(n - 1, 1)) / h
    return _C.cat([first, center / 2, last], d)


# ---- indices and scatters ----

def unravel_index(indices, shape):
    """PyTorch's composition: floor-divide by each dim's row-major coefficient, then the remainder by its size."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.is_floating_point() or indices.dtype == _C.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    if not all(s > 0 for s in shape) and indices.numel():
        raise ValueError(f"'shape' cannot have zero dimensions when 'indices' is non-empty, but got {shape}")
    coefficients = [math.prod(shape[i + 1:]) for i in builtins.range(len(shape))]
    flat = indices.to(_C.int64)
    return tuple(flat.div(c, rounding_mode="floor").remainder(s) for c, s in zip(coefficients, shape))


def _check_src(src, expected):
    if list(src.shape) != list(expected):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(expected)}")


def _along(n, d, ndim, device):
    shape = [1] * ndim
    shape[d] = n
    return _C.arange(n, device=device).reshape(shape)


def select_scatter(input, src, dim, index):
    d = _wrap_dim(dim, input.dim())
    _check_src(src, input.select(d, index).shape)
    index = index + input.shape[d] if index < 0 else index
    mask = _along(input.shape[d], d, input.dim(), input.device) == index
    return _C.where(mask, src.unsqueeze(d).to(input.dtype), input)


@with_out("slice_scatter", STRUCTURED)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = _wrap_dim(dim, input.dim())
    n = input.shape[d]
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    start, end, step = slice(start, end, step).indices(n)
    count = len(builtins.range(start, end, step))
    expected = list(input.shape)
    expected[d] = count
    _check_src(src, expected)
    position = _along(n, d, input.dim(), input.device)
    mask = (position >= start).logical_and(position < end).logical_and((position - start).remainder(step) == 0)
    if count == 0:
        return input.clone()
    source = ((_C.arange(n, device=input.device) - start).div(step, rounding_mode="floor")).clamp(0, count - 1)
    return _C.where(mask, src.to(input.dtype).index_select(d, source), input)


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    _check_src(src, input.diagonal(offset, dim1, dim2).shape)
    d1, d2 = _wrap_dim(dim1, input.dim()), _wrap_dim(dim2, input.dim())
    if src.shape[-1] == 0:
        return input.clone()
    # With dim1, dim2 moved last, element (i, j) of the diagonal is src[..., i] (offset >= 0) or src[..., j].
    order = [d for d in builtins.range(input.dim()) if d not in (d1, d2)] + [d1, d2]
    moved = input.permute(order)
    rows, cols = moved.shape[-2], moved.shape[-1]
    i = _C.arange(rows, device=input.device).unsqueeze(1)
    j = _C.arange(cols, device=input.device).unsqueeze(0)
    last = src.shape[-1] - 1
    source = src.to(input.dtype)
    if offset >= 0:
        placed = source.index_select(-1, i.reshape(-1).clamp(0, last)).unsqueeze(-1)
    else:
        placed = source.index_select(-1, j.reshape(-1).clamp(0, last)).unsqueeze(-2)
    out = _C.where(j - i == offset, placed, moved)
    return out.permute(sorted(builtins.range(len(order)), key=order.__getitem__))


# ---- small predicates and splits ----

def isreal(input):
    if input.dtype.is_complex:
        return input.imag == 0
    return _C.ones_like(input, dtype=_C.bool)


def conj(input):
    return input  # a real tensor is its own conjugate (tandem's C++ conj, which wins, also takes complex ones)


conj_physical = real = conj


def conj_physical_(input):
    if input.dtype.is_complex:
        input.copy_(input.conj())
    return input


def angle(input):
    """0 for values >= 0, pi below (NaN stays NaN), as float."""
    x = input.to(_float_result_dtype(input))
    return _C.where(x.isnan(), x, _C.where(x < 0, math.pi, 0.0).to(x.dtype))


def adjoint(input):
    if input.dim() == 0:  # PyTorch's deprecated 0-d form: the conjugate, with its warning
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().")
        return input.conj()
    if input.dim() < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{input.dim()}-D tensor.")
    out = input.transpose(-2, -1)
    return out.conj() if input.dtype.is_complex else out


def _imag(self):
    raise TypeError("imag is not implemented for tensors with non-complex dtypes.")


def is_inference(input):
    return input.is_inference()


def split_with_sizes(input, split_sizes, dim=0):
    if input.dim() == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, input.dim())
    if sum(split_sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[d]} (input "
                           f"tensor's size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return tuple(input.split(list(split_sizes), d))


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    # its own name in the parser's messages (tensor() would name itself), and layout= checked too
    dtype = _creation_args.factory_options("scalar_tensor", dtype, layout, device, pin_memory, requires_grad)
    return _tensor(s, dtype=dtype or _C.get_default_dtype(), device=device, requires_grad=requires_grad)


# ---- the deprecated norm spellings (PyTorch warns) ----

@with_out("frobenius_norm", STRUCTURED)
def frobenius_norm(input, dim=None, keepdim=False):
    if dim is None:  # required: PyTorch's parser words the TypeError this way
        raise TypeError('frobenius_norm() missing 1 required positional arguments: "dim"')
    if not input.is_floating_point():
        raise NotImplementedError(f"norm(): input dtype should be either floating point or complex. Got "
                                  f"{input.dtype._scalar_type_name} instead.")
    warnings.warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed "
                  "in a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    from . import linalg  # noqa: PLC0415
    return linalg.vector_norm(input, 2.0, dim, keepdim)


@with_out("nuclear_norm", "linalg.matrix_norm expected out tensor dtype {result} but got: {out}")
def nuclear_norm(input, dim=(-2, -1), keepdim=False):
    warnings.warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed "
                  "in a future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    if isinstance(dim, bool):
        dim, keepdim = (-2, -1), dim
    from . import linalg  # noqa: PLC0415
    return linalg.matrix_norm(input, "nuc", dim, keepdim)


# ---- the *_copy forms: the view op, then a copy of what it returns ----

_COPY_OF_VIEW = ("diagonal expand permute select squeeze t transpose unfold unsqueeze view split unbind "
                 "split_with_sizes detach alias slice view_as_real view_as_complex").split()


def _slice(input, dim=0, start=None, end=None, step=1):
    index = [slice(None)] * input.dim()
    index[_wrap_dim(dim, input.dim())] = slice(start, end, step)
    return input[tuple(index)]


def _view_op(name):
    if name == "alias":
        return lambda input: input
    if name == "slice":
        return _slice
    if name == "split_with_sizes":
        return split_with_sizes
    if name in ("view_as_real", "view_as_complex"):  # functions only, no Tensor methods
        return lambda input: getattr(_C, name)(input)
    return lambda input, *args, **kwargs: getattr(input, name)(*args, **kwargs)


def _copy_form(name):
    view = _view_op(name)

    def fn(input, *args, **kwargs):
        out = view(input, *args, **kwargs)
        return tuple(t.clone() for t in out) if isinstance(out, (tuple, list)) else out.clone()

    fn.__name__ = fn.__qualname__ = f"{name}_copy"
    return with_out(f"{name}_copy", STRUCTURED)(fn)


# ---- Tensor-only methods ----

def _new_empty_strided(self, size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                       pin_memory=False):
    from ._creation_more import empty_strided  # noqa: PLC0415
    return empty_strided(size, stride, dtype=dtype or self.dtype, device=device or self.device,
                         requires_grad=requires_grad, pin_memory=pin_memory)


def _check_cpu_no_grad(self, name):
    if self.device.type != "cpu":
        raise TypeError(f"{name.rstrip('()')} is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {name} on Variable that requires grad. Use var.detach().{name} instead.")


def _apply_(self, callable):
    """Calls callable on each element, in place (CPU only and slow, as in PyTorch)."""
    _check_cpu_no_grad(self, "apply_()")
    values = [callable(v) for v in self.reshape(-1).tolist()]
    self.copy_(_tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _map_(self, tensor, callable):
    _check_cpu_no_grad(self, "map_()")
    other = tensor.expand(self.shape).reshape(-1).tolist()
    values = [callable(a, b) for a, b in zip(self.reshape(-1).tolist(), other)]
    self.copy_(_tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


def _functional(name):
    def method(self, *args, **kwargs):
        from .nn import functional  # noqa: PLC0415
        return getattr(functional, name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


_FALSE_PROPERTIES = ("is_sparse", "is_quantized", "is_nested", "is_mkldnn", "is_xpu", "is_mps",
                     "is_sparse_csr")


def _methods():
    methods = {name: globals()[name] for name in (
        "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "diagflat", "cov", "corrcoef", "isreal", "split_with_sizes",
        "select_scatter", "slice_scatter", "diagonal_scatter", "conj", "conj_physical", "conj_physical_", "angle",
        "adjoint")}
    from . import _torch_functional_forms  # noqa: PLC0415
    methods.update(hardshrink=_functional("hardshrink"), prelu=_torch_functional_forms.prelu,
                   new_empty_strided=_new_empty_strided, apply_=_apply_, map_=_map_)
    return methods


def install(namespace):
    """Adds what tandem does not already have (its own ops win): functions, Tensor methods, linalg names."""
    for name in __all__:
        namespace.setdefault(name, globals()[name])
    for name in _COPY_OF_VIEW:
        namespace.setdefault(f"{name}_copy", _copy_form(name))
    for name, method in _methods().items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, method)
    if not hasattr(Tensor, "real"):
        Tensor.real = property(conj)
        Tensor.imag = property(_imag)
    for name in _FALSE_PROPERTIES:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, property(lambda self: False))
    linalg = namespace["linalg"]
    for name, fn in (("vander", linalg_vander), ("diagonal", linalg_diagonal), ("tensorinv", tensorinv),
                     ("tensorsolve", tensorsolve)):
        if not hasattr(linalg, name):
            setattr(linalg, name, fn)
    namespace.setdefault("vander", vander)


# ---- linalg additions ----

def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return A.diagonal(offset, dim1, dim2)


@with_out("linalg.tensorinv", CASTABLE)
def tensorinv(A, ind=2):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = tuple(A.shape[ind:]) + tuple(A.shape[:ind])
    rows = math.prod(A.shape[:ind])
    cols = math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    from . import linalg  # noqa: PLC0415
    return linalg.inv(A.reshape(rows, cols)).reshape(out_shape)


@with_out("linalg.tensorsolve", CASTABLE)
def tensorsolve(A, B, dims=None):
    if dims is not None:
        dims = [_wrap_dim(d, A.dim()) for d in dims]
        rest = [d for d in builtins.range(A.dim()) if d not in dims]
        A = A.permute(rest + dims)
    result_shape = tuple(A.shape[B.dim():])
    n = math.prod(result_shape)
    m = B.numel()
    if m != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {n} != {m}")
    from . import linalg  # noqa: PLC0415
    return linalg.solve(A.reshape(m, n), B.reshape(m)).reshape(result_shape)
