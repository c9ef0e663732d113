"""Sweep 11 programs, recommenders written from scratch: a factorization machine over EmbeddingBag fields (max/mean
modes, include_last_offset, per_sample_weights, padding_idx), two-tower retrieval trained with in-batch negatives
(CosineSimilarity, label smoothing, recall@k with topk), BPR with negative sampling (Adamax, NAdam), a DeepFM-style
model over hashed features (bucketize, searchsorted, histc, ModuleDict/ParameterDict) and neural collaborative
filtering ranked with MarginRankingLoss and optimizer.add_param_group.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep11.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


# ---- factorization machine over bags of field values (EmbeddingBag sum/mean/max, offsets, per-sample weights) -------
def factorization_machine(torch, device):
    nn = torch.nn

    class FM(nn.Module):
        def __init__(self, n_features, dim):
            super().__init__()
            self.linear = nn.EmbeddingBag(n_features, 1, mode="sum", padding_idx=0)
            self.factors = nn.EmbeddingBag(n_features, dim, mode="sum", padding_idx=0)
            self.squares = nn.EmbeddingBag(n_features, dim, mode="sum", padding_idx=0)
            self.bias = nn.Parameter(torch.zeros(1))

        def forward(self, ids, offsets, weights):
            # sum_i<j <v_i, v_j> x_i x_j = 0.5 * ((sum v x)^2 - sum (v x)^2)
            linear = self.linear(ids, offsets, per_sample_weights=weights).squeeze(1)
            summed = self.factors(ids, offsets, per_sample_weights=weights)
            v = self.factors.weight[ids] * weights.unsqueeze(1)
            sq = torch.zeros_like(summed).index_add_(0, self._bag_of(ids, offsets), v * v)
            pair = 0.5 * (summed.pow(2) - sq).sum(1)
            return self.bias + linear + pair

        @staticmethod
        def _bag_of(ids, offsets):
            marks = torch.zeros(ids.shape[0], dtype=torch.long, device=ids.device)
            marks[offsets[1:]] = 1
            return marks.cumsum(0)

    rng = np.random.default_rng(1101)
    model = FM(30, 4).to(device)
    init_from_numpy(torch, model, 1102)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)
    losses = []
    for step in range(5):
        lengths = rng.integers(1, 5, size=8)
        ids = torch.tensor(rng.integers(0, 30, size=int(lengths.sum())), device=device)
        offsets = torch.tensor(np.concatenate([[0], np.cumsum(lengths)[:-1]]), device=device)
        weights = torch.tensor(rng.uniform(0.5, 1.5, size=int(lengths.sum())), dtype=torch.float32, device=device)
        y = torch.tensor(rng.integers(0, 2, size=8), dtype=torch.float32, device=device)
        loss = nn.functional.binary_cross_entropy_with_logits(model(ids, offsets, weights), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # the other bag modes, include_last_offset, and a 2-D input without offsets
    bag_max = nn.EmbeddingBag(30, 3, mode="max").to(device)
    bag_mean = nn.EmbeddingBag.from_pretrained(model.factors.weight.detach()[:, :3].clone(), mode="mean",
                                               include_last_offset=True, padding_idx=0)
    init_from_numpy(torch, bag_max, 1103)
    ids = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9, 0, 0], device=device)
    offs = torch.tensor([0, 2, 2, 7, 10], device=device)
    out_max = bag_max(ids, offs[:-1])
    out_mean = bag_mean(ids, offs)
    out_2d = bag_max(ids.view(2, 5))
    out_max.sum().backward()
    return {"losses": _rounded(losses), "max": _rounded(out_max.flatten()), "mean": _rounded(out_mean.flatten()),
            "two_d": _rounded(out_2d.flatten()), "max_grad_rows": bag_max.weight.grad.abs().sum(1).nonzero()
            .flatten().tolist(), "grad_padding": model.factors.weight.grad[0].abs().sum().item(),
            "frozen": bag_mean.weight.requires_grad, "repr": repr(bag_mean)}


# ---- two-tower retrieval with in-batch negatives (cosine similarity, temperature, recall@k) ---------------------
def two_tower_retrieval(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class Tower(nn.Module):
        def __init__(self, n_ids, n_cats, dim):
            super().__init__()
            self.id_emb = nn.Embedding(n_ids, dim)
            self.cat_emb = nn.Embedding(n_cats, dim, max_norm=1.0)
            self.mlp = nn.Sequential(nn.Linear(2 * dim, 16), nn.SiLU(), nn.LayerNorm(16), nn.Linear(16, dim))

        def forward(self, ids, cats):
            return self.mlp(torch.cat([self.id_emb(ids), self.cat_emb(cats)], dim=-1))

    rng = np.random.default_rng(1111)
    users, items = Tower(20, 4, 8).to(device), Tower(25, 5, 8).to(device)
    init_from_numpy(torch, users, 1112)
    init_from_numpy(torch, items, 1113)
    cos = nn.CosineSimilarity(dim=-1, eps=1e-6)
    temperature = nn.Parameter(torch.tensor(0.1, device=device).log())
    opt = torch.optim.AdamW([{"params": list(users.parameters()) + list(items.parameters())},
                             {"params": [temperature], "weight_decay": 0.0}], lr=0.01, weight_decay=0.05)
    losses = []
    for step in range(4):
        u = torch.tensor(rng.integers(0, 20, size=6), device=device)
        uc = torch.tensor(rng.integers(0, 4, size=6), device=device)
        i = torch.tensor(rng.integers(0, 25, size=6), device=device)
        ic = torch.tensor(rng.integers(0, 5, size=6), device=device)
        qu, ki = users(u, uc), items(i, ic)
        logits = cos(qu.unsqueeze(1), ki.unsqueeze(0)) / temperature.exp()
        labels = torch.arange(6, device=device)
        loss = (F.cross_entropy(logits, labels, label_smoothing=0.1) + F.cross_entropy(logits.T, labels)) / 2
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        all_items = items(torch.arange(25, device=device), torch.arange(25, device=device) % 5)
        q = users(torch.tensor([0, 3, 7], device=device), torch.tensor([1, 2, 3], device=device))
        scores = F.normalize(q, dim=-1) @ F.normalize(all_items, dim=-1).T
        top = scores.topk(5, dim=1)
        truth = torch.tensor([[4], [10], [24]], device=device)
        hits = (top.indices == truth).any(1).float()
    row_norms = users.cat_emb.weight.norm(dim=1)
    return {"losses": _rounded(losses), "top": top.indices.tolist(), "top_values": _rounded(top.values.flatten()),
            "recall": hits.mean().item(), "max_norm_ok": bool((row_norms <= 1.0 + 1e-5).all()),
            "temperature": round(temperature.exp().item(), 5),
            "groups": [len(g["params"]) for g in opt.param_groups]}


# ---- Bayesian personalised ranking with sampled negatives (Adamax, NAdam, logsigmoid) ----------------------------
def bpr_ranking(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class MF(nn.Module):
        def __init__(self, n_users, n_items, dim):
            super().__init__()
            self.P = nn.Embedding(n_users, dim)
            self.Q = nn.Embedding(n_items, dim)
            self.item_bias = nn.Embedding(n_items, 1)

        def score(self, u, i):
            return (self.P(u) * self.Q(i)).sum(-1) + self.item_bias(i).squeeze(-1)

        def forward(self, u, pos, neg):
            return self.score(u, pos) - self.score(u, neg)

    rng = np.random.default_rng(1121)
    n_users, n_items = 12, 30
    interactions = rng.integers(0, n_items, size=(n_users, 4))
    results = {}
    for name in ("Adamax", "NAdam"):
        model = MF(n_users, n_items, 6).to(device)
        init_from_numpy(torch, model, 1122)
        if name == "Adamax":
            opt = torch.optim.Adamax(model.parameters(), lr=0.05, betas=(0.9, 0.99), weight_decay=1e-4)
        else:
            opt = torch.optim.NAdam(model.parameters(), lr=0.05, momentum_decay=4e-3, decoupled_weight_decay=True,
                                    weight_decay=1e-3)
        losses = []
        batch_rng = np.random.default_rng(1123)
        for step in range(5):
            u = batch_rng.integers(0, n_users, size=16)
            pos = interactions[u, batch_rng.integers(0, 4, size=16)]
            neg = batch_rng.integers(0, n_items, size=16)
            u_t, p_t, n_t = (torch.tensor(a, device=device) for a in (u, pos, neg))
            diff = model(u_t, p_t, n_t)
            loss = -F.logsigmoid(diff).mean() + 1e-3 * (model.P(u_t).norm(dim=1) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        with torch.no_grad():
            all_scores = model.P.weight @ model.Q.weight.T + model.item_bias.weight.T
            seen = torch.zeros_like(all_scores, dtype=torch.bool)
            seen[torch.arange(n_users).unsqueeze(1).expand(-1, 4).reshape(-1).to(device),
                 torch.tensor(interactions.reshape(-1), device=device)] = True
            masked = all_scores.masked_fill(seen, float("-inf"))
            top3 = masked.topk(3, dim=1).indices
        state = opt.state_dict()
        results[name] = {"losses": _rounded(losses), "top3": top3[:4].tolist(),
                         "state_keys": sorted(state["state"][0]),
                         "step": float(state["state"][0]["step"]),
                         "group_keys": sorted(k for k in state["param_groups"][0] if k != "params")}
    return results


# ---- DeepFM over hashed and bucketized features (bucketize, searchsorted, histc, ModuleDict, ParameterDict) ------
def deepfm_hashed_features(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(1131)
    n = 48
    age = torch.tensor(rng.uniform(18, 80, size=n), dtype=torch.float32, device=device)
    income = torch.tensor(rng.lognormal(10, 0.5, size=n), dtype=torch.float32, device=device)
    city_codes = torch.tensor(rng.integers(0, 10_000, size=n), device=device)
    labels = torch.tensor(rng.integers(0, 2, size=n), dtype=torch.float32, device=device)
    age_edges = torch.tensor([25.0, 35.0, 45.0, 55.0, 65.0], device=device)
    age_bucket = torch.bucketize(age, age_edges)
    quantiles = torch.quantile(income, torch.linspace(0, 1, 6, device=device)[1:-1])
    income_bucket = torch.searchsorted(quantiles, income.contiguous(), right=True)
    city_hash = (city_codes * 2654435761) % 16
    hist = torch.histc(age, bins=6, min=18, max=80)

    class DeepFM(nn.Module):
        def __init__(self, cards, dim):
            super().__init__()
            self.emb = nn.ModuleDict({k: nn.Embedding(c, dim) for k, c in cards.items()})
            self.first = nn.ModuleDict({k: nn.Embedding(c, 1) for k, c in cards.items()})
            self.scale = nn.ParameterDict({"fm": nn.Parameter(torch.ones(1)), "deep": nn.Parameter(torch.ones(1))})
            self.deep = nn.Sequential(nn.Flatten(), nn.Linear(len(cards) * dim, 16), nn.ReLU(),
                                      nn.Dropout(0.0), nn.Linear(16, 1))

        def forward(self, feats):
            e = torch.stack([self.emb[k](v) for k, v in feats.items()], dim=1)
            first = sum(self.first[k](v) for k, v in feats.items()).squeeze(1)
            fm = 0.5 * (e.sum(1).pow(2) - e.pow(2).sum(1)).sum(1)
            return first + self.scale["fm"] * fm + self.scale["deep"] * self.deep(e).squeeze(1)

    cards = {"age": 6, "income": 5, "city": 16}
    model = DeepFM(cards, 4).to(device)
    init_from_numpy(torch, model, 1132)
    feats = {"age": age_bucket, "income": income_bucket, "city": city_hash}
    opt = torch.optim.RMSprop(model.parameters(), lr=0.01, alpha=0.9, momentum=0.5, centered=True)
    losses = []
    for _ in range(5):
        loss = nn.functional.binary_cross_entropy_with_logits(model(feats), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"age_bucket": age_bucket.tolist()[:12], "income_bucket": income_bucket.tolist()[:12],
            "bucket_dtypes": [str(age_bucket.dtype), str(torch.bucketize(age, age_edges, out_int32=True).dtype)],
            "hash": city_hash.tolist()[:12], "hist": hist.tolist(), "hist_dtype": str(hist.dtype),
            "quantiles": _rounded(quantiles, 2), "losses": _rounded(losses),
            "params": sorted(n for n, _ in model.named_parameters()),
            "left_right": [torch.searchsorted(age_edges, torch.tensor([35.0, 36.0], device=device)).tolist(),
                           torch.searchsorted(age_edges, torch.tensor([35.0, 36.0], device=device),
                                              side="right").tolist()]}


# ---- neural collaborative filtering ranked by MarginRankingLoss; a new parameter group joins mid-training ------
def ncf_margin_ranking(torch, device):
    nn = torch.nn

    class NCF(nn.Module):
        def __init__(self, n_users, n_items, dim):
            super().__init__()
            self.user = nn.Embedding(n_users, dim)
            self.item = nn.Embedding(n_items, dim)
            self.mlp = nn.Sequential(nn.Linear(2 * dim, 8), nn.ReLU(), nn.Linear(8, 4), nn.ReLU())
            self.out = nn.Linear(4 + dim, 1)

        def forward(self, u, i):
            pu, qi = self.user(u), self.item(i)
            gmf = pu * qi
            deep = self.mlp(torch.cat([pu, qi], dim=1))
            return self.out(torch.cat([gmf, deep], dim=1)).squeeze(1)

    rng = np.random.default_rng(1141)
    model = NCF(10, 15, 4).to(device)
    init_from_numpy(torch, model, 1142)
    criterion = nn.MarginRankingLoss(margin=0.5)
    opt = torch.optim.SGD([{"params": model.user.parameters()}, {"params": model.item.parameters()}],
                          lr=0.1, momentum=0.9, nesterov=True)
    losses, lrs = [], []
    for step in range(6):
        if step == 3:  # unfreeze the towers: the MLP joins the optimizer with its own learning rate
            opt.add_param_group({"params": list(model.mlp.parameters()) + list(model.out.parameters()),
                                 "lr": 0.01})
        u = torch.tensor(rng.integers(0, 10, size=8), device=device)
        a = torch.tensor(rng.integers(0, 15, size=8), device=device)
        b = torch.tensor(rng.integers(0, 15, size=8), device=device)
        target = torch.tensor(rng.choice([-1.0, 1.0], size=8), dtype=torch.float32, device=device)
        loss = criterion(model(u, a), model(u, b), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        lrs.append([g["lr"] for g in opt.param_groups])
    errors = []
    try:
        opt.add_param_group({"params": model.user.parameters()})
    except ValueError as exc:
        errors.append(str(exc))
    try:
        criterion(torch.zeros(3), torch.zeros(3), torch.zeros(4))
    except RuntimeError as exc:
        errors.append(type(exc).__name__)
    return {"losses": _rounded(losses), "lrs": lrs, "errors": errors,
            "defaults": sorted(opt.param_groups[2]), "nesterov": opt.param_groups[2]["nesterov"],
            "none_reduction": _rounded(nn.MarginRankingLoss(reduction="none")(
                torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 2.0, 2.0]), torch.tensor([1.0, -1.0, 1.0])))}


PROGRAMS = [factorization_machine, two_tower_retrieval, bpr_ranking, deepfm_hashed_features, ncf_margin_ranking]
NEEDS_CPP = {}
