"""Adadelta, as torch.optim.Adadelta: one fused C++ update per real parameter (kernels/optim_functors.h), in
PyTorch's order of operations; complex parameters take a few in-place tensor ops in the same order."""
import tandem

from .. import _C

from .optimizer import Optimizer, implementation_switches


class Adadelta(Optimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        switches = implementation_switches(lr, foreach=foreach, capturable=capturable, differentiable=differentiable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            rho, eps = group["rho"], group["eps"]
            for p, grad in self._grads(group):
                state = self._state_for(p, "square_avg", "acc_delta")
                if not p.is_complex():
                    _C._optim_step("adadelta", p, grad, state["square_avg"], state["acc_delta"],
                                   step=state["step"].item(), lr=group["lr"], weight_decay=group["weight_decay"],
                                   eps=eps, maximize=group["maximize"], alpha=rho)
                    continue
                param, grad = self._update_direction(p, grad, group)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                square_avg.mul_(rho).add_(grad.mul(1 - rho).mul_(grad))
                std = square_avg.add(eps).sqrt_()
                delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
                acc_delta.mul_(rho).add_(delta.mul(1 - rho).mul_(delta))
                tandem.add(param, delta, alpha=-group["lr"], out=param)
        return loss
