"""F.embedding/F.embedding_bag and nn.Embedding/nn.EmbeddingBag with hostile indices, offsets and options, beyond
the embedding rows of nn.py, spatial_ops.py, functional_breadth.py and nn_functional_shapes.py: index dtypes
PyTorch refuses (int16, uint8, bool), indices at -num_embeddings and past the end in 2-d inputs, weights of the
wrong rank or an integer/16-bit dtype, max_norm renormalising the weight in place (the weight after is compared:
repeated indices, padding_idx, norm_type 0.5/inf, an integer weight), sparse=True gradients (compared dense),
scale_grad_by_freq with repeats; embedding_bag offsets of the wrong rank or dtype, empty offsets and inputs,
include_last_offset with one offset or a last offset short of the end, per_sample_weights with mode 'mean'/'max'
or of the wrong shape or dtype, padding_idx with each mode (bags of padding only), 2-d inputs with empty rows,
max mode's gradient and sparse=True's refusal there; and the modules' constructor checks (padding_idx range,
_weight shape, from_pretrained's rank, freeze and padding row)."""
from . import Case, R, T


def F(L):
    return L.nn.functional


def w(L, d, rows=5, cols=3, dtype="float32"):
    return R(L, (rows, cols), d, dtype)


def i(L, d, values, dtype="int64"):
    return T(L, values, d, dtype)


def renormed(L, d, idx, **kw):
    """The lookup and the weight after it (max_norm renormalises the looked-up rows in place)."""
    weight = w(L, d)
    out = F(L).embedding(i(L, d, idx), weight, **kw)
    return out, weight


def bag_renormed(L, d, idx, offsets, **kw):
    weight = w(L, d)
    out = F(L).embedding_bag(i(L, d, idx), weight, i(L, d, offsets), **kw)
    return out, weight


def weight_grad(L, d, fn, rows=5, cols=3, dense=True):
    weight = w(L, d, rows, cols).requires_grad_()
    fn(weight).sum().backward()
    grad = weight.grad
    return grad.to_dense() if dense and grad.is_sparse else grad


def bag(L, d, idx, offsets=None, weight=None, **kw):
    return F(L).embedding_bag(i(L, d, idx), w(L, d) if weight is None else weight,
                              None if offsets is None else i(L, d, offsets), **kw)


def psw(L, d, values):
    return T(L, values, d, "float32")


CASES = {
    # ---- F.embedding: indices
    "embedding/index_int16": lambda L, d: F(L).embedding(i(L, d, [0, 1], "int16"), w(L, d)),
    "embedding/index_uint8": lambda L, d: F(L).embedding(i(L, d, [0, 1], "uint8"), w(L, d)),
    "embedding/index_bool": lambda L, d: F(L).embedding(i(L, d, [True, False], "bool"), w(L, d)),
    "embedding/index_minus_rows": lambda L, d: F(L).embedding(i(L, d, [-5]), w(L, d)),
    "embedding/index_2d_oob": lambda L, d: F(L).embedding(i(L, d, [[0, 1], [2, 5]]), w(L, d)),
    "embedding/index_int32_oob": lambda L, d: F(L).embedding(i(L, d, [0, 9], "int32"), w(L, d)),
    "embedding/index_non_contiguous": lambda L, d: F(L).embedding(i(L, d, [[0, 1, 2], [3, 4, 0]]).t(), w(L, d)),
    "embedding/index_expanded": lambda L, d: F(L).embedding(i(L, d, [2]).expand(4), w(L, d)),
    "embedding/index_3d": lambda L, d: F(L).embedding(i(L, d, [[[0], [1]], [[2], [4]]]), w(L, d)),
    # ---- F.embedding: weights
    "embedding/weight_3d": lambda L, d: F(L).embedding(i(L, d, [0, 1]), R(L, (5, 3, 2), d, "float32")),
    "embedding/weight_0dim": lambda L, d: F(L).embedding(i(L, d, [0]), L.tensor(1.0, device=d)),
    "embedding/weight_int64": lambda L, d: F(L).embedding(i(L, d, [0, 3]), L.arange(15, device=d).reshape(5, 3)),
    "embedding/weight_float16": lambda L, d: F(L).embedding(i(L, d, [0, 3]), w(L, d, dtype="float16")),
    "embedding/weight_bfloat16_grad": lambda L, d: _bf16_grad(L, d),
    "embedding/weight_non_contiguous": lambda L, d: F(L).embedding(i(L, d, [0, 2]), w(L, d, 3, 5).t()),
    "embedding/weight_zero_cols": lambda L, d: F(L).embedding(i(L, d, [0, 2]), L.zeros(5, 0, device=d)),
    # ---- F.embedding: padding_idx
    "embedding/padding_idx_last": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [4, 0, 4]), t, padding_idx=4)),
    "embedding/padding_idx_minus_rows": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [0, 1, 0]), t, padding_idx=-5)),
    "embedding/padding_idx_rows": lambda L, d: F(L).embedding(i(L, d, [0]), w(L, d), padding_idx=5),
    "embedding/padding_idx_lookup_not_zeroed": lambda L, d: F(L).embedding(i(L, d, [1, 2]), w(L, d), padding_idx=1),
    "embedding/padding_idx_bool": lambda L, d: F(L).embedding(i(L, d, [1, 2]), w(L, d), padding_idx=True),
    # ---- F.embedding: max_norm renormalises the weight in place
    "embedding/max_norm_repeated_index": lambda L, d: renormed(L, d, [1, 1, 3, 1], max_norm=1.0),
    "embedding/max_norm_2d_index": lambda L, d: renormed(L, d, [[0, 4], [4, 2]], max_norm=0.5),
    "embedding/max_norm_norm_type_half": lambda L, d: renormed(L, d, [0, 2], max_norm=1.0, norm_type=0.5),
    "embedding/max_norm_norm_type_neg_inf": lambda L, d: renormed(L, d, [0, 2], max_norm=1.0,
                                                                  norm_type=float("-inf")),
    "embedding/max_norm_padding_idx": lambda L, d: renormed(L, d, [0, 2, 3], max_norm=1.0, padding_idx=2),
    "embedding/max_norm_oob": lambda L, d: renormed(L, d, [0, 7], max_norm=1.0),
    "embedding/max_norm_int_weight": lambda L, d: F(L).embedding(i(L, d, [0, 1]),
                                                                 L.arange(15, device=d).reshape(5, 3), max_norm=1.0),
    "embedding/max_norm_weight_requires_grad": lambda L, d: _renorm_leaf(L, d),
    "embedding/max_norm_grad": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [0, 2]), t, max_norm=0.5)),
    "embedding/max_norm_nan": lambda L, d: renormed(L, d, [0, 2], max_norm=float("nan")),
    "embedding/max_norm_index_uint8": lambda L, d: F(L).embedding(i(L, d, [0, 2], "uint8"), w(L, d), max_norm=0.5),
    # ---- F.embedding: gradients
    "embedding/sparse_grad": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(i(L, d, [0, 2, 0]), t,
                                                                                     sparse=True)),
    "embedding/sparse_grad_is_sparse": lambda L, d: _sparse_layout(L, d),
    "embedding/sparse_padding_idx": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [0, 2, 0]), t, padding_idx=0, sparse=True)),
    "embedding/scale_grad_2d_repeats": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [[0, 0, 1], [0, 3, 3]]), t, scale_grad_by_freq=True)),
    "embedding/scale_grad_sparse": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [1, 1, 4]), t, scale_grad_by_freq=True, sparse=True)),
    "embedding/int32_index_grad": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding(
        i(L, d, [1, 1, 4], "int32"), t)),
    # ---- nn.Embedding
    "Embedding/num_embeddings_negative": lambda L, d: L.nn.Embedding(-1, 3),
    "Embedding/embedding_dim_zero": lambda L, d: L.nn.Embedding(4, 0).to(d)(i(L, d, [0, 3])),
    "Embedding/padding_idx_equals_rows": lambda L, d: L.nn.Embedding(4, 3, padding_idx=4),
    "Embedding/padding_idx_below": lambda L, d: L.nn.Embedding(4, 3, padding_idx=-5),
    "Embedding/padding_idx_negative_normalised": lambda L, d: L.nn.Embedding(4, 3, padding_idx=-1).padding_idx,
    "Embedding/weight_wrong_shape": lambda L, d: L.nn.Embedding(4, 3, _weight=L.zeros(3, 4)),
    "Embedding/weight_given_padding_kept": lambda L, d: L.nn.Embedding(5, 3, padding_idx=1,
                                                                       _weight=w(L, "cpu")).weight,
    "Embedding/padding_row_zeroed": Case(lambda L, d: L.nn.Embedding(5, 3, padding_idx=2).weight[2], "exact"),
    "Embedding/float_input": lambda L, d: L.nn.Embedding(5, 3).to(d)(T(L, [0.0, 1.0], d)),
    "Embedding/oob_input": lambda L, d: L.nn.Embedding(5, 3).to(d)(i(L, d, [5])),
    "Embedding/freeze_flag": lambda L, d: L.nn.Embedding(5, 3, _freeze=True).weight.requires_grad,
    "Embedding/sparse_grad_module": lambda L, d: _module_sparse_grad(L, d),
    "Embedding/max_norm_module_weight_after": lambda L, d: _module_max_norm(L, d),
    "Embedding/extra_repr": lambda L, d: repr(L.nn.Embedding(5, 3, padding_idx=1, max_norm=2.0,
                                                             scale_grad_by_freq=True, sparse=True)),
    "Embedding/from_pretrained_3d": lambda L, d: L.nn.Embedding.from_pretrained(R(L, (2, 3, 4), d, "float32")),
    "Embedding/from_pretrained_padding_not_zeroed": lambda L, d: L.nn.Embedding.from_pretrained(
        w(L, d), padding_idx=1)(i(L, d, [1, 2])),
    "Embedding/from_pretrained_padding_no_grad": lambda L, d: _pretrained_padding_grad(L, d),
    "Embedding/from_pretrained_freeze_false": lambda L, d: L.nn.Embedding.from_pretrained(
        w(L, d), freeze=False).weight.requires_grad,
    "Embedding/from_pretrained_freeze_default": lambda L, d: L.nn.Embedding.from_pretrained(
        w(L, d)).weight.requires_grad,
    "Embedding/from_pretrained_max_norm": lambda L, d: _pretrained_max_norm(L, d),
    "Embedding/from_pretrained_int_weight": lambda L, d: L.nn.Embedding.from_pretrained(
        L.arange(6, device=d).reshape(3, 2))(i(L, d, [2, 0])),
    "Embedding/from_pretrained_padding_oob": lambda L, d: L.nn.Embedding.from_pretrained(w(L, d), padding_idx=5),
    # ---- F.embedding_bag: offsets
    "embedding_bag/offsets_2d": lambda L, d: bag(L, d, [0, 1, 2], [[0, 2]]),
    "embedding_bag/offsets_float": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1, 2]), w(L, d), T(L, [0.0], d)),
    "embedding_bag/offsets_int32_input_int64": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1, 2]), w(L, d),
                                                                              i(L, d, [0, 2], "int32")),
    "embedding_bag/both_int32": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1, 2], "int32"), w(L, d),
                                                                i(L, d, [0, 2], "int32")),
    "embedding_bag/input_int16": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1, 2], "int16"), w(L, d),
                                                                 i(L, d, [0, 2], "int16")),
    "embedding_bag/offsets_empty": lambda L, d: bag(L, d, [0, 1, 2], []),
    "embedding_bag/input_empty_two_bags": lambda L, d: F(L).embedding_bag(L.zeros(0, dtype=L.int64, device=d),
                                                                          w(L, d), i(L, d, [0, 0])),
    "embedding_bag/offsets_repeated_middle": lambda L, d: bag(L, d, [0, 1, 2, 3], [0, 2, 2, 3]),
    "embedding_bag/offsets_tuple": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1, 2]), w(L, d), (0, 2)),
    "embedding_bag/offsets_0dim": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1, 2]), w(L, d), i(L, d, 0)),
    "embedding_bag/include_last_offset_one_offset": lambda L, d: bag(L, d, [0, 1, 2], [0],
                                                                     include_last_offset=True),
    "embedding_bag/include_last_offset_short": lambda L, d: bag(L, d, [0, 1, 2, 3], [0, 1, 2],
                                                                include_last_offset=True),
    "embedding_bag/include_last_offset_short_sum": lambda L, d: bag(L, d, [0, 1, 2, 3], [0, 1, 3], mode="sum",
                                                                    include_last_offset=True),
    "embedding_bag/include_last_offset_max": lambda L, d: bag(L, d, [0, 1, 2, 3], [0, 1, 4], mode="max",
                                                              include_last_offset=True),
    "embedding_bag/include_last_offset_empty_offsets": lambda L, d: F(L).embedding_bag(
        i(L, d, [0, 1]), w(L, d), L.zeros(0, dtype=L.int64, device=d), include_last_offset=True),
    "embedding_bag/include_last_offset_2d": lambda L, d: bag(L, d, [[0, 1], [2, 3]], include_last_offset=True),
    # ---- F.embedding_bag: inputs
    "embedding_bag/input_3d": lambda L, d: bag(L, d, [[[0, 1]]]),
    "embedding_bag/input_float": lambda L, d: F(L).embedding_bag(T(L, [0.0, 1.0], d), w(L, d), i(L, d, [0])),
    "embedding_bag/input_0dim": lambda L, d: F(L).embedding_bag(i(L, d, 1), w(L, d), i(L, d, [0])),
    "embedding_bag/weight_1d": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1]), R(L, (5,), d, "float32"),
                                                               i(L, d, [0])),
    "embedding_bag/weight_int": lambda L, d: F(L).embedding_bag(i(L, d, [0, 1]), L.arange(15, device=d).reshape(5, 3),
                                                                i(L, d, [0])),
    "embedding_bag/weight_float16": lambda L, d: bag(L, d, [0, 1, 4], [0, 1], weight=w(L, d, dtype="float16")),
    "embedding_bag/weight_float64_max": lambda L, d: bag(L, d, [0, 1, 4], [0, 1], weight=w(L, d, dtype="float64"),
                                                         mode="max"),
    "embedding_bag/2d_empty_rows": lambda L, d: F(L).embedding_bag(L.zeros(2, 0, dtype=L.int64, device=d), w(L, d)),
    "embedding_bag/2d_empty_rows_max": lambda L, d: F(L).embedding_bag(L.zeros(2, 0, dtype=L.int64, device=d),
                                                                       w(L, d), mode="max"),
    "embedding_bag/2d_zero_bags": lambda L, d: F(L).embedding_bag(L.zeros(0, 3, dtype=L.int64, device=d), w(L, d)),
    "embedding_bag/2d_oob": lambda L, d: bag(L, d, [[0, 5]]),
    "embedding_bag/2d_negative": lambda L, d: bag(L, d, [[0, -1]]),
    "embedding_bag/1d_negative": lambda L, d: bag(L, d, [0, -1], [0]),
    # ---- F.embedding_bag: per_sample_weights
    "embedding_bag/psw_max": lambda L, d: bag(L, d, [0, 1, 2], [0, 1], mode="max",
                                              per_sample_weights=psw(L, d, [1.0, 2.0, 3.0])),
    "embedding_bag/psw_2d_sum": lambda L, d: bag(L, d, [[0, 1], [2, 3]], mode="sum",
                                                 per_sample_weights=psw(L, d, [[1.0, 2.0], [0.5, -1.0]])),
    "embedding_bag/psw_2d_for_1d": lambda L, d: bag(L, d, [0, 1, 2, 3], [0, 2], mode="sum",
                                                    per_sample_weights=psw(L, d, [[1.0, 2.0], [0.5, -1.0]])),
    "embedding_bag/psw_float64": lambda L, d: bag(L, d, [0, 1, 2], [0, 1], mode="sum",
                                                  per_sample_weights=T(L, [1.0, 2.0, 3.0], d, "float64")),
    "embedding_bag/psw_int": lambda L, d: bag(L, d, [0, 1, 2], [0, 1], mode="sum",
                                              per_sample_weights=i(L, d, [1, 2, 3])),
    "embedding_bag/psw_grad": lambda L, d: _psw_grad(L, d),
    "embedding_bag/psw_padding_idx": lambda L, d: bag(L, d, [0, 1, 2], [0, 1], mode="sum", padding_idx=1,
                                                      per_sample_weights=psw(L, d, [1.0, 2.0, 3.0])),
    "embedding_bag/psw_include_last_offset": lambda L, d: bag(L, d, [0, 1, 2], [0, 1, 3], mode="sum",
                                                              include_last_offset=True,
                                                              per_sample_weights=psw(L, d, [1.0, 2.0, 3.0])),
    # ---- F.embedding_bag: padding_idx with each mode
    "embedding_bag/padding_only_bag_mean": lambda L, d: bag(L, d, [2, 2, 0, 1], [0, 2], padding_idx=2),
    "embedding_bag/padding_only_bag_max": lambda L, d: bag(L, d, [2, 2, 0, 1], [0, 2], padding_idx=2, mode="max"),
    "embedding_bag/padding_only_bag_sum": lambda L, d: bag(L, d, [2, 2, 0, 1], [0, 2], padding_idx=2, mode="sum"),
    "embedding_bag/padding_idx_past": lambda L, d: bag(L, d, [0, 1], [0], padding_idx=5),
    "embedding_bag/padding_idx_below": lambda L, d: bag(L, d, [0, 1], [0], padding_idx=-6),
    "embedding_bag/padding_idx_negative_ok": lambda L, d: bag(L, d, [0, 4, 1], [0], padding_idx=-1),
    "embedding_bag/padding_idx_grad": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding_bag(
        i(L, d, [0, 2, 2, 1]), t, i(L, d, [0, 2]), padding_idx=2)),
    # ---- F.embedding_bag: max_norm, gradients, sparse
    "embedding_bag/max_norm_weight_after": lambda L, d: bag_renormed(L, d, [0, 1, 1, 3], [0, 2], max_norm=0.7),
    "embedding_bag/max_norm_max_mode": lambda L, d: bag_renormed(L, d, [0, 1, 4], [0, 1], max_norm=0.7,
                                                                 mode="max"),
    "embedding_bag/max_grad": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding_bag(
        i(L, d, [0, 1, 4, 3]), t, i(L, d, [0, 2]), mode="max")),
    "embedding_bag/mean_grad_empty_bag": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding_bag(
        i(L, d, [0, 1, 4]), t, i(L, d, [0, 3, 3]), mode="mean")),
    "embedding_bag/sparse_sum_grad": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding_bag(
        i(L, d, [0, 1, 1]), t, i(L, d, [0, 1]), mode="sum", sparse=True)),
    "embedding_bag/sparse_max": lambda L, d: bag(L, d, [0, 1, 1], [0, 1], mode="max", sparse=True),
    "embedding_bag/scale_grad_by_freq_mean": lambda L, d: weight_grad(L, d, lambda t: F(L).embedding_bag(
        i(L, d, [0, 1, 1, 1]), t, i(L, d, [0, 2]), mode="mean", scale_grad_by_freq=True)),
    "embedding_bag/scale_grad_by_freq_max": lambda L, d: bag(L, d, [0, 1, 1], [0, 1], mode="max",
                                                             scale_grad_by_freq=True),
    "embedding_bag/input_requires_grad_weight": lambda L, d: _bag_indices_grad(L, d),
    # ---- nn.EmbeddingBag
    "EmbeddingBag/bad_mode_forward": lambda L, d: L.nn.EmbeddingBag(5, 3, mode="avg").to(d)(i(L, d, [[0, 1]])),
    "EmbeddingBag/padding_idx_past": lambda L, d: L.nn.EmbeddingBag(5, 3, padding_idx=5),
    "EmbeddingBag/padding_idx_negative_normalised": lambda L, d: L.nn.EmbeddingBag(5, 3, padding_idx=-2).padding_idx,
    "EmbeddingBag/weight_wrong_shape": lambda L, d: L.nn.EmbeddingBag(5, 3, _weight=L.zeros(5, 4)),
    "EmbeddingBag/padding_row_zeroed": Case(lambda L, d: L.nn.EmbeddingBag(5, 3, padding_idx=0).weight[0], "exact"),
    "EmbeddingBag/psw_mean_module": lambda L, d: L.nn.EmbeddingBag.from_pretrained(w(L, d), mode="mean")(
        i(L, d, [0, 1]), i(L, d, [0]), per_sample_weights=psw(L, d, [1.0, 2.0])),
    "EmbeddingBag/from_pretrained_max_last_offset": lambda L, d: L.nn.EmbeddingBag.from_pretrained(
        w(L, d), mode="max", include_last_offset=True)(i(L, d, [0, 1, 4]), i(L, d, [0, 2, 3])),
    "EmbeddingBag/from_pretrained_1d": lambda L, d: L.nn.EmbeddingBag.from_pretrained(R(L, (5,), d, "float32")),
    "EmbeddingBag/from_pretrained_freeze_false": lambda L, d: L.nn.EmbeddingBag.from_pretrained(
        w(L, d), freeze=False).weight.requires_grad,
    "EmbeddingBag/from_pretrained_padding": lambda L, d: L.nn.EmbeddingBag.from_pretrained(
        w(L, d), padding_idx=1, mode="sum")(i(L, d, [[1, 2], [1, 1]])),
    "EmbeddingBag/extra_repr": lambda L, d: repr(L.nn.EmbeddingBag(5, 3, mode="max", padding_idx=1, max_norm=1.0)),
    "EmbeddingBag/offsets_with_2d": lambda L, d: L.nn.EmbeddingBag.from_pretrained(w(L, d))(
        i(L, d, [[0, 1]]), i(L, d, [0])),
    "EmbeddingBag/no_offsets_1d": lambda L, d: L.nn.EmbeddingBag.from_pretrained(w(L, d))(i(L, d, [0, 1])),
    "EmbeddingBag/sparse_grad_module": lambda L, d: _bag_module_sparse_grad(L, d),
}


def _bf16_grad(L, d):
    weight = w(L, d, dtype="bfloat16").requires_grad_()
    F(L).embedding(i(L, d, [0, 3, 0]), weight).float().sum().backward()
    return weight.grad


def _renorm_leaf(L, d):
    weight = w(L, d).requires_grad_()
    out = F(L).embedding(i(L, d, [0, 2]), weight, max_norm=0.5)
    return out.detach(), weight.detach(), weight.requires_grad


def _sparse_layout(L, d):
    weight = w(L, d).requires_grad_()
    F(L).embedding(i(L, d, [0, 2, 0]), weight, sparse=True).sum().backward()
    return str(weight.grad.layout).split(".")[-1], tuple(weight.grad.shape), weight.grad.is_sparse


def _module_sparse_grad(L, d):
    module = L.nn.Embedding(5, 3, sparse=True).to(d)
    with L.no_grad():
        module.weight.copy_(w(L, d))
    module(i(L, d, [1, 3, 1])).sum().backward()
    return module.weight.grad.is_sparse, module.weight.grad.to_dense()


def _module_max_norm(L, d):
    module = L.nn.Embedding.from_pretrained(w(L, d), max_norm=0.5)
    out = module(i(L, d, [0, 4]))
    return out, module.weight


def _pretrained_padding_grad(L, d):
    module = L.nn.Embedding.from_pretrained(w(L, d), freeze=False, padding_idx=1)
    module(i(L, d, [1, 2, 1])).sum().backward()
    return module.weight.grad


def _pretrained_max_norm(L, d):
    module = L.nn.Embedding.from_pretrained(w(L, d), max_norm=1.0, norm_type=1.0)
    out = module(i(L, d, [3, 3]))
    return out, module.weight


def _psw_grad(L, d):
    weights = psw(L, d, [1.0, 2.0, 3.0]).requires_grad_()
    table = w(L, d).requires_grad_()
    F(L).embedding_bag(i(L, d, [0, 1, 2]), table, i(L, d, [0, 1]), mode="sum",
                       per_sample_weights=weights).sum().backward()
    return weights.grad, table.grad


def _bag_indices_grad(L, d):
    table = w(L, d).requires_grad_()
    out = F(L).embedding_bag(i(L, d, [0, 1, 2]), table, i(L, d, [0, 1]))
    return out.requires_grad, out.grad_fn is not None


def _bag_module_sparse_grad(L, d):
    module = L.nn.EmbeddingBag(5, 3, mode="sum", sparse=True).to(d)
    with L.no_grad():
        module.weight.copy_(w(L, d))
    module(i(L, d, [1, 3, 1]), i(L, d, [0, 1])).sum().backward()
    return module.weight.grad.is_sparse, module.weight.grad.to_dense()


_INDICES_ON_CPU = ("on the GPU only: PyTorch checks embedding_bag's and embedding_renorm_'s indices on its CPU only (a "
                   "device-side assert on CUDA); on the GPU tandem's index_select check raises its IndexError (as "
                   "nn.py's embedding_bag/oob)")
KNOWN = {
    "embedding_bag/1d_negative": _INDICES_ON_CPU, "embedding_bag/2d_negative": _INDICES_ON_CPU,
    "embedding_bag/2d_oob": _INDICES_ON_CPU, "embedding/max_norm_oob": _INDICES_ON_CPU,
    "embedding_bag/include_last_offset_short": "PyTorch's CPU kernel is inconsistent when include_last_offset's last "
                                               "offset stops short of the input's end: sum stops at it, mean divides "
                                               "that sum by the count to the input's end, max reads to the end; "
                                               "tandem ends the last bag at the last offset in every mode (the "
                                               "documented meaning; include_last_offset_short_sum agrees)",
}
