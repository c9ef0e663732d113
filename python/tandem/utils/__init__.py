"""tandem.utils: data loading and activation checkpointing (utils.benchmark and utils.tensorboard load when
imported)."""
from . import data  # noqa: F401
from . import checkpoint  # noqa: F401
