"""tandem.linalg's factorizations and solvers against PyTorch: values, dtypes, shapes, batching, named tuples,
errors (PyTorch's messages) and float64 gradients, on every device."""
import math

import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, from_torch, to_torch

DTYPES = ["float32", "float64"]
SHAPES = [(4, 4), (2, 3, 4, 4)]


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype == "float32" else dict(rtol=1e-9, atol=1e-9)


def rand(shape, dtype, seed=0, spd=False, well=True):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    if spd:
        x = x @ x.mT + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)
    elif well and len(shape) >= 2 and shape[-1] == shape[-2]:
        x = x + shape[-1] * torch.eye(shape[-1], dtype=torch.float64)
    return x.to(getattr(torch, dtype))


def T(x, device):
    return from_torch(x, device)


def linalg_error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001
        return e
    return None


def assert_same_linalg_error(case):
    want, got = linalg_error(lambda: case(torch)), linalg_error(lambda: case(tandem))
    assert isinstance(want, torch.linalg.LinAlgError), want
    assert isinstance(got, tandem.linalg.LinAlgError) and isinstance(got, RuntimeError), got
    assert str(got).split("\nhint:")[0] == str(want)


# ---- values ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_solve_inv_det_slogdet(device, dtype, shape):
    a = rand(shape, dtype)
    b = rand(shape[:-1] + (3,), dtype, seed=1)
    v = rand(shape[:-1], dtype, seed=2)
    A, B, V = T(a, device), T(b, device), T(v, device)
    assert_same(tandem.linalg.solve(A, B), torch.linalg.solve(a, b), device=device, **tol(dtype))
    assert_same(tandem.linalg.solve(A, V), torch.linalg.solve(a, v), **tol(dtype))
    bl = rand(shape[:-2] + (3, shape[-1]), dtype, seed=3)
    assert_same(tandem.linalg.solve(A, T(bl, device), left=False), torch.linalg.solve(a, bl, left=False),
                **tol(dtype))
    r = tandem.linalg.solve_ex(A, B)
    assert_same(r.result, torch.linalg.solve(a, b), **tol(dtype))
    assert_same(r.info, torch.linalg.solve_ex(a, b).info)
    assert_same(tandem.linalg.inv(A), torch.linalg.inv(a), device=device, **tol(dtype))
    assert_same(tandem.inverse(A), torch.inverse(a), **tol(dtype))
    assert_same(A.inverse(), a.inverse(), **tol(dtype))
    ie = tandem.linalg.inv_ex(A)
    assert type(ie).__name__ == "linalg_inv_ex" and ie._fields == ("inverse", "info")
    assert_same(ie.info, torch.linalg.inv_ex(a).info)
    assert_same(tandem.linalg.det(A), torch.linalg.det(a), device=device, **tol(dtype))
    assert_same(tandem.det(A), torch.det(a), **tol(dtype))
    assert_same(A.det(), a.det(), **tol(dtype))
    s = tandem.linalg.slogdet(A)
    e = torch.linalg.slogdet(a)
    assert s._fields == ("sign", "logabsdet")
    assert_same(s.sign, e.sign)
    assert_same(s.logabsdet, e.logabsdet, **tol(dtype))
    assert_same(tandem.slogdet(A)[1], torch.slogdet(a)[1], **tol(dtype))
    assert_same(tandem.logdet(A), torch.logdet(a), **tol(dtype))


def test_solve_broadcasts_batches(device):
    a = rand((3, 1, 4, 4), "float64")
    b = rand((2, 4, 5), "float64", seed=1)
    assert_same(tandem.linalg.solve(T(a, device), T(b, device)), torch.linalg.solve(a, b))


def test_det_of_singular_and_negative(device):
    a = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
    n = torch.tensor([[0.0, 1.0], [1.0, 0.0]], dtype=torch.float64)
    assert_same(tandem.linalg.det(T(a, device)), torch.linalg.det(a))
    assert_same(tandem.linalg.det(T(n, device)), torch.linalg.det(n))
    s, e = tandem.linalg.slogdet(T(a, device)), torch.linalg.slogdet(a)
    assert_same(s.sign, e.sign)
    assert_same(s.logabsdet, e.logabsdet)
    assert_same(tandem.logdet(T(n, device)), torch.logdet(n))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(device, dtype, shape, upper):
    a = rand(shape, dtype, spd=True)
    A = T(a, device)
    assert_same(tandem.linalg.cholesky(A, upper=upper), torch.linalg.cholesky(a, upper=upper), device=device,
                **tol(dtype))
    ex = tandem.linalg.cholesky_ex(A)
    assert ex._fields == ("L", "info")
    assert_same(ex.info, torch.linalg.cholesky_ex(a).info)
    assert_same_error(lambda lib: lib.cholesky(A if lib is tandem else a))  # removed in PyTorch 2.x
    L = torch.linalg.cholesky(a, upper=upper)
    b = rand(shape[:-1] + (2,), dtype, seed=4)
    assert_same(tandem.cholesky_solve(T(b, device), T(L, device), upper=upper), torch.cholesky_solve(b, L, upper=upper),
                **tol(dtype))
    assert_same(tandem.cholesky_inverse(T(L[..., :, :] if len(shape) == 2 else L[0, 0], device), upper=upper),
                torch.cholesky_inverse(L if len(shape) == 2 else L[0, 0], upper=upper), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(device, dtype, shape, mode):
    a = rand(shape, dtype, well=False)
    q, r = tandem.linalg.qr(T(a, device), mode=mode)
    eq, er = torch.linalg.qr(a, mode=mode)
    assert_same(r, er, device=device, **tol(dtype))
    assert_same(q, eq, **tol(dtype))
    assert type(tandem.linalg.qr(T(a, device))).__name__ == "linalg_qr"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(device, dtype, shape, uplo):
    a = rand(shape, dtype, well=False)
    a = a + a.mT if uplo == "L" else torch.triu(a) + torch.triu(a, 1).mT
    w, v = tandem.linalg.eigh(T(a, device), UPLO=uplo)
    ew, ev = torch.linalg.eigh(a, UPLO=uplo)
    assert_same(w, ew, device=device, **tol(dtype))
    # Eigenvectors are unique up to sign: compare after fixing each column's sign.
    vt = to_torch(v)
    sign = torch.sign((vt * ev).sum(-2, keepdim=True))
    torch.testing.assert_close(vt * sign, ev, **tol(dtype))
    assert_same(tandem.linalg.eigvalsh(T(a, device), UPLO=uplo), ew, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (2, 3, 5)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(device, dtype, shape, full):
    a = rand(shape, dtype, well=False)
    u, s, vh = tandem.linalg.svd(T(a, device), full_matrices=full)
    eu, es, evh = torch.linalg.svd(a, full_matrices=full)
    assert_same(s, es, device=device, **tol(dtype))
    assert tuple(u.shape) == tuple(eu.shape) and tuple(vh.shape) == tuple(evh.shape)
    k = min(shape[-2:])
    ut, vht = to_torch(u)[..., :k], to_torch(vh)[..., :k, :]
    torch.testing.assert_close((ut * to_torch(s).unsqueeze(-2)) @ vht, a, **tol(dtype))
    assert_same(tandem.linalg.svdvals(T(a, device)), torch.linalg.svdvals(a), **tol(dtype))
    old = tandem.svd(T(a, device))
    assert old._fields == ("U", "S", "V")
    assert_same(old.S, torch.svd(a).S, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(device, dtype, upper, left, unit):
    a = rand((2, 4, 4), dtype)
    b = rand((2, 4, 3) if left else (2, 3, 4), dtype, seed=5)
    got = tandem.linalg.solve_triangular(T(a, device), T(b, device), upper=upper, left=left, unitriangular=unit)
    want = torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit)
    assert_same(got, want, device=device, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 4, 4), (5, 3), (3, 5)])
def test_lu_family(device, dtype, shape):
    a = rand(shape, dtype, well=False)
    A = T(a, device)
    lu, piv = tandem.linalg.lu_factor(A)
    elu, epiv = torch.linalg.lu_factor(a)
    assert_same(lu, elu, device=device, **tol(dtype))
    assert_same(piv, epiv)
    ex = tandem.linalg.lu_factor_ex(A)
    assert ex._fields == ("LU", "pivots", "info")
    assert_same(ex.info, torch.linalg.lu_factor_ex(a).info)
    P, L, U = tandem.linalg.lu(A)
    eP, eL, eU = torch.linalg.lu(a)
    assert_same(P, eP)
    assert_same(L, eL, **tol(dtype))
    assert_same(U, eU, **tol(dtype))
    if shape[-1] == shape[-2]:
        b = rand(shape[:-1] + (2,), dtype, seed=6)
        for left, adjoint in [(True, False), (True, True)]:
            assert_same(tandem.linalg.lu_solve(lu, piv, T(b, device), left=left, adjoint=adjoint),
                        torch.linalg.lu_solve(elu, epiv, b, left=left, adjoint=adjoint), **tol(dtype))
        bt = b.mT.contiguous()
        assert_same(tandem.linalg.lu_solve(lu, piv, T(bt, device), left=False),
                    torch.linalg.lu_solve(elu, epiv, bt, left=False), **tol(dtype))


@pytest.mark.parametrize("shape", [(6, 3), (3, 6)])
def test_lstsq_full_rank(device, shape):
    a = rand(shape, "float64", well=False)
    b = rand((shape[0], 2), "float64", seed=7)
    want = torch.linalg.lstsq(a, b, driver="gelsd").solution
    got = tandem.linalg.lstsq(T(a, device), T(b, device))
    assert got._fields == ("solution", "residuals", "rank", "singular_values")
    assert_same(got.solution, want, rtol=1e-9, atol=1e-9)


def test_compositions(device):
    a = rand((3, 4, 4), "float64")
    A = T(a, device)
    L = tandem.linalg
    for ord in [None, 2, 1, math.inf, -math.inf, 0, 3.5]:
        assert_same(L.vector_norm(A, ord=2 if ord is None else ord), torch.linalg.vector_norm(a, ord=2 if ord is None else ord))
    assert_same(L.vector_norm(A, 3, dim=(-1,), keepdim=True), torch.linalg.vector_norm(a, 3, dim=(-1,), keepdim=True))
    for ord in ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf]:
        assert_same(L.matrix_norm(A, ord), torch.linalg.matrix_norm(a, ord))
    assert_same(L.norm(A), torch.linalg.norm(a))
    assert_same(L.norm(A[0], 2), torch.linalg.norm(a[0], 2))
    assert_same(L.norm(A, 1, dim=-1), torch.linalg.norm(a, 1, dim=-1))
    assert_same(L.pinv(A), torch.linalg.pinv(a))
    w = rand((5, 3), "float64", well=False)
    assert_same(L.pinv(T(w, device)), torch.linalg.pinv(w))
    r = torch.tensor([[1.0, 2, 3], [2, 4, 6], [0, 1, 0]], dtype=torch.float64)
    assert_same(L.matrix_rank(T(r, device)), torch.linalg.matrix_rank(r))
    for n in [0, 1, 2, 5, -3]:
        assert_same(L.matrix_power(A, n), torch.linalg.matrix_power(a, n))
    assert_same(L.matrix_exp(A * 0.3), torch.linalg.matrix_exp(a * 0.3))
    assert_same(L.cond(A), torch.linalg.cond(a))
    assert_same(L.cond(A, 1), torch.linalg.cond(a, 1))
    assert_same(L.multi_dot([A[0], A[1], A[2]]), torch.linalg.multi_dot([a[0], a[1], a[2]]))
    assert_same(L.vecdot(A, A), torch.linalg.vecdot(a, a))
    x, y = rand((4, 3), "float64", well=False), rand((4, 3), "float64", seed=9, well=False)
    assert_same(L.cross(T(x, device), T(y, device)), torch.linalg.cross(x, y))


def test_empty_matrices(device):
    assert_same(tandem.linalg.inv(T(torch.ones(0, 0), device)), torch.linalg.inv(torch.ones(0, 0)))
    assert_same(tandem.linalg.det(T(torch.ones(0, 0), device)), torch.linalg.det(torch.ones(0, 0)))
    assert_same(tandem.linalg.det(T(torch.ones(0, 3, 3), device)), torch.linalg.det(torch.ones(0, 3, 3)))


# ---- errors ----

def test_singular_and_not_positive_definite_errors(device):
    s = [[1.0, 2.0], [2.0, 4.0]]
    s3 = [[1.0, 0, 0], [0, 1, 0], [0, 0, 0]]

    def m(lib, v, dtype="float64"):
        return lib.tensor(v, dtype=getattr(lib, dtype)).to(device if lib is tandem else "cpu")

    assert_same_linalg_error(lambda lib: lib.linalg.inv(m(lib, s)))
    assert_same_linalg_error(lambda lib: lib.linalg.inv(m(lib, s3)))
    assert_same_linalg_error(lambda lib: lib.linalg.inv(lib.stack([m(lib, [[1.0, 0], [0, 1]]), m(lib, s)])))
    assert_same_linalg_error(lambda lib: lib.linalg.solve(m(lib, s), m(lib, [1.0, 1.0])))
    assert_same_linalg_error(lambda lib: lib.linalg.solve(lib.stack([m(lib, [[1.0, 0], [0, 1]]), m(lib, s)]),
                                                          m(lib, [[1.0, 1.0], [1.0, 1.0]])))
    assert_same_linalg_error(lambda lib: lib.linalg.cholesky(m(lib, s)))
    assert_same_linalg_error(lambda lib: lib.linalg.cholesky(m(lib, [[-1.0, 0], [0, -1]])))
    assert_same_linalg_error(lambda lib: lib.linalg.cholesky(lib.stack([m(lib, [[1.0, 0], [0, 1]]),
                                                                        m(lib, [[-1.0, 0], [0, -1]])])))
    assert_same_error(lambda lib: lib.linalg.lu_factor(m(lib, s)))
    nan = float("nan")
    assert_same_linalg_error(lambda lib: lib.linalg.svd(m(lib, [[nan] * 3] * 3)))
    ex = tandem.linalg.inv_ex(m(tandem, s))
    assert ex.info.item() == 2 and ex.info.dtype == tandem.int32
    assert tandem.linalg.cholesky_ex(m(tandem, [[-1.0, 0], [0, -1]])).info.item() == 1


@pytest.mark.parametrize("dtype", DTYPES + ["complex64", "complex128"])
@pytest.mark.parametrize("n", [17, 40, 129])
def test_inverse_past_the_small_orders(device, dtype, n):
    # Orders above the small-matrix kernels: getri from the LU factors on the CPU, A X = I through lu_solve
    # where the backend has no getri (cuSOLVER, and emulated CUDA which follows it). A singular matrix in the
    # batch gets PyTorch's info and the same pattern of infinities/NaNs, the others their inverses.
    g = torch.Generator().manual_seed(n)
    a = torch.randn(3, n, n, generator=g, dtype=getattr(torch, dtype)) + n * torch.eye(n)
    a[1, :, 2] = 0
    want = torch.linalg.inv_ex(a)
    got = tandem.linalg.inv_ex(T(a, device))
    assert got.inverse.device.type == device.split(":")[0] and got.inverse.stride() == want.inverse.stride()
    assert_same(got.info, want.info)
    tolerance = dict(rtol=1e-3, atol=1e-4) if dtype in ("float32", "complex64") else dict(rtol=1e-9, atol=1e-10)
    assert got.inverse.dtype == getattr(tandem, dtype) and got.inverse.shape == want.inverse.shape
    torch.testing.assert_close(to_torch(got.inverse[0::2]), want.inverse[0::2], **tolerance)
    assert torch.equal(torch.isfinite(to_torch(got.inverse[1])), torch.isfinite(want.inverse[1]))
    with pytest.raises(tandem.linalg.LinAlgError, match=r"^linalg.inv: \(Batch element 1\): The diagonal element 3 "
                                                        r"is zero"):
        tandem.linalg.inv(T(a, device))


def test_argument_errors(device):
    def t(lib, *shape, dtype="float32"):
        return lib.ones(*shape, dtype=getattr(lib, dtype)).to(device if lib is tandem else "cpu")

    cases = [
        lambda lib: lib.linalg.inv(t(lib, 2, 3)),
        lambda lib: lib.linalg.inv(t(lib, 3)),
        lambda lib: lib.linalg.inv(t(lib, 2, 2, dtype="int64")),
        lambda lib: lib.linalg.inv(t(lib, 2, 2, dtype="float16")),
        lambda lib: lib.linalg.det(t(lib, 2, 2, dtype="int64")),
        lambda lib: lib.linalg.det(t(lib, 2, 3)),
        lambda lib: lib.linalg.solve(t(lib, 2, 2), t(lib, 3)),
        lambda lib: lib.linalg.solve(t(lib, 2, 2), t(lib, 2, dtype="float64")),
        lambda lib: lib.linalg.eigh(t(lib, 2, 3)),
        lambda lib: lib.linalg.eigh(t(lib, 2, 2), UPLO="X"),
        lambda lib: lib.linalg.svd(t(lib, 3)),
        lambda lib: lib.linalg.qr(t(lib, 3)),
        lambda lib: lib.linalg.qr(t(lib, 3, 3), mode="x"),
        lambda lib: lib.linalg.cholesky(t(lib, 2, 3)),
        lambda lib: lib.linalg.svd(t(lib, 2, 2, dtype="int32")),
        lambda lib: lib.linalg.qr(t(lib, 2, 2, dtype="int32")),
        lambda lib: lib.linalg.solve(t(lib, 2, 2, dtype="int32"), t(lib, 2, dtype="int32")),
        lambda lib: lib.linalg.cholesky(t(lib, 2, 2, dtype="int32")),
        lambda lib: lib.linalg.slogdet(t(lib, 2, 2, dtype="int32")),
        lambda lib: lib.linalg.solve_triangular(t(lib, 2, 2), t(lib, 3, 1), upper=True),
        lambda lib: lib.linalg.matrix_power(t(lib, 2, 3), 2),
        lambda lib: lib.linalg.lstsq(t(lib, 3, 2), t(lib, 2, 1)),
    ]
    for case in cases:
        assert_same_error(case)


# ---- gradients (float64, against PyTorch's) ----

def grads(lib, fn, *values, device="cpu"):
    leaves = []
    for v in values:
        x = (from_torch(v, device) if lib is tandem else v.clone()).requires_grad_()
        leaves.append(x)
    out = fn(lib, *leaves)
    out.backward()
    return [to_torch(x.grad) if lib is tandem else x.grad for x in leaves]


GRAD_CASES = {
    "solve": (lambda L, a, b: (L.linalg.solve(a, b) * b).sum(), [(3, 4, 4), (3, 4, 2)]),
    "solve_vec": (lambda L, a, b: L.linalg.solve(a, b).pow(2).sum(), [(4, 4), (4,)]),
    "solve_right": (lambda L, a, b: L.linalg.solve(a, b, left=False).sin().sum(), [(4, 4), (2, 4)]),
    "inv": (lambda L, a: (L.linalg.inv(a) * a.mT).sin().sum(), [(2, 4, 4)]),
    "det": (lambda L, a: L.linalg.det(a).sum(), [(2, 4, 4)]),
    "slogdet": (lambda L, a: L.linalg.slogdet(a).logabsdet.sum(), [(2, 4, 4)]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.mT + 4 * L.eye(4, dtype=L.float64, device=a.device)).sin().sum(), [(2, 4, 4)]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a @ a.mT + 4 * L.eye(4, dtype=L.float64, device=a.device), upper=True)
                       .cos().sum(), [(4, 4)]),
    "eigvalsh": (lambda L, a: (L.linalg.eigvalsh(a + a.mT) ** 3).sum(), [(2, 4, 4)]),
    "eigh": (lambda L, a: (L.linalg.eigh(a + a.mT).eigenvectors ** 2 * L.arange(16, dtype=L.float64, device=a.device)
                           .reshape(4, 4)).sum(), [(4, 4)]),
    "svdvals": (lambda L, a: (L.linalg.svdvals(a) ** 3).sum(), [(2, 5, 3)]),
    "svd_tall": (lambda L, a: ((lambda r: (r.U ** 2 * L.arange(15, dtype=L.float64, device=a.device).reshape(5, 3)).sum()
                                + (r.Vh ** 2).sin().sum() + r.S.sum())(L.linalg.svd(a, full_matrices=False))),
                 [(5, 3)]),
    "svd_wide": (lambda L, a: ((lambda r: (r.U ** 2).sin().sum()
                                + (r.Vh ** 2 * L.arange(15, dtype=L.float64, device=a.device).reshape(3, 5)).sum())
                               (L.linalg.svd(a, full_matrices=False))), [(3, 5)]),
    "qr": (lambda L, a: (L.linalg.qr(a).Q.sin().sum() + L.linalg.qr(a).R.cos().sum()), [(5, 3)]),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True).sin().sum(),
                         [(3, 3), (3, 2)]),
    "solve_triangular_unit_right": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, left=False,
                                                                              unitriangular=True).sin().sum(),
                                    [(3, 3), (2, 3)]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution.sin().sum(), [(5, 3), (5, 2)]),
    "pinv": (lambda L, a: L.linalg.pinv(a).sin().sum(), [(4, 3)]),
    "lu_factor": (lambda L, a: L.linalg.lu_factor(a).LU.cos().sum(), [(2, 4, 4)]),
    "lu_wide": (lambda L, a: (lambda r: r.L.sin().sum() + (r.U * r.U).sum())(L.linalg.lu(a)), [(3, 5)]),
    "lu_tall": (lambda L, a: (lambda r: r.L.sin().sum() + (r.U * r.U).sum())(L.linalg.lu(a)), [(5, 3)]),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b).sin().sum(), [(3, 3), (3, 2)]),
    "lu_solve_right_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False,
                                                                 adjoint=True).sin().sum(), [(3, 3), (2, 3)]),
    # The factor's gradient is PyTorch's full matrix, not its triangle (linear_operator compares it with the
    # gradient through L @ L.mT).
    "cholesky_solve_factor": (lambda L, f, b: L.cholesky_solve(b, f.tril() + 3 * L.eye(3, dtype=L.float64,
                                                                                        device=f.device))
                              .sin().sum(), [(3, 3), (2, 3, 2)]),
    "cholesky_solve_upper_factor": (lambda L, f, b: L.cholesky_solve(b, f.triu() + 3 * L.eye(
        3, dtype=L.float64, device=f.device), upper=True).sin().sum(), [(3, 3), (3, 2)]),
    # Only the eigenvalues of eigh are used, with a repeated one: no 0 / 0 from the vectors' term.
    "eigh_values_repeated": (lambda L, a: L.linalg.eigh(a * 0 + L.eye(3, dtype=L.float64, device=a.device) +
                                                        a.sum() * 0).eigenvalues.pow(2).sum(), [(3, 3)]),
    "svd_values_repeated": (lambda L, a: L.linalg.svd(a * 0 + L.eye(3, dtype=L.float64, device=a.device))
                            .S.sum(), [(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_pytorch(device, name):
    fn, shapes = GRAD_CASES[name]
    values = [rand(s, "float64", seed=i) for i, s in enumerate(shapes)]
    want = grads(torch, fn, *values)
    got = grads(tandem, fn, *values, device=device)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-7, atol=1e-7)


def test_gradcheck_solve_and_cholesky():
    a = tandem.tensor(rand((3, 3), "float64").tolist(), dtype=tandem.float64).requires_grad_()
    b = tandem.tensor(rand((3, 2), "float64", seed=1).tolist(), dtype=tandem.float64).requires_grad_()
    assert tandem.autograd.gradcheck(lambda a, b: tandem.linalg.solve(a, b), (a, b))
    assert tandem.autograd.gradcheck(lambda a: tandem.linalg.cholesky(a @ a.mT), (a,))
    assert tandem.autograd.gradcheck(lambda a: tandem.linalg.det(a), (a,))


def test_second_order_gradients(device):
    a = rand((3, 3), "float64")

    def hessian_vector(lib, x):
        x = (from_torch(x, device) if lib is tandem else x.clone()).requires_grad_()
        (g,) = lib.autograd.grad(lib.linalg.inv(x).sum() + lib.linalg.det(x), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        return to_torch(h) if lib is tandem else h

    torch.testing.assert_close(hessian_vector(tandem, a), hessian_vector(torch, a), rtol=1e-7, atol=1e-7)


def test_legacy_aliases_and_methods(device):
    a = rand((4, 4), "float64")
    b = rand((4, 2), "float64", seed=3)
    A, B = T(a, device), T(b, device)
    r, e = tandem.triangular_solve(B, A, upper=False, transpose=True), torch.triangular_solve(b, a, upper=False,
                                                                                              transpose=True)
    assert r._fields == ("solution", "cloned_coefficient")
    assert_same(r.solution, e.solution)
    assert_same(r.cloned_coefficient, e.cloned_coefficient)
    assert_same(A.logdet(), a.logdet())
    assert_same(A.slogdet().logabsdet, a.slogdet().logabsdet)
    s, es = A.svd(), a.svd()
    assert_same(s.S, es.S)
    torch.testing.assert_close(to_torch(s.U) * to_torch(s.S) @ to_torch(s.V).mT, a)
    s0 = tandem.svd(A, compute_uv=False)
    assert_same(s0.U, torch.svd(a, compute_uv=False).U)


def test_gradcheck_eigh_and_svd():
    x = tandem.tensor(rand((3, 3), "float64").tolist(), dtype=tandem.float64).requires_grad_()
    assert tandem.autograd.gradcheck(lambda a: tandem.linalg.eigvalsh(a + a.mT), (x,))
    assert tandem.autograd.gradcheck(lambda a: tandem.linalg.svdvals(a), (x,))
    assert tandem.autograd.gradcheck(lambda a: tandem.linalg.slogdet(a).logabsdet, (x,))


def test_vector_norm_keepdim_without_dim_keeps_every_dim(device):
    x = tandem.arange(6.0, device=device).reshape(2, 3)
    expected = torch.linalg.vector_norm(torch.arange(6.0).reshape(2, 3), keepdim=True)
    for ord in (2, 1, float("inf"), 0):
        got = tandem.linalg.vector_norm(x, ord=ord, keepdim=True)
        assert tuple(got.shape) == (1, 1) and got.device == tandem.device(device)
        want = torch.linalg.vector_norm(torch.arange(6.0).reshape(2, 3), ord=ord, keepdim=True)
        assert abs(got.item() - want.item()) < 1e-5
    assert tuple(expected.shape) == (1, 1)


@pytest.mark.parametrize("case", [
    lambda lib: lib.linalg.vector_norm(lib.arange(6)),
    lambda lib: lib.linalg.vector_norm(lib.arange(6).reshape(2, 3), dim=1),
    lambda lib: lib.linalg.vector_norm(lib.arange(6), dtype=lib.float32),
    lambda lib: lib.linalg.vector_norm(lib.tensor([True, False])),
    lambda lib: lib.linalg.norm(lib.arange(6)),
    lambda lib: lib.linalg.vector_norm(lib.ones(3), dtype=lib.int64),
])
def test_vector_norm_refuses_integer_inputs_and_dtypes(case):
    assert_same_error(case)


@pytest.mark.parametrize("entry", [math.inf, -math.inf, math.nan, 1e30])
def test_matrix_exp_of_non_finite_or_huge_entries_is_nan(entry, device):
    a = torch.tensor([[entry, 0.0], [0.0, 1.0]], dtype=torch.float64)
    want = torch.linalg.matrix_exp(a)
    got = tandem.linalg.matrix_exp(T(a, device))
    assert got.device == tandem.device(device) and got.dtype == tandem.float64
    assert torch.equal(to_torch(got).isnan(), want.isnan())


# ---- errors that name what the user called, in PyTorch's words (session 37) ----------------------------------------
def _error_of(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e), str(e).split("\n")[0]
    raise AssertionError("no error")


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.lu_factor(L.zeros(2, 2, 2)), lambda L: L.linalg.lu_factor(L.ones(2, 3)),
    lambda L: L.linalg.lu_factor_ex(L.zeros(2, 2), check_errors=True),
    lambda L: L.linalg.lu_factor_ex(L.zeros(3, 2, 2), check_errors=True),
    lambda L: L.linalg.lu(L.eye(2), pivot=False),
    lambda L: L.linalg.inv_ex(L.zeros(2, 2, 2), check_errors=True), lambda L: L.linalg.inv(L.zeros(2, 2, 2)),
    lambda L: L.linalg.cholesky_ex(L.zeros(2, 2), check_errors=True), lambda L: L.linalg.cholesky(L.zeros(2, 2)),
    lambda L: L.linalg.solve_ex(L.zeros(2, 2, 2), L.ones(2), check_errors=True),
    lambda L: L.linalg.solve(L.zeros(2, 2), L.ones(2)),
    lambda L: L.det(L.ones(2, 2, dtype=L.float16)), lambda L: L.linalg.eigh(L.eye(2, dtype=L.bfloat16)),
    lambda L: L.linalg.eigvalsh(L.eye(2, dtype=L.int64)), lambda L: L.linalg.cholesky(L.eye(2, dtype=L.float16)),
    lambda L: L.linalg.svd(L.eye(2, dtype=L.float16)), lambda L: L.linalg.qr(L.eye(2, dtype=L.float16)),
    lambda L: L.linalg.lu_factor(L.eye(2, dtype=L.int64)), lambda L: L.linalg.solve(L.eye(2).half(), L.ones(2).half()),
    lambda L: L.linalg.solve_triangular(L.tensor([[2, 0], [1, 1]]), L.ones(2, 1), upper=False),
    lambda L: L.linalg.det(L.eye(2, dtype=L.int64)),
], ids=lambda c: "")
def test_linalg_errors_name_the_function_and_kernel_as_pytorch(call, device):
    want_type, want = _error_of(lambda: call(torch))
    got_type, got = _error_of(lambda: call(_on(tandem, device)))
    assert got.replace("_cuda\"", "_cpu\"") == want
    # PyTorch's LinAlgError is torch._C._LinAlgError; tandem's is tandem.linalg.LinAlgError (a RuntimeError too)
    assert issubclass(want_type, torch.linalg.LinAlgError) == issubclass(got_type, tandem.linalg.LinAlgError)
    assert got_type.__mro__[-3].__name__ == want_type.__mro__[-3].__name__ or \
        {want_type.__name__, got_type.__name__} <= {"_LinAlgError", "LinAlgError"}
    assert issubclass(got_type, RuntimeError) == issubclass(want_type, RuntimeError)
    assert issubclass(got_type, NotImplementedError) == issubclass(want_type, NotImplementedError)


class _on:
    """The library with its factories making tensors on `device` (the calls above name no device)."""
    def __init__(self, lib, device):
        self._lib, self._device = lib, device

    def __getattr__(self, name):
        attr = getattr(self._lib, name)
        if name in ("zeros", "ones", "eye", "tensor"):
            return lambda *a, **k: attr(*a, **k).to(self._device)
        return attr


@pytest.mark.parametrize("b_dtype", ["float64", "float32", "complex64"])
def test_solve_triangular_solves_in_the_dtype_of_a(b_dtype, device):
    import warnings
    a = [[2.0, 0.0], [1.0, 1.0]]
    results = []
    for lib, dev in ((torch, "cpu"), (tandem, device)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = lib.linalg.solve_triangular(lib.tensor(a, device=dev), lib.ones(2, 1, dtype=getattr(lib, b_dtype),
                                                                             device=dev), upper=False)
        results.append((str(x.dtype).split(".")[1], x.cpu().tolist()))
    assert results[0] == results[1]
    # PyTorch warns once per process (TORCH_WARN_ONCE); tandem at each call
    expect = ["Casting complex values to real discards the imaginary part"] if b_dtype == "complex64" else []
    assert [str(w.message) for w in caught] == expect
