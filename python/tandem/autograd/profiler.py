"""tandem.autograd.profiler, as torch.autograd.profiler: ``profile`` (the recording torch.profiler.profile
drives), ``record_function``, ``emit_nvtx`` (no NVTX: a context that does nothing) and the event classes."""
from .._profiler_events import EventList, FunctionEvent, FunctionEventAvg
from .._profiler_session import emit_nvtx, profile, record_function

__all__ = ["profile", "record_function", "emit_nvtx", "EventList", "FunctionEvent", "FunctionEventAvg"]
