"""Layer normalisation as one kernel forward and one backward (ops/norm.cpp, kernels/norm_functors.h): values,
dtypes, statistics and gradients against PyTorch on every device, PyTorch's checks and messages, second-order
gradients, and the row lengths around every vector width."""
import pytest
import torch

import tandem
from oracle import assert_close_to_torch, assert_same_error, from_torch, to_torch

TOL = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=1e-5, atol=1e-5),
       "bfloat16": dict(rtol=2e-2, atol=2e-2), "float16": dict(rtol=2e-3, atol=2e-3)}


def _inputs(shape, k, dtype, affine, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = (torch.randn(shape, generator=gen, dtype=torch.float64) * 3 + 1.5).to(getattr(torch, dtype))
    norm_shape = shape[len(shape) - k:]
    w = torch.randn(norm_shape, generator=gen, dtype=torch.float64).to(x.dtype) if affine else None
    b = torch.randn(norm_shape, generator=gen, dtype=torch.float64).to(x.dtype) if affine else None
    return x, w, b, norm_shape


def _leaf(t, device):
    return None if t is None else from_torch(t, device).requires_grad_()


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16"])
@pytest.mark.parametrize("shape,k", [((4, 7), 1), ((2, 3, 768), 1), ((2, 5, 4, 6), 2), ((3, 1), 1), ((5,), 1)])
@pytest.mark.parametrize("affine", [True, False])
def test_forward_and_gradients_match_pytorch(device, dtype, shape, k, affine):
    """Against PyTorch in float64 on the same (rounded) values, rounded to the dtype: tandem's statistics are
    as accurate as that in float32 and 16-bit, where PyTorch's own float32 rounding can be further off (a row
    of one element: PyTorch's weight gradient is 7e-6 where the exact one is 0)."""
    x, w, b, norm_shape = _inputs(shape, k, dtype, affine)
    refs = [t.double().clone().requires_grad_() if t is not None else None for t in (x, w, b)]
    want = torch.nn.functional.layer_norm(refs[0], norm_shape, refs[1], refs[2], eps=1e-5)
    ours = [_leaf(t, device) for t in (x, w, b)]
    got = tandem.nn.functional.layer_norm(ours[0], norm_shape, ours[1], ours[2], eps=1e-5)
    assert got.grad_fn.name() == "NativeLayerNormBackward0"
    assert_close_to_torch(got.detach(), want.detach().to(x.dtype), device=device, **TOL[dtype])
    gen = torch.Generator().manual_seed(1)
    g = torch.randn(shape, generator=gen, dtype=torch.float64).to(x.dtype)
    want.backward(g.double())
    got.backward(from_torch(g, device))
    for mine, theirs in zip(ours, refs):
        if theirs is not None:
            assert_close_to_torch(mine.grad, theirs.grad.to(x.dtype), device=device, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_native_layer_norm_returns_pytorchs_statistics(device, dtype):
    x, w, b, norm_shape = _inputs((2, 3, 4, 5), 2, dtype, True)
    want = torch.native_layer_norm(x, norm_shape, w, b, 1e-5)
    got = tandem.native_layer_norm(from_torch(x, device), norm_shape, from_torch(w, device), from_torch(b, device),
                                   1e-5)
    # PyTorch keeps 16-bit statistics in float on CUDA, in the input's dtype on the CPU.
    stats_dtype = "float32" if dtype == "bfloat16" and device != "cpu" else dtype
    assert got[1].dtype == getattr(tandem, stats_dtype) and got[2].dtype == getattr(tandem, stats_dtype)
    for mine, theirs in zip(got, want):
        assert_close_to_torch(mine.to(getattr(tandem, dtype)), theirs, device=device, **TOL[dtype])


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 2049])
def test_rows_of_every_length_around_the_vector_widths(n):
    """The kernel's vector folds, their tails and the blocks that go to double (kernels/cpu/norm_kernels.cpp)."""
    x, w, b, norm_shape = _inputs((3, n), 1, "float32", True, seed=n)
    refs = [t.double().clone().requires_grad_() for t in (x, w, b)]
    want = torch.nn.functional.layer_norm(refs[0], norm_shape, refs[1], refs[2])
    ours = [_leaf(t, "cpu") for t in (x, w, b)]
    got = tandem.nn.functional.layer_norm(ours[0], norm_shape, ours[1], ours[2])
    torch.testing.assert_close(to_torch(got.detach()).double(), want.detach(), rtol=1e-5, atol=2e-5)
    g = torch.linspace(-1, 1, 3 * n, dtype=torch.float64).reshape(3, n)
    want.backward(g)
    got.backward(from_torch(g.float()))
    for mine, theirs in zip(ours, refs):
        torch.testing.assert_close(to_torch(mine.grad).double(), theirs.grad, rtol=1e-4, atol=1e-4)


def test_a_large_mean_cancels_exactly():
    """Two passes (the mean, then the squared deviations from it): a row far from zero keeps its variance."""
    x = torch.tensor([[1e4 + 0.5, 1e4 - 0.5, 1e4 + 1.5, 1e4 - 1.5] * 64], dtype=torch.float32)
    want = torch.nn.functional.layer_norm(x.double(), (256,)).float()
    got = tandem.nn.functional.layer_norm(from_torch(x), (256,))
    torch.testing.assert_close(to_torch(got), want, rtol=1e-5, atol=1e-5)


def test_gradient_of_weight_only_and_of_input_only(device):
    """Each gradient is computed only when its input requires one; the others stay None."""
    x, w, b, norm_shape = _inputs((6, 10), 1, "float64", True)
    xt, wt, bt = from_torch(x, device), from_torch(w, device).requires_grad_(), from_torch(b, device)
    tandem.nn.functional.layer_norm(xt, norm_shape, wt, bt).square().sum().backward()
    wr = w.clone().requires_grad_()
    torch.nn.functional.layer_norm(x, norm_shape, wr, b).square().sum().backward()
    assert xt.grad is None and bt.grad is None
    assert_close_to_torch(wt.grad, wr.grad, device=device)
    xt = from_torch(x, device).requires_grad_()
    tandem.nn.functional.layer_norm(xt, norm_shape, from_torch(w, device)).sum().backward()
    xr = x.clone().requires_grad_()
    torch.nn.functional.layer_norm(xr, norm_shape, w).sum().backward()
    assert_close_to_torch(xt.grad, xr.grad, device=device, rtol=1e-9, atol=1e-9)


def test_non_contiguous_input_and_expanded_gradient(device):
    x, w, b, _ = _inputs((6, 4), 1, "float64", True)
    xr = x.t().clone().requires_grad_()  # (4, 6), normalised over rows of a transposed layout
    xt = from_torch(x, device).t().detach().requires_grad_()
    assert not xt.is_contiguous()
    want = torch.nn.functional.layer_norm(xr, (6,))
    got = tandem.nn.functional.layer_norm(xt, (6,))
    assert_close_to_torch(got.detach(), want.detach(), device=device)
    want.sum().backward()  # an expanded gradient of ones
    got.sum().backward()
    assert_close_to_torch(xt.grad, xr.grad, device=device, rtol=1e-9, atol=1e-9)


def test_second_order_gradients(device):
    x, w, b, norm_shape = _inputs((3, 5), 1, "float64", True)
    assert torch.autograd.gradcheck(lambda *a: torch.nn.functional.layer_norm(a[0], norm_shape, a[1], a[2]),
                                    [t.clone().requires_grad_() for t in (x, w, b)])
    xt, wt, bt = (from_torch(t, device).requires_grad_() for t in (x, w, b))
    assert tandem.autograd.gradcheck(lambda *a: tandem.nn.functional.layer_norm(a[0], norm_shape, a[1], a[2]),
                                     [xt, wt, bt])
    assert tandem.autograd.gradgradcheck(lambda *a: tandem.nn.functional.layer_norm(a[0], norm_shape, a[1], a[2]),
                                         [xt, wt, bt])


def test_empty_batches_and_empty_rows(device):
    w = tandem.ones(4, device=device, requires_grad=True)
    b = tandem.zeros(4, device=device, requires_grad=True)
    x = tandem.zeros(0, 4, device=device, requires_grad=True)
    out = tandem.nn.functional.layer_norm(x, (4,), w, b)
    assert out.shape == (0, 4) and out.device == tandem.device(device)
    out.sum().backward()
    assert w.grad.tolist() == [0.0] * 4 and b.grad.tolist() == [0.0] * 4 and x.grad.shape == (0, 4)
    out, mean, rstd = tandem.native_layer_norm(tandem.zeros(3, 0, device=device), (0,), None, None, 1e-5)
    want = torch.native_layer_norm(torch.zeros(3, 0), (0,), None, None, 1e-5)
    assert out.shape == (3, 0) and mean.tolist() == want[1].tolist() and rstd.isnan().all().item()


def test_mixed_precision_weights_with_a_16_bit_input(device):
    """PyTorch takes float32 weight and bias with a bfloat16 input: the output is bfloat16, the parameters'
    gradients float32."""
    x, w, b, norm_shape = _inputs((4, 8), 1, "float32", True)
    refs = [x.bfloat16().requires_grad_(), w.clone().requires_grad_(), b.clone().requires_grad_()]
    want = torch.nn.functional.layer_norm(refs[0], norm_shape, refs[1], refs[2])
    ours = [from_torch(refs[0].detach(), device).requires_grad_(), _leaf(w, device), _leaf(b, device)]
    got = tandem.nn.functional.layer_norm(ours[0], norm_shape, ours[1], ours[2])
    assert_close_to_torch(got.detach(), want.detach(), device=device, **TOL["bfloat16"])
    want.sum().backward()
    got.sum().backward()
    assert ours[1].grad.dtype == tandem.float32 and ours[2].grad.dtype == tandem.float32
    assert_close_to_torch(ours[2].grad, refs[2].grad, device=device, **TOL["bfloat16"])


@pytest.mark.parametrize("case", [
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (4,)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3, 2)),
    lambda L: L.nn.functional.layer_norm(L.ones(3), (2, 3)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), L.ones(4)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), None, L.ones(2)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3, dtype=L.int64), (3,)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3, dtype=L.float64), (3,), L.ones(3)),
    lambda L: L.native_layer_norm(L.ones(2, 3), (), None, None, 1e-5),
    lambda L: L.nn.functional.group_norm(L.ones(2, 4, 3, dtype=L.int64), 2),
    lambda L: L.nn.functional.instance_norm(L.ones(2, 4, 3, dtype=L.int64)),
    lambda L: L.nn.functional.layer_norm([1.0, 2.0], (2,)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3.0,)),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), "ab"),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), 3),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), None, [1.0, 1.0, 1.0]),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3, dtype=L.bfloat16), (3,), [1.0, 1.0, 1.0]),
    lambda L: L.nn.functional.layer_norm(L.ones(2, 3), (3,), eps="a"),
    lambda L: L.native_layer_norm(L.ones(2, 3), (3,), None, None, None),
], ids=["last_dim", "two_dims", "short_input", "weight_shape", "bias_shape", "long_input", "mixed_dtype",
        "empty_shape", "group_norm_long_input", "instance_norm_long_input", "list_input", "float_in_shape",
        "str_shape", "int_shape", "list_bias", "list_weight_16_bit", "str_eps", "none_eps"])
def test_errors_are_pytorchs(case):
    assert_same_error(case)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_group_and_instance_norm_through_the_kernel_match_pytorch(device, dtype):
    """group_norm and instance_norm without running statistics (batch_norm's kernels, ops/group_norm.h): values and
    gradients of input, weight and bias against PyTorch in float64."""
    x, _, _, _ = _inputs((3, 6, 4, 5), 1, dtype, False)
    gen = torch.Generator().manual_seed(2)
    w, b = (torch.randn(6, generator=gen, dtype=torch.float64).to(x.dtype) for _ in range(2))
    g = torch.randn(x.shape, generator=gen, dtype=torch.float64).to(x.dtype)
    cases = [lambda L, x, w, b: L.nn.functional.group_norm(x, 3, w, b, eps=1e-5),
             lambda L, x, w, b: L.nn.functional.instance_norm(x, weight=w, bias=b, eps=1e-5)]
    for case in cases:
        refs = [t.double().clone().requires_grad_() for t in (x, w, b)]
        want = case(torch, *refs)
        want.backward(g.double())
        ours = [_leaf(t, device) for t in (x, w, b)]
        got = case(tandem, *ours)
        got.backward(from_torch(g, device))
        assert_close_to_torch(got.detach(), want.detach().to(x.dtype), device=device, **TOL[dtype])
        for mine, theirs in zip(ours, refs):
            assert_close_to_torch(mine.grad, theirs.grad.to(x.dtype), device=device, **TOL[dtype])


def test_weight_on_another_device_is_refused():
    if not tandem.cuda.is_available():
        pytest.skip("needs a cuda device (TANDEM_EMULATE_CUDA=2 gives emulated ones)")
    for weight, bias in ((tandem.ones(3, device="cuda:0"), None), (None, tandem.ones(3, device="cuda:0"))):
        with pytest.raises(RuntimeError, match=r"^Expected all tensors to be on the same device, but found at least "
                                               r"two devices, cpu and cuda:0!$"):
            tandem.nn.functional.layer_norm(tandem.ones(2, 3), (3,), weight, bias)


def test_gradients_only_of_the_input_without_affine_parameters(device):
    """No weight and bias: the backward computes the input gradient alone (no partial sums for them)."""
    x, _, _, norm_shape = _inputs((40, 9), 1, "float64", False)
    xr, xt = x.clone().requires_grad_(), from_torch(x, device).requires_grad_()
    g = torch.linspace(-2, 3, 360, dtype=torch.float64).reshape(40, 9)
    torch.nn.functional.layer_norm(xr, norm_shape).backward(g)
    tandem.nn.functional.layer_norm(xt, norm_shape).backward(from_torch(g, device))
    assert_close_to_torch(xt.grad, xr.grad, device=device, rtol=1e-10, atol=1e-10)


def test_layer_norm_module_and_transformer_layer_use_the_kernel():
    layer = tandem.nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0)
    out = layer(tandem.randn(3, 5, 16))
    names, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node.name() not in names:
            names.add(node.name())
            stack.extend(fn for fn, _ in node.next_functions)
    assert "NativeLayerNormBackward0" in names
