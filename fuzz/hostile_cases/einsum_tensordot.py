"""einsum, tensordot and the small products beyond shape_ops.py's and matmul_family.py's: the implicit output's
letter order (upper case before lower case), 52 letters and past them, 50+ operands, sublist format with
Ellipsis, labels of size 1 against size n (broadcast) and repeated labels with size 1, bool/int8/float16/complex
operands and mixed kinds, gradients through einsum (values of the backward), the opt_einsum switch; tensordot with
dims given as tensors, nested lists, empty lists, out-of-range and negative dims, out=; kron of different ranks,
outer/ger/inner/vdot/dot of odd shapes and dtypes, chain_matmul and multi_dot without arguments or with 0-size and
1-d ends."""
import string

from . import R, T


def M(L, d, shape, dtype="float64"):
    return R(L, shape, d, dtype)


def grads(L, d, eq, *shapes):
    """The gradients of sum(einsum(eq, ...)) with respect to each operand."""
    xs = [M(L, d, s).requires_grad_() for s in shapes]
    L.einsum(eq, *xs).sum().backward()
    return [x.grad for x in xs]


def many(L, d, n):
    """einsum of n vectors of length 2 on one shared letter: their elementwise product's sum."""
    xs = [M(L, d, (2,)) * 0.5 + 1.0 for _ in range(n)]
    return L.einsum(",".join(["i"] * n) + "->", *xs)


def chain(L, d, n):
    """einsum of a chain of n 2x2 matrices, each on its own pair of letters."""
    letters = string.ascii_letters
    subs = ",".join(letters[k] + letters[k + 1] for k in range(n))
    return L.einsum(subs + "->" + letters[0] + letters[n], *[M(L, d, (2, 2)) * 0.5 for _ in range(n)])


CASES = {
    # ---- implicit output order and letters
    "einsum/implicit_upper_before_lower": lambda L, d: L.einsum("bA", M(L, d, (2, 3))),
    "einsum/implicit_sorted": lambda L, d: L.einsum("ba", M(L, d, (2, 3))),
    "einsum/implicit_repeated_dropped": lambda L, d: L.einsum("ij,jk", M(L, d, (2, 3)), M(L, d, (3, 2))),
    "einsum/implicit_ellipsis_first": lambda L, d: L.einsum("i...", M(L, d, (2, 3, 4))),
    "einsum/all_52_letters": lambda L, d: L.einsum(string.ascii_letters[:52] + "->", L.ones([1] * 52, device=d)),
    "einsum/chain_26": lambda L, d: chain(L, d, 26),
    "einsum/chain_51": lambda L, d: chain(L, d, 51),
    "einsum/50_operands": lambda L, d: many(L, d, 50),
    "einsum/60_operands": lambda L, d: many(L, d, 60),
    "einsum/unicode_letter": lambda L, d: L.einsum("ié->é", M(L, d, (2, 3))),
    "einsum/tab_whitespace": lambda L, d: L.einsum("i\tj->j", M(L, d, (2, 3))),
    "einsum/newline": lambda L, d: L.einsum("ij\n->j", M(L, d, (2, 3))),
    "einsum/comma_trailing": lambda L, d: L.einsum("ij,->j", M(L, d, (2, 3))),
    "einsum/output_ellipsis_twice": lambda L, d: L.einsum("...i->......", M(L, d, (2, 3))),
    "einsum/arrow_no_output": lambda L, d: L.einsum("ij->", M(L, d, (2, 3))),
    "einsum/output_only_ellipsis": lambda L, d: L.einsum("...i->...", M(L, d, (2, 3))),
    # ---- sizes of 1 and broadcasting
    "einsum/label_size1_vs_n": lambda L, d: L.einsum("i,i->i", M(L, d, (1,)), M(L, d, (3,))),
    "einsum/label_size1_sum": lambda L, d: L.einsum("i,i->", M(L, d, (3,)), M(L, d, (1,))),
    "einsum/repeated_label_size1_and_n": lambda L, d: L.einsum("ii->i", M(L, d, (1, 3))),
    "einsum/ellipsis_broadcast_1": lambda L, d: L.einsum("...i,...i->...", M(L, d, (1, 3)), M(L, d, (4, 3))),
    "einsum/ellipsis_rank_differs": lambda L, d: L.einsum("...i,...i->...i", M(L, d, (2, 2, 3)), M(L, d, (3,))),
    "einsum/zero_size_contracted": lambda L, d: L.einsum("ij,jk->ik", M(L, d, (2, 0)), M(L, d, (0, 3))),
    "einsum/zero_size_kept": lambda L, d: L.einsum("ij->ji", M(L, d, (0, 3))),
    "einsum/zero_size_diag": lambda L, d: L.einsum("ii->i", M(L, d, (0, 0))),
    # ---- sublist format
    "einsum/sublist_ellipsis": lambda L, d: L.einsum(M(L, d, (2, 3, 4)), [Ellipsis, 0], [Ellipsis]),
    "einsum/sublist_ellipsis_two_operands": lambda L, d: L.einsum(M(L, d, (2, 3)), [Ellipsis, 1], M(L, d, (3,)), [1],
                                                                  [Ellipsis]),
    "einsum/sublist_51_ok": lambda L, d: L.einsum(M(L, d, (2, 2)), [0, 51], [51]),
    "einsum/sublist_52": lambda L, d: L.einsum(M(L, d, (2, 2)), [0, 52]),
    "einsum/sublist_float": lambda L, d: L.einsum(M(L, d, (2, 2)), [0.0, 1]),
    "einsum/sublist_str": lambda L, d: L.einsum(M(L, d, (2, 2)), ["a", "b"]),
    "einsum/sublist_tuple": lambda L, d: L.einsum(M(L, d, (2, 3)), (0, 1), (1,)),
    "einsum/sublist_missing_last": lambda L, d: L.einsum(M(L, d, (2, 3)), [0, 1], M(L, d, (3,))),
    "einsum/sublist_repeated_output": lambda L, d: L.einsum(M(L, d, (2, 3)), [0, 1], [0, 0]),
    # ---- dtypes
    "einsum/bool": lambda L, d: L.einsum("i,i->i", T(L, [True, False], d), T(L, [True, True], d)),
    "einsum/bool_sum": lambda L, d: L.einsum("i,i->", T(L, [True, False, True], d), T(L, [True, True, True], d)),
    "einsum/int8_overflow": lambda L, d: L.einsum("i,i->", T(L, [100, 100], d, "int8"), T(L, [2, 2], d, "int8")),
    "einsum/float16": lambda L, d: L.einsum("ij,jk->ik", M(L, d, (2, 3), "float16"), M(L, d, (3, 2), "float16")),
    "einsum/complex": lambda L, d: L.einsum("i,i->", T(L, [1 + 1j, 2j], d), T(L, [1 - 1j, 3], d)),
    "einsum/complex_and_float": lambda L, d: L.einsum("i,i->", T(L, [1 + 1j, 2j], d), T(L, [1.0, 3.0], d)),
    "einsum/int_and_bool": lambda L, d: L.einsum("i,i->i", T(L, [1, 2], d), T(L, [True, False], d)),
    "einsum/not_tensor_operand": lambda L, d: L.einsum("i,i->", M(L, d, (2,)), 3.0),
    "einsum/list_of_lists_operand": lambda L, d: L.einsum("i->", [[1.0, 2.0]]),
    # ---- gradients
    "einsum/grad_matmul": lambda L, d: grads(L, d, "ij,jk->ik", (2, 3), (3, 4)),
    "einsum/grad_trace": lambda L, d: grads(L, d, "ii->", (3, 3)),
    "einsum/grad_diag_out": lambda L, d: grads(L, d, "ii->i", (3, 3)),
    "einsum/grad_broadcast_1": lambda L, d: grads(L, d, "i,i->i", (1,), (3,)),
    "einsum/grad_outer_ellipsis": lambda L, d: grads(L, d, "...i,...j->...ij", (2, 3), (2, 4)),
    "einsum/grad_three": lambda L, d: grads(L, d, "ij,jk,kl->il", (2, 3), (3, 2), (2, 2)),
    "einsum/opt_einsum_disabled": lambda L, d: (lambda b: (setattr(b, "enabled", False),
                                                           L.einsum("ij,jk,kl->il", M(L, d, (2, 3)), M(L, d, (3, 4)),
                                                                    M(L, d, (4, 2))),
                                                           setattr(b, "enabled", True))[1])(L.backends.opt_einsum),
    "einsum/opt_einsum_strategy_bad": lambda L, d: setattr(L.backends.opt_einsum, "strategy", "fastest"),
    # ---- tensordot
    "tensordot/dims_tensor_pair": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)),
                                                           dims=T(L, [[1], [0]])),
    "tensordot/dims_1d_tensor": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=T(L, [1])),
    "tensordot/dims_empty_lists": lambda L, d: L.tensordot(M(L, d, (2,)), M(L, d, (3,)), dims=([], [])),
    "tensordot/dims_tuple_of_ints": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=(1, 0)),
    "tensordot/dims_three_lists": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=([1], [0], [0])),
    "tensordot/dims_neg_out_of_range": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=([-3], [0])),
    "tensordot/dims_str": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims="1"),
    "tensordot/dims_none": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=None),
    "tensordot/0d_operands": lambda L, d: L.tensordot(T(L, 2.0, d), T(L, 3.0, d), dims=0),
    "tensordot/int_operands": lambda L, d: L.tensordot(T(L, [[1, 2]], d), T(L, [[3], [4]], d), dims=1),
    "tensordot/out": lambda L, d: (lambda o: (L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=1, out=o), o)[1])(
        L.empty(0, device=d, dtype=L.float64)),
    "tensordot/out_wrong_dtype": lambda L, d: L.tensordot(M(L, d, (2, 3)), M(L, d, (3, 2)), dims=1,
                                                          out=L.empty(2, 2, device=d, dtype=L.float32)),
    "tensordot/grad": lambda L, d: (lambda a, b: (L.tensordot(a, b, dims=([0, 1], [1, 0])).sum().backward(), a.grad,
                                                  b.grad)[1:])(M(L, d, (2, 3)).requires_grad_(),
                                                               M(L, d, (3, 2)).requires_grad_()),
    # ---- kron / outer / inner / vdot / dot
    "kron/3d_1d": lambda L, d: L.kron(M(L, d, (2, 1, 2)), M(L, d, (3,))),
    "kron/0d_0d": lambda L, d: L.kron(T(L, 2.0, d), T(L, 3.0, d)),
    "kron/zero_size_both": lambda L, d: L.kron(M(L, d, (0, 2)), M(L, d, (2, 0))).shape,
    "kron/complex_int": lambda L, d: L.kron(T(L, [1j, 2], d), T(L, [1, 2], d)),
    "kron/out": lambda L, d: (lambda o: (L.kron(M(L, d, (2,)), M(L, d, (2,)), out=o), o)[1])(
        L.empty(0, device=d, dtype=L.float64)),
    "outer/0d": lambda L, d: L.outer(T(L, 2.0, d), M(L, d, (3,))),
    "outer/2d": lambda L, d: L.outer(M(L, d, (2, 2)), M(L, d, (3,))),
    "outer/bool": lambda L, d: L.outer(T(L, [True, False], d), T(L, [True, True], d)),
    "outer/int_float": lambda L, d: L.outer(T(L, [1, 2], d), M(L, d, (2,))),
    "ger/ok": lambda L, d: L.ger(M(L, d, (2,)), M(L, d, (3,))),
    "inner/zero_size": lambda L, d: L.inner(M(L, d, (2, 0)), M(L, d, (3, 0))),
    "inner/1d_mismatch": lambda L, d: L.inner(M(L, d, (2,)), M(L, d, (3,))),
    "inner/int_float": lambda L, d: L.inner(T(L, [1, 2], d), M(L, d, (2,))),
    "vdot/mismatch": lambda L, d: L.vdot(M(L, d, (2,)), M(L, d, (3,))),
    "vdot/int": lambda L, d: L.vdot(T(L, [1, 2], d), T(L, [3, 4], d)),
    "vdot/mixed_dtypes": lambda L, d: L.vdot(T(L, [1, 2], d), M(L, d, (2,))),
    "vdot/complex_conj": lambda L, d: L.vdot(T(L, [1j, 2], d), T(L, [1j, 1], d)),
    "vdot/empty": lambda L, d: L.vdot(M(L, d, (0,)), M(L, d, (0,))),
    "dot/bool": lambda L, d: L.dot(T(L, [True, False], d), T(L, [True, True], d)),
    "dot/empty_int": lambda L, d: L.dot(T(L, [], d, "int64"), T(L, [], d, "int64")),
    "dot/0d": lambda L, d: L.dot(T(L, 2.0, d), T(L, 3.0, d)),
    # ---- chain_matmul / multi_dot
    "chain_matmul/none": lambda L, d: L.chain_matmul(),
    "chain_matmul/zero_size": lambda L, d: L.chain_matmul(M(L, d, (2, 0)), M(L, d, (0, 3)), M(L, d, (3, 2))),
    "chain_matmul/int": lambda L, d: L.chain_matmul(T(L, [[1, 2]], d), T(L, [[3], [4]], d)),
    "multi_dot/1d_both_ends": lambda L, d: L.linalg.multi_dot([M(L, d, (3,)), M(L, d, (3, 2)), M(L, d, (2,))]),
    "multi_dot/two_1d": lambda L, d: L.linalg.multi_dot([M(L, d, (3,)), M(L, d, (3,))]),
    "multi_dot/zero_size_middle": lambda L, d: L.linalg.multi_dot([M(L, d, (2, 0)), M(L, d, (0, 3)), M(L, d, (3, 2))]),
    "multi_dot/tuple": lambda L, d: L.linalg.multi_dot((M(L, d, (2, 3)), M(L, d, (3, 2)))),
    "multi_dot/not_tensors": lambda L, d: L.linalg.multi_dot([[1.0], [2.0]]),
    "multi_dot/int": lambda L, d: L.linalg.multi_dot([T(L, [[1, 2]], d), T(L, [[3], [4]], d), T(L, [[5]], d)]),
    "multi_dot/out": lambda L, d: (lambda o: (L.linalg.multi_dot([M(L, d, (2, 3)), M(L, d, (3, 2))], out=o), o)[1])(
        L.empty(0, device=d, dtype=L.float64)),
    "multi_dot/grad": lambda L, d: (lambda a, b, c: (L.linalg.multi_dot([a, b, c]).sum().backward(), a.grad, c.grad)[
        1:])(M(L, d, (2, 3)).requires_grad_(), M(L, d, (3, 4)), M(L, d, (4,)).requires_grad_()),
}

KNOWN = {
}
