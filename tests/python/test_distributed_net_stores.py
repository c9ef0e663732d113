"""TCPStore and FileStore: the same scripts run on tandem's stores and on PyTorch's (the oracle) and must give the
same transcript (results, error types and first lines); then threads, a second process, and the failures."""
import datetime
import os
import socket
import subprocess
import sys
import threading
import time

import pytest
import torch.distributed as torch_dist

import tandem.distributed as dist
from store_scripts import MS, outcome, queue_script, store_script

REPO_PYTHON = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def tcp_script(d):
    s = d.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    steps = [outcome(lambda: s.host), outcome(lambda: s.port > 0), outcome(lambda: s.num_keys())]
    steps += store_script(s, d, add_to_text=False)
    steps.append(outcome(lambda: s.multi_set(["x"], ["1", "2"])))
    client = d.TCPStore("localhost", s.port, timeout=datetime.timedelta(seconds=5))
    steps += [outcome(lambda: client.get("m1")), outcome(lambda: client.set("from_client", "1")),
              outcome(lambda: s.get("from_client")), outcome(lambda: client.clone().get("m2")),
              outcome(lambda: d.TCPStore("127.0.0.1", -1)), outcome(lambda: d.TCPStore("127.0.0.1", 70000)),
              outcome(lambda: d.TCPStore(1, 2)),
              outcome(lambda: d.TCPStore("127.0.0.1", s.port, 1, True, timeout=datetime.timedelta(seconds=1)))]
    return [(kind, text.replace(str(s.port), "<port>") if isinstance(text, str) else text) for kind, text in steps]


def file_script(d, path):
    # The constructors first: once a PyTorch FileStore did a get, a new one in the same process can hang.
    steps = [outcome(lambda: d.FileStore(3))]
    s = d.FileStore(path, 1)
    steps += [outcome(lambda: s.path == path)] + store_script(s, d, add_to_text=False)
    steps.append(outcome(lambda: s.add("b", 1)))
    return steps


def test_tcp_store_matches_pytorch():
    ours, theirs = tcp_script(dist), tcp_script(torch_dist)
    assert ours == theirs
    assert ("DistStoreError", "wait timeout after 100ms, keys: /missing") in ours
    assert ours[-1][0] == "DistNetworkError" and "EADDRINUSE" in ours[-1][1]


def test_file_store_matches_pytorch(tmp_path):
    ours, theirs = file_script(dist, str(tmp_path / "ours")), file_script(torch_dist, str(tmp_path / "theirs"))
    # Two deliberate differences: PyTorch's delete_key of a missing key says True (tandem: False, like its other
    # stores), and its list_keys shows its reference-count key with the first letter cut ('efcount/').
    second_delete, list_keys = 22, 33
    assert ours[second_delete] == ("ok", False) and theirs[second_delete] == ("ok", True)
    assert theirs[list_keys][1] == sorted(ours[list_keys][1] + ["efcount/"])
    assert [o for i, o in enumerate(ours) if i not in (second_delete, list_keys)] == [
        t for i, t in enumerate(theirs) if i not in (second_delete, list_keys)]
    assert ("RuntimeError", "Timeout waiting for key: missing after 100 ms") in ours
    assert ("RuntimeError", "Wait timeout") in ours
    assert ours[-1] == ("ValueError", "stoll")
    # PyTorch's FileStore sometimes hangs on a missing directory (it keeps retrying); tandem's raises at once
    with pytest.raises(dist.DistStoreError, match="^No such file or directory\nhint: FileStore could not open"):
        dist.FileStore(str(tmp_path / "no-dir" / "f"))


def test_file_store_file_removed_with_last_user(tmp_path):
    path = str(tmp_path / "store")
    a, b = dist.FileStore(path, 2), dist.FileStore(path, 2)
    a.set("k", "v")
    assert b.get("k") == b"v" and os.path.exists(path)
    del a
    assert os.path.exists(path) and b.get("k") == b"v"
    del b
    assert not os.path.exists(path)


def test_add_on_a_non_integer_value_raises():
    s = dist.TCPStore("127.0.0.1", 0, None, True, timeout=5000 * MS)
    s.set("t", "text")
    with pytest.raises(ValueError, match=r"^stoll\nhint: add\(\) needs the value of '/t' to be an integer"):
        s.add("t", 1)
    assert s.add("n", 2) == 2  # the connection and the server are still fine


@pytest.mark.parametrize("kind", ["tcp", "file"])
def test_threads_share_one_store(kind, tmp_path):
    if kind == "tcp":
        s = dist.TCPStore("127.0.0.1", 0, None, True, timeout=datetime.timedelta(seconds=10))
    else:
        s = dist.FileStore(str(tmp_path / "store"))
    # one thread blocks in get() while another sets the key through the same object
    timer = threading.Timer(0.1, lambda: s.set("ready", "yes"))
    timer.start()
    start = time.monotonic()
    assert s.get("ready") == b"yes" and time.monotonic() - start < 5
    timer.join()
    # many threads adding to one counter: no update is lost
    threads = [threading.Thread(target=lambda: [s.add("c", 1) for _ in range(50)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.add("c", 0) == 200


_WORKER = r"""
import datetime, sys
import tandem.distributed as dist
port, path = int(sys.argv[1]), sys.argv[2]
s = dist.TCPStore("127.0.0.1", port, 2, False, timeout=datetime.timedelta(seconds=20))
f = dist.FileStore(path, 2)
s.set("worker", "up")
f.set("worker", "up")
assert s.get("master") == b"go" and f.get("master") == b"go"
s.add("total", 5)
f.add("total", 5)
s.set("done", "1")
f.set("done", "1")
"""


def test_two_processes_meet_through_both_stores(tmp_path):
    master = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=datetime.timedelta(seconds=20), wait_for_workers=False)
    path = str(tmp_path / "shared")
    f = dist.FileStore(path, 2)
    env = dict(os.environ, PYTHONPATH=os.path.abspath(REPO_PYTHON))
    worker = subprocess.Popen([sys.executable, "-c", _WORKER, str(master.port), path], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert master.get("worker") == b"up" and f.get("worker") == b"up"
        assert master.num_keys() >= 2  # "worker" and the worker's entry in the join count
        master.add("total", 1)
        f.add("total", 1)
        master.set("master", "go")
        f.set("master", "go")
        master.wait(["done"])
        f.wait(["done"])
        assert master.get("total") == b"6" and f.get("total") == b"6"
        out, _ = worker.communicate(timeout=30)
        assert worker.returncode == 0, out.decode()
    finally:
        worker.kill()


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_connection_failures_raise_pytorch_errors():
    port = _free_port()
    start = time.monotonic()
    with pytest.raises(dist.DistNetworkError) as e:
        dist.TCPStore("127.0.0.1", port, None, False, timeout=300 * MS)
    assert 0.25 < time.monotonic() - start < 5
    assert str(e.value).startswith("The client socket has timed out after 300ms while trying to connect to "
                                   f"(127.0.0.1, {port}).\nhint:")
    with pytest.raises(dist.DistStoreError, match=r"^Timed out after 1 seconds waiting for clients\. 1/2 "
                                                    r"clients joined\.\nhint"):
        dist.TCPStore("127.0.0.1", 0, 2, True, timeout=500 * MS)
    # the master goes away: a client's next request raises instead of hanging
    master = dist.TCPStore("127.0.0.1", 0, None, True, timeout=5000 * MS)
    client = dist.TCPStore("127.0.0.1", master.port, None, False, timeout=5000 * MS)
    client.set("k", "v")
    del master
    with pytest.raises(dist.DistNetworkError, match="^Failed to recv, got 0 bytes. Connection was likely closed"):
        client.get("k")
    assert issubclass(dist.DistNetworkError, dist.DistError) and issubclass(dist.DistNetworkError, RuntimeError)


def test_a_wait_the_master_abandons_is_a_network_error():
    # A client blocked in get() when the master store stops: its connection closes, PyTorch's DistNetworkError
    # (the server used to answer "the store's server stopped", which the client raised as a ValueError).
    master = dist.TCPStore("127.0.0.1", 0, None, True, timeout=5000 * MS)
    client = dist.TCPStore("127.0.0.1", master.port, None, False, timeout=5000 * MS)
    caught = []

    def waiter():
        try:
            client.get("never_set")
        except Exception as e:  # noqa: BLE001 -- the test inspects whatever it is
            caught.append(e)

    thread = threading.Thread(target=waiter)
    thread.start()
    time.sleep(0.3)
    del master
    thread.join(10)
    assert not thread.is_alive()
    assert len(caught) == 1 and type(caught[0]) is dist.DistNetworkError
    assert str(caught[0]).startswith("Failed to recv, got 0 bytes. Connection was likely closed")


def test_a_port_that_is_not_a_store_is_refused():
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        def answer_garbage():
            conn, _ = listener.accept()
            conn.sendall(b"\x00\x00\x00\x02hi")
            conn.close()

        threading.Thread(target=answer_garbage, daemon=True).start()
        with pytest.raises(dist.DistNetworkError, match=r"answered, but is not a TCPStore server"):
            dist.TCPStore("127.0.0.1", port, None, False, timeout=2000 * MS)


def tcp_queue_script(d):
    s = d.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=5))
    return queue_script(s, d)


def file_queue_script(d, path):
    return queue_script(d.FileStore(path, 1), d, skip=("list keys", "barrier keys"))


def test_tcp_store_queues_barrier_and_clone_match_pytorch():
    ours, theirs = tcp_queue_script(dist), tcp_queue_script(torch_dist)
    assert ours == theirs
    steps = dict(ours)
    assert steps["pop waits"] == ("DistStoreError", "wait timeout after 100ms, keys: /q")
    assert steps["barrier short"] == ("DistStoreError", "barrier timeout after 50ms, key: b2")
    assert steps["barrier zero"] == ("ok", None)  # the server's barrier counts: 1 >= 0 passes at once


def test_file_store_barrier_and_clone_match_pytorch_and_has_no_queues(tmp_path):
    ours = file_queue_script(dist, str(tmp_path / "ours"))
    theirs = file_queue_script(torch_dist, str(tmp_path / "theirs"))
    assert ours == theirs
    steps = dict(ours)
    assert steps["push str"] == ("NotImplementedError", "queue support is not implemented.")
    assert steps["barrier short"] == ("RuntimeError", "Wait timeout")
    assert steps["clone"] == ("ok", ["FileStore", b"v", datetime.timedelta(minutes=5)])  # a new store: its timeout
    # list_keys: PyTorch's also shows its reference-count key ('efcount/'), tandem's does not
    s = dist.FileStore(str(tmp_path / "keys"), 1)
    s.barrier("b", 1)
    assert sorted(s.list_keys()) == ["b/last_member", "b/num_members"]


def test_tcp_queue_and_barrier_across_threads_and_clients():
    master = dist.TCPStore("127.0.0.1", 0, None, True, timeout=datetime.timedelta(seconds=10))
    # one thread waits in queue_pop while another pushes through the same object (each thread has its own
    # connection; PyTorch's TCPStore object would hold the push behind the waiting pop until it times out)
    timer = threading.Timer(0.1, lambda: master.queue_push("jobs", "first"))
    timer.start()
    start = time.monotonic()
    assert master.queue_pop("jobs") == b"first" and time.monotonic() - start < 5
    timer.join()
    client = dist.TCPStore("127.0.0.1", master.port, None, False, timeout=datetime.timedelta(seconds=10))
    client.queue_push("jobs", "second")
    assert master.queue_len("jobs") == 1 and master.queue_pop("jobs", block=False) == b"second"
    # four clients meet at a barrier; the counter is the key itself
    arrived, passed = [], []

    def member():
        store = master.clone()
        arrived.append(1)
        store.barrier("step", 4)
        passed.append(len(arrived))

    threads = [threading.Thread(target=member) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert passed == [4, 4, 4, 4] and master.get("step") == b"4"
    # a queue is not a key: get() waits for a key (PyTorch's server answers b"" while the queue has values)
    master.queue_push("only_queue", "x")
    master.set_timeout(50 * MS)
    with pytest.raises(dist.DistStoreError, match="^wait timeout after 50ms, keys: /only_queue"):
        master.get("only_queue")
    assert master.check(["only_queue"]) and not master.delete_key("only_queue")
