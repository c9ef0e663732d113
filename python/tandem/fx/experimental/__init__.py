"""tandem.fx.experimental: graph optimisations (optimization.fuse)."""
from . import optimization  # noqa: F401
