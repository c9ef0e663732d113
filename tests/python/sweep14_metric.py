"""Sweep 14 programs, metric learning and contrastive objectives: batch-hard and batch-all triplet mining with cdist
and the triplet losses (swap, p-norms, a custom distance), pair losses (CosineEmbedding, MarginRanking,
HingeEmbedding, Hadsell's contrastive loss), SimCLR's NT-Xent and a MoCo queue, circle and multi-similarity losses,
proxy-based losses with a center loss by index_add_, the multi-margin family, and retrieval metrics (recall@k, mAP)
from a similarity matrix.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep14.py). Data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import init_from_numpy as _init


def _embeddings(torch, device, seed, n=12, dim=8, classes=3):
    rng = np.random.default_rng(seed)
    labels = np.arange(n) % classes
    centers = rng.standard_normal((classes, dim)) * 2
    emb = centers[labels] + rng.standard_normal((n, dim))
    return (torch.tensor(emb, dtype=torch.float32, device=device),
            torch.tensor(labels, device=device))


# ---- batch-hard / batch-all triplet mining and the triplet losses -----------------------------------------------
def triplet_mining_losses(torch, device):
    nn = torch.nn
    F = nn.functional
    emb, labels = _embeddings(torch, device, 1440)
    net = nn.Linear(8, 4).to(device)
    _init(torch, net, 1441)
    z = F.normalize(net(emb), dim=-1)
    dist = torch.cdist(z, z, p=2)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(len(labels), dtype=torch.bool, device=device)
    pos_mask, neg_mask = same & ~eye, ~same
    hardest_pos = (dist * pos_mask).max(1).values
    hardest_neg = dist.masked_fill(~neg_mask, float("inf")).min(1).values
    batch_hard = F.relu(hardest_pos - hardest_neg + 0.3).mean()
    triplets = pos_mask.unsqueeze(2) & neg_mask.unsqueeze(1)
    all_losses = F.relu(dist.unsqueeze(2) - dist.unsqueeze(1) + 0.3)[triplets]
    batch_all = all_losses.sum() / (all_losses > 1e-16).sum().clamp_min(1)
    batch_hard.backward()
    a_idx = torch.arange(len(labels), device=device)
    p_idx = (dist * pos_mask).argmax(1)
    n_idx = dist.masked_fill(~neg_mask, float("inf")).argmin(1)
    z = z.detach()
    losses = {
        "builtin": F.triplet_margin_loss(z[a_idx], z[p_idx], z[n_idx], margin=0.3).item(),
        "swap": F.triplet_margin_loss(z[a_idx], z[p_idx], z[n_idx], margin=0.3, swap=True).item(),
        "p1": nn.TripletMarginLoss(margin=0.5, p=1, reduction="sum")(z[a_idx], z[p_idx], z[n_idx]).item(),
        "none": F.triplet_margin_loss(z[a_idx], z[p_idx], z[n_idx], reduction="none").tolist(),
        "cosine": nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=0.2)(z[a_idx], z[p_idx],
                                                                                      z[n_idx]).item(),
        "default_dist": F.triplet_margin_with_distance_loss(z[a_idx], z[p_idx], z[n_idx], swap=True).item(),
        "pairwise": F.pairwise_distance(z[:3], z[3:6], p=3, eps=1e-6, keepdim=True).flatten().tolist(),
        "pdist": F.pdist(z[:4]).tolist(), "pdist_inf": F.pdist(z[:4], p=float("inf")).tolist(),
    }
    cd = torch.cdist(z[:3].unsqueeze(0), z[3:7].unsqueeze(0), p=1)
    return {"batch_hard": batch_hard.item(), "batch_all": batch_all.item(), "n_triplets": int(triplets.sum()),
            "grad": net.weight.grad.abs().sum().item(), "losses": losses, "cdist_p1": cd.flatten().tolist(),
            "cdist_mm": torch.cdist(z[:3], z[3:7], compute_mode="use_mm_for_euclid_dist").flatten().tolist(),
            "idx": [p_idx.tolist(), n_idx.tolist()]}


# ---- pair losses: CosineEmbedding, MarginRanking, HingeEmbedding and Hadsell's contrastive loss -------------------
def pair_losses(torch, device):
    nn = torch.nn
    F = nn.functional
    emb, labels = _embeddings(torch, device, 1442)
    a, b = emb[:6], emb[6:]
    same = (labels[:6] == labels[6:])
    target = same.float() * 2 - 1
    d = F.pairwise_distance(a, b)
    margin = 2.0
    hadsell = (same.float() * d.pow(2) + (1 - same.float()) * F.relu(margin - d).pow(2)).mean() / 2
    out = {
        "cosine_emb": [F.cosine_embedding_loss(a, b, target, margin=0.1).item(),
                       nn.CosineEmbeddingLoss(reduction="none")(a, b, target).tolist()],
        "ranking": [F.margin_ranking_loss(d[:3], d[3:], torch.tensor([1.0, -1.0, 1.0], device=device),
                                          margin=0.5).item(),
                    nn.MarginRankingLoss(reduction="sum")(d[:3], d[3:], torch.ones(3, device=device)).item()],
        "hinge": [F.hinge_embedding_loss(d, target, margin=3.0).item(),
                  nn.HingeEmbeddingLoss(reduction="none")(d, target).tolist()],
        "hadsell": hadsell.item(), "cos_sim": F.cosine_similarity(a, b, dim=1, eps=1e-8).tolist(),
        "cos_broadcast": list(F.cosine_similarity(a.unsqueeze(1), b.unsqueeze(0), dim=-1).shape),
        "soft_margin": F.soft_margin_loss(d - 3.0, target).item(),
    }
    errors = []
    for call in (lambda: F.cosine_embedding_loss(a, b[:4], target),
                 lambda: F.margin_ranking_loss(d[:3], d[3:5], torch.ones(3, device=device)),
                 lambda: F.cosine_embedding_loss(a, b, target.unsqueeze(0)),
                 lambda: F.triplet_margin_loss(a, b, a[:, :4])):
        try:
            call()
            errors.append(None)
        except Exception as exc:
            errors.append([type(exc).__name__, str(exc).split("\n")[0]])
    out["errors"] = errors
    return out


# ---- SimCLR's NT-Xent, InfoNCE with a MoCo queue and momentum encoder -----------------------------------------
def ntxent_moco_queue(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(1443)
    base = rng.standard_normal((8, 10))
    v1 = torch.tensor(base + 0.1 * rng.standard_normal((8, 10)), dtype=torch.float32, device=device)
    v2 = torch.tensor(base + 0.1 * rng.standard_normal((8, 10)), dtype=torch.float32, device=device)
    encoder = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 6)).to(device)
    _init(torch, encoder, 1444)

    def nt_xent(z1, z2, tau=0.5):
        z = F.normalize(torch.cat([z1, z2]), dim=1)
        sim = z @ z.T / tau
        sim.fill_diagonal_(float("-inf"))
        n = z1.shape[0]
        targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
        return F.cross_entropy(sim, targets), sim

    loss, sim = nt_xent(encoder(v1), encoder(v2))
    loss.backward()
    acc = (sim.argmax(1) == torch.cat([torch.arange(8, 16), torch.arange(0, 8)]).to(device)).float().mean()
    # MoCo: a momentum key encoder and a queue of negatives
    key_enc = nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Linear(16, 6)).to(device)
    key_enc.load_state_dict(encoder.state_dict())
    for p in key_enc.parameters():
        p.requires_grad_(False)
    K = 16
    queue = F.normalize(torch.tensor(rng.standard_normal((6, K)), dtype=torch.float32, device=device), dim=0)
    ptr = 0
    opt = torch.optim.SGD(encoder.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    moco_losses = []
    for step in range(4):
        batch = slice(4 * (step % 2), 4 * (step % 2) + 4)
        q = F.normalize(encoder(v1[batch]), dim=1)
        with torch.no_grad():
            for pq, pk in zip(encoder.parameters(), key_enc.parameters()):
                pk.mul_(0.99).add_(pq.detach(), alpha=0.01)
            k = F.normalize(key_enc(v2[batch]), dim=1)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", q, queue.clone().detach())
        logits = torch.cat([l_pos, l_neg], dim=1) / 0.07
        loss_m = F.cross_entropy(logits, torch.zeros(logits.shape[0], dtype=torch.long, device=device))
        opt.zero_grad()
        loss_m.backward()
        opt.step()
        moco_losses.append(loss_m.item())
        queue[:, ptr:ptr + 4] = k.T
        ptr = (ptr + 4) % K
    return {"nt_xent": loss.item(), "acc": acc.item(), "grad": encoder[0].weight.grad.norm().item(),
            "moco": moco_losses, "queue_norms": queue.norm(dim=0).tolist(), "ptr": ptr,
            "diag": sim.diagonal().tolist()}


# ---- circle loss and multi-similarity loss (logsumexp / softplus over masked similarity matrices) --------------
def circle_multisimilarity(torch, device):
    F = torch.nn.functional
    emb, labels = _embeddings(torch, device, 1445)
    emb = emb.requires_grad_()
    z = F.normalize(emb, dim=1)
    sim = z @ z.T
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    eye = torch.eye(len(labels), dtype=torch.bool, device=device)
    pos, neg = same & ~eye, ~same
    m, gamma = 0.25, 32.0
    ap = torch.clamp_min(-sim.detach() + 1 + m, 0.0)
    an = torch.clamp_min(sim.detach() + m, 0.0)
    logit_p = -ap * (sim - (1 - m)) * gamma
    logit_n = an * (sim - m) * gamma
    logit_p = logit_p.masked_fill(~pos, float("-inf"))
    logit_n = logit_n.masked_fill(~neg, float("-inf"))
    circle = F.softplus(torch.logsumexp(logit_n, dim=1) + torch.logsumexp(logit_p, dim=1)).mean()
    alpha, beta, base = 2.0, 50.0, 0.5
    pos_term = torch.log1p((torch.exp(-alpha * (sim - base)) * pos).sum(1)) / alpha
    neg_term = torch.log1p((torch.exp(beta * (sim - base)) * neg).sum(1)) / beta
    ms = (pos_term + neg_term).mean()
    (circle + ms).backward()
    lse_empty = torch.logsumexp(torch.full((2, 3), float("-inf"), device=device), dim=1)
    return {"circle": circle.item(), "ms": ms.item(), "grad": emb.grad.abs().sum().item(),
            "lse_empty": [repr(v) for v in lse_empty.tolist()], "sim_diag": sim.diagonal().tolist()}


# ---- proxy losses (Proxy-NCA, Proxy-Anchor), a center loss by index_add_, the multi-margin family ---------------
def proxy_and_center_losses(torch, device):
    nn = torch.nn
    F = nn.functional
    emb, labels = _embeddings(torch, device, 1446)
    proxies = nn.Parameter(torch.tensor(np.random.default_rng(1447).standard_normal((3, 8)), dtype=torch.float32,
                                        device=device))
    z = F.normalize(emb, dim=1)
    p = F.normalize(proxies, dim=1)
    d = torch.cdist(z, p) ** 2
    proxy_nca = F.cross_entropy(-d, labels)
    cos = z @ p.T
    onehot = F.one_hot(labels, 3).float()
    alpha, delta = 32.0, 0.1
    pos_exp = torch.exp(-alpha * (cos - delta)) * onehot
    neg_exp = torch.exp(alpha * (cos + delta)) * (1 - onehot)
    with_pos = (onehot.sum(0) > 0).nonzero().squeeze(1)
    proxy_anchor = torch.log1p(pos_exp.sum(0)).sum() / len(with_pos) + torch.log1p(neg_exp.sum(0)).sum() / 3
    (proxy_nca + proxy_anchor).backward()
    # center loss with centers updated by index_add_
    centers = torch.zeros(3, 8, device=device)
    counts = torch.zeros(3, device=device).index_add_(0, labels, torch.ones(len(labels), device=device))
    centers.index_add_(0, labels, emb)
    centers /= counts.unsqueeze(1)
    center_loss = 0.5 * (emb - centers[labels]).pow(2).sum(1).mean()
    scatter_centers = torch.zeros(3, 8, device=device).scatter_reduce(0, labels.unsqueeze(1).expand(-1, 8), emb,
                                                                      reduce="mean", include_self=False)
    logits = emb @ torch.tensor(np.random.default_rng(1448).standard_normal((8, 3)), dtype=torch.float32,
                                device=device)
    multi_target = torch.tensor([[0, 2, -1], [1, -1, 0], [2, 0, 1]], device=device)
    return {"proxy_nca": proxy_nca.item(), "proxy_anchor": proxy_anchor.item(),
            "proxy_grad": proxies.grad.abs().sum().item(), "center": center_loss.item(),
            "scatter_same": torch.allclose(scatter_centers, centers, atol=1e-6),
            "multi_margin": [F.multi_margin_loss(logits, labels).item(),
                             F.multi_margin_loss(logits, labels, p=2, margin=0.5,
                                                 weight=torch.tensor([1.0, 2.0, 0.5], device=device)).item(),
                             nn.MultiMarginLoss(reduction="none")(logits, labels).tolist()],
            "multilabel_margin": [F.multilabel_margin_loss(logits[:3], multi_target).item(),
                                  nn.MultiLabelMarginLoss(reduction="none")(logits[:3], multi_target).tolist()],
            "multilabel_soft": F.multilabel_soft_margin_loss(logits, onehot, weight=torch.tensor(
                [1.0, 0.5, 2.0], device=device)).item()}


# ---- retrieval metrics: recall@k and mAP from a similarity matrix, with topk and ties handled stably -----------
def retrieval_metrics(torch, device):
    F = torch.nn.functional
    q, q_labels = _embeddings(torch, device, 1449, n=6)
    g, g_labels = _embeddings(torch, device, 1449, n=15)
    g = g + 0.3 * torch.tensor(np.random.default_rng(1450).standard_normal((15, 8)), dtype=torch.float32,
                               device=device)
    sim = F.normalize(q, dim=1) @ F.normalize(g, dim=1).T
    match = q_labels.unsqueeze(1) == g_labels.unsqueeze(0)
    recall = {}
    for k in (1, 3, 5):
        idx = sim.topk(k, dim=1).indices
        recall[k] = match.gather(1, idx).any(1).float().mean().item()
    order = sim.argsort(dim=1, descending=True, stable=True)
    hits = match.gather(1, order).float()
    precision_at = hits.cumsum(1) / torch.arange(1, 16, device=device)
    ap = (precision_at * hits).sum(1) / hits.sum(1)
    ranks = (hits.argmax(1) + 1).float()
    knn = torch.mode(g_labels[sim.topk(5, dim=1).indices], dim=1)
    return {"recall": [recall[1], recall[3], recall[5]], "mAP": ap.mean().item(), "ap": ap.tolist(),
            "mrr": (1.0 / ranks).mean().item(), "knn": knn.values.tolist(), "knn_idx": knn.indices.tolist(),
            "top_vals": sim.topk(2, dim=1, sorted=True).values.flatten().tolist()}


PROGRAMS = [triplet_mining_losses, pair_losses, ntxent_moco_queue, circle_multisimilarity, proxy_and_center_losses,
            retrieval_metrics]
NEEDS_CPP = {}
