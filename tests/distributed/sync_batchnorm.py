"""Run under `mpirun -np 2`: SyncBatchNorm with an initialised process group normalises with the statistics of
the whole (global) batch. Each rank holds half of one batch; its output, input gradient and running statistics
must equal BatchNorm's on the full batch (computed by every rank locally), and the weight/bias gradients summed
over ranks must equal the full-batch ones. Writes {"ok": bool, "error": str} per rank to argv[1]/rank<r>.json."""
import json
import os
import sys
import traceback

import numpy as np

import tandem
import tandem.distributed as dist
import tandem.nn as nn


def run(device, rank, world):
    gen = np.random.default_rng(0)
    full = gen.standard_normal((4 * world, 3, 2, 2))
    upstream = gen.standard_normal((4 * world, 3, 2, 2))
    w0, b0 = gen.standard_normal(3), gen.standard_normal(3)

    ref = nn.BatchNorm2d(3).double().to(device)
    ref.weight.data.copy_(tandem.tensor(w0, device=device))
    ref.bias.data.copy_(tandem.tensor(b0, device=device))
    sync = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.BatchNorm2d(3))).double().to(device)[0]
    sync.weight.data.copy_(tandem.tensor(w0, device=device))
    sync.bias.data.copy_(tandem.tensor(b0, device=device))

    x_full = tandem.tensor(full, device=device, requires_grad=True)
    want = ref(x_full)
    (want * tandem.tensor(upstream, device=device)).sum().backward()

    lo, hi = 4 * rank, 4 * (rank + 1)
    x = tandem.tensor(full[lo:hi], device=device, requires_grad=True)
    got = sync(x)
    (got * tandem.tensor(upstream[lo:hi], device=device)).sum().backward()

    def close(a, b, what):
        a, b = np.asarray(a.detach().cpu().tolist()), np.asarray(b.detach().cpu().tolist())
        assert np.allclose(a, b, rtol=1e-10, atol=1e-12), f"{what}: {a} vs {b}"

    close(got, want[lo:hi], "output")
    close(x.grad, x_full.grad[lo:hi], "input gradient")
    close(sync.running_mean, ref.running_mean, "running_mean")
    close(sync.running_var, ref.running_var, "running_var")
    for name in ("weight", "bias"):
        g = getattr(sync, name).grad.clone()
        dist.all_reduce(g)
        close(g, getattr(ref, name).grad, f"{name} gradient summed over ranks")
    # eval mode: the running statistics, no communication
    sync.eval()
    ref.eval()
    close(sync(x), ref(x_full)[lo:hi], "eval output")


def main():
    out_dir = sys.argv[1]
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    report = {"ok": True, "error": ""}
    devices = ["cpu"] + (["cuda:0"] if tandem.cuda.is_available() else [])
    try:
        for device in devices:
            run(device, rank, world)
    except Exception:  # noqa: BLE001 - reported to the pytest process
        report = {"ok": False, "error": traceback.format_exc()}
    with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
        json.dump(report, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
