"""tandem.cuda.nvtx: PyTorch's NVTX marker API. tandem has no NVTX binding, so these are no-op markers that keep
programs running unchanged (profilers see no ranges); range_push/range_pop still return the nesting depth as
PyTorch's do (0-based depth of the pushed range, and the depth left after popping; -1 when nothing was open)."""
from contextlib import contextmanager

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]

_depth = 0
_next_range_id = 0


def range_push(msg):
    """Opens a nested range named `msg`; returns its depth."""
    global _depth
    _depth += 1
    return _depth - 1


def range_pop():
    """Closes the innermost range; returns the depth of the range that ended, or -1 when none was open."""
    global _depth
    if _depth == 0:
        return -1
    _depth -= 1
    return _depth


def range_start(msg):
    """Starts a range that may end on another thread; returns its id for range_end."""
    global _next_range_id
    _next_range_id += 1
    return _next_range_id


def range_end(range_id):
    pass


def mark(msg):
    """An instantaneous event (no-op without an NVTX binding)."""


@contextmanager
def range(msg, *args, **kwargs):
    """`with nvtx.range("name {}", i):` pushes the formatted name and pops it on exit."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
