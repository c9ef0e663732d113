"""Pinned memory, safe non_blocking copies, tandem.backends.cuda and the CUDA build without a GPU. Device parts
run on real or emulated devices (TANDEM_EMULATE_CUDA=2); tandem.cuda._sleep holds the stream so a test can
prove that host reads of a non_blocking result wait for the copy."""
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tandem
from tandem.utils.data import DataLoader, TensorDataset

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
DELAY_MS = 300


def run_fresh(code, **env_overrides):
    """Runs `code` in a fresh interpreter without emulated devices (they are chosen at import)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    env.update(env_overrides)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


@needs_cuda
def test_pin_memory_copies_into_pinned_memory_once():
    t = tandem.arange(12, dtype=tandem.float32).reshape(3, 4)
    assert not t.is_pinned()
    p = t.pin_memory()
    assert p.is_pinned() and p.device == "cpu" and p is not t
    np.testing.assert_array_equal(p.numpy(), t.numpy())
    assert p.pin_memory() is p
    assert p[1:].is_pinned()  # views of pinned memory are pinned
    assert p.clone().is_pinned() is False
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        t.cuda().pin_memory()
    assert not t.cuda().is_pinned()


@needs_cuda
@pytest.mark.parametrize("factory", ["empty", "zeros", "ones"])
def test_factories_make_pinned_tensors(factory):
    t = getattr(tandem, factory)(2, 3, dtype=tandem.int64, pin_memory=True)
    assert t.is_pinned() and t.dtype is tandem.int64 and t.shape == (2, 3)
    if factory != "empty":
        assert t.tolist() == getattr(np, factory)((2, 3), dtype=np.int64).tolist()
    with pytest.raises(RuntimeError, match="Only dense CPU tensors can be pinned"):
        getattr(tandem, factory)(2, device="cuda", pin_memory=True)


@needs_cuda
@pytest.mark.parametrize("make,values", [
    (lambda: tandem.full((2,), 3, pin_memory=True), [3, 3]),
    (lambda: tandem.full_like(tandem.ones(2), 5.0, pin_memory=True), [5.0, 5.0]),
    (lambda: tandem.zeros_like(tandem.ones(2, dtype=tandem.int32), pin_memory=True), [0, 0]),
    (lambda: tandem.ones_like(tandem.ones(2, 3).t(), pin_memory=True), [[1.0] * 2] * 3),
    (lambda: tandem.tensor([1.5, 2.5], pin_memory=True), [1.5, 2.5]),
    (lambda: tandem.logspace(0, 2, 3, pin_memory=True), [1.0, 10.0, 100.0]),
    (lambda: tandem.range(0, 2, pin_memory=True), [0.0, 1.0, 2.0]),
    (lambda: tandem.rand_like(tandem.ones(2), pin_memory=True), lambda v: len(v) == 2 and 0 <= min(v) < 1),
    (lambda: tandem.randn_like(tandem.ones(2, 3).t(), pin_memory=True), lambda v: len(v) == 3 and len(v[0]) == 2),
    (lambda: tandem.randint_like(tandem.ones(2), 1, pin_memory=True), [0.0, 0.0]),
    (lambda: tandem.tril_indices(2, 2, pin_memory=True), [[0, 1, 1], [0, 0, 1]]),
    (lambda: tandem.arange(3, pin_memory=True), [0, 1, 2]),
    (lambda: tandem.linspace(0, 1, 3, pin_memory=True), [0.0, 0.5, 1.0]),
    (lambda: tandem.eye(2, pin_memory=True), [[1.0, 0.0], [0.0, 1.0]]),
    (lambda: tandem.rand(3, pin_memory=True), lambda v: len(v) == 3 and 0 <= min(v) < 1),
    (lambda: tandem.randn(2, 2, pin_memory=True), lambda v: len(v) == 2),
    (lambda: tandem.randint(0, 1, (2,), pin_memory=True), [0, 0]),
    (lambda: tandem.randperm(1, pin_memory=True), [0]),
    (lambda: tandem.normal(0.0, 0.0, (2,), pin_memory=True), [0.0, 0.0]),
], ids=["full", "full_like", "zeros_like", "ones_like-preserve", "tensor", "logspace", "range", "rand_like",
        "randn_like", "randint_like", "tril_indices", "arange", "linspace", "eye", "rand", "randn", "randint",
        "randperm", "normal"])
def test_more_factories_make_pinned_tensors(make, values):
    # PyTorch's factories all take pin_memory= (its parser accepts it on every one with a TensorOptions).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # range's deprecation
        t = make()
    assert t.is_pinned() and t.device.type == "cpu"
    assert values(t.tolist()) if callable(values) else t.tolist() == values
    assert tandem.tensor([1.0], pin_memory=True, requires_grad=True).requires_grad


@needs_cuda
@pytest.mark.parametrize("make", [
    lambda: tandem.rand(2, device="cuda", pin_memory=True), lambda: tandem.arange(2, device="cuda", pin_memory=True),
    lambda: tandem.full((2,), 1.0, device="cuda", pin_memory=True),
    lambda: tandem.randint(0, 3, (2,), device="cuda", pin_memory=True)])
def test_pinning_a_device_tensor_is_refused(make):
    with pytest.raises(RuntimeError, match="^Only dense CPU tensors can be pinned\nhint: drop pin_memory=True"):
        make()


def test_pin_memory_without_an_accelerator_raises_with_a_hint():
    lines = run_fresh("""
        import tandem, warnings
        from tandem.utils.data import DataLoader, TensorDataset
        if tandem.cuda.is_available():
            print("a real CUDA device is present")
            raise SystemExit
        t = tandem.ones(3)
        print(t.is_pinned())
        for make in (t.pin_memory, lambda: tandem.empty(3, pin_memory=True)):
            try:
                make()
            except RuntimeError as e:
                print(str(e).splitlines()[0])
                print(str(e).splitlines()[1].startswith("hint:"))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            batch = next(iter(DataLoader(TensorDataset(tandem.ones(4, 2)), batch_size=2, pin_memory=True)))
        print(batch[0].is_pinned(), "no accelerator is found" in str(w[0].message))
    """)
    if lines == ["a real CUDA device is present"]:
        pytest.skip("a real CUDA device is present")
    first = "Cannot access accelerator device when none is available."
    assert lines == ["False", first, "True", first, "True", "False True"]


@needs_cuda
def test_dataloader_pin_memory_gives_pinned_batches():
    ds = TensorDataset(tandem.arange(8.0).reshape(4, 2), tandem.arange(4))
    batches = list(DataLoader(ds, batch_size=2, pin_memory=True))
    assert len(batches) == 2
    for x, y in batches:
        assert x.is_pinned() and y.is_pinned()
    np.testing.assert_array_equal(batches[1][0].numpy(), [[4.0, 5.0], [6.0, 7.0]])
    # Non-tensor batches (a custom collate_fn) keep their structure.
    loader = DataLoader(ds, batch_size=2, pin_memory=True, collate_fn=lambda b: {"x": [s[0] for s in b], "n": 2})
    out = next(iter(loader))
    assert out["n"] == 2 and all(t.is_pinned() for t in out["x"])
    # Tensors already on the device stay there (only CPU tensors are pinned).
    on_device = next(iter(DataLoader(TensorDataset(tandem.ones(4, 2, device="cuda")), batch_size=2, pin_memory=True)))
    assert on_device[0].device == "cuda:0" and not on_device[0].is_pinned()


def _held_stream_source(n=1 << 16):
    """A device tensor and its expected values, with the current stream held for DELAY_MS."""
    expected = np.arange(n, dtype=np.float32)
    x = tandem.from_numpy(expected).cuda()
    tandem.cuda.synchronize()
    tandem.cuda._sleep(DELAY_MS)
    return x, expected


READS = {
    "numpy": lambda y: y.numpy(),
    "item": lambda y: np.float32(y[-1].item()),
    "tolist": lambda y: np.array(y.tolist(), dtype=np.float32),
    "op": lambda y: (y + 0).numpy(),
    "print": lambda y: repr(y),
    "data_ptr_then_numpy": lambda y: (y.data_ptr(), np.asarray(y))[1],
}


@needs_cuda
@pytest.mark.parametrize("read", sorted(READS))
def test_non_blocking_cpu_result_is_never_read_before_the_copy_finished(read):
    x, expected = _held_stream_source()
    y = x.cpu(non_blocking=True)
    assert not tandem.cuda.current_stream().query()  # the copy is still queued behind the sleep
    assert y.is_pinned() and y.device == "cpu"
    got = READS[read](y)
    if read == "item":
        assert got == expected[-1]
    elif read == "print":
        assert got == repr(tandem.from_numpy(expected))
    else:
        np.testing.assert_array_equal(got, expected)


@needs_cuda
def test_copy_into_pinned_buffer_non_blocking_overwrites_before_any_read():
    x, expected = _held_stream_source()
    buf = tandem.empty(2 * x.numel(), pin_memory=True).fill_(-1.0)
    buf[: x.numel()].copy_(x, non_blocking=True)
    buf[x.numel():].copy_(x * 2, non_blocking=True)
    assert not tandem.cuda.current_stream().query()
    np.testing.assert_array_equal(buf.numpy(), np.concatenate([expected, expected * 2]))


@needs_cuda
@pytest.mark.parametrize("how", ["to", "cpu_kw"])
def test_non_blocking_result_freed_early_and_to_forms(how):
    x, expected = _held_stream_source()
    y = x.to("cpu", non_blocking=True) if how == "to" else x.to(device="cpu", non_blocking=True)
    del y  # freeing waits for the copy instead of letting it write into released memory
    z = x.cpu(non_blocking=True)
    np.testing.assert_array_equal(z.numpy(), expected)


@needs_cuda
def test_non_blocking_copy_into_pageable_memory_is_synchronous():
    x, expected = _held_stream_source()
    dst = tandem.empty(x.numel())
    dst.copy_(x, non_blocking=True)
    assert tandem.cuda.current_stream().query()  # it waited for the stream
    np.testing.assert_array_equal(dst.numpy(), expected)


@needs_cuda
def test_non_blocking_host_to_device_from_pinned_memory_keeps_the_source_alive():
    expected = np.arange(1 << 16, dtype=np.float32)
    src = tandem.from_numpy(expected).pin_memory()
    tandem.cuda._sleep(DELAY_MS)
    d = src.cuda(non_blocking=True)
    e = src.to("cuda", non_blocking=True)
    assert not tandem.cuda.current_stream().query()  # queued, the host did not wait
    del src  # the copies still read it: it must stay alive until they are done
    np.testing.assert_array_equal(d.cpu().numpy(), expected)
    np.testing.assert_array_equal(e.cpu().numpy(), expected)


@needs_cuda
def test_non_blocking_copies_are_counted_like_blocking_ones():
    x = tandem.ones(256, device="cuda")
    tandem.cuda.reset_transfer_stats()
    y = x.cpu(non_blocking=True)
    z = y.cuda(non_blocking=True)
    x.cpu()
    s = tandem.cuda.transfer_stats()
    assert s["device_to_host_copies"] == 2 and s["device_to_host_bytes"] == 2 * 1024
    assert s["host_to_device_copies"] == 1 and s["non_blocking_copies"] == 2
    assert z.device == "cuda:0" and z.cpu().tolist() == [1.0] * 256


@needs_cuda
def test_non_blocking_keeps_autograd_and_dtype_conversion():
    x = tandem.ones(4, device="cuda", requires_grad=True)
    y = x.to("cpu", tandem.float64, non_blocking=True)
    assert y.dtype is tandem.float64 and y.grad_fn is not None
    y.sum().backward()
    assert x.grad.cpu().tolist() == [1.0] * 4


@needs_cuda
def test_sleep_holds_only_the_current_stream():
    s = tandem.cuda.Stream()
    with tandem.cuda.stream(s):
        tandem.cuda._sleep(DELAY_MS)
        assert not s.query()
    s.synchronize()
    assert s.query()


def test_allow_tf32_is_a_settable_flag_off_by_default():
    flags = tandem.backends.cuda.matmul
    assert flags.allow_tf32 is False
    try:
        flags.allow_tf32 = True
        assert tandem.backends.cuda.matmul.allow_tf32 is True
    finally:
        flags.allow_tf32 = False
    assert flags.allow_tf32 is False
    with pytest.raises(TypeError):
        flags.allow_tf32 = 1
    with pytest.raises(AttributeError):
        flags.allow_fp16 = True
    assert isinstance(tandem.backends.cuda.is_built(), bool)


@needs_cuda
def test_cuda_api_answers_consistently():
    n = tandem.cuda.device_count()
    assert n >= 1 and tandem.cuda.is_available()
    for i in range(n):
        props = tandem.cuda.get_device_properties(i)
        assert props.total_memory > 0 and props.multi_processor_count >= 1
        assert tandem.cuda.memory_stats(i)["total_bytes"] == props.total_memory
        assert tandem.cuda.get_device_name(i) == props.name
    s = tandem.cuda.current_stream()
    assert s == tandem.cuda.default_stream() and s.device == "cuda:0"
    with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
        tandem.cuda.set_device(n)
    before = tandem.cuda.memory_stats()["allocation.all.allocated"]
    t = tandem.empty(1000, device="cuda")
    assert tandem.cuda.memory_allocated() >= 4000
    assert tandem.cuda.memory_stats()["allocation.all.allocated"] == before + 1
    del t


def test_cuda_build_without_a_gpu_imports_and_says_why():
    """Meaningful in a CUDA build on a machine without GPU or driver; elsewhere it checks the non-CUDA story."""
    lines = run_fresh("""
        import tandem
        print(tandem.backends.cuda.is_built(), tandem.cuda.is_available(), tandem.cuda.device_count())
        if not tandem.cuda.is_available():
            print((tandem.ones(3) + 1).tolist())
            try:
                tandem.ones(1).cuda()
            except RuntimeError as e:
                print(str(e))
    """)
    built, available, count = lines[0].split()
    if available == "True":
        pytest.skip("a real CUDA device is present")
    assert count == "0" and lines[1] == "[2.0, 2.0, 2.0]"
    if built == "True":
        assert lines[2] in ("Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                            "installed a driver from http://www.nvidia.com/Download/index.aspx",
                            "No CUDA GPUs are available",
                            "CUDA driver initialization failed, you might not have a CUDA gpu.")
        assert "found no CUDA GPU or driver" in lines[3] and "TANDEM_EMULATE_CUDA=1" in lines[3]
    else:
        assert lines[2] == "Torch not compiled with CUDA enabled"
    # Emulated devices still work in either build.
    emulated = run_fresh("""
        import tandem
        print(tandem.cuda.device_count(), (tandem.ones(2, device="cuda") * 3).cpu().tolist())
    """, TANDEM_EMULATE_CUDA="2")
    assert emulated == ["2 [3.0, 3.0]"]


def test_arch_list_describes_the_build(monkeypatch):
    """get_arch_list/get_gencode_flags: [] / "" without compiled CUDA kernels (emulated devices run host code);
    CMake's CMAKE_CUDA_ARCHITECTURES mapped to PyTorch's names otherwise."""
    if not tandem.backends.cuda.is_built():
        assert tandem._C._cuda_architectures is None
        assert tandem.cuda.get_arch_list() == [] and tandem.cuda.get_gencode_flags() == ""
    monkeypatch.setattr(tandem._C, "_cuda_architectures", "80-real 90 100-virtual")
    assert tandem.cuda.get_arch_list() == ["sm_80", "sm_90", "compute_100"]
    assert tandem.cuda.get_gencode_flags() == ("-gencode compute=compute_80,code=sm_80 -gencode "
                                               "compute=compute_90,code=sm_90 -gencode "
                                               "compute=compute_100,code=compute_100")


@needs_cuda
def test_emulated_device_capability_and_properties():
    for index in range(tandem.cuda.device_count()):
        props = tandem.cuda.get_device_properties(index)
        if not props.is_emulated:
            continue
        assert tandem.cuda.get_device_capability(index) == (0, 0) == (props.major, props.minor)
        assert props.name == f"tandem emulated CUDA device {index} (host memory and CPU threads, for testing)"
        assert tandem.cuda.get_device_name(index) == props.name


def test_seeding_cuda_without_a_device_is_ignored_as_in_pytorch():
    """nanoGPT's sample.py calls torch.cuda.manual_seed on CPU-only machines: PyTorch ignores seeding and
    set_rng_state there (they are queued for a lazy init that never comes); reading a seed or state raises."""
    lines = run_fresh("""
        import tandem
        if tandem.cuda.is_available():
            print("real")
        else:
            print(tandem.cuda.manual_seed(3), tandem.cuda.manual_seed_all(3), tandem.cuda.seed(),
                  tandem.cuda.seed_all(), tandem.cuda.set_rng_state(tandem.zeros(8, dtype=tandem.uint8)),
                  tandem.cuda.get_rng_state_all(), tandem.cuda.set_rng_state_all([]))
            for f in (tandem.cuda.initial_seed, tandem.cuda.get_rng_state):
                try:
                    f()
                    print("ran")
                except RuntimeError:
                    print("RuntimeError")
    """)
    if lines[0] == "real":
        pytest.skip("a real CUDA device is present")
    assert lines == ["None None None None None [] None", "RuntimeError", "RuntimeError"]


def test_cuda_memory_module_has_pytorchs_memory_functions():
    import torch.cuda.memory as theirs
    from tandem.cuda import memory as ours
    from tandem.cuda.memory import memory_allocated, set_per_process_memory_fraction
    assert memory_allocated is tandem.cuda.memory_allocated
    assert set_per_process_memory_fraction is tandem.cuda.set_per_process_memory_fraction
    public = {n for n in dir(theirs) if not n.startswith("_") and callable(getattr(theirs, n))
              and getattr(getattr(theirs, n), "__module__", "").startswith("torch.cuda")}
    missing = sorted(n for n in public if not hasattr(ours, n))
    # PyTorch's pluggable allocators load a C++ allocator library: not something tandem's allocator takes.
    assert missing == ["CUDAPluggableAllocator", "change_current_allocator"]
