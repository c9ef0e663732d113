"""More of torch.cuda (docs/devices.md, "More of torch.cuda"): with no CUDA device each name answers as PyTorch's
CUDA build does with no GPU (checked in fresh interpreters); on emulated (or real) devices the streams context,
comm's copies, the memory calls and the documented refusals."""
import importlib.util
import os
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest
import torch
import torch.cuda.comm  # noqa: F401  (PyTorch loads it on import only)

import tandem

C = tandem.cuda
needs_cuda = pytest.mark.skipif(not C.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
needs_two = pytest.mark.skipif(C.device_count() < 2, reason="needs two CUDA devices (TANDEM_EMULATE_CUDA=2)")
emulated_only = pytest.mark.skipif(not C.is_available() or not C.get_device_properties().is_emulated,
                                   reason="emulated devices' documented answers")
HAS_PYNVML = importlib.util.find_spec("pynvml") is not None

# ---- no CUDA device: PyTorch is the oracle ------------------------------------------------------------------------

# Each line runs in a fresh interpreter with `lib` as torch or tandem and CUDA hidden; what it returns or raises
# (builtin exception base and the message before tandem's hint) must be the same.
_SAME = [
    "c.stream(None).__enter__()", "type(c.stream(None)).__name__", "c.StreamContext(None).__exit__(None, None, None)",
    "c.set_per_process_memory_fraction(0.5)", "c.set_per_process_memory_fraction(2)",
    "c.get_per_process_memory_fraction()", "c.reset_accumulated_memory_stats()", "c.memory_snapshot()",
    "c.memory_snapshot(include_traces=False)", "c.ipc_collect()", "c.can_device_access_peer(0, 1)",
    "c.is_tf32_supported()", "c.has_half", "c.check_error(0)", "c.check_error(1)", "str(c.CudaError(35))",
    "c.cudart()", "c.caching_allocator_alloc(10)", "c.caching_allocator_delete(0)", "c.caching_allocator_delete(123)",
    "c.caching_allocator_enable()", "c.caching_allocator_enable(False)", "c.get_allocator_backend()",
    "c.host_memory_stats()", "c.host_memory_stats_as_nested_dict()", "c.reset_accumulated_host_memory_stats()",
    "c.reset_peak_host_memory_stats()", "c.graph_pool_handle()", "c.MemPool()", "c.nccl.is_available([lib.zeros(2)])",
    "c.nccl.is_available([])", "c.nccl.SUM", "c.current_blas_handle()", "c.profiler.start()", "c.profiler.stop()",
    "comm.broadcast(lib.zeros(2))", "comm.broadcast(lib.zeros(2), [0])",
    "comm.broadcast(lib.zeros(2), out=[lib.zeros(2)])",
    "comm.scatter(lib.zeros(4), [0, 1])", "comm.scatter(lib.zeros(4), out=[lib.zeros(2), lib.zeros(2)])",
    "comm.scatter(lib.zeros(4), [0], out=[lib.zeros(2)])",
    "comm.scatter(lib.zeros(4), chunk_sizes=[4], out=[lib.zeros(4)])",
    "comm.gather([lib.ones(2)], destination='cpu')", "comm.gather([lib.ones(2)], out=lib.empty(2))",
    "comm.gather([lib.ones(2)], destination=0, out=lib.empty(2))", "comm.gather([], destination='cpu')",
    "comm.reduce_add([lib.ones(2), lib.ones(2)])", "comm.reduce_add_coalesced([[lib.ones(2)], [lib.ones(2)]])",
    "comm.broadcast_coalesced([lib.zeros(2)], [0])", "c.FloatStorage(3)",
    "c.jiterator._create_jit_fn('template <typename T> T f(T x) { return x; }')(lib.ones(2))",
    "[issubclass(e, RuntimeError) for e in (c.CudaError, c.AcceleratorError, c.DeferredCudaCallError)]",
    "(c.cudaStatus.SUCCESS, c.cudaStatus.ERROR_NOT_READY)",
    "(c.streams.Stream is c.Stream, c.streams.Event is c.Event)",
    "c.graphs.graph_pool_handle()[0]", "type(c.caching_allocator_disabled()).__name__",
]
# PyTorch reaches the driver through another call here, so only the exception's builtin base is compared.
_SAME_BASE = ["c.ExternalStream(0)", "c.is_current_stream_capturing()", "c.CUDAGraph()", "c.graph(None)",
              "c.make_graphed_callables(lib.nn.Linear(2, 2), (lib.zeros(2, 2),))", "c.use_mem_pool(None).__enter__()",
              "c.graphs.is_current_stream_capturing()", "c.streams.ExternalStream(1, device='cuda:0')"]
_NVML = ["c.utilization()", "c.temperature()", "c.power_draw()", "c.clock_rate()", "c.memory_usage()",
         "c.device_memory_used()", "c.list_gpu_processes()"]

_PROBE = """
import importlib, sys, warnings
warnings.simplefilter("ignore")
lib = __import__(sys.argv[1])
c = lib.cuda
comm = importlib.import_module(sys.argv[1] + ".cuda.comm")
def shown(value):
    return repr(value).replace("tandem", "torch")
for line in sys.stdin.read().splitlines():
    base_only = line.startswith("!")
    try:
        print(line, "->", shown(eval(line.lstrip("!"))))
    except Exception as error:
        base = next(c for c in type(error).__mro__ if c.__module__ == "builtins")
        message = "" if base_only else str(error).split("\\nhint:")[0].replace("tandem", "torch")
        print(line, "!!", base.__name__, message)
"""


def _probe(lib, lines):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TANDEM_EMULATE")}
    env["CUDA_VISIBLE_DEVICES"] = ""
    out = subprocess.run([sys.executable, "-c", _PROBE, lib], env=env, capture_output=True, text=True, timeout=120,
                         input="\n".join(lines))
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_without_a_device_every_name_answers_as_pytorch():
    if not tandem.backends.cuda.is_built():
        pytest.skip("compares a CUDA build of tandem with PyTorch's CUDA build, both with CUDA hidden")
    lines = _SAME + ["!" + line for line in _SAME_BASE] + ([] if HAS_PYNVML else _NVML)
    want, got = _probe("torch", lines), _probe("tandem", lines)
    assert len(got) == len(want) == len(lines)
    for got_line, want_line in zip(got, want):
        assert got_line == want_line


def test_the_names_programs_use_exist():
    for name in ["StreamContext", "ExternalStream", "CudaError", "DeferredCudaCallError", "AcceleratorError",
                 "set_per_process_memory_fraction", "get_per_process_memory_fraction", "reset_accumulated_memory_stats",
                 "memory_snapshot", "memory_usage", "ipc_collect", "can_device_access_peer", "list_gpu_processes",
                 "utilization", "temperature", "power_draw", "clock_rate", "device_memory_used", "is_tf32_supported",
                 "has_half", "has_magma", "check_error", "cudart", "caching_allocator_alloc",
                 "caching_allocator_delete",
                 "caching_allocator_enable", "caching_allocator_disabled", "get_allocator_backend", "host_memory_stats",
                 "host_memory_stats_as_nested_dict", "reset_accumulated_host_memory_stats",
                 "reset_peak_host_memory_stats", "is_current_stream_capturing", "graph_pool_handle", "CUDAGraph",
                 "graph", "make_graphed_callables", "MemPool", "use_mem_pool", "nccl", "comm", "current_blas_handle",
                 "jiterator", "sparse", "streams", "graphs", "profiler"] + \
            [n for n in dir(torch.cuda) if n.endswith("Storage")]:
        assert hasattr(C, name), name
    for module, names in [(C.nccl, ["version", "is_available", "SUM"]), (C.profiler, ["start", "stop", "profile"]),
                          (C.comm, torch.cuda.comm.__all__), (C.streams, ["Stream", "Event", "ExternalStream"]),
                          (C.graphs, ["CUDAGraph", "graph", "make_graphed_callables", "graph_pool_handle",
                                      "is_current_stream_capturing"])]:
        for name in names:
            assert hasattr(module, name), (module.__name__, name)


def test_cuda_error_messages_match_pytorch():
    for code in (1, 2, 35, 100, 999999):
        assert str(C.CudaError(code)) == str(torch.cuda.CudaError(code))
    with pytest.raises(C.CudaError, match=r"^invalid argument \(1\)$"):
        C.check_error(1)
    assert C.check_error(0) is None


# ---- streams ------------------------------------------------------------------------------------------------------


@needs_two
def test_stream_context_makes_the_stream_and_its_device_current_and_restores_both():
    s1 = C.Stream(1)
    context = C.stream(s1)
    assert isinstance(context, C.StreamContext)
    before0, before1 = C.current_stream(0), C.current_stream(1)
    with C.device(0):
        with context as entered:
            assert entered is None
            assert C.current_device() == 1 and C.current_stream(1) == s1
            assert C.current_stream(0) == before0
            inner = C.Stream(1)
            with C.stream(inner):
                assert C.current_stream(1) == inner
            assert C.current_stream(1) == s1
        assert C.current_device() == 0
        assert (C.current_stream(0), C.current_stream(1)) == (before0, before1)
        with C.stream(None):
            assert C.current_device() == 0


@needs_two
def test_set_stream_makes_its_device_current_as_pytorch():
    with C.device(0):
        previous = C.current_stream(1)
        C.set_stream(C.Stream(1))
        try:
            assert C.current_device() == 1
        finally:
            C.set_stream(previous)
            C.set_device(0)
        assert C.set_stream(None) is None


@needs_cuda
def test_work_inside_a_stream_context_runs_on_that_stream():
    s = C.Stream()
    with C.stream(s):
        C._sleep(200)
        y = tandem.ones(4, device="cuda") * 3
        assert not s.query()
    C.current_stream().wait_stream(s)  # as in PyTorch, a read on another stream must be ordered after the work
    assert y.tolist() == [3.0] * 4 and s.query()


@emulated_only
def test_external_stream_is_refused_on_an_emulated_device():
    with pytest.raises(RuntimeError, match="emulated device") as info:
        C.ExternalStream(0)
    assert "hint:" in str(info.value)
    assert issubclass(C.ExternalStream, C.Stream) and C.streams.ExternalStream is C.ExternalStream


# ---- comm: copies across devices, against NumPy ------------------------------------------------------------------

X = np.arange(24, dtype=np.float32).reshape(6, 4)


@needs_two
def test_broadcast_copies_to_every_device_and_keeps_the_source_on_its_own():
    host = tandem.tensor(X)
    copies = C.comm.broadcast(host, [0, "cuda:1"])
    assert isinstance(copies, tuple) and [str(t.device) for t in copies] == ["cuda:0", "cuda:1"]
    for t in copies:
        np.testing.assert_array_equal(t.cpu().numpy(), X)
    on0 = host.cuda(0)
    same, other = C.comm.broadcast(on0, [0, 1])
    assert same is on0 and other.device == tandem.device("cuda:1")
    with pytest.raises(RuntimeError, match="must appear as the first on devices list"):
        C.comm.broadcast(on0, [1, 0])
    out = [tandem.empty(6, 4, device="cuda:0"), tandem.empty(6, 4, device="cuda:1")]
    result = C.comm.broadcast(host, out=out)
    assert isinstance(result, tuple) and all(a is b for a, b in zip(result, out))
    np.testing.assert_array_equal(out[1].cpu().numpy(), X)
    with pytest.raises(RuntimeError, match="same shape"):
        C.comm.broadcast(host, out=[tandem.empty(3, device="cuda:0")])
    with pytest.raises(ValueError, match=r"^Expected a torch.device with a specified index or an integer, but "
                                         r"got:cuda$"):
        C.comm.broadcast(host, ["cuda"])


@needs_two
def test_scatter_splits_like_torch_chunk_and_split():
    host = tandem.tensor(X)
    for kwargs, expected in [({}, torch.tensor(X).chunk(2)), ({"chunk_sizes": [1, 5]}, torch.tensor(X).split([1, 5])),
                             ({"dim": 1}, torch.tensor(X).chunk(2, 1)), ({"dim": -1, "chunk_sizes": [3, 1]},
                                                                        torch.tensor(X).split([3, 1], -1))]:
        parts = C.comm.scatter(host, [0, 1], **kwargs)
        assert [p.device.index for p in parts] == [0, 1]
        for got, want in zip(parts, expected):
            np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    streams = [C.Stream(0), C.Stream(1)]
    parts = C.comm.scatter(host, [0, 1], streams=streams)
    np.testing.assert_array_equal(parts[1].cpu().numpy(), X[3:])
    out = [tandem.empty(2, 4, device="cuda:1"), tandem.empty(4, 4, device="cuda:0")]
    assert all(a is b for a, b in zip(C.comm.scatter(host, out=out), out))
    np.testing.assert_array_equal(out[1].cpu().numpy(), X[2:])
    with pytest.raises(RuntimeError, match="same length"):
        C.comm.scatter(host, [0, 1], chunk_sizes=[6])
    with pytest.raises(RuntimeError, match="sum to 6"):
        C.comm.scatter(host, [0, 1], chunk_sizes=[1, 1])
    with pytest.raises(RuntimeError, match="sum to 6"):
        C.comm.scatter(host, out=[tandem.empty(1, 4, device="cuda:0")])


@needs_two
def test_gather_concatenates_on_the_destination():
    parts = [tandem.tensor(X[:2]).cuda(0), tandem.tensor(X[2:]).cuda(1)]
    for destination, device in [("cpu", "cpu"), (1, "cuda:1"), (None, f"cuda:{C.current_device()}"),
                                (tandem.device("cuda:0"), "cuda:0")]:
        got = C.comm.gather(parts, destination=destination)
        assert got.device == tandem.device(device)
        np.testing.assert_array_equal(got.cpu().numpy(), X)
    with pytest.warns(FutureWarning, match="Using -1 to represent CPU tensor is deprecated"):
        assert C.comm.gather(parts, destination=-1).device.type == "cpu"
    cols = [tandem.tensor(X[:, :1]).cuda(1), tandem.tensor(X[:, 1:]).cuda(0)]
    np.testing.assert_array_equal(C.comm.gather(cols, dim=-1, destination="cpu").numpy(), X)
    out = tandem.empty(6, 4)
    assert C.comm.gather(parts, out=out) is out
    np.testing.assert_array_equal(out.numpy(), X)
    with pytest.raises(RuntimeError, match="Input tensor at index 1 has invalid shape"):
        C.comm.gather([parts[0], tandem.zeros(2, 3, device="cuda:1")])
    with pytest.raises(RuntimeError, match="Expected all input tensors to be CUDA tensors, but tensor at index 1 "
                                           "has device cpu$"):
        C.comm.gather([parts[0], tandem.zeros(2, 4)])
    with pytest.raises(RuntimeError):
        C.comm.gather(parts, out=tandem.empty(5, 4))


@needs_two
def test_reduce_add_sums_on_the_destination():
    a, b = tandem.tensor(X).cuda(0), tandem.tensor(2 * X).cuda(1)
    for destination in (0, 1, "cuda:1"):
        got = C.comm.reduce_add([a, b], destination)
        assert got.device.index == tandem.device(destination if isinstance(destination, str) else
                                                 f"cuda:{destination}").index
        np.testing.assert_array_equal(got.cpu().numpy(), 3 * X)
    assert C.comm.reduce_add([a], 0) is a
    sums = C.comm.reduce_add_coalesced([[a, a[0]], [b, b[0]]], destination=1)
    assert isinstance(sums, tuple) and len(sums) == 2
    np.testing.assert_array_equal(sums[1].cpu().numpy(), 3 * X[0])
    with pytest.raises(ValueError, match=r"^input 1 has invalid size: got 4, but expected 6x4$"):
        C.comm.reduce_add([a, b[0]], 0)
    with pytest.raises(RuntimeError, match="same GPU with one of the tensors"):
        C.comm.reduce_add([a, a], 1)
    with pytest.raises(AssertionError, match="input 1 is on CPU"):
        C.comm.reduce_add([a, tandem.tensor(X)], 0)
    copies = C.comm.broadcast_coalesced([a, a + 1], [0, 1])
    assert copies[0][0] is a and [t.device.index for t in copies[1]] == [1, 1]
    np.testing.assert_array_equal(copies[1][1].cpu().numpy(), X + 1)


@needs_two
def test_comm_copies_are_counted_device_transfers():
    a = tandem.tensor(X).cuda(0)
    C.reset_transfer_stats()
    C.comm.broadcast(a, [0, 1])
    assert C.transfer_stats()["device_to_device_copies"] == 1


# ---- memory -------------------------------------------------------------------------------------------------------


@needs_cuda
def test_memory_fraction_is_validated_and_recorded(monkeypatch):
    monkeypatch.setattr(C._memory_more, "_fractions", {})
    monkeypatch.setattr(C._memory_more, "_warned_uncapped", [False])
    assert C.get_per_process_memory_fraction() == 1.0
    with pytest.raises(TypeError, match=r"^Invalid type for fraction argument, must be `float`$"):
        C.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match=r"^Invalid fraction value: 1.5. Allowed range: 0~1$"):
        C.set_per_process_memory_fraction(1.5)
    with pytest.raises(ValueError, match=r"^Invalid fraction value: -0.1. Allowed range: 0~1$"):
        C.set_per_process_memory_fraction(-0.1)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        C.set_per_process_memory_fraction(0.5, "cpu")
    last = C.device_count() - 1
    with pytest.warns(UserWarning, match="no per-process memory cap"):
        C.set_per_process_memory_fraction(0.25, last)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        C.set_per_process_memory_fraction(0.5, f"cuda:{last}")  # warned once already
    assert C.get_per_process_memory_fraction(last) == 0.5
    assert C.get_per_process_memory_fraction(tandem.device("cuda", last)) == 0.5


@needs_cuda
def test_reset_accumulated_memory_stats_restarts_the_running_totals():
    keep = tandem.ones(1000, device="cuda")
    del keep
    assert C.memory_stats()["allocation.all.allocated"] > 0
    peak = C.max_memory_allocated()
    C.reset_accumulated_memory_stats()
    stats = C.memory_stats()
    assert stats["allocation.all.allocated"] == stats["allocation.all.freed"] == stats["num_ooms"] == 0
    assert C.max_memory_allocated() == peak  # peaks are not accumulated totals
    x = tandem.ones(10, device="cuda")
    assert C.memory_stats()["allocation.all.allocated"] == 1
    assert tandem.accelerator.memory_stats()["allocation.all.allocated"] == 1  # one baseline for both
    del x


@needs_cuda
def test_caching_allocator_alloc_and_delete_hold_real_blocks():
    index = C.device_count() - 1
    before = C.memory_allocated(index)
    address = C.caching_allocator_alloc(1 << 20, index)
    assert isinstance(address, int) and address != 0
    assert C.memory_allocated(index) >= before + (1 << 20)
    C.caching_allocator_delete(address)
    assert C.memory_allocated(index) == before
    with pytest.raises(RuntimeError, match=r"^invalid device pointer: 0x7b$"):
        C.caching_allocator_delete(123)
    address = C.caching_allocator_alloc(64, stream=C.Stream(index))
    C.caching_allocator_delete(address)
    with pytest.raises(TypeError, match="Invalid type for stream argument"):
        C.caching_allocator_alloc(64, stream="x")
    with pytest.raises(RuntimeError, match="raw CUDA stream pointer"):
        C.caching_allocator_alloc(64, stream=0)
    assert C.caching_allocator_delete(0) is None


@needs_cuda
def test_what_the_allocator_cannot_do_says_so():
    C.caching_allocator_enable(True)
    with pytest.raises(NotImplementedError, match="cannot be disabled"):
        C.caching_allocator_enable(False)
    with pytest.raises(NotImplementedError), C.caching_allocator_disabled():
        pass
    for call in (C.memory_snapshot, C.host_memory_stats, C.host_memory_stats_as_nested_dict, C.MemPool):
        with pytest.raises(NotImplementedError, match="hint:"):
            call()
    with pytest.raises(NotImplementedError, match="MemPool|use_mem_pool"), C.use_mem_pool(None):
        pass
    assert C.reset_peak_host_memory_stats() is None and C.reset_accumulated_host_memory_stats() is None
    assert C.get_allocator_backend() == "native" and C.ipc_collect() is None


# ---- capability queries, graphs, runtime, NCCL, storages --------------------------------------------------------


@needs_two
def test_peer_access_between_devices():
    assert C.can_device_access_peer(0, 0) is False
    if C.get_device_properties(0).is_emulated:
        assert C.can_device_access_peer(0, 1) is True and C.can_device_access_peer("cuda:1", 0) is True
    with pytest.raises(AssertionError, match="^Invalid device id$"):
        C.can_device_access_peer(5, 0)
    with pytest.raises(AssertionError, match="^Invalid peer device id$"):
        C.can_device_access_peer(0, 9)
    with pytest.raises(ValueError, match="but got:None"):
        C.can_device_access_peer(0, None)


@needs_cuda
def test_capability_flags():
    major = C.get_device_capability()[0]
    assert C.is_tf32_supported() is (major >= 8)
    assert C.has_half is True and C.has_magma is False


@needs_cuda
def test_graph_capture_is_refused_with_a_hint():
    assert C.is_current_stream_capturing() is False and C.graphs.is_current_stream_capturing() is False
    first, second = C.graph_pool_handle(), C.graph_pool_handle()
    assert first[0] == second[0] == 0 and second[1] == first[1] + 1
    for call in (C.CUDAGraph, lambda: C.graph(None), lambda: C.make_graphed_callables(tandem.nn.Linear(2, 2),
                                                                                       (tandem.zeros(2, 2),))):
        with pytest.raises(NotImplementedError, match="no CUDA graph capture(.|\n)*hint: run the code directly"):
            call()


@emulated_only
def test_emulated_devices_have_no_blas_handle_and_a_quiet_profiler():
    with pytest.raises(RuntimeError, match="emulated devices have no cuBLAS handle"):
        C.current_blas_handle()
    runtime = C.cudart()
    assert runtime.cudaProfilerStart() == 0 and runtime.cudaProfilerStop() == 0
    assert runtime.cudaGetErrorString(1) == "invalid argument"
    C.profiler.start()
    C.profiler.stop()
    with C.profiler.profile():
        y = tandem.ones(3, device="cuda") + 1
    assert y.tolist() == [2.0] * 3


@needs_cuda
def test_nccl_queries(recwarn):
    assert C.nccl.is_available([]) is (tandem._C._dist_nccl_available())
    x = tandem.ones(4, device="cuda")
    assert C.nccl.is_available([tandem.ones(4)]) is False
    assert C.nccl.is_available([tandem.ones(4, 2, device="cuda").t()]) is False
    assert C.nccl.is_available([x, x]) is False
    if C.get_device_properties().is_emulated:
        assert C.nccl.is_available([x]) is False  # host memory NCCL cannot reach
    try:
        version = C.nccl.version()
    except RuntimeError as error:
        assert "hint:" in str(error)
    else:
        assert len(version) == 3 and all(isinstance(v, int) for v in version) and version >= (2, 0, 0)


@needs_cuda
def test_legacy_cuda_storages():
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = C.FloatStorage(3)
    assert type(s) is tandem.TypedStorage and s.dtype == tandem.float32 and s.size() == 3
    assert s.device == tandem.device("cuda", C.current_device())
    assert isinstance(s, C.FloatStorage) and not isinstance(s, C.DoubleStorage)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert not isinstance(tandem.FloatStorage(3), C.FloatStorage)
        assert isinstance(tandem.ones(2, dtype=tandem.float64, device="cuda").storage(), C.DoubleStorage)
        assert C.LongStorage([1, 2]).tolist() == [1, 2]
        with pytest.raises(RuntimeError, match="^from_buffer: Not available for CUDA storage$"):
            C.ByteStorage.from_buffer(b"ab")
    assert {n for n in dir(torch.cuda) if n.endswith("Storage")} <= set(dir(C))


@needs_cuda
def test_jiterator_functions_are_created_but_not_compiled():
    fn = C.jiterator._create_jit_fn("template <typename T> T twice(T x) { return 2 * x; }")
    with pytest.raises(NotImplementedError, match="cannot compile CUDA C"):
        fn(tandem.ones(2, device="cuda"))


# ---- NVML readings ------------------------------------------------------------------------------------------------


@pytest.mark.skipif(HAS_PYNVML, reason="checks the answers without nvidia-ml-py")
def test_nvml_readings_need_pynvml_as_in_pytorch():
    for name in ("utilization", "temperature", "power_draw", "clock_rate", "memory_usage", "device_memory_used"):
        with pytest.raises(ModuleNotFoundError) as ours:
            getattr(C, name)()
        with pytest.raises(ModuleNotFoundError) as theirs:
            getattr(torch.cuda, name)()
        assert str(ours.value) == str(theirs.value)
    assert C.list_gpu_processes() == torch.cuda.list_gpu_processes()


def _fake_pynvml(monkeypatch, count=3):
    """A stand-in for nvidia-ml-py: device i reports i+1 as each reading, so a test can see which NVML device
    a CUDA ordinal reached."""
    nvml = types.ModuleType("pynvml")

    class NVMLError_DriverNotLoaded(Exception):
        pass

    nvml.NVMLError_DriverNotLoaded = NVMLError_DriverNotLoaded
    nvml.nvmlInit = lambda: None
    nvml.nvmlDeviceGetCount = lambda: count
    nvml.nvmlDeviceGetHandleByIndex = lambda i: i
    nvml.nvmlDeviceGetUUID = lambda h: f"GPU-{h}aaa"
    nvml.nvmlDeviceGetUtilizationRates = lambda h: types.SimpleNamespace(gpu=10 * (h + 1), memory=h + 1)
    nvml.nvmlDeviceGetTemperature = lambda h, sensor: 40 + h
    nvml.nvmlDeviceGetPowerUsage = lambda h: 1000 * (h + 1)
    nvml.nvmlDeviceGetClockInfo = lambda h, kind: 1500 + h
    nvml.nvmlDeviceGetMemoryInfo = lambda h: types.SimpleNamespace(used=(h + 1) << 20)
    nvml.nvmlDeviceGetComputeRunningProcesses = lambda h: [types.SimpleNamespace(pid=4242, usedGpuMemory=3 << 20)]
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    return nvml


@emulated_only
def test_nvml_on_emulated_devices(monkeypatch):
    _fake_pynvml(monkeypatch)
    keep = tandem.ones(1 << 18, device="cuda:0")
    free, total = C.mem_get_info(0)
    assert C.device_memory_used(0) == total - free > 0
    for name in ("utilization", "temperature", "power_draw", "clock_rate", "memory_usage"):
        with pytest.raises(RuntimeError, match="emulated device: it has no sensor"):
            getattr(C, name)(0)
    report = C.list_gpu_processes(0).splitlines()
    reserved = C.memory_reserved(0) / (1 << 20)
    assert report == ["GPU:0", f"process {os.getpid():>10d} uses {reserved:>12.3f} MB GPU memory"]
    del keep


@needs_cuda
def test_nvml_on_a_real_device_follows_cuda_visible_devices(monkeypatch):
    _fake_pynvml(monkeypatch)
    monkeypatch.setattr(C._nvml, "_is_emulated", lambda index: False)  # the real-device path, with the fake NVML
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,0")
    nvml = sys.modules["pynvml"]
    assert C.utilization(0) == 30 and C.memory_usage(0) == 3
    assert C._nvml._nvml_handle(nvml, 1) == (0, 0)  # CUDA ordinal 1 is NVML device 0
    assert C.temperature(0) == 42 and C.power_draw(0) == 3000 and C.clock_rate(0) == 1502
    assert C.device_memory_used(0) == 3 << 20
    assert C.list_gpu_processes(0).splitlines() == ["GPU:2", f"process {4242:>10d} uses {3.0:>12.3f} MB GPU memory"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "GPU-1,7,0")  # CUDA stops at the first invalid entry
    assert C.utilization(0) == 20
    with pytest.raises(RuntimeError, match=r"device 1 is not visible \(CUDA_VISIBLE_DEVICES=\[1\]\)"):
        C._nvml._nvml_handle(nvml, 1)
