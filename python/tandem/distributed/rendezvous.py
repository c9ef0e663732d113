"""rendezvous(url) and register_rendezvous_handler: how processes find a shared store, a rank and a world size
from a URL (PyTorch's ``torch.distributed.rendezvous``). tcp:// and env:// give a TCPStore served by rank 0,
file:// a FileStore. tandem's init_process_group does not need them (MPI connects the processes); they serve
programs and libraries that set up their own stores this way."""
import datetime
import numbers
import os
from urllib.parse import urlparse, urlunparse

from tandem.distributed.file_store import FileStore
from tandem.distributed.tcp_store import TCPStore, agent_store_serves

__all__ = ["register_rendezvous_handler", "rendezvous"]

_handlers = {}
_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)  # default_pg_timeout


def register_rendezvous_handler(scheme, handler):
    """Makes ``rendezvous("<scheme>://...")`` call ``handler(url, **kwargs)``, a generator yielding
    (store, rank, world_size)."""
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _query(query):
    return dict(part.split("=") for part in query.split("&") if part)


def rendezvous(url, rank=-1, world_size=-1, **kwargs):
    """The handler's generator for ``url``, with ``rank`` and ``world_size`` (when not -1) added to its query."""
    if not isinstance(url, (str, bytes)):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, numbers.Integral):
        raise RuntimeError(f"`rank` must be an integer. {rank}")
    if not isinstance(world_size, numbers.Integral):
        raise RuntimeError(f"`world_size` must be an integer. {world_size}")
    parsed = urlparse(url)
    if rank != -1 or world_size != -1:
        query = _query(parsed.query)
        if "rank" in query or "world_size" in query:
            raise AssertionError(f"The url: {url} has node-specific arguments(rank, world_size) already.")
        if rank != -1:
            query["rank"] = str(rank)
        if world_size != -1:
            query["world_size"] = str(world_size)
        parsed = parsed._replace(query="&".join(f"{k}={v}" for k, v in query.items()))
        url = urlunparse(parsed)
    if parsed.scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {parsed.scheme}://")
    return _handlers[parsed.scheme](url, **kwargs)


def _error(scheme, msg):
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {msg}")


def _rank_and_size(scheme, query):
    if "rank" not in query:
        raise _error(scheme, "rank parameter missing")
    if "world_size" not in query:
        raise _error(scheme, "world size parameter missing")
    return int(query["rank"]), int(query["world_size"])


def _rank0_serves(host, port, rank, world_size, timeout):
    if not 0 <= port < 2 ** 16:
        raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
    if agent_store_serves(host, port):  # the launcher (tandem.distributed.run) serves it: every rank is a client
        return TCPStore(host, port, world_size, False, timeout)
    return TCPStore(host, port, world_size, rank == 0, timeout, multi_tenant=True)


def _file_handler(url, **kwargs):
    parsed = urlparse(url)
    if not parsed.path:
        raise _error("file", "path missing")
    rank, world_size = _rank_and_size("file", _query(parsed.query))
    yield FileStore(parsed.path, world_size), rank, world_size
    raise RuntimeError("Unable to perform rerendezvous using file:// method")


def _tcp_handler(url, timeout=_DEFAULT_TIMEOUT, **kwargs):
    parsed = urlparse(url)
    if parsed.port is None:
        raise _error("tcp", "port number missing")
    rank, world_size = _rank_and_size("tcp", _query(parsed.query))
    if parsed.hostname is None:
        raise AssertionError("hostname cannot be None")
    yield _rank0_serves(parsed.hostname, parsed.port, rank, world_size, timeout), rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _env_handler(url, timeout=_DEFAULT_TIMEOUT, **kwargs):
    def env(name):
        value = os.environ.get(name)
        if not value:
            raise _error("env", f"environment variable {name} expected, but not set")
        return value

    query = _query(urlparse(url).query)
    rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
    world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
    host, port = env("MASTER_ADDR"), int(env("MASTER_PORT"))
    yield _rank0_serves(host, port, rank, world_size, timeout), rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("file", _file_handler)
