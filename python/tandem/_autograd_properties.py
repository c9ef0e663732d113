"""Two autograd attributes with PyTorch's rules the core's properties lack: `del t.grad` clears the gradient (as
`t.grad = None`), and `t.requires_grad = True` on a non-leaf is PyTorch's RuntimeError (the core already refuses
False), as are a value that is no bool (1, None, a NumPy bool) and `del t.requires_grad` ("requires_grad must be a
bool"). The getters stay the core's (read on every hot path)."""
from . import _C


def _checked_requires_grad_setter(core_set):
    def set_requires_grad(self, value):
        if type(value) is not bool:  # PyTorch's PyBool_Check: 1, None, a NumPy bool or deletion
            raise RuntimeError("requires_grad must be a bool")
        if value is True and self.grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        core_set(self, value)

    return set_requires_grad


def install():
    grad = _C.Tensor.__dict__["grad"]
    _C.Tensor.grad = property(grad.fget, grad.fset, lambda self: grad.fset(self, None), grad.__doc__)
    requires_grad = _C.Tensor.__dict__["requires_grad"]
    set_requires_grad = _checked_requires_grad_setter(requires_grad.fset)
    _C.Tensor.requires_grad = property(requires_grad.fget, set_requires_grad,
                                       lambda self: set_requires_grad(self, None), requires_grad.__doc__)
