"""nn.functional's convolutions and poolings as a matrix, beyond conv_pool_params.py (one case per corner): each
1-d function (conv1d, conv_transpose1d, max_pool1d with and without indices, avg_pool1d, lp_pool1d,
adaptive_avg_pool1d, adaptive_max_pool1d) and its 2-d form crossed with one list of hostile arguments: zero
batch, zero channels, zero length, a kernel longer than the input, padding past half the kernel, strides and
dilations of 2**40 and 0, kernels of 2**62, negative padding, integer, bool and half inputs, non-contiguous and
unbatched inputs, rank 5 inputs, ceil_mode with a window starting in the padding. Values are compared (the
oracle runs on the CPU)."""
from . import R

BIG, HUGE = 2**40, 2**62


def x1(L, d, shape=(2, 3, 7), dtype="float32"):
    return R(L, shape, d, dtype)


def w1(L, d, k=3, cin=3, cout=4, dtype="float32"):
    return R(L, (cout, cin, k), d, dtype, 0.5)


def wt1(L, d, k=3, cin=3, cout=4, dtype="float32"):
    return R(L, (cin, cout, k), d, dtype, 0.5)


# per argument set: (input maker, keyword overrides); each function reads the keys it takes
ARGS = {
    "ok": (lambda L, d: x1(L, d), {}),
    "zero_batch": (lambda L, d: x1(L, d, (0, 3, 7)), {}),
    "zero_channels": (lambda L, d: x1(L, d, (2, 0, 7)), {}),
    "zero_length": (lambda L, d: x1(L, d, (2, 3, 0)), {}),
    "kernel_longer": (lambda L, d: x1(L, d, (2, 3, 2)), {}),
    "padding_past_half": (lambda L, d: x1(L, d), {"padding": 2}),
    "padding_negative": (lambda L, d: x1(L, d), {"padding": -1}),
    "stride_zero": (lambda L, d: x1(L, d), {"stride": 0}),
    "stride_huge": (lambda L, d: x1(L, d), {"stride": BIG}),
    "stride_negative": (lambda L, d: x1(L, d), {"stride": -2}),
    "dilation_huge": (lambda L, d: x1(L, d), {"dilation": BIG}),
    "dilation_zero": (lambda L, d: x1(L, d), {"dilation": 0}),
    "kernel_huge": (lambda L, d: x1(L, d), {"k": HUGE}),
    "kernel_zero": (lambda L, d: x1(L, d), {"k": 0}),
    "int_input": (lambda L, d: x1(L, d).long(), {}),
    "bool_input": (lambda L, d: x1(L, d) > 0, {}),
    "half_input": (lambda L, d: x1(L, d, dtype="float16"), {"dtype": "float16"}),
    "noncontiguous": (lambda L, d: x1(L, d, (2, 7, 3)).transpose(1, 2), {}),
    "unbatched": (lambda L, d: x1(L, d, (3, 7)), {}),
    "rank_4": (lambda L, d: x1(L, d, (1, 2, 3, 7)), {}),
    "ceil_window_in_padding": (lambda L, d: x1(L, d, (2, 3, 6)), {"ceil_mode": True, "padding": 1, "stride": 2,
                                                                   "k": 3}),
    "output_size_zero": (lambda L, d: x1(L, d), {"output_size": 0}),
    "output_size_bigger": (lambda L, d: x1(L, d), {"output_size": 10}),
    "output_size_negative": (lambda L, d: x1(L, d), {"output_size": -1}),
}


def _kw(kw, *names, **defaults):
    return {n: kw.get(n, defaults.get(n)) for n in names if n in kw or n in defaults}


FUNCTIONS_1D = {
    "conv1d": lambda L, d, x, kw: L.nn.functional.conv1d(
        x, w1(L, d, min(kw.get("k", 3), 9), dtype=kw.get("dtype", "float32")),
        **_kw(kw, "stride", "padding", "dilation")),
    "conv_transpose1d": lambda L, d, x, kw: L.nn.functional.conv_transpose1d(
        x, wt1(L, d, min(kw.get("k", 3), 9), dtype=kw.get("dtype", "float32")),
        **_kw(kw, "stride", "padding", "dilation")),
    "max_pool1d": lambda L, d, x, kw: L.nn.functional.max_pool1d(
        x, kw.get("k", 3), **_kw(kw, "stride", "padding", "dilation", "ceil_mode")),
    "max_pool1d_indices": lambda L, d, x, kw: L.nn.functional.max_pool1d(
        x, kw.get("k", 3), return_indices=True, **_kw(kw, "stride", "padding", "dilation", "ceil_mode")),
    "avg_pool1d": lambda L, d, x, kw: L.nn.functional.avg_pool1d(
        x, kw.get("k", 3), **_kw(kw, "stride", "padding", "ceil_mode")),
    "lp_pool1d": lambda L, d, x, kw: L.nn.functional.lp_pool1d(
        x, 2.0, kw.get("k", 3), **_kw(kw, "stride", "ceil_mode")),
    "adaptive_avg_pool1d": lambda L, d, x, kw: L.nn.functional.adaptive_avg_pool1d(x, kw.get("output_size", 4)),
    "adaptive_max_pool1d": lambda L, d, x, kw: L.nn.functional.adaptive_max_pool1d(
        x, kw.get("output_size", 4), return_indices=True),
}


def as_2d(x):
    """The 1-d argument's input as a 2-d one: the length as both spatial sizes (a (N, C, L) input gives
    (N, C, L, L); other ranks gain a trailing dim of the last size)."""
    return x.unsqueeze(-1).expand(*x.shape, x.shape[-1]).contiguous() if x.dim() else x


FUNCTIONS_2D = {
    "conv2d": lambda L, d, x, kw: L.nn.functional.conv2d(
        as_2d(x), w1(L, d, min(kw.get("k", 3), 9), dtype=kw.get("dtype", "float32")).unsqueeze(-1).expand(
            -1, -1, -1, min(kw.get("k", 3), 9)), **_kw(kw, "stride", "padding", "dilation")),
    "max_pool2d": lambda L, d, x, kw: L.nn.functional.max_pool2d(
        as_2d(x), kw.get("k", 3), **_kw(kw, "stride", "padding", "dilation", "ceil_mode")),
    "avg_pool2d": lambda L, d, x, kw: L.nn.functional.avg_pool2d(
        as_2d(x), kw.get("k", 3), **_kw(kw, "stride", "padding", "ceil_mode")),
    "lp_pool2d": lambda L, d, x, kw: L.nn.functional.lp_pool2d(
        as_2d(x), 2.0, kw.get("k", 3), **_kw(kw, "stride", "ceil_mode")),
    "adaptive_avg_pool2d": lambda L, d, x, kw: L.nn.functional.adaptive_avg_pool2d(as_2d(x),
                                                                                  kw.get("output_size", 4)),
    "adaptive_max_pool2d": lambda L, d, x, kw: L.nn.functional.adaptive_max_pool2d(
        as_2d(x), kw.get("output_size", 4), return_indices=True),
}

# only the arguments a function takes (an argument it has no slot for would repeat "ok")
_TAKES = {
    "conv": {"stride", "padding", "dilation", "k"},
    "max_pool": {"stride", "padding", "dilation", "k", "ceil_mode"},
    "avg_pool": {"stride", "padding", "k", "ceil_mode"},
    "lp_pool": {"stride", "k", "ceil_mode"},
    "adaptive": {"output_size"},
}


def _takes(fname, kw):
    family = next(f for f in _TAKES if fname.startswith(f) or (f == "conv" and "conv" in fname))
    return set(kw) - {"dtype"} <= _TAKES[family]


def _case(fn, make, kw):
    return lambda L, d: fn(L, d, make(L, d), kw)


CASES = {}
for _fname, _fn in {**FUNCTIONS_1D, **FUNCTIONS_2D}.items():
    for _aname, (_make, _kwargs) in ARGS.items():
        if _takes(_fname, _kwargs):
            CASES[f"{_fname}/{_aname}"] = _case(_fn, _make, _kwargs)

_ONEDNN = ("PyTorch's oneDNN backend refuses an empty kernel or a zero dilation of a transposed convolution with its "
           "internal 'could not create a primitive descriptor' text; tandem names the argument (for a transposed "
           "convolution with an empty kernel it returns the zeros that no taps sum to)")
_ALLOC = ("PyTorch's message is its CPU allocator's internal enforce ('[enforce fail at alloc_cpu.cpp:127] err == 0. "
          "DefaultCPUAllocator: can't allocate memory: ...'); tandem's names the same byte count")
# the 2-d pooling front ends refuse window arguments past int's range as PyTorch since session 44
KNOWN = {}
KNOWN.update({
    "conv1d/kernel_zero": _ONEDNN, "conv2d/kernel_zero": _ONEDNN, "conv_transpose1d/kernel_zero": _ONEDNN,
    "conv_transpose1d/dilation_zero": _ONEDNN,
    "conv_transpose1d/dilation_huge": _ALLOC, "conv_transpose1d/stride_huge": _ALLOC,
    "conv2d/dilation_zero": "PyTorch's wording depends on the backend it picks: oneDNN (a batched float32 input) says "
                            "'non-positive dilation is not supported', the others (float64, unbatched) 'dilation "
                            "should be greater than zero, but got [0, 0]', which tandem says for every input",
})
