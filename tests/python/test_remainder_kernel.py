"""Floating remainder on the CPU: the avx2/avx512 kernels compute fmod from a truncated quotient and one fused
multiply-add (kernels/functors.h, fmod_by_quotient) and fall back to std::fmod where that is not exact (huge
quotients, zero or infinite divisors, NaN). Results must be bit-identical to PyTorch's, on every block edge and
operand layout; the capability test compares the same battery across the avx2 and baseline builds."""
import numpy as np
import pytest
import torch

import tandem

DTYPES = ["float32", "float64", "float16", "bfloat16"]


def operands(n, dtype, seed):
    """n dividends and divisors: ordinary values, exact multiples (zero results of either sign), quotients
    past 2^24 and 2^53, tiny and huge magnitudes, zeros, infinities and NaN."""
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, generator=g, dtype=torch.float64) * torch.logspace(-3, 6, n, dtype=torch.float64)
    b = torch.randn(n, generator=g, dtype=torch.float64) * 7
    b[::5] = torch.randint(-8, 9, (len(b[::5]),), generator=g).double() + 0.5
    a[::7] = b[::7] * torch.randint(-50, 50, (len(a[::7]),), generator=g).double()  # exact multiples
    a[1::11] = 3e38 if dtype != "float64" else 1e300  # quotients far past the exact range
    b[2::13] = 1e-30
    special = torch.tensor([0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1.0, -1.0], dtype=torch.float64)
    a[3::17] = special.repeat(n)[: len(a[3::17])]
    b[4::19] = special.flip(0).repeat(n)[: len(b[4::19])]
    tdtype = getattr(torch, dtype)
    return a.to(tdtype), b.to(tdtype)


def to_tandem(x):
    return tandem.from_numpy(x.view(torch.int16 if x.element_size() == 2 else
                                    {4: torch.int32, 8: torch.int64}[x.element_size()]).numpy().copy()) \
        .view(getattr(tandem, str(x.dtype)[6:]))


def torch_remainder(a, b):
    """torch.remainder, except where its vectorised CPU path gives NaN for finite operands (quotients past the
    float range, e.g. 3e38 % 1e-30): there PyTorch's own scalar path (one element) gives the exact fmod-based
    value, which tandem gives on every path (docs/compat.md)."""
    want = torch.remainder(a, b)
    a, b = torch.broadcast_tensors(torch.as_tensor(a, dtype=want.dtype), torch.as_tensor(b, dtype=want.dtype))
    wrong = want.isnan() & a.isfinite() & b.isfinite() & (b != 0)
    for i in wrong.nonzero().flatten().tolist():
        want[i] = torch.remainder(a[i:i + 1], b[i:i + 1])[0]
    return want


def assert_same_bits(got, want):
    assert got.dtype == getattr(tandem, str(want.dtype)[6:]) and tuple(got.shape) == tuple(want.shape)
    back = torch.from_numpy(got.to(tandem.float64).numpy())
    want64 = want.double()
    nan = want64.isnan()
    assert torch.equal(back.isnan(), nan)
    # same values and the same sign of zero
    assert torch.equal(back[~nan], want64[~nan])
    assert torch.equal(torch.signbit(back[~nan]), torch.signbit(want64[~nan]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 9, 255, 256, 257, 5000])
def test_remainder_matches_torch_bit_for_bit(n, dtype):
    a, b = operands(n, dtype, seed=n)
    ta, tb = to_tandem(a), to_tandem(b)
    want = torch_remainder(a, b)
    assert_same_bits(ta % tb, want)
    assert_same_bits(tandem.remainder(ta, tb), want)
    assert_same_bits(ta % 2.5, torch_remainder(a, 2.5))  # scalar divisor
    assert_same_bits(tandem.remainder(-7.25, tb), torch_remainder(-7.25, b))  # scalar dividend
    m = (n - 1) // 2
    assert_same_bits(ta[:2 * m:2] % tb[1:2 * m:2], torch_remainder(a[:2 * m:2], b[1:2 * m:2]))  # strided
    out = tandem.empty_like(ta)
    tandem.remainder(ta, tb, out=out)
    assert_same_bits(out, want)
    ta.remainder_(tb)
    assert_same_bits(ta, want)


def test_huge_quotients_are_exact_on_every_path():
    # PyTorch 2.15's vectorised CPU remainder returns NaN here (its scalar path and NumPy do not).
    x = tandem.full((64,), 3e38)
    assert (x % 1e-30)[0].item() == pytest.approx(6.1401355e-31, rel=1e-6)
    assert (x[:1] % 1e-30).item() == (x % 1e-30)[0].item()
    np.testing.assert_array_equal((x % 1e-30).numpy(), np.remainder(x.numpy(), np.float32(1e-30)))


def test_remainder_devices_and_integers(device):
    a = tandem.tensor([5.5, -5.5, 1e30, 0.0], device=device)
    assert (a % 2).tolist() == torch.remainder(torch.tensor([5.5, -5.5, 1e30, 0.0]), 2).tolist()
    i = tandem.tensor([7, -7, 0], device=device)
    assert (i % 3).tolist() == [1, 2, 0] and (i % 3).dtype == tandem.int64
    assert (i % -3).tolist() == [-2, -1, 0]
