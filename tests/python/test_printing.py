"""repr(tensor) against PyTorch's repr on many tensors and print options."""
import itertools
import math

import pytest
import torch

import tandem
from tandem import _tensor_str

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


def to_tandem(t, requires_grad=False):
    """A tandem copy of a torch tensor, built from its values (float64 data stays exact)."""
    dtype = getattr(tandem, str(t.dtype).split(".")[1])
    previous = tandem.get_default_dtype()
    tandem.set_default_dtype(tandem.float64)
    try:
        flat = tandem.tensor(t.flatten().tolist(), dtype=dtype)
    finally:
        tandem.set_default_dtype(previous)
    out = flat.reshape(tuple(t.shape))
    if requires_grad:
        out.requires_grad = True
    return out


def expected_repr(t):
    return repr(t).replace("torch.", "tandem.")


def assert_same_repr(t, requires_grad=False):
    tt = to_tandem(t, requires_grad)
    if requires_grad:
        t = t.detach().requires_grad_(True)
    assert repr(tt) == expected_repr(t)
    assert str(tt) == str(t).replace("torch.", "tandem.")


@pytest.fixture(autouse=True)
def default_options():
    """Every test starts and ends with PyTorch's defaults on both sides."""
    torch.set_printoptions(profile="default")
    tandem.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    tandem.set_default_dtype(tandem.float32)
    yield
    torch.set_printoptions(profile="default")
    tandem.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    tandem.set_default_dtype(tandem.float32)


SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (2, 2, 3, 2), (30,), (7, 19), (1, 1), (4, 1, 3)]
SCALES = [1e-9, 1e-5, 1e-3, 0.1, 1.0, 10.0, 1234.5, 1e5, 1e9, 1e20]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES)
def test_random_floats_across_magnitudes(dtype, shape):
    g = torch.Generator().manual_seed(hash((dtype, shape)) % 1000)
    for scale in SCALES:
        t = (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(getattr(torch, dtype))
        assert_same_repr(t)


@pytest.mark.parametrize("dtype", FLOATS)
def test_mixed_magnitudes_and_whole_numbers(dtype):
    torch_dtype = getattr(torch, dtype)
    cases = [
        [1.0, 2.0, 3.0], [1.0, 2000.0], [1.0, 1001.0], [1.0, 999.0], [1e8, 1.0], [1.5e8], [123456789.0],
        [0.5, 1e-4], [0.5, 0.99e-4], [1e-4], [0.1, 100.0], [0.1, 1000.0], [0.1, 100.1], [-1.0, 0.5, 300.25],
        [-123.0, 4.0], [1e-10, 1.0], [3.0, -0.0], [0.0, 0.0], [-0.0], [0.0], [1e30, -1e-30], [65504.0, 1.0],
        [2.5, -7.25, 1e3], [1 / 3, 2 / 3], [100.0, 0.001], [99999.0, 1.0], [1e4, 0.5],
    ]
    for values in cases:
        assert_same_repr(torch.tensor(values, dtype=torch.float64).to(torch_dtype))
        assert_same_repr(torch.tensor(values[0], dtype=torch.float64).to(torch_dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nonfinite_and_signed_zero(dtype):
    nan, inf = math.nan, math.inf
    cases = [[nan], [inf], [-inf], [nan, inf, -inf], [nan, 1.0], [inf, 2.5], [nan, 0.0], [-0.0, 0.0, nan],
             [1e-7, nan, -inf], [1e10, inf], [0.0, -0.0, 3.0], [-0.0, 1.5], [[nan, 1.0], [2.0, -inf]]]
    for values in cases:
        assert_same_repr(torch.tensor(values, dtype=getattr(torch, dtype)))
    for v in (nan, inf, -inf, -0.0):
        assert_same_repr(torch.tensor(v, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", INTS + ["bool"])
@pytest.mark.parametrize("shape", SHAPES)
def test_integers_and_bools(dtype, shape):
    g = torch.Generator().manual_seed(7)
    info_low = {"uint8": 0, "bool": 0}.get(dtype, -100000)
    high = {"bool": 2, "uint8": 256, "int8": 128, "int16": 30000}.get(dtype, 100000)
    low = max(info_low, -high)
    t = torch.randint(low, high, shape, generator=g).to(getattr(torch, dtype))
    assert_same_repr(t)


def test_extreme_integers():
    assert_same_repr(torch.tensor([-2**63, 2**63 - 1, 0]))
    assert_same_repr(torch.tensor([-128, 127], dtype=torch.int8))
    assert_same_repr(torch.tensor([[True, False], [False, False]]))


BIG_SHAPES = [(1001,), (2000,), (6,), (40, 40), (3, 500), (500, 3), (10, 10, 11), (2, 3, 4, 50), (1, 1, 1001),
              (7, 200), (1000,), (1000, 1), (6, 6, 6, 6), (2, 1001)]


@pytest.mark.parametrize("shape", BIG_SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "int64", "float64", "bool"])
def test_summarised_tensors(shape, dtype):
    g = torch.Generator().manual_seed(3)
    if dtype == "bool":
        t = torch.randint(0, 2, shape, generator=g).bool()
    elif dtype == "int64":
        t = torch.randint(-50, 1000, shape, generator=g)
    else:
        t = torch.randn(shape, generator=g).to(getattr(torch, dtype))
    assert_same_repr(t)


def test_summary_reads_only_the_edges(monkeypatch):
    t = tandem.zeros(3000, 3000)
    called = []
    original = tandem.Tensor.tolist

    def counting_tolist(self):
        called.append(self.numel())
        return original(self)

    monkeypatch.setattr(tandem.Tensor, "tolist", counting_tolist)
    text = repr(t)
    assert "..." in text
    assert sum(called) <= 6 * 6


@pytest.mark.parametrize("options", [
    dict(precision=2), dict(precision=0), dict(precision=8), dict(threshold=5), dict(threshold=5, edgeitems=1),
    dict(edgeitems=1), dict(edgeitems=5), dict(linewidth=40), dict(linewidth=120), dict(linewidth=10),
    dict(sci_mode=True), dict(sci_mode=False), dict(sci_mode=True, precision=2), dict(profile="short"),
    dict(profile="full"), dict(profile="short", precision=6), dict(threshold=10, linewidth=30, edgeitems=2),
    dict(edgeitems=0), dict(edgeitems=0, threshold=0), dict(threshold=0), dict(precision=0, sci_mode=True),
    dict(threshold=50, edgeitems=4, linewidth=60, precision=3, sci_mode=False),
])
def test_print_options(options):
    torch.set_printoptions(**options)
    tandem.set_printoptions(**options)
    assert tandem.get_printoptions() == torch._tensor_str.get_printoptions()
    g = torch.Generator().manual_seed(11)
    tensors = [
        torch.randn(30, generator=g), torch.randn(4, 5, generator=g) * 1e-6, torch.randn(3, 4, generator=g) * 1e6,
        torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 1e9]), torch.arange(24).reshape(2, 3, 4),
        torch.randn(12, 12, generator=g).double(), torch.tensor(0.1234567), torch.randint(0, 10, (100,)),
        torch.tensor([math.nan, 1.25, math.inf]), torch.randn(3, 40, generator=g), torch.zeros(2, 0),
        torch.randn(2000, generator=g), torch.randn(2, 3, 200, generator=g), torch.tensor([0.0, math.nan]),
        torch.tensor([True, False] * 600), torch.arange(1200, dtype=torch.int16).reshape(40, 30),
    ]
    for t in tensors:
        assert_same_repr(t)


def test_set_printoptions_resets_sci_mode_like_torch():
    tandem.set_printoptions(sci_mode=True)
    tandem.set_printoptions(precision=3)
    assert tandem.get_printoptions()["sci_mode"] is None
    tandem.set_printoptions(profile="unknown-profile")
    assert tandem.get_printoptions()["precision"] == 3


def test_printoptions_context_manager():
    with tandem.printoptions(precision=1):
        assert repr(tandem.tensor([1.25, 2.5])) == "tensor([1.2, 2.5])"
    assert repr(tandem.tensor([1.25, 2.5])) == "tensor([1.2500, 2.5000])"


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0, 3), (3, 0), (0, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "float16"])
def test_empty_tensors(shape, dtype):
    assert_same_repr(torch.zeros(shape, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_requires_grad_suffix(dtype):
    g = torch.Generator().manual_seed(1)
    for t in (torch.tensor([1.0, 2.0]), torch.tensor(3.5), torch.randn(3, 30, generator=g), torch.randn(2000, generator=g),
              torch.zeros(0, 2)):
        assert_same_repr(t.to(getattr(torch, dtype)), requires_grad=True)


def test_suffixes_wrap_at_linewidth():
    # A long last line pushes dtype (and requires_grad) onto their own lines.
    for n in range(5, 12):
        assert_same_repr(torch.arange(n, dtype=torch.int32) * 1000)
        assert_same_repr(torch.linspace(0, 1, n, dtype=torch.float64))
        assert_same_repr(torch.linspace(0, 1, n, dtype=torch.float64), requires_grad=True)


def test_default_dtype_controls_the_suffix():
    torch.set_default_dtype(torch.float64)
    tandem.set_default_dtype(tandem.float64)
    assert_same_repr(torch.tensor([1.5, 2.0], dtype=torch.float32))
    assert_same_repr(torch.tensor([1.5, 2.0], dtype=torch.float64))
    assert_same_repr(torch.zeros(0, dtype=torch.float32))


def test_strided_views_print_in_logical_order():
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    tb = to_tandem(base)
    assert repr(tb.T) == expected_repr(base.T)
    assert repr(tb.narrow(1, 1, 3)) == expected_repr(base.narrow(1, 1, 3))
    assert repr(tb.select(1, 2)) == expected_repr(base.select(1, 2))
    assert repr(tb.unsqueeze(0).expand(2, 4, 6)) == expected_repr(base.unsqueeze(0).expand(2, 4, 6))
    big = torch.arange(3000, dtype=torch.float32).reshape(60, 50)
    assert repr(to_tandem(big).T) == expected_repr(big.T)


def test_exact_strings():
    assert repr(tandem.tensor([4.0, 5.0, 6.0])) == "tensor([4., 5., 6.])"
    assert repr(tandem.tensor([1, 2], dtype=tandem.int32)) == "tensor([1, 2], dtype=tandem.int32)"
    assert repr(tandem.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(tandem.tensor(2.5)) == "tensor(2.5000)"
    assert repr(tandem.tensor([True, False])) == "tensor([ True, False])"


class _FakeDevice:
    type = "cuda"

    def __str__(self):
        return "cuda:0"


class _OnCuda:
    """A CPU tensor that reports a CUDA device, to check the device suffix without a GPU."""

    def __init__(self, t):
        self._t = t
        self.device = _FakeDevice()

    def __getattr__(self, name):
        return getattr(self._t, name)


def test_device_suffix():
    assert _tensor_str.tensor_repr(_OnCuda(tandem.tensor([1.0, 2.0]))) == "tensor([1., 2.], device='cuda:0')"
    assert (_tensor_str.tensor_repr(_OnCuda(tandem.tensor([1, 2], dtype=tandem.int32)))
            == "tensor([1, 2], device='cuda:0', dtype=tandem.int32)")
    assert _tensor_str.tensor_repr(_OnCuda(tandem.zeros(0, 2))) == "tensor([], device='cuda:0', size=(0, 2))"


def test_many_random_shapes_and_dtypes():
    g = torch.Generator().manual_seed(2024)
    for ndim, dtype in itertools.product(range(5), FLOATS + INTS):
        for _ in range(3):
            shape = tuple(int(s) for s in torch.randint(1, 6, (ndim,), generator=g))
            if dtype in FLOATS:
                exponent = float(torch.randint(-12, 12, (1,), generator=g))
                t = (torch.randn(shape, generator=g, dtype=torch.float64) * 10.0 ** exponent)
                t = t.to(getattr(torch, dtype))
            else:
                t = torch.randint(0, 120, shape, generator=g).to(getattr(torch, dtype))
            assert_same_repr(t)


@pytest.mark.parametrize(
    "make, spec",
    [
        (lambda lib: lib.tensor(2.5), ".3f"),
        (lambda lib: lib.tensor(3), "d"),
        (lambda lib: lib.tensor(3), ">5"),
        (lambda lib: lib.tensor(1.5), ""),
        (lambda lib: lib.tensor(True), ""),
        (lambda lib: lib.tensor(1.5, requires_grad=True), ".2e"),
        (lambda lib: lib.tensor([1.0, 2.0]), ""),
    ],
)
def test_format_matches_pytorch(make, spec):
    assert format(make(tandem), spec) == format(make(torch), spec)


def test_format_spec_on_a_non_scalar_tensor_is_refused_as_in_pytorch():
    with pytest.raises(TypeError, match="^unsupported format string passed to Tensor.__format__$"):
        f"{tandem.tensor([1.0, 2.0]):.2f}"


def test_tensor_str_and_print_opts_under_pytorchs_names():
    # PyTorch Geometric's write_off reads PRINT_OPTS.threshold and calls _tensor_str for the values as text.
    import torch._tensor_str as theirs
    values = [[1.5, -2.0, 3.25], [4.0, 5.0, 6.0]]
    assert _tensor_str._tensor_str(tandem.tensor(values), indent=0) == theirs._tensor_str(torch.tensor(values), indent=0)
    assert _tensor_str._tensor_str(tandem.tensor([[1, 2]]), 3) == theirs._tensor_str(torch.tensor([[1, 2]]), 3)
    assert _tensor_str.PRINT_OPTS.threshold == theirs.PRINT_OPTS.threshold == 1000
    with tandem.printoptions(threshold=5):
        assert _tensor_str.PRINT_OPTS.threshold == 5  # the live options, not a copy
    assert _tensor_str.PRINT_OPTS.threshold == 1000
