"""tandem.distributed under `mpirun -np 2`: the checks in tests/distributed/collectives.py on cpu and (when
present) cuda:0, each reported as its own test; failing ranks end the job instead of hanging; and the API's
behaviour before init_process_group, in this process."""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

import tandem
import tandem.distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = shutil.which("mpirun")
needs_mpi = pytest.mark.skipif(not (dist.is_available() and MPIRUN), reason="built without MPI or no mpirun")


def mpirun(script, *args, timeout=300):
    # The ranks import the same tandem as this process (the sanitizer runs use their own build's package).
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))
    env = dict(os.environ, PYTHONPATH=package_root, OMP_NUM_THREADS="1")
    # Under the sanitizer runs the Python processes get the sanitizer runtime preloaded; mpirun and its daemons
    # must not (ASan then reports Open MPI's own launcher), so only the ranks get LD_PRELOAD, through -x.
    preload = env.pop("LD_PRELOAD", None)
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", "2", "--mca", "btl", "self,vader,tcp",
           "-x", "PYTHONPATH", "-x", "OMP_NUM_THREADS"]
    if preload:
        cmd += ["-x", f"LD_PRELOAD={preload}"]
    for var in ("TANDEM_EMULATE_CUDA", "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "TANDEM_SANITIZER"):
        if var in env:
            cmd += ["-x", var]
    return subprocess.run(cmd + [sys.executable, os.path.join(ROOT, "tests", "distributed", script), *args],
                          env=env, capture_output=True, text=True, timeout=timeout)


def check_names():
    sys.path.insert(0, os.path.join(ROOT, "tests", "distributed"))
    try:
        import collectives
    finally:
        sys.path.pop(0)
    devices = ["cpu"] + (["cuda:0"] if tandem.cuda.is_available() else [])
    return [f"{fn.__name__}[{d}]" for d in devices for fn in collectives.CHECKS]


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    run = mpirun("collectives.py", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


@needs_mpi
@pytest.mark.parametrize("name", check_names())
def test_collectives(reports, name):
    for rank, report in enumerate(reports):
        assert report.get(name) == "ok", f"rank {rank}:\n{report.get(name)}"


@needs_mpi
def test_timeout_raises_and_ends_the_job():
    start = time.monotonic()
    run = mpirun("failures.py", "timeout", timeout=60)
    assert "rank 0 timed out after" in run.stdout, run.stdout + run.stderr
    assert "all_reduce timed out after 2000 ms" in run.stdout
    assert run.returncode != 0 and time.monotonic() - start < 40


@needs_mpi
def test_dead_rank_ends_the_job():
    start = time.monotonic()
    run = mpirun("failures.py", "dead_rank", timeout=60)
    assert run.returncode != 0 and "returned from an all_reduce with a dead peer" not in run.stdout
    assert time.monotonic() - start < 40


def test_collective_before_init_raises_pytorch_message():
    msg = "Default process group has not been initialized, please make sure to call init_process_group."
    for fn in (lambda: dist.all_reduce(tandem.ones(1)), dist.get_rank, dist.get_world_size, dist.barrier,
               lambda: dist.new_group([0]), lambda: dist.broadcast_object_list([1])):
        with pytest.raises(ValueError) as e:
            fn()
        assert str(e.value).startswith(msg) and "hint: call tandem.distributed.init_process_group()" in str(e.value)
    assert not dist.is_initialized()
    with pytest.raises(AssertionError, match="Process group cannot be None"):
        dist.destroy_process_group()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        tandem.nn.parallel.DistributedDataParallel(tandem.nn.Linear(2, 2))


def test_api_surface():
    assert dist.is_available() == dist.is_mpi_available()
    assert not dist.is_gloo_available() and not dist.is_torchelastic_launched()
    assert dist.Backend("MPI") == "mpi" and dist.Backend("nccl") == dist.Backend.NCCL
    assert str(dist.ReduceOp.SUM) == "RedOpType.SUM" and int(dist.ReduceOp.AVG) == 1
    assert repr(dist.ReduceOp.MAX) == "<RedOpType.MAX: 4>"
    from tandem.utils.data import DistributedSampler  # noqa: F401
    from tandem.nn.parallel import DistributedDataParallel  # noqa: F401


def test_sampler_without_group_uses_explicit_rank():
    data = list(range(10))
    s = tandem.utils.data.DistributedSampler(data, num_replicas=3, rank=2, shuffle=False)
    assert list(s) == [2, 5, 8, 1] and len(s) == 4  # padded with the first indices
    s = tandem.utils.data.DistributedSampler(data, num_replicas=3, rank=0, shuffle=False, drop_last=True)
    assert list(s) == [0, 3, 6] and len(s) == 3
    a = tandem.utils.data.DistributedSampler(data, num_replicas=2, rank=0, seed=5)
    b = tandem.utils.data.DistributedSampler(data, num_replicas=2, rank=1, seed=5)
    assert sorted(list(a) + list(b)) == data
    first = list(a)
    a.set_epoch(1)
    assert list(a) != first or len(data) < 3


def test_state_dict_prefix_hint():
    model = tandem.nn.Linear(2, 2)
    wrapped = {"module." + k: v for k, v in model.state_dict().items()}
    with pytest.raises(RuntimeError, match="saved from a DistributedDataParallel wrapper"):
        model.load_state_dict(wrapped)
    from tandem.nn.modules.utils import consume_prefix_in_state_dict_if_present
    consume_prefix_in_state_dict_if_present(wrapped, "module.")
    model.load_state_dict(wrapped)
