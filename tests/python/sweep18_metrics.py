"""Sweep 18 programs, evaluation metrics written in torch: ROC and precision-recall curves by sort/cumsum (ties,
trapezoid areas, average precision), confusion matrices by bincount with per-class/macro/weighted scores, Cohen's
kappa and Matthews correlation, expected calibration error by bucketize with temperature scaling by LBFGS, top-k
accuracy, retrieval mAP/NDCG/MRR, bootstrap and permutation confidence intervals with torch.Generator, and regression
and rank-correlation metrics."""
import numpy as np

from sweep15_common import cases, plain


def _scores(torch, seed, n, device, ties=False):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    s = rng.normal(0, 1, n) + 1.2 * y
    if ties:
        s = np.round(s, 1)
    return (torch.tensor(s, dtype=torch.float32, device=device), torch.tensor(y, device=device))


# ---- ROC-AUC and PR curves: distinct thresholds, tied scores, trapezoid areas, average precision --------------------
def roc_pr_curves(torch, device):
    def curves(scores, labels):
        order = torch.argsort(scores, descending=True, stable=True)
        s, y = scores[order], labels[order].float()
        distinct = torch.nonzero(torch.diff(s)).squeeze(1)
        idx = torch.cat([distinct, torch.tensor([y.numel() - 1], device=s.device)])
        tps = torch.cumsum(y, 0)[idx]
        fps = 1 + idx - tps
        thresholds = s[idx]
        tpr = torch.cat([torch.zeros(1, device=s.device), tps / tps[-1]])
        fpr = torch.cat([torch.zeros(1, device=s.device), fps / fps[-1]])
        precision = tps / (tps + fps)
        recall = tps / tps[-1]
        ap = torch.sum(torch.diff(torch.cat([torch.zeros(1, device=s.device), recall])) * precision)
        return fpr, tpr, thresholds, precision, recall, ap

    out = {}
    for name, ties in (("distinct", False), ("tied", True)):
        scores, labels = _scores(torch, 2100 + ties, 60, device, ties)
        fpr, tpr, thr, prec, rec, ap = curves(scores, labels)
        auc = torch.trapezoid(tpr, fpr)
        # AUC as the Mann-Whitney statistic by ranks (ties get average ranks)
        pos, neg = scores[labels], scores[~labels]
        cmp = (pos[:, None] > neg[None, :]).float() + 0.5 * (pos[:, None] == neg[None, :]).float()
        out[name] = {"auc": auc.item(), "mw": cmp.mean().item(), "ap": ap.item(), "n_thr": thr.numel(),
                     "fpr": plain(torch, fpr[::7]), "prec": plain(torch, prec[::7]),
                     "cum_area": plain(torch, torch.cumulative_trapezoid(tpr, fpr)[::9])}
    x = torch.linspace(0, 1, 5, device=device)
    out["trapz"] = [torch.trapezoid(x ** 2, dx=0.25).item(),
                    torch.trapezoid(torch.stack([x, 2 * x]), x, dim=1).tolist(),
                    torch.trapezoid(torch.ones(3, 4, device=device)).tolist()]
    out["errors"] = cases(torch, {"trapz_shape": lambda: torch.trapezoid(torch.ones(3), torch.ones(4)),
                                  "trapz_both": lambda: torch.trapezoid(torch.ones(3), torch.ones(3), dx=0.5)})
    return out


# ---- confusion matrices by bincount, per-class precision/recall/F1 with zero divisions, kappa, MCC -----------------
def confusion_scores(torch, device):
    rng = np.random.default_rng(2110)
    C = 4
    y_true = torch.tensor(rng.integers(0, C, 50), device=device)
    noise = torch.tensor(rng.integers(0, C, 50), device=device)
    flip = torch.tensor(rng.random(50) < 0.35, device=device)
    y_pred = torch.where(flip, noise, y_true)
    y_pred[y_pred == 3] = 2   # class 3 is never predicted: its precision divides by zero
    cm = torch.bincount(y_true * C + y_pred, minlength=C * C).reshape(C, C)
    tp = cm.diagonal()
    support = cm.sum(1)
    predicted = cm.sum(0)
    precision = tp / predicted
    recall = tp / support
    f1 = 2 * precision * recall / (precision + recall)
    f1_safe = torch.nan_to_num(f1, nan=0.0)
    macro = f1_safe.mean()
    weighted = (f1_safe * support).sum() / support.sum()
    micro = tp.sum() / cm.sum()
    n = cm.sum()
    po = tp.sum() / n
    pe = (cm.sum(0) * cm.sum(1)).sum() / n ** 2
    kappa = (po - pe) / (1 - pe)
    weights = (torch.arange(C, device=device)[:, None] - torch.arange(C, device=device)[None, :]).abs().float()
    expected = torch.outer(cm.sum(1), cm.sum(0)).float() / n
    kappa_lin = 1 - (weights * cm).sum() / (weights * expected).sum()
    t, p_ = cm.sum(1).double(), cm.sum(0).double()
    c, s = tp.sum().double(), n.double()
    mcc = (c * s - t @ p_) / torch.sqrt((s ** 2 - p_ @ p_) * (s ** 2 - t @ t))
    norm_rows = cm / cm.sum(1, keepdim=True)
    cm_index_put = torch.zeros(C, C, dtype=torch.long, device=device).index_put_((y_true, y_pred),
                                                                                  torch.ones_like(y_true),
                                                                                  accumulate=True)
    hist = torch.histc(y_pred.float(), bins=C, min=0, max=C - 1)
    return {"cm": cm.tolist(), "dtypes": [str(cm.dtype), str(precision.dtype), str(mcc.dtype)],
            "precision": plain(torch, precision), "recall": plain(torch, recall), "f1": plain(torch, f1),
            "macro": macro.item(), "weighted": weighted.item(), "micro": micro.item(), "kappa": kappa.item(),
            "kappa_lin": kappa_lin.item(), "mcc": mcc.item(), "norm": plain(torch, norm_rows),
            "same": bool(torch.equal(cm, cm_index_put)), "histc": plain(torch, hist)}


# ---- calibration: ECE/MCE with bucketize, a reliability table, temperature scaling fitted by LBFGS -----------------
def calibration(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(2120)
    logits = torch.tensor(rng.normal(0, 2.5, (200, 5)), dtype=torch.float32, device=device)
    labels = torch.where(torch.tensor(rng.random(200) < 0.6, device=device), logits.argmax(1),
                         torch.tensor(rng.integers(0, 5, 200), device=device))

    def ece(probs, labels, n_bins=10):
        conf, pred = probs.max(1)
        correct = (pred == labels).float()
        edges = torch.linspace(0, 1, n_bins + 1, device=probs.device)
        bins = torch.bucketize(conf, edges[1:-1], right=True)
        count = torch.bincount(bins, minlength=n_bins).float()
        acc_sum = torch.zeros(n_bins, device=probs.device).scatter_add_(0, bins, correct)
        conf_sum = torch.zeros(n_bins, device=probs.device).index_add_(0, bins, conf)
        nonempty = count > 0
        gap = (acc_sum - conf_sum).abs() / count.clamp_min(1)
        return (gap * count).sum() / count.sum(), gap[nonempty].max(), count, bins

    before, mce_before, count, bins = ece(F.softmax(logits, 1), labels)
    # fitted in float64: the optimum is flat, float32 rounding moves LBFGS's end point in the third digit
    temperature = torch.nn.Parameter(torch.ones(1, device=device, dtype=torch.float64))
    logits64 = logits.double()
    opt = torch.optim.LBFGS([temperature], lr=0.05, max_iter=30, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits64 / temperature, labels)
        loss.backward()
        return loss

    first = opt.step(closure)
    after, mce_after, _, _ = ece(F.softmax(logits / temperature.detach().float(), 1), labels)
    edges = torch.tensor([0.1, 0.5, 0.9], device=device)
    probe = torch.tensor([0.05, 0.1, 0.5, 0.7, 0.9, 1.0], device=device)
    brier = (F.softmax(logits, 1) - F.one_hot(labels, 5)).pow(2).sum(1).mean()
    nll = F.nll_loss(F.log_softmax(logits, 1), labels)
    return {"ece": [before.item(), after.item()], "mce": [mce_before.item(), mce_after.item()],
            "count": plain(torch, count), "bins_dtype": str(bins.dtype), "t": temperature.item(),
            "first_loss": first.item(), "lbfgs_state": sorted(k for k in opt.state[temperature]),
            "func_evals": opt.state[temperature]["func_evals"], "n_iter": opt.state[temperature]["n_iter"],
            "bucketize": [torch.bucketize(probe, edges).tolist(), torch.bucketize(probe, edges, right=True).tolist(),
                          str(torch.bucketize(probe, edges, out_int32=True).dtype),
                          torch.bucketize(0.5, edges).tolist()],
            "brier": brier.item(), "nll": nll.item(),
            "errors": cases(torch, {"bucketize_2d_edges": lambda: torch.bucketize(probe, edges.view(3, 1)),
                                    "lbfgs_no_closure": lambda: opt.step()})}


# ---- ranking metrics: top-k accuracy, retrieval mAP, NDCG with log2 discounts, MRR -----------------------------------
def ranking_metrics(torch, device):
    rng = np.random.default_rng(2130)
    logits = torch.tensor(rng.normal(0, 1, (30, 10)), dtype=torch.float32, device=device)
    target = torch.tensor(rng.integers(0, 10, 30), device=device)
    maxk = 5
    _, pred = logits.topk(maxk, 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    topk = [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / target.size(0)).item()
            for k in (1, 3, 5)]
    ranks = (logits > logits.gather(1, target[:, None])).sum(1) + 1
    mrr = (1.0 / ranks.float()).mean()
    # retrieval: 6 queries, 12 documents with graded relevance
    sim = torch.tensor(rng.normal(0, 1, (6, 12)), dtype=torch.float32, device=device)
    rel = torch.tensor(rng.integers(0, 3, (6, 12)), device=device)
    order = sim.argsort(1, descending=True)
    rel_sorted = rel.gather(1, order)
    binary = (rel_sorted > 0).float()
    hits = binary.cumsum(1)
    precision_at = hits / torch.arange(1, 13, device=device)
    ap = (precision_at * binary).sum(1) / binary.sum(1).clamp_min(1)
    discounts = torch.log2(torch.arange(2, 14, device=device, dtype=torch.float32))
    dcg = ((2 ** rel_sorted - 1) / discounts)[:, :5].sum(1)
    ideal = ((2 ** rel.sort(1, descending=True).values - 1) / discounts)[:, :5].sum(1)
    ndcg = torch.where(ideal > 0, dcg / ideal, torch.zeros_like(dcg))
    first_hit = torch.argmax(binary, 1)
    recall_at_3 = binary[:, :3].sum(1) / binary.sum(1)
    kth = torch.kthvalue(sim, 3, dim=1)
    return {"topk": topk, "mrr": mrr.item(), "ranks": ranks.tolist(), "ap": plain(torch, ap), "map": ap.mean().item(),
            "ndcg": plain(torch, ndcg), "first_hit": first_hit.tolist(), "recall3": plain(torch, recall_at_3),
            "dcg_dtype": str(dcg.dtype), "kth": [plain(torch, kth.values), kth.indices.tolist()],
            "errors": cases(torch, {"topk_big": lambda: logits.topk(11),
                                    "kth_big": lambda: torch.kthvalue(sim, 13, dim=1)})}


# ---- bootstrap and permutation intervals with torch.Generator: reproducibility, state round trips, quantiles -------
def bootstrap_intervals(torch, device):
    rng = np.random.default_rng(2140)
    a = torch.tensor(rng.normal(0.3, 1.0, 80), dtype=torch.float32, device=device)
    b = torch.tensor(rng.normal(0.0, 1.0, 80), dtype=torch.float32, device=device)
    B = 200
    # resample indices from NumPy (the libraries' streams differ), statistics and quantiles in torch
    idx = torch.tensor(rng.integers(0, 80, (B, 80)), device=device)
    means = a[idx].mean(1)
    qs = torch.tensor([0.025, 0.5, 0.975], device=device)
    ci = {m: plain(torch, torch.quantile(means, qs, interpolation=m))
          for m in ("linear", "lower", "higher", "midpoint", "nearest")}
    diffs = a[idx].mean(1) - b[idx].mean(1)
    perms = torch.tensor(np.stack([rng.permutation(160) for _ in range(100)]), device=device)
    pooled = torch.cat([a, b])
    stat = pooled[perms[:, :80]].mean(1) - pooled[perms[:, 80:]].mean(1)
    observed = a.mean() - b.mean()
    p_value = ((stat.abs() >= observed.abs()).sum() + 1) / (stat.numel() + 1)
    with_nan = torch.cat([means, torch.tensor([float("nan")], device=device)])
    # torch.Generator: the same seed gives the same draws, get_state/set_state replays them
    g = torch.Generator(device=device).manual_seed(123)
    first = torch.randint(0, 80, (5, 80), generator=g, device=device)
    state = g.get_state()
    second = torch.randint(0, 80, (5, 80), generator=g, device=device)
    g.set_state(state)
    replay = torch.randint(0, 80, (5, 80), generator=g, device=device)
    g2 = torch.Generator(device=device).manual_seed(123)
    again = torch.randint(0, 80, (5, 80), generator=g2, device=device)
    perm = torch.randperm(80, generator=g2, device=device)
    return {"ci": ci, "diff_ci": plain(torch, torch.quantile(diffs, torch.tensor([0.05, 0.95], device=device))),
            "p": p_value.item(), "observed": observed.item(), "nanq": [plain(torch, torch.quantile(with_nan, 0.5)),
                                                                       torch.nanquantile(with_nan, 0.5).item()],
            "std_mean": [v.item() for v in torch.std_mean(means, correction=0)],
            "gen": [bool(torch.equal(second, replay)), bool(torch.equal(first, again)), str(state.dtype),
                    g.initial_seed(), g.device.type == torch.device(device).type,
                    sorted(perm.tolist()) == list(range(80)), str(first.dtype)],
            "errors": cases(torch, {
                "q_range": lambda: torch.quantile(means, 1.5),
                "q_interp": lambda: torch.quantile(means, 0.5, interpolation="cubic"),
                "q_int": lambda: torch.quantile(idx.float().long(), 0.5),
                "q_dtype": lambda: torch.quantile(means, torch.tensor([0.5], dtype=torch.float64, device=device)),
            })}


# ---- regression and rank correlations: R2, explained variance, Pearson, Spearman (average ranks), Kendall tau ------
def regression_metrics(torch, device):
    rng = np.random.default_rng(2150)
    y = torch.tensor(rng.normal(0, 2, 40), dtype=torch.float64, device=device)
    pred = y + torch.tensor(rng.normal(0, 0.8, 40), dtype=torch.float64, device=device)
    pred[::7] = torch.round(pred[::7])
    resid = y - pred
    r2 = 1 - resid.pow(2).sum() / (y - y.mean()).pow(2).sum()
    ev = 1 - resid.var() / y.var()
    mae, rmse = resid.abs().mean(), resid.pow(2).mean().sqrt()
    mape = ((resid / y).abs()).mean()
    pearson = torch.corrcoef(torch.stack([y, pred]))[0, 1]

    def average_ranks(x):
        sorted_x, order = torch.sort(x, stable=True)
        ranks = torch.empty_like(x)
        ranks[order] = torch.arange(1, x.numel() + 1, dtype=x.dtype, device=x.device)
        uniq, inv, counts = torch.unique(sorted_x, return_inverse=True, return_counts=True)
        sums = torch.zeros(uniq.numel(), dtype=x.dtype, device=x.device).index_add_(0, inv, ranks[order])
        return (sums / counts)[torch.searchsorted(uniq, x)]

    tied = torch.round(pred)
    spearman = torch.corrcoef(torch.stack([average_ranks(y), average_ranks(tied)]))[0, 1]
    sgn = torch.sign(y[:, None] - y[None, :]) * torch.sign(tied[:, None] - tied[None, :])
    concordance = torch.triu(sgn, diagonal=1).sum()
    pairs = 40 * 39 / 2
    tau_a = concordance / pairs
    quantiles = torch.tensor([0.1, 0.5, 0.9], dtype=torch.float64, device=device)
    err = y[:, None] - pred[:, None] - quantiles
    pinball = torch.maximum(quantiles * err, (quantiles - 1) * err).mean(0)
    cov = torch.cov(torch.stack([y, pred]), correction=0)
    wcov = torch.cov(torch.stack([y, pred]), fweights=torch.arange(1, 41, device=device),
                     aweights=torch.linspace(0.5, 1.5, 40, dtype=torch.float64, device=device))
    huber = torch.nn.functional.huber_loss(pred, y, delta=0.5)
    return {"r2": r2.item(), "ev": ev.item(), "mae": mae.item(), "rmse": rmse.item(), "mape": mape.item(),
            "pearson": pearson.item(), "spearman": spearman.item(), "tau_a": tau_a.item(),
            "pinball": plain(torch, pinball), "cov": plain(torch, cov), "wcov": plain(torch, wcov),
            "huber": huber.item(), "ranks": plain(torch, average_ranks(tied)[:8]),
            "errors": cases(torch, {"cov_3d": lambda: torch.cov(torch.ones(2, 2, 2)),
                                    "fweights_float": lambda: torch.cov(torch.stack([y, pred]), fweights=y),
                                    "aweights_neg": lambda: torch.cov(torch.stack([y, pred]), aweights=-y.abs()),
                                    "corrcoef_3d": lambda: torch.corrcoef(torch.ones(2, 2, 2))})}


PROGRAMS = [roc_pr_curves, confusion_scores, calibration, ranking_metrics, bootstrap_intervals, regression_metrics]
NEEDS_CPP = {}


# ---- distribution shift monitoring: histograms (weights, density, explicit edges), PSI, KS statistics, drawdowns -----
def drift_statistics(torch, device):
    rng = np.random.default_rng(2160)
    ref = torch.tensor(rng.normal(0, 1, 300), dtype=torch.float32)
    cur = torch.tensor(rng.normal(0.3, 1.2, 250), dtype=torch.float32)
    edges = torch.quantile(ref, torch.linspace(0, 1, 11))
    edges[0], edges[-1] = -float("inf"), float("inf")
    finite = torch.cat([torch.tensor([-10.0]), edges[1:-1], torch.tensor([10.0])])
    h_ref, e_ref = torch.histogram(ref, bins=finite)
    h_cur, _ = torch.histogram(cur, bins=finite)
    p, q = h_ref / h_ref.sum(), h_cur / h_cur.sum()
    psi = ((q - p) * torch.log((q + 1e-6) / (p + 1e-6))).sum()
    dens, dens_edges = torch.histogram(cur, bins=8, range=(-3.0, 3.0), density=True)
    weighted, _ = torch.histogram(cur, bins=5, weight=torch.linspace(0.5, 1.5, 250))
    hdd = torch.histogramdd(torch.stack([ref[:250], cur], 1), bins=[3, 4])
    # two-sample Kolmogorov-Smirnov statistic through sorted samples and searchsorted
    a_sorted, b_sorted = ref.sort().values, cur.sort().values
    allv = torch.cat([a_sorted, b_sorted])
    cdf_a = torch.searchsorted(a_sorted, allv, right=True) / a_sorted.numel()
    cdf_b = torch.searchsorted(b_sorted, allv, right=True) / b_sorted.numel()
    ks = (cdf_a - cdf_b).abs().max()
    # a metric's running drawdown (cummax) and a smoothed log-mean-exp (logcumsumexp)
    series = torch.tensor(np.cumsum(rng.normal(0.01, 0.05, 60)), dtype=torch.float32, device=device)
    peak, peak_idx = torch.cummax(series, 0)
    drawdown = (peak - series).max()
    lme = torch.logcumsumexp(series * 10, 0) / 10
    cmin = torch.cummin(series, 0)
    inside = torch.isin(torch.arange(10, device=device), torch.tensor([2, 3, 5, 7], device=device))
    outside = torch.isin(torch.arange(10, device=device), torch.tensor([2, 3], device=device), invert=True)
    hc = torch.histc(cur.to(device), bins=6, min=-2, max=2)
    return {"h_ref": plain(torch, h_ref), "h_cur": plain(torch, h_cur), "psi": psi.item(), "edges": plain(torch, e_ref),
            "dens": plain(torch, dens), "dens_edges": plain(torch, dens_edges), "weighted": plain(torch, weighted),
            "hdd": [plain(torch, hdd.hist), [plain(torch, e) for e in hdd.bin_edges]], "ks": ks.item(),
            "drawdown": drawdown.item(), "peak_idx": peak_idx[-10:].tolist(), "lme": plain(torch, lme[::10]),
            "cmin": cmin.indices[-5:].tolist(), "isin": [inside.tolist(), outside.tolist()], "histc": plain(torch, hc),
            "errors": cases(torch, {
                "hist_int": lambda: torch.histogram(torch.arange(5), bins=3),
                "hist_range": lambda: torch.histogram(cur, bins=3, range=(1.0, -1.0)),
                "hist_edges_order": lambda: torch.histogram(cur, bins=torch.tensor([0.0, 2.0, 1.0])),
                "hist_weight_shape": lambda: torch.histogram(cur, bins=3, weight=torch.ones(3)),
                "histc_range": lambda: torch.histc(cur, bins=4, min=2, max=1),
                "histc_bins": lambda: torch.histc(cur, bins=0),
            })}


PROGRAMS += [drift_statistics]
