"""PyTorch's check (c10::overflows, via Scalar::to<T>) where a kernel converts a Python number to its scalar type,
for the ops tandem composes in Python: "value cannot be converted to type int64_t without overflow", naming the C++
type. NaN and infinities fit no integer type; a finite number past a type's range fits none (a negative int wraps
into an unsigned type, a negative float does not); a complex type checks its real part."""
import math

# dtype name -> (the C++ type PyTorch's message names, its lowest and largest value)
_FLOAT_MAX = 3.4028234663852886e38
SCALAR_TYPES = {"float16": ("c10::Half", -65504.0, 65504.0),
                "bfloat16": ("c10::BFloat16", -3.3895313892515355e38, 3.3895313892515355e38),
                "float32": ("float", -_FLOAT_MAX, _FLOAT_MAX),
                "complex64": ("c10::complex<float>", -_FLOAT_MAX, _FLOAT_MAX),
                "int64": ("int64_t", -2**63, 2**63 - 1), "int32": ("int", -2**31, 2**31 - 1),
                "int16": ("int16_t", -2**15, 2**15 - 1), "int8": ("int8_t", -2**7, 2**7 - 1),
                "uint8": ("uint8_t", 0, 255)}


def check_converts(value, dtype, half_as_float=False):
    """Raise PyTorch's overflow error when value (a Python number) cannot become dtype's scalar type.
    half_as_float: the kernel computes 16-bit inputs in float (its opmath type)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return
    name = str(dtype).split(".")[-1]
    if half_as_float and name in ("float16", "bfloat16"):
        name = "float32"
    if name not in SCALAR_TYPES:
        return
    c_type, low, high = SCALAR_TYPES[name]
    floating = name.startswith(("float", "bfloat", "complex"))
    if isinstance(value, complex):
        value = value.real
    if isinstance(value, int):
        bad = value > high or (value < -high if name == "uint8" else value < low)
    elif math.isnan(value) or math.isinf(value):
        bad = not floating
    else:
        bad = value < low or value > high
    if bad:
        raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
