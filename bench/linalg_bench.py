"""tandem.linalg vs NumPy and PyTorch side by side (same OpenBLAS LAPACK underneath for tandem and NumPy):
solve, inv, cholesky, svd on one 512x512 float64 matrix and on a batch of 1000 8x8 ones.

    PYTHONPATH=python python bench/linalg_bench.py [--repeats N]

Prints the median time per call of each library and the ratios tandem/NumPy and tandem/PyTorch as speed
(>1: tandem faster)."""
import argparse
import statistics
import time

import numpy as np
import torch

import tandem


def median_seconds(fn, repeats):
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cases(shape):
    g = np.random.default_rng(0)
    a = g.standard_normal(shape)
    a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])  # SPD, so cholesky works too
    b = g.standard_normal(shape[:-1] + (1,))
    ta, tb = tandem.from_numpy(a.copy()), tandem.from_numpy(b.copy())
    pa, pb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    return {
        "solve": (lambda: np.linalg.solve(a, b), lambda: tandem.linalg.solve(ta, tb), lambda: torch.linalg.solve(pa, pb)),
        "inv": (lambda: np.linalg.inv(a), lambda: tandem.linalg.inv(ta), lambda: torch.linalg.inv(pa)),
        "cholesky": (lambda: np.linalg.cholesky(a), lambda: tandem.linalg.cholesky(ta),
                     lambda: torch.linalg.cholesky(pa)),
        "svd": (lambda: np.linalg.svd(a, full_matrices=False), lambda: tandem.linalg.svd(ta, full_matrices=False),
                lambda: torch.linalg.svd(pa, full_matrices=False)),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=10)
    args = p.parse_args()
    print(f"{'case':<22}{'numpy ms':>10}{'tandem ms':>11}{'torch ms':>10}{'vs numpy':>10}{'vs torch':>10}")
    for label, shape in [("512x512", (512, 512)), ("1000x8x8", (1000, 8, 8))]:
        for name, (n, t, p_) in cases(shape).items():
            tn, tt, tp = (median_seconds(f, args.repeats) for f in (n, t, p_))
            print(f"{name + ' ' + label:<22}{tn * 1e3:>10.3f}{tt * 1e3:>11.3f}{tp * 1e3:>10.3f}"
                  f"{tn / tt:>10.2f}{tp / tt:>10.2f}")


if __name__ == "__main__":
    main()
