"""nn.functional breadth beyond functional.py and nn.py: interpolate's mode x size/scale_factor/align_corners
combinations and antialias, grid_sample's align_corners and padding modes on points outside the grid,
affine_grid's 3-d form, unfold/fold round trips, pixel_shuffle/unshuffle on odd ranks, embedding_bag's modes,
per_sample_weights and padding_idx, one_hot's num_classes against the data, pad's modes with pads as large as the
input, normalize's eps and p, cosine_similarity broadcasting, and scaled_dot_product_attention's masks, dtypes
and causal shapes."""
from . import R, T


def F(L):
    return L.nn.functional


def x(L, d, shape, dtype="float64"):
    return R(L, shape, d, dtype)


def idx(L, values, d):
    return T(L, values, d, "int64")


def interp(L, d, shape, **kw):
    return F(L).interpolate(x(L, d, shape), **kw)


def grid(L, d, shape, scale):
    return R(L, shape, d, scale=scale)


def fold_round_trip(L, d, **kw):
    """fold(unfold(x)): each pixel times the number of blocks covering it."""
    t = x(L, d, (1, 2, 5, 6))
    cols = F(L).unfold(t, **kw)
    return F(L).fold(cols, (5, 6), **kw)


def bag(L, d, mode, indices, offsets=None, **kw):
    w = x(L, d, (6, 3))
    return F(L).embedding_bag(idx(L, indices, d), w, None if offsets is None else idx(L, offsets, d), mode=mode,
                              **kw)


def sdpa(L, d, q_shape, k_shape, v_shape=None, dtype="float64", **kw):
    q = x(L, d, q_shape, dtype)
    k = x(L, d, k_shape, dtype) * 0.5
    v = x(L, d, v_shape or k_shape, dtype) * 0.25
    return F(L).scaled_dot_product_attention(q, k, v, **kw)


def bool_mask(L, d, shape, period=3):
    n = 1
    for s in shape:
        n *= s
    return (L.arange(n, device=d) % period != 0).reshape(shape)


CASES = {
    # ---- interpolate: modes x sizes x align_corners
    "interpolate/nearest_scale_1_5": lambda L, d: interp(L, d, (1, 2, 4, 4), scale_factor=1.5, mode="nearest"),
    "interpolate/nearest_exact_scale_0_6": lambda L, d: interp(L, d, (1, 1, 5, 5), scale_factor=0.6,
                                                               mode="nearest-exact"),
    "interpolate/bilinear_corners_scale": lambda L, d: interp(L, d, (1, 1, 3, 4), scale_factor=(2.0, 1.5),
                                                              mode="bilinear", align_corners=True),
    "interpolate/bilinear_recompute": lambda L, d: interp(L, d, (1, 1, 3, 4), scale_factor=1.7, mode="bilinear",
                                                          recompute_scale_factor=True),
    "interpolate/bilinear_no_recompute": lambda L, d: interp(L, d, (1, 1, 3, 4), scale_factor=1.7, mode="bilinear",
                                                             recompute_scale_factor=False),
    "interpolate/bicubic_corners_size": lambda L, d: interp(L, d, (1, 2, 3, 3), size=(5, 7), mode="bicubic",
                                                            align_corners=True),
    "interpolate/bicubic_size_1": lambda L, d: interp(L, d, (1, 1, 4, 4), size=(1, 1), mode="bicubic"),
    "interpolate/bilinear_antialias_down": lambda L, d: interp(L, d, (1, 1, 8, 8), size=(3, 3), mode="bilinear",
                                                               antialias=True),
    "interpolate/bicubic_antialias_down": lambda L, d: interp(L, d, (1, 1, 8, 8), size=(3, 5), mode="bicubic",
                                                              antialias=True),
    "interpolate/linear_size_1_corners": lambda L, d: interp(L, d, (1, 2, 5), size=1, mode="linear",
                                                             align_corners=True),
    "interpolate/linear_from_1": lambda L, d: interp(L, d, (1, 2, 1), size=4, mode="linear", align_corners=True),
    "interpolate/area_upscale": lambda L, d: interp(L, d, (1, 1, 3, 3), size=(5, 4), mode="area"),
    "interpolate/trilinear_corners": lambda L, d: interp(L, d, (1, 1, 2, 3, 2), scale_factor=2, mode="trilinear",
                                                         align_corners=True),
    "interpolate/nearest_3d_size": lambda L, d: interp(L, d, (1, 1, 2, 3, 2), size=(3, 2, 5), mode="nearest"),
    "interpolate/scale_tuple_too_short": lambda L, d: interp(L, d, (1, 1, 3, 3), scale_factor=(2.0,),
                                                             mode="nearest"),
    "interpolate/size_tuple_too_long": lambda L, d: interp(L, d, (1, 1, 3), size=(2, 2), mode="nearest"),
    "interpolate/align_corners_on_nearest_exact": lambda L, d: interp(L, d, (1, 1, 3, 3), size=4,
                                                                      mode="nearest-exact", align_corners=False),
    "interpolate/antialias_on_3d_linear": lambda L, d: interp(L, d, (1, 1, 6), size=3, mode="linear",
                                                              antialias=True),
    "interpolate/size_and_scale_none": lambda L, d: interp(L, d, (1, 1, 3, 3), size=None, scale_factor=None),
    "interpolate/scale_negative_tuple": lambda L, d: interp(L, d, (1, 1, 3, 3), scale_factor=(2.0, -1.0)),
    "interpolate/float32_half_pixel": lambda L, d: F(L).interpolate(x(L, d, (1, 1, 3, 5), "float32"),
                                                                    scale_factor=0.5, mode="bilinear"),
    # ---- grid_sample / affine_grid
    "grid_sample/outside_zeros_corners": lambda L, d: F(L).grid_sample(x(L, d, (1, 1, 3, 3)),
                                                                       grid(L, d, (1, 2, 2, 2), 2.0),
                                                                       align_corners=True),
    "grid_sample/outside_border": lambda L, d: F(L).grid_sample(x(L, d, (1, 1, 3, 3)), grid(L, d, (1, 2, 2, 2), 2.0),
                                                                padding_mode="border", align_corners=False),
    "grid_sample/outside_reflection_corners": lambda L, d: F(L).grid_sample(
        x(L, d, (1, 1, 3, 3)), grid(L, d, (1, 2, 2, 2), 3.0), padding_mode="reflection", align_corners=True),
    "grid_sample/nearest_reflection": lambda L, d: F(L).grid_sample(
        x(L, d, (1, 2, 4, 4)), grid(L, d, (1, 3, 2, 2), 1.7), mode="nearest", padding_mode="reflection"),
    "grid_sample/bicubic_border": lambda L, d: F(L).grid_sample(
        x(L, d, (1, 1, 4, 4)), grid(L, d, (1, 2, 2, 2), 1.2), mode="bicubic", padding_mode="border"),
    "grid_sample/5d_nearest": lambda L, d: F(L).grid_sample(x(L, d, (1, 1, 3, 3, 3)), grid(L, d, (1, 2, 2, 2, 3),
                                                                                           0.9), mode="nearest"),
    "grid_sample/grid_float32_input_float64": lambda L, d: F(L).grid_sample(x(L, d, (1, 1, 3, 3)),
                                                                            x(L, d, (1, 2, 2, 2), "float32")),
    "affine_grid/3d_ok": lambda L, d: F(L).affine_grid(x(L, d, (1, 3, 4)) * 0.2, [1, 1, 2, 3, 2],
                                                       align_corners=False),
    "affine_grid/3d_theta_for_2d_size": lambda L, d: F(L).affine_grid(x(L, d, (1, 3, 4)), [1, 1, 2, 3]),
    "affine_grid/3d_theta_for_2d_tuple_size": lambda L, d: F(L).affine_grid(x(L, d, (1, 3, 4)), (1, 1, 2, 3)),
    "affine_grid/2d_theta_for_3d_size": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3)), [1, 1, 2, 3, 4]),
    "affine_grid/size_6_values": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3)), [1, 1, 2, 3, 4, 5]),
    "affine_grid/size_1_corners": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3)), [1, 1, 1, 3],
                                                                align_corners=True),
    "affine_grid/size_1_no_corners": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3)), [1, 1, 1, 3],
                                                                   align_corners=False),
    # ---- unfold / fold
    "fold/round_trip_overlap": lambda L, d: fold_round_trip(L, d, kernel_size=(2, 3), stride=1),
    "fold/round_trip_strided_padded": lambda L, d: fold_round_trip(L, d, kernel_size=2, stride=2, padding=1),
    "fold/round_trip_dilated": lambda L, d: fold_round_trip(L, d, kernel_size=2, dilation=2),
    "unfold/2d_unbatched_ok": lambda L, d: F(L).unfold(x(L, d, (2, 4, 4)), kernel_size=2),
    "fold/2d_unbatched_ok": lambda L, d: F(L).fold(x(L, d, (4, 9)), (4, 4), kernel_size=2),
    "fold/output_size_3": lambda L, d: F(L).fold(x(L, d, (1, 4, 9)), (4, 4, 4), kernel_size=2),
    "unfold/kernel_bigger_than_padded": lambda L, d: F(L).unfold(x(L, d, (1, 1, 3, 3)), kernel_size=4, padding=0),
    # ---- pixel_shuffle / pixel_unshuffle / channel_shuffle
    "pixel_shuffle/3d": lambda L, d: F(L).pixel_shuffle(x(L, d, (4, 2, 3)), 2),
    "pixel_shuffle/2d": lambda L, d: F(L).pixel_shuffle(x(L, d, (4, 2)), 2),
    "pixel_shuffle/5d": lambda L, d: F(L).pixel_shuffle(x(L, d, (2, 1, 8, 2, 2)), 2),
    "pixel_shuffle/factor_1": lambda L, d: F(L).pixel_shuffle(x(L, d, (1, 3, 2, 2)), 1),
    "pixel_shuffle/negative": lambda L, d: F(L).pixel_shuffle(x(L, d, (1, 4, 2, 2)), -2),
    "pixel_unshuffle/ok": lambda L, d: F(L).pixel_unshuffle(x(L, d, (1, 2, 4, 6)), 2),
    "pixel_unshuffle/zero": lambda L, d: F(L).pixel_unshuffle(x(L, d, (1, 1, 4, 4)), 0),
    "pixel_unshuffle/width_not_divisible": lambda L, d: F(L).pixel_unshuffle(x(L, d, (1, 1, 4, 5)), 2),
    "pixel_unshuffle/2d": lambda L, d: F(L).pixel_unshuffle(x(L, d, (4, 4)), 2),
    "channel_shuffle/not_divisible": lambda L, d: F(L).channel_shuffle(x(L, d, (1, 5, 2, 2)), 2),
    "channel_shuffle/ok": lambda L, d: F(L).channel_shuffle(x(L, d, (1, 6, 2, 2)), 3),
    # ---- embedding / embedding_bag
    "embedding/padding_idx_grad": lambda L, d: (lambda w: (F(L).embedding(idx(L, [[1, 2], [2, 0]], d), w,
                                                                          padding_idx=2).sum().backward(), w.grad)[1])(
        x(L, d, (4, 3)).requires_grad_()),
    "embedding/max_norm_renorms_weight": lambda L, d: (lambda w: (F(L).embedding(idx(L, [1, 3], d), w, max_norm=1.0),
                                                                  w)[1])(x(L, d, (4, 3))),
    "embedding/2d_index_3d_out": lambda L, d: F(L).embedding(idx(L, [[[0, 1]], [[3, 2]]], d), x(L, d, (4, 3))),
    "embedding_bag/sum": lambda L, d: bag(L, d, "sum", [0, 2, 4, 5], [0, 1]),
    "embedding_bag/max": lambda L, d: bag(L, d, "max", [0, 2, 4, 5], [0, 3]),
    "embedding_bag/mean_empty_bag": lambda L, d: bag(L, d, "mean", [0, 2, 4], [0, 3, 3]),
    "embedding_bag/max_empty_bag": lambda L, d: bag(L, d, "max", [0, 2, 4], [0, 0, 3]),
    "embedding_bag/include_last_offset": lambda L, d: bag(L, d, "sum", [0, 2, 4, 5], [0, 1, 4],
                                                          include_last_offset=True),
    "embedding_bag/per_sample_weights_sum": lambda L, d: bag(L, d, "sum", [0, 2, 4], [0, 2],
                                                             per_sample_weights=x(L, d, (3,))),
    "embedding_bag/per_sample_weights_mean": lambda L, d: bag(L, d, "mean", [0, 2, 4], [0, 2],
                                                              per_sample_weights=x(L, d, (3,))),
    "embedding_bag/per_sample_weights_wrong_len": lambda L, d: bag(L, d, "sum", [0, 2, 4], [0, 2],
                                                                   per_sample_weights=x(L, d, (2,))),
    "embedding_bag/padding_idx": lambda L, d: bag(L, d, "sum", [0, 2, 4, 2], [0, 2], padding_idx=2),
    "embedding_bag/padding_idx_mean": lambda L, d: bag(L, d, "mean", [2, 2, 4, 2], [0, 2], padding_idx=2),
    "embedding_bag/2d_with_offsets": lambda L, d: bag(L, d, "sum", [[0, 2], [4, 5]], [0, 1]),
    "embedding_bag/2d_ok": lambda L, d: bag(L, d, "mean", [[0, 2], [4, 5]]),
    "embedding_bag/1d_without_offsets": lambda L, d: bag(L, d, "sum", [0, 2, 4]),
    "embedding_bag/bad_mode": lambda L, d: bag(L, d, "min", [0, 2], [0]),
    # ---- one_hot
    "one_hot/classes_too_small": lambda L, d: F(L).one_hot(idx(L, [0, 3, 1], d), 3),
    "one_hot/classes_exact": lambda L, d: F(L).one_hot(idx(L, [0, 2, 1], d), 3),
    "one_hot/classes_bigger": lambda L, d: F(L).one_hot(idx(L, [[0], [2]], d), 5),
    "one_hot/classes_float": lambda L, d: F(L).one_hot(idx(L, [0, 2], d), 3.0),
    "one_hot/classes_float_keyword": lambda L, d: F(L).one_hot(idx(L, [0, 2], d), num_classes=3.0),
    "one_hot/classes_bool": lambda L, d: F(L).one_hot(idx(L, [0, 1], d), True),
    "one_hot/classes_none": lambda L, d: F(L).one_hot(idx(L, [0, 1], d), None),
    "one_hot/classes_numpy_int": lambda L, d: F(L).one_hot(idx(L, [0, 1], d), __import__("numpy").int64(3)),
    "one_hot/three_positional": lambda L, d: F(L).one_hot(idx(L, [0, 1], d), 3, 4),
    "one_hot/empty_with_classes": lambda L, d: F(L).one_hot(idx(L, [], d), 4),
    "one_hot/uint8": lambda L, d: F(L).one_hot(T(L, [0, 2], d, "uint8"), 3),
    # ---- pad modes at their limits
    "pad/reflect_pad_equal_size": lambda L, d: F(L).pad(x(L, d, (1, 1, 3)), (3, 0), mode="reflect"),
    "pad/reflect_pad_size_minus_1": lambda L, d: F(L).pad(x(L, d, (1, 1, 3)), (2, 2), mode="reflect"),
    "pad/replicate_huge": lambda L, d: F(L).pad(x(L, d, (1, 1, 2)), (5, 7), mode="replicate"),
    "pad/circular_equal_size": lambda L, d: F(L).pad(x(L, d, (1, 1, 3)), (3, 3), mode="circular"),
    "pad/circular_past_size": lambda L, d: F(L).pad(x(L, d, (1, 1, 3)), (4, 0), mode="circular"),
    "pad/reflect_2d_too_big_h": lambda L, d: F(L).pad(x(L, d, (1, 1, 2, 5)), (1, 1, 2, 0), mode="reflect"),
    "pad/replicate_3d": lambda L, d: F(L).pad(x(L, d, (1, 1, 2, 2, 2)), (1, 0, 0, 1, 2, 0), mode="replicate"),
    "pad/constant_negative_all": lambda L, d: F(L).pad(x(L, d, (2, 3)), (-1, -2)),
    "pad/constant_negative_past": lambda L, d: F(L).pad(x(L, d, (2, 3)), (-2, -2)),
    "pad/constant_value_int_tensor": lambda L, d: F(L).pad(T(L, [[1, 2]], d), (1, 1), value=2.7),
    "pad/reflect_unbatched_2d": lambda L, d: F(L).pad(x(L, d, (2, 4)), (2, 1), mode="reflect"),
    # ---- normalize / cosine_similarity / pairwise_distance
    "normalize/zero_vector": lambda L, d: F(L).normalize(L.zeros(2, 3, device=d, dtype=L.float64)),
    "normalize/p_inf": lambda L, d: F(L).normalize(x(L, d, (2, 3)), p=float("inf"), dim=0),
    "normalize/p_1_eps_big": lambda L, d: F(L).normalize(x(L, d, (2, 3)), p=1, eps=100.0),
    "normalize/0d": lambda L, d: F(L).normalize(T(L, 3.0, d), dim=0),
    "normalize/dim_tuple": lambda L, d: F(L).normalize(x(L, d, (2, 3, 2)), dim=(1, 2)),
    "cosine_similarity/broadcast": lambda L, d: F(L).cosine_similarity(x(L, d, (2, 1, 3)), x(L, d, (4, 3)), dim=-1),
    "cosine_similarity/zero_vector": lambda L, d: F(L).cosine_similarity(L.zeros(2, 3, device=d), x(L, d, (2, 3),
                                                                                                   "float32")),
    "cosine_similarity/dim_0": lambda L, d: F(L).cosine_similarity(x(L, d, (3, 2)), x(L, d, (3, 2)) + 1, dim=0),
    "cosine_similarity/1d_dim_past": lambda L, d: F(L).cosine_similarity(x(L, d, (3,)), x(L, d, (3,)), dim=1),
    "cosine_similarity/int": lambda L, d: F(L).cosine_similarity(T(L, [[1, 2]], d), T(L, [[2, 1]], d)),
    "pairwise_distance/broadcast": lambda L, d: F(L).pairwise_distance(x(L, d, (2, 3)), x(L, d, (1, 3))),
    "pairwise_distance/p_0": lambda L, d: F(L).pairwise_distance(x(L, d, (2, 3)), x(L, d, (2, 3)) * 0.5, p=0),
    # ---- scaled_dot_product_attention
    "sdpa/bool_mask_broadcast": lambda L, d: sdpa(L, d, (2, 2, 3, 4), (2, 2, 5, 4),
                                                  attn_mask=bool_mask(L, d, (3, 5))),
    "sdpa/float_mask_broadcast": lambda L, d: sdpa(L, d, (2, 2, 3, 4), (2, 2, 5, 4),
                                                   attn_mask=x(L, d, (1, 2, 1, 5))),
    "sdpa/mask_all_false_row": lambda L, d: sdpa(L, d, (1, 1, 2, 4), (1, 1, 3, 4),
                                                 attn_mask=T(L, [[False, False, False], [True, False, True]], d)),
    "sdpa/causal_non_square": lambda L, d: sdpa(L, d, (1, 1, 2, 4), (1, 1, 5, 4), is_causal=True),
    "sdpa/causal_more_queries": lambda L, d: sdpa(L, d, (1, 1, 5, 4), (1, 1, 2, 4), is_causal=True),
    "sdpa/mask_not_broadcastable": lambda L, d: sdpa(L, d, (1, 2, 3, 4), (1, 2, 5, 4),
                                                     attn_mask=bool_mask(L, d, (3, 4))),
    "sdpa/float32_mask_float64_q": lambda L, d: sdpa(L, d, (1, 1, 3, 4), (1, 1, 3, 4),
                                                     attn_mask=x(L, d, (3, 3), "float32")),
    "sdpa/int_mask": lambda L, d: sdpa(L, d, (1, 1, 3, 4), (1, 1, 3, 4), attn_mask=T(L, [[1, 0, 1]] * 3, d)),
    "sdpa/3d_inputs": lambda L, d: sdpa(L, d, (2, 3, 4), (2, 5, 4)),
    "sdpa/value_dim_differs": lambda L, d: sdpa(L, d, (1, 3, 4), (1, 5, 4), (1, 5, 6)),
    "sdpa/scale_zero": lambda L, d: sdpa(L, d, (1, 3, 4), (1, 5, 4), scale=0.0),
    "sdpa/gqa": lambda L, d: sdpa(L, d, (1, 4, 3, 4), (1, 2, 5, 4), enable_gqa=True),
    "sdpa/gqa_not_divisible": lambda L, d: sdpa(L, d, (1, 3, 3, 4), (1, 2, 5, 4), enable_gqa=True),
    "sdpa/heads_differ_without_gqa": lambda L, d: sdpa(L, d, (1, 4, 3, 4), (1, 2, 5, 4)),
    "sdpa/batch_broadcast": lambda L, d: sdpa(L, d, (2, 1, 3, 4), (1, 1, 5, 4)),
    "sdpa/float16_cpu_dtype": lambda L, d: sdpa(L, d, (1, 1, 3, 4), (1, 1, 3, 4), dtype="float32",
                                                attn_mask=x(L, d, (3, 3), "float64")),
}

KNOWN = {
    "one_hot/classes_too_small": "PyTorch checks one_hot's class values on its CPU only (a device assert on its "
                                 "GPU); tandem too: on a GPU the check would cost a synchronisation per call, so "
                                 "scatter_'s IndexError names the bad value",
}
