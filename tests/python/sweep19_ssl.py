"""Sweep 19 programs, self-supervised and metric learning not covered before: BYOL and SimSiam (predictor, stop-grad,
momentum target by _foreach_mul_/_foreach_add_ with a cosine momentum schedule), VICReg (variance, invariance,
off-diagonal covariance by the flatten trick), batch-all and batch-hard triplet mining with cdist (every p and
compute_mode) next to TripletMarginWithDistanceLoss, sub-center ArcFace, CosFace and a supervised contrastive (SupCon)
loss with masks, and DINO (teacher centring and sharpening, multi-crop cross-entropy) with SwAV's Sinkhorn-Knopp
assignments.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep19.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

from sweep15_common import cases, plain
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _mlp(torch, i, h, o):
    nn = torch.nn
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(inplace=True), nn.Linear(h, o))


# ---- BYOL and SimSiam ------------------------------------------------------------------------------------------------
def byol_simsiam(torch, device):
    import copy
    F = torch.nn.functional
    online = _fill(torch, torch.nn.Sequential(_mlp(torch, 6, 12, 8), _mlp(torch, 8, 12, 8)), 2200).to(device)
    target = copy.deepcopy(online)
    for p in target.parameters():
        p.requires_grad_(False)
    predictor = _fill(torch, _mlp(torch, 8, 12, 8), 2201).to(device)
    opt = torch.optim.SGD(list(online.parameters()) + list(predictor.parameters()), lr=0.05, momentum=0.9,
                          weight_decay=1e-4)
    x = _randn(torch, 2202, 8, 6, device=device)
    noise = [_randn(torch, 2203 + i, 8, 6, device=device) * 0.1 for i in range(8)]

    def regression(p, z):
        return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1).mean()

    total_steps, base_tau = 4, 0.99
    log = []
    for step in range(total_steps):
        v1, v2 = x + noise[2 * step], x.flip(1) * 0.9 + noise[2 * step + 1]
        p1, p2 = predictor(online(v1)), predictor(online(v2))
        with torch.no_grad():
            z1, z2 = target(v1), target(v2)
        loss = regression(p1, z2) + regression(p2, z1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        tau = 1 - (1 - base_tau) * (math.cos(math.pi * step / total_steps) + 1) / 2
        with torch.no_grad():
            t_params = list(target.parameters())
            o_params = list(online.parameters())
            torch._foreach_mul_(t_params, tau)
            torch._foreach_add_(t_params, o_params, alpha=1 - tau)
            for tb, ob in zip(target.buffers(), online.buffers()):
                tb.copy_(ob)
        log.append([_r(loss, 4), _r(tau, 6)])
    # SimSiam: symmetric negative cosine with stop-gradient on the projector output
    z1, z2 = online(x + noise[0]), online(x + noise[1])
    q1, q2 = predictor(z1), predictor(z2)
    simsiam = -(F.cosine_similarity(q1, z2.detach()).mean() + F.cosine_similarity(q2, z1.detach()).mean()) / 2
    simsiam.backward()
    collapse = F.normalize(z1, dim=1).std(0).mean()
    drift = sum(float((a - b).abs().sum()) for a, b in zip(online.parameters(), target.parameters()))
    return {"log": log, "simsiam": _r(simsiam, 4), "collapse": _r(collapse, 4), "drift": round(drift, 3),
            "target_grads": [p.grad is None for p in target.parameters()][:2],
            "foreach_errors": cases(torch, {
                "length": lambda: torch._foreach_add_([torch.ones(2)], [torch.ones(2), torch.ones(2)]),
                "lerp": lambda: [plain(torch, t) for t in torch._foreach_lerp([torch.zeros(2)], [torch.ones(2)],
                                                                            0.25)],
                "mul_list": lambda: [plain(torch, t) for t in torch._foreach_mul([torch.ones(2), torch.ones(1)],
                                                                               [2.0, 3.0])],
                "norm": lambda: [plain(torch, t) for t in torch._foreach_norm([torch.ones(4), torch.ones(9)])],
            })}


# ---- VICReg --------------------------------------------------------------------------------------------------------
def vicreg(torch, device):
    F = torch.nn.functional
    net = _fill(torch, torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.ReLU(), torch.nn.Linear(16, 6)),
                2210).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=5e-3)
    x = _randn(torch, 2211, 12, 5, device=device)
    aug = _randn(torch, 2212, 12, 5, device=device) * 0.2

    def off_diagonal(m):
        n = m.shape[0]
        return m.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()

    log = []
    for _ in range(5):
        za, zb = net(x), net(x + aug)
        inv = F.mse_loss(za, zb)
        za_c, zb_c = za - za.mean(0), zb - zb.mean(0)
        std_a = torch.sqrt(za_c.var(dim=0) + 1e-4)
        std_b = torch.sqrt(zb_c.var(dim=0) + 1e-4)
        var = (F.relu(1 - std_a).mean() + F.relu(1 - std_b).mean()) / 2
        n, d = za.shape
        cov_a = za_c.T @ za_c / (n - 1)
        cov_b = zb_c.T @ zb_c / (n - 1)
        cov = off_diagonal(cov_a).pow(2).sum() / d + off_diagonal(cov_b).pow(2).sum() / d
        loss = 25 * inv + 25 * var + cov
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([_r(inv, 4), _r(var, 4), _r(cov, 4)])
    masked = cov_a.masked_select(~torch.eye(d, dtype=torch.bool, device=device))
    diag_zeroed = cov_a.clone().fill_diagonal_(0)
    return {"log": log, "same_off_diag": bool(torch.equal(off_diagonal(cov_a), masked)),
            "fill_diag": _r(diag_zeroed.abs().sum() - masked.abs().sum(), 4),
            "torch_cov": bool(torch.allclose(torch.cov(za.T), cov_a, atol=1e-5)),
            "corrcoef_diag": _r(torch.corrcoef(za.T).diagonal(), 4)}


# ---- triplet mining: batch-all and batch-hard with cdist ------------------------------------------------------------
def triplet_mining(torch, device):
    nn, F = torch.nn, torch.nn.functional
    emb_net = _fill(torch, nn.Linear(4, 3), 2220).to(device)
    x = _randn(torch, 2221, 12, 4, device=device)
    labels = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3], device=device)
    margin = 0.3
    opt = torch.optim.SGD(emb_net.parameters(), lr=0.1)
    log = []
    for _ in range(4):
        e = F.normalize(emb_net(x), dim=1)
        d = torch.cdist(e, e, p=2)
        same = labels[:, None] == labels[None, :]
        eye = torch.eye(len(labels), dtype=torch.bool, device=device)
        pos_mask = same & ~eye
        neg_mask = ~same
        hardest_pos = (d * pos_mask).max(1).values
        hardest_neg = d.masked_fill(~neg_mask, float("inf")).min(1).values
        batch_hard = F.relu(hardest_pos - hardest_neg + margin).mean()
        trip = d[:, :, None] - d[:, None, :] + margin  # (a, p, n)
        valid = pos_mask[:, :, None] & neg_mask[:, None, :]
        trip = F.relu(trip) * valid
        positive = (trip > 1e-16).float().sum()
        batch_all = trip.sum() / (positive + 1e-16)
        loss = batch_hard + batch_all
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([_r(batch_hard, 4), _r(batch_all, 4), int(positive)])
    e = emb_net(x).detach()
    a, p, n = e[0::3], e[1::3], e[2::3].roll(1, 0)
    out = {"log": log}
    out["losses"] = cases(torch, {
        "with_distance": lambda: nn.TripletMarginWithDistanceLoss(
            distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5, swap=True)(a, p, n),
        "with_pairwise": lambda: F.triplet_margin_with_distance_loss(a, p, n, distance_function=nn.PairwiseDistance(),
                                                                     reduction="none"),
        "margin_loss": lambda: F.triplet_margin_loss(a, p, n, margin=1.0, p=1, swap=True, eps=1e-6),
        "cosine_embedding": lambda: F.cosine_embedding_loss(a, p, torch.tensor([1, -1, 1, -1], device=device),
                                                            margin=0.2),
        "margin_ranking": lambda: F.margin_ranking_loss(a[:, 0], p[:, 0], torch.tensor([1.0, -1, 1, -1],
                                                                                        device=device)),
        "bad_target": lambda: F.cosine_embedding_loss(a, p, torch.tensor([1, 0, 1, 0], device=device)),
        "bad_distance_shape": lambda: F.triplet_margin_with_distance_loss(a, p, n[:2]),
    })
    out["cdist"] = cases(torch, {
        "p1": lambda: torch.cdist(a, p, p=1),
        "p0": lambda: torch.cdist(a, p, p=0),
        "pinf": lambda: torch.cdist(a, p, p=float("inf")),
        "mm": lambda: torch.cdist(a, p, compute_mode="use_mm_for_euclid_dist"),
        "no_mm": lambda: torch.cdist(a, p, compute_mode="donot_use_mm_for_euclid_dist"),
        "batched": lambda: torch.cdist(e.view(2, 6, 3), e.view(2, 6, 3)[:, :2]).shape,
        "bad_mode": lambda: torch.cdist(a, p, compute_mode="fast"),
        "negative_p": lambda: torch.cdist(a, p, p=-1),
        "dim_mismatch": lambda: torch.cdist(a, p[:, :2]),
        "pdist": lambda: F.pdist(a),
        "grad_zero_distance": lambda: _cdist_grad_at_zero(torch, device),
    })
    return out


def _cdist_grad_at_zero(torch, device):
    a = torch.tensor([[1.0, 2.0], [1.0, 2.0]], device=device, requires_grad=True)
    torch.cdist(a, a).sum().backward()
    return a.grad


# ---- sub-center ArcFace, CosFace, SupCon -----------------------------------------------------------------------
def margin_softmax_losses(torch, device):
    nn, F = torch.nn, torch.nn.functional
    C, K, D = 4, 2, 5
    emb = _randn(torch, 2230, 10, D, device=device)
    labels = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 1], device=device)
    W = nn.Parameter(_randn(torch, 2231, C * K, D, device=device))
    opt = torch.optim.SGD([W], lr=0.1)
    s, m_arc, m_cos = 16.0, 0.3, 0.2
    log = []
    for _ in range(3):
        cos = F.linear(F.normalize(emb), F.normalize(W)).view(-1, C, K).amax(-1)  # sub-centers
        cos = cos.clamp(-1 + 1e-7, 1 - 1e-7)
        theta = torch.acos(cos)
        target = F.one_hot(labels, C).bool()
        arc = torch.where(target, torch.cos(theta + m_arc), cos)
        # easy-margin fallback as insightface: keep cos where theta + m exceeds pi
        th, mm = math.cos(math.pi - m_arc), math.sin(math.pi - m_arc) * m_arc
        arc = torch.where(target & (cos <= th), cos - mm, arc)
        cosface = cos - m_cos * target.float()
        loss = F.cross_entropy(s * arc, labels) + F.cross_entropy(s * cosface, labels, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append(_r(loss, 4))

    def supcon(features, labels, temperature=0.1):
        f = F.normalize(features, dim=-1)  # (N, views, D)
        n, v, _ = f.shape
        contrast = f.transpose(0, 1).reshape(n * v, -1)
        logits = contrast @ contrast.T / temperature
        logits = logits - logits.max(1, keepdim=True).values.detach()
        lab = labels.repeat(v)
        pos = (lab[:, None] == lab[None, :]).float()
        self_mask = torch.ones_like(pos).scatter_(1, torch.arange(n * v, device=features.device)[:, None], 0)
        pos = pos * self_mask
        exp = torch.exp(logits) * self_mask
        log_prob = logits - torch.log(exp.sum(1, keepdim=True))
        mean_log_prob_pos = (pos * log_prob).sum(1) / pos.sum(1).clamp_min(1)
        return -mean_log_prob_pos.mean()

    views = torch.stack([emb, emb + 0.1 * _randn(torch, 2232, 10, D, device=device)], dim=1).requires_grad_(True)
    sc = supcon(views, labels)
    sc.backward()
    return {"log": log, "supcon": _r(sc, 4), "supcon_grad": _r(views.grad.abs().sum(), 3),
            "acos_edge": _r(torch.acos(torch.tensor([1.0, -1.0, 0.0], device=device)), 5),
            "acos_grad_edge": _acos_grad(torch, device)}


def _acos_grad(torch, device):
    x = torch.tensor([1.0, 0.5], device=device, requires_grad=True)
    torch.acos(x).sum().backward()
    return [str(v) for v in x.grad.tolist()]


# ---- DINO centring and sharpening; SwAV Sinkhorn-Knopp ---------------------------------------------------------------
def dino_swav(torch, device):
    import copy
    F = torch.nn.functional
    K, D = 6, 5
    student = _fill(torch, torch.nn.Sequential(torch.nn.Linear(D, 8), torch.nn.GELU(), torch.nn.Linear(8, K)),
                    2240).to(device)
    teacher = copy.deepcopy(student).requires_grad_(False)
    center = torch.zeros(1, K, device=device)
    opt = torch.optim.AdamW(student.parameters(), lr=5e-3)
    x = _randn(torch, 2241, 6, D, device=device)
    crops = [x + 0.05 * _randn(torch, 2242 + i, 6, D, device=device) for i in range(4)]  # 2 global, 2 local
    log = []
    for step in range(4):
        s_out = [student(c) / 0.1 for c in crops]
        with torch.no_grad():
            t_out = [teacher(c) for c in crops[:2]]
            t_soft = [F.softmax((t - center) / 0.04, dim=-1) for t in t_out]
        loss, terms = 0.0, 0
        for iq, q in enumerate(t_soft):
            for v, s in enumerate(s_out):
                if v == iq:
                    continue
                loss = loss + torch.sum(-q * F.log_softmax(s, dim=-1), dim=-1).mean()
                terms += 1
        loss = loss / terms
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            batch_center = torch.cat(t_out).mean(0, keepdim=True)
            center = center * 0.9 + batch_center * 0.1
            for pt, ps in zip(teacher.parameters(), student.parameters()):
                pt.mul_(0.996).add_((1 - 0.996) * ps.detach())
        log.append([_r(loss, 4), terms])

    @torch.no_grad()
    def sinkhorn(scores, eps=0.05, iters=3):
        Q = torch.exp(scores / eps).t()
        Q /= Q.sum()
        k, b = Q.shape
        for _ in range(iters):
            Q /= Q.sum(dim=1, keepdim=True)
            Q /= k
            Q /= Q.sum(dim=0, keepdim=True)
            Q /= b
        return (Q * b).t()

    protos = F.normalize(_randn(torch, 2250, K, D, device=device), dim=1)
    z = F.normalize(x, dim=1)
    q = sinkhorn(z @ protos.t())
    return {"log": log, "center": _r(center, 4), "q_rows": _r(q.sum(1), 4), "q_cols": _r(q.sum(0), 4),
            "assign": q.argmax(1).tolist(), "teacher_grad": any(p.requires_grad for p in teacher.parameters())}


# ---- a collapsed embedding: per-feature standardisation by std, whose gradient at a constant feature is 0 ---------
def collapsed_embedding_std(torch, device):
    net = _fill(torch, torch.nn.Linear(4, 3), 2260).to(device)
    with torch.no_grad():
        net.weight[1].zero_()  # feature 1 has collapsed to its bias: constant over the batch
    x = _randn(torch, 2261, 8, 4, device=device)
    z = net(x)
    standardised = (z - z.mean(0)) / (z.std(0) + 1e-4)
    spread = z.std(0).sum() + torch.std_mean(z, dim=0)[0].sum()
    (standardised.pow(2).mean() + spread).backward()
    return {"std": _r(z.std(0), 4), "nan_grads": bool(torch.isnan(net.weight.grad).any()),
            "bias_grad": _r(net.bias.grad, 4), "weight_grad": _r(net.weight.grad, 4)}


# collapsed_embedding_std was a strict xfail until session 40 gave std's gradient PyTorch's 0 at a zero result.
PROGRAMS = [byol_simsiam, vicreg, triplet_mining, margin_softmax_losses, dino_swav, collapsed_embedding_std]
NEEDS_CPP = {}
