"""float16 and bfloat16 at their edges, beyond dtypes.py's casts and scans_sorting.py's float16 sorts: overflow to
inf in casts, arithmetic and factories (65504 and past it, 3.39e38 in bfloat16), rounding to nearest-even at the
ends of the mantissa, subnormals (kept, not flushed), nan and inf in max/min/sort/argmax/unique/topk/clamp/
maximum/fmax/nan_to_num, casts of in-range 16-bit values to the integer dtypes, the accumulation dtype of sum/mean/
cumsum/prod/norm/var over many 16-bit values (float32 inside, 16-bit result), round/floor_divide/remainder/fmod/
div with rounding modes in 16-bit, comparisons and arithmetic across float16 and bfloat16 (promotion to float32),
with Python scalars and with integer tensors, and item()/tolist()/repr()/str() of 16-bit values."""
import math

from . import T

INF, NAN = math.inf, math.nan


def H(L, d, values, dtype="float16"):
    return T(L, values, d, dtype)


def B(L, d, values):
    return T(L, values, d, "bfloat16")


def ramp(L, d, n, dtype="float16", step=0.01):
    """n values step, 2*step, ... in dtype (made in float64, rounded once)."""
    return (L.arange(1, n + 1, dtype=L.float64, device=d) * step).to(getattr(L, dtype))


CASES = {
    # ---- overflow to inf, in casts and arithmetic
    "cast/float32_65504_ok": lambda L, d: T(L, [65504.0, -65504.0], d).half(),
    "cast/float32_65519_rounds_down": lambda L, d: T(L, [65519.0], d).half(),
    "cast/float32_65520_to_inf": lambda L, d: T(L, [65520.0, -65520.0], d).half(),
    "cast/float64_1e5_to_inf": lambda L, d: T(L, [1e5, -1e300], d, "float64").half(),
    "cast/float32_max_to_bfloat16": lambda L, d: T(L, [3.3895313892515355e38], d).bfloat16(),
    "cast/float32_max_rounds_to_inf_bf16": lambda L, d: T(L, [3.4028234663852886e38], d).bfloat16(),
    "cast/float64_1e39_to_bfloat16": lambda L, d: T(L, [1e39, -1e39], d, "float64").bfloat16(),
    "cast/bfloat16_big_to_half_inf": lambda L, d: B(L, d, [1e6, -1e30]).half(),
    "cast/int_70000_to_half": lambda L, d: T(L, [70000, -70000], d).half(),
    "cast/int64_big_to_bfloat16": lambda L, d: T(L, [2**62, 257], d).bfloat16(),
    "add/half_overflow": lambda L, d: H(L, d, [60000.0]) + H(L, d, [10000.0]),
    "mul/half_overflow_neg": lambda L, d: H(L, d, [300.0]) * H(L, d, [-300.0]),
    "mul/bfloat16_overflow": lambda L, d: B(L, d, [1e38]) * B(L, d, [10.0]),
    "add/half_python_scalar_overflow": lambda L, d: H(L, d, [1.0]) + 1e5,
    "mul/half_scalar_1e10": lambda L, d: H(L, d, [0.0, 1.0]) * 1e10,
    "exp/half_overflow": lambda L, d: H(L, d, [11.0, 12.0]).exp(),
    "exp/bfloat16_overflow": lambda L, d: B(L, d, [88.0, 89.0]).exp(),
    "pow/half_overflow": lambda L, d: H(L, d, [2.0]).pow(16),
    "square/half_overflow": lambda L, d: H(L, d, [256.0, 255.0]).square(),
    "full/half_inf_value": lambda L, d: L.full((2,), 1e6, dtype=L.float16, device=d),
    "tensor/half_from_big_list": lambda L, d: L.tensor([1e6, 65504.0], dtype=L.float16, device=d),
    "arange/half_big_step": lambda L, d: L.arange(0, 65000, 16384, dtype=L.float16, device=d),
    "linspace/bfloat16_big": lambda L, d: L.linspace(0, 3e38, 4, dtype=L.bfloat16, device=d),
    "fill_/half_too_big": lambda L, d: L.zeros(2, dtype=L.float16, device=d).fill_(1e6),
    "setitem/half_one_element_too_big": lambda L, d: (lambda t: (t.__setitem__(0, 1e6), t)[1])(
        L.zeros(2, dtype=L.float16, device=d)),
    "setitem/half_row_too_big": lambda L, d: (lambda t: (t.__setitem__(0, 1e6), t)[1])(
        L.zeros(2, 2, dtype=L.float16, device=d)),
    "fill_/half_one_element_too_big": lambda L, d: L.zeros(1, dtype=L.float16, device=d).fill_(1e6),
    "fill_/int8_one_element_too_big": lambda L, d: L.zeros(1, dtype=L.int8, device=d).fill_(1000),

    # ---- rounding and subnormals
    "cast/half_round_to_even": lambda L, d: T(L, [2049.0, 2051.0, 1.0 + 2**-11, 1.0 + 3 * 2**-11], d).half(),
    "cast/bfloat16_round_to_even": lambda L, d: T(L, [257.0, 259.0, 1.0 + 2**-8, 1.0 + 3 * 2**-8], d).bfloat16(),
    "cast/half_subnormal_kept": lambda L, d: T(L, [6e-8, 1e-7, 6.1e-5], d).half(),
    "cast/half_underflow_to_zero": lambda L, d: T(L, [2e-8, -2e-8], d).half(),
    "cast/half_negative_zero": lambda L, d: T(L, [-1e-9], d).half().signbit(),
    "cast/bfloat16_subnormal": lambda L, d: T(L, [1e-39, 1e-45], d).bfloat16(),
    "mul/half_subnormal_result": lambda L, d: H(L, d, [1e-4]) * H(L, d, [1e-3]),
    "div/half_subnormal_divide": lambda L, d: H(L, d, [6.1e-5]) / 1024,
    "sqrt/half_subnormal": lambda L, d: H(L, d, [6e-8, 1e-6]).sqrt(),
    "reciprocal/half_subnormal_to_inf": lambda L, d: H(L, d, [6e-8]).reciprocal(),
    "frexp/half": lambda L, d: H(L, d, [6e-8, 1.5, 65504.0]).frexp(),
    "nextafter/half_unsupported": lambda L, d: L.nextafter(H(L, d, [1.0]), H(L, d, [2.0])),
    "nextafter/bfloat16": lambda L, d: L.nextafter(B(L, d, [1.0]), B(L, d, [2.0])),
    "finfo/half_tiny_vs_subnormal": lambda L, d: (L.finfo(L.float16).tiny, L.finfo(L.float16).smallest_normal,
                                                  L.finfo(L.bfloat16).eps),

    # ---- nan and inf through comparisons and selections
    "max/half_nan": lambda L, d: H(L, d, [1.0, NAN, 3.0]).max(),
    "min/bfloat16_nan_dim": lambda L, d: B(L, d, [[1.0, NAN], [2.0, -INF]]).min(1),
    "argmax/half_nan": lambda L, d: H(L, d, [1.0, NAN, INF]).argmax(),
    "argmin/bfloat16_inf": lambda L, d: B(L, d, [1.0, -INF, -INF]).argmin(),
    "amax/half_inf": lambda L, d: H(L, d, [[INF, 1.0], [-INF, NAN]]).amax(1),
    "sort/bfloat16_nan_inf_descending": lambda L, d: B(L, d, [1.0, NAN, -INF, INF, 0.0]).sort(descending=True),
    "sort/half_negative_zero_stable": lambda L, d: H(L, d, [0.0, -0.0, 0.0]).sort(stable=True)[1],
    "topk/half_nan": lambda L, d: H(L, d, [1.0, NAN, 3.0, INF]).topk(2),
    "topk/bfloat16_smallest_inf": lambda L, d: B(L, d, [1.0, -INF, 3.0]).topk(1, largest=False),
    "unique/half_nan": lambda L, d: L.unique(H(L, d, [NAN, 1.0, NAN, 1.0])).shape,
    "unique/half_inf_counts": lambda L, d: L.unique(H(L, d, [INF, -INF, INF, 0.0]), return_counts=True),
    "unique/bfloat16_rounding_merges": lambda L, d: L.unique(T(L, [1.0, 1.001, 1.002], d).bfloat16()),
    "clamp/half_nan_kept": lambda L, d: H(L, d, [NAN, 5.0, -5.0]).clamp(-1, 1),
    "clamp/half_bound_out_of_range": lambda L, d: H(L, d, [1.0, 70000.0 / 2]).clamp(max=1e6),
    "clamp/half_min_nan_bound": lambda L, d: H(L, d, [1.0, 2.0]).clamp(min=NAN),
    "clamp/bfloat16_tensor_bounds": lambda L, d: B(L, d, [1.0, 5.0]).clamp(B(L, d, [2.0, NAN]), B(L, d, [3.0, 3.0])),
    "maximum/half_nan": lambda L, d: L.maximum(H(L, d, [NAN, 1.0]), H(L, d, [1.0, NAN])),
    "fmax/half_nan": lambda L, d: L.fmax(H(L, d, [NAN, 1.0, NAN]), H(L, d, [1.0, NAN, NAN])),
    "fmin/bfloat16_inf": lambda L, d: L.fmin(B(L, d, [INF, NAN]), B(L, d, [-INF, -INF])),
    "maximum/half_bfloat16_mixed": lambda L, d: L.maximum(H(L, d, [1.0, 2.0]), B(L, d, [3.0, 0.5])),
    "nan_to_num/half_defaults": lambda L, d: H(L, d, [NAN, INF, -INF]).nan_to_num(),
    "nan_to_num/bfloat16_defaults": lambda L, d: B(L, d, [NAN, INF, -INF]).nan_to_num(),
    "nan_to_num/half_posinf_too_big": lambda L, d: H(L, d, [INF]).nan_to_num(posinf=1e6),
    "isfinite/half": lambda L, d: H(L, d, [65504.0, INF, NAN, 6e-8]).isfinite(),
    "isinf/bfloat16_overflowed": lambda L, d: (B(L, d, [3e38]) * 2).isinf(),
    "eq/half_nan": lambda L, d: H(L, d, [NAN]) == H(L, d, [NAN]),
    "isclose/half_nan_equal": lambda L, d: L.isclose(H(L, d, [NAN, 1.0]), H(L, d, [NAN, 1.001]), equal_nan=True),
    "allclose/bfloat16_default_tol": lambda L, d: L.allclose(B(L, d, [1.0]), B(L, d, [1.0078125])),

    # ---- 16-bit values into integer dtypes (in range only: out-of-range casts are undefined in PyTorch)
    "cast/half_to_int8_truncates": lambda L, d: H(L, d, [1.9, -1.9, 127.0, -128.0]).to(L.int8),
    "cast/half_to_uint8": lambda L, d: H(L, d, [0.5, 255.0, 254.9]).to(L.uint8),
    "cast/bfloat16_to_int64_big": lambda L, d: B(L, d, [2.0**40, -2.0**40]).long(),
    "cast/half_to_bool": lambda L, d: H(L, d, [0.0, -0.0, 6e-8, NAN]).bool(),
    "cast/half_to_int32_max": lambda L, d: H(L, d, [65504.0, -65504.0]).int(),
    "item/half_to_int_python": lambda L, d: int(H(L, d, [65504.0]).item()),
    "int/half_nan": lambda L, d: int(H(L, d, [NAN])),
    "int/bfloat16_inf": lambda L, d: int(B(L, d, [INF])),

    # ---- accumulation dtype of reductions over many 16-bit values
    "sum/half_many": lambda L, d: ramp(L, d, 4096).sum(),
    "sum/half_many_overflows_at_the_end": lambda L, d: L.full((3000,), 30.0, dtype=L.float16, device=d).sum(),
    "sum/bfloat16_many": lambda L, d: L.ones(10000, dtype=L.bfloat16, device=d).sum(),
    "sum/half_dtype_float32": lambda L, d: L.full((3000,), 30.0, dtype=L.float16, device=d).sum(dtype=L.float32),
    "mean/half_large_values": lambda L, d: L.full((100,), 60000.0, dtype=L.float16, device=d).mean(),
    "mean/bfloat16_many": lambda L, d: ramp(L, d, 4096, "bfloat16").mean(),
    "cumsum/half_long": lambda L, d: L.ones(5000, dtype=L.float16, device=d).cumsum(0)[-4:],
    "cumsum/bfloat16_long": lambda L, d: L.ones(600, dtype=L.bfloat16, device=d).cumsum(0)[250:260],
    "prod/half_overflow": lambda L, d: L.full((20,), 2.0, dtype=L.float16, device=d).prod(),
    "norm/half_overflowing_squares": lambda L, d: H(L, d, [300.0, 400.0]).norm(),
    "var/half_large": lambda L, d: H(L, d, [60000.0, -60000.0, 0.0]).var(),
    "std/bfloat16": lambda L, d: ramp(L, d, 100, "bfloat16", 1.0).std(),
    "logsumexp/half_big": lambda L, d: H(L, d, [60000.0, 60000.0]).logsumexp(0),
    "softmax/half_big": lambda L, d: H(L, d, [60000.0, 0.0, -60000.0]).softmax(0),
    "dot/half_overflow": lambda L, d: L.dot(H(L, d, [300.0, 300.0]), H(L, d, [300.0, 300.0])),
    "matmul/bfloat16_accumulate": lambda L, d: L.ones(1, 512, dtype=L.bfloat16, device=d) @ L.ones(
        512, 1, dtype=L.bfloat16, device=d),
    "mean/half_dim_dtype": lambda L, d: ramp(L, d, 12).reshape(3, 4).mean(1, dtype=L.float64),

    # ---- rounding ops and division in 16-bit
    "round/half_ties_even": lambda L, d: H(L, d, [0.5, 1.5, 2.5, -0.5, -2.5]).round(),
    "round/half_decimals": lambda L, d: H(L, d, [1.2345, 65504.0]).round(decimals=2),
    "round/half_decimals_overflow": lambda L, d: H(L, d, [1000.0]).round(decimals=3),
    "round/bfloat16_negative_decimals": lambda L, d: B(L, d, [1234.0, 55.0]).round(decimals=-2),
    "floor_divide/half": lambda L, d: L.floor_divide(H(L, d, [7.0, -7.0, 7.0]), H(L, d, [2.0, 2.0, 0.0])),
    "floor_divide/bfloat16_by_zero": lambda L, d: L.floor_divide(B(L, d, [1.0, -1.0, 0.0]), 0.0),
    "remainder/half": lambda L, d: L.remainder(H(L, d, [7.5, -7.5]), H(L, d, [2.0, 2.0])),
    "remainder/half_by_zero": lambda L, d: L.remainder(H(L, d, [1.0]), H(L, d, [0.0])),
    "fmod/bfloat16_negative": lambda L, d: L.fmod(B(L, d, [-7.5, 7.5]), -2.0),
    "div/half_trunc": lambda L, d: L.div(H(L, d, [7.0, -7.0]), 2, rounding_mode="trunc"),
    "div/bfloat16_floor_inf": lambda L, d: L.div(B(L, d, [INF, -1.0]), B(L, d, [2.0, 0.0]), rounding_mode="floor"),
    "trunc/half_big": lambda L, d: H(L, d, [65504.0, -1.5, NAN]).trunc(),
    "ceil/bfloat16": lambda L, d: B(L, d, [1.0078125, -0.5]).ceil(),

    # ---- promotion across 16-bit dtypes and with other operands
    "add/half_plus_bfloat16": lambda L, d: H(L, d, [1.0]) + B(L, d, [2.0]),
    "lt/half_vs_bfloat16": lambda L, d: H(L, d, [1.0, 2.0]) < B(L, d, [1.0078125, 2.0]),
    "eq/half_vs_bfloat16_rounded": lambda L, d: T(L, [1.001], d).half() == T(L, [1.001], d).bfloat16(),
    "add/half_plus_int_tensor": lambda L, d: H(L, d, [1.5]) + T(L, [70000], d),
    "add/bfloat16_plus_int32_tensor": lambda L, d: B(L, d, [1.0]) + T(L, [257], d, "int32"),
    "add/half_plus_0dim_float32": lambda L, d: H(L, d, [1.0, 2.0]) + T(L, 1e5, d),
    "add/half_plus_1d_float32": lambda L, d: H(L, d, [1.0, 2.0]) + T(L, [1e5], d),
    "mul/bfloat16_times_0dim_double": lambda L, d: B(L, d, [3.0]) * T(L, 1.0 / 3, d, "float64"),
    "add_/half_inplace_float32_other": lambda L, d: H(L, d, [1.0]).add_(T(L, [1e5], d)),
    "add_/int_inplace_half_other": lambda L, d: T(L, [1], d).add_(H(L, d, [1.5])),
    "where/half_and_bfloat16": lambda L, d: L.where(T(L, [True, False], d), H(L, d, [1.0, 2.0]),
                                                    B(L, d, [3.0, 4.0])),
    "cat/half_and_bfloat16": lambda L, d: L.cat([H(L, d, [1.0]), B(L, d, [2.0])]),
    "result_type/half_bfloat16": lambda L, d: L.result_type(H(L, d, [1.0]), B(L, d, [1.0])),
    "promote_types/bfloat16_int64": lambda L, d: L.promote_types(L.bfloat16, L.int64),
    "sum/half_bool_dtype": lambda L, d: H(L, d, [0.0, 2.0]).sum(dtype=L.bool),

    # ---- Python values out of 16-bit tensors
    "item/half_third": lambda L, d: H(L, d, [1.0 / 3]).item(),
    "item/bfloat16_third": lambda L, d: B(L, d, [1.0 / 3]).item(),
    "item/half_max": lambda L, d: H(L, d, [65504.0]).item(),
    "tolist/half_subnormal_inf": lambda L, d: H(L, d, [6e-8, INF, -0.0]).tolist(),
    "tolist/bfloat16_big": lambda L, d: B(L, d, [3.3895313892515355e38, 1e-40]).tolist(),
    "float/half": lambda L, d: float(H(L, d, [0.1])),
    "repr/half_values": lambda L, d: repr(H(L, d, [0.1, 65504.0, 6e-8]).cpu()),
    "repr/bfloat16_values": lambda L, d: repr(B(L, d, [0.1, 3e38, -INF]).cpu()),
    "str/half_nan_inf": lambda L, d: str(H(L, d, [NAN, INF, 1.5]).cpu()),
    "repr/half_0dim": lambda L, d: repr(H(L, d, 2.5).cpu()),
    "repr/bfloat16_int_valued": lambda L, d: repr(B(L, d, [1.0, 256.0, 257.0]).cpu()),
    "format/half_0dim": lambda L, d: f"{H(L, d, 0.1):.6f}",
    "numpy/half_roundtrip": lambda L, d: H(L, d, [0.1, 65504.0]).cpu().numpy().tolist(),
}

KNOWN = {
    "format/half_0dim": "on the meta device only (--devices meta): PyTorch formats a 0-dim meta tensor with "
                        "object.__format__, whose TypeError tandem gives too; the oracle runs on the CPU",
    "setitem/half_one_element_too_big": "on the GPU only: PyTorch's CPU fill_ of a tensor with exactly one "
                                        "element takes its fast path (at::detail::scalar_fill), which rounds a "
                                        "float past float16's or bfloat16's range to inf, as tandem's CPU fill_ "
                                        "does; PyTorch's CUDA fill_ has no such path and raises the overflow error, "
                                        "as tandem's does (the oracle runs on the CPU)",
    "fill_/half_one_element_too_big": "on the GPU only, as setitem/half_one_element_too_big",
}
