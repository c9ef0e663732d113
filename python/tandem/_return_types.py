"""tandem.return_types: the named tuples of functions with several results (PyTorch's torch.return_types), one
type per function under PyTorch's name and field names. The types are made in C++ (max, sort, kthvalue, ...)
and in Python (linalg, frexp, ...), all in the `_C.return_types` submodule; install() makes that module
importable as ``tandem.return_types`` (so results pickle) and gives every type PyTorch's structseq repr."""
import collections
import sys

from . import _C


def _structseq_repr(self):
    # PyTorch's: "torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))", with tandem's module.
    fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._fields, self))
    return f"{type(self).__module__}.{type(self).__name__}(\n{fields})"


def result_type(name, fields):
    """The return type `name` with these fields, registered as tandem.return_types.<name>."""
    t = collections.namedtuple(name, fields)
    t.__module__ = "tandem.return_types"
    t.__repr__ = _structseq_repr
    setattr(_C.return_types, name, t)
    return t


def out_type(t):
    """The type of a result written into out=: PyTorch's "_out" twin (torch.return_types.max_out), or t itself
    where PyTorch has none (histogramdd)."""
    return getattr(_C.return_types, t.__name__ + "_out", t)


def install():
    """Called last by tandem/__init__.py, once every return type is registered: each gets PyTorch's repr and,
    but histogramdd (no out= in PyTorch), its "_out" twin for calls with out=."""
    module = _C.return_types
    module.__name__ = "tandem.return_types"
    sys.modules["tandem.return_types"] = module
    types = [t for t in vars(module).values() if isinstance(t, type) and issubclass(t, tuple)
             and hasattr(t, "_fields")]
    for t in types:
        t.__repr__ = _structseq_repr
        if t.__name__ != "histogramdd" and not t.__name__.endswith("_out"):
            result_type(t.__name__ + "_out", t._fields)
