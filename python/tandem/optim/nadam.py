"""NAdam (Adam with Nesterov momentum and a momentum-decay schedule), as torch.optim.NAdam: one fused C++ update per
parameter (kernels/optim_functors.h), in PyTorch's order of operations (complex parameters as pairs of reals, as
PyTorch)."""
import tandem

from .. import _C

from ..nn.parameter import untracked
from .adam import _check
from .optimizer import Optimizer, implementation_switches


class NAdam(Optimizer):
    _sparse_grad_error = "NAdam does not support sparse gradients"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        switches = implementation_switches(lr, foreach=foreach, capturable=capturable, differentiable=differentiable)
        _check(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, momentum_decay = group["lr"], group["momentum_decay"]
            beta1, beta2 = group["betas"]
            for p, grad in self._grads(group):
                state = self.state[p]
                if not state:
                    state["step"] = tandem.tensor(0.0)
                    # A float32 scalar tensor as in PyTorch, so the running product rounds the same way.
                    state["mu_product"] = tandem.tensor(1.0)
                    state["exp_avg"] = tandem.zeros_like(p)
                    state["exp_avg_sq"] = tandem.zeros_like(p)
                untracked(state["step"]).add_(1)
                step = state["step"].item()
                # mu_t of the momentum schedule, into the running product (the kernel derives mu_t and mu_{t+1}).
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                untracked(state["mu_product"]).mul_(mu)
                _C._optim_step("nadam", self._real(p), self._real(grad), self._real(state["exp_avg"]),
                               self._real(state["exp_avg_sq"]), step=step, lr=lr, weight_decay=group["weight_decay"],
                               eps=group["eps"], maximize=group["maximize"], beta1=beta1, beta2=beta2,
                               momentum_decay=momentum_decay, mu_product=state["mu_product"].item(),
                               decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss
