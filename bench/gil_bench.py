"""How much of the interpreter other Python threads get while tandem (and PyTorch, in the same run) works.

1. A counter thread's rate while the main thread runs 2048x2048 float32 matmuls (and large sums, copies),
   as a fraction of its rate alone: near 0 when the library holds the interpreter lock through the kernel.
2. Two Python threads each running independent large ops (library threads set to 1): their combined
   throughput over one thread's. Near 1.0 when the lock serialises them; up to 2.0 on 2 free cores.

Usage: PYTHONPATH=python python bench/gil_bench.py [--seconds S]
"""
import argparse
import os
import platform
import threading
import time

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import torch

import tandem

LIBS = {"tandem": tandem, "torch": torch}


def counter_rate(seconds, busy=None):
    """Steps per second of a counting thread, alone or while busy() runs repeatedly on this thread."""
    stop, count = threading.Event(), [0]

    def count_loop():
        n = 0
        while not stop.is_set():
            n += 1
        count[0] = n

    t = threading.Thread(target=count_loop)
    t.start()
    t0 = time.perf_counter()
    if busy is None:
        time.sleep(seconds)
    else:
        while time.perf_counter() - t0 < seconds:
            busy()
    stop.set()
    t.join()
    return count[0] / (time.perf_counter() - t0)


def paired_throughput(lib, op, seconds):
    """Ops per second from 1 thread, and from 2 threads together."""
    def run(n_threads):
        done, stop = [0] * n_threads, threading.Event()

        def loop(i):
            while not stop.is_set():
                op()
                done[i] += 1

        threads = [threading.Thread(target=loop, args=(i,)) for i in range(n_threads)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        return sum(done) / (time.perf_counter() - t0)

    return run(1), run(2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    args = ap.parse_args()
    flags = ""
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            line = next((ln for ln in f if ln.startswith("flags")), "")
        flags = " ".join(x for x in line.split() if x.startswith(("avx", "fma", "f16c")))
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus; {flags}")
    print(f"# tandem {tandem.__version__ if hasattr(tandem, '__version__') else ''}, torch {torch.__version__}")
    alone = counter_rate(args.seconds)
    print(f"counter thread alone: {alone / 1e6:.1f} M steps/s\n")
    print(f"{'main thread runs':<34}{'tandem':>10}{'torch':>10}   (other thread's share of its rate alone)")
    cases = {
        "matmul 2048x2048 float32": lambda lib, x: lambda: x @ x,
        "sum of 16M float32": lambda lib, x: lambda: x.sum(),
        "clone of 16M float32": lambda lib, x: lambda: x.clone(),
    }
    inputs = {
        "matmul 2048x2048 float32": lambda lib: lib.randn(2048, 2048),
        "sum of 16M float32": lambda lib: lib.randn(1 << 24),
        "clone of 16M float32": lambda lib: lib.randn(1 << 24),
    }
    for name, make in cases.items():
        shares = []
        for lib in LIBS.values():
            op = make(lib, inputs[name](lib))
            op()
            shares.append(counter_rate(args.seconds, op) / alone)
        print(f"{name:<34}{shares[0]:>10.2f}{shares[1]:>10.2f}")

    print(f"\n{'two threads, 1 library thread each':<34}{'tandem':>10}{'torch':>10}   (2-thread throughput / 1-thread)")
    for name, make in cases.items():
        speedups = []
        for lib in LIBS.values():
            lib.set_num_threads(1)
            op = make(lib, inputs[name](lib))
            one, two = paired_throughput(lib, op, args.seconds)
            speedups.append(two / one)
        print(f"{name:<34}{speedups[0]:>10.2f}{speedups[1]:>10.2f}")


if __name__ == "__main__":
    main()
