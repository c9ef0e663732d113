"""Normalisation, padding, dropout, pixel-shuffle and gating layers and the extra nn.init functions against
PyTorch: values and gradients in float64 and values in float32 on every device, module reprs and state_dict
keys, errors (type and message), and for the random layers their statistics and structure."""
import math
import warnings

import pytest
import torch

import tandem

import oracle
from tandem.nn import init
from tandem.nn.modules import activation


def F(lib):
    return lib.nn.functional


def nn(lib):
    return lib.nn


def act(lib):
    """Where PReLU, GLU, Softmin and Softmax2d live (tandem.nn.modules does not list them yet)."""
    return torch.nn if lib is torch else activation


def to_tandem(x, device):
    t = tandem.tensor(x.tolist(), dtype=getattr(tandem, str(x.dtype).split(".")[-1]))
    return (t.reshape(*x.shape) if x.dim() else t).to(device)


def close(got, want, rtol, atol):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    torch.testing.assert_close(torch.tensor(got.cpu().tolist(), dtype=want.dtype).reshape(want.shape), want,
                               rtol=rtol, atol=atol)


# (id, fn(lib, *inputs), input shapes): fn runs on torch or tandem with float inputs of those shapes.
CASES = [
    ("group_norm", lambda lib, x, w, b: F(lib).group_norm(x, 2, w, b), [(2, 4, 3, 5), (4,), (4,)]),
    ("group_norm_plain", lambda lib, x: F(lib).group_norm(x, 4, eps=1e-3), [(3, 4, 6)]),
    ("group_norm_2d", lambda lib, x: F(lib).group_norm(x, 3), [(3, 6)]),
    ("instance_norm", lambda lib, x, w, b: F(lib).instance_norm(x, weight=w, bias=b), [(2, 3, 4, 5), (3,), (3,)]),
    ("instance_norm_running", lambda lib, x: F(lib).instance_norm(
        x, x.new_tensor([0.5, -1.0, 0.0]), x.new_tensor([0.7, 1.3, 2.0]), use_input_stats=False), [(2, 3, 5)]),
    ("rms_norm", lambda lib, x, w: F(lib).rms_norm(x, (4,), w), [(2, 3, 4), (4,)]),
    ("rms_norm_eps", lambda lib, x: F(lib).rms_norm(x, [3, 4], eps=0.1), [(2, 3, 4)]),
    ("lrn_3d", lambda lib, x: F(lib).local_response_norm(x, 3, alpha=0.5), [(2, 5, 4)]),
    ("lrn_4d", lambda lib, x: F(lib).local_response_norm(x, 2, 0.3, 0.5, 2.0), [(2, 6, 3, 4)]),
    ("lrn_5d", lambda lib, x: nn(lib).LocalResponseNorm(5, 1.0)(x), [(1, 4, 2, 2, 3)]),
    ("normalize", lambda lib, x: F(lib).normalize(x), [(3, 4)]),
    ("normalize_p1", lambda lib, x: F(lib).normalize(x, p=1, dim=(1, 2)), [(2, 3, 4)]),
    ("normalize_p3", lambda lib, x: F(lib).normalize(x, 3.0, -1), [(2, 5)]),
    ("pad_constant", lambda lib, x: F(lib).pad(x, (1, 2)), [(2, 3, 4)]),
    ("pad_constant_crop", lambda lib, x: F(lib).pad(x, [1, -1, 2, 0, -1, -1], value=1.5), [(3, 4, 5)]),
    ("pad_constant_all_dims", lambda lib, x: F(lib).pad(x, (1, 1, 0, 2)), [(3, 4)]),
    ("pad_reflect_1d", lambda lib, x: F(lib).pad(x, (2, 4), mode="reflect"), [(2, 3, 5)]),
    ("pad_reflect_1d_unbatched", lambda lib, x: F(lib).pad(x, (-1, 3), mode="reflect"), [(3, 5)]),
    ("pad_reflect_2d", lambda lib, x: F(lib).pad(x, (1, 2, 3, 0), mode="reflect"), [(2, 3, 4, 5)]),
    ("pad_reflect_3d", lambda lib, x: F(lib).pad(x, (1, 1, 2, 2, 1, 0), mode="reflect"), [(1, 2, 3, 4, 5)]),
    ("pad_reflect_3d_unbatched", lambda lib, x: F(lib).pad(x, (2, 1, 0, 1, 1, 2), mode="reflect"), [(2, 4, 4, 5)]),
    ("pad_replicate_1d", lambda lib, x: F(lib).pad(x, (3, 5), mode="replicate"), [(2, 3, 4)]),
    ("pad_replicate_2d", lambda lib, x: F(lib).pad(x, (-1, 4, 2, 2), mode="replicate"), [(2, 3, 4, 5)]),
    ("pad_replicate_3d", lambda lib, x: F(lib).pad(x, (1, 2, 0, 3, 4, 1), mode="replicate"), [(1, 2, 3, 4, 2)]),
    ("pad_circular_1d", lambda lib, x: F(lib).pad(x, (2, 4), mode="circular"), [(2, 3, 4)]),
    ("pad_circular_crop", lambda lib, x: F(lib).pad(x, (-1, 2), mode="circular"), [(3, 4)]),
    ("pad_circular_2d", lambda lib, x: F(lib).pad(x, (1, 2, 2, -1), mode="circular"), [(2, 2, 3, 4)]),
    ("pad_circular_3d", lambda lib, x: F(lib).pad(x, (1, 1, 2, 2, 3, 0), mode="circular"), [(1, 2, 3, 3, 4)]),
    ("ZeroPad2d", lambda lib, x: nn(lib).ZeroPad2d((1, 0, 2, 3))(x), [(2, 3, 4)]),
    ("ConstantPad3d", lambda lib, x: nn(lib).ConstantPad3d(1, -2.0)(x), [(2, 2, 3, 2)]),
    ("ReflectionPad1d", lambda lib, x: nn(lib).ReflectionPad1d(2)(x), [(2, 3, 4)]),
    ("ReplicationPad2d", lambda lib, x: nn(lib).ReplicationPad2d([1, 2, 3, 4])(x), [(2, 3, 4)]),
    ("CircularPad3d", lambda lib, x: nn(lib).CircularPad3d(1)(x), [(1, 2, 2, 3, 4)]),
    ("pixel_shuffle", lambda lib, x: F(lib).pixel_shuffle(x, 2), [(2, 8, 3, 2)]),
    ("pixel_shuffle_batch_dims", lambda lib, x: nn(lib).PixelShuffle(3)(x), [(2, 1, 18, 2, 3)]),
    ("pixel_unshuffle", lambda lib, x: F(lib).pixel_unshuffle(x, 2), [(2, 2, 4, 6)]),
    ("pixel_unshuffle_3d", lambda lib, x: nn(lib).PixelUnshuffle(2)(x), [(3, 4, 6)]),
    ("prelu_channels", lambda lib, x, w: F(lib).prelu(x, w), [(2, 3, 4), (3,)]),
    ("prelu_shared", lambda lib, x, w: F(lib).prelu(x, w), [(5,), (1,)]),
    ("prelu_scalar_weight", lambda lib, x, w: F(lib).prelu(x, w), [(2, 3, 2, 2), ()]),
    ("glu", lambda lib, x: F(lib).glu(x), [(4, 6)]),
    ("glu_dim", lambda lib, x: act(lib).GLU(1)(x), [(2, 4, 3)]),
    ("softmin", lambda lib, x: F(lib).softmin(x, 1), [(3, 5)]),
    ("Softmin", lambda lib, x: act(lib).Softmin(0)(x), [(2, 3, 4)]),
    ("Softmax2d", lambda lib, x: act(lib).Softmax2d()(x), [(2, 3, 2, 4)]),
]
IDS = [c[0] for c in CASES]


def make_inputs(shapes, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=g, dtype=torch.float64) for shape in shapes]


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=IDS)
def test_values_and_gradients_match_pytorch_float64(name, fn, shapes, device):
    ref = [x.requires_grad_() for x in make_inputs(shapes, 7)]
    mine = [to_tandem(x.detach(), device).requires_grad_() for x in ref]
    want, got = fn(torch, *ref), fn(tandem, *mine)
    assert got.dtype == tandem.float64 and got.device == tandem.device(device)
    close(got.detach(), want.detach(), 1e-10, 1e-12)
    g = torch.randn(want.shape, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    want.backward(g)
    got.backward(to_tandem(g, device))
    for m, r in zip(mine, ref):
        close(m.grad, r.grad, 1e-9, 1e-11)


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=IDS)
def test_values_match_pytorch_float32(name, fn, shapes, device):
    ref = [x.float() for x in make_inputs(shapes, 8)]
    got = fn(tandem, *[to_tandem(x, device) for x in ref])
    assert got.dtype == tandem.float32
    close(got, fn(torch, *ref), 2e-5, 2e-6)


def test_pad_keeps_integer_dtypes_and_copies(device):
    x = torch.arange(12).reshape(3, 4)
    for mode, kw in (("constant", {"value": 7}), ("reflect", {}), ("replicate", {}), ("circular", {})):
        got = F(tandem).pad(to_tandem(x, device), (2, 1), mode=mode, **kw)
        assert got.dtype == tandem.int64
        assert got.tolist() == F(torch).pad(x, (2, 1), mode=mode, **kw).tolist()
    t = to_tandem(x.double(), device)
    for pad in ((0, 0), (-1, 0)):  # no positive padding: still a new tensor, as PyTorch's
        out = F(tandem).pad(t, pad)
        out.add_(1)
        assert t.tolist() == x.double().tolist()
    assert F(tandem).pad(t, (-2, -2)).shape == (3, 0)


def test_rms_norm_half_computes_in_float32(device):
    # PyTorch upcasts half inputs and its eps=None is then float32's epsilon, not float16's.
    x = torch.full((2, 4), 1e-4, dtype=torch.float16)
    got = F(tandem).rms_norm(to_tandem(x, device), (4,))
    assert got.dtype == tandem.float16
    assert got.tolist() == F(torch).rms_norm(x, (4,)).tolist()


# ----------------------------------------------------------------------------------------------- InstanceNorm
@pytest.mark.parametrize("cls,shape", [("InstanceNorm1d", (4, 3, 6)), ("InstanceNorm2d", (2, 3, 4, 5)),
                                       ("InstanceNorm3d", (2, 3, 2, 3, 2))])
def test_instance_norm_running_statistics(cls, shape, device):
    torch.manual_seed(2)
    ref = getattr(torch.nn, cls)(3, momentum=0.3, affine=True, track_running_stats=True).double()
    ours = getattr(tandem.nn, cls)(3, momentum=0.3, affine=True, track_running_stats=True).double().to(device)
    with torch.no_grad():
        ref.weight.uniform_(0.5, 1.5)
        ref.bias.uniform_(-1, 1)
    ours.load_state_dict({k: to_tandem(v, device) for k, v in ref.state_dict().items()})
    for step in range(3):
        x = torch.randn(shape, dtype=torch.float64) * 2 + step
        close(ours(to_tandem(x, device)), ref(x).detach(), 1e-10, 1e-12)
    for key, value in ref.state_dict().items():
        close(ours.state_dict()[key], value, 1e-12, 1e-14)
    ours.eval()
    ref.eval()
    x = torch.randn(shape, dtype=torch.float64)
    close(ours(to_tandem(x, device)), ref(x).detach(), 1e-10, 1e-12)
    close(ours(to_tandem(x[0], device)), ref(x[0]).detach(), 1e-10, 1e-12)  # no batch dim


def test_instance_norm_without_running_stats_and_feature_checks(device):
    x = torch.randn(2, 3, 5, dtype=torch.float64)
    ours, ref = tandem.nn.InstanceNorm1d(3).to(device).eval(), torch.nn.InstanceNorm1d(3).eval()
    close(ours(to_tandem(x, device)), ref(x), 1e-10, 1e-12)  # eval still uses the input statistics
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        torch.nn.InstanceNorm1d(4)(x)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        tandem.nn.InstanceNorm1d(4)(to_tandem(x, device))
    assert [str(w.message) for w in got] == [str(w.message) for w in want]


# -------------------------------------------------------------------------------------------- reprs and state
REPRS = [
    lambda lib: nn(lib).GroupNorm(2, 4),
    lambda lib: nn(lib).GroupNorm(3, 6, eps=1e-3, affine=False),
    lambda lib: nn(lib).GroupNorm(1, 2, bias=False),
    lambda lib: nn(lib).InstanceNorm2d(3),
    lambda lib: nn(lib).InstanceNorm1d(3, affine=True, track_running_stats=True, momentum=None),
    lambda lib: nn(lib).InstanceNorm3d(2, affine=True, bias=False),
    lambda lib: nn(lib).RMSNorm([2, 3]),
    lambda lib: nn(lib).RMSNorm(3, eps=1e-5, elementwise_affine=False),
    lambda lib: nn(lib).LocalResponseNorm(2),
    lambda lib: nn(lib).ZeroPad1d(2),
    lambda lib: nn(lib).ZeroPad2d(1),
    lambda lib: nn(lib).ZeroPad3d((1, 2, 3, 4, 5, 6)),
    lambda lib: nn(lib).ConstantPad1d((1, 2), 3),
    lambda lib: nn(lib).ConstantPad2d(1, 0.5),
    lambda lib: nn(lib).ConstantPad3d(2, -1.0),
    lambda lib: nn(lib).ReflectionPad1d(1),
    lambda lib: nn(lib).ReflectionPad2d((1, 2, 3, 4)),
    lambda lib: nn(lib).ReflectionPad3d([1, 2, 3, 4, 5, 6]),
    lambda lib: nn(lib).ReplicationPad1d((3, 1)),
    lambda lib: nn(lib).ReplicationPad2d(2),
    lambda lib: nn(lib).ReplicationPad3d(1),
    lambda lib: nn(lib).CircularPad1d(1),
    lambda lib: nn(lib).CircularPad2d((1, 0, 2, 0)),
    lambda lib: nn(lib).CircularPad3d(1),
    lambda lib: nn(lib).Dropout1d(),
    lambda lib: nn(lib).Dropout2d(0.2, inplace=True),
    lambda lib: nn(lib).Dropout3d(0.1),
    lambda lib: nn(lib).AlphaDropout(0.2),
    lambda lib: nn(lib).FeatureAlphaDropout(),
    lambda lib: nn(lib).PixelShuffle(2),
    lambda lib: nn(lib).PixelUnshuffle(3),
    lambda lib: act(lib).PReLU(),
    lambda lib: act(lib).PReLU(4, init=0.1),
    lambda lib: act(lib).GLU(),
    lambda lib: act(lib).Softmin(1),
    lambda lib: act(lib).Softmax2d(),
]


@pytest.mark.parametrize("make", REPRS)
def test_module_repr_and_state_dict_match_pytorch(make):
    ours, ref = make(tandem), make(torch)
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    for key, value in ref.state_dict().items():
        assert ours.state_dict()[key].tolist() == value.tolist(), key
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in ref.named_parameters()]


def test_prelu_module_learns_per_channel_slopes(device):
    ours = activation.PReLU(3, init=0.2).double().to(device)
    ref = torch.nn.PReLU(3, init=0.2).double()
    x = torch.randn(4, 3, 5, dtype=torch.float64)
    ours(to_tandem(x, device)).sum().backward()
    ref(x).sum().backward()
    close(ours.weight.grad, ref.weight.grad, 1e-12, 1e-12)


# ------------------------------------------------------------------------------------------------------ errors
def X(lib, *shape):
    return lib.ones(*shape)


ERRORS = [
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (1,)),
    lambda lib: F(lib).pad(X(lib, 3, 4), (1, 1, 1, 1, 1, 1)),
    lambda lib: F(lib).pad(X(lib, 3, 4), (1, 1, 1), mode="bogus"),
    lambda lib: F(lib).pad(X(lib, 3, 4), 1),
    lambda lib: F(lib).pad(X(lib, 3, 4), (1.0, 1)),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (-3, -2)),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (0, 0, -2, -2)),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (4, 0), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 3, 4), (0, 4), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (1, 1, 3, 0), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 1, 2, 3, 4, 5), (1, 0, 1, 1, 3, 1), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (-2, 5), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (-4, 0), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4, 5), (-5, 0, -5, 0), mode="replicate"),
    lambda lib: F(lib).pad(X(lib, 1, 2, 3, 4, 5), (0, 0, 0, 0, -4, 0), mode="replicate"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 0), (1, 1), mode="replicate"),
    lambda lib: F(lib).pad(X(lib, 0, 4, 4), (1, 1, 1, 1), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 4), (1, 1), mode="reflect"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4, 5), (1, 1), mode="circular"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (1, 1), mode="reflect", value=2.0),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (5, 0), mode="circular"),
    lambda lib: F(lib).pad(X(lib, 2, 3, 4), (-2, -3), mode="circular"),
    lambda lib: nn(lib).CircularPad2d(1)(X(lib, 3, 4)),
    lambda lib: nn(lib).ReflectionPad2d(1)(X(lib, 3, 4)),
    lambda lib: nn(lib).ZeroPad2d(1)(X(lib, 4)),
    lambda lib: F(lib).group_norm(X(lib, 4), 2),
    lambda lib: F(lib).group_norm(X(lib, 2, 3, 4), 2),
    lambda lib: F(lib).group_norm(X(lib, 2, 3, 4), 3, X(lib, 2)),
    lambda lib: F(lib).group_norm(X(lib, 2, 3, 4), 3, None, X(lib, 3, 1)),
    lambda lib: F(lib).group_norm(X(lib, 1, 3), 3),
    lambda lib: F(lib).group_norm(X(lib, 2, 3), 0),
    lambda lib: nn(lib).GroupNorm(2, 3),
    lambda lib: F(lib).instance_norm(X(lib, 2, 3, 4), X(lib, 2), X(lib, 2)),
    lambda lib: F(lib).instance_norm(X(lib, 2, 3, 4), weight=X(lib, 2)),
    lambda lib: F(lib).instance_norm(X(lib, 2, 3, 4), use_input_stats=False),
    lambda lib: nn(lib).InstanceNorm1d(3)(X(lib, 2, 3, 4, 5)),
    lambda lib: nn(lib).InstanceNorm1d(4, affine=True)(X(lib, 2, 3, 4)),
    lambda lib: nn(lib).InstanceNorm2d(4, affine=True)(X(lib, 3, 4, 5)),
    lambda lib: F(lib).rms_norm(X(lib, 2, 3, 4), (3,)),
    lambda lib: F(lib).rms_norm(X(lib, 2, 3, 4), [3, 5]),
    lambda lib: F(lib).rms_norm(X(lib, 2, 3, 4), (5,), X(lib, 3)),
    lambda lib: F(lib).rms_norm(X(lib, 2, 3, 4), 4),
    lambda lib: F(lib).local_response_norm(X(lib, 3, 4), 2),
    lambda lib: F(lib).dropout1d(X(lib, 2, 3, 4, 5)),
    lambda lib: F(lib).dropout2d(X(lib, 3), 0.5, True),
    lambda lib: F(lib).feature_alpha_dropout(X(lib, 3), 0.5, True),
    lambda lib: F(lib).dropout3d(lib.tensor(1.0), 0.5, True),
    lambda lib: F(lib).alpha_dropout(X(lib, 3), 1.5),
    lambda lib: nn(lib).Dropout3d(-0.1),
    lambda lib: F(lib).pixel_shuffle(X(lib, 2, 3, 4, 5), 2),
    lambda lib: F(lib).pixel_shuffle(X(lib, 3, 4), 2),
    lambda lib: F(lib).pixel_shuffle(X(lib, 4, 4, 5), 0),
    lambda lib: F(lib).pixel_unshuffle(X(lib, 2, 3, 4, 5), 2),
    lambda lib: F(lib).pixel_unshuffle(X(lib, 1, 3, 3, 5), 2),
    lambda lib: F(lib).pixel_unshuffle(X(lib, 3, 4), 2),
    lambda lib: F(lib).pixel_unshuffle(X(lib, 1, 4, 4), -1),
    lambda lib: F(lib).prelu(X(lib, 2, 3, 4), X(lib, 2)),
    lambda lib: F(lib).prelu(X(lib, 3), X(lib, 3)),
    lambda lib: F(lib).prelu(lib.tensor(1.0), X(lib, 3)),
    lambda lib: F(lib).prelu(X(lib, 2, 3, 4), X(lib, 3, 1)),
    lambda lib: F(lib).prelu(X(lib, 2, 3), X(lib, 3).double()),
    lambda lib: F(lib).glu(X(lib, 2, 3, 4), -2),
    lambda lib: F(lib).glu(lib.tensor(1.0)),
    lambda lib: F(lib).glu(X(lib, 2, 3, 4), 5),
    lambda lib: act(lib).Softmax2d()(X(lib, 3, 4)),
    lambda lib: act(lib).Softmax2d()(X(lib, 1, 2, 3, 4, 5)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_pytorch(index):
    oracle.assert_same_error(ERRORS[index])


def test_errors_on_devices(device):
    x = tandem.ones(2, 3, 4, device=device)
    with pytest.raises(RuntimeError, match=r"Argument #4: Padding size should be less"):
        F(tandem).pad(x, (4, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F(tandem).pad(x, (5, 0), mode="circular")
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training, got input size "
                                         r"tandem.Size\(\[2, 3, 1\]\)"):
        F(tandem).instance_norm(tandem.ones(2, 3, 1, device=device))


# ----------------------------------------------------------------------------------------------------- dropout
def channel_values(out, channel_dims):
    """The smallest and largest value of every channel plane (the dims after channel_dims)."""
    planes = out.reshape(*out.shape[:channel_dims], -1)
    return planes.amin(dim=-1), planes.amax(dim=-1)


@pytest.mark.parametrize("name,shape,channel_dims", [
    ("dropout1d", (40, 30, 5), 2), ("dropout1d", (300, 5), 1), ("dropout2d", (20, 30, 3, 4), 2),
    ("dropout3d", (20, 30, 2, 2, 3), 2), ("dropout3d", (300, 2, 2, 3), 1), ("dropout3d", (300,), 1),
])
def test_channel_dropout_zeroes_whole_channels(name, shape, channel_dims, device):
    p = 0.3
    tandem.manual_seed(0)
    x = tandem.ones(*shape, dtype=tandem.float64, device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's deprecation warning for a 1-D input to dropout3d
        out = getattr(F(tandem), name)(x, p)
    low, high = channel_values(out, channel_dims)
    assert tandem.equal(low, high)  # every plane is constant: all kept or all zeroed
    assert set(low.reshape(-1).tolist()) <= {0.0, 1 / (1 - p)}
    dropped = (low == 0).double().mean().item()
    # The dropped fraction of n channels is binomial: within 5 standard deviations of p.
    assert abs(dropped - p) < 5 * math.sqrt(p * (1 - p) / low.numel())
    out.sum().backward()
    assert tandem.equal(x.grad, out.detach())  # the gradient is the mask (input is all ones)


@pytest.mark.parametrize("name", ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"])
def test_dropout_eval_identity_and_edge_probabilities(name, device):
    fn = getattr(F(tandem), name)
    x = tandem.randn(4, 3, 5, 2, device=device) if name != "dropout1d" else tandem.randn(4, 3, 5, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert fn(x, 0.5, training=False) is x
        assert fn(x, 0.0, training=True) is x
        assert tandem.equal(fn(x, 1.0, training=True), tandem.zeros_like(x))
        tandem.manual_seed(11)
        first = fn(x, 0.4, True)
        tandem.manual_seed(11)
        assert tandem.equal(fn(x, 0.4, True), first)  # the masks come from tandem's default generator
        y = x.clone()
        assert fn(y, 0.4, True, inplace=True) is y


def test_dropout_modules_follow_training_mode(device):
    x = tandem.randn(8, 6, 4, 4, device=device)
    layer = tandem.nn.Dropout2d(0.5)
    assert not tandem.equal(layer(x), x)
    layer.eval()
    assert layer(x) is x
    plane = x[0, 0]
    assert tandem.nn.Dropout1d(0.5).eval()(plane) is plane


def test_dropout2d_warnings_match_pytorch():
    for shape in ((3, 4, 5), (3, 4)):
        with warnings.catch_warnings(record=True) as want:
            warnings.simplefilter("always")
            torch.nn.functional.dropout2d(torch.ones(*shape))
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            F(tandem).dropout2d(tandem.ones(*shape))
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
        assert got[0].filename == __file__


ALPHA = 1.7580993408473766


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_keeps_mean_and_variance(feature, device):
    p = 0.2
    tandem.manual_seed(0)  # statistical bounds: a fixed draw, so the test cannot flake
    a = 1 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    x = tandem.randn(200, 50, 10, dtype=tandem.float64, device=device, requires_grad=True)
    out = (F(tandem).feature_alpha_dropout if feature else F(tandem).alpha_dropout)(x, p, True)
    dropped = (out.detach() - (-ALPHA * a * (1 - p))).abs() < 1e-12
    kept = (out.detach() - (x.detach() * a + ALPHA * a * p)).abs() < 1e-12
    assert tandem.logical_or(dropped, kept).all().item()
    assert abs(dropped.double().mean().item() - p) < 0.01
    assert abs(out.mean().item()) < 0.02 and abs(out.var().item() - 1) < 0.02
    if feature:  # one draw per (sample, channel) plane
        assert tandem.equal(dropped.amin(dim=2), dropped.amax(dim=2))
    out.sum().backward()
    assert tandem.equal(x.grad, kept.double() * a)


# ------------------------------------------------------------------------------------------------------- init
def test_trunc_normal_at_the_bounds_stays_finite():
    # a uniform draw at its lower bound (erfinv(-1) = -inf) is clamped to a, never NaN: with std=.02 the bounds
    # (-2, 2) are 100 std away and the draws cover [-1, 1] (vit-pytorch's CCT once got a NaN weight per 2^24)
    t = init.trunc_normal_(tandem.empty(1 << 16), std=0.02)
    assert bool(t.isfinite().all()) and -2 <= t.min().item() and t.max().item() <= 2


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 3.0), (0.0, 0.02, -0.04, 0.01)])
def test_trunc_normal_distribution(mean, std, a, b, device):
    tandem.manual_seed(0)  # statistical bounds: a fixed draw, so the test cannot flake
    w = tandem.empty(400, 500, device=device)
    assert init.trunc_normal_(w, mean, std, a, b) is w
    alpha, beta = (a - mean) / std, (b - mean) / std
    cdf = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in (alpha, beta)]
    # Sample quantiles against the truncated normal's (from PyTorch's ndtri).
    probs = torch.linspace(0.01, 0.99, 99, dtype=torch.float64)
    expected = mean + std * torch.special.ndtri(cdf[0] + probs * (cdf[1] - cdf[0]))
    values = torch.tensor(w.cpu().tolist(), dtype=torch.float64).reshape(-1)
    assert a <= values.min().item() and values.max().item() <= b
    torch.testing.assert_close(torch.quantile(values, probs), expected, rtol=0, atol=0.01 * std)


def test_trunc_normal_warning_matches_pytorch():
    with warnings.catch_warnings(record=True) as want:
        warnings.simplefilter("always")
        torch.nn.init.trunc_normal_(torch.empty(3), mean=5.0)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        init.trunc_normal_(tandem.empty(3), mean=5.0)
    assert [str(w.message) for w in got] == [str(w.message) for w in want]


@pytest.mark.parametrize("shape", [(6, 10), (10, 6), (5, 5), (4, 3, 2, 2)])
def test_orthogonal_matches_pytorch_qr_of_the_same_draw(shape, device):
    seed = 21
    w = tandem.empty(*shape, device=device)
    init.orthogonal_(w, gain=1.5, generator=tandem.Generator(device=device).manual_seed(seed))
    rows = shape[0]
    cols = math.prod(shape) // rows
    # The same normal draw, then PyTorch's recipe: QR of the tall orientation, Q's columns signed by diag(R).
    draw = tandem.empty(rows, cols, device=device).normal_(0, 1, generator=tandem.Generator(device=device)
                                                           .manual_seed(seed))
    flat = torch.tensor(draw.cpu().tolist(), dtype=torch.float64)
    tall = flat if rows >= cols else flat.t()
    q, r = torch.linalg.qr(tall)
    q = q * torch.diag(r).sign()
    expected = (q if rows >= cols else q.t()).reshape(shape) * 1.5
    close(w, expected.float(), 1e-4, 1e-5)


def test_orthogonal_rows_are_orthonormal_for_low_precision():
    w = tandem.empty(8, 12, dtype=tandem.float16)
    init.orthogonal_(w)
    m = torch.tensor(w.float().tolist())
    torch.testing.assert_close(m @ m.t(), torch.eye(8), atol=5e-3, rtol=0)


def test_sparse_zeroes_a_fixed_count_per_column(device):
    w = tandem.empty(20, 300, device=device)
    init.sparse_(w, 0.25, std=0.5, generator=tandem.Generator(device=device).manual_seed(4))
    zeros = (w == 0)
    assert zeros.sum(dim=0).tolist() == [5] * 300
    assert zeros.any(dim=1).all().item()  # the zero rows differ from column to column
    kept = w.masked_select(zeros.logical_not())
    assert abs(kept.std().item() - 0.5) < 0.02
    assert tandem.equal(init.sparse_(tandem.empty(3, 4, device=device), 2.0), tandem.zeros(3, 4, device=device))


@pytest.mark.parametrize("shape,groups", [((6, 3, 3), 1), ((4, 2, 3, 3), 2), ((4, 4, 1, 3, 3), 2), ((2, 5, 4), 1)])
def test_dirac_and_eye_match_pytorch(shape, groups, device):
    w = tandem.full(list(shape), 9.0, device=device)
    assert init.dirac_(w, groups) is w
    assert w.tolist() == torch.nn.init.dirac_(torch.empty(shape), groups).tolist()
    m = tandem.full([shape[0], shape[-1]], 9.0, device=device)
    assert init.eye_(m).tolist() == torch.nn.init.eye_(torch.empty(shape[0], shape[-1])).tolist()


def test_init_writes_parameters_without_recording(device):
    p = tandem.nn.Parameter(tandem.empty(4, 3, 3, device=device))
    for fn in (init.trunc_normal_, init.orthogonal_, init.dirac_):
        assert fn(p) is p
        assert p.requires_grad and p.grad_fn is None


INIT_ERRORS = [
    lambda lib: lib.nn.init.orthogonal_(lib.empty(3)),
    lambda lib: lib.nn.init.sparse_(lib.empty(3), 0.1),
    lambda lib: lib.nn.init.dirac_(lib.empty(2, 3)),
    lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), 2),
    lambda lib: lib.nn.init.eye_(lib.empty(2, 3, 4)),
]


@pytest.mark.parametrize("call", INIT_ERRORS)
def test_init_errors_match_pytorch(call):
    want, got = oracle.raised(lambda: call(torch)), oracle.raised(lambda: call(tandem))
    assert type(got) is type(want) and str(got) == str(want)
