"""Entry points ordinary PyTorch programs reach for: the tandem.Tensor(...) legacy constructor, where(condition)
alone, scatter's older reduce= form, tandem.version and backends.mps."""
import operator
import warnings

import pytest
import torch

import tandem
from oracle import assert_same_error, to_torch


@pytest.mark.parametrize("make", [
    lambda lib: lib.Tensor(2, 3),
    lambda lib: lib.Tensor(),
    lambda lib: lib.Tensor(lib.Size([4])),
])
def test_tensor_constructor_of_sizes_matches_pytorch(make):
    want, got = make(torch), make(tandem)  # uninitialised memory in both libraries
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype == tandem.float32 and got.device == tandem.device("cpu") and type(got) is tandem.Tensor


@pytest.mark.parametrize("data", [[1, 2.5], [[1, 2], [3, 4]], (2, 1), [True, False], []])
def test_tensor_constructor_of_data_matches_pytorch(data):
    want, got = torch.Tensor(data), tandem.Tensor(data)
    assert got.dtype == tandem.float32 and type(got) is tandem.Tensor
    assert tuple(got.shape) == tuple(want.shape) and got.tolist() == want.tolist()


def test_tensor_constructor_follows_default_dtype():
    old = tandem.get_default_dtype()
    try:
        tandem.set_default_dtype(tandem.float64)
        assert tandem.Tensor([1]).dtype == tandem.float64
        assert tandem.Tensor(3).dtype == tandem.float64
    finally:
        tandem.set_default_dtype(old)


def test_tensor_constructor_aliases_a_tensor_of_its_dtype():
    src = tandem.ones(3)
    alias = tandem.Tensor(src)
    alias[0] = 5.0
    assert src.tolist() == [5.0, 1.0, 1.0]


def test_tensor_constructor_in_custom_layers_and_subclasses():
    weight = tandem.nn.Parameter(tandem.Tensor(4, 3))
    assert type(weight) is tandem.nn.Parameter and weight.shape == (4, 3) and weight.requires_grad

    class Tagged(tandem.Tensor):
        pass

    t = Tagged([1.0, 2.0])
    assert type(t) is Tagged and isinstance(t, tandem.Tensor) and t.tolist() == [1.0, 2.0]
    assert (t * 2).tolist() == [2.0, 4.0]


@pytest.mark.parametrize("case", [
    lambda lib: lib.Tensor(2, device="cuda"),
    lambda lib: lib.Tensor("abc"),
])
def test_tensor_constructor_errors(case):
    want = pytest.raises(Exception, case, torch)
    with pytest.raises(type(want.value)):
        case(tandem)


@pytest.mark.parametrize("cond", [[[1, 0], [0, 1]], [0, 0, 3], 1, 0, [[True, False, True]]])
def test_where_with_condition_only_is_nonzero_as_tuple(cond, device):
    want = torch.where(torch.tensor(cond))
    got = tandem.where(tandem.tensor(cond, device=device))
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == tandem.int64 and g.device == tandem.device(device)
        assert to_torch(g).tolist() == w.tolist()


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("src_kind", ["value", "tensor"])
@pytest.mark.parametrize("in_place", [True, False])
def test_scatter_reduce_argument(reduce, src_kind, in_place, device):
    base = torch.arange(1.0, 16.0).reshape(3, 5)
    index = torch.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
    src = 3.0 if src_kind == "value" else torch.arange(10.0).reshape(2, 5) + 1

    def call(lib, x, idx, s):
        return x.clone().scatter_(0, idx, s, reduce=reduce) if in_place else x.scatter(0, idx, s, reduce=reduce)

    with warnings.catch_warnings(record=True) as caught_torch:
        warnings.simplefilter("always")
        want = call(torch, base, index, src)
    t_src = src if src_kind == "value" else tandem.tensor(src.tolist(), device=device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = call(tandem, tandem.tensor(base.tolist(), device=device), tandem.tensor(index.tolist(), device=device),
                   t_src)
    assert got.device == tandem.device(device)
    assert to_torch(got).tolist() == want.tolist()
    # PyTorch's own warning (it warns once per process, so it is compared as text, not per call).
    expected = ["The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
                "PyTorch release. Use torch.scatter_reduce instead for more reduction options."]
    assert [str(w.message) for w in caught] == (expected if src_kind == "tensor" else [])
    assert all(str(w.message).startswith(expected[0]) for w in caught_torch)


def test_scatter_reduce_argument_errors():
    assert_same_error(lambda lib: lib.zeros(3).scatter_(0, lib.tensor([0]), 1.0, reduce="mean"))


def test_version_and_mps():
    assert tandem.version.__version__ == tandem.__version__
    assert isinstance(tandem.__version__, str) and isinstance(tandem.__version__, tandem.torch_version.TorchVersion)
    assert str(tandem.__version__) == f"{torch.__version__.split('+')[0]}+tandem.{tandem.version.tandem_version}"


@pytest.mark.parametrize("other", ["abc", "2.15", "2.15.0", "2.15.0rc1", "2.15.0.post1", "2.16", "2.9", "10.0",
                                   "2.15.0.dev20260101", "2.15.0+cu132", "2.15.0+tandem.0.1.0", (2, 15), (2, 16),
                                   (2, 9, 1), (3,)])
@pytest.mark.parametrize("mine", ["2.15.0+cu132", "2.15.0", "2.9.1"])
def test_torch_version_compares_as_pytorch(mine, other):
    ours = tandem.torch_version.TorchVersion(mine)
    theirs = type(torch.__version__)(mine)
    for compare in (operator.lt, operator.le, operator.gt, operator.ge, operator.eq):
        assert compare(ours, other) == compare(theirs, other), (mine, compare, other)
    # PyTorch's != is str's (so "2.15.0" == "2.15" and "2.15.0" != "2.15" are both True there); ours negates ==.
    assert (ours != other) == (not ours == other)


def test_torch_version_refuses_numbers_as_pytorch():
    with pytest.raises(TypeError, match="not supported between instances of 'TorchVersion' and 'int'"):
        tandem.__version__ < 3
    assert tandem.__version__ != 3 and tandem.__version__ >= "2.0" and tandem.__version__ >= (2, 0)


def test_version_fields_and_mps():
    assert tandem.version.hip is None
    assert tandem.version.cuda is None or tandem.version.cuda.count(".") == 1
    assert (tandem.version.cuda is not None) == tandem._C._cuda_is_built()
    assert tandem.backends.mps.is_available() is False and tandem.backends.mps.is_built() is False


def test_record_function_marks_regions_and_profile_records():
    assert tandem.autograd.profiler.record_function is tandem.profiler.record_function
    with tandem.profiler.record_function("forward") as region:
        assert region.name == "forward"

    @tandem.autograd.profiler.record_function("step")
    def step(x):
        return x + 1

    assert step(1) == 2
    assert [a.name for a in tandem.profiler.ProfilerActivity] == ["CPU", "XPU", "MTIA", "CUDA", "HPU", "PrivateUse1"]
    # behaviour: tests/python/test_profiler_ops.py
    one = tandem.ones(1)
    with tandem.profiler.profile(activities=[tandem.profiler.ProfilerActivity.CPU]) as prof:
        step(one)
    assert [e.name for e in prof.events()] == ["step", "aten::add"]
    for name in ("profile", "schedule", "tensorboard_trace_handler", "ProfilerAction", "supported_activities"):
        assert hasattr(tandem.profiler, name) and hasattr(torch.profiler, name)
    for name in ("profile", "record_function", "emit_nvtx", "EventList", "FunctionEvent"):
        assert hasattr(tandem.autograd.profiler, name) and hasattr(torch.autograd.profiler, name)


def test_anomaly_mode_switches_are_at_torchs_places():
    # behaviour: tests/python/test_anomaly_mode.py
    for name in ("is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled"):
        assert callable(getattr(tandem, name)) and callable(getattr(torch, name))
    for name in ("detect_anomaly", "set_detect_anomaly"):
        assert isinstance(getattr(tandem.autograd, name), type) and isinstance(getattr(torch.autograd, name), type)
    assert tandem.autograd.anomaly_mode.__all__ == torch.autograd.anomaly_mode.__all__
    assert tandem.is_anomaly_enabled() is False and tandem.is_anomaly_check_nan_enabled() is True


@pytest.mark.parametrize("case", [
    lambda lib: lib.ones(2, 3, 4, 5).contiguous(memory_format="channels_last"),
    lambda lib: lib.ones(2, 3, 4, 5).is_contiguous(memory_format=1),
    lambda lib: lib.ones(2, 3).contiguous(memory_format=lib.channels_last),
    lambda lib: lib.ones(2, 3, 4, 5).permute(0, 2, 3, 1).contiguous(memory_format=lib.preserve_format),
])
def test_memory_format_argument_errors(case):
    assert_same_error(case)


def test_contiguous_preserve_format_returns_a_contiguous_tensor_itself():
    x = tandem.ones(2, 3, 4, 5)
    assert x.contiguous(memory_format=tandem.preserve_format) is x


def test_scatter_reduce_must_be_a_string():
    with pytest.raises(TypeError, match=r"^scatter\(\): argument 'reduce' must be str, not int$"):
        tandem.zeros(3).scatter_(0, tandem.tensor([0]), 1.0, reduce=2)
