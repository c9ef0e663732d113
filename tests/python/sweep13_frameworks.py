"""Sweep 13 programs, the mini training frameworks and metrics that real projects carry: a Lightning-style Trainer
with callbacks, early stopping and checkpoints to io.BytesIO (torch.save / torch.load with map_location and
weights_only), torchmetrics-style Metric classes whose states are buffers with reset and merge, a confusion matrix
by bincount with per-class precision / recall / F1, AUROC and average precision by sort / cumsum / trapezoid, top-k
accuracy, an EMA of weights with swa_utils.AveragedModel(multi_avg_fn=get_ema_multi_avg_fn) against a hand-written
lerp_ EMA, gradient accumulation inside a no_sync-like context, autocast on the CPU with bfloat16 plus GradScaler,
torch.compile / torch.jit.script used as decorators, and deterministic seeding helpers (a Generator per DataLoader,
worker_init_fn, torch.initial_seed) in a tqdm-like wrapped loop.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep13.py). Data come from NumPy so both libraries start from the same numbers."""
import contextlib
import copy
import io
import math

import numpy as np


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _init(torch, module, seed, bound=0.4):
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.tensor(rng.uniform(-bound, bound, tuple(p.shape)), dtype=p.dtype))
    return module


# ---- a Lightning-style Trainer: hooks, callbacks, early stopping, best checkpoint in memory -----------------------
def lightning_style_trainer(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class Callback:
        def on_train_epoch_end(self, trainer, module):
            pass

        def on_validation_end(self, trainer, module):
            pass

    class EarlyStopping(Callback):
        def __init__(self, monitor, patience, min_delta=0.0):
            self.monitor, self.patience, self.min_delta = monitor, patience, min_delta
            self.best, self.wait = torch.tensor(math.inf), 0

        def on_validation_end(self, trainer, module):
            current = trainer.callback_metrics[self.monitor]
            if torch.lt(current - self.min_delta, self.best.to(current.device)):
                self.best, self.wait = current.detach().cpu(), 0
            else:
                self.wait += 1
                if self.wait >= self.patience:
                    trainer.should_stop = True

    class ModelCheckpoint(Callback):
        def __init__(self, monitor):
            self.monitor, self.best_score, self.buffer, self.best_epoch = monitor, None, None, -1

        def on_validation_end(self, trainer, module):
            score = trainer.callback_metrics[self.monitor].item()
            if self.best_score is None or score < self.best_score:
                self.best_score, self.best_epoch = score, trainer.current_epoch
                self.buffer = io.BytesIO()
                torch.save({"state_dict": module.state_dict(), "epoch": trainer.current_epoch,
                            "optimizer": trainer.optimizer.state_dict()}, self.buffer)

    class LitRegressor(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
            self.logged = {}

        def log(self, name, value):
            self.logged[name] = value.detach() if hasattr(value, "detach") else value

        def training_step(self, batch, idx):
            x, y = batch
            loss = F.mse_loss(self.net(x).squeeze(-1), y)
            self.log("train_loss", loss)
            return loss

        def validation_step(self, batch, idx):
            x, y = batch
            self.log("val_loss", F.l1_loss(self.net(x).squeeze(-1), y))

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=0.05, weight_decay=0.01)
            return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.StepLR(opt, 3, gamma=0.5)}

    class Trainer:
        def __init__(self, max_epochs, callbacks):
            self.max_epochs, self.callbacks = max_epochs, callbacks
            self.should_stop, self.current_epoch, self.callback_metrics = False, 0, {}

        def fit(self, module, train_loader, val_loader):
            conf = module.configure_optimizers()
            self.optimizer, scheduler = conf["optimizer"], conf["lr_scheduler"]
            history = []
            for epoch in range(self.max_epochs):
                self.current_epoch = epoch
                module.train()
                for idx, batch in enumerate(train_loader):
                    batch = [t.to(device) for t in batch]
                    loss = module.training_step(batch, idx)
                    self.optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    self.optimizer.step()
                scheduler.step()
                module.eval()
                with torch.no_grad():
                    losses = []
                    for idx, batch in enumerate(val_loader):
                        module.validation_step([t.to(device) for t in batch], idx)
                        losses.append(module.logged["val_loss"])
                self.callback_metrics["val_loss"] = torch.stack(losses).mean()
                history.append(round(self.callback_metrics["val_loss"].item(), 5))
                for cb in self.callbacks:
                    cb.on_validation_end(self, module)
                if self.should_stop:
                    break
            return history

    rng = np.random.default_rng(1320)
    X = rng.standard_normal((64, 3)).astype(np.float32)
    Y = (np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2]).astype(np.float32)
    data = torch.utils.data
    train = data.TensorDataset(torch.from_numpy(X[:48]), torch.from_numpy(Y[:48]))
    val = data.TensorDataset(torch.from_numpy(X[48:]), torch.from_numpy(Y[48:]))
    train_loader = data.DataLoader(train, batch_size=16, shuffle=False)
    val_loader = data.DataLoader(val, batch_size=8)
    module = _init(torch, LitRegressor(), 1321).to(device)
    stopper, ckpt = EarlyStopping("val_loss", patience=2, min_delta=0.001), ModelCheckpoint("val_loss")
    trainer = Trainer(25, [stopper, ckpt])
    history = trainer.fit(module, train_loader, val_loader)

    @torch.no_grad()
    def predict_batches(model, loader):  # an inference generator: grad is off only while it runs
        model.eval()
        for x, _ in loader:
            yield model.net(x.to(device)).squeeze(-1), torch.is_grad_enabled()

    preds = []
    for pred, grad_inside in predict_batches(module, val_loader):
        preds.append([round(float(pred.sum()), 4), grad_inside, torch.is_grad_enabled(), pred.requires_grad])
    ckpt.buffer.seek(0)
    state = torch.load(ckpt.buffer, map_location="cpu", weights_only=True)
    restored = _init(torch, LitRegressor(), 1)
    missing = restored.load_state_dict(state["state_dict"], strict=True)
    opt_state = state["optimizer"]
    return {"history": history, "stopped_at": trainer.current_epoch, "best_epoch": ckpt.best_epoch,
            "ckpt_epoch": state["epoch"], "devices": sorted({str(v.device) for v in state["state_dict"].values()}),
            "missing": [list(missing.missing_keys), list(missing.unexpected_keys)],
            "opt_keys": sorted(opt_state), "lr": opt_state["param_groups"][0]["lr"],
            "steps": opt_state["state"][0]["step"].item(), "best": round(ckpt.best_score, 5), "preds": preds}


# ---- torchmetrics-style Metric classes: states as buffers, update / compute / reset, merging -----------------------
def torchmetrics_style_metrics(torch, device):
    nn = torch.nn

    class Metric(nn.Module):
        def __init__(self):
            super().__init__()
            self._defaults = {}

        def add_state(self, name, default, dist_reduce_fx="sum"):
            self._defaults[name] = default.clone()
            self.register_buffer(name, default.clone(), persistent=False)

        def reset(self):
            for name, default in self._defaults.items():
                setattr(self, name, default.clone().to(getattr(self, name).device))

        def forward(self, *args):
            self.update(*args)
            return self.compute()

        def merge_state(self, other):
            for name in self._defaults:
                setattr(self, name, getattr(self, name) + getattr(other, name))

    class MulticlassAccuracy(Metric):
        def __init__(self, num_classes, average="macro"):
            super().__init__()
            self.average = average
            self.add_state("tp", torch.zeros(num_classes, dtype=torch.long))
            self.add_state("support", torch.zeros(num_classes, dtype=torch.long))

        def update(self, preds, target):
            if preds.is_floating_point():
                preds = preds.argmax(dim=1)
            self.tp += torch.bincount(target[preds == target], minlength=self.tp.numel())
            self.support += torch.bincount(target, minlength=self.support.numel())

        def compute(self):
            if self.average == "micro":
                return self.tp.sum().float() / self.support.sum()
            per_class = self.tp.float() / self.support.clamp(min=1)
            return per_class[self.support > 0].mean()

    class MeanSquaredError(Metric):
        def __init__(self):
            super().__init__()
            self.add_state("sum_squared_error", torch.tensor(0.0))
            self.add_state("total", torch.tensor(0))

        def update(self, preds, target):
            self.sum_squared_error += torch.sum((preds - target) ** 2)
            self.total += target.numel()

        def compute(self):
            return self.sum_squared_error / self.total

    class RunningMean(Metric):
        def __init__(self, window):
            super().__init__()
            self.window = window
            self.add_state("values", torch.full((window,), float("nan")))
            self.add_state("count", torch.tensor(0))

        def update(self, value):
            self.values[self.count % self.window] = value
            self.count += 1

        def compute(self):
            return torch.nanmean(self.values)

    rng = np.random.default_rng(1322)
    acc_macro = MulticlassAccuracy(4).to(device)
    acc_micro = MulticlassAccuracy(4, average="micro").to(device)
    mse, running = MeanSquaredError().to(device), RunningMean(3).to(device)
    batch_values = []
    for step in range(4):
        logits = torch.tensor(rng.standard_normal((10, 4)), dtype=torch.float32, device=device)
        target = torch.tensor(rng.integers(0, 4, 10), device=device)
        batch_values.append(round(acc_macro(logits, target).item(), 5))
        acc_micro.update(logits, target)
        preds = torch.tensor(rng.standard_normal(5), dtype=torch.float32, device=device)
        mse.update(preds, preds * 0.5)
        running.update(float(step + 1))
    other = MulticlassAccuracy(4).to(device)
    other.update(torch.tensor([0, 1, 2, 3], device=device), torch.tensor([0, 1, 2, 2], device=device))
    merged = copy.deepcopy(acc_macro)
    merged.merge_state(other)
    out = {"batch": batch_values, "macro": round(acc_macro.compute().item(), 5),
           "micro": round(acc_micro.compute().item(), 5), "mse": round(mse.compute().item(), 5),
           "running": running.compute().item(), "merged": round(merged.compute().item(), 5),
           "state_dict": list(acc_macro.state_dict()), "buffers": sorted(n for n, _ in acc_macro.named_buffers()),
           "tp_dtype": str(acc_macro.tp.dtype), "total_dtype": str(mse.total.dtype)}
    acc_macro.reset()
    out["after_reset"] = [acc_macro.tp.tolist(), acc_macro.tp.device.type == torch.device(device).type]
    out["half"] = str(MeanSquaredError().half().sum_squared_error.dtype)
    return out


# ---- classification metrics: confusion matrix by bincount, P/R/F1, AUROC and AP, top-k accuracy --------------------
def classification_metrics(torch, device):
    rng = np.random.default_rng(1323)
    num_classes = 4
    target = torch.tensor(rng.integers(0, num_classes, 60), device=device)
    logits = torch.tensor(rng.standard_normal((60, num_classes)), dtype=torch.float32, device=device)
    logits[torch.arange(60, device=device), target] += 1.0
    preds = logits.argmax(1)
    cm = torch.bincount(target * num_classes + preds, minlength=num_classes ** 2).reshape(num_classes, num_classes)
    tp = cm.diag()
    precision = tp / cm.sum(0).clamp(min=1)
    recall = tp / cm.sum(1).clamp(min=1)
    f1 = torch.where(precision + recall > 0, 2 * precision * recall / (precision + recall),
                     torch.zeros_like(precision))
    normalized = cm / cm.sum(1, keepdim=True)

    def binary_auroc(scores, labels):
        desc = torch.argsort(scores, descending=True, stable=True)
        scores, labels = scores[desc], labels[desc]
        distinct = torch.where(scores[1:] - scores[:-1] != 0)[0]
        threshold_idxs = torch.cat([distinct, torch.tensor([labels.numel() - 1], device=labels.device)])
        tps = torch.cumsum(labels, dim=0)[threshold_idxs]
        fps = 1 + threshold_idxs - tps
        tps = torch.cat([torch.zeros(1, dtype=tps.dtype, device=tps.device), tps])
        fps = torch.cat([torch.zeros(1, dtype=fps.dtype, device=fps.device), fps])
        fpr, tpr = fps / fps[-1], tps / tps[-1]
        auroc = torch.trapezoid(tpr, fpr)
        precision_curve = tps[1:] / (tps[1:] + fps[1:])
        recall_curve = tps[1:] / tps[-1]
        recall_steps = torch.diff(torch.cat([torch.zeros(1, device=labels.device), recall_curve]))
        ap = torch.sum(recall_steps * precision_curve)
        return auroc, ap

    probs = logits.softmax(1)
    aurocs, aps = [], []
    for c in range(num_classes):
        a, p = binary_auroc(probs[:, c], (target == c).long())
        aurocs.append(round(a.item(), 5))
        aps.append(round(p.item(), 5))
    # Mann-Whitney U as a cross-check of class 0's AUROC
    pos, neg = probs[target == 0, 0], probs[target != 0, 0]
    mw = (pos[:, None] > neg[None, :]).float().mean()

    def topk_accuracy(output, tgt, topk=(1, 3)):
        maxk = max(topk)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(tgt.view(1, -1).expand_as(pred))
        return [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / tgt.size(0)).item() for k in topk]

    ties = torch.tensor([0.5, 0.5, 0.2, 0.9], device=device)
    tie_auc, _ = binary_auroc(ties, torch.tensor([1, 0, 0, 1], device=device))
    return {"cm": cm.tolist(), "cm_dtype": str(cm.dtype), "precision": _rounded(precision),
            "recall": _rounded(recall), "f1": _rounded(f1), "macro_f1": round(f1.mean().item(), 5),
            "normalized_dtype": str(normalized.dtype), "auroc": aurocs, "ap": aps,
            "mann_whitney": round(mw.item(), 5), "topk": _rounded(topk_accuracy(logits, target)),
            "tie_auc": round(tie_auc.item(), 5)}


# ---- EMA of weights: swa_utils.AveragedModel with get_ema_multi_avg_fn against a lerp_ EMA --------------------------
def ema_averaged_model(torch, device):
    nn, F = torch.nn, torch.nn.functional
    swa_utils = torch.optim.swa_utils
    model = _init(torch, nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2)), 1324)
    model.to(device)
    ema = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True)
    ema_single = swa_utils.AveragedModel(model, avg_fn=swa_utils.get_ema_avg_fn(0.9))
    manual = copy.deepcopy(model)
    for p in manual.parameters():
        p.requires_grad_(False)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    rng = np.random.default_rng(1325)
    for step in range(6):
        x = torch.tensor(rng.standard_normal((16, 4)), dtype=torch.float32, device=device)
        y = torch.tensor(rng.integers(0, 2, 16), device=device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        ema_single.update_parameters(model)
        with torch.no_grad():
            decay = 0.9 if step > 0 else 0.0
            for m_ema, m in zip(manual.state_dict().values(), model.state_dict().values()):
                if m_ema.dtype.is_floating_point:
                    m_ema.lerp_(m.detach(), 1 - decay)
                else:
                    m_ema.copy_(m)
    w_ema = ema.module[0].weight
    w_manual = manual[0].weight
    out = {"n_averaged": [ema.n_averaged.item(), str(ema.n_averaged.dtype)],
           "ema_vs_manual": round((w_ema - w_manual).abs().max().item(), 6),
           "single_vs_multi": round((ema_single.module[3].weight - ema.module[3].weight).abs().max().item(), 6),
           "bn_mean": _rounded(ema.module[1].running_mean[:3]), "manual_bn_mean": _rounded(manual[1].running_mean[:3]),
           "keys": list(ema.state_dict())[:3], "ema_requires_grad": w_ema.requires_grad}
    # SWA with update_bn and a SWALR schedule
    swa = swa_utils.AveragedModel(model)
    sched = swa_utils.SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
    lrs = []
    for _ in range(3):
        sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 6))
        swa.update_parameters(model)
    loader = [torch.tensor(rng.standard_normal((8, 4)), dtype=torch.float32, device=device) for _ in range(3)]
    swa_utils.update_bn(loader, swa, device=device)
    out["swalr"] = lrs
    out["swa_bn"] = [_rounded(swa.module[1].running_mean[:3]), swa.module[1].num_batches_tracked.item()]
    out["swa_momentum"] = swa.module[1].momentum
    return out


# ---- gradient accumulation with a no_sync-like context, autocast(bfloat16) on the CPU and GradScaler -----------------
def accumulation_autocast_scaler(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class Wrapper(nn.Module):  # what DDP gives: a module with no_sync()
        def __init__(self, module):
            super().__init__()
            self.module = module
            self.require_backward_grad_sync = True

        @contextlib.contextmanager
        def no_sync(self):
            old = self.require_backward_grad_sync
            self.require_backward_grad_sync = False
            try:
                yield
            finally:
                self.require_backward_grad_sync = old

        def forward(self, *a, **k):
            return self.module(*a, **k)

    model = Wrapper(_init(torch, nn.Sequential(nn.Linear(6, 12), nn.GELU(), nn.Linear(12, 3)), 1326)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda" if device.startswith("cuda") else "cpu", init_scale=2.0 ** 8,
                                  growth_interval=2, enabled=True)
    rng = np.random.default_rng(1327)
    accum = 3
    losses, syncs, dtypes = [], [], set()
    for step in range(6):
        x = torch.tensor(rng.standard_normal((4, 6)), dtype=torch.float32, device=device)
        y = torch.tensor(rng.integers(0, 3, 4), device=device)
        ctx = model.no_sync() if (step + 1) % accum != 0 else contextlib.nullcontext()
        with ctx:
            with torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16, enabled=True):
                out = model(x)
                dtypes.add(str(out.dtype))
                loss = F.cross_entropy(out.float(), y) / accum
            scaler.scale(loss).backward()
            syncs.append(model.require_backward_grad_sync)
        if (step + 1) % accum == 0:
            scaler.unscale_(opt)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(opt)
            scaler.update()
            opt.zero_grad(set_to_none=True)
            losses.append([round(loss.item() * accum, 2), round(norm.item(), 2)])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        a = torch.ones(2, 2, device="cpu")
        mm = a @ a
        s = torch.softmax(mm, -1)
        added = a + a
    with torch.autocast("cpu", enabled=False):
        plain = a @ a
    return {"losses": losses, "syncs": syncs, "scale": scaler.get_scale(),
            "state": sorted(scaler.state_dict()), "cpu_autocast": [str(mm.dtype), str(s.dtype), str(added.dtype),
                                                                  str(plain.dtype)],
            "enabled": torch.is_autocast_enabled("cpu"), "dtype_default": str(torch.get_autocast_dtype("cpu"))}


# ---- torch.compile / torch.jit.script used as decorators, and scripted helpers -----------------------------------
def compile_and_script_decorators(torch, device):
    nn = torch.nn

    @torch.jit.script
    def fused_gelu(x):
        return x * 0.5 * (1.0 + torch.erf(x / 1.41421))

    @torch.compile
    def rms(x, eps: float = 1e-6):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)

    @torch.compile(mode="reduce-overhead", fullgraph=False, dynamic=True)
    def swish(x):
        return x * torch.sigmoid(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(5, 5)

        @torch.jit.ignore
        def debug(self):
            return "ignored"

        @torch.jit.export
        def exported(self, x):
            return self.lin(x) * 2

        def forward(self, x):
            return swish(self.lin(x))

    block = _init(torch, Block(), 1328).to(device)
    compiled = torch.compile(block, backend="eager")
    scripted = torch.jit.script(block)
    x = torch.tensor(np.random.default_rng(1329).standard_normal((3, 5)), dtype=torch.float32, device=device)
    disabled = torch.compiler.disable(lambda t: t + 1)
    y = compiled(x)
    y.sum().backward()
    return {"gelu": _rounded(fused_gelu(x)[0]), "rms": _rounded(rms(x)[1]), "swish": _rounded(swish(x)[2]),
            "compiled": round(y.sum().item(), 5), "scripted": round(scripted(x).sum().item(), 5),
            "exported": round(block.exported(x).sum().item(), 5), "debug": block.debug(),
            "orig_mod": type(compiled._orig_mod).__name__, "grad": round(block.lin.weight.grad.sum().item(), 5),
            "disabled": disabled(x).shape[0], "is_compiling": torch.compiler.is_compiling(),
            "dynamo_reset": torch._dynamo.reset() is None}


# ---- deterministic seeding helpers: seed_everything, a Generator per loader, worker_init_fn, initial_seed -----------
def seeding_helpers(torch, device):
    import random
    data = torch.utils.data

    def seed_everything(seed):
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        torch.cuda.manual_seed_all(seed)
        return seed

    def seed_worker(worker_id):
        worker_seed = torch.initial_seed() % 2 ** 32
        np.random.seed(worker_seed)
        random.seed(worker_seed)

    class NoisyDataset(data.Dataset):
        def __init__(self, n):
            self.n = n

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            return torch.tensor([float(i)]), i % 3

    def tqdm(iterable, desc="", leave=False):  # what `from tqdm import tqdm` gives in spirit
        total = len(iterable)
        for i, item in enumerate(iterable):
            yield item
        tqdm.last = (desc, total, i + 1)

    seed_everything(7)
    first = torch.initial_seed()
    g = torch.Generator()
    g.manual_seed(0)
    order_a = [b[1].tolist() for b in tqdm(data.DataLoader(NoisyDataset(10), batch_size=4, shuffle=True,
                                                           worker_init_fn=seed_worker, generator=g, num_workers=0),
                                          desc="epoch 0")]
    g.manual_seed(0)
    order_b = [b[1].tolist() for b in data.DataLoader(NoisyDataset(10), batch_size=4, shuffle=True, generator=g)]
    g2 = torch.Generator(device="cpu").manual_seed(123)
    split = data.random_split(NoisyDataset(10), [0.7, 0.3], generator=g2)
    g2.manual_seed(123)
    split_again = data.random_split(NoisyDataset(10), [7, 3], generator=g2)
    sampler_gen = torch.Generator().manual_seed(5)
    sampler = data.RandomSampler(NoisyDataset(6), replacement=True, num_samples=4, generator=sampler_gen)
    state = torch.get_rng_state()
    a = torch.rand(3)
    torch.set_rng_state(state)
    b = torch.rand(3)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(99)
        torch.rand(2)
    c = torch.rand(3)
    torch.use_deterministic_algorithms(True, warn_only=True)
    det = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    torch.use_deterministic_algorithms(False)
    return {"initial_seed": first, "same_order": order_a == order_b, "n_batches": len(order_a),
            "tqdm": list(tqdm.last), "split": [len(s) for s in split],
            "split_same": list(split[0].indices) == list(split_again[0].indices),
            "sampler": len(list(sampler)), "restore": bool(torch.equal(a, b)), "fork": bool(not torch.equal(b, c)),
            "det": list(det), "gen_seed": g2.initial_seed(), "gen_device": str(g2.device),
            "batch_dtype": str(next(iter(data.DataLoader(NoisyDataset(4), batch_size=2)))[1].dtype)}


PROGRAMS = [lightning_style_trainer, torchmetrics_style_metrics, classification_metrics, ema_averaged_model,
            accumulation_autocast_scaler, compile_and_script_decorators, seeding_helpers]
NEEDS_CPP = {}
