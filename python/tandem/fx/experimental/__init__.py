"""tandem.fx.experimental: graph optimisations (optimization.fuse)."""
