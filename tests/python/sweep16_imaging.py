"""Sweep 16 programs, image processing without nn modules: hand-built Sobel, Gaussian and Laplacian kernels through
F.conv2d, histogram equalisation of uint8 images, morphology by max_pool2d and unfold, affine_grid/grid_sample
warps, colour-space conversions, image pyramids by interpolate, non-maximum suppression and template matching."""
import numpy as np

from sweep15_common import cases, plain


def _image(torch, device, seed, shape=(1, 1, 12, 12), dtype=None):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:shape[-2], 0:shape[-1]]
    base = ((xx - shape[-1] / 2) ** 2 + (yy - shape[-2] / 2) ** 2 < (shape[-1] / 3) ** 2).astype(np.float64)
    img = base + 0.1 * rng.standard_normal(shape)
    return torch.tensor(img, dtype=dtype or torch.float32, device=device)


# ---- edges: Sobel gradients, magnitude/orientation, a separable Gaussian blur, Laplacian, padding modes -----------
def sobel_and_blur(torch, device):
    F = torch.nn.functional
    img = _image(torch, device, 1700)
    kx = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]], device=device)
    k = torch.stack([kx, kx.T]).unsqueeze(1)
    g = F.conv2d(F.pad(img, (1, 1, 1, 1), mode="replicate"), k)
    mag = torch.hypot(g[:, 0], g[:, 1])
    ang = torch.rad2deg(torch.atan2(g[:, 1], g[:, 0]))
    sigma = 1.2
    t = torch.arange(-3, 4, dtype=torch.float32, device=device)
    g1 = torch.exp(-t ** 2 / (2 * sigma ** 2))
    g1 = g1 / g1.sum()
    blur_sep = F.conv2d(F.conv2d(img, g1.view(1, 1, 1, 7), padding=(0, 3)), g1.view(1, 1, 7, 1), padding=(3, 0))
    blur_2d = F.conv2d(img, torch.outer(g1, g1).view(1, 1, 7, 7), padding="same")
    lap = torch.tensor([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]], device=device).view(1, 1, 3, 3)
    rgb = _image(torch, device, 1701, (2, 3, 10, 10))
    depthwise = F.conv2d(F.pad(rgb, (1, 1, 1, 1), mode="reflect"), lap.expand(3, 1, 3, 3), groups=3)
    circ = F.conv2d(F.pad(img, (1, 1, 1, 1), mode="circular"), lap)
    log = F.conv2d(blur_2d, lap, padding=1)
    zero_cross = ((log[..., :, 1:] * log[..., :, :-1]) < 0).sum()
    return {"mag": mag.flatten()[::7].tolist(), "ang": ang.flatten()[::11].tolist(),
            "same_blur": bool(torch.allclose(blur_sep, blur_2d, atol=1e-6)), "blur": blur_2d.sum().item(),
            "depthwise": [list(depthwise.shape), depthwise.abs().sum().item()], "circ": circ.sum().item(),
            "zero_cross": zero_cross.item(), "valid_shape": list(F.conv2d(img, k, padding="valid").shape),
            "dilated": F.conv2d(img, k, dilation=2, stride=2).flatten()[:8].tolist(),
            "errors": cases(torch, {"same_stride": lambda: F.conv2d(img, k, padding="same", stride=2),
                                    "bad_pad": lambda: F.conv2d(img, k, padding="full"),
                                    "reflect_big": lambda: F.pad(img, (12, 12), mode="reflect")})}


# ---- histogram equalisation of a uint8 image (bincount, histc, cumsum, a lookup table by indexing, bucketize) -----
def histogram_equalisation(torch, device):
    rng = np.random.default_rng(1710)
    raw = np.clip(rng.normal(90, 20, (16, 16)), 0, 255).astype(np.uint8)
    img = torch.tensor(raw, device=device)
    hist = torch.bincount(img.flatten(), minlength=256)
    hist_f = torch.histc(img.float(), bins=256, min=0, max=255)
    cdf = hist.cumsum(0)
    cdf_min = cdf[cdf > 0].min()
    lut = ((cdf - cdf_min).float() / (img.numel() - cdf_min) * 255).round().clamp(0, 255).to(torch.uint8)
    eq = lut[img.long()]
    eq_take = torch.take(lut, img.long())
    edges = torch.tensor([64, 128, 192], dtype=torch.uint8, device=device)
    levels = torch.bucketize(eq, edges, right=True)
    tiles = img.float().unfold(0, 8, 8).unfold(1, 8, 8).reshape(4, 64)
    tile_hist = torch.stack([torch.histc(t, bins=8, min=0, max=255) for t in tiles])
    return {"hist_same": bool(torch.equal(hist.float(), hist_f)), "eq_hist": torch.bincount(eq.flatten(),
                                                                                          minlength=256)[::16].tolist(),
            "lut": lut[60:120:5].tolist(), "dtype": [str(eq.dtype), str(cdf.dtype), str(levels.dtype)],
            "take": bool(torch.equal(eq, eq_take)), "levels": torch.bincount(levels.flatten()).tolist(),
            "tile_hist": tile_hist.tolist(), "mean_std": [eq.float().mean().item(), eq.float().std().item()],
            "u8_mean": cases(torch, {"mean": lambda: eq.mean(), "sum": lambda: eq.sum(),
                                     "cumsum_u8": lambda: eq[0].cumsum(0, dtype=torch.uint8)[:4],
                                     "min": lambda: eq.min(), "argmax": lambda: eq.flatten().argmax()})}


# ---- morphology: dilation/erosion by max_pool2d, opening/closing, top-hat, a median filter by unfold, fold --------
def morphology(torch, device):
    F = torch.nn.functional
    img = (_image(torch, device, 1720) > 0.5).float()
    dil = F.max_pool2d(img, 3, stride=1, padding=1)
    ero = -F.max_pool2d(-img, 3, stride=1, padding=1)
    opening = F.max_pool2d(-F.max_pool2d(-img, 3, 1, 1), 3, 1, 1)
    closing = -F.max_pool2d(-F.max_pool2d(img, 3, 1, 1), 3, 1, 1)
    gray = _image(torch, device, 1721)
    tophat = gray - F.max_pool2d(-F.max_pool2d(-gray, 5, 1, 2), 5, 1, 2)
    patches = F.unfold(F.pad(gray, (1, 1, 1, 1), mode="replicate"), kernel_size=3)
    median = patches.median(dim=1).values.view_as(gray)
    folded = F.fold(F.unfold(gray, 4, stride=4), output_size=(12, 12), kernel_size=4, stride=4)
    overlap = F.fold(F.unfold(torch.ones_like(gray), 3, padding=1), (12, 12), 3, padding=1)
    pooled, idx = F.max_pool2d(gray, 2, return_indices=True)
    unpooled = F.max_unpool2d(pooled, idx, 2, output_size=gray.shape[-2:])
    boundary = img - ero
    cross = torch.tensor([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]], device=device)
    dil_cross = (F.conv2d(img, cross.view(1, 1, 3, 3), padding=1) > 0).to(torch.uint8)
    return {"dil": dil.sum().item(), "ero": ero.sum().item(), "open": opening.sum().item(),
            "close": closing.sum().item(), "tophat": tophat.flatten()[::9].tolist(),
            "median": median.flatten()[::9].tolist(), "fold_same": bool(torch.equal(folded, gray)),
            "overlap": overlap[0, 0, :3, :3].tolist(), "unpool": unpooled.ne(0).sum().item(),
            "idx": idx.flatten()[:6].tolist(), "boundary": int(boundary.sum().item()),
            "dil_cross": [str(dil_cross.dtype), dil_cross.sum().item()],
            "patches": list(patches.shape), "pixel_shuffle": F.pixel_unshuffle(gray, 2).shape[1]}


# ---- warps: affine_grid + grid_sample in every mode, padding mode and align_corners; gradients through the grid ----
def affine_warps(torch, device):
    F = torch.nn.functional
    img = _image(torch, device, 1730, (2, 1, 8, 8), dtype=torch.float64)
    angle = torch.tensor([0.3, -0.5], dtype=torch.float64, device=device)
    c, s = torch.cos(angle), torch.sin(angle)
    theta = torch.stack([torch.stack([c, -s, 0.1 * c], 1), torch.stack([s, c, -0.2 * s], 1)], 1)
    out = {}
    for align in (False, True):
        grid = F.affine_grid(theta, list(img.shape), align_corners=align)
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border", "reflection"):
                w = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=align)
                out[f"{mode}_{pad}_{align}"] = round(w.sum().item(), 8)
    ident = F.affine_grid(torch.eye(2, 3, dtype=torch.float64, device=device).unsqueeze(0).expand(2, 2, 3),
                          [2, 1, 8, 8], align_corners=False)
    out["identity"] = bool(torch.allclose(F.grid_sample(img, ident, align_corners=False), img))
    th = theta.clone().requires_grad_()
    warped = F.grid_sample(img, F.affine_grid(th, [2, 1, 6, 5], align_corners=False), align_corners=False)
    warped.pow(2).sum().backward()
    out["theta_grad"] = th.grad.flatten().tolist()
    out["grid_shape"] = list(F.affine_grid(theta, [2, 3, 6, 5], align_corners=False).shape)
    vol = torch.eye(3, 4, dtype=torch.float64, device=device).unsqueeze(0)
    out["grid3d"] = list(F.affine_grid(vol, [1, 1, 2, 3, 4], align_corners=True).shape)
    flow = torch.zeros(2, 8, 8, 2, dtype=torch.float64, device=device)
    flow[..., 0] = 0.25
    base = F.affine_grid(torch.eye(2, 3, dtype=torch.float64, device=device).expand(2, 2, 3), [2, 1, 8, 8],
                         align_corners=True)
    out["shifted"] = F.grid_sample(img, base + flow, align_corners=True)[0, 0, 3].tolist()
    out["errors"] = cases(torch, {
        "bad_theta": lambda: F.affine_grid(theta[:, :1], [2, 1, 8, 8], align_corners=False),
        "bad_mode": lambda: F.grid_sample(img, base, mode="area", align_corners=False),
        "bad_pad": lambda: F.grid_sample(img, base, padding_mode="wrap", align_corners=False)})
    return out


# ---- colour spaces: RGB to HSV and back, YCbCr by tensordot, gamma, grayscale in uint8 ----------------------------
def colour_spaces(torch, device):
    rng = np.random.default_rng(1740)
    rgb = torch.tensor(rng.uniform(0, 1, (2, 3, 4, 4)), dtype=torch.float32, device=device)
    r, g, b = rgb.unbind(1)
    maxc, argmax = rgb.max(1)
    minc = rgb.amin(1)
    delta = maxc - minc
    v = maxc
    s = torch.where(maxc > 0, delta / maxc, torch.zeros_like(maxc))
    safe = torch.where(delta > 0, delta, torch.ones_like(delta))
    h = torch.where(argmax == 0, ((g - b) / safe) % 6,
                    torch.where(argmax == 1, (b - r) / safe + 2, (r - g) / safe + 4)) / 6
    h = torch.where(delta > 0, h, torch.zeros_like(h))
    hsv = torch.stack([h, s, v], 1)
    # back to RGB
    i = torch.floor(h * 6)
    f = h * 6 - i
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    i = i.long() % 6
    choices = torch.stack([torch.stack(c, 1) for c in ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v),
                                                         (v, p, q))], 0)
    back = choices.gather(0, i.unsqueeze(0).unsqueeze(2).expand(1, 2, 3, 4, 4)).squeeze(0)
    M = torch.tensor([[0.299, 0.587, 0.114], [-0.168736, -0.331264, 0.5], [0.5, -0.418688, -0.081312]],
                     device=device)
    ycc = torch.tensordot(M, rgb, dims=([1], [1])).permute(1, 0, 2, 3) + torch.tensor([0, 0.5, 0.5],
                                                                                      device=device).view(1, 3, 1, 1)
    ycc2 = torch.einsum("ij,bjhw->bihw", M, rgb)
    u8 = (rgb * 255).round().to(torch.uint8)
    gray = (u8.float() * torch.tensor([0.299, 0.587, 0.114], device=device).view(1, 3, 1, 1)).sum(1)
    gray_u8 = gray.round().to(torch.uint8)
    gamma = rgb.pow(1 / 2.2)
    srgb = torch.where(rgb <= 0.0031308, 12.92 * rgb, 1.055 * rgb.pow(1 / 2.4) - 0.055)
    return {"hsv": hsv[0, :, 0].tolist(), "roundtrip": bool(torch.allclose(back, rgb, atol=1e-5)),
            "ycc": ycc[1, :, 1].tolist(), "ycc_same": bool(torch.allclose(ycc2, ycc - ycc.new_tensor(
                [0, 0.5, 0.5]).view(1, 3, 1, 1), atol=1e-6)), "gray": gray_u8[0].tolist(),
            "gamma": gamma.mean().item(), "srgb": srgb.flatten()[:5].tolist(), "argmax": argmax[0].tolist(),
            "u8_ops": plain(torch, [u8[0, 0, 0], (u8[0, 0, 0] // 2 + u8[0, 1, 0] // 2), u8.float().div(255).dtype,
                                    (u8 > 128).sum(1).max()]),
            "invert": (255 - u8[0, 0, 0]).tolist(), "clip": (u8[0, 0, 0].to(torch.int16) * 2).clamp(0, 255).to(
                torch.uint8).tolist()}


# ---- pyramids: Gaussian and Laplacian pyramids by interpolate in each mode, avg_pool2d corners ------------------
def image_pyramids(torch, device):
    F = torch.nn.functional
    img = _image(torch, device, 1750, (1, 2, 16, 16))
    levels = [img]
    for _ in range(3):
        levels.append(F.avg_pool2d(levels[-1], 2))
    lap = [levels[i] - F.interpolate(levels[i + 1], scale_factor=2, mode="bilinear", align_corners=False)
           for i in range(3)]
    recon = levels[-1]
    for i in reversed(range(3)):
        recon = F.interpolate(recon, scale_factor=2, mode="bilinear", align_corners=False) + lap[i]
    out = {"recon": bool(torch.allclose(recon, img, atol=1e-5)), "shapes": [list(t.shape) for t in levels]}
    small = levels[2]
    for mode in ("nearest", "nearest-exact", "bilinear", "bicubic", "area"):
        kw = {} if mode in ("nearest", "nearest-exact", "area") else {"align_corners": False}
        out[mode] = F.interpolate(small, size=(7, 5), mode=mode, **kw)[0, 0].flatten()[::3].tolist()
    out["antialias"] = F.interpolate(img, size=(5, 5), mode="bilinear", antialias=True, align_corners=False)[
        0, 1, 2].tolist()
    out["bicubic_aa"] = F.interpolate(img, size=(6, 6), mode="bicubic", antialias=True, align_corners=False)[
        0, 0, 0].tolist()
    out["recompute"] = list(F.interpolate(img, scale_factor=0.3, mode="nearest", recompute_scale_factor=True).shape)
    out["scale_tuple"] = F.interpolate(small, scale_factor=(1.5, 2.0), mode="bilinear", align_corners=True)[
        0, 0, 1].tolist()
    out["ceil"] = list(F.avg_pool2d(img[..., :15, :15], 2, ceil_mode=True).shape)
    out["no_pad_count"] = F.avg_pool2d(img, 3, stride=2, padding=1, count_include_pad=False)[0, 0, 0].tolist()
    out["divisor"] = F.avg_pool2d(img, 2, divisor_override=1)[0, 0, 0, :3].tolist()
    out["adaptive"] = F.adaptive_avg_pool2d(img, (3, 5))[0, 0].flatten().tolist()
    out["lp_pool"] = F.lp_pool2d(img.abs(), 2, 4)[0, 0, 0].tolist()
    out["errors"] = cases(torch, {
        "both": lambda: F.interpolate(img, size=4, scale_factor=2.0),
        "aa_nearest": lambda: F.interpolate(img, size=4, mode="nearest", antialias=True),
        "align_nearest": lambda: F.interpolate(img, size=4, mode="nearest", align_corners=True),
        "bad_mode": lambda: F.interpolate(img, size=4, mode="cubic")})
    return out


# ---- non-maximum suppression: IoU matrix, greedy NMS, class-offset batched NMS, soft-NMS --------------------------
def non_maximum_suppression(torch, device):
    rng = np.random.default_rng(1760)
    xy = rng.uniform(0, 40, (30, 2))
    wh = rng.uniform(5, 20, (30, 2))
    boxes = torch.tensor(np.concatenate([xy, xy + wh], 1), dtype=torch.float32, device=device)
    scores = torch.tensor(rng.uniform(0, 1, 30), dtype=torch.float32, device=device)
    classes = torch.tensor(rng.integers(0, 3, 30), device=device)

    def box_iou(a, b):
        area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
        area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        lt = torch.max(a[:, None, :2], b[None, :, :2])
        rb = torch.min(a[:, None, 2:], b[None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(2)
        return inter / (area_a[:, None] + area_b[None, :] - inter)

    def nms(bx, sc, thr):
        order = sc.argsort(descending=True)
        keep = []
        while order.numel() > 0:
            i = order[0]
            keep.append(i.item())
            if order.numel() == 1:
                break
            ious = box_iou(bx[i].unsqueeze(0), bx[order[1:]]).squeeze(0)
            order = order[1:][ious <= thr]
        return keep

    keep = nms(boxes, scores, 0.3)
    offset = classes.to(boxes.dtype)[:, None] * (boxes.max() + 1)
    keep_batched = nms(boxes + offset, scores, 0.3)
    iou = box_iou(boxes, boxes)
    # matrix NMS: a box is dropped if a higher-scoring box overlaps it
    order = scores.argsort(descending=True)
    iou_sorted = iou[order][:, order].triu(diagonal=1)
    keep_matrix = order[iou_sorted.amax(0) <= 0.3].sort().values
    decay = torch.exp(-(iou_sorted ** 2) / 0.5).prod(0)
    soft = scores[order] * decay
    return {"keep": keep, "batched": keep_batched, "matrix": keep_matrix.tolist(),
            "iou_diag": iou.diagonal().tolist()[:3], "soft": soft[:8].tolist(),
            "n_over": int((iou.triu(1) > 0.3).sum()), "per_class": torch.bincount(classes[keep_batched]).tolist(),
            "cummax": iou_sorted.amax(0).cummax(0).indices[:8].tolist()}


# ---- template matching by normalised cross-correlation (conv2d, unfold statistics, argmax, unravel_index) ---------
def template_matching(torch, device):
    F = torch.nn.functional
    img = _image(torch, device, 1770, (1, 1, 20, 20), dtype=torch.float64)
    tmpl = img[..., 6:11, 9:14].clone()
    patches = F.unfold(img, 5)
    pm = patches.mean(1, keepdim=True)
    ps = patches.std(1, unbiased=False, keepdim=True)
    t = tmpl.flatten()
    tn = (t - t.mean()) / t.std(unbiased=False)
    ncc = (((patches - pm) / ps) * tn.view(1, -1, 1)).mean(1).view(16, 16)
    best = ncc.argmax()
    where = torch.unravel_index(best, ncc.shape)
    corr = F.conv2d(img, tmpl)
    ssd = (patches - t.view(1, -1, 1)).pow(2).sum(1).view(16, 16)
    return {"where": [int(w) for w in where], "ncc_max": ncc.max().item(),
            "ssd_argmin": divmod(ssd.argmin().item(), 16), "corr_shape": list(corr.shape),
            "corr_top": corr.flatten().topk(3).indices.tolist(),
            "unravel": [w.tolist() for w in torch.unravel_index(torch.tensor([0, 17, 255], device=device), (16, 16))],
            "errors": cases(torch, {"unravel_big": lambda: torch.unravel_index(torch.tensor(300), (16, 16)),
                                    "unravel_float": lambda: torch.unravel_index(torch.tensor(1.0), (4,))})}


# ---- integer and mask images: box sums and Sobel in integer dtypes through conv2d, bool morphology by unfold/fold --
def integer_image_filters(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1780)
    u8 = torch.tensor(rng.integers(0, 256, (1, 1, 8, 8)), dtype=torch.uint8, device=device)
    box = torch.ones(1, 1, 3, 3, dtype=torch.int64, device=device)
    sums = F.conv2d(u8.long(), box, padding=1)
    kx = torch.tensor([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]], dtype=torch.int16, device=device).view(1, 1, 3, 3)
    sobel16 = F.conv2d(u8.to(torch.int16), torch.cat([kx, kx.transpose(2, 3)]), stride=1)
    wrapped = F.conv2d(u8, torch.full((1, 1, 2, 2), 3, dtype=torch.uint8, device=device))
    mask = u8 > 128
    cols = F.unfold(mask.float(), 3, padding=1)
    dil_bool = F.unfold(mask, 3, padding=1).any(1).view(1, 1, 8, 8)
    ero_bool = F.unfold(mask, 3, padding=1).all(1).view(1, 1, 8, 8)
    blocks = F.fold(F.unfold(mask, 2, stride=2), (8, 8), 2, stride=2)
    overlap = F.fold(F.unfold(mask, 3, padding=1), (8, 8), 3, padding=1)
    dilated_conv = F.conv2d(u8.long(), box, dilation=2, padding=2)
    up = F.conv_transpose2d(sums[..., ::2, ::2], torch.ones(1, 1, 2, 2, dtype=torch.int64, device=device), stride=2)
    return cases(torch, {
        "sums": lambda: sums, "sum_same": lambda: bool(torch.equal(sums.float(), F.conv2d(u8.float(), box.float(),
                                                                                           padding=1))),
        "sobel": lambda: sobel16, "wrapped": lambda: wrapped, "dil": lambda: dil_bool,
        "dil_same": lambda: bool(torch.equal(dil_bool, (cols.amax(1) > 0).view(1, 1, 8, 8))),
        "ero": lambda: ero_bool, "blocks": lambda: bool(torch.equal(blocks, mask)), "overlap": lambda: overlap,
        "dilated": lambda: dilated_conv, "up": lambda: up,
        "conv1d": lambda: F.conv1d(u8[0, 0].long().unsqueeze(1), torch.ones(1, 1, 3, dtype=torch.long,
                                                                          device=device)),
        "conv3d": lambda: F.conv3d(u8.unsqueeze(2).to(torch.int32), torch.ones(1, 1, 1, 2, 2, dtype=torch.int32,
                                                                                device=device)),
        "bool_conv": lambda: F.conv2d(mask, mask[..., :2, :2]),
        "u8_dilated": lambda: F.conv2d(u8, box.to(torch.uint8), dilation=2),
        "u8_transposed": lambda: F.conv_transpose2d(u8, box.to(torch.uint8)),
        "mixed": lambda: F.conv2d(u8, box), "float_weight": lambda: F.conv2d(u8, box.float()),
        "bool_reflect": lambda: F.pad(mask, (1, 1, 1, 1), mode="reflect"),
        "bool_circular": lambda: F.pad(mask, (1, 1, 1, 1), mode="circular"),
        "u8_replicate": lambda: F.pad(u8, (1, 1, 1, 1), mode="replicate"),
        "unpool_float": lambda: F.max_unpool2d(*F.max_pool2d(u8.float(), 2, return_indices=True), 2).sum(),
        "unpool_u8": lambda: F.max_unpool2d(u8[..., :4, :4], F.max_pool2d(u8.float(), 2, return_indices=True)[1], 2),
        "aa_int": lambda: F.interpolate(u8.long(), size=4, mode="bilinear", antialias=True),
        "aa_u8": lambda: F.interpolate(u8, size=4, mode="bilinear", antialias=True),
        "unpool_empty": lambda: F.max_unpool2d(torch.ones(0, 1, 2, 2, device=device),
                                               torch.zeros(0, 1, 2, 2, dtype=torch.long, device=device), 2)})


# ---- volume warps: 3-d affine_grid + grid_sample (trilinear, nearest, tricubic), gradients, NaN/inf coordinates --
def volume_warps(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1790)
    vol = torch.tensor(rng.standard_normal((1, 2, 4, 5, 6)), dtype=torch.float64, device=device)
    angle = 0.4
    c, s = np.cos(angle), np.sin(angle)
    theta = torch.tensor([[[c, -s, 0, 0.1], [s, c, 0, -0.2], [0, 0, 1, 0.05]]], dtype=torch.float64, device=device)
    out = {}
    for align in (False, True):
        grid = F.affine_grid(theta, [1, 2, 3, 4, 5], align_corners=align)
        for mode in ("bilinear", "nearest", "bicubic"):
            for pad in ("zeros", "border", "reflection"):
                out[f"{mode}_{pad}_{align}"] = F.grid_sample(vol, grid, mode=mode, padding_mode=pad,
                                                              align_corners=align).sum().item()
    g = F.affine_grid(theta, [1, 2, 2, 3, 3], align_corners=False).clone().requires_grad_()
    v = vol.clone().requires_grad_()
    for mode in ("nearest", "bilinear", "bicubic"):
        F.grid_sample(v, g, mode=mode, align_corners=False).pow(2).sum().backward()
        out[f"grad_{mode}"] = [v.grad.abs().sum().item(), g.grad.abs().sum().item(), list(g.grad.shape)]
        v.grad, g.grad = None, None
    img = vol[:, :, 0]
    weird = torch.tensor([[[[float("nan"), 0.0], [float("inf"), 0.2], [-float("inf"), -0.3]]]], dtype=torch.float64,
                         device=device)
    for pad in ("zeros", "border", "reflection"):
        for mode in ("bilinear", "nearest"):
            out[f"weird_{pad}_{mode}"] = plain(torch, F.grid_sample(img, weird, mode=mode, padding_mode=pad,
                                                                     align_corners=False))
    half = F.grid_sample(img.half(), weird.nan_to_num(0.5, 2.0, -2.0).half(), mode="bicubic", align_corners=True)
    out["half_bicubic"] = half.flatten().tolist()
    out["errors"] = cases(torch, {"grid_dims": lambda: F.grid_sample(vol, weird, align_corners=False),
                                  "theta_3d": lambda: F.affine_grid(theta, [1, 2, 3, 4], align_corners=False)})
    return out


PROGRAMS = [sobel_and_blur, histogram_equalisation, morphology, affine_warps, colour_spaces, image_pyramids,
            non_maximum_suppression, template_matching, integer_image_filters, volume_warps]
NEEDS_CPP = {}
