"""tandem.func: only functional_call so far (torch.func's transforms grad/vmap/jacrev are not in tandem; use
tandem.autograd.grad and tandem.autograd.functional instead)."""
from .nn.utils.stateless import _functional_call as functional_call

__all__ = ["functional_call"]
