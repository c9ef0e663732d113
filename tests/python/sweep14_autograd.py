"""Sweep 14 programs, autograd as tutorials and research code use it: "Learning PyTorch with Examples" from the
manual-gradient polynomial to a custom LegendrePolynomial3 Function and a dynamic net, a physics-informed net for
the heat equation with second derivatives by autograd.grad(create_graph=True), a neural ODE trained by the adjoint
method with a hand-written RK4, custom Functions with needs_input_grad / mark_non_differentiable /
once_differentiable / set_materialize_grads checked by gradcheck and gradgradcheck, a deep-equilibrium layer with an
implicit backward through a tensor hook, iterative pruning with a custom BasePruningMethod, and orthogonal
parametrizations by every orthogonal_map.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep14.py). Data come from NumPy so both libraries start from the same numbers."""
import importlib
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy as _init


# ---- "Learning PyTorch with Examples": manual gradients, autograd, a custom Function, nn, optim, a dynamic net ---
def learning_pytorch_with_examples(torch, device):
    dtype = torch.float
    x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
    y = torch.sin(x)
    coef = [torch.tensor(v, device=device, dtype=dtype) for v in (0.1, -0.2, 0.3, -0.1)]
    a, b, c, d = coef
    lr = 1e-6
    for _ in range(200):  # tensors with manual gradients
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        grad_y_pred = 2.0 * (y_pred - y)
        a = a - lr * grad_y_pred.sum()
        b = b - lr * (grad_y_pred * x).sum()
        c = c - lr * (grad_y_pred * x ** 2).sum()
        d = d - lr * (grad_y_pred * x ** 3).sum()
    manual = [a.item(), b.item(), c.item(), d.item()]

    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input ** 3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input ** 2 - 1)

    a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)
    P3 = LegendrePolynomial3.apply
    for _ in range(200):
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= 5e-6 * p.grad
                p.grad = None
    legendre = [a.item(), b.item(), c.item(), d.item(), loss.item()]
    p = torch.tensor([1, 2, 3], device=device)
    xx = x.unsqueeze(-1).pow(p)
    model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).to(device)
    _init(torch, model, 1420)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for _ in range(100):
        loss = loss_fn(model(xx), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    linear = model[0]

    class DynamicNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b, self.c, self.d, self.e = (torch.nn.Parameter(torch.tensor(v)) for v in
                                                      (0.1, 0.2, -0.1, 0.05, 0.01))

        def forward(self, x, depth):
            y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
            for exp in range(4, depth):
                y = y + self.e * x ** exp
            return y

        def string(self):
            return f"y = {self.a.item():.4f} + {self.b.item():.4f} x + ... + {self.e.item():.4f} x^5 ?"

    dyn = DynamicNet().to(device)
    opt = torch.optim.SGD(dyn.parameters(), lr=1e-8, momentum=0.9)
    for t in range(60):
        loss = (dyn(x, 4 + t % 3) - y).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"manual": manual, "legendre": legendre, "p_dtype": str(xx.dtype), "xx_shape": list(xx.shape),
            "linear": [linear.bias.item()] + linear.weight.flatten().tolist(), "dyn": dyn.string(),
            "dyn_loss": loss.item()}


# ---- a physics-informed net for the heat equation (u_t = k u_xx) with create_graph second derivatives -------------
def pinn_heat_equation(torch, device):
    nn = torch.nn
    net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
    net = net.double()
    _init(torch, net, 1421)
    rng = np.random.default_rng(1422)
    pts = torch.tensor(rng.uniform(0, 1, (64, 2)), device=device)
    x0 = torch.tensor(np.linspace(0, 1, 16), device=device)
    kappa = 0.1

    def residual(xt):
        xt = xt.clone().requires_grad_(True)
        u = net(xt)
        grads = torch.autograd.grad(u, xt, grad_outputs=torch.ones_like(u), create_graph=True)[0]
        u_x, u_t = grads[:, 0], grads[:, 1]
        u_xx = torch.autograd.grad(u_x.sum(), xt, create_graph=True)[0][:, 0]
        return u_t - kappa * u_xx

    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    history = []
    for step in range(25):
        opt.zero_grad()
        ic = net(torch.stack([x0, torch.zeros_like(x0)], -1)).squeeze(-1) - torch.sin(math.pi * x0)
        t_b = x0
        bc = torch.cat([net(torch.stack([torch.zeros_like(t_b), t_b], -1)),
                        net(torch.stack([torch.ones_like(t_b), t_b], -1))])
        loss = residual(pts).pow(2).mean() + ic.pow(2).mean() + bc.pow(2).mean()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            history.append(loss.item())
    probe = torch.tensor([[0.5, 0.2]], dtype=torch.float64, device=device, requires_grad=True)
    u = net(probe)
    (du,) = torch.autograd.grad(u.sum(), probe, create_graph=True)
    (d2u,) = torch.autograd.grad(du[0, 0], probe)
    batched = torch.autograd.grad(net(pts[:3]).squeeze(-1), net[0].weight,
                                  grad_outputs=torch.eye(3, dtype=torch.float64, device=device),
                                  is_grads_batched=True)[0]
    return {"history": history, "u": u.item(), "du": du.flatten().tolist(), "d2u": d2u.flatten().tolist(),
            "batched": [list(batched.shape), batched.sum().item()]}


# ---- a neural ODE trained by the adjoint method (augmented dynamics integrated backwards, hand-written RK4) ------
def neural_ode_adjoint(torch, device):
    nn = torch.nn
    func = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2)).to(device).double()
    _init(torch, func, 1423)
    params = list(func.parameters())

    def rk4(f, y, t0, t1, steps):
        h = (t1 - t0) / steps
        for _ in range(steps):
            k1 = f(y)
            k2 = f([a + 0.5 * h * b for a, b in zip(y, k1)])
            k3 = f([a + 0.5 * h * b for a, b in zip(y, k2)])
            k4 = f([a + h * b for a, b in zip(y, k3)])
            y = [a + h / 6 * (b1 + 2 * b2 + 2 * b3 + b4) for a, b1, b2, b3, b4 in zip(y, k1, k2, k3, k4)]
        return y

    y0 = torch.tensor([[1.0, 0.0], [0.5, 0.5]], dtype=torch.float64, device=device)
    target = torch.tensor([[0.0, 1.0], [-0.5, 0.5]], dtype=torch.float64, device=device)
    with torch.no_grad():
        (y1,) = rk4(lambda s: [func(s[0])], [y0], 0.0, 1.0, 20)
    y1 = y1.requires_grad_()
    loss = (y1 - target).pow(2).sum()
    (a1,) = torch.autograd.grad(loss, y1)

    def aug(state):
        y, a = state[0], state[1]
        with torch.enable_grad():
            y = y.detach().requires_grad_()
            f = func(y)
            vjps = torch.autograd.grad(f, [y] + params, grad_outputs=a, allow_unused=True)
        return [-f, -vjps[0]] + [-g for g in vjps[1:]]  # integrated backwards in time

    state = [y1.detach(), a1] + [torch.zeros_like(p) for p in params]
    with torch.no_grad():
        out = rk4(aug, state, 0.0, 1.0, 20)
    y0_back, a0, adj_grads = out[0], out[1], out[2:]
    # the same gradient by backprop through the solver
    y0r = y0.clone().requires_grad_()
    (y1_direct,) = rk4(lambda s: [func(s[0])], [y0r], 0.0, 1.0, 20)
    (y1_direct - target).pow(2).sum().backward()
    close = [torch.allclose(g, p.grad, rtol=1e-5, atol=1e-7) for g, p in zip(adj_grads, params)]
    return {"loss": loss.item(), "y0_back": y0_back.flatten().tolist(), "a0": a0.flatten().tolist(),
            "close": close, "dL_dy0": torch.allclose(-(-a0), y0r.grad, rtol=1e-5), "grad0": adj_grads[0].sum().item()}


# ---- custom Functions: needs_input_grad, mark_non_differentiable, once_differentiable, gradcheck/gradgradcheck -----
def custom_function_checks(torch, device):
    once_differentiable = torch.autograd.function.once_differentiable  # (an import would name PyTorch itself)

    class ScaledSortWithIndex(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            values, idx = torch.sort(x, dim=-1)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx, scale)
            return values * scale, idx

        @staticmethod
        def backward(ctx, grad_values, grad_idx):
            idx, scale = ctx.saved_tensors
            calls.append([ctx.needs_input_grad[0], ctx.needs_input_grad[1], grad_idx is None])
            gx = gs = None
            if ctx.needs_input_grad[0]:
                gx = torch.zeros_like(grad_values).scatter(-1, idx, grad_values * scale)
            if ctx.needs_input_grad[1]:
                gs = (grad_values * torch.gather(ctx.saved_x, -1, idx)).sum().reshape(scale.shape)
            return gx, gs

    class ScaledSort(ScaledSortWithIndex):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.saved_x = x.detach()
            return ScaledSortWithIndex.forward(ctx, x, scale)

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2  # differentiable: second derivatives work

    class ClampGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.clone(), x.clone()

        @staticmethod
        @once_differentiable
        def backward(ctx, g1, g2):
            seen.append([g1 is None, g2 is None])
            total = torch.zeros_like(g1 if g1 is not None else g2)
            for g in (g1, g2):
                if g is not None:
                    total = total + g.clamp(-1, 1)
            return total

    calls, seen = [], []
    x = torch.tensor([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]], dtype=torch.float64, device=device, requires_grad=True)
    s = torch.tensor(2.0, dtype=torch.float64, device=device, requires_grad=True)
    vals, idx = ScaledSort.apply(x, s)
    (vals * torch.arange(3, device=device)).sum().backward()
    out = {"grad_x": x.grad.tolist(), "grad_s": s.grad.item(), "idx_requires": idx.requires_grad,
           "idx_dtype": str(idx.dtype)}
    x.grad = None
    vals, _ = ScaledSort.apply(x, s.detach())
    vals.sum().backward()
    out["calls"] = list(calls)
    xs = torch.tensor([0.5, -0.3, 1.1], dtype=torch.float64, device=device, requires_grad=True)
    out["gradcheck"] = torch.autograd.gradcheck(Cube.apply, (xs,))
    out["gradgradcheck"] = torch.autograd.gradgradcheck(Cube.apply, (xs,))
    (g,) = torch.autograd.grad(Cube.apply(xs).sum(), xs, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), xs)
    out["gg"] = gg.tolist()
    a, b = ClampGrad.apply(xs)
    (a * 5).sum().backward()
    out["clamped"] = xs.grad.tolist()
    out["seen"] = seen
    y1, _ = ClampGrad.apply(xs)
    (g2,) = torch.autograd.grad((y1 * 3).sum(), xs, create_graph=True)
    try:
        g2.sum().backward()
        out["once"] = None
    except RuntimeError as exc:
        out["once"] = str(exc)
    out["bad_check"] = None
    try:
        out["bad_check"] = torch.autograd.gradcheck(lambda t: ScaledSort.apply(t, torch.tensor(2.0, dtype=torch.float64,
                                                                            device=device))[0] * 1.01, (xs,),
                                 raise_exception=False)
    except Exception as exc:
        out["bad_check"] = type(exc).__name__
    return out


# ---- a deep-equilibrium layer: fixed point forward, implicit backward by a hook solving the adjoint equation -----
def deq_implicit_layer(torch, device):
    nn = torch.nn

    class DEQ(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.lin = nn.Linear(dim, dim, bias=False)
            self.inj = nn.Linear(dim, dim)

        def f(self, z, x):
            return torch.tanh(self.lin(z) + self.inj(x))

        def forward(self, x):
            with torch.no_grad():
                z = torch.zeros_like(x)
                for it in range(100):
                    z_next = self.f(z, x)
                    if (z_next - z).norm() < 1e-10:
                        break
                    z = z_next
            self.iters = it
            z = self.f(z.requires_grad_(), x)  # one step attached to the graph
            z0 = z.clone().detach().requires_grad_()
            f0 = self.f(z0, x)

            def backward_hook(grad):
                g = grad
                for _ in range(100):
                    g_next = torch.autograd.grad(f0, z0, g, retain_graph=True)[0] + grad
                    if (g_next - g).norm() < 1e-10:
                        break
                    g = g_next
                return g

            if z.requires_grad:
                z.register_hook(backward_hook)
            return z

    torch.manual_seed(0)
    deq = DEQ(4).to(device).double()
    _init(torch, deq, 1424)
    with torch.no_grad():
        deq.lin.weight.mul_(0.5)
    x = torch.tensor(np.random.default_rng(1425).standard_normal((3, 4)), device=device)
    z = deq(x)
    loss = z.pow(2).sum()
    loss.backward()
    implicit = deq.lin.weight.grad.clone()
    # unrolled reference: backprop through many iterations
    deq.zero_grad()
    zu = torch.zeros_like(x)
    for _ in range(80):
        zu = deq.f(zu, x)
    zu.pow(2).sum().backward()
    fixed = torch.allclose(z, deq.f(z, x), atol=1e-8)
    return {"iters_bounded": deq.iters < 100, "fixed": fixed, "loss": loss.item(),
            "implicit_vs_unrolled": torch.allclose(implicit, deq.lin.weight.grad, rtol=1e-6, atol=1e-9),
            "grad": implicit.flatten().tolist()}


# ---- iterative magnitude pruning with a custom method, PruningContainer history, pruned checkpoints ---------------
def iterative_pruning_custom(torch, device):
    nn = torch.nn
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")  # import torch.nn.utils.prune as prune

    class ThresholdPruning(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def __init__(self, threshold):
            self.threshold = threshold

        def compute_mask(self, tensor, default_mask):
            return default_mask * (tensor.abs() > self.threshold).to(default_mask.dtype)

    def threshold_prune(module, name, threshold):
        ThresholdPruning.apply(module, name, threshold=threshold)
        return module

    net = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 3)).to(device)
    _init(torch, net, 1426)
    x = torch.tensor(np.random.default_rng(1427).standard_normal((2, 2, 6, 6)), dtype=torch.float32, device=device)
    sparsity = []
    for amount in (0.2, 0.2, 0.3):
        prune.l1_unstructured(net[3], "weight", amount=amount)
        sparsity.append(int((net[3].weight == 0).sum()))
    container = net[3]._forward_pre_hooks
    hook = next(iter(container.values()))
    history = [type(h).__name__ for h in hook] if isinstance(hook, prune.PruningContainer) else [type(hook).__name__]
    prune.ln_structured(net[0], "weight", amount=0.5, n=2, dim=0)
    zero_filters = int((net[0].weight.flatten(1).abs().sum(1) == 0).sum())
    threshold_prune(net[0], "bias", 0.1)
    out = net(x)
    out.sum().backward()
    grad_zero_where_pruned = bool((net[3].weight_orig.grad[net[3].weight_mask == 0] == 0).all())
    sd_keys = sorted(net.state_dict())
    fresh = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 3)).to(device)
    prune.identity(fresh[3], "weight")
    prune.identity(fresh[0], "weight")
    prune.identity(fresh[0], "bias")
    fresh.load_state_dict(net.state_dict())
    same = torch.equal(fresh(x), net(x))
    for module, name in ((net[3], "weight"), (net[0], "weight"), (net[0], "bias")):
        prune.remove(module, name)
    masks_left = [n for n, _ in net.named_buffers()]
    params = [n for n, _ in net.named_parameters()]
    return {"sparsity": sparsity, "history": history, "zero_filters": zero_filters,
            "bias_kept": int((net[0].bias != 0).sum()), "out": out.flatten().tolist(),
            "grad_zero": grad_zero_where_pruned, "sd_keys": sd_keys, "loaded_same": same, "masks_left": masks_left,
            "params": params, "pruned": prune.is_pruned(net), "mask_dtype": str(fresh[3].weight_mask.dtype)}


# ---- orthogonal parametrizations: matrix_exp, cayley and householder maps, trained on a Procrustes problem -------
def orthogonal_parametrizations(torch, device):
    nn = torch.nn
    P = nn.utils.parametrize
    rng = np.random.default_rng(1428)
    A = torch.tensor(rng.standard_normal((20, 4)), dtype=torch.float32, device=device)
    R_true = torch.linalg.qr(torch.tensor(rng.standard_normal((4, 4)), dtype=torch.float32))[0].to(device)
    B = A @ R_true
    out = {}
    for orth_map in ("matrix_exp", "cayley", "householder"):
        layer = nn.Linear(4, 4, bias=False).to(device)
        _init(torch, layer, 1429)
        nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orth_map)
        W = layer.weight
        ortho0 = torch.allclose(W @ W.T, torch.eye(4, device=device), atol=1e-5)
        opt = torch.optim.Adam(layer.parameters(), lr=0.05)
        for _ in range(30):
            opt.zero_grad()
            loss = (layer(A) - B).pow(2).mean()
            loss.backward()
            opt.step()
        W = layer.weight
        out[orth_map] = [ortho0, torch.allclose(W @ W.T, torch.eye(4, device=device), atol=1e-4),
                         loss.item() < 2.0, sorted(layer.state_dict())]
    svd_proc = torch.linalg.svd(A.T @ B)
    R_hat = svd_proc.U @ svd_proc.Vh
    layer = nn.Linear(4, 4, bias=False).to(device)
    nn.utils.parametrizations.orthogonal(layer)
    layer.weight = R_hat.T  # assigning goes through right_inverse
    assigned = torch.allclose(layer.weight, R_hat.T, atol=1e-5)
    wide = nn.Linear(6, 3, bias=False).to(device)
    nn.utils.parametrizations.orthogonal(wide)
    rows = torch.allclose(wide.weight @ wide.weight.T, torch.eye(3, device=device), atol=1e-5)
    cplx = nn.Linear(3, 3, bias=False, dtype=torch.complex64).to(device)
    nn.utils.parametrizations.orthogonal(cplx)
    unitary = torch.allclose(cplx.weight @ cplx.weight.mH, torch.eye(3, dtype=torch.complex64, device=device),
                             atol=1e-5)
    return {"maps": out, "procrustes": torch.allclose(R_hat, R_true, atol=1e-4), "assigned": assigned,
            "rows": rows, "unitary": unitary, "type": type(P.type_before_parametrizations(layer)).__name__,
            "original": list(layer.parametrizations.weight.original.shape)}


PROGRAMS = [learning_pytorch_with_examples, pinn_heat_equation, neural_ode_adjoint, custom_function_checks,
            deq_implicit_layer, iterative_pruning_custom, orthogonal_parametrizations]
NEEDS_CPP = {}
