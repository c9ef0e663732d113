"""torch.backends.cuda's library choices: preferred_linalg_library, preferred_blas_library and cufft_plan_cache.

tandem links one library for each job on a CUDA device (cuSOLVER, cuBLAS, cuFFT) and has no alternative to
switch to, so the preferences are kept, checked and read back as PyTorch's without changing which library runs.
tandem's cuFFT plans live in a per-thread cache in C++ (at most 64 plans, docs/fft.md) that Python cannot see:
``cufft_plan_cache`` checks devices and ``max_size`` as PyTorch does, but reports ``size`` 0 and bounds nothing
(docs/compat.md, "Runtime modules").
"""
import enum

from ... import _C, cuda

__all__ = ["preferred_linalg_library", "preferred_blas_library", "cuFFTPlanCache", "cuFFTPlanCacheManager",
           "cufft_plan_cache"]


class _LinalgBackend(enum.IntEnum):
    __str__ = enum.Enum.__str__  # "_LinalgBackend.Default", as PyTorch's enums print
    Default = 0
    Cusolver = 1
    Magma = 2


class _BlasBackend(enum.IntEnum):
    __str__ = enum.Enum.__str__
    Default = 0
    Cublas = 1
    Cublaslt = 2
    Ck = 3


_LINALG_NAMES = {"default": _LinalgBackend.Default, "cusolver": _LinalgBackend.Cusolver,
                 "magma": _LinalgBackend.Magma}
_BLAS_NAMES = {"default": _BlasBackend.Default, "cublas": _BlasBackend.Cublas, "hipblas": _BlasBackend.Cublas,
               "cublaslt": _BlasBackend.Cublaslt, "hipblaslt": _BlasBackend.Cublaslt, "ck": _BlasBackend.Ck}
# PyTorch's starting values; a "default" BLAS preference reads back as the library used by default, cuBLAS.
_preferred = {"linalg": _LinalgBackend.Default, "blas": _BlasBackend.Cublas}


def _choose(kind, backend, names, enum_type):
    if backend is None:
        pass
    elif isinstance(backend, str):
        if backend not in names:
            raise RuntimeError(f"Unknown input value. Choose from: {', '.join(names)}.")
        _preferred[kind] = names[backend]
    elif isinstance(backend, enum_type):
        _preferred[kind] = backend
    else:
        raise RuntimeError("Unknown input value type.")
    if kind == "blas" and _preferred[kind] == _BlasBackend.Default:
        _preferred[kind] = _BlasBackend.Cublas
    return _preferred[kind]


def preferred_linalg_library(backend=None) -> _LinalgBackend:
    """Reads (None) or sets the preferred linear algebra library: "default", "cusolver" or "magma". Recorded
    only: tandem's CUDA linear algebra is cuSOLVER's."""
    return _choose("linalg", backend, _LINALG_NAMES, _LinalgBackend)


def preferred_blas_library(backend=None) -> _BlasBackend:
    """Reads (None) or sets the preferred BLAS library: "default", "cublas", "cublaslt", "ck", ... Recorded
    only: tandem's CUDA matrix products are cuBLAS's."""
    return _choose("blas", backend, _BLAS_NAMES, _BlasBackend)


_CUFFT_MAX_PLAN_NUM = 4096  # PyTorch's cap and default


class cuFFTPlanCache:  # noqa: N801  (PyTorch's name)
    """One device's cuFFT plan cache, as PyTorch's: ``size`` (read-only), ``max_size``, ``clear()``."""

    _max_sizes = {}  # device index -> max_size set through this object

    def __init__(self, device_index):
        self.device_index = device_index

    @property
    def size(self):
        """0: tandem's plans are cached per thread in C++, out of this object's sight."""
        return 0

    @size.setter
    def size(self, value):
        raise RuntimeError(".size is a read-only property showing the number of plans currently in the cache. To "
                           "change the cache capacity, set cufft_plan_cache.max_size.")

    @property
    def max_size(self):
        return cuFFTPlanCache._max_sizes.get(self.device_index, _CUFFT_MAX_PLAN_NUM)

    @max_size.setter
    def max_size(self, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"max_size must be an int, not {type(value).__name__}")
        if value < 0:
            raise RuntimeError(f"cuFFT plan cache size must be non-negative, but got {value}")
        if value > _CUFFT_MAX_PLAN_NUM:
            raise RuntimeError(f"cuFFT plan cache size can not be larger than {_CUFFT_MAX_PLAN_NUM}, but got {value}")
        cuFFTPlanCache._max_sizes[self.device_index] = value

    def clear(self):
        """Nothing to clear here (see the class note)."""


class cuFFTPlanCacheManager:  # noqa: N801  (PyTorch's name)
    """``cufft_plan_cache[device]`` is that device's cache; attributes read on the manager itself are the
    current device's, as PyTorch's."""

    def __getitem__(self, device):
        index = device
        if isinstance(device, (str, _C.device)):
            index = _C.device(device).index if isinstance(device, str) else device.index
            if index is None:
                raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
        count = cuda.device_count()
        if index < 0 or index >= count:
            raise RuntimeError(f"cufft_plan_cache: expected 0 <= device index < {count}, but got device with index "
                               f"{index}")
        return cuFFTPlanCache(index)

    def __getattr__(self, name):
        return getattr(self[cuda.current_device()], name)

    def __setattr__(self, name, value):
        setattr(self[cuda.current_device()], name, value)


cufft_plan_cache = cuFFTPlanCacheManager()
