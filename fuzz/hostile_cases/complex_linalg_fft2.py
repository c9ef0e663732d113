"""Complex inputs to tandem.linalg (det, slogdet, inv, solve, eig, eigvals, eigh, eigvalsh, svd, svdvals, qr,
pinv, matrix_norm, vector_norm and norm with every ord, cond, matrix_rank, cholesky, lstsq, lu, matrix_power,
cross, vecdot) and tandem.fft's n-dimensional transforms with s/dim/norm combinations beyond fft.py: odd lengths,
-1 in s, empty dims, repeated and negative dims, hfft/ihfft with n, complex128 and conjugate-view inputs."""
from . import R, T


def C(L, d, shape, dtype="complex128"):
    real = "float64" if dtype == "complex128" else "float32"
    return L.complex(R(L, shape, d, real), R(L, shape, d, real, scale=3.0).flip(-1))


def herm(L, d, n=3, dtype="complex128"):
    """A Hermitian positive-definite matrix."""
    a = C(L, d, (n, n), dtype)
    return a @ a.mH + n * L.eye(n, device=d, dtype=a.dtype)


def la(L):
    return L.linalg


def eig_check(L, d, dtype="complex128"):
    """eig's vectors are defined up to a phase: compare A V - V diag(w) (zero) and the sorted eigenvalues' moduli."""
    a = C(L, d, (3, 3), dtype)
    w, v = la(L).eig(a)
    return (a @ v - v * w.unsqueeze(-2)).abs().max() < 1e-3, w.abs().sort().values


def svd_check(L, d, full):
    a = C(L, d, (3, 2))
    u, s, vh = la(L).svd(a, full_matrices=full)
    k = s.shape[-1]
    return (u[..., :k] * s.to(a.dtype) @ vh[..., :k, :] - a).abs().max() < 1e-9, s, u.shape, vh.shape


def qr_check(L, d, mode):
    a = C(L, d, (3, 2))
    q, r = la(L).qr(a, mode=mode)
    return (q @ r - a).abs().max() < 1e-9 if r.numel() and q.numel() else None, q.shape, r.shape, r.abs()


def fft_(L, name):
    return getattr(L.fft, name)


CASES = {
    # ---- det / slogdet / inv / solve
    "det/complex128": lambda L, d: la(L).det(C(L, d, (3, 3))),
    "det/complex64_batched": lambda L, d: la(L).det(C(L, d, (2, 3, 3), "complex64")),
    "det/complex_empty": lambda L, d: la(L).det(C(L, d, (0, 0))),
    "det/complex_singular": lambda L, d: la(L).det(C(L, d, (1, 3)).expand(3, 3)),
    "slogdet/complex": lambda L, d: la(L).slogdet(C(L, d, (3, 3))),
    "slogdet/complex_singular": lambda L, d: la(L).slogdet(L.zeros(2, 2, dtype=L.complex64, device=d)),
    "logdet/complex": lambda L, d: L.logdet(herm(L, d)),
    "inv/complex": lambda L, d: la(L).inv(C(L, d, (3, 3))),
    "inv/complex_singular": lambda L, d: la(L).inv(L.zeros(2, 2, dtype=L.complex128, device=d)),
    "inv_ex/complex_singular": lambda L, d: la(L).inv_ex(L.zeros(2, 2, dtype=L.complex128, device=d)).info,
    "inv/conj_view": lambda L, d: la(L).inv(C(L, d, (3, 3)).conj()),
    "solve/complex": lambda L, d: la(L).solve(C(L, d, (3, 3)), C(L, d, (3, 2))),
    "solve/complex_vector_rhs": lambda L, d: la(L).solve(C(L, d, (3, 3)), C(L, d, (3,))),
    "solve/complex_left_false": lambda L, d: la(L).solve(C(L, d, (3, 3)), C(L, d, (2, 3)), left=False),
    "solve/real_A_complex_B": lambda L, d: la(L).solve(R(L, (3, 3), d), C(L, d, (3, 1))),
    "solve/complex64_complex128": lambda L, d: la(L).solve(C(L, d, (3, 3), "complex64"), C(L, d, (3, 1))),
    "solve/complex_broadcast": lambda L, d: la(L).solve(C(L, d, (2, 3, 3)), C(L, d, (3, 1))),
    # ---- eig family
    "eig/complex_residual": lambda L, d: eig_check(L, d),
    "eig/complex64_residual": lambda L, d: eig_check(L, d, "complex64"),
    "eigvals/complex": lambda L, d: la(L).eigvals(C(L, d, (3, 3))).abs().sort().values,
    "eigvals/complex_empty": lambda L, d: la(L).eigvals(C(L, d, (0, 0))),
    "eigh/complex_values": lambda L, d: la(L).eigh(herm(L, d)).eigenvalues,
    "eigh/complex_upper": lambda L, d: la(L).eigh(herm(L, d), UPLO="U").eigenvalues,
    "eigh/complex_bad_uplo": lambda L, d: la(L).eigh(herm(L, d), UPLO="X"),
    "eigh/complex_residual": lambda L, d: (lambda a: (lambda w, v: (a @ v - v * w.to(a.dtype)).abs().max() < 1e-9)(
        *la(L).eigh(a)))(herm(L, d)),
    "eigvalsh/complex64": lambda L, d: la(L).eigvalsh(herm(L, d, 3, "complex64")),
    "eigvalsh/non_hermitian_lower": lambda L, d: la(L).eigvalsh(C(L, d, (3, 3))),
    # ---- svd / qr / pinv / rank
    "svd/complex_full": lambda L, d: svd_check(L, d, True),
    "svd/complex_reduced": lambda L, d: svd_check(L, d, False),
    "svdvals/complex": lambda L, d: la(L).svdvals(C(L, d, (2, 4))),
    "svdvals/complex_empty": lambda L, d: la(L).svdvals(C(L, d, (0, 3))),
    "svd/complex_driver_cpu": lambda L, d: la(L).svd(C(L, d, (2, 2)), driver="gesvd"),
    "qr/complex_reduced": lambda L, d: qr_check(L, d, "reduced"),
    "qr/complex_complete": lambda L, d: qr_check(L, d, "complete"),
    "qr/complex_r": lambda L, d: qr_check(L, d, "r"),
    "qr/complex_bad_mode": lambda L, d: la(L).qr(C(L, d, (2, 2)), mode="full"),
    "pinv/complex": lambda L, d: la(L).pinv(C(L, d, (3, 2))),
    "pinv/complex_hermitian": lambda L, d: la(L).pinv(herm(L, d), hermitian=True),
    "pinv/complex_rtol": lambda L, d: la(L).pinv(C(L, d, (3, 2)), rtol=0.5),
    "pinv/complex_atol_tensor": lambda L, d: la(L).pinv(C(L, d, (3, 2)), atol=T(L, 1.0, d, "float64")),
    "pinv/complex_atol_complex_tensor": lambda L, d: la(L).pinv(C(L, d, (3, 2)), atol=C(L, d, ())),
    "matrix_rank/complex": lambda L, d: la(L).matrix_rank(C(L, d, (3, 2))),
    "matrix_rank/complex_hermitian": lambda L, d: la(L).matrix_rank(herm(L, d), hermitian=True),
    "cholesky/complex": lambda L, d: la(L).cholesky(herm(L, d)),
    "cholesky/complex_upper": lambda L, d: la(L).cholesky(herm(L, d), upper=True),
    "cholesky_ex/complex_not_pd": lambda L, d: la(L).cholesky_ex(-herm(L, d)).info,
    "lstsq/complex": lambda L, d: la(L).lstsq(C(L, d, (4, 2)), C(L, d, (4, 1))).solution,
    "lu/complex": lambda L, d: (lambda p, l, u: (p @ l @ u))(*la(L).lu(C(L, d, (3, 3)))),
    "lu_factor/complex_solve": lambda L, d: (lambda lu, piv: la(L).lu_solve(lu, piv, C(L, d, (3, 1))))(
        *la(L).lu_factor(C(L, d, (3, 3)))),
    "matrix_power/complex_3": lambda L, d: la(L).matrix_power(C(L, d, (2, 2)), 3),
    "matrix_exp/complex64": lambda L, d: la(L).matrix_exp(C(L, d, (2, 2), "complex64") * 0.1),
    "cross/complex": lambda L, d: la(L).cross(C(L, d, (2, 3)), C(L, d, (2, 3)).flip(0)),
    "vecdot/complex_conjugates_first": lambda L, d: la(L).vecdot(C(L, d, (3,)), C(L, d, (3,)).flip(0)),
    "vecdot/complex_real": lambda L, d: la(L).vecdot(C(L, d, (3,)), R(L, (3,), d)),
    # ---- norms
    "vector_norm/complex_default": lambda L, d: la(L).vector_norm(C(L, d, (2, 3))),
    "vector_norm/complex_ord_inf": lambda L, d: la(L).vector_norm(C(L, d, (2, 3)), ord=float("inf")),
    "vector_norm/complex_ord_ninf": lambda L, d: la(L).vector_norm(C(L, d, (2, 3)), ord=-float("inf"), dim=1),
    "vector_norm/complex_ord_0": lambda L, d: la(L).vector_norm(C(L, d, (2, 3)), ord=0),
    "vector_norm/complex_ord_1_5": lambda L, d: la(L).vector_norm(C(L, d, (2, 3)), ord=1.5, dim=(0, 1)),
    "vector_norm/complex_ord_neg1": lambda L, d: la(L).vector_norm(C(L, d, (4,)), ord=-1),
    "vector_norm/complex_dtype_complex128": lambda L, d: la(L).vector_norm(C(L, d, (4,), "complex64"),
                                                                           dtype=L.complex128),
    "vector_norm/complex_dtype_float": lambda L, d: la(L).vector_norm(C(L, d, (4,)), dtype=L.float64),
    "vector_norm/complex_keepdim": lambda L, d: la(L).vector_norm(C(L, d, (2, 3)), dim=-1, keepdim=True),
    "vector_norm/complex_empty_inf": lambda L, d: la(L).vector_norm(C(L, d, (0,)), ord=float("inf")),
    "vector_norm/complex_empty_2": lambda L, d: la(L).vector_norm(C(L, d, (0,))),
    "vector_norm/complex_grad": lambda L, d: (lambda x: (la(L).vector_norm(x, 3).backward(), x.grad)[1])(
        C(L, d, (3,)).requires_grad_()),
    "matrix_norm/complex_fro": lambda L, d: la(L).matrix_norm(C(L, d, (3, 3))),
    "matrix_norm/complex_nuc": lambda L, d: la(L).matrix_norm(C(L, d, (3, 2)), ord="nuc"),
    "matrix_norm/complex_2": lambda L, d: la(L).matrix_norm(C(L, d, (3, 2)), ord=2),
    "matrix_norm/complex_neg2": lambda L, d: la(L).matrix_norm(C(L, d, (3, 2)), ord=-2),
    "matrix_norm/complex_1": lambda L, d: la(L).matrix_norm(C(L, d, (3, 2)), ord=1),
    "matrix_norm/complex_inf": lambda L, d: la(L).matrix_norm(C(L, d, (3, 2)), ord=float("inf")),
    "matrix_norm/complex_ninf_dims": lambda L, d: la(L).matrix_norm(C(L, d, (2, 3, 2)), ord=-float("inf"),
                                                                    dim=(0, 2)),
    "matrix_norm/complex_ord_3": lambda L, d: la(L).matrix_norm(C(L, d, (3, 3)), ord=3),
    "matrix_norm/complex_ord_str": lambda L, d: la(L).matrix_norm(C(L, d, (3, 3)), ord="fro2"),
    "matrix_norm/complex_same_dims": lambda L, d: la(L).matrix_norm(C(L, d, (3, 3)), dim=(1, 1)),
    "matrix_norm/complex_1d": lambda L, d: la(L).matrix_norm(C(L, d, (3,))),
    "matrix_norm/complex_dtype": lambda L, d: la(L).matrix_norm(C(L, d, (3, 3), "complex64"), dtype=L.complex128),
    "norm/complex_vector_ord_none": lambda L, d: la(L).norm(C(L, d, (4,))),
    "norm/complex_matrix_ord_2": lambda L, d: la(L).norm(C(L, d, (3, 3)), ord=2),
    "norm/complex_3d_ord_none": lambda L, d: la(L).norm(C(L, d, (2, 2, 2))),
    "norm/complex_3d_ord_2_no_dim": lambda L, d: la(L).norm(C(L, d, (2, 2, 2)), ord=2),
    "norm/complex_ord_fro_1d": lambda L, d: la(L).norm(C(L, d, (3,)), ord="fro"),
    "torch_norm/complex_p_1": lambda L, d: L.norm(C(L, d, (3,)), p=1),
    "torch_norm/complex_nuc": lambda L, d: L.norm(C(L, d, (3, 3)), p="nuc"),
    "cond/complex_default": lambda L, d: la(L).cond(C(L, d, (3, 3))),
    "cond/complex_fro": lambda L, d: la(L).cond(C(L, d, (3, 3)), p="fro"),
    "cond/complex_1": lambda L, d: la(L).cond(C(L, d, (3, 3)), p=1),
    "cond/complex_neg2_rect": lambda L, d: la(L).cond(C(L, d, (3, 2)), p=-2),
    "cond/complex_rect_fro": lambda L, d: la(L).cond(C(L, d, (3, 2)), p="fro"),
    "cond/complex_singular_inf": lambda L, d: la(L).cond(L.zeros(2, 2, dtype=L.complex128, device=d), p=float("inf")),
    "cond/complex_bad_p": lambda L, d: la(L).cond(C(L, d, (3, 3)), p=3),
    # ---- fft n-dimensional
    "fftn/odd_lengths": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 5, 7))),
    "fftn/s_minus_one": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 5)), s=(-1, 4)),
    "fftn/negative_dims": lambda L, d: fft_(L, "fftn")(C(L, d, (2, 3, 4)), dim=(-1, -3)),
    "fftn/dims_unsorted_s": lambda L, d: fft_(L, "fftn")(C(L, d, (2, 3, 4)), s=(6, 1), dim=(2, 0)),
    "fftn/dim_repeated_negative": lambda L, d: fft_(L, "fftn")(C(L, d, (2, 3)), dim=(1, -1)),
    "fftn/s_only_trailing": lambda L, d: fft_(L, "fftn")(C(L, d, (2, 3, 4)), s=(5,)),
    "fftn/norm_forward": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 5)), norm="forward"),
    "fftn/norm_none_str": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 5)), norm="None"),
    "fftn/empty_dim_transformed": lambda L, d: fft_(L, "fftn")(C(L, d, (0, 3)), dim=(0,)),
    "fftn/empty_dim_not_transformed": lambda L, d: fft_(L, "fftn")(C(L, d, (0, 3)), dim=(1,)),
    "fftn/empty_with_s": lambda L, d: fft_(L, "fftn")(C(L, d, (0, 3)), s=(2, 3)),
    "fftn/s_negative_two": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 5)), s=(-2, 5)),
    "fftn/conj_view": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 4)).conj()),
    "fftn/transposed": lambda L, d: fft_(L, "fftn")(C(L, d, (3, 4)).mT),
    "ifftn/ortho_roundtrip": lambda L, d: (lambda x: fft_(L, "ifftn")(fft_(L, "fftn")(x, norm="ortho"),
                                                                      norm="ortho") - x)(C(L, d, (3, 5))),
    "ifftn/s_pad": lambda L, d: fft_(L, "ifftn")(C(L, d, (3, 5)), s=(4, 6), norm="backward"),
    "ifftn/complex64": lambda L, d: fft_(L, "ifftn")(C(L, d, (2, 3), "complex64")),
    "rfftn/odd_last": lambda L, d: fft_(L, "rfftn")(R(L, (3, 5), d)),
    "rfftn/s_minus_one": lambda L, d: fft_(L, "rfftn")(R(L, (3, 5), d), s=(2, -1)),
    "rfftn/dim_order": lambda L, d: fft_(L, "rfftn")(R(L, (3, 5), d), dim=(1, 0)),
    "rfftn/complex_input": lambda L, d: fft_(L, "rfftn")(C(L, d, (3, 5))),
    "rfftn/last_dim_empty": lambda L, d: fft_(L, "rfftn")(R(L, (3, 0), d)),
    "rfftn/norm_ortho_float64": lambda L, d: fft_(L, "rfftn")(R(L, (2, 3, 4), d), norm="ortho", dim=(0, 2)),
    "irfftn/odd_s": lambda L, d: fft_(L, "irfftn")(C(L, d, (3, 3)), s=(3, 5)),
    "irfftn/default_s": lambda L, d: fft_(L, "irfftn")(C(L, d, (3, 3))),
    "irfftn/s_one_last": lambda L, d: fft_(L, "irfftn")(C(L, d, (3, 3)), s=(3, 1)),
    "irfftn/last_one_default": lambda L, d: fft_(L, "irfftn")(C(L, d, (3, 1))),
    "irfftn/dim_repeated": lambda L, d: fft_(L, "irfftn")(C(L, d, (3, 3)), dim=(0, 0)),
    "irfftn/real_input": lambda L, d: fft_(L, "irfftn")(R(L, (3, 3), d)),
    "irfftn/dims_reordered": lambda L, d: fft_(L, "irfftn")(C(L, d, (2, 3, 4)), s=(4, 5), dim=(2, 0)),
    "rfft2/s_odd_roundtrip": lambda L, d: fft_(L, "irfft2")(fft_(L, "rfft2")(R(L, (3, 5), d)), s=(3, 5)),
    "hfft/n_odd": lambda L, d: fft_(L, "hfft")(C(L, d, (4,)), n=7),
    "hfft/n_one": lambda L, d: fft_(L, "hfft")(C(L, d, (4,)), n=1),
    "hfft/norm_forward": lambda L, d: fft_(L, "hfft")(C(L, d, (4,)), norm="forward"),
    "hfft/dim0_2d": lambda L, d: fft_(L, "hfft")(C(L, d, (4, 3)), dim=0),
    "ihfft/n_odd_ortho": lambda L, d: fft_(L, "ihfft")(R(L, (6,), d), n=5, norm="ortho"),
    "ihfft/complex_input": lambda L, d: fft_(L, "ihfft")(C(L, d, (6,))),
    "hfftn/s_and_dim": lambda L, d: fft_(L, "hfftn")(C(L, d, (2, 3, 4)), s=(3, 5), dim=(0, 2)),
    "hfftn/odd_default": lambda L, d: fft_(L, "hfftn")(C(L, d, (3, 3))),
    "ihfftn/odd": lambda L, d: fft_(L, "ihfftn")(R(L, (3, 5), d)),
    "ihfft2/s": lambda L, d: fft_(L, "ihfft2")(R(L, (3, 5), d), s=(2, 4)),
    "fftshift/negative_dims": lambda L, d: L.fft.fftshift(C(L, d, (3, 4)), dim=(-1, 0)),
    "ifftshift/int_dim": lambda L, d: L.fft.ifftshift(C(L, d, (3, 5)), dim=1),
    "fftfreq/d_negative": lambda L, d: L.fft.fftfreq(5, d=-0.5, device=d),
    "fftfreq/d_zero": lambda L, d: L.fft.fftfreq(4, d=0.0, device=d),
    "fftfreq/n_zero": lambda L, d: L.fft.fftfreq(0, device=d),
    "fftfreq/n_negative": lambda L, d: L.fft.fftfreq(-1, device=d),
    "rfftfreq/dtype_float64": lambda L, d: L.fft.rfftfreq(5, dtype=L.float64, device=d),
    "fftfreq/dtype_int": lambda L, d: L.fft.fftfreq(5, dtype=L.int64, device=d),
    # ---- more complex linalg entry points
    "solve_ex/complex_singular_info": lambda L, d: la(L).solve_ex(L.zeros(2, 2, dtype=L.complex128, device=d),
                                                                  C(L, d, (2, 1))).info,
    "lu_factor_ex/complex": lambda L, d: la(L).lu_factor_ex(C(L, d, (3, 3))).info,
    "ldl_factor/complex_hermitian_solve": lambda L, d: (lambda ld, piv: la(L).ldl_solve(ld, piv, C(L, d, (3, 1)),
                                                                                       hermitian=True))(
        *la(L).ldl_factor(herm(L, d), hermitian=True)),
    "householder_product/complex": lambda L, d: la(L).householder_product(C(L, d, (3, 2)), C(L, d, (2,))),
    "eig/real_input_complex_values": lambda L, d: la(L).eigvals(T(L, [[0.0, -1.0], [1.0, 0.0]], d,
                                                                  "float64")).imag.abs().sort().values,
    "det/complex_grad": lambda L, d: (lambda a: (la(L).det(a).abs().backward(), a.grad)[1])(
        C(L, d, (2, 2)).requires_grad_()),
    "inv/complex_out_wrong_dtype": lambda L, d: la(L).inv(C(L, d, (2, 2)), out=L.empty(2, 2, device=d,
                                                                                       dtype=L.complex64)),
    "inv/complex_out_real": lambda L, d: la(L).inv(C(L, d, (2, 2)), out=L.empty(2, 2, device=d, dtype=L.float64)),
    "tensorinv/complex": lambda L, d: la(L).tensorinv(C(L, d, (4, 2, 2)).reshape(4, 2, 2) + 3 * L.eye(
        4, device=d, dtype=L.complex128).reshape(4, 2, 2), ind=1),
    "tensorsolve/complex": lambda L, d: la(L).tensorsolve(C(L, d, (2, 3, 6)) + 0, C(L, d, (2, 3))),
    "diagonal/complex_offset": lambda L, d: la(L).diagonal(C(L, d, (3, 4)), offset=1),
    "multi_dot/complex_real_mixed": lambda L, d: la(L).multi_dot([C(L, d, (2, 3)), R(L, (3, 2), d)]),
    "multi_dot/complex_ok": lambda L, d: la(L).multi_dot([C(L, d, (2, 3)), C(L, d, (3, 2)), C(L, d, (2,))]),
    "solve_triangular/complex_conj_view": lambda L, d: la(L).solve_triangular(
        (herm(L, d)).tril().conj(), C(L, d, (3, 1)), upper=False),
    "cholesky_inverse/complex": lambda L, d: L.cholesky_inverse(la(L).cholesky(herm(L, d))),
    "trace/complex": lambda L, d: L.trace(C(L, d, (3, 3))),
    "det/conj_view": lambda L, d: la(L).det(C(L, d, (3, 3)).conj()),
    "vector_norm/complex_int_ord_3": lambda L, d: la(L).vector_norm(C(L, d, (4,), "complex64"), 3),
    "matrix_norm/complex_out": lambda L, d: (lambda o: (la(L).matrix_norm(C(L, d, (2, 2)), out=o), o)[1])(
        L.empty(0, device=d, dtype=L.float64)),
    "matrix_norm/complex_out_complex": lambda L, d: la(L).matrix_norm(C(L, d, (2, 2)), out=L.empty(
        0, device=d, dtype=L.complex128)),
    # ---- more fft
    "fft/out_complex128_for_complex64": lambda L, d: fft_(L, "fft")(C(L, d, (4,), "complex64"), out=L.empty(
        4, device=d, dtype=L.complex128)),
    "fft2/conj_view_s": lambda L, d: fft_(L, "fft2")(C(L, d, (3, 4)).conj(), s=(2, 5)),
    "irfft/conj_view": lambda L, d: fft_(L, "irfft")(C(L, d, (5,)).conj()),
    "rfft/non_contiguous_stride": lambda L, d: fft_(L, "rfft")(R(L, (12,), d)[::3]),
    "fftn/0dim_dim_empty": lambda L, d: fft_(L, "fftn")(C(L, d, ()), dim=()),
    "ifft2/1d": lambda L, d: fft_(L, "ifft2")(C(L, d, (4,))),
    "hfft/real_input": lambda L, d: fft_(L, "hfft")(R(L, (4,), d)),
    "fft/int8": lambda L, d: fft_(L, "fft")(T(L, [1, 2, 3], d, "int8")),
    "fftn/bool": lambda L, d: fft_(L, "fftn")(T(L, [[True, False], [False, True]], d)),
    "fftshift/0dim": lambda L, d: L.fft.fftshift(C(L, d, ())),
    "fftshift/dim_past": lambda L, d: L.fft.fftshift(C(L, d, (3,)), dim=1),
    "ihfftn/s_odd_ortho": lambda L, d: fft_(L, "ihfftn")(R(L, (3, 5), d), s=(3, 3), norm="ortho"),
    "rfftn/s_longer_dims_none": lambda L, d: fft_(L, "rfftn")(R(L, (2, 3, 4), d), s=(3, 4)),
    "irfftn/s_none_dim_last": lambda L, d: fft_(L, "irfftn")(C(L, d, (2, 3, 4)), dim=(0,)),
    "fft/norm_backward_explicit": lambda L, d: fft_(L, "fft")(C(L, d, (5,)), norm="backward"),
    "fft/norm_bytes": lambda L, d: fft_(L, "fft")(C(L, d, (5,)), norm=b"ortho"),
    "fft/grad_complex": lambda L, d: (lambda x: (fft_(L, "fft")(x).abs().pow(2).sum().backward(), x.grad)[1])(
        C(L, d, (5,)).requires_grad_()),
    "rfftn/grad_odd": lambda L, d: (lambda x: (fft_(L, "rfftn")(x).abs().sum().backward(), x.grad)[1])(
        R(L, (3, 5), d).requires_grad_()),
}

KNOWN = {
    "svd/complex_driver_cpu": "on a GPU only: driver= is taken for GPU inputs (PyTorch's cuSOLVER rule); the oracle "
                              "runs on the CPU, where both refuse it",
}
