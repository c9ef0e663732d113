"""Sweep 15 programs, floating point as scientific ports meet it: float16/bfloat16 arithmetic and rounding
(round with decimals, nextafter, frexp/ldexp, finfo, spacing), NaN/inf handling (nanmean, nanmedian, nansum,
nan_to_num, isclose/allclose with equal_nan, fmax/fmin against maximum/minimum), and compensated summation."""
import numpy as np

from sweep15_common import array, cases


def half_precision_arithmetic(torch, device):
    h = array(torch, [1.0, 2048.0, 65504.0, 1e-4, 0.1, -3.3], device, torch.float16)
    bf = array(torch, [1.0, 256.0, 3.0e38, 1e-4, 0.1, -3.3], device, torch.bfloat16)
    return cases(torch, {
        "h": lambda: h, "bf": lambda: bf, "h_plus_1": lambda: h + 1, "h_times_2": lambda: h * 2,
        "bf_plus_1": lambda: bf + 1, "h_sum": lambda: h.sum(), "bf_sum": lambda: bf.sum(),
        "h_mean": lambda: h[:2].mean(), "h_cumsum": lambda: torch.ones(3000, dtype=torch.float16, device=device).cumsum(0)[
            [2047, 2048, 2999]],
        "h_ones_sum": lambda: torch.ones(5000, dtype=torch.float16, device=device).sum(),
        "bf_ones_sum": lambda: torch.ones(1000, dtype=torch.bfloat16, device=device).sum(),
        "h_to_f": lambda: h.float(), "f_to_h": lambda: array(torch, [70000.0, 1e-8, 0.333333], device,
                                                               torch.float32).half(),
        "f_to_bf": lambda: array(torch, [1.00390625, 1.01171875, 3.14159], device, torch.float32).bfloat16(),
        "h_round": lambda: h.round(), "h_exp": lambda: array(torch, [10.0, 12.0], device, torch.float16).exp(),
        "bf_div": lambda: bf / 3, "h_matmul": lambda: array(torch, [[0.1, 0.2], [0.3, 0.4]], device,
                                                            torch.float16) @ array(torch, [[1.0], [2.0]], device,
                                                                                   torch.float16),
        "h_softmax": lambda: torch.softmax(array(torch, [1.0, 2.0, 3.0], device, torch.float16), 0),
        "h_addcmul": lambda: torch.addcmul(h[:1], h[5:], h[5:] * 100, value=0.001),
        "bf_addcmul": lambda: torch.addcmul(bf[:1], bf[2:3], bf[:1] * 10, value=0.01),
        "h_addcdiv": lambda: torch.addcdiv(h[:1], h[2:3], h[3:4], value=1e-6),
        "h_lerp": lambda: torch.lerp(-h[2:3], h[2:3], 0.5), "h_lerp_t": lambda: torch.lerp(-h[2:3], h[2:3], h[4:5]),
        "h_adam_moment": lambda: h.clone().mul_(0.999).addcmul_(h, h, value=0.001),
        "h_vector_norm": lambda: torch.linalg.vector_norm(h[5:] * 100), "bf_norm": lambda: torch.linalg.vector_norm(
            bf[2:3].expand(3), ord=3),
        "h_renorm": lambda: torch.renorm((h[4:] * 1000).reshape(1, 2), 2, 0, 1.0),
        "h_addr": lambda: torch.addr(h[:1].reshape(1, 1), h[5:] * 100, h[5:] * 100, alpha=0.001),
        "h_addmv": lambda: torch.addmv(h[:1], (h[4:] * 1000).reshape(1, 2), h[4:] * 1000, alpha=1e-4),
        "h_baddbmm": lambda: torch.baddbmm(h[:1].reshape(1, 1, 1), (h[4:] * 1000).reshape(1, 1, 2),
                                           (h[4:] * 1000).reshape(1, 2, 1), alpha=1e-4, beta=0.5),
        "h_addbmm": lambda: torch.addbmm(h[:1].reshape(1, 1), (h[4:] * 1000).reshape(1, 1, 2),
                                         (h[4:] * 1000).reshape(1, 2, 1), alpha=1e-4),
        "h_trapezoid": lambda: torch.trapezoid(h[1:2].expand(40) * 20, dx=0.5),
        "h_cumtrapz": lambda: torch.cumulative_trapezoid(h[1:2].expand(40) * 20)[-3:],
        "mixed": lambda: (h + bf).dtype, "h_int_div": lambda: array(torch, [7, 8], device) / array(
            torch, [2.0], device, torch.float16),
        "h_max": lambda: torch.finfo(torch.float16).max, "h_tiny": lambda: torch.finfo(torch.float16).tiny,
        "h_eps": lambda: torch.finfo(torch.float16).eps, "bf_eps": lambda: torch.finfo(torch.bfloat16).eps,
        "bf_max": lambda: torch.finfo(torch.bfloat16).max, "f_res": lambda: torch.finfo(torch.float32).resolution,
        "h_smallest_normal": lambda: torch.finfo(torch.float16).smallest_normal,
        "finfo_bits": lambda: [torch.finfo(d).bits for d in (torch.float16, torch.bfloat16, torch.float32,
                                                              torch.float64)],
        "finfo_default": lambda: torch.finfo().dtype, "finfo_complex": lambda: torch.finfo(torch.complex64).eps,
        "iinfo": lambda: [torch.iinfo(d).max for d in (torch.int8, torch.uint8, torch.int16, torch.int32)],
        "iinfo_bits": lambda: torch.iinfo(torch.int64).bits, "finfo_int": lambda: torch.finfo(torch.int32),
        "iinfo_float": lambda: torch.iinfo(torch.float32),
    })


def rounding_and_ulps(torch, device):
    x = array(torch, [1.2345, -2.5, 2.5, 0.5, 1.5, 123.456, -0.0049], device, torch.float64)
    f = array(torch, [1.0, 0.0, -1.0, 1e30], device, torch.float32)
    return cases(torch, {
        "round": lambda: torch.round(x), "round2": lambda: torch.round(x, decimals=2),
        "round_neg": lambda: torch.round(x, decimals=-1), "round_method": lambda: x.round(decimals=1),
        "round_h": lambda: array(torch, [1.25, 2.675], device, torch.float16).round(decimals=1),
        "round_int": lambda: array(torch, [15, 25], device).round(), "round_int_dec": lambda: _error_type(
            lambda: array(torch, [15, 25], device).round(decimals=-1)),
        "nextafter_up": lambda: torch.nextafter(f, torch.full_like(f, float("inf"))) - f,
        "nextafter_zero": lambda: torch.nextafter(array(torch, [0.0], device), array(torch, [1.0], device)),
        "nextafter_h": lambda: torch.nextafter(array(torch, [1.0], device, torch.float16),
                                               array(torch, [2.0], device, torch.float16)),
        "frexp": lambda: torch.frexp(array(torch, [8.0, 0.3, -5.0, 0.0, 1e-40], device)),
        "frexp_f64": lambda: torch.frexp(x), "frexp_int": lambda: torch.frexp(array(torch, [8], device)),
        "ldexp": lambda: torch.ldexp(array(torch, [0.5, 0.75], device), array(torch, [4, -1], device)),
        "ldexp_half": lambda: torch.ldexp(array(torch, [1e-3, 1e4], device, torch.float16), array(torch, [20, -20],
                                                                                                 device)),
        "ldexp_f64_big": lambda: torch.ldexp(array(torch, [1.0], device, torch.float64), array(torch, [200], device)),
        "ldexp_0d_half": lambda: torch.ldexp(torch.tensor(1.0, dtype=torch.float16, device=device),
                                             array(torch, [3], device)).dtype,
        "ldexp_inplace_int": lambda: array(torch, [3], device).ldexp_(array(torch, [1], device)),
        "ldexp_int": lambda: torch.ldexp(array(torch, [3, 1], device), array(torch, [2, 3], device)),
        "frexp_roundtrip": lambda: bool(torch.equal(torch.ldexp(*torch.frexp(x)), x)),
        "copysign": lambda: torch.copysign(array(torch, [1.0, -2.0, 0.0], device), array(torch, [-0.0, 1.0, -1.0],
                                                                                        device)),
        "signbit": lambda: torch.signbit(array(torch, [-0.0, 0.0, -1.0, float("nan")], device)),
        "trunc_frac": lambda: (torch.trunc(x), torch.frac(x)), "fix": lambda: torch.fix(x),
        "ceil_floor": lambda: (torch.ceil(x), torch.floor(x)),
        "float_power": lambda: torch.float_power(array(torch, [2, 3], device), 0.5),
        "float_power_int": lambda: torch.float_power(array(torch, [2, -3], device), 2),
        "hypot": lambda: torch.hypot(array(torch, [3.0, 1e30], device), array(torch, [4.0, 1e30], device)),
        "logaddexp": lambda: torch.logaddexp(array(torch, [1000.0, -1000.0], device), array(torch, [1000.0, -1001.0],
                                                                                           device)),
        "logaddexp2": lambda: torch.logaddexp2(array(torch, [1.0], device), array(torch, [1.0], device)),
        "expm1_log1p": lambda: (torch.expm1(array(torch, [1e-10], device, torch.float64)),
                                torch.log1p(array(torch, [1e-10], device, torch.float64))),
        "xlogy": lambda: torch.xlogy(array(torch, [0.0, 1.0, 0.0], device), array(torch, [0.0, 2.0, float("nan")],
                                                                                  device)),
        "sinc": lambda: torch.sinc(array(torch, [0.0, 0.5, 1.0], device)),
        "int_floor": lambda: torch.floor(array(torch, [3, -3], device)),
        "erfinv": lambda: torch.erfinv(array(torch, [0.0, 0.5, 1.0, -1.0], device)),
    })


def _error_type(call):
    try:
        return call()
    except Exception as exc:  # the kernel's name in the message says which device ran it
        return type(exc).__name__


def nan_handling(torch, device):
    nan, inf = float("nan"), float("inf")
    x = array(torch, [[1.0, nan, 3.0], [nan, nan, nan], [inf, -1.0, 2.0]], device)
    return cases(torch, {
        "nanmean": lambda: torch.nanmean(x, dim=1), "nanmean_all": lambda: x.nanmean(),
        "nansum": lambda: torch.nansum(x, dim=0), "nansum_all": lambda: x.nansum(),
        "nanmedian": lambda: torch.nanmedian(x, dim=1), "nanmedian_all": lambda: x.nanmedian(),
        "median_nan": lambda: torch.median(x, dim=1), "nan_to_num": lambda: torch.nan_to_num(x),
        "nan_to_num_args": lambda: torch.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0),
        "nan_to_num_h": lambda: torch.nan_to_num(x.half()), "nan_to_num_int": lambda: torch.nan_to_num(
            array(torch, [1, 2], device)),
        "nan_to_num_": lambda: x.clone().nan_to_num_(nan=-1.0),
        "isnan": lambda: x.isnan().sum(), "isfinite": lambda: x.isfinite(), "isinf": lambda: torch.isinf(x),
        "isposinf": lambda: torch.isposinf(x), "isneginf": lambda: torch.isneginf(-x),
        "isreal": lambda: torch.isreal(array(torch, [1 + 0j, 1j], device)),
        "max_nan": lambda: x.max(dim=1), "amax_nan": lambda: x.amax(dim=1), "argmax_nan": lambda: x.argmax(dim=1),
        "min_all": lambda: x.min(), "sort_nan": lambda: x.flatten().sort().values,
        "maximum": lambda: torch.maximum(x[0], x[2]), "fmax": lambda: torch.fmax(x[0], x[2]),
        "fmin": lambda: torch.fmin(x[0], x[1]), "minimum": lambda: torch.minimum(x[0], x[1]),
        "fmax_int": lambda: torch.fmax(array(torch, [1, 5], device), array(torch, [3, 2], device)),
        "clamp_nan": lambda: x.clamp(0, 2), "relu_nan": lambda: torch.relu(x[0]),
        "cumsum_nan": lambda: x[0].cumsum(0), "std_nan": lambda: x[2].std(),
        "sum_where_finite": lambda: torch.where(torch.isfinite(x), x, torch.zeros_like(x)).sum(1),
        "masked_mean": lambda: (x.nan_to_num(0) * ~x.isnan()).sum(1) / (~x.isnan()).sum(1),
        "nan_eq": lambda: (x == x).sum(), "nan_ne": lambda: (x != x).sum(),
        "mean_nan_dtype": lambda: torch.nanmean(array(torch, [1, 2], device)),
        "nansum_int": lambda: torch.nansum(array(torch, [1, 2], device)),
        "logsumexp_inf": lambda: torch.logsumexp(array(torch, [-inf, -inf], device), 0),
        "softmax_inf": lambda: torch.softmax(array(torch, [-inf, 0.0, -inf], device), 0),
        "div_zero": lambda: array(torch, [1.0, -1.0, 0.0], device) / 0,
    })


def closeness(torch, device):
    nan, inf = float("nan"), float("inf")
    a = array(torch, [1.0, nan, inf, -inf, 1e-9, 100.0], device)
    b = array(torch, [1.0 + 1e-6, nan, inf, inf, 0.0, 100.01], device)
    return cases(torch, {
        "isclose": lambda: torch.isclose(a, b), "isclose_nan": lambda: torch.isclose(a, b, equal_nan=True),
        "isclose_tol": lambda: torch.isclose(a, b, rtol=1e-3, atol=1e-8),
        "isclose_atol_only": lambda: torch.isclose(a, b, rtol=0, atol=1e-8),
        "allclose": lambda: torch.allclose(a, b), "allclose_nan": lambda: torch.allclose(a[:3], b[:3], equal_nan=True),
        "allclose_method": lambda: a[:1].allclose(b[:1]),
        "isclose_int": lambda: torch.isclose(array(torch, [1, 2], device), array(torch, [1, 3], device)),
        "isclose_int_float": lambda: torch.isclose(array(torch, [1, 2], device), array(torch, [1.0, 2.0], device)),
        "isclose_bool": lambda: torch.isclose(array(torch, [True], device), array(torch, [True], device)),
        "isclose_complex": lambda: torch.isclose(array(torch, [1 + 1j], device), array(torch, [1 + 1.000001j], device)),
        "allclose_broadcast": lambda: torch.allclose(a[:1], array(torch, [[1.0], [1.0]], device)),
        "equal": lambda: torch.equal(a, a), "equal_nan": lambda: torch.equal(a[1:2], a[1:2]),
        "equal_shape": lambda: torch.equal(a, a[:2]),
        "testing": lambda: _assert_close(torch, a[:1], b[:1]),
        "testing_fail": lambda: _assert_close(torch, a[:1], a[:1] + 1),
    })


def _assert_close(torch, a, b):
    torch.testing.assert_close(a, b)
    return "ok"


def compensated_sums(torch, device):
    rng = np.random.default_rng(1530)
    v = torch.tensor(rng.standard_normal(4000) * 1e4, dtype=torch.float32, device=device)
    exact = float(np.sum(rng.standard_normal(0)) + torch.tensor(v.cpu().numpy().astype(np.float64)).sum().item())

    def kahan(x):
        s = torch.zeros((), dtype=x.dtype, device=x.device)
        c = torch.zeros((), dtype=x.dtype, device=x.device)
        for chunk in x.split(500):
            y = chunk.sum() - c
            t = s + y
            c = (t - s) - y
            s = t
        return s

    pairs = v.reshape(-1, 2).sum(1)
    return cases(torch, {
        "kahan_err": lambda: abs(kahan(v).item() - exact) < 1.0, "double_sum": lambda: v.double().sum().item(),
        "sum_dtype": lambda: v.sum(dtype=torch.float64).item(), "pairs": lambda: pairs.double().sum().item(),
        "cumsum_last": lambda: abs(v.double().cumsum(0)[-1].item() - exact) < 1e-6,
        "mean_f64": lambda: v.mean(dtype=torch.float64).item(),
        "var_welford": lambda: _welford(torch, v.double()), "var_ref": lambda: v.double().var().item(),
        "logcumsumexp": lambda: torch.logcumsumexp(array(torch, [1000.0, 1000.0, -1000.0], device), 0),
        "logcumsumexp_h": lambda: torch.logcumsumexp(array(torch, [1.0, 2.0], device, torch.float64), 0),
        "logcumsumexp_int": lambda: torch.logcumsumexp(array(torch, [1, 2], device), 0),
        "logcumsumexp_complex": lambda: torch.logcumsumexp(array(torch, [1 + 1j, 2 - 1j], device), 0),
    })


def _welford(torch, x):
    mean = torch.zeros((), dtype=x.dtype, device=x.device)
    m2 = torch.zeros((), dtype=x.dtype, device=x.device)
    for i, chunk in enumerate(x.split(1000)):
        n_a, n_b = 1000 * i, chunk.numel()
        mb = chunk.mean()
        delta = mb - mean
        n = n_a + n_b
        mean = mean + delta * n_b / n
        m2 = m2 + ((chunk - mb) ** 2).sum() + delta ** 2 * n_a * n_b / n
    return (m2 / (x.numel() - 1)).item()


def scipy_special_port(torch, device):
    """scipy.special calls as a port spells them with torch.special: a normal CDF table, log-probabilities far in
    the tail, Bessel windows, orthogonal polynomials by recurrence against the builtins, and a Poisson tail."""
    S = torch.special
    x = torch.linspace(-6.0, 6.0, 13, dtype=torch.float64, device=device)
    u = torch.linspace(-0.9, 0.9, 7, dtype=torch.float64, device=device)
    n = torch.arange(5, device=device)
    # Chebyshev T_n and Legendre P_n by their three-term recurrences
    T = [torch.ones_like(u), u]
    P = [torch.ones_like(u), u]
    for k in range(1, 4):
        T.append(2 * u * T[k] - T[k - 1])
        P.append(((2 * k + 1) * u * P[k] - k * P[k - 1]) / (k + 1))
    beta = 8.6
    m = torch.arange(16, dtype=torch.float64, device=device)
    kaiser = S.i0(beta * torch.sqrt(1 - (2 * m / 15 - 1) ** 2)) / S.i0(torch.tensor(beta, dtype=torch.float64))
    lam = torch.tensor([0.5, 3.0, 10.0], dtype=torch.float64, device=device)
    k = torch.tensor([2.0, 5.0, 4.0], dtype=torch.float64, device=device)
    return cases(torch, {
        "ndtr": lambda: S.ndtr(x), "log_ndtr": lambda: S.log_ndtr(x * 5), "ndtri": lambda: S.ndtri(S.ndtr(x[3:10])),
        "erfcx": lambda: S.erfcx(x), "erfinv": lambda: S.erfinv(u), "expit_logit": lambda: S.logit(S.expit(x)),
        "xlog1py": lambda: S.xlog1py(x, x.abs()), "entr": lambda: S.entr(u.abs()), "sinc": lambda: S.sinc(x / 2),
        "gammaln": lambda: S.gammaln(x.abs() + 0.5), "digamma": lambda: S.digamma(x.abs() + 0.5),
        "polygamma": lambda: S.polygamma(2, x.abs() + 0.5), "multigammaln": lambda: S.multigammaln(x.abs() + 2, 3),
        "zeta": lambda: S.zeta(x.abs() + 1.5, 1.0), "i1e": lambda: S.i1e(x), "i0e": lambda: S.i0e(x),
        "bessel": lambda: [S.bessel_j0(x), S.bessel_j1(x), S.bessel_y0(x.abs() + 0.1), S.bessel_y1(x.abs() + 0.1)],
        "modified_bessel": lambda: [S.modified_bessel_i0(u), S.modified_bessel_k1(x.abs() + 0.1),
                                    S.scaled_modified_bessel_k0(x.abs() + 0.1)],
        "spherical_j0": lambda: S.spherical_bessel_j0(x), "airy": lambda: S.airy_ai(u),
        "kaiser": lambda: kaiser, "kaiser_builtin": lambda: torch.kaiser_window(16, periodic=False, beta=beta,
                                                                                dtype=torch.float64, device=device),
        "cheb_t": lambda: [bool(torch.allclose(S.chebyshev_polynomial_t(u, i), T[i])) for i in range(5)],
        "legendre": lambda: [bool(torch.allclose(S.legendre_polynomial_p(u, i), P[i])) for i in range(5)],
        "hermite": lambda: S.hermite_polynomial_h(u.unsqueeze(1), n), "laguerre": lambda: S.laguerre_polynomial_l(u, 3),
        "poisson_tail": lambda: S.gammaincc(k + 1, lam), "poisson_cdf": lambda: S.gammainc(k + 1, lam),
        "log_softmax": lambda: S.log_softmax(x.float(), 0, dtype=torch.float64),
        "logsumexp": lambda: S.logsumexp(x * 100, 0),
    })


PROGRAMS = [half_precision_arithmetic, rounding_and_ulps, nan_handling, closeness, compensated_sums,
            scipy_special_port]
NEEDS_CPP = {}
