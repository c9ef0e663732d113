"""Sparse tensors in a custom autograd.Function's ctx.save_for_backward (pyGAT's SpecialSpmmFunction saves the
sparse adjacency): the node keeps tensors only, so each sparse tensor is saved as its parts (COO: indices and
values; CSR: crow_indices, col_indices and values) and rebuilt, with its size (and COO's coalesced flag), before
the Function's backward reads ctx.saved_tensors."""
from . import _coo, _csc, _csr


def _parts(t):
    """(the tensors t is made of, how to rebuild t from them), or None for a tensor saved as it is."""
    if type(t) is _coo.SparseCooTensor:
        size, coalesced = t._size, t._coalesced
        return [t._idx, t._vals], lambda indices, values: _coo.wrap(indices, values, size, coalesced)
    if type(t) is _csr.SparseCsrTensor:
        size = t._size
        return [t._crow, t._col, t._vals], lambda crow, col, values: _csr.wrap(crow, col, values, size)
    if type(t) is _csc.SparseCscTensor:
        size = t._size
        return [t._ccol, t._row, t._vals], lambda ccol, row, values: _csc.wrap(ccol, row, values, size)
    return None


def flatten(to_save, backward):
    """(tensors to save, backward reading them back as to_save was), or to_save unchanged when it holds no
    sparse tensor (anything else that is not a tensor is left to the node's own TypeError)."""
    plan, flat = [], []
    for t in to_save:
        parts = _parts(t)
        if parts is None:
            plan.append(None)
            flat.append(t)
        else:
            plan.append((len(parts[0]), parts[1]))
            flat += parts[0]
    if all(p is None for p in plan):
        return to_save, backward

    def rebuilding_backward(ctx, *grads):
        saved = iter(ctx.saved_tensors)
        ctx.saved_tensors = tuple(next(saved) if p is None else p[1](*(next(saved) for _ in range(p[0])))
                                  for p in plan)
        return backward(ctx, *grads)

    return tuple(flat), rebuilding_backward
