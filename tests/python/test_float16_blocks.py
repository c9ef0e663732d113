"""float16 on the CPU goes through block conversions (F16C on AVX2 CPUs, a scalar loop elsewhere): results
must be bit-identical to PyTorch's, whose float16 ops also compute in float32 and round once."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tandem

# Around the 8-element vector and the 256/1024-element blocks, so every head, block edge and tail runs.
LENGTHS = [1, 7, 8, 9, 255, 256, 257, 1023, 1025, 3000]


def special_halves(n, seed):
    """n float16 values: ordinary ones plus subnormals, signed zeros, the largest finite, and infinities."""
    g = torch.Generator().manual_seed(seed)
    x = (torch.randn(n, generator=g) * 300).half()
    specials = torch.tensor([0.0, -0.0, 6e-8, -6e-8, 6.1e-5, 65504.0, -65504.0, float("inf"), float("-inf")]).half()
    k = min(n, len(specials))
    x[:k] = specials[:k]
    return x


def bits(t):
    return t.view(torch.int16) if isinstance(t, torch.Tensor) else bits(torch.from_numpy(t.numpy()))


@pytest.mark.parametrize("n", LENGTHS)
def test_binary_and_unary_float16_match_torch_bit_for_bit(n):
    a, b = special_halves(n, 1), special_halves(n, 2)
    ta, tb = tandem.from_numpy(a.numpy()), tandem.from_numpy(b.numpy())
    # (Not 3.0 / b: PyTorch computes it as b.reciprocal() * 3.0, rounding twice in float16.)
    cases = [
        (ta + tb, a + b), (ta * tb, a * b), (ta - 2.5, a - 2.5), (tb / 3.0, b / 3.0), (ta / tb, a / b),
        (ta + tb[:1], a + b[:1]), (tandem.relu(ta), torch.relu(a)), (ta.abs(), a.abs()), (-ta, -a),
        (tb.sqrt(), b.sqrt()),
    ]
    for got, want in cases:
        assert got.dtype is tandem.float16 and got.shape == tuple(want.shape)
        same_nan = np.isnan(got.numpy()) == want.isnan().numpy()
        assert same_nan.all()
        keep = ~want.isnan()
        assert torch.equal(bits(got)[keep], bits(want)[keep])


@pytest.mark.parametrize("n", LENGTHS)
def test_float16_casts_round_like_torch(n):
    g = torch.Generator().manual_seed(n)
    f = torch.randn(n, generator=g) * torch.logspace(-9, 5, n)  # subnormal to overflowing
    h = tandem.from_numpy(f.numpy()).half()
    assert h.dtype is tandem.float16
    assert torch.equal(bits(h), bits(f.half()))
    back = h.float()
    assert back.dtype is tandem.float32
    assert np.array_equal(back.numpy(), f.half().float().numpy())


def test_float16_in_place_and_strided_operands():
    a, b = special_halves(1000, 3), special_halves(1000, 4)
    ta, tb = tandem.from_numpy(a.numpy().copy()), tandem.from_numpy(b.numpy())
    ta.add_(tb)
    a.add_(b)
    assert torch.equal(bits(ta), bits(a))
    # A non-contiguous operand takes the strided loop: same values.
    assert torch.equal(bits(ta[:999:3] * tb[1::3]), bits(a[:999:3] * b[1::3]))


def test_float16_folds_and_softmax_match_torch():
    g = torch.Generator().manual_seed(5)
    x = torch.randn(37, 3000, generator=g).half()
    tx = tandem.from_numpy(x.numpy())
    np.testing.assert_allclose(tx.sum(dim=1).float().numpy(), x.sum(dim=1).float().numpy(), rtol=2e-3, atol=1e-2)
    assert torch.equal(bits(tx.amax(dim=1)), bits(x.amax(dim=1)))
    assert torch.equal(bits(tx.amin(dim=1)), bits(x.amin(dim=1)))
    np.testing.assert_allclose(tx.mean(dim=1).float().numpy(), x.mean(dim=1).float().numpy(), rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(tx.softmax(dim=1).float().numpy(), x.softmax(dim=1).float().numpy(), atol=1e-3)
    y = x.clone()
    y[3, 2999] = float("nan")
    ty = tandem.from_numpy(y.numpy())
    assert np.isnan(ty.amax(dim=1)[3].item()) and np.isnan(ty.sum(dim=1)[3].item())


def test_scalar_loops_match_when_avx2_is_disabled():
    # Without AVX2 the conversions take the branch-free scalar loop: this file's tests must pass there too.
    env = dict(os.environ, TANDEM_CPU_CAPABILITY="baseline")
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", __file__, "-k", "not avx2"],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
