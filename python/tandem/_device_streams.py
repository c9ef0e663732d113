"""tandem.Stream and tandem.Event: PyTorch's device-agnostic stream and event (torch.Stream, torch.Event).

On a CUDA device (real or emulated) each wraps a tandem.cuda.Stream / tandem.cuda.Event and forwards to it. On
the CPU they behave as PyTorch's: a stream is always idle and synchronous, and anything that would record an
event raises "cpu backend doesn't support events.". tandem.cuda.Stream and tandem.cuda.Event count as instances
(in PyTorch they are subclasses), so ``isinstance(torch.cuda.current_stream(), torch.Stream)`` holds.
"""
import abc

from . import _C, cuda

__all__ = ["Stream", "Event"]

# c10::DeviceType values, which PyTorch's device_type attribute reports.
_DEVICE_TYPE_CODES = {"cpu": 0, "cuda": 1}
_NO_EVENTS = "cpu backend doesn't support events."


def _check_arg(owner, name, value, kind):
    # bool is an int subclass, but PyTorch's argument parser refuses it for an int parameter.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{owner}(): argument '{name}' must be {kind.__name__}, not {type(value).__name__}")


def _parse_device(owner, device):
    """A tandem.device from PyTorch's spellings; None and bare ints mean the accelerator (cuda)."""
    if device is None:
        return _C.device("cuda")
    if isinstance(device, int) and not isinstance(device, bool):
        return _C.device("cuda", device)
    if isinstance(device, str):
        return _C.device(device)
    if isinstance(device, _C.device):
        return device
    raise TypeError(f"{owner}(): argument 'device' (position 1) must be torch.device, not {type(device).__name__}")


class Stream(metaclass=abc.ABCMeta):
    """Stream(device=None, *, priority=0): an in-order queue of work on one device; a ``with`` block makes it
    the current stream. Without a device, the accelerator's current device."""

    __slots__ = ("_device", "_cuda", "_context")  # _context: the open ``with`` block's tandem.cuda.stream

    def __init__(self, device=None, *, priority=0):
        _check_arg("Stream", "priority", priority, int)
        device = _parse_device("Stream", device)
        self._cuda = cuda.Stream(device, priority=priority) if device.type == "cuda" else None
        self._device = device.type
        self._context = None

    @classmethod
    def _wrap(cls, cuda_stream):
        """The generic view of an existing tandem.cuda.Stream (what accelerator.current_stream returns)."""
        stream = cls.__new__(cls)
        stream._device, stream._cuda, stream._context = "cuda", cuda_stream, None
        return stream

    @property
    def device(self):
        return self._cuda.device if self._cuda is not None else _C.device(self._device)

    @property
    def device_type(self):
        return _DEVICE_TYPE_CODES[self._device]

    @property
    def device_index(self):
        return self._cuda.device_index if self._cuda is not None else -1

    @property
    def stream_id(self):
        return self._cuda.stream_id if self._cuda is not None else 0

    @property
    def native_handle(self):
        if self._cuda is None or not _C._cuda_has_native_handles():
            raise RuntimeError("Backend doesn't support getting stream native handle.")
        with cuda.stream(self._cuda):
            return _C._cuda_native_stream(self.device_index)

    def query(self):
        """True when all work queued on the stream has finished."""
        return self._cuda.query() if self._cuda is not None else True

    def synchronize(self):
        """Waits for the work queued on the stream."""
        if self._cuda is not None:
            self._cuda.synchronize()

    def wait_event(self, event):
        """Makes later work on this stream wait for ``event`` (the host does not wait)."""
        _as_event(event, "event").wait(self)

    def wait_stream(self, stream):
        """Makes later work on this stream wait for the work queued on ``stream`` so far."""
        self.wait_event(_as_stream(stream).record_event())

    def record_event(self, event=None):
        """Records ``event`` (a new one if None) on this stream and returns it."""
        if self._cuda is None:
            raise RuntimeError(_NO_EVENTS)
        event = Event(self.device) if event is None else _as_event(event, "event")
        event.record(self)
        return event

    def is_capturing(self):
        """False: tandem has no graph capture."""
        return False

    def __enter__(self):
        if self._cuda is not None:
            self._context = cuda.stream(self._cuda)
            self._context.__enter__()
        return self

    def __exit__(self, *exc):
        if self._cuda is not None:
            context, self._context = self._context, None
            return context.__exit__(*exc)
        return False

    def _key(self):
        return self._device, self.device_index, self.stream_id

    def __eq__(self, other):
        if isinstance(other, cuda.Stream):
            other = Stream._wrap(other)
        if not isinstance(other, Stream):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"tandem.Stream device_type={self._device}, device_index={self.device_index}, stream_id={self.stream_id}"


class Event(metaclass=abc.ABCMeta):
    """Event(device=None, *, enable_timing=False, blocking=False, interprocess=False): a marker in a stream.
    Nothing is created on the device until the first record(); an unrecorded event counts as complete."""

    __slots__ = ("_device", "_index", "_cuda", "_enable_timing", "_blocking")

    def __init__(self, device=None, *, enable_timing=False, blocking=False, interprocess=False):
        for name, value in (("enable_timing", enable_timing), ("blocking", blocking),
                            ("interprocess", interprocess)):
            _check_arg("Event", name, value, bool)
        self._device = _parse_device("Event", device).type
        self._index = -1  # the recording stream's device, once recorded (PyTorch's device_index)
        self._cuda = None
        self._enable_timing, self._blocking = enable_timing, blocking

    @property
    def device(self):
        return _C.device(self._device) if self._index < 0 else _C.device(self._device, self._index)

    @property
    def event_id(self):
        return self._cuda._id if self._cuda is not None else 0

    def record(self, stream=None):
        """Records the event on ``stream`` (the device's current stream if None)."""
        if stream is None:
            if self._device != "cuda":
                raise RuntimeError(_NO_EVENTS)
            stream = Stream._wrap(cuda.current_stream(None if self._index < 0 else self._index))
        stream = _as_stream(stream)
        if stream._device != self._device:
            raise RuntimeError(f"Event device type {self._device.upper()} does not match recording stream's "
                               f"device type {stream._device.upper()}.")
        if stream._cuda is None:
            raise RuntimeError(_NO_EVENTS)
        if 0 <= self._index != stream.device_index:
            raise RuntimeError(f"Event device index {self._index} does not match recording stream's device index "
                               f"{stream.device_index}.")
        if self._cuda is None:
            self._cuda = cuda.Event(enable_timing=self._enable_timing, blocking=self._blocking)
        self._cuda.record(stream._cuda)
        self._index = stream.device_index

    def wait(self, stream=None):
        """Makes later work on ``stream`` (the current one if None) wait for this event; a no-op until recorded."""
        if self._cuda is None:
            return
        stream = Stream._wrap(cuda.current_stream(self._index)) if stream is None else _as_stream(stream)
        if stream._cuda is not None:
            self._cuda.wait(stream._cuda)

    def query(self):
        """True when the recorded work has finished (an unrecorded event has nothing to wait for)."""
        return self._cuda.query() if self._cuda is not None else True

    def synchronize(self):
        """Blocks the host until the recorded work has finished."""
        if self._cuda is not None:
            self._cuda.synchronize()

    def elapsed_time(self, end_event):
        """Milliseconds from this event to ``end_event``; both made with enable_timing=True and recorded."""
        if not isinstance(end_event, Event):
            raise RuntimeError("expected other to be a torch.Event object")
        end_event = _as_event(end_event, "other")
        if self._device != end_event._device:
            raise RuntimeError(f"Event device type {self._device.upper()} does not match other's device type "
                               f"{end_event._device.upper()}.")
        if not (self._enable_timing and end_event._enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if self._cuda is None or end_event._cuda is None:
            raise ValueError("Both events must be recorded before calculating elapsed time.")
        return self._cuda.elapsed_time(end_event._cuda)

    def ipc_handle(self):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need this!")

    @classmethod
    def from_ipc_handle(cls, device, ipc_handle):
        raise NotImplementedError("torch.Event ipc is not supported yet, please open an issue if you need this!")

    def __repr__(self):
        return (f"tandem.Event device_type={self._device}, device_index={self._index}, "
                f"event_flag={int(self._enable_timing)}, event_id={self.event_id}")


def _as_stream(stream):
    if isinstance(stream, cuda.Stream):
        return Stream._wrap(stream)
    if not isinstance(stream, Stream):
        raise TypeError(f"expected a torch.Stream, but got {type(stream).__name__}")
    return stream


def _as_event(event, name):
    if isinstance(event, cuda.Event):
        wrapped = Event.__new__(Event)
        wrapped._device, wrapped._cuda = "cuda", event
        wrapped._index = -1 if event._device_index is None else event._device_index
        wrapped._enable_timing, wrapped._blocking = event.enable_timing, False
        return wrapped
    if not isinstance(event, Event):
        raise TypeError(f"expected {name} to be a torch.Event, but got {type(event).__name__}")
    return event


# PyTorch's torch.cuda.Stream/Event are subclasses of torch.Stream/Event; tandem's count as instances.
Stream.register(cuda.Stream)
Event.register(cuda.Event)
