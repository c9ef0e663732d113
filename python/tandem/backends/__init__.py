"""tandem.backends: process-wide switches of the math backends, as torch.backends."""
from . import cpu  # noqa: F401
from . import cuda  # noqa: F401
from . import cudnn  # noqa: F401  (flags only: tandem has no cuDNN)
from . import mps  # noqa: F401  (never available: tandem has no Metal backend)
