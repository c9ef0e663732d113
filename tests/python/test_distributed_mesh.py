"""DeviceMesh, split_group and the other torch.distributed names PyTorch 2.15 has: tests/distributed/mesh.py under
`mpirun -np 8` writes each rank's transcript of tests/distributed/mesh_transcript.py, which must equal PyTorch's
(tests/distributed/mesh_oracle.py: the same script on PyTorch's fake backend, rank by rank), and the results of
collectives over the new groups; in this process, the names, signatures and classes that need no job."""
import inspect
import json
import os
import subprocess
import sys
import threading
import warnings

import pytest
import torch
import torch.distributed as torch_dist

import tandem.distributed as dist
from process_helpers import run_process_tree
from test_distributed import ROOT, mpirun, needs_mpi

sys.path.insert(0, os.path.join(ROOT, "tests", "distributed"))
import mesh  # noqa: E402
from mesh_transcript import WORLD  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if dist.is_available() and __import__("tandem").cuda.is_available() else [])
CHECK_NAMES = [f"{fn.__name__}[{d}]" for d in DEVICES for fn in mesh.CHECKS] + \
    [f"{name}[cuda]" for name in mesh.CUDA_CHECKS if "cuda" in DEVICES]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(tandem's reports per rank, PyTorch's transcripts per rank): the oracle runs while mpirun does."""
    out = tmp_path_factory.mktemp("mesh")
    oracle_file = out / "oracle.json"
    oracle = {}

    def run_oracle():
        oracle["run"] = run_process_tree([sys.executable, os.path.join(ROOT, "tests", "distributed", "mesh_oracle.py"),
                                          str(oracle_file)], env=dict(os.environ), timeout=240)

    thread = threading.Thread(target=run_oracle)
    thread.start()
    run = mpirun("mesh.py", str(out), nprocs=WORLD, timeout=240)
    thread.join()
    assert run.returncode == 0, run.stdout + run.stderr
    assert oracle["run"].returncode == 0, oracle["run"].stdout + oracle["run"].stderr
    ours = [json.loads((out / f"rank{r}.json").read_text()) for r in range(WORLD)]
    return ours, json.loads(oracle_file.read_text())


@needs_mpi
@pytest.mark.parametrize("rank", range(WORLD))
def test_transcript_matches_pytorch(runs, rank):
    ours, theirs = runs[0][rank]["transcript"], runs[1][rank]
    assert [step[0] for step in ours] == [step[0] for step in theirs]
    differences = [(o, t) for o, t in zip(ours, theirs) if o != t]
    assert not differences, "\n".join(f"tandem:  {o}\npytorch: {t}" for o, t in differences)


@needs_mpi
@pytest.mark.parametrize("name", CHECK_NAMES)
def test_mesh_collectives(runs, name):
    for rank, report in enumerate(runs[0]):
        assert report["checks"].get(name) == "ok", f"rank {rank}:\n{report['checks'].get(name)}"


def test_names_are_where_pytorch_has_them():
    import tandem.distributed.device_mesh as ours_module
    from torch.distributed import device_mesh as theirs_module
    assert sorted(ours_module.__all__) == sorted(theirs_module.__all__)
    assert dist.DeviceMesh is ours_module.DeviceMesh and dist.init_device_mesh is ours_module.init_device_mesh
    for name in ("DeviceMesh", "init_device_mesh", "split_group", "shrink_group", "set_timeout", "supports_complex",
                 "all_gather_single", "reduce_scatter_single", "BackendConfig", "GroupName", "RankType"):
        assert hasattr(dist, name) and hasattr(torch_dist, name), name


# The torch.distributed names tandem leaves out, and why (docs/distributed.md says the same).
LEFT_OUT = {
    # option structs and classes of PyTorch's C++ process-group backends and DDP internals
    "AllToAllOptions", "AllreduceCoalescedOptions", "AllreduceOptions", "BarrierOptions", "BroadcastOptions",
    "GatherOptions", "ReduceOptions", "ReduceScatterOptions", "ScatterOptions", "ProcessGroupGloo",
    "ProcessGroupNCCL", "ProcessGroupNCCL2", "ProcessGroupNCCLLazy", "Logger", "Reducer", "BuiltinCommHookType",
    "get_backend_impl",
    # whole subpackages tandem does not have (RPC, distributed autograd, remote devices) or logging internals
    "autograd", "rpc", "remote_device", "c10d_logger", "logging_handlers", "log", "config", "constants", "utils",
    # a profiler title for collectives: tandem's collectives do not appear in its profiler
    "record_comm",
    # modules distributed_c10d imports, visible as attributes in PyTorch
    "contextlib", "logging", "sys", "timedelta", "torch", "traceback", "typing",
}


def test_every_other_public_name_exists():
    # PyTorch's names as a fresh `import torch.distributed` has them: in this process other tests may have
    # imported more of its subpackages (torch.distributed.tensor), which then show up as attributes too.
    listing = subprocess.run([sys.executable, "-c", "import torch.distributed as d; print(' '.join(dir(d)))"],
                             capture_output=True, text=True, check=True, timeout=120).stdout
    theirs = {n for n in listing.split() if not n.startswith("_")}
    ours = {n for n in dir(dist) if not n.startswith("_")}
    assert theirs - ours == LEFT_OUT


@pytest.mark.parametrize("name", ["init_device_mesh", "split_group", "shrink_group", "set_timeout", "new_group",
                                  "all_gather_single", "reduce_scatter_single", "supports_complex"])
def test_signatures_match_pytorch(name):
    def shape(fn):
        return [(p.name, p.kind, p.default if type(p.default) in (type(None), bool, int, str) else "?")
                for p in inspect.signature(fn).parameters.values()]
    assert shape(getattr(dist, name)) == shape(getattr(torch_dist, name))


def test_device_mesh_signature_matches_pytorch():
    ours = inspect.signature(dist.DeviceMesh.__init__).parameters
    theirs = inspect.signature(torch_dist.DeviceMesh.__init__).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()]
    assert [m for m in dir(torch_dist.DeviceMesh) if not m.startswith("_") and not hasattr(dist.DeviceMesh, m)] \
        == ["abort"]  # MPI cannot abort one communicator without ending the job


def outcome(fn):
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn()
        return ("ok", repr(result), [str(w.message) for w in caught])
    except Exception as e:  # noqa: BLE001 - the transcript records which error
        return (type(e).__name__, " ".join(str(e).split()))


@pytest.mark.parametrize("backend", ["gloo", "GLOO", "nccl", "mpi", "ucc", "cpu:gloo", "CPU:GLOO,cuda:nccl",
                                     "cpu:foo", "cpu:gloo,cpu:mpi", "cpu-gloo:x:y", "foo"])
def test_backend_config_matches_pytorch(backend):
    ours = outcome(lambda: dist.BackendConfig(backend).get_device_backend_map())
    theirs = outcome(lambda: torch_dist.BackendConfig(backend).get_device_backend_map())
    if backend == "foo":  # the accelerator the guess names: PyTorch's build has CUDA even without a GPU
        assert ours[2] == theirs[2]
        return
    assert ours == theirs
    if ours[0] == "ok":
        assert repr(dist.BackendConfig(backend)) == repr(torch_dist.BackendConfig(backend))


def test_backend_config_undefined_names_this_machine():
    config = dist.BackendConfig("undefined")
    device = "cuda" if DEVICES[-1] == "cuda" else "cpu"
    assert list(config.get_device_backend_map()) == [device]
    assert str(config) == f"{device}:{dist.get_default_backend_for_device(device)}"


def test_small_names_match_pytorch():
    for op in dist.ReduceOp.RedOpType:
        assert dist.supports_complex(op) == torch_dist.supports_complex(getattr(torch_dist.ReduceOp, op.name))
        assert dist.supports_complex(dist.ReduceOp(op)) == dist.supports_complex(op)
    assert dist.GroupName("tp") == torch_dist.GroupName("tp") == "tp"
    assert dist.GroupName.__supertype__ is str and dist.RankType is int


def test_group_functions_before_init_raise_pytorch_message():
    msg = "Default process group has not been initialized, please make sure to call init_process_group."
    for call in (lambda d: d.split_group(split_ranks=[[0]]), lambda d: d.shrink_group([1]),
                 lambda d: d.set_timeout(__import__("datetime").timedelta(seconds=1))):
        ours, theirs = outcome(lambda: call(dist)), outcome(lambda: call(torch_dist))
        assert ours[0] == theirs[0] == "ValueError" and ours[1].startswith(msg) and theirs[1].startswith(msg)
    assert outcome(lambda: dist.split_group()) == outcome(lambda: torch_dist.split_group())
    assert outcome(lambda: dist.shrink_group((1,))) == outcome(lambda: torch_dist.shrink_group((1,)))
    assert outcome(lambda: dist.device_mesh._mesh_resources.get_current_mesh()) == \
        outcome(lambda: torch_dist.device_mesh._mesh_resources.get_current_mesh())
    assert torch.__version__.startswith("2.15")
