"""What the sixth sweep of real repositories run unchanged on tandem found (docs/compat.md, "Upstream
repositories", "Sixth sweep"): each test is our own smallest form of one failure, checked against PyTorch."""
import numpy as np
import pytest
import torch

import tandem

LIBS = (tandem, torch)


def _on(lib, device):
    return device if lib is tandem else "cpu"


# entmax's loss Functions return (loss, None) when no support size is asked for, and take k=None as an input: the
# None output was taken for an input returned as is, and apply() called None.detach().
def _loss_with_none_output(lib):
    class LossAndSupport(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k=None, scale=2.0):
            ctx.save_for_backward(x)
            return (x * x).sum(), k, scale

        @staticmethod
        def backward(ctx, grad, grad_k, grad_scale):
            (x,) = ctx.saved_tensors
            return 2 * x * grad, None, None

    return LossAndSupport


def test_function_returning_none_and_a_number_beside_its_tensor(device):
    got = []
    for lib in LIBS:
        x = lib.tensor([1.0, -2.0, 3.0], device=_on(lib, device), requires_grad=True)
        loss, k, scale = _loss_with_none_output(lib).apply(x, None, 2.0)
        loss.backward()
        got.append((loss.item(), k, scale, loss.grad_fn is not None, x.grad.tolist(), str(x.grad.device)))
    assert got[0][:5] == got[1][:5]
    assert got[0][5] == device


def test_function_returning_an_input_tensor_still_gets_a_fresh_output(device):
    got = []
    for lib in LIBS:
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x, k

            @staticmethod
            def backward(ctx, g, gk):
                return g, None

        x = lib.ones(2, device=_on(lib, device), requires_grad=True)
        y, k = Identity.apply(x, None)
        got.append((y is x, k, type(y.grad_fn).__name__, x.grad_fn))
    assert got[0] == got[1] == (False, None, "IdentityBackward", None)


# geoopt's ManifoldParameter.__new__(cls, data=None, manifold=None, requires_grad=True) subclasses Parameter:
# tandem's Parameter had an __init__(data, requires_grad) that refused the extra keyword after __new__ had run.
def test_parameter_subclass_whose_new_takes_more_arguments(device):
    got = []
    for lib in LIBS:
        class TaggedParameter(lib.nn.Parameter):
            def __new__(cls, data=None, tag=None, requires_grad=True):
                instance = lib.Tensor._make_subclass(cls, data, requires_grad)
                instance.tag = tag
                return instance

        p = TaggedParameter(lib.ones(2, device=_on(lib, device)), tag="sphere", requires_grad=False)
        q = TaggedParameter(lib.zeros(1, device=_on(lib, device)), "ball")
        module = lib.nn.Module()
        module.p = q
        got.append((type(p).__name__, p.tag, p.requires_grad, q.tag, q.requires_grad, [n for n, _ in
                                                                                      module.named_parameters()]))
    assert got[0] == got[1]


@pytest.mark.parametrize("make", [lambda lib: lib.nn.Parameter(lib.ones(1), True, 3),
                                  lambda lib: lib.nn.Parameter(lib.ones(1), foo=3),
                                  lambda lib: lib.nn.UninitializedParameter(True, None, None, 4)])
def test_parameter_refuses_extra_arguments_as_pytorch(make):
    messages = []
    for lib in LIBS:
        with pytest.raises(TypeError) as e:
            make(lib)
        messages.append(str(e.value))
    assert messages[0] == messages[1]


def test_parameter_and_placeholders_still_build(device):
    p = tandem.nn.Parameter(tandem.ones(2, device=device))
    assert p.requires_grad and type(p) is tandem.nn.Parameter and p.device.type == device.split(":")[0]
    assert not tandem.nn.Parameter(tandem.ones(1), requires_grad=False).requires_grad
    u = tandem.nn.UninitializedParameter(False, device=device, dtype=tandem.float64)
    assert (u.requires_grad, u.dtype, str(u.device)) == (False, tandem.float64, device)
    b = tandem.nn.UninitializedBuffer(device=device)
    assert repr(b) == repr(torch.nn.UninitializedBuffer()) and not b.requires_grad


# performer-pytorch's reversible layers (and other rng-replaying code) read torch.cuda._initialized before saving
# the CUDA generators' states; tandem.cuda had only is_initialized().
def test_cuda_initialized_flag():
    assert type(tandem.cuda._initialized) is type(torch.cuda._initialized) is bool
    assert tandem.cuda._initialized == tandem.cuda.is_initialized() == tandem.cuda.is_available()
    assert torch.cuda._initialized == torch.cuda.is_initialized()
    with pytest.raises(AttributeError, match="^module 'tandem.cuda' has no attribute '_not_there'$"):
        tandem.cuda._not_there  # noqa: B018


# captum's DeepLift under nn.DataParallel keeps each activation's input on the module in a forward hook and reads
# it back in a gradient hook. tandem ran every chunk through the one module object, so the last chunk's
# input (on another device) replaced the others' before backward: a device mismatch, or a missing attribute after
# the first backward hook deleted it. Each device now runs its own replica, as PyTorch's.
def _hooked_net(lib, device):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1)).double()
    if lib is torch:
        net.load_state_dict({k: torch.from_numpy(v.cpu().numpy()) for k, v in _hooked_net.state.items()})
    else:
        _hooked_net.state = net.state_dict()
    net = net.to(device)

    def keep_input(module, inputs, output):
        module.seen = inputs[0].detach()
        output.register_hook(lambda g: g * (module.seen > 0) * module.seen)

    net[1].register_forward_hook(keep_input)
    return net


@pytest.mark.skipif(tandem.cuda.device_count() < 2, reason="needs two (emulated) cuda devices")
def test_data_parallel_runs_a_replica_per_device():
    x = [[1.0, -2.0, 0.5], [0.3, 0.1, -1.0], [-0.7, 2.0, 1.0], [1.5, 0.2, 0.2]]
    net = _hooked_net(tandem, "cuda:0")
    parallel = tandem.nn.DataParallel(net, device_ids=[0, 1])
    out = parallel(tandem.tensor(x, dtype=tandem.float64, device="cuda:0"))
    out.sum().backward()
    ref_net = _hooked_net(torch, "cpu")
    ref = ref_net(torch.tensor(x, dtype=torch.float64))
    ref.sum().backward()
    assert out.flatten().tolist() == pytest.approx(ref.flatten().tolist(), rel=1e-12)
    for p, q in zip(net.parameters(), ref_net.parameters()):
        assert str(p.grad.device) == "cuda:0"
        assert p.grad.flatten().tolist() == pytest.approx(q.grad.flatten().tolist(), rel=1e-12)
    assert str(net[1].seen.device) == "cuda:0"  # the chunk on cuda:1 wrote into its replica, not the module


@pytest.mark.skipif(tandem.cuda.device_count() < 2, reason="needs two (emulated) cuda devices")
def test_data_parallel_keeps_batch_norm_statistics_of_the_first_device():
    bn = tandem.nn.BatchNorm1d(2).to("cuda:0")
    tandem.nn.DataParallel(bn, device_ids=[0, 1])(tandem.tensor([[1.0, 2.0], [3.0, 6.0], [10.0, 10.0],
                                                                  [20.0, 30.0]], device="cuda:0"))
    ref = torch.nn.BatchNorm1d(2)
    ref(torch.tensor([[1.0, 2.0], [3.0, 6.0]]))  # PyTorch keeps what replica 0 (the first chunk) saw
    assert bn.running_mean.tolist() == pytest.approx(ref.running_mean.tolist())
    assert bn.running_var.tolist() == pytest.approx(ref.running_var.tolist())
    assert int(bn.num_batches_tracked) == 1


# skorch's to_tensor test builds its expected empty sparse matrix with torch.sparse_coo_tensor(size=(5, 3)),
# PyTorch's size-only form; tandem's function required indices and values.
def _coo_size_form_cases(lib, device):
    f = lib.sparse_coo_tensor
    return [lambda: f(size=(5, 3), device=device), lambda: f((5, 3), device=device),
            lambda: f([2, 3, 4], dtype=lib.float64, device=device), lambda: f(size=(2,), requires_grad=True),
            lambda: f(lib.Size([4, 1])), lambda: f(size=(2, 2), dtype=lib.int32), lambda: f()]


def _coo_outcome(make):
    try:
        t = make()
    except TypeError as e:
        return "TypeError", str(e).split("\n")[0]
    return (tuple(t.shape), str(t.dtype).split(".")[1], str(t.layout).split(".")[1], t._indices().shape[0],
            str(t._indices().dtype).split(".")[1], t._values().shape[0], t.requires_grad, t.is_coalesced(),
            t.sparse_dim(), t.dense_dim(), t.to_dense().sum().item())


@pytest.mark.filterwarnings("ignore:Sparse invariant checks")
def test_sparse_coo_tensor_size_form(device):
    ours = [_coo_outcome(make) for make in _coo_size_form_cases(tandem, device)]
    theirs = [_coo_outcome(make) for make in _coo_size_form_cases(torch, "cpu")]
    assert ours == theirs
    assert str(tandem.sparse_coo_tensor(size=(5, 3), device=device).device) == device


# safetensors' safe_open(framework="pt") maps the file with torch.UntypedStorage.from_file (skorch's
# LoadInitState with use_safetensors); tandem's UntypedStorage had no from_file.
def test_untyped_storage_from_file(tmp_path):
    path = tmp_path / "bytes.bin"
    path.write_bytes(bytes(range(10)))
    got = []
    for lib in LIBS:
        private = lib.UntypedStorage.from_file(str(path), False, 8)
        private[0] = 99  # copy-on-write: the file keeps its bytes
        created = lib.UntypedStorage.from_file(str(tmp_path / f"new_{lib.__name__}.bin"), True, 16)
        created[1] = 7
        got.append((private.nbytes(), private.tolist(), path.read_bytes()[0], created.nbytes(),
                    (tmp_path / f"new_{lib.__name__}.bin").read_bytes()[:2], lib.UntypedStorage.from_file(
                        str(path), False).nbytes(), str(private.device)))
    assert got[0] == got[1]
    for nbytes, missing in ((100, False), (4, True)):
        messages = []
        for lib in LIBS:
            with pytest.raises(RuntimeError) as e:
                lib.UntypedStorage.from_file(str(path) + (".missing" if missing else ""), False, nbytes)
            messages.append(str(e.value))
        assert messages[0] == messages[1]


def test_first_gradient_under_create_graph_is_a_copy_laid_out_as_the_leaf():
    """backward(create_graph=True) stores a leaf's first gradient as PyTorch's AccumulateGrad does: a differentiable
    copy (CopyBackwards) with the leaf's strides, not the incoming gradient (a Linear weight's is a transposed
    view), so pytorch-optimizer's AdamP/SGDP `grad.view(1, -1)` and Adahessian's `grad.detach_()` work."""
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(2, 4)
        m(lib.randn(3, 2)).pow(2).sum().backward(create_graph=True)
        g = m.weight.grad
        return (g.stride(), g.is_contiguous(), g._base is None, g.requires_grad, type(g.grad_fn).__name__,
                g.view(1, -1).shape, g.detach().tolist())

    got, want = run(tandem), run(torch)
    assert got[:6] == want[:6]
    np.testing.assert_allclose(got[6], want[6], rtol=1e-6)


_CREATE_GRAPH_WARNINGS = """
import warnings
import {lib} as lib
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    x = lib.ones(2, requires_grad=True)
    lib.autograd.grad((x * x).sum(), x, create_graph=True)
    print(len(caught))
    (x * x).sum().backward(create_graph=True)
    (x * x).sum().backward(create_graph=True)
    lib.autograd.backward([(x * x).sum()], create_graph=True, inputs=[x])
    print(len(caught), caught[-1].category.__name__)
    print(str(caught[-1].message).split(" (Triggered internally")[0])
"""


def test_backward_with_create_graph_warns_once_per_process():
    """PyTorch warns once per process that backward(create_graph=True) makes a reference cycle (optimizer suites
    such as pytorch-optimizer's filter it by its text); autograd.grad does not warn."""
    import os
    import subprocess
    import sys

    def run(lib):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        return subprocess.run([sys.executable, "-c", _CREATE_GRAPH_WARNINGS.format(lib=lib)], env=env, check=True,
                              capture_output=True, text=True).stdout.splitlines()

    ours = run("tandem")
    assert ours == run("torch")
    assert ours[:2] == ["0", "1 UserWarning"]
    assert ours[2].startswith("Using backward() with create_graph=True will create a reference cycle between the "
                              "parameter and its gradient which can cause a memory leak.")
