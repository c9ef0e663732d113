"""tandem.utils.data._utils: the collate module at the path PyTorch programs import it from."""
from . import collate  # noqa: F401
