"""The composed scans (cumprod, cummax, logcumsumexp) against PyTorch and NumPy, in one run: 1M float32 and a
1000x1000 float32 matrix along each dim. NumPy's spellings: np.cumprod, np.maximum.accumulate,
np.logaddexp.accumulate. Ratios are time / tandem's time (above 1: tandem is faster).

tandem builds these scans from public elementwise ops as a log-step (Hillis-Steele) scan: ceil(log2 n) rounds
of a few launches over the whole tensor, i.e. about log2(n) times the memory traffic of one pass (20 passes for
1M elements, 10 for 1000), where PyTorch and NumPy run one sequential pass. If these ratios are poor (they are
expected to be well below 1 on the CPU), the next step is a dedicated scan kernel slot (one pass per row on the
CPU, a CUB block scan on CUDA); cumsum already has one.

Usage: PYTHONPATH=python python bench/scan_bench.py [--threads N] [--json FILE]
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


def best(fn, min_total=0.1, repeat=5):
    timer = timeit.Timer(fn)
    number = 1
    while timer.timeit(number) < min_total / 5 and number < 1 << 12:
        number *= 2
    return min(timer.repeat(repeat, number)) / number


def cases():
    rng = np.random.default_rng(0)
    vec = (1 + rng.standard_normal(1_000_000) * 1e-3).astype(np.float32)  # products stay finite
    mat = (1 + rng.standard_normal((1000, 1000)) * 1e-3).astype(np.float32)
    for label, arr, dims in (("1M", vec, (0,)), ("1000x1000", mat, (0, 1))):
        t, a = tandem.from_numpy(arr), torch.from_numpy(arr)
        for d in dims:
            where = f"{label} dim={d}"
            yield ("cumprod", where, lambda t=t, d=d: tandem.cumprod(t, d), lambda a=a, d=d: torch.cumprod(a, d),
                   lambda arr=arr, d=d: np.cumprod(arr, d))
            yield ("cummax", where, lambda t=t, d=d: tandem.cummax(t, d), lambda a=a, d=d: torch.cummax(a, d),
                   lambda arr=arr, d=d: np.maximum.accumulate(arr, d))
            yield ("logcumsumexp", where, lambda t=t, d=d: tandem.logcumsumexp(t, d),
                   lambda a=a, d=d: torch.logcumsumexp(a, d), lambda arr=arr, d=d: np.logaddexp.accumulate(arr, d))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        tandem.set_num_threads(args.threads)
    rows = []
    print(f"{'op':<14}{'input':<20}{'tandem ms':>11}{'torch ms':>10}{'numpy ms':>10}{'torch/t':>9}{'numpy/t':>9}")
    for name, where, ft, fp, fn in cases():
        tt, tp, tn = best(ft), best(fp), best(fn)
        rows.append({"op": name, "input": where, "tandem_s": tt, "torch_s": tp, "numpy_s": tn})
        print(f"{name:<14}{where:<20}{tt * 1e3:>11.2f}{tp * 1e3:>10.2f}{tn * 1e3:>10.2f}{tp / tt:>9.2f}{tn / tt:>9.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": describe(), "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
