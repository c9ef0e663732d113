"""tandem.cuda: CUDA devices (real, or emulated with TANDEM_EMULATE_CUDA=N for testing on machines without a GPU).

A thin layer over the C++ accelerator backend; the emulated and the real backend answer the same calls.
"""
import collections

from .. import _C
from .._C import OutOfMemoryError  # noqa: F401  (a RuntimeError subclass, as in PyTorch)
from .._transfer_guard import set_sync_debug_mode, get_sync_debug_mode  # noqa: F401
from . import memory  # noqa: F401
from . import _memory_more
from . import amp  # noqa: F401  (tandem.cuda.amp.autocast/GradScaler, PyTorch's older spelling)
from . import _exit_drain

_exit_drain.install()


def is_available():
    """True when at least one CUDA device (real or emulated) can be used."""
    return _C._cuda_is_available()


def device_count():
    """Number of CUDA devices (0 when CUDA is unavailable)."""
    return _C._cuda_device_count()


def current_device():
    """Index of the calling thread's current CUDA device."""
    return _C._cuda_current_device()


def _is_negative_index(device):
    """PyTorch reads a negative int device as "no device": set_device and device() leave the current one (SimCLR
    runs `with torch.cuda.device(args.gpu_index)` with gpu_index=-1 on a machine without a GPU)."""
    return isinstance(device, int) and not isinstance(device, bool) and device < 0


_device_selected = False  # set_device ran: DeviceMesh then leaves the choice of device to the program


def set_device(device):
    """Makes ``device`` (an index, 'cuda:N' or tandem.device) the thread's current CUDA device."""
    global _device_selected
    if not _is_negative_index(device):
        _C._cuda_set_device(device)
        _device_selected = True


def _index(device):
    return _C._cuda_device_index(device)


class device:
    """Context manager that makes ``device`` current inside the ``with`` block."""

    def __init__(self, device):
        self.idx = -1 if device is None else device if _is_negative_index(device) else _index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx >= 0:
            self.prev_idx = current_device()
            set_device(self.idx)
        return self

    def __exit__(self, *exc):
        if self.idx >= 0:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """Makes the device of a tensor current inside the ``with`` block; a CPU tensor changes nothing."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


class _DeviceProperties:
    def __init__(self, props):
        self.__dict__.update(props)

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1 << 20)}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """Name, total_memory, major/minor, multi_processor_count and is_emulated of a device."""
    return _DeviceProperties(_C._cuda_properties(device))


def get_device_name(device=None):
    """The device's name; emulated devices say so plainly."""
    return _C._cuda_properties(device)["name"]


def synchronize(device=None):
    """Waits until all queued work on the device has finished (an explicit sync for tandem.transfer_guard)."""
    _C._cuda_synchronize(device)


class Stream:
    """An in-order queue of work on one device. Work on different streams may overlap."""

    def __init__(self, device=None, priority=0, _id=None):
        self.device_index = _index(device)
        self.stream_id = _C._cuda_create_stream(self.device_index) if _id is None else _id

    @property
    def device(self):
        return _C.device("cuda", self.device_index)

    def synchronize(self):
        """Waits for the work queued on this stream."""
        _C._cuda_synchronize_stream(self.device_index, self.stream_id)

    def query(self):
        """True when all work queued on this stream has finished."""
        return _C._cuda_query_stream(self.device_index, self.stream_id)

    def wait_event(self, event):
        """Makes later work on this stream wait for ``event`` (the host does not wait)."""
        event.wait(self)

    def wait_stream(self, stream):
        """Makes later work on this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Records ``event`` (a new one if None) on this stream and returns it."""
        event = event or Event()
        event.record(self)
        return event

    def __eq__(self, other):
        if not isinstance(other, Stream):
            return NotImplemented  # a tandem.Stream (the device-generic form) then compares itself with this one
        return (self.device_index, self.stream_id) == (other.device_index, other.stream_id)

    def __hash__(self):
        return hash((self.device_index, self.stream_id))

    def __repr__(self):
        return f"<tandem.cuda.Stream device=cuda:{self.device_index} id={self.stream_id}>"


def current_stream(device=None):
    """The calling thread's current stream on ``device``."""
    idx = _index(device)
    return Stream(idx, _id=_C._cuda_current_stream(idx))


def default_stream(device=None):
    """The device's default stream."""
    return Stream(_index(device), _id=0)


def set_stream(stream):
    """Makes ``stream`` current for its device on the calling thread, and its device the current device (as
    PyTorch's); None does nothing."""
    if stream is None:
        return
    if current_device() != stream.device_index:
        set_device(stream.device_index)
    _C._cuda_set_stream(stream.device_index, stream.stream_id)


class StreamContext:
    """What ``stream(s)`` returns: inside the ``with`` block ``s`` is the current stream of its device and that
    device is current; on exit both go back. A no-op for None, or when no CUDA device can be used."""

    def __init__(self, stream):
        self.stream = stream
        self.idx = current_device() if is_available() else -1
        self.src_prev_stream = self.dst_prev_stream = None

    def __enter__(self):
        cur = self.stream
        if cur is None or self.idx == -1:
            return
        self.src_prev_stream = current_stream(None)
        # The stream's device keeps its own current stream: remember it to restore it on exit too.
        if self.src_prev_stream.device != cur.device:
            self.dst_prev_stream = current_stream(cur.device_index)
        set_stream(cur)

    def __exit__(self, *exc):
        cur = self.stream
        if cur is None or self.idx == -1:
            return
        if self.src_prev_stream.device != cur.device:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)


def stream(stream):
    """A StreamContext: ``with tandem.cuda.stream(s):`` makes ``s`` (and its device) current inside the block."""
    return StreamContext(stream)


class Event:
    """A marker in a stream: record it, wait on it from another stream or the host, time between two."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        self.enable_timing = enable_timing
        self._id = _C._cuda_create_event(enable_timing)
        self._device_index = None  # where it was last recorded

    def record(self, stream=None):
        """Records the event on ``stream`` (the current stream if None)."""
        stream = stream or current_stream()
        _C._cuda_record_event(self._id, stream.device_index, stream.stream_id)
        self._device_index = stream.device_index

    def wait(self, stream=None):
        """Makes future work on ``stream`` wait for this event."""
        stream = stream or current_stream()
        _C._cuda_wait_event(self._id, stream.device_index, stream.stream_id)

    def synchronize(self):
        """Blocks the host until the recorded work has finished."""
        device = current_device() if self._device_index is None else self._device_index
        _C._cuda_synchronize_event(self._id, device)

    def query(self):
        """True when the recorded work has finished."""
        return _C._cuda_query_event(self._id)

    def elapsed_time(self, end_event):
        """Milliseconds between this event and ``end_event`` (both recorded with enable_timing=True)."""
        return _C._cuda_elapsed_ms(self._id, end_event._id)

    def __del__(self):
        try:
            _C._cuda_destroy_event(self._id)
        except Exception:  # interpreter shutdown
            pass


def _sleep(ms):
    """Testing aid: the current stream waits ``ms`` milliseconds before running the work queued after this
    call (the host does not wait). Unlike torch.cuda._sleep, the argument is in milliseconds."""
    _C._cuda_sleep(float(ms))


# Each CUDA ordinal has its own default generator, as in PyTorch; tandem.manual_seed seeds the CPU's and all of
# these. `device` below is an index, "cuda", "cuda:N" or a tandem.device ("cuda" meaning the current device).
def _generator(device="cuda"):
    return _C._cuda_default_generator(_index(device))


def _all_generators():
    return [_C._cuda_default_generator(i) for i in range(device_count())]


# As in PyTorch, seeding and set_rng_state are silently ignored where no CUDA device exists (programs seed
# "cuda" unconditionally); reading a state or a seed raises.
def manual_seed(seed):
    """Seeds the current CUDA device's generator (manual_seed_all seeds every device's)."""
    if is_available():
        _generator().manual_seed(seed)


def manual_seed_all(seed):
    """Seeds every CUDA device's generator."""
    for g in _all_generators():
        g.manual_seed(seed)


def seed():
    """Seeds the current CUDA device's generator with a non-deterministic number."""
    if is_available():
        _generator().seed()


def seed_all():
    """Seeds every CUDA device's generator with one non-deterministic number."""
    generators = _all_generators()
    if generators:
        value = generators[0].seed()
        for g in generators[1:]:
            g.manual_seed(value)


def initial_seed():
    """The current CUDA device's seed."""
    return _generator().initial_seed()


def get_rng_state(device="cuda"):
    """The device generator's state as a uint8 CPU tensor (for set_rng_state)."""
    return _generator(device).get_state()


def set_rng_state(new_state, device="cuda"):
    """Restores a state get_rng_state returned."""
    if is_available():
        _generator(device).set_state(new_state)


def get_rng_state_all():
    """Every CUDA device's generator state, in ordinal order."""
    return [g.get_state() for g in _all_generators()]


def set_rng_state_all(new_states):
    """Restores the states get_rng_state_all returned."""
    for g, state in zip(_all_generators(), new_states):
        g.set_state(state)


def __getattr__(name):
    # default_generators: a tuple over the devices present when it is read, as torch.cuda.default_generators.
    if name == "default_generators":
        return tuple(_all_generators())
    # _initialized: PyTorch's module flag, read by code that saves and restores the CUDA generators only once
    # CUDA has started (reversible layers' rng bookkeeping); is_initialized() read each time.
    if name == "_initialized":
        from ._extras import is_initialized  # noqa: PLC0415  (also star-imported below; named for pyflakes)

        return is_initialized()
    raise AttributeError(f"module 'tandem.cuda' has no attribute '{name}'")


def memory_stats(device=None):
    """Allocator statistics of a device (bytes allocated/reserved, current and peak, retries, OOMs). Without
    CUDA it is empty, as PyTorch's (whose statistics are empty until CUDA starts), so that a training script
    that prints its peak memory at the end also runs on the CPU."""
    if not is_available():
        return collections.OrderedDict()
    return _memory_more.stats_since_reset(_index(device))


def memory_allocated(device=None):
    """Bytes held by live tensors on the device (0 without CUDA)."""
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """Peak of memory_allocated since start or the last reset_peak_memory_stats (0 without CUDA)."""
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes held by the allocator: live tensors plus its cache (0 without CUDA)."""
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """Peak of memory_reserved (0 without CUDA)."""
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    """Starts peak tracking afresh from the current values."""
    _C._cuda_reset_peak_memory_stats(device)


def empty_cache():
    """Returns the allocator's cached (unused) blocks to the device."""
    _C._cuda_empty_cache()


def mem_get_info(device=None):
    """(free, total) bytes of the device, as the driver reports them (cudaMemGetInfo); on an emulated device,
    its capacity less what tandem's allocator reserved."""
    return _C._cuda_mem_get_info(device)


def _fmt(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024


def memory_summary(device=None, abbreviated=False):
    """A printable report of the device's memory use, its largest live allocations (with the source line of
    each when ``tandem.cuda.memory.record_allocation_sites(True)`` was on) and what the figures mean."""
    idx = _index(device)
    s = memory_stats(idx)
    free, total = mem_get_info(idx)
    lines = [
        f"tandem memory summary, device cuda:{idx} ({get_device_name(idx)})",
        f"  total capacity      {_fmt(total)}",
        f"  allocated (current) {_fmt(s['allocated_bytes.all.current'])}   peak {_fmt(s['allocated_bytes.all.peak'])}",
        f"  reserved (current)  {_fmt(s['reserved_bytes.all.current'])}   peak {_fmt(s['reserved_bytes.all.peak'])}",
        f"  free                {_fmt(free)}",
        f"  allocations {s['allocation.all.allocated']}, frees {s['allocation.all.freed']}, "
        f"alloc retries {s['num_alloc_retries']}, out-of-memory errors {s['num_ooms']}",
    ]
    largest = memory.largest_allocations(idx, 5)
    lines.append("  largest live allocations:" + ("" if largest else " none"))
    for nbytes, site in largest:
        lines.append(f"    {_fmt(nbytes):>12}  {site or '(site not recorded)'}")
    if largest and not memory.is_recording_allocation_sites():
        lines.append("    (tandem.cuda.memory.record_allocation_sites(True) records where each allocation is made)")
    lines += [
        "  allocated: memory held by live tensors",
        "  reserved:  allocated plus blocks the allocator keeps cached for reuse (tandem.cuda.empty_cache() "
        "returns them)",
        "  free:      what the device can still hand out",
    ]
    return "\n".join(lines)


def transfer_stats():
    """Counts of host->device, device->host and device->device copies (and bytes), and device syncs so far."""
    return _C._transfer_stats()


def reset_transfer_stats():
    """Sets every transfer counter back to zero."""
    _C._reset_transfer_stats()


# Capability queries, deprecated memory aliases and the legacy tandem.cuda.FloatTensor & co. types.
from . import nvtx  # noqa: F401,E402
from . import random  # noqa: F401,E402  (after the seeding functions it re-exports)
from ._extras import *  # noqa: F401,F403,E402
# More of torch.cuda (docs/devices.md, "More of torch.cuda").
from ._runtime import *  # noqa: F401,F403,E402
from ._memory_more import *  # noqa: F401,F403,E402
from ._nvml import *  # noqa: F401,F403,E402
from ._storages import CUDA_STORAGES as _CUDA_STORAGES  # noqa: E402
from . import streams, graphs, profiler, nccl, comm, jiterator, sparse  # noqa: F401,E402
from .streams import ExternalStream  # noqa: F401,E402
from .graphs import (CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: F401,E402
                     make_graphed_callables)
globals().update(_CUDA_STORAGES)

# torch.cuda.memory holds the memory functions that torch.cuda re-exports; programs import them from either.
_MEMORY_MODULE_NAMES = (
    "MemPool", "caching_allocator_alloc", "caching_allocator_delete", "caching_allocator_disabled",
    "caching_allocator_enable", "empty_cache", "get_allocator_backend", "get_per_process_memory_fraction",
    "host_memory_stats", "host_memory_stats_as_nested_dict", "list_gpu_processes", "max_memory_allocated",
    "max_memory_cached", "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_cached",
    "memory_reserved", "memory_snapshot", "memory_stats", "memory_stats_as_nested_dict", "memory_summary",
    "reset_accumulated_host_memory_stats", "reset_accumulated_memory_stats", "reset_max_memory_allocated",
    "reset_max_memory_cached", "reset_peak_host_memory_stats", "reset_peak_memory_stats",
    "set_per_process_memory_fraction", "use_mem_pool", "is_initialized")
for _name in _MEMORY_MODULE_NAMES:
    setattr(memory, _name, globals()[_name])
del _name
