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
