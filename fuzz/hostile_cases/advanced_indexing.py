"""Advanced indexing and setitem as a matrix, beyond indexing.py and masked_where_put.py: a (3, 4, 5) tensor read
and written through each of a list of hostile indices (bool masks of the wrong shape, rank and dtype; index tensors
of float, int32, uint8, int16, bool and 0-d kinds; indices past the end or negative past the start; None and
Ellipsis in every position; slices with negative and zero steps, empty and past-the-end slices; lists, nested
lists and tuples mixed with tensors; broadcasting index tensors; indices on another device); setitem crossed with
values that broadcast, fail to broadcast, have another dtype (float into int, int into bool, complex into float, a
NaN into int), are 0-d tensors, Python scalars, lists, or require grad; index_put_ with accumulate and
duplicate indices."""
import math

from . import R

NAN = math.nan


def base(L, d, dtype="float32"):
    return R(L, (3, 4, 5), d, dtype)


def ix(L, d, v, dtype="int64"):
    return L.tensor(v, device=d, dtype=getattr(L, dtype))


INDICES = {
    "int": lambda L, d: 1,
    "int_negative": lambda L, d: -3,
    "int_past": lambda L, d: 3,
    "int_negative_past": lambda L, d: -4,
    "bool_true": lambda L, d: True,
    "bool_false": lambda L, d: False,
    "none": lambda L, d: None,
    "ellipsis": lambda L, d: ...,
    "ellipsis_twice": lambda L, d: (..., 0, ...),
    "none_ellipsis_none": lambda L, d: (None, ..., None),
    "ellipsis_int_none": lambda L, d: (..., 1, None),
    "too_many": lambda L, d: (0, 0, 0, 0),
    "too_many_with_none": lambda L, d: (0, None, 0, 0, None),
    "slice_step_negative": lambda L, d: slice(None, None, -1),
    "slice_step_zero": lambda L, d: slice(None, None, 0),
    "slice_empty": lambda L, d: slice(2, 1),
    "slice_past": lambda L, d: slice(5, 10),
    "slice_huge": lambda L, d: slice(-2 ** 63, 2 ** 63 - 1),
    "slice_tensor_bounds": lambda L, d: slice(ix(L, d, 1), ix(L, d, 2)),
    "slice_float": lambda L, d: slice(0.5, 2),
    "long_1d": lambda L, d: ix(L, d, [0, 2]),
    "long_past": lambda L, d: ix(L, d, [0, 3]),
    "long_negative": lambda L, d: ix(L, d, [-1, -3]),
    "long_negative_past": lambda L, d: ix(L, d, [-4]),
    "long_0d": lambda L, d: ix(L, d, 2),
    "long_2d": lambda L, d: ix(L, d, [[0, 1], [2, 0]]),
    "long_empty": lambda L, d: ix(L, d, []),
    "int32": lambda L, d: ix(L, d, [0, 2], "int32"),
    "int16": lambda L, d: ix(L, d, [0, 2], "int16"),
    "int8": lambda L, d: ix(L, d, [0, 2], "int8"),
    "uint8_as_mask": lambda L, d: ix(L, d, [1, 0, 1], "uint8"),
    "uint8_wrong_len": lambda L, d: ix(L, d, [1, 0], "uint8"),
    "float": lambda L, d: ix(L, d, [0.0, 1.0], "float32"),
    "float_0d": lambda L, d: ix(L, d, 1.0, "float32"),
    "complex": lambda L, d: ix(L, d, [0, 1], "complex64"),
    "bool_mask_dim0": lambda L, d: ix(L, d, [True, False, True], "bool"),
    "bool_mask_short": lambda L, d: ix(L, d, [True, False], "bool"),
    "bool_mask_long": lambda L, d: ix(L, d, [True, False, True, True], "bool"),
    "bool_mask_2d": lambda L, d: base(L, d)[:, :, 0] > 0,
    "bool_mask_2d_wrong": lambda L, d: L.ones(4, 3, dtype=L.bool, device=d),
    "bool_mask_full": lambda L, d: base(L, d) > 0,
    "bool_mask_too_big": lambda L, d: L.ones(3, 4, 5, 2, dtype=L.bool, device=d),
    "bool_mask_0d": lambda L, d: ix(L, d, True, "bool"),
    "bool_mask_empty": lambda L, d: L.zeros(0, dtype=L.bool, device=d),
    "bool_mask_then_int": lambda L, d: (ix(L, d, [True, False, True], "bool"), 1),
    "int_then_bool_mask": lambda L, d: (1, ix(L, d, [True, False, True, False], "bool")),
    "two_tensors_broadcast": lambda L, d: (ix(L, d, [[0], [2]]), ix(L, d, [1, 3])),
    "two_tensors_mismatch": lambda L, d: (ix(L, d, [0, 1]), ix(L, d, [1, 2, 3])),
    "tensor_slice_tensor": lambda L, d: (ix(L, d, [0, 2]), slice(None), ix(L, d, [1, 4])),
    "tensor_none_tensor": lambda L, d: (ix(L, d, [0, 2]), None, ix(L, d, [1, 3])),
    "list_ints": lambda L, d: [0, 2],
    "list_nested": lambda L, d: [[0, 1], [1, 2]],
    "list_ragged": lambda L, d: [[0, 1], [1]],
    "list_bools": lambda L, d: [True, False, True],
    "list_with_tensor": lambda L, d: [ix(L, d, 0), 2],
    "list_with_none": lambda L, d: [0, None],
    "list_with_slice": lambda L, d: [0, slice(None)],
    "list_floats": lambda L, d: [0.0, 1.0],
    "tuple_of_lists": lambda L, d: ([0, 1], [1, 2]),
    "cpu_index": lambda L, d: ix(L, "cpu", [0, 2]),
    "int64_max": lambda L, d: ix(L, d, [2 ** 63 - 1]),
    "str": lambda L, d: "a",
    "numpy_int": lambda L, d: __import__("numpy").int64(1),
    "numpy_array": lambda L, d: __import__("numpy").array([0, 2]),
    "numpy_bool_array": lambda L, d: __import__("numpy").array([True, False, True]),
    "requires_grad_index": lambda L, d: L.tensor([0.0, 1.0], device=d, requires_grad=True),
}

VALUES = {
    "scalar": lambda L, d, shape: 7,
    "float_scalar": lambda L, d, shape: 2.5,
    "nan": lambda L, d, shape: NAN,
    "bool_scalar": lambda L, d, shape: True,
    "complex_scalar": lambda L, d, shape: 1 + 2j,
    "tensor_0d": lambda L, d, shape: L.tensor(3.0, device=d),
    "tensor_same": lambda L, d, shape: L.ones(shape, device=d) * 4,
    "tensor_broadcast_row": lambda L, d, shape: L.arange(shape[-1] if shape else 1, device=d).float(),
    "tensor_bad_broadcast": lambda L, d, shape: L.ones(7, device=d),
    "tensor_extra_leading_one": lambda L, d, shape: L.ones((1,) + tuple(shape), device=d),
    "tensor_extra_leading_two": lambda L, d, shape: L.ones((2,) + tuple(shape), device=d),
    "tensor_int64": lambda L, d, shape: L.ones(shape, device=d, dtype=L.int64) * 9,
    "tensor_float64": lambda L, d, shape: L.ones(shape, device=d, dtype=L.float64) * 0.5,
    "tensor_complex": lambda L, d, shape: L.ones(shape, device=d, dtype=L.complex64),
    "tensor_bool": lambda L, d, shape: L.ones(shape, device=d, dtype=L.bool),
    "list": lambda L, d, shape: [1.0] * (shape[-1] if shape else 1),
    "requires_grad": lambda L, d, shape: L.ones(shape, device=d, requires_grad=True),
    "cpu_0d": lambda L, d, shape: L.tensor(5.0),
    "cpu_tensor": lambda L, d, shape: L.ones(shape),
    "none": lambda L, d, shape: None,
    "str": lambda L, d, shape: "x",
}


def _get(L, d, make, dtype="float32"):
    return base(L, d, dtype)[make(L, d)]


def _set(L, d, make, value, dtype="float32"):
    x = base(L, d, dtype)
    idx = make(L, d)
    on_cpu = tuple(i.cpu() if hasattr(i, "cpu") else i for i in idx) if isinstance(idx, tuple) else \
        idx.cpu() if hasattr(idx, "cpu") else idx
    try:
        shape = tuple(base(L, "cpu", dtype)[on_cpu].shape)
    except Exception:  # noqa: BLE001 - the read fails: the write's own error is the case
        shape = (1,)
    x[idx] = value(L, d, shape)
    return x


CASES = {}
for _i, _make in INDICES.items():
    CASES[f"getitem/{_i}"] = lambda L, d, mk=_make: _get(L, d, mk)
    CASES[f"getitem_int_tensor/{_i}"] = lambda L, d, mk=_make: _get(L, d, mk, "int64")
    for _v, _val in VALUES.items():
        if _v in ("scalar", "tensor_same", "tensor_bad_broadcast", "tensor_int64", "nan", "requires_grad",
                  "complex_scalar", "cpu_0d") or _i in ("long_1d", "bool_mask_dim0", "ellipsis", "none",
                                                        "two_tensors_broadcast", "slice_step_negative"):
            CASES[f"setitem/{_i}/{_v}"] = lambda L, d, mk=_make, val=_val: _set(L, d, mk, val)
    CASES[f"setitem_int/{_i}/nan"] = lambda L, d, mk=_make: _set(L, d, mk, VALUES["nan"], "int64")
    CASES[f"setitem_int/{_i}/float_scalar"] = lambda L, d, mk=_make: _set(L, d, mk, VALUES["float_scalar"], "int64")
    CASES[f"setitem_bool/{_i}/scalar"] = lambda L, d, mk=_make: _set(L, d, mk, VALUES["scalar"], "bool")


def _put(L, d, indices, values, accumulate, dtype="float32"):
    return L.zeros(4, 3, device=d, dtype=getattr(L, dtype)).index_put_(indices(L, d), values(L, d),
                                                                       accumulate=accumulate)


PUT_INDICES = {
    "duplicates": lambda L, d: (ix(L, d, [0, 0, 2, 0]),),
    "duplicates_2d": lambda L, d: (ix(L, d, [0, 0, 1]), ix(L, d, [1, 1, 2])),
    "negative_duplicates": lambda L, d: (ix(L, d, [-1, 3, -4]),),
    "past": lambda L, d: (ix(L, d, [4]),),
    "negative_past": lambda L, d: (ix(L, d, [-5]),),
    "int32": lambda L, d: (ix(L, d, [0, 0], "int32"),),
    "float": lambda L, d: (ix(L, d, [0.0], "float32"),),
    "bool_mask": lambda L, d: (ix(L, d, [True, False, True, True], "bool"),),
    "bool_mask_wrong": lambda L, d: (ix(L, d, [True, False], "bool"),),
    "none_entry": lambda L, d: (None, ix(L, d, [0, 0])),
    "list_not_tuple": lambda L, d: [ix(L, d, [0, 0])],
    "empty_tuple": lambda L, d: (),
    "too_many": lambda L, d: (ix(L, d, [0]), ix(L, d, [0]), ix(L, d, [0])),
    "cpu_index": lambda L, d: (ix(L, "cpu", [0, 0]),),
    "empty_index": lambda L, d: (ix(L, d, []),),
}
PUT_VALUES = {
    "row": lambda L, d: L.ones(3, device=d),
    "scalar_0d": lambda L, d: L.tensor(2.0, device=d),
    "per_index": lambda L, d: L.ones(4, 3, device=d)[:4],
    "wrong": lambda L, d: L.ones(5, device=d),
    "int64": lambda L, d: L.ones(3, device=d, dtype=L.int64),
    "float64": lambda L, d: L.ones(3, device=d, dtype=L.float64),
    "cpu_0d": lambda L, d: L.tensor(2.0),
}
for _i, _idx in PUT_INDICES.items():
    for _v, _val in PUT_VALUES.items():
        for _acc in (False, True):
            if _acc or _i.startswith("duplicates") or _v in ("row", "wrong"):
                CASES[f"index_put_/{_i}/{_v}/acc_{_acc}"] = lambda L, d, i=_idx, v=_val, a=_acc: _put(L, d, i, v, a)
    CASES[f"index_put_int/{_i}/acc"] = lambda L, d, i=_idx: _put(L, d, i, lambda L, d: L.ones(3, device=d,
                                                                                         dtype=L.int64), True,
                                                                 "int64")
    CASES[f"index_put_bool/{_i}/acc"] = lambda L, d, i=_idx: _put(L, d, i, lambda L, d: L.ones(3, device=d,
                                                                                          dtype=L.bool), True,
                                                                  "bool")

_CUDA_ONLY = ("cuda-only: a CPU index, value or source of more than one element with a GPU tensor is refused (device "
              "mismatch), as PyTorch's CUDA index_put_ refuses it (only 0-d CPU values move); the oracle runs on the "
              "CPU, where nothing mismatches (not checked against a real GPU this round: none was lent)")
# index_put_/setitem check in PyTorch's order since session 46 (src/ops/indexing.cpp): the indices' dtypes, masks,
# count and broadcast, then the values' broadcast, their dtype, and the range last (PyTorch's kernel check).
# setitem reads the value before the index (a list is "can't assign a list", whatever the index), and a number
# through one int64 index or a 0-d mask is index_fill_'s (its complex refusal) since session 46
# (python/src/indexing.cpp).
KNOWN = {}
for _name in CASES:
    parts = _name.split("/")
    if parts[0] == "setitem" and parts[2] == "cpu_tensor" and parts[1] in ("bool_mask_dim0", "long_1d",
                                                                            "two_tensors_broadcast"):
        KNOWN[_name] = _CUDA_ONLY
    elif parts[0].startswith("index_put") and parts[1] == "empty_tuple" and (parts[0] != "index_put_" or parts[2] in (
            "cpu_0d", "per_index", "row", "scalar_0d")) and (parts[-1] != "acc_False" or parts[2] == "row"):
        KNOWN[_name] = ("PyTorch fails an internal assert on index_put_ with no indices ('ntensor >= 3 INTERNAL ASSERT "
                        "FAILED ... please report a bug to PyTorch'); tandem writes the values over the whole tensor, "
                        "as x[()] = v does")
# x[True] = v (the value converted, copy_'s broadcast words) is PyTorch's basic write since session 45
# (python/src/indexing.cpp).
