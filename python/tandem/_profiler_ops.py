"""torch.ops.profiler._record_function_enter / _record_function_exit: record_function's range as two operators,
which programs call by those names (pytorch/examples' fx/profiling_tracer.py puts them in a traced graph so the
range survives tracing). The handle is an int64 tensor holding the profiler's token (session, index, thread), empty
when no profiler records, so the range pairs up however the graph runs."""
from . import _C
from ._library import registry


def _record_function_enter(name, args=None):
    import tandem  # noqa: PLC0415 (installed while tandem itself is importing)

    token = _C._record_function_enter(name)
    return tandem.tensor(list(token) if token is not None else [], dtype=tandem.int64)


def _record_function_exit(handle):
    if handle.numel() == 3:
        _C._record_function_exit(tuple(int(v) for v in handle.tolist()))


def install():
    for schema, kernel in (("_record_function_enter(str name, str? args=None) -> Tensor", _record_function_enter),
                           ("_record_function_exit(Tensor handle) -> ()", _record_function_exit)):
        op = registry.define("profiler", schema, location=__file__)
        registry.add_kernel(f"profiler::{op._opname}", None, "CompositeExplicitAutograd", kernel)
