"""Every elementwise op of the op list (unary and binary), the activations, float32/float16/bfloat16, at 1 and
2 threads, against PyTorch in the same run, on a 4096x1000 tensor (positive values; standard-normal ones for
the activations). Each row ends with a verdict against
issue 16's goals: at least PyTorch's speed, and for memory-bound ops at least 85% of the copy bandwidth
measured here on the same number of bytes (whichever bar is higher).

Usage: PYTHONPATH=python python bench/unary_bench.py [--threads 1 2] [--dtypes float32 ...] [--filter S]
       [--json FILE]. TANDEM_CPU_CAPABILITY=baseline|avx2|avx512 measures another build of the kernels.
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
from tandem.backends import cpu as tandem_cpu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import describe  # noqa: E402

SHAPE = (4096, 1000)
# Ops whose math is a few instructions per element: memory bandwidth, not arithmetic, bounds them.
MEMORY_BOUND = {"neg", "abs", "sign", "relu", "floor", "ceil", "round", "trunc", "sqrt", "logical_not",
                "bitwise_not", "isnan", "isinf", "isfinite", "add", "sub", "mul", "div", "maximum", "minimum",
                "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "bitwise_and",
                "bitwise_or", "bitwise_xor", "leaky_relu", "hardtanh", "relu6", "clamp", "copy"}
# PyTorch's spelling where it differs (module path, keyword arguments).
TORCH_SPELLING = {"gelu": ("nn.functional.gelu", {}), "gelu_tanh": ("nn.functional.gelu", {"approximate": "tanh"}),
                  "silu": ("nn.functional.silu", {})}
ACTIVATIONS = {"elu": {}, "leaky_relu": {}, "softplus": {}, "hardtanh": {}, "relu6": {}, "selu": {}, "celu": {},
               "hardsigmoid": {}, "hardswish": {}, "mish": {}, "softsign": {}, "logsigmoid": {}, "tanhshrink": {}}
INTEGRAL_ONLY = {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "floor_divide"}


def resolve(root, path):
    fn = root
    for part in path.split("."):
        fn = getattr(fn, part, None)
        if fn is None:
            return None
    return fn


def best(fn, min_total=0.05, repeat=5):
    timer = timeit.Timer(fn)
    number = 1
    while timer.timeit(number) < min_total / 5 and number < 1 << 16:
        number *= 2
    return min(timer.repeat(repeat, number)) / number


def copy_bandwidth(nbytes):
    """Read+write bytes per second of a plain copy of `nbytes` into an existing buffer (NumPy)."""
    src = np.ones(nbytes // 4, np.float32)
    dst = np.empty_like(src)
    return 2 * nbytes / best(lambda: np.copyto(dst, src), min_total=0.2)


def cases(dtype):
    """(name, kind, tandem fn, torch fn, bytes moved) for every op tandem and PyTorch both have."""
    rng = np.random.default_rng(0)
    x = rng.random(SHAPE, dtype=np.float32) + 0.1  # positive: log and sqrt too
    y = rng.random(SHAPE, dtype=np.float32) + 0.5
    tt, tx = getattr(torch, dtype), getattr(tandem, dtype)
    a, b = torch.from_numpy(x).to(tt), tandem.from_numpy(x).to(tx)
    a2, b2 = torch.from_numpy(y).to(tt), tandem.from_numpy(y).to(tx)
    # Activations see zero-mean inputs, as after a linear layer (on positive-only inputs elu and friends
    # never take their exp branch, which is not what a network gives them).
    z = rng.standard_normal(SHAPE).astype(np.float32)
    az, bz = torch.from_numpy(z).to(tt), tandem.from_numpy(z).to(tx)
    n = a.numel() * a.element_size()
    out = []
    for name, rule, _ in tandem._C._unary_ops():
        if rule == "Integral":
            continue
        path, kw = TORCH_SPELLING.get(name, (name, {}))
        theirs = resolve(torch, path) or resolve(torch.special, path)  # i0e, bessel_j0, ... are torch.special's
        ours = getattr(tandem, name, None) or resolve(tandem.special, name)
        bool_out = rule == "Predicate"
        moved = n + (a.numel() if bool_out else n)
        out.append((name, "unary", lambda f=ours: f(b), lambda f=theirs, kw=kw: f(a, **kw), moved))
    for name, kw in ACTIVATIONS.items():
        ours, theirs = resolve(tandem.nn.functional, name), resolve(torch.nn.functional, name)
        if ours is None:
            out.append((name, "activation", None, None, 2 * n))
            continue
        out.append((name, "activation", lambda f=ours, kw=kw: f(bz, **kw), lambda f=theirs, kw=kw: f(az, **kw), 2 * n))
    for name, rule, _ in tandem._C._binary_ops():
        if name in INTEGRAL_ONLY or rule in ("Integer", "Bitwise"):
            continue
        theirs = resolve(torch, name) or resolve(torch.special, name)
        bool_out = rule in ("Compare", "Logical")
        moved = 2 * n + (a.numel() if bool_out else n)
        out.append((name, "binary", lambda name=name: getattr(tandem, name)(b, b2),
                    lambda f=theirs: f(a, a2), moved))
    out.append(("x ** 2.5", "binary", lambda: b**2.5, lambda: a**2.5, 2 * n))
    out.append(("clamp", "unary", lambda: b.clamp(0.2, 0.8), lambda: a.clamp(0.2, 0.8), 2 * n))
    # Preallocated output: the in-place method writes into memory that exists, with no allocator on either
    # side (the allocating rows also measure tandem's cached allocator against PyTorch's fresh pages).
    for name in ("add", "mul"):
        ca, cb = a.clone(), b.clone()
        out.append((f"{name}_ (in place)", "binary", lambda cb=cb, name=name: getattr(cb, name + "_")(b2),
                    lambda ca=ca, name=name: getattr(ca, name + "_")(a2), 3 * n))
    for name in ("exp", "relu", "neg"):
        ca, cb = a.clone(), b.clone()
        out.append((f"{name}_ (in place)", "unary", lambda cb=cb, name=name: getattr(cb, name + "_")(),
                    lambda ca=ca, name=name: getattr(ca, name + "_")(), 2 * n))
    if hasattr(tandem, "exp") and _supports_out():
        for name in ("add", "mul", "sub", "maximum"):
            ot, ox = torch.empty_like(a), tandem.empty(SHAPE, dtype=tx)
            out.append((f"{name}(out=)", "binary", lambda ox=ox, f=getattr(tandem, name): f(b, b2, out=ox),
                        lambda ot=ot, f=getattr(torch, name): f(a, a2, out=ot), 3 * n))
        for name in ("exp", "neg", "abs", "sqrt", "sigmoid", "tanh"):
            ot, ox = torch.empty_like(a), tandem.empty(SHAPE, dtype=tx)
            out.append((f"{name}(out=)", "unary", lambda ox=ox, f=getattr(tandem, name): f(b, out=ox),
                        lambda ot=ot, f=getattr(torch, name): f(a, out=ot), 2 * n))
    return out


def _supports_out():
    try:
        tandem.neg(tandem.ones(1), out=tandem.empty(1))
        return True
    except TypeError:
        return False


def verdict(ratio, fraction, memory_bound):
    if ratio < 1.0:
        return "SLOWER than torch"
    if memory_bound and fraction < 0.85:
        return "below 85% of copy bandwidth"
    return "ok"


def print_thread_scaling(rows):
    """tandem's 2-thread speedup over 1 thread per op: compute-bound ops should gain 1.6x, memory-bound ones
    should not lose (issue 16's goal for arrays this size)."""
    one = {(r["op"], r["dtype"]): r for r in rows if r["threads"] == 1 and "tandem_s" in r}
    counts = {}
    print("\n## 2 threads / 1 thread (tandem)")
    for r in rows:
        if r["threads"] != 2 or "tandem_s" not in r or (r["op"], r["dtype"]) not in one:
            continue
        speedup = one[(r["op"], r["dtype"])]["tandem_s"] / r["tandem_s"]
        goal = 1.0 if r["memory_bound"] else 1.6
        v = "ok" if speedup >= goal else f"below {goal}x"
        counts[v] = counts.get(v, 0) + 1
        print(f"{r['op']:22s} {r['dtype']:9s} {speedup:5.2f}x  (goal {goal}x)  {v}")
    print(f"# scaling verdicts: {counts}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float16", "bfloat16"])
    parser.add_argument("--filter", default="")
    parser.add_argument("--json", default=None, help="write the rows here")
    args = parser.parse_args()

    info = describe()
    print(f"# {info['cpu']} ({info['cores']} cores), flags: {' '.join(info['cpu_flags'])}")
    print(f"# tandem kernels: {tandem_cpu.get_cpu_capability()} (chosen {info['tandem_capability']}), "
          f"torch: {torch.backends.cpu.get_cpu_capability()} ({torch.__version__})")
    bandwidth = {}
    rows, summary = [], {}
    for threads in args.threads:
        torch.set_num_threads(threads)
        tandem.set_num_threads(threads)
        for dtype in args.dtypes:
            print(f"\n## {dtype}, {threads} thread(s), shape {SHAPE}")
            print(f"{'op':22s} {'tandem ms':>10s} {'torch ms':>10s} {'torch/tandem':>13s} {'GB/s':>7s} "
                  f"{'of copy':>8s}  verdict")
            for name, kind, ours, theirs, moved in cases(dtype):
                if args.filter not in name:
                    continue
                if ours is None:
                    print(f"{name:22s} {'missing in tandem':>36s}")
                    rows.append(dict(op=name, kind=kind, dtype=dtype, threads=threads, verdict="missing"))
                    continue
                key = (threads, moved)
                if key not in bandwidth:
                    bandwidth[key] = copy_bandwidth(moved // 2)
                try:
                    theirs()
                except (RuntimeError, NotImplementedError, TypeError) as e:  # e.g. erfcx has no float16 in torch
                    print(f"{name:22s} {'not in torch: ' + str(e).splitlines()[0][:60]}")
                    continue
                t_ours, t_theirs = best(ours), best(theirs)
                ratio, gbs = t_theirs / t_ours, moved / t_ours / 1e9
                fraction = moved / t_ours / bandwidth[key]
                memory_bound = name.split()[0].split("(")[0].rstrip("_") in MEMORY_BOUND
                v = verdict(ratio, fraction, memory_bound)
                summary[v] = summary.get(v, 0) + 1
                print(f"{name:22s} {t_ours * 1e3:10.3f} {t_theirs * 1e3:10.3f} {ratio:12.2f}x {gbs:7.1f} "
                      f"{fraction:7.0%}{'*' if memory_bound else ' '}  {v}", flush=True)
                rows.append(dict(op=name, kind=kind, dtype=dtype, threads=threads, tandem_s=t_ours, torch_s=t_theirs,
                                 ratio_torch_over_tandem=ratio, gb_per_s=gbs, fraction_of_copy=fraction,
                                 memory_bound=memory_bound, verdict=v))
    print(f"\n# verdicts: {summary}  (* memory-bound: the 85% bandwidth bar applies)")
    if 1 in args.threads and 2 in args.threads:
        print_thread_scaling(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
