"""One TensorBoard event file: Event messages framed as TFRecords, buffered and flushed by count or age."""
import atexit
import itertools
import os
import socket
import struct
import threading
import time

from . import _protobuf as pb
from ._crc32c import masked_crc32c

_file_numbers = itertools.count()  # the trailing number of every file name, unique within the process
_SESSION_LOG_START = 1  # SessionLog.SessionStatus.START
# Open files, closed at interpreter exit so queued events reach the disk. A strong set: each open file's flush
# thread keeps it alive anyway, also when the SummaryWriter that opened it is dropped without close().
_open_files = set()


@atexit.register
def _close_open_files():
    for event_file in list(_open_files):
        event_file.close()


def encode_event(wall_time, step=None, file_version=None, summary=None, session_log_status=None, graph_def=None,
                 tagged_run_metadata=None):
    """An Event message (tensorboard's event.proto): wall_time=1, step=2, file_version=3, graph_def=4, summary=5,
    session_log=7, tagged_run_metadata=8 (given as (tag, RunMetadata bytes))."""
    out = pb.double_field(1, wall_time)
    if step is not None:
        out += pb.varint_field(2, step)
    if file_version is not None:
        out += pb.bytes_field(3, file_version)
    if graph_def is not None:
        out += pb.bytes_field(4, graph_def)
    if summary is not None:
        out += pb.bytes_field(5, summary)
    if session_log_status is not None:
        out += pb.bytes_field(7, pb.varint_field(1, session_log_status))
    if tagged_run_metadata is not None:
        tag, run_metadata = tagged_run_metadata
        out += pb.bytes_field(8, pb.bytes_field(1, tag) + pb.bytes_field(2, run_metadata))
    return out


def frame_record(data):
    """TFRecord framing: uint64 length, masked CRC-32C of those 8 bytes, the data, masked CRC-32C of the data."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + struct.pack("<I", masked_crc32c(data))


class EventFileWriter:
    """Writes records to events.out.tfevents.<time>.<host>.<pid>.<n><suffix> in log_dir. Records wait in memory
    until max_queue of them are pending or flush_secs have passed (a daemon thread flushes idle writers), so a
    training loop does not hit the disk every step."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        os.makedirs(log_dir, exist_ok=True)
        name = "events.out.tfevents.%010d.%s.%s.%s" % (time.time(), socket.gethostname(), os.getpid(),
                                                       next(_file_numbers))
        self._path = os.path.join(log_dir, name + filename_suffix)
        self._file = open(self._path, "wb")
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._pending = []
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self.add_event(encode_event(time.time(), file_version="brain.Event:2"))
        self.flush()
        self._flusher = threading.Thread(target=self._flush_periodically, name="tandem-tensorboard-flush",
                                         daemon=True)
        self._flusher.start()
        _open_files.add(self)

    @property
    def path(self):
        return self._path

    def add_event(self, event_bytes):
        with self._lock:
            if self._closed.is_set():
                raise RuntimeError(f"the event file {self._path} is closed")
            self._pending.append(frame_record(event_bytes))
            full = len(self._pending) >= self._max_queue
        if full:
            self.flush()

    def flush(self):
        with self._lock:
            if self._file.closed:
                return
            if self._pending:
                self._file.write(b"".join(self._pending))
                self._pending.clear()
            self._file.flush()

    def close(self):
        if self._closed.is_set():
            return
        self.flush()
        with self._lock:
            self._closed.set()
            self._file.close()
        _open_files.discard(self)

    def _flush_periodically(self):
        while not self._closed.wait(self._flush_secs):
            self.flush()
