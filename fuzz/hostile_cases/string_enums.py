"""String-valued arguments with bad, odd-case, empty, padded and non-string values, beyond the one-off bad strings of
nn_losses.py, functional.py, fft.py and linalg.py: reduction= of every loss family, padding_mode= of the conv
modules and grid_sample, mode= of interpolate/pad/grid_sample/embedding_bag, rounding_mode= of div and its
in-place and out= forms, fft norm= for each transform, meshgrid indexing=, searchsorted side= with and against
right=, linalg ord strings ("fro", "nuc", bad ones, and for vector norms), einsum equations with bad characters,
spaces, ellipses and arrows, memory_format= as a string, nonlinearity= of nn.init.calculate_gain and RNN,
approximate= of gelu, quantile interpolation=, histogram/histc/bucketize edge values, and cdist's
compute_mode=."""
from . import Case, R, T


def X(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def target(L, d):
    return T(L, [0, 2], d)


def img(L, d):
    return R(L, (1, 1, 4, 4), d, "float32")


def grid(L, d):
    return R(L, (1, 2, 2, 2), d, "float32", scale=0.9)


def conv_mod(L, d, **kw):
    return L.nn.Conv2d(1, 1, 3, padding=1, **kw).to(d)


def rnn(L, d, nonlinearity):
    return L.nn.RNN(3, 4, nonlinearity=nonlinearity).to(d)


# PyTorch prints its padding modes as a Python set, whose order follows the strings' hashes (PYTHONHASHSEED): the
# oracle's and tandem's lines only agree when both ran in one process, so these compare the error type.
ANY = "any-message"

CASES = {
    # ---- reduction= of losses
    "mse_loss/reduction_upper": lambda L, d: L.nn.functional.mse_loss(X(L, d), X(L, d), reduction="Mean"),
    "mse_loss/reduction_empty": lambda L, d: L.nn.functional.mse_loss(X(L, d), X(L, d), reduction=""),
    "mse_loss/reduction_none_obj": lambda L, d: L.nn.functional.mse_loss(X(L, d), X(L, d), reduction=None),
    "mse_loss/reduction_int": lambda L, d: L.nn.functional.mse_loss(X(L, d), X(L, d), reduction=1),
    "l1_loss/reduction_padded": lambda L, d: L.nn.functional.l1_loss(X(L, d), X(L, d), reduction=" sum"),
    "smooth_l1_loss/reduction_bad": lambda L, d: L.nn.functional.smooth_l1_loss(X(L, d), X(L, d), reduction="avg"),
    "huber_loss/reduction_bad": lambda L, d: L.nn.functional.huber_loss(X(L, d), X(L, d), reduction="total"),
    "cross_entropy/reduction_upper": lambda L, d: L.nn.functional.cross_entropy(X(L, d), target(L, d),
                                                                                 reduction="SUM"),
    "nll_loss/reduction_empty": lambda L, d: L.nn.functional.nll_loss(X(L, d), target(L, d), reduction=""),
    "bce/reduction_bad": lambda L, d: L.nn.functional.binary_cross_entropy(X(L, d).sigmoid(), X(L, d).sigmoid(),
                                                                            reduction="average"),
    "bce_logits/reduction_bad": lambda L, d: L.nn.functional.binary_cross_entropy_with_logits(
        X(L, d), X(L, d).sigmoid(), reduction="meann"),
    "kl_div/reduction_batchmean_upper": lambda L, d: L.nn.functional.kl_div(X(L, d), X(L, d), reduction="BatchMean"),
    "kl_div/reduction_bad": lambda L, d: L.nn.functional.kl_div(X(L, d), X(L, d), reduction="batch"),
    "poisson_nll/reduction_bad": lambda L, d: L.nn.functional.poisson_nll_loss(X(L, d), X(L, d), reduction="x"),
    "gaussian_nll/reduction_bad": lambda L, d: L.nn.functional.gaussian_nll_loss(X(L, d), X(L, d), X(L, d).abs(),
                                                                                  reduction="x"),
    "hinge_embedding/reduction_bad": lambda L, d: L.nn.functional.hinge_embedding_loss(X(L, d), X(L, d).sign(),
                                                                                        reduction="x"),
    "margin_ranking/reduction_bad": lambda L, d: L.nn.functional.margin_ranking_loss(
        X(L, d, (3,)), X(L, d, (3,)), X(L, d, (3,)).sign(), reduction="x"),
    "soft_margin/reduction_bad": lambda L, d: L.nn.functional.soft_margin_loss(X(L, d), X(L, d).sign(),
                                                                                reduction="x"),
    "multilabel_soft_margin/reduction_bad": lambda L, d: L.nn.functional.multilabel_soft_margin_loss(
        X(L, d), X(L, d).sign(), reduction="x"),
    "multi_margin/reduction_bad": lambda L, d: L.nn.functional.multi_margin_loss(X(L, d), target(L, d),
                                                                                  reduction="x"),
    "cosine_embedding/reduction_bad": lambda L, d: L.nn.functional.cosine_embedding_loss(
        X(L, d), X(L, d), T(L, [1, -1], d), reduction="x"),
    "triplet_margin/reduction_bad": lambda L, d: L.nn.functional.triplet_margin_loss(X(L, d), X(L, d), X(L, d),
                                                                                      reduction="x"),
    "MSELoss/module_reduction_bad": lambda L, d: L.nn.MSELoss(reduction="x")(X(L, d), X(L, d)),
    "CrossEntropyLoss/module_reduction_bad": lambda L, d: L.nn.CrossEntropyLoss(reduction="Mean")(X(L, d),
                                                                                                   target(L, d)),
    "mse_loss/size_average_and_reduction": lambda L, d: L.nn.functional.mse_loss(X(L, d), X(L, d),
                                                                                 size_average=False, reduction="x"),
    # ---- padding_mode= of conv modules and grid_sample
    "Conv2d/padding_mode_upper": Case(lambda L, d: conv_mod(L, d, padding_mode="Zeros"), ANY),
    "Conv2d/padding_mode_empty": Case(lambda L, d: conv_mod(L, d, padding_mode=""), ANY),
    "Conv2d/padding_mode_none": Case(lambda L, d: conv_mod(L, d, padding_mode=None), ANY),
    "Conv2d/padding_mode_constant": Case(lambda L, d: conv_mod(L, d, padding_mode="constant"), ANY),
    "Conv2d/padding_mode_replicate_runs": lambda L, d: conv_mod(L, d, padding_mode="replicate")(img(L, d)).shape,
    "Conv1d/padding_str_upper": lambda L, d: L.nn.Conv1d(1, 1, 3, padding="Same"),
    "Conv1d/padding_str_empty": lambda L, d: L.nn.Conv1d(1, 1, 3, padding=""),
    "conv2d/padding_str_bad": lambda L, d: L.nn.functional.conv2d(img(L, d), R(L, (1, 1, 3, 3), d, "float32"),
                                                                  padding="full"),
    "conv2d/padding_str_valid_upper": lambda L, d: L.nn.functional.conv2d(img(L, d), R(L, (1, 1, 3, 3), d,
                                                                                        "float32"), padding="VALID"),
    "grid_sample/padding_mode_upper": lambda L, d: L.nn.functional.grid_sample(img(L, d), grid(L, d),
                                                                                padding_mode="Zeros",
                                                                                align_corners=False),
    "grid_sample/padding_mode_empty": lambda L, d: L.nn.functional.grid_sample(img(L, d), grid(L, d),
                                                                                padding_mode="", align_corners=False),
    "grid_sample/mode_upper": lambda L, d: L.nn.functional.grid_sample(img(L, d), grid(L, d), mode="Bilinear",
                                                                        align_corners=False),
    "grid_sample/mode_bicubic_5d": lambda L, d: L.nn.functional.grid_sample(
        R(L, (1, 1, 2, 2, 2), d, "float32"), R(L, (1, 1, 1, 1, 3), d, "float32", 0.5), mode="bicubic",
        align_corners=False),
    "grid_sample/mode_none": lambda L, d: L.nn.functional.grid_sample(img(L, d), grid(L, d), mode=None,
                                                                       align_corners=False),
    # ---- mode= of interpolate / pad / embedding_bag / upsample
    "interpolate/mode_upper": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=2, mode="Nearest"),
    "interpolate/mode_empty": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=2, mode=""),
    "interpolate/mode_linear_4d": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=2, mode="linear"),
    "interpolate/mode_trilinear_4d": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=2,
                                                                              mode="trilinear"),
    "interpolate/mode_bicubic_3d": lambda L, d: L.nn.functional.interpolate(R(L, (1, 1, 4), d, "float32"),
                                                                            scale_factor=2, mode="bicubic"),
    "interpolate/mode_none": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=2, mode=None),
    "interpolate/nearest_align_corners": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=2,
                                                                                  mode="nearest", align_corners=True),
    "interpolate/area_antialias": lambda L, d: L.nn.functional.interpolate(img(L, d), scale_factor=0.5,
                                                                           mode="area", antialias=True),
    "Upsample/mode_bad": lambda L, d: L.nn.Upsample(scale_factor=2, mode="cubic")(img(L, d)),
    "pad/mode_upper": lambda L, d: L.nn.functional.pad(img(L, d), (1, 1), mode="Reflect"),
    "pad/mode_empty": lambda L, d: L.nn.functional.pad(img(L, d), (1, 1), mode=""),
    "pad/mode_zeros": lambda L, d: L.nn.functional.pad(img(L, d), (1, 1), mode="zeros"),
    "pad/mode_none": lambda L, d: L.nn.functional.pad(img(L, d), (1, 1), mode=None),
    "pad/reflect_value": lambda L, d: L.nn.functional.pad(img(L, d), (1, 1), mode="reflect", value=1.0),
    "pad/circular_too_big": lambda L, d: L.nn.functional.pad(img(L, d), (5, 5), mode="circular"),
    "embedding_bag/mode_upper": lambda L, d: L.nn.functional.embedding_bag(T(L, [[0, 1]], d),
                                                                           R(L, (3, 2), d, "float32"), mode="Sum"),
    "embedding_bag/mode_empty": lambda L, d: L.nn.functional.embedding_bag(T(L, [[0, 1]], d),
                                                                           R(L, (3, 2), d, "float32"), mode=""),
    # ---- rounding_mode=
    "div/rounding_mode_upper": lambda L, d: L.div(X(L, d), 2, rounding_mode="Floor"),
    "div/rounding_mode_empty": lambda L, d: L.div(X(L, d), 2, rounding_mode=""),
    "div/rounding_mode_int": lambda L, d: L.div(X(L, d), 2, rounding_mode=0),
    "div/rounding_mode_true": lambda L, d: L.div(X(L, d), 2, rounding_mode="true"),
    "div_/rounding_mode_bad": lambda L, d: X(L, d).div_(2, rounding_mode="ceil"),
    "div/rounding_mode_bad_out": lambda L, d: L.div(X(L, d), 2, rounding_mode="ceil", out=X(L, d)),
    "divide/rounding_mode_bad": lambda L, d: L.divide(X(L, d), 2, rounding_mode="round"),
    "Tensor.divide/rounding_mode_bad": lambda L, d: X(L, d).divide(2, rounding_mode="x"),
    "div/rounding_mode_bytes": lambda L, d: L.div(X(L, d), 2, rounding_mode=b"floor"),
    # ---- fft norm=
    "fft.fft/norm_upper": lambda L, d: L.fft.fft(X(L, d), norm="Ortho"),
    "fft.fft/norm_empty": lambda L, d: L.fft.fft(X(L, d), norm=""),
    "fft.rfft/norm_bad": lambda L, d: L.fft.rfft(X(L, d), norm="unit"),
    "fft.irfft/norm_bad": lambda L, d: L.fft.irfft(X(L, d), norm="x"),
    "fft.fft2/norm_bad": lambda L, d: L.fft.fft2(X(L, d), norm="x"),
    "fft.ifftn/norm_bad": lambda L, d: L.fft.ifftn(X(L, d), norm="x"),
    "fft.hfft/norm_bad": lambda L, d: L.fft.hfft(X(L, d), norm="x"),
    "fft.rfftn/norm_int": lambda L, d: L.fft.rfftn(X(L, d), norm=1),
    "stft/norm_bad_type": lambda L, d: L.stft(R(L, (16,), d, "float32"), 4, normalized="yes",
                                              return_complex=True).shape,
    # ---- meshgrid indexing=
    "meshgrid/indexing_upper": lambda L, d: L.meshgrid(X(L, d, (2,)), X(L, d, (3,)), indexing="IJ"),
    "meshgrid/indexing_empty": lambda L, d: L.meshgrid(X(L, d, (2,)), X(L, d, (3,)), indexing=""),
    "meshgrid/indexing_bad": lambda L, d: L.meshgrid(X(L, d, (2,)), X(L, d, (3,)), indexing="yx"),
    "meshgrid/indexing_none": lambda L, d: L.meshgrid(X(L, d, (2,)), X(L, d, (3,)), indexing=None),
    "meshgrid/indexing_int": lambda L, d: L.meshgrid(X(L, d, (2,)), X(L, d, (3,)), indexing=0),
    # ---- searchsorted side=
    "searchsorted/side_upper": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d), side="Left"),
    "searchsorted/side_empty": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d), side=""),
    "searchsorted/side_left_right_true": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d),
                                                                     side="left", right=True),
    "searchsorted/side_right_right_true": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d),
                                                                      side="right", right=True),
    "searchsorted/side_right_right_false": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d),
                                                                       side="right", right=False),
    "searchsorted/side_none": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d), side=None),
    "searchsorted/side_int": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d), side=1),
    "Tensor.searchsorted/side_bad": lambda L, d: T(L, [1.0, 2.0], d).searchsorted(T(L, [2.0], d), side="x"),
    # ---- linalg ord strings
    "linalg.norm/ord_fro_1d": lambda L, d: L.linalg.norm(X(L, d, (3,)), ord="fro"),
    "linalg.norm/ord_nuc_1d": lambda L, d: L.linalg.norm(X(L, d, (3,)), ord="nuc"),
    "linalg.norm/ord_upper": lambda L, d: L.linalg.norm(X(L, d), ord="FRO"),
    "linalg.norm/ord_bad_2d": lambda L, d: L.linalg.norm(X(L, d), ord="inf"),
    "linalg.norm/ord_empty": lambda L, d: L.linalg.norm(X(L, d), ord=""),
    "linalg.matrix_norm/ord_bad_str": lambda L, d: L.linalg.matrix_norm(X(L, d), ord="max"),
    "linalg.matrix_norm/ord_nuc_int": lambda L, d: L.linalg.matrix_norm(X(L, d, dtype="int64"), ord="nuc"),
    "linalg.vector_norm/ord_str": lambda L, d: L.linalg.vector_norm(X(L, d), ord="fro"),
    "norm/p_fro_dim_3": lambda L, d: L.norm(X(L, d, (2, 3, 2)), p="fro", dim=(0, 1, 2)),
    "norm/p_nuc_1d": lambda L, d: L.norm(X(L, d, (3,)), p="nuc"),
    "norm/p_bad_str": lambda L, d: L.norm(X(L, d), p="max"),
    "linalg.cond/p_upper": lambda L, d: L.linalg.cond(R(L, (3, 3), d), p="Fro"),
    # ---- einsum equations
    "einsum/digit": lambda L, d: L.einsum("i1,i->", X(L, d, (3,)), X(L, d, (3,))),
    "einsum/space_inside": lambda L, d: L.einsum(" i j , j k -> i k ", X(L, d), X(L, d, (3, 2))),
    "einsum/unicode": lambda L, d: L.einsum("\u00e9,\u00e9->", X(L, d, (3,)), X(L, d, (3,))),
    "einsum/arrow_twice": lambda L, d: L.einsum("i->i->i", X(L, d, (3,))),
    "einsum/half_arrow": lambda L, d: L.einsum("i-i", X(L, d, (3,))),
    "einsum/output_not_in_input": lambda L, d: L.einsum("i->j", X(L, d, (3,))),
    "einsum/two_ellipses": lambda L, d: L.einsum("......", X(L, d)),
    "einsum/ellipsis_bad_dots": lambda L, d: L.einsum("..i->i", X(L, d)),
    "einsum/ellipsis_output_missing": lambda L, d: L.einsum("...i->i", X(L, d)),
    "einsum/empty_equation": lambda L, d: L.einsum("", X(L, d, ())),
    "einsum/too_few_operands": lambda L, d: L.einsum("i,i->", X(L, d, (3,))),
    "einsum/comma_no_operand": lambda L, d: L.einsum("i,->i", X(L, d, (3,)), X(L, d, ())),
    "einsum/uppercase_ok": lambda L, d: L.einsum("Ab,bC->AC", X(L, d), X(L, d, (3, 2))),
    "einsum/equation_bytes": lambda L, d: L.einsum(b"ij->ji", X(L, d)),
    # ---- memory_format
    "contiguous/memory_format_str": lambda L, d: R(L, (1, 2, 2, 2), d).contiguous(memory_format="channels_last"),
    "to/memory_format_str": lambda L, d: R(L, (1, 2, 2, 2), d).to(memory_format="channels_last"),
    "empty_like/memory_format_none": lambda L, d: L.empty_like(X(L, d), memory_format=None).shape,
    "clone/memory_format_channels_last_3d": lambda L, d: X(L, d).clone(memory_format=L.channels_last),
    "contiguous/memory_format_preserve": lambda L, d: X(L, d).contiguous(memory_format=L.preserve_format),
    "is_contiguous/memory_format_3d_on_4d": lambda L, d: R(L, (1, 2, 2, 2), d).is_contiguous(
        memory_format=L.channels_last_3d),
    # ---- nonlinearity=
    "calculate_gain/upper": lambda L, d: L.nn.init.calculate_gain("ReLU"),
    "calculate_gain/empty": lambda L, d: L.nn.init.calculate_gain(""),
    "calculate_gain/leaky_param_str": lambda L, d: L.nn.init.calculate_gain("leaky_relu", "0.2"),
    "calculate_gain/leaky_param_bool": lambda L, d: L.nn.init.calculate_gain("leaky_relu", True),
    "calculate_gain/conv_transpose2d": lambda L, d: L.nn.init.calculate_gain("conv_transpose2d"),
    "calculate_gain/none": lambda L, d: L.nn.init.calculate_gain(None),
    "kaiming_uniform_/nonlinearity_bad": lambda L, d: L.nn.init.kaiming_uniform_(X(L, d), nonlinearity="gelu"),
    "kaiming_normal_/mode_upper": Case(lambda L, d: L.nn.init.kaiming_normal_(X(L, d), mode="Fan_In"), "shape"),
    "RNN/nonlinearity_upper": lambda L, d: rnn(L, d, "Tanh"),
    "RNN/nonlinearity_empty": lambda L, d: rnn(L, d, ""),
    "RNNCell/nonlinearity_bad": lambda L, d: L.nn.RNNCell(3, 4, nonlinearity="sigmoid").to(d)(X(L, d, (2, 3))),
    "TransformerEncoderLayer/activation_upper": lambda L, d: L.nn.TransformerEncoderLayer(4, 2, activation="GELU"),
    # ---- approximate= of gelu
    "gelu/approximate_upper": lambda L, d: L.nn.functional.gelu(X(L, d), approximate="Tanh"),
    "gelu/approximate_empty": lambda L, d: L.nn.functional.gelu(X(L, d), approximate=""),
    "gelu/approximate_none_obj": lambda L, d: L.nn.functional.gelu(X(L, d), approximate=None),
    "gelu/approximate_bool": lambda L, d: L.nn.functional.gelu(X(L, d), approximate=True),
    "GELU/module_approximate_bad": lambda L, d: L.nn.GELU(approximate="erf")(X(L, d)),
    # ---- quantile interpolation=
    "quantile/interpolation_upper": lambda L, d: L.quantile(X(L, d, (5,)), 0.3, interpolation="Linear"),
    "quantile/interpolation_empty": lambda L, d: L.quantile(X(L, d, (5,)), 0.3, interpolation=""),
    "quantile/interpolation_nearest_exact": lambda L, d: L.quantile(X(L, d, (5,)), 0.3,
                                                                    interpolation="nearest-exact"),
    "nanquantile/interpolation_bad": lambda L, d: L.nanquantile(X(L, d, (5,)), 0.3, interpolation="mean"),
    "quantile/interpolation_none": lambda L, d: L.quantile(X(L, d, (5,)), 0.3, interpolation=None),
    "quantile/interpolation_each": lambda L, d: [L.quantile(X(L, d, (6,)), 0.4, interpolation=m) for m in
                                                 ("linear", "lower", "higher", "midpoint", "nearest")],
    # ---- histogram / histc / bucketize edges
    "histc/bins_zero": lambda L, d: L.histc(X(L, d), bins=0),
    "histc/min_equals_max_all_same": lambda L, d: L.histc(T(L, [2.0, 2.0], d), bins=3),
    "histc/nan_input": lambda L, d: L.histc(T(L, [1.0, float("nan")], d), bins=3, min=0, max=2),
    "histc/inf_range": lambda L, d: L.histc(T(L, [1.0, 2.0], d), bins=3, min=0, max=float("inf")),
    "histogram/bins_tensor_unsorted": lambda L, d: L.histogram(T(L, [1.0, 2.0]), T(L, [0.0, 3.0, 1.0])),
    "histogram/range_reversed": lambda L, d: L.histogram(T(L, [1.0, 2.0]), 3, range=(2.0, 0.0)),
    "histogram/bins_negative": lambda L, d: L.histogram(T(L, [1.0, 2.0]), -1),
    "histogram/int_input": lambda L, d: L.histogram(T(L, [1, 2]), 3),
    "bucketize/boundaries_2d": lambda L, d: L.bucketize(T(L, [1.0], d), T(L, [[0.0, 2.0]], d)),
    "bucketize/out_int32": lambda L, d: L.bucketize(T(L, [1.0, 5.0], d), T(L, [0.0, 2.0], d), out_int32=True),
    "bucketize/scalar_input": lambda L, d: L.bucketize(1.5, T(L, [0.0, 2.0], d)),
    "bucketize/nan": lambda L, d: L.bucketize(T(L, [float("nan"), 1.0], d), T(L, [0.0, 2.0], d)),
    "bucketize/right_empty_boundaries": lambda L, d: L.bucketize(T(L, [1.0], d), T(L, [], d), right=True),
    # ---- cdist compute_mode= and other odd strings
    "cdist/compute_mode_bad": lambda L, d: L.cdist(X(L, d), X(L, d), compute_mode="fast"),
    "cdist/compute_mode_upper": lambda L, d: L.cdist(X(L, d), X(L, d), compute_mode="Use_MM_For_Euclid_Dist"),
    "unique/return_counts_str": lambda L, d: L.unique(T(L, [1, 1, 2], d), return_counts="yes"),
    "sort/stable_str": lambda L, d: T(L, [2, 1], d).sort(stable="yes"),
    "pad/mode_bytes": lambda L, d: L.nn.functional.pad(img(L, d), (1, 1), mode=b"reflect"),
    # ---- bytes where a str belongs (PyTorch's parser decodes them) and non-bool flags
    "linalg.norm/ord_bytes": lambda L, d: L.linalg.norm(X(L, d), ord=b"nuc"),
    "linalg.matrix_norm/ord_bytes_bad": lambda L, d: L.linalg.matrix_norm(X(L, d), ord=b"max"),
    "linalg.cond/p_bytes": lambda L, d: L.linalg.cond(R(L, (3, 3), d), p=b"fro"),
    "quantile/interpolation_bytes": lambda L, d: L.quantile(X(L, d, (5,)), 0.3, interpolation=b"lower"),
    "searchsorted/side_bytes": lambda L, d: L.searchsorted(T(L, [1.0, 2.0, 3.0], d), T(L, [2.0], d), side=b"right"),
    "device/bytes": lambda L, d: L.device(b"cpu"),
    "ones/device_bytes": lambda L, d: L.ones(2, device=b"cpu"),
    "istft/normalized_str": lambda L, d: L.istft(L.stft(R(L, (16,), d, "float32"), 4, return_complex=True,
                                                        window=L.ones(4, device=d)), 4, window=L.ones(4, device=d),
                                                 normalized="yes"),
    "istft/center_positional_str": lambda L, d: L.istft(L.stft(R(L, (16,), d, "float32"), 4, return_complex=True,
                                                               window=L.ones(4, device=d)), 4, None, None,
                                                        L.ones(4, device=d), "no"),
    "triu_indices/offset_str": lambda L, d: L.triu_indices(3, 3, "1", device=d),
    "tril_indices/offset_kw_float": lambda L, d: L.tril_indices(3, 3, offset=1.0, device=d),
    "topk/largest_str": lambda L, d: X(L, d, (5,)).topk(2, largest="no"),
    "zeros/dtype_str": lambda L, d: L.zeros(2, dtype="float32", device=d),
    "dtype/getattr_str": lambda L, d: X(L, d).to("float64"),
    "device/str_padded": lambda L, d: X(L, d).to(" cpu"),
}

KNOWN = {
    "quantile/interpolation_none": "needs C++: wording only (TypeError both): the quantile binding "
                                   "(python/src/order_stats.cpp) gives nanobind's 'incompatible function "
                                   "arguments' where PyTorch says 'quantile() received an invalid combination of "
                                   "arguments - got (Tensor, float, interpolation=NoneType)'",
    "searchsorted/side_int": "needs C++: wording only (TypeError both): python/src/order_stats.cpp searchsorted says "
                             "\"argument 'side' must be str, not int\" where PyTorch's parser reports the "
                             "invalid combination of arguments",
    "sort/stable_str": "needs C++: wording only (TypeError both): the sort binding (python/src/reductions.cpp) takes "
                       "stable as a bool through nanobind ('incompatible function arguments'); PyTorch: 'sort() "
                       "received an invalid combination of arguments - got (stable=str, )'",
    "topk/largest_str": "needs C++: wording only (TypeError both): nanobind's 'incompatible function arguments' "
                        "for a non-bool largest= (python/src/reductions.cpp topk); PyTorch: \"topk(): argument "
                        "'largest' must be bool, not str\"",
    "zeros/dtype_str": "needs C++: wording only (TypeError both): python/src/dtype_device.cpp to_dtype says "
                       "'dtype must be a torch.dtype (e.g. torch.float32), not str'; PyTorch: \"zeros(): argument "
                       "'dtype' must be torch.dtype, not str\"",
    "unique/return_counts_str": "needs C++: wording only (TypeError both): the unique binding "
                                "(python/src/order_stats.cpp) gives nanobind's 'incompatible function "
                                "arguments'; PyTorch: \"_unique2(): argument "
                                "'return_counts' must be bool, not str\"",
}
