"""torch.nn.utils._per_sample_grad.call_for_per_sample_grads: a module's forward that leaves, after backward, each
trainable parameter's per-sample gradients in ``param.grad_sample`` (batch first) and ``param.grad`` untouched.

PyTorch builds this on ExpandedWeights, a tensor subclass whose per-op rules compute the per-sample gradients of
the whole batch in one backward pass. tandem has no such dispatch: the module runs once per sample (the batch
dimension of every batch-sized tensor argument narrowed to that sample) with its parameters replaced by the rows
of one expanded copy, the outputs are concatenated, and the gradient that reaches each copy's row is that sample's
gradient. Numbers agree with PyTorch's to rounding. Where PyTorch refuses, tandem runs: ExpandedWeights has rules
for linear, convolutions, embedding and the group/instance/layer norms only and raises "Expanded Weights
encountered but cannot handle function ..." for any other use of a weight (a matmul, an extra parameter in
arithmetic), and modules whose samples interact (batch norm) get per-sample results. Opacus'
``grad_sample_mode="ew"`` uses it."""
import functools

from ... import _C
from .stateless import func_functional_call as functional_call
from ...utils import _pytree

__all__ = ["call_for_per_sample_grads"]


def _batch_size_of(batch_first, args, kwargs):
    batch_size = None
    for arg in _pytree.tree_leaves((args, kwargs)):
        if not isinstance(arg, _C.Tensor):
            continue
        arg_batch_size = arg.shape[0] if batch_first else arg.shape[1]
        if batch_size is not None and batch_size != arg_batch_size:
            raise RuntimeError(
                "When computing batch size, found at least one input with batch size "
                f"{batch_size} and one with batch size {arg_batch_size}. Please specify it "
                "explicitly using the batch size kwarg in call_for_per_sample_grads")
        batch_size = arg_batch_size
    if batch_size is None:
        raise RuntimeError(
            "Unable to find a tensor in the passed args and kwargs. They may not be pytree-able "
            "and so ExpandedWeights cannot compute the batch size from the inputs. Please specify "
            "it explicitly")
    return batch_size


def _grad_sample_hook(param, scale):
    def hook(grad):
        contribution = grad * scale if scale != 1 else grad.clone()
        previous = getattr(param, "grad_sample", None)
        param.grad_sample = contribution if previous is None else previous + contribution
        return grad
    return hook


def call_for_per_sample_grads(module, *, batch_size=None, loss_reduction="sum", batch_first=True):
    """Returns a function that runs ``module`` on a batch; after backward each trainable parameter's
    ``grad_sample`` holds its per-sample gradients (times the batch size for ``loss_reduction="mean"``)."""
    if loss_reduction not in ["sum", "mean"]:
        raise RuntimeError(f"Expected loss_reduction argument to be sum or mean, got {loss_reduction}")
    from ..modules.module import Module  # noqa: PLC0415  (nn.modules imports nn.utils)

    if not isinstance(module, Module):
        raise RuntimeError(f"Module passed must be nn.Module, got {type(module).__name__}")
    if not (batch_size is None or isinstance(batch_size, int)):
        raise RuntimeError(f"Batch size passed must be None or an integer, got {type(batch_size).__name__}")
    if batch_size is not None and batch_size < 1:
        raise RuntimeError(f"Batch size must be positive, got {batch_size}")
    for weight in module.parameters():
        if hasattr(weight, "grad_sample") and weight.grad_sample is not None:
            raise RuntimeError(
                "Current Expanded Weights accumulates the gradients, which will be incorrect for multiple "
                f"calls without clearing gradients. Please clear out the grad_sample parameter of {weight} or "
                "post an issue to pytorch/pytorch to prioritize correct behavior")
    dim = 0 if batch_first else 1

    @functools.wraps(module.forward)
    def wrapper(*args, **kwargs):
        n = batch_size if batch_size is not None else _batch_size_of(batch_first, args, kwargs)
        scale = n if loss_reduction == "mean" and n > 1 else 1
        expanded = {}
        for name, p in module.named_parameters():
            if p.requires_grad:
                rows = p.detach().unsqueeze(0).expand(n, *p.shape).clone().requires_grad_()
                rows.register_hook(_grad_sample_hook(p, scale))
                expanded[name] = rows

        def sample(x, i):
            if isinstance(x, _C.Tensor) and x.dim() > dim and x.shape[dim] == n:
                return x.narrow(dim, i, 1)
            return x

        outputs = []
        for i in range(n):
            params = {name: rows[i] for name, rows in expanded.items()}
            sample_args, sample_kwargs = _pytree.tree_map(lambda x: sample(x, i), (args, kwargs))
            outputs.append(functional_call(module, params, tuple(sample_args), sample_kwargs))

        def join(*parts):
            first = parts[0]
            if isinstance(first, _C.Tensor) and first.dim() > dim:
                return _C.cat(list(parts), dim)
            return first
        return _pytree.tree_map(join, *outputs)
    return wrapper
