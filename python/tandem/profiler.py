"""tandem.profiler: torch.profiler's op-level profiler (``profile``, ``schedule``, ``record_function``,
``tensorboard_trace_handler``; docs/profiler.md), and ``transfers()``: which lines of your code move data across
the host/device boundary, and what it costs.

``with tandem.profiler.transfers() as prof:`` records every host->device, device->host and device->device copy
and every device sync (the functions of src/backend/transfer.h) with its bytes, duration, whether it was
implicit, the op and the first source line outside tandem. Recording is process-wide: crossings of every thread
are recorded (each event names its thread). Profilers nest: each sees the crossings made while it was open.
"""
import enum
import functools
import gc
import json
import os
import socket
import time
import warnings
from typing import NamedTuple

from . import _C
from . import _profiler_events as _pevents
from . import _profiler_session as _session
from ._profiler_events import DeviceType, EventList, FunctionEvent, FunctionEventAvg
from ._profiler_session import record_function

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "kineto_available", "DeviceType", "record_function", "transfers", "TransferEvent",
           "EventList", "FunctionEvent", "FunctionEventAvg"]


class ProfilerActivity(enum.Enum):
    """The activities ``profile(activities=...)`` takes: CPU records ops; CUDA adds device time and memcpys."""
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a schedule asks of the profiler at a step (torch.profiler.ProfilerAction)."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


def supported_activities():
    """The activities tandem records: CPU, and CUDA when a cuda device (real or emulated) is available."""
    from . import cuda
    return {ProfilerActivity.CPU, ProfilerActivity.CUDA} if cuda.is_available() else {ProfilerActivity.CPU}


def kineto_available():
    """True: torch.profiler.profile works (programs check this before profiling); tandem's recorder is its own."""
    return True


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """torch.profiler.schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle steps, ``warmup`` steps
    and ``active`` recorded steps (``repeat`` cycles, 0: until the end); the last active step of a cycle is
    RECORD_AND_SAVE (the trace is handed to on_trace_ready after it)."""

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


def _default_schedule_fn(_):
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False, use_python_export=False):
    """An on_trace_ready handler writing each trace as ``<dir_name>/<worker>.<ns>.pt.trace.json[.gz]``."""

    def handler_fn(prof):
        nonlocal worker_name
        os.makedirs(dir_name, exist_ok=True)
        if not worker_name:
            worker_name = f"{socket.gethostname()}_{os.getpid()}"
        file_name = f"{worker_name}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        prof.export_chrome_trace(os.path.join(dir_name, file_name))

    return handler_fn


class profile:
    """torch.profiler.profile: records tandem's ops (``aten::`` names), autograd's backward nodes and
    record_function ranges on every thread, following ``schedule`` step by step (``prof.step()``).

    ``key_averages()`` / ``events()`` / ``export_chrome_trace()`` give the last recorded cycle. With
    ``ProfilerActivity.CUDA``, ops on a cuda device also count as device time (their CPU-side times: tandem has
    no CUPTI) and host/device copies appear as Memcpy rows. ``with_stack`` gives each event the Python stack
    that issued it (``event.stack``, ``key_averages(group_by_stack_n=N)``, ``export_stacks``); ``with_modules``
    is deprecated as in PyTorch (with_stack records the nn.Module entries)."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        self.activities = set(activities) if activities else supported_activities()
        if len(self.activities) == 0:
            raise AssertionError("No valid profiler activities found")
        for a in self.activities:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"activities must be ProfilerActivity values, not {type(a).__name__}")
        self.use_device = "cuda" if ProfilerActivity.CUDA in self.activities else None
        self.record_shapes = record_shapes
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.with_modules = with_modules
        self.acc_events = acc_events
        self.execution_trace_observer = execution_trace_observer
        self.custom_trace_id_callback = custom_trace_id_callback
        self.profiler = None
        self.mem_tl = None
        self.preset_metadata = {}
        if schedule:
            self.schedule, self.record_steps = schedule, True
        else:
            self.schedule, self.record_steps = _default_schedule_fn, False
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self._prev_schedule_action = self.current_action
        A = ProfilerAction
        warn_record_none = functools.partial(warnings.warn, "Incorrect schedule: RECORD followed by NONE")
        warn_record_warmup = functools.partial(warnings.warn, "Incorrect schedule: RECORD followed by WARMUP")
        warn_warmup_none = functools.partial(warnings.warn, "Incorrect schedule: WARMUP followed by NONE")
        # PyTorch's transitions between the actions of two consecutive steps (None: the profiler stops).
        self.action_map = {
            (A.NONE, A.NONE): [], (A.NONE, A.WARMUP): [self.prepare_trace],
            (A.NONE, A.RECORD): [self.prepare_trace, self.start_trace],
            (A.NONE, A.RECORD_AND_SAVE): [self.prepare_trace, self.start_trace],
            (A.WARMUP, A.NONE): [warn_warmup_none, self.start_trace, self.stop_trace],
            (A.WARMUP, A.WARMUP): [], (A.WARMUP, A.RECORD): [self.start_trace],
            (A.WARMUP, A.RECORD_AND_SAVE): [self.start_trace],
            (A.RECORD, A.NONE): [warn_record_none, self.stop_trace],
            (A.RECORD, A.WARMUP): [warn_record_warmup, self.stop_trace],
            (A.RECORD, A.RECORD): [], (A.RECORD, A.RECORD_AND_SAVE): [],
            (A.RECORD_AND_SAVE, A.NONE): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, A.WARMUP): [self.stop_trace, self._trace_ready, self.prepare_trace],
            (A.RECORD_AND_SAVE, A.RECORD): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                            self.start_trace],
            (A.RECORD_AND_SAVE, A.RECORD_AND_SAVE): [self.stop_trace, self._trace_ready, self.prepare_trace,
                                                     self.start_trace],
            (A.WARMUP, None): [self.start_trace, self.stop_trace],
            (A.RECORD, None): [self.stop_trace, self._trace_ready],
            (A.RECORD_AND_SAVE, None): [self.stop_trace, self._trace_ready],
        }

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)
        self.current_action = self._prev_schedule_action

    def step(self):
        """Signals that the next step starts: the schedule's action for it decides what is recorded."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._prev_schedule_action = self.current_action
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function("ProfilerStep#" + str(self.step_num))
            self.step_rec_fn.__enter__()

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), []):
            action()

    def prepare_trace(self):
        if self.profiler is None or not self.acc_events:
            self.profiler = _session.profile(use_device=self.use_device, record_shapes=self.record_shapes,
                                             with_flops=self.with_flops, profile_memory=self.profile_memory,
                                             with_stack=self.with_stack, with_modules=self.with_modules,
                                             acc_events=self.acc_events)

    def start_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before starting trace")
        self.profiler.__enter__()

    def stop_trace(self):
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before stopping trace")
        self.profiler.__exit__(None, None, None)

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def events(self):
        """The recorded events (an EventList of FunctionEvent, by start time)."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before accessing events")
        if self.profiler.function_events is None:  # still recording: its events come at stop
            return _pevents.EventList(use_device=self.use_device)
        return self.profiler.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        """The events grouped by name (and input shapes, stack), as an EventList whose table() prints
        PyTorch's table."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before getting key averages")
        if self.profiler.function_events is None:
            return _pevents.EventList(use_device=self.use_device)
        return self.profiler.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path):
        """The trace as Chrome trace JSON (chrome://tracing, Perfetto); a path ending in .gz is gzipped."""
        if not self.profiler:
            raise AssertionError("Profiler must be initialized before exporting chrome trace")
        self.profiler._metadata = dict(self.preset_metadata)
        return self.profiler.export_chrome_trace(path)

    def add_metadata(self, key, value):
        """A string added to the trace's top-level fields."""
        self.preset_metadata[key] = str(value)

    def add_metadata_json(self, key, value):
        """A JSON value (given as its text) added to the trace's top-level fields."""
        self.preset_metadata[key] = json.loads(value)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """The with_stack stacks as flamegraph "collapsed" lines, ``frame;frame;... value`` (outermost first,
        the metric in us: "self_cpu_time_total" or "self_cuda_time_total")."""
        if self.profiler is None:
            raise AssertionError("Profiler must be initialized before exporting stacks")
        return self.profiler.export_stacks(path, metric)


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
