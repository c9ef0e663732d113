"""What the eighth sweep of real repositories run unchanged on tandem found (docs/compat.md, "Upstream
repositories", "Eighth sweep"): each test is our own smallest form of one failure, checked against PyTorch."""
import itertools

import pytest
import torch

import tandem

LIBS = (tandem, torch)
_NAMESPACES = itertools.count()


def _on(lib, device):
    return device if lib is tandem else "cpu"


# torch-harmonics registers its attention and DISCO ops' autocast behaviour with
# torch.library.impl("ns::op", "AutocastCUDA") (and "AutocastCPU"): PyTorch's impl takes a dispatch key's name where a
# device type is expected. tandem took every `types` entry for a device string and raised at import.
def _autocast_kernel_calls(lib):
    ns = f"s8ac{next(_NAMESPACES)}_{lib.__name__}"
    library = lib.library.Library(ns, "DEF")
    library.define("mm(Tensor a, Tensor b) -> Tensor")
    seen = []

    @lib.library.impl(f"{ns}::mm", "cpu")
    def _plain(a, b):
        seen.append(("plain", str(a.dtype).split(".")[1]))
        return a @ b

    @lib.library.impl(f"{ns}::mm", "AutocastCPU")
    def _autocast(a, b):
        dtype = lib.get_autocast_dtype("cpu")
        seen.append(("autocast", str(a.dtype).split(".")[1], str(dtype).split(".")[1]))
        with lib.autocast("cpu", enabled=False):
            return getattr(lib.ops, ns).mm(a.to(dtype), b.to(dtype))

    a = lib.ones(2, 2)
    out = [getattr(lib.ops, ns).mm(a, a).dtype]
    with lib.autocast("cpu", dtype=lib.bfloat16):
        out.append(getattr(lib.ops, ns).mm(a, a).dtype)
        with lib.autocast("cpu", enabled=False):
            out.append(getattr(lib.ops, ns).mm(a, a).dtype)
    lib.library.impl(f"{ns}::mm", "CPU", lambda a, b: a + b)  # a dispatch key's name replaces the "cpu" kernel
    result = getattr(lib.ops, ns).mm(a, a)
    return [str(d).split(".")[1] for d in out], seen, result.tolist(), library


def test_library_impl_takes_dispatch_key_names_and_runs_autocast_kernels():
    ours, theirs = _autocast_kernel_calls(tandem), _autocast_kernel_calls(torch)
    assert ours[:3] == theirs[:3]
    assert ours[0] == ["float32", "bfloat16", "float32"]
    assert ours[1][1] == ("autocast", "float32", "bfloat16")


@pytest.mark.filterwarnings("ignore:User provided device_type of 'cuda'")
def test_autocast_kernel_follows_the_inputs_device(device):
    """An AutocastCUDA kernel runs for cuda inputs under cuda autocast only; cpu autocast leaves them alone."""
    ns = f"s8acd{next(_NAMESPACES)}"
    library = tandem.library.Library(ns, "DEF")
    library.define("twice(Tensor a) -> Tensor")
    seen = []
    tandem.library.impl(f"{ns}::twice", "default", lambda a: a * 2)
    tandem.library.impl(f"{ns}::twice", "AutocastCUDA", lambda a: seen.append("cuda") or a.half() * 2)
    a = tandem.ones(2, device=device)
    with tandem.autocast("cpu", dtype=tandem.bfloat16):
        assert getattr(tandem.ops, ns).twice(a).dtype == tandem.float32
    with tandem.autocast("cuda", dtype=tandem.float16):
        out = getattr(tandem.ops, ns).twice(a)
    expect_cuda = device.startswith("cuda")
    assert seen == (["cuda"] if expect_cuda else [])
    assert out.dtype == (tandem.float16 if expect_cuda else tandem.float32)
    assert out.tolist() == [2.0, 2.0] and out.device.type == device.split(":")[0]
    del library


def test_library_impl_refuses_unknown_key_names_as_pytorch():
    for lib in LIBS:
        ns = f"s8bad{next(_NAMESPACES)}_{lib.__name__}"
        library = lib.library.Library(ns, "DEF")
        library.define("f(Tensor a) -> Tensor")
        with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, .*device type at start of device string: "
                                               "Foo"):
            lib.library.impl(f"{ns}::f", "Foo", lambda a: a)
        with pytest.raises(RuntimeError, match="could not parse dispatch key: Foo"):
            library.impl("f", lambda a: a, "Foo")
        library.impl("f", lambda a: a + 1, "AutocastCUDA")  # the older form takes the key too
        del library


# sbi imports `from torch.optim.adamw import AdamW` (its VI optimizers): the module PyTorch defines the class in.
def test_optim_adamw_module():
    got = []
    for lib in LIBS:
        module = __import__(f"{lib.__name__}.optim.adamw", fromlist=["AdamW"])
        p = lib.tensor([1.0, -2.0], requires_grad=True)
        opt = module.AdamW([p], lr=0.1)
        p.sum().backward()
        opt.step()
        got.append((module.AdamW is lib.optim.AdamW, module.__all__[0], module.AdamW.__module__.split(".", 1)[1],
                    issubclass(module.AdamW, lib.optim.Optimizer), opt.defaults["weight_decay"], p.tolist()))
    assert got[0] == got[1]


# pytorch-metric-learning's UniformHistogramMiner test: torch.histc(d, bins=n, min=torch.min(d), max=torch.max(d)).
# PyTorch's parser reads a 0-dim tensor that does not require grad as a Scalar; tandem's histc took numbers only.
def _histc_calls(lib, device):
    x = lib.tensor([0.1, 0.4, 0.45, 0.8, 1.0, 0.05], device=_on(lib, device))
    out = [lib.histc(x, bins=4, min=lib.min(x), max=lib.max(x)), x.histc(4, x.min(), x.max()),
           lib.histc(x, 3, lib.tensor(0.0, device=_on(lib, device)), 1), x.histc(bins=2, max=lib.tensor(1.0)),
           lib.histc(x.double(), 2, lib.tensor(0, device=_on(lib, device)), lib.tensor(True))]
    return [(t.tolist(), str(t.dtype).split(".")[1], t.device.type) for t in out]


def test_histc_takes_zero_dim_tensors_for_min_and_max(device):
    ours, theirs = _histc_calls(tandem, device), _histc_calls(torch, "cpu")
    assert [o[:2] for o in ours] == [t[:2] for t in theirs]
    assert {o[2] for o in ours} == {device.split(":")[0]}


@pytest.mark.parametrize("call, message", [
    (lambda lib, x: lib.histc(x, 4, 0, lib.tensor([1.0])), "argument 'max' (position 4) must be Number, not Tensor"),
    (lambda lib, x: lib.histc(x, 4, 0, lib.tensor(1.0, requires_grad=True)),
     "argument 'max' (position 4) must be Number, not Tensor"),
    (lambda lib, x: x.histc(4, 0, lib.tensor([1.0])), "argument 'max' (position 3) must be Number, not Tensor"),
    (lambda lib, x: x.histc(4, min=lib.ones(2)), "argument 'min' must be Number, not Tensor"),
    (lambda lib, x: lib.histc(x, 4, 0, max=lib.ones(1, 1)), "argument 'max' must be Number, not Tensor")])
def test_histc_refuses_other_tensors_as_pytorch(call, message):
    for lib in LIBS:
        with pytest.raises(TypeError) as info:
            call(lib, lib.rand(5))
        assert str(info.value) == f"histc(): {message}"


# sbi's LRU embedding net imports torch._higher_order_ops.associative_scan (generic mode, a pytree of (lambda, u)
# pairs, dim=1, reverse for the bidirectional pass); tandem had no _higher_order_ops.
def _scans(lib, device):
    import importlib

    scan = importlib.import_module(f"{lib.__name__}._higher_order_ops.associative_scan").associative_scan

    def linear_recurrence(q, w):
        (la, ua), (lb, ub) = q, w
        return la * lb, lb * ua + ub

    kw = dict(dtype=lib.float64, device=_on(lib, device))
    lam = lib.linspace(0.1, 0.9, 22, **kw).reshape(2, 11)
    u = lib.linspace(-1, 1, 22, **kw).reshape(2, 11).requires_grad_()
    x = lib.arange(1.0, 8.0, **kw).reshape(7, 1)
    outs = [scan(lambda a, b: a + b, x, 0), scan(lambda a, b: a * b, x, -2, reverse=True, combine_mode="generic"),
            *scan(linear_recurrence, (lam, u), dim=1, combine_mode="generic"),
            scan(linear_recurrence, (lam, u), dim=1, combine_mode="generic", reverse=True)[1],
            scan(lambda a, b: a + b, lib.ones(3, 0, **kw), 1)]
    (outs[3] * outs[4]).sum().backward()
    return [(o.tolist(), tuple(o.shape), o.device.type) for o in outs] + [u.grad.tolist()]


def test_associative_scan_as_pytorch(device):
    ours, theirs = _scans(tandem, device), _scans(torch, "cpu")
    assert [o[1] for o in ours[:-1]] == [t[1] for t in theirs[:-1]]
    for o, t in zip(ours[:-1], theirs[:-1]):  # the same combination order; products may differ in the last ulp
        assert _flat(o[0]) == pytest.approx(_flat(t[0]), rel=1e-13, abs=1e-300)
    assert {o[2] for o in ours[:-1]} == {device.split(":")[0]}
    assert _flat(ours[-1]) == pytest.approx(_flat(theirs[-1]), rel=1e-12)


def _flat(values):
    return [v for row in values for v in (_flat(row) if isinstance(row, list) else [row])]


@pytest.mark.parametrize("args, error, message", [
    ((lambda a, b: a + b, ["x"], 0), AttributeError, "'str' object has no attribute 'ndim'"),
    ((lambda a, b: a + b, [None, "x"], 0), ValueError, "xs leaves must be a Tensor"),
    ((lambda a, b: a + b, None, 0.5), ValueError, "Dim must be an int, but got <class 'float'>"),
    ((lambda a, b: a + b, None, 0, 1), RuntimeError, "Reverse must be a bool, but got <class 'int'>"),
    ((lambda a, b: a + b, None, 0, False, "fast"), ValueError,
     "Combine_mode must either 'pointwise' or 'generic', but got fast"),
    ((lambda a, b: a + b, [], 0), IndexError, "list index out of range"),
    ((None, None, 0), ValueError, "Combine_fn must be a callable, but got None"),
    ((lambda a, b: a + b, None, 2), IndexError, r"Dimension out of range \(expected to be in range of \[-2, 1\], "
                                                r"but got 2\)")])
def test_associative_scan_refuses_as_pytorch(args, error, message):
    import importlib

    for lib in LIBS:
        scan = importlib.import_module(f"{lib.__name__}._higher_order_ops.associative_scan").associative_scan
        call = list(args)
        ones = lib.ones(2, 3)
        call[1] = ones if call[1] is None else [ones if v is None else v for v in call[1]]
        with pytest.raises(error, match=message):
            scan(*call)


# sbi's torchutils tests build torch.device("mps") (and "mps:0") as parametrize values at collection; PyTorch parses
# every device type it knows (mps, xpu, hpu, ...) and fails only when memory is asked for there. Since session 47
# tandem's device objects take those types too (src/core/device.cpp, parse_any_device; tests/python/test_devices.py).
def test_device_objects_of_other_types():
    got = []
    for lib in (torch, tandem):
        d = lib.device("mps")
        got.append((d.type, d.index, str(lib.device("mps:0")), str(lib.device("xpu", 1))))
    assert got[0] == got[1] == ("mps", None, "mps:0", "xpu:1")
