"""Sweep 5 programs, scientific machine learning: a physics-informed net trained with LBFGS, a neural ODE
integrated with fixed-step RK4, a Hamiltonian net, a Fourier neural operator and Gaussian-process regression.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep5.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


# ---- physics-informed net for u'' = -pi^2 sin(pi x) on [0, 1], u(0) = u(1) = 0 (LBFGS with a closure) ----------
def pinn_poisson(torch, device):
    nn = torch.nn
    # float64, as PINN codes usually run: LBFGS's line search branches on float comparisons, and in float32 the
    # last-bit differences of two libraries' sums (or of one library's sum orders) pick other branches.
    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
    model = model.double().to(device)
    init_from_numpy(torch, model, 1)
    x = torch.linspace(0, 1, 24, dtype=torch.float64, device=device).unsqueeze(1).requires_grad_(True)
    boundary = torch.tensor([[0.0], [1.0]], dtype=torch.float64, device=device)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=8, history_size=10,
                                  line_search_fn="strong_wolfe")

    def residual():
        u = model(x)
        du = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
        d2u = torch.autograd.grad(du, x, grad_outputs=torch.ones_like(du), create_graph=True)[0]
        return d2u + math.pi ** 2 * torch.sin(math.pi * x)

    def closure():
        optimizer.zero_grad()
        loss = residual().pow(2).mean() + model(boundary).pow(2).mean()
        loss.backward()
        return loss

    losses = [optimizer.step(closure).item() for _ in range(3)]
    state = optimizer.state[optimizer._params[0]]
    with torch.no_grad():
        u_mid = model(torch.tensor([[0.5]], dtype=torch.float64, device=device)).item()
    return {"losses": losses, "u_mid": u_mid, "func_evals": state["func_evals"], "n_iter": state["n_iter"]}


# ---- neural ODE: dz/dt = f(z) integrated with RK4, trained to hit a target state (backprop through the solver) --
def neural_ode_rk4(torch, device):
    nn = torch.nn

    class ODEFunc(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2, 32), nn.Softplus(), nn.Linear(32, 2))

        def forward(self, t, z):
            return self.net(torch.cat([z[:, :1], z[:, 1:] * torch.cos(t)], dim=1))

    def odeint_rk4(func, z0, t):
        zs = [z0]
        z = z0
        for i in range(len(t) - 1):
            t0, dt = t[i], t[i + 1] - t[i]
            k1 = func(t0, z)
            k2 = func(t0 + dt / 2, z + dt * k1 / 2)
            k3 = func(t0 + dt / 2, z + dt * k2 / 2)
            k4 = func(t0 + dt, z + dt * k3)
            z = z + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            zs.append(z)
        return torch.stack(zs)

    func = ODEFunc().to(device)
    init_from_numpy(torch, func, 2)
    z0 = numpy_input(torch, 3, 8, 2, device=device)
    target = torch.stack([z0[:, 1], -z0[:, 0]], dim=1)
    t = torch.linspace(0.0, 1.5, 7, device=device)
    optimizer = torch.optim.Adam(func.parameters(), lr=1e-2)
    losses = []
    for _ in range(4):
        trajectory = odeint_rk4(func, z0, t)
        loss = nn.functional.mse_loss(trajectory[-1], target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "shape": list(trajectory.shape),
            "grad_norm": torch.nn.utils.clip_grad_norm_(func.parameters(), float("inf")).item()}


# ---- Hamiltonian neural net: learn H(q, p) so that (dH/dp, -dH/dq) matches a spring's flow ------------------------
def hamiltonian_nn(torch, device):
    nn = torch.nn
    net = nn.Sequential(nn.Linear(2, 24), nn.Tanh(), nn.Linear(24, 1)).to(device)
    init_from_numpy(torch, net, 4)
    state = numpy_input(torch, 5, 32, 2, device=device)
    q, p = state.unbind(1)
    true_flow = torch.stack([p, -q], dim=1)
    optimizer = torch.optim.AdamW(net.parameters(), lr=5e-3, weight_decay=1e-4)

    def vector_field(x):
        x = x.requires_grad_(True) if not x.requires_grad else x
        H = net(x).sum()
        dH = torch.autograd.grad(H, x, create_graph=True)[0]
        dHdq, dHdp = dH.chunk(2, dim=1)
        return torch.cat([dHdp, -dHdq], dim=1)

    losses = []
    for _ in range(5):
        loss = (vector_field(state.clone()) - true_flow).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    # Energy drift along a leapfrog-free Euler rollout of the learned field.
    x = state[:4].clone()
    energies = []
    for _ in range(3):
        x = (x + 0.1 * vector_field(x.clone())).detach()
        energies.append(net(x).sum().item())
    return {"losses": losses, "energies": energies}


# ---- Fourier neural operator layer (1-D): rfft, complex weights mixed with einsum, irfft --------------------------
def fourier_neural_operator(torch, device):
    nn = torch.nn

    class SpectralConv1d(nn.Module):
        def __init__(self, in_channels, out_channels, modes):
            super().__init__()
            self.modes = modes
            scale = 1 / (in_channels * out_channels)
            self.weights = nn.Parameter(scale * torch.ones(in_channels, out_channels, modes, dtype=torch.cfloat))

        def forward(self, x):
            x_ft = torch.fft.rfft(x)
            out_ft = torch.zeros(x.size(0), self.weights.size(1), x.size(-1) // 2 + 1, dtype=torch.cfloat,
                                 device=x.device)
            out_ft[:, :, :self.modes] = torch.einsum("bix,iox->box", x_ft[:, :, :self.modes], self.weights)
            return torch.fft.irfft(out_ft, n=x.size(-1))

    class FNO1d(nn.Module):
        def __init__(self, modes, width):
            super().__init__()
            self.lift = nn.Linear(2, width)
            self.spectral = nn.ModuleList(SpectralConv1d(width, width, modes) for _ in range(2))
            self.pointwise = nn.ModuleList(nn.Conv1d(width, width, 1) for _ in range(2))
            self.project = nn.Sequential(nn.Linear(width, 32), nn.GELU(), nn.Linear(32, 1))

        def forward(self, a, grid):
            x = self.lift(torch.cat([a.unsqueeze(-1), grid.expand_as(a).unsqueeze(-1)], dim=-1)).permute(0, 2, 1)
            for spectral, pointwise in zip(self.spectral, self.pointwise):
                x = nn.functional.gelu(spectral(x) + pointwise(x))
            return self.project(x.permute(0, 2, 1)).squeeze(-1)

    model = FNO1d(modes=6, width=8).to(device)
    rng = np.random.default_rng(6)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.is_complex():
                values = rng.standard_normal(tuple(p.shape)) + 1j * rng.standard_normal(tuple(p.shape))
                p.copy_(torch.from_numpy((values / 64).astype(np.complex64)))
            else:
                bound = 1 / math.sqrt(max(1, int(np.prod(p.shape[1:])))) if p.dim() > 1 else 0.1
                p.copy_(torch.from_numpy(rng.uniform(-bound, bound, size=tuple(p.shape))))
    grid = torch.linspace(0, 1, 32, device=device)
    a = numpy_input(torch, 7, 4, 32, device=device)
    # Target: the antiderivative of a, by cumulative trapezoid sums.
    u = torch.cumulative_trapezoid(a, grid, dim=-1)
    u = torch.nn.functional.pad(u, (1, 0))
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for _ in range(4):
        pred = model(a, grid)
        loss = torch.linalg.vector_norm(pred - u, dim=1).div(torch.linalg.vector_norm(u, dim=1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    spectral_grad = model.spectral[0].weights.grad
    return {"losses": losses, "grad_dtype": str(spectral_grad.dtype), "pred_shape": list(pred.shape)}


# ---- Gaussian-process regression: RBF kernel, Cholesky, marginal likelihood fitted with Adam on log params ------
def gaussian_process(torch, device):
    rng = np.random.default_rng(8)
    x_np = np.sort(rng.uniform(-3, 3, size=20))
    y_np = np.sin(x_np) + 0.1 * rng.standard_normal(20)
    X = torch.tensor(x_np, dtype=torch.float64, device=device).unsqueeze(1)
    y = torch.tensor(y_np, dtype=torch.float64, device=device)
    log_lengthscale = torch.zeros((), dtype=torch.float64, device=device, requires_grad=True)
    log_outputscale = torch.zeros((), dtype=torch.float64, device=device, requires_grad=True)
    log_noise = torch.full((), -2.0, dtype=torch.float64, device=device, requires_grad=True)

    def rbf(a, b):
        d2 = torch.cdist(a, b).pow(2)
        return log_outputscale.exp() * torch.exp(-0.5 * d2 / log_lengthscale.exp() ** 2)

    def negative_mll():
        K = rbf(X, X) + (log_noise.exp() + 1e-6) * torch.eye(len(X), dtype=X.dtype, device=device)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(1), L)
        return (0.5 * y @ alpha.squeeze(1) + torch.log(torch.diagonal(L)).sum()
                + 0.5 * len(X) * math.log(2 * math.pi))

    optimizer = torch.optim.Adam([log_lengthscale, log_outputscale, log_noise], lr=0.1)
    losses = []
    for _ in range(6):
        optimizer.zero_grad()
        loss = negative_mll()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        X_test = torch.linspace(-3, 3, 5, dtype=torch.float64, device=device).unsqueeze(1)
        K = rbf(X, X) + log_noise.exp() * torch.eye(len(X), dtype=X.dtype, device=device)
        K_s = rbf(X_test, X)
        L = torch.linalg.cholesky(K)
        mean = K_s @ torch.cholesky_solve(y.unsqueeze(1), L)
        v = torch.linalg.solve_triangular(L, K_s.T, upper=False)
        var = rbf(X_test, X_test).diagonal() - v.pow(2).sum(0)
        sign, logdet = torch.linalg.slogdet(K)
    return {"losses": losses, "mean": mean.squeeze(1).tolist(), "var": var.tolist(),
            "logdet": logdet.item(), "sign": sign.item(), "lengthscale": log_lengthscale.exp().item()}


# ---- phase retrieval (optics): a complex-valued object fitted to far-field intensities, |fft2(x)|^2, with SGD
# momentum, Adam, Rprop and LBFGS on the complex parameter (PyTorch updates it as pairs of reals) -------------------
def phase_retrieval(torch, device):
    rng = np.random.default_rng(9)
    truth_np = (rng.uniform(0.5, 1.0, size=(8, 8)) * np.exp(1j * rng.uniform(-1, 1, size=(8, 8)))).astype(np.complex64)
    truth = torch.tensor(truth_np, device=device)
    support = torch.zeros(8, 8, dtype=torch.bool, device=device)
    support[1:7, 1:7] = True
    measured = torch.fft.fft2(truth * support).abs().pow(2)
    start = torch.tensor((0.7 * np.ones((8, 8)) + 0.1j * rng.standard_normal((8, 8))).astype(np.complex64),
                         device=device)

    def loss_of(x):
        far_field = torch.fft.fft2(x * support, norm="ortho")
        return (far_field.abs() - measured.sqrt() / 8).pow(2).mean()

    results = {}
    for name in ("SGD", "Adam", "Rprop", "LBFGS"):
        x = start.clone().requires_grad_(True)
        if name == "SGD":
            optimizer = torch.optim.SGD([x], lr=2.0, momentum=0.9, nesterov=True)
        elif name == "Adam":
            optimizer = torch.optim.Adam([x], lr=0.02, amsgrad=True)
        elif name == "Rprop":
            optimizer = torch.optim.Rprop([x], lr=0.01)
        else:
            optimizer = torch.optim.LBFGS([x], lr=1, max_iter=5, history_size=4)

        def closure():
            optimizer.zero_grad()
            loss = loss_of(x)
            loss.backward()
            return loss

        losses = [optimizer.step(closure).item() for _ in range(4)]
        state = optimizer.state[x]
        buffers = {k: str(v.dtype) for k, v in state.items() if torch.is_tensor(v) and v.dim() > 0}
        results[name] = {"losses": losses, "x_sum": [x.detach().sum().real.item(), x.detach().sum().imag.item()],
                         "buffers": buffers}
    return results


# ---- heat equation: implicit Euler with a sparse finite-difference Laplacian from torch.sparse.spdiags, solved by
# conjugate gradients written with sparse matrix-vector products ----------------------------------------------------
def heat_equation_sparse(torch, device):
    n, dx, dt, kappa = 32, 1.0 / 33, 1e-3, 1.0
    ones = torch.ones(n, dtype=torch.float64)
    diagonals = torch.stack([ones, -2 * ones, ones]) / dx ** 2
    laplacian = torch.sparse.spdiags(diagonals, torch.tensor([-1, 0, 1]), (n, n)).to(device)
    eye = torch.sparse.spdiags(ones.unsqueeze(0), torch.tensor([0]), (n, n)).to(device)
    system = (eye - dt * kappa * laplacian).coalesce()

    def conjugate_gradient(A, b, iters=40, tol=1e-12):
        x = torch.zeros_like(b)
        r = b - torch.sparse.mm(A, x.unsqueeze(1)).squeeze(1)
        p = r.clone()
        rs = r @ r
        for i in range(iters):
            Ap = torch.sparse.mm(A, p.unsqueeze(1)).squeeze(1)
            alpha = rs / (p @ Ap)
            x = x + alpha * p
            r = r - alpha * Ap
            rs_new = r @ r
            if rs_new.sqrt() < tol:
                break
            p = r + (rs_new / rs) * p
            rs = rs_new
        return x, i + 1

    grid = torch.linspace(dx, 1 - dx, n, dtype=torch.float64, device=device)
    u = torch.sin(math.pi * grid) + 0.5 * torch.sin(3 * math.pi * grid)
    iterations = []
    for _ in range(5):
        u, its = conjugate_gradient(system, u)
        iterations.append(its)
    exact = (torch.exp(torch.tensor(-kappa * math.pi ** 2 * 5 * dt)) * torch.sin(math.pi * grid)
             + 0.5 * torch.exp(torch.tensor(-kappa * 9 * math.pi ** 2 * 5 * dt)) * torch.sin(3 * math.pi * grid))
    dense = system.to_dense()
    return {"u": u[::8].tolist(), "error": (u - exact.to(device)).abs().max().item(), "iterations": iterations,
            "nnz": system._nnz(), "symmetric": bool(torch.equal(dense, dense.T)),
            "csr_rows": laplacian.cpu().to_sparse_csr().crow_indices()[:4].tolist()}


PROGRAMS = [pinn_poisson, neural_ode_rk4, hamiltonian_nn, fourier_neural_operator, gaussian_process,
            phase_retrieval, heat_equation_sparse]
