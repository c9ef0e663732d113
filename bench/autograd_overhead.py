"""Backward overhead per graph node, tandem vs PyTorch: a chain of 100 adds (x + 1) or multiplies (x * w, both
requiring grad) on a 1-element tensor; backward time / 100 (the forward is rebuilt outside the timed region)."""
import time

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import torch

import tandem


def per_node_us(lib, op, n=100, reps=300):
    x = lib.ones(1, requires_grad=True)
    w = lib.ones(1, requires_grad=True)
    g = lib.ones(1)
    best = float("inf")
    for _ in range(reps):
        y = x
        for _ in range(n):
            y = y + 1.0 if op == "add" else y * w
        t0 = time.perf_counter()
        y.backward(g)
        best = min(best, time.perf_counter() - t0)
    return best / n * 1e6


def forward_us(lib, reps=200000):
    a, b = lib.ones(1), lib.ones(1)
    t0 = time.perf_counter()
    for _ in range(reps):
        a + b
    return (time.perf_counter() - t0) / reps * 1e6


if __name__ == "__main__":
    torch.set_num_threads(1)
    for name, lib in (("tandem", tandem), ("torch", torch)):
        print(f"{name:7s} backward per node: add {per_node_us(lib, 'add'):.2f} us, mul {per_node_us(lib, 'mul'):.2f} us"
              f"   1-element a+b: {forward_us(lib) * 1000:.0f} ns")
