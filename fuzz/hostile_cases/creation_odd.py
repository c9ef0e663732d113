"""Tensor creation and conversion from odd Python and NumPy input beyond conversion.py and factories.py: NumPy
arrays with zero strides (broadcast_to), non-native byte order and negative strides through from_numpy/as_tensor/
asarray, NumPy scalars and 0-d arrays as operands (they promote like Python numbers), NumPy bool/int8/float16/
complex arrays as the other operand of an op, nested tuples of 0-d and 1-d tensors (with requires_grad, on
devices), asarray's copy/dtype/device arguments, frombuffer of bytearray/array.array, new_tensor/new_full/
full_like with values their dtype cannot hold, full/arange/linspace with NumPy scalars and bools, and NaN or
huge values into integer factories."""
import array
import math

import numpy as np

from . import T


def grad_of_stacked(L, d):
    a = L.tensor(1.5, device=d, requires_grad=True)
    b = L.tensor(2.5, device=d, requires_grad=True)
    return L.stack([a, b]).requires_grad, L.tensor([1.0], device=d).requires_grad


CASES = {
    # ---- NumPy arrays with unusual layouts
    "from_numpy/zero_strides": lambda L, d: L.from_numpy(np.broadcast_to(np.arange(3.0), (2, 3))).stride(),
    "tensor/zero_strides": lambda L, d: L.tensor(np.broadcast_to(np.arange(3.0), (2, 3)), device=d),
    "as_tensor/zero_strides": lambda L, d: L.as_tensor(np.broadcast_to(np.arange(3.0), (2, 3)), device=d),
    "as_tensor/negative_strides": lambda L, d: L.as_tensor(np.arange(4.0)[::-1], device=d),
    "as_tensor/big_endian": lambda L, d: L.as_tensor(np.arange(3, dtype=">f8"), device=d),
    "asarray/negative_strides": lambda L, d: L.asarray(np.arange(4.0)[::-1], device=d),
    "asarray/big_endian": lambda L, d: L.asarray(np.arange(3, dtype=">i4"), device=d),
    "from_numpy/fortran_order": lambda L, d: L.from_numpy(np.asfortranarray(np.arange(6.0).reshape(2, 3))).stride(),
    "from_numpy/fortran_values": lambda L, d: L.from_numpy(np.asfortranarray(np.arange(6.0).reshape(2, 3))) * 2,
    "from_numpy/step_3_2d": lambda L, d: L.from_numpy(np.arange(24.0).reshape(4, 6)[::2, ::3]).contiguous(),
    "from_numpy/empty_with_strides": lambda L, d: L.from_numpy(np.zeros((0, 3))[:, ::2]).shape,
    "from_numpy/0d_int8": lambda L, d: L.from_numpy(np.array(-3, dtype=np.int8)),
    "from_numpy/int16": lambda L, d: L.from_numpy(np.array([-3, 300], dtype=np.int16)),
    "from_numpy/uint32": lambda L, d: L.from_numpy(np.array([1, 2**32 - 1], dtype=np.uint32)),
    "from_numpy/float16_values": lambda L, d: L.from_numpy(np.array([0.1, 65504.0, -0.0], dtype=np.float16)) * 1,
    "from_numpy/shares_memory": lambda L, d: (lambda a: (L.from_numpy(a).add_(1), a.tolist())[1])(np.zeros(3)),
    "from_numpy/masked_array": lambda L, d: L.from_numpy(np.ma.array([1.0, 2.0], mask=[False, True])),
    "from_numpy/matrix": lambda L, d: L.from_numpy(np.matrix([[1.0, 2.0]])),
    "tensor/numpy_matrix": lambda L, d: L.tensor(np.matrix([[1.0, 2.0]]), device=d),
    "tensor/numpy_bool_array": lambda L, d: L.tensor(np.array([True, False]), device=d),
    "tensor/numpy_float16_to_int": lambda L, d: L.tensor(np.array([1.7, -2.7], dtype=np.float16),
                                                         dtype=L.int64, device=d),
    "tensor/numpy_nan_to_int": lambda L, d: L.tensor(np.array([np.nan]), dtype=L.int32, device=d),
    "tensor/numpy_object_of_floats": lambda L, d: L.tensor(np.array([1.5, 2.5], dtype=object), device=d),
    "tensor/numpy_0d_object": lambda L, d: L.tensor(np.array(1.5, dtype=object), device=d),
    "tensor/list_of_numpy_0d": lambda L, d: L.tensor([np.array(1.5), np.array(2.5)], device=d),
    "tensor/list_of_numpy_bool_scalars": lambda L, d: L.tensor([np.bool_(True), np.bool_(False)], device=d),
    "tensor/numpy_uint64_array_big": lambda L, d: L.tensor(np.array([2**63], dtype=np.uint64), device=d),
    "tensor/numpy_unicode_scalar": lambda L, d: L.tensor(np.str_("1"), device=d),
    # ---- NumPy scalars and arrays as operands
    "add/numpy_float64_scalar": lambda L, d: L.ones(2, device=d) + np.float64(1.5),
    "add/numpy_int64_scalar_into_int32": lambda L, d: L.ones(2, device=d, dtype=L.int32) + np.int64(7),
    "add/numpy_bool_scalar": lambda L, d: L.ones(2, device=d, dtype=L.uint8) + np.bool_(True),
    "mul/numpy_complex_scalar": lambda L, d: L.ones(2, device=d) * np.complex64(1j),
    "radd/numpy_scalar_left": lambda L, d: np.float32(2.0) + L.ones(2, device=d),
    "add/numpy_0d_array": lambda L, d: L.add(L.ones(2, device=d), np.array(2.5)),
    "add/numpy_array_operand": lambda L, d: L.add(L.ones(2, device=d), np.array([1.0, 2.0])),
    "full/numpy_scalar_fill": lambda L, d: L.full((2,), np.float32(1.5), device=d),
    "full/numpy_int_fill": lambda L, d: L.full((2,), np.int64(3), device=d),
    "full/numpy_size": lambda L, d: L.full((np.int64(2), np.int32(3)), 1.0, device=d),
    "zeros/numpy_array_size": lambda L, d: L.zeros(np.array([2, 3]), device=d),
    "arange/numpy_scalars": lambda L, d: L.arange(np.int64(1), np.int64(7), np.int64(2), device=d),
    "arange/numpy_float_end": lambda L, d: L.arange(np.float32(2.5), device=d),
    "linspace/numpy_steps": lambda L, d: L.linspace(0, 1, np.int64(5), device=d),
    "reshape/numpy_ints": lambda L, d: L.arange(6, device=d).reshape(np.int64(2), np.int64(3)),
    "getitem/numpy_int_index": lambda L, d: L.arange(6, device=d)[np.int64(4)],
    "getitem/numpy_bool_mask": lambda L, d: L.arange(3, device=d)[np.array([True, False, True])],
    "getitem/numpy_int_array": lambda L, d: L.arange(6, device=d)[np.array([5, 0, 2])],
    "setitem/numpy_array_value": lambda L, d: (lambda x: (x.__setitem__(slice(0, 2), np.array([7.0, 8.0])), x)[1])(
        L.zeros(3, device=d)),
    # ---- nested tuples and lists of tensors
    "tensor/tuple_of_0dim_tensors": lambda L, d: L.tensor((T(L, 1.0, d), T(L, 2.0, d)), device=d),
    "tensor/nested_tuple_of_tensors": lambda L, d: L.tensor(((T(L, 1.0, d), T(L, 2.0, d)), (T(L, 3.0, d),
                                                                                           T(L, 4.0, d))), device=d),
    "tensor/list_of_1d_tensors_2d": lambda L, d: L.tensor([T(L, [1, 2], d), T(L, [3, 4], d)], device=d),
    "tensor/list_of_int_and_float_tensors": lambda L, d: L.tensor([T(L, [1, 2], d), T(L, [3.5, 4.0], d)], device=d),
    "tensor/list_of_bool_tensors": lambda L, d: L.tensor([T(L, True, d), T(L, False, d)], device=d),
    "tensor/list_of_tensors_requires_grad": lambda L, d: L.tensor([T(L, 1.0, d).requires_grad_(), T(L, 2.0, d)],
                                                                  device=d).requires_grad,
    "tensor/list_of_empty_tensors": lambda L, d: L.tensor([L.ones(0, device=d), L.ones(0, device=d)], device=d),
    "tensor/list_tensor_then_number_ragged": lambda L, d: L.tensor([T(L, [1.0, 2.0], d), 3.0], device=d),
    "tensor/list_numpy_and_tensor": lambda L, d: L.tensor([np.array([1.0, 2.0]), T(L, [3.0, 4.0], d)], device=d),
    "tensor/tuple_with_dtype": lambda L, d: L.tensor((T(L, 1.5, d), 2), dtype=L.int64, device=d),
    "stack/requires_grad_propagates": lambda L, d: grad_of_stacked(L, d),
    # ---- asarray's arguments
    "asarray/list_dtype": lambda L, d: L.asarray([1, 2], dtype=L.float32, device=d),
    "asarray/tensor_no_copy_shares": lambda L, d: (lambda x: L.asarray(x) is x)(L.ones(2, device=d)),
    "asarray/tensor_copy_true": lambda L, d: (lambda x: L.asarray(x, copy=True).data_ptr() == x.data_ptr())(
        L.ones(2, device=d)),
    "asarray/copy_false_needs_copy": lambda L, d: L.asarray(L.ones(2, device=d), dtype=L.int64, copy=False),
    "asarray/copy_false_list": lambda L, d: L.asarray([1, 2], copy=False),
    "asarray/numpy_copy_false_shares": lambda L, d: (lambda a: (L.asarray(a, copy=False).add_(1), a.tolist())[1])(
        np.zeros(2)),
    "asarray/scalar": lambda L, d: L.asarray(3.5, device=d),
    "asarray/requires_grad": lambda L, d: L.asarray([1.0, 2.0], device=d, requires_grad=True).requires_grad,
    "asarray/nested_tensors": lambda L, d: L.asarray([T(L, 1.0, d), T(L, 2.0, d)], device=d),
    "asarray/ragged": lambda L, d: L.asarray([[1, 2], [3]], device=d),
    "asarray/bytes": lambda L, d: L.asarray(b"ab"),
    # ---- frombuffer
    "frombuffer/bytearray": lambda L, d: L.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=L.uint8),
    "frombuffer/bytearray_int16": lambda L, d: L.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=L.int16),
    "frombuffer/odd_length": lambda L, d: L.frombuffer(bytearray(b"\x01\x02\x03"), dtype=L.int16),
    "frombuffer/offset": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.uint8, offset=3, count=2),
    "frombuffer/offset_past_end": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.uint8, offset=9),
    "frombuffer/count_too_big": lambda L, d: L.frombuffer(bytearray(range(8)), dtype=L.uint8, count=9),
    "frombuffer/empty": lambda L, d: L.frombuffer(bytearray(), dtype=L.uint8),
    "frombuffer/array_array": lambda L, d: L.frombuffer(array.array("f", [1.5, 2.5]), dtype=L.float32),
    "frombuffer/bytes_read_only": lambda L, d: L.frombuffer(b"\x01\x02", dtype=L.uint8),
    "frombuffer/list": lambda L, d: L.frombuffer([1, 2], dtype=L.uint8),
    # ---- new_* and *_like with values their dtype cannot hold
    "new_tensor/list": lambda L, d: L.ones(2, device=d, dtype=L.int32).new_tensor([1.5, 2.5]),
    "new_tensor/keeps_dtype_for_list": lambda L, d: L.ones(2, device=d, dtype=L.float16).new_tensor([1, 2]),
    "new_full/nan_int": lambda L, d: L.ones(2, device=d, dtype=L.int64).new_full((2,), math.nan),
    "new_full/float_into_int": lambda L, d: L.ones(2, device=d, dtype=L.int64).new_full((2,), 2.7),
    "new_full/complex_into_float": lambda L, d: L.ones(2, device=d).new_full((2,), 1j),
    "new_full/big_int_into_uint8": lambda L, d: L.ones(2, device=d, dtype=L.uint8).new_full((2,), 300),
    "full_like/nan_int": lambda L, d: L.full_like(L.ones(2, device=d, dtype=L.int32), math.nan),
    "full_like/inf_into_int8": lambda L, d: L.full_like(L.ones(2, device=d, dtype=L.int8), math.inf),
    "full_like/negative_into_uint8": lambda L, d: L.full_like(L.ones(2, device=d, dtype=L.uint8), -1),
    "full/nan_int_dtype": lambda L, d: L.full((2,), math.nan, dtype=L.int64, device=d),
    "full/bool_fill_inferred": lambda L, d: L.full((2,), True, device=d),
    "full/complex_fill_inferred": lambda L, d: L.full((2,), 1 + 2j, device=d),
    "full/int_fill_inferred": lambda L, d: L.full((2,), 7, device=d),
    "full/huge_int_fill": lambda L, d: L.full((2,), 2**63, device=d),
    "full/huge_float_into_float16": lambda L, d: L.full((2,), 1e6, dtype=L.float16, device=d),
    "fill_/nan_into_int": lambda L, d: L.zeros(2, device=d, dtype=L.int64).fill_(math.nan),
    "fill_/big_into_int8": lambda L, d: L.zeros(2, device=d, dtype=L.int8).fill_(1000),
    "fill_/complex_into_float": lambda L, d: L.zeros(2, device=d).fill_(1j),
    "fill_/tensor_1elem_value": lambda L, d: L.zeros(2, device=d).fill_(T(L, [3.0], d)),
    "fill_/tensor_2elem_value": lambda L, d: L.zeros(2, device=d).fill_(T(L, [3.0, 4.0], d)),
    "zeros_like/dtype_change": lambda L, d: L.zeros_like(L.ones(2, device=d), dtype=L.int8),
    "ones_like/numpy_input": lambda L, d: L.ones_like(np.ones(2)),
    "arange/int_dtype_float_step": lambda L, d: L.arange(0, 1, 0.25, dtype=L.int64, device=d),
    "arange/bool_args": lambda L, d: L.arange(True, device=d),
    "arange/float16_dtype": lambda L, d: L.arange(0, 2, 0.5, dtype=L.float16, device=d),
    "linspace/int_dtype": lambda L, d: L.linspace(0, 10, 4, dtype=L.int64, device=d),
    "linspace/int_dtype_negative": lambda L, d: L.linspace(-3.5, 3.5, 5, dtype=L.int32, device=d),
    "tensor/int8_from_floats_truncate": lambda L, d: L.tensor([1.9, -1.9, 127.9], dtype=L.int8, device=d),
    "tensor/bool_from_nan_list": lambda L, d: L.tensor([math.nan, 0.0, -0.0], dtype=L.bool, device=d),
    "tensor/huge_list_of_int8_values": lambda L, d: L.tensor([127, -128, 0] * 100, dtype=L.int8, device=d).sum(),
}

_CPP = "needs C++ fix: "
_NUMPY_SCALAR = ("PyTorch reads a NumPy complex scalar through float() (it loses its imaginary part with a "
                 "ComplexWarning); tandem keeps its kind")
_SHARES = ("as_tensor of an array it cannot share (another byte order, negative strides) copies in tandem, as "
           "tensor() does (conversion.py's KNOWN); PyTorch refuses")
KNOWN = {
    "mul/numpy_complex_scalar": _NUMPY_SCALAR,
    "as_tensor/big_endian": _SHARES, "as_tensor/negative_strides": _SHARES,
    "tensor/list_numpy_and_tensor": "a GPU tensor in a nest with NumPy arrays is assembled through NumPy, which "
                                    "tandem's transfer guard refuses (an implicit device-to-host copy)",
    "tensor/numpy_unicode_scalar": _CPP + "the data reader names a NumPy str_ as 'str'",
    "ones_like/numpy_input": _CPP + "nanobind names the argument's type without its module (ndarray)",
    "zeros/numpy_array_size": _CPP + "the size parser reports NumPy's own conversion error for an array size",
}
