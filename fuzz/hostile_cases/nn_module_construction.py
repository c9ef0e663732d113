"""nn modules constructed with hostile arguments, beyond nn_modules.py, conv_pool_params.py, nn_recurrent.py and
transformer_mha.py (which hold one or two per module): each constructor given zero, negative, float, bool, str and
None sizes; tuples of the wrong length; groups that divide neither or only one channel count; padding strings with
stride and dilation; padding modes that are unknown, misspelled or not supported by the transposed form;
Embedding/EmbeddingBag padding_idx at, past and below the table, max_norm and _weight of the wrong shape;
LayerNorm/RMSNorm/GroupNorm/BatchNorm/InstanceNorm shapes, eps and momentum (None, negative, str); dropout p at and
past its range and as a bool or str; activation parameters (Hardtanh bounds reversed, RReLU lower above upper,
Softplus beta of 0, Threshold, CELU alpha of 0, GLU dims); pads of negative and wrong-length sizes; Upsample with
size and scale_factor together or neither and unknown modes; Flatten/Unflatten; pooling kernels, strides and
paddings; MultiheadAttention and Transformer sizes and flags; the losses' reduction strings. A module that builds is
compared by its repr and the names, shapes and dtypes of its parameters and buffers; a few are run once so that the
errors PyTorch defers to forward are compared too."""
from . import R


def built(m):
    """What a constructed module has: its repr and its parameters' and buffers' names, shapes and dtypes (their
    values are random)."""
    params = [(n, tuple(p.shape), str(p.dtype)) for n, p in m.named_parameters()]
    buffers = [(n, tuple(b.shape) if b is not None else None) for n, b in m.named_buffers()]
    return repr(m), params, buffers


def make(cls, *args, **kw):
    return lambda L, d: built(getattr(L.nn, cls)(*args, **kw))


def run(cls, args, kw, shape, dtype="float32"):
    """Construct, move to the device and run on a deterministic input: the errors PyTorch defers to forward."""
    def fn(L, d):
        m = getattr(L.nn, cls)(*args, **kw).to(d)
        out = m(R(L, shape, d, dtype))
        return tuple(out.shape) if not isinstance(out, tuple) else [tuple(o.shape) for o in out]
    return fn


CONV_SIZES = {
    "ok": ((4, 6, 3), {}),
    "in_zero": ((0, 6, 3), {}),
    "out_zero": ((4, 0, 3), {}),
    "in_negative": ((-1, 6, 3), {}),
    "out_negative": ((4, -6, 3), {}),
    "in_float": ((4.0, 6, 3), {}),
    "in_bool": ((True, 6, 3), {}),
    "kernel_zero": ((4, 6, 0), {}),
    "kernel_negative": ((4, 6, -1), {}),
    "kernel_wrong_length": ((4, 6, (3, 3, 3, 3)), {}),
    "kernel_float": ((4, 6, 2.5), {}),
    "stride_zero": ((4, 6, 3), {"stride": 0}),
    "stride_negative": ((4, 6, 3), {"stride": -1}),
    "padding_negative": ((4, 6, 3), {"padding": -1}),
    "dilation_zero": ((4, 6, 3), {"dilation": 0}),
    "groups_zero": ((4, 6, 3), {"groups": 0}),
    "groups_negative": ((4, 6, 3), {"groups": -2}),
    "groups_not_dividing_in": ((4, 6, 3), {"groups": 3}),
    "groups_not_dividing_out": ((4, 6, 3), {"groups": 4}),
    "groups_float": ((4, 6, 3), {"groups": 2.0}),
    "padding_same": ((4, 6, 3), {"padding": "same"}),
    "padding_same_stride": ((4, 6, 3), {"padding": "same", "stride": 2}),
    "padding_same_stride_tuple_ones": ((4, 6, 3), {"padding": "same", "stride": (1,)}),
    "padding_valid_stride": ((4, 6, 3), {"padding": "valid", "stride": 2}),
    "padding_bad_str": ((4, 6, 3), {"padding": "full"}),
    "padding_upper_same": ((4, 6, 3), {"padding": "SAME"}),
    "padding_mode_bad": ((4, 6, 3), {"padding_mode": "reflection"}),
    "padding_mode_none": ((4, 6, 3), {"padding_mode": None}),
    "padding_mode_circular": ((4, 6, 3), {"padding_mode": "circular", "padding": 1}),
    "bias_false": ((4, 6, 3), {"bias": False}),
    "bias_str": ((4, 6, 3), {"bias": "no"}),
    "dtype_int": ((4, 6, 3), {"dtype": "int64"}),
    "dtype_float64": ((4, 6, 3), {"dtype": "float64"}),
    "unknown_kw": ((4, 6, 3), {"padding_value": 0}),
}
TRANSPOSED = ("ok", "in_zero", "kernel_zero", "stride_zero", "groups_not_dividing_out", "padding_same",
              "padding_mode_circular", "padding_mode_bad", "dilation_zero", "padding_negative")


def conv(cls, pattern):
    args, kw = CONV_SIZES[pattern]

    def fn(L, d):
        kwargs = {k: getattr(L, v) if k == "dtype" else v for k, v in kw.items()}
        return built(getattr(L.nn, cls)(*args, **kwargs))
    return fn


CONV2D = ("ok", "in_float", "in_bool", "kernel_wrong_length", "kernel_float", "stride_zero", "groups_not_dividing_in",
          "groups_float", "padding_same", "padding_same_stride", "padding_mode_bad", "dtype_int")
CASES = {f"Conv1d/{p}": conv("Conv1d", p) for p in CONV_SIZES}
CASES.update({f"Conv2d/{p}": conv("Conv2d", p) for p in CONV2D})
CASES.update({f"Conv3d/{p}": conv("Conv3d", p) for p in ("ok", "kernel_wrong_length", "groups_not_dividing_in",
                                                          "padding_same_stride", "in_zero")})
CASES.update({f"ConvTranspose2d/{p}": conv("ConvTranspose2d", p) for p in TRANSPOSED})
CASES.update({
    "ConvTranspose2d/output_padding_ge_stride": run("ConvTranspose2d", (2, 2, 3), {"stride": 2, "output_padding": 2},
                                                    (1, 2, 4, 4)),
    "ConvTranspose2d/output_padding_ge_dilation": run("ConvTranspose2d", (2, 2, 3), {"stride": 1, "dilation": 2,
                                                                                    "output_padding": 1},
                                                      (1, 2, 4, 4)),
    "Conv2d/forward_padding_same_even_kernel": run("Conv2d", (2, 3, 4), {"padding": "same", "dilation": 3},
                                                   (1, 2, 7, 7)),
    "Conv1d/forward_kernel_larger_than_input": run("Conv1d", (2, 3, 5), {}, (1, 2, 3)),
    "Conv1d/forward_channels_wrong": run("Conv1d", (2, 3, 3), {}, (1, 4, 8)),
    "Conv2d/forward_groups_input_channels": run("Conv2d", (4, 4, 1), {"groups": 2}, (1, 3, 2, 2)),
    # ---- linear layers
    "Linear/ok_repr": make("Linear", 3, 4, bias=False),
    "Linear/zero_both": make("Linear", 0, 0),
    "Linear/out_zero": make("Linear", 3, 0),
    "Linear/negative_in": make("Linear", -3, 4),
    "Linear/float_out": make("Linear", 3, 4.0),
    "Linear/bool_in": make("Linear", True, 4),
    "Linear/none_in": make("Linear", None, 4),
    "Linear/bias_none": make("Linear", 3, 4, bias=None),
    "Linear/bias_int": make("Linear", 3, 4, bias=0),
    "Linear/dtype_int": lambda L, d: built(L.nn.Linear(3, 4, dtype=L.int32)),
    "Linear/dtype_complex": lambda L, d: built(L.nn.Linear(3, 4, dtype=L.complex64)),
    "Linear/dtype_half": lambda L, d: built(L.nn.Linear(3, 4, dtype=L.float16)),
    "Linear/device_bad": make("Linear", 3, 4, device="cpux"),
    "Linear/zero_in_forward": run("Linear", (0, 2), {}, (3, 0)),
    "Bilinear/zero_in2": make("Bilinear", 3, 0, 2),
    "Bilinear/negative_out": make("Bilinear", 3, 2, -1),
    "Bilinear/float_in1": make("Bilinear", 3.0, 2, 2),
    "LazyLinear/negative_out": make("LazyLinear", -1),
    "LazyLinear/ok": make("LazyLinear", 4),
    "Identity/extra_args": make("Identity", 3, foo=4),
    # ---- embeddings
    "Embedding/ok_repr": make("Embedding", 5, 3, padding_idx=2, max_norm=1.0),
    "Embedding/padding_idx_equal_num": make("Embedding", 5, 3, padding_idx=5),
    "Embedding/padding_idx_minus_num": make("Embedding", 5, 3, padding_idx=-5),
    "Embedding/padding_idx_minus_num_minus_1": make("Embedding", 5, 3, padding_idx=-6),
    "Embedding/padding_idx_float": make("Embedding", 5, 3, padding_idx=1.0),
    "Embedding/padding_idx_bool": make("Embedding", 5, 3, padding_idx=True),
    "Embedding/zero_num": make("Embedding", 0, 3),
    "Embedding/zero_dim": make("Embedding", 5, 0),
    "Embedding/float_num": make("Embedding", 5.0, 3),
    "Embedding/weight_wrong_shape": lambda L, d: built(L.nn.Embedding(5, 3, _weight=L.zeros(5, 4))),
    "Embedding/weight_1d": lambda L, d: built(L.nn.Embedding(5, 3, _weight=L.zeros(15))),
    "Embedding/max_norm_negative_forward": lambda L, d: L.nn.Embedding(5, 3, max_norm=-1.0).to(d)(
        L.tensor([1, 2], device=d)).shape,
    "Embedding/scale_grad_str": make("Embedding", 5, 3, scale_grad_by_freq="yes"),
    "Embedding/from_pretrained_3d": lambda L, d: built(L.nn.Embedding.from_pretrained(L.zeros(2, 3, 4))),
    "Embedding/from_pretrained_padding_past": lambda L, d: built(L.nn.Embedding.from_pretrained(L.zeros(4, 3),
                                                                                               padding_idx=4)),
    "Embedding/from_pretrained_int_weight": lambda L, d: built(L.nn.Embedding.from_pretrained(
        L.zeros(4, 3, dtype=L.int64))),
    "EmbeddingBag/padding_idx_past": make("EmbeddingBag", 5, 3, padding_idx=5),
    "EmbeddingBag/mode_upper": make("EmbeddingBag", 5, 3, mode="SUM"),
    "EmbeddingBag/mode_none": make("EmbeddingBag", 5, 3, mode=None),
    "EmbeddingBag/ok_repr": make("EmbeddingBag", 5, 3, mode="max", padding_idx=1),
    "EmbeddingBag/weight_wrong_shape": lambda L, d: built(L.nn.EmbeddingBag(5, 3, _weight=L.zeros(4, 3))),
    # ---- normalization
    "LayerNorm/ok_repr": make("LayerNorm", [3, 4], eps=1e-3, elementwise_affine=False),
    "LayerNorm/zero": make("LayerNorm", 0),
    "LayerNorm/shape_with_zero": make("LayerNorm", (3, 0)),
    "LayerNorm/empty_tuple": make("LayerNorm", ()),
    "LayerNorm/float": make("LayerNorm", 3.0),
    "LayerNorm/str": make("LayerNorm", "3"),
    "LayerNorm/bias_false": make("LayerNorm", 3, bias=False),
    "LayerNorm/no_affine_bias_true": make("LayerNorm", 3, elementwise_affine=False, bias=True),
    "LayerNorm/torch_size": lambda L, d: built(L.nn.LayerNorm(L.Size([2, 3]))),
    "LayerNorm/forward_empty_shape": run("LayerNorm", ((),), {}, (2, 3)),
    "LayerNorm/forward_wrong_trailing": run("LayerNorm", ((3, 4),), {}, (2, 4, 3)),
    "RMSNorm/ok_repr": make("RMSNorm", [3], eps=None),
    "RMSNorm/negative": make("RMSNorm", -3),
    "RMSNorm/eps_str": make("RMSNorm", 3, eps="x"),
    "RMSNorm/forward_wrong": run("RMSNorm", (4,), {}, (2, 3)),
    "GroupNorm/ok_repr": make("GroupNorm", 2, 4, affine=False),
    "GroupNorm/negative_groups": make("GroupNorm", -2, 4),
    "GroupNorm/groups_past_channels": make("GroupNorm", 8, 4),
    "GroupNorm/zero_channels": make("GroupNorm", 2, 0),
    "GroupNorm/float_groups": make("GroupNorm", 2.0, 4),
    "BatchNorm1d/ok_repr": make("BatchNorm1d", 4, momentum=None, track_running_stats=False),
    "BatchNorm1d/momentum_none_buffers": make("BatchNorm1d", 4, momentum=None),
    "BatchNorm1d/zero": make("BatchNorm1d", 0),
    "BatchNorm1d/negative": make("BatchNorm1d", -1),
    "BatchNorm1d/float": make("BatchNorm1d", 4.0),
    "BatchNorm2d/momentum_str": make("BatchNorm2d", 4, momentum="x"),
    "BatchNorm2d/eps_negative": make("BatchNorm2d", 4, eps=-1.0),
    "BatchNorm2d/affine_str": make("BatchNorm2d", 4, affine="no"),
    "BatchNorm2d/dtype_int": lambda L, d: built(L.nn.BatchNorm2d(4, dtype=L.int64)),
    "BatchNorm1d/forward_3d_wrong_channels": run("BatchNorm1d", (4,), {}, (2, 3, 5)),
    "BatchNorm2d/forward_3d_input": run("BatchNorm2d", (3,), {}, (2, 3, 5)),
    "BatchNorm1d/forward_one_value_per_channel": run("BatchNorm1d", (3,), {}, (1, 3)),
    "InstanceNorm1d/ok_repr": make("InstanceNorm1d", 4, affine=True, track_running_stats=True),
    "InstanceNorm2d/negative": make("InstanceNorm2d", -4, affine=True),
    "InstanceNorm1d/forward_wrong_channels_affine": run("InstanceNorm1d", (4,), {"affine": True}, (2, 3, 5)),
    "LocalResponseNorm/ok_repr": make("LocalResponseNorm", 2),
    "CrossMapLRN2d/ok_repr": make("CrossMapLRN2d", 3),
    # ---- dropout
    **{f"{cls}/p_{name}": make(cls, p) for cls in ("Dropout", "AlphaDropout")
       for name, p in (("one", 1.0), ("past_one", 1.5), ("negative", -0.1), ("true", True), ("str", "0.5"),
                       ("none", None), ("int_zero", 0))},
    "Dropout/inplace_str": make("Dropout", 0.5, inplace="x"),
    "Dropout/ok_repr": make("Dropout", 0.25, inplace=True),
    # ---- activations
    "Hardtanh/reversed_bounds": make("Hardtanh", 1.0, -1.0),
    "Hardtanh/equal_bounds": make("Hardtanh", 1.0, 1.0),
    "Hardtanh/ok_repr": make("Hardtanh", -2.0, 2.0, inplace=True),
    "ReLU6/ok_repr": make("ReLU6"),
    "RReLU/lower_above_upper": make("RReLU", 0.5, 0.1),
    "RReLU/forward_lower_above_upper": run("RReLU", (0.5, 0.1), {}, (2, 3)),
    "RReLU/ok_repr": make("RReLU", 0.1, 0.2),
    "Softplus/beta_zero_forward": run("Softplus", (), {"beta": 0}, (2, 3)),
    "Softplus/ok_repr": make("Softplus", beta=2, threshold=10),
    "Threshold/missing_value": make("Threshold", 0.5),
    "Threshold/ok_repr": make("Threshold", 0.5, 2.0),
    "CELU/alpha_zero_forward": run("CELU", (0.0,), {}, (2, 3)),
    "ELU/ok_repr": make("ELU", alpha=0.5),
    "LeakyReLU/slope_str_forward": run("LeakyReLU", ("x",), {}, (2, 3)),
    "LeakyReLU/ok_repr": make("LeakyReLU", 0.2),
    "GLU/odd_dim_forward": run("GLU", (), {}, (2, 3)),
    "GLU/dim_past_forward": run("GLU", (2,), {}, (2, 4)),
    "PReLU/zero": make("PReLU", 0),
    "PReLU/negative": make("PReLU", -2),
    "PReLU/ok_repr": make("PReLU", 3, init=0.1),
    "Softmax/no_dim_repr": make("Softmax"),
    "Softmax/dim_str": make("Softmax", "x"),
    "Softmax2d/forward_2d": run("Softmax2d", (), {}, (2, 3)),
    "LogSoftmax/ok_repr": make("LogSoftmax", dim=-1),
    "Hardshrink/negative_lambda_forward": run("Hardshrink", (-0.5,), {}, (2, 3)),
    "Softshrink/negative_lambda_forward": run("Softshrink", (-0.5,), {}, (2, 3)),
    "GELU/approximate_bad": make("GELU", approximate="fast"),
    "GELU/approximate_tanh_repr": make("GELU", approximate="tanh"),
    "GELU/approximate_bad_forward": run("GELU", (), {"approximate": "fast"}, (2, 3)),
    # ---- padding
    "ZeroPad2d/negative_forward": run("ZeroPad2d", (-1,), {}, (1, 1, 4, 4)),
    "ZeroPad2d/wrong_length": make("ZeroPad2d", (1, 2, 3)),
    "ZeroPad2d/ok_repr": make("ZeroPad2d", (1, 2, 3, 4)),
    "ReflectionPad1d/too_big_forward": run("ReflectionPad1d", (4,), {}, (1, 2, 3)),
    "ReflectionPad2d/negative_forward": run("ReflectionPad2d", (-1,), {}, (1, 1, 4, 4)),
    "ReplicationPad1d/ok_repr": make("ReplicationPad1d", (1, 2)),
    "ConstantPad1d/value_str": make("ConstantPad1d", 2, "x"),
    "ConstantPad1d/missing_value": make("ConstantPad1d", 2),
    "ConstantPad2d/ok_repr": make("ConstantPad2d", 1, 3.5),
    "CircularPad1d/too_big_forward": run("CircularPad1d", (4,), {}, (1, 2, 3)),
    # ---- reshaping, upsampling
    "Flatten/ok_repr": make("Flatten", 0, -1),
    "Flatten/dims_str": make("Flatten", "a"),
    "Unflatten/sizes_list_repr": make("Unflatten", 1, [2, 3]),
    "Unflatten/sizes_int": make("Unflatten", 1, 6),
    "Unflatten/sizes_float": make("Unflatten", 1, (2.0, 3)),
    "Unflatten/dim_str_sizes_tuple": make("Unflatten", "x", (2, 3)),
    "Unflatten/named_sizes_int_dim": make("Unflatten", 1, (("a", 2), ("b", 3))),
    "Upsample/size_and_scale": make("Upsample", size=4, scale_factor=2),
    "Upsample/neither_forward": run("Upsample", (), {}, (1, 1, 4)),
    "Upsample/mode_bad_forward": run("Upsample", (), {"scale_factor": 2, "mode": "cubic"}, (1, 1, 4)),
    "Upsample/ok_repr": make("Upsample", scale_factor=2.0, mode="bilinear", align_corners=True),
    "Upsample/align_corners_nearest_forward": run("Upsample", (), {"scale_factor": 2, "mode": "nearest",
                                                                   "align_corners": True}, (1, 1, 4)),
    "UpsamplingNearest2d/ok_repr": make("UpsamplingNearest2d", scale_factor=2),
    "PixelShuffle/zero_forward": run("PixelShuffle", (0,), {}, (1, 4, 2, 2)),
    "PixelShuffle/float": make("PixelShuffle", 2.0),
    "PixelUnshuffle/not_dividing_forward": run("PixelUnshuffle", (2,), {}, (1, 1, 3, 3)),
    "ChannelShuffle/zero_forward": run("ChannelShuffle", (0,), {}, (1, 4, 2, 2)),
    "Fold/ok_repr": make("Fold", (4, 5), (2, 2)),
    "Unfold/ok_repr": make("Unfold", 2, dilation=1, padding=0, stride=1),
    # ---- pooling
    "MaxPool2d/kernel_zero_forward": run("MaxPool2d", (0,), {}, (1, 1, 4, 4)),
    "MaxPool2d/stride_zero_forward": run("MaxPool2d", (2,), {"stride": 0}, (1, 1, 4, 4)),
    "MaxPool2d/padding_over_half_forward": run("MaxPool2d", (2,), {"padding": 2}, (1, 1, 4, 4)),
    "MaxPool2d/ok_repr": make("MaxPool2d", 3, stride=2, padding=1, ceil_mode=True),
    "MaxPool1d/return_indices_forward": run("MaxPool1d", (2,), {"return_indices": True}, (1, 1, 4)),
    "AvgPool2d/divisor_zero_forward": run("AvgPool2d", (2,), {"divisor_override": 0}, (1, 1, 4, 4)),
    "AvgPool1d/ok_repr": make("AvgPool1d", 3, stride=1, count_include_pad=False),
    "AdaptiveAvgPool2d/negative_forward": run("AdaptiveAvgPool2d", (-1,), {}, (1, 1, 4, 4)),
    "AdaptiveAvgPool2d/none_size_forward": run("AdaptiveAvgPool2d", ((None, 2),), {}, (1, 1, 4, 4)),
    "AdaptiveMaxPool1d/zero_forward": run("AdaptiveMaxPool1d", (0,), {}, (1, 1, 4)),
    "LPPool2d/ok_repr": make("LPPool2d", 2, 3),
    "LPPool1d/norm_zero_forward": run("LPPool1d", (0, 2), {}, (1, 1, 4)),
    # ---- attention and transformer
    "MultiheadAttention/ok_repr": make("MultiheadAttention", 8, 2, kdim=4, vdim=6, batch_first=True),
    "MultiheadAttention/embed_not_divisible": make("MultiheadAttention", 10, 3),
    "MultiheadAttention/heads_negative": make("MultiheadAttention", 8, -2),
    "MultiheadAttention/embed_zero": make("MultiheadAttention", 0, 1),
    "MultiheadAttention/dropout_negative": make("MultiheadAttention", 8, 2, dropout=-0.5),
    "MultiheadAttention/kdim_zero": make("MultiheadAttention", 8, 2, kdim=0),
    "MultiheadAttention/bias_kv": make("MultiheadAttention", 8, 2, add_bias_kv=True, add_zero_attn=True),
    "TransformerEncoderLayer/ok_repr": make("TransformerEncoderLayer", 8, 2, dim_feedforward=16),
    "TransformerEncoderLayer/activation_callable": lambda L, d: built(L.nn.TransformerEncoderLayer(
        8, 2, dim_feedforward=16, activation=L.nn.functional.gelu)),
    "TransformerEncoderLayer/activation_module": lambda L, d: built(L.nn.TransformerEncoderLayer(
        8, 2, dim_feedforward=16, activation=L.nn.GELU())),
    "TransformerEncoderLayer/feedforward_zero": make("TransformerEncoderLayer", 8, 2, dim_feedforward=0),
    "TransformerEncoderLayer/activation_upper": make("TransformerEncoderLayer", 8, 2, dim_feedforward=16,
                                                     activation="GELU"),
    "TransformerDecoderLayer/heads_not_dividing": make("TransformerDecoderLayer", 8, 3, dim_feedforward=16),
    "TransformerDecoderLayer/activation_bad": make("TransformerDecoderLayer", 8, 2, dim_feedforward=16,
                                                   activation="swish"),
    "TransformerEncoder/layers_zero": lambda L, d: built(L.nn.TransformerEncoder(
        L.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), 0)),
    "TransformerEncoder/layers_negative": lambda L, d: built(L.nn.TransformerEncoder(
        L.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16), -1)),
    "TransformerEncoder/layer_not_module": lambda L, d: built(L.nn.TransformerEncoder(None, 2)),
    "Transformer/heads_not_dividing": make("Transformer", 8, 3, 1, 1, 16),
    "Transformer/layers_zero": lambda L, d: built(L.nn.Transformer(8, 2, 0, 0, 16))[1],
    # ---- losses
    **{f"{cls}/reduction_bad": make(cls, reduction="avg") for cls in (
        "MSELoss", "CrossEntropyLoss", "BCEWithLogitsLoss", "HuberLoss", "KLDivLoss")},
    "MSELoss/reduction_bad_forward": lambda L, d: L.nn.MSELoss(reduction="avg")(R(L, (2,), d), R(L, (2,), d)),
    "CrossEntropyLoss/label_smoothing_past_one_forward": lambda L, d: L.nn.CrossEntropyLoss(label_smoothing=1.5)(
        R(L, (2, 3), d), L.tensor([0, 1], device=d)),
    "CrossEntropyLoss/ok_repr": make("CrossEntropyLoss", ignore_index=1, label_smoothing=0.1),
    "HuberLoss/delta_negative_forward": lambda L, d: L.nn.HuberLoss(delta=-1.0)(R(L, (2,), d), R(L, (2,), d)),
    "MarginRankingLoss/ok_repr": make("MarginRankingLoss", margin=0.5),
    "TripletMarginLoss/margin_negative_forward": lambda L, d: L.nn.TripletMarginLoss(margin=-1.0)(
        R(L, (2, 3), d), R(L, (2, 3), d), R(L, (2, 3), d)),
    "CosineSimilarity/ok_repr": make("CosineSimilarity", dim=0, eps=1e-6),
    "PairwiseDistance/ok_repr": make("PairwiseDistance", p=1.0, keepdim=True),
})

_SET_ORDER = ("PyTorch prints its valid padding modes as a set, whose order changes with the process's string "
              "hashes (as conv_pool_params.py's KNOWN says): the runs agree or not by chance")
KNOWN = {
    "Conv1d/padding_mode_bad": _SET_ORDER, "Conv1d/padding_mode_none": _SET_ORDER, "Conv2d/padding_mode_bad": _SET_ORDER,
    "Linear/device_bad": "tandem knows the cpu, cuda and meta device types (docs/devices.md); PyTorch's message lists "
                         "all of its own",
    "Unflatten/dim_str_sizes_tuple": "by design: tandem has no named tensors, and Unflatten with a str dim says so "
                                     "when built; PyTorch builds it and needs a named input in forward",
}
