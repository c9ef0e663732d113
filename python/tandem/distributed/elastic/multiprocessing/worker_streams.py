"""Where a worker's stdout and stderr go (torchrun's --redirects, --tee, --local-ranks-filter): to the console as
they are, to log files only, or to both with a ``[role<local_rank>]:`` prefix on the console. The launcher reads
stderr through a pipe in every case, to keep its last lines for the failure report."""
import collections
import enum
import re
import threading

__all__ = ["SignalException", "Std", "StreamPump", "to_map"]

_VALUE = re.compile(r"^[0123]$")
_MAPPING = re.compile(r"^(\d:[0123],)*(\d:[0123])$")


class Std(enum.IntFlag):
    """Which of a worker's streams an option applies to: none, stdout, stderr or both (0..3)."""
    NONE = 0
    OUT = 1
    ERR = 2
    ALL = OUT | ERR

    @classmethod
    def from_str(cls, vm):
        """``"3"`` -> Std.ALL for every local rank; ``"0:1,1:2"`` -> {0: Std.OUT, 1: Std.ERR}."""
        if _VALUE.match(vm):
            return cls(int(vm))
        if _MAPPING.match(vm):
            return {int(rank): cls(int(value)) for rank, value in (part.split(":") for part in vm.split(","))}
        raise ValueError(f"{vm} does not match: <{_VALUE.pattern}> or <{_MAPPING.pattern}>")


def to_map(val_or_map, local_world_size):
    """One ``Std`` per local rank: a single value applies to all, a mapping names some (the rest get NONE)."""
    if isinstance(val_or_map, Std):
        return dict.fromkeys(range(local_world_size), val_or_map)
    return {rank: val_or_map.get(rank, Std.NONE) for rank in range(local_world_size)}


class SignalException(Exception):
    """Raised in the launcher when it receives one of the signals it handles (SIGTERM, SIGINT, ...): the workers
    are stopped and the launcher exits."""

    def __init__(self, msg, sigval):
        super().__init__(msg)
        self.sigval = sigval


class StreamPump:
    """Copies one worker stream (a pipe) line by line to a log file and/or the console, in a daemon thread, and
    keeps its last ``tail_lines`` lines."""

    def __init__(self, pipe, *, console=None, prefix="", log_file=None, tail_lines=0):
        self._pipe, self._prefix, self._log = pipe, prefix.encode(), log_file
        # A text console (sys.stdout) is written through its bytes buffer; one without (a notebook's) gets text.
        self._console = getattr(console, "buffer", None) or console
        self._console_is_text = self._console is console and console is not None
        self._tail = collections.deque(maxlen=tail_lines) if tail_lines else None
        self._thread = threading.Thread(target=self._run, name="tandem-worker-stream", daemon=True)
        self._thread.start()

    def _run(self):
        try:
            for line in iter(self._pipe.readline, b""):
                if self._log is not None:
                    self._log.write(line)
                    self._log.flush()
                if self._console is not None:
                    data = self._prefix + line
                    self._console.write(data.decode(errors="replace") if self._console_is_text else data)
                    self._console.flush()
                if self._tail is not None:
                    self._tail.append(line)
        except (OSError, ValueError):
            pass  # the console or the pipe went away: nothing more to copy
        finally:
            self._pipe.close()

    def finish(self, timeout):
        """Waits (up to ``timeout`` s: a grandchild may hold the pipe open) for the rest of the stream."""
        self._thread.join(timeout)
        if self._log is not None and not self._thread.is_alive():
            self._log.close()  # closing twice is harmless: finish() may be called again

    def tail(self):
        if self._tail is None:
            return ""
        return b"".join(self._tail).decode(errors="replace")
