"""tandem.__config__: the build as text, in the shape of torch.__config__.show() / parallel_info(). Libraries grep
it for build flags (torch_geometric looks for "USE_MKL=OFF"), so the `Build settings:` line uses PyTorch's keys."""
import tandem

from . import _C


def _on_off(flag):
    return "ON" if flag else "OFF"


def _blas_line():
    """OpenBLAS's build description and the kernel set it runs on this CPU (tandem/_blas_core.py)."""
    config, core = _C._blas_info()
    return f"{config} (kernels: {core})" if config else "none (portable matrix product loops)"


def show():
    """The libraries and settings tandem was built with, one per line."""
    cuda = tandem.version.cuda
    settings = {
        "BLAS_INFO": "open", "LAPACK_INFO": "open", "TORCH_VERSION": tandem.__version__,
        "USE_CUDA": _on_off(cuda is not None), "USE_MKL": "OFF", "USE_MKLDNN": "OFF",
        "USE_MPI": _on_off(tandem.distributed.is_mpi_available()),
        "USE_NCCL": _on_off(tandem.distributed.is_nccl_available()),
        "USE_GLOO": _on_off(tandem.distributed.is_gloo_available()),
        "USE_OPENMP": _on_off(tandem.backends.openmp.is_available()), "USE_ROCM": "OFF", "USE_XPU": "OFF",
    }
    lines = ["tandem built with:",
             "  - OpenMP (CPU threads)",
             "  - LAPACK is enabled (OpenBLAS)",
             f"  - BLAS: {_blas_line()}",
             f"  - FFT: {_C._fft_library('cpu')}",
             f"  - CPU capability usage: {tandem.backends.cpu.get_cpu_capability()}"]
    if cuda is not None:
        lines.append(f"  - CUDA Runtime {cuda}")
    lines.append("  - Build settings: " + ", ".join(f"{k}={v}" for k, v in settings.items()) + ", ")
    return "\n".join(lines) + "\n"


def parallel_info():
    """The CPU thread settings."""
    return ("ATen/Parallel:\n"
            f"\tat::get_num_threads() : {tandem.get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {tandem.get_num_interop_threads()}\n"
            "OpenMP (tandem's CPU thread pool)\n")
