"""float16 and bfloat16 on the CPU go through block conversions (F16C and AVX2 integer lanes on AVX2 CPUs, a
scalar loop elsewhere): results must be bit-identical to PyTorch's, whose 16-bit float ops also compute in
float32 and round once."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tandem

# Around the 8-element vector and the 256/1024-element blocks, so every head, block edge and tail runs.
LENGTHS = [1, 7, 8, 9, 255, 256, 257, 1023, 1025, 3000]


HALF_TYPES = ["float16", "bfloat16"]


def special_halves(n, seed, dtype="float16"):
    """n 16-bit floats: ordinary ones plus subnormals, signed zeros, the largest finite, and infinities."""
    g = torch.Generator().manual_seed(seed)
    fi = torch.finfo(getattr(torch, dtype))
    x = (torch.randn(n, generator=g) * 300).to(getattr(torch, dtype))
    tiny = fi.smallest_normal * fi.eps  # the smallest subnormal
    specials = torch.tensor([0.0, -0.0, tiny, -tiny, fi.smallest_normal, fi.max, -fi.max, float("inf"),
                             float("-inf")]).to(getattr(torch, dtype))
    k = min(n, len(specials))
    x[:k] = specials[:k]
    return x


def to_tandem(x):
    """The same 16-bit values as a tandem tensor (through int16: NumPy has no bfloat16)."""
    return tandem.from_numpy(x.view(torch.int16).numpy().copy()).view(getattr(tandem, str(x.dtype)[6:]))


def bits(t):
    return t.view(torch.int16) if isinstance(t, torch.Tensor) else torch.from_numpy(t.view(tandem.int16).numpy())


@pytest.mark.parametrize("dtype", HALF_TYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_binary_and_unary_16bit_match_torch_bit_for_bit(n, dtype):
    a, b = special_halves(n, 1, dtype), special_halves(n, 2, dtype)
    ta, tb = to_tandem(a), to_tandem(b)
    # (Not 3.0 / b: PyTorch computes it as b.reciprocal() * 3.0, rounding twice in float16.)
    cases = [
        (ta + tb, a + b), (ta * tb, a * b), (ta - 2.5, a - 2.5), (tb / 3.0, b / 3.0), (ta / tb, a / b),
        (ta + tb[:1], a + b[:1]), (2.0 - tb, 2.0 - b), (tandem.relu(ta), torch.relu(a)), (ta.abs(), a.abs()),
        (-ta, -a), (tb.sqrt(), b.sqrt()), (ta.exp(), a.exp()), (tandem.maximum(ta, tb), torch.maximum(a, b)),
    ]
    for got, want in cases:
        assert got.dtype is getattr(tandem, dtype) and got.shape == tuple(want.shape)
        same_nan = bits(got.isnan().to(tandem.int16)) == want.isnan().to(torch.int16)
        assert same_nan.all()
        keep = ~want.isnan()
        assert torch.equal(bits(got)[keep], bits(want)[keep])


@pytest.mark.parametrize("dtype", HALF_TYPES)
@pytest.mark.parametrize("n", LENGTHS)
def test_16bit_casts_round_like_torch(n, dtype):
    g = torch.Generator().manual_seed(n)
    f = torch.randn(n, generator=g) * torch.logspace(-42, 39, n)  # subnormal to overflowing in both types
    if n >= 3:
        f[:3] = torch.tensor([float("nan"), float("inf"), -float("nan")])
    h = tandem.from_numpy(f.numpy()).to(getattr(tandem, dtype))
    want = f.to(getattr(torch, dtype))
    assert h.dtype is getattr(tandem, dtype)
    keep = ~want.isnan()
    assert torch.equal(bits(h)[keep], bits(want)[keep]) and torch.equal(bits(h.isnan().to(tandem.int16)) == 1,
                                                                      ~keep)
    back = h.float()
    assert back.dtype is tandem.float32
    np.testing.assert_array_equal(back.numpy(), want.float().numpy())


@pytest.mark.parametrize("dtype", HALF_TYPES)
def test_16bit_in_place_and_strided_operands(dtype):
    a, b = special_halves(1000, 3, dtype), special_halves(1000, 4, dtype)
    ta, tb = to_tandem(a), to_tandem(b)
    ta.add_(tb)
    a.add_(b)
    assert torch.equal(bits(ta), bits(a))
    # A non-contiguous operand takes the strided loop: same values.
    assert torch.equal(bits(ta[:999:3] * tb[1::3]), bits(a[:999:3] * b[1::3]))


@pytest.mark.parametrize("dtype", HALF_TYPES)
def test_16bit_folds_and_softmax_match_torch(dtype):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(37, 3000, generator=g).to(getattr(torch, dtype))
    tx = to_tandem(x)
    tol = dict(rtol=2e-3, atol=1e-2) if dtype == "float16" else dict(rtol=2e-2, atol=1e-1)
    np.testing.assert_allclose(tx.sum(dim=1).float().numpy(), x.sum(dim=1).float().numpy(), **tol)
    assert torch.equal(bits(tx.amax(dim=1)), bits(x.amax(dim=1)))
    assert torch.equal(bits(tx.amin(dim=1)), bits(x.amin(dim=1)))
    np.testing.assert_allclose(tx.mean(dim=1).float().numpy(), x.mean(dim=1).float().numpy(), rtol=tol["rtol"],
                               atol=1e-3)
    np.testing.assert_allclose(tx.softmax(dim=1).float().numpy(), x.softmax(dim=1).float().numpy(),
                               atol=1e-3 if dtype == "float16" else 4e-3)
    # within one rounding of the 16-bit result
    np.testing.assert_allclose(tx.log_softmax(dim=1).float().numpy(), x.log_softmax(dim=1).float().numpy(),
                               rtol=torch.finfo(x.dtype).eps, atol=1e-3)
    # the fold in float is closer to the exact sum than PyTorch's: check it against float64
    np.testing.assert_allclose(tx.sum().item(), x.double().sum().item(), rtol=1e-3, atol=1.0)
    y = x.clone()
    y[3, 2999] = float("nan")
    ty = to_tandem(y)
    assert np.isnan(ty.amax(dim=1)[3].item()) and np.isnan(ty.sum(dim=1)[3].item())


def test_scalar_loops_match_when_avx2_is_disabled():
    # Without AVX2 the conversions take the branch-free scalar loop: this file's tests must pass there too.
    env = dict(os.environ, TANDEM_CPU_CAPABILITY="baseline")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not avx2"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
