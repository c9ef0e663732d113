"""GPU benchmarks: tandem vs PyTorch (and CuPy where useful) side by side on one CUDA device, in one run.

Measures what issue 5 sets goals for and writes the rows as JSON plus a markdown table:
- device-to-device copy bandwidth (the reference for the bandwidth goals: the best of every library's copy);
- elementwise float32 ops on 256 MiB operands (goal: >= 85% of copy bandwidth);
- reductions: sum, argmax(dim=1), softmax(dim=1) (goal: >= 80% of copy bandwidth and not slower than PyTorch);
- sort of one long row and topk over many short rows (no goal; the two CUDA sort paths against PyTorch);
- matmul 8192 x 8192 float32 and bfloat16 (goal: within 10% of PyTorch; TF32 off in both, PyTorch's default);
- .cpu() of a 1 GiB float32 tensor into new pageable memory (goal: >= 1.5x PyTorch's throughput);
- a digits-sized MLP training epoch on cuda (goal: >= PyTorch's samples/s; measures per-op launch overhead).

Usage: PYTHONPATH=python python bench/gpu_bench.py --out DIR [--quick]
"""
import argparse
import json
import os
import time

import numpy as np
import torch

import tandem

try:
    import cupy
except ImportError:  # CuPy is an optional third column
    cupy = None

MiB = 1 << 20


def sync_all():
    tandem.cuda.synchronize()
    torch.cuda.synchronize()
    if cupy is not None:
        cupy.cuda.Device().synchronize()


def gpu_time(fn, repeats, inner=1):
    """Seconds per call: the median of `repeats` timed batches of `inner` calls, synchronised around each."""
    fn()
    sync_all()
    times = []
    for _ in range(repeats):
        sync_all()
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        sync_all()
        times.append((time.perf_counter() - start) / inner)
    return float(np.median(times))


class Rows:
    def __init__(self, repeats):
        self.repeats = repeats
        self.rows = []

    def add(self, name, group, fns, bytes_moved=None, flops=None, inner=1, goal=None):
        row = {"name": name, "group": group, "bytes": bytes_moved, "flops": flops, "goal": goal}
        for lib, fn in fns.items():
            if fn is None:
                continue
            try:
                row[f"{lib}_s"] = gpu_time(fn, self.repeats, inner)
            except Exception as e:  # a failing case is reported, not fatal for the other rows
                row[f"{lib}_error"] = f"{type(e).__name__}: {e}"
        t = row.get("tandem_s")
        for lib in ("torch", "cupy"):
            if t and row.get(f"{lib}_s"):
                row[f"{lib}_over_tandem"] = row[f"{lib}_s"] / t
        if t and bytes_moved:
            row["tandem_GBps"] = bytes_moved / t / 1e9
        if row.get("torch_s") and bytes_moved:
            row["torch_GBps"] = bytes_moved / row["torch_s"] / 1e9
        if t and flops:
            row["tandem_TFLOPS"] = flops / t / 1e12
            if row.get("torch_s"):
                row["torch_TFLOPS"] = flops / row["torch_s"] / 1e12
        self.rows.append(row)
        print(format_row(row), flush=True)
        return row


def format_row(r):
    parts = [f"{r['name']:<34}"]
    for lib in ("tandem", "torch", "cupy"):
        if f"{lib}_s" in r:
            parts.append(f"{lib} {r[f'{lib}_s'] * 1e3:9.3f} ms")
        elif f"{lib}_error" in r:
            parts.append(f"{lib} ERROR {r[f'{lib}_error'][:60]}")
    if "tandem_GBps" in r:
        parts.append(f"{r['tandem_GBps']:7.0f} GB/s")
    if "tandem_TFLOPS" in r:
        parts.append(f"{r['tandem_TFLOPS']:6.1f} TFLOPS")
    if "torch_over_tandem" in r:
        parts.append(f"torch/tandem x{r['torch_over_tandem']:.2f}")
    return "  ".join(parts)


def both(shape, dtype_name="float32"):
    """The same random values as a tandem and a torch cuda tensor (made on the host: no interop involved)."""
    host = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    t = tandem.from_numpy(host).cuda().to(getattr(tandem, dtype_name))
    p = torch.from_numpy(host).cuda().to(getattr(torch, dtype_name))
    return t, p


def bandwidth_cases(rows, n):
    """Rows over n float32 elements; returns the reference copy bandwidth (the best copy any library did)."""
    nbytes = n * 4
    ta, pa = both((n,))
    tb, pb = both((n,))
    tout, pout = tandem.empty(n, device="cuda"), torch.empty(n, device="cuda")
    cupy_copy = None
    if cupy is not None:
        ca, co = cupy.asarray(pa), cupy.empty(n, dtype=cupy.float32)
        cupy_copy = lambda: co.__setitem__(slice(None), ca)  # noqa: E731
    copy = rows.add("copy_ 256 MiB (d2d)" if n == 64 * MiB else f"copy_ {nbytes // MiB} MiB (d2d)", "bandwidth",
                    {"tandem": lambda: tout.copy_(ta), "torch": lambda: pout.copy_(pa), "cupy": cupy_copy},
                    bytes_moved=2 * nbytes)
    ref = max([2 * nbytes / copy[f"{lib}_s"] / 1e9 for lib in ("tandem", "torch", "cupy") if f"{lib}_s" in copy],
              default=None)
    goal = 0.85
    # Results are allocated per call in both libraries (their caching allocators make that cheap).
    rows.add("a + b (float32)", "elementwise", {"tandem": lambda: ta + tb, "torch": lambda: pa + pb},
             bytes_moved=3 * nbytes, goal=goal)
    rows.add("a * 2.5", "elementwise", {"tandem": lambda: ta * 2.5, "torch": lambda: pa * 2.5},
             bytes_moved=2 * nbytes, goal=goal)
    rows.add("exp(a)", "elementwise", {"tandem": lambda: tandem.exp(ta), "torch": lambda: torch.exp(pa)},
             bytes_moved=2 * nbytes, goal=goal)
    rows.add("relu(a)", "elementwise", {"tandem": lambda: tandem.relu(ta), "torch": lambda: torch.relu(pa)},
             bytes_moved=2 * nbytes, goal=goal)
    rows.add("a.to(float16)", "elementwise", {"tandem": lambda: ta.to(tandem.float16),
                                             "torch": lambda: pa.to(torch.float16)},
             bytes_moved=n * 6, goal=goal)
    cupy_sum = None
    if cupy is not None:
        ca = cupy.asarray(pa)
        cupy_sum = ca.sum
    rows.add("a.sum()", "reduction", {"tandem": lambda: ta.sum(), "torch": lambda: pa.sum(), "cupy": cupy_sum},
             bytes_moved=nbytes, goal=0.80)
    return ref


def reduction_cases(rows, rows_n, cols):
    nbytes = rows_n * cols * 4
    t, p = both((rows_n, cols))
    rows.add(f"sum(dim=1) {rows_n}x{cols}", "reduction", {"tandem": lambda: t.sum(dim=1),
                                                         "torch": lambda: p.sum(dim=1)},
             bytes_moved=nbytes, goal=0.80)
    rows.add(f"sum(dim=0) {rows_n}x{cols}", "reduction", {"tandem": lambda: t.sum(dim=0),
                                                         "torch": lambda: p.sum(dim=0)},
             bytes_moved=nbytes, goal=0.80)
    rows.add(f"argmax(dim=1) {rows_n}x{cols}", "reduction", {"tandem": lambda: t.argmax(dim=1),
                                                            "torch": lambda: p.argmax(dim=1)},
             bytes_moved=nbytes, goal=0.80)
    rows.add(f"softmax(dim=1) {rows_n}x{cols}", "reduction",
             {"tandem": lambda: tandem.softmax(t, dim=1), "torch": lambda: torch.softmax(p, dim=1)},
             bytes_moved=2 * nbytes, goal=0.80)


def sort_cases(rows, n, rows_n, cols):
    """No goal: a 1-D sort (one long row, the device-wide path) and many short rows (the segmented path)."""
    t, p = both((n,))
    rows.add(f"sort 1-D {n // (1 << 20)}M float32", "sort", {"tandem": lambda: t.sort(), "torch": lambda: p.sort()},
             bytes_moved=2 * n * 4)
    m, q = both((rows_n, cols))
    rows.add(f"topk(k=8, dim=1) {rows_n}x{cols}", "sort",
             {"tandem": lambda: m.topk(8, dim=1), "torch": lambda: q.topk(8, dim=1)}, bytes_moved=rows_n * cols * 4)


def matmul_cases(rows, n, repeats):
    torch.backends.cuda.matmul.allow_tf32 = False
    tandem.backends.cuda.matmul.allow_tf32 = False
    for dtype in ("float32", "bfloat16"):
        ta, pa = both((n, n), dtype)
        tb, pb = both((n, n), dtype)
        rows.add(f"matmul {n}^2 {dtype}", "matmul", {"tandem": lambda: ta @ tb, "torch": lambda: pa @ pb},
                 flops=2 * n**3, goal=0.90)


def to_host_cases(rows, n):
    t, p = both((n,))
    rows.add(f".cpu() {n * 4 // MiB} MiB float32", "transfer",
             {"tandem": lambda: t.cpu(), "torch": lambda: p.cpu()}, bytes_moved=n * 4, goal=1.5)
    h_t, h_p = t.cpu(), p.cpu()
    rows.add(f".cuda() {n * 4 // MiB} MiB float32", "transfer",
             {"tandem": lambda: h_t.cuda(), "torch": lambda: h_p.cuda()}, bytes_moved=n * 4)


def digits_data():
    try:
        from sklearn.datasets import load_digits
        d = load_digits()
        return (d.data / 16.0).astype(np.float32), d.target.astype(np.int64)
    except ImportError:  # the same shape without scikit-learn
        rng = np.random.default_rng(0)
        return rng.random((1797, 64), dtype=np.float32), rng.integers(0, 10, 1797)


def mlp_epoch(lib, x_np, y_np):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10)).to("cuda")
    x, y = lib.tensor(x_np, device="cuda"), lib.tensor(y_np, device="cuda")
    loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    def epoch():
        for xb, yb in loader:
            opt.zero_grad()
            loss_fn(model(xb), yb).backward()
            opt.step()

    return epoch


def training_cases(rows):
    x, y = digits_data()
    r = rows.add("digits MLP epoch (cuda)", "training",
                 {"tandem": mlp_epoch(tandem, x, y), "torch": mlp_epoch(torch, x, y)}, goal=1.0)
    for lib in ("tandem", "torch"):
        if r.get(f"{lib}_s"):
            r[f"{lib}_samples_per_s"] = len(x) / r[f"{lib}_s"]


def verdicts(rows, ref_bw):
    """Each goal row gets met True/False with the measured figure it was judged on."""
    for r in rows:
        goal = r.get("goal")
        if goal is None or "tandem_s" not in r:
            continue
        if r["group"] in ("elementwise", "reduction") and ref_bw:
            r["fraction_of_copy_bw"] = r["tandem_GBps"] / ref_bw
            met = r["fraction_of_copy_bw"] >= goal
            if r["group"] == "reduction" and "torch_over_tandem" in r:
                met = met and r["torch_over_tandem"] >= 1.0
        elif r["group"] == "matmul":
            met = r.get("torch_over_tandem", 0) >= goal
        else:  # transfer and training: ratios against PyTorch
            met = r.get("torch_over_tandem", 0) >= goal
        r["met"] = bool(met)


def markdown(meta, rows, ref_bw):
    lines = [f"# GPU benchmarks — {meta['gpu']} — {meta['date']}", "",
             f"tandem {meta['tandem']}, PyTorch {meta['torch']}, NumPy {meta['numpy']}, CuPy {meta['cupy']}, "
             f"CUDA runtime {meta['cuda']}. Reference device copy bandwidth: "
             f"{ref_bw:.0f} GB/s." if ref_bw else "", "",
             "| case | tandem ms | torch ms | torch/tandem | tandem GB/s or TFLOPS | goal | met |",
             "|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        fig = (f"{r['tandem_GBps']:.0f} GB/s ({100 * r['fraction_of_copy_bw']:.0f}% of copy)"
               if "fraction_of_copy_bw" in r else
               f"{r['tandem_GBps']:.0f} GB/s" if "tandem_GBps" in r else
               f"{r['tandem_TFLOPS']:.1f} TFLOPS" if "tandem_TFLOPS" in r else
               f"{r['tandem_samples_per_s']:.0f} samples/s" if "tandem_samples_per_s" in r else "")
        err = "; ".join(f"{lib}: {r[f'{lib}_error']}" for lib in ("tandem", "torch") if f"{lib}_error" in r)
        lines.append("| {} | {} | {} | {} | {} | {} | {} |".format(
            r["name"], f"{r['tandem_s'] * 1e3:.3f}" if "tandem_s" in r else "error",
            f"{r['torch_s'] * 1e3:.3f}" if "torch_s" in r else "-",
            f"{r['torch_over_tandem']:.2f}" if "torch_over_tandem" in r else "-", fig or err,
            "" if r.get("goal") is None else r["goal"], {True: "yes", False: "**no**"}.get(r.get("met"), "")))
    lines += [""] + [f"Group failed: {e}" for e in meta.get("errors", [])]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="directory for gpu-bench.json and gpu-bench.md")
    ap.add_argument("--quick", action="store_true", help="small sizes, for checking the script itself")
    args = ap.parse_args()
    if not (tandem.cuda.is_available() and torch.cuda.is_available()):
        raise SystemExit("gpu_bench.py needs a CUDA GPU visible to both tandem and PyTorch")
    os.makedirs(args.out, exist_ok=True)
    quick = args.quick
    rows = Rows(repeats=3 if quick else 10)
    n = (16 * MiB if quick else 256 * MiB) // 4
    meta = {"gpu": torch.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%d"),
            "tandem": tandem.__version__, "torch": torch.__version__, "numpy": np.__version__,
            "cupy": cupy.__version__ if cupy is not None else "absent", "cuda": torch.version.cuda, "quick": quick}

    def save(ref_bw):
        """Rewritten after every group, so a run stopped at a time limit still leaves the rows it measured."""
        verdicts(rows.rows, ref_bw)
        meta["reference_copy_GBps"] = ref_bw
        with open(os.path.join(args.out, "gpu-bench.json"), "w") as f:
            json.dump({"meta": meta, "rows": rows.rows}, f, indent=1)
        with open(os.path.join(args.out, "gpu-bench.md"), "w") as f:
            f.write(markdown(meta, rows.rows, ref_bw))

    ref_bw = None
    try:
        ref_bw = bandwidth_cases(rows, n)
    except Exception as e:  # a group that fails outside a timed case (e.g. making its inputs) is recorded
        meta.setdefault("errors", []).append(f"bandwidth: {type(e).__name__}: {e}")
    save(ref_bw)
    for group in (lambda: reduction_cases(rows, 1024 if quick else 16384, 4096),
                  lambda: sort_cases(rows, (1 if quick else 16) << 20, 1024 if quick else 8192, 1024),
                  lambda: matmul_cases(rows, 1024 if quick else 8192, rows.repeats),
                  lambda: to_host_cases(rows, (64 * MiB if quick else 1024 * MiB) // 4),
                  lambda: training_cases(rows)):
        try:
            group()
        except Exception as e:
            meta.setdefault("errors", []).append(f"{type(e).__name__}: {e}")
            print("group failed:", meta["errors"][-1], flush=True)
        save(ref_bw)


if __name__ == "__main__":
    main()
