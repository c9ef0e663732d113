"""What the tenth sweep of real repositories run unchanged on tandem found (docs/compat.md, "Upstream
repositories", "Tenth sweep"): each test is our own smallest form of one failure, checked against PyTorch."""
import gc

import pytest
import torch

import tandem

LIBS = (tandem, torch)


def _on(lib, device):
    return device if lib is tandem else "cpu"


# torchjd annotates with torch.utils._pytree.PyTree (`args: tuple[PyTree, ...]`) at import; tandem's _pytree had
# the functions but not PyTorch's annotation aliases.
_PYTREE_ALIASES = ["PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
                   "FromDumpableContextFn", "PyTreeSpec", "KeyPath", "KeyEntry", "FlattenFunc", "UnflattenFunc"]


def test_pytree_annotation_aliases():
    from tandem.utils import _pytree

    for name in _PYTREE_ALIASES:
        assert hasattr(_pytree, name), name
    for name in ("PyTree", "Context", "FlattenFn", "UnflattenFn", "DumpableContext", "ToDumpableContextFn",
                 "FromDumpableContextFn", "PyTreeSpec"):
        assert name in _pytree.__all__
    assert _pytree.PyTreeSpec is _pytree.TreeSpec
    tuple[_pytree.PyTree, ...]  # usable in annotations
    _pytree.FlattenFn.__args__  # a typing form, as PyTorch's


# torchjd's test helpers take a Jacobian as vmap(get_vjp)(eye) where get_vjp calls autograd.grad with
# retain_graph=False: PyTorch runs one batched backward pass, tandem's vmap one pass per element, and the second
# element found the graph freed. The loop now keeps the graph for every element but the last.
def _vmapped_vjp(lib, device):
    gen = torch.Generator().manual_seed(0)
    x = lib.tensor(torch.randn(3, generator=gen).tolist(), device=_on(lib, device), requires_grad=True)
    out = (x * 2).sin() * x

    def vjp(g):
        return lib.autograd.grad(out, [x], grad_outputs=g, retain_graph=False)[0]

    jac = lib.func.vmap(vjp)(lib.eye(3, device=_on(lib, device)))
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        lib.autograd.grad(out, [x], lib.ones(3, device=_on(lib, device)))
    return jac.cpu()


def test_vmap_over_grad_that_frees_the_graph(device):
    torch.testing.assert_close(torch.from_numpy(_vmapped_vjp(tandem, device).numpy()), _vmapped_vjp(torch, "cpu"))


def test_nested_vmap_over_grad_that_frees_the_graph(device):
    got = []
    for lib in LIBS:
        x = lib.arange(1.0, 4.0, device=_on(lib, device), requires_grad=True)
        out = x.exp() * x

        def vjp(g):
            return lib.autograd.grad(out, x, grad_outputs=g)[0]

        cotangents = lib.stack([lib.eye(3), 2 * lib.eye(3)]).to(_on(lib, device))
        got.append(torch.tensor(lib.func.vmap(lib.func.vmap(vjp))(cotangents).cpu().tolist()))
    torch.testing.assert_close(got[0], got[1])


# torchjd's autogram engine differentiates with respect to GradientEdges (get_gradient_edge of module outputs,
# and edges rebuilt from grad_fn.next_functions): tandem.autograd.grad refused every edge. An edge now stands for
# the tensor get_gradient_edge took it from, while that tensor lives and still has that edge.
def _edge_grads(lib, device):
    from_edge = lib.autograd.graph.get_gradient_edge
    a = lib.tensor([1.0, 2.0, -0.5], device=_on(lib, device), requires_grad=True)
    b = a * 3
    c = b.sin()
    d = (c * c).sum()
    eb, ea, ec = from_edge(b), from_edge(a), from_edge(c)
    out = [lib.autograd.grad(d, [eb], retain_graph=True),
           lib.autograd.grad(d, lib.autograd.graph.GradientEdge(*c.grad_fn.next_functions[0]), retain_graph=True),
           lib.autograd.grad([ec], [ea, eb], grad_outputs=[lib.ones(3, device=_on(lib, device))], retain_graph=True),
           lib.autograd.grad(d, [ea, b], retain_graph=True)]
    # the edges of a module's output, as a set (torchjd keeps them in one)
    assert len({eb, from_edge(b), lib.autograd.graph.GradientEdge(*c.grad_fn.next_functions[0])}) == 1
    return [[g.cpu().tolist() for g in grads] for grads in out]


def test_grad_with_respect_to_gradient_edges(device):
    ours, theirs = _edge_grads(tandem, device), _edge_grads(torch, "cpu")
    for o, t in zip(ours, theirs):
        assert len(o) == len(t)
        for g, h in zip(o, t):
            assert g == pytest.approx(h)


def test_gradient_edge_whose_tensor_is_gone_still_refused():
    a = tandem.ones(2, requires_grad=True)
    b = a * 2
    d = (b * b).sum()
    edge = tandem.autograd.graph.get_gradient_edge(b)
    del b
    gc.collect()
    with pytest.raises(NotImplementedError, match="GradientEdge is supported only while the tensor"):
        tandem.autograd.grad(d, [edge])


# opacus' DPDataLoader types its collate_fn with torch.utils.data.dataloader._collate_fn_t.
def test_dataloader_annotation_aliases():
    from tandem.utils.data import dataloader
    from torch.utils.data import dataloader as theirs

    for name in ("_collate_fn_t", "_worker_init_fn_t", "_T", "_T_co"):
        assert type(getattr(dataloader, name)) is type(getattr(theirs, name)), name


# opacus' grad_sample_mode="ew" (GradSampleModuleExpandedWeights) calls
# torch.nn.utils._per_sample_grad.call_for_per_sample_grads, which tandem lacked: after backward each trainable
# parameter's grad_sample holds its per-sample gradients and .grad stays None.
def _per_sample_grads(lib, device, reduction, batch_first=True):
    from importlib import import_module

    call = import_module(f"{lib.__name__}.nn.utils._per_sample_grad").call_for_per_sample_grads
    gen = torch.Generator().manual_seed(0)
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.GroupNorm(1, 3), nn.Flatten(), nn.Linear(12, 4), nn.LayerNorm(4),
                          nn.Linear(4, 2)).double()
    frozen = model[5].bias
    frozen.requires_grad_(False)
    model.load_state_dict({k: lib.tensor(torch.randn(v.shape, generator=gen, dtype=torch.float64).numpy())
                           for k, v in model.state_dict().items()})
    model.to(_on(lib, device))
    x = lib.tensor(torch.randn(5, 2, 6, generator=gen, dtype=torch.float64).numpy(), device=_on(lib, device))
    out = call(model, loss_reduction=reduction, batch_first=batch_first)(x)
    loss = out.pow(2).sum() if reduction == "sum" else out.pow(2).mean()
    loss.backward()
    got = {n: (p.grad, tuple(p.grad_sample.shape), p.grad_sample.cpu().numpy()) for n, p in model.named_parameters()
           if p.requires_grad}
    assert not hasattr(frozen, "grad_sample")
    return out.detach().cpu().numpy(), got


@pytest.mark.parametrize("reduction", ["sum", "mean"])
def test_call_for_per_sample_grads(device, reduction):
    (out, ours), (out_t, theirs) = _per_sample_grads(tandem, device, reduction), _per_sample_grads(torch, "cpu",
                                                                                                   reduction)
    assert out == pytest.approx(out_t, rel=1e-12, abs=1e-12)
    assert ours.keys() == theirs.keys()
    for name in ours:
        grad, shape, samples = ours[name]
        assert grad is None and theirs[name][0] is None
        assert shape == theirs[name][1]
        assert samples == pytest.approx(theirs[name][2], rel=1e-10, abs=1e-12)


def test_call_for_per_sample_grads_embedding_and_batch_size(device):
    got = []
    for lib in LIBS:
        from importlib import import_module

        call = import_module(f"{lib.__name__}.nn.utils._per_sample_grad").call_for_per_sample_grads
        emb = lib.nn.Embedding(5, 3).to(_on(lib, device))
        with lib.no_grad():
            emb.weight.copy_(lib.arange(15.0).reshape(5, 3))
        idx = lib.tensor([[0, 1], [1, 1], [4, 0]], device=_on(lib, device))
        call(emb, batch_size=3)(idx).pow(2).sum().backward()
        got.append(emb.weight.grad_sample.cpu().tolist())
        with pytest.raises(RuntimeError, match="Current Expanded Weights accumulates the gradients"):
            call(emb)
    assert got[0] == got[1]


@pytest.mark.parametrize("kwargs, message", [
    ({"loss_reduction": "max"}, "Expected loss_reduction argument to be sum or mean, got max"),
    ({"batch_size": 2.0}, "Batch size passed must be None or an integer, got float"),
    ({"batch_size": 0}, "Batch size must be positive, got 0")])
def test_call_for_per_sample_grads_refuses_as_pytorch(kwargs, message):
    from importlib import import_module

    for lib in LIBS:
        call = import_module(f"{lib.__name__}.nn.utils._per_sample_grad").call_for_per_sample_grads
        with pytest.raises(RuntimeError, match=message):
            call(lib.nn.Linear(2, 2), **kwargs)
        with pytest.raises(RuntimeError, match="Module passed must be nn.Module, got function"):
            call(lambda x: x)
        with pytest.raises(RuntimeError, match="found at least one input with batch size 2 and one with batch size 3"):
            call(lib.nn.Bilinear(2, 2, 1))(lib.ones(2, 2), lib.ones(3, 2))


# Left for C++: torchjd declares `class PSDMatrix(PSDTensor, Matrix)`, two Tensor subclasses with one base (geoopt's
# ManifoldParameter(ManifoldTensor, nn.Parameter) in the sixth sweep, the same form). nanobind refuses a class with
# two nanobind bases ("multiple nanobind bases are not supported"); Python's rule allows the diamond.
@pytest.mark.xfail(strict=True, raises=TypeError, reason="C++: nanobind refuses two Tensor-subclass bases")
def test_tensor_subclass_with_two_tensor_subclass_bases():
    got = []
    for lib in (torch, tandem):
        class Matrix(lib.Tensor):
            pass

        class PSDTensor(lib.Tensor):
            pass

        class PSDMatrix(PSDTensor, Matrix):
            pass

        got.append([c.__name__ for c in PSDMatrix.__mro__[:3]])
    assert got[0] == got[1]


# Left for C++ (batched tensors): torchjd's autogram computes a Gramian as vmap(differentiation)(jac_output), and
# the backward of its custom Function updates state once per backward pass. PyTorch's vmap runs the Function's
# backward once on the batched cotangent; tandem's vmap is a loop, so the backward runs once per element.
@pytest.mark.xfail(strict=True, reason="C++: vmap is a per-element loop; a Function's backward runs per element")
def test_vmapped_grad_runs_a_function_backward_once():
    got = []
    for lib in LIBS:
        calls = []

        class Scale(lib.autograd.Function):
            generate_vmap_rule = True

            @staticmethod
            def forward(x):
                return x * 2

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                calls.append(tuple(g.shape))
                return g * 2

        x = lib.ones(3, requires_grad=True)
        y = Scale.apply(x)
        lib.func.vmap(lambda g: lib.autograd.grad(y, x, g, retain_graph=True)[0])(lib.eye(3))
        got.append(len(calls))
    assert got[0] == got[1] == 1


# higher's functional RNNs (monkeypatched copies whose weights are non-leaf tensors of an unrolled optimiser) assign
# module._flat_weights, the list PyTorch's RNN forward runs with; tandem's _flat_weights was a read-only property.
@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
def test_rnn_runs_with_assigned_flat_weights(device, mode):
    got = []
    for lib in LIBS:
        gen = torch.Generator().manual_seed(0)
        rnn = getattr(lib.nn, mode)(3, 4, num_layers=2, bidirectional=True)
        rnn.load_state_dict({k: lib.tensor(torch.rand(v.shape, generator=gen).numpy()) - 0.5
                             for k, v in rnn.state_dict().items()})
        rnn.to(_on(lib, device))
        scaled = [w * 0.5 for w in rnn._flat_weights]
        rnn._flat_weights = scaled
        x = lib.linspace(-1, 1, 30, device=_on(lib, device)).reshape(5, 2, 3)
        out = rnn(x)[0]
        out.sum().backward()
        grad = rnn.weight_ih_l0.grad.cpu().numpy()  # through the assigned tensors (w * 0.5)
        replaced = lib.nn.Parameter(lib.zeros_like(rnn.weight_hh_l1))
        rnn.weight_hh_l1 = replaced  # PyTorch's __setattr__ updates the list in place
        assert rnn._flat_weights[rnn._flat_weights_names.index("weight_hh_l1")] is replaced
        assert rnn._flat_weights[0] is scaled[0]
        with lib.no_grad():
            again = rnn(x)[0]
        rnn._init_flat_weights()
        assert all(w is getattr(rnn, n) for w, n in zip(rnn._flat_weights, rnn._flat_weights_names))
        got.append((out.detach().cpu().numpy(), again.cpu().numpy(), grad))
    for a, b in zip(*got):
        assert a == pytest.approx(b, rel=1e-5, abs=1e-6)


# opacus' RenameParamsMixin (DPLSTM and the other DP layers) filters the old parameter names out of its state_dict
# with a private _register_state_dict_hook that returns a new dict: PyTorch's state_dict returns the hook's result
# for the module it was called on; tandem ignored the result.
def test_private_state_dict_hook_result_replaces_the_dict():
    got = []
    for lib in LIBS:
        class Renamed(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Linear(2, 2)
                self.alias = self.inner.weight
                self._register_state_dict_hook(
                    lambda mod, sd, prefix, meta: {k: v for k, v in sd.items() if not k.endswith("alias")})

        outer = lib.nn.Sequential(Renamed())
        got.append((sorted(outer[0].state_dict()), sorted(outer.state_dict())))
    assert got[0] == got[1]
    assert got[0][0] == ["inner.bias", "inner.weight"]
