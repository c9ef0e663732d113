"""tandem.signal: PyTorch's torch.signal (the window functions of tandem.signal.windows)."""
from . import windows

__all__ = ["windows"]
