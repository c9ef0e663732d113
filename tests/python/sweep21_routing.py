"""Sweep 21 programs, sparse routing and relational code: a top-k mixture-of-experts layer (softmax gating, one_hot
dispatch masks, index_add combine, the Switch load-balancing loss, capacity dropping), graph message passing with
scatter_reduce and index_add (GCN normalisation, GraphSAGE max aggregation, GAT edge softmax through
scatter_reduce amax), graph-level readout with segment pooling, metric learning (triplet loss with batch-hard mining,
contrastive loss, NT-Xent) and learning-to-rank losses (margin ranking, ListNet, ListMLE, LambdaRank weights).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- top-k mixture of experts -----------------------------------------------------------------------------------------
def mixture_of_experts(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class MoE(nn.Module):
        def __init__(self, dim, n_experts, k, capacity):
            super().__init__()
            self.gate = nn.Linear(dim, n_experts, bias=False)
            self.experts = nn.ModuleList(nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
                                         for _ in range(n_experts))
            self.k, self.n, self.capacity = k, n_experts, capacity

        def forward(self, x):
            logits = self.gate(x)
            probs = logits.softmax(dim=-1)
            topv, topi = probs.topk(self.k, dim=-1)
            topv = topv / topv.sum(dim=-1, keepdim=True)
            out = torch.zeros_like(x)
            dispatch = F.one_hot(topi, self.n).sum(1)
            # Switch-style auxiliary loss on the top-1 choice
            frac = F.one_hot(topi[:, 0], self.n).float().mean(0)
            aux = self.n * (frac * probs.mean(0)).sum()
            dropped = 0
            for e, expert in enumerate(self.experts):
                token_idx, slot = torch.where(topi == e)
                if token_idx.numel() > self.capacity:
                    dropped += token_idx.numel() - self.capacity
                    token_idx, slot = token_idx[:self.capacity], slot[:self.capacity]
                if token_idx.numel() == 0:
                    continue
                y = expert(x[token_idx]) * topv[token_idx, slot].unsqueeze(-1)
                out.index_add_(0, token_idx, y)
            return out, aux, dispatch, dropped

    moe = _fill(torch, MoE(6, 4, 2, 7), 2400).to(device)
    x = _randn(torch, 2401, 16, 6, device=device)
    target = _randn(torch, 2402, 16, 6, device=device)
    opt = torch.optim.AdamW(moe.parameters(), lr=3e-3, weight_decay=0.01)
    log = []
    for step in range(3):
        opt.zero_grad()
        out, aux, dispatch, dropped = moe(x)
        loss = F.mse_loss(out, target) + 0.01 * aux
        loss.backward()
        opt.step()
        log.append([round(loss.item(), 5), round(aux.item(), 5), dispatch.sum(0).tolist(), dropped])
    unused = [i for i, e in enumerate(moe.experts) if e[0].weight.grad is None]
    return {"log": log, "unused": unused, "gate_grad": _r(moe.gate.weight.grad.abs().sum(), 4),
            "dispatch_dtype": str(dispatch.dtype)}


# ---- GCN and GraphSAGE layers with scatter/index_add ---------------------------------------------------------------------
def graph_message_passing(torch, device):
    nn, F = torch.nn, torch.nn.functional
    edges = torch.tensor([[0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 2, 0], [1, 0, 2, 1, 4, 5, 3, 3, 6, 5, 0, 2]], device=device)
    n = 7
    x = _randn(torch, 2410, n, 4, device=device)
    loops = torch.arange(n, device=device).unsqueeze(0).repeat(2, 1)
    ei = torch.cat([edges, loops], dim=1)
    src, dst = ei
    deg = torch.zeros(n, device=device).scatter_add_(0, dst, torch.ones(ei.size(1), device=device))
    norm = deg[src].rsqrt() * deg[dst].rsqrt()
    lin = _fill(torch, nn.Linear(4, 3, bias=False), 2411).to(device)
    h = lin(x)
    gcn = torch.zeros(n, 3, device=device).index_add_(0, dst, h[src] * norm.unsqueeze(-1))
    # the same with a sparse normalised adjacency
    adj = torch.sparse_coo_tensor(torch.stack([dst, src]), norm, (n, n)).coalesce()
    gcn_sparse = torch.sparse.mm(adj, h)
    # GraphSAGE max / mean aggregation
    msg = x[edges[0]]
    idx = edges[1].unsqueeze(-1).expand(-1, 4)
    agg_max = torch.full((n, 4), float("-inf"), device=device).scatter_reduce(0, idx, msg, "amax")
    agg_mean = torch.zeros(n, 4, device=device).scatter_reduce(0, idx, msg, "mean", include_self=False)
    agg_prod = torch.ones(n, 4, device=device).scatter_reduce(0, idx, msg, "prod")
    sage = _fill(torch, nn.Linear(8, 3), 2412).to(device)
    out = F.normalize(sage(torch.cat([x, agg_mean], -1)), p=2, dim=-1)
    out.pow(2).sum().backward()
    indeg = torch.bincount(edges[1], minlength=n)
    return {"gcn": _r(gcn, 4), "sparse_same": bool(torch.allclose(gcn, gcn_sparse, atol=1e-6)),
            "max": _r(agg_max, 4), "mean": _r(agg_mean, 4), "prod": _r(agg_prod, 4), "out": _r(out, 4),
            "indeg": indeg.tolist(), "grad": _r(sage.weight.grad, 4), "nnz": adj._nnz()}


# ---- GAT edge softmax -----------------------------------------------------------------------------------------------------
def gat_edge_softmax(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class GATLayer(nn.Module):
        def __init__(self, fin, fout, heads):
            super().__init__()
            self.lin = nn.Linear(fin, fout * heads, bias=False)
            self.att_src = nn.Parameter(torch.empty(1, heads, fout))
            self.att_dst = nn.Parameter(torch.empty(1, heads, fout))
            self.heads, self.fout = heads, fout

        def forward(self, x, ei):
            n = x.size(0)
            h = self.lin(x).view(n, self.heads, self.fout)
            a_src = (h * self.att_src).sum(-1)
            a_dst = (h * self.att_dst).sum(-1)
            src, dst = ei
            e = F.leaky_relu(a_src[src] + a_dst[dst], 0.2)
            idx = dst.unsqueeze(-1).expand_as(e)
            e_max = torch.zeros(n, self.heads, device=x.device).scatter_reduce(0, idx, e, "amax", include_self=False)
            e = (e - e_max[dst]).exp()
            denom = torch.zeros(n, self.heads, device=x.device).index_add_(0, dst, e)
            alpha = e / denom[dst].clamp_min(1e-16)
            out = torch.zeros(n, self.heads, self.fout, device=x.device)
            out.index_add_(0, dst, h[src] * alpha.unsqueeze(-1))
            return out.mean(1), alpha

    layer = _fill(torch, GATLayer(4, 3, 2), 2420).to(device)
    ei = torch.tensor([[0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 1, 3], [0, 1, 2, 3, 4, 1, 2, 3, 4, 0, 0, 0]], device=device)
    x = _randn(torch, 2421, 5, 4, device=device)
    y = torch.tensor([0, 1, 2, 0, 1], device=device)
    opt = torch.optim.Adam(layer.parameters(), lr=0.01)
    log = []
    for _ in range(3):
        opt.zero_grad()
        out, alpha = layer(x, ei)
        loss = F.cross_entropy(out, y, label_smoothing=0.1)
        loss.backward()
        opt.step()
        log.append(round(loss.item(), 5))
    sums = torch.zeros(5, 2, device=device).index_add_(0, ei[1], alpha.detach())
    return {"log": log, "alpha": _r(alpha, 4), "sums": _r(sums, 5),
            "grads": [_r(p.grad.abs().sum(), 4) for p in layer.parameters()]}


# ---- graph-level readout: segment pooling over a batch of graphs ---------------------------------------------------------
def graph_readout(torch, device):
    batch = torch.tensor([0, 0, 0, 1, 1, 2, 2, 2, 2], device=device)
    x = _randn(torch, 2430, 9, 3, device=device)
    n_graphs = int(batch.max()) + 1
    counts = torch.bincount(batch)
    sum_pool = torch.zeros(n_graphs, 3, device=device).index_add_(0, batch, x)
    mean_pool = sum_pool / counts.unsqueeze(1).to(x.dtype)
    max_pool = torch.zeros(n_graphs, 3, device=device).index_reduce_(0, batch, x, "amax", include_self=False)
    min_pool = x.new_zeros(n_graphs, 3).index_reduce_(0, batch, x, "amin", include_self=False)
    mean_ir = x.new_zeros(n_graphs, 3).index_reduce(0, batch, x, "mean", include_self=False)
    # attention pooling (global soft attention) with a segment softmax
    gate = x.sum(-1)
    gmax = torch.zeros(n_graphs, device=device).scatter_reduce(0, batch, gate, "amax", include_self=False)
    w = (gate - gmax[batch]).exp()
    w = w / torch.zeros(n_graphs, device=device).index_add_(0, batch, w)[batch]
    att_pool = torch.zeros(n_graphs, 3, device=device).index_add_(0, batch, w.unsqueeze(-1) * x)
    # split-based pooling as an alternative
    splits = torch.split(x, counts.tolist())
    alt = torch.stack([s.max(0).values for s in splits])
    offsets = torch.cat([counts.new_zeros(1), counts.cumsum(0)[:-1]])
    return {"sum": _r(sum_pool, 4), "mean": _r(mean_pool, 4), "max": _r(max_pool, 4), "min": _r(min_pool, 4),
            "mean_ir": _r(mean_ir, 4), "att": _r(att_pool, 4), "alt_same": bool(torch.equal(alt, max_pool)),
            "offsets": offsets.tolist(), "counts_dtype": str(counts.dtype)}


# ---- metric learning: batch-hard triplets, contrastive loss, NT-Xent -------------------------------------------------------
def metric_learning(torch, device):
    nn, F = torch.nn, torch.nn.functional
    net = _fill(torch, nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 4)), 2440).to(device)
    x = _randn(torch, 2441, 12, 5, device=device)
    labels = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3], device=device)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    triplet = nn.TripletMarginLoss(margin=0.3, p=2)
    log = []
    for step in range(3):
        opt.zero_grad()
        emb = F.normalize(net(x), dim=1)
        dist = torch.cdist(emb, emb)
        same = labels.unsqueeze(0) == labels.unsqueeze(1)
        eye = torch.eye(12, dtype=torch.bool, device=device)
        hardest_pos = (dist * (same & ~eye)).max(1).values
        hardest_neg = dist.masked_fill(same, float("inf")).min(1).values
        batch_hard = F.relu(hardest_pos - hardest_neg + 0.3).mean()
        pos_idx = (dist * (same & ~eye)).argmax(1)
        neg_idx = dist.masked_fill(same, float("inf")).argmin(1)
        tri = triplet(emb, emb[pos_idx], emb[neg_idx])
        loss = batch_hard + tri
        loss.backward()
        opt.step()
        log.append([round(batch_hard.item(), 5), round(tri.item(), 5), neg_idx.tolist()])
    emb = F.normalize(net(x), dim=1)
    # contrastive loss on pairs, with pairwise_distance and its eps
    a, b = emb[:6], emb[6:]
    y = (labels[:6] == labels[6:]).float()
    d = F.pairwise_distance(a, b)
    contrastive = (y * d.pow(2) + (1 - y) * F.relu(1.0 - d).pow(2)).mean()
    # NT-Xent between two "views"
    z = torch.cat([emb, emb.flip(0) * 0.9 + 0.1], 0)
    sim = F.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=-1) / 0.5
    sim = sim.masked_fill(torch.eye(24, dtype=torch.bool, device=device), -9e15)
    targets = torch.cat([torch.arange(12, 24), torch.arange(0, 12)]).to(device)
    ntxent = F.cross_entropy(sim, targets)
    tdl = nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=0.5,
                                           swap=True)
    return {"log": log, "contrastive": round(contrastive.item(), 5), "ntxent": round(ntxent.item(), 5),
            "tdl": round(tdl(emb[:4], emb[4:8], emb[8:12]).item(), 5),
            "tri_none": _r(F.triplet_margin_loss(emb[:3], emb[3:6], emb[6:9], reduction="none", swap=True), 5)}


# ---- learning to rank ----------------------------------------------------------------------------------------------------------
def ranking_losses(torch, device):
    nn, F = torch.nn, torch.nn.functional
    scorer = _fill(torch, nn.Linear(4, 1), 2450).to(device)
    feats = _randn(torch, 2451, 3, 6, 4, device=device)
    rel = torch.tensor([[3, 2, 2, 1, 0, 0], [0, 1, 0, 2, 3, 1], [1, 1, 1, 0, 0, 4]], dtype=torch.float, device=device)
    opt = torch.optim.Adagrad(scorer.parameters(), lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)
    log = []
    for step in range(3):
        opt.zero_grad()
        s = scorer(feats).squeeze(-1)
        # pairwise margin ranking over all pairs with different relevance
        i, j = torch.triu_indices(6, 6, offset=1, device=device)
        target = torch.sign(rel[:, i] - rel[:, j])
        keep = target != 0
        mr = F.margin_ranking_loss(s[:, i][keep], s[:, j][keep], target[keep], margin=0.5)
        # ListNet: cross entropy between top-one probabilities
        listnet = -(F.softmax(rel, dim=1) * F.log_softmax(s, dim=1)).sum(1).mean()
        # ListMLE: Plackett-Luce likelihood of the sorted order
        order = rel.argsort(dim=1, descending=True, stable=True)
        s_sorted = s.gather(1, order)
        rev_lse = torch.logcumsumexp(s_sorted.flip(1), dim=1).flip(1)
        listmle = (rev_lse - s_sorted).sum(1).mean()
        loss = mr + listnet + 0.1 * listmle
        loss.backward()
        opt.step()
        log.append([round(mr.item(), 5), round(listnet.item(), 5), round(listmle.item(), 5)])
    with torch.no_grad():
        s = scorer(feats).squeeze(-1)
        # NDCG@4 and LambdaRank |delta NDCG| weights
        ranks = s.argsort(1, descending=True).argsort(1)
        gains = 2 ** rel - 1
        disc = 1.0 / torch.log2(ranks.float() + 2)
        dcg = (gains * disc * (ranks < 4)).sum(1)
        ideal = gains.sort(1, descending=True).values[:, :4]
        idcg = (ideal / torch.log2(torch.arange(4, device=device).float() + 2)).sum(1)
        ndcg = dcg / idcg
        delta = ((gains.unsqueeze(2) - gains.unsqueeze(1)) * (disc.unsqueeze(2) - disc.unsqueeze(1))).abs()
        delta = delta / idcg.view(-1, 1, 1)
    mrl = nn.MarginRankingLoss(margin=0.1, reduction="none")
    return {"log": log, "ndcg": _r(ndcg, 5), "delta": _r(delta[0, 0], 5), "ranks": ranks.tolist(),
            "mrl": _r(mrl(s[0], s[1], torch.tensor([1.0, -1, 1, -1, 1, -1], device=device)), 5),
            "acc": _r(opt.state[scorer.weight]["sum"], 5), "step": opt.state[scorer.weight]["step"].item()}


PROGRAMS = [mixture_of_experts, graph_message_passing, gat_edge_softmax, graph_readout, metric_learning,
            ranking_losses]
NEEDS_CPP = {}
