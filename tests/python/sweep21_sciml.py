"""Sweep 21 programs, scientific machine learning: a PINN for the viscous Burgers equation and one for a 4th-order
beam equation (autograd.grad with create_graph up to the fourth derivative, L-BFGS after Adam), a neural ODE with a
hand-written RK4 integrator and the adjoint method written with autograd.grad and vector-Jacobian products, a
Hamiltonian neural network with a leapfrog integrator, MAML with torch.func.functional_call/grad/vmap over tasks,
a 1-D Fourier neural operator with complex spectral weights (rfft/irfft, view_as_complex), and a DeepONet.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _mlp(torch, sizes, seed, device, act=None, dtype=None):
    nn = torch.nn
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), act() if act else nn.Tanh()]
    model = _fill(torch, nn.Sequential(*layers[:-1]), seed)
    return model.to(device=device, dtype=dtype or torch.float32)


# ---- PINN for Burgers' equation ------------------------------------------------------------------------------------------
def pinn_burgers(torch, device):
    net = _mlp(torch, [2, 12, 12, 1], 2500, device, dtype=torch.float64)
    nu = 0.01 / math.pi
    xt = (_randn(torch, 2501, 40, 2, device=device, dtype=torch.float64).tanh())
    x_b = torch.cat([torch.full((10, 1), -1.0), torch.full((10, 1), 1.0)]).to(device, torch.float64)
    t_b = torch.linspace(0, 1, 20, dtype=torch.float64, device=device).unsqueeze(1)
    x_0 = torch.linspace(-1, 1, 20, dtype=torch.float64, device=device).unsqueeze(1)
    u_0 = -torch.sin(math.pi * x_0)

    def residual(xt):
        xt = xt.clone().requires_grad_(True)
        u = net(xt)
        du = torch.autograd.grad(u, xt, grad_outputs=torch.ones_like(u), create_graph=True)[0]
        u_x, u_t = du[:, :1], du[:, 1:]
        u_xx = torch.autograd.grad(u_x, xt, torch.ones_like(u_x), create_graph=True)[0][:, :1]
        return u_t + u * u_x - nu * u_xx

    def loss_fn():
        f = residual(xt)
        ub = net(torch.cat([x_b, t_b], 1))
        u0 = net(torch.cat([x_0, torch.zeros_like(x_0)], 1))
        return f.pow(2).mean() + ub.pow(2).mean() + (u0 - u_0).pow(2).mean()

    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    log = []
    for _ in range(4):
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        log.append(round(loss.item(), 8))
    lbfgs = torch.optim.LBFGS(net.parameters(), lr=0.5, max_iter=5, history_size=4, line_search_fn="strong_wolfe")

    def closure():
        lbfgs.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    for _ in range(2):
        log.append(round(lbfgs.step(closure).item(), 8))
    return {"log": log, "res": _r(residual(xt[:5]).detach().squeeze(1), 6),
            "n_iter": lbfgs.state[lbfgs._params[0]]["n_iter"]}


# ---- PINN for a beam: fourth derivative by nested autograd.grad --------------------------------------------------------------
def pinn_beam_fourth_order(torch, device):
    net = _mlp(torch, [1, 10, 10, 1], 2510, device, act=torch.nn.SiLU, dtype=torch.float64)
    x = torch.linspace(0, 1, 15, dtype=torch.float64, device=device).unsqueeze(1).requires_grad_(True)

    def derivs(x, n):
        out = [net(x)]
        for _ in range(n):
            out.append(torch.autograd.grad(out[-1].sum(), x, create_graph=True)[0])
        return out

    w, w1, w2, w3, w4 = derivs(x, 4)
    q = 1.0
    pde = (w4 - q).pow(2).mean()
    # clamped at 0 (w = w' = 0), free at 1 (w'' = w''' = 0)
    bc = w[0].pow(2) + w1[0].pow(2) + w2[-1].pow(2) + w3[-1].pow(2)
    loss = pde + bc.sum()
    grads = torch.autograd.grad(loss, list(net.parameters()))
    # the same fourth derivative through torch.func
    from_func = torch.func.grad(torch.func.grad(torch.func.grad(torch.func.grad(lambda s: net(s.view(1, 1)).sum()))))
    w4_func = torch.stack([from_func(xi) for xi in x.detach().squeeze(1)[:4]])
    return {"w4": _r(w4[:4].squeeze(1), 6), "w4_func": _r(w4_func, 6), "loss": round(loss.item(), 7),
            "grad_norms": [round(g.norm().item(), 6) for g in grads], "req": [t.requires_grad for t in (w3, w4)]}


# ---- neural ODE: RK4 and the adjoint method ----------------------------------------------------------------------------------
def neural_ode_adjoint(torch, device):
    nn = torch.nn

    class ODEFunc(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))

        def forward(self, t, y):
            return self.net(y) + 0.1 * torch.sin(t) * y

    func = _fill(torch, ODEFunc(), 2520, scale=0.4).to(device, torch.float64)

    def rk4(f, y0, ts):
        ys = [y0]
        y = y0
        for t0, t1 in zip(ts[:-1], ts[1:]):
            h = t1 - t0
            k1 = f(t0, y)
            k2 = f(t0 + h / 2, y + h * k1 / 2)
            k3 = f(t0 + h / 2, y + h * k2 / 2)
            k4 = f(t1, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            ys.append(y)
        return torch.stack(ys)

    y0 = torch.tensor([[1.0, 0.0], [0.5, -0.5]], dtype=torch.float64, device=device)
    ts = torch.linspace(0.0, 1.0, 11, dtype=torch.float64, device=device)
    target = torch.tensor([[0.2, 0.8], [-0.3, 0.1]], dtype=torch.float64, device=device)
    traj = rk4(func, y0, ts)
    loss = (traj[-1] - target).pow(2).sum()
    direct = torch.autograd.grad(loss, list(func.parameters()))
    # adjoint: integrate [y, a, dL/dtheta] backwards
    params = list(func.parameters())
    with torch.no_grad():
        yT = traj[-1]
    a = 2 * (yT - target)

    def aug_dynamics(t, state):
        y, adj = state[0], state[1]
        with torch.enable_grad():
            y = y.detach().requires_grad_(True)
            f = func(t, y)
            vjps = torch.autograd.grad(f, [y] + params, -adj, allow_unused=True)
        return f.detach(), vjps

    y, adj = yT, a
    acc = [torch.zeros_like(p) for p in params]
    rev = ts.flip(0)
    for t0, t1 in zip(rev[:-1], rev[1:]):
        h = t1 - t0

        def step(t, y, adj):
            f, v = aug_dynamics(t, (y, adj))
            return f, v[0], v[1:]

        k1 = step(t0, y, adj)
        k2 = step(t0 + h / 2, y + h / 2 * k1[0], adj + h / 2 * k1[1])
        k3 = step(t0 + h / 2, y + h / 2 * k2[0], adj + h / 2 * k2[1])
        k4 = step(t1, y + h * k3[0], adj + h * k3[1])
        y = y + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        adj = adj + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        acc = [g - h / 6 * (a1 + 2 * a2 + 2 * a3 + a4) for g, a1, a2, a3, a4 in zip(acc, k1[2], k2[2], k3[2], k4[2])]
    # the adjoint's parameter gradient approximates the direct one
    rel = [((g1 - g2).norm() / g1.norm()).item() for g1, g2 in zip(direct, acc)]
    return {"traj": _r(traj[:, 0], 6), "loss": round(loss.item(), 8), "direct": [_r(g.norm(), 6) for g in direct],
            "adjoint_close": [r < 1e-2 for r in rel], "y0_back": _r(y, 4)}


# ---- Hamiltonian neural network with a leapfrog integrator -------------------------------------------------------------------
def hamiltonian_nn(torch, device):
    H = _mlp(torch, [2, 16, 16, 1], 2530, device)
    q = torch.linspace(-1, 1, 16, device=device)
    p = torch.cos(3 * q)
    qp = torch.stack([q, p], 1)
    # true dynamics of a pendulum-like H = p^2/2 + (1 - cos q)
    dq_true, dp_true = p, -torch.sin(q)
    opt = torch.optim.RMSprop(H.parameters(), lr=3e-3, alpha=0.9, momentum=0.5, centered=True)
    log = []
    for _ in range(4):
        opt.zero_grad()
        x = qp.clone().requires_grad_(True)
        dH = torch.autograd.grad(H(x).sum(), x, create_graph=True)[0]
        dq, dp = dH[:, 1], -dH[:, 0]
        loss = (dq - dq_true).pow(2).mean() + (dp - dp_true).pow(2).mean()
        loss.backward()
        opt.step()
        log.append(round(loss.item(), 6))

    def grad_H(q, p):
        x = torch.stack([q, p], -1).requires_grad_(True)
        g = torch.autograd.grad(H(x).sum(), x)[0]
        return g[..., 0], g[..., 1]

    q, p = torch.tensor([0.5], device=device), torch.tensor([0.0], device=device)
    energies = []
    for _ in range(6):
        dHq, _ = grad_H(q, p)
        p = p - 0.05 * dHq
        _, dHp = grad_H(q, p)
        q = q + 0.1 * dHp
        dHq, _ = grad_H(q, p)
        p = p - 0.05 * dHq
        with torch.no_grad():
            energies.append(round(H(torch.stack([q, p], -1)).item(), 5))
    state = opt.state_dict()["state"][0]
    return {"log": log, "energies": energies, "q": _r(q, 5), "p": _r(p, 5), "state": sorted(state),
            "grad_avg": _r(state["grad_avg"].abs().sum(), 5)}


# ---- MAML with torch.func ---------------------------------------------------------------------------------------------------
def maml_torch_func(torch, device):
    nn, F = torch.nn, torch.nn.functional
    functional_call, grad, vmap = torch.func.functional_call, torch.func.grad, torch.func.vmap
    model = _fill(torch, nn.Sequential(nn.Linear(1, 20), nn.ReLU(), nn.Linear(20, 20), nn.ReLU(), nn.Linear(20, 1)),
                  2540).to(device)
    params = {k: v.detach() for k, v in model.named_parameters()}
    amps = torch.tensor([1.0, 2.0, 0.5, 1.5], device=device)
    phases = torch.tensor([0.0, 0.5, 1.0, 2.0], device=device)
    xs = torch.linspace(-3, 3, 10, device=device).view(1, 10, 1).repeat(4, 1, 1)
    ys = amps.view(4, 1, 1) * torch.sin(xs + phases.view(4, 1, 1))

    def loss(p, x, y):
        return F.mse_loss(functional_call(model, p, (x,)), y)

    def inner(p, x, y):
        g = grad(loss)(p, x, y)
        return {k: p[k] - 0.01 * g[k] for k in p}

    def task_loss(p, xs_, ys_, xq, yq):
        adapted = inner(p, xs_, ys_)
        return loss(adapted, xq, yq)

    meta_params = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    opt = torch.optim.Adam(meta_params.values(), lr=1e-3)
    log = []
    for it in range(3):
        opt.zero_grad()
        losses = vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(meta_params, xs[:, :5], ys[:, :5], xs[:, 5:],
                                                             ys[:, 5:])
        losses.mean().backward()
        opt.step()
        log.append(_r(losses, 5))
    # the loop version (second-order MAML with torch.autograd.grad) agrees on the first meta-gradient
    p0 = {k: v.clone().requires_grad_(True) for k, v in params.items()}
    total = 0
    for t in range(4):
        l_in = loss(p0, xs[t, :5], ys[t, :5])
        g = torch.autograd.grad(l_in, list(p0.values()), create_graph=True)
        fast = {k: v - 0.01 * gi for (k, v), gi in zip(p0.items(), g)}
        total = total + loss(fast, xs[t, 5:], ys[t, 5:])
    meta_g = torch.autograd.grad(total / 4, list(p0.values()))
    vm = grad(lambda p: vmap(task_loss, in_dims=(None, 0, 0, 0, 0))(p, xs[:, :5], ys[:, :5], xs[:, 5:],
                                                                   ys[:, 5:]).mean())(params)
    same = all(torch.allclose(a, vm[k], atol=1e-6) for a, k in zip(meta_g, params))
    return {"log": log, "same": same, "meta_norm": [round(g.norm().item(), 5) for g in meta_g],
            "keys": list(params), "requires": [v.requires_grad for v in params.values()]}


# ---- 1-D Fourier neural operator ---------------------------------------------------------------------------------------------
def fourier_neural_operator(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class SpectralConv1d(nn.Module):
        def __init__(self, cin, cout, modes):
            super().__init__()
            self.modes = modes
            scale = 1 / (cin * cout)
            self.weights = nn.Parameter(scale * torch.ones(cin, cout, modes, 2))

        def forward(self, x):
            b, _, n = x.shape
            x_ft = torch.fft.rfft(x)
            w = torch.view_as_complex(self.weights)
            out_ft = torch.zeros(b, w.shape[1], n // 2 + 1, dtype=torch.cfloat, device=x.device)
            out_ft[:, :, :self.modes] = torch.einsum("bix,iox->box", x_ft[:, :, :self.modes], w)
            return torch.fft.irfft(out_ft, n=n)

    class FNO(nn.Module):
        def __init__(self):
            super().__init__()
            self.lift = nn.Linear(2, 6)
            self.spec = nn.ModuleList(SpectralConv1d(6, 6, 5) for _ in range(2))
            self.w = nn.ModuleList(nn.Conv1d(6, 6, 1) for _ in range(2))
            self.proj = nn.Sequential(nn.Linear(6, 12), nn.GELU(approximate="tanh"), nn.Linear(12, 1))

        def forward(self, u):
            grid = torch.linspace(0, 1, u.shape[1], device=u.device).view(1, -1, 1).expand(u.shape[0], -1, 1)
            x = self.lift(torch.cat([u.unsqueeze(-1), grid], -1)).permute(0, 2, 1)
            for s, w in zip(self.spec, self.w):
                x = F.gelu(s(x) + w(x))
            return self.proj(x.permute(0, 2, 1)).squeeze(-1)

    model = _fill(torch, FNO(), 2550, scale=0.4).to(device)
    u = _randn(torch, 2551, 4, 16, device=device)
    # target: the solution operator of u_xx = -f on a periodic grid, by FFT
    k = torch.fft.rfftfreq(16, d=1 / 16, device=device)
    uh = torch.fft.rfft(u)
    target = torch.fft.irfft(torch.where(k == 0, torch.zeros_like(uh), uh / (k ** 2).clamp(min=1)), n=16)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=1e-4)
    log = []
    for _ in range(4):
        opt.zero_grad()
        pred = model(u)
        loss = torch.linalg.vector_norm(pred - target, dim=1).div(torch.linalg.vector_norm(target, dim=1)).mean()
        loss.backward()
        opt.step()
        sched.step()
        log.append([round(loss.item(), 5), round(sched.get_last_lr()[0], 7)])
    wg = model.spec[0].weights.grad
    return {"log": log, "target": _r(target[0, :6], 5), "wgrad": _r(wg[0, 0], 5), "freqs": k.tolist(),
            "complex_grad": str(torch.view_as_complex(model.spec[0].weights).dtype)}


# ---- DeepONet ----------------------------------------------------------------------------------------------------------------------
def deeponet(torch, device):
    nn = torch.nn
    branch = _mlp(torch, [8, 16, 6], 2560, device, act=nn.ReLU)
    trunk = _mlp(torch, [1, 16, 6], 2561, device, act=nn.ReLU)
    bias = nn.Parameter(torch.zeros(1, device=device))
    sensors = torch.linspace(0, 1, 8, device=device)
    coeffs = _randn(torch, 2562, 5, 2, device=device)
    funcs = coeffs[:, :1] * torch.sin(math.pi * sensors) + coeffs[:, 1:] * sensors
    y = torch.linspace(0, 1, 12, device=device).unsqueeze(-1)
    # antiderivative target G(u)(y) = int_0^y u, by the trapezoid rule on a fine grid
    fine = torch.linspace(0, 1, 101, device=device)
    ufine = coeffs[:, :1] * torch.sin(math.pi * fine) + coeffs[:, 1:] * fine
    cum = torch.cumulative_trapezoid(ufine, fine, dim=1)
    cum = torch.cat([torch.zeros(5, 1, device=device), cum], 1)
    target = cum[:, torch.round(y.squeeze(-1) * 100).long()]
    opt = torch.optim.NAdam(list(branch.parameters()) + list(trunk.parameters()) + [bias], lr=5e-3,
                            momentum_decay=4e-3)
    log = []
    for _ in range(4):
        opt.zero_grad()
        pred = branch(funcs) @ trunk(y).T + bias
        loss = torch.nn.functional.mse_loss(pred, target)
        loss.backward()
        opt.step()
        log.append(round(loss.item(), 6))
    return {"log": log, "target": _r(target[0, ::3], 5), "bias": _r(bias, 6),
            "mu_product": round(float(opt.state[bias]["mu_product"]), 6)}


PROGRAMS = [pinn_burgers, pinn_beam_fourth_order, neural_ode_adjoint, hamiltonian_nn, maml_torch_func,
            fourier_neural_operator, deeponet]
NEEDS_CPP = {}
