"""What the NLP / speech / recommender program sweep (graykode/nlp-tutorial, PyTorch's NLP tutorials,
rixwew/pytorch-fm, facebookresearch/dlrm, ...) found, each checked against PyTorch on every device."""
import collections
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, raised


def _same_error(case):
    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert want is not None and type(got) is type(want), (got, want)
    assert str(got).split("\nhint:")[0] == str(want).replace("torch.", "tandem."), (str(got), str(want))


# ---- writes of values with history through an index of a plain tensor (pytorch-fm's AnovaKernel) --------------
def _anova(lib, x, order=3):
    """pytorch-fm's AnovaKernel.forward: a[:, t+1:, :] += ... into fresh zeros, then a cumsum, `order` times."""
    batch, fields, dim = x.shape
    a_prev = lib.ones((batch, fields + 1, dim), dtype=x.dtype, device=x.device)
    for t in range(order):
        a = lib.zeros((batch, fields + 1, dim), dtype=x.dtype, device=x.device)
        a[:, t + 1:, :] += x[:, t:, :] * a_prev[:, t:-1, :]
        a = lib.cumsum(a, dim=1)
        a_prev = a
    return lib.sum(a[:, -1, :], dim=-1, keepdim=True)


def test_augmented_assignment_through_an_index_records_the_write(device):
    want_x = torch.randn(4, 5, 3, dtype=torch.float64, requires_grad=True)
    want = _anova(torch, want_x)
    want.sum().backward()
    x = from_torch(want_x.detach(), device).requires_grad_()
    got = _anova(tandem, x)
    assert_same(got, want.detach(), device=tandem.device(device))
    got.sum().backward()
    assert_same(x.grad, want_x.grad, device=tandem.device(device))


@pytest.mark.parametrize("write", ["slice_iadd", "int_iadd", "view_add_", "view_mul_then_add_"])
def test_in_place_write_through_an_indexed_view_gives_the_base_copyslices(device, write):
    def run(lib, dev):
        y = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64, device=dev, requires_grad=True)
        a = lib.zeros(2, 4, dtype=lib.float64, device=dev)
        if write == "slice_iadd":
            a[:, 1:] += y * 2
        elif write == "int_iadd":
            a[1] += y[0].sum()
        elif write == "view_add_":
            v = a[:, 1:]
            v.add_(y)
        else:
            v = a[:, :3]
            v.mul_(3).add_(y)
        (a * lib.arange(8, dtype=lib.float64, device=dev).view(2, 4)).sum().backward()
        return a, y.grad

    want_a, want_g = run(torch, "cpu")
    got_a, got_g = run(tandem, device)
    assert got_a.grad_fn.name() == want_a.grad_fn.name() == "torch::autograd::CopySlices"
    assert got_a.requires_grad and not got_a.is_leaf
    assert_same(got_a.detach(), want_a.detach(), device=tandem.device(device))
    assert_same(got_g, want_g, device=tandem.device(device))


def test_indexed_views_detach_in_place_as_in_pytorch(device):
    _same_error(lambda lib: lib.zeros(3, device=device if lib is tandem else "cpu")[1:].detach_())
    with tandem.no_grad():  # no view is remembered while grad mode is off
        v = tandem.zeros(3, device=device)[1:]
    assert v.detach_() is v


def test_a_plain_tensor_indexed_without_a_write_keeps_working(device):
    a = tandem.arange(6.0, device=device).view(2, 3)
    rows = [a[i] for i in range(2)]
    rows[0].add_(1)  # a write without history goes straight through
    assert a.tolist() == [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
    assert not a.requires_grad and a.grad_fn is None and not rows[1].requires_grad


# ---- binary_cross_entropy where predictions saturate (DLRM with Adagrad at lr 0.1 reaches 0 and 1 exactly) ------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy_gradients_at_saturated_and_tiny_inputs(device, dtype, weighted, reduction):
    def run(lib, dev):
        dt = getattr(lib, dtype)
        x = lib.tensor([0.0, 1.0, 0.0, 1.0, 0.3, 1e-30, 1e-8, 0.5], dtype=dt, device=dev, requires_grad=True)
        t = lib.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.2], dtype=dt, device=dev, requires_grad=True)
        w = lib.tensor([2.0, 1.0, 0.5, 3.0, 1.0, 2.0, 1.0, 4.0], dtype=dt, device=dev) if weighted else None
        loss = lib.nn.functional.binary_cross_entropy(x, t, weight=w, reduction=reduction)
        loss.backward(lib.ones_like(loss))
        return loss, x.grad, t.grad

    want = run(torch, "cpu")
    got = run(tandem, device)
    for g, w in zip(got, want):
        assert_same(g.detach(), w.detach(), device=tandem.device(device))
    assert bool(tandem.isfinite(got[1]).all())  # no NaN where the prediction is exactly 0 or 1


def test_binary_cross_entropy_keeps_its_checks_and_second_derivative():
    _same_error(lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([1.5]), lib.tensor([1.0])))
    _same_error(lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([0.5, 0.2]), lib.tensor([1.0])))
    x = tandem.tensor([0.2, 0.7, 0.9], dtype=tandem.float64, requires_grad=True)
    t = tandem.tensor([0.1, 0.6, 0.3], dtype=tandem.float64, requires_grad=True)  # finite differences stay in [0, 1]
    assert tandem.autograd.gradcheck(tandem.nn.functional.binary_cross_entropy, (x, t))
    assert tandem.autograd.gradgradcheck(tandem.nn.functional.binary_cross_entropy, (x, t))


@pytest.mark.parametrize("values", [([0.5, 2.0], [3.0, 1.0]), ([2.0, 0.5], [1.0, 3.0]), ([0.5, 0.5], [1.0, float("nan")]),
                                    ([float("nan")], [3.0]), ([0.5, 0.5], [1.0, -1e-9]), ([[0.2, 0.3]], [[1.0, 5.0]])])
def test_binary_cross_entropy_refuses_targets_outside_0_1_as_pytorch(values):
    """LaceyChen17's NCF fed ratings 1..5 as BCE targets (its binarize step is a no-op under pandas' copy-on-write):
    PyTorch stops with "target should be between 0 and 1", tandem trained on. The first offending element, an
    input before its target, names the tensor."""
    x, t = values
    _same_error(lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor(x), lib.tensor(t)))
    _same_error(lambda lib: lib.nn.BCELoss()(lib.tensor(x), lib.tensor(t)))


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("float32", "float16")])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_binary_cross_entropy_wants_one_dtype_as_pytorch(device, dtypes, requires_grad):
    """A float64 model output against float32 ratings (LaceyChen17's NCF run in double): PyTorch's kernel refuses
    the pair rather than promoting."""
    def case(lib):
        dev = device if lib is tandem else "cpu"
        x = lib.full((3,), 0.25, dtype=getattr(lib, dtypes[0]), device=dev, requires_grad=requires_grad)
        t = lib.ones(3, dtype=getattr(lib, dtypes[1]), device=dev)
        return lib.nn.BCELoss()(x, t)

    _same_error(case)


# ---- torch.nn.parallel's pieces (DLRM imports them at the top and uses them with several GPUs) ----------------
def test_nn_parallel_names_match_pytorch():
    import torch.nn.parallel as want

    import tandem.nn.parallel as got
    assert sorted(got.__all__) == sorted(want.__all__)
    from tandem.nn.parallel.parallel_apply import get_a_var, parallel_apply
    from tandem.nn.parallel.replicate import replicate
    from tandem.nn.parallel.scatter_gather import gather, scatter, scatter_kwargs
    assert (got.parallel_apply, got.replicate, got.scatter, got.gather) == (parallel_apply, replicate, scatter, gather)
    assert callable(get_a_var) and callable(scatter_kwargs)


def test_torch_ops_module_is_the_operator_registry():
    from tandem._ops import OpOverload, OpOverloadPacket, ops
    assert ops is tandem.ops
    assert isinstance(OpOverload, type) and isinstance(OpOverloadPacket, type)


def _two_cuda_devices():
    if tandem.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices (TANDEM_EMULATE_CUDA=2)")


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(3), lib.nn.ReLU(), lib.nn.Linear(3, 2)).double()


def test_replicate_scatter_parallel_apply_gather_is_data_parallel():
    """DLRM's multi-device forward: replicas of the model, the batch scattered, the replicas applied, the outputs
    gathered. Values match the model on the whole batch (eval mode), gradients reach the original parameters."""
    _two_cuda_devices()
    from tandem.nn.parallel import gather, parallel_apply, replicate, scatter
    torch.manual_seed(0)
    ref = _mlp(torch).eval()
    model = _mlp(tandem)
    model.load_state_dict({k: from_torch(v) for k, v in ref.state_dict().items()})
    model.to("cuda:0").eval()
    x = torch.randn(5, 4, dtype=torch.float64)
    want = ref(x)
    want.square().sum().backward()
    replicas = replicate(model, [0, 1])
    assert [next(iter(r.state_dict().values())).device.index for r in replicas] == [0, 1]
    assert list(replicas[1].parameters()) == [] and replicas[1][0].weight.grad_fn is not None
    assert replicas[1][1].running_mean.device == tandem.device("cuda:1") and replicas[0] is not model
    inputs = scatter(from_torch(x, "cuda:0"), [0, 1])
    assert isinstance(inputs, tuple) and [t.shape[0] for t in inputs] == [3, 2]
    outputs = parallel_apply(replicas, inputs, None, [0, 1])
    assert [o.device.index for o in outputs] == [0, 1]
    got = gather(outputs, 0)
    assert_same(got, want.detach(), device=tandem.device("cuda:0"))
    got.square().sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert_same(p.grad, q.grad, device=tandem.device("cuda:0"))
    detached = replicate(model, [1], detach=True)[0]
    assert detached[0].weight.grad_fn is None and not detached[0].weight.requires_grad


def test_scatter_and_gather_walk_containers_as_pytorch():
    _two_cuda_devices()
    from tandem.nn.parallel.scatter_gather import gather, scatter, scatter_kwargs
    Pair = collections.namedtuple("Pair", "a b")
    x = tandem.arange(8.0).view(4, 2)
    parts = scatter((x, "tag", [x], {"k": x}, Pair(x, 3)), [0, 1])
    assert isinstance(parts, list) and len(parts) == 2 and isinstance(parts[0], tuple)
    first = parts[1]
    assert first[0].tolist() == [[4.0, 5.0], [6.0, 7.0]] and first[0].device == tandem.device("cuda:1")
    assert first[1] == "tag" and isinstance(first[2], list) and isinstance(first[3], dict)
    assert isinstance(first[4], Pair) and first[4].b == 3 and first[4].a.device == tandem.device("cuda:1")
    assert scatter(x, [0, 1, 1, 0, 1])[3].tolist() == [[6.0, 7.0]]  # tensor.chunk's sizes
    assert len(scatter(tandem.ones(1), [0, 1])) == 1  # fewer chunks than devices
    args, kwargs = scatter_kwargs((x,), {"scale": 2}, [0, 1])
    assert len(args) == len(kwargs) == 2 and kwargs[1] == {"scale": 2}
    back = gather([{"y": p[0], "n": None} for p in parts], "cpu")
    assert back["y"].device == tandem.device("cpu") and back["y"].tolist() == x.tolist() and back["n"] is None
    assert gather([(p[0],) for p in parts], -1)[0].device == tandem.device("cpu")
    assert gather([p[0] for p in parts], 1, dim=1).shape == (2, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = gather([tandem.tensor(1.0, device="cuda:0"), tandem.tensor(2.0, device="cuda:1")], 0)
    assert v.tolist() == [1.0, 2.0] and "all input tensors were scalars" in str(caught[0].message)
    with pytest.raises(AssertionError, match="^Gather function not implemented for CPU tensors$"):
        gather([x, x], 0)
    with pytest.raises(ValueError, match="^All dicts must have the same number of keys$"):
        gather([{"a": parts[0][0]}, {"a": parts[1][0], "b": 1}], 0)


def test_parallel_apply_checks_and_errors():
    _two_cuda_devices()
    from tandem.nn.parallel import parallel_apply

    class Fails(tandem.nn.Module):
        def forward(self, x):
            raise ValueError("bad input")

    lin = tandem.nn.Linear(2, 2).cuda()
    with pytest.raises(AssertionError, match="^The number of modules 1 is not equal to the number of inputs 2$"):
        parallel_apply([lin], [tandem.ones(2), tandem.ones(2)])
    with pytest.raises(AssertionError, match="^The number of modules 1 is not equal to the number of devices 2$"):
        parallel_apply([lin], [tandem.ones(2)], None, [0, 1])
    out = parallel_apply([lin], [tandem.ones(1, 2, device="cuda:0")])  # a lone tensor is the only argument
    assert out[0].shape == (1, 2) and out[0].device == tandem.device("cuda:0")
    with pytest.raises(ValueError, match=r"^Caught ValueError in replica 1 on device 1\.\nOriginal Traceback"):
        parallel_apply([lin, Fails()], [tandem.ones(1, 2, device="cuda:0"), tandem.ones(1, device="cuda:1")])


# ---- the profilers' arguments (DLRM passes use_cuda=, which PyTorch 2.15 no longer has) ------------------------
@pytest.mark.parametrize("profiler", ["autograd.profiler", "profiler"])
def test_profilers_refuse_use_cuda_as_pytorch(profiler):
    def case(lib):
        mod = lib.autograd.profiler if profiler == "autograd.profiler" else lib.profiler
        return mod.profile(use_cuda=False)

    _same_error(case)


# ---- legacy autograd.Function instances (pytorch-wavenet's ConstantPad1d(size)(input)) -------------------------
def test_legacy_function_instances_warn_and_refuse_calls_as_pytorch():
    def case(lib):
        class ConstantPad1d(lib.autograd.Function):
            def __init__(self, target_size):
                super().__init__()
                self.target_size = target_size

            def forward(self, input):
                return input

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pad = ConstantPad1d(4)
        assert [w.category for w in caught] == [DeprecationWarning]
        assert str(caught[0].message).startswith(f"{ConstantPad1d} should not be instantiated. Methods on autograd")
        return pad(lib.ones(2))

    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert type(got) is type(want) is RuntimeError and str(got) == str(want)  # the same URL, so no renaming
