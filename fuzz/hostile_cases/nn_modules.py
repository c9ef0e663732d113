"""torch.nn modules: constructor arguments (negative sizes, groups that do not divide, unknown padding modes and
nonlinearities, out-of-range dropout and padding_idx), forward inputs of the wrong rank, channels or dtype, and
Module's own bookkeeping (register_buffer/parameter names, attribute assignment, load_state_dict). The recurrent
layers and attention are in nn_recurrent.py, the losses in nn_losses.py; both use the helpers here."""
from . import R, T


def nn(L):
    return L.nn


def x(L, d, shape, dtype="float32"):
    return R(L, shape, d, dtype)


def run(module, d, *inputs):
    """module moved to d and called (construction errors surface before the move)."""
    return module.to(d)(*inputs)


def seeded(L, module, d):
    """A module whose parameters are deterministic (both libraries' default inits draw differently)."""
    with L.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(R(L, tuple(p.shape), "cpu", str(p.dtype).split(".")[-1], scale=0.5 + 0.1 * i))
    return module.to(d)


def mha(L, d, **kw):
    return seeded(L, nn(L).MultiheadAttention(4, 2, **kw), d)


def q(L, d, shape=(3, 2, 4)):
    return x(L, d, shape)


def sd(L, module):
    """A state dict of plain tensors."""
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _load(L, module, state, **kw):
    return str(module.load_state_dict(state, **kw))


def _register_buffer(L, name, value):
    m = nn(L).Linear(2, 2)
    m.register_buffer(name, value)
    return sorted(k for k, _ in m.named_buffers())


def _register_parameter(L, name, value):
    m = nn(L).Linear(2, 2)
    m.register_parameter(name, value)
    return sorted(k for k, _ in m.named_parameters())


def _assign_weight(L, value):
    m = nn(L).Linear(2, 2)
    m.weight = value
    return m.weight is None


CASES = {
    # ---- constructors
    "Linear/in_negative": lambda L, d: nn(L).Linear(-1, 3),
    "Linear/out_negative": lambda L, d: nn(L).Linear(3, -2),
    "Linear/in_float": lambda L, d: nn(L).Linear(3.5, 2),
    "Linear/in_str": lambda L, d: nn(L).Linear("3", 2),
    "Linear/zero_in": lambda L, d: seeded(L, nn(L).Linear(0, 3), d)(L.ones(2, 0, device=d)),
    "Bilinear/negative": lambda L, d: nn(L).Bilinear(2, -1, 3),
    "Conv2d/in_zero": lambda L, d: str(nn(L).Conv2d(0, 3, 3)),
    "Conv2d/in_negative": lambda L, d: nn(L).Conv2d(-1, 3, 3),
    "Conv2d/out_negative": lambda L, d: nn(L).Conv2d(2, -3, 3),
    "Conv2d/kernel_zero": lambda L, d: run(nn(L).Conv2d(2, 3, 0), d, x(L, d, (1, 2, 5, 5))),
    "Conv2d/stride_zero": lambda L, d: run(nn(L).Conv2d(2, 3, 3, stride=0), d, x(L, d, (1, 2, 5, 5))),
    "Conv2d/groups_zero": lambda L, d: nn(L).Conv2d(2, 4, 3, groups=0),
    "Conv2d/groups_negative": lambda L, d: nn(L).Conv2d(2, 4, 3, groups=-2),
    "Conv2d/in_not_divisible": lambda L, d: nn(L).Conv2d(3, 4, 3, groups=2),
    "Conv2d/out_not_divisible": lambda L, d: nn(L).Conv2d(4, 3, 3, groups=2),
    "Conv2d/bad_padding_mode": lambda L, d: nn(L).Conv2d(2, 3, 3, padding_mode="wrap"),
    "Conv2d/bad_padding_str": lambda L, d: nn(L).Conv2d(2, 3, 3, padding="full"),
    "Conv2d/same_strided": lambda L, d: nn(L).Conv2d(2, 3, 3, padding="same", stride=2),
    "Conv2d/kernel_3_values": lambda L, d: run(nn(L).Conv2d(2, 3, (3, 3, 3)), d, x(L, d, (1, 2, 5, 5))),
    "Conv1d/padding_negative": lambda L, d: run(nn(L).Conv1d(2, 3, 3, padding=-1), d, x(L, d, (1, 2, 5))),
    "ConvTranspose2d/reflect": lambda L, d: nn(L).ConvTranspose2d(2, 3, 3, padding_mode="reflect"),
    "ConvTranspose2d/output_padding_big": lambda L, d: run(nn(L).ConvTranspose2d(2, 3, 3, stride=2,
                                                                                 output_padding=2),
                                                           d, x(L, d, (1, 2, 4, 4))),
    "ConvTranspose2d/groups_not_dividing": lambda L, d: nn(L).ConvTranspose2d(3, 4, 3, groups=2),
    "BatchNorm2d/zero": lambda L, d: run(nn(L).BatchNorm2d(0), d, x(L, d, (2, 0, 3, 3))),
    "BatchNorm2d/negative": lambda L, d: nn(L).BatchNorm2d(-1),
    "BatchNorm1d/float_features": lambda L, d: nn(L).BatchNorm1d(2.5),
    "GroupNorm/not_divisible": lambda L, d: nn(L).GroupNorm(3, 4),
    "GroupNorm/zero_groups": lambda L, d: nn(L).GroupNorm(0, 4),
    "LayerNorm/negative": lambda L, d: nn(L).LayerNorm(-2),
    "Embedding/negative_count": lambda L, d: nn(L).Embedding(-1, 3),
    "Embedding/negative_dim": lambda L, d: nn(L).Embedding(5, -3),
    "Embedding/padding_idx_past": lambda L, d: nn(L).Embedding(5, 3, padding_idx=5),
    "Embedding/padding_idx_below": lambda L, d: nn(L).Embedding(5, 3, padding_idx=-6),
    "Embedding/weight_wrong_shape": lambda L, d: nn(L).Embedding(5, 3, _weight=L.ones(4, 3)),
    "Embedding/from_pretrained_1d": lambda L, d: nn(L).Embedding.from_pretrained(L.ones(5)),
    "Dropout/p_negative": lambda L, d: nn(L).Dropout(-0.5),
    "Dropout/p_above_one": lambda L, d: nn(L).Dropout(1.5),
    "Dropout2d/p_above_one": lambda L, d: nn(L).Dropout2d(2.0),
    "AlphaDropout/p_negative": lambda L, d: nn(L).AlphaDropout(-1.0),
    "RNN/hidden_zero": lambda L, d: nn(L).RNN(3, 0),
    "RNN/hidden_negative": lambda L, d: nn(L).RNN(3, -4),
    "RNN/layers_zero": lambda L, d: nn(L).RNN(3, 4, num_layers=0),
    "RNN/bad_nonlinearity": lambda L, d: nn(L).RNN(3, 4, nonlinearity="sigmoid"),
    "RNN/dropout_above_one": lambda L, d: nn(L).RNN(3, 4, dropout=1.5),
    "RNN/dropout_bool": lambda L, d: nn(L).RNN(3, 4, dropout=True),
    "RNN/hidden_float": lambda L, d: nn(L).RNN(3, 4.0),
    "LSTM/proj_equal_hidden": lambda L, d: nn(L).LSTM(3, 4, proj_size=4),
    "LSTM/proj_negative": lambda L, d: nn(L).LSTM(3, 4, proj_size=-1),
    "GRU/proj_size": lambda L, d: nn(L).GRU(3, 4, proj_size=2),
    "MultiheadAttention/heads_not_dividing": lambda L, d: nn(L).MultiheadAttention(5, 2),
    "MultiheadAttention/heads_zero": lambda L, d: nn(L).MultiheadAttention(4, 0),
    "TransformerEncoderLayer/heads_not_dividing": lambda L, d: nn(L).TransformerEncoderLayer(5, 2),
    "TransformerEncoderLayer/bad_activation": lambda L, d: nn(L).TransformerEncoderLayer(4, 2, activation="tanh"),
    "MaxPool2d/padding_too_big": lambda L, d: run(nn(L).MaxPool2d(2, padding=2), d, x(L, d, (1, 1, 4, 4))),
    "AvgPool2d/kernel_zero": lambda L, d: run(nn(L).AvgPool2d(0), d, x(L, d, (1, 1, 4, 4))),
    "Upsample/no_size": lambda L, d: run(nn(L).Upsample(), d, x(L, d, (1, 1, 4, 4))),
    "PixelShuffle/negative": lambda L, d: run(nn(L).PixelShuffle(-2), d, x(L, d, (1, 4, 2, 2))),
    "Softmax/dim_past": lambda L, d: run(nn(L).Softmax(dim=3), d, x(L, d, (2, 3))),
    "Flatten/start_after_end": lambda L, d: run(nn(L).Flatten(2, 1), d, x(L, d, (2, 3, 4))),
    "Flatten/dim_past": lambda L, d: run(nn(L).Flatten(1, 5), d, x(L, d, (2, 3, 4))),
    "Unflatten/sizes_wrong": lambda L, d: run(nn(L).Unflatten(1, (2, 3)), d, x(L, d, (2, 5))),
    "Unflatten/two_inferred": lambda L, d: run(nn(L).Unflatten(1, (-1, -1)), d, x(L, d, (2, 6))),
    "Sequential/not_a_module": lambda L, d: nn(L).Sequential(nn(L).ReLU(), 3),
    "ModuleList/append_int": lambda L, d: nn(L).ModuleList().append(3),
    "ModuleDict/value_int": lambda L, d: nn(L).ModuleDict({"a": 3}),
    "ParameterList/index_past": lambda L, d: nn(L).ParameterList([nn(L).Parameter(L.ones(1))])[3],
    "Sequential/index_past": lambda L, d: nn(L).Sequential(nn(L).ReLU())[2],
    # ---- Module bookkeeping
    "register_buffer/dotted": lambda L, d: _register_buffer(L, "a.b", L.ones(1)),
    "register_buffer/empty_name": lambda L, d: _register_buffer(L, "", L.ones(1)),
    "register_buffer/existing_attr": lambda L, d: _register_buffer(L, "weight", L.ones(1)),
    "register_buffer/not_tensor": lambda L, d: _register_buffer(L, "b", [1.0]),
    "register_buffer/name_int": lambda L, d: _register_buffer(L, 3, L.ones(1)),
    "register_buffer/none_ok": lambda L, d: _register_buffer(L, "b", None),
    "register_parameter/plain_tensor": lambda L, d: _register_parameter(L, "p", L.ones(1)),
    "register_parameter/dotted": lambda L, d: _register_parameter(L, "a.b", nn(L).Parameter(L.ones(1))),
    "register_parameter/existing": lambda L, d: _register_parameter(L, "training", nn(L).Parameter(L.ones(1))),
    "assign/weight_plain_tensor": lambda L, d: _assign_weight(L, L.ones(2, 2)),
    "assign/weight_none": lambda L, d: _assign_weight(L, None),
    "assign/weight_number": lambda L, d: _assign_weight(L, 3.0),
    "load_state_dict/missing": lambda L, d: _load(L, nn(L).Linear(2, 3), {"weight": L.ones(3, 2)}),
    "load_state_dict/missing_not_strict": lambda L, d: _load(L, nn(L).Linear(2, 3), {"weight": L.ones(3, 2)},
                                                             strict=False),
    "load_state_dict/unexpected": lambda L, d: _load(L, nn(L).Linear(2, 3), dict(sd(L, nn(L).Linear(2, 3)),
                                                                                 extra=L.ones(1))),
    "load_state_dict/wrong_shape": lambda L, d: _load(L, nn(L).Linear(2, 3), {"weight": L.ones(2, 3),
                                                                              "bias": L.ones(3)}),
    "load_state_dict/not_a_mapping": lambda L, d: _load(L, nn(L).Linear(2, 3), [1, 2]),
    "load_state_dict/value_not_tensor": lambda L, d: _load(L, nn(L).Linear(2, 3), {"weight": [[1.0] * 2] * 3,
                                                                                   "bias": L.ones(3)}),
    "to/bad_device": lambda L, d: nn(L).Linear(2, 3).to("tpu"),
    "to/bad_dtype": lambda L, d: nn(L).Linear(2, 3).to(L.int64),
    "children/getattr_missing": lambda L, d: nn(L).Linear(2, 3).nonexistent,
    # ---- forward: wrong rank, channels, dtype
    "Linear/features_wrong": lambda L, d: run(nn(L).Linear(3, 4), d, x(L, d, (2, 5))),
    "Linear/0dim": lambda L, d: run(nn(L).Linear(3, 4), d, L.tensor(1.0, device=d)),
    "Linear/int_input": lambda L, d: run(nn(L).Linear(3, 4), d, L.ones(2, 3, dtype=L.int64, device=d)),
    "Linear/double_input": lambda L, d: run(nn(L).Linear(3, 4), d, x(L, d, (2, 3), "float64")),
    "Conv2d/channels_wrong": lambda L, d: run(nn(L).Conv2d(2, 3, 3), d, x(L, d, (1, 3, 5, 5))),
    "Conv2d/2d_input": lambda L, d: run(nn(L).Conv2d(2, 3, 3), d, x(L, d, (5, 5))),
    "Conv2d/5d_input": lambda L, d: run(nn(L).Conv2d(2, 3, 3), d, x(L, d, (1, 1, 2, 5, 5))),
    "Conv2d/input_smaller_than_kernel": lambda L, d: run(nn(L).Conv2d(2, 3, 3), d, x(L, d, (1, 2, 2, 2))),
    "Conv2d/reflect_padding_too_big": lambda L, d: run(nn(L).Conv2d(2, 3, 3, padding=3, padding_mode="reflect"), d,
                                                       x(L, d, (1, 2, 3, 3))),
    "Conv2d/double_input": lambda L, d: run(nn(L).Conv2d(2, 3, 3), d, x(L, d, (1, 2, 5, 5), "float64")),
    "Conv2d/circular_ok": lambda L, d: seeded(L, nn(L).Conv2d(2, 3, 3, padding=1, padding_mode="circular"), d)(
        x(L, d, (1, 2, 4, 4))),
    "Conv2d/unbatched_ok": lambda L, d: seeded(L, nn(L).Conv2d(2, 3, 3), d)(x(L, d, (2, 4, 4))),
    "Conv1d/channels_wrong": lambda L, d: run(nn(L).Conv1d(2, 3, 3), d, x(L, d, (1, 3, 5))),
    "Conv3d/4d_input_wrong_channels": lambda L, d: run(nn(L).Conv3d(2, 3, 2), d, x(L, d, (1, 3, 3, 3))),
    "ConvTranspose2d/channels_wrong": lambda L, d: run(nn(L).ConvTranspose2d(2, 3, 3), d, x(L, d, (1, 3, 4, 4))),
    "ConvTranspose2d/output_size_wrong": lambda L, d: nn(L).ConvTranspose2d(2, 3, 3, stride=2).to(d)(
        x(L, d, (1, 2, 4, 4)), output_size=(20, 20)),
    "BatchNorm2d/channels_wrong": lambda L, d: run(nn(L).BatchNorm2d(3), d, x(L, d, (2, 4, 5, 5))),
    "BatchNorm2d/3d_input": lambda L, d: run(nn(L).BatchNorm2d(3), d, x(L, d, (3, 5, 5))),
    "BatchNorm1d/one_per_channel": lambda L, d: run(nn(L).BatchNorm1d(3), d, x(L, d, (1, 3))),
    "BatchNorm1d/4d_input": lambda L, d: run(nn(L).BatchNorm1d(3), d, x(L, d, (2, 3, 4, 4))),
    "BatchNorm1d/eval_one_value": lambda L, d: nn(L).BatchNorm1d(3).eval().to(d)(x(L, d, (1, 3))),
    "InstanceNorm2d/channels_wrong_affine": lambda L, d: run(nn(L).InstanceNorm2d(3, affine=True), d,
                                                             x(L, d, (2, 4, 5, 5))),
    "LayerNorm/shape_wrong": lambda L, d: run(nn(L).LayerNorm((4,)), d, x(L, d, (2, 3))),
    "GroupNorm/channels_wrong": lambda L, d: run(nn(L).GroupNorm(2, 4), d, x(L, d, (2, 3, 5))),
    "Embedding/index_past": lambda L, d: run(nn(L).Embedding(5, 3), d, T(L, [5], d)),
    "Embedding/index_negative": lambda L, d: run(nn(L).Embedding(5, 3), d, T(L, [-1], d)),
    "Embedding/float_index": lambda L, d: run(nn(L).Embedding(5, 3), d, T(L, [1.0], d)),
    "Embedding/bool_index": lambda L, d: run(nn(L).Embedding(5, 3), d, T(L, [True], d)),
    "EmbeddingBag/index_past": lambda L, d: run(nn(L).EmbeddingBag(5, 3), d, T(L, [[1, 5]], d)),
    "EmbeddingBag/bad_mode": lambda L, d: run(nn(L).EmbeddingBag(5, 3, mode="median"), d, T(L, [[1, 2]], d)),
    "PReLU/channels_wrong": lambda L, d: run(nn(L).PReLU(3), d, x(L, d, (2, 4))),
}

KNOWN = {
    "EmbeddingBag/index_past": "PyTorch checks embedding_bag's indices on its CPU only; tandem too (on the GPU "
                               "index_select's IndexError)",
    "BatchNorm2d/zero": "PyTorch fails with an incidental IndexError from select() on the empty running stats; "
                        "tandem fails computing the (empty) statistics",
    "Conv2d/kernel_3_values": "PyTorch checks the stride's length against the 5-d weight first; tandem names the "
                              "weight's rank",
    "to/bad_device": "tandem lists the device types it has (cpu, cuda), PyTorch its twenty",
}
