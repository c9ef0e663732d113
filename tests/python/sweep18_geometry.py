"""Sweep 18 programs, 3-D geometry and rendering: quaternion algebra and slerp, so(3) exponential and logarithm maps
(Rodrigues, against matrix_exp), pinhole camera projection and depth unprojection, NeRF positional encoding and volume
rendering (transmittance by cumprod), hierarchical sampling by searchsorted, and sphere tracing a signed distance
field with ray-box slab tests."""
import math

import numpy as np

from sweep15_common import cases, plain
from test_programs_sweeputil import uniform_fill as _fill, seeded_randn as _randn


def _quat_mul(torch, a, b):
    aw, ax, ay, az = a.unbind(-1)
    bw, bx, by, bz = b.unbind(-1)
    return torch.stack([aw * bw - ax * bx - ay * by - az * bz,
                        aw * bx + ax * bw + ay * bz - az * by,
                        aw * by - ax * bz + ay * bw + az * bx,
                        aw * bz + ax * by - ay * bx + az * bw], dim=-1)


def _quat_to_matrix(torch, q):
    w, x, y, z = torch.nn.functional.normalize(q, dim=-1).unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1).reshape(q.shape[:-1]
                                                                                                     + (3, 3))


# ---- quaternions: products, conjugates, rotation of vectors, matrix conversions both ways, slerp -------------------
def quaternion_algebra(torch, device):
    F = torch.nn.functional
    q = F.normalize(_randn(torch, 1900, 5, 4, device=device), dim=-1)
    r = F.normalize(_randn(torch, 1901, 5, 4, device=device), dim=-1)
    v = _randn(torch, 1902, 5, 3, device=device)
    conj = q * torch.tensor([1.0, -1.0, -1.0, -1.0], device=device)
    rotated = _quat_mul(torch, _quat_mul(torch, q, F.pad(v, (1, 0))), conj)[..., 1:]
    mats = _quat_to_matrix(torch, q)
    by_matrix = torch.einsum("bij,bj->bi", mats, v)
    composed = _quat_to_matrix(torch, _quat_mul(torch, q, r))
    product = mats @ _quat_to_matrix(torch, r)

    def matrix_to_quat(m):     # Shepperd: pick the largest of the four candidate components
        m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
        cands = torch.stack([1 + m00 + m11 + m22, 1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22], -1)
        best = cands.argmax(-1)
        s = torch.sqrt(cands.clamp_min(1e-12))
        d21, d02, d10 = m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0], m[..., 1, 0] - m[..., 0, 1]
        a01, a02, a12 = m[..., 0, 1] + m[..., 1, 0], m[..., 0, 2] + m[..., 2, 0], m[..., 1, 2] + m[..., 2, 1]
        opts = torch.stack([
            torch.stack([s[..., 0], d21 / s[..., 0], d02 / s[..., 0], d10 / s[..., 0]], -1),
            torch.stack([d21 / s[..., 1], s[..., 1], a01 / s[..., 1], a02 / s[..., 1]], -1),
            torch.stack([d02 / s[..., 2], a01 / s[..., 2], s[..., 2], a12 / s[..., 2]], -1),
            torch.stack([d10 / s[..., 3], a02 / s[..., 3], a12 / s[..., 3], s[..., 3]], -1)], -2) / 2
        out = opts.gather(-2, best[..., None, None].expand(*best.shape, 1, 4)).squeeze(-2)
        return out * torch.where(out[..., :1] < 0, -1.0, 1.0)

    back = matrix_to_quat(mats)
    canon = q * torch.sign(q[..., :1])

    def slerp(a, b, t):
        dot = (a * b).sum(-1, keepdim=True)
        b = torch.where(dot < 0, -b, b)
        dot = dot.abs().clamp(max=1.0)
        omega = torch.acos(dot)
        so = torch.sin(omega)
        lin = torch.lerp(a, b, t)
        out = (torch.sin((1 - t) * omega) * a + torch.sin(t * omega) * b) / so.clamp_min(1e-8)
        return F.normalize(torch.where(so < 1e-6, lin, out), dim=-1)

    ts = torch.linspace(0, 1, 5, device=device).view(5, 1, 1)
    path = slerp(q[:1].unsqueeze(0), r[:1].unsqueeze(0), ts).squeeze(1)
    same = slerp(q[:2], q[:2], torch.full((2, 1), 0.3, device=device))
    angles = 2 * torch.atan2(path[:, 1:].norm(dim=-1), path[:, 0])
    return {"rotated": plain(torch, rotated), "agree": bool(torch.allclose(rotated, by_matrix, atol=1e-5)),
            "compose": bool(torch.allclose(composed, product, atol=1e-5)), "det": plain(torch, torch.linalg.det(mats)),
            "back": bool(torch.allclose(back, canon, atol=1e-5)), "path": plain(torch, path),
            "same": plain(torch, same), "angles": plain(torch, angles)}


# ---- so(3): hat/vee, Rodrigues' exp map with its small-angle branch, log map, against linalg.matrix_exp --------------
def so3_maps(torch, device):
    def hat(w):
        zero = torch.zeros_like(w[..., 0])
        return torch.stack([zero, -w[..., 2], w[..., 1], w[..., 2], zero, -w[..., 0],
                            -w[..., 1], w[..., 0], zero], -1).reshape(*w.shape[:-1], 3, 3)

    def exp_map(w):
        theta = w.norm(dim=-1, keepdim=True).unsqueeze(-1)
        small = theta < 1e-4
        safe = torch.where(small, torch.ones_like(theta), theta)
        a = torch.where(small, 1 - theta ** 2 / 6, torch.sin(safe) / safe)
        b = torch.where(small, 0.5 - theta ** 2 / 24, (1 - torch.cos(safe)) / safe ** 2)
        k = hat(w)
        eye = torch.eye(3, device=w.device, dtype=w.dtype).expand_as(k)
        return eye + a * k + b * (k @ k)

    def log_map(r):
        cos = ((r.diagonal(dim1=-2, dim2=-1).sum(-1) - 1) / 2).clamp(-1 + 1e-7, 1 - 1e-7)
        theta = torch.acos(cos)
        vee = torch.stack([r[..., 2, 1] - r[..., 1, 2], r[..., 0, 2] - r[..., 2, 0], r[..., 1, 0] - r[..., 0, 1]], -1)
        return vee * (theta / (2 * torch.sin(theta))).unsqueeze(-1)

    w = _randn(torch, 1910, 6, 3, device=device, dtype=torch.float64) * 0.8
    w[0] = torch.tensor([1e-6, -2e-6, 0.0], dtype=torch.float64)
    r = exp_map(w)
    ref = torch.linalg.matrix_exp(hat(w))
    orth = (r.transpose(-1, -2) @ r - torch.eye(3, dtype=torch.float64, device=device)).abs().amax()
    back = log_map(r[1:])
    # the gradient of a rotation loss through the exp map, at a normal angle and at the small-angle branch
    w2 = w.clone().requires_grad_()
    target = torch.eye(3, dtype=torch.float64, device=device)
    loss = (exp_map(w2) - target).pow(2).sum()
    loss.backward()
    cross = torch.linalg.cross(w[1:3], w[3:5])
    via_hat = (hat(w[1:3]) @ w[3:5].unsqueeze(-1)).squeeze(-1)
    return {"exp": plain(torch, r[:3]), "close": bool(torch.allclose(r, ref, atol=1e-12)), "orth": orth.item(),
            "log": plain(torch, back), "log_close": bool(torch.allclose(back, w[1:], atol=1e-6)),
            "grad": plain(torch, w2.grad), "cross": bool(torch.allclose(cross, via_hat)),
            "errors": cases(torch, {"cross_dim": lambda: torch.linalg.cross(w[:, :2], w[:, :2]),
                                    "matrix_exp_shape": lambda: torch.linalg.matrix_exp(w)})}


# ---- pinhole cameras: projection with intrinsics, depth unprojection over a meshgrid, look-at extrinsics ------------
def camera_projection(torch, device):
    F = torch.nn.functional
    fx, fy, cx, cy = 50.0, 55.0, 16.0, 12.0
    K = torch.tensor([[fx, 0, cx], [0, fy, cy], [0, 0, 1]], device=device)

    def look_at(eye, target, up):
        fwd = F.normalize(target - eye, dim=-1)
        right = F.normalize(torch.linalg.cross(fwd, up), dim=-1)
        down = torch.linalg.cross(fwd, right)
        rot = torch.stack([right, down, fwd], dim=0)
        t = -rot @ eye
        return torch.cat([torch.cat([rot, t[:, None]], 1), torch.tensor([[0.0, 0, 0, 1]], device=device)], 0)

    eye = torch.tensor([2.0, 1.0, -3.0], device=device)
    world_to_cam = look_at(eye, torch.zeros(3, device=device), torch.tensor([0.0, 1.0, 0.0], device=device))
    pts = _randn(torch, 1920, 20, 3, device=device) * 0.5
    homo = F.pad(pts, (0, 1), value=1.0)
    cam = (homo @ world_to_cam.T)[:, :3]
    pix = cam @ K.T
    uv = pix[:, :2] / pix[:, 2:3]
    visible = (uv[:, 0] >= 0) & (uv[:, 0] < 32) & (uv[:, 1] >= 0) & (uv[:, 1] < 24) & (cam[:, 2] > 0)
    # unproject a depth map back to world space
    H, W = 6, 8
    ys, xs = torch.meshgrid(torch.arange(H, device=device, dtype=torch.float32),
                            torch.arange(W, device=device, dtype=torch.float32), indexing="ij")
    depth = 3.0 + 0.1 * xs - 0.05 * ys
    rays = torch.stack([xs + 0.5, ys + 0.5, torch.ones_like(xs)], -1) @ torch.linalg.inv(K).T
    cam_pts = rays * depth.unsqueeze(-1)
    cam_to_world = torch.linalg.inv(world_to_cam)
    world = (F.pad(cam_pts.reshape(-1, 3), (0, 1), value=1.0) @ cam_to_world.T)[:, :3]
    reproj = (F.pad(world, (0, 1), value=1.0) @ world_to_cam.T)[:, :3] @ K.T
    reproj = reproj[:, :2] / reproj[:, 2:]
    # a differentiable reprojection loss through a learnable translation
    t = torch.zeros(3, device=device, requires_grad=True)
    opt = torch.optim.SGD([t], lr=1e-3)
    for _ in range(3):
        opt.zero_grad()
        moved = cam + t
        proj = moved @ K.T
        loss = F.smooth_l1_loss(proj[:, :2] / proj[:, 2:], uv + 1.0)
        loss.backward()
        opt.step()
    return {"uv": plain(torch, uv[:6]), "visible": visible.tolist(), "world": plain(torch, world[:5]),
            "reproj_err": (reproj - torch.stack([xs + 0.5, ys + 0.5], -1).reshape(-1, 2)).abs().max().item() < 1e-3,
            "extrinsic": plain(torch, world_to_cam), "t": plain(torch, t), "loss": loss.item()}


# ---- NeRF: positional encoding, rays marched with linspace, alpha compositing with an exclusive cumprod -------------
def nerf_volume_rendering(torch, device):
    nn = torch.nn
    F = nn.functional
    n_freq = 4

    def encode(x):
        freqs = 2.0 ** torch.arange(n_freq, device=x.device, dtype=x.dtype) * math.pi
        ang = x[..., None] * freqs
        return torch.cat([x, torch.sin(ang).flatten(-2), torch.cos(ang).flatten(-2)], -1)

    field = _fill(torch, nn.Sequential(nn.Linear(3 + 6 * n_freq, 32), nn.ReLU(), nn.Linear(32, 4)), 1930, 0.3)
    field = field.to(device)
    origins = torch.zeros(6, 3, device=device)
    dirs = F.normalize(_randn(torch, 1931, 6, 3, device=device) + torch.tensor([0.0, 0.0, 2.0], device=device), dim=-1)
    near, far, n_samples = 0.5, 3.0, 16
    t_vals = torch.linspace(near, far, n_samples, device=device).expand(6, n_samples)
    mids = 0.5 * (t_vals[:, 1:] + t_vals[:, :-1])
    jitter = torch.tensor(np.random.default_rng(1932).uniform(0, 1, (6, n_samples)), dtype=torch.float32,
                          device=device)
    upper = torch.cat([mids, t_vals[:, -1:]], -1)
    lower = torch.cat([t_vals[:, :1], mids], -1)
    z = lower + (upper - lower) * jitter

    def render(z):
        pts = origins[:, None, :] + dirs[:, None, :] * z[..., None]
        raw = field(encode(pts))
        rgb, sigma = torch.sigmoid(raw[..., :3]), F.relu(raw[..., 3])
        deltas = torch.cat([z[:, 1:] - z[:, :-1], torch.full_like(z[:, :1], 1e10)], -1)
        deltas = deltas * dirs.norm(dim=-1, keepdim=True)
        alpha = 1.0 - torch.exp(-sigma * deltas)
        trans = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
        weights = alpha * trans
        color = (weights[..., None] * rgb).sum(-2)
        depth = (weights * z).sum(-1)
        acc = weights.sum(-1)
        return color + (1 - acc[:, None]), depth, acc, weights

    target = torch.tensor(np.random.default_rng(1933).uniform(0, 1, (6, 3)), dtype=torch.float32, device=device)
    opt = torch.optim.Adam(field.parameters(), lr=5e-3)
    losses = []
    for _ in range(4):
        opt.zero_grad()
        color, depth, acc, weights = render(z)
        loss = F.mse_loss(color, target)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    psnr = -10.0 * torch.log10(loss.detach())
    return {"enc_shape": list(encode(origins).shape), "losses": losses, "color": plain(torch, color),
            "depth": plain(torch, depth), "acc": plain(torch, acc), "psnr": psnr.item(),
            "weights_sum_le_1": bool((weights.sum(-1) <= 1 + 1e-5).all())}


# ---- NeRF's hierarchical sampling: inverse-CDF sampling by searchsorted from coarse weights, then sorted merge -------
def hierarchical_sampling(torch, device):
    def sample_pdf(bins, weights, n, det):
        weights = weights + 1e-5
        pdf = weights / weights.sum(-1, keepdim=True)
        cdf = torch.cumsum(pdf, -1)
        cdf = torch.cat([torch.zeros_like(cdf[..., :1]), cdf], -1)
        if det:
            u = torch.linspace(0.0, 1.0, n, device=bins.device).expand(*cdf.shape[:-1], n).contiguous()
        else:
            u = torch.tensor(np.random.default_rng(1941).uniform(0, 1, (*cdf.shape[:-1], n)), dtype=cdf.dtype,
                             device=bins.device)
        inds = torch.searchsorted(cdf, u, right=True)
        below = (inds - 1).clamp_min(0)
        above = inds.clamp_max(cdf.shape[-1] - 1)
        g = torch.stack([below, above], -1)
        shape = (*g.shape[:-1], cdf.shape[-1])
        cdf_g = torch.gather(cdf.unsqueeze(-2).expand(shape), -1, g)
        bins_g = torch.gather(bins.unsqueeze(-2).expand(shape), -1, g)
        denom = cdf_g[..., 1] - cdf_g[..., 0]
        denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
        t = (u - cdf_g[..., 0]) / denom
        return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0]), inds

    z = torch.linspace(1.0, 4.0, 9, device=device).expand(4, 9)
    bins = 0.5 * (z[:, 1:] + z[:, :-1])
    weights = torch.tensor(np.random.default_rng(1940).uniform(0, 1, (4, 9)) ** 3, dtype=torch.float32,
                           device=device)
    fine_det, inds = sample_pdf(bins, weights[:, 1:-1], 6, True)
    fine_rand, _ = sample_pdf(bins, weights[:, 1:-1], 6, False)
    merged, order = torch.sort(torch.cat([z, fine_det.detach()], -1), -1)
    left = torch.searchsorted(bins.contiguous(), fine_det.contiguous(), side="left")
    sorter = torch.argsort(weights, -1)
    by_sorter = torch.searchsorted(weights, torch.full((4, 1), 0.3, device=device), sorter=sorter)
    return {"det": plain(torch, fine_det), "rand": plain(torch, fine_rand), "inds": inds.tolist(),
            "merged": plain(torch, merged[:, ::3]), "order": order[0].tolist(), "left": left.tolist(),
            "sorter": by_sorter.tolist(), "monotone": bool((merged.diff(dim=-1) >= 0).all()),
            "errors": cases(torch, {
                "side_right_conflict": lambda: torch.searchsorted(bins, fine_det, right=False, side="right"),
                "batch_mismatch": lambda: torch.searchsorted(bins[:2], fine_det),
                "bad_side": lambda: torch.searchsorted(bins, fine_det, side="middle")})}


# ---- sphere tracing an SDF scene, ray-box slab intersection with infinities, normals by autograd --------------------
def sdf_ray_marching(torch, device):
    F = torch.nn.functional

    def sdf(p):
        sphere = (p - torch.tensor([0.0, 0.0, 3.0], device=p.device)).norm(dim=-1) - 1.0
        q = (p - torch.tensor([1.5, 0.0, 4.0], device=p.device)).abs() - 0.5
        box = q.clamp_min(0).norm(dim=-1) + q.amax(-1).clamp_max(0)
        return torch.minimum(sphere, box)

    H, W = 5, 6
    ys, xs = torch.meshgrid(torch.linspace(-0.4, 0.4, H, device=device), torch.linspace(-0.5, 0.8, W, device=device),
                            indexing="ij")
    dirs = F.normalize(torch.stack([xs, ys, torch.ones_like(xs)], -1).reshape(-1, 3), dim=-1)
    t = torch.zeros(dirs.shape[0], device=device)
    hit = torch.zeros(dirs.shape[0], dtype=torch.bool, device=device)
    for _ in range(40):
        d = sdf(dirs * t[:, None])
        hit = hit | (d < 1e-3)
        t = torch.where(hit, t, t + d)
        t = t.clamp(max=10.0)
    p = (dirs * t[:, None]).detach().requires_grad_()
    (normals,) = torch.autograd.grad(sdf(p).sum(), p)
    shade = (F.normalize(normals, dim=-1) @ F.normalize(torch.tensor([-1.0, 1.0, -1.0], device=device), dim=0))
    shade = torch.where(hit, shade.clamp_min(0), torch.zeros_like(shade))

    def slab(origin, direction, lo, hi):
        inv = 1.0 / direction
        t0 = (lo - origin) * inv
        t1 = (hi - origin) * inv
        tmin = torch.minimum(t0, t1).nan_to_num(nan=-float("inf")).amax(-1)
        tmax = torch.maximum(t0, t1).nan_to_num(nan=float("inf")).amin(-1)
        return tmin, tmax, (tmax >= tmin.clamp_min(0))

    axis_dirs = torch.tensor([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.3, 0.2, 0.9]], device=device)
    tmin, tmax, box_hit = slab(torch.tensor([1.4, 0.1, 0.0], device=device), axis_dirs,
                               torch.tensor([1.0, -0.5, 3.5], device=device),
                               torch.tensor([2.0, 0.5, 4.5], device=device))
    return {"t": plain(torch, t), "hit": hit.tolist(), "shade": plain(torch, shade), "tmin": plain(torch, tmin),
            "tmax": plain(torch, tmax), "box_hit": box_hit.tolist(), "n_hit": int(hit.sum())}


PROGRAMS = [quaternion_algebra, so3_maps, camera_projection, nerf_volume_rendering, hierarchical_sampling,
            sdf_ray_marching]
NEEDS_CPP = {}


# ---- pose estimation: Kabsch alignment by SVD with the reflection fix, a DLT homography by lstsq and by SVD's null
# ---- space, two-view triangulation, 2-D rotations as complex numbers -----------------------------------------------
def pose_estimation(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1950)
    src = torch.tensor(rng.standard_normal((10, 3)), dtype=torch.float64, device=device)
    angle = torch.tensor(0.7, dtype=torch.float64)
    c, s = torch.cos(angle).item(), torch.sin(angle).item()
    R_true = torch.tensor([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=torch.float64, device=device)
    t_true = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, device=device)
    dst = src @ R_true.T + t_true + 0.01 * torch.tensor(rng.standard_normal((10, 3)), dtype=torch.float64,
                                                         device=device)

    def kabsch(a, b):
        ca, cb = a.mean(0), b.mean(0)
        H = (a - ca).T @ (b - cb)
        U, S, Vh = torch.linalg.svd(H)
        d = torch.sign(torch.linalg.det(Vh.T @ U.T))
        D = torch.diag(torch.stack([torch.ones_like(d), torch.ones_like(d), d]))
        R = Vh.T @ D @ U.T
        return R, cb - ca @ R.T

    R, t = kabsch(src, dst)
    R_mirror, _ = kabsch(src, dst * torch.tensor([1.0, 1.0, -1.0], dtype=torch.float64, device=device))
    rmsd = ((src @ R.T + t - dst).pow(2).sum(1).mean()).sqrt()
    # homography from 6 correspondences: lstsq with h33 = 1, and the SVD null vector
    pts = torch.tensor(rng.uniform(-1, 1, (6, 2)), dtype=torch.float64, device=device)
    Ht = torch.tensor([[1.1, 0.2, 0.3], [-0.1, 0.9, -0.2], [0.05, 0.02, 1.0]], dtype=torch.float64, device=device)
    proj = F.pad(pts, (0, 1), value=1.0) @ Ht.T
    dst2 = proj[:, :2] / proj[:, 2:]
    x, y = pts.unbind(1)
    u, v = dst2.unbind(1)
    zero, one = torch.zeros_like(x), torch.ones_like(x)
    rows = torch.cat([torch.stack([x, y, one, zero, zero, zero, -u * x, -u * y], 1),
                      torch.stack([zero, zero, zero, x, y, one, -v * x, -v * y], 1)])
    rhs = torch.cat([u, v]).unsqueeze(1)
    sol = torch.linalg.lstsq(rows, rhs).solution.squeeze(1)
    H_ls = torch.cat([sol, torch.ones(1, dtype=torch.float64, device=device)]).view(3, 3)
    A = torch.cat([torch.cat([rows, -rhs], 1)])
    null = torch.linalg.svd(A).Vh[-1]
    H_svd = (null / null[-1]).view(3, 3)
    # triangulation of a point seen by two cameras
    K = torch.tensor([[100.0, 0, 50], [0, 100.0, 40], [0, 0, 1]], dtype=torch.float64, device=device)
    P1 = K @ torch.cat([torch.eye(3, dtype=torch.float64, device=device), torch.zeros(3, 1, dtype=torch.float64,
                                                                                      device=device)], 1)
    P2 = K @ torch.cat([R_true, t_true[:, None]], 1)
    X = torch.tensor([0.3, -0.2, 4.0, 1.0], dtype=torch.float64, device=device)
    x1, x2 = P1 @ X, P2 @ X
    x1, x2 = x1[:2] / x1[2], x2[:2] / x2[2]
    A_tri = torch.stack([x1[0] * P1[2] - P1[0], x1[1] * P1[2] - P1[1], x2[0] * P2[2] - P2[0], x2[1] * P2[2] - P2[1]])
    Xh = torch.linalg.svd(A_tri).Vh[-1]
    # 2-D rotation by complex multiplication, angles by angle()
    z = torch.view_as_complex(pts.float().contiguous())
    rot = z * torch.polar(torch.ones(1, device=device), torch.tensor([0.5], device=device))
    back = torch.view_as_real(rot)
    tri_solve = torch.linalg.solve_triangular(torch.triu(K), torch.ones(3, 1, dtype=torch.float64, device=device),
                                              upper=True)
    return {"R_err": (R - R_true).abs().max().item() < 0.02, "t": plain(torch, t), "rmsd": rmsd.item(),
            "mirror_det": torch.linalg.det(R_mirror).item(), "H_ls": plain(torch, H_ls), "H_svd": plain(torch, H_svd),
            "X": plain(torch, Xh / Xh[-1]), "rot": plain(torch, back), "angles": plain(torch, rot.angle()),
            "tri": plain(torch, tri_solve),
            "errors": cases(torch, {"lstsq_rows": lambda: torch.linalg.lstsq(rows, rhs[:5]),
                                    "complex_view": lambda: torch.view_as_complex(pts.float()[:, :1]),
                                    "svd_1d": lambda: torch.linalg.svd(x)})}


# ---- warping images by depth and pose: grid_sample with each padding mode and align_corners, 3-D affine grids -----
def grid_warping(torch, device):
    F = torch.nn.functional
    rng = np.random.default_rng(1960)
    img = torch.tensor(rng.uniform(0, 1, (2, 3, 6, 8)), dtype=torch.float32, device=device)
    H, W = 6, 8
    ys, xs = torch.meshgrid(torch.arange(H, device=device), torch.arange(W, device=device), indexing="ij")
    flow = torch.stack([0.7 * torch.ones(H, W, device=device), -0.4 * torch.ones(H, W, device=device)], -1)
    target = torch.stack([xs, ys], -1).float() + flow
    grid = torch.stack([2 * target[..., 0] / (W - 1) - 1, 2 * target[..., 1] / (H - 1) - 1], -1)
    grid = grid.unsqueeze(0).expand(2, -1, -1, -1)
    out = {}
    for mode in ("bilinear", "nearest", "bicubic"):
        for pad in ("zeros", "border", "reflection"):
            for ac in (True, False):
                w = F.grid_sample(img, grid, mode=mode, padding_mode=pad, align_corners=ac)
                out[f"{mode}-{pad}-{ac}"] = [w.sum().item(), w[0, 0, -1].tolist()]
    g = grid.clone().requires_grad_()
    im = img.clone().requires_grad_()
    F.grid_sample(im, g, align_corners=False).pow(2).sum().backward()
    theta = torch.tensor([[[0.9, 0.1, 0.0, 0.1], [-0.1, 1.0, 0.05, 0.0], [0.0, 0.0, 1.1, -0.1]]], device=device)
    vol = torch.tensor(rng.uniform(0, 1, (1, 1, 4, 5, 6)), dtype=torch.float32, device=device)
    grid3 = F.affine_grid(theta, [1, 1, 4, 5, 6], align_corners=False)
    warped3 = F.grid_sample(vol, grid3, align_corners=False, mode="bilinear")
    patches = F.unfold(img, kernel_size=3, padding=1, stride=2)
    folded = F.fold(patches, (H, W), kernel_size=3, padding=1, stride=2)
    return {"modes": out, "grad_grid": plain(torch, g.grad[0, 0]), "grad_img": im.grad.sum().item(),
            "warped3": [list(warped3.shape), warped3.sum().item()], "grid3": plain(torch, grid3[0, 0, 0]),
            "patches": list(patches.shape), "folded": folded.sum().item(),
            "errors": cases(torch, {
                "bad_mode": lambda: F.grid_sample(img, grid, mode="area"),
                "bad_pad": lambda: F.grid_sample(img, grid, padding_mode="wrap"),
                "bicubic_3d": lambda: F.grid_sample(vol, grid3, mode="bicubic").sum(),
                "grid_batch": lambda: F.grid_sample(img, grid[:1]),
                "theta_shape": lambda: F.affine_grid(theta, [1, 1, 4, 5]),
            })}


PROGRAMS += [pose_estimation, grid_warping]
