"""tandem.autocast: regions where the listed ops run in float16/bfloat16 or float32, as PyTorch's autocast.

The state is per thread and lives in C++ (src/ops/autocast.h); this class only saves and restores it around a
``with`` block or a decorated call. Which op runs in which dtype is decided in the op front ends.
"""
import collections.abc
import contextlib
import functools
import warnings

import tandem
from .. import _C

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]

_SUPPORTED_DTYPES = None  # [bfloat16, float16], built on first use (tandem's dtypes exist once _C is loaded)


def _supported_dtypes():
    global _SUPPORTED_DTYPES
    if _SUPPORTED_DTYPES is None:
        _SUPPORTED_DTYPES = [tandem.bfloat16, tandem.float16]
    return _SUPPORTED_DTYPES


# PyTorch's device types that tandem has no backend for: autocast is not available on them (False, as
# PyTorch answers for a type it knows but cannot autocast on); any other unknown name is a device-string error.
_OTHER_PYTORCH_DEVICE_TYPES = ("ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                               "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def _device_type(device_type):
    """The type of a device string ('cuda:1' -> 'cuda'), as PyTorch reads autocast's device_type; None for a
    PyTorch device type tandem does not have."""
    if device_type.split(":")[0] in _OTHER_PYTORCH_DEVICE_TYPES:
        return None
    return tandem.device(device_type).type  # a malformed string raises the device parser's RuntimeError


def is_autocast_available(device_type):
    """True for the device types autocast works on ('cpu' and 'cuda', with or without an index)."""
    kind = _device_type(device_type)
    return kind is not None and _C._is_autocast_available(kind)


class autocast:
    """Context manager and decorator: inside it, the ops PyTorch lists run in ``dtype`` (float16 by default
    on cuda, bfloat16 on cpu) or float32, on tensors of ``device_type``. Wrap the forward pass and the loss,
    not the backward (backward ops run in the dtypes the forward chose)."""

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        if not is_autocast_available(device_type):
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self._kind = _device_type(device_type)  # the C++ state is per device type: 'cuda:0' is 'cuda'
        self.fast_dtype = _C.get_autocast_dtype(self._kind) if dtype is None else dtype
        self._cache_enabled = _C.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled:
            if self._kind == "cuda":
                if not tandem.cuda.is_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                                  stacklevel=2)
                    enabled = False
                elif self.fast_dtype == tandem.bfloat16 and not getattr(tandem.cuda, "is_bf16_supported", lambda: True)():
                    raise RuntimeError(
                        "Current CUDA Device does not support bfloat16. Please switch dtype to float16.")
            elif self.fast_dtype not in _supported_dtypes():
                name = device_type.upper()
                warnings.warn(
                    f"In {name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                    f"{name} Autocast only supports dtypes of "
                    + ", ".join(map(str, _supported_dtypes())) + " currently.",
                    stacklevel=2,
                )
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        if not isinstance(self._enabled, bool):  # PyTorch's binding refuses it here, with its parser's message
            raise TypeError("set_autocast_enabled(): argument 'enabled' (position 2) must be bool, not "
                            f"{type(self._enabled).__name__}")
        self.prev_cache_enabled = _C.is_autocast_cache_enabled()
        self.prev = _C.is_autocast_enabled(self._kind)
        self.prev_fastdtype = _C.get_autocast_dtype(self._kind)
        _C.set_autocast_enabled(self._kind, self._enabled)
        _C.set_autocast_dtype(self._kind, self.fast_dtype)
        _C.autocast_increment_nesting()
        _C.set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if _C.autocast_decrement_nesting() == 0:
            _C.clear_autocast_cache()
        _C.set_autocast_enabled(self._kind, self.prev)
        _C.set_autocast_dtype(self._kind, self.prev_fastdtype)
        _C.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)"
            )

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with self:
                return func(*args, **kwargs)

        return decorate_autocast


def _cast(value, device_type, dtype):
    """``value`` with its floating tensors on ``device_type`` (float64 excepted) converted to ``dtype``,
    looking into lists, tuples and dicts (what custom_fwd(cast_inputs=...) does to forward's arguments)."""
    if isinstance(value, tandem.Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type and value.dtype != tandem.float64
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)) or type(value).__module__ == "numpy":
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        items = (_cast(v, device_type, dtype) for v in value)
        return type(value)(items) if isinstance(value, (list, tuple)) else items
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for the ``forward`` of a custom autograd Function. With ``cast_inputs``, inside an autocast
    region the floating tensor arguments are cast to it and forward runs with autocast off; without it,
    forward runs under the current autocast state (and custom_bwd replays that state for backward)."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        ctx = args[0]
        ctx._dtype = _C.get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = _C.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if _C.is_autocast_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


@contextlib.contextmanager
def _autocast_resumed():
    """Lifts the suspension the backward engine puts on autocast (its ops run in the forward's dtypes), for code
    that re-enters an autocast state inside backward: custom_bwd, activation checkpointing's recompute."""
    previous = _C._set_autocast_suspended(False)
    try:
        yield
    finally:
        _C._set_autocast_suspended(previous)


def custom_bwd(bwd=None, *, device_type):
    """Decorator for the ``backward`` of a custom autograd Function: runs it under the autocast state that
    the matching custom_fwd forward ran under."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        ctx = args[0]
        with _autocast_resumed(), autocast(device_type=device_type, enabled=ctx._fwd_used_autocast,
                                           dtype=ctx._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
