"""pow with the number exponents PyTorch computes as simpler ops (ops/elementwise.cpp run_pow_as_simpler_op):
2, 3, 0.5, -0.5, -1, -2 give PyTorch's special values (sqrt(-0) is -0, sqrt(-inf) NaN; float16 keeps C's pow
there, as PyTorch's) and its roundings (x * x * x), on every device, out of place, in place and with out=, and
gradients as for any other exponent."""
import numpy as np
import pytest
import torch

import tandem

SPECIAL = [-0.0, float("-inf"), float("inf"), -4.0, 0.0, float("nan"), 3.0, 1e-45, 1.7e38, -1e-20, 0.3, -2.5,
           1e-30, 65504.0, -7.0e-3]
EXPONENTS = [2, 3, 0.5, -0.5, -1, -2, 2.0, 3.0, -1.0, 1, 4, 2.5, -3, 0, 0.0]


def ordered_bits(values, dtype):
    """The values as ordered integers of their own width: neighbouring floats differ by 1, -0.0 from +0.0."""
    array = np.asarray(values)
    if dtype == "bfloat16":
        raw = (array.astype(np.float32).view(np.uint32) >> 16).astype(np.int64)
        sign = 1 << 15
    else:
        width = {"float16": 16, "float32": 32, "float64": 64}[dtype]
        raw = array.astype(dtype).view({16: np.uint16, 32: np.uint32, 64: np.uint64}[width]).astype(object)
        sign = 1 << (width - 1)
    return np.array([int(r) if int(r) < sign else sign - int(r) - 1 for r in raw.ravel()], dtype=object)


def assert_same_as_pytorch(ours, theirs, dtype, ulps=0):
    """Same NaNs, infinities and signed zeros; other values at most `ulps` apart."""
    ours = ours.detach().cpu().float().numpy() if dtype == "bfloat16" else ours.detach().cpu().numpy()
    theirs = theirs.detach().float().numpy() if dtype == "bfloat16" else theirs.detach().numpy()
    nan = np.isnan(theirs)
    np.testing.assert_array_equal(np.isnan(ours), nan)
    exact = ~nan & (np.isinf(theirs) | (theirs == 0))
    np.testing.assert_array_equal(ordered_bits(ours[exact], dtype), ordered_bits(theirs[exact], dtype))
    apart = np.abs(ordered_bits(ours[~nan], dtype) - ordered_bits(theirs[~nan], dtype))
    assert apart.max(initial=0) <= ulps, (int(apart.max()), ours[~nan][apart > ulps][:3], theirs[~nan][apart > ulps][:3])


# Where both sides round the same operations identically: bit for bit. Elsewhere (a libm pow, PyTorch's
# vectorised sqrt, which is not correctly rounded where tandem's is) within one ulp.
BIT_EXACT = {2, -1, 2.0, -1.0, 3, 3.0, -2, 0}


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("exponent", EXPONENTS)
def test_values_match_pytorch(device, dtype, exponent):
    rng = np.random.default_rng(0)
    values = np.concatenate([np.array(SPECIAL), rng.standard_normal(300) * 10, rng.uniform(0, 2, 300)])
    ours = tandem.tensor(values, dtype=getattr(tandem, dtype), device=device)
    theirs = torch.tensor(values, dtype=getattr(torch, dtype))
    ulps = 0 if exponent in BIT_EXACT and (dtype != "float16" or exponent in (2, -1, 0)) else 1
    got = ours ** exponent
    assert got.dtype == getattr(tandem, dtype) and got.device == tandem.device(device)
    assert_same_as_pytorch(got, theirs ** exponent, dtype, ulps)
    assert_same_as_pytorch(tandem.pow(ours, exponent), torch.pow(theirs, exponent), dtype, ulps)


@pytest.mark.parametrize("exponent", [2, 3, 0.5, -0.5, -1, -2])
def test_in_place_and_out(device, exponent):
    values = np.array(SPECIAL + [1.5, -0.75], np.float32)
    want = torch.tensor(values) ** exponent
    x = tandem.tensor(values, device=device)
    assert x.pow_(exponent) is x
    assert_same_as_pytorch(x, want, "float32")
    # out= aliasing the input (pow_'s case through another door) and a separate out
    y = tandem.tensor(values, device=device)
    tandem.pow(y, exponent, out=y)
    assert_same_as_pytorch(y, want, "float32")
    out = tandem.empty(len(values), device=device)
    r = tandem.pow(tandem.tensor(values, device=device), exponent, out=out)
    assert r is out
    assert_same_as_pytorch(out, want, "float32")
    # a strided view in place: only its elements change
    z = tandem.tensor(np.repeat(values, 2), device=device)
    z[::2].pow_(exponent)
    assert_same_as_pytorch(z[::2], want, "float32")
    np.testing.assert_array_equal(z[1::2].cpu().numpy(), values)


@pytest.mark.parametrize("exponent", [2, 3, 0.5, -0.5, -1, -2])
def test_gradients_match_pytorch(device, exponent):
    values = np.array([0.5, 1.5, 2.0, 3.25, 0.75])
    x = tandem.tensor(values, device=device, requires_grad=True)
    tx = torch.tensor(values, requires_grad=True)
    (x ** exponent).sum().backward()
    (tx ** exponent).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), tx.grad.numpy(), rtol=1e-12)
    g, = tandem.autograd.grad((x ** exponent).sum(), x, create_graph=True)
    tg, = torch.autograd.grad((tx ** exponent).sum(), tx, create_graph=True)
    g2, = tandem.autograd.grad(g.sum(), x)
    tg2, = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(g2.cpu().numpy(), tg2.numpy(), rtol=1e-12)


def test_integer_and_complex_bases_keep_their_rules(device):
    ints = tandem.tensor([-3, -1, 0, 2, 5], device=device)
    assert (ints ** 2).tolist() == [9, 1, 0, 4, 25] and (ints ** 2).dtype == tandem.int64
    assert (ints ** 3).tolist() == [-27, -1, 0, 8, 125]
    halves = ints ** 0.5
    assert halves.dtype == tandem.float32
    assert_same_as_pytorch(halves, torch.tensor([-3, -1, 0, 2, 5]) ** 0.5, "float32")
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed."):
        ints ** -1
    z = tandem.tensor([1 + 2j, -0.5 + 0j], device=device)
    np.testing.assert_allclose((z ** 2).cpu().numpy(), np.array([1 + 2j, -0.5 + 0j]) ** 2, rtol=1e-6)
    np.testing.assert_allclose((z ** 0.5).cpu().numpy(), np.array([1 + 2j, -0.5 + 0j], np.complex64) ** 0.5,
                               rtol=1e-6)
