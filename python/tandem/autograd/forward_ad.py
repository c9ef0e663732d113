"""tandem.autograd.forward_ad: PyTorch's dual-number API for forward-mode AD (dual_level, make_dual, unpack_dual),
computed with reverse mode. tandem has reverse-mode formulas only, so a dual tensor is a tensor that requires grad
(a differentiable copy of the primal) whose tangent the level remembers; unpack_dual(y) gets y's tangent as the
Jacobian-vector product J t by the double-backward trick: with u a zero cotangent that requires grad,
g = J^T u is linear in u, so d<g, t>/du = J t (the same two reverse passes as tandem.func.jvp; for complex tensors
<., .> is the real inner product Re(sum(conj(a) b)), in which reverse mode's vjp is J's adjoint).

What differs from PyTorch's forward mode (docs/autograd.md "Forward-mode AD"): the tangent is computed when
unpack_dual asks for it, from the graph recorded since make_dual, so code run under no_grad inside the level has
no tangent (PyTorch's forward mode ignores grad mode); every result computed from a dual requires grad (PyTorch's
carry a tangent instead; unpack_dual's primal has PyTorch's requires_grad); a custom autograd.Function's tangent
comes from its backward (differentiated once more), not from its jvp staticmethod; and each unpack_dual costs two
reverse passes over the graph between the duals and its tensor."""
import importlib
from collections import namedtuple

from .. import _C

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])


def _tandem():
    return importlib.import_module("tandem")  # the package (this module is imported while it initialises)

# The one level PyTorch allows at a time: None outside it, else the (dual, tangent, primal_requires_grad) triples
# made in it (kept alive until the level ends, as PyTorch's level keeps the tangents).
_level = None


def enter_dual_level():
    """Starts the level dual tensors live in and returns its index (0: PyTorch supports one level at a time)."""
    global _level
    if _level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level = []
    return 0


def exit_dual_level(*, level=None):
    """Ends the level: its dual tensors' tangents are dropped (unpack_dual then gives None)."""
    global _level
    current = -1 if _level is None else 0
    if level is not None and level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    if current < 0:
        raise RuntimeError("Dual level must be a positive number.")
    _level = None


def _check_level(level):
    if _level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if level not in (None, 0):
        raise RuntimeError(f"Invalid level given to _make_dual\nhint: tandem has one forward AD level (0), the one "
                           f"dual_level() enters, not {level}")


def make_dual(tensor, tangent, *, level=None):
    """A tensor with tensor's values whose tangent is `tangent` (same size; the level remembers it)."""
    _check_level(level)
    if not isinstance(tensor, _C.Tensor) or not isinstance(tangent, _C.Tensor):
        raise TypeError("make_dual(): argument 'tensor' and 'tangent' must be Tensors, not "
                        f"{type(tensor).__name__} and {type(tangent).__name__}")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if tangent.device != tensor.device:
        raise RuntimeError("Trying to set a forward gradient on a tensor of another device: the Tensor is on "
                           f"{tensor.device} while the given forward gradient is on {tangent.device}.")
    with _tandem().enable_grad():
        # A primal that requires grad keeps its history (a view, as PyTorch's dual is); any other gets a leaf.
        dual = tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_()
    _level.append((dual, tangent, tensor.requires_grad))
    return dual


def _entry(tensor):
    for entry in _level:
        if entry[0] is tensor:
            return entry
    return None


def _reaches_real_leaf(tensor):
    """Whether tensor's graph reaches a leaf that requires grad other than the level's own dual leaves: the
    requires_grad PyTorch's primal has."""
    ours = [dual for dual, _, primal_requires_grad in _level if not primal_requires_grad]
    seen, todo = {}, [tensor.grad_fn]  # seen holds the nodes too, so no id is reused during the walk
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        variable = getattr(node, "variable", None)
        if variable is not None and not any(variable.is_set_to(dual) for dual in ours):
            return True
        todo.extend(next_node for next_node, _ in node.next_functions)
    return False


def _primal(tensor, requires_grad):
    return tensor if requires_grad else tensor.detach()


def _tangent(tensor):
    """J t for tensor, summed over the level's duals it depends on; None if it depends on none."""
    duals = [(dual, tangent) for dual, tangent, _ in _level]
    with _tandem().enable_grad():
        cotangent = _tandem().zeros_like(tensor).requires_grad_()
        grads = _tandem().autograd.grad(tensor, [dual for dual, _ in duals], cotangent, create_graph=True,
                                 allow_unused=True)
        # <g, t> in the real inner product Re(sum(conj(g) t)), the one reverse mode's vjp is the adjoint in for
        # complex tensors too: its gradient in u is then J t.
        terms = [(g.conj() * t).real.sum() if g.is_complex() else (g * t.to(g.dtype)).sum()
                 for g, (_, t) in zip(grads, duals) if g is not None]
        if not terms:
            return None
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        if not total.requires_grad:  # J^T u does not depend on u: a zero Jacobian
            return _tandem().zeros_like(tensor)
        (jvp,) = _tandem().autograd.grad(total, cotangent, allow_unused=True)
    return _tandem().zeros_like(tensor) if jvp is None else jvp.detach()


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of tensor: the primal's values without their tangent, and the tangent (None for a tensor
    that depends on no dual tensor of the level, or outside a level)."""
    if _level is None:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, _C.Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not {type(tensor).__name__}")
    if not tensor.requires_grad:
        return UnpackedDualTensor(tensor, None)
    entry = _entry(tensor)
    if entry is not None:
        return UnpackedDualTensor(_primal(tensor, entry[2]), entry[1])
    tangent = _tangent(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_primal(tensor, _reaches_real_leaf(tensor)), tangent)


class dual_level:
    """The scope of dual tensors: `with dual_level(): ...` enters the level and exits it (dropping its tangents)
    however the block ends."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *args):
        exit_dual_level()
        return None
