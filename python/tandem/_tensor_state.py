"""The Python state of a tensor object, as PyTorch's copy.copy, copy.deepcopy, pickle and torch.save carry it: the
attributes set on it (a subclass's or a plain tensor's `t.note = 3`), a subclass's __slots__, or whatever a
subclass's own __getstate__ returns; and Tensor.__deepcopy__ for subclasses and tensors with such state (the
plain case stays the C++ method)."""
import copy as _copy

from . import _C

_cpp_deepcopy = _C.Tensor.__deepcopy__  # the data, requires_grad and .grad of a leaf, memoised

_NOT_A_WORKING_NEW_EMPTY = (
    "The default implementation of __deepcopy__() for non-wrapper subclasses only works for subclass types that "
    "implement new_empty() and for which that function returns another instance of the same subclass. You should "
    "either properly implement new_empty() for your subclass or override __deepcopy__() if it is intended behavior "
    "for new_empty() to return an instance of a different type.")


def get_state(t):
    """What pickling keeps of t's Python object: its __getstate__() (object's default is the attribute dict, or
    (dict, slots) for a class with __slots__; None when there is nothing)."""
    return t.__getstate__()


def has_state(state):
    if isinstance(state, tuple) and len(state) == 2:
        return bool(state[0]) or bool(state[1])
    return bool(state)


def set_state(t, state):
    """Puts `state` back as pickle's BUILD would: the class's own __setstate__ when it has one, else the
    attributes (and slots) set one by one."""
    if state is None:
        return
    setstate = getattr(t, "__setstate__", None)
    if setstate is not None:
        setstate(state)
        return
    attributes, slots = state if isinstance(state, tuple) and len(state) == 2 else (state, None)
    for values in (attributes, slots):
        for name, value in (values or {}).items():
            setattr(t, name, value)


def tensor_deepcopy(self, memo):
    """copy.deepcopy(t): the C++ copy of the data (a leaf's, with requires_grad and .grad) made into an instance
    of t's class and given a deep copy of its Python state. A subclass is copied through its new_empty(), which
    must return the subclass (PyTorch's rule: under the default __torch_function__ it returns a plain tensor, and
    the copy is refused with PyTorch's message)."""
    if id(self) in memo:
        return memo[id(self)]
    state = get_state(self)
    if type(self) is _C.Tensor and not has_state(state):
        return _cpp_deepcopy(self, memo)
    data = _cpp_deepcopy(self, {})  # refuses a tensor that is not a leaf
    result = data
    if type(self) is not _C.Tensor:
        result = self.new_empty([])
        if type(result) is not type(self):
            raise RuntimeError(_NOT_A_WORKING_NEW_EMPTY)
        result.set_(data.detach())
        result.requires_grad_(data.requires_grad)
        if data.grad is not None:
            result.grad = data.grad
    memo[id(self)] = result
    set_state(result, _copy.deepcopy(state, memo))
    return result


_C.Tensor.__deepcopy__ = tensor_deepcopy
