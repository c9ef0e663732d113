"""Sweep 7 programs, data-pipeline and sequence code: image augmentations written with tensor ops (padding modes,
roll/flip/rot90, an RGB->HSV->RGB colour jitter, a separable Gaussian blur with grouped convolutions, random
affine warps through affine_grid), the torch.nn.utils.rnn toolkit around a char-level LSTM (pad_sequence with
padding_side, pack_sequence, unpad_sequence, unpack_sequence, an LSTM with proj_size), skip-gram word2vec with
negative sampling on sparse embeddings and SparseAdam, and a normalising flow assembled from
torch.distributions transforms.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep7.py). Parameters and data come from NumPy so both libraries start from the same numbers."""

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- image augmentations written with tensor ops ------------------------------------------------------------
def image_augmentation(torch, device):
    F = torch.nn.functional
    image = torch.sigmoid(numpy_input(torch, 101, 2, 3, 12, 12, device=device))

    def rgb_to_hsv(img, eps=1e-8):
        r, g, b = img.unbind(-3)
        max_rgb, argmax = img.max(-3)
        min_rgb = img.min(-3).values
        delta = max_rgb - min_rgb
        s = delta / (max_rgb + eps)
        delta_safe = torch.where(delta == 0, torch.ones_like(delta), delta)
        h = torch.stack([((g - b) / delta_safe) % 6, (b - r) / delta_safe + 2, (r - g) / delta_safe + 4], -3)
        h = torch.gather(h, -3, argmax.unsqueeze(-3)).squeeze(-3) / 6.0
        h = torch.where(delta == 0, torch.zeros_like(h), h)
        return torch.stack([h, s, max_rgb], -3)

    def hsv_to_rgb(img):
        h, s, v = img.unbind(-3)
        i = torch.floor(h * 6) % 6
        f = h * 6 - torch.floor(h * 6)
        p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
        i = i.long().unsqueeze(-3)
        choices = torch.stack([torch.stack(c, -3) for c in
                               ((v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q))], -4)
        return torch.gather(choices, -4, i.unsqueeze(-4).expand(*i.shape[:-3], 1, 3, *i.shape[-2:])).squeeze(-4)

    def gaussian_blur(img, sigma, size=5):
        x = torch.arange(size, dtype=img.dtype, device=img.device) - size // 2
        kernel = torch.exp(-x ** 2 / (2 * sigma ** 2))
        kernel = kernel / kernel.sum()
        c = img.shape[1]
        img = F.pad(img, (size // 2,) * 4, mode="reflect")
        img = F.conv2d(img, kernel.view(1, 1, 1, -1).repeat(c, 1, 1, 1), groups=c)
        return F.conv2d(img, kernel.view(1, 1, -1, 1).repeat(c, 1, 1, 1), groups=c)

    hsv = rgb_to_hsv(image)
    jittered = hsv.clone()
    jittered[:, 0] = (jittered[:, 0] + 0.1) % 1.0
    jittered[:, 1] = (jittered[:, 1] * 1.2).clamp(0, 1)
    back = hsv_to_rgb(jittered)
    round_trip = (hsv_to_rgb(hsv) - image).abs().max().item()
    blurred = gaussian_blur(image, 1.2)
    pads = {mode: F.pad(image[:1, :1, :4, :4], (2, 1, 1, 2), mode=mode)[0, 0, 0].tolist()
            for mode in ("constant", "reflect", "replicate", "circular")}
    rolled = torch.roll(image, shifts=(2, -3), dims=(2, 3))
    flipped = torch.flip(image, dims=[3])
    rotated = torch.rot90(image, k=1, dims=(2, 3))
    angle = torch.tensor([0.3, -0.5], device=device)
    theta = torch.zeros(2, 2, 3, device=device)
    theta[:, 0, 0], theta[:, 0, 1] = torch.cos(angle) * 0.9, -torch.sin(angle)
    theta[:, 1, 0], theta[:, 1, 1] = torch.sin(angle), torch.cos(angle) * 0.9
    theta[:, :, 2] = torch.tensor([0.1, -0.2], device=device)
    grid = F.affine_grid(theta, list(image.shape), align_corners=False)
    warped = F.grid_sample(image, grid, mode="bilinear", padding_mode="reflection", align_corners=False)
    nearest = F.grid_sample(image, grid, mode="nearest", padding_mode="border", align_corners=True)
    normalized = (image - image.mean(dim=(0, 2, 3), keepdim=True)) / image.std(dim=(0, 2, 3), keepdim=True)
    return {"round_trip": round_trip < 1e-5, "jitter": _rounded(back[0, :, 0, :3]), "blur": _rounded(blurred[1, 2, 5]),
            "pads": {k: [round(v, 5) for v in row] for k, row in pads.items()},
            "rolled": _rounded(rolled[0, 0, 0, :3]), "flipped": _rounded(flipped[0, 0, 0, :3]),
            "rotated": _rounded(rotated[0, 0, 0, :3]), "warped": _rounded(warped[1, 0, 4]),
            "nearest": _rounded(nearest[0, 1, 3]), "normalized_std": _rounded(normalized.std(dim=(0, 2, 3)))}


# ---- the rnn utilities around a char-level LSTM language model ---------------------------------------------
def rnn_utilities(torch, device):
    nn = torch.nn
    rnn = nn.utils.rnn
    text = ["hello world", "tensors", "a", "graph neural nets", "flow"]
    vocab = sorted(set("".join(text)))
    stoi = {ch: i + 1 for i, ch in enumerate(vocab)}  # 0 is padding
    seqs = [torch.tensor([stoi[c] for c in s], device=device) for s in text]
    lengths = torch.tensor([len(s) for s in seqs])
    right = rnn.pad_sequence(seqs, batch_first=True)
    left = rnn.pad_sequence(seqs, batch_first=True, padding_value=0, padding_side="left")
    unpadded = rnn.unpad_sequence(right, lengths, batch_first=True)

    class CharLM(nn.Module):
        def __init__(self, n_vocab, dim=12):
            super().__init__()
            self.embed = nn.Embedding(n_vocab + 1, dim, padding_idx=0)
            self.lstm = nn.LSTM(dim, 16, num_layers=2, batch_first=True, proj_size=8, dropout=0.0)
            self.gru = nn.GRU(dim, 6, batch_first=True, bidirectional=True)
            self.out = nn.Linear(8 + 12, n_vocab + 1)

        def forward(self, tokens, lengths):
            emb = self.embed(tokens)
            packed = rnn.pack_padded_sequence(emb, lengths, batch_first=True, enforce_sorted=False)
            h1, (h_n, c_n) = self.lstm(packed)
            h2, _ = self.gru(packed)
            h1, out_lengths = rnn.pad_packed_sequence(h1, batch_first=True, total_length=tokens.shape[1])
            h2, _ = rnn.pad_packed_sequence(h2, batch_first=True, total_length=tokens.shape[1])
            return self.out(torch.cat([h1, h2], -1)), h_n, c_n, out_lengths

    model = CharLM(len(vocab)).to(device)
    init_from_numpy(torch, model, 102)
    inputs, targets = right[:, :-1], right[:, 1:]
    in_lengths = (lengths - 1).clamp(min=1)
    opt = torch.optim.RMSprop(model.parameters(), lr=3e-3, alpha=0.9, centered=True)
    losses = []
    for _ in range(4):
        logits, h_n, c_n, out_lengths = model(inputs, in_lengths)
        loss = nn.functional.cross_entropy(logits.transpose(1, 2), targets, ignore_index=0)
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        losses.append(loss.item())
    packed = rnn.pack_sequence([s.float() for s in sorted(seqs, key=len, reverse=True)])
    unpacked = rnn.unpack_sequence(packed)
    unsorted = rnn.pack_sequence([s.float() for s in seqs], enforce_sorted=False)
    return {"right": right.tolist(), "left": left[:, :4].tolist(), "unpadded": [len(u) for u in unpadded],
            "losses": losses, "shapes": [list(h_n.shape), list(c_n.shape)], "out_lengths": out_lengths.tolist(),
            "batch_sizes": packed.batch_sizes.tolist(), "unpacked": [u.tolist() for u in unpacked[-2:]],
            "sorted_indices": unsorted.sorted_indices.tolist(), "unsorted_indices": unsorted.unsorted_indices.tolist()}


# ---- skip-gram word2vec with negative sampling on sparse embeddings ---------------------------------------
def word2vec(torch, device):
    nn = torch.nn
    F = nn.functional
    rng = np.random.default_rng(103)
    corpus = rng.integers(0, 30, 300)
    window = 2
    pairs = np.array([(corpus[i], corpus[j]) for i in range(len(corpus))
                      for j in range(max(0, i - window), min(len(corpus), i + window + 1)) if i != j])
    counts = np.bincount(corpus, minlength=30) ** 0.75
    negatives = rng.choice(30, size=(len(pairs), 5), p=counts / counts.sum())

    class SkipGram(nn.Module):
        def __init__(self, n, dim):
            super().__init__()
            self.center = nn.Embedding(n, dim, sparse=True)
            self.context = nn.Embedding(n, dim, sparse=True)

        def forward(self, center, context, negative):
            c = self.center(center)
            pos = F.logsigmoid((c * self.context(context)).sum(-1))
            neg = F.logsigmoid(-torch.bmm(self.context(negative), c.unsqueeze(2)).squeeze(2)).sum(-1)
            return -(pos + neg).mean()

    model = SkipGram(30, 8).to(device)
    init_from_numpy(torch, model, 104)
    opt = torch.optim.SparseAdam(list(model.parameters()), lr=0.01)
    pairs_t = torch.tensor(pairs, device=device)
    negatives_t = torch.tensor(negatives, device=device)
    losses = []
    for batch in range(0, 600, 150):
        loss = model(pairs_t[batch:batch + 150, 0], pairs_t[batch:batch + 150, 1], negatives_t[batch:batch + 150])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    grad = model.center.weight.grad
    with torch.no_grad():
        emb = F.normalize(model.center.weight, dim=1)
        sims = emb @ emb[3]
        top = sims.topk(4).indices.tolist()
        cos = F.cosine_similarity(model.center.weight[:5], model.context.weight[:5], dim=1)
    return {"losses": losses, "sparse_grad": [grad.is_sparse, grad.coalesce()._nnz()], "top": top,
            "cos": _rounded(cos)}


# ---- a normalising flow assembled from torch.distributions transforms ------------------------------------
def distribution_flow(torch, device):
    D = torch.distributions
    T = D.transforms
    nn = torch.nn
    rng = np.random.default_rng(105)
    data = torch.tensor(np.exp(rng.standard_normal((200, 2)) * [0.5, 0.3] + [1.0, -0.5]), dtype=torch.float32,
                        device=device)
    loc = nn.Parameter(torch.zeros(2, device=device))
    log_scale = nn.Parameter(torch.zeros(2, device=device))
    base = D.Independent(D.Normal(torch.zeros(2, device=device), torch.ones(2, device=device)), 1)
    opt = torch.optim.Adam([loc, log_scale], lr=0.05)
    nlls = []
    for _ in range(6):
        flow = D.TransformedDistribution(base, [T.AffineTransform(loc, log_scale.exp(), event_dim=1),
                                                T.ExpTransform()])
        nll = -flow.log_prob(data).mean()
        opt.zero_grad()
        nll.backward()
        opt.step()
        nlls.append(nll.item())
    positive = D.biject_to(D.constraints.positive)
    simplex = D.biject_to(D.constraints.simplex)
    unit = D.transform_to(D.constraints.unit_interval)
    raw = torch.tensor([-1.0, 0.0, 2.0], device=device)
    composed = T.ComposeTransform([T.AffineTransform(0.5, 2.0), T.SigmoidTransform(), T.PowerTransform(2.0)])
    y = composed(raw)
    tanh = T.TanhTransform(cache_size=1)
    squashed = D.TransformedDistribution(D.Normal(torch.zeros(3, device=device), torch.ones(3, device=device)),
                                         [tanh])
    log_normal = D.LogNormal(torch.tensor(0.2, device=device), torch.tensor(0.7, device=device))
    manual = D.TransformedDistribution(D.Normal(torch.tensor(0.2, device=device), torch.tensor(0.7, device=device)),
                                       T.ExpTransform())
    kl = D.kl_divergence(D.Normal(loc.detach(), log_scale.detach().exp()),
                         D.Normal(torch.zeros(2, device=device), torch.ones(2, device=device)))
    points = torch.tensor([0.5, 1.0, 3.0], device=device)
    return {"nlls": nlls, "positive": _rounded(positive(raw)), "simplex": _rounded(simplex(raw)),
            "unit": _rounded(unit(raw)), "composed": _rounded(y),
            "inverse": _rounded(composed.inv(y)), "log_det": _rounded(composed.log_abs_det_jacobian(raw, y)),
            "squashed": _rounded(squashed.log_prob(torch.tensor([-0.5, 0.0, 0.9], device=device))),
            "log_normal": _rounded(log_normal.log_prob(points) - manual.log_prob(points)),
            "kl": _rounded(kl), "event_shape": list(flow.event_shape), "sign": int(composed.sign)
            if isinstance(composed.sign, int) else composed.sign.item()}


PROGRAMS = [image_augmentation, rnn_utilities, distribution_flow, word2vec]
# Programs that need the C++ core to change (strict xfails in test_programs_sweep7.py).
NEEDS_CPP = {}
