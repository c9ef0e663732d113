"""The torch.nn breadth of issue 12 against PyTorch on every device: BatchNorm3d and the lazy norms, Unflatten,
Bilinear, RReLU, MaxUnpool*, ChannelShuffle, CrossMapLRN2d, AdaptiveLogSoftmaxWithLoss, NLLLoss2d, Container,
ParameterList/ParameterDict, DataParallel, SyncBatchNorm (single process), gumbel_softmax, pdist, the deprecated
init aliases, nn.utils (weight_norm, spectral_norm, parametrize, parametrizations, fusion, skip_init,
stateless.functional_call, tandem.func), autograd.gradgradcheck and the tandem.cuda additions."""
import copy
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, raised, to_torch

TF, F = torch.nn.functional, tandem.nn.functional


def _load(dst, src, device):
    """dst (tandem module) takes src's (torch module) state, on `device`."""
    dst.load_state_dict({k: from_torch(v, "cpu") for k, v in src.state_dict().items()})
    return dst.to(device)


def _same_error(case):
    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert want is not None and isinstance(got, type(want)), (got, want)
    assert str(got).split("\nhint:")[0] == str(want).replace("torch.", "tandem."), (str(got), str(want))


def _warnings(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [(w.category, str(w.message)) for w in caught]


def _repr(m):
    return repr(m).replace("torch.", "tandem.")


# ---- layers -------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make,shape", [
    (lambda lib: lib.nn.Bilinear(3, 4, 5), None),
    (lambda lib: lib.nn.Bilinear(3, 4, 5, bias=False), None),
    (lambda lib: lib.nn.BatchNorm3d(3), (2, 3, 2, 3, 2)),
    (lambda lib: lib.nn.BatchNorm3d(3, momentum=None, affine=False), (2, 3, 2, 3, 2)),
    (lambda lib: lib.nn.Unflatten(1, (2, 3)), (4, 6, 2)),
    (lambda lib: lib.nn.ChannelShuffle(3), (2, 6, 2, 2)),
    (lambda lib: lib.nn.CrossMapLRN2d(3, 0.1, 0.75, 1.5), (2, 5, 3, 3)),
    (lambda lib: lib.nn.CrossMapLRN2d(4), (1, 6, 2, 2)),
    (lambda lib: lib.nn.RReLU(0.1, 0.3), (3, 4)),
])
def test_layer_matches_pytorch(device, make, shape):
    gen = torch.Generator().manual_seed(0)
    ref = make(torch).double()
    mod = _load(make(tandem).double(), ref, device)
    assert _repr(mod) == _repr(ref)
    assert list(mod.state_dict()) == list(ref.state_dict())
    if shape is None:  # Bilinear
        inputs = [torch.randn(6, 3, dtype=torch.float64, generator=gen), torch.randn(6, 4, dtype=torch.float64,
                                                                                      generator=gen)]
    else:
        inputs = [torch.randn(shape, dtype=torch.float64, generator=gen)]
    ref.eval() if isinstance(ref, torch.nn.RReLU) else ref.train()
    mod.eval() if isinstance(ref, torch.nn.RReLU) else mod.train()
    inputs = [x.requires_grad_() for x in inputs]
    tin = [from_torch(x.detach(), device).requires_grad_() for x in inputs]
    want, got = ref(*inputs), mod(*tin)
    assert_same(got, want.detach(), device=tandem.device(device))
    w = torch.randn(want.shape, dtype=torch.float64, generator=gen)
    (want * w).sum().backward()
    (got * from_torch(w, device)).sum().backward()
    for a, b in zip(tin, inputs):
        assert_same(a.grad, b.grad)
    for (name, p), (_, q) in zip(mod.named_parameters(), ref.named_parameters()):
        assert_same(p.grad, q.grad)
    for (name, b), (_, c) in zip(mod.named_buffers(), ref.named_buffers()):
        assert_same(b, c)


def test_rrelu_training(device):
    x = tandem.linspace(-2, 2, 41, dtype=tandem.float64, device=device).requires_grad_()
    m = tandem.nn.RReLU(0.1, 0.3)
    y = m(x)
    neg = x.detach() < 0
    slope = (y.detach()[neg] / x.detach()[neg])
    assert bool(((slope >= 0.1) & (slope <= 0.3)).all()) and float(slope.std()) > 0  # random per element
    assert bool((y.detach()[~neg] == x.detach()[~neg]).all())
    y.sum().backward()
    assert_same(x.grad[neg], to_torch(slope))  # the gradient is the sampled slope
    z = x.detach().clone()
    assert F.rrelu_(z, 0.2, 0.2, training=True) is z
    assert_same(z, to_torch(F.leaky_relu(x.detach(), 0.2)))


def test_lazy_norms(device):
    for name, shape in (("LazyBatchNorm3d", (2, 3, 2, 2, 2)), ("LazyInstanceNorm1d", (2, 3, 5)),
                        ("LazyInstanceNorm2d", (2, 3, 4, 4)), ("LazyInstanceNorm3d", (2, 3, 2, 3, 2))):
        ref, mod = getattr(torch.nn, name)(), getattr(tandem.nn, name)(device=device)
        assert _repr(mod) == _repr(ref)
        x = torch.randn(shape, dtype=torch.float32)
        want, got = ref(x), mod(from_torch(x, device))
        assert type(mod).__name__ == type(ref).__name__  # became the ordinary class
        assert _repr(mod) == _repr(ref)
        assert_same(got, want.detach(), rtol=1e-5, atol=1e-5)
        assert list(mod.state_dict()) == list(ref.state_dict())


@pytest.mark.parametrize("n,pool", [(1, dict(kernel_size=2)), (2, dict(kernel_size=2)),
                                    (2, dict(kernel_size=3, stride=2, padding=1)), (3, dict(kernel_size=2))])
def test_max_unpool(device, n, pool):
    gen = torch.Generator().manual_seed(n)
    shape = {1: (2, 3, 8), 2: (2, 3, 7, 6), 3: (1, 2, 4, 4, 4)}[n]
    x = torch.randn(shape, dtype=torch.float64, generator=gen)
    out, idx = getattr(TF, f"max_pool{n}d")(x, return_indices=True, **pool)
    out.requires_grad_()
    ref = getattr(torch.nn, f"MaxUnpool{n}d")(**pool)
    mod = getattr(tandem.nn, f"MaxUnpool{n}d")(**pool)
    assert repr(mod) == repr(ref)
    kwargs = {"output_size": x.shape} if n == 2 else {}
    want = ref(out, idx, **kwargs)
    tout = from_torch(out.detach(), device).requires_grad_()
    got = mod(tout, from_torch(idx, device), **kwargs)
    assert_same(got, want.detach())
    w = torch.randn(want.shape, dtype=torch.float64, generator=gen)
    (want * w).sum().backward()
    (got * from_torch(w, device)).sum().backward()
    assert_same(tout.grad, out.grad)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.max_unpool2d(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int64), 2,
                                               output_size=(9, 9)),
    lambda lib: lib.nn.functional.max_unpool2d(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 2, 2, dtype=lib.int64), 2,
                                               output_size=(4, 4, 4)),
    lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(2, 5, 2, 2), 2),
    lambda lib: lib.nn.Unflatten(1, [2, 2.0]),
    lambda lib: lib.nn.Unflatten(1, 4),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 4]),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(lib.zeros(2, 8), lib.tensor([1, 12])),
    lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4])(lib.zeros(3, 8), lib.tensor([1, 2])),
    lambda lib: lib.nn.CrossMapLRN2d(3)(lib.zeros(2, 3, 4)),
    lambda lib: lib.nn.BatchNorm3d(3)(lib.zeros(2, 3, 4, 4)),
    lambda lib: lib.nn.ParameterList([lib.zeros(1)])[3],
    lambda lib: lib.nn.ParameterList().extend(5),
    lambda lib: lib.nn.ParameterDict()[1],
    lambda lib: lib.nn.ParameterList()(),
    lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.Linear(1, 1)),
    lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.Linear(1, 1)),
    lambda lib: lib.nn.utils.parametrize.remove_parametrizations(lib.nn.Linear(1, 1), "weight"),
    lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), orthogonal_map="foo"),
    lambda lib: lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(2, 2), "bias"),
    lambda lib: lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(2, 2), dim=3),
    lambda lib: lib.nn.utils.fuse_conv_bn_eval(lib.nn.Conv2d(1, 1, 1), lib.nn.BatchNorm2d(1)),
    lambda lib: lib.nn.utils.fuse_linear_bn_eval(lib.nn.Linear(2, 3).eval(), lib.nn.BatchNorm1d(2).eval()),
    lambda lib: lib.nn.utils.skip_init(int),
    lambda lib: lib.func.functional_call(lib.nn.Linear(2, 2), {"weight": lib.ones(2, 2)}, (lib.ones(1, 2),),
                                         strict=True),
])
def test_errors(case):
    _same_error(case)


def test_adaptive_log_softmax(device):
    torch.manual_seed(0)
    ref = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True).double()
    mod = _load(tandem.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True).double(), ref,
                device)
    assert _repr(mod) == _repr(ref) and list(mod.state_dict()) == list(ref.state_dict())
    x = torch.randn(6, 8, dtype=torch.float64)
    t = torch.tensor([0, 5, 9, 3, 7, 8])
    want, got = ref(x, t), mod(from_torch(x, device), from_torch(t, device))
    assert_same(got.output, want.output.detach())
    assert_same(got.loss, want.loss.detach())
    want.loss.backward()
    got.loss.backward()
    for (_, p), (_, q) in zip(mod.named_parameters(), ref.named_parameters()):
        assert_same(p.grad, q.grad)
    assert_same(mod.log_prob(from_torch(x, device)), ref.log_prob(x).detach())
    assert_same(mod.predict(from_torch(x, device)), ref.predict(x))
    single = mod(from_torch(x[0], device), from_torch(t[0], device))
    assert_same(single.output, ref(x[0], t[0]).output.detach())


def test_deprecated_classes():
    for lib in (torch, tandem):
        _, caught = _warnings(lambda: lib.nn.NLLLoss2d(ignore_index=1))
        assert caught[0][0] is FutureWarning
    assert _warnings(lambda: tandem.nn.NLLLoss2d())[1] == _warnings(lambda: torch.nn.NLLLoss2d())[1]
    assert _warnings(lambda: tandem.nn.Container())[1] == _warnings(lambda: torch.nn.Container())[1]
    c, _ = _warnings(lambda: tandem.nn.Container(a=tandem.nn.Linear(1, 1)))
    assert list(c.state_dict()) == ["a.weight", "a.bias"]
    loss = tandem.nn.NLLLoss2d(size_average=False)
    assert loss.reduction == "sum"


# ---- containers ---------------------------------------------------------------------------------------------------
def test_parameter_list(device):
    def build(lib):
        return lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2, 3)), lib.zeros(3), 5,
                                     lib.nn.Parameter(lib.ones(1, dtype=lib.float64))])

    ref, mod = build(torch), build(tandem)
    assert _repr(mod) == _repr(ref)
    assert list(mod.state_dict()) == list(ref.state_dict()) == ["0", "1", "3"]
    assert isinstance(mod[1], tandem.nn.Parameter) and mod[2] == 5 and mod[-1].dtype == tandem.float64
    assert len(mod) == 4 and len(mod[1:3]) == 2 and isinstance(mod[1:3], tandem.nn.ParameterList)
    mod.append(tandem.ones(4))
    mod += [tandem.ones(5)]
    mod[0] = tandem.zeros(2, 3)
    assert isinstance(mod[0], tandem.nn.Parameter) and len(mod) == 6 and len(list(mod.parameters())) == 5
    mod.to(device)
    assert all(p.device == tandem.device(device) for p in mod.parameters())
    if device != "cpu":
        assert f"of size 2x3 ({device})]" in repr(mod)

    class Net(tandem.nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = tandem.nn.ParameterList([tandem.nn.Parameter(tandem.ones(2))])

    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ps = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2))])

    assert _repr(Net()) == _repr(TNet())[1:]  # "TNet(" -> "Net("
    assert list(Net().state_dict()) == ["ps.0"]
    opt = tandem.optim.SGD(Net().parameters(), lr=0.1)
    assert len(opt.param_groups[0]["params"]) == 1


def test_parameter_dict(device):
    def build(lib):
        return lib.nn.ParameterDict({"b": lib.nn.Parameter(lib.ones(2)), "a": lib.zeros(3), "c": "x"})

    ref, mod = build(torch), build(tandem)
    assert _repr(mod) == _repr(ref)
    assert list(mod.state_dict()) == list(ref.state_dict())
    assert list(mod.keys()) == list(ref.keys()) and "a" in mod and "z" not in mod
    assert isinstance(mod["a"], tandem.nn.Parameter) and mod.get("z", 3) == 3
    for lib, m in ((torch, ref), (tandem, mod)):
        m.update([("d", lib.ones(1))])
        m["e"] = lib.ones(2)
        m.setdefault("f", lib.ones(3))
        del m["e"]
    assert list(mod.keys()) == list(ref.keys())
    assert mod.pop("d").shape == (1,) and ref.pop("d").shape == (1,)
    assert mod.popitem()[0] == ref.popitem()[0]
    assert list(reversed(mod)) == list(reversed(ref))
    merged = mod | tandem.nn.ParameterDict({"z": tandem.ones(1)})
    assert list(merged.keys()) == list(mod.keys()) + ["z"]
    assert list(mod.copy().keys()) == list(mod.keys())
    mod.to(device)
    assert all(p.device == tandem.device(device) for p in mod.parameters())
    sd = mod.state_dict()
    fresh = tandem.nn.ParameterDict({"a": tandem.zeros(3), "b": tandem.zeros(2)}).to(device)
    fresh.load_state_dict(sd)
    assert float(fresh["b"].sum()) == 2.0
    mod.clear()
    assert len(mod) == 0 and list(mod.parameters()) == []


# ---- DataParallel and SyncBatchNorm ---------------------------------------------------------------------------------
def test_data_parallel(device):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2)).double()
    inner = _load(tandem.nn.Sequential(tandem.nn.Linear(4, 3), tandem.nn.ReLU(), tandem.nn.Linear(3, 2)).double(),
                  ref, "cpu")
    if tandem.cuda.is_available():
        inner.to("cuda:0")
    dp = tandem.nn.DataParallel(inner)
    assert dp.module is inner
    assert list(dp.state_dict()) == ["module." + k for k in ref.state_dict()]
    assert _repr(dp) == _repr(torch.nn.DataParallel(ref))
    x = torch.randn(5, 4, dtype=torch.float64)
    want = ref(x)
    got = dp(from_torch(x, device))
    assert_same(got, want.detach())
    if tandem.cuda.is_available():
        assert got.device == tandem.device("cuda:0")  # gathered on output_device = device_ids[0]
    want.square().sum().backward()
    got.square().sum().backward()  # the chunks that ran on other devices send their gradients back
    for (_, p), (_, q) in zip(inner.named_parameters(), ref.named_parameters()):
        assert_same(p.grad, q.grad)
    if tandem.cuda.device_count() > 1:
        with pytest.raises(RuntimeError, match=r"module must have its parameters and buffers on device cuda:1 "
                                               r"\(device_ids\[0\]\) but found one of them on device: cuda:0"):
            tandem.nn.DataParallel(inner, device_ids=[1, 0])(from_torch(x))
        single = tandem.nn.DataParallel(copy.deepcopy(inner), device_ids=[1])  # moves the module there
        assert next(single.parameters()).device == tandem.device("cuda:1")
        assert_same(single(from_torch(x)), want.detach())


def test_sync_batch_norm_single_process(device):
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 1), torch.nn.BatchNorm2d(3), torch.nn.ReLU()).double()
    mod = _load(tandem.nn.Sequential(tandem.nn.Conv2d(2, 3, 1), tandem.nn.BatchNorm2d(3), tandem.nn.ReLU()).double(),
                ref, device)
    sref = torch.nn.SyncBatchNorm.convert_sync_batchnorm(ref)
    smod = tandem.nn.SyncBatchNorm.convert_sync_batchnorm(mod)
    assert type(smod[1]).__name__ == "SyncBatchNorm" and _repr(smod) == _repr(sref)
    assert smod[1].weight is mod[1].weight  # shares the converted layer's tensors, as in PyTorch
    assert list(smod.state_dict()) == list(sref.state_dict())
    x = torch.randn(4, 2, 3, 3, dtype=torch.float64)
    assert_same(smod(from_torch(x, device)), sref(x).detach())
    assert_same(smod[1].running_var, sref[1].running_var)
    smod.eval()
    sref.eval()
    assert_same(smod(from_torch(x, device)), sref(x).detach())
    bn = tandem.nn.SyncBatchNorm(3).to(device)
    assert_same(bn(from_torch(x[:, :1].expand(4, 3, 3, 3).contiguous().float(), device)),
                torch.nn.BatchNorm2d(3)(x[:, :1].expand(4, 3, 3, 3).float()).detach(), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        bn(tandem.zeros(3, device=device))


# ---- functional -----------------------------------------------------------------------------------------------------
def test_gumbel_softmax(device):
    tandem.manual_seed(0)
    logits = tandem.tensor([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]], dtype=tandem.float64, device=device)
    logits.requires_grad_()
    soft = F.gumbel_softmax(logits, tau=0.5)
    assert_same(soft.sum(-1), torch.ones(2, dtype=torch.float64))
    hard = F.gumbel_softmax(logits, hard=True, dim=-1)
    assert sorted(hard.detach().reshape(-1).tolist()) == [0, 0, 0, 0, 1, 1]
    (hard * tandem.tensor([1.0, 2.0, 3.0], dtype=tandem.float64, device=device)).sum().backward()
    assert logits.grad is not None and float(logits.grad.abs().sum()) > 0  # straight-through: the soft gradient
    # Draws follow Gumbel(0, 1): with a zero temperature limit the argmax frequencies follow softmax(logits).
    many = F.gumbel_softmax(tandem.log(tandem.tensor([0.2, 0.3, 0.5], device=device)).expand(20000, 3), hard=True)
    freq = many.mean(0).tolist()
    assert all(abs(f - p) < 0.02 for f, p in zip(freq, (0.2, 0.3, 0.5)))
    _, caught = _warnings(lambda: F.gumbel_softmax(logits, eps=1e-5))
    assert caught == _warnings(lambda: TF.gumbel_softmax(torch.zeros(2), eps=1e-5))[1]


def test_pdist_bilinear_channel_shuffle(device):
    x = torch.randn(5, 3, dtype=torch.float64)
    for p in (1.0, 2.0, 3.0):
        assert_same(F.pdist(from_torch(x, device), p), TF.pdist(x, p))
    a, b, w, bias = (torch.randn(2, 4, 3, dtype=torch.float64), torch.randn(2, 4, 2, dtype=torch.float64),
                     torch.randn(5, 3, 2, dtype=torch.float64), torch.randn(5, dtype=torch.float64))
    assert_same(F.bilinear(*(from_torch(t, device) for t in (a, b, w, bias))), TF.bilinear(a, b, w, bias))
    y = torch.arange(24.0).reshape(1, 6, 2, 2)
    assert_same(F.channel_shuffle(from_torch(y, device), 2), TF.channel_shuffle(y, 2))
    assert_same(F.native_channel_shuffle(from_torch(y, device), 3), torch.nn.ChannelShuffle(3)(y))


# ---- init -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,args", [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("eye", ()),
                                       ("xavier_uniform", ()), ("xavier_normal", ()), ("kaiming_uniform", ()),
                                       ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,))])
def test_deprecated_init_aliases(name, args):
    t = tandem.zeros(4, 4)
    result, caught = _warnings(lambda: getattr(tandem.nn.init, name)(t, *args))
    _, want = _warnings(lambda: getattr(torch.nn.init, name)(torch.zeros(4, 4), *args))
    assert caught == want and result is t
    assert getattr(tandem.nn.init, name).__name__ == name
    d = tandem.zeros(2, 2, 3)
    _, caught = _warnings(lambda: tandem.nn.init.dirac(d))
    assert caught == _warnings(lambda: torch.nn.init.dirac(torch.zeros(2, 2, 3)))[1]
    assert_same(d, torch.nn.init.dirac_(torch.zeros(2, 2, 3)))


# ---- nn.utils -------------------------------------------------------------------------------------------------------
def test_weight_norm_hooks(device):
    torch.manual_seed(0)
    x = torch.randn(5, 3, dtype=torch.float64)
    for dim in (0, 1, None):
        ref = torch.nn.Linear(3, 4).double()
        mod = _load(tandem.nn.Linear(3, 4).double(), ref, device)
        _, want_w = _warnings(lambda: torch.nn.utils.weight_norm(ref, dim=dim))
        _, got_w = _warnings(lambda: tandem.nn.utils.weight_norm(mod, dim=dim))
        assert got_w == want_w
        assert list(mod.state_dict()) == list(ref.state_dict()) == ["bias", "weight_g", "weight_v"]
        assert_same(mod.weight_g, ref.weight_g.detach())
        want, got = ref(x), mod(from_torch(x, device))
        assert_same(got, want.detach())
        want.square().sum().backward()
        got.square().sum().backward()
        assert_same(mod.weight_g.grad, ref.weight_g.grad)
        assert_same(mod.weight_v.grad, ref.weight_v.grad)
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
            tandem.nn.utils.weight_norm(mod)
        tandem.nn.utils.remove_weight_norm(mod)
        torch.nn.utils.remove_weight_norm(ref)
        assert list(mod.state_dict()) == ["bias", "weight"]
        assert_same(mod.weight, ref.weight.detach())


def test_spectral_norm_hooks(device):
    torch.manual_seed(0)
    x = torch.randn(5, 3, dtype=torch.float64)
    ref = torch.nn.utils.spectral_norm(torch.nn.Linear(3, 4).double())
    mod = tandem.nn.utils.spectral_norm(tandem.nn.Linear(3, 4).double())
    assert list(mod.state_dict()) == list(ref.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    _load(mod, ref, device)
    for _ in range(3):  # power iteration updates u and v in training mode
        want, got = ref(x), mod(from_torch(x, device))
        assert_same(got, want.detach())
        assert_same(mod.weight_u, ref.weight_u)
    want.sum().backward()
    got.sum().backward()
    assert_same(mod.weight_orig.grad, ref.weight_orig.grad)
    ref.eval()
    mod.eval()
    u = to_torch(mod.weight_u)
    assert_same(mod(from_torch(x, device)), ref(x).detach())
    assert_same(mod.weight_u, u)  # no power iteration in eval mode
    tandem.nn.utils.remove_spectral_norm(mod)
    torch.nn.utils.remove_spectral_norm(ref)
    assert list(mod.state_dict()) == ["bias", "weight"]
    assert_same(mod.weight, ref.weight.detach())
    conv = tandem.nn.utils.spectral_norm(tandem.nn.ConvTranspose2d(2, 3, 2))
    assert tuple(conv.weight_u.shape) == (3,)  # dim=1 for transposed convolutions


class _Symmetric(torch.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


class _TSymmetric(tandem.nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


def test_parametrize(device):
    P, TP = tandem.nn.utils.parametrize, torch.nn.utils.parametrize
    torch.manual_seed(0)
    ref = torch.nn.Linear(3, 3).double()
    mod = _load(tandem.nn.Linear(3, 3).double(), ref, device)
    weight = mod.weight
    TP.register_parametrization(ref, "weight", _Symmetric())
    P.register_parametrization(mod, "weight", _TSymmetric())
    assert type(mod).__name__ == "ParametrizedLinear" and isinstance(mod, tandem.nn.Linear)
    assert P.is_parametrized(mod) and P.is_parametrized(mod, "weight") and not P.is_parametrized(mod, "bias")
    assert P.type_before_parametrizations(mod) is tandem.nn.Linear
    assert list(mod.state_dict()) == list(ref.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert mod.parametrizations.weight.original is weight  # the original Parameter keeps its identity
    assert _repr(mod).replace("_TSymmetric", "_Symmetric") == _repr(ref)
    x = torch.randn(4, 3, dtype=torch.float64)
    want, got = ref(x), mod(from_torch(x, device))
    assert_same(got, want.detach())
    want.sum().backward()
    got.sum().backward()
    assert_same(mod.parametrizations.weight.original.grad, ref.parametrizations.weight.original.grad)
    with P.cached():
        assert mod.weight is mod.weight
    assert mod.weight is not mod.weight
    # Assigning goes through right_inverse.
    mod.weight = tandem.eye(3, dtype=tandem.float64, device=device) * 2
    assert_same(mod.weight, torch.eye(3, dtype=torch.float64) * 2)
    class FirstRow(tandem.nn.Module):
        def forward(self, X):
            return X[:1]

    with pytest.raises(ValueError, match="Registering a parametrization may not change the shape of the tensor"):
        P.register_parametrization(tandem.nn.Linear(3, 2), "weight", FirstRow())
    P.remove_parametrizations(mod, "weight")
    assert type(mod) is tandem.nn.Linear and list(mod.state_dict()) == ["bias", "weight"]
    assert_same(mod.weight, torch.eye(3, dtype=torch.float64) * 2)
    m2 = P.register_parametrization(tandem.nn.Linear(3, 3), "weight", _TSymmetric())
    P.remove_parametrizations(m2, "weight", leave_parametrized=False)
    assert isinstance(m2.weight, tandem.nn.Parameter)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm(device, dim):
    torch.manual_seed(1)
    ref = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 4).double(), dim=dim)
    mod = tandem.nn.utils.parametrizations.weight_norm(tandem.nn.Linear(3, 4).double(), dim=dim)
    assert list(mod.state_dict()) == list(ref.state_dict()) == [
        "bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    _load(mod, ref, device)
    x = torch.randn(5, 3, dtype=torch.float64)
    want, got = ref(x), mod(from_torch(x, device))
    assert_same(got, want.detach())
    want.square().sum().backward()
    got.square().sum().backward()
    for i in (0, 1):
        assert_same(getattr(mod.parametrizations.weight, f"original{i}").grad,
                    getattr(ref.parametrizations.weight, f"original{i}").grad)


def test_parametrizations_spectral_norm(device):
    torch.manual_seed(2)
    ref = torch.nn.utils.parametrizations.spectral_norm(torch.nn.Conv2d(2, 3, 2).double())
    mod = tandem.nn.utils.parametrizations.spectral_norm(tandem.nn.Conv2d(2, 3, 2).double())
    assert list(mod.state_dict()) == list(ref.state_dict()) == [
        "bias", "parametrizations.weight.original", "parametrizations.weight.0._u", "parametrizations.weight.0._v"]
    _load(mod, ref, device)
    x = torch.randn(2, 2, 4, 4, dtype=torch.float64)
    for _ in range(2):
        want, got = ref(x), mod(from_torch(x, device))
        assert_same(got, want.detach())
    want.sum().backward()
    got.sum().backward()
    assert_same(mod.parametrizations.weight.original.grad, ref.parametrizations.weight.original.grad)


@pytest.mark.parametrize("orth_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_parametrizations_orthogonal(device, orth_map, shape):
    torch.manual_seed(3)
    ref = torch.nn.Linear(shape[1], shape[0]).double()
    mod = tandem.nn.Linear(shape[1], shape[0]).double()
    torch.nn.utils.parametrizations.orthogonal(ref, orthogonal_map=orth_map)
    tandem.nn.utils.parametrizations.orthogonal(mod, orthogonal_map=orth_map)
    assert list(mod.state_dict()) == list(ref.state_dict())
    with torch.no_grad():  # move away from the identity so that the map itself is exercised
        # off the diagonal only: the householder map reads the diagonal's signs (X.diagonal().int())
        ref.parametrizations.weight.original.add_(0.1 * torch.randn(shape, dtype=torch.float64)
                                                  * (1 - torch.eye(*shape, dtype=torch.float64)))
    _load(mod, ref, device)
    w = mod.weight
    k = min(shape)
    gram = w @ w.mT if shape[0] < shape[1] else w.mT @ w
    assert_same(gram, torch.eye(k, dtype=torch.float64), atol=1e-10, rtol=0)
    x = torch.randn(5, shape[1], dtype=torch.float64)
    want, got = ref(x), mod(from_torch(x, device))
    assert_same(got, want.detach(), atol=1e-10, rtol=1e-10)
    want.sum().backward()
    got.sum().backward()
    assert_same(mod.parametrizations.weight.original.grad, ref.parametrizations.weight.original.grad, atol=1e-10,
                rtol=1e-10)


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3)])
def test_parametrizations_orthogonal_householder_without_trivialization(device, shape):
    # right_inverse through geqrf: the stored original and the weight are PyTorch's.
    torch.manual_seed(5)
    ref = torch.nn.Linear(shape[1], shape[0]).double()
    mod = _load(tandem.nn.Linear(shape[1], shape[0]).double(), ref, device)
    torch.nn.utils.parametrizations.orthogonal(ref, orthogonal_map="householder", use_trivialization=False)
    tandem.nn.utils.parametrizations.orthogonal(mod, orthogonal_map="householder", use_trivialization=False)
    assert list(mod.state_dict()) == list(ref.state_dict())
    assert_same(mod.parametrizations.weight.original, ref.parametrizations.weight.original.detach(), atol=1e-12,
                rtol=1e-12)
    assert_same(mod.weight, ref.weight.detach(), atol=1e-12, rtol=1e-12)


def test_fusion(device):
    torch.manual_seed(4)
    conv, bn = torch.nn.Conv2d(2, 3, 3).double().eval(), torch.nn.BatchNorm2d(3).double().eval()
    bn.running_mean.uniform_(-1, 1)
    bn.running_var.uniform_(0.5, 2)
    bn.weight.data.uniform_(0.5, 2)
    tconv = _load(tandem.nn.Conv2d(2, 3, 3).double(), conv, device).eval()
    tbn = _load(tandem.nn.BatchNorm2d(3).double(), bn, device).eval()
    fused = tandem.nn.utils.fuse_conv_bn_eval(tconv, tbn)
    want = torch.nn.utils.fuse_conv_bn_eval(conv, bn)
    assert_same(fused.weight, want.weight.detach())
    assert_same(fused.bias, want.bias.detach())
    assert fused is not tconv and isinstance(fused.weight, tandem.nn.Parameter)
    x = torch.randn(1, 2, 5, 5, dtype=torch.float64)
    assert_same(fused(from_torch(x, device)), bn(conv(x)).detach())
    lin, bn1 = torch.nn.Linear(3, 4).double().eval(), torch.nn.BatchNorm1d(4).double().eval()
    bn1.running_mean.uniform_(-1, 1)
    tlin = _load(tandem.nn.Linear(3, 4).double(), lin, device).eval()
    tbn1 = _load(tandem.nn.BatchNorm1d(4).double(), bn1, device).eval()
    f2 = tandem.nn.utils.fuse_linear_bn_eval(tlin, tbn1)
    assert_same(f2.weight, torch.nn.utils.fuse_linear_bn_eval(lin, bn1).weight.detach())
    # transpose=True: the weight laid out as a transposed convolution's (in, out, kh, kw)
    wt, bt = tandem.nn.utils.fuse_conv_bn_weights(tconv.weight.transpose(0, 1), None, tbn.running_mean,
                                                  tbn.running_var, 1e-5, None, None, transpose=True)
    ww, bw = torch.nn.utils.fuse_conv_bn_weights(conv.weight.transpose(0, 1), None, bn.running_mean,
                                                 bn.running_var, 1e-5, None, None, transpose=True)
    assert_same(wt, ww.detach())
    assert_same(bt, bw.detach())
    assert bt.requires_grad == bw.requires_grad


def test_skip_init(device):
    m = tandem.nn.utils.skip_init(tandem.nn.Linear, 6, 1, device=device)
    assert isinstance(m, tandem.nn.Linear) and m.weight.shape == (1, 6) and m.weight.device == tandem.device(device)


def test_functional_call(device):
    torch.manual_seed(5)
    ref = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4)).double()
    mod = _load(tandem.nn.Sequential(tandem.nn.Linear(3, 4), tandem.nn.BatchNorm1d(4)).double(), ref, device)
    x = torch.randn(5, 3, dtype=torch.float64)
    w = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    tw = from_torch(w.detach(), device).requires_grad_()
    want = torch.func.functional_call(ref, {"0.weight": w}, (x,))
    got = tandem.func.functional_call(mod, {"0.weight": tw}, (from_torch(x, device),))
    assert_same(got, want.detach())
    want.sum().backward()
    got.sum().backward()
    assert_same(tw.grad, w.grad)
    assert mod[0].weight.grad is None  # the module's own weight was not used ...
    assert isinstance(mod[0].weight, tandem.nn.Parameter)  # ... and is back in place
    got2, got_warn = _warnings(lambda: tandem.nn.utils.stateless.functional_call(mod, {"0.weight": tw,
        "0.bias": tandem.zeros(4, dtype=tandem.float64, device=device)}, from_torch(x, device)))
    want2, want_warn = _warnings(lambda: torch.nn.utils.stateless.functional_call(
        ref, {"0.weight": w, "0.bias": torch.zeros(4, dtype=torch.float64)}, x))
    assert got_warn == want_warn
    assert_same(got2, want2.detach())
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        tandem.func.functional_call(mod, ({"0.weight": tw}, {"0.weight": tw}), (from_torch(x, device),))


# ---- autograd and cuda ----------------------------------------------------------------------------------------------
def test_gradgradcheck(device):
    x = tandem.tensor([0.3, -0.5, 0.8], dtype=tandem.float64, device=device, requires_grad=True)
    w = tandem.tensor([[0.2, 0.1, -0.3], [0.5, -0.2, 0.4], [0.1, 0.3, 0.2]], dtype=tandem.float64, device=device,
                      requires_grad=True)
    assert tandem.autograd.gradgradcheck(lambda a, b: (a.tanh() @ b).sin(), (x, w))
    g = tandem.tensor([[[[0.3, -0.2], [0.5, 0.55]]]], dtype=tandem.float64, device=device, requires_grad=True)
    img = tandem.tensor([[[[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]]]], dtype=tandem.float64, device=device,
                        requires_grad=True)
    assert tandem.autograd.gradgradcheck(lambda a, b: F.grid_sample(a, b, align_corners=False), (img, g))

    class WrongDoubleBackward(tandem.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, grad):
            (a,) = ctx.saved_tensors
            return grad * 2 * a.detach()  # first derivative right, second derivative lost

    assert tandem.autograd.gradcheck(WrongDoubleBackward.apply, (x,))
    assert not tandem.autograd.gradgradcheck(WrongDoubleBackward.apply, (x,), raise_exception=False)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        tandem.autograd.gradgradcheck(WrongDoubleBackward.apply, (x,))


def test_cuda_additions():
    c = tandem.cuda
    if not c.is_available():
        assert not c.is_bf16_supported() and not c.is_initialized() and c.memory_stats_as_nested_dict() == {}
        with pytest.raises(RuntimeError):
            c.init()
        return
    c.init()
    assert c.is_initialized() and c.is_bf16_supported()
    major, minor = c.get_device_capability(0)
    props = c.get_device_properties(0)
    assert (major, minor) == (props.major, props.minor)
    nested = c.memory_stats_as_nested_dict(0)
    assert nested["allocated_bytes"]["all"]["current"] == c.memory_stats(0)["allocated_bytes.all.current"]
    for name, new in (("memory_cached", "memory_reserved"), ("max_memory_cached", "max_memory_reserved")):
        value, caught = _warnings(lambda: getattr(c, name)(0))
        assert value == getattr(c, new)(0)
        assert caught == [(FutureWarning, f"`torch.cuda.{name}` has been renamed to `torch.cuda.{new}`")]
    for name in ("reset_max_memory_allocated", "reset_max_memory_cached"):
        _, caught = _warnings(lambda: getattr(c, name)(0))
        assert caught[0][0] is FutureWarning and "reset_peak_memory_stats" in caught[0][1]
    t = c.FloatTensor([1, 2])
    assert t.device.type == "cuda" and t.dtype == tandem.float32
    assert isinstance(t, c.FloatTensor) and not isinstance(t, tandem.FloatTensor)
    assert not isinstance(tandem.zeros(2), c.FloatTensor) and not isinstance(t, c.DoubleTensor)
    assert c.LongTensor(2, 3).shape == (2, 3) and c.LongTensor(2, 3).dtype == tandem.int64
    assert repr(c.HalfTensor) == "<class 'tandem.cuda.HalfTensor'>"
    assert t.type() == "tandem.cuda.FloatTensor"
    with c.nvtx.range("epoch {}", 1):
        assert c.nvtx.range_push("inner") == 1
        assert c.nvtx.range_pop() == 1
    assert c.nvtx.range_pop() == -1
    c.nvtx.mark("event")


# ---- fractional max pooling -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("n,shape,kernel,out", [(2, (2, 3, 9, 8), 2, dict(output_size=(4, 5))),
                                                (2, (3, 7, 7), 3, dict(output_size=3)),
                                                (2, (2, 3, 9, 8), (2, 3), dict(output_ratio=(0.5, 0.7))),
                                                (3, (1, 2, 6, 7, 5), 2, dict(output_size=(3, 4, 2))),
                                                (3, (2, 6, 7, 5), (2, 1, 2), dict(output_ratio=0.5))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool(device, n, shape, kernel, out, dtype):
    gen = torch.Generator().manual_seed(len(shape) + n)
    x = torch.randn(shape, dtype=getattr(torch, dtype), generator=gen).requires_grad_()
    nb = shape[0] if len(shape) == n + 2 else 1
    samples = torch.rand(nb, shape[-n - 1], n, dtype=getattr(torch, dtype), generator=gen)
    ref = getattr(torch.nn, f"FractionalMaxPool{n}d")(kernel, return_indices=True, _random_samples=samples, **out)
    mod = getattr(tandem.nn, f"FractionalMaxPool{n}d")(kernel, return_indices=True,
                                                        _random_samples=from_torch(samples, device), **out)
    assert repr(mod) == repr(ref)
    want, want_idx = ref(x)
    tx = from_torch(x.detach(), device).requires_grad_()
    got, got_idx = mod(tx)
    assert_same(got, want.detach())
    assert_same(got_idx, want_idx)
    w = torch.randn(want.shape, dtype=want.dtype, generator=gen)
    (want * w).sum().backward()
    (got * from_torch(w, device)).sum().backward()
    assert_same(tx.grad, x.grad)
    # Without samples: windows drawn at random, still one of the window's elements, PyTorch's shapes.
    free = getattr(F, f"fractional_max_pool{n}d")(tx.detach(), kernel, **out)
    assert tuple(free.shape) == tuple(want.shape)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 1, 5, 5), 2),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 1, 5, 5), 3, output_size=4),
    lambda lib: lib.nn.functional.fractional_max_pool2d(lib.zeros(1, 1, 5, 5), 2, output_size=(3, 5)),
    lambda lib: lib.nn.FractionalMaxPool2d(2),
    lambda lib: lib.nn.FractionalMaxPool3d(2),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=1.5),
])
def test_fractional_errors(case):
    _same_error(case)
