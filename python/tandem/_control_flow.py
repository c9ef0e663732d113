"""tandem.cond and tandem.while_loop: PyTorch's structured control flow, run eagerly as the Python control flow it
stands for (PyTorch compiles them; tandem has no graph compiler). Arguments are checked as PyTorch checks them,
and gradients flow through the branch taken and the iterations run, by the ops inside."""
from . import _C
from .utils import _pytree


def _check_no_alias(outputs, inputs, name):
    """PyTorch's higher-order ops refuse an output that is an input (it cannot trace the aliasing)."""
    ins = [t for t in _pytree.tree_leaves(inputs) if isinstance(t, _C.Tensor)]
    if any(isinstance(o, _C.Tensor) and any(o is t for t in ins) for o in _pytree.tree_leaves(outputs)):
        raise RuntimeError(f"Encountered aliasing during higher order op tracing: Higher order ops do not support "
                           f"aliasing. Found in {name}.\nhint: Replace `return input` with `return input.clone()` to "
                           "avoid aliasing.")


def cond(pred, true_fn, false_fn, operands=()):
    """true_fn(*operands) if pred else false_fn(*operands); pred is a bool or a one-element tensor."""
    if isinstance(pred, (bool, int, float)):  # a Python constant picks the branch, unchecked (as in PyTorch)
        return true_fn(*operands) if pred else false_fn(*operands)
    if not isinstance(pred, (bool, _C.Tensor)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or any(not isinstance(t, _C.Tensor)
                                                      for t in _pytree.tree_leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                           f"tensor leaves, but got {operands}.")
    out = true_fn(*operands) if bool(pred) else false_fn(*operands)
    _check_no_alias(out, operands, "cond")
    return out


def _check_pred(pred):
    if not ((isinstance(pred, _C.Tensor) and pred.dim() == 0 and pred.dtype == _C.bool) or isinstance(pred, bool)):
        raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got {pred}")
    return bool(pred)


def _check_carried(new_leaves, leaves):
    if len(new_leaves) != len(leaves):
        raise RuntimeError(f"body_fn should return the same number of elements as carried_inputs, got "
                           f"{len(new_leaves)} vs {len(leaves)}")
    for i, (new, old) in enumerate(zip(new_leaves, leaves)):
        if isinstance(old, _C.Tensor):
            if not isinstance(new, _C.Tensor):
                raise RuntimeError(f"Expected body_fn_output and carried_inputs to have same metadata but found:\n"
                                   f"pair[{i}] differ: {type(new).__name__} vs Tensor")
            for what, a, b in (("shape", new.shape, old.shape), ("dtype", new.dtype, old.dtype),
                               ("device", new.device, old.device)):
                if a != b:
                    raise RuntimeError("Expected body_fn_output and carried_inputs to have same metadata but "
                                       f"found:\npair[{i}] differ in '{what}: {a} vs {b}'")


def while_loop(cond_fn, body_fn, carried_inputs):
    """Runs `carried = body_fn(*carried)` while cond_fn(*carried) is true; returns the final carried values. The
    body must return values of the carried inputs' structure, shapes and dtypes."""
    leaves, spec = _pytree.tree_flatten(carried_inputs)
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not all(isinstance(v, (_C.Tensor, int)) for v in leaves):
        raise AssertionError(f"{leaves} can only be of ({_C.Tensor}, {int}) but got "
                             f"{tuple(type(v) for v in leaves)}")
    if not isinstance(carried_inputs, (tuple, list)):
        raise RuntimeError(f"carried_inputs must be a tuple or list but got {type(carried_inputs)}")
    carried = tuple(carried_inputs)
    if not _check_pred(cond_fn(*carried)):
        return tuple(_pytree.tree_map(lambda v: v.clone() if isinstance(v, _C.Tensor) else v, carried))
    while True:
        out = body_fn(*carried)
        new_leaves = _pytree.tree_leaves(out)
        _check_carried(new_leaves, leaves)
        _check_no_alias(out, carried, "while_loop")
        carried = tuple(_pytree.tree_unflatten(new_leaves, spec))
        if not _check_pred(cond_fn(*carried)):
            return carried
