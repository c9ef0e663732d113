"""RAdam (Adam with a rectified adaptive learning rate), as torch.optim.RAdam: one fused C++ update per parameter
(kernels/optim_functors.h), in PyTorch's order of operations (complex parameters as pairs of reals, as PyTorch)."""
from .. import _C
from .adam import _check
from .optimizer import Optimizer, implementation_switches


class RAdam(Optimizer):
    _sparse_grad_error = "RAdam does not support sparse gradients"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        switches = implementation_switches(lr, foreach=foreach, capturable=capturable, differentiable=differentiable)
        _check(lr, betas, eps, weight_decay)
        # the keys in PyTorch's order, which state_dict()['param_groups'] shows
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=switches["foreach"], capturable=switches["capturable"],
                        decoupled_weight_decay=decoupled_weight_decay, differentiable=switches["differentiable"])
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p, grad in self._grads(group):
                state = self._state_for(p, "exp_avg", "exp_avg_sq")
                # The kernel derives rho_t and takes the plain momentum step while it is <= 5 (PyTorch's branch).
                _C._optim_step("radam", self._real(p), self._real(grad), self._real(state["exp_avg"]),
                               self._real(state["exp_avg_sq"]), step=state["step"].item(), lr=group["lr"],
                               weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                               beta1=beta1, beta2=beta2, decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss
