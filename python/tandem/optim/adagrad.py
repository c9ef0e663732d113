"""Adagrad, as torch.optim.Adagrad: one fused C++ update per parameter (kernels/optim_functors.h), in PyTorch's
order of operations (complex parameters as pairs of reals, as PyTorch)."""
import tandem

from .. import _C

from ..nn.parameter import untracked
from ..sparse import _coo
from .optimizer import Optimizer, implementation_switches


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        switches = implementation_switches(lr, foreach=foreach, differentiable=differentiable, fused=fused)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        # the keys in PyTorch's order, which state_dict()['param_groups'] shows
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=switches["foreach"],
                        maximize=maximize, differentiable=switches["differentiable"], fused=switches["fused"])
        super().__init__(params, defaults)

    def add_param_group(self, param_group):
        # PyTorch creates Adagrad's state up front (the state dict lists every param before the first step);
        # doing it here also covers groups added later.
        super().add_param_group(param_group)
        group = self.param_groups[-1]
        for p in group["params"]:
            value = group["initial_accumulator_value"]
            # Complex params start both halves of their (real-viewed) sum at the value, as in PyTorch.
            value = complex(value, value) if p.is_complex() else value
            self.state[p] = {"step": tandem.tensor(0.0), "sum": tandem.full_like(p, value)}

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p, grad in self._grads(group):
                state = self.state[p]
                untracked(state["step"]).add_(1)
                if grad.is_sparse:
                    _adagrad_step_sparse(p, grad, state, group)
                    continue
                _C._optim_step("adagrad", self._real(p), self._real(grad), self._real(state["sum"]),
                               step=state["step"].item(), lr=group["lr"], weight_decay=group["weight_decay"],
                               eps=group["eps"], maximize=group["maximize"], lr_decay=group["lr_decay"])
        return loss


def _adagrad_step_sparse(p, grad, state, group):
    """PyTorch's Adagrad step for a sparse gradient (nn.Embedding(sparse=True)): the duplicates summed first (the
    update is not linear), then only the rows the gradient names change, in the sum and in the parameter."""
    if group["weight_decay"] != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    with tandem.no_grad():
        clr = group["lr"] / (1 + (state["step"].item() - 1) * group["lr_decay"])
        grad = (-grad if group["maximize"] else grad).coalesce()
        indices, values = grad._indices(), grad._values()
        state["sum"].add_(_coo.wrap(indices, values.pow(2), grad.shape, True))
        std = state["sum"].sparse_mask(grad)._values().sqrt_().add_(group["eps"])
        untracked(p).add_(_coo.wrap(indices, values / std, grad.shape, True), alpha=-clr)
