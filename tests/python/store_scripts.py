"""The Store API script both store test files run on tandem's stores and on PyTorch's (the oracle): a transcript
of results and errors (error type and first line) that must match."""
import datetime

MS = datetime.timedelta(milliseconds=1)
BIG = bytes(range(256)) * 4000  # a value of 1 MB: the wire format and the file log carry it whole


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the transcript records which error
        return (type(e).__name__, str(e).split("\n")[0])


def store_script(s, d, add_to_text=True):
    """add_to_text: also add() to a key holding text (PyTorch's TCPStore server dies of it, so not there)."""
    steps = [
        outcome(lambda: s.timeout), outcome(lambda: s.num_keys()),
        outcome(lambda: s.set("a", "hello")), outcome(lambda: s.get("a")),
        outcome(lambda: s.set("b", b"\x00\x01")), outcome(lambda: s.get("b")),
        outcome(lambda: s.add("n", 3)), outcome(lambda: s.add("n", -5)), outcome(lambda: s.get("n")),
        *([outcome(lambda: s.add("a", 1))] if add_to_text else []),
        outcome(lambda: s.num_keys()), outcome(lambda: s.check(["a", "n"])), outcome(lambda: s.check(["a", "zz"])),
        outcome(lambda: s.compare_set("a", "nope", "x")), outcome(lambda: s.compare_set("a", "hello", "world")),
        outcome(lambda: s.get("a")),
        outcome(lambda: s.compare_set("new", "", "v")), outcome(lambda: s.compare_set("new2", "x", "v")),
        outcome(lambda: s.check(["new2"])), outcome(lambda: s.num_keys()),
        outcome(lambda: s.delete_key("a")), outcome(lambda: s.delete_key("a")), outcome(lambda: s.num_keys()),
        outcome(lambda: s.append("b", "xy")), outcome(lambda: s.get("b")),
        outcome(lambda: s.append("q", b"z")), outcome(lambda: s.multi_get(["b", "q"])),
        outcome(lambda: s.multi_set(["m1", "m2"], ["1", b"2"])), outcome(lambda: s.multi_get(["m1", "m2"])),
        outcome(lambda: s.wait(["b", "q"])), outcome(lambda: s.has_extended_api()),
        outcome(lambda: isinstance(s, d.Store)), outcome(lambda: sorted(s.list_keys())),
        outcome(lambda: s.set("big", BIG)), outcome(lambda: s.get("big") == BIG),
    ]
    s.set_timeout(100 * MS)
    steps += [outcome(lambda: s.timeout), outcome(lambda: s.get("missing")), outcome(lambda: s.wait(["missing"])),
              outcome(lambda: s.wait(["b", "missing"], 50 * MS)), outcome(lambda: s.multi_get(["q", "missing"])),
              outcome(lambda: s.set("c", 5)), outcome(lambda: s.check("a")), outcome(lambda: s.set_timeout(5))]
    return steps


def queue_script(s, d, skip=()):
    """Queues, barrier and clone: a transcript of (label, outcome) pairs. ``skip``: labels not to run (a
    difference a test names and checks on its own)."""
    steps = []

    def rec(label, fn):
        if label not in skip:
            steps.append((label, outcome(fn)))

    rec("len of new", lambda: s.queue_len("q"))
    rec("push str", lambda: s.queue_push("q", "a"))
    rec("push bytes", lambda: s.queue_push("q", b"b\x00"))
    rec("len", lambda: s.queue_len("q"))
    rec("check queue", lambda: s.check(["q"]))
    rec("keys", lambda: s.num_keys())
    rec("pop", lambda: s.queue_pop("q"))
    rec("pop no block", lambda: s.queue_pop("q", False))
    rec("len empty", lambda: s.queue_len("q"))
    rec("check empty", lambda: s.check(["q"]))
    rec("pop empty", lambda: s.queue_pop("q", block=False))
    rec("pop None block", lambda: s.queue_pop("q", None))
    s.set_timeout(100 * MS)
    rec("pop waits", lambda: s.queue_pop("q"))
    rec("pop int block", lambda: s.queue_pop("q", 5))
    rec("wait empty", lambda: s.wait(["q"]))
    rec("push again", lambda: s.queue_push("q", "c"))
    rec("wait queue", lambda: s.wait(["q"]))
    rec("pop again", lambda: s.queue_pop("q"))
    rec("key and queue", lambda: [s.set("k", "v"), s.queue_push("k", "x"), s.queue_len("k"), s.queue_pop("k"),
                                  s.get("k")])
    rec("delete queue", lambda: [s.queue_push("d", "1"), s.delete_key("d"), s.queue_len("d")])
    rec("list keys", lambda: sorted(s.list_keys()))
    rec("barrier", lambda: s.barrier("b", 1))
    rec("barrier again", lambda: s.barrier("b", 1))
    rec("barrier short", lambda: s.barrier("b2", 2, 50 * MS))
    rec("barrier second", lambda: s.barrier("b2", 2))
    rec("barrier zero", lambda: s.barrier("b3", 0, 50 * MS))
    rec("barrier keys", lambda: sorted(s.list_keys()))
    rec("barrier count", lambda: s.num_keys())
    rec("clone", lambda: [type(s.clone()).__name__, s.clone().get("k"), s.clone().timeout])
    for label, fn in [("push key type", lambda: s.queue_push(1, "x")),
                      ("push value type", lambda: s.queue_push("q", 1)),
                      ("len type", lambda: s.queue_len(3)), ("pop type", lambda: s.queue_pop(1)),
                      ("pop block type", lambda: s.queue_pop("q", "")), ("barrier key", lambda: s.barrier(1, 1)),
                      ("barrier size", lambda: s.barrier("b", 1.5)), ("barrier timeout", lambda: s.barrier("b", 1, 5)),
                      ("clone args", lambda: s.clone(1)), ("list keys args", lambda: s.list_keys(1))]:
        rec(label, fn)
    return steps
