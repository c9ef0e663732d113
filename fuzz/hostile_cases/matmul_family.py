"""Matrix products beyond linalg.py's table: matmul/mm/bmm/mv/dot/outer/addmm/addmv/addr/baddbmm/addbmm/
chain_matmul/linalg.multi_dot with mismatched inner sizes, wrong ranks, 0-size dimensions, mixed and integer/bool
dtypes, beta/alpha edge values (beta=0 ignores NaN in the input), broadcasting batch dimensions and out= of the
wrong dtype or shape; einsum's ellipsis, repeated output letters, 0-size and broadcast operands; tensordot with
dims lists that do not pair up."""
import math

from . import R, T, Case

N = math.nan


def M(L, d, shape, dtype="float64"):
    return R(L, shape, d, dtype)


def nan_input(L, d, shape):
    return L.full(shape, N, device=d, dtype=L.float64)


def with_out(L, d, fn, out_shape, out_dtype="float64"):
    """fn(out) then out: what an op writes into an out= tensor (its shape and values after the call)."""
    out = L.zeros(out_shape, device=d, dtype=getattr(L, out_dtype))
    fn(out)
    return out


CASES = {
    # ---- matmul: ranks and broadcasting
    "matmul/0d": lambda L, d: L.matmul(T(L, 2.0, d), M(L, d, (2,))),
    "matmul/1d_1d_mismatch": lambda L, d: L.matmul(M(L, d, (3,)), M(L, d, (4,))),
    "matmul/1d_1d_ok": lambda L, d: L.matmul(M(L, d, (3,)), M(L, d, (3,))),
    "matmul/1d_2d_mismatch": lambda L, d: L.matmul(M(L, d, (3,)), M(L, d, (4, 2))),
    "matmul/2d_1d_mismatch": lambda L, d: L.matmul(M(L, d, (2, 3)), M(L, d, (4,))),
    "matmul/batch_broadcast_ok": lambda L, d: L.matmul(M(L, d, (2, 1, 3, 4)), M(L, d, (5, 4, 2))),
    "matmul/batch_broadcast_bad": lambda L, d: L.matmul(M(L, d, (2, 3, 4)), M(L, d, (5, 4, 2))),
    "matmul/1d_3d_ok": lambda L, d: L.matmul(M(L, d, (4,)), M(L, d, (2, 4, 3))),
    "matmul/3d_1d_ok": lambda L, d: L.matmul(M(L, d, (2, 3, 4)), M(L, d, (4,))),
    "matmul/inner_zero": lambda L, d: L.matmul(M(L, d, (2, 0)), M(L, d, (0, 3))),
    "matmul/outer_zero": lambda L, d: L.matmul(M(L, d, (0, 3)), M(L, d, (3, 2))),
    "matmul/batch_zero": lambda L, d: L.matmul(M(L, d, (0, 2, 3)), M(L, d, (3, 2))),
    "matmul/mixed_dtype": lambda L, d: L.matmul(M(L, d, (2, 3), "float32"), M(L, d, (3, 2))),
    "matmul/int_ok": lambda L, d: L.matmul(T(L, [[1, 2], [3, 4]], d), T(L, [[5], [6]], d)),
    "matmul/int_float_mixed": lambda L, d: L.matmul(T(L, [[1, 2]], d), M(L, d, (2, 1))),
    "matmul/bool": lambda L, d: L.matmul(T(L, [[True, False]], d), T(L, [[True], [True]], d)),
    "matmul/complex_real_mixed": lambda L, d: L.matmul(M(L, d, (2, 2)).to(L.complex128), M(L, d, (2, 2))),
    "matmul/out_wrong_dtype": lambda L, d: L.matmul(M(L, d, (2, 3)), M(L, d, (3, 2)),
                                                    out=L.empty(2, 2, device=d, dtype=L.float32)),
    "matmul/out_wrong_shape_resized": lambda L, d: with_out(L, d, lambda o: L.matmul(M(L, d, (2, 3)),
                                                                                     M(L, d, (3, 2)), out=o), (5,)),
    "matmul/out_1d_1d": lambda L, d: with_out(L, d, lambda o: L.matmul(M(L, d, (3,)), M(L, d, (3,)), out=o), ()),
    "matmul/operator_scalar": lambda L, d: M(L, d, (2, 2)) @ 2,
    "matmul/rmatmul_list": lambda L, d: [[1.0, 2.0]] @ M(L, d, (2, 2)),
    # ---- mm / bmm / mv / dot / vdot / outer / inner
    "mm/1d": lambda L, d: L.mm(M(L, d, (3,)), M(L, d, (3, 2))),
    "mm/3d": lambda L, d: L.mm(M(L, d, (2, 2, 2)), M(L, d, (2, 2))),
    "mm/mismatch": lambda L, d: L.mm(M(L, d, (2, 3)), M(L, d, (4, 2))),
    "mm/mixed_dtype": lambda L, d: L.mm(M(L, d, (2, 3), "float32"), M(L, d, (3, 2))),
    "mm/int": lambda L, d: L.mm(T(L, [[1, 2]], d), T(L, [[3], [4]], d)),
    "mm/zero_inner_ok": lambda L, d: L.mm(M(L, d, (3, 0)), M(L, d, (0, 2))),
    "mm/out_wrong_dtype": lambda L, d: L.mm(M(L, d, (2, 3)), M(L, d, (3, 2)),
                                            out=L.empty(2, 2, device=d, dtype=L.int64)),
    "bmm/2d": lambda L, d: L.bmm(M(L, d, (2, 3)), M(L, d, (3, 2))),
    "bmm/batch_mismatch": lambda L, d: L.bmm(M(L, d, (2, 2, 3)), M(L, d, (3, 3, 2))),
    "bmm/inner_mismatch": lambda L, d: L.bmm(M(L, d, (2, 2, 3)), M(L, d, (2, 4, 2))),
    "bmm/no_broadcast": lambda L, d: L.bmm(M(L, d, (1, 2, 3)), M(L, d, (4, 3, 2))),
    "bmm/zero_batch_ok": lambda L, d: L.bmm(M(L, d, (0, 2, 3)), M(L, d, (0, 3, 2))),
    "bmm/mixed_dtype": lambda L, d: L.bmm(M(L, d, (1, 2, 3)), M(L, d, (1, 3, 2), "float32")),
    "mv/2d_vec": lambda L, d: L.mv(M(L, d, (2, 3)), M(L, d, (3, 1))),
    "mv/mismatch": lambda L, d: L.mv(M(L, d, (2, 3)), M(L, d, (4,))),
    "mv/ok": lambda L, d: L.mv(M(L, d, (2, 3)), M(L, d, (3,))),
    "mv/1d_matrix": lambda L, d: L.mv(M(L, d, (3,)), M(L, d, (3,))),
    "dot/2d": lambda L, d: L.dot(M(L, d, (2, 2)), M(L, d, (2, 2))),
    "dot/mismatch": lambda L, d: L.dot(M(L, d, (3,)), M(L, d, (4,))),
    "dot/mixed_dtype": lambda L, d: L.dot(M(L, d, (3,)), M(L, d, (3,), "float32")),
    "dot/int_ok": lambda L, d: L.dot(T(L, [1, 2, 3], d), T(L, [4, 5, 6], d)),
    "dot/bool": lambda L, d: L.dot(T(L, [True, False], d), T(L, [True, True], d)),
    "dot/empty_ok": lambda L, d: L.dot(M(L, d, (0,)), M(L, d, (0,))),
    "vdot/2d": lambda L, d: L.vdot(M(L, d, (2, 2)), M(L, d, (2, 2))),
    "outer/2d": lambda L, d: L.outer(M(L, d, (2, 2)), M(L, d, (3,))),
    "outer/mixed_dtype_ok": lambda L, d: L.outer(T(L, [1, 2], d), M(L, d, (3,), "float32")),
    "outer/empty_ok": lambda L, d: L.outer(M(L, d, (0,)), M(L, d, (3,))),
    "inner/mismatch": lambda L, d: L.inner(M(L, d, (2, 3)), M(L, d, (2, 4))),
    "inner/0d_ok": lambda L, d: L.inner(T(L, 2.0, d, "float64"), M(L, d, (2, 3))),
    # ---- addmm / addmv / addr / baddbmm / addbmm
    "addmm/input_broadcast_ok": lambda L, d: L.addmm(M(L, d, (3,)), M(L, d, (2, 4)), M(L, d, (4, 3))),
    "addmm/input_bad_shape": lambda L, d: L.addmm(M(L, d, (4,)), M(L, d, (2, 4)), M(L, d, (4, 3))),
    "addmm/mat_mismatch": lambda L, d: L.addmm(M(L, d, (2, 3)), M(L, d, (2, 4)), M(L, d, (5, 3))),
    "addmm/1d_mat": lambda L, d: L.addmm(M(L, d, (2, 3)), M(L, d, (4,)), M(L, d, (4, 3))),
    "addmm/beta_zero_nan_input": lambda L, d: L.addmm(nan_input(L, d, (2, 3)), M(L, d, (2, 4)), M(L, d, (4, 3)),
                                                      beta=0),
    "addmm/alpha_zero": lambda L, d: L.addmm(M(L, d, (2, 3)), nan_input(L, d, (2, 4)), M(L, d, (4, 3)), alpha=0),
    "addmm/alpha_beta_zero_nan": lambda L, d: L.addmm(nan_input(L, d, (2, 3)), nan_input(L, d, (2, 4)),
                                                      M(L, d, (4, 3)), alpha=0, beta=0),
    "addmm/mixed_dtype": lambda L, d: L.addmm(M(L, d, (2, 3), "float32"), M(L, d, (2, 4)), M(L, d, (4, 3))),
    "addmm/int_float_beta": lambda L, d: L.addmm(T(L, [[1]], d), T(L, [[2]], d), T(L, [[3]], d), beta=0.5),
    "addmm/int_ok": lambda L, d: L.addmm(T(L, [[1]], d), T(L, [[2]], d), T(L, [[3]], d), beta=2, alpha=3),
    "addmm/inplace_broadcast_self": lambda L, d: M(L, d, (3,)).addmm_(M(L, d, (2, 4)), M(L, d, (4, 3))),
    "addmm/zero_inner_ok": lambda L, d: L.addmm(M(L, d, (2, 3)), M(L, d, (2, 0)), M(L, d, (0, 3)), beta=2),
    "addmm/out_wrong_dtype": lambda L, d: L.addmm(M(L, d, (2, 3)), M(L, d, (2, 4)), M(L, d, (4, 3)),
                                                  out=L.empty(2, 3, device=d, dtype=L.float32)),
    "addmv/vec_mismatch": lambda L, d: L.addmv(M(L, d, (2,)), M(L, d, (2, 3)), M(L, d, (4,))),
    "addmv/input_bad": lambda L, d: L.addmv(M(L, d, (3,)), M(L, d, (2, 3)), M(L, d, (3,))),
    "addmv/ok_broadcast": lambda L, d: L.addmv(M(L, d, (1,)), M(L, d, (2, 3)), M(L, d, (3,)), beta=0.5, alpha=2),
    "addmv/beta_zero_nan": lambda L, d: L.addmv(nan_input(L, d, (2,)), M(L, d, (2, 3)), M(L, d, (3,)), beta=0),
    "addmv/alpha_zero_nan_mat": lambda L, d: L.addmv(M(L, d, (2,)), nan_input(L, d, (2, 3)), M(L, d, (3,)),
                                                     alpha=0),
    "addmv/2d_vec": lambda L, d: L.addmv(M(L, d, (2,)), M(L, d, (2, 3)), M(L, d, (3, 1))),
    "addr/ok": lambda L, d: L.addr(M(L, d, (2, 3)), M(L, d, (2,)), M(L, d, (3,)), beta=2, alpha=0.5),
    "addr/2d_vec": lambda L, d: L.addr(M(L, d, (2, 3)), M(L, d, (2, 1)), M(L, d, (3,))),
    "addr/input_bad": lambda L, d: L.addr(M(L, d, (3, 3)), M(L, d, (2,)), M(L, d, (3,))),
    "addr/beta_zero_nan": lambda L, d: L.addr(nan_input(L, d, (2, 3)), M(L, d, (2,)), M(L, d, (3,)), beta=0),
    "addr/bool_ok": lambda L, d: L.addr(T(L, [[True, False]], d), T(L, [True], d), T(L, [False, True], d)),
    "addr/bool_float_alpha": lambda L, d: L.addr(T(L, [[True, False]], d), T(L, [True], d), T(L, [False, True], d),
                                                 alpha=0.5),
    "addr/int_float_beta": lambda L, d: L.addr(T(L, [[1, 2]], d), T(L, [1], d), T(L, [3, 4], d), beta=1.5),
    "baddbmm/ok": lambda L, d: L.baddbmm(M(L, d, (2, 2, 2)), M(L, d, (2, 2, 3)), M(L, d, (2, 3, 2)), beta=0.5,
                                         alpha=2),
    "baddbmm/input_broadcast_ok": lambda L, d: L.baddbmm(M(L, d, (2,)), M(L, d, (3, 2, 3)), M(L, d, (3, 3, 2))),
    "baddbmm/input_bad": lambda L, d: L.baddbmm(M(L, d, (4, 2, 2)), M(L, d, (3, 2, 3)), M(L, d, (3, 3, 2))),
    "baddbmm/batch_mismatch": lambda L, d: L.baddbmm(M(L, d, (2, 2, 2)), M(L, d, (2, 2, 3)), M(L, d, (3, 3, 2))),
    "baddbmm/2d": lambda L, d: L.baddbmm(M(L, d, (2, 2)), M(L, d, (2, 3)), M(L, d, (3, 2))),
    "baddbmm/beta_zero_nan": lambda L, d: L.baddbmm(nan_input(L, d, (1, 2, 2)), M(L, d, (1, 2, 3)),
                                                    M(L, d, (1, 3, 2)), beta=0),
    "baddbmm/mixed_dtype": lambda L, d: L.baddbmm(M(L, d, (1, 2, 2), "float32"), M(L, d, (1, 2, 3)),
                                                  M(L, d, (1, 3, 2))),
    "addbmm/ok": lambda L, d: L.addbmm(M(L, d, (2, 2)), M(L, d, (3, 2, 4)), M(L, d, (3, 4, 2)), beta=2, alpha=0.5),
    "addbmm/input_bad": lambda L, d: L.addbmm(M(L, d, (3, 2)), M(L, d, (3, 2, 4)), M(L, d, (3, 4, 2))),
    "addbmm/alpha_zero_nan_batch": lambda L, d: L.addbmm(M(L, d, (2, 2)), nan_input(L, d, (3, 2, 4)),
                                                         M(L, d, (3, 4, 2)), alpha=0),
    "addbmm/zero_batch_ok": lambda L, d: L.addbmm(M(L, d, (2, 2)), M(L, d, (0, 2, 4)), M(L, d, (0, 4, 2))),
    # ---- chain_matmul / multi_dot
    "multi_dot/one": lambda L, d: L.linalg.multi_dot([M(L, d, (2, 2))]),
    "multi_dot/empty": lambda L, d: L.linalg.multi_dot([]),
    "multi_dot/ok_vectors": lambda L, d: L.linalg.multi_dot([M(L, d, (3,)), M(L, d, (3, 4)), M(L, d, (4,))]),
    "multi_dot/mismatch": lambda L, d: L.linalg.multi_dot([M(L, d, (2, 3)), M(L, d, (4, 2)), M(L, d, (2, 2))]),
    "multi_dot/3d_middle": lambda L, d: L.linalg.multi_dot([M(L, d, (2, 2)), M(L, d, (1, 2, 2)), M(L, d, (2, 2))]),
    "multi_dot/mixed_dtype": lambda L, d: L.linalg.multi_dot([M(L, d, (2, 2)), M(L, d, (2, 2), "float32")]),
    "multi_dot/ok_four": lambda L, d: L.linalg.multi_dot([M(L, d, (2, 5)), M(L, d, (5, 1)), M(L, d, (1, 4)),
                                                          M(L, d, (4, 3))]),
    "chain_matmul/ok": lambda L, d: L.chain_matmul(M(L, d, (2, 3)), M(L, d, (3, 4)), M(L, d, (4, 2))),
    "chain_matmul/1d": lambda L, d: L.chain_matmul(M(L, d, (3,)), M(L, d, (3, 2))),
    "chain_matmul/one": lambda L, d: L.chain_matmul(M(L, d, (2, 3))),
    # ---- einsum beyond shape_ops.py's
    "einsum/ellipsis_broadcast_ok": lambda L, d: L.einsum("...ij,...jk->...ik", M(L, d, (2, 1, 2, 3)),
                                                          M(L, d, (4, 3, 2))),
    "einsum/ellipsis_implicit_ok": lambda L, d: L.einsum("...ij", M(L, d, (2, 3, 4))),
    "einsum/ellipsis_two_in_one": lambda L, d: L.einsum("...i...->i", M(L, d, (2, 3))),
    "einsum/ellipsis_missing_output": lambda L, d: L.einsum("...i->i", M(L, d, (2, 3))),
    "einsum/repeated_output": lambda L, d: L.einsum("ij->ii", M(L, d, (2, 2))),
    "einsum/output_not_in_input": lambda L, d: L.einsum("ij->k", M(L, d, (2, 2))),
    "einsum/diagonal_ok": lambda L, d: L.einsum("ii->i", M(L, d, (3, 3))),
    "einsum/diagonal_mismatch": lambda L, d: L.einsum("ii->i", M(L, d, (2, 3))),
    "einsum/trace_3_ok": lambda L, d: L.einsum("iii", M(L, d, (2, 2, 2))),
    "einsum/zero_dim_ok": lambda L, d: L.einsum("ij,jk->ik", M(L, d, (2, 0)), M(L, d, (0, 3))),
    "einsum/broadcast_one_ok": lambda L, d: L.einsum("ij,ij->ij", M(L, d, (1, 3)), M(L, d, (2, 3))),
    "einsum/size_mismatch": lambda L, d: L.einsum("ij,ij->ij", M(L, d, (2, 3)), M(L, d, (3, 3))),
    "einsum/mixed_dtype": lambda L, d: L.einsum("i,i->", M(L, d, (3,)), M(L, d, (3,), "float32")),
    "einsum/int_ok": lambda L, d: L.einsum("i,i->", T(L, [1, 2], d), T(L, [3, 4], d)),
    "einsum/uppercase_ok": lambda L, d: L.einsum("Ab,bC->AC", M(L, d, (2, 3)), M(L, d, (3, 2))),
    "einsum/digit": lambda L, d: L.einsum("i1->i", M(L, d, (2, 2))),
    "einsum/space_ok": lambda L, d: L.einsum(" i j -> j i ", M(L, d, (2, 3))),
    "einsum/arrow_twice": lambda L, d: L.einsum("i->i->i", M(L, d, (2,))),
    "einsum/sublist_ok": lambda L, d: L.einsum(M(L, d, (2, 3)), [0, 1], M(L, d, (3,)), [1], [0]),
    "einsum/sublist_bad_index": lambda L, d: L.einsum(M(L, d, (2, 3)), [0, 60]),
    "einsum/list_of_operands_ok": lambda L, d: L.einsum("ij,j->i", [M(L, d, (2, 3)), M(L, d, (3,))]),
    "einsum/0d_operand_ok": lambda L, d: L.einsum(",i->i", T(L, 2.0, d, "float64"), M(L, d, (3,))),
    "einsum/0d_with_letter": lambda L, d: L.einsum("i->", T(L, 2.0, d, "float64")),
    # ---- tensordot dims lists
    "tensordot/dims_lists_ok": lambda L, d: L.tensordot(M(L, d, (2, 3, 4)), M(L, d, (4, 3, 5)),
                                                        dims=([1, 2], [1, 0])),
    "tensordot/dims_lists_unequal": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=([1], [0, 1])),
    "tensordot/dims_size_mismatch": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (2, 3)), dims=([1], [0])),
    "tensordot/dims_negative_ok": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=([-1], [0])),
    "tensordot/dims_too_many": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (2, 3)), dims=3),
    "tensordot/dims_negative_int": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=-1),
    "tensordot/dims_zero_outer": lambda L, d: L.tensordot(M(L, d, (2,)), M(L, d, (3,)), dims=0),
    "tensordot/mixed_dtype": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2), "float32"), dims=1),
    "tensordot/repeated_dim": lambda L, d: L.tensordot(M(L, d, (2, 2)), M(L, d, (2, 2)), dims=([0, 0], [0, 1])),
}

KNOWN = {}
