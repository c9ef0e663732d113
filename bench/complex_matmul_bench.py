"""Complex matrix products: tandem's `@` (cblas_cgemm/zgemm on the CPU) against the four real products it used
before (ar@br - ai@bi, ar@bi + ai@br on the parts' views) and PyTorch, square matrices, one thread.

Usage: PYTHONPATH=python python bench/complex_matmul_bench.py [--threads N] [--sizes 256 512]
"""
import argparse
import os
import sys

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import torch

import tandem

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import best_ms as best, describe  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    tandem.set_num_threads(args.threads)
    print(describe())
    for n in args.sizes:
        for name in ("complex64", "complex128"):
            x = torch.randn(n, n, dtype=getattr(torch, name))
            y = torch.randn(n, n, dtype=getattr(torch, name))
            a, b = tandem.from_numpy(x.numpy()), tandem.from_numpy(y.numpy())
            ar, ai, br, bi = a.real, a.imag, b.real, b.imag

            def four():
                return tandem.complex(ar @ br - ai @ bi, ar @ bi + ai @ br)

            torch.testing.assert_close(torch.from_numpy((a @ b).numpy()), x @ y, rtol=1e-4, atol=1e-3)
            print(f"{name} {n}x{n}: tandem @ {best(lambda: a @ b):.2f} ms, four real products "
                  f"{best(four):.2f} ms, PyTorch {best(lambda: x @ y):.2f} ms")


if __name__ == "__main__":
    main()
