"""How tensors cross between processes, and Tensor.share_memory_() / is_shared().

Through a tandem.multiprocessing queue, pipe or process argument (multiprocessing's ForkingPickler), a CPU
tensor travels as a file descriptor of a shared memory block (_shared_memory.py) plus its dtype and geometry,
never element by element: the receiver maps the same memory. A tensor already in shared memory (after
share_memory_(), or received from another process) is sent without a copy, so writes on either side are seen
by both; any other CPU tensor is first copied once into a new block (the sender's tensor is left as it was).
Device tensors cross through a shared host copy and are rebuilt on the same device by the receiver.

Plain pickle (pickle.dumps, copy.deepcopy) gets a tensor's values by copy, as PyTorch.
"""
import os
from multiprocessing.context import get_spawning_popen
from multiprocessing.reduction import DupFd, ForkingPickler

import tandem

from .. import _C
from .._C import Tensor
from .._tensor_state import get_state, has_state
from . import _shared_memory as shm

_CUDA_FORK_MESSAGE = ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
                      "the 'spawn' start method")
_forked = False  # set in a child made by fork(): its parent's device streams did not come with it


def _after_fork_in_child():
    global _forked
    _forked = True


os.register_at_fork(after_in_child=_after_fork_in_child)


def check_device_usable_here(device):
    """PyTorch's refusal of CUDA in a forked child: the parent's device worker threads do not survive fork(), so
    any work queued on them from here would wait forever."""
    if _forked and device.type == "cuda":
        raise RuntimeError(_CUDA_FORK_MESSAGE + "\nhint: pass multiprocessing_context='spawn' (or 'forkserver') "
                           "to the DataLoader or tandem.multiprocessing.get_context('spawn'), or keep device "
                           "tensors out of the child and move the batch to the device in the main process")


def is_shared(self):
    """True when the tensor's memory can be seen by other processes: a CPU tensor in a shared memory block.
    (A device tensor answers False; PyTorch answers True for CUDA tensors, which it shares through CUDA IPC.)"""
    return shm.block_of(self) is not None


def share_memory_(self):
    """Moves the tensor's memory into a shared memory block, in place, and returns the tensor: every process it is
    later sent to maps the same memory. A no-op if already shared or on a device (as PyTorch, for CUDA)."""
    if self.device.type != "cpu" or shm.block_of(self) is not None:
        return self
    if self.dtype not in shm.NUMPY_DTYPES:
        raise TypeError(f"share_memory_(): {self.dtype} tensors cannot be shared yet\nhint: share a float32 copy "
                        "(t.float().share_memory_()) and convert back where it is used")
    _, shared = shm.new_shared_copy(self)
    # Re-points this tensor (its Python object, grad and autograd state kept) at the shared copy. Other views of
    # the old memory keep the old memory: tandem cannot swap a storage's memory under its views yet.
    _C._set_data(self, shared)
    return self


def _rebuild_shared(dup_fd, nbytes, dtype_name, shape, strides, offset, requires_grad):
    block = shm.Block(dup_fd.detach(), nbytes, keep_fd=False)
    t = shm.tensor_over(block, getattr(tandem, dtype_name), shape, strides, offset)
    return t.requires_grad_() if requires_grad else t


def _rebuild_on_device(host, device, requires_grad):
    check_device_usable_here(tandem.device(device))
    t = host.to(device)
    return t.requires_grad_() if requires_grad else t


def _rebuild_subclass(cls, data, requires_grad):
    return _C._make_subclass(cls, data, requires_grad)


def _rebuild_from_bytes(data, dtype_name, shape, device, requires_grad):
    t = _C._tensor_from_bytes(data, 0, getattr(tandem, dtype_name), shape)
    if device != "cpu":
        t = t.to(device)
    return t.requires_grad_() if requires_grad else t


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def reduce_tensor(t):
    """ForkingPickler's reduction of a Tensor (and of its subclasses such as Parameter)."""
    if type(t) is not Tensor:  # a Parameter stays a Parameter
        return _rebuild_subclass, (type(t), t.detach(), t.requires_grad)
    if t.device.type != "cpu":
        check_device_usable_here(t.device)
        return _rebuild_on_device, (t.detach().cpu(), str(t.device), t.requires_grad)
    if t.dtype not in shm.NUMPY_DTYPES:  # bfloat16: by value
        return _reduce_by_value(t)
    block = shm.block_of(t)
    if block is not None and block.fd is not None:
        offset = (t.data_ptr() - block.addr) // t.element_size()
        return _rebuild_shared, (DupFd(block.fd), block.nbytes, _dtype_name(t), tuple(t.shape), tuple(t.stride()),
                                 offset, t.requires_grad)
    popen = get_spawning_popen()
    if popen is not None and block is None:
        # A process argument (spawn, forkserver): the descriptor must stay open until the child has started, so
        # the tensor itself moves into shared memory (as PyTorch does), and every worker maps that one copy.
        share_memory_(t)
        # The Popen object outlives the child's start: keeping the tensor there keeps its block's descriptor open
        # until then, also for a temporary (the host copy of a cuda tensor, freed when pickling ends).
        popen.__dict__.setdefault("_tandem_keep_alive", []).append(t)
        return reduce_tensor(t)
    # Not shared, or received from elsewhere (a received block keeps no descriptor): one copy into a new block.
    block, copy = shm.new_shared_copy(t)
    if popen is not None:
        # A received tensor passed on as a process argument (a spawned child starting its own DataLoader
        # workers): the copy's descriptor, too, must outlive pickling until the grandchild has started.
        popen.__dict__.setdefault("_tandem_keep_alive", []).append(copy)
    return _rebuild_shared, (DupFd(block.fd), block.nbytes, _dtype_name(t), tuple(t.shape), tuple(t.stride()), 0,
                             t.requires_grad)


def _reduce_by_value(t):
    return _rebuild_from_bytes, (_C._tensor_bytes(t), _dtype_name(t), tuple(t.shape), str(t.device),
                                 t.requires_grad)


def _tensor_reduce_ex(self, protocol):
    """Plain pickling (pickle.dumps, copy.deepcopy): the values, by copy, as PyTorch."""
    state = get_state(self)  # attributes, slots, or a subclass's own __getstate__: pickle's BUILD restores them
    if type(self) is not Tensor:
        return _rebuild_subclass, (type(self), Tensor.detach(self), self.requires_grad), state
    return _reduce_by_value(self) + ((state,) if has_state(state) else ())


def init_reductions():
    """Registers the tensor reductions with multiprocessing's pickler (done when tandem is imported)."""
    ForkingPickler.register(Tensor, reduce_tensor)
    from ..nn.parameter import Parameter
    ForkingPickler.register(Parameter, reduce_tensor)


Tensor.is_shared = is_shared
Tensor.share_memory_ = share_memory_
Tensor.__reduce_ex__ = _tensor_reduce_ex
