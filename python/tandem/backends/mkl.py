"""tandem.backends.mkl, as torch.backends.mkl: tandem's BLAS and LAPACK are OpenBLAS's, not Intel oneMKL's, so
MKL is never available and its verbose mode cannot be switched on (PyTorch's error for a build without MKL)."""
__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available():
    """False: tandem is not built with MKL (tandem.has_mkl)."""
    from .. import _build_queries  # noqa: PLC0415  (loaded after tandem.backends)
    return _build_queries.has_mkl


class verbose:  # noqa: N801  (PyTorch's name)
    """``with tandem.backends.mkl.verbose(level):`` -- VERBOSE_OFF does nothing; any other level raises, as
    PyTorch's does when MKL cannot report."""

    def __init__(self, enable):
        self.enable = enable

    def __enter__(self):
        if self.enable == VERBOSE_OFF:
            return None
        raise AssertionError("Failed to set MKL into verbose mode. Please consider to disable this verbose scope.")

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
