"""``tandem.allow_host_conversion``: opt-in, scoped NumPy conversion of device tensors."""
import contextlib

from . import _C, _tensor_state


@contextlib.contextmanager
def allow_host_conversion(detach=True):
    """Inside the block, implicit NumPy conversions of device tensors copy them to the host.

    ``np.asarray(t)``, ``t.numpy()``, ``pd.DataFrame(t)``, ``plt.plot(t)`` and scikit-learn metrics then work
    on cuda tensors; each conversion is a device-to-host copy, counted by ``tandem.cuda.transfer_stats()``
    like any other. With ``detach=True`` tensors that require grad convert too (as ``t.detach()``); with
    ``detach=False`` they still raise. The setting is per thread, nests (the innermost block wins) and is
    restored on exit, also when the block raises. Usable as a decorator.
    """
    previous = _C._set_host_conversion(2 if detach else 1)
    try:
        yield
    finally:
        _C._set_host_conversion(previous)


def _tensor_copy(self):
    """``copy.copy(t)``: a new tensor object sharing ``t``'s memory, a leaf with its requires_grad (as PyTorch).

    Libraries keep shallow copies of their inputs (matplotlib's ``Line2D.set_data``), so plotting needs it.
    """
    result = self.detach()
    if type(result) is not type(self):  # a subclass (Parameter included) stays one, as in PyTorch
        result = _C._make_subclass(type(self), result, False)
    result.requires_grad_(self.requires_grad)
    # a subclass's (or a tagged tensor's) attributes and slots come along, as PyTorch's copy keeps them
    _tensor_state.set_state(result, _tensor_state.get_state(self))
    return result


_C.Tensor.__copy__ = _tensor_copy
