"""Adadelta, as torch.optim.Adadelta: one fused C++ update per parameter (kernels/optim_functors.h), in PyTorch's
order of operations (complex parameters as pairs of reals, as PyTorch)."""
from .. import _C
from .optimizer import Optimizer, implementation_switches


class Adadelta(Optimizer):
    _sparse_grad_error = "Adadelta does not support sparse gradients"

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        switches = implementation_switches(lr, capturable=capturable, foreach=foreach, differentiable=differentiable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        # the keys in PyTorch's order, which state_dict()['param_groups'] shows
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p, grad in self._grads(group):
                state = self._state_for(p, "square_avg", "acc_delta")
                _C._optim_step("adadelta", self._real(p), self._real(grad), self._real(state["square_avg"]),
                               self._real(state["acc_delta"]), step=state["step"].item(), lr=group["lr"],
                               weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                               alpha=group["rho"])
        return loss
