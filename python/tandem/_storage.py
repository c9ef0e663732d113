"""Storages as PyTorch programs use them: Tensor.untyped_storage(), Tensor.storage() (TypedStorage, with
PyTorch's deprecation warning), UntypedStorage/TypedStorage and the legacy FloatStorage & co., is_storage,
and the tensor methods that take or change storage: set_, resize_, resize_as_.

A storage object holds a uint8 tensor over the memory (tandem._C._storage_bytes): that tensor keeps the memory
alive, and element reads and writes go through ordinary ops, so every device works. A storage taken from a
tensor re-reads its memory on each use, so it sees the storage grow when resize_ grows it."""
import os
import warnings

from . import _C
from ._C import Tensor
from ._emulated_queue import settle_queued_kernels as _settle_queued_kernels
from ._out import STRUCTURED, with_out

_TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
    "storage class. This should only matter to you if you are using storages directly.  To access "
    "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
_warned = [False]


def _warn_typed_storage_removal(stacklevel=2):
    """PyTorch's warning: once per process (every time with tandem.set_warn_always(True))."""
    from ._tensor_extras import is_warn_always_enabled  # noqa: PLC0415

    if _warned[0] and not is_warn_always_enabled():
        return
    _warned[0] = True
    warnings.warn(_TYPED_STORAGE_WARNING, UserWarning, stacklevel=stacklevel + 1)


def _device_arg(device):
    return "cpu" if device is None else device


def _byte_index(n, idx):
    idx = idx + n if idx < 0 else idx  # PyTorch names the index after wrapping a negative one
    if idx < 0 or idx >= n:
        raise IndexError(f"index {idx} out of range for storage of size {n}")
    return idx


def _slice_range(n, key):
    start, stop, step = key.indices(n)
    if step != 1:
        raise RuntimeError(f"Trying to slice with a step of {step}, but only a step of 1 is supported")
    return start, max(start, stop)


def _byte_values(sequence):
    """The bytes of UntypedStorage(sequence): ints only, each taken modulo 256 as PyTorch's constructor does."""
    if not isinstance(sequence, (list, tuple, str, bytes, bytearray, range)):
        raise RuntimeError(f"torch.UntypedStorage(): Expected a sequence type, but got {type(sequence).__name__}")
    values = []
    for item in sequence:
        if not isinstance(item, int):
            raise RuntimeError(f"torch.UntypedStorage(): tried to construct a storage from a sequence "
                               f"({type(sequence).__name__}), but one of the items was of type "
                               f"{type(item).__name__} instead of int")
        values.append(int(item) & 0xFF)
    return values


def _check_byte_value(value, what):
    """A byte written into an UntypedStorage: an int (bool too), kept modulo 256 as PyTorch's storages do."""
    if not isinstance(value, int):
        raise RuntimeError(what.format(type(value).__name__))
    return int(value) & 0xFF


class UntypedStorage:
    """Bytes on one device (torch.UntypedStorage): UntypedStorage(n, device=...), UntypedStorage([bytes])."""

    is_sparse = False

    def __init__(self, *args, device=None):
        if not args:
            data = _C._new_storage_bytes(0, _device_arg(device))
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            data = _C._new_storage_bytes(args[0], _device_arg(device))
        elif len(args) == 1:
            from . import tensor, uint8  # noqa: PLC0415

            data = tensor(_byte_values(args[0]), dtype=uint8, device=_device_arg(device)).reshape(-1)
        else:
            raise TypeError("torch.UntypedStorage() received an invalid combination of arguments - got ("
                            + ", ".join(type(a).__name__ for a in args) + "), but expected one of:\n"
                            " * (int size, *, torch.device device)\n * (Sequence data, *, torch.device device)")
        self._data = data
        self._whole = True

    @classmethod
    def _new_shared(cls, size, *, device="cpu"):
        """A new storage of size bytes that other processes can map: on the host a shared memory block (as
        Tensor.share_memory_() uses), on a device an ordinary one (device tensors cross processes by copy)."""
        if _C.device(device).type != "cpu":
            return cls(size, device=device)
        from .multiprocessing import _shared_memory as shm  # noqa: PLC0415  (NumPy and ctypes: only when used)

        block = shm.Block(shm.new_fd(size), size, keep_fd=True)
        data = shm.tensor_over(block, _C.uint8, (size,), (1,), 0)
        return cls._wrap(data, True)

    @classmethod
    def _wrap(cls, data, whole):
        s = cls.__new__(cls)
        s._data = data
        s._whole = whole
        return s

    def _bytes(self):
        """The storage's bytes as a 1-D uint8 tensor (re-read for a whole storage: it may have grown)."""
        return _C._storage_bytes(self._data) if self._whole else self._data

    # --- what programs read ---
    def nbytes(self):
        return self._bytes().numel()

    def size(self):
        return self.nbytes()

    def __len__(self):
        return self.nbytes()

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._bytes().data_ptr()

    @property
    def device(self):
        return self._data.device

    @property
    def is_cuda(self):
        return self._data.device.type == "cuda"

    @property
    def filename(self):
        return None

    def is_shared(self):
        if self.device.type != "cpu":
            return False
        from .multiprocessing import _shared_memory as shm  # noqa: PLC0415

        return shm.block_of(self._bytes()) is not None

    def is_pinned(self, device="cuda"):
        return False

    def type(self, dtype=None, non_blocking=False):
        return "torch.storage.UntypedStorage" if dtype is None else self

    def untyped(self):
        return self

    def tolist(self):
        return self._bytes().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, key):
        data = self._bytes()
        if isinstance(key, slice):
            start, stop = _slice_range(data.numel(), key)
            return UntypedStorage._wrap(data[start:stop], False)
        if not isinstance(key, int) or isinstance(key, bool):  # PyTorch reads with a TypeError, writes RuntimeError
            raise TypeError(f"can't index a torch.UntypedStorage with {type(key).__name__}")
        return int(data[_byte_index(data.numel(), key)].item())

    def __setitem__(self, key, value):
        data = self._bytes()
        if isinstance(key, int):
            if not -data.numel() <= key < data.numel():  # PyTorch's error for a write (a read's is an IndexError)
                raise RuntimeError(f"out of bounds\nhint: index {key} of a storage of {data.numel()} bytes")
            key = _byte_index(data.numel(), key)
        elif not isinstance(key, slice):
            raise RuntimeError(f"can't index a torch.UntypedStorage with {type(key).__name__}")
        data[key] = _check_byte_value(value, "can only set storage content with a int types, but got {} instead")

    # --- what programs change ---
    def fill_(self, value):
        self._bytes().fill_(_check_byte_value(value, "fill_ expects int, but got {}"))
        return self

    def zero_(self):
        return self.fill_(0)

    def copy_(self, source, non_blocking=None):
        if not isinstance(source, (UntypedStorage, TypedStorage)):
            raise TypeError(f"copy_(): argument 'src' (position 1) must be torch.Storage, not "
                            f"{type(source).__name__}")
        src = source._bytes()
        dst = self._bytes()
        if src.numel() != dst.numel():
            raise RuntimeError(f"size does not match, self was {dst.numel()} bytes but src was {src.numel()} bytes")
        dst.copy_(src)
        return self

    def resize_(self, size):
        if not isinstance(size, int) or isinstance(size, bool):
            raise RuntimeError(f"resize_ expects an int, but got {type(size).__name__}")
        if not self._whole:
            raise RuntimeError("Trying to resize storage that is not resizable")
        _C._resize_storage(self._data, size)
        return self

    def clone(self):
        return UntypedStorage._wrap(self._bytes().clone(), True)

    def to(self, *, device=None, non_blocking=False):
        data = self._bytes()
        moved = data.to(device=device, non_blocking=non_blocking)
        return self if moved is data else UntypedStorage._wrap(moved, True)

    def cpu(self):
        return self if self.device.type == "cpu" else self.to(device="cpu")

    def cuda(self, device=None, non_blocking=False):
        target = "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device)
        return self.to(device=target, non_blocking=non_blocking)

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        key = id(self)
        if key not in memo:
            memo[key] = self.clone()
        return memo[key]

    def __repr__(self):
        values = "\n".join(f" {v}" for v in self.tolist())
        head = f"{values}\n" if values else ""
        return f"{head}[torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}]"

    __str__ = __repr__

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """A CPU storage over the file's first nbytes bytes, memory-mapped (safetensors' safe_open reads through
        it): shared=False maps it copy-on-write (writes stay in memory), shared=True writes through, creating or
        growing the file to nbytes."""
        import numpy as np  # noqa: PLC0415  (NumPy's memmap: only when used)

        from . import from_numpy  # noqa: PLC0415

        filename = os.fspath(filename)
        if shared:
            if not os.path.exists(filename) or os.path.getsize(filename) < nbytes:
                with open(filename, "ab") as f:
                    f.truncate(nbytes)
        elif not os.path.exists(filename):
            raise RuntimeError(f"unable to open file <{filename}> in read-only mode: No such file or directory (2)")
        elif os.path.getsize(filename) < nbytes:
            raise RuntimeError(f"file <{filename}> size <{os.path.getsize(filename)}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        if nbytes == 0:
            return cls(0)
        mapped = np.memmap(filename, dtype=np.uint8, mode="r+" if shared else "c", shape=(nbytes,))
        return cls._wrap(from_numpy(mapped), True)

    @classmethod
    def from_buffer(cls, buffer, byte_order="native", count=-1, offset=0, dtype=None):
        from . import uint8, tensor  # noqa: PLC0415

        raw = bytes(memoryview(buffer))[offset:]
        if count >= 0:
            raw = raw[:count]
        return cls._wrap(tensor(list(raw), dtype=uint8), True)


class TypedStorage:
    """Elements of one dtype over an UntypedStorage (torch.TypedStorage, deprecated in PyTorch too)."""

    is_sparse = False
    dtype = None

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal()
        from . import get_default_dtype, tensor  # noqa: PLC0415

        dtype = dtype if dtype is not None else (type(self).dtype or get_default_dtype())
        if wrap_storage is not None:
            if args:
                raise RuntimeError("TypedStorage(): no positional arguments are taken with wrap_storage")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"expected a torch.UntypedStorage for wrap_storage, got {type(wrap_storage).__name__}")
            untyped = wrap_storage
        elif not args:
            untyped = UntypedStorage(0, device=device)
        elif len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {args[0]}")
            untyped = UntypedStorage(args[0] * dtype.itemsize, device=device)
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            values = tensor(list(args[0]), dtype=dtype, device=_device_arg(device)).reshape(-1)
            untyped = UntypedStorage._wrap(_C._storage_bytes(values), True)
        else:
            raise TypeError("TypedStorage(): expected a size (int) or a sequence of values, got "
                            + ", ".join(type(a).__name__ for a in args))
        self.dtype = dtype
        self._untyped_storage = untyped

    @classmethod
    def _wrap(cls, untyped, dtype):
        s = cls.__new__(TypedStorage)
        s.dtype = dtype
        s._untyped_storage = untyped
        return s

    def _bytes(self):
        return self._untyped_storage._bytes()

    def _values(self):
        """The storage's elements as a 1-D tensor of its dtype (the same memory)."""
        data = self._untyped_storage._bytes()
        n = data.numel() // self.dtype.itemsize
        return data[: n * self.dtype.itemsize].view(self.dtype)

    def size(self):
        _warn_typed_storage_removal()
        return self._size()

    def _size(self):
        return self._untyped_storage.nbytes() // self.dtype.itemsize

    def __len__(self):
        _warn_typed_storage_removal()
        return self._size()

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def element_size(self):
        return self.dtype.itemsize

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def untyped(self):
        return self._untyped_storage

    @property
    def device(self):
        return self._untyped_storage.device

    @property
    def is_cuda(self):
        return self._untyped_storage.is_cuda

    def is_shared(self):
        return False

    def is_pinned(self, device="cuda"):
        return False

    def _legacy_name(self):
        return _LEGACY_NAMES.get(self.dtype, "TypedStorage")

    def type(self, dtype=None, non_blocking=False):
        return f"torch.{self._legacy_name()}" if dtype is None else self

    def pickle_storage_type(self):
        return self._legacy_name()

    def tolist(self):
        return self._values().tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, key):
        _warn_typed_storage_removal()
        values = self._values()
        if isinstance(key, slice):
            start, stop = _slice_range(values.numel(), key)
            size = self.dtype.itemsize
            return TypedStorage._wrap(self._untyped_storage[start * size:stop * size], self.dtype)
        if not isinstance(key, int):
            raise RuntimeError(f"can't index a {self.type()} with {type(key).__name__}")
        return values[_byte_index(values.numel(), key)].item()

    def __setitem__(self, key, value):
        _warn_typed_storage_removal()
        values = self._values()
        if isinstance(key, int):
            key = _byte_index(values.numel(), key)
        values[key] = value

    def fill_(self, value):
        self._values().fill_(value)
        return self

    def zero_(self):
        return self.fill_(0)

    def copy_(self, source, non_blocking=None):
        self._untyped_storage.copy_(source)
        return self

    def resize_(self, size):
        self._untyped_storage.resize_(size * self.dtype.itemsize)
        return self

    def clone(self):
        return TypedStorage._wrap(self._untyped_storage.clone(), self.dtype)

    def _to_dtype(self, dtype):
        """A new storage holding the elements converted to dtype (storage.float(), .int(), ...: always a copy)."""
        values = self._values().to(dtype, copy=True)
        return TypedStorage._wrap(UntypedStorage._wrap(_C._storage_bytes(values), True), dtype)

    def byte(self):
        return self._to_dtype(_C.uint8)

    def char(self):
        return self._to_dtype(_C.int8)

    def short(self):
        return self._to_dtype(_C.int16)

    def int(self):
        return self._to_dtype(_C.int32)

    def long(self):
        return self._to_dtype(_C.int64)

    def half(self):
        return self._to_dtype(_C.float16)

    def bfloat16(self):
        return self._to_dtype(_C.bfloat16)

    def float(self):
        return self._to_dtype(_C.float32)

    def double(self):
        return self._to_dtype(_C.float64)

    def bool(self):
        return self._to_dtype(_C.bool)

    def complex_float(self):
        return self._to_dtype(_C.complex64)

    def complex_double(self):
        return self._to_dtype(_C.complex128)

    def cpu(self):
        return TypedStorage._wrap(self._untyped_storage.cpu(), self.dtype)

    def cuda(self, device=None, non_blocking=False):
        return TypedStorage._wrap(self._untyped_storage.cuda(device, non_blocking), self.dtype)

    def to(self, *, device=None, non_blocking=False):
        return TypedStorage._wrap(self._untyped_storage.to(device=device, non_blocking=non_blocking), self.dtype)

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        key = id(self)
        if key not in memo:
            memo[key] = self.clone()
        return memo[key]

    def __repr__(self):
        values = "\n".join(f" {v}" for v in self.tolist())
        head = f"{values}\n" if values else ""
        return (f"{head}[torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) "
                f"of size {self._size()}]")

    __str__ = __repr__


_LEGACY_DTYPES = {
    "ByteStorage": "uint8", "CharStorage": "int8", "ShortStorage": "int16", "IntStorage": "int32",
    "LongStorage": "int64", "HalfStorage": "float16", "FloatStorage": "float32", "DoubleStorage": "float64",
    "BoolStorage": "bool", "BFloat16Storage": "bfloat16", "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
}
_LEGACY_NAMES = {}


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TypedStorage) and obj.dtype == cls.dtype


def _legacy_class(name, dtype):
    def __init__(self, *args, device=None, wrap_storage=None, **kwargs):
        TypedStorage.__init__(self, *args, dtype=dtype, device=device, wrap_storage=wrap_storage, **kwargs)

    return _LegacyStorageMeta(name, (TypedStorage,), {"dtype": dtype, "__init__": __init__,
                                                       "__module__": "tandem"})


LEGACY_STORAGES = {}
for _name, _dtype_name in _LEGACY_DTYPES.items():
    _dtype = getattr(_C, _dtype_name)
    LEGACY_STORAGES[_name] = _legacy_class(_name, _dtype)
    _LEGACY_NAMES[_dtype] = _name


UntypedStorage.__module__ = TypedStorage.__module__ = "tandem.storage"  # where programs import them from


def is_storage(obj):
    """True for a storage object (torch.is_storage)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


# --- Tensor methods ---
def untyped_storage(self):
    return UntypedStorage._wrap(_C._storage_bytes(self), True)


def storage(self):
    _warn_typed_storage_removal(stacklevel=2)
    return TypedStorage._wrap(untyped_storage(self), self.dtype)


def _set_signature_error(args, keywords=()):
    got = ", ".join([f"torch.storage.{type(a).__name__}" if is_storage(a) else type(a).__name__ for a in args]
                    + [f"{name}={type(value).__name__}" for name, value in keywords])
    return TypeError(
        f"set_() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * ()\n * (torch.Storage source)\n"
        " * (torch.Storage source, int storage_offset, tuple of ints size, tuple of ints stride = None)\n"
        " * (Tensor source)\n"
        " * (Tensor source, int storage_offset, tuple of ints size, tuple of ints stride = None)")


def set_(self, source=None, storage_offset=None, size=None, stride=None):
    args = [a for a in (source, storage_offset, size, stride) if a is not None]
    _settle_queued_kernels(self)
    if source is None:
        if args:
            raise _set_signature_error(args)
        return _C._set_empty_(self)
    if storage_offset is not None and size is None:
        raise _set_signature_error(args)
    if storage_offset is None and (size is not None or stride is not None):
        # set_(source, size=...) skips the offset: only keywords can say that, and PyTorch has no such form
        keywords = [(n, v) for n, v in (("size", size), ("stride", stride)) if v is not None]
        raise _set_signature_error([source], keywords)
    if isinstance(source, Tensor):
        if storage_offset is None:
            return _C._set_to_tensor_(self, source)
        if source.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {_C._dtype_cpp_name(source.dtype)} to a tensor of "
                               f"type {_C._dtype_cpp_name(self.dtype)}")
        data = _C._storage_bytes(source)
    elif isinstance(source, TypedStorage):
        if source.dtype != self.dtype:
            raise RuntimeError(f"Expected a Storage of type {_C._dtype_cpp_name(self.dtype)} or an UntypedStorage, "
                               f"but got type {_C._dtype_title(source.dtype)} for argument 1 'storage'")
        data = source._untyped_storage._bytes()
    elif isinstance(source, UntypedStorage):
        data = source._bytes()
    else:
        raise _set_signature_error(args)
    if storage_offset is None:
        return _C._set_to_storage_(self, data, 0, (data.numel() // self.dtype.itemsize,), None)
    if isinstance(storage_offset, bool) or not isinstance(storage_offset, int):
        raise _set_signature_error(args)
    return _C._set_to_storage_(self, data, storage_offset, size, stride)


def _format_strides(self, sizes, memory_format):
    from . import contiguous_format, channels_last, channels_last_3d, preserve_format  # noqa: PLC0415

    if memory_format is None:
        return None  # the same sizes keep the strides (x.t().resize_(x.t().shape) stays transposed)
    if memory_format is contiguous_format:
        strides, acc = [], 1
        for n in reversed(sizes):
            strides.append(acc)
            acc *= max(n, 1)
        return tuple(reversed(strides))
    if memory_format is channels_last or memory_format is channels_last_3d:
        rank = 4 if memory_format is channels_last else 5
        if len(sizes) != rank:
            name = "channels_last" if rank == 4 else "channels_last_3d"
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
        strides = [0] * rank
        strides[1] = 1
        strides[-1] = sizes[1]
        for d in range(rank - 2, 1, -1):
            strides[d] = strides[d + 1] * sizes[d + 1]
        strides[0] = strides[2] * sizes[2]
        return tuple(strides)
    if memory_format is preserve_format:
        raise RuntimeError("Unsupported memory formatPreserve")
    raise TypeError(f"resize_(): argument 'memory_format' must be torch.memory_format, not "
                    f"{type(memory_format).__name__}")


def resize_(self, *sizes, memory_format=None):
    if not sizes:
        raise TypeError('resize_() missing 1 required positional arguments: "size"')
    single = len(sizes) == 1 and (isinstance(sizes[0], int) or (isinstance(sizes[0], Tensor) and sizes[0].dim() == 0
                                                               and not sizes[0].is_floating_point()))
    shape = sizes if single or len(sizes) != 1 else sizes[0]  # a 0-d integer tensor is one size, as an int
    try:
        shape = tuple(int(s.__index__()) for s in shape)
    except (AttributeError, TypeError):
        bad = sizes[0] if len(sizes) == 1 else sizes
        raise TypeError(f"resize_(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(bad).__name__}") from None
    _settle_queued_kernels(self)
    return _C._resize_(self, shape, _format_strides(self, shape, memory_format))


_as_strided_inplace = Tensor.as_strided_


def as_strided_(self, size, stride, storage_offset=None):
    _settle_queued_kernels(self)
    return _as_strided_inplace(self, size, stride, storage_offset)


def resize_as_(self, the_template, memory_format=None):
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' (position 1) must be Tensor, not "
                        f"{type(the_template).__name__}")
    return resize_(self, tuple(the_template.shape), memory_format=memory_format)


def _resize_copy(self, sizes):
    """PyTorch's autograd Resize: the tensor reshaped (a view of it when contiguous), the element count kept."""
    shape = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], int) else tuple(sizes)
    numel = 1
    for n in shape:
        numel *= n
    if numel != self.numel():
        raise RuntimeError(
            f"requested resize to {'x'.join(map(str, shape))} ({numel} elements in total), but the given tensor "
            f"has a size of {'x'.join(map(str, self.shape))} ({self.numel()} elements). autograd's resize can only "
            "change the shape of a given tensor, while preserving the number of elements. ")
    return self.contiguous().view(*shape)


def resize(self, *sizes):
    warnings.warn("non-inplace resize is deprecated", stacklevel=2)
    return _resize_copy(self, sizes)


def resize_as(self, tensor):
    warnings.warn("non-inplace resize_as is deprecated", stacklevel=2)
    return _resize_copy(self, (tuple(tensor.shape),))


def _resize_as_function(input, the_template, memory_format=None):  # noqa: A002
    return resize_as_(input, the_template, memory_format=memory_format)


def storage_type(self):
    """The legacy storage class of the tensor's dtype (tandem.FloatStorage for float32)."""
    return LEGACY_STORAGES[_LEGACY_NAMES[self.dtype]]


@with_out("as_strided_copy", STRUCTURED)
def as_strided_copy(input, size, stride, storage_offset=None):  # noqa: A002
    return input.as_strided(size, stride, storage_offset).clone()


def install(namespace):
    """Adds the storage classes and functions to the tandem namespace and the methods to Tensor."""
    namespace.update(UntypedStorage=UntypedStorage, TypedStorage=TypedStorage, is_storage=is_storage,
                     resize_as_=_resize_as_function, as_strided_copy=as_strided_copy, **LEGACY_STORAGES)
    Tensor.untyped_storage = untyped_storage
    Tensor.storage = storage
    Tensor.set_ = set_
    Tensor.as_strided_ = as_strided_
    Tensor.resize_ = resize_
    Tensor.resize_as_ = resize_as_
    Tensor.resize = resize
    Tensor.storage_type = storage_type
    Tensor.resize_as = resize_as
