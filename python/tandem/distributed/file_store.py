"""FileStore: PyTorch's key-value store in a file that every process of the job can open (a shared file system).

The file is an append-only log of records: key length, key, value length, value (lengths 4-byte little-endian;
a value length of 0xFFFFFFFF deletes the key). Every operation takes an flock on the file, reads the records
other processes appended since its last visit, and appends its own, so the processes see one table. get and
wait poll the file until the keys appear. The file is removed when the last FileStore using it is gone."""
import datetime
import fcntl
import os
import struct
import threading
import time
import weakref

from tandem.distributed.store import DistStoreError, Store, _no_arguments, added_value, compare_set_result

__all__ = ["FileStore"]

_LENGTH = struct.Struct("<I")
_DELETED = 0xFFFFFFFF
_REFCOUNT_KEY = b"refcount/"  # how many FileStores use the file; user keys start with "/"
_POLL_SECONDS = 0.01


def _record(key, value):
    if value is None:
        return _LENGTH.pack(len(key)) + key + _LENGTH.pack(_DELETED)
    return _LENGTH.pack(len(key)) + key + _LENGTH.pack(len(value)) + value


class _Log:
    """This process's view of the file: the table as of ``pos``, the byte up to which the records were read."""

    def __init__(self, path):
        self.path = path
        self.table = {}
        self.pos = 0
        self.lock = threading.Lock()  # flock does not exclude the threads that share one FileStore

    def run(self, change):
        """Brings the table up to date under the file's lock, then calls ``change(table)``, which returns
        (result, records to append as [(key, value or None)])."""
        with self.lock:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._catch_up(fd)
                result, records = change(self.table)
                if records:
                    os.lseek(fd, 0, os.SEEK_END)
                    data = b"".join(_record(k, v) for k, v in records)
                    os.write(fd, data)
                    self.pos += len(data)
                    for k, v in records:
                        if v is None:
                            self.table.pop(k, None)
                        else:
                            self.table[k] = v
                return result
            finally:
                os.close(fd)  # releases the flock

    def _catch_up(self, fd):
        size = os.fstat(fd).st_size
        if size < self.pos:  # the file was removed and made anew: start over
            self.table, self.pos = {}, 0
        if size == self.pos:
            return
        os.lseek(fd, self.pos, os.SEEK_SET)
        data = b""
        while len(data) < size - self.pos:
            chunk = os.read(fd, size - self.pos - len(data))
            if not chunk:
                break
            data += chunk
        at = 0
        while at + _LENGTH.size <= len(data):
            (n,) = _LENGTH.unpack_from(data, at)
            key = data[at + 4:at + 4 + n]
            (m,) = _LENGTH.unpack_from(data, at + 4 + n)
            at += 8 + n
            if m == _DELETED:
                self.table.pop(key, None)
            else:
                self.table[key] = data[at:at + m]
                at += m
        self.pos += at


def _leave(log):
    """A FileStore is gone: count it out, and remove the file when no FileStore uses it any more."""
    def count_out(table):
        left = int(table.get(_REFCOUNT_KEY, b"1")) - 1
        return left, [(_REFCOUNT_KEY, str(left).encode())]

    try:
        if log.run(count_out) <= 0:
            os.remove(log.path)
    except OSError:
        pass  # the file is gone already (removed by hand, or its directory was)


def _user_key(key):
    return ("/" + key).encode()


class FileStore(Store):
    """``FileStore(file_name, world_size=-1)``: a store in ``file_name`` shared by every process (and thread)
    that opens the same path. ``world_size`` is accepted for PyTorch's signature; the file is removed when the
    last FileStore on it is destroyed."""

    def __init__(self, *args, **kwargs):
        names = ("file_name", "world_size")
        given = dict(zip(names, args), **kwargs)
        if (len(args) > 2 or any(k not in names for k in kwargs) or "file_name" not in given
                or not isinstance(given["file_name"], str) or isinstance(given.get("world_size", -1), (bool, float))
                or not hasattr(given.get("world_size", -1), "__index__")):
            shown = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
            raise TypeError("__init__(): incompatible constructor arguments. The following argument types are "
                            "supported:\n    1. tandem.distributed.FileStore(file_name: str, world_size: "
                            "typing.SupportsInt | typing.SupportsIndex = -1)\n\nInvoked with: " + shown)
        self._path = given["file_name"]
        self._world_size = int(given.get("world_size", -1))
        self._timeout = datetime.timedelta(minutes=5)
        self._log = _Log(self._path)

        def count_in(table):
            return None, [(_REFCOUNT_KEY, str(int(table.get(_REFCOUNT_KEY, b"0")) + 1).encode())]

        try:
            self._log.run(count_in)
        except OSError as e:
            raise DistStoreError(f"{os.strerror(e.errno)}\nhint: FileStore could not open {self._path!r}; its "
                                 "directory must exist and be writable") from None
        weakref.finalize(self, _leave, self._log)

    @property
    def path(self):
        return self._path

    def has_extended_api(self):
        return False  # as PyTorch's FileStore answers

    def clone(self, *args):
        """Another FileStore on the same file (with the default timeout, as PyTorch's clone)."""
        _no_arguments("clone", "(self: tandem.distributed.Store) -> tandem.distributed.Store", self, args)
        return FileStore(self._path, self._world_size)

    def _read(self, fn):
        return self._log.run(lambda table: (fn(table), []))

    def _poll(self, keys, timeout, on_timeout):
        wanted = [_user_key(k) for k in keys]
        deadline = time.monotonic() + timeout.total_seconds()
        while True:
            values = self._read(lambda t: [t[k] for k in wanted] if all(k in t for k in wanted) else None)
            if values is not None:
                return values
            if time.monotonic() >= deadline:
                missing = self._read(lambda t: [k for k, w in zip(keys, wanted) if w not in t])
                raise on_timeout(missing)
            time.sleep(_POLL_SECONDS)

    def _get_timeout(self, missing):
        ms = int(self._timeout.total_seconds() * 1000)
        return RuntimeError(f"Timeout waiting for key: {missing[0]} after {ms} ms\nhint: no process set it in "
                            f"{self._path!r}; set_timeout() changes the limit")

    def _set(self, key, value):
        self._log.run(lambda t: (None, [(_user_key(key), value)]))

    def _get(self, key):
        return self._poll([key], self._timeout, self._get_timeout)[0]

    def _add(self, key, amount):
        def add(table):
            total = added_value(table.get(_user_key(key)), key, amount)
            return total, [(_user_key(key), str(total).encode())]
        return self._log.run(add)

    def _append(self, key, value):
        self._log.run(lambda t: (None, [(_user_key(key), t.get(_user_key(key), b"") + value)]))

    def _compare_set(self, key, expected, desired):
        def cas(table):
            stored, result = compare_set_result(table.get(_user_key(key)), expected, desired)
            return result, [] if stored is None else [(_user_key(key), stored)]
        return self._log.run(cas)

    def _delete_key(self, key):
        return self._log.run(lambda t: (True, [(_user_key(key), None)]) if _user_key(key) in t else (False, []))

    def _num_keys(self):
        return self._read(len)  # the internal reference count is one of them, as in PyTorch

    def _check(self, keys):
        return self._read(lambda t: all(_user_key(k) in t for k in keys))

    def _wait(self, keys, timeout):
        def error(missing):
            return RuntimeError(f"Wait timeout\nhint: {missing} not set within {timeout} (set_timeout() or "
                                "wait(keys, timeout) changes the limit)")
        self._poll(keys, timeout, error)

    def _multi_get(self, keys):
        return self._poll(keys, self._timeout, self._get_timeout)

    def _multi_set(self, keys, values):
        self._log.run(lambda t: (None, [(_user_key(k), v) for k, v in zip(keys, values)]))

    def list_keys(self, *args):
        """The keys set through FileStore methods (without the internal reference count)."""
        _no_arguments("list_keys", "(self: tandem.distributed.Store) -> list[str]", self, args)
        return self._read(lambda t: [k.decode()[1:] for k in t if k.startswith(b"/")])
