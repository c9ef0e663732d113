"""Sweep 17 programs, 3-D data and detection: a small volumetric encoder-decoder (conv3d, ConvTranspose3d,
max_pool3d with indices, trilinear interpolate), a PointNet classifier with a T-net, Chamfer distance, kNN edge
features and farthest point sampling, voxelisation by unique/scatter_reduce/index_add_, and the detection helpers
people write in torch: IoU/GIoU/DIoU, anchors by meshgrid, box encoding, focal loss, batched NMS, anchor
matching and ROI align by grid_sample."""
import numpy as np

from sweep15_common import cases
from test_programs_sweeputil import uniform_fill as _fill, seeded_randn as _randn


def _uniform(torch, seed, *shape, device="cpu", low=0.0, high=1.0):
    return torch.tensor(np.random.default_rng(seed).uniform(low, high, shape), dtype=torch.float32, device=device)


# ---- a volumetric encoder-decoder: conv3d, BatchNorm3d, max_pool3d/max_unpool3d, ConvTranspose3d, trilinear -------
def volume_unet(torch, device):
    nn = torch.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.enc = nn.Sequential(nn.Conv3d(1, 4, 3, padding=1), nn.BatchNorm3d(4), nn.ReLU())
            self.down = nn.Conv3d(4, 8, 3, stride=2, padding=1)
            self.up = nn.ConvTranspose3d(8, 4, 3, stride=2, padding=1, output_padding=1)
            self.head = nn.Conv3d(8, 2, 1)

        def forward(self, x):
            e = self.enc(x)
            u = self.up(torch.relu(self.down(e)))
            return self.head(torch.cat([e, u], 1))

    net = _fill(torch, Net(), 2100, 0.3).to(device)
    vol = _randn(torch, 2101, 2, 1, 6, 6, 6, device=device)
    labels = (vol[:, 0] > 0.3).long()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(net(vol), labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    with torch.no_grad():
        pred = net(vol)
    pooled, idx = F.max_pool3d(vol, 2, return_indices=True)
    unpooled = F.max_unpool3d(pooled, idx, 2, output_size=vol.shape[-3:])
    tri = F.interpolate(pooled, size=(5, 6, 7), mode="trilinear", align_corners=False)
    tri_ac = F.interpolate(pooled, scale_factor=2, mode="trilinear", align_corners=True)
    near = F.interpolate(pooled, scale_factor=(1, 2, 1.5), mode="nearest-exact")
    ad = F.adaptive_avg_pool3d(vol, (2, 3, 1))
    am, am_idx = F.adaptive_max_pool3d(vol, 2, return_indices=True)
    avg = F.avg_pool3d(vol, 3, stride=2, padding=1, count_include_pad=False, ceil_mode=True)
    tconv = F.conv_transpose3d(pooled, _randn(torch, 2102, 1, 2, 2, 3, 2, device=device), stride=(2, 1, 2),
                               dilation=(1, 2, 1))
    return {"losses": losses, "pred": pred.argmax(1).sum().item(), "pred_sum": pred.sum().item(),
            "running_mean": net.enc[1].running_mean.tolist(), "unpool_nnz": int((unpooled != 0).sum()),
            "unpool_same": bool(torch.equal(unpooled.flatten(2).gather(2, idx.flatten(2)), pooled.flatten(2))),
            "idx": idx[0, 0, 0].flatten().tolist(), "tri": tri.flatten()[::17].tolist(),
            "tri_ac": tri_ac.flatten()[::23].tolist(), "near": [list(near.shape), near.sum().item()],
            "ad": ad.flatten().tolist()[:6], "am": am.flatten().tolist()[:4], "am_idx": am_idx.flatten().tolist()[:4],
            "avg": [list(avg.shape), avg.flatten()[:5].tolist()], "tconv": [list(tconv.shape), tconv.sum().item()],
            "grad_up": net.up.weight.grad.abs().sum().item(),
            "errors": cases(torch, {"out_size": lambda: F.max_unpool3d(pooled, idx, 2, output_size=(9, 9, 9)),
                                    "bad_rank": lambda: F.conv3d(vol[0, 0], net.down.weight)})}


# ---- PointNet: shared MLPs by Conv1d, a T-net predicting a 3x3 transform, a max over points, the orthogonality loss --
def pointnet(torch, device):
    nn = torch.nn
    F = nn.functional

    class TNet(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.mlp = nn.Sequential(nn.Conv1d(k, 16, 1), nn.ReLU(), nn.Conv1d(16, 32, 1), nn.ReLU())
            self.fc = nn.Linear(32, k * k)

        def forward(self, x):
            g = self.mlp(x).max(2).values
            return self.fc(g).view(-1, self.k, self.k) + torch.eye(self.k, device=x.device)

    class PointNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.tnet = TNet(3)
            self.mlp1 = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU())
            self.mlp2 = nn.Sequential(nn.Conv1d(16, 64, 1), nn.BatchNorm1d(64), nn.ReLU())
            self.head = nn.Sequential(nn.Linear(64, 32), nn.Dropout(0.0), nn.Linear(32, 4))

        def forward(self, pts):  # (B, N, 3)
            T = self.tnet(pts.transpose(1, 2))
            x = torch.bmm(pts, T).transpose(1, 2)
            feat = self.mlp2(self.mlp1(x))
            glob, arg = feat.max(2)
            return self.head(glob), T, arg

    net = _fill(torch, PointNet(), 2110, 0.2).to(device)
    pts = _randn(torch, 2111, 4, 32, 3, device=device)
    y = torch.tensor([0, 1, 2, 3], device=device)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)  # Adam's first steps amplify rounding noise
    losses = []
    for _ in range(4):
        opt.zero_grad()
        logits, T, arg = net(pts)
        eye = torch.eye(3, device=device).expand(4, 3, 3)
        reg = torch.linalg.matrix_norm(T @ T.transpose(1, 2) - eye).mean()
        loss = F.cross_entropy(logits, y) + 1e-3 * reg
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    with torch.no_grad():
        perm = torch.tensor(np.random.default_rng(2112).permutation(32), device=device)
        a, _, _ = net(pts)
        b, _, _ = net(pts[:, perm])
    critical = torch.unique(arg[0])
    return {"losses": losses, "perm_invariant": bool(torch.allclose(a, b, atol=1e-5)), "logits": a.flatten().tolist(),
            "critical": critical.numel() <= 32, "T_det": torch.linalg.det(T).tolist()}


# ---- Chamfer distance, kNN edge features (DGCNN), farthest point sampling and a ball query ------------------------
def point_cloud_geometry(torch, device):
    a = _randn(torch, 2120, 2, 20, 3, device=device)
    b = _randn(torch, 2121, 2, 15, 3, device=device).requires_grad_()
    d = torch.cdist(a, b) ** 2
    chamfer = d.min(2).values.mean(1) + d.min(1).values.mean(1)
    chamfer.sum().backward()
    # kNN (excluding the point itself) and edge features x_j - x_i
    k = 4
    dist = torch.cdist(a, a)
    knn = dist.topk(k + 1, largest=False).indices[..., 1:]
    neigh = torch.gather(a.unsqueeze(1).expand(-1, 20, -1, -1), 2, knn.unsqueeze(-1).expand(-1, -1, -1, 3))
    edge = torch.cat([a.unsqueeze(2).expand(-1, -1, k, -1), neigh - a.unsqueeze(2)], -1)
    # farthest point sampling from point 0
    n_samples = 6
    idx = torch.zeros(2, n_samples, dtype=torch.long, device=device)
    mind = torch.full((2, 20), float("inf"), device=device)
    far = torch.zeros(2, dtype=torch.long, device=device)
    batch = torch.arange(2, device=device)
    for i in range(n_samples):
        idx[:, i] = far
        centre = a[batch, far].unsqueeze(1)
        mind = torch.minimum(mind, ((a - centre) ** 2).sum(-1))
        far = mind.argmax(-1)
    sampled = a[batch.unsqueeze(1), idx]
    # ball query: the first 3 points within radius, padded with the first hit
    within = torch.cdist(sampled, a) < 1.2
    order = torch.where(within, torch.arange(20, device=device), 20)
    first = order.sort(-1).values[..., :3]
    first = torch.where(first == 20, first[..., :1], first)
    # normals by PCA of the neighbourhood
    cov_pts = neigh - neigh.mean(2, keepdim=True)
    cov = cov_pts.transpose(-1, -2) @ cov_pts / k
    evals, evecs = torch.linalg.eigh(cov)
    normal = evecs[..., 0]
    return {"chamfer": chamfer.tolist(), "grad": b.grad.abs().sum().item(), "knn": knn[0, :3].tolist(),
            "edge": [list(edge.shape), edge.sum().item()], "fps": idx.tolist(), "ball": first[0].tolist(),
            "evals": evals[0, :3].flatten().tolist(), "normal_abs_z": normal[0, :4, 2].abs().tolist(),
            "hausdorff": d.min(2).values.max(1).values.tolist(),
            "pairwise": torch.nn.functional.pairwise_distance(a[0, :5], a[0, 5:10]).tolist(),
            # a half-precision cloud: only the p=2 matrix-product form has a 16-bit kernel (the error names the
            # device's kernel, so it is compared on the CPU)
            "half": cases(torch, {
                "mm": lambda: torch.cdist(a[0].half(), b[0].detach().half(), compute_mode="use_mm_for_euclid_dist")
                .float().sum().item() > 0,
                "l1": lambda: torch.cdist(a[0].cpu().half(), b[0].detach().cpu().half(), p=1.0),
                "small_l2": lambda: torch.cdist(a[0, :4].cpu().bfloat16(), b[0, :4].detach().cpu().bfloat16()),
            })}


# ---- voxelisation: integer coordinates, unique(dim=0, return_inverse), scatter_reduce means/max, bincount ------
def voxelisation(torch, device):
    pts = _uniform(torch, 2130, 200, 3, device=device, high=2.0)
    feat = _randn(torch, 2131, 200, 4, device=device)
    size = 0.5
    coords = torch.floor(pts / size).long()
    uniq, inverse, counts = torch.unique(coords, dim=0, return_inverse=True, return_counts=True)
    V = uniq.shape[0]
    mean = torch.zeros(V, 4, device=device).index_add_(0, inverse, feat) / counts.unsqueeze(1)
    mean2 = torch.zeros(V, 4, device=device).scatter_reduce(0, inverse.unsqueeze(1).expand(-1, 4), feat, "mean",
                                                            include_self=False)
    vmax = torch.full((V, 4), -1e9, device=device).scatter_reduce(0, inverse.unsqueeze(1).expand(-1, 4), feat,
                                                                  "amax", include_self=True)
    centroid = torch.zeros(V, 3, device=device).index_reduce_(0, inverse, pts, "mean", include_self=False)
    lin = coords[:, 0] * 16 + coords[:, 1] * 4 + coords[:, 2]
    occupancy = torch.bincount(lin, minlength=64).view(4, 4, 4)
    grid = torch.zeros(4, 4, 4, 4, device=device)
    grid[uniq[:, 0], uniq[:, 1], uniq[:, 2]] = mean
    grid_put = torch.zeros(4, 4, 4, device=device).index_put_((coords[:, 0], coords[:, 1], coords[:, 2]),
                                                              torch.ones(200, device=device), accumulate=True)
    hashed, hinv = torch.unique(lin, sorted=True, return_inverse=True)
    dense = torch.sparse_coo_tensor(uniq.T, counts, (4, 4, 4)).to_dense()
    return {"V": V, "counts": counts.tolist(), "mean_same": bool(torch.allclose(mean, mean2, atol=1e-6)),
            "mean": mean.flatten()[:8].tolist(), "max": vmax.flatten()[:8].tolist(),
            "centroid": centroid[:3].flatten().tolist(), "occupancy": occupancy.flatten().tolist(),
            "occ_same": bool(torch.equal(occupancy.to(grid_put.dtype), grid_put)),
            "grid": grid.sum((0, 1, 2)).tolist(), "hashed": hashed.tolist()[:10], "hinv": hinv.tolist()[:10],
            "dense": bool(torch.equal(dense, occupancy))}


# ---- IoU, GIoU, DIoU, CIoU between box sets; anchors by meshgrid; encode/decode; clamp and area filters ----------
def box_geometry(torch, device):
    def area(b):
        return (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)

    def iou_parts(a, b):
        lt = torch.max(a[:, None, :2], b[None, :, :2])
        rb = torch.min(a[:, None, 2:], b[None, :, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[..., 0] * wh[..., 1]
        union = area(a)[:, None] + area(b)[None] - inter
        return inter, union

    def giou(a, b):
        inter, union = iou_parts(a, b)
        lt = torch.min(a[:, None, :2], b[None, :, :2])
        rb = torch.max(a[:, None, 2:], b[None, :, 2:])
        hull = (rb - lt).clamp(min=0).prod(-1)
        return inter / union - (hull - union) / hull

    xy = _uniform(torch, 2140, 6, 2, device=device, high=10.0)
    wh = _uniform(torch, 2141, 6, 2, device=device, low=1.0, high=5.0)
    boxes = torch.cat([xy, xy + wh], 1)
    gt = torch.tensor([[1.0, 1.0, 5.0, 4.0], [6.0, 5.0, 12.0, 11.0]], device=device)
    inter, union = iou_parts(boxes, gt)
    iou = inter / union
    g = giou(boxes, gt)
    centre_d = ((boxes[:, None, :2] + boxes[:, None, 2:]) / 2 - (gt[None, :, :2] + gt[None, :, 2:]) / 2).pow(2).sum(-1)
    # anchors: 3 scales x 2 ratios at every cell of a 3x4 feature map of stride 8
    scales = torch.tensor([16.0, 32.0, 64.0], device=device)
    ratios = torch.tensor([0.5, 2.0], device=device)
    hr = ratios.sqrt()
    ws = (scales[None] / hr[:, None]).flatten()
    hs = (scales[None] * hr[:, None]).flatten()
    base = torch.stack([-ws, -hs, ws, hs], 1) / 2
    sy, sx = torch.meshgrid(torch.arange(3, device=device) * 8.0, torch.arange(4, device=device) * 8.0,
                            indexing="ij")
    shifts = torch.stack([sx.flatten(), sy.flatten(), sx.flatten(), sy.flatten()], 1)
    anchors = (shifts[:, None] + base[None]).reshape(-1, 4)
    xs_, ys_ = torch.meshgrid(torch.arange(2.0), torch.arange(3.0), indexing="xy")
    # encode gt against anchors and decode back (Faster R-CNN parameterisation, weights 10, 10, 5, 5)
    a = anchors[:2]
    t = gt

    def to_cxcywh(b):
        return torch.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]], 1)

    ac, tc = to_cxcywh(a), to_cxcywh(t)
    w = torch.tensor([10.0, 10.0, 5.0, 5.0], device=device)
    deltas = torch.cat([(tc[:, :2] - ac[:, :2]) / ac[:, 2:], torch.log(tc[:, 2:] / ac[:, 2:])], 1) * w
    d = deltas / w
    dwh = d[:, 2:].clamp(max=np.log(1000.0 / 16))
    pc = d[:, :2] * ac[:, 2:] + ac[:, :2]
    pwh = torch.exp(dwh) * ac[:, 2:]
    decoded = torch.cat([pc - pwh / 2, pc + pwh / 2], 1)
    clipped = anchors.clone()
    clipped[:, 0::2] = clipped[:, 0::2].clamp(0, 30)
    clipped[:, 1::2] = clipped[:, 1::2].clamp(0, 20)
    keep = torch.where(area(clipped) > 100)[0]
    return {"iou": iou.flatten().tolist(), "giou": g.flatten().tolist(), "centre_d": centre_d.flatten().tolist(),
            "anchors": [list(anchors.shape), anchors[:3].flatten().tolist(), anchors[-1].tolist()],
            "xy_grid": [xs_.tolist(), ys_.tolist()], "deltas": deltas.flatten().tolist(),
            "roundtrip": bool(torch.allclose(decoded, gt, atol=1e-4)), "keep": keep.tolist()[:12],
            "diag": torch.diagonal(g[:2]).tolist(), "best": iou.max(0).indices.tolist()}


# ---- losses and post-processing: sigmoid focal loss, GIoU loss, batched NMS by coordinate offsets ------------------
def focal_and_nms(torch, device):
    F = torch.nn.functional
    logits = _randn(torch, 2150, 12, 3, device=device).requires_grad_()
    targets = torch.zeros(12, 3, device=device)
    targets[torch.arange(0, 12, 3, device=device), torch.tensor([0, 1, 2, 1], device=device)] = 1.0
    alpha, gamma = 0.25, 2.0
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * (1 - p_t) ** gamma
    loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    focal = loss.sum() / targets.sum().clamp(min=1)
    focal.backward()
    weighted = F.binary_cross_entropy_with_logits(logits.detach(), targets, pos_weight=torch.tensor(
        [2.0, 1.0, 0.5], device=device), weight=torch.linspace(0.5, 1.5, 12, device=device)[:, None])
    xy = _uniform(torch, 2151, 10, 2, device=device, high=6.0)
    boxes = torch.cat([xy, xy + 3.0], 1)
    scores = _uniform(torch, 2152, 10, device=device)
    classes = torch.tensor([0, 1, 0, 1, 2, 0, 2, 1, 0, 0], device=device)

    def nms(b, s, thr):
        order = s.argsort(descending=True)
        b = b[order]
        x1, y1, x2, y2 = b.unbind(1)
        areas = (x2 - x1) * (y2 - y1)
        suppressed = torch.zeros(len(b), dtype=torch.bool, device=b.device)
        keep = []
        for i in range(len(b)):
            if suppressed[i]:
                continue
            keep.append(i)
            w = (torch.min(x2[i], x2) - torch.max(x1[i], x1)).clamp(min=0)
            h = (torch.min(y2[i], y2) - torch.max(y1[i], y1)).clamp(min=0)
            inter = w * h
            suppressed |= inter / (areas[i] + areas - inter) > thr
        return order[torch.tensor(keep, dtype=torch.long, device=b.device)]

    offsets = classes.to(boxes) * (boxes.max() + 1)
    kept = nms(boxes + offsets[:, None], scores, 0.3)
    per_class = sorted(sum((c_idx[nms(boxes[c_idx], scores[c_idx], 0.3)].tolist()
                            for c_idx in [torch.where(classes == c)[0] for c in range(3)]), []))
    topk = scores[kept].topk(min(4, len(kept)))
    smooth = F.smooth_l1_loss(boxes[:4], boxes[4:8], beta=0.5, reduction="sum")
    huber = F.huber_loss(boxes[:4], boxes[4:8], delta=2.0)
    return {"focal": focal.item(), "grad": logits.grad.flatten()[:6].tolist(), "weighted": weighted.item(),
            "kept": sorted(kept.tolist()), "per_class_same": sorted(kept.tolist()) == per_class,
            "top": topk.indices.tolist(), "smooth": smooth.item(), "huber": huber.item()}


# ---- anchor matching: max IoU per anchor and per gt, ignore bands, sampled positives, regression targets ----------
def anchor_matching(torch, device):
    F = torch.nn.functional
    anchors = torch.tensor([[x, y, x + 4.0, y + 4.0] for y in range(0, 12, 3) for x in range(0, 12, 3)],
                           device=device)
    gt = torch.tensor([[1.0, 1.0, 5.0, 6.0], [7.0, 6.0, 11.0, 10.0], [0.0, 8.0, 3.0, 12.0]], device=device)
    gt_labels = torch.tensor([2, 1, 3], device=device)
    lt = torch.max(anchors[:, None, :2], gt[None, :, :2])
    rb = torch.min(anchors[:, None, 2:], gt[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(-1)
    area_a = (anchors[:, 2:] - anchors[:, :2]).prod(-1)
    area_g = (gt[:, 2:] - gt[:, :2]).prod(-1)
    iou = inter / (area_a[:, None] + area_g[None] - inter)
    best_iou, best_gt = iou.max(1)
    matched = torch.full_like(best_gt, -1)
    matched[best_iou >= 0.4] = best_gt[best_iou >= 0.4]
    matched[(best_iou >= 0.2) & (best_iou < 0.4)] = -2  # ignored
    # every gt keeps its best anchor (ties included)
    gt_best = iou.max(0).values
    pairs = torch.nonzero(iou == gt_best[None])
    matched[pairs[:, 0]] = pairs[:, 1]
    labels = torch.where(matched >= 0, gt_labels[matched.clamp(min=0)], torch.zeros_like(matched))
    labels = torch.where(matched == -2, torch.full_like(labels, -1), labels)
    pos = torch.where(matched >= 0)[0]
    neg = torch.where(matched == -1)[0]
    logits = _randn(torch, 2160, anchors.shape[0], 4, device=device)
    valid = labels >= 0
    cls_loss = F.cross_entropy(logits[valid], labels[valid])
    ce_ignore = F.cross_entropy(logits, labels, ignore_index=-1)
    tgt_boxes = gt[matched[pos]]
    reg = torch.cat([(tgt_boxes[:, :2] - anchors[pos, :2]) / 4.0, (tgt_boxes[:, 2:] - anchors[pos, 2:]) / 4.0], 1)
    sample = neg[torch.randperm(len(neg), generator=torch.Generator().manual_seed(0))[:3].to(device)]
    return {"iou_max": best_iou.tolist(), "matched": matched.tolist(), "labels": labels.tolist(),
            "pos": pos.tolist(), "n_neg": len(neg), "cls": cls_loss.item(), "ce_ignore": ce_ignore.item(),
            "reg": reg.flatten().tolist(), "sample_len": len(sample),
            # PyTorch checks class targets on the CPU only (a GPU kernel asserts on the device)
            "errors": cases(torch, {"bad_ignore": lambda: F.cross_entropy(logits.cpu(), labels.cpu())})}


# ---- ROI align written with affine_grid/grid_sample, and an ROI max pool by adaptive_max_pool2d -------------------
def roi_align_grid_sample(torch, device):
    F = torch.nn.functional
    feat = _randn(torch, 2170, 2, 3, 10, 12, device=device).requires_grad_()
    rois = torch.tensor([[0, 1.0, 2.0, 7.0, 8.0], [1, 0.0, 0.0, 11.0, 9.0], [0, 4.5, 3.5, 6.5, 5.5]], device=device)
    H, W = feat.shape[-2:]
    out_size = (4, 4)
    b = rois[:, 0].long()
    x1, y1, x2, y2 = rois[:, 1], rois[:, 2], rois[:, 3], rois[:, 4]
    theta = torch.zeros(len(rois), 2, 3, device=device)
    theta[:, 0, 0] = (x2 - x1) / (W - 1)
    theta[:, 0, 2] = (x1 + x2) / (W - 1) - 1
    theta[:, 1, 1] = (y2 - y1) / (H - 1)
    theta[:, 1, 2] = (y1 + y2) / (H - 1) - 1
    grid = F.affine_grid(theta, (len(rois), 3) + out_size, align_corners=True)
    aligned = F.grid_sample(feat[b], grid, mode="bilinear", align_corners=True)
    aligned.pow(2).sum().backward()
    pooled = torch.stack([F.adaptive_max_pool2d(feat[bi, :, int(ya):int(yb) + 1, int(xa):int(xb) + 1], (2, 2))
                          for bi, xa, ya, xb, yb in rois.tolist() for bi in [int(bi)]])
    ps = F.interpolate(feat.detach()[:1, :, 2:8, 1:7], size=out_size, mode="bilinear", align_corners=True)
    return {"aligned": aligned.flatten()[::5].tolist(), "grad": feat.grad.abs().sum().item(),
            "grad_batch": feat.grad.flatten(1).abs().sum(1).tolist(), "pooled": pooled.flatten().tolist()[:12],
            "same_as_interp": bool(torch.allclose(aligned[0].detach(), ps[0], atol=1e-5))}


PROGRAMS = [volume_unet, pointnet, point_cloud_geometry, voxelisation, box_geometry, focal_and_nms, anchor_matching,
            roi_align_grid_sample]
NEEDS_CPP = {}
