"""SyncBatchNorm across 2 processes (tests/distributed/sync_batchnorm.py under mpirun): global batch statistics
in forward, all-reduced gradient sums in backward, on cpu and (when present) cuda:0."""
import json

from test_distributed import mpirun, needs_mpi


@needs_mpi
def test_sync_batchnorm_two_ranks(tmp_path):
    run = mpirun("sync_batchnorm.py", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    for r in range(2):
        report = json.loads((tmp_path / f"rank{r}.json").read_text())
        assert report["ok"], report["error"]
