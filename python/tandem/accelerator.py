"""tandem.accelerator: the device-agnostic names current PyTorch examples start with. tandem's accelerator is
CUDA (a real GPU, or emulated devices with TANDEM_EMULATE_CUDA=N)."""
import sys

from . import _C, cuda
from . import _accelerator_memory as memory
from ._accelerator_memory import (_get_device_index, empty_cache, empty_host_cache, get_memory_info,  # noqa: F401
                                  max_memory_allocated, max_memory_reserved, memory_allocated, memory_reserved,
                                  memory_stats, reset_accumulated_memory_stats, reset_peak_memory_stats)
from ._device_streams import Stream as _Stream

__all__ = ["current_accelerator", "is_available", "device_count", "current_device_index", "set_device_index",
           "synchronize", "device_index", "current_device_idx", "set_device_idx", "current_stream", "set_stream",
           "get_device_capability", *memory.__all__]

# ``import tandem.accelerator.memory`` and ``from tandem.accelerator.memory import ...`` work as PyTorch's
# (this module is a file, not a package; the submodule lives in _accelerator_memory.py).
sys.modules[__name__ + ".memory"] = memory


def current_accelerator(check_available=False):
    """device('cuda') when tandem was built with CUDA (and, with check_available=True, a device can be used);
    None otherwise. As in PyTorch, a CUDA build answers 'cuda' even on a machine without a GPU."""
    if not (_C._cuda_is_built() or cuda.is_available()):
        return None
    if check_available and not cuda.is_available():
        return None
    return _C.device("cuda")


def is_available():
    """True when an accelerator device can be used now."""
    return cuda.is_available()


def device_count():
    """Number of accelerator devices (0 without any)."""
    return cuda.device_count()


def _require(what):
    if not cuda.is_available():
        raise RuntimeError(f"{what}: no accelerator device is available\n"
                           "hint: run on a machine with a GPU, or set TANDEM_EMULATE_CUDA=1 to test "
                           "accelerator code on the CPU")


def current_device_index():
    """Index of the calling thread's current accelerator device."""
    _require("current_device_index()")
    return cuda.current_device()


def set_device_index(device, /):
    """Makes ``device`` (an index, 'cuda:N' or tandem.device) the thread's current accelerator device."""
    _require("set_device_index()")
    cuda.set_device(device)


def synchronize(device=None, /):
    """Waits for all work queued on ``device`` (default: the current one)."""
    _require("synchronize()")
    cuda.synchronize(device)


def current_stream(device=None, /) -> _Stream:
    """The calling thread's current stream on ``device`` (an index, "cuda:N", tandem.device; None: the current
    device), as a tandem.Stream."""
    return _Stream._wrap(cuda.current_stream(_get_device_index(device, optional=True)))


def set_stream(stream: _Stream) -> None:
    """Makes ``stream`` (a tandem.Stream or tandem.cuda.Stream) current for its device on the calling thread."""
    if isinstance(stream, cuda.Stream):
        stream = _Stream._wrap(stream)
    if not isinstance(stream, _Stream):
        raise TypeError(f"set_stream(): argument 'stream' must be torch.Stream, not {type(stream).__name__}")
    if stream._cuda is None:
        _get_device_index(None, optional=True)  # without a device, PyTorch's "Found no NVIDIA driver" first
        raise ValueError(f"{stream.device.type} doesn't match the current accelerator {current_accelerator()}.")
    cuda.set_stream(stream._cuda)


def get_device_capability(device=None, /) -> dict:
    """PyTorch's capability dict of a device: {"supported_dtypes": set of the dtypes a tensor on it can have}.
    Every tandem dtype can live on every CUDA device, real or emulated; a device that cannot be used raises
    PyTorch's error."""
    cuda.get_device_properties(_get_device_index(device, optional=True))  # checks the device exists
    import tandem  # noqa: PLC0415  (the package's dtype names, complete once it has loaded)
    return {"supported_dtypes": {value for value in vars(tandem).values() if isinstance(value, _C.dtype)}}


class device_index:
    """``with tandem.accelerator.device_index(i):`` makes device i current inside the block (None: no change)."""

    def __init__(self, device, /):
        self._inner = cuda.device(device)

    def __enter__(self):
        self._inner.__enter__()
        return self

    def __exit__(self, *exc):
        return self._inner.__exit__(*exc)


current_device_idx = current_device_index  # PyTorch's older names
set_device_idx = set_device_index
