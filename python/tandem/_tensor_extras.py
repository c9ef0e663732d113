"""Small names PyTorch programs use that are bookkeeping over existing ops: post-accumulate-grad hooks,
cfloat/cdouble, const_data_ptr, dim_order, the is_<backend> flags, unsafe_chunk/unsafe_split, get_device,
is_signed, constant_pad_nd, set_default_tensor_type, interop threads, warn-always, flush-denormal and the
deprecated per-device autocast getters and setters."""
import warnings
import weakref

from . import _C
from ._C import Tensor

_state = {"warn_always": False, "interop_threads": None}
# Device types tandem does not have, whose autocast state PyTorch still lets programs read and set.
_other_autocast = {"ipu": {"enabled": False, "dtype": "float16"}, "xla": {"enabled": False, "dtype": "bfloat16"}}


class _PostAccumulateHandle:
    """What register_post_accumulate_grad_hook returns: remove() takes the hook out again."""

    def __init__(self, tensor, node, hook_id):
        self._tensor = weakref.ref(tensor)
        self._node = node
        self.id = hook_id

    def remove(self):
        if self._node is None:
            return
        _C._remove_post_accumulate_grad_hook(self._node, self.id)
        t = self._tensor()
        if t is not None:
            nodes = t.__dict__.get("_post_accumulate_nodes")
            if nodes and self._node in nodes:
                nodes.remove(self._node)
        self._node = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def register_post_accumulate_grad_hook(self, hook):
    """hook(tensor) runs after the gradient was accumulated into tensor.grad (leaves only), after the hooks
    of register_hook, as in PyTorch. Optimizer-in-backward programs step each parameter here."""
    ref = weakref.ref(self)

    def call():
        t = ref()
        if t is not None and hook(t) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    node, hook_id = _C._add_post_accumulate_grad_hook(self, call)
    # The Python tensor keeps its accumulator (and so the hook) alive across graphs: a leaf holds it weakly.
    self.__dict__.setdefault("_post_accumulate_nodes", []).append(node)
    return _PostAccumulateHandle(self, node, hook_id)


def cfloat(self, memory_format=None):
    return self.to(_C.complex64) if memory_format is None else self.to(_C.complex64, memory_format=memory_format)


def cdouble(self, memory_format=None):
    return self.to(_C.complex128) if memory_format is None else self.to(_C.complex128, memory_format=memory_format)


def const_data_ptr(self):
    return self.data_ptr()


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory, computed as PyTorch's (an insertion sort by stride that
    leaves zero strides and full ties where they are). ambiguity_check=True refuses a layout with another
    equally valid order (size-1 dims, equal neighbouring strides); a list of memory formats accepts such a
    layout when exactly one of them describes it."""
    if not isinstance(ambiguity_check, (bool, list)):
        raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    sizes, strides = tuple(self.shape), self.stride()
    if ambiguity_check is not False:
        formats = ambiguity_check if isinstance(ambiguity_check, list) else []
        multiple = any(a == b for a, b in zip(strides, strides[1:])) or any(n == 1 for n in sizes)
        unique_format = sum(self.is_contiguous(memory_format=f) for f in formats) == 1
        if multiple and not unique_format:
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the "
                               "given memory formats.")

    def should_swap(a, b):
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return -1 if strides[a] < strides[b] else 1
        return 1 if sizes[a] > sizes[b] else 0

    perm = list(reversed(range(len(sizes))))
    for i in range(1, len(perm)):
        dim1 = i
        for dim0 in reversed(range(i)):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    return tuple(reversed(perm))


def _false(self):
    return False


def get_device(input):  # noqa: A002
    """tandem.get_device(t): the CUDA ordinal, -1 on the CPU."""
    if not isinstance(input, Tensor):
        raise TypeError(f"get_device(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.get_device()


def is_signed(input):  # noqa: A002
    if not isinstance(input, Tensor):
        raise TypeError(f"is_signed(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_signed()


def unsafe_chunk(input, chunks, dim=0):  # noqa: A002
    """chunk without the view checks PyTorch skips (tandem's chunk returns the same views)."""
    return input.chunk(chunks, dim)


def unsafe_split(tensor, split_size, dim=0):
    if not isinstance(split_size, int) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 1) must be int, not "
                        f"{type(split_size).__name__}")
    return tensor.split(split_size, dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):  # noqa: A002
    return input.split(list(split_sizes), dim)


def constant_pad_nd(input, pad, value=0):  # noqa: A002
    from .nn import functional as F  # noqa: N812, PLC0415

    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    return F.pad(input, list(pad), mode="constant", value=value)


def _legacy_type_by_name(name, legacy_types):
    """What a dotted type name names, resolved as PyTorch does (import its first part, then attributes): a
    missing module is ModuleNotFoundError, a missing attribute AttributeError; torch./tandem. names read
    tandem's legacy tensor types."""
    parts = name.split(".")
    if parts[0] in ("torch", "tandem"):
        if len(parts) == 2 and parts[1] in legacy_types:
            return legacy_types[parts[1]]
        if len(parts) == 2:
            raise AttributeError(f"module '{parts[0]}' has no attribute '{parts[1]}'")
        raise TypeError(f"invalid type: '{name}'")  # torch.cuda.FloatTensor: tandem keeps CPU legacy types only
    import importlib  # noqa: PLC0415

    obj = importlib.import_module(parts[0])
    for part in parts[1:]:
        obj = getattr(obj, part)
    return obj


def set_default_dtype(d):
    """The dtype tensor() and the factories give floating-point values (torch.set_default_dtype): a floating
    tandem dtype; anything else (None, a string, Python's float) is PyTorch's TypeError."""
    if not isinstance(d, _C.dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    _C.set_default_dtype(d)


def set_default_tensor_type(t):
    """Deprecated in PyTorch 2.1 (its warning): sets the default dtype from a legacy type or its name."""
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", UserWarning,
                  stacklevel=2)
    from . import _LEGACY_TYPES, set_default_dtype  # noqa: PLC0415

    if isinstance(t, str):
        t = _legacy_type_by_name(t, _LEGACY_TYPES)
    dtype = getattr(t, "dtype", None)
    if not isinstance(t, type) or not isinstance(dtype, _C.dtype):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(dtype)


def get_num_interop_threads():
    """PyTorch's inter-op pool size; tandem runs ops one after another, so this is only recorded."""
    return _state["interop_threads"] or _C.get_num_threads()


def set_num_interop_threads(n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"set_num_interop_threads(): argument must be int, not {type(n).__name__}")
    if n <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _state["interop_threads"] = n


def set_warn_always(b):
    """Warnings that PyTorch gives once per process (TypedStorage's deprecation) are given every time."""
    _state["warn_always"] = bool(b)


def is_warn_always_enabled():
    return _state["warn_always"]


def set_flush_denormal(mode):
    """Denormal floats read as zero and results that would be denormal become zero (True) or keep IEEE
    behaviour (False), on the CPU threads that run tandem's kernels; False where the CPU cannot (not x86-64)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return _C._set_flush_denormal(mode)


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def is_autocast_cpu_enabled():
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return _C.is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    _C.set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    return _C.get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    _C.set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    _deprecated("get_autocast_gpu_dtype()", "get_autocast_dtype('cuda')")
    return _C.get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    _deprecated("set_autocast_gpu_dtype(dtype)", "set_autocast_dtype('cuda', dtype)")
    _C.set_autocast_dtype("cuda", dtype)


def _other_device_functions(device):
    state = _other_autocast[device]

    def is_enabled():
        _deprecated(f"is_autocast_{device}_enabled()", f"is_autocast_enabled('{device}')")
        return state["enabled"]

    def set_enabled(enabled):
        _deprecated(f"set_autocast_{device}_enabled(enabled)", f"set_autocast_enabled('{device}', enabled)")
        state["enabled"] = bool(enabled)

    def get_dtype():
        _deprecated(f"get_autocast_{device}_dtype()", f"get_autocast_dtype('{device}')")
        return getattr(_C, state["dtype"])

    def set_dtype(dtype):
        _deprecated(f"set_autocast_{device}_dtype(dtype)", f"set_autocast_dtype('{device}', dtype)")
        state["dtype"] = str(dtype).split(".")[-1]

    return {f"is_autocast_{device}_enabled": is_enabled, f"set_autocast_{device}_enabled": set_enabled,
            f"get_autocast_{device}_dtype": get_dtype, f"set_autocast_{device}_dtype": set_dtype}


def from_file(filename, shared=None, size=0, *, dtype=None, layout=None, device=None, pin_memory=False,
              requires_grad=False):
    """The first `size` elements of a file's bytes (tandem reads the file: shared=True, which maps it so that
    writes reach the file, is not supported)."""
    if shared:
        raise NotImplementedError("from_file(shared=True): tandem does not map files into tensors\nhint: "
                                  "pass shared=False (the file is read into a new tensor) and write it back with "
                                  "tensor.numpy().tofile(filename)")
    from . import get_default_dtype, tensor, uint8  # noqa: PLC0415

    dtype = dtype or get_default_dtype()
    nbytes = size * dtype.itemsize
    with open(filename, "rb") as f:
        raw = f.read(nbytes)
    if len(raw) < nbytes:
        raise RuntimeError(f"unable to read {nbytes} bytes from file {filename} (the file holds {len(raw)})")
    data = tensor(list(raw), dtype=uint8).view(dtype) if nbytes else tensor([], dtype=dtype)
    data = data.to(device) if device is not None else data
    return data.requires_grad_(requires_grad) if requires_grad else data


def as_subclass(self, cls):
    """A `cls` instance (a Python subclass of Tensor) over the same memory, still in the autograd graph; ops on it
    return `cls` instances through Tensor.__torch_function__ (tandem/overrides.py), as in PyTorch."""
    _check_subclass_type(cls)
    return _C._as_subclass(self, cls)


def _check_subclass_type(cls):
    """PyTorch's TypeErrors for a `cls` that is not a class, or not one derived from Tensor."""
    if not isinstance(cls, type):
        raise TypeError(f"cls must be a type (got {type(cls).__name__})")
    if not issubclass(cls, _C.Tensor):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from Tensor is not possible. "
                        "Make sure your class inherits from Tensor.")


def _make_subclass(cls, data, require_grad=False, **dispatch_options):
    """PyTorch's Tensor._make_subclass, as custom parameter classes call it in __new__: a `cls` instance sharing
    data's memory, detached, that requires grad when require_grad (PyTorch's dispatch_* options have nothing to
    select in tandem). Its arguments are checked as PyTorch's parser checks them."""
    _check_subclass_type(cls)
    if not isinstance(data, _C.Tensor):
        raise TypeError(f"_make_subclass(): argument 'data' (position 2) must be Tensor, not {type(data).__name__}")
    if not isinstance(require_grad, bool):
        raise TypeError("_make_subclass(): argument 'require_grad' (position 3) must be bool, not "
                        f"{type(require_grad).__name__}")
    return _C._make_subclass(cls, data, require_grad)


def module_load(self, other, assign=False):
    """What load_state_dict puts into a parameter or buffer when tandem.__future__'s swap switch is on (a
    subclass may override it): `other` detached when assign, else self with other's values copied in, detached."""
    if assign:
        return other.detach()
    return self.copy_(other).detach()


def install(namespace):
    namespace.update(
        get_device=get_device, is_signed=is_signed, unsafe_chunk=unsafe_chunk, unsafe_split=unsafe_split,
        unsafe_split_with_sizes=unsafe_split_with_sizes, constant_pad_nd=constant_pad_nd,
        set_default_tensor_type=set_default_tensor_type, set_default_dtype=set_default_dtype,
        get_num_interop_threads=get_num_interop_threads,
        set_num_interop_threads=set_num_interop_threads, set_warn_always=set_warn_always,
        is_warn_always_enabled=is_warn_always_enabled, set_flush_denormal=set_flush_denormal,
        is_autocast_cpu_enabled=is_autocast_cpu_enabled, set_autocast_cpu_enabled=set_autocast_cpu_enabled,
        get_autocast_cpu_dtype=get_autocast_cpu_dtype, set_autocast_cpu_dtype=set_autocast_cpu_dtype,
        get_autocast_gpu_dtype=get_autocast_gpu_dtype, set_autocast_gpu_dtype=set_autocast_gpu_dtype,
        from_file=from_file, is_vulkan_available=lambda: False, **_other_device_functions("ipu"), **_other_device_functions("xla"))
    Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
    Tensor.cfloat = cfloat
    Tensor.cdouble = cdouble
    Tensor.const_data_ptr = const_data_ptr
    Tensor.dim_order = dim_order
    Tensor.as_subclass = as_subclass
    Tensor.module_load = module_load
    Tensor._make_subclass = staticmethod(_make_subclass)
    for name in ("is_xla", "is_ipu", "is_mtia", "is_maia", "is_vulkan"):
        setattr(Tensor, name, property(_false))
    Tensor.unsafe_chunk = unsafe_chunk
    Tensor.unsafe_split = unsafe_split
    Tensor.unsafe_split_with_sizes = unsafe_split_with_sizes
