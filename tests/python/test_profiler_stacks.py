"""tandem.profiler.profile(with_stack=True): each event's Python stack (PyTorch's "file(line): function" and
"nn.Module: Linear_0" entries, innermost first), key_averages(group_by_stack_n=N), the table's Source Location
column, export_stacks' collapsed lines, and with_modules' deprecation, against PyTorch 2.15 (whose event.stack
is filled when experimental_config has verbose=True; its own torch/ frames and builtins are left out before
comparing, as tandem leaves out its own frames)."""
import os
import threading
import warnings

import pytest
import torch

import tandem

HERE = os.path.basename(__file__)


def model_of(lib, device="cpu"):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.ReLU(), lib.nn.Linear(3, 2)).to(device)


def user_step(model, x):
    y = model(x)
    return (y * 2).sum()


def profile_step(lib, device="cpu", **kwargs):
    model, x = model_of(lib, device), lib.randn(2, 4, device=device)
    if lib is torch and kwargs.get("with_stack"):
        kwargs["experimental_config"] = torch._C._profiler._ExperimentalConfig(verbose=True)
    with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU], **kwargs) as prof:
        user_step(model, x)
    return prof


def user_frames(stack):
    """A stack without PyTorch's own frames and builtins (tandem records neither)."""
    return [s for s in stack if not s.startswith(("torch/", "<built-in"))]


def first_line(fn):
    return fn.__code__.co_firstlineno


def stacks_by_op(prof):
    out = {}
    for e in prof.events():
        if e.name.startswith("aten::"):
            out.setdefault(e.name, user_frames(e.stack))
    return out


def test_stack_names_the_user_function_and_modules(device):
    prof = profile_step(tandem, device, with_stack=True)
    by_op = stacks_by_op(prof)
    step = f"{HERE}({first_line(user_step)}): user_step"
    # Innermost first: the module, the Sequential around it, the function that called it, the test that ran it.
    assert by_op["aten::addmm"][:3] == ["nn.Module: Linear_0", "nn.Module: Sequential_0", step]
    assert by_op["aten::relu"][:3] == ["nn.Module: ReLU_0", "nn.Module: Sequential_0", step]
    assert by_op["aten::mul"][0] == step
    # A frame already open when profiling started shows the line it was at (the `with` line), as in PyTorch.
    assert by_op["aten::mul"][1] == f"{HERE}({first_line(profile_step) + 4}): profile_step"
    # No frame of the tandem package (PyTorch keeps torch/ frames; tandem's are left out).
    for e in prof.events():
        assert not any("tandem/" in s for s in e.stack), e.stack


def test_stacks_match_pytorch_user_frames():
    # From one line, so that the frames of this test read the same.
    got, ref = [stacks_by_op(profile_step(lib, with_stack=True)) for lib in (tandem, torch)]
    for op in ("aten::addmm", "aten::relu", "aten::mul", "aten::sum"):
        assert got[op] == ref[op], op
    # The second Linear is a second module of its class.
    second = [e.stack for e in profile_step(tandem, with_stack=True).events() if e.name == "aten::addmm"][1]
    assert second[0] == "nn.Module: Linear_1"


def test_without_with_stack_events_have_empty_stacks(device):
    prof = profile_step(tandem, device, record_shapes=True)
    assert len(prof.events()) > 0
    assert all(e.stack == [] for e in prof.events())
    assert all(e.stack == [] for e in prof.key_averages(group_by_stack_n=3))
    assert "Source Location" not in prof.key_averages().table()
    with pytest.raises(AssertionError, match="^export_stacks\\(\\) requires with_stack=True$"):
        prof.export_stacks("/dev/null")


def test_record_function_and_nested_ops_have_stacks():
    def annotated(x):
        with tandem.profiler.record_function("my_block"):
            return tandem.nn.functional.softmax(x, dim=0)

    x = tandem.randn(5)
    with tandem.profiler.profile(with_stack=True) as prof:
        annotated(x)
    here = f"{HERE}({first_line(annotated)}): annotated"
    block = next(e for e in prof.events() if e.name == "my_block")
    assert block.stack[0] == here
    for e in prof.events():
        if e.name.startswith("aten::"):
            assert e.stack[0] == here, (e.name, e.stack)


def test_ops_on_another_thread_have_that_threads_stack():
    def worker(x, out):
        out.append(x + 1)

    x, out = tandem.ones(3), []
    with tandem.profiler.profile(with_stack=True) as prof:
        t = threading.Thread(target=worker, args=(x, out))
        t.start()
        t.join()
    add = next(e for e in prof.events() if e.name == "aten::add")
    assert add.stack[0] == f"{HERE}({first_line(worker)}): worker"
    assert add.stack[1].endswith(": run") and add.stack[1].startswith("threading.py(")


def test_group_by_stack_n():
    def a(x):
        return x * 2

    def b(x):
        return x * 3

    x = tandem.ones(4)
    with tandem.profiler.profile(with_stack=True) as prof:
        for _ in range(3):
            a(x)
        b(x)
    rows = [r for r in prof.key_averages(group_by_stack_n=1) if r.key == "aten::mul"]
    assert sorted((r.stack, r.count) for r in rows) == [([f"{HERE}({first_line(a)}): a"], 3),
                                                         ([f"{HERE}({first_line(b)}): b"], 1)]
    # Without group_by_stack_n, one row and no stack.
    rows = [r for r in prof.key_averages() if r.key == "aten::mul"]
    assert [(r.stack, r.count) for r in rows] == [([], 4)]
    # Two frames: the same split (both callers are the same test frame), each row with two entries.
    rows = [r for r in prof.key_averages(group_by_stack_n=2) if r.key == "aten::mul"]
    assert sorted(r.count for r in rows) == [1, 3] and all(len(r.stack) == 2 for r in rows)


def test_table_source_location_column_matches_pytorch_layout():
    got = profile_step(tandem, with_stack=True).key_averages(group_by_stack_n=2).table(
        sort_by="count", row_limit=100)
    ref = profile_step(torch, with_stack=True).key_averages(group_by_stack_n=2).table(sort_by="count",
                                                                                      row_limit=100)
    for table in (got, ref):
        lines = table.splitlines()
        header = next(line for line in lines if "Source Location" in line)
        assert header.rstrip().endswith("# of Calls  Source Location")
    # tandem's mul row: its two innermost frames under Source Location, then an empty line.
    lines = got.splitlines()
    header = next(line for line in lines if "Source Location" in line)
    col = header.index("Source Location")
    k = next(i for i, line in enumerate(lines) if line.strip().startswith("aten::mul "))
    assert lines[k][col:].strip() == f"{HERE}({first_line(user_step)}): user_step"
    assert lines[k + 1][:col].strip() == ""
    assert lines[k + 1][col:].strip() == f"{HERE}({first_line(profile_step) + 4}): profile_step"
    assert lines[k + 2].strip() == ""


def test_export_stacks_collapsed_format(tmp_path):
    prof = profile_step(tandem, with_stack=True)
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path))
    lines = path.read_text().splitlines()
    expected = [(";".join(s.replace(" ", "_") for s in reversed(e.stack)), int(e.self_cpu_time_total))
                for e in prof.events() if e.stack and int(e.self_cpu_time_total) > 0]
    assert [(line.rsplit(" ", 1)[0], int(line.rsplit(" ", 1)[1])) for line in lines] == expected
    # Outermost first: ...pytest's frames;this test;profile_step;user_step;the modules.
    outermost_first = (f"test_export_stacks_collapsed_format;"
                       f"{HERE}({first_line(profile_step) + 4}):_profile_step;"
                       f"{HERE}({first_line(user_step)}):_user_step;nn.Module:_Sequential_0;nn.Module:_Linear_0")
    assert any(line.rsplit(" ", 1)[0].endswith(outermost_first) for line in lines)
    # PyTorch writes the same shape of line for the same ops (its torch/ frames removed, values aside).
    ref_path = tmp_path / "ref.txt"
    profile_step(torch, with_stack=True).export_stacks(str(ref_path))
    ref = {";".join(f for f in line.rsplit(" ", 1)[0].split(";") if not f.startswith(("torch/", "<built-in")))
           for line in ref_path.read_text().splitlines()}
    assert any(r.endswith(outermost_first) for r in ref)
    with pytest.raises(ValueError, match="^metric should be one of: \\['self_cpu_time_total', "):
        prof.export_stacks(str(path), metric="cpu_time_total")
    prof.export_stacks(str(path), metric="self_cuda_time_total")  # no device time: nothing positive
    assert path.read_text() == ""


def test_with_modules_is_deprecated_as_in_pytorch():
    for lib in (torch, tandem):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            prof = profile_step(lib, with_modules=True)
        messages = [str(w.message) for w in caught if w.category is FutureWarning]
        assert messages == [
            "with_modules is deprecated and will be removed in a future release. It only collects data for "
            "TorchScript models, which are themselves deprecated, and does nothing in eager mode. Use "
            "with_stack=True, which records nn.Module events for eager models."], lib
        # It does nothing more in eager mode: no stacks.
        assert all(e.stack == [] for e in prof.events() if e.name.startswith("aten::")), lib


def test_with_stack_and_modules_together():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        prof = profile_step(tandem, with_stack=True, with_modules=True)
    modules = {s for e in prof.events() for s in e.stack if s.startswith("nn.Module: ")}
    assert modules == {"nn.Module: Sequential_0", "nn.Module: Linear_0", "nn.Module: ReLU_0",
                       "nn.Module: Linear_1"}


def test_backward_ops_have_the_stack_of_backward_call():
    model, x = model_of(tandem), tandem.randn(2, 4)

    def train(model, x):
        model(x).sum().backward()

    with tandem.profiler.profile(with_stack=True) as prof:
        train(model, x)
    mm = [e for e in prof.events() if e.name == "aten::mm"]
    assert mm and all(e.stack[0] == f"{HERE}({first_line(train)}): train" for e in mm)


def test_schedule_cycles_each_get_stacks():
    def step(x):
        return x.exp()

    x = tandem.ones(3)
    seen = []
    sched = tandem.profiler.schedule(wait=0, warmup=1, active=1, repeat=2)
    with tandem.profiler.profile(with_stack=True, schedule=sched,
                                 on_trace_ready=lambda p: seen.append(
                                     [e.stack[0] for e in p.events() if e.name == "aten::exp"])) as prof:
        for _ in range(4):
            step(x)
            prof.step()
    assert seen == [[f"{HERE}({first_line(step)}): step"]] * 2


def test_a_refused_second_profiler_leaves_the_running_ones_stacks():
    def op(x):
        return x.neg()

    x = tandem.ones(2)
    with tandem.profiler.profile(with_stack=True) as prof:
        with pytest.raises(RuntimeError, match="^Profiler is already enabled"):
            with tandem.profiler.profile(with_stack=True):
                pass
        op(x)
    neg = next(e for e in prof.events() if e.name == "aten::neg")
    assert neg.stack[0] == f"{HERE}({first_line(op)}): op"
