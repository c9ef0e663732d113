"""Sweep 11 programs, graph learning without a graph library: a GCN over a normalised sparse COO adjacency
(sparse_coo_tensor, coalesce, sparse.sum, sparse.mm, sparse.addmm), GraphSAGE with mean/max neighbour aggregation
(index_add_, scatter_reduce with include_self=False, index_reduce_), GAT with an edge softmax built from
scatter_reduce amax and index_select, graph classification with segment pooling (repeat_interleave, segment_reduce,
unique with inverse and counts), node2vec-style random walks drawn with multinomial and a link predictor trained
with negative sampling, a mini-batch of graphs joined into one block-diagonal sparse adjacency (sparse cat and
stack, bmm, sparse_mask, zeros_like, smm, hspmm), graph attention by SDDMM (sparse.sampled_addmm on CSR), and
Chebyshev spectral convolution (eigh of the Laplacian, LBFGS with strong Wolfe) with personalised PageRank by power
iteration (matrix_power, inv).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep11.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def _ring_graph(n, extra, seed):
    rng = np.random.default_rng(seed)
    src = list(range(n)) + list(rng.integers(0, n, size=extra))
    dst = [(i + 1) % n for i in range(n)] + list(rng.integers(0, n, size=extra))
    edges = np.array([src + dst, dst + src])  # undirected: both directions
    return edges


# ---- GCN with a symmetric-normalised sparse adjacency (Kipf & Welling) ------------------------------------------
def gcn_sparse_adjacency(torch, device):
    nn, F = torch.nn, torch.nn.functional
    n = 12
    edges = torch.tensor(_ring_graph(n, 6, 1201), device=device)
    self_loops = torch.arange(n, device=device).repeat(2, 1)
    index = torch.cat([edges, self_loops], dim=1)
    values = torch.ones(index.shape[1], device=device)
    adj = torch.sparse_coo_tensor(index, values, (n, n)).coalesce()  # duplicate edges are summed
    deg = torch.sparse.sum(adj, dim=1).to_dense()
    d_inv_sqrt = deg.pow(-0.5)
    d_inv_sqrt[torch.isinf(d_inv_sqrt)] = 0.0
    i, j = adj.indices()
    norm_adj = torch.sparse_coo_tensor(adj.indices(), d_inv_sqrt[i] * adj.values() * d_inv_sqrt[j], adj.shape)

    class GCNLayer(nn.Module):
        def __init__(self, fan_in, fan_out):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(fan_in, fan_out))
            self.bias = nn.Parameter(torch.zeros(fan_out))
            nn.init.xavier_uniform_(self.weight)

        def forward(self, x, a):
            return torch.sparse.addmm(self.bias.expand(x.shape[0], -1), a, x @ self.weight)

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1, self.l2 = GCNLayer(5, 8), GCNLayer(8, 3)

        def forward(self, x, a):
            return self.l2(F.dropout(F.relu(self.l1(x, a)), 0.0, self.training), a)

    rng = np.random.default_rng(1202)
    x = torch.tensor(rng.standard_normal((n, 5)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 3, size=n), device=device)
    train_mask = torch.tensor(rng.random(n) < 0.6, device=device)
    model = GCN().to(device)
    init_from_numpy(torch, model, 1203)
    opt = torch.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
    losses = []
    for _ in range(8):
        model.train()
        out = model(x, norm_adj)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        pred = model(x, norm_adj).argmax(1)
    dense_check = torch.allclose(torch.sparse.mm(norm_adj, x), norm_adj.to_dense() @ x, atol=1e-6)
    return {"nnz": adj._nnz(), "deg": deg.tolist(), "is_coalesced": [adj.is_coalesced(), norm_adj.is_coalesced()],
            "losses": _rounded(losses), "pred": pred.tolist(), "dense_check": dense_check,
            "layout": str(norm_adj.layout), "sparse_dim": [adj.sparse_dim(), adj.dense_dim()],
            "acc": round((pred[~train_mask] == y[~train_mask]).float().mean().item(), 5)}


# ---- GraphSAGE with mean and max aggregators (index_add_, scatter_reduce include_self=False, index_reduce_) -------
def graphsage_aggregators(torch, device):
    nn, F = torch.nn, torch.nn.functional
    n = 10
    edges = torch.tensor(_ring_graph(n, 5, 1211), device=device)
    src, dst = edges[0], edges[1]

    def mean_agg(h):
        out = torch.zeros_like(h).index_add_(0, dst, h.index_select(0, src))
        count = torch.zeros(n, device=h.device).index_add_(0, dst, torch.ones_like(dst, dtype=h.dtype))
        return out / count.clamp(min=1).unsqueeze(1)

    def max_agg(h):
        index = dst.unsqueeze(1).expand(-1, h.shape[1])
        return torch.zeros_like(h).scatter_reduce(0, index, h[src], reduce="amax", include_self=False)

    class SAGE(nn.Module):
        def __init__(self, fan_in, fan_out, agg):
            super().__init__()
            self.lin_self = nn.Linear(fan_in, fan_out)
            self.lin_neigh = nn.Linear(fan_in, fan_out, bias=False)
            self.agg = agg

        def forward(self, h):
            out = self.lin_self(h) + self.lin_neigh(self.agg(h))
            return F.normalize(out, p=2.0, dim=-1)

    rng = np.random.default_rng(1212)
    x = torch.tensor(rng.standard_normal((n, 4)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 2, size=n), device=device)
    results = {}
    for name, agg in (("mean", mean_agg), ("max", max_agg)):
        model = nn.Sequential(SAGE(4, 8, agg), nn.ReLU(), SAGE(8, 2, agg)).to(device)
        init_from_numpy(torch, model, 1213)
        opt = torch.optim.Adam(model.parameters(), lr=0.02)
        losses = []
        for _ in range(5):
            loss = F.cross_entropy(model(x) * 5, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        results[name] = losses
    # the reduce variants on one toy problem
    vals = torch.tensor([1.0, 5.0, 2.0, 7.0, 3.0], device=device, requires_grad=True)
    idx = torch.tensor([0, 0, 2, 2, 2], device=device)
    base = torch.tensor([10.0, 10.0, 10.0], device=device)
    reduced = {r: [base.scatter_reduce(0, idx, vals, reduce=r, include_self=s).tolist() for s in (True, False)]
               for r in ("sum", "prod", "mean", "amax", "amin")}
    amax = base.scatter_reduce(0, idx, vals, reduce="amax", include_self=False)
    amax.sum().backward()
    by_index = torch.zeros(3, 2, device=device).index_reduce_(
        0, idx, torch.arange(10.0, device=device).view(5, 2), "mean", include_self=False)
    return {"losses": {k: _rounded(v) for k, v in results.items()}, "reduced": reduced,
            "amax_grad": vals.grad.tolist(), "index_reduce": by_index.tolist()}


# ---- GAT: attention coefficients with an edge softmax over each node's incoming edges -------------------------
def gat_edge_softmax(torch, device):
    nn, F = torch.nn, torch.nn.functional
    n, heads, dim = 9, 2, 4
    edges = torch.tensor(_ring_graph(n, 4, 1221), device=device)
    loops = torch.arange(n, device=device)
    src = torch.cat([edges[0], loops])
    dst = torch.cat([edges[1], loops])

    def edge_softmax(scores, index, num_nodes):
        # scores: (E, H); subtract each destination's max for stability, then normalise per destination
        idx = index.unsqueeze(1).expand_as(scores)
        node_max = scores.new_full((num_nodes, scores.shape[1]), float("-inf"))
        node_max = node_max.scatter_reduce(0, idx, scores, reduce="amax", include_self=True)
        e = (scores - node_max.index_select(0, index)).exp()
        denom = torch.zeros(num_nodes, scores.shape[1], device=scores.device).scatter_add_(0, idx, e)
        return e / denom[index]

    class GATLayer(nn.Module):
        def __init__(self, fan_in, out, heads, concat=True):
            super().__init__()
            self.proj = nn.Linear(fan_in, heads * out, bias=False)
            self.att_src = nn.Parameter(torch.empty(1, heads, out))
            self.att_dst = nn.Parameter(torch.empty(1, heads, out))
            self.heads, self.out, self.concat = heads, out, concat
            self.leaky = nn.LeakyReLU(0.2)

        def forward(self, x):
            h = self.proj(x).view(-1, self.heads, self.out)
            a_src = (h * self.att_src).sum(-1)
            a_dst = (h * self.att_dst).sum(-1)
            alpha = edge_softmax(self.leaky(a_src[src] + a_dst[dst]), dst, x.shape[0])
            msg = h[src] * alpha.unsqueeze(-1)
            out = torch.zeros_like(h).index_add_(0, dst, msg)
            return (out.flatten(1) if self.concat else out.mean(1)), alpha

    rng = np.random.default_rng(1222)
    x = torch.tensor(rng.standard_normal((n, 3)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 3, size=n), device=device)
    l1, l2 = GATLayer(3, dim, heads).to(device), GATLayer(heads * dim, 3, 1, concat=False).to(device)
    init_from_numpy(torch, l1, 1223)
    init_from_numpy(torch, l2, 1224)
    opt = torch.optim.Adam(list(l1.parameters()) + list(l2.parameters()), lr=0.01)
    losses = []
    for _ in range(5):
        h, alpha1 = l1(x)
        out, alpha2 = l2(F.elu(h))
        loss = F.nll_loss(F.log_softmax(out, dim=1), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    sums = torch.zeros(n, heads, device=device).index_add_(0, dst, alpha1.detach())
    return {"losses": _rounded(losses), "alpha_sums": _rounded(sums.flatten(), 4),
            "alpha_shape": list(alpha1.shape), "att_grad": round(l1.att_src.grad.abs().sum().item(), 4)}


# ---- graph classification: segment pooling over a batch of graphs -------------------------------------------
def graph_segment_pooling(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(1231)
    sizes = [4, 6, 3, 5]
    graph_of_node = torch.repeat_interleave(torch.arange(len(sizes), device=device),
                                            torch.tensor(sizes, device=device))
    n = sum(sizes)
    x = torch.tensor(rng.standard_normal((n, 5)), dtype=torch.float32, device=device)
    y = torch.tensor([0, 1, 1, 0], dtype=torch.float32, device=device)
    # edges inside each graph: a path plus the reverse direction
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    src = np.concatenate([np.arange(s, s + k - 1) for s, k in zip(starts, sizes)])
    edges = torch.tensor(np.stack([np.concatenate([src, src + 1]), np.concatenate([src + 1, src])]), device=device)

    class GIN(nn.Module):
        def __init__(self):
            super().__init__()
            self.eps = nn.Parameter(torch.zeros(1))
            self.mlp = nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 16))
            self.head = nn.Linear(32, 1)

        def forward(self, x):
            agg = torch.zeros_like(x).index_add_(0, edges[1], x[edges[0]])
            h = self.mlp((1 + self.eps) * x + agg)
            counts = torch.bincount(graph_of_node, minlength=len(sizes))
            summed = torch.zeros(len(sizes), h.shape[1], device=h.device).index_add_(0, graph_of_node, h)
            mean = summed / counts.unsqueeze(1)
            mx = torch.full((len(sizes), h.shape[1]), float("-inf"), device=h.device).scatter_reduce(
                0, graph_of_node.unsqueeze(1).expand_as(h), h, reduce="amax")
            return self.head(torch.cat([mean, mx], dim=1)).squeeze(1)

    model = GIN().to(device)
    init_from_numpy(torch, model, 1232)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(5):
        loss = F.binary_cross_entropy_with_logits(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    lengths = torch.tensor(sizes, device=device)
    seg_sum = torch.segment_reduce(x[:, 0], "sum", lengths=lengths)
    seg_max = torch.segment_reduce(x[:, 0], "max", lengths=lengths)
    seg_mean = torch.segment_reduce(x[:, :2], "mean", lengths=lengths, axis=0)
    labels, inverse, counts = torch.unique(torch.tensor([3, 1, 3, 2, 1, 3], device=device), sorted=True,
                                           return_inverse=True, return_counts=True)
    consecutive = torch.unique_consecutive(graph_of_node, return_counts=True)
    return {"losses": _rounded(losses), "seg_sum": _rounded(seg_sum), "seg_max": _rounded(seg_max),
            "seg_mean": _rounded(seg_mean.flatten()), "unique": [labels.tolist(), inverse.tolist(), counts.tolist()],
            "consecutive": [t.tolist() for t in consecutive], "eps_grad": round(model.eps.grad.item(), 5),
            "graph_of_node": graph_of_node.tolist()}


# ---- node2vec-style walks with multinomial and a link predictor trained with negative sampling -----------------
def random_walk_link_prediction(torch, device):
    nn, F = torch.nn, torch.nn.functional
    n = 14
    edges = _ring_graph(n, 8, 1241)
    adj = torch.zeros(n, n, device=device)
    adj[torch.tensor(edges[0], device=device), torch.tensor(edges[1], device=device)] = 1.0
    adj.fill_diagonal_(0.0)
    gen = torch.Generator(device=device).manual_seed(7)

    def walks(start, length, generator):
        cur = start
        path = [cur]
        for _ in range(length - 1):
            probs = adj[cur] / adj[cur].sum(1, keepdim=True)
            cur = torch.multinomial(probs, 1, generator=generator).squeeze(1)
            path.append(cur)
        return torch.stack(path, dim=1)

    starts = torch.arange(n, device=device).repeat_interleave(2)
    w1 = walks(starts, 6, gen)
    w2 = walks(starts, 6, torch.Generator(device=device).manual_seed(7))
    steps_are_edges = bool(adj[w1[:, :-1].reshape(-1), w1[:, 1:].reshape(-1)].bool().all())
    draws = torch.multinomial(torch.tensor([0.0, 1.0, 3.0], device=device), 200, replacement=True,
                              generator=torch.Generator(device=device).manual_seed(0))
    try:
        torch.multinomial(torch.tensor([0.2, 0.8], device=device), 3)
        too_many = None
    except RuntimeError as exc:
        too_many = str(exc)
    # link prediction on fixed positive and negative pairs from NumPy
    rng = np.random.default_rng(1242)
    emb = nn.Embedding(n, 6).to(device)
    init_from_numpy(torch, emb, 1243)
    pos = torch.tensor(edges[:, :12], device=device)
    neg = torch.tensor(rng.integers(0, n, size=(2, 24)), device=device)
    opt = torch.optim.SGD(emb.parameters(), lr=0.5)
    losses = []
    for _ in range(6):
        ps = (emb(pos[0]) * emb(pos[1])).sum(-1)
        ns = (emb(neg[0]) * emb(neg[1])).sum(-1)
        scores = torch.cat([ps, ns])
        target = torch.cat([torch.ones_like(ps), torch.zeros_like(ns)])
        loss = F.binary_cross_entropy_with_logits(scores, target, pos_weight=torch.tensor(2.0, device=device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"shape": list(w1.shape), "same_seed": torch.equal(w1, w2), "edges": steps_are_edges,
            "dtype": str(w1.dtype), "never_zero": bool((draws != 0).all()), "draw_range": [int(draws.min()),
            int(draws.max())], "too_many": too_many, "losses": _rounded(losses)}


# ---- a mini-batch of graphs as one block-diagonal sparse adjacency (sparse cat), sparse bmm, sparse_mask, smm ---
def batched_sparse_graphs(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(1251)
    sizes = [3, 5, 4]
    adjs, feats = [], []
    for k in sizes:
        a = (rng.random((k, k)) < 0.5).astype(np.float32)
        a = np.maximum(a, a.T)
        np.fill_diagonal(a, 1.0)
        adjs.append(torch.tensor(a, device=device).to_sparse())
        feats.append(torch.tensor(rng.standard_normal((k, 4)), dtype=torch.float32, device=device))
    # block-diagonal batching: each adjacency widened to all n columns, stacked by rows, columns then shifted
    n = sum(sizes)
    wide = [torch.sparse_coo_tensor(a.indices(), a.values(), (a.shape[0], n)) for a in adjs]
    rows = torch.cat(wide, dim=0)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    shift = torch.tensor(np.repeat(offsets, [a._nnz() for a in adjs]), device=device)
    idx = rows._indices().clone()
    idx[1] += shift
    batch_adj = torch.sparse_coo_tensor(idx, rows._values(), (n, n)).coalesce()
    x = torch.cat(feats)
    deg = torch.sparse.sum(batch_adj, 1).to_dense()
    lin = nn.Linear(4, 3).to(device)
    init_from_numpy(torch, lin, 1252)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    y = torch.tensor([0, 1, 0], dtype=torch.float32, device=device)
    graph = torch.repeat_interleave(torch.arange(3, device=device), torch.tensor(sizes, device=device))
    losses = []
    for _ in range(4):
        h = torch.sparse.mm(batch_adj, lin(x)) / deg.unsqueeze(1)
        pooled = torch.zeros(3, 3, device=device).index_add_(0, graph, h).sum(1)
        loss = F.binary_cross_entropy_with_logits(pooled, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # the same three adjacencies padded to one size and stacked: a batch of sparse matrices
    padded = [torch.sparse_coo_tensor(a._indices(), a._values(), (5, 5)) for a in adjs]
    stacked = torch.stack(padded)
    dense_stack = stacked.to_dense()
    x_padded = torch.stack([F.pad(f, (0, 0, 0, 5 - f.shape[0])) for f in feats])
    propagated = torch.bmm(stacked, x_padded)  # one sparse adjacency per graph times its node features
    # scores kept only on the edges: dense pairwise scores masked by the adjacency pattern
    scores = x @ x.T
    on_edges = scores.sparse_mask(batch_adj)
    edge_softmax = torch.sparse.softmax(on_edges, dim=1)
    blank = torch.zeros_like(batch_adj)
    hs = torch.hspmm(adjs[1], feats[1])
    sm = torch.smm(adjs[1], feats[1])
    return {"losses": _rounded(losses), "nnz": [a._nnz() for a in adjs] + [batch_adj._nnz()],
            "rows_shape": list(rows.shape), "rows_coalesced": rows.is_coalesced(),
            "block_sums": _rounded(batch_adj.to_dense().view(n, n)[:3, 3:].sum().reshape(1)),
            "deg": deg.tolist(), "stacked": [list(stacked.shape), stacked.sparse_dim(), stacked._nnz()],
            "stack_sums": dense_stack.sum((1, 2)).tolist(), "bmm": _rounded(propagated.sum((1, 2))),
            "bmm_dense": torch.allclose(propagated, dense_stack @ x_padded, atol=1e-6), "on_edges": on_edges._nnz(),
            "edge_softmax": _rounded(torch.sparse.sum(edge_softmax, 1).to_dense()),
            "blank": [blank._nnz(), list(blank.shape), str(blank.layout)],
            "hspmm": [hs.sparse_dim(), hs.dense_dim(), _rounded(hs.to_dense().sum(1))],
            "smm": [sm._nnz(), torch.allclose(sm.to_dense(), hs.to_dense())]}


# ---- graph attention with SDDMM on a CSR adjacency (torch.sparse.sampled_addmm) -------------------------------
def sddmm_graph_attention(torch, device):
    nn = torch.nn
    n, dim = 10, 6
    edges = _ring_graph(n, 6, 1261)
    dense_adj = np.zeros((n, n), dtype=np.float32)
    dense_adj[edges[0], edges[1]] = 1.0
    np.fill_diagonal(dense_adj, 1.0)
    adj = torch.tensor(dense_adj, device=device).to_sparse_csr()
    rng = np.random.default_rng(1262)
    x = torch.tensor(rng.standard_normal((n, dim)), dtype=torch.float32, device=device)
    q_proj, k_proj, v_proj = (nn.Linear(dim, dim, bias=False).to(device) for _ in range(3))
    for seed, m in enumerate((q_proj, k_proj, v_proj)):
        init_from_numpy(torch, m, 1263 + seed)
    params = [p for m in (q_proj, k_proj, v_proj) for p in m.parameters()]
    opt = torch.optim.Adam(params, lr=0.01)
    target = torch.tensor(rng.standard_normal((n, dim)), dtype=torch.float32, device=device)
    losses = []
    for _ in range(4):
        q, k, v = q_proj(x), k_proj(x), v_proj(x)
        # scores only on the edges: beta=0 ignores the adjacency's own values, alpha scales q k^T
        scores = torch.sparse.sampled_addmm(adj, q, k.T, beta=0.0, alpha=dim ** -0.5)
        coo = scores.to_sparse_coo().coalesce()
        attn = torch.sparse.softmax(coo, dim=1)
        out = torch.sparse.mm(attn, v)
        loss = nn.functional.mse_loss(out, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        q, k = q_proj(x), k_proj(x)
        scores = torch.sparse.sampled_addmm(adj, q, k.T)
        full = (q @ k.T + torch.tensor(dense_adj, device=device)) * torch.tensor(dense_adj, device=device)
    return {"losses": _rounded(losses), "layout": str(scores.layout), "nnz": scores._nnz(),
            "matches_dense": torch.allclose(scores.to_dense(), full, atol=1e-5),
            "crow": scores.crow_indices().tolist(), "grad": round(q_proj.weight.grad.abs().sum().item(), 4)}


# ---- spectral graph convolution (Chebyshev polynomials of the scaled Laplacian) and personalised PageRank ------
def chebyshev_pagerank(torch, device):
    nn, F = torch.nn, torch.nn.functional
    n = 11
    edges = torch.tensor(_ring_graph(n, 5, 1271), device=device)
    A = torch.zeros(n, n, device=device, dtype=torch.float64)
    A.index_put_((edges[0], edges[1]), torch.ones(edges.shape[1], device=device, dtype=torch.float64),
                 accumulate=False)
    A.fill_diagonal_(0)
    deg = A.sum(1)
    d_inv_sqrt = torch.where(deg > 0, deg.rsqrt(), torch.zeros_like(deg))
    L = torch.eye(n, device=device, dtype=torch.float64) - d_inv_sqrt[:, None] * A * d_inv_sqrt[None, :]
    evals, evecs = torch.linalg.eigh(L)
    lam_max = evals.max()
    L_hat = 2.0 * L / lam_max - torch.eye(n, device=device, dtype=torch.float64)

    class ChebConv(nn.Module):
        def __init__(self, fan_in, fan_out, K):
            super().__init__()
            self.weights = nn.Parameter(torch.empty(K, fan_in, fan_out, dtype=torch.float64))
            self.bias = nn.Parameter(torch.zeros(fan_out, dtype=torch.float64))
            self.K = K

        def forward(self, x, lap):
            terms = [x, lap @ x]
            for _ in range(2, self.K):
                terms.append(2 * lap @ terms[-1] - terms[-2])
            return torch.einsum("knf,kfo->no", torch.stack(terms[:self.K]), self.weights) + self.bias

    rng = np.random.default_rng(1272)
    x = torch.tensor(rng.standard_normal((n, 3)), device=device)
    y = torch.tensor(rng.integers(0, 2, size=n), device=device)
    conv1, conv2 = ChebConv(3, 8, 3).to(device), ChebConv(8, 2, 3).to(device)
    init_from_numpy(torch, conv1, 1273)
    init_from_numpy(torch, conv2, 1274)
    opt = torch.optim.LBFGS(list(conv1.parameters()) + list(conv2.parameters()), lr=0.5, max_iter=5,
                            history_size=4, line_search_fn="strong_wolfe")
    losses = []

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(conv2(F.relu(conv1(x, L_hat)), L_hat), y)
        loss.backward()
        return loss

    for _ in range(3):
        losses.append(opt.step(closure).item())
    # personalised PageRank by power iteration on the row-normalised transition matrix
    P = A / deg.clamp(min=1).unsqueeze(1)
    alpha = 0.15
    seed = F.one_hot(torch.tensor([0, 5], device=device), n).to(torch.float64)
    r = seed.clone()
    for _ in range(50):
        r = alpha * seed + (1 - alpha) * r @ P
    closed = alpha * seed @ torch.linalg.inv(torch.eye(n, device=device, dtype=torch.float64) - (1 - alpha) * P)
    walk3 = torch.linalg.matrix_power(P, 3)
    return {"evals": _rounded(evals, 6), "lam_max": round(lam_max.item(), 6), "losses": _rounded(losses),
            "ppr": _rounded(r[0], 5), "ppr_close": torch.allclose(r, closed, atol=1e-6),
            "ppr_top": r.topk(3, dim=1).indices.tolist(), "walk3_rows": _rounded(walk3.sum(1), 6),
            "dtype": str(conv1.weights.grad.dtype)}


PROGRAMS = [gcn_sparse_adjacency, graphsage_aggregators, gat_edge_softmax, graph_segment_pooling,
            random_walk_link_prediction, batched_sparse_graphs, sddmm_graph_attention,
            chebyshev_pagerank]
NEEDS_CPP = {}
