"""Convolutions beyond conv2d (1-d, 3-d, transposed, 'same' padding, padding modes), unfold/fold, the 1-d, 3-d,
adaptive and power-average pooling, interpolate and the lazy layers against PyTorch: values and gradients in
float64 over grids of options, float32 values, a case of each family on every device, module reprs and
state_dict keys, errors (type and message) and warnings."""
import itertools
import warnings

import pytest
import torch

import tandem

import oracle

# PyTorch's performance note for 'same' padding with an even kernel (tandem stays silent).
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel lengths")


def F(lib):
    return lib.nn.functional


def nn(lib):
    return lib.nn


def to_tandem(x, device="cpu"):
    t = tandem.tensor(x.tolist(), dtype=getattr(tandem, str(x.dtype).split(".")[-1]))
    return (t.reshape(*x.shape) if x.dim() else t).to(device)


def to_torch(t):
    return torch.tensor(t.cpu().tolist(), dtype=getattr(torch, repr(t.dtype).split(".")[-1])).reshape(tuple(t.shape))


def close(got, want, rtol=1e-10, atol=1e-12):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    torch.testing.assert_close(to_torch(got), want, rtol=rtol, atol=atol, equal_nan=True)


def inputs(shapes, seed, dtype=torch.float64):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(shape, generator=g, dtype=torch.float64).to(dtype) for shape in shapes]


# ---- (id, fn(lib, *tensors), shapes): each runs on torch and on tandem ---------------------------------------
def _conv_cases():
    cases = []
    for s, p, d, g in itertools.product([1, 2], [0, 1, "same", "valid"], [1, 2], [1, 2]):
        if p == "same" and s != 1:
            continue
        cases.append((f"conv1d-s{s}-p{p}-d{d}-g{g}",
                      lambda lib, x, w, b, s=s, p=p, d=d, g=g: F(lib).conv1d(x, w, b, s, p, d, g),
                      [(2, 4, 9), (6, 4 // g, 3), (6,)]))
    for s, p, d, g in [(1, 0, 1, 1), ((2, 1, 2), (1, 0, 2), 1, 2), (1, "same", (2, 1, 1), 1), (2, 1, (1, 2, 1), 2),
                       (1, "valid", 1, 4)]:
        cases.append((f"conv3d-s{s}-p{p}-d{d}-g{g}",
                      lambda lib, x, w, b, s=s, p=p, d=d, g=g: F(lib).conv3d(x, w, b, s, p, d, g),
                      [(2, 4, 6, 5, 7), (4, 4 // g, 3, 2, 3), (4,)]))
    for s, p, op, d, g in itertools.product([1, 2, 3], [0, 1], [0, 1], [1, 2], [1, 2]):
        if op >= s and op >= d:
            continue
        cases.append((f"conv_transpose1d-s{s}-p{p}-op{op}-d{d}-g{g}",
                      lambda lib, x, w, b, s=s, p=p, op=op, d=d, g=g: F(lib).conv_transpose1d(x, w, b, s, p, op, g, d),
                      [(2, 4, 5), (4, 3, 3), (3 * g,)]))
        cases.append((f"conv_transpose2d-s{s}-p{p}-op{op}-d{d}-g{g}",
                      lambda lib, x, w, b, s=s, p=p, op=op, d=d, g=g: F(lib).conv_transpose2d(x, w, b, s, p, op, g, d),
                      [(2, 4, 4, 3), (4, 2, 3, 2), (2 * g,)]))
    cases += [
        ("conv_transpose2d-mixed",
         lambda lib, x, w: F(lib).conv_transpose2d(x, w, None, (2, 1), (1, 0), (1, 0), 1, (1, 2)),
         [(1, 3, 4, 5), (3, 2, 3, 2)]),
        ("conv_transpose2d-unbatched", lambda lib, x, w: F(lib).conv_transpose2d(x, w, stride=2),
         [(3, 4, 5), (3, 2, 2, 2)]),
        ("conv_transpose3d",
         lambda lib, x, w, b: F(lib).conv_transpose3d(x, w, b, (2, 1, 2), (0, 1, 1), (1, 0, 0), 2, (1, 2, 1)),
         [(1, 4, 3, 4, 3), (4, 2, 2, 3, 2), (4,)]),
        ("conv_transpose3d-plain", lambda lib, x, w: F(lib).conv_transpose3d(x, w), [(2, 2, 2, 3, 2), (2, 3, 2, 2, 2)]),
        ("conv1d-unbatched", lambda lib, x, w: F(lib).conv1d(x, w, padding=2), [(3, 7), (2, 3, 4)]),
        ("conv1d-same-even", lambda lib, x, w: F(lib).conv1d(x, w, padding="same"), [(1, 3, 7), (2, 3, 4)]),
        ("conv2d-same-even", lambda lib, x, w: F(lib).conv2d(x, w, padding="same", dilation=(1, 2)),
         [(1, 2, 6, 7), (3, 2, 4, 2)]),
        ("conv3d-unbatched", lambda lib, x, w: F(lib).conv3d(x, w, stride=2), [(2, 5, 5, 5), (3, 2, 3, 3, 3)]),
    ]
    return cases


def _fold_cases():
    cases = []
    for k, d, p, s in [(2, 1, 0, 1), ((2, 3), (1, 2), (1, 0), (2, 1)), (3, 2, 1, 2), (1, 1, 2, 3)]:
        cases.append((f"unfold-k{k}-d{d}-p{p}-s{s}", lambda lib, x, k=k, d=d, p=p, s=s: F(lib).unfold(x, k, d, p, s),
                      [(2, 3, 7, 6)]))
        columns = tuple(torch.nn.functional.unfold(torch.zeros(2, 3, 7, 6), k, d, p, s).shape)
        cases.append((f"fold-k{k}-d{d}-p{p}-s{s}",
                      lambda lib, x, k=k, d=d, p=p, s=s: F(lib).fold(x, (7, 6), k, d, p, s), [columns]))
    cases += [("unfold-unbatched", lambda lib, x: nn(lib).Unfold(2, padding=1)(x), [(2, 3, 4)]),
              ("fold-unbatched", lambda lib, x: nn(lib).Fold((3, 4), 2)(x), [(8, 6)])]
    return cases


def _pool_cases():
    cases = []
    for k, s, p, d, c in itertools.product([2, 3], [None, 2], [0, 1], [1, 2], [False, True]):
        cases.append((f"max_pool1d-k{k}-s{s}-p{p}-d{d}-c{c}",
                      lambda lib, x, k=k, s=s, p=p, d=d, c=c: F(lib).max_pool1d(x, k, s, p, d, c), [(2, 3, 9)]))
        cases.append((f"max_pool3d-k{k}-s{s}-p{p}-d{d}-c{c}",
                      lambda lib, x, k=k, s=s, p=p, d=d, c=c: F(lib).max_pool3d(x, k, s, p, d, c), [(1, 2, 7, 6, 5)]))
        cases.append((f"avg_pool1d-k{k}-s{s}-p{p}-c{c}-i{d}",
                      lambda lib, x, k=k, s=s, p=p, d=d, c=c: F(lib).avg_pool1d(x, k, s, p, c, d == 1), [(2, 3, 9)]))
        cases.append((f"avg_pool3d-k{k}-s{s}-p{p}-c{c}-i{d}",
                      lambda lib, x, k=k, s=s, p=p, d=d, c=c: F(lib).avg_pool3d(x, k, s, p, c, d == 1),
                      [(1, 2, 7, 6, 5)]))
    for o in [1, 2, 3, 5, (2, None, 3)]:
        o2, o1 = (o[:2] if isinstance(o, tuple) else o), (o[0] if isinstance(o, tuple) else o)
        cases += [(f"adaptive_avg_pool3d-{o}", lambda lib, x, o=o: F(lib).adaptive_avg_pool3d(x, o), [(2, 2, 7, 6, 5)]),
                  (f"adaptive_max_pool3d-{o}", lambda lib, x, o=o: F(lib).adaptive_max_pool3d(x, o), [(2, 2, 7, 6, 5)]),
                  (f"adaptive_max_pool2d-{o}", lambda lib, x, o=o2: F(lib).adaptive_max_pool2d(x, o), [(2, 7, 6)]),
                  (f"adaptive_max_pool1d-{o}", lambda lib, x, o=o1: F(lib).adaptive_max_pool1d(x, o), [(2, 2, 7)]),
                  (f"adaptive_avg_pool1d-{o}", lambda lib, x, o=o1: F(lib).adaptive_avg_pool1d(x, o), [(2, 7)])]
    cases += [
        ("avg_pool3d-divisor", lambda lib, x: F(lib).avg_pool3d(x, 3, 2, 1, True, False, 5), [(1, 2, 6, 7, 5)]),
        ("avg_pool3d-unbatched", lambda lib, x: nn(lib).AvgPool3d((2, 3, 1), (1, 2, 1))(x), [(2, 5, 6, 4)]),
        ("max_pool3d-unbatched", lambda lib, x: nn(lib).MaxPool3d((2, 3, 1), (1, 2, 1), (1, 1, 0))(x), [(2, 5, 6, 4)]),
        ("lp_pool1d", lambda lib, x: F(lib).lp_pool1d(x.abs(), 3, 2, 1), [(2, 3, 7)]),
        ("lp_pool2d", lambda lib, x: nn(lib).LPPool2d(2, (2, 3), 2)(x), [(2, 3, 6, 7)]),
        ("lp_pool3d", lambda lib, x: F(lib).lp_pool3d(x, 2, (2, 2, 1)), [(1, 2, 4, 5, 3)]),
        ("lp_pool2d-inf", lambda lib, x: F(lib).lp_pool2d(x, float("inf"), 2, ceil_mode=True), [(2, 5, 5)]),
    ]
    return cases


def _interpolate_cases():
    cases = []
    for mode, dims in [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 2), ("nearest-exact", 3),
                       ("linear", 1), ("bilinear", 2), ("bicubic", 2), ("trilinear", 3), ("area", 2), ("area", 3)]:
        shape = [2, 2] + [5, 6, 4][:dims]
        for kw in [dict(size=[4, 9, 7][:dims]), dict(size=[1, 3, 11][:dims]), dict(scale_factor=2),
                   dict(scale_factor=0.7), dict(scale_factor=[1.7, 2.5, 0.5][:dims], recompute_scale_factor=True)]:
            for ac in ([None] if mode in ("nearest", "nearest-exact", "area") else [False, True]):
                cases.append((f"interpolate-{mode}-{dims}d-{kw}-ac{ac}",
                              lambda lib, x, mode=mode, kw=kw, ac=ac: F(lib).interpolate(x, mode=mode, align_corners=ac,
                                                                                         **kw), [shape]))
    for mode, kw, ac in itertools.product(["bilinear", "bicubic"], [dict(size=(3, 2)), dict(scale_factor=0.4),
                                                                    dict(size=(9, 13))], [False, True]):
        cases.append((f"interpolate-{mode}-antialias-{kw}-ac{ac}",
                      lambda lib, x, mode=mode, kw=kw, ac=ac: F(lib).interpolate(x, mode=mode, align_corners=ac,
                                                                                 antialias=True, **kw), [(1, 2, 7, 8)]))
    cases += [("Upsample", lambda lib, x: nn(lib).Upsample(scale_factor=(2, 3), mode="bilinear")(x), [(1, 2, 3, 4)]),
              ("UpsamplingBilinear2d", lambda lib, x: nn(lib).UpsamplingBilinear2d(size=(5, 7))(x), [(1, 2, 3, 4)]),
              ("UpsamplingNearest2d", lambda lib, x: nn(lib).UpsamplingNearest2d(scale_factor=3)(x), [(1, 2, 3, 4)])]
    return cases


CASES = _conv_cases() + _fold_cases() + _pool_cases() + _interpolate_cases()
IDS = [c[0] for c in CASES]
# One case of each family, run on every device.
FAMILIES = {}
for _case in CASES:
    FAMILIES.setdefault(_case[0].split("-")[0], _case)
DEVICE_CASES = list(FAMILIES.values())


def check_float64(fn, shapes, device):
    ref = [x.requires_grad_() for x in inputs(shapes, 7)]
    mine = [to_tandem(x.detach(), device).requires_grad_() for x in ref]
    want, got = fn(torch, *ref), fn(tandem, *mine)
    assert got.dtype == tandem.float64 and got.device == tandem.device(device)
    close(got.detach(), want.detach())
    g = inputs([want.shape], 3)[0]
    want.backward(g)
    got.backward(to_tandem(g, device))
    for m, r in zip(mine, ref):
        close(m.grad, r.grad, 1e-9, 1e-11)


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=IDS)
def test_values_and_gradients_match_pytorch_float64(name, fn, shapes):
    check_float64(fn, shapes, "cpu")


@pytest.mark.parametrize("name,fn,shapes", DEVICE_CASES, ids=[c[0] for c in DEVICE_CASES])
def test_each_family_on_every_device(name, fn, shapes, device):
    check_float64(fn, shapes, device)


@pytest.mark.parametrize("name,fn,shapes", CASES[::3], ids=IDS[::3])
def test_values_match_pytorch_float32(name, fn, shapes):
    ref = inputs(shapes, 8, torch.float32)
    got = fn(tandem, *[to_tandem(x) for x in ref])
    assert got.dtype == tandem.float32
    close(got, fn(torch, *ref), 2e-5, 2e-5)


# ---- indices, double backward, layers with weights -----------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda lib, x: F(lib).max_pool1d(x[0, 0], 3, 2, 1, 2, True, return_indices=True),
    lambda lib, x: F(lib).max_pool3d(x, (2, 3, 2), (1, 2, 2), (1, 1, 0), (2, 1, 1), True, return_indices=True),
    lambda lib, x: nn(lib).MaxPool3d(2, return_indices=True)(x[0]),
    lambda lib, x: F(lib).adaptive_max_pool1d(x[0, 0], 4, return_indices=True),
    lambda lib, x: nn(lib).AdaptiveMaxPool2d((3, None), return_indices=True)(x[0]),
    lambda lib, x: F(lib).adaptive_max_pool3d(x, (2, 3, 4), True),
])
def test_pooling_indices_match_pytorch(call, device):
    x = inputs([(2, 3, 5, 6, 7)], 5)[0]
    want, got = call(torch, x), call(tandem, to_tandem(x, device))
    close(got[0], want[0])
    assert got[1].dtype == tandem.int64 and to_torch(got[1]).equal(want[1])


def test_pooling_ties_pick_the_first_maximum_as_pytorch():
    x = torch.tensor([[[[[1.0, 2.0, 2.0], [2.0, 0.0, 2.0]], [[2.0, 2.0, 1.0], [0.0, 2.0, 2.0]]]]])
    for call in (lambda lib, t: F(lib).max_pool3d(t, 2, 1, return_indices=True),
                 lambda lib, t: F(lib).adaptive_max_pool3d(t, 1, True)):
        assert to_torch(call(tandem, to_tandem(x))[1]).equal(call(torch, x)[1])


@pytest.mark.parametrize("call", [
    lambda lib, x, w: F(lib).conv_transpose1d(x, w, stride=2, padding=1, output_padding=1),
    lambda lib, x, w: F(lib).fold(F(lib).unfold(x.unsqueeze(2) * w.sum(), (1, 2)), (1, 5), (1, 2)),
    lambda lib, x, w: F(lib).interpolate(x * w.sum(), scale_factor=1.5, mode="linear"),
    lambda lib, x, w: F(lib).conv1d(x, w.transpose(0, 1), stride=2, padding=1),
    lambda lib, x, w: F(lib).conv3d(x.view(1, 2, 1, 1, 5).expand(1, 2, 3, 2, 5),
                                    w.transpose(0, 1).view(3, 2, 1, 1, 3), padding=(1, 0, 1)),
])
def test_double_backward_matches_pytorch(call):
    """Compositions of differentiable ops, and conv1d/conv3d (conv2d underneath, whose backward is recorded
    under create_graph), differentiate twice."""
    x, w = inputs([(1, 2, 5), (2, 3, 3)], 11)
    ref = [x.requires_grad_(), w.requires_grad_()]
    mine = [to_tandem(t.detach()).requires_grad_() for t in ref]
    want = torch.autograd.grad(call(torch, *ref).pow(2).sum(), ref, create_graph=True)
    got = tandem.autograd.grad(call(tandem, *mine).pow(2).sum(), mine, create_graph=True)
    want = torch.autograd.grad(sum(g.sum() for g in want), ref)
    got = tandem.autograd.grad(sum(g.sum() for g in got), mine)
    for a, b in zip(got, want):
        close(a, b, 1e-9, 1e-11)


LAYERS = [
    lambda lib: nn(lib).Conv1d(4, 6, 3, stride=2, padding=2, padding_mode="reflect"),
    lambda lib: nn(lib).Conv1d(4, 4, 4, padding="same", padding_mode="circular", groups=2, dilation=2),
    lambda lib: nn(lib).Conv2d(4, 2, (3, 2), padding="same", padding_mode="replicate", bias=False),
    lambda lib: nn(lib).Conv2d(4, 2, 3, padding=1, padding_mode="reflect"),
    lambda lib: nn(lib).Conv3d(4, 2, 2, padding=(1, 0, 1), padding_mode="zeros"),
    lambda lib: nn(lib).ConvTranspose1d(4, 6, 3, stride=2, output_padding=1, groups=2),
    lambda lib: nn(lib).ConvTranspose2d(4, 2, 3, stride=2, padding=1, dilation=2),
    lambda lib: nn(lib).ConvTranspose3d(4, 2, 2, stride=(1, 2, 1), bias=False),
]
LAYER_INPUTS = {1: (2, 4, 8), 2: (2, 4, 5, 6), 3: (1, 4, 3, 4, 5)}


@pytest.mark.parametrize("make", LAYERS)
def test_layers_with_copied_weights_match_pytorch(make, device):
    ref, ours = make(torch).double(), make(tandem).double().to(device)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
           [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    ours.load_state_dict({k: to_tandem(v, device) for k, v in ref.state_dict().items()})
    x = inputs([LAYER_INPUTS[len(ref.kernel_size)]], 2)[0]
    want, got = ref(x), ours(to_tandem(x, device))
    close(got.detach(), want.detach())
    want.sum().backward()
    got.sum().backward()
    close(ours.weight.grad, ref.weight.grad, 1e-9, 1e-11)


def test_conv_transpose_output_size_picks_output_padding():
    ref, ours = torch.nn.ConvTranspose2d(2, 3, 3, stride=3).double(), tandem.nn.ConvTranspose2d(2, 3, 3, stride=3)
    ours.double().load_state_dict({k: to_tandem(v) for k, v in ref.state_dict().items()})
    x = inputs([(1, 2, 4, 4)], 1)[0]
    for size in ([12, 14], [1, 3, 13, 12], (14, 14)):
        close(ours(to_tandem(x), output_size=size).detach(), ref(x, output_size=size).detach())
    with pytest.raises(ValueError, match=r"^requested an output size of \[11, 11\], but valid sizes range from "
                                         r"\[12, 12\] to \[14, 14\] \(for an input of tandem.Size\(\[4, 4\]\)\)$"):
        ours(to_tandem(x), output_size=[11, 11])
    with pytest.raises(ValueError, match=r"^ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements "
                                         r"\(got 3\)$"):
        ours(to_tandem(x), output_size=[1, 10, 10])


def test_layer_init_bounds_follow_fan_in():
    for conv, fan_in in ((tandem.nn.Conv1d(4, 6, 5, groups=2), 10), (tandem.nn.ConvTranspose2d(4, 6, 3), 54),
                         (tandem.nn.Conv3d(2, 3, (1, 2, 3)), 12)):
        bound = 1 / fan_in ** 0.5
        assert max(abs(v) for v in conv.weight.flatten().tolist()) <= bound + 1e-7
        assert max(abs(v) for v in conv.bias.tolist()) <= bound + 1e-7


# ---- reprs and state_dict keys -------------------------------------------------------------------------------
REPRS = [
    lambda lib: nn(lib).Conv1d(2, 4, 3, padding="same", padding_mode="reflect"),
    lambda lib: nn(lib).Conv1d(2, 4, 3, stride=2, dilation=3, bias=False),
    lambda lib: nn(lib).Conv2d(2, 4, 3, padding="valid", groups=2),
    lambda lib: nn(lib).Conv3d(2, 4, (1, 2, 3), padding=1, padding_mode="circular"),
    lambda lib: nn(lib).ConvTranspose1d(4, 2, 3, stride=2, output_padding=1, groups=2),
    lambda lib: nn(lib).ConvTranspose2d(4, 2, 3, stride=2, padding=1, dilation=2, bias=False),
    lambda lib: nn(lib).ConvTranspose3d(2, 4, 2),
    lambda lib: nn(lib).Fold(4, 2),
    lambda lib: nn(lib).Unfold((2, 3), padding=1),
    lambda lib: nn(lib).MaxPool1d(2),
    lambda lib: nn(lib).MaxPool3d(2, 1, return_indices=True),
    lambda lib: nn(lib).AvgPool1d(3),
    lambda lib: nn(lib).AvgPool3d(3, 2, 1, divisor_override=2),
    lambda lib: nn(lib).LPPool1d(2, 3),
    lambda lib: nn(lib).LPPool3d(1.5, (1, 2, 2), 2),
    lambda lib: nn(lib).AdaptiveMaxPool1d(3),
    lambda lib: nn(lib).AdaptiveMaxPool2d((2, None)),
    lambda lib: nn(lib).AdaptiveMaxPool3d(2, return_indices=True),
    lambda lib: nn(lib).AdaptiveAvgPool1d(4),
    lambda lib: nn(lib).AdaptiveAvgPool3d((None, 2, 3)),
    lambda lib: nn(lib).Upsample(scale_factor=2),
    lambda lib: nn(lib).Upsample(size=(3, 4), mode="bilinear", align_corners=True),
    lambda lib: nn(lib).Upsample(scale_factor=(2, 3)),
    lambda lib: nn(lib).UpsamplingNearest2d(size=3),
    lambda lib: nn(lib).UpsamplingBilinear2d(scale_factor=2),
    lambda lib: nn(lib).LazyLinear(3),
    lambda lib: nn(lib).LazyConv1d(4, 3, stride=2),
    lambda lib: nn(lib).LazyConvTranspose2d(4, 3, bias=False),
]


@pytest.mark.parametrize("make", REPRS)
def test_module_repr_and_state_dict_match_pytorch(make):
    ours, ref = make(tandem), make(torch)
    assert repr(ours) == repr(ref)
    assert list(ours.state_dict()) == list(ref.state_dict())
    if not type(ref).__name__.startswith("Lazy"):
        for key, value in ref.state_dict().items():
            assert tuple(ours.state_dict()[key].shape) == tuple(value.shape), key


# ---- lazy layers ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make,shape", [
    (lambda lib: nn(lib).LazyLinear(3), (2, 5)),
    (lambda lib: nn(lib).LazyConv1d(4, 3, 1, 1, 1, 2), (2, 6, 7)),
    (lambda lib: nn(lib).LazyConv2d(4, 3, padding="same", bias=False), (3, 5, 6)),
    (lambda lib: nn(lib).LazyConv3d(2, 2), (1, 3, 3, 3, 3)),
    (lambda lib: nn(lib).LazyConvTranspose1d(4, 3, 2, 1, 1), (2, 6, 5)),
    (lambda lib: nn(lib).LazyBatchNorm1d(), (4, 3)),
    (lambda lib: nn(lib).LazyBatchNorm2d(affine=False), (2, 3, 2, 2)),
])
def test_lazy_layers_become_their_ordinary_class(make, shape, device):
    ref, ours = make(torch), make(tandem).to(device)
    x = inputs([shape], 4)[0]
    want, got = ref(x.float()), ours(to_tandem(x.float(), device))
    assert type(ours).__name__ == type(ref).__name__ and repr(ours) == repr(ref)
    assert tuple(got.shape) == tuple(want.shape) and got.device == tandem.device(device)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
           [(k, tuple(v.shape)) for k, v in ref.state_dict().items()]
    assert all(type(p) is tandem.nn.Parameter and p.device == tandem.device(device) for p in ours.parameters())
    ours.load_state_dict({k: to_tandem(v, device) for k, v in ref.state_dict().items()})
    close(ours(to_tandem(x.float(), device)).detach(), ref(x.float()).detach(), 1e-5, 1e-5)


def test_lazy_parameter_placeholders():
    m = tandem.nn.LazyLinear(3, dtype=tandem.float64)
    assert isinstance(m.weight, tandem.nn.UninitializedParameter) and repr(m.weight) == "<UninitializedParameter>"
    assert m.has_uninitialized_params() and m.weight.dtype == tandem.float64
    assert list(m.parameters()) == [m.weight, m.bias]
    m(tandem.ones(2, 4, dtype=tandem.float64))
    assert type(m) is tandem.nn.Linear and m.in_features == 4 and not m._forward_pre_hooks
    with pytest.raises(ValueError, match="^in_channels must be divisible by groups$"):
        tandem.nn.LazyConv1d(4, 3, groups=2)(tandem.ones(1, 3, 5))
    with pytest.raises(RuntimeError, match=r"^Expected 2D \(unbatched\) or 3D \(batched\) input to LazyConv1d, but "
                                           r"got input of size: tandem.Size\(\[5\]\)$"):
        tandem.nn.LazyConv1d(4, 3)(tandem.ones(5))


# ---- errors and warnings -------------------------------------------------------------------------------------
def X(lib, *shape):
    return lib.ones(*shape)


ERRORS = [
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 5, 5), X(lib, 6, 2, 3)),
    lambda lib: F(lib).conv1d(X(lib, 10), X(lib, 6, 2, 3)),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 2, 3)),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 2, 3), groups=3),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3, 3)),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), stride=2, padding="same"),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), padding="foo"),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 30)),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), stride=0),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), padding=-1),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), dilation=0),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), X(lib, 5)),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10), X(lib, 6, 4, 3), stride=(1, 1)),
    lambda lib: F(lib).conv1d(X(lib, 2, 4, 10).double(), X(lib, 6, 4, 3)),
    lambda lib: F(lib).conv2d(X(lib, 1, 4, 5, 5), X(lib, 4, 4, 3, 3), padding="full"),
    lambda lib: F(lib).conv3d(X(lib, 2, 4, 5, 5), X(lib, 6, 4, 3, 3, 3)),
    lambda lib: F(lib).conv3d(X(lib, 1, 4, 5, 5, 5), X(lib, 6, 4, 3, 3, 3), groups=0),
    lambda lib: F(lib).conv3d(X(lib, 1, 4, 2, 5, 5), X(lib, 6, 4, 3, 3, 3)),
    lambda lib: F(lib).conv3d(X(lib, 1, 4, 5, 5, 5), X(lib, 6, 4, 3, 3, 3), groups=8),
    lambda lib: F(lib).conv_transpose1d(X(lib, 1, 4, 5), X(lib, 4, 2, 3), stride=2, output_padding=2),
    lambda lib: F(lib).conv_transpose2d(X(lib, 1, 4, 5, 5), X(lib, 4, 2, 3, 3), output_padding=1),
    lambda lib: F(lib).conv_transpose3d(X(lib, 1, 4, 5, 5, 5), X(lib, 4, 2, 3, 3, 3), stride=2, output_padding=2),
    lambda lib: F(lib).conv_transpose2d(X(lib, 1, 4, 5, 5), X(lib, 3, 2, 3, 3)),
    lambda lib: F(lib).conv_transpose2d(X(lib, 1, 4, 5, 5), X(lib, 4, 2, 3, 3), groups=3),
    lambda lib: F(lib).conv_transpose1d(X(lib, 1, 4, 5), X(lib, 4, 2, 3), padding=5),
    lambda lib: F(lib).conv_transpose2d(X(lib, 1, 4, 5, 5), X(lib, 4, 2, 3, 3), padding=5),
    lambda lib: F(lib).conv_transpose2d(X(lib, 5, 5), X(lib, 4, 2, 3, 3)),
    lambda lib: F(lib).conv_transpose1d(X(lib, 1, 4, 5), X(lib, 4, 2, 3), padding="same"),
    lambda lib: F(lib).conv_transpose1d(X(lib, 1, 4, 5), X(lib, 4, 2, 3), X(lib, 3)),
    lambda lib: F(lib).conv_transpose1d(X(lib, 1, 4, 5), X(lib, 4, 2, 3), output_padding=-1),
    lambda lib: F(lib).conv_transpose2d(X(lib, 1, 4, 8, 8), X(lib, 4, 4, 3, 3), output_padding=(1, 1, 1), stride=2),
    lambda lib: nn(lib).Conv1d(4, 6, 3, groups=0),
    lambda lib: nn(lib).Conv1d(4, 6, 3, groups=4),
    lambda lib: nn(lib).Conv2d(4, 6, 3, groups=3),
    lambda lib: nn(lib).Conv2d(4, 6, 3, stride=2, padding="same"),
    lambda lib: nn(lib).ConvTranspose2d(4, 6, 3, padding_mode="reflect"),
    lambda lib: F(lib).unfold(X(lib, 2, 3, 4, 4, 4), 2),
    lambda lib: F(lib).unfold(X(lib, 1, 3, 4, 4), 0),
    lambda lib: F(lib).unfold(X(lib, 1, 3, 4, 4), 2, stride=0),
    lambda lib: F(lib).unfold(X(lib, 1, 3, 4, 4), 2, dilation=0),
    lambda lib: F(lib).unfold(X(lib, 1, 3, 4, 4), 2, padding=-1),
    lambda lib: F(lib).unfold(X(lib, 1, 3, 4, 4), 5),
    lambda lib: F(lib).unfold(X(lib, 1, 0, 4, 4), 2),
    lambda lib: F(lib).unfold(X(lib, 1, 3, 4, 4), (2, 2, 2)),
    lambda lib: F(lib).fold(X(lib, 1, 12, 9, 1), 4, 2),
    lambda lib: F(lib).fold(X(lib, 1, 13, 9), 4, 2),
    lambda lib: F(lib).fold(X(lib, 1, 12, 8), 4, 2),
    lambda lib: F(lib).fold(X(lib, 1, 12, 9), 4, 0),
    lambda lib: F(lib).fold(X(lib, 1, 12, 9), 1, 2),
    lambda lib: F(lib).max_pool1d(X(lib, 2, 3, 4, 4), 2),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), 0),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), 2, stride=0),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), 2, padding=2),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), 2, padding=-1),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), 2, dilation=0),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), 6),
    lambda lib: F(lib).max_pool1d(X(lib, 1, 3, 4), (2, 2)),
    lambda lib: F(lib).avg_pool1d(X(lib, 2, 3, 4, 4), 2),
    lambda lib: F(lib).avg_pool1d(X(lib, 1, 3, 4), 0),
    lambda lib: F(lib).avg_pool1d(X(lib, 1, 3, 4), 2, padding=2),
    lambda lib: F(lib).avg_pool1d(X(lib, 1, 3, 4), 6),
    lambda lib: F(lib).avg_pool1d(X(lib, 1, 3, 4), (2, 2)),
    lambda lib: F(lib).max_pool3d(X(lib, 3, 4, 4), 2),
    lambda lib: F(lib).max_pool3d(X(lib, 1, 3, 4, 4, 4), 0),
    lambda lib: F(lib).max_pool3d(X(lib, 1, 3, 4, 4, 4), 2, stride=0),
    lambda lib: F(lib).max_pool3d(X(lib, 1, 3, 4, 4, 4), 2, padding=2),
    lambda lib: F(lib).max_pool3d(X(lib, 1, 3, 4, 4, 4), 2, dilation=0),
    lambda lib: F(lib).max_pool3d(X(lib, 1, 3, 4, 4, 4), 6),
    lambda lib: F(lib).max_pool3d(X(lib, 1, 3, 4, 4, 4), (2, 2)),
    lambda lib: F(lib).avg_pool3d(X(lib, 3, 4, 4), 2),
    lambda lib: F(lib).avg_pool3d(X(lib, 1, 3, 4, 4, 4), 2, padding=2),
    lambda lib: F(lib).avg_pool3d(X(lib, 1, 3, 4, 4, 4), 6),
    lambda lib: F(lib).avg_pool3d(X(lib, 1, 3, 4, 4, 4), 2, divisor_override=0),
    lambda lib: F(lib).avg_pool3d(X(lib, 1, 3, 4, 4, 4), (2, 2)),
    lambda lib: F(lib).adaptive_avg_pool1d(X(lib, 2, 3, 4, 4), 2),
    lambda lib: F(lib).adaptive_avg_pool1d(X(lib, 2, 3, 4), (2, 2)),
    lambda lib: F(lib).adaptive_avg_pool3d(X(lib, 2, 3, 4), 2),
    lambda lib: F(lib).adaptive_avg_pool3d(X(lib, 2, 3, 4, 4, 4), (2, 2)),
    lambda lib: F(lib).adaptive_avg_pool3d(X(lib, 2, 0, 4, 4, 4), 2),
    lambda lib: F(lib).adaptive_avg_pool3d(X(lib, 1, 3, 4, 4, 4), -1),
    lambda lib: F(lib).adaptive_max_pool1d(X(lib, 2, 3, 4, 4), 2),
    lambda lib: F(lib).adaptive_max_pool1d(X(lib, 2, 3, 4), (2, 2)),
    lambda lib: F(lib).adaptive_max_pool2d(X(lib, 3, 4), 2),
    lambda lib: F(lib).adaptive_max_pool3d(X(lib, 3, 4, 4), 2),
    lambda lib: F(lib).adaptive_max_pool3d(X(lib, 1, 3, 4, 4, 4), (2, 2)),
    lambda lib: F(lib).adaptive_max_pool2d(X(lib, 1, 3, 0, 4), 2),
    lambda lib: F(lib).lp_pool2d(X(lib, 1, 3, 4, 4), 0, 2),
    lambda lib: nn(lib).LPPool1d(0, 2),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=0),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), scale_factor=0.1, mode="bilinear"),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4), scale_factor=-1.0),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4, 4), size=0, mode="trilinear"),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=(2, 2.5)),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=3, mode="foo"),
    lambda lib: F(lib).interpolate(X(lib, 2, 3), size=3),
    lambda lib: F(lib).interpolate(X(lib, 1, 0, 4, 4), size=3),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), scale_factor=(2, 3, 4)),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=(2, 3, 4)),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=(2, 3), recompute_scale_factor=True),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=(2, 3), scale_factor=2),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4)),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=3, align_corners=True),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4), size=3, mode="bilinear", antialias=True),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4), size=3, mode="bilinear"),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4), size=3, mode="trilinear"),
    lambda lib: F(lib).interpolate(X(lib, 1, 2, 4, 4, 4), size=3, mode="linear"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_pytorch(index):
    oracle.assert_same_error(ERRORS[index])


def test_layer_argument_errors_name_the_valid_choices():
    """PyTorch prints a set here, whose order varies between processes: compare the choices, not the order."""
    for make, prefix, choices in (
            (lambda lib: nn(lib).Conv2d(4, 6, 3, padding="full"), "Invalid padding string 'full', should be one of ",
             {"same", "valid"}),
            (lambda lib: nn(lib).Conv3d(4, 6, 3, padding_mode="mirror"), "padding_mode must be one of ",
             {"zeros", "reflect", "replicate", "circular"})):
        want, got = oracle.raised(lambda: make(torch)), oracle.raised(lambda: make(tandem))
        assert type(got) is type(want) is ValueError
        for message in (str(want), str(got)):
            assert message.startswith(prefix)
            assert set(message[len(prefix):].split("}")[0].strip("{").replace("'", "").split(", ")) == choices


def test_deprecated_upsample_functions_warn_as_pytorch():
    x = tandem.ones(1, 1, 2, 2)
    for name in ("upsample", "upsample_nearest", "upsample_bilinear"):
        with pytest.warns(UserWarning, match=rf"^`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                                             r"instead.$"):
            out = getattr(tandem.nn.functional, name)(x, scale_factor=2)
        assert tuple(out.shape) == (1, 1, 4, 4)


def test_lanczos_is_refused_with_a_hint():
    with pytest.raises(NotImplementedError, match="lanczos.*\nhint: "):
        tandem.nn.functional.interpolate(tandem.ones(1, 1, 4, 4), size=2, mode="lanczos", antialias=True)


@pytest.mark.parametrize("call", [
    lambda lib, x: F(lib).max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
    lambda lib, x: F(lib).max_pool2d(x, 2, stride=1, dilation=2),
    lambda lib, x: F(lib).max_pool2d(x[0], 2),
    lambda lib, x: F(lib).avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False, ceil_mode=True),
    lambda lib, x: F(lib).avg_pool2d(x, 2),
    lambda lib, x: F(lib).adaptive_avg_pool2d(x, (4, 3)),
])
def test_pooling_double_backward_matches_pytorch(call, device):
    """A 2-D pooling backward records its adjoint under create_graph (PyTorch's *BackwardBackward0 nodes), so
    gradients of gradients and tandem.func.hessian through pooling are PyTorch's."""
    x = inputs([(2, 3, 7, 6)], 9)[0]
    ref, mine = x.requires_grad_(), to_tandem(x.detach(), device).requires_grad_()
    (want,) = torch.autograd.grad(call(torch, ref).pow(2).sum(), ref, create_graph=True)
    (got,) = tandem.autograd.grad(call(tandem, mine).pow(2).sum(), mine, create_graph=True)
    assert got.grad_fn.name() == want.grad_fn.name()
    close(got.detach(), want.detach())
    close(tandem.autograd.grad((got * got.sin()).sum(), mine)[0],
          torch.autograd.grad((want * want.sin()).sum(), ref)[0])
