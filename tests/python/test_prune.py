"""nn.utils.prune, run the same way on tandem and on PyTorch (the oracle): the weight_orig / weight_mask
reparametrization and its forward pre-hook, state-dict keys, iterative pruning through PruningContainer,
deterministic masks (L1, Ln structured, custom, global) equal to PyTorch's, random methods' counts, remove,
is_pruned, a custom method as in PyTorch's pruning tutorial, and the errors."""
import math
import re

import numpy as np
import pytest
import torch
import torch.nn.utils.prune as torch_prune

import tandem
import tandem.nn.utils.prune as tandem_prune

PRUNE = {torch: torch_prune, tandem: tandem_prune}


def _np(t):
    return t.detach().cpu().numpy()


def _values(shape, seed=0):
    """Distinct values (no ties in abs or in channel norms), mixed signs."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    scale = (1 + seed / 7) / n  # different seeds give different values too (global pruning compares them)
    return (rng.permutation(n) + 1.0).reshape(shape) * rng.choice([-1.0, 1.0], size=shape) * scale


def _conv(m, device, dtype=None):
    dtype = dtype or m.float32
    conv = m.nn.Conv2d(2, 4, 3).to(device=device, dtype=dtype)
    with m.no_grad():
        conv.weight.copy_(m.tensor(_values((4, 2, 3, 3)), dtype=dtype))
        conv.bias.copy_(m.tensor(_values((4,), 1), dtype=dtype))
    return conv


def _linear(m, device, seed=0):
    lin = m.nn.Linear(5, 3).to(device)
    with m.no_grad():
        lin.weight.copy_(m.tensor(_values((3, 5), seed), dtype=m.float32))
        lin.bias.copy_(m.tensor(_values((3,), seed + 1), dtype=m.float32))
    return lin


def _both(fn, device):
    return fn(torch, "cpu"), fn(tandem, device)


def _message(fn):
    with pytest.raises(Exception) as info:
        fn()
    # Module reprs, class paths and shapes name the library.
    return info.type, re.sub(r"0x[0-9a-f]+", "0x", str(info.value).replace("torch", "tandem"))


def _same_error(build):
    """build(m) raises; the type and message agree between tandem and torch."""
    ref_type, ref = _message(lambda: build(torch))
    our_type, ours = _message(lambda: build(tandem))
    assert our_type is ref_type
    assert ours == ref


def test_reparametrization_matches_pytorch(device):
    def run(m, dev):
        lin = _linear(m, dev)
        weight = lin.weight
        PRUNE[m].l1_unstructured(lin, "weight", amount=0.4)
        assert lin.weight_orig is weight and isinstance(lin.weight_orig, m.nn.Parameter)
        assert not isinstance(lin.weight, m.nn.Parameter) and lin.weight.requires_grad
        assert lin.weight_mask.dtype == m.float32 and lin.weight_mask.device == weight.device
        names = ([n for n, _ in lin.named_parameters()], [n for n, _ in lin.named_buffers()], list(lin.state_dict()))
        hooks = [type(h).__name__ for h in lin._forward_pre_hooks.values()]
        x = m.tensor(_values((2, 5), 7), dtype=m.float32, device=dev)
        lin(x).sum().backward()
        return names, hooks, _np(lin.weight), _np(lin.weight_mask), _np(lin.weight_orig.grad), lin.weight.grad_fn.name()

    ref, ours = _both(run, device)
    assert ours[:2] == ref[:2]
    for r, o in zip(ref[2:5], ours[2:5]):
        np.testing.assert_allclose(o, r, rtol=1e-6)
    assert ours[5] == ref[5] == "MulBackward0"


def test_forward_pre_hook_recomputes_from_orig(device):
    def run(m, dev):
        lin = _linear(m, dev)
        PRUNE[m].l1_unstructured(lin, "weight", amount=6)
        with m.no_grad():
            lin.weight_orig.mul_(-2)
        before = _np(lin.weight)
        lin(m.ones(1, 5, device=dev))
        return before, _np(lin.weight)

    (rb, ra), (ob, oa) = _both(run, device)
    np.testing.assert_allclose(ob, rb)
    np.testing.assert_allclose(oa, ra)
    assert not np.allclose(oa, ob)


@pytest.mark.parametrize("n", [1, 2, "fro", "nuc", math.inf, -math.inf])
@pytest.mark.parametrize("dim", [0, 1, -1, 3])
def test_ln_structured_masks_match_pytorch(device, n, dim):
    def run(m, dev):
        conv = _conv(m, dev)
        if n == "nuc":  # PyTorch takes matrix norms over the last two dims of each channel for 4-d weights
            return None
        PRUNE[m].ln_structured(conv, "weight", amount=0.5, n=n, dim=dim)
        return _np(conv.weight_mask)

    ref, ours = _both(run, device)
    if ref is not None:
        np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("n", [1, 2, "fro", "nuc"])
def test_ln_structured_on_a_matrix_and_3d(device, n):
    def run(m, dev):
        lin = _linear(m, dev)
        PRUNE[m].ln_structured(lin, "weight", amount=1, n=n if n != "nuc" else 2, dim=0)
        t = m.tensor(_values((4, 3, 5), 3), dtype=m.float64, device=dev)
        method = PRUNE[m].LnStructured(amount=2, n=n, dim=0)
        return _np(lin.weight_mask), _np(method.prune(t)), _np(method.compute_mask(t, m.ones_like(t)))

    for r, o in zip(*_both(run, device)):
        np.testing.assert_array_equal(o, r)
        assert o.dtype == r.dtype


def test_iterative_pruning_combines_masks(device):
    def run(m, dev):
        p = PRUNE[m]
        conv = _conv(m, dev)
        p.l1_unstructured(conv, "weight", amount=0.3)
        p.ln_structured(conv, "weight", amount=1, n=2, dim=0)
        p.l1_unstructured(conv, "weight", amount=5)
        p.custom_from_mask(conv, "bias", mask=m.tensor([1.0, 0.0, 1.0, 1.0], device=dev))
        p.ln_structured(conv, "weight", amount=0.5, n=1, dim=1)
        hooks = list(conv._forward_pre_hooks.values())
        container = [h for h in hooks if h._tensor_name == "weight"][0]
        info = (type(container).__name__, [type(h).__name__ for h in container], len(container),
                type(container[0]).__name__, sorted(conv.state_dict()))
        return info, _np(conv.weight_mask), _np(conv.bias_mask), _np(conv.weight)

    ref, ours = _both(run, device)
    assert ours[0] == ref[0]
    assert ours[0][0] == "PruningContainer"
    for r, o in zip(ref[1:], ours[1:]):
        np.testing.assert_allclose(o, r, rtol=1e-6)


def test_global_unstructured_matches_pytorch(device):
    def run(m, dev):
        p = PRUNE[m]
        a, b = _linear(m, dev, 0), _linear(m, dev, 5)
        p.l1_unstructured(b, "bias", amount=1)  # an earlier mask is respected
        params = ((a, "weight"), (b, "weight"), (b, "bias"))
        p.global_unstructured(params, pruning_method=p.L1Unstructured, amount=0.4)
        scores = {(a, "bias"): m.tensor([3.0, -0.01, 2.0], device=dev)}
        p.global_unstructured([(a, "bias")], p.L1Unstructured, importance_scores=scores, amount=1)
        return [_np(t) for t in (a.weight_mask, b.weight_mask, b.bias_mask, a.bias_mask, a.weight, b.bias)]

    for r, o in zip(*_both(run, device)):
        np.testing.assert_allclose(o, r, rtol=1e-6)


def test_importance_scores_and_prune_method(device):
    def run(m, dev):
        p = PRUNE[m]
        lin = _linear(m, dev)
        # Distinct entries and distinct column norms (column j scaled by 20**j).
        scores = m.tensor(_values((3, 5), 11) * 20.0 ** np.arange(5), dtype=m.float32, device=dev)
        p.l1_unstructured(lin, "weight", amount=4, importance_scores=scores)
        p.ln_structured(lin, "weight", amount=1, n=1, dim=1, importance_scores=scores * 2)
        t = m.tensor(_values((6,), 2), dtype=m.float64, device=dev)
        pruned = p.L1Unstructured(0.5).prune(t, importance_scores=-t.flip(0))
        default = m.tensor([1.0, 0, 1, 1, 1, 1], dtype=m.float64, device=dev)
        pruned2 = p.L1Unstructured(2).prune(t, default_mask=default)
        return _np(lin.weight_mask), _np(pruned), _np(pruned2), str(pruned.dtype)[-7:]

    for r, o in zip(*_both(run, device)):
        np.testing.assert_array_equal(o, r)


def test_identity_and_custom_from_mask_dtypes(device):
    def run(m, dev):
        p = PRUNE[m]
        conv = _conv(m, dev, m.float64)
        p.identity(conv, "bias")
        p.custom_from_mask(conv, "weight", mask=m.rand(4, 2, 3, 3, device=dev) > 2)  # a bool mask
        return (str(conv.bias_mask.dtype)[-7:], str(conv.weight_mask.dtype)[-7:], _np(conv.bias_mask),
                _np(conv.weight), str(conv.weight.device)[:3])

    ref, ours = _both(run, device)
    assert ours[:2] == ref[:2] == ("float64", "float64")
    np.testing.assert_array_equal(ours[2], ref[2])
    np.testing.assert_array_equal(ours[3], ref[3])
    assert ours[4] == device[:3]


def test_remove_makes_pruning_permanent(device):
    def run(m, dev):
        p = PRUNE[m]
        lin = _linear(m, dev)
        orig = lin.weight
        p.l1_unstructured(lin, "weight", amount=0.5)
        p.random_unstructured(lin, "bias", amount=1)
        pruned = _np(lin.weight)
        assert p.is_pruned(m.nn.Sequential(lin)) and p.is_pruned(lin)
        p.remove(lin, "weight")
        assert lin.weight is orig and isinstance(lin.weight, m.nn.Parameter)
        p.remove(lin, "bias")
        assert not p.is_pruned(lin) and not lin._forward_pre_hooks
        return pruned, _np(lin.weight), sorted(lin.state_dict()), [n for n, _ in lin.named_parameters()]

    ref, ours = _both(run, device)
    np.testing.assert_allclose(ours[0], ref[0])
    np.testing.assert_allclose(ours[1], ref[1])
    assert ours[2:] == ref[2:]


def test_load_state_dict_of_a_pruned_model(device):
    src = _linear(tandem, device)
    tandem_prune.l1_unstructured(src, "weight", amount=0.6)
    dst = _linear(tandem, device, 3)
    tandem_prune.identity(dst, "weight")
    dst.load_state_dict(src.state_dict())
    x = tandem.ones(2, 5, device=device)
    np.testing.assert_allclose(_np(dst(x)), _np(src(x)))
    np.testing.assert_array_equal(_np(dst.weight_mask), _np(src.weight_mask))


@pytest.mark.parametrize("amount", [0, 3, 0.25, 1.0, 15])
def test_random_unstructured_counts(device, amount):
    lin = _linear(tandem, device)
    tandem_prune.random_unstructured(lin, "weight", amount=amount)
    expected = amount if isinstance(amount, int) else round(amount * 15)
    assert int((lin.weight_mask == 0).sum()) == expected
    assert lin.weight_mask.device.type == tandem.device(device).type
    # A second pruning only prunes what the first one kept.
    if expected <= 13:
        tandem_prune.random_unstructured(lin, "weight", amount=2)
        assert int((lin.weight_mask == 0).sum()) == expected + 2


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_random_structured_prunes_whole_channels(device, dim):
    conv = _conv(tandem, device)
    tandem_prune.random_structured(conv, "weight", amount=0.5, dim=dim)
    mask = _np(conv.weight_mask)
    d = dim % 4
    per_channel = np.moveaxis(mask, d, 0).reshape(mask.shape[d], -1)
    assert set(per_channel.min(1)) <= {0.0, 1.0} and (per_channel.min(1) == per_channel.max(1)).all()
    assert int((per_channel[:, 0] == 0).sum()) == round(0.5 * mask.shape[d])
    tandem_prune.random_structured(conv, "weight", amount=1, dim=dim)
    per_channel = np.moveaxis(_np(conv.weight_mask), d, 0).reshape(mask.shape[d], -1)
    assert int((per_channel[:, 0] == 0).sum()) == round(0.5 * mask.shape[d]) + 1


def test_custom_method_as_in_the_tutorial(device):
    def run(m, dev):
        p = PRUNE[m]

        class FooBarPruningMethod(p.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        lin = _linear(m, dev)
        FooBarPruningMethod.apply(lin, "bias")
        p.l1_unstructured(lin, "bias", amount=1)
        return _np(lin.bias_mask), _np(lin.bias)

    for r, o in zip(*_both(run, device)):
        np.testing.assert_allclose(o, r)


def test_pruned_model_trains(device):
    lin = _linear(tandem, device)
    tandem_prune.l1_unstructured(lin, "weight", amount=0.5)
    opt = tandem.optim.SGD(lin.parameters(), lr=0.1)
    mask = _np(lin.weight_mask)
    for _ in range(3):
        opt.zero_grad()
        lin(tandem.ones(4, 5, device=device)).pow(2).sum().backward()
        opt.step()
    lin(tandem.ones(1, 5, device=device))
    assert (_np(lin.weight)[mask == 0] == 0).all()
    assert (_np(lin.weight_orig.grad)[mask == 0] == 0).all()


def _prune_with(fn):
    def build(m):
        return fn(m, PRUNE[m], _linear(m, "cpu"))
    return build


@pytest.mark.parametrize("amount", [-1, 1.5, -0.1, "0.3", None])
def test_amount_validation_errors(amount):
    _same_error(lambda m: PRUNE[m].L1Unstructured(amount))
    _same_error(lambda m: PRUNE[m].RandomStructured(amount, dim=0))


@pytest.mark.parametrize("case", [
    lambda m, p, lin: p.l1_unstructured(lin, "weight", amount=16),
    lambda m, p, lin: p.random_unstructured(lin, "bias", amount=4),
    lambda m, p, lin: p.ln_structured(lin, "bias", amount=1, n=2, dim=0),
    lambda m, p, lin: p.random_structured(lin, "weight", amount=1, dim=2),
    lambda m, p, lin: p.ln_structured(lin, "weight", amount=4, n=2, dim=0),
    lambda m, p, lin: p.l1_unstructured(lin, "weight", amount=1, importance_scores=m.ones(5, 3)),
    lambda m, p, lin: p.remove(lin, "weight"),
    lambda m, p, lin: p.L1Unstructured(0.5).prune(m.ones(3), importance_scores=m.ones(4)),
    lambda m, p, lin: p.L1Unstructured(0.5).remove(lin),
    lambda m, p, lin: p.L1Unstructured(0.5).apply_mask(lin),
    lambda m, p, lin: p.custom_from_mask(lin, "weight", mask=m.ones(5, 3)),
    lambda m, p, lin: p.global_unstructured([(lin, "weight")], p.RandomStructured, amount=1),
    lambda m, p, lin: p.global_unstructured(3, p.L1Unstructured, amount=1),
    lambda m, p, lin: p.global_unstructured([(lin, "weight")], p.L1Unstructured, importance_scores=[1], amount=1),
    lambda m, p, lin: p.PruningContainer(p.Identity()).add_pruning_method(3),
], ids=["too-many", "too-many-bias", "structured-1d", "bad-dim", "too-many-channels", "scores-shape",
        "remove-unpruned", "prune-scores-shape", "remove-method", "apply-mask-unapplied", "mask-shape",
        "global-structured", "global-not-iterable", "global-scores-type", "container-type"])
def test_errors_match_pytorch(case):
    _same_error(_prune_with(case))


def test_container_rejects_other_tensor_names():
    def build(m):
        p = PRUNE[m]
        a, b = p.Identity(), p.Identity()
        a._tensor_name, b._tensor_name = "weight", "bias"
        p.PruningContainer(a).add_pruning_method(b)
    _same_error(build)


def test_like_factories_refuse_other_objects():
    # A PyTorch tensor or a list passed to tandem's *_like (e.g. a torch model given to tandem's prune) is a
    # TypeError, as PyTorch raises for a non-tensor (it used to crash).
    for bad in (torch.ones(2), [1.0, 2.0]):
        with pytest.raises(TypeError, match=r"^ones_like\(\): argument 'input' \(position 1\) must be Tensor, not "):
            tandem.ones_like(bad)
    with pytest.raises(TypeError):
        tandem.Tensor.is_contiguous([1])


def test_failed_pruning_restores_the_parameter():
    for m in (torch, tandem):
        lin = _linear(m, "cpu")
        weight = lin.weight
        with pytest.raises(ValueError):
            PRUNE[m].l1_unstructured(lin, "weight", amount=100)
        assert lin.weight is weight and "weight" in dict(lin.named_parameters())
        assert not hasattr(lin, "weight_orig") and not PRUNE[m].is_pruned(lin)


def _pruning_tutorial(torch, device):
    """PyTorch's Pruning Tutorial, its code unchanged except that the library is the parameter `torch` (an
    import statement would always load PyTorch)."""
    nn, F = torch.nn, torch.nn.functional
    prune = PRUNE[torch]
    seen = {}

    class LeNet(nn.Module):
        def __init__(self):
            super(LeNet, self).__init__()
            self.conv1 = nn.Conv2d(1, 6, 3)
            self.conv2 = nn.Conv2d(6, 16, 3)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.view(-1, int(x.nelement() / x.shape[0]))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    model = LeNet().to(device=device)
    module = model.conv1
    prune.random_unstructured(module, name="weight", amount=0.3)
    seen["zeros after random"] = int(torch.sum(module.weight == 0))
    prune.l1_unstructured(module, name="bias", amount=3)
    prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
    for hook in module._forward_pre_hooks.values():
        if hook._tensor_name == "weight":
            break
    seen["history"] = [type(h).__name__ for h in hook]
    seen["keys"] = list(model.state_dict().keys())
    prune.remove(module, "weight")
    seen["params after remove"] = [n for n, _ in module.named_parameters()]

    new_model = LeNet()
    for name, module in new_model.named_modules():
        if isinstance(module, torch.nn.Conv2d):
            prune.l1_unstructured(module, name="weight", amount=0.2)
        elif isinstance(module, torch.nn.Linear):
            prune.l1_unstructured(module, name="weight", amount=0.4)
    seen["buffers"] = list(dict(new_model.named_buffers()).keys())

    model = LeNet()
    parameters_to_prune = ((model.conv1, "weight"), (model.conv2, "weight"), (model.fc1, "weight"),
                           (model.fc2, "weight"), (model.fc3, "weight"))
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
    total = sum(float(torch.sum(m.weight == 0)) for m, _ in parameters_to_prune)
    seen["global sparsity"] = 100.0 * total / sum(float(m.weight.nelement()) for m, _ in parameters_to_prune)
    seen["forward"] = tuple(model(torch.ones(2, 1, 28, 28)).shape)

    class FooBarPruningMethod(prune.BasePruningMethod):
        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    def foobar_unstructured(module, name):
        FooBarPruningMethod.apply(module, name)
        return module

    model = LeNet()
    foobar_unstructured(model.fc3, name="bias")
    seen["foobar"] = model.fc3.bias_mask.tolist()
    return seen


def test_the_pruning_tutorial_runs_unchanged(device):
    ours, ref = _pruning_tutorial(tandem, device), _pruning_tutorial(torch, "cpu")
    assert ours["history"] == ["RandomUnstructured", "LnStructured"]
    assert ours.pop("global sparsity") == pytest.approx(ref.pop("global sparsity"))
    assert ours == ref
