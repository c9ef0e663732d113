"""How a worker's failure reaches the launcher and the user (PyTorch's elastic ``errors`` module).

A script decorates its entry point with ``@record``: an uncaught exception is written as JSON to the file named by
``TORCHELASTIC_ERROR_FILE`` (the launcher gives each worker its own) before it propagates. The launcher reads the
file of a failed worker into a ``ProcessFailure`` and raises ``ChildFailedError``, whose message is torchrun's
failure report. Without the decorator the report shows the end of the worker's stderr instead (a tandem
addition: PyTorch then has no traceback to show)."""
import faulthandler
import functools
import json
import logging
import os
import signal
import socket
import time
import traceback
import warnings
from dataclasses import dataclass, field
from datetime import datetime

__all__ = ["ChildFailedError", "ErrorHandler", "ProcessFailure", "get_error_handler", "record"]

logger = logging.getLogger(__name__)

_NOT_AVAILABLE = "<N/A>"
_NO_TRACEBACK_HINT = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
_ERROR_FILE_ENV = "TORCHELASTIC_ERROR_FILE"


@dataclass
class ProcessFailure:
    """One worker that exited non-zero: its exit code (negative: the signal that ended it) and the error file its
    ``@record`` wrote, if any. ``message`` is that file's "message" entry (a dict holding the traceback), else a
    sentence about the signal or how to get a traceback. ``stderr_tail`` holds the last lines the worker wrote to
    stderr, shown in the report when there is no error file."""

    local_rank: int
    pid: int
    exitcode: int
    error_file: str
    error_file_data: dict = field(init=False)
    message: object = field(init=False)
    timestamp: int = field(init=False)
    stderr_tail: str = ""

    def __post_init__(self):
        self.error_file_data, self.message, self.timestamp = {"message": "<NONE>"}, "", int(time.time())
        if os.path.isfile(self.error_file):
            try:
                with open(self.error_file) as f:
                    self.error_file_data = json.load(f)
                self.message = self.error_file_data["message"]
                if isinstance(self.message, str):
                    self.timestamp = int(self.error_file_data.get("timestamp", 0))
                else:
                    self.timestamp = int(self.message["extraInfo"]["timestamp"])
            except (OSError, ValueError, KeyError, TypeError) as e:
                # PyTorch's launcher dies of a damaged file; this one reports the failure without it.
                logger.warning("could not read the error file %s (%s)", self.error_file, e)
                self.error_file_data, self.message = {"message": "<NONE>"}, ""
                self.error_file = _NOT_AVAILABLE
        else:
            self.error_file = _NOT_AVAILABLE
        if not self.message:
            if self.exitcode < 0:
                self.message = f"Signal {-self.exitcode} ({self.signal_name()}) received by PID {self.pid}"
            else:
                self.message = _NO_TRACEBACK_HINT

    def signal_name(self):
        if self.exitcode < 0:
            try:
                return signal.Signals(-self.exitcode).name
            except ValueError:
                return _NOT_AVAILABLE
        return _NOT_AVAILABLE

    def timestamp_isoformat(self):
        return datetime.fromtimestamp(self.timestamp).isoformat(sep="_")


class ChildFailedError(Exception):
    """Raised by the launcher when workers failed; ``failures`` maps each failed global rank to its
    ``ProcessFailure`` and the message is the report torchrun prints. The root cause is the failure with the
    earliest timestamp."""

    def __init__(self, name, failures):
        self.name = name
        self.failures = failures
        if not failures:
            raise AssertionError
        super().__init__(self.format_msg())

    def get_first_failure(self):
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        title = f"{self.name} FAILED"
        root_rank, _ = self.get_first_failure()
        root, others, width = "", [], len(title)
        for index, (rank, failure) in enumerate(self.failures.items()):
            text = self._format_failure(index, rank, failure)
            width = max(width, *(len(line) for line in text.split("\n")))
            if rank == root_rank:
                root = text
            else:
                others.append(text)
        width = min(width, 60)
        return "\n".join(["", boarder_delim * width, title, section_delim * width, "Failures:",
                          "\n".join(others or ["  <NO_OTHER_FAILURES>"]), section_delim * width,
                          "Root Cause (first observed failure):", root, boarder_delim * width])

    @staticmethod
    def _format_failure(index, rank, failure):
        message = failure.message
        if isinstance(message, dict):  # an error file's entry: show its traceback, indented under the field
            message = message.get("extraInfo", {}).get("py_callstack", message.get("message", _NOT_AVAILABLE))
            message = message.replace("\n", "\n  ")
        name = failure.signal_name()
        signal_part = f" ({name})" if name != _NOT_AVAILABLE else ""
        text = (f"[{index}]:\n  time      : {failure.timestamp_isoformat()}\n  host      : {socket.getfqdn()}\n"
                f"  rank      : {rank} (local_rank: {failure.local_rank})\n"
                f"  exitcode  : {failure.exitcode} (pid: {failure.pid}) {signal_part}\n"
                f"  error_file: {failure.error_file}\n  traceback : {message}")
        if failure.error_file == _NOT_AVAILABLE and failure.stderr_tail:
            tail = failure.stderr_tail.rstrip("\n").replace("\n", "\n    ")
            text += f"\n  stderr    : (last lines)\n    {tail}"
        return text


class ErrorHandler:
    """Writes a worker's uncaught exception to ``TORCHELASTIC_ERROR_FILE`` and, in a launcher, copies the failed
    child's file to the launcher's own (when it has one)."""

    def _get_error_file_path(self):
        return os.environ.get(_ERROR_FILE_ENV)

    def initialize(self):
        try:
            faulthandler.enable(all_threads=True)  # a crash (SIGSEGV) still prints the Python stacks
        except Exception as e:  # noqa: BLE001 (stderr may be closed; recording must not fail for it)
            warnings.warn(f"Unable to enable fault handler. {type(e).__name__}: {e}", stacklevel=2)

    def record_exception(self, e):
        path = self._get_error_file_path()
        if not path:
            return
        data = {"message": {"message": f"{type(e).__name__}: {e}",
                            "extraInfo": {"py_callstack": traceback.format_exc(), "timestamp": str(int(time.time()))}}}
        try:
            with open(path, "w") as f:
                json.dump(data, f)
        except OSError as err:
            warnings.warn(f"Unable to write error to file. {type(err).__name__}: {err}", stacklevel=2)

    def dump_error_file(self, rootcause_error_file, error_code=0):
        with open(rootcause_error_file) as f:
            data = json.load(f)
        if error_code and isinstance(data.get("message"), dict):
            data["message"]["errorCode"] = error_code  # a child killed by a signal could not record its code
        path = self._get_error_file_path()
        if not path:
            logger.error("no error file defined for parent, to copy child error file (%s)", rootcause_error_file)
            return
        if os.path.isfile(path):
            os.remove(path)
        with open(path, "w") as f:
            json.dump(data, f)


def get_error_handler():
    return ErrorHandler()


def record(fn, error_handler=None):
    """Decorates a script's entry point: an uncaught exception is written to ``TORCHELASTIC_ERROR_FILE`` (so the
    launcher's report shows its traceback) and raised again; ``SystemExit(0)`` returns None."""
    handler = error_handler or get_error_handler()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as e:
            if e.code == 0:
                return None
            raise
        except ChildFailedError as e:
            _, failure = e.get_first_failure()
            if failure.error_file != _NOT_AVAILABLE and os.path.isfile(failure.error_file):
                handler.dump_error_file(failure.error_file, failure.exitcode)
            raise
        except Exception as e:
            handler.record_exception(e)
            raise

    return wrapper
