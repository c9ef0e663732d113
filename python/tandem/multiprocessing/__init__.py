"""tandem.multiprocessing: Python's multiprocessing with tensors that cross processes through shared memory,
as torch.multiprocessing.

Everything in ``multiprocessing`` is here under the same names (Process, Queue, Pool, get_context, ...). A tensor
sent through one of its queues, pipes or process arguments arrives as a view of the same shared memory, not as
a pickled copy of its elements (see reductions.py).
"""
import multiprocessing
import sys
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions
from .spawn import (ProcessContext, ProcessException, ProcessExitedException, ProcessRaisedException,  # noqa: F401
                    spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies", "spawn", "start_processes",
           "ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException"]
__all__ += multiprocessing.__all__

# Both of PyTorch's names are accepted so programs that pick one run unchanged; tandem moves CPU tensors by file
# descriptor under either (its blocks have no name in /dev/shm to leak, and a received block holds no descriptor,
# which is the problem "file_system" works around in PyTorch).
_all_sharing_strategies = {"file_descriptor", "file_system"} if sys.platform != "darwin" else {"file_system"}
_sharing_strategy = "file_descriptor" if sys.platform != "darwin" else "file_system"


def set_sharing_strategy(new_strategy):
    """Sets the strategy for sharing CPU tensors (one of get_all_sharing_strategies())."""
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of {_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """The current strategy for sharing CPU tensors."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """The set of strategies supported on this system."""
    return set(_all_sharing_strategies)


init_reductions()
