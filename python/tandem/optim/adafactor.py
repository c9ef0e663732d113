"""Adafactor, as torch.optim.Adafactor (PyTorch's current algorithm: factored row/column second moments for
matrices, relative step size min(lr, 1/sqrt(step)) scaled by the parameter's RMS, update clipping by d), in its
single-tensor order of operations."""
import tandem

from ..nn.parameter import untracked
from .optimizer import Optimizer


def _lerp_(t, end, weight):
    """t.lerp_(end, weight) with PyTorch's two-sided formula (exact at weight 1)."""
    if abs(weight) < 0.5:
        return t.add_(end.sub(t).mul_(weight))
    return t.copy_(end.sub(end.sub(t).mul_(1 - weight)))


class Adafactor(Optimizer):
    _sparse_grad_error = "Adafactor does not support sparse gradients"

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, tandem.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr, d = float(group["lr"]), group["d"]
            eps1, eps2 = group["eps"]
            for p, grad in self._grads(group):
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                state = self.state[p]
                if not state:
                    state["step"] = tandem.tensor(0.0)
                    if grad.dim() > 1:
                        row_shape = list(grad.shape)
                        row_shape[-1] = 1
                        state["row_var"] = untracked(grad).new_zeros(row_shape)
                        col_shape = list(grad.shape)
                        col_shape[-2] = 1
                        state["col_var"] = untracked(grad).new_zeros(col_shape)
                    else:
                        state["variance"] = tandem.zeros_like(untracked(grad))
                param, grad = untracked(p), untracked(grad)
                if group["maximize"]:
                    grad = grad.neg()
                if eps1 is None:
                    eps1 = tandem.finfo(param.dtype).eps
                untracked(state["step"]).add_(1)
                step_float = state["step"].item()
                one_minus_beta2_t = step_float ** group["beta2_decay"]
                rho_t = min(lr, 1 / (step_float ** 0.5))
                alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
                if group["weight_decay"] != 0:
                    param.mul_(1 - lr * group["weight_decay"])
                if grad.dim() > 1:
                    row_var, col_var = state["row_var"], state["col_var"]
                    row_mean = tandem.linalg.vector_norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1))
                    _lerp_(row_var, row_mean, one_minus_beta2_t)
                    col_mean = tandem.linalg.vector_norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2))
                    _lerp_(col_var, col_mean, one_minus_beta2_t)
                    var_estimate = row_var @ col_var
                    var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
                else:
                    variance = state["variance"]
                    _lerp_(variance, grad * grad, one_minus_beta2_t)
                    var_estimate = variance.clone()
                update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
                update.mul_(grad)
                denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
                param.add_(update, alpha=-alpha / denom)
        return loss
