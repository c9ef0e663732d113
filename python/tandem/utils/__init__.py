"""tandem.utils: data loading and activation checkpointing."""
from . import data  # noqa: F401
from . import checkpoint  # noqa: F401
