"""Sweep 8 programs with the custom optimizers research repositories ship as torch.optim.Optimizer subclasses:
SAM (sharpness-aware minimisation, sharing param_groups with a base optimizer), Lookahead wrapping another
optimizer, Lion and a Muon-style Newton-Schulz orthogonalised momentum, LAMB with trust ratios, and their
state_dict round trips.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy
import io
from collections import defaultdict

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _problem(torch, device, seed):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3)).to(device)
    init_from_numpy(torch, model, seed)
    rng = np.random.default_rng(seed + 1)
    x = torch.tensor(rng.standard_normal((24, 6)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 3, 24), device=device)
    return model, x, y


# ---- SAM (davda54/sam) with a closure, ASAM's adaptive variant, and a step that refuses to run without one -----------
def sam_optimizer(torch, device):
    F = torch.nn.functional

    class SAM(torch.optim.Optimizer):
        def __init__(self, params, base_optimizer, rho=0.05, adaptive=False, **kwargs):
            assert rho >= 0.0, f"Invalid rho, should be non-negative: {rho}"
            defaults = dict(rho=rho, adaptive=adaptive, **kwargs)
            super(SAM, self).__init__(params, defaults)
            self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
            self.param_groups = self.base_optimizer.param_groups
            self.defaults.update(self.base_optimizer.defaults)

        @torch.no_grad()
        def first_step(self, zero_grad=False):
            grad_norm = self._grad_norm()
            for group in self.param_groups:
                scale = group["rho"] / (grad_norm + 1e-12)
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self.state[p]["old_p"] = p.data.clone()
                    e_w = (torch.pow(p, 2) if group["adaptive"] else 1.0) * p.grad * scale.to(p)
                    p.add_(e_w)
            if zero_grad:
                self.zero_grad()

        @torch.no_grad()
        def second_step(self, zero_grad=False):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.data = self.state[p]["old_p"]
            self.base_optimizer.step()
            if zero_grad:
                self.zero_grad()

        @torch.no_grad()
        def step(self, closure=None):
            assert closure is not None, "Sharpness Aware Minimization requires closure, but it was not provided"
            closure = torch.enable_grad()(closure)
            self.first_step(zero_grad=True)
            closure()
            self.second_step()

        def _grad_norm(self):
            shared_device = self.param_groups[0]["params"][0].device
            norm = torch.norm(torch.stack([
                ((torch.abs(p) if group["adaptive"] else 1.0) * p.grad).norm(p=2).to(shared_device)
                for group in self.param_groups for p in group["params"] if p.grad is not None]), p=2)
            return norm

        def load_state_dict(self, state_dict):
            super().load_state_dict(state_dict)
            self.base_optimizer.param_groups = self.param_groups

    results = {}
    for adaptive in (False, True):
        model, x, y = _problem(torch, device, 1600)
        optimizer = SAM(model.parameters(), torch.optim.SGD, rho=2.0 if adaptive else 0.05, adaptive=adaptive,
                        lr=0.1, momentum=0.9)
        losses = []
        for step in range(4):
            if step % 2 == 0:  # the two-call form
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.first_step(zero_grad=True)
                F.cross_entropy(model(x), y).backward()
                optimizer.second_step(zero_grad=True)
            else:  # the closure form
                def closure():
                    loss = F.cross_entropy(model(x), y)
                    loss.backward()
                    return loss
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step(closure)
                optimizer.zero_grad()
            losses.append(round(loss.item(), 5))
        results["asam" if adaptive else "sam"] = losses
    try:
        optimizer.step()
        results["no_closure"] = None
    except AssertionError as exc:
        results["no_closure"] = str(exc)
    state = optimizer.state_dict()
    results["groups"] = sorted(state["param_groups"][0])
    results["state_keys"] = sorted(next(iter(state["state"].values())))
    results["defaults"] = sorted(optimizer.defaults)
    results["repr_head"] = repr(optimizer).splitlines()[0]
    return results


# ---- Lookahead (k steps of the fast optimizer, then slow weights move alpha of the way) around RAdam -------------
def lookahead_radam(torch, device):
    F = torch.nn.functional

    class Lookahead(torch.optim.Optimizer):
        def __init__(self, optimizer, k=5, alpha=0.5):
            self.optimizer = optimizer
            self.k, self.alpha = k, alpha
            self.param_groups = self.optimizer.param_groups
            self.state = defaultdict(dict)
            self.fast_state = self.optimizer.state
            self.defaults = self.optimizer.defaults
            self._optimizer_step_pre_hooks = {}
            self._optimizer_step_post_hooks = {}
            for group in self.param_groups:
                group["counter"] = 0

        def update(self, group):
            for fast in group["params"]:
                param_state = self.state[fast]
                if "slow_param" not in param_state:
                    param_state["slow_param"] = torch.zeros_like(fast.data)
                    param_state["slow_param"].copy_(fast.data)
                slow = param_state["slow_param"]
                slow += (fast.data - slow) * self.alpha
                fast.data.copy_(slow)

        def step(self, closure=None):
            loss = self.optimizer.step(closure)
            for group in self.param_groups:
                if group["counter"] == 0:
                    self.update(group)
                group["counter"] += 1
                if group["counter"] >= self.k:
                    group["counter"] = 0
            return loss

        def state_dict(self):
            fast_state_dict = self.optimizer.state_dict()
            slow_state = {(id(k) if isinstance(k, torch.Tensor) else k): v for k, v in self.state.items()}
            return {"fast_state": fast_state_dict["state"], "slow_state": slow_state,
                    "param_groups": fast_state_dict["param_groups"]}

    model, x, y = _problem(torch, device, 1610)
    base = torch.optim.RAdam(model.parameters(), lr=1e-2, weight_decay=1e-3, decoupled_weight_decay=True)
    optimizer = Lookahead(base, k=3, alpha=0.5)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer.optimizer, step_size=4, gamma=0.5)
    losses = []
    for step in range(8):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(round(loss.item(), 5))
    sd = optimizer.state_dict()
    return {"losses": losses, "counter": optimizer.param_groups[0]["counter"], "n_slow": len(sd["slow_state"]),
            "lr": scheduler.get_last_lr(), "fast_keys": sorted(next(iter(sd["fast_state"].values()))),
            "group_keys": sorted(sd["param_groups"][0])}


# ---- Lion and a Muon-style optimizer (Newton-Schulz orthogonalised momentum for matrices, AdamW for the rest) ------
def lion_and_muon(torch, device):
    F = torch.nn.functional

    class Lion(torch.optim.Optimizer):
        def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
            if not 0.0 <= lr:
                raise ValueError("Invalid learning rate: {}".format(lr))
            defaults = dict(lr=lr, betas=betas, weight_decay=weight_decay)
            super().__init__(params, defaults)

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
                    p.data.mul_(1 - group["lr"] * group["weight_decay"])
                    grad = p.grad
                    state = self.state[p]
                    if len(state) == 0:
                        state["exp_avg"] = torch.zeros_like(p)
                    exp_avg = state["exp_avg"]
                    beta1, beta2 = group["betas"]
                    update = exp_avg * beta1 + grad * (1 - beta1)
                    p.add_(update.sign_(), alpha=-group["lr"])
                    exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
            return loss

    def zeropower_via_newtonschulz5(G, steps=5):
        assert G.ndim >= 2
        a, b, c = (3.4445, -4.7750, 2.0315)
        X = G.float()
        if G.size(-2) > G.size(-1):
            X = X.mT
        X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
        for _ in range(steps):
            A = X @ X.mT
            B = b * A + c * A @ A
            X = a * X + B @ X
        if G.size(-2) > G.size(-1):
            X = X.mT
        return X

    class Muon(torch.optim.Optimizer):
        def __init__(self, params, lr=0.02, weight_decay=0.0, momentum=0.95, nesterov=True, ns_steps=5):
            defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                            ns_steps=ns_steps)
            params = list(params)
            param_groups = []
            for size in sorted({p.numel() for p in params}):
                group = dict(params=[p for p in params if p.numel() == size])
                param_groups.append(group)
            super().__init__(param_groups, defaults)

        @torch.no_grad()
        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    g = p.grad
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = torch.zeros_like(g)
                    buf = state["momentum_buffer"]
                    buf.lerp_(g, 1 - group["momentum"])
                    g = g.lerp_(buf, group["momentum"]) if group["nesterov"] else buf
                    g = zeropower_via_newtonschulz5(g, steps=group["ns_steps"])
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    p.add_(g.view_as(p), alpha=-group["lr"] * max(1, p.size(-2) / p.size(-1)) ** 0.5)

    results = {}
    model, x, y = _problem(torch, device, 1620)
    lion = Lion(model.parameters(), lr=3e-3, weight_decay=0.1)
    losses = []
    for _ in range(5):
        loss = lion.step(lambda: (lion.zero_grad(), F.cross_entropy(model(x), y).backward())[0] or
                         F.cross_entropy(model(x), y))
        losses.append(round(loss.item(), 5))
    results["lion"] = losses
    try:
        Lion(model.parameters(), lr=-1.0)
    except ValueError as exc:
        results["lion_error"] = str(exc)

    model, x, y = _problem(torch, device, 1630)
    hidden = [p for n, p in model.named_parameters() if p.ndim >= 2 and not n.startswith("4.")]
    others = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and not n.startswith("4."))]
    optimizers = [Muon(hidden, lr=0.02, momentum=0.95),
                  torch.optim.AdamW(others, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.0)]
    for opt in optimizers:
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"]
    losses = []
    for step in range(5):
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        frac = min(step / 3, 1)
        for group in optimizers[0].param_groups:
            group["momentum"] = (1 - frac) * 0.85 + frac * 0.95  # momentum warmup, as the speedrun does
        for opt in optimizers:
            for group in opt.param_groups:
                group["lr"] = group["initial_lr"] * (1 - step / 10)
            opt.step()
        model.zero_grad(set_to_none=True)
        losses.append(round(loss.item(), 4))
    W = zeropower_via_newtonschulz5(model[2].weight.detach())
    sv = torch.linalg.svdvals(W)
    results.update(muon=losses, n_groups=len(optimizers[0].param_groups),
                   sv_range=[round(sv.min().item(), 2), round(sv.max().item(), 2)])
    return results


# ---- LAMB (layer-wise trust ratio) and saving/loading a custom optimizer's state mid-training -----------------------
def lamb_resume(torch, device):
    F = torch.nn.functional

    class Lamb(torch.optim.Optimizer):
        def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0, adam=False):
            if not 0.0 <= eps:
                raise ValueError("Invalid epsilon value: {}".format(eps))
            defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
            self.adam = adam
            super(Lamb, self).__init__(params, defaults)

        def step(self, closure=None):
            loss = None
            if closure is not None:
                loss = closure()
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad.data
                    if grad.is_sparse:
                        raise RuntimeError("Lamb does not support sparse gradients, consider SparseAdam instad.")
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = torch.zeros_like(p.data)
                        state["exp_avg_sq"] = torch.zeros_like(p.data)
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    beta1, beta2 = group["betas"]
                    state["step"] += 1
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    step_size = group["lr"]
                    weight_norm = p.data.pow(2).sum().sqrt().clamp(0, 10)
                    adam_step = exp_avg / exp_avg_sq.sqrt().add(group["eps"])
                    if group["weight_decay"] != 0:
                        adam_step.add_(p.data, alpha=group["weight_decay"])
                    adam_norm = adam_step.pow(2).sum().sqrt()
                    if weight_norm == 0 or adam_norm == 0:
                        trust_ratio = 1
                    else:
                        trust_ratio = weight_norm / adam_norm
                    state["weight_norm"] = weight_norm
                    state["adam_norm"] = adam_norm
                    state["trust_ratio"] = trust_ratio
                    if self.adam:
                        trust_ratio = 1
                    p.data.add_(adam_step, alpha=-step_size * trust_ratio)
            return loss

    model, x, y = _problem(torch, device, 1640)
    opt = Lamb(model.parameters(), lr=2e-2, weight_decay=0.01)
    losses = []
    for step in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    buffer = io.BytesIO()
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": 3}, buffer)
    buffer.seek(0)
    resumed_model, _, _ = _problem(torch, device, 1641)
    resumed = Lamb(resumed_model.parameters(), lr=1.0)
    ckpt = torch.load(buffer, map_location=device, weights_only=False)
    resumed_model.load_state_dict(ckpt["model"])
    resumed.load_state_dict(ckpt["optimizer"])
    for step in range(2):
        for m, o, out in ((model, opt, losses), (resumed_model, resumed, None)):
            o.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            o.step()
            if out is not None:
                out.append(round(loss.item(), 5))
    first = next(iter(resumed.state.values()))
    same = all(torch.equal(a, b) for a, b in zip(model.parameters(), resumed_model.parameters()))
    try:
        Lamb(model.parameters(), eps=-1)
    except ValueError as exc:
        err = str(exc)
    return {"losses": losses, "same_after_resume": same, "lr": resumed.param_groups[0]["lr"],
            "state_step": first["step"], "trust": round(float(first["trust_ratio"]), 4),
            "state_types": sorted((k, type(v).__name__) for k, v in first.items()), "err": err,
            "deepcopy": len(copy.deepcopy(opt).state)}


PROGRAMS = [sam_optimizer, lookahead_radam, lion_and_muon, lamb_resume]
NEEDS_CPP = {}
