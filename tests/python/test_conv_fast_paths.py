"""The batched-GEMM convolution paths (ops/conv.cpp, ops/conv_transpose.cpp, ops/conv_columns.cpp) against
PyTorch: conv_transpose1d/2d as one C++ op (GEMM + col2im, its backward im2col + GEMMs, a recorded backward
for create_graph), conv2d writing each batch element's output straight from the GEMM with the bias folded in,
the patch matrix built a few batch elements at a time (shapes with several rounds), and col2im's branch-free
runs (stride 2 pairs of kernel columns, odd kernels, dilation, padding wider than the kernel's reach)."""
import numpy as np
import pytest
import torch

import tandem


def to_tandem(x, device="cpu"):
    return tandem.from_numpy(x.detach().numpy().copy()).to(device)


def to_torch(t):
    return torch.from_numpy(t.detach().cpu().numpy().copy())


def close(got, want, rtol=1e-10, atol=1e-10):
    assert tuple(got.shape) == tuple(want.shape), (got.shape, want.shape)
    torch.testing.assert_close(to_torch(got), want.detach(), rtol=rtol, atol=atol)


def run_both(fn, shapes, device, dtype=torch.float64, seed=0, make=None):
    """fn(lib, *tensors) on float64 leaves in both libraries, forward and backward (a random output gradient);
    `make` may turn each leaf into the op's actual argument (e.g. a non-contiguous view)."""
    g = torch.Generator().manual_seed(seed)
    ref = [torch.randn(s, generator=g, dtype=dtype).requires_grad_() for s in shapes]
    mine = [to_tandem(t, device).requires_grad_() for t in ref]
    make = make or (lambda lib, ts: ts)
    want = fn(torch, *make(torch, ref))
    got = fn(tandem, *make(tandem, mine))
    grad = torch.randn(want.shape, generator=g, dtype=dtype)
    want.backward(grad)
    got.backward(to_tandem(grad, device))
    assert got.device == tandem.device(device)
    return got, want, mine, ref


def check(fn, shapes, device, rtol=1e-10, atol=1e-10, **kw):
    got, want, mine, ref = run_both(fn, shapes, device, **kw)
    close(got, want, rtol, atol)
    for a, b in zip(mine, ref):
        close(a.grad, b.grad, rtol, atol)


# (input shape, weight shape, bias?, stride, padding, output_padding, groups, dilation)
TRANSPOSED_2D = [
    ((2, 4, 5, 7), (4, 3, 3, 3), True, 2, 1, 1, 2, 1),  # groups, output_padding < stride
    ((1, 3, 4, 3), (3, 2, 2, 3), True, (3, 4), (0, 1), (2, 0), 1, 1),  # stride > kernel, batch 1
    ((2, 2, 4, 5), (2, 2, 3, 3), False, 1, (1, 2), 1, 1, 2),  # output_padding >= stride (below dilation)
    ((3, 6, 3, 3), (6, 1, 1, 2), True, (2, 1), 0, 0, 3, (3, 2)),  # depthwise-like groups, dilation
    ((2, 4, 6, 6), (4, 2, 4, 4), True, 2, 1, 0, 1, 1),  # the benchmark's k4 s2 p1 (col2im's column pairs)
    ((2, 3, 5, 4), (3, 2, 5, 3), True, 2, 3, 1, 1, 1),  # odd kernel at stride 2: pairs and a single column
    ((1, 2, 3, 3), (2, 2, 3, 3), True, 2, 2, 0, 1, 1),  # padding crops most of the output
    ((0, 4, 5, 5), (4, 2, 3, 3), True, 2, 1, 1, 1, 1),  # an empty batch
]


@pytest.mark.parametrize("case", TRANSPOSED_2D, ids=[f"t2d-{i}" for i in range(len(TRANSPOSED_2D))])
def test_conv_transpose2d_values_and_gradients(case, device):
    xs, ws, has_bias, s, p, op, groups, d = case
    shapes = [xs, ws] + ([(ws[1] * groups,)] if has_bias else [])

    def fn(lib, x, w, b=None):
        return lib.nn.functional.conv_transpose2d(x, w, b, s, p, op, groups, d)

    check(fn, shapes, device)


def test_conv_transpose2d_non_contiguous_operands(device):
    def make(lib, ts):
        x, w, b = ts
        return x.permute(0, 1, 3, 2), w.transpose(2, 3), b

    def fn(lib, x, w, b):
        return lib.nn.functional.conv_transpose2d(x, w, b, stride=(2, 1), padding=(0, 1), output_padding=(1, 0))

    check(fn, [(2, 4, 6, 5), (4, 3, 3, 2), (3,)], device, make=make)


def test_conv_transpose1d_runs_as_the_2d_op(device):
    def fn(lib, x, w, b):
        return lib.nn.functional.conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2, groups=2,
                                                  dilation=2)

    check(fn, [(2, 4, 7), (4, 3, 4), (6,)], device)
    got, want, _, _ = run_both(lambda lib, x, w: lib.nn.functional.conv_transpose1d(x, w), [(4, 7), (4, 2, 3)],
                               device)
    close(got, want)  # unbatched


def test_several_rounds_of_the_patch_matrix(device):
    """Per batch element the patch matrices below exceed 2**18 entries, so the CPU builds them one element
    at a time (accumulating the weight's gradient over rounds); the results must not depend on it."""
    def transposed(lib, x, w, b):
        return lib.nn.functional.conv_transpose2d(x, w, b, stride=2, padding=1)

    check(transposed, [(3, 4, 48, 48), (4, 8, 4, 4), (8,)], device, rtol=1e-9, atol=1e-9)

    def conv(lib, x, w, b):
        return lib.nn.functional.conv2d(x, w, b, stride=1, padding=1, groups=2)

    check(conv, [(5, 32, 40, 40), (4, 16, 3, 3), (4,)], device, rtol=1e-9, atol=1e-9)


# (input shape, weight shape, bias?, stride, padding, dilation, groups)
CONV_2D = [
    ((3, 4, 9, 8), (6, 2, 3, 2), True, (2, 1), 1, (1, 2), 2),
    ((2, 3, 7, 7), (4, 3, 4, 4), True, 2, 1, 1, 1),  # stride 2, even kernel: col2im's column pairs
    ((2, 3, 7, 7), (4, 3, 3, 3), False, 2, 3, 1, 1),  # padding wider than the kernel's reach
    ((1, 2, 5, 6), (2, 2, 2, 3), True, 3, 0, 2, 1),  # stride > kernel
    ((0, 2, 5, 5), (3, 2, 3, 3), True, 1, 1, 1, 1),  # an empty batch
]


@pytest.mark.parametrize("case", CONV_2D, ids=[f"c2d-{i}" for i in range(len(CONV_2D))])
def test_conv2d_values_and_gradients(case, device):
    xs, ws, has_bias, s, p, d, groups = case
    shapes = [xs, ws] + ([(ws[0],)] if has_bias else [])

    def fn(lib, x, w, b=None):
        return lib.nn.functional.conv2d(x, w, b, s, p, d, groups)

    check(fn, shapes, device)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("batch", [1, 2, 3, 7])
def test_convolutions_per_element_on_threads_match_pytorch(threads, batch):
    """With several threads and at least as many batch elements as threads, the CPU convolves whole batch
    elements per thread (ops/conv_columns.h, per_element_on_threads) and sums the weight's gradient over fixed
    shares of the batch; with fewer elements it runs the rounds of parallel kernels. Both against PyTorch, with
    groups, stride, dilation and bias, for conv2d, conv1d and conv_transpose2d."""
    before = tandem.get_num_threads()
    tandem.set_num_threads(threads)
    try:
        def grouped(lib, x, w, b):
            return lib.nn.functional.conv2d(x, w, b, (2, 1), 1, (1, 2), 2)

        check(grouped, [(batch, 4, 9, 8), (6, 2, 3, 2), (6,)], "cpu")

        def plain(lib, x, w):
            return lib.nn.functional.conv2d(x, w, None, 1, 1)

        check(plain, [(batch, 3, 12, 12), (5, 3, 3, 3)], "cpu")
        check(lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, padding=1),
              [(batch, 8, 33), (8, 8, 3), (8,)], "cpu")

        def transposed(lib, x, w, b):
            return lib.nn.functional.conv_transpose2d(x, w, b, 2, 1, 1, 2, 1)

        check(transposed, [(batch, 4, 5, 7), (4, 3, 3, 3), (6,)], "cpu")
        check(lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, None, 2, 1),
              [(batch, 6, 6, 6), (6, 2, 4, 4)], "cpu")
    finally:
        tandem.set_num_threads(before)


def test_conv1d_non_contiguous_input_and_bias(device):
    def make(lib, ts):
        x, w, b = ts
        return x.transpose(1, 2), w, b

    def fn(lib, x, w, b):
        return lib.nn.functional.conv1d(x, w, b, padding=1)

    check(fn, [(3, 9, 5), (4, 5, 3), (4,)], device, make=make)


def test_float32_layers_match_pytorch(device):
    torch.manual_seed(0)
    for ref in (torch.nn.ConvTranspose2d(6, 4, 4, stride=2, padding=1), torch.nn.Conv1d(6, 5, 3, padding=1)):
        mine = (tandem.nn.ConvTranspose2d(6, 4, 4, stride=2, padding=1) if isinstance(ref, torch.nn.ConvTranspose2d)
                else tandem.nn.Conv1d(6, 5, 3, padding=1)).to(device)
        mine.load_state_dict({k: to_tandem(v, device) for k, v in ref.state_dict().items()})
        x = torch.randn((2, 6, 5, 7) if isinstance(ref, torch.nn.ConvTranspose2d) else (2, 6, 11))
        close(mine(to_tandem(x, device)), ref(x), 1e-5, 1e-5)


def test_half_precision_accumulates_in_float32():
    """col2im sums float16 planes in a float32 buffer: equal to float32's result rounded once."""
    g = torch.Generator().manual_seed(3)
    x, w = torch.randn(2, 4, 5, 5, generator=g), torch.randn(4, 3, 3, 3, generator=g)
    want = torch.nn.functional.conv_transpose2d(x.half().float(), w.half().float(), stride=2)
    got = tandem.nn.functional.conv_transpose2d(to_tandem(x.half()), to_tandem(w.half()), stride=2)
    assert got.dtype == tandem.float16
    torch.testing.assert_close(to_torch(got).float(), want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("args", [
    dict(stride=2, padding=1, output_padding=1, groups=2, dilation=1),
    dict(stride=1, padding=1, output_padding=1, groups=1, dilation=2),
])
def test_conv_transpose2d_double_backward(args):
    """With create_graph the backward is recorded (conv2d calls), so gradients differentiate again."""
    g = torch.Generator().manual_seed(5)
    shapes = [(2, 4, 4, 5), (4, 3, 3, 3), (3 * args["groups"],)]
    ref = [torch.randn(s, generator=g, dtype=torch.float64).requires_grad_() for s in shapes]
    mine = [to_tandem(t).requires_grad_() for t in ref]

    def grads(lib, leaves):
        out = lib.nn.functional.conv_transpose2d(*leaves, **args)
        first = lib.autograd.grad(out.pow(2).sum(), leaves, create_graph=True)
        return lib.autograd.grad(sum(t.pow(2).sum() for t in first), leaves)

    for a, w in zip(grads(tandem, mine), grads(torch, ref)):
        close(a, w, 1e-9, 1e-9)


@pytest.mark.parametrize("args,shapes", [
    (dict(stride=2, padding=1, groups=2, dilation=1), [(2, 4, 7, 6), (6, 2, 3, 3), (6,)]),
    (dict(stride=1, padding=2, groups=1, dilation=2), [(2, 3, 6, 7), (4, 3, 3, 2), (4,)]),
    (dict(stride=(3, 2), padding=0, groups=1, dilation=1), [(1, 2, 8, 9), (3, 2, 2, 3), None]),
    (dict(stride=2, padding=1, groups=1, dilation=1), [(3, 7, 7), (2, 3, 3, 3), (2,)]),  # unbatched
])
def test_conv2d_double_backward(args, shapes):
    """conv2d's backward is recorded under create_graph (conv_transpose2d and conv2d calls): gradients of
    gradients (and tandem.func's jvp/hessian through convolutions) match PyTorch's."""
    g = torch.Generator().manual_seed(6)
    ref = [torch.randn(s, generator=g, dtype=torch.float64).requires_grad_() for s in shapes if s is not None]
    mine = [to_tandem(t.detach()).requires_grad_() for t in ref]

    def grads(lib, leaves):
        out = lib.nn.functional.conv2d(*leaves, **args)
        first = lib.autograd.grad(out.pow(2).sum(), leaves, create_graph=True)
        assert all(t.requires_grad for t in first)
        return first + lib.autograd.grad(sum(t.sin().sum() for t in first), leaves)

    for a, w in zip(grads(tandem, mine), grads(torch, ref)):
        close(a.detach(), w.detach(), 1e-9, 1e-9)


def test_bad_arguments_raise_instead_of_crashing():
    from tandem import _C

    x, w = tandem.randn(1, 4, 5, 5), tandem.randn(4, 2, 3, 3)
    for call, message in [
        (lambda: _C._conv_transpose2d(x, w, None, 0), "non-positive stride is not supported"),
        (lambda: _C._conv_transpose2d(x, w, None, 1, 5), "Output size is too small"),
        (lambda: _C._conv_transpose2d(x, w, None, 1, 0, 1), "output padding must be smaller than either stride"),
        (lambda: _C._conv_transpose2d(x, tandem.randn(3, 2, 3, 3)), "expected input[1, 4, 5, 5] to have 3"),
        (lambda: _C._conv_transpose2d(x, w, None, 1, 0, 0, 1, 3), "expected weight to be divisible by 3"),
        (lambda: _C._conv_transpose2d(x, w, tandem.randn(3)), "expected bias to be 1-dimensional with 2"),
        (lambda: _C._conv_transpose2d(x.double(), w), "expected scalar type Double but found Float"),
        (lambda: _C._conv_transpose2d(x.long(), w.long()), "not implemented for 'Long'"),
        (lambda: _C._conv_transpose2d(x[0], w), "Expected 3D (unbatched) or 4D (batched) input"),
    ]:
        with pytest.raises(NotImplementedError if "implemented" in message else RuntimeError) as e:
            call()
        assert message in str(e.value), (message, str(e.value))


@pytest.mark.parametrize("threads", [1, 2])
def test_batches_of_small_products_match_pytorch_on_any_thread_count(threads):
    """linalg_blas.cpp runs a batch of small products one per thread (each BLAS call single-threaded) when
    tandem has several threads: broadcast and transposed batch operands must land where they did."""
    before = tandem.get_num_threads()
    tandem.set_num_threads(threads)
    try:
        g = torch.Generator().manual_seed(7)
        for a_shape, b_shape in [((5, 3, 7, 4), (3, 4, 6)), ((16, 64, 192), (192, 256)), ((1, 4, 2, 3), (6, 1, 3, 5))]:
            for dtype in (torch.float32, torch.float64):
                a, b = torch.randn(a_shape, generator=g, dtype=dtype), torch.randn(b_shape, generator=g, dtype=dtype)
                close(to_tandem(a) @ to_tandem(b), a @ b, 1e-4, 1e-4)
                close(to_tandem(b).transpose(-1, -2) @ to_tandem(a).transpose(-1, -2), b.mT @ a.mT, 1e-4, 1e-4)
    finally:
        tandem.set_num_threads(before)


@pytest.mark.parametrize("kw", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("pad", [0, 1, 3])
def test_stride2_patches_split_in_column_pairs(kw, pad):
    """im2col at stride 2, dilation 1 fills kernel columns kx and kx + 1 from one pass over the input run (the
    even and odd elements): every kernel width, paddings wider than the kernel's reach, odd and even widths,
    several batch elements, and a conv2d whose weight gradient reads the same patches."""
    g = torch.Generator().manual_seed(kw * 10 + pad)
    for width in (9, 10):
        x = torch.randn(3, 2, 7, width, generator=g, dtype=torch.float64)
        want = torch.nn.functional.unfold(x, (3, kw), padding=(1, pad), stride=2)
        got = tandem.nn.functional.unfold(to_tandem(x), (3, kw), padding=(1, pad), stride=2)
        close(got, want)
    check(lambda lib, x, w: lib.nn.functional.conv2d(x, w, None, 2, (1, pad)),
          [(2, 3, 8, 11), (4, 3, 3, kw)], "cpu")
