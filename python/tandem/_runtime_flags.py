"""Process-wide numerics switches at tandem's top level, as torch.set_float32_matmul_precision and
torch.use_deterministic_algorithms.

The float32 matmul precision is the one switch with an effect: "high" and "medium" turn on
``tandem.backends.cuda.matmul.allow_tf32`` (TF32 tensor cores on a real GPU), "highest" turns it off, and the
precision read back follows that flag when it is set directly, as PyTorch's does. The deterministic-algorithms
mode is recorded for scripts that set and query it; tandem does not yet refuse or replace nondeterministic
kernels in it (on a real GPU, ``index_put_(accumulate=True)`` and ``scatter_add_`` add with atomics).
"""
import warnings

from . import _C

__all__ = ["set_float32_matmul_precision", "get_float32_matmul_precision", "use_deterministic_algorithms",
           "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
           "set_deterministic_debug_mode", "get_deterministic_debug_mode"]

_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = ["highest"]  # the last precision set; what TF32 means when allow_tf32 is on
_deterministic = {"mode": False, "warn_only": False}


def set_float32_matmul_precision(precision):
    """"highest" (full float32 products), "high" or "medium" (TF32 tensor cores allowed on a real GPU)."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        # PyTorch warns and keeps the current setting (its text, missing space included).
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", UserWarning, stacklevel=2)
        return
    _matmul_precision[0] = precision
    _C._set_allow_tf32(precision != "highest")


def get_float32_matmul_precision():
    """The precision in force: "highest" whenever TF32 is off, else the last one set ("high" by default)."""
    if not _C._get_allow_tf32():
        return "highest"
    return _matmul_precision[0] if _matmul_precision[0] != "highest" else "high"


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Records the deterministic-algorithms mode (see the module docstring for what tandem does with it)."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, "
                        f"not {type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, "
                        f"not {type(warn_only).__name__}")
    _deterministic["mode"] = mode
    _deterministic["warn_only"] = warn_only


def are_deterministic_algorithms_enabled():
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled():
    return _deterministic["warn_only"]


_DEBUG_MODES = ("default", "warn", "error")


def set_deterministic_debug_mode(debug_mode):
    """0/"default" (off), 1/"warn" (warn_only), 2/"error": the same switch as use_deterministic_algorithms."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if not isinstance(debug_mode, int):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    if not _deterministic["mode"]:
        return 0
    return 1 if _deterministic["warn_only"] else 2
