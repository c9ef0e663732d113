"""Sweep 8 programs on model surgery as fine-tuning repositories do it: loading a checkpoint with renamed, missing
and unexpected keys (strict=False, assign=True, load-state-dict pre/post hooks, `module.` prefixes from
DataParallel, consume_prefix_in_state_dict_if_present), weight normalisation and spectral normalisation through
nn.utils.parametrizations, an orthogonal RNN, iterative magnitude pruning with the lottery-ticket rewind, and a
vocoder checkpoint saved with the old weight_norm loaded into the parametrized model.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep8.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import collections
import importlib
import io

import numpy as np

from test_programs_sweeputil import init_from_numpy, numpy_input


def _rounded(t, digits=5):
    return [round(v, digits) for v in t.flatten().tolist()]


# ---- fine-tuning a checkpoint: new head, renamed keys, prefixes, strict=False, assign=True, hooks -----------------
def checkpoint_surgery(torch, device):
    nn = torch.nn

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(),
                                          nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.fc = nn.Linear(6, 10)

        def forward(self, x):
            return self.fc(self.features(x))

    pretrained = Backbone()
    init_from_numpy(torch, pretrained, 1100)
    with torch.no_grad():
        pretrained.features[1].running_mean.copy_(torch.linspace(-0.5, 0.5, 6))
        pretrained.features[1].num_batches_tracked.fill_(7)
    wrapped = nn.DataParallel(pretrained)
    buffer = io.BytesIO()
    torch.save({"model": wrapped.state_dict(), "epoch": 3, "arch": "backbone"}, buffer)
    buffer.seek(0)
    ckpt = torch.load(buffer, map_location="cpu", weights_only=True)
    state = ckpt["model"]
    prefixed = sorted(state)[:2]
    torch.nn.modules.utils.consume_prefix_in_state_dict_if_present(state, "module.")
    # the head changes: drop its weights, rename the backbone as a timm-style checkpoint would
    state = collections.OrderedDict((k.replace("features.", "backbone."), v) for k, v in state.items()
                                    if not k.startswith("fc."))

    class Finetune(nn.Module):
        def __init__(self, num_classes):
            super().__init__()
            self.backbone = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.BatchNorm2d(6), nn.ReLU(),
                                          nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.head = nn.Linear(6, num_classes)

        def forward(self, x):
            return self.head(self.backbone(x))

    model = Finetune(4).to(device)
    init_from_numpy(torch, model.head, 1102)
    seen = []

    def pre_hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
        seen.append(("pre", prefix, sorted(k for k in state_dict if k.startswith(prefix))[:1]))

    def post_hook(module, incompatible_keys):
        seen.append(("post", list(incompatible_keys.missing_keys), list(incompatible_keys.unexpected_keys)))

    model.register_load_state_dict_pre_hook(pre_hook)
    model.register_load_state_dict_post_hook(post_hook)
    state["extra.thing"] = torch.zeros(1)
    result = model.load_state_dict(state, strict=False)
    loaded_bn = model.backbone[1].running_mean.tolist()
    try:
        model.load_state_dict(state)
        strict_error = None
    except RuntimeError as exc:
        strict_error = str(exc)
    bad = dict(state)
    bad["head.weight"] = torch.zeros(3, 6)
    try:
        model.load_state_dict(bad, strict=False)
        size_error = None
    except RuntimeError as exc:
        size_error = str(exc)
    # freeze the backbone, train the head only; BatchNorm stays in eval mode
    for p in model.backbone.parameters():
        p.requires_grad_(False)
    model.train()
    model.backbone.apply(lambda m: m.eval() if isinstance(m, nn.BatchNorm2d) else None)
    opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
    x = numpy_input(torch, 1101, 4, 3, 5, 5, device=device)
    y = torch.tensor([0, 1, 2, 3], device=device)
    for _ in range(3):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    # assign=True keeps the checkpoint's tensors (and their requires_grad) instead of copying into the parameters
    with torch.device("meta"):
        lazy = nn.Linear(6, 10)
    src = {"weight": torch.ones(10, 6), "bias": torch.zeros(10)}
    lazy.load_state_dict(src, assign=True)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {"prefixed": prefixed, "missing": result.missing_keys, "unexpected": result.unexpected_keys,
            "result_repr": repr(result), "seen": seen, "loaded_bn": _rounded(torch.tensor(loaded_bn)),
            "strict_error": strict_error, "size_error": size_error, "loss": round(loss.item(), 5),
            "trainable": trainable, "bn_steps": model.backbone[1].num_batches_tracked.item(),
            "assign": [lazy.weight.is_meta, lazy.weight.sum().item(), type(lazy.weight).__name__,
                       lazy.weight.requires_grad],
            "epoch": ckpt["epoch"]}


# ---- weight_norm / spectral_norm through parametrizations, an orthogonal recurrent matrix ------------------------
def normalized_parametrizations(torch, device):
    nn = torch.nn
    P = nn.utils.parametrizations
    parametrize = nn.utils.parametrize

    # a WaveNet/HiFi-GAN-style conv with weight_norm, then removed for inference
    conv = nn.Conv1d(2, 4, 3, padding=1).to(device)
    init_from_numpy(torch, conv, 1110)
    conv = P.weight_norm(conv, name="weight", dim=0)
    names = sorted(n for n, _ in conv.named_parameters())
    g_shape = list(conv.parametrizations.weight.original0.shape)
    x = numpy_input(torch, 1111, 2, 2, 7, device=device)
    before = conv(x)
    opt = torch.optim.Adam(conv.parameters(), lr=1e-2)
    for _ in range(3):
        loss = before.detach().sub(conv(x)).pow(2).mean() + conv(x).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with parametrize.cached():
        cached_out = conv(x)
    parametrize.remove_parametrizations(conv, "weight", leave_parametrized=True)
    after_remove = conv(x)

    # a discriminator with spectral norm: sigma from power iteration (vectors seeded from NumPy)
    disc = nn.Sequential(nn.Linear(5, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)).to(device)
    init_from_numpy(torch, disc, 1112)
    P.spectral_norm(disc[0], n_power_iterations=3)
    P.spectral_norm(disc[2])
    rng = np.random.default_rng(1113)
    with torch.no_grad():
        for layer in (disc[0], disc[2]):
            sn = layer.parametrizations.weight[0]
            sn._u.copy_(torch.from_numpy(rng.standard_normal(sn._u.shape)))
            sn._v.copy_(torch.from_numpy(rng.standard_normal(sn._v.shape)))
            sn._u.copy_(nn.functional.normalize(sn._u, dim=0))
            sn._v.copy_(nn.functional.normalize(sn._v, dim=0))
    z = numpy_input(torch, 1114, 6, 5, device=device)
    disc.train()
    d_out = disc(z)
    sigma = torch.linalg.matrix_norm(disc[0].weight.detach(), ord=2).item()
    disc.eval()
    d_eval = disc(z)

    # orthogonal recurrent weight (expRNN style): stays orthogonal through training
    class OrthoRNN(nn.Module):
        def __init__(self, n_in, n_hidden, orth_map):
            super().__init__()
            self.inp = nn.Linear(n_in, n_hidden)
            self.rec = nn.Linear(n_hidden, n_hidden, bias=False)
            P.orthogonal(self.rec, orthogonal_map=orth_map)
            self.out = nn.Linear(n_hidden, 1)

        def forward(self, x):
            h = torch.zeros(x.shape[0], self.rec.in_features, device=x.device)
            for t in range(x.shape[1]):
                h = torch.tanh(self.inp(x[:, t]) + self.rec(h))
            return self.out(h).squeeze(-1)

    seq = numpy_input(torch, 1115, 3, 5, 2, device=device)
    target = torch.tensor([0.5, -0.5, 1.0], device=device)
    ortho = {}
    for orth_map in ("matrix_exp", "cayley", "householder"):
        rnn = OrthoRNN(2, 6, orth_map).to(device)
        init_from_numpy(torch, rnn, 1116)
        orth = rnn.rec.parametrizations.weight[0]
        if hasattr(orth, "base"):  # the trivialization's base was drawn from the library's own generator
            with torch.no_grad():
                orth.base.copy_(torch.linalg.qr(numpy_input(torch, 1117, 6, 6, device=device))[0])
        opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
        for _ in range(3):
            loss = nn.functional.mse_loss(rnn(seq), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        W = rnn.rec.weight
        ortho[orth_map] = [round(loss.item(), 4),
                           torch.allclose(W @ W.T, torch.eye(6, device=device), atol=1e-5),
                           sorted(n.split(".")[-1] for n, _ in rnn.rec.named_parameters())]
    return {"names": names, "g_shape": g_shape, "before": _rounded(before[0]),
            "cached": torch.allclose(cached_out, after_remove),
            "loss": round(loss.item(), 4), "removed_is_param": type(conv.weight).__name__,
            "is_parametrized": parametrize.is_parametrized(conv), "d_out": _rounded(d_out),
            "d_eval": _rounded(d_eval), "sigma": round(sigma, 4), "ortho": ortho,
            "sd_keys": sorted(disc.state_dict().keys())}


# ---- lottery ticket: iterative global magnitude pruning with rewinding to the initial weights -------------------
def lottery_ticket_pruning(torch, device):
    nn = torch.nn
    F = nn.functional
    prune = importlib.import_module(f"{torch.__name__}.nn.utils.prune")  # import torch.nn.utils.prune as prune

    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 2)).to(device)
    init_from_numpy(torch, model, 1120)
    init_state = {k: v.clone() for k, v in model.state_dict().items()}
    rng = np.random.default_rng(1121)
    x = torch.tensor(rng.standard_normal((32, 6)), dtype=torch.float32, device=device)
    y = (x[:, 0] * x[:, 1] > 0).long()
    parameters_to_prune = [(model[i], "weight") for i in (0, 2, 4)]

    def train(steps):
        opt = torch.optim.SGD(model.parameters(), lr=0.2)
        for _ in range(steps):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return round(loss.item(), 4)

    rounds = []
    for r in range(3):
        loss = train(5)
        prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.3)
        # rewind: the surviving weights go back to their initial values, the masks stay
        with torch.no_grad():
            for i in (0, 2, 4):
                model[i].weight_orig.copy_(init_state[f"{i}.weight"])
                model[i].bias.copy_(init_state[f"{i}.bias"])
        sparsity = [round(float((model[i].weight == 0).sum()) / model[i].weight.nelement(), 4) for i in (0, 2, 4)]
        rounds.append([loss, sparsity])
    hooks = [type(h).__name__ for h in model[0]._forward_pre_hooks.values()]
    container = model[0]._forward_pre_hooks[next(iter(model[0]._forward_pre_hooks))]
    history = len(container._pruning_methods) if hasattr(container, "_pruning_methods") else 1
    final_loss = train(5)
    # structured pruning of whole output channels by their L2 norm, and a custom mask
    conv = nn.Conv2d(2, 4, 3).to(device)
    init_from_numpy(torch, conv, 1122)
    prune.ln_structured(conv, name="weight", amount=0.5, n=2, dim=0)
    zero_channels = (conv.weight.flatten(1).abs().sum(1) == 0).tolist()
    prune.custom_from_mask(conv, name="bias", mask=torch.tensor([1, 0, 1, 0], device=device))
    buffers = sorted(n for n, _ in conv.named_buffers())
    for module, name in parameters_to_prune:
        prune.remove(module, name)
    return {"rounds": rounds, "hooks": hooks, "history": history, "final_loss": final_loss,
            "zero_channels": zero_channels, "buffers": buffers, "bias": _rounded(conv.bias),
            "is_pruned": [prune.is_pruned(model), prune.is_pruned(conv)],
            "keys": sorted(model.state_dict().keys())}


# ---- a HiFi-GAN-style vocoder checkpoint saved with the old weight_norm, loaded into the parametrized model ---------
def vocoder_weight_norm_upgrade(torch, device):
    nn = torch.nn
    F = nn.functional
    LRELU_SLOPE = 0.1

    def get_padding(kernel_size, dilation=1):
        return int((kernel_size * dilation - dilation) / 2)

    def init_weights(m, mean=0.0, std=0.01):
        if m.__class__.__name__.find("Conv") != -1:
            m.weight.data.normal_(mean, std)

    class ResBlock(nn.Module):
        def __init__(self, channels, kernel_size=3, dilation=(1, 3), weight_norm=None):
            super().__init__()
            self.convs = nn.ModuleList([
                weight_norm(nn.Conv1d(channels, channels, kernel_size, 1, dilation=d,
                                      padding=get_padding(kernel_size, d))) for d in dilation])

        def forward(self, x):
            for c in self.convs:
                xt = F.leaky_relu(x, LRELU_SLOPE)
                x = c(xt) + x
            return x

    class Generator(nn.Module):
        def __init__(self, weight_norm):
            super().__init__()
            self.conv_pre = weight_norm(nn.Conv1d(4, 8, 7, 1, padding=3))
            self.ups = nn.ModuleList([weight_norm(nn.ConvTranspose1d(8, 4, 4, 2, padding=1))])
            self.resblocks = nn.ModuleList([ResBlock(4, weight_norm=weight_norm)])
            self.conv_post = weight_norm(nn.Conv1d(4, 1, 7, 1, padding=3))
            self.ups.apply(init_weights)

        def forward(self, x):
            x = self.conv_pre(x)
            for up, block in zip(self.ups, self.resblocks):
                x = block(up(F.leaky_relu(x, LRELU_SLOPE)))
            return torch.tanh(self.conv_post(F.leaky_relu(x)))

    old = Generator(nn.utils.weight_norm).to(device)
    init_from_numpy(torch, old, 1130)
    mel = numpy_input(torch, 1131, 2, 4, 6, device=device)
    reference = old(mel)
    buffer = io.BytesIO()
    torch.save({"generator": old.state_dict()}, buffer)
    buffer.seek(0)
    state = torch.load(buffer, map_location=device)["generator"]
    new = Generator(nn.utils.parametrizations.weight_norm).to(device)
    result = new.load_state_dict(state)
    upgraded = new(mel)
    # inference: fold the parametrization back into plain weights
    for module in new.modules():
        if nn.utils.parametrize.is_parametrized(module):
            nn.utils.parametrize.remove_parametrizations(module, "weight")
    folded = new(mel)
    for module in old.modules():
        if hasattr(module, "weight_g"):
            nn.utils.remove_weight_norm(module)
    # a weight perturbation drawn into a tensor of the graph (the fill is recorded, as in PyTorch)
    h = old.conv_pre.weight * 1.0
    h.normal_(0.0, 0.01)
    return {"old_keys": sorted(state)[:3], "result": str(result), "new_keys": sorted(new.state_dict())[:3],
            "upgraded_same": torch.allclose(upgraded, reference, atol=1e-6), "out": _rounded(folded[0, 0, :6]),
            "folded_same": torch.allclose(folded, reference, atol=1e-6), "shape": list(folded.shape),
            "old_removed": sorted(n for n, _ in old.conv_post.named_parameters()),
            "fill_grad_fn": h.grad_fn is not None}


PROGRAMS = [checkpoint_surgery, normalized_parametrizations, lottery_ticket_pruning, vocoder_weight_norm_upgrade]
NEEDS_CPP = {}
