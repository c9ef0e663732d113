"""Which of OpenBLAS's kernel sets runs tandem's CPU BLAS and LAPACK calls, chosen before _C loads OpenBLAS.

OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's is) picks its kernels from the CPU's model number when it
loads, and a release older than the CPU does not know the model: Debian 12's OpenBLAS 0.3.21 on a Sapphire Rapids
Xeon falls back to its 2004 "Prescott" SSE3 kernels, and a 512x512 float64 matmul took 24 ms instead of 4.5 ms
(bench/results/vm-2026-12-06-s36-blas-core.txt). The kernels follow the instruction sets the process can run
instead: AVX-512 (F, BW, DQ, VL) runs OpenBLAS's SkylakeX kernels, AVX2 with FMA its Haswell ones, which are also
the ones OpenBLAS picks by model for the newer CPUs it knows (Cooper Lake, Sapphire Rapids, Zen). An
OPENBLAS_CORETYPE the user set wins; CPUs below AVX2 are left to OpenBLAS, which knows them. The variable is set
only while _C loads (`chosen_while`), so NumPy's own OpenBLAS, loaded later, still makes its own choice.

The instruction sets come from CPUID and XGETBV (tandem._cpu_features, a module with no other dependency), not
from /proc/cpuinfo: under an emulator (qemu's user mode) or valgrind the process runs fewer instructions than
the host's /proc/cpuinfo lists, and OpenBLAS's AVX-512 kernels would die with SIGILL. Without that module nothing
is set. Imports nothing of tandem but it: this runs before _C loads.
"""
import contextlib

_CORE_FOR_CAPABILITY = {"avx512": "SKYLAKEX", "avx2": "HASWELL"}


def core_for_capability(capability):
    """OpenBLAS's name for the kernel set a CPU of tandem's `capability` (avx512, avx2, baseline) runs best, or
    None to leave the choice to OpenBLAS."""
    return _CORE_FOR_CAPABILITY.get(capability)


def cpu_capability():
    """The best capability this process runs (CPUID), or None where the module is missing."""
    try:
        from . import _cpu_features
    except ImportError:
        return None
    return _cpu_features.capability()


@contextlib.contextmanager
def chosen_while(environ, capability=None):
    """Within the block, environ["OPENBLAS_CORETYPE"] names the kernel set of `capability` (default: this
    CPU's), unless the user set it; yields the name it set, or None."""
    if environ.get("OPENBLAS_CORETYPE"):
        core = None
    else:
        core = core_for_capability(capability if capability is not None else cpu_capability())
    if core is None:
        yield None
        return
    environ["OPENBLAS_CORETYPE"] = core
    try:
        yield core
    finally:
        environ.pop("OPENBLAS_CORETYPE", None)
