"""tandem.nn.attention: PyTorch's switches for scaled_dot_product_attention's kernel choice.

SDPBackend and sdpa_kernel are defined with the per-kernel flags of tandem.backends.cuda (backends/cuda/_sdp.py):
``sdpa_kernel`` checks its argument as PyTorch does and sets and restores those flags, so
``torch.backends.cuda.flash_sdp_enabled()`` reads back what the block chose. tandem has one implementation of
scaled_dot_product_attention (PyTorch's math formulation, on every device), so code that asks for
FLASH_ATTENTION or EFFICIENT_ATTENTION runs, with the math kernel's results.
"""
from ...backends.cuda._sdp import SDPBackend, sdpa_kernel

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False
