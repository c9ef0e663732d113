"""Sweep 20 programs, training-loop infrastructure as Lightning/Accelerate-free scripts write it: gradient
accumulation with loss scaling and a CPU GradScaler, early stopping that keeps copy.deepcopy(state_dict) of the best
epoch, a mid-training checkpoint through torch.save/torch.load on io.BytesIO that resumes with identical results,
scheduler combinations (SequentialLR of warm-up and cosine restarts, ChainedScheduler, OneCycleLR with three phases,
ReduceLROnPlateau with cooldown and min_lr per group), add_param_group during training (unfreezing a backbone), what schedulers, scalers and optimizers refuse, and a
bfloat16 CPU autocast loop over LayerNorm blocks.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep20.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy
import io

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _model(torch, seed, device):
    nn = torch.nn
    return _fill(torch, nn.Sequential(nn.Linear(5, 12), nn.LayerNorm(12), nn.GELU(), nn.Linear(12, 1)),
                 seed).to(device)


# ---- gradient accumulation with loss scaling and a GradScaler ---------------------------------------------------------
def accumulation_with_grad_scaler(torch, device):
    F = torch.nn.functional
    x = _randn(torch, 2400, 24, 5, device=device)
    y = _randn(torch, 2401, 24, 1, device=device)
    results = {}
    for accum in (1, 3):
        model = _model(torch, 2402, device)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8, growth_interval=2)
        log = []
        micro = 24 // 3
        for step in range(3):
            opt.zero_grad(set_to_none=True)
            if accum == 1:
                loss = F.mse_loss(model(x), y)
                scaler.scale(loss).backward()
            else:
                total = 0.0
                for k in range(accum):
                    xs, ys = x[k * micro:(k + 1) * micro], y[k * micro:(k + 1) * micro]
                    loss = F.mse_loss(model(xs), ys) / accum
                    scaler.scale(loss).backward()
                    total += loss.item()
                loss = torch.tensor(total)
            scaler.unscale_(opt)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(opt)
            scaler.update()
            log.append([_r(loss, 5), _r(norm, 4), scaler.get_scale()])
        results[accum] = log
    # an inf gradient skips the step and halves the scale
    model = _model(torch, 2403, device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    before = model[0].weight.detach().clone()
    loss = model(x).sum() * float("inf")
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    sd = scaler.state_dict()
    same_losses = all(abs(a[0] - b[0]) < 1e-4 for a, b in zip(results[1], results[3]))
    return {"log1": results[1], "log3": results[3], "same_losses": same_losses,
            "skipped": bool(torch.equal(before, model[0].weight.detach())), "scale": scaler.get_scale(),
            "sd": sorted(sd), "growth": [sd["growth_factor"], sd["backoff_factor"], sd["_growth_tracker"]],
            "enabled": scaler.is_enabled()}


# ---- early stopping with a deep-copied best state ---------------------------------------------------------------------
def early_stopping_best_state(torch, device):
    F = torch.nn.functional
    model = _model(torch, 2410, device)
    opt = torch.optim.Adam(model.parameters(), lr=0.05)
    x = _randn(torch, 2411, 32, 5, device=device)
    y = (x[:, :1] * 2 - x[:, 1:2]).detach()
    xv = _randn(torch, 2412, 16, 5, device=device)
    yv = (xv[:, :1] * 2 - xv[:, 1:2]).detach() + 0.5 * _randn(torch, 2413, 16, 1, device=device)
    best, best_state, best_epoch, patience, bad = float("inf"), None, -1, 3, 0
    history = []
    for epoch in range(30):
        model.train()
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        model.eval()
        with torch.no_grad():
            val = F.mse_loss(model(xv), yv).item()
        history.append(round(val, 4))
        if val < best - 1e-4:
            best, best_epoch, bad = val, epoch, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            bad += 1
            if bad >= patience:
                break
    last_w = model[0].weight.detach().clone()
    model.load_state_dict(best_state)
    with torch.no_grad():
        restored = F.mse_loss(model(xv), yv).item()
    independent = not torch.equal(best_state["0.weight"], last_w)
    return {"history": history, "best_epoch": best_epoch, "stopped": len(history), "restored": _r(restored, 4),
            "best": _r(best, 4), "independent": independent,
            "devices": sorted({v.device == torch.device(device) or str(v.device) == device + ":0"
                               for v in best_state.values()}),
            "keys": list(best_state)[:4]}


# ---- checkpoint mid-training through BytesIO and resume identically ---------------------------------------------------
def resume_from_bytesio(torch, device):
    F = torch.nn.functional
    x = _randn(torch, 2420, 20, 5, device=device)
    y = _randn(torch, 2421, 20, 1, device=device)

    def build():
        model = _model(torch, 2422, device)
        opt = torch.optim.Adam([{"params": model[0].parameters(), "lr": 1e-2},
                                {"params": list(model[1].parameters()) + list(model[3].parameters())}],
                               lr=5e-3, amsgrad=True)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[2e-2, 1e-2], total_steps=10, pct_start=0.3)
        return model, opt, sched

    def train(model, opt, sched, steps):
        out = []
        for _ in range(steps):
            opt.zero_grad()
            loss = F.smooth_l1_loss(model(x), y, beta=0.5)
            loss.backward()
            opt.step()
            sched.step()
            out.append(_r(loss, 6))
        return out

    model, opt, sched = build()
    straight = train(model, opt, sched, 8)
    final_straight = model[3].weight.detach().clone()
    model, opt, sched = build()
    first = train(model, opt, sched, 4)
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": 4}, buf)
    size_ok = buf.tell() > 0
    buf.seek(0)
    ckpt = torch.load(buf, map_location=device, weights_only=True)
    model2, opt2, sched2 = build()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["opt"])
    sched2.load_state_dict(ckpt["sched"])
    first_step_device = str(opt.state_dict()["state"][0]["step"].device)
    second = train(model2, opt2, sched2, 4)
    state = opt2.state_dict()["state"][0]
    return {"straight": straight, "resumed": first + second, "size_ok": size_ok,
            "same": bool(torch.allclose(final_straight, model2[3].weight, atol=1e-6)),
            "lrs": [_r(g["lr"], 7) for g in opt2.param_groups], "state_keys": sorted(state),
            "step": [str(state["step"].dtype), state["step"].item(), first_step_device,
                     state["step"].device.type == torch.device(device).type],
            "sched_keys": sorted(ckpt["sched"])[:6], "momentum": [_r(g["betas"][0], 6) for g in opt2.param_groups]}


# ---- scheduler combinations ------------------------------------------------------------------------------------------
def scheduler_combinations(torch, device):
    S = torch.optim.lr_scheduler
    w = torch.zeros(2, device=device, requires_grad=True)

    def opt(lr=0.1, **kw):
        return torch.optim.SGD([w], lr=lr, momentum=0.9, **kw)

    def run(o, s, n, metric=None):
        out = []
        for i in range(n):
            o.step()
            if metric is None:
                s.step()
            else:
                s.step(metric[i])
            out.append(round(o.param_groups[0]["lr"], 7))
        return out

    o1 = opt()
    seq = S.SequentialLR(o1, [S.LinearLR(o1, start_factor=0.1, total_iters=3),
                              S.CosineAnnealingWarmRestarts(o1, T_0=3, T_mult=2, eta_min=0.01)], milestones=[3])
    o2 = opt()
    chained = S.ChainedScheduler([S.ExponentialLR(o2, 0.9), S.MultiStepLR(o2, [2, 4], gamma=0.5)])
    o3 = opt()
    cyc = S.OneCycleLR(o3, max_lr=1.0, total_steps=9, three_phase=True, anneal_strategy="linear",
                       div_factor=10.0, final_div_factor=100.0)
    o4 = torch.optim.SGD([{"params": [w]}, {"params": [torch.zeros(1, device=device, requires_grad=True)],
                                            "lr": 0.5}], lr=0.1)
    plateau = S.ReduceLROnPlateau(o4, mode="max", factor=0.5, patience=1, cooldown=1, min_lr=[0.02, 0.2],
                                  threshold=0.01, threshold_mode="abs")
    metrics = [0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]
    plat = []
    for m in metrics:
        o4.step()
        plateau.step(m)
        plat.append([round(g["lr"], 6) for g in o4.param_groups])
    o5 = opt()
    cyclic = S.CyclicLR(o5, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2")
    o6 = opt()
    lam = S.LambdaLR(o6, lr_lambda=lambda e: 0.5 ** (e // 2))
    run(o6, lam, 3)
    lam_sd = lam.state_dict()
    o7 = opt()
    poly = S.PolynomialLR(o7, total_iters=4, power=2.0)
    return {"seq": run(o1, seq, 10), "chained": run(o2, chained, 6), "onecycle": run(o3, cyc, 9),
            "plateau": plat, "cyclic": run(o5, cyclic, 8), "cyclic_momentum": round(o5.param_groups[0]["momentum"], 6),
            "lambda_sd": sorted(lam_sd), "poly": run(o7, poly, 5),
            "last_lr": [round(v, 7) for v in seq.get_last_lr()], "onecycle_mom": round(o3.param_groups[0]["momentum"],
                                                                                      6)}


# ---- add_param_group: unfreezing a backbone mid-training --------------------------------------------------------------
def unfreeze_with_add_param_group(torch, device):
    nn, F = torch.nn, torch.nn.functional
    backbone = _fill(torch, nn.Sequential(nn.Linear(5, 8), nn.ReLU()), 2440).to(device)
    head = _fill(torch, nn.Linear(8, 3), 2441).to(device)
    for p in backbone.parameters():
        p.requires_grad_(False)
    opt = torch.optim.Adam(head.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    x = _randn(torch, 2442, 16, 5, device=device)
    t = torch.tensor([i % 3 for i in range(16)], device=device)
    log = []
    errors = []
    for epoch in range(6):
        if epoch == 3:
            for p in backbone.parameters():
                p.requires_grad_(True)
            opt.add_param_group({"params": backbone.parameters(), "lr": 1e-3, "weight_decay": 1e-4})
            try:
                opt.add_param_group({"params": list(head.parameters())})
            except ValueError as exc:
                errors.append(str(exc))
            try:
                opt.add_param_group({"params": torch.zeros(2, device=device)})
            except Exception as exc:
                errors.append([type(exc).__name__, str(exc)])
        opt.zero_grad()
        loss = F.cross_entropy(head(backbone(x)), t)
        loss.backward()
        opt.step()
        sched.step()
        log.append([_r(loss, 5), [round(g["lr"], 7) for g in opt.param_groups]])
    groups = [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]
    sd = opt.state_dict()
    return {"log": log, "errors": errors, "group_keys": [sorted(g) for g in groups],
            "wd": [g["weight_decay"] for g in groups], "initial_lr": [g.get("initial_lr") for g in groups],
            "sd_params": [g["params"] for g in sd["param_groups"]], "n_state": len(sd["state"])}


PROGRAMS = [accumulation_with_grad_scaler, early_stopping_best_state, resume_from_bytesio, scheduler_combinations,
            unfreeze_with_add_param_group]
NEEDS_CPP = {}


# ---- what schedulers, scalers and optimizers refuse -------------------------------------------------------------------
def training_refusals(torch, device):
    import warnings
    from sweep15_common import cases
    S = torch.optim.lr_scheduler
    w = torch.zeros(2, device=device, requires_grad=True)
    v = torch.zeros(3, device=device, requires_grad=True)

    def sgd(*params, **kw):
        return torch.optim.SGD(list(params) or [w], lr=0.1, **kw)

    def onecycle_overrun():
        o = sgd()
        s = S.OneCycleLR(o, max_lr=0.5, total_steps=3)
        for _ in range(4):
            o.step()
            s.step()

    def unscale_twice():
        o = sgd()
        scaler = torch.amp.GradScaler("cpu")
        w.grad = torch.ones_like(w)
        scaler.unscale_(o)
        scaler.unscale_(o)

    def step_order_warning():
        o = sgd()
        s = S.StepLR(o, 1)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            s.step()
        return [str(m.message).split(".")[0] for m in rec]

    def load_groups():
        a = sgd(w)
        b = torch.optim.SGD([{"params": [w]}, {"params": [v]}], lr=0.1)
        a.load_state_dict(b.state_dict())

    def load_sizes():
        a = sgd(w)
        b = sgd(v, w)
        a.load_state_dict(b.state_dict())

    def plateau_before_step():
        o = sgd()
        s = S.ReduceLROnPlateau(o, patience=0)
        s.step(1.0)
        s.step(2.0)
        return [round(o.param_groups[0]["lr"], 6), s.get_last_lr(), s.num_bad_epochs]

    def chained_different_optimizers():
        return S.ChainedScheduler([S.StepLR(sgd(), 1), S.StepLR(sgd(), 1)])

    def sequential_different_optimizers():
        o1, o2 = sgd(), sgd()
        return S.SequentialLR(o1, [S.StepLR(o1, 1), S.StepLR(o2, 1)], milestones=[1])

    table = {
        "onecycle_overrun": onecycle_overrun,
        "onecycle_no_steps": lambda: S.OneCycleLR(sgd(), max_lr=0.1),
        "onecycle_bad_pct": lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=5, pct_start=1.5),
        "onecycle_bad_strategy": lambda: S.OneCycleLR(sgd(), max_lr=0.1, total_steps=5, anneal_strategy="cubic"),
        "sequential_milestones": lambda: S.SequentialLR(sgd(), [S.StepLR(sgd(), 1)], milestones=[1]),
        "sequential_other_opt": lambda: type(sequential_different_optimizers()).__name__,
        "chained_other_opt": lambda: type(chained_different_optimizers()).__name__,
        "plateau_mode": lambda: S.ReduceLROnPlateau(sgd(), mode="up"),
        "plateau_factor": lambda: S.ReduceLROnPlateau(sgd(), factor=1.5),
        "plateau_min_lr_len": lambda: S.ReduceLROnPlateau(sgd(), min_lr=[0.1, 0.2]),
        "plateau_threshold_mode": lambda: S.ReduceLROnPlateau(sgd(), threshold_mode="pct"),
        "plateau_steps": plateau_before_step,
        "warm_restarts_t0": lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=0),
        "warm_restarts_tmult": lambda: S.CosineAnnealingWarmRestarts(sgd(), T_0=2, T_mult=1.5),
        "linear_bad_start": lambda: S.LinearLR(sgd(), start_factor=0.0),
        "lambda_count": lambda: S.LambdaLR(sgd(), [lambda e: 1.0, lambda e: 2.0]),
        "not_optimizer": lambda: S.StepLR([w], 1),
        "initial_lr_missing": lambda: S.StepLR(sgd(), 1, last_epoch=3),
        "unscale_twice": unscale_twice,
        "step_order": step_order_warning,
        "load_groups": load_groups,
        "load_sizes": load_sizes,
        "sgd_negative_lr": lambda: torch.optim.SGD([w], lr=-1.0),
        "adam_betas": lambda: torch.optim.Adam([w], betas=(1.0, 0.9)),
        "adam_eps": lambda: torch.optim.Adam([w], eps=-1e-8),
        "nesterov": lambda: torch.optim.SGD([w], lr=0.1, nesterov=True),
        "empty_params": lambda: torch.optim.Adam([]),
        "dict_params": lambda: torch.optim.Adam({"w": w}),
        "non_leaf": lambda: torch.optim.Adam([w * 2]),
        "duplicate": lambda: type(torch.optim.SGD([w, w], lr=0.1)).__name__,
        "scaler_disabled_cpu_scale": lambda: torch.amp.GradScaler("cpu", enabled=False).scale(torch.tensor(2.0)).item(),
        "scaler_bad_device": lambda: torch.amp.GradScaler("nope")._device,
        "zero_grad_none": lambda: [sgd().zero_grad(), w.grad][1],
    }
    return cases(torch, table)


PROGRAMS.append(training_refusals)


# ---- bfloat16 autocast on the CPU with LayerNorm blocks and a GradScaler ----------------------------------------------
def cpu_bfloat16_autocast_loop(torch, device):
    nn, F = torch.nn, torch.nn.functional
    if device != "cpu":  # PyTorch's CPU autocast; the program runs on the CPU for every device
        device = "cpu"
    model = _fill(torch, nn.Sequential(nn.Linear(5, 16), nn.LayerNorm(16), nn.GELU(), nn.Linear(16, 16),
                                       nn.LayerNorm(16), nn.Linear(16, 3)), 2460)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 6)
    x = _randn(torch, 2461, 12, 5)
    t = torch.tensor([i % 3 for i in range(12)])
    log = []
    for _ in range(4):
        opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = model[1](model[0](x))
            logits = model[2:](h)
            loss = F.cross_entropy(logits, t)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        log.append([str(h.dtype), str(logits.dtype), str(loss.dtype), _r(loss, 2)])  # 16-bit steps
    grads = [str(p.grad.dtype) for p in model.parameters()]
    return {"log": log, "grads": sorted(set(grads)), "h": _r(h.float()[:2], 2), "scale": scaler.get_scale()}


PROGRAMS.append(cpu_bfloat16_autocast_loop)
