"""tandem.cuda.profiler, as torch.cuda.profiler: start and stop the collection of an attached CUDA profiler
(Nsight Systems with --capture-range=cudaProfilerApi, nvprof --profile-from-start off). On emulated devices no
profiler can attach, and the calls succeed doing nothing, as CUDA's do when no profiler is attached."""
import contextlib

from ._runtime import check_error, cudart

__all__ = ["start", "stop", "profile"]

def start():
    """Starts the attached profiler's collection (CudaError when CUDA refuses)."""
    check_error(cudart().cudaProfilerStart())


def stop():
    """Stops the attached profiler's collection (CudaError when CUDA refuses)."""
    check_error(cudart().cudaProfilerStop())


@contextlib.contextmanager
def profile():
    """Collects profile data inside the ``with`` block."""
    try:
        start()
        yield
    finally:
        stop()
