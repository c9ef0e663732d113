"""torch.linalg.ldl_factor_ex / ldl_factor / ldl_solve against PyTorch on every device: LD and pivots (LAPACK's
Bunch-Kaufman form) for symmetric indefinite, complex symmetric and Hermitian matrices, solutions, batches
(broadcast B), empty batches and zero sizes, singular D, PyTorch's errors and its missing derivatives."""
import pytest
import torch

import tandem
from oracle import assert_close_to_torch, assert_same_error, from_torch, from_torch_resolved, to_torch

DTYPES = ["float32", "float64", "complex64", "complex128"]


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype in ("complex64", "float32") else dict(rtol=1e-10, atol=1e-10)


def sym(shape, dtype, seed=0, hermitian=False):
    """Random symmetric (Hermitian with `hermitian`) indefinite matrices."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.complex128)
    if dtype in ("float32", "float64"):
        x = x.real.clone()
    x = x + (x.mH if hermitian else x.mT)
    return x.to(getattr(torch, dtype))


def rand(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.complex128)
    return (x.real.clone() if dtype in ("float32", "float64") else x).to(getattr(torch, dtype))


T = from_torch_resolved
close = assert_close_to_torch

SHAPES = [(5, 5), (1, 1), (3, 4, 4), (2, 2, 6, 6), (0, 3, 3), (0, 0), (2, 0, 0)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_factor_matches_pytorch(device, dtype, shape, hermitian):
    a = sym(shape, dtype, hermitian=hermitian)
    want = torch.linalg.ldl_factor_ex(a, hermitian=hermitian)
    got = tandem.linalg.ldl_factor_ex(T(a, device), hermitian=hermitian)
    assert type(got).__name__ == "linalg_ldl_factor_ex" and got._fields == ("LD", "pivots", "info")
    close(got.LD, want.LD, device, **tol(dtype))
    close(got.pivots, want.pivots, device)
    close(got.info, want.info, device)
    plain = tandem.linalg.ldl_factor(T(a, device), hermitian=hermitian)
    assert type(plain).__name__ == "linalg_ldl_factor" and plain._fields == ("LD", "pivots")
    assert type(plain) is tandem.return_types.linalg_ldl_factor
    close(plain.LD, want.LD, device, **tol(dtype))
    close(plain.pivots, want.pivots, device)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("hermitian", [False, True])
def test_ldl_solve_matches_pytorch(device, dtype, hermitian):
    a = sym((3, 5, 5), dtype, hermitian=hermitian)
    b = rand((3, 5, 2), dtype, seed=1)
    ld, piv = torch.linalg.ldl_factor(a, hermitian=hermitian)
    want = torch.linalg.ldl_solve(ld, piv, b, hermitian=hermitian)
    got = tandem.linalg.ldl_solve(T(ld, device), T(piv, device), T(b, device), hermitian=hermitian)
    close(got, want, device, **tol(dtype))
    close(got, torch.linalg.solve(a, b), device, **tol(dtype))


def test_ldl_solve_broadcasts_b_and_takes_other_integer_pivots(device):
    a = sym((3, 4, 4), "float64")
    ld, piv = torch.linalg.ldl_factor(a)
    for b in (rand((4, 2), "float64", 1), rand((3, 4, 2), "float64", 2)):
        want = torch.linalg.ldl_solve(ld, piv, b)
        close(tandem.linalg.ldl_solve(T(ld, device), T(piv, device), T(b, device)), want, device, **tol("float64"))
        close(tandem.linalg.ldl_solve(T(ld, device), T(piv.long(), device), T(b, device)), want, **tol("float64"))
    # B's batch broadcast against LD's (PyTorch crashes on this case; the broadcast result is the solve's).
    b = rand((2, 1, 4, 2), "float64", 3)
    got = tandem.linalg.ldl_solve(T(ld, device), T(piv, device), T(b, device))
    close(got, torch.linalg.solve(a, b), device, **tol("float64"))
    # One LD for a batch of B (PyTorch 2.15 returns wrong values for the batch elements after the first here).
    b = rand((3, 4, 2), "float64", 4)
    got = tandem.linalg.ldl_solve(T(ld[:1], device), T(piv[:1], device), T(b, device))
    close(got, torch.linalg.solve(a[:1], b), device, **tol("float64"))


@pytest.mark.parametrize("ld_shape,b_shape", [((0, 0), (0, 3)), ((2, 0, 0), (0, 3)), ((4, 4), (0, 4, 2)),
                                              ((4, 4), (4, 0))])
def test_ldl_solve_empty(device, ld_shape, b_shape):
    ld, piv = torch.linalg.ldl_factor(sym(ld_shape, "float64"))
    b = rand(b_shape, "float64")
    close(tandem.linalg.ldl_solve(T(ld, device), T(piv, device), T(b, device)), torch.linalg.ldl_solve(ld, piv, b),
          device)


def test_keyword_names_are_pytorchs():
    a = sym((4, 4), "float64")
    b = rand((4, 2), "float64", 1)
    want = torch.linalg.ldl_factor_ex(input=a, hermitian=False, check_errors=True)
    got = tandem.linalg.ldl_factor_ex(input=T(a), hermitian=False, check_errors=True)
    close(got.LD, want.LD, **tol("float64"))
    ld, piv = tandem.linalg.ldl_factor(input=T(a))
    close(tandem.linalg.ldl_solve(LD=ld, pivots=piv, B=T(b), hermitian=False), torch.linalg.solve(a, b),
          **tol("float64"))


def test_singular_d(device):
    z = torch.zeros(2, 3, 3, dtype=torch.float64)
    want = torch.linalg.ldl_factor_ex(z)
    got = tandem.linalg.ldl_factor_ex(T(z, device))
    close(got.info, want.info, device)
    close(got.pivots, want.pivots)
    close(got.LD, want.LD)
    # PyTorch raises an internal assert ("Unknown error code: 1."); tandem a LinAlgError naming D's zero.
    for fn in (lambda: tandem.linalg.ldl_factor_ex(T(z, device), check_errors=True),
               lambda: tandem.linalg.ldl_factor(T(z, device))):
        with pytest.raises(tandem.linalg.LinAlgError, match=r"\(Batch element 0\): The factorization could not be "
                                                            r"completed because the block diagonal matrix D is "
                                                            r"singular: D\[0, 0\] is exactly zero \(error code: 1\)"):
            fn()
    with pytest.raises(RuntimeError, match=r"^torch.linalg.ldl_factor: The factorization"):
        tandem.linalg.ldl_factor(T(z[0], device))


def test_no_derivatives_as_pytorch(device):
    def factor(L):
        dev = "cpu" if L is torch else device
        x = (L.eye(3, dtype=L.float64, device=dev) * 2).requires_grad_()
        ld, piv = L.linalg.ldl_factor(x)
        assert ld.requires_grad and not piv.requires_grad and ld.grad_fn.name() == "torch::autograd::NotImplemented"
        ld.sum().backward()

    def solve(L):
        dev = "cpu" if L is torch else device
        a = L.eye(3, dtype=L.float64, device=dev) * 2
        ld, piv = L.linalg.ldl_factor(a)
        b = L.ones(3, 1, dtype=L.float64, device=dev).requires_grad_()
        x = L.linalg.ldl_solve(ld, piv, b)
        assert x.grad_fn.name() == "torch::autograd::NotImplemented"
        x.sum().backward()

    assert_same_error(factor)
    assert_same_error(solve)


def _f(L):
    a = L.tensor([[2.0, 1.0, 0.0, 1.0], [1.0, -3.0, 1.0, 0.0], [0.0, 1.0, 1.0, 2.0], [1.0, 0.0, 2.0, -1.0]],
                 dtype=L.float64)
    return L.linalg.ldl_factor(a)


LDL_ERRORS = [
    lambda L: L.linalg.ldl_factor_ex(L.ones(3)),
    lambda L: L.linalg.ldl_factor_ex(L.ones(3, 4)),
    lambda L: L.linalg.ldl_factor_ex(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.ldl_factor_ex(L.ones(3, 3, dtype=L.bool)),
    lambda L: L.linalg.ldl_factor_ex(L.ones(3, 3, dtype=L.float16)),
    lambda L: L.linalg.ldl_factor(L.ones(3)),
    lambda L: L.linalg.ldl_factor(L.ones(2, 3, 3, dtype=L.bfloat16)),
    lambda L: L.linalg.ldl_solve(_f(L)[0][0], _f(L)[1], L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0][:, :3], _f(L)[1], L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0][:, :3].long(), _f(L)[1], L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0].long(), _f(L)[1], L.ones(4, 2, dtype=L.int64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1], L.ones(4, 2)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1], L.ones(4, 2, dtype=L.complex128)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1], L.ones(4, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1], L.ones(4)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1], L.ones(3, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1][:3], L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1][:3].float(), L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1].unsqueeze(0), L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1].float(), L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], _f(L)[1].bool(), L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0].half(), _f(L)[1], L.ones(4, 2, dtype=L.float16)),
    lambda L: L.linalg.ldl_solve(_f(L)[0].half(), _f(L)[1][:3], L.ones(4, 2, dtype=L.float16)),
    lambda L: L.linalg.ldl_solve(_f(L)[0].expand(2, 4, 4), _f(L)[1].expand(2, 4), L.ones(3, 4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0].expand(2, 4, 4), _f(L)[1], L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], L.tensor([0, 1, 1, 1], dtype=L.int32), L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], L.tensor([9, 1, 1, 1], dtype=L.int32), L.ones(4, 2, dtype=L.float64)),
    lambda L: L.linalg.ldl_solve(_f(L)[0], L.tensor([-5, -5, 1, 1], dtype=L.int32), L.ones(4, 2, dtype=L.float64)),
]


@pytest.mark.parametrize("case", range(len(LDL_ERRORS)))
def test_errors_match_pytorch(case):
    assert_same_error(LDL_ERRORS[case])


@pytest.mark.parametrize("pivots", [[1, 2, 3, -4], [-2, 3, 3, 4], [1, -2, -3, 4]])
def test_ldl_solve_refuses_pivots_sytrs_cannot_follow(device, pivots):
    ld = T(sym((4, 4), "float64"), device)
    with pytest.raises(RuntimeError, match="torch.linalg.ldl_solve: pivots are not in ldl_factor's form"):
        tandem.linalg.ldl_solve(ld, tandem.tensor(pivots, dtype=tandem.int32, device=device),
                                tandem.ones(4, 1, dtype=tandem.float64, device=device))
