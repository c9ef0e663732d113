"""Sweep 19 programs, generative models beyond sweepgen's: a VQ-VAE with an EMA codebook (straight-through
estimator, Laplace-smoothed cluster sizes, code perplexity, dead-code restarts), a PixelCNN with type-A/B masked
convolutions and gated activations (greedy autoregressive decoding), a Glow step (ActNorm with data-dependent
initialisation, an LU-decomposed invertible 1x1 convolution checked against slogdet, an affine coupling, squeeze),
MADE/MAF (degree masks, sequential inversion), StyleGAN's R1 penalty with lazy regularisation, rectified-flow
training with Euler sampling, and a beta-VAE/IWAE with torch.distributions and free bits.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep19.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- VQ-VAE with an EMA codebook ---------------------------------------------------------------------------------------
def vqvae_ema(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class EMAQuantizer(nn.Module):
        def __init__(self, codes, dim, decay=0.9, eps=1e-5):
            super().__init__()
            self.decay, self.eps = decay, eps
            embed = torch.tensor(np.random.default_rng(1930).standard_normal((codes, dim)), dtype=torch.float32)
            self.register_buffer("embed", embed)
            self.register_buffer("cluster_size", torch.zeros(codes))
            self.register_buffer("embed_avg", embed.clone())

        def forward(self, z):  # z: (B, C, H, W)
            flat = z.permute(0, 2, 3, 1).reshape(-1, z.shape[1])
            dist = (flat.pow(2).sum(1, keepdim=True) - 2 * flat @ self.embed.t()
                    + self.embed.pow(2).sum(1)[None, :])
            codes = dist.argmin(1)
            onehot = F.one_hot(codes, self.embed.shape[0]).type(flat.dtype)
            quant = F.embedding(codes, self.embed).view(z.shape[0], z.shape[2], z.shape[3], -1).permute(0, 3, 1, 2)
            if self.training:
                with torch.no_grad():
                    self.cluster_size.mul_(self.decay).add_(onehot.sum(0), alpha=1 - self.decay)
                    embed_sum = onehot.t() @ flat.detach()
                    self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
                    n = self.cluster_size.sum()
                    smoothed = (self.cluster_size + self.eps) / (n + self.embed.shape[0] * self.eps) * n
                    self.embed.copy_(self.embed_avg / smoothed.unsqueeze(1))
            commit = F.mse_loss(z, quant.detach())
            quant = z + (quant - z).detach()  # straight-through
            probs = onehot.mean(0)
            perplexity = torch.exp(-torch.sum(probs * torch.log(probs + 1e-10)))
            return quant, commit, codes, perplexity

    enc = _fill(torch, nn.Conv2d(3, 4, 3, padding=1), 1931).to(device)
    dec = _fill(torch, nn.Conv2d(4, 3, 3, padding=1), 1932).to(device)
    vq = EMAQuantizer(8, 4).to(device)
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    x = _randn(torch, 1933, 4, 3, 6, 6, device=device)
    log = []
    for _ in range(6):
        z = enc(x)
        q, commit, codes, perp = vq(z)
        recon = dec(q)
        loss = F.mse_loss(recon, x) + 0.25 * commit
        opt.zero_grad()
        loss.backward()
        opt.step()
        log.append([_r(loss, 4), _r(perp, 3), int(codes.unique().numel())])
    # dead-code restart: codes unused get re-seeded from encoder outputs
    usage = torch.bincount(codes, minlength=8)
    dead = (usage == 0).nonzero().flatten()
    with torch.no_grad():
        flat = enc(x).permute(0, 2, 3, 1).reshape(-1, 4)
        vq.embed[dead] = flat[: dead.numel()]
    vq.eval()
    _, _, codes_eval, _ = vq(enc(x))
    return {"log": log, "usage": usage.tolist(), "dead": dead.tolist(),
            "enc_grad_flows": enc.weight.grad is not None and bool(enc.weight.grad.abs().sum() > 0),
            "codes_eval": codes_eval[:12].tolist(), "embed": _r(vq.embed[:2], 3),
            "buffers": sorted(name for name, _ in vq.named_buffers())}


# ---- PixelCNN: masked convolutions (types A and B), gated activations, greedy decoding -------------------------------
def pixelcnn(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class MaskedConv2d(nn.Conv2d):
        def __init__(self, mask_type, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.register_buffer("mask", torch.ones_like(self.weight))
            _, _, h, w = self.weight.shape
            self.mask[:, :, h // 2, w // 2 + (mask_type == "B"):] = 0
            self.mask[:, :, h // 2 + 1:] = 0

        def forward(self, x):
            self.weight.data *= self.mask
            return super().forward(x)

    class GatedBlock(nn.Module):
        def __init__(self, ch):
            super().__init__()
            self.conv = MaskedConv2d("B", ch, 2 * ch, 3, padding=1)

        def forward(self, x):
            a, b = self.conv(x).chunk(2, dim=1)
            return x + torch.tanh(a) * torch.sigmoid(b)

    levels = 4
    net = nn.Sequential(MaskedConv2d("A", 1, 8, 5, padding=2), GatedBlock(8), GatedBlock(8),
                        nn.ReLU(), nn.Conv2d(8, levels, 1))
    _fill(torch, net, 1940, 0.3)
    net = net.to(device)
    rng = np.random.default_rng(1941)
    img = torch.tensor(rng.integers(0, levels, (4, 1, 5, 5)), device=device)
    opt = torch.optim.RMSprop(net.parameters(), lr=5e-3)
    losses = []
    for _ in range(5):
        logits = net(img.float() / (levels - 1))
        loss = F.cross_entropy(logits, img.squeeze(1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(_r(loss / math.log(2), 4))  # bits per pixel
    # the receptive field never sees the current or later pixels: gradient of an output at (2,2)
    probe = torch.zeros(1, 1, 5, 5, device=device, requires_grad=True)
    net(probe)[0, :, 2, 2].sum().backward()
    seen = (probe.grad[0, 0].abs() > 0).int()
    # greedy decoding, one pixel at a time
    sample = torch.zeros(2, 1, 5, 5, device=device)
    with torch.no_grad():
        for i in range(5):
            for j in range(5):
                out = net(sample / (levels - 1))
                sample[:, 0, i, j] = out[:, :, i, j].argmax(1).float()
    masks = [m.mask[0, 0].int().tolist() for m in net.modules() if isinstance(m, MaskedConv2d)][:2]
    return {"losses": losses, "seen": seen.tolist(), "sample": sample.long().view(2, -1).tolist(), "masks": masks}


# ---- Glow step: ActNorm (data-dependent init), LU 1x1 conv, affine coupling, squeeze ----------------------------------
def glow_step(torch, device):
    nn = torch.nn

    class ActNorm(nn.Module):
        def __init__(self, ch):
            super().__init__()
            self.loc = nn.Parameter(torch.zeros(1, ch, 1, 1))
            self.log_scale = nn.Parameter(torch.zeros(1, ch, 1, 1))
            self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

        def forward(self, x):
            if self.initialized.item() == 0:
                with torch.no_grad():
                    mean = x.mean(dim=(0, 2, 3), keepdim=True)
                    std = x.std(dim=(0, 2, 3), keepdim=True)
                    self.loc.data.copy_(-mean)
                    self.log_scale.data.copy_(torch.log(1 / (std + 1e-6)))
                    self.initialized.fill_(1)
            y = (x + self.loc) * torch.exp(self.log_scale)
            return y, x.shape[2] * x.shape[3] * self.log_scale.sum()

        def inverse(self, y):
            return y * torch.exp(-self.log_scale) - self.loc

    class InvConvLU(nn.Module):
        def __init__(self, ch, seed):
            super().__init__()
            w = np.linalg.qr(np.random.default_rng(seed).standard_normal((ch, ch)))[0].astype(np.float32)
            P, L, U = torch.linalg.lu(torch.from_numpy(w))
            s = torch.diagonal(U)
            self.register_buffer("P", P)
            self.register_buffer("sign_s", torch.sign(s))
            self.register_buffer("l_mask", torch.tril(torch.ones(ch, ch), -1))
            self.register_buffer("eye", torch.eye(ch))
            self.L = nn.Parameter(L)
            self.log_s = nn.Parameter(torch.log(torch.abs(s)))
            self.U = nn.Parameter(torch.triu(U, 1))

        def weight(self):
            L = self.L * self.l_mask + self.eye
            U = self.U * self.l_mask.t() + torch.diag(self.sign_s * torch.exp(self.log_s))
            return self.P @ L @ U

        def forward(self, x):
            w = self.weight()
            return torch.nn.functional.conv2d(x, w.view(*w.shape, 1, 1)), x.shape[2] * x.shape[3] * self.log_s.sum()

        def inverse(self, y):
            w = torch.linalg.inv(self.weight())
            return torch.nn.functional.conv2d(y, w.view(*w.shape, 1, 1))

    class Coupling(nn.Module):
        def __init__(self, ch):
            super().__init__()
            self.net = nn.Sequential(nn.Conv2d(ch // 2, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, ch, 3, padding=1))

        def forward(self, x):
            xa, xb = x.chunk(2, 1)
            log_s, t = self.net(xa).chunk(2, 1)
            s = torch.sigmoid(log_s + 2)
            return torch.cat([xa, (xb + t) * s], 1), torch.log(s).flatten(1).sum(1)

        def inverse(self, y):
            ya, yb = y.chunk(2, 1)
            log_s, t = self.net(ya).chunk(2, 1)
            return torch.cat([ya, yb / torch.sigmoid(log_s + 2) - t], 1)

    def squeeze(x):
        b, c, h, w = x.shape
        x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4)
        return x.reshape(b, c * 4, h // 2, w // 2)

    def unsqueeze(x):
        b, c, h, w = x.shape
        x = x.view(b, c // 4, 2, 2, h, w).permute(0, 1, 4, 2, 5, 3)
        return x.reshape(b, c // 4, h * 2, w * 2)

    act, conv, coup = ActNorm(4), InvConvLU(4, 1950), Coupling(4)
    _fill(torch, coup, 1951, 0.2)
    mods = nn.ModuleList([act, conv, coup]).to(device)
    x = _randn(torch, 1952, 6, 1, 4, 4, device=device) * 0.5 + 0.3
    opt = torch.optim.Adam(mods.parameters(), lr=1e-2)
    nll = []
    for _ in range(4):
        h = squeeze(x)
        logdet = torch.zeros(x.shape[0], device=device)
        for m in mods:
            h, ld = m(h)
            logdet = logdet + ld
        prior = -0.5 * (h ** 2 + math.log(2 * math.pi)).flatten(1).sum(1)
        loss = -(prior + logdet).mean() / (x[0].numel() * math.log(2))
        opt.zero_grad()
        loss.backward()
        opt.step()
        nll.append(_r(loss, 4))
    w = conv.weight().detach()
    sign, logabs = torch.linalg.slogdet(w)
    with torch.no_grad():
        h = squeeze(x)
        for m in mods:
            h, _ = m(h)
        back = h
        for m in reversed(list(mods)):
            back = m.inverse(back)
        back = unsqueeze(back)
    return {"nll": nll, "slogdet_matches": bool(torch.allclose(logabs, conv.log_s.sum(), atol=1e-5)),
            "sign": _r(sign * torch.prod(conv.sign_s)), "initialized": int(act.initialized),
            "actnorm_loc": _r(act.loc.view(-1), 3), "roundtrip": _r((back - x).abs().max() < 1e-4, 1),
            "squeeze_roundtrip": bool(torch.equal(unsqueeze(squeeze(x)), x)),
            "lu_factor": _r(torch.linalg.lu_factor(w)[0].diagonal().abs().log().sum(), 4),
            "det": _r(torch.linalg.det(w), 4)}


# ---- MADE / MAF: degree masks, density, sequential inverse -----------------------------------------------------------
def made_maf(torch, device):
    nn = torch.nn
    D, H = 4, 12

    class MaskedLinear(nn.Linear):
        def __init__(self, i, o, mask):
            super().__init__(i, o)
            self.register_buffer("mask", mask.float())

        def forward(self, x):
            return torch.nn.functional.linear(x, self.weight * self.mask, self.bias)

    deg_in = torch.arange(1, D + 1)
    deg_h = torch.tensor(np.random.default_rng(1960).integers(1, D, H))
    m1 = deg_h[:, None] >= deg_in[None, :]
    m2 = deg_in.repeat(2)[:, None] > deg_h[None, :]
    made = nn.Sequential(MaskedLinear(D, H, m1), nn.Tanh(), MaskedLinear(H, 2 * D, m2))
    _fill(torch, made, 1961, 0.4)
    made = made.to(device)

    def forward(x):
        mu, alpha = made(x).chunk(2, dim=1)
        alpha = alpha.clamp(-3, 3)
        u = (x - mu) * torch.exp(-alpha)
        return u, -alpha.sum(1)

    def inverse(u):
        x = torch.zeros_like(u)
        for i in range(D):
            mu, alpha = made(x).chunk(2, dim=1)
            x[:, i] = u[:, i] * torch.exp(alpha[:, i].clamp(-3, 3)) + mu[:, i]
        return x

    x = _randn(torch, 1962, 16, D, device=device) * torch.tensor([1.0, 0.5, 2.0, 1.0], device=device)
    opt = torch.optim.Adam(made.parameters(), lr=1e-2)
    base = torch.distributions.Normal(torch.zeros(D, device=device), torch.ones(D, device=device))
    losses = []
    for _ in range(6):
        u, logdet = forward(x)
        loss = -(base.log_prob(u).sum(1) + logdet).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(_r(loss, 4))
    # autoregressive property: the Jacobian du/dx is lower triangular
    jac = torch.autograd.functional.jacobian(lambda v: forward(v.unsqueeze(0))[0].squeeze(0), x[0])
    with torch.no_grad():
        u, _ = forward(x)
        back = inverse(u)
    return {"losses": losses, "upper_zero": bool((jac.triu(1).abs() < 1e-7).all()),
            "diag": _r(jac.diagonal(), 4), "inverse_err": bool((back - x).abs().max() < 1e-4),
            "mask_rows": m1.int().sum(1).tolist(), "mask2": m2.int().sum(0).tolist()}


# ---- StyleGAN R1 penalty with lazy regularisation; non-saturating losses by softplus ---------------------------------
def r1_gan(torch, device):
    nn, F = torch.nn, torch.nn.functional
    G = _fill(torch, nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 6)), 1970).to(device)
    D = _fill(torch, nn.Sequential(nn.Linear(6, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1)), 1971).to(device)
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.0, 0.99))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.0, 0.99))
    real = _randn(torch, 1972, 8, 6, device=device) * 0.5 + 1.0
    z = _randn(torch, 1973, 8, 4, device=device)
    gamma, every = 10.0, 2
    log = []
    for step in range(6):
        fake = G(z)
        d_loss = F.softplus(D(fake.detach())).mean() + F.softplus(-D(real)).mean()
        opt_d.zero_grad(set_to_none=True)
        d_loss.backward()
        opt_d.step()
        r1 = None
        if step % every == 0:  # lazy R1: scaled by the interval
            real_req = real.detach().requires_grad_(True)
            (grad,) = torch.autograd.grad(D(real_req).sum(), real_req, create_graph=True)
            r1 = grad.pow(2).sum(1).mean()
            opt_d.zero_grad(set_to_none=True)
            (gamma / 2 * r1 * every).backward()
            opt_d.step()
        for p in D.parameters():
            p.requires_grad_(False)
        g_loss = F.softplus(-D(G(z))).mean()
        opt_g.zero_grad(set_to_none=True)
        g_loss.backward()
        opt_g.step()
        for p in D.parameters():
            p.requires_grad_(True)
        log.append([_r(d_loss, 4), _r(g_loss, 4), None if r1 is None else _r(r1, 4)])
    d_grads_none = [p.grad is None for p in D.parameters()]
    return {"log": log, "d_grads_none": d_grads_none, "fake_mean": _r(G(z).mean(0), 3)}


# ---- rectified flow: straight-line interpolants, velocity regression, Euler sampling ------------------------------------
def rectified_flow(torch, device):
    nn = torch.nn

    class Velocity(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2 + 8, 32), nn.SiLU(), nn.Linear(32, 2))
            self.register_buffer("freqs", torch.exp(torch.linspace(0, math.log(100.0), 4)))

        def forward(self, x, t):
            ang = t[:, None] * self.freqs[None, :]
            return self.net(torch.cat([x, ang.sin(), ang.cos()], dim=1))

    v = _fill(torch, Velocity(), 1980, 0.3).to(device)
    rng = np.random.default_rng(1981)
    x1 = torch.tensor(np.concatenate([rng.normal(2, 0.3, (16, 2)), rng.normal(-2, 0.3, (16, 2))]),
                      dtype=torch.float32, device=device)
    x0 = torch.tensor(rng.standard_normal((32, 2)), dtype=torch.float32, device=device)
    t = torch.tensor(rng.random(32), dtype=torch.float32, device=device)
    opt = torch.optim.AdamW(v.parameters(), lr=5e-3, weight_decay=0.01)
    losses = []
    for _ in range(8):
        xt = (1 - t[:, None]) * x0 + t[:, None] * x1
        loss = (v(xt, t) - (x1 - x0)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(v.parameters(), 1.0)
        opt.step()
        losses.append(_r(loss, 4))
    with torch.no_grad():
        x = x0[:6].clone()
        steps = 5
        for i in range(steps):
            tt = torch.full((x.shape[0],), i / steps, device=device)
            x = x + v(x, tt) / steps
        # reflow pairs: the coupling (x0, x) for a second rectification
        pairs = torch.stack([x0[:6], x], dim=1)
    return {"losses": losses, "samples": _r(x, 3), "pairs_shape": list(pairs.shape)}


# ---- beta-VAE / IWAE with torch.distributions, KL annealing and free bits --------------------------------------------
def beta_vae_iwae(torch, device):
    nn, F, D = torch.nn, torch.nn.functional, torch.distributions
    enc = _fill(torch, nn.Linear(6, 2 * 2), 1990).to(device)
    dec = _fill(torch, nn.Linear(2, 6), 1991).to(device)
    x = (_randn(torch, 1992, 10, 6, device=device) > 0).float()
    eps = _randn(torch, 1993, 5, 10, 2, device=device)  # K importance samples
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    log = []
    for step in range(5):
        mu, logvar = enc(x).chunk(2, dim=-1)
        std = torch.exp(0.5 * logvar)
        q = D.Independent(D.Normal(mu, std), 1)
        prior = D.Independent(D.Normal(torch.zeros_like(mu), torch.ones_like(std)), 1)
        z = mu + std * eps  # (K, B, 2), reparameterised by hand
        lik = D.Independent(D.Bernoulli(logits=dec(z)), 1)
        log_w = lik.log_prob(x) + prior.log_prob(z) - q.log_prob(z)
        iwae = (torch.logsumexp(log_w, dim=0) - math.log(eps.shape[0])).mean()
        kl_dim = D.kl_divergence(D.Normal(mu, std), D.Normal(0.0, 1.0)).mean(0)
        free_bits = torch.clamp(kl_dim, min=0.05).sum()
        beta = min(1.0, step / 3)
        recon = F.binary_cross_entropy_with_logits(dec(z[0]), x, reduction="none").sum(1).mean()
        loss = recon + beta * free_bits
        opt.zero_grad()
        loss.backward()
        opt.step()
        closed = D.kl_divergence(q, prior).mean()
        analytic = (-0.5 * (1 + logvar - mu ** 2 - logvar.exp()).sum(1)).mean()
        log.append([_r(loss, 4), _r(iwae, 4), _r(closed, 5), bool(torch.allclose(closed, analytic, atol=1e-5))])
    return {"log": log, "event_shape": [list(q.event_shape), list(q.batch_shape), list(lik.batch_shape)],
            "entropy": _r(q.entropy()[:3], 4), "mean": _r(lik.mean[0, 0], 4)}


# r1_gan was a strict xfail until session 40 fixed leaky_relu's +-0 link to its input under create_graph.
PROGRAMS = [vqvae_ema, pixelcnn, glow_step, made_maf, rectified_flow, beta_vae_iwae, r1_gan]
NEEDS_CPP = {}
