"""scaled_dot_product_attention's kernel switches: PyTorch's SDPBackend, the per-kernel enable flags of
torch.backends.cuda, their priority order, and the selection torch.nn.attention.sdpa_kernel makes with them.

tandem has one attention kernel (src/ops/attention.cpp: PyTorch's math formulation, computed in blocks), so
there is no choice to make: the flags are kept, checked and read back as PyTorch's, and sdpa_kernel sets and
restores them, but every call runs that kernel whatever they say (docs/compat.md, "Runtime modules").
"""
import contextlib
import enum
import warnings

__all__ = ["SDPBackend", "SDPAParams", "flash_sdp_enabled", "enable_flash_sdp", "mem_efficient_sdp_enabled",
           "enable_mem_efficient_sdp", "math_sdp_enabled", "enable_math_sdp", "cudnn_sdp_enabled",
           "enable_cudnn_sdp", "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed",
           "is_flash_attention_available", "can_use_flash_attention", "can_use_efficient_attention",
           "can_use_cudnn_attention", "is_ck_sdpa_available", "sdp_kernel", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The kernels PyTorch can choose between, with its values."""
    __str__ = enum.Enum.__str__  # "SDPBackend.MATH", as PyTorch's enum prints
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# PyTorch's defaults: every kernel allowed, tried in this order; no fp16/bf16 reduction inside the math kernel.
_enabled = {SDPBackend.CUDNN_ATTENTION: True, SDPBackend.FLASH_ATTENTION: True,
            SDPBackend.EFFICIENT_ATTENTION: True, SDPBackend.MATH: True, SDPBackend.OVERRIDEABLE: True}
_priority = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
             SDPBackend.CUDNN_ATTENTION, SDPBackend.OVERRIDEABLE]
_math_fp16_bf16_reduction = [False]


def _set(backend, enabled, setter_name):
    # PyTorch's messages: its flash, mem_efficient and math setters all name set_sdp_use_math.
    if not isinstance(enabled, bool):
        raise RuntimeError(f"{setter_name} expects a bool, but got {type(enabled).__name__}")
    _enabled[backend] = enabled


def flash_sdp_enabled():
    """Whether FlashAttention may be chosen (recorded only: tandem has no FlashAttention kernel)."""
    return _enabled[SDPBackend.FLASH_ATTENTION]


def enable_flash_sdp(enabled: bool):
    _set(SDPBackend.FLASH_ATTENTION, enabled, "set_sdp_use_math")


def mem_efficient_sdp_enabled():
    """Whether the memory-efficient kernel may be chosen (recorded only)."""
    return _enabled[SDPBackend.EFFICIENT_ATTENTION]


def enable_mem_efficient_sdp(enabled: bool):
    _set(SDPBackend.EFFICIENT_ATTENTION, enabled, "set_sdp_use_math")


def math_sdp_enabled():
    """Whether the math kernel may be chosen (recorded only: tandem's one kernel runs either way)."""
    return _enabled[SDPBackend.MATH]


def enable_math_sdp(enabled: bool):
    _set(SDPBackend.MATH, enabled, "set_sdp_use_math")


def cudnn_sdp_enabled():
    """Whether cuDNN attention may be chosen (recorded only: tandem has no cuDNN)."""
    return _enabled[SDPBackend.CUDNN_ATTENTION]


def enable_cudnn_sdp(enabled: bool):
    _set(SDPBackend.CUDNN_ATTENTION, enabled, "set_sdp_use_cudnn")


def fp16_bf16_reduction_math_sdp_allowed():
    """Whether the math kernel may reduce in float16/bfloat16 (recorded only: tandem's accumulates in float32)."""
    return _math_fp16_bf16_reduction[0]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool):
    if not isinstance(enabled, bool):
        raise RuntimeError(f"set_sdp_use_math expects a bool, but got {type(enabled).__name__}")
    _math_fp16_bf16_reduction[0] = enabled


class SDPAParams:
    """The arguments of one scaled_dot_product_attention call, as the can_use_* queries take them."""

    def __init__(self, query, key, value, attn_mask, dropout, is_causal, enable_gqa, /):
        self.query, self.key, self.value, self.attn_mask = query, key, value, attn_mask
        self.dropout, self.is_causal, self.enable_gqa = float(dropout), bool(is_causal), bool(enable_gqa)


SDPAParams.__module__ = "tandem.backends.cuda"


def is_flash_attention_available() -> bool:
    """False: tandem is built without a FlashAttention kernel."""
    return False


def is_ck_sdpa_available() -> bool:
    """False: tandem has no Composable Kernel (ROCm) attention."""
    return False


def _cannot_use(params, debug, kernel):
    if not isinstance(params, SDPAParams):
        raise TypeError(f"expected params to be torch.backends.cuda.SDPAParams, but got {type(params).__name__}")
    if debug:
        warnings.warn(f"tandem has no {kernel} kernel: scaled_dot_product_attention runs its own kernel",
                      UserWarning, stacklevel=3)
    return False


def can_use_flash_attention(params: SDPAParams, debug: bool = False) -> bool:
    """False: tandem has no FlashAttention kernel (``debug=True`` warns why)."""
    return _cannot_use(params, debug, "FlashAttention")


def can_use_efficient_attention(params: SDPAParams, debug: bool = False) -> bool:
    """False: tandem has no memory-efficient attention kernel (``debug=True`` warns why)."""
    return _cannot_use(params, debug, "memory-efficient attention")


def can_use_cudnn_attention(params: SDPAParams, debug: bool = False) -> bool:
    """False: tandem has no cuDNN (``debug=True`` warns why)."""
    return _cannot_use(params, debug, "cuDNN attention")


def _current_backends(with_priority):
    enabled = [b for b in _enabled if _enabled[b]]
    return sorted(enabled, key=_priority.index) if with_priority else enabled


def _select(backends, set_priority):
    for backend in _enabled:
        _enabled[backend] = backend in backends
    if set_priority:
        _priority[:] = list(backends) + [b for b in _priority if b not in backends]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """torch.nn.attention.sdpa_kernel: allows only ``backends`` (a backend or a list) inside the block, in that
    order when ``set_priority``, and restores the previous flags after."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    backends = list(dict.fromkeys([backends] if isinstance(backends, SDPBackend) else backends))
    previous, previous_priority = _current_backends(set_priority), list(_priority)
    try:
        _select(backends, set_priority)
        yield {}
    finally:
        _select(previous, False)
        _priority[:] = previous_priority


def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
               enable_cudnn: bool = True):
    """The deprecated spelling of sdpa_kernel, with one bool per kernel (PyTorch's FutureWarning)."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be "
                  "removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated "
                  "signature.", FutureWarning, stacklevel=2)
    chosen = [(enable_flash, SDPBackend.FLASH_ATTENTION), (enable_mem_efficient, SDPBackend.EFFICIENT_ATTENTION),
              (enable_math, SDPBackend.MATH), (enable_cudnn, SDPBackend.CUDNN_ATTENTION)]
    return sdpa_kernel([backend for wanted, backend in chosen if wanted])
