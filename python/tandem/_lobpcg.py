"""tandem.lobpcg: PyTorch's torch.lobpcg, the k largest (or smallest) eigenpairs of a symmetric
positive-definite generalized problem A x = lambda B x by LOBPCG (Knyazev 2001), written here over tandem's ops.

Each step builds the trial subspace [X, W, P] (the current Ritz vectors, the preconditioned residuals W = iK R
and the previous update directions P) and keeps the n best Ritz pairs of A in it (the Rayleigh-Ritz
procedure). method="basic" takes the subspace as it is and solves the projected generalized problem through a
Cholesky factor of its Gram matrix S^T B S (cheapest, but fails when the subspace becomes nearly dependent);
method="ortho" (the default) first makes [W, P] B-orthonormal to X and to itself, twice, dropping directions
that are numerically dependent, so the projected problem is a standard symmetric one (robust).

Gradients (B not given) are those of the partial eigendecomposition: with U the k eigenvectors and D their
eigenvalues, gA = U (diag(gD) + F o U^T gU) U^T + Y U^T, F_ij = 1 / (d_j - d_i) off the diagonal, and column j
of Y solving (d_j I - A) y = (I - U U^T) gU_j in the complement of U.
"""
import math

import tandem

from .autograd.function import Function

__all__ = ["lobpcg"]

# The machine epsilons PyTorch's default tolerance is the square root of.
_FEPS = {"float32": 1.2e-07, "float64": 2.23e-16}


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


class _Solver:
    """One LOBPCG run on a single (m, m) problem. A tracker sees this object each iteration: ivars["istep"],
    ivars["converged_count"], tvars["rerr"], E, X, R, and may set bvars["force_stop"] = True."""

    def __init__(self, A, B, X, iK, k, niter, tol, largest, method, ortho):
        self.A, self.B, self.iK = A, B, iK
        self.iparams = {"m": A.shape[-1], "n": X.shape[-1], "k": k, "niter": niter, **ortho.get("i", {})}
        self.fparams = {"tol": tol, **ortho.get("f", {})}
        self.bparams = {"largest": largest, **ortho.get("b", {})}
        self.method = method
        self.ivars = {"istep": 0, "converged_count": 0}
        self.fvars = {}
        self.bvars = {"force_stop": False}
        self.tvars = {}
        self.X0 = X
        self.E = self.X = self.R = self.S = None
        eps = _FEPS[_dtype_name(A)]
        # Directions whose squared norm falls below this fraction of the largest are dropped as dependent.
        self.drop = max(self.fparams.get("ortho_tol_drop", tol), 100 * eps) ** 2

    def b_mul(self, V):
        return V if self.B is None else self.B @ V

    def _orthonormal(self, U):
        """The B-orthonormal basis of U's columns (numerically dependent ones dropped): U V diag(s)^-1/2 from
        the eigendecomposition V diag(s) V^T of the Gram matrix U^T B U."""
        s, V = tandem.linalg.eigh(U.mT @ self.b_mul(U))
        top = float(s[-1]) if s.shape[0] else 0.0
        if top <= 0:
            return U[:, :0]
        keep = int((s > top * self.drop).sum())
        return U @ (V[:, V.shape[1] - keep:] / s[s.shape[0] - keep:].sqrt())

    def _orthonormal_to(self, U, X):
        """U's columns made B-orthogonal to X's (B-orthonormal) and B-orthonormal among themselves (twice:
        one pass of Gram-Schmidt through the Gram matrix loses about half the digits)."""
        passes = self.iparams.get("ortho_i_max", 2)
        for _ in range(max(1, passes)):
            U = U - X @ (X.mT @ self.b_mul(U))
            U = self._orthonormal(U)
            if U.shape[1] == 0:
                break
        return U

    def _pick(self, values, vectors, count):
        """The `count` largest (or smallest) eigenpairs, in that order; eigh gives them ascending."""
        if self.bparams["largest"]:
            values, vectors = values.flip(0), vectors.flip(1)
        return values[:count], vectors[:, :count]

    def _rayleigh_ritz(self, S):
        """The n best Ritz pairs of A in span(S): (values, coefficients C with X = S C)."""
        n = self.iparams["n"]
        T = S.mT @ (self.A @ S)
        T = (T + T.mT) * 0.5
        if self.method == "ortho":
            values, Z = tandem.linalg.eigh(T)
            return self._pick(values, Z, n)
        # basic: the projected problem T z = lambda M z with M = S^T B S, through M = L L^T (None when the
        # subspace is numerically dependent: M is then not positive-definite).
        M = S.mT @ self.b_mul(S)
        L, info = tandem.linalg.cholesky_ex((M + M.mT) * 0.5)
        if int(info) != 0:
            return None
        Li = tandem.linalg.solve_triangular(L, tandem.eye(L.shape[0], dtype=L.dtype, device=L.device), upper=False)
        values, Z = tandem.linalg.eigh(Li @ T @ Li.mT)
        values, Z = self._pick(values, Z, n)
        return values, Li.mT @ Z

    def _residual_errors(self, AX, BX):
        R = AX - BX * self.E
        # Relative residuals ||r_j|| / ((||A|| + |lambda_j| ||B||) ||x_j||).
        denom = (self.a_norm + self.E.abs() * self.b_norm) * _column_norms(self.X)
        return R, (R * R).sum(0).sqrt() / denom

    def run(self):
        A = self.A
        k, tol, niter = self.iparams["k"], self.fparams["tol"], self.iparams["niter"]
        # ||M||_F / sqrt(m): the root mean square of M's eigenvalues, a cheap estimate of ||M||_2 from below.
        root_m = math.sqrt(max(A.shape[-1], 1))
        self.a_norm = float((A * A).sum().sqrt()) / root_m
        self.b_norm = 1.0 if self.B is None else float((self.B * self.B).sum().sqrt()) / root_m
        X = self._orthonormal(self.X0)
        if X.shape[1] < self.iparams["n"]:
            raise ValueError("lobpcg: the initial X has linearly dependent columns (B-rank "
                             f"{X.shape[1]} < n = {self.iparams['n']})\nhint: pass X of full column rank, "
                             "or leave X=None for a random start")
        self.E, C = tandem.linalg.eigh((X.mT @ (A @ X) + (X.mT @ (A @ X)).mT) * 0.5)
        self.E, C = self._pick(self.E, C, X.shape[1])
        self.X = X @ C
        P = None
        while True:
            AX, BX = A @ self.X, self.b_mul(self.X)
            self.R, rerr = self._residual_errors(AX, BX)
            self.tvars["rerr"] = rerr
            converged = rerr[:k] < tol
            self.ivars["converged_count"] = int(converged.sum())
            self.call_tracker()
            if self.ivars["converged_count"] >= k or self.bvars["force_stop"]:
                break
            if 0 <= niter <= self.ivars["istep"]:
                break
            W = self.R if self.iK is None else self.iK @ self.R
            n = self.X.shape[1]
            if self.method == "ortho":
                U = self._orthonormal_to(W if P is None else tandem.cat([W, P], 1), self.X)
                self.S = tandem.cat([self.X, U], 1)
                picked = self._rayleigh_ritz(self.S)
            else:
                # Columns scaled to unit B-norm (the Gram matrix stays well scaled as the residuals shrink);
                # when [X, W, P] is numerically dependent, the step is retried without P (a restart).
                tiny = tandem.finfo(W.dtype).tiny
                W = W / _column_norms(W, self.b_mul(W)).clamp_min(tiny)
                picked = None
                if P is not None:
                    P = P / _column_norms(P, self.b_mul(P)).clamp_min(tiny)
                    U = tandem.cat([W, P], 1)
                    self.S = tandem.cat([self.X, U], 1)
                    picked = self._rayleigh_ritz(self.S)
                if picked is None:
                    U = W
                    self.S = tandem.cat([self.X, U], 1)
                    picked = self._rayleigh_ritz(self.S)
                if picked is None:
                    raise tandem.linalg.LinAlgError(
                        "lobpcg: method='basic' broke down: the trial subspace [X, R] is numerically dependent "
                        "(its Gram matrix is not positive-definite)\nhint: use method='ortho' (the default)")
            self.E, C = picked
            # The new directions: the part of the new Ritz vectors outside the old X.
            P = U @ C[n:, :]
            self.X = self.S @ C
            self.ivars["istep"] += 1
        return self.E[:k], self.X[:, :k]

    def call_tracker(self):
        """Overwritten with the user's tracker (called with this solver each iteration)."""


def _column_norms(X, BX=None):
    """The (B-)norms of X's columns: sqrt(x_j^T B x_j), with BX = B X."""
    return (X * (X if BX is None else BX)).sum(0).sqrt()


def _symmetric_eigen_grad(A, E, U, gE, gU):
    """gA of the k eigenpairs (E, U) of symmetric A (see the module docstring)."""
    m, k = U.shape[-2], U.shape[-1]
    eye_k = tandem.eye(k, dtype=A.dtype, device=A.device)
    inner = gE.unsqueeze(0) * eye_k  # diag(gE)
    gaps = E.unsqueeze(0) - E.unsqueeze(1)  # d_j - d_i at (i, j)
    F = (1 - eye_k) / (gaps + eye_k)
    inner = inner + F * (U.mT @ gU)
    # Y: for each j, (d_j I - A) y_j = P gU_j within the complement of U (P = I - U U^T), through the matrix
    # that is d_j I - A on the complement and the identity on span(U).
    UUt = U @ U.mT
    P = tandem.eye(m, dtype=A.dtype, device=A.device) - UUt
    M = E.reshape(k, 1, 1) * P.unsqueeze(0) - (P @ A @ P).unsqueeze(0) + UUt.unsqueeze(0)
    Y = tandem.linalg.solve(M, (P @ gU).mT.unsqueeze(-1)).squeeze(-1).mT  # (m, k)
    return U @ inner @ U.mT + Y @ U.mT


class LOBPCGAutogradFunction(Function):
    """lobpcg with a gradient for A (B not given), PyTorch's node name."""

    @staticmethod
    def forward(ctx, A, B, run):
        E, X = run(A, B)
        ctx.save_for_backward(A, E, X)
        ctx.has_b = B is not None
        return E, X

    @staticmethod
    def backward(ctx, gE, gX):
        if ctx.has_b:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        A, E, X = ctx.saved_tensors
        # Gradients of unused outputs arrive as None when grads are not materialized.
        gE = tandem.zeros_like(E) if gE is None else gE
        gX = tandem.zeros_like(X) if gX is None else gX
        if A.dim() == 2:
            return _symmetric_eigen_grad(A, E, X, gE, gX), None, None
        flat_A = A.reshape(-1, A.shape[-2], A.shape[-1])
        flat_E, flat_X = E.reshape(-1, E.shape[-1]), X.reshape(-1, X.shape[-2], X.shape[-1])
        gE_flat, gX_flat = gE.reshape(flat_E.shape), gX.reshape(flat_X.shape)
        grads = [_symmetric_eigen_grad(flat_A[i], flat_E[i], flat_X[i], gE_flat[i], gX_flat[i])
                 for i in range(flat_A.shape[0])]
        return tandem.stack(grads, 0).reshape(A.shape), None, None


def lobpcg(A, k=None, B=None, X=None, n=None, iK=None, niter=None, tol=None, largest=None, method=None,
           tracker=None, ortho_iparams=None, ortho_fparams=None, ortho_bparams=None):
    """Find the k largest (or smallest, largest=False) eigenpairs of A x = lambda B x (A symmetric, B symmetric
    positive-definite, identity when not given) for dense A (..., m, m): (E (..., k), X (..., m, k))."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    name = _dtype_name(A)
    if name not in _FEPS:
        raise RuntimeError(f"lobpcg: expected A of dtype float32 or float64, but got {name}\nhint: convert A with "
                           ".double() (or .float()); complex and integer problems are not supported")
    tol = _FEPS[name] ** 0.5 if tol is None else tol
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x "
                         f"the number of requested eigenpairs (={n})")
    method = "ortho" if method is None else method
    if method not in ("ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}\nhint: PyTorch runs 'basic' "
                         "for any other value; pass method='basic' for that")
    niter = 1000 if niter is None else niter
    largest = True if largest is None else largest
    ortho = {}
    if method == "ortho":
        ortho = {"i": dict(ortho_iparams or {}), "f": dict(ortho_fparams or {}), "b": dict(ortho_bparams or {})}

    def solve_one(A_, B_, X_):
        solver = _Solver(A_, B_, X_, iK, k, niter, tol, largest, method, ortho)
        if tracker is not None:
            solver.call_tracker = lambda: tracker(solver)
        return solver.run()

    def run(A_, B_):
        if A_.dim() == 2:
            X_ = tandem.randn(m, n, dtype=A_.dtype, device=A_.device) if X is None else X
            if not (X_.dim() == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f"X shape mismatch: got {X_.shape}, expected {(m, n)}")
            return solve_one(A_, B_, X_)
        batch = tuple(A_.shape[:-2])
        count = 1
        for s in batch:
            count *= s
        bA = A_.reshape(count, m, m)
        bB = B_.reshape(count, m, m) if B_ is not None else None
        bX = X.reshape((count,) + tuple(X.shape[-2:])) if X is not None else None
        Es, Xs = [], []
        for i in range(count):
            X_ = tandem.randn(m, n, dtype=A_.dtype, device=A_.device) if bX is None else bX[i]
            if not (X_.dim() == 2 and tuple(X_.shape) == (m, n)):
                raise AssertionError(f"X_ shape mismatch: got {X_.shape}, expected {(m, n)}")
            E_, V_ = solve_one(bA[i], None if bB is None else bB[i], X_)
            Es.append(E_)
            Xs.append(V_)
        if count == 0:
            return (tandem.empty(batch + (k,), dtype=A_.dtype, device=A_.device),
                    tandem.empty(batch + (m, k), dtype=A_.dtype, device=A_.device))
        return tandem.stack(Es, 0).reshape(batch + (k,)), tandem.stack(Xs, 0).reshape(batch + (m, k))

    needs_grad = tandem.is_grad_enabled() and (A.requires_grad or (B is not None and B.requires_grad))
    if needs_grad:
        # As PyTorch: A (and B) symmetrized first, so the gradient is symmetric.
        A_sym = (A + A.mT) / 2
        B_sym = (B + B.mT) / 2 if B is not None else None
        return LOBPCGAutogradFunction.apply(A_sym, B_sym, run)
    with tandem.no_grad():
        return run(A, B)
