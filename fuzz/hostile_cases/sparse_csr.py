"""Sparse CSR (python/tandem/sparse/_csr.py): construction with broken crow/col indices, sizes and dtypes, the
conversions, and products with mismatched or empty operands."""
from . import T


def csr(L, d, crow=(0, 2, 3, 3), col=(0, 2, 1), values=(1., 2., 3.), size=(3, 4), index_dtype="int64", **kw):
    return L.sparse_csr_tensor(T(L, list(crow), d, index_dtype), T(L, list(col), d, index_dtype),
                               T(L, list(values), d), size, **kw)


def dense(L, d, rows=4, cols=2):
    return L.arange(float(rows * cols), device=d).reshape(rows, cols)


CASES = {
    # ---- construction
    "construct/ok": lambda L, d: csr(L, d).to_dense(),
    "construct/int32": lambda L, d: csr(L, d, index_dtype="int32").to_dense(),
    "construct/infer_size": lambda L, d: L.sparse_csr_tensor(T(L, [0, 1, 3], d), T(L, [4, 0, 2], d),
                                                             T(L, [1., 2., 3.], d)).shape,
    "construct/empty": lambda L, d: csr(L, d, crow=(0, 0, 0), col=(), values=(), size=(2, 2)).to_dense(),
    "construct/empty_lists": lambda L, d: L.sparse_csr_tensor([0, 0, 0], [], [], (2, 2)).to_dense(),
    "construct/empty_float_col": lambda L, d: L.sparse_csr_tensor(T(L, [0, 0, 0], d), T(L, [], d), T(L, [], d),
                                                                  (2, 2)),
    "construct/crow_too_long": lambda L, d: csr(L, d, size=(2, 4)),
    "construct/crow_first_nonzero": lambda L, d: csr(L, d, crow=(1, 2, 3, 3)),
    "construct/crow_last_not_nnz": lambda L, d: csr(L, d, crow=(0, 2, 3, 4)),
    "construct/crow_decreasing": lambda L, d: csr(L, d, crow=(0, 2, 1, 3)),
    "construct/col_negative": lambda L, d: csr(L, d, col=(0, -1, 1)),
    "construct/col_past_size": lambda L, d: csr(L, d, size=(3, 2)),
    "construct/col_int64_max": lambda L, d: csr(L, d, col=(0, 2**63 - 1, 1)),
    "construct/values_short": lambda L, d: csr(L, d, values=(1., 2.)),
    "construct/size_3d": lambda L, d: csr(L, d, size=(3, 4, 5)),
    "construct/size_negative": lambda L, d: csr(L, d, size=(-3, 4)),
    "construct/huge_size": lambda L, d: csr(L, d, size=(3, 2**62)).shape,
    "construct/crow_float": lambda L, d: L.sparse_csr_tensor(T(L, [0., 1.], d), T(L, [0], d), T(L, [1.], d),
                                                             (1, 1)),
    "construct/dtypes_differ": lambda L, d: L.sparse_csr_tensor(T(L, [0, 1], d), T(L, [0], d, "int32"),
                                                                T(L, [1.], d), (1, 1)),
    "construct/unsorted_checked": lambda L, d: csr(L, d, col=(2, 0, 1), check_invariants=True),
    "construct/unsorted_unchecked": lambda L, d: csr(L, d, col=(2, 0, 1)).to_dense(),
    "construct/repeated_unchecked": lambda L, d: csr(L, d, col=(0, 0, 1)).to_dense(),
    "construct/requires_grad_int": lambda L, d: L.sparse_csr_tensor(T(L, [0, 1], d), T(L, [0], d), T(L, [1], d),
                                                                    (1, 1), requires_grad=True),
    # ---- conversions
    "to_sparse_csr/3d": lambda L, d: L.ones(2, 2, 2, device=d).to_sparse_csr(),
    "to_sparse_csr/dense_dim": lambda L, d: L.ones(2, 2, device=d).to_sparse_csr(dense_dim=1),
    "to_sparse_csr/zeros": lambda L, d: L.zeros(3, 3, device=d).to_sparse_csr().to_dense(),
    "to_sparse_csr/empty": lambda L, d: L.zeros(0, 3, device=d).to_sparse_csr().to_dense(),
    "to_sparse_csr/from_coo_uncoalesced": lambda L, d: L.sparse_coo_tensor(
        T(L, [[1, 0, 1], [2, 0, 2]], d), T(L, [1., 2., 3.], d), (2, 3)).to_sparse_csr().to_dense(),
    "to_sparse_csr/from_coo_3d": lambda L, d: L.sparse_coo_tensor(T(L, [[0], [0], [0]], d), T(L, [1.], d),
                                                                  (1, 1, 1)).to_sparse_csr(),
    "to_sparse_coo/ok": lambda L, d: csr(L, d).to_sparse_coo().to_dense(),
    "to_dense/dtype": lambda L, d: csr(L, d).to_dense(L.float64),
    # ---- math
    "mm/ok": lambda L, d: L.mm(csr(L, d), dense(L, d)),
    "mm/shapes": lambda L, d: L.mm(csr(L, d), dense(L, d, 3, 2)),
    "mm/dtypes_differ": lambda L, d: L.mm(csr(L, d), dense(L, d).double()),
    "mm/1d_dense": lambda L, d: L.mm(csr(L, d), L.ones(4, device=d)),
    "mm/empty": lambda L, d: L.mm(csr(L, d, crow=(0, 0, 0), col=(), values=(), size=(2, 4)), dense(L, d)),
    "mm/dense_csr_shapes": lambda L, d: L.mm(dense(L, d, 2, 2), csr(L, d)),
    "matmul/vector": lambda L, d: csr(L, d) @ L.ones(4, device=d),
    "matmul/csr_csr": lambda L, d: (csr(L, d) @ csr(L, d, size=(4, 3), crow=(0, 2, 3, 3, 3))).to_dense(),
    "addmm/ok": lambda L, d: L.addmm(L.ones(3, 2, device=d), csr(L, d), dense(L, d), beta=0.5, alpha=2),
    "addmm/input_shape": lambda L, d: L.addmm(L.ones(2, 2, device=d), csr(L, d), dense(L, d)),
    "mul/scalar": lambda L, d: (csr(L, d) * 2).to_dense(),
    "sum/all": lambda L, d: csr(L, d).sum(),
    "sum/dim": lambda L, d: csr(L, d).sum(0),
    "t": lambda L, d: csr(L, d).t(),
    "numpy": lambda L, d: csr(L, d).numpy(),
    "is_contiguous": lambda L, d: csr(L, d).is_contiguous(),
    "dense_methods/crow_indices": lambda L, d: dense(L, d).crow_indices(),
}

_CHECKED = ("tandem checks the CSR invariants that would read the wrong element at construction always "
            "(docs/ops.md); PyTorch only under check_invariants=True and otherwise builds a broken tensor")
KNOWN = {name: _CHECKED for name in (
    "construct/crow_too_long", "construct/crow_first_nonzero", "construct/crow_last_not_nnz",
    "construct/crow_decreasing", "construct/col_negative", "construct/col_past_size", "construct/col_int64_max",
    "construct/values_short", "construct/size_3d", "construct/crow_float", "construct/dtypes_differ",
    "construct/empty_float_col")}
KNOWN.update({
    "construct/size_negative": "PyTorch reports an incidental numel overflow; tandem the negative dimension",
    "to_sparse_csr/3d": "batched CSR is not supported (tandem names the 2-d requirement; PyTorch's batched rule)",
    "t": "the transpose of a CSR tensor is CSC, which tandem lacks (NotImplementedError)",
    "mul/scalar": "same values; PyTorch's to_dense after a scalar product",
})
