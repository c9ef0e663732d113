"""What the job's environment offers: the node-local rank, which backends and default backends there are, and
the debug level (TORCH_DISTRIBUTED_DEBUG)."""
import enum
import os
import typing
import warnings

import tandem
from tandem.distributed import distributed_c10d as c10d

__all__ = ["BackendConfig", "DebugLevel", "GroupName", "RankType", "get_backend_config", "get_debug_level",
           "get_default_backend_for_device", "get_node_local_rank", "is_backend_available", "is_ucc_available",
           "is_xccl_available", "set_debug_level", "set_debug_level_from_env"]


def get_node_local_rank(fallback_rank=None):
    """This process's rank on its machine: LOCAL_RANK (torchrun), or the launcher's own variable (Open MPI's
    OMPI_COMM_WORLD_LOCAL_RANK, MPICH's, Slurm's), else ``fallback_rank``."""
    for name in ("LOCAL_RANK", *c10d._LAUNCHER_ENV["LOCAL_RANK"]):
        if name in os.environ:
            return int(os.environ[name])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def _single_backend_available(name):
    if name in (c10d.Backend.MPI, c10d.Backend.GLOO):  # "gloo" runs on MPI here
        return c10d.is_available()
    if name == c10d.Backend.NCCL:
        return c10d.is_nccl_available()
    return False


def is_ucc_available():
    return False  # tandem has no UCC backend


def is_xccl_available():
    return False  # nor Intel's XCCL (XPU devices)


def get_backend_config(group=None):
    """Which backend runs each device type's tensors in ``group``, as PyTorch writes it: "cpu:mpi,cuda:nccl".
    Host tensors always go through MPI ("gloo" programs keep their name: it runs on MPI); CUDA tensors through
    NCCL when the group has a NCCL communicator, else through MPI."""
    pg, member = c10d._resolve(group)
    if not member:
        raise ValueError("Invalid process group specified")
    label = str(pg._backend)
    if ":" in label:
        return label
    if label == c10d.Backend.NCCL:
        return "cuda:nccl"
    return f"cpu:{label},cuda:{'nccl' if pg._nccl is not None else label}"


GroupName = typing.NewType("GroupName", str)  # a ProcessGroup's group_name, as PyTorch types it
RankType = int  # PyTorch's int | SymInt; tandem has no symbolic ints

# The device types each named backend serves (PyTorch's Backend.backend_capability for the names tandem knows).
_BACKEND_DEVICES = {"gloo": ["cpu", "cuda"], "nccl": ["cuda"], "mpi": ["cpu", "cuda"], "ucc": ["cpu", "cuda"]}
_BACKEND_STRING_FORMAT = ("Custom backend string is an experimental feature where the backend string must be in "
                          "the format: \"<device_type1>:<backend1>,<device_type2>:<backend2>...\". e.g. "
                          "'cpu:gloo,cuda:nccl,xpu:xccl'")


class BackendConfig:
    """Which backend serves each device type for a backend string ("gloo", "nccl", "cpu:gloo,cuda:nccl"), as
    PyTorch's ``BackendConfig``: printed as "cpu:gloo,cuda:gloo"."""

    def __init__(self, backend):
        backend = str(backend)
        normalized = backend.lower()
        if backend == c10d.Backend.UNDEFINED:
            device_type = "cuda" if tandem.cuda.is_available() else "cpu"
            self.device_backend_map = {device_type: c10d.Backend(get_default_backend_for_device(device_type))}
        elif normalized in _BACKEND_DEVICES:
            self.device_backend_map = dict.fromkeys(_BACKEND_DEVICES[normalized], c10d.Backend(backend))
        elif ":" not in normalized:
            warnings.warn(f"Device capability of {backend} unknown, assuming `cpu` and the current accelerator. You "
                          "can specify it in `device:backend` format in `init_process_group` call.", stacklevel=2)
            devices = ["cpu", "cuda"] if tandem.cuda.is_available() else ["cpu"]
            self.device_backend_map = dict.fromkeys(devices, c10d.Backend(backend))
        else:
            invalid = f"The custom backend string argument is invalid: {backend}. {_BACKEND_STRING_FORMAT}"
            self.device_backend_map = {}
            for pair in normalized.split(","):
                parts = pair.split(":")
                if len(parts) != 2:
                    raise ValueError(f"Invalid device:backend pairing: {pair}. {invalid}")
                device_type, name = parts
                if device_type in self.device_backend_map:
                    raise ValueError(f"Duplicate device type {device_type} in backend string: {name}. {invalid}")
                self.device_backend_map[device_type] = c10d.Backend(name)

    def __repr__(self):
        return ",".join(f"{device}:{backend}" for device, backend in self.device_backend_map.items())

    def get_device_backend_map(self):
        return self.device_backend_map


def is_backend_available(backend):
    """Whether init_process_group(backend=...) can use this backend: "mpi" and "gloo" (which runs on MPI) when
    tandem has MPI, "nccl" when it has NCCL; a device map such as "cpu:gloo,cuda:nccl" needs all of its own."""
    name = backend.lower()
    if ":" in name:
        return all(_single_backend_available(part.split(":", 1)[1].strip()) for part in name.split(","))
    return _single_backend_available(name)


def get_default_backend_for_device(device):
    """The backend PyTorch picks for a device type: "gloo" for cpu, "nccl" for cuda. Where NCCL cannot run
    (a build without it, or emulated CUDA devices) cuda gets "mpi", so the answer always works in
    init_process_group."""
    device_type = device.type if isinstance(device, tandem.device) else tandem.device(device).type
    if device_type == "cpu":
        return c10d.Backend.GLOO
    if device_type == "cuda":
        real_gpu = tandem.cuda.is_available() and not tandem.cuda.get_device_properties(0).is_emulated
        return c10d.Backend.NCCL if c10d.is_nccl_available() and real_gpu else c10d.Backend.MPI
    raise ValueError(f"Default backend not registered for device : {device}")


class DebugLevel(enum.Enum):
    """TORCH_DISTRIBUTED_DEBUG's levels. tandem keeps the level for programs that read it; its checks do not
    depend on it (the cross-rank argument check that DETAIL turns on in PyTorch is always on here)."""
    OFF = 0
    INFO = 1
    DETAIL = 2

    def __int__(self):
        return self.value


_level = [DebugLevel.OFF]


def get_debug_level():
    return _level[0]


def set_debug_level(level):
    if not isinstance(level, DebugLevel):
        raise TypeError("set_debug_level(): incompatible function arguments. The following argument types are "
                        "supported:\n    1. (arg0: tandem.distributed.DebugLevel) -> None\n\n"
                        f"Invoked with: {level!r}")
    _level[0] = level


def set_debug_level_from_env():
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG", "OFF").upper()
    if value not in DebugLevel.__members__:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.")
    _level[0] = DebugLevel[value]
