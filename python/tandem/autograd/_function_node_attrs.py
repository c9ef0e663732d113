"""A custom Function's grad_fn reads and sets attributes on its ctx, as in PyTorch, where the node *is* the ctx
(torchdiffeq reads ``out.grad_fn.adjoint_options``, set on ctx in forward). tandem's node is a C++ object that
holds the ctx without exposing it, so the ctx is found here by the node's metadata dict, which lives as long as
the node. The ctx keeps that dict, so while an entry exists the dict, and so its id, cannot be reused."""
import weakref

from .. import _C

_CTX_BY_METADATA_ID = weakref.WeakValueDictionary()  # an entry goes when the node lets go of its ctx


def remember_ctx(node, ctx):
    metadata = node.metadata
    object.__setattr__(ctx, "_node_metadata", metadata)
    _CTX_BY_METADATA_ID[id(metadata)] = ctx


def _ctx_of(node):
    metadata = node.metadata
    ctx = _CTX_BY_METADATA_ID.get(id(metadata))
    return ctx if ctx is not None and ctx._node_metadata is metadata else None


def _missing(node, name):
    return AttributeError(f"'{node.name()}' object has no attribute '{name}'")  # PyTorch names the node's class


def _node_getattr(node, name):
    # Only reached when the node has no such attribute of its own. A built-in node's saved values are
    # _saved_self / _saved_other / _saved_result ... as in PyTorch (python/src/autograd_node_types.cpp).
    if name.startswith("_saved_"):
        return node._saved_value(name[len("_saved_"):])
    ctx = _ctx_of(node) if not name.startswith("__") else None
    if ctx is None:
        raise _missing(node, name)
    try:
        return getattr(ctx, name)
    except AttributeError:
        raise _missing(node, name) from None


def _node_setattr(node, name, value):
    ctx = _ctx_of(node)
    if ctx is None or hasattr(type(node), name):
        raise _missing(node, name)
    setattr(ctx, name, value)


_C.Node.__getattr__ = _node_getattr
_C.Node.__setattr__ = _node_setattr
