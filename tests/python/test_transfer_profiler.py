"""tandem.profiler.transfers on (emulated) cuda devices: counts, bytes, directions, source lines, summaries."""
import json
import os
import sys
import threading

import pytest

import tandem

pytestmark = pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) cuda device")


def line_of_next_statement():
    return sys._getframe(1).f_lineno + 1


def test_item_loop_is_attributed_to_its_line():
    xs = [tandem.tensor(float(i), device="cuda:0") for i in range(5)]
    with tandem.profiler.transfers() as prof:
        line = line_of_next_statement()
        values = [x.item() for x in xs]
    assert values == [0.0, 1.0, 2.0, 3.0, 4.0]
    events = prof.events
    assert len(events) == 5
    for e in events:
        assert (e.direction, e.source, e.target, e.nbytes, e.op, e.explicit) == (
            "device_to_host", "cuda:0", "cpu", 4, ".item()", True)
        assert (e.filename, e.lineno, e.location) == (__file__, line, f"{os.path.basename(__file__)}:{line}")
        assert e.thread == threading.get_ident() and e.duration >= 0 and e.start >= 0


def test_directions_bytes_and_ops():
    host = tandem.ones(4, 8)
    with tandem.profiler.transfers() as prof:
        dev = host.cuda()
        back = dev.double().cpu()
        tandem.cuda.synchronize()
        flag = bool(dev.sum())
        _ = repr(dev[0, :3])
    assert flag and back.shape == (4, 8)
    got = [(e.direction, e.nbytes, e.op, e.explicit) for e in prof.events]
    assert got == [
        ("host_to_device", 128, ".cuda()", True),
        ("device_to_host", 256, ".cpu()", True),
        ("sync", 0, "tandem.cuda.synchronize()", True),
        ("device_to_host", 4, "bool()", False),
        ("device_to_host", 12, "print", False),
    ]


def test_stream_and_event_syncs_are_recorded_and_guarded():
    last = f"cuda:{tandem.cuda.device_count() - 1}"  # cuda:1 with two emulated devices; cuda:0 on one GPU
    stream = tandem.cuda.Stream(last)
    event = tandem.cuda.Event()
    event.record(stream)
    with tandem.profiler.transfers() as prof:
        stream.synchronize()
        event.synchronize()
    got = [(e.direction, e.source, e.op, e.explicit) for e in prof.events]
    assert got == [("sync", last, "Stream.synchronize()", True), ("sync", last, "Event.synchronize()", True)]
    with tandem.transfer_guard("disallow_explicit", "sync"):
        with pytest.raises(tandem.TransferGuardError, match="Stream.synchronize"):
            stream.synchronize()
        with pytest.raises(tandem.TransferGuardError, match="Event.synchronize"):
            event.synchronize()


def test_implicit_reads_inside_tandem_python_point_at_the_user_line():
    x = tandem.arange(3.0, device="cuda:0")
    with tandem.profiler.transfers() as prof:
        line = line_of_next_statement()
        str(x)
    (e,) = prof.events
    assert (e.op, e.explicit, e.filename, e.lineno) == ("print", False, __file__, line)


def test_device_to_device_copy():
    if tandem.cuda.device_count() < 2:
        pytest.skip("needs two cuda devices")
    x = tandem.ones(10, device="cuda:0")
    with tandem.profiler.transfers() as prof:
        x.to("cuda:1")
        x.to("cuda:0")  # the same tensor: nothing crosses
    assert [(e.direction, e.source, e.target, e.nbytes) for e in prof.events] == [
        ("device_to_device", "cuda:0", "cuda:1", 40)]


def test_nothing_is_recorded_outside_a_profiler():
    x = tandem.ones(1, device="cuda:0")
    with tandem.profiler.transfers() as first:
        x.item()
    x.item()
    with tandem.profiler.transfers() as second:
        pass
    assert len(first.events) == 1 and second.events == []


def test_profilers_nest():
    x = tandem.ones(1, device="cuda:0")
    with tandem.profiler.transfers() as outer:
        x.item()
        with tandem.profiler.transfers() as inner:
            x.tolist()
            assert [e.op for e in inner.events] == [".tolist()"]  # readable while open
        x.cpu()
    assert [e.op for e in inner.events] == [".tolist()"]
    assert [e.op for e in outer.events] == [".item()", ".tolist()", ".cpu()"]


def test_records_every_thread():
    x = tandem.ones(1, device="cuda:0")
    idents = []

    def work():
        idents.append(threading.get_ident())
        x.item()

    with tandem.profiler.transfers() as prof:
        t = threading.Thread(target=work)
        t.start()
        t.join()
        x.item()
    assert sorted(e.thread for e in prof.events) == sorted([idents[0], threading.get_ident()])


def run_two_lines(prof_lines):
    x = tandem.ones(1, device="cuda:0")
    prof_lines.append(line_of_next_statement() + 1)  # the loop's body
    for _ in range(6):
        x.item()
    prof_lines.append(line_of_next_statement() + 1)
    for _ in range(2):
        float(x)


def test_summary_groups_by_line_and_op_sorted_by_total_time():
    lines = []
    with tandem.profiler.transfers() as prof:
        run_two_lines(lines)
    groups = prof.groups()
    name = os.path.basename(__file__)
    assert set(groups) == {(f"{name}:{lines[0]}", ".item()", True), (f"{name}:{lines[1]}", "float()", False)}
    assert groups[(f"{name}:{lines[0]}", ".item()", True)][:2] == [6, 24]
    assert groups[(f"{name}:{lines[1]}", "float()", False)][:2] == [2, 8]
    totals = [g[2] for g in groups.values()]
    assert totals == sorted(totals, reverse=True)
    text = prof.summary()
    assert text.startswith("tandem transfers: 8 crossings (2 implicit)")
    rows = text.splitlines()[2:]
    assert [r.split()[0] for r in rows] == [key[0] for key in groups]
    item_row = next(r for r in rows if ".item()" in r).split()
    assert item_row[:5] == [f"{name}:{lines[0]}", ".item()", "explicit", "device_to_host", "6"]
    assert str(prof) == text


def test_to_json_and_to_dataframe():
    x = tandem.ones(2, device="cuda:0")
    with tandem.profiler.transfers() as prof:
        x.cpu()
        x.sum().item()
    records = json.loads(prof.to_json())
    assert [r["op"] for r in records] == [".cpu()", ".item()"]
    assert set(records[0]) == set(tandem.profiler.TransferEvent._fields)
    assert records[0]["nbytes"] == 8 and records[0]["filename"] == __file__
    pd = pytest.importorskip("pandas")
    df = prof.to_dataframe()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == list(tandem.profiler.TransferEvent._fields)
    assert df["nbytes"].tolist() == [8, 4] and df["direction"].tolist() == ["device_to_host"] * 2
