"""tandem.sym_int, sym_float, sym_max, ...: PyTorch's SymInt-aware helpers, which model code written to trace
under torch.compile calls on sizes. tandem runs eagerly, where sizes are plain numbers, so each is its
plain-number meaning, with PyTorch's argument checks and int/float promotion."""
import builtins
import math

import numpy as np

__all__ = ["sym_int", "sym_float", "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_ite", "sym_sum", "SymInt",
           "SymFloat", "SymBool", "sym_constrain_range", "sym_constrain_range_for_size", "compiled_with_cxx11_abi"]


class _SymbolicNumber:
    """PyTorch's symbolic sizes (what torch.compile traces with). tandem runs eagerly: every size is a plain
    number and no symbolic one is ever made, so these classes exist for annotations (Union[int, torch.SymInt])
    and isinstance checks, which they answer False for every value."""

    def __init__(self, node):
        raise TypeError(f"{type(self).__name__} wraps a symbolic size node of torch.compile's tracer; tandem runs "
                        "eagerly and has none (its sizes are plain numbers)")


class SymInt(_SymbolicNumber):
    __module__ = "tandem"


class SymFloat(_SymbolicNumber):
    __module__ = "tandem"


class SymBool(_SymbolicNumber):
    __module__ = "tandem"


def sym_constrain_range(size, *, min=None, max=None):  # noqa: A002 (PyTorch's keywords)
    """A tracer's range hint for a data-dependent size: nothing to record when sizes are numbers."""


def sym_constrain_range_for_size(size, *, min=None, max=None):  # noqa: A002
    """As sym_constrain_range, for a value used as a size."""


def compiled_with_cxx11_abi():
    """Whether the library was built with the C++11 ABI of libstdc++ (tandem's C++ always is)."""
    return True

_NUMBER_TYPES = (np.integer, np.floating, int, float)


def _check_number(x):
    if not isinstance(x, _NUMBER_TYPES):
        raise AssertionError(f"expected {_NUMBER_TYPES}, got {type(x)}")


def sym_int(a):
    """int(a): a float is truncated toward zero."""
    return int(a)


def sym_float(a):
    """float(a)."""
    return float(a)


def _extreme(pick, a, b):
    _check_number(a)
    _check_number(b)
    r = pick(a, b)
    # PyTorch's result is a float when either operand is one (sym_max(2.0, 3) is 3.0).
    return float(r) if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)) else r


def sym_max(a, b):
    """The larger of two numbers."""
    return _extreme(builtins.max, a, b)


def sym_min(a, b):
    """The smaller of two numbers."""
    return _extreme(builtins.min, a, b)


def sym_not(a):
    """not a."""
    return not a


def sym_sqrt(a):
    """math.sqrt(a) (ValueError below 0, as PyTorch's)."""
    return math.sqrt(a)


def sym_ite(b, t, f):
    """t if b else f; b must be a bool."""
    if not isinstance(b, bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    return t if b else f


def sym_sum(*args):
    """The sum of the numbers given, as arguments or as one list or tuple."""
    values = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    return builtins.sum(values)
