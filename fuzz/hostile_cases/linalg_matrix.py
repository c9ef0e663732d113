"""The core torch.linalg functions (inv, det, slogdet, solve, cholesky, eigh, eigvalsh, svd, svdvals, qr, pinv,
matrix_rank, cond, eig, eigvals, matrix_norm, the _ex forms, lu_factor, lu, logdet, inverse) over one list of
hostile inputs, for areas linalg.py and complex_linalg_fft2.py held one case of: 0-d and 1-d inputs, non-square,
0x0, empty batches, integer, bool, half and bfloat16 dtypes, NaN and inf entries, singular and zero matrices,
complex, 1x1, batched transposed (non-contiguous) inputs and a requires_grad input. Results that are unique up to
a sign or phase (eigenvectors, singular vectors) are compared through invariants: the values, and shapes/dtypes
of the vectors."""
import math

from . import R, T, Case

NAN, INF = math.nan, math.inf
SPD = [[4., 1., 2.], [1., 5., 3.], [2., 3., 6.]]


def spd(L, d, dtype="float64"):
    return T(L, SPD, d, dtype)


INPUTS = {
    "ok": lambda L, d: spd(L, d),
    "0d": lambda L, d: T(L, 2.0, d, "float64"),
    "1d": lambda L, d: T(L, [1.0, 2.0, 3.0], d, "float64"),
    "non_square": lambda L, d: R(L, (2, 3), d),
    "empty_0x0": lambda L, d: L.empty(0, 0, device=d, dtype=L.float64),
    "empty_batch": lambda L, d: L.empty(0, 3, 3, device=d, dtype=L.float64),
    "int": lambda L, d: T(L, [[2, 1], [1, 3]], d),
    "bool": lambda L, d: T(L, [[True, False], [False, True]], d),
    "half": lambda L, d: spd(L, d, "float16"),
    "bfloat16": lambda L, d: spd(L, d, "bfloat16"),
    "nan": lambda L, d: T(L, [[4., NAN], [NAN, 5.]], d, "float64"),
    "inf": lambda L, d: T(L, [[INF, 1.], [1., 5.]], d, "float64"),
    "singular": lambda L, d: T(L, [[1., 2.], [2., 4.]], d, "float64"),
    "zeros": lambda L, d: L.zeros(2, 2, device=d, dtype=L.float64),
    "complex": lambda L, d: T(L, [[2 + 0j, 1j], [-1j, 3 + 0j]], d, "complex128"),
    "1x1": lambda L, d: T(L, [[3.0]], d, "float64"),
    "batched_transposed": lambda L, d: (R(L, (2, 3, 3), d) + 10 * L.eye(3, device=d, dtype=L.float64)).mT,
    "requires_grad": lambda L, d: spd(L, d).requires_grad_(),
}


def _sorted_abs(x):
    return x.abs().sort(-1).values


FUNCTIONS = {
    "inv": lambda L, a: L.linalg.inv(a),
    "inverse": lambda L, a: L.inverse(a),
    "inv_ex": lambda L, a: tuple(L.linalg.inv_ex(a)),
    "det": lambda L, a: L.linalg.det(a),
    "logdet": lambda L, a: L.logdet(a),
    "slogdet": lambda L, a: tuple(L.linalg.slogdet(a)),
    "solve": lambda L, a: L.linalg.solve(a, L.ones(a.shape[:-1], dtype=a.dtype, device=a.device)),
    "cholesky": lambda L, a: L.linalg.cholesky(a),
    "cholesky_ex": lambda L, a: tuple(L.linalg.cholesky_ex(a)),
    "eigh": lambda L, a: (L.linalg.eigh(a)[0], tuple(L.linalg.eigh(a)[1].shape)),
    "eigvalsh": lambda L, a: L.linalg.eigvalsh(a),
    "svd": lambda L, a: (L.linalg.svd(a)[1], [tuple(t.shape) for t in L.linalg.svd(a)], str(L.linalg.svd(a)[0].dtype)),
    "svdvals": lambda L, a: L.linalg.svdvals(a),
    "qr": lambda L, a: tuple(L.linalg.qr(a)),
    "pinv": lambda L, a: L.linalg.pinv(a),
    "matrix_rank": lambda L, a: L.linalg.matrix_rank(a),
    "cond": lambda L, a: L.linalg.cond(a),
    "eig": lambda L, a: (_sorted_abs(L.linalg.eig(a)[0]), tuple(L.linalg.eig(a)[1].shape),
                         str(L.linalg.eig(a)[1].dtype)),
    "eigvals": lambda L, a: _sorted_abs(L.linalg.eigvals(a)),
    "matrix_norm_nuc": lambda L, a: L.linalg.matrix_norm(a, "nuc"),
    "matrix_norm_2": lambda L, a: L.linalg.matrix_norm(a, 2),
    "lu_factor": lambda L, a: tuple(L.linalg.lu_factor(a)),
    "lu": lambda L, a: tuple(L.linalg.lu(a)),
}

# inputs whose results are not unique (a singular or NaN matrix's factorization can follow either library's
# pivoting): compared by shape and dtype only
_SHAPE_ONLY = {("pinv", "singular"), ("eig", "nan"), ("eigvals", "nan")}


def _case(fname, iname):
    def fn(L, d):
        return FUNCTIONS[fname](L, INPUTS[iname](L, d))
    return Case(fn, "shape" if (fname, iname) in _SHAPE_ONLY else "close")


CASES = {f"{f}/{i}": _case(f, i) for f in FUNCTIONS for i in INPUTS}

KNOWN = {
    # eigvalsh's checks name linalg.eigh and linalg.lu words its rank check as PyTorch since session 44
    "eigvals/nan": "LAPACK's geev on a NaN matrix: tandem (OpenBLAS) reports that it did not converge; PyTorch's MKL "
                   "build returns values or, run alone, aborts in DGEBAL ('Parameter 3 was incorrect') and segfaults "
                   "(PyTorch's linalg.eig refuses NaN inputs up front; eigvals does not)",
    "qr/inf": ("LAPACK's geqrf on a matrix with an inf: MKL (PyTorch) and OpenBLAS (tandem) leave a different "
               "non-finite R (nan vs 5.0 in one entry); neither is meaningful"),
}
