"""The launcher's agent: starts one process per local rank with torchrun's environment, watches them, and on a
failure stops the rest (SIGTERM, then SIGKILL after ``shutdown_timeout``) and restarts the whole group up to
``max_restarts`` times before raising ``ChildFailedError``. Single node: the agent also serves the job's TCPStore
on MASTER_PORT (``TORCHELASTIC_USE_AGENT_STORE``), one fresh store per attempt, so no key of a failed attempt
reaches the next one."""
import logging
import os
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

from tandem.distributed import tcp_store_server
from tandem.distributed.distributed_c10d import DistNetworkError
from tandem.distributed.elastic.multiprocessing.errors import _NOT_AVAILABLE, ChildFailedError, ProcessFailure
from tandem.distributed.elastic.multiprocessing.worker_streams import SignalException, Std, StreamPump, to_map

__all__ = ["LaunchPlan", "LocalAgent"]

logger = logging.getLogger("tandem.distributed.elastic.agent")

_TAIL_LINES = 12  # lines of a failed worker's stderr shown in the report
_DEFAULT_PREFIX = "[${role_name}${local_rank}]:"


@dataclass
class LaunchPlan:
    """What the command line asked for, checked (tandem.distributed.run builds it)."""
    command: list  # the program and its leading arguments (python -u script.py), before the script's own
    script_args: list
    name: str  # what the failure report calls the job (the script or module)
    nproc: int
    run_id: str
    master_addr: str
    master_port: int  # 0: a free port
    role: str = "default"
    max_restarts: int = 0
    monitor_interval: float = 0.1
    shutdown_timeout: float = 30.0
    log_dir: str = None
    redirects: object = Std.NONE
    tee: object = Std.NONE
    local_ranks_filter: set = None
    log_line_prefix_template: str = None
    signals_to_handle: list = field(default_factory=lambda: [signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                                                             signal.SIGQUIT])
    signals_to_handle_text: str = "SIGTERM,SIGINT,SIGHUP,SIGQUIT"
    pass_local_rank_arg: bool = False  # tandem.distributed.launch without --use-env: --local-rank=N
    virtual_local_rank: bool = False


def _serve_store(port):
    try:
        return tcp_store_server.StoreServer(port)
    except OSError as e:
        raise DistNetworkError(tcp_store_server.listen_error(port, e) + "\nhint: the launcher serves the job's "
                               "store on MASTER_PORT: pick another --master-port, or leave it out for a free "
                               "one") from None


class _Worker:
    def __init__(self, local_rank, proc, folder, pumps, files):
        self.local_rank, self.proc, self.folder, self.pumps, self.files = local_rank, proc, folder, pumps, files
        self.error_file = os.path.join(folder, "error.json")
        self.exitcode = None

    def poll(self):
        if self.exitcode is None:
            self.exitcode = self.proc.poll()
        return self.exitcode

    def signal_group(self, sig):
        # Each worker leads its own process group (start_new_session), so its own children get the signal too.
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def finish_streams(self):
        for pump in self.pumps:
            pump.finish(timeout=2.0)
        for f in self.files:
            f.close()

    def stderr_tail(self):
        return "".join(p.tail() for p in self.pumps)


class LocalAgent:
    def __init__(self, plan):
        self.plan = plan
        self._server = None
        self._workers = []
        self._signal_received = None
        self._deferring = False  # while a worker is being started: a signal then waits until it is in the list
        self._old_handlers = {}

    # -- signals -------------------------------------------------------------------------------------------
    def _on_signal(self, signum, frame):
        if self._signal_received is not None:
            return  # already stopping: a second Ctrl-C must not interrupt the clean-up
        self._signal_received = signal.Signals(signum)
        if not self._deferring:
            self._raise_signal()

    def _raise_signal(self):
        raise SignalException(f"Process {os.getpid()} got signal: {int(self._signal_received)}",
                              sigval=self._signal_received)

    def _install_signal_handlers(self):
        for sig in self.plan.signals_to_handle:
            try:
                self._old_handlers[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread: the caller keeps its own handling
                pass

    def _restore_signal_handlers(self):
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        self._old_handlers.clear()

    # -- the run ---------------------------------------------------------------------------------------------
    def run(self):
        """Runs the job to the end: returns when every worker exited 0, else raises ChildFailedError (or
        SignalException when the launcher was told to stop)."""
        plan = self.plan
        owns_base = plan.log_dir is None
        base = tempfile.mkdtemp(prefix="torchelastic_") if owns_base else plan.log_dir
        os.makedirs(base, exist_ok=True)
        run_folder = tempfile.mkdtemp(prefix=f"{plan.run_id}_", dir=base)
        self._install_signal_handlers()
        keep_folder = False
        try:
            port = plan.master_port
            for attempt in range(plan.max_restarts + 1):
                self._server = _serve_store(port)
                port = self._server.port  # a restart serves on the same port the workers were told
                self._start_workers(attempt, os.path.join(run_folder, f"attempt_{attempt}"), port)
                failures = self._watch()
                if failures is None:
                    return
                if attempt < plan.max_restarts:
                    logger.warning("[%s] Worker group FAILED. %s/%s attempts left; will restart worker group",
                                   plan.role, plan.max_restarts - attempt, plan.max_restarts)
                    continue
                keep_folder = True  # the report names the error files in it
                raise ChildFailedError(name=plan.name, failures=failures)
        except SignalException as e:
            logger.warning("Received %s death signal, shutting down workers", e.sigval.name)
            self._stop_workers(e.sigval)
            raise
        finally:
            self._signal_received = self._signal_received or signal.SIGTERM  # no SignalException from here on
            self._stop_workers(signal.SIGTERM)
            self._restore_signal_handlers()
            if owns_base and not keep_folder:
                # After workers failed the folder stays, as torchrun's does.
                shutil.rmtree(base, ignore_errors=True)

    def _worker_env(self, attempt, local_rank, port, error_file):
        plan = self.plan
        env = dict(os.environ)
        env.update({
            "LOCAL_RANK": str(local_rank), "RANK": str(local_rank), "GROUP_RANK": "0",
            "ROLE_RANK": str(local_rank), "ROLE_NAME": plan.role, "LOCAL_WORLD_SIZE": str(plan.nproc),
            "WORLD_SIZE": str(plan.nproc), "GROUP_WORLD_SIZE": "1", "ROLE_WORLD_SIZE": str(plan.nproc),
            "MASTER_ADDR": plan.master_addr, "MASTER_PORT": str(port),
            "TORCHELASTIC_RESTART_COUNT": str(attempt), "TORCHELASTIC_MAX_RESTARTS": str(plan.max_restarts),
            "TORCHELASTIC_RUN_ID": plan.run_id, "TORCHELASTIC_USE_AGENT_STORE": "True",
            "TORCHELASTIC_ERROR_FILE": error_file,
            "TORCHELASTIC_SIGNALS_TO_HANDLE": plan.signals_to_handle_text,
            "TORCH_NCCL_ASYNC_ERROR_HANDLING": os.environ.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
        })
        if plan.virtual_local_rank:
            # Each worker sees only its own GPU, as device 0.
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            env["LOCAL_RANK"] = "0"
            if visible is None:
                env["CUDA_VISIBLE_DEVICES"] = str(local_rank)
            else:
                devices = visible.split(",")
                if local_rank >= len(devices):
                    raise ValueError(f"local_rank {local_rank} exceeds available GPUs in "
                                     f"CUDA_VISIBLE_DEVICES={visible}")
                env["CUDA_VISIBLE_DEVICES"] = devices[local_rank].strip()
        return env

    def _start_workers(self, attempt, folder, port):
        plan = self.plan
        redirects, tee = to_map(plan.redirects, plan.nproc), to_map(plan.tee, plan.nproc)
        template = string.Template(plan.log_line_prefix_template or _DEFAULT_PREFIX)
        self._workers = []
        for local_rank in range(plan.nproc):
            worker_folder = os.path.join(folder, str(local_rank))
            os.makedirs(worker_folder, exist_ok=True)
            error_file = os.path.join(worker_folder, "error.json")
            shown = plan.local_ranks_filter is None or local_rank in plan.local_ranks_filter
            prefix = template.safe_substitute(role_name=plan.role, local_rank=local_rank, rank=local_rank,
                                              hostname=socket.gethostname())
            args = [*plan.command, *([f"--local-rank={local_rank}"] if plan.pass_local_rank_arg else []),
                    *plan.script_args]
            files, stdout = [], None
            out_file = (Std.OUT in redirects[local_rank] or Std.OUT in tee[local_rank]) or not shown
            if out_file:
                files.append(open(os.path.join(worker_folder, "stdout.log"), "wb"))
            if out_file and Std.OUT in tee[local_rank] and shown:
                stdout = subprocess.PIPE
            elif out_file:
                stdout = files[-1]
            self._deferring = True
            try:
                proc = subprocess.Popen(args, env=self._worker_env(attempt, local_rank, port, error_file),
                                        stdout=stdout, stderr=subprocess.PIPE, start_new_session=True)
                self._workers.append(_Worker(local_rank, proc, worker_folder, [], files))
            finally:
                self._deferring = False
            if self._signal_received is not None:
                self._raise_signal()  # the worker just started is in the list: it will be stopped
            pumps = []
            if stdout is subprocess.PIPE:
                pumps.append(StreamPump(proc.stdout, console=sys.stdout, prefix=prefix, log_file=files.pop()))
            err_to_file = Std.ERR in redirects[local_rank] or Std.ERR in tee[local_rank] or not shown
            err_console = shown and (Std.ERR not in redirects[local_rank] or Std.ERR in tee[local_rank])
            pumps.append(StreamPump(
                proc.stderr, console=sys.stderr if err_console else None,
                prefix=prefix if Std.ERR in tee[local_rank] else "",
                log_file=open(os.path.join(worker_folder, "stderr.log"), "wb") if err_to_file else None,
                tail_lines=_TAIL_LINES))
            self._workers[-1].pumps = pumps

    def _watch(self):
        """None when every worker exited 0; else the failures (rank -> ProcessFailure), first observed first,
        after the other workers were stopped."""
        while True:
            time.sleep(self.plan.monitor_interval)
            codes = [w.poll() for w in self._workers]
            failed = [w for w in self._workers if w.exitcode not in (None, 0)]
            if failed:
                observed = int(time.time())
                break
            if all(code == 0 for code in codes):
                return None
        for w in failed:
            logger.error("failed (exitcode: %s) local_rank: %s (pid: %s) of binary: %s", w.exitcode, w.local_rank,
                         w.proc.pid, self.plan.command[0])
        self._stop_workers(signal.SIGTERM)
        failures = {}
        for w in failed + [w for w in self._workers if w not in failed and w.exitcode not in (None, 0)]:
            error_file = w.error_file if os.path.isfile(w.error_file) else _NOT_AVAILABLE
            failures[w.local_rank] = ProcessFailure(local_rank=w.local_rank, pid=w.proc.pid, exitcode=w.exitcode,
                                                    error_file=error_file,
                                                    stderr_tail=w.stderr_tail() if w in failed else "")
            if w in failed and error_file == _NOT_AVAILABLE:
                failures[w.local_rank].timestamp = observed  # before the workers this agent stopped
        return failures

    def _stop_workers(self, sig):
        """Stops every worker still running: ``sig``, then SIGKILL after the shutdown timeout. Also kills what
        is left of an exited worker's process group (its own children), and stops the attempt's store."""
        running = [w for w in self._workers if w.poll() is None]
        for w in running:
            logger.warning("Sending process %s closing signal %s", w.proc.pid, signal.Signals(sig).name)
            w.signal_group(sig)
        deadline = time.monotonic() + self.plan.shutdown_timeout
        while any(w.poll() is None for w in running) and time.monotonic() < deadline:
            time.sleep(0.05)
        for w in self._workers:
            if w.poll() is None:
                logger.warning("Unable to shutdown process %s via %s, forcefully exiting via SIGKILL", w.proc.pid,
                               signal.Signals(sig).name)
            w.signal_group(signal.SIGKILL)
            w.exitcode = w.proc.wait()
        for w in self._workers:  # after the kill: no child of a worker holds its pipes open any more
            w.finish_streams()
        if self._server is not None:
            self._server.stop()
            self._server = None
