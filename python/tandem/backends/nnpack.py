"""tandem.backends.nnpack, as torch.backends.nnpack: tandem has no NNPACK convolutions, so it is never
available; the enabled flag is kept (PyTorch's default True and its check) so ``flags``/``set_flags`` work."""
import contextlib

__all__ = ["is_available", "flags", "set_flags"]

_enabled = [True]


def is_available():
    """False: tandem is not built with NNPACK."""
    return False


def set_flags(_enabled_value):
    """Sets the flag and returns the previous flags as a tuple, as PyTorch's."""
    if not isinstance(_enabled_value, bool):
        raise RuntimeError(f"set_enabled_NNPACK expects a bool, but got {type(_enabled_value).__name__}")
    orig_flags = (_enabled[0],)
    _enabled[0] = _enabled_value
    return orig_flags


@contextlib.contextmanager
def flags(enabled=False):
    """Sets the flag inside the ``with`` block and restores it after."""
    orig_flags = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(orig_flags[0])
