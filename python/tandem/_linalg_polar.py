"""linalg.polar (A = U H, U with orthonormal columns, H Hermitian positive semi-definite) and linalg.matrix_sqrth
(the principal square root of a Hermitian positive-definite matrix), as compositions of tandem's SVD and eigh.

polar's backward is written out rather than left to the SVD's: the SVD's vjp divides by differences of singular
values and so fails for any A with a repeated one (an orthogonal A, say), while the polar factors are smooth
wherever A has full column rank. With H = sqrt(A^H A) and U = A H^-1 the chain rule needs only a Sylvester solve
H X + X H = G, which in H's eigenbasis V is X = V ((V^H G V) / (s_i + s_j)) V^H."""
from . import _C
from ._out import STRUCTURED, with_out
from ._return_types import result_type
from .autograd import Function

_Polar = result_type("linalg_polar", ["U", "H"])


def _check_matrix(name, A):
    if not isinstance(A, _C.Tensor):
        raise TypeError(f"linalg_{name.split('.')[1]}(): argument 'A' (position 1) must be Tensor, not "
                        f"{type(A).__name__}")
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not (A.is_floating_point() or A.is_complex()):
        raise NotImplementedError(f"{name}: Expected a floating point or complex tensor as input. Got "
                                  f"{A.dtype._scalar_type_name}")


def _sandwich(V, middle):
    """V middle V^H."""
    return V.matmul(middle).matmul(V.mH)


def _scale_columns(V, s):
    return V * s.unsqueeze(-2).to(V.dtype)


def _linalg():
    from . import linalg  # noqa: PLC0415  (linalg is imported after this module's functions are defined)
    return linalg


class _PolarDecomposition(Function):
    @staticmethod
    def forward(ctx, A):
        W, S, Vh = _linalg().svd(A, full_matrices=False)
        V = Vh.mH
        U = W.matmul(Vh)
        H = _scale_columns(V, S).matmul(Vh)
        ctx.save_for_backward(A, U, V, S)
        return U, H

    @staticmethod
    def backward(ctx, gU, gH):
        A, U, V, S = ctx.saved_tensors
        s = S.to(V.dtype)
        H_inv = _scale_columns(V, 1 / s).matmul(V.mH)
        # U = A H^-1 sends gU H^-1 to A and -H^-1 A^H gU H^-1 = -U^H gU H^-1 to H
        G = gH
        grad = None
        if gU is not None:
            grad = gU.matmul(H_inv)
            from_u = U.mH.matmul(gU).matmul(H_inv)
            G = -from_u if G is None else G - from_u
        if G is not None:  # H = sqrt(M), M = A^H A: solve H X + X H = G, then A gets A (X + X^H)
            X = _sandwich(V, V.mH.matmul(G).matmul(V) / (s.unsqueeze(-1) + s.unsqueeze(-2)))
            from_h = A.matmul(X + X.mH)
            grad = from_h if grad is None else grad + from_h
        return grad


@with_out("linalg_polar", STRUCTURED)
def polar(A):
    """The polar decomposition A = U H of (a batch of) m x n matrices with m >= n: a named tuple (U, H)."""
    _check_matrix("linalg.polar", A)
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError(f"linalg.polar: input must have at least as many rows as columns, but got {m} by {n} "
                           "matrices")
    U, H = _PolarDecomposition.apply(A)
    return _Polar(U, H)


def matrix_sqrth(A):
    """The Hermitian positive-definite X with X X = A, from A's lower triangle (eigh); eigenvalues below zero
    (rounding on a semi-definite A) count as zero, as PyTorch's."""
    _check_matrix("linalg.matrix_sqrth", A)
    if A.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"linalg.matrix_sqrth: Low precision dtypes not supported. Got "
                                  f"{A.dtype._scalar_type_name}")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_sqrth: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    return _HermitianSquareRoot.apply(A)


class _HermitianSquareRoot(Function):
    """X = V sqrt(w) V^H from eigh; backward is the Sylvester solve X G' + G' X = G (eigh's own vjp would divide
    by eigenvalue gaps, infinite for a repeated eigenvalue)."""

    @staticmethod
    def forward(ctx, A):
        w, V = _linalg().eigh(A)
        root = w.clamp(min=0).sqrt()
        ctx.save_for_backward(V, root)
        return _scale_columns(V, root).matmul(V.mH)

    @staticmethod
    def backward(ctx, grad):
        V, root = ctx.saved_tensors
        r = root.to(V.dtype)
        hermitian = (grad + grad.mH) / 2  # A counts as Hermitian: its gradient is too, as PyTorch's (and eigh's)
        return _sandwich(V, V.mH.matmul(hermitian).matmul(V) / (r.unsqueeze(-1) + r.unsqueeze(-2)))


def install(linalg):
    for name, fn in (("polar", polar), ("matrix_sqrth", matrix_sqrth)):
        if not hasattr(linalg, name):
            setattr(linalg, name, fn)
