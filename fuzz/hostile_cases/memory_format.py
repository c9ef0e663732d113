"""Memory formats: channels_last and channels_last_3d through contiguous(memory_format=), to(memory_format=),
empty/zeros_like/clone's memory_format (preserve_format on permuted and sliced inputs), is_contiguous(memory_format=)
on tensors of the wrong rank or with size-1 dims, the formats on 3-d/5-d/0-size tensors, ops that keep or drop
the format (pointwise, conv, pooling, batch_norm, interpolate), and memory formats of the wrong kind or rank.
Results compare by value and by their strides (which is what a memory format is)."""
from . import R


def x4(L, d, shape=(2, 3, 4, 5)):
    return R(L, shape, d, "float32")


def cl(L):
    return L.channels_last


def layout(t):
    """What a memory format decides: the strides, plus the values."""
    return t.stride(), t


CASES = {
    # ---- contiguous / to / is_contiguous
    "contiguous/channels_last": lambda L, d: layout(x4(L, d).contiguous(memory_format=cl(L))),
    "contiguous/channels_last_3d": lambda L, d: layout(x4(L, d, (2, 3, 2, 4, 5)).contiguous(
        memory_format=L.channels_last_3d)),
    "contiguous/channels_last_on_3d": lambda L, d: x4(L, d, (3, 4, 5)).contiguous(memory_format=cl(L)),
    "contiguous/channels_last_on_5d": lambda L, d: x4(L, d, (2, 3, 2, 4, 5)).contiguous(memory_format=cl(L)),
    "contiguous/channels_last_3d_on_4d": lambda L, d: x4(L, d).contiguous(memory_format=L.channels_last_3d),
    "contiguous/preserve_format": lambda L, d: x4(L, d).contiguous(memory_format=L.preserve_format),
    "contiguous/not_a_format": lambda L, d: x4(L, d).contiguous(memory_format=L.float32),
    "contiguous/contiguous_format_from_cl": lambda L, d: layout(x4(L, d).contiguous(memory_format=cl(L))
                                                                .contiguous()),
    "contiguous/channels_last_size_one_channel": lambda L, d: layout(x4(L, d, (2, 1, 4, 5)).contiguous(
        memory_format=cl(L))),
    "contiguous/channels_last_empty": lambda L, d: x4(L, d, (0, 3, 4, 5)).contiguous(memory_format=cl(L)).stride(),
    "contiguous/channels_last_1x1": lambda L, d: layout(x4(L, d, (2, 3, 1, 1)).contiguous(memory_format=cl(L))),
    "to/memory_format_channels_last": lambda L, d: layout(x4(L, d).to(memory_format=cl(L))),
    "to/memory_format_with_dtype": lambda L, d: layout(x4(L, d).to(L.float64, memory_format=cl(L))),
    "to/memory_format_on_2d": lambda L, d: x4(L, d, (4, 5)).to(memory_format=cl(L)),
    "to/memory_format_preserve_permuted": lambda L, d: layout(x4(L, d).permute(0, 2, 3, 1).to(
        L.float64, memory_format=L.preserve_format)),
    "is_contiguous/channels_last_of_cl": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).is_contiguous(
        memory_format=cl(L)),
    "is_contiguous/default_of_cl": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).is_contiguous(),
    "is_contiguous/channels_last_of_3d": lambda L, d: x4(L, d, (3, 4, 5)).is_contiguous(memory_format=cl(L)),
    "is_contiguous/channels_last_of_1_channel": lambda L, d: x4(L, d, (2, 1, 4, 5)).is_contiguous(
        memory_format=cl(L)),
    "is_contiguous/channels_last_3d_of_5d": lambda L, d: x4(L, d, (1, 2, 3, 4, 5)).contiguous(
        memory_format=L.channels_last_3d).is_contiguous(memory_format=L.channels_last_3d),
    "is_contiguous/preserve_format": lambda L, d: x4(L, d).is_contiguous(memory_format=L.preserve_format),
    "is_contiguous/permuted_nhwc_view": lambda L, d: x4(L, d, (2, 4, 5, 3)).permute(0, 3, 1, 2).is_contiguous(
        memory_format=cl(L)),
    # ---- *_like and clone keep (or not) the input's format
    "empty_like/preserve_cl": lambda L, d: L.empty_like(x4(L, d).contiguous(memory_format=cl(L))).stride(),
    "zeros_like/preserve_permuted": lambda L, d: layout(L.zeros_like(x4(L, d).permute(0, 2, 3, 1))),
    "zeros_like/preserve_sliced": lambda L, d: L.zeros_like(x4(L, d)[:, :, ::2]).stride(),
    "ones_like/channels_last": lambda L, d: layout(L.ones_like(x4(L, d), memory_format=cl(L))),
    "ones_like/channels_last_on_3d": lambda L, d: L.ones_like(x4(L, d, (3, 4, 5)), memory_format=cl(L)),
    "clone/preserve_cl": lambda L, d: layout(x4(L, d).contiguous(memory_format=cl(L)).clone()),
    "clone/preserve_transposed": lambda L, d: layout(x4(L, d, (3, 4)).t().clone()),
    "clone/contiguous_format": lambda L, d: layout(x4(L, d).contiguous(memory_format=cl(L)).clone(
        memory_format=L.contiguous_format)),
    "clone/channels_last": lambda L, d: layout(x4(L, d).clone(memory_format=cl(L))),
    "clone/preserve_expanded": lambda L, d: layout(x4(L, d, (3, 1)).expand(3, 4).clone()),
    "empty/memory_format_channels_last": lambda L, d: L.empty((2, 3, 4, 5), device=d, memory_format=cl(L)).stride(),
    "empty/memory_format_on_3d": lambda L, d: L.empty((2, 3, 4), device=d, memory_format=cl(L)),
    "empty/memory_format_preserve": lambda L, d: L.empty((2, 3, 4, 5), device=d, memory_format=L.preserve_format),
    "rand_like/preserve_cl": lambda L, d: L.rand_like(x4(L, d).contiguous(memory_format=cl(L))).stride(),
    "randn_like/channels_last": lambda L, d: L.randn_like(x4(L, d), memory_format=cl(L)).stride(),
    "full_like/preserve_permuted": lambda L, d: L.full_like(x4(L, d).permute(0, 2, 3, 1), 2.0).stride(),
    # ---- ops on channels_last inputs (values must not depend on the layout)
    "add/cl_plus_contiguous": lambda L, d: layout(x4(L, d).contiguous(memory_format=cl(L)) + x4(L, d)),
    "add/contiguous_plus_cl": lambda L, d: (x4(L, d) + x4(L, d).contiguous(memory_format=cl(L))),
    "mul/cl_scalar": lambda L, d: layout(x4(L, d).contiguous(memory_format=cl(L)) * 2),
    "relu/cl": lambda L, d: layout(L.relu(x4(L, d).contiguous(memory_format=cl(L)))),
    "sum/cl_dim1": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).sum(1),
    "softmax/cl_dim1": lambda L, d: L.softmax(x4(L, d).contiguous(memory_format=cl(L)), 1),
    "view/cl_flatten": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).view(2, -1),
    "reshape/cl_flatten": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).reshape(2, -1),
    "flatten/cl": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).flatten(1),
    "conv2d/cl_input": lambda L, d: L.nn.functional.conv2d(x4(L, d).contiguous(memory_format=cl(L)),
                                                           R(L, (4, 3, 3, 3), d, "float32", scale=0.5), padding=1),
    "conv2d/cl_weight": lambda L, d: L.nn.functional.conv2d(x4(L, d), R(L, (4, 3, 3, 3), d, "float32", scale=0.5)
                                                            .contiguous(memory_format=cl(L))),
    "max_pool2d/cl": lambda L, d: L.nn.functional.max_pool2d(x4(L, d).contiguous(memory_format=cl(L)), 2,
                                                             return_indices=True),
    "avg_pool2d/cl": lambda L, d: L.nn.functional.avg_pool2d(x4(L, d).contiguous(memory_format=cl(L)), 2),
    "adaptive_avg_pool2d/cl": lambda L, d: L.nn.functional.adaptive_avg_pool2d(
        x4(L, d).contiguous(memory_format=cl(L)), (3, 2)),
    "batch_norm/cl": lambda L, d: L.nn.functional.batch_norm(x4(L, d).contiguous(memory_format=cl(L)), None, None,
                                                             training=True),
    "interpolate/cl": lambda L, d: L.nn.functional.interpolate(x4(L, d).contiguous(memory_format=cl(L)),
                                                               size=(6, 7), mode="bilinear"),
    "cat/cl_inputs": lambda L, d: L.cat([x4(L, d).contiguous(memory_format=cl(L)), x4(L, d)], 1),
    "copy_/into_cl": lambda L, d: layout(L.empty(2, 3, 4, 5, device=d).contiguous(memory_format=cl(L))
                                         .copy_(x4(L, d))),
    "numpy/cl": lambda L, d: x4(L, d).contiguous(memory_format=cl(L)).cpu().numpy().strides,
    "Module.to/memory_format": lambda L, d: L.nn.Conv2d(3, 4, 3).to(d, memory_format=cl(L)).weight.stride(),
    "Module.to/memory_format_2d_param": lambda L, d: L.nn.Linear(3, 4).to(d, memory_format=cl(L)).weight.stride(),
    "sum/cl_backward_grad_layout": lambda L, d: (lambda x: (x.sum().backward(), x.grad.stride())[1])(
        x4(L, d).contiguous(memory_format=cl(L)).requires_grad_()),
    "conv2d/cl_backward": lambda L, d: (lambda x: (L.nn.functional.conv2d(
        x, R(L, (4, 3, 3, 3), d, "float32", scale=0.5)).sum().backward(), x.grad)[1])(
        x4(L, d).contiguous(memory_format=cl(L)).requires_grad_()),
    "memory_format/repr": lambda L, d: repr(cl(L)).replace("tandem", "torch"),
    "memory_format/equality": lambda L, d: (cl(L) == cl(L), cl(L) == L.contiguous_format),
}

_CPP = "needs C++ fix: "
_KEEP = (_CPP + "tandem's elementwise outputs, gradients and clone() without memory_format are row-major; "
         "PyTorch's keep a dense input's layout (channels_last strides) - the values agree")
KNOWN = {
    "add/cl_plus_contiguous": _KEEP, "mul/cl_scalar": _KEEP, "relu/cl": _KEEP, "clone/preserve_cl": _KEEP,
    "clone/preserve_transposed": _KEEP, "sum/cl_backward_grad_layout": _KEEP,
    "numpy/cl": _CPP + "a device-to-host copy (.cpu()) is row-major; PyTorch's keeps the strides",
}
