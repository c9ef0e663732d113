"""tandem.optim.adamw: the module PyTorch defines AdamW in (``from torch.optim.adamw import AdamW``); the class
itself shares Adam's step (optim/adam.py)."""
from .adam import AdamW

AdamW.__module__ = __name__  # PyTorch's qualified name, torch.optim.adamw.AdamW

__all__ = ["AdamW"]
