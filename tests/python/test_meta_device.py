"""The meta device: tensors with sizes, strides and a dtype but no memory (docs/devices.md, "The meta device").
Every case runs in PyTorch too (its meta device is the oracle): results by repr, shape, dtype and device, errors
by type and first line."""
import copy
import re
import warnings

import pytest

import tandem
from oracle import assert_same_error, raised

torch = pytest.importorskip("torch")


def same_meta(got, want, nodes=True):
    """A tandem meta result against PyTorch's: same repr (tandem. for torch.), shape, dtype and device; without
    `nodes`, the reprs' grad_fn names are not compared (tandem composes some ops PyTorch fuses, docs/compat.md)."""
    if isinstance(want, (tuple, list)):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same_meta(g, w, nodes)
        return
    assert isinstance(got, tandem.Tensor), got
    assert got.is_meta and want.is_meta
    assert got.device.type == "meta" and got.device.index is None
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    got_repr, want_repr = repr(got), repr(want).replace("torch.", "tandem.")
    if not nodes:
        got_repr, want_repr = (re.sub(r", grad_fn=<\w+>", "", r) for r in (got_repr, want_repr))
    assert got_repr == want_repr


def e(lib, *shape, dtype=None, grad=False):
    return lib.empty(*shape, device="meta", dtype=dtype, requires_grad=grad)


CREATION = {
    "empty": lambda L: L.empty(2, 3, device="meta"),
    "empty0d": lambda L: L.empty((), device="meta"),
    "empty_int": lambda L: L.empty(2, device="meta", dtype=L.int64),
    "empty_half": lambda L: L.empty(2, device="meta", dtype=L.float16),
    "empty_grad": lambda L: L.empty(2, device="meta", requires_grad=True),
    "empty_none": lambda L: L.empty(0, 4, device="meta"),
    "zeros": lambda L: L.zeros(4, device="meta"),
    "ones_bool": lambda L: L.ones(2, 2, device="meta", dtype=L.bool),
    "full": lambda L: L.full((2,), 3.0, device="meta"),
    "full_int": lambda L: L.full((2,), 3, device="meta"),
    "randn": lambda L: L.randn(3, device="meta"),
    "rand": lambda L: L.rand(3, 2, device="meta", dtype=L.float64),
    "randint": lambda L: L.randint(0, 5, (3,), device="meta"),
    "randperm": lambda L: L.randperm(5, device="meta"),
    "arange": lambda L: L.arange(5, device="meta"),
    "arange_float": lambda L: L.arange(0, 1, 0.25, device="meta"),
    "linspace": lambda L: L.linspace(0, 1, 5, device="meta"),
    "eye": lambda L: L.eye(3, device="meta"),
    "tensor": lambda L: L.tensor([1.0, 2.0], device="meta"),
    "tensor_int": lambda L: L.tensor([[1, 2]], device="meta"),
    "to_meta": lambda L: L.ones(2, 3).to("meta"),
    "to_meta_device": lambda L: L.ones(2, 3).to(L.device("meta")),
    "to_meta_index": lambda L: L.ones(2).to("meta:0"),
    "empty_like": lambda L: L.empty_like(e(L, 2, 3)),
    "zeros_like_dtype": lambda L: L.zeros_like(e(L, 2, 3), dtype=L.int32),
    "randn_like": lambda L: L.randn_like(e(L, 4)),
    "new_ones": lambda L: e(L, 2).new_ones(3),
    "new_tensor": lambda L: e(L, 2).new_tensor([1, 2]),
    "new_empty": lambda L: e(L, 2, dtype=L.float64).new_empty((2, 2)),
    "clone": lambda L: e(L, 2, 3).clone(),
    "contiguous": lambda L: e(L, 2, 3).t().contiguous(),
    "fill_": lambda L: L.zeros(2, device="meta").fill_(3),
    "normal_": lambda L: e(L, 2).normal_(),
    "uniform_": lambda L: e(L, 2).uniform_(-1, 1),
    "copy_from_cpu": lambda L: e(L, 2, 3).copy_(L.ones(2, 3)),
    "copy_broadcast": lambda L: e(L, 2, 3).copy_(L.ones(3)),
}


@pytest.mark.parametrize("name", list(CREATION))
def test_creation_matches_pytorch(name):
    same_meta(CREATION[name](tandem), CREATION[name](torch))


OPS = {
    "add": lambda L: e(L, 2, 3) + e(L, 3),
    "add_scalar": lambda L: e(L, 2, 3) + 1,
    "add_cpu_scalar_tensor": lambda L: e(L, 2, 3) + L.ones(()),
    "int_promote": lambda L: e(L, 2, dtype=L.int32) * 2.5,
    "compare": lambda L: e(L, 2, 3) == e(L, 2, 3),
    "where": lambda L: L.where(e(L, 2, 3) > 0, e(L, 2, 3), 0),
    "exp": lambda L: e(L, 2, 3).exp(),
    "sum": lambda L: e(L, 2, 3).sum(),
    "sum_dim": lambda L: e(L, 2, 3).sum(0),
    "mean_keepdim": lambda L: e(L, 2, 3).mean(1, keepdim=True),
    "max_dim": lambda L: L.max(e(L, 2, 3), 1),
    "argmax": lambda L: L.argmax(e(L, 2, 3)),
    "topk": lambda L: L.topk(e(L, 5), 2),
    "sort": lambda L: L.sort(e(L, 2, 3)),
    "cumsum": lambda L: L.cumsum(e(L, 2, 3), 0),
    "any": lambda L: L.isnan(e(L, 2, 3)).any(),
    "norm": lambda L: e(L, 2, 3).norm(),
    "matmul": lambda L: e(L, 2, 3) @ e(L, 3, 4),
    "bmm": lambda L: L.bmm(e(L, 5, 2, 3), e(L, 5, 3, 4)),
    "matmul_int": lambda L: e(L, 2, 3, dtype=L.int64) @ e(L, 3, dtype=L.int64),
    "cat": lambda L: L.cat([e(L, 2, 3), e(L, 1, 3)]),
    "stack": lambda L: L.stack([e(L, 2), e(L, 2)], 1),
    "view": lambda L: e(L, 2, 3).view(3, 2),
    "index": lambda L: e(L, 4, 3)[1:, 0],
    "index_tensor": lambda L: e(L, 3, 3)[L.tensor([0, 5])],
    "index_select_meta_index": lambda L: e(L, 3, 3).index_select(1, e(L, 4, dtype=L.int64)),
    "gather": lambda L: L.gather(e(L, 3, 3), 1, e(L, 3, 2, dtype=L.int64)),
    "conv2d": lambda L: L.nn.functional.conv2d(e(L, 1, 3, 8, 8), e(L, 4, 3, 3, 3), padding=1, stride=2),
    "max_pool2d": lambda L: L.nn.functional.max_pool2d(e(L, 1, 3, 8, 8), 2),
    "softmax": lambda L: L.softmax(e(L, 2, 5), -1),
    "layer_norm": lambda L: L.nn.functional.layer_norm(e(L, 2, 5), (5,)),
    "batch_norm": lambda L: L.nn.functional.batch_norm(e(L, 4, 3), None, None, training=True),
    "cross_entropy": lambda L: L.nn.functional.cross_entropy(e(L, 4, 3), e(L, 4, dtype=L.int64)),
    "embedding": lambda L: L.nn.functional.embedding(e(L, 3, dtype=L.int64), e(L, 10, 4)),
    "one_hot_classes": lambda L: L.nn.functional.one_hot(e(L, 3, dtype=L.int64), 5),
    "dropout": lambda L: L.nn.functional.dropout(e(L, 2, 3), 0.5),
    "sdpa": lambda L: L.nn.functional.scaled_dot_product_attention(e(L, 1, 2, 4, 8), e(L, 1, 2, 4, 8),
                                                                   e(L, 1, 2, 4, 8)),
    "linalg_inv": lambda L: L.linalg.inv(e(L, 3, 3)),
    "linalg_solve": lambda L: L.linalg.solve(e(L, 2, 3, 3), e(L, 2, 3)),
    "cholesky": lambda L: L.linalg.cholesky(e(L, 3, 3, dtype=L.float64)),
    "lu_solve": lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(e(L, 3, 3)), e(L, 3, 2)),
    "fft": lambda L: L.fft.fft(e(L, 8)),
    "rfft": lambda L: L.fft.rfft(e(L, 2, 8)),
    "multinomial": lambda L: L.multinomial(e(L, 3), 2),
    "bernoulli": lambda L: L.bernoulli(e(L, 3)),
    "to_dtype": lambda L: e(L, 2).to(L.float16),
    "half": lambda L: e(L, 2).half(),
}


@pytest.mark.parametrize("name", list(OPS))
def test_ops_infer_metadata_like_pytorch(name):
    same_meta(OPS[name](tandem), OPS[name](torch))


def test_setitem_keeps_meta():
    x = e(tandem, 3, 3)
    x[0] = 1.0
    x[:, 1] = tandem.ones(3)
    assert x.is_meta and x.shape == (3, 3)


ERRORS = {
    "cpu": lambda L: e(L, 2).cpu(),
    "to_cpu": lambda L: e(L, 2).to("cpu"),
    "tolist": lambda L: e(L, 2).tolist(),
    "numpy": lambda L: e(L, 2).numpy(),
    "array": lambda L: e(L, 2).__array__(),
    "item": lambda L: e(L, 2).sum().item(),
    "bool": lambda L: bool(e(L, 1)),
    "float": lambda L: float(e(L, 1)),
    "copy_out": lambda L: L.ones(2).copy_(e(L, 2)),
    "allclose": lambda L: L.allclose(e(L, 2), e(L, 2)),
    "dlpack": lambda L: e(L, 2).__dlpack__(),
    "dlpack_device": lambda L: e(L, 2).__dlpack_device__(),
    "one_hot_infer": lambda L: L.nn.functional.one_hot(e(L, 3, dtype=L.int64)),
    "format": lambda L: format(L.empty((), device="meta"), ".3f"),
    "pin_memory": lambda L: e(L, 2).pin_memory(),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name):
    assert_same_error(ERRORS[name])


@pytest.mark.parametrize("case", [lambda L: L.nonzero(e(L, 2, 3)), lambda L: e(L, 2, 3)[e(L, 2, 3) > 0],
                                  lambda L: L.masked_select(e(L, 2, 3), e(L, 2, 3) > 0),
                                  lambda L: L.unique(e(L, 3)), lambda L: L.equal(e(L, 2), e(L, 2))],
                         ids=["nonzero", "bool_mask", "masked_select", "unique", "equal"])
def test_data_dependent_ops_raise_not_implemented(case):
    """PyTorch's meta kernels refuse ops whose result's shape depends on the values: NotImplementedError
    (tandem's message names the reason rather than PyTorch's registration machinery)."""
    assert isinstance(raised(lambda: case(torch)), NotImplementedError)
    err = raised(lambda: case(tandem))
    assert isinstance(err, NotImplementedError), err
    assert "meta" in str(err).lower()


@pytest.mark.parametrize("case", [lambda L: e(L, 2, 3) + L.ones(2, 3), lambda L: L.cat([e(L, 2, 3), L.ones(2, 3)]),
                                  lambda L: L.ones(2, 3) * e(L, 2, 3)], ids=["add", "cat", "mul_cpu_first"])
def test_meta_and_cpu_tensors_do_not_mix(case):
    """A RuntimeError in both (PyTorch's meta kernels word it "Tensor on device cpu is not on the expected device
    meta!", tandem gives its usual device-mismatch message naming both devices)."""
    assert isinstance(raised(lambda: case(torch)), RuntimeError)
    err = raised(lambda: case(tandem))
    assert isinstance(err, RuntimeError)
    assert "meta and cpu" in str(err) or "cpu and meta" in str(err)


def test_device_object():
    d = tandem.device("meta")
    assert (d.type, d.index, str(d), repr(d)) == ("meta", None, "meta", "device(type='meta')")
    assert tandem.empty(2, device="meta:0").device == d
    assert tandem.device("meta", 0).type == "meta"
    with pytest.raises(RuntimeError, match="^Expected one of cpu, cuda, ipu, .*, "
                                           "privateuseone device type at start of device string: "
                                           "metal"):
        tandem.device("metal")
    assert e(tandem, 2).is_meta and not e(tandem, 2).is_cuda and not e(tandem, 2).is_cpu
    assert not tandem.ones(2).is_meta
    assert e(tandem, 2, 3).data_ptr() == 0
    assert e(tandem, 2, 3).untyped_storage().nbytes() == 24
    assert e(tandem, 2, 3).stride() == (3, 1) and e(tandem, 2).element_size() == 4
    x = e(tandem, 2)
    assert x.to("meta") is x
    assert e(tandem, 2).type() == "tandem.meta.FloatTensor"
    assert e(tandem, 2, dtype=tandem.int64).type() == "tandem.meta.LongTensor"
    assert e(tandem, 2).type("tandem.meta.DoubleTensor").dtype == tandem.float64


def test_autograd_on_meta():
    for lib in (tandem, torch):
        x = e(lib, 3, 4, grad=True)
        w = e(lib, 4, 2, grad=True)
        y = (x @ w).relu().sum()
        assert y.is_meta and y.grad_fn is not None
        y.backward()
        assert x.grad.is_meta and tuple(x.grad.shape) == (3, 4)
        assert w.grad.is_meta and tuple(w.grad.shape) == (4, 2)
    x = e(tandem, 3, grad=True)
    (g,) = tandem.autograd.grad(x.exp().sum(), [x])
    assert g.is_meta and tuple(g.shape) == (3,)


def test_meta_init_does_not_draw_from_cpu_rng():
    for lib in (tandem, torch):
        lib.manual_seed(7)
        expected = lib.rand(3).tolist()
        lib.manual_seed(7)
        lib.nn.Linear(64, 64, device="meta")
        lib.randn(100, device="meta")
        assert lib.rand(3).tolist() == expected


def build_on_meta(lib):
    with lib.device("meta"):
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
        inner = lib.ones(3)
    return model, inner


def test_device_context_and_to_empty():
    model, inner = build_on_meta(tandem)
    tmodel, tinner = build_on_meta(torch)
    same_meta(inner, tinner)
    for (n, p), (tn, tp) in zip(model.named_parameters(), tmodel.named_parameters()):
        assert n == tn
        same_meta(p, tp)
    assert repr(model[0].weight) == repr(tmodel[0].weight).replace("torch.", "tandem.")
    out = model(e(tandem, 5, 4))
    same_meta(out, tmodel(e(torch, 5, 4)))
    real = model.to_empty(device="cpu")
    assert all(p.device.type == "cpu" for p in real.parameters())
    for m in real.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    y = real(tandem.ones(5, 4))
    assert y.shape == (5, 2) and bool(tandem.isfinite(y).all())


def test_to_empty_on_emulated_cuda(device):
    model = tandem.nn.Linear(3, 2, device="meta").to_empty(device=device)
    assert model.weight.device == tandem.device(device)
    model.reset_parameters()
    assert model(tandem.ones(1, 3, device=device)).shape == (1, 2)


def test_device_tensors_move_to_meta_and_not_back(device):
    x = tandem.ones(2, 3, device=device)
    m = x.to("meta")
    assert m.is_meta and m.shape == (2, 3)
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
        m.to(device)


def test_load_state_dict_into_meta_module():
    src = {"weight": tandem.ones(2, 3), "bias": tandem.zeros(2)}
    meta = tandem.nn.Linear(3, 2, device="meta")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = meta.load_state_dict(src)
    assert str(result) == "<All keys matched successfully>"
    assert meta.weight.is_meta
    assert [str(w.message) for w in seen] == [
        f"for {k}: copying from a non-meta parameter in the checkpoint to a meta parameter in the current model, "
        "which is a no-op. (Did you mean to pass `assign=True` to assign items in the state dictionary to their "
        "corresponding key in the module instead of copying them in place?)" for k in ("weight", "bias")]
    meta.load_state_dict(src, assign=True)
    assert meta.weight.device.type == "cpu" and isinstance(meta.weight, tandem.nn.Parameter)
    assert meta.weight.requires_grad
    assert meta(tandem.ones(1, 3)).tolist() == [[3.0, 3.0]]


def test_model_ensembling_tutorial_base_on_meta():
    """PyTorch's model-ensembling tutorial: the base module that functional_call runs is a meta copy."""
    tandem.manual_seed(0)
    models = [tandem.nn.Sequential(tandem.nn.Linear(3, 4), tandem.nn.ReLU(), tandem.nn.Linear(4, 2))
              for _ in range(3)]
    params, buffers = tandem.func.stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(p.is_meta for p in base.parameters())

    def fmodel(params, buffers, x):
        return tandem.func.functional_call(base, (params, buffers), (x,))

    x = tandem.randn(5, 3)
    out = tandem.vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    expected = tandem.stack([m(x) for m in models])
    assert out.device.type == "cpu" and out.shape == (3, 5, 2)
    assert tandem.allclose(out, expected, atol=1e-6)


def test_shape_inference_trick():
    """A common idiom: run the feature extractor on a meta input to size the classifier."""
    features = tandem.nn.Sequential(tandem.nn.Conv2d(3, 8, 3), tandem.nn.MaxPool2d(2), tandem.nn.Flatten())
    features_meta = copy.deepcopy(features).to("meta")
    n = features_meta(tandem.empty(1, 3, 32, 32, device="meta")).shape[1]
    assert n == 8 * 15 * 15


def test_pickled_device_and_printing_module():
    import pickle
    assert pickle.loads(pickle.dumps(tandem.device("meta"))) == tandem.device("meta")
    lin = tandem.nn.Linear(2, 3, device="meta")
    tlin = torch.nn.Linear(2, 3, device="meta")
    assert repr(lin) == repr(tlin)
    assert str(lin.state_dict()) == str(tlin.state_dict()).replace("torch.", "tandem.")


def twice_op(lib, name, fake):
    def twice(x: lib.Tensor) -> lib.Tensor:
        return x * 2
    twice.__name__ = name
    op = lib.library.custom_op(f"metatest::{name}", mutates_args=())(twice)
    if fake:
        op.register_fake(lambda x: lib.empty_like(x))
    return op


def test_custom_op_runs_its_fake_on_meta():
    for lib in (tandem, torch):
        op = twice_op(lib, "with_fake", True)
        assert op(lib.ones(2)).tolist() == [2.0, 2.0]
        got = op(e(lib, 3))
        assert got.is_meta and tuple(got.shape) == (3,)
    assert_same_error(lambda L: twice_op(L, "no_fake", False)(e(L, 3)))


def test_save_and_load_meta_tensors(tmp_path):
    """A meta tensor saves (its record holds placeholder bytes) and loads back as a meta tensor, in both
    directions with PyTorch; map_location="meta" loads a real checkpoint without memory."""
    ours, theirs = tmp_path / "ours.pt", tmp_path / "theirs.pt"
    tandem.save({"w": e(tandem, 2, 3), "b": tandem.ones(2)}, ours)
    torch.save({"w": e(torch, 2, 3), "b": torch.ones(2)}, theirs)
    for path in (ours, theirs):
        got = tandem.load(path)
        assert repr(got["w"]) == "tensor(..., device='meta', size=(2, 3))"
        assert got["b"].tolist() == [1.0, 1.0]
        want = torch.load(path)
        assert repr(want["w"]) == "tensor(..., device='meta', size=(2, 3))" and want["b"].tolist() == [1.0, 1.0]
    mapped = tandem.load(ours, map_location="meta")
    assert mapped["b"].is_meta and mapped["w"].is_meta


def module_case(build, forward):
    def case(L):
        with L.device("meta"):
            module = build(L)
        return forward(L, module)
    return case


MODULES = {
    "lstm": module_case(lambda L: L.nn.LSTM(8, 16, 2, batch_first=True), lambda L, m: m(e(L, 2, 5, 8))[0]),
    "gru_bidirectional": module_case(lambda L: L.nn.GRU(8, 16, bidirectional=True), lambda L, m: m(e(L, 5, 2, 8))[1]),
    "transformer": module_case(
        lambda L: L.nn.TransformerEncoder(L.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True), 2),
        lambda L, m: m(e(L, 2, 5, 16))),
    "mha": module_case(lambda L: L.nn.MultiheadAttention(16, 2, batch_first=True),
                       lambda L, m: m(e(L, 2, 5, 16), e(L, 2, 5, 16), e(L, 2, 5, 16))),
    "batch_norm_train": module_case(lambda L: L.nn.BatchNorm2d(3), lambda L, m: m(e(L, 2, 3, 4, 4))),
    "conv_transpose": module_case(lambda L: L.nn.ConvTranspose2d(3, 4, 3, stride=2), lambda L, m: m(e(L, 1, 3, 5, 5))),
    "embedding_bag": module_case(lambda L: L.nn.EmbeddingBag(10, 4), lambda L, m: m(e(L, 2, 3, dtype=L.int64))),
    "group_norm": module_case(lambda L: L.nn.GroupNorm(2, 4), lambda L, m: m(e(L, 2, 4, 3))),
    "upsample": module_case(lambda L: L.nn.Upsample(scale_factor=2, mode="bilinear"), lambda L, m: m(e(L, 1, 3, 4, 4))),
    "ctc_loss": module_case(lambda L: L.nn.CTCLoss(), lambda L, m: m(e(L, 6, 2, 5).log_softmax(2),
                                                                    e(L, 2, 3, dtype=L.int64), (6, 6), (3, 3))),
    "grid_sample": module_case(lambda L: L.nn.Identity(), lambda L, m: L.nn.functional.grid_sample(
        e(L, 1, 1, 4, 4), e(L, 1, 3, 3, 2), align_corners=False)),
    "einsum": module_case(lambda L: L.nn.Identity(), lambda L, m: L.einsum("bij,bjk->bik", e(L, 2, 3, 4), e(L, 2, 4, 5))),
    "svd": module_case(lambda L: L.nn.Identity(), lambda L, m: L.linalg.svd(e(L, 4, 3))),
    "eigh": module_case(lambda L: L.nn.Identity(), lambda L, m: L.linalg.eigh(e(L, 3, 3))),
    "init_orthogonal": module_case(lambda L: L.nn.Identity(), lambda L, m: L.nn.init.orthogonal_(e(L, 4, 4))),
    "init_trunc_normal": module_case(lambda L: L.nn.Identity(), lambda L, m: L.nn.init.trunc_normal_(e(L, 4, 4))),
    "clip_grad_norm": module_case(lambda L: L.nn.Linear(3, 2), lambda L, m: (
        m(e(L, 4, 3)).sum().backward(), L.nn.utils.clip_grad_norm_(m.parameters(), 1.0))[1]),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_modules_on_meta_match_pytorch(name):
    same_meta(MODULES[name](tandem), MODULES[name](torch), nodes=False)


@pytest.mark.parametrize("opt", ["SGD", "AdamW", "RMSprop"])
def test_optimizer_steps_on_meta(opt):
    for lib in (tandem, torch):
        model = lib.nn.Linear(3, 2, device="meta")
        optimizer = getattr(lib.optim, opt)(model.parameters(), lr=0.1)
        model(e(lib, 4, 3)).sum().backward()
        optimizer.step()
        assert model.weight.is_meta and all(v.is_meta for s in optimizer.state.values() for v in s.values()
                                            if isinstance(v, lib.Tensor) and v.dim() > 0)


@pytest.mark.parametrize("args", [(tandem.float32, (2,), ("x",), False), ("float32", (2,), (1,), False),
                                  (tandem.float32, [2], (1,), False), (tandem.float32, (2,), (1,), 1)])
def test_load_refuses_a_damaged_meta_tensor(args):
    import pickle
    from tandem._torch_format_read import _rebuild_meta_tensor
    with pytest.raises(pickle.UnpicklingError, match="a meta tensor in the file is damaged"):
        _rebuild_meta_tensor(*args)
