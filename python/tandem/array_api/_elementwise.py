"""The standard's element-wise functions: tandem's own ops under the standard's names, with the standard's
promotion for two operands and its special cases where PyTorch's differ. signbit is composed from tandem ops
(no kernel yet; _native picks tandem's once it exists); nextafter, which no composition computes exactly, uses
tandem's kernel once one exists and raises until then."""
import inspect

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




def _unary(name):
    """tandem's one-operand kernel under the standard's positional-only signature."""
    fn = getattr(_C, name)

    def op(x, /):
        return fn(x)
    op.__name__ = op.__qualname__ = name
    return op


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


def _kernel_only(name, binary=False):
    """An op no composition of tandem ops computes exactly: tandem's kernel when it exists, else an error.
    Two-operand ops get the standard's promotion (see _promoted)."""
    def kernel():
        fn = getattr(_C, name, None)
        if fn is None:
            raise NotImplementedError(f"tandem has no {name} kernel yet\nhint: it arrives with issue 14's "
                                      f"pointwise ops; NumPy's np.{name} works on t.numpy() meanwhile")
        return fn

    def unary(x, /):
        return kernel()(x)

    def two_operands(x1, x2, /):
        return _promoted(kernel(), name)(x1, x2)
    op = two_operands if binary else unary
    op.__name__ = op.__qualname__ = name
    return op


def _tensors(x1, x2):
    """Both operands as tensors of their result dtype, a Python scalar taking the other's dtype and device."""
    dtype = result_type(x1, x2)
    device = x1.device if isinstance(x1, Tensor) else x2.device
    return (tensor(x1, dtype=dtype, device=device) if not isinstance(x1, Tensor) else x1.to(dtype),
            tensor(x2, dtype=dtype, device=device) if not isinstance(x2, Tensor) else x2.to(dtype))


def _promoted(fn, name):
    """fn on two operands promoted by the standard's rules. tandem, as PyTorch, lets a 0-d tensor take part in
    promotion only like a scalar (int64 0-d | int16 array -> int16); the standard promotes 0-d arrays fully, so
    two arrays of different dtypes are cast to their common dtype first. A Python scalar second passes through
    (tandem's scalar rule is the standard's); one first becomes a 0-d array of the result dtype."""
    def op(x1, x2, /):
        if isinstance(x1, Tensor) and isinstance(x2, Tensor) and x1.dtype != x2.dtype:
            dtype = _C.promote_types(x1.dtype, x2.dtype)
            x1, x2 = x1.to(dtype), x2.to(dtype)
        elif not isinstance(x1, Tensor) and isinstance(x2, Tensor):
            # A scalar first (xp.greater(0, x)): tandem's comparisons, as PyTorch's, take a tensor first
            x1, x2 = _tensors(x1, x2)
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


# The standard's real/imag/conj are copies-or-views of the parts; for a real x, x itself and zeros.
def real(x, /):
    return _C.real(x).clone() if x.dtype.is_complex else x


def conj(x, /):
    return _C.conj(x)


def imag(x, /):
    if x.dtype.is_complex:
        return _C.imag(x).clone()
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
    """tandem.sign, except sign(NaN) is NaN as the standard asks (PyTorch gives 0); for complex x, x / |x|
    (tandem.sgn)."""
    if x.dtype.is_complex:
        return _C.sgn(x)
    out = _C.sign(x)
    if not x.dtype.is_floating_point:
        return out
    return _C.where(_C.isnan(x), x, out)


# ---- compositions of tandem ops (no kernel yet) and the rest of tandem's kernels ----

def _signbit(x, /):
    """The sign bit, read through tandem's copysign kernel: copysign(1, x) is -1 exactly when x's sign bit is set
    (-0.0 and -NaN included)."""
    if not x.dtype.is_floating_point:
        return x < 0
    return _C.copysign(_C.ones((), dtype=x.dtype, device=x.device), x) < 0


signbit = _native("signbit", _signbit)
copysign = _promoted(_C.copysign, "copysign")
hypot = _promoted(_C.hypot, "hypot")
logaddexp = _promoted(_C.logaddexp, "logaddexp")
atan2 = _promoted(_C.atan2, "atan2")
tan, sinh, cosh, asinh, acosh, atanh, log2, log10, atan, asin, acos = (
    _unary(name) for name in ("tan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10", "atan", "asin",
                              "acos"))
# tandem's shifts (PyTorch's results: a count outside [0, bits) gives 0, or the sign fill for >>)
bitwise_left_shift = _promoted(_C.bitwise_left_shift, "bitwise_left_shift")
bitwise_right_shift = _promoted(_C.bitwise_right_shift, "bitwise_right_shift")

nextafter = _kernel_only("nextafter", binary=True)
