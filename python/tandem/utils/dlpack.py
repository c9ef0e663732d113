"""tandem.utils.dlpack: PyTorch's torch.utils.dlpack, the legacy capsule interface (to_dlpack / from_dlpack of a
capsule) that interop code written against PyTorch imports; tandem.from_dlpack itself also takes any object with
__dlpack__."""
import enum

from .._numpy import from_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]


class DLDeviceType(enum.IntEnum):
    """The device codes of the DLPack specification (dlpack.h's DLDeviceType)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def to_dlpack(tensor):
    """A legacy (unversioned) DLPack capsule sharing the tensor's memory, to hand to another library's
    from_dlpack; a capsule is consumed once."""
    return tensor.__dlpack__()
