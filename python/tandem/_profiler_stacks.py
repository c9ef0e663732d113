"""with_stack's Python call stacks: the C++ hook (python/src/op_profiler_stacks.cpp) keeps, per profiled event,
the frames outside tandem as (code object, line) and (module, -1) pairs; this module starts and stops it and
turns them into PyTorch's ``event.stack`` strings, innermost first: ``"train.py(12): step"`` (the file relative
to its sys.path entry, the function's first line, or the line it was at for a frame already open when
profiling started) and ``"nn.Module: Linear_0"`` (class name, then the order in which modules of that class
were first seen)."""
import os
import sys

from . import _C

_PACKAGE_PREFIX = os.path.dirname(os.path.abspath(__file__)) + os.sep


def start():
    from .nn.modules.module import Module
    _C._op_profiler_stacks_start(_PACKAGE_PREFIX, Module.__call__.__code__)


def stop():
    """([(event id, stack index)], [[(code or module, line), ...], ...]) of the events captured since start."""
    return _C._op_profiler_stacks_stop()


def _path_shortener():
    # The longest sys.path entry that holds the file is cut off, as PyTorch's tracer does ("torch/nn/...").
    roots = sorted({os.path.join(os.path.abspath(p), "") for p in sys.path if isinstance(p, str)}, key=len,
                   reverse=True)

    def shorten(filename):
        for root in roots:
            if filename.startswith(root):
                return filename[len(root):]
        return filename

    return shorten


def attach(events, captured):
    """Sets each event's ``stack``; an op started with no Python frame of its own (inside another op, with the
    interpreter lock released) has the stack of the event it runs in."""
    event_stacks, stacks = captured
    by_event = dict(event_stacks)
    shorten = _path_shortener()
    formatted = {}
    module_names = {}
    per_class = {}

    def entry(obj, line):
        if line == -1:
            name = module_names.get(id(obj))
            if name is None:
                cls = type(obj).__name__
                k = per_class.get(cls, 0)
                per_class[cls] = k + 1
                name = module_names[id(obj)] = f"nn.Module: {cls}_{k}"
            return name
        return f"{shorten(obj.co_filename)}({line}): {obj.co_name}"

    def stack_of(index):
        out = formatted.get(index)
        if out is None:
            raw = stacks[index]
            # Outermost first, so that modules are numbered in the order they were called.
            out = [entry(obj, line) for obj, line in reversed(raw)]
            out.reverse()
            formatted[index] = out
        return out

    for e in events:  # by start time: a parent's stack is set before its children's
        index = by_event.get(e.id)
        if index is not None:
            e.stack = list(stack_of(index))
        elif e.cpu_parent is not None and e.cpu_parent.stack and e.category in ("cpu_op", "user_annotation"):
            e.stack = list(e.cpu_parent.stack)
