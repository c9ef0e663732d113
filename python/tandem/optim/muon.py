"""Muon (momentum, then the update orthogonalised by a Newton-Schulz iteration), as torch.optim.Muon: for the 2-d
weights of hidden layers (biases and embeddings go to another optimizer). Tensor ops in PyTorch's order: the
iteration runs in bfloat16 as PyTorch's does, so results agree to bfloat16 rounding of the products."""
import math

import tandem

from .optimizer import Optimizer

_ADJUST_LR_FNS = ("original", "match_rms_adamw", "spectral_unclamped")


def _orthogonalized(update, ns_coefficients, ns_steps, eps):
    """About U V^T for update = U S V^T (singular values pushed towards 1 by a quintic Newton-Schulz iteration whose
    coefficients maximise the slope at zero, so a few steps suffice), on the wide orientation of the matrix."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.dim() != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    tall = update.size(0) > update.size(1)
    x = update.to(dtype=tandem.bfloat16, copy=True)
    if tall:
        x = x.T
    x.div_(x.norm().clamp(min=eps))
    for _ in range(ns_steps):
        gram = x @ x.T
        x = tandem.addmm(x, tandem.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if tall else x


def _adjusted_lr(lr, adjust_lr_fn, shape):
    """lr scaled for a fan_out x fan_in matrix so the update's size is comparable across shapes."""
    fan_out, fan_in = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, fan_out / fan_in))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(fan_out, fan_in))
    return lr * math.sqrt(fan_out / fan_in)  # spectral_unclamped


class Muon(Optimizer):
    _sparse_grad_error = "Muon does not support sparse gradients"

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(3.4445, -4.7750, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None):
        if isinstance(lr, tandem.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in _ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.dim() != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def step(self, closure=None):
        loss = self._evaluate(closure)
        with tandem.no_grad():
            for group in self.param_groups:
                lr, momentum = group["lr"], group["momentum"]
                for p, grad in self._grads(group):
                    if p.is_complex():
                        raise RuntimeError("Muon does not support complex parameters")
                    if grad.dim() != 2:
                        raise ValueError("Param gradient must be a 2D matrix")
                    state = self.state[p]
                    if "momentum_buffer" not in state:
                        state["momentum_buffer"] = tandem.zeros_like(grad)
                    buf = state["momentum_buffer"]
                    buf.lerp_(grad, 1 - momentum)
                    update = grad.lerp(buf, momentum) if group["nesterov"] else buf
                    update = _orthogonalized(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                    p.mul_(1 - lr * group["weight_decay"])
                    p.add_(update, alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], p.shape))
        return loss
