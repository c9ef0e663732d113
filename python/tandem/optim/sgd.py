"""SGD with momentum, dampening, Nesterov momentum and weight decay; one fused C++ update per tensor."""
import tandem

from .. import _C
from ..nn.parameter import untracked
from .optimizer import Optimizer, implementation_switches, required


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        switches = implementation_switches(lr, foreach=foreach, differentiable=differentiable, fused=fused)
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, **switches)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            for p, grad in self._grads(group):
                # as PyTorch, a parameter has a state entry only with momentum (its buffer): plain SGD keeps
                # opt.state and state_dict()["state"] empty (program sweep 21)
                state = self.state[p] if momentum != 0 else {}
                if grad.is_sparse:
                    _sgd_step_sparse(state, p, grad, group)
                    continue
                buf = state.get("momentum_buffer")
                first = False
                if momentum != 0 and buf is None:
                    buf = state["momentum_buffer"] = tandem.empty_like(p)
                    first = True
                if p.dtype in (tandem.float16, tandem.bfloat16):
                    _sgd_step_16bit(p, grad, buf, group, first)
                    continue
                # complex parameters are updated as pairs of reals, as PyTorch
                _C._sgd_step(self._real(p), self._real(grad), self._real(buf), group["lr"], momentum,
                             group["dampening"], group["weight_decay"], group["nesterov"], group["maximize"], first)
        return loss


def _sgd_step_sparse(state, p, grad, group):
    """PyTorch's single-tensor SGD step for a sparse gradient (nn.Embedding(sparse=True)): only the rows the
    gradient names change; the momentum buffer is a sparse tensor too, the gradients' entries accumulated."""
    if group["fused"]:
        raise RuntimeError("`_fused_sgd` does not support sparse gradients")
    with tandem.no_grad():
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])  # PyTorch's refusal: add(sparse, dense)
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.clone()
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        untracked(p).add_(grad, alpha=-group["lr"])


def _sgd_step_16bit(p, grad, buf, group, first):
    """PyTorch's single-tensor SGD step, op by op, for float16/bfloat16 parameters: each op rounds to the 16-bit
    dtype as PyTorch's do (the fused C++ step keeps float32 between them, an ulp or more apart after a few steps)."""
    with tandem.no_grad():
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = _added(grad, p, group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            if first:
                buf.copy_(grad)
            else:
                buf.copy_(_added(buf.mul_(momentum), grad, 1 - group["dampening"]))
            grad = _added(grad, buf, momentum) if group["nesterov"] else buf
        p.copy_(_added(p, grad, -group["lr"]))


def _added(x, y, alpha):
    """x + alpha * y as PyTorch's 16-bit add kernel computes it: alpha rounded to the dtype, the sum in float32,
    rounded once (tandem's add with alpha rounds differently; docs/compat.md, "Program sweep 16")."""
    if alpha == 1:
        return x + y
    alpha = tandem.tensor(alpha, dtype=x.dtype).item()
    return (x.float() + alpha * y.float()).to(x.dtype)
