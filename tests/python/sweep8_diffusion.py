"""Sweep 8 programs in the style of diffusion repositories (denoising-diffusion-pytorch, diffusers' schedulers,
k-diffusion): a small U-Net with sinusoidal time embeddings, GroupNorm, scale-shift conditioning and linear
attention, trained with a cosine schedule and v-prediction; DDIM and DDPM ancestral sampling with noise drawn
from NumPy; classifier-free guidance with label dropout; a Karras/EDM Heun sampler.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math
from functools import partial

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _rounded(t, digits=4):
    return [round(v, digits) for v in t.flatten().tolist()]


def _unet(torch, num_classes=None):
    nn = torch.nn
    F = nn.functional

    def exists(x):
        return x is not None

    class SinusoidalPosEmb(nn.Module):
        def __init__(self, dim, theta=10000):
            super().__init__()
            self.dim, self.theta = dim, theta

        def forward(self, x):
            half_dim = self.dim // 2
            emb = math.log(self.theta) / (half_dim - 1)
            emb = torch.exp(torch.arange(half_dim, device=x.device) * -emb)
            emb = x[:, None] * emb[None, :]
            return torch.cat((emb.sin(), emb.cos()), dim=-1)

    class RMSNorm(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.scale = dim ** 0.5
            self.g = nn.Parameter(torch.ones(1, dim, 1, 1))

        def forward(self, x):
            return F.normalize(x, dim=1) * self.g * self.scale

    class Block(nn.Module):
        def __init__(self, dim, dim_out, groups=4):
            super().__init__()
            self.proj = nn.Conv2d(dim, dim_out, 3, padding=1)
            self.norm = nn.GroupNorm(groups, dim_out)
            self.act = nn.SiLU()

        def forward(self, x, scale_shift=None):
            x = self.norm(self.proj(x))
            if exists(scale_shift):
                scale, shift = scale_shift
                x = x * (scale + 1) + shift
            return self.act(x)

    class ResnetBlock(nn.Module):
        def __init__(self, dim, dim_out, *, time_emb_dim=None, groups=4):
            super().__init__()
            self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(time_emb_dim, dim_out * 2)) if exists(time_emb_dim) else None
            self.block1 = Block(dim, dim_out, groups=groups)
            self.block2 = Block(dim_out, dim_out, groups=groups)
            self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

        def forward(self, x, time_emb=None):
            scale_shift = None
            if exists(self.mlp) and exists(time_emb):
                time_emb = self.mlp(time_emb)
                time_emb = time_emb[..., None, None]  # rearrange(time_emb, 'b c -> b c 1 1')
                scale_shift = time_emb.chunk(2, dim=1)
            h = self.block1(x, scale_shift=scale_shift)
            return self.block2(h) + self.res_conv(x)

    class LinearAttention(nn.Module):
        def __init__(self, dim, heads=2, dim_head=8):
            super().__init__()
            self.scale = dim_head ** -0.5
            self.heads = heads
            hidden_dim = dim_head * heads
            self.norm = RMSNorm(dim)
            self.to_qkv = nn.Conv2d(dim, hidden_dim * 3, 1, bias=False)
            self.to_out = nn.Sequential(nn.Conv2d(hidden_dim, dim, 1), RMSNorm(dim))

        def forward(self, x):
            b, c, h, w = x.shape
            x = self.norm(x)
            qkv = self.to_qkv(x).chunk(3, dim=1)
            q, k, v = map(lambda t: t.reshape(b, self.heads, -1, h * w), qkv)
            q = q.softmax(dim=-2) * self.scale
            k = k.softmax(dim=-1)
            context = torch.einsum("b h d n, b h e n -> b h d e", k, v)
            out = torch.einsum("b h d e, b h d n -> b h e n", context, q)
            return self.to_out(out.reshape(b, -1, h, w))

    class Residual(nn.Module):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn

        def forward(self, x, *args, **kwargs):
            return self.fn(x, *args, **kwargs) + x

    class Unet(nn.Module):
        def __init__(self, dim=8, channels=1, dim_mults=(1, 2)):
            super().__init__()
            self.channels = channels
            self.init_conv = nn.Conv2d(channels, dim, 7, padding=3)
            dims = [dim, *map(lambda m: dim * m, dim_mults)]
            in_out = list(zip(dims[:-1], dims[1:]))
            time_dim = dim * 4
            self.time_mlp = nn.Sequential(SinusoidalPosEmb(dim), nn.Linear(dim, time_dim), nn.GELU(),
                                          nn.Linear(time_dim, time_dim))
            self.classes_emb = nn.Embedding(num_classes + 1, time_dim) if num_classes else None  # +1: null class
            block = partial(ResnetBlock, time_emb_dim=time_dim)
            self.downs, self.ups = nn.ModuleList([]), nn.ModuleList([])
            for ind, (dim_in, dim_out) in enumerate(in_out):
                is_last = ind >= (len(in_out) - 1)
                self.downs.append(nn.ModuleList([
                    block(dim_in, dim_in), Residual(LinearAttention(dim_in)),
                    nn.Conv2d(dim_in * 4, dim_out, 1) if not is_last else nn.Conv2d(dim_in, dim_out, 3, padding=1)]))
            mid_dim = dims[-1]
            self.mid_block = block(mid_dim, mid_dim)
            for ind, (dim_in, dim_out) in enumerate(reversed(in_out)):
                is_last = ind == (len(in_out) - 1)
                self.ups.append(nn.ModuleList([
                    block(dim_out + dim_in, dim_out), Residual(LinearAttention(dim_out)),
                    nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(dim_out, dim_in, 3, padding=1))
                    if not is_last else nn.Conv2d(dim_out, dim_in, 3, padding=1)]))
            self.final_res_block = block(dim * 2, dim)
            self.final_conv = nn.Conv2d(dim, channels, 1)

        def forward(self, x, time, classes=None):
            x = self.init_conv(x)
            r = x.clone()
            t = self.time_mlp(time)
            if self.classes_emb is not None:
                t = t + self.classes_emb(classes)
            h = []
            for blk, attn, downsample in self.downs:
                x = attn(blk(x, t))
                h.append(x)
                if isinstance(downsample, nn.Conv2d) and downsample.kernel_size == (1, 1):
                    x = F.pixel_unshuffle(x, 2)  # Rearrange('b c (h p1) (w p2) -> b (c p1 p2) h w')
                x = downsample(x)
            x = self.mid_block(x, t)
            for blk, attn, upsample in self.ups:
                x = torch.cat((x, h.pop()), dim=1)
                x = attn(blk(x, t))
                x = upsample(x)
            x = torch.cat((x, r), dim=1)
            return self.final_conv(self.final_res_block(x, t))

    return Unet


def _cosine_beta_schedule(torch, timesteps, s=0.008):
    steps = timesteps + 1
    t = torch.linspace(0, timesteps, steps, dtype=torch.float64) / timesteps
    alphas_cumprod = torch.cos((t + s) / (1 + s) * math.pi * 0.5) ** 2
    alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
    betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
    return torch.clip(betas, 0, 0.999)


def _extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


# ---- train with v-prediction and a cosine schedule, then DDIM and DDPM sampling with fixed noise ------------------
def diffusion_v_prediction(torch, device):
    F = torch.nn.functional
    Unet = _unet(torch)
    T = 20
    betas = _cosine_beta_schedule(torch, T)
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, dim=0)
    alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
    buffers = {}

    def register_buffer(name, val):
        buffers[name] = val.to(torch.float32).to(device)

    register_buffer("sqrt_alphas_cumprod", torch.sqrt(alphas_cumprod))
    register_buffer("sqrt_one_minus_alphas_cumprod", torch.sqrt(1.0 - alphas_cumprod))
    register_buffer("posterior_variance", betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod))
    register_buffer("posterior_log_variance_clipped",
                    torch.log(buffers["posterior_variance"].double().clamp(min=1e-20)))
    register_buffer("posterior_mean_coef1", betas * torch.sqrt(alphas_cumprod_prev) / (1.0 - alphas_cumprod))
    register_buffer("posterior_mean_coef2", (1.0 - alphas_cumprod_prev) * torch.sqrt(alphas) / (1.0 - alphas_cumprod))
    snr = alphas_cumprod / (1 - alphas_cumprod)
    register_buffer("loss_weight", snr.clamp(max=5.0) / (snr + 1))  # min-SNR weighting for v

    model = Unet().to(device)
    init_from_numpy(torch, model, 1200)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.99))
    rng = np.random.default_rng(1201)
    images = torch.tensor(np.clip(rng.standard_normal((4, 1, 8, 8)) * 0.5, -1, 1), dtype=torch.float32,
                          device=device)
    losses = []
    for step in range(4):
        t = torch.tensor(rng.integers(0, T, 4), device=device).long()
        noise = torch.tensor(rng.standard_normal((4, 1, 8, 8)), dtype=torch.float32, device=device)
        x_t = (_extract(buffers["sqrt_alphas_cumprod"], t, images.shape) * images
               + _extract(buffers["sqrt_one_minus_alphas_cumprod"], t, images.shape) * noise)
        v = (_extract(buffers["sqrt_alphas_cumprod"], t, images.shape) * noise
             - _extract(buffers["sqrt_one_minus_alphas_cumprod"], t, images.shape) * images)
        out = model(x_t, t)
        loss = F.mse_loss(out, v, reduction="none")
        loss = loss.mean(dim=[1, 2, 3]) * _extract(buffers["loss_weight"], t, loss.shape).flatten()
        loss = loss.mean()
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(round(loss.item(), 4))

    def predict_start_from_v(x_t, t, v):
        return (_extract(buffers["sqrt_alphas_cumprod"], t, x_t.shape) * x_t
                - _extract(buffers["sqrt_one_minus_alphas_cumprod"], t, x_t.shape) * v)

    def predict_noise_from_start(x_t, t, x0):
        return ((_extract(1.0 / buffers["sqrt_alphas_cumprod"], t, x_t.shape) * x_t - x0)
                / _extract(torch.sqrt(1.0 / buffers["sqrt_alphas_cumprod"] ** 2 - 1), t, x_t.shape))

    model.eval()
    noise_rng = np.random.default_rng(1202)

    def randn(*shape):
        return torch.tensor(noise_rng.standard_normal(shape), dtype=torch.float32, device=device)

    @torch.inference_mode()
    def ddim_sample(steps=5, eta=0.0):
        times = torch.linspace(-1, T - 1, steps=steps + 1)
        times = list(reversed(times.int().tolist()))
        time_pairs = list(zip(times[:-1], times[1:]))
        img = randn(2, 1, 8, 8)
        ac = buffers["sqrt_alphas_cumprod"] ** 2
        for time, time_next in time_pairs:
            time_cond = torch.full((2,), time, device=device, dtype=torch.long)
            x_start = predict_start_from_v(img, time_cond, model(img, time_cond)).clamp_(-1.0, 1.0)
            pred_noise = predict_noise_from_start(img, time_cond, x_start)
            if time_next < 0:
                img = x_start
                continue
            alpha, alpha_next = ac[time], ac[time_next]
            sigma = eta * ((1 - alpha / alpha_next) * (1 - alpha_next) / (1 - alpha)).sqrt()
            c = (1 - alpha_next - sigma ** 2).sqrt()
            img = x_start * alpha_next.sqrt() + c * pred_noise + sigma * randn(2, 1, 8, 8)
        return img

    @torch.no_grad()
    def p_sample_loop(n_steps=T):
        img = randn(2, 1, 8, 8)
        for t in reversed(range(0, n_steps)):
            batched_times = torch.full((img.shape[0],), t, device=device, dtype=torch.long)
            x_start = predict_start_from_v(img, batched_times, model(img, batched_times))
            x_start = torch.clamp(x_start, min=-1.0, max=1.0)
            mean = (_extract(buffers["posterior_mean_coef1"], batched_times, img.shape) * x_start
                    + _extract(buffers["posterior_mean_coef2"], batched_times, img.shape) * img)
            log_var = _extract(buffers["posterior_log_variance_clipped"], batched_times, img.shape)
            noise = randn(*img.shape) if t > 0 else 0.0
            img = mean + (0.5 * log_var).exp() * noise
        return (img + 1) * 0.5

    ddim = ddim_sample()
    ddpm = p_sample_loop()
    return {"losses": losses, "betas": _rounded(betas[::5], 6), "ddim": _rounded(ddim[0, 0, :2], 3),
            "ddpm_mean": round(ddpm.mean().item(), 3), "ddpm_range": [ddpm.min().item() >= -0.5, list(ddpm.shape)],
            "n_params": sum(p.numel() for p in model.parameters()),
            "dtype": str(buffers["posterior_log_variance_clipped"].dtype).split(".")[-1]}


# ---- classifier-free guidance: label dropout to a null class in training, guided sampling -------------------------
def classifier_free_guidance(torch, device):
    F = torch.nn.functional
    Unet = _unet(torch, num_classes=3)
    T = 10
    betas = torch.linspace(1e-4, 0.2, T, device=device)
    alphas_bar = torch.cumprod(1 - betas, 0)
    model = Unet().to(device)
    init_from_numpy(torch, model, 1210)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.0)
    ema = torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
    rng = np.random.default_rng(1211)
    x0 = torch.tensor(rng.uniform(-1, 1, (6, 1, 8, 8)), dtype=torch.float32, device=device)
    labels = torch.tensor(rng.integers(0, 3, 6), device=device)
    losses = []
    for step in range(3):
        t = torch.tensor(rng.integers(0, T, 6), device=device)
        eps = torch.tensor(rng.standard_normal((6, 1, 8, 8)), dtype=torch.float32, device=device)
        drop = torch.tensor(rng.uniform(size=6) < 0.3, device=device)
        cond = torch.where(drop, torch.full_like(labels, 3), labels)  # 3 is the null class
        a = alphas_bar[t].view(-1, 1, 1, 1)
        xt = a.sqrt() * x0 + (1 - a).sqrt() * eps
        loss = F.smooth_l1_loss(model(xt, t, cond), eps, beta=0.5)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema.update_parameters(model)
        losses.append(round(loss.item(), 4))

    noise_rng = np.random.default_rng(1212)

    @torch.no_grad()
    def guided_sample(net, cls, w):
        x = torch.tensor(noise_rng.standard_normal((len(cls), 1, 8, 8)), dtype=torch.float32, device=device)
        cls = torch.tensor(cls, device=device)
        null = torch.full_like(cls, 3)
        for i in reversed(range(T)):
            t = torch.full((len(cls),), i, device=device, dtype=torch.long)
            both = net(torch.cat([x, x]), torch.cat([t, t]), torch.cat([cls, null]))
            eps_c, eps_u = both.chunk(2)
            eps = torch.lerp(eps_u, eps_c, w)  # eps_u + w * (eps_c - eps_u)
            x = (x - betas[i] / (1 - alphas_bar[i]).sqrt() * eps) / (1 - betas[i]).sqrt()
            if i > 0:
                z = torch.tensor(noise_rng.standard_normal(x.shape), dtype=torch.float32, device=device)
                x = x + betas[i].sqrt() * z
        return x

    s1 = guided_sample(model, [0, 2], 3.0)
    s2 = guided_sample(ema.module, [1], 1.0)
    return {"losses": losses, "s1": _rounded(s1[:, 0, 0], 3), "s2_mean": round(s2.mean().item(), 3),
            "n_averaged": ema.n_averaged.item(), "ema_keys": sorted(ema.state_dict())[:2],
            "ema_w": round(ema.module.final_conv.bias.item(), 5)}


# ---- EDM (Karras et al.) preconditioning and the second-order Heun sampler --------------------------------------
def edm_heun_sampler(torch, device):
    nn = torch.nn
    sigma_data, sigma_min, sigma_max, rho = 0.5, 0.002, 80.0, 7.0

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(3, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 2))

        def forward(self, x, sigma):
            sigma = sigma.reshape(-1, 1)
            c_skip = sigma_data ** 2 / (sigma ** 2 + sigma_data ** 2)
            c_out = sigma * sigma_data / (sigma ** 2 + sigma_data ** 2).sqrt()
            c_in = 1 / (sigma_data ** 2 + sigma ** 2).sqrt()
            c_noise = sigma.log() / 4
            F_x = self.net(torch.cat([c_in * x, c_noise], dim=1))
            return c_skip * x + c_out * F_x

    net = Denoiser().to(device).double()
    init_from_numpy(torch, net, 1220)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    rng = np.random.default_rng(1221)
    data = torch.tensor(np.concatenate([rng.normal(-1, 0.2, (32, 2)), rng.normal(1, 0.2, (32, 2))]), device=device)
    for step in range(10):
        rnd_normal = torch.tensor(rng.standard_normal(64), device=device)
        sigma = (rnd_normal * 1.2 - 1.2).exp()
        weight = (sigma ** 2 + sigma_data ** 2) / (sigma * sigma_data) ** 2
        n = torch.tensor(rng.standard_normal((64, 2)), device=device) * sigma[:, None]
        loss = (weight[:, None] * (net(data + n, sigma) - data) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    num_steps = 8
    step_indices = torch.arange(num_steps, dtype=torch.float64, device=device)
    t_steps = (sigma_max ** (1 / rho) + step_indices / (num_steps - 1)
               * (sigma_min ** (1 / rho) - sigma_max ** (1 / rho))) ** rho
    t_steps = torch.cat([t_steps, torch.zeros_like(t_steps[:1])])
    latents = torch.tensor(np.random.default_rng(1222).standard_normal((5, 2)), device=device)
    x_next = latents.to(torch.float64) * t_steps[0]
    with torch.no_grad():
        for i, (t_cur, t_next) in enumerate(zip(t_steps[:-1], t_steps[1:])):
            x_cur = x_next
            denoised = net(x_cur, t_cur.expand(5))
            d_cur = (x_cur - denoised) / t_cur
            x_next = x_cur + (t_next - t_cur) * d_cur
            if i < num_steps - 1:
                denoised = net(x_next, t_next.expand(5))
                d_prime = (x_next - denoised) / t_next
                x_next = x_cur + (t_next - t_cur) * (0.5 * d_cur + 0.5 * d_prime)
    return {"loss": round(loss.item(), 5), "t_steps": _rounded(t_steps, 5), "samples": _rounded(x_next, 4),
            "dtype": str(x_next.dtype).split(".")[-1]}


PROGRAMS = [diffusion_v_prediction, classifier_free_guidance, edm_heun_sampler]
NEEDS_CPP = {}
