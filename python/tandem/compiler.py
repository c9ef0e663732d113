"""tandem.compiler and tandem.compile: PyTorch's graph-compiler entry points, so scripts that call them run.

tandem has no graph compiler: every op already runs a compiled C++ kernel, eagerly. ``compile`` checks its
arguments as PyTorch does (a callable, a known ``mode``, not both ``mode`` and ``options``, a known backend
name) and returns a function itself, and a module wrapped as PyTorch wraps it (``_dynamo.eval_frame.
OptimizedModule``: the original as ``_orig_mod``, so ``state_dict`` keys carry PyTorch's ``_orig_mod.`` prefix);
results are exactly the eager ones. ``options`` are accepted unread (they configure PyTorch's Inductor, which
tandem does not have).
"""
import functools

from ._compiler_stance import set_stance  # noqa: F401

__all__ = ["compile", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting", "reset", "list_backends",
           "allow_in_graph", "assume_constant_result", "cudagraph_mark_step_begin", "set_stance"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# PyTorch's registered backend names (torch._dynamo.list_backends(exclude_tags=None), less its test-only ones).
_BACKENDS = ("aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner", "aot_ts", "cudagraphs",
             "eager", "inductor", "onnxrt", "openxla", "openxla_eval", "tvm", "ts")
_DEFAULT_LISTED = ("cudagraphs", "inductor", "openxla", "tvm")  # list_backends()'s default view


class InvalidBackend(RuntimeError):
    """A backend name compile does not know (PyTorch's torch._dynamo.exc.InvalidBackend)."""


def _check_compile_args(model, mode, options, backend):
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise InvalidBackend(f"Invalid backend: '{backend}'. See `torch._dynamo.list_backends()` for available "
                             "backends.")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, recompile_limit=None, isolate_recompiles=False, dynamic_shapes=None):
    """After PyTorch's argument checks, ``model`` itself (a function, or any model with ``disable=True``) or a
    module wrapped in an OptimizedModule; with no model, a decorator that does so."""
    if model is None:
        def decorator(fn):
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, dynamic_shapes=dynamic_shapes)
        return decorator
    _check_compile_args(model, mode, options, backend)
    from .nn.modules.module import Module
    from ._dynamo_eval_frame import OptimizedModule
    if disable or not isinstance(model, Module):
        return model
    return OptimizedModule(model)


def disable(fn=None, recursive=True, *, reason=None):
    """Marks ``fn`` as not to be compiled: it is returned as is (nothing is compiled in tandem)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    if not callable(fn):
        raise AssertionError("fn must be callable")
    return fn


def is_compiling():
    """False: tandem never traces code into a graph."""
    return False


is_dynamo_compiling = is_compiling


def is_exporting():
    return False


def reset():
    """Clears compilation caches: tandem keeps none."""


def list_backends(exclude_tags=("debug", "experimental")):
    """The backend names ``compile`` accepts (it runs eagerly whichever is named)."""
    return sorted(_DEFAULT_LISTED if exclude_tags else _BACKENDS)


def allow_in_graph(fn):
    return fn


def assume_constant_result(fn):
    return fn


def cudagraph_mark_step_begin():
    """Marks a new iteration for CUDA-graph trees: tandem records no CUDA graphs."""
