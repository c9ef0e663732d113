"""utils.benchmark against torch.utils.benchmark: Measurement statistics and repr, Compare tables (same
measurements printed the same), Timer's run counts, block sizes and stopping rules under a simulated clock (so
both libraries see identical times), threads, globals, CUDA synchronisation and the errors."""
import re

import pytest
import torch
import torch.utils.benchmark as torch_benchmark

import tandem
import tandem.utils.benchmark as benchmark

LIBS = {torch: torch_benchmark, tandem: benchmark}


def _strip_address(text):
    return re.sub(r"<\S+ object at 0x[0-9a-f]+>", "<object>", text.replace("torch.utils", "tandem.utils"))


def _measurement(lib, raw_times, number=10, **spec):
    spec.setdefault("stmt", "f(x)")
    spec.setdefault("setup", "pass")
    return LIBS[lib].Measurement(number, list(raw_times), LIBS[lib].TaskSpec(**spec))


TIMES = {
    "one": [2.5e-4],
    "three": [1e-6, 1.2e-6, 0.9e-6],
    "steady": [1e-3 + i * 1e-6 for i in range(12)],
    "noisy": [1e-3, 5e-3, 2e-3, 9e-3, 1.5e-3, 3e-3, 7e-3],
    "mild": [10.0, 10.5, 11.0, 11.6, 10.2, 10.9, 11.4, 10.1],
    "nanos": [3e-8 * (1 + (i % 3) / 50) for i in range(9)],
}


@pytest.mark.parametrize("name", list(TIMES))
def test_measurement_matches_pytorch(name):
    spec = dict(label="matmul", sub_label="64x64", description="float32", num_threads=2, setup="x = 1")
    ref, ours = (_measurement(lib, TIMES[name], **spec) for lib in (torch, tandem))
    assert ours.times == pytest.approx(ref.times)
    for attr in ("median", "mean", "iqr"):
        assert getattr(ours, attr) == pytest.approx(getattr(ref, attr), rel=1e-12)
    if len(TIMES[name]) > 1:
        assert ours.significant_figures == ref.significant_figures
    assert ours.has_warnings == ref.has_warnings
    assert ours.meets_confidence(0.2) == ref.meets_confidence(0.2)
    assert (ours.label, ours.sub_label, ours.description, ours.num_threads, ours.title, ours.env, ours.as_row_name) \
        == (ref.label, ref.sub_label, ref.description, ref.num_threads, ref.title, "Unspecified env", ref.as_row_name)
    assert _strip_address(repr(ours)) == _strip_address(repr(ref))


@pytest.mark.parametrize("spec", [
    dict(stmt="a\nb", setup="import x\ny = 2", sub_label="s"),
    dict(stmt="y = f(x)", setup="", description="d"),
    dict(stmt="y = f(x)", setup="pass", label="L", sub_label="sub"),
])
def test_task_spec_summaries_match_pytorch(spec):
    ref, ours = (_measurement(lib, TIMES["mild"], **spec) for lib in (torch, tandem))
    assert ours.task_spec.summarize() == ref.task_spec.summarize()
    assert _strip_address(repr(ours)) == _strip_address(repr(ref))


def test_merge_matches_pytorch():
    def merged(lib):
        ms = [_measurement(lib, TIMES["mild"], number=5, label="a"), _measurement(lib, TIMES["steady"], label="b"),
              _measurement(lib, TIMES["noisy"], number=5, label="a")]
        return [(m.number_per_run, m.times, m.label) for m in LIBS[lib].Measurement.merge(ms)]

    assert merged(tandem) == merged(torch)


def _table(lib, options):
    ms = []
    for threads in (1, 4):
        for i, sub in enumerate(["small", "large", "huge"]):
            for j, desc in enumerate(["tandem", "torch", "numpy"]):
                if (i, j) == (2, 2):
                    continue  # a missing cell
                base = 1e-5 * (1 + 3 * i) * (1 + j / 3) / threads
                noise = TIMES["noisy" if (i + j) % 4 == 0 else "steady"]
                ms.append(_measurement(lib, [base * t / noise[0] for t in noise], number=1, label="add",
                                       sub_label=sub, description=desc, num_threads=threads))
    ms.append(_measurement(lib, TIMES["mild"], label="sum", stmt="x.sum()", description="tandem"))
    ms.append(_measurement(lib, TIMES["mild"][:3], label="sum", stmt="x.sum()", description="tandem"))
    compare = LIBS[lib].Compare(ms)
    for option in options:
        getattr(compare, option[0])(*option[1:])
    return str(compare)


@pytest.mark.parametrize("options", [
    [], [("trim_significant_figures",)], [("colorize",)], [("colorize", True)], [("highlight_warnings",)],
    [("trim_significant_figures",), ("colorize",), ("highlight_warnings",)],
])
def test_compare_prints_pytorch_tables(options):
    ours = _table(tandem, options)
    assert ours == _table(torch, options)
    assert "[----" in ours and "Times are in" in ours


def test_compare_print_and_extend(capsys):
    compare = benchmark.Compare([_measurement(tandem, TIMES["mild"], label="x")])
    compare.extend_results([_measurement(tandem, TIMES["steady"], label="y")])
    compare.print()
    out = capsys.readouterr().out
    assert out == str(compare) + "\n" and " x " in out and " y " in out


class Clock:
    """A simulated clock: each reading advances it a little, each run of the statement costs `cost`."""

    def __init__(self, cost=2e-6, read=5e-8):
        self.now, self.cost, self.read, self.runs = 0.0, cost, read, 0

    def __call__(self):
        self.now += self.read
        return self.now

    def run(self):
        self.runs += 1
        self.now += self.cost * (1 + (self.runs % 7 == 0))


def _timer(lib, clock, **kw):
    return LIBS[lib].Timer("clock.run()", timer=clock, globals={"clock": clock}, **kw)


@pytest.mark.parametrize("method,kwargs", [
    ("timeit", dict(number=1000)), ("timeit", dict(number=3)), ("blocked_autorange", dict(min_run_time=0.01)),
    ("blocked_autorange", dict()), ("adaptive_autorange", dict()), ("adaptive_autorange", dict(threshold=0.01)),
    ("adaptive_autorange", dict(threshold=1e-4, max_run_time=0.05)),
])
@pytest.mark.parametrize("cost", [2e-6, 3e-3])
def test_timer_matches_pytorch_under_a_simulated_clock(method, kwargs, cost):
    def measure(lib):
        clock = Clock(cost)
        seen = []
        m = getattr(_timer(lib, clock, label="L", num_threads=1), method)(
            **kwargs, **({} if method == "timeit" else {"callback": lambda n, t: seen.append((n, t))}))
        return m.number_per_run, m.raw_times, clock.runs, seen, m.median

    ours, ref = measure(tandem), measure(torch)
    assert ours[0] == ref[0] and ours[2] == ref[2]
    assert ours[1] == pytest.approx(ref[1], rel=1e-9)
    assert [n for n, _ in ours[3]] == [n for n, _ in ref[3]]
    assert ours[4] == pytest.approx(ref[4], rel=1e-9)


def test_timeit_runs_setup_once_and_the_statement_number_times():
    calls = {"setup": 0, "stmt": 0}
    timer = benchmark.Timer(stmt="""
        calls["stmt"] += 1
        y = x * 2
        """, setup="calls['setup'] += 1\nx = torch.ones(3)", globals={"calls": calls})
    m = timer.timeit(500)
    assert calls == {"setup": 2, "stmt": 5 + 500}  # one warm-up block of number // 100 runs
    assert m.number_per_run == 500 and len(m.raw_times) == 1 and m.times[0] == m.raw_times[0] / 500
    assert m.stmt == 'calls["stmt"] += 1\ny = x * 2' and m.setup == "calls['setup'] += 1\nx = torch.ones(3)"


def test_torch_name_in_statements_is_tandem():
    seen = []
    benchmark.Timer("seen.append(torch)", globals={"seen": seen}).timeit(2)
    assert seen[-1] is tandem
    benchmark.Timer("seen.append(torch)", globals={"seen": seen, "torch": 5}).timeit(2)
    assert seen[-1] == 5


def test_num_threads_is_set_while_timing_and_restored():
    before = tandem.get_num_threads()
    seen = []
    benchmark.Timer("seen.append(torch.get_num_threads())", globals={"seen": seen}, num_threads=3).timeit(4)
    m = benchmark.Timer("seen.append(torch.get_num_threads())", globals={"seen": seen},
                        num_threads=2).blocked_autorange(min_run_time=0.001)
    assert seen[:6] == [3] * 6 and set(seen[6:]) == {2} and m.num_threads == 2
    assert tandem.get_num_threads() == before


def test_blocked_autorange_on_real_time(device):
    x = tandem.ones(32, 32, device=device)
    m = benchmark.Timer("x @ x", globals={"x": x}, description=device).blocked_autorange(min_run_time=0.02)
    assert sum(m.raw_times) >= 0.02 and m.median > 0 and m.mean > 0
    assert m.number_per_run in [10 ** k for k in range(10)]
    assert m.description == device


def test_the_default_timer_waits_for_cuda(monkeypatch):
    if not tandem.cuda.is_available():
        pytest.skip("no CUDA device (real or emulated)")
    synced = []
    monkeypatch.setattr(tandem.cuda, "synchronize", lambda device=None: synced.append(device))
    x = tandem.ones(8, device="cuda")
    benchmark.Timer("x + 1", globals={"x": x}).timeit(10)
    assert len(synced) >= 4  # a reading before and after each of the two blocks
    assert isinstance(benchmark.timer(), float)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, _strip_address(str(info.value))


@pytest.mark.parametrize("case", [
    lambda b: b.Timer(stmt=lambda: 1),
    lambda b: b.Timer("x", global_setup="int x;"),
    lambda b: b.Timer("x", language="rust"),
    lambda b: b.Timer("x").repeat(),
    lambda b: b.Timer("x").autorange(),
    lambda b: b.Compare([3]),
    lambda b: b.trim_sigfig(1.5, 1.5),
    lambda b: b.Timer("undefined_name").timeit(1),
], ids=["stmt-type", "global-setup", "language", "repeat", "autorange", "compare-type", "sigfig", "name-error"])
def test_errors_match_pytorch(case):
    assert _error(lambda: case(benchmark)) == _error(lambda: case(torch_benchmark))


def test_cpp_timers_are_refused_clearly():
    with pytest.raises(NotImplementedError, match="Python statements only"):
        benchmark.Timer("x", language="c++")
    with pytest.raises(NotImplementedError, match="Callgrind"):
        benchmark.Timer("x").collect_callgrind()


def test_helpers_match_pytorch():
    for t in (3e-10, 2e-9, 4.5e-7, 1.2e-4, 0.3, 12.0):
        assert benchmark.select_unit(t) == torch_benchmark.select_unit(t)
    for x, n in ((123.456, 2), (0.0012345, 3), (9.99, 1)):
        assert benchmark.trim_sigfig(x, n) == pytest.approx(torch_benchmark.trim_sigfig(x, n))
    assert benchmark.unit_to_english("us") == "microsecond"
    assert benchmark.ordered_unique([3, 1, 3, 2, 1]) == [3, 1, 2]
