"""tandem.distributed against the MPI library itself (mpi4py) and PyTorch's gloo, side by side in one run.

    mpirun --allow-run-as-root --oversubscribe -np 2 .venv/bin/python bench/distributed_bench.py

Rows (rank 0 prints; ratios > 1 mean tandem is faster):
  - all_reduce of 4 MiB and 64 MiB float32: bus bandwidth 2(n-1)/n * bytes / time for tandem (blocking call,
    including its cross-rank argument check), mpi4py Allreduce on NumPy arrays, torch.distributed gloo.
  - the cost of the argument check: a 4-byte all_reduce, tandem vs mpi4py (latency).
  - DDP step on the digits MLP (batch 64 per rank): samples/s per rank with 2 ranks and, in a second
    `-np 1` run, with 1 rank; and the share of the gradient all-reduce hidden behind backward. Its gradients
    (0.3 MB) fit one bucket, launched when backward ends, so nothing can hide; a second row, a 6-layer
    1024-wide MLP (25 MB of gradients) with bucket_cap_mb=4, has several buckets launched during backward.
Goals (issue 13): all_reduce at least 0.95x mpi4py's bandwidth and at least gloo's.
"""
import os
import platform
import sys
import time

import numpy as np

import tandem
import tandem.distributed as dist


def best_of(fn, repeat, inner):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        times.append((time.perf_counter() - start) / inner)
    return min(times)


def main():
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    torch = None
    try:
        import torch
        import torch.distributed as tdist
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29561")
        tdist.init_process_group("gloo", rank=rank, world_size=world)
    except Exception as e:  # noqa: BLE001 - the bench still reports tandem and mpi4py
        if rank == 0:
            print(f"# torch gloo unavailable: {e}")
        torch = None
    if rank == 0:
        print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, {world} ranks, "
              f"{MPI.Get_library_version().splitlines()[0]}")
        print(f"{'case':34s} {'tandem':>12s} {'mpi4py':>12s} {'gloo':>12s} {'/mpi4py':>8s} {'/gloo':>8s}")
    rows = []
    if world == 1:  # nothing crosses between processes: only the DDP row means something
        ddp_row(rank, world)
        dist.destroy_process_group()
        return
    for mib in (4, 64):
        n = mib * (1 << 20) // 4
        t = tandem.ones(n)
        a, b = np.ones(n, dtype=np.float32), np.empty(n, dtype=np.float32)
        inner = 20 if mib == 4 else 3
        dist.barrier()
        tt = best_of(lambda: dist.all_reduce(t), 5, inner)
        comm.Barrier()
        tm = best_of(lambda: comm.Allreduce(a, b), 5, inner)
        tg = float("nan")
        if torch is not None:
            g = torch.ones(n)
            tdist.barrier()
            tg = best_of(lambda: tdist.all_reduce(g), 5, inner)
        bus = 2 * (world - 1) / world * n * 4 / 1e9
        rows.append((f"all_reduce {mib} MiB float32 (GB/s)", bus / tt, bus / tm, bus / tg))
    small_t = tandem.ones(1)
    small_a, small_b = np.ones(1, dtype=np.float32), np.empty(1, dtype=np.float32)
    dist.barrier()
    lt = best_of(lambda: dist.all_reduce(small_t), 5, 200)
    comm.Barrier()
    lm = best_of(lambda: comm.Allreduce(small_a, small_b), 5, 200)
    lg = float("nan")
    if torch is not None:
        sg = torch.ones(1)
        lg = best_of(lambda: tdist.all_reduce(sg), 5, 200)
    if rank == 0:
        for name, x, m, g in rows:
            print(f"{name:34s} {x:12.2f} {m:12.2f} {g:12.2f} {x / m:8.2f}x {x / g:8.2f}x")
        print(f"{'all_reduce 4 bytes (us)':34s} {lt * 1e6:12.1f} {lm * 1e6:12.1f} {lg * 1e6:12.1f} "
              f"{lm / lt:8.2f}x {lg / lt:8.2f}x")
    ddp_row(rank, world)
    dist.destroy_process_group()


def ddp_row(rank, world):
    from tandem import nn
    tandem.manual_seed(0)
    digits = nn.Sequential(nn.Flatten(), nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                           nn.Linear(256, 10))
    ddp_step_row(rank, world, "DDP digits MLP step", digits, 25, (64, 1, 8, 8))
    layers = [nn.Flatten(), nn.Linear(64, 1024), nn.ReLU()]
    for _ in range(5):
        layers += [nn.Linear(1024, 1024), nn.ReLU()]
    wide = nn.Sequential(*layers, nn.Linear(1024, 10))
    ddp_step_row(rank, world, "DDP 6x1024 MLP step (bucket_cap_mb=4)", wide, 4, (64, 1, 8, 8))


def ddp_step_row(rank, world, label, model, bucket_cap_mb, input_shape):
    from tandem import nn
    ddp = nn.parallel.DistributedDataParallel(model, bucket_cap_mb=bucket_cap_mb)
    opt = tandem.optim.SGD(ddp.parameters(), lr=0.01)
    x = tandem.randn(*input_shape)
    y = tandem.randint(0, 10, (input_shape[0],))
    loss_fn = nn.CrossEntropyLoss()

    def step(module):
        opt.zero_grad()
        loss_fn(module(x), y).backward()
        opt.step()

    for _ in range(10):
        step(ddp)
    dist.barrier()
    t_ddp = best_of(lambda: step(ddp), 5, 10)
    t_local = best_of(lambda: step(model), 5, 10)  # the same step without the reducer (no communication)
    grads = [p.grad for p in model.parameters()]
    flat = tandem.cat([g.reshape(-1) for g in grads])
    t_comm = best_of(lambda: dist.all_reduce(flat), 5, 10)  # the gradient all-reduce alone
    if rank == 0:
        hidden = max(0.0, min(1.0, 1 - (t_ddp - t_local) / t_comm)) if t_comm > 0 else 1.0
        n = input_shape[0]
        print(f"{label}, batch {n}/rank, {world} rank(s): {n / t_ddp:.0f} samples/s per rank "
              f"(local step {t_local * 1e3:.2f} ms, DDP step {t_ddp * 1e3:.2f} ms, gradient all_reduce alone "
              f"{t_comm * 1e3:.2f} ms, {hidden:.0%} of it hidden behind backward)")


if __name__ == "__main__":
    sys.exit(main())
