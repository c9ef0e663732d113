"""Sparse COO (python/tandem/sparse): construction with bad indices/values/sizes, and the math on it with
mismatched shapes, dtypes, empty and hybrid tensors."""
from . import T


def coo(L, d, indices=((0, 1, 1), (2, 0, 2)), values=(3., 4., 5.), size=(2, 3), **kw):
    return L.sparse_coo_tensor(T(L, [list(r) for r in indices], d), T(L, list(values), d), size, **kw)


def dense(L, d, rows=3, cols=2):
    return L.arange(float(rows * cols), device=d).reshape(rows, cols)


CASES = {
    # ---- construction
    "construct/ok": lambda L, d: coo(L, d).to_dense(),
    "construct/negative_index": lambda L, d: coo(L, d, indices=((0, -1, 1), (2, 0, 2))),
    "construct/index_past_size": lambda L, d: coo(L, d, size=(2, 2)),
    "construct/negative_size": lambda L, d: coo(L, d, size=(2, -3)),
    "construct/size_too_short": lambda L, d: coo(L, d, size=(2,)),
    "construct/size_too_long": lambda L, d: coo(L, d, size=(2, 3, 4)),
    "construct/nnz_mismatch": lambda L, d: coo(L, d, values=(1., 2.)),
    "construct/indices_1d": lambda L, d: L.sparse_coo_tensor(T(L, [0, 1], d), T(L, [1., 2.], d), (2,)),
    "construct/indices_float": lambda L, d: L.sparse_coo_tensor(T(L, [[0., 1.]], d), T(L, [1., 2.], d), (2,)),
    "construct/indices_int32": lambda L, d: L.sparse_coo_tensor(T(L, [[0, 1]], d, "int32"), T(L, [1., 2.], d),
                                                                (2,)).to_dense(),
    "construct/values_0dim": lambda L, d: L.sparse_coo_tensor(T(L, [[0]], d), T(L, 1., d), (2,)),
    "construct/infer_size": lambda L, d: L.sparse_coo_tensor(T(L, [[0, 4]], d), T(L, [1., 2.], d)).shape,
    "construct/infer_size_empty": lambda L, d: L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.int64, device=d),
                                                                   L.zeros(0, device=d)).shape,
    "construct/empty": lambda L, d: L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.int64, device=d), L.zeros(0, device=d),
                                                        (3, 3)).to_dense(),
    "construct/hybrid": lambda L, d: L.sparse_coo_tensor(T(L, [[0, 2]], d), T(L, [[1., 2.], [3., 4.]], d),
                                                         (3, 2)).to_dense(),
    "construct/hybrid_dense_size_wrong": lambda L, d: L.sparse_coo_tensor(T(L, [[0, 2]], d),
                                                                          T(L, [[1., 2.], [3., 4.]], d), (3, 3)),
    "construct/duplicates": lambda L, d: coo(L, d, indices=((0, 0), (1, 1)), values=(1., 2.)).to_dense(),
    "construct/huge_size": lambda L, d: coo(L, d, size=(2**62, 2**62)).shape,
    "construct/values_list": lambda L, d: L.sparse_coo_tensor([[0, 1]], [1, 2], (2,)).to_dense(),
    "construct/values_bool": lambda L, d: L.sparse_coo_tensor(T(L, [[0, 1]], d), T(L, [True, False], d),
                                                              (2,)).to_dense(),
    "construct/dtype_conversion": lambda L, d: coo(L, d, dtype=L.float64).to_dense(),
    "construct/is_coalesced_true_unsorted": lambda L, d: coo(L, d, indices=((1, 0), (0, 0)), values=(1., 2.),
                                                             is_coalesced=True).to_dense(),
    "construct/requires_grad_int": lambda L, d: L.sparse_coo_tensor(T(L, [[0]], d), T(L, [1], d), (2,),
                                                                    requires_grad=True),
    "construct/index_int64_max": lambda L, d: coo(L, d, indices=((0, 2**63 - 1, 1), (2, 0, 2))),
    # ---- math
    "to_dense/coalesce": lambda L, d: coo(L, d, indices=((1, 0, 1), (2, 0, 2))).coalesce().values(),
    "values/uncoalesced": lambda L, d: coo(L, d).values(),
    "mm/ok": lambda L, d: L.sparse.mm(coo(L, d), dense(L, d)),
    "mm/shapes": lambda L, d: L.sparse.mm(coo(L, d), dense(L, d, 2, 2)),
    "mm/dtypes_differ": lambda L, d: L.sparse.mm(coo(L, d), dense(L, d).double()),
    "mm/1d_dense": lambda L, d: L.sparse.mm(coo(L, d), L.ones(3, device=d)),
    "mm/hybrid": lambda L, d: L.sparse.mm(L.sparse_coo_tensor(T(L, [[0, 2]], d), T(L, [[1., 2.], [3., 4.]], d),
                                                              (3, 2)), dense(L, d, 2, 2)),
    "mm/3d_sparse": lambda L, d: L.sparse.mm(L.sparse_coo_tensor(T(L, [[0], [0], [0]], d), T(L, [1.], d),
                                                                 (1, 1, 1)), dense(L, d, 1, 1)),
    "mm/empty": lambda L, d: L.sparse.mm(L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.int64, device=d),
                                                             L.zeros(0, device=d), (2, 3)), dense(L, d)),
    "mm/sparse_sparse": lambda L, d: L.sparse.mm(coo(L, d), coo(L, d).t()).to_dense(),
    "mm/sparse_sparse_shapes": lambda L, d: L.sparse.mm(coo(L, d), coo(L, d)),
    "mm/int": lambda L, d: L.sparse.mm(coo(L, d, values=(1, 2, 3)), L.ones(3, 2, dtype=L.int64, device=d)),
    "matmul/dense_sparse": lambda L, d: L.matmul(dense(L, d, 2, 2), coo(L, d)),
    "addmm/ok": lambda L, d: L.sparse.addmm(L.ones(2, 2, device=d), coo(L, d), dense(L, d), beta=0.5, alpha=2),
    "addmm/input_shape": lambda L, d: L.sparse.addmm(L.ones(3, 3, device=d), coo(L, d), dense(L, d)),
    "add/ok": lambda L, d: (coo(L, d) + coo(L, d, indices=((0,), (0,)), values=(7.,))).to_dense(),
    "add/sizes_differ": lambda L, d: coo(L, d) + coo(L, d, size=(3, 3)),
    "add/dense": lambda L, d: coo(L, d) + L.ones(2, 3, device=d),
    "add/dense_broadcast": lambda L, d: coo(L, d) + L.ones(3, device=d),
    "add/dense_first": lambda L, d: L.ones(2, 3, device=d) + coo(L, d),
    "add/scalar": lambda L, d: coo(L, d) + 1,
    "add/alpha": lambda L, d: coo(L, d).add(coo(L, d), alpha=-2).to_dense(),
    "sub/ok": lambda L, d: (coo(L, d) - coo(L, d)).to_dense(),
    "mul/sparse": lambda L, d: (coo(L, d) * coo(L, d, indices=((0, 1), (2, 1)), values=(2., 9.))).to_dense(),
    "mul/scalar": lambda L, d: (coo(L, d) * 2).to_dense(),
    "mul/dense": lambda L, d: (coo(L, d) * L.ones(2, 3, device=d)).to_dense(),
    "mul/sizes_differ": lambda L, d: coo(L, d) * coo(L, d, size=(3, 3)),
    "div/zero": lambda L, d: (coo(L, d) / 0).to_dense(),
    "div/tensor_0dim": lambda L, d: (coo(L, d) / T(L, 2., d)).to_dense(),
    "div/tensor_1d": lambda L, d: coo(L, d) / T(L, [2., 2., 2.], d),
    "div/int_floor": lambda L, d: coo(L, d, values=(3, 4, 5)).div(2, rounding_mode="floor").to_dense(),
    "pow/ok": lambda L, d: coo(L, d).pow(2).to_dense(),
    "pow/zero": lambda L, d: coo(L, d).pow(0),
    "pow/negative": lambda L, d: coo(L, d).pow(-1).to_dense(),
    "sum/ok": lambda L, d: L.sparse.sum(coo(L, d)),
    "sum/dim": lambda L, d: L.sparse.sum(coo(L, d), 1).to_dense(),
    "sum/dim_oob": lambda L, d: L.sparse.sum(coo(L, d), 2),
    "sum/dims_repeated": lambda L, d: L.sparse.sum(coo(L, d), (0, 0)),
    "sum/empty": lambda L, d: L.sparse.sum(L.sparse_coo_tensor(L.zeros(2, 0, dtype=L.int64, device=d),
                                                               L.zeros(0, device=d), (2, 3))),
    "softmax/ok": lambda L, d: L.sparse.softmax(coo(L, d), 1).to_dense(),
    "softmax/dim_oob": lambda L, d: L.sparse.softmax(coo(L, d), 2),
    "log_softmax/ok": lambda L, d: L.sparse.log_softmax(coo(L, d), 0).to_dense(),
    "transpose/dim_oob": lambda L, d: coo(L, d).transpose(0, 2),
    "t/3d": lambda L, d: L.sparse_coo_tensor(T(L, [[0], [0], [0]], d), T(L, [1.], d), (1, 1, 1)).t(),
    "to_sparse/sparse_dim_too_big": lambda L, d: dense(L, d).to_sparse(3),
    "to_sparse/sparse_dim_negative": lambda L, d: dense(L, d).to_sparse(-1),
    "to_sparse/hybrid": lambda L, d: dense(L, d).to_sparse(1).values(),
    "to_sparse/0dim": lambda L, d: T(L, 0., d).to_sparse().to_dense(),
    "to_sparse/empty": lambda L, d: L.zeros(0, 3, device=d).to_sparse().to_dense(),
    "dense_methods/coalesce": lambda L, d: dense(L, d).coalesce(),
    "dense_methods/indices": lambda L, d: dense(L, d).indices(),
    "item/multi": lambda L, d: coo(L, d).item(),
    "bool/multi": lambda L, d: bool(coo(L, d)),
    "getitem": lambda L, d: coo(L, d)[0],
    "zero_/then_dense": lambda L, d: coo(L, d).zero_().to_dense(),
    "mul_/dense_operand": lambda L, d: coo(L, d).mul_(L.ones(2, 3, device=d)),
    "sparse_dim/hybrid": lambda L, d: (L.sparse_coo_tensor(T(L, [[0, 2]], d), T(L, [[1., 2.], [3., 4.]], d),
                                                           (3, 2)).sparse_dim(),
                                       L.sparse_coo_tensor(T(L, [[0, 2]], d), T(L, [[1., 2.], [3., 4.]], d),
                                                           (3, 2)).dense_dim()),
    "nnz/uncoalesced": lambda L, d: coo(L, d, indices=((0, 0), (1, 1)), values=(1., 2.))._nnz(),
    "backward/through_to_dense": lambda L, d: (lambda v: (L.sparse_coo_tensor(T(L, [[0, 1]], d), v, (3,))
                                                          .to_dense() * T(L, [1., 2., 3.], d)).sum().backward()
                                               or v.grad)(T(L, [1., 1.], d).requires_grad_()),
}

_CHECKED = ("tandem checks the indices at construction always (docs/ops.md); PyTorch only under "
            "check_invariants=True and otherwise gives wrong answers later")
KNOWN = {
    "construct/negative_index": _CHECKED, "construct/index_past_size": _CHECKED,
    "construct/index_int64_max": _CHECKED,
    "construct/indices_float": "tandem refuses floating indices (PyTorch truncates them to other elements)",
    "construct/is_coalesced_true_unsorted": "tandem checks the is_coalesced=True claim (PyTorch trusts it)",
    "construct/values_0dim": "tandem refuses 0-dim values (PyTorch makes an nnz-1 tensor of them)",
    "getitem": "indexing a sparse tensor is not supported (NotImplementedError)",
    "mul_/dense_operand": "in-place sparse * dense is not supported (PyTorch densifies the pattern)",
    "pow/negative": "tandem refuses a negative exponent (PyTorch gives inf at the stored zeros only)",
}

KNOWN.update({
    "construct/indices_1d": "tandem names the indices' shape; PyTorch an internal 'len(size) == sparse_dim + "
                            "dense_dim' check",
    "construct/negative_size": "PyTorch reports an incidental numel overflow; tandem the negative dimension",
    "mul/sizes_differ": "tandem's first line ends before PyTorch's list of the shapes (same RuntimeError)",
})
