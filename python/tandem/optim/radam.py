"""RAdam (Adam with a rectified adaptive learning rate), as torch.optim.RAdam: one fused C++ update per real
parameter (kernels/optim_functors.h), in PyTorch's order of operations; complex parameters take a few in-place
tensor ops in the same order."""
from .. import _C
from .adam import _check
from .optimizer import Optimizer, implementation_switches


class RAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        switches = implementation_switches(lr, foreach=foreach, capturable=capturable, differentiable=differentiable)
        _check(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = group["lr"]
            beta1, beta2 = group["betas"]
            # The maximum length of the approximated simple moving average.
            rho_inf = 2 / (1 - beta2) - 1
            for p, grad in self._grads(group):
                state = self._state_for(p, "exp_avg", "exp_avg_sq")
                step = state["step"].item()
                if not p.is_complex():
                    _C._optim_step("radam", p, grad, state["exp_avg"], state["exp_avg_sq"], step=step, lr=lr,
                                   weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                                   beta1=beta1, beta2=beta2,
                                   decoupled_weight_decay=group["decoupled_weight_decay"])
                    continue
                param, grad = self._update_direction(p, grad, group)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg.add_(grad.sub(exp_avg).mul_(1 - beta1))  # lerp towards grad
                exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul_(grad))
                bias_correction2 = 1 - beta2 ** step
                update = exp_avg.div(1 - beta1 ** step).mul_(lr)
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                # Early on the variance of the adaptive rate is intractable: take a plain momentum step then.
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    # PyTorch evaluates scalar / tensor as reciprocal(tensor) * scalar.
                    adaptive_lr = (1.0 / exp_avg_sq.sqrt().add_(group["eps"])).mul_(bias_correction2 ** 0.5)
                    update.mul_(adaptive_lr).mul_(rect)
                param.sub_(update)
        return loss
