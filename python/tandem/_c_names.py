"""Names library code reaches as torch._C.X that are bookkeeping, not math, so tandem writes them in Python and
adds them to tandem._C: the usage-telemetry hooks (torchmetrics' Metric and torchvision's models call
_log_api_usage_once), the tracer's state (pyro asks _get_tracing_state before filtering tracer warnings) and the
__torch_function__ opt-out of Tensor subclasses (torch_geometric's Index and EdgeIndex) and the switches that turn
__torch_function__ dispatch off (DisableTorchFunctionSubclass, DisableTorchFunction: tandem.overrides), and
_C._nn._parse_to (torchkbnufft's complex-aware Module.to reads Module.to's arguments with it) with the
_C._nn.upsample_* ops (fvcore's tests), which run F.interpolate."""
import sys
import types

from . import jit, overrides


def _log_api_usage_once(*args):
    """PyTorch's usage telemetry: tandem logs nothing, and checks the argument as PyTorch does."""
    if len(args) != 1:
        raise TypeError(f"tandem._C._log_api_usage_once() takes exactly one argument ({len(args)} given)")
    if not isinstance(args[0], str):
        raise TypeError("bad argument type for built-in operation")


def _log_api_usage_metadata(*args):
    ok = (len(args) == 2 and isinstance(args[0], str) and hasattr(args[1], "items")
          and all(isinstance(k, str) and isinstance(v, str) for k, v in args[1].items()))
    if not ok:
        shown = ", ".join(repr(a) for a in args)
        raise TypeError("_log_api_usage_metadata(): incompatible function arguments. The following argument types "
                        "are supported:\n    1. (arg0: str, arg1: collections.abc.Mapping[str, str]) -> None\n\n"
                        f"Invoked with: {shown}")


class TracingState:
    """What _get_tracing_state returns while tandem.jit.trace runs the traced function (PyTorch's holds the graph
    being recorded; tandem's trace records none)."""

    def __repr__(self):
        return "<tandem._C.TracingState (jit.trace is running the function eagerly)>"


_TRACING = TracingState()


def _get_tracing_state(*args):
    """None, except while tandem.jit.trace runs its function."""
    if args:
        shown = ", ".join(repr(a) for a in args)
        raise TypeError("_get_tracing_state(): incompatible function arguments. The following argument types are "
                        f"supported:\n    1. () -> tandem._C.TracingState\n\nInvoked with: {shown}")
    return _TRACING if jit.is_tracing() else None


def _parse_to(*args, memory_format=None, **kwargs):
    """(device, dtype, non_blocking, memory_format) from Module.to's arguments, as PyTorch's torch._C._nn._parse_to:
    a device given as a string or an index becomes a device object (an index is a cuda device's)."""
    from . import memory_format as memory_format_type
    from .nn.modules import module

    if memory_format is not None and not isinstance(memory_format, memory_format_type):
        module._parse_to(*args, **kwargs, memory_format=memory_format)  # raises to()'s TypeError, naming it
    device, dtype, non_blocking = module._parse_to(*args, **kwargs)
    if device is not None and not isinstance(device, module._C.device):
        device = module._C.device(device)
    return device, dtype, non_blocking, memory_format


def _upsample(name, mode, dims):
    """torch._C._nn.upsample_<mode><dims>d (fvcore's transform tests call them for reference images), through
    F.interpolate: (input, output_size, [align_corners,] scale_factors) or (input, output_size, [align_corners,]
    *scales), with PyTorch's errors for a wrong output_size."""
    def upsample(input, output_size, *rest):
        from .nn import functional

        kwargs = {"mode": mode}
        if mode != "nearest":
            kwargs["align_corners"], rest = rest[0], rest[1:]
        factors = rest[0] if len(rest) == 1 and isinstance(rest[0], (list, tuple)) else None
        scales = None if factors is not None or not any(v is not None for v in rest) else list(rest)
        if output_size is not None and len(output_size) != dims:
            raise RuntimeError(f"It is expected output_size equals to {dims}, but got size {len(output_size)}")
        if (output_size is None) == (factors is None) and scales is None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if output_size is None or scales is not None:
            factors = list(factors if factors is not None else scales)
            if output_size is not None and [int(n * f) for n, f in zip(input.shape[2:], factors)] != list(output_size):
                raise NotImplementedError(f"{name}: tandem takes scales only with the output_size they give\n"
                                          "hint: pass output_size alone (or the scales alone)")
            return functional.interpolate(input, scale_factor=factors, recompute_scale_factor=False, **kwargs)
        return functional.interpolate(input, size=list(output_size), **kwargs)

    upsample.__name__ = upsample.__qualname__ = name
    return upsample


def _nn_namespace(c_module):
    """tandem._C._nn, PyTorch's namespace of nn's C functions: the argument reader and the upsampling ops that
    libraries call directly."""
    nn_c = types.ModuleType(f"{c_module.__name__}._nn")
    _parse_to.__module__ = nn_c.__name__
    nn_c._parse_to = _parse_to
    for name, mode, dims in (("upsample_nearest1d", "nearest", 1), ("upsample_nearest2d", "nearest", 2),
                             ("upsample_nearest3d", "nearest", 3), ("upsample_linear1d", "linear", 1),
                             ("upsample_bilinear2d", "bilinear", 2), ("upsample_trilinear3d", "trilinear", 3),
                             ("upsample_bicubic2d", "bicubic", 2)):
        op = _upsample(name, mode, dims)
        op.__module__ = nn_c.__name__
        setattr(nn_c, name, op)
    sys.modules[nn_c.__name__] = nn_c
    return nn_c


def install(c_module):
    c_module._nn = _nn_namespace(c_module)
    c_module._log_api_usage_once = _log_api_usage_once
    c_module._log_api_usage_metadata = _log_api_usage_metadata
    c_module._get_tracing_state = _get_tracing_state
    c_module.TracingState = TracingState
    c_module._disabled_torch_function_impl = overrides._disabled_torch_function_impl
    c_module.DisableTorchFunctionSubclass = overrides.DisableTorchFunctionSubclass
    c_module.DisableTorchFunction = overrides.DisableTorchFunction
    # PyTorch's Tensor derives from the C type TensorBase (once _TensorBase); isinstance checks against it (and
    # subclasses built on it) accept every tandem tensor, whose C type is Tensor itself
    c_module.TensorBase = c_module._TensorBase = c_module.Tensor
