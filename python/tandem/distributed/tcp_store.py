"""TCPStore: PyTorch's network key-value store. The master process (``is_master=True``) runs the server
(tcp_store_server.py) in background threads; every TCPStore, the master's included, is a client of it. Each
thread that uses a TCPStore gets its own connection, so one thread blocked in get() does not hold up another
thread's set() on the same object."""
import datetime
import os
import socket
import threading
import time
import weakref

from tandem.distributed import distributed_c10d as c10d
from tandem.distributed import tcp_store_server as wire
from tandem.distributed.store import DistStoreError, QueueEmptyError, Store, _no_arguments

__all__ = ["TCPStore"]

_SIGNATURE = ("tandem.distributed.TCPStore(host_name: str, port: typing.SupportsInt | typing.SupportsIndex, "
              "world_size: typing.SupportsInt | typing.SupportsIndex | None = None, is_master: bool = False, "
              "timeout: datetime.timedelta = datetime.timedelta(seconds=300), wait_for_workers: bool = True, "
              "multi_tenant: bool = False, master_listen_fd: typing.SupportsInt | typing.SupportsIndex | None = "
              "None, use_libuv: bool = True)")
_INIT_KEY = b"init/"  # counts the TCPStores that joined (wait_for_workers); user keys start with "/"
_KEY_PREFIX = "/"

# multi_tenant=True: TCPStores of one process that name the same port share one server.
_shared_servers = {}
_shared_lock = threading.Lock()


def agent_store_serves(host, port):
    """Whether a launcher serves the store at ``host:port``: TORCHELASTIC_USE_AGENT_STORE=True (set by
    tandem.distributed.run and torchrun) promises a server at its own MASTER_ADDR:MASTER_PORT only."""
    return (os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True" and os.environ.get("MASTER_ADDR") == host
            and os.environ.get("MASTER_PORT") == str(port))


def _is_int(v):
    return not isinstance(v, (bool, float)) and hasattr(v, "__index__")


def _constructor_error(args, kwargs):
    shown = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    return TypeError("__init__(): incompatible constructor arguments. The following argument types are "
                     f"supported:\n    1. {_SIGNATURE}\n\nInvoked with: {shown}")


def _connect(host, port, timeout):
    """A connection to the server, retried (the master may not listen yet) until ``timeout`` has passed."""
    deadline = time.monotonic() + timeout.total_seconds()
    while True:
        left = deadline - time.monotonic()
        try:
            sock = socket.create_connection((host, port), timeout=max(left, 0.01))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(wire.encode([b"handshake"]))
            reply = wire.receive(sock)
            if reply != [b"ok", wire.HANDSHAKE]:
                sock.close()
                raise c10d.DistNetworkError(f"({host}, {port}) answered, but is not a TCPStore server\nhint: "
                                            "check the port: another program listens there")
            sock.settimeout(None)
            return sock
        except OSError:
            if time.monotonic() >= deadline:
                ms = int(timeout.total_seconds() * 1000)
                raise c10d.DistNetworkError(
                    f"The client socket has timed out after {ms}ms while trying to connect to ({host}, {port}).\n"
                    "hint: start the TCPStore with is_master=True on that host and port first, or raise "
                    "timeout") from None
            time.sleep(min(0.01, max(deadline - time.monotonic(), 0)))


def _close_all(sockets, server):
    for sock in list(sockets):
        sock.close()
    if server is not None:
        server.release()


class _ServerRef:
    """The server a master TCPStore holds; a shared (multi_tenant) server stops when its last user is gone."""

    def __init__(self, server, port=None):
        self.server, self._port = server, port

    def release(self):
        if self._port is None:
            self.server.stop()
            return
        with _shared_lock:
            entry = _shared_servers.get(self._port)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] == 0:
                del _shared_servers[self._port]
                entry[0].stop()


class TCPStore(Store):
    """A key-value store served by the master process over TCP (PyTorch's ``TCPStore``).

    ``TCPStore(host_name, port, world_size=None, is_master=False, timeout=timedelta(seconds=300),
    wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True)``: the master listens on
    ``port`` (0 picks a free one: read ``.port``); others connect to ``host_name:port``, retrying until
    ``timeout``. With ``world_size`` and ``wait_for_workers``, each store counts itself in and the master's
    constructor waits until ``world_size`` stores have joined."""

    def __init__(self, *args, **kwargs):
        names = ("host_name", "port", "world_size", "is_master", "timeout", "wait_for_workers", "multi_tenant",
                 "master_listen_fd", "use_libuv")
        if len(args) > len(names) or any(k not in names for k in kwargs) or any(
                n in kwargs for n in names[:len(args)]):
            raise _constructor_error(args, kwargs)
        given = dict(zip(names, args), **kwargs)
        if "host_name" not in given or "port" not in given:
            raise _constructor_error(args, kwargs)
        host, port = given["host_name"], given["port"]
        world_size = given.get("world_size")
        is_master = given.get("is_master", False)
        timeout = given.get("timeout", datetime.timedelta(seconds=300))
        wait_for_workers = given.get("wait_for_workers", True)
        multi_tenant = given.get("multi_tenant", False)
        listen_fd = given.get("master_listen_fd")
        use_libuv = given.get("use_libuv", True)
        if (not isinstance(host, str) or not _is_int(port) or not 0 <= int(port) <= 65535
                or not (world_size is None or _is_int(world_size))
                or not all(isinstance(b, bool) for b in (is_master, wait_for_workers, multi_tenant, use_libuv))
                or not isinstance(timeout, datetime.timedelta)
                or not (listen_fd is None or _is_int(listen_fd))):
            raise _constructor_error(args, kwargs)
        self._host = host
        self._timeout = timeout
        self._world_size = None if world_size is None else int(world_size)
        self._server_ref = None
        if is_master:
            try:
                self._server_ref = self._start_server(int(port), multi_tenant, listen_fd)
            except c10d.DistNetworkError:
                # PyTorch's rule: under a launcher that serves this very port, the master becomes its client.
                if not agent_store_serves(host, int(port)):
                    raise
                is_master = False
        self._port = self._server_ref.server.port if is_master else int(port)
        self._sockets = []  # every connection this store opened (one per thread), closed with the store
        self._local = threading.local()
        self._finalizer = weakref.finalize(self, _close_all, self._sockets, self._server_ref)
        self._connection()  # as PyTorch's: a store that cannot reach its server fails here, not at first use
        if self._world_size is not None and wait_for_workers:
            self._request("add", [_INIT_KEY, b"1"])
            if is_master:
                self._wait_for_workers()

    @staticmethod
    def _start_server(port, multi_tenant, listen_fd):
        def start():
            try:
                return wire.StoreServer(port, None if listen_fd is None else int(listen_fd))
            except OSError as e:
                raise c10d.DistNetworkError(wire.listen_error(port, e) + "\nhint: pass port=0 to take a free "
                                            "port (read it back from .port), or stop what listens there") from None

        if not multi_tenant or port == 0:
            return _ServerRef(start())
        with _shared_lock:
            entry = _shared_servers.get(port)
            if entry is None:
                entry = _shared_servers[port] = [start(), 0]
            entry[1] += 1
            return _ServerRef(entry[0], port)

    def _wait_for_workers(self):
        # PyTorch's rule: give up once the whole seconds elapsed exceed the timeout.
        start = time.monotonic()
        server = self._server_ref.server
        while True:
            joined = int(server.value(_INIT_KEY) or b"0")
            if joined >= self._world_size:
                return
            elapsed = int(time.monotonic() - start)
            if elapsed > self._timeout.total_seconds():
                raise DistStoreError(f"Timed out after {elapsed} seconds waiting for clients. {joined}/"
                                     f"{self._world_size} clients joined.\nhint: every one of the world_size "
                                     "processes must create its TCPStore with this host and port")
            time.sleep(0.01)

    def __repr__(self):
        role = f", server=TCPServer(port={self._port})" if self._server_ref is not None else ""
        return f"TCPStore(client=TCPClient({self._host}:{self._port}){role})"

    @property
    def host(self):
        return self._host

    @property
    def port(self):
        return self._port

    @property
    def libuvBackend(self):  # noqa: N802 (PyTorch's name)
        return False  # the server is tandem's own (Python threads), not libuv

    def clone(self, *args):
        """Another client of the same server, with the same timeout."""
        _no_arguments("clone", "(self: tandem.distributed.Store) -> tandem.distributed.Store", self, args)
        return TCPStore(self._host, self._port, None, False, self._timeout)

    def _connection(self):
        sock = getattr(self._local, "sock", None)
        if sock is None:
            sock = _connect(self._host, self._port, self._timeout)
            self._local.sock = sock
            self._sockets.append(sock)
        return sock

    def _request(self, op, args, timeout_keys=None):
        sock = self._connection()
        try:
            sock.sendall(wire.encode([op.encode(), *args]))
            reply = wire.receive(sock)
        except OSError as e:
            reply, reason = None, e
        else:
            reason = None
        if not reply:  # closed, or bytes that are no message
            self._sockets.remove(sock)
            self._local.sock = None
            sock.close()
            raise c10d.DistNetworkError("Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
                                        "server shutdown or crash?" + (f" ({reason})" if reason else "")
                                        + "\nhint: the master TCPStore (is_master=True) must stay alive while "
                                        "other stores use it")
        if reply[0] == b"timeout":
            raise timeout_keys
        if reply[0] == b"empty":
            raise QueueEmptyError("queue is empty")
        if reply[0] == b"error":
            raise ValueError(reply[1].decode())
        return reply[1:]

    def _timeout_error(self, keys, timeout):
        ms = int(timeout.total_seconds() * 1000)
        shown = ", ".join(_KEY_PREFIX + k for k in keys)
        return DistStoreError(f"wait timeout after {ms}ms, keys: {shown}\nhint: no process set these keys; "
                              "set_timeout() or wait(keys, timeout) changes the limit")

    def _blocking_get(self, keys, timeout, op="get"):
        ms = max(int(timeout.total_seconds() * 1000), 0)
        return self._request(op, [str(ms).encode(), *(_wire_key(k) for k in keys)],
                             self._timeout_error(keys, timeout))

    def _multi_set_length_error(self, keys, values):
        return DistStoreError("multiSet keys and values vectors must be of same size")

    def _set(self, key, value):
        self._request("set", [_wire_key(key), value])

    def _get(self, key):
        return self._blocking_get([key], self._timeout)[0]

    def _add(self, key, amount):
        return int(self._request("add", [_wire_key(key), str(amount).encode()])[0])

    def _append(self, key, value):
        self._request("append", [_wire_key(key), value])

    def _compare_set(self, key, expected, desired):
        return self._request("compare_set", [_wire_key(key), expected, desired])[0]

    def _delete_key(self, key):
        return bool(self._request("delete_key", [_wire_key(key)])[0])

    def _num_keys(self):
        return int(self._request("num_keys", [])[0])

    def _check(self, keys):
        return bool(self._request("check", [_wire_key(k) for k in keys])[0])

    def _wait(self, keys, timeout):
        self._blocking_get(keys, timeout, "wait")

    def _multi_get(self, keys):
        return self._blocking_get(keys, self._timeout)

    def _multi_set(self, keys, values):
        self._request("multi_set", [part for k, v in zip(keys, values) for part in (_wire_key(k), v)])

    def _queue_push(self, key, value):
        self._request("queue_push", [_wire_key(key), value])

    def _queue_pop(self, key, block):
        ms = max(int(self._timeout.total_seconds() * 1000), 0) if block else -1
        return self._request("queue_pop", [str(ms).encode(), _wire_key(key)],
                             self._timeout_error([key], self._timeout))[0]

    def _queue_len(self, key):
        return int(self._request("queue_len", [_wire_key(key)])[0])

    def _barrier(self, key, world_size, timeout):
        """The server counts the callers under ``key`` and answers each once ``world_size`` have come (as
        PyTorch's TCPStore: a later call with the same key passes at once)."""
        ms = max(int(timeout.total_seconds() * 1000), 0)
        error = DistStoreError(f"barrier timeout after {ms}ms, key: {key}\nhint: fewer than {world_size} callers "
                               "reached the barrier in time")
        self._request("barrier", [_wire_key(key), str(world_size).encode(), str(ms).encode()], error)

    def list_keys(self, *args):
        """The keys set through TCPStore methods (without the internal ones such as the join counter)."""
        _no_arguments("list_keys", "(self: tandem.distributed.Store) -> list[str]", self, args)
        raw = self._request("list_keys", [])
        return [k.decode()[len(_KEY_PREFIX):] for k in raw if k.startswith(_KEY_PREFIX.encode())]


def _wire_key(key):
    return (_KEY_PREFIX + key).encode()
