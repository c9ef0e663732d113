"""tandem.linalg vs NumPy and PyTorch side by side: solve, inv, cholesky, svd, geqrf on one 512x512 float64 matrix and
on a batch of 1000 8x8 ones (tandem and NumPy both call OpenBLAS's LAPACK, in different builds; PyTorch's
wheel calls MKL), and einsum("bij,bjk->bik") against bmm in tandem itself.

    PYTHONPATH=python python bench/linalg_bench.py [--rounds N] [--threads T]

The libraries take turns (a block of 5 calls of each per round), so a load that comes and goes on a shared
machine slows all of them alike. Prints the median time per call of each library, the ratios tandem/NumPy and
tandem/PyTorch as speed (>1: tandem faster) with their range over the rounds (min-max of the per-round
ratios), and a verdict against issue 14's goals: at least 0.95x NumPy and PyTorch for the linalg rows, einsum
within 5% of bmm (einsum time <= 1.05 x bmm time)."""
import argparse
import os
import statistics
import time

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import numpy as np
import torch
from scipy.linalg import expm as scipy_expm  # (SciPy comes with scikit-learn, a dev requirement)
import threadpoolctl  # (also scikit-learn's): NumPy's OpenBLAS has no thread setting of its own

import tandem

SPEED_GOAL = 0.95  # tandem at least 0.95x as fast as NumPy and PyTorch
EINSUM_GOAL = 1.05  # einsum at most 5% slower than bmm
# OpenBLAS's worker threads busy-wait for a while after a call: a pause lets the previous library's threads
# stop spinning before the next one is timed.
SETTLE_S = 0.2


def interleaved_seconds(fns, rounds, block=5):
    """Per-round times of each function: in every round each function runs a block of calls in turn (after a
    warm-up and a pause), and the round's time is the median of its block."""
    for f in fns:
        f()
    times = [[] for _ in fns]
    for _ in range(rounds):
        for f, t in zip(fns, times):
            time.sleep(SETTLE_S)  # the previous library's BLAS threads stop spinning before this one starts
            block_times = []
            for _ in range(block):
                t0 = time.perf_counter()
                f()
                block_times.append(time.perf_counter() - t0)
            t.append(statistics.median(block_times))
    return times


def ratio_range(num, den):
    """Median, min and max of the per-round ratios num / den."""
    r = [n / d for n, d in zip(num, den)]
    return statistics.median(r), min(r), max(r)


def linalg_cases(shape):
    g = np.random.default_rng(0)
    a = g.standard_normal(shape)
    a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])  # SPD, so cholesky works too
    b = g.standard_normal(shape[:-1] + (1,))
    ta, tb = tandem.from_numpy(a.copy()), tandem.from_numpy(b.copy())
    pa, pb = torch.from_numpy(a.copy()), torch.from_numpy(b.copy())
    e = a * (3.0 / np.abs(a).sum(-2).max())
    te, pe = tandem.from_numpy(e.copy()), torch.from_numpy(e.copy())
    return {
        "solve": (lambda: np.linalg.solve(a, b), lambda: tandem.linalg.solve(ta, tb), lambda: torch.linalg.solve(pa, pb)),
        "inv": (lambda: np.linalg.inv(a), lambda: tandem.linalg.inv(ta), lambda: torch.linalg.inv(pa)),
        "cholesky": (lambda: np.linalg.cholesky(a), lambda: tandem.linalg.cholesky(ta),
                     lambda: torch.linalg.cholesky(pa)),
        "svd": (lambda: np.linalg.svd(a, full_matrices=False), lambda: tandem.linalg.svd(ta, full_matrices=False),
                lambda: torch.linalg.svd(pa, full_matrices=False)),
        # geqrf: NumPy's qr(mode="raw") is the same LAPACK call (its h is the transpose of geqrf's a).
        "geqrf": (lambda: np.linalg.qr(a, mode="raw"), lambda: tandem.geqrf(ta), lambda: torch.geqrf(pa)),
        # matrix_exp of a matrix with 1-norm about 3 (Pade 13, one squaring); SciPy's expm in NumPy's column
        "matrix_exp": (lambda: scipy_expm(e), lambda: tandem.linalg.matrix_exp(te), lambda: torch.linalg.matrix_exp(pe)),
    }


def fmt_range(med, lo, hi):
    return f"{med:5.2f} ({lo:.2f}-{hi:.2f})"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--threads", type=int, default=None, help="threads for all three libraries' own pools")
    args = p.parse_args()
    if args.threads:
        tandem.set_num_threads(args.threads)
        torch.set_num_threads(args.threads)
        # NumPy's OpenBLAS (scipy_openblas, its own copy) at the same count; tandem's OpenBLAS follows
        # tandem.set_num_threads, and limiting it here too would only be undone by tandem's next call.
        threadpoolctl.threadpool_limits(args.threads, user_api="blas")
        tandem.set_num_threads(args.threads)
    numpy_blas = [i for i in threadpoolctl.threadpool_info() if "numpy" in i.get("filepath", "")]
    numpy_desc = (f"{numpy_blas[0]['internal_api']} {numpy_blas[0]['version']} {numpy_blas[0]['architecture']}, "
                  f"{numpy_blas[0]['num_threads']} threads" if numpy_blas else "unknown")
    config, core = tandem._C._blas_info()
    print(f"threads: tandem {tandem.get_num_threads()}, torch {torch.get_num_threads()}; {args.rounds} rounds of 5 calls")
    print(f"BLAS: tandem {config.split(' NO_')[0]} kernels {core}; numpy {numpy_desc}; torch MKL")
    print(f"{'case':<20}{'numpy ms':>10}{'tandem ms':>11}{'torch ms':>10}{'vs numpy':>20}{'vs torch':>20}  verdict")
    for label, shape in [("512x512", (512, 512)), ("1000x8x8", (1000, 8, 8))]:
        for name, fns in linalg_cases(shape).items():
            tn, tt, tp = interleaved_seconds(fns, args.rounds)
            vn, vt = ratio_range(tn, tt), ratio_range(tp, tt)
            ok = vn[0] >= SPEED_GOAL and vt[0] >= SPEED_GOAL
            print(f"{name + ' ' + label:<20}{statistics.median(tn) * 1e3:>10.3f}{statistics.median(tt) * 1e3:>11.3f}"
                  f"{statistics.median(tp) * 1e3:>10.3f}{fmt_range(*vn):>20}{fmt_range(*vt):>20}  "
                  f"{'meets' if ok else 'below'} {SPEED_GOAL}x")
    # einsum("bij,bjk->bik") against bmm, both tandem: the contraction should cost no more than the product.
    print(f"\n{'einsum vs bmm':<28}{'bmm ms':>10}{'einsum ms':>11}{'einsum/bmm':>22}  verdict")
    g = np.random.default_rng(1)
    for dtype, (bs, m, k, n) in [("float32", (64, 128, 128, 128)), ("float64", (64, 128, 128, 128)),
                                 ("float32", (1000, 8, 8, 8))]:
        x = tandem.from_numpy(g.standard_normal((bs, m, k)).astype(dtype))
        y = tandem.from_numpy(g.standard_normal((bs, k, n)).astype(dtype))
        tb, te = interleaved_seconds([lambda: tandem.bmm(x, y), lambda: tandem.einsum("bij,bjk->bik", x, y)],
                                     args.rounds)
        r = ratio_range(te, tb)
        ok = r[0] <= EINSUM_GOAL
        print(f"{f'{bs}x{m}x{k} @ {k}x{n} {dtype}':<28}{statistics.median(tb) * 1e3:>10.3f}"
              f"{statistics.median(te) * 1e3:>11.3f}{fmt_range(*r):>22}  {'meets' if ok else 'above'} {EINSUM_GOAL}x")


if __name__ == "__main__":
    main()
