"""tandem.utils.data._utils: the collate and worker modules at the paths PyTorch programs import them from."""
from . import collate, worker  # noqa: F401
