"""tandem.nn: layers, losses and containers with PyTorch's API. Python keeps the bookkeeping; the math runs
in tandem's C++ ops."""
from .parameter import Parameter, Buffer  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import functional, init, utils, _reduction, grad, common_types  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
from . import attention  # noqa: F401
