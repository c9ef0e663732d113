"""Sparse gradients for embedding lookups (nn.Embedding / EmbeddingBag with sparse=True), as PyTorch gives them: the
weight's .grad is a sparse COO tensor whose entries are the looked-up rows (one per lookup, uncoalesced, padding_idx
lookups left out), so an optimizer that takes sparse gradients (SGD, Adagrad, SparseAdam) touches only those rows.

tandem's sparse tensors are Python objects over a placeholder C++ tensor (tandem/sparse/_base.py), so the C++
autograd engine cannot carry one. The lookup is a Function whose backward builds the sparse gradient and, when the
engine is running backward() into this leaf, accumulates it into weight.grad itself with PyTorch's AccumulateGrad
rules (none yet: stored; sparse: added in place; dense: added into it) and hands the engine nothing for the weight.
Elsewhere (autograd.grad, a weight that is not a leaf) it hands the engine the same gradient as a dense tensor."""
import weakref

import tandem

from .. import _C
from ..autograd.function import Function
from ..sparse import _coo

# id(tensor) -> the sparse tensor last assigned to its .grad. The .grad slot holds the sparse tensor's C++ placeholder
# and only a weak reference to the Python object (python/src/tensor_objects.h, grad_objects), so the object is kept here.
# One per tensor, dropped with the tensor; a grad set to None since stays until then (memory, not a wrong value:
# the slot is what .grad reads).
_held_grads = {}


def gather_rows(weight, rows, padding_idx=None):
    """weight[rows] for 1-d integer ``rows``, its weight gradient a sparse COO tensor (the module docstring)."""
    return _SparseRowGather.apply(weight, rows.long(), padding_idx)


class _SparseRowGather(Function):
    @staticmethod
    def forward(ctx, weight, rows, padding_idx):
        ctx.weight, ctx.rows, ctx.padding_idx = weight, rows, padding_idx
        return weight.index_select(0, rows)

    @staticmethod
    def backward(ctx, grad):
        weight, rows = ctx.weight, ctx.rows
        if ctx.padding_idx is not None:  # PyTorch's sparse backward leaves the padding lookups out
            keep = rows != ctx.padding_idx
            rows, grad = rows[keep], grad[keep]
        sparse = _coo.wrap(rows.unsqueeze(0), grad, weight.shape, False)
        if _accumulates_into(weight):
            _accumulate(weight, sparse)
            return None, None, None
        return sparse.to_dense(), None, None


def _accumulates_into(weight):
    """True when the engine runs backward() and will add into this leaf's .grad (not autograd.grad, which reads
    gradients without accumulating, nor backward(inputs=...) that leaves the weight out)."""
    if weight.grad_fn is not None:
        return False
    node = _C._grad_fn_or_accumulator(weight)
    try:
        return _C._will_engine_execute_node(node)
    except RuntimeError:  # the engine's answer for a leaf inside autograd.grad(): it does not accumulate
        return False


def _accumulate(weight, sparse):
    """weight.grad += sparse by PyTorch's AccumulateGrad rules (in place unless a graph is being recorded)."""
    current = weight.grad
    if current is None:
        weight.grad = sparse
    elif tandem.is_grad_enabled():  # create_graph: a new grad, as PyTorch's out-of-place sum
        weight.grad = current + sparse if current.is_sparse else current + sparse.to_dense()
    else:
        current.add_(sparse)  # sparse + sparse stays sparse; a dense grad takes the rows in place


def hold(tensor, grad):
    """Keeps ``grad``, a sparse tensor just assigned to ``tensor.grad``, alive while ``tensor`` lives (the .grad
    setter calls this; a later sparse grad replaces it). The first time, it also gives a tensor that requires grad
    a hook for dense gradients that arrive while its .grad is sparse (the same weight used densely too, as a tied
    output projection): PyTorch's sum of the two is dense."""
    key = id(tensor)
    if key not in _held_grads:
        weakref.finalize(tensor, _held_grads.pop, key, None)
        if tensor.requires_grad and tensor.grad_fn is None:
            owner = weakref.ref(tensor)  # the hook lives in the tensor: no reference back to it
            tensor.register_hook(lambda dense: _dense_onto_sparse(owner(), dense))
    _held_grads[key] = grad


def _dense_onto_sparse(tensor, dense):
    """The engine is about to add ``dense`` into tensor.grad; when that is sparse, it becomes the (dense) sum and
    the slot is emptied, so the engine stores the sum instead of adding into the sparse tensor's placeholder."""
    current = None if tensor is None else tensor.grad
    if current is None or not current.is_sparse or not _accumulates_into(tensor):
        return None
    tensor.grad = None
    return dense + current.to_dense()
