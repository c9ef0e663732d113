"""Adamax (Adam with an infinity-norm second moment), as torch.optim.Adamax: one fused C++ update per parameter
(kernels/optim_functors.h), in PyTorch's order of operations (complex parameters as pairs of reals, as PyTorch)."""
from .. import _C
from .adam import _check
from .optimizer import Optimizer, implementation_switches


class Adamax(Optimizer):
    _sparse_grad_error = "Adamax does not support sparse gradients"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        switches = implementation_switches(lr, foreach=foreach, differentiable=differentiable, capturable=capturable)
        _check(lr, betas, eps, weight_decay)
        # the keys in PyTorch's order, which state_dict()['param_groups'] shows
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, foreach=switches["foreach"],
                        maximize=maximize, differentiable=switches["differentiable"],
                        capturable=switches["capturable"])
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p, grad in self._grads(group):
                state = self._state_for(p, "exp_avg", "exp_inf")
                _C._optim_step("adamax", self._real(p), self._real(grad), self._real(state["exp_avg"]),
                               self._real(state["exp_inf"]), step=state["step"].item(), lr=group["lr"],
                               weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                               beta1=beta1, beta2=beta2)
        return loss
