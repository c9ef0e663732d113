"""torch.cuda's capability queries and deprecated memory aliases, and the legacy tandem.cuda.FloatTensor & co.
types (tensors of one dtype on a CUDA device)."""
import ctypes
import warnings

from .. import _C
from .._legacy import _NAMES, legacy_new_arguments, tensortype, type_attributes

__all__ = ["is_bf16_supported", "get_device_capability", "get_arch_list", "get_gencode_flags",
           "reset_max_memory_allocated", "reset_max_memory_cached", "memory_cached", "max_memory_cached",
           "memory_stats_as_nested_dict", "init", "is_initialized"]


def _cuda():
    from .. import cuda  # noqa: PLC0415  (this module is imported while tandem.cuda is being built)
    return cuda


def is_bf16_supported(including_emulation=True):
    """Whether the current device computes in bfloat16: compute capability 8.0 or newer natively; older real
    devices (and tandem's emulated devices, capability 0.0, which compute on the host) only via emulation."""
    cuda = _cuda()
    if not cuda.is_available():
        return False
    if get_device_capability()[0] >= 8:
        return True
    return bool(including_emulation)


def get_device_capability(device=None):
    """(major, minor) compute capability; (0, 0) for an emulated device."""
    prop = _cuda().get_device_properties(device)
    return prop.major, prop.minor


def get_arch_list():
    """The CUDA architectures tandem's kernels were compiled for, as PyTorch names them: CMake's "80-real 90"
    gives ['sm_80', 'sm_90'] (a "-virtual" entry, PTX only, gives 'compute_N'). [] for a build without CUDA --
    also when emulated devices are on (TANDEM_EMULATE_CUDA): they run host code, no device binaries exist.
    Like PyTorch's, it describes the build, not the devices present."""
    archs = _C._cuda_architectures
    if not archs:
        return []
    out = []
    for entry in archs.split():
        number, _, kind = entry.partition("-")
        if not number.isdigit():
            out.append(entry)  # "native", "all": what CMake was told
        else:
            out.append(("compute_" if kind == "virtual" else "sm_") + number)
    return out


def get_gencode_flags():
    """NVCC -gencode flags matching get_arch_list() ("" without CUDA), as torch.cuda.get_gencode_flags."""
    pairs = [arch.split("_") for arch in get_arch_list() if "_" in arch]
    return " ".join(f"-gencode compute=compute_{arch},code={kind}_{arch}" for kind, arch in pairs)


def reset_max_memory_allocated(device=None):
    warnings.warn("torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    return _cuda().reset_peak_memory_stats(device=device)


def reset_max_memory_cached(device=None):
    warnings.warn("torch.cuda.reset_max_memory_cached now calls torch.cuda.reset_peak_memory_stats, which resets "
                  "/all/ peak memory stats.", FutureWarning, stacklevel=2)
    return _cuda().reset_peak_memory_stats(device=device)


def memory_cached(device=None):
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`", FutureWarning,
                  stacklevel=2)
    return _cuda().memory_reserved(device=device)


def max_memory_cached(device=None):
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to `torch.cuda.max_memory_reserved`",
                  FutureWarning, stacklevel=2)
    return _cuda().max_memory_reserved(device=device)


def memory_stats_as_nested_dict(device=None):
    """memory_stats() with its dotted keys ("allocated_bytes.all.peak") split into nested dicts; {} without
    CUDA."""
    if not is_initialized():
        return {}
    nested = {}
    for key, value in _cuda().memory_stats(device).items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def init():
    """Initialises CUDA; raises PyTorch's error (with a hint) when no device can be used. tandem sets its devices
    up when first asked, so on a working machine there is nothing left to do."""
    if not _cuda().is_available():
        _C._cuda_properties(None)  # raises the error that names the reason


def is_initialized():
    """True once CUDA is usable in this process (tandem initialises on the first query, so: is_available())."""
    return _cuda().is_available()


class cudatensortype(tensortype):
    """The class of tandem.cuda.FloatTensor & co.: isinstance(t, tandem.cuda.FloatTensor) is true for float32
    tensors on a CUDA device."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _C.Tensor) and obj.dtype == cls.dtype and obj.device.type == "cuda"

    def __repr__(cls):
        return f"<class 'tandem.cuda.{cls.__name__}'>"


def _construct_cuda(cls, *args, device=None, **kwargs):
    from .. import tensor, empty  # noqa: PLC0415
    kind, value = legacy_new_arguments(args, kwargs)  # PyTorch reads the arguments before touching CUDA
    dev = _C.device(device) if device is not None else _C.device("cuda", _cuda().current_device())
    if dev.type != "cuda":
        raise RuntimeError(f"legacy constructor expects device type: cuda but device type: {dev.type} was passed")
    if kind == "alias":
        if value.dtype != cls.dtype or value.device.type != "cuda":
            raise TypeError(f"expected {cls.dtype} on cuda (got {value.dtype} on {value.device})\n"
                            f"hint: convert first: t.to('cuda', {cls.dtype})")
        return value.detach()
    if kind == "data":
        return tensor(value, dtype=cls.dtype, device=dev)
    return empty([int(s) for s in value] if value is not None else 0, dtype=cls.dtype, device=dev)


LEGACY_CUDA_TYPES = {
    name: cudatensortype(name, (), {**type_attributes(dtype, is_cuda=True), "__new__": _construct_cuda,
                                    "__module__": "tandem.cuda", "__doc__": f"Legacy constructor of {dtype} CUDA tensors."})
    for name, dtype in _NAMES.items()
}
__all__ += list(LEGACY_CUDA_TYPES)
globals().update(LEGACY_CUDA_TYPES)


# ---- more capability queries ---------------------------------------------------------------------------------
has_half = True  # every tandem build computes in float16 on CUDA devices
has_magma = False  # tandem's CUDA linear algebra uses cuSOLVER, not MAGMA


def is_tf32_supported():
    """Whether the current device has TF32 tensor cores (compute capability 8.0 or newer; never an emulated
    device). False without CUDA."""
    return is_bf16_supported(including_emulation=False)


def can_device_access_peer(device, peer_device):
    """Whether ``device`` can read ``peer_device``'s memory directly (cudaDeviceCanAccessPeer; never a device
    itself). Emulated devices all live in host memory, so each can reach every other one."""
    from ._runtime import _libcudart, check_error, cudart  # noqa: PLC0415  (they import tandem.cuda)
    from ._utils import get_device_index  # noqa: PLC0415
    init()
    device = get_device_index(device, optional=True)
    peer_device = get_device_index(peer_device)
    count = _cuda().device_count()
    if device < 0 or device >= count:
        raise AssertionError("Invalid device id")
    if peer_device < 0 or peer_device >= count:
        raise AssertionError("Invalid peer device id")
    if _C._cuda_properties(device)["is_emulated"]:
        return device != peer_device
    cudart()  # raises when the shared CUDA runtime cannot be loaded
    answer = ctypes.c_int()
    check_error(_libcudart().cudaDeviceCanAccessPeer(ctypes.byref(answer), device, peer_device))
    return bool(answer.value)


def current_blas_handle():
    """The cuBLAS handle of the current device and stream. Emulated devices have none (RuntimeError); tandem's
    per-stream cuBLAS handles are not exposed to Python yet (NotImplementedError on a real device)."""
    init()
    if _C._cuda_properties(None)["is_emulated"]:
        raise RuntimeError("current_blas_handle: emulated devices have no cuBLAS handle\n"
                           "hint: emulated devices compute with tandem's CPU kernels")
    raise NotImplementedError("current_blas_handle: tandem does not expose its cuBLAS handles yet\n"
                              "hint: tandem's matrix products already run through cuBLAS on the current stream")


__all__ += ["has_half", "has_magma", "is_tf32_supported", "can_device_access_peer", "current_blas_handle"]
