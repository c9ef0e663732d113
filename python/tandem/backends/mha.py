"""tandem.backends.mha, as torch.backends.mha: the switch of nn.MultiheadAttention's and
nn.TransformerEncoderLayer's fused inference path. tandem has no such path (its attention modules always run
the composed forward), so the flag is only stored and read back, unchecked, as PyTorch stores it."""
__all__ = ["get_fastpath_enabled", "set_fastpath_enabled"]

_is_fastpath_enabled = True


def get_fastpath_enabled() -> bool:
    """The value last set (True by default); it does not change which forward tandem runs."""
    return _is_fastpath_enabled


def set_fastpath_enabled(value: bool) -> None:
    global _is_fastpath_enabled
    _is_fastpath_enabled = value
