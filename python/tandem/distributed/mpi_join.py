"""Process groups for processes that no MPI launcher started together: PyTorch's usual ways of starting a job
(``mp.spawn(fn, nprocs=N)`` with ``init_process_group("gloo", rank=rank, world_size=N)`` and MASTER_ADDR /
MASTER_PORT in the environment, or a launcher that sets RANK and WORLD_SIZE). The processes still talk over MPI,
joined with MPI's dynamic process calls (connect/accept on a port rank 0 opens; src/distributed/process_group.h);
how they find each other is PyTorch's rendezvous (env://, tcp://, file:// or a store), which hands over the port's
name. Open MPI connects processes of different jobs only through its ompi-server, which rank 0 starts and every
rank names in OMPI_MCA_pmix_server_uri before MPI starts. docs/distributed.md, "Without mpirun"."""
import os
import shutil
import subprocess
import tempfile
import time
from urllib.parse import parse_qs, urlparse

from tandem import _C

# Set in the ranks by mpirun (Open MPI), by Hydra (MPICH) and by PMIx/PMI-aware launchers such as srun.
_MPI_LAUNCHER_VARS = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE")
_SERVER_URI = "OMPI_MCA_pmix_server_uri"
_joins = 0  # joins made by this process (one is allowed: see join)


def launched_by_mpi():
    return any(name in os.environ for name in _MPI_LAUNCHER_VARS)


def joining_world_size(init_method, world_size, store):
    """The number of processes that must join each other, or None when MPI's own world is the job (started by
    an MPI launcher, or a single process)."""
    if launched_by_mpi():
        return None
    size = None
    if world_size not in (-1, None):
        size = int(world_size)
    elif store is None:
        method = init_method or "env://"
        query = parse_qs(urlparse(method).query)
        if "world_size" in query:
            size = int(query["world_size"][0])
        elif method.startswith("env://") and os.environ.get("WORLD_SIZE"):
            size = int(os.environ["WORLD_SIZE"])
    return size if size is not None and size > 1 else None


def join(init_method, store, rank, world_size, timeout_ms):
    """This process's group among the joining processes: (the C++ group, the rendezvous store)."""
    global _joins
    timeout_s = timeout_ms / 1000
    if _joins:
        # A second accept/connect round between the same processes left MPI_Finalize hanging at exit now and then
        # (Open MPI 4.1: "mca_btl_tcp_frag_send: writev failed"), so it is refused rather than risked.
        raise RuntimeError("init_process_group: processes that joined without mpirun can form one group per run; "
                           "this one already did (destroy_process_group does not end MPI)\nhint: keep the first "
                           "group (new_group() makes subgroups), or launch with `mpirun -np N python ...`, where "
                           "groups can be made again")
    if rank not in (-1, None) and world_size not in (-1, None):
        _check_rank(int(rank), int(world_size))
    if store is None:
        import datetime  # noqa: PLC0415

        # Imported here: the stores import distributed_c10d, which imports this module.
        from tandem.distributed.rendezvous import rendezvous  # noqa: PLC0415

        store, rank, world_size = next(rendezvous(init_method or "env://", -1 if rank is None else int(rank),
                                                  -1 if world_size is None else int(world_size),
                                                  timeout=datetime.timedelta(milliseconds=timeout_ms)))
    elif rank in (-1, None) or world_size in (-1, None):
        raise ValueError("init_process_group: rank and world_size must be given with store=\nhint: pass "
                         "rank=... and world_size=... as well")
    rank, world_size = int(rank), int(world_size)
    _check_rank(rank, world_size)
    prefix = "tandem/mpi_join/"
    if rank == 0:
        uri = os.environ.get(_SERVER_URI) or _start_ompi_server(timeout_s)
        store.set(prefix + "server", uri)
    else:
        store.wait([prefix + "server"])
        uri = store.get(prefix + "server").decode()
    if os.environ.get(_SERVER_URI, uri) != uri or (_C._dist_mpi_started() and _SERVER_URI not in os.environ):
        raise RuntimeError("init_process_group: MPI started in this process before it could join the others "
                           "(an earlier process group without them)\nhint: start each process afresh, or launch "
                           f"the job with `mpirun -np {world_size} python ...`")
    os.environ[_SERVER_URI] = uri  # read when MPI starts, in the next call
    _joins += 1  # from here on MPI takes part: a failed join is not retried in this process
    if rank == 0:
        store.set(prefix + "port", _C._dist_mpi_open_port(timeout_ms))
    else:
        store.wait([prefix + "port"])
    port = store.get(prefix + "port").decode()
    # Newcomers connect one at a time, in rank order: Open MPI 4.1 deadlocked now and then (about 1 run in 10
    # with 3 processes) when two connected to one port at once.
    if rank > 1:
        store.wait([f"{prefix}connected/{rank - 1}"])

    def connected():
        store.set(f"{prefix}connected/{rank}", b"1")

    return _C._dist_mpi_join(port, rank, world_size, timeout_ms, connected if rank > 0 else None), store


def _check_rank(rank, world_size):
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: rank {rank} is not in [0, world_size = {world_size})\nhint: give "
                         "each process its own rank in 0 .. world_size - 1")


def _start_ompi_server(timeout_s):
    """Starts Open MPI's ompi-server for this job and returns its URI. A watcher ends it once this process (rank
    0) has exited: rank 0's MPI_Finalize returns only after every joined process finalized, so no rank needs the
    server after that."""
    exe = shutil.which("ompi-server")
    if exe is None:
        raise RuntimeError("init_process_group: processes that mpirun did not start join through Open MPI's "
                           "ompi-server, which is not on PATH\nhint: install openmpi-bin, or launch the job with "
                           "`mpirun -np N python ...`")
    folder = tempfile.mkdtemp(prefix="tandem-ompi-server-")
    uri_file, log = os.path.join(folder, "uri"), os.path.join(folder, "log")
    watcher = ('"$1" --no-daemonize -r "$2" >"$3" 2>&1 & server=$!; '
               'while kill -0 "$4" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 0.5; done; '
               'kill "$server" 2>/dev/null; rm -rf "$5"')
    subprocess.Popen(["/bin/sh", "-c", watcher, "sh", exe, uri_file, log, str(os.getpid()), folder],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     start_new_session=True)
    deadline = time.monotonic() + min(timeout_s, 60)
    while time.monotonic() < deadline:
        try:
            with open(uri_file) as f:
                uri = f.read().strip()
            if uri:
                return uri
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    try:
        with open(log) as f:
            said = f.read().strip()
    except FileNotFoundError:
        said = ""
    raise RuntimeError(f"init_process_group: ompi-server did not start ({said or 'no output'})\nhint: launch the "
                       "job with `mpirun -np N python ...` instead")
