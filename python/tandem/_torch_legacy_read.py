"""tandem.load of torch.save's legacy format (PyTorch before 1.6, or ``_use_new_zipfile_serialization=False``).

The file is five pickles back to back, then the storages' bytes:
1. the magic number, 2. the protocol version (both in _torch_format), 3. sys_info (a dict on byte
order and C type sizes; ignored, as PyTorch ignores it: the bytes are always little-endian), 4. the object, whose
persistent ids name storages as ``('storage', storage type, key, location, numel, view_metadata)``
(view_metadata: None, or ``(view key, offset, size)`` in elements for a storage view, which PyTorch < 1.0 wrote),
5. the list of storage keys. Then, for each key in that list: the element count (8 bytes, little-endian) and the
elements.

The tensors in the object pickle need their storages' bytes, which come after it; so a first pass reads the
object pickle without building anything (every global it names is a stand-in), to learn its storages and where
it ends, then the bytes are read, and a second pass unpickles the object for real.
"""
import io
import pickle
import pickletools
import struct

import numpy as np

from . import _C
from ._torch_format import DTYPES, StorageType, dtype_name, restore_device
from ._torch_format import LEGACY_MAGIC_NUMBER as MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION as PROTOCOL_VERSION
from ._torch_format_read import _ALLOWED, _FullUnpickler, _RestrictedUnpickler, _Storage

_MAGIC_PICKLE = pickle.dumps(MAGIC_NUMBER, protocol=2)  # how the file starts, written with the default protocol


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


# ---- format detection -------------------------------------------------------------------------------------
class _Inert(pickle._Unpickler):
    """Reads a pickle that may name no global and no persistent id: the header pickles."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"a legacy checkpoint's header names the global {module}.{name}")

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("a legacy checkpoint's header holds a persistent id")


def is_legacy(fh):
    """Whether ``fh`` (seekable; left where it was) starts with the legacy format's magic number, or with the
    start of it (a file truncated there is still reported as a legacy file)."""
    start = fh.tell()
    head = fh.read(64)  # the magic number's pickle is shorter in every protocol
    fh.seek(start)
    if head and _MAGIC_PICKLE.startswith(head[:len(_MAGIC_PICKLE)]):
        return True
    try:
        return _Inert(io.BytesIO(head)).load() == MAGIC_NUMBER  # written with another pickle protocol
    except Exception:  # noqa: BLE001  (any other content: not this format)
        return False


# ---- pass 1: the storages the object names ---------------------------------------------------------------
class _StandIn:
    """Every global and every object built from one in the first pass: accepts any arguments and state."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        pass

    def __setitem__(self, key, value):
        pass

    def append(self, item):
        pass

    def extend(self, items):
        pass


class _Root:
    """A storage of the file: its dtype, saved location and size, and (once read) its bytes."""

    def __init__(self, dtype, location, numel):
        self.dtype, self.location, self.numel = dtype, location, numel
        self.itemsize = DTYPES[dtype_name(dtype)][1]  # 1 for an UntypedStorage (uint8), sized in bytes
        self.data = None


def _parse_pid(pid):
    """(storage type, key, location, numel, view_metadata) of a persistent id, checked."""
    if not (isinstance(pid, tuple) and len(pid) == 6 and pid[0] in ("storage", b"storage")):
        raise pickle.UnpicklingError(f"Unknown typename for persistent_load, expected 'storage' but got "
                                     f"{pid[0] if isinstance(pid, tuple) and pid else pid!r}")
    _, storage_type, key, location, numel, view = pid
    if isinstance(location, bytes):  # files from Python 2
        location = location.decode("ascii")
    if not (isinstance(storage_type, StorageType) and isinstance(key, str) and isinstance(location, str)
            and _is_int(numel) and numel >= 0
            and (view is None or (isinstance(view, tuple) and len(view) == 3 and isinstance(view[0], str)
                                  and _is_int(view[1]) and _is_int(view[2]) and view[1] >= 0 and view[2] >= 0
                                  and view[1] + view[2] <= numel))):
        raise pickle.UnpicklingError(f"tandem.load: invalid storage reference {pid!r} in the file")
    return storage_type, key, location, numel, view


class _StorageCollector(pickle._Unpickler):
    """The first pass: storage types resolve to themselves, every other global to _StandIn, so nothing the file
    names is imported or run; persistent ids are recorded. A storage's type, location and size are those of
    its first reference, as in PyTorch."""

    def __init__(self, file, **kwargs):
        super().__init__(file, **kwargs)
        self.roots = {}

    def find_class(self, module, name):
        found = _ALLOWED.get(f"{module}.{name}")
        return found if isinstance(found, StorageType) else _StandIn

    def persistent_load(self, pid):
        storage_type, key, location, numel, _ = _parse_pid(pid)
        if key not in self.roots:
            self.roots[key] = _Root(storage_type.dtype, location, numel)
        return _StandIn()


# ---- pass 2: the object ------------------------------------------------------------------------------------
class _NamesReadStorages:
    """The second pass's persistent ids: the storages read in the first, at the devices map_location gives."""

    def persistent_load(self, pid):
        _, key, _, _, view = _parse_pid(pid)
        return self._archive.storage(key, view)


class _RestrictedLegacyUnpickler(_NamesReadStorages, _RestrictedUnpickler):
    pass


class _FullLegacyUnpickler(_NamesReadStorages, _FullUnpickler):
    pass


class _Storages:
    """The second pass's storages by key: the roots read in the first pass, restored where map_location says,
    and the views of them that the object names (sharing the root's bytes)."""

    def __init__(self, roots, map_location):
        self._roots = roots
        self._by_key = {key: _Storage(root.data, root.dtype, restore_device(map_location, root.location))
                        for key, root in roots.items()}

    def storage(self, key, view):
        if view is None:
            return self._by_key[key]
        view_key, offset, size = view
        if view_key not in self._by_key:
            root, itemsize = self._by_key[key], self._roots[key].itemsize
            self._by_key[view_key] = _Storage(root.data[offset * itemsize:(offset + size) * itemsize],
                                              root.dtype, root.device)
        return self._by_key[view_key]


# ---- reading ------------------------------------------------------------------------------------------------
def _ends_between_opcodes(tail):
    """Whether a pickle cut short at the end of the file ends where an opcode would start."""
    try:
        for _ in pickletools.genops(io.BytesIO(tail)):
            pass
    except ValueError as e:
        return "exhausted before seeing STOP" in str(e)
    return False


def _unpickle(fh, unpickler, what):
    """One pickle of the file. Where the file ends inside it, pickle's C unpickler's errors (those torch.load
    reports), which the pure-Python unpickler does not give (it reads a short string without noticing, say)."""
    start = fh.tell()
    try:
        return unpickler.load()
    except (EOFError, IndexError, KeyError, struct.error, pickle.UnpicklingError) as e:
        if fh.read(1):
            if isinstance(e, pickle.UnpicklingError):
                raise
            raise pickle.UnpicklingError(f"tandem.load: the legacy checkpoint's {what} is damaged "
                                         f"({type(e).__name__}: {e})") from None
        fh.seek(start)
        if _ends_between_opcodes(fh.read()):
            raise EOFError(f"Ran out of input\nhint: the legacy checkpoint ends before the end of its {what}; "
                           "the file is truncated") from None
        raise pickle.UnpicklingError(f"pickle data was truncated\nhint: the legacy checkpoint ends inside its "
                                     f"{what}; the file is truncated") from None
    except (TypeError, AttributeError, MemoryError) as e:
        # These passes run nothing the file names (stand-ins only), so these come from malformed opcodes: a
        # SETITEMS on a str, a BYTEARRAY8 of a size larger than memory.
        raise pickle.UnpicklingError(f"tandem.load: the legacy checkpoint's {what} is damaged "
                                     f"({type(e).__name__}: {e})") from None


def _read_exactly(fh, out):
    """Fills ``out`` (a writable buffer) from the file, or raises PyTorch's error for a file that ends first."""
    view = memoryview(out).cast("B")
    got = 0
    while got < view.nbytes:
        n = fh.readinto(view[got:])
        if not n:
            raise RuntimeError(f"unexpected EOF, expected {view.nbytes - got} more bytes. The file might be "
                               "corrupted.\nhint: the legacy checkpoint is truncated")
        got += n


def _remaining(fh):
    here = fh.tell()
    end = fh.seek(0, io.SEEK_END)
    fh.seek(here)
    return end - here


def _read_storage_bytes(fh, keys, roots):
    """The storages' bytes, in the order of the key list."""
    if not isinstance(keys, list):
        raise TypeError(f"'{type(keys).__name__}' object is not iterable\nhint: the legacy checkpoint's "
                        "list of storage keys is damaged")
    for key in keys:
        if not isinstance(key, str) or key not in roots:
            raise AssertionError(f"storage key {key!r} not found in deserialized_objects\nhint: the legacy "
                                 "checkpoint is damaged")
        root = roots[key]
        count = np.empty(1, "<i8")
        _read_exactly(fh, count)
        expected = root.numel * root.itemsize
        if int(count[0]) != root.numel:  # PyTorch's message, with its unsigned arithmetic
            raise RuntimeError(f"storage has wrong byte size: expected {int(count[0]) * root.itemsize % 2**64} "
                               f"got {expected}\nhint: the legacy checkpoint is damaged")
        left = _remaining(fh)
        if expected > left:  # before allocating: a damaged size must not exhaust memory
            raise RuntimeError(f"unexpected EOF, expected {expected - left} more bytes. The file might be "
                               "corrupted.\nhint: the legacy checkpoint is truncated")
        if root.data is None:
            root.data = np.empty(expected, np.uint8)  # aligned and writable: CPU tensors are views of it
        _read_exactly(fh, root.data)
        if root.dtype == _C.bool and root.data.size and root.data.max() > 1:
            raise ValueError(f"tandem.load: bool storage {key} holds bytes other than 0 and 1\n"
                             "hint: the file is damaged, or its writer stored booleans another way")
    for key, root in roots.items():
        if root.data is None:  # PyTorch would leave the storage uninitialised
            raise RuntimeError(f"tandem.load: the legacy checkpoint holds no bytes for storage {key}\n"
                               "hint: the file is damaged")


def load(fh, map_location, weights_only, pickle_load_args):
    """Reads a legacy checkpoint from ``fh`` (seekable, at its start) and leaves ``fh`` after its last byte, so
    that several objects saved one after another in one file load one after another."""
    kwargs = {"encoding": "utf-8", **pickle_load_args}

    def header(what):
        return _unpickle(fh, _Inert(fh, **kwargs), what)

    if header("magic number") != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    version = header("protocol version")
    if version != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {version}")
    header("system information")
    start = fh.tell()
    collector = _StorageCollector(fh, **kwargs)
    _unpickle(fh, collector, "object pickle")
    keys = header("list of storage keys")
    _read_storage_bytes(fh, keys, collector.roots)
    end = fh.tell()
    storages = _Storages(collector.roots, map_location)
    fh.seek(start)  # the object pickle again, now that its storages hold their bytes
    unpickler = (_RestrictedLegacyUnpickler if weights_only else _FullLegacyUnpickler)(fh, storages, **kwargs)
    result = unpickler.load()
    fh.seek(end)
    return result


def load_storage_bytes(data):
    """A storage pickled by PyTorch's plain pickle (torch.storage._load_from_bytes): torch.save's legacy format
    holding that one storage, read with weights_only=True. It goes back to the device it was saved on, as with
    PyTorch's torch.load(weights_only=False) without map_location."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError(f"_load_from_bytes: expected bytes, got {type(data).__name__}")
    storage = load(io.BytesIO(data), None, True, {})
    if not isinstance(storage, _Storage):
        raise pickle.UnpicklingError(f"tandem: a pickled PyTorch storage holds a {type(storage).__name__}, not a "
                                     "storage\nhint: the pickle is damaged")
    return storage
