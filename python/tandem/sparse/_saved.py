"""Sparse tensors in a custom autograd.Function's ctx.save_for_backward (pyGAT's SpecialSpmmFunction saves the
sparse adjacency): the node keeps tensors only, so each sparse tensor is saved as its indices and values and
rebuilt, with its size and coalesced flag, before the Function's backward reads ctx.saved_tensors."""
from . import _coo


def flatten(to_save, backward):
    """(tensors to save, backward reading them back as to_save was), or to_save unchanged when it holds no
    sparse tensor (anything else that is not a tensor is left to the node's own TypeError)."""
    plan, flat = [], []
    for t in to_save:
        if type(t) is _coo.SparseCooTensor:
            plan.append((t._size, t._coalesced))
            flat += [t._idx, t._vals]
        else:
            plan.append(None)
            flat.append(t)
    if all(p is None for p in plan):
        return to_save, backward

    def rebuilding_backward(ctx, *grads):
        parts = iter(ctx.saved_tensors)
        ctx.saved_tensors = tuple(next(parts) if p is None else _coo.wrap(next(parts), next(parts), *p) for p in plan)
        return backward(ctx, *grads)

    return tuple(flat), rebuilding_backward
