"""Comparison and testing helpers with hostile arguments, beyond complex_ops.py, dtypes.py and half_precision_edges.py
(which hold a few complex and 16-bit isclose/allclose forms): allclose/isclose with mixed dtypes, integer and bool
inputs, negative or NaN tolerances, tolerances given as tensors or strings, inf and NaN values with and without
equal_nan, shapes that broadcast or do not; torch.equal with other dtypes, shapes, devices and NaN;
torch.testing.assert_close (and assert_allclose) with mismatched dtypes, devices, shapes, strides, layouts, Python
scalars, sequences and mappings, rtol without atol, check_dtype/check_device/check_stride/check_layout off, equal_nan,
msg as a string or a callable; and eq/ne/lt/le/gt/ge (functions, methods, operators) with scalars of other kinds,
complex operands to ordering comparisons, None and strings, out= of the wrong dtype, and in-place comparisons that
cannot keep self's dtype."""
import math

from . import R, T

N, INF = math.nan, math.inf


def x(L, d, shape=(2, 3), dtype="float32"):
    return R(L, shape, d, dtype)


def v(L, d, values, dtype="float32"):
    return T(L, values, d, dtype)


def ac(L, *args, **kw):
    """assert_close: None when it passes, else its AssertionError/TypeError/ValueError."""
    return L.testing.assert_close(*args, **kw)


def first_line_of(L, fn):
    """The first line of the message fn raises (assert_close's later lines name the mismatch counts)."""
    try:
        fn()
    except AssertionError as e:
        return type(e).__name__, str(e).splitlines()[0] if str(e) else ""
    return None


def msg_lines(L, fn):
    """All lines of the AssertionError fn raises, tandem's names read as torch's."""
    try:
        fn()
    except AssertionError as e:
        return str(e).replace("tandem", "torch").splitlines()
    return None


A = [1.0, 2.0, 3.0]
B = [1.0, 2.0, 3.0001]
CASES = {
    # ---- isclose
    "isclose/float_int": lambda L, d: L.isclose(v(L, d, A), v(L, d, [1, 2, 3], "int64")),
    "isclose/int_int": lambda L, d: L.isclose(v(L, d, [1, 2], "int64"), v(L, d, [1, 3], "int64")),
    "isclose/int_int_atol": lambda L, d: L.isclose(v(L, d, [1, 2], "int64"), v(L, d, [2, 4], "int64"), atol=1),
    "isclose/int_int_rtol": lambda L, d: L.isclose(v(L, d, [10, 20], "int64"), v(L, d, [11, 24], "int64"), rtol=0.1,
                                                   atol=0),
    "isclose/int32_int64": lambda L, d: L.isclose(v(L, d, [1], "int32"), v(L, d, [1], "int64")),
    "isclose/bool_bool": lambda L, d: L.isclose(v(L, d, [True, False], "bool"), v(L, d, [True, True], "bool")),
    "isclose/bool_float": lambda L, d: L.isclose(v(L, d, [True], "bool"), v(L, d, [1.0])),
    "isclose/uint8_uint8_atol": lambda L, d: L.isclose(v(L, d, [0, 5], "uint8"), v(L, d, [255, 4], "uint8"), atol=2),
    "isclose/float32_float64": lambda L, d: L.isclose(x(L, d), x(L, d, dtype="float64")),
    "isclose/half_float": lambda L, d: L.isclose(x(L, d, dtype="float16"), x(L, d)),
    "isclose/complex_float": lambda L, d: L.isclose(v(L, d, [1 + 0j], "complex64"), v(L, d, [1.0])),
    "isclose/rtol_negative": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), rtol=-1.0),
    "isclose/atol_negative": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), atol=-1e-3),
    "isclose/rtol_nan": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), rtol=N),
    "isclose/atol_inf": lambda L, d: L.isclose(v(L, d, A), v(L, d, [1e30, -1e30, 3.0]), atol=INF),
    "isclose/rtol_str": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), rtol="a"),
    "isclose/rtol_tensor": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), rtol=L.tensor(0.1)),
    "isclose/rtol_int": lambda L, d: L.isclose(v(L, d, A), v(L, d, [2.0, 4.0, 9.0]), rtol=1),
    "isclose/atol_none": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), atol=None),
    "isclose/equal_nan_int": lambda L, d: L.isclose(v(L, d, [N]), v(L, d, [N]), equal_nan=1),
    "isclose/nan_nan": lambda L, d: L.isclose(v(L, d, [N, 1.0]), v(L, d, [N, N])),
    "isclose/nan_nan_equal_nan": lambda L, d: L.isclose(v(L, d, [N, 1.0]), v(L, d, [N, N]), equal_nan=True),
    "isclose/inf_inf": lambda L, d: L.isclose(v(L, d, [INF, -INF, INF]), v(L, d, [INF, -INF, -INF])),
    "isclose/inf_finite_huge_atol": lambda L, d: L.isclose(v(L, d, [INF]), v(L, d, [1e38]), atol=1e39),
    "isclose/inf_rtol_inf": lambda L, d: L.isclose(v(L, d, [INF, 1.0]), v(L, d, [1.0, 5.0]), rtol=INF),
    "isclose/zero_tolerances": lambda L, d: L.isclose(v(L, d, [0.0, -0.0, 1e-45]), v(L, d, [-0.0, 0.0, 0.0]),
                                                      rtol=0, atol=0),
    "isclose/broadcast": lambda L, d: L.isclose(x(L, d, (2, 1)), x(L, d, (3,))),
    "isclose/not_broadcastable": lambda L, d: L.isclose(x(L, d, (2, 3)), x(L, d, (2,))),
    "isclose/scalar_other": lambda L, d: L.isclose(v(L, d, A), 1.0),
    "isclose/0d_other": lambda L, d: L.isclose(v(L, d, A), v(L, d, 1.0)),
    "isclose/0d_other_cpu": lambda L, d: L.isclose(v(L, d, A), v(L, "cpu", 1.0)),
    "isclose/method": lambda L, d: v(L, d, A).isclose(v(L, d, B), atol=1e-3),
    "isclose/empty": lambda L, d: L.isclose(x(L, d, (0, 3)), x(L, d, (0, 3))),
    "isclose/complex_nan_equal_nan": lambda L, d: L.isclose(v(L, d, [complex(N, 0), complex(0, N)], "complex64"),
                                                            v(L, d, [complex(0, N), complex(N, N)], "complex64"),
                                                            equal_nan=True),
    "isclose/bfloat16_default_tol": lambda L, d: L.isclose(v(L, d, [1.0, 256.0], "bfloat16"),
                                                           v(L, d, [1.0078125, 257.0], "bfloat16")),
    "isclose/requires_grad": lambda L, d: L.isclose(x(L, d).requires_grad_(), x(L, d)).requires_grad,
    "isclose/positional_tolerances": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), 0.1, 0.1, True),
    "isclose/too_many_positionals": lambda L, d: L.isclose(v(L, d, A), v(L, d, B), 0.1, 0.1, True, 1),
    "isclose/list_other": lambda L, d: L.isclose(v(L, d, A), A),
    # ---- allclose
    "allclose/float_int": lambda L, d: L.allclose(v(L, d, A), v(L, d, [1, 2, 3], "int64")),
    "allclose/int_int": lambda L, d: L.allclose(v(L, d, [1, 2], "int64"), v(L, d, [1, 2], "int64")),
    "allclose/bool_bool": lambda L, d: L.allclose(v(L, d, [True], "bool"), v(L, d, [True], "bool")),
    "allclose/float32_float64": lambda L, d: L.allclose(x(L, d), x(L, d, dtype="float64")),
    "allclose/rtol_negative": lambda L, d: L.allclose(v(L, d, A), v(L, d, B), rtol=-1.0),
    "allclose/atol_negative": lambda L, d: L.allclose(v(L, d, A), v(L, d, B), atol=-1.0),
    "allclose/nan": lambda L, d: L.allclose(v(L, d, [N]), v(L, d, [N])),
    "allclose/nan_equal_nan": lambda L, d: L.allclose(v(L, d, [N]), v(L, d, [N]), equal_nan=True),
    "allclose/inf": lambda L, d: L.allclose(v(L, d, [INF, -INF]), v(L, d, [INF, -INF])),
    "allclose/broadcast": lambda L, d: L.allclose(v(L, d, [[1.0], [1.0]]), v(L, d, [1.0, 1.0, 1.0])),
    "allclose/not_broadcastable": lambda L, d: L.allclose(x(L, d, (2, 3)), x(L, d, (4,))),
    "allclose/empty": lambda L, d: L.allclose(x(L, d, (0,)), x(L, d, (0,))),
    "allclose/empty_vs_1": lambda L, d: L.allclose(x(L, d, (0,)), x(L, d, (1,))),
    "allclose/scalar_other": lambda L, d: L.allclose(v(L, d, A), 1.0),
    "allclose/returns_bool_type": lambda L, d: type(L.allclose(v(L, d, A), v(L, d, A))).__name__,
    "allclose/method": lambda L, d: v(L, d, A).allclose(v(L, d, B), rtol=0, atol=1e-3),
    "allclose/rtol_str": lambda L, d: L.allclose(v(L, d, A), v(L, d, B), rtol="0.1"),
    "allclose/equal_nan_str": lambda L, d: L.allclose(v(L, d, A), v(L, d, B), equal_nan="yes"),
    "allclose/complex": lambda L, d: L.allclose(v(L, d, [1 + 1j], "complex64"), v(L, d, [1 + 1.00001j], "complex64")),
    "allclose/complex_real": lambda L, d: L.allclose(v(L, d, [1 + 0j], "complex64"), v(L, d, [1.0])),
    "allclose/half_tolerance": lambda L, d: L.allclose(v(L, d, [1.0], "float16"), v(L, d, [1.001], "float16")),
    "allclose/0d_vs_1d": lambda L, d: L.allclose(v(L, d, 1.0), v(L, d, [1.0, 1.0])),
    # ---- equal
    "equal/same": lambda L, d: L.equal(x(L, d), x(L, d)),
    "equal/other_dtype": lambda L, d: L.equal(v(L, d, [1.0, 2.0]), v(L, d, [1, 2], "int64")),
    "equal/float32_float64": lambda L, d: L.equal(x(L, d), x(L, d, dtype="float64")),
    "equal/bool_int": lambda L, d: L.equal(v(L, d, [True], "bool"), v(L, d, [1], "int64")),
    "equal/other_shape": lambda L, d: L.equal(x(L, d, (2, 3)), x(L, d, (3, 2))),
    "equal/broadcastable": lambda L, d: L.equal(v(L, d, [1.0, 1.0]), v(L, d, [1.0])),
    "equal/0d_vs_1d": lambda L, d: L.equal(v(L, d, 1.0), v(L, d, [1.0])),
    "equal/nan": lambda L, d: L.equal(v(L, d, [N]), v(L, d, [N])),
    "equal/same_nan_tensor": lambda L, d: (lambda t: L.equal(t, t))(v(L, d, [N, 1.0])),
    "equal/signed_zero": lambda L, d: L.equal(v(L, d, [0.0]), v(L, d, [-0.0])),
    "equal/empty": lambda L, d: L.equal(x(L, d, (0, 3)), x(L, d, (0, 3))),
    "equal/empty_other_shape": lambda L, d: L.equal(x(L, d, (0, 3)), x(L, d, (3, 0))),
    "equal/noncontiguous": lambda L, d: L.equal(x(L, d, (3, 2)).t(), x(L, d, (3, 2)).t().contiguous()),
    "equal/expanded": lambda L, d: L.equal(v(L, d, [1.0]).expand(3), v(L, d, [1.0, 1.0, 1.0])),
    "equal/complex": lambda L, d: L.equal(v(L, d, [1 + 2j], "complex64"), v(L, d, [1 + 2j], "complex64")),
    "equal/complex_vs_real": lambda L, d: L.equal(v(L, d, [1 + 0j], "complex64"), v(L, d, [1.0])),
    "equal/scalar": lambda L, d: L.equal(v(L, d, [1.0]), 1.0),
    "equal/list": lambda L, d: L.equal(v(L, d, [1.0]), [1.0]),
    "equal/none": lambda L, d: L.equal(v(L, d, [1.0]), None),
    "equal/method": lambda L, d: v(L, d, A).equal(v(L, d, A)),
    "equal/returns_bool_type": lambda L, d: type(L.equal(v(L, d, A), v(L, d, A))).__name__,
    "equal/requires_grad": lambda L, d: L.equal(x(L, d).requires_grad_(), x(L, d)),
    "equal/half_bfloat16": lambda L, d: L.equal(v(L, d, [1.0], "float16"), v(L, d, [1.0], "bfloat16")),
    "equal/uint8_int8": lambda L, d: L.equal(v(L, d, [255], "uint8"), v(L, d, [-1], "int8")),
    # ---- assert_close: passing forms
    "assert_close/same": lambda L, d: ac(L, x(L, d), x(L, d)),
    "assert_close/within_default": lambda L, d: ac(L, v(L, d, A), v(L, d, [1.0, 2.0, 3.000001])),
    "assert_close/python_floats": lambda L, d: ac(L, 1.0, 1.0 + 1e-9),
    "assert_close/python_ints": lambda L, d: ac(L, 3, 3),
    "assert_close/python_int_vs_float": lambda L, d: ac(L, 3, 3.0),
    "assert_close/python_complex": lambda L, d: ac(L, 1 + 1j, 1 + 1j),
    "assert_close/lists_of_tensors": lambda L, d: ac(L, [x(L, d), v(L, d, A)], [x(L, d), v(L, d, A)]),
    "assert_close/tuple_vs_list": lambda L, d: ac(L, (x(L, d),), [x(L, d)]),
    "assert_close/dicts": lambda L, d: ac(L, {"a": x(L, d)}, {"a": x(L, d)}),
    "assert_close/nan_equal_nan": lambda L, d: ac(L, v(L, d, [N]), v(L, d, [N]), equal_nan=True),
    "assert_close/inf": lambda L, d: ac(L, v(L, d, [INF, -INF]), v(L, d, [INF, -INF])),
    "assert_close/dtype_unchecked": lambda L, d: ac(L, x(L, d), x(L, d, dtype="float64"), check_dtype=False),
    "assert_close/int_dtype_unchecked": lambda L, d: ac(L, v(L, d, [1, 2], "int32"), v(L, d, [1, 2], "int64"),
                                                        check_dtype=False),
    "assert_close/device_unchecked": lambda L, d: ac(L, v(L, d, A), v(L, "cpu", A), check_device=False),
    "assert_close/stride_unchecked": lambda L, d: ac(L, x(L, d, (3, 2)).t(), x(L, d, (3, 2)).t().contiguous()),
    "assert_close/empty": lambda L, d: ac(L, x(L, d, (0, 3)), x(L, d, (0, 3))),
    "assert_close/0d": lambda L, d: ac(L, v(L, d, 1.0), v(L, d, 1.0)),
    "assert_close/requires_grad": lambda L, d: ac(L, x(L, d).requires_grad_(), x(L, d)),
    "assert_close/bool": lambda L, d: ac(L, v(L, d, [True], "bool"), v(L, d, [True], "bool")),
    "assert_close/rtol_atol_given": lambda L, d: ac(L, v(L, d, A), v(L, d, B), rtol=0, atol=1e-3),
    "assert_close/complex_close": lambda L, d: ac(L, v(L, d, [1 + 1j], "complex64"),
                                                  v(L, d, [1 + 1.000001j], "complex64")),
    "assert_close/half": lambda L, d: ac(L, v(L, d, [1.0], "float16"), v(L, d, [1.0005], "float16")),
    "assert_close/bfloat16": lambda L, d: ac(L, v(L, d, [1.0], "bfloat16"), v(L, d, [1.0078125], "bfloat16")),
    "assert_close/none_none": lambda L, d: ac(L, None, None),
    # ---- assert_close: failures
    "assert_close/values_differ": lambda L, d: ac(L, v(L, d, A), v(L, d, [1.0, 2.0, 4.0])),
    "assert_close/values_differ_lines": lambda L, d: msg_lines(L, lambda: ac(L, v(L, d, A), v(L, d, [1.0, 2.0, 4.0]))),
    "assert_close/values_differ_2d_lines": lambda L, d: msg_lines(L, lambda: ac(L, x(L, d), x(L, d) + 0.5)),
    "assert_close/int_values_lines": lambda L, d: msg_lines(L, lambda: ac(L, v(L, d, [1, 2], "int64"),
                                                                        v(L, d, [1, 5], "int64"))),
    "assert_close/bool_values_lines": lambda L, d: msg_lines(L, lambda: ac(L, v(L, d, [True, True], "bool"),
                                                                         v(L, d, [True, False], "bool"))),
    "assert_close/scalar_lines": lambda L, d: msg_lines(L, lambda: ac(L, 1.0, 2.0)),
    "assert_close/int_scalar_lines": lambda L, d: msg_lines(L, lambda: ac(L, 1, 2)),
    "assert_close/nan_default": lambda L, d: ac(L, v(L, d, [N]), v(L, d, [N])),
    "assert_close/nan_lines": lambda L, d: msg_lines(L, lambda: ac(L, v(L, d, [N, 1.0]), v(L, d, [N, 1.0]))),
    "assert_close/dtype_mismatch": lambda L, d: ac(L, x(L, d), x(L, d, dtype="float64")),
    "assert_close/int_dtype_mismatch": lambda L, d: ac(L, v(L, d, [1], "int32"), v(L, d, [1], "int64")),
    "assert_close/shape_mismatch": lambda L, d: ac(L, x(L, d, (2, 3)), x(L, d, (3, 2))),
    "assert_close/shape_broadcastable": lambda L, d: ac(L, v(L, d, [1.0]), v(L, d, [1.0, 1.0])),
    "assert_close/shape_mismatch_unchecked_dtype": lambda L, d: ac(L, x(L, d, (2, 3)), x(L, d, (6,), "float64"),
                                                                   check_dtype=False),
    "assert_close/device_mismatch_cpu_cpu_ok": lambda L, d: ac(L, v(L, "cpu", A), v(L, "cpu", A)),
    "assert_close/stride_checked": lambda L, d: ac(L, x(L, d, (3, 2)).t(), x(L, d, (3, 2)).t().contiguous(),
                                                   check_stride=True),
    "assert_close/rtol_only": lambda L, d: ac(L, v(L, d, A), v(L, d, B), rtol=0.1),
    "assert_close/atol_only": lambda L, d: ac(L, v(L, d, A), v(L, d, B), atol=0.1),
    "assert_close/rtol_negative": lambda L, d: ac(L, v(L, d, A), v(L, d, B), rtol=-1.0, atol=0.0),
    "assert_close/atol_negative_number_pair": lambda L, d: ac(L, 1.0, 1.5, rtol=0.0, atol=-1.0),
    "assert_close/rtol_none_number_pair_str": lambda L, d: ac(L, 1.0, 1.5, rtol="a", atol=0.0),
    "assert_close/bool_vs_float_scalar": lambda L, d: ac(L, False, 0.0),
    "assert_close/int_subclass_scalar": lambda L, d: ac(L, __import__("enum").IntEnum("E", "A B").A, 1),
    "assert_close/mismatch_then_bad_tolerance": lambda L, d: ac(L, [v(L, d, A), v(L, d, A)],
                                                                [v(L, d, B), v(L, d, B)], rtol=-1.0, atol=0.0),
    "assert_close/complex_within_default": lambda L, d: ac(L, v(L, d, [1e3 + 1e3j], "complex128"),
                                                           v(L, d, [1e3 + 1.00000001e3j], "complex128")),
    "assert_close/complex_2d_lines": lambda L, d: msg_lines(L, lambda: ac(L, x(L, d).to(L.complex64),
                                                                          x(L, d).to(L.complex64) * 1j)),
    "assert_close/rtol_str": lambda L, d: ac(L, v(L, d, A), v(L, d, B), rtol="a", atol=0.0),
    "assert_close/tensor_vs_float": lambda L, d: ac(L, v(L, d, 1.0), 1.0),
    "assert_close/float_vs_tensor": lambda L, d: ac(L, 1.0, v(L, d, 1.0)),
    "assert_close/tensor_vs_list": lambda L, d: ac(L, v(L, d, A), A),
    "assert_close/tensor_vs_list_no_type_check": lambda L, d: ac(L, v(L, "cpu", A, "float64"), A,
                                                                 allow_subclasses=False),
    "assert_close/tensor_vs_numpy": lambda L, d: ac(L, v(L, "cpu", A, "float64"), __import__("numpy").array(A)),
    "assert_close/int_vs_float_scalar_values": lambda L, d: ac(L, 1, 1.5),
    "assert_close/bool_vs_int_scalar": lambda L, d: ac(L, True, 1),
    "assert_close/str_inputs": lambda L, d: ac(L, "a", "a"),
    "assert_close/none_vs_tensor": lambda L, d: ac(L, None, x(L, d)),
    "assert_close/list_lengths": lambda L, d: ac(L, [x(L, d)], [x(L, d), x(L, d)]),
    "assert_close/list_item_differs": lambda L, d: ac(L, [x(L, d), v(L, d, A)], [x(L, d), v(L, d, B)]),
    "assert_close/list_item_differs_lines": lambda L, d: msg_lines(L, lambda: ac(L, [x(L, d), v(L, d, A)],
                                                                                 [x(L, d), v(L, d, [9.0, 2.0,
                                                                                                    3.0])])),
    "assert_close/dict_keys_differ": lambda L, d: ac(L, {"a": x(L, d)}, {"b": x(L, d)}),
    "assert_close/dict_value_differs_lines": lambda L, d: msg_lines(L, lambda: ac(L, {"a": v(L, d, A)},
                                                                                  {"a": v(L, d, [0.0, 2.0, 3.0])})),
    "assert_close/dict_vs_list": lambda L, d: ac(L, {"a": x(L, d)}, [x(L, d)]),
    "assert_close/msg_str": lambda L, d: ac(L, v(L, d, A), v(L, d, [0.0, 0.0, 0.0]), msg="custom message"),
    "assert_close/msg_callable": lambda L, d: ac(L, v(L, d, A), v(L, d, [0.0, 0.0, 0.0]),
                                                 msg=lambda m: "wrapped: " + m.splitlines()[0]),
    "assert_close/msg_int": lambda L, d: ac(L, v(L, d, A), v(L, d, [0.0, 0.0, 0.0]), msg=3),
    "assert_close/unknown_kw": lambda L, d: ac(L, x(L, d), x(L, d), check_shape=False),
    "assert_close/positional_rtol": lambda L, d: L.testing.assert_close(x(L, d), x(L, d), 0.1, 0.1),
    "assert_close/complex_vs_real": lambda L, d: ac(L, v(L, d, [1 + 0j], "complex64"), v(L, d, [1.0])),
    "assert_close/complex_nan_equal_nan": lambda L, d: ac(L, v(L, d, [complex(N, 1)], "complex64"),
                                                          v(L, d, [complex(N, 1)], "complex64"), equal_nan=True),
    "assert_close/complex_differs_lines": lambda L, d: msg_lines(L, lambda: ac(L, v(L, d, [1 + 1j], "complex64"),
                                                                               v(L, d, [1 + 2j], "complex64"))),
    "assert_close/inf_vs_large": lambda L, d: ac(L, v(L, d, [INF]), v(L, d, [3e38])),
    "assert_close/empty_vs_nonempty": lambda L, d: ac(L, x(L, d, (0,)), x(L, d, (1,))),
    "assert_close/half_vs_float_lines": lambda L, d: msg_lines(L, lambda: ac(L, v(L, d, [1.0], "float16"),
                                                                            v(L, d, [1.0]))),
    "assert_close/check_dtype_str": lambda L, d: ac(L, x(L, d), x(L, d), check_dtype="no"),
    "assert_close/large_mismatch_lines": lambda L, d: msg_lines(L, lambda: ac(L, x(L, d, (10, 10)),
                                                                             x(L, d, (10, 10)) * 1.01)),
    "assert_allclose/deprecated_same": lambda L, d: L.testing.assert_allclose(x(L, d), x(L, d)),
    "assert_allclose/differs": lambda L, d: first_line_of(L, lambda: L.testing.assert_allclose(
        v(L, d, A), v(L, d, [9.0, 2.0, 3.0]))),
    "assert_allclose/list_vs_tensor": lambda L, d: L.testing.assert_allclose(v(L, "cpu", A), A),
    # ---- eq/ne/lt/le/gt/ge
    "eq/float_tensor_int_scalar": lambda L, d: v(L, d, [1.0, 1.5]) == 1,
    "eq/int_tensor_float_scalar": lambda L, d: v(L, d, [1, 2], "int64") == 1.0,
    "eq/int_tensor_fraction": lambda L, d: v(L, d, [1, 2], "int64") == 1.5,
    "eq/bool_tensor_int_scalar": lambda L, d: v(L, d, [True, False], "bool") == 2,
    "eq/uint8_negative_scalar": lambda L, d: v(L, d, [255, 0], "uint8") == -1,
    "eq/int8_huge_scalar": lambda L, d: v(L, d, [127], "int8") == 383,
    "lt/uint8_negative_scalar": lambda L, d: v(L, d, [0, 255], "uint8") < -1,
    "gt/int64_huge_float_scalar": lambda L, d: v(L, d, [2**62], "int64") > 1e30,
    "eq/int64_near_2_53": lambda L, d: v(L, d, [2**53 + 1], "int64") == float(2**53),
    "eq/float32_int64_tensors": lambda L, d: v(L, d, [16777217.0]) == v(L, d, [16777217], "int64"),
    "lt/complex_tensor": lambda L, d: v(L, d, [1j], "complex64") < v(L, d, [2j], "complex64"),
    "lt/complex_scalar": lambda L, d: v(L, d, [1.0]) < 1j,
    "eq/complex_scalar": lambda L, d: v(L, d, [1.0, 0.0]) == (1 + 0j),
    "ge/bool_tensors": lambda L, d: v(L, d, [True, False], "bool") >= v(L, d, [False, True], "bool"),
    "le/nan": lambda L, d: v(L, d, [N, 1.0]) <= v(L, d, [N, N]),
    "ne/nan": lambda L, d: v(L, d, [N, 1.0]) != v(L, d, [N, 1.0]),
    "eq/none": lambda L, d: v(L, d, A) == None,  # noqa: E711 - the operand is the case
    "ne/none": lambda L, d: v(L, d, A) != None,  # noqa: E711
    "eq/str": lambda L, d: v(L, d, A) == "a",
    "lt/none": lambda L, d: v(L, d, A) < None,
    "lt/str": lambda L, d: v(L, d, A) < "a",
    "eq/list": lambda L, d: v(L, d, A) == [1.0, 2.0, 0.0],
    "eq/tuple_wrong_len": lambda L, d: v(L, d, A) == (1.0, 2.0),
    "eq/function_none": lambda L, d: L.eq(v(L, d, A), None),
    "eq/function_str": lambda L, d: L.eq(v(L, d, A), "a"),
    "eq/function_list": lambda L, d: L.eq(v(L, d, A), [1.0, 2.0, 3.0]),
    "lt/function_scalar_first": lambda L, d: L.lt(1.0, v(L, d, A)),
    "gt/broadcast": lambda L, d: L.gt(x(L, d, (2, 1)), x(L, d, (3,))),
    "gt/not_broadcastable": lambda L, d: L.gt(x(L, d, (2, 3)), x(L, d, (2,))),
    "eq/other_device_0d": lambda L, d: L.eq(v(L, d, A), v(L, "cpu", 1.0)),
    "eq/out_float": lambda L, d: L.eq(v(L, d, A), 1.0, out=L.empty(3, device=d)),
    "eq/out_int": lambda L, d: L.eq(v(L, d, A), 1.0, out=L.empty(3, dtype=L.int64, device=d)),
    "eq/out_wrong_shape": lambda L, d: L.eq(v(L, d, A), 1.0, out=L.empty(2, dtype=L.bool, device=d)),
    "lt/out_bool_requires_grad_input": lambda L, d: L.lt(x(L, d).requires_grad_(), 0.0,
                                                         out=L.empty(2, 3, dtype=L.bool, device=d)),
    "eq_/float_inplace": lambda L, d: v(L, d, [1.0, 2.0]).eq_(1.0),
    "eq_/int_inplace": lambda L, d: v(L, d, [1, 2], "int64").eq_(v(L, d, [1, 0], "int64")),
    "lt_/int_inplace_float_other": lambda L, d: v(L, d, [1, 2], "int64").lt_(1.5),
    "gt_/bool_inplace": lambda L, d: v(L, d, [True, False], "bool").gt_(v(L, d, [False, False], "bool")),
    "ne_/inplace_broadcast_grows": lambda L, d: v(L, d, [1.0]).ne_(v(L, d, [1.0, 2.0])),
    "ge_/inplace_broadcast_ok": lambda L, d: x(L, d).ge_(x(L, d, (3,))),
    "le_/requires_grad_leaf": lambda L, d: x(L, d).requires_grad_().le_(0.0),
    "eq/requires_grad_result": lambda L, d: (x(L, d).requires_grad_() == 0.0).requires_grad,
    "greater/alias": lambda L, d: L.greater(v(L, d, A), 2.0),
    "not_equal/alias_int": lambda L, d: L.not_equal(v(L, d, [1, 2], "int64"), 2),
    "less_equal/method": lambda L, d: v(L, d, A).less_equal(v(L, d, B)),
    "greater_equal_/inplace": lambda L, d: v(L, d, A).greater_equal_(2.0),
    "eq/empty_broadcast": lambda L, d: x(L, d, (0, 3)) == x(L, d, (1, 3)),
    "eq/0d_result": lambda L, d: v(L, d, 1.0) == v(L, d, 1.0),
    "maximum/nan": lambda L, d: L.maximum(v(L, d, [N, 1.0]), v(L, d, [1.0, N])),
    "maximum/int_float": lambda L, d: L.maximum(v(L, d, [1, 2], "int64"), v(L, d, [1.5, 0.5])),
    "maximum/complex": lambda L, d: L.maximum(v(L, d, [1j], "complex64"), v(L, d, [1j], "complex64")),
    "fmax/nan": lambda L, d: L.fmax(v(L, d, [N, 1.0, N]), v(L, d, [1.0, N, N])),
    "isin/float_int": lambda L, d: L.isin(v(L, d, [1.0, 2.5]), v(L, d, [1, 2], "int64")),
}

# The parser messages that differed (isclose/allclose/equal's nanobind refusals, the comparisons' wording of a
# non-Tensor operand) follow PyTorch since session 43 (python/tandem/_parser_errors.py, python/src/elementwise.cpp).
KNOWN = {}
