"""tandem.optim: optimizers whose per-tensor update runs as one fused C++ kernel."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from . import lr_scheduler  # noqa: F401
