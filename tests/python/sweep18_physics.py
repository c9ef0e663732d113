"""Sweep 18 programs, scientific machine learning: a physics-informed network for the heat equation (PDE residuals by
torch.autograd.grad with create_graph=True), a Hamiltonian network and a Lagrangian network (torch.func.hessian and
jacrev under vmap, functional_call), a neural ODE trained through a hand-written RK4 solver, physics losses built
from torch.func (jvp, vjp, jacfwd, linearize) and the older torch.autograd.functional helpers (hvp, vhp, jacobian
with vectorize and forward-mode strategies)."""
import math

import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill


def _uniform(torch, seed, *shape, device="cpu", low=0.0, high=1.0):
    return torch.tensor(np.random.default_rng(seed).uniform(low, high, shape), dtype=torch.float32, device=device)


def _mlp(torch, sizes, act):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(a, b), act()]
    return torch.nn.Sequential(*layers[:-1])


# ---- a PINN for u_t = k u_xx on [0, 1] x [0, 0.5] with u(x, 0) = sin(pi x) and zero boundaries ----------------------
def pinn_heat_equation(torch, device):
    k = 0.1
    net = _fill(torch, _mlp(torch, [2, 16, 16, 1], torch.nn.Tanh), 1800).to(device)
    x = _uniform(torch, 1801, 32, 1, device=device).requires_grad_()
    t = _uniform(torch, 1802, 32, 1, device=device, high=0.5).requires_grad_()
    x0 = torch.linspace(0, 1, 11, device=device).unsqueeze(1)
    tb = torch.linspace(0, 0.5, 6, device=device).unsqueeze(1)

    def residual(x, t):
        u = net(torch.cat([x, t], dim=1))
        u_x, u_t = torch.autograd.grad(u, (x, t), grad_outputs=torch.ones_like(u), create_graph=True)
        u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
        return u_t - k * u_xx

    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.5)
    losses = []
    for _ in range(6):
        opt.zero_grad()
        pde = residual(x, t).pow(2).mean()
        init = (net(torch.cat([x0, torch.zeros_like(x0)], 1)) - torch.sin(math.pi * x0)).pow(2).mean()
        bnd = net(torch.cat([torch.zeros_like(tb), tb], 1)).pow(2).mean() \
            + net(torch.cat([torch.ones_like(tb), tb], 1)).pow(2).mean()
        loss = pde + 10 * init + bnd
        loss.backward()
        opt.step()
        losses.append([loss.item(), pde.item()])
    r = residual(x, t)
    unused = torch.zeros(3, requires_grad=True, device=device)
    y = (x * 2).sum()
    g_unused = torch.autograd.grad(y, [x, unused], retain_graph=True, allow_unused=True)
    g_mat = torch.autograd.grad(y, [x, unused], retain_graph=True, allow_unused=True, materialize_grads=True)

    def not_used():
        return torch.autograd.grad(y, [x, unused], retain_graph=True)

    def twice():
        z = (x ** 2).sum()
        torch.autograd.grad(z, x)
        return torch.autograd.grad(z, x)

    return {"losses": losses, "residual": plain(torch, r[:5].squeeze(1)), "grad_fn": r.grad_fn is not None,
            "unused": [g_unused[1] is None, plain(torch, g_mat[1])],
            "errors": cases(torch, {"not_used": not_used, "twice": twice,
                                    "no_grad_input": lambda: torch.autograd.grad(y, torch.ones(2))})}


# ---- a Hamiltonian neural network for the harmonic oscillator, integrated by leapfrog with its learned H ------------
def hamiltonian_network(torch, device):
    net = _fill(torch, _mlp(torch, [2, 24, 24, 1], torch.nn.Softplus), 1810).to(device)
    qp = _uniform(torch, 1811, 64, 2, device=device, low=-1.5, high=1.5)
    true_dq = qp[:, 1:2]        # dq/dt = dH/dp with H = (q^2 + p^2) / 2
    true_dp = -qp[:, 0:1]       # dp/dt = -dH/dq

    def vector_field(z):
        z = z if z.requires_grad else z.requires_grad_()
        h = net(z).sum()
        dh = torch.autograd.grad(h, z, create_graph=True)[0]
        return torch.cat([dh[:, 1:2], -dh[:, 0:1]], dim=1)

    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    losses = []
    for _ in range(8):
        opt.zero_grad()
        field = vector_field(qp.clone())
        loss = torch.nn.functional.mse_loss(field, torch.cat([true_dq, true_dp], 1))
        loss.backward()
        opt.step()
        losses.append(loss.item())

    def leapfrog(z, dt, steps):
        q, p = z[:, :1], z[:, 1:]
        energies = []
        for _ in range(steps):
            zz = torch.cat([q, p], 1).requires_grad_()
            dh = torch.autograd.grad(net(zz).sum(), zz)[0]
            p = p - 0.5 * dt * dh[:, :1]
            zz = torch.cat([q, p], 1).requires_grad_()
            dh = torch.autograd.grad(net(zz).sum(), zz)[0]
            q = q + dt * dh[:, 1:]
            zz = torch.cat([q, p], 1).requires_grad_()
            dh = torch.autograd.grad(net(zz).sum(), zz)[0]
            p = p - 0.5 * dt * dh[:, :1]
            with torch.no_grad():
                energies.append(net(torch.cat([q, p], 1)).squeeze(1))
        return torch.cat([q, p], 1).detach(), torch.stack(energies)

    start = torch.tensor([[1.0, 0.0], [0.0, 0.5]], device=device)
    end, energies = leapfrog(start, 0.1, 10)
    drift = (energies - energies[0]).abs().max(dim=0)
    return {"losses": losses, "end": plain(torch, end), "drift": plain(torch, drift.values),
            "argmax": drift.indices.tolist(), "requires_grad": [end.requires_grad, energies.requires_grad]}


# ---- a Lagrangian neural network: accelerations from the Hessian of L in q_dot (torch.func under vmap) ------------
def lagrangian_network(torch, device):
    functional_call, hessian, jacrev, vmap = (torch.func.functional_call, torch.func.hessian, torch.func.jacrev,
                                              torch.func.vmap)
    net = _fill(torch, _mlp(torch, [2, 16, 1], torch.nn.Softplus), 1820, 0.6).to(device)
    params = {k: v.detach() for k, v in net.named_parameters()}

    def lagrangian(params, q, qd):
        return functional_call(net, params, (torch.stack([q, qd]).unsqueeze(0),)).squeeze()

    def acceleration(params, q, qd):
        d2l_dqd2 = hessian(lagrangian, argnums=2)(params, q, qd)
        dl_dq = jacrev(lagrangian, argnums=1)(params, q, qd)
        d2l_dqd_dq = jacrev(jacrev(lagrangian, argnums=2), argnums=1)(params, q, qd)
        return (dl_dq - d2l_dqd_dq * qd) / d2l_dqd2

    q = torch.linspace(-1, 1, 7, device=device)
    qd = torch.linspace(0.5, -0.5, 7, device=device)
    acc = vmap(acceleration, in_dims=(None, 0, 0))(params, q, qd)
    hess = vmap(hessian(lagrangian, argnums=(1, 2)), in_dims=(None, 0, 0))(params, q, qd)
    # the same through autograd, one sample at a time
    loop = []
    for i in range(3):
        qi = q[i].clone().requires_grad_()
        qdi = qd[i].clone().requires_grad_()
        lag = net(torch.stack([qi, qdi]).unsqueeze(0)).squeeze()
        g_q, g_qd = torch.autograd.grad(lag, (qi, qdi), create_graph=True)
        h_qdqd, h_qdq = torch.autograd.grad(g_qd, (qdi, qi))
        loop.append(((g_q - h_qdq * qdi) / h_qdqd).item())
    # train the network's parameters through the vmapped accelerations (a spring: q_dd = -q)
    pnet = {k: v.clone().requires_grad_() for k, v in params.items()}
    opt = torch.optim.SGD(list(pnet.values()), lr=0.05)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = (vmap(acceleration, in_dims=(None, 0, 0))(pnet, q, qd) + q).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"acc": plain(torch, acc), "loop": loop, "hess": [plain(torch, h) for row in hess for h in row],
            "losses": losses, "grad_keys": sorted(k for k, v in pnet.items() if v.grad is not None)}


# ---- a neural ODE trained through a hand-written RK4 solver, with the time grid from linspace ------------------------
def neural_ode_rk4(torch, device):
    nn = torch.nn

    class ODEFunc(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))

        def forward(self, t, y):
            tt = t.expand(y.shape[0], 1)
            return self.net(torch.cat([y, tt], dim=1))

    def rk4(func, y0, ts):
        ys = [y0]
        y = y0
        for t0, t1 in zip(ts[:-1], ts[1:]):
            h = t1 - t0
            k1 = func(t0, y)
            k2 = func(t0 + h / 2, y + h / 2 * k1)
            k3 = func(t0 + h / 2, y + h / 2 * k2)
            k4 = func(t1, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            ys.append(y)
        return torch.stack(ys)

    func = _fill(torch, ODEFunc(), 1830, 0.4).to(device)
    ts = torch.linspace(0.0, 1.0, 9, device=device)
    theta = ts.unsqueeze(1) * 2.0
    target = torch.cat([torch.cos(theta), torch.sin(theta)], 1) * torch.exp(-0.3 * ts).unsqueeze(1)
    y0 = target[:1].clone()
    opt = torch.optim.RMSprop(func.parameters(), lr=5e-3, alpha=0.9)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        traj = rk4(func, y0, ts)
        loss = (traj.squeeze(1) - target).abs().mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # sensitivity of the end point to y0 by autograd through the solver, against central differences in float64
    func64 = func.double()
    y0d = y0.double().clone().requires_grad_()
    ts64 = ts.double()
    end = rk4(func64, y0d, ts64)[-1]
    jac = torch.stack([torch.autograd.grad(end[0, i], y0d, retain_graph=True)[0][0] for i in range(2)])
    eps = 1e-6
    fd = []
    with torch.no_grad():
        for j in range(2):
            e = torch.zeros_like(y0d)
            e[0, j] = eps
            fd.append((rk4(func64, y0d + e, ts64)[-1] - rk4(func64, y0d - e, ts64)[-1])[0] / (2 * eps))
    fd = torch.stack(fd, dim=1)
    return {"losses": losses, "traj_shape": list(traj.shape), "jac": plain(torch, jac),
            "fd_close": bool(torch.allclose(jac, fd, atol=1e-6)), "dtype": str(end.dtype)}


# ---- physics losses from torch.func: divergence by jacrev, directional derivatives by jvp, Laplacians by hessian -----
def func_physics_losses(torch, device):
    fn = torch.func
    grad, hessian, jacfwd, jacrev, jvp, linearize, vjp, vmap = (fn.grad, fn.hessian, fn.jacfwd, fn.jacrev, fn.jvp,
                                                                fn.linearize, fn.vjp, fn.vmap)

    def velocity(p):       # a rotational field plus a source term
        x, y = p[:1], p[1:]
        return torch.cat([-y + 0.1 * x ** 2, x + 0.2 * torch.sin(y)])

    def potential(p):
        return torch.exp(-p.pow(2).sum()) + 0.5 * p[0] * p[1]

    pts = _uniform(torch, 1840, 6, 2, device=device, low=-1, high=1)
    jac = vmap(jacrev(velocity))(pts)
    div = jac.diagonal(dim1=-2, dim2=-1).sum(-1)
    curl = jac[:, 1, 0] - jac[:, 0, 1]
    lap = vmap(hessian(potential))(pts).diagonal(dim1=-2, dim2=-1).sum(-1)
    direction = torch.tensor([0.6, 0.8], device=device)
    # PyTorch's forward mode gives a float64 tangent for a 0-d float32 times a Python float (docs/compat.md, sweep 18)
    dir_deriv = vmap(lambda p: jvp(potential, (p,), (direction,))[1])(pts).float()
    grads = vmap(grad(potential))(pts)
    out, vjp_fn = vjp(velocity, pts[0])
    (cot,) = vjp_fn(torch.ones_like(out))
    val, jvp_fn = linearize(velocity, pts[1])
    lin = jvp_fn(direction)
    fwd = jacfwd(velocity)(pts[2])
    # a loss penalising divergence, minimised over a learnable field's parameters
    w = torch.tensor([[0.3, -0.2], [0.5, 0.1]], device=device, requires_grad=True)

    def learned(p):
        return torch.tanh(w @ p)

    for _ in range(3):
        d = vmap(jacrev(learned))(pts).diagonal(dim1=-2, dim2=-1).sum(-1)
        loss = d.pow(2).mean()
        (g,) = torch.autograd.grad(loss, w)
        with torch.no_grad():
            w -= 0.5 * g
    return {"div": plain(torch, div), "curl": plain(torch, curl), "lap": plain(torch, lap),
            "dir": plain(torch, dir_deriv), "dir_check": plain(torch, grads @ direction),
            "vjp": plain(torch, cot), "lin": [plain(torch, val), plain(torch, lin)], "fwd": plain(torch, fwd),
            "w": plain(torch, w), "loss": loss.item()}


# ---- torch.autograd.functional: jacobian (vectorize, forward-mode), hessian, hvp, vhp, jvp, vjp on an energy -------
def autograd_functional_energy(torch, device):
    F = torch.autograd.functional
    k = torch.tensor([[2.0, -1.0, 0.0], [-1.0, 2.0, -1.0], [0.0, -1.0, 2.0]], device=device)

    def energy(x):      # a chain of springs with a quartic term
        return 0.5 * x @ k @ x + 0.25 * x.pow(4).sum()

    def force(x):
        return -(k @ x + x.pow(3))

    x = torch.tensor([0.3, -0.2, 0.5], device=device)
    v = torch.tensor([1.0, 0.5, -1.0], device=device)
    jac = F.jacobian(force, x)
    jac_vec = F.jacobian(force, x, vectorize=True)
    jac_fwd = F.jacobian(force, x, vectorize=True, strategy="forward-mode")
    hess = F.hessian(energy, x)
    e_hvp, hv = F.hvp(energy, x, v)
    e_vhp, vh = F.vhp(energy, x, v)
    f_jvp, jv = F.jvp(force, x, v)
    f_vjp, vj = F.vjp(force, x, v)
    jac2 = F.jacobian(lambda a, b: a * b.sum(), (x, v))
    hess_cg = F.hessian(energy, x, create_graph=True)
    return {"jac": plain(torch, jac), "same": [bool(torch.equal(jac, jac_vec)), bool(torch.allclose(jac, jac_fwd))],
            "hess": plain(torch, hess), "hvp": [e_hvp.item(), plain(torch, hv)],
            "vhp": [e_vhp.item(), plain(torch, vh)],
            "jvp": [plain(torch, f_jvp), plain(torch, jv)], "vjp": plain(torch, vj),
            "jac2": [plain(torch, j) for j in jac2], "cg": [hess_cg.requires_grad, hess.requires_grad],
            "errors": cases(torch, {
                "fwd_no_vec": lambda: F.jacobian(force, x, strategy="forward-mode"),
                "bad_strategy": lambda: F.jacobian(force, x, strategy="sideways"),
                "hess_not_scalar": lambda: F.hessian(force, x),
                "vjp_bad_v": lambda: F.vjp(force, x, torch.ones(2, device=device)),
            })}


PROGRAMS = [pinn_heat_equation, hamiltonian_network, lagrangian_network, neural_ode_rk4, func_physics_losses,
            autograd_functional_energy]
NEEDS_CPP = {}


# ---- an ensemble of PINNs by stack_module_state + vmap(functional_call), grad_and_value with aux, chunked jacrev -----
def pinn_ensemble_func(torch, device):
    fn = torch.func
    nn = torch.nn
    models = [_fill(torch, _mlp(torch, [1, 12, 1], nn.Tanh), 1850 + i).to(device) for i in range(3)]
    params, buffers = fn.stack_module_state(models)
    base = _mlp(torch, [1, 12, 1], nn.Tanh).to("meta")
    xs = torch.linspace(0, 1, 9, device=device).unsqueeze(1)

    def u(p, b, x):          # one model at one point: a scalar
        return fn.functional_call(base, (p, b), (x.view(1, 1),)).squeeze()

    def residual(p, b, x):   # u'' + pi^2 u = 0 (solutions sin(pi x))
        d2 = fn.grad(lambda p, b, x: fn.grad(u, argnums=2)(p, b, x).sum(), argnums=2)(p, b, x)
        return d2.squeeze() + (torch.pi ** 2) * u(p, b, x)

    per_point = fn.vmap(residual, in_dims=(None, None, 0))
    ensemble = fn.vmap(per_point, in_dims=(0, 0, None))
    res = ensemble(params, buffers, xs)

    def loss_fn(p, b):
        r = per_point(p, b, xs)
        bc = u(p, b, torch.zeros(1, device=device)) ** 2 + (u(p, b, torch.ones(1, device=device)) - 0.0) ** 2
        slope = fn.grad(u, argnums=2)(p, b, torch.zeros(1, device=device)).squeeze()
        return r.pow(2).mean() + bc + (slope - torch.pi) ** 2, {"res": r.pow(2).mean(), "bc": bc}

    grads, (loss, aux) = fn.vmap(fn.grad_and_value(loss_fn, has_aux=True), in_dims=(0, 0))(params, buffers)
    jac_chunked = fn.jacrev(lambda x: torch.tanh(x @ x.T).sum(0), chunk_size=2)(xs[:4, 0:1].T.repeat(3, 1))
    jac_full = fn.jacrev(lambda x: torch.tanh(x @ x.T).sum(0))(xs[:4, 0:1].T.repeat(3, 1))
    stacked_out = fn.vmap(lambda w, x: w * x, in_dims=(0, None), out_dims=1)(torch.arange(3.0, device=device),
                                                                             xs[:4, 0])
    bn_models = [_fill(torch, nn.Sequential(nn.Linear(1, 4), nn.BatchNorm1d(4)), 1855 + i).to(device)
                 for i in range(2)]
    bn_params, bn_buffers = fn.stack_module_state(bn_models)
    bn_base = nn.Sequential(nn.Linear(1, 4), nn.BatchNorm1d(4)).to(device)
    bn_out = fn.vmap(lambda p, b, x: fn.functional_call(bn_base, (p, b), (x,)), in_dims=(0, 0, None))(
        bn_params, bn_buffers, xs)
    dict_in = fn.vmap(lambda d: d["a"] + d["b"].sum(), in_dims=({"a": 0, "b": None},))(
        {"a": torch.arange(4.0, device=device), "b": torch.ones(2, device=device)})
    return {"shapes": {k: list(v.shape) for k, v in params.items()}, "res": plain(torch, res[:, ::3]),
            "loss": plain(torch, loss), "aux": {k: plain(torch, v) for k, v in aux.items()},
            "grad_norms": {k: plain(torch, v.flatten(1).norm(dim=1)) for k, v in grads.items()},
            "chunked": bool(torch.allclose(jac_chunked, jac_full)), "jac_shape": list(jac_full.shape),
            "out_dims": list(stacked_out.shape), "dict_in": plain(torch, dict_in),
            "bn_ensemble": [plain(torch, bn_out[:, :2]), plain(torch, bn_buffers["1.running_mean"]),
                            plain(torch, bn_buffers["1.num_batches_tracked"])],
            "errors": cases(torch, {
                "random_error": lambda: fn.vmap(lambda x: torch.rand(2, device=device) + x)(xs),
                "in_dims_len": lambda: fn.vmap(lambda a, b: a + b, in_dims=(0,))(xs, xs),
                "stack_mixed": lambda: fn.stack_module_state([models[0], nn.Linear(1, 2)]),
                "aux_not_tuple": lambda: fn.grad(lambda x: x.sum(), has_aux=True)(xs),
                "batch_norm": lambda: fn.vmap(nn.BatchNorm1d(1).to(device))(xs.view(3, 3, 1)),
            })}


# ---- forward-mode AD: dual numbers for the time derivative of a network u(x, t), a Function's jvp under dual_level ---
def forward_mode_physics(torch, device):
    fwAD = torch.autograd.forward_ad
    net = _fill(torch, _mlp(torch, [2, 10, 1], torch.nn.Tanh), 1860).to(device).double()
    xt = torch.tensor(np.random.default_rng(1861).uniform(0, 1, (5, 2)), dtype=torch.float64, device=device)
    tangent = torch.zeros_like(xt)
    tangent[:, 1] = 1.0
    with fwAD.dual_level():
        dual = fwAD.make_dual(xt, tangent)
        out = net(dual)
        primal, u_t = fwAD.unpack_dual(out)
        unpacked = fwAD.unpack_dual(dual)
    xt_r = xt.clone().requires_grad_()
    (g,) = torch.autograd.grad(net(xt_r).sum(), xt_r)
    x = torch.linspace(-3, 3, 7, dtype=torch.float64, device=device)
    with fwAD.dual_level():
        yd = _soft_clamp(torch).apply(fwAD.make_dual(x, torch.ones_like(x)), 2.0)
        jvp_t = fwAD.unpack_dual(yd).tangent

    def bad_tangent():
        with fwAD.dual_level():
            return fwAD.make_dual(x, torch.ones(3, dtype=torch.float64, device=device))

    return {"primal": plain(torch, primal.squeeze(1)), "u_t": plain(torch, u_t.squeeze(1)),
            "agree": bool(torch.allclose(u_t.squeeze(1), g[:, 1])), "unpacked_names": list(unpacked._fields),
            "jvp": plain(torch, jvp_t), "errors": cases(torch, {"bad_tangent": bad_tangent})}


def _soft_clamp(torch):
    class SoftClamp(torch.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, limit):
            return limit * torch.tanh(x / limit)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, limit = inputs
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            ctx.limit = limit

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * (1 - torch.tanh(x / ctx.limit) ** 2), None

        @staticmethod
        def jvp(ctx, x_t, limit_t):
            (x,) = ctx.saved_tensors
            return x_t * (1 - torch.tanh(x / ctx.limit) ** 2)

    return SoftClamp


# ---- a custom Function (setup_context, generate_vmap_rule) under vmap, jacrev and gradcheck -------------------------
def custom_function_transforms(torch, device):
    SoftClamp = _soft_clamp(torch)
    x = torch.linspace(-3, 3, 7, dtype=torch.float64, device=device).requires_grad_()
    y = SoftClamp.apply(x, 2.0)
    (gx,) = torch.autograd.grad(y.sum(), x)
    (ggx,) = torch.autograd.grad(torch.autograd.grad(SoftClamp.apply(x, 2.0).sum(), x, create_graph=True)[0].sum(), x,
                                 allow_unused=True,
                                 materialize_grads=True)
    vm = torch.func.vmap(lambda v: SoftClamp.apply(v, 2.0))(x.detach().view(7, 1))
    jr = torch.func.jacrev(lambda v: SoftClamp.apply(v, 2.0))(x.detach()[:3])
    gr = torch.func.vmap(torch.func.grad(lambda v: SoftClamp.apply(v, 2.0)))(x.detach())
    ok = torch.autograd.gradcheck(lambda v: SoftClamp.apply(v, 2.0), (x[:4],))
    ok2 = torch.autograd.gradgradcheck(lambda v: torch.sin(v) * v, (x[:4],))

    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v ** 3

        @staticmethod
        def backward(ctx, g):
            return g * 2

    def wrong_grad():
        return torch.autograd.gradcheck(Wrong.apply, (x[:2],), raise_exception=False)

    return {"y": plain(torch, y), "gx": plain(torch, gx), "ggx": plain(torch, ggx), "vm": plain(torch, vm.squeeze(1)),
            "jr": plain(torch, jr), "gr": plain(torch, gr), "checks": [ok, ok2, wrong_grad()],
            "errors": cases(torch, {
                "no_vmap_rule": lambda: torch.func.vmap(lambda v: _no_rule(torch).apply(v))(x.detach().view(7, 1)),
                "gradcheck_float32": lambda: torch.autograd.gradcheck(torch.sin,
                                                                      (x.detach().float().requires_grad_(),)),
                "gradcheck_wrong": lambda: torch.autograd.gradcheck(Wrong.apply, (x[:2],)),
            })}


def _no_rule(torch):
    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            return v * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Twice


PROGRAMS += [pinn_ensemble_func, custom_function_transforms, forward_mode_physics]


# ---- a Fourier neural operator layer: complex weights, rfft2/irfft2 with s=, einsum on complex tensors, spectral
# ---- derivatives by rfftfreq, trained with Adam on complex parameters ------------------------------------------------
def fourier_neural_operator(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1870)

    class SpectralConv2d(nn.Module):
        def __init__(self, cin, cout, m1, m2):
            super().__init__()
            self.m1, self.m2 = m1, m2
            scale = 1 / (cin * cout)
            re = torch.tensor(rng.uniform(0, 1, (2, cin, cout, m1, m2)), dtype=torch.float32)
            im = torch.tensor(rng.uniform(0, 1, (2, cin, cout, m1, m2)), dtype=torch.float32)
            self.weights = nn.Parameter(scale * torch.complex(re, im))

        def forward(self, x):
            b, _, h, w = x.shape
            x_ft = torch.fft.rfft2(x)
            out_ft = torch.zeros(b, self.weights.shape[2], h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
            out_ft[:, :, :self.m1, :self.m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :self.m1, :self.m2],
                                                            self.weights[0])
            out_ft[:, :, -self.m1:, :self.m2] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -self.m1:, :self.m2],
                                                             self.weights[1])
            return torch.fft.irfft2(out_ft, s=(h, w))

    class FNO(nn.Module):
        def __init__(self):
            super().__init__()
            self.lift = nn.Conv2d(1, 4, 1)
            self.spec = SpectralConv2d(4, 4, 3, 3)
            self.w = nn.Conv2d(4, 4, 1)
            self.proj = nn.Conv2d(4, 1, 1)

        def forward(self, x):
            h = self.lift(x)
            h = nn.functional.gelu(self.spec(h) + self.w(h))
            return self.proj(h)

    model = FNO()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if not p.is_complex():
                p.copy_(torch.tensor(rng.uniform(-0.4, 0.4, tuple(p.shape)), dtype=torch.float32))
    model = model.to(device)
    n = 16
    xs = torch.linspace(0, 2 * math.pi, n + 1, device=device)[:-1]
    X, Y = torch.meshgrid(xs, xs, indexing="ij")
    u = torch.stack([torch.sin(k * X) * torch.cos(Y) for k in (1, 2)]).unsqueeze(1)
    # target: the Laplacian by spectral differentiation
    kx = torch.fft.fftfreq(n, d=1.0 / n, device=device)
    ky = torch.fft.rfftfreq(n, d=1.0 / n, device=device)
    lap = torch.fft.irfft2(-(kx[:, None] ** 2 + ky[None, :] ** 2) * torch.fft.rfft2(u), s=(n, n))
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        loss = (model(u) - lap).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    w = model.spec.weights
    state = opt.state[w]
    return {"losses": losses, "lap_err": (lap + torch.stack([(1 + k ** 2) * torch.sin(k * X) * torch.cos(Y)
                                                             for k in (1, 2)]).unsqueeze(1)).abs().max().item(),
            "grad_dtype": str(w.grad.dtype), "state_dtypes": [str(state["exp_avg"].dtype),
                                                              str(state["exp_avg_sq"].dtype)],
            "w": plain(torch, torch.view_as_real(w.detach()[0, 0, 0, 0])), "freqs": [kx.tolist(), ky.tolist()],
            "sq_real": bool((state["exp_avg_sq"].imag == 0).all()) if state["exp_avg_sq"].is_complex() else "real"}


PROGRAMS += [fourier_neural_operator]
