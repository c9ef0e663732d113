"""tandem.optim: PyTorch's optimizers. SGD, Adam(W), RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam run one
fused C++ kernel per tensor; the others compose a few in-place tensor ops per tensor in PyTorch's order of
operations."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401
from .asgd import ASGD  # noqa: F401,E402
from .rprop import Rprop  # noqa: F401,E402
from .adafactor import Adafactor  # noqa: F401,E402
from .sparse_adam import SparseAdam  # noqa: F401,E402
from .muon import Muon  # noqa: F401,E402
from . import adamw  # noqa: F401,E402  (PyTorch imports it with the package)
