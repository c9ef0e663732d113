"""tandem.autograd: reverse-mode differentiation. The engine and every formula are C++ (src/autograd); this
package only converts arguments."""
from .. import _C
from .._C import Node  # noqa: F401
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,  # noqa: F401
                        is_inference_mode_enabled)
from .gradcheck import gradcheck  # noqa: F401
from .gradgradcheck import gradgradcheck  # noqa: F401
from .function import Function, FunctionCtx  # noqa: F401
from . import functional  # noqa: F401
from . import profiler  # noqa: F401  (record_function; tandem.profiler has the rest)
from .anomaly_mode import (detect_anomaly, set_detect_anomaly, is_anomaly_enabled,  # noqa: F401
                           is_anomaly_check_nan_enabled)
from . import graph  # noqa: F401  (saved-tensors hooks, node hooks)
from . import forward_ad  # noqa: F401  (imports; dual tensors raise NotImplementedError, see its docstring)

__all__ = ["backward", "grad", "gradcheck", "gradgradcheck", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


def _as_list(x):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the .grad of the leaves (or of `inputs`)."""
    _C._autograd_backward(_as_list(tensors), _as_list(grad_tensors), retain_graph, create_graph,
                          _as_list(inputs))


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False,
         materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (nothing is accumulated)."""
    single = isinstance(inputs, _C.Tensor)
    ins = _as_list(inputs)
    result = _C._autograd_grad(_as_list(outputs), ins, _as_list(grad_outputs), retain_graph, create_graph,
                               allow_unused or materialize_grads)
    if materialize_grads:
        result = tuple(g if g is not None else _C.zeros_like(x) for g, x in zip(result, ins))
    return result if not single else result
