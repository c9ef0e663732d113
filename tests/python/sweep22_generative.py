"""Sweep 22 programs, diffusion samplers and normalizing flows as research code writes them: DDPM training with a
cosine beta schedule, an `extract` helper (gather + reshape) and sinusoidal timestep embeddings; DDIM sampling with
eta (NumPy noise) and classifier-free guidance over a doubled batch; DPM-Solver++(2M) in log-SNR time with expm1;
DDIM inversion and reconstruction; RealNVP with checkerboard masks, data-dependent ActNorm initialisation and
bits-per-dim; a rational-quadratic neural spline (searchsorted bins, logabsdet, inverse by the quadratic root);
planar flows with the invertibility-constrained u_hat trained by reverse KL.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep22.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _cosine_betas(torch, T, s=0.008):
    steps = T + 1
    x = torch.linspace(0, T, steps, dtype=torch.float64)
    alphas_cumprod = torch.cos(((x / T) + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)


def _timestep_embedding(torch, t, dim, max_period=10000):
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(start=0, end=half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None].to(t.device)
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


def _denoiser(torch, seed, device, cond_dim=0):
    nn = torch.nn

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(2 + 8 + cond_dim, 32), nn.SiLU(), nn.Linear(32, 2))

        def forward(self, x, t, c=None):
            h = [x, _timestep_embedding(torch, t, 8)]
            if c is not None:
                h.append(c)
            return self.net(torch.cat(h, dim=-1))
    return _fill(torch, Denoiser(), seed).to(device)


# ---- DDPM training with a cosine schedule -------------------------------------------------------------------------------
def ddpm_cosine_training(torch, device):
    F = torch.nn.functional
    T = 50
    betas = _cosine_betas(torch, T).float()
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
    posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)
    sqrt_ac = torch.sqrt(alphas_cumprod).to(device)
    sqrt_1m_ac = torch.sqrt(1.0 - alphas_cumprod).to(device)

    def extract(a, t, x_shape):
        b, *_ = t.shape
        out = a.gather(-1, t)
        return out.reshape(b, *((1,) * (len(x_shape) - 1)))

    def q_sample(x0, t, noise):
        return extract(sqrt_ac, t, x0.shape) * x0 + extract(sqrt_1m_ac, t, x0.shape) * noise

    model = _denoiser(torch, 2400, device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    rng = np.random.default_rng(2401)
    data = torch.tensor(rng.standard_normal((64, 2)) * 0.3 + [1.0, -1.0], dtype=torch.float32, device=device)
    losses = []
    for step in range(6):
        t = torch.tensor(rng.integers(0, T, 64), device=device)
        noise = torch.tensor(rng.standard_normal((64, 2)), dtype=torch.float32, device=device)
        loss = F.mse_loss(model(q_sample(data, t, noise), t), noise)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(round(loss.item(), 5))
    return {"betas": _r(betas[[0, 1, 25, 48, 49]], 6), "post_var": _r(posterior_variance[:3], 6),
            "losses": losses, "snr_last": round((alphas_cumprod[-1] / (1 - alphas_cumprod[-1])).item(), 8)}


# ---- DDIM sampling with eta and classifier-free guidance ----------------------------------------------------------------
def ddim_cfg_sampler(torch, device):
    T, steps, eta, guidance = 100, 10, 0.5, 3.0
    betas = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
    alphas_cumprod = torch.cumprod(1 - betas, 0).float().to(device)
    model = _denoiser(torch, 2410, device, cond_dim=3)
    timesteps = torch.linspace(0, T - 1, steps).long().flip(0).tolist()
    rng = np.random.default_rng(2411)
    x = torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32, device=device)
    cond = torch.nn.functional.one_hot(torch.tensor([0, 1, 2, 1], device=device), 3).float()
    uncond = torch.zeros_like(cond)
    trace = []
    with torch.inference_mode():
        for i, t in enumerate(timesteps):
            t_prev = timesteps[i + 1] if i + 1 < len(timesteps) else -1
            a_t = alphas_cumprod[t]
            a_prev = alphas_cumprod[t_prev] if t_prev >= 0 else torch.tensor(1.0, device=device)
            tt = torch.full((8,), t, device=device, dtype=torch.long)
            eps_u, eps_c = model(torch.cat([x, x]), tt, torch.cat([uncond, cond])).chunk(2)
            eps = eps_u + guidance * (eps_c - eps_u)
            x0 = (x - (1 - a_t).sqrt() * eps) / a_t.sqrt()
            x0 = x0.clamp(-3, 3)
            sigma = eta * ((1 - a_prev) / (1 - a_t) * (1 - a_t / a_prev)).sqrt()
            dir_xt = (1 - a_prev - sigma ** 2).clamp(min=0).sqrt() * eps
            noise = torch.tensor(rng.standard_normal((4, 2)), dtype=torch.float32, device=device)
            x = a_prev.sqrt() * x0 + dir_xt + sigma * noise
            trace.append(round(x.norm().item(), 4))
    return {"timesteps": timesteps, "trace": trace, "final": _r(x, 4), "inference": x.is_inference()}


# ---- DPM-Solver++(2M) -----------------------------------------------------------------------------------------------------
def dpm_solver_2m(torch, device):
    T = 200
    betas = torch.linspace(0.1 / T, 20 / T, T, dtype=torch.float64)
    ac = torch.cumprod(1 - betas, 0)
    alpha_t, sigma_t = ac.sqrt(), (1 - ac).sqrt()
    lambda_t = torch.log(alpha_t) - torch.log(sigma_t)
    model = _denoiser(torch, 2420, device)
    ts = torch.linspace(T - 1, 0, 8).round().long()
    x = _randn(torch, 2421, 5, 2, device=device, dtype=torch.float64)
    model = model.double()
    old_x0, lambdas = None, []
    with torch.no_grad():
        for i in range(len(ts) - 1):
            s, t = ts[i].item(), ts[i + 1].item()
            eps = model(x, torch.full((5,), s, device=device))
            x0 = (x - sigma_t[s].item() * eps) / alpha_t[s].item()
            h = (lambda_t[t] - lambda_t[s]).item()
            if old_x0 is None:
                D = x0
            else:
                h_last = lambdas[-1]
                r = h_last / h
                D = (1 + 1 / (2 * r)) * x0 - (1 / (2 * r)) * old_x0
            x = (sigma_t[t] / sigma_t[s]).item() * x - alpha_t[t].item() * math.expm1(-h) * D
            old_x0 = x0
            lambdas.append(h)
    return {"ts": ts.tolist(), "h": [round(v, 6) for v in lambdas], "x": _r(x, 5), "dtype": str(x.dtype),
            "expm1": _r(torch.expm1(torch.tensor([-1e-8, -0.5, 2.0], dtype=torch.float64)), 12)}


# ---- DDIM inversion ----------------------------------------------------------------------------------------------------
def ddim_inversion(torch, device):
    T = 40
    ac = torch.cumprod(1 - torch.linspace(1e-4, 0.05, T), 0).to(device)
    model = _denoiser(torch, 2430, device)
    ts = list(range(0, T, 5))
    x0 = _randn(torch, 2431, 3, 2, device=device)

    def step(x, t_from, t_to):
        a_from = ac[t_from] if t_from >= 0 else torch.ones((), device=device)
        eps = model(x, torch.full((x.shape[0],), max(t_from, 0), device=device))
        pred_x0 = (x - (1 - a_from).sqrt() * eps) / a_from.sqrt()
        return ac[t_to].sqrt() * pred_x0 + (1 - ac[t_to]).sqrt() * eps if t_to >= 0 else pred_x0

    with torch.no_grad():
        x, path = x0, [-1] + ts
        for a, b in zip(path[:-1], path[1:]):
            x = step(x, a, b)
        latent = x.clone()
        for a, b in zip(reversed(path[1:]), reversed(path[:-1])):
            x = step(x, a, b)
    err = (x - x0).abs().max().item()
    return {"latent": _r(latent, 4), "recon": _r(x, 4), "err_small": err < 0.5, "ac_end": round(ac[-1].item(), 6)}


# ---- RealNVP with checkerboard masks and ActNorm ------------------------------------------------------------------------
def realnvp_actnorm(torch, device):
    nn = torch.nn

    class ActNorm(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.loc = nn.Parameter(torch.zeros(1, dim))
            self.log_scale = nn.Parameter(torch.zeros(1, dim))
            self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

        def forward(self, x):
            if self.initialized.item() == 0:
                with torch.no_grad():
                    self.loc.data.copy_(-x.mean(0, keepdim=True))
                    self.log_scale.data.copy_(-torch.log(x.std(0, keepdim=True) + 1e-6))
                    self.initialized.fill_(1)
            y = (x + self.loc) * torch.exp(self.log_scale)
            return y, self.log_scale.sum().expand(x.shape[0])

        def inverse(self, y):
            return y * torch.exp(-self.log_scale) - self.loc

    class Coupling(nn.Module):
        def __init__(self, dim, mask):
            super().__init__()
            self.register_buffer("mask", mask)
            self.net = nn.Sequential(nn.Linear(dim, 16), nn.ReLU(), nn.Linear(16, 2 * dim))
            self.scale = nn.Parameter(torch.ones(1, dim))

        def forward(self, x):
            xm = x * self.mask
            s, t = self.net(xm).chunk(2, dim=1)
            s = self.scale * torch.tanh(s) * (1 - self.mask)
            t = t * (1 - self.mask)
            return xm + (1 - self.mask) * (x * torch.exp(s) + t), s.sum(dim=1)

        def inverse(self, y):
            ym = y * self.mask
            s, t = self.net(ym).chunk(2, dim=1)
            s = self.scale * torch.tanh(s) * (1 - self.mask)
            t = t * (1 - self.mask)
            return ym + (1 - self.mask) * ((y - t) * torch.exp(-s))

    dim = 4
    checker = (torch.arange(dim) % 2).float()
    layers = nn.ModuleList()
    for i in range(4):
        layers.append(ActNorm(dim))
        layers.append(Coupling(dim, checker if i % 2 == 0 else 1 - checker))
    layers = _fill(torch, layers, 2440, scale=0.3).to(device)
    for m in layers:
        if isinstance(m, Coupling):
            m.scale.data.fill_(1.0)
    base = torch.distributions.Normal(torch.zeros(dim, device=device), torch.ones(dim, device=device))
    x = _randn(torch, 2441, 32, dim, device=device) * torch.tensor([2.0, 0.5, 1.0, 3.0], device=device) + 1.0
    opt = torch.optim.Adam(layers.parameters(), lr=5e-3)
    nll = []
    for _ in range(4):
        z, logdet = x, torch.zeros(x.shape[0], device=device)
        for layer in layers:
            z, ld = layer(z)
            logdet = logdet + ld
        log_prob = base.log_prob(z).sum(1) + logdet
        loss = -log_prob.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        nll.append(round(loss.item(), 4))
    bpd = (loss / (dim * math.log(2))).item()
    with torch.no_grad():
        z = x
        for layer in layers:
            z, _ = layer(z)
        back = z
        for layer in reversed(layers):
            back = layer.inverse(back)
    return {"nll": nll, "bpd": round(bpd, 4), "inverse_err": (back - x).abs().max().item() < 1e-4,
            "init": [int(m.initialized) for m in layers if isinstance(m, ActNorm)],
            "buffers": sorted({n.split(".")[-1] for n, _ in layers.named_buffers()})}


# ---- rational-quadratic neural spline -----------------------------------------------------------------------------------
def rational_quadratic_spline(torch, device):
    F = torch.nn.functional
    B, K, bound = 6, 5, 3.0

    def rq_spline(inputs, w, h, d, inverse=False):
        widths = F.softmax(w, dim=-1)
        widths = 1e-3 + (1 - 1e-3 * K) * widths
        cumwidths = F.pad(torch.cumsum(widths, dim=-1), pad=(1, 0), mode="constant", value=0.0)
        cumwidths = 2 * bound * cumwidths - bound
        cumwidths[..., 0], cumwidths[..., -1] = -bound, bound
        widths = cumwidths[..., 1:] - cumwidths[..., :-1]
        derivs = 1e-3 + F.softplus(F.pad(d, (1, 1), value=math.log(math.expm1(1 - 1e-3))))
        heights = F.softmax(h, dim=-1)
        heights = 1e-3 + (1 - 1e-3 * K) * heights
        cumheights = F.pad(torch.cumsum(heights, dim=-1), pad=(1, 0), mode="constant", value=0.0)
        cumheights = 2 * bound * cumheights - bound
        cumheights[..., 0], cumheights[..., -1] = -bound, bound
        heights = cumheights[..., 1:] - cumheights[..., :-1]
        locs = cumheights if inverse else cumwidths
        locs = locs.clone()
        locs[..., -1] += 1e-6
        idx = (torch.sum(inputs[..., None] >= locs, dim=-1) - 1)[..., None]
        icw, ibw = cumwidths.gather(-1, idx)[..., 0], widths.gather(-1, idx)[..., 0]
        ich, ih = cumheights.gather(-1, idx)[..., 0], heights.gather(-1, idx)[..., 0]
        delta = (heights / widths).gather(-1, idx)[..., 0]
        d0, d1 = derivs.gather(-1, idx)[..., 0], derivs[..., 1:].gather(-1, idx)[..., 0]
        if inverse:
            a = (inputs - ich) * (d0 + d1 - 2 * delta) + ih * (delta - d0)
            b = ih * d0 - (inputs - ich) * (d0 + d1 - 2 * delta)
            c = -delta * (inputs - ich)
            root = (2 * c) / (-b - torch.sqrt(b.pow(2) - 4 * a * c))
            return root * ibw + icw
        theta = (inputs - icw) / ibw
        tt = theta * (1 - theta)
        num = ih * (delta * theta.pow(2) + d0 * tt)
        den = delta + (d0 + d1 - 2 * delta) * tt
        out = ich + num / den
        dnum = delta.pow(2) * (d1 * theta.pow(2) + 2 * delta * tt + d0 * (1 - theta).pow(2))
        return out, torch.log(dnum) - 2 * torch.log(den)

    rng = np.random.default_rng(2450)

    def param(*shape):
        return torch.tensor(rng.standard_normal(shape), dtype=torch.float64, device=device, requires_grad=True)

    w, h, d = param(B, K), param(B, K), param(B, K - 1)
    x = torch.tensor(rng.uniform(-2.9, 2.9, B), dtype=torch.float64, device=device)
    y, logabsdet = rq_spline(x, w, h, d)
    back = rq_spline(y.detach(), w.detach(), h.detach(), d.detach(), inverse=True)
    logabsdet.sum().backward()
    # the bin index agrees with searchsorted on the knots
    knots = torch.linspace(-bound, bound, K + 1, dtype=torch.float64, device=device)
    bins = torch.searchsorted(knots, x.contiguous(), right=True) - 1
    return {"y": _r(y, 8), "logdet": _r(logabsdet, 8), "inverse": _r(back - x, 8), "w_grad": _r(w.grad, 6),
            "bins": bins.tolist()}


# ---- planar flows trained by reverse KL ---------------------------------------------------------------------------------
def planar_flows_reverse_kl(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class Planar(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.u = nn.Parameter(torch.zeros(dim))
            self.w = nn.Parameter(torch.zeros(dim))
            self.b = nn.Parameter(torch.zeros(1))

        def forward(self, z):
            wu = self.w @ self.u
            u_hat = self.u + (-1 + F.softplus(wu) - wu) * self.w / (self.w.norm() ** 2)
            lin = z @ self.w + self.b
            f = z + u_hat * torch.tanh(lin).unsqueeze(-1)
            psi = (1 - torch.tanh(lin) ** 2).unsqueeze(-1) * self.w
            logdet = torch.log((1 + psi @ u_hat).abs() + 1e-8)
            return f, logdet

    flows = _fill(torch, nn.ModuleList([Planar(2) for _ in range(4)]), 2460).to(device)

    def target_log_density(z):  # a banana-shaped energy
        z1, z2 = z[:, 0], z[:, 1]
        return -0.5 * ((z2 - z1 ** 2 / 2) ** 2 / 0.5 + z1 ** 2 / 4)

    base = torch.distributions.MultivariateNormal(torch.zeros(2, device=device), torch.eye(2, device=device))
    z0 = _randn(torch, 2461, 64, 2, device=device)
    opt = torch.optim.RMSprop(flows.parameters(), lr=1e-2)
    kls = []
    for _ in range(5):
        z, sum_logdet = z0, 0.0
        for f in flows:
            z, ld = f(z)
            sum_logdet = sum_logdet + ld
        kl = (base.log_prob(z0) - sum_logdet - target_log_density(z)).mean()
        opt.zero_grad()
        kl.backward()
        opt.step()
        kls.append(round(kl.item(), 4))
    return {"kl": kls, "u": _r(flows[0].u, 4), "z": _r(z[:3], 4)}


PROGRAMS = [ddpm_cosine_training, ddim_cfg_sampler, dpm_solver_2m, ddim_inversion, realnvp_actnorm,
            rational_quadratic_spline, planar_flows_reverse_kl]
NEEDS_CPP = {}
