"""Spatial and lookup ops compared by value where their parameters are odd: interpolate's modes with align_corners,
scale factors below one, non-integer and per-dimension scales, recompute_scale_factor and antialias; grid_sample
on points exactly on and past the borders; affine_grid with align_corners; pixel_shuffle/unshuffle of 3-d and
5-d inputs; unfold/fold with dilation and padding (and fold's overlapping sums); Tensor.unfold with step larger
than the size; one_hot of large class counts and negative entries; embedding's max_norm (which renormalises the
weight in place), padding_idx (no gradient), norm_type and scale_grad_by_freq; embedding_bag modes and
per_sample_weights. nn.py and functional.py have the argument checks."""
import math

from . import R, T


def F(L):
    return L.nn.functional


def img(L, d, shape=(1, 2, 4, 5), dtype="float32"):
    return R(L, shape, d, dtype)


def weight_after(L, d, **kw):
    """The embedding weight after a lookup with max_norm (PyTorch renormalises the looked-up rows in place)."""
    weight = R(L, (5, 3), d, "float32")
    out = F(L).embedding(T(L, [[0, 2], [2, 4]], d), weight, **kw)
    return out, weight


def embedding_grad(L, d, **kw):
    weight = R(L, (5, 3), d, "float32").requires_grad_()
    F(L).embedding(T(L, [0, 2, 2, 1, 0, 0], d), weight, **kw).mul(R(L, (6, 3), d, "float32")).sum().backward()
    return weight.grad


def bag(L, d, mode, **kw):
    return F(L).embedding_bag(T(L, [0, 2, 2, 1, 4], d), R(L, (5, 3), d, "float32"), T(L, [0, 2, 2], d),
                              mode=mode, **kw)


CASES = {
    # ---- interpolate by value
    "interpolate/bilinear_align_corners": lambda L, d: F(L).interpolate(img(L, d), size=(7, 3), mode="bilinear",
                                                                        align_corners=True),
    "interpolate/bilinear_scale_below_one": lambda L, d: F(L).interpolate(img(L, d), scale_factor=0.6,
                                                                          mode="bilinear"),
    "interpolate/bilinear_per_dim_scale": lambda L, d: F(L).interpolate(img(L, d), scale_factor=(1.7, 0.5),
                                                                        mode="bilinear"),
    "interpolate/bilinear_recompute": lambda L, d: F(L).interpolate(img(L, d), scale_factor=(1.7, 0.5),
                                                                    mode="bilinear", recompute_scale_factor=True),
    "interpolate/bilinear_antialias_down": lambda L, d: F(L).interpolate(img(L, d, (1, 2, 9, 10)), size=(4, 3),
                                                                         mode="bilinear", antialias=True),
    "interpolate/bicubic_antialias_down": lambda L, d: F(L).interpolate(img(L, d, (1, 2, 9, 10)), size=(4, 3),
                                                                        mode="bicubic", antialias=True),
    "interpolate/bicubic_up": lambda L, d: F(L).interpolate(img(L, d), scale_factor=2.5, mode="bicubic"),
    "interpolate/nearest_scale_below_one": lambda L, d: F(L).interpolate(img(L, d), scale_factor=0.45),
    "interpolate/nearest_exact_up": lambda L, d: F(L).interpolate(img(L, d), size=(9, 7), mode="nearest-exact"),
    "interpolate/nearest_1d": lambda L, d: F(L).interpolate(img(L, d, (2, 3, 7)), size=4),
    "interpolate/linear_align_corners_size_1": lambda L, d: F(L).interpolate(img(L, d, (2, 3, 7)), size=1,
                                                                             mode="linear", align_corners=True),
    "interpolate/linear_from_size_1": lambda L, d: F(L).interpolate(img(L, d, (2, 3, 1)), size=5, mode="linear",
                                                                    align_corners=True),
    "interpolate/trilinear": lambda L, d: F(L).interpolate(img(L, d, (1, 2, 3, 4, 2)), size=(5, 2, 3),
                                                           mode="trilinear"),
    "interpolate/area_not_dividing": lambda L, d: F(L).interpolate(img(L, d), size=(3, 2), mode="area"),
    "interpolate/nearest_3d": lambda L, d: F(L).interpolate(img(L, d, (1, 2, 3, 4, 2)), scale_factor=1.5),
    "interpolate/float64": lambda L, d: F(L).interpolate(img(L, d, dtype="float64"), size=(6, 6), mode="bicubic",
                                                         align_corners=True),
    "interpolate/empty_batch": lambda L, d: F(L).interpolate(img(L, d, (0, 2, 4, 5)), size=(6, 6),
                                                             mode="bilinear"),
    "interpolate/scale_zero": lambda L, d: F(L).interpolate(img(L, d), scale_factor=0.0),
    "interpolate/scale_negative": lambda L, d: F(L).interpolate(img(L, d), scale_factor=-2.0),
    "interpolate/size_zero": lambda L, d: F(L).interpolate(img(L, d), size=(0, 3)),
    "interpolate/size_and_scale": lambda L, d: F(L).interpolate(img(L, d), size=3, scale_factor=2.0),
    "interpolate/neither": lambda L, d: F(L).interpolate(img(L, d)),
    "interpolate/bad_mode": lambda L, d: F(L).interpolate(img(L, d), size=3, mode="cubic"),
    "interpolate/align_corners_nearest": lambda L, d: F(L).interpolate(img(L, d), size=3, align_corners=True),
    "interpolate/antialias_area": lambda L, d: F(L).interpolate(img(L, d), size=3, mode="area", antialias=True),
    "interpolate/size_list_wrong_length": lambda L, d: F(L).interpolate(img(L, d), size=[3, 3, 3]),
    "upsample_bilinear/ok": lambda L, d: F(L).upsample_bilinear(img(L, d), scale_factor=2),
    "Upsample/module_scale": lambda L, d: L.nn.Upsample(scale_factor=(2, 1.5), mode="bilinear")(img(L, d)),
    # ---- grid_sample and affine_grid by value
    "grid_sample/on_border_zeros": lambda L, d: F(L).grid_sample(
        img(L, d), T(L, [[[[1.0, 1.0], [-1.0, -1.0]], [[1.0, -1.0], [0.0, 1.0]]]], d), align_corners=True),
    "grid_sample/past_border_zeros": lambda L, d: F(L).grid_sample(
        img(L, d), T(L, [[[[1.2, 0.3], [-1.1, -0.9]], [[0.2, -1.5], [3.0, 3.0]]]], d), align_corners=False),
    "grid_sample/past_border_border": lambda L, d: F(L).grid_sample(
        img(L, d), T(L, [[[[1.2, 0.3], [-1.1, -0.9]], [[0.2, -1.5], [3.0, 3.0]]]], d), padding_mode="border",
        align_corners=False),
    "grid_sample/past_border_reflection_far": lambda L, d: F(L).grid_sample(
        img(L, d), T(L, [[[[5.3, 0.3], [-4.1, -0.9]], [[0.2, -7.5], [3.0, 9.0]]]], d), padding_mode="reflection",
        align_corners=True),
    "grid_sample/nearest_half_way": lambda L, d: F(L).grid_sample(
        img(L, d), T(L, [[[[0.2, 0.25], [-0.6, 0.75]]]], d), mode="nearest", align_corners=False),
    "grid_sample/bicubic_border": lambda L, d: F(L).grid_sample(
        img(L, d), T(L, [[[[1.2, 0.3], [-1.1, -0.9]]]], d), mode="bicubic", padding_mode="border",
        align_corners=False),
    "grid_sample/5d_trilinear": lambda L, d: F(L).grid_sample(img(L, d, (1, 2, 3, 4, 3)),
                                                              R(L, (1, 2, 2, 2, 3), d, "float32", scale=1.2),
                                                              align_corners=False),
    "grid_sample/float64": lambda L, d: F(L).grid_sample(img(L, d, dtype="float64"),
                                                         R(L, (1, 3, 3, 2), d, "float64", scale=1.1),
                                                         align_corners=True),
    "affine_grid/align_corners_true": lambda L, d: F(L).affine_grid(R(L, (2, 2, 3), d, "float32"), (2, 1, 3, 4),
                                                                    align_corners=True),
    "affine_grid/size_one": lambda L, d: F(L).affine_grid(R(L, (1, 2, 3), d, "float32"), (1, 1, 1, 4),
                                                          align_corners=False),
    "affine_grid/3d": lambda L, d: F(L).affine_grid(R(L, (1, 3, 4), d, "float32"), (1, 1, 2, 3, 2),
                                                    align_corners=False),
    "affine_grid/3d_theta_wrong": lambda L, d: F(L).affine_grid(R(L, (1, 2, 3), d, "float32"), (1, 1, 2, 3, 2)),
    # ---- pixel_shuffle / unshuffle / channel_shuffle
    "pixel_shuffle/3d_input": lambda L, d: F(L).pixel_shuffle(img(L, d, (8, 2, 3)), 2),
    "pixel_shuffle/5d_input": lambda L, d: F(L).pixel_shuffle(img(L, d, (2, 1, 4, 2, 3)), 2),
    "pixel_shuffle/2d_input": lambda L, d: F(L).pixel_shuffle(img(L, d, (4, 2)), 2),
    "pixel_shuffle/negative": lambda L, d: F(L).pixel_shuffle(img(L, d, (1, 4, 2, 3)), -2),
    "pixel_shuffle/int": lambda L, d: F(L).pixel_shuffle(L.arange(24, device=d).reshape(1, 4, 2, 3), 2),
    "pixel_unshuffle/round_trip": lambda L, d: F(L).pixel_unshuffle(F(L).pixel_shuffle(img(L, d, (2, 9, 2, 3)), 3),
                                                                     3),
    "pixel_unshuffle/3d": lambda L, d: F(L).pixel_unshuffle(img(L, d, (1, 4, 6)), 2),
    "pixel_unshuffle/zero": lambda L, d: F(L).pixel_unshuffle(img(L, d, (1, 4, 6)), 0),
    "channel_shuffle/ok": lambda L, d: F(L).channel_shuffle(L.arange(12., device=d).reshape(1, 6, 2, 1), 3),
    "channel_shuffle/not_dividing": lambda L, d: F(L).channel_shuffle(img(L, d, (1, 6, 2, 1)), 4),
    "ChannelShuffle/module": lambda L, d: L.nn.ChannelShuffle(2)(L.arange(8., device=d).reshape(1, 4, 2, 1)),
    # ---- unfold / fold by value
    "unfold/dilation_padding_stride": lambda L, d: F(L).unfold(img(L, d), (2, 2), dilation=2, padding=(1, 0),
                                                               stride=(1, 2)),
    "unfold/3d_unbatched": lambda L, d: F(L).unfold(img(L, d, (2, 4, 5)), 2),
    "fold/overlapping_sums": lambda L, d: F(L).fold(R(L, (1, 4, 12), d, "float32"), (4, 5), 2, stride=1),
    "fold/dilation_padding": lambda L, d: F(L).fold(R(L, (1, 8, 6), d, "float32"), (4, 5), 2, dilation=2,
                                                    padding=1, stride=(1, 2)),
    "fold/unbatched": lambda L, d: F(L).fold(R(L, (4, 12), d, "float32"), (4, 5), 2, stride=1),
    "fold/round_trip_counts": lambda L, d: F(L).fold(F(L).unfold(L.ones(1, 1, 4, 5, device=d), 2),
                                                     (4, 5), 2),
    "Tensor.unfold/step_bigger": lambda L, d: L.arange(10., device=d).unfold(0, 3, 4),
    "Tensor.unfold/size_too_big": lambda L, d: L.arange(10., device=d).unfold(0, 11, 1),
    "Tensor.unfold/size_zero": lambda L, d: L.arange(10., device=d).unfold(0, 0, 1),
    "Tensor.unfold/step_zero": lambda L, d: L.arange(10., device=d).unfold(0, 2, 0),
    "Tensor.unfold/0dim": lambda L, d: T(L, 3.0, d).unfold(0, 1, 1),
    "Tensor.unfold/dim_past": lambda L, d: L.arange(10., device=d).unfold(1, 2, 1),
    "Tensor.unfold/2d_dim1": lambda L, d: L.arange(12., device=d).reshape(3, 4).unfold(1, 2, 1),
    # ---- one_hot by value
    "one_hot/negative_entry": lambda L, d: F(L).one_hot(T(L, [0, -1], d), 3),
    "one_hot/entry_equals_classes": lambda L, d: F(L).one_hot(T(L, [0, 3], d), 3),
    "one_hot/many_classes": lambda L, d: F(L).one_hot(T(L, [0, 999], d), 1000).sum(1),
    "one_hot/inferred_classes": lambda L, d: F(L).one_hot(T(L, [[1, 4], [0, 2]], d)),
    "one_hot/empty_inferred": lambda L, d: F(L).one_hot(L.zeros(0, dtype=L.int64, device=d)),
    "one_hot/float": lambda L, d: F(L).one_hot(T(L, [0.0, 1.0], d), 2),
    "one_hot/uint8": lambda L, d: F(L).one_hot(T(L, [0, 1], d, "uint8"), 2),
    # ---- embedding's max_norm, padding_idx, norm_type, scale_grad_by_freq
    "embedding/max_norm_renormalises_weight": lambda L, d: weight_after(L, d, max_norm=1.0),
    "embedding/max_norm_norm_type_1": lambda L, d: weight_after(L, d, max_norm=2.0, norm_type=1.0),
    "embedding/max_norm_norm_type_inf": lambda L, d: weight_after(L, d, max_norm=2.0, norm_type=math.inf),
    "embedding/max_norm_zero": lambda L, d: weight_after(L, d, max_norm=0.0),
    "embedding/max_norm_large_keeps": lambda L, d: weight_after(L, d, max_norm=100.0),
    "embedding/padding_idx_grad": lambda L, d: embedding_grad(L, d, padding_idx=0),
    "embedding/padding_idx_negative_grad": lambda L, d: embedding_grad(L, d, padding_idx=-3),
    "embedding/scale_grad_by_freq": lambda L, d: embedding_grad(L, d, scale_grad_by_freq=True),
    "embedding/scale_grad_with_padding": lambda L, d: embedding_grad(L, d, scale_grad_by_freq=True, padding_idx=2),
    "embedding/padding_idx_float": lambda L, d: F(L).embedding(T(L, [1], d), R(L, (5, 3), d, "float32"),
                                                               padding_idx=1.0),
    "embedding/0dim_index": lambda L, d: F(L).embedding(T(L, 2, d), R(L, (5, 3), d, "float32")),
    "Embedding/padding_idx_row_zeroed": lambda L, d: (L.manual_seed(0), L.nn.Embedding(4, 2, padding_idx=1)
                                                      .weight[1])[1],
    "Embedding/padding_idx_past": lambda L, d: L.nn.Embedding(4, 2, padding_idx=4),
    "Embedding/from_pretrained_freeze": lambda L, d: (lambda e: (e.weight.requires_grad, e(T(L, [1], d))))(
        L.nn.Embedding.from_pretrained(R(L, (3, 2), d, "float32"))),
    "Embedding/from_pretrained_1d": lambda L, d: L.nn.Embedding.from_pretrained(R(L, (3,), d, "float32")),
    # ---- embedding_bag modes and weights
    "embedding_bag/sum_empty_bag": lambda L, d: bag(L, d, "sum"),
    "embedding_bag/mean_empty_bag": lambda L, d: bag(L, d, "mean"),
    "embedding_bag/max_empty_bag": lambda L, d: bag(L, d, "max"),
    "embedding_bag/include_last_offset": lambda L, d: bag(L, d, "sum", include_last_offset=True),
    "embedding_bag/per_sample_weights_sum": lambda L, d: bag(L, d, "sum",
                                                             per_sample_weights=R(L, (5,), d, "float32")),
    "embedding_bag/per_sample_weights_mean": lambda L, d: bag(L, d, "mean",
                                                              per_sample_weights=R(L, (5,), d, "float32")),
    "embedding_bag/per_sample_weights_shape": lambda L, d: bag(L, d, "sum",
                                                               per_sample_weights=R(L, (4,), d, "float32")),
    "embedding_bag/padding_idx": lambda L, d: bag(L, d, "mean", padding_idx=2),
    "embedding_bag/2d_input": lambda L, d: F(L).embedding_bag(T(L, [[0, 2], [4, 4]], d), R(L, (5, 3), d, "float32"),
                                                              mode="max"),
    "embedding_bag/2d_with_offsets": lambda L, d: F(L).embedding_bag(T(L, [[0, 2]], d), R(L, (5, 3), d, "float32"),
                                                                     T(L, [0], d)),
    "embedding_bag/1d_without_offsets": lambda L, d: F(L).embedding_bag(T(L, [0, 2], d), R(L, (5, 3), d,
                                                                                            "float32")),
    "embedding_bag/bad_mode": lambda L, d: bag(L, d, "min"),
    "embedding_bag/max_norm": lambda L, d: bag(L, d, "sum", max_norm=1.0),
}

_CPU_ONLY = ("PyTorch checks one_hot's classes on its CPU only (a GPU check would cost a synchronisation); on a "
             "GPU tandem's scatter reports the index (the same RuntimeError)")
KNOWN = {"one_hot/entry_equals_classes": _CPU_ONLY, "one_hot/negative_entry": _CPU_ONLY}
