"""Sweep 8 programs on torch.func and custom autograd Functions as research code uses them: per-sample gradients
and model ensembling (functional_call, vmap with in_dims/chunk_size, grad with has_aux, stack_module_state),
Jacobians and Hessians of a network (jacrev/jacfwd with argnums, hessian, jvp, vjp, linearize), a MAML-style inner
loop through functional_call, and custom Functions written the new way (setup_context, ctx.mark_non_differentiable,
once_differentiable, a vmap staticmethod and generate_vmap_rule).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- per-sample gradients (Opacus-style clipping and noise-free DP-SGD step) and an ensemble of models -------------
def per_sample_gradients(torch, device):
    nn = torch.nn
    F = nn.functional
    functional_call, grad, vmap = torch.func.functional_call, torch.func.grad, torch.func.vmap
    stack_module_state = torch.func.stack_module_state

    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).to(device)
    init_from_numpy(torch, model, 1000)
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    x = numpy_input(torch, 1001, 10, 5, device=device)
    y = torch.tensor(np.random.default_rng(1002).integers(0, 3, 10), device=device)

    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = functional_call(model, (params, buffers), (batch,))
        loss = F.cross_entropy(predictions, targets)
        return loss, predictions.argmax(-1)

    ft_compute_grad = grad(compute_loss, has_aux=True)
    ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
    per_grads, preds = ft_compute_sample_grad(params, buffers, x, y)
    chunked, _ = vmap(ft_compute_grad, in_dims=(None, None, 0, 0), chunk_size=3)(params, buffers, x, y)
    # the same by a loop with autograd
    loop = []
    for i in range(10):
        model.zero_grad()
        F.cross_entropy(model(x[i:i + 1]), y[i:i + 1]).backward()
        loop.append(model[0].weight.grad.clone())
    agree = torch.allclose(per_grads["0.weight"], torch.stack(loop), atol=1e-6)
    # DP-SGD: clip each sample's gradient to norm C, then average
    C = 0.5
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in per_grads.values()], dim=1).norm(dim=1)
    factor = (C / (norms + 1e-6)).clamp(max=1.0)
    clipped = {k: torch.einsum("i,i...->...", factor, g) / x.shape[0] for k, g in per_grads.items()}

    # an ensemble of 4 models evaluated in one vmap
    models = [nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).to(device) for _ in range(4)]
    for i, m in enumerate(models):
        init_from_numpy(torch, m, 1010 + i)
    ens_params, ens_buffers = stack_module_state(models)
    base_model = copy.deepcopy(models[0]).to("meta")

    def fmodel(params, buffers, x):
        return functional_call(base_model, (params, buffers), (x,))

    same_batch = vmap(fmodel, in_dims=(0, 0, None))(ens_params, ens_buffers, x)
    minibatches = x[:8].reshape(4, 2, 5)
    per_model = vmap(fmodel, randomness="error")(ens_params, ens_buffers, minibatches)
    return {"shapes": {k: list(v.shape) for k, v in per_grads.items()}, "preds": preds.tolist(),
            "agree": agree, "chunked": torch.allclose(chunked["2.bias"], per_grads["2.bias"], atol=1e-7),
            "norms": _rounded(norms, 4), "clipped": _rounded(clipped["2.bias"], 5),
            "ensemble": _rounded(same_batch[:, :2], 5), "per_model": list(per_model.shape),
            "stacked": [list(ens_params["0.weight"].shape), ens_params["0.weight"].requires_grad],
            "loop_equal": _rounded(same_batch[1], 5) == _rounded(models[1](x), 5)}


# ---- Jacobians and Hessians of a small network: jacrev/jacfwd/hessian/jvp/vjp/linearize ------------------------------
def jacobians_and_hessians(torch, device):
    nn = torch.nn
    func = torch.func
    functional_call, hessian, jacfwd, jacrev = func.functional_call, func.hessian, func.jacfwd, func.jacrev
    jvp, linearize, vjp, vmap = func.jvp, func.linearize, func.vjp, func.vmap

    model = nn.Sequential(nn.Linear(3, 6), nn.Softplus(), nn.Linear(6, 2)).to(device, torch.float64)
    init_from_numpy(torch, model, 1020)
    x = torch.tensor(np.random.default_rng(1021).standard_normal((4, 3)), dtype=torch.float64, device=device)

    def f(inp):
        return model(inp)

    jac_x = vmap(jacrev(f))(x)                                     # (4, 2, 3): one Jacobian per sample
    jac_fwd = vmap(jacfwd(f))(x)
    params = dict(model.named_parameters())

    def loss_of(params, inp):
        return functional_call(model, params, (inp,)).pow(2).sum()

    jac_p = jacrev(loss_of)(params, x)                             # a dict shaped as params
    both = jacrev(loss_of, argnums=(0, 1))(params, x)
    h_x = hessian(lambda inp: model(inp).sum())(x[0])
    (out, tangent) = jvp(f, (x,), (torch.ones_like(x),))
    out2, vjp_fn = vjp(f, x)
    (cot,) = vjp_fn(torch.ones_like(out2))
    out3, jvp_fn = linearize(f, x)
    lin = jvp_fn(torch.ones_like(x))

    # Laplacian of a scalar field through the trace of a vmapped Hessian (PINN code)
    def u(p):
        return torch.sin(p[0]) * torch.exp(-p[1]) + p[2] ** 3

    lap = vmap(lambda p: torch.trace(hessian(u)(p)))(x)
    return {"jac_x": _rounded(jac_x[0]), "fwd_same": torch.allclose(jac_x, jac_fwd),
            "jac_p": {k: list(v.shape) for k, v in jac_p.items()},
            "jac_p_bias": _rounded(jac_p["2.bias"]), "argnums": [type(both).__name__, len(both),
                                                                   list(both[1].shape)],
            "h_x": _rounded(h_x), "jvp": _rounded(tangent), "vjp": _rounded(cot),
            "linearize": torch.allclose(lin, tangent), "lap": _rounded(lap),
            "dtype": str(jac_x.dtype).split(".")[-1]}


# ---- MAML inner loop through functional_call with create_graph, first-order variant with torch.func.grad ----------
def maml_functional(torch, device):
    nn = torch.nn
    F = nn.functional
    functional_call, grad = torch.func.functional_call, torch.func.grad

    net = nn.Sequential(nn.Linear(1, 16), nn.ReLU(), nn.Linear(16, 1)).to(device)
    init_from_numpy(torch, net, 1030)
    meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    rng = np.random.default_rng(1031)
    meta_losses = []
    for it in range(4):
        meta_opt.zero_grad()
        total = 0.0
        for task in range(2):
            amp, phase = rng.uniform(0.5, 2.0), rng.uniform(0, np.pi)
            xs = rng.uniform(-3, 3, (2, 10, 1))
            ys = amp * np.sin(xs + phase)
            xs_t = torch.tensor(xs, dtype=torch.float32, device=device)
            ys_t = torch.tensor(ys, dtype=torch.float32, device=device)
            params = dict(net.named_parameters())
            for _ in range(2):
                loss = F.mse_loss(functional_call(net, params, xs_t[0]), ys_t[0])
                grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
                params = {name: p - 0.01 * g for (name, p), g in zip(params.items(), grads)}
            query = F.mse_loss(functional_call(net, params, (xs_t[1],)), ys_t[1])
            query.backward()
            total += query.item()
        meta_opt.step()
        meta_losses.append(round(total / 2, 5))

    # first-order MAML with torch.func.grad over a dict of detached parameters
    params = {k: v.detach() for k, v in net.named_parameters()}
    xs = torch.linspace(-2, 2, 8, device=device).unsqueeze(1)

    def inner_loss(p):
        return F.mse_loss(functional_call(net, p, (xs,)), torch.sin(xs))

    g = grad(inner_loss)(params)
    adapted = {k: params[k] - 0.1 * g[k] for k in params}
    return {"meta": meta_losses, "fo_before": round(inner_loss(params).item(), 5),
            "fo_after": round(inner_loss(adapted).item(), 5), "grad_keys": sorted(g),
            "net_untouched": net[0].weight.grad is not None}


# ---- custom Functions the new way: setup_context, non-differentiable outputs, once_differentiable, vmap rules ------
def custom_functions_setup_context(torch, device):
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable
    grad, vmap = torch.func.grad, torch.func.vmap

    class SortedWithIndices(Function):
        @staticmethod
        def forward(x):
            values, indices = torch.sort(x, dim=-1)
            return values, indices

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, indices = output
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            out = torch.zeros_like(grad_values)
            return out.scatter(-1, indices, grad_values)

        @staticmethod
        def vmap(info, in_dims, x):
            x_bdim = in_dims[0]
            x = x.movedim(x_bdim, 0) if x_bdim is not None else x
            values, indices = SortedWithIndices.apply(x)
            return (values, indices), (0, 0)

    class ScaledTanh(Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x, scale):
            return torch.tanh(x) * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(output)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, grad_out):
            (out,) = ctx.saved_tensors
            return grad_out * (ctx.scale - out * out / ctx.scale), None

    class ClampGrad(Function):
        @staticmethod
        def forward(ctx, x, bound):
            ctx.bound = bound
            return x.view_as(x)

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_out):
            return grad_out.clamp(-ctx.bound, ctx.bound), None

    x = torch.tensor(np.random.default_rng(1040).standard_normal((3, 5)), dtype=torch.float64, device=device,
                     requires_grad=True)
    values, indices = SortedWithIndices.apply(x)
    weights = torch.arange(5.0, dtype=torch.float64, device=device)
    (values * weights).sum().backward()
    sort_grad = x.grad.clone()
    x.grad = None
    out = ScaledTanh.apply(x, 2.0)
    out.sum().backward()
    tanh_grad = x.grad.clone()
    ok_check = torch.autograd.gradcheck(lambda t: ScaledTanh.apply(t, 1.5), (x.detach()[:1].requires_grad_(),))
    batched = vmap(lambda t: ScaledTanh.apply(t, 2.0))(x.detach())
    per_row_grad = vmap(grad(lambda t: ScaledTanh.apply(t, 2.0).sum()))(x.detach())
    vm_values, vm_indices = vmap(SortedWithIndices.apply, in_dims=1, out_dims=1)(x.detach())
    x.grad = None
    y = ClampGrad.apply(x * 10, 0.5)
    y.sum().backward()
    try:
        z = ClampGrad.apply(x, 0.5)
        g, = torch.autograd.grad(z.sum(), x, create_graph=True)
        g.sum().backward()
        double = "no error"
    except RuntimeError as exc:
        double = str(exc)
    return {"sort_grad": _rounded(sort_grad), "indices_grad": [indices.requires_grad, values.requires_grad],
            "tanh_grad": _rounded(tanh_grad), "gradcheck": ok_check, "batched": _rounded(batched),
            "per_row_grad": torch.allclose(per_row_grad, tanh_grad), "vm_indices": vm_indices.tolist(),
            "vm_values": _rounded(vm_values), "clamped": x.grad.unique().tolist(), "double": double,
            "grad_fn": out.grad_fn.name()}


PROGRAMS = [per_sample_gradients, jacobians_and_hessians, maml_functional, custom_functions_setup_context]
NEEDS_CPP = {}
