"""Zero-size tensors through every kind of op, beyond the dim-less empty reductions of reductions.py and
statistics.py: reductions over an empty dim with keepdim and dtype= (sum/prod/mean/nansum/logsumexp/var/std/norm
give 0, 1, nan or -inf; max/min/argmax/amax/median/mode/kthvalue refuse with PyTorch's words), std/var of a single
element, matmul family with a zero inner, outer or batch dim, nn layers with batch 0 and with zero channels or
features (conv, pooling, linear, batch/layer/group/instance norm, softmax, losses, embedding, RNNs), joins and
splits of empties (cat with a (0,) legacy tensor, stack, split, chunk, unbind, tensor_split), index ops with empty
indices, sort/topk/unique/cumsum/diff of empties, nonzero/where/masked_select/argwhere, reshape/view with -1 of an
empty tensor ("cannot reshape tensor of 0 elements into shape [-1, 0]"), expand/repeat to zero, and backward
through all of them."""
import math

from . import R, T


def e(L, d, shape=(0, 3), dtype="float32"):
    return L.zeros(shape, device=d, dtype=getattr(L, dtype))


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def grad_of(L, d, fn, shape=(0, 3)):
    """fn(leaf).sum().backward(); the leaf's gradient (zeros of the leaf's shape)."""
    leaf = L.zeros(shape, device=d, requires_grad=True)
    fn(leaf).sum().backward()
    return leaf.grad


def _conv(L, d, in_ch, out_ch, batch, size=5):
    w = R(L, (out_ch, in_ch, 3, 3), d, "float32")
    return L.nn.functional.conv2d(L.zeros(batch, in_ch, size, size, device=d), w)


CASES = {
    # ---- reductions over an empty dim
    "sum/empty_dim_keepdim": lambda L, d: e(L, d).sum(0, keepdim=True),
    "sum/empty_dim_int_dtype": lambda L, d: e(L, d, dtype="int32").sum(0),
    "sum/empty_dim_dtype_float64": lambda L, d: e(L, d).sum(0, dtype=L.float64),
    "prod/empty_dim": lambda L, d: e(L, d).prod(0),
    "prod/empty_dim_bool": lambda L, d: e(L, d, dtype="bool").prod(0),
    "mean/empty_dim": lambda L, d: e(L, d).mean(0),
    "mean/empty_other_dim": lambda L, d: e(L, d).mean(1),
    "nansum/empty_dim": lambda L, d: e(L, d).nansum(0),
    "nanmean/empty_dim": lambda L, d: e(L, d).nanmean(0),
    "logsumexp/empty_dim_0": lambda L, d: e(L, d).logsumexp(0),
    "var/empty_dim": lambda L, d: e(L, d).var(0),
    "std/one_element": lambda L, d: T(L, [3.0], d).std(),
    "std/one_element_dim": lambda L, d: x(L, d, (1, 3)).std(0),
    "std/one_element_correction0": lambda L, d: T(L, [3.0], d).std(correction=0),
    "var_mean/empty_dim": lambda L, d: e(L, d).var_mean(0),
    "std_mean/one_element": lambda L, d: T(L, [3.0], d).std_mean(),
    "norm/empty_dim": lambda L, d: e(L, d).norm(dim=0),
    "linalg.vector_norm/empty_dim_inf": lambda L, d: L.linalg.vector_norm(e(L, d), float("inf"), dim=0),
    "linalg.vector_norm/empty_dim_0_ord": lambda L, d: L.linalg.vector_norm(e(L, d), 0, dim=0),
    "count_nonzero/empty_dim": lambda L, d: e(L, d).count_nonzero(0),
    "all/empty_dim": lambda L, d: e(L, d).all(0),
    "any/empty_dim": lambda L, d: e(L, d).any(0),
    "max/empty_dim_0": lambda L, d: e(L, d).max(0),
    "max/empty_other_dim_ok": lambda L, d: e(L, d).max(1),
    "min/empty_no_dim": lambda L, d: e(L, d).min(),
    "argmax/empty_dim_0": lambda L, d: e(L, d).argmax(0),
    "argmin/empty_other_dim": lambda L, d: e(L, d).argmin(1),
    "amin/empty_dim_0": lambda L, d: e(L, d).amin(0),
    "aminmax/empty_dim_0": lambda L, d: e(L, d).aminmax(dim=0),
    "median/empty_dim_0": lambda L, d: e(L, d).median(0),
    "nanmedian/empty": lambda L, d: e(L, d).nanmedian(),
    "mode/empty_dim_0": lambda L, d: e(L, d).mode(0),
    "kthvalue/empty_dim_0": lambda L, d: e(L, d).kthvalue(1, 0),
    "quantile/empty_dim": lambda L, d: L.quantile(e(L, d), 0.5, dim=0),
    "nanquantile/empty": lambda L, d: L.nanquantile(e(L, d, (0,)), 0.5),
    "logcumsumexp/empty_dim": lambda L, d: e(L, d).logcumsumexp(0),
    "cumprod/empty_dim_1": lambda L, d: e(L, d).cumprod(1),
    "cummin/empty": lambda L, d: e(L, d).cummin(0),
    "diff/empty": lambda L, d: e(L, d).diff(dim=0),
    "diff/one_row": lambda L, d: x(L, d, (1, 3)).diff(dim=0),
    "histc/empty_min_eq_max": lambda L, d: L.histc(e(L, d, (0,)), bins=4),

    # ---- matmul family with zero dims
    "mm/zero_inner": lambda L, d: L.mm(e(L, d, (2, 0)), e(L, d, (0, 3))),
    "mm/zero_outer": lambda L, d: L.mm(e(L, d, (0, 2)), x(L, d, (2, 3))),
    "bmm/zero_batch": lambda L, d: L.bmm(e(L, d, (0, 2, 3)), e(L, d, (0, 3, 4))),
    "bmm/zero_inner": lambda L, d: L.bmm(e(L, d, (2, 2, 0)), e(L, d, (2, 0, 4))),
    "matmul/zero_batch_broadcast": lambda L, d: L.matmul(e(L, d, (0, 1, 2, 3)), x(L, d, (4, 3, 2))),
    "matmul/vec_zero": lambda L, d: L.matmul(e(L, d, (0,)), e(L, d, (0,))),
    "matmul/mat_vec_zero_inner": lambda L, d: L.matmul(e(L, d, (3, 0)), e(L, d, (0,))),
    "addmm/zero_inner_beta": lambda L, d: L.addmm(x(L, d, (2, 3)), e(L, d, (2, 0)), e(L, d, (0, 3)), beta=2),
    "addmv/zero_inner": lambda L, d: L.addmv(x(L, d, (2,)), e(L, d, (2, 0)), e(L, d, (0,))),
    "baddbmm/zero_batch": lambda L, d: L.baddbmm(e(L, d, (0, 2, 2)), e(L, d, (0, 2, 3)), e(L, d, (0, 3, 2))),
    "mm/zero_inner_mismatch": lambda L, d: L.mm(e(L, d, (2, 0)), e(L, d, (1, 3))),
    "einsum/zero_contraction": lambda L, d: L.einsum("ij,jk->ik", e(L, d, (2, 0)), e(L, d, (0, 3))),
    "linalg.inv/zero_batch": lambda L, d: L.linalg.inv(e(L, d, (0, 2, 2))),
    "linalg.solve/zero_rhs": lambda L, d: L.linalg.solve(L.eye(2, device=d), e(L, d, (2, 0))),

    # ---- nn layers with batch 0 or zero channels/features
    "conv2d/batch0": lambda L, d: _conv(L, d, 2, 3, 0),
    "conv2d/out_channels0": lambda L, d: _conv(L, d, 2, 0, 1),
    "conv1d/batch0_grad": lambda L, d: grad_of(L, d, lambda t: L.nn.functional.conv1d(
        t, R(L, (2, 3, 2), d, "float32")), (0, 3, 5)),
    "conv_transpose2d/batch0": lambda L, d: L.nn.functional.conv_transpose2d(
        L.zeros(0, 2, 3, 3, device=d), R(L, (2, 4, 3, 3), d, "float32")),
    "max_pool2d/batch0": lambda L, d: L.nn.functional.max_pool2d(L.zeros(0, 2, 4, 4, device=d), 2),
    "avg_pool2d/batch0": lambda L, d: L.nn.functional.avg_pool2d(L.zeros(0, 2, 4, 4, device=d), 2),
    "max_pool2d/channels0": lambda L, d: L.nn.functional.max_pool2d(L.zeros(1, 0, 4, 4, device=d), 2),
    "adaptive_avg_pool2d/batch0": lambda L, d: L.nn.functional.adaptive_avg_pool2d(L.zeros(0, 2, 4, 4, device=d), 2),
    "adaptive_max_pool1d/length0": lambda L, d: L.nn.functional.adaptive_max_pool1d(L.zeros(1, 2, 0, device=d), 2),
    "linear/batch0": lambda L, d: L.nn.functional.linear(e(L, d, (0, 3)), x(L, d, (4, 3)), x(L, d, (4,))),
    "linear/in_features0": lambda L, d: L.nn.functional.linear(e(L, d, (2, 0)), e(L, d, (4, 0)), x(L, d, (4,))),
    "linear/out_features0": lambda L, d: L.nn.functional.linear(x(L, d, (2, 3)), e(L, d, (0, 3))),
    "batch_norm/batch0_training": lambda L, d: L.nn.functional.batch_norm(
        e(L, d, (0, 3)), L.zeros(3, device=d), L.ones(3, device=d), training=True),
    "batch_norm/batch0_eval": lambda L, d: L.nn.functional.batch_norm(
        e(L, d, (0, 3)), L.zeros(3, device=d), L.ones(3, device=d), training=False),
    "batch_norm/one_value_training": lambda L, d: L.nn.functional.batch_norm(
        x(L, d, (1, 3)), L.zeros(3, device=d), L.ones(3, device=d), training=True),
    "batch_norm/channels0": lambda L, d: L.nn.functional.batch_norm(
        e(L, d, (2, 0)), L.zeros(0, device=d), L.ones(0, device=d), training=True),
    "layer_norm/batch0": lambda L, d: L.nn.functional.layer_norm(e(L, d, (0, 3)), (3,)),
    "layer_norm/normalized0": lambda L, d: L.nn.functional.layer_norm(e(L, d, (2, 0)), (0,)),
    "group_norm/batch0": lambda L, d: L.nn.functional.group_norm(e(L, d, (0, 4)), 2),
    "instance_norm/batch0": lambda L, d: L.nn.functional.instance_norm(e(L, d, (0, 2, 3))),
    "instance_norm/one_value": lambda L, d: L.nn.functional.instance_norm(x(L, d, (1, 2, 1))),
    "softmax/batch0_dim1": lambda L, d: L.softmax(e(L, d), 1),
    "log_softmax/features0": lambda L, d: L.log_softmax(e(L, d, (2, 0)), 1),
    "cross_entropy/batch0_mean": lambda L, d: L.nn.functional.cross_entropy(e(L, d), e(L, d, (0,), "int64")),
    "cross_entropy/batch0_sum": lambda L, d: L.nn.functional.cross_entropy(e(L, d), e(L, d, (0,), "int64"),
                                                                          reduction="sum"),
    "cross_entropy/batch0_probs": lambda L, d: L.nn.functional.cross_entropy(e(L, d), e(L, d)),
    "cross_entropy/classes0": lambda L, d: L.nn.functional.cross_entropy(e(L, d, (2, 0)), T(L, [0, 0], d)),
    "mse_loss/empty_mean": lambda L, d: L.nn.functional.mse_loss(e(L, d), e(L, d)),
    "l1_loss/empty_sum": lambda L, d: L.nn.functional.l1_loss(e(L, d), e(L, d), reduction="sum"),
    "bce/empty_mean": lambda L, d: L.nn.functional.binary_cross_entropy(e(L, d), e(L, d)),
    "kl_div/empty_batchmean": lambda L, d: L.nn.functional.kl_div(e(L, d), e(L, d), reduction="batchmean"),
    "embedding/weight_dim0": lambda L, d: L.nn.functional.embedding(T(L, [0, 1], d), e(L, d, (3, 0))),
    "dropout/batch0_training": lambda L, d: L.nn.functional.dropout(e(L, d), 0.5, training=True),
    "gru/batch0": lambda L, d: L.nn.GRU(3, 4).to(d)(e(L, d, (2, 0, 3)))[0].shape,
    "interpolate/batch0_bilinear": lambda L, d: L.nn.functional.interpolate(
        L.zeros(0, 2, 3, 3, device=d), scale_factor=2, mode="bilinear"),

    "grid_sample/batch0_bilinear": lambda L, d: L.nn.functional.grid_sample(
        L.zeros(0, 1, 3, 3, device=d), L.zeros(0, 2, 2, 2, device=d), align_corners=False),
    "grid_sample/batch0_nearest_3d": lambda L, d: L.nn.functional.grid_sample(
        L.zeros(0, 1, 2, 3, 3, device=d), L.zeros(0, 2, 2, 2, 3, device=d), mode="nearest", align_corners=True),
    "grid_sample/batch0_bicubic": lambda L, d: L.nn.functional.grid_sample(
        L.zeros(0, 2, 3, 3, device=d), L.zeros(0, 2, 2, 2, device=d), mode="bicubic", align_corners=False),
    "grid_sample/channels0": lambda L, d: L.nn.functional.grid_sample(
        L.zeros(2, 0, 3, 3, device=d), L.zeros(2, 2, 2, 2, device=d), align_corners=False),
    "grid_sample/batch0_grad": lambda L, d: grad_of(L, d, lambda t: L.nn.functional.grid_sample(
        t, L.zeros(0, 2, 2, 2, device=d), align_corners=False), (0, 2, 3, 3)),
    "ctc_loss/batch0": lambda L, d: L.nn.functional.ctc_loss(
        e(L, d, (5, 0, 3)), e(L, d, (0, 2), "int64"), e(L, d, (0,), "int64"), e(L, d, (0,), "int64")),
    "ctc_loss/frames0": lambda L, d: L.nn.functional.ctc_loss(
        e(L, d, (0, 1, 3)), T(L, [[1]], d), T(L, [0], d), T(L, [1], d)),
    "ctc_loss/labels0": lambda L, d: L.nn.functional.ctc_loss(
        e(L, d, (4, 1, 0)), T(L, [[1]], d), T(L, [4], d), T(L, [1], d)),
    "ctc_loss/target_length0_ok": lambda L, d: L.nn.functional.ctc_loss(
        x(L, d, (3, 1, 2)).log_softmax(2), e(L, d, (1, 0), "int64"), T(L, [3], d), T(L, [0], d)),
    "fractional_max_pool2d/batch0": lambda L, d: L.nn.functional.fractional_max_pool2d(
        L.zeros(0, 2, 4, 4, device=d), 2, output_size=2),
    "fractional_max_pool3d/batch0_indices": lambda L, d: L.nn.functional.fractional_max_pool3d(
        L.zeros(0, 2, 4, 4, 4, device=d), 2, output_size=2, return_indices=True),
    "fractional_max_pool2d/channels0": lambda L, d: L.nn.functional.fractional_max_pool2d(
        L.zeros(1, 0, 4, 4, device=d), 2, output_size=2),
    "fractional_max_pool3d/depth0": lambda L, d: L.nn.functional.fractional_max_pool3d(
        L.zeros(1, 2, 0, 4, 4, device=d), 2, output_size=1),
    "fractional_max_pool2d/unbatched_channels0_ok": lambda L, d: L.nn.functional.fractional_max_pool2d(
        L.zeros(0, 4, 4, device=d), 2, output_size=2),
    "fractional_max_pool2d/output0": lambda L, d: L.nn.functional.fractional_max_pool2d(
        x(L, d, (1, 2, 4, 4)), 2, output_size=0, return_indices=True),
    "fractional_max_pool2d/batch0_grad": lambda L, d: grad_of(L, d, lambda t: L.nn.functional.fractional_max_pool2d(
        t, 2, output_size=2), (0, 2, 4, 4)),
    "max_pool1d/length0": lambda L, d: L.nn.functional.max_pool1d(L.zeros(1, 2, 0, device=d), 1),
    "max_pool1d/channels0": lambda L, d: L.nn.functional.max_pool1d(L.zeros(1, 0, 4, device=d), 2),
    "max_pool1d/unbatched_length0": lambda L, d: L.nn.functional.max_pool1d(L.zeros(2, 0, device=d), 1),
    "max_pool1d/length0_indices": lambda L, d: L.nn.functional.max_pool1d(L.zeros(1, 2, 0, device=d), 1,
                                                                          return_indices=True),
    "max_pool1d/length0_requires_grad": lambda L, d: L.nn.functional.max_pool1d(
        L.zeros(1, 2, 0, device=d, requires_grad=True), 1),
    "max_pool1d/batch0_ok": lambda L, d: L.nn.functional.max_pool1d(L.zeros(0, 2, 3, device=d), 1),
    "max_pool3d/depth0": lambda L, d: L.nn.functional.max_pool3d(L.zeros(1, 2, 0, 4, 4, device=d), 1),
    "max_pool3d/unbatched_channels0": lambda L, d: L.nn.functional.max_pool3d(L.zeros(2, 0, 4, 4, device=d), 1),
    "avg_pool3d/depth0": lambda L, d: L.nn.functional.avg_pool3d(L.zeros(1, 2, 0, 4, 4, device=d), 1),
    "conv_transpose2d/height0": lambda L, d: L.nn.functional.conv_transpose2d(
        L.zeros(1, 2, 0, 3, device=d), L.ones(2, 3, 1, 1, device=d)),
    "conv_transpose1d/batch0_length0_ok": lambda L, d: L.nn.functional.conv_transpose1d(
        L.zeros(0, 2, 0, device=d), L.ones(2, 3, 1, device=d)),
    "conv_transpose1d/length0": lambda L, d: L.nn.functional.conv_transpose1d(
        L.zeros(1, 2, 0, device=d), L.ones(2, 3, 1, device=d)),
    "pixel_unshuffle/batch0": lambda L, d: L.nn.functional.pixel_unshuffle(L.zeros(0, 1, 4, 4, device=d), 2),
    "pixel_shuffle/batch0": lambda L, d: L.nn.functional.pixel_shuffle(L.zeros(0, 4, 2, 2, device=d), 2),

    # ---- joins and splits
    "cat/legacy_1d_empty_with_2d": lambda L, d: L.cat([e(L, d, (0,)), x(L, d)]),
    "cat/all_empty_dim1": lambda L, d: L.cat([e(L, d, (2, 0)), e(L, d, (2, 0))], 1),
    "cat/empty_wrong_other_dim": lambda L, d: L.cat([e(L, d, (0, 4)), x(L, d)]),
    "cat/empty_dtype_promotes": lambda L, d: L.cat([e(L, d, (0,), "float64"), T(L, [1, 2], d)]),
    "stack/empties": lambda L, d: L.stack([e(L, d), e(L, d)], 1),
    "stack/empty_shapes_differ": lambda L, d: L.stack([e(L, d, (0, 3)), e(L, d, (0, 2))]),
    "split/empty_size2": lambda L, d: e(L, d).split(2),
    "split/sizes_zero": lambda L, d: x(L, d).split([0, 2, 0], 0),
    "split/sizes_zero_sum_wrong": lambda L, d: x(L, d).split([0, 1], 0),
    "chunk/empty_dim1": lambda L, d: e(L, d, (2, 0)).chunk(3, 1),
    "unbind/empty_dim": lambda L, d: e(L, d).unbind(0),
    "unbind/empty_other_dim": lambda L, d: e(L, d).unbind(1),
    "tensor_split/empty_sections": lambda L, d: e(L, d).tensor_split(3),
    "tensor_split/empty_indices": lambda L, d: x(L, d).tensor_split([], 1),
    "hsplit/zero_columns": lambda L, d: e(L, d, (2, 0)).hsplit(2),

    # ---- index ops with empty indices or sources
    "index_select/empty_index_dim1": lambda L, d: x(L, d).index_select(1, e(L, d, (0,), "int64")),
    "gather/empty_index_2d": lambda L, d: x(L, d).gather(1, e(L, d, (2, 0), "int64")),
    "scatter_add/empty_index": lambda L, d: x(L, d).scatter_add(1, e(L, d, (2, 0), "int64"), e(L, d, (2, 0))),
    "index_add/empty_source": lambda L, d: x(L, d).index_add(0, e(L, d, (0,), "int64"), e(L, d)),
    "index_copy/empty": lambda L, d: x(L, d).index_copy(0, e(L, d, (0,), "int64"), e(L, d)),
    "getitem/empty_long_index": lambda L, d: x(L, d)[e(L, d, (0,), "int64")],
    "getitem/empty_bool_mask": lambda L, d: e(L, d)[e(L, d, dtype="bool")],
    "setitem/empty_mask": lambda L, d: (lambda t: (t.__setitem__(e(L, d, (0, 3), "bool"), 5.0), t)[1])(e(L, d)),
    "take_along_dim/empty": lambda L, d: L.take_along_dim(x(L, d), e(L, d, (2, 0), "int64"), 1),
    "index_put/empty_indices_accumulate": lambda L, d: x(L, d).index_put((e(L, d, (0,), "int64"),), e(L, d),
                                                                          accumulate=True),

    # ---- sort/topk/unique/where of empties
    "sort/empty_dim1_descending": lambda L, d: e(L, d, (2, 0)).sort(1, descending=True),
    "topk/k0_of_nonempty": lambda L, d: x(L, d).topk(0),
    "topk/k1_of_empty_dim": lambda L, d: e(L, d, (2, 0)).topk(1),
    "argsort/empty_stable": lambda L, d: e(L, d, (0,)).argsort(stable=True),
    "unique/empty_return_all": lambda L, d: L.unique(e(L, d, (0,)), return_inverse=True, return_counts=True),
    "unique_consecutive/empty_counts": lambda L, d: L.unique_consecutive(e(L, d, (0,)), return_counts=True),
    "nonzero/empty_2d": lambda L, d: e(L, d).nonzero(),
    "nonzero/empty_as_tuple": lambda L, d: e(L, d).nonzero(as_tuple=True),
    "argwhere/empty": lambda L, d: L.argwhere(e(L, d, (2, 0))),
    "where/empty_one_arg": lambda L, d: L.where(e(L, d, (0, 2), "bool")),
    "where/empty_broadcast": lambda L, d: L.where(e(L, d, (0, 1), "bool"), x(L, d, (1, 3)), 0.0),
    "masked_select/empty_mask": lambda L, d: x(L, d, (3,)).masked_select(e(L, d, (0, 3), "bool")),
    "searchsorted/empty_values": lambda L, d: L.searchsorted(x(L, d, (3,)).sort()[0], e(L, d, (0,))),
    "bincount/empty_minlength": lambda L, d: L.bincount(e(L, d, (0,), "int64"), minlength=3),
    "flip/empty": lambda L, d: e(L, d).flip(0, 1),
    "roll/empty_shift": lambda L, d: e(L, d).roll(2, 0),
    "tril/empty": lambda L, d: e(L, d, (0, 0)).tril(),
    "diagonal/empty_offset": lambda L, d: x(L, d).diagonal(5),
    "trace/empty": lambda L, d: e(L, d, (0, 0)).trace(),
    "diag_embed/empty": lambda L, d: L.diag_embed(e(L, d, (2, 0))),
    "repeat_interleave/empty_repeats": lambda L, d: L.repeat_interleave(e(L, d, (0,), "int64")),
    "repeat_interleave/repeats_zero": lambda L, d: x(L, d, (3,)).repeat_interleave(0),

    # ---- reshape/view/expand of empties
    "reshape/minus_one_and_zero": lambda L, d: e(L, d).reshape(-1, 0),
    "view/minus_one_and_zero": lambda L, d: e(L, d).view(0, -1),
    "reshape/minus_one_nonzero": lambda L, d: e(L, d).reshape(-1, 5),
    "view/zero_to_scalar": lambda L, d: e(L, d, (0,)).view(()),
    "reshape/zero_into_ones": lambda L, d: e(L, d).reshape(1, 1),
    "expand/to_zero": lambda L, d: x(L, d, (1, 3)).expand(0, 3),
    "expand/zero_to_nonzero": lambda L, d: e(L, d).expand(2, 3),
    "repeat/zero": lambda L, d: x(L, d).repeat(0, 2),
    "unflatten/zero": lambda L, d: e(L, d, (0,)).unflatten(0, (0, -1)),
    "flatten/empty_middle": lambda L, d: e(L, d, (2, 0, 3)).flatten(1),
    "squeeze/empty_dim": lambda L, d: e(L, d, (0, 1)).squeeze(),
    "movedim/empty": lambda L, d: e(L, d, (0, 2, 3)).movedim(0, 2).contiguous().stride(),

    # ---- backward through empties
    "backward/sum_of_empty": lambda L, d: grad_of(L, d, lambda t: t),
    "backward/mean_of_empty": lambda L, d: grad_of(L, d, lambda t: t.mean().reshape(1)),
    "backward/matmul_zero_inner": lambda L, d: grad_of(L, d, lambda t: t @ L.zeros(0, 2, device=d), (3, 0)),
    "backward/cat_with_empty": lambda L, d: grad_of(L, d, lambda t: L.cat([t, x(L, d)])),
    "backward/max_dim1_empty": lambda L, d: grad_of(L, d, lambda t: t.max(1)[0]),
    "backward/softmax_empty": lambda L, d: grad_of(L, d, lambda t: t.softmax(1)),
    "backward/prod_empty": lambda L, d: grad_of(L, d, lambda t: t.prod(0)),
    "backward/index_select_empty": lambda L, d: grad_of(L, d, lambda t: t.index_select(
        0, L.zeros(0, dtype=L.int64, device=d)), (2, 3)),
    "backward/layer_norm_batch0": lambda L, d: grad_of(L, d, lambda t: L.nn.functional.layer_norm(t, (3,))),
    "backward/cumsum_empty": lambda L, d: grad_of(L, d, lambda t: t.cumsum(0)),
    "backward/std_one": lambda L, d: grad_of(L, d, lambda t: t.std(), (1,)),
    "backward/norm_of_empty": lambda L, d: grad_of(L, d, lambda t: t.norm().reshape(1)),
    "backward/empty_grad_of_nonempty": lambda L, d: grad_of(L, d, lambda t: t[:0], (2, 3)),
    "autograd.grad/empty_output": lambda L, d: (lambda t: L.autograd.grad(t[:0].sum(), t))(
        L.ones(3, device=d, requires_grad=True)),
    "mean/nan_value": lambda L, d: math.isnan(e(L, d, (0,)).mean().item()),
}

KNOWN = {
    "max_pool3d/depth0": "on the GPU only: PyTorch's CUDA kernel names its own template; tandem names the device's "
                         "(max_pool3d_with_indices_out_cuda_template), the CPU oracle the CPU one",
    "max_pool3d/unbatched_channels0": "on the GPU only, as max_pool3d/depth0",
    "pixel_unshuffle/batch0": "PyTorch returns an empty input unchanged (its numel() == 0 shortcut clones it: shape "
                              "(0, 1, 4, 4)); tandem gives the unshuffled shape (0, 4, 2, 2), which what follows "
                              "(a conv over 4 channels) expects",
    "cross_entropy/classes0": "PyTorch checks class targets on its CPU only (a device-side assert on CUDA); on the GPU "
                              "tandem's gather check raises a RuntimeError (as nn.py's cross_entropy/target_oob)",
}
