"""PyTorch's module path for the embedding layers (torch.nn.modules.sparse.Embedding), which programs name, e.g.
in torch.serialization.safe_globals lists; the classes live in linear.py and embedding_bag.py."""
from .embedding_bag import EmbeddingBag
from .linear import Embedding

__all__ = ["Embedding", "EmbeddingBag"]
