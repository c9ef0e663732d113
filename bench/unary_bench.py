"""Every float32 unary op and activation against PyTorch at one thread, on a 4096x1000 tensor (16 MB: the
math, not memory bandwidth, decides most rows). Ratios are torch/tandem: above 1 means tandem is faster.

Usage: PYTHONPATH=python python bench/unary_bench.py
"""
import timeit

import numpy as np
import torch

import tandem

UNARY = ["exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "neg",
         "floor", "round"]
ACTIVATIONS = ["gelu", "silu", "elu", "leaky_relu", "softplus"]


def best(fn, number=5, repeat=3):
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main():
    torch.set_num_threads(1)
    tandem.set_num_threads(1)
    x = np.random.default_rng(0).random((4096, 1000), dtype=np.float32) + 0.1  # positive: log and sqrt too
    a, b = torch.from_numpy(x), tandem.from_numpy(x)
    cases = [(name, lambda n=name: getattr(torch, n)(a), lambda n=name: getattr(tandem, n)(b)) for name in UNARY]
    cases += [(name, lambda n=name: getattr(torch.nn.functional, n)(a),
               lambda n=name: getattr(tandem.nn.functional, n)(b)) for name in ACTIVATIONS]
    cases.append(("x ** 2.5", lambda: a**2.5, lambda: b**2.5))
    print(f"{'op':12s} {'tandem ms':>10s} {'torch ms':>10s} {'torch/tandem':>13s}")
    for name, theirs, ours in cases:
        t_ours, t_theirs = best(ours), best(theirs)
        print(f"{name:12s} {t_ours * 1e3:10.3f} {t_theirs * 1e3:10.3f} {t_theirs / t_ours:12.2f}x")


if __name__ == "__main__":
    main()
