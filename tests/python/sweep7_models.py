"""Sweep 7 programs, model-building patterns the earlier sweeps left out: a mixture-of-experts layer with top-2
routing and a load-balancing loss, LoRA fine-tuning through a parametrization, sparsemax attention as a custom
autograd Function, fake-quantised (quantisation-aware) training with a learned step size, a SIREN image fit with
gradient and Laplacian supervision, and a learned image-compression model with GDN and a factorised entropy model.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep7.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import io
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


# ---- mixture of experts: top-2 gating, dispatch with index_add_, Switch-style load-balancing loss ----------------
def mixture_of_experts(torch, device):
    nn = torch.nn
    F = nn.functional

    class Expert(nn.Module):
        def __init__(self, dim, hidden):
            super().__init__()
            self.w1 = nn.Linear(dim, hidden)
            self.w2 = nn.Linear(hidden, dim)

        def forward(self, x):
            return self.w2(F.silu(self.w1(x)))

    class MoE(nn.Module):
        def __init__(self, dim, hidden, n_experts, k):
            super().__init__()
            self.gate = nn.Linear(dim, n_experts, bias=False)
            self.experts = nn.ModuleList([Expert(dim, hidden) for _ in range(n_experts)])
            self.k = k
            self.n_experts = n_experts

        def forward(self, x):
            tokens = x.reshape(-1, x.shape[-1])
            logits = self.gate(tokens)
            probs = logits.softmax(dim=-1)
            top_p, top_i = probs.topk(self.k, dim=-1)
            top_p = top_p / top_p.sum(dim=-1, keepdim=True)
            out = torch.zeros_like(tokens)
            for e, expert in enumerate(self.experts):
                token_idx, slot = torch.where(top_i == e)
                if token_idx.numel() == 0:
                    continue
                y = expert(tokens[token_idx]) * top_p[token_idx, slot, None]
                out.index_add_(0, token_idx, y)
            # fraction of tokens routed to each expert (first choice) times mean gate probability
            counts = torch.bincount(top_i[:, 0], minlength=self.n_experts).float()
            load = counts / tokens.shape[0]
            importance = probs.mean(dim=0)
            aux = self.n_experts * (load * importance).sum()
            z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
            return out.view_as(x), aux, z_loss, counts

    model = MoE(8, 16, 4, 2).to(device)
    init_from_numpy(torch, model, 1)
    x = numpy_input(torch, 2, 3, 10, 8, device=device)
    target = numpy_input(torch, 3, 3, 10, 8, device=device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    losses, counts_seen = [], []
    for _ in range(4):
        out, aux, z_loss, counts = model(x)
        loss = F.mse_loss(out, target) + 0.01 * aux + 1e-3 * z_loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
        counts_seen.append(counts.tolist())
    one_hot = F.one_hot(torch.tensor([0, 3, 1], device=device), num_classes=4)
    return {"losses": losses, "counts": counts_seen, "gate_grad": model.gate.weight.grad.abs().sum().item(),
            "one_hot": one_hot.tolist(), "dtype": str(one_hot.dtype)}


# ---- LoRA: a frozen base model, low-rank adapters registered as parametrizations, merge and save the adapters ---
def lora_finetune(torch, device):
    nn = torch.nn
    parametrize = nn.utils.parametrize

    class LoRA(nn.Module):
        def __init__(self, out_features, in_features, rank, alpha):
            super().__init__()
            self.A = nn.Parameter(torch.zeros(rank, in_features))
            self.B = nn.Parameter(torch.zeros(out_features, rank))
            self.scale = alpha / rank
            self.enabled = True

        def forward(self, weight):
            if not self.enabled:
                return weight
            return weight + (self.B @ self.A) * self.scale

    base = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 3)).to(device)
    init_from_numpy(torch, base, 11)
    base.requires_grad_(False)
    for module in base.modules():
        if isinstance(module, nn.Linear) and module.out_features == 12:
            lora = LoRA(module.out_features, module.in_features, rank=2, alpha=4).to(device)
            with torch.no_grad():
                lora.A.copy_(numpy_input(torch, 12, 2, module.in_features, device=device) * 0.1)
            parametrize.register_parametrization(module, "weight", lora)
    trainable = [n for n, p in base.named_parameters() if p.requires_grad]
    x = numpy_input(torch, 13, 32, 6, device=device)
    y = torch.tensor(np.random.default_rng(14).integers(0, 3, 32), device=device)
    opt = torch.optim.Adam([p for p in base.parameters() if p.requires_grad], lr=1e-2)
    losses = []
    for _ in range(5):
        loss = nn.functional.cross_entropy(base(x), y, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    adapters = {k: v for k, v in base.state_dict().items() if "parametrizations" in k and "original" not in k}
    buffer = io.BytesIO()
    torch.save(adapters, buffer)
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=True)
    with torch.no_grad():
        before = base(x)
    for module in base.modules():
        if parametrize.is_parametrized(module):
            parametrize.remove_parametrizations(module, "weight", leave_parametrized=True)
    with torch.no_grad():
        after = base(x)
    return {"trainable": trainable, "losses": losses, "saved": sorted(loaded),
            "merged_same": bool(torch.allclose(before, after, atol=1e-6)),
            "keys_after": sorted(base.state_dict()), "merged_sum": after.sum().item(),
            "frozen": [p.requires_grad for p in base.parameters()]}


# ---- sparsemax (Martins & Astudillo 2016) as a custom Function, used for attention, checked with gradcheck ------
def sparsemax_attention(torch, device):
    nn = torch.nn

    class Sparsemax(torch.autograd.Function):
        @staticmethod
        def forward(ctx, z, dim):
            z_sorted, _ = torch.sort(z, dim=dim, descending=True)
            k = torch.arange(1, z.shape[dim] + 1, device=z.device, dtype=z.dtype)
            view = [1] * z.dim()
            view[dim] = -1
            k = k.view(view)
            cumsum = z_sorted.cumsum(dim) - 1
            support = (k * z_sorted) > cumsum
            k_z = support.sum(dim=dim, keepdim=True)
            tau = cumsum.gather(dim, k_z - 1) / k_z.to(z.dtype)
            out = torch.clamp(z - tau, min=0)
            ctx.save_for_backward(out)
            ctx.dim = dim
            return out

        @staticmethod
        def backward(ctx, grad_out):
            out, = ctx.saved_tensors
            dim = ctx.dim
            nonzero = (out > 0).to(grad_out.dtype)
            v_hat = (grad_out * nonzero).sum(dim, keepdim=True) / nonzero.sum(dim, keepdim=True)
            return nonzero * (grad_out - v_hat), None

    z = torch.tensor([[1.0, 0.8, -1.0, 0.1], [3.0, 0.0, 0.0, 0.0], [0.2, 0.2, 0.2, 0.2]],
                     dtype=torch.float64, device=device)
    p = Sparsemax.apply(z, -1)
    z64 = (z + 0.013 * torch.arange(12, dtype=torch.float64, device=device).view(3, 4)).requires_grad_()
    ok = torch.autograd.gradcheck(lambda t: Sparsemax.apply(t, 1), (z64,), eps=1e-6, atol=1e-5)

    class SparseAttention(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.q = nn.Linear(dim, dim)
            self.k = nn.Linear(dim, dim)
            self.v = nn.Linear(dim, dim)

        def forward(self, x):
            scores = self.q(x) @ self.k(x).transpose(-2, -1) / math.sqrt(x.shape[-1])
            weights = Sparsemax.apply(scores, -1)
            return weights @ self.v(x), weights

    model = SparseAttention(8).to(device)
    init_from_numpy(torch, model, 21)
    x = numpy_input(torch, 22, 2, 5, 8, device=device) * 2
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    losses = []
    for _ in range(4):
        out, weights = model(x)
        loss = (out - x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"p": p.tolist(), "row_sums": p.sum(-1).tolist(), "gradcheck": ok, "losses": losses,
            "sparsity": (weights == 0).float().mean().item()}


# ---- quantisation-aware training: fake_quantize ops and an LSQ learned step size with a straight-through round --
def fake_quant_training(torch, device):
    nn = torch.nn
    F = nn.functional

    def round_ste(x):
        return (x.round() - x).detach() + x

    def grad_scale(x, scale):
        return (x - x * scale).detach() + x * scale

    class LSQLinear(nn.Linear):
        def __init__(self, *args, bits=4, **kwargs):
            super().__init__(*args, **kwargs)
            self.qmax = 2 ** (bits - 1) - 1
            self.step = nn.Parameter(torch.tensor(0.1))

        def forward(self, x):
            g = 1.0 / math.sqrt(self.weight.numel() * self.qmax)
            s = grad_scale(self.step, g)
            w_q = round_ste(torch.clamp(self.weight / s, -self.qmax - 1, self.qmax)) * s
            return F.linear(x, w_q, self.bias)

    # float64: a rounding step amplifies a last-bit difference into a whole grid step, float32 flips a few
    model = nn.Sequential(LSQLinear(6, 16), nn.ReLU6(), LSQLinear(16, 2)).to(device, torch.float64)
    init_from_numpy(torch, model, 31)
    with torch.no_grad():
        for m in model:
            if isinstance(m, LSQLinear):
                m.step.fill_(0.05)
    x = numpy_input(torch, 32, 40, 6, device=device).double()
    y = (x[:, :2].sum(1) > 0).long()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(5):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    # the built-in fake-quantisation ops, per tensor and per channel, and their straight-through gradients
    w = numpy_input(torch, 33, 4, 5, device=device).requires_grad_()
    per_tensor = torch.fake_quantize_per_tensor_affine(w, 0.1, 0, -8, 7)
    per_tensor.sum().backward()
    grad_tensor = w.grad.clone()
    w.grad = None
    scales = torch.tensor([0.05, 0.1, 0.2, 0.4], device=device)
    zero_points = torch.tensor([0, 1, -1, 0], dtype=torch.int32, device=device)
    per_channel = torch.fake_quantize_per_channel_affine(w, scales, zero_points, 0, -128, 127)
    (per_channel * 2).sum().backward()
    return {"losses": losses, "steps": [m.step.item() for m in model if isinstance(m, LSQLinear)],
            "per_tensor": per_tensor.tolist(), "grad_tensor": grad_tensor.tolist(),
            "per_channel": per_channel.tolist(), "grad_channel": w.grad.tolist()}


# ---- SIREN: sine layers with their special initialisation, fitted to an image, its gradient and its Laplacian ----
def siren_fit(torch, device):
    nn = torch.nn

    class SineLayer(nn.Module):
        def __init__(self, in_f, out_f, first=False, omega=30.0):
            super().__init__()
            self.omega = omega
            self.linear = nn.Linear(in_f, out_f)
            bound = 1 / in_f if first else math.sqrt(6 / in_f) / omega
            with torch.no_grad():
                self.linear.weight.uniform_(-bound, bound)

        def forward(self, x):
            return torch.sin(self.omega * self.linear(x))

    net = nn.Sequential(SineLayer(2, 24, first=True), SineLayer(24, 24), nn.Linear(24, 1)).to(device)
    init_from_numpy(torch, net, 41)
    with torch.no_grad():
        net[0].linear.weight.mul_(0.5)
    side = torch.linspace(-1, 1, 12, device=device)
    gy, gx = torch.meshgrid(side, side, indexing="ij")
    coords = torch.stack([gx, gy], dim=-1).reshape(-1, 2)
    image = (torch.sin(3 * gx) * torch.cos(2 * gy)).reshape(-1, 1)

    def gradient(y, x):
        return torch.autograd.grad(y, [x], grad_outputs=torch.ones_like(y), create_graph=True)[0]

    def laplacian(y, x):
        g = gradient(y, x)
        return sum(gradient(g[..., i], x)[..., i:i + 1] for i in range(x.shape[-1]))

    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    losses = []
    for _ in range(3):
        c = coords.clone().requires_grad_(True)
        out = net(c)
        grad = gradient(out, c)
        loss = ((out - image) ** 2).mean() + 0.01 * grad.norm(dim=-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    c = coords[:5].clone().requires_grad_(True)
    lap = laplacian(net(c), c)
    return {"losses": losses, "laplacian": lap.squeeze(-1).tolist(), "mesh": [gx[0, :3].tolist(), gy[:3, 0].tolist()]}


# ---- learned image compression: GDN with a lower-bounded reparametrisation, noisy quantisation, entropy model ---
def image_compression(torch, device):
    nn = torch.nn
    F = nn.functional

    class LowerBound(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, bound):
            ctx.save_for_backward(x, bound)
            return torch.max(x, bound)

        @staticmethod
        def backward(ctx, grad_output):
            x, bound = ctx.saved_tensors
            pass_through = (x >= bound) | (grad_output < 0)
            return pass_through.type(grad_output.dtype) * grad_output, None

    class GDN(nn.Module):
        def __init__(self, channels, inverse=False, beta_min=1e-6, gamma_init=0.1, pedestal=2 ** -18):
            super().__init__()
            self.inverse = inverse
            self.pedestal = pedestal
            self.register_buffer("beta_bound", torch.tensor((beta_min + pedestal) ** 0.5))
            self.register_buffer("gamma_bound", torch.tensor(pedestal ** 0.5))
            self.beta = nn.Parameter(torch.sqrt(torch.ones(channels) + pedestal))
            self.gamma = nn.Parameter(torch.sqrt(gamma_init * torch.eye(channels) + pedestal))

        def forward(self, x):
            c = x.size(1)
            beta = LowerBound.apply(self.beta, self.beta_bound) ** 2 - self.pedestal
            gamma = LowerBound.apply(self.gamma, self.gamma_bound) ** 2 - self.pedestal
            norm = F.conv2d(x ** 2, gamma.view(c, c, 1, 1), beta)
            norm = torch.sqrt(norm)
            return x * norm if self.inverse else x / norm

    class Codec(nn.Module):
        def __init__(self, n=6):
            super().__init__()
            self.enc = nn.Sequential(nn.Conv2d(1, n, 5, stride=2, padding=2), GDN(n),
                                     nn.Conv2d(n, n, 5, stride=2, padding=2))
            self.dec = nn.Sequential(nn.ConvTranspose2d(n, n, 5, stride=2, padding=2, output_padding=1),
                                     GDN(n, inverse=True),
                                     nn.ConvTranspose2d(n, 1, 5, stride=2, padding=2, output_padding=1))
            self.loc = nn.Parameter(torch.zeros(1, n, 1, 1))
            self.log_scale = nn.Parameter(torch.zeros(1, n, 1, 1))

        def likelihood(self, y):
            scale = self.log_scale.exp()
            upper = torch.sigmoid((y + 0.5 - self.loc) / scale)
            lower = torch.sigmoid((y - 0.5 - self.loc) / scale)
            return torch.clamp_min(upper - lower, 1e-9)

        def forward(self, x, noise):
            y = self.enc(x)
            y_tilde = y + noise if self.training else torch.round(y)
            bits = -torch.log2(self.likelihood(y_tilde)).sum()
            return self.dec(y_tilde), bits

    model = Codec().to(device)
    init_from_numpy(torch, model, 51)
    x = torch.sigmoid(numpy_input(torch, 52, 2, 1, 16, 16, device=device))
    noise = torch.tensor(np.random.default_rng(53).uniform(-0.5, 0.5, (2, 6, 4, 4)), dtype=torch.float32,
                         device=device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    history = []
    for _ in range(4):
        x_hat, bits = model(x, noise)
        bpp = bits / (x.shape[0] * x.shape[2] * x.shape[3])
        mse = F.mse_loss(x_hat, x)
        loss = bpp + 100 * mse
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
        opt.step()
        history.append([loss.item(), bpp.item()])
    model.eval()
    with torch.no_grad():
        x_hat, bits = model(x, noise)
        psnr = 10 * torch.log10(1 / F.mse_loss(x_hat.clamp(0, 1), x))
    return {"history": history, "eval_bits": bits.item(), "psnr": psnr.item(),
            "buffers": sorted(n for n, _ in model.named_buffers())}


PROGRAMS = [mixture_of_experts, lora_finetune, sparsemax_attention, fake_quant_training, siren_fit,
            image_compression]
