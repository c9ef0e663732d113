"""Index ops beyond indexing.py's table: scatter/scatter_add/scatter_reduce (every reduction, include_self),
gather, index_add/index_copy/index_fill/index_reduce, index_put_, masked_scatter, take/take_along_dim/put_ and the
*_scatter ops with indices out of range, negative, of the wrong dtype or rank, and sources of the wrong shape or
dtype; out=, 0-dim and empty operands, non-contiguous and expanded selves."""
from . import R, T


def X(L, d, dtype="float32", shape=(3, 4)):
    return L.arange(12.0, device=d).reshape(shape).to(getattr(L, dtype))


def I(L, values, d, dtype="int64"):  # noqa: E743
    return T(L, values, d, dtype)


def src(L, d, shape=(2, 4), dtype="float32"):
    return R(L, shape, d, dtype)


def out_of(L, d, fn, dtype="float32", shape=(0,)):
    """fn(out) with a fresh out tensor; the out tensor is the result."""
    o = L.empty(shape, device=d, dtype=getattr(L, dtype))
    fn(o)
    return o


REDUCES = ("sum", "prod", "mean", "amax", "amin")

CASES = {
    # ---- scatter_reduce
    **{f"scatter_reduce/{r}": lambda L, d, r=r: X(L, d).scatter_reduce(1, I(L, [[0, 0, 3], [1, 1, 1]], d),
                                                                         src(L, d, (2, 3)), r)
       for r in REDUCES},
    **{f"scatter_reduce/{r}_exclude_self": lambda L, d, r=r: X(L, d).scatter_reduce(
        1, I(L, [[0, 0, 3], [1, 1, 1]], d), src(L, d, (2, 3)), r, include_self=False) for r in REDUCES},
    **{f"scatter_reduce/{r}_int": lambda L, d, r=r: X(L, d, "int64").scatter_reduce(
        0, I(L, [[0, 2, 2, 0]], d), T(L, [[5, -3, 7, 2]], d), r) for r in REDUCES},
    "scatter_reduce/bad_reduce": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[0]], d), src(L, d, (1, 1)), "max"),
    "scatter_reduce/oob": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[4]], d), src(L, d, (1, 1)), "sum"),
    "scatter_reduce/negative": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[-1]], d), src(L, d, (1, 1)), "sum"),
    "scatter_reduce/int32_index": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[0]], d, "int32"),
                                                                      src(L, d, (1, 1)), "sum"),
    "scatter_reduce/src_smaller": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[0, 1, 2]], d), src(L, d, (1, 2)),
                                                                      "sum"),
    "scatter_reduce/src_dtype": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[0]], d),
                                                                    src(L, d, (1, 1), "float64"), "sum"),
    "scatter_reduce/src_number": lambda L, d: X(L, d).scatter_reduce(1, I(L, [[0]], d), 2.0, "sum"),
    "scatter_reduce/empty_index": lambda L, d: X(L, d).scatter_reduce(1, L.zeros(3, 0, dtype=L.int64, device=d),
                                                                      src(L, d, (3, 0)), "prod"),
    "scatter_reduce/0dim": lambda L, d: T(L, 1.0, d).scatter_reduce(0, I(L, 0, d), T(L, 5.0, d), "amax"),
    "scatter_reduce/mean_bool": lambda L, d: T(L, [True, False], d).scatter_reduce(
        0, I(L, [1, 1], d), T(L, [True, True], d), "mean"),
    "scatter_reduce/dim_past": lambda L, d: X(L, d).scatter_reduce(2, I(L, [[0]], d), src(L, d, (1, 1)), "sum"),
    "scatter_reduce/index_rank_wrong": lambda L, d: X(L, d).scatter_reduce(1, I(L, [0], d), src(L, d, (1,)), "sum"),
    "scatter_reduce_/out_of_place_equal": lambda L, d: X(L, d).scatter_reduce_(0, I(L, [[2, 1, 0, 2]], d),
                                                                               src(L, d, (1, 4)), "amin"),
    # ---- scatter / scatter_add
    "scatter/reduce_add": lambda L, d: X(L, d).scatter(1, I(L, [[0, 0]], d), src(L, d, (1, 2)), reduce="add"),
    "scatter/reduce_multiply_src": lambda L, d: X(L, d).scatter(1, I(L, [[1, 1]], d), src(L, d, (1, 2)),
                                                                reduce="multiply"),
    "scatter/reduce_mean": lambda L, d: X(L, d).scatter(1, I(L, [[0]], d), src(L, d, (1, 1)), reduce="mean"),
    "scatter/value_into_int": lambda L, d: X(L, d, "int64").scatter(1, I(L, [[0]], d), 2.7),
    "scatter/src_float_into_int": lambda L, d: X(L, d, "int64").scatter(1, I(L, [[0]], d), src(L, d, (1, 1))),
    "scatter/value_0dim_tensor": lambda L, d: X(L, d).scatter(1, I(L, [[0]], d), T(L, 9.0, d)),
    "scatter/dim_negative": lambda L, d: X(L, d).scatter(-1, I(L, [[3, 2]], d), src(L, d, (1, 2))),
    "scatter/non_contiguous_self": lambda L, d: X(L, d).t().scatter(0, I(L, [[3, 1]], d), src(L, d, (1, 2))),
    "scatter_/expanded_self": lambda L, d: L.zeros(1, 4, device=d).expand(3, 4).scatter_(
        1, I(L, [[0], [1], [2]], d), 1.0),
    "scatter/index_other_dim_bigger": lambda L, d: X(L, d).scatter(1, I(L, [[0]] * 4, d), src(L, d, (4, 1))),
    "scatter/src_0dim_self_2d": lambda L, d: X(L, d).scatter(1, I(L, [[0]], d), T(L, 5.0, d)),
    "scatter/bool": lambda L, d: L.zeros(2, 3, dtype=L.bool, device=d).scatter(1, I(L, [[2], [0]], d), True),
    "scatter/complex": lambda L, d: X(L, d, "complex64").scatter(1, I(L, [[2]], d), 1j),
    "scatter/empty_self": lambda L, d: L.zeros(0, 4, device=d).scatter(0, L.zeros(0, 4, dtype=L.int64, device=d),
                                                                       1.0),
    "scatter/out_of_place_keeps_self": lambda L, d: (lambda x: (x.scatter(1, I(L, [[0]], d), -1.0), x)[1])(X(L, d)),
    "scatter_add/index_bigger_than_src": lambda L, d: X(L, d).scatter_add(1, I(L, [[0, 1, 2]], d),
                                                                          src(L, d, (1, 2))),
    "scatter_add/src_dtype": lambda L, d: X(L, d).scatter_add(1, I(L, [[0]], d), src(L, d, (1, 1), "float64")),
    "scatter_add/int": lambda L, d: X(L, d, "int32").scatter_add(0, I(L, [[0, 0, 1, 2]], d),
                                                                 T(L, [[1, 2, 3, 4]], d, "int32")),
    "scatter_add/bool": lambda L, d: T(L, [False, False], d).scatter_add(0, I(L, [1, 1], d),
                                                                          T(L, [True, True], d)),
    "scatter_add/0dim": lambda L, d: T(L, 1.0, d).scatter_add(0, I(L, 0, d), T(L, 5.0, d)),
    "scatter_add/index_1d_self_2d": lambda L, d: X(L, d).scatter_add(0, I(L, [0], d), src(L, d, (1,))),
    "scatter_add/duplicates": lambda L, d: L.zeros(3, device=d).scatter_add(0, I(L, [0, 0, 0, 2], d),
                                                                            T(L, [1.0, 2.0, 3.0, 4.0], d)),
    "scatter_add/float_index": lambda L, d: X(L, d).scatter_add(1, T(L, [[0.0]], d), src(L, d, (1, 1))),
    # ---- gather
    "gather/sparse_grad": lambda L, d: X(L, d).gather(1, I(L, [[0, 3]], d), sparse_grad=True),
    "gather/out": lambda L, d: out_of(L, d, lambda o: L.gather(X(L, d), 1, I(L, [[0, 3], [2, 2]], d), out=o)),
    "gather/out_wrong_dtype": lambda L, d: L.gather(X(L, d), 1, I(L, [[0]], d), out=L.empty(0, device=d,
                                                                                          dtype=L.int64)),
    "gather/dim_negative": lambda L, d: X(L, d).gather(-2, I(L, [[2, 0, 1, 1]], d)),
    "gather/index_other_dim_bigger": lambda L, d: X(L, d).gather(0, I(L, [[0, 1, 2, 0, 1]], d)),
    "gather/non_contiguous_index": lambda L, d: X(L, d).gather(1, I(L, [[0, 1], [2, 3], [1, 0]], d).t().t()),
    "gather/transposed_self": lambda L, d: X(L, d).t().gather(0, I(L, [[2, 0, 1]], d)),
    "gather/bool_index": lambda L, d: X(L, d).gather(1, T(L, [[True]], d)),
    "gather/requires_grad": lambda L, d: (lambda x: (x.gather(1, I(L, [[0, 0]], d)).sum().backward(), x.grad)[1])(
        X(L, d).requires_grad_()),
    # ---- index_add / index_copy / index_fill / index_reduce / index_select
    "index_add/dim_negative": lambda L, d: X(L, d).index_add(-1, I(L, [0, 3], d), src(L, d, (3, 2))),
    "index_add/duplicates": lambda L, d: X(L, d).index_add(0, I(L, [1, 1, 1], d), src(L, d, (3, 4))),
    "index_add/0dim_index": lambda L, d: X(L, d).index_add(0, I(L, 2, d), src(L, d, (1, 4))),
    "index_add/source_0dim_self_1d": lambda L, d: T(L, [1.0, 2.0], d).index_add(0, I(L, [1], d), T(L, 5.0, d)),
    "index_add/source_int_self_float": lambda L, d: X(L, d).index_add(0, I(L, [0], d), T(L, [[1, 2, 3, 4]], d)),
    "index_add/alpha_complex": lambda L, d: X(L, d).index_add(0, I(L, [0], d), src(L, d, (1, 4)), alpha=1j),
    "index_add/source_rank_wrong": lambda L, d: X(L, d).index_add(0, I(L, [0], d), src(L, d, (4,))),
    "index_add/out_of_place_keeps_self": lambda L, d: (lambda x: (x.index_add(0, I(L, [0], d), src(L, d, (1, 4))),
                                                                  x)[1])(X(L, d)),
    "index_copy/0dim_index": lambda L, d: X(L, d).index_copy(0, I(L, 1, d), src(L, d, (1, 4))),
    "index_copy/source_rank_wrong": lambda L, d: X(L, d).index_copy(0, I(L, [1], d), src(L, d, (4,))),
    "index_copy/dim_oob": lambda L, d: X(L, d).index_copy(2, I(L, [1], d), src(L, d, (1, 4))),
    "index_copy/float_index": lambda L, d: X(L, d).index_copy(0, T(L, [1.0], d), src(L, d, (1, 4))),
    "index_copy/2d_index": lambda L, d: X(L, d).index_copy(0, I(L, [[1]], d), src(L, d, (1, 4))),
    "index_copy/dim_1": lambda L, d: X(L, d).index_copy(1, I(L, [3, 0], d), src(L, d, (3, 2))),
    "index_copy/0dim_self": lambda L, d: T(L, 1.0, d).index_copy(0, I(L, [0], d), T(L, [4.0], d)),
    "index_fill/0dim_index": lambda L, d: X(L, d).index_fill(0, I(L, 1, d), -1.0),
    "index_fill/bool_self": lambda L, d: L.zeros(2, 3, dtype=L.bool, device=d).index_fill(1, I(L, [2], d), True),
    "index_fill/value_0dim_tensor": lambda L, d: X(L, d).index_fill(1, I(L, [2], d), T(L, 7.0, d)),
    "index_fill/value_tensor_requires_grad": lambda L, d: X(L, d).index_fill(
        1, I(L, [2], d), T(L, 7.0, d).requires_grad_()),
    "index_fill/complex_into_real": lambda L, d: X(L, d).index_fill(1, I(L, [2], d), 1j),
    "index_fill/2d_index": lambda L, d: X(L, d).index_fill(1, I(L, [[2]], d), 1.0),
    "index_fill/float_index": lambda L, d: X(L, d).index_fill(1, T(L, [2.0], d), 1.0),
    "index_fill/dim_past": lambda L, d: X(L, d).index_fill(2, I(L, [0], d), 1.0),
    "index_reduce/bad_reduce": lambda L, d: X(L, d).index_reduce(0, I(L, [0], d), src(L, d, (1, 4)), "sum"),
    "index_reduce/amax_exclude_self": lambda L, d: X(L, d).index_reduce(0, I(L, [0, 0, 2], d), src(L, d, (3, 4)),
                                                                        "amax", include_self=False),
    "index_reduce/mean": lambda L, d: X(L, d).index_reduce(1, I(L, [1, 1], d), src(L, d, (3, 2)), "mean"),
    "index_reduce/oob": lambda L, d: X(L, d).index_reduce(0, I(L, [3], d), src(L, d, (1, 4)), "prod"),
    "index_reduce/source_shape": lambda L, d: X(L, d).index_reduce(0, I(L, [0], d), src(L, d, (1, 3)), "prod"),
    "index_select/out": lambda L, d: out_of(L, d, lambda o: L.index_select(X(L, d), 1, I(L, [3, 0], d), out=o)),
    "index_select/0dim_index": lambda L, d: X(L, d).index_select(1, I(L, 2, d)),
    "index_select/dim_negative": lambda L, d: X(L, d).index_select(-1, I(L, [3, 3], d)),
    "index_select/int32_index": lambda L, d: X(L, d).index_select(0, I(L, [2, 0], d, "int32")),
    "index_select/0dim_self": lambda L, d: T(L, 5.0, d).index_select(0, I(L, [0, 0], d)),
    # ---- index_put_
    "index_put_/bool_mask": lambda L, d: X(L, d).index_put_((X(L, d) > 6,), T(L, -1.0, d)),
    "index_put_/bool_mask_values": lambda L, d: X(L, d).index_put_((X(L, d) > 8,), T(L, [1.0, 2.0, 3.0], d)),
    "index_put_/bool_mask_values_wrong": lambda L, d: X(L, d).index_put_((X(L, d) > 8,), T(L, [1.0, 2.0], d)),
    "index_put_/values_broadcast_wrong": lambda L, d: X(L, d).index_put_((I(L, [0, 1], d),), src(L, d, (2, 3))),
    "index_put_/too_many_indices": lambda L, d: X(L, d).index_put_((I(L, [0], d), I(L, [0], d), I(L, [0], d)),
                                                                   T(L, 1.0, d)),
    "index_put_/float_index": lambda L, d: X(L, d).index_put_((T(L, [0.0], d),), T(L, 1.0, d)),
    "index_put_/int32_index": lambda L, d: X(L, d).index_put_((I(L, [2], d, "int32"),), T(L, 1.0, d)),
    "index_put_/empty_indices": lambda L, d: X(L, d).index_put_((), T(L, 1.0, d)),
    "index_put_/accumulate_int": lambda L, d: X(L, d, "int64").index_put_((I(L, [0, 0], d), I(L, [1, 1], d)),
                                                                          T(L, [5, 6], d), accumulate=True),
    "index_put_/accumulate_bool_mask": lambda L, d: X(L, d).index_put_((X(L, d) > 6,), T(L, 1.0, d),
                                                                       accumulate=True),
    "index_put_/indices_broadcast_fail": lambda L, d: X(L, d).index_put_((I(L, [0, 1], d), I(L, [0, 1, 2], d)),
                                                                         T(L, 1.0, d)),
    "index_put_/indices_list": lambda L, d: X(L, d).index_put_([I(L, [0, 2], d)], T(L, 1.0, d)),
    "index_put_/indices_not_tensor": lambda L, d: X(L, d).index_put_(([0, 2],), T(L, 1.0, d)),
    "index_put_/values_int_into_float": lambda L, d: X(L, d).index_put_((I(L, [0], d),), T(L, 3, d)),
    "index_put_/none_index": lambda L, d: X(L, d).index_put_((None, I(L, [1], d)), T(L, 1.0, d)),
    "index_put/out_of_place": lambda L, d: L.index_put(X(L, d), (I(L, [1], d), I(L, [2], d)), T(L, -5.0, d)),
    # ---- masked_scatter
    "masked_scatter/ok": lambda L, d: X(L, d).masked_scatter(X(L, d) > 5, src(L, d, (2, 4))),
    "masked_scatter/source_too_small": lambda L, d: X(L, d).masked_scatter(X(L, d) > 5, src(L, d, (2,))),
    "masked_scatter/mask_float": lambda L, d: X(L, d).masked_scatter(X(L, d), src(L, d, (3, 4))),
    "masked_scatter/mask_uint8": lambda L, d: X(L, d).masked_scatter((X(L, d) > 5).to(L.uint8),
                                                                      src(L, d, (3, 4))),
    "masked_scatter/mask_broadcast": lambda L, d: X(L, d).masked_scatter(T(L, [True, False, False, True], d),
                                                                          src(L, d, (3, 4))),
    "masked_scatter/mask_broadcast_fail": lambda L, d: X(L, d).masked_scatter(T(L, [True, False], d),
                                                                               src(L, d, (3, 4))),
    "masked_scatter/source_dtype": lambda L, d: X(L, d).masked_scatter(X(L, d) > 5, src(L, d, (3, 4), "float64")),
    "masked_scatter_/mask_bigger_than_self": lambda L, d: T(L, [1.0, 2.0], d).masked_scatter_(
        T(L, [[True, False], [False, True]], d), src(L, d, (4,))),
    "masked_scatter/empty_mask": lambda L, d: L.zeros(0, device=d).masked_scatter(T(L, [], d, "bool"),
                                                                                  src(L, d, (2,))),
    "masked_scatter/all_false": lambda L, d: X(L, d).masked_scatter(X(L, d) > 100, L.zeros(0, device=d)),
    "masked_scatter/source_2d_order": lambda L, d: X(L, d).masked_scatter(X(L, d) < 4, src(L, d, (2, 2)).t()),
    # ---- take / take_along_dim / put_ / put
    "take/float_index": lambda L, d: X(L, d).take(T(L, [1.0], d)),
    "take/bool_index": lambda L, d: X(L, d).take(T(L, [True], d)),
    "take/0dim_self": lambda L, d: T(L, 5.0, d).take(I(L, [0, -1], d)),
    "take/0dim_index": lambda L, d: X(L, d).take(I(L, 5, d)),
    "take/non_contiguous_self": lambda L, d: X(L, d).t().take(I(L, [1, 4], d)),
    "take/out": lambda L, d: out_of(L, d, lambda o: L.take(X(L, d), I(L, [1, 4], d), out=o)),
    "take_along_dim/no_dim": lambda L, d: X(L, d).take_along_dim(I(L, [11, 0, 5], d)),
    "take_along_dim/no_dim_2d_index": lambda L, d: X(L, d).take_along_dim(I(L, [[11, 0]], d)),
    "take_along_dim/float_index": lambda L, d: X(L, d).take_along_dim(T(L, [[0.0]], d), 1),
    "take_along_dim/rank_mismatch": lambda L, d: X(L, d).take_along_dim(I(L, [0], d), 1),
    "take_along_dim/broadcast": lambda L, d: X(L, d).take_along_dim(I(L, [[0, 3]], d), 1),
    "take_along_dim/broadcast_fail": lambda L, d: X(L, d).take_along_dim(I(L, [[0], [1]], d), 1),
    "take_along_dim/dim_past": lambda L, d: X(L, d).take_along_dim(I(L, [[0]], d), 2),
    "take_along_dim/negative_index": lambda L, d: X(L, d).take_along_dim(I(L, [[-1]], d), 1),
    "take_along_dim/argsort": lambda L, d: src(L, d, (3, 4)).take_along_dim(src(L, d, (3, 4)).argsort(1), 1),
    "put_/source_count": lambda L, d: X(L, d).put_(I(L, [0], d), T(L, [1.0, 2.0], d)),
    "put_/accumulate_int": lambda L, d: X(L, d, "int64").put_(I(L, [0, 0, 11], d), T(L, [1, 2, 3], d),
                                                              accumulate=True),
    "put_/float_index": lambda L, d: X(L, d).put_(T(L, [0.0], d), T(L, [1.0], d)),
    "put_/index_2d_source_1d": lambda L, d: X(L, d).put_(I(L, [[0, 5]], d), T(L, [-1.0, -2.0], d)),
    "put_/empty": lambda L, d: X(L, d).put_(I(L, [], d), T(L, [], d)),
    "put_/0dim_self": lambda L, d: T(L, 1.0, d).put_(I(L, [0], d), T(L, [9.0], d)),
    "put/out_of_place": lambda L, d: L.put(X(L, d), I(L, [0, -1], d), T(L, [9.0, 8.0], d)),
    "put/oob": lambda L, d: L.put(X(L, d), I(L, [12], d), T(L, [9.0], d)),
    # ---- select_scatter / slice_scatter / diagonal_scatter
    "select_scatter/ok": lambda L, d: L.select_scatter(X(L, d), src(L, d, (4,)), 0, 1),
    "select_scatter/src_shape": lambda L, d: L.select_scatter(X(L, d), src(L, d, (3,)), 0, 1),
    "select_scatter/index_past": lambda L, d: L.select_scatter(X(L, d), src(L, d, (4,)), 0, 3),
    "select_scatter/dtype": lambda L, d: L.select_scatter(X(L, d), src(L, d, (4,), "float64"), 0, 1),
    "slice_scatter/ok": lambda L, d: L.slice_scatter(X(L, d), src(L, d, (3, 2)), 1, 1, 4, 2),
    "slice_scatter/src_shape": lambda L, d: L.slice_scatter(X(L, d), src(L, d, (3, 3)), 1, 1, 4, 2),
    "slice_scatter/step_zero": lambda L, d: L.slice_scatter(X(L, d), src(L, d, (3, 2)), 1, 0, 4, 0),
    "diagonal_scatter/ok": lambda L, d: L.diagonal_scatter(X(L, d), src(L, d, (3,)), 1),
    "diagonal_scatter/src_shape": lambda L, d: L.diagonal_scatter(X(L, d), src(L, d, (4,)), 0),
    "diagonal_scatter/offset_past": lambda L, d: L.diagonal_scatter(X(L, d), src(L, d, (0,)), 5),
    # ---- nonzero / argwhere / masked_select
    "nonzero/as_tuple": lambda L, d: (X(L, d) > 6).nonzero(as_tuple=True),
    "nonzero/as_tuple_0dim": lambda L, d: T(L, 3.0, d).nonzero(as_tuple=True),
    "nonzero/out": lambda L, d: out_of(L, d, lambda o: L.nonzero(X(L, d) > 9, out=o), "int64"),
    "nonzero/out_wrong_dtype": lambda L, d: L.nonzero(X(L, d) > 9, out=L.empty(0, device=d)),
    "argwhere/0dim": lambda L, d: L.argwhere(T(L, 0.0, d)),
    "masked_select/mask_int": lambda L, d: X(L, d).masked_select(X(L, d, "int64")),
    "masked_select/out": lambda L, d: out_of(L, d, lambda o: L.masked_select(X(L, d), X(L, d) > 8, out=o)),
}

KNOWN = {
    "index_put_/empty_indices": "PyTorch fails inside its kernel ('sym_strides() called on an undefined Tensor'); "
                                "tandem broadcasts the value over the whole tensor, as x[()] = v does",
    "take_along_dim/negative_index": "PyTorch's CPU take_along_dim does not check the index (it reads another "
                                     "row's element); tandem refuses it",
    "masked_scatter_/mask_bigger_than_self": "PyTorch's internal expand names the mask's C++ type "
                                             "('CPUBoolType{[2, 2]}'); tandem's names the Python type, as "
                                             "Tensor.expand's message does",
}
