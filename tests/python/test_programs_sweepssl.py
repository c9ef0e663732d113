"""Behaviours found by running public self-supervised, metric-learning, distillation, pruning, adversarial,
interpretability and meta-learning PyTorch programs on tandem (the 'sweepssl' program sweep), each checked
against PyTorch (the oracle) on every device."""
import os
import subprocess
import sys
import warnings

import pytest
import torch

import tandem
from oracle import from_torch, to_torch
from process_helpers import run_process_tree


def _dtype_name(dtype):
    return str(dtype).split(".")[1]


# ---- binary_cross_entropy takes one dtype; the logits form has the target's (siamese_network in pytorch/examples
# ---- with float64 images: BCELoss of a float64 output and a float32 target raises in PyTorch) ----------------------
@pytest.mark.parametrize("input_dtype,target_dtype", [("float64", "float32"), ("float32", "float64"),
                                                      ("float32", "int64"), ("float16", "float32")])
def test_binary_cross_entropy_refuses_a_target_of_another_dtype(device, input_dtype, target_dtype):
    x = tandem.tensor([0.2, 0.7], device=device).to(getattr(tandem, input_dtype))
    t = tandem.tensor([0, 1], device=device).to(getattr(tandem, target_dtype))
    ref_x = torch.tensor([0.2, 0.7]).to(getattr(torch, input_dtype))
    ref_t = torch.tensor([0, 1]).to(getattr(torch, target_dtype))
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.binary_cross_entropy(ref_x, ref_t)
    with pytest.raises(RuntimeError) as got:
        tandem.nn.BCELoss()(x, t)
    assert str(got.value).splitlines()[0] == str(want.value)
    assert str(got.value).splitlines()[1].startswith("hint:")


@pytest.mark.parametrize("weight_dtype", ["float64", "int64"])
def test_binary_cross_entropy_weight_keeps_the_input_dtype(device, weight_dtype):
    x = torch.tensor([0.2, 0.7, 0.4], requires_grad=True)
    t = torch.tensor([0.0, 1.0, 1.0])
    w = torch.tensor([1, 2, 3]).to(getattr(torch, weight_dtype))
    tx = from_torch(x.detach(), device).requires_grad_()
    for reduction in ["none", "mean", "sum"]:
        want = torch.nn.functional.binary_cross_entropy(x, t, weight=w, reduction=reduction)
        got = tandem.nn.functional.binary_cross_entropy(tx, from_torch(t, device), weight=from_torch(w, device),
                                                        reduction=reduction)
        assert got.dtype == tandem.float32 and got.device == tandem.device(device)
        torch.testing.assert_close(to_torch(got.detach()), want.detach())
    want.backward()
    got.backward()
    assert tx.grad.dtype == tandem.float32
    torch.testing.assert_close(to_torch(tx.grad), x.grad)


@pytest.mark.parametrize("input_dtype,target_dtype", [("float64", "float32"), ("float32", "float64"),
                                                      ("float16", "float32"), ("float32", "float32")])
@pytest.mark.parametrize("extra", [{}, {"weight": "float64"}, {"pos_weight": "float64"}])
def test_binary_cross_entropy_with_logits_has_the_targets_dtype(device, input_dtype, target_dtype, extra):
    x = torch.tensor([[0.3, -1.2], [2.0, 0.1]]).to(getattr(torch, input_dtype))
    t = torch.tensor([[0.0, 1.0], [1.0, 0.5]]).to(getattr(torch, target_dtype))
    kwargs = {k: torch.tensor([2.0, 0.5]).to(getattr(torch, v)) for k, v in extra.items()}
    want = torch.nn.functional.binary_cross_entropy_with_logits(x, t, **kwargs)
    got = tandem.nn.BCEWithLogitsLoss(**{k: from_torch(v, device) for k, v in kwargs.items()})(
        from_torch(x, device), from_torch(t, device))
    assert _dtype_name(got.dtype) == _dtype_name(want.dtype) and got.device == tandem.device(device)
    torch.testing.assert_close(to_torch(got), want, rtol=1e-3 if "float16" in (input_dtype,) else 1e-6, atol=1e-6)


def test_binary_cross_entropy_with_logits_refuses_an_integer_target(device):
    with pytest.raises(RuntimeError) as want:
        torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor([0.5, -0.5]), torch.tensor([1, 0]))
    with pytest.raises(RuntimeError) as got:
        tandem.nn.functional.binary_cross_entropy_with_logits(tandem.tensor([0.5, -0.5], device=device),
                                                              tandem.tensor([1, 0], device=device))
    assert str(got.value).splitlines()[0] == str(want.value)
    assert str(got.value).splitlines()[1].startswith("hint:")


@pytest.mark.parametrize("name", ["huber_loss", "soft_margin_loss"])
@pytest.mark.parametrize("input_dtype,target_dtype", [("float32", "float64"), ("float64", "float32"),
                                                      ("float32", "int64")])
def test_losses_computed_into_the_inputs_dtype(device, name, input_dtype, target_dtype):
    x = torch.tensor([0.2, -1.7, 3.0], requires_grad=True)
    t = torch.tensor([1, -1, 1])
    ref_x = x.detach().to(getattr(torch, input_dtype)).requires_grad_()
    ref_t = t.to(getattr(torch, target_dtype))
    want = getattr(torch.nn.functional, name)(ref_x, ref_t)
    tx = from_torch(ref_x.detach(), device).requires_grad_()
    got = getattr(tandem.nn.functional, name)(tx, from_torch(ref_t, device))
    assert _dtype_name(got.dtype) == _dtype_name(want.dtype) == input_dtype
    torch.testing.assert_close(to_torch(got.detach()), want.detach())
    got.backward()
    assert _dtype_name(tx.grad.dtype) == input_dtype
    if name == "soft_margin_loss":  # PyTorch's huber_loss backward refuses a target of another dtype
        want.backward()
        torch.testing.assert_close(to_torch(tx.grad), ref_x.grad)


# ---- a negative device index leaves the current CUDA device (SimCLR: `with torch.cuda.device(args.gpu_index)` with
# ---- gpu_index=-1 when it runs on the CPU) --------------------------------------------------------------------------
@pytest.mark.parametrize("index", [-1, -3])
def test_cuda_device_with_a_negative_index_changes_nothing(index):
    before = tandem.cuda.current_device() if tandem.cuda.is_available() else None
    with tandem.cuda.device(index) as d:
        assert d.idx == index == torch.cuda.device(index).idx
        if before is not None:
            assert tandem.cuda.current_device() == before
    tandem.cuda.set_device(index)  # PyTorch's set_device(-1) is a no-op too
    if before is not None:
        assert tandem.cuda.current_device() == before


def test_cuda_device_of_a_cpu_tensor_changes_nothing():
    assert tandem.cuda.device_of(tandem.zeros(1)).idx == torch.cuda.device_of(torch.zeros(1)).idx == -1
    with tandem.cuda.device_of(tandem.zeros(1)):
        pass


@pytest.mark.skipif(not tandem.cuda.is_available() or tandem.cuda.device_count() < 2, reason="needs 2 cuda devices")
def test_cuda_device_of_a_cuda_tensor_makes_its_device_current():
    before = tandem.cuda.current_device()
    other = 1 - before
    with tandem.cuda.device_of(tandem.zeros(1, device=f"cuda:{other}")) as d:
        assert d.idx == other and tandem.cuda.current_device() == other
        assert tandem.zeros(1, device="cuda").device == tandem.device("cuda", other)
    assert tandem.cuda.current_device() == before


# ---- pin_memory=True without an accelerator: the loader keeps the flag, each new iterator warns (SimCLR) ----------
_PIN_MEMORY_PROGRAM = """
import sys, warnings
import importlib
lib = importlib.import_module(sys.argv[1])
if lib.cuda.is_available():
    print("an accelerator is present")
    raise SystemExit
with warnings.catch_warnings(record=True) as made:
    warnings.simplefilter("always")
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.arange(4.0)), batch_size=2, pin_memory=True)
print(len(made), loader.pin_memory)
for epoch in range(2):
    with warnings.catch_warnings(record=True) as iterated:
        warnings.simplefilter("always")
        batches = [b[0].tolist() for b in loader]
    print(batches, [str(w.message) for w in iterated])
"""


def test_dataloader_pin_memory_warns_when_iterated_not_when_made():
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    runs = [subprocess.run([sys.executable, "-c", _PIN_MEMORY_PROGRAM, lib], env=env, capture_output=True, text=True,
                           timeout=120) for lib in ("torch", "tandem")]
    want, got = (run.stdout.splitlines() for run in runs)
    if "an accelerator is present" in want + got:
        pytest.skip("an accelerator is present")
    message = ("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory won't "
               "be used.")
    assert got == want == ["0 True"] + [f"[[0.0, 1.0], [2.0, 3.0]] [{message!r}]"] * 2


# ---- a nested module's repr keeps blank lines empty (MAML-Pytorch's Learner.extra_repr ends in a newline) ---------
def _nested_repr(lib):
    class Inner(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(1, 1)

        def extra_repr(self):
            return "conv2d:(ch_in:1)\nrelu:(True,)\n"

    class Outer(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = Inner()
            self.heads = lib.nn.ModuleList([Inner(), Inner()])

    return repr(Outer()), repr(Inner())


def test_nested_module_repr_keeps_blank_lines_empty():
    assert _nested_repr(tandem) == _nested_repr(torch)
    assert "\n\n    (lin)" in _nested_repr(tandem)[0]


# ---- torch.nn._reduction, which custom losses import (torchbnn's BKLLoss) ------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_reduction_get_enum_matches_pytorch(reduction):
    assert tandem.nn._reduction.get_enum(reduction) == torch.nn._reduction.get_enum(reduction)


def test_reduction_get_enum_errors_and_warnings_match_pytorch():
    for lib in (torch, tandem):
        with pytest.raises(ValueError, match="^max is not a valid value for reduction$"):
            lib.nn._reduction.get_enum("max")
        with pytest.warns(UserWarning, match="reduction='elementwise_mean' is deprecated") as got:
            assert lib.nn._reduction.get_enum("elementwise_mean") == 1
        assert got[0].filename == __file__


@pytest.mark.parametrize("size_average", [None, True, False])
@pytest.mark.parametrize("reduce", [None, True, False])
def test_reduction_legacy_pair_matches_pytorch(size_average, reduce):
    from tandem.nn import _reduction
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        name = _reduction.legacy_get_string(size_average, reduce)
        number = _reduction.legacy_get_enum(size_average, reduce, emit_warning=False)
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        assert name == torch.nn._reduction.legacy_get_string(size_average, reduce)
        assert number == torch.nn._reduction.legacy_get_enum(size_average, reduce, emit_warning=False)
    assert [str(w.message) for w in got] == [str(w.message) for w in want] == [
        f"size_average and reduce args will be deprecated, please use reduction='{name}' instead."]
    assert got[0].filename == __file__


# ---- torch.cuda.random, the module path torchattacks seeds through (torch.cuda.random.manual_seed) ---------------
def test_cuda_random_module_has_pytorchs_names():
    import tandem.cuda.random as cuda_random
    assert cuda_random.__all__ == torch.cuda.random.__all__
    for name in cuda_random.__all__:
        assert getattr(cuda_random, name) is getattr(tandem.cuda, name)
    cuda_random.manual_seed(7)  # no device: a no-op, as PyTorch's lazy seeding
    cuda_random.manual_seed_all(7)


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a CUDA device (real or TANDEM_EMULATE_CUDA)")
def test_cuda_random_manual_seed_repeats_the_draws():
    tandem.cuda.random.manual_seed(11)
    state = tandem.cuda.random.get_rng_state()
    first = tandem.rand(5, device="cuda")
    tandem.cuda.random.manual_seed(11)
    assert tandem.equal(tandem.rand(5, device="cuda"), first)
    tandem.cuda.random.set_rng_state(state)
    assert tandem.equal(tandem.rand(5, device="cuda"), first)
    assert tandem.cuda.random.initial_seed() == 11


# ---- interpolate takes one-element integer tensors as sizes (torchattacks' DIFGSM: size=[rnd, rnd] with
# ---- rnd = torch.randint(low, high, size=(1,), dtype=torch.int32)) ------------------------------------------------
@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
@pytest.mark.parametrize("form", ["1-d int32", "0-d int64", "whole", "numpy"])
def test_interpolate_takes_integer_tensor_sizes(device, mode, form):
    import numpy as np

    def size(lib):
        return {"1-d int32": [lib.tensor([3], dtype=lib.int32), lib.tensor([5])], "0-d int64": [lib.tensor(3), 5],
                "whole": lib.tensor(3), "numpy": [np.int64(3), np.int32(5)]}[form]

    x = torch.arange(32.0).view(1, 2, 4, 4)
    want = torch.nn.functional.interpolate(x, size=size(torch), mode=mode)
    got = tandem.nn.functional.interpolate(from_torch(x, device), size=size(tandem), mode=mode)
    assert got.device == tandem.device(device) and tuple(got.shape) == tuple(want.shape)
    torch.testing.assert_close(to_torch(got), want)


@pytest.mark.parametrize("bad", ["float tensor", "two-element tensor", "bool tensor", "bool"])
def test_interpolate_refuses_other_sizes_with_a_type_error(bad):
    def size(lib):
        return {"float tensor": [lib.tensor(2.0), 3], "two-element tensor": [lib.tensor([2, 3]), 2],
                "bool tensor": [lib.tensor(True), 2], "bool": [True, 2]}[bad]

    want_type = RuntimeError if bad == "bool tensor" else TypeError  # PyTorch's scalar check fails late there
    with pytest.raises(want_type):
        torch.nn.functional.interpolate(torch.ones(1, 1, 4, 4), size=size(torch))
    with pytest.raises(TypeError, match="expected size to be one of int or Tuple"):
        tandem.nn.functional.interpolate(tandem.ones(1, 1, 4, 4), size=size(tandem))


# ---- var/std of identical values are exactly 0, float32 computed in float64 as PyTorch's CPU (blitz's mfvi test:
# ---- the std over a frozen Bayesian net's repeated samples must be 0) ---------------------------------------------
@pytest.mark.parametrize("fn", ["std", "var"])
@pytest.mark.parametrize("n", [2, 5, 7, 33])
def test_std_of_identical_rows_is_exactly_zero(device, fn, n):
    row = torch.tensor([[0.1234567, -3.3, 7.77, 1e-3, 0.3]])
    want = getattr(torch.cat([row] * n), fn)(dim=0)
    got = getattr(tandem.cat([from_torch(row, device)] * n), fn)(dim=0)
    assert got.dtype == tandem.float32 and got.device == tandem.device(device)
    assert to_torch(got).tolist() == want.tolist() == [0.0] * 5
    assert tandem.var_mean(tandem.cat([from_torch(row, device)] * n), dim=0)[0].tolist() == [0.0] * 5


def test_float32_var_and_std_agree_with_pytorch_to_the_bit(device):
    import numpy as np
    rng = np.random.default_rng(3)
    same = total = 0
    for shape, dim in [((37, 53), 0), ((37, 53), 1), ((8, 9, 10), (0, 2)), ((3, 1000), 1)]:
        for _ in range(5):
            a = (rng.standard_normal(shape) * rng.uniform(0.01, 100) + rng.uniform(-5, 5)).astype(np.float32)
            for fn in ["var", "std"]:
                want = getattr(torch.from_numpy(a), fn)(dim=dim)
                got = getattr(tandem.tensor(a, device=device), fn)(dim=dim)
                torch.testing.assert_close(to_torch(got), want, rtol=3e-7, atol=0)
                same += int((to_torch(got) == want).sum())
                total += want.numel()
    assert same >= 0.9 * total  # the float32 two-pass form agreed on about half


# ---- the norm layers' class tree and module paths as PyTorch's: an InstanceNorm is a _NormBase, not a _BatchNorm
# ---- (Torch-Pruning dispatches on nn.modules.batchnorm._BatchNorm and ...instancenorm._InstanceNorm) -------------
def _norm_classes(lib):
    batchnorm = __import__(f"{lib.__name__}.nn.modules.batchnorm", fromlist=["_"])
    instancenorm = __import__(f"{lib.__name__}.nn.modules.instancenorm", fromlist=["_"])
    nn = lib.nn
    layers = [nn.BatchNorm1d(3), nn.BatchNorm2d(3), nn.BatchNorm3d(3), nn.SyncBatchNorm(3), nn.LazyBatchNorm2d(),
              nn.InstanceNorm1d(3), nn.InstanceNorm2d(3, track_running_stats=True), nn.LazyInstanceNorm3d()]
    return (sorted(batchnorm.__all__), sorted(instancenorm.__all__),
            [(type(m).__name__, isinstance(m, batchnorm._BatchNorm), isinstance(m, batchnorm._NormBase),
              isinstance(m, instancenorm._InstanceNorm), isinstance(m, batchnorm._LazyNormBase)) for m in layers])


def test_norm_layer_classes_and_module_paths_match_pytorch():
    assert _norm_classes(tandem) == _norm_classes(torch)


def _update_bn_stats(lib):
    model = lib.nn.Sequential(lib.nn.InstanceNorm2d(2, track_running_stats=True), lib.nn.BatchNorm2d(2))
    model[0].running_mean.fill_(5.0)
    model[1].running_mean.fill_(5.0)
    lib.optim.swa_utils.update_bn([lib.arange(64.0).view(2, 2, 4, 4).sin()], model)
    means = [[round(v, 5) for v in norm.running_mean.tolist()] for norm in model]
    return means, model[1].momentum, model[1].num_batches_tracked.item()


def test_swa_update_bn_resets_batch_norms_only():
    # PyTorch's update_bn resets and re-estimates _BatchNorm layers; an InstanceNorm keeps its statistics (its
    # forward in train mode still moves them by its momentum)
    assert _update_bn_stats(tandem) == _update_bn_stats(torch)


# ---- torch.distributed.nn: differentiable collectives (lightly's BarlowTwinsLoss imports it; 2-rank values and
# ---- gradients: tests/distributed/nn_functional.py under test_distributed.py) --------------------------------------
_DIST_NN_PROGRAM = """
import sys, importlib, socket, warnings
lib = importlib.import_module(sys.argv[1])
dist_nn = importlib.import_module(sys.argv[1] + ".distributed.nn")
with socket.socket() as s:
    s.bind(("localhost", 0))
    port = s.getsockname()[1]
lib.distributed.init_process_group(backend="gloo", init_method=f"tcp://localhost:{port}", world_size=1, rank=0)
x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = dist_nn.all_reduce(x * 2)
    (y * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
    print(y.tolist(), x.grad.tolist(), y.grad_fn.name())
    x.grad = None
    gathered = dist_nn.all_gather(x * 3)
    (gathered[0] ** 2).sum().backward()
    print(type(gathered).__name__, len(gathered), gathered[0].tolist(), x.grad.tolist())
    x.grad = None
    b = dist_nn.broadcast(x + 1, 0)
    b.sum().backward()
    print(b.tolist(), x.grad.tolist())
    x.grad = None
    r = dist_nn.reduce(x * 5, 0)
    r.sum().backward()
    print(r.tolist(), x.grad.tolist())
for w in caught:
    print(w.category.__name__, str(w.message), w.filename == "<string>")
"""


def test_distributed_nn_collectives_match_pytorch_in_one_process():
    if not tandem.distributed.is_available():
        pytest.skip("tandem built without MPI")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    program = _DIST_NN_PROGRAM
    if os.environ.get("TANDEM_SANITIZER"):
        # Open MPI's singleton start forks an orted, which would inherit the preloaded sanitizer runtime (ASan
        # reports Open MPI's own launcher, docs/reliability.md); the program's own process has it loaded already.
        program = "import os; os.environ.pop('LD_PRELOAD', None)\n" + program
    # The orted outlives its parent in a session of its own: run_process_tree never waits on it.
    runs = [run_process_tree([sys.executable, "-c", program, lib], env=env, timeout=120) for lib in ("torch", "tandem")]
    assert runs[1].returncode == 0, runs[1].stderr
    want, got = (run.stdout.replace("torch.", "LIB.").replace("tandem.", "LIB.").splitlines() for run in runs)
    assert got == want
    assert got[0] == "[2.0, 4.0, 6.0] [2.0, 20.0, 200.0] _AllReduceBackward"
    assert got[-1].startswith("FutureWarning LIB.distributed.nn.functional.broadcast is deprecated")


# ---- add/sub with a number as input and alpha= (lightly's W-MSE: torch.sub(input=2, other=x, alpha=2)); a
# ---- boolean alpha only for boolean results ------------------------------------------------------------------------
_ALPHA_CASES = [("sub", {"input": 2, "alpha": 2}, "float32"), ("sub", {"input": 2, "alpha": 3}, "int64"),
                ("add", {"input": 2.5, "alpha": 2}, "int64"), ("add", {"input": 2, "alpha": 2}, "float64"),
                ("add", {"input": True, "alpha": True}, "bool"), ("sub", {"input": 1 + 2j, "alpha": 2}, "float32")]


@pytest.mark.parametrize("name,kwargs,dtype", _ALPHA_CASES)
def test_add_sub_with_a_number_input_and_alpha(device, name, kwargs, dtype):
    values = [True, False] if dtype == "bool" else [1, 2]
    x = torch.tensor(values, dtype=getattr(torch, dtype))
    want = getattr(torch, name)(other=x, **kwargs)
    got = getattr(tandem, name)(other=from_torch(x, device), **kwargs)
    assert got.device == tandem.device(device) and _dtype_name(got.dtype) == _dtype_name(want.dtype)
    assert to_torch(got).tolist() == want.tolist()
    out = tandem.empty(0, dtype=got.dtype, device=device)
    assert getattr(tandem, name)(kwargs["input"], from_torch(x, device), alpha=kwargs["alpha"], out=out) is out
    assert to_torch(out).tolist() == want.tolist()


@pytest.mark.parametrize("call", [lambda lib, t: lib.sub(t, t, alpha=True), lambda lib, t: t.sub(t, alpha=True),
                                  lambda lib, t: t.add_(t, alpha=True), lambda lib, t: lib.add(1, t, alpha=True),
                                  lambda lib, t: lib.sub(2, t.long(), alpha=2.5)])
def test_alpha_checks_match_pytorch(device, call):
    with pytest.raises(RuntimeError) as want:
        call(torch, torch.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError) as got:
        call(tandem, tandem.tensor([1.0, 2.0], device=device))
    assert str(got.value).splitlines()[0] == str(want.value)
    assert str(got.value).splitlines()[1].startswith("hint:")


@pytest.mark.parametrize("mode", ["floor", "trunc"])
@pytest.mark.parametrize("number,values,dtype", [(7, [1.5, -2.0, 4.0], "float32"), (7, [2, -3, 4], "int64"),
                                                 (7.5, [2, -3, 4], "int64"), (-7, [2.0, -3.0, 0.5], "float64")])
def test_div_with_rounding_takes_a_number_as_input(device, mode, number, values, dtype):
    x = torch.tensor(values, dtype=getattr(torch, dtype))
    want = torch.div(number, x, rounding_mode=mode)
    got = tandem.div(number, from_torch(x, device), rounding_mode=mode)
    assert got.device == tandem.device(device) and _dtype_name(got.dtype) == _dtype_name(want.dtype)
    assert to_torch(got).tolist() == want.tolist()
    assert to_torch(tandem.divide(number, from_torch(x, device), rounding_mode=mode)).tolist() == want.tolist()


# ---- torch.futures / torch.Future, torch.utils.hooks, torch.nn.parallel.scatter_gather: what Captum imports -------
def _future_transcript(lib):
    from importlib import import_module
    futures = import_module(f"{lib.__name__}.futures")
    out = []
    f = futures.Future()
    out.append((f.done(), isinstance(f, lib.Future)))
    g = f.then(lambda fut: fut.value() * 2)
    calls = []
    f.add_done_callback(lambda fut: calls.append(fut.value()))
    f.set_result(21)
    out.append((f.done(), f.wait(), f.value(), g.wait(), calls))
    for action in (lambda: f.set_result(3), lambda: futures.Future().set_exception(3)):
        try:
            action()
        except (RuntimeError, AssertionError) as e:
            out.append((type(e).__name__, str(e)))
    h = futures.Future()
    h.set_exception(ValueError("boom"))
    for action in (h.wait, h.value):
        try:
            action()
        except ValueError as e:
            out.append(str(e))
    out.append(h.then(lambda fut: 1).wait())
    m = futures.Future()
    n = m.then(lambda fut: 1 / 0)
    m.set_result(1)
    try:
        n.wait()
    except RuntimeError as e:
        out.append(str(e).splitlines()[0])
    a, b = futures.Future(), futures.Future()
    c = futures.collect_all([a, b])
    a.set_result(1)
    out.append(c.done())
    b.set_result(2)
    out.append([x.value() for x in c.wait()])
    out.append(futures.wait_all([a, b]))
    out.append(futures.__all__)
    return out


def test_futures_match_pytorch():
    assert _future_transcript(tandem) == _future_transcript(torch)


def test_future_completed_from_another_thread_wakes_wait():
    import threading
    f = tandem.futures.Future()
    threading.Timer(0.05, lambda: f.set_result(tandem.ones(2))).start()
    assert f.wait().tolist() == [1.0, 1.0]


def test_utils_hooks_and_scatter_gather_exist_as_in_pytorch(device):
    handle = tandem.nn.Linear(1, 1).register_forward_hook(lambda *a: None)
    assert isinstance(handle, tandem.utils.hooks.RemovableHandle)
    def hook(grad):
        return grad
    assert tandem.utils.hooks.unserializable_hook(hook) is hook and hook.__torch_unserializable__
    from tandem.nn.parallel.scatter_gather import gather, scatter, scatter_kwargs
    if device == "cpu":
        return
    devices = [int(device[-1])]
    x = tandem.arange(6.0).view(3, 2)
    parts = scatter((x, 5), devices)
    assert len(parts) == 1 and parts[0][1] == 5 and parts[0][0].device == tandem.device(device)
    assert scatter_kwargs((x,), {"k": x}, devices)[1][0]["k"].tolist() == x.tolist()
    assert gather([parts[0][0]], devices[0]).tolist() == x.tolist()


def test_jit_fork_returns_a_completed_future():
    future = tandem.jit.fork(lambda a, b: a + b, 1, b=2)
    assert isinstance(future, tandem.Future) and future.done() and future.value() == 3
    assert tandem.jit.wait(future) == 3 == torch.jit.wait(torch.jit.fork(lambda a, b: a + b, 1, b=2))
