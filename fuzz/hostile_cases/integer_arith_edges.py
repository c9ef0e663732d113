"""Integer dtypes at their edges, beyond dtypes.py, binary_promotion.py and scalar_edges.py (which hold the int64
forms with Python scalars): every small integer dtype (int8/uint8/int16/int32) and bool with tensor operands;
integer division and remainder by a zero tensor element (floor_divide, div with each rounding_mode, %, fmod,
remainder, their in-place and out= forms), INT_MIN // -1 for the small dtypes, abs/neg of INT_MIN per dtype, shifts
by negative or >= bit-width tensor amounts, pow with negative integer exponents and wraparound, sum/prod/cumsum/
cumprod promotion and wraparound with dtype=, mean/var/std on integers (PyTorch's error types), gcd/lcm with zeros,
negatives and mixed dtypes, bitwise ops on floats and bools, clamp with float bounds on integer tensors, and
integer tensors with float scalars in place (`t += 0.5`). int32/int64 INT_MIN / -1 with rounding_mode="trunc" is
left out: PyTorch's CPU kernel dies with SIGFPE there."""
import operator

from . import T

MINS = {"int8": -128, "int16": -32768, "int32": -2**31, "int64": -2**63}
MAXS = {"int8": 127, "int16": 32767, "int32": 2**31 - 1, "int64": 2**63 - 1, "uint8": 255}


def I(L, d, values, dtype="int64"):
    return T(L, values, d, dtype)


def with_zero(L, d, dtype):
    return I(L, d, [7, -7, 0] if dtype != "uint8" else [7, 200, 0], dtype)


def zero_den(L, d, dtype):
    return I(L, d, [2, 0, 3], dtype)


def _iadd(t, v):
    t += v
    return t


def _imul(t, v):
    t *= v
    return t


def _ifloordiv(t, v):
    t //= v
    return t


def _imod(t, v):
    t %= v
    return t


def _itruediv(t, v):
    t /= v
    return t


def _ior(t, v):
    t |= v
    return t


def _ilshift(t, v):
    t <<= v
    return t


CASES = {}

# ---- division and remainder by a zero element, per dtype (a zero tensor element, not the Python scalar 0)
for _dt in ("int8", "uint8", "int16", "int32"):
    CASES.update({
        f"floor_divide/zero_elem_{_dt}": (lambda dt: lambda L, d: L.floor_divide(with_zero(L, d, dt),
                                                                                  zero_den(L, d, dt)))(_dt),
        f"div_floor/zero_elem_{_dt}": (lambda dt: lambda L, d: L.div(with_zero(L, d, dt), zero_den(L, d, dt),
                                                                     rounding_mode="floor"))(_dt),
        f"div_trunc/zero_elem_{_dt}": (lambda dt: lambda L, d: L.div(with_zero(L, d, dt), zero_den(L, d, dt),
                                                                     rounding_mode="trunc"))(_dt),
        f"div_true/zero_elem_{_dt}": (lambda dt: lambda L, d: L.div(with_zero(L, d, dt), zero_den(L, d, dt)))(_dt),
        f"remainder/zero_elem_{_dt}": (lambda dt: lambda L, d: with_zero(L, d, dt) % zero_den(L, d, dt))(_dt),
        f"fmod/zero_elem_{_dt}": (lambda dt: lambda L, d: L.fmod(with_zero(L, d, dt), zero_den(L, d, dt)))(_dt),
    })

CASES.update({
    # ---- zero divisors in other forms
    "floor_divide/scalar_zero_int8": lambda L, d: I(L, d, [3, -3], "int8") // 0,
    "floor_divide/zero_tensor_0dim": lambda L, d: I(L, d, [3, -3], "int32") // I(L, d, 0, "int32"),
    "floor_divide/rfloordiv_zero_elem": lambda L, d: 6 // I(L, d, [2, 0], "int16"),
    "floor_divide_/inplace_zero": lambda L, d: _ifloordiv(I(L, d, [3, 4]), I(L, d, [1, 0])),
    "remainder_/inplace_zero": lambda L, d: _imod(I(L, d, [3, 4], "int32"), I(L, d, [0, 2], "int32")),
    "fmod_/scalar_zero": lambda L, d: I(L, d, [3, 4], "int16").fmod_(0),
    "fmod/scalar_zero_int8": lambda L, d: I(L, d, [3, 4], "int8").fmod(0),
    "remainder/scalar_zero_uint8": lambda L, d: L.remainder(I(L, d, [3, 4], "uint8"), 0),
    "remainder/scalar_first_zero_elem": lambda L, d: L.remainder(5, I(L, d, [0, 2])),
    "div_floor/scalar_zero_int32": lambda L, d: L.div(I(L, d, [3], "int32"), 0, rounding_mode="floor"),
    "div_trunc/scalar_zero_int64": lambda L, d: L.div(I(L, d, [3]), 0, rounding_mode="trunc"),
    "div_floor/out_int_zero_elem": lambda L, d: L.div(I(L, d, [1, 2]), I(L, d, [0, 1]), rounding_mode="floor",
                                                      out=I(L, d, [0, 0])),
    "div_true/out_int_refused": lambda L, d: L.div(I(L, d, [1, 2]), I(L, d, [2, 1]), out=I(L, d, [0, 0])),
    "div_/true_int_inplace": lambda L, d: I(L, d, [1, 2]).div_(I(L, d, [2, 1])),
    "div_/floor_int_inplace": lambda L, d: I(L, d, [-7, 2], "int16").div_(2, rounding_mode="floor"),
    "itruediv/int_tensor": lambda L, d: _itruediv(I(L, d, [1, 2], "int32"), 2),
    "floor_divide/empty_zero": lambda L, d: I(L, d, [], "int32") // I(L, d, [], "int32"),
    "floor_divide/bool_zero": lambda L, d: I(L, d, [True, False], "bool") // I(L, d, [True, False], "bool"),
    "remainder/bool_zero": lambda L, d: L.remainder(I(L, d, [True, True], "bool"), I(L, d, [False, True], "bool")),
    # ---- INT_MIN // -1 for the small dtypes (int8/int16 compute in int and wrap)
    "floor_divide/int16_min_by_minus_one": lambda L, d: I(L, d, [MINS["int16"]], "int16") // I(L, d, [-1], "int16"),
    "div_floor/int8_min_by_minus_one_tensor": lambda L, d: L.div(I(L, d, [-128], "int8"), I(L, d, [-1], "int8"),
                                                                 rounding_mode="floor"),
    "div_trunc/int16_min_by_minus_one": lambda L, d: L.div(I(L, d, [MINS["int16"]], "int16"), -1,
                                                           rounding_mode="trunc"),
    "remainder/int16_min_by_minus_one": lambda L, d: I(L, d, [MINS["int16"]], "int16") % -1,
    "fmod/int8_min_by_minus_one": lambda L, d: L.fmod(I(L, d, [-128], "int8"), -1),
    "remainder/int32_min_by_minus_one": lambda L, d: L.remainder(I(L, d, [MINS["int32"]], "int32"), -1),
    "div_true/int64_min_by_minus_one": lambda L, d: L.div(I(L, d, [MINS["int64"]]), -1),
    # ---- abs / neg / sign of INT_MIN per dtype
    "abs/int16_min": lambda L, d: I(L, d, [MINS["int16"], 3], "int16").abs(),
    "abs/int32_min": lambda L, d: I(L, d, [MINS["int32"], -3], "int32").abs(),
    "neg/int16_min": lambda L, d: -I(L, d, [MINS["int16"]], "int16"),
    "neg/int32_min": lambda L, d: L.neg(I(L, d, [MINS["int32"]], "int32")),
    "neg_/int64_min_inplace": lambda L, d: I(L, d, [MINS["int64"], 1]).neg_(),
    "abs_/int8_min_inplace": lambda L, d: I(L, d, [-128, -1], "int8").abs_(),
    "neg/uint8": lambda L, d: -I(L, d, [0, 1, 255], "uint8"),
    "abs/uint8": lambda L, d: I(L, d, [0, 255], "uint8").abs(),
    "sign/int8_min": lambda L, d: I(L, d, [-128, 0, 127], "int8").sign(),
    "negative/bool": lambda L, d: L.negative(I(L, d, [True], "bool")),
    # ---- shifts by tensor amounts: negative, equal to and past the bit width
    "lshift/int8_by_8_tensor": lambda L, d: I(L, d, [1, 3], "int8") << I(L, d, [8, 7], "int8"),
    "lshift/int16_by_16": lambda L, d: I(L, d, [1, 3], "int16") << I(L, d, [16, 15], "int16"),
    "lshift/int32_by_32": lambda L, d: I(L, d, [1, 3], "int32") << I(L, d, [32, 31], "int32"),
    "lshift/int64_by_63_and_64": lambda L, d: I(L, d, [1, 1]) << I(L, d, [63, 64]),
    "rshift/int32_by_negative": lambda L, d: I(L, d, [8, -8], "int32") >> I(L, d, [-1, -1], "int32"),
    "rshift/int16_negative_by_16": lambda L, d: I(L, d, [-8, 8], "int16") >> I(L, d, [16, 16], "int16"),
    "rshift/uint8_by_9": lambda L, d: I(L, d, [255], "uint8") >> I(L, d, [9], "uint8"),
    "rshift/int64_min_by_63": lambda L, d: I(L, d, [MINS["int64"]]) >> 63,
    "lshift/uint8_into_int8_amount": lambda L, d: I(L, d, [1], "uint8") << I(L, d, [-1], "int8"),
    "lshift/bool": lambda L, d: I(L, d, [True], "bool") << I(L, d, [True], "bool"),
    "lshift/scalar_base_tensor_amount": lambda L, d: 1 << I(L, d, [0, 70], "int32"),
    "lshift_/inplace_int16": lambda L, d: _ilshift(I(L, d, [1, 2], "int16"), 20),
    "bitwise_left_shift/float_amount": lambda L, d: L.bitwise_left_shift(I(L, d, [1]), 1.5),
    "bitwise_right_shift/out_int8": lambda L, d: L.bitwise_right_shift(I(L, d, [256]), 1, out=I(L, d, [0], "int8")),
    # ---- pow: negative integer exponents, overflow, mixed dtypes
    "pow/int8_negative_tensor_exponent": lambda L, d: L.pow(I(L, d, [2, 1, -1], "int8"), I(L, d, [-1, -2, -3], "int8")),
    "pow/int32_zero_to_negative": lambda L, d: L.pow(I(L, d, [0], "int32"), I(L, d, [-1], "int32")),
    "pow/one_to_negative_scalar": lambda L, d: I(L, d, [1, -1], "int16") ** -2,
    "pow/uint8_exponent_tensor": lambda L, d: I(L, d, [2], "uint8") ** I(L, d, [9], "uint8"),
    "pow/int16_overflow": lambda L, d: I(L, d, [3], "int16") ** 11,
    "pow/int32_overflow_tensor": lambda L, d: L.pow(I(L, d, [7], "int32"), I(L, d, [20], "int32")),
    "pow/int_tensor_float_exponent": lambda L, d: I(L, d, [2, 3], "int16") ** 0.5,
    "pow/scalar_int_base_negative_tensor": lambda L, d: L.pow(2, I(L, d, [-1, 2], "int8")),
    "pow_/int_negative_scalar_inplace": lambda L, d: I(L, d, [2, 3]).pow_(-1),
    "pow_/int_float_inplace": lambda L, d: I(L, d, [2, 3], "int32").pow_(0.5),
    "pow/bool_negative_int": lambda L, d: I(L, d, [True, False], "bool") ** -1,
    "float_power/int_negative": lambda L, d: L.float_power(I(L, d, [2, 0], "int8"), -1),
    # ---- reductions: promotion, wraparound, dtype=
    "sum/uint8_promotes": lambda L, d: I(L, d, [200, 200], "uint8").sum(),
    "sum/int16_dtype_int8_wraps": lambda L, d: I(L, d, [100, 100], "int16").sum(dtype=L.int8),
    "sum/int32_dim_promotes": lambda L, d: I(L, d, [[2**30, 2**30]], "int32").sum(1),
    "sum/bool_dtype_bool": lambda L, d: I(L, d, [True, True], "bool").sum(dtype=L.bool),
    "prod/int8_promotes": lambda L, d: I(L, d, [100, 100], "int8").prod(),
    "prod/uint8_dtype_uint8": lambda L, d: I(L, d, [16, 17], "uint8").prod(dtype=L.uint8),
    "prod/int64_wraps": lambda L, d: I(L, d, [2**32, 2**32]).prod(),
    "prod/bool": lambda L, d: I(L, d, [True, False], "bool").prod(),
    "cumsum/uint8_promotes": lambda L, d: I(L, d, [200, 200], "uint8").cumsum(0),
    "cumsum/int32_dtype_int16": lambda L, d: I(L, d, [30000, 30000], "int32").cumsum(0, dtype=L.int16),
    "cumprod/int8_promotes": lambda L, d: I(L, d, [100, 100, 100], "int8").cumprod(0),
    "cumprod/int64_wraps": lambda L, d: I(L, d, [2**40, 2**40]).cumprod(0),
    "cumprod/bool": lambda L, d: I(L, d, [True, True, False], "bool").cumprod(0),
    "cumsum_/int8_inplace_stays": lambda L, d: I(L, d, [100, 100], "int8").cumsum_(0),
    "mean/int32": lambda L, d: I(L, d, [1, 2], "int32").mean(),
    "mean/uint8_dim": lambda L, d: I(L, d, [[1, 2]], "uint8").mean(1),
    "mean/bool": lambda L, d: I(L, d, [True, False], "bool").mean(),
    "mean/int_dtype_float": lambda L, d: I(L, d, [1, 2]).mean(dtype=L.float32),
    "var/int": lambda L, d: I(L, d, [1, 2, 4]).var(),
    "std/int16_dim": lambda L, d: I(L, d, [[1, 2]], "int16").std(1),
    "var_mean/int": lambda L, d: L.var_mean(I(L, d, [1, 2, 4])),
    "nanmean/int": lambda L, d: I(L, d, [1, 2]).nanmean(),
    "median/int8": lambda L, d: I(L, d, [-128, 5, 127], "int8").median(),
    "quantile/int": lambda L, d: L.quantile(I(L, d, [1, 2, 3]), 0.5),
    "logsumexp/int": lambda L, d: L.logsumexp(I(L, d, [1, 2]), 0),
    "norm/int": lambda L, d: I(L, d, [3, 4]).norm(),
    "sum/int_dtype_float16": lambda L, d: I(L, d, [1, 2]).sum(dtype=L.float16),
    "amax/uint8": lambda L, d: I(L, d, [0, 255], "uint8").amax(),
    # ---- gcd / lcm
    "gcd/zeros": lambda L, d: L.gcd(I(L, d, [0, 0, 6]), I(L, d, [0, 4, 0])),
    "gcd/negatives": lambda L, d: L.gcd(I(L, d, [-12, 12, -12]), I(L, d, [18, -18, -18])),
    "gcd/int8_min": lambda L, d: L.gcd(I(L, d, [-128], "int8"), I(L, d, [0], "int8")),
    "gcd/mixed_dtypes": lambda L, d: L.gcd(I(L, d, [12], "int8"), I(L, d, [18], "int32")),
    "gcd/uint8": lambda L, d: L.gcd(I(L, d, [200, 255], "uint8"), I(L, d, [150, 51], "uint8")),
    "gcd/float": lambda L, d: L.gcd(T(L, [12.0], d), T(L, [18.0], d)),
    "gcd/bool": lambda L, d: L.gcd(I(L, d, [True], "bool"), I(L, d, [True], "bool")),
    "gcd/scalar": lambda L, d: L.gcd(I(L, d, [12]), 18),
    "gcd_/inplace_int16": lambda L, d: I(L, d, [12, 9], "int16").gcd_(I(L, d, [18, 6], "int16")),
    "lcm/zero": lambda L, d: L.lcm(I(L, d, [0, 4]), I(L, d, [6, 0])),
    "lcm/negatives": lambda L, d: L.lcm(I(L, d, [-4, 4]), I(L, d, [6, -6])),
    "lcm/int8_overflow": lambda L, d: L.lcm(I(L, d, [100], "int8"), I(L, d, [99], "int8")),
    "lcm/float": lambda L, d: L.lcm(T(L, [4.0], d), T(L, [6.0], d)),
    "lcm/broadcast": lambda L, d: L.lcm(I(L, d, [[2], [3]]), I(L, d, [4, 5])),
    # ---- bitwise ops on floats, bools and mixed
    "bitwise_or/float_tensors": lambda L, d: L.bitwise_or(T(L, [1.0], d), T(L, [2.0], d)),
    "bitwise_xor/float_scalar": lambda L, d: L.bitwise_xor(I(L, d, [1]), 1.0),
    "bitwise_and/bool_bool": lambda L, d: I(L, d, [True, False], "bool") & I(L, d, [True, True], "bool"),
    "bitwise_or/bool_true_scalar": lambda L, d: I(L, d, [False], "bool") | True,
    "bitwise_and/bool_int8": lambda L, d: I(L, d, [True], "bool") & I(L, d, [3], "int8"),
    "bitwise_xor/uint8_int8": lambda L, d: I(L, d, [255], "uint8") ^ I(L, d, [-1], "int8"),
    "bitwise_not/int8_min": lambda L, d: ~I(L, d, [-128, 0], "int8"),
    "bitwise_not/complex": lambda L, d: ~T(L, [1 + 1j], d),
    "bitwise_or_/int_float_inplace": lambda L, d: _ior(I(L, d, [1]), T(L, [2.0], d)),
    "bitwise_and_/bool_int_inplace": lambda L, d: I(L, d, [True], "bool").bitwise_and_(I(L, d, [2])),
    "bitwise_xor/float16": lambda L, d: L.bitwise_xor(T(L, [1.0], d, "float16"), T(L, [1.0], d, "float16")),
    # ---- clamp with float or past-range bounds on integer tensors
    "clamp/int8_float_bounds": lambda L, d: I(L, d, [-5, 0, 5], "int8").clamp(-1.5, 2.5),
    "clamp/uint8_float_min": lambda L, d: I(L, d, [0, 10], "uint8").clamp(min=0.5),
    "clamp/int16_tensor_float_bound": lambda L, d: I(L, d, [1, 9], "int16").clamp(max=T(L, [4.5], d)),
    "clamp_/int_float_inplace_refused": lambda L, d: I(L, d, [1, 9], "int32").clamp_(0.5, 3.5),
    "clamp/int8_past_range_bounds": lambda L, d: I(L, d, [-5, 5], "int8").clamp(-1000, 1000),
    "clamp/bool_int_bounds": lambda L, d: I(L, d, [True, False], "bool").clamp(0, 1),
    "clamp_min/int_float": lambda L, d: I(L, d, [1, 5]).clamp_min(2.5),
    "clamp_max_/int_float_inplace": lambda L, d: I(L, d, [1, 5]).clamp_max_(2.5),
    "clip/int_tensor_bounds_other_dtype": lambda L, d: I(L, d, [1, 5], "int16").clip(I(L, d, [2]), I(L, d, [3])),
    # ---- integer tensors with float scalars in place
    "iadd/int_float_scalar": lambda L, d: _iadd(I(L, d, [1, 2]), 0.5),
    "iadd/uint8_float_scalar": lambda L, d: _iadd(I(L, d, [1, 2], "uint8"), 1.0),
    "imul/int8_float_scalar": lambda L, d: _imul(I(L, d, [1, 2], "int8"), 2.0),
    "iadd/bool_int_scalar": lambda L, d: _iadd(I(L, d, [True], "bool"), 1),
    "iadd/int_bool_scalar": lambda L, d: _iadd(I(L, d, [1], "int16"), True),
    "iadd/int_complex_scalar": lambda L, d: _iadd(I(L, d, [1]), 1j),
    "imod/int_float_scalar": lambda L, d: _imod(I(L, d, [5], "int32"), 2.5),
    "ifloordiv/int_float_scalar": lambda L, d: _ifloordiv(I(L, d, [5]), 2.0),
    "sub_/int_float_alpha": lambda L, d: I(L, d, [5]).sub_(I(L, d, [1]), alpha=0.5),
    "add/int_alpha_float": lambda L, d: L.add(I(L, d, [5], "int8"), I(L, d, [1], "int8"), alpha=1.5),
    "mul_/int_float_0dim_tensor": lambda L, d: I(L, d, [5], "int32").mul_(T(L, 2.0, d)),
    "add_/uint8_int8_tensor_inplace": lambda L, d: I(L, d, [5], "uint8").add_(I(L, d, [-1], "int8")),
    "iadd/int8_int64_tensor_inplace": lambda L, d: _iadd(I(L, d, [5], "int8"), I(L, d, [300])),
    # ---- comparisons and conversions at the edges
    "eq/int64_max_vs_float": lambda L, d: I(L, d, [MAXS["int64"]]) == float(2**63),
    "lt/uint8_vs_int8": lambda L, d: I(L, d, [255], "uint8") < I(L, d, [-1], "int8"),
    "to/int32_from_int64_max": lambda L, d: I(L, d, [MAXS["int64"]]).to(L.int32),
    "to/uint8_from_negative": lambda L, d: I(L, d, [-1, 256]).to(L.uint8),
    "to/bool_from_int": lambda L, d: I(L, d, [0, 2, -1], "int8").to(L.bool),
    "item/uint8": lambda L, d: I(L, d, [255], "uint8").item(),
    "bincount/negative": lambda L, d: L.bincount(I(L, d, [1, -1])),
    "bincount/int8": lambda L, d: L.bincount(I(L, d, [1, 3], "int8")),
    "bincount/uint8_weights_int": lambda L, d: L.bincount(I(L, d, [1, 3], "uint8"), weights=I(L, d, [2, 5])),
    "operator/floordiv_int_tensors_neg": lambda L, d: operator.floordiv(I(L, d, [-7, 7], "int8"),
                                                                        I(L, d, [2, -2], "int8")),
})

KNOWN = {
}
