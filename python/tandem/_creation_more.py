"""torch.empty_strided, torch.frombuffer and torch.asarray: tensors over memory that already exists (NumPy
arrays, Python buffers, DLPack producers, other tensors), shared unless a copy is asked for or needed."""
import math
import sys
import warnings

from . import _C, _creation_args
from ._compositions import _name
from ._dim_args import _ints, _parser_type_name
from ._finfo import _PYTHON_TYPES

Tensor = _C.Tensor
_MISSING = object()  # a required argument not given: PyTorch's parser words that TypeError its own way


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    for value, what in ((size, "'size' (position 1)"), (stride, "'stride' (position 2)")):
        if not isinstance(value, (tuple, list)):  # PyTorch takes no bare int here (Size is a tuple)
            raise TypeError(f"empty_strided(): argument {what} must be tuple of ints, not "
                            f"{_parser_type_name(value)}")
    dtype = _creation_args.factory_options("empty_strided", dtype, layout, device, pin_memory, requires_grad)
    size = _ints(size, "empty_strided(): argument 'size' (position 1)")
    stride = _ints(stride, "empty_strided(): argument 'stride' (position 2)")
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of strides "
                           f"({len(stride)})")
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
    # PyTorch's storage size: 1 + sum((size - 1) * stride), refused when a stride is negative or it passes int64.
    extent = 1 + sum((n - 1) * st for n, st in zip(size, stride)) if all(size) else 0
    itemsize = (dtype or _C.get_default_dtype()).itemsize
    if any(st < 0 for st in stride) or extent * itemsize >= 2 ** 63:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} and strides={list(stride)}")
    if any(st == 0 and n > 1 for n, st in zip(size, stride)):
        # A zero stride repeats one element: allocate the rest and expand (an expanded view, as PyTorch's).
        base = empty_strided([1 if st == 0 else n for n, st in zip(size, stride)], stride, dtype=dtype,
                             device=device, pin_memory=pin_memory)
        out = base.expand(size)
        return _creation_args.requires_grad_(out, requires_grad)
    # A dense layout in some dim order: allocate in that order (largest stride first) and permute back; any
    # other layout (gaps between elements) is a view of a buffer of the full extent, as PyTorch's.
    order = sorted(range(len(size)), key=lambda d: -stride[d])
    expected, dense = 1, True
    for d in reversed(order):
        if size[d] != 1 and stride[d] != expected:
            dense = False
        expected *= size[d]
    if not dense and math.prod(size) != 0:
        buffer = _C.empty([extent], dtype=dtype, device=device, pin_memory=pin_memory)
        out = buffer.as_strided(size, stride, 0)
        return _creation_args.requires_grad_(out, requires_grad)
    out = _C.empty([size[d] for d in order], dtype=dtype, device=device, pin_memory=pin_memory)
    inverse = sorted(range(len(order)), key=order.__getitem__)
    out = out.permute(inverse) if order != sorted(order) else out
    return _creation_args.requires_grad_(out, requires_grad)


_BUFFER_FORMATS = {"?": "bool", "b": "int8", "B": "uint8", "h": "int16", "i": "int32", "l": "int64", "q": "int64",
                   "e": "float16", "f": "float32", "d": "float64", "H": "uint16", "I": "uint32", "L": "uint64",
                   "Q": "uint64"}


def _numpy_dtype(dtype):
    import numpy as np  # noqa: PLC0415
    name = _name(dtype)
    if name == "bfloat16":
        raise NotImplementedError("frombuffer(): a bfloat16 view of a buffer is not supported\nhint: read it as "
                                  "int16 or copy the bytes, then convert with .to(tandem.bfloat16)")
    return np.dtype(name)


def frombuffer(buffer, *, dtype=_MISSING, count=-1, offset=0, requires_grad=False):
    """A CPU tensor over buffer's memory (no copy): writes to either show in the other."""
    if dtype is _MISSING:
        raise TypeError('frombuffer() missing 1 required positional arguments: "dtype"')
    dtype = _PYTHON_TYPES.get(dtype, dtype) if isinstance(dtype, type) else dtype  # PyTorch's parser takes float
    if not isinstance(dtype, _C.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be torch.dtype, not {_parser_type_name(dtype)}")
    for label, value in (("count", count), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"frombuffer(): argument '{label}' must be int, not {type(value).__name__}")
    _creation_args.check("frombuffer", buffer, requires_grad=requires_grad)
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.contiguous:
        raise RuntimeError("could not retrieve a contiguous buffer from the given object (non-contiguous buffers "
                           "are not supported)")
    length, size = view.nbytes, dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count <= 0 and (length - offset) % size:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({size})")
    if count > 0 and count * size > length - offset:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    import numpy as np  # noqa: PLC0415
    array = np.frombuffer(buffer, dtype=_numpy_dtype(dtype), count=count if count > 0 else -1, offset=offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = _C.from_numpy(array)
    if not array.flags.writeable:
        warnings.warn("The given buffer is not writable. tandem marks the tensor read-only, so in-place operations "
                      "on it raise.\nhint: pass a bytearray (or another writable buffer) to write through the tensor",
                      UserWarning, stacklevel=2)
    return _creation_args.requires_grad_(out, requires_grad)


def _buffer_dtype(obj):
    fmt = memoryview(obj).format.lstrip("@=<")
    if fmt not in _BUFFER_FORMATS:
        raise TypeError(f"asarray(): buffer format '{fmt}' has no tandem dtype")
    return getattr(_C, _BUFFER_FORMATS[fmt])


def _is_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _alias_error(src, dtype, device):
    if dtype is not None and dtype != src.dtype:
        return ValueError(f"can't alias tensor with dtype '{src.dtype._scalar_type_name}' into dtype "
                          f"'{dtype._scalar_type_name}'.")
    return ValueError(f"can't alias tensor from device '{src.device}' to '{device}'.")


def _asarray_tensor(obj, dtype, device, copy, requires_grad):
    """torch.asarray on a tensor: obj itself unless dtype, device or copy ask for a new one (then a recorded
    conversion, so the history is kept when it requires grad)."""
    device = _C.device(device) if device is not None else None
    changes = (dtype is not None and dtype != obj.dtype) or (device is not None and device != obj.device)
    if copy is False and changes:
        raise _alias_error(obj, dtype, device)
    if requires_grad is None:
        if obj.requires_grad:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
                          "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
                          "warning.", UserWarning, stacklevel=3)
        requires_grad = obj.requires_grad
    if not (copy or changes):
        if requires_grad and not obj.requires_grad:  # PyTorch sets the flag on obj itself here
            _creation_args.requires_grad_(obj, True)
        elif obj.requires_grad and not requires_grad:
            obj.requires_grad_(False)
        return obj
    out = obj.to(dtype=dtype or obj.dtype, device=device or obj.device, copy=True)
    if not requires_grad:
        return out.detach()
    return out if out.requires_grad else _creation_args.requires_grad_(out, True)


def asarray(obj=_creation_args.MISSING, *extra, dtype=None, device=None, copy=None, requires_grad=None):
    from . import _creation, _numpy  # noqa: PLC0415
    _creation_args.check("asarray", obj, extra, "obj", device=device,
                         **{k: v for k, v in (("copy", copy), ("requires_grad", requires_grad)) if v is not None})
    if _is_numpy_scalar(obj):  # read as the 0-d array it is, as PyTorch's asarray (a uint64 or str_ one too)
        if copy is False:
            raise RuntimeError("can't alias NumPy scalars. Either remove copy=False or transform it in a ndarray. ")
        obj = sys.modules["numpy"].asarray(obj)
    if isinstance(obj, Tensor):
        return _asarray_tensor(obj, dtype, device, copy, requires_grad)
    if _creation._is_ndarray(obj):
        # An unaligned array (bytes viewed at an odd offset) cannot be shared: tandem's kernels assume aligned
        # elements. Without copy=False it is copied, as asarray copies whatever it cannot share.
        shareable = obj.dtype.kind in "biuf" and obj.dtype.name != "float128" and (obj.flags.aligned or
                                                                                    copy is False)
        shared = _C.from_numpy(obj) if shareable else None
    elif _creation._is_cuda_array(obj):
        shared = _numpy.from_cuda_array_interface(obj)
    elif _creation._is_dlpack_producer(obj) and not isinstance(obj, (bytes, bytearray, memoryview)):
        shared = _numpy.from_dlpack(obj)
    elif _is_buffer(obj) and not _is_numpy_scalar(obj):
        shared = frombuffer(obj, dtype=dtype or _buffer_dtype(obj)) if memoryview(obj).nbytes else \
            _C.empty(0, dtype=dtype or _buffer_dtype(obj))
        dtype = None  # the buffer's bytes were read as dtype
    else:
        shared = None
    if shared is not None:
        return _asarray_tensor(shared, dtype, device, copy, bool(requires_grad))
    if copy is False:
        raise ValueError("can't alias arbitrary sequence into a tensor.")
    if obj is None or isinstance(obj, (dict, set, frozenset)):  # PyTorch's data parser finds no dtype here
        raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")
    return _creation.tensor(obj, dtype=dtype, device=device, requires_grad=bool(requires_grad))


def _is_numpy_scalar(obj):
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.generic)
