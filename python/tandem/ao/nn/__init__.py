"""tandem.ao.nn: the quantized layers (PyTorch's torch.ao.nn)."""
from . import quantized  # noqa: F401
