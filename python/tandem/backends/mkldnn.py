"""tandem.backends.mkldnn, as torch.backends.mkldnn: tandem has no oneDNN (MKL-DNN) tensor layout or
convolutions (its larger float32 matrix products may run through oneDNN's sgemm: docs/core.md), so this backend
is never available and verbose mode cannot be switched on. The flags keep PyTorch's defaults and checks so scripts that
set them (``with torch.backends.mkldnn.flags(enabled=False):``) run unchanged; they select nothing in tandem.
``allow_tf32`` reads back None, as PyTorch's does on a build without oneDNN TF32 (Intel GPU) support.
"""
import contextlib
import sys
import types

__all__ = ["is_available", "is_acl_available", "verbose", "set_flags", "flags", "VERBOSE_OFF", "VERBOSE_ON",
           "VERBOSE_ON_CREATION"]

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

_PRECISIONS = ("ieee", "tf32", "bf16", "none")
_state = {"enabled": True, "deterministic": False, "fp32_precision": "none"}
# The setter names PyTorch's messages give.
_SETTER_NAMES = {"enabled": "set_enabled_mkldnn", "deterministic": "set_deterministic_mkldnn",
                 "allow_tf32": "_set_onednn_allow_tf32"}


def _set(name, value):
    if name == "fp32_precision":
        if not isinstance(value, str):
            raise TypeError(f"fp32_precision must be a str, not {type(value).__name__}")
        if value not in _PRECISIONS:
            raise RuntimeError(f"Unknown precision: {value}")
    elif not isinstance(value, bool):
        raise RuntimeError(f"{_SETTER_NAMES[name]} expects a bool, but got {type(value).__name__}")
    if name != "allow_tf32":  # checked, then dropped: there is no oneDNN TF32 path to allow
        _state[name] = value


def is_available():
    """False: tandem has no oneDNN (MKL-DNN) layout or kernels of its own (``to_mkldnn`` and the like)."""
    return False


def is_acl_available():
    """False: no oneDNN, so no Arm Compute Library behind it either."""
    return False


class verbose:  # noqa: N801  (PyTorch's name)
    """``with tandem.backends.mkldnn.verbose(level):`` -- VERBOSE_OFF does nothing; any other level raises, as
    PyTorch's does when oneDNN cannot report."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        if self.level == VERBOSE_OFF:
            return None
        raise AssertionError("Failed to set MKLDNN into verbose mode. Please consider to disable this verbose scope.")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False


def set_flags(_enabled=None, _deterministic=None, _allow_tf32=None, _fp32_precision="none"):
    """Sets the flags given (None: unchanged) and returns the previous ones, as PyTorch's."""
    orig_flags = (_state["enabled"], _state["deterministic"], None, _state["fp32_precision"])
    for name, value in (("enabled", _enabled), ("deterministic", _deterministic), ("allow_tf32", _allow_tf32),
                        ("fp32_precision", _fp32_precision)):
        if value is not None:
            _set(name, value)
    return orig_flags


@contextlib.contextmanager
def flags(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"):
    """Sets the flags for the duration of the ``with`` block and restores them after."""
    orig_flags = set_flags(enabled, deterministic, allow_tf32, fp32_precision)
    try:
        yield
    finally:
        set_flags(*orig_flags)


class _MkldnnModule(types.ModuleType):
    """The module's class: the flags are attributes whose assignments are checked like PyTorch's."""

    def __getattr__(self, name):
        if name in _state:
            return _state[name]
        if name == "allow_tf32":
            return None
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in _state or name == "allow_tf32":
            _set(name, value)
        else:
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _MkldnnModule
