"""torch.tensor/as_tensor/asarray/from_numpy/frombuffer with odd data, beyond factories.py, conversion.py,
creation_odd.py and numpy_interop_odd.py (which hold a few of each): every constructor given the same matrix of
data (NumPy scalars of every dtype, Python numbers at and past int64's ends, mixed bool/int/float/complex lists,
ragged and nested lists and tuples, lists holding 0-d, 1-element and multi-element tensors of mixed dtypes, bytes,
bytearray, memoryview, Fraction, Decimal, sets, dicts, iterators and strings); explicit dtypes that cannot hold the
data; requires_grad on integer and bool dtypes and given as a non-bool; asarray's copy= and dtype=/device= against
aliasing; device strings of odd spellings; frombuffer's offset/count/dtype edges; from_numpy of non-arrays and
arrays of every kind."""
import array
import decimal
import fractions
import math

import numpy as np

from . import T

NP_SCALARS = {
    "bool_": np.bool_(True), "int8": np.int8(-7), "int16": np.int16(300), "int32": np.int32(-70000),
    "int64": np.int64(2**40), "uint8": np.uint8(250), "uint16": np.uint16(60000), "uint32": np.uint32(2**31 + 5),
    "uint64": np.uint64(2**63 + 5), "float16": np.float16(0.1), "float32": np.float32(1.5),
    "float64": np.float64(-2.25), "complex64": np.complex64(1 + 2j), "complex128": np.complex128(-1j),
    "longdouble": np.longdouble(1.5), "datetime64": np.datetime64("2020-01-01"), "str_": np.str_("1"),
}


def t0(L, d, value, dtype=None):
    return T(L, value, d, dtype)


# Data that every constructor receives: fn(L, d) -> the data (tensors are built on d).
DATA = {
    **{f"np_{name}": (lambda L, d, v=v: v) for name, v in NP_SCALARS.items()},
    "py_true": lambda L, d: True,
    "py_int64_max": lambda L, d: 2**63 - 1,
    "py_int64_max_plus_1": lambda L, d: 2**63,
    "py_int64_min": lambda L, d: -2**63,
    "py_int64_min_minus_1": lambda L, d: -2**63 - 1,
    "py_2_64": lambda L, d: 2**64,
    "py_float_overflow": lambda L, d: 1e400,
    "py_neg_zero": lambda L, d: -0.0,
    "py_nan": lambda L, d: math.nan,
    "py_complex_real": lambda L, d: complex(1, 0),
    "list_bool_int": lambda L, d: [True, 1],
    "list_bool_float": lambda L, d: [True, 1.5],
    "list_int_float": lambda L, d: [1, 2.5],
    "list_int_complex": lambda L, d: [1, 2j],
    "list_bool_complex": lambda L, d: [True, 2j],
    "list_big_int_float": lambda L, d: [2**63, 1.5],
    "list_int64_overflow_mixed": lambda L, d: [1, 2**63],
    "list_nested_int_float": lambda L, d: [[1], [2.0]],
    "list_nested_bool_int": lambda L, d: [[True], [2]],
    "list_with_none": lambda L, d: [1, None],
    "list_only_none": lambda L, d: [None],
    "list_with_str": lambda L, d: [1, "a"],
    "list_str_number": lambda L, d: ["1"],
    "list_empty": lambda L, d: [],
    "list_empty_nested": lambda L, d: [[]],
    "list_two_empty": lambda L, d: [[], []],
    "list_ragged_empty": lambda L, d: [[1], []],
    "list_ragged_short_second": lambda L, d: [[1, 2], [3]],
    "list_ragged_long_second": lambda L, d: [[1], [2, 3]],
    "list_scalar_then_list": lambda L, d: [1, [2]],
    "list_list_then_scalar": lambda L, d: [[1], 2],
    "list_ragged_deep": lambda L, d: [[[1]], [[2, 3]]],
    "tuple_nested": lambda L, d: ((1, 2), (3, 4)),
    "list_tuple_mixed": lambda L, d: ([1, 2], (3, 4)),
    "range": lambda L, d: range(3),
    "list_of_ranges": lambda L, d: [range(2), range(2)],
    "list_0d_tensors": lambda L, d: [t0(L, d, 1.5), t0(L, d, 2.5)],
    "list_0d_int_and_float": lambda L, d: [t0(L, d, 1), 2.5],
    "list_0d_bool_and_int": lambda L, d: [t0(L, d, True), 2],
    "list_0d_float64_float32": lambda L, d: [t0(L, d, 1.0, "float64"), t0(L, d, 2.0, "float32")],
    "list_0d_complex_and_int": lambda L, d: [t0(L, d, 1j), 1],
    "list_0d_half": lambda L, d: [t0(L, d, 1.0, "float16"), t0(L, d, 2.0, "float16")],
    "list_multi_element_tensors": lambda L, d: [t0(L, d, [1.0, 2.0]), t0(L, d, [3.0, 4.0])],
    "list_one_element_tensors": lambda L, d: [t0(L, d, [1.0]), t0(L, d, [2.0])],
    "list_tensor_and_list": lambda L, d: [t0(L, d, 1.0), [2.0]],
    "list_list_and_0d_tensor": lambda L, d: [[1.0], t0(L, d, 2.0)],
    "list_list_and_1d_tensor": lambda L, d: [[1.0], t0(L, d, [2.0])],
    "tuple_0d_tensors": lambda L, d: (t0(L, d, 1), t0(L, d, 2)),
    "nested_0d_tensors": lambda L, d: [[t0(L, d, 1.0)], [t0(L, d, 2.0)]],
    "list_0d_requires_grad": lambda L, d: [L.tensor(1.0, device=d, requires_grad=True), 2.0],
    "list_empty_tensor": lambda L, d: [L.zeros(0, device=d)],
    "list_np_scalars_mixed": lambda L, d: [np.float32(1), 2],
    "list_np_int_and_float": lambda L, d: [np.int64(1), 2.5],
    "list_np_0d_arrays": lambda L, d: [np.array(1), 2],
    "list_np_arrays": lambda L, d: [np.array([1, 2]), np.array([3, 4])],
    "list_np_arrays_ragged": lambda L, d: [np.array([1, 2]), np.array([3])],
    "np_object_ragged": lambda L, d: np.array([[1], [2, 3]], dtype=object),
    "bytes": lambda L, d: b"ab",
    "bytearray": lambda L, d: bytearray(b"ab"),
    "memoryview_bytes": lambda L, d: memoryview(b"ab"),
    "memoryview_floats": lambda L, d: memoryview(array.array("f", [1.5, 2.5])),
    "array_array_int": lambda L, d: array.array("i", [1, 2]),
    "fraction": lambda L, d: fractions.Fraction(1, 2),
    "decimal": lambda L, d: decimal.Decimal("1.5"),
    "list_fraction": lambda L, d: [fractions.Fraction(1, 2)],
    "object": lambda L, d: object(),
    "str": lambda L, d: "abc",
    "dict": lambda L, d: {1: 2},
    "set": lambda L, d: {1, 2},
    "iterator": lambda L, d: iter([1, 2]),
    "generator": lambda L, d: (i for i in range(2)),
}

# asarray and as_tensor take their own paths for NumPy scalars, buffers and sequences: a subset is enough.
ASARRAY_DATA = [f"np_{name}" for name in NP_SCALARS] + [
    "py_int64_max_plus_1", "py_nan", "list_int_complex", "list_ragged_short_second", "list_0d_tensors",
    "list_0d_float64_float32", "list_multi_element_tensors", "list_np_arrays", "bytes", "bytearray",
    "memoryview_bytes", "memoryview_floats", "array_array_int", "fraction", "set", "iterator"]
AS_TENSOR_DATA = ("np_float16", "np_uint64", "np_longdouble", "py_int64_max_plus_1", "list_int_complex",
                  "list_0d_tensors", "list_multi_element_tensors", "bytes", "memoryview_floats", "set",
                  "list_0d_requires_grad", "np_str_")


def build(ctor, data, **kw):
    return lambda L, d: getattr(L, ctor)(DATA[data](L, d), device=d, **kw)


def result_state(t):
    return t.dtype, t.requires_grad, t.is_leaf, t


def shares(L, d, src, **kw):
    """Whether asarray(src) aliases src (written through) and its dtype."""
    out = L.asarray(src, **kw)
    before = out.clone()
    if isinstance(src, np.ndarray):
        src[...] = 7
    else:
        src.fill_(7)
    return bool((out != before).any()), out.dtype


def grad_flow(L, d, **kw):
    src = L.tensor([1.0, 2.0], device=d, requires_grad=True)
    out = L.asarray(src, **kw)
    return out.requires_grad, out.is_leaf, out is src


BAD_DTYPE_DATA = {
    "uint8_256": ([256], "uint8"), "uint8_negative": ([-1], "uint8"), "int8_minus_129": ([-129], "int8"),
    "int32_2_40": ([2**40], "int32"), "int64_float": ([1.7, -1.7], "int64"), "int32_nan": ([math.nan], "int32"),
    "int64_inf": ([math.inf], "int64"), "float32_complex": ([1j], "float32"), "int64_complex": ([1 + 0j], "int64"),
    "uint64_2_63": ([2**63], "uint64"), "uint64_2_64": ([2**64], "uint64"), "complex64_bool": ([True], "complex64"),
    "bool_half": ([0.5, 0.0], "bool"), "bool_two": ([2, 0], "bool"), "float32_1e39": ([1e39], "float32"),
    "float16_70000": ([70000], "float16"), "bfloat16_1e39": ([1e39], "bfloat16"), "int16_2_63": ([2**63], "int16"),
    "uint16_negative": ([-1], "uint16"), "int8_bool": ([True, False], "int8"),
}

CASES = {
    **{f"tensor/{name}": build("tensor", name) for name in DATA},
    **{f"asarray/{name}": build("asarray", name) for name in ASARRAY_DATA},
    **{f"as_tensor/{name}": build("as_tensor", name) for name in AS_TENSOR_DATA},
    **{f"dtype/{name}": (lambda L, d, v=v, dt=dt: L.tensor(v, dtype=getattr(L, dt), device=d))
       for name, (v, dt) in BAD_DTYPE_DATA.items()},
    # ---- dtype= spelled oddly
    "dtype/str": lambda L, d: L.tensor([1], dtype="float32", device=d),
    "dtype/python_float": lambda L, d: L.tensor([1], dtype=float, device=d),
    "dtype/numpy_dtype": lambda L, d: L.tensor([1], dtype=np.float32, device=d),
    "dtype/int": lambda L, d: L.tensor([1], dtype=6, device=d),
    "dtype/np_array_other_dtype": lambda L, d: L.tensor(np.array([1.7, -2.5]), dtype=L.int16, device=d),
    "dtype/tensor_other_dtype": lambda L, d: L.tensor(T(L, [1.7, 300.0], d), dtype=L.uint8, device=d),
    "dtype/as_tensor_same_returns_self": lambda L, d: (lambda t: L.as_tensor(t, dtype=L.float32) is t)(
        T(L, [1.0], d)),
    # ---- requires_grad
    "requires_grad/int_list": lambda L, d: L.tensor([1, 2], requires_grad=True, device=d),
    "requires_grad/bool_list": lambda L, d: L.tensor([True], requires_grad=True, device=d),
    "requires_grad/int_dtype_float_data": lambda L, d: L.tensor([1.5], dtype=L.int64, requires_grad=True, device=d),
    "requires_grad/complex": lambda L, d: result_state(L.tensor([1j], requires_grad=True, device=d)),
    "requires_grad/float_int_data": lambda L, d: result_state(L.tensor([1, 2], dtype=L.float64, requires_grad=True,
                                                                      device=d)),
    "requires_grad/one": lambda L, d: L.tensor([1.0], requires_grad=1, device=d),
    "requires_grad/none": lambda L, d: L.tensor([1.0], requires_grad=None, device=d),
    "requires_grad/str": lambda L, d: L.tensor([1.0], requires_grad="yes", device=d),
    "requires_grad/false_int": lambda L, d: result_state(L.tensor([1], requires_grad=False, device=d)),
    "requires_grad/asarray_int": lambda L, d: L.asarray([1, 2], requires_grad=True, device=d),
    "requires_grad/asarray_float": lambda L, d: result_state(L.asarray([1.0, 2.0], requires_grad=True, device=d)),
    "requires_grad/asarray_tensor_int": lambda L, d: L.asarray(T(L, [1], d), requires_grad=True),
    "requires_grad/as_tensor_kw": lambda L, d: L.as_tensor([1.0], requires_grad=True),
    "requires_grad/tensor_of_grad_tensor": lambda L, d: result_state(L.tensor(L.ones(2, device=d,
                                                                                     requires_grad=True))),
    "requires_grad/np_int_array": lambda L, d: L.tensor(np.array([1, 2]), requires_grad=True, device=d),
    # ---- asarray copy= / aliasing
    "copy/tensor_default_aliases": lambda L, d: shares(L, d, T(L, [1.0, 2.0], d)),
    "copy/tensor_copy_true": lambda L, d: shares(L, d, T(L, [1.0, 2.0], d), copy=True),
    "copy/tensor_copy_false": lambda L, d: shares(L, d, T(L, [1.0, 2.0], d), copy=False),
    "copy/tensor_copy_false_dtype": lambda L, d: shares(L, d, T(L, [1.0, 2.0], d), copy=False, dtype=L.float64),
    "copy/tensor_copy_none_dtype": lambda L, d: shares(L, d, T(L, [1.0, 2.0], d), dtype=L.float64),
    "copy/tensor_copy_false_same_dtype": lambda L, d: shares(L, d, T(L, [1.0, 2.0], d), copy=False,
                                                             dtype=L.float32),
    "copy/ndarray_default": lambda L, d: shares(L, "cpu", np.array([1.0, 2.0])),
    "copy/ndarray_copy_true": lambda L, d: shares(L, "cpu", np.array([1.0, 2.0]), copy=True),
    "copy/ndarray_copy_false_dtype": lambda L, d: shares(L, "cpu", np.array([1.0, 2.0]), copy=False,
                                                         dtype=L.float32),
    "copy/ndarray_copy_false_device": lambda L, d: L.asarray(np.array([1.0, 2.0]), copy=False, device="cpu").dtype,
    "copy/list_copy_false": lambda L, d: L.asarray([1.0, 2.0], copy=False),
    "copy/scalar_copy_false": lambda L, d: L.asarray(1.5, copy=False),
    "copy/numpy_scalar_copy_false": lambda L, d: L.asarray(np.float64(1.5), copy=False),
    "copy/int": lambda L, d: shares(L, d, T(L, [1.0], d), copy=1),
    "copy/str": lambda L, d: L.asarray(T(L, [1.0], d), copy="no"),
    "copy/grad_default": lambda L, d: grad_flow(L, d),
    "copy/grad_copy_true": lambda L, d: grad_flow(L, d, copy=True),
    "copy/grad_dtype_change": lambda L, d: grad_flow(L, d, dtype=L.float64),
    "copy/ndarray_read_only": lambda L, d: L.asarray(np.frombuffer(b"\x00\x00\x80\x3f", dtype=np.float32)),
    "copy/as_tensor_ndarray_shares": lambda L, d: (lambda a: (L.as_tensor(a).add_(1), a.tolist())[1])(np.zeros(2)),
    # ---- device strings (CPU spellings: the oracle has no CUDA)
    "device/cpu_0": lambda L, d: L.tensor([1], device="cpu:0").device,
    "device/upper_cpu": lambda L, d: L.tensor([1], device="CPU"),
    "device/cpu_1": lambda L, d: L.tensor([1], device="cpu:1"),
    "device/cpu_negative": lambda L, d: L.tensor([1], device="cpu:-1"),
    "device/empty_str": lambda L, d: L.tensor([1], device=""),
    "device/gpu": lambda L, d: L.tensor([1], device="gpu"),
    "device/cuda_letters": lambda L, d: L.tensor([1], device="cuda:x"),
    "device/spaces": lambda L, d: L.tensor([1], device=" cpu"),
    "device/float": lambda L, d: L.tensor([1], device=1.5),
    "device/list": lambda L, d: L.tensor([1], device=["cpu"]),
    "device/asarray_bad": lambda L, d: L.asarray([1], device="cpux"),
    "device/as_tensor_bad": lambda L, d: L.as_tensor([1], device="cpux"),
    # ---- frombuffer
    "frombuffer/negative_offset": lambda L, d: L.frombuffer(bytearray(8), dtype=L.uint8, offset=-1),
    "frombuffer/count_minus_one": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.int16, count=-1),
    "frombuffer/count_minus_two": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.int16, count=-2),
    "frombuffer/count_zero": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.int16, count=0),
    "frombuffer/offset_at_end": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.uint8, offset=8),
    "frombuffer/offset_unaligned_count": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.int16, offset=1,
                                                                   count=3),
    "frombuffer/offset_odd_rest": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.int16, offset=1),
    "frombuffer/bool": lambda L, d: L.frombuffer(bytearray(b"\x00\x01\x02"), dtype=L.bool),
    "frombuffer/complex64": lambda L, d: L.frombuffer(array.array("f", [1.0, 2.0, 3.0, 4.0]), dtype=L.complex64),
    "frombuffer/requires_grad": lambda L, d: result_state(L.frombuffer(array.array("d", [1.0, 2.0]),
                                                                       dtype=L.float64, requires_grad=True)),
    "frombuffer/requires_grad_int": lambda L, d: L.frombuffer(bytearray(4), dtype=L.int32, requires_grad=True),
    "frombuffer/numpy_array": lambda L, d: L.frombuffer(np.arange(3, dtype=np.int32), dtype=L.int32),
    "frombuffer/memoryview_slice": lambda L, d: L.frombuffer(memoryview(bytearray(range(8)))[2:6], dtype=L.uint8),
    "frombuffer/memoryview_strided": lambda L, d: L.frombuffer(memoryview(bytearray(range(8)))[::2], dtype=L.uint8),
    "frombuffer/no_dtype": lambda L, d: L.frombuffer(bytearray(range(4))),
    "frombuffer/dtype_none": lambda L, d: L.frombuffer(bytearray(range(4)), dtype=None),
    "frombuffer/str": lambda L, d: L.frombuffer("abcd", dtype=L.uint8),
    "frombuffer/count_float": lambda L, d: L.frombuffer(bytearray(4), dtype=L.uint8, count=1.0),
    "frombuffer/writes_through": lambda L, d: (lambda b: (L.frombuffer(b, dtype=L.uint8).fill_(9), list(b))[1])(
        bytearray(3)),
    "frombuffer/empty_count_zero": lambda L, d: L.frombuffer(bytearray(), dtype=L.uint8, count=0),
    # ---- from_numpy
    "from_numpy/list": lambda L, d: L.from_numpy([1.0, 2.0]),
    "from_numpy/np_scalar": lambda L, d: L.from_numpy(np.float64(1.0)),
    "from_numpy/python_float": lambda L, d: L.from_numpy(1.0),
    "from_numpy/tensor": lambda L, d: L.from_numpy(T(L, [1.0], "cpu")),
    "from_numpy/uint16": lambda L, d: L.from_numpy(np.array([1, 60000], dtype=np.uint16)),
    "from_numpy/uint64": lambda L, d: L.from_numpy(np.array([1, 2**63], dtype=np.uint64)),
    "from_numpy/longdouble": lambda L, d: L.from_numpy(np.array([1.5], dtype=np.longdouble)),
    "from_numpy/object": lambda L, d: L.from_numpy(np.array([1.5, 2], dtype=object)),
    "from_numpy/unicode": lambda L, d: L.from_numpy(np.array(["a"])),
    "from_numpy/datetime": lambda L, d: L.from_numpy(np.array(["2020-01-01"], dtype="datetime64[D]")),
    "from_numpy/complex64": lambda L, d: L.from_numpy(np.array([1 + 2j], dtype=np.complex64)),
    "from_numpy/bool_0d": lambda L, d: L.from_numpy(np.array(True)),
    "from_numpy/read_only": lambda L, d: L.from_numpy(np.frombuffer(b"\x00\x00\x80\x3f", dtype=np.float32)),
    "from_numpy/empty_2d": lambda L, d: L.from_numpy(np.zeros((0, 3), dtype=np.int8)),
    "from_numpy/kw": lambda L, d: L.from_numpy(ndarray=np.zeros(2)),
    "from_numpy/two_args": lambda L, d: L.from_numpy(np.zeros(2), np.zeros(2)),
    "from_numpy/no_args": lambda L, d: L.from_numpy(),
    # ---- tensor()'s own argument errors
    "tensor/no_args": lambda L, d: L.tensor(),
    "tensor/two_positionals": lambda L, d: L.tensor([1], [2]),
    "tensor/unknown_kw": lambda L, d: L.tensor([1], foo=1),
    "tensor/data_kw": lambda L, d: L.tensor(data=[1.0, 2.0], device=d),
    "tensor/pin_memory_str": lambda L, d: L.tensor([1], pin_memory="x"),
    "tensor/layout_sparse": lambda L, d: L.tensor([1], layout=L.sparse_coo),
    "as_tensor/two_positionals": lambda L, d: L.as_tensor([1], L.float32, "cpu"),
    "as_tensor/no_args": lambda L, d: L.as_tensor(),
    "asarray/no_args": lambda L, d: L.asarray(),
    "asarray/unknown_kw": lambda L, d: L.asarray([1], foo=1),
}

_DEVICE_TYPES = ("tandem knows the cpu, cuda and meta device types (docs/devices.md); PyTorch's parser also takes "
                 "mps, xla, ipu, ... and its message lists them all (device_dtype_parsing.py's KNOWN)")
# A sequence where a number belongs and a 0-d tensor where a row belongs are PyTorch's TypeErrors since session 43
# (python/src/creation.cpp's nest walk: list_scalar_then_list, list_tensor_and_list, list_list_and_0d_tensor).
# A tensor where a row belongs (list_list_and_1d_tensor) is read as that row since session 45.
KNOWN = {
    "device/upper_cpu": _DEVICE_TYPES, "device/gpu": _DEVICE_TYPES, "device/asarray_bad": _DEVICE_TYPES,
    "device/as_tensor_bad": _DEVICE_TYPES,
    "device/cpu_1": "tandem's CPU device has one index: 'cpu:1' is refused (docs/devices.md); PyTorch keeps it",
    "frombuffer/bool": "by design: a bool tensor over bytes other than 0 and 1 is refused (PyTorch shares it, and "
                       "its ops then read 2 as an undefined bool); the hint names the copy that works",
    "frombuffer/offset_unaligned_count": "by design: tandem's kernels assume aligned elements, so an unaligned view "
                                         "is refused, as from_numpy refuses it (docs/reliability.md, round 10)",
}
