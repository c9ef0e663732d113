"""The NumPy / DLPack boundary: thin Python over tandem._C (from_numpy, Tensor.numpy, __dlpack__ live in C++).

NumPy is reached only through the buffer protocol, ``__array__`` and DLPack, never its C API, so NumPy 1.x
and 2.x both work and NumPy stays an optional, run-time-only dependency.
"""
from . import _C
from ._C import Tensor, from_numpy  # noqa: F401  (re-exported as tandem.from_numpy)


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


Tensor.__array__ = _array
# As in PyTorch: `ndarray + tensor` defers to Tensor.__radd__, so mixed arithmetic gives a tensor either way.
Tensor.__array_priority__ = 1000


def from_dlpack(ext_tensor):
    """A tensor sharing memory with ``ext_tensor`` (any object with ``__dlpack__``, or a DLPack capsule).

    Asks the producer for a versioned (DLPack 1.x) capsule and falls back to a legacy one for producers
    that predate ``max_version`` (NumPy 1.x, old PyTorch).
    """
    if hasattr(ext_tensor, "__dlpack__"):
        try:
            capsule = ext_tensor.__dlpack__(max_version=_C._DLPACK_MAX_VERSION)
        except TypeError:
            capsule = ext_tensor.__dlpack__()
    else:
        capsule = ext_tensor
    return _C._from_dlpack_capsule(capsule)
