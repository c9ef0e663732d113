"""SparseAdam, as torch.optim.SparseAdam: Adam for the sparse gradients of nn.Embedding(sparse=True), updating
only the rows a gradient names (their moments and the parameter; the other rows' moments do not decay). A dense
gradient is refused as PyTorch refuses it."""
import math

import tandem

from ..nn.parameter import untracked
from ..sparse import _coo

from .optimizer import Optimizer


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, tandem.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            updates = []
            for p, grad in self._grads(group):  # PyTorch checks every gradient of the group before updating
                if not grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                state = self.state[p]
                if not state:
                    state["step"] = 0  # a Python int, as PyTorch's
                    state["exp_avg"] = tandem.zeros_like(p, memory_format=tandem.preserve_format)
                    state["exp_avg_sq"] = tandem.zeros_like(p, memory_format=tandem.preserve_format)
                state["step"] += 1
                updates.append((p, grad, state))
            with tandem.no_grad():
                for p, grad, state in updates:
                    _sparse_adam_step(p, -grad if group["maximize"] else grad, state, group["lr"], beta1, beta2,
                                      group["eps"])
        return loss


def _sparse_adam_step(p, grad, state, lr, beta1, beta2, eps):
    """Adam's moment updates and step on the rows of the coalesced gradient, in PyTorch's order of operations: each
    moment moves by (1 - beta) * (new - old) on those rows."""
    grad = grad.coalesce()
    indices, values = grad._indices(), grad._values()
    if values.numel() == 0:
        return
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]

    def rows(v):
        return _coo.wrap(indices, v, grad.shape, True)

    old_avg = exp_avg.sparse_mask(grad)._values()
    avg_update = values.sub(old_avg).mul_(1 - beta1)
    exp_avg.add_(rows(avg_update))
    old_avg_sq = exp_avg_sq.sparse_mask(grad)._values()
    avg_sq_update = values.pow(2).sub_(old_avg_sq).mul_(1 - beta2)
    exp_avg_sq.add_(rows(avg_sq_update))
    numer = avg_update.add_(old_avg)
    denom = avg_sq_update.add_(old_avg_sq).sqrt_().add_(eps)
    step = state["step"]
    step_size = lr * math.sqrt(1 - beta2**step) / (1 - beta1**step)
    untracked(p).add_(rows(-step_size * numer.div_(denom)))
