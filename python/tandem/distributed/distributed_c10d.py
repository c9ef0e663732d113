"""torch.distributed's process-group API over tandem's C++ process groups (src/distributed).

Processes start with ``mpirun -np N python train.py`` (or Slurm's ``srun``); MPI gives each its rank and the
world size. Host tensors and (staged through host memory) emulated CUDA tensors go through MPI; real CUDA
tensors through NCCL when the build has it. docs/distributed.md has the details.
"""
import datetime
import enum
import operator
import os
import pickle
import threading
import atexit
import warnings

import numpy as np

import tandem
from tandem import _C
from tandem.distributed import mpi_join
from tandem.futures import Future

__all__ = [
    "Backend", "DistBackendError", "DistError", "DistNetworkError", "GroupMember", "P2POp", "ProcessGroup",
    "ReduceOp", "Work",
    "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all_single", "barrier",
    "batch_isend_irecv", "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "gather_object",
    "get_backend", "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size",
    "group", "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "isend", "monitored_barrier", "new_group",
    "recv", "reduce", "reduce_op", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
    "default_pg_timeout", "all_gather_single", "reduce_scatter_single", "set_timeout", "supports_complex",
]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."
_NOT_INITIALIZED_HINT = ("\nhint: call tandem.distributed.init_process_group() first (start the processes with "
                         "`mpirun -np N python script.py`)")
_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)
default_pg_timeout = _DEFAULT_TIMEOUT  # PyTorch's public name for the process groups' default timeout


# What torchrun sets, and the variables Open MPI, MPICH and Slurm set for the same thing.
_LAUNCHER_ENV = {"RANK": ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"),
                 "WORLD_SIZE": ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"),
                 "LOCAL_RANK": ("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"),
                 "LOCAL_WORLD_SIZE": ("OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE")}


def _export_launcher_env():
    """PyTorch scripts read RANK, WORLD_SIZE and LOCAL_RANK (what torchrun sets) before init_process_group;
    under mpirun or srun they come from the launcher's own variables."""
    for name, candidates in _LAUNCHER_ENV.items():
        if name not in os.environ:
            value = next((os.environ[c] for c in candidates if c in os.environ), None)
            if value is not None:
                os.environ[name] = value


_export_launcher_env()


class DistError(RuntimeError):
    """Raised when an error occurs in the distributed library."""


class DistBackendError(DistError):
    """Raised when a backend error occurs (a collective timed out or failed in MPI/NCCL)."""


class DistNetworkError(DistError):
    """Raised when a network error occurs (a TCPStore cannot listen, connect, or lost its server)."""


def is_available():
    """True when this build has a process group (MPI)."""
    return bool(_C._dist_mpi_available())


def is_mpi_available():
    return bool(_C._dist_mpi_available())


def is_nccl_available():
    return bool(_C._dist_nccl_available())


def is_gloo_available():
    # backend="gloo" is accepted and runs on MPI (PyTorch CPU programs ask for it), but there is no Gloo.
    return False


def is_torchelastic_launched():
    return False


class Backend(str):
    """Backend names, as PyTorch's ``Backend``: Backend("MPI") == "mpi"."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"
    backend_list = [UNDEFINED, GLOO, NCCL, MPI]

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish\nhint: got {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class ReduceOp:
    """The reductions of all_reduce/reduce/reduce_scatter: ReduceOp.SUM, AVG, PRODUCT, MIN, MAX, BAND, BOR,
    BXOR (PyTorch's values, printed as ``RedOpType.SUM``)."""

    class RedOpType(enum.IntEnum):
        SUM = 0
        AVG = 1
        PRODUCT = 2
        MIN = 3
        MAX = 4
        BAND = 5
        BOR = 6
        BXOR = 7

        def __str__(self):
            return f"RedOpType.{self.name}"

    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR

    def __init__(self, op):
        self.op = ReduceOp.RedOpType(op)


class _reduce_op:  # noqa: N801 (PyTorch's name)
    """The deprecated ``reduce_op``: ReduceOp's members as attributes, each access warning as PyTorch does."""

    def __init__(self):
        for name, member in ReduceOp.RedOpType.__members__.items():
            setattr(self, name, member)

    def __getattribute__(self, key):
        warnings.warn("`torch.distributed.reduce_op` is deprecated, please use `torch.distributed.ReduceOp` "
                      "instead", FutureWarning, stacklevel=2)
        return object.__getattribute__(self, key)


reduce_op = _reduce_op()


def _op_code(op):
    if isinstance(op, ReduceOp):
        op = op.op
    if isinstance(op, ReduceOp.RedOpType):
        return int(op)
    raise TypeError(f"op must be a tandem.distributed.ReduceOp (e.g. ReduceOp.SUM), not {type(op).__name__}")


class Work:
    """An operation started with async_op=True: wait() blocks until it finished in this process."""

    def __init__(self, works, on_done=None, result=None, outputs=()):
        self._works = works
        self._on_done = on_done
        self._result = result
        self._outputs = list(outputs)
        self._timeout_ms = None

    def wait(self, timeout=None):
        for w in self._works:
            _wait(w, self._timeout_ms if timeout is None else _to_ms(timeout))
        if self._on_done is not None:
            done, self._on_done = self._on_done, None
            done()
        return True

    def is_completed(self):
        return all(w.is_completed() for w in self._works)

    def is_success(self):
        if not self.is_completed():
            return False
        try:
            self.wait()
        except Exception:
            return False
        return True

    def exception(self):
        try:
            self.wait()
        except Exception as e:
            return e
        return None

    def result(self):
        self.wait()
        return self._result

    def _source_rank(self):
        self.wait()
        return self._works[0].source_rank

    def get_future(self):
        """A tandem.futures.Future completed, when the operation finishes, with its output tensors in a list (as
        PyTorch's: [tensor] for all_reduce, broadcast, reduce, reduce_scatter_tensor and the receiving ops,
        [tensor_list] for all_gather), or with its error. Callbacks added with then() run on the thread that
        saw it finish: a helper thread that waits for the operation (which never calls MPI itself: the
        process's MPI thread does), or this one when it has finished already."""
        fut = Future()

        def complete():
            try:
                self.wait()
            except Exception as e:  # noqa: BLE001 (the operation's error travels in the Future)
                fut.set_exception(e)
            else:
                fut.set_result(list(self._outputs))

        if self.is_completed():
            complete()
        else:
            threading.Thread(target=complete, name="tandem-work-future", daemon=True).start()
        return fut


def _to_ms(timeout):
    if isinstance(timeout, datetime.timedelta):
        return max(1, int(timeout.total_seconds() * 1000))
    return max(1, int(float(timeout) * 1000))


def _wait(work, timeout_ms):
    try:
        work._wait(timeout_ms)
    except RuntimeError as e:
        if _C._dist_had_timeout() and "timed out after" in str(e):
            raise DistBackendError(str(e)) from None
        raise


class ProcessGroup:
    """A set of ranks that run collectives together (the default group is ``group.WORLD``).

    ``group_name`` is PyTorch's: "0" for the default group, then the count of groups made so far ("1", "2", ...)
    for new_group, a hash of the ranks for split_group; ``group_desc`` says what made it ("default_pg",
    "undefined" for new_group without group_desc, "mesh_tp" for a DeviceMesh dimension)."""

    def __init__(self, mpi, ranks, backend, nccl=None, group_name="", group_desc="undefined", timeout=None):
        self._mpi = mpi
        self._nccl = nccl
        self._ranks = list(ranks)  # global rank of each group rank
        self._backend = backend
        self._group_name = group_name
        self._group_desc = group_desc
        self._timeout = timeout  # None: the default group's (init_process_group's timeout)
        self._split_count = 0  # split_group calls on this group, for the children's group_desc

    def rank(self):
        return self._mpi.rank()

    def size(self):
        return self._mpi.size()

    def name(self):
        return self._backend

    @property
    def group_name(self):
        return self._group_name

    @property
    def group_desc(self):
        return self._group_desc

    def set_timeout(self, timeout):
        """The limit for this group's later operations (PyTorch's ProcessGroup.set_timeout)."""
        if not isinstance(timeout, datetime.timedelta):
            raise TypeError("set_timeout(): incompatible function arguments. The following argument types are "
                            "supported:\n    1. (self: tandem.distributed.ProcessGroup, timeout: datetime.timedelta) "
                            f"-> None\n\nInvoked with: {self!r}, {timeout!r}")
        self._timeout = timeout

    def _impl_for(self, tensor):
        if self._nccl is not None and tensor.is_cuda:  # a NCCL group exists only with real GPUs
            return self._nccl
        return self._mpi

    def __repr__(self):
        return f"<tandem.distributed.ProcessGroup {self._backend} ranks={self._ranks}>"


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    WORLD = None


class _State:
    world = None
    timeout = _DEFAULT_TIMEOUT
    atexit_registered = False
    store = None  # the rendezvous store of processes that joined without mpirun
    shutdown_grace_ms = 10_000  # how long finalizing may wait at exit before the job is aborted
    group_count = 0  # groups made since init_process_group, the default one included (get_pg_count)


def _set_world(pg):
    _State.world = pg
    GroupMember.WORLD = pg
    group.WORLD = pg


def _shutdown():
    # MPI must be finalized before the process exits (mpirun treats an exit without it as a failure); a
    # collective that timed out would never finish, so the C++ side aborts the job instead.
    _C._dist_shutdown(_State.shutdown_grace_ms)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Joins this process to the job's default group. Rank and world size come from MPI (mpirun/srun);
    explicit ``rank``/``world_size`` must agree with them."""
    if _State.world is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if init_method is not None and store is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    scheme = init_method.split("://", 1)[0] if isinstance(init_method, str) and "://" in init_method else None
    if scheme is not None and scheme not in ("env", "tcp", "file"):
        raise RuntimeError(f"No rendezvous handler for {scheme}://\nhint: init_method takes env://, tcp://host:port "
                           "or file:///path")
    if not is_available():
        raise RuntimeError("tandem.distributed is not available: tandem was built without MPI.\nhint: install "
                           "Open MPI (Debian: apt-get install libopenmpi-dev openmpi-bin) and rebuild tandem")
    name = Backend(backend) if backend is not None else None
    if name is not None and name not in (Backend.MPI, Backend.GLOO, Backend.NCCL) and ":" not in name:
        raise AssertionError(f"Unknown backend type {backend}\nhint: tandem runs 'mpi' (also for 'gloo' programs) "
                             "and 'nccl' (CUDA tensors)")
    if timeout is not None and not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")
    timeout = timeout if timeout is not None else _DEFAULT_TIMEOUT
    if mpi_join.joining_world_size(init_method, world_size, store) is not None:
        # Started without mpirun (mp.spawn, RANK/WORLD_SIZE): the processes find each other by PyTorch's
        # rendezvous and join over MPI (distributed/mpi_join.py).
        mpi, _State.store = mpi_join.join(init_method, store, rank, world_size, _to_ms(timeout))
        # Finalizing waits for every joined process to finalize too: as long as the group's own timeout.
        _State.shutdown_grace_ms = _to_ms(timeout)
    else:
        mpi = _C._dist_mpi_world(_to_ms(timeout))
    if world_size not in (-1, None) and int(world_size) != mpi.size():
        raise RuntimeError(f"init_process_group: world_size={world_size}, but MPI started {mpi.size()} "
                         f"process(es)\nhint: start the job with `mpirun -np {world_size} python ...`, or leave "
                         "world_size out (tandem takes it from MPI)")
    if rank not in (-1, None) and int(rank) != mpi.rank():
        raise RuntimeError(f"init_process_group: rank={rank}, but MPI gave this process rank {mpi.rank()}\nhint: "
                         "leave rank out (tandem takes it from MPI)")
    nccl = None
    wants_nccl = name is not None and "nccl" in name
    if wants_nccl or name is None:
        real_gpu = tandem.cuda.is_available() and not tandem.cuda.get_device_properties(0).is_emulated
        if wants_nccl and not is_nccl_available():
            raise RuntimeError("Distributed package doesn't have NCCL built in\nhint: use backend=\"mpi\": it runs "
                               "CUDA tensors too, staged through host memory")
        if wants_nccl and not real_gpu:
            raise RuntimeError("init_process_group(backend=\"nccl\"): NCCL needs a real CUDA device, and this "
                               "process has none (emulated CUDA devices are host memory)\nhint: use "
                               "backend=\"mpi\", which runs emulated and real CUDA tensors staged through host memory")
        if real_gpu and is_nccl_available():
            nccl = _C._dist_nccl_world(mpi, _to_ms(timeout))
    label = "nccl" if wants_nccl else ("mpi" if name is None else str(name))
    _State.timeout = timeout
    _set_world(ProcessGroup(mpi, range(mpi.size()), label, nccl, group_name="0", group_desc="default_pg"))
    _State.group_count = 1
    if not _State.atexit_registered:
        atexit.register(_shutdown)
        _State.atexit_registered = True


def is_initialized():
    return _State.world is not None


def _world():
    if _State.world is None:
        raise ValueError(_NOT_INITIALIZED + _NOT_INITIALIZED_HINT)
    return _State.world


def _resolve(group):
    """(ProcessGroup, member?) for a group argument; None means the default group."""
    world = _world()
    if group is None or group is GroupMember.WORLD:
        return world, True
    if group == GroupMember.NON_GROUP_MEMBER:
        return None, False
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a tandem.distributed.ProcessGroup or None, not {type(group).__name__}")
    return group, True


def destroy_process_group(group=None):
    """Forgets the default group (and so every group) or one subgroup; MPI itself ends at process exit."""
    if group is None or group is GroupMember.WORLD:
        if _State.world is None:
            raise AssertionError("Process group cannot be None")
        _set_world(None)
        _State.group_count = 0
        _State.store = None  # a joined group's rendezvous store (a joined process cannot join again)


def get_rank(group=None):
    pg, member = _resolve(group)
    return pg.rank() if member else -1


def get_world_size(group=None):
    pg, member = _resolve(group)
    return pg.size() if member else -1


def get_backend(group=None):
    pg, member = _resolve(group)
    if not member:
        raise ValueError("Invalid process group specified")
    return pg._backend


def get_process_group_ranks(group):
    pg, _ = _resolve(group)
    return list(pg._ranks)


def get_global_rank(group, group_rank):
    if group is not None and group is GroupMember.WORLD:  # PyTorch: the world's ranks are the global ones
        return group_rank
    pg, _ = _resolve(group)
    if not 0 <= group_rank < len(pg._ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank):
    if group is not None and group is GroupMember.WORLD:
        return global_rank
    pg, _ = _resolve(group)
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None, sort_ranks=True):
    """A group of the given global ranks. Every rank of the job must call it (as in PyTorch); the others get
    GroupMember.NON_GROUP_MEMBER. Group rank i is ``ranks[i]`` once sorted (``sort_ranks=False`` keeps the
    order given)."""
    world = _world()
    if timeout is not None and not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {type(timeout)}")
    ranks = _checked_ranks(ranks, world.size(), sort_ranks)
    _State.group_count += 1  # on every rank, members or not (PyTorch counts the same way)
    name = str(_State.group_count - 1)
    return _split_world(ranks, name, "undefined" if group_desc is None else group_desc, timeout)


def _checked_ranks(ranks, world_size, sort_ranks=True):
    """new_group's ranks as a list of ints, with PyTorch's errors for duplicates and ranks out of range."""
    if ranks is None:
        return list(range(world_size))
    try:
        ranks = [operator.index(r) for r in ranks]
    except TypeError:
        raise TypeError("ranks must be a sequence of integers") from None
    if sort_ranks:
        ranks = sorted(ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
    if len(ranks) > world_size:
        raise ValueError("the new group's world size should be less or equal to the world size set by "
                         "init_process_group")
    for r in ranks:
        if not 0 <= r < world_size:
            raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {world_size - 1} "
                             f"(world_size={world_size})")
    return ranks


def _split_world(ranks, name, desc, timeout, parent=None):
    """One collective split of ``parent`` (the default group by default; every one of its ranks calls it): the
    group of ``ranks`` (group ranks of the parent, in the new group's order) for its members,
    GroupMember.NON_GROUP_MEMBER for the others."""
    parent = _world() if parent is None else parent
    sub = parent._mpi.new_group(ranks)
    # Every rank splits the NCCL communicator too (ncclCommSplit is collective over the parent, like new_group).
    nccl_sub = parent._nccl.new_group(ranks) if parent._nccl is not None else None
    if sub is None:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(sub, [parent._ranks[r] for r in ranks], parent._backend, nccl_sub, group_name=name,
                        group_desc=desc, timeout=timeout)


def _group_rank(pg, global_rank, what):
    if global_rank not in pg._ranks:
        raise ValueError(f"{what}: rank {global_rank} is not part of the group (its global ranks are "
                         f"{pg._ranks})")
    return pg._ranks.index(global_rank)


def _backend_error(pg, op, text):
    """What PyTorch's process group (a C++ c10::Error: RuntimeError) says about a collective's arguments, named
    after the group's backend as PyTorch's ProcessGroupGloo/MPI/NCCL name themselves."""
    kind = {"gloo": "Gloo", "mpi": "MPI", "nccl": "NCCL"}.get(str(pg._backend).split(":")[-1], "Gloo")
    return RuntimeError(f"ProcessGroup{kind}::{op}: {text}")


def _root_rank(pg, rank, op, what):
    """A collective's root in the group; a rank outside the world group is the backend's error in PyTorch (its
    Python layer translates ranks only for subgroups, with ValueError)."""
    if pg is _State.world and rank not in pg._ranks:
        raise _backend_error(pg, op, f"invalid root rank: {rank}")
    return _group_rank(pg, rank, what)


def _check_list_size(pg, op, items, kind):
    n = pg.size()
    if len(items) != n:
        raise _backend_error(pg, op, f"Incorrect {kind} list size {len(items)}. {kind.capitalize()} list size "
                                     f"should be {n}, same as size of the process group.")


def _check_tensor(t, fn, arg="tensor"):
    if not isinstance(t, tandem.Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{arg}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def _check_same_dtypes(tensors):
    first = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != first:
            raise ValueError(f"Invalid usage of tensors with different dtypesFound {first} and  {t.dtype}")


def _finish(works, async_op, on_done=None, result=None, pg=None, outputs=()):
    work = Work(works, on_done, result, outputs)
    if pg is not None:
        work._timeout_ms = _to_ms(_State.timeout if pg._timeout is None else pg._timeout)
    if async_op:
        return work
    work.wait()
    return None


def _timeout_ms(pg=None):
    return _to_ms(_State.timeout if pg is None or pg._timeout is None else pg._timeout)


def set_timeout(timeout, group=None):
    """The limit for the later operations of ``group`` (the default group by default); the default group's
    limit is also every other group's unless that group has its own (new_group(timeout=...))."""
    pg, member = _resolve(group)
    if not member:
        raise ValueError("Invalid process group specified")
    pg.set_timeout(timeout)
    if pg is _State.world:
        _State.timeout = timeout


def supports_complex(reduceOp):  # noqa: N803 (PyTorch's argument name)
    """Whether a reduction is defined on complex tensors: SUM and AVG are, the ordering and bitwise ones are not."""
    code = reduceOp.op if isinstance(reduceOp, ReduceOp) else reduceOp
    return code not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(tensor, "all_reduce")
    pg, member = _resolve(group)
    if not member:
        return None
    return _finish([pg._impl_for(tensor).all_reduce(tensor, _op_code(op))], async_op, pg=pg, outputs=[tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "broadcast")
    pg, member = _resolve(group)
    if not member:
        return None
    root = group_src if group_src is not None else _root_rank(pg, 0 if src is None else src, "broadcast", "broadcast")
    return _finish([pg._impl_for(tensor).broadcast(tensor, root)], async_op, pg=pg, outputs=[tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "reduce")
    pg, member = _resolve(group)
    if not member:
        return None
    root = group_dst if group_dst is not None else _root_rank(pg, 0 if dst is None else dst, "reduce", "reduce")
    return _finish([pg._impl_for(tensor).reduce(tensor, root, _op_code(op))], async_op, pg=pg, outputs=[tensor])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    _check_tensor(tensor, "all_gather")
    pg, member = _resolve(group)
    if not member:
        return None
    if not isinstance(tensor_list, list):
        raise TypeError("Invalid function argument. Expected parameter `tensor_list` of type List[torch.Tensor]\n"
                        f"             but got {type(tensor_list)} instead.")
    _check_same_dtypes([*tensor_list, tensor])  # PyTorch's Python layer checks dtypes before the backend sizes
    if len(tensor_list) != pg.size():
        raise _backend_error(pg, "allgather", f"invalid output tensor list at index 0 (expected length "
                                              f"{pg.size()}, got {len(tensor_list)})")
    return _finish([pg._impl_for(tensor).all_gather(list(tensor_list), tensor)], async_op, pg=pg,
                   outputs=[list(tensor_list)])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    _check_tensor(output_tensor, "all_gather_into_tensor", "output_tensor")
    _check_tensor(input_tensor, "all_gather_into_tensor", "input_tensor")
    pg, member = _resolve(group)
    if not member:
        return None
    return _finish([pg._impl_for(input_tensor).all_gather_into_tensor(output_tensor, input_tensor)], async_op,
                   pg=pg, outputs=[output_tensor])


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """PyTorch 2.15's name for all_gather_into_tensor (the same operation)."""
    _check_tensor(input_tensor, "all_gather_single", "input_tensor")  # PyTorch checks the input first
    return all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """PyTorch 2.15's name for reduce_scatter_tensor (the same operation)."""
    return reduce_scatter_tensor(output, input, op, group, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    _check_tensor(output, "reduce_scatter_tensor", "output")
    _check_tensor(input, "reduce_scatter_tensor", "input")
    pg, member = _resolve(group)
    if not member:
        return None
    return _finish([pg._impl_for(input).reduce_scatter_tensor(output, input, _op_code(op))], async_op, pg=pg,
                   outputs=[output])


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    _check_tensor(tensor, "gather")
    pg, member = _resolve(group)
    if not member:
        return None
    root = group_dst if group_dst is not None else _group_rank(pg, 0 if dst is None else dst, "gather")
    outputs = list(gather_list) if gather_list else []
    if pg.rank() == root:
        if not outputs:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_same_dtypes([*outputs, tensor])
        _check_list_size(pg, "gather", outputs, "output")
    return _finish([pg._impl_for(tensor).gather(tensor, outputs, root)], async_op, pg=pg)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    _check_tensor(tensor, "scatter")
    pg, member = _resolve(group)
    if not member:
        return None
    root = group_src if group_src is not None else _group_rank(pg, 0 if src is None else src, "scatter")
    inputs = list(scatter_list) if scatter_list else []
    if pg.rank() == root:
        if not inputs:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_same_dtypes([*inputs, tensor])
        _check_list_size(pg, "scatter", inputs, "input")
    return _finish([pg._impl_for(tensor).scatter(tensor, inputs, root)], async_op, pg=pg, outputs=[tensor])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    _check_tensor(output, "all_to_all_single", "output")
    _check_tensor(input, "all_to_all_single", "input")
    pg, member = _resolve(group)
    if not member:
        return None
    for splits in (output_split_sizes, input_split_sizes):
        if splits and len(splits) != pg.size():  # PyTorch's check (c10d's checkSplitSizes)
            raise RuntimeError("Number of tensor splits not equal to group size")
    works = [pg._impl_for(input).all_to_all_single(output, input, [int(s) for s in output_split_sizes or []],
                                                   [int(s) for s in input_split_sizes or []])]
    return _finish(works, async_op, pg=pg, outputs=[output])


def barrier(group=None, async_op=False, device_ids=None):
    pg, member = _resolve(group)
    if not member:
        return None
    return _finish([pg._mpi.barrier()], async_op, pg=pg)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    pg, member = _resolve(group)
    if not member:
        return None
    work = pg._mpi.barrier()
    _wait(work, _to_ms(timeout) if timeout is not None else _timeout_ms(pg))


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    _check_tensor(tensor, "isend")
    pg, member = _resolve(group)
    if not member:
        return None
    peer = group_dst if group_dst is not None else _group_rank(pg, dst, "isend")
    return _finish([pg._impl_for(tensor).send(tensor, peer, int(tag))], True, pg=pg)


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    _check_tensor(tensor, "irecv")
    pg, member = _resolve(group)
    if not member:
        return None
    peer = group_src if group_src is not None else (-1 if src is None else _group_rank(pg, src, "irecv"))
    return _finish([pg._impl_for(tensor).recv(tensor, peer, int(tag))], True, pg=pg, outputs=[tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives into ``tensor``; returns the sender's global rank (-1 for a non-member)."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    pg, _ = _resolve(group)
    return pg._ranks[work._source_rank()]


class P2POp:
    """One isend/irecv for batch_isend_irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv, send, recv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op = isend if op in (isend, send) else irecv
        self.tensor, self.peer, self.group, self.tag, self.group_peer = tensor, peer, group, tag, group_peer


def batch_isend_irecv(p2p_op_list):
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# ---- object collectives: pickle only what the caller passes, move the bytes as uint8 tensors ----

def _to_bytes_tensor(obj):
    return tandem.from_numpy(np.frombuffer(pickle.dumps(obj), dtype=np.uint8).copy())


def _from_bytes_tensor(t, size):
    return pickle.loads(t[:size].numpy().tobytes())


def all_gather_object(object_list, obj, group=None):
    pg, member = _resolve(group)
    if not member:
        return
    n = pg.size()
    if len(object_list) < n:  # PyTorch writes object_list[i] for each rank: an IndexError past its end
        raise IndexError(f"list assignment index out of range\nhint: all_gather_object: object_list must have one "
                         f"entry per rank ({n}), got {len(object_list)}")
    payload = _to_bytes_tensor(obj)
    sizes = [tandem.zeros(1, dtype=tandem.int64) for _ in range(n)]
    all_gather(sizes, tandem.tensor([payload.numel()], dtype=tandem.int64), group=group)
    sizes = [int(s.item()) for s in sizes]
    padded = tandem.zeros(max(sizes), dtype=tandem.uint8)
    padded[:payload.numel()] = payload
    outputs = [tandem.empty(max(sizes), dtype=tandem.uint8) for _ in range(n)]
    all_gather(outputs, padded, group=group)
    for i in range(n):
        object_list[i] = _from_bytes_tensor(outputs[i], sizes[i])


def gather_object(obj, object_gather_list=None, dst=0, group=None, group_dst=None):
    pg, member = _resolve(group)
    if not member:
        return
    gathered = [None] * pg.size()
    all_gather_object(gathered, obj, group=group)  # object sizes differ per rank; a gather of sizes costs the same
    root = group_dst if group_dst is not None else _group_rank(pg, dst, "gather_object")
    if pg.rank() == root:
        if object_gather_list is None:
            raise ValueError("Argument ``object_gather_list`` must be specified on destination rank.")
        object_gather_list[:] = gathered


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    pg, member = _resolve(group)
    if not member:
        return
    root = group_src if group_src is not None else _root_rank(pg, 0 if src is None else src, "broadcast", "broadcast_object_list")
    if pg.rank() == root:
        payloads = [_to_bytes_tensor(o) for o in object_list]
        sizes = tandem.tensor([p.numel() for p in payloads], dtype=tandem.int64)
    else:
        sizes = tandem.zeros(len(object_list), dtype=tandem.int64)
    broadcast(sizes, group=group, group_src=root)
    total = int(sizes.sum().item())
    data = tandem.cat(payloads) if pg.rank() == root and payloads else tandem.empty(total, dtype=tandem.uint8)
    if total:
        broadcast(data, group=group, group_src=root)
    if pg.rank() != root:
        at = 0
        for i, size in enumerate(sizes.tolist()):
            object_list[i] = _from_bytes_tensor(data[at:at + size], size)
            at += size


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    pg, member = _resolve(group)
    if not member:
        return
    root = group_src if group_src is not None else _group_rank(pg, 0 if src is None else src, "scatter_object_list")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    objects = list(scatter_object_input_list) if pg.rank() == root else [None] * pg.size()
    broadcast_object_list(objects, group=group, group_src=root)
    scatter_object_output_list[0] = objects[pg.rank()]
