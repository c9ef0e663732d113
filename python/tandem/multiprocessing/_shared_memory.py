"""Host memory that several processes map at once: the blocks behind shared CPU tensors.

A block is an anonymous memory file (memfd) mapped MAP_SHARED. It crosses to another process as a file
descriptor (PyTorch's default "file_descriptor" strategy on Linux), never by name, so nothing is left in
/dev/shm when a process dies: the kernel frees the memory when the last mapping and descriptor are gone.
The mapping is made with libc's mmap through ctypes rather than Python's mmap module, because mmap.mmap keeps
a private duplicate of the descriptor for its whole life; here a block holds at most one descriptor (the one
its creator may send again) and a block received from another process holds none.

The memory enters tandem through from_numpy (zero-copy); the block is unmapped when the last tensor using it
is freed. ``block_of(t)`` answers is_shared() from a registry of live blocks keyed by address.
"""
import bisect
import ctypes
import os
import threading
import weakref

import numpy as np

import tandem

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.munmap.restype = ctypes.c_int
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
_PROT_READ_WRITE, _MAP_SHARED, _MAP_FAILED = 0x1 | 0x2, 0x01, ctypes.c_void_p(-1).value

# bfloat16 has no NumPy dtype, so from_numpy cannot wrap it: such tensors cross by value (see reductions.py).
NUMPY_DTYPES = {tandem.bool: np.bool_, tandem.uint8: np.uint8, tandem.int8: np.int8, tandem.int16: np.int16,
                tandem.int32: np.int32, tandem.int64: np.int64, tandem.float16: np.float16,
                tandem.float32: np.float32, tandem.float64: np.float64, tandem.uint16: np.uint16,
                tandem.uint32: np.uint32, tandem.uint64: np.uint64}

_lock = threading.Lock()
_starts = []   # sorted start addresses of live blocks
_blocks = {}   # start address -> Block


class Block:
    """One mapping of a memfd. ``fd`` is the creator's descriptor (None once closed or when received)."""

    __slots__ = ("addr", "nbytes", "fd", "__weakref__")

    def __init__(self, fd, nbytes, keep_fd):
        length = max(nbytes, 1)  # mmap refuses a zero-length mapping; an empty tensor still gets a block
        addr = _libc.mmap(None, length, _PROT_READ_WRITE, _MAP_SHARED, fd, 0)
        if addr in (None, _MAP_FAILED):
            err = ctypes.get_errno()
            os.close(fd)
            raise OSError(err, f"mmap of {length} shared bytes failed: {os.strerror(err)}")
        self.addr, self.nbytes = addr, length
        self.fd = fd if keep_fd else None
        if not keep_fd:
            os.close(fd)
        with _lock:
            bisect.insort(_starts, addr)
            _blocks[addr] = self

    def release(self):
        """Forgets the block and unmaps it (called once, when the last array over it is freed)."""
        with _lock:
            del _starts[bisect.bisect_left(_starts, self.addr)]
            del _blocks[self.addr]
        _libc.munmap(self.addr, self.nbytes)
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def new_fd(nbytes):
    """A fresh anonymous memory file of ``nbytes`` bytes (zero-filled), closed on exec."""
    try:
        fd = os.memfd_create("tandem_shared", os.MFD_CLOEXEC)
    except (AttributeError, OSError):  # no memfd (old kernel): an unlinked file in /dev/shm is the same thing
        import tempfile
        fd, path = tempfile.mkstemp(prefix="tandem_shared_", dir="/dev/shm")
        os.unlink(path)
    os.ftruncate(fd, max(nbytes, 1))
    return fd


def tensor_over(block, dtype, shape, strides, offset):
    """A CPU tensor of ``dtype`` viewing ``block`` with the given element strides and element offset."""
    raw = (ctypes.c_ubyte * block.nbytes).from_address(block.addr)
    # Unmapped when the last array or tensor over this memory goes, and not at interpreter exit: weakref.finalize
    # would otherwise unmap it then under tensors that module globals still hold (the process's end frees it).
    weakref.finalize(raw, block.release).atexit = False
    np_dtype = np.dtype(NUMPY_DTYPES[dtype])
    itemsize = np_dtype.itemsize
    flat = np.frombuffer(raw, dtype=np.uint8)[offset * itemsize:]
    typed = flat[:len(flat) - len(flat) % itemsize].view(np_dtype)
    view = np.lib.stride_tricks.as_strided(typed, shape, [s * itemsize for s in strides])
    return tandem.from_numpy(view)


def block_of(t):
    """The live shared block holding CPU tensor ``t``'s first element, or None."""
    if t.device.type != "cpu":
        return None
    base = t.data_ptr() - t.storage_offset() * t.element_size()
    with _lock:
        i = bisect.bisect_right(_starts, base) - 1
        if i < 0:
            return None
        block = _blocks[_starts[i]]
        return block if base < block.addr + block.nbytes else None


def element_span(t):
    """How many elements the memory of ``t`` spans from its first element (strides are never negative)."""
    if t.numel() == 0:
        return 0
    return 1 + sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()))


def new_shared_copy(t):
    """(block, tensor): a copy of CPU tensor ``t`` in a new block, laid out with ``t``'s own strides."""
    nbytes = element_span(t) * t.element_size()
    block = Block(new_fd(nbytes), nbytes, keep_fd=True)
    out = tensor_over(block, t.dtype, tuple(t.shape), tuple(t.stride()), 0)
    if t.numel():
        with tandem.no_grad():
            out.copy_(t.detach())
    return block, out
