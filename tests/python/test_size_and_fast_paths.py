"""tandem.Size made and indexed in C (python/src/size.cpp), `contiguous()` returning the tensor itself, and tolist()
building its lists in place: the behaviour of each against PyTorch's (the speed is bench/run.py's "overhead" rows)."""
import copy
import pickle

import numpy as np
import pytest

import tandem

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda:0"] if tandem.cuda.is_available() else [])
SLICES = [slice(None), slice(1, None), slice(None, None, -1), slice(-2, None), slice(5, 1, -2), slice(10, 20),
          slice(None, None, 2), slice(-100, 100), slice(3, 0)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (2, 3, 4, 5), (1, 0, 3)])
def test_shape_and_size_are_sizes_of_ints(device, shape):
    t = tandem.zeros(shape, device=device)
    for s in (t.shape, t.size()):
        assert type(s) is tandem.Size
        assert s == shape and all(type(v) is int for v in s)
        assert repr(s) == repr(torch.zeros(shape).shape).replace("torch.", "tandem.")


@pytest.mark.parametrize("key", SLICES, ids=str)
def test_size_slice_is_a_size_as_in_pytorch(key):
    ours, theirs = tandem.zeros(2, 3, 4, 5).shape[key], torch.zeros(2, 3, 4, 5).shape[key]
    assert type(ours) is tandem.Size and type(theirs) is torch.Size
    assert tuple(ours) == tuple(theirs)


def test_size_index_and_errors_as_pytorch():
    ours, theirs = tandem.zeros(2, 3, 4).shape, torch.zeros(2, 3, 4).shape
    assert [ours[i] for i in range(-3, 3)] == [theirs[i] for i in range(-3, 3)]
    assert ours[np.int64(1)] == 3
    for key, error in [(3, IndexError), (-4, IndexError), ("a", TypeError), (1.0, TypeError)]:
        with pytest.raises(error) as want:
            theirs[key]
        with pytest.raises(error, match=str(want.value)):
            ours[key]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        ours[::0]


def test_size_stays_a_tuple_everywhere():
    s = tandem.zeros(2, 3).shape
    assert isinstance(s, tuple) and s == (2, 3) and hash(s) == hash((2, 3))
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is tandem.Size
    assert type(copy.deepcopy(s)) is tandem.Size
    assert type(s + (4,)) is tandem.Size and s + (4,) == (2, 3, 4)
    assert type((1,) + s) is tandem.Size  # as PyTorch's
    rows, cols = s
    assert (rows, cols) == (2, 3) and s.numel() == 6 and len(s) == 2
    assert tandem.Size([np.int64(2), True]) == (2, 1)
    with pytest.raises(TypeError, match=r"tandem.Size\(\) takes an iterable of 'int' \(item 0 is 'float'\)"):
        tandem.Size([2.0])


@pytest.mark.parametrize("device", DEVICES)
def test_contiguous_returns_the_tensor_itself_as_pytorch(device):
    t = tandem.zeros(3, 4, device=device)
    assert t.contiguous() is t
    assert t.contiguous(memory_format=tandem.contiguous_format) is t
    transposed = t.t()
    copied = transposed.contiguous()
    assert copied is not transposed and copied.is_contiguous() and copied.device == t.device
    assert copied.tolist() == transposed.tolist()


def test_contiguous_identity_matches_pytorch():
    for lib in (tandem, torch):
        x = lib.zeros(2, 3)
        assert x.contiguous() is x and x.contiguous(memory_format=lib.contiguous_format) is x
        assert x.t().contiguous() is not x


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 0, 3), (4, 4), (2, 3, 4), (1, 1, 1, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "uint8"])
def test_tolist_matches_numpy(device, shape, dtype):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(shape) * 5).astype(dtype) if dtype != "complex64" else \
        (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    t = tandem.tensor(a, device=device)
    assert t.tolist() == a.tolist()
    if len(shape) > 1:
        assert t.transpose(0, -1).tolist() == np.swapaxes(a, 0, -1).tolist()


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int8", "uint8",
                                   "bool", "complex64"])
def test_item_values_and_types_as_pytorch(device, dtype):
    value = {"bool": True, "complex64": 1.5 - 2j, "uint8": 200, "int8": -7}.get(dtype, -3.25 if "float" in dtype
                                                                                 else 2**30 + 3)
    ours = tandem.tensor([[value]], dtype=getattr(tandem, dtype), device=device).item()
    theirs = torch.tensor([[value]], dtype=getattr(torch, dtype)).item()
    assert type(ours) is type(theirs) and ours == theirs


def test_item_fast_path_keeps_errors_dispatch_and_views():
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        tandem.zeros(2).item()
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        tandem.zeros(1, device="meta").item()
    assert tandem.arange(10.0)[7].item() == 7.0 and tandem.arange(10.0)[3:4].item() == 3.0  # offset views
    assert tandem.tensor([2.5], requires_grad=True).item() == 2.5

    seen = []

    class Log(tandem.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(getattr(func, "__name__", None))
            return func(*args, **(kwargs or {}))

    with Log():
        assert tandem.tensor([1.5]).item() == 1.5
    assert "item" in seen

    class Sub(tandem.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            result = super().__torch_function__(func, types, args, kwargs)
            return result * 2 if getattr(func, "__name__", None) == "item" else result

    assert tandem.tensor([1.5]).as_subclass(Sub).item() == 3.0


@pytest.mark.parametrize("device", DEVICES + ["meta"])
def test_metadata_fast_paths_as_pytorch(device):
    for make in (lambda L, d: L.zeros(2, 3, 4, dtype=L.float16, device=d),
                 lambda L, d: L.zeros(2, 3, 4, device=d).transpose(0, 2), lambda L, d: L.zeros((), device=d),
                 lambda L, d: L.zeros(0, 5, dtype=L.int64, device=d)):
        ours, theirs = make(tandem, device), make(torch, "cpu")
        for name in ("dim", "ndimension", "numel", "nelement", "is_contiguous", "element_size"):
            got, want = getattr(ours, name)(), getattr(theirs, name)()
            assert type(got) is type(want) and got == want, name
        assert ours.is_contiguous(memory_format=tandem.contiguous_format) == theirs.is_contiguous(
            memory_format=torch.contiguous_format)


def test_device_objects_are_shared_and_stay_correct():
    cpu, meta = tandem.zeros(1), tandem.zeros(1, device="meta")
    assert cpu.device is tandem.zeros(3).device  # one object per device (immutable), no allocation per read
    assert cpu.device == tandem.device("cpu") and meta.device == tandem.device("meta")
    assert str(meta.device) == "meta" and cpu.device.index is None and cpu.device.type == "cpu"
    with pytest.raises(AttributeError):
        cpu.device.index = 3
    with meta.device:  # the context manager's state is per thread, not in the shared object
        with cpu.device:
            assert tandem.zeros(1).device == tandem.device("cpu")
        assert tandem.zeros(1).device == tandem.device("meta")
    assert tandem.zeros(1).device == tandem.device("cpu")
    if tandem.cuda.is_available():
        for index in range(tandem.cuda.device_count()):
            d = tandem.zeros(1, device=f"cuda:{index}").device
            assert d.type == "cuda" and d.index == index and str(d) == f"cuda:{index}"


class _Reflected:
    def __rmul__(self, other):
        return "rmul"

    def __radd__(self, other):
        return "radd"


SIZE_OPERATIONS = {
    "size*int": lambda L, s: s * 2, "int*size": lambda L, s: 2 * s, "size+tuple": lambda L, s: s + (4,),
    "tuple+size": lambda L, s: (4,) + s, "size+size": lambda L, s: s + L.Size([7]), "size*0": lambda L, s: s * 0,
    "size*-1": lambda L, s: s * -1, "size*bool": lambda L, s: s * True, "size*tensor": lambda L, s: s * L.tensor(2),
    "augmented": lambda L, s: (s + (5,)) * 2, "size+list": lambda L, s: s + [1], "list+size": lambda L, s: [1] + s,
    "size*float": lambda L, s: s * 2.0, "float*size": lambda L, s: 2.5 * s, "size*size": lambda L, s: s * s,
    "size+int": lambda L, s: s + 1, "size+None": lambda L, s: s + None, "size*huge": lambda L, s: s * 2**70,
    "reflected*": lambda L, s: s * _Reflected(), "reflected+": lambda L, s: s + _Reflected(),
}


@pytest.mark.parametrize("name", sorted(SIZE_OPERATIONS))
def test_size_arithmetic_as_pytorch(name):
    def outcome(lib):
        try:
            value = SIZE_OPERATIONS[name](lib, lib.zeros(2, 3).shape)
        except (TypeError, OverflowError) as e:
            return type(e).__name__, str(e).replace("torch.", "").replace("tandem.", "")
        return type(value).__name__, value if isinstance(value, str) else tuple(value)

    assert outcome(tandem) == outcome(torch)


def test_size_class_registration_refuses_other_layouts():
    class WithDict(tuple):
        pass

    for bad, message in [(5, "_set_size_class expects a class"), (list, "expects a tuple subclass"),
                         (WithDict, "expects a tuple subclass with __slots__ = \\(\\)")]:
        with pytest.raises(TypeError, match=message):
            tandem._C._set_size_class(bad)
    assert type(tandem.zeros(2).shape) is tandem.Size  # the registered class is unchanged


NUMBER_REFUSALS = {
    "str alpha": lambda L: L.ones(2).add(L.ones(2), alpha="a"),
    "list alpha": lambda L: L.ones(2).sub(L.ones(2), alpha=[2.0]),
    "1-d tensor beta": lambda L: L.ones(2, 2).addmm(L.ones(2, 2), L.ones(2, 2), beta=L.ones(1)),
    "str index_add alpha": lambda L: L.ones(2).index_add(0, L.tensor([0]), L.ones(1), alpha="x"),
}


@pytest.mark.parametrize("name", sorted(NUMBER_REFUSALS))
def test_number_argument_refusals_as_pytorch(name):
    def message(lib):
        with pytest.raises(TypeError) as e:
            NUMBER_REFUSALS[name](lib)
        return str(e.value).split("\nhint:")[0]

    assert message(tandem) == message(torch)


@pytest.mark.parametrize("make", [
    lambda L: L.zeros((2.0, 3)), lambda L: L.zeros((True, 3)), lambda L: L.zeros(("a",)),
    lambda L: L.zeros([L.tensor(2.0)]), lambda L: L.zeros([L.tensor([2, 3])]), lambda L: L.empty((2.5,)),
    lambda L: L.zeros((2, 3.0)), lambda L: L.zeros([L.tensor(2), 3]).shape,
], ids=["float_first", "bool_first", "str_first", "float_tensor_first", "two_element_tensor_first", "empty_float",
        "float_second", "int_tensor_first"])
def test_size_sequence_elements_as_pytorchs_parser(make):
    """A size sequence whose first element is not an int (nor a one-element integer tensor) is PyTorch's
    "(position 1) must be tuple of ints, but found element of type X at pos 0"; a later one its unpack error."""
    def outcome(L):
        try:
            return "ok", tuple(make(L))
        except TypeError as e:
            return "TypeError", str(e).split("\n")[0]
    assert outcome(tandem) == outcome(torch)
