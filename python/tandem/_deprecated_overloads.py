"""PyTorch's deprecated positional overloads that old programs still use (custom optimizers, the char-RNN
tutorial): t.add_(alpha, other), t.sub(alpha, other), torch.add(input, alpha, other), t.addcmul_(value, t1, t2),
torch.addcdiv(input, value, t1, t2), ... Each forwards to the keyword form (alpha=/value=) after PyTorch's
warning, which PyTorch gives once per process whichever overload comes first.

add/sub (tandem.add, Tensor.add, Tensor.add_, ...) take theirs as second nanobind overloads in
python/src/elementwise.cpp, tried only when the current signature refuses a call, so the hot methods keep no Python
wrapper; they call warn_once below. addcmul/addcdiv are Python compositions and are wrapped here."""
import numbers
import warnings

from ._C import Tensor

_warned = []

# name -> (scalar's name, names of the tensors after it)
_SIGNATURES = {"add": ("alpha", ("other",)), "sub": ("alpha", ("other",)),
               "addcmul": ("value", ("tensor1", "tensor2")), "addcdiv": ("value", ("tensor1", "tensor2"))}
_WRAPPED = ("addcmul", "addcdiv")


def _signatures(name, function):
    scalar, tensors = _SIGNATURES[name[:-1] if name.endswith("_") else name]
    head, out = ("Tensor input, ", ", Tensor out = None") if function else ("", "")
    listed = ", ".join(f"Tensor {t}" for t in tensors)
    old = f"{name}({head}Number {scalar}, {listed}{', *' + out if function else ''})"
    return old, f"{name}({head}{listed}, *, Number {scalar} = 1{out})"


def warn_once(name, function, stacklevel=2):
    """PyTorch's deprecation warning for the scalar-first overload `name` (a Tensor method unless `function`), given
    once per process; stacklevel 2 names the frame that called the C++ overload (C++ frames are not Python's)."""
    if _warned:
        return
    _warned.append(name)
    old, new = _signatures(name, function)
    warnings.warn(f"This overload of {name} is deprecated:\n\t{old}\nConsider using one of the following "
                  f"signatures instead:\n\t{new}", UserWarning, stacklevel=stacklevel)


def _is_deprecated_call(args, count):
    """True for (Number, Tensor...) positionals: the scalar first, then the operation's tensors."""
    return (len(args) == count + 1 and isinstance(args[0], numbers.Number)
            and all(isinstance(a, Tensor) for a in args[1:]))


def _method(name, current):
    scalar, tensors = _SIGNATURES[name.rstrip("_")]

    count = len(tensors)

    def method(self, *args, **kwargs):
        # The length test first: the usual call has fewer positionals, and this wrapper sits on a hot path.
        if len(args) > count and _is_deprecated_call(args, count) and scalar not in kwargs:
            warn_once(name, function=False, stacklevel=3)
            return current(self, *args[1:], **{scalar: args[0]}, **kwargs)
        return current(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = current.__doc__
    return method


def _function(name, current):
    scalar, tensors = _SIGNATURES[name]

    count = len(tensors)

    def function(input, *args, **kwargs):
        if len(args) > count and _is_deprecated_call(args, count) and scalar not in kwargs:
            warn_once(name, function=True, stacklevel=3)
            return current(input, *args[1:], **{scalar: args[0]}, **kwargs)
        return current(input, *args, **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = current.__doc__
    return function


def install(namespace):
    """Wraps tandem.addcmul/addcdiv and the Tensor methods (in-place forms included) once."""
    if getattr(Tensor.addcmul, "__module__", None) == __name__:
        return
    for name in _WRAPPED:
        namespace[name] = _function(name, namespace[name])
        for method_name in (name, name + "_"):
            wrapped = _method(method_name, getattr(Tensor, method_name))
            wrapped.__module__ = __name__
            setattr(Tensor, method_name, wrapped)
