"""Sweep 13 programs, vision ops and image processing written in plain torch the way torchvision.ops, kornia and
detectron-style repositories carry them: batched NMS by class offsets, IoU / generalized / distance / complete IoU
losses with box conversions, anchor generation with meshgrid, RoIAlign by grid_sample over affine_grid, RetinaNet's
sigmoid focal loss, colour-space conversions (RGB <-> HSV, YCbCr, Lab), Gaussian / Sobel / median filters by grouped
conv2d and unfold, image pyramids with interpolate's options, a homography warp, histogram equalisation with
histc / cumsum / gather.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep13.py). Data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np


def _rounded(values, digits=5):
    return [round(float(v), digits) for v in values]


def error_text(call):
    try:
        call()
        return "no error"
    except Exception as exc:
        return f"{type(exc).__name__}: {str(exc).splitlines()[0]}"


def _boxes(rng, n, size=32.0):
    xy = rng.uniform(0, size * 0.7, (n, 2))
    wh = rng.uniform(size * 0.1, size * 0.4, (n, 2))
    return np.concatenate([xy, xy + wh], 1)


# ---- torchvision-style box ops and batched NMS by coordinate offsets --------------------------------------------
def batched_nms_offsets(torch, device):
    def box_area(b):
        return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])

    def box_iou(a, b):
        lt = torch.max(a[:, None, :2], b[None, :, :2])
        rb = torch.min(a[:, None, 2:], b[None, :, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[..., 0] * wh[..., 1]
        return inter / (box_area(a)[:, None] + box_area(b)[None, :] - inter)

    def nms(boxes, scores, thr):
        order = scores.argsort(descending=True)
        keep = []
        while order.numel() > 0:
            i = order[0]
            keep.append(i.item())
            if order.numel() == 1:
                break
            ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
            order = order[1:][ious <= thr]
        return torch.as_tensor(keep, dtype=torch.long, device=boxes.device)

    def batched_nms(boxes, scores, idxs, thr):
        if boxes.numel() == 0:
            return torch.empty((0,), dtype=torch.int64, device=boxes.device)
        max_coordinate = boxes.max()
        offsets = idxs.to(boxes) * (max_coordinate + torch.tensor(1).to(boxes))
        return nms(boxes + offsets[:, None], scores, thr)

    rng = np.random.default_rng(1301)
    base = _boxes(rng, 6)
    jitter = rng.normal(0, 1.0, (3, 6, 4))
    boxes = torch.tensor((base[None] + jitter).reshape(-1, 4), dtype=torch.float32, device=device)
    scores = torch.tensor(rng.permutation(18) / 18.0 + 0.01, dtype=torch.float32, device=device)
    labels = torch.tensor(rng.integers(0, 3, 18), device=device)
    keep = batched_nms(boxes, scores, labels, 0.5)
    keep = keep[scores[keep].sort(descending=True)[1]]
    empty = batched_nms(torch.zeros(0, 4, device=device), torch.zeros(0, device=device),
                        torch.zeros(0, dtype=torch.long, device=device), 0.5)
    # remove_small_boxes + clip_boxes_to_image
    clipped = boxes.clone()
    clipped[:, 0::2] = clipped[:, 0::2].clamp(min=0, max=30)
    clipped[:, 1::2] = clipped[:, 1::2].clamp(min=0, max=28)
    ws, hs = clipped[:, 2] - clipped[:, 0], clipped[:, 3] - clipped[:, 1]
    small = torch.where((ws >= 5) & (hs >= 5))[0]
    return {"keep": keep.tolist(), "keep_dtype": str(keep.dtype), "empty": [list(empty.shape), str(empty.dtype)],
            "labels_kept": labels[keep].tolist(), "small": small.tolist(),
            "iou_diag": _rounded(box_iou(boxes[:4], boxes[:4]).diagonal())}


# ---- IoU-family losses (GIoU, DIoU, CIoU) with box format conversions --------------------------------------------
def iou_family_losses(torch, device):
    def cxcywh_to_xyxy(b):
        cx, cy, w, h = b.unbind(-1)
        return torch.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h], dim=-1)

    def xyxy_to_cxcywh(b):
        x0, y0, x1, y1 = b.unbind(-1)
        return torch.stack([(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0], dim=-1)

    def xywh_to_xyxy(b):
        x, y, w, h = b.split(1, dim=-1)
        return torch.cat([x, y, x + w, y + h], dim=-1)

    def losses(b1, b2, eps=1e-7):
        x1, y1, x2, y2 = b1.unbind(dim=-1)
        x1g, y1g, x2g, y2g = b2.unbind(dim=-1)
        xkis1, ykis1 = torch.max(x1, x1g), torch.max(y1, y1g)
        xkis2, ykis2 = torch.min(x2, x2g), torch.min(y2, y2g)
        intsct = torch.zeros_like(x1)
        mask = (ykis2 > ykis1) & (xkis2 > xkis1)
        intsct[mask] = (xkis2[mask] - xkis1[mask]) * (ykis2[mask] - ykis1[mask])
        union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - intsct
        iou = intsct / (union + eps)
        xc1, yc1 = torch.min(x1, x1g), torch.min(y1, y1g)
        xc2, yc2 = torch.max(x2, x2g), torch.max(y2, y2g)
        area_c = (xc2 - xc1) * (yc2 - yc1)
        giou = iou - ((area_c - union) / (area_c + eps))
        diag = ((xc2 - xc1) ** 2) + ((yc2 - yc1) ** 2) + eps
        centre = ((x1 + x2) / 2 - (x1g + x2g) / 2) ** 2 + ((y1 + y2) / 2 - (y1g + y2g) / 2) ** 2
        diou = iou - centre / diag
        w_pred, h_pred = x2 - x1, y2 - y1
        w_gt, h_gt = x2g - x1g, y2g - y1g
        v = (4 / (torch.pi ** 2)) * torch.pow((torch.atan(w_gt / h_gt) - torch.atan(w_pred / h_pred)), 2)
        with torch.no_grad():
            alpha = v / (1 - iou + v + eps)
        ciou = diou - alpha * v
        return 1 - giou, 1 - diou, 1 - ciou

    rng = np.random.default_rng(1302)
    gt = torch.tensor(_boxes(rng, 8), dtype=torch.float32, device=device)
    pred_cxcywh = xyxy_to_cxcywh(gt) + torch.tensor(rng.normal(0, 1.5, (8, 4)), dtype=torch.float32, device=device)
    pred_cxcywh.requires_grad_(True)
    out = {}
    for name, idx in (("giou", 0), ("diou", 1), ("ciou", 2)):
        pred = cxcywh_to_xyxy(pred_cxcywh)
        loss = losses(pred, gt)[idx]
        total = loss.mean()
        (grad,) = torch.autograd.grad(total, pred_cxcywh)
        out[name] = [round(total.item(), 5), _rounded(loss[:3]), round(grad.abs().sum().item(), 4)]
    xywh = torch.tensor([[1.0, 2.0, 3.0, 4.0]], device=device)
    out["xywh"] = xywh_to_xyxy(xywh).tolist()
    out["roundtrip"] = round((cxcywh_to_xyxy(xyxy_to_cxcywh(gt)) - gt).abs().max().item(), 5)
    return out


# ---- anchor generation with meshgrid (Faster R-CNN's AnchorGenerator) --------------------------------------------
def anchor_generator(torch, device):
    def cell_anchors(scales, aspect_ratios, dtype=torch.float32):
        scales = torch.as_tensor(scales, dtype=dtype, device=device)
        aspect_ratios = torch.as_tensor(aspect_ratios, dtype=dtype, device=device)
        h_ratios = torch.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        return (torch.stack([-ws, -hs, ws, hs], dim=1) / 2).round()

    def grid_anchors(grid_sizes, strides, anchors):
        out = []
        for size, stride, base in zip(grid_sizes, strides, anchors):
            gh, gw = size
            sh, sw = stride
            shifts_x = torch.arange(0, gw, dtype=torch.int32, device=device) * sw
            shifts_y = torch.arange(0, gh, dtype=torch.int32, device=device) * sh
            shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            out.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
        return out

    image_size = (64, 48)
    feature_sizes = [(8, 6), (4, 3)]
    strides = [[torch.empty((), dtype=torch.int64, device=device).fill_(image_size[0] // g[0]),
                torch.tensor(image_size[1] // g[1], dtype=torch.int64, device=device)] for g in feature_sizes]
    anchors = [cell_anchors((16, 32), (0.5, 1.0, 2.0)), cell_anchors((64,), (0.5, 1.0, 2.0))]
    result = grid_anchors(feature_sizes, strides, anchors)
    all_anchors = torch.cat(result)
    # the xy-indexed grid (as in YOLO heads) and its stacked form
    yv, xv = torch.meshgrid([torch.arange(3, device=device), torch.arange(4, device=device)], indexing="ij")
    grid_xy = torch.stack((xv, yv), 2).view(1, 1, 3, 4, 2).float()
    xs, ys = torch.meshgrid(torch.linspace(0, 1, 3, device=device), torch.linspace(0, 1, 2, device=device),
                            indexing="xy")
    inside = ((all_anchors[:, 0] >= 0) & (all_anchors[:, 1] >= 0) & (all_anchors[:, 2] <= image_size[1]) &
              (all_anchors[:, 3] <= image_size[0]))
    return {"shapes": [list(r.shape) for r in result], "dtype": str(all_anchors.dtype),
            "first": all_anchors[:4].tolist(), "last": all_anchors[-2:].tolist(),
            "inside": int(inside.sum()), "grid_xy": grid_xy[0, 0, 2, 3].tolist(), "xy_shape": list(xs.shape),
            "ys": ys[:, 0].tolist(), "base": anchors[0].tolist()}


# ---- RoIAlign via affine_grid + grid_sample, and a bilinear-gather version ---------------------------------------
def roi_align_grid_sample(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1303)
    feats = torch.tensor(rng.standard_normal((2, 3, 12, 16)), dtype=torch.float32, device=device)
    feats.requires_grad_(True)
    rois = torch.tensor([[0, 1.0, 2.0, 9.0, 8.0], [1, 0.0, 0.0, 15.0, 11.0], [0, 4.5, 3.25, 12.0, 10.0]],
                        dtype=torch.float32, device=device)
    H, W = feats.shape[-2:]
    out_size = (4, 4)
    batch_idx = rois[:, 0].long()
    x1, y1, x2, y2 = rois[:, 1:].unbind(1)
    theta = torch.zeros(rois.shape[0], 2, 3, device=device)
    theta[:, 0, 0] = (x2 - x1) / (W - 1)
    theta[:, 0, 2] = (x1 + x2) / (W - 1) - 1
    theta[:, 1, 1] = (y2 - y1) / (H - 1)
    theta[:, 1, 2] = (y1 + y2) / (H - 1) - 1
    grid = F.affine_grid(theta, (rois.shape[0], 3) + out_size, align_corners=True)
    pooled = F.grid_sample(feats[batch_idx], grid, mode="bilinear", padding_mode="zeros", align_corners=True)
    pooled.pow(2).sum().backward()

    def bilinear(img, y, x):
        y0, x0 = y.floor().long().clamp(0, H - 1), x.floor().long().clamp(0, W - 1)
        y1_, x1_ = (y0 + 1).clamp(max=H - 1), (x0 + 1).clamp(max=W - 1)
        ly, lx = y - y0.to(y.dtype), x - x0.to(x.dtype)
        hy, hx = 1 - ly, 1 - lx
        return (img[:, y0, x0] * (hy * hx) + img[:, y0, x1_] * (hy * lx) + img[:, y1_, x0] * (ly * hx)
                + img[:, y1_, x1_] * (ly * lx))

    ys = torch.linspace(2.0, 8.0, 4, device=device)
    xs = torch.linspace(1.0, 9.0, 4, device=device)
    gy, gx = torch.meshgrid(ys, xs, indexing="ij")
    gathered = bilinear(feats[0].detach(), gy, gx)
    nearest = F.grid_sample(feats.detach()[:1], grid[:1], mode="nearest", align_corners=True)
    border = F.grid_sample(feats.detach()[:1], grid[:1] * 1.3, padding_mode="border", align_corners=False)
    return {"pooled": [list(pooled.shape), round(pooled.sum().item(), 4), _rounded(pooled[0, 0, 0])],
            "match": round((pooled[0] - gathered).abs().max().item(), 5),
            "grad": [round(feats.grad.abs().sum().item(), 3), int((feats.grad != 0).sum())],
            "nearest": round(nearest.sum().item(), 4), "border": round(border.sum().item(), 4)}


# ---- RetinaNet's sigmoid focal loss on a dense head ---------------------------------------------------------------
def sigmoid_focal_loss_head(torch, device):
    nn, F = torch.nn, torch.nn.functional

    def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0, reduction="none"):
        p = torch.sigmoid(inputs)
        ce_loss = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce_loss * ((1 - p_t) ** gamma)
        if alpha >= 0:
            alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
            loss = alpha_t * loss
        if reduction == "mean":
            loss = loss.mean()
        elif reduction == "sum":
            loss = loss.sum()
        return loss

    head = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))
    rng = np.random.default_rng(1304)
    with torch.no_grad():
        for p in head.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=torch.float32))
        prior = 0.01
        torch.nn.init.constant_(head[-1].bias, -math.log((1 - prior) / prior))
    head.to(device)
    x = torch.tensor(rng.standard_normal((2, 4, 6, 6)), dtype=torch.float32, device=device)
    labels = torch.tensor(rng.integers(-1, 3, (2, 6, 6)), device=device)  # -1 = background
    valid = labels >= 0
    onehot = torch.zeros(2, 6, 6, 3, device=device)
    onehot[valid] = F.one_hot(labels[valid], num_classes=3).float()
    opt = torch.optim.SGD(head.parameters(), lr=0.05, momentum=0.9)
    history = []
    for _ in range(5):
        logits = head(x).permute(0, 2, 3, 1)
        loss = sigmoid_focal_loss(logits, onehot, reduction="sum") / max(1, int(valid.sum()))
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(round(loss.item(), 5))
    no_alpha = sigmoid_focal_loss(logits.detach(), onehot, alpha=-1, reduction="mean")
    return {"history": history, "no_alpha": round(no_alpha.item(), 6), "pos": int(valid.sum()),
            "init_prob": round(torch.sigmoid(head[-1].bias).mean().item(), 4)}


# ---- colour spaces: RGB <-> HSV (kornia-style), YCbCr (JPEG), CIE Lab ---------------------------------------------
def color_space_conversions(torch, device):
    def rgb_to_hsv(image, eps=1e-8):
        max_rgb, argmax_rgb = image.max(-3)
        min_rgb, argmin_rgb = image.min(-3)
        deltac = max_rgb - min_rgb
        v = max_rgb
        s = deltac / (max_rgb + eps)
        deltac = torch.where(deltac == 0, torch.ones_like(deltac), deltac)
        rc, gc, bc = torch.unbind((max_rgb.unsqueeze(-3) - image), dim=-3)
        h1 = bc - gc
        h2 = (rc - bc) + 2.0 * deltac
        h3 = (gc - rc) + 4.0 * deltac
        h = torch.stack((h1, h2, h3), dim=-3) / deltac.unsqueeze(-3)
        h = torch.gather(h, dim=-3, index=argmax_rgb.unsqueeze(-3)).squeeze(-3)
        h = (h / 6.0) % 1.0
        return torch.stack((h * 2 * math.pi, s, v), dim=-3)

    def hsv_to_rgb(image):
        h = image[..., 0, :, :] / (2 * math.pi)
        s, v = image[..., 1, :, :], image[..., 2, :, :]
        hi = torch.floor(h * 6) % 6
        f = ((h * 6) % 6) - hi
        one = torch.tensor(1.0, device=image.device, dtype=image.dtype)
        p, q, t = v * (one - s), v * (one - f * s), v * (one - (one - f) * s)
        hi = hi.long()
        indices = torch.stack([hi, hi + 6, hi + 12], dim=-3)
        out = torch.stack((v, q, p, p, t, v, t, v, v, q, p, p, p, p, t, v, v, q), dim=-3)
        return torch.gather(out, -3, indices)

    def rgb_to_ycbcr(image):
        r, g, b = image[..., 0, :, :], image[..., 1, :, :], image[..., 2, :, :]
        y = 0.299 * r + 0.587 * g + 0.114 * b
        cb = (b - y) * 0.564 + 0.5
        cr = (r - y) * 0.713 + 0.5
        return torch.stack([y, cb, cr], -3)

    def rgb_to_lab(image):
        lin = torch.where(image > 0.04045, torch.pow(((image + 0.055) / 1.055), 2.4), image / 12.92)
        m = torch.tensor([[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
                          [0.019334, 0.119193, 0.950227]], device=image.device, dtype=image.dtype)
        xyz = torch.einsum("ij,...jhw->...ihw", m, lin)
        white = torch.tensor([0.950456, 1.0, 1.088754], device=image.device, dtype=image.dtype)[..., :, None, None]
        xyz = torch.div(xyz, white)
        power = torch.pow(xyz.clamp(min=0.008856), 1 / 3.0)
        scale = 7.787 * xyz + 4.0 / 29.0
        xyz_int = torch.where(xyz > 0.008856, power, scale)
        x, y, z = xyz_int[..., 0, :, :], xyz_int[..., 1, :, :], xyz_int[..., 2, :, :]
        L = (116.0 * y) - 16.0
        a = 500.0 * (x - y)
        b = 200.0 * (y - z)
        return torch.stack([L, a, b], dim=-3)

    rng = np.random.default_rng(1305)
    img = torch.tensor(rng.uniform(0, 1, (2, 3, 5, 5)), dtype=torch.float32, device=device)
    img[0, :, 0, 0] = 0.5  # a grey pixel: delta zero
    hsv = rgb_to_hsv(img)
    back = hsv_to_rgb(hsv)
    ycc = rgb_to_ycbcr(img)
    lab = rgb_to_lab(img)
    hue_deg = torch.rad2deg(hsv[:, 0])
    # hue by atan2 (the HSI formula)
    r, g, b = img.unbind(1)
    alt = torch.atan2(math.sqrt(3) * (g - b), 2 * r - g - b)
    gray = (img * torch.tensor([0.299, 0.587, 0.114], device=device).view(1, 3, 1, 1)).sum(1, keepdim=True)
    return {"hsv": _rounded(hsv.flatten()[:10], 4), "roundtrip": round((back - img).abs().max().item(), 5),
            "grey": _rounded(hsv[0, :, 0, 0], 5), "ycbcr": _rounded(ycc.mean((0, 2, 3)), 5),
            "lab": _rounded(lab.mean((0, 2, 3)), 3), "lab_range": [round(lab[:, 0].min().item(), 3),
                                                                  round(lab[:, 0].max().item(), 3)],
            "hue_deg": round(hue_deg.mean().item(), 3), "atan2": round(alt.abs().mean().item(), 5),
            "gray": [list(gray.shape), round(gray.sum().item(), 4)]}


# ---- filters by grouped conv2d and unfold (Gaussian blur, Sobel, median, box) --------------------------------------
def filters_conv_unfold(torch, device):
    F = torch.nn.functional

    def gaussian_kernel1d(size, sigma):
        x = torch.arange(size, dtype=torch.float32, device=device) - size // 2
        if size % 2 == 0:
            x = x + 0.5
        g = torch.exp(-x.pow(2.0) / (2 * sigma ** 2))
        return g / g.sum()

    def gaussian_blur(img, size, sigma):
        k1 = gaussian_kernel1d(size, sigma)
        k2 = torch.outer(k1, k1)
        c = img.shape[1]
        weight = k2.expand(c, 1, size, size)
        padded = F.pad(img, [size // 2] * 4, mode="reflect")
        return F.conv2d(padded, weight, groups=c)

    def sobel(img):
        kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]], device=device)
        kernel = torch.stack([kx, kx.t()]).unsqueeze(1)  # 2,1,3,3
        b, c, h, w = img.shape
        grads = F.conv2d(F.pad(img.reshape(b * c, 1, h, w), [1, 1, 1, 1], mode="replicate"), kernel)
        gx, gy = grads[:, 0], grads[:, 1]
        return torch.sqrt(gx * gx + gy * gy + 1e-6).view(b, c, h, w)

    def median_blur(img, k):
        b, c, h, w = img.shape
        patches = F.unfold(F.pad(img, [k // 2] * 4, mode="constant", value=0.0), kernel_size=k)
        patches = patches.view(b, c, k * k, h * w)
        return patches.median(dim=2).values.view(b, c, h, w)

    rng = np.random.default_rng(1306)
    img = torch.tensor(rng.uniform(0, 1, (1, 3, 9, 10)), dtype=torch.float32, device=device)
    img[0, :, 4, 5] = 5.0  # salt noise
    blur = gaussian_blur(img, 5, 1.2)
    blur_even = gaussian_blur(img, 4, 0.8)
    edges = sobel(img)
    med = median_blur(img, 3)
    box = F.avg_pool2d(img, 3, stride=1, padding=1, count_include_pad=False)
    laplace = F.conv2d(img, torch.tensor([[0.0, 1, 0], [1, -4, 1], [0, 1, 0]], device=device).repeat(3, 1, 1, 1),
                       padding="same", groups=3)
    circular = F.pad(img, (2, 2, 1, 1), mode="circular")
    unsharp = (img + 0.7 * (img - blur)).clamp_(0, 1)
    return {"blur": [list(blur.shape), round(blur.sum().item(), 4)], "blur_even": list(blur_even.shape),
            "kernel": _rounded(gaussian_kernel1d(5, 1.2)), "edges": round(edges.mean().item(), 5),
            "median": [round(med[0, 0, 4, 5].item(), 5), round(med.sum().item(), 4)],
            "box": round(box.sum().item(), 4), "laplace": round(laplace.abs().sum().item(), 4),
            "circular": [list(circular.shape), circular[0, 0, 0, :3].tolist() == img[0, 0, -1, -2:].tolist() + [
                img[0, 0, -1, 0].item()]], "unsharp": round(unsharp.sum().item(), 4)}


# ---- image pyramids with interpolate (antialias, align_corners, scale_factor, recompute_scale_factor) -------------
def image_pyramid_interpolate(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1307)
    img = torch.tensor(rng.uniform(0, 1, (1, 2, 17, 23)), dtype=torch.float32, device=device)
    out = {}
    level = img
    sizes = []
    for _ in range(3):
        level = F.interpolate(level, scale_factor=0.5, mode="bilinear", align_corners=False, antialias=True,
                              recompute_scale_factor=True)
        sizes.append(list(level.shape[-2:]))
    out["pyramid"] = [sizes, round(level.sum().item(), 4)]
    out["no_recompute"] = list(F.interpolate(img, scale_factor=0.37, mode="bilinear").shape)
    out["recompute"] = list(F.interpolate(img, scale_factor=0.37, mode="bilinear",
                                          recompute_scale_factor=True).shape)
    down = F.interpolate(img, size=(8, 11), mode="bicubic", align_corners=True)
    out["bicubic_ac"] = round(down.sum().item(), 4)
    out["bicubic_aa"] = round(F.interpolate(img, size=(8, 11), mode="bicubic", antialias=True).sum().item(), 4)
    out["area"] = round(F.interpolate(img, size=(8, 11), mode="area").sum().item(), 4)
    out["nearest_exact"] = round(F.interpolate(img, scale_factor=(0.5, 0.75), mode="nearest-exact").sum().item(), 4)
    out["nearest"] = round(F.interpolate(img, size=(30, 40), mode="nearest").sum().item(), 4)
    # Laplacian pyramid: reconstruct exactly from residuals
    g0 = img
    g1 = F.avg_pool2d(g0[..., :16, :22], 2)
    up = F.interpolate(g1, size=(16, 22), mode="bilinear", align_corners=False)
    lap = g0[..., :16, :22] - up
    recon = F.interpolate(g1, size=(16, 22), mode="bilinear", align_corners=False) + lap
    out["laplacian"] = [round(lap.abs().mean().item(), 5), round((recon - g0[..., :16, :22]).abs().max().item(), 6)]
    up_mod = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
    out["upsample"] = [list(up_mod(g1).shape), round(up_mod(g1).mean().item(), 5)]
    out["trilinear"] = list(F.interpolate(img.unsqueeze(2), scale_factor=(1, 0.5, 0.5), mode="trilinear").shape)
    out["linear1d"] = round(F.interpolate(img[:, :, 0], scale_factor=1.5, mode="linear").sum().item(), 4)
    return out


# ---- a homography warp (kornia's warp_perspective over a normalised grid) -----------------------------------------
def homography_warp(torch, device):
    F = torch.nn.functional

    def normal_transform_pixel(h, w, dtype=torch.float64):
        tr = torch.tensor([[1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 0.0, 1.0]], device=device, dtype=dtype)
        tr[0, 0] = tr[0, 0] * 2.0 / (w - 1)
        tr[1, 1] = tr[1, 1] * 2.0 / (h - 1)
        return tr.unsqueeze(0)

    def warp_perspective(src, M, dsize):
        b, c, h, w = src.shape
        dst_norm_trans_src_norm = normal_transform_pixel(dsize[0], dsize[1]) @ M @ torch.inverse(
            normal_transform_pixel(h, w))
        src_norm_trans_dst_norm = torch.linalg.inv(dst_norm_trans_src_norm)
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, dsize[0], device=device, dtype=src.dtype),
                                torch.linspace(-1, 1, dsize[1], device=device, dtype=src.dtype), indexing="ij")
        grid = torch.stack([xs, ys, torch.ones_like(xs)], -1).view(1, -1, 3)
        pts = grid @ src_norm_trans_dst_norm.transpose(1, 2)
        z = pts[..., 2:]
        scale = torch.where(z.abs() > 1e-8, 1.0 / z, torch.ones_like(z))
        pts = (pts[..., :2] * scale).view(b, dsize[0], dsize[1], 2)
        return F.grid_sample(src, pts, align_corners=True)

    def find_homography_dlt(p1, p2):
        x1, y1 = p1.unbind(-1)
        x2, y2 = p2.unbind(-1)
        ones, zeros = torch.ones_like(x1), torch.zeros_like(x1)
        ax = torch.stack([zeros, zeros, zeros, -x1, -y1, -ones, y2 * x1, y2 * y1, y2], -1)
        ay = torch.stack([x1, y1, ones, zeros, zeros, zeros, -x2 * x1, -x2 * y1, -x2], -1)
        A = torch.cat((ax, ay), -2)
        _, _, Vh = torch.linalg.svd(A)
        H = Vh[..., -1, :].view(-1, 3, 3)
        return H / H[:, 2:3, 2:3]

    rng = np.random.default_rng(1308)
    img = torch.tensor(rng.uniform(0, 1, (1, 1, 12, 12)), dtype=torch.float64, device=device)
    src_pts = torch.tensor([[[0.0, 0.0], [11.0, 0.0], [11.0, 11.0], [0.0, 11.0]]], dtype=torch.float64, device=device)
    dst_pts = src_pts + torch.tensor(rng.uniform(-1.5, 1.5, (1, 4, 2)), dtype=torch.float64, device=device)
    H = find_homography_dlt(src_pts, dst_pts)
    hom = torch.cat([src_pts, torch.ones(1, 4, 1, dtype=torch.float64, device=device)], -1) @ H.transpose(1, 2)
    projected = hom[..., :2] / hom[..., 2:]
    warped = warp_perspective(img, H, (12, 12))
    identity = warp_perspective(img, torch.eye(3, dtype=torch.float64, device=device)[None], (12, 12))
    return {"H": _rounded(H.flatten(), 5), "reproj": round((projected - dst_pts).abs().max().item(), 6),
            "warped": round(warped.sum().item(), 4), "identity": round((identity - img).abs().max().item(), 8),
            "dtype": str(warped.dtype), "mixed": error_text(lambda: normal_transform_pixel(3, 3, torch.float32) @ H)}


# ---- histogram equalisation with histc / cumsum / gather (and CLAHE-like tiles with unfold) ------------------------
def histogram_equalization(torch, device):
    rng = np.random.default_rng(1309)
    img = torch.tensor(rng.beta(2, 5, (2, 1, 16, 16)), dtype=torch.float32, device=device)
    bins = 32

    def equalize(x):
        flat = x.flatten(1)
        out = []
        for row in flat:
            hist = torch.histc(row, bins=bins, min=0.0, max=1.0)
            cdf = hist.cumsum(0)
            cdf = (cdf - cdf.min()) / (cdf.max() - cdf.min())
            idx = (row * (bins - 1)).round().long().clamp(0, bins - 1)
            out.append(torch.gather(cdf, 0, idx))
        return torch.stack(out).view_as(x)

    eq = equalize(img)
    hist_before = torch.histc(img, bins=8, min=0, max=1)
    hist_after = torch.histc(eq, bins=8, min=0, max=1)
    # uint8 path as in torchvision.transforms.functional.equalize
    u8 = (img * 255).to(torch.uint8)
    counts = torch.bincount(u8.flatten().long(), minlength=256)
    nonzero = counts[counts != 0]
    step = torch.div(nonzero[:-1].sum(), 255, rounding_mode="floor")
    lut = torch.div(torch.cumsum(counts, 0) + torch.div(step, 2, rounding_mode="floor"), step,
                    rounding_mode="floor")
    lut = torch.nn.functional.pad(lut, [1, 0])[:-1].clamp_(0, 255)
    eq_u8 = lut[u8.long()].to(torch.uint8)
    # local tiles
    tiles = torch.nn.functional.unfold(img, kernel_size=8, stride=8)  # (2, 64, 4)
    tile_means = tiles.mean(1)
    hist_np = torch.histogram(img.cpu().flatten().double(), bins=4, range=(0.0, 1.0))
    return {"before": hist_before.tolist(), "after": hist_after.tolist(), "eq_dtype": str(eq.dtype),
            "eq_u8": [str(eq_u8.dtype), int(eq_u8.max()), int(eq_u8.float().mean().round())],
            "step": int(step), "tile_means": _rounded(tile_means.flatten(), 5),
            "histogram": [hist_np.hist.tolist(), hist_np.bin_edges.tolist()]}


# ---- a torchvision-v2-style uint8 pipeline: resize (antialias), crop, colour ops, posterize/solarize, normalise ------
def uint8_transforms_pipeline(torch, device):
    F = torch.nn.functional

    def resize(img, size, interpolation="bilinear", antialias=True):
        out = F.interpolate(img.unsqueeze(0), size=size, mode=interpolation, antialias=antialias,
                            align_corners=False if interpolation != "nearest" else None)
        return out.squeeze(0)

    def center_crop(img, size):
        h, w = img.shape[-2:]
        top, left = int(round((h - size[0]) / 2.0)), int(round((w - size[1]) / 2.0))
        return img[..., top:top + size[0], left:left + size[1]]

    def blend(img1, img2, ratio):
        return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, 255).to(img1.dtype)

    def rgb_to_grayscale(img):
        r, g, b = img.unbind(dim=-3)
        l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype)
        return l_img.unsqueeze(dim=-3)

    def adjust_contrast(img, factor):
        mean = torch.mean(rgb_to_grayscale(img).to(torch.float32), dim=(-3, -2, -1), keepdim=True)
        return blend(img, mean, factor)

    def posterize(img, bits):
        mask = -int(2 ** (8 - bits))
        return img & mask

    def solarize(img, threshold):
        return torch.where(img >= threshold, 255 - img, img)

    def autocontrast(img):
        minimum = img.amin(dim=(-2, -1), keepdim=True).to(torch.float32)
        maximum = img.amax(dim=(-2, -1), keepdim=True).to(torch.float32)
        scale = 255.0 / (maximum - minimum)
        eq_idxs = torch.isfinite(scale).logical_not()
        minimum[eq_idxs], scale[eq_idxs] = 0.0, 1.0
        return ((img - minimum) * scale).clamp(0, 255).to(img.dtype)

    def to_float(img):
        return img.to(torch.float32) / 255.0

    def to_uint8(img):
        eps = 1e-3
        return img.mul(255 + 1.0 - eps).to(torch.uint8)

    rng = np.random.default_rng(1310)
    hwc = (rng.beta(2, 3, (37, 45, 3)) * 255).astype(np.uint8)
    img = torch.from_numpy(hwc).permute(2, 0, 1).contiguous().to(device)
    out = {"input": [str(img.dtype), list(img.shape)]}
    small = resize(img, (24, 30))
    out["resize_aa"] = [str(small.dtype), list(small.shape), int(small.long().sum()), small[0, 0, :6].tolist()]
    out["resize_bicubic"] = int(resize(img, (50, 60), "bicubic", antialias=False).long().sum())
    out["resize_bicubic_aa"] = int(resize(img, (20, 17), "bicubic").long().sum())
    out["resize_nearest"] = int(resize(img, (20, 17), "nearest", antialias=False).long().sum())
    up = F.interpolate(img.unsqueeze(0), scale_factor=1.7, mode="bilinear", align_corners=True)
    out["upscale_ac"] = [list(up.shape), int(up.long().sum())]
    cl = img.unsqueeze(0).contiguous(memory_format=torch.channels_last)
    cl_small = F.interpolate(cl, size=(24, 30), mode="bilinear", antialias=True)
    out["channels_last"] = [bool(torch.equal(cl_small[0], small)),
                            cl_small.is_contiguous(memory_format=torch.channels_last)]
    crop = center_crop(small, (20, 20))
    flipped = crop.flip(-1)
    out["crop"] = [list(crop.shape), int(flipped[1, 0, 0]), int(crop[1, 0, -1])]
    bright = blend(crop, torch.zeros_like(crop), 1.4)
    out["brightness"] = int(bright.long().sum())
    out["contrast"] = int(adjust_contrast(crop, 0.6).long().sum())
    out["gray"] = [list(rgb_to_grayscale(crop).shape), int(rgb_to_grayscale(crop).long().sum())]
    out["posterize"] = posterize(crop, 3)[0, 0, :5].tolist()
    out["solarize"] = int(solarize(crop, 128).long().sum())
    out["autocontrast"] = [int(autocontrast(crop).amin()), int(autocontrast(crop).amax()),
                           int(autocontrast(crop).long().sum())]
    x = to_float(crop)
    normed = (x - torch.tensor([0.485, 0.456, 0.406], device=device).view(-1, 1, 1)) / torch.tensor(
        [0.229, 0.224, 0.225], device=device).view(-1, 1, 1)
    out["normalize"] = [str(normed.dtype), round(normed.mean().item(), 4)]
    out["roundtrip"] = bool(torch.equal(to_uint8(x), crop))
    padded = F.pad(crop, (2, 2, 3, 3), value=114)
    out["pad"] = [str(padded.dtype), list(padded.shape), int(padded[0, 0, 0])]
    # morphology on a uint8 mask: dilation by max_pool2d, erosion by the pool of the negated int16 mask
    mask = (rgb_to_grayscale(crop) > 110).to(torch.uint8)
    dilated = F.max_pool2d(mask.unsqueeze(0), 3, stride=1, padding=1)[0]
    eroded = -F.max_pool2d(-mask.to(torch.int16).unsqueeze(0), 3, stride=1, padding=1)[0]
    labels = torch.tensor(rng.integers(0, 5, (1, 1, 8, 8)), device=device)
    coarse, where = F.max_pool2d(labels, 2, return_indices=True)
    out["morphology"] = [str(dilated.dtype), int(mask.sum()), int(dilated.sum()), str(eroded.dtype),
                         int(eroded.sum()), str(coarse.dtype), coarse.flatten().tolist()[:8], where[0, 0, 0].tolist(),
                         F.avg_pool2d(labels, 2).flatten().tolist()[:8]]
    batch = torch.stack([crop, flipped]).float().div_(255)
    out["batch"] = [list(batch.shape), round(batch.std().item(), 5)]
    return out


# ---- detectron2-style Instances post-processing: Boxes container, per-class NMS, mask pasting by grid_sample ------
def instances_postprocess(torch, device):
    F = torch.nn.functional

    class Boxes:
        def __init__(self, tensor):
            tensor = torch.as_tensor(tensor, dtype=torch.float32, device=device)
            self.tensor = tensor.reshape(-1, 4)

        def __len__(self):
            return self.tensor.shape[0]

        def __getitem__(self, item):
            if isinstance(item, int):
                return Boxes(self.tensor[item].view(1, -1))
            return Boxes(self.tensor[item])

        def area(self):
            b = self.tensor
            return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])

        def clip(self, size):
            h, w = size
            x1 = self.tensor[:, 0].clamp(min=0, max=w)
            y1 = self.tensor[:, 1].clamp(min=0, max=h)
            x2 = self.tensor[:, 2].clamp(min=0, max=w)
            y2 = self.tensor[:, 3].clamp(min=0, max=h)
            self.tensor = torch.stack((x1, y1, x2, y2), dim=-1)

        def nonempty(self, threshold=0.0):
            widths = self.tensor[:, 2] - self.tensor[:, 0]
            heights = self.tensor[:, 3] - self.tensor[:, 1]
            return (widths > threshold) & (heights > threshold)

        def scale(self, sx, sy):
            self.tensor[:, 0::2] *= sx
            self.tensor[:, 1::2] *= sy

        @classmethod
        def cat(cls, boxes_list):
            return cls(torch.cat([b.tensor for b in boxes_list], dim=0))

    class Instances:
        def __init__(self, image_size, **fields):
            self.image_size, self._fields = image_size, dict(fields)

        def __getattr__(self, name):
            if name.startswith("_") or name == "image_size":
                raise AttributeError(name)
            return self._fields[name]

        def __len__(self):
            return len(next(iter(self._fields.values())))

        def __getitem__(self, item):
            return Instances(self.image_size, **{k: v[item] for k, v in self._fields.items()})

        def to(self, dev):
            return Instances(self.image_size, **{k: Boxes(v.tensor.to(dev)) if isinstance(v, Boxes) else v.to(dev)
                                                 for k, v in self._fields.items()})

    def nms(boxes, scores, thr):
        order = scores.argsort(descending=True)
        area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
        keep = torch.ones_like(order, dtype=torch.bool)
        for i in range(order.numel()):
            if not keep[i]:
                continue
            a = boxes[order[i]]
            rest = boxes[order[i + 1:]]
            lt = torch.maximum(a[:2], rest[:, :2])
            rb = torch.minimum(a[2:], rest[:, 2:])
            inter = (rb - lt).clamp(min=0).prod(dim=1)
            iou = inter / (area[order[i]] + area[order[i + 1:]] - inter)
            keep[i + 1:] &= iou <= thr
        return order[keep]

    def paste_masks(masks, boxes, h, w, threshold=0.5):
        n = masks.shape[0]
        x0, y0, x1, y1 = torch.split(boxes, 1, dim=1)
        img_y = torch.arange(0, h, device=device, dtype=torch.float32) + 0.5
        img_x = torch.arange(0, w, device=device, dtype=torch.float32) + 0.5
        img_y = (img_y - y0) / (y1 - y0) * 2 - 1
        img_x = (img_x - x0) / (x1 - x0) * 2 - 1
        gx = img_x[:, None, :].expand(n, img_y.size(1), img_x.size(1))
        gy = img_y[:, :, None].expand(n, img_y.size(1), img_x.size(1))
        grid = torch.stack([gx, gy], dim=3)
        img_masks = F.grid_sample(masks[:, None].to(torch.float32), grid, align_corners=False)[:, 0]
        return img_masks >= threshold

    rng = np.random.default_rng(1318)
    n, classes, h, w = 12, 3, 20, 24
    xy = rng.uniform(-2, 18, (n, 2))
    wh = rng.uniform(2, 10, (n, 2))
    raw = Instances((h, w), pred_boxes=Boxes(np.concatenate([xy, xy + wh], 1)),
                    scores=torch.tensor(rng.permutation(n) / n + 0.05, dtype=torch.float32),
                    pred_classes=torch.tensor(rng.integers(0, classes, n)),
                    pred_masks=torch.tensor(rng.uniform(0, 1, (n, 7, 7)), dtype=torch.float32)).to(device)
    raw.pred_boxes.clip(raw.image_size)
    kept = raw[raw.pred_boxes.nonempty(threshold=1.0) & (raw.scores > 0.2)]
    per_class = []
    for c in torch.unique(kept.pred_classes).tolist():
        idx = torch.nonzero(kept.pred_classes == c).squeeze(1)
        sel = idx[nms(kept.pred_boxes.tensor[idx], kept.scores[idx], 0.3)]
        per_class.append(sel)
    final = kept[torch.cat(per_class)]
    final = final[final.scores.argsort(descending=True)[:5]]
    masks = paste_masks(final.pred_masks, final.pred_boxes.tensor, h, w)
    boxes = Boxes.cat([final.pred_boxes, final.pred_boxes[0]])
    boxes.scale(0.5, 2.0)
    return {"n_raw": len(raw), "n_kept": len(kept), "n_final": len(final),
            "scores": _rounded(final.scores), "classes": final.pred_classes.tolist(),
            "boxes": [_rounded(b, 3) for b in final.pred_boxes.tensor.tolist()],
            "areas": _rounded(final.pred_boxes.area(), 3), "masks": [str(masks.dtype), list(masks.shape)],
            "mask_pixels": masks.sum(dim=(1, 2)).tolist(), "scaled": _rounded(boxes.tensor[-1], 3),
            "single": list(final.pred_boxes[0].tensor.shape)}


# ---- image-restoration metrics: PSNR and SSIM (Gaussian window by grouped conv2d), as restoration repos compute ------
def psnr_ssim_metrics(torch, device):
    F = torch.nn.functional

    def gaussian_window(size, sigma, channels):
        coords = torch.arange(size, dtype=torch.float32, device=device) - size // 2
        g = torch.exp(-(coords ** 2) / (2 * sigma ** 2))
        g = (g / g.sum()).unsqueeze(1)
        window = (g @ g.t()).float().unsqueeze(0).unsqueeze(0)
        return window.expand(channels, 1, size, size).contiguous()

    def ssim(img1, img2, window_size=11, size_average=True, data_range=1.0):
        channels = img1.size(1)
        window = gaussian_window(window_size, 1.5, channels).to(img1.dtype)
        mu1 = F.conv2d(img1, window, padding=window_size // 2, groups=channels)
        mu2 = F.conv2d(img2, window, padding=window_size // 2, groups=channels)
        mu1_sq, mu2_sq, mu1_mu2 = mu1.pow(2), mu2.pow(2), mu1 * mu2
        sigma1_sq = F.conv2d(img1 * img1, window, padding=window_size // 2, groups=channels) - mu1_sq
        sigma2_sq = F.conv2d(img2 * img2, window, padding=window_size // 2, groups=channels) - mu2_sq
        sigma12 = F.conv2d(img1 * img2, window, padding=window_size // 2, groups=channels) - mu1_mu2
        C1, C2 = (0.01 * data_range) ** 2, (0.03 * data_range) ** 2
        ssim_map = ((2 * mu1_mu2 + C1) * (2 * sigma12 + C2)) / ((mu1_sq + mu2_sq + C1) * (sigma1_sq + sigma2_sq + C2))
        return ssim_map.mean() if size_average else ssim_map.mean(1).mean(1).mean(1)

    def psnr(pred, target, data_range=1.0):
        mse = F.mse_loss(pred, target, reduction="none").flatten(1).mean(1)
        return 10 * torch.log10(data_range ** 2 / mse)

    class RunningMetric:
        def __init__(self):
            self.total = torch.tensor(0.0, dtype=torch.float64, device=device)
            self.count = 0

        def update(self, values):
            self.total += values.detach().double().sum()
            self.count += values.numel()

        def compute(self):
            return (self.total / self.count).item()

    rng = np.random.default_rng(1319)
    clean = torch.tensor(rng.uniform(0, 1, (3, 3, 24, 24)), dtype=torch.float32, device=device)
    clean = F.avg_pool2d(F.pad(clean, (1, 1, 1, 1), mode="reflect"), 3, stride=1)  # smoother images
    noisy = (clean + torch.tensor(rng.normal(0, 0.08, (3, 3, 24, 24)), dtype=torch.float32, device=device)).clamp(0, 1)
    denoiser = torch.nn.Conv2d(3, 3, 3, padding=1, padding_mode="reflect", bias=False).to(device)
    with torch.no_grad():
        denoiser.weight.zero_()
        for c in range(3):  # starts as a per-channel Gaussian blur
            denoiser.weight[c, c] = gaussian_window(3, 0.8, 1)[0, 0]
    opt = torch.optim.Adam(denoiser.parameters(), lr=0.01)
    losses = []
    for _ in range(4):
        out = denoiser(noisy)
        loss = 1 - ssim(out, clean) + F.l1_loss(out, clean)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    metric_psnr, metric_ssim = RunningMetric(), RunningMetric()
    with torch.no_grad():
        restored = denoiser(noisy).clamp(0, 1)
        metric_psnr.update(psnr(restored, clean))
        metric_ssim.update(ssim(restored, clean, size_average=False))
    u8 = (restored * 255).round().to(torch.uint8)
    return {"losses": losses, "psnr_noisy": _rounded(psnr(noisy, clean), 4),
            "psnr": round(metric_psnr.compute(), 4), "ssim": round(metric_ssim.compute(), 5),
            "ssim_self": round(ssim(clean, clean).item(), 5), "u8_psnr": _rounded(psnr(u8.float() / 255, clean), 3),
            "weight_sum": round(denoiser.weight.sum().item(), 5)}


PROGRAMS = [batched_nms_offsets, iou_family_losses, anchor_generator, roi_align_grid_sample, sigmoid_focal_loss_head,
            color_space_conversions, filters_conv_unfold, image_pyramid_interpolate, homography_warp,
            histogram_equalization, uint8_transforms_pipeline, instances_postprocess, psnr_ssim_metrics]
NEEDS_CPP = {}
