"""spawn(fn, args, nprocs): start nprocs processes running fn(i, *args) and join them, raising the first failure
in the parent with the child's traceback (ProcessRaisedException) or exit status (ProcessExitedException), as
torch.multiprocessing.spawn."""
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import tempfile
import traceback

__all__ = ["ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException", "spawn",
           "start_processes"]


class ProcessException(Exception):
    def __init__(self, msg, error_index, error_pid):
        super().__init__(msg)
        self.msg, self.error_index, self.error_pid = msg, error_index, error_pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A process failed with an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a non-zero status or was killed by a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _wrap(fn, i, args, error_file):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent asked it to stop
    except Exception:
        with open(error_file, "wb") as fh:
            pickle.dump(traceback.format_exc(), fh)
        raise SystemExit(1)


class ProcessContext:
    def __init__(self, processes, error_files):
        self.processes, self.error_files = processes, error_files
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None, grace_period=None):
        """True once every process has exited cleanly; raises for the first that did not (stopping the others)."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        error_index = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                error_index = index
                break
        if error_index is None:
            return not self.sentinels
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join(30 if grace_period is None else grace_period)
            if p.is_alive():
                p.kill()
                p.join()
        failed = self.processes[error_index]
        try:
            with open(self.error_files[error_index], "rb") as fh:
                original_trace = pickle.load(fh)
        except (OSError, EOFError):
            original_trace = None
        finally:
            for path in self.error_files:
                if os.path.exists(path):
                    os.unlink(path)
        if original_trace is None:
            code = failed.exitcode
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"<Unknown signal {-code}>"
                raise ProcessExitedException(f"process {error_index:d} terminated with signal {name}",
                                             error_index, failed.pid, code, name)
            raise ProcessExitedException(f"process {error_index:d} terminated with exit code {code:d}",
                                         error_index, failed.pid, code)
        msg = f"\n\n-- Process {error_index:d} terminated with the following error:\n" + original_trace
        raise ProcessRaisedException(msg, error_index, failed.pid)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for i in range(nprocs):
        fd, path = tempfile.mkstemp(prefix="tandem_spawn_err_")
        os.close(fd)
        os.unlink(path)  # the child creates it only if it fails
        error_files.append(path)
        p = ctx.Process(target=_wrap, args=(fn, i, args, path), daemon=daemon)
        p.start()
        processes.append(p)
    context = ProcessContext(processes, error_files)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs ``fn(i, *args)`` in ``nprocs`` new processes (i = 0 .. nprocs-1). With ``join`` waits for all and raises
    the first failure; otherwise returns a ProcessContext to join later."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
