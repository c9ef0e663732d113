"""tandem.nn.attention: PyTorch's switches for scaled_dot_product_attention's kernel choice.

tandem has one implementation of scaled_dot_product_attention (PyTorch's math formulation, on every device),
so ``sdpa_kernel`` checks its argument as PyTorch does and then changes nothing: code that asks for
FLASH_ATTENTION or EFFICIENT_ATTENTION runs, with the math kernel's results.
"""
import contextlib
import enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The kernels PyTorch can choose between, with its values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Accepts a backend or a list of them, as PyTorch's; tandem's single kernel runs inside the block."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    yield {}
