"""torch.utils.swap_tensors: two tensor objects exchange contents while each keeps its identity (id(), the
references others hold), which is how `nn.Module.to()` keeps optimizers' parameter references valid under
`torch.__future__.set_swap_module_params_on_conversion(True)`."""
import copyreg
import weakref

from .. import _C


def _check_use_count(t, name):
    # The Python object holds one reference and a leaf's gradient accumulator (a graph that reached it) may
    # hold another; any other holder (a graph that saved the tensor, another C++ reference) would keep seeing
    # the old contents, so PyTorch refuses.
    use_count = t._use_count()
    allowed = 2 if t.requires_grad and t.is_leaf else 1
    if use_count > allowed:
        raise RuntimeError(f"Expected use_count of {name} to be 1 or 2 with an AccumulateGrad node but got "
                           f"{use_count} make sure you are not holding references to the tensor in other places.")
    if use_count == 2:
        # A graph reaches the leaf's accumulator, which would now accumulate into the other object: that
        # backward fails instead, with PyTorch's message.
        from ..autograd.graph import get_gradient_edge
        get_gradient_edge(t).node.register_prehook(_poisoned_accumulator)


def _poisoned_accumulator(grad_outputs):
    raise RuntimeError(
        "Trying to execute AccumulateGrad node that was poisoned by swap_tensors this can happen when you try to "
        "run backward on a tensor that was swapped. For a module m with "
        "`torch.__future__.set_swap_module_params_on_conversion(True)` you should not change the device or dtype "
        "of the module (e.g. `m.cpu()` or `m.half()`) between running forward and backward. To resolve this, "
        "please only change the device/dtype before running forward (or after both forward and backward).")


def swap_tensors(t1, t2):
    """Swaps the content of the two Tensor objects: t1 gets t2's class, attributes and data, and t2 t1's."""
    # The weak references tandem keeps to a gradient's or a leaf's object (so that p.grad is p.grad and
    # AccumulateGrad.variable is the leaf) are not the user's.
    _C._release_tensor_objects(t1)
    _C._release_tensor_objects(t2)
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    t1_slots = set(copyreg._slotnames(t1.__class__))
    t2_slots = set(copyreg._slotnames(t2.__class__))
    if t1_slots != t2_slots:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    _check_use_count(t1, "t1")
    _check_use_count(t2, "t2")

    def swap_attr(name):
        tmp = getattr(t1, name)
        setattr(t1, name, getattr(t2, name))
        setattr(t2, name, tmp)

    swap_attr("__class__")
    swap_attr("__dict__")
    for slot in t1_slots:
        if hasattr(t1, slot) and hasattr(t2, slot):
            swap_attr(slot)
        elif hasattr(t1, slot):
            setattr(t2, slot, getattr(t1, slot))
            delattr(t1, slot)
        elif hasattr(t2, slot):
            setattr(t1, slot, getattr(t2, slot))
            delattr(t2, slot)
    _C._swap_tensor_impl(t1, t2)
