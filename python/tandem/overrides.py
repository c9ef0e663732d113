"""torch.overrides for tandem, honest about what tandem supports: the __torch_function__ protocol as a library
calls it explicitly (has_torch_function*, handle_torch_function, wrap_torch_function, TorchFunctionMode).

tandem's own functions and Tensor methods do NOT consult __torch_function__ (its ops are C++ front ends with no
Python dispatch step; an op on a Tensor subclass returns a plain tensor, docs/compat.md). So:
- has_torch_function(args) and handle_torch_function(...) follow PyTorch's rules for the arguments and mode
  stack given, which is what code that guards its own functions with them needs;
- get_overridable_functions() and get_testing_overrides() are empty: no tandem function can be overridden, and
  get_ignored_functions() is empty too, as there is no dispatch to opt out of;
- entering a TorchFunctionMode warns once that only handle_torch_function calls reach it."""
import functools
import threading
import warnings

from . import _C

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
    "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "resolve_name",
    "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function", "TorchFunctionMode",
    "BaseTorchFunctionMode",
]

_modes = threading.local()  # each thread's stack of entered TorchFunctionModes (PyTorch's is thread-local too)
_warned = []


def _mode_stack():
    if not hasattr(_modes, "stack"):
        _modes.stack = []
    return _modes.stack


class _DisabledTorchFunction:
    """torch._C._disabled_torch_function_impl: a Tensor subclass sets ``__torch_function__`` to it to opt out of the
    protocol (torch_geometric's Index and EdgeIndex do); such a type counts as not implementing __torch_function__,
    and calling it runs func as is. A callable object rather than a function, so that as a class attribute it is
    not bound as a method (PyTorch's is a builtin)."""

    def __call__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))

    def __repr__(self):
        return "<built-in function _disabled_torch_function_impl>"


_disabled_torch_function_impl = _DisabledTorchFunction()


def _implements_torch_function(kind):
    found = getattr(kind, "__torch_function__", None)
    return found is not None and found is not _disabled_torch_function_impl


def _overloaded_args(relevant_args):
    """The arguments whose type defines __torch_function__, one per type, subclasses before their superclasses
    and otherwise in the order given (PyTorch's order of calling them)."""
    chosen, types = [], set()
    for arg in relevant_args:
        kind = type(arg)
        if kind in types or not _implements_torch_function(kind):
            continue
        types.add(kind)
        at = next((i for i, old in enumerate(chosen) if issubclass(kind, type(old))), len(chosen))
        chosen.insert(at, arg)
    return chosen


def has_torch_function(relevant_args):
    """True when there are arguments and a TorchFunctionMode is active, or an argument's type implements
    __torch_function__ (a plain tandem Tensor or Parameter does not)."""
    if not isinstance(relevant_args, (tuple, list)):
        raise TypeError("expected a sequence")
    if not relevant_args:
        return False
    return bool(_mode_stack()) or any(_implements_torch_function(type(arg)) for arg in relevant_args)


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the active mode's __torch_function__ (with that mode popped while it runs), then each overloaded
    argument's, until one returns something other than NotImplemented; TypeError when none does."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    stack = _mode_stack()
    if stack:
        mode = stack.pop()
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            stack.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    message = (f"no implementation found for '{name}' on types that implement __torch_function__: "
               f"{[type(arg) for arg in overloaded]}")
    if stack:
        message += f" nor in mode {stack[-1]}"
    raise TypeError(message)


def wrap_torch_function(dispatcher):
    """Decorator: the function hands its call to handle_torch_function when dispatcher(*args, **kwargs) names an
    argument that implements __torch_function__."""
    def decorate(func):
        @functools.wraps(func)
        def wrapped(*args, **kwargs):
            relevant = dispatcher(*args, **kwargs)
            if has_torch_function(relevant):
                return handle_torch_function(wrapped, relevant, *args, **kwargs)
            return func(*args, **kwargs)

        return wrapped

    return decorate


def is_tensor_like(inp):
    """A tandem Tensor (or subclass), or anything whose type implements __torch_function__."""
    return isinstance(inp, _C.Tensor) or hasattr(type(inp), "__torch_function__")  # the disabled impl counts


def get_ignored_functions():
    """Functions that cannot be overridden: empty, since no tandem function dispatches (see the module doc)."""
    return set()


def get_overridable_functions():
    """Namespace -> functions overridable via __torch_function__: none in tandem."""
    return {}


def get_testing_overrides():
    """Function -> a dummy override with its signature, for every overridable function: none in tandem."""
    return {}


def resolve_name(f):
    """The dotted name of f (module and qualified name), or None for an object without them."""
    module, name = getattr(f, "__module__", None), getattr(f, "__qualname__", None)
    return f"{module}.{name}" if module and name else None


def is_tensor_method_or_property(func):
    """True for a function found on tandem.Tensor (a property's __get__ included, as in PyTorch)."""
    if getattr(func, "__name__", None) == "__get__":
        return True
    return any(value is func for value in vars(_C.Tensor).values())


class TorchFunctionMode:
    """A context manager whose __torch_function__ handle_torch_function calls first while it is entered (modes
    nest: the innermost runs, with itself popped). tandem's own functions do not consult it."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        if not _warned:
            _warned.append(True)
            warnings.warn("tandem's functions do not dispatch to __torch_function__: a TorchFunctionMode sees only "
                          "calls made through tandem.overrides.handle_torch_function", stacklevel=2)
        _mode_stack().append(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _mode_stack().pop()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function it sees unchanged (subclass it to observe calls)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
