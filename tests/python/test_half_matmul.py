"""float16 and bfloat16 matrix products (kernels/cpu/linalg_half.cpp, and linalg_onednn_half.cpp for products of
2**16 multiply-adds or more where oneDNN has kernels for the CPU; on cpu and emulated cuda): every operand layout
the kernels tell apart, against a float64 reference of the same 16-bit inputs and against PyTorch.

The products accumulate in float, as PyTorch's do, and round once: each result is within a rounding of the
16-bit dtype (plus float32 summation error, bounded by the sum of the absolute products) of the exact value."""
import numpy as np
import pytest
import torch

import tandem

DTYPES = ["float16", "bfloat16"]
# Half an ulp at 1.0 of each dtype (the rounding of the result), and float32's (the summation).
ROUNDING = {"float16": 2.0**-11, "bfloat16": 2.0**-8}


def exact_product(a, b):
    """The float64 product of two tandem tensors' values (their 16-bit values are exact in float64)."""
    return np.matmul(a.cpu().double().numpy(), b.cpu().double().numpy())


def assert_rounded_product(got, a, b, alpha=1.0, beta=0.0, old=None):
    """got == alpha * a @ b + beta * old, within one rounding of got's dtype and float32 summation error."""
    want = alpha * exact_product(a, b)
    scale = np.abs(alpha) * np.matmul(np.abs(a.cpu().double().numpy()), np.abs(b.cpu().double().numpy()))
    if beta != 0:
        want = want + beta * old.cpu().double().numpy()
        scale = scale + np.abs(beta * old.cpu().double().numpy())
    got64 = got.cpu().double().numpy()
    k = a.shape[-1]
    bound = 2 * ROUNDING[str(got.dtype).split(".")[1]] * np.abs(want) + (k + 2) * 2.0**-23 * scale + 1e-30
    assert np.all(np.abs(got64 - want) <= bound), float(np.max(np.abs(got64 - want) / bound))


def tensors(shape, dtype, device, seed):
    rng = np.random.default_rng(seed)
    return tandem.tensor(rng.standard_normal(shape), dtype=getattr(tandem, dtype), device=device)


SHAPES = [  # (m, k, n): one token through a Linear layer, its transpose, a dot product, small and large GEMMs
    (1, 3072, 768), (1, 768, 300), (300, 768, 1), (1, 1, 1), (1, 517, 1), (5, 3, 7), (33, 257, 65),
    (128, 768, 384), (2, 1, 3),
    # wide enough that the widening path runs in panels of b's columns (linalg_half.cpp), with a short last one
    (40, 768, 1000), (16, 2048, 700)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("layout", ["contiguous", "weight_transposed", "both_transposed", "every_other"])
def test_product_of_each_layout(device, dtype, m, k, n, layout):
    a = tensors((m, k), dtype, device, 1)
    b = tensors((k, n), dtype, device, 2)
    if layout == "weight_transposed":  # F.linear(x, w): the weight is read as w.t()
        b = tensors((n, k), dtype, device, 2).t()
    elif layout == "both_transposed":
        a = tensors((k, m), dtype, device, 1).t()
        b = tensors((n, k), dtype, device, 2).t()
    elif layout == "every_other":  # neither stride is 1
        a = tensors((m, 2 * k), dtype, device, 1)[:, ::2]
        b = tensors((2 * k, 2 * n), dtype, device, 2)[::2, ::2]
    got = a @ b
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    assert tuple(got.shape) == (m, n)
    assert_rounded_product(got, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_matches_pytorch(device, dtype):
    rng = np.random.default_rng(3)
    for tokens in (1, 4, 64):
        x = rng.standard_normal((tokens, 384)).astype(np.float32)
        w = rng.standard_normal((200, 384)).astype(np.float32) * 0.05
        bias = rng.standard_normal(200).astype(np.float32)
        ours = tandem.nn.functional.linear(*(tandem.tensor(v, device=device).to(getattr(tandem, dtype))
                                             for v in (x, w, bias)))
        theirs = torch.nn.functional.linear(*(torch.tensor(v).to(getattr(torch, dtype)) for v in (x, w, bias)))
        assert ours.dtype == getattr(tandem, dtype) and tuple(ours.shape) == (tokens, 200)
        tol = 8 * ROUNDING[dtype]
        np.testing.assert_allclose(ours.cpu().float().numpy(), theirs.float().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,n", [(1, 40), (40, 1), (9, 40), (70, 40)])  # 70 x 33 x 40: oneDNN where built
def test_batched_and_broadcast_products(device, dtype, m, n):
    a = tensors((3, 4, m, 33), dtype, device, 4)
    w = tensors((33, n), dtype, device, 5)  # broadcast over both batch dims
    got = a @ w
    assert tuple(got.shape) == (3, 4, m, n)
    assert_rounded_product(got, a, w)
    heads = tensors((1, 4, 33, n), dtype, device, 6)  # broadcast over the first batch dim only
    got = a @ heads
    assert_rounded_product(got, a, heads.expand(3, 4, 33, n))
    # bmm of transposed batches (attention's q @ k^T) writes into a strided output row by row
    q = tensors((6, m, 16), dtype, device, 7)
    keys = tensors((6, n, 16), dtype, device, 8)
    got = tandem.bmm(q, keys.transpose(1, 2))
    assert_rounded_product(got, q, keys.transpose(1, 2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,k,n", [(1, 50, 30), (30, 50, 1), (20, 50, 30), (64, 96, 80), (24, 1024, 900)])
def test_alpha_and_beta(device, dtype, m, k, n):
    a = tensors((m, k), dtype, device, 9)
    b = tensors((k, n), dtype, device, 10)
    old = tensors((m, n), dtype, device, 11)
    got = tandem.addmm(old, a, b, beta=0.5, alpha=-2.0)
    assert_rounded_product(got, a, b, alpha=-2.0, beta=0.5, old=old)
    # beta == 0 never reads the output: NaN there does not propagate
    nan_out = tandem.full((m, n), float("nan"), dtype=getattr(tandem, dtype), device=device)
    got = tandem.addmm(nan_out, a, b, beta=0.0)
    assert not tandem.isnan(got).any().item()
    assert_rounded_product(got, a, b)
    # into a column slice of a wider output (row stride larger than n)
    wide = tandem.zeros((m, n + 5), dtype=getattr(tandem, dtype), device=device)
    tandem.matmul(a, b, out=wide[:, 2:2 + n])
    assert_rounded_product(wide[:, 2:2 + n], a, b)
    assert wide[:, :2].abs().sum().item() == 0 and wide[:, 2 + n:].abs().sum().item() == 0


@pytest.mark.parametrize("dtype", DTYPES)
def test_special_values_and_empty(device, dtype):
    h = getattr(tandem, dtype)
    a = tandem.tensor([[1.0, float("inf")], [float("nan"), 1.0], [1.0, 2.0]], dtype=h, device=device)
    b = tandem.tensor([[1.0, 0.5], [2.0, 1.0]], dtype=h, device=device)
    got = (a @ b).cpu().float().numpy()
    np.testing.assert_array_equal(got, np.array([[np.inf, np.inf], [np.nan, np.nan], [5.0, 2.5]], np.float32))
    got = (a @ b[:, :1]).cpu().float().numpy()  # the matrix-vector kernel
    np.testing.assert_array_equal(got, np.array([[np.inf], [np.nan], [5.0]], np.float32))
    # beyond the dtype's range: float16 overflows to inf where float32 accumulation does not
    big = tandem.full((1, 8), 300.0, dtype=h, device=device)
    got = (big @ big.t()).item()
    assert got == (float("inf") if dtype == "float16" else 720896.0)
    assert tuple((tandem.ones((0, 4), dtype=h, device=device) @ tandem.ones((4, 3), dtype=h, device=device)).shape) == (0, 3)
    empty_k = tandem.ones((2, 0), dtype=h, device=device) @ tandem.ones((0, 3), dtype=h, device=device)
    assert empty_k.dtype == h and empty_k.cpu().float().numpy().tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradients_match_pytorch(device, dtype):
    rng = np.random.default_rng(12)
    x = rng.standard_normal((7, 24)).astype(np.float32)
    w = rng.standard_normal((10, 24)).astype(np.float32)
    grad = rng.standard_normal((7, 10)).astype(np.float32)
    results = []
    for lib, dev in ((tandem, device), (torch, "cpu")):
        xt = lib.tensor(x, device=dev).to(getattr(lib, dtype)).requires_grad_()
        wt = lib.tensor(w, device=dev).to(getattr(lib, dtype)).requires_grad_()
        lib.nn.functional.linear(xt, wt).backward(lib.tensor(grad, device=dev).to(getattr(lib, dtype)))
        assert xt.grad.dtype == getattr(lib, dtype) and wt.grad.dtype == getattr(lib, dtype)
        results.append([t.grad.cpu().float().numpy() for t in (xt, wt)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=8 * ROUNDING[dtype], atol=8 * ROUNDING[dtype] * 5)


def test_autocast_linear_runs_in_bfloat16(device):
    """CPU autocast runs Linear in bfloat16: the path these kernels made fast."""
    layer = tandem.nn.Linear(64, 32).to(device)
    x = tensors((16, 64), "float32", device, 13)
    with tandem.autocast(device_type=tandem.device(device).type, dtype=tandem.bfloat16):
        y = layer(x)
    assert y.dtype == tandem.bfloat16
    want = tandem.nn.functional.linear(x, layer.weight, layer.bias)
    np.testing.assert_allclose(y.detach().cpu().float().numpy(), want.detach().cpu().numpy(), rtol=0.05, atol=0.05)


@pytest.mark.parametrize("dtype", DTYPES)
def test_expanded_operands(device, dtype):
    """Operands with a stride of 0 (expand): oneDNN is not handed them; the widening path reads them as they are."""
    a = tensors((1, 300), dtype, device, 14).expand(200, 300)
    b = tensors((300, 200), dtype, device, 15)
    assert_rounded_product(a @ b, a, b)
    column = tensors((300, 1), dtype, device, 16).expand(300, 200)
    rows = tensors((200, 300), dtype, device, 17)
    assert_rounded_product(rows @ column, rows, column)
    assert_rounded_product(a[:1] @ column, a[:1], column)  # the matrix-vector kernel with a broadcast matrix
