"""Odd layouts: permuted, channels-last 4-d/5-d, as_strided with gaps, stride-0 expanded, flipped, zero-size with
odd strides and overlapping as_strided tensors through elementwise ops, where/clamp, clone/contiguous, the *_like
factories, .to(), conv/batch_norm/pools, index_fill/index_put/masked_fill, and in-place writes into them (PyTorch
refuses writes into memory that overlaps itself). Results compare by value and by stride() where the layout is
the point of the case."""
from . import R


def base(L, d, shape=(2, 3, 4, 5), dtype="float32"):
    return R(L, shape, d, dtype)


def layout(t):
    """The strides a result was given, and its values."""
    return t.stride(), t


def cl(L, d, shape=(2, 3, 4, 5)):
    return base(L, d, shape).contiguous(memory_format=L.channels_last)


def cl3(L, d, shape=(2, 3, 2, 4, 5)):
    return base(L, d, shape).contiguous(memory_format=L.channels_last_3d)


def permuted(L, d):
    return base(L, d).permute(3, 1, 0, 2)


def gapped(L, d):
    """as_strided with gaps between rows and elements."""
    return base(L, d, (40,)).as_strided((3, 4), (10, 2), 1)


def expanded(L, d):
    return base(L, d, (3, 1)).expand(3, 4)


def flipped(L, d):
    return base(L, d, (3, 4)).flip(0).flip(1)


def overlapping(L, d):
    """Rows that share memory: row i starts one element after row i-1."""
    return base(L, d, (10,)).as_strided((3, 4), (1, 1))


def empty_odd(L, d):
    return base(L, d, (0,)).as_strided((0, 3, 4), (7, 1, 11))


def sliced(L, d):
    return base(L, d, (6, 8))[1::2, ::3]


def is_cf(t, L):
    return (t.is_contiguous(), t.is_contiguous(memory_format=L.channels_last))


CASES = {
    # ---- elementwise: values and the strides PyTorch gives the result
    "add/cl_plus_cl": lambda L, d: layout(cl(L, d) + cl(L, d)),
    "add/cl_plus_permuted": lambda L, d: layout(cl(L, d) + base(L, d).permute(0, 1, 2, 3)),
    "add/permuted_plus_scalar": lambda L, d: layout(permuted(L, d) + 1),
    "add/gapped_plus_gapped": lambda L, d: layout(gapped(L, d) + gapped(L, d)),
    "add/expanded_plus_flipped": lambda L, d: layout(expanded(L, d) + flipped(L, d)),
    "add/overlapping_plus_one": lambda L, d: layout(overlapping(L, d) + 1),
    "add/empty_odd": lambda L, d: layout(empty_odd(L, d) + 1),
    "add/cl3_plus_cl3": lambda L, d: layout(cl3(L, d) * 2),
    "add/cl_plus_1d_bias": lambda L, d: layout(cl(L, d) + base(L, d, (5,))),
    "add/cl_plus_channel_bias": lambda L, d: layout(cl(L, d) + base(L, d, (3, 1, 1))),
    "mul/flipped_sliced": lambda L, d: layout(flipped(L, d) * base(L, d, (6, 8))[::2, 1::2][:, :4]),
    "neg/sliced": lambda L, d: layout(-sliced(L, d)),
    "exp/cl": lambda L, d: layout(cl(L, d).exp()),
    "sigmoid/permuted": lambda L, d: layout(permuted(L, d).sigmoid()),
    "abs/expanded": lambda L, d: layout(expanded(L, d).abs()),
    "pow/cl_int": lambda L, d: layout(cl(L, d).to(L.int32) ** 2),
    "div/cl_by_zero_int": lambda L, d: cl(L, d).to(L.int64) // 0,
    "eq/cl_vs_contiguous": lambda L, d: layout(cl(L, d) == base(L, d)),
    "to_dtype/cl_to_half": lambda L, d: layout(cl(L, d).half()),
    "to_dtype/permuted_to_int": lambda L, d: layout(permuted(L, d).to(L.int32)),
    "to_dtype/cl3_to_double": lambda L, d: layout(cl3(L, d).double()),
    "where/cl_condition": lambda L, d: layout(L.where(cl(L, d) > 0, cl(L, d), 0.0)),
    "where/mixed_layouts": lambda L, d: layout(L.where(base(L, d) > 0, cl(L, d), permuted(L, d).permute(2, 1, 3, 0))),
    "where/expanded_cond": lambda L, d: layout(L.where(expanded(L, d) > 0, flipped(L, d), gapped(L, d))),
    "clamp/cl": lambda L, d: layout(cl(L, d).clamp(-1, 1)),
    "clamp/tensor_bounds_mixed": lambda L, d: layout(cl(L, d).clamp(base(L, d) * 0 - 1, permuted(L, d).permute(
        2, 1, 3, 0))),
    "clamp/min_gt_max_flipped": lambda L, d: layout(flipped(L, d).clamp(2, -2)),
    "clamp/overlapping": lambda L, d: layout(overlapping(L, d).clamp(min=0)),
    # ---- clone / contiguous / is_contiguous / stride
    "clone/preserve_permuted": lambda L, d: layout(permuted(L, d).clone()),
    "clone/preserve_gapped": lambda L, d: layout(gapped(L, d).clone()),
    "clone/preserve_overlapping": lambda L, d: layout(overlapping(L, d).clone()),
    "clone/preserve_flipped": lambda L, d: layout(flipped(L, d).clone()),
    "clone/preserve_empty_odd": lambda L, d: layout(empty_odd(L, d).clone()),
    "clone/preserve_cl3": lambda L, d: layout(cl3(L, d).clone()),
    "clone/channels_last_3d_of_4d": lambda L, d: base(L, d).clone(memory_format=L.channels_last_3d),
    "clone/channels_last_of_expanded": lambda L, d: layout(base(L, d, (2, 1, 4, 1)).expand(2, 3, 4, 5).clone(
        memory_format=L.channels_last)),
    "clone/preserve_sliced_cl": lambda L, d: layout(cl(L, d)[:, :, ::2].clone()),
    "contiguous/overlapping": lambda L, d: layout(overlapping(L, d).contiguous()),
    "contiguous/cl_of_permuted": lambda L, d: layout(permuted(L, d).permute(2, 1, 3, 0).contiguous(
        memory_format=L.channels_last)),
    "contiguous/cl3_of_cl": lambda L, d: cl(L, d).contiguous(memory_format=L.channels_last_3d),
    "contiguous/cl_empty_dims": lambda L, d: layout(base(L, d, (2, 0, 4, 5)).contiguous(memory_format=L.channels_last)),
    "is_contiguous/cl_of_expanded": lambda L, d: is_cf(base(L, d, (2, 3, 1, 1)).expand(2, 3, 4, 5), L),
    "is_contiguous/cl_of_size1_hw": lambda L, d: is_cf(base(L, d, (2, 3, 1, 1)), L),
    "is_contiguous/cl_of_empty": lambda L, d: is_cf(base(L, d, (0, 3, 4, 5)), L),
    "is_contiguous/cl3_of_cl3_sliced": lambda L, d: cl3(L, d)[:, :, :1].is_contiguous(
        memory_format=L.channels_last_3d),
    "is_contiguous/overlapping": lambda L, d: overlapping(L, d).is_contiguous(),
    "is_contiguous/flipped": lambda L, d: flipped(L, d).is_contiguous(),
    "is_contiguous/empty_odd": lambda L, d: empty_odd(L, d).is_contiguous(),
    "is_contiguous/not_a_format": lambda L, d: base(L, d).is_contiguous(memory_format=L.float32),
    "is_contiguous/string_format": lambda L, d: base(L, d).is_contiguous(memory_format="channels_last"),
    "stride/negative_dim": lambda L, d: cl(L, d).stride(-1),
    "stride/dim_out_of_range": lambda L, d: cl(L, d).stride(4),
    "stride/of_flip": lambda L, d: flipped(L, d).stride(),
    "stride/of_expand": lambda L, d: expanded(L, d).stride(),
    "storage_offset/gapped": lambda L, d: gapped(L, d).storage_offset(),
    # ---- as_strided misuse
    "as_strided/negative_stride": lambda L, d: base(L, d, (10,)).as_strided((3,), (-1,)),
    "as_strided/past_storage": lambda L, d: base(L, d, (10,)).as_strided((3, 4), (4, 1)),
    "as_strided/negative_offset": lambda L, d: base(L, d, (10,)).as_strided((2,), (1,), -1),
    "as_strided/size_stride_len_mismatch": lambda L, d: base(L, d, (10,)).as_strided((2, 2), (1,)),
    "as_strided/zero_size_huge_stride": lambda L, d: layout(base(L, d, (10,)).as_strided((0, 4), (2**40, 1))),
    "as_strided/negative_size": lambda L, d: base(L, d, (10,)).as_strided((-1,), (1,)),
    "as_strided/of_cl": lambda L, d: layout(cl(L, d).as_strided((2, 3), (1, 2))),
    # ---- *_like factories and .to with memory_format
    "empty_like/cl_of_permuted": lambda L, d: L.empty_like(permuted(L, d), memory_format=L.channels_last).stride(),
    "empty_like/preserve_gapped": lambda L, d: L.empty_like(gapped(L, d)).stride(),
    "empty_like/preserve_overlapping": lambda L, d: L.empty_like(overlapping(L, d)).stride(),
    "empty_like/preserve_flipped": lambda L, d: L.empty_like(flipped(L, d)).stride(),
    "empty_like/preserve_expanded": lambda L, d: L.empty_like(expanded(L, d)).stride(),
    "zeros_like/preserve_cl3": lambda L, d: layout(L.zeros_like(cl3(L, d))),
    "zeros_like/cl3_of_4d": lambda L, d: L.zeros_like(base(L, d), memory_format=L.channels_last_3d),
    "ones_like/contiguous_of_cl": lambda L, d: layout(L.ones_like(cl(L, d), memory_format=L.contiguous_format)),
    "full_like/preserve_gapped": lambda L, d: layout(L.full_like(gapped(L, d), 7.0)),
    "rand_like/preserve_permuted": lambda L, d: L.rand_like(permuted(L, d)).stride(),
    "randint_like/preserve_cl": lambda L, d: L.randint_like(cl(L, d), 10).stride(),
    "empty_like/string_format": lambda L, d: L.empty_like(base(L, d), memory_format="channels_last"),
    "to/cl_preserve_to_double": lambda L, d: layout(cl(L, d).to(L.float64)),
    "to/permuted_preserve_device": lambda L, d: layout(permuted(L, d).to(d, L.float64)),
    "to/gapped_to_double": lambda L, d: layout(gapped(L, d).to(L.float64)),
    "to/cl_of_3d": lambda L, d: base(L, d, (3, 4, 5)).to(L.float64, memory_format=L.channels_last),
    "to/copy_true_preserve": lambda L, d: layout(cl(L, d).to(L.float32, copy=True)),
    "to/cl3_to_contiguous_format": lambda L, d: layout(cl3(L, d).to(memory_format=L.contiguous_format)),
    "to/memory_format_positional_misuse": lambda L, d: base(L, d).to(L.channels_last),
    "type_as/cl": lambda L, d: layout(cl(L, d).type_as(base(L, d, (2,), "float64"))),
    # ---- nn ops on odd layouts
    "conv2d/cl_input": lambda L, d: layout(L.nn.functional.conv2d(cl(L, d), base(L, d, (4, 3, 3, 3)))),
    "conv2d/cl_weight": lambda L, d: layout(L.nn.functional.conv2d(base(L, d), base(L, d, (4, 3, 3, 3)).contiguous(
        memory_format=L.channels_last))),
    "conv2d/permuted_input": lambda L, d: L.nn.functional.conv2d(base(L, d, (2, 5, 4, 3)).permute(0, 3, 2, 1),
                                                                 base(L, d, (4, 3, 2, 2))),
    "conv2d/expanded_input": lambda L, d: L.nn.functional.conv2d(base(L, d, (1, 3, 4, 5)).expand(2, 3, 4, 5),
                                                                 base(L, d, (2, 3, 3, 3))),
    "conv2d/flipped_input": lambda L, d: L.nn.functional.conv2d(base(L, d).flip(3), base(L, d, (2, 3, 3, 3))),
    "conv3d/cl3_input": lambda L, d: layout(L.nn.functional.conv3d(cl3(L, d), base(L, d, (2, 3, 1, 2, 2)))),
    "conv_transpose2d/cl_input": lambda L, d: layout(L.nn.functional.conv_transpose2d(cl(L, d),
                                                                                      base(L, d, (3, 2, 2, 2)))),
    "batch_norm/cl": lambda L, d: layout(L.nn.functional.batch_norm(cl(L, d), None, None, training=True)),
    "batch_norm/cl_running": lambda L, d: layout(L.nn.functional.batch_norm(
        cl(L, d), L.zeros(3, device=d), L.ones(3, device=d), base(L, d, (3,)), base(L, d, (3,)))),
    "batch_norm/permuted": lambda L, d: L.nn.functional.batch_norm(base(L, d, (2, 4, 5, 3)).permute(0, 3, 1, 2),
                                                                   None, None, training=True),
    "max_pool2d/cl": lambda L, d: layout(L.nn.functional.max_pool2d(cl(L, d), 2)),
    "max_pool2d/cl_indices": lambda L, d: layout(L.nn.functional.max_pool2d(cl(L, d), 2, return_indices=True)[1]),
    "avg_pool2d/cl": lambda L, d: layout(L.nn.functional.avg_pool2d(cl(L, d), 2)),
    "avg_pool2d/flipped": lambda L, d: L.nn.functional.avg_pool2d(base(L, d).flip(2), 2),
    "adaptive_avg_pool2d/cl": lambda L, d: layout(L.nn.functional.adaptive_avg_pool2d(cl(L, d), 1)),
    "max_pool3d/cl3": lambda L, d: layout(L.nn.functional.max_pool3d(cl3(L, d), (1, 2, 2))),
    "interpolate/cl_nearest": lambda L, d: layout(L.nn.functional.interpolate(cl(L, d), scale_factor=2)),
    "interpolate/cl_bilinear": lambda L, d: layout(L.nn.functional.interpolate(cl(L, d), size=(3, 7),
                                                                               mode="bilinear")),
    "conv_transpose3d/cl3_input": lambda L, d: layout(L.nn.functional.conv_transpose3d(cl3(L, d), base(
        L, d, (3, 2, 1, 2, 2)))),
    "conv1d/transposed_input": lambda L, d: layout(L.nn.functional.conv1d(base(L, d, (2, 5, 3)).transpose(1, 2),
                                                                          base(L, d, (2, 3, 2)))),
    "adaptive_max_pool2d/cl_indices": lambda L, d: [layout(t) for t in L.nn.functional.adaptive_max_pool2d(
        cl(L, d), 2, return_indices=True)],
    "adaptive_max_pool3d/cl3": lambda L, d: layout(L.nn.functional.adaptive_max_pool3d(cl3(L, d), 2)),
    "avg_pool3d/cl3": lambda L, d: layout(L.nn.functional.avg_pool3d(cl3(L, d), (1, 2, 2))),
    "max_pool3d/cl3_indices": lambda L, d: layout(L.nn.functional.max_pool3d(cl3(L, d), 2, return_indices=True)[1]),
    "group_norm/cl": lambda L, d: layout(L.nn.functional.group_norm(cl(L, d), 3)),
    "group_norm/cl3": lambda L, d: layout(L.nn.functional.group_norm(cl3(L, d), 1)),
    "pad/cl_constant": lambda L, d: layout(L.nn.functional.pad(cl(L, d), (1, 2))),
    "pad/cl_reflect": lambda L, d: layout(L.nn.functional.pad(cl(L, d), (1, 1, 2, 0), mode="reflect")),
    "pad/cl3_replicate": lambda L, d: layout(L.nn.functional.pad(cl3(L, d), (1, 1, 1, 1, 1, 1), mode="replicate")),
    "pixel_shuffle/cl": lambda L, d: layout(L.nn.functional.pixel_shuffle(cl(L, d, (1, 8, 2, 3)), 2)),
    "pixel_unshuffle/cl": lambda L, d: layout(L.nn.functional.pixel_unshuffle(cl(L, d, (1, 2, 4, 6)), 2)),
    "channel_shuffle/cl": lambda L, d: layout(L.nn.functional.channel_shuffle(cl(L, d, (2, 4, 3, 3)), 2)),
    "roll/cl": lambda L, d: layout(cl(L, d).roll(1, 1)),
    "roll/cl_flat": lambda L, d: layout(cl(L, d).roll(3)),
    "cat/cl": lambda L, d: layout(L.cat([cl(L, d), cl(L, d)], 1)),
    "stack/cl": lambda L, d: layout(L.stack([cl(L, d), cl(L, d)])),
    "flip/cl": lambda L, d: layout(cl(L, d).flip(1)),
    "interpolate/cl3_trilinear": lambda L, d: layout(L.nn.functional.interpolate(cl3(L, d), size=(3, 3, 7),
                                                                                 mode="trilinear")),
    "interpolate/cl_area": lambda L, d: layout(L.nn.functional.interpolate(cl(L, d), size=(3, 7), mode="area")),
    "interpolate/cl_bicubic_antialias": lambda L, d: layout(L.nn.functional.interpolate(
        cl(L, d), size=(2, 3), mode="bicubic", antialias=True)),
    "relu_/cl_inplace": lambda L, d: layout(L.relu_(cl(L, d))),
    "layer_norm/permuted": lambda L, d: L.nn.functional.layer_norm(permuted(L, d), (2, 4)),
    "softmax/overlapping": lambda L, d: layout(overlapping(L, d).softmax(1)),
    "sum/gapped": lambda L, d: gapped(L, d).sum(0),
    "cumsum/flipped": lambda L, d: layout(flipped(L, d).cumsum(1)),
    "matmul/gapped_flipped": lambda L, d: gapped(L, d) @ flipped(L, d).t(),
    # ---- index ops into / out of odd layouts
    "index_fill/cl": lambda L, d: layout(cl(L, d).index_fill(1, L.tensor([0, 2], device=d), -1.0)),
    "index_fill_/flipped": lambda L, d: layout(flipped(L, d).index_fill_(0, L.tensor([1], device=d), 0.0)),
    "index_fill_/expanded": lambda L, d: expanded(L, d).index_fill_(1, L.tensor([1], device=d), 0.0),
    "index_fill_/overlapping": lambda L, d: overlapping(L, d).index_fill_(0, L.tensor([1], device=d), 0.0),
    "index_put/cl": lambda L, d: layout(cl(L, d).index_put((L.tensor([0, 1], device=d),), L.tensor(9.0, device=d))),
    "index_put_/gapped": lambda L, d: layout(gapped(L, d).index_put_((L.tensor([0, 2], device=d),),
                                                                   L.tensor(9.0, device=d))),
    "index_put_/overlapping": lambda L, d: overlapping(L, d).index_put_((L.tensor([0], device=d),),
                                                                       L.tensor(9.0, device=d)),
    "index_put_/accumulate_expanded": lambda L, d: expanded(L, d).index_put_(
        (L.tensor([0, 0], device=d),), L.tensor(1.0, device=d), accumulate=True),
    "masked_fill/cl": lambda L, d: layout(cl(L, d).masked_fill(cl(L, d) > 0, 0.0)),
    "masked_fill_/flipped": lambda L, d: layout(flipped(L, d).masked_fill_(flipped(L, d) > 0, 0.0)),
    "masked_fill_/overlapping": lambda L, d: overlapping(L, d).masked_fill_(L.ones(3, 4, dtype=L.bool, device=d),
                                                                           0.0),
    "masked_fill_/gapped_mask_cl": lambda L, d: layout(gapped(L, d).masked_fill_(
        base(L, d, (4, 3)).t() > 0, 1.0)),
    "masked_scatter_/permuted": lambda L, d: layout(permuted(L, d).masked_scatter_(
        permuted(L, d) > 0, base(L, d, (200,)))),
    "scatter_/cl": lambda L, d: layout(cl(L, d).scatter_(1, L.zeros(2, 1, 4, 5, dtype=L.int64, device=d), 5.0)),
    "gather/flipped": lambda L, d: L.gather(flipped(L, d), 1, L.tensor([[0], [3], [1]], device=d)),
    "setitem/cl_slice": lambda L, d: _setitem_cl(L, d),
    "setitem/overlapping": lambda L, d: _setitem(overlapping(L, d)),
    "setitem/expanded": lambda L, d: _setitem(expanded(L, d)),
    # ---- in-place writes into overlapping / expanded / odd tensors
    "add_/overlapping": lambda L, d: overlapping(L, d).add_(1),
    "mul_/overlapping_tensor": lambda L, d: overlapping(L, d).mul_(base(L, d, (3, 4))),
    "add_/expanded": lambda L, d: expanded(L, d).add_(1),
    "copy_/into_overlapping": lambda L, d: overlapping(L, d).copy_(base(L, d, (3, 4))),
    "copy_/into_expanded": lambda L, d: expanded(L, d).copy_(base(L, d, (3, 4))),
    "copy_/into_flipped": lambda L, d: layout(flipped(L, d).copy_(base(L, d, (3, 4)))),
    "copy_/into_cl_from_permuted": lambda L, d: layout(cl(L, d).copy_(permuted(L, d).permute(2, 1, 3, 0))),
    "copy_/into_gapped_from_self_view": lambda L, d: _copy_self_overlap(L, d),
    "fill_/overlapping": lambda L, d: overlapping(L, d).fill_(3.0),
    "zero_/overlapping": lambda L, d: overlapping(L, d).zero_(),
    "clamp_/overlapping": lambda L, d: overlapping(L, d).clamp_(0, 1),
    "sigmoid_/overlapping": lambda L, d: overlapping(L, d).sigmoid_(),
    "add/out_overlapping": lambda L, d: L.add(base(L, d, (3, 4)), 1, out=overlapping(L, d)),
    "add/out_cl_keeps_strides": lambda L, d: layout(L.add(base(L, d), 1, out=cl(L, d))),
    "add/out_permuted_wrong_shape": lambda L, d: layout(L.add(base(L, d, (3, 4)), 1, out=base(L, d, (4, 3)).t())),
    "mul_/partial_overlap_with_other": lambda L, d: _partial_overlap(L, d),
    "add_/self_flipped_other": lambda L, d: _add_flip_self(L, d),
    "exp_/flipped": lambda L, d: layout(flipped(L, d).exp_()),
    "add_/empty_odd": lambda L, d: layout(empty_odd(L, d).add_(1)),
}


def _setitem(t):
    t[0] = 1.0
    return t


def _setitem_cl(L, d):
    t = cl(L, d)
    t[:, 1] = -1.0
    return layout(t)


def _copy_self_overlap(L, d):
    x = base(L, d, (10,))
    x[1:].copy_(x[:-1])
    return x


def _partial_overlap(L, d):
    x = base(L, d, (10,))
    return x[:6].mul_(x[2:8])


def _add_flip_self(L, d):
    x = base(L, d, (6,))
    return x.add_(x.flip(0))


_OVERLAP_ORDER = ("undefined result: a write into memory that overlaps itself (as_strided rows sharing elements) lands in "
                  "each library's iteration order; PyTorch's overlap check says 'too hard to tell' and writes anyway, "
                  "as tandem does")
KNOWN = {
    "add/out_overlapping": _OVERLAP_ORDER,
    "copy_/into_overlapping": _OVERLAP_ORDER,
    "to/memory_format_positional_misuse": "needs C++: Tensor.to's binding names the device argument where PyTorch's "
                                          "parser lists the overloads",
}
