"""RMSprop (optionally centered, with momentum), as torch.optim.RMSprop: one fused C++ update per parameter
(kernels/optim_functors.h, in PyTorch's single-tensor order of operations; complex parameters as pairs of reals,
as PyTorch)."""
import tandem

from .. import _C

from ..nn.parameter import untracked
from .optimizer import Optimizer, implementation_switches


class RMSprop(Optimizer):
    _sparse_grad_error = "RMSprop does not support sparse gradients"

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
        # the keys in PyTorch's order, which state_dict()['param_groups'] shows
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered, weight_decay=weight_decay,
                        capturable=switches["capturable"], foreach=switches["foreach"], maximize=maximize,
                        differentiable=switches["differentiable"])
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
                _C._optim_step("rmsprop", self._real(p), self._real(grad), self._real(state["square_avg"]),
                               self._real(state["grad_avg"] if group["centered"] else None),
                               self._real(state["momentum_buffer"] if momentum > 0 else None),
                               step=state["step"].item(), lr=lr, weight_decay=group["weight_decay"], eps=group["eps"],
                               maximize=group["maximize"], alpha=alpha, momentum=momentum, centered=group["centered"])
        return loss
