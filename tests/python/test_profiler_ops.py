"""tandem.profiler.profile (torch.profiler's op-level profiler): events of a model's forward and backward on
every device, nesting and self times, shapes, schedules (which steps are recorded, against torch's), the table,
Chrome traces, record_function ranges, threads, memory, and PyTorch's errors."""
import gzip
import json
import re
import threading
import warnings

import pytest
import torch

import tandem


def small_model(lib, device):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2)).to(device)


def forward_backward(lib, device):
    model = small_model(lib, device)
    x = lib.randn(3, 4, device=device)
    with lib.profiler.profile(record_shapes=True) as prof:
        model(x).sum().backward()
    return prof


def names(events, kernels=False):
    """Event names, without the device's kernel events (recorded when a cuda device is available)."""
    return [e.name for e in events if kernels or not e.name.startswith("tandem::kernel::")]


def test_forward_backward_events(device):
    prof = forward_backward(tandem, device)
    ref = forward_backward(torch, "cpu")
    events = prof.events()
    got = names(events, kernels=True)
    # Every node the backward pass evaluates, as PyTorch names its two events per node.
    backward = sorted(n for n in got if n.startswith("autograd::engine::evaluate_function: "))
    assert backward == sorted(
        n for n in names(ref.events()) if n.startswith("autograd::engine::evaluate_function: "))
    for n in backward:
        assert got.count(n.split(": ", 1)[1]) == got.count(n)
    assert got.count("aten::addmm") == 2 and got.count("aten::relu") == 1 and "aten::t" in got
    assert "aten::mm" in got  # AddmmBackward0's products
    for e in events:
        # Default activities: CPU, and CUDA when available, whose kernels are device events.
        kernel = e.name.startswith("tandem::kernel::")
        assert e.device_type == (tandem.profiler.DeviceType.CUDA if kernel else tandem.profiler.DeviceType.CPU)
        assert e.count == 1
    assert any(e.name.startswith("tandem::kernel::") for e in events) == device.startswith("cuda")
    ops = [e for e in events if e.name.startswith("aten::")]
    # Ops record their tensors' device; the engine's and Python's events are host-side.
    assert {e._device for e in ops if e.name == "aten::addmm"} == {device.split(":")[0]}
    addmm = next(e for e in events if e.name == "aten::addmm")
    assert addmm.input_shapes == [[8], [3, 4], [4, 8], [], []]
    assert addmm.input_shapes == next(e for e in ref.events() if e.name == "aten::addmm").input_shapes
    assert addmm.input_dtypes == ["float", "float", "float", "Scalar", "Scalar"]


def test_nesting_and_self_times(device):
    events = forward_backward(tandem, device).events()
    by_id = {e.id: e for e in events}
    assert len(by_id) == len(events)
    eps = 1e-3
    for e in events:
        assert e.time_range.end >= e.time_range.start
        assert -eps <= e.self_cpu_time_total <= e.cpu_time_total + eps
        for c in e.cpu_children:
            assert c.cpu_parent is e and c.thread == e.thread
            assert e.time_range.start <= c.time_range.start and c.time_range.end <= e.time_range.end
    evaluate = [e for e in events if e.name == "autograd::engine::evaluate_function: AddmmBackward0"]
    assert all([c.name for c in e.cpu_children] == ["AddmmBackward0"] for e in evaluate)
    # Self times add up to the top-level events' totals.
    top = sum(e.cpu_time_total for e in events if e.cpu_parent is None)
    assert abs(sum(e.self_cpu_time_total for e in events) - top) < eps * len(events)
    ka = {a.key: a for a in forward_backward(tandem, device).key_averages()}
    assert ka["aten::addmm"].count == 2
    assert ka["aten::addmm"].self_cpu_time_total <= ka["aten::addmm"].cpu_time_total + eps


def test_no_events_outside_a_profile(device):
    a = tandem.ones(2, 3, device=device)
    for _ in range(5):
        a + a
    assert not tandem._C._op_profiler_enabled()
    with tandem.profiler.record_function("ignored"):
        a * 2
    with tandem.profiler.profile() as prof:
        a - 1
    assert names(prof.events()) == ["aten::sub"]
    assert not tandem._C._op_profiler_enabled()
    with tandem.autograd.profiler.profile(enabled=False) as off:
        a + a
    assert off.function_events is None


def test_op_names_follow_aten(device):
    x = tandem.randn(4, 5, device=device)
    with tandem.profiler.profile() as prof:
        x.sum()
        x.mean(dim=1)
        x.t().contiguous()
        x.view(20)
        tandem.cat([x, x])
        x.softmax(-1)
        x.add_(1)
        x.relu()
        tandem.nn.functional.elu(x)
        tandem.zeros(2, device=device)
        tandem.ones_like(x)
    got = names(prof.events())
    for n in ("aten::sum", "aten::mean", "aten::t", "aten::contiguous", "aten::view", "aten::cat",
              "aten::softmax", "aten::add_", "aten::relu", "aten::elu", "aten::zeros", "aten::ones_like"):
        assert n in got, n
    # A front end re-entering itself (sum under autograd, overloads) is one event, not two nested.
    for e in prof.events():
        assert e.cpu_parent is None or e.cpu_parent.name != e.name


def test_record_function_ranges(device):
    x = tandem.ones(3, device=device)

    @tandem.profiler.record_function("decorated")
    def f(t):
        return t * 2

    with tandem.profiler.profile() as prof:
        with tandem.profiler.record_function("outer") as rf:
            assert rf.name == "outer"
            x + 1
            with tandem.autograd.profiler.record_function("inner"):
                f(x)
    events = {e.name: e for e in prof.events()}
    assert names(prof.events()) == ["outer", "aten::add", "inner", "decorated", "aten::mul"]
    assert all(e.device_type.name == "CUDA" for e in prof.events() if e.category == "kernel")
    assert events["outer"].is_user_annotation and events["inner"].is_user_annotation
    assert not events["aten::add"].is_user_annotation
    assert events["inner"].cpu_parent is events["outer"] and events["decorated"].cpu_parent is events["inner"]
    assert events["aten::mul"].cpu_parent is events["decorated"]
    assert names(events["outer"].cpu_children) == ["aten::add", "inner"]
    assert tandem.autograd.profiler.record_function is tandem.profiler.record_function


def run_schedule(lib, steps, **kwargs):
    ready = []
    with lib.profiler.profile(schedule=lib.profiler.schedule(**kwargs),
                              on_trace_ready=lambda p: ready.append(
                                  sorted(e.name for e in p.events() if e.name.startswith(("step", "Profiler"))))
                              ) as prof:
        for i in range(steps):
            with lib.profiler.record_function(f"step{i}"):
                lib.ones(1) + i
            prof.step()
    last = sorted(e.name for e in prof.events() if e.name.startswith(("step", "Profiler")))
    return ready, last, prof.step_num


@pytest.mark.parametrize("kwargs,steps", [
    (dict(wait=1, warmup=1, active=2), 9),
    (dict(wait=1, warmup=1, active=2, repeat=1), 9),
    (dict(wait=0, warmup=1, active=1, repeat=2, skip_first=2), 8),
    (dict(wait=2, warmup=1, active=3, skip_first=1), 7),
])
def test_schedule_records_torchs_steps(kwargs, steps):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run_schedule(tandem, steps, **kwargs) == run_schedule(torch, steps, **kwargs)


def test_schedule_actions_and_errors():
    s = tandem.profiler.schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    t = torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1, skip_first=1)
    assert [s(i).name for i in range(8)] == [t(i).name for i in range(8)]
    assert [a.name for a in tandem.profiler.ProfilerAction] == [a.name for a in torch.profiler.ProfilerAction]
    for lib in (tandem, torch):
        with pytest.raises(AssertionError, match=r"Invalid profiler schedule arguments. Got wait=0 \(need >= 0\), "
                                                 r"warmup=1 \(need >= 0\), active=0 \(need > 0\)"):
            lib.profiler.schedule(wait=0, warmup=1, active=0)
        with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
            lib.profiler.schedule(wait=0, warmup=0, active=1)


def table_lines(table):
    return table.rstrip("\n").split("\n")


def test_table_columns_match_torch():
    for kwargs in (dict(), dict(profile_memory=True), dict(record_shapes=True)):
        tables = []
        for lib in (tandem, torch):
            with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs) as prof:
                lib.ones(2, 3) + 1
            tables.append(prof.key_averages(group_by_input_shape=kwargs.get("record_shapes", False)).table())
        headers = [re.split(r"\s{2,}", table_lines(t)[1].strip()) for t in tables]
        assert headers[0] == headers[1]
        assert table_lines(tables[0])[-1].startswith("Self CPU time total: ")
        assert table_lines(tables[0])[0] == table_lines(tables[0])[2] == table_lines(tables[0])[-2]


@pytest.mark.parametrize("sort_by", ["cpu_time_total", "self_cpu_time_total", "count", "cpu_memory_usage",
                                     "self_cpu_memory_usage", "cpu_time"])
def test_table_sort_order_and_row_limit(sort_by):
    model = small_model(tandem, "cpu")
    with tandem.profiler.profile(profile_memory=True) as prof:
        model(tandem.randn(3, 4)).sum().backward()
    ka = prof.key_averages()
    table = ka.table(sort_by=sort_by, row_limit=5)
    rows = table_lines(table)[3:-2]
    assert len(rows) == 5
    expected = sorted(ka, key=lambda a: getattr(a, sort_by), reverse=True)[:5]
    assert [r.split("  ")[0].strip() or r for r in (row.strip() for row in rows)] == \
        [a.key[:52] + "..." if len(a.key) >= 52 else a.key for a in expected]
    assert "CPU Mem" in table_lines(table)[1] and "Self CPU Mem" in table_lines(table)[1]
    full = ka.table(sort_by="cuda_time_total")  # the device columns sort too (all zero here)
    assert "Self CUDA" not in full


def test_chrome_trace_json(tmp_path, device):
    model = small_model(tandem, device)
    with tandem.profiler.profile(record_shapes=True) as prof:
        with tandem.profiler.record_function("fwd"):
            y = model(tandem.randn(3, 4, device=device))
        y.sum().backward()
    prof.add_metadata("run", "test")
    for name in ("trace.json", "trace.json.gz"):
        path = tmp_path / name
        prof.export_chrome_trace(str(path))
        data = (gzip.open(path) if name.endswith(".gz") else open(path)).read()
        trace = json.loads(data)
        assert trace["run"] == "test"
        spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
        assert {e["name"] for e in spans} >= {"fwd", "aten::addmm", "AddmmBackward0"}
        for e in spans:
            assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and "pid" in e and "tid" in e
        fwd = next(e for e in spans if e["name"] == "fwd")
        assert fwd["cat"] == "user_annotation"
        addmm = next(e for e in spans if e["name"] == "aten::addmm")
        assert addmm["cat"] == "cpu_op" and addmm["args"]["Input Dims"] == [[8], [3, 4], [4, 8], [], []]


def test_tensorboard_trace_handler_writes_one_file_per_cycle(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = tandem.profiler.schedule(wait=0, warmup=0, active=1, repeat=2)
    with tandem.profiler.profile(schedule=sched,
                                 on_trace_ready=tandem.profiler.tensorboard_trace_handler(str(tmp_path), "w")) as p:
        for _ in range(3):
            tandem.ones(2) * 2
            p.step()
    files = sorted(f.name for f in tmp_path.iterdir())
    assert len(files) == 2 and all(re.fullmatch(r"w\.\d+\.pt\.trace\.json", f) for f in files)
    for f in tmp_path.iterdir():
        assert any(e["name"] == "aten::mul" for e in json.loads(f.read_text())["traceEvents"])


def test_threads_record_side_by_side(device):
    x = tandem.ones(8, device=device)
    n, per_thread = 4, 200
    barrier = threading.Barrier(n)

    def work():
        barrier.wait()
        with tandem.profiler.record_function("worker"):
            for _ in range(per_thread):
                x + x

    with tandem.profiler.profile() as prof:
        threads = [threading.Thread(target=work) for _ in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    events = prof.events()
    adds = [e for e in events if e.name == "aten::add"]
    assert len(adds) == n * per_thread
    workers = [e for e in events if e.name == "worker"]
    assert len({e.thread for e in workers}) == n
    for e in adds:
        assert e.cpu_parent is not None and e.cpu_parent.name == "worker" and e.cpu_parent.thread == e.thread
    assert prof.key_averages().table().count("aten::add") == 1


def test_memory_columns(device):
    with tandem.profiler.profile(profile_memory=True,
                                 activities=list(tandem.profiler.supported_activities())) as prof:
        a = tandem.ones(256, device=device)  # 1 KiB
        b = a * 2
        del b
    events = prof.events()
    mul = next(e for e in events if e.name == "aten::mul")
    attr = "cpu_memory_usage" if device == "cpu" else "device_memory_usage"
    assert getattr(mul, "self_" + attr) == 1024 and getattr(mul, attr) == 1024
    # ones() is Python (an allocation, then aten::fill_): its allocation and b's free are outside every op.
    assert -1024 in [getattr(e, "self_" + attr) for e in events if e.name == "[memory]"]
    del a
    table = prof.key_averages().table(sort_by="self_" + attr)
    assert "CPU Mem" in table


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) cuda device")
def test_cuda_activity_device_time_and_memcpy():
    host = tandem.ones(64, 64)
    with tandem.profiler.profile(activities=[tandem.profiler.ProfilerActivity.CPU,
                                             tandem.profiler.ProfilerActivity.CUDA]) as prof:
        d = host.to("cuda:0")
        y = (d @ d).relu()
        y.cpu()
    events = prof.events()
    matmul = next(e for e in events if e.name == "aten::matmul")
    mm = next(e for e in events if e.name == "aten::mm")
    assert mm.cpu_parent is matmul and [k.name for k in mm.kernels] == ["tandem::kernel::linalg.gemm"]
    # The kernel ran on the device's worker thread, timed there; the ops add their kernels' times.
    kernel = next(e for e in events if e.name == "tandem::kernel::linalg.gemm")
    assert kernel.thread != mm.thread and kernel.device_type == tandem.profiler.DeviceType.CUDA
    assert matmul.device_time_total == mm.device_time_total == mm.self_device_time_total == kernel.device_time_total
    assert matmul.self_device_time_total == 0
    view = [e for e in events if e.name == "aten::t"]
    assert all(not e.kernels for e in view)
    memcpy = [e.name for e in events if e.name.startswith("Memcpy")]
    assert "Memcpy HtoD (Host -> Device)" in memcpy and "Memcpy DtoH (Device -> Host)" in memcpy
    table = prof.key_averages().table(sort_by="cuda_time_total")
    header = re.split(r"\s{2,}", table_lines(table)[1].strip())
    assert header[6:10] == ["Self CUDA", "Self CUDA %", "CUDA total", "CUDA time avg"]
    assert "Self CUDA time total: " in table
    # A kernel whose result the host reads at once (nonzero's count) is timed on the device too, and the
    # read is a device->host memcpy.
    with tandem.profiler.profile(activities=list(tandem.profiler.supported_activities())) as sync_read:
        d.nonzero()
    nonzero = next(e for e in sync_read.events() if e.name == "aten::nonzero")
    assert [k.name for k in nonzero.kernels] == ["tandem::kernel::index.count_nonzero",
                                                 "tandem::kernel::index.nonzero"]
    assert "Memcpy DtoH (Device -> Host)" in names(sync_read.events())
    # CPU only: the same program shows no device columns.
    with tandem.profiler.profile(activities=[tandem.profiler.ProfilerActivity.CPU]) as cpu_only:
        (d @ d).relu()
    assert all(not e.kernels for e in cpu_only.events())
    assert "CUDA" not in cpu_only.key_averages().table()


def test_legacy_autograd_profile():
    x = tandem.ones(2, 2, requires_grad=True)
    with tandem.autograd.profiler.profile(record_shapes=True, profile_memory=True) as prof:
        (x * 3).sum().backward()
    assert "aten::mul" in names(prof.function_events)
    assert "MulBackward0" in names(prof.function_events)
    assert "Name" in prof.table() and "CPU Mem" in prof.table(sort_by="self_cpu_time_total")
    assert prof.key_averages(group_by_input_shape=True)[0].input_shapes is not None
    assert prof.total_average().key == "Total" and prof.self_cpu_time_total > 0
    with tandem.autograd.profiler.emit_nvtx():
        x + 1
    if tandem.cuda.is_available():
        with tandem.autograd.profiler.profile(use_device="cuda") as p2:
            x.cuda() + 1
        assert any(e.kernels for e in p2.function_events)


def test_errors_as_torch():
    for lib in (tandem, torch):
        p = lib.profiler.profile()
        with pytest.raises(AssertionError, match="^Profiler must be initialized before getting key averages$"):
            p.key_averages()
        with pytest.raises(AssertionError, match="^Profiler must be initialized before accessing events$"):
            p.events()
        with pytest.raises(AssertionError, match="^Profiler must be initialized before exporting chrome trace$"):
            p.export_chrome_trace("unused.json")
        with lib.autograd.profiler.profile() as ap:
            with pytest.raises(RuntimeError, match="^Profiler context manager is not reentrant$"):
                ap.__enter__()
    legacy = tandem.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="^Profiler didn't finish running$"):
        legacy.key_averages()
    with tandem.profiler.profile():
        with pytest.raises(RuntimeError, match="^Profiler is already enabled\nhint: "):
            with tandem.profiler.profile():
                pass


def test_profile_while_running_and_after_an_exception():
    with tandem.profiler.profile() as prof:
        tandem.ones(1) + 1
        assert len(prof.key_averages()) == 0 and len(prof.events()) == 0
    assert "aten::add" in names(prof.events())
    with pytest.raises(ValueError, match="boom"):
        with tandem.profiler.profile() as prof:
            with tandem.profiler.record_function("r"):
                raise ValueError("boom")
    assert names(prof.events()) == ["r"] and not tandem._C._op_profiler_enabled()


def test_flops_as_torch():
    results = []
    for lib in (tandem, torch):
        a, b = lib.ones(8, 16), lib.ones(16, 4)
        with lib.profiler.profile(with_flops=True) as prof:
            lib.mm(a, b)
            lib.addmm(lib.ones(4), a, b)
        flops = {e.name: e.flops for e in prof.events() if e.name in ("aten::mm", "aten::addmm")}
        header = re.split(r"\s{2,}", table_lines(prof.key_averages().table())[1].strip())
        results.append((flops, header[-1]))
    assert results[0] == results[1]


def test_acc_events_accumulates_cycles():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = tandem.profiler.schedule(wait=0, warmup=0, active=1, repeat=3)
    with tandem.profiler.profile(schedule=sched, acc_events=True) as prof:
        for i in range(3):
            with tandem.profiler.record_function(f"step{i}"):
                tandem.ones(1) + i
            prof.step()
    assert [n for n in names(prof.events()) if n.startswith("step")] == ["step0", "step1", "step2"]
