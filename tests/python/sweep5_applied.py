"""Sweep 5 programs, applied models outside the earlier sweeps: Cox survival analysis, quantile regression with
split-conformal intervals, NeRF-style volume rendering with hierarchical sampling, a neural cellular automaton,
an echo state network, a spiking net with a surrogate gradient, elastic weight consolidation with per-sample
Fisher information from torch.func, and knowledge-graph embeddings (TransE).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep5.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


# ---- Cox proportional hazards: negative partial log-likelihood with logcumsumexp over descending times ---------
def cox_survival(torch, device):
    nn = torch.nn
    rng = np.random.default_rng(61)
    x_np = rng.standard_normal((40, 5))
    risk = x_np @ np.array([0.8, -0.5, 0.0, 0.3, 0.0])
    times_np = rng.exponential(np.exp(-risk))
    events_np = rng.uniform(size=40) < 0.7
    x = torch.tensor(x_np, dtype=torch.float32, device=device)
    times = torch.tensor(times_np, dtype=torch.float32, device=device)
    events = torch.tensor(events_np, device=device)
    model = nn.Sequential(nn.Linear(5, 8), nn.SELU(), nn.AlphaDropout(0.0), nn.Linear(8, 1, bias=False)).to(device)
    init_from_numpy(torch, model, 62)

    def cox_loss(log_risk, times, events):
        order = torch.argsort(times, descending=True)
        log_risk, events = log_risk[order], events[order]
        log_cum_hazard = torch.logcumsumexp(log_risk, dim=0)
        return -((log_risk - log_cum_hazard) * events).sum() / events.sum()

    def concordance(log_risk, times, events):
        earlier = times.unsqueeze(1) < times.unsqueeze(0)
        comparable = earlier & events.unsqueeze(1)
        concordant = (log_risk.unsqueeze(1) > log_risk.unsqueeze(0)) & comparable
        return concordant.sum().item() / comparable.sum().item()

    optimizer = torch.optim.Adagrad(model.parameters(), lr=0.05, lr_decay=0.01)
    losses = []
    for _ in range(5):
        loss = cox_loss(model(x).squeeze(1), times, events)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        c_index = concordance(model(x).squeeze(1), times, events)
    return {"losses": losses, "c_index": c_index, "n_events": int(events.sum())}


# ---- quantile regression (pinball loss) and split-conformal prediction intervals via torch.quantile -----------
def quantile_conformal(torch, device):
    nn = torch.nn
    quantiles = torch.tensor([0.1, 0.5, 0.9], device=device)
    rng = np.random.default_rng(63)
    x_np = rng.uniform(-2, 2, size=(80, 1))
    y_np = np.sin(2 * x_np[:, 0]) + (0.2 + 0.2 * np.abs(x_np[:, 0])) * rng.standard_normal(80)
    x = torch.tensor(x_np, dtype=torch.float32, device=device)
    y = torch.tensor(y_np, dtype=torch.float32, device=device)
    x_train, x_cal = x[:50], x[50:]
    y_train, y_cal = y[:50], y[50:]
    model = nn.Sequential(nn.Linear(1, 32), nn.Mish(), nn.Linear(32, 3)).to(device)
    init_from_numpy(torch, model, 64)

    def pinball(pred, target):
        diff = target.unsqueeze(1) - pred
        return torch.maximum(quantiles * diff, (quantiles - 1) * diff).mean()

    optimizer = torch.optim.NAdam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(6):
        loss = pinball(model(x_train), y_train)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        pred = model(x_cal)
        scores = torch.maximum(pred[:, 0] - y_cal, y_cal - pred[:, 2])
        n = scores.numel()
        level = math.ceil((n + 1) * 0.9) / n
        q_hat = {mode: torch.quantile(scores, level, interpolation=mode).item()
                 for mode in ("linear", "lower", "higher", "midpoint", "nearest")}
        covered = ((y_cal >= pred[:, 0] - q_hat["higher"]) & (y_cal <= pred[:, 2] + q_hat["higher"])).float().mean()
        nanq = torch.nanquantile(torch.cat([scores, torch.tensor([float("nan")], device=device)]), 0.5).item()
    return {"losses": losses, "q_hat": q_hat, "coverage": covered.item(), "nanquantile": nanq}


# ---- NeRF-style volume rendering: positional encoding, alpha compositing with an exclusive cumprod, and
# hierarchical sampling of the fine pass by inverse-CDF with searchsorted ---------------------------------------
def nerf_rendering(torch, device):
    nn = torch.nn
    F = nn.functional

    def positional_encoding(x, n_freqs=4):
        freqs = 2.0 ** torch.arange(n_freqs, device=x.device) * math.pi
        angles = x.unsqueeze(-1) * freqs
        return torch.cat([x, torch.sin(angles).flatten(-2), torch.cos(angles).flatten(-2)], dim=-1)

    field = nn.Sequential(nn.Linear(3 + 3 * 2 * 4, 32), nn.ReLU(), nn.Linear(32, 4)).to(device)
    init_from_numpy(torch, field, 65)

    def render(origins, dirs, t_vals):
        pts = origins.unsqueeze(1) + dirs.unsqueeze(1) * t_vals.unsqueeze(-1)  # (R, S, 3)
        raw = field(positional_encoding(pts))
        rgb, sigma = torch.sigmoid(raw[..., :3]), F.softplus(raw[..., 3])
        deltas = torch.cat([t_vals[:, 1:] - t_vals[:, :-1], torch.full_like(t_vals[:, :1], 1e10)], dim=-1)
        alpha = 1.0 - torch.exp(-sigma * deltas)
        transmittance = torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
        weights = alpha * transmittance
        return (weights.unsqueeze(-1) * rgb).sum(1), weights

    def sample_pdf(bins, weights, n_samples, u):
        pdf = (weights + 1e-5) / (weights + 1e-5).sum(-1, keepdim=True)
        cdf = torch.cat([torch.zeros_like(pdf[:, :1]), torch.cumsum(pdf, -1)], -1)
        idx = torch.searchsorted(cdf.contiguous(), u.contiguous(), right=True)
        below = (idx - 1).clamp(min=0)
        above = idx.clamp(max=cdf.shape[-1] - 1)
        cdf_g = torch.stack([cdf.gather(1, below), cdf.gather(1, above)], -1)
        bins_g = torch.stack([bins.gather(1, below), bins.gather(1, above)], -1)
        denom = torch.where(cdf_g[..., 1] - cdf_g[..., 0] < 1e-5, torch.ones_like(cdf_g[..., 0]),
                            cdf_g[..., 1] - cdf_g[..., 0])
        t = (u - cdf_g[..., 0]) / denom
        return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])

    rng = np.random.default_rng(66)
    n_rays = 8
    origins = torch.zeros(n_rays, 3, device=device)
    dirs = F.normalize(numpy_input(torch, 67, n_rays, 3, device=device), dim=-1)
    target = torch.tensor(rng.uniform(0, 1, size=(n_rays, 3)), dtype=torch.float32, device=device)
    t_coarse = torch.linspace(0.5, 3.0, 12, device=device).expand(n_rays, 12)
    optimizer = torch.optim.Adam(field.parameters(), lr=5e-3)
    losses = []
    for _ in range(3):
        rgb_c, weights = render(origins, dirs, t_coarse)
        mids = 0.5 * (t_coarse[:, 1:] + t_coarse[:, :-1])
        u = torch.tensor(rng.uniform(size=(n_rays, 16)), dtype=torch.float32, device=device)
        t_fine = sample_pdf(mids, weights[:, 1:-1].detach(), 16, u)
        t_all, _ = torch.sort(torch.cat([t_coarse, t_fine], -1), -1)
        rgb_f, _ = render(origins, dirs, t_all)
        loss = F.mse_loss(rgb_c, target) + F.mse_loss(rgb_f, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    psnr = -10.0 * torch.log10(F.mse_loss(rgb_f.detach(), target))
    return {"losses": losses, "psnr": psnr.item(), "t_fine_sorted": bool((t_all[:, 1:] >= t_all[:, :-1]).all())}


# ---- neural cellular automaton: fixed Sobel perception by depthwise conv2d, stochastic update mask, alive mask --
def neural_cellular_automaton(torch, device):
    nn = torch.nn
    F = nn.functional
    C = 8

    class CA(nn.Module):
        def __init__(self):
            super().__init__()
            sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8
            identity = torch.zeros(3, 3)
            identity[1, 1] = 1.0
            kernels = torch.stack([identity, sobel_x, sobel_x.T])  # (3, 3, 3)
            self.register_buffer("kernels", kernels.repeat(C, 1, 1).unsqueeze(1))  # (3C, 1, 3, 3)
            self.update = nn.Sequential(nn.Conv2d(3 * C, 32, 1), nn.ReLU(), nn.Conv2d(32, C, 1, bias=False))

        def forward(self, state, fire_mask):
            pre_alive = F.max_pool2d(state[:, 3:4], 3, stride=1, padding=1) > 0.1
            perception = F.conv2d(F.pad(state, (1, 1, 1, 1), mode="circular"), self.kernels, groups=C)
            state = state + self.update(perception) * fire_mask
            post_alive = F.max_pool2d(state[:, 3:4], 3, stride=1, padding=1) > 0.1
            return state * (pre_alive & post_alive).to(state.dtype)

    model = CA().to(device)
    init_from_numpy(torch, model, 68)
    seed_state = torch.zeros(2, C, 9, 9, device=device)
    seed_state[:, 3:, 4, 4] = 1.0
    target = torch.zeros(2, 4, 9, 9, device=device)
    target[:, :, 2:7, 2:7] = 0.5
    rng = np.random.default_rng(69)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    losses = []
    for _ in range(3):
        state = seed_state
        for _ in range(4):
            fire = torch.tensor(rng.uniform(size=(2, 1, 9, 9)) < 0.5, dtype=torch.float32, device=device)
            state = model(state, fire)
        loss = F.mse_loss(state[:, :4], target)
        optimizer.zero_grad()
        loss.backward()
        for p in model.parameters():  # per-parameter gradient normalisation, as the Growing NCA article
            p.grad /= p.grad.norm() + 1e-8
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "alive": int((state[:, 3] > 0.1).sum())}


# ---- echo state network: a fixed random reservoir scaled to a spectral radius, ridge-regression readout --------
def echo_state_network(torch, device):
    rng = np.random.default_rng(70)
    n_res = 30
    W_np = rng.uniform(-0.5, 0.5, size=(n_res, n_res)) * (rng.uniform(size=(n_res, n_res)) < 0.3)
    W = torch.tensor(W_np, dtype=torch.float64, device=device)
    radius = torch.linalg.eigvals(W).abs().max()
    W = W * (0.9 / radius)
    W_in = torch.tensor(rng.uniform(-1, 1, size=(n_res, 1)), dtype=torch.float64, device=device)
    u = torch.sin(torch.arange(200, dtype=torch.float64, device=device) * 0.2).unsqueeze(1)
    states = torch.zeros(200, n_res, dtype=torch.float64, device=device)
    x = torch.zeros(n_res, dtype=torch.float64, device=device)
    for t in range(200):
        x = 0.7 * x + 0.3 * torch.tanh(W_in @ u[t] + W @ x)
        states[t] = x
    washout = 20
    X, Y = states[washout:-1], u[washout + 1:]
    ridge = 1e-6
    W_out = torch.linalg.solve(X.T @ X + ridge * torch.eye(n_res, dtype=X.dtype, device=device), X.T @ Y)
    lstsq = torch.linalg.lstsq(X.cpu(), Y.cpu()).solution
    mse = torch.mean((X @ W_out - Y) ** 2)
    return {"radius": radius.item(), "mse_small": bool(mse < 1e-4), "W_out_shape": list(W_out.shape),
            "lstsq_shape": list(lstsq.shape), "radius_dtype": str(radius.dtype),
            "prediction": (X[-3:] @ W_out).squeeze(1).tolist()}


# ---- spiking net: leaky integrate-and-fire neurons, a Heaviside spike with a fast-sigmoid surrogate gradient ----
def spiking_surrogate(torch, device):
    nn = torch.nn

    class SpikeFn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, membrane, slope):
            ctx.save_for_backward(membrane)
            ctx.slope = slope
            return (membrane > 0).to(membrane.dtype)

        @staticmethod
        def backward(ctx, grad_output):
            (membrane,) = ctx.saved_tensors
            return grad_output / (ctx.slope * membrane.abs() + 1.0) ** 2, None

    class LIFNet(nn.Module):
        def __init__(self, beta=0.9):
            super().__init__()
            self.fc1 = nn.Linear(6, 20)
            self.fc2 = nn.Linear(20, 2)
            self.beta = beta

        def forward(self, spikes_in):  # (T, B, 6)
            mem1 = torch.zeros(spikes_in.size(1), 20, device=spikes_in.device)
            mem2 = torch.zeros(spikes_in.size(1), 2, device=spikes_in.device)
            out_spikes, counts = [], 0
            for x in spikes_in:
                mem1 = self.beta * mem1 + self.fc1(x)
                s1 = SpikeFn.apply(mem1 - 1.0, 25.0)
                mem1 = mem1 - s1.detach()  # soft reset
                mem2 = self.beta * mem2 + self.fc2(s1)
                s2 = SpikeFn.apply(mem2 - 1.0, 25.0)
                mem2 = mem2 - s2.detach()
                out_spikes.append(s2)
                counts = counts + s1.sum()
            return torch.stack(out_spikes), counts

    model = LIFNet().to(device)
    init_from_numpy(torch, model, 71)
    with torch.no_grad():
        model.fc1.weight.mul_(4)
        model.fc2.weight.mul_(12)
    rng = np.random.default_rng(72)
    rates = rng.uniform(0.1, 0.9, size=(8, 6))
    spikes_in = torch.tensor(rng.uniform(size=(10, 8, 6)) < rates, dtype=torch.float32, device=device)
    labels = torch.tensor((rates[:, 0] > rates[:, 1]).astype(np.int64), device=device)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses, counts = [], []
    for _ in range(4):
        out, n_spikes = model(spikes_in)
        loss = nn.functional.cross_entropy(out.sum(0), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        counts.append(n_spikes.item())
    return {"losses": losses, "hidden_spikes": counts,
            "gradcheck": torch.autograd.gradcheck(lambda m: SpikeFn.apply(m, 25.0) * 0 + m,
                                                  (torch.randn(4, dtype=torch.float64, requires_grad=True),))}


# ---- elastic weight consolidation: diagonal Fisher from per-sample gradients (torch.func.vmap over grad) ------
def ewc_fisher(torch, device):
    nn = torch.nn
    F = nn.functional
    func = torch.func
    model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).to(device)
    init_from_numpy(torch, model, 73)
    xa = numpy_input(torch, 74, 24, 4, device=device)
    ya = (xa[:, 0] > 0).long() + (xa[:, 1] > 0).long()
    xb = numpy_input(torch, 75, 24, 4, device=device)
    yb = (xb[:, 2] > 0).long() * 2

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):  # task A
        loss = F.cross_entropy(model(xa), ya)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    params = {k: v.detach() for k, v in model.named_parameters()}

    def sample_loss(p, x, y):
        logits = func.functional_call(model, p, (x.unsqueeze(0),))
        return F.cross_entropy(logits, y.unsqueeze(0))

    per_sample = func.vmap(func.grad(sample_loss), in_dims=(None, 0, 0))(params, xa, ya)
    fisher = {k: g.pow(2).mean(0) for k, g in per_sample.items()}
    anchor = {k: v.clone() for k, v in params.items()}

    losses = []
    for _ in range(4):  # task B with the EWC penalty
        penalty = sum((fisher[k] * (p - anchor[k]).pow(2)).sum() for k, p in model.named_parameters())
        loss = F.cross_entropy(model(xb), yb) + 50.0 * penalty
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "fisher_shapes": {k: list(v.shape) for k, v in fisher.items()},
            "fisher_sum": sum(v.sum() for v in fisher.values()).item()}


# ---- knowledge-graph embeddings (TransE): max_norm entity embeddings, corrupted triples, margin ranking loss -----
def transe_knowledge_graph(torch, device):
    nn = torch.nn
    n_entities, n_relations, dim = 12, 3, 6

    class TransE(nn.Module):
        def __init__(self):
            super().__init__()
            self.entities = nn.Embedding(n_entities, dim, max_norm=1.0)
            self.relations = nn.Embedding(n_relations, dim)

        def forward(self, heads, rels, tails):
            return torch.norm(self.entities(heads) + self.relations(rels) - self.entities(tails), p=1, dim=1)

    model = TransE().to(device)
    init_from_numpy(torch, model, 76)
    with torch.no_grad():
        model.relations.weight.copy_(nn.functional.normalize(model.relations.weight, p=2, dim=1))
    rng = np.random.default_rng(77)
    triples = torch.tensor(np.stack([rng.integers(0, n_entities, 20), rng.integers(0, n_relations, 20),
                                     rng.integers(0, n_entities, 20)], 1), device=device)
    criterion = nn.MarginRankingLoss(margin=1.0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(4):
        corrupt = torch.tensor(rng.integers(0, n_entities, 20), device=device)
        replace_head = torch.tensor(rng.uniform(size=20) < 0.5, device=device)
        neg_heads = torch.where(replace_head, corrupt, triples[:, 0])
        neg_tails = torch.where(replace_head, triples[:, 2], corrupt)
        pos = model(triples[:, 0], triples[:, 1], triples[:, 2])
        neg = model(neg_heads, triples[:, 1], neg_tails)
        loss = criterion(neg, pos, torch.ones_like(pos))  # neg distance should exceed pos by the margin
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        # link prediction: rank the true tail among all entities
        h, r, t = triples[:5, 0], triples[:5, 1], triples[:5, 2]
        scores = torch.cdist(model.entities.weight[h] + model.relations(r), model.entities.weight, p=1)
        ranks = (scores < scores.gather(1, t.unsqueeze(1))).sum(1) + 1
        norms = model.entities.weight.norm(dim=1)
    return {"losses": losses, "ranks": ranks.tolist(), "max_norm_ok": bool((norms[triples[:, 0]] <= 1 + 1e-5).all())}


# ---- covariate shift: a domain classifier estimates density ratios, which weight the regression loss
# (mse_loss / l1_loss with weight=, whose 'mean' is sum(w * loss) / sum(w)) -----------------------------------------
def importance_weighted_regression(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(78)
    x_source = torch.tensor(rng.normal(0.0, 1.0, size=(64, 1)), dtype=torch.float32, device=device)
    x_target = torch.tensor(rng.normal(1.0, 0.6, size=(64, 1)), dtype=torch.float32, device=device)
    y_source = torch.sin(2 * x_source) + 0.1 * x_source ** 2

    classifier = nn.Linear(2, 1).to(device)
    init_from_numpy(torch, classifier, 79)
    features = torch.cat([x_source, x_target])
    features = torch.cat([features, features ** 2], dim=1)
    domain = torch.cat([torch.zeros(64, 1), torch.ones(64, 1)]).to(device)
    clf_opt = torch.optim.LBFGS(classifier.parameters(), lr=0.5, max_iter=20)

    def closure():
        clf_opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(classifier(features), domain)
        loss.backward()
        return loss

    clf_opt.step(closure)
    with torch.no_grad():
        weights = classifier(features[:64]).exp()  # p(target | x) / p(source | x), unnormalised

    model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1)).to(device)
    init_from_numpy(torch, model, 80)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for step in range(6):
        pred = model(x_source)
        loss = F.mse_loss(pred, y_source, weight=weights) if step % 2 == 0 else F.l1_loss(pred, y_source,
                                                                                          weight=weights)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        pred = model(x_source)
        per_sample = F.mse_loss(pred, y_source, weight=weights, reduction="none")
        summed = F.l1_loss(pred, y_source, weight=weights, reduction="sum")
        effective_n = weights.sum() ** 2 / (weights ** 2).sum()
    return {"losses": losses, "per_sample": per_sample[:3, 0].tolist(), "summed": summed.item(),
            "effective_n": effective_n.item(), "weight_range": [weights.min().item(), weights.max().item()]}


# ---- quasi-Monte Carlo option pricing: Sobol points (unscrambled, so deterministic) through the normal quantile,
# a European call priced and its delta taken by autograd, checked against Black-Scholes (special.ndtr) ------------
def sobol_option_pricing(torch, device):
    spot = torch.tensor(100.0, dtype=torch.float64, requires_grad=True)
    strike, rate, vol, maturity = 105.0, 0.03, 0.2, 1.0
    engine = torch.quasirandom.SobolEngine(dimension=1, scramble=False)
    engine.fast_forward(1)  # skip the origin, whose quantile is -inf
    u = engine.draw(1023, dtype=torch.float64).squeeze(1).to(device)
    z = torch.special.ndtri(u)
    terminal = spot * torch.exp((rate - 0.5 * vol ** 2) * maturity + vol * math.sqrt(maturity) * z)
    price = math.exp(-rate * maturity) * torch.relu(terminal - strike).mean()
    (delta,) = torch.autograd.grad(price, spot)
    d1 = (torch.log(spot / strike) + (rate + 0.5 * vol ** 2) * maturity) / (vol * math.sqrt(maturity))
    d2 = d1 - vol * math.sqrt(maturity)
    exact = spot * torch.special.ndtr(d1) - strike * math.exp(-rate * maturity) * torch.special.ndtr(d2)
    return {"price": price.item(), "delta": delta.item(), "exact": exact.item(),
            "error_small": abs(price.item() - exact.item()) < 0.05, "generated": engine.num_generated}


PROGRAMS = [cox_survival, quantile_conformal, nerf_rendering, neural_cellular_automaton, echo_state_network,
            spiking_surrogate, ewc_fisher, transe_knowledge_graph, importance_weighted_regression,
            sobol_option_pricing]

# program -> what tandem lacks for it (strict xfails in test_programs_sweep5.py)
NEEDS_CPP = {}
