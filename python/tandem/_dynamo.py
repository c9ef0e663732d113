"""tandem._dynamo: the few torch._dynamo names training scripts touch around torch.compile.

tandem compiles nothing (see tandem.compiler), so these only keep scripts running: ``disable`` returns the
function, ``reset`` has no cache to clear, ``mark_dynamic``/``mark_static`` record nothing, and ``config``
holds the commonly set knobs with PyTorch's defaults (unread by tandem); ``explain`` runs the function
and reports no graphs.
"""
import sys as _sys

from .compiler import disable, reset, list_backends, is_compiling, allow_in_graph  # noqa: F401
from . import _dynamo_eval_frame as eval_frame  # noqa: F401  (eval_frame.OptimizedModule, what compile returns)
from ._dynamo_eval_frame import OptimizedModule  # noqa: F401  (torch._dynamo.OptimizedModule: e3nn's isinstance)
from ._dynamo_explain import explain  # noqa: F401  (no graphs: tandem compiles nothing)

__all__ = ["disable", "reset", "list_backends", "is_compiling", "allow_in_graph", "mark_dynamic", "mark_static",
           "config", "eval_frame", "explain", "assume_constant_result", "OptimizedModule"]


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None):
    """Marks a dimension as dynamic for the compiler: nothing to mark in tandem."""


def mark_static(t, index=None):
    """Marks a dimension as static for the compiler: nothing to mark in tandem."""


def assume_constant_result(fn):
    """Tells the compiler fn's result is a constant (a decorator on config readers): fn comes back marked as
    PyTorch marks it, and runs as it is."""
    fn._dynamo_marked_constant = True
    return fn


class _Config:
    """torch._dynamo.config's commonly set knobs; unknown names fail as in PyTorch."""

    _defaults = {"suppress_errors": False, "cache_size_limit": 8, "recompile_limit": 8,
                 "accumulated_cache_size_limit": 256, "accumulated_recompile_limit": 256, "verbose": False,
                 "capture_scalar_outputs": False, "capture_dynamic_output_shape_ops": False, "optimize_ddp": True,
                 "automatic_dynamic_shapes": True, "assume_static_by_default": True, "compiled_autograd": False,
                 "specialize_int": False, "force_parameter_static_shapes": True, "error_on_recompile": False,
                 "skip_nnmodule_hook_guards": True}

    def __init__(self):
        object.__setattr__(self, "_values", dict(self._defaults))

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"torch._dynamo.config.{name} does not exist") from None

    def __setattr__(self, name, value):
        if name not in self._values:
            raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        self._values[name] = value


config = _Config()

# `import torch._dynamo.config` names a submodule; this module is a file, so the submodule is registered here.
_sys.modules[__name__ + ".config"] = config
