"""The standard's element-wise functions. Most are tandem's own ops under the standard's names; the ones tandem
has no kernel for yet are composed from tandem ops here (each says so), and the few that cannot be composed
exactly (atan, asin, acos, atan2, nextafter) use tandem's kernel once one exists and raise until then.

Where a tandem op of the same name appears later (issue 14 adds the trig and hyperbolic families), _native picks
it over the composition, so the composition is only a bridge."""
import inspect
import math

from .. import _C
from .._creation import tensor
from .. import _compositions
from ._dtypes import result_type

Tensor = _C.Tensor

__all__ = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "clip",
    "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater",
    "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log1p",
    "log2", "log10", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor", "maximum",
    "minimum", "multiply", "negative", "nextafter", "not_equal", "positive", "pow", "real", "reciprocal",
    "remainder", "round", "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh", "trunc",
]




def _native(name, composition):
    """tandem's own op when it exists, else the composition (so a kernel added later replaces it). The op gets
    the composition's positional-only signature, and two-operand ops the standard's promotion."""
    fn = getattr(_C, name, None)
    if fn is None:
        return composition
    if len(inspect.signature(composition).parameters) == 2:
        return _promoted(fn, name)

    def op(x, /):
        return fn(x)
    op.__name__ = op.__qualname__ = name
    return op


def _kernel_only(name):
    """An op no composition of tandem ops computes exactly: tandem's kernel when it exists, else an error."""
    def op(*args, **kwargs):
        fn = getattr(_C, name, None)
        if fn is None:
            raise NotImplementedError(f"tandem has no {name} kernel yet\nhint: it arrives with issue 14's "
                                      f"pointwise ops; NumPy's np.{name} works on t.numpy() meanwhile")
        return fn(*args, **kwargs)
    op.__name__ = op.__qualname__ = name
    return op


def _tensors(x1, x2):
    """Both operands as tensors of their result dtype, a Python scalar taking the other's dtype and device."""
    dtype = result_type(x1, x2)
    device = x1.device if isinstance(x1, Tensor) else x2.device
    return (tensor(x1, dtype=dtype, device=device) if not isinstance(x1, Tensor) else x1.to(dtype),
            tensor(x2, dtype=dtype, device=device) if not isinstance(x2, Tensor) else x2.to(dtype))


def _floating(x):
    return x if x.dtype.is_floating_point else x.to(_C.get_default_dtype())


def _promoted(fn, name):
    """fn on two operands promoted by the standard's rules. tandem, as PyTorch, lets a 0-d tensor take part in
    promotion only like a scalar (int64 0-d | int16 array -> int16); the standard promotes 0-d arrays fully, so
    two arrays of different dtypes are cast to their common dtype first. Python scalars pass through: tandem's
    scalar rule is the standard's."""
    def op(x1, x2, /):
        if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dtype != x2.dtype:
            dtype = _C.promote_types(x1.dtype, x2.dtype)
            x1, x2 = x1.to(dtype), x2.to(dtype)
        return fn(x1, x2)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"tandem.{fn.__name__} with the standard's promotion of arrays of different dtypes."
    return op


# ---- tandem's ops under the standard's names ----
abs = _C.abs
add = _promoted(_C.add, "add")
subtract = _promoted(_C.sub, "subtract")
multiply = _promoted(_C.mul, "multiply")
divide = _promoted(_C.div, "divide")
pow = _promoted(_C.pow, "pow")
negative = _C.neg
maximum = _promoted(_C.maximum, "maximum")
minimum = _promoted(_C.minimum, "minimum")
equal = _promoted(_C.eq, "equal")
not_equal = _promoted(_C.ne, "not_equal")
less = _promoted(_C.lt, "less")
less_equal = _promoted(_C.le, "less_equal")
greater = _promoted(_C.gt, "greater")
greater_equal = _promoted(_C.ge, "greater_equal")
logical_and = _C.logical_and
logical_or = _C.logical_or
logical_xor = _C.logical_xor
logical_not = _C.logical_not
bitwise_and = _promoted(_C.bitwise_and, "bitwise_and")
bitwise_or = _promoted(_C.bitwise_or, "bitwise_or")
bitwise_xor = _promoted(_C.bitwise_xor, "bitwise_xor")
bitwise_invert = _C.bitwise_not
ceil = _C.ceil
floor = _C.floor
trunc = _C.trunc
round = _C.round
exp = _C.exp
expm1 = _C.expm1
log = _C.log
log1p = _C.log1p
sqrt = _C.sqrt
sin = _C.sin
cos = _C.cos
tanh = _C.tanh
isnan = _C.isnan
isinf = _C.isinf
isfinite = _C.isfinite
square = _compositions.square
reciprocal = _compositions.reciprocal


def positive(x, /):
    return x


# Real dtypes only (tandem has no complex dtypes yet): the real part is x, the imaginary part zero.
def real(x, /):
    return x


def conj(x, /):
    return x


def imag(x, /):
    return _C.zeros(tuple(x.shape), dtype=x.dtype, device=x.device)


def clip(x, /, min=None, max=None):
    """x limited to [min, max], in x's dtype; bounds may be scalars or arrays."""
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        if min is None and max is None:
            return x
        return _C.clamp(x, min, max)
    out = x
    if min is not None:
        out = _C.maximum(out, min if isinstance(min, Tensor) else tensor(min, dtype=x.dtype, device=x.device))
    if max is not None:
        out = _C.minimum(out, max if isinstance(max, Tensor) else tensor(max, dtype=x.dtype, device=x.device))
    return out.to(x.dtype)


# ---- the standard's special cases where tandem's (PyTorch's) ops differ ----
# Only these functions change: the Tensor operators `//` and `%` keep PyTorch's results.

def floor_divide(x1, x2, /):
    """tandem.floor_divide, except with an infinite operand: the standard's floor(x1 / x2) (inf // 2 is inf,
    -1 // inf is -0), where PyTorch follows Python (inf // 2 is NaN, -1 // inf is -1)."""
    x1, x2 = _tensors(x1, x2)
    out = _C.floor_divide(x1, x2)
    if not out.dtype.is_floating_point:
        return out
    return _C.where(_C.isinf(x1) | _C.isinf(x2), _C.floor(_C.div(x1, x2)), out)


def remainder(x1, x2, /):
    """tandem.remainder, except a zero result takes x2's sign, as the standard (and NumPy) ask: -0 % 1 is +0 and
    0 % -1 is -0 (PyTorch keeps x1's zero)."""
    x1, x2 = _tensors(x1, x2)
    out = _C.remainder(x1, x2)
    if not out.dtype.is_floating_point:
        return out
    return _C.where(out == 0, copysign(_C.zeros((), dtype=out.dtype, device=out.device), x2), out)


def sign(x, /):
    """tandem.sign, except sign(NaN) is NaN as the standard asks (PyTorch gives 0)."""
    out = _C.sign(x)
    if not x.dtype.is_floating_point:
        return out
    return _C.where(_C.isnan(x), x, out)


# ---- compositions of tandem ops (no kernel yet) ----

def _signbit(x, /):
    """x < 0, with -0.0 counted as negative through 1/x = -inf (NaN's sign bit cannot be read without a bit view)."""
    if not x.dtype.is_floating_point:
        return x < 0
    return (x < 0) | ((x == 0) & (_C.div(1, x) < 0))


def _copysign(x1, x2, /):
    x1, x2 = _tensors(x1, x2)
    x1, x2 = _floating(x1), _floating(x2)
    magnitude = _C.abs(x1)
    return _C.where(_signbit(x2), _C.neg(magnitude), magnitude)


def _tan(x, /):
    x = _floating(x)
    return _C.div(_C.sin(x), _C.cos(x))


def _sinh(x, /):
    x = _floating(x)
    return _C.div(_C.sub(_C.expm1(x), _C.expm1(_C.neg(x))), 2)  # expm1 keeps small |x| exact


def _cosh(x, /):
    x = _floating(x)
    return _C.div(_C.add(_C.exp(x), _C.exp(_C.neg(x))), 2)


_LN2 = math.log(2.0)
_LARGE = 2.0 ** 28  # above it x^2 + 1 == x^2 in float64, and the log form cannot overflow


def _asinh(x, /):
    x = _floating(x)
    a = _C.abs(x)
    small = _C.log1p(a + a * a / (1 + _C.sqrt(1 + a * a)))
    r = _C.where(a > _LARGE, _C.log(a) + _LN2, small)
    return _C.where(_signbit(x), _C.neg(r), r)


def _acosh(x, /):
    x = _floating(x)
    t = x - 1
    r = _C.where(x > _LARGE, _C.log(x) + _LN2, _C.log1p(t + _C.sqrt(2 * t + t * t)))
    return _C.where(x < 1, math.nan, r)  # below -1, 2t + t^2 is positive again and the log form finite


def _atanh(x, /):
    x = _floating(x)
    return _C.mul(_C.log1p(_C.div(2 * x, 1 - x)), 0.5)


def _log2(x, /):
    return _C.div(_C.log(_floating(x)), _LN2)


def _log10(x, /):
    return _C.div(_C.log(_floating(x)), math.log(10.0))


def _hypot(x1, x2, /):
    x1, x2 = _tensors(x1, x2)
    a, b = _C.abs(_floating(x1)), _C.abs(_floating(x2))
    big, small = _C.maximum(a, b), _C.minimum(a, b)
    ratio = _C.div(small, big)
    r = big * _C.sqrt(1 + ratio * ratio)  # scaled so squares cannot overflow
    r = _C.where(big == 0, _C.zeros((), dtype=r.dtype, device=r.device), r)
    return _C.where(_C.isinf(a) | _C.isinf(b), math.inf, r)  # inf wins over NaN, as C's hypot


def _logaddexp(x1, x2, /):
    x1, x2 = _tensors(x1, x2)
    x1, x2 = _floating(x1), _floating(x2)
    big = _C.maximum(x1, x2)
    r = big + _C.log1p(_C.exp(_C.neg(_C.abs(x1 - x2))))
    return _C.where(x1 == x2, x1 + _LN2, r)  # equal infinities would give inf - inf


def _shift_parts(x1, x2):
    x1, x2 = _tensors(x1, x2)
    if x1.dtype.is_floating_point or x1.dtype == _C.bool:
        raise TypeError(f"bitwise shifts need integer arrays, got {x1.dtype}")
    return x1, x2, x1.dtype.itemsize * 8


def _bitwise_left_shift(x1, x2, /):
    """x1 * 2**x2 (integer products wrap as shifts do); shifts of the width or more give 0."""
    x1, x2, bits = _shift_parts(x1, x2)
    r = x1 * _C.pow(_C.ones((), dtype=x1.dtype, device=x1.device) * 2, _C.clamp(x2, 0, bits - 1))
    return _C.where(x2 >= bits, _C.zeros((), dtype=r.dtype, device=r.device), r)


def _bitwise_right_shift(x1, x2, /):
    """floor(x1 / 2**x2), an arithmetic shift; past the width, 0 or -1 by sign."""
    x1, x2, bits = _shift_parts(x1, x2)
    top = bits - 2 if x1.dtype.is_signed else bits - 1  # the largest power of 2 the dtype holds
    r = _C.floor_divide(x1, _C.pow(_C.ones((), dtype=x1.dtype, device=x1.device) * 2, _C.clamp(x2, 0, top)))
    past = _C.where(x1 < 0, _C.full((), -1, dtype=x1.dtype, device=x1.device),
                    _C.zeros((), dtype=x1.dtype, device=x1.device))
    return _C.where(x2 > top, past, r)


signbit = _native("signbit", _signbit)
copysign = _native("copysign", _copysign)
tan = _native("tan", _tan)
sinh = _native("sinh", _sinh)
cosh = _native("cosh", _cosh)
asinh = _native("asinh", _asinh)
acosh = _native("acosh", _acosh)
atanh = _native("atanh", _atanh)
log2 = _native("log2", _log2)
log10 = _native("log10", _log10)
hypot = _native("hypot", _hypot)
logaddexp = _native("logaddexp", _logaddexp)
bitwise_left_shift = _native("bitwise_left_shift", _bitwise_left_shift)
bitwise_right_shift = _native("bitwise_right_shift", _bitwise_right_shift)

atan = _kernel_only("atan")
asin = _kernel_only("asin")
acos = _kernel_only("acos")
atan2 = _kernel_only("atan2")
nextafter = _kernel_only("nextafter")
