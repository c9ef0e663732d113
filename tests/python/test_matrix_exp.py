"""linalg.matrix_exp by Higham's scaling and squaring with Padé approximants (python/tandem/linalg.py): every degree
(3, 5, 7, 9, 13) and the scaled case are reached by the 1-norms below; values and gradients against PyTorch."""
import numpy as np
import pytest

import tandem

torch = pytest.importorskip("torch")

NORMS = [1e-3, 0.1, 0.5, 1.5, 4.0, 60.0]  # degree 3, 5, 7, 9, 13 and 13 after 4 squarings


def _matrix(norm, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal((3, 6, 6))
    if dtype == "complex128":
        a = a + 1j * np.random.default_rng(seed + 1).standard_normal((3, 6, 6))
    return (a * (norm / np.abs(a).sum(-2).max())).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("norm", NORMS)
def test_values_match_pytorch(norm, dtype, device):
    a = _matrix(norm, dtype)
    ours = tandem.linalg.matrix_exp(tandem.tensor(a, device=device))
    theirs = torch.linalg.matrix_exp(torch.tensor(a))
    assert ours.dtype == getattr(tandem, dtype) and ours.device.type == tandem.device(device).type
    scale = max(1.0, float(theirs.abs().max()))
    tol = 2e-6 if dtype == "float32" else 1e-13
    np.testing.assert_allclose(ours.cpu().numpy(), theirs.numpy(), rtol=0, atol=tol * scale)


@pytest.mark.parametrize("norm", [0.1, 4.0, 60.0])
def test_gradients_match_pytorch(norm):
    a = _matrix(norm, "float64")
    w = np.random.default_rng(5).standard_normal(a.shape)
    grads = []
    for lib in (torch, tandem):
        x = lib.tensor(a, requires_grad=True)
        (lib.linalg.matrix_exp(x) * lib.tensor(w)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=0, atol=1e-12 * max(1.0, np.abs(grads[0]).max()))


def test_half_types_are_computed_in_float32():
    for dtype in (tandem.float16, tandem.bfloat16):
        got = tandem.linalg.matrix_exp(tandem.tensor([[0.5, 1.0], [0.0, 1.0]], dtype=dtype))
        assert got.dtype == dtype
        want = torch.linalg.matrix_exp(torch.tensor([[0.5, 1.0], [0.0, 1.0]], dtype=torch.float64))
        np.testing.assert_allclose(got.float().numpy(), want.numpy(), rtol=1e-2)
