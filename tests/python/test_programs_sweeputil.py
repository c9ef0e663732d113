"""The 'sweeputil' program sweep: short programs that lean on the utilities around training rather than on a model
domain, each written once against a module called `torch` the way a user writes it, run with PyTorch and with
tandem standing in for it, and their results compared. This file has the autograd and module utilities
(activation checkpointing, module hooks, state_dict surgery, parametrizations, pruning, gradient clipping, custom
autograd Functions, torch.func, anomaly detection, saved-tensor hooks, tied weights and fusion, nn.init and module
surgery) and the harness; test_programs_sweeputil_loop.py has the training-loop and runtime ones.

As in test_programs_sweepgen.py, each program takes the library as `torch` and a device, builds its parameters from
NumPy (the two libraries' generators give different numbers for one seed), and returns plain Python values. Where a
program uses a library's own random numbers, it returns only what does not depend on the generator's stream
(shapes, reproducibility under one seed, set relations). Fixes for what the programs found are listed in
docs/compat.md, "Program sweep: training utilities"."""
import importlib
import io
import math
import warnings

import numpy as np
import pytest
import torch as real_torch

import tandem

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])


def init_from_numpy(torch, module, seed):
    """Fill every parameter of `module` from a seeded NumPy generator, in named_parameters order."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in module.named_parameters():
            shape = tuple(p.shape)
            bound = 1.0 / math.sqrt(max(1, int(np.prod(shape[1:])))) if len(shape) >= 2 else 0.3
            p.copy_(torch.from_numpy(rng.uniform(-bound, bound, size=shape)))


def numpy_input(torch, seed, *shape, device="cpu"):
    values = np.random.default_rng(seed).standard_normal(shape)
    return torch.tensor(values, dtype=torch.get_default_dtype(), device=device)


def uniform_fill(torch, module, seed, scale=0.5):
    """Fill every parameter of `module` with seeded uniform values in [-scale, scale), in named_parameters order;
    returns the module (the sweep programs' `_fill`)."""
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(torch.tensor(rng.uniform(-scale, scale, tuple(p.shape)), dtype=p.dtype))
    return module


def seeded_randn(torch, seed, *shape, device="cpu", dtype=None):
    """A seeded standard-normal tensor, float32 unless `dtype` (the sweep programs' `_randn`)."""
    return torch.tensor(np.random.default_rng(seed).standard_normal(shape), dtype=dtype or torch.float32,
                        device=device)


# ---- the harness (shared with test_programs_sweeputil_loop.py) -------------------------------------------------------
DEFAULT_TOLERANCE = dict(rel=1e-4, abs=1e-5)


def rounded(x, digits=5):
    """A tensor, list or number as nested Python floats rounded to `digits` (what sweep programs return)."""
    if hasattr(x, "tolist"):
        x = x.detach().cpu().tolist()
    if isinstance(x, list):
        return [rounded(v, digits) for v in x]
    return round(float(x), digits)


def assert_same_results(got, want, tol, where="result"):
    assert type(got) is type(want), (where, got, want)
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), where
        for key in want:
            assert_same_results(got[key], want[key], tol, f"{where}[{key!r}]")
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want), (where, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_results(g, w, tol, f"{where}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, **tol), where
    elif isinstance(want, str):
        # On purpose, objects print with their library's name (tandem.Size, tandem._C.Tensor for torch.Tensor)
        # and errors may end with a `hint:` line naming the fix.
        got = "\n".join(line for line in got.split("\n") if not line.startswith("hint:"))
        assert got.replace("tandem._C.", "torch.").replace("tandem.", "torch.") == want, (where, got, want)
    else:
        assert got == want, (where, got, want)


def same_outcome(make, device, tol=None):
    """make(lib, device) gives the same outcome with tandem on `device` as with PyTorch on the CPU (a kernel's name
    in an error says which device ran it: "div_floor_cuda" is compared as "div_floor_cpu")."""
    got = list(call_outcome(lambda: make(tandem, device)))
    if got[0] != "ok":
        got[1] = got[1].replace('_cuda"', '_cpu"')
    want = list(call_outcome(lambda: make(real_torch, "cpu")))
    assert_same_results(got, want, tol or {**DEFAULT_TOLERANCE, "nan_ok": True})


def program_params(programs, needs_cpp):
    """pytest params for the programs, those in `needs_cpp` (program -> reason) marked as strict xfails: they
    stay failing until the C++ core has what they need, and the day they pass the mark has to go."""
    marked = [pytest.param(p, id=p.__name__, marks=pytest.mark.xfail(strict=True, reason=why))
              for p, why in needs_cpp.items()]
    return [pytest.param(p, id=p.__name__) for p in programs] + marked


def compare_with_pytorch(program, device, reference, tolerance=DEFAULT_TOLERANCE):
    """Runs `program` with PyTorch on the CPU (once, kept in `reference`) and with tandem on `device`."""
    with warnings.catch_warnings():  # PyTorch's own deprecation notices (jit) are not the subject here
        warnings.simplefilter("ignore")
        if program.__name__ not in reference:
            reference[program.__name__] = program(real_torch, "cpu")
        got = program(tandem, device)
    assert_same_results(got, reference[program.__name__], tolerance)


def program_test(modules, devices):
    """The test each sweep file runs: every program of `modules` (their PROGRAMS, and their NEEDS_CPP as strict
    xfails) by tandem on each of `devices` against PyTorch's result on the CPU, within DEFAULT_TOLERANCE. A sweep
    file binds it to a test name: `test_program_matches_pytorch = program_test(MODULES, DEVICES)`."""
    programs = [p for m in modules for p in m.PROGRAMS]
    needs_cpp = {p: why for m in modules for p, why in getattr(m, "NEEDS_CPP", {}).items()}
    reference = {}

    @pytest.mark.parametrize("device", devices)
    @pytest.mark.parametrize("program", program_params(programs, needs_cpp))
    def test_program_matches_pytorch(program, device):
        compare_with_pytorch(program, device, reference, DEFAULT_TOLERANCE)

    return test_program_matches_pytorch


def call_outcome(call):
    """A call's result as plain values, or its error type and message (without tandem's hint line)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", plain_values(call())
        except Exception as exc:  # the error type and message are what is compared
            return type(exc).__name__, str(exc).split("\nhint:")[0]


def plain_values(result):
    """Tensors (nested in lists/tuples) as [dtype name, shape, float values]; anything else as it is."""
    if isinstance(result, (list, tuple)):
        return [plain_values(r) for r in result]
    if hasattr(result, "detach") and hasattr(result, "dtype"):
        values = result.detach().cpu()
        return [str(values.dtype).split(".")[-1], list(values.shape),
                np.asarray(values.tolist(), dtype=float).tolist()]
    return result


# ---- activation checkpointing (torch.utils.checkpoint, reentrant and not, and checkpoint_sequential) ---------------
def activation_checkpointing(torch, device):
    nn = torch.nn
    from_utils = torch.utils.checkpoint

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Dropout(0.0), nn.Linear(2 * dim, dim))

        def forward(self, x):
            return x + self.ff(self.norm(x))

    class Net(nn.Module):
        def __init__(self, dim, depth, mode):
            super().__init__()
            self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
            self.head = nn.Linear(dim, 1)
            self.mode = mode

        def forward(self, x):
            for block in self.blocks:
                if self.mode == "none":
                    x = block(x)
                elif self.mode == "reentrant":
                    x = from_utils.checkpoint(block, x, use_reentrant=True)
                else:
                    x = from_utils.checkpoint(block, x, use_reentrant=False, preserve_rng_state=True)
            return self.head(x).squeeze(-1)

    x = numpy_input(torch, 1, 6, 8, device=device)
    y = numpy_input(torch, 2, 6, device=device)
    results = {}
    for mode in ("none", "reentrant", "non_reentrant"):
        model = Net(8, 3, mode).to(device)
        init_from_numpy(torch, model, 3)
        inp = x.clone().requires_grad_(mode == "reentrant")  # reentrant needs an input that requires grad
        loss = nn.functional.mse_loss(model(inp), y)
        loss.backward()
        results[mode] = [loss.item(), model.blocks[0].ff[0].weight.grad.sum().item(),
                         model.head.bias.grad.item()]
    seq = nn.Sequential(*[nn.Sequential(nn.Linear(8, 8), nn.Tanh()) for _ in range(4)]).to(device)
    init_from_numpy(torch, seq, 4)
    out = from_utils.checkpoint_sequential(seq, 2, x.clone().requires_grad_(), use_reentrant=False)
    out.pow(2).mean().backward()
    results["sequential"] = [out.sum().item(), seq[0][0].weight.grad.norm().item()]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:  # PyTorch asks for use_reentrant explicitly
            from_utils.checkpoint(seq[0], x)
            results["warned"] = None
        except Exception as exc:
            results["warned"] = type(exc).__name__
    return results


# ---- module hooks (forward, forward pre, full backward and backward pre hooks, the feature-extraction recipe) ------
def module_hooks(torch, device):
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(4 * 4 * 4, 3)).to(device)
    init_from_numpy(torch, model, 5)
    features, grads, calls = {}, {}, []

    def save_output(name):
        def hook(module, inputs, output):
            features[name] = output.detach()
        return hook

    def scale_input(module, args):
        calls.append(("pre", type(module).__name__, len(args)))
        return (args[0] * 2.0,)

    def save_grad(module, grad_input, grad_output):
        grads["conv_out"] = grad_output[0].detach().sum().item()
        calls.append(("bwd", type(module).__name__, grad_input[0] is None))

    def pre_backward(module, grad_output):
        calls.append(("bwd_pre", type(module).__name__, len(grad_output)))

    def kwargs_hook(module, args, kwargs, output):
        calls.append(("fwd_kw", sorted(kwargs)))
        return output + 1.0

    handles = [model[0].register_forward_hook(save_output("conv")),
               model[4].register_forward_pre_hook(scale_input),
               model[0].register_full_backward_hook(save_grad),
               model[4].register_full_backward_pre_hook(pre_backward),
               model[2].register_forward_hook(kwargs_hook, with_kwargs=True)]
    x = numpy_input(torch, 6, 2, 1, 8, 8, device=device)
    out = model(x)
    out.sum().backward()
    first = [out.sum().item(), features["conv"].shape, grads["conv_out"], list(calls)]
    for h in handles:
        h.remove()
    calls.clear()
    out2 = model(x)
    tensor_grads = []
    x2 = x.clone().requires_grad_()
    h = x2.register_hook(lambda g: tensor_grads.append(g.abs().sum().item()))
    model(x2).sum().backward()
    h.remove()
    global_calls = []
    hook = nn.modules.module.register_module_forward_hook(lambda m, i, o: global_calls.append(type(m).__name__))
    try:
        model(x)
    finally:
        hook.remove()
    return {"first": [first[0], list(first[1]), first[2], first[3]], "after_remove": [out2.sum().item(), calls],
            "tensor_grad": tensor_grads, "global": global_calls}


# ---- state_dict surgery (buffers, persistent=False, strict=False, renamed keys, map_location, nested save) --------
def state_dict_surgery(torch, device):
    nn = torch.nn

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(4, 6)
            self.bn = nn.BatchNorm1d(6)
            self.register_buffer("scale", torch.tensor([2.0]))
            self.register_buffer("cache", torch.zeros(3), persistent=False)
            self.register_buffer("nothing", None)

        def forward(self, x):
            return self.bn(self.proj(x)) * self.scale

    class Classifier(nn.Module):
        def __init__(self, classes):
            super().__init__()
            self.encoder = Encoder()
            self.fc = nn.Linear(6, classes)

        def forward(self, x):
            return self.fc(self.encoder(x).relu())

    model = Classifier(3).to(device)
    init_from_numpy(torch, model, 7)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    x = numpy_input(torch, 8, 5, 4, device=device)
    for _ in range(2):
        opt.zero_grad()
        model(x).logsumexp(1).mean().backward()
        opt.step()
        sched.step()
    sd = model.state_dict()
    keys = list(sd)
    buf = io.BytesIO()
    torch.save({"model": sd, "optim": opt.state_dict(), "sched": sched.state_dict(), "meta": {"epoch": 2,
                "classes": ("a", "b", "c")}}, buf)
    buf.seek(0)
    ckpt = torch.load(buf, map_location="cpu", weights_only=False)
    on_cpu = sorted({str(v.device) for v in ckpt["model"].values()})
    # fine-tune: a new head with 5 classes, drop the old head's keys, rename a key, load non-strictly
    new = Classifier(5).to(device)
    backbone = {k: v for k, v in ckpt["model"].items() if not k.startswith("fc.")}
    backbone["encoder.extra"] = torch.ones(1)
    result = new.load_state_dict(backbone, strict=False)
    errors = []
    try:
        new.load_state_dict(backbone)
    except RuntimeError as exc:
        errors.append(str(exc).splitlines()[0])
    bad = dict(backbone)
    bad["encoder.proj.weight"] = torch.zeros(2, 2)
    bad.pop("encoder.extra")
    try:
        new.load_state_dict(bad, strict=False)
    except RuntimeError as exc:
        errors.append(" ".join(str(exc).split()))
    enc_only = Encoder().to(device)
    prefix = "encoder."
    enc_only.load_state_dict({k[len(prefix):]: v for k, v in ckpt["model"].items() if k.startswith(prefix)})
    opt2 = torch.optim.SGD(new.parameters(), lr=0.1, momentum=0.9)
    meta_opt = ckpt["optim"]
    return {"keys": keys, "buffers": [n for n, _ in model.named_buffers()],
            "missing": result.missing_keys, "unexpected": result.unexpected_keys, "on_cpu": on_cpu,
            "errors": errors, "same": torch.equal(enc_only.proj.weight, model.encoder.proj.weight),
            "bn_batches": int(enc_only.bn.num_batches_tracked), "meta": ckpt["meta"]["classes"],
            "optim_lr": meta_opt["param_groups"][0]["lr"], "sched": ckpt["sched"]["last_epoch"],
            "momentum": ckpt["optim"]["state"][0]["momentum_buffer"].sum().item(),
            "groups": list(meta_opt["param_groups"][0]["params"]), "opt2_groups": len(opt2.param_groups),
            "result_type": type(result).__name__, "result_tuple": list(result._fields)}


# ---- parametrizations (a custom symmetric constraint, orthogonal, weight_norm, spectral_norm; caching, removal) ----
def parametrizations(torch, device):
    nn = torch.nn
    P = nn.utils.parametrize

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class PositiveScale(nn.Module):
        def forward(self, X):
            return X.exp()

        def right_inverse(self, Y):
            return Y.log()

    layer = nn.Linear(4, 4).to(device)
    init_from_numpy(torch, layer, 9)
    P.register_parametrization(layer, "weight", Symmetric())
    sym = torch.equal(layer.weight, layer.weight.T)
    keys = sorted(layer.state_dict())
    names = [n for n, _ in layer.named_parameters()]
    scaled = nn.Linear(3, 2).to(device)
    init_from_numpy(torch, scaled, 10)
    with torch.no_grad():
        scaled.bias.abs_().add_(0.1)
    before = scaled.bias.tolist()
    P.register_parametrization(scaled, "bias", PositiveScale())
    roundtrip = scaled.bias.tolist()
    scaled.bias = torch.tensor([0.5, 2.0], device=device)  # goes through right_inverse
    original = scaled.parametrizations.bias.original.tolist()
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    x = numpy_input(torch, 11, 5, 4, device=device)
    for _ in range(2):
        opt.zero_grad()
        layer(x).pow(2).mean().backward()
        opt.step()
    with P.cached():
        a = layer.weight
        b = layer.weight
        cached_same = a is b
    still_sym = torch.allclose(layer.weight, layer.weight.T)
    P.remove_parametrizations(layer, "weight", leave_parametrized=True)
    after_remove = [type(layer.weight).__name__, P.is_parametrized(layer), sorted(layer.state_dict())]

    q = nn.utils.parametrizations.orthogonal(nn.Linear(5, 3).to(device))
    Q = q.weight
    ortho = (Q @ Q.T - torch.eye(3, device=device)).abs().max().item() < 1e-5
    wn = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3).to(device), dim=0)
    init_from_numpy(torch, wn, 12)
    wn_keys = sorted(wn.state_dict())
    norms = wn.weight.norm(dim=1).tolist()
    g = wn.parametrizations.weight.original0.flatten().tolist()
    sn = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 4).to(device), n_power_iterations=1)
    init_from_numpy(torch, sn, 13)
    with torch.no_grad():
        u = sn.parametrizations.weight[0]._u
        v = sn.parametrizations.weight[0]._v
        u.copy_(torch.from_numpy(np.linspace(1, 2, 4) / np.linalg.norm(np.linspace(1, 2, 4))))
        v.copy_(torch.from_numpy(np.linspace(-1, 1, 6) / np.linalg.norm(np.linspace(-1, 1, 6))))
    sn.train()
    for _ in range(20):
        sigma_w = sn.weight
    sigma = torch.linalg.matrix_norm(sigma_w.detach(), ord=2).item()
    sn.eval()
    return {"sym": sym, "keys": keys, "names": names, "before": before, "roundtrip": roundtrip,
            "original": original, "cached": cached_same, "still_sym": still_sym, "after_remove": after_remove,
            "ortho": ortho, "q_keys": sorted(q.state_dict()), "wn_keys": wn_keys, "wn_norms": norms, "g": g,
            "sigma": sigma, "sn_keys": sorted(sn.state_dict()), "sn_eval": sn(numpy_input(torch, 14, 2, 6,
                                                                                           device=device)).tolist()}


# ---- pruning (unstructured, structured, global, custom masks; remove; the masks' buffers and hooks) --------------
def pruning(torch, device):
    nn = torch.nn
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")  # `import torch.nn.utils.prune as prune`

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 3, 3)
            self.conv2 = nn.Conv2d(3, 4, 3)
            self.fc1 = nn.Linear(4 * 2 * 2, 6)
            self.fc2 = nn.Linear(6, 2)

        def forward(self, x):
            x = nn.functional.max_pool2d(nn.functional.relu(self.conv1(x)), 2)
            x = nn.functional.relu(self.conv2(x))
            return self.fc2(nn.functional.relu(self.fc1(x.flatten(1))))

    model = LeNet().to(device)
    init_from_numpy(torch, model, 15)
    prune.l1_unstructured(model.conv1, name="weight", amount=0.3)
    prune.ln_structured(model.conv2, name="weight", amount=0.5, n=2, dim=0)
    prune.l1_unstructured(model.fc1, name="bias", amount=3)
    mask_mask = torch.ones(2, 6, device=device)
    mask_mask[:, ::2] = 0
    prune.custom_from_mask(model.fc2, name="weight", mask=mask_mask)
    conv1_names = [n for n, _ in model.conv1.named_parameters()] + [n for n, _ in model.conv1.named_buffers()]
    hooks = [type(h).__name__ for h in model.conv1._forward_pre_hooks.values()]
    sparsity = {name: float((getattr(m, "weight") == 0).sum()) / m.weight.nelement()
                for name, m in model.named_children()}
    zero_channels = (model.conv2.weight.flatten(1).abs().sum(1) == 0).tolist()
    x = numpy_input(torch, 16, 2, 1, 10, 10, device=device)
    out = model(x)
    out.sum().backward()
    orig_grad = model.conv1.weight_orig.grad
    masked_grad_zero = bool((orig_grad[model.conv1.weight_mask == 0] == 0).all())
    # iterative: prune again, the masks combine (PruningContainer)
    prune.l1_unstructured(model.conv1, name="weight", amount=0.2)
    container = type(list(model.conv1._forward_pre_hooks.values())[0]).__name__
    again = int((model.conv1.weight == 0).sum())
    parameters_to_prune = ((model.fc1, "weight"), (model.fc2, "bias"))
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=4)
    global_zeros = [int((model.fc1.weight == 0).sum()), int((model.fc2.bias == 0).sum())]
    pruned = [prune.is_pruned(model), prune.is_pruned(nn.Linear(2, 2))]
    for module, name in ((model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight")):
        prune.remove(module, name)
    after = [n for n, _ in model.conv1.named_parameters()] + [n for n, _ in model.conv1.named_buffers()]
    try:
        prune.remove(model.conv1, "weight")
        err = None
    except ValueError as exc:
        err = str(exc)
    return {"names": conv1_names, "hooks": hooks, "sparsity": sparsity, "zero_channels": zero_channels,
            "out": out.flatten().tolist(), "masked_grad_zero": masked_grad_zero, "container": container,
            "again": again, "global_zeros": global_zeros, "pruned": pruned, "after": after, "err": err,
            "state_keys": sorted(model.state_dict())}


# ---- gradient clipping and parameter vectors (clip_grad_norm_, clip_grad_value_, the 2.x split helpers) ----------
def grad_clipping(torch, device):
    nn = torch.nn
    U = nn.utils
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3)).to(device)
    init_from_numpy(torch, model, 17)
    x = numpy_input(torch, 18, 6, 5, device=device)

    def fresh_grads(scale=10.0):
        model.zero_grad()
        (model(x).pow(2).sum() * scale).backward()

    fresh_grads()
    total = U.clip_grad_norm_(model.parameters(), max_norm=1.0)
    after = torch.stack([p.grad.norm() for p in model.parameters()]).norm().item()
    fresh_grads()
    inf_norm = U.clip_grad_norm_(model.parameters(), max_norm=0.5, norm_type="inf", foreach=False)
    fresh_grads()
    U.clip_grad_value_(model.parameters(), clip_value=0.25)
    max_abs = max(p.grad.abs().max().item() for p in model.parameters())
    fresh_grads()
    norms = [p.grad.norm(1.5) for p in model.parameters()]
    total2 = U.get_total_norm([p.grad for p in model.parameters()], norm_type=1.5)
    U.clip_grads_with_norm_(model.parameters(), max_norm=2.0, total_norm=total2)
    clipped = torch.stack([p.grad.norm(1.5) for p in model.parameters()]).norm(1.5).item()
    single = nn.Parameter(torch.ones(3, device=device))
    single.grad = torch.tensor([3.0, 4.0, 0.0], device=device)
    n_single = U.clip_grad_norm_(single, 1.0)
    model.zero_grad(set_to_none=True)
    none_norm = U.clip_grad_norm_(model.parameters(), 1.0)
    errors = []
    nan_param = nn.Parameter(torch.ones(2, device=device))
    nan_param.grad = torch.tensor([float("nan"), 1.0], device=device)
    try:
        U.clip_grad_norm_([nan_param], 1.0, error_if_nonfinite=True)
    except RuntimeError as exc:
        errors.append(str(exc).split(".")[0])
    vec = U.parameters_to_vector(model.parameters())
    U.vector_to_parameters(vec * 0 + torch.arange(vec.numel(), device=device, dtype=vec.dtype), model.parameters())
    try:
        U.vector_to_parameters([1, 2], model.parameters())
    except TypeError as exc:
        errors.append(str(exc))
    return {"total": total.item(), "after": after, "inf": inf_norm.item(), "max_abs": max_abs,
            "norms": [n.item() for n in norms], "total2": total2.item(), "clipped": clipped,
            "single": [n_single.item(), single.grad.tolist()], "none_norm": none_norm.item(),
            "none_device": none_norm.device.type, "errors": errors, "vec": [vec.numel(), vec.dtype == torch.float32],
            "bias1": model[2].bias.tolist(), "total_dtype": str(total.dtype)}


# ---- custom autograd Functions (save_for_backward, mark_non_differentiable, once_differentiable, setup_context) ----
def custom_functions(torch, device):
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable

    class Exp(Function):
        @staticmethod
        def forward(ctx, i):
            result = i.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    class SortWithIndices(Function):
        @staticmethod
        def forward(ctx, x):
            values, idx = x.sort(dim=-1)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)
            return values, idx

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_values, grad_idx):
            (idx,) = ctx.saved_tensors
            grad = torch.zeros_like(grad_values)
            grad.scatter_(-1, idx, grad_values)
            return grad

    class ScaledMul(Function):  # the 2.0 style: forward without ctx, setup_context, vmap support
        generate_vmap_rule = True

        @staticmethod
        def forward(x, y, scale):
            return x * y * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, scale = inputs
            ctx.save_for_backward(x, y)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            gx = grad * y * ctx.scale if ctx.needs_input_grad[0] else None
            gy = grad * x * ctx.scale if ctx.needs_input_grad[1] else None
            return gx, gy, None

    class StraightThrough(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x.round(), x.sign()

        @staticmethod
        def backward(ctx, g_round, g_sign):
            return g_round  # may be None when only sign is used downstream

    x = numpy_input(torch, 19, 3, 4, device=device).requires_grad_()
    y = Exp.apply(x)
    y.sum().backward()
    exp_ok = torch.allclose(x.grad, x.exp())
    x.grad = None
    values, idx = SortWithIndices.apply(x)
    (values * torch.arange(4.0, device=device)).sum().backward()
    sort_grad = x.grad.tolist()
    flags = [values.requires_grad, idx.requires_grad, idx.dtype == torch.int64,
             values.grad_fn.name()]
    v2, _ = SortWithIndices.apply(x)
    g, = torch.autograd.grad(v2.pow(2).sum(), x, create_graph=True)
    try:  # the backward ran under no_grad: its result refuses a second differentiation
        g.sum().backward()
        double = None
    except RuntimeError as exc:
        double = str(exc)
    a = x.detach().clone().requires_grad_()
    b = numpy_input(torch, 20, 3, 4, device=device)
    out = ScaledMul.apply(a, b, 3.0)
    out.sum().backward()
    batched = torch.func.vmap(ScaledMul.apply, in_dims=(0, 0, None))(a.detach(), b, 2.0)
    s = x.detach().clone().requires_grad_()
    r, sg = StraightThrough.apply(s * 2)
    r.sum().backward()
    ste = s.grad.tolist()
    check = torch.autograd.gradcheck(ScaledMul.apply, (torch.randn(2, 3, dtype=torch.float64, device=device,
                                                                   requires_grad=True),
                                                       torch.randn(2, 3, dtype=torch.float64, device=device,
                                                                   requires_grad=True), 1.5))
    return {"exp_ok": exp_ok, "sort_grad": sort_grad, "flags": flags, "double": double,
            "mul_grad": a.grad.tolist(), "batched": batched.tolist(), "ste": ste, "sign_rg": sg.requires_grad,
            "gradcheck": check}


# ---- torch.func and torch.autograd.functional (JVPs, Jacobians, Hessians, per-sample gradients, vjp) --------------
def functional_autodiff(torch, device):
    nn = torch.nn
    func = torch.func
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
    init_from_numpy(torch, model, 21)
    x = numpy_input(torch, 22, 5, 3, device=device)
    t = numpy_input(torch, 23, 5, 3, device=device)
    out, jvp_out = func.jvp(model, (x,), (t,))
    _, jvp_ref = torch.autograd.functional.jvp(model, x, t)
    params = {k: v.detach().requires_grad_() for k, v in model.named_parameters()}

    def loss_fn(p, xi, yi):
        pred = func.functional_call(model, p, (xi.unsqueeze(0),))
        return (pred.squeeze() - yi) ** 2

    y = numpy_input(torch, 24, 5, device=device)
    per_sample = func.vmap(func.grad(loss_fn), in_dims=(None, 0, 0))(params, x, y)
    summed = {k: v.sum(0) for k, v in per_sample.items()}
    loss = sum(loss_fn(params, x[i], y[i]) for i in range(5))
    full = torch.autograd.grad(loss, list(params.values()))
    matches = all(torch.allclose(summed[k], g, atol=1e-5) for k, g in zip(params, full))

    def f(v):
        return (v.sin() * v.pow(2)).sum()

    v = torch.tensor([0.5, -1.0, 2.0], device=device)
    H1 = func.hessian(f)(v)
    H2 = torch.autograd.functional.hessian(f, v)
    J1 = func.jacrev(torch.sin)(v)
    J2 = func.jacfwd(lambda z: z.outer(z))(v)
    J3 = torch.autograd.functional.jacobian(lambda a, b: a * b, (v, v * 2))
    value, vjp_fn = func.vjp(torch.cos, v)
    (vjp_out,) = vjp_fn(torch.ones_like(v))
    gv, val = func.grad_and_value(f)(v)
    _, hvp = torch.autograd.functional.hvp(f, v, torch.ones_like(v))
    jac_aux, aux = func.jacrev(lambda z: (z.exp(), z.sum()), has_aux=True)(v)
    return {"out": out.flatten().tolist(), "jvp": jvp_out.flatten().tolist(), "jvp_ref": jvp_ref.flatten().tolist(),
            "per_sample_shape": {k: list(g.shape) for k, g in per_sample.items()}, "matches": matches,
            "H1": H1.tolist(), "H2": H2.tolist(), "J1": J1.tolist(), "J2_shape": list(J2.shape),
            "J3": [[j.tolist() for j in row] for row in [J3]][0], "vjp": vjp_out.tolist(),
            "gv": gv.tolist(), "val": val.item(), "hvp": hvp.tolist(), "jac_aux": jac_aux.diagonal().tolist(),
            "aux": aux.item()}


# ---- anomaly detection and autograd errors (detect_anomaly names the forward op; retain_graph; allow_unused) -----
def anomaly_detection(torch, device):
    x = torch.tensor([0.0, 1.0, 4.0], device=device, requires_grad=True)
    found = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.autograd.detect_anomaly():
            y = x.sqrt() * 0.0  # d sqrt at 0 is inf; inf * 0 -> nan in backward
            try:
                y.sum().backward()
            except RuntimeError as exc:
                msg = str(exc)
                found.append(msg.split("'")[1] if "'" in msg else msg)
        enabled_inside = []
        with torch.autograd.set_detect_anomaly(True, check_nan=False):
            enabled_inside.append(torch.is_anomaly_enabled())
            enabled_inside.append(torch.is_anomaly_check_nan_enabled())
        enabled_inside.append(torch.is_anomaly_enabled())
    w = torch.ones(3, device=device, requires_grad=True)
    z = (w * w).sum()
    z.backward(retain_graph=True)
    z.backward()
    try:
        z.backward()
    except RuntimeError as exc:
        found.append(str(exc).split(".")[0])
    unused = torch.ones(2, device=device, requires_grad=True)
    try:
        torch.autograd.grad((w * 3).sum(), [w, unused])
    except RuntimeError as exc:
        found.append(str(exc).split(".")[0])
    g = torch.autograd.grad((w * 3).sum(), [w, unused], allow_unused=True, materialize_grads=True)
    try:
        torch.ones(2, device=device).sum().backward()
    except RuntimeError as exc:
        found.append(str(exc))
    try:
        (w * 2).backward()
    except RuntimeError as exc:
        found.append(str(exc))
    leaf = torch.zeros(2, device=device, requires_grad=True)
    try:
        leaf.add_(1)
    except RuntimeError as exc:
        found.append(str(exc))
    v = torch.ones(3, device=device, requires_grad=True)
    e = v.exp()
    e.add_(1)  # exp saved its output; backward must refuse the modified version
    try:
        e.sum().backward()
    except RuntimeError as exc:
        found.append(str(exc).split(";")[0].replace("cuda.", ""))
    return {"found": found, "flags": enabled_inside, "w_grad": w.grad.tolist(), "g": [t.tolist() for t in g]}


# ---- saved-tensor hooks, gradient hooks on many tensors, autocast's custom_fwd, inference and no_grad modes ---
def autograd_hooks(torch, device):
    nn = torch.nn
    packed = []

    def pack(t):
        packed.append(tuple(t.shape))
        return t.clone()

    def unpack(t):
        return t

    x = numpy_input(torch, 46, 3, 4, device=device).requires_grad_()
    w = numpy_input(torch, 47, 4, 2, device=device).requires_grad_()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x @ w).tanh().sum()
    y.backward()
    grad_w = w.grad.flatten().tolist()
    with torch.autograd.graph.save_on_cpu(pin_memory=False):
        z = (x * w.sum(1)).sin().sum()
    z.backward()
    multi = []
    a = torch.ones(2, device=device, requires_grad=True)
    b = torch.ones(2, device=device, requires_grad=True)
    torch.autograd.graph.register_multi_grad_hook((a, b), lambda grads: multi.append(
        [None if g is None else g.tolist() for g in grads]))
    (a * 3).sum().backward()
    ((a * 2) + b).sum().backward()

    class MyMM(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type=torch.device(device).type, cast_inputs=torch.float32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a.mm(b)

        @staticmethod
        @torch.amp.custom_bwd(device_type=torch.device(device).type)
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return grad.mm(b.t()), a.t().mm(grad)

    lin = nn.Linear(4, 4).to(device)
    init_from_numpy(torch, lin, 49)
    with torch.autocast(device_type=torch.device(device).type, dtype=torch.bfloat16):
        h = lin(x)
        mm = MyMM.apply(h, w)
        with torch.autocast(device_type=torch.device(device).type, enabled=False):
            inner = (h.float() @ w).dtype
    mm.sum().backward()
    with torch.inference_mode():
        inf = lin(x)
        modes = [inf.requires_grad, torch.is_inference_mode_enabled()]
    modes.append(torch.is_inference_mode_enabled())

    @torch.no_grad()
    def evaluate(t):
        return lin(t).requires_grad

    @torch.enable_grad()
    def train_step(t):
        return lin(t).requires_grad

    with torch.no_grad():
        inside = train_step(x)
    grad_flags = [evaluate(x), inside, torch.set_grad_enabled(False) is not None, torch.is_grad_enabled()]
    torch.set_grad_enabled(True)
    return {"packed": sorted(packed), "grad_w": grad_w, "x_grad": x.grad.flatten().tolist(), "multi": multi,
            "mm": [str(h.dtype), str(mm.dtype), str(inner), str(lin.weight.grad.dtype)], "modes": modes,
            "grad_flags": grad_flags}


# ---- module state hooks and copies (tied weights, state_dict hooks, assign=True, deepcopy, fusion, ensembling) ---
def module_state_tools(torch, device):
    nn = torch.nn

    class TiedLM(nn.Module):
        def __init__(self, vocab, dim):
            super().__init__()
            self.embed = nn.Embedding(vocab, dim)
            self.proj = nn.Linear(dim, dim)
            self.out = nn.Linear(dim, vocab, bias=False)
            self.out.weight = self.embed.weight  # weight tying

        def forward(self, ids):
            return self.out(torch.tanh(self.proj(self.embed(ids))))

    lm = TiedLM(7, 4).to(device)
    init_from_numpy(torch, lm, 42)
    ids = torch.tensor([[1, 2, 3], [4, 5, 6]], device=device)
    lm(ids).logsumexp(-1).sum().backward()
    tied = [len(list(lm.parameters())), len(list(lm.named_parameters(remove_duplicate=False))),
            sorted(lm.state_dict()), lm.out.weight is lm.embed.weight, lm.embed.weight.grad.abs().sum().item()]
    seen = []
    lm._register_state_dict_hook(lambda m, sd, prefix, local: seen.append(("sd", prefix)))
    lm.register_load_state_dict_post_hook(lambda m, keys: seen.append(("post", sorted(keys.missing_keys))))
    lm.proj.register_load_state_dict_pre_hook(lambda m, sd, prefix, *a: seen.append(("pre", prefix)))
    sd = lm.state_dict()
    copy_ = TiedLM(7, 4).to(device)
    copy_.load_state_dict(sd)
    fresh = {k: v.clone() + 1 for k, v in sd.items()}
    copy_.load_state_dict(fresh, assign=True)
    assigned = copy_.proj.weight.data_ptr() == fresh["proj.weight"].data_ptr()
    clone = __import__("copy").deepcopy(lm)
    same_after_copy = torch.equal(clone(ids), lm(ids))
    clone_tied = clone.out.weight is clone.embed.weight
    lookups = [tuple(lm.get_submodule("proj").weight.shape), tuple(lm.get_parameter("proj.bias").shape)]
    try:
        lm.get_submodule("proj.missing")
    except AttributeError as exc:
        lookups.append(str(exc))
    half = TiedLM(7, 4).to(device).half()
    lm.requires_grad_(False)
    frozen = [p.requires_grad for p in lm.parameters()]
    # conv + batchnorm fusion for inference
    conv, bn = nn.Conv2d(2, 3, 3).to(device), nn.BatchNorm2d(3).to(device)
    init_from_numpy(torch, conv, 43)
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
        bn.running_var.copy_(torch.tensor([1.5, 0.5, 2.0]))
        bn.weight.copy_(torch.tensor([1.0, 2.0, 0.5]))
    conv.eval()
    bn.eval()
    fused = nn.utils.fusion.fuse_conv_bn_eval(conv, bn)
    img = numpy_input(torch, 44, 1, 2, 5, 5, device=device)
    fusion_ok = torch.allclose(fused(img), bn(conv(img)), atol=1e-5)
    # model ensembling with torch.func
    models = [nn.Linear(3, 2).to(device) for _ in range(4)]
    for i, m in enumerate(models):
        init_from_numpy(torch, m, 50 + i)
    params, buffers = torch.func.stack_module_state(models)
    base = __import__("copy").deepcopy(models[0])

    def call_one(p, b, xb):
        return torch.func.functional_call(base, (p, b), (xb,))

    xb = numpy_input(torch, 45, 5, 3, device=device)
    ensemble = torch.func.vmap(call_one, in_dims=(0, 0, None))(params, buffers, xb)
    loop = torch.stack([m(xb) for m in models])
    return {"tied": tied, "seen": seen, "assigned": assigned, "copy": [same_after_copy, clone_tied],
            "lookups": lookups, "half": str(half.proj.weight.dtype), "frozen": frozen, "fusion": fusion_ok,
            "ensemble": [list(ensemble.shape), torch.allclose(ensemble, loop, atol=1e-6)],
            "stacked": {k: list(v.shape) for k, v in params.items()}}


# ---- nn.init and module surgery (apply, named_modules, swapping layers, ModuleDict/ParameterList/ParameterDict) ---
def init_and_surgery(torch, device):
    nn = torch.nn
    init = nn.init

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
            self.heads = nn.ModuleDict({"cls": nn.Linear(8, 4), "box": nn.Linear(8, 2)})
            self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(2)])
            self.extra = nn.ParameterDict({"temp": nn.Parameter(torch.tensor(1.0))})

        def forward(self, x):
            f = self.stem(x).mean((2, 3))
            return {k: h(f) * s for (k, h), s in zip(self.heads.items(), self.scales)}

    def init_weights(m):
        if isinstance(m, nn.Conv2d):
            init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            init.zeros_(m.bias)
        elif isinstance(m, nn.BatchNorm2d):
            init.ones_(m.weight)
            init.constant_(m.bias, 0.1)
        elif isinstance(m, nn.Linear):
            init.xavier_uniform_(m.weight, gain=init.calculate_gain("tanh"))
            init.zeros_(m.bias)

    model = Backbone().to(device)
    model.apply(init_weights)
    conv_std_ok = abs(model.stem[0].weight.std().item() - math.sqrt(2.0 / (8 * 9))) < 0.1
    bound = init.calculate_gain("tanh") * math.sqrt(6.0 / (8 + 4))
    xavier_ok = model.heads["cls"].weight.abs().max().item() <= bound
    # surgery: swap every ReLU for a GELU, freeze the stem, add a head
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.ReLU):
                setattr(module, child_name, nn.GELU())
    for p in model.stem.parameters():
        p.requires_grad_(False)
    model.heads["aux"] = nn.Linear(8, 1).to(device)
    model.scales.append(nn.Parameter(torch.full((1,), 2.0, device=device)))
    init_from_numpy(torch, model, 29)
    with torch.no_grad():
        model.stem[1].running_var.fill_(1.0)
        model.stem[1].running_mean.zero_()
    model.eval()
    out = model(numpy_input(torch, 30, 2, 3, 4, 4, device=device))
    fills = {}
    w = torch.empty(3, 5)
    init.eye_(w)
    fills["eye"] = w.tolist()
    k = torch.empty(2, 2, 3)
    init.dirac_(k)
    fills["dirac"] = k.flatten().tolist()
    q = torch.empty(4, 3)
    init.orthogonal_(q, gain=2.0)
    fills["orth"] = (q.T @ q).diagonal().tolist()
    fills["fan"] = list(init._calculate_fan_in_and_fan_out(torch.empty(6, 4, 3, 3)))
    fills["gains"] = [init.calculate_gain("leaky_relu", 0.2), init.calculate_gain("selu"),
                      init.calculate_gain("conv2d")]
    t = torch.empty(1000)
    init.trunc_normal_(t, mean=0.0, std=1.0, a=-0.5, b=0.5)
    fills["trunc_in_range"] = bool((t.abs() <= 0.5).all())
    s = torch.empty(20, 20)
    init.sparse_(s, sparsity=0.5)
    fills["sparse_zero_per_col"] = (s == 0).sum(0).tolist()
    # a deeper head built by repeating a shared block, the mixin model initialised through call_super_init
    block = nn.Sequential(nn.Linear(8, 8), nn.Tanh())
    deep_head = block * 2 + nn.Sequential(nn.Linear(8, 4))
    deep_head += nn.Sequential(nn.LogSoftmax(dim=-1))

    class Tagged:
        def __init__(self, tag="untagged"):
            self.tag = tag

    class TaggedNet(nn.Module, Tagged):
        call_super_init = True

        def __init__(self):
            super().__init__(tag="v2")
            self.body = nn.Linear(2, 2)

    return {"conv_std_ok": conv_std_ok, "xavier_ok": xavier_ok, "tag": TaggedNet().tag,
            "deep_head": [list(deep_head._modules), deep_head[0] is deep_head[2],
                          sum(p.numel() for p in deep_head.parameters())],
            "modules": [n for n, _ in model.named_modules()], "children": [n for n, _ in model.named_children()],
            "trainable": [n for n, p in model.named_parameters() if p.requires_grad],
            "out": {k: v.flatten().tolist() for k, v in out.items()}, "fills": fills,
            "types": [type(m).__name__ for m in model.modules()][:6],
            "n_params": sum(p.numel() for p in model.parameters()),
            "repr_head": repr(model.heads).splitlines()[:3]}


# ---- forward-mode AD with dual tensors (the forward_ad tutorial: make_dual, unpack_dual, a module's JVP) -----------
def forward_mode_ad(torch, device):
    nn = torch.nn
    fwAD = torch.autograd.forward_ad
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).to(device)
    init_from_numpy(torch, model, 21)
    x = numpy_input(torch, 22, 5, 3, device=device)
    t = numpy_input(torch, 23, 5, 3, device=device)
    with fwAD.dual_level():
        out = model(fwAD.make_dual(x, t))
        primal, tangent = fwAD.unpack_dual(out)
    _, jvp_ref = torch.autograd.functional.jvp(model, x, t)
    return {"primal": primal.flatten().tolist(), "tangent": tangent.flatten().tolist(),
            "jvp_ref": jvp_ref.flatten().tolist()}


# ---- inference tensors (made under inference_mode: refused by in-place updates outside it and by autograd) ------
def inference_tensors(torch, device):
    lin = torch.nn.Linear(4, 2).to(device)
    x = numpy_input(torch, 48, 3, 4, device=device).requires_grad_()
    with torch.inference_mode():
        out = lin(x)
    found = [out.is_inference(), x.is_inference()]
    try:
        out.add_(1)
    except RuntimeError as exc:
        found.append(str(exc))
    try:
        (out * x[:, :2]).sum().backward()
    except RuntimeError as exc:
        found.append(str(exc).split(".")[0])
    return {"found": found, "clone": out.clone().is_inference()}


# ---- meta-device initialisation (build a big model without memory, then to_empty and reset_parameters) ----------
def meta_init(torch, device):
    nn = torch.nn
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(16, 32), nn.LayerNorm(32), nn.Linear(32, 4))
    shapes = {n: [p.device.type, list(p.shape)] for n, p in model.named_parameters()}
    model = model.to_empty(device=device)
    for m in model.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    init_from_numpy(torch, model, 31)
    out = model(numpy_input(torch, 32, 3, 16, device=device))
    lazy = nn.Linear(16, 4, device="meta")
    return {"shapes": shapes, "out": out.flatten().tolist(), "lazy": [lazy.weight.is_meta, lazy.weight.numel()],
            "empty_meta": list(torch.empty(3, 4, device="meta").shape)}


# ---- the programs of this file ------------------------------------------------------------------------------------
PROGRAMS = [activation_checkpointing, module_hooks, state_dict_surgery, parametrizations, pruning, grad_clipping,
            custom_functions, functional_autodiff, anomaly_detection, autograd_hooks, module_state_tools,
            init_and_surgery, meta_init, forward_mode_ad, inference_tensors]
NEEDS_CPP = {}
_reference = {}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", program_params(PROGRAMS, NEEDS_CPP))
def test_program_matches_pytorch(program, device):
    compare_with_pytorch(program, device, _reference)


# ---- what the programs found that needs C++ (strict xfails, so that a fix has to remove them) ----------------------
def test_grad_fn_type_is_named_after_its_node():
    y = tandem.ones(2, requires_grad=True).exp()
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "ExpBackward0"


def test_backward_through_a_freed_graph_of_a_scalar_product_is_refused():
    w = tandem.ones(3, requires_grad=True)
    z = (w * 2).sum()
    z.backward(retain_graph=True)
    z.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        z.backward()
