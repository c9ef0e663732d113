"""torch.autograd's anomaly-mode switches. PyTorch's anomaly mode checks every backward node's outputs for NaN
and records forward stack traces; tandem's C++ engine has no per-node hook for that yet, so turning it on
raises NotImplementedError with the way round, and turning it off (what training scripts do for speed) works."""
__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"]

_HINT = ("hint: tandem's autograd engine cannot check each backward node for NaN yet; find the first NaN with "
         "tensor hooks (t.register_hook(lambda g: print(g.isnan().any()))) or torch.autograd.gradcheck")


def _refuse():
    raise NotImplementedError("anomaly detection (torch.autograd.detect_anomaly) is not supported by tandem\n"
                              + _HINT)


def is_anomaly_enabled():
    return False


def is_anomaly_check_nan_enabled():
    return True  # PyTorch's default; it applies only while anomaly mode is on


class detect_anomaly:
    """``with detect_anomaly():`` / ``@detect_anomaly()``: refused (see the module docstring)."""

    def __init__(self, check_nan=True):
        _refuse()


class set_detect_anomaly:
    """``set_detect_anomaly(False)`` (also as a context manager) is accepted; ``True`` is refused."""

    def __init__(self, mode, check_nan=True):
        if mode:
            _refuse()
        self.prev = False

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
