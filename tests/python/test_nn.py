"""nn: Module bookkeeping, Parameter, containers, init, state dicts, device/dtype moves, reprs, and the conv
and pooling C++ ops (forward and backward) against PyTorch."""
import math
import os

import pytest
import torch

import tandem
from tandem import nn
import tandem.nn.functional as F

C = tandem._C


def T(t):
    """A torch tensor as a tandem tensor (same dtype)."""
    return tandem.tensor(t.tolist(), dtype=getattr(tandem, str(t.dtype).replace("torch.", "")))


def close(a, b, atol=1e-5, rtol=1e-5):
    torch.testing.assert_close(torch.tensor(a.tolist(), dtype=b.dtype), b, atol=atol, rtol=rtol)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.block = nn.Sequential(nn.ReLU(), nn.Linear(8, 3))
        self.norm = nn.BatchNorm1d(3)
        self.register_buffer("scale", tandem.ones(3))
        self.register_buffer("tmp", tandem.zeros(1), persistent=False)

    def forward(self, x):
        return self.norm(self.block(self.fc1(x))) * self.scale


class TorchNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.block = torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(8, 3))
        self.norm = torch.nn.BatchNorm1d(3)
        self.register_buffer("scale", torch.ones(3))
        self.register_buffer("tmp", torch.zeros(1), persistent=False)


def test_parameter_is_a_tensor_sharing_memory():
    data = tandem.ones(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, tandem.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p._is_view_of(data)
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert repr(p).startswith("Parameter containing:\ntensor([[1., 1., 1.],")
    assert type(p + 1) is tandem.Tensor


def test_names_match_pytorch():
    net, ref = Net(), TorchNet()
    assert [n for n, _ in net.named_parameters()] == [n for n, _ in ref.named_parameters()]
    assert [n for n, _ in net.named_buffers()] == [n for n, _ in ref.named_buffers()]
    assert [n for n, _ in net.named_modules()] == [n for n, _ in ref.named_modules()]
    assert [n for n, _ in net.named_children()] == [n for n, _ in ref.named_children()]
    assert list(net.state_dict()) == list(ref.state_dict())
    assert len(list(net.parameters())) == 6 and len(list(net.buffers())) == 5
    assert len(list(net.modules())) == 6 and len(list(net.children())) == 3


def test_shared_modules_and_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, lin)
    assert len(list(seq.parameters())) == 2
    assert len(list(seq.modules())) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_repr_matches_pytorch():
    net, ref = Net(), TorchNet()
    assert repr(net).replace("Net", "X") == repr(ref).replace("TorchNet", "X")
    pairs = [
        (nn.Conv2d(1, 16, 3, padding=1), torch.nn.Conv2d(1, 16, 3, padding=1)),
        (nn.Conv2d(2, 4, (3, 5), stride=2, dilation=2, bias=False), torch.nn.Conv2d(2, 4, (3, 5), stride=2, dilation=2, bias=False)),
        (nn.Conv2d(4, 8, 3, groups=4), torch.nn.Conv2d(4, 8, 3, groups=4)),
        (nn.MaxPool2d(2), torch.nn.MaxPool2d(2)),
        (nn.AvgPool2d(3, 1, 1), torch.nn.AvgPool2d(3, 1, 1)),
        (nn.AdaptiveAvgPool2d((1, 1)), torch.nn.AdaptiveAvgPool2d((1, 1))),
        (nn.BatchNorm2d(4), torch.nn.BatchNorm2d(4)),
        (nn.LayerNorm(10), torch.nn.LayerNorm(10)),
        (nn.Dropout(0.25), torch.nn.Dropout(0.25)),
        (nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
        (nn.GELU(), torch.nn.GELU()),
        (nn.Softmax(dim=1), torch.nn.Softmax(dim=1)),
        (nn.LogSoftmax(dim=-1), torch.nn.LogSoftmax(dim=-1)),
        (nn.Flatten(), torch.nn.Flatten()),
        (nn.Identity(), torch.nn.Identity()),
        (nn.Embedding(10, 3, padding_idx=0), torch.nn.Embedding(10, 3, padding_idx=0)),
        (nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()),
        (nn.ModuleList([nn.Tanh(), nn.Sigmoid()]), torch.nn.ModuleList([torch.nn.Tanh(), torch.nn.Sigmoid()])),
        (nn.ModuleDict({"a": nn.Linear(1, 2)}), torch.nn.ModuleDict({"a": torch.nn.Linear(1, 2)})),
        (nn.ModuleList([nn.Linear(1, 1) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Tanh()]),
         torch.nn.ModuleList([torch.nn.Linear(1, 1) for _ in range(3)] + [torch.nn.ReLU(), torch.nn.ReLU(), torch.nn.Tanh()])),
        (nn.ModuleList(), torch.nn.ModuleList()),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)


def test_train_eval_and_apply():
    net = Net()
    assert net.training and net.block[1].training
    assert net.eval() is net and not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    seen, ref_seen = [], []
    net.apply(lambda m: seen.append(type(m).__name__))
    TorchNet().apply(lambda m: ref_seen.append(type(m).__name__))
    assert seen == [n.replace("TorchNet", "Net") for n in ref_seen]
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(TypeError, match="cannot assign 'tandem.FloatTensor' object to parameter 'w'"):
        m.register_parameter("w", tandem.ones(1))
    with pytest.raises(KeyError, match='buffer name can'):
        m.register_buffer("a.b", tandem.ones(1))
    m.w = nn.Parameter(tandem.ones(1))
    with pytest.raises(TypeError, match="cannot assign 'tandem.FloatTensor' as parameter 'w'"):
        m.w = tandem.ones(1)
    m.w = None
    assert list(m.parameters()) == []
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'missing'"):
        m.missing
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        m(1)

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(tandem.ones(1))

    with pytest.raises(AttributeError, match="cannot assign parameters before Module.__init__"):
        Early()


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear)
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1"]
    seq.append(nn.Sigmoid())
    assert len(seq) == 3
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.Linear(1, 2))
    ml.extend([nn.Tanh()])
    ml.insert(0, nn.ReLU())
    assert [type(m).__name__ for m in ml] == ["ReLU", "Linear", "Linear", "Tanh"]
    assert len(list(ml.parameters())) == 4
    md = nn.ModuleDict({"a": nn.Linear(1, 1)})
    md["b"] = nn.ReLU()
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(md) == 2
    assert md.pop("b").__class__ is nn.ReLU
    with pytest.raises(IndexError):
        seq[5]


def test_state_dict_round_trip_and_errors():
    a, b = Net(), Net()
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    for (n, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        assert x.tolist() == y.tolist(), n
    # state_dict values are plain tensors sharing memory, without grad
    w = a.state_dict()["fc1.weight"]
    assert type(w) is tandem.Tensor and not w.requires_grad and w._is_view_of(a.fc1.weight)
    assert a.state_dict(keep_vars=True)["fc1.weight"] is a.fc1.weight

    ref = TorchNet()
    bad = dict(a.state_dict())
    del bad["fc1.bias"]
    bad["extra"] = tandem.ones(1)
    bad["block.1.weight"] = tandem.ones(2, 2)
    tbad = dict(ref.state_dict())
    del tbad["fc1.bias"]
    tbad["extra"] = torch.ones(1)
    tbad["block.1.weight"] = torch.ones(2, 2)
    with pytest.raises(RuntimeError) as ours:
        b.load_state_dict(bad)
    with pytest.raises(RuntimeError) as theirs:
        ref.load_state_dict(tbad)
    expected = str(theirs.value).replace("torch.", "tandem.").replace("TorchNet", "Net")
    assert str(ours.value) == expected
    result = b.load_state_dict({k: v for k, v in a.state_dict().items() if k != "scale"}, strict=False)
    assert result.missing_keys == ["scale"] and result.unexpected_keys == []


def test_load_state_dict_copies_in_place():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    w = b.weight
    b.load_state_dict(a.state_dict())
    assert b.weight is w and w.requires_grad
    assert w.tolist() == a.weight.tolist()


def test_to_dtype_keeps_parameter_objects():
    net = Net()
    params = list(net.parameters())
    before = [p.tolist() for p in params]
    net.to(tandem.float64)
    assert [id(p) for p in net.parameters()] == [id(p) for p in params]
    assert all(p.dtype == tandem.float64 and p.requires_grad and isinstance(p, nn.Parameter) for p in params)
    assert net.norm.running_mean.dtype == tandem.float64
    assert net.norm.num_batches_tracked.dtype == tandem.int64  # integer buffers keep their dtype
    assert [p.tolist() for p in params] == before
    net.to(dtype=tandem.float32)
    assert all(p.dtype == tandem.float32 for p in params)
    with pytest.raises(TypeError, match="only accepts floating point or complex dtypes"):
        net.to(tandem.int32)


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_to_device_keeps_parameter_objects():
    net = Net()
    params = list(net.parameters())
    last = f"cuda:{tandem.cuda.device_count() - 1}"  # cuda:1 with two emulated devices; cuda:0 on one GPU
    net.to(last)
    assert all(p.device == tandem.device(last) for p in net.parameters())
    assert [id(p) for p in net.parameters()] == [id(p) for p in params]
    assert net.scale.device == tandem.device(last)
    net.cpu()
    assert all(p.device.type == "cpu" for p in params)
    net.cuda()
    assert all(p.device == tandem.device("cuda:0") for p in params)
    net.to(tandem.device("cpu"), tandem.float64)
    assert all(p.device.type == "cpu" and p.dtype == tandem.float64 for p in params)


def test_default_init_ranges():
    lin = nn.Linear(50, 40)
    bound = 1 / math.sqrt(50)
    assert max(abs(v) for row in lin.weight.tolist() for v in row) <= bound
    assert max(abs(v) for v in lin.bias.tolist()) <= bound
    conv = nn.Conv2d(3, 8, 3)
    cb = 1 / math.sqrt(27)
    assert max(abs(v) for v in conv.bias.tolist()) <= cb
    emb = nn.Embedding(5, 4, padding_idx=2)
    assert emb.weight.tolist()[2] == [0.0] * 4
    bn = nn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert bn.running_var.tolist() == [1.0] * 3 and bn.num_batches_tracked.item() == 0


def test_init_functions():
    g = tandem.Generator().manual_seed(0)
    w = tandem.empty(200, 300)
    nn.init.xavier_uniform_(w, gain=2.0, generator=g)
    a = 2.0 * math.sqrt(6.0 / 500)
    flat = [v for row in w.tolist() for v in row]
    assert max(abs(v) for v in flat) <= a and max(abs(v) for v in flat) > 0.95 * a
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    std = math.sqrt(2.0) / math.sqrt(200)
    flat = [v for row in w.tolist() for v in row]
    emp = math.sqrt(sum(v * v for v in flat) / len(flat))
    assert abs(emp - std) / std < 0.05
    nn.init.xavier_normal_(w)
    nn.init.kaiming_uniform_(w, a=math.sqrt(5))
    bound = math.sqrt(3.0) * math.sqrt(2.0 / 6) / math.sqrt(300)
    assert max(abs(v) for row in w.tolist() for v in row) <= bound
    assert nn.init.constant_(tandem.empty(2), 3.5).tolist() == [3.5, 3.5]
    assert nn.init.ones_(tandem.empty(2)).tolist() == [1.0, 1.0]
    assert nn.init.zeros_(tandem.empty(2)).tolist() == [0.0, 0.0]
    u = nn.init.uniform_(tandem.empty(1000), -2, -1)
    assert all(-2 <= v < -1 for v in u.tolist())
    n = nn.init.normal_(tandem.empty(1000), 5.0, 0.1)
    assert abs(sum(n.tolist()) / 1000 - 5.0) < 0.05
    for name in ["linear", "conv2d", "sigmoid", "tanh", "relu", "leaky_relu", "selu"]:
        assert nn.init.calculate_gain(name) == pytest.approx(torch.nn.init.calculate_gain(name))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(torch.nn.init.calculate_gain("leaky_relu", 0.2))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(tandem.empty(3))
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("foo")
    # initialisers are reproducible from a generator
    a1 = nn.init.normal_(tandem.empty(5), generator=tandem.Generator().manual_seed(3)).tolist()
    a2 = nn.init.normal_(tandem.empty(5), generator=tandem.Generator().manual_seed(3)).tolist()
    assert a1 == a2


# ---- conv and pooling ops (C++ forward and backward) against PyTorch ---------------------------------------
CONV_CASES = [
    dict(shape=(2, 3, 7, 6), w=(4, 3, 3, 3), stride=1, padding=0, dilation=1),
    dict(shape=(2, 3, 7, 6), w=(4, 3, 3, 2), stride=2, padding=1, dilation=1),
    dict(shape=(1, 2, 9, 9), w=(3, 2, 3, 3), stride=(2, 1), padding=(2, 1), dilation=2),
    dict(shape=(3, 1, 5, 5), w=(2, 1, 1, 1), stride=1, padding=0, dilation=1),
    dict(shape=(2, 2, 4, 4), w=(5, 2, 4, 4), stride=1, padding=0, dilation=1),
    dict(shape=(2, 4, 6, 5), w=(6, 2, 3, 3), stride=1, padding=1, dilation=1, groups=2),
    dict(shape=(1, 3, 7, 7), w=(3, 1, 3, 2), stride=2, padding=1, dilation=2, groups=3),
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_forward_backward(case, dtype, bias):
    torch.manual_seed(0)
    td = getattr(torch, dtype)
    x = torch.randn(case["shape"], dtype=td, requires_grad=True)
    w = torch.randn(case["w"], dtype=td, requires_grad=True)
    b = torch.randn(case["w"][0], dtype=td, requires_grad=True) if bias else None
    kw = dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"], groups=case.get("groups", 1))
    out = torch.nn.functional.conv2d(x, w, b, **kw)
    ours = C.conv2d(T(x.detach()), T(w.detach()), T(b.detach()) if bias else None, **kw)
    tol = 1e-4 if dtype == "float32" else 1e-10
    close(ours, out.detach(), atol=tol, rtol=tol)
    g = torch.randn_like(out)
    out.backward(g)
    gi, gw, gb = C._conv2d_backward(T(g), T(x.detach()), T(w.detach()), case["stride"], case["padding"],
                                    case["dilation"], True, True, bias, groups=kw["groups"])
    close(gi, x.grad, atol=tol, rtol=tol)
    close(gw, w.grad, atol=tol, rtol=tol)
    if bias:
        close(gb, b.grad, atol=tol, rtol=tol)
    else:
        assert gb is None


def test_conv2d_unbatched_non_contiguous_and_errors(device):
    x = torch.randn(3, 6, 5)
    w = torch.randn(2, 3, 3, 3)
    close(C.conv2d(T(x).to(device), T(w).to(device)).cpu(), torch.nn.functional.conv2d(x, w), atol=1e-4)
    xt = torch.randn(1, 3, 6, 5)
    ours = C.conv2d(T(xt.transpose(2, 3).contiguous()).transpose(2, 3).to(device), T(w).to(device), padding=1)
    close(ours.cpu(), torch.nn.functional.conv2d(xt, w, padding=1), atol=1e-4)
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[2, 3, 3, 3\], expected input\[1, 4, 5, 5\] to have 3 channels, but got 4 channels instead"):
        C.conv2d(tandem.ones(1, 4, 5, 5), T(w))
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[5, 5\]"):
        C.conv2d(tandem.ones(5, 5), T(w))
    with pytest.raises(RuntimeError, match=r"Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size \[\[3, 1, 3, 3\]\] instead"):
        C.conv2d(tandem.ones(1, 2, 5, 5), tandem.ones(3, 1, 3, 3), groups=2)
    with pytest.raises(RuntimeError, match=r"Given groups=2, weight of size \[4, 1, 3, 3\], expected input\[1, 3, 5, 5\] to have 2 channels, but got 3 channels instead"):
        C.conv2d(tandem.ones(1, 3, 5, 5), tandem.ones(4, 1, 3, 3), groups=2)
    with pytest.raises(RuntimeError, match=r"^Calculated padded input size per channel: \(2 x 2\). Kernel size: "
                                           r"\(3 x 3\). Kernel size can't be greater than actual input size\n"):
        C.conv2d(tandem.ones(1, 3, 2, 2), T(w))
    with pytest.raises(RuntimeError, match=r"^expected scalar type Double but found Float\n"):
        C.conv2d(tandem.ones(1, 3, 5, 5, dtype=tandem.float64), T(w))


POOL_CASES = [
    dict(shape=(2, 3, 8, 8), k=2, s=None, p=0, d=1, ceil=False),
    dict(shape=(1, 2, 7, 9), k=3, s=2, p=1, d=1, ceil=False),
    dict(shape=(1, 2, 7, 9), k=3, s=2, p=1, d=1, ceil=True),
    dict(shape=(2, 1, 10, 10), k=(3, 2), s=(2, 3), p=(1, 0), d=(2, 1), ceil=False),
    dict(shape=(3, 6, 6), k=2, s=1, p=0, d=1, ceil=False),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d(case):
    torch.manual_seed(1)
    x = torch.randn(case["shape"], dtype=torch.float64, requires_grad=True)
    out, idx = torch.nn.functional.max_pool2d(x, case["k"], case["s"], case["p"], case["d"], case["ceil"], return_indices=True)
    o, i = C._max_pool2d_with_indices(T(x.detach()), case["k"], case["s"], case["p"], case["d"], case["ceil"])
    close(o, out.detach())
    assert i.tolist() == idx.tolist()
    g = torch.randn_like(out)
    out.backward(g)
    gi = C._max_pool2d_backward(T(g), T(x.detach()), i, case["k"], case["s"], case["p"], case["d"], case["ceil"])
    close(gi, x.grad)


@pytest.mark.parametrize("case", [c for c in POOL_CASES if c["d"] == 1])
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d(case, count_include_pad):
    torch.manual_seed(2)
    x = torch.randn(case["shape"], dtype=torch.float64, requires_grad=True)
    out = torch.nn.functional.avg_pool2d(x, case["k"], case["s"], case["p"], case["ceil"], count_include_pad)
    o = C._avg_pool2d(T(x.detach()), case["k"], case["s"], case["p"], case["ceil"], count_include_pad)
    close(o, out.detach())
    g = torch.randn_like(out)
    out.backward(g)
    gi = C._avg_pool2d_backward(T(g), T(x.detach()), case["k"], case["s"], case["p"], case["ceil"], count_include_pad)
    close(gi, x.grad)


@pytest.mark.parametrize("shape,size", [((2, 3, 7, 5), (3, 2)), ((1, 2, 8, 8), 1), ((2, 6, 6), (4, 4)), ((1, 1, 3, 3), (5, 5))])
def test_adaptive_avg_pool2d(shape, size):
    x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
    out = torch.nn.functional.adaptive_avg_pool2d(x, size)
    o = F.adaptive_avg_pool2d(T(x.detach()), size)
    close(o, out.detach())
    g = torch.randn_like(out)
    out.backward(g)
    close(C._adaptive_avg_pool2d_backward(T(g), T(x.detach())), x.grad)


def test_pool_layers_and_errors(device):
    x = tandem.randn(2, 3, 6, 6).to(device)
    assert list(nn.MaxPool2d(2)(x).shape) == [2, 3, 3, 3]
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert idx.dtype == tandem.int64
    assert list(nn.AvgPool2d(3, stride=1, padding=1)(x).shape) == [2, 3, 6, 6]
    assert list(nn.AdaptiveAvgPool2d((1, 1))(x).shape) == [2, 3, 1, 1]
    assert list(nn.AdaptiveAvgPool2d((None, 2))(x).shape) == [2, 3, 6, 2]
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel size"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(RuntimeError, match=r"^non-empty 3D or 4D \(batch mode\) tensor expected for input"):
        F.max_pool2d(tandem.ones(4, 4), 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):  # PyTorch averages int64 only
        F.avg_pool2d(tandem.ones(1, 1, 4, 4, dtype=tandem.int32), 2)
    assert F.avg_pool2d(tandem.full((1, 1, 4, 4), 3, dtype=tandem.int64), 2).tolist() == [[[[3, 3], [3, 3]]]]


def test_conv_layer_matches_torch_with_copied_weights(device):
    torch.manual_seed(0)
    ref = torch.nn.Conv2d(2, 3, 3, stride=2, padding=1)
    ours = nn.Conv2d(2, 3, 3, stride=2, padding=1)
    ours.load_state_dict({k: T(v.detach()) for k, v in ref.state_dict().items()})
    ours.to(device)
    x = torch.randn(4, 2, 9, 9)
    close(ours(T(x).to(device)).cpu(), ref(x).detach(), atol=1e-5)


# ---- gradients through autograd against PyTorch --------------------------------------------------------


def leaf(t, device="cpu"):
    return T(t.detach()).to(device).requires_grad_()


def test_conv_and_pool_record_nodes_and_backprop(device):
    torch.manual_seed(3)
    x = torch.randn(2, 3, 9, 9, dtype=torch.float64, requires_grad=True)
    conv = torch.nn.Conv2d(3, 4, 3, padding=1, stride=1).double()
    ours = nn.Conv2d(3, 4, 3, padding=1).double()
    ours.load_state_dict({k: T(v.detach()) for k, v in conv.state_dict().items()})
    ours.to(device)
    xt = leaf(x, device)
    chain = lambda F_, m, inp: F_.adaptive_avg_pool2d(F_.avg_pool2d(F_.max_pool2d(m(inp), 2, 1), 3, 1, 1), (2, 2))
    out_ref = chain(torch.nn.functional, conv, x)
    out = chain(F, ours, xt)
    assert out.grad_fn.name() == "AdaptiveAvgPool2DBackward0"
    g = torch.randn_like(out_ref)
    out_ref.backward(g)
    out.backward(T(g).to(device))
    close(xt.grad.cpu(), x.grad, atol=1e-10, rtol=1e-10)
    close(ours.weight.grad.cpu(), conv.weight.grad, atol=1e-10, rtol=1e-10)
    close(ours.bias.grad.cpu(), conv.bias.grad, atol=1e-10, rtol=1e-10)


def test_conv_grad_fn_names_and_unbatched():
    w = tandem.randn(2, 1, 3, 3).requires_grad_()
    x = tandem.randn(1, 5, 5, dtype=tandem.float32).requires_grad_()
    y = F.conv2d(x, w)
    assert y.grad_fn.name() == "ConvolutionBackward0" and list(y.shape) == [2, 3, 3]
    y.backward(tandem.ones(2, 3, 3))
    assert list(x.grad.shape) == [1, 5, 5] and list(w.grad.shape) == [2, 1, 3, 3]
    o = F.max_pool2d(y.detach().requires_grad_(), 2)
    assert o.grad_fn.name() == "MaxPool2DWithIndicesBackward0"
    assert F.avg_pool2d(x, 2).grad_fn.name() == "AvgPool2DBackward0"
    with tandem.no_grad():
        assert F.conv2d(x, w).grad_fn is None


def test_gradcheck_conv_and_pools():
    x = tandem.randn(1, 2, 5, 5, dtype=tandem.float64).requires_grad_()
    w = tandem.randn(3, 2, 2, 2, dtype=tandem.float64).requires_grad_()
    b = tandem.randn(3, dtype=tandem.float64).requires_grad_()
    assert tandem.autograd.gradcheck(lambda a, k, c: F.conv2d(a, k, c, stride=2, padding=1), (x, w, b))
    wg = tandem.randn(4, 1, 2, 2, dtype=tandem.float64).requires_grad_()
    assert tandem.autograd.gradcheck(lambda a, k: F.conv2d(a, k, groups=2, dilation=2), (x, wg))
    assert tandem.autograd.gradcheck(lambda a: F.max_pool2d(a, 2, 1), (x,))
    assert tandem.autograd.gradcheck(lambda a: F.avg_pool2d(a, 3, 2, 1, count_include_pad=False), (x,))
    assert tandem.autograd.gradcheck(lambda a: F.adaptive_avg_pool2d(a, (2, 3)), (x,))


@pytest.mark.parametrize("name", ["relu", "sigmoid", "tanh", "gelu"])
def test_activation_layers_match_torch(name):
    x = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
    layer = {"relu": nn.ReLU(), "sigmoid": nn.Sigmoid(), "tanh": nn.Tanh(), "gelu": nn.GELU()}[name]
    ref = {"relu": torch.nn.ReLU(), "sigmoid": torch.nn.Sigmoid(), "tanh": torch.nn.Tanh(), "gelu": torch.nn.GELU()}[name]
    xt = leaf(x)
    out, out_ref = layer(xt), ref(x)
    close(out, out_ref.detach(), atol=1e-10, rtol=1e-10)
    g = torch.randn_like(out_ref)
    out_ref.backward(g)
    out.backward(T(g))
    close(xt.grad, x.grad, atol=1e-10, rtol=1e-10)


def test_linear_flatten_identity_match_torch(device):
    torch.manual_seed(4)
    ref = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(6, 4), torch.nn.Identity(), torch.nn.Linear(4, 3, bias=False))
    ours = nn.Sequential(nn.Flatten(), nn.Linear(6, 4), nn.Identity(), nn.Linear(4, 3, bias=False))
    ours.load_state_dict({k: T(v.detach()) for k, v in ref.state_dict().items()})
    ours.to(device)
    x = torch.randn(5, 2, 3)
    out_ref, out = ref(x), ours(T(x).to(device))
    close(out.cpu(), out_ref.detach(), atol=1e-5)
    g = torch.randn(5, 3)
    out_ref.backward(g)
    out.backward(T(g).to(device))
    for (n, p), (_, q) in zip(ours.named_parameters(), ref.named_parameters()):
        close(p.grad.cpu(), q.grad, atol=1e-5)
    ours.zero_grad()
    assert all(p.grad is None for p in ours.parameters())


def test_dropout_training_and_eval():
    drop = nn.Dropout(0.5)
    x = tandem.ones(1000, requires_grad=True)
    y = drop(x)
    vals = y.tolist()
    assert set(vals) <= {0.0, 2.0} and 350 < vals.count(0.0) < 650
    y.backward(tandem.ones(1000))
    assert x.grad.tolist() == vals  # gradient is the same mask times 1/(1-p)
    drop.eval()
    assert drop(x) is x
    assert F.dropout(x, 0.0) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)


def test_to_moves_gradients_too(device):
    lin = nn.Linear(2, 2)
    lin(tandem.ones(1, 2)).backward(tandem.ones(1, 2))
    lin.to(tandem.float64)
    assert lin.weight.grad.dtype == tandem.float64
    lin.to(device)
    assert lin.weight.grad.device == lin.weight.device


def test_deepcopy_of_modules():
    import copy

    net = Net().eval()  # eval: batch norm uses its running statistics
    net(tandem.randn(4, 4)).backward(tandem.ones(4, 3))
    clone = copy.deepcopy(net)
    assert clone.fc1.weight is not net.fc1.weight and isinstance(clone.fc1.weight, nn.Parameter)
    assert clone.fc1.weight.requires_grad and clone.fc1.weight.tolist() == net.fc1.weight.tolist()
    assert clone.fc1.weight.grad is None  # PyTorch's Parameter.__deepcopy__ copies the data, not .grad
    assert not clone.fc1.weight._is_view_of(net.fc1.weight)
    assert clone.norm.running_mean.tolist() == net.norm.running_mean.tolist()
    shared = nn.Sequential(net.fc1, net.fc1)
    c2 = copy.deepcopy(shared)
    assert c2[0] is c2[1]


@pytest.mark.parametrize("kind", ["Sequential", "ModuleList"])
def test_sequence_containers_edit_like_torch(kind):
    def build(lib):
        cls = getattr(lib.nn, kind)
        mods = [lib.nn.ReLU(), lib.nn.Tanh(), lib.nn.Sigmoid(), lib.nn.Identity()]
        return cls(*mods) if kind == "Sequential" else cls(mods)

    def names(c):
        return [(k, type(m).__name__) for k, m in c._modules.items()]

    ours, ref = build(tandem), build(torch)
    for edit in (lambda c, lib: c.pop(1), lambda c, lib: c.insert(1, lib.nn.ELU()),
                 lambda c, lib: c.append(lib.nn.SiLU()), lambda c, lib: c.extend([lib.nn.ReLU()]),
                 lambda c, lib: c.__delitem__(slice(0, 2)), lambda c, lib: c.__setitem__(-1, lib.nn.Tanh())):
        got, expected = edit(ours, tandem), edit(ref, torch)
        assert names(ours) == names(ref)
        if got is not None and not isinstance(got, (tandem.nn.Module,)):
            assert type(got).__name__ == type(expected).__name__
    assert len(ours) == len(ref) and names(ours[1:]) == names(ref[1:])
    assert type(ours[1:]).__name__ == kind and type(ours[-1]).__name__ == type(ref[-1]).__name__
    with pytest.raises(IndexError):
        ours[len(ours)]


def test_deepcopy_of_plain_tensors_matches_torch(device):
    import copy

    for lib in (tandem, torch):
        dev = device if lib is tandem else "cpu"
        x = lib.arange(6.0, device=dev).reshape(2, 3).requires_grad_()
        (x * 2).sum().backward()
        y = lib.zeros(2, device=dev)
        box = {"x": x, "again": x, "y": y}
        c = copy.deepcopy(box)
        assert c["x"] is c["again"] and c["x"] is not x and c["y"] is not y
        assert c["x"].requires_grad and c["x"].is_leaf and not c["y"].requires_grad
        assert c["x"].tolist() == x.tolist() and c["x"].grad.tolist() == [[2.0] * 3] * 2
        assert c["x"].dtype == x.dtype and str(c["x"].device) == str(x.device)
        c["y"].add_(1)
        assert y.tolist() == [0.0, 0.0]  # the copy owns its memory
        with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
            copy.deepcopy(x * 2)


def test_train_loop_with_autograd_and_sgd():
    # least squares with the loss gradient given to backward: Linear + autograd + a fused optimizer step
    g = tandem.Generator().manual_seed(0)
    x = tandem.randn(64, 3, generator=g)
    true_w = tandem.tensor([[1.5, -2.0, 0.5]])
    y = x @ true_w.t() + 0.25
    model = nn.Linear(3, 1)
    opt = tandem.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    for _ in range(200):
        opt.zero_grad()
        out = model(x)
        out.backward((out - y) * (2.0 / 64))
        opt.step()
    assert model.weight.tolist()[0] == pytest.approx([1.5, -2.0, 0.5], abs=1e-3)
    assert model.bias.item() == pytest.approx(0.25, abs=1e-3)
    model.zero_grad(set_to_none=False)
    assert model.weight.grad.tolist() == [[0.0, 0.0, 0.0]]
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())


_FLAT_MEMORY_SCRIPT = """
import gc, sys, tracemalloc
import tandem
from tandem import nn

def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 3))
opt = tandem.optim.Adam(model.parameters(), lr=1e-3)
x, target = tandem.randn(8, 1, 8, 8), tandem.randn(8, 3)

def step():
    opt.zero_grad()
    out = model(x)
    out.backward((out - target) * 0.25)
    opt.step()

for _ in range(50):
    step()
gc.collect()
rss, objects = rss_bytes(), len(gc.get_objects())
tracemalloc.start()
start = tracemalloc.get_traced_memory()[0]
for _ in range(1000):
    step()
gc.collect()
grown = tracemalloc.get_traced_memory()[0] - start
tracemalloc.stop()
print(grown, len(gc.get_objects()) - objects, rss_bytes() - rss)
"""


@pytest.mark.skipif(os.environ.get("TANDEM_SANITIZER") == "address", reason="ASan's allocator holds freed memory")
def test_memory_stays_flat_over_1000_training_steps():
    # conv, pooling, linear layers, autograd and Adam; the loss gradient is given to backward directly so the
    # test needs no reductions. Python objects and process memory must not grow. A fresh interpreter: inside a
    # pytest worker that has run thousands of tests, the 1 GB+ heap's own reuse moves RSS by megabytes.
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _FLAT_MEMORY_SCRIPT], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr
    grown, objects, rss = (int(v) for v in done.stdout.split())
    assert grown < 64 * 1024
    assert objects < 100
    assert rss < 8 * 2**20


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    seen = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: seen.append(args[0].tolist()) or out + 1)
    out = lin(tandem.ones(1, 2))
    assert seen == [[[0.0, 0.0]]]
    assert out.tolist()[0] == pytest.approx([b + 1 for b in lin.bias.tolist()])
    h1.remove()
    with h2:
        lin(tandem.ones(1, 2))
    assert seen[-1] == [[1.0, 1.0]]
    assert not lin._forward_hooks and not lin._forward_pre_hooks


MORE_ACTIVATIONS = {
    "silu": (lambda: nn.SiLU(), lambda: torch.nn.SiLU()),
    "leaky_relu": (lambda: nn.LeakyReLU(0.2), lambda: torch.nn.LeakyReLU(0.2)),
    "elu": (lambda: nn.ELU(alpha=1.5), lambda: torch.nn.ELU(alpha=1.5)),
    "softplus": (lambda: nn.Softplus(beta=2.0, threshold=10.0), lambda: torch.nn.Softplus(beta=2.0, threshold=10.0)),
}


@pytest.mark.parametrize("name", sorted(MORE_ACTIVATIONS))
def test_more_activation_layers_match_torch_with_finite_gradients(name, device):
    ours_factory, ref_factory = MORE_ACTIVATIONS[name]
    layer, ref = ours_factory(), ref_factory()
    assert repr(layer) == repr(ref)
    # Zero (the kink), the softplus threshold's neighbourhood and values whose exp overflows.
    x = torch.cat([torch.randn(40, dtype=torch.float64), torch.tensor([0.0, -0.0, 4.99, 5.01, 100.0, -100.0, 500.0],
                                                                      dtype=torch.float64)]).requires_grad_()
    xt = T(x.detach()).to(device).requires_grad_()
    out, out_ref = layer(xt), ref(x)
    assert out.dtype is tandem.float64 and out.device == device
    if name == "silu":  # a C++ op with PyTorch's node; the others are compositions
        assert out.grad_fn.name() == out_ref.grad_fn.name() == "SiluBackward0"
    close(out.cpu(), out_ref.detach(), atol=1e-12, rtol=1e-12)
    g = torch.randn_like(out_ref)
    out_ref.backward(g)
    out.backward(T(g).to(device))
    assert not xt.grad.isnan().any().item()
    close(xt.grad.cpu(), x.grad, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("name", ["relu", "silu", "leaky_relu", "elu"])
def test_inplace_activations_write_into_their_input(name):
    x = torch.randn(3, 4)
    ours = T(x.clone())
    result = getattr(F, name)(ours, inplace=True)
    close(ours, getattr(torch.nn.functional, name)(x))  # written into the input
    assert result.data_ptr() == ours.data_ptr()


@pytest.mark.parametrize("form", ["keyword", "positional"])
def test_module_to_passes_non_blocking_on(form):
    if not tandem.cuda.is_available():
        pytest.skip("needs a (real or emulated) CUDA device")
    m = tandem.nn.Linear(3, 2)
    before = tandem.cuda.transfer_stats()["non_blocking_copies"]
    # Positionally non_blocking comes after dtype, as in PyTorch's parser (to("cuda:0", True) is its TypeError).
    m.to("cuda:0", non_blocking=True) if form == "keyword" else m.to("cuda:0", None, True)
    assert m.weight.device == tandem.device("cuda:0")
    assert tandem.cuda.transfer_stats()["non_blocking_copies"] - before == 2  # weight and bias
