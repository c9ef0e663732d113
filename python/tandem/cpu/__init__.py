"""tandem.cpu: the CPU device's namespace (as torch.cpu); today it holds the amp spelling tandem.cpu.amp.
Build and ISA details live in tandem.backends.cpu."""
from . import amp  # noqa: F401


def is_available():
    """The CPU is always available."""
    return True


def device_count():
    """One CPU device, as PyTorch reports."""
    return 1


def current_device():
    return "cpu"


def synchronize(device=None):
    """CPU work is done when it returns: nothing to wait for."""
