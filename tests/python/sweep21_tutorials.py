"""Sweep 21 programs, PyTorch's official tutorials and recipes as users copy them: a spatial transformer network
(affine_grid/grid_sample with an identity-initialised localisation head), FGSM adversarial examples over several
epsilons, knowledge distillation with temperature-scaled KL and cosine-embedding losses, pruning with
torch.nn.utils.prune (l1_unstructured, ln_structured, global_unstructured, custom masks, remove), neural style
transfer with Gram matrices and a feature extractor built from a truncated Sequential, warm-starting from a partial
state_dict (strict=False, renamed and shape-mismatched keys), the "zeroing gradients" recipe and char-RNN name
classification with a hand-written RNN cell.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep21.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


# ---- spatial transformer network ---------------------------------------------------------------------------------------
def spatial_transformer(torch, device):
    nn, F = torch.nn, torch.nn.functional

    class STN(nn.Module):
        def __init__(self):
            super().__init__()
            self.localization = nn.Sequential(nn.Conv2d(1, 4, kernel_size=3), nn.MaxPool2d(2, stride=2),
                                              nn.ReLU(True))
            self.fc_loc = nn.Sequential(nn.Linear(4 * 3 * 3, 8), nn.ReLU(True), nn.Linear(8, 3 * 2))
            self.head = nn.Linear(64, 3)

        def stn(self, x):
            xs = self.localization(x)
            xs = xs.view(-1, 4 * 3 * 3)
            theta = self.fc_loc(xs).view(-1, 2, 3)
            grid = F.affine_grid(theta, x.size(), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False), theta

        def forward(self, x):
            x, theta = self.stn(x)
            return F.log_softmax(self.head(x.flatten(1)), dim=1), theta

    model = _fill(torch, STN(), 2200)
    model.fc_loc[2].weight.data.zero_()
    model.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))
    model = model.to(device)
    x = _randn(torch, 2201, 4, 1, 8, 8, device=device)
    y = torch.tensor([0, 1, 2, 1], device=device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    log = []
    for step in range(4):
        opt.zero_grad()
        out, theta = model(x)
        loss = F.nll_loss(out, y)
        loss.backward()
        opt.step()
        log.append([round(loss.item(), 5), _r(theta[0].flatten(), 4)])
    # identity theta reproduces the input (align_corners=False); a half-scale zoom, nearest and border padding
    eye = torch.tensor([[[1.0, 0, 0], [0, 1.0, 0]]], device=device)
    grid = F.affine_grid(eye, (1, 1, 8, 8), align_corners=False)
    same = torch.allclose(F.grid_sample(x[:1], grid, align_corners=False), x[:1], atol=1e-5)
    zoom = torch.tensor([[[0.5, 0, 0.25], [0, 0.5, -0.1]]], device=device)
    g2 = F.affine_grid(zoom, [1, 1, 4, 4], align_corners=True)
    near = F.grid_sample(x[:1], g2, mode="nearest", padding_mode="border", align_corners=True)
    refl = F.grid_sample(x[:1], g2 * 1.8, mode="bilinear", padding_mode="reflection", align_corners=True)
    return {"log": log, "identity": bool(same), "grid": _r(g2[0, 0], 4), "near": _r(near, 4),
            "refl": _r(refl, 4), "grid_shape": list(grid.shape)}


# ---- FGSM adversarial examples ----------------------------------------------------------------------------------------
def fgsm_attack(torch, device):
    nn, F = torch.nn, torch.nn.functional
    model = _fill(torch, nn.Sequential(nn.Flatten(), nn.Linear(16, 12), nn.ReLU(), nn.Dropout(0.5),
                                       nn.Linear(12, 4)), 2210).to(device)
    model.eval()
    data = _randn(torch, 2211, 10, 1, 4, 4, device=device).clamp(-1, 1) * 0.5 + 0.5
    target = torch.tensor([0, 1, 2, 3, 0, 1, 2, 3, 0, 1], device=device)

    def fgsm(image, epsilon, data_grad):
        sign_data_grad = data_grad.sign()
        perturbed = image + epsilon * sign_data_grad
        return torch.clamp(perturbed, 0, 1)

    def denorm(batch, mean=(0.1307,), std=(0.3081,)):
        mean = torch.tensor(mean).to(batch.device)
        std = torch.tensor(std).to(batch.device)
        return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)

    results = []
    for eps in (0.0, 0.05, 0.1, 0.3):
        correct, examples = 0, []
        for i in range(data.shape[0]):
            x = data[i:i + 1].clone().requires_grad_(True)
            out = model(x)
            init_pred = out.max(1, keepdim=True)[1]
            if init_pred.item() != target[i].item():
                continue
            loss = F.nll_loss(F.log_softmax(out, dim=1), target[i:i + 1])
            model.zero_grad()
            loss.backward()
            adv = fgsm(denorm(x), eps, x.grad.data)
            final = model(adv).max(1, keepdim=True)[1]
            if final.item() == target[i].item():
                correct += 1
            elif len(examples) < 2:
                examples.append((init_pred.item(), final.item(), _r(adv.squeeze().detach().cpu().numpy()[0].tolist(), 4)))
        results.append([eps, correct, examples])
    return results


# ---- knowledge distillation ---------------------------------------------------------------------------------------------
def knowledge_distillation(torch, device):
    nn, F = torch.nn, torch.nn.functional
    teacher = _fill(torch, nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(),
                                         nn.Linear(32, 5)), 2220).to(device)
    student = _fill(torch, nn.Sequential(nn.Linear(8, 6), nn.ReLU(), nn.Linear(6, 5)), 2221).to(device)
    x = _randn(torch, 2222, 24, 8, device=device)
    labels = torch.arange(24, device=device) % 5
    T, soft_w, ce_w = 2.0, 0.25, 0.75
    opt = torch.optim.Adam(student.parameters(), lr=1e-2)
    ce = nn.CrossEntropyLoss()
    log = []
    teacher.eval()
    for epoch in range(4):
        student.train()
        opt.zero_grad()
        with torch.no_grad():
            teacher_logits = teacher(x)
        student_logits = student(x)
        soft_targets = F.softmax(teacher_logits / T, dim=-1)
        soft_prob = F.log_softmax(student_logits / T, dim=-1)
        soft_loss = torch.sum(soft_targets * (soft_targets.log() - soft_prob)) / soft_prob.size()[0] * (T ** 2)
        kl = F.kl_div(soft_prob, soft_targets, reduction="batchmean") * T ** 2
        kl_log = F.kl_div(soft_prob, soft_targets.log(), reduction="batchmean", log_target=True) * T ** 2
        label_loss = ce(student_logits, labels)
        loss = soft_w * soft_loss + ce_w * label_loss
        loss.backward()
        opt.step()
        log.append([round(loss.item(), 5), round(soft_loss.item(), 5), round(kl.item(), 5), round(kl_log.item(), 5)])
    # cosine-embedding loss between hidden representations (the tutorial's second variant)
    cos = nn.CosineEmbeddingLoss()
    h_t = teacher[:2](x)[:, :6]
    h_s = student[:2](x)
    cos_loss = cos(h_s, h_t.detach(), torch.ones(x.size(0), device=device))
    cos_neg = F.cosine_embedding_loss(h_s, h_t, -torch.ones(24, device=device), margin=0.1, reduction="sum")
    with torch.no_grad():
        acc_s = (student(x).argmax(1) == labels).float().mean().item()
        acc_t = (teacher(x).argmax(1) == labels).float().mean().item()
    n_params = [sum(p.numel() for p in m.parameters()) for m in (teacher, student)]
    return {"log": log, "cos": round(cos_loss.item(), 5), "cos_neg": round(cos_neg.item(), 4),
            "acc": [acc_s, acc_t], "params": n_params}


# ---- pruning with torch.nn.utils.prune ----------------------------------------------------------------------------------
def pruning_tutorial(torch, device):
    import importlib
    nn = torch.nn
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")  # `import torch.nn.utils.prune as prune`

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 3, 3)
            self.conv2 = nn.Conv2d(3, 4, 3)
            self.fc1 = nn.Linear(4 * 2 * 2, 10)
            self.fc2 = nn.Linear(10, 3)

        def forward(self, x):
            F = torch.nn.functional
            x = F.max_pool2d(F.relu(self.conv1(x)), 1)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            return self.fc2(F.relu(self.fc1(x)))

    model = _fill(torch, LeNet(), 2230).to(device)
    module = model.conv1
    before = [n for n, _ in module.named_parameters()]
    prune.random_unstructured(module, name="weight", amount=0.0)
    prune.l1_unstructured(module, name="bias", amount=1)
    params_after = [n for n, _ in module.named_parameters()]
    buffers = [n for n, _ in module.named_buffers()]
    bias_mask = module.bias_mask.tolist()
    prune.ln_structured(module, name="weight", amount=0.34, n=2, dim=0)
    struct_mask = module.weight_mask.sum(dim=(1, 2, 3)).tolist()
    hooks = [type(h).__name__ for h in module._forward_pre_hooks.values()]
    container = module._forward_pre_hooks[next(reversed(module._forward_pre_hooks))]
    history = [type(h).__name__ for h in getattr(container, "_pruning_methods", [container])]
    prune.remove(module, "weight")
    after_remove = [n for n, _ in module.named_parameters()]
    zeros_conv1 = int((module.weight == 0).sum())
    # global pruning over several layers
    parameters_to_prune = ((model.conv2, "weight"), (model.fc1, "weight"), (model.fc2, "weight"))
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.3)
    sparsity = [round(100.0 * float(torch.sum(m.weight == 0)) / float(m.weight.nelement()), 3)
                for m, _ in parameters_to_prune]

    class EveryOther(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    EveryOther.apply(model.fc2, "bias")
    custom = model.fc2.bias_mask.tolist()
    prune.custom_from_mask(model.fc1, name="bias", mask=(torch.arange(10, device=device) % 3 != 0).float())
    out = model(_randn(torch, 2231, 2, 1, 8, 8, device=device))
    out.sum().backward()
    grad_orig = _r(model.fc2.weight_orig.grad.abs().sum(), 4)
    errors = []
    try:
        prune.remove(model.conv1, "weight")
    except ValueError as e:
        errors.append(str(e))
    try:
        prune.l1_unstructured(model.fc2, "weight", amount=1.5)
    except ValueError as e:
        errors.append(str(e))
    try:
        prune.l1_unstructured(model.fc1, "bias", amount=500)
    except Exception as e:
        errors.append([type(e).__name__, str(e)])
    return {"before": before, "params_after": params_after, "buffers": buffers, "bias_mask": bias_mask,
            "struct_mask": struct_mask, "hooks": hooks, "history": history, "after_remove": after_remove,
            "zeros_conv1": zeros_conv1, "sparsity": sparsity, "custom": custom, "out": _r(out, 4),
            "grad_orig": grad_orig, "is_pruned": [prune.is_pruned(model), prune.is_pruned(model.conv1)],
            "sd_keys": list(model.state_dict()), "errors": errors}


# ---- neural style transfer with Gram matrices ----------------------------------------------------------------------------
def style_transfer(torch, device):
    nn, F = torch.nn, torch.nn.functional

    def gram_matrix(inp):
        a, b, c, d = inp.size()
        features = inp.view(a * b, c * d)
        G = torch.mm(features, features.t())
        return G.div(a * b * c * d)

    class ContentLoss(nn.Module):
        def __init__(self, target):
            super().__init__()
            self.target = target.detach()

        def forward(self, inp):
            self.loss = F.mse_loss(inp, self.target)
            return inp

    class StyleLoss(nn.Module):
        def __init__(self, target_feature):
            super().__init__()
            self.target = gram_matrix(target_feature).detach()

        def forward(self, inp):
            self.loss = F.mse_loss(gram_matrix(inp), self.target)
            return inp

    class Normalization(nn.Module):
        def __init__(self, mean, std):
            super().__init__()
            self.mean = torch.tensor(mean).view(-1, 1, 1)
            self.std = torch.tensor(std).view(-1, 1, 1)

        def forward(self, img):
            return (img - self.mean.to(img.device)) / self.std.to(img.device)

    cnn = _fill(torch, nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(inplace=True),
                                     nn.Conv2d(4, 4, 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(2),
                                     nn.Conv2d(4, 6, 3, padding=1), nn.ReLU(inplace=True)), 2240).to(device).eval()
    style_img = _randn(torch, 2241, 1, 3, 8, 8, device=device).sigmoid()
    content_img = _randn(torch, 2242, 1, 3, 8, 8, device=device).sigmoid()
    model = nn.Sequential(Normalization([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]))
    content_losses, style_losses = [], []
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        elif isinstance(layer, nn.ReLU):
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = f"pool_{i}"
        model.add_module(name, layer)
        if name == "conv_3":
            target = model(content_img).detach()
            cl = ContentLoss(target)
            model.add_module(f"content_loss_{i}", cl)
            content_losses.append(cl)
        if name in ("conv_1", "conv_2", "conv_3"):
            target_feature = model(style_img).detach()
            sl = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", sl)
            style_losses.append(sl)
    for j in range(len(model) - 1, -1, -1):
        if isinstance(model[j], (ContentLoss, StyleLoss)):
            break
    model = model[:(j + 1)]
    names = [n for n, _ in model.named_children()]
    input_img = content_img.clone()
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = torch.optim.LBFGS([input_img], max_iter=4)
    run = [0]
    log = []

    def closure():
        with torch.no_grad():
            input_img.clamp_(0, 1)
        optimizer.zero_grad()
        model(input_img)
        style_score = sum(sl.loss for sl in style_losses) * 1000
        content_score = sum(cl.loss for cl in content_losses)
        loss = style_score + content_score
        loss.backward()
        run[0] += 1
        log.append([round(style_score.item(), 5), round(content_score.item(), 5)])
        return style_score + content_score

    for _ in range(2):
        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    st = optimizer.state_dict()["state"][0]
    return {"names": names, "runs": run[0], "log": log, "img": _r(input_img.flatten()[:12], 4),
            "n_iter": st["n_iter"], "func_evals": st["func_evals"], "state_keys": sorted(st)}


# ---- warm-starting from a partial state_dict ------------------------------------------------------------------------------
def warmstart_partial(torch, device):
    import io
    nn = torch.nn

    class NetA(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU())
            self.fc = nn.Linear(6, 3)

        def forward(self, x):
            return self.fc(self.features(x))

    class NetB(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU())
            self.fc = nn.Linear(6, 5)
            self.extra = nn.Linear(5, 2)

        def forward(self, x):
            return self.extra(self.fc(self.features(x)))

    a = _fill(torch, NetA(), 2250).to(device)
    a.train()
    a(_randn(torch, 2251, 8, 4, device=device))
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    sd = torch.load(buf, map_location="cpu", weights_only=True)
    b = _fill(torch, NetB(), 2252).to(device)
    errors = []
    try:
        b.load_state_dict(sd)
    except RuntimeError as e:
        errors.append(str(e))
    try:
        b.load_state_dict(sd, strict=False)
    except RuntimeError as e:
        errors.append(str(e))
    filtered = {k: v for k, v in sd.items() if k in b.state_dict() and v.shape == b.state_dict()[k].shape}
    res = b.load_state_dict(filtered, strict=False)
    renamed = {k.replace("features.", "backbone."): v for k, v in sd.items() if not k.startswith("fc.")}
    res2 = b.load_state_dict(renamed, strict=False)
    b.eval()
    out = b(_randn(torch, 2253, 3, 4, device=device))
    return {"errors": errors, "missing": res.missing_keys, "unexpected": res.unexpected_keys, "repr": repr(res),
            "missing2": len(res2.missing_keys), "unexpected2": res2.unexpected_keys[:3],
            "tracked": b.features[1].num_batches_tracked.item(), "rm": _r(b.features[1].running_mean, 5),
            "out": _r(out, 4), "bool": [bool(res), bool(b.load_state_dict(b.state_dict()))]}


# ---- zeroing gradients recipe: accumulation, zero_grad(set_to_none) -------------------------------------------------------
def zeroing_gradients(torch, device):
    nn = torch.nn
    net = _fill(torch, nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2)), 2260).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    x = _randn(torch, 2261, 6, 5, device=device)
    y = torch.tensor([0, 1, 1, 0, 1, 0], device=device)
    states = []
    crit(net(x), y).backward()
    g1 = net[0].weight.grad.clone()
    crit(net(x), y).backward()
    states.append(bool(torch.allclose(net[0].weight.grad, 2 * g1)))
    opt.zero_grad()
    states.append(net[0].weight.grad is None)
    crit(net(x), y).backward()
    opt.zero_grad(set_to_none=False)
    states.append([net[0].weight.grad is None, net[0].weight.grad.abs().sum().item()])
    net.zero_grad()
    states.append(net[0].weight.grad is None)
    running = 0.0
    for epoch in range(2):
        for i in range(0, 6, 2):
            opt.zero_grad()
            loss = crit(net(x[i:i + 2]), y[i:i + 2])
            loss.backward()
            opt.step()
            running += loss.item()
    print(f"[epoch {epoch + 1}] loss: {running / 6:.3f}")
    bufs = [round(opt.state[p]["momentum_buffer"].abs().sum().item(), 5) for p in net.parameters()]
    return {"states": states, "running": round(running, 5), "bufs": bufs}


# ---- char-RNN name classification -------------------------------------------------------------------------------------------
def char_rnn_classify(torch, device):
    import string
    nn = torch.nn
    all_letters = string.ascii_letters + " .,;'"
    n_letters = len(all_letters)

    def line_to_tensor(line):
        t = torch.zeros(len(line), 1, n_letters)
        for li, letter in enumerate(line):
            t[li][0][all_letters.find(letter)] = 1
        return t

    class RNN(nn.Module):
        def __init__(self, input_size, hidden_size, output_size):
            super().__init__()
            self.hidden_size = hidden_size
            self.i2h = nn.Linear(input_size, hidden_size)
            self.h2h = nn.Linear(hidden_size, hidden_size)
            self.h2o = nn.Linear(hidden_size, output_size)
            self.softmax = nn.LogSoftmax(dim=1)

        def forward(self, inp, hidden):
            hidden = torch.tanh(self.i2h(inp) + self.h2h(hidden))
            return self.softmax(self.h2o(hidden)), hidden

        def init_hidden(self):
            return torch.zeros(1, self.hidden_size)

    categories = ["English", "French", "Greek"]
    data = [("Smith", 0), ("Dubois", 1), ("Papadopoulos", 2), ("Brown", 0), ("Lefevre", 1), ("Nikolaou", 2)]
    rnn = _fill(torch, RNN(n_letters, 12, len(categories)), 2270).to(device)
    criterion = nn.NLLLoss()
    lr = 0.05
    log = []
    for it, (name, cat) in enumerate(data * 2):
        line_tensor = line_to_tensor(name).to(device)
        category_tensor = torch.tensor([cat], dtype=torch.long, device=device)
        hidden = rnn.init_hidden().to(device)
        rnn.zero_grad()
        for i in range(line_tensor.size()[0]):
            output, hidden = rnn(line_tensor[i], hidden)
        loss = criterion(output, category_tensor)
        loss.backward()
        for p in rnn.parameters():
            p.data.add_(p.grad.data, alpha=-lr)
        top_n, top_i = output.topk(1)
        log.append([round(loss.item(), 5), categories[top_i[0].item()], round(top_n.item(), 4)])
    # nn.RNN over the same one-hot sequence, batch of padded names
    names = [n for n, _ in data]
    seqs = [line_to_tensor(n).squeeze(1) for n in names]
    padded = nn.utils.rnn.pad_sequence(seqs, batch_first=True).to(device)
    lengths = torch.tensor([len(n) for n in names])
    packed = nn.utils.rnn.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    core = _fill(torch, nn.RNN(n_letters, 5, batch_first=True), 2271).to(device)
    _, h_n = core(packed)
    return {"log": log, "h_n": _r(h_n.squeeze(0), 4), "sorted": packed.sorted_indices.tolist(),
            "batch_sizes": packed.batch_sizes.tolist(), "padded": list(padded.shape)}


PROGRAMS = [spatial_transformer, fgsm_attack, knowledge_distillation, pruning_tutorial, style_transfer,
            warmstart_partial, zeroing_gradients, char_rnn_classify]
NEEDS_CPP = {}
