"""Sweep 20 programs, torch.func in real code: a bootstrapped ensemble trained through stack_module_state,
functional_call and vmap (with in_dims that share the batch), per-sample gradients and per-sample clipping as in
DP-SGD by vmap(grad(...)) with has_aux, jacrev/jacfwd/hessian in an optimisation loop (Newton's method on a
Rosenbrock valley, a constrained Lagrangian's KKT matrix), vmap with nested in_dims, out_dims, chunk_size and
randomness=, jvp/vjp/linearize of a functional model, and what torch.func and functional_call refuse.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy

from sweep15_common import cases
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- a bootstrapped ensemble trained with one vmapped functional_call ------------------------------------------------
def ensemble_stack_module_state(torch, device):
    nn, F = torch.nn, torch.nn.functional
    functional_call, stack_module_state = torch.func.functional_call, torch.func.stack_module_state
    vmap, grad_and_value = torch.func.vmap, torch.func.grad_and_value

    def make(seed):
        return _fill(torch, nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)), seed).to(device)

    models = [make(2000 + i) for i in range(4)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    shapes = {k: list(v.shape) for k, v in params.items()}
    leaf = [params[k].is_leaf and params[k].requires_grad for k in params]

    def loss_one(p, b, x, y):
        out = functional_call(base, (p, b), (x,))
        return F.mse_loss(out.squeeze(-1), y)

    x = _randn(torch, 2010, 16, 3, device=device)
    y = (x[:, 0] * 0.5 - x[:, 1].sin()).detach()
    idx = torch.tensor([[(i * 7 + k * 3) % 16 for i in range(16)] for k in range(4)], device=device)
    xb, yb = x[idx], y[idx]  # one bootstrap resample per member
    p = {k: v.detach().clone() for k, v in params.items()}
    step = vmap(grad_and_value(loss_one), in_dims=(0, 0, 0, 0))
    log = []
    for _ in range(5):
        g, loss = step(p, buffers, xb, yb)
        p = {k: p[k] - 0.2 * g[k] for k in p}
        log.append(_r(loss, 4))
    # predict on shared inputs: in_dims None for the batch
    preds = vmap(lambda pp, xx: functional_call(base, (pp, {}), (xx,)), in_dims=(0, None))(p, x[:5])
    mean, std = preds.mean(0).squeeze(-1), preds.std(0).squeeze(-1)
    # the first member's update matches a plain loop
    m0 = make(2000)
    opt = torch.optim.SGD(m0.parameters(), lr=0.2)
    for _ in range(5):
        opt.zero_grad()
        F.mse_loss(m0(xb[0]).squeeze(-1), yb[0]).backward()
        opt.step()
    same = max((m0.state_dict()[k] - p[k][0]).abs().max().item() for k in p) < 1e-5
    return {"shapes": shapes, "leaf": leaf, "log": log, "mean": _r(mean, 4), "std": _r(std, 4), "same": same,
            "base_device": str(next(base.parameters()).device)}


# ---- per-sample gradients and DP-SGD clipping -------------------------------------------------------------------------
def per_sample_clipping(torch, device):
    nn, F = torch.nn, torch.nn.functional
    functional_call, grad, vmap = torch.func.functional_call, torch.func.grad, torch.func.vmap

    model = _fill(torch, nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3)), 2020).to(device)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _randn(torch, 2021, 10, 4, device=device)
    t = torch.tensor([i % 3 for i in range(10)], device=device)

    def loss_fn(p, xi, ti):
        logits = functional_call(model, p, (xi.unsqueeze(0),))
        loss = F.cross_entropy(logits, ti.unsqueeze(0))
        return loss, logits.argmax(-1).squeeze(0)

    grads, preds = vmap(grad(loss_fn, has_aux=True), in_dims=(None, 0, 0))(params, x, t)
    norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads.values()], 1).norm(dim=1)
    clip = 1.0
    factor = (clip / (norms + 1e-6)).clamp(max=1.0)
    clipped = {k: (g * factor.view(-1, *[1] * (g.dim() - 1))).sum(0) for k, g in grads.items()}
    # the mean of the per-sample grads is the batch gradient
    model.zero_grad()
    F.cross_entropy(model(x), t).backward()
    batch_ok = all((grads[k].mean(0) - p.grad).abs().max().item() < 1e-5 for k, p in model.named_parameters())
    # chunk_size gives the same numbers
    chunked, _ = vmap(grad(loss_fn, has_aux=True), in_dims=(None, 0, 0), chunk_size=3)(params, x, t)
    chunk_ok = all(torch.allclose(chunked[k], grads[k], atol=1e-6) for k in grads)
    return {"norms": _r(norms, 4), "preds": preds.tolist(), "clipped": {k: _r(v.sum(), 4) for k, v in clipped.items()},
            "batch_ok": batch_ok, "chunk_ok": chunk_ok, "keys": list(grads)}


# ---- Newton's method and a KKT system by jacrev/jacfwd/hessian ---------------------------------------------------------
def newton_and_kkt(torch, device):
    hessian, jacfwd, jacrev, grad = torch.func.hessian, torch.func.jacfwd, torch.func.jacrev, torch.func.grad

    def rosen(z):
        return (1 - z[0]) ** 2 + 10 * (z[1] - z[0] ** 2) ** 2

    z = torch.tensor([-1.2, 1.0], dtype=torch.float64, device=device)
    path = []
    for _ in range(6):
        g = jacrev(rosen)(z)
        H = hessian(rosen)(z)
        z = z - torch.linalg.solve(H, g)
        path.append(_r(z, 6))
    H_fwd = jacfwd(jacrev(rosen))(z)
    H_rev = jacrev(jacrev(rosen))(z)

    # minimise x^T A x / 2 - b^T x subject to c^T x = 1: the Lagrangian's KKT matrix by hessian over (x, lam)
    A = torch.tensor([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.5]], dtype=torch.float64, device=device)
    b = torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64, device=device)
    c = torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64, device=device)

    def lagrangian(x, lam):
        return 0.5 * x @ A @ x - b @ x + lam * (c @ x - 1)

    x0 = torch.zeros(3, dtype=torch.float64, device=device)
    lam0 = torch.tensor(0.0, dtype=torch.float64, device=device)
    (Hxx, Hxl), (Hlx, Hll) = hessian(lagrangian, argnums=(0, 1))(x0, lam0)
    K = torch.cat([torch.cat([Hxx, Hxl.unsqueeze(1)], 1), torch.cat([Hlx.unsqueeze(0), Hll.view(1, 1)], 1)], 0)
    gx, gl = grad(lagrangian, argnums=(0, 1))(x0, lam0)
    sol = torch.linalg.solve(K, -torch.cat([gx, gl.view(1)]))
    # jacobian of a vector function with has_aux, and a dict input
    def f(p):
        out = torch.stack([p["a"].sum() * p["b"], p["a"].prod() - p["b"]])
        return out, out.norm()
    J, aux = jacrev(f, has_aux=True)({"a": torch.tensor([1.0, 2.0], device=device),
                                      "b": torch.tensor(3.0, device=device)})
    return {"path": path, "H_same": torch.allclose(H_fwd, H_rev), "H": _r(H_fwd, 4), "K_shape": list(K.shape),
            "sol": _r(sol, 6), "constraint": _r(c @ sol[:3], 6),
            "J": {k: [list(v.shape), _r(v, 5)] for k, v in J.items()}, "aux": _r(aux, 5)}


# ---- vmap in_dims/out_dims, nested structures, randomness= --------------------------------------------------------------
def vmap_dims_and_randomness(torch, device):
    vmap = torch.func.vmap
    x = _randn(torch, 2030, 3, 4, device=device)
    y = _randn(torch, 2031, 4, 5, device=device)

    def pair(a, b):
        return a @ b, a.sum()

    def nested(inp):
        return inp["x"] * inp["s"][0] + inp["s"][1]

    def drop(t):
        return torch.nn.functional.dropout(t, 0.5, training=True)

    def noisy(t):
        return t + torch.rand(())

    torch.manual_seed(0)
    table = {
        "out_dims": lambda: [list(o.shape) for o in vmap(pair, in_dims=(0, None), out_dims=(1, 0))(x, y)],
        "neg_in_dim": lambda: list(vmap(torch.sum, in_dims=-1)(x).shape),
        "nested_in_dims": lambda: vmap(nested, in_dims=({"x": 0, "s": (None, 0)},))(
            {"x": x, "s": (torch.tensor(2.0, device=device), torch.arange(3.0, device=device))}).sum().item(),
        "kwargs_not_mapped": lambda: vmap(lambda a, scale=1.0: a * scale)(x, scale=3.0).sum().item(),
        "chunk": lambda: torch.allclose(vmap(torch.outer, chunk_size=2)(x, x), torch.einsum("bi,bj->bij", x, x)),
        "out_none": lambda: vmap(lambda a: (a.sum(), 5), out_dims=(0, None))(x)[1],
        "nested_vmap": lambda: list(vmap(vmap(torch.dot, in_dims=(0, None)), in_dims=(None, 1))(x, y).shape),
        "error_default": lambda: vmap(noisy)(x),
        "same": lambda: bool((vmap(noisy, randomness="same")(torch.zeros(4, device=device)).diff() == 0).all()),
        "different": lambda: len(set(vmap(noisy, randomness="different")(torch.zeros(4, device=device)).tolist())),
        "dropout_same": lambda: bool(
            (vmap(drop, randomness="same")(torch.ones(3, 20, device=device)).diff(dim=0) == 0).all()),
        "bad_in_dims": lambda: vmap(torch.sum, in_dims=(0, 0))(x),
        "bad_size": lambda: vmap(torch.add)(x, torch.ones(2, 4, device=device)),
        "bad_out_dim": lambda: vmap(lambda a: a, out_dims=3)(x),
        "bad_randomness": lambda: vmap(noisy, randomness="sometimes")(x),
    }
    return cases(torch, table)


# ---- jvp, vjp and linearize of a functional model --------------------------------------------------------------------
def functional_jvp_vjp(torch, device):
    nn = torch.nn
    func = torch.func
    functional_call, jvp, linearize, vjp, jacfwd = (func.functional_call, func.jvp, func.linearize, func.vjp,
                                                    func.jacfwd)
    model = _fill(torch, nn.Sequential(nn.Linear(3, 5), nn.SiLU(), nn.Linear(5, 2)), 2040).to(device)
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = _randn(torch, 2041, 4, 3, device=device)

    def f(p):
        return functional_call(model, p, (x,))

    tangent = {k: torch.ones_like(v) * 0.1 for k, v in params.items()}
    out, jv = jvp(f, (params,), (tangent,))
    out2, vjp_fn = vjp(f, params)
    (cot,) = vjp_fn(torch.ones_like(out2))
    # <J t, 1> == <t, J^T 1>
    lhs = jv.sum().item()
    rhs = sum((tangent[k] * cot[k]).sum().item() for k in params)
    lin_out, lin_fn = linearize(lambda inp: model(inp), x)
    lin_same = torch.allclose(lin_fn(torch.ones_like(x)), jvp(model, (x,), (torch.ones_like(x),))[1], atol=1e-6)
    jac_x = jacfwd(lambda inp: model(inp).sum(0))(x)
    return {"jv": _r(jv, 5), "dot": abs(lhs - rhs) < 1e-4, "cot": {k: list(v.shape) for k, v in cot.items()},
            "lin_same": lin_same, "lin_out": _r(lin_out.sum(), 5), "jac_x": [list(jac_x.shape), _r(jac_x.sum(), 5)]}


PROGRAMS = [ensemble_stack_module_state, per_sample_clipping, newton_and_kkt, vmap_dims_and_randomness,
            functional_jvp_vjp]
NEEDS_CPP = {}


# ---- what torch.func refuses, and module utilities around it ---------------------------------------------------------
def func_refusals_and_module_utilities(torch, device):
    nn, func = torch.nn, torch.func
    lin = _fill(torch, nn.Linear(3, 2), 2050).to(device)
    x = _randn(torch, 2051, 4, 3, device=device)
    params = dict(lin.named_parameters())
    tied = _fill(torch, nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False)), 2052).to(device)
    tied[1].weight = tied[0].weight
    bn_net = _fill(torch, nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3)), 2053).to(device)

    def per_sample_bn(inp):
        return func.functional_call(bn_net, dict(bn_net.named_parameters()), (inp.unsqueeze(0),))

    table = {
        "grad_non_scalar": lambda: func.grad(lambda a: a * 2)(x),
        "grad_not_tensor": lambda: func.grad(lambda a: 3.0)(x),
        "grad_argnums_range": lambda: func.grad(lambda a: a.sum(), argnums=1)(x),
        "grad_argnums_type": lambda: func.grad(lambda a: a.sum(), argnums=0.5)(x),
        "grad_int_input": lambda: func.grad(lambda a: a.sum())(torch.ones(2, dtype=torch.long, device=device)),
        "jacrev_chunk": lambda: func.jacrev(lambda a: a.sin(), chunk_size=2)(x[0]),
        "jacrev_bad_chunk": lambda: func.jacrev(lambda a: a.sin(), chunk_size=0)(x[0]),
        "jvp_shape": lambda: func.jvp(lambda a: a * 2, (x,), (x[0],)),
        "jvp_not_tuple": lambda: func.jvp(lambda a: a * 2, x, x),
        "vjp_aux": lambda: func.vjp(lambda a: (a.sum(), {"n": a.norm()}), x, has_aux=True)[2]["n"],
        "strict_missing": lambda: func.functional_call(lin, {"weight": params["weight"]}, (x,), strict=True),
        "strict_unexpected": lambda: func.functional_call(lin, {**params, "extra": x}, (x,), strict=True),
        "overlap": lambda: func.functional_call(lin, ({"weight": params["weight"]}, {"weight": params["weight"]}),
                                                (x,)),
        "tied": lambda: func.functional_call(tied, {"0.weight": torch.ones(5, 3, device=device)},
                                             (torch.tensor([1, 2], device=device),)).sum(),
        "untied": lambda: func.functional_call(tied, {"0.weight": torch.ones(5, 3, device=device)},
                                               (torch.tensor([1, 2], device=device),), tie_weights=False).sum(),
        "none_bias": lambda: func.functional_call(lin, {"bias": None}, (x,)).sum(),
        "not_tensor": lambda: func.functional_call(lin, {"weight": 2.0}, (x,)),
        "not_dicts": lambda: func.functional_call(lin, [params, None], (x,)),
        "stack_empty": lambda: func.stack_module_state([]),
        "stack_mismatch": lambda: func.stack_module_state([nn.Linear(2, 2), nn.Linear(2, 3)]),
        "stack_mode": lambda: func.stack_module_state([nn.Linear(2, 2), nn.Linear(2, 2).eval()]),
        "bn_vmap": lambda: func.vmap(per_sample_bn)(x),
        "bn_vmap_eval": lambda: list(func.vmap(lambda a: bn_net.eval()(a.unsqueeze(0)))(x).shape),
        "grad_and_value_aux": lambda: func.grad_and_value(lambda a: (a.pow(2).sum(), a.mean()), has_aux=True)(x)[1],
        "hessian_dict": lambda: {k: list(v["weight"].shape) for k, v in func.hessian(
            lambda p: func.functional_call(lin, p, (x,)).pow(2).sum())(params).items()},
    }
    out = cases(torch, table)
    lin2 = copy.deepcopy(lin)
    func.replace_all_batch_norm_modules_(bn_net)
    out["replaced"] = [bn_net[1].running_mean is None, bn_net[1].track_running_stats]
    out["bn_after"] = cases(torch, {"bn_vmap": lambda: list(func.vmap(per_sample_bn)(x).shape)})
    out["unchanged"] = bool(torch.equal(lin2.weight, lin.weight))
    return out


PROGRAMS.append(func_refusals_and_module_utilities)
