"""torch.autograd's anomaly mode. While it is on, every autograd node records the traceback of the forward call
that created it, and the C++ engine checks each node's returned gradients for NaN (src/autograd/anomaly_mode.h):
a NaN raises ``RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.``, and any error
raised by a node is preceded by PyTorch's UserWarning naming the node and that forward traceback. Off (the
default) it costs the engine one flag test per node."""
import warnings

from .. import _C

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def is_anomaly_enabled():
    return _C.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return _C.is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled, check_nan=True):
    """torch.set_anomaly_enabled: the switch detect_anomaly and set_detect_anomaly use. Like PyTorch's parser it
    takes bools only (set_detect_anomaly(1) is a TypeError)."""
    for label, position, value in (("enabled", 1, enabled), ("check_nan", 2, check_nan)):
        if not isinstance(value, bool):
            kind = type(value)
            name = "Tensor" if isinstance(value, _C.Tensor) else (
                kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}")
            raise TypeError(f"set_anomaly_enabled(): argument '{label}' (position {position}) must be bool, not "
                            f"{name}")
    _C.set_anomaly_enabled(enabled, check_nan)


class detect_anomaly:
    """``with detect_anomaly(check_nan=True):`` turns anomaly mode on for the block (with PyTorch's warning that
    it slows the program down), restoring the previous mode on exit."""

    def __init__(self, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """``set_detect_anomaly(mode, check_nan=True)`` sets anomaly mode at once; used as a context manager it
    restores the previous mode on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)
