"""nn.Parameter: a Tensor that a Module registers as trainable when assigned as an attribute; nn.Buffer: a Tensor
marked to be registered as a buffer (persistent or not) when assigned as one; the lazy layers' placeholders
(UninitializedParameter, UninitializedBuffer), here as in PyTorch."""
import tandem

from .. import _C
from .._C import Tensor
from .._layouts import is_sparse_tensor
from ..overrides import _disabled_torch_function_impl


class Parameter(Tensor):
    """A tensor that shares ``data``'s memory, requires grad by default, and is found by Module.parameters()."""

    # As in PyTorch, parameters opt out of __torch_function__: an op on a Parameter returns a plain Tensor.
    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        elif is_sparse_tensor(data):
            # A sparse tensor's C++ tensor is a placeholder (tandem/sparse/_base.py): a Parameter over it would
            # hold zeros.
            raise NotImplementedError(f"nn.Parameter of a sparse tensor ({data.layout}) is not supported\nhint: "
                                      "make the values the Parameter (nn.Parameter(t.values())) and build the "
                                      "sparse tensor from them in forward, or register it as a buffer")
        elif not isinstance(data, Tensor):
            data = data.detach()  # PyTorch's Parameter detaches what it is given: a list has no detach()
        return Tensor._make_subclass(cls, data, requires_grad)  # its argument checks: requires_grad is a bool

    # No __init__, as in PyTorch (Tensor's takes any arguments): a subclass whose __new__ takes more arguments
    # (geoopt's ManifoldParameter(data, manifold=...)) is built by its __new__ alone.

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        # PyTorch's copy is the data and requires_grad only: no .grad, no attributes
        result = type(self)(untracked(self).clone(), self.requires_grad)
        memo[id(self)] = result
        return result


class _BufferMeta(type):
    # isinstance(t, nn.Buffer) is true for tensors nn.Buffer() marked, as PyTorch's metaclass makes it.
    def __instancecheck__(cls, instance):
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False) is True


class Buffer(metaclass=_BufferMeta):
    """``nn.Buffer(data, persistent=True)``: ``data`` detached (keeping requires_grad), marked so that assigning it
    to a Module attribute registers a buffer (``persistent=False``: left out of state_dict). As in PyTorch the
    result is a plain Tensor carrying ``persistent`` and ``_is_buffer`` attributes. (tandem's Tensor type cannot
    take a Python metaclass, so Buffer is not a Tensor subclass: issubclass(nn.Buffer, Tensor) is False.)"""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _C.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def untracked(t):
    """A plain tensor over ``t``'s memory that autograd does not track (what ``t.data`` is in PyTorch):
    in-place writes through it update ``t`` without recording anything."""
    return _C._make_subclass(Tensor, t, False)


def _uninitialized_shape(self):
    raise RuntimeError("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
                       "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
                       "`forward` to initialize the parameters before accessing their attributes.")


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet: an empty tensor on the right device and dtype."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _C._make_subclass(cls, tandem.empty(0, device=device, dtype=dtype), requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        """Gives the placeholder uninitialised storage of `shape` and makes it an ordinary Parameter."""
        _C._set_data(self, tandem.empty(shape, device=device or self.device, dtype=dtype or self.dtype))
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedParameter>"

    shape = property(_uninitialized_shape)  # PyTorch's: a placeholder has no shape to read yet

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.requires_grad, self.device, self.dtype)
        return memo[id(self)]


class UninitializedBuffer(Tensor):
    """A buffer whose shape is not known yet (LazyBatchNorm's running statistics)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _C._make_subclass(cls, tandem.empty(0, device=device, dtype=dtype), requires_grad)

    def materialize(self, shape, device=None, dtype=None):
        _C._set_data(self, tandem.empty(shape, device=device or self.device, dtype=dtype or self.dtype))
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return "<UninitializedBuffer>"

    shape = property(_uninitialized_shape)

    # Module.to()/cpu()/cuda() replace buffers by what these return: keep the placeholder a placeholder.
    def to(self, *args, **kwargs):
        return _C._make_subclass(UninitializedBuffer, super().to(*args, **kwargs), False)

    def cpu(self):
        return _C._make_subclass(UninitializedBuffer, super().cpu(), False)

    def cuda(self, *args, **kwargs):
        return _C._make_subclass(UninitializedBuffer, super().cuda(*args, **kwargs), False)


def is_lazy(tensor):
    return isinstance(tensor, (UninitializedParameter, UninitializedBuffer))
