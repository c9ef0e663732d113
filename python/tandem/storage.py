"""torch.storage: the storage classes (defined in tandem/_storage.py)."""
from ._storage import TypedStorage, UntypedStorage, _warn_typed_storage_removal  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]
