"""tests/python/process_helpers.py: a command whose process tree outlives its timeout is killed as a whole, and
a descendant that keeps the output open never holds the caller."""
import subprocess
import sys
import time

import pytest

from process_helpers import run_process_tree

# A child that starts a grandchild holding stdout, then both sleep: subprocess.run(capture_output=True,
# timeout=...) would kill the child and then wait for the grandchild's end of the pipe.
_TREE = ("import subprocess, sys, time; print('started', flush=True); "
         "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)")


def test_a_tree_past_its_timeout_is_killed_with_its_output_so_far():
    start = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as e:
        run_process_tree([sys.executable, "-c", _TREE], timeout=3)
    assert time.monotonic() - start < 20
    assert e.value.output == "started\n" and e.value.timeout == 3


def test_a_finished_command_gives_its_code_and_output():
    run = run_process_tree([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); "
                                                  "sys.exit(3)"], timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (3, "out\n", "err\n")
