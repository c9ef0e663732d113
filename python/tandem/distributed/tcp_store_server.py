"""The server half of TCPStore: one key-value table in the master process, served over TCP by a listening thread
and one thread per connection. Blocking requests (get, wait, multi_get) wait on the server with the client's
timeout, so a waiting client costs one idle thread and no polling.

Wire format (both directions): a 4-byte big-endian length, then that many bytes holding a list of byte strings,
each a 4-byte big-endian length and its bytes. A request's first string is the operation's name; a reply's
first string is b"ok", b"timeout" or b"error" followed by the results (or the error's text)."""
import collections
import errno
import os
import socket
import struct
import threading
import time

from tandem.distributed.store import added_value, compare_set_result

_LENGTH = struct.Struct(">I")
HANDSHAKE = b"tandem-tcpstore-1"  # the first request of every connection: the peer is a tandem store server


def encode(parts):
    body = b"".join(_LENGTH.pack(len(p)) + p for p in parts)
    return _LENGTH.pack(len(body)) + body


def _recv_exact(sock, n):
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def receive(sock):
    """The next message's list of byte strings, None when the peer closed the connection, [] when the bytes are
    not a message of this protocol."""
    header = _recv_exact(sock, _LENGTH.size)
    if header is None:
        return None
    body = _recv_exact(sock, _LENGTH.unpack(header)[0])
    if body is None:
        return None
    parts, at = [], 0
    while at < len(body):
        if at + _LENGTH.size > len(body):
            return []  # not this protocol: the caller treats an empty message as a broken peer
        (n,) = _LENGTH.unpack_from(body, at)
        parts.append(body[at + _LENGTH.size:at + _LENGTH.size + n])
        at += _LENGTH.size + n
    return parts if at == len(body) else []


def listen_error(port, error):
    """PyTorch's DistNetworkError text for a port the server cannot listen on (EADDRINUSE most often)."""
    code = error.errno or 0
    return ("The server socket has failed to listen on any local network address. port: "
            f"{port}, useIpv6: false, code: {-code}, name: {errno.errorcode.get(code, 'UNKNOWN')}, message: "
            f"{os.strerror(code).lower()}")


class _Stopped(Exception):
    """The server stopped while a request waited: its connection closes without a reply, so the client raises
    PyTorch's DistNetworkError ("Connection was likely closed"), as when a master TCPStore goes away."""


class StoreServer:
    """The table and the threads that serve it. ``stop()`` closes the listening socket and every connection;
    requests waiting on the table return at once with an error."""

    def __init__(self, port, listen_fd=None):
        if listen_fd is not None:
            self._listener = socket.socket(fileno=listen_fd)
        elif socket.has_dualstack_ipv6():
            self._listener = socket.create_server(("", port), family=socket.AF_INET6, dualstack_ipv6=True,
                                                  backlog=128)
        else:
            self._listener = socket.create_server(("", port), backlog=128)
        self.port = self._listener.getsockname()[1]
        self._data = {}
        self._queues = collections.defaultdict(collections.deque)  # queue_push/queue_pop, beside the keys
        self._changed = threading.Condition()
        self._connections = set()
        self._stopped = False
        threading.Thread(target=self._accept_loop, name=f"tandem-tcpstore-{self.port}", daemon=True).start()

    def stop(self):
        with self._changed:
            if self._stopped:
                return
            self._stopped = True
            self._changed.notify_all()
            connections = list(self._connections)
        # shutdown() wakes the accept() and recv() calls blocked in the server's threads; close() alone does not.
        for sock in [self._listener, *connections]:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

    def value(self, key):
        with self._changed:
            return self._data.get(key)

    def _accept_loop(self):
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # stop() closed the listener
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._changed:
                if self._stopped:
                    conn.close()
                    return
                self._connections.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name="tandem-tcpstore-conn", daemon=True).start()

    def _serve(self, conn):
        try:
            while True:
                request = receive(conn)
                if request is None or not request:
                    return
                try:
                    reply = self._handle(request[0].decode(), request[1:])
                except ValueError as e:
                    reply = [b"error", str(e).encode()]
                except _Stopped:
                    return
                conn.sendall(encode(reply))
        except OSError:
            return  # the client went away, or stop() closed the socket
        finally:
            with self._changed:
                self._connections.discard(conn)
            conn.close()

    def _present(self, key):
        return key in self._data or bool(self._queues.get(key))

    def _wait_locked(self, keys, timeout_ms, present=None):
        """Waits until ``present`` (a key is set, by default) holds for every key; False on the timeout."""
        present = present or self._data.__contains__
        deadline = time.monotonic() + timeout_ms / 1000
        while not all(present(k) for k in keys):
            left = deadline - time.monotonic()
            if self._stopped:
                raise _Stopped
            if left <= 0:
                return False
            self._changed.wait(left)
        return True

    def _handle(self, op, args):
        data = self._data
        with self._changed:
            if op == "handshake":
                return [b"ok", HANDSHAKE]
            if op in ("set", "multi_set"):
                data.update(zip(args[0::2], args[1::2]))
                self._changed.notify_all()
                return [b"ok"]
            if op in ("get", "wait"):  # args: timeout_ms, keys...; a non-empty queue counts for wait, not get
                if not self._wait_locked(args[1:], int(args[0]), None if op == "get" else self._present):
                    return [b"timeout"]
                return [b"ok", *(data[k] for k in args[1:])] if op == "get" else [b"ok"]
            if op == "queue_push":
                self._queues[args[0]].append(args[1])
                self._changed.notify_all()
                return [b"ok"]
            if op == "queue_pop":  # args: timeout_ms (-1: do not wait), key
                if int(args[0]) < 0 and not self._queues.get(args[1]):
                    return [b"empty"]
                if not self._wait_locked(args[1:], int(args[0]), lambda k: bool(self._queues.get(k))):
                    return [b"timeout"]
                return [b"ok", self._queues[args[1]].popleft()]
            if op == "queue_len":
                return [b"ok", str(len(self._queues.get(args[0], ()))).encode()]
            if op == "barrier":  # args: key, world_size, timeout_ms: count in, wait for world_size counted
                total = added_value(data.get(args[0]), args[0].decode(errors="replace"), 1)
                data[args[0]] = str(total).encode()
                self._changed.notify_all()
                world_size = int(args[1])
                if not self._wait_locked([args[0]], int(args[2]), lambda k: int(data[k]) >= world_size):
                    return [b"timeout"]
                return [b"ok"]
            if op == "add":
                total = added_value(data.get(args[0]), args[0].decode(errors="replace"), int(args[1]))
                data[args[0]] = str(total).encode()
                self._changed.notify_all()
                return [b"ok", str(total).encode()]
            if op == "append":
                data[args[0]] = data.get(args[0], b"") + args[1]
                self._changed.notify_all()
                return [b"ok"]
            if op == "compare_set":
                stored, result = compare_set_result(data.get(args[0]), args[1], args[2])
                if stored is not None:
                    data[args[0]] = stored
                    self._changed.notify_all()
                return [b"ok", result]
            if op == "delete_key":
                return [b"ok", b"1" if data.pop(args[0], None) is not None else b""]
            if op == "num_keys":
                return [b"ok", str(len(data)).encode()]
            if op == "check":
                return [b"ok", b"1" if all(self._present(k) for k in args) else b""]
            if op == "list_keys":
                return [b"ok", *data]
        raise ValueError(f"unknown store request {op!r}")
