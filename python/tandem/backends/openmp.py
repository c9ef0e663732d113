"""tandem.backends.openmp, as torch.backends.openmp: tandem's CPU kernels run their threads with OpenMP."""
__all__ = ["is_available"]


def is_available():
    """True: tandem's CPU thread pool is OpenMP's (tandem.has_openmp; tandem.set_num_threads sizes it)."""
    from .. import _build_queries  # noqa: PLC0415  (loaded after tandem.backends)
    return _build_queries.has_openmp
