"""Two Tensor members whose core implementations skip __torch_function__, made to reach it where PyTorch's do:
iterating a tensor (PyTorch's __iter__ calls self.dim() and self.unbind(0), so a subclass's handler sees both and
the rows come out as the subclass, as MONAI's MetaTensor relies on) and reading .data (PyTorch dispatches the
getter, so a subclass keeps its type). Plain tensors and nn.Parameter take the core's path unchanged."""
from . import _C
from .overrides import handle_torch_function

_has_torch_function_unary = _C._has_torch_function_unary


def install():
    core_iter = _C.Tensor.__iter__

    def __iter__(self):
        if not _has_torch_function_unary(self):
            return core_iter(self)
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    _C.Tensor.__iter__ = __iter__
    data = _C.Tensor.__dict__["data"]
    core_get = data.fget

    def get_data(self):
        if _has_torch_function_unary(self):
            return handle_torch_function(_C.Tensor.data.__get__, (self,), self)
        return core_get(self)

    _C.Tensor.data = property(get_data, data.fset, data.fdel, data.__doc__)
