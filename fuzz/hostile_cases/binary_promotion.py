"""Pointwise binary ops and type promotion: Python scalars (bool, int, float, complex, ints past int64) against
tensors of every category, 0-d tensors against dimensioned ones, bool/uint8/int8 arithmetic, integer division
and remainder by zero, shifts and bitwise ops on floats, comparisons across categories, and out= of the wrong
dtype (a result that cannot be cast), shape (resized, with PyTorch's warning), device or that aliases an input."""
import math

from . import R, T


def i64(L, d, values=(3, -7, 0, 5)):
    return T(L, list(values), d, "int64")


def u8(L, d, values=(3, 250, 0, 5)):
    return T(L, list(values), d, "uint8")


def f32(L, d, shape=(4,)):
    return R(L, shape, d, "float32")


def b(L, d):
    return T(L, [True, False, True, False], d)


def dtype_of(x):
    return str(x.dtype).split(".")[-1]


CASES = {
    # ---- promotion with Python scalars (the result dtypes must be PyTorch's)
    "add/int_tensor_float_scalar": lambda L, d: i64(L, d) + 2.5,
    "add/int32_tensor_big_int": lambda L, d: T(L, [1, 2], d, "int32") + 2**40,
    "add/uint8_negative_scalar": lambda L, d: u8(L, d) + (-1),
    "add/uint8_scalar_wraps": lambda L, d: u8(L, d) + 10,
    "add/int8_scalar_300": lambda L, d: T(L, [1, 2], d, "int8") + 300,
    "add/bool_bool": lambda L, d: b(L, d) + b(L, d),
    "add/bool_true_scalar": lambda L, d: b(L, d) + True,
    "add/bool_int_scalar": lambda L, d: b(L, d) + 3,
    "add/float16_float_scalar": lambda L, d: f32(L, d).half() + 1e5,
    "add/int_tensor_complex_scalar": lambda L, d: i64(L, d) + 1j,
    "add/float32_complex_scalar": lambda L, d: f32(L, d) + (1 + 2j),
    "add/float16_complex_scalar": lambda L, d: f32(L, d).half() + 1j,
    "add/scalar_past_int64": lambda L, d: i64(L, d) + 2**64,
    "add/scalar_past_int64_float": lambda L, d: f32(L, d) + 2**64,
    "add/nan_into_int_scalar": lambda L, d: i64(L, d) + math.nan,
    "add/alpha_float_int": lambda L, d: L.add(i64(L, d), i64(L, d), alpha=1.5),
    "add/alpha_bool": lambda L, d: L.add(b(L, d), b(L, d), alpha=True),
    "add/alpha_int_bool_tensor": lambda L, d: L.add(b(L, d), b(L, d), alpha=2),
    "add/alpha_complex_float": lambda L, d: L.add(f32(L, d), f32(L, d), alpha=1j),
    "sub/bool_bool": lambda L, d: b(L, d) - b(L, d),
    "sub/bool_scalar": lambda L, d: b(L, d) - True,
    "rsub/bool": lambda L, d: 1 - b(L, d),
    "sub/alpha_bool_float": lambda L, d: L.sub(f32(L, d), f32(L, d), alpha=True),
    "mul/bool_bool": lambda L, d: b(L, d) * b(L, d),
    "mul/bool_float_scalar": lambda L, d: b(L, d) * 0.5,
    "mul/uint8_int8": lambda L, d: u8(L, d) * T(L, [1, -1, 2, -2], d, "int8"),
    "mul/uint8_overflow": lambda L, d: u8(L, d) * u8(L, d),
    "mul/int_float16": lambda L, d: i64(L, d) * f32(L, d).half(),
    "mul/bfloat16_float16": lambda L, d: f32(L, d).bfloat16() * f32(L, d).half(),
    "mul/complex64_float64": lambda L, d: L.complex(f32(L, d), f32(L, d)) * R(L, (4,), d),
    # ---- 0-d tensors against dimensioned ones (a 0-d tensor promotes like a scalar within its category)
    "add/0dim_float64_into_float32": lambda L, d: f32(L, d) + T(L, 2.5, d, "float64"),
    "add/0dim_int64_into_uint8": lambda L, d: u8(L, d) + T(L, 300, d, "int64"),
    "add/0dim_float_into_int": lambda L, d: i64(L, d) + T(L, 2.5, d, "float64"),
    "add/0dim_complex_into_float16": lambda L, d: f32(L, d).half() + T(L, 1j, d),
    "add/0dim_bool_into_uint8": lambda L, d: u8(L, d) + T(L, True, d),
    "add/0dim_int_into_bool": lambda L, d: b(L, d) + T(L, 2, d),
    "add/both_0dim": lambda L, d: T(L, 1, d, "int32") + T(L, 2.5, d, "float16"),
    "mul/0dim_uint8_int8": lambda L, d: T(L, 200, d, "uint8") * T(L, -1, d, "int8"),
    "add/0dim_cpu_with_device": lambda L, d: f32(L, d) + T(L, 2.0, "cpu"),
    "result_type/scalars": lambda L, d: L.result_type(2, 2.5),
    "result_type/tensor_scalar": lambda L, d: L.result_type(u8(L, d), -1),
    "result_type/0dim_tensor": lambda L, d: L.result_type(u8(L, d), T(L, 1.5, d, "float64")),
    "result_type/bool_complex": lambda L, d: L.result_type(True, 1j),
    "promote_types/uint8_int8": lambda L, d: L.promote_types(L.uint8, L.int8),
    "promote_types/bfloat16_float16": lambda L, d: L.promote_types(L.bfloat16, L.float16),
    "promote_types/bool_complex64": lambda L, d: L.promote_types(L.bool, L.complex64),
    "can_cast/float_to_int": lambda L, d: L.can_cast(L.float32, L.int32),
    "can_cast/int_to_bool": lambda L, d: L.can_cast(L.int64, L.bool),
    "can_cast/complex_to_float": lambda L, d: L.can_cast(L.complex64, L.float64),
    # ---- division and remainder
    "div/int_int": lambda L, d: i64(L, d) / T(L, [2, 2, 3, -2], d),
    "div/int_by_zero_true": lambda L, d: i64(L, d) / 0,
    "div/floor_int_by_zero": lambda L, d: L.div(i64(L, d), T(L, [1, 1, 1, 0], d), rounding_mode="floor"),
    "div/trunc_negative": lambda L, d: L.div(i64(L, d), 2, rounding_mode="trunc"),
    "div/floor_negative": lambda L, d: L.div(i64(L, d), 2, rounding_mode="floor"),
    "div/bad_rounding_mode": lambda L, d: L.div(i64(L, d), 2, rounding_mode="round"),
    "div/floor_float_by_zero": lambda L, d: L.div(f32(L, d), 0.0, rounding_mode="floor"),
    "div/bool_bool": lambda L, d: b(L, d) / b(L, d),
    "div/uint8_floor": lambda L, d: L.div(u8(L, d), 7, rounding_mode="floor"),
    "floor_divide/float_negative": lambda L, d: L.floor_divide(f32(L, d), -1.5),
    "floor_divide/bool": lambda L, d: L.floor_divide(b(L, d), b(L, d)),
    "remainder/int_by_zero": lambda L, d: L.remainder(i64(L, d), T(L, [1, 1, 0, 1], d)),
    "remainder/negative_divisor": lambda L, d: L.remainder(i64(L, d), -3),
    "remainder/float_negative": lambda L, d: L.remainder(f32(L, d), -2.0),
    "remainder/scalar_first": lambda L, d: L.remainder(7, i64(L, d, (3, -2, 5, 4))),
    "fmod/int_by_zero": lambda L, d: L.fmod(i64(L, d), 0),
    "fmod/negative": lambda L, d: L.fmod(i64(L, d), -3),
    "fmod/bool": lambda L, d: L.fmod(b(L, d), b(L, d)),
    "remainder/bool": lambda L, d: L.remainder(b(L, d), True),
    # ---- pow
    "pow/int_negative_exponent_scalar": lambda L, d: L.pow(i64(L, d, (2, 3, 1, 4)), -1),
    "pow/int_negative_exponent_tensor": lambda L, d: L.pow(i64(L, d, (2, 3, 1, 4)), i64(L, d, (-1, 1, 2, 0))),
    "pow/zero_negative_float": lambda L, d: L.pow(T(L, [0.0, -0.0], d), -1.0),
    "pow/scalar_base_tensor_exp": lambda L, d: L.pow(2, i64(L, d, (3, 0, 1, 5))),
    "pow/scalar_float_base_int_exp": lambda L, d: L.pow(2.5, i64(L, d, (3, 0, 1, 5))),
    "pow/bool_bool": lambda L, d: L.pow(b(L, d), b(L, d)),
    "pow/uint8_wraps": lambda L, d: L.pow(u8(L, d), 3),
    "pow/negative_base_fraction": lambda L, d: L.pow(T(L, [-8.0, 8.0], d), 1 / 3),
    "pow/complex_exponent_real_base": lambda L, d: L.pow(f32(L, d), 0.5j),
    "float_power/int": lambda L, d: L.float_power(i64(L, d), 2),
    "float_power/complex": lambda L, d: L.float_power(f32(L, d), 1j),
    "float_power_/float32": lambda L, d: f32(L, d).float_power_(2),
    # ---- bitwise and shifts
    "bitwise_and/float": lambda L, d: L.bitwise_and(f32(L, d), f32(L, d)),
    "bitwise_or/bool_int": lambda L, d: L.bitwise_or(b(L, d), i64(L, d)),
    "bitwise_xor/int_scalar_float": lambda L, d: L.bitwise_xor(i64(L, d), 1.5),
    "bitwise_not/float": lambda L, d: L.bitwise_not(f32(L, d)),
    "bitwise_not/bool": lambda L, d: L.bitwise_not(b(L, d)),
    "invert/uint8": lambda L, d: ~u8(L, d),
    "invert/float": lambda L, d: ~f32(L, d),
    "and/bool_int": lambda L, d: b(L, d) & i64(L, d),
    "lshift/float": lambda L, d: f32(L, d) << 1,
    "rshift/uint8_8": lambda L, d: u8(L, d) >> 8,
    "lshift/int64_64": lambda L, d: i64(L, d) << 64,
    "lshift/int8_negative_shift": lambda L, d: T(L, [1, 2], d, "int8") << -1,
    "bitwise_left_shift/scalar_first": lambda L, d: L.bitwise_left_shift(1, i64(L, d, (0, 1, 2, 3))),
    # ---- comparisons and logical ops across categories
    "eq/int_float": lambda L, d: L.eq(i64(L, d), T(L, [3.0, -7.5, 0.0, 5.0], d)),
    "lt/uint8_negative_scalar": lambda L, d: u8(L, d) < -1,
    "gt/int_big_scalar": lambda L, d: i64(L, d) > 2**70,
    "eq/complex_real": lambda L, d: L.eq(T(L, [1 + 0j, 2j], d), T(L, [1.0, 0.0], d)),
    "lt/complex": lambda L, d: T(L, [1 + 0j, 2j], d) < T(L, [1.0, 0.0], d),
    "eq/nan": lambda L, d: T(L, [math.nan, 1.0], d) == T(L, [math.nan, 1.0], d),
    "ne/nan": lambda L, d: T(L, [math.nan, 1.0], d) != math.nan,
    "logical_and/float_int": lambda L, d: L.logical_and(f32(L, d), i64(L, d)),
    "logical_xor/complex": lambda L, d: L.logical_xor(T(L, [0j, 1j], d), T(L, [1.0, 0.0], d)),
    "maximum/int_float": lambda L, d: L.maximum(i64(L, d), f32(L, d)),
    "maximum/nan": lambda L, d: L.maximum(T(L, [math.nan, 1.0], d), T(L, [0.0, math.nan], d)),
    "fmax/nan": lambda L, d: L.fmax(T(L, [math.nan, 1.0, math.nan], d), T(L, [0.0, math.nan, math.nan], d)),
    "maximum/scalar": lambda L, d: L.maximum(f32(L, d), 1.0),
    "maximum/bool": lambda L, d: L.maximum(b(L, d), b(L, d).logical_not()),
    "minimum/uint8_int8": lambda L, d: L.minimum(u8(L, d), T(L, [-1, 1, 2, -2], d, "int8")),
    "atan2/int": lambda L, d: L.atan2(i64(L, d), i64(L, d, (1, 1, 0, -1))),
    "atan2/complex": lambda L, d: L.atan2(T(L, [1j], d), T(L, [1j], d)),
    "hypot/int": lambda L, d: L.hypot(i64(L, d), i64(L, d)),
    "copysign/int": lambda L, d: L.copysign(i64(L, d), -1),
    "copysign/negative_zero": lambda L, d: L.copysign(T(L, [1.0, 2.0], d), T(L, [-0.0, 0.0], d)),
    "nextafter/int": lambda L, d: L.nextafter(i64(L, d), i64(L, d)),
    "ldexp/int_exponent": lambda L, d: L.ldexp(f32(L, d), i64(L, d, (1, 2, -1, 100))),
    "xlogy/int": lambda L, d: L.xlogy(i64(L, d, (0, 1, 2, 3)), i64(L, d, (0, 1, 2, 3))),
    "lerp/weight_int": lambda L, d: L.lerp(f32(L, d), f32(L, d), 2),
    "lerp/dtypes_differ": lambda L, d: L.lerp(f32(L, d), R(L, (4,), d), 0.5),
    "lerp/int": lambda L, d: L.lerp(i64(L, d), i64(L, d), 0.5),
    "addcdiv/int": lambda L, d: L.addcdiv(i64(L, d), i64(L, d), i64(L, d, (1, 1, 1, 1))),
    "addcmul/value_complex_float": lambda L, d: L.addcmul(f32(L, d), f32(L, d), f32(L, d), value=1j),
    "where/scalar_promotion": lambda L, d: L.where(b(L, d), i64(L, d), 2.5),
    "where/uint8_cond": lambda L, d: L.where(u8(L, d), f32(L, d), f32(L, d)),
    "where/both_scalars": lambda L, d: L.where(b(L, d), 1, 0.5),
    "clamp/int_float_bounds": lambda L, d: L.clamp(i64(L, d), 0.5, 2.5),
    "clamp/uint8_negative_min": lambda L, d: L.clamp(u8(L, d), -5, 100),
    # ---- broadcasting
    "add/not_broadcastable": lambda L, d: f32(L, d, (2, 3)) + f32(L, d, (3, 2)),
    "add/broadcast_empty": lambda L, d: f32(L, d, (0, 3)) + f32(L, d, (1, 3)),
    "add/broadcast_empty_vs_2": lambda L, d: f32(L, d, (0, 3)) + f32(L, d, (2, 3)),
    "mul/broadcast_rank_grows": lambda L, d: f32(L, d, (3,)) * f32(L, d, (2, 1, 1)),
    # ---- out=
    "add/out_int_for_float": lambda L, d: L.add(f32(L, d), f32(L, d), out=L.empty(4, device=d, dtype=L.int64)),
    "add/out_float64_for_float32": lambda L, d: L.add(f32(L, d), f32(L, d), out=L.empty(4, device=d,
                                                                                       dtype=L.float64)),
    "add/out_bool_for_int": lambda L, d: L.add(i64(L, d), i64(L, d), out=L.empty(4, device=d, dtype=L.bool)),
    "add/out_float_for_complex": lambda L, d: L.add(f32(L, d), 1j, out=L.empty(4, device=d)),
    "mul/out_int_for_bool": lambda L, d: L.mul(b(L, d), b(L, d), out=L.empty(4, device=d, dtype=L.int64)),
    "eq/out_float": lambda L, d: L.eq(f32(L, d), f32(L, d), out=L.empty(4, device=d)),
    "lt/out_int8": lambda L, d: L.lt(f32(L, d), 0, out=L.empty(4, device=d, dtype=L.int8)),
    "div/out_int": lambda L, d: L.div(i64(L, d), 2, out=L.empty(4, device=d, dtype=L.int64)),
    "div/out_int_floor": lambda L, d: L.div(i64(L, d), 2, rounding_mode="floor",
                                            out=L.empty(4, device=d, dtype=L.int64)),
    "add/out_wrong_shape_resized": lambda L, d: L.add(f32(L, d), 1, out=L.empty(2, 3, device=d)),
    "add/out_empty_resized": lambda L, d: L.add(f32(L, d), 1, out=L.empty(0, device=d)),
    "add/out_is_input": lambda L, d: (lambda x: (L.add(x, x, out=x), x)[1])(f32(L, d)),
    "mul/out_is_second_input": lambda L, d: (lambda x, y: (L.mul(x, y, out=y), y)[1])(f32(L, d), f32(L, d)),
    "add/out_not_tensor": lambda L, d: L.add(f32(L, d), 1, out=[1.0]),
    "add/out_requires_grad": lambda L, d: L.add(f32(L, d).requires_grad_(), 1, out=L.empty(4, device=d)),
    "add/out_leaf_requires_grad": lambda L, d: L.add(f32(L, d), 1, out=L.empty(4, device=d, requires_grad=True)),
    "pow/out_int_for_float": lambda L, d: L.pow(f32(L, d), 2, out=L.empty(4, device=d, dtype=L.int32)),
    "maximum/out_wrong_dtype": lambda L, d: L.maximum(f32(L, d), f32(L, d), out=L.empty(4, device=d,
                                                                                     dtype=L.int64)),
    "bitwise_and/out_bool_for_int": lambda L, d: L.bitwise_and(i64(L, d), i64(L, d),
                                                               out=L.empty(4, device=d, dtype=L.bool)),
    "where/out_wrong_dtype": lambda L, d: L.where(b(L, d), f32(L, d), f32(L, d),
                                                  out=L.empty(4, device=d, dtype=L.int64)),
    "sub/out_complex_for_float": lambda L, d: L.sub(f32(L, d), f32(L, d), out=L.empty(4, device=d,
                                                                                    dtype=L.complex64)),
    # ---- in-place ops whose result cannot be cast back into self
    "add_/int_plus_float": lambda L, d: i64(L, d).add_(1.5),
    "add_/float_plus_complex": lambda L, d: f32(L, d).add_(1j),
    "mul_/bool_times_int": lambda L, d: b(L, d).mul_(2),
    "mul_/uint8_times_negative": lambda L, d: u8(L, d).mul_(-1),
    "sub_/bool": lambda L, d: b(L, d).sub_(b(L, d)),
    "div_/int_floor_ok": lambda L, d: i64(L, d).div_(2, rounding_mode="floor"),
    "pow_/int_float_exponent": lambda L, d: i64(L, d).pow_(0.5),
    "remainder_/int_by_float": lambda L, d: i64(L, d).remainder_(1.5),
    "bitwise_and_/float": lambda L, d: f32(L, d).bitwise_and_(1),
    "eq_/float": lambda L, d: f32(L, d).eq_(0.0),
    "lt_/int_self": lambda L, d: i64(L, d).lt_(2),
    "clamp_/int_float_bound": lambda L, d: i64(L, d).clamp_(0.5),
    "add_/float16_plus_float64_tensor": lambda L, d: f32(L, d).half().add_(R(L, (4,), d)),
    # ---- bool/uint8 special cases
    "neg/bool": lambda L, d: -b(L, d),
    "abs/bool": lambda L, d: L.abs(b(L, d)),
    "sign/bool": lambda L, d: L.sign(b(L, d)),
    "sqrt/int": lambda L, d: L.sqrt(i64(L, d)),
    "sqrt/bool": lambda L, d: L.sqrt(b(L, d)),
    "exp/uint8": lambda L, d: L.exp(u8(L, d)),
    "neg/uint8": lambda L, d: -u8(L, d),
    "abs/int8_min": lambda L, d: L.abs(T(L, [-128, 5], d, "int8")),
    "reciprocal/int": lambda L, d: L.reciprocal(i64(L, d)),
    "square/bool": lambda L, d: L.square(b(L, d)),
    "positive/bool": lambda L, d: L.positive(b(L, d)),
    "sigmoid/int": lambda L, d: L.sigmoid(i64(L, d)),
    "floor/int": lambda L, d: L.floor(i64(L, d)),
    "round/int_decimals": lambda L, d: L.round(i64(L, d), decimals=1),
    "trunc/bool": lambda L, d: L.trunc(b(L, d)),
    "dtype/result_names": lambda L, d: [dtype_of(x) for x in (u8(L, d) + T(L, 1, d, "int8"), b(L, d) * 1.5,
                                                              T(L, [1], d, "int16") / 2,
                                                              T(L, [1], d, "int32") // 2.0)],
}

_CPP = "needs C++ fix: "
_COMPLEX32 = "tandem has no complex32 (docs/compat.md): a complex value with float16 promotes to complex64"
KNOWN = {
    "add/0dim_complex_into_float16": _COMPLEX32, "add/float16_complex_scalar": _COMPLEX32,
    "hypot/int": "deliberate (docs/compat.md): integer inputs to hypot compute in the default float dtype, as "
                 "atan2 and NumPy do; PyTorch has no integer kernel",
    "maximum/scalar": "deliberate (docs/compat.md): maximum/minimum take a Python number as other, as NumPy and "
                      "the Array API do; PyTorch's parser wants a Tensor",
    "trunc/bool": "PyTorch's CPU kernel is named trunc_vml_cpu; tandem's trunc_cpu",
}
