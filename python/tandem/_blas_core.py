"""Which of OpenBLAS's kernel sets runs tandem's CPU BLAS and LAPACK calls, chosen before _C loads OpenBLAS.

OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian's is) picks its kernels from the CPU's model number when it
loads, and a release older than the CPU does not know the model: Debian 12's OpenBLAS 0.3.21 on a Sapphire Rapids
Xeon falls back to its 2004 "Prescott" SSE3 kernels, and a 512x512 float64 matmul took 24 ms instead of 4.5 ms
(bench/results/vm-2026-12-06-s36-blas-core.txt). The kernels follow the instruction sets the CPU reports instead:
AVX-512 (F, BW, DQ, VL, CD) runs OpenBLAS's SkylakeX kernels, AVX2 with FMA its Haswell ones, which are also the
ones OpenBLAS picks by model for the newer CPUs it knows (Cooper Lake, Sapphire Rapids, Zen). An
OPENBLAS_CORETYPE the user set wins; older CPUs are left to OpenBLAS, which knows them. The variable is set only
while _C loads (`chosen_while`), so NumPy's own OpenBLAS, loaded later, still makes its own choice.

Linux only (the flags come from /proc/cpuinfo, which lists only what the operating system enables); elsewhere
nothing is set. Imports nothing of tandem: it must run before _C loads.
"""
import contextlib

_AVX512 = {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"}
_AVX2 = {"avx2", "fma"}


def core_for_flags(flags):
    """OpenBLAS's name for the kernel set that the CPU flags `flags` (a set of /proc/cpuinfo names) run best, or
    None to leave the choice to OpenBLAS."""
    if _AVX512 <= flags:
        return "SKYLAKEX"
    if _AVX2 <= flags:
        return "HASWELL"
    return None


def cpu_flags(cpuinfo_path="/proc/cpuinfo"):
    """The first processor's flags in /proc/cpuinfo, or an empty set where there is none (not Linux, not x86)."""
    try:
        with open(cpuinfo_path, encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return set(value.split())
    except OSError:
        pass
    return set()


@contextlib.contextmanager
def chosen_while(environ, cpuinfo_path="/proc/cpuinfo"):
    """Within the block, environ["OPENBLAS_CORETYPE"] names the CPU's kernel set (unless the user set it);
    yields the name it set, or None."""
    core = None if environ.get("OPENBLAS_CORETYPE") else core_for_flags(cpu_flags(cpuinfo_path))
    if core is None:
        yield None
        return
    environ["OPENBLAS_CORETYPE"] = core
    try:
        yield core
    finally:
        environ.pop("OPENBLAS_CORETYPE", None)
