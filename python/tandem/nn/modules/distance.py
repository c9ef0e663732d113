"""PyTorch's module path for the distance layers (torch.nn.modules.distance.PairwiseDistance), which pickled
models and safe_globals lists name; they are defined in loss_more.py."""
from .loss_more import CosineSimilarity, PairwiseDistance

__all__ = ["CosineSimilarity", "PairwiseDistance"]
