"""tandem.backends: process-wide switches of the math backends, as torch.backends."""
from . import cuda  # noqa: F401
