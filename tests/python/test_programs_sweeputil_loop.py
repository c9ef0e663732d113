"""The 'sweeputil' program sweep, second file: short programs that lean on the training-loop and runtime utilities
(SWA, LR schedules, optimizer hooks and named parameters, GradScaler with two optimizers, distributions, RNG
state, data samplers and streams, serialization, torch.compile/jit, runtime switches, assert_close, TensorBoard),
written against a module called `torch`, run with PyTorch and with tandem, and compared by the harness in
test_programs_sweeputil.py (see its docstring)."""
import collections
import io
import os
import struct
import tempfile

import numpy as np
import pytest
import torch as real_torch
from test_programs_sweeputil import DEFAULT_TOLERANCE, DEVICES, compare_with_pytorch, init_from_numpy, numpy_input
from test_tensorboard import summaries

import tandem


# ---- stochastic weight averaging (AveragedModel, SWALR, update_bn; an EMA model with get_ema_multi_avg_fn) ---------
def weight_averaging(torch, device):
    nn = torch.nn
    swa_utils = torch.optim.swa_utils
    model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2)).to(device)
    init_from_numpy(torch, model, 25)
    swa_model = swa_utils.AveragedModel(model)
    ema_model = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    swa_sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear")
    xs = numpy_input(torch, 26, 24, 4, device=device)
    ys = numpy_input(torch, 27, 24, 2, device=device)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(xs, ys), batch_size=8)
    lrs, losses, swa_start = [], [], 2
    for epoch in range(5):
        for xb, yb in loader:
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        if epoch >= swa_start:
            swa_model.update_parameters(model)
            swa_sched.step()
        else:
            sched.step()
        ema_model.update_parameters(model)
        lrs.append(opt.param_groups[0]["lr"])
    before = swa_model.module[1].running_mean.clone()
    swa_utils.update_bn(loader, swa_model)
    bn_changed = not torch.equal(before, swa_model.module[1].running_mean)
    swa_model.eval()
    with torch.no_grad():
        pred = swa_model(xs[:4])
    return {"lrs": lrs, "losses": losses, "n_averaged": int(swa_model.n_averaged),
            "swa_w": swa_model.module[0].weight.flatten().tolist(), "ema_w": ema_model.module[3].bias.tolist(),
            "bn_mean": swa_model.module[1].running_mean.tolist(), "bn_changed": bn_changed,
            "pred": pred.flatten().tolist(), "keys": list(swa_model.state_dict())[:3],
            "swalr_state": sorted(swa_sched.state_dict())}


# ---- LR schedules (warmup + cosine with SequentialLR, ChainedScheduler, ReduceLROnPlateau, state round trips) ------
def lr_schedules(torch, device):
    nn = torch.nn
    lr_scheduler = torch.optim.lr_scheduler
    model = nn.Linear(2, 1).to(device)

    def run(make, steps, metric=None):
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        sched = make(opt)
        lrs = []
        for step in range(steps):
            opt.step()
            if metric is None:
                sched.step()
            else:
                sched.step(metric(step))
            lrs.append([round(g["lr"], 10) for g in opt.param_groups])
        return lrs, sched, opt

    warm_cos, s1, _ = run(lambda o: lr_scheduler.SequentialLR(o, schedulers=[
        lr_scheduler.LinearLR(o, start_factor=0.1, total_iters=3),
        lr_scheduler.CosineAnnealingLR(o, T_max=5, eta_min=1e-3)], milestones=[3]), 9)
    chained, s2, _ = run(lambda o: lr_scheduler.ChainedScheduler([
        lr_scheduler.ConstantLR(o, factor=0.5, total_iters=2), lr_scheduler.ExponentialLR(o, gamma=0.9)]), 5)
    plateau, s3, o3 = run(lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="min", factor=0.5, patience=1,
                                                                    threshold=0.01, cooldown=1, min_lr=0.01),
                          10, metric=lambda s: [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9][s])
    onecycle, s4, _ = run(lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=6, pct_start=0.5,
                                                             anneal_strategy="linear"), 6)
    momentum = s4.optimizer.param_groups[0]["momentum"]
    restarts, _, _ = run(lambda o: lr_scheduler.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2), 7)
    poly, _, _ = run(lambda o: lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0), 5)
    cyclic, _, _ = run(lambda o: lr_scheduler.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=2,
                                                        mode="triangular2"), 8)
    lam, s5, o5 = run(lambda o: lr_scheduler.LambdaLR(o, lr_lambda=lambda e: 0.95 ** e), 3)
    state = s1.state_dict()
    opt6 = torch.optim.SGD(model.parameters(), lr=0.1)
    resumed = lr_scheduler.SequentialLR(opt6, schedulers=[
        lr_scheduler.LinearLR(opt6, start_factor=0.1, total_iters=3),
        lr_scheduler.CosineAnnealingLR(opt6, T_max=5, eta_min=1e-3)], milestones=[3])
    resumed.load_state_dict(state)
    after = []
    for _ in range(2):
        opt6.step()
        resumed.step()
        after.append(round(resumed.get_last_lr()[0], 10))
    return {"warm_cos": warm_cos, "chained": chained, "plateau": plateau, "num_bad": s3.num_bad_epochs,
            "best": s3.best, "onecycle": onecycle, "momentum": momentum, "restarts": restarts, "poly": poly,
            "cyclic": cyclic, "lambda": lam, "lambda_state": sorted(s5.state_dict()), "resumed": after,
            "seq_state": sorted(state), "plateau_last": s3.get_last_lr() if hasattr(s3, "get_last_lr") else None}


# ---- optimizer utilities (param groups, add_param_group, step hooks, the optimizer-in-backward recipe) -----------
def optimizer_utilities(torch, device):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2)).to(device)
    init_from_numpy(torch, model, 35)
    x = numpy_input(torch, 36, 8, 4, device=device)
    y = numpy_input(torch, 37, 8, 2, device=device)
    opt = torch.optim.AdamW([{"params": model[0].parameters(), "lr": 1e-2},
                             {"params": model[2].weight, "weight_decay": 0.0}], lr=5e-3, betas=(0.8, 0.99))
    opt.add_param_group({"params": [model[2].bias], "lr": 0.1, "name": "head_bias"})
    log = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", len(o.param_groups))))
    post = opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", o.state[model[2].bias]["step"]
                                                                          .item())))
    losses = []
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    pre.remove()
    post.remove()
    sd = opt.state_dict()
    groups = [{k: v for k, v in g.items() if k != "params"} for g in sd["param_groups"]]
    errors = []
    try:
        opt.add_param_group({"params": model[2].bias})
    except ValueError as exc:
        errors.append(str(exc))
    try:
        torch.optim.SGD([{"params": model[0].weight}, {"params": model[0].weight}], lr=0.1)
    except ValueError as exc:
        errors.append(str(exc))
    try:
        torch.optim.SGD(model.parameters(), lr=-1.0)
    except ValueError as exc:
        errors.append(str(exc))
    closure_model = nn.Linear(3, 1).to(device)
    init_from_numpy(torch, closure_model, 38)
    lbfgs = torch.optim.LBFGS(closure_model.parameters(), lr=0.5, max_iter=5, history_size=3)
    xs, ys = numpy_input(torch, 39, 10, 3, device=device), numpy_input(torch, 40, 10, 1, device=device)

    def closure():
        lbfgs.zero_grad()
        l = nn.functional.mse_loss(closure_model(xs), ys)
        l.backward()
        return l

    lbfgs_losses = [lbfgs.step(closure).item() for _ in range(2)]
    # optimizer in backward: each parameter steps as soon as its gradient is accumulated
    fused = nn.Linear(4, 2).to(device)
    init_from_numpy(torch, fused, 41)
    per_param = {p: torch.optim.SGD([p], lr=0.1, momentum=0.5) for p in fused.parameters()}

    def step_now(param):
        per_param[param].step()
        per_param[param].zero_grad()

    for p in fused.parameters():
        p.register_post_accumulate_grad_hook(step_now)
    for _ in range(2):
        fused(x).pow(2).mean().backward()
    reference = nn.Linear(4, 2).to(device)
    init_from_numpy(torch, reference, 41)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1, momentum=0.5)
    for _ in range(2):
        ref_opt.zero_grad()
        reference(x).pow(2).mean().backward()
        ref_opt.step()
    # parameters passed with their names (PyTorch 2.6+): the state dict carries them
    named = torch.optim.Adam(model.named_parameters(), lr=1e-3)
    named.add_param_group({"params": [("temperature", nn.Parameter(torch.ones(1, device=device)))], "lr": 0.1})
    named_sd = named.state_dict()
    names = [g["param_names"] for g in named_sd["param_groups"]]
    try:
        named.add_param_group({"params": [nn.Parameter(torch.ones(1, device=device))]})
    except ValueError as exc:
        errors.append(str(exc))
    maximize = torch.optim.SGD([nn.Parameter(torch.ones(2, device=device))], lr=0.1, maximize=True)
    maximize.param_groups[0]["params"][0].grad = torch.ones(2, device=device)
    maximize.step()
    return {"losses": losses, "log": log, "groups": groups, "errors": errors, "lbfgs": lbfgs_losses,
            "fused_same": torch.allclose(fused.weight, reference.weight, atol=1e-6),
            "fused_grad": fused.weight.grad is None, "maximize": maximize.param_groups[0]["params"][0].tolist(),
            "state_keys": sorted(sd["state"][0]), "n_state": len(sd["state"]),
            "repr": repr(opt).splitlines(), "names": names, "named_keys": list(named_sd["param_groups"][1])}


# ---- mixed precision with two optimizers (GradScaler unscale_ per optimizer, skipped steps, scaler state) ---------
def scaler_two_optimizers(torch, device):
    nn = torch.nn
    kind = torch.device(device).type
    netA = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)).to(device)
    netB = nn.Linear(4, 2).to(device)
    init_from_numpy(torch, netA, 60)
    init_from_numpy(torch, netB, 61)
    optA = torch.optim.SGD(netA.parameters(), lr=0.1)
    optB = torch.optim.Adam(netB.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler(kind, init_scale=2.0 ** 10, growth_interval=2)
    x = numpy_input(torch, 62, 6, 4, device=device)
    y = numpy_input(torch, 63, 6, 2, device=device)
    history, errors = [], []
    for step in range(4):
        optA.zero_grad()
        optB.zero_grad()
        with torch.autocast(device_type=kind, dtype=torch.bfloat16):
            outA, outB = netA(x), netB(x)
            lossA = nn.functional.mse_loss(outA.float(), y)
            lossB = nn.functional.mse_loss(outB.float(), y)
        if step == 1:
            lossB = lossB * float("nan")
        scaler.scale(lossA * 0.5 + lossB * 0.5).backward()
        scaler.unscale_(optA)
        if step == 0:
            try:
                scaler.unscale_(optA)
            except RuntimeError as exc:
                errors.append(str(exc))
        nn.utils.clip_grad_norm_(netA.parameters(), 0.5)
        scaler.step(optA)
        scaler.step(optB)
        scaler.update()
        history.append([lossA.item(), scaler.get_scale(), scaler.state_dict()["_growth_tracker"]])
    try:
        scaler.step(optA)
        scaler.update(new_scale=torch.tensor(2.0, device=device))
    except Exception as exc:
        errors.append(type(exc).__name__)
    state = scaler.state_dict()
    disabled = torch.amp.GradScaler(kind, enabled=False)
    return {"history": history, "errors": errors, "state": sorted(state), "scale": state["scale"],
            "wA": netA[0].weight.flatten().tolist(), "wB": netB.weight.flatten().tolist(),
            "disabled": [disabled.is_enabled(), disabled.scale(torch.tensor(3.0, device=device)).item(),
                         disabled.get_scale()]}


# ---- distributions (reparameterised VAE-style KL, mixtures, transforms, constraints, validation errors) ----------
def distributions(torch, device):
    D = torch.distributions
    mu = torch.tensor([[0.5, -1.0], [0.0, 2.0]], device=device, requires_grad=True)
    log_std = torch.tensor([[0.1, -0.3], [0.2, 0.0]], device=device, requires_grad=True)
    q = D.Normal(mu, log_std.exp())
    p = D.Normal(torch.zeros_like(mu), torch.ones_like(mu))
    kl = D.kl_divergence(q, p).sum(-1)
    eps = torch.tensor([[0.3, -0.2], [1.0, 0.5]], device=device)
    z = mu + log_std.exp() * eps  # the reparameterisation rsample does, with fixed noise
    loss = (kl.mean() - q.log_prob(z).sum(-1).mean())
    loss.backward()
    indep = D.Independent(D.Normal(mu.detach(), log_std.exp().detach()), 1)
    mvn = D.MultivariateNormal(torch.zeros(2, device=device),
                               scale_tril=torch.tensor([[1.0, 0.0], [0.5, 0.8]], device=device))
    cat = D.Categorical(logits=torch.tensor([[1.0, 2.0, 0.5], [0.0, 0.0, 0.0]], device=device))
    mix = D.MixtureSameFamily(D.Categorical(probs=torch.tensor([0.3, 0.7], device=device)),
                              D.Normal(torch.tensor([-1.0, 1.0], device=device), torch.tensor([0.5, 0.5],
                                                                                                device=device)))
    log_normal = D.TransformedDistribution(D.Normal(torch.tensor(0.0, device=device), torch.tensor(1.0,
                                                                                                     device=device)),
                                           [D.transforms.ExpTransform()])
    tanh_normal = D.TransformedDistribution(D.Normal(torch.zeros(2, device=device), torch.ones(2, device=device)),
                                            [D.transforms.TanhTransform(cache_size=1)])
    beta = D.Beta(torch.tensor([2.0], device=device), torch.tensor([3.0], device=device))
    pts = torch.tensor([0.2, 0.7], device=device)
    samples = [tuple(q.rsample((3,)).shape), tuple(indep.sample().shape), tuple(mvn.sample((4,)).shape),
               tuple(cat.sample().shape), tuple(mix.sample((5,)).shape), q.rsample().requires_grad,
               q.sample().requires_grad]
    errors = []
    try:
        D.Normal(torch.tensor([0.0], device=device), torch.tensor([-1.0], device=device))
    except ValueError as exc:
        errors.append(str(exc).split(" of distribution")[0])
    try:
        cat.log_prob(torch.tensor([3, 0], device=device))
    except ValueError as exc:
        errors.append(str(exc).split(" but found")[0])
    try:
        D.kl_divergence(beta, cat)
    except NotImplementedError as exc:
        errors.append(type(exc).__name__)
    return {"kl": kl.tolist(), "loss": loss.item(), "mu_grad": mu.grad.tolist(), "std_grad": log_std.grad.tolist(),
            "indep": [indep.log_prob(eps).tolist(), list(indep.batch_shape), list(indep.event_shape)],
            "mvn": [mvn.log_prob(pts).item(), mvn.entropy().item(), mvn.covariance_matrix.tolist()],
            "cat": [cat.log_prob(torch.tensor([1, 2], device=device)).tolist(), cat.entropy().tolist(),
                    cat.probs.sum(-1).tolist()],
            "mix": [mix.log_prob(pts).tolist(), mix.mean.item(), mix.variance.item()],
            "log_normal": log_normal.log_prob(torch.tensor([0.5, 2.0], device=device)).tolist(),
            "tanh": tanh_normal.log_prob(torch.tensor([0.3, -0.6], device=device)).tolist(),
            "beta": [beta.log_prob(pts).tolist(), beta.mean.item(), beta.entropy().item()],
            "kl_cat": D.kl_divergence(cat, D.Categorical(probs=torch.full((3,), 1 / 3, device=device))).tolist(),
            "samples": [list(s) if isinstance(s, tuple) else s for s in samples],
            "support": [str(D.Beta(1.0, 1.0).support), D.constraints.positive.check(torch.tensor(-1.0)).item()],
            "errors": errors}


# ---- random-number state (manual_seed reproducibility, Generator objects, fork_rng, get/set_rng_state) -----------
def rng_state(torch, device):
    # The two libraries' generators give different streams: only reproducibility relations are compared.
    torch.manual_seed(0)
    a = torch.randn(5, device=device)
    torch.manual_seed(0)
    b = torch.randn(5, device=device)
    state = torch.get_rng_state()
    c = torch.rand(3)
    torch.set_rng_state(state)
    d = torch.rand(3)
    g = torch.Generator(device=device).manual_seed(42)
    e = torch.randn(4, generator=g, device=device)
    g2 = torch.Generator(device=device)
    g2.manual_seed(42)
    f = torch.randn(4, generator=g2, device=device)
    g_state = g.get_state()
    h1 = torch.randint(0, 100, (6,), generator=g, device=device)
    g.set_state(g_state)
    h2 = torch.randint(0, 100, (6,), generator=g, device=device)
    torch.manual_seed(7)
    before = torch.rand(2)
    torch.manual_seed(7)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(123)
        _ = torch.rand(100)
    after = torch.rand(2)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(3))
    dropout_masks = []
    for _ in range(2):
        torch.manual_seed(5)
        dropout_masks.append(torch.nn.functional.dropout(torch.ones(20, device=device), p=0.5).tolist())
    seeds = [torch.initial_seed(), g.initial_seed(), torch.Generator().seed() >= 0]
    return {"same_seed": torch.equal(a, b), "state_restored": torch.equal(c, d), "gen": torch.equal(e, f),
            "gen_state": torch.equal(h1, h2), "fork": torch.equal(before, after),
            "perm": sorted(perm.tolist()), "dropout_same": dropout_masks[0] == dropout_masks[1],
            "dropout_values": sorted(set(dropout_masks[0])), "state_dtype": str(state.dtype),
            "seeds": seeds, "gen_device": g.device == torch.device(device), "bernoulli_range": sorted(set(
                torch.bernoulli(torch.full((50,), 0.5), generator=torch.Generator().manual_seed(1)).tolist()))}


# ---- data utilities (samplers, random_split, ConcatDataset, Subset, collate_fn, default_collate, worker seeding) --
def data_utilities(torch, device):
    data = torch.utils.data

    class Squares(data.Dataset):
        def __init__(self, n, offset=0):
            self.n, self.offset = n, offset

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            v = i + self.offset
            return {"x": torch.tensor([float(v), float(v * v)]), "label": v % 3, "name": f"item{v}"}

    a, b = Squares(6), Squares(4, offset=100)
    both = data.ConcatDataset([a, b])
    g = torch.Generator().manual_seed(0)
    train, val, test = data.random_split(both, [0.6, 0.2, 0.2], generator=g)
    split_sizes = [len(train), len(val), len(test)]
    covered = sorted(train.indices + val.indices + test.indices) == list(range(10))
    weights = [0.0 if i % 2 else 1.0 for i in range(10)]
    wsampler = data.WeightedRandomSampler(weights, num_samples=20, replacement=True,
                                          generator=torch.Generator().manual_seed(1))
    drawn = list(wsampler)
    subset_sampler = data.SubsetRandomSampler([1, 3, 5, 7], generator=torch.Generator().manual_seed(2))
    batches = list(data.BatchSampler(data.SequentialSampler(range(10)), batch_size=4, drop_last=False))
    batches_dropped = list(data.BatchSampler(range(10), batch_size=4, drop_last=True))

    def collate(items):
        xs = torch.stack([it["x"] for it in items])
        return xs, torch.tensor([it["label"] for it in items]), [it["name"] for it in items]

    loader = data.DataLoader(both, batch_size=3, shuffle=False, collate_fn=collate)
    first = next(iter(loader))
    default = next(iter(data.DataLoader(both, batch_size=4)))
    Point = collections.namedtuple("Point", ["x", "y"])
    collated = data.default_collate([Point(torch.ones(2), 1), Point(torch.zeros(2), 2)])
    np_collated = data.default_collate([np.array([1.0, 2.0]), np.array([3.0, 4.0])])
    subset = data.Subset(both, [0, 7, 9])
    sampler_loader = data.DataLoader(both, batch_size=2, sampler=subset_sampler)
    seen = sorted(int(i) for batch in sampler_loader for i in batch["label"].tolist())
    tensor_ds = data.TensorDataset(torch.arange(10.0).view(5, 2), torch.arange(5))
    n_batches = len(data.DataLoader(tensor_ds, batch_size=2))
    errors = []
    try:
        data.random_split(range(10), [3, 3])
    except ValueError as exc:
        errors.append(str(exc))
    try:
        data.DataLoader(both, batch_size=2, shuffle=True, sampler=subset_sampler)
    except ValueError as exc:
        errors.append(str(exc))
    return {"sizes": split_sizes, "covered": covered, "weighted_even": all(i % 2 == 0 for i in drawn),
            "n_drawn": len(drawn), "subset": sorted(list(subset_sampler)), "batches": batches,
            "batches_dropped": batches_dropped, "first": [first[0].tolist(), first[1].tolist(), first[2]],
            "default": [default["x"].tolist(), default["label"].tolist(), default["name"],
                        str(default["label"].dtype)],
            "namedtuple": [type(collated).__name__, collated.x.tolist(), collated.y.tolist()],
            "np_collated": [str(np_collated.dtype), np_collated.tolist()],
            "subset_items": [subset[i]["name"] for i in range(3)], "seen": seen, "n_batches": n_batches,
            "errors": errors, "cumulative": both.cumulative_sizes}


# ---- streaming data (IterableDataset, ChainDataset, StackDataset, DistributedSampler shards, loader options) -------
def data_streams(torch, device):
    data = torch.utils.data

    class Counter(data.IterableDataset):
        def __init__(self, start, end):
            super().__init__()
            self.start, self.end = start, end

        def __iter__(self):
            info = data.get_worker_info()  # None in the main process
            lo, hi = (self.start, self.end) if info is None else (self.start + info.id, self.end)
            return iter(torch.tensor([i, i * i]) for i in range(lo, hi))

    stream = data.DataLoader(Counter(0, 7), batch_size=3)
    batches = [b.tolist() for b in stream]
    chained = [int(t[0]) for t in data.ChainDataset([Counter(0, 2), Counter(10, 12)])]
    errors = []
    try:
        len(stream)
    except TypeError as exc:
        errors.append(str(exc))
    try:
        data.DataLoader(Counter(0, 3), shuffle=True)
    except ValueError as exc:
        errors.append(str(exc).split(",")[0])
    try:
        data.DataLoader(range(4), prefetch_factor=2)
    except ValueError as exc:
        errors.append(str(exc).split(".")[0])
    try:
        data.DataLoader(range(4), persistent_workers=True)
    except ValueError as exc:
        errors.append(str(exc))
    images = torch.arange(12.0).view(6, 2)
    labels = torch.tensor([0, 1, 0, 1, 1, 0])
    stacked = data.StackDataset(image=data.TensorDataset(images), label=labels.tolist())
    item = stacked[2]
    shards = [list(data.distributed.DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False))
              for r in range(3)]
    shards_drop = [list(data.distributed.DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False,
                                                            drop_last=True)) for r in range(3)]
    seeded = []
    for _ in range(2):
        sampler = data.distributed.DistributedSampler(range(10), num_replicas=2, rank=0, shuffle=True, seed=3)
        sampler.set_epoch(1)
        seeded.append(list(sampler))
    loader_gen = [[b.tolist() for b in data.DataLoader(range(8), batch_size=4, shuffle=True,
                                                       generator=torch.Generator().manual_seed(11))]
                  for _ in range(2)]
    pinned = next(iter(data.DataLoader(data.TensorDataset(images), batch_size=2, pin_memory=False)))
    converted = data.default_convert({"a": np.array([1, 2]), "b": [np.float64(1.5)]})
    loader = data.DataLoader(data.TensorDataset(images, labels), batch_size=4, drop_last=True)
    moved = [[x.to(device, non_blocking=True).sum().item(), y.to(device).tolist()] for x, y in loader]
    return {"batches": batches, "chained": chained, "errors": errors,
            "stacked": [sorted(item), item["image"][0].tolist(), item["label"], len(stacked)],
            "shards": shards, "shards_drop": shards_drop, "seeded_same": seeded[0] == seeded[1],
            "seeded_cover": [len(seeded[0]), set(seeded[0]) <= set(range(10))],
            "gen_same": loader_gen[0] == loader_gen[1],
            "gen_cover": sorted(sum(loader_gen[0], [])), "pinned": [type(pinned).__name__, len(pinned)],
            "converted": [type(converted["a"]).__name__, converted["a"].tolist(), type(converted["b"][0]).__name__],
            "moved": moved}


class _Config:  # a user's class saved inside a checkpoint (module level, so that pickle can find it)
    def __init__(self, depth, width):
        self.depth, self.width = depth, width


# ---- serialization (whole-module pickles, weights_only and safe globals, shared storage, legacy format, mmap) ------
def serialization(torch, device):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).to(device)
    init_from_numpy(torch, model, 55)
    x = numpy_input(torch, 56, 2, 3, device=device)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        whole = os.path.join(tmp, "model.pt")
        torch.save(model, whole)
        loaded = torch.load(whole, weights_only=False, map_location="cpu")
        results["whole"] = [type(loaded).__name__, torch.allclose(loaded(x.cpu()), model(x).cpu()),
                            loaded[0].weight.device.type]
        try:
            torch.load(whole, weights_only=True)
            results["weights_only"] = None
        except Exception as exc:
            results["weights_only"] = [type(exc).__name__, "Weights only load failed" in str(exc)]
        cfg_path = os.path.join(tmp, "cfg.pt")
        torch.save({"config": _Config(2, 8), "state": model.state_dict()}, cfg_path)
        try:
            torch.load(cfg_path, weights_only=True)
        except Exception as exc:
            results["unsafe"] = type(exc).__name__
        with torch.serialization.safe_globals([_Config]):
            ckpt = torch.load(cfg_path, weights_only=True)
        results["safe"] = [ckpt["config"].width, sorted(ckpt["state"])]
        torch.serialization.add_safe_globals([_Config])
        results["added"] = _Config in torch.serialization.get_safe_globals()
        torch.serialization.clear_safe_globals()
        base = torch.arange(6.0, device=device)
        view = base[2:5]
        shared_path = os.path.join(tmp, "shared.pt")
        torch.save({"base": base, "view": view, "again": base}, shared_path)
        back = torch.load(shared_path, map_location=device)
        back["view"].fill_(-1.0)
        results["shared"] = [back["base"].tolist(), back["again"] is back["base"],
                             back["view"].storage_offset(), back["base"].device.type == torch.device(device).type]
        legacy = os.path.join(tmp, "legacy.pt")
        torch.save(model.state_dict(), legacy, _use_new_zipfile_serialization=False)
        results["legacy"] = sorted(torch.load(legacy, map_location="cpu"))
        mm = torch.load(whole.replace("model.pt", "shared.pt"), mmap=True, map_location="cpu")
        results["mmap"] = mm["base"].tolist()
        buf = io.BytesIO()
        torch.save([torch.tensor([1, 2], dtype=torch.int16), 3.5, "text", (1, 2), None, torch.float16], buf)
        buf.seek(0)
        items = torch.load(buf)
        results["mixed"] = [items[0].dtype == torch.int16, items[1:5], items[5] == torch.float16]
        results["zip"] = __import__("zipfile").is_zipfile(shared_path)
    return results


# ---- torch.compile and TorchScript on small modules (compile runs eagerly; script, trace, freeze) ---------------
def compile_and_jit(torch, device):
    nn = torch.nn

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.fc2 = nn.Linear(8, 2)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))

    class Gate(nn.Module):
        def forward(self, x: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
            if x.sum() > threshold:
                return x * 2
            return x - 1

    model = MLP().to(device)
    init_from_numpy(torch, model, 33)
    x = numpy_input(torch, 34, 3, 4, device=device)
    compiled = torch.compile(model)
    opt = torch.optim.SGD(compiled.parameters(), lr=0.1)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = compiled(x).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())

    @torch.compile(mode="reduce-overhead", fullgraph=False)
    def fused(a, b):
        return torch.sin(a) + torch.cos(b)

    traced = torch.jit.trace(model, x)
    scripted_gate = torch.jit.script(Gate())
    # (not torch.jit.save/load: tandem has no TorchScript archive format, docs/compat.md "Runtime modules")
    frozen = torch.jit.freeze(torch.jit.script(model).eval())
    frozen_ok = torch.allclose(frozen(x), model(x))
    model.compile()  # in place, PyTorch 2.2+
    in_place = model(x).sum().item()
    torch._dynamo.reset()
    return {"losses": losses, "fused": fused(x, x).flatten().tolist(), "traced": traced(x).flatten().tolist(),
            "gate": [scripted_gate(x).sum().item(), scripted_gate(-x.abs()).sum().item()],
            "loaded": frozen_ok, "in_place": in_place, "compiled_type": type(compiled).__name__,
            "orig": compiled._orig_mod is model, "state_keys": list(compiled.state_dict())}


# ---- runtime switches (determinism, matmul precision, print options, default device and dtype, profiler) ----------
def runtime_switches(torch, device):
    flags = []
    torch.use_deterministic_algorithms(True, warn_only=True)
    flags.append(torch.are_deterministic_algorithms_enabled())
    flags.append(torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(False)
    flags.append(torch.are_deterministic_algorithms_enabled())
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    flags.append([torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic])
    torch.backends.cudnn.benchmark = False
    torch.backends.cudnn.deterministic = False
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    flags.append([before, torch.get_float32_matmul_precision()])
    torch.set_float32_matmul_precision(before)
    torch.backends.cuda.matmul.allow_tf32 = False
    flags.append(torch.backends.cuda.matmul.allow_tf32)
    torch.set_printoptions(precision=2, sci_mode=False)
    printed = str(torch.tensor([1.23456, 100000.5, 0.000123]))
    torch.set_printoptions(profile="default")
    printed_default = str(torch.tensor([1.23456, 100000.5, 0.000123]))
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    f64 = [str(torch.tensor([1.0]).dtype), str(torch.zeros(1).dtype), str(torch.tensor([1]).dtype),
           str(torch.nn.Linear(2, 2).weight.dtype)]
    torch.set_default_dtype(previous)
    torch.set_default_device(device)
    try:
        kind = torch.device(device).type
        on_default = [torch.zeros(2).device.type == kind, torch.nn.Linear(2, 2).weight.device.type == kind,
                      torch.get_default_device().type == kind]
    finally:
        torch.set_default_device(None)
    on_default.append(torch.get_default_device().type)
    with torch.device(device):
        in_context = torch.ones(1).device.type == torch.device(device).type
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        with torch.profiler.record_function("my_block"):
            torch.mm(torch.ones(8, 8), torch.ones(8, 8))
    names = {e.key for e in prof.key_averages()}
    threads = torch.get_num_threads() >= 1
    return {"flags": flags, "printed": printed, "printed_default": printed_default, "f64": f64,
            "on_default": on_default, "in_context": in_context, "profiled": ["my_block" in names, "aten::mm" in names],
            "threads": threads}


# ---- torch.testing.assert_close (tolerances by dtype, messages a test suite shows, equal_nan, containers) ---------
def assert_close_messages(torch, device):
    check = torch.testing.assert_close
    messages = []

    def failure(*args, **kwargs):
        try:
            check(*args, **kwargs)
            messages.append(None)
        except AssertionError as exc:
            messages.append(str(exc).replace("cuda:0", "cpu"))
        except (TypeError, ValueError) as exc:
            messages.append(f"{type(exc).__name__}: {exc}")

    a = torch.tensor([1.0, 2.0, 3.0], device=device)
    failure(a, a + 1e-6)
    failure(a, a + 1e-3)
    failure(a, torch.tensor([1.0, 2.0, 3.5], device=device), rtol=0, atol=0.1)
    failure(a, a.double())
    failure(a, a.double(), check_dtype=False)
    failure(torch.tensor([1, 2], device=device), torch.tensor([1, 3], device=device))
    failure(torch.tensor([float("nan")], device=device), torch.tensor([float("nan")], device=device))
    failure(torch.tensor([float("nan")], device=device), torch.tensor([float("nan")], device=device), equal_nan=True)
    failure(a, a[:2])
    failure({"w": a, "b": [a, 1.0]}, {"w": a, "b": [a, 1.0 + 1e-9]})
    failure({"w": a}, {"v": a})
    failure(a, a, rtol=1e-3)
    failure(1.0, 1.0 + 1e-8)
    failure(a, a.cpu().tolist())
    failure(a.half(), (a + 1e-3).half())
    failure(a, a + 1e-3, msg="custom message")
    close = torch.isclose(a, a + 1e-6).tolist()
    return {"messages": messages, "isclose": close, "allclose": torch.allclose(a, a * (1 + 1e-6))}


# ---- the programs of this file ------------------------------------------------------------------------------------
PROGRAMS = [weight_averaging, lr_schedules, optimizer_utilities, scaler_two_optimizers, distributions, rng_state,
            data_utilities, data_streams, serialization, compile_and_jit, runtime_switches, assert_close_messages]
# bfloat16 autocast rounds each matmul to 8 bits of mantissa, at points that may differ between the libraries.
_TOLERANCE = {"scaler_two_optimizers": dict(rel=2e-2, abs=2e-2)}
_reference = {}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_program_matches_pytorch(program, device):
    compare_with_pytorch(program, device, _reference, _TOLERANCE.get(program.__name__, DEFAULT_TOLERANCE))


# ---- TensorBoard logging in a training loop. PyTorch's SummaryWriter needs the tensorboard package, which is not
# a test dependency, so PyTorch runs the loop with a plain logger, tandem with a SummaryWriter, and the event files
# are read back with test_tensorboard.py's independent reader.
def train_and_log(torch, device, log):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1)).to(device)
    init_from_numpy(torch, model, 64)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    x, y = numpy_input(torch, 65, 8, 3, device=device), numpy_input(torch, 66, 8, 1, device=device)
    for step in range(4):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        log(step, {"loss/train": loss.item(), "lr": sched.get_last_lr()[0],
                   "grad_norm": torch.cat([p.grad.flatten() for p in model.parameters()]).norm()})
        sched.step()
    return model


@pytest.mark.parametrize("device", DEVICES)
def test_training_loop_logs_to_tensorboard(tmp_path, device):
    want = []
    train_and_log(real_torch, "cpu", lambda step, values: want.extend(
        (tag, step, float(v)) for tag, v in values.items()))
    writer = tandem.utils.tensorboard.SummaryWriter(str(tmp_path))
    model = train_and_log(tandem, device, lambda step, values: [
        writer.add_scalar(tag, v, step) for tag, v in values.items()])
    writer.add_histogram("weights/0", model[0].weight, 3)
    writer.add_text("note", "done", 3)
    writer.close()
    got = summaries(str(tmp_path))
    scalars = [(tag, step, struct.unpack("<f", v[2][0])[0]) for tag, step, v in got if 2 in v]
    assert [(t, s) for t, s, _ in scalars] == [(t, s) for t, s, _ in want]
    assert [v for _, _, v in scalars] == pytest.approx([v for _, _, v in want], rel=1e-5)
    assert [(tag, step) for tag, step, v in got if 2 not in v] == [("weights/0", 3), ("note/text_summary", 3)]
