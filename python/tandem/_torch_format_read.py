"""tandem.load of PyTorch's zip checkpoints (the layout is described in _torch_format), written by torch.save
or by tandem.save.

With weights_only=True (the default, as in PyTorch >= 2.6) the pickle may name only the globals in
``_ALLOWED`` (tensor and Parameter rebuilds, storage types, dtypes, Size, device, OrderedDict, a few
builtins, NumPy arrays and scalars) and those the user allowed with add_safe_globals: everything else is
refused before it is imported or called. weights_only=False unpickles anything, as pickle does, which
runs whatever code the file names; torch.* names resolve to tandem's.
"""
import _compat_pickle
import importlib
import io
import pickle
import struct
import zipfile
import zlib
from collections import Counter, OrderedDict

import numpy as np

from . import _C
from ._C import Tensor
from ._numpy import from_numpy
from ._size import Size
from ._quantized_types import QSCHEMES, QUANTIZED_DTYPES
from ._torch_format import (DTYPES, STORAGE_TYPES, UNTYPED_STORAGE, StorageType, dtype_name, restore_device,
                            user_allowed_globals)
from ._tensor_state import set_state
from .nn.parameter import Parameter


class _Storage:
    """A storage read from the archive: its bytes (a writable, aligned NumPy buffer that the CPU tensors built
    from it share, so views saved together stay views), its dtype, and the device it is restored to."""

    def __init__(self, data, dtype, device):
        self.data, self.dtype, self.device = data, dtype, device
        self._flat = {}

    def flat(self, dtype, itemsize, numpy_dtype):
        """The whole storage as one 1-d tensor of ``dtype`` on the storage's device, made once: every tensor
        saved over this storage is a strided view of it, so views saved together stay views of one memory
        (with their storage offsets) on any map_location, as in PyTorch."""
        if dtype not in self._flat:
            count = self.data.nbytes // itemsize  # an UntypedStorage's bytes may not fill the last element
            if numpy_dtype is not None:
                t = from_numpy(self.data[:count * itemsize].view(numpy_dtype))
            else:  # bfloat16, which NumPy lacks: the elements are copied
                t = _C._tensor_from_bytes(np.ascontiguousarray(self.data[:count * itemsize]), 0, dtype, [count])
            self._flat[dtype] = t.to(self.device) if self.device.type != "cpu" else t
        return self._flat[dtype]

    def __repr__(self):
        return f"<a PyTorch storage of {self.data.nbytes} bytes: tandem has no storage objects, only tensors>"


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _build(storage, offset, size, stride, requires_grad, dtype=None):
    """A tensor over ``storage`` at ``offset`` with ``size`` and ``stride``, in elements of ``dtype`` (by
    default the storage's)."""
    if not isinstance(storage, _Storage):
        raise TypeError(f"tandem.load: a tensor in the file is rebuilt from a {type(storage).__name__}, "
                        "not a storage\nhint: the file is damaged")
    dtype = storage.dtype if dtype is None else dtype
    if not (_is_int(offset) and offset >= 0 and isinstance(size, tuple) and isinstance(stride, tuple)
            and len(size) == len(stride) and all(_is_int(n) and n >= 0 for n in size + stride)):
        raise ValueError(f"tandem.load: invalid tensor geometry in the file: offset {offset!r}, size {size!r}, "
                         f"stride {stride!r}\nhint: the file is damaged")
    name = dtype_name(dtype)
    _, itemsize, numpy_dtype = DTYPES[name]
    numel = 1
    for n in size:
        numel *= n
    if numel >= 2**63:
        raise ValueError(f"tandem.load: a tensor of size {list(size)} has more elements than int64 can count")
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if numel else 0
    if needed * itemsize > storage.data.nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed * itemsize} are out of bounds "
                           f"for storage of size {storage.data.nbytes}")
    if numel == 0:
        t = _C.empty(list(size), dtype=dtype, device=storage.device)
    else:
        t = storage.flat(dtype, itemsize, numpy_dtype).as_strided(list(size), list(stride), offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _build(storage, storage_offset, size, stride, False)


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    # backward_hooks and metadata (conjugate/negative bits) are dropped: torch.save writes neither for
    # real-valued tensors.
    return _build(storage, storage_offset, size, stride, requires_grad)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"tandem.load: a tensor in the file has dtype {dtype!r}\nhint: the file is damaged")
    return _build(storage, storage_offset, size, stride, requires_grad, dtype)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    if not isinstance(data, Tensor):
        raise TypeError(f"tandem.load: a Parameter in the file wraps a {type(data).__name__}, not a tensor")
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    attributes, slots = state if isinstance(state, tuple) else (state, None)
    for part in (attributes, slots):
        for key, value in (part or {}).items():
            if not isinstance(key, str) or key.startswith("__"):
                raise pickle.UnpicklingError(f"tandem.load: invalid Parameter attribute {key!r} in the file")
            setattr(param, key, value)
    return param


def _rebuild_from_type_v2(func, new_type, args, state):
    """A tensor subclass instance, or a tensor with Python attributes: func(*args) made a `new_type` (a Tensor
    subclass) and given `state` back (its own __setstate__, or the attributes and slots set)."""
    if not (isinstance(new_type, type) and issubclass(new_type, Tensor)):
        raise pickle.UnpicklingError(f"tandem.load: a tensor in the file has the class {new_type!r}, which is not a "
                                     "Tensor subclass")
    result = func(*args)
    if type(result) is not new_type:
        result = result.as_subclass(new_type)
    set_state(result, state)
    return result


def _get_layout(name):
    """torch.serialization._get_layout: tandem's layout of that name (torch.save pickles a layout as
    _get_layout("torch.strided")); a layout tandem lacks stays its name, which _rebuild_sparse_tensor refuses."""
    from . import _layouts  # noqa: PLC0415
    found = getattr(_layouts, name[len("torch."):], None) if isinstance(name, str) and name.startswith("torch.") \
        else None
    return found if isinstance(found, _layouts.layout) else name


def _rebuild_sparse_tensor(layout, data):
    """A sparse COO tensor from torch.save's (indices, values, size[, is_coalesced]), or a CSR one from
    (crow_indices, col_indices, values, size); the layout arrives from _get_layout (its name when tandem lacks
    it). The indices are checked as tandem.sparse_coo_tensor / sparse_csr_tensor always check them."""
    if not isinstance(layout, str):
        layout = repr(layout).replace("tandem.", "torch.", 1)
    if layout not in ("torch.sparse_coo", "torch.sparse_csr"):
        raise NotImplementedError(f"tandem.load: the file holds a sparse tensor of layout {layout}, which tandem "
                                  "does not support\nhint: convert it in PyTorch to COO (.to_sparse_coo()) or to a "
                                  "dense tensor before saving")
    if not isinstance(data, tuple) or len(data) not in ((4,) if layout == "torch.sparse_csr" else (3, 4)):
        raise pickle.UnpicklingError("tandem.load: a sparse tensor in the file is damaged")
    from .sparse import _construct, _csr_construct  # noqa: PLC0415  (tandem.sparse imports this module's users)

    if layout == "torch.sparse_csr":
        return _csr_construct.sparse_csr_tensor(*data, check_invariants=False)  # as PyTorch's rebuild: no warning
    return _construct.sparse_coo_tensor(data[0], data[1], data[2], check_invariants=False,
                                        is_coalesced=data[3] if len(data) == 4 else None)


def _rebuild_meta_tensor(dtype, size, stride, requires_grad):
    """A meta tensor (saved without a storage): its dtype and geometry."""
    if not (isinstance(dtype, _C.dtype) and isinstance(requires_grad, bool) and isinstance(size, tuple)
            and isinstance(stride, tuple) and all(_is_int(v) for v in (*size, *stride))):
        raise pickle.UnpicklingError("tandem.load: a meta tensor in the file is damaged")
    from . import empty_strided  # noqa: PLC0415  (tandem's package imports this module)
    return empty_strided(size, stride, dtype=dtype, device="meta", requires_grad=requires_grad)


def _unsupported(what):
    def refuse(*args, **kwargs):
        raise NotImplementedError(f"tandem.load: the file holds {what}, which tandem does not support\n"
                                  "hint: convert it in PyTorch to a dense tensor of a tandem dtype before saving")
    return refuse


def _latin1_encode(text, encoding):
    # Protocol 2 pickles bytes as _codecs.encode(str, "latin1"); that is the only use allowed.
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError(f"tandem.load: _codecs.encode is only allowed for latin1 text, not {encoding!r}")
    return text.encode("latin1")


_NUMPY_RECONSTRUCT = np.empty(0).__reduce__()[0]
_NUMPY_SCALAR = np.float64(0).__reduce__()[0]


def _numpy_reconstruct(subtype, shape, dtype):
    if subtype is not np.ndarray:  # a subclass could run its own code
        raise pickle.UnpicklingError(f"tandem.load: only numpy.ndarray is rebuilt, not {subtype!r}")
    return _NUMPY_RECONSTRUCT(subtype, shape, dtype)


def _build_allowed_globals():
    allowed = {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
        "builtins.set": set, "builtins.bytearray": bytearray, "builtins.complex": complex,
        "_codecs.encode": _latin1_encode,
        "torch.Size": Size, "torch.device": _C.device, "torch.nn.parameter.Parameter": Parameter,
        "torch._utils._rebuild_tensor": _rebuild_tensor, "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3, "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_sparse_tensor": _rebuild_sparse_tensor,
        "torch._utils._rebuild_meta_tensor_no_storage": _rebuild_meta_tensor,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2, "torch.Tensor": Tensor,
        "torch.storage.UntypedStorage": UNTYPED_STORAGE, "torch.UntypedStorage": UNTYPED_STORAGE,
        "numpy.ndarray": np.ndarray, "numpy.dtype": np.dtype,
        # A layout (a sparse tensor's comes first: _rebuild_sparse_tensor checks it).
        "torch.serialization._get_layout": _get_layout,
    }
    allowed.update({f"torch.{name}": getattr(_C, name) for name in DTYPES})
    allowed.update({f"torch.{name}": storage for name, storage in STORAGE_TYPES.items()})
    # The quantized dtypes and schemes: names a dynamically quantized model's state_dict holds (weights_only allows
    # them in PyTorch too).
    allowed.update({f"torch.{obj!r}".replace("tandem.", ""): obj for obj in QUANTIZED_DTYPES + QSCHEMES})
    for module in ("numpy.core.multiarray", "numpy._core.multiarray"):  # NumPy 1.x and 2.x names
        allowed[f"{module}._reconstruct"] = _numpy_reconstruct
        allowed[f"{module}.scalar"] = _NUMPY_SCALAR
    # Rebuilds PyTorch allows for tensors tandem does not have: a clear error when called.
    for name, what in [
            ("_utils._rebuild_qtensor", "a quantized tensor"),
            ("_utils._rebuild_nested_tensor", "a nested tensor"),
            ("_utils._rebuild_wrapper_subclass", "a tensor subclass"),
            ("_utils._rebuild_device_tensor_from_numpy", "a tensor of a device tandem does not have")]:
        allowed[f"torch.{name}"] = _unsupported(what)
    return allowed


_ALLOWED = _build_allowed_globals()

_UNSAFE_MESSAGE = (  # PyTorch's text, which users search for
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to "
    "`True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
    "arbitrary code execution. Do it only if you got the file from a trusted source.")


def _weights_only_error(full):
    shown = full[len("builtins."):] if full.startswith("builtins.") else full
    message = (
        "Weights only load failed. This file can still be loaded, to do so you have two options, \033[1mdo those "
        "steps only if you trust the source of the checkpoint\033[0m. \n\t(1) " + _UNSAFE_MESSAGE + "\n\t(2) "
        "Alternatively, to load with `weights_only=True` please check the recommended steps in the following "
        f"error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {shown} was not an allowed global "
        f"by default. Please use `torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this global if you trust "
        "this class/function.\n\nCheck the documentation of torch.load to learn more about types accepted by "
        "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")
    if full.startswith("torch."):
        message += f"\nhint: tandem has no equivalent of {full}, so this file cannot be loaded by tandem as it is"
    return pickle.UnpicklingError(message)


class _ReadsStorages:
    """What both unpicklers add: the storages the pickle names by persistent id, and Python 3 names."""

    def __init__(self, file, archive, **kwargs):
        super().__init__(file, **kwargs)
        self._archive = archive

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] in ("storage", b"storage")):
            raise pickle.UnpicklingError(f"Unknown typename for persistent_load, expected 'storage' but got "
                                         f"{pid[0] if isinstance(pid, tuple) and pid else pid!r}")
        _, storage_type, key, location, numel = pid
        if not (isinstance(storage_type, StorageType) and isinstance(key, str) and isinstance(location, str)
                and _is_int(numel) and numel >= 0):
            raise pickle.UnpicklingError(f"tandem.load: invalid storage reference {pid!r} in the file")
        return self._archive.storage(key, storage_type.dtype, location, numel)

    @staticmethod
    def _py3_name(module, name):
        # Protocol 2 pickles carry Python 2 names for some builtins (__builtin__.set).
        if (module, name) in _compat_pickle.NAME_MAPPING:
            return _compat_pickle.NAME_MAPPING[(module, name)]
        return _compat_pickle.IMPORT_MAPPING.get(module, module), name


class _RestrictedUnpickler(_ReadsStorages, pickle._Unpickler):
    """weights_only=True. The pure-Python unpickler, because restricting find_class is not enough: the C one
    would also let BUILD set attributes on any object it holds (an allowed class or function, altering it for
    the whole process). Here find_class resolves allowed names only, REDUCE and NEWOBJ call allowed globals
    only, and BUILD sets state only on OrderedDicts (a state_dict's _metadata), NumPy arrays and dtypes, and
    instances of classes the user allowed."""

    dispatch = dict(pickle._Unpickler.dispatch)

    def __init__(self, file, archive, **kwargs):
        super().__init__(file, archive, **kwargs)
        user = user_allowed_globals()
        self._allowed = {**_ALLOWED, **user}
        self._allowed_ids = {id(v) for v in self._allowed.values()}  # all alive: the dict holds them
        self._buildable = (np.dtype,) + tuple(v for v in user.values() if isinstance(v, type))

    def find_class(self, module, name):
        module, name = self._py3_name(module, name)
        full = f"{module}.{name}"
        if full not in self._allowed:
            raise _weights_only_error(full)
        return self._allowed[full]

    def _check_callable(self, func, opcode):
        if id(func) not in self._allowed_ids:
            raise pickle.UnpicklingError(f"tandem.load: {opcode} of {func!r}, which is not an allowed global")

    def load_reduce(self):
        self._check_callable(self.stack[-2], "REDUCE")
        super().load_reduce()

    def load_newobj(self):
        self._check_callable(self.stack[-2], "NEWOBJ")
        super().load_newobj()

    def load_newobj_ex(self):
        self._check_callable(self.stack[-3], "NEWOBJ_EX")
        super().load_newobj_ex()

    def load_build(self):
        inst = self.stack[-2]
        if not (type(inst) in (OrderedDict, np.ndarray) or isinstance(inst, self._buildable)):
            what = f"the class {inst.__qualname__}" if isinstance(inst, type) else f"a {type(inst).__name__}"
            raise pickle.UnpicklingError(f"tandem.load: the file sets the state of {what}, which "
                                         "weights_only=True does not allow")
        super().load_build()

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex
    dispatch[pickle.BUILD[0]] = load_build


class _FullUnpickler(_ReadsStorages, pickle.Unpickler):
    """weights_only=False: anything pickle can load (running what the file names), torch names as tandem's."""

    def find_class(self, module, name):
        full = ".".join(self._py3_name(module, name))
        if full in _ALLOWED:
            return _ALLOWED[full]
        if module == "torch" or module.startswith("torch."):
            try:
                return getattr(importlib.import_module("tandem" + module[len("torch"):]), name)
            except (ImportError, AttributeError):
                raise pickle.UnpicklingError(f"tandem.load: the file refers to {module}.{name}, which tandem has "
                                             "no equivalent of") from None
        return super().find_class(module, name)


# What zipfile raises on a damaged archive besides BadZipFile: offsets that point before the file's start
# (ValueError "negative seek value"), unknown compression methods, bad deflate streams, undecodable names.
_ZIP_ERRORS = (zipfile.BadZipFile, EOFError, OSError, ValueError, NotImplementedError, OverflowError, zlib.error,
               UnicodeDecodeError, struct.error)


# What PyTorch appends to its zip reader's (miniz's) errors, on the same line.
_MINIZ_NOTE = (". This is an internal miniz error. If you are seeing this error, there is a high likelihood that your "
               "checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, was "
               "transferred incorrectly, or the file was modified after saving.")


def _stream_error(what, detail):
    note = _MINIZ_NOTE if detail == "failed finding central directory" else ""
    return RuntimeError(f"PytorchStreamReader failed {what}: {detail}{note}\n"
                        "hint: the file is truncated or damaged; save it again")


class _Archive:
    """The zip archive: its top folder, byte order, and the storages read so far (by key)."""

    def __init__(self, zf, map_location):
        self._zf, self._map_location, self._storages = zf, map_location, {}
        names = zf.namelist()
        if not names or "/" not in names[0]:
            raise _stream_error("reading zip archive", "file in archive is not in a subdirectory: "
                                f"{names[0] if names else '(the archive is empty)'}")
        self.prefix = names[0].split("/", 1)[0] + "/"
        if self.prefix + "constants.pkl" in names:
            raise RuntimeError("tandem.load: the file is a TorchScript archive (torch.jit.save), which holds code "
                               "tandem cannot run\nhint: in PyTorch, torch.save(torch.jit.load(f).state_dict(), "
                               "path) writes its weights in a form tandem.load reads")
        if self.prefix + "data.pkl" not in names:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found\nhint: this zip "
                               f"archive is not a torch.save checkpoint; it holds {', '.join(names[:5])}"
                               f"{', ...' if len(names) > 5 else ''}")
        self.byteorder = "little"  # PyTorch's default for files without the record
        if self.prefix + "byteorder" in names:
            self.byteorder = self.read("byteorder").decode("ascii", "replace")
            if self.byteorder not in ("little", "big"):
                raise ValueError("Unknown endianness type: " + self.byteorder)

    def read(self, name):
        try:
            return self._zf.read(self.prefix + name)
        except _ZIP_ERRORS as e:
            raise _stream_error(f"reading file {name}", e) from None

    def storage(self, key, dtype, location, numel):
        if key in self._storages:
            return self._storages[key]
        name = f"data/{key}"
        _, itemsize, _ = DTYPES[dtype_name(dtype)]
        try:
            info = self._zf.getinfo(self.prefix + name)
        except KeyError:
            raise _stream_error(f"locating file {name}", "file not found") from None
        if info.file_size != numel * itemsize:
            raise RuntimeError(f"tandem.load: record {name} holds {info.file_size} bytes, but the checkpoint "
                               f"describes {numel} elements of {dtype_name(dtype)} ({numel * itemsize} bytes)\n"
                               "hint: the file is damaged")
        data = np.empty(info.file_size, np.uint8)  # aligned and writable, unlike the bytes zipfile returns
        try:
            with self._zf.open(info) as record:
                got = record.readinto(memoryview(data))  # zipfile checks the CRC on reaching the end
        except _ZIP_ERRORS as e:
            raise _stream_error(f"reading file {name}", e) from None
        if got != info.file_size:
            raise _stream_error(f"reading file {name}", f"{got} of {info.file_size} bytes")
        if self.byteorder == "big" and itemsize > 1:
            data.view(f"u{itemsize}").byteswap(inplace=True)
        if dtype == _C.bool and data.size and data.max() > 1:
            raise ValueError(f"tandem.load: bool storage {name} holds bytes other than 0 and 1\n"
                             "hint: the file is damaged, or its writer stored booleans another way")
        storage = _Storage(data, dtype, restore_device(self._map_location, location))
        self._storages[key] = storage
        return storage


def load(fileobj, map_location, weights_only, pickle_load_args):
    """Reads a checkpoint from ``fileobj`` (seekable, at the archive's start)."""
    try:
        zf = zipfile.ZipFile(fileobj)
    except _ZIP_ERRORS:
        raise _stream_error("reading zip archive", "failed finding central directory") from None
    with zf:
        archive = _Archive(zf, map_location)
        # the keywords PyTorch's unpickler takes (its weights_only one: encoding only), refused in its words
        takes = ("encoding",) if weights_only else ("encoding", "errors", "fix_imports", "buffers")
        for key in pickle_load_args:
            if key not in takes:
                raise TypeError(f"Unpickler.__init__() got an unexpected keyword argument '{key}'" if weights_only
                                else f"'{key}' is an invalid keyword argument for Unpickler()")
        unpickler = (_RestrictedUnpickler if weights_only else _FullUnpickler)(
            io.BytesIO(archive.read("data.pkl")), archive, **{"encoding": "utf-8", **pickle_load_args})
        try:
            return unpickler.load()
        except (IndexError, KeyError, struct.error) as e:  # the pickle machine's own stack, memo or opcodes
            raise pickle.UnpicklingError(f"tandem.load: data.pkl is damaged ({type(e).__name__}: {e})") from None
