"""Behaviours found by running public CV/GAN/GNN PyTorch programs on tandem (the 'sweepcv' program sweep),
each checked against PyTorch (the oracle) on every device."""
import inspect
import json
import subprocess
import sys
import warnings

import pytest
import torch

import tandem
from process_helpers import run_process_tree


def _cuda_available():
    return tandem.cuda.is_available()


# ---- t.type(<a CUDA or CPU legacy type>) moves the tensor (PyTorch-GAN: imgs.type(torch.cuda.FloatTensor)) -----
@pytest.mark.skipif(not _cuda_available(), reason="needs a CUDA device (real or TANDEM_EMULATE_CUDA)")
@pytest.mark.parametrize("target", ["class", "name"])
def test_type_with_a_cuda_type_moves_to_the_current_cuda_device(device, target):
    x = tandem.tensor([1.5, -2.0], dtype=tandem.float64, device=device)
    cuda_type = tandem.cuda.FloatTensor if target == "class" else "torch.cuda.FloatTensor"
    y = x.type(cuda_type)
    expected = tandem.device("cuda", tandem.cuda.current_device()) if device == "cpu" else x.device
    assert y.device == expected
    assert y.dtype == tandem.float32 and y.tolist() == [1.5, -2.0]
    assert y.type() == "tandem.cuda.FloatTensor"
    assert y.type(cuda_type) is y  # already that dtype and device type: the tensor itself, as PyTorch
    back = y.type(tandem.LongTensor if target == "class" else "torch.LongTensor")
    assert back.device.type == "cpu" and back.dtype == tandem.int64 and back.tolist() == [1, -2]
    # A bare dtype keeps the device, as PyTorch's t.type(torch.float64).
    assert y.type(tandem.float64).device == y.device


def test_type_with_a_cpu_type_matches_pytorch(device):
    x = tandem.tensor([1.0, 2.5], device=device)
    ref = torch.tensor([1.0, 2.5])
    for arg, ref_arg in [(tandem.DoubleTensor, torch.DoubleTensor), ("torch.IntTensor", "torch.IntTensor"),
                         (tandem.float16, torch.float16)]:
        got, want = x.type(arg), ref.type(ref_arg)
        assert got.tolist() == want.tolist() and str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    assert x.type(tandem.DoubleTensor).device.type == "cpu"
    for bad in ["cuda.FloatTensor", "FloatTensor"]:
        with pytest.raises(ValueError, match=f"invalid type: '{bad}'"):
            x.type(bad)
        with pytest.raises(ValueError, match=f"invalid type: '{bad}'"):
            ref.type(bad)


# ---- softmax without dim warns as PyTorch (PyTorch-GAN acgan: nn.Softmax()) ------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (2, 3, 4, 5)])
def test_implicit_softmax_dim_warns_and_picks_pytorchs_dim(device, name, shape):
    x = torch.randn(shape, dtype=torch.float64)
    tx = tandem.tensor(x.tolist(), dtype=tandem.float64, device=device)
    message = f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument."
    with pytest.warns(UserWarning, match=message) as want:
        ref = getattr(torch.nn.functional, name)(x)
    with pytest.warns(UserWarning, match=message) as got:
        out = getattr(tandem.nn.functional, name)(tx)
    assert got[0].filename == want[0].filename == __file__  # stacklevel names the caller's line
    assert out.device == tandem.device(device)
    assert torch.allclose(torch.tensor(out.tolist(), dtype=torch.float64), ref)


@pytest.mark.parametrize("module", ["Softmax", "LogSoftmax", "Softmin"])
def test_softmax_modules_without_dim_warn_at_the_callers_line(device, module):
    x = torch.randn(4, 6, dtype=torch.float64)
    tx = tandem.tensor(x.tolist(), dtype=tandem.float64, device=device)
    with pytest.warns(UserWarning, match="Implicit dimension choice") as got:
        out = getattr(tandem.nn, module)()(tx)
    ref = getattr(torch.nn, module)()(x)
    assert got[0].filename == __file__
    assert torch.allclose(torch.tensor(out.tolist(), dtype=torch.float64), ref)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        getattr(tandem.nn, module)(dim=1)(tx)  # an explicit dim is quiet


def test_softmax_keeps_pytorchs_positional_signature(device):
    tx = tandem.tensor([[1.0, 2.0]], device=device)
    assert list(inspect.signature(tandem.nn.functional.softmax).parameters) == \
        list(inspect.signature(torch.nn.functional.softmax).parameters)
    assert tandem.nn.functional.log_softmax(tx, 1, 3, tandem.float64).dtype == tandem.float64


# ---- affine_grid's base grid rounds as PyTorch's (pytorch/tutorials spatial_transformer_tutorial) --------------
def _linspace_agrees(n):
    return torch.equal(torch.linspace(-1, 1, n), torch.tensor(tandem.linspace(-1, 1, n).tolist()))


@pytest.mark.parametrize("size", [(2, 1, 10, 12), (2, 1, 34, 6), (1, 3, 5, 17), (1, 2, 5, 9, 4)])
def test_affine_grid_identity_is_bitwise_pytorchs_and_so_is_grid_samples_gradient(device, size):
    # PyTorch's CPU linspace is vectorised and rounds some middle elements differently from its CUDA formula
    # (which tandem follows): compare only where the two linspaces agree bit for bit.
    if not all(_linspace_agrees(n) for n in size[2:]):
        pytest.skip("PyTorch's vectorised CPU linspace rounds this size differently")
    n = len(size) - 2
    eye = torch.eye(n, n + 1).expand(size[0], n, n + 1)
    ref = torch.nn.functional.affine_grid(eye, size, align_corners=False)
    got = tandem.nn.functional.affine_grid(tandem.tensor(eye.tolist(), device=device), size, align_corners=False)
    assert torch.equal(torch.tensor(got.tolist()), ref)


def test_grid_sample_gradient_at_pixel_centres_matches_pytorch(device):
    # An identity transform samples exactly at pixel centres, where bilinear interpolation has a kink: the
    # gradient is the forward difference only when the grid point is not an ulp below the centre.
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 1, 28, 28, generator=gen)
    w = torch.randn(2, 1, 28, 28, generator=gen)
    theta = torch.tensor([[[1.0, 0, 0], [0, 1, 0]]] * 2, requires_grad=True)
    F = torch.nn.functional
    (F.grid_sample(x, F.affine_grid(theta, x.shape, align_corners=False), align_corners=False) * w).sum().backward()
    t_theta = tandem.tensor(theta.tolist(), device=device, requires_grad=True)
    tF = tandem.nn.functional
    tx, tw = tandem.tensor(x.tolist(), device=device), tandem.tensor(w.tolist(), device=device)
    (tF.grid_sample(tx, tF.affine_grid(t_theta, tx.shape, align_corners=False), align_corners=False) * tw).sum().backward()
    # (28's linspace differs from PyTorch's CPU one in a few middle elements, by less than the scaling's ulp.)
    assert torch.allclose(torch.tensor(t_theta.grad.tolist()), theta.grad, rtol=1e-5, atol=1e-3)


# ---- DataLoader warns about more workers than CPUs (pytorch/tutorials STN: num_workers=4) ---------------------
# Each library runs in a fresh process, as a user's script does: PyTorch's DataLoader forks its workers, and a
# fork from this test process (where earlier tests left threads running: OpenMP pools, emulated device queues)
# could leave a worker blocked on a lock another thread held, now and then, under the sanitizer builds.
_WORKER_CASES = [(3, False, 2), (3, True, 2), (2, False, 2), (0, False, 1)]
_WORKER_WARNINGS_PROGRAM = """
import importlib, json, os, sys, warnings
lib = importlib.import_module(sys.argv[1])
out = []
for num_workers, persistent, cpus in json.loads(sys.argv[2]):
    os.sched_getaffinity = lambda pid, cpus=cpus: set(range(cpus))
    data = lib.utils.data.TensorDataset(lib.arange(8.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = lib.utils.data.DataLoader(data, batch_size=4, num_workers=num_workers,
                                           persistent_workers=persistent)
        for _ in range(2):
            assert [b[0].tolist() for b in loader] == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
    del loader
    out.append([str(w.message) for w in caught if "worker processes" in str(w.message)])
print(json.dumps(out))
"""
_worker_warnings = {}


def _worker_warnings_of(lib):
    if lib not in _worker_warnings:
        run = run_process_tree([sys.executable, "-c", _WORKER_WARNINGS_PROGRAM, lib, json.dumps(_WORKER_CASES)],
                               timeout=300)
        assert run.returncode == 0, run.stderr
        _worker_warnings[lib] = json.loads(run.stdout.splitlines()[-1])
    return _worker_warnings[lib]


@pytest.mark.parametrize("case", range(len(_WORKER_CASES)))
def test_dataloader_warns_when_workers_exceed_cpus_as_pytorch(case):
    num_workers, _, cpus = _WORKER_CASES[case]
    got, want = _worker_warnings_of("tandem")[case], _worker_warnings_of("torch")[case]
    assert got == want
    if num_workers > cpus:
        assert got[0].startswith(f"This DataLoader will create {num_workers} worker processes in total. Our "
                                 f"suggested max number of worker in current system is {cpus}, which is smaller")
    else:
        assert got == []


# ---- PyTorch's deprecated (Number, Tensor...) overloads (char-RNN generation tutorial: p.data.add_(-lr, grad)) ----
_DEPRECATED_CALLS = [
    ("method", "add", (2.5,)), ("method", "add_", (2.5,)), ("method", "sub", (-1,)), ("method", "sub_", (3,)),
    ("method", "addcmul", (0.5, "t")), ("method", "addcmul_", (0.5, "t")), ("method", "addcdiv", (-2, "t")),
    ("method", "addcdiv_", (0.25, "t")), ("function", "add", (2,)), ("function", "sub", (0.5,)),
    ("function", "addcmul", (3, "t")), ("function", "addcdiv", (0.5, "t")),
]


def _deprecated_call(lib, kind, name, extra, device):
    a = lib.tensor([1.0, -2.0, 3.0], device=device) if lib is tandem else torch.tensor([1.0, -2.0, 3.0])
    b = lib.tensor([0.5, 4.0, -1.5], device=device) if lib is tandem else torch.tensor([0.5, 4.0, -1.5])
    args = [extra[0], b] + [b * 2 for _ in extra[1:]]
    if kind == "method":
        return getattr(a, name)(*args)
    return getattr(lib, name)(a, *args)


def _pytorch_deprecation_message(old, new):
    return (f"This overload of {old.split('(')[0]} is deprecated:\n\t{old}\nConsider using one of the following "
            f"signatures instead:\n\t{new}")


# PyTorch 2.15's text (it warns once per process, so the cases cannot all ask the oracle in one process;
# test_deprecation_text_is_pytorchs checks one against a fresh PyTorch).
_METHOD_FORMS = {"add": "Tensor other, *, Number alpha = 1", "sub": "Tensor other, *, Number alpha = 1",
                 "addcmul": "Tensor tensor1, Tensor tensor2, *, Number value = 1",
                 "addcdiv": "Tensor tensor1, Tensor tensor2, *, Number value = 1"}
_OLD_METHOD_FORMS = {"add": "Number alpha, Tensor other", "sub": "Number alpha, Tensor other",
                     "addcmul": "Number value, Tensor tensor1, Tensor tensor2",
                     "addcdiv": "Number value, Tensor tensor1, Tensor tensor2"}


def _expected_message(kind, name):
    base = name.rstrip("_")
    if kind == "method":
        return _pytorch_deprecation_message(f"{name}({_OLD_METHOD_FORMS[base]})", f"{name}({_METHOD_FORMS[base]})")
    new = _METHOD_FORMS[base] + ", Tensor out = None"
    return _pytorch_deprecation_message(f"{name}(Tensor input, {_OLD_METHOD_FORMS[base]}, *, Tensor out = None)",
                                        f"{name}(Tensor input, {new})")


def test_deprecation_text_is_pytorchs():
    script = ("import warnings, torch\nwith warnings.catch_warnings(record=True) as w:\n"
              "    warnings.simplefilter('always')\n    torch.addcmul(torch.ones(2), 2, torch.ones(2), torch.ones(2))\n"
              "print(str(w[0].message).split(' (Triggered internally')[0], end='')")
    assert subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout == _expected_message("function", "addcmul")


@pytest.mark.parametrize("kind,name,extra", _DEPRECATED_CALLS)
def test_deprecated_scalar_first_overloads_compute_and_warn_as_pytorch(device, kind, name, extra, monkeypatch):
    import tandem._deprecated_overloads as overloads
    monkeypatch.setattr(overloads, "_warned", [])  # PyTorch warns once per process: start each case afresh
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _deprecated_call(torch, kind, name, extra, "cpu")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = _deprecated_call(tandem, kind, name, extra, device)
    assert out.tolist() == ref.tolist() and out.device == tandem.device(device)
    assert [str(w.message) for w in got] == [_expected_message(kind, name)]
    assert got[0].filename == __file__
    with warnings.catch_warnings(record=True) as again:  # once per process, whichever overload comes next
        warnings.simplefilter("always")
        _deprecated_call(tandem, "method", "add", (1,), device)
    assert again == []


def test_deprecated_overloads_leave_the_current_forms_alone(device):
    a = tandem.tensor([1.0, 2.0], device=device)
    b = tandem.tensor([3.0, 5.0], device=device)
    assert a.add(b, alpha=2).tolist() == [7.0, 12.0] and tandem.sub(a, b).tolist() == [-2.0, -3.0]
    assert a.add(2).tolist() == [3.0, 4.0] and a.addcmul(b, b, value=0.5).tolist() == [5.5, 14.5]
    with pytest.raises(TypeError):
        a.add(b, b)  # two tensors positionally: no overload takes them, as PyTorch
    with pytest.raises(TypeError):
        torch.ones(2).add(torch.ones(2), torch.ones(2))


# ---- uint8 masks: PyTorch's deprecation warning, and its masked_fill_ refusal (the DQN tutorial's mask) ---------
def _uint8_mask_cases(lib):
    m = lib.tensor([[1, 0, 1], [0, 1, 1]], dtype=lib.uint8)
    row = lib.tensor([1, 0], dtype=lib.uint8)
    return {
        "get": lambda x: x[m],
        "get_row": lambda x: x[row],
        "get_row_slice": lambda x: x[row, 1:],
        "get_0d": lambda x: x[lib.tensor(1, dtype=lib.uint8)],
        "get_bool": lambda x: x[m.bool()],
        "set_vector": lambda x: x.__setitem__(m, lib.tensor([1.0, 2.0, 3.0, 4.0], device=x.device)) or x,
        "set_row_vector": lambda x: x.__setitem__(row, lib.tensor([7.0, 8.0, 9.0], device=x.device)) or x,
        "set_scalar": lambda x: x.__setitem__(m, 7.0) or x,
        "set_one_element": lambda x: x.__setitem__(m, lib.tensor([7.0])) or x,
        "set_row_slice_scalar": lambda x: x.__setitem__((row, slice(1, None)), 5.0) or x,
        "set_bool_scalar": lambda x: x.__setitem__(m.bool(), 7.0) or x,
    }


def _run_uint8_case(lib, name, device):
    x = lib.arange(6.0).reshape(2, 3)
    if lib is tandem:
        x = x.to(device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = _uint8_mask_cases(lib)[name](x).tolist()
        except RuntimeError as e:
            result = str(e).split("\n")[0]
    return result, [str(w.message).split(" (Triggered internally")[0] for w in caught]


@pytest.mark.parametrize("name", list(_uint8_mask_cases(torch)))
def test_uint8_mask_indexing_warns_and_refuses_as_pytorch(device, name):
    assert _run_uint8_case(tandem, name, device) == _run_uint8_case(torch, name, "cpu")
