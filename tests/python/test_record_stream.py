"""Tensor.record_stream: the caching allocator reuses freed memory on the stream it was allocated for, so
memory that another stream still uses must be declared, as in PyTorch. Runs on real or emulated devices
(TANDEM_EMULATE_CUDA=2); tandem.cuda._sleep holds a side stream so its queued work is still pending."""
import pytest

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
needs_two = pytest.mark.skipif(tandem.cuda.device_count() < 2, reason="needs two CUDA devices")
DELAY_MS = 300
N = 1 << 16


def use_on_side_stream(x, side):
    """Queues y = x * 2 on `side` behind a delay; returns y (allocated on `side`)."""
    side.wait_stream(tandem.cuda.current_stream())
    with tandem.cuda.stream(side):
        tandem.cuda._sleep(DELAY_MS)
        return x * 2


@needs_cuda
def test_recorded_memory_is_not_reused_while_the_other_stream_uses_it():
    side = tandem.cuda.Stream()
    base = tandem.cuda.memory_allocated()
    x = tandem.full((N,), 3.0, device="cuda")
    x_size = tandem.cuda.memory_allocated() - base
    y = use_on_side_stream(x, side)
    x.record_stream(side)
    freed = x.data_ptr()
    del x
    z = tandem.full((N,), 7.0, device="cuda")  # same size, same stream as x: would be x's block if it were free
    assert not side.query()
    assert z.data_ptr() != freed
    side.synchronize()
    assert y.cpu().tolist() == [6.0] * N  # the side stream read x, not z's sevens
    # Once the side stream is done, the next allocation (a temporary, freed at once) gives x's block back.
    before = tandem.cuda.memory_allocated()
    tandem.empty(1, device="cuda")
    assert tandem.cuda.memory_allocated() == before - x_size


@needs_cuda
def test_without_record_stream_the_block_is_free_at_once():
    # The hazard record_stream exists for: the allocator only knows the stream the block was allocated for,
    # so x's block is free (and reusable by x's stream) while the side stream's work may still read it.
    side = tandem.cuda.Stream()
    x = tandem.full((N,), 3.0, device="cuda")
    y = use_on_side_stream(x, side)
    before = tandem.cuda.memory_allocated()
    del x
    assert tandem.cuda.memory_allocated() < before
    assert not side.query()
    side.synchronize()
    del y


@needs_cuda
def test_awaited_memory_stays_allocated_until_the_stream_is_done():
    tandem.cuda.synchronize()
    tandem.cuda.empty_cache()
    base = tandem.cuda.memory_allocated()
    side = tandem.cuda.Stream()
    x = tandem.ones(N, device="cuda")
    size = tandem.cuda.memory_allocated() - base
    y = use_on_side_stream(x, side)
    x.record_stream(side)
    x.record_stream(side)  # recording the same stream twice is the same as once
    x.record_stream(tandem.cuda.current_stream())  # the allocating stream needs no record
    del x
    assert tandem.cuda.memory_allocated() >= base + size  # still in use by the side stream
    del y
    tandem.cuda.synchronize()
    tandem.cuda.empty_cache()
    assert tandem.cuda.memory_allocated() == base


@needs_cuda
def test_record_stream_on_views_and_empty_tensors():
    side = tandem.cuda.Stream()
    x = tandem.zeros(4, 8, device="cuda")
    x[1:].t().record_stream(side)  # a view protects its whole storage
    tandem.empty(0, device="cuda").record_stream(side)  # no memory: nothing to do
    side.synchronize()


def test_record_stream_on_a_cpu_tensor_raises_like_pytorch():
    with pytest.raises(NotImplementedError) as info:
        tandem.ones(2).record_stream(None)
    lines = str(info.value).splitlines()
    assert lines[0] == "Could not run 'aten::record_stream' with arguments from the 'CPU' backend."
    assert lines[1].startswith("hint: record_stream only applies to cuda tensors")


@needs_cuda
def test_record_stream_rejects_what_is_not_a_stream():
    with pytest.raises(TypeError, match=r"record_stream\(\): argument 'stream' must be tandem.cuda.Stream, not int"):
        tandem.ones(2, device="cuda").record_stream(3)


@needs_two
def test_record_stream_with_a_stream_of_another_device_raises():
    other = tandem.cuda.Stream(device=1)
    with pytest.raises(RuntimeError, match="the stream is on cuda:1 but the tensor is on cuda:0"):
        tandem.ones(2, device="cuda:0").record_stream(other)
