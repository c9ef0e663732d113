"""Sweep 15 programs, graph algorithms written as tensor code: all-pairs shortest paths by min-plus products,
connected components by label propagation with scatter_reduce(amin) (a vectorised union-find), PageRank with a
sparse COO matrix, BFS levels by frontiers and index_select, triangle counting and a topological order."""
import numpy as np

from sweep15_common import array, cases


def _edges(seed, n, m):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    keep = src != dst
    return src[keep], dst[keep], rng.uniform(0.5, 3.0, keep.sum())


def min_plus_shortest_paths(torch, device):
    n = 7
    src, dst, w = _edges(1510, n, 14)
    inf = float("inf")
    D = torch.full((n, n), inf, device=device)
    D[torch.tensor(src, device=device), torch.tensor(dst, device=device)] = torch.tensor(w, dtype=torch.float32,
                                                                                           device=device)
    D.fill_diagonal_(0.0)
    # Floyd-Warshall, one pivot at a time, vectorised over pairs
    fw = D.clone()
    nxt = torch.arange(n, device=device).expand(n, n).clone()
    for k in range(n):
        via = fw[:, k:k + 1] + fw[k:k + 1, :]
        better = via < fw
        fw = torch.where(better, via, fw)
        nxt = torch.where(better, nxt[:, k:k + 1].expand(n, n), nxt)
    # repeated min-plus squaring reaches the same closure
    mp = D.clone()
    for _ in range(3):
        mp = torch.minimum(mp, (mp.unsqueeze(2) + mp.unsqueeze(0)).amin(dim=1))
    reach = torch.isfinite(fw)
    return cases(torch, {
        "fw": lambda: fw, "same": lambda: bool(torch.equal(fw, mp)), "reach": lambda: reach.sum(1),
        "ecc": lambda: fw.masked_fill(~reach, -1).amax(1), "nxt": lambda: nxt,
        "diam": lambda: fw[reach].max().item(),
        "amin_idx": lambda: (D.unsqueeze(2) + D.unsqueeze(0)).min(dim=1).indices,
    })


def label_propagation_components(torch, device):
    n = 12
    src = array(torch, [0, 1, 3, 4, 6, 7, 9, 2], device)
    dst = array(torch, [1, 2, 4, 5, 7, 8, 10, 0], device)
    labels = torch.arange(n, device=device)
    rounds = 0
    while True:
        rounds += 1
        new = labels.clone()
        new.scatter_reduce_(0, dst, labels[src], reduce="amin")
        new.scatter_reduce_(0, src, labels[dst], reduce="amin")
        new = new[new]  # pointer jumping
        if torch.equal(new, labels):
            break
        labels = new
    comp, comp_idx, sizes = torch.unique(labels, return_inverse=True, return_counts=True)
    # union-find style min over a component from a float attribute
    attr = array(torch, np.linspace(1.0, 2.0, n), device, torch.float32)
    cmin = torch.full((len(comp),), float("inf"), device=device).scatter_reduce(0, comp_idx, attr, "amin")
    cmax = torch.zeros(len(comp), device=device).scatter_reduce(0, comp_idx, attr, "amax", include_self=False)
    cmean = torch.zeros(len(comp), device=device).scatter_reduce(0, comp_idx, attr, "mean", include_self=False)
    cprod = torch.ones(len(comp), device=device).scatter_reduce(0, comp_idx, attr, "prod")
    return cases(torch, {
        "labels": lambda: labels, "rounds": lambda: rounds, "sizes": lambda: sizes, "comp_idx": lambda: comp_idx,
        "cmin": lambda: cmin, "cmax": lambda: cmax, "cmean": lambda: cmean, "cprod": lambda: cprod,
        "int_mean": lambda: torch.zeros(len(comp), dtype=torch.long, device=device).scatter_reduce(
            0, comp_idx, torch.arange(n, device=device), "mean"),
        "bad_reduce": lambda: labels.scatter_reduce(0, src, labels, "median"),
    })


def pagerank_sparse(torch, device):
    n = 8
    src, dst, _ = _edges(1512, n, 20)
    pairs = np.unique(np.stack([src, dst]), axis=1)
    out_deg = np.bincount(pairs[0], minlength=n)
    vals = 1.0 / out_deg[pairs[0]]
    A = torch.sparse_coo_tensor(torch.tensor(pairs[[1, 0]], device=device),
                                torch.tensor(vals, dtype=torch.float32, device=device), (n, n)).coalesce()
    dangling = torch.tensor(out_deg == 0, device=device)
    r = torch.full((n, 1), 1.0 / n, device=device)
    d = 0.85
    for it in range(60):
        leak = r[dangling].sum()
        r_new = d * torch.sparse.mm(A, r) + (d * leak + 1 - d) / n
        if (r_new - r).abs().sum() < 1e-7:
            break
        r = r_new
    dense = A.to_dense()
    return cases(torch, {
        "rank": lambda: r.flatten(), "sum": lambda: r.sum().item(), "order": lambda: r.flatten().argsort(
            descending=True, stable=True),
        "nnz": lambda: A._nnz(), "indices": lambda: A.indices(), "dense_colsum": lambda: dense.sum(0),
        "matmul": lambda: A @ torch.ones(n, 2, device=device), "spmv": lambda: torch.mv(dense, r.flatten()),
        "sparse_sum": lambda: torch.sparse.sum(A, dim=0).to_dense(),
        "is_coalesced": lambda: A.is_coalesced(), "layout": lambda: str(A.layout),
    })


def bfs_frontiers(torch, device):
    n = 10
    src = array(torch, [0, 0, 1, 2, 3, 4, 5, 6, 8], device)
    dst = array(torch, [1, 2, 3, 3, 4, 6, 6, 7, 9], device)
    # CSR by sort + bincount + cumsum
    order = torch.argsort(src, stable=True)
    col = dst[order]
    rowptr = torch.zeros(n + 1, dtype=torch.long, device=device)
    rowptr[1:] = torch.cumsum(torch.bincount(src, minlength=n), 0)
    level = torch.full((n,), -1, dtype=torch.long, device=device)
    level[0] = 0
    frontier = array(torch, [0], device)
    depth = 0
    while frontier.numel():
        starts, ends = rowptr[frontier], rowptr[frontier + 1]
        lens = ends - starts
        offs = torch.repeat_interleave(starts - torch.cumsum(lens, 0) + lens, lens) + torch.arange(
            int(lens.sum()), device=device)
        nbrs = torch.index_select(col, 0, offs)
        nbrs = torch.unique(nbrs)
        nbrs = nbrs[level[nbrs] < 0]
        depth += 1
        level[nbrs] = depth
        frontier = nbrs
    # dense adjacency powers count walks
    adj = torch.zeros(n, n, device=device)
    adj.index_put_((src, dst), torch.ones(len(src), device=device))
    walks3 = torch.linalg.matrix_power(adj, 3)
    return cases(torch, {
        "level": lambda: level, "rowptr": lambda: rowptr, "col": lambda: col, "walks3": lambda: walks3.sum(1),
        "reachable": lambda: (level >= 0).nonzero().flatten(), "depth": lambda: depth,
        "index_select_empty": lambda: torch.index_select(col, 0, torch.empty(0, dtype=torch.long, device=device)),
        "index_select_int32": lambda: torch.index_select(col, 0, array(torch, [1, 0], device, torch.int32)),
        "index_select_oob": lambda: torch.index_select(col, 0, array(torch, [100], device)),
    })


def triangles_and_toposort(torch, device):
    und = array(torch, [[0, 1], [1, 2], [2, 0], [2, 3], [3, 4], [4, 2], [4, 5]], device)
    n = 6
    A = torch.zeros(n, n, dtype=torch.long, device=device)
    A[und[:, 0], und[:, 1]] = 1
    A = A | A.T
    tri = torch.trace(A @ A @ A) // 6
    per_node = torch.diagonal(A @ A @ A) // 2
    deg = A.sum(1)
    clustering = torch.where(deg > 1, 2 * per_node / (deg * (deg - 1)).clamp(min=1), torch.zeros_like(deg,
                                                                                                      dtype=torch.float))
    # Kahn's algorithm on a DAG, frontier at a time
    dag_src = array(torch, [0, 0, 1, 2, 3, 4], device)
    dag_dst = array(torch, [1, 2, 3, 3, 5, 5], device)
    indeg = torch.bincount(dag_dst, minlength=n)
    done = torch.zeros(n, dtype=torch.bool, device=device)
    order = []
    while not bool(done.all()):
        ready = ((indeg == 0) & ~done).nonzero().flatten()
        order.append(ready.tolist())
        done[ready] = True
        hit = torch.isin(dag_src, ready)
        indeg = indeg - torch.bincount(dag_dst[hit], minlength=n)
    return cases(torch, {
        "tri": lambda: tri, "per_node": lambda: per_node, "clustering": lambda: clustering, "order": lambda: order,
        "deg_hist": lambda: torch.bincount(deg), "A_dtype": lambda: A.dtype,
        "laplacian_eig": lambda: torch.linalg.eigvalsh((torch.diag(deg) - A).double()).round(decimals=6),
    })


PROGRAMS = [min_plus_shortest_paths, label_propagation_components, pagerank_sparse, bfs_frontiers,
            triangles_and_toposort]
NEEDS_CPP = {}
