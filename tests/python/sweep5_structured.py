"""Sweep 5 programs, structured prediction and geometry: a BiLSTM-CRF tagger with Viterbi decoding, a pointer
network that learns to sort, a capsule net with dynamic routing, PointNet with a Chamfer loss, and a set
transformer over padded sets.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep5.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def uniform_input(torch, seed, *shape, device="cpu"):
    values = np.random.default_rng(seed).uniform(0, 1, size=shape)
    return torch.tensor(values, dtype=torch.get_default_dtype(), device=device)


# ---- BiLSTM-CRF: forward algorithm with logsumexp, gold path score with gather, Viterbi decoding ----------------
def bilstm_crf(torch, device):
    nn = torch.nn
    n_tags, vocab, T, B = 5, 20, 7, 3

    class CRFTagger(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, 8, padding_idx=0)
            self.lstm = nn.LSTM(8, 6, batch_first=True, bidirectional=True)
            self.emit = nn.Linear(12, n_tags)
            self.transitions = nn.Parameter(torch.zeros(n_tags, n_tags))  # [from, to]
            self.start = nn.Parameter(torch.zeros(n_tags))
            self.end = nn.Parameter(torch.zeros(n_tags))

        def emissions(self, tokens):
            return self.emit(self.lstm(self.embed(tokens))[0])

        def log_partition(self, em, mask):
            score = self.start + em[:, 0]
            for t in range(1, em.size(1)):
                nxt = torch.logsumexp(score.unsqueeze(2) + self.transitions + em[:, t].unsqueeze(1), dim=1)
                score = torch.where(mask[:, t].unsqueeze(1), nxt, score)
            return torch.logsumexp(score + self.end, dim=1)

        def gold_score(self, em, tags, mask):
            score = self.start[tags[:, 0]] + em[:, 0].gather(1, tags[:, :1]).squeeze(1)
            for t in range(1, em.size(1)):
                step = self.transitions[tags[:, t - 1], tags[:, t]] + em[:, t].gather(1, tags[:, t:t + 1]).squeeze(1)
                score = score + step * mask[:, t]
            last = tags.gather(1, (mask.sum(1, keepdim=True) - 1).long()).squeeze(1)
            return score + self.end[last]

        def viterbi(self, em, mask):
            score = self.start + em[:, 0]
            history = []
            for t in range(1, em.size(1)):
                best, idx = (score.unsqueeze(2) + self.transitions).max(dim=1)
                history.append(idx)
                score = torch.where(mask[:, t].unsqueeze(1), best + em[:, t], score)
            score = score + self.end
            paths = []
            lengths = mask.sum(1).tolist()
            for b in range(em.size(0)):
                tag = score[b].argmax().item()
                path = [tag]
                for idx in reversed(history[:lengths[b] - 1]):
                    tag = idx[b, tag].item()
                    path.append(tag)
                paths.append(path[::-1])
            return paths

    model = CRFTagger().to(device)
    init_from_numpy(torch, model, 41)
    rng = np.random.default_rng(42)
    lengths = [7, 5, 3]
    tokens = torch.zeros(B, T, dtype=torch.long, device=device)
    tags = torch.zeros(B, T, dtype=torch.long, device=device)
    for b, n in enumerate(lengths):
        tokens[b, :n] = torch.tensor(rng.integers(1, vocab, size=n))
        tags[b, :n] = torch.tensor(rng.integers(0, n_tags, size=n))
    mask = tokens != 0
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    losses = []
    for _ in range(4):
        em = model.emissions(tokens)
        loss = (model.log_partition(em, mask) - model.gold_score(em, tags, mask)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        paths = model.viterbi(model.emissions(tokens), mask)
    return {"losses": losses, "path_lengths": [len(p) for p in paths], "paths": paths}


# ---- pointer network: attention over the encoder states picks the next input; learns to sort -------------------
def pointer_network(torch, device):
    nn = torch.nn
    F = nn.functional
    B, n, H = 4, 6, 16

    class PointerNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.LSTM(1, H, batch_first=True)
            self.decoder = nn.LSTMCell(1, H)
            self.W1 = nn.Linear(H, H, bias=False)
            self.W2 = nn.Linear(H, H, bias=False)
            self.v = nn.Linear(H, 1, bias=False)
            self.first_input = nn.Parameter(torch.zeros(1))

        def forward(self, x, targets=None):
            enc, (h, c) = self.encoder(x.unsqueeze(-1))
            h, c = h[0], c[0]
            dec_in = self.first_input.expand(x.size(0), 1)
            visited = torch.zeros(x.size(0), x.size(1), dtype=torch.bool, device=x.device)
            all_logits, picks = [], []
            for step in range(x.size(1)):
                h, c = self.decoder(dec_in, (h, c))
                scores = self.v(torch.tanh(self.W1(enc) + self.W2(h).unsqueeze(1))).squeeze(-1)
                scores = scores.masked_fill(visited, float("-inf"))
                all_logits.append(scores)
                pick = scores.argmax(1) if targets is None else targets[:, step]
                picks.append(pick)
                visited = visited.scatter(1, pick.unsqueeze(1), True)
                dec_in = x.gather(1, pick.unsqueeze(1))
            return torch.stack(all_logits, 1), torch.stack(picks, 1)

    model = PointerNet().to(device)
    init_from_numpy(torch, model, 43)
    x = uniform_input(torch, 44, B, n, device=device)
    targets = x.argsort(dim=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(4):
        logits, _ = model(x, targets)
        # teacher forcing: the visited inputs are -inf, which log_softmax and nll_loss leave out of the loss
        loss = F.nll_loss(F.log_softmax(logits, dim=-1).reshape(-1, n), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    with torch.no_grad():
        _, picks = model(x)
    is_permutation = bool((picks.sort(1).values == torch.arange(n, device=device)).all())
    return {"losses": losses, "is_permutation": is_permutation, "picks_dtype": str(picks.dtype)}


# ---- capsule net: primary capsules, squash, routing by agreement, margin loss and a masked reconstruction -------
def capsule_net(torch, device):
    nn = torch.nn
    F = nn.functional

    def squash(s, dim=-1):
        norm2 = (s ** 2).sum(dim=dim, keepdim=True)
        return norm2 / (1 + norm2) * s / torch.sqrt(norm2 + 1e-8)

    class CapsNet(nn.Module):
        def __init__(self, n_classes=3, routing_iters=3):
            super().__init__()
            self.conv = nn.Conv2d(1, 16, 5)
            self.primary = nn.Conv2d(16, 4 * 8, 5, stride=2)  # 8 capsule maps of dimension 4
            n_primary = 8 * 2 * 2
            self.W = nn.Parameter(0.1 * torch.ones(1, n_primary, n_classes, 8, 4))
            self.iters = routing_iters
            self.decoder = nn.Sequential(nn.Linear(8 * n_classes, 32), nn.ReLU(), nn.Linear(32, 144), nn.Sigmoid())

        def forward(self, x, y_onehot):
            h = F.relu(self.conv(x))
            u = self.primary(h).view(x.size(0), 8, 4, -1).permute(0, 1, 3, 2).reshape(x.size(0), -1, 4)
            u = squash(u)
            u_hat = (self.W @ u[:, :, None, :, None]).squeeze(-1)  # (B, n_primary, classes, 8)
            b = torch.zeros(u_hat.shape[:3], device=x.device)
            for i in range(self.iters):
                c = b.softmax(dim=2)
                v = squash((c.unsqueeze(-1) * u_hat).sum(dim=1))
                if i < self.iters - 1:
                    b = b + (u_hat * v.unsqueeze(1)).sum(-1)
            lengths = v.norm(dim=-1)
            recon = self.decoder((v * y_onehot.unsqueeze(-1)).flatten(1))
            return lengths, recon

    def margin_loss(lengths, y_onehot, m_plus=0.9, m_minus=0.1, lam=0.5):
        left = F.relu(m_plus - lengths) ** 2
        right = F.relu(lengths - m_minus) ** 2
        return (y_onehot * left + lam * (1 - y_onehot) * right).sum(1).mean()

    model = CapsNet().to(device)
    init_from_numpy(torch, model, 45)
    images = uniform_input(torch, 46, 5, 1, 12, 12, device=device)
    labels = torch.tensor([0, 1, 2, 1, 0], device=device)
    y_onehot = F.one_hot(labels, 3).to(images.dtype)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for _ in range(3):
        lengths, recon = model(images, y_onehot)
        loss = margin_loss(lengths, y_onehot) + 0.0005 * F.mse_loss(recon, images.flatten(1), reduction="sum")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "lengths": lengths.detach()[0].tolist()}


# ---- PointNet autoencoder: shared MLP as Conv1d, max-pool symmetric function, Chamfer distance via cdist -------
def pointnet_chamfer(torch, device):
    nn = torch.nn

    def chamfer(a, b):
        d = torch.cdist(a, b)  # (B, Na, Nb)
        return d.min(dim=2).values.pow(2).mean(1) + d.min(dim=1).values.pow(2).mean(1)

    class PointNetAE(nn.Module):
        def __init__(self, n_points=32):
            super().__init__()
            self.n_points = n_points
            self.encoder = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1))
            self.decoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, n_points * 3))

        def forward(self, pts):  # (B, N, 3)
            feats = self.encoder(pts.transpose(1, 2))
            code = torch.max(feats, 2, keepdim=False)[0]
            return self.decoder(code).view(-1, self.n_points, 3), code

    rng = np.random.default_rng(47)
    sphere = rng.standard_normal((4, 32, 3))
    sphere /= np.linalg.norm(sphere, axis=2, keepdims=True)
    points = torch.tensor(sphere * rng.uniform(0.5, 1.5, size=(4, 1, 1)), dtype=torch.float32, device=device)
    model = PointNetAE().to(device)
    init_from_numpy(torch, model, 48)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    losses = []
    for _ in range(4):
        recon, code = model(points)
        loss = chamfer(recon, points).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    # permutation invariance of the encoder (eval mode: batch norm uses running statistics)
    model.eval()
    with torch.no_grad():
        perm = torch.tensor(rng.permutation(32), device=device)
        _, a = model(points)
        _, b = model(points[:, perm])
        # k nearest neighbours by topk of negated distances, as DGCNN's knn
        knn = (-torch.cdist(points, points)).topk(k=4, dim=-1).indices
    return {"losses": losses, "invariant": bool(torch.allclose(a, b, atol=1e-6)), "knn_self": bool(
        (knn[..., 0] == torch.arange(32, device=device)).all()), "knn_shape": list(knn.shape)}


# ---- set transformer: MultiheadAttention with key_padding_mask over padded sets, pooling by attention ----------
def set_transformer(torch, device):
    nn = torch.nn

    class SetTransformer(nn.Module):
        def __init__(self, dim=16, heads=4):
            super().__init__()
            self.embed = nn.Linear(2, dim)
            self.self_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
            self.norm = nn.LayerNorm(dim)
            self.seed = nn.Parameter(torch.zeros(1, 1, dim))
            self.pool = nn.MultiheadAttention(dim, heads, batch_first=True)
            self.head = nn.Linear(dim, 1)

        def forward(self, x, pad_mask):
            h = self.embed(x)
            attn, weights = self.self_attn(h, h, h, key_padding_mask=pad_mask, need_weights=True)
            h = self.norm(h + attn)
            pooled, _ = self.pool(self.seed.expand(x.size(0), -1, -1), h, h, key_padding_mask=pad_mask)
            return self.head(pooled.squeeze(1)).squeeze(-1), weights

    rng = np.random.default_rng(49)
    sizes = [6, 3, 5, 2]
    x_np = np.zeros((4, 6, 2))
    for i, s in enumerate(sizes):
        x_np[i, :s] = rng.standard_normal((s, 2))
    x = torch.tensor(x_np, dtype=torch.float32, device=device)
    pad_mask = torch.arange(6, device=device).unsqueeze(0) >= torch.tensor(sizes, device=device).unsqueeze(1)
    target = torch.tensor([x_np[i, :s, 0].max() for i, s in enumerate(sizes)], dtype=torch.float32, device=device)
    model = SetTransformer().to(device)
    init_from_numpy(torch, model, 50)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
    losses = []
    for _ in range(4):
        pred, weights = model(x, pad_mask)
        loss = nn.functional.smooth_l1_loss(pred, target, beta=0.5)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses, "weights_shape": list(weights.shape),
            "masked_weight": weights[1, 0, 3:].abs().sum().item(), "row_sum": weights[3, 1].sum().item()}


PROGRAMS = [bilstm_crf, pointer_network, capsule_net, pointnet_chamfer, set_transformer]
