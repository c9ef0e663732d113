"""Run under `mpirun -np 2` with a mode in argv[1]: a job whose ranks fail must end, never hang.

timeout:   rank 1 never joins rank 0's all_reduce; rank 0's wait times out (DistBackendError) and the job ends
           when rank 0 exits (MPI_Abort: the stuck collective would keep MPI_Finalize waiting forever).
dead_rank: rank 1 dies; mpirun ends the job, including rank 0 blocked in a collective.
"""
import datetime
import os
import sys
import time

import tandem
import tandem.distributed as dist

mode = sys.argv[1]
dist.init_process_group(backend="mpi", timeout=datetime.timedelta(seconds=2))
rank = dist.get_rank()
if mode == "timeout":
    if rank == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(tandem.ones(4))
        except dist.DistBackendError as e:
            print(f"rank 0 timed out after {time.monotonic() - start:.1f}s: {str(e).splitlines()[0]}", flush=True)
    else:
        time.sleep(120)
elif mode == "dead_rank":
    if rank == 1:
        os._exit(3)
    dist.all_reduce(tandem.ones(4))
    print("rank 0 returned from an all_reduce with a dead peer", flush=True)
