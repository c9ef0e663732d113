"""NumPy's odd corners beyond interop.py, conversion.py and creation_odd.py: arrays that are unaligned (bytes
views at odd offsets), read-only, big-endian, broadcast (0 strides), masked, np.matrix, structured, datetime,
object (holding tensors) and longdouble into tensor()/as_tensor()/asarray()/ops; NumPy scalars of every kind
as operands (result dtypes), as size, dim and fill arguments and as index items; 0-d arrays as indices; NumPy
dtype objects where a tensor dtype belongs; and NumPy functions and ufuncs applied to tensors (np.maximum,
np.where, np.stack, np.clip, np.isnan, np.unique, np.sort, np.linalg.norm, ufuncs with dtype=, __array__ with
dtype and copy keywords)."""
import numpy as np

from . import R, T


def A(a):
    """A NumPy result as (dtype name, shape, values): what the harness compares (it reads tensors, not arrays)."""
    if isinstance(a, np.ndarray):
        return a.dtype.name, a.shape, a.tolist()
    if isinstance(a, np.generic):
        return type(a).__name__, a.item()
    return a


def unaligned(dtype="float64", n=3):
    """n elements of dtype starting one byte into a buffer: NumPy marks the array unaligned."""
    item = np.dtype(dtype).itemsize
    raw = np.arange(n * item + 1, dtype=np.uint8).tobytes()
    a = np.frombuffer(raw, dtype=dtype, offset=1)
    return a


def read_only(a):
    a.setflags(write=False)
    return a


def f64(L, d, n=4):
    return R(L, (n,), d)


def H(L, x):
    """A CPU tensor (NumPy reads host memory only)."""
    return x.cpu()


def dtype_of(x):
    return str(x.dtype)


CASES = {
    # ---- unaligned arrays
    "unaligned/tensor": lambda L, d: L.tensor(unaligned("float64"), device=d),
    "unaligned/as_tensor": lambda L, d: L.as_tensor(unaligned("float64"), device=d),
    "unaligned/asarray": lambda L, d: L.asarray(unaligned("float64"), device=d),
    "unaligned/from_numpy": lambda L, d: L.from_numpy(unaligned("float64")),
    "unaligned/int32_tensor": lambda L, d: L.tensor(unaligned("int32", 4), device=d),
    "unaligned/complex_as_tensor": lambda L, d: L.as_tensor(unaligned("complex64", 2), device=d),
    "unaligned/add_operand": lambda L, d: L.ones(3, device=d, dtype=L.float64) + L.as_tensor(unaligned(), device=d),
    # ---- read-only arrays
    "read_only/tensor_copy_writable": lambda L, d: L.tensor(read_only(np.arange(3.0)), device=d).add_(1),
    "read_only/as_tensor": lambda L, d: L.as_tensor(read_only(np.arange(3.0)), device=d),
    "read_only/as_tensor_dtype": lambda L, d: L.as_tensor(read_only(np.arange(3.0)), dtype=L.float32, device=d),
    "read_only/asarray": lambda L, d: L.asarray(read_only(np.arange(3.0)), device=d),
    "read_only/zeros_like": lambda L, d: L.zeros_like(L.as_tensor(read_only(np.arange(3.0)), device=d)),
    "read_only/op_operand": lambda L, d: L.mul(L.as_tensor(read_only(np.arange(3.0)), device=d), 2),
    # ---- byte order, broadcast, negative strides through as_tensor/asarray/tensor
    "big_endian/as_tensor": lambda L, d: L.as_tensor(np.arange(3, dtype=">f8"), device=d),
    "big_endian/asarray": lambda L, d: L.asarray(np.arange(3, dtype=">i4"), device=d),
    "big_endian/tensor_float": lambda L, d: L.tensor(np.arange(3, dtype=">f4"), device=d),
    "big_endian/tensor_int16": lambda L, d: L.tensor(np.array([1, 256, -2], dtype=">i2"), device=d),
    "big_endian/tensor_complex": lambda L, d: L.tensor(np.array([1 + 2j], dtype=">c16"), device=d),
    "broadcast/tensor": lambda L, d: L.tensor(np.broadcast_to(np.arange(3.0), (2, 3)), device=d),
    "broadcast/as_tensor": lambda L, d: L.as_tensor(np.broadcast_to(np.arange(3.0), (2, 3)), device=d),
    "broadcast/asarray": lambda L, d: L.asarray(np.broadcast_to(np.arange(3.0), (2, 3)), device=d),
    "broadcast/scalar_to_0d_strides": lambda L, d: L.as_tensor(np.broadcast_to(np.float32(2.5), (2, 2)), device=d),
    "negative_strides/as_tensor": lambda L, d: L.as_tensor(np.arange(4.0)[::-1], device=d),
    "negative_strides/asarray": lambda L, d: L.asarray(np.arange(4.0)[::-1], device=d),
    "negative_strides/2d_tensor": lambda L, d: L.tensor(np.arange(6.0).reshape(2, 3)[::-1, ::-2], device=d),
    # ---- odd kinds
    "masked/tensor": lambda L, d: L.tensor(np.ma.array([1.0, 2.0], mask=[False, True]), device=d),
    "masked/as_tensor": lambda L, d: L.as_tensor(np.ma.array([1.0, 2.0], mask=[False, True]), device=d),
    "matrix/as_tensor": lambda L, d: L.as_tensor(np.matrix([[1.0, 2.0], [3.0, 4.0]]), device=d),
    "matrix/asarray": lambda L, d: L.asarray(np.matrix([[1.0, 2.0]]), device=d),
    "structured/tensor": lambda L, d: L.tensor(np.zeros(2, dtype=[("a", "i4"), ("b", "f4")]), device=d),
    "structured/as_tensor": lambda L, d: L.as_tensor(np.zeros(2, dtype=[("a", "i4"), ("b", "f4")]), device=d),
    "datetime/as_tensor": lambda L, d: L.as_tensor(np.array(["2020-01-01"], dtype="datetime64[D]"), device=d),
    "timedelta/tensor": lambda L, d: L.tensor(np.array([1, 2], dtype="timedelta64[s]"), device=d),
    "longdouble/as_tensor": lambda L, d: L.as_tensor(np.zeros(2, dtype=np.longdouble), device=d),
    "longdouble/scalar_tensor": lambda L, d: L.tensor(np.longdouble(1.5), device=d),
    "clongdouble/tensor": lambda L, d: L.tensor(np.zeros(2, dtype=np.clongdouble), device=d),
    "str_array/as_tensor": lambda L, d: L.as_tensor(np.array(["1.5"]), device=d),
    "bytes_array/tensor": lambda L, d: L.tensor(np.array([b"a"]), device=d),
    "void/tensor": lambda L, d: L.tensor(np.zeros(2, dtype="V4"), device=d),
    "object/tensors_inside": lambda L, d: L.tensor(np.array([T(L, 1.0), T(L, 2.0)], dtype=object), device=d),
    "object/none_inside": lambda L, d: L.tensor(np.array([1.0, None], dtype=object), device=d),
    "object/as_tensor_ints": lambda L, d: L.as_tensor(np.array([1, 2], dtype=object), device=d),
    "object/empty": lambda L, d: L.tensor(np.array([], dtype=object), device=d),
    "float16/as_tensor_dtype_float64": lambda L, d: L.as_tensor(np.array([1.5], dtype=np.float16), dtype=L.float64,
                                                                 device=d),
    "int8/as_tensor_to_uint8": lambda L, d: L.as_tensor(np.array([-1, 3], dtype=np.int8), dtype=L.uint8, device=d),
    "uint32/as_tensor": lambda L, d: L.as_tensor(np.array([2**32 - 1], dtype=np.uint32), device=d),
    "uint64/as_tensor": lambda L, d: L.as_tensor(np.array([5], dtype=np.uint64), device=d),
    "uint16/ops": lambda L, d: L.as_tensor(np.array([65535], dtype=np.uint16), device=d).to(L.int32) + 1,
    "0d/as_tensor": lambda L, d: L.as_tensor(np.array(7, dtype=np.int16), device=d),
    "0d/asarray_dtype": lambda L, d: L.asarray(np.array(7.5), dtype=L.int32, device=d),
    "empty_3d/tensor": lambda L, d: L.tensor(np.zeros((2, 0, 3), dtype=np.float32), device=d).shape,
    # ---- NumPy scalars as operands (result dtypes follow PyTorch's scalar rules)
    "scalar/float16_plus_float16": lambda L, d: dtype_of(L.ones(2, device=d, dtype=L.float16) + np.float16(1)),
    "scalar/float64_plus_float32": lambda L, d: L.ones(2, device=d) + np.float64(1e-3),
    "scalar/int8_plus_int8": lambda L, d: L.ones(2, device=d, dtype=L.int8) + np.int8(3),
    "scalar/uint8_plus_int16_tensor": lambda L, d: L.ones(2, device=d, dtype=L.int16) + np.uint8(250),
    "scalar/uint64_big_plus": lambda L, d: L.ones(2, device=d, dtype=L.int64) + np.uint64(2**63),
    "scalar/int64_times_bool": lambda L, d: L.tensor([True, False], device=d) * np.int64(3),
    "scalar/complex128_times_float32": lambda L, d: L.ones(2, device=d) * np.complex128(1 + 1j),
    "scalar/longdouble_plus": lambda L, d: L.ones(2, device=d) + np.longdouble(0.5),
    "scalar/bool_plus_float": lambda L, d: L.ones(2, device=d) + np.bool_(True),
    "scalar/float32_minus_int_tensor": lambda L, d: L.arange(3, device=d) - np.float32(0.5),
    "scalar/rsub": lambda L, d: np.int32(5) - L.arange(3, device=d),
    "scalar/rtruediv": lambda L, d: np.float64(1.0) / L.arange(1, 4, device=d),
    "scalar/rpow": lambda L, d: np.int64(2) ** L.arange(3, device=d),
    "scalar/pow_exponent": lambda L, d: L.arange(3., device=d) ** np.int64(2),
    "scalar/floordiv_zero": lambda L, d: L.arange(3, device=d) // np.int64(0),
    "scalar/datetime64_plus": lambda L, d: L.ones(2, device=d) + np.datetime64("2020-01-01"),
    "scalar/str_plus": lambda L, d: L.ones(2, device=d) + np.str_("1"),
    "scalar/eq": lambda L, d: L.arange(3, device=d) == np.int64(1),
    "scalar/inplace_add_float_into_int": lambda L, d: L.arange(3, device=d).add_(np.float64(0.5)),
    "scalar/inplace_mul_int_into_float": lambda L, d: L.ones(3, device=d).mul_(np.int16(4)),
    "scalar/0d_array_operand_dtype": lambda L, d: dtype_of(L.ones(2, device=d) * np.array(2.0, dtype=np.float64)),
    # ---- NumPy scalars as arguments
    "arg/clamp_min": lambda L, d: L.clamp(f64(L, d), min=np.float32(0)),
    "arg/clamp_both_numpy": lambda L, d: f64(L, d).clamp(np.int64(-1), np.float64(1.5)),
    "arg/pow_function": lambda L, d: L.pow(f64(L, d), np.int64(3)),
    "arg/full_like": lambda L, d: L.full_like(f64(L, d), np.float64(2.5)),
    "arg/fill_": lambda L, d: L.zeros(3, device=d, dtype=L.int32).fill_(np.int64(7)),
    "arg/fill_bool": lambda L, d: L.zeros(3, device=d).fill_(np.bool_(True)),
    "arg/where_scalar": lambda L, d: (lambda x: L.where(x > 0, x, np.float64(0)))(f64(L, d)),
    "arg/masked_fill": lambda L, d: (lambda x: x.masked_fill(x > 0, np.float32(1)))(f64(L, d)),
    "arg/new_full_bool": lambda L, d: f64(L, d).new_full((2,), np.bool_(True)),
    "arg/zeros_size": lambda L, d: L.zeros(np.int64(3), device=d),
    "arg/zeros_uint8_size": lambda L, d: L.zeros(np.uint8(3), device=d).shape,
    "arg/zeros_float_size": lambda L, d: L.zeros(np.float64(3), device=d),
    "arg/view_size": lambda L, d: L.arange(6, device=d).view(np.int64(2), np.int32(3)),
    "arg/sum_dim": lambda L, d: R(L, (2, 3), d).sum(dim=np.int64(1)),
    "arg/sum_dim_tuple": lambda L, d: R(L, (2, 3), d).sum(dim=(np.int64(0), np.int64(1))),
    "arg/topk_k": lambda L, d: f64(L, d).topk(np.int64(2)).values,
    "arg/unsqueeze_dim": lambda L, d: f64(L, d).unsqueeze(np.int32(0)).shape,
    "arg/expand": lambda L, d: T(L, [1.0], d).expand(np.int64(3)),
    "arg/cat_dim": lambda L, d: L.cat([f64(L, d), f64(L, d)], dim=np.int64(0)),
    "arg/repeat": lambda L, d: f64(L, d, 2).repeat(np.int64(2)),
    "arg/narrow": lambda L, d: f64(L, d).narrow(np.int64(0), np.int64(1), np.int64(2)),
    "arg/softmax_dim": lambda L, d: L.softmax(R(L, (2, 3), d), dim=np.int64(-1)),
    "arg/round_decimals": lambda L, d: L.round(f64(L, d), decimals=np.int64(1)),
    "arg/randn_size": lambda L, d: L.randn(np.int32(2), np.int64(3), device=d).shape,
    "arg/linspace_bool_steps": lambda L, d: L.linspace(0, 1, np.bool_(True), device=d),
    "arg/manual_seed": lambda L, d: (L.manual_seed(np.int64(3)), L.rand(2, device=d).shape)[1],
    "arg/float16_dtype_object": lambda L, d: L.zeros(2, dtype=np.float16, device=d),
    "arg/numpy_dtype_instance": lambda L, d: L.zeros(2, dtype=np.dtype("float32"), device=d),
    "arg/to_numpy_dtype": lambda L, d: L.zeros(2, device=d).to(np.float64),
    "arg/item_compare": lambda L, d: T(L, 2.0, d).item() == np.float32(2.0),
    # ---- NumPy scalars and 0-d arrays as index items
    "index/int8_scalar": lambda L, d: L.arange(5, device=d)[np.int8(2)],
    "index/uint8_scalar": lambda L, d: L.arange(5, device=d)[np.uint8(2)],
    "index/uint64_scalar": lambda L, d: L.arange(5, device=d)[np.uint64(4)],
    "index/bool_scalar": lambda L, d: L.arange(5, device=d)[np.bool_(True)],
    "index/bool_scalar_false": lambda L, d: L.arange(5, device=d)[np.bool_(False)],
    "index/float_scalar": lambda L, d: L.arange(5, device=d)[np.float64(1)],
    "index/slice_of_numpy": lambda L, d: L.arange(5, device=d)[np.int64(1):np.int32(4):np.int16(2)],
    "index/0d_int_array": lambda L, d: L.arange(5, device=d)[np.array(3)],
    "index/0d_bool_array": lambda L, d: L.arange(5, device=d)[np.array(True)],
    "index/1elem_array": lambda L, d: L.arange(5, device=d)[np.array([3])],
    "index/uint8_array_mask_like": lambda L, d: L.arange(3, device=d)[np.array([1, 0, 1], dtype=np.uint8)],
    "index/int_array_oob": lambda L, d: L.arange(3, device=d)[np.array([5])],
    "index/float_array": lambda L, d: L.arange(3, device=d)[np.array([1.0])],
    "index/newaxis": lambda L, d: L.arange(3, device=d)[np.newaxis, :, np.newaxis].shape,
    "index/tuple_numpy_ints": lambda L, d: R(L, (2, 3), d)[np.int64(1), np.int32(2)],
    "index/2d_numpy_rows": lambda L, d: R(L, (3, 2), d)[np.array([[0, 2], [1, 1]])],
    "index/mixed_numpy_and_tensor": lambda L, d: R(L, (3, 3), d)[np.array([0, 2]), T(L, [1, 0], d)],
    "setitem/numpy_scalar_index": lambda L, d: (lambda x: (x.__setitem__(np.int64(1), np.float32(9)), x)[1])(
        L.zeros(3, device=d)),
    "setitem/numpy_array_index_values": lambda L, d: (lambda x: (x.__setitem__(np.array([0, 2]), np.array([5.0, 6.0])),
                                                                 x)[1])(L.zeros(3, device=d)),
    "setitem/numpy_bool_mask": lambda L, d: (lambda x: (x.__setitem__(np.array([True, False, True]), 1.0), x)[1])(
        L.zeros(3, device=d)),
    # ---- NumPy functions and ufuncs on tensors (host tensors: NumPy reads host memory)
    "np/maximum": lambda L, d: A(np.maximum(H(L, f64(L, d)), H(L, f64(L, d)) * 0)),
    "np/where": lambda L, d: A(np.where(H(L, f64(L, d)) > 0, H(L, f64(L, d)), 0)),
    "np/stack": lambda L, d: A(np.stack([H(L, f64(L, d)), H(L, f64(L, d))])),
    "np/clip": lambda L, d: A(np.clip(np.asarray(H(L, f64(L, d))), -1, 1)),
    "np/isnan": lambda L, d: A(np.isnan(H(L, T(L, [1.0, float("nan")], d)))),
    "np/unique": lambda L, d: A(np.unique(H(L, T(L, [3, 1, 3, 2], d)))),
    "np/sort": lambda L, d: A(np.sort(H(L, f64(L, d)))),
    "np/argmax": lambda L, d: A(np.argmax(H(L, f64(L, d)))),
    "np/linalg_norm": lambda L, d: float(np.linalg.norm(H(L, f64(L, d)))),
    "np/add_dtype": lambda L, d: A(np.asarray(np.add(H(L, f64(L, d)), 1, dtype=np.float32))),
    "np/abs_bool": lambda L, d: A(np.asarray(np.abs(H(L, T(L, [True, False], d))))),
    "np/cumsum": lambda L, d: A(np.cumsum(np.asarray(H(L, T(L, [1, 2, 3], d))))),
    "np/array_copy_true_independent": lambda L, d: (lambda t: (np.array(t, copy=True).__setitem__(0, 9), t)[1])(
        L.zeros(2, dtype=L.float64)),
    "np/asarray_object": lambda L, d: A(np.asarray(T(L, [1.5, 2.5]), dtype=object)),
    "np/asarray_str": lambda L, d: A(np.asarray(T(L, [1, 2]), dtype=str)),
    "np/asarray_float16": lambda L, d: A(np.asarray(T(L, [1.5, 2.5]), dtype=np.float16)),
    "np/asarray_complex": lambda L, d: A(np.asarray(T(L, [1.5]), dtype=np.complex64)),
    "np/array_int_to_bool": lambda L, d: A(np.array(T(L, [0, 2]), dtype=bool)),
    "np/float_of_1elem": lambda L, d: float(np.float64(T(L, [2.5]))),
    "np/asarray_list_of_0d": lambda L, d: A(np.asarray([T(L, 1.5), T(L, 2.5)])),
    "dunder_array/dtype_positional": lambda L, d: A(T(L, [1, 2]).__array__(np.float32)),
    "dunder_array/dtype_kw_copy_true": lambda L, d: A(T(L, [1.5]).__array__(dtype=np.int64, copy=True)),
    "dunder_array/copy_none": lambda L, d: A(T(L, [1.5]).__array__(copy=None)),
    "dunder_array/bfloat16_dtype_float32": lambda L, d: A(T(L, [1.5], "cpu", "bfloat16").__array__(np.float32)),
    "numpy_method/int_tensor_dtype": lambda L, d: A(T(L, [1, 2], "cpu", "int16").numpy()),
    "numpy_method/uint16": lambda L, d: A(T(L, [1, 2], "cpu", "uint16").numpy()),
}

_CPP = "needs C++: "
_COPIES = ("tensor() copies, and as_tensor copies what it cannot share, so tandem converts another byte order and "
           "reads negative strides (conversion.py's and creation_odd.py's KNOWN); PyTorch refuses")
_COPY_KW = "tandem's __array__ takes NumPy 2's copy= (interop.py's KNOWN); PyTorch's has no such parameter"
_CUDA_NDARRAY = (_CPP + "a NumPy operand of a GPU tensor's binary op goes to NumPy (the binding returns "
                 "NotImplemented for an ndarray), which refuses the device memory; PyTorch's CUDA tensor takes a 0-d "
                 "array as a scalar (the oracle runs on the CPU)")
_DTYPE_WORDS = _CPP + "the binding's dtype/device parser words a NumPy type in its own way (TypeError both)"
KNOWN = {
    "big_endian/as_tensor": _COPIES, "big_endian/tensor_complex": _COPIES, "big_endian/tensor_float": _COPIES,
    "big_endian/tensor_int16": _COPIES, "negative_strides/2d_tensor": _COPIES, "negative_strides/as_tensor": _COPIES,
    "dunder_array/copy_none": _COPY_KW, "dunder_array/dtype_kw_copy_true": _COPY_KW,
    "scalar/0d_array_operand_dtype": _CUDA_NDARRAY, "scalar/datetime64_plus": _CUDA_NDARRAY,
    "scalar/uint64_big_plus": _CPP + "an np.uint64 past int64 is refused with an overflow error by the operators' "
                              "scalar reader; PyTorch's operator returns NotImplemented and NumPy computes a float64 "
                              "array",
    "setitem/numpy_scalar_index": "tandem assigns NumPy float, bool and complex scalars into a tensor; PyTorch refuses "
                                  "those that are not Python number subclasses (TypeError 'can't assign a "
                                  "numpy.float32 to a torch.FloatTensor'); accepted, as NumPy code relies on it",
    "unaligned/from_numpy": "tandem shares only aligned NumPy memory (its kernels load whole elements); PyTorch shares "
                            "an unaligned array. tensor(), as_tensor() and asarray() copy it",
    "arg/float16_dtype_object": _DTYPE_WORDS, "arg/numpy_dtype_instance": _DTYPE_WORDS,
    "arg/zeros_float_size": _DTYPE_WORDS,
    "arg/linspace_bool_steps": _DTYPE_WORDS,
}
