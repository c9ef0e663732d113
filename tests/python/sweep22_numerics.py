"""Sweep 22 programs, numerical methods as papers' reference code writes them: Gaussian-process hyperparameter
fitting with ARD kernels through cholesky, cholesky_solve and both triangular-solve spellings; a sparse GP (Titsias'
collapsed bound with inducing points); Hutchinson trace estimation and stochastic Lanczos quadrature for log
determinants; randomized SVD with power iterations checked against Householder QR by hand and geqrf/
householder_product; GMRES by Arnoldi with a small least-squares solve and Jacobi-preconditioned conjugate
gradients; log-domain Sinkhorn with epsilon scaling and the sliced Wasserstein distance; differentiable sorting
(NeuralSort, pairwise-sigmoid soft ranks, Gumbel-Sinkhorn with NumPy noise).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep22.py). Data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn


def _spd(torch, seed, n, device, dtype=None):
    a = _randn(torch, seed, n, n, device=device, dtype=dtype or torch.float64)
    return a @ a.T + n * torch.eye(n, dtype=a.dtype, device=device)


# ---- GP regression with ARD hyperparameters ----------------------------------------------------------------------------
def gp_ard_marginal_likelihood(torch, device):
    dt = torch.float64
    X = _randn(torch, 2600, 20, 2, device=device, dtype=dt)
    y = torch.sin(2 * X[:, 0]) + 0.1 * X[:, 1] ** 2 + 0.05 * _randn(torch, 2601, 20, device=device, dtype=dt)
    log_ls = torch.zeros(2, dtype=dt, device=device, requires_grad=True)
    log_sf = torch.tensor(0.0, dtype=dt, device=device, requires_grad=True)
    log_sn = torch.tensor(-2.0, dtype=dt, device=device, requires_grad=True)

    def kernel(a, b):
        ls = log_ls.exp()
        d = torch.cdist(a / ls, b / ls).pow(2)
        return log_sf.exp().pow(2) * torch.exp(-0.5 * d)

    def nlml():
        K = kernel(X, X) + (log_sn.exp() ** 2 + 1e-6) * torch.eye(len(X), dtype=dt, device=device)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        return 0.5 * y @ alpha.squeeze(-1) + torch.log(torch.diagonal(L)).sum() + 0.5 * len(X) * math.log(2 * math.pi)

    opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)
    hist = []
    for _ in range(15):
        opt.zero_grad()
        loss = nlml()
        loss.backward()
        opt.step()
        hist.append(round(loss.item(), 6))
    with torch.no_grad():
        Xs = torch.linspace(-1, 1, 5, dtype=dt, device=device)[:, None].repeat(1, 2)
        K = kernel(X, X) + log_sn.exp() ** 2 * torch.eye(len(X), dtype=dt, device=device)
        L = torch.linalg.cholesky(K)
        Ks = kernel(X, Xs)
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        v_old = torch.triangular_solve(Ks, L, upper=False).solution
        mean = Ks.T @ torch.cholesky_solve(y[:, None], L)
        var = kernel(Xs, Xs).diagonal() - v.pow(2).sum(0)
    return {"nlml": hist[::3], "ls": _r(log_ls.exp(), 5), "mean": _r(mean.squeeze(-1), 5), "var": _r(var, 6),
            "same_solve": torch.allclose(v, v_old)}


# ---- sparse GP: Titsias' collapsed bound -------------------------------------------------------------------------------
def sparse_gp_titsias(torch, device):
    dt = torch.float64
    X = torch.linspace(-3, 3, 40, dtype=dt, device=device)[:, None]
    y = torch.sin(X).squeeze(-1) + 0.1 * _randn(torch, 2610, 40, device=device, dtype=dt)
    Z = torch.nn.Parameter(torch.linspace(-2.5, 2.5, 6, dtype=dt, device=device)[:, None])
    log_noise = torch.nn.Parameter(torch.tensor(-1.0, dtype=dt, device=device))

    def rbf(a, b):
        return torch.exp(-0.5 * (a - b.T) ** 2)

    def elbo():
        sn2 = log_noise.exp() ** 2
        Kuu = rbf(Z, Z) + 1e-6 * torch.eye(len(Z), dtype=dt, device=device)
        Kuf = rbf(Z, X)
        L = torch.linalg.cholesky(Kuu)
        A = torch.linalg.solve_triangular(L, Kuf, upper=False) / sn2.sqrt()
        B = A @ A.T + torch.eye(len(Z), dtype=dt, device=device)
        LB = torch.linalg.cholesky(B)
        c = torch.linalg.solve_triangular(LB, A @ y[:, None], upper=False) / sn2.sqrt()
        n = len(X)
        bound = -0.5 * n * math.log(2 * math.pi) - torch.log(torch.diagonal(LB)).sum() - 0.5 * n * torch.log(sn2)
        bound = bound - 0.5 * (y @ y) / sn2 + 0.5 * (c ** 2).sum()
        return bound - 0.5 * (n - sn2 * (A ** 2).sum()) / sn2  # the trace term: tr(Kff) = n for this kernel

    opt = torch.optim.LBFGS([Z, log_noise], lr=0.5, max_iter=10, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = -elbo()
        loss.backward()
        return loss

    first = closure().item()
    opt.step(closure)
    return {"first": round(first, 5), "final": round(-elbo().item(), 4), "noise": round(log_noise.exp().item(), 3),
            "z_sorted": _r(Z.detach().squeeze(-1).sort().values, 2)}


# ---- Hutchinson trace and stochastic Lanczos quadrature ----------------------------------------------------------------
def hutchinson_slq_logdet(torch, device):
    A = _spd(torch, 2620, 12, device)
    rng = np.random.default_rng(2621)
    probes = torch.tensor(rng.choice([-1.0, 1.0], size=(12, 30)), dtype=torch.float64, device=device)
    trace_est = (probes * (A @ probes)).sum(0).mean()

    def lanczos(v, m):
        n = v.shape[0]
        Q = torch.zeros(n, m, dtype=A.dtype, device=device)
        alpha = torch.zeros(m, dtype=A.dtype, device=device)
        beta = torch.zeros(m - 1, dtype=A.dtype, device=device)
        q = v / v.norm()
        Q[:, 0] = q
        for j in range(m):
            w = A @ Q[:, j]
            alpha[j] = w @ Q[:, j]
            w = w - Q[:, :j + 1] @ (Q[:, :j + 1].T @ w)  # full reorthogonalisation
            if j + 1 < m:
                beta[j] = w.norm()
                Q[:, j + 1] = w / beta[j]
        return torch.diag(alpha) + torch.diag(beta, 1) + torch.diag(beta, -1)

    estimates = []
    for k in range(6):
        T = lanczos(probes[:, k], 8)
        evals, evecs = torch.linalg.eigh(T)
        estimates.append((evecs[0] ** 2 * torch.log(evals)).sum() * 12)
    slq = torch.stack(estimates).mean()
    sign, logabsdet = torch.linalg.slogdet(A)
    return {"trace": round(trace_est.item(), 4), "exact_trace": round(torch.trace(A).item(), 4),
            "slq": round(slq.item(), 4), "logdet": round(logabsdet.item(), 6), "sign": sign.item(),
            "logdet_fn": round(torch.logdet(A).item(), 6)}


# ---- randomized SVD and Householder QR ---------------------------------------------------------------------------------
def randomized_svd_householder(torch, device):
    dt = torch.float64
    U0, _ = torch.linalg.qr(_randn(torch, 2630, 30, 5, device=device, dtype=dt))
    V0, _ = torch.linalg.qr(_randn(torch, 2631, 20, 5, device=device, dtype=dt))
    s0 = torch.tensor([10.0, 5.0, 2.0, 1.0, 0.5], dtype=dt, device=device)
    M = U0 @ torch.diag(s0) @ V0.T + 1e-3 * _randn(torch, 2632, 30, 20, device=device, dtype=dt)
    omega = _randn(torch, 2633, 20, 7, device=device, dtype=dt)
    Y = M @ omega
    for _ in range(2):
        Y, _ = torch.linalg.qr(Y)
        Y = M @ (M.T @ Y)
    Q, _ = torch.linalg.qr(Y, mode="reduced")
    Ub, S, Vh = torch.linalg.svd(Q.T @ M, full_matrices=False)
    U = Q @ Ub

    def householder_qr(A):
        m, n = A.shape
        R, Qh = A.clone(), torch.eye(m, dtype=A.dtype, device=A.device)
        for k in range(n):
            x = R[k:, k]
            e = torch.zeros_like(x)
            e[0] = 1.0
            v = x + torch.sign(x[0]) * x.norm() * e
            v = v / v.norm()
            R[k:, :] -= 2.0 * torch.outer(v, v @ R[k:, :])
            Qh[:, k:] -= 2.0 * torch.outer(Qh[:, k:] @ v, v)
        return Qh, R

    A = _randn(torch, 2634, 6, 4, device=device, dtype=dt)
    Qh, Rh = householder_qr(A)
    a, tau = torch.geqrf(A)
    Qg = torch.linalg.householder_product(a, tau)
    Qr, Rr = torch.linalg.qr(A)
    signs = torch.sign(torch.diagonal(Rr))
    return {"S": _r(S[:5], 4), "recon": round((U[:, :5] * S[:5] @ Vh[:5] - M).norm().item(), 4),
            "hh_recon": torch.allclose(Qh @ Rh, A), "hh_R": _r(Rh[:4].triu().abs(), 6),
            "geqrf_Q": torch.allclose(Qg.abs(), Qr.abs()), "R_signs": signs.tolist(),
            "svdvals": _r(torch.linalg.svdvals(M)[:5], 4)}


# ---- GMRES (Arnoldi) and preconditioned CG -----------------------------------------------------------------------------
def gmres_and_pcg(torch, device):
    dt = torch.float64
    n = 10
    A = _randn(torch, 2640, n, n, device=device, dtype=dt) * 0.3 + 4 * torch.eye(n, dtype=dt, device=device)
    b = _randn(torch, 2641, n, device=device, dtype=dt)

    def gmres(A, b, m):
        beta = b.norm()
        Qm = torch.zeros(n, m + 1, dtype=dt, device=device)
        H = torch.zeros(m + 1, m, dtype=dt, device=device)
        Qm[:, 0] = b / beta
        residuals = []
        for j in range(m):
            w = A @ Qm[:, j]
            for i in range(j + 1):
                H[i, j] = Qm[:, i] @ w
                w = w - H[i, j] * Qm[:, i]
            H[j + 1, j] = w.norm()
            Qm[:, j + 1] = w / H[j + 1, j]
            e1 = torch.zeros(j + 2, dtype=dt, device=device)
            e1[0] = beta
            yk = torch.linalg.lstsq(H[:j + 2, :j + 1], e1.unsqueeze(-1)).solution.squeeze(-1)
            x = Qm[:, :j + 1] @ yk
            residuals.append((b - A @ x).norm().item())
        return x, residuals

    x, res = gmres(A, b, 8)
    S = _spd(torch, 2642, n, device) + torch.diag(torch.arange(1.0, n + 1, dtype=dt, device=device) * 10)
    Minv = 1.0 / torch.diagonal(S)
    xc = torch.zeros(n, dtype=dt, device=device)
    r = b - S @ xc
    z = Minv * r
    p = z.clone()
    rz = r @ z
    its = 0
    while r.norm() > 1e-10 and its < 50:
        Ap = S @ p
        alpha = rz / (p @ Ap)
        xc += alpha * p
        r -= alpha * Ap
        z = Minv * r
        rz_new = r @ z
        p = z + (rz_new / rz) * p
        rz = rz_new
        its += 1
    return {"gmres_res": [round(v, 8) for v in res[:4]], "gmres_x": _r(x, 6),
            "exact": _r(torch.linalg.solve(A, b), 6), "pcg_its": its,
            "pcg_ok": torch.allclose(S @ xc, b, atol=1e-8)}


# ---- optimal transport: log-domain Sinkhorn, sliced Wasserstein --------------------------------------------------------
def sinkhorn_and_sliced_wasserstein(torch, device):
    x = _randn(torch, 2650, 7, 2, device=device)
    y = _randn(torch, 2651, 9, 2, device=device) + torch.tensor([1.0, 0.5], device=device)
    a = torch.full((7,), 1 / 7, device=device)
    b = torch.full((9,), 1 / 9, device=device)
    C = torch.cdist(x, y, p=2) ** 2
    f, g = torch.zeros(7, device=device), torch.zeros(9, device=device)
    costs = []
    for eps in (1.0, 0.5, 0.1):  # epsilon scaling
        for _ in range(50):
            f = -eps * torch.logsumexp((g[None, :] - C) / eps + torch.log(b)[None, :], dim=1)
            g = -eps * torch.logsumexp((f[:, None] - C) / eps + torch.log(a)[:, None], dim=0)
        P = torch.exp((f[:, None] + g[None, :] - C) / eps) * a[:, None] * b[None, :]
        costs.append(round((P * C).sum().item(), 4))
    marg = [round((P.sum(1) - a).abs().max().item(), 4), round((P.sum(0) - b).abs().max().item(), 4)]

    def sliced_w2(u, v, n_proj):
        theta = torch.tensor(np.random.default_rng(2652).standard_normal((2, n_proj)), dtype=u.dtype, device=u.device)
        theta = theta / theta.norm(dim=0, keepdim=True)
        pu, _ = torch.sort(u @ theta, dim=0)
        pv, _ = torch.sort(v @ theta, dim=0)
        return ((pu - pv) ** 2).mean()

    u = _randn(torch, 2653, 16, 2, device=device).requires_grad_()
    v = _randn(torch, 2654, 16, 2, device=device) * 0.5 + 2
    sw = sliced_w2(u, v, 12)
    sw.backward()
    q = torch.linspace(0, 1, 5, device=device)
    w1 = (torch.quantile(u.detach()[:, 0], q) - torch.quantile(v[:, 0], q)).abs().mean()
    return {"costs": costs, "marginals": marg, "plan_row": _r(P[0], 4), "sw": round(sw.item(), 5),
            "sw_grad": _r(u.grad[:3], 5), "w1_quantiles": round(w1.item(), 5)}


# ---- differentiable sorting -------------------------------------------------------------------------------------------
def differentiable_sorting(torch, device):
    s = torch.tensor([[2.0, -1.0, 0.5, 3.0, 0.0]], device=device, requires_grad=True)

    def neural_sort(s, tau):
        s = s.unsqueeze(-1)
        n = s.shape[1]
        one = torch.ones((n, 1), device=s.device)
        A = torch.abs(s - s.permute(0, 2, 1))
        B = torch.matmul(A, torch.matmul(one, one.t()))
        scaling = (n + 1 - 2 * (torch.arange(n, device=s.device) + 1)).float()
        C = torch.matmul(s, scaling.unsqueeze(0))
        P_max = (C - B).permute(0, 2, 1)
        return torch.softmax(P_max / tau, dim=-1)

    P = neural_sort(s, 0.5)
    sorted_soft = (P @ s.unsqueeze(-1)).squeeze(-1)
    hard = P.argmax(-1)
    target = torch.tensor([[3.0, 2.0, 0.5, 0.0, -1.0]], device=device)
    loss = (sorted_soft - target).pow(2).sum()
    loss.backward()

    def soft_rank(x, tau=0.1):
        diff = x.unsqueeze(-1) - x.unsqueeze(-2)
        return torch.sigmoid(diff / tau).sum(-1) + 0.5

    ranks = soft_rank(s.detach())

    def gumbel_sinkhorn(log_alpha, tau, n_iter, noise):
        log_alpha = (log_alpha + noise) / tau
        for _ in range(n_iter):
            log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=-1, keepdim=True)
            log_alpha = log_alpha - torch.logsumexp(log_alpha, dim=-2, keepdim=True)
        return log_alpha.exp()

    u = np.random.default_rng(2660).uniform(1e-6, 1 - 1e-6, (4, 4))
    noise = torch.tensor(-np.log(-np.log(u)), dtype=torch.float32, device=device)
    log_alpha = torch.tensor(np.arange(16).reshape(4, 4) % 5, dtype=torch.float32, device=device)
    perm = gumbel_sinkhorn(log_alpha, 0.3, 30, noise)
    return {"sorted_soft": _r(sorted_soft, 4), "hard": hard.tolist(), "grad": _r(s.grad, 4),
            "ranks": _r(ranks, 4), "perm_rows": _r(perm.sum(-1), 4), "perm": perm.argmax(-1).tolist()}


# ---- a sparse graph Laplacian in each layout, Chebyshev smoothing ----------------------------------------------------
def sparse_laplacian_layouts(torch, device):
    n = 8
    rng = np.random.default_rng(2670)
    dense = torch.tensor((rng.random((n, n)) < 0.3) * rng.uniform(0.5, 1.5, (n, n)), dtype=torch.float64)
    A = (dense + dense.T) * (1 - torch.eye(n, dtype=torch.float64))
    deg = A.sum(1)
    d_inv_sqrt = torch.where(deg > 0, deg.rsqrt(), torch.zeros_like(deg))
    L_norm = torch.eye(n, dtype=torch.float64) - d_inv_sqrt[:, None] * A * d_inv_sqrt[None, :]
    layouts = {}
    for name, layout in (("coo", torch.sparse_coo), ("csr", torch.sparse_csr), ("csc", torch.sparse_csc)):
        S = L_norm.to_sparse(layout=layout)
        layouts[name] = [str(S.layout), S._nnz(), torch.equal(S.to_dense(), L_norm)]
    csc = L_norm.to_sparse(layout=torch.sparse_csc)
    back = {name: str(csc.to_sparse(layout=lay).layout) for name, lay in
            (("csr", torch.sparse_csr), ("coo", torch.sparse_coo), ("strided", torch.strided))}
    S = L_norm.to_sparse_csr().to(device)
    x = torch.tensor(rng.standard_normal((n, 2)), dtype=torch.float64, device=device)
    # Chebyshev filter on the rescaled Laplacian (lambda_max taken as 2): T0 = x, T1 = Lx - x, Tk = 2(L-I)T_{k-1} - T_{k-2}
    t0, t1 = x, S @ x - x
    coeffs = [0.5, -0.3, 0.2, -0.1]
    out = coeffs[0] * t0 + coeffs[1] * t1
    for c in coeffs[2:]:
        t0, t1 = t1, 2 * (S @ t1 - t1) - t0
        out = out + c * t1
    v = torch.ones(n, dtype=torch.float64, device=device)
    for _ in range(30):  # the largest eigenvalue by power iteration on the sparse operator
        v = S @ v
        v = v / v.norm()
    lam = (v @ (S @ v)).item()
    return {"layouts": layouts, "back": back, "cheb": _r(out, 6), "lambda_max": round(lam, 5),
            "eig_max": round(torch.linalg.eigvalsh(L_norm)[-1].item(), 5)}


PROGRAMS = [gp_ard_marginal_likelihood, sparse_gp_titsias, hutchinson_slq_logdet, randomized_svd_householder,
            gmres_and_pcg, sinkhorn_and_sliced_wasserstein, differentiable_sorting, sparse_laplacian_layouts]
NEEDS_CPP = {}
