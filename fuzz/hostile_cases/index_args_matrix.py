"""The index ops as a matrix over hostile index tensors, beyond index_ops.py and scatter_gather_matrix.py (one case
per hostile value there): index_select (dims 0, -1 and past the rank), index_add (with alpha), index_copy,
index_fill (a number, a 0-d tensor, a 1-d tensor as the value), take, take_along_dim (with and without a dim), put_
(with and without accumulate) and in-place index_copy_, each given one list of indices: valid, repeated, negative,
past the end, far below zero, float, bool, int32, int16, uint8, int8, a strided (non-contiguous) int64 slice, a 0-d
tensor, an empty int64 and an empty float tensor, a 2-d index, a Python list and a Python int; crossed with selves of
float32 (3, 4), int64, bool, float16, complex64, a transposed view, an expanded (stride 0) self, an empty (0, 4), a
1-d and a 0-d tensor. A source or value is built to fit the index's length (so what is refused is the index)."""
from . import R, T

INDICES = {
    "valid": lambda L, d: T(L, [0, 2], d, "int64"),
    "repeated": lambda L, d: T(L, [1, 1, 0], d, "int64"),
    "negative": lambda L, d: T(L, [-1, 0], d, "int64"),
    "past_end": lambda L, d: T(L, [0, 5], d, "int64"),
    "far_negative": lambda L, d: T(L, [-10], d, "int64"),
    "float": lambda L, d: T(L, [0.0, 1.0], d, "float32"),
    "bool": lambda L, d: T(L, [True, False], d, "bool"),
    "int32": lambda L, d: T(L, [0, 2], d, "int32"),
    "int16": lambda L, d: T(L, [0, 1], d, "int16"),
    "uint8": lambda L, d: T(L, [1, 0], d, "uint8"),
    "int8": lambda L, d: T(L, [0, 1], d, "int8"),
    "strided": lambda L, d: T(L, [2, 9, 0, 9], d, "int64")[::2],
    "scalar": lambda L, d: T(L, 1, d, "int64"),
    "empty": lambda L, d: T(L, [], d, "int64"),
    "empty_float": lambda L, d: T(L, [], d, "float32"),
    "two_d": lambda L, d: T(L, [[0, 1]], d, "int64"),
    "list": lambda L, d: [0, 1],
    "int": lambda L, d: 1,
}

SELVES = {
    "f32": lambda L, d: R(L, (3, 4), d, "float32"),
    "i64": lambda L, d: T(L, [[1, -2, 3, 4], [5, 6, -7, 8], [9, 10, 11, -12]], d, "int64"),
    "bool": lambda L, d: R(L, (3, 4), d, "float32") > 0,
    "f16": lambda L, d: R(L, (3, 4), d, "float16"),
    "c64": lambda L, d: R(L, (3, 4), d, "float32").to(L.complex64) * (1 - 1j),
    "transposed": lambda L, d: R(L, (4, 3), d, "float32").t(),
    "expanded": lambda L, d: R(L, (1, 4), d, "float32").expand(3, 4),
    "empty": lambda L, d: L.empty(0, 4, device=d),
    "vec": lambda L, d: R(L, (5,), d, "float32"),
    "scalar": lambda L, d: T(L, 2.5, d),
}


def _n(index):
    """How many entries the index selects (the length a source must have along the dim)."""
    if isinstance(index, int):
        return 1
    if isinstance(index, list):
        return len(index)
    return index.numel()


def _source(L, x, dim, index):
    """A source shaped as x with the dim's size replaced by the index's length, of x's dtype."""
    shape = list(x.shape)
    if shape:
        shape[dim] = _n(index)
    return L.ones(shape, device=x.device, dtype=x.dtype)


def _flat_source(L, x, index):
    return L.ones(max(_n(index), 0), device=x.device, dtype=x.dtype)


def _along(L, x, index, dim):
    """take_along_dim's index: the index reshaped to x's rank (one entry along dim), where its kind allows."""
    if not hasattr(index, "reshape") or x.dim() == 0:
        return index
    shape = [1] * x.dim()
    shape[dim] = index.numel()
    return index.reshape(shape)


OPS = {
    "index_select_0": lambda L, x, i: L.index_select(x, 0, i),
    "index_select_last": lambda L, x, i: x.index_select(-1, i),
    "index_select_past": lambda L, x, i: x.index_select(2, i),
    "index_select_out": lambda L, x, i: L.index_select(x, 0, i, out=L.empty(0, dtype=x.dtype, device=x.device)),
    "index_add": lambda L, x, i: x.index_add(0, i, _source(L, x, 0, i)),
    "index_add_alpha": lambda L, x, i: x.index_add(-1, i, _source(L, x, -1, i), alpha=2),
    "index_add_src_f64": lambda L, x, i: x.index_add(0, i, _source(L, x, 0, i).double()),
    "index_copy": lambda L, x, i: x.index_copy(0, i, _source(L, x, 0, i)),
    "index_copy_": lambda L, x, i: x.clone().index_copy_(-1, i, _source(L, x, -1, i)),
    "index_fill": lambda L, x, i: x.index_fill(0, i, 7),
    "index_fill_float": lambda L, x, i: x.index_fill(-1, i, -1.5),
    "index_fill_0d": lambda L, x, i: x.index_fill(0, i, L.tensor(3.0, device=x.device)),
    "index_fill_1d_value": lambda L, x, i: x.index_fill(0, i, L.tensor([3.0], device=x.device)),
    "take": lambda L, x, i: L.take(x, i),
    "take_along_dim_none": lambda L, x, i: L.take_along_dim(x, i),
    "take_along_dim_0": lambda L, x, i: L.take_along_dim(x, _along(L, x, i, 0), dim=0),
    "take_along_dim_last": lambda L, x, i: L.take_along_dim(x, _along(L, x, i, -1), -1),
    "put_": lambda L, x, i: x.clone().put_(i, _flat_source(L, x, i)),
    "put_accumulate": lambda L, x, i: x.clone().put_(i, _flat_source(L, x, i), accumulate=True),
    "put": lambda L, x, i: L.put(x, i, _flat_source(L, x, i)),
}

CASES = {}
for _op, _fn in OPS.items():
    for _s, _x in SELVES.items():
        for _i, _ix in INDICES.items():
            CASES[f"{_op}/{_s}/{_i}"] = lambda L, d, fn=_fn, x=_x, ix=_ix: fn(L, x(L, d), ix(L, d))

_TENSOR_INDICES = [i for i in INDICES if i not in ("int", "list")]
_EMPTY_SELF = ("PyTorch does not check the indices against an empty self: index_add returns it (and index_fill with a "
               "float value), index_copy and index_fill fail in an internal check (\"setStorage: sizes [2, 4] ... out "
               "of bounds for storage of size 0\"); tandem refuses the out-of-range index as for any other self")
_SELECT_0D = ("fixed in C++ in session 48 (src/ops, index_select): a 0-d self takes an index of one element only, PyTorch's \"index_select(): "
              "Index to scalar can have only 1 value, got 2 value(s)\", checked before the index's dtype and range")
_SELECT_DIM_FIRST = ("fixed in C++ in session 48 (src/ops, index_select): PyTorch wraps the dim (\"Dimension out of range\") before checking "
                     "the index's dtype and rank; tandem checks the index first")
_TAD_0D = ("fixed in C++ in session 48 (src/ops, take_along_dim): a 0-d self with dim= is PyTorch's size check first (\"input and indices "
           "should have the same number of dimensions, but got 0 dimensions for input, and 1 dimensions for "
           "indices\", then \"Dimension specified as 0 but tensor has no dimensions\" for a 0-d index), before the "
           "index's dtype; tandem checks the dtype first and takes a 0-d index of a 0-d self")
_TAD_FLAT = ("fixed in C++ in session 48 (src/ops, take_along_dim without a dim): PyTorch's is self.view(-1).gather(0, indices.view(-1)): "
             "gather's dtype rule (int32 taken, else \"gather(): Expected dtype int32/int64 for index\") and its "
             "message for an out-of-range index (the first one, as given); tandem's take_along_dim wants int64 and "
             "names another index")
_TAD_VIEW = ("PyTorch's take_along_dim without a dim views the input as 1-d (self.view(-1)), so a transposed or "
             "expanded input fails with \"view size is not compatible with input tensor's size and stride\"; tandem "
             "flattens it, as the documented equivalent (take_along_dim(x.flatten(), i)) does")
_TAD_EMPTY = ("PyTorch's take_along_dim with a dim over an empty self fails with a ZeroDivisionError (its fault); "
              "tandem names the out-of-range index")
_OUT_OF_RANGE = ("far_negative", "negative", "past_end")
_ANY_INDEX = _OUT_OF_RANGE + ("repeated", "scalar", "strided", "valid")
KNOWN = {f"{op}/empty/{i}": _EMPTY_SELF for op, indices in (
    ("index_add", _ANY_INDEX + ("int32",)), ("index_add_alpha", _OUT_OF_RANGE), ("index_copy", _ANY_INDEX),
    ("index_copy_", _OUT_OF_RANGE), ("index_fill", _ANY_INDEX), ("index_fill_0d", _ANY_INDEX),
    ("index_fill_float", ("far_negative", "past_end"))) for i in indices}
KNOWN.update({f"{op}/scalar/{i}": _SELECT_0D for op in ("index_select_0", "index_select_last", "index_select_out")
              for i in _TENSOR_INDICES if i not in ("scalar", "empty", "two_d", "far_negative")})
KNOWN.update({f"index_select_past/{x}/{i}": _SELECT_DIM_FIRST for x in SELVES
              for i in ("bool", "empty_float", "float", "int16", "int8", "uint8", "two_d")})
KNOWN.update({f"{op}/scalar/{i}": _TAD_0D for op in ("take_along_dim_0", "take_along_dim_last")
              for i in ("bool", "empty_float", "float", "int16", "int32", "int8", "scalar", "uint8")})
KNOWN.update({f"take_along_dim_none/{x}/{i}": _TAD_FLAT for x in SELVES if x not in ("transposed", "expanded")
              for i in ("bool", "empty_float", "float", "int16", "int32", "int8", "uint8")})
KNOWN.update({f"take_along_dim_none/empty/{i}": _TAD_FLAT for i in ("negative", "past_end", "two_d", "valid")})
KNOWN.update({f"take_along_dim_none/{x}/{i}": _TAD_VIEW for x in ("transposed", "expanded") for i in _TENSOR_INDICES})
KNOWN.update({f"take_along_dim_0/empty/{i}": _TAD_EMPTY for i in _ANY_INDEX + ("two_d",)})

# Fixed in C++ in session 48 (tests/python/test_hostile_inputs22.py, test_fixed_in_cpp): a Python int or list index of
# index_fill/index_fill_ is PyTorch's listing of their overloads (registered in python/src/indexing_ops.cpp).
CPP_FIXED = [f"{op}/{x}/{i}" for op in ("index_fill", "index_fill_0d", "index_fill_1d_value", "index_fill_float")
             for x in SELVES for i in ("int", "list")]
# and index_select's and take_along_dim's order of checks (src/ops/index_select.cpp, gather.cpp; the four reasons
# above that start "fixed in C++"), gather naming the first index out of range
CPP_FIXED += [name for name, reason in KNOWN.items() if reason.startswith("fixed in C++")]
KNOWN = {name: reason for name, reason in KNOWN.items() if not reason.startswith("fixed in C++")}
