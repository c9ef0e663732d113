"""Sweep 16 programs, numerical methods: explicit and adaptive ODE integrators, batched Newton/bisection/secant root
finding, Monte Carlo and quasi-Monte Carlo integration (Generator, SobolEngine), piecewise-linear and cubic-spline
interpolation by searchsorted, finite-difference PDE stencils, conjugate gradient on sparse matrices and Gaussian
quadrature by Golub-Welsch."""
import math


from sweep15_common import cases, plain


# ---- ODE integrators: Euler, RK4 and an adaptive Dormand-Prince on a batch of oscillators ------------------------
def ode_integrators(torch, device):
    omega = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64, device=device)

    def f(t, y):
        return torch.stack([y[:, 1], -omega ** 2 * y[:, 0] - 0.1 * y[:, 1]], 1)

    y0 = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, -1.0]], dtype=torch.float64, device=device)

    def euler(y, h, n):
        for i in range(n):
            y = y + h * f(i * h, y)
        return y

    def rk4(y, h, n):
        t = 0.0
        for _ in range(n):
            k1 = f(t, y)
            k2 = f(t + h / 2, y + h / 2 * k1)
            k3 = f(t + h / 2, y + h / 2 * k2)
            k4 = f(t + h, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        return y

    a = [[], [1 / 5], [3 / 40, 9 / 40], [44 / 45, -56 / 15, 32 / 9],
         [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
         [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
         [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]]
    c = [0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1, 1]
    b5 = torch.tensor([35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0], dtype=torch.float64,
                      device=device)
    b4 = torch.tensor([5179 / 57600, 0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40],
                      dtype=torch.float64, device=device)

    def dopri(y, t_end, rtol=1e-6, atol=1e-9):
        t, h, steps, rejected = 0.0, 0.1, 0, 0
        while t < t_end - 1e-12:
            h = min(h, t_end - t)
            ks = []
            for i in range(7):
                yi = y + h * sum(a[i][j] * ks[j] for j in range(i)) if i else y
                ks.append(f(t + c[i] * h, yi))
            K = torch.stack(ks)
            y5 = y + h * torch.tensordot(b5, K, dims=1)
            y4 = y + h * torch.tensordot(b4, K, dims=1)
            scale = atol + rtol * torch.maximum(y.abs(), y5.abs())
            err = torch.linalg.vector_norm((y5 - y4) / scale) / math.sqrt(y.numel())
            if err <= 1:
                t, y = t + h, y5
                steps += 1
            else:
                rejected += 1
            h = h * min(5.0, max(0.2, 0.9 * err.clamp(min=1e-10).item() ** -0.2))
        return y, steps, rejected

    y_dp, steps, rejected = dopri(y0, 2.0)
    # the exact damped-oscillator solution
    return {"euler": euler(y0, 0.01, 200).tolist(), "rk4": rk4(y0, 0.05, 40).tolist(), "dopri": y_dp.tolist(),
            "steps": [steps, rejected], "agree": bool(torch.allclose(rk4(y0, 0.01, 200), y_dp, atol=1e-6)),
            "energy": (0.5 * y_dp[:, 1] ** 2 + 0.5 * omega ** 2 * y_dp[:, 0] ** 2).tolist()}


# ---- root finding: batched Newton with autograd, bisection with torch.where, secant, and torch.func.jacrev --------
def root_finding(torch, device):
    c = torch.tensor([2.0, 3.0, 10.0, 0.5], dtype=torch.float64, device=device)

    def g(x):
        return x ** 3 - c * x - 1

    x = torch.full_like(c, 3.0)
    newton = []
    for _ in range(20):
        xr = x.detach().requires_grad_()
        y = g(xr)
        (dy,) = torch.autograd.grad(y.sum(), xr)
        x = (xr - y / dy).detach()
        newton.append(y.abs().max().item())
    lo = torch.zeros_like(c)
    hi = torch.full_like(c, 5.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        pos = g(mid) > 0
        hi = torch.where(pos, mid, hi)
        lo = torch.where(pos, lo, mid)
    x0, x1 = torch.full_like(c, 2.0), torch.full_like(c, 4.0)
    for _ in range(12):
        f0, f1 = g(x0), g(x1)
        denom = torch.where((f1 - f0).abs() < 1e-300, torch.ones_like(f1), f1 - f0)
        x0, x1 = x1, torch.where((f1 - f0).abs() < 1e-300, x1, x1 - f1 * (x1 - x0) / denom)
    # 2-D Newton on a system with torch.func.jacrev and linalg.solve
    func = torch.func

    def system(v):
        return torch.stack([v[0] ** 2 + v[1] ** 2 - 4, torch.exp(v[0]) + v[1] - 1])

    v = torch.tensor([1.0, -1.0], dtype=torch.float64, device=device)
    for _ in range(8):
        J = func.jacrev(system)(v)
        v = v - torch.linalg.solve(J, system(v))
    batched_J = func.vmap(func.jacfwd(system))(torch.tensor([[1.0, -1.0], [0.5, 0.5]], dtype=torch.float64,
                                                              device=device))
    roots = torch.linalg.eigvals(torch.tensor([[0.0, 2.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                                              dtype=torch.float64, device=device))
    real_root = roots.real[roots.imag.abs() < 1e-9].max()
    return {"newton": x.tolist(), "residuals": newton[:5], "bisect": ((lo + hi) / 2).tolist(),
            "secant": x1.tolist(), "system": v.tolist(), "residual": system(v).abs().max().item() < 1e-10,
            "batched_J": batched_J.tolist(), "companion": real_root.item(), "eig_dtype": str(roots.dtype)}


# ---- Monte Carlo: seeded Generators (reproducibility only), SobolEngine draws, quasi-MC integrals ----------------
def monte_carlo(torch, device):
    out = {}
    g1 = torch.Generator(device=device).manual_seed(123)
    g2 = torch.Generator(device=device).manual_seed(123)
    a = torch.rand(1000, 2, generator=g1, device=device)
    b = torch.rand(1000, 2, generator=g2, device=device)
    out["reproducible"] = bool(torch.equal(a, b))
    pi_est = 4 * (a.pow(2).sum(1) <= 1).double().mean().item()
    out["pi_close"] = abs(pi_est - math.pi) < 0.2
    out["gen_device"] = g1.device.type == torch.device(device).type
    out["initial_seed"] = g1.initial_seed()
    sob = torch.quasirandom.SobolEngine(dimension=3, scramble=False)
    first = sob.draw(8)
    out["sobol"] = first.tolist()
    out["sobol_dtype"] = str(first.dtype)
    out["count"] = sob.num_generated
    sob.fast_forward(8)
    nxt = sob.draw(4, dtype=torch.float64)
    sob.reset()
    again = sob.draw(16)
    out["ff"] = [nxt.tolist(), again[-8:-4].tolist(), str(nxt.dtype)]
    base2 = torch.quasirandom.SobolEngine(2).draw_base2(6)
    f = lambda p: torch.exp(-(p ** 2).sum(1))
    out["qmc"] = f(base2).mean().item()
    out["repr"] = repr(torch.quasirandom.SobolEngine(4, scramble=True, seed=7))
    s1 = torch.quasirandom.SobolEngine(2, scramble=True, seed=5).draw(4)
    s2 = torch.quasirandom.SobolEngine(2, scramble=True, seed=5).draw(4)
    out["scrambled_repro"] = bool(torch.equal(s1, s2))
    # importance sampling with a seeded normal and log-probabilities
    g3 = torch.Generator().manual_seed(7)
    z = torch.randn(40000, generator=g3, dtype=torch.float64)
    w = torch.exp(-0.5 * (z - 1) ** 2 + 0.5 * z ** 2)
    out["importance_close"] = abs((w * (z > 2)).mean().item() - 0.1587) < 0.04
    state = g3.get_state()
    u1 = torch.rand(3, generator=g3)
    g3.set_state(state)
    out["state_roundtrip"] = bool(torch.equal(u1, torch.rand(3, generator=g3)))
    out["errors"] = cases(torch, {
        "sobol_dim": lambda: torch.quasirandom.SobolEngine(0),
        "sobol_big": lambda: torch.quasirandom.SobolEngine(30000),
        "base2_warn": lambda: torch.quasirandom.SobolEngine(2).draw(3).shape})
    return out


# ---- interpolation: np.interp by searchsorted, a natural cubic spline by a tridiagonal solve, 1-D interpolate ----
def interpolation(torch, device):
    xp = torch.tensor([0.0, 0.5, 1.3, 2.0, 3.1, 4.0], dtype=torch.float64, device=device)
    fp = torch.sin(xp)
    xq = torch.linspace(-0.5, 4.5, 11, dtype=torch.float64, device=device)

    def interp(x, xp, fp):
        i = torch.searchsorted(xp, x, right=True).clamp(1, len(xp) - 1)
        x0, x1, y0, y1 = xp[i - 1], xp[i], fp[i - 1], fp[i]
        t = ((x - x0) / (x1 - x0)).clamp(0, 1)
        return torch.lerp(y0, y1, t)

    lin = interp(xq, xp, fp)
    h = xp.diff()
    n = len(xp)
    A = torch.zeros(n, n, dtype=torch.float64, device=device)
    A[0, 0] = A[-1, -1] = 1
    idx = torch.arange(1, n - 1, device=device)
    A[idx, idx - 1] = h[:-1]
    A[idx, idx] = 2 * (h[:-1] + h[1:])
    A[idx, idx + 1] = h[1:]
    rhs = torch.zeros(n, dtype=torch.float64, device=device)
    rhs[1:-1] = 3 * ((fp[2:] - fp[1:-1]) / h[1:] - (fp[1:-1] - fp[:-2]) / h[:-1])
    cc = torch.linalg.solve(A, rhs)
    bb = (fp[1:] - fp[:-1]) / h - h * (2 * cc[:-1] + cc[1:]) / 3
    dd = (cc[1:] - cc[:-1]) / (3 * h)
    xin = xq.clamp(xp[0], xp[-1])
    seg = torch.bucketize(xin, xp[1:-1], right=True)
    dx = xin - xp[seg]
    spline = fp[seg] + bb[seg] * dx + cc[seg] * dx ** 2 + dd[seg] * dx ** 3
    batched = torch.searchsorted(torch.sort(torch.tensor([[3.0, 1.0, 2.0], [0.5, 0.1, 0.2]], device=device)).values,
                                 torch.tensor([[1.5], [0.15]], device=device))
    sig = torch.tensor([[0.0, 1.0, 4.0, 9.0]], device=device).unsqueeze(0)
    F = torch.nn.functional
    return {"linear": lin.tolist(), "spline": spline.tolist(), "spline_err": (spline - torch.sin(xin)).abs().max().item(),
            "batched": batched.tolist(), "up_linear": F.interpolate(sig, size=7, mode="linear",
                                                                    align_corners=True).flatten().tolist(),
            "up_linear_nc": F.interpolate(sig, scale_factor=1.5, mode="linear").flatten().tolist(),
            "up_nearest": F.interpolate(sig, size=6).flatten().tolist(),
            "bucket_int": torch.bucketize(torch.tensor([1, 5, 9], device=device), torch.tensor([2, 4, 6, 8],
                                                                                                device=device)).tolist(),
            "errors": cases(torch, {"unsorted_dims": lambda: torch.searchsorted(xp.view(2, 3), xq),
                                    "linear_4d": lambda: F.interpolate(sig.unsqueeze(0), size=3, mode="linear")})}


# ---- finite differences: heat (conv2d stencil and roll), wave (leapfrog), Jacobi for Poisson, diff / gradient -----
def pde_stencils(torch, device):
    F = torch.nn.functional
    n = 16
    xs = torch.linspace(0, 1, n, dtype=torch.float64, device=device)
    X, Y = torch.meshgrid(xs, xs, indexing="ij")
    u = torch.exp(-50 * ((X - 0.5) ** 2 + (Y - 0.5) ** 2)).view(1, 1, n, n)
    lap = torch.tensor([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=torch.float64, device=device).view(1, 1, 3, 3)
    u_conv, u_roll = u.clone(), u.clone()
    for _ in range(20):
        u_conv = u_conv + 0.2 * F.conv2d(F.pad(u_conv, (1, 1, 1, 1), mode="circular"), lap)
        v = u_roll[0, 0]
        u_roll = (v + 0.2 * (v.roll(1, 0) + v.roll(-1, 0) + v.roll(1, 1) + v.roll(-1, 1) - 4 * v)).view(1, 1, n, n)
    # 1-D wave equation by leapfrog with fixed ends
    m = 32
    x1 = torch.linspace(0, 1, m, dtype=torch.float64, device=device)
    prev = torch.sin(math.pi * x1)
    cur = prev.clone()
    for _ in range(40):
        nxt = torch.zeros_like(cur)
        nxt[1:-1] = 2 * cur[1:-1] - prev[1:-1] + 0.25 * torch.diff(cur, n=2)
        prev, cur = cur, nxt
    # Poisson with Jacobi iterations and a zero boundary
    f = torch.ones(n, n, dtype=torch.float64, device=device)
    phi = torch.zeros(n + 2, n + 2, dtype=torch.float64, device=device)
    h2 = (1 / (n + 1)) ** 2
    for _ in range(50):
        phi[1:-1, 1:-1] = 0.25 * (phi[:-2, 1:-1] + phi[2:, 1:-1] + phi[1:-1, :-2] + phi[1:-1, 2:] + h2 * f)
    gx, gy = torch.gradient(u[0, 0], spacing=(xs, xs))
    g_edge = torch.gradient(xs ** 2, spacing=1.0 / (n - 1), edge_order=2)[0]
    return {"heat_same": bool(torch.allclose(u_conv[0, 0], u_roll[0, 0])), "heat_mass": [u.sum().item(),
                                                                                          u_conv.sum().item()],
            "heat_peak": u_conv.max().item(), "wave": cur[::4].tolist(), "poisson": phi[n // 2, ::3].tolist(),
            "grad": [gx[8, ::4].tolist(), gy[::5, 8].tolist()], "edge2": g_edge[[0, 7, -1]].tolist(),
            "diff_pre": torch.diff(xs[:4], prepend=xs[:1], append=xs[-1:]).tolist(),
            "errors": cases(torch, {"grad_small": lambda: torch.gradient(torch.ones(1, device=device)),
                                    "edge3": lambda: torch.gradient(xs, edge_order=3)})}


# ---- conjugate gradient: a 2-D Poisson matrix in COO/CSR (spdiags, sparse @ dense), Jacobi preconditioning -------
def conjugate_gradient(torch, device):
    n = 8
    main = torch.full((n,), 2.0, dtype=torch.float64)
    off = torch.full((n,), -1.0, dtype=torch.float64)
    T = torch.sparse.spdiags(torch.stack([off, main, off]), torch.tensor([-1, 0, 1]), (n, n))
    I = torch.eye(n, dtype=torch.float64).to_sparse()
    A = (torch.kron(T.to_dense(), I.to_dense()) + torch.kron(I.to_dense(), T.to_dense()))
    A = A + torch.diag(torch.linspace(0, 1, n * n, dtype=torch.float64))
    A_coo = A.to_sparse().to(device)
    A_csr = A.to_sparse_csr().to(device)
    b = torch.sin(torch.arange(n * n, dtype=torch.float64, device=device))

    def cg(matvec, b, precond=None, tol=1e-10, maxiter=200):
        x = torch.zeros_like(b)
        r = b - matvec(x)
        z = precond(r) if precond else r
        p = z.clone()
        rz = r @ z
        for k in range(maxiter):
            Ap = matvec(p)
            alpha = rz / (p @ Ap)
            x = x + alpha * p
            r = r - alpha * Ap
            if torch.linalg.norm(r) < tol:
                return x, k + 1
            z = precond(r) if precond else r
            rz_new = r @ z
            p = z + (rz_new / rz) * p
            rz = rz_new
        return x, maxiter

    x_coo, it_coo = cg(lambda v: torch.sparse.mm(A_coo, v.unsqueeze(1)).squeeze(1), b)
    diag = A.diagonal().to(device)
    x_csr, it_pc = cg(lambda v: A_csr @ v, b, precond=lambda r: r / diag)
    exact = torch.linalg.solve(A.to(device), b)
    return {"iters": [it_coo, it_pc < it_coo + 1], "coo": bool(torch.allclose(x_coo, exact, atol=1e-8)),
            "csr": bool(torch.allclose(x_csr, exact, atol=1e-8)), "x": x_coo[::9].tolist(),
            "nnz": [A_coo._nnz(), A_csr.values().numel(), T._nnz()], "layout": [str(A_coo.layout), str(A_csr.layout)],
            "crow": A_csr.crow_indices()[:6].tolist(), "spdiags": T.to_dense()[:3, :3].tolist(),
            "coalesced": A_coo.is_coalesced(), "sp_sum": torch.sparse.sum(A_coo).item(),
            "sp_t": bool(torch.equal((A_coo.t()).to_dense(), A.to(device).t()))}


# ---- Gaussian quadrature: Golub-Welsch nodes/weights by eigh, Gauss-Hermite, trapezoid/Simpson/Romberg -----------
def quadrature(torch, device):
    n = 6
    k = torch.arange(1, n, dtype=torch.float64, device=device)
    beta = k / torch.sqrt(4 * k ** 2 - 1)
    J = torch.diag(beta, 1) + torch.diag(beta, -1)
    nodes, vecs = torch.linalg.eigh(J)
    weights = 2 * vecs[0] ** 2
    f = lambda x: torch.exp(x) * torch.cos(x)
    gl = (weights * f(nodes)).sum()
    Jh = torch.diag(torch.sqrt(k / 2), 1) + torch.diag(torch.sqrt(k / 2), -1)
    hn, hv = torch.linalg.eigh(Jh)
    hw = math.sqrt(math.pi) * hv[0] ** 2
    x = torch.linspace(-1, 1, 33, dtype=torch.float64, device=device)
    trap = torch.trapezoid(f(x), x)
    simpson = (x[1] - x[0]) / 3 * (f(x[0]) + 4 * f(x[1:-1:2]).sum() + 2 * f(x[2:-1:2]).sum() + f(x[-1]))
    R = torch.zeros(5, 5, dtype=torch.float64, device=device)
    for i in range(5):
        pts = torch.linspace(-1, 1, 2 ** i + 1, dtype=torch.float64, device=device)
        R[i, 0] = torch.trapezoid(f(pts), pts)
        for j in range(1, i + 1):
            R[i, j] = R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1)
    cum = torch.cumulative_trapezoid(f(x), x)
    exact = (math.exp(1) * (math.sin(1) + math.cos(1)) - math.exp(-1) * (math.cos(-1) + math.sin(-1))) / 2
    return {"nodes": nodes.tolist(), "weights": weights.tolist(), "gl_err": abs(gl.item() - exact) < 1e-8,
            "hermite": (hw * hn ** 2).sum().item(), "trap": trap.item(), "simpson": simpson.item(),
            "romberg": R[4, 4].item(), "cum": cum[::8].tolist(), "trap_dx": torch.trapezoid(f(x), dx=1 / 16).item(),
            "trap_2d": torch.trapezoid(torch.outer(f(x), f(x)), x, dim=0)[::8].tolist(),
            "plain": plain(torch, torch.trapezoid(torch.tensor([1, 2, 4], device=device)))}


# ---- derivatives of sampled data: torch.gradient on non-uniform coordinates (dtypes, edge orders), np.gradient ports
def nonuniform_gradients(torch, device):
    x = torch.tensor([0.0, 0.3, 0.7, 1.6, 2.0, 3.1, 3.2], dtype=torch.float64, device=device)
    f = torch.sin(x) * torch.exp(-0.2 * x)
    grid2d = torch.outer(torch.cos(x[:4]), f)
    table = {}
    for order in (1, 2):
        table[f"f64_{order}"] = lambda order=order: torch.gradient(f, spacing=(x,), edge_order=order)
        table[f"half_on_f32_{order}"] = lambda order=order: torch.gradient(f.half(), spacing=(x.float(),),
                                                                           edge_order=order)
        table[f"f32_on_half_{order}"] = lambda order=order: torch.gradient(f.float(), spacing=(x.half(),),
                                                                           edge_order=order)
        table[f"int_on_int_{order}"] = lambda order=order: torch.gradient(
            (f * 100).long(), spacing=(torch.tensor([0, 1, 3, 4, 7, 8, 10], device=device),), edge_order=order)
        table[f"2d_{order}"] = lambda order=order: torch.gradient(grid2d, spacing=(x[:4], x), edge_order=order)
        table[f"bool_coords_{order}"] = lambda order=order: torch.gradient(
            f > 0, spacing=(x,), edge_order=order)
    table.update({
        "scalar": lambda: torch.gradient(f.float(), spacing=0.25), "list_scalars": lambda: torch.gradient(
            grid2d.float(), spacing=[0.5, 2.0]), "dim": lambda: torch.gradient(grid2d, spacing=(x,), dim=1),
        "int_scalar": lambda: torch.gradient(torch.tensor([1, 4, 9, 16, 25], device=device), spacing=2),
        "uint8": lambda: torch.gradient(torch.tensor([1, 4, 9], dtype=torch.uint8, device=device)),
        "bool": lambda: torch.gradient(torch.tensor([True, False, True], device=device)),
        "coords_2d": lambda: torch.gradient(f, spacing=(x.view(7, 1),)),
        "coords_len": lambda: torch.gradient(grid2d, spacing=(x,), dim=(0, 1)),
        "too_short": lambda: torch.gradient(f[:2], edge_order=2)})
    second = torch.gradient(torch.gradient(f, spacing=(x,), edge_order=2)[0], spacing=(x,), edge_order=2)[0]
    table["second"] = lambda: second
    return cases(torch, table)


# ---- Vandermonde matrices: a least-squares polynomial fit, the DFT matrix as the Vandermonde matrix of the roots of
#      unity (complex) against torch.fft, Chebyshev nodes and barycentric weights ------------------------------------
def vandermonde_methods(torch, device):
    x = torch.linspace(-1, 1, 9, dtype=torch.float64, device=device)
    y = torch.exp(x) * torch.cos(3 * x)
    V = torch.vander(x, N=4, increasing=True)
    coef = torch.linalg.lstsq(V, y.unsqueeze(1)).solution.squeeze(1)
    n = 8
    k = torch.arange(n, dtype=torch.float64, device=device)
    omega = torch.polar(torch.ones(n, dtype=torch.float64, device=device), -2 * torch.pi * k / n)
    dft = torch.vander(omega, increasing=True)
    signal = torch.sin(k) + 0.5 * torch.cos(3 * k)
    via_matrix = dft @ signal.to(dft.dtype)
    via_fft = torch.fft.fft(signal)
    lv = torch.linalg.vander(omega[:4], N=3)
    nodes = torch.cos(torch.pi * (2 * torch.arange(5, dtype=torch.float64, device=device) + 1) / 10)
    diffs = nodes.unsqueeze(1) - nodes.unsqueeze(0)
    weights = 1 / torch.where(torch.eye(5, dtype=torch.bool, device=device), torch.ones_like(diffs), diffs).prod(1)
    ints = torch.vander(torch.tensor([2, 3, -1], device=device), N=5)
    return {"coef": coef.tolist(), "dft_dtype": str(dft.dtype), "dft_same": bool(torch.allclose(via_matrix, via_fft)),
            "dft_row": [dft[1].real.tolist(), dft[1].imag.tolist()], "lv": [lv.real.tolist(), lv.imag.tolist()],
            "cond": torch.linalg.cond(V).item(), "bary": (weights / weights.abs().max()).tolist(),
            "ints": [str(ints.dtype), ints.tolist()],
            "errors": cases(torch, {"half": lambda: torch.linalg.vander(x.half()),
                                    "bool": lambda: torch.linalg.vander(x > 0),
                                    "vander_half": lambda: torch.vander(x.half(), N=3),
                                    "2d": lambda: torch.vander(V)})}


PROGRAMS = [ode_integrators, root_finding, monte_carlo, interpolation, pde_stencils, conjugate_gradient, quadrature,
            nonuniform_gradients, vandermonde_methods]
NEEDS_CPP = {}
