"""The NumPy / DLPack boundary: thin Python over tandem._C (from_numpy, Tensor.numpy, __dlpack__ live in C++).

NumPy is reached only through the buffer protocol, ``__array__`` and DLPack, never its C API, so NumPy 1.x
and 2.x both work and NumPy stays an optional, run-time-only dependency.
"""
import tandem

from . import _C
from ._C import Tensor
from ._creation_args import from_numpy  # re-exported as tandem.from_numpy


def _array(self, dtype=None, copy=None):
    """``np.asarray(t)`` / ``np.array(t, dtype, copy)`` with NumPy 2 semantics (NumPy 1 passes no ``copy``).

    NumPy normally takes the buffer-protocol path (zero-copy); it calls this for everything else, so the
    errors of ``Tensor.numpy()`` (requires grad, bfloat16, non-CPU) surface with their hints.
    """
    a = self._numpy_implicit()
    if dtype is not None and a.dtype != dtype:
        if copy is False:
            raise ValueError(
                f"Unable to avoid copy while creating an array as requested.\n"
                f"hint: the tensor is {self.dtype}; drop copy=False or convert with t.to(...) first"
            )
        return a.astype(dtype)
    return a.copy() if copy else a


def _array_wrap(self, array, context=None, return_scalar=False):
    """NumPy's hook for a ufunc applied to a tensor (``np.sin(t)``, ``np.add(t, 1)``): the result comes back as a
    tensor on the CPU, as PyTorch's does, sharing the array's memory. A bool result comes back uint8, as
    PyTorch's __array_wrap__ returns it."""
    if array.dtype == bool:
        array = array.astype("uint8")
    return from_numpy(array)


Tensor.__array__ = _array
Tensor.__array_wrap__ = _array_wrap
# As in PyTorch: `ndarray + tensor` defers to Tensor.__radd__, so mixed arithmetic gives a tensor either way.
Tensor.__array_priority__ = 1000


_DL_CUDA = (2, 13)  # DLPack device types of CUDA memory (device and managed)


def _consumer_stream(ext_tensor):
    """The stream argument for a producer's ``__dlpack__``: tandem's current stream on that CUDA device, so
    the producer makes it wait for its pending work; None for host memory (DLPack requires None there)."""
    get_device = getattr(ext_tensor, "__dlpack_device__", None)
    if get_device is None:
        return None
    device_type, device_id = get_device()
    if device_type not in _DL_CUDA:
        return None
    return _C._cuda_native_stream(device_id)


def from_dlpack(ext_tensor, *, device=None, copy=None):
    """A tensor sharing memory with ``ext_tensor`` (any object with ``__dlpack__``, or a DLPack capsule).

    Asks the producer for a versioned (DLPack 1.x) capsule and falls back to a legacy one for producers
    that predate ``max_version`` (NumPy 1.x, old PyTorch). For CUDA producers it passes tandem's current
    stream, so reading the result in tandem is ordered after the producer's work. ``device=`` places the result
    there (a copy when it is elsewhere) and ``copy=True`` always copies, as PyTorch's; ``copy=False`` refuses
    a copy with a BufferError.
    """
    if hasattr(ext_tensor, "__dlpack__"):
        kwargs = {}
        stream = _consumer_stream(ext_tensor)
        if stream is not None:
            kwargs["stream"] = stream
        try:
            capsule = ext_tensor.__dlpack__(max_version=_C._DLPACK_MAX_VERSION, **kwargs)
        except TypeError:
            capsule = ext_tensor.__dlpack__(**kwargs)
    elif type(ext_tensor).__name__ == "PyCapsule":
        capsule = ext_tensor
    else:  # PyTorch takes anything else for a capsule and finds it invalid: its error, with what was passed
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.\nhint: "
                           f"from_dlpack takes an object with __dlpack__ or a DLPack capsule, not "
                           f"{type(ext_tensor).__name__}")
    shared = _C._from_dlpack_capsule(capsule)
    if device is None and not copy:
        return shared
    target = shared.device if device is None else tandem.device(device)
    if target != shared.device and copy is False:
        raise BufferError(f"from_dlpack(): the data is on {shared.device}, and copy=False forbids the copy to "
                          f"{target}\nhint: pass copy=None (copy only when needed) or leave device out")
    if target != shared.device:
        return shared.to(target)
    return shared.clone() if copy else shared


def _has_cuda_array_interface(obj):
    """True for foreign objects (CuPy, Numba, PyTorch cuda tensors) that expose CUDA memory."""
    return not isinstance(obj, Tensor) and hasattr(obj, "__cuda_array_interface__")


def from_cuda_array_interface(obj):
    """A cuda tensor sharing memory with ``obj`` through ``__cuda_array_interface__`` (no copy); it keeps
    ``obj`` alive, and tandem's current stream waits for the stream the producer names."""
    return _C._from_cuda_array_interface(obj)
