"""The device model, tandem.cuda, and the host/device boundary rules. CUDA parts run on real or emulated
devices (CI sets TANDEM_EMULATE_CUDA=2) and are skipped when neither exists."""
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
needs_two = pytest.mark.skipif(tandem.cuda.device_count() < 2, reason="needs two CUDA devices")


def test_device_objects_parse_compare_and_print():
    d = tandem.device("cuda:1")
    assert (d.type, d.index) == ("cuda", 1)
    assert d == "cuda:1" and d == tandem.device("cuda", 1) and d != "cuda:0"
    assert str(d) == "cuda:1" and repr(d) == "device(type='cuda', index=1)"
    c = tandem.device("cpu")
    assert c.index is None and str(c) == "cpu" and repr(c) == "device(type='cpu')"
    assert tandem.ones(1).device == "cpu"
    assert len({tandem.device("cuda:0"), tandem.device("cuda", 0)}) == 1
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, ipu, .*, "
                                           "privateuseone device type at start of device string: tpu"):
        tandem.device("tpu")
    with pytest.raises(RuntimeError, match="Invalid device string: 'cuda:x'"):
        tandem.device("cuda:x")


def test_cpu_returns_same_object_and_to_is_identity_when_nothing_changes():
    t = tandem.ones(3)
    assert t.cpu() is t
    assert t.to("cpu") is t and t.to(tandem.float32) is t
    assert t.to("cpu", copy=True) is not t
    assert not t.is_cuda and t.is_cpu and t.get_device() == -1
    assert t.to(tandem.float64).dtype is tandem.float64


def test_cuda_unavailable_names_the_reason_and_the_fix():
    # A fresh interpreter without emulation, so this runs whatever the suite's environment is.
    code = textwrap.dedent("""
        import tandem
        if tandem.cuda.is_available():
            print("a real CUDA device is present")
            raise SystemExit
        assert tandem.cuda.device_count() == 0
        try:
            tandem.ones(2, device="cuda")
        except RuntimeError as e:
            print(str(e))
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    if lines == ["a real CUDA device is present"]:
        pytest.skip("a real CUDA device is present")
    if tandem.backends.cuda.is_built():  # a CUDA build on a machine without GPU or driver: PyTorch's words
        assert lines[0] in ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                            "installed a driver from http://www.nvidia.com/Download/index.aspx",
                            "No CUDA GPUs are available",
                            "CUDA driver initialization failed, you might not have a CUDA gpu.")
    else:
        assert lines[0] == "Torch not compiled with CUDA enabled"
    assert lines[1].startswith("hint:") and "TANDEM_EMULATE_CUDA" in lines[1]


@needs_cuda
def test_tensors_move_between_host_and_device_and_keep_values():
    a = tandem.tensor([[1.0, 2.0], [3.0, 4.0]], device="cuda")
    assert a.device == "cuda:0" and a.is_cuda and not a.is_cpu and a.get_device() == 0
    b = a.cpu()
    assert b.device == "cpu" and b.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    c = tandem.ones(2, 2).cuda()
    assert c.device == "cuda:0"
    assert c.cuda() is c
    assert (a + c).cpu().tolist() == [[2.0, 3.0], [4.0, 5.0]]
    assert a.t().cpu().tolist() == [[1.0, 3.0], [2.0, 4.0]]  # non-contiguous crossing
    assert a.to("cpu", tandem.int64).tolist() == [[1, 2], [3, 4]]
    z = tandem.zeros(2, 3, device="cuda", dtype=tandem.int32)
    assert z.device == "cuda:0" and z.dtype is tandem.int32 and z.cpu().tolist() == [[0] * 3] * 2


@needs_cuda
def test_item_tolist_float_and_bool_of_device_tensors_copy_and_sync():
    t = tandem.tensor([2.5], device="cuda")
    assert t.item() == 2.5 and float(t) == 2.5 and bool(t) and t.tolist() == [2.5]
    assert int(tandem.tensor([7], device="cuda")) == 7


@needs_cuda
def test_mixed_devices_raise_pytorchs_error_with_a_hint():
    a = tandem.ones(3, device="cuda:0")
    with pytest.raises(RuntimeError) as info:
        a + tandem.ones(3)
    first, hint = str(info.value).splitlines()
    assert first == "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    assert hint.startswith("hint:") and "add" in hint and ".to('cuda:0')" in hint
    # 0-dim CPU tensors and Python numbers mix with device tensors, as in PyTorch
    assert (a + tandem.tensor(2.0)).cpu().tolist() == [3.0] * 3
    assert (a * 2).device == "cuda:0"
    assert tandem.where(a > 0, a, tandem.tensor(0.0)).device == "cuda:0"


@needs_two
def test_two_devices_mismatch_and_peer_copy():
    a = tandem.ones(2, device="cuda:0")
    b = tandem.ones(2, device="cuda:1")
    with pytest.raises(RuntimeError, match="found at least two devices, cuda:0 and cuda:1!"):
        a + b
    moved = a.to("cuda:1")
    assert moved.device == "cuda:1" and (moved + b).cpu().tolist() == [2.0, 2.0]
    with tandem.cuda.device(1):
        assert tandem.cuda.current_device() == 1
        assert tandem.ones(1, device="cuda").device == "cuda:1"
    assert tandem.cuda.current_device() == 0
    with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
        tandem.ones(1, device=f"cuda:{tandem.cuda.device_count()}")


@needs_cuda
def test_async_results_are_complete_when_observed_on_the_host():
    x = tandem.ones(1 << 20, device="cuda")
    for _ in range(20):
        x = x * 1.5 + 1.0  # queued; the host runs ahead
    host = x.cpu()
    expected = 1.0
    for _ in range(20):
        expected = expected * 1.5 + 1.0
    vals = host.tolist()
    assert vals[0] == pytest.approx(expected, rel=1e-5) and vals[-1] == vals[0]


@needs_cuda
def test_transfer_stats_count_copies_bytes_and_syncs():
    tandem.cuda.reset_transfer_stats()
    a = tandem.ones(256).cuda()
    a.cpu()
    tandem.cuda.synchronize()
    s = tandem.cuda.transfer_stats()
    assert s["host_to_device_copies"] == 1 and s["host_to_device_bytes"] == 1024
    assert s["device_to_host_copies"] == 1 and s["device_to_host_bytes"] == 1024
    assert s["synchronizations"] == 1


@needs_cuda
def test_memory_statistics_track_allocations():
    tandem.cuda.synchronize()
    base = tandem.cuda.memory_allocated()
    t = tandem.empty(1 << 20, device="cuda")
    assert tandem.cuda.memory_allocated() >= base + (4 << 20)
    assert tandem.cuda.max_memory_allocated() >= tandem.cuda.memory_allocated()
    assert tandem.cuda.memory_reserved() >= tandem.cuda.memory_allocated()
    del t
    assert tandem.cuda.memory_allocated() == base
    tandem.cuda.empty_cache()
    tandem.cuda.reset_peak_memory_stats()
    assert tandem.cuda.max_memory_allocated() == tandem.cuda.memory_allocated()
    free, total = tandem.cuda.mem_get_info()
    assert 0 < free <= total
    assert "largest live allocations" in tandem.cuda.memory_summary()


@needs_cuda
def test_streams_and_events_order_and_time_work():
    s = tandem.cuda.Stream()
    start, end = tandem.cuda.Event(enable_timing=True), tandem.cuda.Event(enable_timing=True)
    with tandem.cuda.stream(s):
        assert tandem.cuda.current_stream() == s
        start.record()
        x = tandem.ones(1 << 20, device="cuda")
        for _ in range(5):
            x = x + 1
        end.record()
    assert tandem.cuda.current_stream() == tandem.cuda.default_stream()
    end.synchronize()
    assert end.query() and s.query()
    assert start.elapsed_time(end) >= 0.0
    tandem.cuda.current_stream().wait_stream(s)
    assert x.cpu().tolist()[0] == 6.0
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        tandem.cuda.Event().elapsed_time(tandem.cuda.Event())


@needs_cuda
def test_device_names_say_emulated_when_emulated():
    props = tandem.cuda.get_device_properties(0)
    if props.is_emulated:
        assert "emulated" in tandem.cuda.get_device_name(0)
    assert props.total_memory > 0


def test_out_of_memory_is_an_error_the_process_survives():
    # A fresh interpreter so the device cap applies (the emulated devices are set up at import).
    code = textwrap.dedent("""
        import tandem
        big = 48 << 20
        kept = tandem.empty(big // 4, device="cuda")
        try:
            tandem.empty(big // 4, device="cuda")
        except tandem.cuda.OutOfMemoryError as e:
            lines = str(e).splitlines()
            assert isinstance(e, RuntimeError)
            assert lines[0].startswith("CUDA out of memory. Tried to allocate 48.00 MiB. GPU 0 has a total "
                                       "capacity of 64.00 MiB"), lines[0]
            assert lines[1].startswith("hint: largest live allocations on cuda:0: 48.00 MiB"), lines[1]
        else:
            raise AssertionError("no OOM")
        del kept
        again = tandem.ones(big // 4, device="cuda")  # the device keeps working and nothing leaked
        assert again.sum().item() == big // 4 if hasattr(again, "sum") else True
        assert tandem.cuda.memory_stats()["num_ooms"] == 1
        print("ok")
    """)
    env = dict(os.environ, TANDEM_EMULATE_CUDA="1", TANDEM_EMULATE_CUDA_MEMORY="64MiB")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@needs_cuda
@pytest.mark.parametrize("requires_grad", [False, True])
def test_numpy_of_device_tensor_raises_with_the_fix_for_this_tensor(requires_grad):
    import numpy as np

    t = tandem.ones(3, device="cuda")
    t.requires_grad = requires_grad
    fix = "t.detach().cpu().numpy()" if requires_grad else "t.cpu().numpy()"
    with pytest.raises(TypeError) as info:
        t.numpy()
    first, hint = str(info.value).splitlines()
    assert first == ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
                     "host memory first.")
    assert hint.startswith("hint: call " + fix) and "numpy(force=True)" in hint
    with pytest.raises(TypeError) as info:
        np.asarray(t)
    first, hint = str(info.value).splitlines()
    assert first.startswith("can't convert cuda:0 device type tensor to numpy.")
    assert "implicit conversion" in hint and fix in hint
    forced = t.numpy(force=True)
    assert isinstance(forced, np.ndarray) and forced.tolist() == [1.0, 1.0, 1.0]
    assert t.detach().cpu().numpy().tolist() == [1.0] * 3 if hasattr(t, "detach") else True


@needs_cuda
def test_implicit_conversions_of_device_tensors_name_the_fix():
    import pandas as pd
    from sklearn.metrics import accuracy_score

    y = tandem.tensor([0, 1, 1], device="cuda")
    for convert in (lambda: pd.DataFrame(y), lambda: accuracy_score(y, y)):
        with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy"):
            convert()
    assert accuracy_score(y.cpu(), y.cpu()) == 1.0


@needs_cuda
def _on(make):
    """draw(device) over tandem, with draw.__wrapped__(lib) making the same draw with another library (cpu)."""
    def draw(d):
        return make(tandem, d)
    draw.__wrapped__ = lambda lib: make(lib, "cpu")
    return draw


@pytest.mark.parametrize("draw", [
    _on(lambda L, d: L.rand(1000, device=d)), _on(lambda L, d: L.randn(1000, device=d)),
    _on(lambda L, d: L.randint(0, 100, (1000,), device=d)), _on(lambda L, d: L.randperm(100, device=d)),
    _on(lambda L, d: L.nn.functional.dropout(L.ones(1000, device=d), p=0.3, training=True)),
    _on(lambda L, d: L.empty(1000, device=d).normal_(2.0, 3.0)),
], ids=["rand", "randn", "randint", "randperm", "dropout", "normal_"])
def test_manual_seed_gives_reproducible_numbers_on_cuda_and_pytorchs_on_cpu(draw):
    tandem.manual_seed(1234)
    on_cuda = draw("cuda")
    assert on_cuda.device == "cuda:0"
    tandem.manual_seed(1234)
    assert draw("cuda").tolist() == on_cuda.tolist()
    tandem.manual_seed(1234)
    torch.manual_seed(1234)
    assert draw("cpu").tolist() == draw.__wrapped__(torch).tolist()


@needs_cuda
def test_module_on_cuda_called_with_a_cpu_batch_names_the_fix():
    model = tandem.nn.Linear(3, 2).cuda()
    assert model.weight.device == "cuda:0"
    with pytest.raises(RuntimeError) as info:
        model(tandem.ones(4, 3))
    first, hint = str(info.value).splitlines()
    assert first == "Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!"
    assert "x = x.to(device)" in hint
    assert model(tandem.ones(4, 3).to("cuda")).device == "cuda:0"


@needs_cuda
def test_float64_input_into_float32_weights_names_the_fix():
    import numpy as np

    batch = tandem.from_numpy(np.ones((4, 3)))
    with pytest.raises(RuntimeError) as info:
        tandem.nn.Linear(3, 2)(batch)
    assert str(info.value).splitlines()[0] == "mat1 and mat2 must have the same dtype, but got Double and Float"
    assert "astype(np.float32)" in str(info.value)
    with pytest.raises(RuntimeError) as info:
        tandem.nn.Conv2d(1, 1, 3)(tandem.from_numpy(np.ones((1, 1, 5, 5))))
    # PyTorch's first line names the bias, which it checks first
    assert str(info.value).splitlines()[0] == "Input type (double) and bias type (float) should be the same"
    assert "x.float()" in str(info.value) and "astype(np.float32)" in str(info.value)
    with pytest.raises(RuntimeError) as info:
        tandem.nn.Conv2d(1, 1, 3, bias=False)(tandem.from_numpy(np.ones((1, 1, 5, 5))))
    assert str(info.value).splitlines()[0] == "expected scalar type Double but found Float"
    assert "x.float()" in str(info.value)


@pytest.mark.parametrize("spec", ["cpu", "cuda", "cuda:1", ("cuda", 0)])
def test_device_pickles_as_pytorch(spec):
    """Devices cross into worker processes (multiprocessing pickles the arguments) and into checkpoints."""
    import pickle
    d = tandem.device(*spec) if isinstance(spec, tuple) else tandem.device(spec)
    r = pickle.loads(pickle.dumps(d))
    assert r == d and repr(r) == repr(d) and type(r) is tandem.device
    ref = torch.device(*spec) if isinstance(spec, tuple) else torch.device(spec)
    assert d.__reduce__()[1] == ref.__reduce__()[1]


OTHER_TYPES = ["ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla", "lazy",
               "vulkan", "mps", "hpu", "mtia", "privateuseone"]


@pytest.mark.parametrize("kind", OTHER_TYPES)
def test_device_objects_of_pytorchs_other_types(kind):
    """PyTorch's other device types make device objects (programs build torch.device("mps") as values), printed,
    compared, hashed and pickled as PyTorch's; no tensor can be put there."""
    import pickle

    torch = pytest.importorskip("torch")
    for spec in ((kind,), (f"{kind}:0",), (kind, 3), (f"{kind}:12",)):
        ours, theirs = tandem.device(*spec), torch.device(*spec)
        assert (ours.type, ours.index, str(ours), repr(ours)) == (theirs.type, theirs.index, str(theirs),
                                                                  repr(theirs))
        assert ours == str(theirs) and ours == tandem.device(str(theirs)) and ours != "cpu"
        assert hash(ours) == hash(tandem.device(str(theirs)))
        assert pickle.loads(pickle.dumps(ours)) == ours
    d = tandem.device(kind)
    assert d != tandem.device("cuda") and d != tandem.device("cpu") and d != tandem.device("meta")
    message = (f"^PyTorch is not linked with support for {kind} devices\nhint: tandem runs on cpu, cuda (real or "
               f"emulated, TANDEM_EMULATE_CUDA) and meta")
    for attempt in (lambda: tandem.ones(2).to(d), lambda: tandem.ones(2).to(kind), lambda: tandem.empty(2, device=d),
                    lambda: tandem.zeros(2, device=f"{kind}:0"), lambda: tandem.tensor([1.0], device=kind),
                    lambda: tandem.set_default_device(kind), lambda: d.__enter__()):
        with pytest.raises(RuntimeError, match=message.replace("(", r"\(").replace(")", r"\)")):
            attempt()
    assert tandem.get_default_device() == tandem.device("cpu")
    assert tandem.ones(1).device.type == "cpu"


def test_device_index_and_string_rules_for_other_types():
    torch = pytest.importorskip("torch")
    for bad in (("mps", -1), ("mps:0", 1), ("mps:-1",), ("mps:01",)):
        with pytest.raises(RuntimeError) as ours:
            tandem.device(*bad)
        with pytest.raises(RuntimeError) as theirs:
            torch.device(*bad)
        assert str(ours.value).split("\nhint:")[0] == str(theirs.value), bad
