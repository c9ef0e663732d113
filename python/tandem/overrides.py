"""torch.overrides for tandem: PyTorch's __torch_function__ protocol.

tandem's public functions (tandem.X, tandem.linalg.X, tandem.special.X, tandem.fft.X) and Tensor methods dispatch
to __torch_function__ as PyTorch's do (python/src/torch_function.cpp; docs/compat.md "__torch_function__"): when
an argument's type implements it (a Tensor subclass, or any object such as linear_operator's LinearOperator), or a
TorchFunctionMode is entered, the call goes to handle_torch_function here. A plain Tensor subclass gets
Tensor.__torch_function__, which runs the function with dispatch off and gives results the subclass's type;
nn.Parameter opts out (``__torch_function__ = _disabled_torch_function_impl``), so ops on parameters return
plain tensors. Functions that make tensors from data or settings (zeros, tensor, manual_seed, ...) do not
dispatch, as in PyTorch: get_ignored_functions() names them."""
import functools
import inspect
import threading
import types as pytypes
import warnings
import weakref

from . import _C, _dispatch_forms

__all__ = [
    "get_ignored_functions", "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
    "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "resolve_name",
    "is_tensor_like", "is_tensor_method_or_property", "wrap_torch_function", "TorchFunctionMode",
    "BaseTorchFunctionMode", "get_default_nowrap_functions",
]

_modes = threading.local()  # each thread's stack of entered TorchFunctionModes (PyTorch's is thread-local too)


def _mode_stack():
    if not hasattr(_modes, "stack"):
        _modes.stack = []
    return _modes.stack


def _push_mode(mode):
    stack = _mode_stack()
    stack.append(mode)
    _C._set_torch_function_mode_depth(len(stack))  # the C++ check reads the depth, not the stack


def _pop_mode():
    stack = _mode_stack()
    if not stack:  # a mode's __exit__ called without its __enter__
        raise RuntimeError("trying to pop from empty mode stack")
    mode = stack.pop()
    _C._set_torch_function_mode_depth(len(stack))
    return mode


def _get_current_function_mode_stack():
    """The TorchFunctionModes entered in this thread, outermost first."""
    return list(_mode_stack())


def _get_current_function_mode():
    stack = _mode_stack()
    return stack[-1] if stack else None


class DisableTorchFunctionSubclass:
    """torch._C.DisableTorchFunctionSubclass: within it, arguments' __torch_function__ is not called (modes
    still are); Tensor.__torch_function__ runs the function inside it."""

    _subclass, _mode = False, None  # None: the modes' state unchanged
    # What __exit__ restores when it comes without an __enter__: dispatch on, PyTorch's initial state.
    _previous = (True, True)

    def __init__(self, *args, **kwargs):
        pass  # PyTorch's constructor takes and ignores any arguments

    def __enter__(self):
        self._previous = _C._set_torch_function_state(self._subclass, self._mode)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_torch_function_state(*self._previous)


class DisableTorchFunction(DisableTorchFunctionSubclass):
    """torch._C.DisableTorchFunction: within it, neither arguments' nor modes' __torch_function__ is called."""

    _mode = False


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


_MISSING = object()


def _implements_torch_function(arg):
    """PyTorch reads __torch_function__ through the argument: an attribute that cannot be read (a property that
    raises) does not count, any other value does (None too: calling it is then the error)."""
    try:
        found = getattr(arg, "__torch_function__", _MISSING)
    except Exception:  # noqa: BLE001 - PyTorch's lookup clears whatever the attribute raised
        return False
    return found is not _MISSING and found is not _disabled_torch_function_impl


def _overloaded_args(relevant_args):
    """The arguments that implement __torch_function__ (tandem.Tensor's own included, as in PyTorch), one per
    type, subclasses before their superclasses and otherwise in the order given (PyTorch's order of calling
    them)."""
    chosen, types = [], set()
    for arg in relevant_args:
        kind = type(arg)
        if kind in types or not _implements_torch_function(arg):
            continue
        types.add(kind)
        at = next((i for i, old in enumerate(chosen) if issubclass(kind, type(old))), len(chosen))
        chosen.insert(at, arg)
    return chosen


def has_torch_function(relevant_args):
    """True when a TorchFunctionMode is entered, or an argument's type implements __torch_function__ (a plain
    tandem Tensor and nn.Parameter do not count), unless DisableTorchFunction(Subclass) turned dispatch off."""
    if relevant_args is None:  # the binding refuses None by its own types; PyTorch's message for any non-iterable
        raise TypeError("expected a sequence")
    return _C._has_torch_function(relevant_args)


has_torch_function_unary = _C._has_torch_function_unary
has_torch_function_variadic = _C._has_torch_function_variadic


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the innermost entered mode's __torch_function__ (with that mode popped while it runs), then each
    overloaded argument's, until one returns something other than NotImplemented; TypeError when none does."""
    result, mode, overloaded = _try_handlers(public_api, relevant_args, args, kwargs)
    if result is not NotImplemented:
        return result
    name = f"{getattr(public_api, '__module__', None)}.{getattr(public_api, '__name__', public_api)}"
    message = (f"no implementation found for '{name}' on types that implement __torch_function__: "
               f"{[type(arg) for arg in overloaded]}")
    if mode is not None:
        message += f" nor in mode {mode}"
    raise TypeError(message)


_plain_method_types = weakref.WeakKeyDictionary()  # type -> its __torch_function__ is a plain function


def _defines_plain_method(kind):
    """Whether the class's __torch_function__ is a plain method (deprecated: PyTorch warns), looked up once per
    class: inspect.getattr_static walks the MRO's dicts, about 5 us that every dispatched call paid."""
    plain = _plain_method_types.get(kind)
    if plain is None:
        plain = _plain_method_types[kind] = isinstance(
            inspect.getattr_static(kind, "__torch_function__", None), pytypes.FunctionType)
    return plain


def _try_handlers(public_api, relevant_args, args, kwargs):
    """(the first result that is not NotImplemented or NotImplemented, the mode tried or None, the overloaded
    arguments in the order tried)."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    mode = None
    if _C._is_torch_function_mode_enabled():
        mode = _pop_mode()
        try:
            handler = mode.__torch_function__
            if getattr(handler, "__self__", None) is not mode:
                raise RuntimeError("Defining your mode's `__torch_function__` as a classmethod is not supported, "
                                   "please make it a plain method")
            result = handler(public_api, types, args, kwargs)
        finally:
            _push_mode(mode)
        if result is not NotImplemented:
            return result, mode, overloaded
    for arg in overloaded:
        if _defines_plain_method(type(arg)):
            warnings.warn("Defining your `__torch_function__` as a plain method is deprecated and will be an error "
                          "in future, please define it as a classmethod.", UserWarning, stacklevel=3)
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result, mode, overloaded
    return NotImplemented, mode, overloaded


_TENSOR_SETITEM = None  # Tensor.__setitem__'s dispatching wrapper (_builtin_functions.install sets it)
_foreign_types = weakref.WeakKeyDictionary()  # type -> is it PyTorch's (classes made at run time can go away)


def _is_foreign_tensor(kind):
    """A PyTorch tensor (or subclass): its __torch_function__ serves PyTorch's functions, and handed one of
    tandem's it would call it right back (PyTorch's dispatch switch is not tandem's). tandem's function then
    sees it as what it is, an argument of the wrong type."""
    foreign = _foreign_types.get(kind)
    if foreign is None:
        foreign = _foreign_types[kind] = any(
            base.__name__ == "TensorBase" and base.__module__ == "torch._C" for base in kind.__mro__)
    return foreign


def _dispatch(public_api, function, relevant_args, args, kwargs):
    """Called by the wrappers of tandem's functions and methods (python/src/torch_function.cpp) when an argument
    implements __torch_function__ or a mode is entered; PyTorch's message for them when every handler declines."""
    relevant_args = [arg for arg in relevant_args if not _is_foreign_tensor(type(arg)) and
                     _implements_torch_function(arg)]
    if not relevant_args and not _C._is_torch_function_mode_enabled():
        return function(*args, **kwargs)
    if public_api in _dispatch_forms.BY_FUNCTION:  # einsum, tensordot, ...: the call as PyTorch's Python hands it
        relevant_args, args, kwargs = _dispatch_forms.normalised(public_api, relevant_args, args, kwargs)
        relevant_args = [arg for arg in relevant_args if not _is_foreign_tensor(type(arg)) and
                         _implements_torch_function(arg)]
    result, mode, overloaded = _try_handlers(public_api, relevant_args, args, kwargs)
    if result is not NotImplemented:
        # x[i] = v is a statement: PyTorch's __setitem__ answers None whatever a handler returned
        return None if public_api is _TENSOR_SETITEM else result
    handlers = ([f"  - mode object {mode}"] if mode is not None else []) + [
        f"  - tensor subclass {type(arg)}" for arg in overloaded]
    name = f"{public_api.__module__}.{public_api.__qualname__}"
    raise TypeError(f"Multiple dispatch failed for '{name}'; all __torch_function__ handlers returned "
                    "NotImplemented:\n\n" + "\n".join(handlers) +
                    "\n\nFor more information, try re-running with TORCH_LOGS=not_implemented")


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
    """A tandem Tensor (or subclass), or anything with a __torch_function__ attribute (a class with one too, as
    PyTorch reads it through the object)."""
    return isinstance(inp, _C.Tensor) or hasattr(inp, "__torch_function__")  # the disabled impl counts


# Filled by tandem/_builtin_functions.py at import: the public functions and Tensor methods that do not dispatch
# (they make tensors from data or settings), and namespace -> those that do.
_ignored = set()
_overridable = {}


def get_ignored_functions():
    """The public functions and Tensor methods that take no part in __torch_function__ dispatch: factories and
    conversions from data (zeros, tensor, from_numpy, ...), settings (manual_seed, set_default_dtype, ...) and
    the few methods PyTorch leaves out (Tensor.new_zeros, Tensor.stride, Tensor.__hash__, ...)."""
    return set(_ignored)


def get_overridable_functions():
    """Namespace (tandem, tandem.Tensor, tandem.linalg, tandem.special, tandem.fft) -> the functions in it that
    dispatch to __torch_function__."""
    return {namespace: list(functions) for namespace, functions in _overridable.items()}


def get_testing_overrides():
    """Every overridable function -> a dummy override returning -1 (PyTorch's give each its signature; tandem's
    take any arguments)."""
    def dummy(*args, **kwargs):
        return -1

    return {f: dummy for functions in _overridable.values() for f in functions}


def resolve_name(f):
    """The dotted name of one of tandem's public functions or Tensor methods (module and qualified name), None for
    anything else (PyTorch names only the functions its listings hold)."""
    try:
        known = f in _ignored or any(f in functions for functions in _overridable.values())
    except TypeError:  # unhashable
        return None
    module, name = getattr(f, "__module__", None), getattr(f, "__qualname__", None)
    return f"{module}.{name}" if known and module and name else None


def is_tensor_method_or_property(func):
    """True for a function found on tandem.Tensor (a property's __get__ included, as in PyTorch)."""
    if func.__name__ == "__get__":  # an object without a name: PyTorch's AttributeError
        return True
    return any(value is func for value in vars(_C.Tensor).values())


class TorchFunctionMode:
    """A context manager whose __torch_function__ sees every call of a tandem function or Tensor method (factories
    included) made while it is entered, in this thread. Modes nest: the innermost runs, with itself popped, so
    the tandem functions it calls reach the next mode out."""

    def __init__(self):
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just `with Mode()`",
                      stacklevel=2)
        return cls(*args, **kwargs)


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that runs every function it sees unchanged (subclass it to observe calls)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """tandem.Tensor.__torch_function__, what a Tensor subclass inherits: runs func with dispatch off and gives
    tensor results (also inside tuples and lists) the subclass's type, as PyTorch's does. Call it through
    super().__torch_function__ from an override."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        result = func(*args, **kwargs)
        # pickling's reduction holds the plain data the subclass is rebuilt from (made a subclass again, it would
        # be reduced again, without end); copy.copy's result is the subclass with its attributes already
        return result if func in _NOWRAP else _convert(result, cls)


_NOWRAP = set()  # Tensor.__reduce_ex__ and __copy__ (which make the subclass themselves): _builtin_functions.install


def get_default_nowrap_functions():
    """The functions whose results Tensor.__torch_function__ hands back unconverted (subclasses that reimplement
    it, as PyTorch's documentation shows, skip the conversion for these): the `_base` and `grad` getters, and
    tandem's reduction and copy hooks, which build the subclass themselves."""
    getters = {_C.Tensor._base.__get__, _C.Tensor.grad.__get__}
    if hasattr(_C.Tensor, "_grad"):
        getters.add(_C.Tensor._grad.__get__)
    return getters | _NOWRAP


def _convert(result, cls):
    """`result` with its tensors (also inside tuples, lists and named tuples) given the subclass `cls`."""
    if cls is _C.Tensor:
        return result
    if isinstance(result, _C.Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        converted = (_convert(r, cls) for r in result)
        return type(result)._make(converted) if hasattr(type(result), "_make") else type(result)(converted)
    return result
