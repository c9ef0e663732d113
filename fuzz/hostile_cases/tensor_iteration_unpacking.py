"""Tensors used as Python objects, beyond conversion.py (item/int/float of many elements) and scalar_edges.py:
len, iter/list/reversed, unpacking, bool/int/float/complex/operator.index, range(), math.floor/ceil, round,
format specs, bytes(), list repetition and list indexing by a tensor, hash, Python's sum/max/min/sorted/any/all over
a tensor, `in` (numbers, tensors of other shapes and dtypes, None, strings, lists), and NumPy's array()/asarray()
with a dtype; each over the same inputs: 0-d float, int, bool, complex, NaN, float16 and requires-grad tensors,
one-element, empty, 2-d and empty-2-d tensors, and uint8/int8 values at their ends."""
import math
import operator

import numpy as np

from . import R, T

INPUTS = {
    "0d_float": lambda L, d: T(L, 2.75, d),
    "0d_int": lambda L, d: T(L, 3, d),
    "0d_negative_int": lambda L, d: T(L, -2, d),
    "0d_bool": lambda L, d: T(L, True, d),
    "0d_complex": lambda L, d: T(L, 1.5 + 2j, d),
    "0d_nan": lambda L, d: T(L, math.nan, d),
    "0d_half": lambda L, d: T(L, 1.5, d, "float16"),
    "0d_requires_grad": lambda L, d: L.tensor(1.25, device=d, requires_grad=True),
    "1elem": lambda L, d: T(L, [4], d),
    "empty": lambda L, d: L.zeros(0, device=d),
    "2d": lambda L, d: R(L, (2, 3), d, "float32"),
    "2d_empty": lambda L, d: L.zeros(0, 3, device=d),
    "uint8": lambda L, d: T(L, [0, 255], d, "uint8"),
}

OPS = {
    "len": len,
    "list": list,
    "reversed": lambda t: list(reversed(t)),
    "unpack_two": lambda t: (lambda a, b: (a, b))(*t),
    "bool": bool,
    "int": int,
    "float": float,
    "complex": lambda t: repr(complex(t)),  # a repr: the harness compares complex NaNs as unequal
    "index": operator.index,
    "range": lambda t: list(range(t)),
    "floor": math.floor,
    "format_2f": lambda t: format(t, ".2f"),
    "bytes": bytes,
    "list_repeat": lambda t: [0] * t,
    "list_getitem": lambda t: [10, 11, 12, 13, 14][t],
    "builtin_sum": sum,
    "builtin_max": max,
    "sorted": sorted,
    "any": any,
    # on the CPU: np.array of a cuda tensor is refused in both libraries, and the oracle has no cuda
    "numpy_array": lambda t: (lambda a: (a.dtype.name, a.tolist()))(np.array(t.cpu())),
    "hash_is_id": lambda t: hash(t) == id(t),
}

# Ops that do not depend on the element dtype run on fewer inputs.
SHAPE_ONLY = ("len", "list", "reversed", "unpack_two", "builtin_sum", "sorted", "any", "hash_is_id")
SHAPE_INPUTS = ("0d_float", "1elem", "empty", "2d", "2d_empty", "uint8")
# The integer ends and float16 matter for the number conversions only.
NUMBER_OPS = ("int", "float", "index", "bytes", "list_getitem", "range")
NUMBER_INPUTS = ("0d_negative_int", "0d_half", "uint8")


def case(op, source):
    return lambda L, d: OPS[op](INPUTS[source](L, d))


CASES = {f"{op}/{source}": case(op, source) for op in OPS for source in INPUTS
         if (source in SHAPE_INPUTS if op in SHAPE_ONLY else source not in NUMBER_INPUTS or op in NUMBER_OPS)}
CASES.update({
    # ---- `in`
    "contains/number_present": lambda L, d: 2.0 in T(L, [1.0, 2.0], d),
    "contains/number_absent": lambda L, d: 5 in T(L, [1.0, 2.0], d),
    "contains/nan": lambda L, d: math.nan in T(L, [math.nan], d),
    "contains/bool_in_int": lambda L, d: True in T(L, [0, 1], d),
    "contains/complex_in_float": lambda L, d: 1 + 0j in T(L, [1.0], d),
    "contains/tensor_0d": lambda L, d: T(L, 2.0, d) in T(L, [1.0, 2.0], d),
    "contains/tensor_row": lambda L, d: T(L, [1.0, 2.0], d) in T(L, [[1.0, 2.0], [3.0, 4.0]], d),
    "contains/tensor_wrong_shape": lambda L, d: T(L, [1.0, 2.0, 3.0], d) in T(L, [[1.0, 2.0]], d),
    "contains/none": lambda L, d: None in T(L, [1.0], d),
    "contains/str": lambda L, d: "a" in T(L, [1.0], d),
    "contains/list": lambda L, d: [1.0] in T(L, [1.0], d),
    "contains/numpy_scalar": lambda L, d: np.float32(1.0) in T(L, [1.0], d),
    "contains/empty": lambda L, d: 1 in L.zeros(0, device=d),
    "contains/0d_self": lambda L, d: 3 in T(L, 3, d),
    "contains/int_in_uint8_overflow": lambda L, d: 256 in T(L, [0], d, "uint8"),
    "contains/tensor_other_dtype": lambda L, d: T(L, 1, d) in T(L, [1.0, 2.0], d),
    # ---- iteration details
    "iter/next_on_0d": lambda L, d: next(iter(T(L, 1.0, d))),
    "iter/rows_are_views": lambda L, d: (lambda t: (list(t)[0].fill_(9), t)[1])(R(L, (2, 3), d, "float32")),
    "iter/rows_require_grad": lambda L, d: [r.requires_grad for r in R(L, (2, 2), d).requires_grad_()],
    "iter/rows_grad_fn_name": lambda L, d: [type(r.grad_fn).__name__ for r in R(L, (2, 2), d).requires_grad_()],
    "iter/enumerate": lambda L, d: list(enumerate(T(L, [5, 6], d))),
    "iter/zip": lambda L, d: list(zip(T(L, [5, 6], d), T(L, [7, 8, 9], d))),
    "iter/star_args": lambda L, d: max(*T(L, [1.0, 3.0, 2.0], d)),
    "iter/dict_from_pairs": lambda L, d: [(int(k), int(v)) for k, v in T(L, [[1, 2], [3, 4]], d)],
    "iter/unpack_too_many": lambda L, d: (lambda a, b: a)(*T(L, [1, 2, 3], d)),
    "iter/unpack_starred": lambda L, d: (lambda t: (lambda a, *rest: (a, rest))(*t))(T(L, [1, 2, 3], d)),
    "iter/set_of_rows_size": lambda L, d: len(set(T(L, [1, 1], d))),
    "iter/builtin_min_nan": lambda L, d: min(T(L, [2.0, math.nan, 1.0], d)),
    "iter/sorted_reverse": lambda L, d: sorted(T(L, [2, 5, 1], d), reverse=True),
    "iter/sum_start_tensor": lambda L, d: sum(T(L, [1.0, 2.0], d), T(L, 10.0, d)),
    # ---- conversions with odd values
    "int/huge_float": lambda L, d: int(T(L, 1e30, d)),
    "int/inf": lambda L, d: int(T(L, math.inf, d)),
    "int/nan": lambda L, d: int(T(L, math.nan, d)),
    "index/bool_0d": lambda L, d: operator.index(T(L, False, d)),
    "index/uint8_0d": lambda L, d: operator.index(T(L, 200, d, "uint8")),
    "index/float_1elem": lambda L, d: operator.index(T(L, [1.0], d)),
    "index/int_requires_grad_view": lambda L, d: operator.index(T(L, [1, 2], d)[1]),
    "float/int64_big": lambda L, d: float(T(L, 2**62 + 1, d)),
    "complex/int": lambda L, d: complex(T(L, 3, d)),
    "bool/nan": lambda L, d: bool(T(L, math.nan, d)),
    "bool/negative_zero": lambda L, d: bool(T(L, -0.0, d)),
    "round/half_even_tensor": lambda L, d: round(T(L, 2.5, d)),
    "round/negative_ndigits": lambda L, d: round(T(L, 1234.5, d), -2),
    "round/ndigits_float": lambda L, d: round(T(L, 1.25, d), 1.5),
    "ceil/0d_float": lambda L, d: math.ceil(T(L, 2.25, d)),
    "format/int_d": lambda L, d: format(T(L, 3, d), "d"),
    "format/float_d": lambda L, d: format(T(L, 3.0, d), "d"),
    "format/complex_spec": lambda L, d: format(T(L, 1 + 2j, d), ".1f"),
    "format/fstring_width": lambda L, d: f"{T(L, 2.5, d):>8.3f}",
    "numpy/array_dtype_int": lambda L, d: np.array(T(L, [1.7, -2.2], "cpu"), dtype=np.int32).tolist(),
    "numpy/asarray_dtype_complex": lambda L, d: np.asarray(T(L, [1.0], "cpu"), dtype=np.complex64).dtype.name,
    "numpy/array_requires_grad": lambda L, d: np.array(L.ones(2, requires_grad=True)),
    "numpy/array_method_dtype": lambda L, d: T(L, [1, 2], "cpu").__array__(np.float16).dtype.name,
    "numpy/array_method_dtype_str": lambda L, d: T(L, [1, 2], "cpu").__array__("float32").dtype.name,
    "numpy/array_method_copy_kw": lambda L, d: T(L, [1, 2], "cpu").__array__(copy=False).dtype.name,
    "numpy/array_0d_dtype_bool": lambda L, d: np.array(T(L, 0.5, "cpu"), dtype=bool).item(),
})

KNOWN = {
    "iter/rows_grad_fn_name": "tandem's core iterates a tensor by select (SelectBackward0 rows); PyTorch's __iter__ "
                              "unbinds it (UnbindBackward0): the same rows, values and gradients",
    "numpy/array_method_copy_kw": "by design: tandem's __array__ takes NumPy 2's copy= keyword (docs/reliability.md, "
                                  "round 10); PyTorch's takes dtype only",
}
