"""Batches of small matrices in tandem.linalg: on the CPU, orders up to 16 go through tandem's own getrf/getrs/
potrf/potrs loops (kernels/lapack/small_matrix.h) and larger ones through LAPACK. Both sides of that line,
real and complex, against PyTorch: factors, pivots, solutions, `info` codes of singular and indefinite
members of a batch, and that cholesky reads only the triangle it is asked for; on every device."""
import pytest
import torch

import tandem
from oracle import from_torch, to_torch
from oracle import random_matrix as rand

ORDERS = [1, 2, 8, 16, 17, 40]  # 16 is the last order of the small loops
DTYPES = ["float32", "float64", "complex64", "complex128"]


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype in ("float32", "complex64") else dict(rtol=1e-10, atol=1e-10)


def close(got, want, **kw):
    assert tuple(got.shape) == tuple(want.shape)
    torch.testing.assert_close(to_torch(got), want.resolve_conj(), **kw)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
def test_lu_solve_inv(device, dtype, n):
    a, b = rand((5, n, n), dtype), rand((5, n, 3), dtype, seed=1)
    A, B = from_torch(a, device), from_torch(b, device)
    lu, piv = tandem.linalg.lu_factor(A)
    lu_t, piv_t = torch.linalg.lu_factor(a)
    assert to_torch(piv).tolist() == piv_t.tolist()  # the same pivots (first largest |re| + |im|)
    close(lu, lu_t, **tol(dtype))
    for adjoint in (False, True):
        close(tandem.linalg.lu_solve(lu, piv, B, adjoint=adjoint), torch.linalg.lu_solve(lu_t, piv_t, b, adjoint=adjoint),
              **tol(dtype))
    close(tandem.linalg.lu_solve(lu, piv, B.mT, left=False), torch.linalg.lu_solve(lu_t, piv_t, b.mT, left=False),
          **tol(dtype))
    close(tandem.linalg.solve(A, B), torch.linalg.solve(a, b), **tol(dtype))
    close(tandem.linalg.inv(A), torch.linalg.inv(a), **tol(dtype))
    close(tandem.linalg.det(A), torch.linalg.det(a), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", ORDERS)
def test_cholesky_and_solve(device, dtype, n):
    a, b = rand((4, n, n), dtype, hpd=True), rand((4, n, 2), dtype, seed=1)
    for upper in (False, True):
        # only the named triangle is read: the other one holds garbage
        garbage = (a * 7 + 3).triu(1) if not upper else (a * 7 + 3).tril(-1)
        A = from_torch(a + garbage, device)
        L = tandem.linalg.cholesky(A, upper=upper)
        want = torch.linalg.cholesky(a, upper=upper)
        close(L, want, **tol(dtype))
        close(tandem.cholesky_solve(from_torch(b, device), L, upper=upper), torch.cholesky_solve(b, want, upper=upper),
              **tol(dtype))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("n", [8, 17])
def test_info_of_failing_members(device, dtype, n):
    a = rand((3, n, n), dtype, hpd=True)
    singular = a.clone()
    singular[1, :, n // 2] = 0  # column n//2 of member 1 is zero: U[n//2, n//2] == 0 at the latest
    got, want = tandem.linalg.lu_factor_ex(from_torch(singular, device)), torch.linalg.lu_factor_ex(singular)
    assert to_torch(got.info).tolist() == want.info.tolist()
    assert to_torch(got.pivots).tolist() == want.pivots.tolist()
    assert to_torch(tandem.linalg.inv_ex(from_torch(singular, device)).info).tolist() == \
        torch.linalg.inv_ex(singular).info.tolist()
    indefinite = a.clone()
    indefinite[2, n // 2, n // 2] = -100  # the leading minor of order n//2 + 1 is not positive-definite
    got_c, want_c = tandem.linalg.cholesky_ex(from_torch(indefinite, device)), torch.linalg.cholesky_ex(indefinite)
    assert to_torch(got_c.info).tolist() == want_c.info.tolist() == [0, 0, n // 2 + 1]
    close(got_c.L[:2], want_c.L[:2], rtol=1e-10, atol=1e-10)
    with pytest.raises(RuntimeError, match=r"\(Batch element 2\): The factorization could not be completed"):
        tandem.linalg.cholesky(from_torch(indefinite, device))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 4, 7, 8, 9, 14, 19])
def test_right_hand_sides_in_tiles(device, dtype, k):
    # the small solvers take right-hand sides 8 at a time, the rest 4, 2 and 1 at a time (small_matrix.h,
    # RhsTile, for_each_tile): every mix of tile widths gives the same solutions as PyTorch's
    n = 6
    a, b = rand((3, n, n), dtype), rand((3, n, k), dtype, seed=2)
    lu, piv = tandem.linalg.lu_factor(from_torch(a, device))
    lu_t, piv_t = torch.linalg.lu_factor(a)
    for adjoint in (False, True):
        close(tandem.linalg.lu_solve(lu, piv, from_torch(b, device), adjoint=adjoint),
              torch.linalg.lu_solve(lu_t, piv_t, b, adjoint=adjoint), **tol(dtype))
    h = rand((3, n, n), dtype, hpd=True)
    for upper in (False, True):
        f = torch.linalg.cholesky(h, upper=upper)
        close(tandem.cholesky_solve(from_torch(b, device), from_torch(f, device), upper=upper),
              torch.cholesky_solve(b, f, upper=upper), **tol(dtype))
