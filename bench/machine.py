"""The machine a benchmark ran on, printed at the top of each table and stored with its results: the CPU, the
vector-instruction flags that decide which kernels run, and which build of tandem's kernels ran."""
import os
import platform
import socket
import timeit

import numpy as np
import torch

import tandem
from tandem.backends import cpu as tandem_cpu

FLAGS_OF_INTEREST = ("sse4_2", "avx", "avx2", "fma", "f16c", "bmi2", "avx512f", "avx512bw", "avx512vl", "avx512dq",
                     "avx512_bf16", "amx_tile", "asimd", "sve")


def describe():
    cpu, flags = "unknown", []
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and cpu == "unknown":
                    cpu = value.strip()
                elif key in ("flags", "Features") and not flags:
                    present = set(value.split())
                    flags = [f for f in FLAGS_OF_INTEREST if f in present]
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    info = tandem_cpu.capability_info()
    return {"host": socket.gethostname(), "cpu": cpu, "cpu_flags": flags, "cores": os.cpu_count(),
            "memory_gib": round(mem / 2**30, 1), "python": platform.python_version(), "numpy": np.__version__,
            "torch": torch.__version__, "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "tandem": tandem.__version__, "tandem_capability": info["chosen"],
            "tandem_capabilities_supported": info["supported"]}


def best_ms(fn, repeat=5):
    """The fastest of `repeat` single calls of fn, in milliseconds, after one warm-up call."""
    fn()
    return min(timeit.repeat(fn, number=1, repeat=repeat)) * 1e3
