"""The smaller torch.distributed names, in this process, against PyTorch where it can run them: reduce_op,
default_pg_timeout, is_ucc/xccl_available, the exception classes, rendezvous and its handlers, breakpoint (in a
job of one started as a plain subprocess)."""
import datetime
import os
import subprocess
import sys
import warnings

import pytest
import torch.distributed as torch_dist

import tandem
import tandem.distributed as dist


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the transcript records which error
        return (type(e).__name__, str(e).split("\n")[0])


def test_reduce_op_is_a_deprecated_alias():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.reduce_op.SUM is dist.ReduceOp.SUM and dist.reduce_op.BXOR is dist.ReduceOp.BXOR
        with pytest.raises(AttributeError):
            dist.reduce_op.NOPE  # noqa: B018
    assert caught and all(w.category is FutureWarning for w in caught)
    assert str(caught[0].message) == ("`torch.distributed.reduce_op` is deprecated, please use "
                                      "`torch.distributed.ReduceOp` instead")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ours = {k for k in dir(dist.reduce_op) if k.isupper()}
        theirs = {k for k in dir(torch_dist.reduce_op) if k.isupper()}
    assert ours == theirs - {"PREMUL_SUM"}  # tandem's ReduceOp has no PREMUL_SUM


def test_constants_and_availability_match_pytorch():
    assert dist.default_pg_timeout == torch_dist.default_pg_timeout == datetime.timedelta(minutes=30)
    assert dist.is_ucc_available() is torch_dist.is_ucc_available() is False
    assert dist.is_xccl_available() is False


@pytest.mark.parametrize("name", ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
                                  "QueueEmptyError"])
def test_exception_classes_match_pytorch(name):
    ours = [c.__name__ for c in getattr(dist, name).__mro__]
    theirs = [c.__name__ for c in getattr(torch_dist, name).__mro__]
    assert ours == theirs


def rendezvous_script(d, tmp):
    path = os.path.join(tmp, f"rdzv-{d.__name__}")
    steps = [outcome(lambda: d.rendezvous(5)), outcome(lambda: d.rendezvous("tcp://h:1", rank="0")),
             outcome(lambda: d.rendezvous("tcp://h:1", world_size=1.5)),
             outcome(lambda: next(d.rendezvous("nope://h:1", 0, 1))),
             outcome(lambda: next(d.rendezvous("tcp://h:1?rank=0", 0, 1))),
             outcome(lambda: next(d.rendezvous("tcp://127.0.0.1", 0, 1))),
             outcome(lambda: next(d.rendezvous("tcp://127.0.0.1:1", world_size=1))),
             outcome(lambda: next(d.rendezvous("tcp://127.0.0.1:1", rank=0))),
             outcome(lambda: next(d.rendezvous("tcp://127.0.0.1:70000", 0, 1))),
             outcome(lambda: next(d.rendezvous("file://", 0, 1))),
             outcome(lambda: d.register_rendezvous_handler("tcp", None))]
    store, rank, world = next(d.rendezvous(f"file://{path}", 0, 1))
    steps.append(outcome(lambda: (type(store).__name__, rank, world)))
    store.set("k", "v")
    steps.append(outcome(lambda: store.get("k")))
    gen = d.rendezvous("tcp://127.0.0.1:0", 0, 1, timeout=datetime.timedelta(seconds=5))
    tcp, rank, world = next(gen)
    steps += [outcome(lambda: (type(tcp).__name__, rank, world, tcp.port > 0)), outcome(lambda: next(gen))]
    return steps


def test_rendezvous_matches_pytorch(tmp_path, monkeypatch):
    monkeypatch.delenv("TORCHELASTIC_USE_AGENT_STORE", raising=False)
    ours, theirs = rendezvous_script(dist, str(tmp_path)), rendezvous_script(torch_dist, str(tmp_path))
    assert ours == theirs
    assert ours[-4] == ("ok", ("FileStore", 0, 1)) and ours[-1][0] == "RuntimeError"


def test_env_rendezvous_and_custom_handler(monkeypatch):
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="^Error initializing torch.distributed using env:// rendezvous: "
                                         "environment variable RANK expected, but not set$"):
        next(dist.rendezvous("env://"))
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "0")
    store, rank, world = next(dist.rendezvous("env://", timeout=datetime.timedelta(seconds=5)))
    assert isinstance(store, dist.TCPStore) and (rank, world) == (0, 1)

    def handler(url, **kwargs):
        yield dist.HashStore(), 3, 4

    scheme = "tandem-test-rdzv"
    dist.register_rendezvous_handler(scheme, handler)
    store, rank, world = next(dist.rendezvous(f"{scheme}://anything"))
    assert isinstance(store, dist.HashStore) and (rank, world) == (3, 4)


_BREAKPOINT_JOB = r"""
import tandem.distributed as dist
dist.init_process_group()
for i in range(3):
    dist.breakpoint(skip=2)  # the third call stops
print("after the breakpoints", dist.distributed_c10d._State.timeout)
"""


def test_breakpoint_stops_in_pdb_on_its_rank():
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))
    env = dict(os.environ, PYTHONPATH=package_root)
    run = subprocess.run([sys.executable, "-c", _BREAKPOINT_JOB], input="up\np i\nc\n", capture_output=True, text=True,
                         env=env, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("!!! ATTENTION !!!") == 1
    assert "Type 'up' to get to the frame that called dist.breakpoint(rank=0)" in run.stdout
    assert "(Pdb) 2\n" in run.stdout  # `up`, `p i`: the caller's loop, third pass
    assert "after the breakpoints 1:00:00" in run.stdout  # timeout_s=3600 became the groups' timeout


def test_rpc_module_imports_and_says_unavailable():
    # As a PyTorch built without RPC: the module imports (PyTorch Geometric imports it at start-up) and only
    # is_available() is there, so code that checks before using RPC takes its other path.
    from tandem.distributed import rpc
    assert rpc.is_available() is False
    assert not hasattr(rpc, "init_rpc") and not hasattr(rpc, "api")
