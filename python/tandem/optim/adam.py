"""Adam and AdamW (optionally AMSGrad); one fused C++ update per tensor."""
import tandem

from .. import _C
from .._C import Tensor
from ..nn.parameter import untracked
from .optimizer import Optimizer, implementation_switches


def _check(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        switches = implementation_switches(lr, foreach=foreach, capturable=capturable,
                                           differentiable=differentiable, fused=fused)
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        _check(lr, betas, eps, weight_decay)
        # the keys in PyTorch's order, which state_dict()['param_groups'] shows
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, **switches, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            amsgrad = group["amsgrad"]
            for p, grad in self._grads(group):
                state = self.state[p]
                if not state:
                    state["step"] = tandem.tensor(0.0)
                    state["exp_avg"] = tandem.zeros_like(p)
                    state["exp_avg_sq"] = tandem.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = tandem.zeros_like(p)
                untracked(state["step"]).add_(1)
                # complex parameters are updated as pairs of reals, as PyTorch
                _C._adam_step(self._real(p), self._real(grad), self._real(state["exp_avg"]),
                              self._real(state["exp_avg_sq"]), self._real(state.get("max_exp_avg_sq")),
                              int(state["step"].item()), group["lr"], beta1, beta2, group["eps"],
                              group["weight_decay"], amsgrad, group["maximize"], group["decoupled_weight_decay"])
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (param *= 1 - lr * weight_decay before the Adam update)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
