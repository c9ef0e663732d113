"""tandem.fft against torch.fft on every device: values (with tolerances), dtypes, shapes, norm modes, n/s and
dim variants (negative dims, padding and trimming), non-contiguous inputs, odd/even/prime/1 sizes, out=, the
frequency and shift helpers, and PyTorch's errors."""
import threading
import warnings

import numpy as np
import pytest
import torch

import tandem
from oracle import assert_same_error, from_torch, raised

ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
TWO_DIM = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
N_DIM = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}
DTYPES = ["float32", "float64", "complex64", "complex128", "int64"]
NORMS = [None, "backward", "ortho", "forward"]


pytestmark = pytest.mark.usefixtures("needs_fft_library")


def sample(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == "int64":
        return torch.randint(-5, 6, shape, generator=g)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    if dtype.startswith("complex"):
        x = torch.complex(x, torch.randn(shape, generator=g, dtype=torch.float64))
    return x.to(getattr(torch, dtype))


def to_torch(t):
    return torch.from_numpy(np.array(t.cpu().numpy()))


def tol(dtype):
    single = dtype in (torch.float32, torch.complex64)
    return dict(rtol=2e-4, atol=2e-4) if single else dict(rtol=1e-9, atol=1e-9)


def check_same(got, want, device, computed_in=None):
    """Values (within the tolerance of the dtype they were computed in), dtype, shape and device."""
    want = want.resolve_conj()
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], (got.dtype, want.dtype)
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.device) == device, (got.device, device)
    torch.testing.assert_close(to_torch(got), want, equal_nan=True, **tol(computed_in or want.dtype))


def compare(device, case):
    """case(lib, x_of) returns lib's result (x_of(torch_tensor) converts an input for lib): the same values as
    PyTorch, or the same error (type and message before tandem's hint: line)."""
    want = raised(lambda: case(torch, lambda x: x))
    if want is not None:
        assert_same_error(lambda lib: case(lib, (lambda x: x) if lib is torch else (lambda x: from_torch(x, device))))
        return
    expected = case(torch, lambda x: x)
    got = case(tandem, lambda x: from_torch(x, device))
    check_same(got, expected, device)


# ---- values ---------------------------------------------------------------------------------------------


def one_dim_variants(shape):
    yield {}
    yield {"dim": 0}
    yield {"dim": -1, "n": shape[-1] + 3}  # padded
    if shape[-1] > 2:
        yield {"n": shape[-1] - 1}  # trimmed (odd/even flips)
    if len(shape) > 1:
        yield {"dim": -2, "n": 1}


def cases(names):
    """(name, dtype) pairs: the real-only functions' complex inputs are errors (test_real_only_functions_...)."""
    return [(n, d) for n in names for d in DTYPES if not (n in REAL_ONLY and d.startswith("complex"))]


@pytest.mark.parametrize("name,dtype", cases(ONE_DIM))
def test_one_dim_transforms(device, name, dtype):
    for shape in [(8,), (1,), (13,), (2, 5), (3, 4, 6)]:
        x = sample(shape, dtype, seed=len(shape))
        for kw in one_dim_variants(shape):
            for norm in NORMS:
                compare(device, lambda lib, of: getattr(lib.fft, name)(of(x), norm=norm, **kw))


def n_dim_variants(shape, two):
    yield {}
    yield {"dim": (0, -1)}
    yield {"dim": (-1, 0)}  # order matters for the r2c/c2r (halved) dim
    yield {"s": (3, 7)}
    yield {"s": (-1, 4), "dim": (-2, 0)}
    if not two:
        yield {"dim": (1,)}
        yield {"s": (2, 2, 5)} if len(shape) >= 3 else {"s": (5,)}
        yield {"dim": tuple(range(len(shape)))[::-1]}


@pytest.mark.parametrize("name,dtype", cases(TWO_DIM + N_DIM))
def test_n_dim_transforms(device, name, dtype):
    two = name.endswith("2")
    for shape in [(4, 6), (3, 5, 7), (2, 1, 9)]:
        x = sample(shape, dtype, seed=sum(shape))
        for kw in n_dim_variants(shape, two):
            for norm in NORMS:
                compare(device, lambda lib, of: getattr(lib.fft, name)(of(x), norm=norm, **kw))


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
def test_more_dims_than_one_cufft_plan(device, name):
    # Four and five transformed dims: cuFFT plans (and the emulated device, which keeps cuFFT's limit) take
    # three, so these run in several passes.
    for shape in [(2, 3, 4, 5), (3, 2, 2, 3, 4)]:
        x = sample(shape, "float64" if name in REAL_ONLY else "complex128", seed=len(shape))
        for norm in NORMS:
            compare(device, lambda lib, of: getattr(lib.fft, name)(of(x), norm=norm))
            compare(device, lambda lib, of: getattr(lib.fft, name)(of(x), dim=(2, 0, -1, 1), norm=norm))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "ihfft", "fft2", "rfftn", "irfftn", "hfftn"])
def test_non_contiguous_inputs(device, name):
    real = name in REAL_ONLY
    base = sample((6, 10, 8), "float32" if real else "complex64", seed=3)
    views = [
        lambda t: t.transpose(0, 2),  # permuted
        lambda t: t[:, ::3, 1::2],  # strided slices
        lambda t: t[1:, 1:],  # an offset (other alignment: FFTW plans per alignment)
        lambda t: t.select(1, 2).expand(3, 6, 8),  # broadcast (zero strides)
    ]
    for view in views:
        compare(device, lambda lib, of: getattr(lib.fft, name)(view(of(base))))


def test_large_batches_split_over_threads(device):
    x = sample((64, 4096), "float32", seed=5)
    compare(device, lambda lib, of: lib.fft.rfft(of(x)))
    compare(device, lambda lib, of: lib.fft.irfft(lib.fft.rfft(of(x)), n=4096))
    y = sample((300, 33), "complex128", seed=6)
    compare(device, lambda lib, of: lib.fft.ifft(of(y), norm="ortho"))


def test_round_trips(device):
    x = tandem.randn(4, 7, 6, device=device, dtype=tandem.float64)
    torch.testing.assert_close(to_torch(tandem.fft.irfftn(tandem.fft.rfftn(x), s=(4, 7, 6))), to_torch(x))
    torch.testing.assert_close(to_torch(tandem.fft.ifft2(tandem.fft.fft2(x)).real), to_torch(x))
    torch.testing.assert_close(to_torch(tandem.fft.hfft(tandem.fft.ihfft(x), n=6)), to_torch(x))


def test_empty_batches(device):
    for shape, kw in [((0, 4), {}), ((3, 0), {"dim": 0}), ((0, 5), {"n": 3})]:
        x = sample(shape, "float32")
        for name in ["fft", "rfft", "irfft", "hfft", "ihfft"]:
            compare(device, lambda lib, of: getattr(lib.fft, name)(of(x), **kw))
        compare(device, lambda lib, of: lib.fft.fftn(of(x), dim=(-1,) if "dim" not in kw else (0,)))


def test_zero_dim_fftn_with_no_dims(device):
    x = sample((), "float64")
    compare(device, lambda lib, of: lib.fft.fftn(of(x)))
    compare(device, lambda lib, of: lib.fft.ifftn(of(x), dim=()))


def test_results_are_fresh_tensors(device):
    # A size-1 transform must not alias its input (PyTorch returns a new tensor).
    x = tandem.ones(1, dtype=tandem.complex64, device=device)
    y = tandem.fft.fft(x)
    y.add_(1)
    assert x.cpu().numpy()[0] == 1


def test_concurrent_calls_from_threads():
    # FFTW's planner is not thread-safe: tandem plans under a mutex. Many shapes at once from several threads.
    errors = []

    def work(k):
        try:
            for n in range(5 + k, 40 + k, 3):
                x = sample((3, n), "float64", seed=n)
                got = to_torch(tandem.fft.rfft(from_torch(x)))
                torch.testing.assert_close(got, torch.fft.rfft(x))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# ---- out= -----------------------------------------------------------------------------------------------


def test_out_argument(device):
    x = sample((3, 8), "float32")
    tx = from_torch(x, device)
    out = tandem.empty(0, dtype=tandem.complex64, device=device)
    r = tandem.fft.rfft(tx, out=out)
    assert r is out
    check_same(out, torch.fft.rfft(x), device)
    # out keeps its (wider) dtype, as in PyTorch.
    out = tandem.empty(0, dtype=tandem.complex128, device=device)
    tandem.fft.fft2(tx, out=out)
    check_same(out, torch.fft.fft2(x, out=torch.empty(0, dtype=torch.complex128)), device, torch.float32)
    out = tandem.empty(0, dtype=tandem.float64, device=device)
    tandem.fft.irfft(tandem.fft.rfft(tx), out=out)
    check_same(out, torch.fft.irfft(torch.fft.rfft(x), out=torch.empty(0, dtype=torch.float64)), device,
               torch.float32)
    # An out with elements and another shape is resized, with PyTorch's warning.
    out = tandem.empty(2, dtype=tandem.complex64, device=device)
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        tandem.fft.fft(tx, out=out)
    check_same(out, torch.fft.fft(x), device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tandem.fft.fft(tx, out=out)  # right shape: no warning


def test_out_errors(device):
    x = sample((8,), "float32")
    cases = [
        lambda lib: lib.fft.fft(tensor(lib, x), out=lib.empty(8)),
        lambda lib: lib.fft.rfftn(tensor(lib, x), out=lib.empty(5, dtype=lib.int64)),
        lambda lib: lib.fft.irfft(tensor(lib, x), out=lib.empty(14, dtype=lib.complex64)),
        lambda lib: lib.fft.hfft(tensor(lib, x), out=lib.empty(14, dtype=lib.int64)),
    ]
    for case in cases:
        assert_same_error(case)


def tensor(lib, x):
    return x if lib is torch else from_torch(x)


# ---- errors ---------------------------------------------------------------------------------------------


def test_argument_errors():
    x = sample((8,), "float32")
    m = sample((4, 4), "float32")
    cases = [
        lambda lib: lib.fft.fft(tensor(lib, x), n=0),
        lambda lib: lib.fft.fft(tensor(lib, x), n=-1),
        lambda lib: lib.fft.rfft(tensor(lib, x), n=0),
        lambda lib: lib.fft.irfft(tensor(lib, x), n=0),
        lambda lib: lib.fft.irfft(tensor(lib, sample((1,), "float32"))),  # n = 2 * (1 - 1)
        lambda lib: lib.fft.hfft(tensor(lib, sample((0,), "float32"))),
        lambda lib: lib.fft.fft(tensor(lib, sample((0,), "float32"))),  # an empty transformed dim
        lambda lib: lib.fft.fftn(tensor(lib, sample((2, 0), "float32"))),
        lambda lib: lib.fft.fft(tensor(lib, x), dim=1),
        lambda lib: lib.fft.fft(tensor(lib, x), dim=-2),
        lambda lib: lib.fft.fft(tensor(lib, sample((), "float32"))),
        lambda lib: lib.fft.fft2(tensor(lib, sample((), "float32"))),
        lambda lib: lib.fft.fft2(tensor(lib, x)),
        lambda lib: lib.fft.fft(tensor(lib, x), norm="bad"),
        lambda lib: lib.fft.ifft(tensor(lib, x), norm="Ortho"),
        lambda lib: lib.fft.fft(tensor(lib, x), norm=3),
        lambda lib: lib.fft.fft(tensor(lib, x), n=5.0),
        lambda lib: lib.fft.fft(tensor(lib, x), n=True),
        lambda lib: lib.fft.fft(tensor(lib, x), dim=(0,)),
        lambda lib: lib.fft.fft([1.0, 2.0]),
        lambda lib: lib.fft.fftn(tensor(lib, m), s=(4,), dim=(0, 1)),
        lambda lib: lib.fft.fftn(tensor(lib, m), dim=(0, 0)),
        lambda lib: lib.fft.fftn(tensor(lib, m), dim=(-1, 1)),
        lambda lib: lib.fft.fftn(tensor(lib, m), s=(4, 4, 4)),
        lambda lib: lib.fft.fftn(tensor(lib, m), s=(4, 0)),
        lambda lib: lib.fft.fftn(tensor(lib, m), s=(4.0,)),
        lambda lib: lib.fft.fftn(tensor(lib, m), dim=(0, 2)),
        lambda lib: lib.fft.rfftn(tensor(lib, m), dim=()),
        lambda lib: lib.fft.irfftn(tensor(lib, m), s=()),
        lambda lib: lib.fft.hfftn(tensor(lib, m), dim=()),
        lambda lib: lib.fft.ihfftn(tensor(lib, m), dim=()),
        lambda lib: lib.fft.irfftn(tensor(lib, m), s=(4, 0)),
        lambda lib: lib.fft.irfft2(tensor(lib, sample((3, 1), "float32"))),
        lambda lib: lib.fft.rfftn(tensor(lib, sample((), "float32"))),
    ]
    for case in cases:
        assert_same_error(case)


@pytest.mark.parametrize("name", sorted(REAL_ONLY))
def test_real_only_functions_refuse_complex(name):
    x = sample((4, 4), "complex64")
    assert_same_error(lambda lib: getattr(lib.fft, name)(tensor(lib, x)))


@pytest.mark.parametrize("name", ONE_DIM + TWO_DIM + N_DIM)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_low_precision_is_refused_as_on_pytorch_cpu(name, dtype):
    x = sample((4, 4), "float32").to(getattr(torch, dtype))
    assert_same_error(lambda lib: getattr(lib.fft, name)(tensor(lib, x)))


def test_bool_input_is_promoted(device):
    x = torch.tensor([True, False, True, True])
    compare(device, lambda lib, of: lib.fft.fft(of(x)))
    compare(device, lambda lib, of: lib.fft.rfft(of(x)))


ALL = ONE_DIM + TWO_DIM + N_DIM


@pytest.mark.parametrize("name", ALL)
def test_gradients_match_torch(device, name):
    # d/dx of Re(sum(y * conj(w))) (or sum(y * w) for real results): PyTorch's conjugate-Wirtinger gradient.
    two = name[-1] in "2n"
    for dtype in ["float64"] + ([] if name in REAL_ONLY else ["complex128"]):
        for norm in [None, "ortho", "forward"]:
            for kw in [{}, {"s": (3, 7)} if two else {"n": 7}, {"dim": (1, 0)} if two else {"dim": 0}]:
                x = sample((4, 6), dtype, seed=1).requires_grad_()
                y = getattr(torch.fft, name)(x, norm=norm, **kw)
                w = sample(tuple(y.shape), str(y.dtype).split(".")[-1], seed=2)
                loss = (y * w.conj()).real.sum() if y.is_complex() else (y * w).sum()
                (want,) = torch.autograd.grad(loss, x)
                tx = from_torch(x.detach(), device).requires_grad_()
                ty = getattr(tandem.fft, name)(tx, norm=norm, **kw)
                tw = from_torch(w, device)
                tloss = (ty * tw.conj()).real.sum() if ty.is_complex() else (ty * tw).sum()
                (got,) = tandem.autograd.grad(tloss, tx)
                check_same(got, want, device)


@pytest.mark.parametrize("name", ["fftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
def test_gradcheck(device, name):
    # Finite differences in float64/complex128 (more than three dims: the split path on the emulated device).
    for shape in [(3, 5), (2, 3, 2, 3)]:
        dtypes = ["float64"] + ([] if name in REAL_ONLY else ["complex128"])
        for dtype in dtypes:
            x = from_torch(sample(shape, dtype, seed=4), device).requires_grad_()
            assert tandem.autograd.gradcheck(lambda t: getattr(tandem.fft, name)(t, norm="ortho"), (x,))


def test_grad_fn_names(device):
    x = tandem.ones(4, 4, dtype=tandem.complex128, device=device, requires_grad=True)
    r = tandem.ones(4, 4, dtype=tandem.float64, device=device, requires_grad=True)
    assert tandem.fft.fft2(x).grad_fn.name() == "FftC2CBackward0"
    assert tandem.fft.rfft(r).grad_fn.name() == "FftR2CBackward0"
    assert tandem.fft.irfft(x).grad_fn.name() == "FftC2RBackward0"
    with tandem.no_grad():
        assert not tandem.fft.rfft(r).requires_grad


# ---- helpers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies(device, name):
    for n in [0, 1, 2, 5, 8, 13] + ([-1, -2, -3] if name == "rfftfreq" else []):
        for d in [1.0, 0.5, 3, -2.0]:
            for dtype in [None, "float64", "float32"]:
                kw = {} if dtype is None else {"dtype": getattr(torch, dtype)}
                want = getattr(torch.fft, name)(n, d, **kw)
                kw = {} if dtype is None else {"dtype": getattr(tandem, dtype)}
                got = getattr(tandem.fft, name)(n, d, device=device, **kw)
                check_same(got, want, device)
    r = getattr(tandem.fft, name)(4, device=device, requires_grad=True)
    assert r.requires_grad and r.is_leaf
    out = tandem.empty(0, dtype=tandem.float64, device=device)
    assert getattr(tandem.fft, name)(6, 0.25, out=out) is out
    check_same(out, getattr(torch.fft, name)(6, 0.25, dtype=torch.float64), device)
    with np.errstate(all="ignore"):
        check_same(getattr(tandem.fft, name)(5, 0.0, device=device), getattr(torch.fft, name)(5, 0.0), device)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequency_errors(name):
    for case in [
        lambda lib: getattr(lib.fft, name)(4, dtype=lib.int64),
        lambda lib: getattr(lib.fft, name)(4, dtype=lib.int32),
        lambda lib: getattr(lib.fft, name)(4.0),
        lambda lib: getattr(lib.fft, name)(-1 if name == "fftfreq" else -4),
        lambda lib: getattr(lib.fft, name)(4, dtype=lib.complex64),
    ]:
        assert_same_error(case)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
def test_shifts(device, name):
    for shape in [(5,), (4, 7), (2, 3, 6)]:
        x = torch.arange(int(np.prod(shape))).reshape(shape)
        for dim in [None, 0, -1, (0, -1), [-1]]:
            compare(device, lambda lib, of: getattr(lib.fft, name)(of(x), dim=dim))
    assert_same_error(lambda lib: getattr(lib.fft, name)(tensor(lib, torch.arange(6).reshape(2, 3)), dim=5))


def test_fftshift_centres_fftfreq(device):
    f = tandem.fft.fftshift(tandem.fft.fftfreq(8, device=device))
    assert f.cpu().tolist() == sorted(f.cpu().tolist())
    assert tandem.fft.ifftshift(f).cpu().tolist() == tandem.fft.fftfreq(8).tolist()


def test_module_surface():
    for name in torch.fft.__all__ + ["hfft2", "ihfft2", "hfftn", "ihfftn"]:
        if name != "Tensor":
            assert hasattr(tandem.fft, name), name
    import tandem.fft as fft_module

    assert fft_module is tandem.fft


def test_array_api_fft_extension(device):
    x = sample((4, 6), "float64")
    t = from_torch(x, device)
    xp = t.__array_namespace__()
    check_same(xp.fft.fft(t, axis=0), torch.fft.fft(x, dim=0), device)
    check_same(xp.fft.irfftn(xp.fft.rfftn(t, axes=(0, 1)), s=(4, 6), axes=(0, 1)), x, device)
    check_same(xp.fft.hfft(t, n=5, norm="ortho"), torch.fft.hfft(x, n=5, norm="ortho"), device)
    check_same(xp.fft.fftshift(t, axes=(1,)), torch.fft.fftshift(x, dim=(1,)), device)
    check_same(xp.fft.fftfreq(5, d=0.5, device=device), torch.fft.fftfreq(5, 0.5), device)
    check_same(xp.fft.rfftfreq(6, dtype=tandem.float64, device=device), torch.fft.rfftfreq(6, dtype=torch.float64),
               device)


def test_built_without_fft_library(device):
    if tandem._C._fft_library(device):
        pytest.skip(f"this build has {tandem._C._fft_library(device)} for {device}")
    with pytest.raises(RuntimeError, match="tandem was built without (FFTW|an FFT library)"):
        tandem.fft.rfft(tandem.ones(8, device=device))
