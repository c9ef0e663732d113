"""tandem.autograd: reverse-mode differentiation. The engine and every formula are C++ (src/autograd); this
package only converts arguments."""
import contextlib
import warnings

from .. import _C
from .._layouts import is_sparse_tensor
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
from ._capture import capturing as _capturing, engine_grad as _engine_grad
from .._func_transforms import vmap_retains_graph as _vmap_retains_graph

__all__ = ["backward", "grad", "gradcheck", "gradgradcheck", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled"]


def _as_list(x, caller=None):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return [x]
    items = [x] if isinstance(x, graph.GradientEdge) else list(x)
    if caller is not None and any(isinstance(e, graph.GradientEdge) for e in items):
        # PyTorch accepts edges here; tandem's engine (src/autograd/engine.h) starts from and captures at tensors,
        # so an edge stands for the tensor get_gradient_edge took it from, while that tensor lives.
        items = [_edge_as_tensor(e, caller) if isinstance(e, graph.GradientEdge) else e for e in items]
    return items


def _edge_as_tensor(edge, caller):
    tensor = graph.edge_tensor(edge)
    if tensor is None:
        raise NotImplementedError(f"tandem.autograd.{caller}: a GradientEdge is supported only while the tensor "
                                  "get_gradient_edge took it from is alive (the backward engine takes tensors)\n"
                                  "hint: pass the tensor the edge was taken from (get_gradient_edge(t) -> t)")
    return tensor


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulates the gradients of `tensors` into the .grad of the leaves (or of `inputs`). ``grad_variables`` is
    PyTorch's deprecated name of ``grad_tensors`` (pre-0.4 code), fifth as in PyTorch (Tensor.backward's fallback
    in python/src/autograd.cpp passes inputs by name)."""
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.", FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both passed to "
                               "`backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    if inputs is not None and not isinstance(inputs, (_C.Tensor, graph.GradientEdge)):
        inputs = list(inputs)  # read twice below
    edges = [e for e in ([inputs] if isinstance(inputs, graph.GradientEdge) else inputs
                         if isinstance(inputs, list) else []) if isinstance(e, graph.GradientEdge)]
    inputs = _as_list(inputs, "backward")
    tensors = _as_list(tensors, "backward")
    # A non-leaf edge among inputs takes part in the pass but has no .grad to fill (PyTorch's: nothing shows)
    kept = [t for t in (graph.edge_tensor(e) for e in edges) if t is not None and t.grad_fn is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a non-leaf's .grad read warns)
        kept = [(t, t.grad) for t in kept]
    if inputs and any(not isinstance(x, _C.Tensor) for x in inputs):  # the engine's order: outputs, then inputs
        for i, t in enumerate(tensors):
            if isinstance(t, _C.Tensor) and not t.requires_grad:
                raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        for x in inputs:
            if not isinstance(x, _C.Tensor):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(x).__name__}")
    # PyTorch reads the two flags by truth value (retain_graph=1 is fine)
    retain_graph = None if retain_graph is None else bool(retain_graph)
    try:
        with _capturing() if inputs else contextlib.nullcontext():  # inputs=: only those leaves get a .grad
            _C._autograd_backward(tensors, _as_list(grad_tensors), retain_graph, bool(create_graph), inputs)
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for t, before in kept:
                t.grad = before


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (nothing is accumulated).

    ``only_inputs`` is PyTorch's deprecated switch (ignored, with its FutureWarning when False);
    ``is_grads_batched`` treats the first dim of every grad_output as a batch of cotangents and runs one
    backward pass per entry (PyTorch vmaps them), stacking the gradients along a new first dim."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.",
                      FutureWarning, stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not retain_graph and _vmap_retains_graph():  # PyTorch's one batched pass, as one pass per element
        retain_graph = True
    single = isinstance(inputs, _C.Tensor)
    ins = _as_list(inputs, "grad")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    sparse_inputs = [x if is_sparse_tensor(x) else None for x in ins]
    if any(s is not None for s in sparse_inputs):
        # A sparse input's gradient is its values' (autograd lives on them), on the input's pattern, as PyTorch's.
        ins = [x if s is None else s._vals for x, s in zip(ins, sparse_inputs)]
        result = grad(outputs, ins, grad_outputs, retain_graph, create_graph, True, allow_unused,
                      is_grads_batched, materialize_grads)
        return tuple(g if s is None or g is None else s._rewrap(s._index_tensors(), g)
                     for g, s in zip(result, sparse_inputs))
    outs = _as_list(outputs, "grad")
    for g in _as_list(grad_outputs) or ():  # PyTorch's _make_grads reads them first
        if g is not None and not isinstance(g, _C.Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
    for i, out in enumerate(outs):  # PyTorch's engine reads the outputs before the inputs: its message comes first
        if isinstance(out, _C.Tensor) and not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    for x in ins:
        if not isinstance(x, _C.Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(x).__name__}")
    unique = list({id(x): x for x in ins}.values())
    if len(unique) < len(ins):  # the same tensor twice gets its gradient twice (the engine captures it once)
        result = grad(outputs, unique, grad_outputs, retain_graph, create_graph, True, allow_unused,
                      is_grads_batched, materialize_grads)
        where = {id(x): k for k, x in enumerate(unique)}
        return tuple(result[where[id(x)]] for x in ins)
    if is_grads_batched:
        batched = _as_list(grad_outputs)
        for i, (g, out) in enumerate(zip(batched, outs)):
            if g is not None and tuple(g.shape[1:]) != tuple(out.shape):
                raise RuntimeError(
                    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                    "dimension. The sizes of the remaining dimensions are expected to match the shape of "
                    f"corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
                    f"{g.shape[1:]} and output[{i}] has a shape of {out.shape}. If you only want some tensors in "
                    "`grad_output` to be considered batched, consider using vmap.")
        for g in batched:
            if g is not None and g.dim() == 0:  # PyTorch indexes its first dim
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        sizes = {g.shape[0] for g in batched if g is not None}
        rows = []
        n = sizes.pop() if sizes else 0
        for i in range(n):
            keep = True if i < n - 1 else retain_graph  # the last pass frees the graph as a plain grad would
            row = _engine_grad(outs, ins, [g[i] if g is not None else None for g in batched], keep,
                                    create_graph, True)
            rows.append(row)
        result = []
        for j, x in enumerate(ins):
            got = [r[j] for r in rows]
            if all(g is None for g in got):
                if not allow_unused:
                    raise RuntimeError(f"The differentiated Tensor at index {j} appears to not have been used in "
                                       "the graph. Set allow_unused=True if this is the desired behavior.")
                result.append(None)
            else:
                result.append(_C.stack([g if g is not None else _C.zeros_like(x) for g in got]))
        result = tuple(result)
    else:
        result = _engine_grad(outs, ins, _as_list(grad_outputs), retain_graph, create_graph, allow_unused)
    if materialize_grads:
        result = tuple(g if g is not None else _C.zeros_like(x) for g, x in zip(result, ins))
    return result if not single else result
