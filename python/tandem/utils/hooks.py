"""tandem.utils.hooks, as torch.utils.hooks: the handle every register_*_hook returns (Captum's attribution
methods import and annotate with it)."""
from ..nn.modules.module_hooks import RemovableHandle  # noqa: F401

__all__ = ["RemovableHandle", "unserializable_hook"]


def unserializable_hook(f):
    """Marks a tensor hook as one that is not saved with the tensor (PyTorch's decorator; tandem saves none)."""
    f.__torch_unserializable__ = True
    return f
