"""RMSprop (optionally centered, with momentum), as torch.optim.RMSprop: one fused C++ update per real parameter
(kernels/optim_functors.h, in PyTorch's single-tensor order of operations, so results agree to the last bits);
complex parameters take a few in-place tensor ops in the same order."""
import tandem

from .. import _C

from ..nn.parameter import untracked
from .optimizer import Optimizer, implementation_switches


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        switches = implementation_switches(lr, capturable=capturable, foreach=foreach, differentiable=differentiable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, alpha, momentum = group["lr"], group["alpha"], group["momentum"]
            for p, grad in self._grads(group):
                state = self.state[p]
                if not state:
                    state["step"] = tandem.tensor(0.0)
                    state["square_avg"] = tandem.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = tandem.zeros_like(p)
                    if group["centered"]:
                        state["grad_avg"] = tandem.zeros_like(p)
                untracked(state["step"]).add_(1)
                if not p.is_complex():
                    _C._optim_step("rmsprop", p, grad, state["square_avg"],
                                   state["grad_avg"] if group["centered"] else None,
                                   state["momentum_buffer"] if momentum > 0 else None, step=state["step"].item(), lr=lr,
                                   weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                                   alpha=alpha, momentum=momentum, centered=group["centered"])
                    continue
                param, grad = self._update_direction(p, grad, group)
                square_avg = state["square_avg"]
                square_avg.mul_(alpha).add_(grad.mul(1 - alpha).mul_(grad))
                if group["centered"]:
                    grad_avg = state["grad_avg"]
                    grad_avg.add_(grad.sub(grad_avg).mul_(1 - alpha))  # lerp towards grad
                    avg = square_avg.sub(grad_avg.mul(grad_avg)).sqrt_()
                else:
                    avg = square_avg.sqrt()
                avg.add_(group["eps"])
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf.mul_(momentum).add_(grad.div(avg))
                    tandem.add(param, buf, alpha=-lr, out=param)
                else:
                    param.add_(grad.mul(-lr).div_(avg))
        return loss
