"""Sweep 7 programs, numerical algorithms written with tensors: k-means and a Gaussian mixture fitted by EM,
Kabsch/Procrustes point-cloud alignment with quaternions, a CP tensor decomposition by alternating least squares,
a restricted Boltzmann machine trained by mean-field contrastive divergence, beam search over a small GRU decoder,
a Kalman filter whose noise levels are learned through its marginal likelihood, and spectral clustering.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep7.py). Data come from NumPy so both libraries start from the same numbers; results that an
eigen- or singular-vector's sign could flip are returned in a sign-free form."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy


def _tensor(torch, array, device, dtype=None):
    return torch.tensor(array, dtype=dtype or torch.float32, device=device)


# ---- k-means (Lloyd) with cdist/argmin/scatter_reduce, then a full-covariance GMM by EM from its clusters -------
def kmeans_gmm(torch, device):
    rng = np.random.default_rng(71)
    centres_np = np.array([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0]])
    points_np = np.concatenate([c + rng.standard_normal((30, 2)) * s for c, s in zip(centres_np, (0.5, 1.0, 0.7))])
    x = _tensor(torch, points_np, device, torch.float64)
    k = 3
    centroids = x[torch.tensor([0, 30, 60], device=device)].clone()
    for _ in range(10):
        assign = torch.cdist(x, centroids).argmin(dim=1)
        sums = torch.zeros_like(centroids).index_add_(0, assign, x)
        counts = torch.bincount(assign, minlength=k).clamp_min(1).unsqueeze(1)
        new = torch.zeros_like(centroids).scatter_reduce(0, assign.unsqueeze(1).expand(-1, 2), x, reduce="mean",
                                                         include_self=False)
        assert torch.allclose(new, sums / counts)
        if torch.equal(new, centroids):
            break
        centroids = new
    inertia = (x - centroids[assign]).pow(2).sum().item()

    means = centroids.clone()
    covs = torch.stack([torch.cov((x[assign == j]).T) for j in range(k)])
    weights = torch.bincount(assign, minlength=k).double() / x.shape[0]
    log_likelihoods = []
    for _ in range(5):
        dist = torch.distributions.MultivariateNormal(means, covariance_matrix=covs)
        log_p = dist.log_prob(x.unsqueeze(1)) + weights.log()
        log_norm = torch.logsumexp(log_p, dim=1, keepdim=True)
        log_likelihoods.append(log_norm.sum().item())
        resp = (log_p - log_norm).exp()
        nk = resp.sum(0)
        weights = nk / x.shape[0]
        means = resp.T @ x / nk.unsqueeze(1)
        diff = x.unsqueeze(1) - means
        covs = torch.einsum("nk,nki,nkj->kij", resp, diff, diff) / nk.view(-1, 1, 1)
        covs = covs + 1e-6 * torch.eye(2, dtype=x.dtype, device=device)
    return {"centroids": centroids.tolist(), "inertia": inertia, "sizes": torch.bincount(assign).tolist(),
            "log_likelihoods": log_likelihoods, "weights": weights.tolist(),
            "cov_det": torch.linalg.det(covs).tolist()}


# ---- Kabsch alignment by SVD with the reflection fix, checked against quaternion and axis-angle rotations ------
def kabsch_alignment(torch, device):
    rng = np.random.default_rng(72)
    dtype = torch.float64

    def quaternion_to_matrix(q):
        q = q / q.norm(dim=-1, keepdim=True)
        w, x, y, z = q.unbind(-1)
        two_s = 2.0 / (q * q).sum(-1)
        m = torch.stack((1 - two_s * (y * y + z * z), two_s * (x * y - z * w), two_s * (x * z + y * w),
                         two_s * (x * y + z * w), 1 - two_s * (x * x + z * z), two_s * (y * z - x * w),
                         two_s * (x * z - y * w), two_s * (y * z + x * w), 1 - two_s * (x * x + y * y)), -1)
        return m.reshape(q.shape[:-1] + (3, 3))

    def axis_angle_to_matrix(v):
        skew = torch.zeros(v.shape[:-1] + (3, 3), dtype=v.dtype, device=v.device)
        skew[..., 0, 1], skew[..., 0, 2], skew[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
        skew = skew - skew.transpose(-1, -2)
        return torch.linalg.matrix_exp(skew)

    def kabsch(p, q):
        p_mean, q_mean = p.mean(-2, keepdim=True), q.mean(-2, keepdim=True)
        h = (p - p_mean).transpose(-1, -2) @ (q - q_mean)
        u, s, vh = torch.linalg.svd(h)
        d = torch.sign(torch.linalg.det(vh.transpose(-1, -2) @ u.transpose(-1, -2)))
        fix = torch.diag_embed(torch.stack([torch.ones_like(d), torch.ones_like(d), d], -1))
        r = vh.transpose(-1, -2) @ fix @ u.transpose(-1, -2)
        t = q_mean - p_mean @ r.transpose(-1, -2)
        return r, t

    quats = _tensor(torch, rng.standard_normal((4, 4)), device, dtype)
    r_true = quaternion_to_matrix(quats)
    points = _tensor(torch, rng.standard_normal((4, 20, 3)), device, dtype)
    shift = _tensor(torch, rng.standard_normal((4, 1, 3)), device, dtype)
    moved = points @ r_true.transpose(-1, -2) + shift
    r, t = kabsch(points, moved)
    rmsd = torch.sqrt(((points @ r.transpose(-1, -2) + t - moved) ** 2).sum(-1).mean(-1))
    axis_angle = _tensor(torch, [[0.0, 0.0, math.pi / 2], [0.3, -0.2, 0.1]], device, dtype)
    r_aa = axis_angle_to_matrix(axis_angle)
    angle = torch.arccos(((torch.diagonal(r_aa, dim1=-2, dim2=-1).sum(-1) - 1) / 2).clamp(-1, 1))
    # gradient of the alignment error with respect to the points goes through svd and det
    p = points[:1].clone().requires_grad_()
    r1, t1 = kabsch(p, moved[:1] + 0.01 * torch.arange(60, dtype=dtype, device=device).view(1, 20, 3))
    err = ((p @ r1.transpose(-1, -2) + t1 - moved[:1]) ** 2).sum()
    err.backward()
    return {"rotation_error": (r - r_true).abs().max().item() < 1e-10, "rmsd": rmsd.max().item() < 1e-10,
            "det": torch.linalg.det(r).tolist(), "t": t.squeeze(1).tolist(), "angle": angle.tolist(),
            "orthogonal": torch.allclose(r_aa @ r_aa.mT, torch.eye(3, dtype=dtype, device=device).expand(2, 3, 3)),
            "err": err.item(), "grad_norm": p.grad.norm().item()}


# ---- CP (CANDECOMP/PARAFAC) decomposition of a 3-way tensor by alternating least squares ----------------------
def cp_decomposition(torch, device):
    rng = np.random.default_rng(73)
    dtype = torch.float64
    rank = 3
    true = [_tensor(torch, rng.standard_normal((n, rank)), device, dtype) for n in (6, 5, 4)]
    tensor = torch.einsum("ir,jr,kr->ijk", *true)
    tensor = tensor + 0.01 * _tensor(torch, rng.standard_normal(tensor.shape), device, dtype)

    def khatri_rao(a, b):
        return (a.unsqueeze(1) * b.unsqueeze(0)).reshape(-1, a.shape[1])

    def unfold(t, mode):
        return torch.movedim(t, mode, 0).reshape(t.shape[mode], -1)

    factors = [_tensor(torch, rng.standard_normal((n, rank)), device, dtype) for n in tensor.shape]
    errors = []
    for _ in range(15):
        for mode in range(3):
            others = [factors[m] for m in range(3) if m != mode]
            kr = khatri_rao(*others)
            gram = (others[0].T @ others[0]) * (others[1].T @ others[1])
            rhs = unfold(tensor, mode) @ kr
            factors[mode] = torch.linalg.solve(gram, rhs.T).T
        recon = torch.einsum("ir,jr,kr->ijk", *factors)
        errors.append((torch.linalg.norm(tensor - recon) / torch.linalg.norm(tensor)).item())
    norms = [f.norm(dim=0) for f in factors]
    weights = torch.stack(norms).prod(0).sort(descending=True).values
    lstsq = torch.linalg.lstsq(khatri_rao(factors[1], factors[2]), unfold(tensor, 0).T).solution.T
    pinv = unfold(tensor, 0) @ torch.linalg.pinv(khatri_rao(factors[1], factors[2])).T
    td = torch.tensordot(tensor, factors[2], dims=([2], [0]))
    return {"final_error": errors[-1], "converged": errors[-1] < 0.05, "monotone": all(
        b <= a + 1e-9 for a, b in zip(errors, errors[1:])), "weights": weights.tolist(),
            "lstsq_vs_pinv": torch.allclose(lstsq, pinv, atol=1e-8), "tensordot": list(td.shape),
            "first_errors": errors[:3]}


# ---- restricted Boltzmann machine trained with mean-field CD-1, free energy and reconstruction error -----------
def rbm_contrastive_divergence(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(74)
    patterns = rng.uniform(size=(4, 12)) < 0.5
    data_np = patterns[rng.integers(0, 4, 64)].astype(np.float32)
    flips = rng.uniform(size=data_np.shape) < 0.05
    data = _tensor(torch, np.where(flips, 1 - data_np, data_np), device)

    class RBM(nn.Module):
        def __init__(self, n_visible, n_hidden):
            super().__init__()
            self.W = nn.Parameter(torch.empty(n_hidden, n_visible))
            self.v_bias = nn.Parameter(torch.zeros(n_visible))
            self.h_bias = nn.Parameter(torch.zeros(n_hidden))

        def free_energy(self, v):
            return -(v @ self.v_bias) - F.softplus(F.linear(v, self.W, self.h_bias)).sum(1)

        def gibbs_mean_field(self, v):
            h = torch.sigmoid(F.linear(v, self.W, self.h_bias))
            return torch.sigmoid(F.linear(h, self.W.t(), self.v_bias))

    rbm = RBM(12, 6).to(device)
    init_from_numpy(torch, rbm, 75)
    opt = torch.optim.SGD(rbm.parameters(), lr=0.1, momentum=0.5)
    history = []
    for epoch in range(6):
        for batch in data.split(16):
            v_model = rbm.gibbs_mean_field(batch).detach()
            loss = rbm.free_energy(batch).mean() - rbm.free_energy(v_model).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            recon = F.binary_cross_entropy(rbm.gibbs_mean_field(data), data).item()
        history.append(recon)
    # the exact log partition function over all 2**12 visible states, via logsumexp of -free energy
    states = ((torch.arange(2 ** 12, device=device).unsqueeze(1) >> torch.arange(12, device=device)) & 1).float()
    with torch.no_grad():
        log_z = torch.logsumexp(-rbm.free_energy(states), dim=0)
        avg_ll = (-rbm.free_energy(data) - log_z).mean()
    return {"recon": history, "log_z": log_z.item(), "avg_log_likelihood": avg_ll.item(),
            "states": [states.shape[0], int(states.sum().item())]}


# ---- beam search over a small GRU decoder: flattened top-k, floor division to recover beams, finished beams --
def beam_search(torch, device):
    nn = torch.nn
    vocab, hidden, bos, eos = 7, 10, 0, 1

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.cell = nn.GRUCell(hidden, hidden)
            self.out = nn.Linear(hidden, vocab)

        def forward(self, token, h):
            h = self.cell(self.embed(token), h)
            return self.out(h).log_softmax(-1), h

    dec = Decoder().to(device)
    init_from_numpy(torch, dec, 76)
    with torch.no_grad():
        dec.out.weight.mul_(6)
    beam, max_len = 3, 6
    h = torch.zeros(1, hidden, device=device)
    with torch.no_grad():
        log_probs, h = dec(torch.tensor([bos], device=device), h)
        scores, tokens = log_probs[0].topk(beam)
        seqs = tokens.unsqueeze(1)
        h = h.expand(beam, -1).contiguous()
        finished = []
        for _ in range(max_len - 1):
            log_probs, h_new = dec(seqs[:, -1], h)
            total = (scores.unsqueeze(1) + log_probs).view(-1)
            top_scores, flat = total.topk(beam)
            origin = torch.div(flat, vocab, rounding_mode="floor")
            token = flat % vocab
            seqs = torch.cat([seqs.index_select(0, origin), token.unsqueeze(1)], dim=1)
            h = h_new[origin]
            scores = top_scores
            done = token == eos
            for i in done.nonzero(as_tuple=True)[0].tolist():
                finished.append((scores[i].item() / seqs.shape[1] ** 0.7, seqs[i].tolist()))
            scores = scores.masked_fill(done, float("-inf"))
            if torch.isinf(scores).all():
                break
        for i in range(beam):
            if torch.isfinite(scores[i]):
                finished.append((scores[i].item() / seqs.shape[1] ** 0.7, seqs[i].tolist()))
    finished.sort(key=lambda item: item[0], reverse=True)
    greedy = []
    with torch.no_grad():
        token, hg = torch.tensor([bos], device=device), torch.zeros(1, hidden, device=device)
        for _ in range(max_len):
            lp, hg = dec(token, hg)
            token = lp.argmax(-1)
            greedy.append(token.item())
    return {"best": finished[0][1], "best_score": finished[0][0], "n_finished": len(finished),
            "all": [s for _, s in finished], "greedy": greedy}


# ---- Kalman filter for a constant-velocity model; noise levels learned through the marginal likelihood ---------
def kalman_filter(torch, device):
    rng = np.random.default_rng(77)
    dtype = torch.float64
    steps = 25
    true_pos = np.cumsum(0.3 + 0.1 * rng.standard_normal(steps))
    obs = _tensor(torch, true_pos + 0.5 * rng.standard_normal(steps), device, dtype).unsqueeze(-1)
    A = _tensor(torch, [[1.0, 1.0], [0.0, 1.0]], device, dtype)
    H = _tensor(torch, [[1.0, 0.0]], device, dtype)
    log_q = torch.tensor(-2.0, dtype=dtype, device=device, requires_grad=True)
    log_r = torch.tensor(0.0, dtype=dtype, device=device, requires_grad=True)

    def filter_nll(log_q, log_r):
        Q = torch.exp(log_q) * torch.eye(2, dtype=dtype, device=device)
        R = torch.exp(log_r).reshape(1, 1)
        mean = torch.zeros(2, 1, dtype=dtype, device=device)
        cov = torch.eye(2, dtype=dtype, device=device) * 10
        nll = 0
        means = []
        for t in range(steps):
            mean, cov = A @ mean, A @ cov @ A.T + Q
            S = H @ cov @ H.T + R
            L = torch.linalg.cholesky(S)
            innovation = obs[t].unsqueeze(-1) - H @ mean
            nll = nll - torch.distributions.MultivariateNormal(
                (H @ mean).squeeze(-1), scale_tril=L).log_prob(obs[t])
            gain = torch.cholesky_solve(H @ cov, L).T
            mean = mean + gain @ innovation
            eye = torch.eye(2, dtype=dtype, device=device)
            cov = (eye - gain @ H) @ cov @ (eye - gain @ H).T + gain @ R @ gain.T  # Joseph form
            means.append(mean.squeeze(-1))
        return nll, torch.stack(means)

    opt = torch.optim.Adam([log_q, log_r], lr=0.1)
    nlls = []
    for _ in range(6):
        nll, means = filter_nll(log_q, log_r)
        opt.zero_grad()
        nll.backward()
        opt.step()
        nlls.append(nll.item())
    L = torch.linalg.cholesky(torch.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=dtype, device=device))
    tri = torch.linalg.solve_triangular(L, torch.eye(2, dtype=dtype, device=device), upper=False)
    return {"nlls": nlls, "log_q": log_q.item(), "log_r": log_r.item(), "last_mean": means[-1].tolist(),
            "tri": tri.tolist(), "logdet": torch.logdet(L @ L.T).item(),
            "slogdet": list(torch.linalg.slogdet(L @ L.T))[0].item()}


# ---- spectral clustering: RBF affinity, symmetric normalised Laplacian, eigh, row-normalised embedding ---------
def spectral_clustering(torch, device):
    rng = np.random.default_rng(78)
    angles = rng.uniform(0, 2 * np.pi, 60)
    radii = np.where(np.arange(60) < 30, 1.0, 3.0) + 0.1 * rng.standard_normal(60)
    x = _tensor(torch, np.stack([radii * np.cos(angles), radii * np.sin(angles)], 1), device, torch.float64)
    sq = torch.cdist(x, x).pow(2)
    affinity = torch.exp(-sq / (2 * 0.8 ** 2))
    affinity.fill_diagonal_(0)
    degree = affinity.sum(1)
    d_inv_sqrt = torch.diag(degree.rsqrt())
    laplacian = torch.eye(60, dtype=x.dtype, device=device) - d_inv_sqrt @ affinity @ d_inv_sqrt
    evals, evecs = torch.linalg.eigh(laplacian)
    embedding = torch.nn.functional.normalize(evecs[:, :2], dim=1)
    # two clusters: sign of the projection on the direction of the first point's embedding
    similarity = embedding @ embedding[0]
    labels = (similarity > 0.5).long()
    ring = torch.arange(60, device=device) < 30
    agreement = max((labels == ring.long()).float().mean().item(), (labels != ring.long()).float().mean().item())
    eigvals_only = torch.linalg.eigvalsh(laplacian)
    return {"evals": evals[:4].tolist(), "agreement": agreement, "eigvalsh_same": torch.allclose(
        evals, eigvals_only), "largest": evals[-1].item(), "trace": laplacian.trace().item()}


PROGRAMS = [kmeans_gmm, kabsch_alignment, cp_decomposition, rbm_contrastive_divergence, beam_search, kalman_filter,
            spectral_clustering]
