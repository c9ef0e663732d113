"""tandem.futures, as torch.futures: a Future holds a result (or an exception) that arrives later; callbacks run
when it is set. Libraries type and build on it (Captum's attribution methods return Futures, ShapleyValueSampling
collects them with collect_all). Thread-safe; callbacks run on the thread that completes the Future."""
import threading
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")


class Future(Generic[T]):
    def __init__(self, *, devices=None):
        self._done = threading.Condition()
        self._completed = False
        self._result = None
        self._exception = None
        self._callbacks = []

    def done(self):
        """Whether the result (or an exception) has been set."""
        with self._done:
            return self._completed

    def wait(self):
        """Blocks until the Future completes; returns its value, or raises its exception."""
        with self._done:
            self._done.wait_for(lambda: self._completed)
        return self.value()

    def value(self):
        """The value of a completed Future (its exception is raised)."""
        with self._done:
            if not self._completed:
                raise RuntimeError("value() was called on a Future that is not completed\nhint: wait() first, or "
                                   "check done()")
            if self._exception is not None:
                raise self._exception
            return self._result

    def then(self, callback):
        """A new Future completed with callback(self) once this one completes (with the callback's exception, as
        PyTorch's RuntimeError, if it raises)."""
        fut = Future()

        def run(done):
            try:
                fut.set_result(callback(done))
            except Exception as e:  # noqa: BLE001 (the callback's error travels in the new Future)
                fut.set_exception(RuntimeError(
                    f"Got the following error when running the callback: {type(e).__name__}: {e}"))

        self.add_done_callback(run)
        return fut

    def add_done_callback(self, callback):
        """Runs callback(self) when the Future completes (at once if it has)."""
        with self._done:
            if not self._completed:
                self._callbacks.append(callback)
                return
        callback(self)

    def set_result(self, result):
        self._complete(result, None)

    def set_exception(self, result):
        assert isinstance(result, Exception), f"{result} is of type {type(result)}, not an Exception."
        self._complete(None, result)

    def _complete(self, result, exception):
        with self._done:
            if self._completed:
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._result, self._exception, self._completed = result, exception, True
            callbacks, self._callbacks = self._callbacks, []
            self._done.notify_all()
        for callback in callbacks:
            callback(self)


def collect_all(futures):
    """A Future completed, with the list of the given Futures, once all of them have completed."""
    futures = list(futures)
    combined = Future()
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        combined.set_result([])

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            combined.set_result(futures)

    for fut in futures:
        fut.add_done_callback(one_done)
    return combined


def wait_all(futures):
    """The values of all the Futures, waiting for each (the first exception is raised)."""
    return [fut.wait() for fut in collect_all(futures).wait()]
