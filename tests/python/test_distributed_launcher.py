"""The torchrun-like launcher, ``python -m tandem.distributed.run`` (and the deprecated ``.launch``): a 2-process
all_reduce and DDP step on cpu and cuda against a one-process reference, the environment each rank sees, argument
pass-through, -m / --run-path / --no-python, a failing rank (exit code, torchrun's report, no orphans, bounded
time), --max-restarts, --log-dir files, the launcher stopped by a signal, and the argument errors against
PyTorch 2.15's own parser and checks. Each launch runs in its own process tree with a hard time bound."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tandem
from process_helpers import run_process_tree
from tandem.distributed import run as launcher
from tandem.distributed.elastic.multiprocessing import errors

pytestmark = pytest.mark.skipif(not tandem.distributed.is_available() or shutil.which("ompi-server") is None,
                                reason="needs tandem built with MPI and Open MPI's ompi-server")

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(tandem.__file__)))
# What torchrun sets in every worker (the launcher's own variables; the rest is the inherited environment).
LAUNCHER_VARS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
                 "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR", "MASTER_PORT",
                 "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
                 "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE", "OMP_NUM_THREADS")


def launch(tmp_path, *args, module="tandem.distributed.run", env=None, timeout=90):
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGE_ROOT, str(tmp_path)]), TMPDIR=str(tmp_path))
    for name in (*LAUNCHER_VARS, "PET_NPROC_PER_NODE", "PET_MAX_RESTARTS"):
        full_env.pop(name, None)
    full_env.update(env or {})
    return run_process_tree([sys.executable, "-m", module, *map(str, args)], env=full_env, timeout=timeout)


def script(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def assert_gone(pids, within=10.0):
    deadline = time.monotonic() + within
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if alive(p)], "worker processes outlived the launcher"


# -- a training step, the environment and the arguments ------------------------------------------------------

DDP_STEP = """
import json, os, sys
import tandem as torch
import tandem.distributed as dist
from tandem.nn.parallel import DistributedDataParallel as DDP

device, out = sys.argv[1], sys.argv[2]
seen = {"env": {k: os.environ.get(k) for k in %r}, "argv": sys.argv}
dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
dev = torch.device(device, int(os.environ["LOCAL_RANK"])) if device == "cuda" else torch.device("cpu")
t = torch.arange(4., device=dev) * (r + 1)
dist.all_reduce(t)
torch.manual_seed(0)
model = torch.nn.Linear(3, 2, dtype=torch.float64).to(dev)
ddp = DDP(model, device_ids=[dev.index] if device == "cuda" else None)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
for _ in range(2):
    opt.zero_grad()
    ddp(torch.arange(12., dtype=torch.float64).reshape(4, 3).add(r).sin().to(dev)).pow(2).mean().backward()
    opt.step()
w = torch.cat([p.detach().flatten() for p in model.parameters()]).cpu()
torch.save({"rank": r, "size": n, "sum": t.cpu(), "w": w, "device": str(t.device)}, f"{out}/{r}.pt")
with open(f"{out}/seen.{r}.json", "w") as f:
    json.dump(seen, f)
dist.destroy_process_group()
""" % (LAUNCHER_VARS,)

PASSED_THROUGH = ["--nproc-per-node=5", "-m", "--", "two words", "", "--max-restarts", "x=1"]


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module", params=["cpu", "cuda"])
def ddp_job(request, tmp_path_factory):
    """One 2-process DDP job per device: on cpu with torchrun's defaults, on cuda (one worker per device) with a
    static --master-port, --role, --rdzv-id, OMP_NUM_THREADS set and PET_MAX_RESTARTS (an option's env form)."""
    device = request.param
    if device == "cuda" and (not tandem.cuda.is_available() or tandem.cuda.device_count() < 2):
        pytest.skip("needs 2 CUDA devices (real or TANDEM_EMULATE_CUDA=2)")
    tmp_path = tmp_path_factory.mktemp(f"ddp_{device}")
    step = script(tmp_path, "step.py", DDP_STEP)
    if device == "cpu":
        run = launch(tmp_path, "--nproc-per-node=2", step, device, tmp_path, *PASSED_THROUGH)
    else:
        port = free_port()
        run = launch(tmp_path, "--nproc_per_node", "gpu", "--master-port", port, "--role", "trainer", "--rdzv-id",
                     "job7", step, device, tmp_path, *PASSED_THROUGH,
                     env={"OMP_NUM_THREADS": "3", "PET_MAX_RESTARTS": "2"})
    assert run.returncode == 0, run.stdout + run.stderr
    seen = [json.loads((tmp_path / f"seen.{r}.json").read_text()) for r in range(2)]
    return device, run, [tandem.load(tmp_path / f"{r}.pt") for r in range(2)], seen


def test_two_process_all_reduce_and_ddp_step_match_one_process_training(ddp_job):
    device, _, got, _ = ddp_job
    assert [(g["rank"], g["size"], g["device"]) for g in got] == [
        (r, 2, "cpu" if device == "cpu" else f"cuda:{r}") for r in range(2)]
    for g in got:
        np.testing.assert_array_equal(g["sum"].numpy(), np.arange(4.0) * 1 + np.arange(4.0) * 2)
    assert tandem.equal(got[0]["w"], got[1]["w"])  # DDP keeps the replicas bit-identical
    # ... equal to one process training on both ranks' batches (DDP averages the gradients).
    tandem.manual_seed(0)
    model = tandem.nn.Linear(3, 2, dtype=tandem.float64)
    opt = tandem.optim.SGD(model.parameters(), lr=0.1)
    data = [tandem.arange(12., dtype=tandem.float64).reshape(4, 3).add(r).sin() for r in range(2)]
    for _ in range(2):
        opt.zero_grad()
        (sum(model(x).pow(2).mean() for x in data) / 2).backward()
        opt.step()
    want = tandem.cat([p.detach().flatten() for p in model.parameters()])
    np.testing.assert_allclose(got[0]["w"].numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_each_rank_gets_torchruns_environment_and_the_arguments_untouched(ddp_job):
    device, run, _, seen = ddp_job
    run_id, port = seen[0]["env"]["TORCHELASTIC_RUN_ID"], seen[0]["env"]["MASTER_PORT"]
    assert 0 < int(port) < 65536
    if device == "cpu":  # torchrun's one-node default: a fresh uuid, a free port on localhost
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", run_id)
        role, addr, omp, max_restarts = "default", "localhost", "1", "0"
        # torchrun's warning when it sets OMP_NUM_THREADS for more than one worker
        assert "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default" in run.stderr
    else:  # static rendezvous: the given port and id on --master-addr's default; a set OMP_NUM_THREADS stays
        assert run_id == "job7"
        role, addr, omp, max_restarts = "trainer", "127.0.0.1", "3", "2"
        assert "OMP_NUM_THREADS" not in run.stderr
    for rank, report in enumerate(seen):
        env = report["env"]
        assert env.pop("TORCHELASTIC_ERROR_FILE").endswith(f"/attempt_0/{rank}/error.json")
        assert env == {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": "2", "LOCAL_WORLD_SIZE": "2",
                       "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1", "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": "2",
                       "ROLE_NAME": role, "MASTER_ADDR": addr, "MASTER_PORT": port,
                       "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": max_restarts,
                       "TORCHELASTIC_RUN_ID": run_id, "TORCHELASTIC_USE_AGENT_STORE": "True",
                       "OMP_NUM_THREADS": omp}
        assert report["argv"][3:] == PASSED_THROUGH


MODULE_MAIN = """
import datetime, os, sys
from tandem.distributed import TCPStore

# PyTorch's pattern for a store of one's own: rank 0 "serves" MASTER_PORT. The launcher serves that port already,
# so rank 0's store becomes a client of it (PyTorch's rule under TORCHELASTIC_USE_AGENT_STORE) instead of failing.
rank = int(os.environ["RANK"])
store = TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), 2, rank == 0,
                 datetime.timedelta(seconds=60))
store.set(f"from{rank}", str(rank))
other = store.get(f"from{1 - rank}").decode()
print("module", __name__, rank, sys.argv[1:], "other", other, flush=True)
"""


def test_module_mode_with_tee_to_log_files_and_a_local_ranks_filter(tmp_path):
    (tmp_path / "launched_pkg").mkdir()
    (tmp_path / "launched_pkg" / "__init__.py").write_text("")
    (tmp_path / "launched_pkg" / "__main__.py").write_text(MODULE_MAIN)
    logs = tmp_path / "logs"
    run = launch(tmp_path, "--nproc-per-node=2", "--log-dir", logs, "--tee=1", "--local-ranks-filter=0", "-m",
                 "launched_pkg", "--lr", "0.1")
    assert run.returncode == 0, run.stderr
    # tee: the console line gets torchrun's prefix; rank 1 is filtered off the console, not out of its file
    assert run.stdout.splitlines() == ["[default0]:module __main__ 0 ['--lr', '0.1'] other 1"]
    [job] = logs.iterdir()  # <run id>_<random>, torchrun's layout
    assert [(job / "attempt_0" / r / "stdout.log").read_text() for r in "01"] == [
        f"module __main__ {r} ['--lr', '0.1'] other {1 - int(r)}\n" for r in "01"]


def test_run_path_and_no_python_commands(tmp_path, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    plan = launcher.config_from_args(launcher.parse_args(["--run-path", "/abs/train.py", "--a"]))
    assert plan.command[:2] == [sys.executable, "-u"] and plan.command[-1] == "/abs/train.py"
    assert plan.script_args == ["--a"] and plan.name == "run_script_path"
    plan = launcher.config_from_args(launcher.parse_args(["--no-python", "/bin/echo", "x"]))
    assert (plan.command, plan.script_args, plan.name) == (["/bin/echo"], ["x"], "/bin/echo")
    # the run-path runner itself: runpy.run_path with the script's argv, in a fresh interpreter
    show = script(tmp_path, "show.py", "import sys; print(__name__, sys.argv)")
    out = subprocess.run([*launcher.config_from_args(launcher.parse_args(["--run-path", str(show), "-q"])).command,
                          "-q"], capture_output=True, text=True, timeout=60)
    assert out.stdout == f"__main__ [{str(show)!r}, '-q']\n", out.stderr


def test_deprecated_launch_passes_local_rank_unless_use_env(tmp_path, monkeypatch):
    # Each worker writes its own file: the check does not depend on how two processes' writes to the launcher's
    # shared stdout interleave (CI once lost one of the two lines there).
    show = script(tmp_path, "show.py", "import os, pathlib, sys\n"
                  "pathlib.Path(os.environ['TMPDIR'], 'seen' + os.environ['LOCAL_RANK']).write_text(repr(sys.argv[1:]))")
    run = launch(tmp_path, "--nproc-per-node=2", show, "--x", module="tandem.distributed.launch")
    assert run.returncode == 0, (run.stdout, run.stderr)
    assert [(tmp_path / f"seen{r}").read_text() for r in "01"] == ["['--local-rank=0', '--x']",
                                                                   "['--local-rank=1', '--x']"]
    assert "FutureWarning: The module torch.distributed.launch is deprecated" in run.stderr
    from tandem.distributed import launch as old_launcher

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert not launcher.config_from_args(old_launcher.parse_args(["--use-env", "t.py"])).pass_local_rank_arg
    with pytest.raises(ValueError, match="^When using the '--no-python' flag, you must also set the '--use-env' "
                                         "flag.$"):
        old_launcher.launch(old_launcher.parse_args(["--no-python", "t.py"]))


# -- failures ------------------------------------------------------------------------------------------------

FAILING = """
import os, subprocess, sys, time

rank, out = int(os.environ["RANK"]), sys.argv[1]
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])  # must not outlive the job
with open(f"{out}/pids.{rank}.{os.environ['TORCHELASTIC_RESTART_COUNT']}", "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
print(f"rank {rank} attempt {os.environ['TORCHELASTIC_RESTART_COUNT']}", flush=True)
print(f"stderr of rank {rank}", file=sys.stderr, flush=True)
if rank == 1:
    time.sleep(0.5)
    sys.exit(3)
time.sleep(300)
"""


def worker_pids(folder):
    return [int(p) for f in folder.glob("pids.*") for p in f.read_text().split()]


def test_a_failing_rank_stops_the_others_restarts_and_the_launcher_reports_it(tmp_path):
    logs = tmp_path / "logs"
    start = time.monotonic()
    run = launch(tmp_path, "--nproc-per-node=2", "--max-restarts=1", "--log-dir", logs, "-r", "3",
                 "--shutdown-timeout=5", script(tmp_path, "fail.py", FAILING), tmp_path)
    assert time.monotonic() - start < 80  # rank 0 would sleep 300 s: it was stopped, twice
    assert run.returncode == 1, run.stderr
    assert len(worker_pids(tmp_path)) == 8  # two attempts of two workers with a child each
    assert_gone(worker_pids(tmp_path))
    assert "[default] Worker group FAILED. 1/1 attempts left; will restart worker group" in run.stderr
    # -r 3: the workers' output went to the log files only, one folder per attempt and local rank
    assert "rank 0 attempt" not in run.stdout and "stderr of rank" not in run.stderr.split("ChildFailedError")[0]
    [job] = logs.iterdir()
    for attempt in (0, 1):
        for rank in (0, 1):
            folder = job / f"attempt_{attempt}" / str(rank)
            assert (folder / "stdout.log").read_text() == f"rank {rank} attempt {attempt}\n"
            assert (folder / "stderr.log").read_text().startswith(f"stderr of rank {rank}\n")
    # torchrun's report of the last attempt, as the launcher's ChildFailedError
    report = run.stderr[run.stderr.index("ChildFailedError: \n"):]
    assert f"{tmp_path / 'fail.py'} FAILED" in report
    root = report[report.index("Root Cause (first observed failure):"):]
    assert "rank      : 1 (local_rank: 1)" in root
    assert re.search(r"exitcode  : 3 \(pid: \d+\) \n", root)
    assert "error_file: <N/A>" in root
    assert "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" in root
    assert "stderr    : (last lines)\n    stderr of rank 1" in root  # tandem's addition
    others = report[report.index("Failures:"):report.index("Root Cause")]  # rank 0, stopped by the launcher
    assert "rank      : 0 (local_rank: 0)" in others and re.search(r"exitcode  : -15 \(pid: \d+\)  \(SIGTERM\)",
                                                                    others)
    assert "Signal 15 (SIGTERM) received by PID" in others


RESTARTED = """
import os, sys
import tandem as torch
import tandem.distributed as dist

dist.init_process_group()
r, attempt = dist.get_rank(), int(os.environ["TORCHELASTIC_RESTART_COUNT"])
t = torch.tensor([float(r + 1)])
dist.all_reduce(t)
with open(os.path.join(os.environ["TMPDIR"], f"attempt{attempt}.rank{r}"), "w") as f:
    f.write(f"sum {t.item()}")
if r == 1 and attempt == 0:
    sys.exit(5)  # after the group was joined: the restarted group must join afresh
dist.barrier()
dist.destroy_process_group()
"""


def test_max_restarts_restarts_the_group_until_it_succeeds(tmp_path):
    run = launch(tmp_path, "--nproc-per-node=2", "--max-restarts=2", "--monitor-interval=0.05",
                 script(tmp_path, "restart.py", RESTARTED))
    assert run.returncode == 0, run.stdout + run.stderr
    # (one file per worker and attempt, not lines on the launcher's shared stdout: see the test above)
    assert {f.name: f.read_text() for f in tmp_path.glob("attempt*")} == {
        f"attempt{a}.rank{r}": "sum 3.0" for a in "01" for r in "01"}
    assert "[default] Worker group FAILED. 2/2 attempts left; will restart worker group" in run.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])  # SIGINT: Ctrl-C
def test_a_signal_to_the_launcher_stops_every_worker(tmp_path, sig):
    stubborn = script(tmp_path, "stubborn.py", """
import os, signal, subprocess, sys, time
if os.environ["RANK"] == "1":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only SIGKILL ends this one
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
with open(f"{sys.argv[1]}/pids.{os.environ['RANK']}", "w") as f:
    f.write(f"{os.getpid()} {child.pid}")
time.sleep(300)
""")
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, TMPDIR=str(tmp_path))
    with open(tmp_path / "out", "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "tandem.distributed.run", "--nproc-per-node=2",
                                 "--shutdown-timeout=2", str(stubborn), str(tmp_path)], env=env,
                                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while len(list(tmp_path.glob("pids.*"))) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            proc.send_signal(sig)
            assert proc.wait(timeout=30) == 1
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    pids = [int(p) for r in "01" for p in (tmp_path / f"pids.{r}").read_text().split()]  # rank 0, its child, ...
    assert_gone(pids)
    text = (tmp_path / "out").read_text()
    assert f"SignalException: Process {proc.pid} got signal: {int(sig)}" in text
    assert f"Sending process {pids[0]} closing signal {sig.name}" in text  # the workers get the same signal
    if sig == signal.SIGTERM:
        assert f"Unable to shutdown process {pids[2]} via SIGTERM, forcefully exiting via SIGKILL" in text


# -- the arguments, against PyTorch's own parser and checks --------------------------------------------------

def parse_both(args, capsys):
    """(exit code, stderr) of tandem's and PyTorch's parsers for ``args``."""
    torch_run = pytest.importorskip("torch.distributed.run")
    results = []
    for parse in (launcher.parse_args, torch_run.parse_args):
        with pytest.raises(SystemExit) as e:
            parse(args)
        results.append((e.value.code, capsys.readouterr().err))
    return results


@pytest.mark.parametrize("args", [[], ["--max-restarts=x", "s.py"], ["--start-method=thread", "s.py"],
                                  ["--monitor-interval", "soon", "s.py"], ["--node-rank"],
                                  ["--numa-binding=all", "s.py"], ["--print-completion=fish"]])
def test_bad_arguments_are_pytorchs_argparse_errors(args, capsys):
    ours, theirs = parse_both(args, capsys)
    assert ours == theirs
    assert ours[0] == 2


def test_usage_and_defaults_are_pytorchs(capsys):
    torch_run = pytest.importorskip("torch.distributed.run")
    ours, theirs = launcher.get_args_parser(), torch_run.get_args_parser()
    assert ours.format_usage() == theirs.format_usage()
    args = ["--nproc-per-node=2", "train.py", "--lr", "1"]
    assert vars(ours.parse_args(args)) == vars(theirs.parse_args(args))
    args = ["--nproc_per_node", "4", "--standalone", "--max_restarts", "3", "-m", "pkg.train", "-m", "x"]
    assert vars(ours.parse_args(args)) == vars(theirs.parse_args(args))


@pytest.mark.parametrize("args", [["--nproc-per-node=cuda"], ["--nproc-per-node=xyz"], ["--nproc-per-node=xpu"],
                                  ["--nnodes=1:2:3"], ["--nnodes=2:1"], ["--nnodes=x"], ["--max-restarts=-1"],
                                  ["-m", "--no-python"], ["--rdzv-conf", "=3"], ["--rdzv-conf", "timeout"]])
def test_bad_values_raise_pytorchs_exceptions(args, monkeypatch, tmp_path):
    import tempfile

    torch_run = pytest.importorskip("torch.distributed.run")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # PyTorch's checks make a log folder on the way
    errors_seen = []
    for module in (launcher, torch_run):
        with pytest.raises(Exception) as e:
            module.config_from_args(module.parse_args([*args, "train.py"]))
        errors_seen.append((type(e.value), str(e.value)))
    assert errors_seen[0] == errors_seen[1]


@pytest.mark.parametrize("args, message", [
    (["--nnodes=2"], "tandem.distributed.run starts the workers of one machine, not --nnodes=2"),
    (["--nnodes=1:4"], "starts the workers of one machine, not --nnodes=1:4"),
    (["--node-rank=1"], "--node-rank=1 needs another node"),
    (["--rdzv-backend=etcd"], "--rdzv-backend=etcd is not supported"),
    (["--nproc-per-node=0"], "nproc_per_node must be > 0, got 0"),
    (["--duplicate-stdout-filters=a"], "--duplicate-stdout-filters"),
])
def test_what_one_node_cannot_do_is_a_clear_error(args, message, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with pytest.raises((ValueError, AssertionError, NotImplementedError), match=re.escape(message)):
        launcher.main([*args, "train.py"])


def test_a_busy_master_port_is_pytorchs_network_error(tmp_path, monkeypatch):
    import socket
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the launcher's run folder goes
    with socket.socket() as busy:
        busy.bind(("", 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(tandem.distributed.DistNetworkError,
                           match=f"^The server socket has failed to listen on any local network address. port: "
                                 f"{port}, useIpv6: false, code: -98, name: EADDRINUSE"):
            launcher.main(["--master-port", str(port), "--nproc-per-node=1", "train.py"])
    assert not list(tmp_path.iterdir())  # no worker ran: no folder is left behind


def test_virtual_local_rank_gives_each_worker_its_own_device_as_device_0(monkeypatch):
    from tandem.distributed.elastic.local_agent import LocalAgent

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    agent = LocalAgent(launcher.config_from_args(launcher.parse_args(["--nproc-per-node=3", "--virtual-local-rank",
                                                                       "t.py"])))
    env = agent._worker_env(0, 2, 1234, "e.json")
    assert (env["RANK"], env["LOCAL_RANK"], env["CUDA_VISIBLE_DEVICES"]) == ("2", "0", "2")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "4, 6")  # as PyTorch: the worker's entry of the parent's list
    assert agent._worker_env(0, 1, 1234, "e.json")["CUDA_VISIBLE_DEVICES"] == "6"
    with pytest.raises(ValueError, match=r"^local_rank 2 exceeds available GPUs in CUDA_VISIBLE_DEVICES=4, 6$"):
        agent._worker_env(0, 2, 1234, "e.json")


def test_nproc_per_node_device_words():
    cpus = len(os.sched_getaffinity(0))
    assert launcher.determine_local_world_size("cpu") == cpus
    assert launcher.determine_local_world_size("7") == 7
    if tandem.cuda.is_available():
        assert launcher.determine_local_world_size("gpu") == tandem.cuda.device_count()
        assert launcher.determine_local_world_size("auto") == tandem.cuda.device_count()
    else:
        with pytest.raises(ValueError, match="^Cuda is not available.$"):
            launcher.determine_local_world_size("gpu")
        assert launcher.determine_local_world_size("auto") == cpus


# -- record and the report, against PyTorch's ----------------------------------------------------------------

def test_record_writes_pytorchs_error_file(tmp_path, monkeypatch):
    torch_errors = pytest.importorskip("torch.distributed.elastic.multiprocessing.errors")
    written = []
    for module, name in ((errors, "ours.json"), (torch_errors, "theirs.json")):
        monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(tmp_path / name))

        @module.record
        def main():
            raise KeyError("missing")

        with pytest.raises(KeyError):
            main()
        written.append(json.loads((tmp_path / name).read_text()))
        assert module.record(lambda: sys.exit(0))() is None  # SystemExit(0) returns
        with pytest.raises(SystemExit):
            module.record(lambda: sys.exit(2))()
    ours, theirs = written
    assert ours["message"]["message"] == theirs["message"]["message"] == "KeyError: 'missing'"
    assert set(ours["message"]["extraInfo"]) == set(theirs["message"]["extraInfo"]) == {"py_callstack",
                                                                                          "timestamp"}
    assert ours["message"]["extraInfo"]["py_callstack"].endswith("KeyError: 'missing'\n")


def test_child_failed_error_report_is_pytorchs(tmp_path):
    torch_errors = pytest.importorskip("torch.distributed.elastic.multiprocessing.errors")
    reports_seen = []
    for module in (errors, torch_errors):
        failures = {1: module.ProcessFailure(local_rank=1, pid=11, exitcode=3, error_file="<N/A>"),
                    0: module.ProcessFailure(local_rank=0, pid=10, exitcode=-15, error_file="<N/A>")}
        failures[1].timestamp, failures[0].timestamp = 1_700_000_000, 1_700_000_001
        error = module.ChildFailedError("train.py", failures)
        assert error.get_first_failure()[0] == 1
        reports_seen.append(str(error))
    assert reports_seen[0] == reports_seen[1]


def test_a_recorded_traceback_reaches_the_report_as_in_pytorch(tmp_path, monkeypatch):
    torch_errors = pytest.importorskip("torch.distributed.elastic.multiprocessing.errors")
    error_file = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(error_file))

    @errors.record
    def main():
        raise RuntimeError("rank 1 cannot go on")

    with pytest.raises(RuntimeError):
        main()
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE")
    reports_seen = []
    for module in (errors, torch_errors):
        failure = module.ProcessFailure(local_rank=1, pid=11, exitcode=1, error_file=str(error_file))
        assert failure.message["message"] == "RuntimeError: rank 1 cannot go on"
        reports_seen.append((failure.message, failure.timestamp, str(module.ChildFailedError("t.py", {1: failure}))))
    assert reports_seen[0] == reports_seen[1]


def test_tandemrun_console_script_is_the_launchers_main(tmp_path):
    # pip install puts a `tandemrun` command (pyproject's [project.scripts]) that calls main() with sys.argv.
    import importlib
    import tomllib
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        entry = tomllib.load(f)["project"]["scripts"]["tandemrun"]
    module, _, attr = entry.partition(":")
    assert getattr(importlib.import_module(module), attr) is launcher.main
    show = script(tmp_path, "show.py", "import os, sys; print(os.environ['RANK'], os.environ['WORLD_SIZE'], sys.argv[1:])")
    # what the generated console script does: sys.argv[0] is the command, main() reads the rest
    runner = f"import sys; from {module} import {attr}; sys.argv = ['tandemrun', '--nproc-per-node=1', {str(show)!r}, '--x']; sys.exit({attr}())"
    out = subprocess.run([sys.executable, "-c", runner], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "0 1 ['--x']"
