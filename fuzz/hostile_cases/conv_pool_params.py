"""Convolution and pooling parameters at their edges, compared by value: padding="same"/"valid" with dilation and
even kernels, stride larger than the kernel, groups (depthwise, groups that do not divide the output channels),
asymmetric stride/padding/dilation, 1-d and 3-d forms, transposed convolutions with groups, dilation and
output_padding (valid and not), the nn.Conv padding modes (reflect, replicate, circular) and their limits, pooling
with ceil_mode windows that start in the padding, count_include_pad, dilation, return_indices, adaptive pooling
to sizes that do not divide, max_unpool round trips, and empty batches. nn.py and functional.py have the plain
argument checks."""
from . import R


def F(L):
    return L.nn.functional


def x(L, d, shape=(2, 4, 7, 6)):
    return R(L, shape, d, "float32")


def w(L, d, shape):
    return R(L, shape, d, "float32", scale=0.5)


def conv_module(L, d, cls, *args, **kw):
    L.manual_seed(0)
    m = getattr(L.nn, cls)(*args, **kw).to(d)
    with L.no_grad():
        for p in m.parameters():
            p.copy_(R(L, tuple(p.shape), d, "float32", scale=0.3))
    return m


CASES = {
    # ---- padding="same" / "valid"
    "conv2d/same_dilated": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), padding="same", dilation=2),
    "conv2d/same_even_kernel_dilated": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 2, 4)), padding="same",
                                                                dilation=(2, 3)),
    "conv2d/same_kernel_bigger_than_input": lambda L, d: F(L).conv2d(x(L, d, (1, 4, 3, 3)), w(L, d, (2, 4, 5, 5)),
                                                                     padding="same"),
    "conv2d/valid": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), padding="valid"),
    "conv2d/same_stride_tuple_one": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), padding="same",
                                                             stride=(1, 1)),
    "conv2d/same_stride_2": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), padding="same", stride=(1, 2)),
    "conv2d/padding_tuple_3": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), padding=(1, 1, 1)),
    "conv2d/padding_same_upper": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), padding="SAME"),
    "conv1d/same_even": lambda L, d: F(L).conv1d(x(L, d, (2, 3, 9)), w(L, d, (2, 3, 4)), padding="same"),
    "conv1d/same_dilated": lambda L, d: F(L).conv1d(x(L, d, (2, 3, 9)), w(L, d, (2, 3, 3)), padding="same",
                                                    dilation=3),
    "conv3d/same": lambda L, d: F(L).conv3d(x(L, d, (1, 2, 4, 5, 3)), w(L, d, (2, 2, 2, 3, 2)), padding="same"),
    # ---- stride, dilation, asymmetric parameters
    "conv2d/stride_bigger_than_kernel": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 2, 2)), stride=3),
    "conv2d/asymmetric": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 2, 3)), stride=(2, 1), padding=(0, 2),
                                                  dilation=(1, 2)),
    "conv2d/padding_bigger_than_half_kernel": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 2, 2)), padding=3),
    "conv2d/1x1_stride_2": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (5, 4, 1, 1)), stride=2),
    "conv2d/kernel_equals_input": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 7, 6))),
    "conv2d/float64": lambda L, d: F(L).conv2d(x(L, d).double(), w(L, d, (3, 4, 3, 3)).double(), padding=1),
    "conv2d/float16": lambda L, d: F(L).conv2d(x(L, d).half(), w(L, d, (3, 4, 3, 3)).half(), padding=1),
    "conv2d/noncontiguous_input": lambda L, d: F(L).conv2d(x(L, d, (2, 4, 6, 7)).transpose(2, 3),
                                                           w(L, d, (3, 4, 3, 3))),
    "conv2d/unbatched": lambda L, d: F(L).conv2d(x(L, d, (4, 7, 6)), w(L, d, (3, 4, 3, 3)), padding=1),
    "conv2d/bias": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), w(L, d, (3,)), stride=2),
    "conv2d/bias_dtype_differs": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 4, 3, 3)), w(L, d, (3,)).double()),
    "conv1d/stride_dilation": lambda L, d: F(L).conv1d(x(L, d, (2, 3, 17)), w(L, d, (4, 3, 3)), stride=3,
                                                       dilation=2, padding=2),
    "conv3d/asymmetric": lambda L, d: F(L).conv3d(x(L, d, (1, 2, 5, 6, 4)), w(L, d, (3, 2, 2, 3, 1)),
                                                  stride=(2, 1, 2), padding=(1, 0, 1)),
    "conv2d/empty_batch_values": lambda L, d: F(L).conv2d(x(L, d, (0, 4, 7, 6)), w(L, d, (3, 4, 3, 3)),
                                                          padding="same"),
    "conv2d/input_4_channels_weight_2_groups_1": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 2, 3, 3))),
    # ---- groups
    "conv2d/depthwise": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (4, 1, 3, 3)), groups=4, padding=1),
    "conv2d/depthwise_multiplier": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (8, 1, 3, 3)), groups=4),
    "conv2d/groups_2": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (6, 2, 3, 3)), groups=2, stride=2),
    "conv2d/groups_not_dividing_out": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (3, 2, 3, 3)), groups=2),
    "conv2d/groups_weight_channels_wrong": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (4, 4, 3, 3)), groups=2),
    "conv2d/groups_bigger_than_channels": lambda L, d: F(L).conv2d(x(L, d), w(L, d, (8, 1, 3, 3)), groups=8),
    "conv1d/groups_3": lambda L, d: F(L).conv1d(x(L, d, (1, 6, 8)), w(L, d, (3, 2, 3)), groups=3),
    # ---- transposed convolutions
    "conv_transpose2d/groups": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 3, 3, 3)), groups=2,
                                                                  stride=2),
    "conv_transpose2d/dilation": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 2, 3, 3)), dilation=2,
                                                                    padding=1),
    "conv_transpose2d/output_padding_ok": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 2, 3, 3)),
                                                                             stride=3, output_padding=(2, 1)),
    "conv_transpose2d/output_padding_equals_stride": lambda L, d: F(L).conv_transpose2d(
        x(L, d), w(L, d, (4, 2, 3, 3)), stride=2, output_padding=2),
    "conv_transpose2d/output_padding_with_dilation": lambda L, d: F(L).conv_transpose2d(
        x(L, d), w(L, d, (4, 2, 3, 3)), stride=1, dilation=2, output_padding=1),
    "conv_transpose2d/padding_string": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 2, 3, 3)),
                                                                          padding="same"),
    "conv_transpose2d/groups_not_dividing": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 2, 3, 3)),
                                                                               groups=3),
    "conv_transpose2d/weight_channels_wrong": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (3, 2, 3, 3))),
    "conv_transpose2d/bias": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 2, 3, 3)), w(L, d, (2,)),
                                                                stride=(1, 2), padding=(1, 0)),
    "conv_transpose2d/empty_batch": lambda L, d: F(L).conv_transpose2d(x(L, d, (0, 4, 7, 6)),
                                                                       w(L, d, (4, 2, 3, 3)), stride=2),
    "conv_transpose1d/output_padding_dilation": lambda L, d: F(L).conv_transpose1d(
        x(L, d, (2, 3, 5)), w(L, d, (3, 2, 3)), stride=2, dilation=2, output_padding=1),
    "conv_transpose3d/stride": lambda L, d: F(L).conv_transpose3d(x(L, d, (1, 2, 3, 2, 3)),
                                                                  w(L, d, (2, 2, 2, 2, 2)), stride=(2, 1, 2)),
    "conv_transpose2d/negative_output_padding": lambda L, d: F(L).conv_transpose2d(x(L, d), w(L, d, (4, 2, 3, 3)),
                                                                                   stride=2, output_padding=-1),
    # ---- nn.Conv padding modes
    "Conv2d/reflect": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, padding=2, padding_mode="reflect")(x(L, d)),
    "Conv2d/replicate": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, padding=(1, 2),
                                                 padding_mode="replicate")(x(L, d)),
    "Conv2d/circular": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, padding=2, padding_mode="circular")(
        x(L, d)),
    "Conv1d/circular_same": lambda L, d: conv_module(L, d, "Conv1d", 3, 2, 4, padding="same",
                                                     padding_mode="circular")(x(L, d, (2, 3, 9))),
    "Conv2d/reflect_padding_too_big": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, padding=7,
                                                               padding_mode="reflect")(x(L, d)),
    "Conv2d/same_stride_2": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, padding="same", stride=2),
    "Conv2d/bad_padding_mode": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, padding_mode="mirror"),
    "Conv2d/groups_not_dividing_in": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, groups=3),
    "Conv2d/groups_not_dividing_out": lambda L, d: conv_module(L, d, "Conv2d", 4, 3, 3, groups=2),
    "ConvTranspose2d/padding_mode_reflect": lambda L, d: conv_module(L, d, "ConvTranspose2d", 4, 3, 3,
                                                                     padding_mode="reflect"),
    "ConvTranspose2d/output_size": lambda L, d: conv_module(L, d, "ConvTranspose2d", 4, 3, 3, stride=2)(
        x(L, d), output_size=(16, 14)),
    "ConvTranspose2d/output_size_too_big": lambda L, d: conv_module(L, d, "ConvTranspose2d", 4, 3, 3, stride=2)(
        x(L, d), output_size=(17, 14)),
    "ConvTranspose2d/output_size_with_batch": lambda L, d: conv_module(L, d, "ConvTranspose2d", 4, 3, 3,
                                                                       stride=2)(x(L, d), output_size=(2, 3, 15, 13)),
    # ---- max pooling
    "max_pool2d/ceil_window_in_padding": lambda L, d: F(L).max_pool2d(x(L, d, (1, 1, 5, 5)), 2, stride=2,
                                                                      padding=1, ceil_mode=True),
    "max_pool2d/ceil_last_window_outside": lambda L, d: F(L).max_pool2d(x(L, d, (1, 1, 6, 6)), 3, stride=3,
                                                                        padding=1, ceil_mode=True),
    "max_pool2d/dilation_indices": lambda L, d: F(L).max_pool2d(x(L, d), 2, stride=1, dilation=(2, 3),
                                                                return_indices=True),
    "max_pool2d/stride_bigger_than_kernel": lambda L, d: F(L).max_pool2d(x(L, d), 2, stride=3,
                                                                         return_indices=True),
    "max_pool2d/stride_none_tuple": lambda L, d: F(L).max_pool2d(x(L, d), (3, 2)),
    "max_pool2d/stride_empty_list": lambda L, d: F(L).max_pool2d(x(L, d), 2, stride=[]),
    "max_pool2d/all_neg_inf_padding": lambda L, d: F(L).max_pool2d(L.full((1, 1, 2, 2), -float("inf"), device=d),
                                                                   2, padding=1, return_indices=True),
    "max_pool1d/ceil_indices": lambda L, d: F(L).max_pool1d(x(L, d, (2, 3, 8)), 3, stride=2, ceil_mode=True,
                                                            return_indices=True),
    "max_pool3d/dilation_ceil": lambda L, d: F(L).max_pool3d(x(L, d, (1, 2, 5, 6, 5)), 2, stride=2, dilation=2,
                                                             ceil_mode=True),
    "max_pool2d/float16": lambda L, d: F(L).max_pool2d(x(L, d).half(), 3, stride=2, padding=1),
    "max_pool2d/unbatched": lambda L, d: F(L).max_pool2d(x(L, d, (4, 7, 6)), 2, return_indices=True),
    "max_pool2d/empty_channels": lambda L, d: F(L).max_pool2d(x(L, d, (2, 0, 7, 6)), 2),
    "max_unpool2d/round_trip": lambda L, d: (lambda v, i: F(L).max_unpool2d(v, i, 2, output_size=(7, 6)))(
        *F(L).max_pool2d(x(L, d), 2, return_indices=True)),
    "max_unpool2d/default_size": lambda L, d: (lambda v, i: F(L).max_unpool2d(v, i, 2))(
        *F(L).max_pool2d(x(L, d), 2, return_indices=True)),
    "max_unpool2d/output_size_too_small": lambda L, d: (lambda v, i: F(L).max_unpool2d(v, i, 2,
                                                                                       output_size=(5, 5)))(
        *F(L).max_pool2d(x(L, d), 2, return_indices=True)),
    "max_unpool1d/round_trip": lambda L, d: (lambda v, i: F(L).max_unpool1d(v, i, 3, stride=2, output_size=(9,)))(
        *F(L).max_pool1d(x(L, d, (2, 3, 9)), 3, stride=2, return_indices=True)),
    "max_unpool2d/indices_dtype_int32": lambda L, d: F(L).max_unpool2d(x(L, d, (1, 1, 2, 2)),
                                                                       L.zeros(1, 1, 2, 2, dtype=L.int32, device=d),
                                                                       2),
    # ---- average pooling
    "avg_pool2d/ceil_include_pad": lambda L, d: F(L).avg_pool2d(x(L, d), 3, stride=2, padding=1, ceil_mode=True),
    "avg_pool2d/ceil_exclude_pad": lambda L, d: F(L).avg_pool2d(x(L, d), 3, stride=2, padding=1, ceil_mode=True,
                                                                count_include_pad=False),
    "avg_pool2d/ceil_window_past_padding": lambda L, d: F(L).avg_pool2d(x(L, d, (1, 1, 6, 6)), 3, stride=3,
                                                                        padding=1, ceil_mode=True),
    "avg_pool2d/divisor_override": lambda L, d: F(L).avg_pool2d(x(L, d), 2, divisor_override=3),
    "avg_pool1d/ceil_count": lambda L, d: F(L).avg_pool1d(x(L, d, (2, 3, 8)), 3, stride=2, padding=1,
                                                          ceil_mode=True, count_include_pad=False),
    "avg_pool3d/ceil": lambda L, d: F(L).avg_pool3d(x(L, d, (1, 2, 5, 4, 5)), 2, stride=2, ceil_mode=True),
    "avg_pool2d/float64_stride_tuple": lambda L, d: F(L).avg_pool2d(x(L, d).double(), (3, 2), stride=(1, 2)),
    "avg_pool2d/empty_batch": lambda L, d: F(L).avg_pool2d(x(L, d, (0, 4, 7, 6)), 2),
    "lp_pool2d/p_3": lambda L, d: F(L).lp_pool2d(x(L, d).abs(), 3.0, 2, stride=1),
    "lp_pool2d/ceil": lambda L, d: F(L).lp_pool2d(x(L, d).abs(), 2.0, 3, stride=2, ceil_mode=True),
    "lp_pool1d/p_inf": lambda L, d: F(L).lp_pool1d(x(L, d, (2, 3, 8)), float("inf"), 2),
    # ---- adaptive pooling
    "adaptive_avg_pool2d/not_dividing": lambda L, d: F(L).adaptive_avg_pool2d(x(L, d), (3, 4)),
    "adaptive_avg_pool2d/bigger_than_input": lambda L, d: F(L).adaptive_avg_pool2d(x(L, d), (9, 8)),
    "adaptive_max_pool2d/not_dividing_indices": lambda L, d: F(L).adaptive_max_pool2d(x(L, d), (3, 4),
                                                                                      return_indices=True),
    "adaptive_max_pool1d/bigger": lambda L, d: F(L).adaptive_max_pool1d(x(L, d, (2, 3, 5)), 7, return_indices=True),
    "adaptive_avg_pool1d/one": lambda L, d: F(L).adaptive_avg_pool1d(x(L, d, (2, 3, 5)), 1),
    "adaptive_avg_pool3d/not_dividing": lambda L, d: F(L).adaptive_avg_pool3d(x(L, d, (1, 2, 5, 7, 3)), (2, 3, 2)),
    "adaptive_max_pool3d/ok": lambda L, d: F(L).adaptive_max_pool3d(x(L, d, (1, 2, 5, 7, 3)), (2, 3, 2)),
    "adaptive_avg_pool2d/zero_size": lambda L, d: F(L).adaptive_avg_pool2d(x(L, d), (0, 2)),
    "adaptive_avg_pool2d/empty_batch": lambda L, d: F(L).adaptive_avg_pool2d(x(L, d, (0, 4, 7, 6)), 2),
    "adaptive_avg_pool2d/float16": lambda L, d: F(L).adaptive_avg_pool2d(x(L, d).half(), (3, 4)),
    "adaptive_max_pool2d/nan": lambda L, d: F(L).adaptive_max_pool2d(
        L.tensor([[[[float("nan"), 1.0, 2.0], [3.0, 4.0, 5.0]]]], device=d), (1, 2), return_indices=True),
}

KNOWN = {
    "max_unpool2d/output_size_too_small": "both report the first index past the output; PyTorch's CPU kernel scans "
                                          "in another order, so it names another one (the same RuntimeError)",
    "Conv2d/bad_padding_mode": "PyTorch prints its valid modes as a set, whose order changes with the process's "
                               "hash seed",
}
