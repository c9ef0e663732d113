"""tandem.accelerator: the device-agnostic names current PyTorch examples start with. tandem's accelerator is
CUDA (a real GPU, or emulated devices with TANDEM_EMULATE_CUDA=N)."""
from . import _C, cuda

__all__ = ["current_accelerator", "is_available", "device_count", "current_device_index", "set_device_index",
           "synchronize", "device_index", "current_device_idx", "set_device_idx"]


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
