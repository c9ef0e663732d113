"""Dynamic quantization (tandem.ao.quantization.quantize_dynamic, tandem.quantization) against PyTorch's x86
engine: the same weights give the same outputs to float rounding (int8 weights, activations quantized per call,
float16 weights), for Linear, LSTM, GRU and the cells, with PyTorch's choice of layers, reprs, errors and
state_dict round trips. PyTorch's quantized layers run on the CPU only; tandem's give the same numbers on cuda."""
import copy
import io
import warnings

import numpy as np
import pytest

import tandem
from tandem import nn

torch = pytest.importorskip("torch")
tq = torch.ao.quantization

# PyTorch 2.15 marks torch.ao.quantization deprecated (a DeprecationWarning per call) and warns that quantized
# tensors are; neither concerns the numbers compared here.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


def twin(build_torch, build_tandem, device="cpu"):
    """A PyTorch model and a tandem one with the same float32 weights."""
    torch.manual_seed(0)
    ref = build_torch()
    ours = build_tandem()
    ours.load_state_dict({k: tandem.from_numpy(v.detach().numpy().copy()) for k, v in ref.state_dict().items()})
    return ref, ours.to(device)


def close(ours, ref, tol=3e-7):
    ours, ref = ours.detach().cpu().numpy(), ref.detach().numpy()
    assert ours.dtype == np.float32 and ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=tol, atol=tol)


def data(*shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def mlp(lib, k=16):
    return lib.nn.Sequential(lib.nn.Linear(k, 32), lib.nn.ReLU(), lib.nn.Linear(32, 4))


@pytest.mark.parametrize("dtype", ["qint8", "float16"])
@pytest.mark.parametrize("k", [16, 700])  # 700 inputs: the integer sums go through float64 (past 2**24 / 255 / 128)
def test_linear_matches_pytorch(device, dtype, k):
    ref, ours = twin(lambda: mlp(torch, k), lambda: mlp(tandem, k), device)
    ref_q = tq.quantize_dynamic(ref, {torch.nn.Linear}, dtype=getattr(torch, dtype))
    ours_q = tandem.quantization.quantize_dynamic(ours, {nn.Linear}, dtype=getattr(tandem, dtype))
    x = data(7, 3, k)  # leading dimensions are flattened, the range is the whole input's
    got = ours_q(tandem.from_numpy(x).to(device))
    assert got.device == tandem.device(device) and got.dtype == tandem.float32 and not got.requires_grad
    close(got, ref_q(torch.from_numpy(x)), tol=3e-6 if k == 700 else 3e-7)
    assert isinstance(ours_q[0], tandem.ao.nn.quantized.dynamic.Linear)
    assert isinstance(ours[0], nn.Linear)  # not inplace: the model passed in is unchanged


def test_per_channel_weights_match_pytorch():
    ref, ours = twin(lambda: torch.nn.Sequential(torch.nn.Linear(16, 8)), lambda: nn.Sequential(nn.Linear(16, 8)))
    ref_q = tq.quantize_dynamic(ref, {torch.nn.Linear: tq.per_channel_dynamic_qconfig})
    ours_q = tandem.ao.quantization.quantize_dynamic(
        ours, {nn.Linear: tandem.ao.quantization.per_channel_dynamic_qconfig})
    x = data(5, 16)
    close(ours_q(tandem.from_numpy(x)), ref_q(torch.from_numpy(x)))
    assert repr(ours_q[0]) == repr(ref_q[0]).replace("torch.", "tandem.")
    np.testing.assert_allclose(ours_q[0].weight().numpy(), ref_q[0].weight().dequantize().numpy(), rtol=0, atol=0)


def test_activation_range_edge_cases_match_pytorch():
    ref, ours = twin(lambda: torch.nn.Sequential(torch.nn.Linear(6, 5)), lambda: nn.Sequential(nn.Linear(6, 5)))
    ref_q, ours_q = tq.quantize_dynamic(ref), tandem.quantization.quantize_dynamic(ours)
    for x in (np.zeros((2, 6), np.float32), np.full((2, 6), 3.0, np.float32), np.full((2, 6), -2.0, np.float32),
              np.full((1, 6), 1e-7, np.float32), data(4, 6) * 1e-6, data(4, 6) * 1e4):
        close(ours_q(tandem.from_numpy(x)), ref_q(torch.from_numpy(x)), tol=2e-6 * max(1.0, float(abs(x).max())))
    assert tuple(ours_q(tandem.zeros(0, 6)).shape) == (0, 5)


RNN_CONFIGS = [
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("GRU", {}),
    ("GRU", {"num_layers": 2, "bidirectional": True}),
]


@pytest.mark.parametrize("kind,kw", RNN_CONFIGS)
def test_recurrent_layers_match_pytorch(device, kind, kw):
    ref, ours = twin(lambda: torch.nn.Sequential(getattr(torch.nn, kind)(6, 5, **kw)),
                     lambda: nn.Sequential(getattr(nn, kind)(6, 5, **kw)), device)
    ref_q, ours_q = tq.quantize_dynamic(ref), tandem.quantization.quantize_dynamic(ours)
    assert repr(ours_q) == repr(ref_q).replace("torch.", "tandem.")
    x = data(4, 3, 6)
    out, state = ours_q[0](tandem.from_numpy(x).to(device))
    ref_out, ref_state = ref_q[0](torch.from_numpy(x))
    close(out, ref_out)
    for mine, theirs in zip(state if kind == "LSTM" else [state], ref_state if kind == "LSTM" else [ref_state]):
        close(mine, theirs)
    assert out.device == tandem.device(device)


def test_lstm_packed_sequence_and_initial_state_match_pytorch():
    ref, ours = twin(lambda: torch.nn.Sequential(torch.nn.LSTM(6, 5, bidirectional=True)),
                     lambda: nn.Sequential(nn.LSTM(6, 5, bidirectional=True)))
    ref_q, ours_q = tq.quantize_dynamic(ref), tandem.quantization.quantize_dynamic(ours)
    x, h0, c0 = data(4, 3, 6), data(2, 3, 5, seed=2), data(2, 3, 5, seed=3)
    packed_ref = torch.nn.utils.rnn.pack_padded_sequence(torch.from_numpy(x), [4, 2, 1])
    packed = nn.utils.rnn.pack_padded_sequence(tandem.from_numpy(x), [4, 2, 1])
    out, (h, c) = ours_q[0](packed, (tandem.from_numpy(h0), tandem.from_numpy(c0)))
    ref_out, (ref_h, ref_c) = ref_q[0](packed_ref, (torch.from_numpy(h0), torch.from_numpy(c0)))
    close(out.data, ref_out.data)
    close(h, ref_h)
    close(c, ref_c)


@pytest.mark.parametrize("kind", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_pytorch(device, kind):
    ref, ours = twin(lambda: torch.nn.Sequential(getattr(torch.nn, kind)(6, 5)),
                     lambda: nn.Sequential(getattr(nn, kind)(6, 5)), device)
    ref_q, ours_q = tq.quantize_dynamic(ref), tandem.quantization.quantize_dynamic(ours)
    assert repr(ours_q) == repr(ref_q).replace("torch.", "tandem.")
    x, h = data(3, 6), data(3, 5, seed=2)
    if kind == "LSTMCell":
        got = ours_q[0](tandem.from_numpy(x).to(device), (tandem.from_numpy(h).to(device),) * 2)
        want = ref_q[0](torch.from_numpy(x), (torch.from_numpy(h),) * 2)
        close(got[0], want[0])
        close(got[1], want[1])
    else:
        close(ours_q[0](tandem.from_numpy(x).to(device), tandem.from_numpy(h).to(device)),
              ref_q[0](torch.from_numpy(x), torch.from_numpy(h)))
        close(ours_q[0](tandem.from_numpy(x).to(device)), ref_q[0](torch.from_numpy(x)))  # no h: zeros


def test_which_layers_are_replaced_follows_pytorch():
    def build(lib):
        return lib.nn.Sequential(lib.nn.Sequential(lib.nn.Linear(2, 2)), lib.nn.Linear(2, 2),
                                 lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
                                 lib.nn.Conv2d(1, 1, 1), lib.nn.Embedding(3, 3), lib.nn.RNN(2, 2))

    ref, ours = build(torch), build(tandem)
    for ref_spec, spec in [(None, None), ({"0"}, {"0"}), ({torch.nn.Linear}, {nn.Linear}),
                           ({"2.linear1": tq.default_dynamic_qconfig},
                            {"2.linear1": tandem.ao.quantization.default_dynamic_qconfig})]:
        assert repr(tandem.quantization.quantize_dynamic(ours, spec)) == \
            repr(tq.quantize_dynamic(ref, ref_spec)).replace("torch.", "tandem.")
    # MultiheadAttention's out_proj (NonDynamicallyQuantizableLinear) stays: the attention reads its weight.
    quantized = tandem.quantization.quantize_dynamic(ours)
    assert tuple(quantized[2](tandem.randn(3, 1, 8)).shape) == (3, 1, 8)
    assert not hasattr(quantized[1], "qconfig") and not hasattr(quantized[3], "qconfig")
    # The model itself is never replaced, only its children.
    lone = nn.Linear(2, 2)
    assert tandem.quantization.quantize_dynamic(lone) is not lone
    assert type(tandem.quantization.quantize_dynamic(lone)) is nn.Linear


def test_inplace_hooks_and_parameters():
    model = nn.Sequential(nn.Linear(4, 3))
    calls = []
    model[0].register_forward_hook(lambda mod, args, out: calls.append(tuple(out.shape)))
    same = tandem.quantization.quantize_dynamic(model, inplace=True)
    assert same is model and type(model[0]).__name__ == "Linear" and model[0]._get_name() == "DynamicQuantizedLinear"
    model(tandem.randn(2, 4))
    assert calls == [(2, 3)]  # the hook moved to the replacement, as in PyTorch
    assert list(model.parameters()) == [] and list(model.buffers()) == []
    x = tandem.randn(2, 4, requires_grad=True)
    assert not model(x).requires_grad  # the quantized products have no gradient


def test_state_dict_round_trip_and_file_size(tmp_path):
    model = nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.LSTM(256, 64))
    quantized = tandem.quantization.quantize_dynamic(model)
    assert list(quantized.state_dict()) == ["0.scale", "0.zero_point", "0._packed_params.dtype",
                                            "0._packed_params._packed_params", "2._all_weight_values.0.param"]
    assert quantized.state_dict()["0._packed_params.dtype"] is tandem.qint8
    float_path, int8_path = tmp_path / "float.pt", tmp_path / "int8.pt"
    tandem.save(model.state_dict(), float_path)
    tandem.save(quantized.state_dict(), int8_path)
    assert int8_path.stat().st_size < 0.3 * float_path.stat().st_size  # int8 weights: about a quarter
    fresh = tandem.quantization.quantize_dynamic(nn.Sequential(nn.Linear(256, 256), nn.ReLU(), nn.LSTM(256, 64)))
    result = fresh.load_state_dict(tandem.load(int8_path))  # weights_only=True: qint8 is an allowed global
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = tandem.randn(5, 2, 256)
    run = lambda m: m[2](m[1](m[0](x)))[0]  # noqa: E731
    assert tandem.equal(run(fresh), run(quantized))
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "0._packed_params.dtype"'):
        sd = quantized.state_dict()
        del sd["0._packed_params.dtype"]
        fresh.load_state_dict(sd)
    buffer = io.BytesIO()
    tandem.save(quantized, buffer)  # the whole model, as programs that torch.save(model) do
    buffer.seek(0)
    assert tandem.equal(run(tandem.load(buffer, weights_only=False)), run(quantized))
    assert tandem.equal(run(copy.deepcopy(quantized)), run(quantized))


def test_input_on_another_device_is_an_error(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    layer = tandem.quantization.quantize_dynamic(nn.Sequential(nn.Linear(4, 3)))[0]
    with pytest.raises(RuntimeError):
        layer(tandem.randn(2, 4, device=device))


def test_moving_a_quantized_model_keeps_its_arithmetic(device):
    quantized = tandem.quantization.quantize_dynamic(nn.Sequential(nn.Linear(8, 4), nn.GRU(4, 3)))
    x = tandem.randn(5, 1, 8)
    want = quantized[1](quantized[0](x))[0]
    moved = copy.deepcopy(quantized).to(device).half()  # .half() leaves packed weights alone, as PyTorch's
    got = moved[1](moved[0](x.to(device)))[0]
    assert got.device == tandem.device(device) and got.dtype == tandem.float32
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-6, atol=1e-6)


def test_errors_match_pytorch():
    model = nn.Sequential(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="^Don't know how to quantize with default settings for tandem.int8. "
                                         "Provide full qconfig please$"):
        tandem.quantization.quantize_dynamic(model, dtype=tandem.int8)
    with pytest.raises(RuntimeError) as info:
        tandem.quantization.quantize_dynamic(model, {nn.Linear}, dtype=tandem.int8)
    assert info.value.args == ("Unknown dtype specified for quantize_dynamic: ", "tandem.int8")
    with pytest.raises(NotImplementedError, match="weight-only quantization of Embedding"):
        tandem.quantization.quantize_dynamic(model, dtype=tandem.quint8)
    layer = tandem.quantization.quantize_dynamic(nn.Sequential(nn.Linear(8, 4)))[0]
    for x, message in [
            (tandem.full((1, 8), float("nan")), "In ChooseQuantizationParams, min should be less than or equal to max"),
            (tandem.randn(8), "The dimension of input tensor should be larger than or equal to 2"),
            (tandem.randn(2, 8).double(), "expected scalar type Float but found Double"),
            (tandem.randn(2, 5), "The number of rows in the packB should be equal to K: 5")]:
        with pytest.raises(RuntimeError) as info:
            layer(x)
        first, hint = str(info.value).split("\n")
        assert first == message and hint.startswith("hint: ")
        with pytest.raises(RuntimeError, match="^" + message):
            tq.quantize_dynamic(torch.nn.Sequential(torch.nn.Linear(8, 4)))[0](torch.from_numpy(x.numpy()))
    for lib in (tandem, torch):  # PyTorch's assertion: its quantized recurrent layers need biases
        with pytest.raises(AssertionError, match="^mod.bias must be True$"):
            lib.quantization.quantize_dynamic(lib.nn.Sequential(lib.nn.GRU(4, 4, bias=False)))
    with pytest.raises(TypeError, match="qconfig_spec must be None, a set of layer types or names, or a dict"):
        tandem.quantization.quantize_dynamic(model, [nn.Linear])
    with pytest.raises(AssertionError, match="only works for Linear, got Conv2d"):
        tandem.ao.nn.quantized.dynamic.Linear.from_float(nn.Conv2d(1, 1, 1))
    with pytest.raises(AssertionError, match="only works for nn.LSTM and nn.GRU, got RNN"):
        tandem.ao.nn.quantized.dynamic.LSTM.from_float(nn.RNN(2, 2))
    with pytest.raises(AssertionError, match="^Input float module must have qconfig defined$"):
        tandem.ao.nn.quantized.dynamic.Linear.from_float(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Unsupported dtype specified for dynamic quantization: tandem.int8"):
        tandem.ao.nn.quantized.dynamic.Linear(2, 2, dtype=tandem.int8)
    with pytest.raises(NotImplementedError, match="proj_size > 0"):
        tandem.quantization.quantize_dynamic(nn.Sequential(nn.LSTM(4, 4, proj_size=2)))


def test_quantized_names():
    assert [repr(d) for d in (tandem.qint8, tandem.quint8, tandem.qint32, tandem.quint4x2)] == \
        [repr(d).replace("torch.", "tandem.") for d in (torch.qint8, torch.quint8, torch.qint32, torch.quint4x2)]
    for name in ("qint8", "quint8", "qint32"):
        ours, ref = getattr(tandem, name), getattr(torch, name)
        assert (ours.is_floating_point, ours.is_complex, ours.itemsize) == \
            (ref.is_floating_point, ref.is_complex, ref.itemsize)
        for dtype in (ours, ref):
            with pytest.raises(RuntimeError, match="^isSignedType not supported for quantized types$"):
                dtype.is_signed
    assert repr(tandem.per_tensor_affine) == "tandem.per_tensor_affine"
    assert isinstance(tandem.per_channel_symmetric, tandem.qscheme)
    with pytest.raises(TypeError, match="^zeros\\(\\): argument 'dtype' must be torch.dtype, not _QuantizedDType"):
        tandem.zeros(2, dtype=tandem.qint8)
    import pickle
    assert pickle.loads(pickle.dumps(tandem.qint8)) is tandem.qint8
    assert tandem.quantization.quantize_dynamic is tandem.ao.quantization.quantize_dynamic
    assert tandem.nn.quantized.dynamic.LSTM is tandem.ao.nn.quantized.dynamic.LSTM
    assert tandem.backends.quantized.engine == torch.backends.quantized.engine == "x86"
    assert tandem.backends.quantized.supported_engines == torch.backends.quantized.supported_engines
    tandem.backends.quantized.engine = "qnnpack"
    try:
        assert tandem.backends.quantized.engine == "qnnpack"
        with pytest.raises(RuntimeError, match="^foo is not a valid value for quantized engine"):
            tandem.backends.quantized.engine = "foo"
    finally:
        tandem.backends.quantized.engine = "x86"


def test_tutorial_program_runs_unchanged():
    """The shape of PyTorch's dynamic quantization tutorials: quantize, print, compare sizes and outputs."""
    def program(torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)

            class Net(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.embed = torch.nn.Embedding(50, 32)
                    self.lstm = torch.nn.LSTM(32, 64, num_layers=2)
                    self.head = torch.nn.Linear(64, 50)

                def forward(self, tokens):
                    out, _ = self.lstm(self.embed(tokens))
                    return self.head(out)

            model = Net().eval()
            quantized = torch.quantization.quantize_dynamic(model, {torch.nn.LSTM, torch.nn.Linear},
                                                            dtype=torch.qint8)
            tokens = torch.randint(0, 50, (10, 4))
            with torch.no_grad():
                full, small = model(tokens), quantized(tokens)
            sizes = []
            for m in (model, quantized):
                buffer = io.BytesIO()
                torch.save(m.state_dict(), buffer)
                sizes.append(buffer.tell())
            return repr(quantized), (full - small).abs().max().item(), sizes

    ours, ref = program(tandem), program(torch)
    assert ours[0] == ref[0].replace("torch.", "tandem.")
    assert 1e-4 < ours[1] < 0.05 and 1e-4 < ref[1] < 0.05  # quantization error: small, not zero
    assert ours[2][1] < 0.35 * ours[2][0] and ref[2][1] < 0.35 * ref[2][0]
