"""What a program may ask about the build and its devices at tandem's top level, as torch.* answers it:
get_device_module, is_distributed, has_lapack/has_mkl/has_openmp/has_spectral, init_num_threads."""
import functools

import tandem

from . import _C, accelerator

has_lapack = True  # OpenBLAS ships LAPACK; tandem.linalg needs it
has_mkl = False
has_openmp = True  # tandem's CPU threads are OpenMP's
has_spectral = True  # tandem.fft


def is_distributed(input):
    """False: no tensor is sharded (PyTorch's answer for its ordinary tensors)."""
    return False


def init_num_threads():
    """PyTorch's per-thread set-up of its thread pools; tandem's pool needs none."""


@functools.cache
def get_device_module(device=None):
    """The module for a device type: tandem.cuda for "cuda" / tandem.device("cuda:1"), tandem.cpu, tandem.xpu, ...;
    without an argument, the current accelerator's (tandem.cuda in a CUDA build) or tandem.cpu."""
    if isinstance(device, _C.device):
        name = device.type
    elif isinstance(device, str):
        name = device.split(":")[0]  # also the types tandem has no devices of ("xpu", "mps")
    elif device is None:
        current = accelerator.current_accelerator()
        name = current.type if current is not None else "cpu"
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = getattr(tandem, name, None)
    if module is None:
        raise RuntimeError(f"Device '{name}' does not have a corresponding module registered as 'torch.{name}'.")
    return module
