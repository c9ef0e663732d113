"""Tensor creation and conversion beyond factories.py: NumPy arrays of odd kinds (object, string, datetime,
structured, long double, non-native byte order, negative strides, read-only), Python scalars out of a tensor
(item/int/float/bool/index of many or NaN elements), numpy()/tolist() of tensors that cannot convert, sizes that
are negative or huge, requires_grad on integer dtypes, mixed and nested data, and .to()/.type() with bad targets."""
import math

from . import R, T


def np():
    import numpy  # noqa: PLC0415 - imported when a case runs
    return numpy


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


CASES = {
    # ---- from NumPy
    "from_numpy/list": lambda L, d: L.from_numpy([1, 2]),
    "from_numpy/object": lambda L, d: L.from_numpy(np().array([1, "a"], dtype=object)),
    "from_numpy/strings": lambda L, d: L.from_numpy(np().array(["a", "b"])),
    "from_numpy/datetime": lambda L, d: L.from_numpy(np().array(["2020-01-01"], dtype="datetime64[D]")),
    "from_numpy/structured": lambda L, d: L.from_numpy(np().zeros(2, dtype=[("a", "i4"), ("b", "f4")])),
    "from_numpy/longdouble": lambda L, d: L.from_numpy(np().zeros(2, dtype=np().longdouble)),
    "from_numpy/uint16_ok": lambda L, d: L.from_numpy(np().array([1, 65535], dtype=np().uint16)),
    "from_numpy/uint64_ok": lambda L, d: L.from_numpy(np().array([1, 2**63], dtype=np().uint64)),
    "from_numpy/big_endian": lambda L, d: L.from_numpy(np().arange(3, dtype=">f4")),
    "from_numpy/negative_strides": lambda L, d: L.from_numpy(np().arange(4.0)[::-1]),
    "from_numpy/0d_ok": lambda L, d: L.from_numpy(np().array(2.5)),
    "from_numpy/read_only_ok": lambda L, d: L.from_numpy((lambda a: (a.setflags(write=False), a)[1])(
        np().arange(3.0))),
    "from_numpy/float16_ok": lambda L, d: L.from_numpy(np().array([1.5, 65504.0], dtype=np().float16)),
    "from_numpy/complex64_ok": lambda L, d: L.from_numpy(np().array([1 + 2j], dtype=np().complex64)),
    "from_numpy/bool_ok": lambda L, d: L.from_numpy(np().array([True, False])),
    "from_numpy/empty_2d_ok": lambda L, d: L.from_numpy(np().zeros((0, 3), dtype=np().int32)),
    "from_numpy/non_contiguous_ok": lambda L, d: L.from_numpy(np().arange(12.0).reshape(3, 4)[:, ::2]),
    "tensor/numpy_strings": lambda L, d: L.tensor(np().array(["1", "2"]), device=d),
    "tensor/numpy_datetime": lambda L, d: L.tensor(np().array(["2020-01-01"], dtype="datetime64[D]"), device=d),
    "tensor/numpy_longdouble": lambda L, d: L.tensor(np().zeros(2, dtype=np().longdouble), device=d),
    "tensor/numpy_big_endian_ok": lambda L, d: L.tensor(np().arange(3, dtype=">i4"), device=d),
    "tensor/numpy_negative_strides_ok": lambda L, d: L.tensor(np().arange(4.0)[::-1].copy()[::-1], device=d),
    "tensor/list_of_numpy_scalars_ok": lambda L, d: L.tensor([np().float32(1.5), np().int64(2)], device=d),
    "tensor/numpy_scalar_uint64_big": lambda L, d: L.tensor(np().uint64(2**63), device=d),
    "tensor/list_of_numpy_arrays_ragged": lambda L, d: L.tensor([np().zeros(2), np().zeros(3)], device=d),
    "tensor/list_of_numpy_arrays_ok": lambda L, d: L.tensor([np().zeros(2), np().ones(2)], device=d),
    "as_tensor/numpy_object_numbers": lambda L, d: L.as_tensor(np().array([1, 2.5], dtype=object), device=d),
    "as_tensor/dtype_change_ok": lambda L, d: L.as_tensor(np().arange(3), dtype=L.float32, device=d),
    # ---- mixed and nested Python data
    "tensor/bool_float_mixed": lambda L, d: L.tensor([True, 1.5], device=d),
    "tensor/int_float_complex": lambda L, d: L.tensor([1, 2.5, 1j], device=d),
    "tensor/nested_mixed_depth": lambda L, d: L.tensor([[1, 2], 3], device=d),
    "tensor/nested_tuple_list": lambda L, d: L.tensor(([1, 2], (3, 4)), device=d),
    "tensor/str_in_nested": lambda L, d: L.tensor([[1, 2], [3, "4"]], device=d),
    "tensor/float_nan_to_bool": lambda L, d: L.tensor([math.nan], dtype=L.bool, device=d),
    "tensor/inf_to_uint8": lambda L, d: L.tensor([math.inf], dtype=L.uint8, device=d),
    "tensor/negative_to_bool_ok": lambda L, d: L.tensor([-2, 0], dtype=L.bool, device=d),
    "tensor/huge_float_to_int32": lambda L, d: L.tensor([1e20], dtype=L.int32, device=d),
    "tensor/int_past_int32": lambda L, d: L.tensor([2**40], dtype=L.int32, device=d),
    "tensor/requires_grad_int": lambda L, d: L.tensor([1, 2], requires_grad=True, device=d),
    "tensor/requires_grad_bool": lambda L, d: L.tensor([True], requires_grad=True, device=d),
    "tensor/dtype_object": lambda L, d: L.tensor([1], dtype=object, device=d),
    "tensor/dtype_python_float_ok": lambda L, d: L.tensor([1], dtype=float, device=d),
    "tensor/dtype_python_int_ok": lambda L, d: L.tensor([1.7], dtype=int, device=d),
    "tensor/dtype_python_bool_ok": lambda L, d: L.tensor([2], dtype=bool, device=d),
    "tensor/device_int_negative": lambda L, d: L.tensor([1], device=-1),
    "tensor/device_garbage": lambda L, d: L.tensor([1], device="cpu:x"),
    "tensor/tensor_requires_grad_arg": lambda L, d: L.tensor(L.ones(2), requires_grad=True, device=d).requires_grad,
    "tensor/list_of_tensors_different_dtypes": lambda L, d: L.tensor([L.tensor(1), L.tensor(2.5)], device=d),
    "tensor/list_of_2elem_tensors_nested": lambda L, d: L.tensor([[L.ones(2)], [L.ones(2)]], device=d),
    "tensor/list_tensor_and_list": lambda L, d: L.tensor([L.ones(2), [1.0, 2.0]], device=d),
    # ---- sizes
    "empty/negative": lambda L, d: L.empty(2, -1, device=d),
    "empty/huge": lambda L, d: L.empty(2**40, 2**40, device=d),
    "empty/numel_overflow": lambda L, d: L.empty(2**32, 2**32, 2**32, device=d),
    "empty/int64_max": lambda L, d: L.empty(2**63 - 1, device=d),
    "zeros/negative_only": lambda L, d: L.zeros(-3, device=d),
    "ones/tuple_negative": lambda L, d: L.ones((3, -2), device=d),
    "full/negative": lambda L, d: L.full((-1,), 2.0, device=d),
    "full/fill_str": lambda L, d: L.full((2,), "a", device=d),
    "full/fill_none": lambda L, d: L.full((2,), None, device=d),
    "full/fill_tensor_2": lambda L, d: L.full((2,), L.ones(2), device=d),
    "full/fill_tensor_0dim_ok": lambda L, d: L.full((2,), L.tensor(3.0), device=d),
    "empty_strided/negative_stride": lambda L, d: L.empty_strided((2,), (-1,), device=d),
    "empty_strided/lengths_differ": lambda L, d: L.empty_strided((2, 3), (1,), device=d),
    "eye/negative": lambda L, d: L.eye(-1, device=d),
    "eye/huge": lambda L, d: L.eye(2**31, device=d),
    "reshape/two_inferred": lambda L, d: x(L, d).reshape(-1, -1),
    "reshape/negative_size": lambda L, d: x(L, d).reshape(-2, 3),
    "view/wrong_numel": lambda L, d: x(L, d).view(4, 2),
    "expand/negative_new_dim": lambda L, d: x(L, d).expand(-1, 2, 3),
    "new_zeros/negative": lambda L, d: x(L, d).new_zeros(-1),
    "new_tensor/ragged": lambda L, d: x(L, d).new_tensor([[1], [2, 3]]),
    # ---- out of a tensor
    "item/many": lambda L, d: x(L, d).item(),
    "item/empty": lambda L, d: L.ones(0, device=d).item(),
    "int/many": lambda L, d: int(x(L, d)),
    "int/nan": lambda L, d: int(T(L, math.nan, d)),
    "int/inf": lambda L, d: int(T(L, math.inf, d)),
    "float/empty": lambda L, d: float(L.ones(0, device=d)),
    "float/complex": lambda L, d: float(T(L, 1 + 1j, d)),
    "complex/real_ok": lambda L, d: complex(T(L, 2.0, d)),
    "bool/many": lambda L, d: bool(x(L, d)),
    "bool/empty": lambda L, d: bool(L.ones(0, device=d)),
    "bool/one_ok": lambda L, d: bool(T(L, [0.0], d)),
    "index/float": lambda L, d: [10, 20, 30][T(L, 1.0, d)],
    "index/two_ints": lambda L, d: [10, 20, 30][T(L, [1, 2], d)],
    "index/int_ok": lambda L, d: [10, 20, 30][T(L, 2, d)],
    "index/bool_ok": lambda L, d: [10, 20, 30][T(L, True, d)],
    "range/float_tensor": lambda L, d: list(range(T(L, 3.0, d))),
    "len/0dim": lambda L, d: len(T(L, 3.0, d)),
    "iter/0dim": lambda L, d: list(T(L, 3.0, d)),
    "numpy/requires_grad": lambda L, d: L.ones(2, requires_grad=True).numpy(),
    "numpy/bfloat16": lambda L, d: L.ones(2, dtype=L.bfloat16).numpy(),
    "numpy/conj_view": lambda L, d: T(L, [1 + 1j]).conj().numpy(),
    "numpy/force_ok": lambda L, d: L.from_numpy(L.ones(2, requires_grad=True).numpy(force=True)),
    "tolist/bfloat16_ok": lambda L, d: T(L, [1.5, 2.0], d, "bfloat16").tolist(),
    "tolist/0dim_ok": lambda L, d: T(L, 7, d).tolist(),
    "array/requires_grad": lambda L, d: L.from_numpy(np().asarray(L.ones(2, requires_grad=True))),
    # ---- to / type
    "to/bad_device": lambda L, d: x(L, d).to("gpu"),
    "to/bad_dtype_str": lambda L, d: x(L, d).to("float128"),
    "to/two_dtypes": lambda L, d: x(L, d).to(L.float64, L.float16),
    "to/dtype_keyword_str": lambda L, d: x(L, d).to(dtype="float64"),
    "to/other_tensor_ok": lambda L, d: x(L, d).to(L.ones(1, dtype=L.int16)),
    "to/memory_format_bad": lambda L, d: x(L, d).to(memory_format=L.channels_last),
    "type/bad_name": lambda L, d: x(L, d).type("torch.Bogus"),
    "type/python_float_ok": lambda L, d: x(L, d).type(L.float64),
    "type/no_arg_ok": lambda L, d: x(L, d).type(),
    "contiguous/bad_format": lambda L, d: x(L, d, (2, 3, 4)).contiguous(memory_format=L.channels_last),
    "double/ok": lambda L, d: T(L, [2**53 + 1], d).double(),
    "half/overflow_ok": lambda L, d: T(L, [1e6, -1e6], d).half(),
    "bool/nan_cast_ok": lambda L, d: T(L, [math.nan, 0.0], d).bool(),
    "long/nan_cast_cpu": lambda L, d: T(L, [0.5, -1.5], d).long(),
}

_DTYPE_PARSER = "tandem's dtype argument parser is shared by every function and does not name it"
KNOWN = {
    "numpy/conj_view": "tandem's numpy() resolves the conjugate (the right values); PyTorch refuses the view",
    "tensor/numpy_big_endian_ok": "tensor() copies, so tandem converts the byte order (PyTorch refuses; "
                                  "from_numpy refuses in both)",
    "tensor/numpy_negative_strides_ok": "tensor() copies, so tandem reads negative strides (PyTorch refuses; "
                                        "from_numpy refuses in both)",
    "tensor/numpy_scalar_uint64_big": "tandem keeps a NumPy uint64 scalar's value as uint64; PyTorch's parser "
                                      "refuses it",
    "tensor/dtype_object": _DTYPE_PARSER, "to/dtype_keyword_str": _DTYPE_PARSER,
    "to/bad_device": "tandem lists the device types it has (cpu, cuda), PyTorch its twenty",
    "to/bad_dtype_str": "tandem reads an unknown string as a device type; PyTorch's device regex calls "
                        "'float128' an invalid device string",
    "tensor/list_of_numpy_arrays_ragged": "NumPy assembles a list of arrays in tandem and reports the ragged "
                                          "shape in its words (the same ValueError)",
    "type/no_arg_ok": "the type name names the device (tandem.cuda.FloatTensor on the GPU; the oracle runs on "
                      "the CPU)",
}
