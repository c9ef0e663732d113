"""Order statistics and searches against PyTorch and NumPy in the same run: median (all elements and along a
dim), quantile, unique, searchsorted. Prints each library's time and tandem's ratio to each (ratio > 1: tandem
is slower). One pass, small enough not to hog a shared machine.

Usage: PYTHONPATH=python python bench/order_stats_bench.py [--threads N] [--filter S]
"""
import argparse
import timeit

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import numpy as np
import torch

import tandem


def best(fn, min_total=0.05, repeat=3):
    timer = timeit.Timer(fn)
    number = 1
    while timer.timeit(number) < min_total / 5 and number < 1 << 12:
        number *= 2
    return min(timer.repeat(repeat, number)) / number


def cases():
    """(name, tandem fn, torch fn, numpy fn) on the same data."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1000, 1000)).astype(np.float32)
    ints = rng.integers(0, 1000, 1_000_000).astype(np.int64)
    edges = np.sort(rng.standard_normal(4096).astype(np.float32))
    queries = rng.standard_normal(1_000_000).astype(np.float32)
    tx, px = tandem.from_numpy(x), torch.from_numpy(x)
    ti, pi = tandem.from_numpy(ints), torch.from_numpy(ints)
    te, pe = tandem.from_numpy(edges), torch.from_numpy(edges)
    tq, pq = tandem.from_numpy(queries), torch.from_numpy(queries)
    q = [0.1, 0.5, 0.9]
    tqq, pqq = tandem.tensor(q), torch.tensor(q)
    return [
        ("median() 1M", lambda: tx.median(), lambda: px.median(), lambda: np.median(x)),
        ("median(dim=1) 1000x1000", lambda: tx.median(1), lambda: px.median(1), lambda: np.median(x, axis=1)),
        ("quantile(3 q) 1M", lambda: tandem.quantile(tx.reshape(-1), tqq), lambda: torch.quantile(px.reshape(-1), pqq),
         lambda: np.quantile(x, q)),
        ("quantile(dim=1) 1000x1000", lambda: tandem.quantile(tx, tqq, dim=1),
         lambda: torch.quantile(px, pqq, dim=1), lambda: np.quantile(x, q, axis=1)),
        ("unique 1M int64", lambda: tandem.unique(ti), lambda: torch.unique(pi), lambda: np.unique(ints)),
        ("unique counts 1M int64", lambda: tandem.unique(ti, return_counts=True),
         lambda: torch.unique(pi, return_counts=True), lambda: np.unique(ints, return_counts=True)),
        ("searchsorted 1M in 4096", lambda: tandem.searchsorted(te, tq), lambda: torch.searchsorted(pe, pq),
         lambda: np.searchsorted(edges, queries)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--filter", default="")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
        tandem.set_num_threads(args.threads)
    print(f"{'case':28s} {'tandem ms':>10s} {'torch ms':>10s} {'numpy ms':>10s} {'/torch':>7s} {'/numpy':>7s}")
    for name, ours, theirs, numpys in cases():
        if args.filter not in name:
            continue
        t, p, n = best(ours), best(theirs), best(numpys)
        print(f"{name:28s} {t * 1e3:10.2f} {p * 1e3:10.2f} {n * 1e3:10.2f} {t / p:7.2f} {t / n:7.2f}")


if __name__ == "__main__":
    main()
