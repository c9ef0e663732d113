"""Python scalars at the edges of tensor dtypes: numbers past a small integer dtype's range as operands and fills
(uint8 + 300, int8 * -129), int64 overflow in arange/full/linspace ends and steps, NaN and inf as integer fills
and bounds, bools in arithmetic, and sizes past what can be allocated (empty(2**62), ones(-1), products that
overflow). binary_promotion.py covers the promotion rules themselves; these are the values at the edges."""
from . import T

I64_MAX = 2**63 - 1
I64_MIN = -2**63


def u8(L, d, values=(1, 200, 255)):
    return T(L, list(values), d, "uint8")


def i8(L, d, values=(1, -100, 127)):
    return T(L, list(values), d, "int8")


def i64(L, d, values=(1, -5, 7)):
    return T(L, list(values), d, "int64")


def b(L, d):
    return T(L, [True, False, True], d)


CASES = {
    # ---- small integer dtypes and Python ints past their range
    "uint8/add_300": lambda L, d: u8(L, d) + 300,
    "uint8/add_256": lambda L, d: u8(L, d) + 256,
    "uint8/sub_1_wraps": lambda L, d: u8(L, d, (0, 1)) - 1,
    "uint8/mul_minus_1": lambda L, d: u8(L, d) * -1,
    "uint8/iadd_300": lambda L, d: u8(L, d).add_(300),
    "uint8/rsub_1000": lambda L, d: 1000 - u8(L, d),
    "uint8/div_300": lambda L, d: u8(L, d) / 300,
    "uint8/floordiv_minus_1": lambda L, d: u8(L, d) // -1,
    "uint8/eq_256": lambda L, d: u8(L, d, (0, 255)) == 256,
    "uint8/lt_minus_1": lambda L, d: u8(L, d) < -1,
    "int8/mul_minus_129": lambda L, d: i8(L, d) * -129,
    "int8/add_128": lambda L, d: i8(L, d) + 128,
    "int8/imul_1000": lambda L, d: i8(L, d).mul_(1000),
    "int8/neg_min": lambda L, d: -T(L, [-128], d, "int8"),
    "int8/abs_min": lambda L, d: T(L, [-128, 5], d, "int8").abs(),
    "int8/pow_2": lambda L, d: i8(L, d) ** 2,
    "int16/add_2_pow_16": lambda L, d: T(L, [1, 2], d, "int16") + 2**16,
    "int32/add_2_pow_32": lambda L, d: T(L, [1, 2], d, "int32") + 2**32,
    "int32/mul_2_pow_31": lambda L, d: T(L, [1, 2], d, "int32") * 2**31,
    "int64/add_max": lambda L, d: i64(L, d) + I64_MAX,
    "int64/add_past_max": lambda L, d: i64(L, d) + 2**63,
    "int64/sub_min": lambda L, d: i64(L, d) - I64_MIN,
    "int64/mul_huge_float": lambda L, d: i64(L, d) * 1e300,
    "int64/iadd_float": lambda L, d: i64(L, d).add_(0.5),
    "int64/floordiv_zero_scalar": lambda L, d: i64(L, d) // 0,
    "int64/remainder_zero_scalar": lambda L, d: i64(L, d) % 0,
    "int64/div_zero_scalar": lambda L, d: i64(L, d) / 0,
    "int64/pow_negative_scalar": lambda L, d: i64(L, d) ** -1,
    "int64/pow_huge": lambda L, d: i64(L, d, (2, 3)) ** 70,
    "int64/shift_64": lambda L, d: i64(L, d) << 64,
    "int64/shift_negative": lambda L, d: i64(L, d) >> -1,
    "float16/add_1e5": lambda L, d: T(L, [1.0, 2.0], d, "float16") + 1e5,
    "float16/mul_1e-8": lambda L, d: T(L, [1.0, 2.0], d, "float16") * 1e-8,
    "bfloat16/add_huge": lambda L, d: T(L, [1.0], d, "bfloat16") + 1e39,
    "float32/add_1e39": lambda L, d: T(L, [1.0], d, "float32") + 1e39,
    # ---- NaN and inf into integers
    "fill_/nan_into_int64": lambda L, d: i64(L, d).fill_(float("nan")),
    "fill_/inf_into_int32": lambda L, d: T(L, [1], d, "int32").fill_(float("inf")),
    "fill_/300_into_uint8": lambda L, d: u8(L, d).fill_(300),
    "fill_/minus_1_into_uint8": lambda L, d: u8(L, d).fill_(-1),
    "fill_/float_into_bool": lambda L, d: b(L, d).fill_(0.5),
    "full/nan_int32": lambda L, d: L.full((2,), float("nan"), dtype=L.int32, device=d),
    "full/300_uint8": lambda L, d: L.full((2,), 300, dtype=L.uint8, device=d),
    "full/past_int64": lambda L, d: L.full((2,), 2**63, device=d),
    "full/min_int64": lambda L, d: L.full((2,), I64_MIN, device=d),
    "full/inf_inferred": lambda L, d: L.full((2,), float("inf"), device=d),
    "masked_fill/nan_int": lambda L, d: i64(L, d).masked_fill(b(L, d), float("nan")),
    "masked_fill/300_uint8": lambda L, d: u8(L, d).masked_fill(b(L, d), 300),
    "index_fill/nan_int": lambda L, d: i64(L, d).index_fill(0, T(L, [0], d), float("nan")),
    "clamp/nan_bound_int": lambda L, d: i64(L, d).clamp(min=float("nan")),
    "clamp/inf_bound_int": lambda L, d: i64(L, d).clamp(max=float("inf")),
    "clamp/uint8_300": lambda L, d: u8(L, d).clamp(max=300),
    "where/nan_into_int": lambda L, d: L.where(b(L, d), i64(L, d), float("nan")),
    "setitem/nan_into_int": lambda L, d: (lambda t: (t.__setitem__(0, float("nan")), t)[1])(i64(L, d)),
    "setitem/300_into_uint8": lambda L, d: (lambda t: (t.__setitem__(0, 300), t)[1])(u8(L, d)),
    "setitem/past_int64": lambda L, d: (lambda t: (t.__setitem__(0, 2**64), t)[1])(i64(L, d)),
    # ---- arange / linspace / range at int64's edge
    "arange/near_max": lambda L, d: L.arange(I64_MAX - 3, I64_MAX, device=d),
    "arange/near_min": lambda L, d: L.arange(I64_MIN, I64_MIN + 3, device=d),
    "arange/step_past_int64": lambda L, d: L.arange(0, 10, 2**63, device=d),
    "arange/step_huge_negative": lambda L, d: L.arange(0, -10, I64_MIN, device=d),
    "arange/span_overflows": lambda L, d: L.arange(I64_MIN, I64_MAX, 2**62, device=d),
    "arange/uint8_past_range": lambda L, d: L.arange(250, 260, dtype=L.uint8, device=d),
    "arange/int8_negative": lambda L, d: L.arange(-130, -126, dtype=L.int8, device=d),
    "arange/float_end_int64_huge": lambda L, d: L.arange(0, 1e20, 1e19, dtype=L.int64, device=d),
    "linspace/int64_extremes": lambda L, d: L.linspace(I64_MIN, I64_MAX, 3, dtype=L.int64, device=d),
    "linspace/past_int64": lambda L, d: L.linspace(0, 2**64, 3, device=d),
    "linspace/uint8_range": lambda L, d: L.linspace(0, 300, 4, dtype=L.uint8, device=d),
    "linspace/steps_float": lambda L, d: L.linspace(0, 1, 3.0, device=d),
    "linspace/steps_bool": lambda L, d: L.linspace(0, 1, True, device=d),
    "logspace/int_overflow": lambda L, d: L.logspace(0, 30, 3, dtype=L.int64, device=d),
    # ---- bools in arithmetic
    "bool/add_true": lambda L, d: b(L, d) + True,
    "bool/add_int": lambda L, d: b(L, d) + 2,
    "bool/mul_float": lambda L, d: b(L, d) * 1.5,
    "bool/sub_tensor": lambda L, d: b(L, d) - b(L, d),
    "bool/neg": lambda L, d: -b(L, d),
    "bool/div": lambda L, d: b(L, d) / b(L, d),
    "bool/floordiv": lambda L, d: b(L, d) // True,
    "bool/pow_bool": lambda L, d: b(L, d) ** True,
    "bool/sum": lambda L, d: b(L, d).sum(),
    "bool/mean": lambda L, d: b(L, d).mean(),
    "bool/cumsum": lambda L, d: b(L, d).cumsum(0),
    "bool/prod": lambda L, d: b(L, d).prod(),
    "bool/iadd_int": lambda L, d: b(L, d).add_(2),
    "bool/imul_true": lambda L, d: b(L, d).mul_(True),
    "bool/abs": lambda L, d: b(L, d).abs(),
    "bool/xor_int": lambda L, d: b(L, d) ^ 1,
    "bool/and_int_tensor": lambda L, d: b(L, d) & i64(L, d),
    "bool/scalar_tensor_ops": lambda L, d: True + T(L, [1.5], d),
    # ---- sizes past what can be allocated
    "empty/2_pow_62": lambda L, d: L.empty(2**62, device=d),
    "empty/2_pow_63": lambda L, d: L.empty(2**63, device=d),
    "empty/2_pow_31_squared": lambda L, d: L.empty(2**31, 2**31, 2**31, device=d),
    "empty/product_overflows": lambda L, d: L.empty(2**40, 2**40, device=d),
    "ones/minus_1": lambda L, d: L.ones(-1, device=d),
    "ones/minus_1_second": lambda L, d: L.ones(2, -1, device=d),
    "zeros/zero_and_huge": lambda L, d: L.zeros(0, 2**62, device=d).shape,
    "full/minus_2": lambda L, d: L.full((-2,), 1.0, device=d),
    "rand/2_pow_62": lambda L, d: L.rand(2**62, device=d),
    "randn/negative": lambda L, d: L.randn(3, -3, device=d),
    "empty/float_size": lambda L, d: L.empty(2.0, device=d),
    "empty/bool_size": lambda L, d: L.empty(True, device=d),
    "new_empty/huge": lambda L, d: i64(L, d).new_empty(2**62),
    "expand/huge": lambda L, d: T(L, [1.0], d).expand(2**62).shape,
    "expand/huge_element": lambda L, d: T(L, [1.0], d).expand(2**40)[2**39 + 5],
    "repeat/huge": lambda L, d: T(L, [1.0], d).repeat(2**62),
    "view/huge": lambda L, d: T(L, [1.0], d).view(2**62),
    "reshape/negative_two": lambda L, d: T(L, [1.0, 2.0], d).reshape(-2),
    "arange/too_many": lambda L, d: L.arange(0, 2**62, device=d),
    "eye/huge": lambda L, d: L.eye(2**32, device=d),
    "tril_indices/huge": lambda L, d: L.tril_indices(2**32, 2**32, device=d),
}

_ALLOC = ("PyTorch's message is its CPU allocator's internal enforce ('[enforce fail at alloc_cpu.cpp:127] err == "
          "0'); tandem's names the bytes it asked for (the same RuntimeError, an OutOfMemoryError)")
_PYTORCH_SIZE_OVERFLOW = ("PyTorch's arange computes its length in floating point and gets 0 for a step or span "
                          "near int64's limits (an empty result); tandem's length is exact")
KNOWN = {
    "arange/span_overflows": _PYTORCH_SIZE_OVERFLOW,
    "arange/step_huge_negative": _PYTORCH_SIZE_OVERFLOW,
    "empty/2_pow_63": "needs C++ fix: the size binding's message for an int past int64 is nanobind's conversion "
                      "text (PyTorch: 'failed to unpack the object at pos 1 with error \"Overflow when unpacking "
                      "long long\"'); the exception type matches",
    "eye/huge": "needs C++ fix: eye's overflow says 'Storage size calculation overflowed' where PyTorch's says "
                "'numel: integer multiplication overflow' (the type matches)",
    "int64/add_past_max": "deliberate (docs/dtypes.md, uint64 and Python ints): a Python int from 2**63 up is refused for an int64 tensor "
                          "with a hint; PyTorch wraps it around to a negative value silently",
    "tril_indices/huge": _ALLOC,
}
