"""What the ninth sweep of real repositories run unchanged on tandem found (docs/compat.md, "Upstream
repositories", "Ninth sweep"): each test is our own smallest form of one failure, checked against PyTorch."""
import pytest
import torch

import tandem

LIBS = (tandem, torch)


def _on(lib, device):
    return device if lib is tandem else "cpu"


def _name(dtype):
    return None if dtype is None else str(dtype).split(".")[1]


# torchkbnufft's KbModule.to reads Module.to's arguments with torch._C._nn._parse_to (to cast its complex buffers
# to the complex dtype that goes with a real one); tandem._C had no _nn.
def _parse_to_calls(lib):
    parse = lib._C._nn._parse_to
    calls = [((), {}), (("cpu", lib.float64), {}), ((lib.ones(2, dtype=lib.float16),), {}), ((0,), {}),
             (("cuda:1",), {}), ((lib.float32, True), {}), ((lib.device("cpu"),), {"dtype": lib.complex64}),
             ((), {"dtype": lib.float16, "non_blocking": True, "memory_format": lib.channels_last}),
             ((), {"memory_format": lib.preserve_format})]
    out = []
    for args, kwargs in calls:
        device, dtype, non_blocking, memory_format = parse(*args, **kwargs)
        out.append((None if device is None else (type(device) is lib.device, str(device)), _name(dtype),
                    non_blocking, None if memory_format is None else _name(memory_format)))
    return out


def test_c_nn_parse_to():
    assert _parse_to_calls(tandem) == _parse_to_calls(torch)
    import importlib

    assert importlib.import_module("tandem._C._nn") is tandem._C._nn


@pytest.mark.parametrize("args, kwargs, error, message", [
    (("x",), {}, RuntimeError, "device type at start of device string: x"),
    (("cpu",), {"copy": True}, RuntimeError, r"^\.to\(\) does not accept copy argument$"),
    ((None, None, False, False, 1), {}, TypeError, r"^to\(\) takes from 0 to 4 positional arguments but 5 were given$"),
    ((None, None, False, False, 1, 2), {}, TypeError, r"got \(NoneType, NoneType, bool, bool, int, int\), but "),
    (("cpu",), {"foo": 1}, TypeError, r"got \(str, foo=int\), but expected one of:\n \* \(torch\.device device"),
    ((), {"memory_format": "x"}, TypeError, r"got \(memory_format=str, \), but expected one of"),
    ((), {"memory_format": 1}, TypeError, r"got \(memory_format=int, \), but expected one of")])
def test_c_nn_parse_to_refuses_as_pytorch(args, kwargs, error, message):
    for lib in LIBS:
        with pytest.raises(error, match=message):
            lib._C._nn._parse_to(*args, **kwargs)


# kymatio's 3-D scattering takes torch.view_as_real(torch.fft.fftn(z, dim=[-1, -2, -3])) and refuses it unless
# is_contiguous(): PyTorch transforms the dims in the order of the input's strides (largest first, _sort_dims), so a
# contiguous input gives a contiguous output whatever order dim lists them in. tandem passed dim's order to the C++
# transform, whose output is laid out after that order.
_LAYOUT_CALLS = [
    ("fftn", (-1, -2, -3)), ("ifftn", (-1, -2, -3)), ("fftn", (3, 1)), ("fftn", (2, 0, 1)), ("fft2", (-1, -2)),
    ("ifft2", (-1, -2)), ("rfftn", (-1, -2, -3)), ("rfftn", (2, 0, 1)), ("rfft2", (-1, -2)),
    ("irfftn", (-1, -2, -3)), ("irfftn", (2, 0, 1)), ("irfft2", (-2, -1)), ("ihfftn", (-1, -2, -3)),
    ("ihfft", 0), ("ihfft", 1), ("ihfft", 2), ("ihfft2", (-1, -2)), ("fft", 1), ("rfft", 0), ("hfft", 2)]


def _layouts(lib, device):
    gen = torch.Generator().manual_seed(0)
    z = torch.randn(2, 4, 6, 8, dtype=torch.complex128, generator=gen)
    x = lib.tensor(z.numpy(), device=_on(lib, device))
    out = []
    for fname, dims in _LAYOUT_CALLS:
        inp = x.real.contiguous() if fname.startswith(("rfft", "ihfft")) else x
        y = getattr(lib.fft, fname)(inp, dim=dims)
        out.append((fname, dims, tuple(y.shape), y.stride(), y.is_contiguous(), y.cpu()))
    return out


def test_fftn_output_layout_follows_input_strides(device):
    ours, theirs = _layouts(tandem, device), _layouts(torch, "cpu")
    for o, t in zip(ours, theirs):
        assert o[:5] == t[:5]
        assert torch.allclose(torch.from_numpy(o[5].numpy()), t[5], rtol=1e-12, atol=1e-12), o[:2]
    kymatio_form = tandem.view_as_real(tandem.fft.fftn(tandem.ones(1, 4, 4, 4, dtype=tandem.complex64,
                                                                    device=device), dim=[-1, -2, -3]))
    assert kymatio_form.is_contiguous() and kymatio_form[0, 0, 0, 0].tolist() == [64.0, 0.0]


def test_fftn_gradients_unchanged_by_the_dim_order(device):
    grads = []
    for lib in LIBS:
        x = lib.linspace(-1, 1, 2 * 3 * 4, dtype=lib.float64, device=_on(lib, device)).reshape(2, 3, 4)
        x.requires_grad_()
        y = lib.fft.rfftn(x, dim=(-1, -2))
        z = lib.fft.ihfftn(x, dim=(2, 0))
        (y.abs() ** 2).sum().backward(retain_graph=True)
        (z.real * lib.arange(z.numel(), dtype=lib.float64, device=z.device).reshape(z.shape)).sum().backward()
        grads.append(x.grad.cpu().flatten().tolist())
    assert grads[0] == pytest.approx(grads[1], rel=1e-12, abs=1e-12)


# Left for C++: with an input that is not row-major (x.permute(0, 3, 1, 2)), PyTorch's transform orders the batch
# dims by stride too (the leading, untransformed dims of its _exec_fft permutation); tandem's C++ keeps their
# natural order, so fft(x.permute(0, 3, 1, 2), dim=2) and friends come out with other strides (same values).
@pytest.mark.xfail(strict=True, reason="C++: the fft ops lay their batch dims out in dim order, not stride order")
def test_fft_of_a_permuted_input_lays_out_as_pytorch():
    strides = []
    for lib in LIBS:
        x = lib.ones(2, 4, 6, 8, dtype=lib.complex64).permute(0, 3, 1, 2)
        strides.append([lib.fft.fft(x, dim=2).stride(), lib.fft.fftn(x, dim=(0, 2)).stride()])
    assert strides[0] == strides[1]


# Left for C++: PyTorch's elementwise kernels keep a dense input's layout (TensorIterator); tandem's do for real
# dtypes, but its complex unary kernels (conj_physical, neg, exp, abs, ...) write row-major outputs.
@pytest.mark.xfail(strict=True, reason="C++: complex unary kernels write row-major outputs for permuted inputs")
def test_complex_unary_ops_keep_the_input_layout():
    strides = []
    for lib in LIBS:
        x = lib.ones(4, 6, dtype=lib.complex64).t()
        strides.append([x.conj_physical().stride(), (-x).stride(), x.exp().stride(), x.abs().stride()])
    assert strides[0] == strides[1] == [(1, 6)] * 4
