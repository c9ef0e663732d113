"""Adamax (Adam with an infinity-norm second moment), as torch.optim.Adamax: one fused C++ update per real parameter
(kernels/optim_functors.h), in PyTorch's order of operations; complex parameters take a few in-place tensor ops in
the same order."""
from .. import _C
from .adam import _check
from .optimizer import Optimizer, implementation_switches


class Adamax(Optimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        switches = implementation_switches(lr, foreach=foreach, differentiable=differentiable, capturable=capturable)
        _check(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p, grad in self._grads(group):
                state = self._state_for(p, "exp_avg", "exp_inf")
                if not p.is_complex():
                    _C._optim_step("adamax", p, grad, state["exp_avg"], state["exp_inf"], step=state["step"].item(),
                                   lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"],
                                   maximize=group["maximize"], beta1=beta1, beta2=beta2)
                    continue
                param, grad = self._update_direction(p, grad, group)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                exp_avg.add_(grad.sub(exp_avg).mul_(1 - beta1))  # lerp towards grad
                exp_inf.mul_(beta2).maximum_(grad.abs().add_(group["eps"]))
                clr = group["lr"] / (1 - beta1 ** state["step"].item())
                param.add_(exp_avg.mul(-clr).div_(exp_inf))
        return loss
