"""Emulated CUDA devices run their queued kernels on host worker threads. If the interpreter exits while a
queue is still busy, those threads keep running kernels (oneDNN, OpenMP, BLAS) while the C exit handlers tear
the same libraries down, and the process dies with SIGSEGV after the program itself has finished (found with
PyTorch-GAN's softmax_gan.py, which ends on an exception right after queuing its backward pass). So, as Python
exits, wait for every emulated device's queued work, before any C exit handler runs."""
import atexit

from .. import _C


def _drain_emulated_devices():
    for index in range(_C._cuda_device_count()):
        if not _C._cuda_properties(index)["is_emulated"]:
            continue  # a real GPU's work is the driver's to end; PyTorch does not wait for it either
        try:
            _C._cuda_synchronize(index)
        except Exception:  # noqa: BLE001  an asynchronous kernel error has no one left to report to at exit
            pass


def install():
    if _C._cuda_is_available():
        atexit.register(_drain_emulated_devices)
