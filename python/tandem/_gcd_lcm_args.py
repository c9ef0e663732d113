"""gcd/lcm and their in-place forms take tensors only, as PyTorch's (its parser has no Number overload for them):
`t.gcd(18)` and `torch.lcm(t, 18)` are TypeErrors naming the argument, where tandem's core reads a number as a
wrapped scalar and computed."""
from . import _C

_NAMES = ("input", "other")


def _refuse(name, label, value, position):
    where = f" (position {position})" if position else ""
    raise TypeError(f"{name}(): argument '{label}'{where} must be Tensor, not {type(value).__name__}")


def _function(core, name):
    def checked(*args, **kwargs):
        for i, value in enumerate(args[:2]):
            if not isinstance(value, _C.Tensor):
                _refuse(name, _NAMES[i], value, i + 1)
        for label in _NAMES[len(args):]:
            if label in kwargs and not isinstance(kwargs[label], _C.Tensor):
                _refuse(name, label, kwargs[label], None)
        return core(*args, **kwargs)

    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = core.__doc__
    return checked


def _method(core, name):
    def checked(self, *args, **kwargs):
        if args and not isinstance(args[0], _C.Tensor):
            _refuse(name, "other", args[0], 1)
        if not args and "other" in kwargs and not isinstance(kwargs["other"], _C.Tensor):
            _refuse(name, "other", kwargs["other"], None)
        return core(self, *args, **kwargs)

    checked.__name__ = checked.__qualname__ = name
    checked.__doc__ = core.__doc__
    return checked


def install(namespace):
    for name in ("gcd", "lcm"):
        namespace[name] = _function(getattr(_C, name), name)
        for method in (name, name + "_"):
            setattr(_C.Tensor, method, _method(getattr(_C.Tensor, method), method))
