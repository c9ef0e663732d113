"""Grad-mode switches: context managers that also work as decorators. The mode itself is thread-local
state in the C++ core; these classes only set and restore it."""
import functools
import inspect
import sys
import warnings

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class _DecoratorContextManager:
    """Lets a context manager decorate a function: each call runs inside a fresh instance."""

    def __call__(self, func):
        if inspect.isclass(func):  # PyTorch still takes a class, deprecated: its constructor runs in the mode
            warnings.warn("Decorating classes is deprecated and will be disabled in future versions. You should only "
                          "decorate functions or methods. To preserve the current behavior of class decoration, you "
                          "can directly decorate the `__init__` method and nothing else.", FutureWarning,
                          stacklevel=2)
            cls = func
            func = lambda *args, **kwargs: cls(*args, **kwargs)  # noqa: E731
        if inspect.isgeneratorfunction(func):
            return _generator_in_mode(self.clone, func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


def _generator_in_mode(make_context, func):
    """A decorated generator function: the generator's own code runs inside the mode at every resumption (its
    first step, each send, throw and close), while the caller's code between yields runs in the caller's mode,
    as PyTorch wraps them (a `@no_grad()` batch generator must not switch grad off in the training loop)."""
    @functools.wraps(func)
    def generator(*args, **kwargs):
        inner = func(*args, **kwargs)
        try:
            with make_context():
                value = inner.send(None)
            while True:
                try:
                    sent = yield value
                except GeneratorExit:
                    with make_context():
                        inner.close()
                    raise
                except BaseException:
                    with make_context():
                        value = inner.throw(*sys.exc_info())
                else:
                    with make_context():
                        value = inner.send(sent)
        except StopIteration as stop:
            return stop.value
    return generator


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator (@no_grad without parentheses), as in PyTorch."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Disables gradient recording: results computed inside do not require grad."""

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class enable_grad(_NoParamDecoratorContextManager):
    """Enables gradient recording (inside no_grad, for example)."""

    def __enter__(self):
        self._prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode on or off; takes effect at once (as a function call) or for a with-block."""

    def __init__(self, mode):
        if not isinstance(mode, bool):  # PyTorch's argument parser takes a bool only (not 1, None, a tensor)
            kind = type(mode)
            name = "Tensor" if isinstance(mode, _C.Tensor) else (
                kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}")
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {name}")
        self._prev = _C.is_grad_enabled()
        self.mode = mode
        _C._set_grad_enabled(self.mode)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def clone(self):
        return self.__class__(self.mode)

    def __call__(self, func):
        # Used as a decorator: the constructor's immediate switch must not outlive the decoration.
        _C._set_grad_enabled(self._prev)
        return super().__call__(func)


class inference_mode(_DecoratorContextManager):
    """Like no_grad (results never require grad), is_inference_mode_enabled() is True inside, and the tensors made
    inside are inference tensors (is_inference(): autograd will not save them, in-place writes after the block
    refuse them). inference_mode(False) turns the mode off inside an inference block and grad mode on, as
    PyTorch's."""

    def __new__(cls, mode=True):
        if not isinstance(mode, bool):  # bare @inference_mode: anything but a bool is decorated, as in PyTorch
            return cls()(mode)  # (inference_mode("yes") is a function, not a context manager)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev = (_C.is_grad_enabled(), _C.is_inference_mode_enabled())
        _C._set_grad_enabled(not self.mode)
        _C._set_inference_mode(self.mode)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev[0])
        _C._set_inference_mode(self._prev[1])
        return False

    def clone(self):
        return self.__class__(self.mode)
