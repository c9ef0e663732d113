"""Tensor attributes assigned or deleted as PyTorch answers: a read-only attribute (shape, dtype, device, grad_fn,
is_leaf, T, _version, ...) refuses both with PyTorch's AttributeError ("attribute 'shape' of 'torch._C.TensorBase'
objects is not writable", where Python's property says "has no setter"), and t.real/t.imag take what PyTorch's
setters take: a tensor, or a Python number (written into every element), anything else being its TypeError ("can't
assign a NoneType to a torch.FloatTensor"). The getters stay the core's: installed last, before the subclass
properties copy them (_builtin_functions.py)."""
import sys

from . import _C

_PYTHON_PROPERTIES = frozenset({"__cuda_array_interface__"})  # a Python property in PyTorch too: its own words


def _not_writable(name):
    def refuse(self, value=None):
        raise AttributeError(f"attribute '{name}' of 'tandem._C.TensorBase' objects is not writable")

    return refuse


def _is_numpy_int(value):
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.integer)


def _part_setter(core_set):
    def set_part(self, value):
        if not isinstance(value, _C.Tensor):
            part = _C.Tensor.real.fget(self)
            if not (isinstance(value, (int, float, complex)) or _is_numpy_int(value)):  # PyTorch's valueToTensor
                from ._legacy import _type_name  # noqa: PLC0415  (_legacy imports tandem's namespace)

                raise TypeError(f"can't assign a {_type_name(value)} to a {part.type()}")
            # the number in the part's dtype (a complex one into a real part is PyTorch's overflow error)
            value = _C.full((), value.item() if _is_numpy_int(value) else value, dtype=part.dtype, device=part.device)
        core_set(self, value)

    return set_part


def install():
    tensor = _C.Tensor
    for name, attr in list(vars(tensor).items()):
        if isinstance(attr, property) and attr.fset is None and name not in _PYTHON_PROPERTIES:
            setattr(tensor, name, property(attr.fget, _not_writable(name), _not_writable(name), attr.__doc__))
    for name in ("real", "imag"):
        attr = vars(tensor)[name]
        if attr.fset is not None:
            setattr(tensor, name, property(attr.fget, _part_setter(attr.fset), attr.fdel, attr.__doc__))
