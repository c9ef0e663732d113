"""tandem.accelerator's memory and stream functions, tandem.Stream / tandem.Event and tandem.GradScaler
(docs/devices.md, "Device-agnostic code"): with no accelerator they answer as PyTorch does with CUDA hidden
(checked in fresh interpreters), on emulated (or real) CUDA devices they report that device's own figures."""
import collections
import inspect
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import tandem
from oracle import assert_same_error

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
A = tandem.accelerator

# Each line is evaluated in a fresh interpreter with `lib` as torch or tandem and CUDA hidden; what it returns or
# raises is printed in a form both libraries can share (builtin exception base, message before any hint).
_NO_ACCELERATOR_PROBES = [
    "A.current_accelerator()", "A.is_available()", "A.memory_stats()", "A.memory_stats(0)", "A.memory_stats('cpu')",
    "A.memory_allocated()", "A.max_memory_allocated()", "A.memory_reserved()", "A.max_memory_reserved()",
    "A.memory_allocated('cpu')", "A.memory_allocated(lib.device('cuda:0'))", "A.empty_cache()",
    "A.empty_host_cache()", "A.reset_accumulated_memory_stats()", "A.reset_peak_memory_stats()",
    "A.reset_peak_memory_stats('cpu')", "A.get_memory_info()", "A.get_memory_info(0)", "A.get_memory_info('cpu')",
    "A.get_device_capability()", "A.get_device_capability('cpu')", "A.current_stream()", "A.current_stream(0)",
    "A.current_stream('cpu')", "A.set_stream(lib.Stream('cpu'))", "A.memory.memory_stats()",
    "lib.Stream('cpu')", "lib.Stream('cpu', priority=-1)", "lib.Stream(lib.device('cpu'))",
    "(s.device, s.device_type, s.device_index, s.stream_id)", "s.query()", "s.synchronize()",
    "s == lib.Stream('cpu')", "hash(s) == hash(lib.Stream('cpu'))", "s == e", "s.is_capturing()",
    "s.record_event()", "s.record_event(e)", "s.wait_event(e)", "s.wait_stream(lib.Stream('cpu'))",
    "s.native_handle", "lib.Event()", "lib.Event('cuda:1')", "lib.Event('cuda').device", "lib.Event(0)",
    "lib.Event('cpu', enable_timing=True, blocking=True)", "(e.device, e.event_id)", "e.query()",
    "e.synchronize()", "e.record()", "e.record(s)", "e.wait()", "e.wait(s)", "lib.Event('cuda').record(s)",
    "lib.Event('cuda').query()", "lib.Event('cuda').wait(s)", "e.elapsed_time(e)", "e.elapsed_time(1)",
    "et.elapsed_time(et)", "et.elapsed_time(lib.Event('cuda', enable_timing=True))", "e.ipc_handle()",
    "lib.Event.from_ipc_handle('cpu', b'')",
]

_PROBE = """
import builtins, sys
lib = __import__(sys.argv[1])
A = lib.accelerator
import {lib}.accelerator.memory
s, e, et = lib.Stream('cpu'), lib.Event('cpu'), lib.Event('cpu', enable_timing=True)
def shown(value):
    return repr(value).replace("tandem", "torch") + " " + type(value).__name__
for line in sys.stdin.read().splitlines():
    try:
        print(line, "->", shown(eval(line)))
    except Exception as error:
        base = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
        print(line, "!!", base.__name__, str(error).split("\\nhint:")[0].replace("tandem", "torch"))
"""


def _probe(lib):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    env["CUDA_VISIBLE_DEVICES"] = ""
    out = subprocess.run([sys.executable, "-c", _PROBE.replace("{lib}", lib), lib], env=env, capture_output=True,
                         text=True, timeout=120, input="\n".join(_NO_ACCELERATOR_PROBES))
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_without_an_accelerator_everything_answers_as_pytorch():
    if not tandem.backends.cuda.is_built():
        pytest.skip("compares a CUDA build of tandem with PyTorch's CUDA build, both with CUDA hidden")
    want, got = _probe("torch"), _probe("tandem")
    assert len(got) == len(want) == len(_NO_ACCELERATOR_PROBES)
    for got_line, want_line in zip(got, want):
        assert got_line == want_line


def test_stream_without_a_device_fails_as_pytorch():
    """PyTorch's CUDA error here names the driver call ("CUDA error: CUDA driver version is insufficient ...");
    tandem's names the missing driver. Both are RuntimeErrors raised on construction."""
    lines = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import sys
            lib = __import__(sys.argv[1])
            for make in (lambda: lib.Stream(), lambda: lib.Stream('cuda:0'), lambda: lib.Stream(0)):
                try:
                    make()
                except RuntimeError as e:
                    print("RuntimeError")
        """), "tandem"],
        env={**{k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")},
             "CUDA_VISIBLE_DEVICES": ""}, capture_output=True, text=True, timeout=120).stdout.splitlines()
    assert lines == ["RuntimeError"] * 3


def test_signatures_match_pytorch():
    for name in ("current_stream", "set_stream", "empty_cache", "empty_host_cache", "memory_allocated",
                 "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
                 "reset_accumulated_memory_stats", "reset_peak_memory_stats", "get_memory_info",
                 "get_device_capability"):
        ours, theirs = inspect.signature(getattr(A, name)), inspect.signature(getattr(torch.accelerator, name))
        assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == \
            [(p.name, p.kind, p.default) for p in theirs.parameters.values()], name
    assert set(torch.accelerator.memory.__all__) == set(A.memory.__all__)
    assert set(torch.accelerator.memory.__all__) <= set(A.__all__)


def test_grad_scaler_is_amp_grad_scaler():
    assert tandem.GradScaler is tandem.amp.GradScaler
    assert list(inspect.signature(tandem.GradScaler).parameters) == list(inspect.signature(torch.GradScaler).parameters)


def test_stream_and_event_argument_errors_match_pytorch():
    assert_same_error(lambda lib: lib.Stream("cpu", priority="a"))
    assert_same_error(lambda lib: lib.Stream("cpu", priority=True))
    assert_same_error(lambda lib: lib.Stream(1.5))
    assert_same_error(lambda lib: lib.Event(1.5))
    assert_same_error(lambda lib: lib.Event(enable_timing=1))
    assert_same_error(lambda lib: lib.Event("cpu", blocking=None))
    assert_same_error(lambda lib: lib.Event("cpu", interprocess="x"))
    with pytest.raises(TypeError):
        tandem.Stream("cpu", 0)  # priority is keyword-only, as PyTorch's


# ---- on (emulated or real) CUDA devices ----------------------------------------------------------------------------


@needs_cuda
def test_memory_functions_report_the_device_allocator():
    index = tandem.cuda.device_count() - 1
    A.empty_cache()
    before = A.memory_allocated(index)
    x = tandem.empty(1000, dtype=tandem.float32, device=f"cuda:{index}")
    for spelling in (index, f"cuda:{index}", tandem.device("cuda", index)):
        assert A.memory_allocated(spelling) == tandem.cuda.memory_allocated(index) >= before + 4000
        assert A.memory_reserved(spelling) == tandem.cuda.memory_reserved(index) >= A.memory_allocated(index)
        assert A.max_memory_allocated(spelling) == tandem.cuda.max_memory_allocated(index)
        assert A.max_memory_reserved(spelling) == tandem.cuda.max_memory_reserved(index)
    stats = A.memory_stats(index)
    assert type(stats) is collections.OrderedDict and list(stats) == sorted(stats)
    assert dict(stats) == dict(A.memory.memory_stats(f"cuda:{index}"))
    assert all(type(v) is int for v in stats.values())
    assert A.get_memory_info(index) == tandem.cuda.mem_get_info(index)
    free, total = A.get_memory_info(index)
    assert type(free) is int and 0 <= free <= total == tandem.cuda.get_device_properties(index).total_memory

    peak = A.max_memory_allocated(index)
    del x
    A.reset_peak_memory_stats(index)
    assert A.max_memory_allocated(index) == A.memory_allocated(index) < peak
    with tandem.cuda.device(index):  # no argument: the current device
        assert A.memory_allocated() == A.memory_allocated(index)


@needs_cuda
def test_reset_accumulated_memory_stats_restarts_the_running_totals():
    index = tandem.cuda.device_count() - 1
    keep = tandem.empty(10, device=f"cuda:{index}")
    assert A.memory_stats(index)["allocation.all.allocated"] >= 1
    A.reset_accumulated_memory_stats(f"cuda:{index}")
    stats = A.memory_stats(index)
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == 0
    assert stats["num_alloc_retries"] == stats["num_ooms"] == 0
    assert stats["allocated_bytes.all.current"] == tandem.cuda.memory_allocated(index) > 0  # not a running total
    tmp = tandem.empty(10, device=f"cuda:{index}")
    del tmp
    stats = A.memory_stats(index)
    assert stats["allocation.all.allocated"] == 1 and stats["allocation.all.freed"] == 1
    del keep


@needs_cuda
def test_memory_functions_refuse_other_devices():
    n = tandem.cuda.device_count()
    for call in (A.memory_stats, A.memory_allocated, A.get_memory_info, A.current_stream, A.get_device_capability,
                 A.reset_peak_memory_stats, A.reset_accumulated_memory_stats):
        with pytest.raises(ValueError, match="^cpu doesn't match the current accelerator cuda.$"):
            call("cpu")
        with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
            call(n)


@needs_cuda
def test_device_capability_lists_every_dtype():
    caps = A.get_device_capability(0)
    assert list(caps) == ["supported_dtypes"]
    assert caps["supported_dtypes"] == {tandem.bool, tandem.uint8, tandem.int8, tandem.int16, tandem.int32,
                                        tandem.int64, tandem.uint16, tandem.uint32, tandem.uint64, tandem.float16,
                                        tandem.bfloat16, tandem.float32, tandem.float64, tandem.complex64,
                                        tandem.complex128}
    x = tandem.zeros(2, dtype=tandem.uint16, device="cuda:0")  # each of them can live there
    assert x.dtype in caps["supported_dtypes"]


@needs_cuda
def test_current_and_set_stream():
    index = tandem.cuda.device_count() - 1
    current = A.current_stream(index)
    assert type(current) is tandem.Stream and current.device == tandem.device("cuda", index)
    assert current == tandem.Stream._wrap(tandem.cuda.current_stream(index))
    assert tandem.cuda.current_stream(index) == current and current == tandem.cuda.current_stream(index)
    assert tandem.cuda.current_stream(index) != tandem.Stream(f"cuda:{index}") and tandem.cuda.current_stream() != 3
    side = tandem.Stream(f"cuda:{index}")
    device = tandem.cuda.current_device()
    try:
        A.set_stream(side)
        assert A.current_stream(index) == side and tandem.cuda.current_stream(index).stream_id == side.stream_id
        assert tandem.cuda.current_device() == index  # as PyTorch's, set_stream makes the stream's device current
        A.set_stream(tandem.cuda.default_stream(index))  # a tandem.cuda.Stream is a torch.Stream too
        assert A.current_stream(index).stream_id == 0
    finally:
        A.set_stream(current)
        tandem.cuda.set_device(device)
    with pytest.raises(ValueError, match="^cpu doesn't match the current accelerator cuda.$"):
        A.set_stream(tandem.Stream("cpu"))
    with pytest.raises(TypeError, match="must be torch.Stream, not int"):
        A.set_stream(1)


@needs_cuda
def test_stream_and_event_on_a_cuda_device():
    index = tandem.cuda.device_count() - 1
    s = tandem.Stream(f"cuda:{index}", priority=-1)
    assert (s.device, s.device_type, s.device_index) == (tandem.device("cuda", index), 1, index)
    assert s.stream_id > 0 and s == s and s != A.current_stream(index)
    assert repr(s) == f"tandem.Stream device_type=cuda, device_index={index}, stream_id={s.stream_id}"
    assert isinstance(tandem.cuda.current_stream(), tandem.Stream)
    assert isinstance(tandem.cuda.Event(), tandem.Event)

    start, end = tandem.Event(enable_timing=True), tandem.Event(enable_timing=True)
    assert repr(start) == "tandem.Event device_type=cuda, device_index=-1, event_flag=1, event_id=0"
    assert start.query() is True and start.device == tandem.device("cuda")
    with pytest.raises(ValueError, match="^Both events must be recorded before calculating elapsed time.$"):
        start.elapsed_time(end)
    x = tandem.arange(6, dtype=tandem.float32, device=f"cuda:{index}")
    # x is written on the current stream: s must wait for it before reading it (emulated streams run
    # asynchronously, so without this the product read x before arange wrote it, now and then).
    s.wait_stream(A.current_stream(index))
    start.record(s)
    with s:
        assert A.current_stream(index) == s
        y = x * 2
    end.record(s)
    assert A.current_stream(index) != s  # restored after the block
    end.synchronize()
    assert end.query() is True and s.query() is True
    assert start.device == tandem.device("cuda", index) and start.event_id > 0
    ms = start.elapsed_time(end)
    assert type(ms) is float and ms >= 0
    assert y.cpu().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]

    other = tandem.Stream(f"cuda:{index}")
    other.wait_stream(s)
    event = s.record_event()
    assert type(event) is tandem.Event and event.device == tandem.device("cuda", index)
    other.wait_event(event)
    other.synchronize()
    with pytest.raises(ValueError, match="^Both events must be created with argument 'enable_timing=True'.$"):
        event.elapsed_time(end)
    with pytest.raises(RuntimeError, match="^Event device type CPU does not match recording stream's device type "
                                           "CUDA.$"):
        tandem.Event("cpu").record(s)
    with pytest.raises(RuntimeError, match="^Event device type CUDA does not match other's device type CPU.$"):
        start.elapsed_time(tandem.Event("cpu", enable_timing=True))
    if index > 0:
        with pytest.raises(RuntimeError, match=f"^Event device index {index} does not match recording stream's "
                                               "device index 0.$"):
            start.record(A.current_stream(0))
