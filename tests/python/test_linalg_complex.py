"""tandem.linalg on complex64/complex128 (and eig/eigvals on real input) against PyTorch: values, dtypes, shapes,
batching and devices; factorizations with non-unique factors (QR, eigh, svd, eig) through the invariants
PyTorch's documentation gives (reconstruction, unitarity, factor shapes, unique parts); PyTorch's errors; and
the gradients (tandem's gradcheck in complex128, and PyTorch's gradients of real losses)."""
import math

import pytest
import torch

import tandem
from oracle import assert_close_to_torch, assert_same_error, from_torch, from_torch_resolved, raised, random_matrix, to_torch
from tandem.autograd import gradcheck, gradgradcheck

CDTYPES = ["complex64", "complex128"]
SHAPES = [(4, 4), (2, 3, 4, 4)]


def tol(dtype):
    return dict(rtol=1e-4, atol=1e-4) if dtype in ("complex64", "float32") else dict(rtol=1e-9, atol=1e-9)


def rand(shape, dtype="complex128", seed=0, hpd=False, well=True):
    """Random complex (or real) matrices: Hermitian positive-definite with hpd, else well conditioned."""
    return random_matrix(shape, dtype, seed, hpd, well)


T = from_torch_resolved
close = assert_close_to_torch

def eye_like(x):
    return torch.eye(x.shape[-1], dtype=x.dtype).expand(x.shape[:-2] + (x.shape[-1], x.shape[-1]))


# ---- solvers, inverse, determinants ----

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_solve_inv_det_slogdet(device, dtype, shape):
    a, b = rand(shape, dtype), rand(shape[:-1] + (3,), dtype, seed=1)
    v, bl = rand(shape[:-1], dtype, seed=2), rand(shape[:-2] + (3, shape[-1]), dtype, seed=3)
    A, B = T(a, device), T(b, device)
    close(tandem.linalg.solve(A, B), torch.linalg.solve(a, b), device, **tol(dtype))
    close(tandem.linalg.solve(A, T(v, device)), torch.linalg.solve(a, v), **tol(dtype))
    close(tandem.linalg.solve(A, T(bl, device), left=False), torch.linalg.solve(a, bl, left=False), **tol(dtype))
    close(tandem.linalg.inv(A), torch.linalg.inv(a), device, **tol(dtype))
    close(tandem.linalg.det(A), torch.linalg.det(a), device, **tol(dtype))
    got, want = tandem.linalg.slogdet(A), torch.linalg.slogdet(a)
    assert got._fields == ("sign", "logabsdet")
    close(got.sign, want.sign, device, **tol(dtype))  # complex sign, real logabsdet
    close(got.logabsdet, want.logabsdet, device, **tol(dtype))
    close(tandem.logdet(A), torch.logdet(a), device, **tol(dtype))
    ex = tandem.linalg.inv_ex(A)
    assert ex.info.dtype == tandem.int32 and tuple(ex.info.shape) == shape[:-2]
    close(tandem.linalg.solve_ex(A, B).result, torch.linalg.solve(a, b), **tol(dtype))


def test_singular_determinants(device):
    s = torch.tensor([[1, 2j], [2, 4j]], dtype=torch.complex128)
    S = T(s, device)
    close(tandem.linalg.det(S), torch.linalg.det(s), atol=1e-12, rtol=0)
    got, want = tandem.linalg.slogdet(S), torch.linalg.slogdet(s)
    close(got.sign, want.sign)
    assert to_torch(got.logabsdet).item() == -math.inf == want.logabsdet.item()


@pytest.mark.parametrize("dtype", CDTYPES)
def test_lu_family(device, dtype):
    a, b = rand((2, 4, 4), dtype), rand((2, 4, 3), dtype, seed=1)
    A, B = T(a, device), T(b, device)
    lu, piv = tandem.linalg.lu_factor(A)
    tlu, tpiv = torch.linalg.lu_factor(a)
    close(lu, tlu, device, **tol(dtype))
    assert piv.dtype == tandem.int32 and torch.equal(to_torch(piv), tpiv)
    for left in (True, False):
        for adjoint in (True, False):
            rhs, trhs = (B, b) if left else (B.mT, b.mT)
            close(tandem.linalg.lu_solve(lu, piv, rhs, left=left, adjoint=adjoint),
                  torch.linalg.lu_solve(tlu, tpiv, trhs, left=left, adjoint=adjoint), device, **tol(dtype))
    p, lo, up = tandem.linalg.lu(A)
    tp, tl, tu = torch.linalg.lu(a)
    for g, w in ((p, tp), (lo, tl), (up, tu)):
        close(g, w, device, **tol(dtype))
    wide = rand((3, 5), dtype, seed=4)
    for g, w in zip(tandem.linalg.lu(T(wide, device)), torch.linalg.lu(wide)):
        close(g, w, device, **tol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
def test_triangular_and_cholesky(device, dtype):
    h, b = rand((2, 4, 4), dtype, hpd=True), rand((2, 4, 3), dtype, seed=1)
    H, B = T(h, device), T(b, device)
    for upper in (False, True):
        close(tandem.linalg.cholesky(H, upper=upper), torch.linalg.cholesky(h, upper=upper), device, **tol(dtype))
        ex = tandem.linalg.cholesky_ex(H, upper=upper)
        assert to_torch(ex.info).eq(0).all()
        f = torch.linalg.cholesky(h, upper=upper)
        close(tandem.cholesky_solve(B, T(f, device), upper=upper), torch.cholesky_solve(b, f, upper=upper),
              device, **tol(dtype))
        close(tandem.cholesky_inverse(T(f[0], device), upper=upper), torch.cholesky_inverse(f[0], upper=upper),
              device, **tol(dtype))
    a = rand((2, 4, 4), dtype, seed=2)
    for upper in (False, True):
        for left in (True, False):
            for unit in (False, True):
                rhs = b if left else b.mT
                close(tandem.linalg.solve_triangular(T(a, device), T(rhs, device), upper=upper, left=left,
                                                     unitriangular=unit),
                      torch.linalg.solve_triangular(a, rhs, upper=upper, left=left, unitriangular=unit), device,
                      **tol(dtype))


# ---- factorizations with non-unique factors: invariants ----

@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5)])
def test_qr(device, dtype, shape):
    a = rand(shape, dtype, well=False)
    A = T(a, device)
    m, n = shape[-2:]
    for mode in ("reduced", "complete"):
        q, r = tandem.linalg.qr(A, mode=mode)
        tq, tr = torch.linalg.qr(a, mode=mode)
        assert q.dtype == A.dtype and r.dtype == A.dtype and q.device == A.device
        assert tuple(q.shape) == tuple(tq.shape) and tuple(r.shape) == tuple(tr.shape)
        Q, R = to_torch(q), to_torch(r)
        torch.testing.assert_close(Q @ R, a, **tol(dtype))  # A = QR
        torch.testing.assert_close(Q.mH @ Q, eye_like(Q.mH @ Q), **tol(dtype))  # Q has orthonormal columns
        assert torch.equal(R, R.triu())
        # R is unique up to the phases of its rows: |R| matches.
        torch.testing.assert_close(R.abs(), tr.abs(), **tol(dtype))
    q, r = tandem.linalg.qr(A, mode="r")
    assert q.numel() == 0
    torch.testing.assert_close(to_torch(r).abs(), torch.linalg.qr(a, mode="r").R.abs(), **tol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(device, dtype, uplo):
    a = rand((2, 4, 4), dtype, seed=3, well=False)  # not Hermitian: only the UPLO triangle is read
    A = T(a, device)
    w, v = tandem.linalg.eigh(A, UPLO=uplo)
    tw, tv = torch.linalg.eigh(a, UPLO=uplo)
    close(w, tw, device, **tol(dtype))  # real eigenvalues, ascending
    close(tandem.linalg.eigvalsh(A, UPLO=uplo), tw, device, **tol(dtype))
    assert v.dtype == A.dtype
    V = to_torch(v)
    h = tv @ tw.to(a.dtype).diag_embed() @ tv.mH  # the Hermitian matrix that was decomposed
    torch.testing.assert_close(V @ tw.to(a.dtype).diag_embed() @ V.mH, h, **tol(dtype))
    torch.testing.assert_close(V.mH @ V, eye_like(V), **tol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 3), (3, 5)])
def test_svd(device, dtype, shape):
    a = rand(shape, dtype, well=False)
    A = T(a, device)
    real = getattr(torch, "float32" if dtype == "complex64" else "float64")
    want_s = torch.linalg.svdvals(a)
    close(tandem.linalg.svdvals(A), want_s, device, **tol(dtype))
    for full in (False, True):
        u, s, vh = tandem.linalg.svd(A, full_matrices=full)
        tu, ts, tvh = torch.linalg.svd(a, full_matrices=full)
        close(s, ts, device, **tol(dtype))
        assert s.dtype == getattr(tandem, str(real).split(".")[-1])
        assert tuple(u.shape) == tuple(tu.shape) and tuple(vh.shape) == tuple(tvh.shape)
        U, Vh = to_torch(u), to_torch(vh)
        k = ts.shape[-1]
        torch.testing.assert_close(U[..., :k] * ts.to(a.dtype).unsqueeze(-2) @ Vh[..., :k, :], a, **tol(dtype))
        torch.testing.assert_close(U.mH @ U, eye_like(U.mH @ U), **tol(dtype))
        torch.testing.assert_close(Vh @ Vh.mH, eye_like(Vh @ Vh.mH), **tol(dtype))
    old = tandem.svd(A)
    torch.testing.assert_close(to_torch(old.U) * to_torch(old.S).to(a.dtype).unsqueeze(-2) @ to_torch(old.V).mH,
                               a, **tol(dtype))


@pytest.mark.parametrize("dtype", CDTYPES + ["float32", "float64"])
def test_eig(device, dtype):
    a = rand((2, 4, 4), dtype, seed=5, well=False)
    A = T(a, device)
    w, v = tandem.linalg.eig(A)
    tw, tv = torch.linalg.eig(a)
    assert w.dtype == v.dtype == getattr(tandem, str(tw.dtype).split(".")[-1])  # complex, also for real A
    assert w.device == v.device == tandem.device(device)
    assert tuple(w.shape) == tuple(tw.shape) and tuple(v.shape) == tuple(tv.shape)
    W, V = to_torch(w), to_torch(v)
    ac = a.to(tw.dtype)
    # The eigenvalues as a set, A V = V diag(w), and columns of norm 1.
    for i in range(2):
        key = lambda z: (round(z.real, 3), round(z.imag, 3))  # noqa: E731
        got = sorted(W[i].tolist(), key=key)
        want = sorted(tw[i].tolist(), key=key)
        torch.testing.assert_close(torch.tensor(got), torch.tensor(want), **tol(dtype))
    torch.testing.assert_close(ac @ V, V * W.unsqueeze(-2), **tol(dtype))
    torch.testing.assert_close(torch.linalg.vector_norm(V, dim=-2), torch.ones(2, 4, dtype=W.real.dtype),
                               **tol(dtype))
    close(tandem.linalg.eigvals(A), W, device, rtol=0, atol=0)


def test_eig_of_a_real_matrix_with_real_eigenvalues_and_conjugate_pairs(device):
    rot = torch.tensor([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]], dtype=torch.float64)
    w, v = tandem.linalg.eig(T(rot, device))
    tw, tv = torch.linalg.eig(rot)
    close(w, tw, device, rtol=1e-12, atol=1e-12)
    # A conjugate pair of eigenvalues has conjugate eigenvectors; each vector is unique up to its phase.
    V = to_torch(v)
    torch.testing.assert_close(V[:, 1], V[:, 0].conj(), rtol=0, atol=0)
    torch.testing.assert_close(V.abs(), tv.abs(), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(rot.to(V.dtype) @ V, V * to_torch(w).unsqueeze(-2), rtol=1e-12, atol=1e-12)


# ---- functions built on the factorizations ----

@pytest.mark.parametrize("dtype", CDTYPES)
def test_compositions(device, dtype):
    a, b = rand((2, 4, 4), dtype), rand((2, 4, 2), dtype, seed=1)
    tall, wide = rand((5, 3), dtype, seed=2, well=False), rand((3, 5), dtype, seed=3, well=False)
    A = T(a, device)
    k = tol(dtype)
    close(tandem.linalg.lstsq(A, T(b, device)).solution, torch.linalg.lstsq(a, b).solution, device, **k)
    bt = rand((5, 2), dtype, seed=4)
    close(tandem.linalg.lstsq(T(tall, device), T(bt, device)).solution, torch.linalg.lstsq(tall, bt).solution,
          device, **k)
    for x in (tall, wide, a):
        close(tandem.linalg.pinv(T(x, device)), torch.linalg.pinv(x), device, **k)
        close(tandem.linalg.matrix_rank(T(x, device)), torch.linalg.matrix_rank(x), device)
    for ord in ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        close(tandem.linalg.matrix_norm(A, ord), torch.linalg.matrix_norm(a, ord), device, **k)
        close(tandem.linalg.norm(A[0], ord), torch.linalg.norm(a[0], ord), device, **k)
    for p in (None, "fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf):
        close(tandem.linalg.cond(A, p), torch.linalg.cond(a, p), device, rtol=1e-3 if dtype == "complex64" else 1e-9,
              atol=1e-3 if dtype == "complex64" else 1e-9)
    for n in (-2, 0, 3):
        close(tandem.linalg.matrix_power(A, n), torch.linalg.matrix_power(a, n), device, **k)
    close(tandem.linalg.matrix_exp(A * 0.3), torch.linalg.matrix_exp(a * 0.3), device, **k)
    close(tandem.inverse(A), torch.inverse(a), device, **k)


def test_cond_of_singular_matrices_is_inf(device):
    s = torch.tensor([[[1, 2j], [1, 2j]], [[1, 0], [0, 1j]]], dtype=torch.complex128)
    for p in (1, "fro", math.inf):
        close(tandem.linalg.cond(T(s, device), p), torch.linalg.cond(s, p), device)


# ---- errors (PyTorch's messages) ----

def c(lib, rows, dtype="complex128", device="cpu"):
    return lib.tensor(rows, dtype=getattr(lib, dtype)).to(device if lib is tandem else "cpu")


def assert_same_linalg_error(case):
    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert isinstance(want, torch.linalg.LinAlgError), want
    assert isinstance(got, tandem.linalg.LinAlgError) and isinstance(got, RuntimeError), got
    assert str(got).split("\nhint:")[0] == str(want)


def test_singular_and_not_positive_definite(device):
    s = [[1, 2j], [1, 2j]]
    assert_same_linalg_error(lambda lib: lib.linalg.inv(c(lib, s, device=device)))
    assert_same_linalg_error(lambda lib: lib.linalg.inv(c(lib, [[[1, 0], [0, 1]], s], device=device)))
    assert_same_linalg_error(lambda lib: lib.linalg.solve(c(lib, s, device=device), c(lib, [1, 1], device=device)))
    assert_same_linalg_error(lambda lib: lib.linalg.cholesky(c(lib, [[1, 2j], [-2j, 1]], device=device)))
    assert_same_linalg_error(lambda lib: lib.linalg.svd(c(lib, [[math.nan, 0], [0, 1]], device=device)))
    ex = tandem.linalg.cholesky_ex(c(tandem, [[1, 2j], [-2j, 1]], device=device))
    assert ex.info.item() == 2


@pytest.mark.parametrize("case", [
    lambda lib, d: lib.linalg.solve(c(lib, [[1, 0], [0, 1]], device=d), c(lib, [1.0, 1.0], "float64", device=d)),
    lambda lib, d: lib.linalg.solve(c(lib, [[1, 0], [0, 1]], device=d), c(lib, [1.0, 1.0], "complex64", device=d)),
    lambda lib, d: lib.linalg.lu_solve(*lib.linalg.lu_factor(c(lib, [[1, 0], [0, 1]], device=d)),
                                       c(lib, [[1.0], [1.0]], "float64", device=d)),
    lambda lib, d: lib.linalg.eig(lib.ones(2, 3, dtype=lib.complex64).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.eigvals(lib.ones(2, 3, dtype=lib.complex64).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.eig(lib.ones(3, dtype=lib.complex64).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.eig(lib.ones(2, 2, dtype=lib.int64).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.eigvals(lib.ones(2, 2, dtype=lib.bool).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.eig(lib.ones(2, 2, dtype=lib.float16).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.eig(c(lib, [[math.nan, 0], [0, 1]], device=d)),
    lambda lib, d: lib.linalg.eig(c(lib, [[math.inf, 0], [0, 1]], "float32", device=d)),
    lambda lib, d: lib.linalg.eigh(lib.ones(2, 2, dtype=lib.complex64).to(d if lib is tandem else "cpu"), UPLO="X"),
    lambda lib, d: lib.linalg.cholesky(lib.ones(2, 3, dtype=lib.complex128).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.det(lib.ones(2, 3, dtype=lib.complex128).to(d if lib is tandem else "cpu")),
    lambda lib, d: lib.linalg.matrix_norm(lib.ones(2, 2, dtype=lib.complex64).to(d if lib is tandem else "cpu"),
                                          ord=3),
])
def test_argument_errors(device, case):
    assert_same_error(lambda lib: case(lib, device))


def test_eigvals_of_non_finite_input_is_nan(device):
    a = torch.tensor([[math.nan, 0], [0, 1]], dtype=torch.float64)
    got = to_torch(tandem.linalg.eigvals(T(a, device)))
    assert got.dtype == torch.complex128 and got.isnan().any()


# ---- gradients ----

def grads(lib, fn, *values, device="cpu"):
    leaves = [(T(v, device) if lib is tandem else v.clone()).requires_grad_() for v in values]
    fn(lib, *leaves).backward()
    return [to_torch(x.grad) if lib is tandem else x.grad for x in leaves]


def eyec(L, a, n=4):
    return n * L.eye(n, dtype=a.dtype, device=a.device)


def ar(L, like, *shape):
    return L.arange(math.prod(shape), dtype=L.float64, device=like.device).reshape(*shape)


# name: (function of complex128 leaves whose outputs gradcheck checks; a real loss compared with PyTorch's
# gradients; the leaves' shapes). Outputs that depend on the phase of eigen/singular vectors are made invariant
# (abs(), U @ Vh, V diag(w) V^H), as PyTorch's documentation asks of a differentiable use.
GRAD_CASES = {
    "solve": (lambda L, a, b: L.linalg.solve(a, b), lambda L, a, b: (L.linalg.solve(a, b) * b).sum().abs(),
              [(3, 4, 4), (3, 4, 2)]),
    "solve_right": (lambda L, a, b: L.linalg.solve(a, b, left=False),
                    lambda L, a, b: L.linalg.solve(a, b, left=False).sin().sum().real, [(4, 4), (2, 4)]),
    "inv": (lambda L, a: L.linalg.inv(a), lambda L, a: (L.linalg.inv(a) * a.mT).sin().sum().real, [(2, 4, 4)]),
    "det": (lambda L, a: L.linalg.det(a), lambda L, a: L.linalg.det(a).sum().abs(), [(2, 4, 4)]),
    "slogdet": (lambda L, a: L.linalg.slogdet(a),
                lambda L, a: (lambda r: r.logabsdet.sum() + (r.sign * (2 + 1j)).sum().real)(L.linalg.slogdet(a)),
                [(2, 4, 4)]),
    "logdet": (lambda L, a: L.logdet(a), lambda L, a: L.logdet(a).sum().abs(), [(4, 4)]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.mH + eyec(L, a)),
                 lambda L, a: L.linalg.cholesky(a @ a.mH + eyec(L, a)).sin().sum().abs(), [(4, 4)]),
    "cholesky_upper": (lambda L, a: L.linalg.cholesky(a @ a.mH + eyec(L, a), upper=True),
                       lambda L, a: L.linalg.cholesky(a @ a.mH + eyec(L, a), upper=True).cos().sum().real,
                       [(4, 4)]),
    "cholesky_solve": (lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(a @ a.mH + eyec(L, a))),
                       lambda L, b, a: L.cholesky_solve(b, L.linalg.cholesky(a @ a.mH + eyec(L, a))).sin().sum()
                       .abs(), [(4, 2), (4, 4)]),
    "qr_tall": (lambda L, a: L.linalg.qr(a),
                lambda L, a: (lambda r: r.Q.sin().sum().abs() + r.R.cos().sum().real)(L.linalg.qr(a)), [(5, 3)]),
    "qr_square": (lambda L, a: L.linalg.qr(a),
                  lambda L, a: (lambda r: r.Q.sin().sum().abs() + r.R.cos().sum().real)(L.linalg.qr(a)),
                  [(2, 3, 3)]),
    "qr_wide": (lambda L, a: L.linalg.qr(a),
                lambda L, a: (lambda r: r.Q.sin().sum().abs() + r.R.cos().sum().real)(L.linalg.qr(a)), [(2, 3, 5)]),
    "qr_wide_complete": (lambda L, a: L.linalg.qr(a, mode="complete"),
                         lambda L, a: (lambda r: r.Q.sin().sum().abs() + r.R.cos().sum().real)(
                             L.linalg.qr(a, mode="complete")), [(3, 5)]),
    "svd_full_tall": (lambda L, a: (lambda r: (r.S, r.U[:, :3].abs(), r.U[:, :3] @ r.Vh))(L.linalg.svd(a)),
                      lambda L, a: (lambda r: r.S.sum() + r.U.abs().sum() + (r.U[:, :3] @ r.Vh).abs().sum())(
                          L.linalg.svd(a)), [(5, 3)]),
    "svd_full_wide": (lambda L, a: (lambda r: (r.S, r.Vh[:3].abs(), r.U @ r.Vh[:3]))(L.linalg.svd(a)),
                      lambda L, a: (lambda r: r.S.sum() + r.Vh.abs().sum() + (r.U @ r.Vh[:3]).abs().sum())(
                          L.linalg.svd(a)), [(3, 5)]),
    "eigvalsh": (lambda L, a: L.linalg.eigvalsh(a + a.mH), lambda L, a: (L.linalg.eigvalsh(a + a.mH) ** 3).sum(),
                 [(2, 4, 4)]),
    "eigh": (lambda L, a: (lambda r: (r.eigenvalues, r.eigenvectors.abs()))(L.linalg.eigh(a + a.mH)),
             lambda L, a: (L.linalg.eigh(a + a.mH).eigenvectors.abs() ** 2 * ar(L, a, 4, 4)).sum(), [(4, 4)]),
    "eigh_upper": (lambda L, a: (lambda r: r.eigenvectors @ (r.eigenvalues ** 2).to(a.dtype).diag_embed()
                                 @ r.eigenvectors.mH)(L.linalg.eigh(a + a.mH, UPLO="U")),
                   lambda L, a: (lambda r: (r.eigenvectors @ (r.eigenvalues ** 2).to(a.dtype).diag_embed()
                                            @ r.eigenvectors.mH).abs().sum())(L.linalg.eigh(a + a.mH, UPLO="U")),
                   [(4, 4)]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), lambda L, a: (L.linalg.svdvals(a) ** 3).sum(), [(2, 5, 3)]),
    "svd_tall": (lambda L, a: (lambda r: (r.U.abs(), r.S, r.Vh.abs(), r.U @ r.Vh))(L.linalg.svd(a, False)),
                 lambda L, a: (lambda r: (r.U.abs() ** 2).sin().sum() + (r.U @ r.Vh).abs().sum() + r.S.sum())(
                     L.linalg.svd(a, full_matrices=False)), [(5, 3)]),
    "svd_wide": (lambda L, a: (lambda r: (r.U.abs(), r.S, r.Vh.abs(), r.U @ r.Vh))(L.linalg.svd(a, False)),
                 lambda L, a: (lambda r: (r.Vh.abs() ** 2).sin().sum() + (r.U @ r.Vh).real.sum() + r.S.sum())(
                     L.linalg.svd(a, full_matrices=False)), [(3, 5)]),
    "svd_square": (lambda L, a: (lambda r: (r.S, r.U @ r.Vh))(L.linalg.svd(a)),
                   lambda L, a: (lambda r: (r.U @ r.Vh).abs().sum() + r.S.sum())(L.linalg.svd(a)), [(4, 4)]),
    "eigvals": (lambda L, a: L.linalg.eigvals(a), lambda L, a: (L.linalg.eigvals(a) ** 2).sum().abs(), [(4, 4)]),
    "eig": (lambda L, a: (lambda r: (r.eigenvalues, r.eigenvectors.abs()))(L.linalg.eig(a)),
            lambda L, a: (lambda r: (r.eigenvectors.abs() ** 2 * ar(L, a, 4, 4)).sum() + r.eigenvalues.sum().abs())(
                L.linalg.eig(a)), [(4, 4)]),
    "solve_triangular": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
                         lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True).sin().sum().abs(),
                         [(3, 3), (3, 2)]),
    "solve_triangular_unit_right": (
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True).sin().sum()
        .abs(), [(3, 3), (2, 3)]),
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution,
              lambda L, a, b: L.linalg.lstsq(a, b).solution.sin().sum().abs(), [(5, 3), (5, 2)]),
    "pinv": (lambda L, a: L.linalg.pinv(a), lambda L, a: L.linalg.pinv(a).sin().sum().abs(), [(4, 3)]),
    "lu_factor_wide": (lambda L, a: L.linalg.lu_factor(a).LU, lambda L, a: L.linalg.lu_factor(a).LU.cos().sum().abs(),
                       [(3, 5)]),
    "lu_tall": (lambda L, a: L.linalg.lu(a)[1:],
                lambda L, a: (lambda r: r.L.sin().sum().abs() + (r.U * r.U).sum().abs())(L.linalg.lu(a)), [(5, 3)]),
    "lu_square": (lambda L, a: L.linalg.lu(a)[1:],
                  lambda L, a: (lambda r: r.L.sin().sum().abs() + (r.U * r.U).sum().abs())(L.linalg.lu(a)),
                  [(2, 4, 4)]),
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b),
                 lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b).sin().sum().abs(), [(3, 3), (3, 2)]),
    "lu_solve_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
                         lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True).sin().sum().abs(),
                         [(3, 3), (3, 2)]),
    "lu_solve_right": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
                       lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False).sin().sum().abs(),
                       [(3, 3), (2, 3)]),
    "lu_solve_right_adjoint": (
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False, adjoint=True),
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False, adjoint=True).sin().sum().abs(),
        [(3, 3), (2, 3)]),
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a * 0.2), lambda L, a: L.linalg.matrix_exp(a * 0.2).sum().abs(),
                   [(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck_complex128(name):
    fn, _, shapes = GRAD_CASES[name]
    leaves = tuple(T(rand(s, seed=i)).requires_grad_() for i, s in enumerate(shapes))
    assert gradcheck(lambda *xs: fn(tandem, *xs), leaves)


@pytest.mark.parametrize("name", ["solve", "det", "inv", "slogdet", "cholesky", "qr_square", "eigh", "svd_square",
                                  "eig", "lu_solve"])
def test_gradgradcheck_complex128(name):
    fn, _, shapes = GRAD_CASES[name]
    leaves = tuple(T(rand(s[-2:], seed=i)).requires_grad_() for i, s in enumerate(shapes))
    assert gradgradcheck(lambda *xs: fn(tandem, *xs), leaves)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_match_pytorch(device, name):
    _, loss, shapes = GRAD_CASES[name]
    values = [rand(s, seed=i) for i, s in enumerate(shapes)]
    for got, want in zip(grads(tandem, loss, *values, device=device), grads(torch, loss, *values)):
        torch.testing.assert_close(got, want, rtol=1e-7, atol=1e-7)


def test_eig_of_real_input_has_a_real_gradient(device):
    a = rand((4, 4), "float64", seed=3, well=False)
    x = T(a).requires_grad_()
    assert gradcheck(lambda x: (lambda r: (r.eigenvalues, r.eigenvectors.abs()))(tandem.linalg.eig(x)), (x,))

    def loss(L, x):
        r = L.linalg.eig(x)
        return (r.eigenvectors.abs() ** 2 * ar(L, x, 4, 4)).sum() + (r.eigenvalues ** 2).sum().real

    (got,), (want,) = grads(tandem, loss, a, device=device), grads(torch, loss, a)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, want, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("case", [
    lambda L, a: L.linalg.eigh(a + a.mH).eigenvectors.sum().real,
    lambda L, a: L.linalg.svd(a).U.sum().real,
    lambda L, a: L.linalg.svd(a, full_matrices=False).Vh.sum().imag,
    lambda L, a: L.linalg.eig(a).eigenvectors.sum().real,
])
def test_phase_dependent_losses_raise(device, case):
    a = torch.tensor([[1, 2j], [3, 4 + 1j]], dtype=torch.complex128)

    def run(lib):
        x = (T(a, device) if lib is tandem else a.clone()).requires_grad_()
        case(lib, x).backward()

    assert_same_error(run)


def test_second_order_gradients(device):
    a = rand((3, 3), seed=1)

    def hessian_vector(lib, x):
        x = (T(x, device) if lib is tandem else x.clone()).requires_grad_()
        (g,) = lib.autograd.grad((lib.linalg.inv(x).sum() + lib.linalg.det(x)).abs(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g.conj()).real.sum(), x)
        return to_torch(h) if lib is tandem else h

    torch.testing.assert_close(hessian_vector(tandem, a), hessian_vector(torch, a), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3, 3)])
@pytest.mark.parametrize("name", ["det", "slogdet", "inv", "eig", "eigvals", "eigh", "svd", "svdvals", "qr",
                                  "cholesky", "lu", "lu_factor", "pinv", "matrix_rank", "logdet"])
def test_empty_matrices_and_batches(device, shape, name):
    fn = {"logdet": lambda L, a: L.logdet(a)}.get(name, lambda L, a: getattr(L.linalg, name)(a))
    a = torch.zeros(shape, dtype=torch.complex64)
    want, got = fn(torch, a), fn(tandem, T(a, device))
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape) and str(g.dtype).split(".")[-1] == str(w.dtype).split(".")[-1]
        assert g.device == tandem.device(device)


@pytest.mark.parametrize("case", [
    lambda L, d: L.cholesky_solve(L.ones(2, 2, 3, device=d), L.eye(3, device=d)),
    lambda L, d: L.cholesky_solve(L.ones(3, device=d), L.eye(3, device=d)),
    lambda L, d: L.cholesky_solve(L.ones(3, 1, device=d), L.ones(3, device=d)),
    lambda L, d: L.cholesky_solve(L.ones(3, 1, device=d), L.ones(2, 3, device=d)),
    lambda L, d: L.cholesky_solve(L.ones(3, 1, dtype=L.int64, device=d), L.eye(3, dtype=L.int64, device=d)),
    lambda L, d: L.cholesky_solve(L.ones(3, 1, dtype=L.int64, device=d), L.eye(3, device=d)),
    lambda L, d: L.cholesky_solve(L.ones(2, 1, dtype=L.float64, device=d), L.eye(2, dtype=L.complex64, device=d)),
    lambda L, d: L.cholesky_inverse(L.ones(3, device=d)),
    lambda L, d: L.cholesky_inverse(L.ones(2, 3, dtype=L.complex64, device=d)),
    lambda L, d: L.cholesky_inverse(L.ones(2, 2, dtype=L.int32, device=d)),
])
def test_cholesky_solve_errors(case):
    assert_same_error(lambda lib: case(lib, "cpu"))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_det_gradient_of_singular_matrices(device, dtype):
    # A batch with a rank-3 and a rank-2 matrix next to a regular one: PyTorch's adjugate (SVD) form.
    x = rand((3, 4, 4), dtype, seed=7, well=False)
    x[0, :, 3] = x[0, :, 0] + x[0, :, 1]
    x[1, :, 2] = x[1, :, 0]
    x[1, :, 3] = 2 * x[1, :, 0]

    def loss(L, a):
        return (L.linalg.det(a) * (1 + 2j)).real.sum() if dtype == "complex128" else L.linalg.det(a).sum()

    (got,), (want,) = grads(tandem, loss, x, device=device), grads(torch, loss, x)
    torch.testing.assert_close(got, want, rtol=1e-9, atol=1e-9)
    assert want[0].abs().max() > 0.1  # the adjugate of a rank n-1 matrix is not zero


@pytest.mark.parametrize("dtype", ["float64", "complex128", "complex64"])
# 'gels' assumes a full-rank A; the others give the minimum-norm solution of a rank-deficient one too.
@pytest.mark.parametrize("driver,deficient", [(None, False), ("gels", False), ("gelsy", False), ("gelsd", False),
                                              ("gelss", False), (None, True), ("gelsy", True), ("gelsd", True),
                                              ("gelss", True)])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((5, 3), (5,)), ((3, 5), (3, 2)), ((2, 5, 3), (2, 5))])
def test_lstsq_drivers(dtype, driver, shapes, deficient):
    a, b = rand(shapes[0], dtype, seed=1, well=False), rand(shapes[1], dtype, seed=2, well=False)
    if deficient:
        a[..., 2] = a[..., 0]
    got, want = tandem.linalg.lstsq(T(a), T(b), driver=driver), torch.linalg.lstsq(a, b, driver=driver)
    assert got._fields == ("solution", "residuals", "rank", "singular_values")
    for g, w in zip(got, want):
        close(g, w, rtol=1e-3 if dtype == "complex64" else 1e-8, atol=1e-3 if dtype == "complex64" else 1e-8)


def test_lstsq_errors_and_cuda_driver(device):
    a, b = rand((5, 3)), rand((5, 2), seed=1)
    for case in (lambda L, A, B: L.linalg.lstsq(A, B, driver="foo"),
                 lambda L, A, B: L.linalg.lstsq(A, B.to(L.complex64)),
                 lambda L, A, B: L.linalg.lstsq(A, B[:4]),
                 lambda L, A, B: L.linalg.lstsq(A[0], B)):
        assert_same_error(lambda lib: case(lib, *((T(a), T(b)) if lib is tandem else (a, b))))
    if device != "cpu":  # PyTorch's CUDA rule: gels only, and by default
        with pytest.raises(RuntimeError, match="^torch.linalg.lstsq: `driver` other than `gels` is not supported"):
            tandem.linalg.lstsq(T(a, device), T(b, device), driver="gelsd")
        got = tandem.linalg.lstsq(T(a, device), T(b, device))
        close(got.solution, torch.linalg.lstsq(a, b, driver="gels").solution, device, rtol=1e-9, atol=1e-9)
        close(got.residuals, torch.linalg.lstsq(a, b, driver="gels").residuals, device, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_hermitian_pinv_and_rank(device, dtype):
    a = rand((2, 4, 4), dtype, seed=4, well=False)  # not Hermitian: eigh reads the lower triangle, as PyTorch
    h = a + a.mH
    h[0, :, 3] = 0
    h[0, 3, :] = 0  # a singular Hermitian matrix
    for x in (a, h):
        for kw in ({}, {"rtol": 0.3}, {"atol": 1.0}):
            close(tandem.linalg.pinv(T(x, device), hermitian=True, **kw), torch.linalg.pinv(x, hermitian=True, **kw),
                  device, rtol=1e-9, atol=1e-9)
            close(tandem.linalg.matrix_rank(T(x, device), hermitian=True, **kw),
                  torch.linalg.matrix_rank(x, hermitian=True, **kw), device)
    if device == "cpu":
        assert_same_error(lambda lib: lib.linalg.svd(lib.ones(2, 2), driver="gesvd"))
        assert_same_error(lambda lib: lib.linalg.svdvals(lib.ones(2, 2), driver="gesvd"))


@pytest.mark.parametrize("mode", ["r", "complete"])
def test_qr_backward_errors(device, mode):
    a = rand((5, 3), "float64")

    def run(lib):
        x = (T(a, device) if lib is tandem else a.clone()).requires_grad_()
        r = lib.linalg.qr(x, mode=mode)  # the forward is recorded; backward raises, as in PyTorch
        r.R.sum().backward()

    assert_same_error(run)
