"""Tensor methods called with odd argument kinds, beyond method_kwargs.py, shape_ops.py and numpy_interop_odd.py:
NumPy scalars and 0-d arrays (and 0-d tensors) as dims, sizes, counts and fill values; bools where an int belongs;
negative and huge dims and sizes (past int64 too); a tuple where varargs belong and varargs where a tuple belongs,
nested or mixed; floats and None as dims; for view/reshape/permute/expand/repeat/flip/roll/narrow/unflatten/movedim/
tile/split/chunk/tensor_split/index_select/gather/scatter/topk/kthvalue/sort/cumsum/transpose/squeeze/select/
unfold/diagonal/new_* and friends."""
import numpy as np

from . import R, T

BIG = 2 ** 63
HUGE = 2 ** 62


def X(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def I(L, d, values, dtype="int64"):
    return T(L, values, d, dtype)


CASES = {
    # ---- view / reshape
    "view/np_int_varargs": lambda L, d: X(L, d).view(np.int32(3), np.int64(2)),
    "view/np_0d_array": lambda L, d: X(L, d).view(np.array(6)),
    "view/tensor_0d_size": lambda L, d: X(L, d).view(T(L, 6, d)),
    "view/bool_size": lambda L, d: X(L, d).view(True, 6),
    "view/float_size": lambda L, d: X(L, d).view(2.0, 3),
    "view/none": lambda L, d: X(L, d).view(None),
    "view/nested_tuple": lambda L, d: X(L, d).view((2, (3,))),
    "view/tuple_and_int": lambda L, d: X(L, d).view((2,), 3),
    "view/list_of_np": lambda L, d: X(L, d).view([np.int64(3), np.int64(2)]),
    "view/two_minus_one": lambda L, d: X(L, d).view(-1, -1),
    "view/minus_two": lambda L, d: X(L, d).view(-2, 3),
    "view/huge": lambda L, d: X(L, d).view(BIG),
    "view/empty_tuple_on_one": lambda L, d: X(L, d, (1,)).view(()),
    "view/dtype_str": lambda L, d: X(L, d).view("float32"),
    "view/dtype_np": lambda L, d: X(L, d).view(np.float32),
    "reshape/np_array_shape": lambda L, d: X(L, d).reshape(np.array([3, 2])),
    "reshape/bool_elements": lambda L, d: X(L, d).reshape((True, 6)),
    "reshape/minus_one_zero": lambda L, d: X(L, d, (0, 3)).reshape(-1, 0),
    "reshape/float_tuple": lambda L, d: X(L, d).reshape((6.0,)),
    "reshape/tensor_shape": lambda L, d: X(L, d).reshape(T(L, [3, 2], d)),
    "reshape/size_object": lambda L, d: X(L, d).reshape(L.Size([3, 2])),
    "reshape_as/not_tensor": lambda L, d: X(L, d).reshape_as((3, 2)),
    # ---- permute / transpose / movedim
    "permute/np_dims": lambda L, d: X(L, d).permute(np.int64(1), np.int64(0)),
    "permute/list": lambda L, d: X(L, d).permute([1, 0]),
    "permute/bool_dims": lambda L, d: X(L, d).permute(True, False),
    "permute/huge": lambda L, d: X(L, d).permute(0, BIG),
    "permute/float": lambda L, d: X(L, d).permute(0.0, 1.0),
    "permute/none": lambda L, d: X(L, d).permute(None),
    "permute/0dim_empty": lambda L, d: X(L, d, ()).permute(),
    "transpose/np_dims": lambda L, d: X(L, d).transpose(np.int64(0), np.int32(-1)),
    "transpose/bool_dims": lambda L, d: X(L, d).transpose(False, True),
    "transpose/one_arg": lambda L, d: X(L, d).transpose(0),
    "transpose/0dim": lambda L, d: X(L, d, ()).transpose(0, -1),
    "transpose/huge": lambda L, d: X(L, d).transpose(0, HUGE),
    "movedim/np_ints": lambda L, d: X(L, d, (2, 3, 4)).movedim(np.int64(0), np.int64(2)),
    "movedim/tuple_int_mixed": lambda L, d: X(L, d, (2, 3, 4)).movedim((0, 1), 2),
    "movedim/list_np": lambda L, d: X(L, d, (2, 3, 4)).movedim([np.int64(0)], [np.int64(-1)]),
    "moveaxis/float": lambda L, d: X(L, d, (2, 3, 4)).moveaxis(0.0, 1),
    # ---- expand / repeat / tile
    "expand/np_sizes": lambda L, d: X(L, d, (1, 3)).expand(np.int64(4), np.int64(3)),
    "expand/tuple": lambda L, d: X(L, d, (1, 3)).expand((4, 3)),
    "expand/minus_one_new_dim": lambda L, d: X(L, d, (1, 3)).expand(-1, 2, 3),
    "expand/minus_two": lambda L, d: X(L, d, (1, 3)).expand(-2, 3),
    "expand/zero": lambda L, d: X(L, d, (1, 3)).expand(0, 3),
    "expand/huge": lambda L, d: X(L, d, (1, 3)).expand(HUGE, 3),
    "expand/bool": lambda L, d: X(L, d, (1, 3)).expand(True, 3),
    "expand/fewer_dims": lambda L, d: X(L, d, (2, 3)).expand(3),
    "expand_as/not_tensor": lambda L, d: X(L, d, (1, 3)).expand_as((2, 3)),
    "repeat/np_0d": lambda L, d: X(L, d, (3,)).repeat(np.array(2)),
    "repeat/tuple": lambda L, d: X(L, d, (3,)).repeat((2, 2)),
    "repeat/zero": lambda L, d: X(L, d, (3,)).repeat(0),
    "repeat/negative": lambda L, d: X(L, d, (3,)).repeat(-1),
    "repeat/huge": lambda L, d: X(L, d, (3,)).repeat(HUGE),
    "repeat/bool": lambda L, d: X(L, d, (3,)).repeat(True),
    "repeat/empty": lambda L, d: X(L, d, (3,)).repeat(()),
    "tile/int": lambda L, d: X(L, d, (3,)).tile(2),
    "tile/np_ints": lambda L, d: X(L, d, (2, 3)).tile(np.int64(2), np.int64(1)),
    "tile/negative": lambda L, d: X(L, d, (3,)).tile((-1,)),
    "tile/empty": lambda L, d: X(L, d, (2, 3)).tile(()),
    "tile/float": lambda L, d: X(L, d, (3,)).tile(2.0),
    # ---- flip / roll / narrow / unflatten
    "flip/varargs": lambda L, d: X(L, d).flip(0, 1),
    "flip/np_dim": lambda L, d: X(L, d).flip(np.int64(1)),
    "flip/empty_tuple": lambda L, d: X(L, d).flip(()),
    "flip/bool_dim": lambda L, d: X(L, d).flip(True),
    "flip/huge": lambda L, d: X(L, d).flip(HUGE),
    "roll/np_shift": lambda L, d: X(L, d).roll(np.int64(1), np.int64(1)),
    "roll/huge_shift": lambda L, d: X(L, d).roll(BIG - 1, 1),
    "roll/negative_huge_shift": lambda L, d: X(L, d).roll(-(BIG - 1)),
    "roll/float_shift": lambda L, d: X(L, d).roll(1.0),
    "roll/empty_tensor": lambda L, d: X(L, d, (0, 3)).roll(2, 0),
    "roll/bool_shift": lambda L, d: X(L, d).roll(True, 1),
    "narrow/tensor_start": lambda L, d: X(L, d).narrow(1, T(L, 1, d), 2),
    "narrow/negative_start": lambda L, d: X(L, d).narrow(1, -2, 2),
    "narrow/length_negative": lambda L, d: X(L, d).narrow(1, 0, -1),
    "narrow/start_past": lambda L, d: X(L, d).narrow(1, 4, 0),
    "narrow/start_at_end_zero": lambda L, d: X(L, d).narrow(1, 3, 0),
    "narrow/float_start": lambda L, d: X(L, d).narrow(1, 1.0, 1),
    "narrow/bool_dim": lambda L, d: X(L, d).narrow(True, 0, 1),
    "narrow/huge_length": lambda L, d: X(L, d).narrow(1, 1, BIG - 1),
    "unflatten/np_sizes": lambda L, d: X(L, d, (6,)).unflatten(0, (np.int64(2), np.int64(3))),
    "unflatten/list_sizes": lambda L, d: X(L, d, (6,)).unflatten(0, [3, 2]),
    "unflatten/int_sizes": lambda L, d: X(L, d, (6,)).unflatten(0, 6),
    "unflatten/minus_one_of_zero": lambda L, d: X(L, d, (0,)).unflatten(0, (-1, 0)),
    # ---- squeeze / unsqueeze / select / diagonal / unfold
    "squeeze/np_dim": lambda L, d: X(L, d, (1, 3)).squeeze(np.int64(0)),
    "squeeze/list_dims": lambda L, d: X(L, d, (1, 3, 1)).squeeze([0, 2]),
    "squeeze/bool_dim": lambda L, d: X(L, d, (1, 3)).squeeze(False),
    "unsqueeze/past": lambda L, d: X(L, d).unsqueeze(3),
    "unsqueeze/minus_past": lambda L, d: X(L, d).unsqueeze(-4),
    "unsqueeze/tuple": lambda L, d: X(L, d).unsqueeze((0,)),
    "select/np_index": lambda L, d: X(L, d).select(np.int64(1), np.int64(-1)),
    "select/huge_index": lambda L, d: X(L, d).select(1, HUGE),
    "select/tensor_index": lambda L, d: X(L, d).select(1, T(L, 2, d)),
    "select/0dim": lambda L, d: X(L, d, ()).select(0, 0),
    "diagonal/np_offset": lambda L, d: X(L, d, (3, 3)).diagonal(np.int64(1)),
    "diagonal/huge_offset": lambda L, d: X(L, d, (3, 3)).diagonal(HUGE),
    "diagonal/same_dims": lambda L, d: X(L, d, (3, 3)).diagonal(0, 1, 1),
    "unfold/np_args": lambda L, d: X(L, d, (6,)).unfold(np.int64(0), np.int64(2), np.int64(2)),
    "unfold/step_zero": lambda L, d: X(L, d, (6,)).unfold(0, 2, 0),
    "unfold/size_past": lambda L, d: X(L, d, (6,)).unfold(0, 7, 1),
    "unfold/size_zero": lambda L, d: X(L, d, (6,)).unfold(0, 0, 1),
    "unfold/0dim": lambda L, d: X(L, d, ()).unfold(0, 1, 1),
    # ---- split / chunk / tensor_split
    "split/np_size": lambda L, d: X(L, d, (6,)).split(np.int64(4)),
    "split/np_sizes_list": lambda L, d: X(L, d, (6,)).split([np.int64(2), np.int64(4)]),
    "split/tuple_sizes": lambda L, d: X(L, d, (6,)).split((1, 5)),
    "split/tensor_size": lambda L, d: X(L, d, (6,)).split(T(L, 2, d)),
    "split/float_size": lambda L, d: X(L, d, (6,)).split(2.0),
    "chunk/np_chunks": lambda L, d: X(L, d, (7,)).chunk(np.int64(3)),
    "chunk/negative": lambda L, d: X(L, d, (7,)).chunk(-1),
    "chunk/past_size": lambda L, d: X(L, d, (3,)).chunk(10),
    "chunk/empty": lambda L, d: X(L, d, (0,)).chunk(3),
    "chunk/0dim": lambda L, d: X(L, d, ()).chunk(1),
    "tensor_split/np_sections": lambda L, d: X(L, d, (7,)).tensor_split(np.int64(3)),
    "tensor_split/tuple_indices": lambda L, d: X(L, d, (7,)).tensor_split((1, 5)),
    "tensor_split/list_np_indices": lambda L, d: X(L, d, (7,)).tensor_split([np.int64(2)]),
    "tensor_split/indices_past_end": lambda L, d: X(L, d, (7,)).tensor_split([2, 20]),
    "tensor_split/bool_sections": lambda L, d: X(L, d, (7,)).tensor_split(True),
    # ---- index_select / gather / scatter
    "index_select/np_dim": lambda L, d: X(L, d).index_select(np.int64(1), I(L, d, [0, 2])),
    "index_select/int32_index": lambda L, d: X(L, d).index_select(1, I(L, d, [2, 0], "int32")),
    "index_select/list_index": lambda L, d: X(L, d).index_select(1, [0, 1]),
    "index_select/float_index": lambda L, d: X(L, d).index_select(1, T(L, [0.0], d)),
    "index_select/negative_index": lambda L, d: X(L, d).index_select(1, I(L, d, [-1])),
    "gather/np_dim": lambda L, d: X(L, d).gather(np.int64(1), I(L, d, [[0], [2]])),
    "gather/int32_index": lambda L, d: X(L, d).gather(1, I(L, d, [[0], [2]], "int32")),
    "gather/index_bigger": lambda L, d: X(L, d).gather(1, I(L, d, [[0, 1, 2, 0]] * 2)),
    "gather/index_rank_differs": lambda L, d: X(L, d).gather(1, I(L, d, [0, 1])),
    "gather/sparse_grad": lambda L, d: X(L, d).gather(1, I(L, d, [[1], [0]]), sparse_grad=False),
    "scatter/np_scalar_value": lambda L, d: X(L, d).scatter(1, I(L, d, [[0], [1]]), np.float64(9.0)),
    "scatter/bool_value_float": lambda L, d: X(L, d).scatter(1, I(L, d, [[0], [1]]), True),
    "scatter/reduce_add_scalar": lambda L, d: X(L, d).scatter(1, I(L, d, [[0], [1]]), 2.0, reduce="add"),
    "scatter/reduce_bad": lambda L, d: X(L, d).scatter(1, I(L, d, [[0], [1]]), 2.0, reduce="max"),
    "scatter/src_dtype_differs": lambda L, d: X(L, d).scatter(1, I(L, d, [[0], [1]]), X(L, d, (2, 1), "float64")),
    "scatter_add/index_past": lambda L, d: X(L, d).scatter_add(1, I(L, d, [[3], [0]]), X(L, d, (2, 1))),
    "scatter_reduce/include_self_false": lambda L, d: X(L, d).scatter_reduce(
        1, I(L, d, [[0, 0], [1, 1]]), X(L, d, (2, 2)), "amax", include_self=False),
    "scatter_reduce/bad_reduce": lambda L, d: X(L, d).scatter_reduce(1, I(L, d, [[0], [1]]), X(L, d, (2, 1)), "add"),
    # ---- topk / kthvalue / sort / cumsum
    "topk/np_k_dim": lambda L, d: X(L, d).topk(np.int64(2), np.int64(1)).values,
    "topk/bool_k": lambda L, d: X(L, d).topk(True).values,
    "topk/k_zero": lambda L, d: X(L, d).topk(0).values,
    "topk/huge_k": lambda L, d: X(L, d).topk(HUGE),
    "topk/float_k": lambda L, d: X(L, d).topk(2.0),
    "topk/0dim_k1": lambda L, d: X(L, d, ()).topk(1).values,
    "kthvalue/np_k": lambda L, d: X(L, d).kthvalue(np.int64(2)).values,
    "kthvalue/k_zero": lambda L, d: X(L, d).kthvalue(0),
    "kthvalue/k_past": lambda L, d: X(L, d).kthvalue(4),
    "kthvalue/0dim": lambda L, d: X(L, d, ()).kthvalue(1).values,
    "sort/np_dim": lambda L, d: X(L, d).sort(np.int64(0)).values,
    "sort/bool_dim_positional": lambda L, d: X(L, d).sort(True).values,
    "sort/stable_positional": lambda L, d: X(L, d).sort(stable=True, dim=0, descending=True).values,
    "sort/huge_dim": lambda L, d: X(L, d).sort(HUGE),
    "argsort/np_dim": lambda L, d: X(L, d).argsort(np.int64(-1)),
    "cumsum/np_dim": lambda L, d: X(L, d).cumsum(np.int64(1)),
    "cumsum/bool_dim": lambda L, d: X(L, d).cumsum(True),
    "cumsum/no_dim": lambda L, d: X(L, d).cumsum(),
    "cumsum/dtype_np": lambda L, d: X(L, d).cumsum(0, dtype=np.float64),
    "cumprod/huge_dim": lambda L, d: X(L, d).cumprod(HUGE),
    # ---- new_* and fills
    "new_zeros/np_sizes": lambda L, d: X(L, d).new_zeros(np.int64(2), np.int64(2)),
    "new_ones/tuple_and_dtype": lambda L, d: X(L, d).new_ones((2,), dtype=L.int32),
    "new_full/np_fill": lambda L, d: X(L, d).new_full((2,), np.float32(1.5)),
    "new_empty/negative": lambda L, d: X(L, d).new_empty((-1,)),
    "new_tensor/np_0d": lambda L, d: X(L, d).new_tensor(np.array(3)),
    "fill_/np_0d_array": lambda L, d: X(L, d).fill_(np.array(2.5)),
    "fill_/tensor_1elem_1d": lambda L, d: X(L, d).fill_(T(L, [2.0], d)),
    "masked_fill/np_value": lambda L, d: X(L, d).masked_fill(X(L, d) > 0, np.int64(3)),
    "clamp/np_0d_bounds": lambda L, d: X(L, d).clamp(np.array(-1.0), np.array(1.0)),
    # ---- size / stride / dims queried oddly
    "size/np_dim": lambda L, d: X(L, d).size(np.int64(-1)),
    "size/bool_dim": lambda L, d: X(L, d).size(True),
    "size/huge": lambda L, d: X(L, d).size(HUGE),
    "stride/np_dim": lambda L, d: X(L, d).stride(np.int32(0)),
    "stride/past": lambda L, d: X(L, d).stride(2),
    "shape/index_np": lambda L, d: X(L, d).shape[np.int64(1)],
    "sum/np_0d_dim": lambda L, d: X(L, d).sum(np.array(1)),
    "sum/bool_dim": lambda L, d: X(L, d).sum(True),
    "sum/dim_list_np": lambda L, d: X(L, d).sum([np.int64(0), np.int64(1)]),
    "mean/float_dim": lambda L, d: X(L, d).mean(1.0),
    "softmax/np_dim": lambda L, d: X(L, d).softmax(np.int64(0)),
    "argmax/bool_dim": lambda L, d: X(L, d).argmax(False),
}

_SHAPE_WORDS = ("needs C++: python/src/tensor.cpp to_shape() words every size argument as 'size' and its own "
                "\"failed to unpack\" line; PyTorch names the argument ('shape' for reshape, 'dims' for permute/"
                "flip) and, where a method has overloads (view(dtype)/view(size), permute/expand varargs), says "
                "\"received an invalid combination of arguments\" or \"takes 1 positional argument\" (TypeError "
                "both)")
_NB_WORDS = ("needs C++: nanobind's overload error (\"incompatible function arguments\") where PyTorch's parser "
             "names the argument and type (TypeError both)")
KNOWN = {
    "cumsum/dtype_np": "intended: the reductions' dtype= (python/src/reductions.cpp parse_dtype) takes NumPy "
                       "dtypes and names (np.float64, 'float32') so NumPy's protocol functions (np.sum(t, "
                       "dtype=...)) work; PyTorch refuses them (TypeError)",
    "cumsum/no_dim": "intended: x.cumsum() without dim flattens, as np.cumsum (tandem's binding serves NumPy's "
                     "protocol, python/src/reductions.cpp); PyTorch requires dim",
    "transpose/one_arg": "intended: x.transpose(axes) permutes, so np.transpose(t, axes) works (python/src/views.cpp); "
                         "PyTorch requires dim1. The RuntimeError names permute(sparse_coo) (PyTorch's own words "
                         "for a rank mismatch)",
    "narrow/bool_dim": _NB_WORDS,
    "sort/bool_dim_positional": _NB_WORDS,
    "roll/negative_huge_shift": "PyTorch's fault: a shift of -(2**63-1) is a heap-allocated SymInt its roll kernel "
                                "cannot view (internal RuntimeError); tandem rolls by it correctly",
    "sum/np_0d_dim": "PyTorch's fault: a 0-d NumPy array as dim fails its parser's internal assert "
                     "(PyList_Check); tandem reads it as the int it holds",
    "repeat/huge": "overflow wording: tandem's numel overflow check fires before PyTorch's negative-dimension one "
                   "(2**62 * 3 wraps negative in PyTorch) (RuntimeError both)",
    "expand/minus_two": "overflow wording: PyTorch multiplies the sizes first (numel overflow), tandem checks the "
                        "negative size first (RuntimeError both)",
    "clamp/np_0d_bounds": "needs C++: python/src to_scalar() refuses a 0-d ndarray with \"must be Number\"; "
                          "PyTorch's overload error lists the types (TypeError both)",
    "fill_/np_0d_array": "needs C++: as clamp/np_0d_bounds (TypeError both)",
    "mean/float_dim": "needs C++: the reduction binding's dim parser words a float/bool dim as \"must be tuple of "
                      "ints or int\"; PyTorch lists the overloads (TypeError both)",
    "sum/bool_dim": "needs C++: as mean/float_dim (TypeError both)",
    "squeeze/bool_dim": "needs C++: as mean/float_dim (squeeze's dims go through to_shape) (TypeError both)",
    "narrow/float_start": _NB_WORDS,
    "index_select/list_index": _NB_WORDS,
    "expand_as/not_tensor": _NB_WORDS,
    "reshape_as/not_tensor": _NB_WORDS,
    "unsqueeze/tuple": _NB_WORDS,
}
_META_INDEX = ("on the meta device only: a 0-d meta tensor as an int argument has no value; nanobind's int64_t "
               "conversion swallows __index__'s \"Tensor.item() cannot be called on meta tensors\" and reports "
               "its overload error (needs C++: python/src/views.cpp narrow/select should take the argument as "
               "nb::handle and read it through as_int(), which lets the meta error through)")
KNOWN.update({"narrow/tensor_start": _META_INDEX, "select/tensor_index": _META_INDEX})
KNOWN.update({name: _SHAPE_WORDS for name in (
    "expand/bool", "permute/bool_dims", "permute/float",
    "reshape/float_tuple", "reshape/np_array_shape", "view/bool_size", "view/dtype_np",
    "view/dtype_str", "view/float_size", "view/none", "view/tuple_and_int")})
