"""Sweep 21 programs, end-to-end pipelines: a pandas DataFrame through a Dataset into a tabular model with
categorical embeddings (category codes, NaN imputation, standardisation with the training split's statistics),
the "saving and loading models across devices" recipe (map_location as a string, device, dict and callable;
whole-model pickles), seq2seq with Bahdanau attention and teacher forcing plus greedy decoding, char-level text
generation with temperature and top-k filtering computed deterministically, stochastic weight averaging with
update_bn, and optimizers and schedulers in unusual combinations (per-group betas, LambdaLR with one lambda per
group, CyclicLR on Adam without momentum cycling, a step pre-hook, an optimizer state reloaded into a new
optimizer with a different lr).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import io

import numpy as np

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _frame():
    import pandas as pd
    rng = np.random.default_rng(2600)
    n = 40
    df = pd.DataFrame({
        "age": rng.integers(18, 70, n).astype(float),
        "income": rng.lognormal(10, 0.5, n),
        "city": rng.choice(["paris", "lyon", "nice", "lille"], n),
        "member": rng.random(n) > 0.5,
        "score": rng.standard_normal(n),
    })
    df.loc[[3, 11, 25], "age"] = np.nan
    df.loc[[7], "income"] = np.nan
    df["label"] = ((df["score"] + (df["city"] == "paris") * 0.8) > 0.3).astype(int)
    return df


# ---- pandas → Dataset → tabular model with embeddings ----------------------------------------------------------------------
def pandas_tabular(torch, device):
    nn, F = torch.nn, torch.nn.functional
    df = _frame()
    train, valid = df.iloc[:30].copy(), df.iloc[30:].copy()
    cont = ["age", "income", "score"]
    medians = train[cont].median()
    for part in (train, valid):
        part[cont] = part[cont].fillna(medians)
        part["income"] = np.log1p(part["income"])
    means, stds = train[cont].mean(), train[cont].std()
    city_cat = df["city"].astype("category").cat.categories

    class TabDS(torch.utils.data.Dataset):
        def __init__(self, frame):
            self.x_cont = torch.tensor(((frame[cont] - means) / stds).values, dtype=torch.float32)
            codes = frame["city"].astype(pd_categorical(city_cat)).cat.codes.values
            self.x_cat = torch.stack([torch.from_numpy(codes.astype(np.int64)),
                                      torch.tensor(frame["member"].values).long()], 1)
            self.y = torch.tensor(frame["label"].values)

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return self.x_cont[i], self.x_cat[i], self.y[i]

    def pd_categorical(cats):
        import pandas as pd
        return pd.CategoricalDtype(categories=cats)

    class TabNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.embs = nn.ModuleList([nn.Embedding(4, 3), nn.Embedding(2, 1)])
            self.bn = nn.BatchNorm1d(3)
            self.mlp = nn.Sequential(nn.Linear(7, 8), nn.ReLU(), nn.Linear(8, 2))

        def forward(self, x_cont, x_cat):
            e = torch.cat([emb(x_cat[:, i]) for i, emb in enumerate(self.embs)], 1)
            return self.mlp(torch.cat([e, self.bn(x_cont)], 1))

    ds_train, ds_valid = TabDS(train), TabDS(valid)
    loader = torch.utils.data.DataLoader(ds_train, batch_size=10, shuffle=False, drop_last=True)
    try:  # a notebook's attempt to change the batch size of an existing loader
        loader.batch_size = 15
        resize = "ok"
    except ValueError as e:
        resize = str(e)
    model = _fill(torch, TabNet(), 2601).to(device)
    counts = torch.bincount(ds_train.y, minlength=2).float()
    weight = (counts.sum() / (2 * counts)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    log = []
    for epoch in range(2):
        model.train()
        total = 0.0
        for xc, xk, y in loader:
            xc, xk, y = xc.to(device), xk.to(device), y.to(device)
            opt.zero_grad()
            loss = F.cross_entropy(model(xc, xk), y, weight=weight)
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
        model.eval()
        with torch.no_grad():
            logits = model(ds_valid.x_cont.to(device), ds_valid.x_cat.to(device))
            acc = (logits.argmax(1).cpu() == ds_valid.y).float().mean().item()
        log.append([round(total / 30, 5), round(acc, 4)])
    probs = logits.softmax(1)[:, 1].cpu().numpy()
    out = valid.assign(prob=np.round(probs, 4))
    return {"log": log, "resize": resize, "weight": _r(weight, 5), "dtypes": [str(ds_train.x_cont.dtype), str(ds_train.x_cat.dtype),
                                                            str(ds_train.y.dtype)],
            "probs": out["prob"].tolist(), "city_codes": ds_train.x_cat[:6, 0].tolist(),
            "by_city": out.groupby("city")["prob"].mean().round(3).to_dict()}


# ---- saving and loading across devices ----------------------------------------------------------------------------------
def save_load_across_devices(torch, device):
    nn = torch.nn
    model = _fill(torch, nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)), 2610).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = _randn(torch, 2611, 6, 3, device=device)
    model(x).sum().backward()
    opt.step()
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 3, "note": "recipe"}, buf)
    raw = buf.getvalue()
    results = {}
    for name, ml in [("str", "cpu"), ("device", torch.device("cpu")), ("dict", {"cuda:0": "cpu"}),
                     ("callable", lambda storage, loc: storage), ("none", None)]:
        ck = torch.load(io.BytesIO(raw), map_location=ml, weights_only=True)
        where = sorted({str(v.device).split(":")[0] for v in ck["model"].values()})
        results[name] = where == ([device] if ml is None else ["cpu"])
    ck = torch.load(io.BytesIO(raw), map_location="cpu")
    cpu_model = _fill(torch, nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Linear(4, 1)), 9)
    cpu_model.load_state_dict(ck["model"])
    cpu_opt = torch.optim.SGD(cpu_model.parameters(), lr=0.5)
    cpu_opt.load_state_dict(ck["opt"])
    cpu_model.eval()
    model.eval()
    same = torch.allclose(cpu_model(x.cpu()), model(x).cpu(), atol=1e-6)
    # to(device) after loading, as the recipe does for GPU
    back = cpu_model.to(device)
    dev_ok = all(str(p.device).startswith(device) for p in back.parameters())
    # a whole-model pickle
    buf2 = io.BytesIO()
    torch.save(model, buf2)
    buf2.seek(0)
    whole = torch.load(buf2, weights_only=False, map_location="cpu")
    err = None
    try:
        buf2.seek(0)
        torch.load(buf2, weights_only=True)
    except Exception as e:
        err = type(e).__name__
    return {"devices": results, "epoch": ck["epoch"], "note": ck["note"], "same": bool(same), "dev_ok": dev_ok,
            "lr": cpu_opt.param_groups[0]["lr"], "momentum_buf": _r(cpu_opt.state[cpu_model[0].weight]
                                                                   ["momentum_buffer"].sum(), 5),
            "whole": type(whole).__name__, "whole_out": _r(whole(x.cpu()), 5), "err": err,
            "sd_keys": list(ck["opt"]["state"]), "pg": sorted(ck["opt"]["param_groups"][0])}


# ---- seq2seq with Bahdanau attention -----------------------------------------------------------------------------------------
def seq2seq_attention(torch, device):
    nn, F = torch.nn, torch.nn.functional
    SOS, EOS, V, H, MAXLEN = 0, 1, 9, 8, 6

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(V, H)
            self.gru = nn.GRU(H, H, batch_first=True)
            self.dropout = nn.Dropout(0.0)

        def forward(self, inp):
            return self.gru(self.dropout(self.embedding(inp)))

    class BahdanauAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.Wa, self.Ua, self.Va = nn.Linear(H, H), nn.Linear(H, H), nn.Linear(H, 1)

        def forward(self, query, keys):
            scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys))).squeeze(2).unsqueeze(1)
            weights = F.softmax(scores, dim=-1)
            return torch.bmm(weights, keys), weights

    class AttnDecoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(V, H)
            self.attention = BahdanauAttention()
            self.gru = nn.GRU(2 * H, H, batch_first=True)
            self.out = nn.Linear(H, V)

        def forward(self, enc_out, enc_hidden, target=None):
            b = enc_out.size(0)
            dec_in = torch.empty(b, 1, dtype=torch.long, device=enc_out.device).fill_(SOS)
            hidden = enc_hidden
            outs, attns = [], []
            for i in range(MAXLEN):
                emb = self.embedding(dec_in)
                query = hidden.permute(1, 0, 2)
                context, w = self.attention(query, enc_out)
                output, hidden = self.gru(torch.cat((emb, context), dim=2), hidden)
                output = self.out(output)
                outs.append(output)
                attns.append(w)
                if target is not None:
                    dec_in = target[:, i].unsqueeze(1)
                else:
                    _, topi = output.topk(1)
                    dec_in = topi.squeeze(-1).detach()
            return F.log_softmax(torch.cat(outs, dim=1), dim=-1), hidden, torch.cat(attns, dim=1)

    enc = _fill(torch, Encoder(), 2620).to(device)
    dec = _fill(torch, AttnDecoder(), 2621).to(device)
    src = torch.tensor([[2, 3, 4, 5, 1, 1], [6, 7, 8, 1, 1, 1], [3, 3, 2, 6, 7, 1]], device=device)
    tgt = src.flip(1)
    enc_opt = torch.optim.Adam(enc.parameters(), lr=5e-3)
    dec_opt = torch.optim.Adam(dec.parameters(), lr=5e-3)
    crit = nn.NLLLoss()
    log = []
    for epoch in range(3):
        enc_opt.zero_grad()
        dec_opt.zero_grad()
        enc_out, enc_hidden = enc(src)
        dec_out, _, attn = dec(enc_out, enc_hidden, tgt)
        loss = crit(dec_out.view(-1, dec_out.size(-1)), tgt.view(-1))
        loss.backward()
        enc_opt.step()
        dec_opt.step()
        log.append(round(loss.item(), 5))
    with torch.no_grad():
        enc_out, enc_hidden = enc(src)
        dec_out, _, attn = dec(enc_out, enc_hidden)
        _, topi = dec_out.topk(1)
        decoded = topi.squeeze(-1)
    words = [[int(t) for t in row if t != EOS] for row in decoded.tolist()]
    return {"log": log, "decoded": words, "attn": _r(attn[0, 0], 4), "attn_sum": _r(attn.sum(-1), 5)}


# ---- char-level generation with temperature and top-k ---------------------------------------------------------------------------
def char_generation(torch, device):
    nn, F = torch.nn, torch.nn.functional
    text = "hello world, hello torch. "
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    itos = {i: c for c, i in stoi.items()}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)

    class CharLSTM(nn.Module):
        def __init__(self, v, h):
            super().__init__()
            self.emb = nn.Embedding(v, h)
            self.lstm = nn.LSTM(h, h, num_layers=2, batch_first=True)
            self.fc = nn.Linear(h, v)

        def forward(self, x, state=None):
            out, state = self.lstm(self.emb(x), state)
            return self.fc(out), state

    model = _fill(torch, CharLSTM(len(chars), 10), 2630).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-2)
    seq = 8
    xs = torch.stack([data[i:i + seq] for i in range(0, len(data) - seq - 1, 4)]).to(device)
    ys = torch.stack([data[i + 1:i + seq + 1] for i in range(0, len(data) - seq - 1, 4)]).to(device)
    log = []
    for step in range(5):
        opt.zero_grad()
        logits, _ = model(xs)
        loss = F.cross_entropy(logits.reshape(-1, len(chars)), ys.reshape(-1))
        loss.backward()
        torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        log.append(round(loss.item(), 5))
    # deterministic decoding: top-k filtered, temperature-scaled distribution, argmax of probs + gumbel from NumPy
    model.eval()
    gumbel = -np.log(-np.log(np.random.default_rng(2631).uniform(1e-6, 1 - 1e-6, (12, len(chars)))))
    idx = torch.tensor([[stoi["h"]]], device=device)
    state = None
    out = "h"
    with torch.no_grad():
        for t in range(12):
            logits, state = model(idx, state)
            logits = logits[:, -1, :] / 0.8
            v, _ = torch.topk(logits, 4)
            logits[logits < v[:, [-1]]] = -float("Inf")
            probs = F.softmax(logits, dim=-1)
            noisy = probs.log() + torch.tensor(gumbel[t], dtype=probs.dtype, device=device)
            idx = noisy.argmax(-1, keepdim=True)
            out += itos[idx.item()]
    return {"log": log, "text": out, "h": _r(state[0][:, 0, :3], 4), "c_shape": list(state[1].shape),
            "n_inf": int(torch.isinf(logits).sum())}


# ---- stochastic weight averaging with update_bn -----------------------------------------------------------------------------------
def swa_update_bn(torch, device):
    nn, F = torch.nn, torch.nn.functional
    swa_utils = torch.optim.swa_utils
    model = _fill(torch, nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 1)),
                  2640).to(device)
    swa_model = swa_utils.AveragedModel(model)
    ema_model = swa_utils.AveragedModel(model, multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    swa_sched = swa_utils.SWALR(opt, swa_lr=0.02, anneal_epochs=2, anneal_strategy="linear")
    x = _randn(torch, 2641, 32, 4, device=device)
    y = x[:, :1] * 0.5 - x[:, 1:2]
    loader = [(x[i:i + 8], y[i:i + 8]) for i in range(0, 32, 8)]
    lrs = []
    for epoch in range(6):
        for xb, yb in loader:
            opt.zero_grad()
            F.mse_loss(model(xb), yb).backward()
            opt.step()
        if epoch >= 3:
            swa_model.update_parameters(model)
            ema_model.update_parameters(model)
            swa_sched.step()
        else:
            sched.step()
        lrs.append(round(opt.param_groups[0]["lr"], 6))
    before = swa_model.module[1].running_mean.clone()
    swa_utils.update_bn([xb for xb, _ in loader], swa_model, device=device)
    swa_model.eval()
    with torch.no_grad():
        pred = swa_model(x[:4])
    return {"lrs": lrs, "n_averaged": swa_model.n_averaged.item(), "ema_n": ema_model.n_averaged.item(),
            "bn_changed": not torch.equal(before, swa_model.module[1].running_mean),
            "rm": _r(swa_model.module[1].running_mean, 4), "pred": _r(pred, 4),
            "ema_w": _r(ema_model.module[3].weight, 4), "sd_keys": list(swa_model.state_dict())[:3],
            "momentum": swa_model.module[1].momentum}


# ---- optimizers and schedulers in unusual combinations -------------------------------------------------------------------------------
def optimizer_combos(torch, device):
    nn, F = torch.nn, torch.nn.functional
    S = torch.optim.lr_scheduler
    model = _fill(torch, nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2)), 2650).to(device)
    x = _randn(torch, 2651, 10, 4, device=device)
    y = _randn(torch, 2652, 10, 2, device=device)
    opt = torch.optim.Adam([{"params": model[0].parameters(), "betas": (0.8, 0.99)},
                            {"params": model[2].parameters(), "lr": 1e-2, "amsgrad": True}], lr=3e-3)
    sched = S.LambdaLR(opt, lr_lambda=[lambda e: 0.9 ** e, lambda e: 1.0 / (1 + e)])
    calls = []

    def pre_hook(optimizer, args, kwargs):
        calls.append(round(optimizer.param_groups[1]["lr"], 6))

    handle = opt.register_step_pre_hook(pre_hook)
    post = opt.register_step_post_hook(lambda o, a, k: calls.append("post"))
    log = []
    for step in range(3):
        opt.zero_grad()
        loss = F.smooth_l1_loss(model(x), y, beta=0.5)
        loss.backward()
        opt.step()
        sched.step()
        log.append([round(loss.item(), 5), [round(lr, 6) for lr in sched.get_last_lr()]])
    handle.remove()
    post.remove()
    sd = opt.state_dict()
    # reload into a fresh optimizer that had another lr: the saved groups' hyper-parameters win
    opt2 = torch.optim.Adam([{"params": model[0].parameters()}, {"params": model[2].parameters()}], lr=0.5)
    opt2.load_state_dict(sd)
    groups = [[g["lr"], g["betas"], g["amsgrad"]] for g in opt2.param_groups]
    has_max = "max_exp_avg_sq" in opt2.state[model[2].weight]
    # CyclicLR on Adam needs cycle_momentum=False
    opt3 = torch.optim.Adam(model.parameters(), lr=1e-3)
    err = None
    try:
        S.CyclicLR(opt3, base_lr=1e-4, max_lr=1e-2, step_size_up=2)
    except ValueError as e:
        err = str(e)
    cyc = S.CyclicLR(opt3, base_lr=1e-4, max_lr=1e-2, step_size_up=2, mode="exp_range", gamma=0.9,
                     cycle_momentum=False)
    lrs = []
    for _ in range(6):
        opt3.step()
        cyc.step()
        lrs.append(round(cyc.get_last_lr()[0], 7))
    # MultiplicativeLR and PolynomialLR chained
    opt4 = torch.optim.SGD(model.parameters(), lr=1.0)
    chain = S.ChainedScheduler([S.MultiplicativeLR(opt4, lambda e: 0.95),
                                S.PolynomialLR(opt4, total_iters=4, power=2.0)])
    chained = []
    for _ in range(5):
        opt4.step()
        chain.step()
        chained.append(round(opt4.param_groups[0]["lr"], 6))
    # a whole training state pickled at once (optimizer and scheduler objects), then plain SGD's empty state
    import pickle
    opt5 = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    seq = S.SequentialLR(opt5, [S.LinearLR(opt5, 0.5, total_iters=2), S.ExponentialLR(opt5, 0.9)], milestones=[2])
    for _ in range(3):
        opt5.step()
        seq.step()
    blob = pickle.loads(pickle.dumps({"opt": opt5, "sched": seq}))
    restored = [round(blob["opt"].param_groups[0]["lr"], 6), "step" in vars(blob["opt"]),
                [type(s).__name__ for s in blob["sched"]._schedulers], blob["sched"].last_epoch]
    plain = torch.optim.SGD(model.parameters(), lr=0.1)
    F.mse_loss(model(x), y).backward()
    plain.step()
    return {"log": log, "calls": calls, "groups": groups, "has_max": has_max, "err": err, "cyclic": lrs,
            "chained": chained, "state_steps": [float(s["step"]) for s in opt2.state.values()],
            "restored": restored, "plain_state": [len(plain.state), plain.state_dict()["state"]]}


# ---- a checkpoint holding a config object, loaded with weights_only=True ----------------------------------------------------
class RunConfig:
    """What training scripts pickle next to the weights (a dataclass-like config)."""

    def __init__(self, lr, layers):
        self.lr, self.layers = lr, layers


def checkpoint_with_config(torch, device):
    import argparse
    import pickle
    S = torch.serialization
    model = _fill(torch, torch.nn.Linear(3, 2), 2660).to(device)
    buf = io.BytesIO()
    torch.save({"model": model.state_dict(), "config": RunConfig(3e-4, [3, 2]),
                "args": argparse.Namespace(epochs=2, seed=0), "step": 10}, buf)
    raw = buf.getvalue()
    log = []
    try:
        torch.load(io.BytesIO(raw))  # weights_only=True by default since 2.6
    except pickle.UnpicklingError as e:
        log.append(["refused", str(e).split("WeightsUnpickler error: ")[-1].split(" was not")[0]])
    unsafe = sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)))
    log.append(["unsafe", unsafe])
    with S.safe_globals([RunConfig, argparse.Namespace]):
        ck = torch.load(io.BytesIO(raw), map_location="cpu")
        log.append(["inside", sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)))])
    log.append(["after", sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)))])
    # allowlisting one class for the whole script, then a block that lists it again removes it on exit
    S.add_safe_globals([argparse.Namespace])
    S.add_safe_globals([argparse.Namespace])
    with S.safe_globals([argparse.Namespace, RunConfig]):
        pass
    log.append(["cleared_by_block", sorted(S.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)))])
    S.clear_safe_globals()
    errors = []
    for where in ("gpu", "cpu:0", "CPU"):
        try:
            torch.load(io.BytesIO(raw), map_location=where, weights_only=False)
        except RuntimeError as e:
            errors.append(str(e))
    restored = torch.nn.Linear(3, 2)
    restored.load_state_dict(ck["model"])
    return {"log": log, "config": [ck["config"].lr, ck["config"].layers], "args": vars(ck["args"]),
            "step": ck["step"], "errors": errors, "w": _r(restored.weight, 5)}


PROGRAMS = [pandas_tabular, save_load_across_devices, seq2seq_attention, char_generation, swa_update_bn,
            optimizer_combos, checkpoint_with_config]
NEEDS_CPP = {}
