"""One recording of tandem's op-level profiler: torch.autograd.profiler's ``profile`` (which torch.profiler.profile
drives, one per active cycle) and ``record_function``. The recorder itself is C++ (src/core/profiler.h)."""
import contextlib
import math
import warnings

from . import _C
from . import _profiler_stacks
from ._profiler_events import DeviceType, EventList, FunctionEvent, build_events, write_chrome_trace

__all__ = ["profile", "record_function", "emit_nvtx"]


class record_function(contextlib.ContextDecorator):
    """PyTorch's ``record_function(name)``: a ``with`` block or decorated function shows in the profile as one
    range event (a "user annotation") around the ops it runs. Outside a profile it records nothing."""

    def __init__(self, name: str, args=None):
        self.name, self.args = name, args
        self.run_callbacks_on_exit = True
        self.record = None

    def __enter__(self):
        self.record = _C._record_function_enter(self.name)
        return self

    def __exit__(self, *exc):
        if self.run_callbacks_on_exit and self.record is not None:
            _C._record_function_exit(self.record)
        self.record = None
        return False


class emit_nvtx:
    """PyTorch's NVTX ranges for nvprof/Nsight; tandem emits none, so this context does nothing (as PyTorch's
    own on a machine without CUDA)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled, self.record_shapes = enabled, record_shapes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# Host/device crossings (the transfers() recorder) as PyTorch's device-side memcpy events and the CUDA runtime's
# synchronize call; they appear when a device activity is profiled.
_CROSSING_NAMES = {"host_to_device": ("Memcpy HtoD (Host -> Device)", "gpu_memcpy"),
                   "device_to_host": ("Memcpy DtoH (Device -> Host)", "gpu_memcpy"),
                   "device_to_device": ("Memcpy DtoD (Device -> Device)", "gpu_memcpy"),
                   "sync": ("cudaDeviceSynchronize", "cuda_runtime")}


def _device_index(name):
    return int(name.split(":")[1]) if ":" in name else 0


def _crossing_events(transfers, first_id, use_device):
    out = []
    for k, t in enumerate(transfers):
        direction, source, target, nbytes = t[0], t[1], t[2], t[3]
        start, duration = t[10] * 1e6, t[11] * 1e6
        name, category = _CROSSING_NAMES[direction]
        device = target if target.startswith("cuda") else source
        e = FunctionEvent(first_id + k, name, 0, start, start + duration, device_type=DeviceType.CUDA,
                          device_index=_device_index(device), use_device=use_device, category=category)
        e._device = "cuda"
        e.nbytes = nbytes
        out.append(e)
    return out


def _finish_device_work():
    from . import cuda
    if cuda.is_initialized():
        for index in range(cuda.device_count()):
            cuda.synchronize(index)


def _numel(shape):
    return math.prod(shape) if shape else 1


def flops_of(name, shapes):
    """PyTorch's with_flops estimates from the input shapes: matrix products and elementwise add/mul."""
    try:
        if name in ("aten::mm", "aten::matmul") and len(shapes[0]) == 2 and len(shapes[1]) == 2:
            (m, k), (_, n) = shapes[0], shapes[1]
            return 2 * m * k * n
        if name == "aten::addmm":
            (m, k), (_, n) = shapes[1], shapes[2]
            return 2 * m * k * n
        if name == "aten::bmm":
            (b, m, k), (_, _, n) = shapes[0], shapes[1]
            return 2 * b * m * k * n
        if name in ("aten::add", "aten::mul", "aten::add_", "aten::mul_"):
            return _numel(shapes[0])
    except (IndexError, ValueError, TypeError):
        pass
    return 0


class profile:
    """torch.autograd.profiler.profile: records every tandem op, backward node and record_function range run
    while the block is open, on every thread. After the block: ``function_events`` (an EventList),
    ``key_averages()``, ``table()``, ``export_chrome_trace(path)``."""

    def __init__(self, enabled=True, *, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None,
                 post_processing_timeout_s=None, activity_filters=None):
        self.enabled = enabled
        if use_device is not None and use_device != "cuda":
            raise ValueError(f"use_device must be 'cuda' or None, not {use_device!r}\nhint: tandem's devices are "
                             "cpu and cuda")
        self.use_device = use_device
        self.use_cuda = use_device == "cuda"
        self.record_shapes = record_shapes or with_flops
        self.with_flops = with_flops
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        if with_modules:  # PyTorch's words: with_stack records the nn.Module entries in eager mode
            warnings.warn(
                "with_modules is deprecated and will be removed in a future release. It only collects data for "
                "TorchScript models, which are themselves deprecated, and does nothing in eager mode. Use "
                "with_stack=True, which records nn.Module events for eager models.", FutureWarning, stacklevel=2)
        self.with_modules = with_modules
        self.use_cpu = use_cpu
        self.acc_events = acc_events
        self.function_events = None
        self.entered = False
        self._running = False
        self._t0 = 0
        self._transfers = None
        self._metadata = {}

    def config(self):
        return {"record_shapes": self.record_shapes, "profile_memory": self.profile_memory,
                "with_stack": self.with_stack, "with_flops": self.with_flops, "with_modules": self.with_modules,
                "use_device": self.use_device}

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start_trace()
        return self

    def _start_trace(self):
        _C._op_profiler_start(self.record_shapes, self.profile_memory)
        if self.with_stack:  # after: a profiler refused as "already enabled" must not replace the running one's
            _profiler_stacks.start()
        self._running = True
        self._t0 = _C._steady_clock_ns()
        if self.use_device:
            self._transfers = _C._profiler_start()[0]

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        if self._running:
            self._stop_trace()
        self.entered = False
        return False

    def _stop_trace(self):
        transfers = []
        if self._transfers is not None:
            transfers = _C._profiler_stop(self._transfers, self._t0)
            self._transfers = None
        if self.use_device:
            _finish_device_work()  # so the kernels queued in the block are recorded (as PyTorch's stop does)
        raw = _C._op_profiler_stop()
        stacks = _profiler_stacks.stop() if self.with_stack else None
        self._running = False
        events = build_events(raw, self._t0, use_device=self.use_device, profile_memory=self.profile_memory,
                              with_flops=self.with_flops, flops=flops_of)
        if stacks is not None:
            _profiler_stacks.attach(events, stacks)
        if transfers:
            events += _crossing_events(transfers, len(raw), self.use_device)
            events.sort(key=lambda e: e.time_range.start)
        if self.acc_events and self.function_events is not None:
            events = EventList(list(self.function_events) + list(events), use_device=self.use_device,
                               profile_memory=self.profile_memory, with_flops=self.with_flops)
        self.function_events = events

    def __repr__(self):
        if self.function_events is None:
            return "<unfinished tandem.autograd.profile>"
        return repr(self.function_events)

    def __str__(self):
        if self.function_events is None:
            return "<unfinished tandem.autograd.profile>"
        return str(self.function_events)

    def _check_finish(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        self._check_finish()
        return self.function_events.table(sort_by=sort_by, row_limit=row_limit,
                                          max_src_column_width=max_src_column_width,
                                          max_name_column_width=max_name_column_width,
                                          max_shapes_column_width=max_shapes_column_width, header=header,
                                          top_level_events_only=top_level_events_only, time_unit=time_unit)

    table.__doc__ = EventList.table.__doc__

    def export_chrome_trace(self, path):
        self._check_finish()
        write_chrome_trace(path, self.function_events, self._metadata)

    export_chrome_trace.__doc__ = EventList.export_chrome_trace.__doc__

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        self._check_finish()
        return self.function_events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    key_averages.__doc__ = EventList.key_averages.__doc__

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._check_finish()
        if not self.with_stack:
            raise AssertionError("export_stacks() requires with_stack=True")
        return self.function_events.export_stacks(path, metric)

    export_stacks.__doc__ = EventList.export_stacks.__doc__

    def total_average(self):
        self._check_finish()
        return self.function_events.total_average()

    @property
    def self_cpu_time_total(self):
        self._check_finish()
        return self.function_events.self_cpu_time_total

