"""fx.traceback: the metadata of the node being run, which a Transformer's new nodes inherit (its stack trace,
nn_module_stack, ...). ``preserve_node_meta()`` turns the inheritance on for a block; Interpreter.run_node sets
the current node's meta while it runs."""
import contextlib
import threading

__all__ = ["preserve_node_meta", "has_preserved_node_meta", "set_current_meta", "get_current_meta",
           "set_stack_trace", "format_stack"]

# Per thread: two interpreters in two threads each see their own node.
_state = threading.local()


def _get(name, default):
    return getattr(_state, name, default)


@contextlib.contextmanager
def preserve_node_meta(enable=True):
    """Within the block, nodes a tracer creates copy the current node's metadata."""
    saved = (_get("preserve", False), _get("meta", {}))
    _state.preserve, _state.meta = enable, {}
    try:
        yield
    finally:
        _state.preserve, _state.meta = saved


def has_preserved_node_meta():
    return _get("preserve", False)


@contextlib.contextmanager
def set_current_meta(node, pass_name=""):
    """The metadata new nodes inherit while `node` runs (when preserve_node_meta is on)."""
    if not has_preserved_node_meta() or node is None:
        yield
        return
    saved = _get("meta", {})
    _state.meta = node.meta
    try:
        yield
    finally:
        _state.meta = saved


def get_current_meta():
    return _get("meta", {})


def set_stack_trace(stack):
    if has_preserved_node_meta() and stack:
        _state.meta = {**_get("meta", {}), "stack_trace": "".join(stack)}


def format_stack():
    """The preserved stack trace, as a list of lines."""
    trace = get_current_meta().get("stack_trace")
    return [trace] if has_preserved_node_meta() and trace else []
