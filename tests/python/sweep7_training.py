"""Sweep 7 programs, training procedures beyond a plain optimiser step: a TRPO policy update (Fisher-vector
products by double backward, conjugate gradient, parameters_to_vector, a backtracking line search on the KL),
overlapping-patch processing with nn.Unfold/nn.Fold and a SegNet-style encoder-decoder with MaxUnpool2d, a
ranking model trained with the margin/embedding losses, and Newton's method for logistic regression with
torch.autograd.functional (jacobian with vectorize and forward-mode strategies, hessian, hvp).

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep7.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- TRPO: natural-gradient step with conjugate gradient and a KL-constrained line search -------------------
def trpo_update(torch, device):
    nn = torch.nn
    D = torch.distributions
    utils = nn.utils
    rng = np.random.default_rng(111)
    states = torch.tensor(rng.standard_normal((64, 4)), dtype=torch.float64, device=device)
    actions = torch.tensor(rng.integers(0, 3, 64), device=device)
    advantages = torch.tensor(rng.standard_normal(64), dtype=torch.float64, device=device)
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 3)).to(device, torch.float64)
    init_from_numpy(torch, policy, 112)
    with torch.no_grad():
        old_logits = policy(states)
        old_log_probs = D.Categorical(logits=old_logits).log_prob(actions)

    def surrogate():
        dist = D.Categorical(logits=policy(states))
        return (torch.exp(dist.log_prob(actions) - old_log_probs) * advantages).mean()

    def mean_kl():
        return D.kl_divergence(D.Categorical(logits=old_logits), D.Categorical(logits=policy(states))).mean()

    params = list(policy.parameters())
    grads = torch.autograd.grad(surrogate(), params)
    g = torch.cat([gr.reshape(-1) for gr in grads])

    def fisher_vector(v, damping=0.1):
        kl_grads = torch.autograd.grad(mean_kl(), params, create_graph=True)
        flat = torch.cat([kg.reshape(-1) for kg in kl_grads])
        hv = torch.autograd.grad((flat * v).sum(), params)
        return torch.cat([h.reshape(-1) for h in hv]) + damping * v

    def conjugate_gradient(b, iters=10, tol=1e-10):
        x = torch.zeros_like(b)
        r, p = b.clone(), b.clone()
        rr = r @ r
        for _ in range(iters):
            Ap = fisher_vector(p)
            alpha = rr / (p @ Ap)
            x += alpha * p
            r -= alpha * Ap
            new_rr = r @ r
            if new_rr < tol:
                break
            p = r + new_rr / rr * p
            rr = new_rr
        return x

    step_dir = conjugate_gradient(g)
    max_kl = 0.01
    step = torch.sqrt(2 * max_kl / (step_dir @ fisher_vector(step_dir))) * step_dir
    old_params = utils.parameters_to_vector(policy.parameters())
    with torch.no_grad():
        old_surrogate = surrogate().item()
    accepted = None
    for fraction in 0.5 ** np.arange(8):
        utils.vector_to_parameters(old_params + float(fraction) * step, policy.parameters())
        with torch.no_grad():
            improvement = surrogate().item() - old_surrogate
            kl = mean_kl().item()
        if kl <= max_kl and improvement > 0:
            accepted = float(fraction)
            break
    else:
        utils.vector_to_parameters(old_params, policy.parameters())
    entropy = D.Categorical(logits=policy(states)).entropy().mean().item()
    return {"grad_norm": g.norm().item(), "step_norm": step.norm().item(), "accepted": accepted,
            "improvement": improvement, "kl": kl, "entropy": entropy, "n_params": old_params.numel()}


# ---- overlapping patches with Unfold/Fold, and a SegNet-style encoder-decoder with MaxUnpool2d -----------------
def patches_and_unpooling(torch, device):
    nn = torch.nn
    F = nn.functional
    image = torch.sigmoid(numpy_input(torch, 113, 2, 1, 10, 10, device=device))
    unfold = nn.Unfold(kernel_size=4, stride=2, padding=1)
    fold = nn.Fold(output_size=(10, 10), kernel_size=4, stride=2, padding=1)
    patches = unfold(image)  # (N, 16, L)
    centred = patches - patches.mean(dim=1, keepdim=True)
    shrunk = F.softshrink(centred, 0.05) + patches.mean(dim=1, keepdim=True)
    overlap = fold(torch.ones_like(patches))
    denoised = fold(shrunk) / overlap
    identity_error = (fold(patches) / overlap - image).abs().max().item()

    class SegNet(nn.Module):
        def __init__(self):
            super().__init__()
            # no bias before BatchNorm: its gradient is 0 up to rounding, which Adamax would scale up to full
            # steps in a direction set by rounding noise (and the running mean with it)
            self.enc = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU())
            self.pool = nn.MaxPool2d(2, 2, return_indices=True)
            self.unpool = nn.MaxUnpool2d(2, 2)
            self.dec = nn.Conv2d(4, 2, 3, padding=1)
            self.side = nn.Sequential(nn.AdaptiveMaxPool2d((4, 4)), nn.LPPool2d(2, 2),
                                      nn.Upsample(scale_factor=2, mode="nearest"), nn.Flatten())

        def forward(self, x):
            h = self.enc(x)
            pooled, indices = self.pool(h)
            up = self.unpool(pooled, indices, output_size=h.shape)
            return self.dec(up), self.side(h)

    net = SegNet().to(device)
    init_from_numpy(torch, net, 114)
    labels = (image > 0.5).long().squeeze(1)
    opt = torch.optim.Adamax(net.parameters(), lr=0.01)
    losses = []
    for _ in range(3):
        logits, side = net(denoised)
        loss = F.cross_entropy(logits, labels, weight=torch.tensor([1.0, 2.0], device=device)) + 0.01 * side.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    pooled, idx = F.adaptive_max_pool2d(image, (3, 3), return_indices=True)
    return {"patches": list(patches.shape), "identity_error": identity_error < 1e-6,
            "denoised": _rounded(denoised[0, 0, 4]), "overlap": overlap[0, 0, :3, :3].tolist(), "losses": losses,
            "side": list(side.shape), "running_mean": _rounded(net.enc[1].running_mean),
            "adaptive_idx": idx[0, 0].tolist()}


# ---- learning to rank: pairwise margin, cosine-embedding, hinge-embedding and multi-margin losses -------------
def ranking_losses(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(115)
    queries = torch.tensor(rng.standard_normal((16, 6)), dtype=torch.float32, device=device)
    docs = torch.tensor(rng.standard_normal((16, 6)), dtype=torch.float32, device=device)
    relevance = torch.tensor(rng.integers(0, 3, 16), device=device)
    scorer = nn.Bilinear(6, 6, 1).to(device)
    tower = nn.Sequential(nn.Linear(6, 8), nn.Softsign(), nn.Linear(8, 4)).to(device)
    classifier = nn.Linear(4, 3).to(device)
    for i, m in enumerate((scorer, tower, classifier)):
        init_from_numpy(torch, m, 116 + i)
    margin = nn.MarginRankingLoss(margin=0.5)
    cosine = nn.CosineEmbeddingLoss(margin=0.1)
    hinge = nn.HingeEmbeddingLoss(margin=1.5)
    multi = nn.MultiMarginLoss(p=2, margin=0.8, weight=torch.tensor([1.0, 0.5, 2.0], device=device))
    poisson = nn.PoissonNLLLoss(log_input=False, full=True)
    gaussian = nn.GaussianNLLLoss(full=True, eps=1e-4)
    params = list(scorer.parameters()) + list(tower.parameters()) + list(classifier.parameters())
    opt = torch.optim.ASGD(params, lr=0.05, t0=2)
    history = []
    first, second = torch.arange(0, 16, 2, device=device), torch.arange(1, 16, 2, device=device)
    for _ in range(4):
        scores = scorer(queries, docs).squeeze(1)
        order = torch.sign((relevance[first] - relevance[second]).float())
        l_margin = margin(scores[first], scores[second], order)
        q_emb, d_emb = tower(queries), tower(docs)
        same = torch.where(relevance > 0, 1, -1)
        l_cos = cosine(q_emb, d_emb, same)
        l_hinge = hinge((q_emb - d_emb).norm(dim=1), same.float())
        l_multi = multi(classifier(d_emb), relevance)
        rate = F.softplus(scores)
        l_poisson = poisson(rate, relevance.float())
        l_gauss = gaussian(scores, relevance.float(), F.softplus(d_emb[:, 0]) + 0.1)
        listnet = -(F.softmax(relevance.float(), 0) * F.log_softmax(scores, 0)).sum()
        loss = l_margin + l_cos + l_hinge + l_multi + 0.1 * l_poisson + 0.1 * l_gauss + listnet
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append([round(v.item(), 5) for v in (l_margin, l_cos, l_hinge, l_multi, l_poisson, l_gauss,
                                                      listnet)])
    ax = opt.state[scorer.weight]["ax"]
    return {"history": history, "ax": round(ax.abs().sum().item(), 4), "eta": opt.state[scorer.weight]["eta"].item()}


# ---- Newton's method for logistic regression with torch.autograd.functional -------------------------------
def newton_logistic(torch, device):
    AF = torch.autograd.functional
    rng = np.random.default_rng(119)
    X = torch.tensor(np.c_[np.ones(50), rng.standard_normal((50, 3))], dtype=torch.float64, device=device)
    true_w = torch.tensor([0.5, -1.0, 2.0, 0.0], dtype=torch.float64, device=device)
    y = (torch.sigmoid(X @ true_w) > torch.tensor(rng.uniform(size=50), device=device)).double()

    def nll(w):
        logits = X @ w
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, y, reduction="sum") + 0.05 * w @ w

    w = torch.zeros(4, dtype=torch.float64, device=device)
    history = []
    for _ in range(5):
        g = AF.jacobian(nll, w)
        H = AF.hessian(nll, w)
        w = w - torch.linalg.solve(H, g)
        history.append(nll(w).item())
    jac_rev = AF.jacobian(lambda v: torch.sigmoid(X[:5] @ v), w, vectorize=True)
    jac_fwd = AF.jacobian(lambda v: torch.sigmoid(X[:5] @ v), w, vectorize=True, strategy="forward-mode")
    _, hv = AF.hvp(nll, w, torch.ones(4, dtype=torch.float64, device=device))
    _, vh = AF.vhp(nll, w, torch.ones(4, dtype=torch.float64, device=device))
    _, jv = AF.jvp(lambda v: X[:3] @ v, w, torch.ones(4, dtype=torch.float64, device=device))
    _, vj = AF.vjp(lambda v: X[:3] @ v, w, torch.ones(3, dtype=torch.float64, device=device))
    return {"history": history, "w": _rounded(w, 8), "jac_same": torch.allclose(jac_rev, jac_fwd),
            "jac": _rounded(jac_rev[0], 8), "hv": _rounded(hv, 6), "hv_vh": torch.allclose(hv, vh),
            "jv": _rounded(jv, 8), "vj": _rounded(vj, 8)}


PROGRAMS = [trpo_update, patches_and_unpooling, ranking_losses, newton_logistic]
# Programs that need the C++ core to change (strict xfails in test_programs_sweep7.py): none since relu's
# backward selects 0 (patches_and_unpooling needed it).
NEEDS_CPP = {}
