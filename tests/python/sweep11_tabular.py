"""Sweep 11 programs, tabular models: entity embeddings for categorical columns with nn.Bilinear feature crossing
(Unflatten, Identity, ParameterList, module printing), a siamese record matcher (PairwiseDistance,
CosineSimilarity, TripletMarginWithDistanceLoss, HingeEmbeddingLoss, CosineEmbeddingLoss), multi-label tagging
with MultiLabelSoftMarginLoss under Rprop, Poisson count regression (PoissonNLLLoss) under ASGD with
ReduceLROnPlateau, an autoencoder whose anomaly threshold comes from quantile/kthvalue, and an optimizer
comparison on one tabular problem (Adagrad, RMSprop, Adamax, NAdam, ASGD, Rprop, Adadelta, RAdam) with
clip_grad_value_ and optimizer state_dict round trips, and a TabNet-style model (ghost batch norm over chunks, GLU
blocks, sparsemax attention masks with a prior).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep11.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy
import io

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _table(seed, n):
    rng = np.random.default_rng(seed)
    cats = np.stack([rng.integers(0, 7, n), rng.integers(0, 4, n), rng.integers(0, 12, n)], axis=1)
    nums = rng.standard_normal((n, 5)).astype(np.float32)
    y = (nums[:, 0] + (cats[:, 1] == 2) - 0.5 * nums[:, 3] > 0.3).astype(np.float32)
    return cats, nums, y


# ---- entity embeddings with a bilinear cross between the categorical and numeric parts -------------------------
def entity_embeddings_bilinear(torch, device):
    nn = torch.nn
    cardinalities = [7, 4, 12]

    class TabularNet(nn.Module):
        def __init__(self, n_num, emb_dims):
            super().__init__()
            self.embs = nn.ModuleList([nn.Embedding(c, d) for c, d in zip(cardinalities, emb_dims)])
            self.emb_drop = nn.Dropout(0.0)
            self.bn = nn.BatchNorm1d(n_num, momentum=0.2)
            self.cross = nn.Bilinear(sum(emb_dims), n_num, 6)
            self.expand = nn.Sequential(nn.Linear(6, 8), nn.Unflatten(1, (2, 4)))
            self.mix = nn.Identity(54, unused="ignored")
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(8, 1))
            self.col_scale = nn.ParameterList([nn.Parameter(torch.ones(d)) for d in emb_dims])

        def forward(self, cats, nums):
            e = torch.cat([emb(cats[:, i]) * s for i, (emb, s) in enumerate(zip(self.embs, self.col_scale))], 1)
            x = self.bn(nums)
            crossed = torch.tanh(self.cross(self.emb_drop(e), x))
            return self.head(self.mix(self.expand(crossed))).squeeze(1)

    cats, nums, y = _table(1401, 64)
    cats_t = torch.tensor(cats, device=device)
    nums_t = torch.tensor(nums, device=device)
    y_t = torch.tensor(y, device=device)
    model = TabularNet(5, [3, 2, 4]).to(device)
    init_from_numpy(torch, model, 1402)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for epoch in range(4):
        for b in range(2):
            idx = slice(b * 32, b * 32 + 32)
            loss = nn.functional.binary_cross_entropy_with_logits(model(cats_t[idx], nums_t[idx]), y_t[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        acc = ((model(cats_t, nums_t) > 0).float() == y_t).float().mean().item()
    bil = nn.Bilinear(2, 3, 4, bias=False).to(device)
    init_from_numpy(torch, bil, 1403)
    a = torch.tensor([[1.0, 2.0]], device=device)
    b = torch.tensor([[0.5, -1.0, 2.0]], device=device)
    manual = torch.einsum("bi,oij,bj->bo", a, bil.weight, b)
    return {"losses": _rounded(losses), "acc": round(acc, 5), "bn_mean": _rounded(model.bn.running_mean),
            "bilinear": torch.allclose(bil(a, b), manual, atol=1e-6),
            "functional": torch.allclose(nn.functional.bilinear(a, b, bil.weight), manual, atol=1e-6),
            "repr": repr(model).replace(" (cuda:0)", "").splitlines(),  # ParameterList lines name the device
            "n_params": sum(p.numel() for p in model.parameters()),
            "param_names": [n for n, _ in model.named_parameters()][-4:],
            "unflatten": list(nn.Unflatten(1, (2, -1))(torch.zeros(3, 8)).shape)}


# ---- siamese record matching: distance modules and the embedding losses ----------------------------------------
def siamese_record_matching(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(1411)
    base = rng.standard_normal((20, 6)).astype(np.float32)
    anchor = torch.tensor(base, device=device)
    positive = torch.tensor(base + 0.1 * rng.standard_normal((20, 6)).astype(np.float32), device=device)
    negative = torch.tensor(rng.standard_normal((20, 6)).astype(np.float32), device=device)
    encoder = nn.Sequential(nn.Linear(6, 16), nn.PReLU(16), nn.Linear(16, 4)).to(device)
    init_from_numpy(torch, encoder, 1412)
    pdist = nn.PairwiseDistance(p=2.0, eps=1e-6, keepdim=False)
    cos = nn.CosineSimilarity(dim=1, eps=1e-8)
    losses = {
        "triplet_l2": nn.TripletMarginWithDistanceLoss(distance_function=pdist, margin=1.0, swap=True),
        "triplet_cos": nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y),
                                                         margin=0.3),
        "triplet_default": nn.TripletMarginWithDistanceLoss(reduction="sum"),
        "triplet_plain": nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True),
    }
    results = {}
    for name, criterion in losses.items():
        model = copy.deepcopy(encoder)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        curve = []
        for _ in range(4):
            loss = criterion(model(anchor), model(positive), model(negative))
            opt.zero_grad()
            loss.backward()
            opt.step()
            curve.append(loss.item())
        results[name] = _rounded(curve)
    with torch.no_grad():
        ea, ep, en = encoder(anchor), encoder(positive), encoder(negative)
        d_pos, d_neg = pdist(ea, ep), pdist(ea, en)
        sims = cos(ea, en)
    pairs = torch.cat([d_pos, d_neg])
    labels = torch.cat([torch.ones(20, device=device), -torch.ones(20, device=device)])
    hinge = nn.HingeEmbeddingLoss(margin=2.0)(pairs, labels)
    hinge_none = F.hinge_embedding_loss(pairs[:3], labels[:3], margin=0.5, reduction="none")
    cos_emb = nn.CosineEmbeddingLoss(margin=0.2)(ea, torch.cat([ep[:10], en[10:]]),
                                                 torch.cat([torch.ones(10), -torch.ones(10)]).to(device))
    keep = nn.PairwiseDistance(keepdim=True)(ea, ep)
    broadcast = F.pairwise_distance(ea, ep[:1], p=1.0)
    errors = []
    try:
        nn.TripletMarginWithDistanceLoss(margin=-1.0)
    except ValueError as exc:
        errors.append(str(exc))
    try:
        nn.TripletMarginWithDistanceLoss()(ea, ep[:, :2], en)
    except RuntimeError as exc:
        errors.append(type(exc).__name__)
    return {"losses": results, "d_pos": _rounded(d_pos[:5]), "d_neg": _rounded(d_neg[:5]),
            "sims": _rounded(sims[:5]), "hinge": round(hinge.item(), 5), "hinge_none": _rounded(hinge_none),
            "cos_emb": round(cos_emb.item(), 5), "keepdim": list(keep.shape), "broadcast": _rounded(broadcast[:4]),
            "errors": errors, "repr": [repr(pdist), repr(cos), repr(losses["triplet_l2"])]}


# ---- multi-label tagging with MultiLabelSoftMarginLoss under Rprop ------------------------------------------------
def multilabel_rprop(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(1421)
    x = torch.tensor(rng.standard_normal((30, 8)), dtype=torch.float32, device=device)
    y = torch.tensor((rng.random((30, 5)) < 0.3).astype(np.float32), device=device)
    class_weight = torch.tensor([1.0, 2.0, 1.0, 0.5, 1.5], device=device)
    model = nn.Sequential(nn.Linear(8, 12), nn.Mish(), nn.Linear(12, 5)).to(device)
    init_from_numpy(torch, model, 1422)
    opt = torch.optim.Rprop(model.parameters(), lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-5, 0.5))
    criterion = nn.MultiLabelSoftMarginLoss(weight=class_weight)
    losses = []
    for _ in range(6):
        loss = criterion(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        logits = model(x)
        bce = F.binary_cross_entropy_with_logits(logits, y, weight=class_weight, reduction="none").mean(1).mean()
        probs = torch.sigmoid(logits)
        pred = probs > 0.5
        tp = (pred & y.bool()).sum(0).float()
        precision = tp / pred.sum(0).clamp(min=1)
        recall = tp / y.sum(0).clamp(min=1)
        f1 = 2 * precision * recall / (precision + recall).clamp(min=1e-8)
    # the integer-target form of multilabel_margin_loss: label lists padded with -1
    targets = torch.tensor([[0, 3, -1, 0, 0], [1, -1, 0, 0, 0]], device=device)
    mlm = F.multilabel_margin_loss(logits[:2], targets)
    state = opt.state_dict()["state"][0]
    return {"losses": _rounded(losses), "vs_bce": round(abs(criterion(logits, y).item() - bce.item()), 6), "f1": _rounded(f1, 4),
            "mlm": round(mlm.item(), 5), "state_keys": sorted(state), "step_size_range":
            [round(state["step_size"].min().item(), 7), round(state["step_size"].max().item(), 7)],
            "none": list(F.multilabel_soft_margin_loss(logits, y, reduction="none").shape)}


# ---- Poisson count regression under ASGD with ReduceLROnPlateau --------------------------------------------------
def poisson_counts_plateau(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1431)
    x = rng.standard_normal((50, 4)).astype(np.float32)
    rate = np.exp(0.3 * x[:, 0] - 0.2 * x[:, 1] + 0.5)
    counts = rng.poisson(rate).astype(np.float32)
    x_t, y_t = torch.tensor(x, device=device), torch.tensor(counts, device=device)
    model = nn.Linear(4, 1).to(device)
    init_from_numpy(torch, model, 1432)
    opt = torch.optim.ASGD(model.parameters(), lr=0.05, lambd=1e-4, alpha=0.75, t0=3.0, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=0.05,
                                                       threshold_mode="rel", cooldown=1, min_lr=1e-3)
    criterion = nn.PoissonNLLLoss(log_input=True, full=True)
    losses, lrs = [], []
    for epoch in range(10):
        loss = criterion(model(x_t).squeeze(1), y_t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        val = loss.item() if epoch < 4 else losses[3]  # a plateau from epoch 4 on
        sched.step(val)
        losses.append(loss.item())
        lrs.append(round(opt.param_groups[0]["lr"], 6))
    rates = model(x_t).squeeze(1).exp().detach()
    direct = nn.PoissonNLLLoss(log_input=False, eps=1e-8)(rates, y_t)
    none = nn.functional.poisson_nll_loss(rates[:4], y_t[:4], log_input=False, full=True, reduction="none")
    ax = opt.state_dict()["state"][0]
    state = sched.state_dict()
    return {"losses": _rounded(losses), "lrs": lrs, "direct": round(direct.item(), 5), "none": _rounded(none),
            "asgd_keys": sorted(ax), "eta": round(float(ax["eta"]), 6), "mu": round(float(ax["mu"]), 6),
            "ax": _rounded(ax["ax"].flatten()), "plateau": [state["num_bad_epochs"], state["cooldown_counter"],
                                                            round(state["best"], 5)],
            "last_lr": [round(v, 6) for v in sched.get_last_lr()]}


# ---- autoencoder anomaly scores: thresholds by quantile, kthvalue, topk ----------------------------------------
def autoencoder_anomaly(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1441)
    normal = rng.standard_normal((60, 6)).astype(np.float32) @ rng.standard_normal((6, 6)).astype(np.float32) * 0.3
    outliers = rng.uniform(-4, 4, size=(6, 6)).astype(np.float32)
    data = torch.tensor(np.concatenate([normal, outliers]), device=device)
    is_outlier = torch.cat([torch.zeros(60), torch.ones(6)]).bool().to(device)
    mean, std = data[:60].mean(0), data[:60].std(0, unbiased=True)
    z = (data - mean) / std
    model = nn.Sequential(nn.Linear(6, 4), nn.ELU(alpha=0.5), nn.Linear(4, 2), nn.Hardtanh(-3, 3),
                          nn.Linear(2, 4), nn.CELU(), nn.Linear(4, 6)).to(device)
    init_from_numpy(torch, model, 1442)
    opt = torch.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    for _ in range(20):
        loss = nn.functional.mse_loss(model(z[:60]), z[:60])
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        scores = (model(z) - z).pow(2).mean(1)
    threshold = torch.quantile(scores[:60], 0.95)
    kth = torch.kthvalue(scores[:60], 57)
    top = torch.topk(scores, 6, largest=True, sorted=True)
    flagged = scores > threshold
    med = scores.median()
    mad = (scores - med).abs().median()
    robust = (scores - med) / (1.4826 * mad)
    ranks = scores.argsort(descending=True, stable=True).argsort()
    return {"loss": round(loss.item(), 5), "threshold": round(threshold.item(), 5),
            "kth": [round(kth.values.item(), 5), int(kth.indices)], "top": top.indices.tolist(),
            "caught": int((flagged & is_outlier).sum()), "false_alarms": int((flagged & ~is_outlier).sum()),
            "robust": _rounded(robust[-6:], 3), "ranks": ranks[-6:].tolist(),
            "kth_keepdim": list(torch.kthvalue(scores.view(6, 11), 3, dim=1, keepdim=True).values.shape),
            "mode": [int(v) for v in torch.mode(torch.tensor([3, 1, 3, 2, 1, 3], device=device))],
            "nanmedian": round(torch.tensor([1.0, float("nan"), 3.0, 2.0], device=device).nanmedian().item(), 5),
            "quantile_dim": _rounded(torch.quantile(z[:10], torch.tensor([0.25, 0.75], device=device), dim=0,
                                                    keepdim=True).flatten()[:6])}


# ---- one tabular problem, many optimizers; clip_grad_value_ and state_dict round trips ---------------------------
def optimizer_zoo_roundtrip(torch, device):
    nn = torch.nn
    cats, nums, y = _table(1451, 40)
    x = torch.tensor(np.concatenate([nums, cats / 10.0], axis=1).astype(np.float32), device=device)
    target = torch.tensor(y, device=device)
    optimizers = {
        "Adagrad": lambda p: torch.optim.Adagrad(p, lr=0.1, weight_decay=1e-3, eps=1e-8),
        "RMSprop": lambda p: torch.optim.RMSprop(p, lr=0.01, weight_decay=1e-3),
        "Adamax": lambda p: torch.optim.Adamax(p, lr=0.02),
        "NAdam": lambda p: torch.optim.NAdam(p, lr=0.02),
        "ASGD": lambda p: torch.optim.ASGD(p, lr=0.05, t0=2),
        "Rprop": lambda p: torch.optim.Rprop(p, lr=0.01),
        "Adadelta": lambda p: torch.optim.Adadelta(p, lr=1.0, rho=0.8),
        "RAdam": lambda p: torch.optim.RAdam(p, lr=0.02, decoupled_weight_decay=True, weight_decay=1e-2),
    }
    results = {}
    for name, make in optimizers.items():
        model = nn.Sequential(nn.Linear(8, 8), nn.ReLU6(), nn.Linear(8, 1)).to(device)
        init_from_numpy(torch, model, 1452)
        opt = make(model.parameters())
        losses = []
        for step in range(3):
            loss = nn.functional.binary_cross_entropy_with_logits(model(x).squeeze(1), target)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_value_(model.parameters(), 0.05)
            opt.step()
            losses.append(loss.item())
        buf = io.BytesIO()
        torch.save(opt.state_dict(), buf)
        buf.seek(0)
        clone = nn.Sequential(nn.Linear(8, 8), nn.ReLU6(), nn.Linear(8, 1)).to(device)
        clone.load_state_dict(model.state_dict())
        opt2 = make(clone.parameters())
        opt2.load_state_dict(torch.load(buf, weights_only=True))
        for m, o in ((model, opt), (clone, opt2)):
            loss = nn.functional.binary_cross_entropy_with_logits(m(x).squeeze(1), target)
            o.zero_grad()
            loss.backward()
            o.step()
        same = all(torch.allclose(a, b, atol=1e-6) for a, b in zip(model.parameters(), clone.parameters()))
        state = opt.state_dict()
        results[name] = {"losses": _rounded(losses), "resumed_same": same,
                         "state_keys": sorted(state["state"][0]),
                         "group_keys": sorted(k for k in state["param_groups"][0] if k != "params")}
    p = nn.Parameter(torch.tensor([1.0, -2.0, 3.0], device=device))
    p.grad = torch.tensor([0.5, -4.0, float("inf")], device=device)
    nn.utils.clip_grad_value_([p], clip_value=1.0)
    results["clipped"] = p.grad.tolist()
    return results


# ---- TabNet-style attentive feature selection (ghost batch norm, GLU blocks, sparsemax-like masks) --------------
def tabnet_lite(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class GhostBN(nn.Module):
        def __init__(self, dim, virtual_batch=8, momentum=0.02):
            super().__init__()
            self.bn = nn.BatchNorm1d(dim, momentum=momentum)
            self.virtual_batch = virtual_batch

        def forward(self, x):
            chunks = x.chunk(max(1, x.shape[0] // self.virtual_batch), dim=0)
            return torch.cat([self.bn(c) for c in chunks], dim=0)

    class GLUBlock(nn.Module):
        def __init__(self, fan_in, fan_out):
            super().__init__()
            self.fc = nn.Linear(fan_in, 2 * fan_out, bias=False)
            self.bn = GhostBN(2 * fan_out)
            self.glu = nn.GLU(dim=-1)

        def forward(self, x):
            return self.glu(self.bn(self.fc(x)))

    def sparsemax(z):
        z_sorted, _ = torch.sort(z, dim=-1, descending=True)
        k = torch.arange(1, z.shape[-1] + 1, device=z.device, dtype=z.dtype)
        cumsum = z_sorted.cumsum(-1)
        support = (1 + k * z_sorted) > cumsum
        k_z = support.sum(-1, keepdim=True)
        tau = (cumsum.gather(-1, k_z - 1) - 1) / k_z.to(z.dtype)
        return torch.clamp(z - tau, min=0)

    class TabNetLite(nn.Module):
        def __init__(self, n_features, n_d, steps):
            super().__init__()
            self.initial_bn = nn.BatchNorm1d(n_features, momentum=0.01)
            self.shared = GLUBlock(n_features, n_d)
            self.attentive = nn.ModuleList([nn.Sequential(nn.Linear(n_d, n_features, bias=False),
                                                          GhostBN(n_features)) for _ in range(steps)])
            self.steps_fc = nn.ModuleList([GLUBlock(n_d, n_d) for _ in range(steps)])
            self.head = nn.Linear(n_d, 1)
            self.gamma = 1.3

        def forward(self, x):
            x = self.initial_bn(x)
            prior = torch.ones_like(x)
            h = self.shared(x)
            out, masks, entropy = 0, [], 0
            for attn, fc in zip(self.attentive, self.steps_fc):
                m = sparsemax(attn(h) * prior)
                prior = prior * (self.gamma - m)
                entropy = entropy + (-m * torch.log(m + 1e-10)).sum(1).mean()
                h = fc(self.shared(x * m))
                out = out + F.relu(h)
                masks.append(m)
            return self.head(out).squeeze(1), torch.stack(masks), entropy / len(masks)

    cats, nums, y = _table(1461, 48)
    x = torch.tensor(np.concatenate([nums, cats / 6.0], axis=1).astype(np.float32), device=device)
    target = torch.tensor(y, device=device)
    model = TabNetLite(8, 6, 3).to(device)
    init_from_numpy(torch, model, 1462)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.7)
    losses = []
    for _ in range(5):
        logits, masks, entropy = model(x)
        loss = F.binary_cross_entropy_with_logits(logits, target) + 1e-3 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        _, masks, _ = model(x)
        importance = masks.sum(0).mean(0)
        importance = importance / importance.sum()
    z = torch.tensor([[1.0, 0.8, -0.5, 0.1], [0.2, 0.2, 0.2, 0.2]], device=device)
    return {"losses": _rounded(losses), "importance": _rounded(importance, 4),
            "mask_rows_sum": _rounded(masks[0].sum(1)[:4], 4), "sparsemax": _rounded(sparsemax(z).flatten()),
            "zeros": int((masks == 0).sum()), "bn_batches": int(model.initial_bn.num_batches_tracked),
            "lr": round(sched.get_last_lr()[0], 6)}


PROGRAMS = [entity_embeddings_bilinear, siamese_record_matching, multilabel_rprop, poisson_counts_plateau,
            autoencoder_anomaly, optimizer_zoo_roundtrip, tabnet_lite]
NEEDS_CPP = {}
