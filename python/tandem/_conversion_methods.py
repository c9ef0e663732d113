"""The dtype shorthand methods (Tensor.double(), .float(), .half(), .bfloat16(), .int(), .long(), .short(),
.char(), .byte(), .bool(); cfloat/cdouble are _tensor_extras.py's) and Tensor.cpu() with PyTorch's signature: a
keyword-only memory_format (None or a torch.memory_format, preserve_format by default;
x.half(memory_format=torch.channels_last) is how channels-last models are converted) and PyTorch's TypeErrors for
positionals, unknown keywords and a self that is no tensor. The C++ bindings take no memory_format: a call without
arguments goes straight to them, one with a memory format converts through Tensor.to (which lays the result out,
tandem/_layouts.py). tandem's cpu() also takes non_blocking=True (docs/devices.md), which PyTorch's does not."""
from . import _C, _layouts

Tensor = _C.Tensor

_DTYPES = {"double": "float64", "float": "float32", "half": "float16", "bfloat16": "bfloat16", "int": "int32",
           "long": "int64", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool"}


def _self_of(name, args):
    if not args:
        raise TypeError(f"unbound method TensorBase.{name}() needs an argument")
    if not isinstance(args[0], Tensor):
        raise TypeError(f"descriptor '{name}' for 'tandem._C.TensorBase' objects doesn't apply to a "
                        f"'{type(args[0]).__name__}' object")
    return args[0]


def _memory_format(name, args, kwargs, allowed=("memory_format",)):
    """The memory_format of a shorthand call (None for the default), after PyTorch's argument checks."""
    if len(args) > 1:
        n = len(args) - 1
        raise TypeError(f"{name}() takes 0 positional arguments but {n} {'was' if n == 1 else 'were'} given")
    for key in kwargs:
        if key not in allowed:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    fmt = kwargs.get("memory_format")
    if fmt is not None:
        _layouts._check_format(name, fmt)
    return fmt


def _shorthand(name, binding, dtype):
    def method(*args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
            return binding(args[0])  # the common call: no options
        self = _self_of(name, args)
        fmt = _memory_format(name, args, kwargs)
        if fmt is None or fmt is _layouts.preserve_format:
            return binding(self)
        return self.to(dtype, memory_format=fmt)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = binding.__doc__
    return method


def _cpu_method(binding):
    def cpu(*args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], Tensor):
            return binding(args[0])
        self = _self_of("cpu", args)
        fmt = _memory_format("cpu", args, kwargs, ("memory_format", "non_blocking"))
        out = binding(self, **({"non_blocking": kwargs["non_blocking"]} if "non_blocking" in kwargs else {}))
        if fmt is None or fmt is _layouts.preserve_format:
            return out
        return out.to(memory_format=fmt)

    cpu.__doc__ = binding.__doc__
    return cpu


def install():
    for name, dtype in _DTYPES.items():
        setattr(Tensor, name, _shorthand(name, vars(Tensor)[name], getattr(_C, dtype)))
    Tensor.cpu = _cpu_method(vars(Tensor)["cpu"])
