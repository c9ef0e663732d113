"""Sweep 21 programs, point-cloud and neural-rendering code: a PointNet classifier with a T-net and its orthogonality
regulariser, chamfer distance through cdist (both compute modes) and through broadcasting, kNN graphs with topk and
gather (EdgeConv features), farthest point sampling in a Python loop, NeRF-style volume rendering (positional
encoding, alpha compositing with an exclusive cumprod) and hierarchical importance sampling with searchsorted on a
piecewise-constant PDF, and voxelisation of a point cloud with unique/index_add/scatter_reduce.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- PointNet with an input T-net -------------------------------------------------------------------------------------
def pointnet_classifier(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class TNet(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.conv = nn.Sequential(nn.Conv1d(k, 8, 1), nn.BatchNorm1d(8), nn.ReLU(), nn.Conv1d(8, 16, 1),
                                      nn.ReLU())
            self.fc = nn.Sequential(nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, k * k))

        def forward(self, x):
            b = x.size(0)
            x = torch.max(self.conv(x), 2, keepdim=True)[0].view(-1, 16)
            iden = torch.eye(self.k, dtype=x.dtype, device=x.device).flatten().unsqueeze(0).repeat(b, 1)
            return (self.fc(x) + iden).view(-1, self.k, self.k)

    class PointNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.tnet = TNet(3)
            self.mlp = nn.Sequential(nn.Conv1d(3, 12, 1), nn.BatchNorm1d(12), nn.ReLU(), nn.Conv1d(12, 24, 1))
            self.head = nn.Sequential(nn.Linear(24, 12), nn.Dropout(p=0.0), nn.Linear(12, 4))

        def forward(self, x):
            trans = self.tnet(x)
            x = torch.bmm(x.transpose(2, 1), trans).transpose(2, 1)
            feat, idx = self.mlp(x).max(dim=2)
            return F.log_softmax(self.head(feat), dim=1), trans, idx

    model = _fill(torch, PointNet(), 2300, scale=0.3).to(device)
    pts = _randn(torch, 2301, 6, 3, 20, device=device)
    y = torch.tensor([0, 1, 2, 3, 0, 1], device=device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.7)
    log = []
    for epoch in range(4):
        model.train()
        opt.zero_grad()
        out, trans, idx = model(pts)
        eye = torch.eye(3, device=device)[None]
        reg = torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - eye, dim=(1, 2)))
        loss = F.nll_loss(out, y) + 0.001 * reg
        loss.backward()
        opt.step()
        sched.step()
        log.append([round(loss.item(), 5), round(reg.item(), 5), sched.get_last_lr()[0]])
    model.eval()
    with torch.no_grad():
        out, _, idx = model(pts)
        # permutation invariance of the global feature
        perm = torch.arange(19, -1, -1, device=device)
        out_p, _, _ = model(pts[:, :, perm])
    crit = torch.bincount(idx.flatten(), minlength=20)
    return {"log": log, "pred": out.argmax(1).tolist(), "invariant": bool(torch.allclose(out, out_p, atol=1e-5)),
            "critical": [crit.numel(), crit.sum().item(), str(crit.dtype)], "out": _r(out, 4)}


# ---- chamfer distance ---------------------------------------------------------------------------------------------------
def chamfer_distance(torch, device):
    a = _randn(torch, 2310, 2, 30, 3, device=device, dtype=torch.float64)
    b = _randn(torch, 2311, 2, 25, 3, device=device, dtype=torch.float64) * 0.9 + 0.1
    d_mm = torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist")
    d_no = torch.cdist(a, b, compute_mode="donot_use_mm_for_euclid_dist")
    d_bc = (a.unsqueeze(2) - b.unsqueeze(1)).pow(2).sum(-1).sqrt()
    sq = d_no ** 2
    cd = sq.min(dim=2).values.mean(dim=1) + sq.min(dim=1).values.mean(dim=1)
    nn_idx = sq.argmin(dim=2)
    # gradients of the chamfer loss w.r.t. the predicted cloud
    pred = b.clone().requires_grad_()
    loss = torch.cdist(a, pred).pow(2).min(2).values.mean() + torch.cdist(a, pred).pow(2).min(1).values.mean()
    loss.backward()
    d1 = torch.cdist(a[0], b[0], p=1)
    dinf = torch.cdist(a[0], b[0], p=float("inf"))
    d0 = torch.cdist(a[0, :4], b[0, :3], p=0)
    return {"close": [bool(torch.allclose(d_mm, d_no, atol=1e-10)), bool(torch.allclose(d_bc, d_no, atol=1e-12))],
            "cd": _r(cd, 6), "nn": nn_idx[0, :10].tolist(), "grad": _r(pred.grad[0, :3], 6),
            "l1": _r(d1.sum(), 5), "linf": _r(dinf.max(), 5), "l0": d0.tolist(), "dtype": str(d_mm.dtype)}


# ---- kNN graph with topk, EdgeConv features ----------------------------------------------------------------------------
def knn_edgeconv(torch, device):
    nn = torch.nn

    def knn(x, k):
        inner = -2 * torch.matmul(x.transpose(2, 1), x)
        xx = torch.sum(x ** 2, dim=1, keepdim=True)
        pairwise = -xx - inner - xx.transpose(2, 1)
        return pairwise.topk(k=k, dim=-1)[1]

    def graph_feature(x, k):
        b, c, n = x.size()
        idx = knn(x, k)
        idx_base = torch.arange(0, b, device=x.device).view(-1, 1, 1) * n
        idx = (idx + idx_base).view(-1)
        xt = x.transpose(2, 1).contiguous()
        feature = xt.view(b * n, -1)[idx, :].view(b, n, k, c)
        xt = xt.view(b, n, 1, c).repeat(1, 1, k, 1)
        return torch.cat((feature - xt, xt), dim=3).permute(0, 3, 1, 2).contiguous()

    x = _randn(torch, 2320, 2, 3, 12, device=device)
    f = graph_feature(x, 4)
    conv = _fill(torch, nn.Sequential(nn.Conv2d(6, 8, 1, bias=False), nn.BatchNorm2d(8), nn.LeakyReLU(0.2)),
                 2321).to(device)
    out = conv(f).max(dim=-1, keepdim=False)[0]
    idx = knn(x, 4)
    self_first = bool((idx[..., 0] == torch.arange(12, device=device)).all())
    # the same neighbours by cdist + topk(largest=False), and sorted=False keeps the set
    d = torch.cdist(x.transpose(1, 2), x.transpose(1, 2))
    idx2 = d.topk(4, dim=-1, largest=False).indices
    unsorted = d.topk(4, dim=-1, largest=False, sorted=False).indices.sort(-1).values
    out.mean().backward()
    return {"shape": list(f.shape), "out": _r(out[0, :, :4], 4), "self_first": self_first,
            "same": bool(torch.equal(idx, idx2)), "set_same": bool(torch.equal(unsorted, idx2.sort(-1).values)),
            "grad": _r(conv[0].weight.grad.flatten()[:6], 5), "bn": _r(conv[1].running_var, 5)}


# ---- farthest point sampling ----------------------------------------------------------------------------------------------
def farthest_point_sampling(torch, device):
    xyz = _randn(torch, 2330, 2, 40, 3, device=device)

    def fps(xyz, npoint):
        b, n, _ = xyz.shape
        centroids = torch.zeros(b, npoint, dtype=torch.long, device=xyz.device)
        distance = torch.ones(b, n, device=xyz.device) * 1e10
        farthest = torch.zeros(b, dtype=torch.long, device=xyz.device)
        batch_indices = torch.arange(b, dtype=torch.long, device=xyz.device)
        for i in range(npoint):
            centroids[:, i] = farthest
            centroid = xyz[batch_indices, farthest, :].view(b, 1, 3)
            dist = torch.sum((xyz - centroid) ** 2, -1)
            mask = dist < distance
            distance[mask] = dist[mask]
            farthest = torch.max(distance, -1)[1]
        return centroids

    def query_ball(radius, nsample, xyz, new_xyz):
        b, n, _ = xyz.shape
        s = new_xyz.shape[1]
        group_idx = torch.arange(n, dtype=torch.long, device=xyz.device).view(1, 1, n).repeat([b, s, 1])
        sqrdists = torch.cdist(new_xyz, xyz) ** 2
        group_idx[sqrdists > radius ** 2] = n
        group_idx = group_idx.sort(dim=-1)[0][:, :, :nsample]
        group_first = group_idx[:, :, 0].view(b, s, 1).repeat([1, 1, nsample])
        mask = group_idx == n
        group_idx[mask] = group_first[mask]
        return group_idx

    idx = fps(xyz, 8)
    new_xyz = torch.gather(xyz, 1, idx.unsqueeze(-1).expand(-1, -1, 3))
    groups = query_ball(1.2, 5, xyz, new_xyz)
    grouped = xyz[torch.arange(2, device=device).view(2, 1, 1), groups]
    return {"idx": idx.tolist(), "groups": groups[0].tolist(), "grouped": list(grouped.shape),
            "centred": _r((grouped - new_xyz.unsqueeze(2)).abs().sum(), 4), "dtype": str(idx.dtype)}


# ---- NeRF volume rendering and hierarchical sampling ------------------------------------------------------------------------
def nerf_rendering(torch, device):
    nn, F = torch.nn, torch.nn.functional

    def posenc(x, n_freqs):
        freqs = 2.0 ** torch.arange(n_freqs, dtype=x.dtype, device=x.device)
        xb = x[..., None, :] * freqs[:, None]
        return torch.cat([x, torch.sin(xb).flatten(-2), torch.cos(xb).flatten(-2)], dim=-1)

    mlp = _fill(torch, nn.Sequential(nn.Linear(3 + 2 * 3 * 4, 16), nn.ReLU(), nn.Linear(16, 4)), 2340).to(device)
    rays_o = _randn(torch, 2341, 5, 3, device=device) * 0.1
    rays_d = F.normalize(_randn(torch, 2342, 5, 3, device=device), dim=-1)
    near, far, n_samples = 0.5, 3.0, 12
    t_vals = torch.linspace(0.0, 1.0, steps=n_samples, device=device)
    z_vals = (near * (1.0 - t_vals) + far * t_vals).expand(5, n_samples)
    # stratified jitter from NumPy
    mids = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
    upper = torch.cat([mids, z_vals[..., -1:]], -1)
    lower = torch.cat([z_vals[..., :1], mids], -1)
    t_rand = _randn(torch, 2343, 5, n_samples, device=device).sigmoid()
    z_vals = lower + (upper - lower) * t_rand

    def render(z_vals):
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
        raw = mlp(posenc(pts, 4))
        rgb = torch.sigmoid(raw[..., :3])
        sigma = F.relu(raw[..., 3])
        dists = z_vals[..., 1:] - z_vals[..., :-1]
        dists = torch.cat([dists, torch.tensor([1e10], device=device).expand(dists[..., :1].shape)], -1)
        dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
        alpha = 1.0 - torch.exp(-sigma * dists)
        trans = torch.cumprod(torch.cat([torch.ones((alpha.shape[0], 1), device=device), 1.0 - alpha + 1e-10], -1),
                              -1)[:, :-1]
        weights = alpha * trans
        return (weights[..., None] * rgb).sum(-2), (weights * z_vals).sum(-1), weights

    rgb_map, depth, weights = render(z_vals)

    def sample_pdf(bins, weights, n, u):
        weights = weights + 1e-5
        pdf = weights / torch.sum(weights, -1, keepdim=True)
        cdf = torch.cumsum(pdf, -1)
        cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
        u = u.contiguous()
        inds = torch.searchsorted(cdf, u, right=True)
        below = torch.max(torch.zeros_like(inds - 1), inds - 1)
        above = torch.min((cdf.shape[-1] - 1) * torch.ones_like(inds), inds)
        inds_g = torch.stack([below, above], -1)
        matched = [inds_g.shape[0], inds_g.shape[1], cdf.shape[-1]]
        cdf_g = torch.gather(cdf.unsqueeze(1).expand(matched), 2, inds_g)
        bins_g = torch.gather(bins.unsqueeze(1).expand(matched), 2, inds_g)
        denom = cdf_g[..., 1] - cdf_g[..., 0]
        denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
        t = (u - cdf_g[..., 0]) / denom
        return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0]), inds

    z_mid = 0.5 * (z_vals[..., 1:] + z_vals[..., :-1])
    u = torch.linspace(0.05, 0.95, steps=8, device=device).expand(5, 8)
    z_samples, inds = sample_pdf(z_mid, weights[..., 1:-1].detach(), 8, u)
    z_all, order = torch.sort(torch.cat([z_vals, z_samples], -1), -1)
    rgb_fine, depth_fine, _ = render(z_all)
    loss = F.mse_loss(rgb_fine, torch.full_like(rgb_fine, 0.5)) + F.mse_loss(rgb_map, torch.full_like(rgb_map, 0.5))
    loss.backward()
    left = torch.searchsorted(z_vals[0], torch.tensor([0.4, 1.0, 3.5], device=device), side="left")
    return {"rgb": _r(rgb_map, 4), "depth": _r(depth, 4), "wsum": _r(weights.sum(-1), 4), "samples": _r(z_samples, 4),
            "inds": inds.tolist(), "order_dtype": str(order.dtype), "fine": _r(depth_fine, 4),
            "grad": _r(mlp[0].weight.grad.abs().sum(), 4), "left": left.tolist()}


# ---- voxelisation with unique / index_add / scatter_reduce --------------------------------------------------------------------
def voxelisation(torch, device):
    pts = _randn(torch, 2350, 60, 3, device=device)
    feats = _randn(torch, 2351, 60, 2, device=device)
    voxel = 0.75
    coords = torch.floor(pts / voxel).long()
    uniq, inverse, counts = torch.unique(coords, dim=0, return_inverse=True, return_counts=True)
    n = uniq.shape[0]
    summed = torch.zeros(n, 2, device=device).index_add_(0, inverse, feats)
    mean = summed / counts.unsqueeze(1)
    idx2 = inverse.unsqueeze(1).expand(-1, 2)
    vmax = torch.zeros(n, 2, device=device).scatter_reduce(0, idx2, feats, reduce="amax", include_self=False)
    vmean = torch.zeros(n, 2, device=device).scatter_reduce(0, idx2, feats, reduce="mean", include_self=False)
    vmin_self = torch.zeros(n, 2, device=device).scatter_reduce(0, idx2, feats, reduce="amin")
    centroid = torch.zeros(n, 3, device=device).index_add_(0, inverse, pts) / counts.unsqueeze(1)
    # a dense occupancy grid through index_put_ with accumulate
    lo = coords.min(0).values
    shifted = coords - lo
    dims = (shifted.max(0).values + 1).tolist()
    grid = torch.zeros(dims, device=device)
    grid.index_put_((shifted[:, 0], shifted[:, 1], shifted[:, 2]), torch.ones(60, device=device), accumulate=True)
    hashed = (shifted[:, 0] * dims[1] + shifted[:, 1]) * dims[2] + shifted[:, 2]
    return {"n": n, "counts_sorted": sorted(counts.tolist(), reverse=True)[:8], "first": uniq[:3].tolist(),
            "same_mean": bool(torch.allclose(mean, vmean, atol=1e-6)), "vmax": _r(vmax[:5], 4),
            "vmin_self": _r(vmin_self[:5], 4), "centroid": _r(centroid[:3], 4), "occupied": int((grid > 0).sum()),
            "grid_total": grid.sum().item(), "dims": dims, "hash_unique": int(hashed.unique().numel()),
            "bincount": torch.bincount(hashed, minlength=4).max().item()}


PROGRAMS = [pointnet_classifier, chamfer_distance, knn_edgeconv, farthest_point_sampling, nerf_rendering,
            voxelisation]
NEEDS_CPP = {}
