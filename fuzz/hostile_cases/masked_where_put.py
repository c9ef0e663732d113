"""Conditional and scattered writes with hostile arguments, beyond indexing.py, index_ops.py and scalar_edges.py:
torch.where with scalar, 0-d, mixed-dtype and non-bool conditions (and the one-argument form), masked_fill with a
value that is a non-0-d tensor, a tensor on another device, a mask that broadcasts the wrong way or is not bool,
values that do not fit the dtype (float into int, complex into float, NaN/inf into int, huge into int8);
masked_scatter with too few source elements and wrong source dtypes; index_put_ with accumulate and duplicate
indices, bool indices of the wrong shape, values that do not broadcast; put_/take with out-of-range and negative
indices; index_fill_/index_copy_ edges; and Tensor.__setitem__ with broadcast-incompatible values and value types
that need a conversion."""
from . import R, T


def x(L, d, shape=(3, 4), dtype="float32"):
    return R(L, shape, d, dtype)


def xi(L, d, shape=(3, 4), dtype="int64"):
    return R(L, shape, d, "float64").round().to(getattr(L, dtype))


def m(L, d, shape=(3, 4)):
    return R(L, shape, d, "float32") > 0


def setitem(t, key, value):
    t[key] = value
    return t


CASES = {
    # ---- torch.where
    "where/plain": lambda L, d: L.where(m(L, d), x(L, d), -x(L, d)),
    "where/scalar_both": lambda L, d: L.where(m(L, d), 1.0, 0.0),
    "where/int_scalars": lambda L, d: L.where(m(L, d), 1, 0),
    "where/int_and_float_scalar": lambda L, d: L.where(m(L, d), 1, 0.5),
    "where/bool_scalars": lambda L, d: L.where(m(L, d), True, False),
    "where/complex_scalar": lambda L, d: L.where(m(L, d), x(L, d), 1j),
    "where/tensor_and_scalar_int": lambda L, d: L.where(m(L, d), xi(L, d), 2.5),
    "where/tensor_and_scalar_f64": lambda L, d: L.where(m(L, d), x(L, d), 2.5),
    "where/0d_tensor_other": lambda L, d: L.where(m(L, d), x(L, d), T(L, 2.5, d, "float64")),
    "where/0d_int_tensor_other": lambda L, d: L.where(m(L, d), x(L, d), T(L, 2, d)),
    "where/0d_condition": lambda L, d: L.where(T(L, True, d), x(L, d), -x(L, d)),
    "where/cond_uint8": lambda L, d: L.where(m(L, d).to(L.uint8), x(L, d), -x(L, d)),
    "where/cond_int64": lambda L, d: L.where(m(L, d).long(), x(L, d), -x(L, d)),
    "where/cond_float": lambda L, d: L.where(m(L, d).float(), x(L, d), -x(L, d)),
    "where/mixed_float_dtypes": lambda L, d: L.where(m(L, d), x(L, d), x(L, d, dtype="float64")),
    "where/int_and_float_tensors": lambda L, d: L.where(m(L, d), xi(L, d), x(L, d)),
    "where/half_and_bfloat16": lambda L, d: L.where(m(L, d), x(L, d, dtype="float16"), x(L, d, dtype="bfloat16")),
    "where/bool_and_int": lambda L, d: L.where(m(L, d), m(L, d), xi(L, d, dtype="int8")),
    "where/broadcast": lambda L, d: L.where(m(L, d, (3, 1)), x(L, d, (1, 4)), x(L, d, (4,))),
    "where/not_broadcastable": lambda L, d: L.where(m(L, d), x(L, d, (2, 4)), x(L, d)),
    "where/cond_not_broadcastable": lambda L, d: L.where(m(L, d, (2, 4)), x(L, d), x(L, d)),
    "where/one_arg": lambda L, d: L.where(m(L, d)),
    "where/one_arg_float": lambda L, d: L.where(x(L, d)),
    "where/one_arg_0d": lambda L, d: L.where(T(L, 3.0, d)),
    "where/two_args": lambda L, d: L.where(m(L, d), x(L, d)),
    "where/self_none": lambda L, d: L.where(m(L, d), None, x(L, d)),
    "where/method": lambda L, d: x(L, d).where(m(L, d), 0.0),
    "where/method_tensor_other": lambda L, d: x(L, d).where(m(L, d), x(L, d, dtype="float64")),
    "where/out": lambda L, d: L.where(m(L, d), x(L, d), 0.0, out=L.empty(3, 4, device=d)),
    "where/out_int_for_float": lambda L, d: L.where(m(L, d), x(L, d), 0.0, out=L.empty(3, 4, dtype=L.int64,
                                                                                       device=d)),
    "where/empty": lambda L, d: L.where(m(L, d, (0, 4)), x(L, d, (0, 4)), 1.0),
    "where/cond_cpu_scalar_tensor": lambda L, d: L.where(T(L, True), x(L, d), -x(L, d)),
    "where/grad": lambda L, d: _grad(L, d, lambda t: L.where(m(L, d), t * 2, t * t)),
    "where/grad_nan_branch": lambda L, d: _grad(L, d, lambda t: L.where(t > 0, t.sqrt(), L.zeros_like(t))),
    # ---- masked_fill
    "masked_fill/plain": lambda L, d: x(L, d).masked_fill(m(L, d), 7.0),
    "masked_fill/0d_value": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, 7.0, d)),
    "masked_fill/1d_value": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, [7.0], d)),
    "masked_fill/2_element_value": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, [7.0, 8.0], d)),
    "masked_fill/0d_value_cpu": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, 7.0)),
    "masked_fill/0d_value_f64": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, 7.5, d, "float64")),
    "masked_fill/0d_value_int_tensor_on_float": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, 7, d)),
    "masked_fill/0d_float_value_on_int": lambda L, d: xi(L, d).masked_fill(m(L, d), T(L, 7.5, d)),
    "masked_fill/float_on_int": lambda L, d: xi(L, d).masked_fill(m(L, d), 7.5),
    "masked_fill/nan_on_int": lambda L, d: xi(L, d).masked_fill(m(L, d), float("nan")),
    "masked_fill/inf_on_int": lambda L, d: xi(L, d).masked_fill(m(L, d), float("inf")),
    "masked_fill/huge_on_int8": lambda L, d: xi(L, d, dtype="int8").masked_fill(m(L, d), 300),
    "masked_fill/negative_on_uint8": lambda L, d: xi(L, d, dtype="uint8").masked_fill(m(L, d), -1),
    "masked_fill/complex_on_float": lambda L, d: x(L, d).masked_fill(m(L, d), 1 + 2j),
    "masked_fill/complex_0d_on_float": lambda L, d: x(L, d).masked_fill(m(L, d), T(L, 1 + 2j, d)),
    "masked_fill/float_on_bool": lambda L, d: m(L, d).masked_fill(m(L, d), 0.5),
    "masked_fill/int_on_bool": lambda L, d: m(L, d).masked_fill(m(L, d), 2),
    "masked_fill/huge_on_half": lambda L, d: x(L, d, dtype="float16").masked_fill(m(L, d), 1e10),
    "masked_fill/huge_on_float32": lambda L, d: x(L, d).masked_fill(m(L, d), 1e300),
    "masked_fill/bool_value_on_float": lambda L, d: x(L, d).masked_fill(m(L, d), True),
    "masked_fill/mask_uint8": lambda L, d: x(L, d).masked_fill(m(L, d).to(L.uint8), 7.0),
    "masked_fill/mask_int64": lambda L, d: x(L, d).masked_fill(m(L, d).long(), 7.0),
    "masked_fill/mask_float": lambda L, d: x(L, d).masked_fill(m(L, d).float(), 7.0),
    "masked_fill/mask_broadcasts": lambda L, d: x(L, d).masked_fill(m(L, d, (4,)), 7.0),
    "masked_fill/mask_grows_self": lambda L, d: x(L, d, (4,)).masked_fill(m(L, d), 7.0),
    "masked_fill_/mask_grows_self": lambda L, d: x(L, d, (4,)).masked_fill_(m(L, d), 7.0),
    "masked_fill/mask_wrong_shape": lambda L, d: x(L, d).masked_fill(m(L, d, (2, 4)), 7.0),
    "masked_fill/mask_0d": lambda L, d: x(L, d).masked_fill(T(L, True, d), 7.0),
    "masked_fill/empty": lambda L, d: x(L, d, (0, 4)).masked_fill(m(L, d, (0, 4)), 7.0),
    "masked_fill/value_str": lambda L, d: x(L, d).masked_fill(m(L, d), "7"),
    "masked_fill/value_none": lambda L, d: x(L, d).masked_fill(m(L, d), None),
    "masked_fill/value_requires_grad": lambda L, d: _grad_value(L, d),
    "masked_fill/grad": lambda L, d: _grad(L, d, lambda t: t.masked_fill(m(L, d), 0.0) * t),
    "masked_fill/on_expanded_inplace": lambda L, d: x(L, d, (4,)).expand(3, 4).masked_fill_(m(L, d), 1.0),
    "masked_fill/torch_fn": lambda L, d: L.masked_fill(x(L, d), m(L, d), 7.0),
    # ---- masked_scatter
    "masked_scatter/plain": lambda L, d: x(L, d).masked_scatter(m(L, d), x(L, d, (12,)) + 100),
    "masked_scatter/too_few": lambda L, d: x(L, d).masked_scatter(m(L, d), x(L, d, (2,))),
    "masked_scatter/exact_count": lambda L, d: x(L, d).masked_scatter(m(L, d), x(L, d, (int(
        (R(L, (3, 4), "cpu", "float32") > 0).sum()),))),
    "masked_scatter/source_2d": lambda L, d: x(L, d).masked_scatter(m(L, d), x(L, d, (4, 4))),
    "masked_scatter/source_dtype": lambda L, d: x(L, d).masked_scatter(m(L, d), x(L, d, (12,), "float64")),
    "masked_scatter/source_int": lambda L, d: x(L, d).masked_scatter(m(L, d), xi(L, d, (12,))),
    "masked_scatter/mask_uint8": lambda L, d: x(L, d).masked_scatter(m(L, d).to(L.uint8), x(L, d, (12,))),
    "masked_scatter/mask_float": lambda L, d: x(L, d).masked_scatter(m(L, d).float(), x(L, d, (12,))),
    "masked_scatter/mask_broadcast": lambda L, d: x(L, d).masked_scatter(m(L, d, (4,)), x(L, d, (12,))),
    "masked_scatter/mask_grows_inplace": lambda L, d: x(L, d, (4,)).masked_scatter_(m(L, d), x(L, d, (12,))),
    "masked_scatter/all_false_empty_source": lambda L, d: x(L, d).masked_scatter(L.zeros(3, 4, dtype=L.bool,
                                                                                         device=d),
                                                                                 x(L, d, (0,))),
    "masked_scatter/grad": lambda L, d: _grad(L, d, lambda t: t.masked_scatter(m(L, d), x(L, d, (12,), "float64")
                                                                               * 2) * t),
    # ---- index_put_
    "index_put/plain": lambda L, d: x(L, d).index_put_((T(L, [0, 2], d),), T(L, 5.0, d)),
    "index_put/accumulate_duplicates": lambda L, d: x(L, d).index_put_((T(L, [0, 0, 2], d),), T(L, 1.0, d),
                                                                       accumulate=True),
    "index_put/duplicates_no_accumulate_same_value": lambda L, d: x(L, d).index_put_((T(L, [1, 1], d),),
                                                                                     T(L, 3.0, d)),
    "index_put/accumulate_int": lambda L, d: xi(L, d).index_put_((T(L, [0, 0], d), T(L, [1, 1], d)),
                                                                 T(L, [5, 6], d), accumulate=True),
    "index_put/accumulate_bool": lambda L, d: m(L, d).index_put_((T(L, [0, 0], d),), T(L, True, d),
                                                                 accumulate=True),
    "index_put/out_of_range": lambda L, d: x(L, d).index_put_((T(L, [3], d),), T(L, 1.0, d)),
    "index_put/negative": lambda L, d: x(L, d).index_put_((T(L, [-1], d),), T(L, 1.0, d)),
    "index_put/negative_out_of_range": lambda L, d: x(L, d).index_put_((T(L, [-4], d),), T(L, 1.0, d)),
    "index_put/bool_index": lambda L, d: x(L, d).index_put_((m(L, d),), T(L, 0.0, d)),
    "index_put/bool_index_wrong_shape": lambda L, d: x(L, d).index_put_((m(L, d, (2, 4)),), T(L, 0.0, d)),
    "index_put/bool_index_1d_wrong": lambda L, d: x(L, d).index_put_((m(L, d, (4,)),), T(L, 0.0, d)),
    "index_put/bool_index_accumulate": lambda L, d: x(L, d).index_put_((m(L, d),), T(L, 1.0, d), accumulate=True),
    "index_put/values_not_broadcastable": lambda L, d: x(L, d).index_put_((T(L, [0, 2], d),), x(L, d, (3,))),
    "index_put/values_too_many": lambda L, d: x(L, d).index_put_((T(L, [0, 2], d),), x(L, d, (3, 4))),
    "index_put/values_dtype": lambda L, d: x(L, d).index_put_((T(L, [0, 2], d),), T(L, 5.0, d, "float64")),
    "index_put/values_int_into_float": lambda L, d: x(L, d).index_put_((T(L, [0, 2], d),), T(L, 5, d)),
    "index_put/index_float": lambda L, d: x(L, d).index_put_((T(L, [0.0, 2.0], d),), T(L, 5.0, d)),
    "index_put/index_int32": lambda L, d: x(L, d).index_put_((T(L, [0, 2], d, "int32"),), T(L, 5.0, d)),
    "index_put/index_uint8": lambda L, d: x(L, d).index_put_((T(L, [1, 0, 1], d, "uint8"),), T(L, 5.0, d)),
    "index_put/too_many_indices": lambda L, d: x(L, d).index_put_((T(L, [0], d),) * 3, T(L, 5.0, d)),
    "index_put/empty_indices_tuple": lambda L, d: x(L, d).index_put_((), T(L, 5.0, d)),
    "index_put/index_list_not_tuple": lambda L, d: x(L, d).index_put_([T(L, [0, 2], d)], T(L, 5.0, d)),
    "index_put/none_in_indices": lambda L, d: x(L, d).index_put_((None, T(L, [0, 2], d)), T(L, 5.0, d)),
    "index_put/indices_broadcast": lambda L, d: x(L, d).index_put_((T(L, [[0], [2]], d), T(L, [1, 3], d)),
                                                                   T(L, 9.0, d)),
    "index_put/indices_not_broadcastable": lambda L, d: x(L, d).index_put_((T(L, [0, 1, 2], d), T(L, [1, 3], d)),
                                                                           T(L, 9.0, d)),
    "index_put/empty_index": lambda L, d: x(L, d).index_put_((T(L, [], d, "int64"),), T(L, 5.0, d)),
    "index_put/out_of_place": lambda L, d: L.index_put(x(L, d), (T(L, [0, 0], d),), T(L, 1.0, d), True),
    "index_put/grad_accumulate": lambda L, d: _grad(L, d, lambda t: t.index_put((T(L, [0, 0], d),),
                                                                                t[1] * 2, accumulate=True)),
    # ---- put_ / take
    "put/plain": lambda L, d: x(L, d).put_(T(L, [0, 5, 11], d), T(L, [1.0, 2.0, 3.0], d)),
    "put/out_of_range": lambda L, d: x(L, d).put_(T(L, [12], d), T(L, [1.0], d)),
    "put/negative": lambda L, d: x(L, d).put_(T(L, [-1, -12], d), T(L, [1.0, 2.0], d)),
    "put/negative_out_of_range": lambda L, d: x(L, d).put_(T(L, [-13], d), T(L, [1.0], d)),
    "put/accumulate_duplicates": lambda L, d: x(L, d).put_(T(L, [1, 1, 1], d), T(L, [1.0, 2.0, 3.0], d),
                                                           accumulate=True),
    "put/count_mismatch": lambda L, d: x(L, d).put_(T(L, [1, 2, 3], d), T(L, [1.0, 2.0], d)),
    "put/source_2d": lambda L, d: x(L, d).put_(T(L, [[1, 2]], d), T(L, [[1.0, 2.0]], d)),
    "put/index_float": lambda L, d: x(L, d).put_(T(L, [1.0], d), T(L, [1.0], d)),
    "put/index_int32": lambda L, d: x(L, d).put_(T(L, [1], d, "int32"), T(L, [1.0], d)),
    "put/source_dtype": lambda L, d: x(L, d).put_(T(L, [1], d), T(L, [1.0], d, "float64")),
    "put/empty_self": lambda L, d: x(L, d, (0,)).put_(T(L, [0], d), T(L, [1.0], d)),
    "put/empty_self_empty_index": lambda L, d: x(L, d, (0,)).put_(T(L, [], d, "int64"), T(L, [], d)),
    "put/noncontiguous_self": lambda L, d: x(L, d).t().put_(T(L, [1, 4], d), T(L, [1.0, 2.0], d)),
    "put/out_of_place": lambda L, d: L.put(x(L, d), T(L, [0, 1], d), T(L, [5.0, 6.0], d)),
    "take/plain": lambda L, d: L.take(x(L, d), T(L, [[0, 11], [5, 3]], d)),
    "take/out_of_range": lambda L, d: L.take(x(L, d), T(L, [12], d)),
    "take/negative": lambda L, d: L.take(x(L, d), T(L, [-1, -12], d)),
    "take/negative_out_of_range": lambda L, d: L.take(x(L, d), T(L, [-13], d)),
    "take/index_float": lambda L, d: L.take(x(L, d), T(L, [1.0], d)),
    "take/index_int32": lambda L, d: L.take(x(L, d), T(L, [1], d, "int32")),
    "take/index_bool": lambda L, d: L.take(x(L, d), T(L, [True], d)),
    "take/empty_self": lambda L, d: L.take(x(L, d, (0,)), T(L, [0], d)),
    "take/empty_self_empty_index": lambda L, d: L.take(x(L, d, (0,)), T(L, [], d, "int64")),
    "take/0d_self": lambda L, d: L.take(T(L, 5.0, d), T(L, [0, 0, -1], d)),
    "take/grad": lambda L, d: _grad(L, d, lambda t: L.take(t, T(L, [0, 0, 5], d)) * 1.0),
    # ---- index_fill_ / index_copy_
    "index_fill/tensor_value_1d": lambda L, d: x(L, d).index_fill_(0, T(L, [0], d), T(L, [1.0], d)),
    "index_fill/float_on_int": lambda L, d: xi(L, d).index_fill_(0, T(L, [0], d), 2.5),
    "index_fill/out_of_range": lambda L, d: x(L, d).index_fill_(1, T(L, [4], d), 2.0),
    "index_fill/negative": lambda L, d: x(L, d).index_fill_(1, T(L, [-1], d), 2.0),
    "index_fill/index_2d": lambda L, d: x(L, d).index_fill_(1, T(L, [[0]], d), 2.0),
    "index_copy/duplicates": lambda L, d: x(L, d).index_copy_(0, T(L, [0, 0], d), x(L, d, (2, 4)) + 10),
    "index_copy/source_wrong": lambda L, d: x(L, d).index_copy_(0, T(L, [0, 1], d), x(L, d, (2, 3))),
    "index_copy/source_dtype": lambda L, d: x(L, d).index_copy_(0, T(L, [0], d), x(L, d, (1, 4), "float64")),
    "index_copy/out_of_range": lambda L, d: x(L, d).index_copy_(0, T(L, [3], d), x(L, d, (1, 4))),
    # ---- __setitem__
    "setitem/broadcast_incompatible": lambda L, d: setitem(x(L, d), slice(0, 2), x(L, d, (3, 4))),
    "setitem/broadcast_row": lambda L, d: setitem(x(L, d), slice(0, 2), x(L, d, (4,))),
    "setitem/leading_ones_ok": lambda L, d: setitem(x(L, d), 0, x(L, d, (1, 1, 4))),
    "setitem/leading_non_one": lambda L, d: setitem(x(L, d), 0, x(L, d, (2, 4))),
    "setitem/float_into_int": lambda L, d: setitem(xi(L, d), 0, 2.7),
    "setitem/negative_float_into_int": lambda L, d: setitem(xi(L, d), 0, -2.7),
    "setitem/nan_into_int": lambda L, d: setitem(xi(L, d), 0, float("nan")),
    "setitem/inf_into_int": lambda L, d: setitem(xi(L, d), 0, float("inf")),
    "setitem/complex_into_float": lambda L, d: setitem(x(L, d), 0, 1 + 2j),
    "setitem/complex_tensor_into_float": lambda L, d: setitem(x(L, d), 0, T(L, [1 + 2j] * 4, d)),
    "setitem/huge_into_int8": lambda L, d: setitem(xi(L, d, dtype="int8"), 0, 1000),
    "setitem/negative_into_uint8": lambda L, d: setitem(xi(L, d, dtype="uint8"), 0, -3),
    "setitem/float_tensor_into_int": lambda L, d: setitem(xi(L, d), 0, x(L, d, (4,))),
    "setitem/bool_mask_scalar": lambda L, d: setitem(x(L, d), m(L, d), 0.0),
    "setitem/bool_mask_wrong_shape": lambda L, d: setitem(x(L, d), m(L, d, (2, 4)), 0.0),
    "setitem/bool_mask_values_wrong_count": lambda L, d: setitem(x(L, d), m(L, d), T(L, [1.0, 2.0], d)),
    "setitem/index_out_of_range": lambda L, d: setitem(x(L, d), 3, 0.0),
    "setitem/tensor_index_out_of_range": lambda L, d: setitem(x(L, d), T(L, [3], d), 0.0),
    "setitem/value_list": lambda L, d: setitem(x(L, d), 0, [1.0, 2.0, 3.0, 4.0]),
    "setitem/value_list_wrong_len": lambda L, d: setitem(x(L, d), 0, [1.0, 2.0]),
    "setitem/value_str": lambda L, d: setitem(x(L, d), 0, "a"),
    "setitem/value_none": lambda L, d: setitem(x(L, d), 0, None),
    "setitem/value_other_device": lambda L, d: setitem(x(L, d), 0, x(L, "cpu", (4,))),
    "setitem/value_0d_other_device": lambda L, d: setitem(x(L, d), 0, T(L, 3.0)),
    "setitem/ellipsis_none": lambda L, d: setitem(x(L, d), (Ellipsis, None), x(L, d, (3, 4, 1))),
    "setitem/empty_slice": lambda L, d: setitem(x(L, d), slice(2, 1), x(L, d, (5, 4))),
    "setitem/empty_slice_ok": lambda L, d: setitem(x(L, d), slice(2, 1), 1.0),
}


def _grad(L, d, fn, shape=(3, 4)):
    leaf = x(L, d, shape, "float64").requires_grad_()
    fn(leaf).sum().backward()
    return leaf.grad


def _grad_value(L, d):
    v = T(L, 2.0, d).requires_grad_()
    (x(L, d).masked_fill(m(L, d), v) * 3).sum().backward()
    return v.grad


KNOWN = {
    "index_put/empty_indices_tuple": "PyTorch fails inside (\"sym_strides() called on an undefined Tensor\", an "
                                     "internal error); tandem reads an empty index tuple as x[()] = v and fills "
                                     "every element",
}
