"""Sweep 19 programs on model surgery and introspection beyond sweep 8's: hook ordering (prepend, always_call,
with_kwargs pre-hooks returning new args and kwargs, backward pre-hooks rewriting grad_output, a hook removed
inside a hook), module traversal (get_submodule/set_submodule/get_parameter/get_buffer, shared modules in
named_modules with and without duplicates, apply, repr with extra_repr), conv+BN and linear+BN fusion by hand
against nn.utils.fusion with BN freezing via eval() on submodules, structured pruning (ln_structured, identity,
is_pruned) with parametrize.cached and the older weight_norm/remove_weight_norm, and state-dict migration with
_version and _load_from_state_dict overrides, state-dict hooks, size-mismatch errors and IncompatibleKeys.

Each program takes the library as `torch` and a device and returns plain Python values (see
test_programs_sweep19.py). Parameters and data come from NumPy so both libraries start from the same numbers."""
import copy
import importlib

from sweep15_common import cases
from test_programs_sweeputil import rounded as _r
from test_programs_sweeputil import seeded_randn as _randn
from test_programs_sweeputil import uniform_fill as _fill


def _lib(text):
    return text.replace("tandem", "torch")


# ---- hook ordering and rewriting ---------------------------------------------------------------------------------------
def hook_ordering(torch, device):
    nn = torch.nn
    events = []

    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x, *, scale=1.0):
            events.append(f"forward scale={scale}")
            return self.lin(x) * scale

    m = _fill(torch, Scale(), 2100).to(device)
    handles = []
    handles.append(m.register_forward_pre_hook(lambda mod, args: events.append("pre A") or None))
    handles.append(m.register_forward_pre_hook(lambda mod, args: events.append("pre B (prepended)"), prepend=True))

    def kw_pre(mod, args, kwargs):
        events.append(f"pre kwargs {sorted(kwargs)}")
        return (args[0] + 1,), {**kwargs, "scale": 2.0}

    handles.append(m.register_forward_pre_hook(kw_pre, with_kwargs=True))

    def fwd(mod, args, kwargs, out):
        events.append(f"fwd kwargs scale={kwargs.get('scale')}")
        return out + 100

    handles.append(m.register_forward_hook(fwd, with_kwargs=True))
    handles.append(m.register_forward_hook(lambda mod, a, o: events.append("fwd first"), prepend=True))
    handles.append(m.register_forward_hook(lambda mod, a, o: events.append("always"), always_call=True))

    def once(mod, a, o):
        events.append("once")
        once_handle.remove()

    once_handle = m.register_forward_hook(once)
    x = _randn(torch, 2101, 2, 3, device=device, dtype=None).requires_grad_(True)
    y = m(x, scale=0.5)
    events.append("--")
    m(x)
    events.append("--")
    grads = {}

    def bwd_pre(mod, grad_output):
        events.append("bwd pre")
        return (grad_output[0] * 10,)

    def bwd(mod, grad_input, grad_output):
        events.append("bwd")
        grads["in"] = _r(grad_input[0].sum(), 4)
        grads["out"] = _r(grad_output[0].sum(), 4)

    handles.append(m.register_full_backward_pre_hook(bwd_pre))
    handles.append(m.register_full_backward_hook(bwd))
    y = m(x, scale=0.5)
    y.sum().backward()
    events.append("--")
    # an exception in forward still runs the always_call hook
    m.lin.register_forward_pre_hook(lambda mod, args: (_ for _ in ()).throw(ValueError("boom")))
    err = None
    try:
        m(x)
    except ValueError as exc:
        err = str(exc)
    for h in handles:
        h.remove()

    class Heads(nn.Module):  # a dict of outputs, as detection heads return: PyTorch's full backward hook skips it
        def forward(self, x):
            return {"cls": x * 2, "box": x * 3}

    heads, dict_events = Heads(), []
    heads.register_full_backward_hook(lambda mod, gi, go: dict_events.append([len(gi), len(go)]))
    heads.register_full_backward_pre_hook(lambda mod, go: dict_events.append("pre"))
    z = x.detach().requires_grad_(True)
    out = heads(z)
    (out["cls"].sum() + out["box"].sum()).backward()
    return {"events": events, "dict_events": dict_events, "dict_grad": _r(z.grad.sum(), 4), "grads": grads, "x_grad": _r(x.grad.sum(), 4), "error": err,
            "y": _r(y[0], 4), "hooks_left": [len(m._forward_hooks), len(m._forward_pre_hooks),
                                             len(m._backward_hooks)]}


# ---- traversal: get/set_submodule, get_parameter/get_buffer, duplicates, apply, repr ---------------------------------
def module_traversal(torch, device):
    nn = torch.nn

    class Head(nn.Module):
        def __init__(self, dim, classes):
            super().__init__()
            self.fc = nn.Linear(dim, classes)
            self.register_buffer("temperature", torch.tensor(2.0))
            self.classes = classes

        def extra_repr(self):
            return f"classes={self.classes}"

        def forward(self, x):
            return self.fc(x) / self.temperature

    shared = nn.Linear(4, 4)
    model = nn.Sequential()
    model.add_module("enc", nn.Sequential(shared, nn.ReLU(), shared))
    model.add_module("drop", nn.Dropout(0.1))
    model.add_module("head", Head(4, 3))
    _fill(torch, model, 2102).to(device)
    out = {}
    out["named"] = [n for n, _ in model.named_modules()]
    out["named_dups"] = [n for n, _ in model.named_modules(remove_duplicate=False)]
    out["params"] = [n for n, _ in model.named_parameters()]
    out["params_dups"] = [n for n, _ in model.named_parameters(remove_duplicate=False)]
    out["children"] = [n for n, _ in model.named_children()]
    out["prefixed"] = [n for n, _ in model.enc.named_modules(prefix="backbone")]
    memo = {model.head}
    out["memo"] = [[n for n, _ in model.named_modules(memo=memo)], len(memo), shared in memo]
    out["repr"] = _lib(repr(model))
    inits = []

    def init(m):
        if isinstance(m, nn.Linear):
            inits.append(m.out_features)
            nn.init.constant_(m.bias, 0.1)

    model.apply(init)
    out["apply"] = inits
    out["lookups"] = cases(torch, {
        "get_submodule": lambda: type(model.get_submodule("head.fc")).__name__,
        "get_submodule_missing": lambda: model.get_submodule("head.nope"),
        "get_submodule_not_module": lambda: model.get_submodule("head.fc.weight"),
        "get_parameter": lambda: list(model.get_parameter("enc.0.weight").shape),
        "get_parameter_missing": lambda: model.get_parameter("head.fc.nope"),
        "get_parameter_buffer": lambda: model.get_parameter("head.temperature"),
        "get_buffer": lambda: model.get_buffer("head.temperature").item(),
        "get_buffer_param": lambda: model.get_buffer("head.fc.bias"),
        "get_empty": lambda: type(model.get_submodule("")).__name__,
        "set_submodule": lambda: _set_submodule(torch, model),
        "set_submodule_missing": lambda: model.set_submodule("nope.fc", nn.Identity()),
        "set_submodule_strict": lambda: model.set_submodule("head.new_fc", nn.Identity(), strict=True),
        "set_submodule_not_module": lambda: model.set_submodule("head.fc", "text"),
        "getattr_missing": lambda: model.head.missing,
        "delattr": lambda: _delattr(torch, model),
    })
    out["output"] = _r(model.eval()(torch.ones(2, 4, device=device)), 4)
    return out


def _set_submodule(torch, model):
    m = copy.deepcopy(model)
    m.set_submodule("head.fc", torch.nn.Linear(4, 5))
    m.set_submodule("enc.1", torch.nn.GELU())
    return [type(m.enc[1]).__name__, m.head.fc.out_features, type(model.enc[1]).__name__,
            m.enc[0] is m.enc[2]]


def _delattr(torch, model):
    m = copy.deepcopy(model)
    del m.head.temperature
    del m.drop
    return [n for n, _ in m.named_buffers()] + [n for n, _ in m.named_children()]


# ---- conv+BN and linear+BN fusion by hand against nn.utils.fusion; freezing BN by eval() ------------------------------
def bn_fusion(torch, device):
    nn = torch.nn
    conv = nn.Conv2d(3, 4, 3, padding=1, bias=False)
    bn = nn.BatchNorm2d(4)
    _fill(torch, conv, 2110)
    with torch.no_grad():
        bn.weight.copy_(torch.tensor([1.0, 0.5, -0.7, 2.0]))
        bn.bias.copy_(torch.tensor([0.1, 0.0, -0.2, 0.3]))
    model = nn.Sequential(conv, bn, nn.ReLU()).to(device)
    x = _randn(torch, 2111, 2, 3, 5, 5, device=device)
    model.train()
    for i in range(3):
        model(x * (i + 1))
    model.eval()
    ref = model(x)

    def fold(conv, bn):
        w = conv.weight
        b = conv.bias if conv.bias is not None else torch.zeros_like(bn.running_mean)
        std = torch.sqrt(bn.running_var + bn.eps)
        fused = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding,
                          bias=True).to(w.device)
        with torch.no_grad():
            fused.weight.copy_(w * (bn.weight / std).view(-1, 1, 1, 1))
            fused.bias.copy_((b - bn.running_mean) * bn.weight / std + bn.bias)
        return fused

    by_hand = fold(model[0], model[1])
    library = torch.nn.utils.fusion.fuse_conv_bn_eval(model[0], model[1])
    lin = _fill(torch, nn.Linear(4, 3), 2112).to(device).eval()
    bn1 = nn.BatchNorm1d(3).to(device)
    bn1.train()
    bn1(lin(_randn(torch, 2113, 8, 4, device=device)))
    bn1.eval()
    fused_lin = torch.nn.utils.fusion.fuse_linear_bn_eval(lin, bn1)
    z = _randn(torch, 2114, 5, 4, device=device)
    # replace conv/bn pairs in a copy by walking named_children
    fused_model = copy.deepcopy(model)
    fused_model[0] = by_hand
    fused_model[1] = nn.Identity()
    # freeze BN: train() on the model, eval() on its norm layers, requires_grad_(False) on their affine
    frozen = copy.deepcopy(model).train()
    for m in frozen.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()
            m.requires_grad_(False)
    before = frozen[1].running_mean.clone()
    frozen(x).sum().backward()
    return {
        "by_hand": bool(torch.allclose(by_hand(x).relu(), ref, atol=1e-5)),
        "library": bool(torch.allclose(library(x).relu(), ref, atol=1e-5)),
        "same_weights": bool(torch.allclose(by_hand.weight, library.weight, atol=1e-6)),
        "library_bias": _r(library.bias, 4),
        "library_grad": [library.weight.requires_grad, type(library.weight).__name__],
        "linear": bool(torch.allclose(fused_lin(z), bn1(lin(z)), atol=1e-5)),
        "fused_model": bool(torch.allclose(fused_model(x), ref, atol=1e-5)),
        "fused_repr": _lib(repr(fused_model)),
        "frozen_stats": bool(torch.equal(before, frozen[1].running_mean)),
        "frozen_grads": [p.grad is None for p in frozen.parameters()],
        "batches": int(model[1].num_batches_tracked),
        "errors": cases(torch, {
            "train_mode": lambda: torch.nn.utils.fusion.fuse_conv_bn_eval(model[0].train(), model[1].train()),
        }),
    }


# ---- structured pruning, parametrize.cached, the old weight_norm --------------------------------------------------------
def structured_pruning(torch, device):
    nn = torch.nn
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")
    parametrize = importlib.import_module(torch.__name__ + ".nn.utils.parametrize")
    conv = _fill(torch, nn.Conv2d(2, 4, 3), 2120).to(device)
    prune.ln_structured(conv, name="weight", amount=0.5, n=2, dim=0)
    kept = (conv.weight.abs().sum((1, 2, 3)) > 0).tolist()
    out = {"ln_kept": kept, "is_pruned": prune.is_pruned(conv),
           "names": sorted(n for n, _ in conv.named_parameters()) + sorted(n for n, _ in conv.named_buffers())}
    prune.ln_structured(conv, name="weight", amount=1, n=1, dim=1)  # iterative: masks combine
    out["combined_mask"] = conv.weight_mask.sum((2, 3)).tolist()
    hooks = [type(h).__name__ for h in conv._forward_pre_hooks.values()]
    out["hook_type"] = hooks
    # group lasso on the filters: the pruned (all-zero) filters have a norm of 0, whose gradient PyTorch defines as 0
    weight = conv.weight.detach().clone().requires_grad_(True)
    penalty = torch.linalg.vector_norm(weight.flatten(1), dim=1).sum() + \
        torch.linalg.vector_norm(weight.flatten(1), ord=0.5, dim=1).sum() * 0.1
    penalty.backward()
    out["group_lasso"] = [_r(penalty, 4), bool(torch.isnan(weight.grad).any()), _r(weight.grad.abs().sum(), 4),
                          _r(torch.linalg.matrix_norm(weight[~torch.tensor(kept, device=device)].flatten(2)), 4)]
    prune.remove(conv, "weight")
    out["after_remove"] = [prune.is_pruned(conv), sorted(n for n, _ in conv.named_parameters())]
    lin = _fill(torch, nn.Linear(3, 3), 2121).to(device)
    prune.identity(lin, "bias")
    out["identity"] = [lin.bias_mask.tolist(), prune.is_pruned(lin)]
    out["errors"] = cases(torch, {
        "amount_too_big": lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=5),
        "amount_negative": lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", amount=-0.1),
        "bad_name": lambda: prune.l1_unstructured(nn.Linear(2, 2), "nope", amount=1),
        "remove_unpruned": lambda: prune.remove(nn.Linear(2, 2), "weight"),
        "ln_bad_dim": lambda: prune.ln_structured(nn.Linear(2, 2), "weight", amount=1, n=2, dim=3),
    })

    class Symmetric(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, X):
            self.calls += 1
            return X.triu() + X.triu(1).transpose(-1, -2)

    sq = _fill(torch, nn.Linear(3, 3), 2122).to(device)
    sym = Symmetric()
    parametrize.register_parametrization(sq, "weight", sym)
    x = _randn(torch, 2123, 4, 3, device=device)
    with parametrize.cached():
        a = sq(x)
        b = sq(x)
        _ = sq.weight + sq.weight
    cached_calls = sym.calls
    sq(x)
    out["cached"] = [cached_calls, sym.calls, bool(torch.equal(a, b)),
                     bool(torch.equal(sq.weight, sq.weight.t()))]
    out["parametrized_names"] = sorted(n for n, _ in sq.named_parameters())
    parametrize.remove_parametrizations(sq, "weight", leave_parametrized=True)
    out["after"] = [parametrize.is_parametrized(sq), bool(torch.equal(sq.weight, sq.weight.t()))]
    wn = _fill(torch, nn.Linear(4, 2), 2124).to(device)
    wn = torch.nn.utils.weight_norm(wn, name="weight", dim=0)
    out["wn_names"] = sorted(n for n, _ in wn.named_parameters())
    out["wn_g"] = _r(wn.weight_g.view(-1), 4)
    y1 = wn(x[:, :2].repeat(1, 2))
    torch.nn.utils.remove_weight_norm(wn)
    y2 = wn(x[:, :2].repeat(1, 2))
    out["wn_same"] = bool(torch.allclose(y1, y2, atol=1e-6))
    out["wn_after"] = sorted(n for n, _ in wn.named_parameters())
    out["wn_errors"] = cases(torch, {
        "remove_twice": lambda: torch.nn.utils.remove_weight_norm(wn),
        "dim_none": lambda: list(torch.nn.utils.weight_norm(nn.Linear(2, 2), dim=None).weight_g.shape),
    })
    return out


# ---- state-dict migration: _version, _load_from_state_dict, hooks, mismatches ------------------------------------------
def state_dict_migration(torch, device):
    nn = torch.nn

    class Block(nn.Module):
        _version = 2

        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(3, 3)
            self.norm = nn.LayerNorm(3)

        def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                                  unexpected_keys, error_msgs):
            version = local_metadata.get("version", None)
            if version is None or version < 2:  # v1 called the projection "fc"
                for suffix in ("weight", "bias"):
                    old = f"{prefix}fc.{suffix}"
                    if old in state_dict:
                        state_dict[f"{prefix}proj.{suffix}"] = state_dict.pop(old)
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs)

        def forward(self, x):
            return self.norm(self.proj(x))

    model = nn.Sequential(Block(), nn.Linear(3, 2))
    _fill(torch, model, 2130)
    model.to(device)
    sd = model.state_dict()
    out = {"keys": list(sd), "version": sd._metadata["0"].get("version"),
           "root_version": sd._metadata[""].get("version"), "meta_keys": sorted(sd._metadata)}
    old = {k.replace("proj", "fc"): v.clone() for k, v in sd.items()}
    old_meta = copy.deepcopy(sd._metadata)
    old_meta["0"]["version"] = 1
    old = type(sd)(old)
    old._metadata = old_meta
    fresh = nn.Sequential(Block(), nn.Linear(3, 2)).to(device)
    result = fresh.load_state_dict(old)
    out["migrated"] = [repr(result), bool(torch.equal(fresh[0].proj.weight, model[0].proj.weight))]
    seen = []
    fresh.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: seen.append(("pre", prefix, keep_vars)))
    fresh[0].register_load_state_dict_post_hook(
        lambda mod, keys: seen.append(("post", sorted(keys.missing_keys), sorted(keys.unexpected_keys))))
    def drop_norm_bias(mod, sd, prefix, meta):
        sd.pop(prefix + "norm.bias")

    fresh[0]._register_state_dict_hook(drop_norm_bias)
    sd2 = fresh.state_dict(keep_vars=True)
    out["hooked_keys"] = list(sd2)
    out["keep_vars"] = [type(sd2["0.proj.weight"]).__name__, sd2["0.proj.weight"].requires_grad]
    res = fresh.load_state_dict(sd2, strict=False)
    out["partial"] = [sorted(res.missing_keys), sorted(res.unexpected_keys), res == ([], []) if False else None]
    out["seen"] = seen
    bad = {k: v.clone() for k, v in model.state_dict().items()}
    bad["1.weight"] = torch.zeros(5, 3, device=device)
    bad["extra.weight"] = torch.zeros(1)
    out["errors"] = cases(torch, {
        "size_mismatch": lambda: _first_lines(lambda: fresh.load_state_dict(bad)),
        "size_mismatch_nonstrict": lambda: _first_lines(lambda: fresh.load_state_dict(bad, strict=False)),
        "missing": lambda: _first_lines(lambda: fresh.load_state_dict({"0.proj.weight": bad["0.proj.weight"]})),
        "not_mapping": lambda: fresh.load_state_dict([1, 2]),
        "assign": lambda: _assign(torch, model, device),
    })
    return out


def _first_lines(call):
    try:
        call()
    except Exception as exc:  # the message is what is compared
        return [type(exc).__name__] + [_lib(line) for line in str(exc).split("\n")[:4]]
    return None


def _assign(torch, model, device):
    m = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 2)).to(device)
    sd = {"0.weight": torch.ones(3, 3, dtype=torch.float64, device=device),
          "0.bias": torch.zeros(3, device=device),
          "1.weight": model[1].weight.detach().clone(), "1.bias": model[1].bias.detach().clone()}
    m.load_state_dict(sd, assign=True)
    return [str(m[0].weight.dtype), type(m[0].weight).__name__, m[0].weight.requires_grad]


PROGRAMS = [hook_ordering, module_traversal, bn_fusion, structured_pruning, state_dict_migration]
NEEDS_CPP = {}
