"""A process forked after its parent used a cuda device refuses cuda (PyTorch's error) instead of waiting
forever on device threads that fork() did not copy; cpu work in the child is unaffected."""
import os

import pytest

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no cuda device (real or emulated)")


@needs_cuda
def test_forked_child_refuses_cuda_and_keeps_cpu():
    x = tandem.ones(3, device="cuda:0") * 2
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        lines = []
        for attempt in (lambda: tandem.ones(2, device="cuda:0"), lambda: x + 1, lambda: x.cpu()):
            try:
                attempt()
                lines.append("ran")
            except RuntimeError as e:
                lines.append(str(e).splitlines()[0])
        lines.append(str(tandem.arange(4).sum().item()))
        os.write(write, "\n".join(lines).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        report = f.read().splitlines()
    _, status = os.waitpid(pid, 0)
    assert status == 0
    message = ("Cannot re-initialize CUDA in forked subprocess. To use CUDA with multiprocessing, you must use "
               "the 'spawn' start method")
    assert report == [message, message, message, "6"]
    assert x.sum().item() == 6.0  # the parent's device still works


def test_forked_child_runs_parallel_regions_after_the_parent_used_two_threads():
    """libgomp's thread team does not survive fork(); a child that entered a parallel region after the parent
    ran one with 2 threads waited forever. tandem's fork handler makes the child run on one thread."""
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent("""
        import os, tandem
        tandem.set_num_threads(2)
        x = tandem.randn(1 << 21)
        (x.exp() * 2).sum().item()
        pid = os.fork()
        if pid == 0:
            ok = (x.exp() * 2).sum().item() > 0 and tandem.get_num_threads() == 1
            os._exit(0 if ok else 3)
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status), tandem.get_num_threads())
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.split() == ["0", "2"], run.stdout + run.stderr


_FORK_DURING_GEMM = r"""
import os, tandem
a = tandem.randn(384, 384, device="cuda:0")
for _ in range(5):
    outs = [a @ a for _ in range(30)]  # queued on the device's worker thread, which runs them with OpenBLAS
    pid = os.fork()  # while the worker is inside a GEMM
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    total = sum(o.sum().item() for o in outs)
print("done")
"""


@needs_cuda
def test_fork_while_device_gemms_are_queued_does_not_hang():
    """fork() waits for the emulated device's queues: OpenBLAS's own fork handler stops its thread pool, and a
    GEMM running on a queue's worker at that moment waited forever for those threads (pytorch/examples mnist
    with DataLoader workers on cuda hung at its first test batch)."""
    import subprocess
    import sys

    if not tandem.cuda.get_device_properties(0).is_emulated:
        pytest.skip("the queues are the emulated device's")
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", _FORK_DURING_GEMM], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
