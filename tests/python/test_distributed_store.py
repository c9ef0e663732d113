"""HashStore and PrefixStore: the same script runs on tandem's stores and on PyTorch's (the oracle) and must give
the same transcript of results and errors (error type and first line)."""
import datetime
import threading
import time

import pytest
import torch.distributed as torch_dist

import tandem.distributed as dist
from store_scripts import outcome, queue_script, store_script


def hash_store_script(d):
    return store_script(d.HashStore(), d)


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
        outcome(lambda: sorted(p.list_keys())),
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
    assert steps[3] == ("ok", b"hello") and steps[8] == ("ok", b"-2") and steps[9] == ("ValueError", "stoll")
    assert steps[16:18] == [("ok", b"v"), ("ok", b"x")]  # missing key: set only when expected is empty
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


def prefixed_queue_script(d):
    base = d.HashStore()
    p = d.PrefixStore("pre", base)
    steps = queue_script(p, d)
    steps.append(("underlying keys", outcome(lambda: sorted(base.list_keys()))))
    steps.append(("underlying queue", outcome(lambda: [p.queue_push("w", "1"), base.queue_len("pre/w"),
                                                     base.queue_pop("pre/w"), p.queue_len("w")])))
    steps.append(("clone shares", outcome(lambda: [type(p.clone().underlying_store).__name__,
                                                 p.clone().underlying_store is base, p.clone().get("k")])))
    return steps


@pytest.mark.parametrize("script", [lambda d: queue_script(d.HashStore(), d), prefixed_queue_script],
                         ids=["hash", "prefix"])
def test_queues_barrier_and_clone_match_pytorch(script):
    ours, theirs = script(dist), script(torch_dist)
    assert ours == theirs
    steps = dict(ours)
    assert steps["pop empty"] == ("QueueEmptyError", "queue is empty")
    assert steps["pop waits"] == ("DistStoreError", "Wait timeout")
    assert steps["key and queue"] == ("ok", [None, None, 1, b"x", b"v"])  # a key and a queue of one name: two


def test_queue_pop_waits_for_a_push_from_another_thread():
    s = dist.HashStore()
    s.set_timeout(datetime.timedelta(seconds=10))
    got = []
    poppers = [threading.Thread(target=lambda: got.append(s.queue_pop("jobs"))) for _ in range(3)]
    for t in poppers:
        t.start()
    time.sleep(0.05)
    for value in ("a", "b", "c"):  # each push is taken by exactly one waiting pop
        s.queue_push("jobs", value)
    for t in poppers:
        t.join(10)
    assert sorted(got) == [b"a", b"b", b"c"] and s.queue_len("jobs") == 0
    # get() waits for a key, not for a queue of that name (PyTorch's HashStore the same)
    s.queue_push("only_queue", "x")
    s.set_timeout(datetime.timedelta(milliseconds=50))
    with pytest.raises(dist.DistStoreError, match="^Wait timeout"):
        s.get("only_queue")
    assert s.check(["only_queue"]) and s.queue_pop("only_queue") == b"x"


def test_barrier_releases_all_threads_together():
    s = dist.HashStore()
    s.set_timeout(datetime.timedelta(seconds=10))
    arrived, passed = [], []

    def member(i):
        arrived.append(i)
        s.barrier("step", 4)
        passed.append(len(arrived))  # nobody passes before all four arrived

    threads = [threading.Thread(target=member, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert passed == [4, 4, 4, 4]
    assert s.get("step/num_members") == b"4" and s.get("step/last_member") == b"1"


def test_a_store_without_queues_says_so_like_pytorch():
    class Mine(dist.Store):
        pass

    class Theirs(torch_dist.Store):
        pass

    for name, call in [("queue_push", lambda s: s.queue_push("a", "b")), ("queue_pop", lambda s: s.queue_pop("a")),
                       ("queue_len", lambda s: s.queue_len("a")), ("list_keys", lambda s: s.list_keys())]:
        assert outcome(lambda: call(Mine())) == outcome(lambda: call(Theirs())), name
    assert outcome(lambda: Mine().queue_pop("a")) == ("NotImplementedError", "queue support is not implemented.")
