"""Process groups of processes that mpirun did not start (distributed/mpi_join.py): PyTorch's DDP tutorial form
(mp.spawn, init_process_group("gloo", rank=, world_size=) with MASTER_ADDR/MASTER_PORT), ranks started by hand or by
a launcher with RANK/WORLD_SIZE (env://), tcp:// with explicit ranks, and the failures (a rank that never comes, a
rank out of range) as errors within the timeout, never a hang. Each job runs in its own process tree with a hard
time bound (process_helpers.py)."""
import os
import shutil
import socket
import sys

import numpy as np
import pytest

import tandem
from process_helpers import run_process_tree

pytestmark = pytest.mark.skipif(not tandem.distributed.is_available() or shutil.which("ompi-server") is None,
                                reason="needs tandem built with MPI and Open MPI's ompi-server")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Under a sanitizer the preloaded runtime must not reach Open MPI's own daemons (a singleton's orted, the
# ompi-server: docs/reliability.md), so each rank drops LD_PRELOAD from its environment before MPI starts: the
# rank's own process has the runtime loaded already. (mp.spawn's parent keeps it: its children need it.)
PRELUDE = "import os\n"
UNPRELOAD = "os.environ.pop('LD_PRELOAD', None)"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(tmp_path, program, *args, env=None, timeout=120):
    path = tmp_path / "job.py"
    path.write_text(PRELUDE + program.replace("UNPRELOAD", UNPRELOAD))
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p), **(env or {}))
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        if name not in (env or {}):
            full_env.pop(name, None)
    return run_process_tree([sys.executable, str(path), *map(str, args)], env=full_env, timeout=timeout)


SPAWN_DDP = """
import sys
import tandem as torch
import tandem.distributed as dist
import tandem.multiprocessing as mp
from tandem.nn.parallel import DistributedDataParallel as DDP

def batch(rank):
    return torch.arange(12., dtype=torch.float64).reshape(4, 3).add(rank).sin()

def train(rank, world_size, port, out):
    UNPRELOAD
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    torch.manual_seed(0)
    model = DDP(torch.nn.Linear(3, 2, dtype=torch.float64))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        model(batch(rank)).pow(2).mean().backward()
        opt.step()
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    w = torch.cat([p.detach().flatten() for p in model.module.parameters()])
    torch.save({"rank": dist.get_rank(), "size": dist.get_world_size(), "backend": dist.get_backend(),
                "sum": t.item(), "w": w}, f"{out}/{rank}.pt")
    dist.destroy_process_group()

if __name__ == "__main__":
    n, port, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    mp.spawn(train, args=(n, port, out), nprocs=n, join=True)
"""


def test_mp_spawn_ddp_with_gloo_and_master_env_matches_one_process_training(tmp_path):
    n = 3
    result = run(tmp_path, SPAWN_DDP, n, free_port(), tmp_path)
    assert result.returncode == 0, result.stderr
    got = [tandem.load(tmp_path / f"{r}.pt") for r in range(n)]
    assert [(g["rank"], g["size"], g["backend"], g["sum"]) for g in got] == [(r, n, "gloo", 6.0) for r in range(n)]
    for g in got[1:]:  # every rank holds bit-identical parameters
        assert tandem.equal(g["w"], got[0]["w"])
    # ... those of one process training on the ranks' batches together (DDP averages the gradients).
    tandem.manual_seed(0)
    model = tandem.nn.Linear(3, 2, dtype=tandem.float64)
    opt = tandem.optim.SGD(model.parameters(), lr=0.1)
    data = [tandem.arange(12., dtype=tandem.float64).reshape(4, 3).add(r).sin() for r in range(n)]
    for _ in range(3):
        opt.zero_grad()
        (sum(model(x).pow(2).mean() for x in data) / n).backward()
        opt.step()
    want = tandem.cat([p.detach().flatten() for p in model.parameters()])
    np.testing.assert_allclose(got[0]["w"].numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


ENV_RANKS = """
UNPRELOAD
import tandem as torch
import tandem.distributed as dist
dist.init_process_group()  # env://: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
r, n = dist.get_rank(), dist.get_world_size()
t = torch.arange(4.) * (r + 1)
dist.all_reduce(t)
parts = [torch.zeros(2) for _ in range(n)]
dist.all_gather(parts, torch.full((2,), float(r)))
obj = [{"from": 0}] if r == 0 else [None]
dist.broadcast_object_list(obj, src=0)
print(r, n, t.tolist(), [p.tolist() for p in parts], obj)
dist.barrier()
dist.destroy_process_group()
"""


def test_ranks_started_by_hand_join_by_env_rendezvous(tmp_path):
    import subprocess

    port, n = free_port(), 3
    path = tmp_path / "rank.py"
    path.write_text(PRELUDE + ENV_RANKS.replace("UNPRELOAD", UNPRELOAD))
    procs = []
    for r in (2, 0, 1):  # in any order
        env = dict(os.environ, RANK=str(r), WORLD_SIZE=str(n), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                   PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        procs.append((r, subprocess.Popen([sys.executable, str(path)], env=env, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                          start_new_session=True)))
    try:
        outputs = {r: p.communicate(timeout=120) for r, p in procs}
    finally:
        for _, p in procs:
            if p.poll() is None:
                os.killpg(p.pid, 9)
    for r, p in procs:
        assert p.returncode == 0, outputs[r][1]
        assert outputs[r][0].strip() == (f"{r} 3 [0.0, 6.0, 12.0, 18.0] [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]] "
                                         "[{'from': 0}]")


TCP_AND_ERRORS = """
import datetime, sys
import tandem as torch
import tandem.distributed as dist
import tandem.multiprocessing as mp

def say(*parts):  # one write per line: the ranks share the output file
    os.write(1, (" ".join(map(str, parts)) + "\\n").encode())

def job(rank, port, case):
    UNPRELOAD
    short = datetime.timedelta(seconds=4)
    try:
        if case == "tcp":
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
            t = torch.tensor([rank + 1.0])
            dist.broadcast(t, src=1)
            say(rank, "tcp", t.item())
        elif case == "twice":  # a second group after destroy_process_group, in the same processes: refused
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
            t = torch.tensor([float(rank)])
            dist.all_reduce(t)
            say(rank, "twice", 0, t.item())
            dist.destroy_process_group()
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=2)
        elif case == "missing":  # world_size 3, but only 2 processes come
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=3,
                                    timeout=short)
        elif case == "bad_rank":
            dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank + 5, world_size=2,
                                    timeout=short)
    except Exception as e:
        say(rank, case, type(e).__name__, str(e).splitlines()[0])

if __name__ == "__main__":
    mp.spawn(job, args=(int(sys.argv[1]), sys.argv[2]), nprocs=2, join=True)
"""


def test_tcp_init_method_with_explicit_ranks(tmp_path):
    result = run(tmp_path, TCP_AND_ERRORS, free_port(), "tcp")
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split("\n")[:2]) == ["0 tcp 2.0", "1 tcp 2.0"]


def test_a_rank_that_never_comes_is_an_error_within_the_timeout(tmp_path):
    result = run(tmp_path, TCP_AND_ERRORS, free_port(), "missing", timeout=90)
    assert result.returncode == 0, result.stderr
    lines = sorted(result.stdout.strip().split("\n"))
    # Rank 0 hosts the store: its own timeout is DistStoreError. Rank 1 times out too, unless rank 0's failure
    # stops the store first: then its wait sees the connection close, PyTorch's DistNetworkError (a ValueError
    # from the stopped server's reply before session 39, a flaky failure under load).
    assert lines[0].split()[:3] == ["0", "missing", "DistStoreError"]
    assert lines[1].split()[:2] == ["1", "missing"]
    assert lines[1].split()[2] in ("DistStoreError", "DistNetworkError")


def test_a_rank_past_the_world_size_is_refused(tmp_path):
    result = run(tmp_path, TCP_AND_ERRORS, free_port(), "bad_rank", timeout=90)
    assert result.returncode == 0, result.stderr
    lines = sorted(result.stdout.strip().split("\n"))
    assert lines == ["0 bad_rank ValueError init_process_group: rank 5 is not in [0, world_size = 2)",
                     "1 bad_rank ValueError init_process_group: rank 6 is not in [0, world_size = 2)"]


def test_a_second_join_after_destroy_is_refused_not_risked(tmp_path):
    result = run(tmp_path, TCP_AND_ERRORS, free_port(), "twice")
    assert result.returncode == 0, result.stderr
    refusal = ("twice RuntimeError init_process_group: processes that joined without mpirun can form one group "
               "per run; this one already did (destroy_process_group does not end MPI)")
    assert sorted(result.stdout.strip().split("\n")) == ["0 twice 0 1.0", f"0 {refusal}", "1 twice 0 1.0",
                                                         f"1 {refusal}"]


def test_a_store_without_rank_is_refused_before_mpi_starts():
    # Checked before any store traffic or MPI call, so it runs in the test process itself.
    store = tandem.distributed.HashStore()
    with pytest.raises(ValueError, match=r"^init_process_group: rank and world_size must be given with store="):
        tandem.distributed.init_process_group("gloo", store=store, world_size=2)
    assert not tandem.distributed.is_initialized()
