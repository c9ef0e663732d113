"""Sweep 16 programs, classical machine learning written in torch: k-means++ and Lloyd's iterations, a Gaussian
mixture fitted by EM, softmax regression with optim.LBFGS, a linear SVM on hinge losses, k nearest neighbours by
cdist/topk, Gaussian and multinomial naive Bayes, PCA through pca_lowrank/svd_lowrank, kernel ridge regression and a
Gaussian-process posterior, spectral clustering and t-SNE gradient steps. Random numbers come from NumPy (the two
libraries' generators differ for one seed)."""
import numpy as np

from sweep15_common import cases


def _blobs(torch, device, seed, n_per=20, centers=((0.0, 0.0), (4.0, 4.0), (-4.0, 3.0)), dtype=None):
    rng = np.random.default_rng(seed)
    pts = np.concatenate([rng.normal(c, 0.7, (n_per, 2)) for c in centers])
    labels = np.repeat(np.arange(len(centers)), n_per)
    return (torch.tensor(pts, dtype=dtype or torch.float32, device=device),
            torch.tensor(labels, device=device))


def _canonical_partition(assign):
    """Cluster labels renamed in order of first appearance (a clustering's labels are arbitrary)."""
    names, out = {}, []
    for a in assign:
        out.append(names.setdefault(a, len(names)))
    return out


# ---- k-means++ seeding and Lloyd's iterations (cdist, argmin, index_add_, bincount, scatter_reduce mean) ---------
def kmeans_plus_plus(torch, device):
    x, _ = _blobs(torch, device, 1600)
    rng = np.random.default_rng(1601)
    k = 3
    centers = x[[int(rng.integers(len(x)))]]
    while len(centers) < k:
        d2 = torch.cdist(x, centers).min(dim=1).values.pow(2)
        cdf = torch.cumsum(d2 / d2.sum(), 0)
        pick = torch.searchsorted(cdf, torch.tensor([rng.uniform()], dtype=cdf.dtype, device=device))
        centers = torch.cat([centers, x[pick.clamp(max=len(x) - 1)]])
    history = []
    for _ in range(8):
        assign = torch.cdist(x, centers).argmin(1)
        counts = torch.bincount(assign, minlength=k).to(x.dtype)
        sums = torch.zeros(k, 2, device=device).index_add_(0, assign, x)
        new = sums / counts.clamp(min=1).unsqueeze(1)
        by_reduce = torch.zeros(k, 2, device=device).scatter_reduce(
            0, assign.unsqueeze(1).expand(-1, 2), x, reduce="mean", include_self=False)
        inertia = ((x - new[assign]) ** 2).sum().item()
        history.append(round(inertia, 3))
        shift = (new - centers).norm(dim=1).max().item()
        centers = new
        if shift < 1e-6:
            break
    order = torch.argsort(centers[:, 0])
    return {"history": history, "centers": centers[order].tolist(),
            "reduce_same": bool(torch.allclose(by_reduce, new, atol=1e-5)),
            "sizes": torch.bincount(assign, minlength=k)[order].tolist(),
            "partition": _canonical_partition(assign.tolist()), "dtype": str(counts.dtype)}


# ---- Gaussian mixture EM with full covariances (MultivariateNormal, logsumexp, einsum, cholesky) ------------------
def gaussian_mixture_em(torch, device):
    x, _ = _blobs(torch, device, 1610, dtype=torch.float64)
    n, d = x.shape
    k = 3
    means = x[[0, 25, 45]].clone()
    covs = torch.eye(d, dtype=x.dtype, device=device).expand(k, d, d).clone()
    weights = torch.full((k,), 1.0 / k, dtype=x.dtype, device=device)
    D = torch.distributions
    lls = []
    for _ in range(12):
        comp = D.MultivariateNormal(means, covariance_matrix=covs)
        log_p = comp.log_prob(x.unsqueeze(1)) + weights.log()
        ll = torch.logsumexp(log_p, dim=1)
        lls.append(ll.sum().item())
        resp = (log_p - ll.unsqueeze(1)).exp()
        nk = resp.sum(0)
        weights = nk / n
        means = (resp.T @ x) / nk.unsqueeze(1)
        diff = x.unsqueeze(1) - means
        covs = torch.einsum("nk,nki,nkj->kij", resp, diff, diff) / nk.view(k, 1, 1)
        covs = covs + 1e-6 * torch.eye(d, dtype=x.dtype, device=device)
    chol = torch.linalg.cholesky(covs)
    mix = D.MixtureSameFamily(D.Categorical(probs=weights), D.MultivariateNormal(means, scale_tril=chol))
    increasing = all(b >= a - 1e-9 for a, b in zip(lls, lls[1:]))
    order = torch.argsort(means[:, 0])
    return {"ll": lls[-1], "increasing": increasing, "weights": weights[order].tolist(),
            "means": means[order].tolist(), "logdet": torch.logdet(covs[order]).tolist(),
            "mix_lp": mix.log_prob(x[:4]).tolist(), "mix_mean": mix.mean.tolist(),
            "entropy": comp.entropy().sort().values.tolist(), "batch": [list(comp.batch_shape), list(comp.event_shape)]}


# ---- softmax regression fitted by L-BFGS with a strong Wolfe line search (closure, state_dict) ------------------
def softmax_regression_lbfgs(torch, device):
    x, y = _blobs(torch, device, 1620, dtype=torch.float64)
    F = torch.nn.functional
    w = torch.zeros(2, 3, dtype=x.dtype, device=device, requires_grad=True)
    b = torch.zeros(3, dtype=x.dtype, device=device, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], lr=1, max_iter=25, history_size=5, line_search_fn="strong_wolfe",
                            tolerance_grad=1e-9, tolerance_change=1e-12)
    calls = []

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(x @ w + b, y) + 1e-2 * w.pow(2).sum()
        loss.backward()
        calls.append(loss.item())
        return loss

    first = opt.step(closure)
    for _ in range(2):
        opt.step(closure)
    state = opt.state_dict()["state"][0]
    probs = F.softmax(x @ w + b, dim=1)
    # plain L-BFGS without a line search on a binary logistic problem
    yb = (y == 1).to(x.dtype)
    v = torch.zeros(2, dtype=x.dtype, device=device, requires_grad=True)
    c = torch.zeros((), dtype=x.dtype, device=device, requires_grad=True)
    opt2 = torch.optim.LBFGS([v, c], lr=0.5, max_iter=10)

    def closure2():
        opt2.zero_grad()
        loss = F.binary_cross_entropy_with_logits(x @ v + c, yb, pos_weight=torch.tensor(2.0, dtype=x.dtype,
                                                                                            device=device))
        loss.backward()
        return loss

    for _ in range(3):
        opt2.step(closure2)
    return {"first": first.item(), "final": calls[-1], "n_calls": len(calls) > 5,
            "accuracy": (probs.argmax(1) == y).float().mean().item(), "w": w.detach().tolist(),
            "state_keys": sorted(state), "n_iter": state["n_iter"], "func_evals": state["func_evals"] > 0,
            "hist": len(state["old_dirs"]), "binary": closure2().item(), "v": v.detach().tolist()}


# ---- a linear SVM: hinge losses by hand and F.multi_margin_loss, SGD with nesterov and weight decay ---------------
def linear_svm(torch, device):
    x, y = _blobs(torch, device, 1630, n_per=15)
    F = torch.nn.functional
    sign = torch.where(y == 0, 1.0, -1.0)
    w = torch.zeros(2, device=device, requires_grad=True)
    b = torch.zeros(1, device=device, requires_grad=True)
    opt = torch.optim.SGD([{"params": [w], "weight_decay": 1e-2}, {"params": [b], "weight_decay": 0.0}], lr=0.05,
                          momentum=0.9, nesterov=True)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        margin = sign * (x @ w + b)
        loss = torch.clamp(1 - margin, min=0).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    margin = (sign * (x @ w + b)).detach()
    support = (margin < 1 + 1e-3).nonzero().flatten().tolist()
    W = torch.zeros(2, 3, device=device, requires_grad=True)
    multi = []
    for p, m in ((1, 1.0), (2, 0.5)):
        loss = F.multi_margin_loss(x @ W + 0.1, y, p=p, margin=m)
        multi.append(loss.item())
    weight = torch.tensor([1.0, 2.0, 0.5], device=device)
    lw = F.multi_margin_loss(x @ W.detach() + torch.arange(3.0, device=device), y, weight=weight, reduction="none")
    he = F.hinge_embedding_loss(margin, torch.where(margin > 0, 1.0, -1.0), margin=0.5)
    soft = F.soft_margin_loss(x @ w.detach() + b.detach(), sign)
    return {"losses": losses[::6], "w": w.detach().tolist(), "b": b.item(), "support": support, "multi": multi,
            "weighted": lw[:6].tolist(), "hinge_embedding": he.item(), "soft_margin": soft.item(),
            "errors": cases(torch, {"bad_p": lambda: F.multi_margin_loss(x @ W, y, p=3),
                                    "bad_target": lambda: F.multi_margin_loss(x @ W, y.float())})}


# ---- k nearest neighbours (cdist in its compute modes and p-norms, topk, mode voting, distance weighting) ----------
def knn_classifier(torch, device):
    train, ty = _blobs(torch, device, 1640)
    rng = np.random.default_rng(1641)
    query = torch.tensor(rng.uniform(-5, 5, (12, 2)), dtype=torch.float32, device=device)
    k = 5
    out = {}
    for mode in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"):
        d = torch.cdist(query, train, compute_mode=mode)
        out[mode] = d.topk(k, largest=False).indices.sort(1).values.tolist()
    d = torch.cdist(query, train)
    dist, idx = d.topk(k, dim=1, largest=False, sorted=True)
    votes = ty[idx]
    out["mode"] = torch.mode(votes, dim=1).values.tolist()
    onehot = torch.nn.functional.one_hot(votes, num_classes=3).float()
    weighted = (onehot / (dist.unsqueeze(-1) + 1e-6)).sum(1)
    out["weighted"] = weighted.argmax(1).tolist()
    out["scatter_votes"] = torch.zeros(12, 3, device=device).scatter_add_(
        1, votes, torch.ones_like(votes, dtype=torch.float32)).tolist()
    out["manhattan"] = torch.cdist(query, train, p=1).topk(3, largest=False).values.tolist()
    out["chebyshev"] = torch.cdist(query[:3], train[:4], p=float("inf")).tolist()
    out["batched"] = list(torch.cdist(query.view(3, 4, 2), train.view(3, 20, 2)).shape)
    out["pdist"] = torch.nn.functional.pdist(train[:5]).tolist()
    loo = torch.cdist(train, train).fill_diagonal_(float("inf")).argmin(1)
    out["loo_accuracy"] = (ty[loo] == ty).float().mean().item()
    out["pairwise"] = torch.nn.functional.pairwise_distance(query[:4], train[:4], keepdim=True).tolist()
    out["cos"] = torch.nn.functional.cosine_similarity(query.unsqueeze(1), train[:6].unsqueeze(0), dim=-1)[0].tolist()
    return out


# ---- naive Bayes: Gaussian (per-class means and variances by index_reduce) and multinomial (counts, xlogy) --------
def naive_bayes(torch, device):
    x, y = _blobs(torch, device, 1650, dtype=torch.float64)
    k = 3
    counts = torch.bincount(y, minlength=k)
    prior = counts.double() / len(y)
    means = torch.zeros(k, 2, dtype=x.dtype, device=device).index_reduce_(
        0, y, x, "mean", include_self=False)
    sq = torch.zeros(k, 2, dtype=x.dtype, device=device).index_add_(0, y, (x - means[y]) ** 2)
    var = sq / (counts.unsqueeze(1) - 1)
    per_class_var = torch.stack([x[y == c].var(0) for c in range(k)])
    rng = np.random.default_rng(1651)
    q = torch.tensor(rng.uniform(-5, 6, (8, 2)), dtype=x.dtype, device=device)
    log_like = -0.5 * (((q.unsqueeze(1) - means) ** 2) / var + torch.log(2 * torch.pi * var)).sum(-1)
    joint = log_like + prior.log()
    post = torch.log_softmax(joint, dim=1)
    normal = torch.distributions.Normal(means, var.sqrt())
    via_dist = normal.log_prob(q.unsqueeze(1)).sum(-1) + prior.log()
    # multinomial NB over word counts with Laplace smoothing
    docs = torch.tensor(rng.integers(0, 5, (12, 6)), device=device)
    labels = torch.tensor([0, 1, 2] * 4, device=device)
    word_counts = torch.zeros(3, 6, dtype=torch.long, device=device).index_add_(0, labels, docs)
    theta = (word_counts + 1).double() / (word_counts.sum(1, keepdim=True) + 6)
    scores = docs.double() @ theta.log().T + torch.log(torch.bincount(labels).double() / 12)
    ll_doc = torch.special.xlogy(docs.double(), theta[labels]).sum(1)
    multinom = torch.distributions.Multinomial(total_count=int(docs[0].sum()), probs=theta[0])
    return {"means": means.tolist(), "var_same": bool(torch.allclose(var, per_class_var)),
            "post": post.exp().tolist(), "pred": joint.argmax(1).tolist(),
            "dist_same": bool(torch.allclose(via_dist, joint)), "scores": scores.argmax(1).tolist(),
            "ll_doc": ll_doc.tolist(), "multinom": multinom.log_prob(docs[0].double()).item(),
            "word_dtype": str(word_counts.dtype), "prior": prior.tolist()}


# ---- PCA: pca_lowrank / svd_lowrank against an exact SVD (singular values, projectors, explained variance) ---------
def pca_lowrank_program(torch, device):
    rng = np.random.default_rng(1660)
    basis = rng.standard_normal((3, 8))
    a = torch.tensor(rng.standard_normal((40, 3)) @ basis + 0.01 * rng.standard_normal((40, 8)),
                     dtype=torch.float64, device=device)
    centered = a - a.mean(0)
    U, S, V = torch.pca_lowrank(a, q=5, center=True, niter=4)
    exact = torch.linalg.svdvals(centered)
    U2, S2, V2 = torch.svd_lowrank(centered, q=4, niter=3)
    proj = V[:, :3] @ V[:, :3].T
    proj_exact = (lambda vh: vh[:3].T @ vh[:3])(torch.linalg.svd(centered, full_matrices=False).Vh)
    ratio = (S ** 2 / (S ** 2).sum())
    scores = centered @ V[:, :2]
    recon = U2[:, :3] @ torch.diag(S2[:3]) @ V2[:, :3].T
    return {"shapes": [list(U.shape), list(S.shape), list(V.shape), list(U2.shape)],
            "sv": S[:3].tolist(), "exact": exact[:3].tolist(), "sv2": S2[:3].tolist(),
            "proj_same": bool(torch.allclose(proj, proj_exact, atol=1e-6)), "ratio": ratio[:3].tolist(),
            "score_norms": scores.norm(dim=0).tolist(), "recon_err": (recon - centered).norm().item() < 0.2,
            "orth": bool(torch.allclose(V.T @ V, torch.eye(5, dtype=V.dtype, device=device), atol=1e-8)),
            "rank": torch.linalg.matrix_rank(centered, atol=0.5).item(),
            "uncentered": torch.pca_lowrank(a, q=3, center=False)[1][:1].tolist(),
            "errors": cases(torch, {"q_too_big": lambda: torch.pca_lowrank(a, q=50)})}


# ---- kernel ridge regression and a Gaussian-process posterior (RBF kernels, cholesky_solve, solve_ex) --------------
def kernel_ridge(torch, device):
    rng = np.random.default_rng(1670)
    xs = torch.tensor(np.sort(rng.uniform(-3, 3, 25)), dtype=torch.float64, device=device).unsqueeze(1)
    ys = torch.sin(xs).squeeze(1) + 0.05 * torch.tensor(rng.standard_normal(25), dtype=torch.float64, device=device)
    grid = torch.linspace(-3, 3, 7, dtype=torch.float64, device=device).unsqueeze(1)

    def rbf(a, b, ls=0.8):
        return torch.exp(-torch.cdist(a, b).pow(2) / (2 * ls ** 2))

    lam = 1e-2
    K = rbf(xs, xs)
    alpha = torch.linalg.solve(K + lam * torch.eye(25, dtype=K.dtype, device=device), ys)
    pred = rbf(grid, xs) @ alpha
    L, info = torch.linalg.cholesky_ex(K + lam * torch.eye(25, dtype=K.dtype, device=device))
    alpha2 = torch.cholesky_solve(ys.unsqueeze(1), L).squeeze(1)
    Ks = rbf(grid, xs)
    v = torch.linalg.solve_triangular(L, Ks.T, upper=False)
    var = rbf(grid, grid).diagonal() - (v * v).sum(0)
    sol, info2 = torch.linalg.solve_ex(K + lam * torch.eye(25, dtype=K.dtype, device=device), ys.unsqueeze(1))
    nll = 0.5 * ys @ alpha2 + L.diagonal().log().sum() + 12.5 * torch.log(torch.tensor(2 * torch.pi,
                                                                                       dtype=K.dtype))
    # learn the length scale by gradient descent on the marginal likelihood
    log_ls = torch.zeros((), dtype=torch.float64, device=device, requires_grad=True)
    opt = torch.optim.Adam([log_ls], lr=0.1)
    for _ in range(10):
        opt.zero_grad()
        Kl = rbf(xs, xs, log_ls.exp()) + lam * torch.eye(25, dtype=K.dtype, device=device)
        Ll = torch.linalg.cholesky(Kl)
        a_l = torch.cholesky_solve(ys.unsqueeze(1), Ll).squeeze(1)
        loss = 0.5 * ys @ a_l + Ll.diagonal().log().sum()
        loss.backward()
        opt.step()
    bad = -torch.ones(2, 2, dtype=torch.float64, device=device)
    return {"pred": pred.tolist(), "same": bool(torch.allclose(alpha, alpha2)), "info": info.item(),
            "var": var.clamp(min=0).tolist(), "solve_ex": [info2.item(), bool(torch.allclose(sol.squeeze(1), alpha))],
            "nll": nll.item(), "ls": log_ls.exp().item(), "bad_info": torch.linalg.cholesky_ex(bad).info.item(),
            "errors": cases(torch, {"chol": lambda: torch.linalg.cholesky(bad),
                                    "solve_shape": lambda: torch.linalg.solve(K, ys[:3])})}


# ---- spectral clustering (affinity, normalized Laplacian, eigh, k-means on the embedding) -------------------------
def spectral_clustering(torch, device):
    rng = np.random.default_rng(1680)
    t = rng.uniform(0, 2 * np.pi, 30)
    inner = np.stack([np.cos(t), np.sin(t)], 1) * 1.0 + 0.05 * rng.standard_normal((30, 2))
    outer = np.stack([np.cos(t), np.sin(t)], 1) * 3.0 + 0.05 * rng.standard_normal((30, 2))
    x = torch.tensor(np.concatenate([inner, outer]), dtype=torch.float64, device=device)
    d2 = torch.cdist(x, x).pow(2)
    knn = d2.topk(6, largest=False).indices
    A = torch.zeros_like(d2).scatter_(1, knn, 1.0)
    A = ((A + A.T) > 0).to(x.dtype) * torch.exp(-d2 / 0.5)
    A.fill_diagonal_(0)
    deg = A.sum(1)
    d_inv_sqrt = deg.rsqrt()
    L = torch.eye(60, dtype=x.dtype, device=device) - d_inv_sqrt[:, None] * A * d_inv_sqrt[None, :]
    evals, evecs = torch.linalg.eigh(L)
    emb = evecs[:, :2]
    emb = emb / emb.norm(dim=1, keepdim=True)
    centers = emb[[0, 59]]
    for _ in range(10):
        assign = torch.cdist(emb, centers).argmin(1)
        centers = torch.stack([emb[assign == c].mean(0) for c in range(2)])
    Lsym = torch.diag(deg) - A
    fiedler = torch.linalg.eigvalsh(Lsym)[:3]
    return {"evals": evals[:4].tolist(), "partition": _canonical_partition(assign.tolist()),
            "fiedler": fiedler.tolist(), "components": int((evals < 1e-8).sum()),
            "sym": bool(torch.allclose(L, L.mT)), "upper": torch.linalg.eigvalsh(L, UPLO="U")[:2].tolist()}


# ---- t-SNE: perplexity calibration by batched bisection, then gradient steps on KL(P || Q) ------------------------
def tsne_steps(torch, device):
    x, _ = _blobs(torch, device, 1690, n_per=8, dtype=torch.float64)
    n = len(x)
    d2 = torch.cdist(x, x).pow(2)
    target = torch.log(torch.tensor(5.0, dtype=x.dtype, device=device))
    lo = torch.full((n,), 1e-3, dtype=x.dtype, device=device)
    hi = torch.full((n,), 1e3, dtype=x.dtype, device=device)
    mask = ~torch.eye(n, dtype=torch.bool, device=device)
    for _ in range(40):
        beta = (lo * hi).sqrt()
        logits = (-d2 * beta[:, None]).masked_fill(~mask, float("-inf"))
        p = torch.softmax(logits, 1)
        H = -(torch.special.xlogy(p, p)).sum(1)
        too_flat = H > target
        lo = torch.where(too_flat, beta, lo)
        hi = torch.where(too_flat, hi, beta)
    P = (p + p.T) / (2 * n)
    rng = np.random.default_rng(1691)
    Y = torch.tensor(1e-2 * rng.standard_normal((n, 2)), dtype=x.dtype, device=device, requires_grad=True)
    opt = torch.optim.SGD([Y], lr=50.0, momentum=0.5)
    kls = []
    for step in range(15):
        opt.zero_grad()
        num = 1 / (1 + torch.cdist(Y, Y).pow(2))
        num = num.masked_fill(~mask, 0)
        Q = num / num.sum()
        exag = 4.0 if step < 5 else 1.0
        kl = (exag * P * (torch.log(exag * P + 1e-12) - torch.log(Q + 1e-12))).sum()
        kl.backward()
        opt.step()
        kls.append(kl.item())
    F = torch.nn.functional
    kd = F.kl_div(torch.log(Q.detach() + 1e-12), P, reduction="sum")
    kd_log = F.kl_div(torch.log(Q.detach() + 1e-12), torch.log(P + 1e-12), reduction="batchmean", log_target=True)
    return {"entropy": H.tolist()[:6], "beta": beta[:6].tolist(), "kls": kls[::3], "kl_div": kd.item(),
            "kl_log": kd_log.item(), "spread": Y.detach().std(0).tolist()}


# ---- batched linear models: per-group ridge fits, Gram matrices accumulated by addbmm/baddbmm in several dtypes,
#      co-occurrence counts of one-hot codes, effective degrees of freedom by trace ----------------------------------
def batched_linear_models(torch, device):
    rng = np.random.default_rng(1700)
    groups, n, d = 4, 12, 3
    X = torch.tensor(rng.standard_normal((groups, n, d)), dtype=torch.float64, device=device)
    w_true = torch.tensor(rng.standard_normal((groups, d, 1)), dtype=torch.float64, device=device)
    y = X @ w_true + 0.1 * torch.tensor(rng.standard_normal((groups, n, 1)), dtype=torch.float64, device=device)
    lam = 0.5
    eye = torch.eye(d, dtype=X.dtype, device=device)
    gram = torch.baddbmm(lam * eye.expand(groups, d, d), X.mT, X)
    w = torch.linalg.solve(gram, X.mT @ y)
    hat = X @ torch.linalg.solve(gram, X.mT)
    dof = [torch.trace(h).item() for h in hat]
    pooled = torch.addbmm(lam * eye, X.mT, X)
    codes = torch.tensor(rng.integers(0, 4, (groups, n)), device=device)
    onehot = torch.nn.functional.one_hot(codes, 4).to(torch.uint8)
    cooc = torch.addbmm(torch.zeros(4, 4, dtype=torch.uint8, device=device), onehot.mT, onehot)
    cooc_i = torch.addbmm(torch.zeros(4, 4, dtype=torch.int32, device=device), onehot.mT.int(), onehot.int(), beta=0)
    Xh = (X * 30).half()
    gram_h = torch.addbmm(torch.zeros(d, d, dtype=torch.float16, device=device), Xh.mT, Xh)
    gram_b = torch.baddbmm(torch.ones(groups, d, d, dtype=torch.bfloat16, device=device), Xh.mT.bfloat16(),
                           Xh.bfloat16(), beta=0.5, alpha=2)
    return {"w": w.flatten().tolist(), "dof": dof, "pooled": pooled.tolist(),
            "cooc": [str(cooc.dtype), cooc.tolist(), cooc.trace().item()], "cooc_i": cooc_i.tolist(),
            "gram_h": gram_h.flatten().tolist(), "gram_b": gram_b.flatten().tolist(),
            "errors": cases(torch, {
                "trace_bool": lambda: torch.trace(onehot[0].bool()),
                "trace_3d": lambda: torch.trace(X), "lstsq_half": lambda: torch.linalg.lstsq(Xh[0], Xh[0, :, :1]),
                "rank_half": lambda: torch.linalg.matrix_rank(Xh[0]),
                "addbmm_bool": lambda: torch.addbmm(onehot[0, :4].bool(), onehot.mT.bool(), onehot.bool()),
                "baddbmm_bool": lambda: torch.baddbmm(onehot[:, :4].bool(), onehot.mT.bool(), onehot.bool()),
                "baddbmm_mixed": lambda: torch.baddbmm(gram, onehot.mT.bool(), onehot.bool())})}


PROGRAMS = [kmeans_plus_plus, gaussian_mixture_em, softmax_regression_lbfgs, linear_svm, knn_classifier,
            naive_bayes, pca_lowrank_program, kernel_ridge, spectral_clustering, tsne_steps, batched_linear_models]
NEEDS_CPP = {}
