"""tandem vs PyTorch vs NumPy, measured side by side in one run.

Prints one table (times and ratios to tandem) and writes bench/results/<host>-<date>.json with the machine's
description. Usage: PYTHONPATH=python python bench/run.py [--quick] [--filter SUBSTRING]
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import timeit

import wait_policy  # noqa: F401  (first: OpenMP's idle policy, before any runtime loads)

import numpy as np
import torch

import tandem

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from machine import describe  # noqa: E402


def best_time(fn, min_total=0.05, repeats=5):
    """Seconds per call: the best of `repeats` batches, each batch long enough to time reliably."""
    timer = timeit.Timer(fn)
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_total or number >= 1 << 22:
            break
        number *= 2 if t * 10 > min_total else 10
    return min(timer.repeat(repeats, number)) / number


def machine():
    return describe()


def set_threads(n):
    tandem.set_num_threads(n)
    torch.set_num_threads(n)


def case(name, group, tandem_fn, torch_fn, numpy_fn=None, bytes_moved=None, flops=None):
    return dict(name=name, group=group, fns={"tandem": tandem_fn, "torch": torch_fn, "numpy": numpy_fn},
                bytes=bytes_moved, flops=flops)


def overhead_cases():
    a1, b1 = tandem.ones(1), tandem.ones(1)
    ta1, tb1 = torch.ones(1), torch.ones(1)
    na1, nb1 = np.ones(1, np.float32), np.ones(1, np.float32)
    m = tandem.ones(4, 4)
    tm = torch.ones(4, 4)
    nm = np.ones((4, 4), np.float32)
    return [
        case("a + b (1 elem)", "overhead", lambda: a1 + b1, lambda: ta1 + tb1, lambda: na1 + nb1),
        case("a * 2 (1 elem)", "overhead", lambda: a1 * 2, lambda: ta1 * 2, lambda: na1 * 2),
        case("t.sum() (1 elem)", "overhead", lambda: a1.sum(), lambda: ta1.sum(), lambda: na1.sum()),
        case("t[0] (4x4)", "overhead", lambda: m[0], lambda: tm[0], lambda: nm[0]),
        case("t.numpy() (4x4)", "overhead", lambda: m.numpy(), lambda: tm.numpy(), None),
        case("from_numpy (4x4)", "overhead", lambda: tandem.from_numpy(nm), lambda: torch.from_numpy(nm), None),
        case("t.item() (1 elem)", "overhead", lambda: a1.item(), lambda: ta1.item(), lambda: na1.item()),
        case("t.cpu() (cpu tensor)", "overhead", lambda: a1.cpu(), lambda: ta1.cpu(), None),
        case("t.is_cuda", "overhead", lambda: a1.is_cuda, lambda: ta1.is_cuda, None),
        case("t.shape (4x4)", "overhead", lambda: m.shape, lambda: tm.shape, lambda: nm.shape),
        case("t.shape[0] (4x4)", "overhead", lambda: m.shape[0], lambda: tm.shape[0], lambda: nm.shape[0]),
        case("t.contiguous() (4x4)", "overhead", lambda: m.contiguous(), lambda: tm.contiguous(),
             lambda: np.ascontiguousarray(nm)),
        case("t.tolist() (4x4)", "overhead", lambda: m.tolist(), lambda: tm.tolist(), lambda: nm.tolist()),
        case("t.view(2, -1) (4x4)", "overhead", lambda: m.view(2, -1), lambda: tm.view(2, -1),
             lambda: nm.reshape(2, -1)),
        case("t.permute(1, 0) (4x4)", "overhead", lambda: m.permute(1, 0), lambda: tm.permute(1, 0),
             lambda: nm.transpose(1, 0)),
    ]


def streaming_cases(n):
    a, b = tandem.rand(n), tandem.rand(n)
    ta, tb = torch.rand(n), torch.rand(n)
    na, nb = ta.numpy().copy(), tb.numpy().copy()
    big = tandem.ones(16 << 20)
    three = 3 * n * 4  # read a, read b, write c
    two = 2 * n * 4
    return [
        case("c = a + b (16M f32)", "elementwise", lambda: a + b, lambda: ta + tb, lambda: na + nb, three),
        case("c = a * b (16M f32)", "elementwise", lambda: a * b, lambda: ta * tb, lambda: na * nb, three),
        case("relu(a) (16M f32)", "elementwise", lambda: tandem.relu(a), lambda: torch.relu(ta),
             lambda: np.maximum(na, 0), two),
        case("exp(a) (16M f32)", "elementwise", lambda: tandem.exp(a), lambda: torch.exp(ta), lambda: np.exp(na), two),
        case("tanh(a) (16M f32)", "elementwise", lambda: tandem.tanh(a), lambda: torch.tanh(ta), lambda: np.tanh(na),
             two),
        case("numpy() (16M f32)", "overhead", lambda: big.numpy(), lambda: ta.numpy(), None),
    ] + out_cases(a, b, ta, tb, na, nb, "16M f32", n * 4)


def out_cases(a, b, ta, tb, na, nb, label, nbytes):
    """The same ops into a preallocated out= tensor on every side: no allocator in the measurement (the
    allocating rows above also compare tandem's cached allocator with PyTorch's fresh pages)."""
    c, tc, nc = tandem.empty_like(a), torch.empty_like(ta), np.empty_like(na)
    return [
        case(f"add(out=) ({label})", "elementwise", lambda: tandem.add(a, b, out=c), lambda: torch.add(ta, tb, out=tc),
             lambda: np.add(na, nb, out=nc), 3 * nbytes),
        case(f"mul(out=) ({label})", "elementwise", lambda: tandem.mul(a, b, out=c), lambda: torch.mul(ta, tb, out=tc),
             lambda: np.multiply(na, nb, out=nc), 3 * nbytes),
        # torch.relu has no out=; clamp_min is the same pass.
        case(f"relu(out=) ({label})", "elementwise", lambda: tandem.relu(a, out=c),
             lambda: torch.clamp_min(ta, 0, out=tc), lambda: np.maximum(na, 0, out=nc), 2 * nbytes),
        case(f"exp(out=) ({label})", "elementwise", lambda: tandem.exp(a, out=c), lambda: torch.exp(ta, out=tc),
             lambda: np.exp(na, out=nc), 2 * nbytes),
    ]


def axpy_cases(n):
    """Hand-written SGD's update, p.add_(grad, alpha=-lr): one fused pass in tandem and PyTorch (NumPy: two)."""
    p, g = tandem.rand(n), tandem.rand(n)
    tp, tg = torch.rand(n), torch.rand(n)
    np_p, np_g = tp.numpy().copy(), tg.numpy().copy()

    def numpy_axpy():
        np_p.__iadd__(np.multiply(np_g, np.float32(-1e-3)))

    return [case("p.add_(g, alpha=) (16M f32)", "elementwise", lambda: p.add_(g, alpha=-1e-3),
                 lambda: tp.add_(tg, alpha=-1e-3), numpy_axpy, 3 * n * 4)]


def half_precision_cases(n):
    """16-bit floats compute in float32 on the CPU: these rows measure the conversions around the math."""
    x = tandem.rand(n).half()
    tx = torch.rand(n).half()
    nx = tx.numpy().copy()
    bx, tbx = tandem.rand(n).bfloat16(), torch.rand(n).bfloat16()
    hx_out, htx_out, hnx_out = tandem.empty_like(x), torch.empty_like(tx), np.empty_like(nx)
    m, tm = tandem.rand(4096, 1000).half(), torch.rand(4096, 1000).half()
    nm = tm.numpy().copy()
    mbytes = 4096 * 1000 * 2
    return [
        case("c = a + a (16M f16)", "elementwise", lambda: x + x, lambda: tx + tx, lambda: nx + nx, 2 * n * 2),
        case("c = a + a (16M bf16)", "elementwise", lambda: bx + bx, lambda: tbx + tbx, None, 2 * n * 2),
        case("add(out=) (16M f16)", "elementwise", lambda: tandem.add(x, x, out=hx_out),
             lambda: torch.add(tx, tx, out=htx_out), lambda: np.add(nx, nx, out=hnx_out), 3 * n * 2),
        case("exp(a) (16M f16)", "elementwise", lambda: x.exp(), lambda: tx.exp(), lambda: np.exp(nx), 2 * n * 2),
        case("sum(dim=1) f16", "reduction", lambda: m.sum(dim=1), lambda: tm.sum(dim=1), lambda: nm.sum(axis=1),
             mbytes),
        case("softmax(dim=1) f16", "reduction", lambda: m.softmax(dim=1), lambda: tm.softmax(dim=1),
             lambda: numpy_softmax(nm), 2 * mbytes),
    ]


def layout_cases():
    """Copies between layouts (a transposed source or destination): tiled in tandem's copy kernel; ops over a
    transposed tensor."""
    cases = []
    for n, dt in ((2048, "float32"), (512, "float64")):
        a, ta = tandem.rand(n, n, dtype=getattr(tandem, dt)), torch.rand(n, n, dtype=getattr(torch, dt))
        na = ta.numpy().copy()
        out, tout, nout = tandem.empty_like(a), torch.empty_like(ta), np.empty_like(na)
        nbytes = 2 * a.numel() * a.element_size()
        cases += [
            case(f"t().contiguous() {n}^2 f{dt[5:]}", "layout", lambda a=a: a.t().contiguous(),
                 lambda ta=ta: ta.t().contiguous(), lambda na=na: np.ascontiguousarray(na.T), nbytes),
            case(f"out.t().copy_(x) {n}^2 f{dt[5:]}", "layout", lambda a=a, out=out: out.t().copy_(a),
                 lambda ta=ta, tout=tout: tout.t().copy_(ta), lambda na=na, nout=nout: np.copyto(nout.T, na), nbytes),
            # Ops over a transposed tensor: the result keeps its layout (preserve_format) and is walked in
            # memory order, as PyTorch's and NumPy's.
            case(f"exp(x.t()) {n}^2 f{dt[5:]}", "layout", lambda a=a: a.t().exp(), lambda ta=ta: ta.t().exp(),
                 lambda na=na: np.exp(na.T), nbytes),
            case(f"x.t() + 1 {n}^2 f{dt[5:]}", "layout", lambda a=a: a.t() + 1, lambda ta=ta: ta.t() + 1,
                 lambda na=na: na.T + 1, nbytes),
            case(f"x.t().clone() {n}^2 f{dt[5:]}", "layout", lambda a=a: a.t().clone(),
                 lambda ta=ta: ta.t().clone(), lambda na=na: na.T.copy(order="K"), nbytes),
        ]
    return cases


def numpy_softmax(a):
    """softmax over axis 1 the usual NumPy way (shift by the row max for range)."""
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def reduction_cases():
    x = tandem.rand(4096, 1000)
    tx = torch.rand(4096, 1000)
    nx = tx.numpy().copy()
    nbytes = 4096 * 1000 * 4
    return [
        case("sum() (4096x1000)", "reduction", lambda: x.sum(), lambda: tx.sum(), lambda: nx.sum(), nbytes),
        case("sum(dim=0)", "reduction", lambda: x.sum(dim=0), lambda: tx.sum(dim=0), lambda: nx.sum(axis=0), nbytes),
        case("sum(dim=1)", "reduction", lambda: x.sum(dim=1), lambda: tx.sum(dim=1), lambda: nx.sum(axis=1), nbytes),
        case("mean(dim=1)", "reduction", lambda: x.mean(dim=1), lambda: tx.mean(dim=1), lambda: nx.mean(axis=1), nbytes),
        case("argmax(dim=1)", "reduction", lambda: x.argmax(dim=1), lambda: tx.argmax(dim=1),
             lambda: nx.argmax(axis=1), nbytes),
        case("softmax(dim=1)", "reduction", lambda: x.softmax(dim=1), lambda: tx.softmax(dim=1),
             lambda: numpy_softmax(nx), 2 * nbytes),
    ]


def matmul_cases(sizes):
    out = []
    for n in sizes:
        a, b = tandem.rand(n, n), tandem.rand(n, n)
        ta, tb = torch.rand(n, n), torch.rand(n, n)
        na, nb = ta.numpy().copy(), tb.numpy().copy()
        out.append(case(f"matmul {n} f32", "matmul", lambda a=a, b=b: a @ b, lambda ta=ta, tb=tb: ta @ tb,
                        lambda na=na, nb=nb: na @ nb, flops=2 * n**3))
    return out


def half_matmul_cases():
    """16-bit Linear layers: one token (a matrix-vector product, memory-bound) and 128 tokens (a matrix product).
    NumPy has no bfloat16, and its float16 matmul is not a BLAS call: no NumPy column."""
    out = []
    for dtype, short in (("bfloat16", "bf16"), ("float16", "f16")):
        for tokens, k, n in ((1, 3072, 768), (1, 768, 3072), (128, 768, 3072)):
            x = tandem.randn(tokens, k).to(getattr(tandem, dtype))
            w = tandem.randn(n, k).to(getattr(tandem, dtype))
            tx, tw = torch.randn(tokens, k).to(getattr(torch, dtype)), torch.randn(n, k).to(getattr(torch, dtype))
            out.append(case(f"linear {tokens}x{k}->{n} {short}", "matmul",
                            lambda x=x, w=w: tandem.nn.functional.linear(x, w),
                            lambda tx=tx, tw=tw: torch.nn.functional.linear(tx, tw), flops=2 * tokens * k * n,
                            bytes_moved=2 * (tokens * k + k * n + tokens * n)))
    return out


def measured_bandwidth(n):
    """Read+write bandwidth of a plain copy into an existing buffer (NumPy), the ceiling for streaming ops."""
    src = np.ones(n, np.float32)
    dst = np.empty_like(src)
    t = best_time(lambda: np.copyto(dst, src), min_total=0.2)
    return 2 * n * 4 / t


def run(cases, lib, quick):
    """Seconds per call of `lib`'s function of every case that has one: {case name: seconds}."""
    times = {}
    for c in cases:
        fn = c["fns"][lib]
        if fn is not None:
            times[c["name"]] = best_time(fn, min_total=0.02 if quick else 0.1, repeats=3 if quick else 5)
    return times


def combine(cases, threads, times):
    """One row per case from the three libraries' times (times[lib][case name])."""
    rows = []
    for c in cases:
        t = {lib: times[lib][c["name"]] for lib in LIBRARIES if c["name"] in times[lib]}
        row = {"name": c["name"], "group": c["group"], "threads": threads, "seconds": t,
               "ratio_torch_over_tandem": t["torch"] / t["tandem"],
               "ratio_numpy_over_tandem": t["numpy"] / t["tandem"] if "numpy" in t else None}
        if c["bytes"]:
            row["tandem_gb_per_s"] = c["bytes"] / t["tandem"] / 1e9
        if c["flops"]:
            row["tandem_gflop_per_s"] = c["flops"] / t["tandem"] / 1e9
        rows.append(row)
    return rows


def fmt_time(s):
    return f"{s * 1e6:9.3f} us" if s < 1e-3 else f"{s * 1e3:9.3f} ms"


def format_row(r):
    t = r["seconds"]
    extra = ""
    if "tandem_gb_per_s" in r:
        extra = f"  {r['tandem_gb_per_s']:6.1f} GB/s"
    if "tandem_gflop_per_s" in r:
        extra = f"  {r['tandem_gflop_per_s']:6.1f} GFLOP/s"
    numpy_part = f"{fmt_time(t['numpy'])}  x{r['ratio_numpy_over_tandem']:5.2f}" if "numpy" in t else " " * 20
    return (f"{r['name']:<24} {r['threads']}T  tandem {fmt_time(t['tandem'])} | torch {fmt_time(t['torch'])}  "
            f"x{r['ratio_torch_over_tandem']:5.2f} | numpy {numpy_part}{extra}")


LIBRARIES = ("tandem", "torch", "numpy")


def random_cases(n):
    """Seeded draws into preallocated tensors. tandem and PyTorch draw the same CPU numbers (the MT19937 stream,
    serially, as PyTorch's kernels do: so neither uses a second thread); NumPy's column is its default PCG64
    generator, a different stream, for scale."""
    x, tx, nx = tandem.empty(n), torch.empty(n), np.empty(n, dtype=np.float32)
    i, ti = tandem.empty(n, dtype=tandem.int32), torch.empty(n, dtype=torch.int32)
    rng = np.random.default_rng(0)
    return [
        case("uniform_ (1M f32)", "random", lambda: x.uniform_(-1, 1), lambda: tx.uniform_(-1, 1),
             lambda: rng.random(n, dtype=np.float32, out=nx)),
        case("normal_ (1M f32)", "random", lambda: x.normal_(), lambda: tx.normal_(),
             lambda: rng.standard_normal(n, dtype=np.float32, out=nx)),
        case("bernoulli_(0.9) (1M f32)", "random", lambda: x.bernoulli_(0.9), lambda: tx.bernoulli_(0.9), None),
        case("exponential_ (1M f32)", "random", lambda: x.exponential_(), lambda: tx.exponential_(),
             lambda: rng.standard_exponential(n, dtype=np.float32, out=nx)),
        case("random_() (1M i32)", "random", lambda: i.random_(), lambda: ti.random_(), None),
        case("randperm (100k)", "random", lambda: tandem.randperm(100_000), lambda: torch.randperm(100_000),
             lambda: rng.permutation(100_000)),
    ]


def masked_write_cases():
    """x[mask] = number over 3000x6000 float32 (pytorch-metric-learning's CrossBatchMemory writes such masks): one
    masked fill in both libraries; x[mask] = values (PyTorch: the mask's coordinates, then a put; tandem: its
    masked_scatter kernel, as the values fill the masked block) and masked_scatter_ (PyTorch's serial kernel; tandem's
    counts each chunk's true positions, then writes, AVX-512 expanding a vector at a time); NumPy's boolean
    assignment beside them."""
    rng = np.random.default_rng(0)
    nm = rng.random((3000, 6000)) > 0.5
    m, tm = tandem.from_numpy(nm), torch.from_numpy(nm)
    x, tx, nx = tandem.zeros(3000, 6000), torch.zeros(3000, 6000), np.zeros((3000, 6000), np.float32)
    count = int(nm.sum())
    v, tv, nv = tandem.ones(count), torch.ones(count), np.ones(count, np.float32)

    def numpy_write():
        nx[nm] = 1.0

    def numpy_put():
        nx[nm] = nv
    return [case("x[mask] = 1.0 (3000x6000 f32)", "indexing", lambda: x.__setitem__(m, 1.0),
                 lambda: tx.__setitem__(tm, 1.0), numpy_write, bytes_moved=3000 * 6000 * 9),
            case("x[mask] = values (3000x6000 f32)", "indexing", lambda: x.__setitem__(m, v),
                 lambda: tx.__setitem__(tm, tv), numpy_put, bytes_moved=3000 * 6000 * 9 + count * 4),
            case("masked_scatter_ (3000x6000 f32)", "indexing", lambda: x.masked_scatter_(m, v),
                 lambda: tx.masked_scatter_(tm, tv), None, bytes_moved=3000 * 6000 * 9 + count * 4)]


def thread_count_cases(threads, args):
    set_threads(threads)
    n = 16 << 20
    groups = overhead_cases() if threads == 1 else []
    groups += (streaming_cases(n) + axpy_cases(n) + half_precision_cases(n) + reduction_cases() + layout_cases() +
               matmul_cases((512, 1024) if args.quick else (512, 1024, 2048)) + half_matmul_cases() +
               random_cases(1 << 20) + masked_write_cases())
    return [c for c in groups if args.filter in c["name"]]


def measure_in_child(threads, lib, args):
    """One library at one thread count, in a fresh process. The thread count: NumPy's and tandem's OpenBLAS
    size their pools from the environment at load time. The library: the others stay idle there, so no
    runtime's worker threads spin after its own calls on the cores another library is being timed on
    (NumPy's bundled OpenBLAS did after its matmul rows, and tandem's 2-thread 1024 matmul read 0.64x
    PyTorch in one process, 1.0x alone)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--threads", str(threads), "--lib", lib, "--filter", args.filter]
    if args.quick:
        cmd.append("--quick")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="shorter timing runs")
    parser.add_argument("--filter", default="", help="only cases whose name contains this")
    parser.add_argument("--out", default=None, help="results file (default bench/results/<host>-<date>.json)")
    parser.add_argument("--threads", type=int, default=None, help=argparse.SUPPRESS)  # child mode
    parser.add_argument("--lib", choices=LIBRARIES, default=None, help=argparse.SUPPRESS)  # child mode
    args = parser.parse_args()

    if args.threads:
        print(json.dumps(run(thread_count_cases(args.threads, args), args.lib, args.quick)))
        return 0

    info = machine()
    info["copy_bandwidth_gb_per_s"] = measured_bandwidth(16 << 20) / 1e9
    print(f"# {info['cpu']}, {info['cores']} cores, torch {info['torch']}, numpy {info['numpy']}")
    print(f"# CPU flags: {' '.join(info['cpu_flags'])}; tandem kernels: {info['tandem_capability']} "
          f"(TANDEM_CPU_CAPABILITY forces one of {', '.join(info['tandem_capabilities_supported'])}); "
          f"torch: {info['torch_cpu_capability']}")
    print(f"# measured copy bandwidth (read+write): {info['copy_bandwidth_gb_per_s']:.1f} GB/s")
    print("# ratios are other/tandem: above 1 means tandem is faster")
    print("# each library is timed in its own process, one per thread count")
    rows = []
    for threads in (1, 2):
        times = {lib: measure_in_child(threads, lib, args) for lib in LIBRARIES}
        set_threads(threads)
        for row in combine(thread_count_cases(threads, args), threads, times):
            print(format_row(row), flush=True)
            rows.append(row)
    for r in rows:
        if "tandem_gb_per_s" in r and r["group"] == "elementwise":
            r["fraction_of_copy_bandwidth"] = r["tandem_gb_per_s"] / info["copy_bandwidth_gb_per_s"]
    out = args.out or os.path.join(HERE, "results", f"{info['host']}-{datetime.date.today()}.json")
    with open(out, "w") as f:
        json.dump({"machine": info, "results": rows}, f, indent=1)
    print(f"# wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
