"""Whether the backward pass running now captures its gradients (autograd.grad, backward(inputs=...)) instead of
accumulating them into every leaf's .grad. The engine is C++ and does not say; the Python entry points mark their
calls here, so a custom backward that runs its own inner backward (utils.checkpoint) can tell the two apart: an
inner backward that accumulates would write .grad during an autograd.grad call, which must leave .grad alone.
Tensor.backward(inputs=...) is a C++ binding and is not marked."""
import contextlib
import threading

from .. import _C

_state = threading.local()  # the engine runs a backward's nodes on the thread that started it


def is_capturing():
    return getattr(_state, "depth", 0) > 0


@contextlib.contextmanager
def capturing():
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        yield
    finally:
        _state.depth -= 1


def engine_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    """_C._autograd_grad, marked as capturing."""
    with capturing():
        return _C._autograd_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
