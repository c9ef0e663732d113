"""`t.data = other` with PyTorch's checks: the value has to be a tensor (TypeError naming its type), and a tensor
that requires grad only takes floating or complex data, so it never ends up an integer tensor requiring grad.
The getter stays the core's (optimisers and init code read .data in hot loops)."""
from . import _C
from ._emulated_queue import install as _install_settled_set_data, settle_queued_kernels


def _checked_setter(core_set):
    def set_data(self, value):
        if not isinstance(value, _C.Tensor):
            from ._legacy import _type_name  # noqa: PLC0415  (CPython's tp_name: 'numpy.ndarray', as PyTorch's)

            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(value)}")
        if self.requires_grad and not (value.dtype.is_floating_point or value.dtype.is_complex):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point or complex "
                               "dtype")
        settle_queued_kernels(self)  # a fill still queued on an emulated GPU would land in value's memory
        core_set(self, value)

    return set_data


def install():
    _install_settled_set_data()
    core = _C.Tensor.__dict__["data"]
    _C.Tensor.data = property(core.fget, _checked_setter(core.fset), _refuse_delete, core.__doc__)


def _refuse_delete(self):
    raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")  # PyTorch's words
