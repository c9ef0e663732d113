"""Sweep 16 programs, training infrastructure idioms: forward hooks for feature extraction, layer freezing with
parameter groups at different learning rates, optimizer and scheduler state_dict round trips through io.BytesIO,
an EMA of weights with torch._foreach_* ops, torch.func ensembles and per-sample gradients, gradient accumulation
with clip_grad_norm_ and early stopping, and the learning-rate schedulers' curves."""
import copy
import io

import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill


def _data(torch, device, seed, n=16, d=4):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((n, d)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 3, n), device=device)
    return x, y


def _refusal(call):
    """A kernel's refusal without the kernel's name, which is the device's own ("ctc_loss_cuda")."""
    try:
        call()
        return "ran"
    except NotImplementedError as exc:
        return str(exc).split("\n")[0].split('" ')[-1]


def _mlp(torch, device, seed):
    nn = torch.nn
    return _fill(torch, nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3)),
                 seed).to(device)


# ---- forward hooks that pull features out of a frozen backbone (prepend, always_call, global hooks) ---------------
def feature_extraction(torch, device):
    nn = torch.nn
    model = _mlp(torch, device, 1800)
    x, _ = _data(torch, device, 1801)
    feats, order = {}, []
    handles = []
    for name, mod in model.named_modules():
        if isinstance(mod, (nn.ReLU, nn.Tanh)):
            handles.append(mod.register_forward_hook(
                lambda m, i, o, name=name: feats.__setitem__(name, o.detach().clone())))
    handles.append(model[0].register_forward_hook(lambda m, i, o: order.append("second")))
    handles.append(model[0].register_forward_hook(lambda m, i, o: order.append("first"), prepend=True))
    handles.append(model[4].register_forward_pre_hook(lambda m, args, kwargs: (args, kwargs), with_kwargs=True))
    with torch.no_grad():
        logits = model(x)
    snap = {k: [list(v.shape), round(v.sum().item(), 4)] for k, v in feats.items()}
    for h in handles:
        h.remove()
    feats.clear()
    model(x)
    # the torchvision-style "return layers" extractor through children
    body = nn.Sequential(*list(model.children())[:-1])
    emb = body(x)
    # a hook that replaces the output and one that runs even when the forward raises
    seen = []

    class Boom(nn.Module):
        def forward(self, t):
            raise ValueError("boom")

    boom = Boom()
    boom.register_forward_hook(lambda m, i, o: seen.append("always"), always_call=True)
    try:
        boom(x)
    except ValueError as exc:
        seen.append(str(exc))
    h = model[2].register_forward_hook(lambda m, i, o: o * 0)
    zeroed = model(x)
    h.remove()
    state = {"hooks": len(model[0]._forward_hooks), "train": model.training}
    model.requires_grad_(False)
    frozen = [p.requires_grad for p in model.parameters()]
    return {"feats": snap, "order": order, "after_remove": len(feats), "emb": [list(emb.shape),
                                                                              emb.sum().item()],
            "logits": logits.sum().item(), "seen": seen, "zeroed": zeroed[0].tolist(), "state": state,
            "frozen": frozen}


# ---- freezing and parameter groups: different lrs, add_param_group, per-group weight decay, LambdaLR per group ---
def param_groups(torch, device):
    model = _mlp(torch, device, 1810)
    x, y = _data(torch, device, 1811)
    F = torch.nn.functional
    for p in model[0].parameters():
        p.requires_grad_(False)
    decay = [p for n, p in model.named_parameters() if p.requires_grad and n.endswith("weight")]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0, "lr": 1e-2}], lr=3e-3, amsgrad=True)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 0.9 ** e, lambda e: 1.0 / (1 + e)])
    lrs, losses = [], []
    for step in range(4):
        opt.zero_grad(set_to_none=(step % 2 == 0))
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        lrs.append([round(lr, 8) for lr in sched.get_last_lr()])
        losses.append(loss.item())
    # unfreeze the first layer with a smaller lr
    for p in model[0].parameters():
        p.requires_grad_(True)
    opt.add_param_group({"params": list(model[0].parameters()), "lr": 1e-4})
    opt.zero_grad()
    F.cross_entropy(model(x), y).backward()
    opt.step()
    groups = [[g["lr"], g["weight_decay"], len(g["params"]), g["amsgrad"]] for g in opt.param_groups]
    sd = opt.state_dict()
    sgd = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, dampening=0.1, maximize=False)
    errs = cases(torch, {
        "dup": lambda: torch.optim.SGD([{"params": decay}, {"params": decay[:1]}], lr=0.1),
        "empty": lambda: torch.optim.SGD([], lr=0.1),
        "neg_lr": lambda: torch.optim.Adam(model.parameters(), lr=-1),
        "bad_beta": lambda: torch.optim.Adam(model.parameters(), betas=(1.5, 0.9)),
        "add_dup": lambda: opt.add_param_group({"params": decay[:1]}),
        "nesterov": lambda: torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True)})
    return {"lrs": lrs, "losses": losses, "groups": groups, "state_len": len(sd["state"]),
            "state_keys": sorted(sd["state"][0]), "group_params": [g["params"] for g in sd["param_groups"]],
            "frozen_grad": model[0].weight.grad is not None, "sgd_defaults": sorted(sgd.defaults), "errors": errs}


# ---- checkpoints: model+optimizer+scheduler state_dicts through BytesIO; resuming continues identically -----------
def resume_from_checkpoint(torch, device):
    F = torch.nn.functional
    x, y = _data(torch, device, 1821)

    def build():
        model = _mlp(torch, device, 1820)
        opt = torch.optim.Adam(model.parameters(), lr=1e-2, betas=(0.8, 0.99), weight_decay=1e-3)
        warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
        cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=1e-4)
        sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])
        return model, opt, sched

    def train(model, opt, sched, steps):
        out = []
        for _ in range(steps):
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            out.append([loss.item(), sched.get_last_lr()[0]])
        return out

    model, opt, sched = build()
    straight = train(model, opt, sched, 8)
    model, opt, sched = build()
    first = train(model, opt, sched, 4)
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": 4}, buf)
    size_ok = buf.tell() > 0
    buf.seek(0)
    ckpt = torch.load(buf, weights_only=True)
    model2, opt2, sched2 = build()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["opt"])
    sched2.load_state_dict(ckpt["sched"])
    resumed = first + train(model2, opt2, sched2, 4)
    plateau_opt = torch.optim.SGD(model2.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, mode="min", factor=0.5, patience=1,
                                                         threshold=0.01, cooldown=1)
    plateau_lrs = []
    for metric in [1.0, 0.9, 0.95, 0.93, 0.92, 0.94, 0.96, 0.97]:
        plateau.step(metric)
        plateau_lrs.append(plateau_opt.param_groups[0]["lr"])
    buf2 = io.BytesIO()
    torch.save(plateau.state_dict(), buf2)
    buf2.seek(0)
    psd = torch.load(buf2, weights_only=False)
    return {"straight": straight, "resumed": resumed, "size_ok": size_ok, "ckpt_step": ckpt["step"],
            "sched_keys": sorted(ckpt["sched"]), "opt_state": sorted(ckpt["opt"]["state"][0]),
            "step_type": type(ckpt["opt"]["state"][0]["step"]).__name__,
            "step_dev": str(ckpt["opt"]["state"][0]["step"].device), "plateau": plateau_lrs,
            "plateau_sd": [psd["best"], psd["num_bad_epochs"], psd["cooldown_counter"], psd["mode"]]}


# ---- an EMA of the weights with torch._foreach_* ops, against AveragedModel and a plain loop --------------------
def ema_foreach(torch, device):
    F = torch.nn.functional
    model = _mlp(torch, device, 1830)
    ema = copy.deepcopy(model)
    for p in ema.parameters():
        p.requires_grad_(False)
    averaged = torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = _data(torch, device, 1831)
    decay = 0.9
    for step in range(5):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        with torch.no_grad():
            e = list(ema.parameters())
            m = list(model.parameters())
            torch._foreach_mul_(e, decay)
            torch._foreach_add_(e, m, alpha=1 - decay)
        averaged.update_parameters(model)
    lerped = [p.detach().clone() for p in _mlp(torch, device, 1830).parameters()]
    target = [p.detach() for p in model.parameters()]
    torch._foreach_lerp_(lerped, target, 0.5)
    norms = torch._foreach_norm(target)
    scaled = torch._foreach_mul(target, 2.0)
    sums = torch._foreach_add(target, scaled, alpha=-0.5)
    tensors = [t.clone() for t in target]
    torch._foreach_addcmul_(tensors, target, target, value=0.5)
    torch._foreach_clamp_max_(tensors, 0.3)
    torch._foreach_zero_(scaled)
    maxes = torch._foreach_maximum(target, 0.0)
    sq = torch._foreach_sqrt(torch._foreach_abs(target))
    per_tensor = torch._foreach_div(target, norms)
    return {"ema": [p.sum().item() for p in ema.parameters()],
            "averaged": [p.sum().item() for p in averaged.module.parameters()],
            "n_averaged": averaged.n_averaged.item(), "lerp": [t.sum().item() for t in lerped],
            "norms": [n.item() for n in norms], "sums": [bool(torch.allclose(s, torch.zeros_like(s), atol=1e-7))
                                                         for s in sums],
            "addcmul": [t.sum().item() for t in tensors], "zero": [t.abs().sum().item() for t in scaled],
            "maxes": [t.sum().item() for t in maxes], "sqrt": [t.sum().item() for t in sq],
            "unit": [torch.linalg.vector_norm(t).item() for t in per_tensor],
            "errors": cases(torch, {"len": lambda: torch._foreach_add(target, target[:2]),
                                    "empty": lambda: torch._foreach_add([], [])})}


# ---- torch.func: a vmapped ensemble (stack_module_state), per-sample gradients, per-sample clipping (DP-SGD) -----
def func_ensembles(torch, device):
    nn = torch.nn
    fn = torch.func
    F = torch.nn.functional
    models = [_mlp(torch, device, 1840 + i) for i in range(3)]
    params, buffers = fn.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    x, y = _data(torch, device, 1844, n=6)

    def run(p, b, xb):
        return fn.functional_call(base, (p, b), (xb,))

    ens = fn.vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    loop = torch.stack([m(x) for m in models])
    minibatches = x.view(3, 2, 4)
    per_model_batch = fn.vmap(run)(params, buffers, minibatches)
    model = models[0]
    p0 = {k: v.detach() for k, v in model.named_parameters()}

    def loss_one(p, xi, yi):
        out = fn.functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))

    per_sample = fn.vmap(fn.grad(loss_one), in_dims=(None, 0, 0))(p0, x, y)
    full = torch.autograd.grad(F.cross_entropy(model(x), y), list(model.parameters()))
    mean_same = [bool(torch.allclose(per_sample[k].mean(0), g, atol=1e-6)) for k, g in zip(p0, full)]
    # DP-SGD: clip each sample's gradient to norm 1, then average
    flat = torch.cat([g.reshape(6, -1) for g in per_sample.values()], 1)
    norms = flat.norm(dim=1)
    factor = (1.0 / (norms + 1e-6)).clamp(max=1.0)
    clipped = {k: (g * factor.view(-1, *[1] * (g.dim() - 1))).mean(0) for k, g in per_sample.items()}
    loss_and_grad = fn.grad_and_value(loss_one)(p0, x[0], y[0])
    chunked = fn.vmap(fn.grad(loss_one), in_dims=(None, 0, 0), chunk_size=2)(p0, x, y)
    jac = fn.jacrev(lambda xi: model(xi))(x[0])
    hess = fn.hessian(lambda xi: model(xi).logsumexp(-1))(x[0])
    return {"ens_shape": list(ens.shape), "ens_same": bool(torch.allclose(ens, loop, atol=1e-6)),
            "per_model": list(per_model_batch.shape), "stacked": {k: list(v.shape) for k, v in params.items()},
            "per_sample": {k: list(v.shape) for k, v in per_sample.items()}, "mean_same": mean_same,
            "norms": norms.tolist(), "clipped": [v.norm().item() for v in clipped.values()],
            "gv": [loss_and_grad[1].item(), loss_and_grad[0]["0.bias"].tolist()],
            "chunked": all(bool(torch.allclose(chunked[k], per_sample[k])) for k in p0),
            "jac": list(jac.shape), "hess": [list(hess.shape), bool(torch.allclose(hess, hess.T, atol=1e-6))],
            "meta": str(base[0].weight.device)}


# ---- gradient accumulation with clip_grad_norm_ / clip_grad_value_, parameters_to_vector, early stopping ---------
def accumulation_and_early_stopping(torch, device):
    nn = torch.nn
    F = torch.nn.functional
    utils = nn.utils
    model = _mlp(torch, device, 1850)
    x, y = _data(torch, device, 1851, n=24)
    vx, vy = _data(torch, device, 1852, n=12)
    opt = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.5)
    accum = 3
    norms, val_losses = [], []
    best, best_state, bad, stopped = float("inf"), None, 0, None
    for epoch in range(12):
        model.train()
        for i, (xb, yb) in enumerate(zip(x.split(4), y.split(4))):
            loss = F.cross_entropy(model(xb), yb) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                total = utils.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type=2.0, foreach=True)
                norms.append(round(total.item(), 5))
                opt.step()
                opt.zero_grad()
        model.eval()
        with torch.no_grad():
            val = F.cross_entropy(model(vx), vy).item()
        val_losses.append(val)
        if val < best - 1e-3:
            best, bad = val, 0
            best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        else:
            bad += 1
            if bad >= 2:
                stopped = epoch
                break
    model.load_state_dict(best_state)
    vec = utils.parameters_to_vector(model.parameters())
    other = _mlp(torch, device, 1853)
    utils.vector_to_parameters(vec, other.parameters())
    (F.cross_entropy(model(x), y) * 10).backward()
    inf_norm = utils.clip_grad_norm_(model.parameters(), 1.0, norm_type="inf").item()
    utils.clip_grad_value_(model.parameters(), 0.01)
    grads_max = max(p.grad.abs().max().item() for p in model.parameters())
    model.zero_grad()
    model[0].weight.grad = torch.full_like(model[0].weight, float("nan"))
    errs = cases(torch, {"nonfinite": lambda: utils.clip_grad_norm_(model.parameters(), 1.0,
                                                                    error_if_nonfinite=True)})
    none_grads = utils.clip_grad_norm_([p for p in model.parameters() if p.grad is None], 1.0)
    return {"norms": norms[:8], "val": val_losses, "stopped": stopped, "best": best, "vec": [vec.numel(),
                                                                                            vec.sum().item()],
            "same": bool(torch.equal(other(x), model(x))), "inf_norm": inf_norm, "grads_max": grads_max,
            "errors": errs, "none": plain(torch, none_grads)}


# ---- learning-rate schedules as curves (OneCycle, Cyclic, warm restarts, polynomial, chained, multiplicative) -----
def lr_schedule_curves(torch, device):
    p = torch.nn.Parameter(torch.zeros(1, device=device))
    S = torch.optim.lr_scheduler

    def curve(make, steps=12, opt_cls=None, **opt_kw):
        opt = (opt_cls or torch.optim.SGD)([p], **({"lr": 0.1, "momentum": 0.9} | opt_kw))
        sched = make(opt)
        lrs = []
        for _ in range(steps):
            opt.step()
            sched.step()
            lrs.append(round(opt.param_groups[0]["lr"], 10))
        return lrs

    out = {
        "onecycle": curve(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=13)),
        "onecycle_linear": curve(lambda o: S.OneCycleLR(o, max_lr=1.0, epochs=2, steps_per_epoch=7,
                                                        anneal_strategy="linear", three_phase=True)),
        "cyclic": curve(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2")),
        "cyclic_exp": curve(lambda o: S.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9)),
        "restarts": curve(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01)),
        "poly": curve(lambda o: S.PolynomialLR(o, total_iters=8, power=2.0)),
        "chained": curve(lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.5, total_iters=4),
                                                       S.ExponentialLR(o, gamma=0.9)])),
        "multiplicative": curve(lambda o: S.MultiplicativeLR(o, lambda e: 0.95)),
        "multistep": curve(lambda o: S.MultiStepLR(o, milestones=[3, 7], gamma=0.3)),
    }
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    one = S.OneCycleLR(opt, max_lr=1.0, total_steps=5)
    moms = []
    for _ in range(4):
        opt.step()
        one.step()
        moms.append(round(opt.param_groups[0]["momentum"], 10))
    out["momentum"] = moms
    adam = torch.optim.Adam([p], lr=0.1)
    S.OneCycleLR(adam, max_lr=1.0, total_steps=5)
    out["adam_betas"] = list(adam.param_groups[0]["betas"])
    out["initial_lr"] = adam.param_groups[0]["initial_lr"]
    out["errors"] = cases(torch, {
        "onecycle_over": lambda: curve(lambda o: S.OneCycleLR(o, max_lr=1.0, total_steps=3), steps=5),
        "onecycle_args": lambda: S.OneCycleLR(torch.optim.SGD([p], lr=0.1), max_lr=1.0),
        "cyclic_adam": lambda: type(S.CyclicLR(torch.optim.Adam([p]), 0.01, 0.1)).__name__,
        "restart_t0": lambda: S.CosineAnnealingWarmRestarts(torch.optim.SGD([p], lr=0.1), T_0=0)})
    return out


# ---- max-norm constraints in reduced precision: renorm_ of float16/bfloat16 weights, embedding max_norm ----------
def max_norm_constraints(torch, device):
    rng = np.random.default_rng(1860)
    w = torch.tensor(rng.standard_normal((6, 5)) * 3, dtype=torch.float32, device=device)
    out = {}
    for dtype in ("float16", "bfloat16", "float32"):
        t = w.to(getattr(torch, dtype))
        out[dtype] = plain(torch, [t.renorm(2, 0, 1.5), t.renorm(1, 1, 4.0), t.renorm(float("inf"), 0, 2.0)])
        t2 = t.clone()
        t2.renorm_(2, 0, 2.5)
        out[dtype + "_inplace"] = t2.float().norm(dim=1).tolist()
    layer = torch.nn.Linear(5, 6).to(device).half()
    with torch.no_grad():
        layer.weight.copy_(w.half())
        layer.weight.renorm_(2, 0, 1.0)
    out["layer_norms"] = layer.weight.float().norm(dim=1).tolist()
    emb = torch.nn.Embedding(6, 5, max_norm=1.0).to(device)
    with torch.no_grad():
        emb.weight.copy_(w)
    looked = emb(torch.tensor([0, 2, 2, 5], device=device))
    out["embedding"] = [looked.norm(dim=1).tolist(), emb.weight.norm(dim=1).tolist()]
    out["errors"] = cases(torch, {"int": lambda: torch.ones(2, 2, dtype=torch.long).renorm(2, 0, 1),
                                  "p0": lambda: w.renorm(0, 0, 1.0), "1d": lambda: w[0].renorm(2, 0, 1.0)})
    return out


# ---- loss heads of a tagging model: label-smoothed weighted cross entropy with ignore_index, multilabel margins,
#      CTC over frames, and what each refuses (16-bit CTC, byte targets with smoothing weights) -----------------------
def loss_heads(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1870)
    logits = torch.tensor(rng.standard_normal((8, 5)), dtype=torch.float32, device=device, requires_grad=True)
    labels = torch.tensor(rng.integers(0, 5, 8), device=device)
    weight = torch.tensor([1.0, 2.0, 0.5, 1.5, 1.0], device=device)
    ce = F.cross_entropy(logits, labels, weight=weight, ignore_index=2, label_smoothing=0.1)
    ce.backward()
    multi_t = torch.tensor([[0, 3, -1, 0, 0]] * 4 + [[1, -1, 0, 0, 0]] * 4, device=device)
    mlm = F.multilabel_margin_loss(logits.detach(), multi_t, reduction="none")
    frames = torch.tensor(rng.standard_normal((10, 2, 5)), dtype=torch.float64, device=device).log_softmax(2)
    targets = torch.tensor([[1, 2, 2], [3, 4, 0]], device=device)
    ctc = F.ctc_loss(frames, targets, torch.tensor([10, 8]), torch.tensor([3, 2]), reduction="none")
    ctc_sum = F.ctc_loss(frames, targets, torch.tensor([10, 8]), torch.tensor([3, 2]), reduction="sum",
                         zero_infinity=True)
    return {"ce": ce.item(), "grad": logits.grad.sum(0).tolist(), "mlm": mlm.tolist(), "ctc": ctc.tolist(),
            "ctc_sum": ctc_sum.item(),
            "errors": cases(torch, {
                "ctc_half": lambda: _refusal(lambda: F.ctc_loss(frames.half(), targets, torch.tensor([10, 8]),
                                                               torch.tensor([3, 2]))),
                "ctc_bf16": lambda: _refusal(lambda: F.ctc_loss(frames.bfloat16(), targets, torch.tensor([10, 8]),
                                                               torch.tensor([3, 2]))),
                "byte_labels": lambda: F.cross_entropy(logits.detach(), labels.to(torch.uint8), weight=weight,
                                                       label_smoothing=0.1),
                "int_labels": lambda: F.cross_entropy(logits.detach(), labels.int(), weight=weight,
                                                      label_smoothing=0.1)})}


# ---- gated and normalised blocks as older architectures build them: a GLU-gated 1-d conv in float16 and bfloat16
#      (forward and backward), PReLU, RMSNorm, AlexNet's local response norm, and the layers' dtype refusals --------
def gated_blocks(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(1880)
    out = {}
    for dtype in ("float16", "bfloat16"):
        x = torch.tensor(rng.standard_normal((2, 8, 7)), dtype=getattr(torch, dtype), device=device,
                         requires_grad=True)
        h = F.glu(x, dim=1)
        h.float().pow(2).mean().backward()
        out[dtype] = plain(torch, [h, x.grad, nn.GLU(-2)(x.detach())])
    img = torch.tensor(rng.standard_normal((2, 6, 5, 5)), dtype=torch.float32, device=device, requires_grad=True)
    lrn = nn.LocalResponseNorm(3, alpha=1e-2, beta=0.75, k=2.0)
    act = nn.PReLU(6, init=0.2).to(device)
    y = act(lrn(img))
    y.sum().backward()
    rms = nn.RMSNorm(5, eps=1e-6).to(device)
    out["lrn_prelu"] = [y.sum().item(), img.grad.abs().sum().item(), act.weight.grad.tolist()]
    out["rms"] = rms(img.detach()).std().item()
    out["lrn_1d"] = lrn(img.detach()[:, :, 0]).sum().item()
    ints = torch.tensor(rng.integers(-3, 4, (2, 6, 5)), device=device)
    out["errors"] = cases(torch, {
        "prelu_int": lambda: _refusal(lambda: F.prelu(ints, torch.ones(6, dtype=ints.dtype, device=device))),
        "rms_int": lambda: F.rms_norm(ints, [5]), "lrn_long": lambda: F.local_response_norm(ints, 3),
        "lrn_int": lambda: F.local_response_norm(ints.int().unsqueeze(3), 3),
        "relu6_bool": lambda: F.relu6(ints > 0), "softshrink_int": lambda: F.softshrink(ints),
        "prelu_mixed": lambda: F.prelu(ints, torch.ones(6, device=device)),
        "pool3d_int": lambda: _refusal(lambda: F.adaptive_avg_pool3d(ints.unsqueeze(0).unsqueeze(0), 2))})
    return out


# ---- pure 16-bit training (no float32 master weights): AdamW, Adam with amsgrad and SGD+momentum stepping bfloat16
#      and float16 parameters from given gradients (GEMM rounding kept out: the gradients come from NumPy) -----------
def pure_half_training(torch, device):
    out = {}
    rng = np.random.default_rng(1890)
    init = rng.standard_normal(1024)
    grads = rng.standard_normal((4, 1024)) * np.array([1.0, 0.5, 2.0, 0.25])[:, None]
    for dtype, opt_name, kwargs in (("bfloat16", "AdamW", {"lr": 1e-2, "weight_decay": 0.05}),
                                    ("float16", "Adam", {"lr": 1e-2, "amsgrad": True, "eps": 1e-4}),
                                    ("bfloat16", "SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}),
                                    ("float16", "SGD", {"lr": 0.05, "momentum": 0.9, "weight_decay": 1e-3})):
        p = torch.nn.Parameter(torch.tensor(init, device=device).to(getattr(torch, dtype)))
        opt = getattr(torch.optim, opt_name)([p], **kwargs)
        for g in grads:
            p.grad = torch.tensor(g, device=device).to(p.dtype)
            opt.step()
        state = opt.state[p]
        out[f"{dtype}_{opt_name}"] = {
            "p": p.detach().float()[::16].tolist(), "sum": p.detach().double().sum().item(),
            "state": sorted((k, str(v.dtype).split(".")[-1]) for k, v in state.items())}
    return out


PROGRAMS = [feature_extraction, param_groups, resume_from_checkpoint, ema_foreach, func_ensembles,
            accumulation_and_early_stopping, lr_schedule_curves, max_norm_constraints,
            loss_heads, gated_blocks, pure_half_training]
NEEDS_CPP = {}
