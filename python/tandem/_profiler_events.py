"""The events of tandem's op-level profiler in PyTorch's shapes (torch.autograd.profiler_util): FunctionEvent,
FunctionEventAvg, EventList with its table() and Chrome trace. The C++ recorder (src/core/profiler.h) gives
flat tuples; build_events() links them into trees (parent/children, per thread) so self times and memory
follow PyTorch's definitions: self = total minus the children's totals."""
import enum
import gzip
import json
import math
import os
from collections import defaultdict

__all__ = ["DeviceType", "Interval", "Kernel", "FunctionEvent", "FunctionEventAvg", "EventList"]


class DeviceType(enum.Enum):
    """torch.autograd.DeviceType's values for the devices tandem has."""
    CPU = 0
    CUDA = 1


class Interval:
    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start

    def __repr__(self):
        return f"Interval(start={self.start}, end={self.end})"


class Kernel:
    """A device-side activity of an op. tandem has no CUPTI: a device op's kernel is the op's own CPU-side time
    range (for the emulated device that is the time to queue the work)."""

    def __init__(self, name, device, duration):
        self.name, self.device, self.duration = name, device, duration

    def __repr__(self):
        return f"Kernel(name={self.name!r}, device={self.device}, duration={self.duration})"


def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us, total_time_us):
    if total_time_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_time_us:.2f}%"


def _format_memory(nbytes):
    kb, mb, gb = 1024, 1024 ** 2, 1024 ** 3
    if abs(nbytes) >= gb:
        return f"{nbytes * 1.0 / gb:.2f} GB"
    if abs(nbytes) >= mb:
        return f"{nbytes * 1.0 / mb:.2f} MB"
    if abs(nbytes) >= kb:
        return f"{nbytes * 1.0 / kb:.2f} KB"
    return str(nbytes) + " B"


class _FormattedTimes:
    """The *_str properties and averages PyTorch's events have."""
    cpu_time_str = property(lambda self: _format_time(self.cpu_time))
    cpu_time_total_str = property(lambda self: _format_time(self.cpu_time_total))
    self_cpu_time_total_str = property(lambda self: _format_time(self.self_cpu_time_total))
    device_time_str = property(lambda self: _format_time(self.device_time))
    device_time_total_str = property(lambda self: _format_time(self.device_time_total))
    self_device_time_total_str = property(lambda self: _format_time(self.self_device_time_total))

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else self.device_time_total / self.count

    # PyTorch's older names for the device columns.
    cuda_time = property(lambda self: self.device_time)
    cuda_time_total = property(lambda self: self.device_time_total)
    self_cuda_time_total = property(lambda self: self.self_device_time_total)
    cuda_memory_usage = property(lambda self: self.device_memory_usage)
    self_cuda_memory_usage = property(lambda self: self.self_device_memory_usage)


class FunctionEvent(_FormattedTimes):
    """One recorded op, backward node, record_function range, memcpy or "[memory]" event. Times in us."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, input_dtypes=None, device_type=None,
                 device_index=0, self_cpu_memory_usage=0, self_device_memory_usage=0, is_user_annotation=False,
                 use_device=None, trace_name=None, category="cpu_op", os_thread=0):
        self.id = id
        self.node_id = -1
        self.name = name
        self.overload_name = ""
        self.trace_name = trace_name or name
        self.time_range = Interval(start_us, end_us)
        self.thread = thread
        self.fwd_thread = None
        self.os_thread = os_thread
        self.kernels = []
        self.count = 1
        self.cpu_children = []
        self.cpu_parent = None
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.input_dtypes = input_dtypes if input_dtypes is not None else []
        self.concrete_inputs = []
        self.kwinputs = {}
        self.stack = []
        self.scope = 0
        self.use_device = use_device
        self.device_type = device_type or DeviceType.CPU
        self.device_index = device_index
        self.device_resource_id = thread
        self.is_legacy = False
        self.is_async = False
        self.is_remote = False
        self.is_user_annotation = is_user_annotation
        self.is_python_function = False
        self.sequence_nr = -1
        self.flops = 0
        self.category = category
        self.self_cpu_memory_usage = self_cpu_memory_usage
        self.self_device_memory_usage = self_device_memory_usage
        self.cpu_memory_usage = self_cpu_memory_usage  # with the children's, once linked
        self.device_memory_usage = self_device_memory_usage
        self.metadata = None

    key = property(lambda self: self.name)

    def append_kernel(self, name, device, duration):
        self.kernels.append(Kernel(name, device, duration))

    def append_cpu_child(self, child):
        self.cpu_children.append(child)

    def set_cpu_parent(self, parent):
        self.cpu_parent = parent

    @property
    def cpu_time_total(self):
        return 0 if self.device_type != DeviceType.CPU else self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self):
        if self.is_async or self.device_type != DeviceType.CPU:
            return 0
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def device_time_total(self):
        if self.device_type != DeviceType.CPU:
            return self.time_range.elapsed_us()
        return sum(k.duration for k in self.kernels) + sum(c.device_time_total for c in self.cpu_children)

    @property
    def self_device_time_total(self):
        if self.device_type != DeviceType.CPU:
            return self.time_range.elapsed_us()
        return sum(k.duration for k in self.kernels)

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} device_type={self.device_type} "
                f"cpu_time={self.cpu_time_str} start_us={self.time_range.start} end_us={self.time_range.end} "
                f"cpu_children={[c.id for c in self.cpu_children]} cpu_time={self.cpu_time_str} "
                f"device_time={self.device_time_str} thread={self.thread} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} device_memory_usage={self.device_memory_usage} "
                f"is_user_annotation={self.is_user_annotation}>")


class FunctionEventAvg(_FormattedTimes):
    """The events of one key (name, and input shapes or stack when grouped by them) added up."""

    def __init__(self):
        self.key = None
        self.count = 0
        self.node_id = 0
        self.is_async = False
        self.is_remote = False
        self.use_device = None
        self.cpu_time_total = 0
        self.device_time_total = 0
        self.self_cpu_time_total = 0
        self.self_device_time_total = 0
        self.input_shapes = None
        self.overload_name = None
        self.stack = None
        self.scope = None
        self.cpu_memory_usage = 0
        self.device_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.self_device_memory_usage = 0
        self.cpu_children = None
        self.cpu_parent = None
        self.device_type = DeviceType.CPU
        self.is_legacy = False
        self.is_user_annotation = False
        self.flops = 0

    def add(self, other):
        if self.key is None:
            self.key = other.key
            self.node_id = other.node_id
            self.is_async = other.is_async
            self.is_remote = other.is_remote
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.overload_name = other.overload_name
            self.input_shapes = other.input_shapes
            self.stack = other.stack
            self.scope = other.scope
            self.device_type = other.device_type
            self.is_legacy = other.is_legacy
            self.use_device = other.use_device
            self.is_user_annotation = other.is_user_annotation
        if not isinstance(other, (FunctionEvent, FunctionEventAvg)):
            raise AssertionError("Expected other to be a FunctionEvent or FunctionEventAvg")
        if other.key != self.key:
            raise AssertionError(f"Expected keys to match, but got {other.key} vs {self.key}")
        self.cpu_time_total += other.cpu_time_total
        self.device_time_total += other.device_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.self_device_time_total += other.self_device_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.device_memory_usage += other.device_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        self.self_device_memory_usage += other.self_device_memory_usage
        self.count += other.count
        self.flops += other.flops
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        device_name = "cuda" if not self.use_device else self.use_device
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
                f"cpu_time={self.cpu_time_str}  self_{device_name}_time={self.self_device_time_total_str} "
                f"{device_name}_time={self.device_time_str} input_shapes={self.input_shapes} "
                f"cpu_memory_usage={self.cpu_memory_usage} {device_name}_memory_usage={self.device_memory_usage}>")


class EventList(list):
    """A list of FunctionEvent (or FunctionEventAvg after key_averages) with PyTorch's summaries."""

    def __init__(self, *args, use_device=None, profile_memory=False, with_flops=False, **kwargs):
        super().__init__(*args, **kwargs)
        self._use_device = use_device
        self._profile_memory = profile_memory
        self._with_flops = with_flops

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def __str__(self):
        return self.table()

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        """PyTorch's table: one row per event (per key after key_averages), sorted by an attribute such as
        "cpu_time_total", "self_cpu_time_total", "cuda_time_total", "cpu_memory_usage" or "count"."""
        return _build_table(self, sort_by=sort_by, header=header, row_limit=row_limit,
                            max_src_column_width=max_src_column_width,
                            max_name_column_width=max_name_column_width,
                            max_shapes_column_width=max_shapes_column_width, with_flops=self._with_flops,
                            profile_memory=self._profile_memory, top_level_events_only=top_level_events_only,
                            time_unit=time_unit)

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False,
                     include_python_functions=False):
        """The events grouped by name (and input shapes / the top group_by_stack_n stack frames), added up."""
        stats = defaultdict(FunctionEventAvg)

        def key_of(event):
            key = [str(event.key), str(event.node_id), str(event.device_type), str(event.is_legacy),
                   str(event.is_user_annotation)]
            if group_by_overload_name:
                key.append(event.overload_name)
            if group_by_input_shapes:
                key.append(str(event.input_shapes))
            if group_by_stack_n > 0:
                key += event.stack[:group_by_stack_n]
            return tuple(key)

        for evt in self:
            stats[key_of(evt)].add(evt)
        avg_list = EventList(stats.values(), use_device=self._use_device, profile_memory=self._profile_memory,
                             with_flops=self._with_flops)
        for evt in avg_list:
            evt.stack = evt.stack[:group_by_stack_n] if evt.stack else []
            if not group_by_input_shapes:
                evt.input_shapes = ""
        return avg_list

    def total_average(self):
        total = FunctionEventAvg()
        for evt in self:
            total += evt
            total.key = None
        total.key = "Total"
        return total

    def export_chrome_trace(self, path):
        """The events as Chrome trace JSON (chrome://tracing, Perfetto); a path ending in .gz is gzipped."""
        write_chrome_trace(path, self)

    def supported_export_stacks_metrics(self):
        return ["self_cpu_time_total", "self_cuda_time_total", "self_xpu_time_total",
                "self_privateuse1_time_total"]

    def export_stacks(self, path, metric):
        """The stacks (with_stack) in the collapsed format of flamegraph.pl and speedscope: one line per event
        with a stack and a positive metric (in us), "outermost;...;innermost value", blanks as underscores."""
        if metric not in self.supported_export_stacks_metrics():
            raise ValueError("metric should be one of: " + str(self.supported_export_stacks_metrics()))
        blanks_to_underscores = str.maketrans(" ;\t\n", "____")
        with open(path, "w") as f:
            for evt in self:
                if evt.stack:
                    value = int(getattr(evt, _sort_key(metric)))
                    if value > 0:
                        frames = ";".join(entry.translate(blanks_to_underscores) for entry in reversed(evt.stack))
                        f.write(f"{frames} {value}\n")


def _sort_key(attr):
    return attr.replace("cuda", "device").replace("xpu", "device").replace("privateuse1", "device")


def _build_table(events, sort_by=None, header=None, row_limit=100, max_src_column_width=75,
                 max_name_column_width=55, max_shapes_column_width=80, with_flops=False, profile_memory=False,
                 top_level_events_only=False, time_unit=None):
    """The summary table, column for column as torch.autograd.profiler_util's."""
    if len(events) == 0:
        return ""
    has_device_time = any(e.self_device_time_total > 0 for e in events)
    has_device_mem = any(e.self_device_memory_usage > 0 for e in events)
    use_device = events[0].use_device
    has_input_shapes = any(e.input_shapes is not None and len(e.input_shapes) > 0 for e in events)
    if sort_by is not None:
        events = EventList(sorted(events, key=lambda e: getattr(e, _sort_key(sort_by)), reverse=True),
                           use_device=use_device, profile_memory=profile_memory, with_flops=with_flops)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    stacks = [e.stack for e in events if e.stack]
    src_width = None
    if stacks:
        src_width = max(max(len(s) for s in stack) for stack in stacks) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)

    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    device_name = use_device.upper() if use_device is not None else "None"
    if has_device_time:
        headers += [f"Self {device_name}", f"Self {device_name} %", f"{device_name} total",
                    f"{device_name} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if use_device and has_device_mem:
            headers += [f"{device_name} Mem", f"Self {device_name} Mem"]
    headers.append("# of Calls")
    widths = [(name_width, ">")] + [(12, ">")] * (len(headers) - 1)
    if has_input_shapes:
        headers.append("Input Shapes")
        widths.append((shapes_width, ">"))
    if stacks:
        headers.append("Source Location")
        widths.append((src_width, "<"))
    flops_scale = None
    if with_flops:
        raw = [e.flops for e in events if e.flops > 0]
        if raw:
            names = ["FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"]
            level = int(max(0, min(math.log10(min(raw)) / 3, len(names) - 1)))
            flops_scale = 10.0 ** (-3 * level)
            headers.append(f"Total {names[level]}")
            widths.append((12, ">"))
    row_format = "".join("{: " + d + str(w) + "}  " for w, d in widths)
    header_sep = "".join("-" * w + "  " for w, _ in widths)
    line_length = sum(w + 2 for w, _ in widths) - 2

    def fmt_time(us, default):
        if time_unit == "s":
            return f"{us / 1e6:.3f}s"
        if time_unit == "ms":
            return f"{us / 1e3:.3f}ms"
        if time_unit == "us":
            return f"{us:.3f}us"
        return default

    def trim_path(path):
        if len(path) > src_width:
            path = path[len(path) - src_width:]
            if len(path) > 3:
                path = "..." + path[3:]
        return path

    sum_self_cpu = sum(e.self_cpu_time_total for e in events)
    # Device time is counted once: on the device's own events (kernels, memcpys), not again on their ops.
    sum_self_device = sum(e.self_device_time_total for e in events
                          if e.device_type != DeviceType.CPU and not e.is_user_annotation)
    out = []
    if header is not None:
        out += ["=" * line_length, header]
    if top_level_events_only:
        out += ["=" * line_length, "This report only display top-level ops statistics"]
    out += [header_sep, row_format.format(*headers), header_sep]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, sum_self_cpu),
               fmt_time(e.self_cpu_time_total, e.self_cpu_time_total_str),
               _format_time_share(e.cpu_time_total, sum_self_cpu) if not e.is_async else 0,
               fmt_time(e.cpu_time_total, e.cpu_time_total_str), fmt_time(e.cpu_time, e.cpu_time_str)]
        if has_device_time:
            row += [fmt_time(e.self_device_time_total, e.self_device_time_total_str),
                    _format_time_share(e.self_device_time_total, sum_self_device),
                    fmt_time(e.device_time_total, e.device_time_total_str),
                    fmt_time(e.device_time, e.device_time_str)]
        if profile_memory:
            row += [_format_memory(e.cpu_memory_usage), _format_memory(e.self_cpu_memory_usage)]
            if use_device and has_device_mem:
                row += [_format_memory(e.device_memory_usage), _format_memory(e.self_device_memory_usage)]
        row.append(e.count)
        if has_input_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        if flops_scale is not None:
            row.append("--" if e.flops <= 0 else f"{e.flops * flops_scale:8.3f}")
        if stacks:
            row.append(trim_path(e.stack[0]) if e.stack else "")
        out.append(row_format.format(*row))
        if stacks:
            empty = [""] * (len(headers) - 1)
            for entry in e.stack[1:]:
                out.append(row_format.format(*(empty + [trim_path(entry)])))
            out.append(row_format.format(*(empty + [""])))
    out.append(header_sep)
    out.append(f"Self CPU time total: {fmt_time(sum_self_cpu, _format_time(sum_self_cpu))}")
    if has_device_time:
        out.append(f"Self {device_name} time total: {fmt_time(sum_self_device, _format_time(sum_self_device))}")
    return "".join(line + "\n" for line in out)


# Ops that only make views: no device work, so no kernel on a device (PyTorch's views launch none either).
_VIEW_OPS = frozenset("aten::" + n for n in (
    "view", "t", "transpose", "permute", "expand", "reshape", "select", "slice", "squeeze", "unsqueeze", "alias",
    "narrow", "split", "split_with_sizes", "chunk", "unbind", "flatten", "broadcast_to", "view_as_real",
    "view_as_complex", "real", "imag", "conj", "detach", "as_strided", "unfold"))
_KINDS = ("cpu_op", "user_annotation", "cpu_op", "cpu_instant_event", "kernel")


def build_events(raw, t0_ns, use_device=None, profile_memory=False, with_flops=False, flops=None):
    """FunctionEvents (sorted by start, PyTorch's order) from the recorder's tuples, with parents, children,
    total memory and, when a device activity was asked for, the device's kernels linked to their ops."""
    events, by_id, kernels = [], {}, []
    for (name, kind, start_ns, end_ns, eid, parent, thread, os_thread, device, index, cpu_mem, dev_mem, shapes,
         dtypes, correlation) in raw:
        if kind == 4 and not use_device:
            continue  # a device kernel, with CPU activity only
        # PyTorch's events name every step "ProfilerStep*"; the trace keeps "ProfilerStep#N".
        trace_name = name
        if kind == 1 and name.startswith("ProfilerStep#"):
            name = "ProfilerStep*"
        e = FunctionEvent(eid, name, thread, (start_ns - t0_ns) / 1e3, (end_ns - t0_ns) / 1e3, input_shapes=shapes,
                          input_dtypes=dtypes, device_index=max(index, 0), self_cpu_memory_usage=cpu_mem,
                          self_device_memory_usage=dev_mem, is_user_annotation=kind == 1, use_device=use_device,
                          trace_name=trace_name, category=_KINDS[kind], os_thread=os_thread)
        e._parent_id = parent
        e._device = device
        if kind == 4:
            e.device_type = DeviceType.CUDA
            e._correlation = correlation
            kernels.append(e)
        events.append(e)
        by_id[eid] = e
    for e in events:
        parent = by_id.get(e._parent_id)
        if parent is not None:
            e.set_cpu_parent(parent)
            parent.append_cpu_child(e)
    # Memory "CPU Mem" includes the children's: add up from the leaves (the deepest first, no recursion).
    for e in sorted(events, key=_depth, reverse=True):
        if e.cpu_parent is not None:
            e.cpu_parent.cpu_memory_usage += e.cpu_memory_usage
            e.cpu_parent.device_memory_usage += e.device_memory_usage
    if use_device:
        if not kernels:
            kernels = _kernels_from_cpu_times(events, use_device)
            events += kernels
        for k in kernels:
            op = by_id.get(k._correlation)
            if op is not None:
                op.append_kernel(k.name, k.device_index, k.time_range.elapsed_us())
    if with_flops and flops is not None:
        for e in events:
            e.flops = flops(e.name, e.input_shapes)
    events.sort(key=lambda e: (e.time_range.start, -e.time_range.end, e.id))
    return EventList(events, use_device=use_device, profile_memory=profile_memory, with_flops=with_flops)


def _kernels_from_cpu_times(events, use_device):
    """Without device-side records (a real GPU: tandem has no CUPTI) each op on a cuda device that calls no
    other cuda op and is not a view gets one kernel lasting the op's own CPU-side time."""
    out = []
    next_id = max((e.id for e in events), default=0) + 1
    for e in events:
        if (e._device == "cuda" and e.category == "cpu_op" and e.name not in _VIEW_OPS
                and not any(c._device == "cuda" and c.category == "cpu_op" for c in e.cpu_children)):
            k = FunctionEvent(next_id, "tandem::kernel::" + e.name.split("::")[-1], e.thread, e.time_range.start,
                              e.time_range.end, device_type=DeviceType.CUDA, device_index=e.device_index,
                              use_device=use_device, category="kernel")
            k._device, k._correlation, k._parent_id = "cuda", e.id, -1
            next_id += 1
            out.append(k)
    return out


def _depth(event):
    d, p = 0, event.cpu_parent
    while p is not None:
        d, p = d + 1, p.cpu_parent
    return d


def chrome_trace(events):
    """Chrome trace JSON (the Kineto layout torch.profiler writes): ops, user annotations and memcpys as
    complete ("X") events, "[memory]" as instant events, device kernels on the device's own process row."""
    pid = os.getpid()
    trace = []
    for e in events:
        start, dur = e.time_range.start, e.time_range.elapsed_us()
        args = {"External id": e.id}
        if e.input_shapes:
            args["Input Dims"] = e.input_shapes
            args["Input type"] = e.input_dtypes
        if e.category == "cpu_instant_event":
            trace.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": e.name, "pid": pid,
                          "tid": e.os_thread or e.thread, "ts": start,
                          "args": {"Device Type": 0 if e.self_device_memory_usage == 0 else 1,
                                   "Device Id": -1 if e.self_device_memory_usage == 0 else e.device_index,
                                   "Bytes": e.self_cpu_memory_usage or e.self_device_memory_usage}})
            continue
        if e.device_type == DeviceType.CPU:
            trace.append({"ph": "X", "cat": e.category, "name": e.trace_name, "pid": pid,
                          "tid": e.os_thread or e.thread, "ts": start, "dur": dur, "args": args})
        else:  # on the device's own row, as Kineto puts a GPU's kernels and memcpys
            trace.append({"ph": "X", "cat": e.category, "name": e.name, "pid": e.device_index, "tid": 7,
                          "ts": start, "dur": dur,
                          "args": {"External id": getattr(e, "_correlation", e.id), "device": e.device_index}})
    names = {pid: "CPU"}
    for e in events:
        if e.device_type != DeviceType.CPU:
            names[e.device_index] = f"cuda:{e.device_index}"
    for p, name in names.items():
        trace.append({"name": "process_name", "ph": "M", "pid": p, "tid": 0, "args": {"name": name}})
    return {"schemaVersion": 1, "deviceProperties": [], "traceEvents": trace, "displayTimeUnit": "ms",
            "traceName": "tandem"}


def write_chrome_trace(path, events, metadata=None):
    trace = chrome_trace(events)
    if metadata:
        trace.update(metadata)
    data = json.dumps(trace).encode()
    path = os.fspath(path)
    if path.endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)
