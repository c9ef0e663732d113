"""Sweep 8 programs as Kaggle notebooks write them: a k-fold tabular model over a pandas DataFrame with a
dict-returning Dataset, out-of-fold predictions scored with scikit-learn and a warmup-cosine LambdaLR; image
classification with test-time augmentation, channels_last and a GradScaler; stochastic weight averaging with
SWALR and update_bn after a SequentialLR warmup; a text classifier over packed sequences with a bucketing sampler
and early stopping on a deep-copied best state.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy
import math
import os
import random

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=4):
    return [round(float(v), digits) for v in values]


def seed_everything(torch, seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def get_cosine_schedule_with_warmup(torch, optimizer, num_warmup_steps, num_training_steps, num_cycles=0.5):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        progress = float(current_step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * progress)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda, last_epoch=-1)


# ---- k-fold tabular: pandas DataFrame, dict Dataset, BCEWithLogits(pos_weight), OOF AUC ----------------------------
def kfold_tabular(torch, device):
    nn = torch.nn
    # seed_everything changes process-wide state: put it back afterwards, as other tests share the process
    saved = (random.getstate(), np.random.get_state(), torch.backends.cudnn.deterministic,
             torch.backends.cudnn.benchmark, os.environ.get("PYTHONHASHSEED"))
    try:
        return _kfold_tabular(torch, device, nn)
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = saved[2], saved[3]
        if saved[4] is None:
            os.environ.pop("PYTHONHASHSEED", None)
        else:
            os.environ["PYTHONHASHSEED"] = saved[4]


def _kfold_tabular(torch, device, nn):
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    seed_everything(torch, 42)
    rng = np.random.default_rng(1500)
    df = pd.DataFrame(rng.standard_normal((60, 5)), columns=[f"f_{i}" for i in range(5)])
    df["cat"] = rng.integers(0, 4, 60)
    df["target"] = ((df["f_0"] + 0.5 * df["f_1"] - df["cat"] * 0.3 + rng.standard_normal(60) * 0.5) > 0).astype(int)
    features = [c for c in df.columns if c.startswith("f_")]
    df["fold"] = -1
    for fold, (_, val_idx) in enumerate(StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
                                        .split(df, df["target"])):
        df.loc[val_idx, "fold"] = fold

    class TabDataset(torch.utils.data.Dataset):
        def __init__(self, frame):
            self.x = frame[features].values
            self.cat = frame["cat"].values
            self.y = frame["target"].values

        def __len__(self):
            return len(self.x)

        def __getitem__(self, idx):
            return {"x": torch.tensor(self.x[idx], dtype=torch.float),
                    "cat": torch.tensor(self.cat[idx], dtype=torch.long),
                    "y": torch.tensor(self.y[idx], dtype=torch.float)}

    class TabModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(4, 3)
            self.mlp = nn.Sequential(nn.BatchNorm1d(8), nn.Dropout(0.0), nn.Linear(8, 16), nn.SiLU(),
                                     nn.Linear(16, 1))

        def forward(self, x, cat):
            return self.mlp(torch.cat([x, self.emb(cat)], dim=1)).squeeze(-1)

    oof = np.zeros(len(df))
    fold_scores, lrs = [], []
    for fold in range(3):
        train_df = df[df.fold != fold].reset_index(drop=True)
        valid_df = df[df.fold == fold].reset_index(drop=True)
        train_loader = torch.utils.data.DataLoader(TabDataset(train_df), batch_size=16, shuffle=False,
                                                   drop_last=True, num_workers=0, pin_memory=False)
        valid_loader = torch.utils.data.DataLoader(TabDataset(valid_df), batch_size=32, shuffle=False)
        model = TabModel().to(device)
        init_from_numpy(torch, model, 1501 + fold)
        pos = train_df.target.sum()
        criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([(len(train_df) - pos) / pos], device=device))
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
        scheduler = get_cosine_schedule_with_warmup(torch, optimizer, 2, 2 * len(train_loader))
        for epoch in range(2):
            model.train()
            losses = AverageMeter()
            for batch in train_loader:
                batch = {k: v.to(device) for k, v in batch.items()}
                loss = criterion(model(batch["x"], batch["cat"]), batch["y"])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                scheduler.step()
                losses.update(loss.item(), batch["x"].size(0))
        lrs.append(scheduler.get_last_lr()[0])
        model.eval()
        preds = []
        with torch.no_grad():
            for batch in valid_loader:
                out = model(batch["x"].to(device), batch["cat"].to(device))
                preds.append(out.sigmoid().detach().cpu().numpy())
        preds = np.concatenate(preds)
        oof[df[df.fold == fold].index] = preds
        fold_scores.append(roc_auc_score(valid_df.target.values, preds))
    return {"fold_scores": _rounded(fold_scores), "oof_auc": round(float(roc_auc_score(df.target, oof)), 4),
            "last_loss": round(losses.avg, 4), "lrs": _rounded(lrs, 6), "oof_head": _rounded(oof[:4])}


# ---- image classification: channels_last, GradScaler/autocast (disabled on the CPU), TTA with flips ---------------
def image_tta(torch, device):
    nn = torch.nn
    F = nn.functional
    use_amp = False  # notebooks gate mixed precision on the GPU; both libraries run it in float32 here
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
                          nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(inplace=True),
                          nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Dropout(p=0.0), nn.Linear(8, 3))
    init_from_numpy(torch, model, 1510)
    model = model.to(device, memory_format=torch.channels_last)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=2, eta_min=1e-5)
    rng = np.random.default_rng(1511)
    images = torch.tensor(rng.standard_normal((8, 3, 8, 8)), dtype=torch.float32)
    labels = torch.tensor(rng.integers(0, 3, 8))
    dataset = torch.utils.data.TensorDataset(images, labels)
    loader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=False)
    lrs, losses = [], []
    iters = len(loader)
    for epoch in range(3):
        for i, (xb, yb) in enumerate(loader):
            xb = xb.to(device, non_blocking=True).contiguous(memory_format=torch.channels_last)
            yb = yb.to(device, non_blocking=True)
            with torch.autocast(device_type="cuda" if "cuda" in str(device) else "cpu", enabled=use_amp):
                loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step(epoch + i / iters)
            lrs.append(round(optimizer.param_groups[0]["lr"], 7))
            losses.append(round(loss.item(), 4))
    model.eval()
    x = images.to(device)
    with torch.inference_mode():
        tta = [model(x), model(torch.flip(x, dims=[3])), model(x.flip(2)), model(x.transpose(2, 3))]
        probs = torch.stack([t.softmax(1) for t in tta]).mean(0)
    return {"losses": losses, "lrs": lrs, "probs": _rounded(probs[:2].flatten().tolist(), 4),
            "pred": probs.argmax(1).tolist(), "channels_last": model[0].weight.is_contiguous(
                memory_format=torch.channels_last), "scale": scaler.get_scale(), "enabled": scaler.is_enabled()}


# ---- SWA: SequentialLR warmup into cosine, then AveragedModel + SWALR, update_bn over a loader -------------------
def swa_training(torch, device):
    nn = torch.nn
    F = nn.functional
    swa_utils = torch.optim.swa_utils
    model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1)).to(device)
    init_from_numpy(torch, model, 1520)
    rng = np.random.default_rng(1521)
    X = rng.standard_normal((48, 4)).astype(np.float32)
    Y = (X @ np.array([1.0, -2.0, 0.5, 0.0], dtype=np.float32))[:, None] + 0.1
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)),
                                         batch_size=12)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=2)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=4)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, schedulers=[warmup, cosine], milestones=[2])
    swa_model = swa_utils.AveragedModel(model)
    swa_scheduler = swa_utils.SWALR(optimizer, swa_lr=0.02, anneal_epochs=2, anneal_strategy="cos")
    swa_start, lrs, losses = 4, [], []
    for epoch in range(8):
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            loss.backward()
            optimizer.step()
        if epoch > swa_start:
            swa_model.update_parameters(model)
            swa_scheduler.step()
        else:
            scheduler.step()
        lrs.append(round(optimizer.param_groups[0]["lr"], 6))
        losses.append(round(loss.item(), 4))
    before = swa_model.module[1].running_mean.clone()
    swa_utils.update_bn(loader, swa_model, device=device)
    swa_model.eval()
    with torch.no_grad():
        pred = swa_model(torch.from_numpy(X[:4]).to(device))
    sd = swa_model.state_dict()
    return {"lrs": lrs, "losses": losses, "n_averaged": int(swa_model.n_averaged), "bn_changed":
            not torch.equal(before, swa_model.module[1].running_mean), "pred": _rounded(pred.flatten().tolist()),
            "keys": sorted(sd)[:3], "sched_state": sorted(scheduler.state_dict())[:4]}


# ---- text classification: packed sequences, a bucketing batch sampler, early stopping on the best state ----------
def text_classifier_early_stopping(torch, device):
    nn = torch.nn
    rnn_utils = nn.utils.rnn
    rng = np.random.default_rng(1530)
    lengths = rng.integers(2, 9, 24)
    seqs = [rng.integers(1, 30, n).tolist() for n in lengths]
    labels = [int(sum(s) % 2) for s in seqs]

    class BucketSampler(torch.utils.data.Sampler):
        def __init__(self, lengths, batch_size):
            self.batches = [list(b) for b in np.array_split(np.argsort(lengths, kind="stable"),
                                                            len(lengths) // batch_size)]

        def __iter__(self):
            return iter(self.batches)

        def __len__(self):
            return len(self.batches)

    def collate(batch):
        texts, ys = zip(*batch)
        lens = torch.tensor([len(t) for t in texts])
        padded = rnn_utils.pad_sequence([torch.tensor(t) for t in texts], batch_first=True, padding_value=0)
        return padded, lens, torch.tensor(ys, dtype=torch.float32)

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(30, 8, padding_idx=0)
            self.lstm = nn.LSTM(8, 12, num_layers=1, batch_first=True, bidirectional=True)
            self.fc = nn.Linear(24, 1)

        def forward(self, text, lengths):
            packed = rnn_utils.pack_padded_sequence(self.embedding(text), lengths.cpu(), batch_first=True,
                                                    enforce_sorted=False)
            _, (hidden, _) = self.lstm(packed)
            return self.fc(torch.cat((hidden[-2, :, :], hidden[-1, :, :]), dim=1)).squeeze(1)

    data = list(zip(seqs, labels))
    train_loader = torch.utils.data.DataLoader(data[:16], batch_sampler=BucketSampler(lengths[:16], 4),
                                               collate_fn=collate)
    valid_loader = torch.utils.data.DataLoader(data[16:], batch_size=8, collate_fn=collate)
    model = Classifier().to(device)
    init_from_numpy(torch, model, 1531)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-2)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)
    criterion = nn.BCEWithLogitsLoss()
    best_loss, best_state, patience, bad_epochs, history = float("inf"), None, 2, 0, []
    for epoch in range(6):
        model.train()
        for text, lens, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(text.to(device), lens), y.to(device))
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.5)
            optimizer.step()
        model.eval()
        with torch.no_grad():
            val_loss = sum(criterion(model(t.to(device), l), y.to(device)).item() for t, l, y in valid_loader)
        plateau.step(val_loss)
        history.append([round(val_loss, 4), optimizer.param_groups[0]["lr"]])
        if val_loss < best_loss:
            best_loss, bad_epochs = val_loss, 0
            best_state = copy.deepcopy(model.state_dict())
        else:
            bad_epochs += 1
            if bad_epochs >= patience:
                break
    model.load_state_dict(best_state)
    with torch.no_grad():
        t, l, y = next(iter(valid_loader))
        acc = ((model(t.to(device), l) > 0).float().cpu() == y).float().mean().item()
    return {"history": history, "best": round(best_loss, 4), "acc": round(acc, 4),
            "batches": [len(b) for b in train_loader.batch_sampler], "stopped": len(history)}


PROGRAMS = [kfold_tabular, image_tta, swa_training, text_classifier_early_stopping]
NEEDS_CPP = {}
