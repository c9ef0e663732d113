"""tandem.backends.cpu: which build of the CPU kernels runs, as torch.backends.cpu.

The CPU kernels are compiled once per capability (baseline x86-64, AVX2, AVX-512) and the best one the CPU
runs is chosen at import; TANDEM_CPU_CAPABILITY=baseline|avx2|avx512 forces one (docs/core.md).
"""
import warnings

from .. import _C

__all__ = ["get_cpu_capability", "capability_info"]

# PyTorch's spellings, which code written for torch.backends.cpu compares against.
_TORCH_NAMES = {"baseline": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}


def get_cpu_capability() -> str:
    """The capability the CPU kernels run with: "DEFAULT" (baseline), "AVX2" or "AVX512", as PyTorch."""
    return _TORCH_NAMES[_C._cpu_capability()[0]]


def capability_info() -> dict:
    """tandem's own names: the chosen capability, those this CPU runs, those this build has, and why
    TANDEM_CPU_CAPABILITY was not followed (empty when it was or is unset)."""
    chosen, supported, built, note = _C._cpu_capability()
    return {"chosen": chosen, "supported": list(supported), "built": list(built), "note": note}


def _warn_if_env_ignored():
    note = _C._cpu_capability()[3]
    if note:
        warnings.warn(note, RuntimeWarning, stacklevel=3)


_warn_if_env_ignored()
