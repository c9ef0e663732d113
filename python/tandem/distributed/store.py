"""In-process key-value stores with PyTorch's Store API: HashStore (a dict shared by the threads of one process)
and PrefixStore (a namespace inside another store). Values are bytes (str is stored as UTF-8); get and wait
block until the keys exist or the store's timeout passes. Queues (queue_push/queue_pop/queue_len) live beside
the keys under their own names: a non-empty queue counts for check and wait, not for get, num_keys or
list_keys (as in PyTorch). tandem's process groups do not need a store (MPI connects the processes): the stores
serve code that uses one directly (tcp_store.py and file_store.py have the other two)."""
import collections
import datetime
import threading
import time

from tandem.distributed import distributed_c10d as c10d

__all__ = ["DistStoreError", "HashStore", "PrefixStore", "QueueEmptyError", "Store"]

_DEFAULT_TIMEOUT = datetime.timedelta(minutes=5)  # PyTorch's default for a store


class DistStoreError(c10d.DistError):
    """Raised when a store operation fails, e.g. get/wait past the store's timeout ("Wait timeout")."""


class QueueEmptyError(DistStoreError):
    """Raised by queue_pop(key, block=False) on an empty queue ("queue is empty")."""


def _incompatible(name, signature, args):
    """PyTorch's (pybind11's) TypeError for arguments of the wrong type."""
    shown = ", ".join(repr(a) for a in args)
    return TypeError(f"{name}(): incompatible function arguments. The following argument types are supported:\n"
                     f"    1. {signature}\n\nInvoked with: {shown}")


def _key(method, signature, store, key, *rest):
    if not isinstance(key, str):
        raise _incompatible(method, signature, (store, key, *rest))
    return key


def _value(method, signature, store, key, value):
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise _incompatible(method, signature, (store, key, value))


def _keys(method, signature, store, keys, *rest):
    if isinstance(keys, (str, bytes)) or not all(isinstance(k, str) for k in _as_list(keys)):
        raise _incompatible(method, signature, (store, keys, *rest))
    return list(keys)


def _as_list(keys):
    try:
        return list(keys)
    except TypeError:
        return [None]


def _timedelta(method, store, timeout):
    if not isinstance(timeout, datetime.timedelta):
        raise _incompatible(method, "(self: tandem.distributed.Store, arg0: datetime.timedelta) -> None",
                            (store, timeout))
    return timeout


_SIG_KEY_VALUE = "(self: tandem.distributed.Store, arg0: str, arg1: str) -> None"
_SIG_GET = "(self: tandem.distributed.Store, arg0: str) -> bytes"
_SIG_KEYS = "(self: tandem.distributed.Store, arg0: collections.abc.Sequence[str]) -> bool"
_SIG_WAIT = ("(self: tandem.distributed.Store, arg0: collections.abc.Sequence[str]) -> None\n    2. (self: "
             "tandem.distributed.Store, arg0: collections.abc.Sequence[str], arg1: datetime.timedelta) -> None")
_SIG_ADD = "(self: tandem.distributed.Store, arg0: str, arg1: typing.SupportsInt | typing.SupportsIndex) -> int"
_SIG_CAS = "(self: tandem.distributed.Store, arg0: str, arg1: str, arg2: str) -> bytes"
_NO_QUEUES = "queue support is not implemented."  # PyTorch's words for a store without queues (FileStore)
_SIG_QUEUE_POP = "(self: tandem.distributed.Store, key: str, block: bool = True) -> bytes"
_SIG_QUEUE_LEN = "(self: tandem.distributed.Store, arg0: str) -> int"
_SIG_BARRIER = ("(self: tandem.distributed.Store, key: str, world_size: typing.SupportsInt | typing.SupportsIndex, "
                "timeout: datetime.timedelta | None = None) -> None")


def _is_count(v):
    """What PyTorch's bindings take for an int argument: ints and objects that convert, not floats."""
    return not isinstance(v, float) and (hasattr(v, "__index__") or hasattr(v, "__int__"))


def _no_arguments(method, signature, store, args):
    if args:
        raise _incompatible(method, signature, (store, *args))


class Store:
    """The interface every store has (PyTorch's ``torch.distributed.Store``). The public methods check their
    arguments (PyTorch's TypeError for a wrong type) and hand keys and bytes to the store's ``_``-methods."""

    # What multi_set does with more values than keys: each store says it its own way (PyTorch's TCPStore raises
    # DistStoreError, its HashStore and FileStore ignore the extras, tandem refuses them with a ValueError).
    def _multi_set_length_error(self, keys, values):
        return ValueError(f"multi_set: {len(keys)} key(s) but {len(values)} value(s)")

    def has_extended_api(self):
        return True

    @property
    def timeout(self):
        return self._timeout

    def set_timeout(self, timeout):
        self._timeout = _timedelta("set_timeout", self, timeout)

    def set(self, key, value):
        key = _key("set", _SIG_KEY_VALUE, self, key, value)
        self._set(key, _value("set", _SIG_KEY_VALUE, self, key, value))

    def get(self, key):
        return self._get(_key("get", _SIG_GET, self, key))

    def add(self, key, amount):
        key = _key("add", _SIG_ADD, self, key, amount)
        if not _is_count(amount):
            raise _incompatible("add", _SIG_ADD, (self, key, amount))
        return self._add(key, int(amount))

    def append(self, key, value):
        key = _key("append", _SIG_KEY_VALUE, self, key, value)
        self._append(key, _value("append", _SIG_KEY_VALUE, self, key, value))

    def compare_set(self, key, expected_value, desired_value):
        """Sets ``desired_value`` when the key holds ``expected_value`` (or is missing and ``expected_value`` is
        empty); returns the value the key has afterwards, or ``expected_value`` for a missing key left unset."""
        key = _key("compare_set", _SIG_CAS, self, key, expected_value, desired_value)
        expected = _value("compare_set", _SIG_CAS, self, key, expected_value)
        return self._compare_set(key, expected, _value("compare_set", _SIG_CAS, self, key, desired_value))

    def delete_key(self, key):
        return self._delete_key(_key("delete_key", "(self: tandem.distributed.Store, arg0: str) -> bool", self,
                                     key))

    def num_keys(self):
        return self._num_keys()

    def check(self, keys):
        return self._check(_keys("check", _SIG_KEYS, self, keys))

    def wait(self, keys, timeout=None):
        keys = _keys("wait", _SIG_WAIT, self, keys, *([] if timeout is None else [timeout]))
        self._wait(keys, self._timeout if timeout is None else _timedelta("wait", self, timeout))

    def multi_get(self, keys):
        return self._multi_get(_keys("multi_get", "(self: tandem.distributed.Store, arg0: "
                                     "collections.abc.Sequence[str]) -> list[bytes]", self, keys))

    def multi_set(self, keys, values):
        signature = ("(self: tandem.distributed.Store, arg0: collections.abc.Sequence[str], arg1: "
                     "collections.abc.Sequence[str]) -> None")
        keys = _keys("multi_set", signature, self, keys, values)
        if len(keys) != len(values):
            raise self._multi_set_length_error(keys, values)
        self._multi_set(keys, [_value("multi_set", signature, self, keys, v) for v in values])

    def list_keys(self, *args):
        _no_arguments("list_keys", "(self: tandem.distributed.Store) -> list[str]", self, args)
        raise NotImplementedError("listKeys support is not implemented.")

    def clone(self, *args):
        """Another store object on the same data, to use from another thread."""
        _no_arguments("clone", "(self: tandem.distributed.Store) -> tandem.distributed.Store", self, args)
        raise NotImplementedError(f"clone support is not implemented.\nhint: {type(self).__name__} defines no "
                                  "clone(); open another store on the same data instead")

    # ---- queues: each store that has them defines _queue_push, _queue_pop and _queue_len ----

    def queue_push(self, key, value):
        """Appends ``value`` to the queue ``key`` (a queue wakes one waiting queue_pop)."""
        key = _key("queue_push", _SIG_KEY_VALUE, self, key, value)
        self._queue_push(key, _value("queue_push", _SIG_KEY_VALUE, self, key, value))

    def queue_pop(self, key, block=True):
        """The queue's oldest value, removed; an empty queue makes it wait up to the store's timeout
        (``block=True``) or raise QueueEmptyError."""
        if not isinstance(key, str) or not (block is None or hasattr(type(block), "__bool__")):
            raise _incompatible("queue_pop", _SIG_QUEUE_POP, (self, key, block))
        return self._queue_pop(key, bool(block))

    def queue_len(self, key):
        """How many values the queue ``key`` holds (0 for a queue never pushed to)."""
        return self._queue_len(_key("queue_len", _SIG_QUEUE_LEN, self, key))

    def _queue_push(self, key, value):
        raise NotImplementedError(_NO_QUEUES)

    def _queue_pop(self, key, block):
        raise NotImplementedError(_NO_QUEUES)

    def _queue_len(self, key):
        raise NotImplementedError(_NO_QUEUES)

    def barrier(self, key, world_size, timeout=None):
        """Returns once ``world_size`` callers (threads or processes sharing the store) called it with ``key``,
        or raises when ``timeout`` (default: the store's) passes first. PyTorch's way, which its HashStore,
        FileStore and PrefixStore share: count in under ``key/num_members``; the last one in sets
        ``key/last_member``, which the others wait for."""
        if (not isinstance(key, str) or not _is_count(world_size)
                or not (timeout is None or isinstance(timeout, datetime.timedelta))):
            raise _incompatible("barrier", _SIG_BARRIER, (self, key, world_size,
                                                          *([] if timeout is None else [timeout])))
        self._barrier(key, int(world_size), self.timeout if timeout is None else timeout)

    def _barrier(self, key, world_size, timeout):
        if self.add(f"{key}/num_members", 1) == world_size:
            self.set(f"{key}/last_member", "1")
        self.wait([f"{key}/last_member"], timeout)


def added_value(current, key, amount):
    """``current`` (bytes of a decimal integer, or None for a missing key) plus ``amount``, as add() does."""
    try:
        return int((current or b"0").decode()) + amount
    except (UnicodeDecodeError, ValueError):
        raise ValueError(f"stoll\nhint: add() needs the value of {key!r} to be an integer, it is "
                         f"{current!r}") from None


def compare_set_result(current, expected, desired):
    """(value to store or None to leave the key alone, value compare_set returns) for a key holding ``current``
    (None when missing): PyTorch sets a missing key only when ``expected`` is empty."""
    if current is None and expected:
        return None, expected
    if current is None or current == expected:
        return desired, desired
    return None, current


class HashStore(Store):
    """A thread-safe in-memory store for the threads of one process (PyTorch's ``HashStore``)."""

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError("__init__(): incompatible constructor arguments. The following argument types are "
                            "supported:\n    1. tandem.distributed.HashStore()\n\nInvoked with: "
                            + ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())]))
        self._data = {}
        self._queues = collections.defaultdict(collections.deque)
        self._changed = threading.Condition()
        self._timeout = _DEFAULT_TIMEOUT

    def clone(self, *args):
        """This store itself (PyTorch's HashStore.clone() returns the same store: it is thread-safe)."""
        _no_arguments("clone", "(self: tandem.distributed.Store) -> tandem.distributed.Store", self, args)
        return self

    def _present(self, key):
        return key in self._data or bool(self._queues.get(key))

    def _set(self, key, value):
        with self._changed:
            self._data[key] = value
            self._changed.notify_all()

    def _get(self, key):
        with self._changed:
            self._wait_locked([key], self._timeout, self._data.__contains__)
            return self._data[key]

    def _add(self, key, amount):
        with self._changed:
            total = added_value(self._data.get(key), key, amount)
            self._data[key] = str(total).encode()
            self._changed.notify_all()
            return total

    def _append(self, key, value):
        with self._changed:
            self._data[key] = self._data.get(key, b"") + value
            self._changed.notify_all()

    def _compare_set(self, key, expected, desired):
        with self._changed:
            stored, result = compare_set_result(self._data.get(key), expected, desired)
            if stored is not None:
                self._data[key] = stored
                self._changed.notify_all()
            return result

    def _delete_key(self, key):
        with self._changed:
            return self._data.pop(key, None) is not None

    def _num_keys(self):
        with self._changed:
            return len(self._data)

    def list_keys(self, *args):
        """Every key set so far, in no particular order (PyTorch's HashStore.list_keys)."""
        _no_arguments("list_keys", "(self: tandem.distributed.Store) -> list[str]", self, args)
        with self._changed:
            return list(self._data)

    def _check(self, keys):
        with self._changed:
            return all(self._present(k) for k in keys)

    def _wait(self, keys, timeout):
        with self._changed:
            self._wait_locked(keys, timeout, self._present)

    def _multi_get(self, keys):
        with self._changed:
            self._wait_locked(keys, self._timeout, self._data.__contains__)
            return [self._data[k] for k in keys]

    def _multi_set(self, keys, values):
        with self._changed:
            self._data.update(zip(keys, values))
            self._changed.notify_all()

    def _queue_push(self, key, value):
        with self._changed:
            self._queues[key].append(value)
            self._changed.notify_all()

    def _queue_pop(self, key, block):
        with self._changed:
            if not block and not self._queues.get(key):
                raise QueueEmptyError("queue is empty")
            self._wait_locked([key], self._timeout, lambda k: bool(self._queues.get(k)))
            return self._queues[key].popleft()

    def _queue_len(self, key):
        with self._changed:
            return len(self._queues.get(key, ()))

    def _wait_locked(self, keys, timeout, present):
        deadline = time.monotonic() + timeout.total_seconds()
        while not all(present(k) for k in keys):
            left = deadline - time.monotonic()
            if left <= 0:
                missing = [k for k in keys if not present(k)]
                raise DistStoreError(f"Wait timeout\nhint: {missing} not set within {timeout} (set_timeout() or "
                                     "wait(keys, timeout) changes the limit)")
            self._changed.wait(left)


class PrefixStore(Store):
    """Every key of ``store`` that this store uses starts with ``prefix + "/"`` (PyTorch's ``PrefixStore``)."""

    def __init__(self, prefix, store):
        if not isinstance(prefix, str) or not isinstance(store, Store):
            raise TypeError("__init__(): incompatible constructor arguments. The following argument types are "
                            "supported:\n    1. tandem.distributed.PrefixStore(prefix: str, store: "
                            f"tandem.distributed.Store)\n\nInvoked with: {prefix!r}, {store!r}")
        self._prefix = prefix
        self.underlying_store = store

    def _full(self, method, signature, key, *rest):
        return f"{self._prefix}/{_key(method, signature, self, key, *rest)}"

    def _full_keys(self, method, signature, keys, *rest):
        return [f"{self._prefix}/{k}" for k in _keys(method, signature, self, keys, *rest)]

    @property
    def timeout(self):
        return self.underlying_store.timeout

    def set_timeout(self, timeout):
        self.underlying_store.set_timeout(timeout)

    def clone(self, *args):
        """A PrefixStore with the same prefix over a clone of the underlying store."""
        _no_arguments("clone", "(self: tandem.distributed.Store) -> tandem.distributed.Store", self, args)
        return PrefixStore(self._prefix, self.underlying_store.clone())

    def queue_push(self, key, value):
        self.underlying_store.queue_push(self._full("queue_push", _SIG_KEY_VALUE, key, value), value)

    def queue_pop(self, key, block=True):
        if not isinstance(key, str):
            raise _incompatible("queue_pop", _SIG_QUEUE_POP, (self, key, block))
        return self.underlying_store.queue_pop(f"{self._prefix}/{key}", block)

    def queue_len(self, key):
        return self.underlying_store.queue_len(self._full("queue_len", _SIG_QUEUE_LEN, key))

    def list_keys(self, *args):
        """The underlying store's keys under this prefix, the prefix taken off (as PyTorch's PrefixStore)."""
        _no_arguments("list_keys", "(self: tandem.distributed.Store) -> list[str]", self, args)
        start = f"{self._prefix}/"
        return [k[len(start):] for k in self.underlying_store.list_keys() if k.startswith(start)]

    def set(self, key, value):
        self.underlying_store.set(self._full("set", _SIG_KEY_VALUE, key, value), value)

    def get(self, key):
        return self.underlying_store.get(self._full("get", _SIG_GET, key))

    def add(self, key, amount):
        return self.underlying_store.add(self._full("add", _SIG_ADD, key, amount), amount)

    def append(self, key, value):
        self.underlying_store.append(self._full("append", _SIG_KEY_VALUE, key, value), value)

    def compare_set(self, key, expected_value, desired_value):
        full = self._full("compare_set", _SIG_CAS, key, expected_value, desired_value)
        return self.underlying_store.compare_set(full, expected_value, desired_value)

    def delete_key(self, key):
        return self.underlying_store.delete_key(
            self._full("delete_key", "(self: tandem.distributed.Store, arg0: str) -> bool", key))

    def num_keys(self):
        return self.underlying_store.num_keys()  # PyTorch counts the whole underlying store's keys

    def check(self, keys):
        return self.underlying_store.check(self._full_keys("check", _SIG_KEYS, keys))

    def wait(self, keys, timeout=None):
        full = self._full_keys("wait", _SIG_WAIT, keys, *([] if timeout is None else [timeout]))
        if timeout is None:
            self.underlying_store.wait(full)
        else:
            self.underlying_store.wait(full, timeout)

    def multi_get(self, keys):
        return self.underlying_store.multi_get(self._full_keys(
            "multi_get", "(self: tandem.distributed.Store, arg0: collections.abc.Sequence[str]) -> list[bytes]",
            keys))

    def multi_set(self, keys, values):
        full = self._full_keys("multi_set", "(self: tandem.distributed.Store, arg0: collections.abc.Sequence[str], "
                               "arg1: collections.abc.Sequence[str]) -> None", keys, values)
        self.underlying_store.multi_set(full, values)
