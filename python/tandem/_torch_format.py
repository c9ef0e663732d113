"""What tandem's writer and reader of PyTorch's checkpoint format (torch.save's zip archive) share: the names
PyTorch's pickles use for tensors, storages and dtypes, and the user's allowlist for weights_only loads.

The archive: one top folder (the file's base name, or "archive"), holding ``data.pkl`` (the object, pickled
with protocol 2; every tensor is ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
requires_grad, hooks)``, its storage a persistent id ``('storage', torch.FloatStorage, key, location,
numel)``), ``data/<key>`` (each storage's raw little-endian bytes, stored uncompressed and 64-byte aligned),
``byteorder``, ``.format_version``, ``.storage_alignment`` and ``version``.
"""

from . import _C

ZIP_MAGIC = b"PK\x03\x04"
STORAGE_ALIGNMENT = 64
VERSION_RECORD = b"3\n"  # what torch.save writes
# The legacy format's first three pickles (the format is described in _torch_legacy_read).
LEGACY_MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
LEGACY_PROTOCOL_VERSION = 1001
LEGACY_SYS_INFO = {"protocol_version": LEGACY_PROTOCOL_VERSION, "little_endian": True,
                   "type_sizes": {"short": 2, "int": 4, "long": 4}}  # what torch.save writes, on every platform

# tandem dtype name -> (PyTorch storage class, element size, NumPy dtype; None where NumPy has none).
DTYPES = {
    "float32": ("FloatStorage", 4, "<f4"), "float64": ("DoubleStorage", 8, "<f8"),
    "float16": ("HalfStorage", 2, "<f2"), "bfloat16": ("BFloat16Storage", 2, None),
    "int64": ("LongStorage", 8, "<i8"), "int32": ("IntStorage", 4, "<i4"), "int16": ("ShortStorage", 2, "<i2"),
    "int8": ("CharStorage", 1, "i1"), "uint8": ("ByteStorage", 1, "u1"), "bool": ("BoolStorage", 1, "?"),
    "complex64": ("ComplexFloatStorage", 8, "<c8"), "complex128": ("ComplexDoubleStorage", 16, "<c16"),
    # No typed storage: PyTorch writes these with _rebuild_tensor_v3 over an UntypedStorage (bytes).
    "uint16": (None, 2, "<u2"), "uint32": (None, 4, "<u4"), "uint64": (None, 8, "<u8"),
}


def dtype_name(dtype):
    return str(dtype).rpartition(".")[2]


class TorchName:
    """A global as PyTorch's pickles name it (``torch._utils._rebuild_tensor_v2``), which the writer pickles
    under that name without importing torch."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __repr__(self):
        return f"{self.module}.{self.name}"

    def __reduce_ex__(self, protocol):
        return self.name  # "save as a global": the writer's save_global writes module and name

    def __call__(self, *args):
        # Callable only so that pickle accepts it as a reduce function; it is written, never called.
        raise TypeError(f"{self} is a name written into checkpoints, not a function")


class StorageType(TorchName):
    """torch.FloatStorage and friends: in a checkpoint they only say which dtype a storage's bytes hold. The
    reader resolves these names to these same objects."""

    def __init__(self, module, name, dtype):
        super().__init__(module, name)
        self.dtype = dtype


STORAGE_TYPES = {storage: StorageType("torch", storage, getattr(_C, name))
                 for name, (storage, _, _) in DTYPES.items() if storage}
# An UntypedStorage holds bytes; _rebuild_tensor_v3 (dtypes without a typed storage) names the dtype itself.
UNTYPED_STORAGE = StorageType("torch.storage", "UntypedStorage", _C.uint8)

REBUILD_TENSOR_V2 = TorchName("torch._utils", "_rebuild_tensor_v2")
REBUILD_TENSOR_V3 = TorchName("torch._utils", "_rebuild_tensor_v3")
REBUILD_PARAMETER = TorchName("torch._utils", "_rebuild_parameter")
REBUILD_PARAMETER_WITH_STATE = TorchName("torch._utils", "_rebuild_parameter_with_state")
TORCH_SIZE = TorchName("torch", "Size")
TORCH_DEVICE = TorchName("torch", "device")
REBUILD_SPARSE_TENSOR = TorchName("torch._utils", "_rebuild_sparse_tensor")
REBUILD_META_TENSOR = TorchName("torch._utils", "_rebuild_meta_tensor_no_storage")  # no storage, as torch.save
# A tensor subclass, or a tensor with Python attributes: (rebuild function, class, its arguments, state).
REBUILD_FROM_TYPE_V2 = TorchName("torch._tensor", "_rebuild_from_type_v2")
TORCH_TENSOR = TorchName("torch", "Tensor")
GET_LAYOUT = TorchName("torch.serialization", "_get_layout")  # a layout pickles as _get_layout("torch.<name>")


# ---- the user's allowlist for weights_only=True (torch.serialization.add_safe_globals) -------------------
# A set, as PyTorch's _marked_safe_globals_set (a dict keeps the order they were added in): adding an entry twice
# lists it once, and leaving a `with safe_globals([...])` block removes its entries even if they were added before
# it (program sweep 21).
_safe_globals = {}


def _qualified(obj):
    if isinstance(obj, tuple):  # (obj, "module.name"): the name the file uses for it
        return obj[1], obj[0]
    return f"{obj.__module__}.{obj.__qualname__}", obj


def add_safe_globals(safe_globals):
    """Lets ``load(..., weights_only=True)`` resolve these globals (functions or classes, or ``(obj, "module.name")``
    pairs). Only for code you trust: a file may call them with any arguments."""
    set(safe_globals)  # PyTorch's set(...): a bare class is "'type' object is not iterable", an unhashable entry too
    for entry in safe_globals:
        _qualified(entry)  # fail now, not at load time, on an entry that names nothing
    _safe_globals.update(dict.fromkeys(safe_globals))


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """``add_safe_globals`` for the duration of a ``with`` block: a class, as PyTorch's, so one object can be
    entered again (or entered by a call to __enter__ and kept); on exit its entries leave the allowlist."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        for entry in self.safe_globals:
            _safe_globals.pop(entry, None)


def user_allowed_globals():
    return dict(_qualified(entry) for entry in _safe_globals)


# ---- map_location ---------------------------------------------------------------------------------------
class Placement:
    """What a map_location callable receives as the storage: PyTorch passes the storage read to the CPU and
    takes back that storage moved (``storage.cuda(1)``, ``storage.to(dev)``) or as it is; tandem only needs
    to learn where it should go."""

    def __init__(self, device):
        self.device = _C.device(str(device))  # a str, or a tandem or torch device

    def cpu(self):
        return Placement("cpu")

    def cuda(self, device=None, non_blocking=False):
        return Placement("cuda" if device is None else f"cuda:{device}" if isinstance(device, int) else device)

    def to(self, device, non_blocking=False):
        return Placement(str(device))


_NOT_REGISTERED = ("If you are running on a CPU-only machine, please use torch.load with "
                   "map_location=torch.device('cpu') to map your storages to the CPU.")


def _check_restore_location(target):
    """PyTorch's default_restore_location: each backend's deserializer claims the location strings it knows
    ("cpu" and "meta" exactly, "cuda..." by prefix, which then parses as a device); a string none claims ("gpu",
    "cpu:0", "CPU") is its RuntimeError naming it, where parsing it as a device would accept some (cpu:0) and
    word others differently (program sweep 21)."""
    if target in ("cpu", "meta") or target.startswith("cuda"):
        return
    if target.startswith("xpu"):
        raise RuntimeError("Attempting to deserialize object on a XPU device but torch.xpu.is_available() is False. "
                           + _NOT_REGISTERED)
    for backend in ("hpu", "privateuseone"):
        if target.startswith(backend):
            raise RuntimeError(f"The {backend.upper()} device module is not registered. " + _NOT_REGISTERED)
    if target.startswith("mps"):
        raise RuntimeError(f"torch.UntypedStorage(): Storage device not recognized: {target}")
    raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                       f"{target})")


def restore_device(map_location, location):
    """The device for a storage saved on ``location`` ("cpu", "cuda:0"), as torch.load chooses it."""
    if map_location is None:
        target = location
    elif isinstance(map_location, dict):
        target = map_location.get(location, location)
    elif isinstance(map_location, str) or type(map_location).__name__ == "device":  # tandem's or torch's device
        target = str(map_location)
    else:
        moved = map_location(Placement("cpu"), location)
        if moved is None:
            target = location
        elif isinstance(moved, Placement):
            target = str(moved.device)
        else:
            raise TypeError(f"map_location returned {type(moved).__name__}\nhint: return the storage it was "
                            "given (moved with .cpu(), .cuda(i) or .to(device)), or None for the saved location")
    _check_restore_location(target)
    device = _C.device(target)
    if device.type == "cuda":
        from . import cuda
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is "
                               "False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
        if (device.index or 0) >= cuda.device_count():
            raise RuntimeError(f"Attempting to deserialize object on CUDA device {device.index} but "
                               f"torch.cuda.device_count() is {cuda.device_count()}. Please use torch.load with "
                               "map_location to map your storages to an existing device.")
    return device
