"""sort/argsort on the CPU against PyTorch and NumPy, in one run: 1-D sizes 1K..16M in float32, float64, int64,
int32 and float16, and a 1000x1000 matrix along each dim; stable and unstable, ascending and descending.
Ratios are time / tandem's time (above 1: tandem is faster). NumPy has no descending sort, and np.sort's
kind="stable" is its radix/timsort; its unstable default is introsort. The CPU and its vector-instruction flags
are printed first (they decide which of tandem's kernel builds runs).

tandem sorts integer keys made from the values (NaN largest, -0.0 tied with 0.0) with an LSD radix sort from 256
elements a row; a single row of 128K elements or more is split across the threads.

Usage: PYTHONPATH=python python bench/sort_bench.py [--threads N] [--quick] [--json FILE]
"""
import argparse
import json
import os
import sys
import timeit

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import numpy as np
import torch

import tandem

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import describe  # noqa: E402

SIZES = [1_000, 10_000, 100_000, 1_000_000, 16_000_000]
DTYPES = ["float32", "float64", "int64", "int32", "float16"]


def best(fn, min_total=0.1, repeat=5):
    timer = timeit.Timer(fn)
    number = 1
    first = timer.timeit(1)
    if first > 0.5:  # 16M rows: a few single runs are enough
        return min([first] + timer.repeat(2, 1))
    while timer.timeit(number) < min_total / 5 and number < 1 << 12:
        number *= 2
    return min(timer.repeat(repeat, number)) / number


def data(shape, dtype, rng):
    if dtype.startswith("int"):
        return rng.integers(-(1 << 30), 1 << 30, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 1000).astype(dtype)


def cases(quick):
    rng = np.random.default_rng(0)
    sizes = SIZES[:-1] if quick else SIZES
    inputs = [(f"{n}", data(n, dt, rng), dt, (0,)) for n in sizes for dt in DTYPES]
    inputs += [("1000x1000", data((1000, 1000), dt, rng), dt, (0, 1)) for dt in DTYPES]
    for label, arr, dt, dims in inputs:
        t, a = tandem.from_numpy(arr), torch.from_numpy(arr)
        for d in dims:
            for stable in (False, True):
                for desc in (False, True):
                    where = f"{label} dim={d}" if arr.ndim > 1 else label
                    kind = "stable" if stable else "quick"
                    np_fn = None if desc else (lambda arr=arr, d=d, kind=kind: np.sort(arr, d, kind=kind))
                    yield (f"sort {dt} {'desc' if desc else 'asc'} {kind}", where,
                           lambda t=t, d=d, s=stable, de=desc: tandem.sort(t, dim=d, descending=de, stable=s),
                           lambda a=a, d=d, s=stable, de=desc: torch.sort(a, dim=d, descending=de, stable=s), np_fn)
        np_arg = lambda arr=arr: np.argsort(arr, -1, kind="stable")  # noqa: E731
        yield (f"argsort {dt} asc stable", f"{label} dim=-1", lambda t=t: tandem.argsort(t, dim=-1, stable=True),
               lambda a=a: torch.argsort(a, dim=-1, stable=True), np_arg)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--quick", action="store_true", help="skip the 16M rows")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.threads:
        tandem.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
    machine = describe()
    print(f"# {machine['cpu']} ({machine['cores']} cores), flags: {' '.join(machine['cpu_flags'])}")
    print(f"# tandem kernels: {machine['tandem_capability']}, torch: {machine['torch']} "
          f"({machine['torch_cpu_capability']}), numpy {machine['numpy']}; threads: tandem "
          f"{tandem.get_num_threads()}, torch {torch.get_num_threads()}")
    print(f"{'op':32} {'shape':16} {'tandem ms':>10} {'torch ms':>10} {'numpy ms':>10} {'torch/t':>8} {'numpy/t':>8}")
    rows = []
    for op, where, t_fn, torch_fn, np_fn in cases(args.quick):
        tt, tp = best(t_fn), best(torch_fn)
        tn = best(np_fn) if np_fn else None
        rows.append({"op": op, "shape": where, "tandem_s": tt, "torch_s": tp, "numpy_s": tn})
        np_ms = f"{tn * 1e3:10.3f}" if tn else f"{'-':>10}"
        np_ratio = f"{tn / tt:8.2f}" if tn else f"{'-':>8}"
        print(f"{op:32} {where:16} {tt * 1e3:10.3f} {tp * 1e3:10.3f} {np_ms} {tp / tt:8.2f} {np_ratio}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
