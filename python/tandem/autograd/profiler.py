"""tandem.autograd.profiler, as torch.autograd.profiler: record_function marks regions (a no-op outside a
profile); profile refuses (tandem has no op-level profiler: see tandem.profiler.transfers)."""
from ..profiler import profile, record_function

__all__ = ["profile", "record_function"]
