"""histc's `min` and `max` are Scalars in PyTorch, and its parser takes a 0-dim tensor that does not require grad
as one (`torch.histc(d, bins, min=d.min(), max=d.max())`, as pytorch-metric-learning writes it); tandem's binding
reads a Python number only. Other tensors are refused with PyTorch's message."""
from . import _C

_FUNCTION_ARGS = ("input", "bins", "min", "max")
_METHOD_ARGS = _FUNCTION_ARGS[1:]


def _scalars(args, kwargs, names):
    args = list(args)
    for position, name in enumerate(names, start=1):
        in_args = position <= len(args)
        value = args[position - 1] if in_args else kwargs.get(name)
        if name not in ("min", "max") or not isinstance(value, _C.Tensor):
            continue
        if value.dim() != 0 or value.requires_grad:
            where = f" (position {position})" if in_args else ""
            raise TypeError(f"histc(): argument '{name}'{where} must be Number, not Tensor")
        if in_args:
            args[position - 1] = value.item()
        else:
            kwargs[name] = value.item()
    return args, kwargs


def install(namespace):
    core_function, core_method = _C.histc, _C.Tensor.histc

    def histc(*args, **kwargs):
        args, kwargs = _scalars(args, kwargs, _FUNCTION_ARGS)
        return core_function(*args, **kwargs)

    def histc_method(self, *args, **kwargs):
        args, kwargs = _scalars(args, kwargs, _METHOD_ARGS)
        return core_method(self, *args, **kwargs)

    histc.__doc__ = core_function.__doc__
    histc_method.__name__ = histc_method.__qualname__ = "histc"
    histc_method.__doc__ = core_method.__doc__
    namespace["histc"] = histc
    _C.Tensor.histc = histc_method
