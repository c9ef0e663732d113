"""Resampling, padding and folding through the nn modules and with gradients, beyond the functional rows of nn.py,
functional.py, functional_breadth.py, spatial_ops.py and string_enums.py: the padding modules (ReflectionPad1d-3d,
ReplicationPad1d-3d, ZeroPad1d-3d, ConstantPad1d-3d, CircularPad1d-3d) with paddings of the wrong length or sign
and inputs of the wrong rank, F.pad's backward in each mode (circular wrapping more than once refused, negative
crops, mixed signs), pads of a 0-dim, bool, complex or float16 tensor, pad amounts given as tensors or NumPy-like
ints; the upsampling modules (Upsample, UpsamplingNearest2d, UpsamplingBilinear2d) and interpolate with size given
per dim, scale_factor lists, recompute_scale_factor with each mode, integer and 16-bit inputs, and backward per
mode; nn.Fold/nn.Unfold with tuple arguments of the wrong length, fold/unfold backward and dtypes; pixel_shuffle/
pixel_unshuffle/channel_shuffle modules with float, bool and oversized factors; affine_grid/grid_sample backward
and argument forms."""
from . import R


def F(L):
    return L.nn.functional


def x(L, d, shape=(1, 2, 4, 4), dtype="float32"):
    return R(L, shape, d, dtype)


def grad_of(L, d, fn, shape=(1, 2, 4, 4), dtype="float32"):
    leaf = R(L, shape, d, dtype).requires_grad_()
    out = fn(leaf)
    out.backward(R(L, tuple(out.shape), d, dtype, 1.0))
    return leaf.grad


def nn(L):
    return L.nn


CASES = {
    # ---- padding modules
    "ReflectionPad1d/ok": lambda L, d: nn(L).ReflectionPad1d(2)(x(L, d, (1, 2, 4))),
    "ReflectionPad1d/tuple_3": lambda L, d: repr(nn(L).ReflectionPad1d((1, 1, 1))),
    "ReflectionPad1d/too_big": lambda L, d: nn(L).ReflectionPad1d(4)(x(L, d, (1, 2, 4))),
    "ReflectionPad1d/4d_input": lambda L, d: nn(L).ReflectionPad1d(1)(x(L, d)),
    "ReflectionPad2d/asymmetric": lambda L, d: nn(L).ReflectionPad2d((0, 3, 1, 2))(x(L, d)),
    "ReflectionPad2d/negative": lambda L, d: nn(L).ReflectionPad2d((-1, 2, 0, 1))(x(L, d)),
    "ReflectionPad2d/unbatched": lambda L, d: nn(L).ReflectionPad2d(1)(x(L, d, (2, 4, 4))),
    "ReflectionPad2d/2d_input": lambda L, d: nn(L).ReflectionPad2d(1)(x(L, d, (4, 4))),
    "ReflectionPad3d/ok": lambda L, d: nn(L).ReflectionPad3d(1)(x(L, d, (1, 1, 3, 3, 3))),
    "ReflectionPad3d/too_big": lambda L, d: nn(L).ReflectionPad3d((0, 0, 0, 0, 3, 0))(x(L, d, (1, 1, 3, 3, 3))),
    "ReplicationPad1d/empty_length": lambda L, d: nn(L).ReplicationPad1d(1)(L.zeros(1, 2, 0, device=d)),
    "ReplicationPad2d/negative_crop": lambda L, d: nn(L).ReplicationPad2d((-1, -1, 2, 0))(x(L, d)),
    "ReplicationPad3d/4d_unbatched": lambda L, d: nn(L).ReplicationPad3d(1)(x(L, d, (1, 2, 2, 2))),
    "ReplicationPad3d/3d_input": lambda L, d: nn(L).ReplicationPad3d(1)(x(L, d, (2, 2, 2))),
    "ZeroPad1d/ok": lambda L, d: nn(L).ZeroPad1d((2, 1))(x(L, d, (1, 2, 3))),
    "ZeroPad2d/negative": lambda L, d: nn(L).ZeroPad2d(-1)(x(L, d)),
    "ZeroPad3d/ok": lambda L, d: nn(L).ZeroPad3d((1, 0, 0, 1, 1, 0))(x(L, d, (1, 1, 2, 2, 2))),
    "ConstantPad1d/value_int_tensor": lambda L, d: nn(L).ConstantPad1d(1, 2.5)(L.ones(1, 3, dtype=L.int64, device=d)),
    "ConstantPad2d/tuple_wrong": lambda L, d: repr(nn(L).ConstantPad2d((1, 2, 3), 0.0)),
    "ConstantPad3d/nan_value": lambda L, d: nn(L).ConstantPad3d(1, float("nan"))(x(L, d, (1, 1, 1, 1, 1))),
    "CircularPad1d/ok": lambda L, d: nn(L).CircularPad1d((1, 2))(x(L, d, (1, 2, 3))),
    "CircularPad2d/too_big": lambda L, d: nn(L).CircularPad2d(5)(x(L, d)),
    "CircularPad2d/negative": lambda L, d: nn(L).CircularPad2d((-1, 1, 0, -2))(x(L, d)),
    "CircularPad3d/ok": lambda L, d: nn(L).CircularPad3d(1)(x(L, d, (1, 1, 2, 2, 2))),
    "CircularPad1d/2d_unbatched": lambda L, d: nn(L).CircularPad1d(1)(x(L, d, (2, 3))),
    "ReflectionPad2d/extra_repr": lambda L, d: repr(nn(L).ReflectionPad2d((1, 2, 3, 4))),
    "ConstantPad1d/extra_repr": lambda L, d: repr(nn(L).ConstantPad1d(2, 3.5)),
    # ---- F.pad: backward and argument forms
    "pad/reflect_grad": lambda L, d: grad_of(L, d, lambda t: F(L).pad(t, (2, 1, 3, 0), mode="reflect")),
    "pad/replicate_grad": lambda L, d: grad_of(L, d, lambda t: F(L).pad(t, (3, 3, 1, 1), mode="replicate")),
    "pad/circular_grad": lambda L, d: grad_of(L, d, lambda t: F(L).pad(t, (4, 4, 1, 2), mode="circular")),
    "pad/circular_wraps_twice": lambda L, d: F(L).pad(x(L, d), (5, 0, 0, 0), mode="circular"),
    "pad/constant_negative_grad": lambda L, d: grad_of(L, d, lambda t: F(L).pad(t, (-1, 2, 1, -2))),
    "pad/reflect_1d_3d_grad": lambda L, d: grad_of(L, d, lambda t: F(L).pad(t, (3, 3), mode="reflect"),
                                                   (1, 2, 4)),
    "pad/reflect_3d_grad": lambda L, d: grad_of(L, d, lambda t: F(L).pad(t, (1, 1, 1, 1, 1, 1), mode="reflect"),
                                                (1, 1, 3, 3, 3)),
    "pad/replicate_5d_unbatched_4d": lambda L, d: F(L).pad(x(L, d, (1, 2, 2, 2)), (1, 1, 1, 1, 1, 1),
                                                           mode="replicate"),
    "pad/0dim": lambda L, d: F(L).pad(L.tensor(1.0, device=d), (1, 1)),
    "pad/0dim_empty_pad": lambda L, d: F(L).pad(L.tensor(1.0, device=d), ()),
    "pad/bool_constant": lambda L, d: F(L).pad(L.ones(2, 2, dtype=L.bool, device=d), (1, 0), value=0),
    "pad/bool_reflect": lambda L, d: F(L).pad(L.ones(1, 2, 3, dtype=L.bool, device=d), (1, 1), mode="reflect"),
    "pad/complex_reflect": lambda L, d: F(L).pad(x(L, d, (1, 2, 3)).to(L.complex64), (1, 1), mode="reflect"),
    "pad/complex_constant_value": lambda L, d: F(L).pad(x(L, d, (2, 2)).to(L.complex64), (1, 1), value=2.0),
    "pad/float16_replicate": lambda L, d: F(L).pad(x(L, d, (1, 2, 3), "float16"), (2, 2), mode="replicate"),
    "pad/int_replicate": lambda L, d: F(L).pad(L.arange(6, device=d).reshape(1, 2, 3), (1, 1), mode="replicate"),
    "pad/int_circular": lambda L, d: F(L).pad(L.arange(6, device=d).reshape(1, 2, 3), (1, 1), mode="circular"),
    "pad/tensor_pads": lambda L, d: F(L).pad(x(L, d, (2, 3)), (L.tensor(1), L.tensor(2))),
    "pad/list_pads": lambda L, d: F(L).pad(x(L, d, (2, 3)), [1, 2]),
    "pad/value_complex_on_float": lambda L, d: F(L).pad(x(L, d, (2, 3)), (1, 1), value=1 + 1j),
    "pad/value_bool": lambda L, d: F(L).pad(x(L, d, (2, 3)), (1, 1), value=True),
    "pad/value_none_reflect": lambda L, d: F(L).pad(x(L, d, (1, 2, 3)), (1, 1), mode="reflect", value=None),
    "pad/replicate_odd_pad": lambda L, d: F(L).pad(x(L, d, (1, 2, 3)), (1,), mode="replicate"),
    "pad/circular_6_pads_on_4d": lambda L, d: F(L).pad(x(L, d), (1, 1, 1, 1, 1, 1), mode="circular"),
    "pad/constant_negative_to_zero": lambda L, d: F(L).pad(x(L, d, (2, 3)), (-3, 0)),
    "pad/non_contiguous_reflect": lambda L, d: F(L).pad(x(L, d).transpose(2, 3), (1, 1, 1, 1), mode="reflect"),
    # ---- upsampling modules and interpolate
    "Upsample/size_and_scale": lambda L, d: repr(nn(L).Upsample(size=4, scale_factor=2.0)),
    "Upsample/extra_repr": lambda L, d: repr(nn(L).Upsample(scale_factor=2, mode="bilinear")),
    "Upsample/bilinear_on_3d": lambda L, d: nn(L).Upsample(scale_factor=2, mode="bilinear")(x(L, d, (1, 2, 4))),
    "UpsamplingNearest2d/ok": lambda L, d: nn(L).UpsamplingNearest2d(scale_factor=2)(x(L, d, (1, 1, 2, 3))),
    "UpsamplingNearest2d/size": lambda L, d: nn(L).UpsamplingNearest2d(size=(3, 5))(x(L, d, (1, 1, 2, 3))),
    "UpsamplingBilinear2d/corners": lambda L, d: nn(L).UpsamplingBilinear2d(scale_factor=2)(x(L, d, (1, 1, 2, 3))),
    "UpsamplingBilinear2d/3d_input": lambda L, d: nn(L).UpsamplingBilinear2d(scale_factor=2)(x(L, d, (1, 2, 3))),
    "interpolate/size_per_dim": lambda L, d: F(L).interpolate(x(L, d), size=(2, 7)),
    "interpolate/size_tuple_len_1_on_4d": lambda L, d: F(L).interpolate(x(L, d), size=(3,)),
    "interpolate/scale_list_recompute": lambda L, d: F(L).interpolate(x(L, d), scale_factor=[1.5, 0.7],
                                                                      mode="bilinear", recompute_scale_factor=True),
    "interpolate/scale_tuple_no_recompute": lambda L, d: F(L).interpolate(x(L, d), scale_factor=(1.5, 0.7),
                                                                          mode="bilinear"),
    "interpolate/recompute_nearest_exact": lambda L, d: F(L).interpolate(x(L, d), scale_factor=1.3,
                                                                         mode="nearest-exact",
                                                                         recompute_scale_factor=True),
    "interpolate/recompute_false_bicubic": lambda L, d: F(L).interpolate(x(L, d), scale_factor=0.6, mode="bicubic",
                                                                         recompute_scale_factor=False),
    "interpolate/recompute_area": lambda L, d: F(L).interpolate(x(L, d), scale_factor=0.5, mode="area",
                                                                recompute_scale_factor=True),
    "interpolate/int_nearest": lambda L, d: F(L).interpolate(L.arange(16, device=d).reshape(1, 1, 4, 4), size=6),
    "interpolate/uint8_bilinear": lambda L, d: F(L).interpolate(L.arange(16, dtype=L.uint8, device=d).reshape(
        1, 1, 4, 4), size=6, mode="bilinear"),
    "interpolate/bool_nearest": lambda L, d: F(L).interpolate(L.ones(1, 1, 2, 2, dtype=L.bool, device=d), size=3),
    "interpolate/float16_bilinear": lambda L, d: F(L).interpolate(x(L, d, dtype="float16"), size=6,
                                                                  mode="bilinear"),
    "interpolate/float64_bicubic_corners": lambda L, d: F(L).interpolate(x(L, d, dtype="float64"), size=7,
                                                                         mode="bicubic", align_corners=True),
    "interpolate/complex": lambda L, d: F(L).interpolate(x(L, d).to(L.complex64), size=6),
    "interpolate/linear_on_5d": lambda L, d: F(L).interpolate(x(L, d, (1, 1, 2, 2, 2)), size=3, mode="linear"),
    "interpolate/antialias_trilinear": lambda L, d: F(L).interpolate(x(L, d, (1, 1, 4, 4, 4)), size=2,
                                                                     mode="trilinear", antialias=True),
    "interpolate/antialias_bicubic_up": lambda L, d: F(L).interpolate(x(L, d), size=(6, 3), mode="bicubic",
                                                                      antialias=True),
    "interpolate/nearest_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(t, size=(3, 7))),
    "interpolate/nearest_exact_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(
        t, scale_factor=1.5, mode="nearest-exact")),
    "interpolate/bilinear_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(t, size=(5, 3),
                                                                                       mode="bilinear")),
    "interpolate/bicubic_corners_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(
        t, size=(6, 5), mode="bicubic", align_corners=True)),
    "interpolate/area_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(t, size=(3, 2), mode="area")),
    "interpolate/linear_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(t, size=7, mode="linear"),
                                                    (1, 2, 4)),
    "interpolate/trilinear_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(
        t, scale_factor=1.5, mode="trilinear"), (1, 1, 2, 3, 2)),
    "interpolate/antialias_bilinear_grad": lambda L, d: grad_of(L, d, lambda t: F(L).interpolate(
        t, size=(2, 3), mode="bilinear", antialias=True)),
    "interpolate/scale_factor_tensor": lambda L, d: F(L).interpolate(x(L, d), scale_factor=L.tensor(2.0)),
    "interpolate/size_zero_in_tuple": lambda L, d: F(L).interpolate(x(L, d), size=(0, 3)),
    "interpolate/size_none_in_tuple": lambda L, d: F(L).interpolate(x(L, d), size=(None, 3)),
    "interpolate/size_list": lambda L, d: F(L).interpolate(x(L, d), size=[3, 5], mode="bilinear"),
    "interpolate/align_corners_false_linear": lambda L, d: F(L).interpolate(x(L, d, (1, 2, 4)), scale_factor=2,
                                                                            mode="linear", align_corners=False),
    # ---- fold / unfold modules, backward, dtypes
    "Unfold/ok": lambda L, d: nn(L).Unfold(kernel_size=(2, 3), stride=(1, 2))(x(L, d)),
    "Unfold/kernel_tuple_3": lambda L, d: nn(L).Unfold(kernel_size=(2, 2, 2))(x(L, d)),
    "Unfold/stride_tuple_1": lambda L, d: nn(L).Unfold(kernel_size=2, stride=(1,))(x(L, d)),
    "Unfold/padding_tuple": lambda L, d: nn(L).Unfold(kernel_size=3, padding=(1, 0))(x(L, d)),
    "Unfold/extra_repr": lambda L, d: repr(nn(L).Unfold(kernel_size=(2, 3), dilation=2, padding=1, stride=(1, 2))),
    "Fold/ok": lambda L, d: nn(L).Fold(output_size=(3, 4), kernel_size=2)(x(L, d, (1, 8, 6))),
    "Fold/output_size_int": lambda L, d: nn(L).Fold(output_size=3, kernel_size=2)(x(L, d, (1, 8, 4))),
    "Fold/output_size_3": lambda L, d: nn(L).Fold(output_size=(3, 3, 3), kernel_size=2)(x(L, d, (1, 8, 4))),
    "Fold/extra_repr": lambda L, d: repr(nn(L).Fold(output_size=(3, 4), kernel_size=2, stride=1)),
    "unfold/grad": lambda L, d: grad_of(L, d, lambda t: F(L).unfold(t, 2, dilation=1, padding=1, stride=2)),
    "fold/grad": lambda L, d: grad_of(L, d, lambda t: F(L).fold(t, (3, 4), 2), (1, 8, 6)),
    "unfold/float16": lambda L, d: F(L).unfold(x(L, d, dtype="float16"), 2),
    "unfold/float64_dilated": lambda L, d: F(L).unfold(x(L, d, dtype="float64"), 2, dilation=2),
    "unfold/bool": lambda L, d: F(L).unfold(L.ones(1, 1, 3, 3, dtype=L.bool, device=d), 2),
    "fold/int": lambda L, d: F(L).fold(L.ones(1, 4, 4, dtype=L.int64, device=d), (3, 3), 2),
    "fold/kernel_bigger_than_output": lambda L, d: F(L).fold(x(L, d, (1, 9, 1)), (2, 2), 3),
    "fold/padding_makes_fit": lambda L, d: F(L).fold(x(L, d, (1, 9, 4)), (2, 2), 3, padding=1),
    "fold/stride_tuple_3": lambda L, d: F(L).fold(x(L, d, (1, 4, 4)), (3, 3), 2, stride=(1, 1, 1)),
    "fold/non_contiguous": lambda L, d: F(L).fold(x(L, d, (1, 6, 8)).transpose(1, 2), (3, 4), 2),
    # ---- pixel / channel shuffle modules
    "PixelShuffle/float_factor": lambda L, d: nn(L).PixelShuffle(2.0)(x(L, d, (1, 4, 2, 2))),
    "PixelShuffle/bool_factor": lambda L, d: nn(L).PixelShuffle(True)(x(L, d, (1, 4, 2, 2))),
    "PixelShuffle/ok": lambda L, d: nn(L).PixelShuffle(2)(x(L, d, (1, 8, 2, 3))),
    "PixelShuffle/extra_repr": lambda L, d: repr(nn(L).PixelShuffle(3)),
    "PixelUnshuffle/factor_bigger": lambda L, d: nn(L).PixelUnshuffle(8)(x(L, d)),
    "PixelUnshuffle/float_factor": lambda L, d: nn(L).PixelUnshuffle(2.0)(x(L, d)),
    "pixel_shuffle/grad": lambda L, d: grad_of(L, d, lambda t: F(L).pixel_shuffle(t, 2), (1, 8, 2, 3)),
    "pixel_unshuffle/grad": lambda L, d: grad_of(L, d, lambda t: F(L).pixel_unshuffle(t, 2)),
    "pixel_shuffle/bool": lambda L, d: F(L).pixel_shuffle(L.ones(1, 4, 1, 1, dtype=L.bool, device=d), 2),
    "pixel_unshuffle/non_contiguous": lambda L, d: F(L).pixel_unshuffle(x(L, d).transpose(2, 3), 2),
    "channel_shuffle/groups_negative": lambda L, d: F(L).channel_shuffle(x(L, d, (1, 4, 2, 2)), -2),
    "channel_shuffle/3d": lambda L, d: F(L).channel_shuffle(x(L, d, (1, 4, 3)), 2),
    "channel_shuffle/2d": lambda L, d: F(L).channel_shuffle(x(L, d, (4, 3)), 2),
    "channel_shuffle/groups_equal_channels": lambda L, d: F(L).channel_shuffle(x(L, d, (1, 4, 2, 2)), 4),
    "channel_shuffle/grad": lambda L, d: grad_of(L, d, lambda t: F(L).channel_shuffle(t, 2), (1, 4, 2, 2)),
    "ChannelShuffle/groups_past_channels": lambda L, d: nn(L).ChannelShuffle(8)(x(L, d, (1, 4, 2, 2))),
    "ChannelShuffle/extra_repr": lambda L, d: repr(nn(L).ChannelShuffle(3)),
    # ---- affine_grid / grid_sample backward and forms
    "affine_grid/grad": lambda L, d: grad_of(L, d, lambda t: F(L).affine_grid(t, (2, 1, 3, 4), align_corners=False),
                                             (2, 2, 3)),
    "affine_grid/3d_grad": lambda L, d: grad_of(L, d, lambda t: F(L).affine_grid(
        t, (1, 1, 2, 3, 2), align_corners=True), (1, 3, 4)),
    "affine_grid/size_list": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3)), [1, 1, 2, 2], align_corners=False),
    "affine_grid/size_torch_size": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3)), L.Size([1, 1, 2, 2]),
                                                                 align_corners=False),
    "affine_grid/theta_float16": lambda L, d: F(L).affine_grid(x(L, d, (1, 2, 3), "float16"), (1, 1, 2, 2),
                                                               align_corners=False),
    "grid_sample/input_grad": lambda L, d: grad_of(L, d, lambda t: F(L).grid_sample(
        t, R(L, (1, 3, 2, 2), d, "float32", 1.2), align_corners=False)),
    "grid_sample/grid_grad_bicubic": lambda L, d: grad_of(L, d, lambda t: F(L).grid_sample(
        x(L, d), t, mode="bicubic", align_corners=True), (1, 3, 2, 2)),
    "grid_sample/grid_grad_border": lambda L, d: grad_of(L, d, lambda t: F(L).grid_sample(
        x(L, d), t * 1.5, padding_mode="border", align_corners=False), (1, 3, 2, 2)),
    "grid_sample/nearest_grid_grad_zero": lambda L, d: grad_of(L, d, lambda t: F(L).grid_sample(
        x(L, d), t, mode="nearest", align_corners=False), (1, 3, 2, 2)),
    "grid_sample/float16": lambda L, d: F(L).grid_sample(x(L, d, dtype="float16"),
                                                         R(L, (1, 3, 2, 2), d, "float16", 0.9), align_corners=False),
    "grid_sample/grid_non_contiguous": lambda L, d: F(L).grid_sample(
        x(L, d), R(L, (1, 2, 3, 2), d, "float32", 0.9).transpose(1, 2), align_corners=True),
    "grid_sample/reflection_5d": lambda L, d: F(L).grid_sample(
        x(L, d, (1, 1, 2, 3, 2)), R(L, (1, 2, 2, 2, 3), d, "float32", 1.7), padding_mode="reflection",
        align_corners=False),
}

KNOWN = {}
