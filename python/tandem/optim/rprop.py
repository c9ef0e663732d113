"""Rprop (resilient backpropagation), as torch.optim.Rprop: per-element step sizes grown by etaplus while the
gradient keeps its sign and shrunk by etaminus when it flips (that step is then skipped), in PyTorch's
single-tensor order of operations."""
import tandem

from ..nn.parameter import untracked
from .optimizer import Optimizer


class Rprop(Optimizer):
    _sparse_grad_error = "Rprop does not support sparse gradients"

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        if isinstance(lr, tandem.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            for p, grad in self._grads(group):
                state = self.state[p]
                if not state:
                    state["step"] = tandem.tensor(0.0)
                    state["prev"] = tandem.zeros_like(p)
                    lr = float(group["lr"])
                    # a complex parameter gets the step size on both its real and its imaginary part
                    state["step_size"] = tandem.full_like(untracked(grad), complex(lr, lr) if p.is_complex() else lr)
                # complex parameters are updated as pairs of reals, as PyTorch
                param, grad = self._real(untracked(p)), self._real(untracked(grad))
                if group["maximize"]:
                    grad = grad.neg()
                prev, step_size = self._real(state["prev"]), self._real(state["step_size"])
                untracked(state["step"]).add_(1)
                sign = grad.mul(prev).sign()
                factor = tandem.where(sign > 0, tandem.full_like(sign, etaplus),
                                      tandem.where(sign < 0, tandem.full_like(sign, etaminus),
                                                   tandem.ones_like(sign)))
                step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                grad = tandem.where(factor == etaminus, tandem.zeros_like(grad), grad)
                param.addcmul_(grad.sign(), step_size, value=-1)
                prev.copy_(grad)
        return loss
