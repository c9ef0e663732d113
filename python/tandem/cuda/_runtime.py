"""torch.cuda's runtime-level names: cudart(), check_error, CudaError, cudaStatus, DeferredCudaCallError and
AcceleratorError.

tandem links the CUDA runtime statically, so cudart() loads the shared libcudart of the toolkit tandem was built
with (ctypes) for the few calls PyTorch programs make through it: cudaGetErrorString (CudaError's message),
cudaProfilerStart/Stop (tandem.cuda.profiler). Emulated devices have no CUDA runtime and no profiler can attach to
them; their cudart() answers the profiler calls with success, which is what CUDA itself does when no profiler
is attached.
"""
import ctypes
import ctypes.util
import functools

from .. import _C

__all__ = ["cudart", "check_error", "CudaError", "cudaStatus", "DeferredCudaCallError", "AcceleratorError"]


class DeferredCudaCallError(Exception):
    """A call queued before CUDA started failed when CUDA started (PyTorch's lazy initialisation). tandem starts
    its devices when first asked and queues nothing, so tandem never raises it; ``except`` clauses still work."""


class AcceleratorError(RuntimeError):
    """PyTorch's error for a failed accelerator (CUDA) runtime call. tandem's C++ layer raises such failures as
    plain RuntimeErrors ("CUDA error: ..."), which ``except RuntimeError`` catches."""


class cudaStatus:
    SUCCESS: int = 0
    ERROR_NOT_READY: int = 34


@functools.lru_cache(maxsize=1)
def _libcudart():
    """The shared CUDA runtime matching tandem's build (None when it cannot be found, e.g. a CPU-only install)."""
    names = []
    if _C._cuda_version:
        names.append(f"libcudart.so.{str(_C._cuda_version).split('.')[0]}")
    found = ctypes.util.find_library("cudart")
    if found:
        names.append(found)
    for name in names:
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        lib.cudaGetErrorString.restype = ctypes.c_char_p
        lib.cudaGetErrorString.argtypes = [ctypes.c_int]
        return lib
    return None


def _error_string(code):
    lib = _libcudart()
    if lib is None:
        return "unrecognized error code" if code else "no error"
    return lib.cudaGetErrorString(int(code)).decode()


class _CudaErrorCodes:
    success = 0


class _Runtime:
    """The CUDA runtime calls PyTorch exposes through torch.cuda.cudart() that PyTorch programs use."""

    cudaError = _CudaErrorCodes

    def __init__(self, lib):
        self._lib = lib

    def cudaGetErrorString(self, code):
        return _error_string(code)

    def cudaProfilerStart(self):
        return self._lib.cudaProfilerStart() if self._lib is not None else cudaStatus.SUCCESS

    def cudaProfilerStop(self):
        return self._lib.cudaProfilerStop() if self._lib is not None else cudaStatus.SUCCESS

    def __repr__(self):
        return "<tandem CUDA runtime" + (" (emulated devices)>" if self._lib is None else ">")


def cudart():
    """The CUDA runtime module (cudaGetErrorString, cudaProfilerStart, cudaProfilerStop). Raises PyTorch's error
    (with a hint) when no CUDA device can be used."""
    from . import init  # noqa: PLC0415  (tandem.cuda imports this module)
    init()
    if _C._cuda_properties(None)["is_emulated"]:
        return _Runtime(None)
    lib = _libcudart()
    if lib is None:
        raise RuntimeError("libcudart functions unavailable: the shared CUDA runtime was not found\n"
                           f"hint: install the CUDA {_C._cuda_version} runtime (libcudart.so) or add its folder "
                           "to LD_LIBRARY_PATH")
    return _Runtime(lib)


class CudaError(RuntimeError):
    """A failed CUDA runtime call: "<CUDA's text for the code> (<code>)"."""

    def __init__(self, code: int) -> None:
        super().__init__(f"{_error_string(code)} ({code})")


def check_error(res: int) -> None:
    """Raises CudaError unless ``res`` (a CUDA runtime return code) is success."""
    if res != _CudaErrorCodes.success:
        raise CudaError(res)


for _cls in (DeferredCudaCallError, AcceleratorError, cudaStatus, CudaError):
    _cls.__module__ = "tandem.cuda"
