"""Sweep 14 programs, torch.linalg at work: Gaussian process regression with cholesky / cholesky_solve and
hyperparameters trained through the factorisation, a Glow-style invertible 1x1 convolution with slogdet and an
LU-parametrised weight, PCA and ZCA whitening by eigh and svd, least squares with every lstsq driver, pinv and
QR, power iteration and Lanczos against eigvalsh, a Kalman filter with an RTS smoother, matrix functions and
norms, and Hessian-vector products driving a Hessian-free Newton step.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep14.py). Data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np


def _np(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- Gaussian process regression: cholesky, cholesky_solve, solve_triangular, trained hyperparameters ------------
def gp_regression_cholesky(torch, device):
    rng = np.random.default_rng(1410)
    xs = np.sort(rng.uniform(-3, 3, 25))
    X = torch.tensor(xs, device=device).unsqueeze(-1)
    y = torch.tensor(np.sin(xs) + 0.1 * rng.standard_normal(25), device=device)
    Xs = torch.linspace(-3, 3, 7, dtype=torch.float64, device=device).unsqueeze(-1)
    log_ls = torch.zeros((), dtype=torch.float64, device=device, requires_grad=True)
    log_sf = torch.zeros((), dtype=torch.float64, device=device, requires_grad=True)
    log_sn = torch.tensor(-1.0, dtype=torch.float64, device=device, requires_grad=True)

    def kernel(a, b):
        return log_sf.exp() ** 2 * torch.exp(-0.5 * torch.cdist(a, b) ** 2 / log_ls.exp() ** 2)

    def nll():
        K = kernel(X, X) + (log_sn.exp() ** 2 + 1e-8) * torch.eye(25, dtype=torch.float64, device=device)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        return 0.5 * (y.unsqueeze(-1) * alpha).sum() + L.diagonal().log().sum() + 12.5 * math.log(2 * math.pi), L

    opt = torch.optim.Adam([log_ls, log_sf, log_sn], lr=0.05)
    losses = []
    for step in range(30):
        opt.zero_grad()
        loss, _ = nll()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            losses.append(loss.item())
    with torch.no_grad():
        _, L = nll()
        Ks = kernel(X, Xs)
        alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
        mean = (Ks.T @ alpha).squeeze(-1)
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        var = kernel(Xs, Xs).diagonal() - (v ** 2).sum(0)
        K_inv = torch.cholesky_inverse(L)
        ident = (K_inv @ (L @ L.T)).sub(torch.eye(25, dtype=torch.float64, device=device)).abs().max().item()
    bad = torch.tensor([[1.0, 2.0], [2.0, 1.0]], device=device)
    _, info = torch.linalg.cholesky_ex(bad)
    try:
        torch.linalg.cholesky(bad)
        err = None
    except Exception as exc:
        err = [type(exc).__name__, str(exc).split("\n")[0]]
    upper = torch.linalg.cholesky(bad @ bad.T + torch.eye(2, device=device), upper=True)
    return {"losses": losses, "params": [log_ls.item(), log_sf.item(), log_sn.item()], "mean": mean.tolist(),
            "var": var.tolist(), "inverse_ok": ident < 1e-8, "info": int(info), "err": err,
            "upper": upper.tolist(), "upper_is_triu": torch.equal(upper, upper.triu())}


# ---- a Glow-style invertible 1x1 convolution: slogdet, an LU-parametrised weight, exact inverse -------------------
def glow_invertible_conv(torch, device):
    nn = torch.nn
    F = nn.functional
    c = 4
    w0 = torch.linalg.qr(torch.tensor(_np(1411, c, c), dtype=torch.float32))[0]

    class InvConv(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(w0.clone())

        def forward(self, x):
            logdet = torch.linalg.slogdet(self.weight)[1] * x.shape[2] * x.shape[3]
            return F.conv2d(x, self.weight.view(c, c, 1, 1)), logdet

        def inverse(self, z):
            return F.conv2d(z, torch.linalg.inv(self.weight).view(c, c, 1, 1))

    class InvConvLU(nn.Module):
        def __init__(self):
            super().__init__()
            LU, pivots = torch.linalg.lu_factor(w0)
            P, L, U = torch.lu_unpack(LU, pivots)
            s = U.diagonal()
            self.register_buffer("P", P)
            self.register_buffer("sign_s", s.sign())
            self.register_buffer("l_mask", torch.tril(torch.ones(c, c), -1))
            self.L = nn.Parameter(L)
            self.log_s = nn.Parameter(s.abs().log())
            self.U = nn.Parameter(U.triu(1))

        def weight(self):
            L = self.L * self.l_mask + torch.eye(c, device=self.L.device)
            U = self.U * self.l_mask.T + torch.diag(self.sign_s * self.log_s.exp())
            return self.P @ L @ U

        def forward(self, x):
            return F.conv2d(x, self.weight().view(c, c, 1, 1)), self.log_s.sum() * x.shape[2] * x.shape[3]

    x = torch.tensor(_np(1412, 2, c, 3, 3), dtype=torch.float32, device=device)
    plain, lu = InvConv().to(device), InvConvLU().to(device)
    z1, ld1 = plain(x)
    z2, ld2 = lu(x)
    recon = plain.inverse(z1)
    loss = 0.5 * (z1 ** 2).sum() - ld1
    loss.backward()
    loss2 = 0.5 * (z2 ** 2).sum() - ld2
    loss2.backward()
    sign, logabs = torch.linalg.slogdet(w0.to(device))
    logdet_direct = torch.logdet(w0.to(device) @ w0.to(device).T)
    sol = torch.linalg.solve(w0.to(device), torch.ones(c, device=device))
    batch = torch.stack([w0, 2 * w0]).to(device)
    bs = torch.linalg.slogdet(batch)
    return {"same_z": torch.allclose(z1, z2, atol=1e-5), "logdets": [ld1.item(), ld2.item()],
            "recon_ok": torch.allclose(recon, x, atol=1e-5), "grad": plain.weight.grad.flatten().tolist(),
            "lu_grads": [lu.log_s.grad.tolist(), (lu.L.grad * lu.l_mask).abs().sum().item()],
            "slogdet": [sign.item(), logabs.item()], "logdet_direct": logdet_direct.item(),
            "solve": sol.tolist(), "batched": [bs.sign.tolist(), bs.logabsdet.tolist()],
            "fields": [repr(bs).splitlines()[0], bs.sign is bs[0], len(bs)]}


# ---- PCA and ZCA whitening by eigh and svd; pca_lowrank on exactly low-rank data ----------------------------------
def pca_whitening(torch, device):
    rng = np.random.default_rng(1413)
    mix = rng.standard_normal((5, 5)) * np.array([3.0, 2.0, 1.0, 0.5, 0.1])
    data = torch.tensor(rng.standard_normal((200, 5)) @ mix.T, device=device)
    centered = data - data.mean(0, keepdim=True)
    cov = torch.cov(centered.T)
    evals, evecs = torch.linalg.eigh(cov)
    evals, evecs = evals.flip(0), evecs.flip(1)
    explained = (evals / evals.sum()).tolist()
    U, S, Vh = torch.linalg.svd(centered, full_matrices=False)
    sv_match = torch.allclose(S ** 2 / 199, evals, rtol=1e-8)
    proj = centered @ evecs[:, :2]
    signs = torch.sign(proj[0])
    proj = proj * signs
    pca_white = centered @ evecs / evals.sqrt()
    zca = evecs @ torch.diag(1.0 / torch.sqrt(evals + 1e-9)) @ evecs.T
    white = centered @ zca
    white_cov = torch.cov(white.T)
    low = torch.tensor(rng.standard_normal((30, 3)) @ rng.standard_normal((3, 8)), device=device)
    torch.manual_seed(0)
    _, S_low, V_low = torch.pca_lowrank(low, q=4, center=True, niter=3)
    S_exact = torch.linalg.svdvals(low - low.mean(0))
    corr = torch.corrcoef(data.T)
    return {"explained": explained, "sv_match": sv_match, "proj": proj[:4].flatten().tolist(),
            "pca_white_cov": torch.cov(pca_white.T).diagonal().tolist(),
            "zca_identity": torch.allclose(white_cov, torch.eye(5, dtype=torch.float64, device=device), atol=1e-6),
            "zca_sym": torch.allclose(zca, zca.T), "low_rank": S_low[:3].tolist(), "exact": S_exact[:3].tolist(),
            "shapes": [list(U.shape), list(Vh.shape), list(V_low.shape)], "corr_diag": corr.diagonal().tolist(),
            "rank": int(torch.linalg.matrix_rank(low))}


# ---- least squares: every lstsq driver, pinv, QR, normal equations, weighted fits --------------------------------
def least_squares_drivers(torch, device):
    rng = np.random.default_rng(1414)
    t = torch.tensor(np.linspace(0, 1, 20), device=device)
    A = torch.vander(t, N=4, increasing=True)
    y = torch.tensor(1 + 2 * np.linspace(0, 1, 20) - 3 * np.linspace(0, 1, 20) ** 3
                     + 0.01 * rng.standard_normal(20), device=device)
    out = {}
    drivers = ["gelsy", "gelsd", "gelss", "gels"] if device == "cpu" else ["gels"]
    for driver in ["gels", "gelsy", "gelsd", "gelss"]:
        if driver not in drivers:
            out[driver] = out["gels"]
            continue
        res = torch.linalg.lstsq(A, y.unsqueeze(-1), driver=driver)
        out[driver] = [round(v, 8) for v in res.solution.squeeze(-1).tolist()]
    full = torch.linalg.lstsq(A.cpu(), y.unsqueeze(-1).cpu(), driver="gelsd")
    Q, R = torch.linalg.qr(A)
    qr_sol = torch.linalg.solve_triangular(R, Q.T @ y.unsqueeze(-1), upper=True).squeeze(-1)
    pinv_sol = torch.linalg.pinv(A) @ y
    normal = torch.linalg.solve(A.T @ A, A.T @ y)
    w = torch.linspace(0.5, 2.0, 20, dtype=torch.float64, device=device)
    weighted = torch.linalg.lstsq(A * w.sqrt().unsqueeze(-1), (y * w.sqrt()).unsqueeze(-1)).solution.squeeze(-1)
    Qc, Rc = torch.linalg.qr(A, mode="complete")
    r_only = torch.linalg.qr(A, mode="r")
    sing = torch.tensor([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], dtype=torch.float64, device=device)
    pinv_s = torch.linalg.pinv(sing)
    cond = torch.linalg.cond(A).item()
    return {"solutions": out, "rank": int(full.rank), "sv": full.singular_values.tolist(),
            "residual_fields": [repr(full).splitlines()[0], full.residuals.shape == (0,)], "qr": qr_sol.tolist(),
            "pinv": pinv_sol.tolist(),
            "normal": normal.tolist(), "weighted": weighted.tolist(),
            "shapes": [list(Qc.shape), list(Rc.shape), list(r_only.Q.shape), list(r_only.R.shape)],
            "pinv_singular": pinv_s.tolist(), "cond_gt": cond > 10, "cond": round(math.log10(cond), 4),
            "hermitian_pinv": torch.allclose(torch.linalg.pinv(A.T @ A, hermitian=True),
                                             torch.linalg.inv(A.T @ A), rtol=1e-6)}


# ---- power iteration, deflation and Lanczos against eigvalsh and the spectral norm --------------------------------
def power_iteration_lanczos(torch, device):
    rng = np.random.default_rng(1415)
    B = rng.standard_normal((12, 12))
    A = torch.tensor(B @ B.T / 12 + np.diag(np.arange(12) * 0.3), device=device)
    v = torch.tensor(rng.standard_normal(12), device=device)
    v = v / torch.linalg.vector_norm(v)
    for _ in range(300):
        w = A @ v
        v = w / w.norm()
    lam1 = torch.dot(v, A @ v)
    A2 = A - lam1 * torch.outer(v, v)
    u = torch.ones(12, dtype=torch.float64, device=device) / math.sqrt(12)
    for _ in range(300):
        u = A2 @ u
        u = u / u.norm()
    lam2 = u @ A2 @ u
    # Lanczos with full reorthogonalisation
    m = 12
    Q = torch.zeros(12, m, dtype=torch.float64, device=device)
    alpha = torch.zeros(m, dtype=torch.float64, device=device)
    beta = torch.zeros(m - 1, dtype=torch.float64, device=device)
    q = torch.tensor(rng.standard_normal(12), device=device)
    Q[:, 0] = q / q.norm()
    for j in range(m):
        z = A @ Q[:, j]
        alpha[j] = Q[:, j] @ z
        z = z - Q[:, :j + 1] @ (Q[:, :j + 1].T @ z)
        z = z - Q[:, :j + 1] @ (Q[:, :j + 1].T @ z)
        if j < m - 1:
            beta[j] = z.norm()
            Q[:, j + 1] = z / beta[j]
    T = torch.diag(alpha) + torch.diag(beta, 1) + torch.diag(beta, -1)
    ritz = torch.linalg.eigvalsh(T)
    exact = torch.linalg.eigvalsh(A)
    spec = torch.linalg.matrix_norm(A, ord=2)
    nuc = torch.linalg.matrix_norm(A, ord="nuc")
    sym_evals = torch.linalg.eigvalsh(A, UPLO="U")
    ev = torch.linalg.eig(A)
    eig_real = ev.eigenvalues.real.sort().values
    return {"lam1": lam1.item(), "lam2": lam2.item(), "ritz": ritz.tolist(), "exact": exact.tolist(),
            "spec": spec.item(), "nuc": nuc.item(), "trace_ok": math.isclose(nuc.item(), A.trace().item()),
            "uplo": torch.allclose(sym_evals, exact), "eig": eig_real.tolist(), "eig_dtype": str(ev.eigenvalues.dtype),
            "orth": torch.allclose(Q.T @ Q, torch.eye(m, dtype=torch.float64, device=device), atol=1e-8)}


# ---- a Kalman filter with an RTS smoother and the innovations log-likelihood -------------------------------------
def kalman_rts_smoother(torch, device):
    dt = 0.1
    F_ = torch.tensor([[1, dt, 0.5 * dt * dt], [0, 1, dt], [0, 0, 1]], dtype=torch.float64, device=device)
    Hm = torch.tensor([[1.0, 0.0, 0.0]], dtype=torch.float64, device=device)
    Q = 0.01 * torch.eye(3, dtype=torch.float64, device=device)
    R = torch.tensor([[0.25]], dtype=torch.float64, device=device)
    rng = np.random.default_rng(1416)
    ts = np.arange(40) * dt
    obs = torch.tensor(np.sin(ts) + 0.5 * rng.standard_normal(40), device=device).unsqueeze(-1)
    x = torch.zeros(3, dtype=torch.float64, device=device)
    P = torch.eye(3, dtype=torch.float64, device=device)
    xs_f, Ps_f, xs_p, Ps_p = [], [], [], []
    loglik = torch.zeros((), dtype=torch.float64, device=device)
    for z in obs:
        xp = F_ @ x
        Pp = F_ @ P @ F_.T + Q
        S = Hm @ Pp @ Hm.T + R
        K = torch.linalg.solve(S, Hm @ Pp).T
        innov = z - Hm @ xp
        loglik = loglik + torch.distributions.MultivariateNormal(torch.zeros(1, dtype=torch.float64, device=device),
                                                                 covariance_matrix=S).log_prob(innov)
        x = xp + K @ innov
        P = (torch.eye(3, dtype=torch.float64, device=device) - K @ Hm) @ Pp
        xs_p.append(xp)
        Ps_p.append(Pp)
        xs_f.append(x)
        Ps_f.append(P)
    xs_s, Ps_s = [xs_f[-1]], [Ps_f[-1]]
    for k in range(len(obs) - 2, -1, -1):
        G = Ps_f[k] @ F_.T @ torch.linalg.inv(Ps_p[k + 1])
        xs_s.insert(0, xs_f[k] + G @ (xs_s[0] - xs_p[k + 1]))
        Ps_s.insert(0, Ps_f[k] + G @ (Ps_s[0] - Ps_p[k + 1]) @ G.T)
    filt = torch.stack(xs_f)[:, 0]
    smooth = torch.stack(xs_s)[:, 0]
    truth = torch.tensor(np.sin(ts), device=device)
    return {"loglik": loglik.item(), "filtered": filt[::8].tolist(), "smoothed": smooth[::8].tolist(),
            "rmse": [(filt - truth).pow(2).mean().sqrt().item(), (smooth - truth).pow(2).mean().sqrt().item()],
            "var": [torch.stack(Ps_f)[:, 0, 0][-1].item(), torch.stack(Ps_s)[:, 0, 0][0].item()]}


# ---- matrix functions and norms: matrix_exp, matrix_power, multi_dot, cross, vecdot, householder_product ---------
def matrix_functions_norms(torch, device):
    rng = np.random.default_rng(1417)
    A = torch.tensor(rng.standard_normal((4, 4)) * 0.5, device=device)
    skew = A - A.T
    R = torch.linalg.matrix_exp(skew)
    orth = torch.allclose(R @ R.T, torch.eye(4, dtype=torch.float64, device=device), atol=1e-12)
    series = sum(torch.linalg.matrix_power(A, k) / math.factorial(k) for k in range(20))
    inv_pow = torch.linalg.matrix_power(A, -2)
    inv_ok = torch.allclose(inv_pow @ A @ A, torch.eye(4, dtype=torch.float64, device=device), atol=1e-8)
    mats = [torch.tensor(rng.standard_normal(s), device=device) for s in [(3, 5), (5, 2), (2, 6), (6, 1)]]
    md = torch.linalg.multi_dot(mats)
    u = torch.tensor(rng.standard_normal((5, 3)), device=device)
    v = torch.tensor(rng.standard_normal((5, 3)), device=device)
    norms = {
        "fro": torch.linalg.matrix_norm(A).item(), "1": torch.linalg.matrix_norm(A, ord=1).item(),
        "-inf": torch.linalg.matrix_norm(A, ord=-math.inf).item(), "-2": torch.linalg.matrix_norm(A, ord=-2).item(),
        "vec_inf": torch.linalg.vector_norm(A, ord=math.inf).item(),
        "vec_0": torch.linalg.vector_norm(A, ord=0).item(), "vec_3": torch.linalg.vector_norm(A, ord=3, dim=1).tolist(),
        "norm_dims": torch.linalg.norm(A, dim=(0, 1)).item(), "norm_vec": torch.linalg.norm(A[0]).item(),
        "torch_norm": torch.norm(A, p="fro").item(), "torch_norm_p1": torch.norm(A, p=1, dim=0).tolist(),
    }
    Aq = torch.tensor(rng.standard_normal((5, 3)), device=device)
    geqrf_a, tau = torch.geqrf(Aq)
    Qh = torch.linalg.householder_product(geqrf_a, tau)
    Qr = torch.linalg.qr(Aq).Q
    inv, info = torch.linalg.inv_ex(A)
    solved = torch.linalg.solve_ex(A, torch.ones(4, 1, dtype=torch.float64, device=device))
    return {"orth": orth, "exp_series": torch.allclose(torch.linalg.matrix_exp(A), series, atol=1e-10),
            "inv_pow": inv_ok, "multi_dot": md.flatten().tolist(), "cross": torch.linalg.cross(u, v).flatten().tolist(),
            "vecdot": torch.linalg.vecdot(u, v).tolist(), "norms": norms,
            "householder": torch.allclose(Qh.abs(), Qr.abs(), atol=1e-10), "inv_info": int(info),
            "inv": inv[0].tolist(), "solve_ex": [solved.result.flatten().tolist(), int(solved.info)],
            "det": torch.linalg.det(A).item(), "diagonal": torch.linalg.diagonal(A, offset=1).tolist(),
            "matmul": torch.linalg.matmul(A, A).trace().item()}


# ---- Hessian-vector products (double backward, autograd.functional, torch.func) and a Hessian-free Newton step ----
def hessian_vector_products(torch, device):
    rng = np.random.default_rng(1418)
    X = torch.tensor(rng.standard_normal((40, 5)), device=device)
    w_true = torch.tensor([1.0, -2.0, 0.5, 0.0, 3.0], dtype=torch.float64, device=device)
    y = (torch.sigmoid(X @ w_true) > 0.5).to(torch.float64)

    def loss_fn(w):
        return torch.nn.functional.binary_cross_entropy_with_logits(X @ w, y) + 0.05 * (w ** 2).sum()

    w = torch.zeros(5, dtype=torch.float64, device=device, requires_grad=True)
    v = torch.tensor([0.3, -0.1, 0.2, 0.5, -0.4], dtype=torch.float64, device=device)
    loss = loss_fn(w)
    (g,) = torch.autograd.grad(loss, w, create_graph=True)
    (hv,) = torch.autograd.grad(g @ v, w)
    _, hvp_f = torch.autograd.functional.hvp(loss_fn, w.detach(), v)
    _, vhp_f = torch.autograd.functional.vhp(loss_fn, w.detach(), v)
    H = torch.autograd.functional.hessian(loss_fn, w.detach())
    H_func = torch.func.hessian(loss_fn)(w.detach())
    _, jvp_grad = torch.func.jvp(torch.func.grad(loss_fn), (w.detach(),), (v,))

    def cg(hvp, b, iters=20):
        x = torch.zeros_like(b)
        r = b.clone()
        p = r.clone()
        rs = r @ r
        for _ in range(iters):
            Ap = hvp(p)
            a = rs / (p @ Ap)
            x = x + a * p
            r = r - a * Ap
            rs_new = r @ r
            if rs_new.sqrt() < 1e-12:
                break
            p = r + (rs_new / rs) * p
            rs = rs_new
        return x

    wk = torch.zeros(5, dtype=torch.float64, device=device)
    history = []
    for _ in range(5):
        wk_ = wk.clone().requires_grad_()
        lk = loss_fn(wk_)
        (gk,) = torch.autograd.grad(lk, wk_, create_graph=True)

        def hvp(p, gk=gk, wk_=wk_):
            return torch.autograd.grad(gk, wk_, grad_outputs=p, retain_graph=True)[0]

        step = cg(hvp, -gk.detach())
        wk = wk + step
        history.append(lk.item())
    return {"hv": hv.tolist(), "hvp": hvp_f.tolist(), "vhp": vhp_f.tolist(), "H_sym": torch.allclose(H, H.T),
            "H_v": (H @ v).tolist(), "H_func": torch.allclose(H_func, H), "jvp_grad": jvp_grad.tolist(),
            "newton": history, "w": wk.tolist(), "g_requires": g.requires_grad}


PROGRAMS = [gp_regression_cholesky, glow_invertible_conv, pca_whitening, least_squares_drivers,
            power_iteration_lanczos, kalman_rts_smoother, matrix_functions_norms, hessian_vector_products]
NEEDS_CPP = {}
