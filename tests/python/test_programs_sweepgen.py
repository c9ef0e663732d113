"""The 'sweepgen' program sweep: short but whole generative-model, graph, recommender, time-series, meta-learning,
tabular, mixed-precision and checkpointing programs, each written once against a module called `torch` the way
tutorials write them, run with PyTorch and with tandem standing in for it, and their results compared.

Each program takes the library as `torch` (so it reaches submodules as attributes, `torch.func.functional_call`:
a `from torch.func import ...` statement would import PyTorch's own module) and a device, builds its parameters from NumPy (the two libraries'
generators give different numbers for one seed), runs a few steps and returns plain Python numbers. Fixes for
what the programs found have focused tests in the files for their areas (see docs/compat.md, "Program sweep:
generative and graph models")."""
import copy
import io
import math
import os
import tempfile
import warnings

import numpy as np
import pytest
import torch as real_torch

import tandem
from test_programs_sweeputil import assert_same_results

# tandem's devices for a program: the CPU and, when there is one, an (emulated or real) CUDA device. PyTorch always
# runs the program on its CPU, the reference.
_DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])


def init_from_numpy(torch, module, seed):
    """Fill every parameter of `module` from a seeded NumPy generator, in state_dict order, PyTorch-like scales."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            shape = tuple(p.shape)
            if len(shape) >= 2:
                bound = 1.0 / math.sqrt(max(1, int(np.prod(shape[1:]))))
                values = rng.uniform(-bound, bound, size=shape)
            elif name.endswith("weight"):  # norm scales stay near one
                values = 1.0 + 0.1 * rng.standard_normal(shape)
            else:
                values = 0.1 * rng.standard_normal(shape)
            p.copy_(torch.from_numpy(values))


def init_power_iteration_vectors(torch, module, seed):
    """spectral_norm starts its power iteration from random u and v: set them from NumPy (unit vectors)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, buf in module.named_buffers():
            if name.endswith(("._u", "._v", "weight_u", "weight_v")):
                values = rng.standard_normal(tuple(buf.shape))
                buf.copy_(torch.from_numpy(values / np.linalg.norm(values)))


def numpy_input(torch, seed, *shape, device="cpu", kind="normal"):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape) if kind == "normal" else rng.uniform(0, 1, size=shape)
    return torch.tensor(values, dtype=torch.get_default_dtype(), device=device)


# ---- DCGAN (pytorch/examples dcgan, the PyTorch DCGAN tutorial) ---------------------------------------------------
def dcgan(torch, device):
    nn = torch.nn
    nz, ngf, ndf = 8, 8, 8

    class Generator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
                nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
                nn.ConvTranspose2d(ngf, 1, 4, 2, 1, bias=False), nn.Tanh())

        def forward(self, z):
            return self.main(z)

    def weights_init(m):
        classname = m.__class__.__name__
        if classname.find("Conv") != -1:
            nn.init.normal_(m.weight.data, 0.0, 0.02)
        elif classname.find("BatchNorm") != -1:
            nn.init.normal_(m.weight.data, 1.0, 0.02)
            nn.init.constant_(m.bias.data, 0)

    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.main = nn.Sequential(
                nn.utils.parametrizations.spectral_norm(nn.Conv2d(1, ndf, 4, 2, 1, bias=False)),
                nn.LeakyReLU(0.2, inplace=True),
                nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2),
                nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())

        def forward(self, x):
            return self.main(x).view(-1, 1).squeeze(1)

    netG, netD = Generator().to(device), Discriminator().to(device)
    netG.apply(weights_init)  # the tutorial's N(0, 0.02) start, then replaced by NumPy values for the comparison
    netD.apply(weights_init)
    init_from_numpy(torch, netG, 1)
    init_from_numpy(torch, netD, 2)
    init_power_iteration_vectors(torch, netD, 3)
    criterion = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real_label, fake_label = 1.0, 0.0
    history = []
    for step in range(3):
        real = numpy_input(torch, 10 + step, 4, 1, 16, 16, device=device).tanh()
        noise = numpy_input(torch, 20 + step, 4, nz, 1, 1, device=device)
        netD.zero_grad()
        label = torch.full((real.size(0),), real_label, dtype=torch.float, device=device)
        errD_real = criterion(netD(real), label)
        errD_real.backward()
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach())
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        optD.step()
        netG.zero_grad()
        label.fill_(real_label)
        errG = criterion(netD(fake), label)
        errG.backward()
        optG.step()
        history.append([(errD_real + errD_fake).item(), errG.item(), D_G_z1])
        log = f"[{step}/3] Loss_D: {errD_real + errD_fake:.3f} Loss_G: {errG:.3f} D(G(z)): {D_G_z1:.3f}"
    running = netG.main[1].running_mean.tolist()
    netD.eval()
    with torch.no_grad():
        scores = netD(fake).tolist()
    return {"history": history, "running_mean": running, "fake_shape": list(fake.shape), "eval_scores": scores,
            "log_words": log.split()[:2], "sn_keys": [k for k in netD.state_dict() if "parametrizations" in k]}


# ---- WGAN-GP (gradient penalty through autograd.grad with create_graph=True) ---------------------------------------
def wgan_gp(torch, device):
    nn = torch.nn
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2)).to(device)
    D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 16), nn.LeakyReLU(0.2),
                      nn.Linear(16, 1)).to(device)
    init_from_numpy(torch, G, 3)
    init_from_numpy(torch, D, 4)
    optD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
    optG = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))

    def gradient_penalty(real, fake, alpha):
        interpolates = (alpha * real + ((1 - alpha) * fake)).requires_grad_(True)
        d_interpolates = D(interpolates)
        grad_outputs = torch.ones(real.shape[0], 1, device=device, requires_grad=False)
        gradients = torch.autograd.grad(outputs=d_interpolates, inputs=interpolates, grad_outputs=grad_outputs,
                                        create_graph=True, retain_graph=True, only_inputs=True)[0]
        gradients = gradients.view(gradients.size(0), -1)
        return ((gradients.norm(2, dim=1) - 1) ** 2).mean()

    history = []
    for step in range(3):
        real = numpy_input(torch, 30 + step, 8, 2, device=device) * 0.5 + 1.0
        for _ in range(2):  # n_critic
            z = numpy_input(torch, 40 + step, 8, 4, device=device)
            fake = G(z).detach()
            alpha = torch.from_numpy(np.random.default_rng(50 + step).uniform(size=(8, 1))).float().to(device)
            gp = gradient_penalty(real, fake, alpha)
            d_loss = -torch.mean(D(real)) + torch.mean(D(fake)) + 10 * gp
            optD.zero_grad()
            d_loss.backward()
            optD.step()
        g_loss = -torch.mean(D(G(z)))
        optG.zero_grad()
        g_loss.backward()
        optG.step()
        history.append([d_loss.item(), gp.item(), g_loss.item()])
    return {"history": history}


# ---- VAE (pytorch/examples vae: reparameterisation, BCE reconstruction with reduction='sum', KL term) ---------------
def vae(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(64, 32)
            self.fc21 = nn.Linear(32, 4)
            self.fc22 = nn.Linear(32, 4)
            self.fc3 = nn.Linear(4, 32)
            self.fc4 = nn.Linear(32, 64)

        def encode(self, x):
            h1 = F.relu(self.fc1(x))
            return self.fc21(h1), self.fc22(h1)

        def reparameterize(self, mu, logvar, eps):
            std = torch.exp(0.5 * logvar)
            return mu + eps * std

        def decode(self, z):
            return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

        def forward(self, x, eps):
            mu, logvar = self.encode(x.view(-1, 64))
            return self.decode(self.reparameterize(mu, logvar, eps)), mu, logvar

    def loss_function(recon_x, x, mu, logvar):
        BCE = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
        KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        return BCE + KLD

    model = VAE().to(device)
    init_from_numpy(torch, model, 5)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = numpy_input(torch, 60, 16, 1, 8, 8, device=device, kind="uniform")
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data), batch_size=8, shuffle=False)
    model.train()
    losses = []
    for epoch in range(2):
        train_loss = 0
        for batch_idx, (x,) in enumerate(loader):
            eps = numpy_input(torch, 70 + 10 * epoch + batch_idx, x.size(0), 4, device=device)
            optimizer.zero_grad()
            recon_batch, mu, logvar = model(x, eps)
            loss = loss_function(recon_batch, x, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
        losses.append(train_loss / len(loader.dataset))
    model.eval()
    with torch.inference_mode():
        sample = model.decode(numpy_input(torch, 99, 3, 4, device=device)).cpu()
        # the same objective through torch.distributions (the 'ELBO with distributions' form of the tutorial)
        x = data[:4].view(-1, 64)
        mu, logvar = model.encode(x)
        q = torch.distributions.Normal(mu, torch.exp(0.5 * logvar))
        p = torch.distributions.Normal(torch.zeros_like(mu), torch.ones_like(mu))
        kl = torch.distributions.kl_divergence(q, p).sum()
        closed_form = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        likelihood = torch.distributions.Independent(
            torch.distributions.ContinuousBernoulli(probs=model.decode(mu).clamp(1e-4, 1 - 1e-4)), 1)
        log_px = likelihood.log_prob(x)
    grid = torch.cat([s for s in sample.view(3, 8, 8)], dim=1).numpy()
    return {"losses": losses, "sample": sample.view(3, 1, 8, 8)[:, 0, 0].tolist(), "kl": kl.item(),
            "closed_form": closed_form.item(), "log_px": log_px.tolist(), "grid": list(grid.shape)}


# ---- DDPM training and sampling step (annotated-diffusion style: cosine schedule, gather on schedules, GroupNorm) ---
def ddpm(torch, device):
    nn, F = torch.nn, torch.nn.functional
    T = 50

    def cosine_beta_schedule(timesteps, s=0.008):
        steps = timesteps + 1
        x = torch.linspace(0, timesteps, steps, dtype=torch.float64)
        alphas_cumprod = torch.cos(((x / timesteps) + s) / (1 + s) * math.pi * 0.5) ** 2
        alphas_cumprod = alphas_cumprod / alphas_cumprod[0]
        betas = 1 - (alphas_cumprod[1:] / alphas_cumprod[:-1])
        return torch.clip(betas, 0.0001, 0.9999).float()

    betas = cosine_beta_schedule(T)
    alphas = 1.0 - betas
    alphas_cumprod = torch.cumprod(alphas, axis=0)
    alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
    sqrt_recip_alphas = torch.sqrt(1.0 / alphas)
    sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
    sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)
    posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)

    def extract(a, t, x_shape):
        batch_size = t.shape[0]
        out = a.gather(-1, t.cpu())
        return out.reshape(batch_size, *((1,) * (len(x_shape) - 1))).to(t.device)

    class SinusoidalPositionEmbeddings(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim

        def forward(self, time):
            half_dim = self.dim // 2
            embeddings = math.log(10000) / (half_dim - 1)
            embeddings = torch.exp(torch.arange(half_dim, device=time.device) * -embeddings)
            embeddings = time[:, None] * embeddings[None, :]
            return torch.cat((embeddings.sin(), embeddings.cos()), dim=-1)

    class Block(nn.Module):
        def __init__(self, dim, dim_out, time_dim):
            super().__init__()
            self.mlp = nn.Sequential(nn.SiLU(), nn.Linear(time_dim, dim_out * 2))
            self.proj = nn.Conv2d(dim, dim_out, 3, padding=1)
            self.norm = nn.GroupNorm(4, dim_out)
            self.act = nn.SiLU()
            self.res_conv = nn.Conv2d(dim, dim_out, 1) if dim != dim_out else nn.Identity()

        def forward(self, x, time_emb):
            scale, shift = self.mlp(time_emb)[:, :, None, None].chunk(2, dim=1)
            h = self.norm(self.proj(x))
            h = self.act(h * (scale + 1) + shift)
            return h + self.res_conv(x)

    class Attention(nn.Module):
        def __init__(self, dim, heads=2):
            super().__init__()
            self.heads = heads
            self.norm = nn.GroupNorm(1, dim)
            self.to_qkv = nn.Conv2d(dim, dim * 3, 1, bias=False)
            self.to_out = nn.Conv2d(dim, dim, 1)

        def forward(self, x):
            b, c, h, w = x.shape
            qkv = self.to_qkv(self.norm(x)).chunk(3, dim=1)
            q, k, v = (t.reshape(b, self.heads, c // self.heads, h * w).transpose(-1, -2) for t in qkv)
            out = F.scaled_dot_product_attention(q, k, v)
            out = out.transpose(-1, -2).reshape(b, c, h, w)
            return self.to_out(out) + x

    class Denoiser(nn.Module):
        def __init__(self):
            super().__init__()
            self.time_mlp = nn.Sequential(SinusoidalPositionEmbeddings(16), nn.Linear(16, 32), nn.GELU(),
                                          nn.Linear(32, 32))
            self.b1 = Block(1, 8, 32)
            self.attn = Attention(8)
            self.b2 = Block(8, 8, 32)
            self.out = nn.Conv2d(8, 1, 1)

        def forward(self, x, t):
            emb = self.time_mlp(t)
            h = torch.utils.checkpoint.checkpoint(self.b1, x, emb, use_reentrant=False)
            return self.out(self.b2(self.attn(h), emb))

    model = Denoiser().to(device)
    init_from_numpy(torch, model, 6)
    ema = copy.deepcopy(model)
    ema.requires_grad_(False)
    swa_ema = torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / 2))
    rng = np.random.default_rng(7)
    losses = []
    for step in range(3):
        x_start = numpy_input(torch, 80 + step, 4, 1, 8, 8, device=device)
        t = torch.from_numpy(rng.integers(0, T, size=(4,))).to(device).long()
        noise = numpy_input(torch, 90 + step, 4, 1, 8, 8, device=device)
        x_noisy = (extract(sqrt_alphas_cumprod, t, x_start.shape) * x_start
                   + extract(sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise)
        loss = F.smooth_l1_loss(noise, model(x_noisy, t))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        warmup.step()
        with torch.no_grad():
            for p_ema, p in zip(ema.parameters(), model.parameters()):
                p_ema.mul_(0.9).add_(p, alpha=0.1)
        swa_ema.update_parameters(model)
        losses.append(loss.item())

    @torch.no_grad()
    def p_sample(x, t, t_index):
        betas_t = extract(betas, t, x.shape)
        sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x.shape)
        sqrt_recip_alphas_t = extract(sqrt_recip_alphas, t, x.shape)
        model_mean = sqrt_recip_alphas_t * (x - betas_t * ema(x, t) / sqrt_one_minus_alphas_cumprod_t)
        if t_index == 0:
            return model_mean
        posterior_variance_t = extract(posterior_variance, t, x.shape)
        return model_mean + torch.sqrt(posterior_variance_t) * numpy_input(torch, 200 + t_index, *x.shape,
                                                                           device=device)

    img = numpy_input(torch, 100, 2, 1, 8, 8, device=device)
    for i in reversed(range(0, 3)):
        img = p_sample(img, torch.full((2,), i, device=device, dtype=torch.long), i)
    ema_gap = max((a - b).abs().max().item() for a, b in zip(ema.parameters(), swa_ema.module.parameters()))
    return {"losses": losses, "betas": betas[:5].tolist(), "img_mean": img.mean().item(),
            "img_std": img.std().item(), "n_averaged": int(swa_ema.n_averaged), "lr": warmup.get_last_lr(),
            "ema_gap": ema_gap, "noise_like": list(torch.randn_like(img).shape)}


# ---- U-Net (milesial/Pytorch-UNet's blocks: ConvTranspose2d or bilinear upsampling, pad, torch.cat skip, dice) ----
def unet(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class DoubleConv(nn.Module):
        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.double_conv = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True),
                nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels), nn.ReLU(inplace=True))

        def forward(self, x):
            return self.double_conv(x)

    class Up(nn.Module):
        def __init__(self, in_channels, out_channels, bilinear):
            super().__init__()
            if bilinear:
                self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            else:
                self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels)  # in_channels: both halves of the cat

        def forward(self, x1, x2):
            x1 = self.up(x1)
            diffY = x2.size()[2] - x1.size()[2]
            diffX = x2.size()[3] - x1.size()[3]
            x1 = F.pad(x1, [diffX // 2, diffX - diffX // 2, diffY // 2, diffY - diffY // 2])
            return self.conv(torch.cat([x2, x1], dim=1))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.inc = DoubleConv(2, 4)
            self.down = nn.Sequential(nn.MaxPool2d(2), DoubleConv(4, 8))
            self.up1 = Up(8, 4, bilinear=False)
            self.up2 = Up(8, 4, bilinear=True)
            self.outc = nn.Conv2d(4, 1, kernel_size=1)

        def forward(self, x):
            x1 = self.inc(x)
            x2 = self.down(x1)
            y = self.up1(x2, x1)
            # a second decoder path from a half-size map with F.interpolate, the way many U-Net variants resize
            small = F.interpolate(y, scale_factor=0.5, mode="bilinear", align_corners=False)
            return self.outc(self.up2(small, y))

    def dice_loss(logits, target, eps=1e-6):
        prob = torch.sigmoid(logits).flatten(1)
        target = target.flatten(1)
        inter = (prob * target).sum(dim=1)
        return 1 - ((2 * inter + eps) / (prob.sum(dim=1) + target.sum(dim=1) + eps)).mean()

    model = UNet().to(device=device, memory_format=torch.channels_last)
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    init_from_numpy(torch, model, 8)
    bottleneck = []
    hook = model.down.register_forward_hook(lambda module, args, output: bottleneck.append(output.abs().mean().item()))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-8, nesterov=True)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    criterion = nn.BCEWithLogitsLoss()
    images = numpy_input(torch, 110, 2, 2, 10, 10, device=device)
    masks = (numpy_input(torch, 111, 2, 1, 10, 10, device=device) > 0).float()
    images = torch.cat([images, torch.flip(images, dims=[3])])  # horizontal-flip augmentation
    masks = torch.cat([masks, masks.flip(-1)])
    losses = []
    for epoch in range(3):
        masks_pred = model(images.to(memory_format=torch.channels_last))
        loss = criterion(masks_pred, masks) + dice_loss(masks_pred, masks)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    hook.remove()
    pred = (torch.sigmoid(masks_pred) > 0.5).float()
    return {"losses": losses, "bottleneck": bottleneck, "lr": scheduler.get_last_lr(), "pixels_on": pred.sum().item(),
            "shape": list(masks_pred.shape)}


# ---- RealNVP affine coupling flow (log-determinant sums, masks as buffers, a Normal prior) -------------------------
def realnvp(torch, device):
    nn = torch.nn

    class Coupling(nn.Module):
        def __init__(self, mask):
            super().__init__()
            self.register_buffer("mask", mask)
            self.s = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(), nn.Linear(16, 2), nn.Tanh())
            self.t = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(), nn.Linear(16, 2))

        def forward(self, x):  # data -> latent
            x_ = x * self.mask
            s = self.s(x_) * (1 - self.mask)
            t = self.t(x_) * (1 - self.mask)
            z = x_ + (1 - self.mask) * (x - t) * torch.exp(-s)
            return z, -s.sum(dim=1)

        def inverse(self, z):
            z_ = z * self.mask
            s = self.s(z_) * (1 - self.mask)
            t = self.t(z_) * (1 - self.mask)
            return z_ + (1 - self.mask) * (z * torch.exp(s) + t)

    class InvertibleLinear(nn.Module):  # Glow's invertible 1x1 convolution on 2 channels
        def __init__(self, dim):
            super().__init__()
            w = torch.linalg.qr(torch.randn(dim, dim))[0]
            self.weight = nn.Parameter(w)

        def forward(self, x):
            return x @ self.weight.T, torch.linalg.slogdet(self.weight)[1].expand(x.shape[0])

        def inverse(self, z):
            return z @ torch.linalg.inv(self.weight).T

    class RealNVP(nn.Module):
        def __init__(self):
            super().__init__()
            masks = torch.tensor([[0, 1], [1, 0]] * 2, dtype=torch.float32)
            self.layers = nn.ModuleList([Coupling(m) for m in masks] + [InvertibleLinear(2)])
            self.prior = torch.distributions.MultivariateNormal(torch.zeros(2, device=device),
                                                                torch.eye(2, device=device))

        def log_prob(self, x):
            log_det = torch.zeros(x.shape[0], device=x.device)
            for layer in reversed(self.layers):
                x, ld = layer(x)
                log_det += ld
            return self.prior.log_prob(x) + log_det

        def sample(self, z):
            for layer in self.layers:
                z = layer.inverse(z)
            return z

    flow = RealNVP().to(device)
    init_from_numpy(torch, flow, 9)
    with torch.no_grad():  # keep the mixing layer well conditioned
        flow.layers[-1].weight.add_(torch.eye(2, device=device))
    optimizer = torch.optim.Adam([p for p in flow.parameters() if p.requires_grad], lr=1e-3)
    rng = np.random.default_rng(12)
    losses = []
    for step in range(4):
        angle = rng.uniform(0, 2 * np.pi, size=64)
        moons = np.stack([np.cos(angle), np.sin(angle)], 1) + 0.1 * rng.standard_normal((64, 2))
        x = torch.from_numpy(moons.astype(np.float32)).to(device)
        loss = -flow.log_prob(x).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    z = numpy_input(torch, 13, 5, 2, device=device)
    with torch.no_grad():
        round_trip = flow.log_prob(flow.sample(z))
    mixture = torch.logsumexp(torch.stack([round_trip, round_trip - 1.0]), dim=0) - math.log(2)
    return {"losses": losses, "round_trip": round_trip.tolist(), "buffers": sorted(flow.state_dict())[:2],
            "mixture": mixture.tolist()}


# ---- neural style transfer (the PyTorch tutorial: gram matrices, a frozen feature net, LBFGS with a closure) -------
def style_transfer(torch, device):
    nn, F = torch.nn, torch.nn.functional

    def gram_matrix(input):
        a, b, c, d = input.size()
        features = input.view(a * b, c * d)
        G = torch.mm(features, features.t())
        return G.div(a * b * c * d)

    class ContentLoss(nn.Module):
        def __init__(self, target):
            super().__init__()
            self.target = target.detach()

        def forward(self, input):
            self.loss = F.mse_loss(input, self.target)
            return input

    class StyleLoss(nn.Module):
        def __init__(self, target_feature):
            super().__init__()
            self.target = gram_matrix(target_feature).detach()

        def forward(self, input):
            self.loss = F.mse_loss(gram_matrix(input), self.target)
            return input

    class Normalization(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def forward(self, img):
            return (img - self.mean) / self.std

    cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(),
                        nn.MaxPool2d(2), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
    init_from_numpy(torch, cnn, 14)
    cnn = cnn.to(device).eval()
    content_img = numpy_input(torch, 15, 1, 3, 12, 12, device=device, kind="uniform")
    style_img = numpy_input(torch, 16, 1, 3, 12, 12, device=device, kind="uniform")
    cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406]).to(device)
    cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225]).to(device)
    with warnings.catch_warnings():  # torch.tensor(a tensor) warns "To copy construct from a tensor, ..."
        warnings.simplefilter("ignore", UserWarning)
        normalization = Normalization(cnn_normalization_mean, cnn_normalization_std)
    model = nn.Sequential(normalization)
    content_losses, style_losses = [], []
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = "conv_{}".format(i)
        elif isinstance(layer, nn.ReLU):
            name = "relu_{}".format(i)
            layer = nn.ReLU(inplace=False)
        else:
            name = "pool_{}".format(i)
        model.add_module(name, layer)
        if name == "conv_2":
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)
        if name in ("conv_1", "conv_3"):
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)
    input_img = content_img.clone()
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = torch.optim.LBFGS([input_img], max_iter=6)  # the tutorial's default 20 (x 300 runs) is chaotic
    scores = []
    for run in range(2):
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = sum(sl.loss for sl in style_losses) * 1000
            content_score = sum(cl.loss for cl in content_losses)
            loss = style_score + content_score
            loss.backward()
            return style_score + content_score

        scores.append(optimizer.step(closure).item())
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return {"scores": scores, "pixel_sum": input_img.sum().item(),
            "n_iter": optimizer.state[optimizer.param_groups[0]["params"][0]]["n_iter"]}


# ---- super-resolution (pytorch/examples super_resolution: ESPCN with PixelShuffle, PSNR from the MSE) -------------
def super_resolution(torch, device):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self, upscale_factor):
            super().__init__()
            self.relu = nn.ReLU()
            self.conv1 = nn.Conv2d(1, 16, (5, 5), (1, 1), (2, 2))
            self.conv2 = nn.Conv2d(16, 16, (3, 3), (1, 1), (1, 1))
            self.conv3 = nn.Conv2d(16, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
            self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        def forward(self, x):
            x = self.relu(self.conv1(x))
            x = self.relu(self.conv2(x))
            return self.pixel_shuffle(self.conv3(x))

    model = Net(upscale_factor=2).to(device)
    init_from_numpy(torch, model, 17)
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[1, 2], gamma=0.1)
    target = numpy_input(torch, 18, 4, 1, 12, 12, device=device, kind="uniform")
    # the low-resolution input: the target downscaled with PixelUnshuffle and a mean over the phases
    low = nn.PixelUnshuffle(2)(target).mean(dim=1, keepdim=True)
    losses = []
    for epoch in range(3):
        optimizer.zero_grad()
        loss = criterion(model(low), target)
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    with torch.no_grad():
        mse = criterion(model(low), target)
        psnr = 10 * math.log10(1 / mse.item())
    return {"losses": losses, "psnr": psnr, "lr": optimizer.param_groups[0]["lr"],
            "shape": list(model(low).shape)}


# ---- GCN (Kipf & Welling: symmetric normalisation by degree, scatter_add_/index_add_ and a sparse adjacency) ------
def gcn(torch, device):
    nn, F = torch.nn, torch.nn.functional
    rng = np.random.default_rng(19)
    n, n_feat, n_class = 12, 6, 3
    src = rng.integers(0, n, size=30)
    dst = rng.integers(0, n, size=30)
    edge_index = torch.tensor(np.stack([np.concatenate([src, dst]), np.concatenate([dst, src])]), device=device)
    self_loops = torch.arange(n, device=device).unsqueeze(0).repeat(2, 1)
    edge_index = torch.cat([edge_index, self_loops], dim=1)
    x = numpy_input(torch, 20, n, n_feat, device=device)
    y = torch.tensor(rng.integers(0, n_class, size=n), device=device)
    train_mask = torch.zeros(n, dtype=torch.bool, device=device)
    train_mask[:8] = True

    row, col = edge_index
    deg = torch.zeros(n, device=device).scatter_add_(0, col, torch.ones(col.size(0), device=device))
    deg_inv_sqrt = deg.pow(-0.5)
    deg_inv_sqrt[deg_inv_sqrt == float("inf")] = 0
    norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]
    adj = torch.sparse_coo_tensor(edge_index, norm, (n, n)).coalesce()

    class GCNConv(nn.Module):
        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.lin = nn.Linear(in_channels, out_channels, bias=False)
            self.bias = nn.Parameter(torch.empty(out_channels))

        def forward(self, x):  # message passing by index_add_
            h = self.lin(x)
            out = torch.zeros_like(h).index_add_(0, col, norm.view(-1, 1) * h[row])
            return out + self.bias

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = GCNConv(n_feat, 8)
            self.conv2 = GCNConv(8, n_class)

        def forward(self, x):
            x = F.relu(self.conv1(x))
            x = F.dropout(x, p=0.5, training=False)
            return F.log_softmax(self.conv2(x), dim=1)

    model = GCN().to(device)
    init_from_numpy(torch, model, 21)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
    losses = []
    for epoch in range(5):
        model.train()
        optimizer.zero_grad()
        out = model(x)
        loss = F.nll_loss(out[train_mask], y[train_mask])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    class GATConv(nn.Module):  # one attention head, softmax over each node's incoming edges
        def __init__(self, in_channels, out_channels):
            super().__init__()
            self.lin = nn.Linear(in_channels, out_channels, bias=False)
            self.att_src = nn.Parameter(torch.empty(1, out_channels))
            self.att_dst = nn.Parameter(torch.empty(1, out_channels))

        def forward(self, x):
            h = self.lin(x)
            alpha = F.leaky_relu((h * self.att_src).sum(-1)[row] + (h * self.att_dst).sum(-1)[col], 0.2)
            alpha_max = alpha.new_zeros(n).scatter_reduce(0, col, alpha, reduce="amax", include_self=False)
            alpha = (alpha - alpha_max[col]).exp()
            alpha = alpha / alpha.new_zeros(n).index_add(0, col, alpha)[col]
            out = torch.zeros_like(h)
            out.index_put_((col,), alpha.unsqueeze(-1) * h[row], accumulate=True)
            return out, alpha

    gat = GATConv(n_feat, n_class).to(device)
    init_from_numpy(torch, gat, 36)
    gat_opt = torch.optim.Adam(gat.parameters(), lr=0.01)
    gat_losses = []
    for epoch in range(3):
        gat_opt.zero_grad()
        out, alpha = gat(x)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        loss.backward()
        gat_opt.step()
        gat_losses.append(loss.item())
    in_degree = torch.bincount(col, minlength=n)
    model.eval()
    pred = model(x).argmax(dim=1)
    correct = (pred[~train_mask] == y[~train_mask]).sum()
    # the same first layer through the sparse adjacency: A_hat @ (X W)
    h = model.conv1.lin(x)
    sparse_out = torch.sparse.mm(adj, h) + model.conv1.bias
    dense_out = adj.to_dense() @ h + model.conv1.bias
    csr_out = adj.to_sparse_csr() @ h.detach()
    return {"losses": losses, "correct": int(correct), "deg": deg.tolist(),
            "sparse": sparse_out.detach().flatten().tolist(), "dense": dense_out.detach().flatten().tolist(),
            "nnz": adj._nnz(), "csr": csr_out.flatten().tolist(), "gat_losses": gat_losses,
            "in_degree": in_degree.tolist(), "alpha_sum": alpha.sum().item()}


# ---- recommender (DLRM-style: EmbeddingBag over multi-hot items with offsets, user Embedding, BCEWithLogitsLoss) ---
def recommender(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class Recommender(nn.Module):
        def __init__(self, n_users, n_items, dim):
            super().__init__()
            self.user = nn.Embedding(n_users, dim)
            self.history = nn.EmbeddingBag(n_items, dim, mode="mean")
            self.genres = nn.EmbeddingBag(5, dim, mode="sum", padding_idx=0)
            self.item = nn.Embedding(n_items, dim)
            self.item_bias = nn.Embedding(n_items, 1)
            self.mlp = nn.Sequential(nn.Linear(3 * dim, 16), nn.ReLU(), nn.Linear(16, 1))

        def forward(self, users, history, offsets, items, genres, genre_weights):
            u = self.user(users) + self.genres(genres, per_sample_weights=genre_weights)
            h = self.history(history, offsets)
            v = self.item(items)
            dot = (u * v).sum(dim=1, keepdim=True)
            return (self.mlp(torch.cat([u, h, v], dim=1)) + dot + self.item_bias(items)).squeeze(1)

    rng = np.random.default_rng(22)
    model = Recommender(10, 20, 4).to(device)
    init_from_numpy(torch, model, 23)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05)
    criterion = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0], device=device))
    losses, aucs = [], []
    for step in range(4):
        lengths = rng.integers(1, 5, size=6)
        history = torch.tensor(rng.integers(0, 20, size=int(lengths.sum())), device=device)
        offsets = torch.tensor(np.concatenate([[0], np.cumsum(lengths)[:-1]]), device=device)
        users = torch.tensor(rng.integers(0, 10, size=6), device=device)
        items = torch.tensor(rng.integers(0, 20, size=6), device=device)
        labels = torch.tensor(rng.integers(0, 2, size=6), device=device).float()
        genres = torch.tensor(rng.integers(0, 5, size=(6, 3)), device=device)
        genre_weights = torch.tensor(rng.uniform(0.5, 1.5, size=(6, 3)), dtype=torch.float32, device=device)
        logits = model(users, history, offsets, items, genres, genre_weights)
        loss = criterion(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        scores = torch.sigmoid(logits).detach().cpu().numpy()
        aucs.append(float(((scores > 0.5) == labels.cpu().numpy().astype(bool)).mean()))
    topk = torch.topk(model.item_bias.weight.squeeze(1), k=3)
    with torch.no_grad():  # retrieval: the items nearest to user 0, by distance and by cosine similarity
        item_vectors = model.item.weight
        distances = torch.cdist(model.user.weight[:1], item_vectors).squeeze(0)
        cosine = F.cosine_similarity(model.user.weight[:1], item_vectors, dim=-1)
    return {"losses": losses, "acc": aucs, "topk": topk.indices.tolist(), "top_values": topk.values.tolist(),
            "nearest": distances.argsort()[:3].tolist(), "most_similar": cosine.argmax().item(),
            "padding_row": model.genres.weight[0].abs().sum().item()}


# ---- temporal convolutional network (locuslab/TCN: dilated causal Conv1d, weight_norm, Chomp1d, residuals) --------
def tcn(torch, device):
    nn = torch.nn
    weight_norm = torch.nn.utils.parametrizations.weight_norm

    class Chomp1d(nn.Module):
        def __init__(self, chomp_size):
            super().__init__()
            self.chomp_size = chomp_size

        def forward(self, x):
            return x[:, :, :-self.chomp_size].contiguous()

    class TemporalBlock(nn.Module):
        def __init__(self, n_inputs, n_outputs, kernel_size, dilation):
            super().__init__()
            padding = (kernel_size - 1) * dilation
            if dilation == 1:  # locuslab's code, written before torch.nn.utils.parametrizations existed
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", FutureWarning)
                    self.conv1 = torch.nn.utils.weight_norm(
                        nn.Conv1d(n_inputs, n_outputs, kernel_size, padding=padding, dilation=dilation))
            else:
                self.conv1 = weight_norm(
                    nn.Conv1d(n_inputs, n_outputs, kernel_size, padding=padding, dilation=dilation))
            self.conv2 = weight_norm(nn.Conv1d(n_outputs, n_outputs, kernel_size, padding=padding,
                                               dilation=dilation))
            self.net = nn.Sequential(self.conv1, Chomp1d(padding), nn.ReLU(), nn.Dropout(0.0),
                                     self.conv2, Chomp1d(padding), nn.ReLU(), nn.Dropout(0.0))
            self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
            self.relu = nn.ReLU()

        def forward(self, x):
            out = self.net(x)
            res = x if self.downsample is None else self.downsample(x)
            return self.relu(out + res)

    class TCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.network = nn.Sequential(*[TemporalBlock(1 if i == 0 else 8, 8, 3, 2 ** i) for i in range(3)])
            self.linear = nn.Linear(8, 1)

        def forward(self, x):
            return self.linear(self.network(x)[:, :, -1])

    model = TCN().to(device)
    init_from_numpy(torch, model, 24)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [
        torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.25, total_iters=2),
        torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3)], milestones=[2])
    t = np.linspace(0, 8 * np.pi, 60)
    rng = np.random.default_rng(25)
    signal = torch.from_numpy(np.sin(t) + 0.3 * np.sin(3 * t) + 0.1 * rng.standard_normal(60)).float()
    low, high = torch.quantile(signal, torch.tensor([0.05, 0.95]))
    signal = ((signal - low) / (high - low)).clamp(0, 1)
    windows = signal.unfold(0, 40, 2)  # (11, 40) sliding windows, stride 2
    x = windows[:, :-1].unsqueeze(1).to(device)
    y = windows[:, -1:].to(device)
    losses = []
    for epoch in range(4):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    names = [k for k in model.state_dict() if "parametrizations" in k or k.endswith(("_g", "_v"))][:4]
    return {"losses": losses, "names": names, "lr": scheduler.get_last_lr()[0],
            "weight": model.network[0].conv1.weight.sum().item()}


# ---- MAML (torch.func.functional_call with an adapted parameter dict; second-order grads through the inner step) --
def maml(torch, device):
    nn, F = torch.nn, torch.nn.functional
    functional_call = torch.func.functional_call

    model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1)).to(device)
    init_from_numpy(torch, model, 26)
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(27)
    inner_lr = 0.01

    def task(n):
        amp, phase = rng.uniform(0.1, 5.0), rng.uniform(0, np.pi)
        xs = rng.uniform(-5, 5, size=(2 * n, 1))
        ys = amp * np.sin(xs + phase)
        as_t = lambda a: torch.tensor(a, dtype=torch.float32, device=device)  # noqa: E731
        return as_t(xs[:n]), as_t(ys[:n]), as_t(xs[n:]), as_t(ys[n:])

    meta_losses = []
    for it in range(3):
        meta_opt.zero_grad()
        total = 0.0
        for _ in range(2):
            x_s, y_s, x_q, y_q = task(5)
            params = dict(model.named_parameters())
            for _ in range(2):
                inner_loss = F.mse_loss(functional_call(model, params, (x_s,)), y_s)
                grads = torch.autograd.grad(inner_loss, params.values(), create_graph=True)
                params = {name: p - inner_lr * g for (name, p), g in zip(params.items(), grads)}
            outer = F.mse_loss(functional_call(model, params, (x_q,)), y_q)
            outer.backward()
            total += outer.item()
        meta_opt.step()
        meta_losses.append(total / 2)

    # first-order variant over a batch of tasks at once: torch.func.grad inside torch.func.vmap
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = dict(model.named_buffers())

    def task_loss(p, xs, ys):
        return F.mse_loss(functional_call(model, (p, buffers), (xs,)), ys)

    tasks = [task(4) for _ in range(3)]
    xs = torch.stack([t_[0] for t_ in tasks])
    ys = torch.stack([t_[1] for t_ in tasks])
    per_task = torch.func.vmap(torch.func.grad(task_loss), in_dims=(None, 0, 0))(params, xs, ys)
    return {"meta_losses": meta_losses, "grad_norm": model[0].weight.grad.norm().item(),
            "per_task_shapes": {k: list(v.shape) for k, v in per_task.items()},
            "per_task_norms": per_task["0.weight"].flatten(1).norm(dim=1).tolist()}


# ---- tabular MLP (a pandas frame: one-hot categoricals, standardised numbers, TensorDataset and DataLoader) -------
def tabular(torch, device):
    import pandas as pd
    nn = torch.nn
    rng = np.random.default_rng(28)
    df = pd.DataFrame({"age": rng.integers(18, 70, 48), "income": rng.normal(50_000, 15_000, 48),
                       "city": rng.choice(["paris", "rome", "oslo"], 48), "owner": rng.choice([True, False], 48)})
    df["label"] = ((df["income"] > 50_000) & (df["age"] > 30)).astype(int) + (df["city"] == "oslo").astype(int)
    features = pd.get_dummies(df.drop(columns="label"), columns=["city"], dtype=float)
    features["owner"] = features["owner"].astype(float)
    numeric = ["age", "income"]
    features[numeric] = (features[numeric] - features[numeric].mean()) / features[numeric].std()
    # features.values mixes bools and floats: an object array, which torch.tensor takes with an explicit dtype
    X = torch.tensor(features.values.astype(np.float32), dtype=torch.float32)
    y = torch.tensor(df["label"])  # a Series straight in, read by position as a sequence

    class FrameDataset(torch.utils.data.Dataset):
        def __init__(self, frame, labels):
            self.x = frame.to_numpy(dtype=np.float32)
            self.y = labels.to_numpy()

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return {"x": torch.from_numpy(self.x[i]), "y": int(self.y[i]), "row": i}

    dataset = FrameDataset(features, df["label"])
    train_ds = torch.utils.data.Subset(dataset, list(range(32)))
    loader = torch.utils.data.DataLoader(train_ds, batch_size=8, shuffle=False, drop_last=True)
    model = nn.Sequential(nn.Linear(X.shape[1], 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.0),
                          nn.Linear(16, 3)).to(device)
    init_from_numpy(torch, model, 29)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=0)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    epoch_losses = []
    for epoch in range(3):
        model.train()
        running = 0.0
        for batch in loader:
            xb, yb = batch["x"].to(device), batch["y"].to(device)
            optimizer.zero_grad()
            loss = criterion(model(xb), yb)
            loss.backward()
            optimizer.step()
            running += loss.item() * xb.size(0)
        epoch_losses.append(running / len(loader.dataset))
        model.eval()
        with torch.no_grad():
            val_loss = criterion(model(X[32:].to(device)), y[32:].to(device)).item()
        scheduler.step(val_loss)
    with torch.no_grad():
        probs = torch.softmax(model(X[32:].to(device)), dim=1).cpu().numpy()
    frame = pd.DataFrame(probs, columns=["p0", "p1", "p2"])
    first = next(iter(loader))
    return {"epoch_losses": epoch_losses, "lr": optimizer.param_groups[0]["lr"],
            "pred": frame.values.argmax(1).tolist(), "p_mean": frame.mean().tolist(),
            "batch_types": [str(first["y"].dtype).split(".")[-1], first["row"].tolist()[:3], len(first["x"])]}


# ---- mixed precision (torch.autocast in bfloat16 and a GradScaler, as the AMP recipe writes the loop) -------------
def mixed_precision(torch, device):
    nn = torch.nn
    device_type = torch.device(device).type
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4)).to(device)
    init_from_numpy(torch, model, 30)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    scaler = torch.amp.GradScaler(device_type, init_scale=2.0 ** 8)
    x = numpy_input(torch, 31, 8, 16, device=device)
    target = torch.tensor(np.random.default_rng(32).integers(0, 4, size=8), device=device)
    losses, dtypes, scales = [], [], []
    for step in range(4):
        optimizer.zero_grad()
        with torch.autocast(device_type=device_type, dtype=torch.bfloat16):
            output = model(x)
            loss = nn.functional.cross_entropy(output, target)
            if step == 0:  # an overflow: the scaler must skip this step and halve its scale
                loss = loss * float("inf")
        dtypes.append([str(output.dtype).split(".")[-1], str(loss.dtype).split(".")[-1]])
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        scaler.step(optimizer)
        scaler.update()
        scales.append(scaler.get_scale())
        losses.append(loss.item())
    restored = torch.amp.GradScaler(device_type)
    restored.load_state_dict(scaler.state_dict())
    return {"losses": losses, "dtypes": dtypes, "scale": scaler.get_scale(), "scales": scales,
            "restored": [restored.get_scale(), restored.get_growth_factor(), restored.get_backoff_factor()],
            "grad_dtype": str(model[0].weight.grad.dtype).split(".")[-1]}


# ---- checkpointing (save model, optimizer and scheduler state mid-training, resume in a fresh process's objects) ---
def checkpoint_resume(torch, device):
    nn = torch.nn

    def build():
        model = nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.BatchNorm1d(4), nn.ReLU(), nn.Flatten(),
                              nn.Linear(4 * 6, 2)).to(device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01, amsgrad=True)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.05, total_steps=8)
        return model, optimizer, scheduler

    x = numpy_input(torch, 33, 5, 2, 6, device=device)
    y = numpy_input(torch, 34, 5, 2, device=device)

    def train(model, optimizer, scheduler, steps):
        out = []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            out.append(loss.item())
        return out

    model, optimizer, scheduler = build()
    init_from_numpy(torch, model, 35)
    straight = train(model, optimizer, scheduler, 2)
    buffer = io.BytesIO()
    torch.save({"epoch": 2, "model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "loss": straight[-1]}, buffer)
    straight += train(model, optimizer, scheduler, 3)

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "last.pt")
        torch.save(model.state_dict(), path)
        reloaded = torch.load(path, map_location=lambda storage, loc: storage, weights_only=True, mmap=True)
        same = all(torch.equal(reloaded[k].to(v.device), v) for k, v in model.state_dict().items())
        partial = nn.Sequential(nn.Conv1d(2, 4, 3, padding=1), nn.BatchNorm1d(4)).to(device)
        result = partial.load_state_dict(reloaded, strict=False)
    buffer.seek(0)
    checkpoint = torch.load(buffer, map_location=device, weights_only=True)
    model2, optimizer2, scheduler2 = build()
    model2.load_state_dict(checkpoint["model_state_dict"])
    optimizer2.load_state_dict(checkpoint["optimizer_state_dict"])
    scheduler2.load_state_dict(checkpoint["scheduler"])
    resumed = train(model2, optimizer2, scheduler2, 3)
    state = optimizer2.state_dict()["state"][0]
    return {"straight": straight, "resumed": resumed, "epoch": checkpoint["epoch"],
            "state_keys": sorted(state), "step": float(state["step"]),
            "bn_batches": int(model2[1].num_batches_tracked), "lr": scheduler2.get_last_lr(),
            "file_round_trip": same, "missing": result.missing_keys, "unexpected": result.unexpected_keys}


# ---- sparse embedding gradients (the torch.optim.SparseAdam docs: Embedding(sparse=True) rows updated lazily) -----
def sparse_embeddings(torch, device):
    nn = torch.nn

    class MatrixFactorization(nn.Module):
        def __init__(self, n_users, n_items, dim):
            super().__init__()
            self.user = nn.Embedding(n_users, dim, sparse=True)
            self.item = nn.Embedding(n_items, dim, sparse=True)
            self.head = nn.Linear(1, 1)

        def forward(self, users, items):
            return self.head((self.user(users) * self.item(items)).sum(1, keepdim=True)).squeeze(1)

    model = MatrixFactorization(8, 12, 4).to(device)
    init_from_numpy(torch, model, 37)
    sparse_params = list(model.user.parameters()) + list(model.item.parameters())
    sparse_opt = torch.optim.SparseAdam(sparse_params, lr=0.05)
    dense_opt = torch.optim.Adam(model.head.parameters(), lr=0.05)
    rng = np.random.default_rng(38)
    losses = []
    for step in range(3):
        users = torch.tensor(rng.integers(0, 8, size=5), device=device)
        items = torch.tensor(rng.integers(0, 12, size=5), device=device)
        ratings = torch.tensor(rng.uniform(1, 5, size=5), dtype=torch.float32, device=device)
        loss = nn.functional.mse_loss(model(users, items), ratings)
        sparse_opt.zero_grad()
        dense_opt.zero_grad()
        loss.backward()
        grad = model.user.weight.grad
        sparse_opt.step()
        dense_opt.step()
        losses.append(loss.item())
    untouched = sorted(set(range(12)) - set(items.tolist()))
    return {"losses": losses, "grad_layout": str(grad.layout).split(".")[-1],
            "grad_rows": grad.coalesce().indices().flatten().tolist(), "untouched_rows": untouched}


# ---- the harness --------------------------------------------------------------------------------------------------
PROGRAMS = [dcgan, wgan_gp, vae, ddpm, unet, realnvp, style_transfer, super_resolution, gcn, recommender, tcn, maml,
            tabular, mixed_precision, checkpoint_resume, sparse_embeddings]

# float32 programs: the two libraries sum and fuse in different orders (about 1e-7 relative per op); a few
# optimiser steps amplify that, so 1e-4 relative is still far below any real difference (a wrong op or a missed
# step moves losses by 1e-2 or more). The bfloat16 program rounds each autocast matmul to 8 bits of mantissa, and
# the two libraries may round at different points, so it gets bfloat16's resolution (2**-8 ~ 4e-3) times a few.
_TOLERANCE = {"mixed_precision": dict(rel=2e-2, abs=2e-2)}
_DEFAULT_TOLERANCE = dict(rel=1e-4, abs=1e-5)
_reference = {}


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_program_matches_pytorch(program, device):
    if program.__name__ not in _reference:
        _reference[program.__name__] = program(real_torch, "cpu")
    got = program(tandem, device)
    assert_same_results(got, _reference[program.__name__],
                        _TOLERANCE.get(program.__name__, _DEFAULT_TOLERANCE))


# The same programs with float64 as the default dtype (those that do not name float32 themselves): rounding
# differences shrink by nine orders of magnitude, so a formula that is slightly off (an epsilon, a bias
# correction, a clipping factor) shows. They keep a few float32 pieces (the DDPM schedule's .float(), the U-Net
# masks' .float(), whose BCEWithLogitsLoss PyTorch computes in the target's float32), hence 1e-6 and not 1e-12.
_DTYPE_GENERIC = [wgan_gp, vae, ddpm, unet, style_transfer, super_resolution, gcn, checkpoint_resume]


def _in_float64(lib, program, device):
    previous = lib.get_default_dtype()
    lib.set_default_dtype(lib.float64)
    try:
        return program(lib, device)
    finally:
        lib.set_default_dtype(previous)


@pytest.mark.parametrize("device", _DEVICES)
@pytest.mark.parametrize("program", _DTYPE_GENERIC, ids=[p.__name__ for p in _DTYPE_GENERIC])
def test_program_in_float64_matches_pytorch(program, device):
    want = _in_float64(real_torch, program, "cpu")
    got = _in_float64(tandem, program, device)
    assert_same_results(got, want, dict(rel=1e-6, abs=1e-9))


# Found while probing the programs' API: with one bound a tensor and the other a number, the binding
# (python/src/elementwise.cpp, clamp_fn and clamp_) dropped the number, a silently wrong result. PyTorch takes a
# 0-dim tensor bound as a number (its Scalar overload) and refuses a larger one with a TypeError.
@pytest.mark.parametrize("form", ["function", "method", "inplace"])
def test_clamp_with_a_tensor_and_a_number_bound(form):
    results = []
    for lib in (real_torch, tandem):
        x = lib.arange(4.0)
        low = lib.tensor(1.0)
        if form == "function":
            results.append(lib.clamp(x, min=low, max=2.5).tolist())
        elif form == "method":
            results.append(x.clamp(min=0.5, max=lib.tensor(2.0)).tolist())
        else:
            results.append(x.clamp_(low, 2.5).tolist())
    assert results[1] == results[0]


@pytest.mark.parametrize("form", ["function", "method", "inplace", "clip"])
def test_clamp_refuses_a_larger_tensor_bound_next_to_a_number(form):
    for lib in (real_torch, tandem):
        x = lib.arange(4.0)
        with pytest.raises(TypeError, match="received an invalid combination of arguments"):
            if form == "function":
                lib.clamp(x, min=lib.ones(4), max=2.5)
            elif form == "method":
                x.clamp(min=0.5, max=lib.ones(4))
            elif form == "inplace":
                x.clamp_(lib.ones(4), 2.5)
            else:
                x.clip(min=lib.ones(4), max=2.5)
