"""Sweep 8 programs on the losses research code writes by hand: a CLIP-style symmetric contrastive loss with a
learned temperature, knowledge distillation (temperature-scaled KL, feature hints through forward hooks),
label smoothing and mixup/cutmix with soft targets, a supervised-contrastive loss, and ArcFace margins.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import math

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- CLIP: two towers, normalised embeddings, a learned logit scale clamped at 100, symmetric cross-entropy -------
def clip_contrastive(torch, device):
    nn = torch.nn
    F = nn.functional

    class CLIP(nn.Module):
        def __init__(self, img_dim=10, txt_vocab=20, embed_dim=8):
            super().__init__()
            self.visual = nn.Sequential(nn.Linear(img_dim, 16), nn.GELU(), nn.Linear(16, embed_dim))
            self.token_embedding = nn.Embedding(txt_vocab, 16)
            self.positional_embedding = nn.Parameter(torch.empty(6, 16))
            self.ln_final = nn.LayerNorm(16)
            self.text_projection = nn.Parameter(torch.empty(16, embed_dim))
            self.logit_scale = nn.Parameter(torch.ones([]) * np.log(1 / 0.07))
            nn.init.normal_(self.positional_embedding, std=0.01)
            nn.init.normal_(self.text_projection, std=16 ** -0.5)

        def encode_text(self, text):
            x = self.token_embedding(text) + self.positional_embedding
            # a causal running mean stands in for the causal transformer: each position sees its prefix
            x = x.cumsum(dim=1) / torch.arange(1, x.shape[1] + 1, device=x.device).view(1, -1, 1)
            x = self.ln_final(x)
            # features from the end-of-text token (the highest id in each sequence)
            return x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection

        def forward(self, image, text):
            image_features = self.visual(image)
            text_features = self.encode_text(text)
            image_features = image_features / image_features.norm(dim=1, keepdim=True)
            text_features = text_features / text_features.norm(dim=1, keepdim=True)
            logit_scale = self.logit_scale.exp()
            logits_per_image = logit_scale * image_features @ text_features.t()
            return logits_per_image, logits_per_image.t()

    model = CLIP().to(device)
    init_from_numpy(torch, model, 1300)
    with torch.no_grad():
        model.logit_scale.fill_(math.log(1 / 0.07))
    rng = np.random.default_rng(1301)
    images = torch.tensor(rng.standard_normal((6, 10)), dtype=torch.float32, device=device)
    texts = torch.tensor(rng.integers(0, 19, (6, 6)), device=device)
    texts[torch.arange(6), torch.tensor([5, 3, 4, 2, 5, 4])] = 19  # the end-of-text token
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2 and "embedding" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.ndim >= 2 and "embedding" not in n)]
    opt = torch.optim.AdamW([{"params": no_decay, "weight_decay": 0.0}, {"params": decay, "weight_decay": 0.2}],
                            lr=5e-3, betas=(0.9, 0.98), eps=1e-6)
    losses, accs = [], []
    for step in range(5):
        logits_per_image, logits_per_text = model(images, texts)
        ground_truth = torch.arange(len(images), dtype=torch.long, device=device)
        total_loss = (F.cross_entropy(logits_per_image, ground_truth)
                      + F.cross_entropy(logits_per_text, ground_truth)) / 2
        opt.zero_grad()
        total_loss.backward()
        opt.step()
        with torch.no_grad():
            model.logit_scale.clamp_(0, math.log(100))
        losses.append(round(total_loss.item(), 4))
        accs.append((logits_per_image.argmax(1) == ground_truth).float().mean().item())
    # zero-shot: class prompts' embeddings as a classifier, softmax over the scaled similarities
    with torch.no_grad():
        text_feats = F.normalize(model.encode_text(texts[:3]), dim=-1)
        img_feats = F.normalize(model.visual(images), dim=-1)
        probs = (100.0 * img_feats @ text_feats.T).softmax(dim=-1)
        top_probs, top_labels = probs.cpu().topk(2, dim=-1)
    # SigLIP: a pairwise sigmoid loss with a learned bias
    logits = model.logit_scale.exp().detach() * img_feats @ F.normalize(model.encode_text(texts), dim=-1).T - 10.0
    labels = 2 * torch.eye(6, device=device) - torch.ones(6, 6, device=device)
    siglip = -F.logsigmoid(labels * logits).sum() / 6
    return {"losses": losses, "accs": accs, "scale": round(model.logit_scale.item(), 5),
            "top_labels": top_labels.tolist(), "top_probs": _rounded(top_probs, 4), "siglip": round(siglip.item(), 4)}


# ---- knowledge distillation: soft targets with temperature, hard labels, a FitNets hint from forward hooks ---------
def knowledge_distillation(torch, device):
    nn = torch.nn
    F = nn.functional
    teacher = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4)).to(device)
    student = nn.Sequential(nn.Linear(8, 12), nn.ReLU(), nn.Linear(12, 4)).to(device)
    init_from_numpy(torch, teacher, 1310)
    init_from_numpy(torch, student, 1311)
    regressor = nn.Linear(12, 32, bias=False).to(device)  # maps the student's hidden size onto the teacher's
    init_from_numpy(torch, regressor, 1312)
    feats = {}

    def keep(name):
        def hook(module, inp, out):
            feats[name] = out
        return hook

    h1 = teacher[3].register_forward_hook(keep("teacher"))
    h2 = student[1].register_forward_hook(keep("student"))
    x = numpy_input(torch, 1313, 16, 8, device=device)
    y = torch.tensor(np.random.default_rng(1314).integers(0, 4, 16), device=device)
    T, alpha = 4.0, 0.7
    kl = nn.KLDivLoss(reduction="batchmean")
    kl_log = nn.KLDivLoss(reduction="batchmean", log_target=True)
    opt = torch.optim.SGD(list(student.parameters()) + list(regressor.parameters()), lr=0.05, momentum=0.9)
    teacher.eval()
    history = []
    for epoch in range(4):
        with torch.no_grad():
            teacher_logits = teacher(x)
        student_logits = student(x)
        soft_loss = kl(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1)) * (T * T)
        same = kl_log(F.log_softmax(student_logits / T, dim=1), F.log_softmax(teacher_logits / T, dim=1)) * (T * T)
        hard_loss = F.cross_entropy(student_logits, y)
        hint = F.mse_loss(regressor(feats["student"]), feats["teacher"].detach())
        loss = alpha * soft_loss + (1 - alpha) * hard_loss + 0.1 * hint
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append([round(soft_loss.item(), 5), round(hard_loss.item(), 5), round(hint.item(), 5),
                        torch.isclose(soft_loss, same).item()])
    h1.remove()
    h2.remove()
    warned = []
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.kl_div(F.log_softmax(student(x), 1), F.softmax(teacher(x), 1))  # reduction='mean' warns
        warned = [str(w.message).split(".")[0] for w in caught]
    agreement = (student(x).argmax(1) == teacher(x).argmax(1)).float().mean().item()
    return {"history": history, "hooks_left": [len(teacher[3]._forward_hooks), len(student[1]._forward_hooks)],
            "warned": warned, "agreement": agreement}


# ---- label smoothing, mixup and cutmix with soft targets (timm's Mixup + SoftTargetCrossEntropy) -------------------
def mixup_cutmix_label_smoothing(torch, device):
    nn = torch.nn
    F = nn.functional

    def one_hot(x, num_classes, on_value=1.0, off_value=0.0):
        x = x.long().view(-1, 1)
        return torch.full((x.size()[0], num_classes), off_value, device=x.device).scatter_(1, x, on_value)

    def mixup_target(target, num_classes, lam=1.0, smoothing=0.0):
        off_value = smoothing / num_classes
        on_value = 1.0 - smoothing + off_value
        y1 = one_hot(target, num_classes, on_value=on_value, off_value=off_value)
        y2 = one_hot(target.flip(0), num_classes, on_value=on_value, off_value=off_value)
        return y1 * lam + y2 * (1.0 - lam)

    def rand_bbox(img_shape, lam, rng):
        H, W = img_shape[-2:]
        cut_rat = np.sqrt(1.0 - lam)
        cut_h, cut_w = int(H * cut_rat), int(W * cut_rat)
        cy, cx = rng.integers(0 + cut_h // 2, H - cut_h // 2), rng.integers(0 + cut_w // 2, W - cut_w // 2)
        yl, yh = np.clip(cy - cut_h // 2, 0, H), np.clip(cy + cut_h // 2, 0, H)
        xl, xh = np.clip(cx - cut_w // 2, 0, W), np.clip(cx + cut_w // 2, 0, W)
        return yl, yh, xl, xh

    class SoftTargetCrossEntropy(nn.Module):
        def forward(self, x, target):
            return torch.sum(-target * F.log_softmax(x, dim=-1), dim=-1).mean()

    class LabelSmoothingCrossEntropy(nn.Module):
        def __init__(self, smoothing=0.1):
            super().__init__()
            self.smoothing, self.confidence = smoothing, 1.0 - smoothing

        def forward(self, x, target):
            logprobs = F.log_softmax(x, dim=-1)
            nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
            smooth_loss = -logprobs.mean(dim=-1)
            return (self.confidence * nll_loss + self.smoothing * smooth_loss).mean()

    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveMaxPool2d(1),
                          nn.Flatten(), nn.Linear(4, 5)).to(device)
    init_from_numpy(torch, model, 1320)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    rng = np.random.default_rng(1321)
    x = torch.tensor(rng.standard_normal((8, 3, 8, 8)), dtype=torch.float32, device=device)
    y = torch.tensor(rng.integers(0, 5, 8), device=device)
    soft_ce = SoftTargetCrossEntropy()
    results = {"losses": []}
    for step in range(4):
        lam = float(rng.beta(1.0, 1.0))
        if step % 2 == 0:  # mixup
            mixed = x.mul(lam).add_(x.flip(0).mul_(1.0 - lam))
        else:  # cutmix, lambda corrected to the box actually pasted
            yl, yh, xl, xh = rand_bbox(x.shape, lam, rng)
            mixed = x.clone()
            mixed[:, :, yl:yh, xl:xh] = x.flip(0)[:, :, yl:yh, xl:xh]
            lam = 1.0 - (yh - yl) * (xh - xl) / float(x.shape[-2] * x.shape[-1])
        target = mixup_target(y, 5, lam, smoothing=0.1)
        loss = soft_ce(model(mixed), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        results["losses"].append(round(loss.item(), 5))
    model.eval()
    logits = model(x)
    builtin = F.cross_entropy(logits, y, label_smoothing=0.1)
    manual = LabelSmoothingCrossEntropy(0.1)(logits, y)
    soft_builtin = F.cross_entropy(logits, mixup_target(y, 5, 0.7, 0.1))  # probabilities as the target
    weighted = nn.CrossEntropyLoss(weight=torch.linspace(0.5, 1.5, 5, device=device), label_smoothing=0.2)(logits, y)
    results.update(builtin=round(builtin.item(), 5), manual_close=abs(builtin.item() - manual.item()) < 1e-5,
                   soft=round(soft_builtin.item(), 5), weighted=round(weighted.item(), 5),
                   target_sum=_rounded(mixup_target(y, 5, 0.3, 0.1).sum(1), 5))
    return results


# ---- supervised contrastive loss (SupCon) on two views, and ArcFace additive angular margins ------------------------
def supcon_and_arcface(torch, device):
    nn = torch.nn
    F = nn.functional

    def supcon_loss(features, labels, temperature=0.1, base_temperature=0.07):
        batch_size = features.shape[0]
        labels = labels.contiguous().view(-1, 1)
        mask = torch.eq(labels, labels.T).float().to(features.device)
        contrast_count = features.shape[1]
        contrast_feature = torch.cat(torch.unbind(features, dim=1), dim=0)
        anchor_feature, anchor_count = contrast_feature, contrast_count
        anchor_dot_contrast = torch.div(torch.matmul(anchor_feature, contrast_feature.T), temperature)
        logits_max, _ = torch.max(anchor_dot_contrast, dim=1, keepdim=True)
        logits = anchor_dot_contrast - logits_max.detach()
        mask = mask.repeat(anchor_count, contrast_count)
        logits_mask = torch.scatter(torch.ones_like(mask), 1,
                                    torch.arange(batch_size * anchor_count).view(-1, 1).to(features.device), 0)
        mask = mask * logits_mask
        exp_logits = torch.exp(logits) * logits_mask
        log_prob = logits - torch.log(exp_logits.sum(1, keepdim=True))
        mask_pos_pairs = mask.sum(1)
        mask_pos_pairs = torch.where(mask_pos_pairs < 1e-6, 1, mask_pos_pairs)
        mean_log_prob_pos = (mask * log_prob).sum(1) / mask_pos_pairs
        loss = -(temperature / base_temperature) * mean_log_prob_pos
        return loss.view(anchor_count, batch_size).mean()

    class ArcMarginProduct(nn.Module):
        def __init__(self, in_features, out_features, s=30.0, m=0.50, easy_margin=False):
            super().__init__()
            self.s, self.m = s, m
            self.weight = nn.Parameter(torch.FloatTensor(out_features, in_features))
            nn.init.xavier_uniform_(self.weight)
            self.easy_margin = easy_margin
            self.cos_m, self.sin_m = math.cos(m), math.sin(m)
            self.th = math.cos(math.pi - m)
            self.mm = math.sin(math.pi - m) * m

        def forward(self, input, label):
            cosine = F.linear(F.normalize(input), F.normalize(self.weight))
            sine = torch.sqrt((1.0 - torch.pow(cosine, 2)).clamp(0, 1))
            phi = cosine * self.cos_m - sine * self.sin_m
            phi = torch.where(cosine > self.th, phi, cosine - self.mm)
            one_hot = torch.zeros(cosine.size(), device=input.device)
            one_hot.scatter_(1, label.view(-1, 1).long(), 1)
            output = (one_hot * phi) + ((1.0 - one_hot) * cosine)
            return output * self.s

    encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8)).to(device)
    init_from_numpy(torch, encoder, 1330)
    head = ArcMarginProduct(8, 3).to(device)
    init_from_numpy(torch, head, 1331)
    rng = np.random.default_rng(1332)
    x = torch.tensor(rng.standard_normal((12, 6)), dtype=torch.float32, device=device)
    labels = torch.tensor(rng.integers(0, 3, 12), device=device)
    view2 = x + 0.1 * torch.tensor(rng.standard_normal((12, 6)), dtype=torch.float32, device=device)
    opt = torch.optim.Adam(list(encoder.parameters()) + list(head.parameters()), lr=1e-2)
    sup, arc = [], []
    for _ in range(4):
        f = torch.stack([F.normalize(encoder(x), dim=1), F.normalize(encoder(view2), dim=1)], dim=1)
        l1 = supcon_loss(f, labels)
        l2 = F.cross_entropy(head(encoder(x), labels), labels)
        opt.zero_grad()
        (l1 + 0.1 * l2).backward()
        opt.step()
        sup.append(round(l1.item(), 4))
        arc.append(round(l2.item(), 4))
    unsup = supcon_loss(f.detach(), torch.arange(12, device=device))  # SimCLR: every sample its own class
    return {"supcon": sup, "arcface": arc, "simclr": round(unsup.item(), 4),
            "weight_type": head.weight.dtype == torch.float32}


PROGRAMS = [clip_contrastive, knowledge_distillation, mixup_cutmix_label_smoothing, supcon_and_arcface]
NEEDS_CPP = {}
