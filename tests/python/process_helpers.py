"""Running a command that starts a tree of processes (mpirun and its ranks and daemons, an MPI singleton's orted)
with a hard bound on its time.

subprocess.run(..., capture_output=True, timeout=...) is not bounded for such trees: on the timeout it kills the
direct child only, then waits for EOF on the pipes, which the surviving grandchildren (ranks orphaned by a
killed mpirun, an orted started with its own session id) keep open, so the test hangs for good. Here the output
goes to files instead of pipes, the command runs in its own session, and on the timeout the whole session is
killed before TimeoutExpired is raised with what was written so far."""
import os
import signal
import subprocess
import tempfile


def _read(f):
    f.seek(0)
    return f.read().decode(errors="replace")


def run_process_tree(cmd, *, env=None, timeout):
    """subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout), except that a timeout kills
    every process of the command's session and never waits on a descendant that left it."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            raise subprocess.TimeoutExpired(cmd, timeout, output=_read(out), stderr=_read(err)) from None
        return subprocess.CompletedProcess(cmd, proc.returncode, _read(out), _read(err))
