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
    _sparse_grad_error = "Adam does not support sparse gradients, please consider SparseAdam instead"

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
                if p.dtype in (tandem.float16, tandem.bfloat16):
                    _adam_step_16bit(p, grad, state, group, int(state["step"].item()))
                    continue
                # complex parameters are updated as pairs of reals, as PyTorch
                _C._adam_step(self._real(p), self._real(grad), self._real(state["exp_avg"]),
                              self._real(state["exp_avg_sq"]), self._real(state.get("max_exp_avg_sq")),
                              int(state["step"].item()), group["lr"], beta1, beta2, group["eps"],
                              group["weight_decay"], amsgrad, group["maximize"], group["decoupled_weight_decay"])
        return loss


def _adam_step_16bit(p, grad, state, group, step):
    """PyTorch's single-tensor Adam/AdamW step, op by op, for float16/bfloat16 parameters (and so states): each op
    rounds to the 16-bit dtype as PyTorch's do, where the fused C++ step keeps float32 between them."""
    beta1, beta2 = group["betas"]
    lr, weight_decay, eps = group["lr"], group["weight_decay"], group["eps"]
    with tandem.no_grad():
        if group["maximize"]:
            grad = -grad
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if group["amsgrad"]:
            tandem.maximum(state["max_exp_avg_sq"], exp_avg_sq, out=state["max_exp_avg_sq"])
            denom = (state["max_exp_avg_sq"].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (param *= 1 - lr * weight_decay before the Adam update)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
