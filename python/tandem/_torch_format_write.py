"""tandem.save in PyTorch's zip format (the layout is described in _torch_format) or its legacy format (in
_torch_legacy_read). tandem's tensors, Parameters, Sizes, devices and dtypes are pickled under PyTorch's names,
so ``torch.load(f, weights_only=True)`` reads them as torch objects; everything else is pickled as ``pickle``
does, as torch.save does."""
import io
import pickle
import struct
import types
import zipfile
from collections import OrderedDict

import numpy as np

from . import _C
from ._C import Tensor
from ._quantized_types import _QuantizedDType, qscheme
from ._size import Size
from ._layouts import is_sparse_tensor, layout
from ._tensor_state import get_state, has_state
from ._torch_format import (DTYPES, GET_LAYOUT, REBUILD_FROM_TYPE_V2, REBUILD_META_TENSOR, REBUILD_PARAMETER,
                            REBUILD_PARAMETER_WITH_STATE, REBUILD_SPARSE_TENSOR, REBUILD_TENSOR_V2, REBUILD_TENSOR_V3,
                            STORAGE_ALIGNMENT, STORAGE_TYPES, TORCH_DEVICE, TORCH_SIZE, TORCH_TENSOR, UNTYPED_STORAGE,
                            VERSION_RECORD, TorchName, dtype_name)
from ._torch_format import LEGACY_MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION, LEGACY_SYS_INFO
from .nn.parameter import Parameter
from .sparse import SparseCooTensor, SparseCsrTensor


class _SavedStorage:
    """One storage of the file: elements [lo, hi) of a tandem storage, the span its saved views read. PyTorch
    writes a view's whole storage; tandem's tensors do not expose theirs, and the span is all a view needs."""

    def __init__(self, first, span):
        self.dtype, self.location = first.dtype, str(first.device)
        self.views = {}  # (offset, shape, stride) -> a tensor with that geometry
        self.lo, self.hi = span
        self.key = None  # given when the real pickle first refers to it, in that order (as torch.save)
        self.add(first, span)

    def add(self, t, span):
        self.views.setdefault((t.storage_offset(), tuple(t.shape), tuple(t.stride())), t)
        self.lo, self.hi = min(self.lo, span[0]), max(self.hi, span[1])

    def numel(self):
        """The size the file gives: in elements, or in bytes for an UntypedStorage."""
        storage, itemsize, _ = DTYPES[dtype_name(self.dtype)]
        return (self.hi - self.lo) * (1 if storage else itemsize)

    def persistent_id(self, legacy):
        storage = DTYPES[dtype_name(self.dtype)][0]
        # uint16..64 have no typed storage: an UntypedStorage, and the tensor names its dtype
        storage_type = STORAGE_TYPES[storage] if storage else UNTYPED_STORAGE
        pid = ("storage", storage_type, self.key, self.location, self.numel())
        return pid + (None,) if legacy else pid  # the legacy format's view_metadata: None, not a storage view

    def payload(self):
        """The span's bytes, copied to the host."""
        n = self.hi - self.lo
        for t in self.views.values():
            if t.numel() == n and t.is_contiguous():
                return _C._tensor_bytes(t)  # one view reads the whole span
        # Views that each read part of the span (a slice and a transpose, say): each one's elements go to
        # their places in the span. Where views overlap they hold the same values, and a gap stays zero.
        size = DTYPES[dtype_name(self.dtype)][1]
        out = np.zeros(n * size, np.uint8)
        elements = out.view(f"u{size}")
        for t in self.views.values():
            source = np.frombuffer(_C._tensor_bytes(t), elements.dtype).reshape(t.shape)
            target = np.lib.stride_tricks.as_strided(elements[t.storage_offset() - self.lo:], t.shape,
                                                     [s * size for s in t.stride()])
            target[...] = source
        return memoryview(out)


def _span(t):
    """[first, last + 1): the storage elements a non-empty tensor reads."""
    first = t.storage_offset()
    return first, first + sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1


class _StorageTable:
    """The storages of the tensors being saved: views of one tandem storage share one storage in the file.
    A first pickling pass sees every tensor (a storage's span must be known before the pickle names it),
    the second names the storages."""

    def __init__(self):
        self._by_start = {}  # (device, dtype, address of element 0) -> [_SavedStorage]
        self.written = []  # in key order

    def _find(self, t):
        start = t.data_ptr() - t.storage_offset() * t.element_size()
        candidates = self._by_start.setdefault((str(t.device), t.dtype, start), [])
        # Same device and address: the same storage, unless two storages wrap one buffer (from_numpy twice).
        return next((s for s in candidates if next(iter(s.views.values()))._is_view_of(t)), None), candidates

    def add(self, t):
        if t.numel():
            found, candidates = self._find(t)
            if found is None:
                candidates.append(_SavedStorage(t, _span(t)))
            else:
                found.add(t, _span(t))

    def reference(self, t):
        """(storage, offset in it) for the second pass."""
        if t.numel():
            span = _span(t)
            storage, _ = self._find(t)
            if storage is None or span[0] < storage.lo or span[1] > storage.hi:
                storage = _SavedStorage(t, span)  # made during pickling (by some __reduce__): not seen before
            offset = t.storage_offset() - storage.lo
        else:
            storage, offset = _SavedStorage(t, (0, 0)), 0  # no bytes to share: a storage of its own
        if storage.key is None:
            storage.key = str(len(self.written))
            self.written.append(storage)
        return storage, offset


class _Pickler(pickle._Pickler):
    """The pure-Python pickler: its save_global can write a global by name (torch._utils._rebuild_tensor_v2)
    without importing it, which the C pickler's checks would require."""

    # Functions pickle through this class's save_global (the base table holds the base class's own)
    dispatch = {**pickle._Pickler.dispatch, types.FunctionType: lambda self, obj: self.save_global(obj)}

    def __init__(self, file, protocol, on_tensor, legacy):
        super().__init__(file, protocol)
        self._on_tensor = on_tensor  # tensor -> (storage, offset) to pickle
        self._legacy = legacy

    def persistent_id(self, obj):
        return obj.persistent_id(self._legacy) if isinstance(obj, _SavedStorage) else None

    def reducer_override(self, obj):
        if isinstance(obj, Parameter):
            data = obj.detach()
            state = vars(obj)
            if state:
                return REBUILD_PARAMETER_WITH_STATE, (data, obj.requires_grad, OrderedDict(), dict(state))
            return REBUILD_PARAMETER, (data, obj.requires_grad, OrderedDict())
        # Sparse tensors are Tensors, over a placeholder that holds no data: they are written as their parts.
        if type(obj) is SparseCooTensor:  # its indices and values pickle as tensors, as torch.save writes them
            return REBUILD_SPARSE_TENSOR, (obj.layout, (obj._indices(), obj._values(), obj.size(),
                                                        obj.is_coalesced()))
        if type(obj) is SparseCsrTensor:  # torch.save's form: (crow_indices, col_indices, values, size)
            return REBUILD_SPARSE_TENSOR, (obj.layout, (obj.crow_indices(), obj.col_indices(), obj.values(),
                                                        obj.size()))
        if is_sparse_tensor(obj):  # another layout (CSC): its placeholder must never be written as the data
            raise NotImplementedError(f"tandem.save of a {obj.layout} tensor is not supported\nhint: save "
                                      "t.to_sparse_csr() (or t.to_dense()) instead")
        if isinstance(obj, Tensor):
            if obj.is_meta:  # no values: its geometry only, as torch.save writes it
                rebuild = REBUILD_META_TENSOR
                args = (obj.dtype, tuple(obj.shape), tuple(obj.stride()), obj.requires_grad)
            else:
                storage, offset = self._on_tensor(obj)
                # The empty OrderedDict: backward hooks, which torch.save never writes either.
                args = (storage, offset, tuple(obj.shape), tuple(obj.stride()), obj.requires_grad, OrderedDict())
                rebuild = REBUILD_TENSOR_V2
                if DTYPES[dtype_name(obj.dtype)][0] is None:  # no typed storage: v3 names the dtype, as torch.save
                    rebuild, args = REBUILD_TENSOR_V3, args + (obj.dtype,)
            state = get_state(obj)
            if type(obj) is not Tensor or has_state(state):  # the class and the Python state too, as torch.save
                return REBUILD_FROM_TYPE_V2, (rebuild, type(obj) if type(obj) is not Tensor else TORCH_TENSOR,
                                              args, state)
            return rebuild, args
        if isinstance(obj, layout):
            return GET_LAYOUT, (f"torch.{obj._name}",)
        if isinstance(obj, Size):
            return TORCH_SIZE, (tuple(obj),)
        if isinstance(obj, _C.device):
            return TORCH_DEVICE, (obj.type,) if obj.index is None else (obj.type, obj.index)
        if isinstance(obj, _C.dtype):
            return dtype_name(obj)  # a string: "save as a global", torch.float32
        return NotImplemented

    def save_global(self, obj, name=None):
        if isinstance(obj, _C.dtype) or isinstance(obj, (_QuantizedDType, qscheme)):
            module, name = "torch", dtype_name(obj)
        elif isinstance(obj, TorchName):
            module, name = obj.module, obj.name
        else:
            try:
                return super().save_global(obj, name)
            except pickle.PicklingError:
                # torch.save pickles with the C pickler, whose errors differ (a local function is its
                # AttributeError "Can't pickle local object"): pickle the same global with it for its error
                pickle.dumps(obj, protocol=self.proto)
                raise
        if self.proto >= 4:
            self.save(module)
            self.save(name)
            self.write(pickle.STACK_GLOBAL)
        else:
            self.write(pickle.GLOBAL + f"{module}\n{name}\n".encode())
        self.memoize(obj)


class _Discard:
    def write(self, data):
        return len(data)


class _AppendOnly:
    """The destination as zipfile sees it: tell() but no seek(), so zipfile follows each record with a data
    descriptor instead of seeking back to its header, as PyTorch's writer (miniz) does."""

    def __init__(self, f):
        self._f, self._written = f, 0

    def write(self, data):
        self._f.write(data)
        self._written += memoryview(data).nbytes
        return memoryview(data).nbytes

    def tell(self):
        return self._written

    def flush(self):
        if hasattr(self._f, "flush"):
            self._f.flush()


class Checkpoint:
    """An object pickled for torch's format, ready to be written; pickling errors happen here, before the
    destination is touched."""

    def __init__(self, obj, protocol, legacy=False):
        self._storages = _StorageTable()
        self._protocol = protocol
        _Pickler(_Discard(), protocol, self._seen, legacy).dump(obj)
        data = io.BytesIO()
        _Pickler(data, protocol, self._storages.reference, legacy).dump(obj)
        self._pickle = data.getvalue()

    def _seen(self, t):
        self._storages.add(t)
        return None, 0  # this pass's output is discarded

    def write(self, f, archive, byteorder_record=True):
        out = _AppendOnly(f)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zf:
            def record(name, payload):
                full = f"{archive}/{name}"
                big = memoryview(payload).nbytes > zipfile.ZIP64_LIMIT
                # zipfile's local header: 30 bytes, the name, our extra field, and 20 bytes of zip64 sizes for
                # a big record. The extra field pads it so the data starts at a multiple of 64, as PyTorch's
                # records do (torch.load(mmap=True) maps storages straight from the file).
                header = 30 + len(full.encode()) + 4 + (20 if big else 0)
                pad = -(out.tell() + header) % STORAGE_ALIGNMENT
                info = zipfile.ZipInfo(full)
                info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # "FB", PyTorch's padding field
                with zf.open(info, "w", force_zip64=big) as w:
                    w.write(payload)

            record("data.pkl", self._pickle)
            record(".format_version", b"1")
            record(".storage_alignment", str(STORAGE_ALIGNMENT).encode())
            if byteorder_record:
                record("byteorder", b"little")
            for storage in self._storages.written:
                record(f"data/{storage.key}", storage.payload() if storage.hi > storage.lo else b"")
            record("version", VERSION_RECORD)

    def write_legacy(self, f):
        """torch.save's legacy format (described in _torch_legacy_read), for a Checkpoint made with legacy=True."""
        for header in (LEGACY_MAGIC_NUMBER, LEGACY_PROTOCOL_VERSION, LEGACY_SYS_INFO):
            pickle.dump(header, f, protocol=self._protocol)
        f.write(self._pickle)
        pickle.dump([storage.key for storage in self._storages.written], f, protocol=self._protocol)
        for storage in self._storages.written:
            f.write(struct.pack("<q", storage.numel()))
            if storage.hi > storage.lo:
                f.write(storage.payload())
