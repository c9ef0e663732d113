"""Python-side entry points for creating tensors from Python data."""
import os
import sys
import warnings

from . import _C, _creation_args, _numpy
from ._errors import TransferGuardError
from ._dim_args import _tp_name
from ._layouts import is_sparse_tensor


def _is_ndarray(data):
    # Without importing NumPy: if it was never imported, nothing can be an ndarray.
    np = sys.modules.get("numpy")
    return np is not None and isinstance(data, np.ndarray)


def _numpy_scalar_without_dtype(data):
    """A NumPy scalar of a kind no tensor dtype holds (longdouble, clongdouble, datetime64, timedelta64): PyTorch
    reads it as a 0-d array and refuses it with the array's TypeError, which _tensor_from_array gives."""
    np = sys.modules.get("numpy")
    if np is None or not isinstance(data, np.generic):
        return False
    kind, size = data.dtype.kind, data.dtype.itemsize
    return kind in "mM" or (kind == "f" and size > 8) or (kind == "c" and size > 16)


def _is_cuda_array(data):
    # Plain Python data never carries CUDA memory; skip the attribute probe for it.
    return not isinstance(data, (list, tuple, int, float, bool)) and _numpy._has_cuda_array_interface(data)


def _is_dlpack_producer(data):
    # Any other library's array (CuPy, JAX, a tensor of another framework): exchanged through DLPack.
    return (not isinstance(data, (list, tuple, int, float, bool, _C.Tensor)) and hasattr(data, "__dlpack__")
            and hasattr(data, "__dlpack_device__"))


def _sequence_of_buffer(data):
    """memoryview, array.array and bytearray are sequences of numbers to PyTorch (bytes is refused)."""
    import array  # noqa: PLC0415

    if isinstance(data, (memoryview, array.array)):
        return data.tolist()
    if isinstance(data, bytearray):
        return list(data)
    return _plain_lists(data)


def _passes_sequence_check(x):
    """PyTorch reads any object passing CPython's PySequence_Check (a type with __getitem__, not a dict) as a
    sequence: collections.deque, UserList, a pandas Series or Index, a class of the user's. Lists, tuples and
    ranges are read by the C++ walk; strings, bytes, tensors and NumPy arrays and scalars have their own rules."""
    kind = type(x)
    if kind in (list, tuple, range, int, float, bool) or isinstance(x, (dict, str, bytes, _C.Tensor)):
        return False
    if not (hasattr(kind, "__getitem__") and hasattr(kind, "__len__")):
        return False
    np = sys.modules.get("numpy")
    return np is None or not isinstance(x, (np.ndarray, np.generic))


def _sequence_items(x):
    """The items of a sequence that is not a list or tuple, as PyTorch reads them: by position, x[0], x[1], ...
    (so a float64 pandas Series gives NumPy float64 scalars, and a float64 tensor, where iterating would give
    Python floats); a Series indexed by labels other than 0, 1, ... has no x[0], and PyTorch refuses it. The
    collections.abc sequences (deque, UserList) are iterated: the same items, without deque's slow indexing."""
    import collections.abc  # noqa: PLC0415

    if isinstance(x, collections.abc.Sequence):
        return list(x)
    n = len(x)
    if n:
        try:
            first = x[0]
        except Exception:  # noqa: BLE001 (PyTorch reports any failure here as the shape it could not find)
            raise ValueError(f"could not determine the shape of object type '{type(x).__name__}'") from None
        return [first] + [x[i] for i in range(1, n)]  # a later item's error (KeyError 1) propagates, as there
    return []


def _plain_lists(data):
    """Any other Python sequence (collections.deque, UserList, a pandas Series, ...) is read as a list, at every
    nesting level, as PyTorch reads any object passing PySequence_Check; None when ``data`` needs no rewriting."""
    other_sequence = _passes_sequence_check

    def rebuild(x):
        if other_sequence(x):
            return [rebuild(e) for e in _sequence_items(x)]
        if isinstance(x, (list, tuple)) and any(other_sequence(e) or isinstance(e, (list, tuple)) for e in x):
            return [rebuild(e) for e in x]
        return x

    if other_sequence(data):
        return rebuild(data)
    if isinstance(data, (list, tuple)) and data and any(other_sequence(e) for e in data):
        return rebuild(data)
    return None


_TANDEM_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_warned_array_rows = []


def _holds_array_rows(data):
    """True when a NumPy array of at least one dimension sits inside the (list/tuple) nest ``data``: the rows
    PyTorch copies element by element, and warns about."""
    stack = [data]
    while stack:
        for x in stack.pop():
            if _is_ndarray(x):
                if x.ndim >= 1:
                    return True
            elif isinstance(x, (list, tuple)):
                stack.append(x)
    return False


def _warn_array_rows_once(out):
    """PyTorch's once-per-process advice for a tensor built from a list of arrays, at the caller's line. It is
    given only when elements were copied (not for an empty result), as PyTorch's."""
    if _warned_array_rows or out.numel() == 0:
        return
    _warned_array_rows.append(True)
    frame, level = sys._getframe(0), 1
    while frame is not None and frame.f_code.co_filename.startswith(_TANDEM_DIR):  # the first frame outside tandem
        frame, level = frame.f_back, level + 1
    warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting "
                  "the list to a single numpy.ndarray with numpy.array() before converting to a tensor.",
                  UserWarning, stacklevel=level)


def _check_first_leaf(data):
    """PyTorch reads a nest's shape down its first elements, taking any NumPy array for a sequence: a 0-d array
    there has no len(), and PyTorch raises Python's TypeError (elsewhere in the nest it is read as a number)."""
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if first is not data and _is_ndarray(first) and first.ndim == 0:
        raise TypeError("len() of unsized object")


def _check_nest_lengths(data):
    """PyTorch's reading of a nest of lists and arrays: the shape comes from the first elements, and the first
    element (depth first) of another length raises "expected sequence of length 2 at dim 1 (got 1)"; a number
    where a row belongs raises "not a sequence". Its dtype inference comes first (an array of an unsupported dtype,
    a string anywhere). Run only where NumPy refused the nest."""
    def rows(x):
        return isinstance(x, (list, tuple)) or (_is_ndarray(x) and x.ndim >= 1)

    pending = [data]
    while pending:
        x = pending.pop()
        if _is_ndarray(x):
            _C._tensor_from_array(x.reshape(-1)[:0], None, None, False)  # PyTorch's error for its dtype
        elif isinstance(x, (list, tuple)):
            pending.extend(reversed(x))
        elif isinstance(x, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")

    shape, first = [], data
    while rows(first):
        shape.append(len(first))
        if not len(first):
            break
        first = first[0]
    stack = [(data, 0)]
    while stack:
        x, dim = stack.pop()
        if not rows(x):
            raise TypeError("not a sequence")
        if len(x) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(x)})")
        if dim + 1 < len(shape):
            stack.extend((e, dim + 1) for e in reversed(list(x)))


def tensor(data=_creation_args.MISSING, *extra, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (numbers, nested lists/tuples, NumPy arrays, tensors, any
    DLPack producer; memoryview, array.array and bytearray as sequences of numbers).

    The dtype is inferred as PyTorch does: bools -> bool, ints -> int64, any float -> the default dtype;
    NumPy arrays and scalars keep their dtype. pin_memory=True gives a copy in pinned host memory.
    """
    _creation_args.check("tensor", data, extra, device=device, requires_grad=requires_grad, pin_memory=pin_memory)
    if pin_memory:
        out = tensor(data, dtype=dtype, device=device).pin_memory()
        return out.requires_grad_() if requires_grad else out
    if isinstance(data, _C.Tensor):  # a copy on the tensor's own device, with PyTorch's advice
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      stacklevel=2)
        if is_sparse_tensor(data):  # a sparse copy, as PyTorch's
            out = data.detach().to(device=data.device if device is None else device, dtype=dtype, copy=True)
            return out.requires_grad_(True) if requires_grad else out
        data = _C.Tensor.detach(data) if type(data) is _C.Tensor else _C._make_subclass(_C.Tensor, data, False)
        out = data.to(device=data.device if device is None else device, dtype=dtype, copy=True)  # a plain Tensor
        return _creation_args.requires_grad_(out, requires_grad)
    if _numpy_scalar_without_dtype(data):
        data = sys.modules["numpy"].asarray(data)
    if _is_ndarray(data):
        return _C._tensor_from_array(data, dtype, device, requires_grad)
    if _is_cuda_array(data):
        out = _numpy.from_cuda_array_interface(data).to(device=device, dtype=dtype, copy=True)
        return out.requires_grad_(requires_grad) if requires_grad else out
    if isinstance(data, (list, tuple)):
        _check_first_leaf(data)
    if isinstance(data, (list, tuple)) and data and _is_ndarray(data[0]):
        # A list of arrays (a common way to stack rows): let NumPy assemble them, keeping their dtype.
        # The dtype is PyTorch's promotion of the arrays' dtypes (NumPy's differs: int32 with float16 is float64).
        fixed, inferred = _nest_with_arrays_or_tensors(data)
        if fixed is not None:
            out = _C._tensor_from_array(fixed, dtype or inferred, device, requires_grad)
        else:
            import numpy as np
            _check_nest_lengths(data)  # a ragged nest: PyTorch's error, not NumPy's "inhomogeneous shape"
            out = _C._tensor_from_array(np.array(data), dtype, device, requires_grad)
        if not _warned_array_rows and _holds_array_rows(data):  # the walk only until PyTorch has warned
            _warn_array_rows_once(out)
        return out
    if _is_dlpack_producer(data):
        out = _numpy.from_dlpack(data).to(device=device, dtype=dtype, copy=True)
        return out.requires_grad_(requires_grad) if requires_grad else out
    if isinstance(data, (str, bytes)) and type(data) not in (str, bytes):  # numpy.str_: PyTorch names the subclass
        raise TypeError(f"new(): invalid data type '{_tp_name(data)}'\nhint: tensor() takes numbers; convert the "
                        "string first")
    seq = _sequence_of_buffer(data)
    try:
        out = _C._tensor_from_data(data if seq is None else seq, dtype, device, requires_grad)
    except TransferGuardError:  # a guarded read of a device tensor in the data: not a nest to retry
        raise
    except (TypeError, ValueError, RuntimeError) as e:  # RuntimeError: "Could not infer dtype of ndarray"
        if str(e).startswith(_NOT_AN_INDEX):  # a floating tensor into an integer dtype: no nest rereads it
            raise
        # Nests PyTorch also reads: NumPy arrays below the first level or after Python numbers, tensors of
        # one element as numbers. Tried only after the fast path refused, so plain data pays nothing.
        fixed, inferred = _nest_with_arrays_or_tensors(data if seq is None else seq)
        if fixed is None:
            if str(e) == _MANY_ELEMENTS and _integral(dtype or _nest_dtype(data if seq is None else seq)):
                raise TypeError(_NOT_AN_INDEX) from None
            raise
        try:
            if _is_ndarray(fixed):
                out = _C._tensor_from_array(fixed, dtype or inferred, device, requires_grad)
            else:
                return _C._tensor_from_data(fixed, dtype, device, requires_grad)
        except (TypeError, ValueError):
            raise e from None
        if not _warned_array_rows and _holds_array_rows(data if seq is None else seq):
            _warn_array_rows_once(out)
        return out
    if out.dtype == _C.uint64 and _holds_numpy_uint64(data):
        # PyTorch reads a NumPy uint64 number into an unsigned tensor through int64's unpacking, which fails
        raise TypeError("an integer is required")
    return out


def _holds_numpy_uint64(data):
    """Whether the number or nest of lists and tuples ``data`` holds a NumPy uint64 scalar."""
    np = sys.modules.get("numpy")
    if np is None:
        return False
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, np.uint64):
            return True
        if isinstance(x, (list, tuple)):
            stack.extend(x)
    return False


_MANY_ELEMENTS = "only one element tensors can be converted to Python scalars"
_NOT_AN_INDEX = "only integer tensors of a single element can be converted to an index"


def _integral(dtype):
    return dtype is not None and not (dtype.is_floating_point or dtype.is_complex or dtype == _C.bool)


def _nest_dtype(data):
    """The dtype PyTorch infers for a nest of numbers and tensors (each tensor's dtype, Python numbers by kind,
    promoted together), or None. PyTorch reads each tensor in it as one number of that dtype: through
    __index__ for an integer dtype, so a tensor of many elements is then a TypeError, not a ValueError."""
    from . import get_default_dtype  # noqa: PLC0415

    python_kinds = {bool: _C.bool, int: _C.int64, float: get_default_dtype(), complex: _C.complex64}
    inferred, stack, seen = None, [data], set()
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            if id(x) not in seen:  # a list holding itself is walked once
                seen.add(id(x))
                stack.extend(x)
            continue
        d = x.dtype if isinstance(x, _C.Tensor) else python_kinds.get(type(x))
        if d is not None:
            inferred = d if inferred is None else _C.promote_types(inferred, d)
    return inferred


def _nest_with_arrays_or_tensors(data):
    """``data`` with its tensors replaced by their one number and, when it holds NumPy arrays, assembled by NumPy;
    None when it holds neither. Also returns the dtype PyTorch infers for a nest with arrays (each array's dtype,
    Python bools/ints/floats as bool/int64/the default dtype, promoted together), or None."""
    found = {"array": False, "tensor": False}
    kinds = set()
    seen = {}

    def walk(x):
        if isinstance(x, _C.Tensor):
            found["tensor"] = True
            kinds.add(x.dtype)
            return x.item()  # PyTorch reads a tensor inside a nest as one number
        if _is_ndarray(x):
            found["array"] = True
            if x.dtype not in seen:  # tandem's dtype for this NumPy dtype, read once per dtype
                seen[x.dtype] = _C._tensor_from_array(x.reshape(-1)[:0], None, None, False).dtype
                kinds.add(seen[x.dtype])
            return x
        if isinstance(x, (list, tuple)):
            return [walk(e) for e in x]
        kinds.add(type(x))
        return x

    if not isinstance(data, (list, tuple)):
        return None, None
    try:
        out = walk(data)
    except (TypeError, ValueError, RuntimeError):
        return None, None
    if found["array"]:
        import numpy as np  # noqa: PLC0415

        from . import get_default_dtype, promote_types  # noqa: PLC0415

        python_kinds = {bool: _C.bool, int: _C.int64, float: get_default_dtype(), complex: _C.complex64}
        inferred = None
        for k in kinds:
            d = python_kinds.get(k, k) if isinstance(k, type) else k
            if isinstance(d, type):
                continue  # NumPy scalars and the like: NumPy's own reading decides
            inferred = d if inferred is None else promote_types(inferred, d)
        try:
            return np.array(out), inferred
        except ValueError:
            return None, None
    return (out, None) if found["tensor"] else (None, None)



def as_tensor(data=_creation_args.MISSING, *extra, dtype=None, device=None):
    """``data`` itself when it already is a tensor of that dtype and device; a tensor sharing memory with a
    NumPy array when the dtype and device allow; otherwise ``tensor(data)``. dtype and device are keyword-only,
    as PyTorch's."""
    _creation_args.check("as_tensor", data, extra, device=device)
    # (identity, not ==: a NumPy dtype compares equal to float)
    if dtype is not None and not isinstance(dtype, _C.dtype) and not any(dtype is t for t in (float, int, bool,
                                                                                               complex)):
        from ._legacy import _type_name  # noqa: PLC0415  (_legacy imports this module)

        raise TypeError(f"as_tensor(): argument 'dtype' must be torch.dtype, not {_type_name(dtype)}\nhint: NumPy "
                        "dtypes and strings are not dtypes here; use tandem.float32, tandem.int64, ...")
    if isinstance(data, _C.Tensor):
        # Converted only where asked (recorded by autograd, as PyTorch's as_tensor).
        return data.to(device=device if device is not None else data.device, dtype=dtype or data.dtype)
    if _is_ndarray(data):
        return _C._as_tensor_from_array(data, dtype, device)
    if _is_cuda_array(data):
        return _numpy.from_cuda_array_interface(data).to(device=device, dtype=dtype)
    if _is_dlpack_producer(data):
        return _numpy.from_dlpack(data).to(device=device, dtype=dtype)
    return tensor(data, dtype=dtype, device=device)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A new tensor from ``data`` with this tensor's dtype and device unless given."""
    return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


_C.Tensor.new_tensor = _new_tensor
