"""Sweep 15 programs, integer arithmetic as ported NumPy code does it: int8/uint8/int16 wrap-around, the signs of
floor_divide / remainder / fmod / div(rounding_mode=), bitwise ops and shifts (a xorshift hash, bit counting,
packing bits), gcd/lcm, and the dtype-promotion corners of bool/uint8/int8 with Python numbers and 0-d tensors."""
import numpy as np

from sweep15_common import array, cases


def wraparound(torch, device):
    i8 = array(torch, [100, -100, 127, -128], device, torch.int8)
    u8 = array(torch, [200, 10, 255, 0], device, torch.uint8)
    i16 = array(torch, [30000, -30000, 32767], device, torch.int16)
    return cases(torch, {
        "i8_add": lambda: i8 + i8, "i8_mul": lambda: i8 * 3, "i8_neg": lambda: -i8, "i8_abs": lambda: i8.abs(),
        "u8_add": lambda: u8 + u8, "u8_sub": lambda: u8 - 20, "u8_neg": lambda: -u8, "u8_mul": lambda: u8 * u8,
        "i16_add": lambda: i16 + 10000, "i16_sum": lambda: i16.sum(), "i16_sum_dtype": lambda: i16.sum(dtype=torch.int16),
        "u8_sum": lambda: u8.sum(), "i8_cumsum": lambda: i8.cumsum(0), "i8_prod": lambda: i8.prod(),
        "u8_mean": lambda: u8.mean(), "u8_float_mean": lambda: u8.float().mean(),
        "to_u8": lambda: array(torch, [-1, 256, 300, -129], device).to(torch.uint8),
        "to_i8": lambda: array(torch, [200, 128, -129], device).to(torch.int8),
        "i8_inplace": lambda: i8.clone().add_(100), "u8_pow": lambda: u8 ** 2, "i8_pow": lambda: i8.pow(3),
        "u8_iadd_neg": lambda: u8.clone().sub_(250),
        "i32_overflow": lambda: array(torch, [2**31 - 1], device, torch.int32) + 1,
        "i64_overflow": lambda: array(torch, [2**62], device) * 4,
        "u8_max_min": lambda: (u8.max(), u8.min(), u8.argmax()),
        "u8_div": lambda: u8 / 7, "u8_floordiv": lambda: u8 // 7,
        "i8_matmul": lambda: (i8.reshape(2, 2) @ i8.reshape(2, 2)),
        "u8_clamp": lambda: u8.clamp(5, 250), "i16_clamp_big": lambda: i16.clamp(max=40000),
    })


def division_signs(torch, device):
    a = array(torch, [7, -7, 7, -7, 0], device)
    b = array(torch, [2, 2, -2, -2, 3], device)
    af = a.float()
    bf = b.float()
    return cases(torch, {
        "floor_divide": lambda: torch.floor_divide(a, b), "op_floordiv": lambda: a // b,
        "remainder": lambda: torch.remainder(a, b), "mod_op": lambda: a % b, "fmod": lambda: torch.fmod(a, b),
        "div_trunc": lambda: torch.div(a, b, rounding_mode="trunc"),
        "div_floor": lambda: torch.div(a, b, rounding_mode="floor"), "truediv": lambda: a / b,
        "f_floordiv": lambda: af // bf, "f_remainder": lambda: af % bf, "f_fmod": lambda: torch.fmod(af, bf),
        "f_floor_by_zero": lambda: af // 0, "f_rem_by_zero": lambda: af % 0.0, "fmod_zero": lambda: torch.fmod(af, 0.0),
        "int_div_zero": lambda: a // 0, "int_rem_zero": lambda: a % 0,
        "scalar_rem": lambda: torch.remainder(-7, b), "rem_scalar": lambda: a.remainder(-3),
        "fmod_scalar": lambda: a.fmod(-3), "fmod_float_scalar": lambda: a.fmod(2.5),
        "rem_float_scalar": lambda: a % 2.5, "rfloordiv": lambda: 20 // b, "rmod": lambda: 20 % b,
        "div_mode_bad": lambda: torch.div(a, b, rounding_mode="round"),
        "i8_floordiv_min": lambda: array(torch, [-128], device, torch.int8) // -1,
        "uint8_rem": lambda: array(torch, [250, 3], device, torch.uint8) % array(torch, [7, 2], device, torch.uint8),
        "divmod_identity": lambda: bool(((a // b) * b + a % b == a).all()),
        "half_rem": lambda: array(torch, [5.5, -5.5], device, torch.float16) % 2,
        "inplace_floordiv": lambda: a.clone().floor_divide_(2),
        "inplace_div_int": lambda: a.clone().div_(2),
    })


def bitwise_and_shifts(torch, device):
    x = array(torch, [0, 1, 5, 255, -1, -8, 12345], device)
    u = array(torch, [1, 2, 128, 255], device, torch.uint8)

    def xorshift(s):
        s = s ^ (s << 13)
        s = s ^ (s >> 7)
        s = s ^ (s << 17)
        return s

    def popcount(v):
        v = v.clone()
        count = torch.zeros_like(v)
        for _ in range(16):
            count += v & 1
            v = v >> 1
        return count

    bits = array(torch, [[1, 0, 1, 1, 0, 0, 0, 1], [0, 1, 1, 1, 1, 1, 1, 1]], device, torch.uint8)
    weights = 2 ** torch.arange(7, -1, -1, device=device, dtype=torch.uint8)
    return cases(torch, {
        "and": lambda: x & 6, "or": lambda: x | 6, "xor": lambda: x ^ 6, "not": lambda: ~x,
        "lshift": lambda: x << 3, "rshift": lambda: x >> 2, "rshift_neg": lambda: array(torch, [-16, -1], device) >> 2,
        "u8_lshift": lambda: u << 1, "u8_rshift": lambda: u >> 3, "u8_not": lambda: ~u,
        "shift_fn": lambda: torch.bitwise_left_shift(x, 2), "shift_fn_r": lambda: torch.bitwise_right_shift(x, 1),
        "shift_tensor": lambda: x << array(torch, [0, 1, 2, 3, 4, 5, 6], device),
        "xorshift": lambda: xorshift(array(torch, [1, 2, 3, 88172645463325252], device)),
        "popcount": lambda: popcount(array(torch, [0, 1, 7, 255, 1023], device)),
        "packbits": lambda: (bits * weights).sum(1, dtype=torch.uint8),
        "unpackbits": lambda: (array(torch, [177, 127], device, torch.uint8).unsqueeze(-1) & weights).ne(0).to(
            torch.uint8),
        "bool_ops": lambda: (array(torch, [True, False], device) ^ True, ~array(torch, [True, False], device)),
        "bitwise_float": lambda: array(torch, [1.0], device) & 1,
        "bitwise_and_fn": lambda: torch.bitwise_and(x, array(torch, [3], device)),
        "bitwise_not_bool": lambda: torch.bitwise_not(array(torch, [True, False], device)),
        "i8_shift_over": lambda: array(torch, [1, -1], device, torch.int8) << 9,
        "scalar_lshift": lambda: 1 << array(torch, [0, 3, 5], device),
        "rrshift": lambda: 256 >> array(torch, [1, 4], device),
        "ilshift": lambda: _ilshift(x.clone()),
        "mask_bit": lambda: ((x >> 2) & 1).bool(),
    })


def _ilshift(t):
    t <<= 2
    t |= 1
    t ^= 3
    t >>= 1
    return t


def gcd_lcm_number_theory(torch, device):
    a = array(torch, [12, 18, -24, 0, 7, 0], device)
    b = array(torch, [8, 27, 36, 5, 13, 0], device)
    # Euclid by hand, vectorised
    x, y = a.abs(), b.abs()
    while bool((y != 0).any()):
        nz = y != 0
        x, y = torch.where(nz, y, x), torch.where(nz, x % torch.where(nz, y, torch.ones_like(y)), y)
    # sieve of Eratosthenes
    n = 60
    sieve = torch.ones(n + 1, dtype=torch.bool, device=device)
    sieve[:2] = False
    for p in range(2, int(n ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    primes = sieve.nonzero().flatten()
    return cases(torch, {
        "gcd": lambda: torch.gcd(a, b), "lcm": lambda: torch.lcm(a, b), "euclid": lambda: x,
        "gcd_inplace": lambda: a.clone().gcd_(b), "lcm_i8": lambda: torch.lcm(array(torch, [12, 20], device, torch.int8),
                                                                              array(torch, [18, 30], device, torch.int8)),
        "gcd_float": lambda: torch.gcd(a.float(), b.float()),
        "gcd_broadcast": lambda: torch.gcd(a, array(torch, [6], device)),
        "primes": lambda: primes, "prime_gaps": lambda: torch.diff(primes),
        "modpow": lambda: _modpow(torch, array(torch, [2, 3, 5, 7], device), 13, 97),
        "digits": lambda: (array(torch, [1234, 9075], device).unsqueeze(1) // 10 ** torch.arange(3, -1, -1,
                                                                                                  device=device)) % 10,
        "collatz": lambda: _collatz_steps(torch, torch.arange(1, 12, device=device)),
    })


def _modpow(torch, base, exp, mod):
    result = torch.ones_like(base)
    base = base % mod
    while exp:
        if exp & 1:
            result = result * base % mod
        base = base * base % mod
        exp >>= 1
    return result


def _collatz_steps(torch, n):
    steps = torch.zeros_like(n)
    while bool((n != 1).any()):
        active = n != 1
        n = torch.where(active, torch.where(n % 2 == 0, n // 2, 3 * n + 1), n)
        steps += active.long()
    return steps


def _error_type(call):
    try:
        return call()
    except Exception as exc:  # the kernel's name in the message says which device ran it
        return type(exc).__name__


def promotion_corners(torch, device):
    b = array(torch, [True, False], device)
    u8 = array(torch, [1, 200], device, torch.uint8)
    i8 = array(torch, [1, -100], device, torch.int8)
    f16 = array(torch, [1.0, 2.0], device, torch.float16)
    z64 = torch.tensor(3, device=device)
    zf64 = torch.tensor(2.5, dtype=torch.float64, device=device)
    return cases(torch, {
        "bool+bool": lambda: (b + b).dtype, "bool+1": lambda: (b + 1).dtype, "bool*1.5": lambda: (b * 1.5).dtype,
        "bool+True": lambda: (b + True).dtype, "u8+i8": lambda: (u8 + i8), "u8+1000": lambda: (u8 + 1000),
        "u8+-1": lambda: u8 + -1, "i8+0d_i64": lambda: (i8 + z64).dtype, "u8*0d_f64": lambda: (u8 * zf64).dtype,
        "f16+0d_f64": lambda: (f16 + zf64).dtype, "f16+1d_f64": lambda: (f16 + zf64.reshape(1)).dtype,
        "u8+complex": lambda: (u8 + 1j).dtype,
        "bool+0d_u8": lambda: (b + torch.tensor(3, dtype=torch.uint8, device=device)).dtype,
        "result_type": lambda: [torch.result_type(u8, i8), torch.result_type(u8, 2.0), torch.result_type(b, 1),
                                torch.result_type(2, 3.0), torch.result_type(f16, zf64), torch.result_type(1, True),
                                torch.result_type(i8, 1j)],
        "promote_types": lambda: [torch.promote_types(torch.uint8, torch.int8),
                                  torch.promote_types(torch.bool, torch.uint8),
                                  torch.promote_types(torch.float16, torch.bfloat16),
                                  torch.promote_types(torch.int64, torch.float16),
                                  torch.promote_types(torch.complex64, torch.float64),
                                  torch.promote_types(torch.int16, torch.uint8)],
        "keywords": lambda: [torch.result_type(tensor=u8, other=2.5), torch.result_type(scalar=1j, tensor=i8),
                             torch.result_type(scalar1=2, scalar2=True),
                             torch.promote_types(type1=torch.int8, type2=torch.uint8),
                             torch.can_cast(from_=torch.int8, to=torch.bool)],
        "result_type_bad": lambda: torch.result_type("a", u8),
        "promote_types_bad": lambda: torch.promote_types(torch.float32, "float64"),
        "can_cast": lambda: [torch.can_cast(torch.float32, torch.int32), torch.can_cast(torch.int32, torch.float16),
                             torch.can_cast(torch.bool, torch.uint8), torch.can_cast(torch.int8, torch.uint8),
                             torch.can_cast(torch.complex64, torch.float64), torch.can_cast(torch.uint8, torch.bool),
                             torch.can_cast(torch.float64, torch.float16)],
        "where_scalar": lambda: torch.where(b, u8, 2.5).dtype, "where_two_scalars": lambda: torch.where(b, 1, 0).dtype,
        "where_i8_float": lambda: torch.where(b, i8, 1.0).dtype,
        "cat_mixed": lambda: torch.cat([u8, i8]).dtype, "stack_mixed": lambda: torch.stack([b, u8.bool()]).dtype,
        "cat_bool_float": lambda: torch.cat([b, f16]).dtype,
        "comparison": lambda: (u8 > -1), "u8_eq_256": lambda: (u8 == 256),
        "int_true_div": lambda: (i8 / 2).dtype, "int_pow_float": lambda: (i8 ** 0.5).dtype,
        "int_pow_neg": lambda: array(torch, [2], device) ** -1,
        "i64_minus_float_0d": lambda: (array(torch, [1], device) - torch.tensor(0.5, device=device)).dtype,
        "sum_bool": lambda: b.sum().dtype, "sum_u8": lambda: u8.sum().dtype, "mean_int": lambda: i8.mean(),
        "prod_bool": lambda: b.prod().dtype, "cumsum_i8": lambda: i8.cumsum(0).dtype,
        "add_out_int": lambda: torch.add(u8, 1.5, out=torch.empty(2, dtype=torch.uint8, device=device)),
        "iadd_float_into_int": lambda: i8.clone().add_(1.5),
        "bool_div_floor": lambda: torch.div(b, 3, rounding_mode="floor"),
        "bool_div_trunc_t": lambda: b.div(array(torch, [2, 3], device, torch.uint8), rounding_mode="trunc"),
        "bool_div_float": lambda: torch.div(b, 2.5, rounding_mode="floor"),
        "bool_div_bool": lambda: _error_type(lambda: torch.div(b, b, rounding_mode="floor")),
        "addr_bool_vectors_int_input": lambda: torch.addr(torch.ones(2, 2, dtype=torch.int32, device=device), b, b),
        "addr_bool_vectors_float_input": lambda: torch.addr(torch.ones(2, 2, device=device), b, b, alpha=0.5),
        "mul_alpha": lambda: torch.add(u8, u8, alpha=2), "add_alpha_float_int": lambda: torch.add(u8, u8, alpha=0.5),
    })


def uint8_image_arithmetic(torch, device):
    """Image code ported from NumPy/OpenCV: uint8 brightness and contrast with clamping, grayscale weights, a
    histogram-equalisation lookup table, bit-plane quantisation and wrap-around differences."""
    rng = np.random.default_rng(1520)
    im = torch.tensor(rng.integers(0, 256, (2, 3, 8, 8)).astype(np.uint8), device=device)
    hist = torch.bincount(im[0, 0].flatten(), minlength=256)
    cdf = torch.cumsum(hist, 0)
    cdf_min = cdf[cdf > 0].min()
    lut = ((cdf - cdf_min) * 255 / (cdf[-1] - cdf_min)).round().clamp(0, 255).to(torch.uint8)
    return cases(torch, {
        "brighten": lambda: (im.float() * 1.7 + 10).clamp(0, 255).to(torch.uint8)[0, 0, 0],
        "round_then_cast": lambda: (im.float() * 0.55).round().byte()[1, 2, 3],
        "gray": lambda: (0.299 * im[:, 0] + 0.587 * im[:, 1] + 0.114 * im[:, 2]).to(torch.uint8)[0, 0],
        "equalized": lambda: lut[im[0, 0].long()][0], "lut_dtype": lambda: lut.dtype,
        "channel_mean": lambda: im.mean(dim=(0, 2, 3), dtype=torch.float64),
        "channel_std": lambda: im.float().std(dim=(0, 2, 3)), "mean_refused": lambda: im.mean(),
        "sums": lambda: im.sum(dim=(2, 3)), "wrap_add": lambda: im.clone().add_(100)[0, 0, 0],
        "wrap_diff": lambda: (im[0] - im[1])[0, 0], "abs_diff": lambda: (im[0].int() - im[1].int()).abs().to(
            torch.uint8)[0, 0],
        "quantised": lambda: ((im >> 5) << 5)[0, 0, 0], "masked": lambda: (im & 0xF0)[0, 1, 1],
        "where_255": lambda: torch.where(im > 128, 255, 0).dtype, "where_keep": lambda: torch.where(im > 128, im, 0)[
            0, 0, 0],
        "threshold_count": lambda: (im > 200).sum(dim=(2, 3)),
        "div_dtype": lambda: (im / 255).dtype, "inplace_div": lambda: im.clone().div_(2),
        "inplace_floordiv": lambda: im.clone().floor_divide_(3)[0, 0, 0],
        "area_downsample": lambda: torch.nn.functional.interpolate(im.float(), scale_factor=0.5, mode="area").round(
        ).to(torch.uint8)[0, 0],
        "hwc": lambda: im.permute(0, 2, 3, 1).contiguous().stride(),
    })


PROGRAMS = [wraparound, division_signs, bitwise_and_shifts, gcd_lcm_number_theory, promotion_corners,
            uint8_image_arithmetic]
NEEDS_CPP = {}
