"""tandem.fft vs NumPy and PyTorch side by side: rfft of 2^20 float32 values and fft2 of a 1024x1024 complex64
matrix (the issue's goal: at least 0.8x NumPy's speed), plus a batched case (4096 rfft of 256 points each).

    PYTHONPATH=python python bench/fft_bench.py [--repeats N] [--threads N]

Prints the median time per call of each library and the ratios tandem/NumPy and tandem/PyTorch as speed
(>1: tandem faster). NumPy's pocketfft runs on one thread; --threads sets tandem's and PyTorch's (default: 1,
the like-for-like comparison)."""
import argparse
import statistics
import time

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import numpy as np
import torch

import tandem


def median_seconds(fn, repeats):
    fn()  # plans (tandem's FFTW, PyTorch's) are made on the first call and cached
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def cases():
    g = np.random.default_rng(0)
    x = g.standard_normal(1 << 20).astype(np.float32)
    m = (g.standard_normal((1024, 1024)) + 1j * g.standard_normal((1024, 1024))).astype(np.complex64)
    b = g.standard_normal((4096, 256)).astype(np.float32)
    out = {}
    for label, a, np_fn, name in [("rfft 2^20 f32", x, np.fft.rfft, "rfft"),
                                  ("fft2 1024^2 c64", m, np.fft.fft2, "fft2"),
                                  ("rfft 4096x256 f32", b, np.fft.rfft, "rfft")]:
        ta, pa = tandem.from_numpy(a.copy()), torch.from_numpy(a.copy())
        out[label] = (lambda a=a, f=np_fn: f(a), lambda ta=ta, n=name: getattr(tandem.fft, n)(ta),
                      lambda pa=pa, n=name: getattr(torch.fft, n)(pa))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
    tandem.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    print(f"numpy {np.__version__}, torch {torch.__version__}, threads {args.threads}")
    print(f"{'case':<20}{'numpy ms':>10}{'tandem ms':>11}{'torch ms':>10}{'vs numpy':>10}{'vs torch':>10}")
    for label, (n, t, p_) in cases().items():
        tn, tt, tp = (median_seconds(f, args.repeats) for f in (n, t, p_))
        print(f"{label:<20}{tn * 1e3:>10.3f}{tt * 1e3:>11.3f}{tp * 1e3:>10.3f}{tn / tt:>10.2f}{tp / tt:>10.2f}")


if __name__ == "__main__":
    main()
