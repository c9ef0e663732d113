"""Sweep 15 programs, statistics as NumPy/SciPy ports compute it: quantile / nanquantile with every interpolation,
histc / histogram / histogramdd with weights and density, bincount with weights, cov / corrcoef with fweights and
aweights, cummax / cummin / logcumsumexp, and a running statistics table."""
import numpy as np

from sweep15_common import array, cases


def quantiles(torch, device):
    rng = np.random.default_rng(1540)
    x = torch.tensor(rng.standard_normal((3, 11)), dtype=torch.float64, device=device)
    xn = x.clone()
    xn[0, 3] = float("nan")
    xn[2, :] = float("nan")
    q = torch.tensor([0.0, 0.1, 0.25, 0.5, 0.9, 1.0], dtype=torch.float64, device=device)
    table = {}
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        table[mode] = lambda mode=mode: torch.quantile(x, q, dim=1, interpolation=mode)
        table["nan_" + mode] = lambda mode=mode: torch.nanquantile(xn, q, dim=1, interpolation=mode)
    table.update({
        "scalar_q": lambda: torch.quantile(x, 0.3), "keepdim": lambda: torch.quantile(x, 0.5, dim=0, keepdim=True),
        "keepdim_vec": lambda: torch.quantile(x, q[:2], dim=1, keepdim=True).shape,
        "quantile_nan": lambda: torch.quantile(xn, 0.5, dim=1), "method": lambda: x.quantile(0.75, dim=1),
        "nan_all": lambda: xn.nanquantile(0.5), "f32": lambda: torch.quantile(x.float(), 0.5),
        "int_input": lambda: torch.quantile(array(torch, [1, 2, 3], device), 0.5),
        "q_out_of_range": lambda: torch.quantile(x, 1.5), "q_dtype_mismatch": lambda: torch.quantile(x, q.float()),
        "bad_mode": lambda: torch.quantile(x, 0.5, interpolation="cubic"),
        "q_2d": lambda: torch.quantile(x, q.reshape(2, 3)),
        "median_vs_quantile": lambda: bool(torch.allclose(x[:, :10].median(1).values,
                                                          torch.quantile(x[:, :10], 0.5, dim=1,
                                                                         interpolation="lower"))),
        "iqr": lambda: (lambda qs: qs[1] - qs[0])(torch.quantile(x, torch.tensor([0.25, 0.75], dtype=x.dtype,
                                                                                  device=device), dim=1)),
    })
    return cases(torch, table)


def histograms(torch, device):
    rng = np.random.default_rng(1541)
    x = torch.tensor(rng.uniform(-1, 3, 200), dtype=torch.float32, device=device)
    w = torch.tensor(rng.uniform(0, 2, 200), dtype=torch.float32, device=device)
    pts = torch.tensor(rng.uniform(0, 1, (100, 2)), dtype=torch.float32)
    pw = torch.tensor(rng.uniform(0, 1, 100), dtype=torch.float32)
    return cases(torch, {
        "histc": lambda: torch.histc(x, bins=8, min=-1, max=3), "histc_auto": lambda: torch.histc(x, bins=5),
        "histc_int": lambda: torch.histc(array(torch, [1, 2, 2], device), bins=3),
        "histc_method": lambda: x.histc(4, 0, 1), "histc_const": lambda: torch.histc(torch.ones(4, device=device),
                                                                                     bins=4),
        "histc_bad": lambda: torch.histc(x, bins=4, min=3, max=1),
        "histogram": lambda: torch.histogram(x.cpu(), bins=6), "histogram_w": lambda: torch.histogram(
            x.cpu(), bins=6, weight=w.cpu()),
        "histogram_density": lambda: torch.histogram(x.cpu(), bins=6, range=(-1.0, 3.0), density=True),
        "histogram_edges": lambda: torch.histogram(x.cpu(), bins=torch.tensor([-1.0, 0.0, 0.5, 3.0])),
        "histogram_edges_density": lambda: torch.histogram(x.cpu(), torch.tensor([-1.0, 0.0, 0.5, 3.0]),
                                                          weight=w.cpu(), density=True),
        "histogramdd": lambda: torch.histogramdd(pts, bins=[3, 2]),
        "histogramdd_w": lambda: torch.histogramdd(pts, bins=[2, 2], weight=pw, density=True),
        "histogramdd_range": lambda: torch.histogramdd(pts, bins=2, range=[0.0, 1.0, 0.0, 0.5]),
        "histogramdd_edges": lambda: torch.histogramdd(pts, bins=[torch.tensor([0.0, 0.5, 1.0]),
                                                                  torch.tensor([0.0, 1.0])]),
        "histogram2d_np_style": lambda: torch.histogramdd(pts, bins=(4, 4)).hist.sum(),
        "bincount": lambda: torch.bincount(array(torch, [0, 1, 1, 3, 7], device)),
        "bincount_w": lambda: torch.bincount(array(torch, [0, 1, 1, 3], device),
                                             weights=array(torch, [0.5, 1.0, 2.0, 0.25], device)),
        "bincount_w_f64": lambda: torch.bincount(array(torch, [2, 2], device),
                                                 weights=array(torch, [0.5, 1.0], device, torch.float64)),
        "bincount_w_int": lambda: torch.bincount(array(torch, [2, 2], device), weights=array(torch, [3, 4], device)),
        "bincount_min": lambda: torch.bincount(array(torch, [1], device), minlength=4),
        "bincount_empty": lambda: torch.bincount(torch.empty(0, dtype=torch.long, device=device)),
        "bincount_neg": lambda: torch.bincount(array(torch, [-1, 2], device)),
        "bincount_float": lambda: torch.bincount(array(torch, [1.0], device)),
        "bincount_2d": lambda: torch.bincount(array(torch, [[1]], device)),
    })


def cov_corrcoef(torch, device):
    rng = np.random.default_rng(1542)
    X = torch.tensor(rng.standard_normal((3, 8)), dtype=torch.float64, device=device)
    fw = array(torch, [1, 2, 1, 3, 1, 1, 2, 1], device)
    aw = torch.tensor(rng.uniform(0.1, 1.0, 8), dtype=torch.float64, device=device)
    return cases(torch, {
        "cov": lambda: torch.cov(X), "cov_c0": lambda: torch.cov(X, correction=0),
        "cov_fw": lambda: torch.cov(X, fweights=fw), "cov_aw": lambda: torch.cov(X, aweights=aw),
        "cov_both": lambda: torch.cov(X, correction=2, fweights=fw, aweights=aw),
        "cov_1d": lambda: torch.cov(X[0]), "cov_method": lambda: X.cov(correction=0),
        "cov_int": lambda: torch.cov(array(torch, [[1, 2, 4], [0, 3, 3]], device)),
        "cov_float_fw": lambda: torch.cov(X, fweights=fw.double()),
        "cov_neg_fw": lambda: torch.cov(X, fweights=-fw),
        "cov_bad_len": lambda: torch.cov(X, aweights=aw[:3]),
        "cov_single_obs": lambda: torch.cov(X[:, :1]),
        "corrcoef": lambda: torch.corrcoef(X), "corrcoef_const": lambda: torch.corrcoef(
            torch.stack([X[0], torch.ones_like(X[0])])),
        "corrcoef_f32": lambda: torch.corrcoef(X.float()).dtype,
        "corrcoef_complex": lambda: torch.corrcoef(X.to(torch.complex128) * (1 + 1j)),
        "manual_vs_cov": lambda: bool(torch.allclose((X - X.mean(1, keepdim=True)) @ (X - X.mean(1, keepdim=True)).T
                                                     / 7, torch.cov(X))),
    })


def cumulative_extremes(torch, device):
    x = array(torch, [3.0, 1.0, 4.0, 1.0, 5.0, float("nan"), 2.0, 6.0], device)
    m = array(torch, [[2, 7, 1], [8, 2, 8], [1, 8, 2]], device)
    return cases(torch, {
        "cummax": lambda: torch.cummax(x, 0), "cummin": lambda: torch.cummin(x, 0),
        "cummax_int": lambda: torch.cummax(m, dim=1), "cummin_dim0": lambda: m.cummin(0),
        "cummax_ties": lambda: torch.cummax(array(torch, [1, 1, 0, 1], device), 0),
        "cummin_ties": lambda: torch.cummin(array(torch, [1.0, 1.0, 2.0, 1.0], device), 0),
        "cummax_bool": lambda: torch.cummax(array(torch, [False, True, False], device), 0),
        "cumprod": lambda: torch.cumprod(m, 1), "cumprod_dtype": lambda: torch.cumprod(m, 1, dtype=torch.float32),
        "cumsum_bool": lambda: array(torch, [True, True, False], device).cumsum(0),
        "logcumsumexp": lambda: torch.logcumsumexp(x[:5], 0),
        "drawdown": lambda: (torch.cummax(x[:5], 0).values - x[:5]).max(),
        "running_argmax_record": lambda: torch.unique_consecutive(torch.cummax(x[:5], 0).indices),
        "cummax_empty": lambda: torch.cummax(torch.empty(0, device=device), 0),
        "cummax_0d": lambda: torch.cummax(torch.tensor(3.0, device=device), 0),
        "cummax_out": lambda: torch.cummax(x, 0, out=(torch.empty(8, device=device),
                                                      torch.empty(8, dtype=torch.long, device=device))),
        "cumsum_negdim": lambda: m.cumsum(-1), "diff": lambda: torch.diff(m, n=2, dim=1),
        "diff_prepend": lambda: torch.diff(x[:4], prepend=array(torch, [0.0], device), append=array(
            torch, [9.0], device)),
        "cumtrapz": lambda: torch.cumulative_trapezoid(x[:5], dx=0.5),
        "trapz": lambda: torch.trapezoid(x[:5], x=torch.arange(5.0, device=device) ** 2),
    })


def running_statistics(torch, device):
    rng = np.random.default_rng(1543)
    data = torch.tensor(rng.standard_normal((40, 3)) * [1.0, 10.0, 0.1] + [0.0, 5.0, -1.0], dtype=torch.float64,
                        device=device)
    # z-scores, robust scaling by median / MAD, rank transform, winsorising by quantiles
    z = (data - data.mean(0)) / data.std(0)
    med = data.median(0).values
    mad = (data - med).abs().median(0).values
    ranks = data.argsort(0).argsort(0).double() / (len(data) - 1)
    lo, hi = torch.quantile(data, torch.tensor([0.05, 0.95], dtype=data.dtype, device=device), dim=0)
    wins = data.clamp(min=lo, max=hi)
    skew = ((z ** 3).mean(0))
    kurt = (z ** 4).mean(0) - 3
    sm = torch.std_mean(data, dim=0, correction=0)
    vm = torch.var_mean(data, 0, unbiased=True, keepdim=True)
    return cases(torch, {
        "z": lambda: z.abs().max(0).values, "mad": lambda: mad, "ranks": lambda: ranks[:5], "wins": lambda: wins.mean(0),
        "skew": lambda: skew, "kurt": lambda: kurt, "std_mean": lambda: sm, "var_mean": lambda: vm,
        "aminmax": lambda: torch.aminmax(data, dim=0), "aminmax_all": lambda: data.aminmax(),
        "count_nonzero": lambda: torch.count_nonzero(data > 0, dim=0),
        "std_int": lambda: array(torch, [1, 2], device).std(),
        "var_correction2": lambda: data.var(0, correction=2), "std_single": lambda: data[:1].std(0),
    })


PROGRAMS = [quantiles, histograms, cov_corrcoef, cumulative_extremes, running_statistics]
NEEDS_CPP = {}
