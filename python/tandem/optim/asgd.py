"""ASGD (averaged SGD), as torch.optim.ASGD: PyTorch's single-tensor order of operations. eta and mu are 0-d
tensors on the parameter's device, float32 (float64 under a float64 default dtype) as PyTorch makes them, and of
the parameter's dtype after load_state_dict (PyTorch's rule for floating state); their values are rounded to the
default dtype either way, so the steps match too."""
import tandem

from ..nn.parameter import untracked
from .optimizer import Optimizer


class ASGD(Optimizer):
    _sparse_grad_error = "ASGD does not support sparse gradients"

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        if isinstance(lr, tandem.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lambd:
            raise ValueError(f"Invalid lambd value: {lambd}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            lr = float(group["lr"])
            lambd, alpha, t0, decay = group["lambd"], group["alpha"], group["t0"], group["weight_decay"]
            for p, grad in self._grads(group):
                state = self.state[p]
                if not state:
                    scalar = _scalar_dtype()
                    state["step"] = tandem.zeros((), device=p.device, dtype=scalar)
                    state["eta"] = tandem.tensor(lr, device=p.device, dtype=scalar)
                    state["mu"] = tandem.ones((), device=p.device, dtype=scalar)
                    state["ax"] = tandem.zeros_like(p)
                param, grad = untracked(p), untracked(grad)
                if group["maximize"]:
                    grad = grad.neg()
                step_t, eta, mu, ax = state["step"], state["eta"], state["mu"], state["ax"]
                untracked(step_t).add_(1)
                step = step_t.item()
                if decay != 0:
                    grad = grad.add(param, alpha=decay)
                eta_value = eta.item()
                param.mul_(1 - lambd * eta_value)
                param.add_(grad, alpha=-eta_value)
                mu_value = mu.item()  # a Python float: the float32 value exactly, as PyTorch's 0-d promotion gives
                if mu_value != 1:
                    ax.add_(param.sub(ax).mul_(mu_value))
                else:
                    ax.copy_(param)
                # PyTorch copies in torch.as_tensor(value): rounded to the default dtype, whatever eta's dtype
                # (a reloaded state has the parameter's, as all floating state but step)
                untracked(eta).copy_(tandem.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
                untracked(mu).copy_(tandem.as_tensor(1 / max(1, step - t0)))
        return loss


def _scalar_dtype():
    """PyTorch's _get_scalar_dtype: float64 under a float64 default dtype, else float32."""
    return tandem.float64 if tandem.get_default_dtype() == tandem.float64 else tandem.float32
