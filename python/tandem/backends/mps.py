"""tandem.backends.mps, as torch.backends.mps, so device-selection code (``"mps" if
torch.backends.mps.is_available() else "cpu"``) runs: tandem has no Metal backend."""

__all__ = ["is_available", "is_built"]


def is_available():
    return False


def is_built():
    return False
