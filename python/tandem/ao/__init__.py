"""tandem.ao: dynamic quantization (PyTorch's torch.ao.quantization.quantize_dynamic and its layers)."""
from . import nn, quantization  # noqa: F401
