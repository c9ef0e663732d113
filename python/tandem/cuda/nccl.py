"""tandem.cuda.nccl, as torch.cuda.nccl: which NCCL tandem uses and whether NCCL could work on a set of tensors.
tandem loads NCCL (libnccl.so.2) at run time for tandem.distributed's "nccl" backend; the single-process
collectives of torch.cuda.nccl (all_reduce, broadcast, ...) are not provided: tandem.cuda.comm copies between
devices instead."""
import ctypes
import functools
import warnings

from .. import _C

__all__ = ["is_available", "version"]

SUM = 0  # ncclRedOp_t, as PyTorch exports it


@functools.lru_cache(maxsize=1)
def _libnccl():
    try:
        return ctypes.CDLL("libnccl.so.2")
    except OSError:
        return None


def version():
    """The NCCL version as (major, minor, patch). RuntimeError when this tandem has no NCCL or libnccl.so.2
    cannot be loaded."""
    lib = _libnccl() if _C._dist_nccl_available() else None
    if lib is None:
        raise RuntimeError("NCCL is not available\nhint: tandem loads NCCL from libnccl.so.2 at run time (a CUDA "
                           "build of tandem); install NCCL or add its folder to LD_LIBRARY_PATH")
    code = ctypes.c_int()
    lib.ncclGetVersion(ctypes.byref(code))
    # NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since NCCL 2.9 (major * 1000 + minor * 100 + patch
    # before, when minor stayed below 10).
    value = code.value
    if value >= 10000:
        return value // 10000, value % 10000 // 100, value % 100
    return value // 1000, value % 1000 // 100, value % 100


def is_available(tensors):
    """Whether NCCL could run a collective over ``tensors``: dense, contiguous tensors on distinct real CUDA
    devices. Tensors on emulated devices are host memory NCCL cannot reach, so they answer False."""
    if not _C._dist_nccl_available():
        warnings.warn("PyTorch is not compiled with NCCL support", stacklevel=2)
        return False
    devices = set()
    for tensor in tensors:
        if tensor.is_sparse or not tensor.is_contiguous() or not tensor.is_cuda:
            return False
        device = tensor.get_device()
        if device in devices or _C._cuda_properties(device)["is_emulated"]:
            return False
        devices.add(device)
    return True
