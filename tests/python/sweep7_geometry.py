"""Sweep 7 programs, detection and geometry utilities as written by hand in training code: anchors from a
meshgrid, box IoU/GIoU, greedy NMS, a focal loss and matching for a tiny one-stage detector, antialiased resizing;
and a sparse graph-attention layer on a COO adjacency (torch.sparse.softmax, sparse.mm), plus a polynomial
feature / finite-difference toolkit (vander, diff, triu_indices, combinations, cartesian_prod, block_diag).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep7.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- a one-stage detector's utilities: anchors, IoU/GIoU, matching, focal loss, NMS, resizing ----------------
def detection_utilities(torch, device):
    nn = torch.nn
    F = nn.functional

    def make_anchors(feature_size, stride, sizes):
        ys, xs = torch.meshgrid(torch.arange(feature_size, device=device), torch.arange(feature_size, device=device),
                                indexing="ij")
        centres = torch.stack([xs, ys], -1).reshape(-1, 1, 2).float().add(0.5).mul(stride)
        half = torch.tensor(sizes, dtype=torch.float32, device=device).view(1, -1, 1) / 2
        return torch.cat([centres - half, centres + half], dim=-1).reshape(-1, 4)

    def box_area(b):
        return (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)

    def box_iou(a, b):
        lt = torch.max(a[:, None, :2], b[None, :, :2])
        rb = torch.min(a[:, None, 2:], b[None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        union = box_area(a)[:, None] + box_area(b)[None] - inter
        return inter / union, union

    def generalized_iou(a, b):
        iou, union = box_iou(a, b)
        lt = torch.min(a[:, None, :2], b[None, :, :2])
        rb = torch.max(a[:, None, 2:], b[None, :, 2:])
        hull = (rb - lt).clamp(min=0).prod(-1)
        return iou - (hull - union) / hull

    def nms(boxes, scores, threshold):
        order = scores.argsort(descending=True)
        keep = []
        while order.numel() > 0:
            i = order[0]
            keep.append(i.item())
            if order.numel() == 1:
                break
            iou, _ = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]])
            order = order[1:][iou.squeeze(0) <= threshold]
        return torch.tensor(keep, dtype=torch.long, device=device)

    def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce * (1 - p_t) ** gamma
        alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
        return (alpha_t * loss).sum() / targets.sum().clamp(min=1)

    anchors = make_anchors(4, 8, [8.0, 16.0])  # 32 anchors on a 32x32 image
    gt = torch.tensor([[2.0, 3.0, 14.0, 15.0], [16.0, 16.0, 30.0, 28.0]], device=device)
    gt_labels = torch.tensor([1, 2], device=device)
    iou, _ = box_iou(anchors, gt)
    best_iou, best_gt = iou.max(dim=1)
    positive = best_iou >= 0.4
    positive[iou.argmax(dim=0)] = True  # every ground truth keeps its best anchor
    targets = torch.zeros(anchors.shape[0], 3, device=device)
    targets[positive, gt_labels[best_gt[positive]]] = 1.0

    head = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU(),
                         nn.Conv2d(8, 2 * (3 + 4), 1)).to(device)
    init_from_numpy(torch, head, 91)
    with torch.no_grad():
        head[-1].bias[:6].fill_(-2.0)  # the prior-probability bias of RetinaNet's classifier
    image = torch.sigmoid(numpy_input(torch, 92, 1, 3, 32, 32, device=device))
    small = F.interpolate(image, size=(4, 4), mode="bilinear", antialias=True, align_corners=False)
    opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    losses = []
    for _ in range(4):
        out = head(small).permute(0, 2, 3, 1).reshape(-1, 2, 7).reshape(-1, 7)
        cls_logits, deltas = out[:, :3], out[:, 3:]
        pred_boxes = anchors + deltas * 4
        cls_loss = focal_loss(cls_logits, targets)
        giou = generalized_iou(pred_boxes[positive], gt[best_gt[positive]]).diagonal()
        box_loss = (1 - giou).mean() + F.smooth_l1_loss(pred_boxes[positive], gt[best_gt[positive]], beta=2.0)
        loss = cls_loss + box_loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    with torch.no_grad():
        scores, labels = torch.sigmoid(cls_logits).max(dim=1)
        kept = nms(pred_boxes, scores, 0.5)
    bicubic = F.interpolate(image, scale_factor=0.3, mode="bicubic", antialias=True)
    area = F.interpolate(image, size=(5, 7), mode="area")
    return {"n_anchors": anchors.shape[0], "n_positive": int(positive.sum()), "losses": losses,
            "kept": len(kept), "first_kept_score": round(scores[kept[0]].item(), 5),
            "small": _rounded(small[0, :, 0, :2]), "bicubic": [list(bicubic.shape), _rounded(bicubic[0, 0, 0])],
            "area": _rounded(area[0, 1, 2]), "giou_self": generalized_iou(gt, gt).diagonal().tolist()}


# ---- graph attention on a sparse COO adjacency: sparse softmax over each node's neighbours ---------------------
def sparse_graph_attention(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(93)
    n = 12
    edges = {(i, (i + 1) % n) for i in range(n)} | {(i, i) for i in range(n)}
    edges |= {tuple(e) for e in rng.integers(0, n, (20, 2)).tolist()}
    edges |= {(j, i) for i, j in edges}
    index = torch.tensor(sorted(edges), device=device).t()
    x = numpy_input(torch, 94, n, 6, device=device)
    labels = torch.tensor(rng.integers(0, 3, n), device=device)

    class SparseGAT(nn.Module):
        def __init__(self, d_in, d_out, heads):
            super().__init__()
            self.lin = nn.Linear(d_in, d_out * heads, bias=False)
            self.att_src = nn.Parameter(torch.empty(heads, d_out))
            self.att_dst = nn.Parameter(torch.empty(heads, d_out))
            self.heads, self.d_out = heads, d_out

        def forward(self, x, index):
            h = self.lin(x).view(-1, self.heads, self.d_out)
            src, dst = index
            logits = F.leaky_relu((h[src] * self.att_src).sum(-1) + (h[dst] * self.att_dst).sum(-1), 0.2)
            outs = []
            for k in range(self.heads):
                scores = torch.sparse_coo_tensor(index, logits[:, k], (x.shape[0], x.shape[0]))
                alpha = torch.sparse.softmax(scores, dim=1)
                outs.append(torch.sparse.mm(alpha, h[:, k]))
            return torch.cat(outs, dim=-1), alpha

    gat = SparseGAT(6, 4, 2).to(device)
    head = nn.Linear(8, 3).to(device)
    init_from_numpy(torch, gat, 95)
    init_from_numpy(torch, head, 96)
    opt = torch.optim.Adam(list(gat.parameters()) + list(head.parameters()), lr=0.01)
    losses = []
    for _ in range(4):
        h, alpha = gat(x, index)
        loss = F.cross_entropy(head(F.elu(h)), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    alpha = alpha.coalesce()
    row_sums = torch.sparse.sum(alpha, dim=1).to_dense()
    degree = torch.sparse.sum(torch.sparse_coo_tensor(index, torch.ones(index.shape[1], device=device),
                                                      (n, n)), dim=0).to_dense()
    return {"losses": losses, "row_sums": _rounded(row_sums), "nnz": alpha._nnz(), "degree": degree.tolist(),
            "att_grad": round(gat.att_src.grad.abs().sum().item(), 5)}


# ---- polynomial features and finite differences: vander, diff, combinations, triu_indices, block_diag ---------
def polynomial_toolkit(torch, device):
    dtype = torch.float64
    x = torch.linspace(-1, 1, 9, dtype=dtype, device=device)
    y = torch.exp(x) * torch.sin(3 * x)
    V = torch.vander(x, N=5, increasing=True)
    coef = torch.linalg.lstsq(V, y.unsqueeze(1)).solution.squeeze(1)
    fit_error = (V @ coef - y).abs().max().item()
    first = torch.diff(y) / torch.diff(x)
    second = torch.diff(y, n=2) / (x[1] - x[0]) ** 2
    padded = torch.diff(y, prepend=y[:1], append=y[-1:])
    grad_np_style, = torch.gradient(y, spacing=(x,))
    pairs = torch.combinations(torch.arange(4, device=device), r=2)
    with_rep = torch.combinations(torch.tensor([1.0, 2.0, 3.0], device=device), r=2, with_replacement=True)
    rows, cols = torch.triu_indices(4, 4, offset=1, device=device)
    lower = torch.tril_indices(3, 5, offset=-1, device=device)
    features = torch.stack([x[:4] ** 0, x[:4], x[:4] ** 2], dim=1)
    interactions = features[:, rows[rows < 3]] * features[:, cols[rows < 3].clamp(max=2)]
    grid = torch.cartesian_prod(torch.tensor([0, 1], device=device), torch.tensor([2, 3, 4], device=device))
    blocks = torch.block_diag(torch.ones(2, 2, device=device), torch.tensor([[5.0]], device=device),
                              torch.arange(6.0, device=device).view(2, 3))
    integral = torch.trapezoid(y, x)
    running = torch.cumulative_trapezoid(y, x)
    return {"coef": _rounded(coef, 8), "fit_error": fit_error, "first": _rounded(first[:3], 8),
            "second": _rounded(second[:3], 6), "padded": _rounded(padded[[0, -1]], 8),
            "gradient": _rounded(grad_np_style[:3], 8), "pairs": pairs.tolist(), "with_rep": with_rep.tolist(),
            "triu": [rows.tolist(), cols.tolist()], "tril": lower.tolist(), "interactions": list(interactions.shape),
            "grid": grid.tolist(), "blocks": blocks.tolist(), "integral": integral.item(),
            "running": _rounded(running[-3:], 8), "vander_default": torch.vander(x[:3]).tolist()}


PROGRAMS = [detection_utilities, sparse_graph_attention, polynomial_toolkit]
