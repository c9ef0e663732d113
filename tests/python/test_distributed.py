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
from process_helpers import run_process_tree

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MPIRUN = shutil.which("mpirun")
needs_mpi = pytest.mark.skipif(not (dist.is_available() and MPIRUN), reason="built without MPI or no mpirun")


def mpirun(script, *args, timeout=300, nprocs=2):
    # The ranks import the same tandem as this process (the sanitizer runs use their own build's package).
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))
    env = dict(os.environ, PYTHONPATH=package_root, OMP_NUM_THREADS="1")
    # Under the sanitizer runs the Python processes get the sanitizer runtime preloaded; mpirun and its daemons
    # must not (ASan then reports Open MPI's own launcher), so only the ranks get LD_PRELOAD, through -x.
    preload = env.pop("LD_PRELOAD", None)
    cmd = [MPIRUN, "--allow-run-as-root", "--oversubscribe", "-np", str(nprocs), "--mca", "btl", "self,vader,tcp",
           "-x", "PYTHONPATH", "-x", "OMP_NUM_THREADS"]
    if preload:
        cmd += ["-x", f"LD_PRELOAD={preload}"]
    for var in ("TANDEM_EMULATE_CUDA", "ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS", "TANDEM_SANITIZER"):
        if var in env:
            cmd += ["-x", var]
    return run_process_tree(cmd + [sys.executable, os.path.join(ROOT, "tests", "distributed", script), *args],
                            env=env, timeout=timeout)


def check_names(script):
    sys.path.insert(0, os.path.join(ROOT, "tests", "distributed"))
    try:
        module = __import__(script)
    finally:
        sys.path.pop(0)
    devices = ["cpu"] + (["cuda:0"] if tandem.cuda.is_available() else [])
    return [f"{fn.__name__}[{d}]" for d in devices for fn in module.CHECKS]


def run_reports(script, out):
    run = mpirun(f"{script}.py", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(2)]


def assert_ok(reports, name):
    for rank, report in enumerate(reports):
        assert report.get(name) == "ok", f"rank {rank}:\n{report.get(name)}"


# The mpirun scripts whose checks each report per rank: every collective (collectives.py), the list/object/
# subgroup functions (breadth.py), the differentiable collectives (nn_functional.py), the coalesced and
# gather-into-one-tensor collectives, get_backend_config and DDP comm hooks (names.py).
MPI_CHECK_SCRIPTS = ("collectives", "breadth", "nn_functional", "names")
_reports = {}  # one mpirun per script and test process: its reports, or why it gave none


def reports_of(script, tmp_path_factory):
    if script not in _reports:
        try:
            _reports[script] = run_reports(script, tmp_path_factory.mktemp(f"dist_{script}"))
        except (AssertionError, subprocess.TimeoutExpired) as e:
            _reports[script] = (f"mpirun {script}.py gave no reports: {e}\n{getattr(e, 'stdout', '') or ''}"
                                f"{getattr(e, 'stderr', '') or ''}")
    if isinstance(_reports[script], str):
        pytest.fail(_reports[script])  # each of the script's checks fails with it; none runs mpirun again
    return _reports[script]


@needs_mpi
@pytest.mark.parametrize("script, name", [(s, n) for s in MPI_CHECK_SCRIPTS for n in check_names(s)])
def test_mpi_checks(tmp_path_factory, script, name):
    assert_ok(reports_of(script, tmp_path_factory), name)


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


def test_new_functions_before_init_raise_pytorch_message():
    msg = "Default process group has not been initialized, please make sure to call init_process_group."
    t = tandem.ones(2)
    for fn in (lambda: dist.reduce_scatter(t, [t]), lambda: dist.all_to_all([t], [t]),
               lambda: dist.send_object_list([1], dst=1), lambda: dist.recv_object_list([None], src=1),
               lambda: dist.new_subgroups(1), lambda: dist.new_subgroups_by_enumeration([[0]])):
        with pytest.raises(ValueError) as e:
            fn()
        assert str(e.value).startswith(msg), str(e.value)
    assert dist.get_pg_count() == 0
    # argument types are checked first, as in PyTorch
    with pytest.raises(TypeError, match=r"Expected parameter `input_list` of type List\[torch.Tensor\]"):
        dist.reduce_scatter(t, (t,))


def test_node_local_rank(monkeypatch):
    for name in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(RuntimeError) as e:
        dist.get_node_local_rank()
    assert str(e.value) == ("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                            "`get_node_local_rank` to work, assuming you are not running in a multi-device "
                            "context and want the code to run locally instead.")
    assert dist.get_node_local_rank(fallback_rank=3) == 3
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2")
    assert dist.get_node_local_rank(fallback_rank=3) == 2
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert dist.get_node_local_rank() == 1


def test_backend_queries():
    mpi = dist.is_mpi_available()
    assert dist.is_backend_available("mpi") is mpi and dist.is_backend_available("GLOO") is mpi
    assert dist.is_backend_available("nccl") is dist.is_nccl_available()
    assert dist.is_backend_available("cpu:gloo,cuda:nccl") is (mpi and dist.is_nccl_available())
    assert dist.is_backend_available("ucc") is False and dist.is_backend_available("xyz") is False
    with pytest.raises(AttributeError, match="'int' object has no attribute 'lower'"):
        dist.is_backend_available(3)
    assert dist.get_default_backend_for_device("cpu") == "gloo"
    assert dist.get_default_backend_for_device(tandem.device("cpu")) == "gloo"
    real_gpu = tandem.cuda.is_available() and not tandem.cuda.get_device_properties(0).is_emulated
    cuda = "nccl" if real_gpu and dist.is_nccl_available() else "mpi"  # what init_process_group can run
    assert dist.get_default_backend_for_device("cuda:1") == cuda
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, ipu, .*, "
                                           "privateuseone device type at start of device string: foo"):
        dist.get_default_backend_for_device("foo")


def test_debug_level(monkeypatch):
    assert dist.get_debug_level() == dist.DebugLevel.OFF and repr(dist.DebugLevel.INFO) == "<DebugLevel.INFO: 1>"
    assert str(dist.DebugLevel.DETAIL) == "DebugLevel.DETAIL" and int(dist.DebugLevel.DETAIL) == 2
    assert dist.DebugLevel(1) is dist.DebugLevel.INFO and dist.DebugLevel.OFF != 0
    try:
        dist.set_debug_level(dist.DebugLevel.INFO)
        assert dist.get_debug_level() is dist.DebugLevel.INFO
        monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "detail")
        dist.set_debug_level_from_env()
        assert dist.get_debug_level() is dist.DebugLevel.DETAIL
        monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "bogus")
        with pytest.raises(ValueError) as e:
            dist.set_debug_level_from_env()
        assert str(e.value) == "The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL."
        with pytest.raises(TypeError, match=r"set_debug_level\(\): incompatible function arguments"):
            dist.set_debug_level(1)
        monkeypatch.delenv("TORCH_DISTRIBUTED_DEBUG")
        dist.set_debug_level_from_env()
        assert dist.get_debug_level() is dist.DebugLevel.OFF
    finally:
        dist.set_debug_level(dist.DebugLevel.OFF)
    # as in PyTorch, the level is read at import, so a bad value fails the import itself
    env = dict(os.environ, TORCH_DISTRIBUTED_DEBUG="INFO")
    code = "import tandem.distributed as d; print(d.get_debug_level())"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.stdout.strip() == "DebugLevel.INFO", run.stderr
    env["TORCH_DISTRIBUTED_DEBUG"] = "bogus"
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0 and "must be OFF, INFO, or DETAIL." in run.stderr


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
