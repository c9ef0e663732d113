"""set_flush_denormal: flush-to-zero and denormals-are-zero on the threads that run the CPU kernels, as PyTorch."""
import platform

import pytest
import torch

import tandem

X86 = platform.machine() in ("x86_64", "AMD64")


@pytest.fixture
def restore_ieee():
    yield
    tandem.set_flush_denormal(False)
    torch.set_flush_denormal(False)


@pytest.mark.skipif(not X86, reason="flushing denormals needs x86-64's SSE control register")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("numel", [1, 1 << 17])  # one element on the caller; many on the OpenMP threads
def test_flush_denormal_as_pytorch(restore_ieee, dtype, numel):
    tiny = 1e-40 if dtype == "float32" else 1e-310  # denormal in the dtype
    small = 1e-20 if dtype == "float32" else 1e-160  # normal, with a denormal square
    results = {}
    for lib in (tandem, torch):
        d = getattr(lib, dtype)
        denormal, normal = lib.full((numel,), tiny, dtype=d), lib.full((numel,), small, dtype=d)
        assert lib.set_flush_denormal(True) is True
        flushed = ((denormal * 1.0).tolist()[-1], (normal * small).tolist()[-1])
        assert lib.set_flush_denormal(False) is True
        ieee = ((denormal * 1.0).tolist()[-1], (normal * small).tolist()[-1])
        results[lib.__name__] = (flushed, ieee)
    if numel == 1:  # PyTorch sets only the calling thread: its worker threads (large tensors) keep denormals
        assert results["tandem"] == results["torch"]
    (read, produced), (read_ieee, produced_ieee) = results["tandem"]
    assert read == 0.0 and produced == 0.0  # denormals read as zero; a denormal result becomes zero
    assert read_ieee > 0.0 and produced_ieee > 0.0


@pytest.mark.skipif(not X86, reason="flushing denormals needs x86-64's SSE control register")
def test_flush_denormal_reaches_threads_added_by_set_num_threads(restore_ieee):
    before = tandem.get_num_threads()
    try:
        tandem.set_num_threads(4)
        assert tandem.set_flush_denormal(True) is True
        x = tandem.full((1 << 18,), 1e-40) * 1.0
        assert x.max().item() == 0.0
    finally:
        tandem.set_num_threads(before)


def test_flush_denormal_off_keeps_ieee():
    assert tandem.set_flush_denormal(False) is X86
    assert (tandem.full((3,), 1e-40) * 1.0).tolist()[0] > 0


@pytest.mark.parametrize("mode", ["x", None, 2, 1.5])
def test_flush_denormal_takes_only_a_bool(mode):
    for lib in (tandem, torch):
        with pytest.raises(RuntimeError, match=f"^flush_denormal expects a bool, but got {type(mode).__name__}$"):
            lib.set_flush_denormal(mode)
