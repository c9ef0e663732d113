"""tandem.jit: the TorchScript names ordinary scripts use, over tandem's eager execution.

tandem has no TorchScript compiler or serialized-program format. ``script`` returns the module or function as
is; ``trace`` runs it once on the example inputs, as PyTorch's trace does (so errors surface at the same place
and a module's side effects, such as BatchNorm running statistics, happen as in PyTorch), then returns it as is
(PyTorch runs it again to check the trace; tandem does not need to). Both warn as PyTorch 2.x does that they are
deprecated. ``save``/``load`` raise NotImplementedError: save the ``state_dict`` with tandem.save instead.

The objects ``script`` and ``trace`` return are recorded, so that PyTorch's type checks on them hold:
``isinstance(torch.jit.script(m), torch.jit.ScriptModule)`` (and ``RecursiveScriptModule``; ``TracedModule`` and
``TopLevelTracedModule`` for a traced module; ``ScriptFunction`` for a scripted or traced function) is True, while
the object itself stays the module or function it was.
"""
import builtins  # isinstance below is torch.jit.isinstance (_eager_names), the builtin is spelled out
import contextlib
import os
import warnings
import weakref
from typing import Final  # noqa: F401  (torch.jit.Final is typing.Final)

from .._C import Tensor
from ._overloads import _overload, _overload_method  # noqa: F401  (declarations only: see the module)
from ._eager_names import *  # noqa: F401,F403  (Attribute, isinstance, fuser, ...: see the module)
from ._eager_names import __all__ as _eager_names
from ._eager_names import _example_tuple

__all__ = ["script", "trace", "ignore", "unused", "export", "is_scripting", "is_tracing", "annotate", "Final",
           "script_if_tracing", "fork", "wait", "save", "load", "freeze", "optimize_for_inference", "ScriptModule",
           "RecursiveScriptModule", "TracedModule", "TopLevelTracedModule", "ScriptFunction", *_eager_names]

_tracing = [False]


class TracerWarning(Warning):
    """PyTorch's tracer warns with it about code a trace cannot capture; tandem's trace records no graph and never
    does, but code that filters it (pyro's ignore_jit_warnings) names the class."""


def is_scripting():
    """False: code always runs eagerly in tandem."""
    return False


def is_tracing():
    """True only while ``trace`` runs the traced function on its example inputs."""
    return _tracing[0]


@contextlib.contextmanager
def _trace_run():
    before = _tracing[0]
    _tracing[0] = True
    try:
        yield
    finally:
        _tracing[0] = before


# What script/trace returned, by the kind PyTorch's object would have had. Weak: recording keeps nothing alive.
_returned = {"scripted_module": weakref.WeakSet(), "traced_module": weakref.WeakSet(),
             "function": weakref.WeakSet()}


def _record(obj, module_kind):
    """Files obj under the kind of object PyTorch's script/trace would have returned for it."""
    from ..nn import Module  # noqa: PLC0415  (tandem.nn imports tandem.jit's users)

    try:
        if builtins.isinstance(obj, Module):
            _returned[module_kind].add(obj)
        elif callable(obj) and not builtins.isinstance(obj, type):
            _returned["function"].add(obj)
    except TypeError:  # an object that takes no weak reference (a C++ function): left unrecorded
        pass
    return obj


class _Returned(type):
    """isinstance() of these classes asks whether script/trace returned the object (see the module's text)."""

    def __instancecheck__(cls, obj):
        if type.__instancecheck__(cls, obj):
            return True
        try:
            return any(obj in _returned[kind] for kind in cls._kinds)
        except TypeError:
            return False


class ScriptModule(metaclass=_Returned):
    """A module returned by script or trace."""
    _kinds = ("scripted_module", "traced_module")


class RecursiveScriptModule(ScriptModule):
    """A module returned by script."""
    _kinds = ("scripted_module",)


class TracedModule(ScriptModule):
    """A module returned by trace."""
    _kinds = ("traced_module",)


class TopLevelTracedModule(TracedModule):
    _kinds = ("traced_module",)


class ScriptFunction(metaclass=_Returned):
    """A function returned by script or trace."""
    _kinds = ("function",)


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Returns ``obj`` (a module, function or class) unchanged: tandem runs Python code eagerly."""
    warnings.warn("`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  FutureWarning, stacklevel=2)
    if not callable(obj) and type(obj).__module__ == "builtins":
        raise TypeError(f"{type(obj)} is a built-in class")
    return _record(obj, "scripted_module")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-05,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Runs ``func`` once on the example inputs (a tensor, a tuple of arguments, or ``example_kwarg_inputs``)
    and returns it unchanged."""
    warnings.warn("`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
                  FutureWarning, stacklevel=2)
    if example_kwarg_inputs is not None:
        if not builtins.isinstance(example_kwarg_inputs, dict):
            raise RuntimeError("example_kwarg_inputs should be a dict")
        args, kwargs = (), example_kwarg_inputs
    else:
        # PyTorch's make_tuple: a tensor or dict is the one argument, any other example a sequence of arguments
        # ('int' object is not iterable)
        args = _example_tuple(example_inputs)
        kwargs = {}
    if not callable(func):
        raise RuntimeError("Could not get name of python class object")
    with _trace_run():
        out = func(*args, **kwargs)
    _check_trace_output(out, strict)
    return _record(func, "traced_module")


_DICT_OUTPUT = ("Encountering a dict at the output of the tracer might cause the trace to be incorrect, this is only "
                "valid if the container structure does not change based on the module's inputs. Consider using a "
                "constant container instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a `NamedTuple` "
                "instead). If you absolutely need this and know the side effects, pass strict=False to trace() to "
                "allow this behavior.")


def _check_trace_output(out, strict):
    """PyTorch's refusals of what a trace cannot return: nothing, non-tensors, a dict when strict (its keys would
    be baked into the graph)."""
    if out is None:
        raise RuntimeError("The traced function didn't return any values! Side-effects are not captured in traces, "
                           "so it would be a no-op.")
    if builtins.isinstance(out, Tensor):
        return
    if builtins.isinstance(out, dict):
        if strict:
            raise RuntimeError(_DICT_OUTPUT)
        values = out.values()
    elif builtins.isinstance(out, list):
        if not all(builtins.isinstance(v, Tensor) for v in out):
            raise RuntimeError(f"Tracer cannot infer type of {out}")
        return
    elif builtins.isinstance(out, tuple):
        values = out
    else:
        raise RuntimeError("Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from "
                           "traced functions")
    for v in values:
        _check_trace_output(v, strict)


def ignore(drop=False, **kwargs):
    """Leaves a function to Python when scripting: with tandem everything is Python, so it is returned as is.
    Usable as ``@ignore`` and ``@ignore(drop=True)``."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn


def script_if_tracing(fn):
    return fn


def annotate(the_type, the_value):
    """Returns ``the_value``: the type hint only guides TorchScript."""
    return the_value


def fork(func, *args, **kwargs):
    """Runs ``func`` now (TorchScript would run it asynchronously) and returns a completed tandem.futures.Future
    holding the result (an exception the call raises is raised here)."""
    from ..futures import Future  # noqa: PLC0415 (jit loads before futures in tandem/__init__)
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future):
    return future.wait()


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    """Returns ``mod`` (there is no TorchScript graph to fold), after PyTorch's checks on what it accepts."""
    if not builtins.isinstance(mod, ScriptModule):
        raise RuntimeError("Freezing expects a ScriptModule as input. Please use torch.jit.script or torch.jit.trace "
                           "to script your 'nn.Module'.")
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. Please call .eval() on "
                           "your module before freezing.")
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


_SAVE_HINT = ("hint: tandem has no TorchScript archive format; save the weights with "
              "tandem.save(model.state_dict(), path) and load them into the model class with "
              "model.load_state_dict(tandem.load(path))")


def save(m, f, _extra_files=None):
    if not builtins.isinstance(m, ScriptModule):  # PyTorch calls the ScriptModule's own method, which m lacks
        method = "save" if builtins.isinstance(f, (str, os.PathLike)) else "save_to_buffer"
        raise AttributeError(f"'{type(m).__name__}' object has no attribute '{method}'")
    raise NotImplementedError("torch.jit.save: tandem cannot serialize a scripted program\n" + _SAVE_HINT)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    if builtins.isinstance(f, (str, os.PathLike)):  # PyTorch's checks of a path come before reading it
        if not os.path.exists(f):
            raise ValueError(f"The provided filename {f} does not exist")
        if os.path.isdir(f):
            raise ValueError(f"The provided filename {f} is a directory")
    raise NotImplementedError("torch.jit.load: tandem cannot load a TorchScript archive\n" + _SAVE_HINT)
