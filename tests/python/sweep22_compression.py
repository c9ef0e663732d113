"""Sweep 22 programs, model compression by hand as quantisation and fine-tuning repositories write it: int8 weights
per output channel with uint8 activations and an int32 integer matmul; quantisation-aware training with
straight-through estimators checked against torch.fake_quantize_per_tensor_affine/per_channel_affine; LoRA adapters
injected by module replacement, trained with the base frozen, merged and unmerged, and saved as a LoRA-only
state_dict; GPTQ's column-by-column rounding with error feedback through the Cholesky factor of the inverse
Hessian; Deep Compression's k-means weight sharing with shared-centroid gradients; XNOR/ternary networks with a
custom sign Function; NF4 block-wise quantisation with double-quantised absmax and two 4-bit codes packed per byte.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep22.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- int8 per-channel weights, uint8 activations, int32 matmul ----------------------------------------------------------
def int8_integer_matmul(torch, device):
    w = _randn(torch, 2500, 6, 8, device=device) * 0.2
    x = _randn(torch, 2501, 4, 8, device=device).relu() * 3
    w_scale = w.abs().amax(dim=1, keepdim=True) / 127
    wq = torch.clamp(torch.round(w / w_scale), -128, 127).to(torch.int8)
    x_min, x_max = x.min(), x.max()
    x_scale = (x_max - x_min) / 255
    x_zp = torch.clamp(torch.round(-x_min / x_scale), 0, 255).to(torch.int32)
    xq = torch.clamp(torch.round(x / x_scale) + x_zp, 0, 255).to(torch.uint8)
    acc = (xq.to(torch.int32) - x_zp) @ wq.to(torch.int32).t()
    y = acc.float() * x_scale * w_scale.t()
    ref = x @ w.t()
    err = (y - ref).abs().max().item()
    return {"wq": wq[:2].tolist(), "xq_dtype": str(xq.dtype), "acc_dtype": str(acc.dtype), "acc": acc[:2].tolist(),
            "zp": x_zp.item(), "err_small": err < 0.05, "y": _r(y, 3),
            "sat": int((wq.abs() == 127).sum()), "iinfo": [torch.iinfo(torch.int8).min, torch.iinfo(torch.uint8).max]}


# ---- fake quantisation with straight-through estimators -----------------------------------------------------------------
def fake_quant_ste(torch, device):
    x = (_randn(torch, 2510, 3, 5, device=device) * 2).requires_grad_()
    scale, zp, qmin, qmax = 0.1, 3, -128, 127

    def fq_manual(t, scale, zp):
        q = torch.clamp(torch.round(t / scale) + zp, qmin, qmax)
        return (q - zp) * scale

    def ste(t, scale, zp):
        return t + (fq_manual(t, scale, zp) - t).detach()

    a = torch.fake_quantize_per_tensor_affine(x, scale, zp, qmin, qmax)
    b = fq_manual(x.detach(), scale, zp)
    ga, = torch.autograd.grad(a.sum(), x)
    gs, = torch.autograd.grad(ste(x, scale, zp).sum(), x)
    # per-channel along dim 0 with float scales and int zero points
    scales = torch.tensor([0.05, 0.1, 0.2], device=device)
    zps = torch.tensor([0, 2, -1], dtype=torch.int32, device=device)
    pc = torch.fake_quantize_per_channel_affine(x, scales, zps, 0, -8, 7)
    gpc, = torch.autograd.grad((pc * pc).sum(), x)
    manual_pc = (torch.clamp(torch.round(x / scales[:, None]) + zps[:, None], -8, 7) - zps[:, None]) * scales[:, None]

    # a QAT layer: weights fake-quantised with a learned scale-free STE, trained a few steps
    lin = _fill(torch, torch.nn.Linear(5, 2), 2511).to(device)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    losses = []
    for _ in range(3):
        s = lin.weight.detach().abs().max() / 7
        wq = ste(lin.weight, s, 0)
        out = torch.nn.functional.linear(x.detach(), wq, lin.bias)
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 5))
    return {"same": torch.allclose(a, b), "a": _r(a, 5), "grad_tensor": ga.tolist(), "grad_ste": gs.tolist(),
            "pc": _r(pc, 5), "pc_manual": torch.allclose(pc, manual_pc), "gpc": _r(gpc, 5), "losses": losses}


# ---- LoRA adapters: injection, freezing, merging ------------------------------------------------------------------------
def lora_inject_merge(torch, device):
    nn = torch.nn

    class LoRALinear(nn.Module):
        def __init__(self, base, r=2, alpha=4):
            super().__init__()
            self.base = base
            self.lora_A = nn.Parameter(torch.zeros(r, base.in_features))
            self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
            self.scaling = alpha / r
            self.merged = False

        def forward(self, x):
            out = self.base(x)
            if not self.merged:
                out = out + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling
            return out

        def merge(self):
            self.base.weight.data += (self.lora_B @ self.lora_A) * self.scaling
            self.merged = True

        def unmerge(self):
            self.base.weight.data -= (self.lora_B @ self.lora_A) * self.scaling
            self.merged = False

    model = _fill(torch, nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 3)),
                  2520)
    targets = [name for name, m in model.named_modules() if isinstance(m, nn.Linear) and name != "4"]
    for name in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name)
        setattr(parent, child, LoRALinear(getattr(parent, child)))
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n
    rng = np.random.default_rng(2521)
    with torch.no_grad():
        for n, p in model.named_parameters():
            if n.endswith("lora_A"):
                p.copy_(torch.tensor(rng.uniform(-0.3, 0.3, tuple(p.shape)), dtype=torch.float32))
    model.to(device)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    x = _randn(torch, 2522, 10, 6, device=device)
    y = torch.arange(10, device=device) % 3
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=0.05)
    base_before = model[0].base.weight.detach().clone()
    for _ in range(4):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    frozen = torch.equal(base_before, model[0].base.weight) and model[0].base.weight.grad is None
    with torch.no_grad():
        out = model(x)
        for m in model.modules():
            if isinstance(m, LoRALinear):
                m.merge()
        merged = model(x)
        model[0].unmerge()
        partly = model(x)
    lora_sd = {k: v for k, v in model.state_dict().items() if "lora_" in k}
    return {"targets": targets, "trainable": trainable, "total": total, "loss": round(loss.item(), 5),
            "base_frozen": frozen,
            "merge_same": torch.allclose(out, merged, atol=1e-5), "partly_same": torch.allclose(out, partly, atol=1e-5),
            "lora_keys": sorted(lora_sd), "out": _r(out[:3], 4),
            "repr": repr(model[2]).replace("\n", "|")}


# ---- GPTQ: rounding with error feedback ---------------------------------------------------------------------------------
def gptq_error_feedback(torch, device):
    W = _randn(torch, 2530, 4, 8, device=device, dtype=torch.float64) * 0.5
    X = _randn(torch, 2531, 8, 32, device=device, dtype=torch.float64)
    H = 2 * X @ X.t() / X.shape[1]
    damp = 0.01 * torch.mean(torch.diag(H))
    H += damp * torch.eye(H.shape[0], dtype=H.dtype, device=device)
    L = torch.linalg.cholesky(H)
    Hinv = torch.cholesky_inverse(L)
    Hinv = torch.linalg.cholesky(Hinv, upper=True)
    scale = W.abs().amax(dim=1, keepdim=True) / 7

    def quant(w):
        return torch.clamp(torch.round(w / scale[:, 0]), -8, 7) * scale[:, 0]

    Q, W1 = torch.zeros_like(W), W.clone()
    losses = torch.zeros(W.shape[0], dtype=W.dtype, device=device)
    for i in range(W.shape[1]):
        w = W1[:, i]
        d = Hinv[i, i]
        q = quant(w)
        Q[:, i] = q
        losses += (w - q) ** 2 / d ** 2 / 2
        err = (w - q) / d
        W1[:, i:] -= err.unsqueeze(1).matmul(Hinv[i, i:].unsqueeze(0))
    rtn = torch.clamp(torch.round(W / scale), -8, 7) * scale
    out_err = lambda Wq: ((W - Wq) @ X).pow(2).sum().item()  # noqa: E731
    return {"losses": _r(losses, 6), "gptq_err": round(out_err(Q), 6), "rtn_err": round(out_err(rtn), 6),
            "better": out_err(Q) < out_err(rtn), "levels": sorted(set(torch.round(Q / scale).flatten().tolist())),
            "hinv_diag": _r(torch.diag(Hinv), 8)}


# ---- Deep Compression: k-means weight sharing ---------------------------------------------------------------------------
def kmeans_weight_sharing(torch, device):
    lin = _fill(torch, torch.nn.Linear(10, 6), 2540).to(device)
    w = lin.weight.detach().flatten()
    k = 4
    centroids = torch.linspace(w.min().item(), w.max().item(), k, device=device)
    for _ in range(10):
        assign = torch.argmin((w[:, None] - centroids[None, :]).abs(), dim=1)
        sums = torch.zeros(k, device=device).scatter_add_(0, assign, w)
        counts = torch.bincount(assign, minlength=k).float()
        centroids = torch.where(counts > 0, sums / counts.clamp(min=1), centroids)
    lin.weight.data = centroids[assign].view_as(lin.weight)
    # fine-tune the shared values: a centroid's gradient is the sum of its weights' gradients
    x = _randn(torch, 2541, 16, 10, device=device)
    y = _randn(torch, 2542, 16, 6, device=device)
    lr = 0.05
    losses = []
    for _ in range(3):
        loss = torch.nn.functional.mse_loss(lin(x), y)
        lin.zero_grad()
        loss.backward()
        g = torch.zeros(k, device=device).index_add_(0, assign, lin.weight.grad.flatten())
        centroids = centroids - lr * g
        lin.weight.data = centroids[assign].view_as(lin.weight)
        losses.append(round(loss.item(), 5))
    bits = int(np.ceil(np.log2(k)))
    return {"centroids": _r(centroids, 5), "counts": counts.long().tolist(), "losses": losses,
            "unique": lin.weight.unique().numel(), "ratio": round(32 * w.numel() / (bits * w.numel() + 32 * k), 4)}


# ---- XNOR / ternary networks with a custom sign Function ----------------------------------------------------------------
def binary_ternary_networks(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class BinarySign(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sign()

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * (x.abs() <= 1).to(grad.dtype)

    class XNORLinear(nn.Linear):
        def forward(self, x):
            alpha = self.weight.abs().mean(dim=1, keepdim=True)
            wb = BinarySign.apply(self.weight) * alpha
            return F.linear(BinarySign.apply(x), wb, self.bias)

    def ternarize(w):
        delta = 0.7 * w.abs().mean()
        mask = (w.abs() > delta).float()
        alpha = (w.abs() * mask).sum() / mask.sum()
        return alpha * torch.sign(w) * mask, delta

    model = _fill(torch, nn.Sequential(nn.Linear(8, 12), nn.BatchNorm1d(12), XNORLinear(12, 4)), 2550).to(device)
    x = _randn(torch, 2551, 16, 8, device=device)
    y = torch.arange(16, device=device) % 4
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    losses = []
    for _ in range(4):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        for p in model[2].parameters():
            p.data.clamp_(-1, 1)
        losses.append(round(loss.item(), 5))
    tw, delta = ternarize(model[0].weight.detach())
    return {"losses": losses, "ternary_levels": len(tw.unique()), "delta": round(delta.item(), 6),
            "zeros": int((tw == 0).sum()), "grad_mask": _r(model[2].weight.grad[0], 5),
            "sign_of_zero": torch.tensor([0.0, -0.0, 2.0]).sign().tolist()}


# ---- NF4 block-wise quantisation with packing ---------------------------------------------------------------------------
def nf4_blockwise_packing(torch, device):
    NF4 = [-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
           -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
           0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0]
    code = torch.tensor(NF4, device=device)
    w = _randn(torch, 2560, 8, 16, device=device)
    blocks = w.reshape(-1, 32)
    absmax = blocks.abs().max(dim=1).values
    normed = blocks / absmax[:, None]
    mids = (code[1:] + code[:-1]) / 2
    idx = torch.bucketize(normed, mids)
    idx_argmin = (normed[..., None] - code).abs().argmin(-1)
    # double quantisation of the absmax constants to 8 bits around their mean
    offset = absmax.mean()
    c = absmax - offset
    c_scale = c.abs().max() / 127
    cq = torch.round(c / c_scale).to(torch.int8)
    absmax_dq = cq.float() * c_scale + offset
    # pack two 4-bit indices per byte and unpack
    flat = idx.flatten().to(torch.uint8)
    packed = (flat[0::2] << 4) | flat[1::2]
    unpacked = torch.stack([packed >> 4, packed & 0x0F], dim=1).flatten()
    deq = (code[unpacked.long()].view_as(blocks) * absmax_dq[:, None]).view_as(w)
    return {"same_idx": torch.equal(idx, idx_argmin), "packed": packed[:8].tolist(), "packed_dtype": str(packed.dtype),
            "roundtrip": torch.equal(unpacked, flat), "cq": cq.tolist(), "err": round((deq - w).abs().mean().item(), 5),
            "hist": torch.bincount(flat.long(), minlength=16).tolist()}


PROGRAMS = [int8_integer_matmul, fake_quant_ste, lora_inject_merge, gptq_error_feedback, kmeans_weight_sharing,
            binary_ternary_networks, nf4_blockwise_packing]
NEEDS_CPP = {}
