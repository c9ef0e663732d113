"""More of torch.cuda's memory API: the per-process memory fraction, accumulated-stat resets, raw allocations from
the caching allocator, and the allocator queries tandem's allocator cannot answer yet (they say so).

With no CUDA device these answer as PyTorch's CUDA build does with no GPU: the calls that need a device raise the
"Found no NVIDIA driver" error (tandem adds a hint), the statistics are empty and the resets of host statistics
do nothing.
"""
import collections
import contextlib
import warnings

from .. import _C

__all__ = ["set_per_process_memory_fraction", "get_per_process_memory_fraction", "reset_accumulated_memory_stats",
           "memory_snapshot", "ipc_collect", "caching_allocator_alloc", "caching_allocator_delete",
           "caching_allocator_enable", "caching_allocator_disabled", "get_allocator_backend", "host_memory_stats",
           "host_memory_stats_as_nested_dict", "reset_accumulated_host_memory_stats",
           "reset_peak_host_memory_stats", "MemPool", "use_mem_pool"]


def _cuda():
    from .. import cuda  # noqa: PLC0415  (this module is imported while tandem.cuda is being built)
    return cuda


def _device_index(device):
    """The CUDA ordinal of ``device`` (None: the current device); raises PyTorch's error without a device."""
    _cuda().init()
    return _C._cuda_device_index(device)


# ---- accumulated statistics ----------------------------------------------------------------------------------
# tandem's allocator keeps its running totals (``*.allocated``, ``*.freed``, num_alloc_retries, num_ooms) from the
# start; reset_accumulated_memory_stats records their values, and memory_stats reports the totals since then.
_ACCUMULATED_SUFFIXES = (".allocated", ".freed")
_ACCUMULATED_COUNTERS = ("num_alloc_retries", "num_ooms")
_accumulated_baseline = {}  # device index -> {key: value at the last reset}


def _is_accumulated(key):
    return key.endswith(_ACCUMULATED_SUFFIXES) or key in _ACCUMULATED_COUNTERS


def stats_since_reset(index):
    """The allocator's statistics of device ``index`` with the running totals counted from the last reset."""
    stats = _C._cuda_memory_stats(index)
    baseline = _accumulated_baseline.get(index, {})
    return {key: value - baseline.get(key, 0) for key, value in stats.items()}


def reset_accumulated_stats_of(index):
    stats = _C._cuda_memory_stats(index)
    _accumulated_baseline[index] = {key: value for key, value in stats.items() if _is_accumulated(key)}


def reset_accumulated_memory_stats(device=None):
    """Starts the running totals (``*.allocated``, ``*.freed``, num_alloc_retries, num_ooms) afresh from 0."""
    if not _cuda().is_available():
        raise RuntimeError("invalid argument to reset_accumulated_memory_stats\n"
                           "hint: no CUDA device can be used, so there are no statistics to reset")
    reset_accumulated_stats_of(_C._cuda_device_index(device))


# ---- the per-process memory fraction -------------------------------------------------------------------------
_fractions = {}  # device index -> fraction set by set_per_process_memory_fraction
_warned_uncapped = [False]


def set_per_process_memory_fraction(fraction, device=None) -> None:
    """Records the share (0 to 1) of the device's memory this process may allocate. tandem's allocator has no
    cap yet, so the fraction is validated and recorded (get_per_process_memory_fraction returns it) but does not
    limit allocation; a UserWarning says so once. TANDEM_EMULATE_CUDA_MEMORY caps emulated devices."""
    index = _device_index(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if fraction < 0 or fraction > 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _fractions[index] = fraction
    if fraction < 1 and not _warned_uncapped[0]:
        _warned_uncapped[0] = True
        warnings.warn("tandem's caching allocator has no per-process memory cap yet: the fraction is recorded but "
                      "allocations are not limited by it (TANDEM_EMULATE_CUDA_MEMORY=... caps emulated devices)",
                      UserWarning, stacklevel=2)


def get_per_process_memory_fraction(device=None) -> float:
    """The fraction set_per_process_memory_fraction recorded for the device (1.0 when none was set)."""
    return _fractions.get(_device_index(device), 1.0)


# ---- raw allocations -----------------------------------------------------------------------------------------
_raw_blocks = {}  # address -> the uint8 tensor that owns the block


def caching_allocator_alloc(size, device=None, stream=None):
    """``size`` bytes from tandem's caching allocator on ``device``, allocated for ``stream`` (a
    tandem.cuda.Stream; the current stream if None); returns the address. Free it with caching_allocator_delete.
    A raw stream pointer (int) is refused: tandem allocates only for streams it created."""
    cuda = _cuda()
    index = _device_index(device)
    if stream is None:
        stream = cuda.current_stream(index)
    if isinstance(stream, int) and not isinstance(stream, bool):
        raise RuntimeError("caching_allocator_alloc: tandem cannot allocate for a raw CUDA stream pointer\n"
                           "hint: pass a tandem.cuda.Stream (e.g. tandem.cuda.current_stream())")
    if not isinstance(stream, cuda.Stream):
        raise TypeError("Invalid type for stream argument, must be `torch.cuda.Stream` or `int` representing a "
                        "pointer to an existing stream")
    from .. import empty, uint8  # noqa: PLC0415
    with cuda.device(index), cuda.stream(stream):
        block = empty(size, dtype=uint8, device=f"cuda:{index}")
    address = block.data_ptr()
    if address:
        _raw_blocks[address] = block
    return address


def caching_allocator_delete(mem_ptr):
    """Returns a block caching_allocator_alloc handed out to the allocator (0 is ignored)."""
    if mem_ptr == 0:
        return
    if _raw_blocks.pop(mem_ptr, None) is None:
        raise RuntimeError(f"invalid device pointer: {hex(mem_ptr)}")


def caching_allocator_enable(value: bool = True) -> None:
    """Turning the caching allocator off is not possible in tandem: True (the default state) does nothing, False
    raises NotImplementedError while a CUDA device is in use (nothing happens without one, as in PyTorch)."""
    if _cuda().is_initialized() and not value:
        raise NotImplementedError("tandem's CUDA caching allocator cannot be disabled\n"
                                  "hint: tandem.cuda.empty_cache() returns the cached blocks to the device")


@contextlib.contextmanager
def caching_allocator_disabled():
    """Turns the caching allocator off inside the ``with`` block (see caching_allocator_enable)."""
    caching_allocator_enable(False)
    try:
        yield
    finally:
        caching_allocator_enable(True)


def get_allocator_backend() -> str:
    """'native': tandem's own caching allocator (there is no cudaMallocAsync backend)."""
    return "native"


# ---- what tandem's allocator cannot report yet ---------------------------------------------------------------
def _not_reported(what, instead):
    return NotImplementedError(f"tandem's allocator does not report {what} yet\nhint: {instead}")


def memory_snapshot(mempool_id=None, include_traces=True):
    """The allocator's segments, as PyTorch's (empty without CUDA). tandem's allocator does not list its segments
    yet: with a device this raises NotImplementedError naming what it does report."""
    if not _cuda().is_available():
        return []
    raise _not_reported("its segments (memory_snapshot)", "tandem.cuda.memory_summary() and "
                        "tandem.cuda.memory.largest_allocations() report the live allocations and where they were made")


def host_memory_stats():
    """The pinned host allocator's statistics: empty without CUDA; not reported yet with a device."""
    if not _cuda().is_initialized():
        return collections.OrderedDict()
    raise _not_reported("pinned host memory statistics", "tandem.cuda.memory_stats() reports device memory")


def host_memory_stats_as_nested_dict():
    """host_memory_stats() as nested dicts: {} without CUDA; not reported yet with a device."""
    if not _cuda().is_initialized():
        return {}
    raise _not_reported("pinned host memory statistics", "tandem.cuda.memory_stats() reports device memory")


def reset_accumulated_host_memory_stats() -> None:
    """Nothing to reset: tandem keeps no pinned host memory statistics."""


def reset_peak_host_memory_stats() -> None:
    """Nothing to reset: tandem keeps no pinned host memory statistics."""


def ipc_collect():
    """Frees device memory that other processes released after receiving it over CUDA IPC. tandem does not share
    device memory between processes, so there is never any to collect (PyTorch's error without a device)."""
    _cuda().init()


class MemPool:
    """A private pool of the caching allocator (PyTorch's MemPool). tandem's allocator has one pool per stream
    and no user pools: construction raises NotImplementedError (PyTorch's error without a device)."""

    def __init__(self, allocator=None, use_on_oom=False, no_split=False):
        _cuda().init()
        raise NotImplementedError("tandem's caching allocator has no user memory pools (MemPool)\n"
                                  "hint: allocate normally; tandem.cuda.empty_cache() returns cached blocks")


@contextlib.contextmanager
def use_mem_pool(pool, device=None):
    """Routes allocations to ``pool`` (a MemPool, which tandem cannot create)."""
    _device_index(device)
    raise NotImplementedError("tandem's caching allocator has no user memory pools (use_mem_pool)\n"
                              "hint: allocate normally; tandem.cuda.empty_cache() returns cached blocks")
    yield  # noqa: unreachable  (makes this a generator, so the error comes at `with`, as PyTorch's)
