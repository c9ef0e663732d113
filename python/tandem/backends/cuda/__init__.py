"""tandem.backends.cuda: switches of the CUDA math libraries (settable in every build; they only take
effect on a real CUDA device). The attention kernel flags are in _sdp.py, the library preferences and the cuFFT
plan cache in _libraries.py."""
from ... import _C
from ._libraries import (cuFFTPlanCache, cuFFTPlanCacheManager, cufft_plan_cache,  # noqa: F401
                         preferred_blas_library, preferred_linalg_library)
from ._sdp import (SDPAParams, SDPBackend, allow_fp16_bf16_reduction_math_sdp, can_use_cudnn_attention,  # noqa: F401
                   can_use_efficient_attention, can_use_flash_attention, cudnn_sdp_enabled, enable_cudnn_sdp,
                   enable_flash_sdp, enable_math_sdp, enable_mem_efficient_sdp, flash_sdp_enabled,
                   fp16_bf16_reduction_math_sdp_allowed, is_ck_sdpa_available, is_flash_attention_available,
                   math_sdp_enabled, mem_efficient_sdp_enabled, sdp_kernel)


class _MatmulFlags:
    """``matmul.allow_tf32``: let float32 matmul use TF32 tensor cores (faster, ~10-bit mantissa products).
    False by default, as in PyTorch."""

    @property
    def allow_tf32(self):
        return _C._get_allow_tf32()

    @allow_tf32.setter
    def allow_tf32(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"allow_tf32 must be a bool, not {type(value).__name__}")
        _C._set_allow_tf32(value)

    # Reduced-precision reductions inside float16/bfloat16 products (PyTorch's defaults: allowed). Recorded
    # only: tandem's matmul kernels do not read them (docs/compat.md, "Runtime modules").
    _reduced_precision = {"allow_fp16_reduced_precision_reduction": True,
                          "allow_bf16_reduced_precision_reduction": True}

    def __getattr__(self, name):
        if name in _MatmulFlags._reduced_precision:
            return _MatmulFlags._reduced_precision[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name in _MatmulFlags._reduced_precision:
            # PyTorch also takes (allow_reduced_precision, allow_splitk); the first is the flag read back.
            flag = value[0] if isinstance(value, (tuple, list)) and value else value
            if not isinstance(flag, bool):
                raise TypeError(f"{name} expects a bool or a tuple/list of bools, but got {type(value)}")
            _MatmulFlags._reduced_precision[name] = flag
            return
        if name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        super().__setattr__(name, value)


matmul = _MatmulFlags()


def is_built():
    """True when this tandem was built with the CUDA backend (a GPU may still be missing)."""
    return _C._cuda_is_built()
