"""Dim and int-list arguments checked the way PyTorch's argument parser checks them, shared by the Python
compositions (_compositions.py, _einsum.py)."""
import operator

from ._C import Tensor as _Tensor
from ._size import Size


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)  # a 0-d tensor takes dims 0 and -1, as in PyTorch
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _int(value, fn, arg, position=0):
    """An int argument as PyTorch's parser reads it (an int, a NumPy integer or a 0-dim integer tensor; a bool or
    float is its TypeError "fn(): argument 'arg' (position N) must be int, not bool"); the bindings' own rule."""
    from ._C import _int_arg

    return value if type(value) is int else _int_arg(value, fn, arg, position)


def _ints(value, arg):
    """An int or a sequence of ints as a tuple. Like PyTorch's argument parser it refuses bools and floats,
    with a TypeError that names arg ("roll(): argument 'dims' (position 3)")."""
    items = value if isinstance(value, (list, tuple, Size)) else (value,)
    for pos, v in enumerate(items):
        if isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{arg} must be tuple of ints, " + (f"but found element of type {type(v).__name__} at "
                            f"pos {pos}" if items is value else f"not {type(v).__name__}"))
    return tuple(operator.index(v) for v in items)


def _parser_type_name(value):
    """A value's type as PyTorch's argument parser names it in "got (...)": builtins bare, others qualified
    (numpy.int64), tensors as Tensor."""
    from ._C import Tensor

    if isinstance(value, Tensor):
        return "Tensor"
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _tp_name(value):
    """A value's type as CPython's tp_name spells it, which PyTorch's argument parser prints in "must be Tensor,
    not X" and "expected Tensor as element i in argument 0, but got X": a class made by a class statement bare
    (Foo, Tensor), a static C type by its module too (numpy.ndarray, numpy.float64, decimal.Decimal), builtins
    bare (program sweep 21: arrays handed to torch functions)."""
    kind = type(value)
    if kind.__flags__ & (1 << 9) or kind.__module__ == "builtins":  # Py_TPFLAGS_HEAPTYPE
        return kind.__name__
    return f"{kind.__module__}.{kind.__qualname__}"


def _require_tensor(fn, label, value, position=None):
    """PyTorch's argument parser's TypeError for a Tensor parameter given something else (a NumPy array, a list),
    raised where tandem's Python composition would otherwise fail on a missing Tensor attribute (an
    AttributeError, or a RuntimeError from a dtype check)."""
    if not isinstance(value, _Tensor):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{fn}(): argument '{label}'{where} must be Tensor, not {_tp_name(value)}")


def _require_tensor_list(values, argument=0):
    """PyTorch's TypeError for a tensor-list parameter holding something else ("expected Tensor as element 1 in
    argument 0, but got numpy.ndarray")."""
    for i, value in enumerate(values):
        if not isinstance(value, _Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument {argument}, but got {_tp_name(value)}")


def _is_int(value):
    return not isinstance(value, bool) and hasattr(value, "__index__")


def _is_int_list(value):
    return isinstance(value, (list, tuple, Size)) and all(_is_int(v) for v in value)


def _check_reduction_args(fn, dim, keepdim, dtype, position=None):
    """PyTorch's parser errors for a reduction's `int[1]? dim`, `bool keepdim` and `ScalarType? dtype`, raised before
    the dtype checks of the op itself; returns dim as the parser reads it. position: dim's position when it was given
    positionally (keepdim's is the next), None for keywords: PyTorch words an int list's bad element differently in
    the two cases."""
    from ._C import dtype as _dtype

    where = f" (position {position})" if position else ""
    if isinstance(dim, (list, tuple, Size)):
        # PyTorch's parser judges an int list by its first element (a bool there is refused); the rest are unpacked
        # as indices, so a later bool counts as 0 or 1 and only a later non-integer fails
        bad = next(((i, v) for i, v in enumerate(dim) if (isinstance(v, bool) and i == 0) or
                    not hasattr(v, "__index__")), None)
        if bad is not None:
            got = f"but found element of type {type(bad[1]).__name__} at pos {bad[0]}" if position or bad[0] else \
                f"not {type(dim).__name__}"
            raise TypeError(f"{fn}(): argument 'dim'{where} must be tuple of ints, {got}")
    elif dim is not None and (isinstance(dim, bool) or not hasattr(dim, "__index__")):
        raise TypeError(f"{fn}(): argument 'dim'{where} must be tuple of ints, not {_tp_name(dim)}")
    if type(keepdim) is not bool:
        where = f" (position {position + 1})" if position else ""
        raise TypeError(f"{fn}(): argument 'keepdim'{where} must be bool, not {_tp_name(keepdim)}")
    if dtype is not None and not isinstance(dtype, _dtype):
        raise TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {_tp_name(dtype)}")
    if isinstance(dim, (list, tuple, Size)):
        return [operator.index(v) for v in dim]  # the parser's ints (a later bool is 0 or 1)
    return dim
