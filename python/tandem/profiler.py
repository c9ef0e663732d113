"""tandem.profiler: which lines of your code move data across the host/device boundary, and what it costs.

``with tandem.profiler.transfers() as prof:`` records every host->device, device->host and device->device copy
and every device sync (the functions of src/backend/transfer.h) with its bytes, duration, whether it was
implicit, the op and the first source line outside tandem. Recording is process-wide: crossings of every thread
are recorded (each event names its thread). Profilers nest: each sees the crossings made while it was open.
"""
import contextlib
import enum
import gc
import json
import os
from typing import NamedTuple

from . import _C

__all__ = ["transfers", "TransferEvent", "record_function", "profile", "ProfilerActivity"]


class ProfilerActivity(enum.Enum):
    """The activities ``torch.profiler.profile(activities=...)`` takes (so the call's arguments evaluate)."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class record_function(contextlib.ContextDecorator):
    """PyTorch's ``record_function(name)``: marks a region (``with`` block or decorated function) for a profiler.
    Outside a profile it does nothing, as in PyTorch; tandem has no op-level profiler (``profile`` below), so
    programs that mark their regions run unchanged."""

    def __init__(self, name: str, args=None):
        self.name, self.args = name, args

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class profile:
    """``torch.profiler.profile`` records every op's time; tandem has no op-level profiler yet, so this refuses
    clearly instead of returning an empty table. ``tandem.profiler.transfers()`` records every host/device
    crossing and sync with the source line that caused it."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tandem has no op-level profiler (torch.profiler.profile)\nhint: "
                                  "tandem.profiler.transfers() records host/device copies and syncs with their "
                                  "source lines; time regions with time.perf_counter() and tandem.cuda.synchronize()")


class TransferEvent(NamedTuple):
    """One crossing. ``start`` and ``duration`` are in seconds (``start`` from the profiler's start)."""
    direction: str  # host_to_device, device_to_host, device_to_device or sync
    source: str  # the device the bytes come from (the synced device for a sync)
    target: str
    nbytes: int
    op: str  # ".item()", ".cpu()", "print", ...; "" for a value an op read or moved on its own
    explicit: bool
    filename: str
    lineno: int
    function: str
    thread: int  # threading.get_ident() of the thread that crossed
    start: float
    duration: float

    @property
    def location(self):
        return f"{os.path.basename(self.filename or '?')}:{self.lineno}"


def _events(fetch, *args):
    # Hundreds of thousands of new tuples would trigger the cyclic collector many times over; none form cycles.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return list(map(TransferEvent._make, fetch(*args)))
    finally:
        if enabled:
            gc.enable()


def _fmt_time(s):
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


class transfers:
    """Context manager recording every crossing of the host/device boundary while it is open.

    After (or during) the block: ``prof.events`` (a list of TransferEvent), ``prof.summary()`` (a table grouped by
    source line and op, most expensive first), ``prof.to_json()``, ``prof.to_dataframe()`` (needs pandas).
    """

    def __init__(self):
        self._start = None
        self._t0_ns = 0
        self._events = []

    def __enter__(self):
        self._start, self._t0_ns = _C._profiler_start()
        self._events = []
        return self

    def __exit__(self, *exc):
        start, self._start = self._start, None
        self._events = _events(_C._profiler_stop, start, self._t0_ns)
        return False

    @property
    def events(self):
        """The crossings recorded so far, in order."""
        if self._start is not None:
            return _events(_C._profiler_events, self._start, self._t0_ns)
        return list(self._events)

    def groups(self):
        """(location, op, explicit) -> [count, bytes, seconds, directions], most total time first."""
        groups = {}
        for e in self.events:
            g = groups.setdefault((e.location, e.op, e.explicit), [0, 0, 0.0, []])
            g[0] += 1
            g[1] += e.nbytes
            g[2] += e.duration
            if e.direction not in g[3]:
                g[3].append(e.direction)
        return dict(sorted(groups.items(), key=lambda kv: (-kv[1][2], -kv[1][0])))

    def summary(self, limit=20):
        """A table of the crossings grouped by source line and op, sorted by total time (returned as a string)."""
        events = self.events
        total = sum(e.duration for e in events)
        implicit = sum(not e.explicit for e in events)
        head = (f"tandem transfers: {len(events)} crossings ({implicit} implicit), "
                f"{_fmt_bytes(sum(e.nbytes for e in events))}, {_fmt_time(total)}")
        rows = [("location", "op", "kind", "direction", "count", "bytes", "total", "mean")]
        for (location, op, explicit, ), (count, nbytes, secs, directions) in list(self.groups().items())[:limit]:
            rows.append((location, op or "(inside an op)", "explicit" if explicit else "implicit",
                         "+".join(directions), str(count), _fmt_bytes(nbytes), _fmt_time(secs),
                         _fmt_time(secs / count)))
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        right = {4, 5, 6, 7}
        lines = [head]
        for r in rows:
            lines.append("  ".join(c.rjust(w) if i in right else c.ljust(w)
                                   for i, (c, w) in enumerate(zip(r, widths))).rstrip())
        return "\n".join(lines)

    def __str__(self):
        return self.summary()

    def to_json(self, **kwargs):
        """The raw events as a JSON list of objects (keyword arguments go to json.dumps)."""
        return json.dumps([e._asdict() for e in self.events], **kwargs)

    def to_dataframe(self):
        """The raw events as a pandas DataFrame, one row per crossing."""
        import pandas as pd
        return pd.DataFrame(self.events, columns=TransferEvent._fields)
