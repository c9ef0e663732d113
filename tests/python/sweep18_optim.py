"""Sweep 18 programs, optimisers by hand: Adam, AdamW and RMSprop written with p.data ops under torch.no_grad against
torch.optim's, sharpness-aware minimisation (two forward passes) as an Optimizer subclass wrapping a base optimiser,
Lookahead over an inner optimiser with state_dict round trips, a custom Optimizer subclass (defaults, param_groups,
state, add_param_group, hooks, named parameters, state_dict/load_state_dict), and learning-rate range tests and
schedules (LambdaLR, OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts, SequentialLR, a custom LRScheduler)."""
import collections
import math

import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill


def _data(torch, seed, n, d, device):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((n, d)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.standard_normal((n, 1)), dtype=torch.float32, device=device)
    return x, y


def _net(torch, seed, device):
    nn = torch.nn
    return _fill(torch, nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)), seed).to(device)


# ---- Adam, AdamW and RMSprop by hand (p.data ops, no_grad) against torch.optim ---------------------------------------
def manual_optimisers(torch, device):
    F = torch.nn.functional
    x, y = _data(torch, 2000, 16, 4, device)

    def run(step_fn, make_opt, steps=5):
        net = _net(torch, 2001, device)
        state = {}
        opt = make_opt(net.parameters()) if make_opt else None
        losses = []
        for t in range(1, steps + 1):
            net.zero_grad()
            loss = F.mse_loss(net(x), y)
            loss.backward()
            losses.append(loss.item())
            if opt is not None:
                opt.step()
            else:
                with torch.no_grad():
                    for i, p in enumerate(net.parameters()):
                        step_fn(p, state.setdefault(i, {}), t)
        return losses, [p.detach().clone() for p in net.parameters()]

    lr, b1, b2, eps, wd = 0.01, 0.9, 0.999, 1e-8, 0.05

    def adam(p, s, t, decoupled=False):
        g = p.grad
        if decoupled:
            p.mul_(1 - lr * wd)
        if "m" not in s:
            s["m"], s["v"] = torch.zeros_like(p), torch.zeros_like(p)
        s["m"].lerp_(g, 1 - b1)
        s["v"].mul_(b2).addcmul_(g, g, value=1 - b2)
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        denom = (s["v"].sqrt() / math.sqrt(bc2)).add_(eps)
        p.addcdiv_(s["m"], denom, value=-lr / bc1)

    def rmsprop(p, s, t, alpha=0.99, momentum=0.5, centered=True):
        g = p.grad
        if "sq" not in s:
            s["sq"], s["buf"], s["avg"] = torch.zeros_like(p), torch.zeros_like(p), torch.zeros_like(p)
        s["sq"].mul_(alpha).addcmul_(g, g, value=1 - alpha)
        s["avg"].lerp_(g, 1 - alpha)
        avg = s["sq"].addcmul(s["avg"], s["avg"], value=-1).sqrt_().add_(eps)
        s["buf"].mul_(momentum).addcdiv_(g, avg)
        p.add_(s["buf"], alpha=-lr)

    results = {}
    for name, fn, make in [
        ("adam", adam, lambda ps: torch.optim.Adam(ps, lr=lr, betas=(b1, b2), eps=eps)),
        ("adamw", lambda p, s, t: adam(p, s, t, True),
         lambda ps: torch.optim.AdamW(ps, lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)),
        ("rmsprop", rmsprop, lambda ps: torch.optim.RMSprop(ps, lr=lr, alpha=0.99, eps=eps, momentum=0.5,
                                                            centered=True)),
    ]:
        mine, mine_p = run(fn, None)
        ref, ref_p = run(None, make)
        results[name] = [mine, max((a - b).abs().max().item() for a, b in zip(mine_p, ref_p)) < 1e-5,
                         plain(torch, mine_p[-1])]
    return results


# ---- Lookahead: k fast steps of an inner optimiser, then the slow weights move by alpha ------------------------------
def lookahead(torch, device):
    F = torch.nn.functional

    class Lookahead(torch.optim.Optimizer):
        def __init__(self, base, k=3, alpha=0.5):
            self.base = base
            self.k, self.alpha = k, alpha
            self.defaults = base.defaults
            self.param_groups = base.param_groups
            self.state = base.state
            self._counter = 0
            # Optimizer.__init__ is skipped (the groups are the inner optimiser's): its hook tables, as timm's
            self._optimizer_step_pre_hooks = collections.OrderedDict()
            self._optimizer_step_post_hooks = collections.OrderedDict()
            self.slow = [[p.detach().clone() for p in g["params"]] for g in self.param_groups]

        def step(self, closure=None):
            loss = self.base.step(closure)
            self._counter += 1
            if self._counter % self.k == 0:
                with torch.no_grad():
                    for group, slow in zip(self.param_groups, self.slow):
                        for p, s in zip(group["params"], slow):
                            s.add_(p - s, alpha=self.alpha)
                            p.copy_(s)
            return loss

        def state_dict(self):
            return {"base": self.base.state_dict(), "slow": [[s.clone() for s in g] for g in self.slow],
                    "counter": self._counter}

        def load_state_dict(self, sd):
            self.base.load_state_dict(sd["base"])
            self.slow = [[s.clone() for s in g] for g in sd["slow"]]
            self._counter = sd["counter"]

    x, y = _data(torch, 2020, 24, 4, device)

    def train(steps, opt, net):
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = F.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    net = _net(torch, 2021, device)
    opt = Lookahead(torch.optim.Adam([{"params": net[0].parameters()}, {"params": net[2].parameters(), "lr": 0.005}],
                                     lr=0.02), k=3, alpha=0.5)
    first = train(4, opt, net)
    saved = opt.state_dict()
    saved_params = {k: v.clone() for k, v in net.state_dict().items()}
    rest = train(4, opt, net)
    net2 = _net(torch, 2021, device)
    net2.load_state_dict(saved_params)
    opt2 = Lookahead(torch.optim.Adam([{"params": net2[0].parameters()}, {"params": net2[2].parameters(),
                                                                           "lr": 0.005}], lr=0.02), k=3, alpha=0.5)
    opt2.load_state_dict(saved)
    resumed = train(4, opt2, net2)
    base_sd = saved["base"]
    return {"first": first, "rest": rest, "resumed_same": np.allclose(rest, resumed, rtol=1e-6),
            "groups": [[g["lr"], g["params"]] for g in base_sd["param_groups"]],
            "state_keys": sorted(base_sd["state"]), "step": [float(base_sd["state"][0]["step"]),
                                                             str(base_sd["state"][0]["step"].dtype)],
            "slow": plain(torch, opt.slow[1][1]), "lr": [g["lr"] for g in opt.param_groups]}


# ---- a custom Optimizer subclass: defaults, per-group options, state, hooks, named parameters, state_dict round trip
def custom_optimizer(torch, device):
    F = torch.nn.functional

    class SignSGD(torch.optim.Optimizer):
        """Sign descent with momentum and decoupled weight decay."""

        def __init__(self, params, lr=0.01, momentum=0.9, weight_decay=0.0):
            if lr <= 0:
                raise ValueError(f"Invalid learning rate: {lr}")
            super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay))

        @torch.no_grad()
        def step(self, closure=None):
            loss = None
            if closure is not None:
                with torch.enable_grad():
                    loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if not state:
                        state["step"] = 0
                        state["momentum_buffer"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["step"] += 1
                    buf = state["momentum_buffer"]
                    buf.mul_(group["momentum"]).add_(p.grad)
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    p.add_(torch.sign(buf) * -group["lr"])
            return loss

    x, y = _data(torch, 2030, 12, 4, device)
    net = _net(torch, 2031, device)
    extra = torch.nn.Parameter(torch.zeros(3, device=device))
    opt = SignSGD([{"params": net[0].parameters(), "weight_decay": 0.1}, {"params": net[2].parameters()}], lr=0.05)
    opt.add_param_group({"params": [extra], "lr": 0.5, "momentum": 0.0})
    log = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", len(o.state))))
    post = opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", len(o.state))))
    losses = []
    for i in range(3):
        def closure():
            opt.zero_grad()
            loss = F.mse_loss(net(x), y) + extra.sum() * 0.1
            loss.backward()
            return loss
        losses.append(opt.step(closure).item())
        if i == 1:
            pre.remove()
    post.remove()
    sd = opt.state_dict()
    opt2 = SignSGD([{"params": net[0].parameters()}, {"params": net[2].parameters()}, {"params": [extra]}], lr=1.0)
    opt2.load_state_dict(sd)
    same = all(torch.equal(opt.state[p]["momentum_buffer"], opt2.state[p]["momentum_buffer"])
               for g in opt.param_groups for p in g["params"])
    opt.zero_grad(set_to_none=False)
    zeros = [p.grad is not None and bool((p.grad == 0).all()) for p in net.parameters()]
    opt.zero_grad()
    nones = [p.grad is None for p in net.parameters()]
    named = SignSGD(net.named_parameters(), lr=0.1)
    named_sd = named.state_dict()
    sd_hook_calls = []
    opt2.register_state_dict_pre_hook(lambda o: sd_hook_calls.append("pre"))
    opt2.register_state_dict_post_hook(lambda o, s: sd_hook_calls.append(sorted(s)))
    opt2.register_load_state_dict_pre_hook(lambda o, s: sd_hook_calls.append("load_pre"))
    opt2.load_state_dict(opt2.state_dict())
    return {"losses": losses, "log": log, "groups": [[g["lr"], g["momentum"], g["weight_decay"], len(g["params"])]
                                                     for g in sd["param_groups"]],
            "params_ids": [g["params"] for g in sd["param_groups"]],
            "state": [sd["state"][0]["step"], len(sd["state"])],
            "loaded": [g["lr"] for g in opt2.param_groups], "same": same, "zeros": zeros, "nones": nones,
            "named": [named_sd["param_groups"][0].get("param_names"), named_sd["param_groups"][0]["params"]],
            "hooks": sd_hook_calls, "repr": repr(opt).splitlines()[:4],
            "errors": cases(torch, {
                "lr": lambda: SignSGD(net.parameters(), lr=-1),
                "dup": lambda: opt.add_param_group({"params": [extra]}),
                "empty": lambda: SignSGD([], lr=0.1),
                "tensor": lambda: SignSGD(torch.nn.Parameter(torch.zeros(3)), lr=0.1),
                "groups_len": lambda: opt2.load_state_dict({"state": {}, "param_groups": sd["param_groups"][:1]}),
                "group_size": lambda: SignSGD([{"params": net[0].parameters()}, {"params": [extra]}]).load_state_dict(
                    {"state": {}, "param_groups": [sd["param_groups"][0],
                                                   sd["param_groups"][2] | {"params": [9, 10]}]}),
                "no_lr_default": lambda: torch.optim.SGD([{"params": [extra]}]).defaults["lr"],
                "set_default": lambda: opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))],
                                                            "lr": None}),
            })}


# ---- an LR range test with LambdaLR, then OneCycleLR, CyclicLR, warm restarts and a custom scheduler ----------------
def lr_schedules(torch, device):
    F = torch.nn.functional
    sched = torch.optim.lr_scheduler
    x, y = _data(torch, 2040, 32, 4, device)

    # the LR range test: exponential growth by LambdaLR, smoothed loss, stop when it diverges
    net = _net(torch, 2041, device)
    opt = torch.optim.SGD(net.parameters(), lr=1e-4, momentum=0.9)
    finder = sched.LambdaLR(opt, lambda it: 10 ** (it / 4))
    lrs, smooth, best, avg = [], [], float("inf"), 0.0
    for it in range(1, 20):
        opt.zero_grad()
        loss = F.mse_loss(net(x), y)
        loss.backward()
        opt.step()
        finder.step()
        avg = 0.7 * avg + 0.3 * loss.item()
        s = avg / (1 - 0.7 ** it)
        lrs.append(finder.get_last_lr()[0])
        smooth.append(s)
        best = min(best, s)
        if s > 4 * best or not math.isfinite(s):
            break

    def trace(make, steps, opt_kind="sgd", **step_kw):
        p = torch.nn.Parameter(torch.zeros(2, device=device))
        o = torch.optim.SGD([p], lr=0.1, momentum=0.9) if opt_kind == "sgd" else torch.optim.Adam([p], lr=0.1)
        s = make(o)
        out = []
        for _ in range(steps):
            o.step()
            s.step(**step_kw)
            g = o.param_groups[0]
            out.append([round(g["lr"], 10), round(g.get("momentum", g.get("betas", (0,))[0]), 10)])
        return out, s

    one_cycle, oc = trace(lambda o: sched.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=0.3,
                                                     anneal_strategy="linear", three_phase=True), 10)
    one_cycle_adam, _ = trace(lambda o: sched.OneCycleLR(o, max_lr=0.5, epochs=2, steps_per_epoch=4), 8, "adam")
    cyclic, cy = trace(lambda o: sched.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2, mode="triangular2"), 10)
    exp_range, _ = trace(lambda o: sched.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2,
                                                  mode="exp_range", gamma=0.9), 10)
    custom_scale, _ = trace(lambda o: sched.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda c: 1 / c,
                                                     scale_mode="cycle", cycle_momentum=False), 8)
    restarts = []
    p = torch.nn.Parameter(torch.zeros(1))
    o = torch.optim.SGD([p], lr=0.1)
    wr = sched.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.001)
    iters = 4
    for epoch in range(4):
        for i in range(iters):
            o.step()
            wr.step(epoch + i / iters)
            restarts.append(round(o.param_groups[0]["lr"], 10))

    class WarmupInverseSqrt(sched.LRScheduler):
        def __init__(self, optimizer, warmup, last_epoch=-1):
            self.warmup = warmup
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            step = max(self.last_epoch, 1)
            factor = min(step / self.warmup, math.sqrt(self.warmup / step))
            return [base * factor for base in self.base_lrs]

    inv, inv_s = trace(lambda o: WarmupInverseSqrt(o, 3), 6)
    seq, _ = trace(lambda o: sched.SequentialLR(o, [sched.LinearLR(o, start_factor=0.1, total_iters=3),
                                                   sched.PolynomialLR(o, total_iters=4, power=2.0)], milestones=[3]), 8)
    mult, _ = trace(lambda o: sched.MultiplicativeLR(o, lambda e: 0.9 if e % 2 else 1.0), 5)
    oc_sd = oc.state_dict()
    return {"range": [lrs, smooth], "one_cycle": one_cycle, "one_cycle_adam": one_cycle_adam, "cyclic": cyclic,
            "exp_range": exp_range, "custom_scale": custom_scale, "restarts": restarts, "inv": inv,
            "inv_last": inv_s.get_last_lr(), "seq": seq, "mult": mult,
            "oc_sd": sorted(k for k in oc_sd if not k.startswith("_")), "oc_total": oc_sd["total_steps"],
            "cy_sd": sorted(k for k in cy.state_dict() if not k.startswith("_")),
            "errors": cases(torch, {
                "oc_overstep": lambda: [oc.step() for _ in range(3)],
                "oc_no_total": lambda: sched.OneCycleLR(torch.optim.SGD([p], lr=0.1), max_lr=1.0),
                "oc_pct": lambda: sched.OneCycleLR(torch.optim.SGD([p], lr=0.1), max_lr=1.0, total_steps=5,
                                                   pct_start=1.5),
                "oc_strategy": lambda: sched.OneCycleLR(torch.optim.SGD([p], lr=0.1), max_lr=1.0, total_steps=5,
                                                        anneal_strategy="exp"),
                "cy_mode": lambda: sched.CyclicLR(torch.optim.SGD([p], lr=0.1), 0.01, 0.1, mode="square"),
                "cy_momentum": lambda: sched.CyclicLR(torch.optim.Adagrad([p], lr=0.1), 0.01, 0.1),
                "wr_t0": lambda: sched.CosineAnnealingWarmRestarts(o, T_0=0),
                "wr_tmult": lambda: sched.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=1.5),
                "wr_neg_epoch": lambda: wr.step(-1),
                "seq_milestones": lambda: sched.SequentialLR(o, [sched.ConstantLR(o)], milestones=[2]),
            })}


PROGRAMS = [manual_optimisers, lookahead, custom_optimizer, lr_schedules]  # SAM: sweep8_optim.sam_optimizer
NEEDS_CPP = {}


# ---- the less common optimisers side by side: Adafactor, NAdam/RAdam with decoupled decay, Adamax, ASGD, Rprop,
# ---- Adam with amsgrad and maximize, a tensor lr; their state_dict keys ----------------------------------------------
def optimiser_zoo(torch, device):
    F = torch.nn.functional
    x, y = _data(torch, 2050, 16, 4, device)
    optim = torch.optim
    makers = {
        "adafactor": lambda ps: optim.Adafactor(ps, lr=0.01, beta2_decay=-0.8, d=1.0, weight_decay=0.01),
        "adafactor_no_lr_scale": lambda ps: optim.Adafactor(ps, lr=0.02, maximize=False, eps=(None, 1e-3)),
        "nadam": lambda ps: optim.NAdam(ps, lr=0.01, momentum_decay=0.004, weight_decay=0.01,
                                        decoupled_weight_decay=True),
        "radam": lambda ps: optim.RAdam(ps, lr=0.01, weight_decay=0.01, decoupled_weight_decay=True),
        "adamax": lambda ps: optim.Adamax(ps, lr=0.02, weight_decay=0.01),
        "asgd": lambda ps: optim.ASGD(ps, lr=0.05, lambd=1e-3, alpha=0.75, t0=2),
        "rprop": lambda ps: optim.Rprop(ps, lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 0.5)),
        "amsgrad_max": lambda ps: optim.Adam(ps, lr=0.01, amsgrad=True, maximize=True),
        "tensor_lr": lambda ps: optim.AdamW(ps, lr=torch.tensor(0.01), weight_decay=0.1),
        "adagrad": lambda ps: optim.Adagrad(ps, lr=0.05, lr_decay=0.01, weight_decay=0.01),
        "adadelta": lambda ps: optim.Adadelta(ps, lr=1.0, rho=0.8, weight_decay=0.01),
        "sgd_nesterov": lambda ps: optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, dampening=0.0,
                                             weight_decay=1e-3),
    }
    out = {}
    for name, make in makers.items():
        net = _net(torch, 2051, device)
        opt = make(net.parameters())
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = F.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        state = opt.state_dict()["state"]
        out[name] = [losses, plain(torch, net[2].bias), sorted(state[0]) if state else [],
                     {k: str(v.dtype) if hasattr(v, "dtype") else type(v).__name__ for k, v in state[0].items()}]
    p = torch.nn.Parameter(torch.ones(2, device=device))
    out["errors"] = cases(torch, {
        "adafactor_lr": lambda: optim.Adafactor([p], lr=-1.0),
        "adafactor_beta2": lambda: optim.Adafactor([p], beta2_decay=0.5),
        "nadam_momentum_decay": lambda: optim.NAdam([p], momentum_decay=-1),
        "rprop_etas": lambda: optim.Rprop([p], etas=(1.5, 1.2)),
        "asgd_sparse": lambda: optim.Adam([p], betas=(1.0, 0.9)),
        "tensor_lr_shape": lambda: optim.Adam([p], lr=torch.ones(2)),
        "amsgrad_sparse": lambda: optim.Adadelta([p], rho=1.5),
    })
    return out


# ---- ReduceLROnPlateau in both modes, with cooldown, min_lr per group and eps; ChainedScheduler; resuming a schedule
def plateau_and_resume(torch, device):
    sched = torch.optim.lr_scheduler
    p = torch.nn.Parameter(torch.zeros(1, device=device))
    q = torch.nn.Parameter(torch.zeros(1, device=device))
    opt = torch.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=1.0, momentum=0.9)
    plateau = sched.ReduceLROnPlateau(opt, mode="max", factor=0.5, patience=1, threshold=0.1, threshold_mode="abs",
                                      cooldown=1, min_lr=[0.1, 0.2], eps=1e-3)
    metrics = [0.5, 0.55, 0.58, 0.59, 0.9, 0.91, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92]
    trace = []
    for m in metrics:
        opt.step()
        plateau.step(m)
        trace.append([g["lr"] for g in opt.param_groups] + [plateau.num_bad_epochs, plateau.cooldown_counter])
    sd = plateau.state_dict()
    opt2 = torch.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.5}], lr=1.0, momentum=0.9)
    plateau2 = sched.ReduceLROnPlateau(opt2, mode="max")
    plateau2.load_state_dict(sd)
    rel = sched.ReduceLROnPlateau(torch.optim.SGD([p], lr=1.0), mode="min", patience=0, threshold=0.01)
    rel_trace = []
    for m in [1.0, 0.995, 0.98, 0.98, 0.5]:
        rel.step(m)
        rel_trace.append(rel.get_last_lr())
    # ChainedScheduler and resuming a scheduler from a checkpoint (last_epoch with initial_lr in the groups)
    o = torch.optim.SGD([p], lr=1.0)
    chained = sched.ChainedScheduler([sched.ConstantLR(o, factor=0.5, total_iters=2),
                                      sched.ExponentialLR(o, gamma=0.9)], optimizer=o)
    chain_trace = []
    for _ in range(4):
        o.step()
        chained.step()
        chain_trace.append(round(o.param_groups[0]["lr"], 10))
    o_sd, s_sd = o.state_dict(), chained.state_dict()
    o3 = torch.optim.SGD([p], lr=1.0)
    o3.load_state_dict(o_sd)
    step = sched.StepLR(o3, step_size=2, gamma=0.1, last_epoch=3)
    o4 = torch.optim.SGD([p], lr=1.0)
    return {"trace": trace, "sd": sorted(sd), "loaded": [plateau2.mode, plateau2.min_lrs, plateau2.best],
            "rel": rel_trace, "chain": chain_trace, "chain_sd": sorted(s_sd), "resumed": [step.last_epoch,
                                                                                          step.get_last_lr()],
            "initial": [g.get("initial_lr") for g in o3.param_groups],
            "errors": cases(torch, {
                "no_initial_lr": lambda: sched.StepLR(o4, step_size=2, last_epoch=3),
                "plateau_mode": lambda: sched.ReduceLROnPlateau(o4, mode="avg"),
                "plateau_factor": lambda: sched.ReduceLROnPlateau(o4, factor=1.0),
                "plateau_min_lrs": lambda: sched.ReduceLROnPlateau(opt, min_lr=[0.1]),
                "plateau_threshold_mode": lambda: sched.ReduceLROnPlateau(o4, threshold_mode="pct"),
                "chained_mixed": lambda: sched.ChainedScheduler([sched.ConstantLR(o4), sched.ConstantLR(opt)]),
            })}


# ---- resuming in float64 from a float32 checkpoint saved with torch.save: the state follows the parameters' dtype ----
def resume_in_double(torch, device):
    import io
    optim = torch.optim
    makers = {"asgd": lambda ps: optim.ASGD(ps, lr=0.05, t0=2), "sgd": lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9),
              "rprop": lambda ps: optim.Rprop(ps, lr=0.05), "nadam": lambda ps: optim.NAdam(ps, lr=0.05),
              "adagrad": lambda ps: optim.Adagrad(ps, lr=0.1), "rmsprop": lambda ps: optim.RMSprop(ps, lr=0.01)}
    rng = np.random.default_rng(2070)
    init = rng.standard_normal(6)
    grads = [rng.standard_normal(6) for _ in range(6)]
    out = {}
    for name, make in makers.items():
        p = torch.nn.Parameter(torch.tensor(init, dtype=torch.float32))
        opt = make([p])
        for g in grads[:3]:
            p.grad = torch.tensor(g, dtype=torch.float32)
            opt.step()
        buf = io.BytesIO()
        torch.save({"param": p.detach(), "opt": opt.state_dict()}, buf)
        buf.seek(0)
        ckpt = torch.load(buf)
        q = torch.nn.Parameter(ckpt["param"].to(device=device, dtype=torch.float64))
        opt2 = make([q])
        opt2.load_state_dict(ckpt["opt"])
        # (a loaded step stays where it was saved, on the CPU; the other state moves to the parameter's device)
        loaded = {k: [str(v.dtype), v.device == q.device if k != "step" else v.device.type]
                  for k, v in opt2.state[q].items()}
        for g in grads[3:]:
            q.grad = torch.tensor(g, dtype=torch.float64, device=device)
            opt2.step()
        out[name] = [loaded, plain(torch, q)]
    return out


PROGRAMS += [optimiser_zoo, plateau_and_resume, resume_in_double]


# ---- checking a hand-written Adam against torch.optim.Adam's state, as users validate a re-implementation ------------
def adam_reference_check(torch, device):
    rng = np.random.default_rng(2060)
    init = rng.standard_normal(32)
    grads = [rng.standard_normal(32) for _ in range(4)]
    out = {}
    for name, kw in [("adam", {}), ("adam_l2", {"weight_decay": 0.1}), ("adamw", {"weight_decay": 0.1}),
                     ("amsgrad", {"amsgrad": True})]:
        lr, (b1, b2), eps, wd = 0.01, (0.9, 0.999), 1e-8, kw.get("weight_decay", 0.0)
        p = torch.nn.Parameter(torch.tensor(init, dtype=torch.float32, device=device))
        opt = (torch.optim.AdamW if name == "adamw" else torch.optim.Adam)([p], lr=lr, **kw)
        q = torch.tensor(init, dtype=torch.float32, device=device)
        m, v, vmax = torch.zeros_like(q), torch.zeros_like(q), torch.zeros_like(q)
        for t, g in enumerate(grads, 1):
            p.grad = torch.tensor(g, dtype=torch.float32, device=device)
            opt.step()
            with torch.no_grad():
                grad = torch.tensor(g, dtype=torch.float32, device=device)
                if name == "adamw":
                    q.mul_(1 - lr * wd)
                elif wd:
                    grad = grad.add(q, alpha=wd)
                m.lerp_(grad, 1 - b1)
                v.mul_(b2).addcmul_(grad, grad, value=1 - b2)
                second = torch.maximum(vmax, v, out=vmax) if name == "amsgrad" else v
                denom = (second.sqrt() / math.sqrt(1 - b2 ** t)).add_(eps)
                q.addcdiv_(m, denom, value=-lr / (1 - b1 ** t))
        state = opt.state[p]
        out[name] = [bool(torch.allclose(state["exp_avg_sq"], v)), bool(torch.allclose(state["exp_avg"], m)),
                     bool(torch.allclose(p.detach(), q)), plain(torch, state["exp_avg_sq"][:4] * 1e3)]
    return out


# Needed C++ until session 39: the fused Adam kernel computed 1 - beta in float32 (1 - 0.999f, 1.3e-5 relative off).
PROGRAMS += [adam_reference_check]
