"""tandem.accelerator.memory: the accelerator's allocator statistics, as torch.accelerator.memory.

tandem's accelerator is CUDA, so these read tandem.cuda's allocator (real or emulated devices). As in PyTorch,
the statistics are empty (and the counters 0) while no accelerator device can be used, and a device may be given
as an index, "cuda:N" or tandem.device; another device type is refused with PyTorch's ValueError.
"""
import collections

from . import _C, cuda
# The running totals since the last reset_accumulated_memory_stats, shared with tandem.cuda's.
from .cuda._memory_more import reset_accumulated_stats_of, stats_since_reset

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats"]

def _get_device_index(device, optional=False):
    """PyTorch's torch.accelerator._utils._get_device_index: an int as is; a device (or its string) must be of the
    accelerator's type; no index means the current device."""
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _C.device(device)
    index = None
    if isinstance(device, _C.device):
        from .accelerator import current_accelerator  # noqa: PLC0415  (accelerator imports this module)
        accelerator = current_accelerator()
        if accelerator is None:
            raise RuntimeError("Accelerator expected")
        if accelerator.type != device.type:
            raise ValueError(f"{device.type} doesn't match the current accelerator {accelerator}.")
        index = device.index
    if index is None:
        if not optional:
            raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        return cuda.current_device()  # without a device: PyTorch's "Found no NVIDIA driver ..." error
    return index


def empty_cache() -> None:
    """Returns the allocator's cached, unused device blocks (a no-op while no device can be used)."""
    if cuda.is_available():
        _C._cuda_empty_cache()


def empty_host_cache() -> None:
    """Returns the cached, unused pinned host blocks. tandem's allocators release their caches together, so this
    also empties the device cache (as empty_cache does); a no-op while no device can be used."""
    if cuda.is_available():
        _C._cuda_empty_cache()


def memory_stats(device_index=None, /) -> "collections.OrderedDict[str, int]":
    """The device allocator's statistics, keys sorted, as PyTorch's ("allocated_bytes.all.current", ...);
    empty while no accelerator device can be used."""
    if not cuda.is_available():
        return collections.OrderedDict()
    index = _get_device_index(device_index, optional=True)
    return collections.OrderedDict(sorted(stats_since_reset(index).items()))


def memory_allocated(device_index=None, /) -> int:
    """Bytes held by live tensors on the device (0 while no device can be used)."""
    return memory_stats(device_index).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device_index=None, /) -> int:
    """Peak of memory_allocated since the start or the last reset_peak_memory_stats."""
    return memory_stats(device_index).get("allocated_bytes.all.peak", 0)


def memory_reserved(device_index=None, /) -> int:
    """Bytes the allocator holds from the device: live tensors plus its cache."""
    return memory_stats(device_index).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device_index=None, /) -> int:
    """Peak of memory_reserved since the start or the last reset_peak_memory_stats."""
    return memory_stats(device_index).get("reserved_bytes.all.peak", 0)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    """Starts the running totals (``*.allocated``, ``*.freed``, num_alloc_retries, num_ooms) afresh from 0
    (a no-op while no device can be used)."""
    if not cuda.is_available():
        return
    reset_accumulated_stats_of(_get_device_index(device_index, optional=True))


def reset_peak_memory_stats(device_index=None, /) -> None:
    """Starts the peaks afresh from the current values (a no-op while no device can be used)."""
    if not cuda.is_available():
        return
    _C._cuda_reset_peak_memory_stats(_get_device_index(device_index, optional=True))


def get_memory_info(device_index=None, /) -> "tuple[int, int]":
    """(free, total) bytes of the device, as the driver reports them; on an emulated device, its capacity less
    what tandem's allocator reserved. Raises PyTorch's error when no device can be used."""
    return cuda.mem_get_info(_get_device_index(device_index, optional=True))
