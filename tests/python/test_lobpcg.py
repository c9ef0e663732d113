"""tandem.lobpcg against torch.lobpcg and eigh on symmetric positive-definite problems, on every device: the
eigenvalues (largest and smallest, standard and generalized, both methods, float32/float64, batches, given X,
n > k, a preconditioner), eigenvector residuals, PyTorch's errors, and the gradient for A (compared with
PyTorch's on sign-invariant losses)."""
import pytest
import torch

import tandem
from oracle import assert_same_error, from_torch, to_torch


def spd(m, seed=0, dtype=torch.float64, spread=None):
    """A random SPD matrix with eigenvalues 1..m (or `spread`) and its sorted spectrum."""
    g = torch.Generator().manual_seed(seed)
    q = torch.linalg.qr(torch.randn(m, m, generator=g, dtype=torch.float64))[0]
    w = torch.arange(1, m + 1, dtype=torch.float64) if spread is None else spread
    return (q @ torch.diag(w) @ q.T).to(dtype), w


def T(x, device="cpu"):
    return from_torch(x, device)


def tol(dtype):
    return dict(rtol=1e-3, atol=1e-3) if dtype == torch.float32 else dict(rtol=1e-7, atol=1e-7)


def check_pairs(A, B, E, X, dtype):
    """A X = B X diag(E) for the returned pairs, X B-orthonormal."""
    a, e, x = to_torch(A), to_torch(E), to_torch(X)
    b = torch.eye(a.shape[-1], dtype=a.dtype) if B is None else to_torch(B)
    torch.testing.assert_close(a @ x, b @ x * e.unsqueeze(-2), **({k: v * 10 for k, v in tol(dtype).items()}))
    torch.testing.assert_close(x.mT @ b @ x, torch.eye(x.shape[-1], dtype=a.dtype).expand(x.shape[:-2] + (
        x.shape[-1], x.shape[-1])), **({k: v * 10 for k, v in tol(dtype).items()}))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("method", [None, "ortho", "basic"])
@pytest.mark.parametrize("largest", [None, True, False])
@pytest.mark.parametrize("k", [1, 3])
def test_standard_problem_matches_pytorch(device, dtype, method, largest, k):
    a, _ = spd(30, dtype=dtype)
    torch.manual_seed(0)
    want, _ = torch.lobpcg(a, k=k, largest=largest, method=method)
    tandem.manual_seed(0)
    E, X = tandem.lobpcg(T(a, device), k=k, largest=largest, method=method)
    assert E.dtype == X.dtype == T(a).dtype and E.device == X.device == tandem.device(device)
    assert tuple(E.shape) == (k,) and tuple(X.shape) == (30, k)
    torch.testing.assert_close(to_torch(E), want, **tol(dtype))
    check_pairs(T(a), None, E, X, dtype)


@pytest.mark.parametrize("method", ["ortho", "basic"])
@pytest.mark.parametrize("largest", [True, False])
def test_generalized_problem(device, method, largest):
    a, _ = spd(24, seed=1)
    b, _ = spd(24, seed=2, spread=torch.linspace(0.5, 3.0, 24, dtype=torch.float64))
    E, X = tandem.lobpcg(T(a, device), k=2, B=T(b, device), largest=largest, method=method)
    if method == "ortho":  # PyTorch 2.15's "basic" returns [29.09, 29.09] here (its largest eigenvalue twice)
        want, _ = torch.lobpcg(a, k=2, B=b, largest=largest, method=method)
        torch.testing.assert_close(to_torch(E), want, **tol(torch.float64))
    L = torch.linalg.cholesky(b)
    Li = torch.linalg.inv(L)
    exact = torch.linalg.eigvalsh(Li @ a @ Li.T)
    torch.testing.assert_close(to_torch(E), exact.flip(0)[:2] if largest else exact[:2], **tol(torch.float64))
    check_pairs(T(a), T(b), E, X, torch.float64)


def test_batched_given_x_n_and_preconditioner(device):
    a1, _ = spd(21, seed=3)
    a2, _ = spd(21, seed=4, spread=torch.linspace(1.0, 50.0, 21, dtype=torch.float64))
    a = torch.stack([a1, a2])
    x = torch.randn(2, 21, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    want, _ = torch.lobpcg(a, k=2, X=x)
    E, X = tandem.lobpcg(T(a, device), k=2, X=T(x, device))
    assert tuple(E.shape) == (2, 2) and tuple(X.shape) == (2, 21, 2)
    torch.testing.assert_close(to_torch(E), want, **tol(torch.float64))
    check_pairs(T(a), None, E, X, torch.float64)
    # n > k: a larger block, k pairs returned; a preconditioner (the inverse of a shifted A).
    E, X = tandem.lobpcg(T(a1, device), k=2, n=5)
    torch.testing.assert_close(to_torch(E), torch.tensor([21.0, 20.0], dtype=torch.float64), **tol(torch.float64))
    iK = torch.linalg.inv(a1 + torch.eye(21, dtype=torch.float64))
    E, X = tandem.lobpcg(T(a1, device), k=2, largest=False, iK=T(iK, device))
    torch.testing.assert_close(to_torch(E), torch.tensor([1.0, 2.0], dtype=torch.float64), **tol(torch.float64))
    # X alone sets k and n.
    E, X = tandem.lobpcg(T(a1, device), X=T(x[0, :, :3], device))
    assert tuple(E.shape) == (3,)
    torch.testing.assert_close(to_torch(E), torch.tensor([21.0, 20.0, 19.0], dtype=torch.float64),
                               **tol(torch.float64))


def test_tracker_sees_the_iterations(device):
    a, _ = spd(30)
    steps = []

    def tracker(worker):
        steps.append((worker.ivars["istep"], worker.ivars["converged_count"]))
        if worker.ivars["istep"] == 2:
            worker.bvars["force_stop"] = True

    tandem.lobpcg(T(a, device), k=2, tracker=tracker, tol=1e-300)
    assert [s[0] for s in steps] == [0, 1, 2]


def test_empty_batch(device):
    E, X = tandem.lobpcg(tandem.zeros(0, 9, 9, dtype=tandem.float64, device=device), k=2)
    assert tuple(E.shape) == (0, 2) and tuple(X.shape) == (0, 9, 2)


LOBPCG_ERRORS = [
    lambda L: L.lobpcg(L.ones(20, 5, dtype=L.float64), k=2),
    lambda L: L.lobpcg(L.eye(20, dtype=L.float64), k=2, B=L.eye(5, dtype=L.float64)),
    lambda L: L.lobpcg(L.eye(20, dtype=L.float64), k=7),
    lambda L: L.lobpcg(L.eye(20, dtype=L.float64), k=2, n=7),
    lambda L: L.lobpcg(L.eye(20, dtype=L.float64), k=2, X=L.ones(5, 2, dtype=L.float64)),
    lambda L: L.lobpcg(L.eye(20, dtype=L.float64).expand(2, 20, 20), k=2, X=L.ones(2, 5, 2, dtype=L.float64)),
]


@pytest.mark.parametrize("case", range(len(LOBPCG_ERRORS)))
def test_errors_match_pytorch(case):
    assert_same_error(LOBPCG_ERRORS[case])


def test_unsupported_inputs():
    with pytest.raises(RuntimeError, match="lobpcg: expected A of dtype float32 or float64, but got int64"):
        tandem.lobpcg(tandem.ones(9, 9, dtype=tandem.int64))
    with pytest.raises(ValueError, match="method must be 'ortho' or 'basic'"):
        tandem.lobpcg(tandem.eye(9, dtype=tandem.float64), method="foo")


def eig_loss(L, a):
    E, X = L.lobpcg(a, k=2, largest=True)
    return E.sum() + ((X @ X.mT) * a.sin()).sum()  # sign-invariant in the eigenvectors


def test_gradient_matches_pytorch(device):
    a, _ = spd(15, seed=6)
    want_leaf = a.clone().requires_grad_()
    torch.manual_seed(0)
    eig_loss(torch, want_leaf).backward()
    leaf = T(a, device).requires_grad_()
    loss = eig_loss(tandem, leaf)
    E, X = tandem.lobpcg(leaf, k=2)
    assert E.grad_fn.name() == "LOBPCGAutogradFunctionBackward"
    loss.backward()
    torch.testing.assert_close(to_torch(leaf.grad), want_leaf.grad, rtol=1e-5, atol=1e-5)
    # The eigenvalues' gradient alone is U U^T (symmetrized).
    leaf.grad = None
    tandem.lobpcg(leaf, k=3)[0].sum().backward()
    u = torch.linalg.eigh(a)[1][:, -3:]
    torch.testing.assert_close(to_torch(leaf.grad), u @ u.T, rtol=1e-6, atol=1e-6)


def test_gradient_with_b_raises_as_pytorch():
    def case(L):
        a = (L.eye(12, dtype=L.float64) * L.arange(1, 13, dtype=L.float64)).requires_grad_()
        E, X = L.lobpcg(a, k=1, B=L.eye(12, dtype=L.float64))
        E.sum().backward()
    assert_same_error(case)
