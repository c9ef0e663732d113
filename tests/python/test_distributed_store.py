"""HashStore and PrefixStore: the same script runs on tandem's stores and on PyTorch's (the oracle) and must give
the same transcript of results and errors (error type and first line)."""
import datetime
import threading
import time

import pytest
import torch.distributed as torch_dist

import tandem.distributed as dist


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the transcript records which error
        return (type(e).__name__, str(e).split("\n")[0])


def hash_store_script(d):
    s = d.HashStore()
    steps = [
        outcome(lambda: s.timeout),
        outcome(lambda: s.set("a", "hello")), outcome(lambda: s.get("a")),
        outcome(lambda: s.set("b", b"\x00\x01")), outcome(lambda: s.get("b")),
        outcome(lambda: s.add("n", 3)), outcome(lambda: s.add("n", -5)), outcome(lambda: s.get("n")),
        outcome(lambda: s.add("a", 1)), outcome(lambda: s.num_keys()),
        outcome(lambda: s.check(["a", "n"])), outcome(lambda: s.check(["a", "zz"])),
        outcome(lambda: s.compare_set("a", "nope", "x")), outcome(lambda: s.compare_set("a", "hello", "world")),
        outcome(lambda: s.get("a")),
        outcome(lambda: s.compare_set("new", "", "v")), outcome(lambda: s.compare_set("new2", "x", "v")),
        outcome(lambda: s.check(["new2"])), outcome(lambda: s.num_keys()),
        outcome(lambda: s.delete_key("a")), outcome(lambda: s.delete_key("a")), outcome(lambda: s.num_keys()),
        outcome(lambda: s.append("b", "xy")), outcome(lambda: s.get("b")),
        outcome(lambda: s.append("q", b"z")), outcome(lambda: s.multi_get(["b", "q"])),
        outcome(lambda: s.multi_set(["m1", "m2"], ["1", b"2"])), outcome(lambda: s.multi_get(["m1", "m2"])),
        outcome(lambda: s.wait(["b", "q"])), outcome(lambda: s.has_extended_api()),
        outcome(lambda: isinstance(s, d.Store)),
    ]
    s.set_timeout(datetime.timedelta(milliseconds=100))
    steps += [outcome(lambda: s.timeout), outcome(lambda: s.get("missing")), outcome(lambda: s.wait(["missing"])),
              outcome(lambda: s.wait(["b", "missing"], datetime.timedelta(milliseconds=50))),
              outcome(lambda: s.multi_get(["missing"]))]
    return steps


def prefix_store_script(d):
    base = d.HashStore()
    base.set("other", "1")
    p = d.PrefixStore("pre", base)
    steps = [
        outcome(lambda: p.set("k", "v")), outcome(lambda: base.get("pre/k")), outcome(lambda: p.get("k")),
        outcome(lambda: p.add("cnt", 2)), outcome(lambda: base.get("pre/cnt")), outcome(lambda: p.num_keys()),
        outcome(lambda: p.underlying_store is base), outcome(lambda: p.timeout), outcome(lambda: p.check(["k"])),
        outcome(lambda: p.check(["other"])), outcome(lambda: p.compare_set("k", "v", "w")),
        outcome(lambda: p.append("k", "x")), outcome(lambda: p.get("k")),
        outcome(lambda: p.multi_set(["a", "b"], ["1", "2"])), outcome(lambda: p.multi_get(["a", "b"])),
        outcome(lambda: p.wait(["a", "b"])), outcome(lambda: p.delete_key("k")), outcome(lambda: p.check(["k"])),
        outcome(lambda: d.PrefixStore("b", d.PrefixStore("a", base)).set("z", "1")),
        outcome(lambda: base.get("a/b/z")), outcome(lambda: isinstance(p, d.Store)),
    ]
    p.set_timeout(datetime.timedelta(milliseconds=50))
    steps += [outcome(lambda: base.timeout), outcome(lambda: p.get("other")),
              outcome(lambda: p.wait(["a", "nope"], datetime.timedelta(milliseconds=20)))]
    return steps


def bad_argument_script(d):
    s = d.HashStore()
    return [outcome(lambda: s.set("c", 5)), outcome(lambda: s.set(1, "x")), outcome(lambda: s.add("n", 1.5)),
            outcome(lambda: s.check("a")), outcome(lambda: s.wait("b")), outcome(lambda: s.set_timeout(5)),
            outcome(lambda: s.get(1)), outcome(lambda: d.PrefixStore("x", 3)), outcome(lambda: d.HashStore(1))]


@pytest.mark.parametrize("script", [hash_store_script, prefix_store_script])
def test_store_matches_pytorch(script):
    ours, theirs = script(dist), script(torch_dist)
    assert ours == theirs
    assert ("DistStoreError", "Wait timeout") in ours


def test_store_values_and_timeouts():
    steps = hash_store_script(dist)
    assert steps[2] == ("ok", b"hello") and steps[7] == ("ok", b"-2") and steps[8] == ("ValueError", "stoll")
    assert steps[15:17] == [("ok", b"v"), ("ok", b"x")]  # missing key: set only when expected is empty
    assert issubclass(dist.DistStoreError, dist.DistError) and issubclass(dist.DistStoreError, RuntimeError)
    s = dist.HashStore()
    s.set_timeout(datetime.timedelta(milliseconds=200))
    start = time.monotonic()
    with pytest.raises(dist.DistStoreError) as e:
        s.wait(["k1", "k2"])
    assert 0.15 < time.monotonic() - start < 5
    assert str(e.value).startswith("Wait timeout\nhint: ['k1', 'k2'] not set within 0:00:00.200000")


def test_bad_arguments_raise_pytorch_errors():
    ours, theirs = bad_argument_script(dist), bad_argument_script(torch_dist)
    assert [o[0] for o in ours] == [t[0] for t in theirs] == ["TypeError"] * len(ours)
    assert all(o[1] == t[1] for o, t in zip(ours, theirs)), list(zip(ours, theirs))  # the first lines agree
    with pytest.raises(ValueError, match=r"multi_set: 1 key\(s\) but 2 value\(s\)"):
        dist.HashStore().multi_set(["a"], ["1", "2"])  # PyTorch ignores the extra value


def test_get_waits_for_another_thread():
    s = dist.HashStore()
    p = dist.PrefixStore("job", s)
    timer = threading.Timer(0.1, lambda: (p.set("ready", "yes"), p.add("count", 4)))
    timer.start()
    try:
        assert p.get("ready") == b"yes"
        p.wait(["count"], datetime.timedelta(seconds=10))
        assert s.get("job/count") == b"4"
    finally:
        timer.join()
    # many threads adding to one counter: no update is lost
    threads = [threading.Thread(target=lambda: [s.add("c", 1) for _ in range(200)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.add("c", 0) == 800
