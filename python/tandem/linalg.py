"""tandem.linalg: PyTorch's torch.linalg for float32/float64/complex64/complex128 tensors on every device.

The factorizations and solvers are C++ front ends over LAPACK (CPU) and cuSOLVER (CUDA), bound as private
_C functions; this module gives them PyTorch's public names, keyword arguments and named-tuple results. The
remaining functions (norms, pinv, matrix_rank, matrix_power, matrix_exp, cond, multi_dot, vecdot, cross) are
compositions of those and of tandem's ops, as in _compositions.py. eig/eigvals return complex tensors for real
inputs too, as PyTorch does.
"""
import math as _math
import operator as _operator

from . import _C
from ._autocast import active as _amp_active, run as _amp_run

from ._dim_args import _check_reduction_args
from ._finfo import finfo as _finfo
from ._multi_dot_checks import check_multi_dot as _check_multi_dot
from ._out import CASTABLE, MULTI_DOT_DTYPE, STRUCTURED, with_out
from ._return_types import result_type as _result  # tandem.return_types.<name>

_LAPACK_DTYPES = (_C.float32, _C.float64, _C.complex64, _C.complex128)

# An extension built before the linalg bindings existed has no _LinAlgError: the module still imports (its
# decompositions then fail with an AttributeError naming the missing binding).
# As in PyTorch, the class keeps its extension name (torch._C._LinAlgError): tracebacks and type(e).__name__ show it.
LinAlgError = _C._LinAlgError


_SolveEx = _result("linalg_solve_ex", ["result", "info"])
_InvEx = _result("linalg_inv_ex", ["inverse", "info"])
_Slogdet = _result("linalg_slogdet", ["sign", "logabsdet"])
_CholeskyEx = _result("linalg_cholesky_ex", ["L", "info"])
_Qr = _result("linalg_qr", ["Q", "R"])
_Eigh = _result("linalg_eigh", ["eigenvalues", "eigenvectors"])
_Svd = _result("linalg_svd", ["U", "S", "Vh"])
_Eig = _result("linalg_eig", ["eigenvalues", "eigenvectors"])
_LuFactor = _result("linalg_lu_factor", ["LU", "pivots"])
_LuFactorEx = _result("linalg_lu_factor_ex", ["LU", "pivots", "info"])
_Lu = _result("linalg_lu", ["P", "L", "U"])
_Lstsq = _result("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
_LdlFactorEx = _result("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
_LdlFactor = _result("linalg_ldl_factor", ["LD", "pivots"])
_Geqrf = _result("geqrf", ["a", "tau"])
_OldSvd = _result("svd", ["U", "S", "V"])
_OldSlogdet = _result("slogdet", ["sign", "logabsdet"])


# ormqr's out= dtype message (PyTorch's, its missing space included).
_ORMQR_DTYPE = ("torch.ormqr: Expected input and result to have the same dtype, but input has dtype{result} and "
                "result has dtype {out}")


@with_out("linalg.solve_ex", STRUCTURED, grad_name="_linalg_solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False):
    return _SolveEx(*_C._linalg_solve_ex(A, B, left, check_errors))


@with_out("linalg.solve", STRUCTURED, grad_name="_linalg_solve_ex")
def solve(A, B, *, left=True):
    return _C._linalg_solve(A, B, left)


@with_out("linalg.inv_ex", STRUCTURED, grad_name="linalg_inv_ex")
def inv_ex(A, *, check_errors=False):
    return _InvEx(*_C._linalg_inv_ex(A, check_errors))


@with_out("linalg.inv", STRUCTURED, grad_name="linalg_inv_ex")
def inv(A):
    return _C._linalg_inv(A)


@with_out("linalg.det", STRUCTURED, grad_name="_linalg_det")
def det(A):
    return _C._linalg_det(A)


@with_out("linalg.slogdet", STRUCTURED, grad_name="_linalg_slogdet")
def slogdet(A):
    return _Slogdet(*_C._linalg_slogdet(A))


@with_out("slogdet", STRUCTURED, grad_name="_linalg_slogdet")
def _slogdet_old(input):
    """tandem.slogdet / Tensor.slogdet: linalg.slogdet's values under PyTorch's older return type."""
    return _OldSlogdet(*_C._linalg_slogdet(input))


@with_out("linalg.cholesky_ex", STRUCTURED, grad_name="linalg_cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False):
    return _CholeskyEx(*_C._linalg_cholesky_ex(A, upper, check_errors))


@with_out("linalg.cholesky", STRUCTURED, grad_name="linalg_cholesky_ex")
def cholesky(A, *, upper=False):
    return _C._linalg_cholesky(A, upper)


@with_out("linalg.qr", STRUCTURED)
def qr(A, mode="reduced"):
    return _Qr(*_C._linalg_qr(A, mode))


@with_out("linalg.eigh", STRUCTURED, grad_name="_linalg_eigh")
def eigh(A, UPLO="L"):
    return _Eigh(*_C._linalg_eigh(A, UPLO))


@with_out("linalg.eigvalsh", STRUCTURED, grad_name="_linalg_eigh")
def eigvalsh(A, UPLO="L"):
    return _C._linalg_eigvalsh(A, UPLO)


@with_out("linalg.svd", STRUCTURED, grad_name="_linalg_svd")
def svd(A, full_matrices=True, *, driver=None):
    _check_driver(A, driver)
    return _Svd(*_C._linalg_svd(A, full_matrices))


@with_out("linalg.svdvals", STRUCTURED, grad_name="_linalg_svd")
def svdvals(A, *, driver=None):
    _check_driver(A, driver)
    return _C._linalg_svdvals(A)


_REQUIRED = object()


@with_out("linalg.solve_triangular", "expected scalar type {result} but found {out}")
def solve_triangular(A, B, *, upper=_REQUIRED, left=True, unitriangular=False):
    if upper is _REQUIRED:  # required, with PyTorch's parser message
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    return _C._linalg_solve_triangular(A, B, upper, left, unitriangular)


@with_out("linalg.lu_factor_ex", STRUCTURED)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    return _LuFactorEx(*_C._linalg_lu_factor_ex(A, pivot, check_errors))


@with_out("linalg.lu_factor", STRUCTURED, grad_name="linalg_lu_factor_ex")
def lu_factor(A, *, pivot=True):
    return _LuFactor(*_C._linalg_lu_factor(A, pivot))


@with_out("linalg.lu", STRUCTURED)
def lu(A, *, pivot=True):
    return _Lu(*_C._linalg_lu(A, pivot))


@with_out("linalg.lu_solve", STRUCTURED)
def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    return _C._linalg_lu_solve(LU, pivots, B, left, adjoint)


@with_out("linalg.eig", CASTABLE)
def eig(A):
    return _Eig(*_C._linalg_eig(A))


# PyTorch's eigvals is a composition: with out= it writes the values of an input that requires grad.
@with_out("linalg.eigvals", CASTABLE, refuse_grad=False)
def eigvals(A):
    return _C._linalg_eigvals(A)


# PyTorch's keyword names: `input` (not A) for these three.
@with_out("linalg.householder_product", CASTABLE)
def householder_product(input, tau):
    return _C._linalg_householder_product(input, tau)


@with_out("linalg.ldl_factor_ex", STRUCTURED)
def ldl_factor_ex(input, *, hermitian=False, check_errors=False):
    return _LdlFactorEx(*_C._linalg_ldl_factor_ex(input, hermitian, check_errors))


@with_out("linalg.ldl_factor", STRUCTURED)
def ldl_factor(input, *, hermitian=False):
    return _LdlFactor(*_C._linalg_ldl_factor(input, hermitian))


@with_out("linalg.ldl_solve", STRUCTURED)
def ldl_solve(LD, pivots, B, *, hermitian=False):
    return _C._linalg_ldl_solve(LD, pivots, B, hermitian)


# ---- compositions ----

@with_out("linalg.lstsq", CASTABLE)
def lstsq(A, B, rcond=None, *, driver=None):
    """Least squares as PyTorch's drivers give it: 'gels' (the CUDA default; full-rank A) through QR, with the
    residuals when m > n; 'gelsy' (the CPU default), 'gelsd' and 'gelss' as the minimum-norm solution through the
    SVD (any rank) with the rank (singular values below rcond * the largest dropped), 'gelsd'/'gelss' also with
    A's singular values and, when m > n and A has full rank, the residuals."""
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.dim() < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A.dtype not in _LAPACK_DTYPES:  # float16/bfloat16 too: PyTorch's LAPACK-backed check
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {A.dtype._scalar_type_name} and other's dtype {B.dtype._scalar_type_name}")
    cuda = A.device.type == "cuda"
    if driver is None:
        driver = "gels" if cuda else "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if cuda and driver != "gels":
        raise RuntimeError("torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA")
    if not 0 <= A.dim() - B.dim() <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size({-1 if vector else -2})")
    m, n = A.shape[-2], A.shape[-1]
    real = _C.empty(0, dtype=A.dtype).abs().dtype  # the real dtype of A's (singular values, residuals)
    empty = _C.empty(0, dtype=real, device=A.device)
    rank = _C.empty(0, dtype=_C.int64, device=A.device)
    S = empty
    if driver == "gels":
        if m >= n:
            Q, R = qr(A)
            X = solve_triangular(R, Q.mH @ Bm, upper=True)
        else:
            Q, R = qr(A.mH)
            X = Q @ solve_triangular(R.mH, Bm, upper=False)
        full_rank = True
    else:
        if rcond is None:
            rcond = _finfo(real).eps * max(m, n)
        sv = svdvals(A)
        smax = sv.amax(-1, keepdim=True) if sv.shape[-1] > 0 else sv
        rank = (sv > smax * rcond).sum(-1)
        X = pinv(A, rtol=rcond) @ Bm
        full_rank = bool((rank == n).all()) if rank.numel() else True
        if driver != "gelsy":
            S = sv
    residuals = empty
    if m > n and driver != "gelsy" and full_rank:
        residuals = (A @ X - Bm).abs().pow(2).sum(-2)
    if vector:
        X = X.squeeze(-1)
    return _Lstsq(X, residuals, rank, S)


def _scalar_text(value):
    """A number as PyTorch's messages print a Scalar: 2, -2 (an integral float too), 1.5, inf, 1e+20."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    return f"{float(value):g}"


def _check_floating_or_complex(A, name, low_precision=True):
    if not (A.is_floating_point() or A.is_complex()):
        raise NotImplementedError(f"{name}: Expected a floating point or complex tensor as input. "
                                  f"Got {A.dtype._scalar_type_name}")
    if not low_precision and A.dtype in (_C.float16, _C.bfloat16):
        raise NotImplementedError(f"{name}: Low precision dtypes not supported. Got {A.dtype._scalar_type_name}")


def _check_norm_dtype(name, x_dtype, dtype):
    """PyTorch's dtype= rules for the norms: floating or complex, complex exactly for complex inputs, and no
    narrowing of the input's dtype."""
    if dtype is None:
        return
    if not dtype.is_floating_point and not dtype.is_complex:
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got {dtype._scalar_type_name}")
    if x_dtype.is_complex != dtype.is_complex:
        kind = "complex" if x_dtype.is_complex else "real"
        raise RuntimeError(f"{name}: dtype should be {kind} for {kind} inputs, but got {dtype._scalar_type_name}")
    if _C.promote_types(x_dtype, dtype) != dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({x_dtype._scalar_type_name}) should be convertible "
                           f"without narrowing to the specified dtype ({dtype._scalar_type_name})")


@with_out("linalg.vector_norm", STRUCTURED, grad_name="linalg_vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    if isinstance(ord, (str, bytes)) or not hasattr(ord, "__float__"):  # PyTorch's parser takes a number
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    dim = _check_reduction_args("linalg_vector_norm", dim, keepdim, dtype)  # the parser's, before the dtype checks
    _check_floating_or_complex(x, "linalg.vector_norm")  # PyTorch refuses integer and bool, even with dtype=
    _check_norm_dtype("linalg.vector_norm", x.dtype, dtype)
    if dtype is not None:
        x = x.to(dtype)
    if x.dtype in (_C.float16, _C.bfloat16):  # PyTorch accumulates in float32 and rounds once (no overflow)
        return vector_norm(x.float(), ord, dim, keepdim).to(x.dtype)
    if isinstance(dim, int):
        dim = (dim,)
    if x.numel() == 0 and (ord < 0 or ord == _math.inf):  # amax/amin/negative powers have no identity
        if dim is None or len(dim) == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_text(ord)} norm on an empty tensor "
                               f"because the operation does not have an identity")
        for d in dim:
            if x.shape[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_text(ord)} norm on the "
                                   f"dimension {d}because this dimension is empty and the operation does not have "
                                   f"an identity")
    if dim is None and keepdim and x.dim():  # every dim reduced, each kept as size 1 (PyTorch's shape)
        dim = tuple(range(x.dim()))
    a = x.abs()
    if ord == _math.inf:
        return a.amax(dim=dim, keepdim=keepdim) if dim is not None else a.amax()
    if ord == -_math.inf:
        return a.amin(dim=dim, keepdim=keepdim) if dim is not None else a.amin()
    if ord == 0:
        return (a != 0).to(a.dtype).sum(dim=dim, keepdim=keepdim) if dim is not None else (a != 0).to(a.dtype).sum()
    if ord != 1 and a.requires_grad and _C.is_grad_enabled():
        return _vector_norm_masked(a, ord, dim, keepdim)
    s = (a.pow(ord)).sum(dim=dim, keepdim=keepdim) if dim is not None else a.pow(ord).sum()
    return s.pow(1.0 / ord)


def _vector_norm_masked(a, ord, dim, keepdim):
    """sum(|x|^ord)^(1/ord) with PyTorch's gradient where it has no derivative: 0 for a norm of 0 (an all-zero row,
    where the root's derivative is infinite) and, for ord < 1, 0 at the zero elements (|x|^(ord-1) is infinite
    there; a negative ord's |0|^ord stays inf): PyTorch's backward masks them; the masked_fills here do the same (a
    plain pow gives 0 * inf = NaN)."""
    if ord < 1:
        zero_elements = a == 0
        powered = a.masked_fill(zero_elements, 1.0).pow(ord).masked_fill(zero_elements, 0.0 if ord > 0 else _math.inf)
    else:
        powered = a.pow(ord)
    s = powered.sum(dim=dim, keepdim=keepdim) if dim is not None else powered.sum()
    zero = s == 0
    return s.masked_fill(zero, 1.0).pow(1.0 / ord).masked_fill(zero, 0.0)


def _dims_text(dim):
    return " ".join(str(d) for d in dim)


@with_out("linalg.matrix_norm", "linalg.matrix_norm expected out tensor dtype {result} but got: {out}",
          refuse_grad=False)
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    # PyTorch's order of checks: the order, A's rank and dtype (no 16-bit floats where an SVD is needed), dim,
    # then dtype=.
    if isinstance(ord, bytes):  # PyTorch's parser decodes bytes for its str overload
        ord = ord.decode()
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    elif abs(ord) not in (1, 2, _math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {_scalar_text(ord)} not supported.")
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _check_floating_or_complex(A, "linalg.matrix_norm", low_precision=ord != "nuc" and (
        isinstance(ord, str) or abs(ord) != 2))
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {_dims_text(dim)}")
    for d in dim:
        if not -A.dim() <= d < A.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of [{-A.dim()}, {A.dim() - 1}], but "
                             f"got {d})")
    d0, d1 = (d % A.dim() for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    _check_norm_dtype("linalg.matrix_norm", A.dtype, dtype)
    if dtype is not None:
        A = A.to(dtype)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord == "nuc" or ord in (2, -2):
        M = A.movedim((d0, d1), (-2, -1)) if hasattr(A, "movedim") else A
        S = svdvals(M)
        # the largest of no singular values is 0, as PyTorch's (the smallest is amin's error)
        r = S.sum(-1) if ord == "nuc" or (ord == 2 and S.shape[-1] == 0) else (
            S.amax(-1) if ord == 2 else S.amin(-1))
        if keepdim:
            r = r.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return r
    # PyTorch's order: sum |A| over one dim, then the max/min over the other (its index shifted when the first
    # reduction removed a dim before it), so an empty matrix's errors name PyTorch's dims; a max over nothing is 0
    sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
    s = A.abs().sum(dim=sum_dim, keepdim=keepdim)
    if not keepdim and sum_dim < red_dim:
        red_dim -= 1
    if ord < 0:
        return s.amin(dim=red_dim, keepdim=keepdim)
    return s.amax(dim=red_dim, keepdim=keepdim) if s.shape[red_dim] else s.sum(dim=red_dim, keepdim=keepdim)


@with_out("linalg.norm", "linalg.norm expected out tensor dtype {result} but got: {out}", refuse_grad=False)
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if ord is None and dim is None and keepdim is False and dtype is None:
        # a NumPy array alone: PyTorch's TypeError, not an AttributeError (with more arguments its parser lists
        # both overloads instead)
        from ._dim_args import _require_tensor
        _require_tensor("linalg_norm", "input", A, 1)
    if isinstance(ord, bytes):  # PyTorch's parser decodes bytes for its str overload
        ord = ord.decode()
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None:
        dim = tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                           f"{A.dim()}D.")
    if ord is None:
        if dim is not None and len(dim) == 2:
            return matrix_norm(A, "fro", dim, keepdim, dtype=dtype)
        return vector_norm(A.flatten() if dim is None else A, 2, dim, keepdim, dtype=dtype)
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and A.dim() == 2):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, ord, dim, keepdim, dtype=dtype)


def _check_driver(A, driver):
    if driver is not None and A.device.type != "cuda":
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")


def _invalid_tolerance_call(fn, legacy, args, kwargs):
    """PyTorch's parser error for pinv / matrix_rank: the argument types given and the four overloads."""
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    forms = "".join(f" * (Tensor input, *, {t} atol = None, {t} rtol = None, bool hermitian = False, "
                    "Tensor out = None)\n" for t in ("Tensor", "float"))
    forms += "".join(f" * (Tensor input, {t} {legacy}, bool hermitian = False, *, Tensor out = None)\n"
                     for t in ("Tensor", "float"))
    raise TypeError(f"{fn}() received an invalid combination of arguments - got ({', '.join(got)}), but expected "
                    f"one of:\n{forms}")


def _tolerance_arguments(fn, legacy, A, args, kwargs):
    """(atol, rtol, hermitian) from PyTorch's two forms: keyword atol= / rtol= (and hermitian=), or the legacy
    positional tolerance (`tol` of matrix_rank is an atol, `rcond` of pinv an rtol) with hermitian after it."""
    names = (legacy, "hermitian")
    given = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in given or k not in (legacy, "hermitian", "atol", "rtol"):
            _invalid_tolerance_call(fn, legacy, (A,) + args, kwargs)
        given[k] = v
    numbers = (int, float)
    if len(args) > 2 or (legacy in given and ("atol" in given or "rtol" in given)):
        _invalid_tolerance_call(fn, legacy, (A,) + args, kwargs)
    for k, v in given.items():
        ok = isinstance(v, bool) if k == "hermitian" else (
            v is None or isinstance(v, _C.Tensor) or (isinstance(v, numbers) and not isinstance(v, bool)))
        if not ok or (k == legacy and v is None):
            _invalid_tolerance_call(fn, legacy, (A,) + args, kwargs)
    hermitian = given.get("hermitian", False)
    if legacy in given:
        value = given[legacy]
        return (value, 0.0) if legacy == "tol" else (0.0, value), hermitian
    return (given.get("atol"), given.get("rtol")), hermitian


def _tolerance(fn, A, S, atol, rtol):
    """max(atol, rtol * largest singular value) per matrix, shaped (..., 1), with PyTorch's defaults: rtol is
    eps * max(m, n), or 0 where atol is given and positive."""
    for name, tol in (("atol", atol), ("rtol", rtol)):
        if isinstance(tol, _C.Tensor) and tol.is_complex():
            raise RuntimeError(f"{fn}: {name} tensor of complex type is not supported. Got "
                               f"{tol.dtype._scalar_type_name}")
    default = max(A.shape[-2], A.shape[-1]) * _finfo(S.dtype).eps
    if rtol is None:
        if isinstance(atol, _C.Tensor):
            rtol = _C.where(atol > 0, 0.0, default)
        else:
            rtol = 0.0 if atol is not None and atol > 0 else default
    as_column = lambda t: t.unsqueeze(-1) if isinstance(t, _C.Tensor) else t  # noqa: E731
    smax = S.amax(-1, keepdim=True) if S.shape[-1] > 0 else S
    tol = as_column(rtol) * smax
    if atol is not None:
        tol = _C.maximum(tol, as_column(atol) if isinstance(atol, _C.Tensor) else _C.full_like(tol, atol))
    return tol


@with_out("linalg.pinv", CASTABLE, grad_name="linalg_pinv")
def pinv(A, *args, **kwargs):
    """Through the SVD, or with hermitian=True (PyTorch's rule) through eigh of A's lower triangle: the
    singular values are |eigenvalues| and A^+ = V diag(1 / w) V^H over the kept ones. Takes PyTorch's forms
    pinv(A, *, atol=, rtol=, hermitian=) and pinv(A, rcond, hermitian) (rcond is a relative tolerance)."""
    (atol, rtol), hermitian = _tolerance_arguments("linalg_pinv", "rcond", A, args, kwargs)
    if A.dtype not in (_C.float32, _C.float64, _C.complex64, _C.complex128) or A.dim() < 2:
        raise RuntimeError(f"linalg.pinv({A.dtype._scalar_type_name}{{{list(A.shape)}}}): expected a tensor with 2 "
                           "or more dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        w, V = eigh(A)
        S = w.abs()
    else:
        U, S, Vh = svd(A, full_matrices=False)
    tol = _tolerance("torch.linalg.pinv", A, S, atol, rtol)
    if hermitian:
        w_inv = _C.where(S > tol, 1.0 / w, _C.zeros_like(w))
        return (V * w_inv.unsqueeze(-2).to(A.dtype)) @ V.mH
    S_inv = _C.where(S > tol, 1.0 / S, _C.zeros_like(S))
    return (Vh.mH * S_inv.unsqueeze(-2).to(A.dtype)) @ U.mH


@with_out("linalg.matrix_rank", CASTABLE, refuse_grad=False)
def matrix_rank(A, *args, **kwargs):
    """The number of singular values above the tolerance. Takes PyTorch's forms matrix_rank(A, *, atol=, rtol=,
    hermitian=) and matrix_rank(A, tol, hermitian) (tol is an absolute tolerance)."""
    (atol, rtol), hermitian = _tolerance_arguments("linalg_matrix_rank", "tol", A, args, kwargs)
    if A.dim() < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if A.dtype not in _LAPACK_DTYPES:  # float16/bfloat16 too: PyTorch's LAPACK-backed check
        raise RuntimeError("This function doesn't handle types other than float and double")
    if hermitian and A.shape[-1] != A.shape[-2]:  # PyTorch's matrix_rank calls eigh
        raise RuntimeError(f"linalg.eigh: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    S = eigvalsh(A).abs() if hermitian else svdvals(A)
    return (S > _tolerance("torch.linalg.matrix_rank", A, S, atol, rtol)).sum(-1)


@with_out("linalg.matrix_power", STRUCTURED)
def matrix_power(A, n):
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        if A.dim() < 2:
            raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    n = _int64_argument("linalg_matrix_power", "n", 2, n)
    if n < 0:
        A, n = inv(A), -n
    result = None
    base = A
    if n == 0:
        return _C.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape).clone()
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def _int64_argument(fn, name, position, value):
    """An int argument as PyTorch's parser takes it (anything with __index__: ints, NumPy ints, 0-dim integer
    tensors): a bool or float is a TypeError, past int64 a ValueError (matrix_power would otherwise run on a bool
    as 1, or on 2**64 as a 65-step power that PyTorch refuses)."""
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be int, not {type(value).__name__}")
    value = _operator.index(value)
    if not -2**63 <= value < 2**63:
        raise ValueError("Overflow when unpacking long long")
    return value


# Higham's scaling and squaring with diagonal Padé approximants (SIAM J. Matrix Anal. Appl. 26(4), 2005): the
# degree m whose theta_m bounds the 1-norm keeps the backward error below float64's unit round-off; past theta_13
# the matrix is scaled by 2^-s to fit and the result squared s times. Degree 13 costs 6 products and one solve,
# where a degree-18 Taylor series cost 18 products and more squarings (about 3x slower at 300x300).
_PADE_THETAS = ((3, 1.495585217958292e-2), (5, 2.539398330063230e-1), (7, 9.504178996162932e-1),
                (9, 2.097847961257068e0), (13, 5.371920351148152e0))
_PADE_COEFFICIENTS = {
    3: (120.0, 60.0, 12.0, 1.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0,
        1.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0,
         1.0),
}


def _pade_parts(X, eye, m):
    """U (odd part) and V (even part) of the degree-m Padé approximant r_m(X) = (V - U)^-1 (V + U)."""
    b = _PADE_COEFFICIENTS[m]
    X2 = X @ X
    if m < 13:
        powers = [eye, X2]
        while len(powers) <= m // 2:
            powers.append(powers[-1] @ X2)
        odd = sum(b[2 * k + 1] * powers[k] for k in range(m // 2 + 1))
        even = sum(b[2 * k] * powers[k] for k in range(m // 2 + 1))
        return X @ odd, even
    X4 = X2 @ X2
    X6 = X4 @ X2
    U = X @ (X6 @ (b[13] * X6 + b[11] * X4 + b[9] * X2) + b[7] * X6 + b[5] * X4 + b[3] * X2 + b[1] * eye)
    V = X6 @ (b[12] * X6 + b[10] * X4 + b[8] * X2) + b[6] * X6 + b[4] * X4 + b[2] * X2 + b[0] * eye
    return U, V


def matrix_exp(A):
    """Scaling and squaring with Padé approximants (Higham 2005), accurate to float64 round-off."""
    if A.dim() < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")
    if not (A.is_floating_point() or A.is_complex()):
        raise NotImplementedError("linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                                  f"{A.dtype._scalar_type_name}")
    if A.dtype in (_C.float16, _C.bfloat16):  # solve takes no half types: computed in float32 (PyTorch's is wrong)
        return matrix_exp(A.float()).to(A.dtype)
    norm1 = float(A.detach().abs().sum(-2).amax()) if A.numel() else 0.0  # (detached: no grad-to-scalar warning)
    if not _math.isfinite(norm1):  # inf or NaN entries: every entry of the result is NaN, as in PyTorch
        return _C.full_like(A, _math.nan)
    eye = _C.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape)
    if A.numel() == 0:
        return eye.clone()
    m, theta = next(((m, t) for m, t in _PADE_THETAS if norm1 <= t), _PADE_THETAS[-1])
    s = max(0, int(_math.ceil(_math.log2(norm1 / theta)))) if norm1 > theta else 0
    U, V = _pade_parts(A / (2.0 ** s) if s else A, eye, m)
    result = solve(V - U, V + U)
    for _ in range(s):
        result = result @ result
    return result


def _cond_order_text(p):
    """p as PyTorch's square-matrix message prints it: C++'s std::to_string of a float ("1.000000", "inf")."""
    if isinstance(p, str):
        return p
    if isinstance(p, float):
        return ("-inf" if p < 0 else "inf") if _math.isinf(p) else f"{p:f}"
    return str(int(p))


@with_out("linalg.cond", CASTABLE, refuse_grad=False)
def cond(A, p=None):
    # PyTorch's order of checks: a string order is checked for square matrices before it is validated, a number
    # after; a matrix of zeros (or a singular one) has condition number inf, as in NumPy.
    if isinstance(p, bytes):  # PyTorch's parser decodes bytes for its str overload
        p = p.decode()
    valid = (p is None or isinstance(p, str) and p in ("fro", "nuc")
             or not isinstance(p, str) and p in (1, -1, 2, -2, _math.inf, -_math.inf))
    if isinstance(p, str):
        _check_square(A, f"linalg.cond(ord={p})")
    elif A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if not valid:
        raise ValueError(f"linalg.cond got an invalid norm type: {p if isinstance(p, str) else _scalar_text(p)}")
    if A.numel() == 0:  # NumPy leaves 0x0 undefined; PyTorch gives 0
        real = _C.empty(0, dtype=A.dtype).abs().dtype
        return _C.zeros(A.shape[:-2], dtype=real, device=A.device)
    if p is None or p in (2, -2):
        S = svdvals(A)
        r = S.amax(-1) / S.amin(-1)
        return 1.0 / r if p == -2 else r
    _check_square(A, f"linalg.cond(ord={_cond_order_text(p)})")
    A_inv, info = inv_ex(A)
    A_inv = _C.where((info > 0).unsqueeze(-1).unsqueeze(-1), _C.full_like(A_inv, _math.inf), A_inv)
    norm_A, norm_inv = matrix_norm(A, p), matrix_norm(A_inv, p)
    return _C.where((norm_A == 0) & norm_inv.isinf(), _math.inf, norm_A * norm_inv)  # 0 * inf is inf here


def _check_square(A, name):
    if A.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


@with_out("linalg.multi_dot", MULTI_DOT_DTYPE, grad_name="mm")
def multi_dot(tensors):
    _check_multi_dot(tensors)
    result = tensors[0]
    for t in tensors[1:]:
        result = result @ t
    return result


@with_out("linalg.vecdot", "linalg.vecdot: Expected out of dtype{result} but found {out}", grad_name="sum")
def vecdot(x, y, *, dim=-1):
    """sum(conj(x) * y) along dim (conj is the identity for real x). Autocast-listed in PyTorch (lower precision
    under CUDA and CPU autocast), so its inputs are cast as a product's are."""
    if _amp_active():
        return _amp_run("lower", lambda a, b: vecdot(a, b, dim=dim), x, y)
    _check_floating_or_complex(x, "linalg.vecdot")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype._scalar_type_name} and y of type {y.dtype._scalar_type_name} instead")
    if x.dim() == 1 and y.dim() == 1:  # PyTorch's vdot (its size check, dim not looked at)
        return _C.vdot(x, y)
    return (_C.conj(x) * y).sum(dim)


@with_out("linalg.cross", STRUCTURED, grad_name="linalg_cross")
def cross(input, other, *, dim=-1):
    from ._compositions import cross as _cross
    from ._dim_args import _require_tensor
    _require_tensor("linalg_cross", "input", input, 1)  # NumPy arrays: PyTorch's TypeError, not an AttributeError
    _require_tensor("linalg_cross", "other", other, 2)
    return _cross(input, other, dim=dim)


@with_out("linalg.matmul", STRUCTURED, grad_name="matmul")
def matmul(input, other):
    return input @ other


__all__ = [n for n in dir() if not n.startswith("_")]


# ---- PyTorch's top-level aliases and Tensor methods ----

def _cholesky_old(input, upper=False, *, out=None):
    """torch.cholesky was removed in PyTorch 2.x: the same error, with its replacement."""
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed. `torch.cholesky` is "
                       "deprecated in favor of `torch.linalg.cholesky`.\nL = torch.cholesky(A) should be replaced "
                       "with:\nL = torch.linalg.cholesky(A)\nU = torch.cholesky(A, upper=True) should be replaced "
                       "with:\nU = torch.linalg.cholesky(A).mH")


@with_out("svd", STRUCTURED, grad_name="_linalg_svd")
def _svd_old(input, some=True, compute_uv=True):
    """torch.svd: V instead of Vh; `some` picks the reduced form; without compute_uv, U and V are zeros."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:
        return _OldSvd(_C.zeros_like(U), S, _C.zeros_like(Vh))
    return _OldSvd(U, S, Vh.mH)


@with_out("triangular_solve", STRUCTURED)
def _triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    coefficient = A.mT if transpose else A
    x = solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return _result_triangular(x, A.clone())


_result_triangular = _result("triangular_solve", ["solution", "cloned_coefficient"])


def _logdet(input):
    return _C._logdet(input)


@with_out("cholesky_solve", CASTABLE)
def _cholesky_solve(input, input2, upper=False):
    return _C._cholesky_solve(input, input2, upper)


@with_out("cholesky_inverse", CASTABLE)
def _cholesky_inverse(input, upper=False):
    return _C._cholesky_inverse(input, upper)


@with_out("geqrf", CASTABLE)
def _geqrf(input):
    return _Geqrf(*_C._geqrf(input))


@with_out("orgqr", CASTABLE)
def _orgqr(input, input2):
    return _C._linalg_householder_product(input, input2)


@with_out("ormqr", _ORMQR_DTYPE)
def _ormqr(input, input2, input3, left=True, transpose=False):
    return _C._ormqr(input, input2, input3, left, transpose)


def _install(namespace):
    """Called by tandem/__init__.py: the top-level names PyTorch has for these functions."""
    aliases = {
        "det": det, "inverse": inv, "logdet": _logdet, "slogdet": _slogdet_old, "cholesky": _cholesky_old,
        "svd": _svd_old, "cholesky_solve": _cholesky_solve, "cholesky_inverse": _cholesky_inverse,
        "triangular_solve": _triangular_solve, "geqrf": _geqrf, "orgqr": _orgqr, "ormqr": _ormqr,
    }
    for name, fn in aliases.items():
        namespace.setdefault(name, fn)
    for name, fn in aliases.items():
        if not hasattr(_C.Tensor, name):
            setattr(_C.Tensor, name, fn)
    for result in (_Geqrf, _LdlFactorEx, _LdlFactor):
        if not hasattr(_C.return_types, result.__name__):
            setattr(_C.return_types, result.__name__, result)
