"""torch.storage: the storage classes (defined in tandem/_storage.py), and _load_from_bytes, which plain pickles
of PyTorch tensors name for their storages."""
from ._storage import TypedStorage, UntypedStorage, _warn_typed_storage_removal  # noqa: F401
from ._torch_legacy_read import load_storage_bytes as _load_from_bytes  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]
