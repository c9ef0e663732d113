"""tandem.backends.cudnn: PyTorch's cuDNN switches, so training scripts that set them run unchanged.

tandem has no cuDNN: its convolutions, pooling and normalisations are its own kernels on every device. The flags
are kept with PyTorch's defaults and checks (scripts read them back and pass them to ``flags``), but setting them
changes nothing: tandem's kernels do not autotune (``benchmark``) and pick no algorithm by them. ``version()`` is
None, as PyTorch reports a build without cuDNN; ``is_available()`` follows ``tandem.cuda.is_available()`` so
``if cudnn.is_available():`` branches take the GPU path exactly when there is a GPU.
"""
import contextlib
import sys
import types

__all__ = ["is_available", "version", "flags", "is_acceptable", "enabled", "benchmark", "benchmark_limit",
           "deterministic", "allow_tf32"]

# PyTorch's defaults.
_state = {"enabled": True, "benchmark": False, "benchmark_limit": 10, "deterministic": False, "allow_tf32": True}

# The setter names PyTorch's errors give (allow_tf32's really says cublas in PyTorch 2.x).
_SETTER_NAMES = {"enabled": "set_enabled_cudnn", "benchmark": "set_benchmark_cudnn",
                 "deterministic": "set_deterministic_cudnn", "allow_tf32": "set_allow_tf32_cublas",
                 "benchmark_limit": "set_benchmark_limit_cudnn"}


def _check(name, value):
    if name == "benchmark_limit":
        if not isinstance(value, int) or isinstance(value, bool):
            raise RuntimeError(f"{_SETTER_NAMES[name]} expects an int, but got {type(value).__name__}")
    elif not isinstance(value, bool):
        raise RuntimeError(f"{_SETTER_NAMES[name]} expects a bool, but got {type(value).__name__}")


def is_available():
    """True when a CUDA device is usable (tandem's own kernels stand in for cuDNN there)."""
    from .. import cuda
    return cuda.is_available()


def version():
    """None: tandem links no cuDNN library (PyTorch returns None the same way in a build without it)."""
    return None


def is_acceptable(tensor):
    """False: no tensor is ever handed to cuDNN in tandem."""
    return False


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False, allow_tf32=True):
    """Sets the flags for the duration of the ``with`` block and restores them after, as PyTorch's."""
    new = {"enabled": enabled, "benchmark": benchmark, "benchmark_limit": benchmark_limit,
           "deterministic": deterministic, "allow_tf32": allow_tf32}
    for name, value in new.items():
        if value is not None:  # PyTorch's flags() leaves a None benchmark_limit unchanged
            _check(name, value)
    saved = dict(_state)
    _state.update({k: v for k, v in new.items() if v is not None})
    try:
        yield
    finally:
        _state.update(saved)


class _CudnnModule(types.ModuleType):
    """The module's class: the flags are properties so assignments are checked like PyTorch's."""

    def __getattr__(self, name):
        if name in _state:
            return _state[name]
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in _state:
            _check(name, value)
            _state[name] = value
        else:
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _CudnnModule
