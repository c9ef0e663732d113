"""Sweep 5 programs, probabilistic models: Bayes-by-backprop, a mixture density network, an energy-based model
sampled with Langevin dynamics, a VQ-VAE with a straight-through codebook, and entropic optimal transport
(Sinkhorn in the log domain).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep5.py). Parameters, data and noise come from NumPy so both libraries see the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


# ---- Bayes by backprop: a Gaussian posterior per weight, reparameterised samples, KL to the prior -----------------
def bayes_by_backprop(torch, device):
    nn = torch.nn
    F = nn.functional
    D = torch.distributions

    class BayesLinear(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.w_mu = nn.Parameter(torch.empty(n_out, n_in))
            self.w_rho = nn.Parameter(torch.full((n_out, n_in), -3.0))
            self.b_mu = nn.Parameter(torch.zeros(n_out))
            self.b_rho = nn.Parameter(torch.full((n_out,), -3.0))
            self.prior = D.Normal(torch.tensor(0.0, device=device), torch.tensor(1.0, device=device))

        def forward(self, x, eps_w, eps_b):
            w_sigma, b_sigma = F.softplus(self.w_rho), F.softplus(self.b_rho)
            w = self.w_mu + w_sigma * eps_w
            b = self.b_mu + b_sigma * eps_b
            self.kl = (D.kl_divergence(D.Normal(self.w_mu, w_sigma), self.prior).sum()
                       + D.kl_divergence(D.Normal(self.b_mu, b_sigma), self.prior).sum())
            return F.linear(x, w, b)

    layers = nn.ModuleList([BayesLinear(3, 16), BayesLinear(16, 1)]).to(device)
    with torch.no_grad():
        rng = np.random.default_rng(21)
        for layer in layers:
            layer.w_mu.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, size=tuple(layer.w_mu.shape))))
    x = numpy_input(torch, 22, 32, 3, device=device)
    y = (x[:, :1] * 2 - x[:, 1:2]).sin()
    noise = np.random.default_rng(23)
    optimizer = torch.optim.Adam(layers.parameters(), lr=1e-2)
    losses, kls = [], []
    for _ in range(4):
        h = x
        for i, layer in enumerate(layers):
            eps_w = torch.tensor(noise.standard_normal(tuple(layer.w_mu.shape)), dtype=torch.float32, device=device)
            eps_b = torch.tensor(noise.standard_normal(tuple(layer.b_mu.shape)), dtype=torch.float32, device=device)
            h = layer(h, eps_w, eps_b)
            if i == 0:
                h = torch.relu(h)
        nll = -D.Normal(h, 0.1).log_prob(y).sum()
        kl = sum(layer.kl for layer in layers)
        loss = nll + kl / 32
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        kls.append(kl.item())
    return {"losses": losses, "kls": kls}


# ---- mixture density network: MixtureSameFamily(Categorical, Normal) negative log-likelihood ----------------------
def mixture_density_network(torch, device):
    nn = torch.nn
    D = torch.distributions
    K = 3

    class MDN(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(1, 24), nn.Tanh())
            self.pi = nn.Linear(24, K)
            self.mu = nn.Linear(24, K)
            self.log_sigma = nn.Linear(24, K)

        def forward(self, x):
            h = self.body(x)
            mix = D.Categorical(logits=self.pi(h))
            comp = D.Normal(self.mu(h), self.log_sigma(h).clamp(-5, 3).exp())
            return D.MixtureSameFamily(mix, comp)

    model = MDN().to(device)
    init_from_numpy(torch, model, 24)
    rng = np.random.default_rng(25)
    y_np = rng.uniform(-1, 1, size=(64, 1))
    x_np = y_np + 0.3 * np.sin(2 * np.pi * y_np) + 0.05 * rng.standard_normal((64, 1))  # inverse problem: multimodal
    x = torch.tensor(x_np, dtype=torch.float32, device=device)
    y = torch.tensor(y_np, dtype=torch.float32, device=device).squeeze(1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(5):
        dist = model(x)
        loss = -dist.log_prob(y).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        dist = model(x[:4])
        mean, variance = dist.mean, dist.variance
        cdf = dist.cdf(torch.zeros(4, device=device))
    return {"losses": losses, "mean": mean.tolist(), "variance": variance.tolist(), "cdf": cdf.tolist(),
            "batch_shape": list(dist.batch_shape), "event_shape": list(dist.event_shape)}


# ---- energy-based model: contrastive divergence with short-run Langevin dynamics (autograd.grad on the inputs) ----
def energy_langevin(torch, device):
    nn = torch.nn
    energy = nn.Sequential(nn.Linear(2, 32), nn.SiLU(), nn.Linear(32, 32), nn.SiLU(), nn.Linear(32, 1)).to(device)
    init_from_numpy(torch, energy, 26)
    rng = np.random.default_rng(27)
    angles = rng.uniform(0, 2 * np.pi, size=64)
    data = torch.tensor(np.stack([np.cos(angles), np.sin(angles)], 1) + 0.05 * rng.standard_normal((64, 2)),
                        dtype=torch.float32, device=device)
    optimizer = torch.optim.Adam(energy.parameters(), lr=1e-3, betas=(0.0, 0.999))

    def langevin(x, steps=5, step_size=0.1):
        x = x.clone().detach()
        for _ in range(steps):
            x.requires_grad_(True)
            grad = torch.autograd.grad(energy(x).sum(), x)[0]
            noise = torch.tensor(rng.standard_normal(tuple(x.shape)), dtype=x.dtype, device=x.device)
            x = (x - 0.5 * step_size * grad + math.sqrt(step_size) * 0.1 * noise).detach()
            x = x.clamp(-3, 3)
        return x

    losses = []
    for _ in range(4):
        start = torch.tensor(rng.uniform(-2, 2, size=(64, 2)), dtype=torch.float32, device=device)
        negatives = langevin(start)
        e_pos, e_neg = energy(data), energy(negatives)
        loss = e_pos.mean() - e_neg.mean() + 0.1 * (e_pos.pow(2).mean() + e_neg.pow(2).mean())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "negatives_mean": negatives.mean(0).tolist()}


# ---- VQ-VAE: nearest codebook entry by cdist/argmin, straight-through gradient, codebook and commitment losses ----
def vq_vae(torch, device):
    nn = torch.nn
    F = nn.functional

    class VectorQuantizer(nn.Module):
        def __init__(self, n_codes, dim, beta=0.25):
            super().__init__()
            self.codebook = nn.Embedding(n_codes, dim)
            self.beta = beta

        def forward(self, z):  # z: (B, C, H, W)
            z_flat = z.permute(0, 2, 3, 1).reshape(-1, z.size(1))
            distances = torch.cdist(z_flat, self.codebook.weight)
            codes = distances.argmin(dim=1)
            z_q = self.codebook(codes).view(z.size(0), z.size(2), z.size(3), z.size(1)).permute(0, 3, 1, 2)
            loss = F.mse_loss(z_q, z.detach()) + self.beta * F.mse_loss(z, z_q.detach())
            z_q = z + (z_q - z).detach()  # straight-through estimator
            one_hot = F.one_hot(codes, self.codebook.num_embeddings).float()
            avg_probs = one_hot.mean(0)
            perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
            return z_q, loss, perplexity, codes

    encoder = nn.Sequential(nn.Conv2d(1, 8, 4, 2, 1), nn.ReLU(), nn.Conv2d(8, 4, 3, 1, 1)).to(device)
    quantizer = VectorQuantizer(16, 4).to(device)
    decoder = nn.Sequential(nn.ConvTranspose2d(4, 8, 4, 2, 1), nn.ReLU(), nn.Conv2d(8, 1, 3, 1, 1)).to(device)
    for i, m in enumerate((encoder, quantizer, decoder)):
        init_from_numpy(torch, m, 28 + i)
    images = numpy_input(torch, 31, 4, 1, 8, 8, device=device).tanh()
    params = list(encoder.parameters()) + list(quantizer.parameters()) + list(decoder.parameters())
    optimizer = torch.optim.Adam(params, lr=2e-3)
    losses, perplexities = [], []
    for _ in range(4):
        z_q, vq_loss, perplexity, codes = quantizer(encoder(images))
        recon = decoder(z_q)
        loss = F.mse_loss(recon, images) + vq_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        perplexities.append(perplexity.item())
    used = torch.bincount(codes, minlength=16)
    return {"losses": losses, "perplexities": perplexities, "codes_dtype": str(codes.dtype),
            "used_total": int(used.sum()), "encoder_grad": encoder[0].weight.grad.abs().sum().item()}


# ---- entropic optimal transport: log-domain Sinkhorn between two point clouds, differentiated w.r.t. the points --
def sinkhorn_transport(torch, device):
    x = numpy_input(torch, 32, 12, 2, device=device).requires_grad_(True)
    y = numpy_input(torch, 33, 10, 2, device=device) + 1.0
    a = torch.full((12,), 1 / 12, device=device)
    b = torch.full((10,), 1 / 10, device=device)

    def sinkhorn(x, y, eps=0.1, iters=50):
        C = torch.cdist(x, y, p=2) ** 2
        f = torch.zeros_like(a)
        g = torch.zeros_like(b)
        for _ in range(iters):
            f = -eps * torch.logsumexp((g.unsqueeze(0) - C) / eps + b.log().unsqueeze(0), dim=1)
            g = -eps * torch.logsumexp((f.unsqueeze(1) - C) / eps + a.log().unsqueeze(1), dim=0)
        plan = torch.exp((f.unsqueeze(1) + g.unsqueeze(0) - C) / eps) * a.unsqueeze(1) * b.unsqueeze(0)
        return (plan * C).sum(), plan

    optimizer = torch.optim.SGD([x], lr=0.5)
    costs = []
    for _ in range(3):
        cost, plan = sinkhorn(x, y)
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        costs.append(cost.item())
    return {"costs": costs, "row_sums": plan.sum(1)[:3].tolist(), "col_sums": plan.sum(0)[:3].tolist(),
            "x_mean": x.detach().mean(0).tolist()}


PROGRAMS = [bayes_by_backprop, mixture_density_network, energy_langevin, vq_vae, sinkhorn_transport]
