"""tandem.backends.opt_einsum, as torch.backends.opt_einsum: tandem.einsum contracts its operands from left to
right and never asks the opt_einsum package for a contraction path, so opt_einsum counts as unavailable (even
when installed) and the flags answer and refuse as PyTorch's do when the package is missing: set_flags/flags
refuse to enable it, a plain assignment to ``enabled``/``strategy`` is stored unchecked (and changes nothing)."""
import contextlib

__all__ = ["is_available", "get_opt_einsum", "flags", "set_flags", "enabled", "strategy"]

# Plain module attributes, as PyTorch's are without the package: assigning them is not checked.
enabled = False
strategy = None


def is_available() -> bool:
    """False: tandem.einsum does not use opt_einsum."""
    return False


def get_opt_einsum():
    """None: no opt_einsum package is in use."""
    return None


def _set_enabled(_enabled):
    global enabled
    if _enabled:
        raise ValueError(f"opt_einsum is not available, so setting `enabled` to {_enabled} will not reap the benefits "
                         "of calculating an optimal path for einsum. torch.einsum will fall back to contracting from "
                         "left to right. To enable this optimal path calculation, please install opt-einsum.")
    enabled = _enabled


def _set_strategy(_strategy):
    raise ValueError(f"opt_einsum is not available, so setting `strategy` to {_strategy} will not be meaningful. "
                     "torch.einsum will bypass path calculation and simply contract from left to right. Please "
                     "install opt_einsum or unset `strategy`.")


def set_flags(_enabled=None, _strategy=None):
    """Sets the flags given (None: unchanged) and returns the previous ones, as PyTorch's."""
    orig_flags = (enabled, None)
    if _enabled is not None:
        _set_enabled(_enabled)
    if _strategy is not None:
        _set_strategy(_strategy)
    return orig_flags


@contextlib.contextmanager
def flags(enabled=None, strategy=None):
    """Sets the flags for the duration of the ``with`` block and restores them after."""
    orig_flags = set_flags(enabled, strategy)
    try:
        yield
    finally:
        set_flags(*orig_flags)
