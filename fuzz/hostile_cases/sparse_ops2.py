"""Sparse COO ops added after the first sparse table: cat/stack/unsqueeze of sparse tensors, bmm of sparse batches,
sparse_mask, smm, hspmm, sampled_addmm, coalesce of huge/negative/duplicate indices, to_dense of uncoalesced input,
mixed sparse/dense/dtype operands, sparse.sum over dims and sparse.softmax."""
from . import T


def coo(L, d, indices=((0, 1, 1), (2, 0, 2)), values=(3., 4., 5.), size=(2, 3), dtype=None, **kw):
    v = T(L, list(values), d)
    if dtype:
        v = v.to(getattr(L, dtype))
    return L.sparse_coo_tensor(T(L, [list(r) for r in indices], d), v, size, **kw)


def dup(L, d):
    """Uncoalesced: (1, 2) twice, (0, 0) once, out of order."""
    return coo(L, d, indices=((1, 0, 1), (2, 0, 2)), values=(1., 2., 3.))


def batch(L, d, nb=2, size=(2, 3)):
    """A 3-d sparse batch: one entry per batch, plus a duplicate in the last."""
    idx = [[0, 1, 1], [0, 1, 1], [1, 2, 2]]
    return L.sparse_coo_tensor(T(L, idx, d), T(L, [1., 2., 3.], d), (nb,) + size)


def dense(L, d, shape=(3, 2), dtype="float32"):
    n = 1
    for s in shape:
        n *= s
    return L.arange(float(n), device=d).reshape(shape).to(getattr(L, dtype)) - 2


def hybrid(L, d):
    return L.sparse_coo_tensor(T(L, [[0, 2]], d), T(L, [[1., 2.], [3., 4.]], d), (3, 2))


def dense_of(t):
    return t.to_dense()


CASES = {
    # ---- cat / stack / unsqueeze
    "cat/dim0": lambda L, d: L.cat([coo(L, d), dup(L, d)], 0).to_dense(),
    "cat/dim1": lambda L, d: L.cat([coo(L, d), dup(L, d)], 1).to_dense(),
    "cat/negative_dim": lambda L, d: L.cat([coo(L, d), dup(L, d)], -1).to_dense(),
    "cat/dim_out_of_range": lambda L, d: L.cat([coo(L, d), dup(L, d)], 2),
    "cat/shape_mismatch": lambda L, d: L.cat([coo(L, d), coo(L, d, size=(2, 4))], 0),
    "cat/mixed_dense": lambda L, d: L.cat([coo(L, d), dense(L, d, (2, 3))], 0),
    "cat/dense_then_sparse": lambda L, d: L.cat([dense(L, d, (2, 3)), coo(L, d)], 0),
    "cat/dtype_mismatch": lambda L, d: L.cat([coo(L, d), coo(L, d, dtype="float64")], 0).to_dense(),
    "cat/int_and_float": lambda L, d: L.cat([coo(L, d, dtype="int64"), coo(L, d)], 0).to_dense(),
    "cat/single": lambda L, d: L.cat([coo(L, d)], 0).to_dense(),
    "cat/empty_list": lambda L, d: L.cat([], 0),
    "cat/hybrid_dense_dim": lambda L, d: L.cat([hybrid(L, d), hybrid(L, d)], 1).to_dense(),
    "cat/hybrid_sparse_dim": lambda L, d: L.cat([hybrid(L, d), hybrid(L, d)], 0).to_dense(),
    "cat/sparse_dim_mismatch": lambda L, d: L.cat([hybrid(L, d), coo(L, d, size=(3, 3)).to_dense()[:, :2]
                                                   .to_sparse()], 0),
    "cat/empty_nnz": lambda L, d: L.cat([coo(L, d, indices=((), ()), values=()), coo(L, d)], 0).to_dense(),
    "cat/is_coalesced": lambda L, d: L.cat([coo(L, d).coalesce(), coo(L, d).coalesce()], 0).is_coalesced(),
    "stack/dim0": lambda L, d: L.stack([coo(L, d), dup(L, d)]).to_dense(),
    "stack/dim2": lambda L, d: L.stack([coo(L, d), dup(L, d)], 2).to_dense(),
    "stack/dim_out_of_range": lambda L, d: L.stack([coo(L, d), dup(L, d)], 4),
    "stack/shape_mismatch": lambda L, d: L.stack([coo(L, d), coo(L, d, size=(3, 3))]),
    "stack/mixed_dense": lambda L, d: L.stack([coo(L, d), dense(L, d, (2, 3))]),
    "stack/hybrid": lambda L, d: L.stack([hybrid(L, d), hybrid(L, d)], 1).to_dense(),
    "unsqueeze/dim0": lambda L, d: coo(L, d).unsqueeze(0).to_dense(),
    "unsqueeze/last": lambda L, d: coo(L, d).unsqueeze(-1).to_dense(),
    "unsqueeze/out_of_range": lambda L, d: coo(L, d).unsqueeze(4),
    "unsqueeze/hybrid_dense_part": lambda L, d: (hybrid(L, d).unsqueeze(2).to_dense(),
                                                 hybrid(L, d).unsqueeze(2).sparse_dim()),
    "unsqueeze/sparse_dims": lambda L, d: (coo(L, d).unsqueeze(1).sparse_dim(), coo(L, d).unsqueeze(1).dense_dim()),
    # ---- bmm
    "bmm/ok": lambda L, d: L.bmm(batch(L, d), dense(L, d, (2, 3, 2))),
    "bmm/batch_mismatch": lambda L, d: L.bmm(batch(L, d), dense(L, d, (3, 3, 2))),
    "bmm/inner_mismatch": lambda L, d: L.bmm(batch(L, d), dense(L, d, (2, 4, 2))),
    "bmm/2d_sparse": lambda L, d: L.bmm(coo(L, d), dense(L, d)),
    "bmm/dtype_mismatch": lambda L, d: L.bmm(batch(L, d), dense(L, d, (2, 3, 2), "float64")),
    "bmm/empty_batch": lambda L, d: L.bmm(L.sparse_coo_tensor(L.zeros(3, 0, dtype=L.int64, device=d),
                                                              L.zeros(0, device=d), (0, 2, 3)),
                                          dense(L, d, (0, 3, 2))),
    "bmm/dense_sparse": lambda L, d: L.bmm(dense(L, d, (2, 2, 2)), batch(L, d, size=(2, 3))),
    "bmm/sparse_sparse": lambda L, d: L.bmm(batch(L, d), batch(L, d, size=(3, 3))),
    "bmm/hybrid": lambda L, d: L.bmm(L.sparse_coo_tensor(T(L, [[0], [1]], d), T(L, [[1., 2., 3.]], d), (1, 2, 3)),
                                     dense(L, d, (1, 3, 2))),
    "bmm/grad": lambda L, d: _bmm_grad(L, d),
    # ---- sparse_mask
    "sparse_mask/ok": lambda L, d: dense(L, d, (2, 3)).sparse_mask(coo(L, d)).to_dense(),
    "sparse_mask/uncoalesced_mask": lambda L, d: dense(L, d, (2, 3)).sparse_mask(dup(L, d)).to_dense(),
    "sparse_mask/shape_mismatch": lambda L, d: dense(L, d, (3, 3)).sparse_mask(coo(L, d)),
    "sparse_mask/dense_mask": lambda L, d: dense(L, d, (2, 3)).sparse_mask(dense(L, d, (2, 3))),
    "sparse_mask/dtype_differs": lambda L, d: dense(L, d, (2, 3), "float64").sparse_mask(coo(L, d)).to_dense(),
    "sparse_mask/int_self": lambda L, d: dense(L, d, (2, 3), "int64").sparse_mask(coo(L, d)).to_dense(),
    "sparse_mask/hybrid": lambda L, d: dense(L, d, (3, 2)).sparse_mask(hybrid(L, d)).to_dense(),
    "sparse_mask/sparse_self": lambda L, d: coo(L, d).sparse_mask(dup(L, d)).to_dense(),
    "sparse_mask/values_coalesced": lambda L, d: dense(L, d, (2, 3)).sparse_mask(dup(L, d)).is_coalesced(),
    # ---- smm / hspmm / sspaddmm
    "smm/ok": lambda L, d: L.smm(coo(L, d), dense(L, d)).to_dense(),
    "smm/shape_mismatch": lambda L, d: L.smm(coo(L, d), dense(L, d, (2, 2))),
    "smm/dense_first": lambda L, d: L.smm(dense(L, d, (2, 3)), dense(L, d)),
    "hspmm/ok": lambda L, d: L.hspmm(dup(L, d), dense(L, d)).to_dense(),
    "hspmm/layout": lambda L, d: (str(L.hspmm(coo(L, d), dense(L, d)).layout),
                                  L.hspmm(coo(L, d), dense(L, d)).sparse_dim()),
    "hspmm/shape_mismatch": lambda L, d: L.hspmm(coo(L, d), dense(L, d, (4, 2))),
    "hspmm/dense_first": lambda L, d: L.hspmm(dense(L, d, (2, 3)), dense(L, d)),
    "hspmm/3d": lambda L, d: L.hspmm(batch(L, d), dense(L, d)),
    "smm/3d": lambda L, d: L.smm(batch(L, d), dense(L, d)),
    "mul/dense_higher_rank": lambda L, d: coo(L, d) * dense(L, d, (2, 2, 3)),
    "hspmm/int": lambda L, d: L.hspmm(coo(L, d, dtype="int64"), dense(L, d, dtype="int64")).to_dense(),
    "sspaddmm/ok": lambda L, d: L.sspaddmm(coo(L, d, size=(2, 2), indices=((0, 1, 1), (1, 0, 1))), coo(L, d),
                                           dense(L, d)).to_dense(),
    "sspaddmm/shape_mismatch": lambda L, d: L.sspaddmm(coo(L, d), coo(L, d), dense(L, d)),
    # ---- sampled_addmm
    "sampled_addmm/csr_ok": lambda L, d: L.sparse.sampled_addmm(coo(L, d).to_sparse_csr(), dense(L, d, (2, 4)),
                                                                dense(L, d, (4, 3))).to_dense(),
    "sampled_addmm/coo_input": lambda L, d: L.sparse.sampled_addmm(coo(L, d), dense(L, d, (2, 4)),
                                                                   dense(L, d, (4, 3))),
    "sampled_addmm/shape_mismatch": lambda L, d: L.sparse.sampled_addmm(coo(L, d).to_sparse_csr(),
                                                                        dense(L, d, (2, 4)), dense(L, d, (5, 3))),
    "sampled_addmm/beta_alpha": lambda L, d: L.sparse.sampled_addmm(coo(L, d).to_sparse_csr(), dense(L, d, (2, 4)),
                                                                    dense(L, d, (4, 3)), beta=0.5,
                                                                    alpha=2).to_dense(),
    "sampled_addmm/dtype_mismatch": lambda L, d: L.sparse.sampled_addmm(coo(L, d).to_sparse_csr(),
                                                                        dense(L, d, (2, 4), "float64"),
                                                                        dense(L, d, (4, 3))),
    "sampled_addmm/dense_input": lambda L, d: L.sparse.sampled_addmm(dense(L, d, (2, 3)), dense(L, d, (2, 4)),
                                                                     dense(L, d, (4, 3))),
    # ---- coalesce of odd indices
    "coalesce/duplicates": lambda L, d: (dup(L, d).coalesce().indices(), dup(L, d).coalesce().values()),
    "coalesce/many_duplicates": lambda L, d: coo(L, d, indices=((1,) * 50, (2,) * 50), values=(0.1,) * 50)
    .coalesce().values(),
    "coalesce/already": lambda L, d: coo(L, d).coalesce().coalesce().is_coalesced(),
    "coalesce/huge_size": lambda L, d: coo(L, d, indices=((2**40, 0), (0, 2**41)), values=(1., 2.),
                                           size=(2**41, 2**42)).coalesce().indices(),
    "coalesce/huge_size_dups": lambda L, d: coo(L, d, indices=((2**40, 2**40), (5, 5)), values=(1., 2.),
                                                size=(2**41, 2**42)).coalesce().values(),
    "coalesce/index_overflow_product": lambda L, d: coo(L, d, indices=((2**62, 0), (0, 2**62)), values=(1., 2.),
                                                        size=(2**62 + 1, 2**62 + 1)).coalesce().values(),
    "coalesce/negative_check_invariants": lambda L, d: L.sparse_coo_tensor(
        T(L, [[0, -1]], d), T(L, [1., 2.], d), (3,), check_invariants=True),
    "coalesce/empty": lambda L, d: coo(L, d, indices=((), ()), values=()).coalesce().indices().shape,
    "coalesce/zero_size_dim": lambda L, d: L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.int64, device=d),
                                                               L.zeros(0, device=d), (0, 3)).coalesce().shape,
    "coalesce/hybrid_dups": lambda L, d: L.sparse_coo_tensor(T(L, [[1, 1]], d), T(L, [[1., 2.], [3., 4.]], d),
                                                             (3, 2)).coalesce().values(),
    "coalesce/int_values_dups": lambda L, d: coo(L, d, indices=((0, 0), (0, 0)), values=(2**62, 2**62),
                                                 dtype="int64").coalesce().values(),
    "coalesce/bool_values_dups": lambda L, d: L.sparse_coo_tensor(T(L, [[0, 0]], d), T(L, [True, True], d),
                                                                  (2,)).coalesce().values(),
    "coalesce/nan_values": lambda L, d: coo(L, d, indices=((0, 0), (0, 0)), values=(float("nan"), 1.))
    .coalesce().values(),
    "to_dense/uncoalesced": lambda L, d: dup(L, d).to_dense(),
    "to_dense/uncoalesced_int": lambda L, d: coo(L, d, indices=((1, 0, 1), (2, 0, 2)), values=(1, 2, 3),
                                                 dtype="int64").to_dense(),
    "to_dense/uncoalesced_hybrid": lambda L, d: L.sparse_coo_tensor(T(L, [[2, 0, 2]], d),
                                                                    T(L, [[1., 2.], [3., 4.], [5., 6.]], d),
                                                                    (3, 2)).to_dense(),
    "to_dense/dtype_arg": lambda L, d: dup(L, d).to_dense(dtype=L.float64),
    "to_dense/masked_grad": lambda L, d: dup(L, d).to_dense(masked_grad=True),
    "values/of_uncoalesced_hybrid": lambda L, d: hybrid(L, d).values(),
    "indices/uncoalesced": lambda L, d: dup(L, d).indices(),
    # ---- mixed sparse / dense / dtypes
    "add/sparse_plus_dense": lambda L, d: coo(L, d) + dense(L, d, (2, 3)),
    "add/dense_plus_sparse": lambda L, d: dense(L, d, (2, 3)) + coo(L, d),
    "add/sparse_plus_int_sparse": lambda L, d: (coo(L, d) + coo(L, d, dtype="int64")).to_dense(),
    "add/sparse_plus_scalar": lambda L, d: coo(L, d) + 1,
    "add/broadcast_dense": lambda L, d: coo(L, d) + dense(L, d, (1, 3)),
    "mul/sparse_dense_broadcast": lambda L, d: (coo(L, d) * dense(L, d, (2, 3))).to_dense(),
    "mul/sparse_uncoalesced_both": lambda L, d: (dup(L, d) * dup(L, d)).to_dense(),
    "mul/sparse_dense_shape_mismatch": lambda L, d: coo(L, d) * dense(L, d, (3, 2)),
    "matmul/sparse_1d_dense": lambda L, d: L.matmul(coo(L, d), dense(L, d, (3,))),
    "matmul/dense_sparse": lambda L, d: L.matmul(dense(L, d, (2, 2)), coo(L, d)),
    "mm/int_sparse_float_dense": lambda L, d: L.mm(coo(L, d, dtype="int64"), dense(L, d)),
    "mm/sparse_sparse": lambda L, d: L.mm(coo(L, d), dup(L, d).t()).to_dense(),
    "mv/ok": lambda L, d: L.mv(dup(L, d), dense(L, d, (3,))),
    "mv/shape_mismatch": lambda L, d: L.mv(dup(L, d), dense(L, d, (2,))),
    "addmm/sparse_mat1": lambda L, d: L.addmm(dense(L, d, (2, 2)), dup(L, d), dense(L, d)),
    "where/sparse_condition": lambda L, d: L.where(coo(L, d) > 0, 1.0, 0.0),
    # ---- sparse.sum over dims
    "sum/dim0": lambda L, d: L.sparse.sum(dup(L, d), 0).to_dense(),
    "sum/dim1": lambda L, d: L.sparse.sum(dup(L, d), 1).to_dense(),
    "sum/both_dims": lambda L, d: L.sparse.sum(dup(L, d), (0, 1)),
    "sum/negative_dim": lambda L, d: L.sparse.sum(dup(L, d), -1).to_dense(),
    "sum/dim_out_of_range": lambda L, d: L.sparse.sum(dup(L, d), 2),
    "sum/repeated_dim": lambda L, d: L.sparse.sum(dup(L, d), (0, 0)),
    "sum/dense_dim": lambda L, d: L.sparse.sum(hybrid(L, d), 1).to_dense(),
    "sum/sparse_dim_of_hybrid": lambda L, d: L.sparse.sum(hybrid(L, d), 0),
    "sum/dtype": lambda L, d: L.sparse.sum(dup(L, d), dtype=L.float64),
    "sum/int_values": lambda L, d: L.sparse.sum(coo(L, d, dtype="int64")),
    "sum/bool_values": lambda L, d: L.sparse.sum(coo(L, d) > 3),
    "sum/empty": lambda L, d: L.sparse.sum(coo(L, d, indices=((), ()), values=())),
    "sum/dense_input": lambda L, d: L.sparse.sum(dense(L, d, (2, 3)), 0),
    "sum/dense_input_no_dim": lambda L, d: L.sparse.sum(dense(L, d, (2, 3))),
    "sum/empty_dim_list": lambda L, d: L.sparse.sum(dup(L, d), []),
    "sum/method_dim": lambda L, d: dup(L, d).sum(1).to_dense(),
    "sum/method_keepdim": lambda L, d: dup(L, d).sum(1, keepdim=True),
    # ---- sparse.softmax / log_softmax
    "softmax/dim0": lambda L, d: L.sparse.softmax(dup(L, d), 0).to_dense(),
    "softmax/dim1": lambda L, d: L.sparse.softmax(dup(L, d), 1).to_dense(),
    "softmax/dim_out_of_range": lambda L, d: L.sparse.softmax(dup(L, d), 2),
    "softmax/negative_dim": lambda L, d: L.sparse.softmax(dup(L, d), -1).to_dense(),
    "softmax/dtype": lambda L, d: L.sparse.softmax(dup(L, d), 1, dtype=L.float64).to_dense(),
    "softmax/int_values": lambda L, d: L.sparse.softmax(coo(L, d, dtype="int64"), 1),
    "softmax/hybrid_dense_dim": lambda L, d: L.sparse.softmax(hybrid(L, d), 1).to_dense(),
    "softmax/empty": lambda L, d: L.sparse.softmax(coo(L, d, indices=((), ()), values=()), 1).to_dense(),
    "softmax/inf_values": lambda L, d: L.sparse.softmax(coo(L, d, values=(float("inf"), 1., float("-inf"))),
                                                        1).to_dense(),
    "softmax/dense_input": lambda L, d: L.sparse.softmax(dense(L, d, (2, 3)), 1),
    "log_softmax/dense_input": lambda L, d: L.sparse.log_softmax(dense(L, d, (2, 3)), 1),
    "log_softmax/dim1": lambda L, d: L.sparse.log_softmax(dup(L, d), 1).to_dense(),
    "log_softmax/3d": lambda L, d: L.sparse.log_softmax(batch(L, d), 2).to_dense(),
    "softmax/grad": lambda L, d: _softmax_grad(L, d),
    # ---- devices
    "device/mm_sparse_cpu_dense": lambda L, d: L.sparse.mm(coo(L, "cpu"), dense(L, d)),
    "device/cat_across": lambda L, d: L.cat([coo(L, d), coo(L, "cpu")], 0).to_dense(),
}


def _bmm_grad(L, d):
    x = dense(L, d, (2, 3, 2)).requires_grad_()
    L.bmm(batch(L, d), x).sum().backward()
    return x.grad


def _softmax_grad(L, d):
    v = T(L, [1., 2., 3.], d).requires_grad_()
    s = L.sparse_coo_tensor(T(L, [[0, 1, 1], [2, 0, 2]], d), v, (2, 3))
    L.sparse.softmax(s, 1).to_dense().pow(2).sum().backward()
    return v.grad


_DISPATCH_LIST = ("wording: PyTorch's first line goes on to list its dispatch keys and build options; tandem's stops "
                  "after the backend (the same exception type and opening)")
_ORACLE_ON_CPU = ("the oracle runs every tensor on the CPU; PyTorch on a GPU refuses a CPU operand as tandem does on "
                  "cuda:0")
KNOWN = {
    "bmm/dense_sparse": _DISPATCH_LIST,
    "cat/dense_then_sparse": _DISPATCH_LIST,
    "hspmm/dense_first": _DISPATCH_LIST,
    "sampled_addmm/coo_input": _DISPATCH_LIST,
    "sampled_addmm/dense_input": _DISPATCH_LIST,
    "sparse_mask/dense_mask": _DISPATCH_LIST,
    "softmax/dense_input": _DISPATCH_LIST,
    "log_softmax/dense_input": _DISPATCH_LIST,
    "sum/dense_input": _DISPATCH_LIST,
    "sum/bool_values": _DISPATCH_LIST,
    "where/sparse_condition": _DISPATCH_LIST,
    "sspaddmm/ok": "not provided: tandem has no torch.sspaddmm (sparse + sparse @ dense as sparse); smm runs alone",
    "sspaddmm/shape_mismatch": "not provided: tandem has no torch.sspaddmm",
    "mul/dense_higher_rank": "left: sparse * dense keeps the sparse operand's size; PyTorch broadcasts a dense operand "
                             "of higher rank into a larger sparse result, tandem refuses (expand's error)",
    "device/mm_sparse_cpu_dense": _ORACLE_ON_CPU,
    "device/cat_across": _ORACLE_ON_CPU,
}
