"""SparseAdam, as torch.optim.SparseAdam. It updates only the entries present in a sparse gradient; tandem has
no sparse tensors (Embedding(sparse=True) produces dense gradients), so every gradient is dense and step() refuses
it exactly as PyTorch does. The class exists so that programs constructing it get PyTorch's argument checks and
error; use Adam (or Embedding with sparse=False) instead."""
import tandem

from .optimizer import Optimizer


class SparseAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, tandem.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        complex_params = [[i, j] for i, group in enumerate(self.param_groups)
                          for j, p in enumerate(group["params"]) if p.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def step(self, closure=None):
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for _ in self._grads(group):
                raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead\n"
                                   "hint: tandem's gradients are dense, also those of nn.Embedding(sparse=True) "
                                   "(sparse COO gradients are not produced yet); use tandem.optim.Adam")
        return loss
