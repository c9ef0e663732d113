"""Focused tests for what the fifth program sweep (test_programs_sweep5.py) found, each compared with PyTorch:
optimizers on complex parameters, the window functions' shape parameters, stft/istft with a win_length shorter
than n_fft and no window, mse_loss/l1_loss's weighted mean, and torch.sparse.spdiags."""
import warnings

import numpy as np
import pytest
import torch

import tandem


def _both(fn):
    """fn(lib) for PyTorch and tandem, as NumPy where it is a tensor."""
    out = []
    for lib in (torch, tandem):
        value = fn(lib)
        if hasattr(value, "detach"):
            value = value.detach().cpu()
            value = (value.float() if value.dtype == lib.bfloat16 else value).numpy()  # NumPy has no bfloat16
        out.append(value)
    return out


def _same_error(fn, kind):
    """fn raises `kind` in both libraries with one first line (tandem's own lines, hint: ..., may follow; objects
    print with their library's name)."""
    messages = []
    for lib in (torch, tandem):
        with pytest.raises(kind) as info:
            fn(lib)
        messages.append(str(info.value).split("\n")[0].replace("tandem.", "torch."))
    assert messages[1] == messages[0]
    return messages[0]


# ---- optimizers on complex parameters: updated as pairs of reals, as PyTorch ------------------------------------
_OPTIMIZERS = {
    "SGD": dict(lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True),
    "SGD-maximize": dict(lr=0.05, momentum=0.5, dampening=0.1, maximize=True),
    "Adam": dict(lr=0.1, weight_decay=0.1, amsgrad=True),
    "AdamW": dict(lr=0.1),
    "Rprop": dict(lr=0.1, etas=(0.4, 1.3)),
    "Rprop-maximize": dict(lr=0.05, maximize=True),
    "LBFGS": dict(lr=0.5, max_iter=4),
    "LBFGS-wolfe": dict(max_iter=5, line_search_fn="strong_wolfe"),
}


@pytest.mark.parametrize("name", list(_OPTIMIZERS))
def test_optimizers_update_complex_parameters_as_pytorch(name, device):
    # double precision: LBFGS near its optimum magnifies last-bit differences of the two libraries' sums
    rng = np.random.default_rng(5)
    start = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))
    real_part = rng.standard_normal(4)
    coefficients = rng.standard_normal((2, 3)) + 1j * rng.standard_normal((2, 3))

    def run(lib):
        dev = "cpu" if lib is torch else device
        z = lib.tensor(start, device=dev, requires_grad=True)
        w = lib.tensor(real_part, device=dev, requires_grad=True)  # a real parameter beside it
        c = lib.tensor(coefficients, device=dev)
        optimizer = getattr(lib.optim, name.split("-")[0])([z, w], **_OPTIMIZERS[name])

        def closure():
            optimizer.zero_grad()
            loss = (z * c - 1).abs().pow(2).sum() + (w - 0.5).pow(2).sum() + 0.1 * z.real.sum() * w[0]
            loss.backward()
            return loss

        losses = [optimizer.step(closure).item() for _ in range(3)]
        state = {k: str(v.dtype).split(".")[-1] for k, v in optimizer.state[z].items() if lib.is_tensor(v)}
        return losses, z.detach().cpu().numpy(), w.detach().cpu().numpy(), state

    (want_losses, want_z, want_w, want_state), (got_losses, got_z, got_w, got_state) = _both(run)
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-10)
    np.testing.assert_allclose(got_z, want_z, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-10, atol=1e-12)
    assert got_state == want_state  # complex state stays complex (LBFGS keeps its flat real vectors)


# ---- window functions: hamming's alpha/beta and kaiser's beta by position or name, PyTorch's overloads ------------
@pytest.mark.parametrize("call", [
    lambda lib: lib.kaiser_window(10, periodic=False, beta=8.0),
    lambda lib: lib.kaiser_window(9, True, beta=2),
    lambda lib: lib.kaiser_window(8, False, 3.0, dtype=lib.float64),
    lambda lib: lib.hamming_window(8, True, alpha=0.5),
    lambda lib: lib.hamming_window(8, True, 0.5, beta=0.3),
    lambda lib: lib.hamming_window(8, periodic=False, alpha=0.5, beta=0.3),
    lambda lib: lib.hamming_window(7, False, 1, 0),
    lambda lib: lib.hann_window(8, pin_memory=False),
    lambda lib: lib.hann_window(window_length=8, periodic=False),
    lambda lib: lib.hann_window(np.int64(6)),
    lambda lib: lib.blackman_window(7, True, dtype=lib.float16),
    lambda lib: lib.kaiser_window(7, True, 5, dtype=lib.bfloat16),  # compared as float32
    lambda lib: lib.hamming_window(1, False, 0.2, 0.1),
], ids=["kaiser-beta-kw", "kaiser-int-beta", "kaiser-positional", "hamming-alpha-kw", "hamming-beta-kw",
        "hamming-all-kw", "hamming-ints", "pin_memory", "window_length-kw", "numpy-int", "blackman-f16",
        "kaiser-bf16", "length-1"])
def test_window_shape_parameters_match_pytorch(call):
    want, got = _both(call)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6, atol=1e-7)


def test_window_shape_parameters_on_a_device(device):
    got = tandem.hamming_window(6, False, alpha=0.6, beta=0.4, device=device)
    assert got.device.type == tandem.device(device).type
    np.testing.assert_allclose(got.cpu().numpy(), torch.hamming_window(6, False, alpha=0.6, beta=0.4).numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib: lib.hamming_window(8, alpha=0.5),  # alpha needs periodic before it
    lambda lib: lib.hamming_window(8, True, beta=0.3),  # beta needs alpha before it
    lambda lib: lib.kaiser_window(8, beta=3.0),
    lambda lib: lib.kaiser_window(8, True, 3.0, 4.0),
    lambda lib: lib.hamming_window(8, True, 0.5, alpha=0.3),
    lambda lib: lib.hann_window(8, gamma=1),
    lambda lib: lib.hann_window(8, True, 0.5),
    lambda lib: lib.hann_window(8, periodic=None),
    lambda lib: lib.hann_window(8, 1),
    lambda lib: lib.kaiser_window(8, True, "a"),
    lambda lib: lib.hann_window(8.0),
], ids=["alpha-without-periodic", "beta-without-alpha", "kaiser-beta-without-periodic", "kaiser-extra",
        "alpha-twice", "unknown-keyword", "hann-extra", "periodic-None", "periodic-int", "beta-str",
        "float-length"])
def test_window_bad_arguments_raise_pytorchs_type_error(call):
    _same_error(call, TypeError)


def test_window_overload_message_lists_pytorchs_forms():
    message = _same_error(lambda lib: lib.hamming_window(8, alpha=0.5), TypeError)
    assert message.startswith("hamming_window() received an invalid combination of arguments - got (int, "
                              "alpha=float), but expected one of:")


# ---- stft/istft: a shorter win_length without a window is a rectangular window of win_length, centred ------------
@pytest.mark.parametrize("case", [
    dict(n_fft=16, win_length=8),
    dict(n_fft=16, win_length=9, hop_length=3, center=False),
    dict(n_fft=16, win_length=10, hop_length=2, onesided=False),
    dict(n_fft=16, win_length=8, normalized=True),
])
def test_stft_without_window_and_a_shorter_win_length(case, device):
    x = np.sin(np.arange(64) * 0.3).astype(np.float32)

    def spectrum(lib):
        dev = "cpu" if lib is torch else device
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.stft(lib.tensor(x, device=dev), return_complex=True, **case)

    want, got = _both(spectrum)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_istft_without_window_and_a_shorter_win_length_inverts_stft(dtype, device):
    x = np.sin(np.arange(64) * 0.3).astype(dtype)

    def round_trip(lib):
        dev = "cpu" if lib is torch else device
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec = lib.stft(lib.tensor(x, device=dev), 16, hop_length=2, win_length=10, return_complex=True)
            return lib.istft(spec, 16, hop_length=2, win_length=10, length=64,
                             onesided=not dtype.startswith("complex"), return_complex=dtype.startswith("complex"))

    want, got = _both(round_trip)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, x, rtol=1e-4, atol=1e-4)


def test_stft_and_istft_still_warn_without_a_window():
    spec = tandem.stft(tandem.ones(64), 16, return_complex=True, window=tandem.hann_window(16))
    with pytest.warns(UserWarning, match="A window was not provided"):
        tandem.stft(tandem.ones(64), 16, win_length=8, return_complex=True)
    with pytest.warns(UserWarning, match="A window was not provided"):
        tandem.istft(spec, 16, win_length=8)


def test_istft_overlap_error_has_pytorchs_first_line():
    def call(lib):
        window = lib.hann_window(16)
        spec = lib.stft(lib.arange(64.0).sin(), 16, hop_length=4, window=window, center=False, return_complex=True)
        lib.istft(spec, 16, hop_length=4, window=window, center=False)

    message = _same_error(call, RuntimeError)
    assert message.endswith(") window overlap add min: 1")


# ---- mse_loss / l1_loss with weight=: 'mean' is sum(weight * loss) / sum(weight) ----------------------------------
@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("int64", "int64")])
def test_weighted_regression_losses_match_pytorch(fn, reduction, dtypes, device):
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, size=(3, 4)).astype(dtypes[0])
    b = rng.integers(-3, 4, size=(3, 4)).astype(dtypes[0])
    w = rng.integers(0, 5, size=(3, 4)).astype(dtypes[1])

    def loss(lib):
        dev = "cpu" if lib is torch else device
        return getattr(lib.nn.functional, fn)(*(lib.tensor(v, device=dev) for v in (a, b)),
                                              weight=lib.tensor(w, device=dev), reduction=reduction)

    want, got = _both(loss)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("fn", ["mse_loss", "l1_loss"])
def test_weighted_regression_loss_gradient_matches_pytorch(fn, device):
    values = np.array([0.5, -1.0, 2.0], dtype=np.float32)

    def gradient(lib):
        dev = "cpu" if lib is torch else device
        x = lib.tensor(values, device=dev, requires_grad=True)
        getattr(lib.nn.functional, fn)(x, lib.zeros(3, device=dev), weight=lib.tensor([1.0, 3.0, 0.5],
                                                                                       device=dev)).backward()
        return x.grad

    want, got = _both(gradient)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_weighted_mean_of_zero_weights_is_nan_as_pytorch():
    want, got = _both(lambda lib: lib.nn.functional.l1_loss(lib.tensor([0.0, 3.0]), lib.tensor([1.0, 0.0]),
                                                            weight=lib.zeros(2)))
    assert np.isnan(got) and np.isnan(want)


@pytest.mark.parametrize("call, kind", [
    (lambda lib: lib.nn.functional.mse_loss(lib.ones(3), lib.zeros(3), weight=lib.ones(2)), ValueError),
    (lambda lib: lib.nn.functional.l1_loss(lib.ones(2, 1), lib.zeros(2, 3), weight=lib.ones(2, 3)), ValueError),
    (lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.zeros(2), weight=lib.ones(2), reduction="avg"),
     ValueError),
    (lambda lib: lib.nn.functional.l1_loss(lib.ones(2), lib.zeros(2), weight=[1.0, 2.0]), AttributeError),
], ids=["size", "input-size-not-broadcast", "reduction", "list-weight"])
def test_weighted_regression_loss_errors_match_pytorch(call, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcast size warning
        _same_error(call, kind)


# ---- torch.sparse.spdiags -------------------------------------------------------------------------------------------
_SPDIAGS_CASES = {
    "lower": (np.arange(9.0).reshape(3, 3), [0, -1, -2], (3, 3)),
    "upper-wide": (np.arange(6.0).reshape(2, 3), [2, -1], (2, 5)),
    "partial-large": (np.array([[1.0, 2.0], [3.0, 4.0]]), [0, -1], (5, 5)),
    "vector": (np.arange(4.0), [0], (3, 3)),
    "edges": (np.ones((2, 3)), [3, -3], (3, 3)),
    "int-tall": (np.arange(9).reshape(3, 3), [0, 1, 2], (4, 3)),
    "bool": (np.ones((2, 3), dtype=bool), [0, 1], (3, 3)),
}


@pytest.mark.parametrize("layout", ["sparse_coo", "sparse_csr"])
@pytest.mark.parametrize("case", list(_SPDIAGS_CASES))
def test_spdiags_matches_pytorch(case, layout, device):
    diagonals, offsets, shape = _SPDIAGS_CASES[case]

    def build(lib):
        dev = "cpu" if lib is torch else device
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # CSR's beta warning
            out = lib.sparse.spdiags(lib.tensor(diagonals, device=dev), lib.tensor(offsets, device=dev), shape,
                                     layout=getattr(lib, layout))
        assert out.layout == getattr(lib, layout)
        if layout == "sparse_coo":
            return out.is_coalesced(), out._indices().cpu().numpy(), out._values().cpu().numpy(), out.to_dense()
        return out.crow_indices().cpu().numpy(), out.col_indices().cpu().numpy(), out.values().cpu().numpy(), \
            out.to_dense()

    want, got = [build(lib) for lib in (torch, tandem)]
    for w, g in zip(want[:-1], got[:-1]):
        np.testing.assert_array_equal(g, w)
    assert got[-1].dtype == tandem.from_numpy(want[-1].numpy()).dtype
    np.testing.assert_array_equal(got[-1].cpu().numpy(), want[-1].numpy())


def test_spdiags_scalar_offset_and_keywords():
    want, got = _both(lambda lib: lib.sparse.spdiags(diagonals=lib.arange(4.0), offsets=lib.tensor(1),
                                                     shape=(3, 3), layout=None).to_dense())
    np.testing.assert_array_equal(got, want)


def test_spdiags_passes_gradients_to_the_diagonals(device):
    # PyTorch has no derivative for spdiags (backward raises); tandem's is the gather's.
    diagonals = tandem.ones(2, 3, device=device, requires_grad=True)
    out = tandem.sparse.spdiags(diagonals, tandem.tensor([0, 1]), (3, 3))
    (out.to_dense() * tandem.arange(9.0, device=device).reshape(3, 3)).sum().backward()
    np.testing.assert_array_equal(diagonals.grad.cpu().numpy(), [[0.0, 4.0, 8.0], [0.0, 1.0, 5.0]])


@pytest.mark.parametrize("args, kind", [
    ((np.arange(9.0).reshape(3, 3), [0, 0, 1], (3, 3)), RuntimeError),
    ((np.ones((2, 3, 1)), [[0, 1]], (3, 3, 3)), RuntimeError),
    ((np.ones((2, 3)), [[0, 1]], (3, 3, 3)), RuntimeError),
    ((np.ones((3, 3)), [[0, 1]], (3, 3)), RuntimeError),
    ((np.ones((3, 3)), [0.0, 1.0], (3, 3)), RuntimeError),
    ((np.ones((2, 3)), [0.0, 1.0], (3, 3)), RuntimeError),
    ((np.ones((2, 3)), np.array([0, 1], dtype=np.int32), (3, 3)), RuntimeError),
    ((np.ones((2, 3)), np.array([0, 0], dtype=np.int32), (3, 3)), RuntimeError),
    ((np.ones((2, 3)), [0, 1], (3.0, 3)), TypeError),
    ((np.ones((2, 3)), [0, 1], 3), TypeError),
], ids=["duplicates", "diagonals-3d", "shape-3d", "offsets-2d", "count", "float-offsets", "int32-offsets",
        "dtype-before-duplicates", "float-shape", "int-shape"])
def test_spdiags_errors_match_pytorch(args, kind):
    diagonals, offsets, shape = args
    _same_error(lambda lib: lib.sparse.spdiags(lib.tensor(diagonals), lib.tensor(offsets), shape), kind)


@pytest.mark.parametrize("call, kind", [
    (lambda lib: lib.sparse.spdiags(lib.ones(2, 3), lib.tensor([0, 0]), (3, 3), layout=lib.strided), RuntimeError),
    (lambda lib: lib.sparse.spdiags(lib.ones(2, 3), [0, 1], (3, 3)), TypeError),
    (lambda lib: lib.sparse.spdiags([[1.0]], lib.tensor([0]), (3, 3)), TypeError),
    (lambda lib: lib.sparse.spdiags(lib.ones(1, 3), lib.tensor([0]), (3, 3), "coo"), TypeError),
], ids=["strided", "list-offsets", "list-diagonals", "str-layout"])
def test_spdiags_argument_errors_match_pytorch(call, kind):
    _same_error(call, kind)


@pytest.mark.parametrize("offset", [4, -4])
def test_spdiags_refuses_an_offset_outside_the_output(offset):
    # PyTorch reads outside the diagonal's row here (a stray entry, or a negative-size error): tandem refuses.
    with pytest.raises(RuntimeError, match=r"offset .* lies outside the output of shape \(3, 3\)"):
        tandem.sparse.spdiags(tandem.ones(1, 3), tandem.tensor([offset]), (3, 3))
