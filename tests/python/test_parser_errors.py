"""PyTorch's argument-parser errors for calls that a function or Tensor method bound from C++ refuses
(python/tandem/_parser_errors.py, called on the failure path of the wrappers in python/src/builtin_function.cpp
and torch_function.cpp): the argument named with its position and the type it wanted, too many positionals,
missing arguments, unknown or repeated keywords, an unbound method with no self. nanobind's own "incompatible
function arguments" text was what tandem raised before. Each call runs on tandem and on PyTorch, and the
messages must be equal; the first cases also spell PyTorch's message out."""
import numpy as np
import pytest

import tandem

torch = pytest.importorskip("torch")


def _a(m, device="cpu"):
    return m.ones(3, device=device)


class UserClass:  # a class statement's type: the parser names it bare
    pass


# name -> (call, PyTorch's message)
SPELLED_OUT = {
    "tensor_param_given_float": (lambda m: m.isclose(_a(m), 1.0),
                                 "isclose(): argument 'other' (position 2) must be Tensor, not float"),
    "float_param_given_str": (lambda m: m.isclose(_a(m), _a(m), "x"),
                              "isclose(): argument 'rtol' (position 3) must be float, not str"),
    "keyword_given_wrong_type": (lambda m: m.isclose(_a(m), _a(m), rtol="x"),
                                 "isclose(): argument 'rtol' must be float, not str"),
    "too_many_positionals": (lambda m: m.isclose(_a(m), _a(m), 1.0, 1.0, True, 5),
                             "isclose() takes from 2 to 5 positional arguments but 6 were given"),
    "one_missing": (lambda m: m.isclose(_a(m)), 'isclose() missing 1 required positional arguments: "other"'),
    "two_missing": (lambda m: m.isclose(), 'isclose() missing 2 required positional argument: "input", "other"'),
    "unexpected_keyword": (lambda m: m.isclose(_a(m), _a(m), foo=1),
                           "isclose() got an unexpected keyword argument 'foo'"),
    "keyword_repeats_positional": (lambda m: m.isclose(_a(m), _a(m), other=_a(m)),
                                   "isclose() got multiple values for argument 'other'"),
    "bool_param_given_int": (lambda m: m.isclose(_a(m), _a(m), 1.0, 1.0, 1),
                             "isclose(): argument 'equal_nan' (position 5) must be bool, not int"),
    "numpy_array_for_tensor": (lambda m: m.isclose(_a(m), np.ones(3)),
                               "isclose(): argument 'other' (position 2) must be Tensor, not numpy.ndarray"),
    "user_class_for_tensor": (lambda m: m.equal(_a(m), UserClass()),
                              "equal(): argument 'other' (position 2) must be Tensor, not UserClass"),
    "method_unexpected_keyword": (lambda m: _a(m).requires_grad_(grad=True),
                                  "requires_grad_() got an unexpected keyword argument 'grad'"),
    "method_too_many_positionals": (lambda m: _a(m).requires_grad_(True, True),
                                    "requires_grad_() takes from 0 to 1 positional arguments but 2 were given"),
    "method_position_counts_from_self": (lambda m: _a(m).requires_grad_("x"),
                                         "requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                                         "not str"),
    "unbound_method_without_self": (lambda m: m.Tensor.requires_grad_(),
                                    "unbound method TensorBase.requires_grad_() needs an argument"),
    "unbound_method_keywords_only": (lambda m: m.Tensor.isclose(other=_a(m)),
                                     "unbound method TensorBase.isclose() needs an argument"),
    "int_param_given_float": (lambda m: m.flatten(_a(m), 1.5),
                              "flatten(): argument 'start_dim' (position 2) must be int, not float"),
}

# More calls, compared with PyTorch's message at run time.
COMPARED = {
    "allclose_number_other": lambda m: m.allclose(_a(m), 2),
    "allclose_equal_nan_str": lambda m: m.allclose(_a(m), _a(m), equal_nan="yes"),
    "equal_none": lambda m: m.equal(_a(m), None),
    "equal_list": lambda m: m.equal(_a(m), [1.0, 1.0, 1.0]),
    "isclose_none_rtol": lambda m: m.isclose(_a(m), _a(m), None),
    "isclose_atol_none_keyword": lambda m: m.isclose(_a(m), _a(m), atol=None),
    "isclose_type_error_before_unknown_keyword": lambda m: m.isclose(_a(m), _a(m), 1.0, 2.0, 3, foo=2),
    "device_for_tensor": lambda m: m.isclose(_a(m), m.device("cpu")),
    "dtype_for_tensor": lambda m: m.isclose(_a(m), m.float32),
    "size_for_tensor": lambda m: m.isclose(_a(m), m.Size([3])),
    "layout_for_tensor": lambda m: m.isclose(_a(m), m.strided),
    "memory_format_for_tensor": lambda m: m.isclose(_a(m), m.contiguous_format),
    "module_for_tensor": lambda m: m.isclose(_a(m), m.nn.Identity()),
    "numpy_scalar_for_int": lambda m: m.flatten(_a(m), np.float64(1.5)),
    "method_numpy_index": lambda m: _a(m).index_select(0, np.array([0, 1])),
    "function_numpy_index": lambda m: m.index_select(_a(m), 0, np.array([0, 1])),
    "method_isclose_numpy": lambda m: _a(m).isclose(np.ones(3)),
    "method_equal_missing": lambda m: _a(m).equal(),
    "topk_float_k": lambda m: m.topk(_a(m), 1.5),
    "topk_unknown_keyword": lambda m: m.topk(_a(m), 1, descending=True),
    "unbound_method_on_int": lambda m: m.Tensor.isclose(1, _a(m)),
    "unbound_method_on_none": lambda m: m.Tensor.requires_grad_(None),
    "add_unknown_keyword": lambda m: m.add(_a(m), _a(m), bogus=1),
    # Tensor.to parses its three forms itself (python/src/cuda.cpp)
    "to_copy_twice": lambda m: _a(m).to("cpu", m.float32, False, True, copy=True),
    "to_non_blocking_twice_dtype_form": lambda m: _a(m).to(m.float32, False, non_blocking=True),
    "to_five_positionals": lambda m: _a(m).to("cpu", m.float32, False, False, False),
    "to_six_positionals": lambda m: _a(m).to("cpu", m.float32, False, False, False, False),
    "to_six_nones": lambda m: _a(m).to(None, None, None, None, None, None),
    "to_seven_positionals": lambda m: _a(m).to("cpu", m.float32, False, False, False, False, False),
    "to_six_with_keywords": lambda m: _a(m).to(_a(m), False, True, copy=True, non_blocking=True, memory_format=None),
    "to_keywords_only_with_unknown": lambda m: _a(m).to(device="cpu", dtype=m.float32, non_blocking=False, copy=False,
                                                        memory_format=m.preserve_format, foo=1),
    "to_five_bad_device": lambda m: _a(m).to(m.float32, False, True, copy=True, non_blocking=False),
    "to_five_unknown_keyword": lambda m: _a(m).to("cpu", m.float32, False, True, bogus=1),
    "to_dtype_then_layout": lambda m: _a(m).to(m.float32, m.strided),
    "to_dtype_then_size": lambda m: _a(m).to(m.float32, m.Size([2])),
    "to_tensor_given_twice": lambda m: _a(m).to(_a(m), tensor=_a(m)),
    "to_other_keyword": lambda m: _a(m).to(other=_a(m)),
    "to_device_twice": lambda m: _a(m).to("cpu", device="cpu"),
}


def _message(m, call):
    with pytest.raises(TypeError) as info:
        call(m)
    return str(info.value).split("\nhint:")[0]  # tandem's hint lines come after PyTorch's text


@pytest.mark.parametrize("name", sorted(SPELLED_OUT))
def test_message_is_pytorchs(name):
    call, expected = SPELLED_OUT[name]
    assert _message(tandem, call) == expected
    assert _message(torch, call) == expected


@pytest.mark.parametrize("name", sorted(COMPARED))
def test_message_matches_pytorch(name):
    assert _message(tandem, COMPARED[name]) == _message(torch, COMPARED[name])


def test_same_on_a_cuda_tensor():
    if not tandem.cuda.is_available():
        pytest.skip("no CUDA device (real or emulated)")
    with pytest.raises(TypeError, match=r"^isclose\(\): argument 'other' \(position 2\) must be Tensor, not float$"):
        tandem.isclose(_a(tandem, "cuda"), 1.0)


def test_a_refusal_inside_a_python_function_keeps_its_own_message():
    """The rewrite is for the function called: a nanobind function refusing arguments inside another keeps
    nanobind's text, which names the inner function."""
    from tandem import _parser_errors

    assert _parser_errors.message(tandem._C.isclose, (), {}, None,
                                  "add(): incompatible function arguments. ...") is None


@pytest.mark.parametrize("keywords", [{}, {"copy": True}, {"non_blocking": False, "copy": True}])
def test_to_takes_the_other_tensor_by_name(keywords):
    """PyTorch's third form names its tensor: x.to(tensor=y) takes y's dtype and device."""
    x = tandem.ones(2)
    for device in ["cpu"] + (["cuda"] if tandem.cuda.is_available() else []):
        y = tandem.zeros(2, dtype=tandem.float64, device=device)
        out = x.to(tensor=y, **keywords)
        assert out.dtype == tandem.float64 and out.device == y.device
        assert out.tolist() == [1.0, 1.0]


def test_overloads_differing_from_pytorchs_are_pytorchs():
    """narrow's binding has one int form; PyTorch lists a Tensor start too, and the refusal is its listing."""
    with pytest.raises(TypeError) as ours:
        tandem.narrow(tandem.ones(3), 0, "1", 1)
    with pytest.raises(TypeError) as theirs:
        torch.narrow(torch.ones(3), 0, "1", 1)
    assert str(ours.value) == str(theirs.value)


def test_calls_that_work_are_unchanged():
    a = tandem.ones(3)
    assert tandem.isclose(a, a, rtol=1e-3).tolist() == [True, True, True]
    assert a.requires_grad_(True).requires_grad is True
    assert tandem.flatten(tandem.ones(2, 3), 0).shape == (6,)


# ---- binary ops: an operand that is neither a tensor nor a number -----------------------------------------------------
BINARY_OPS = ("add sub mul div floor_divide remainder fmod pow maximum minimum atan2 hypot logaddexp logaddexp2 copysign "
              "xlogy nextafter heaviside gcd lcm bitwise_left_shift bitwise_right_shift eq ne lt le gt ge logical_and "
              "logical_or logical_xor bitwise_and bitwise_or bitwise_xor").split()
# PyTorch's in-place methods (tandem also has maximum_, minimum_, logaddexp_, logaddexp2_)
IN_PLACE = [n for n in BINARY_OPS if n not in ("maximum", "minimum", "logaddexp", "logaddexp2")]
BAD_OPERANDS = {
    "function_str": lambda m, n, x: getattr(m, n)(x, "s"),
    "function_none": lambda m, n, x: getattr(m, n)(x, None),
    "function_tuple": lambda m, n, x: getattr(m, n)(x, (1,)),
    "first_operand_str": lambda m, n, x: getattr(m, n)("s", x),
    "out_given": lambda m, n, x: getattr(m, n)(x, UserClass(), out=x),
    "method_str": lambda m, n, x: getattr(x, n)("s"),
    "method_none": lambda m, n, x: getattr(x, n)(None),
}
IN_PLACE_OPERANDS = {
    "in_place_list": lambda m, n, x: getattr(x, n + "_")([1]),
    "in_place_none": lambda m, n, x: getattr(x, n + "_")(None),
}


def _binary_case(m, name, call):
    integer = name.startswith(("bitwise", "gcd", "lcm"))
    return call(m, name, m.ones(2, dtype=m.int64 if integer else m.float32))


@pytest.mark.parametrize("form", sorted(BAD_OPERANDS))
@pytest.mark.parametrize("name", BINARY_OPS)
def test_binary_op_operand_errors_match_pytorch(name, form):
    if (name, form) == ("div", "out_given"):
        pytest.skip("div's rounding_mode overloads: tandem names the argument where PyTorch lists them")
    call = BAD_OPERANDS[form]
    assert _message(tandem, lambda m: _binary_case(m, name, call)) == \
        _message(torch, lambda m: _binary_case(m, name, call))


@pytest.mark.parametrize("form", sorted(IN_PLACE_OPERANDS))
@pytest.mark.parametrize("name", IN_PLACE)
def test_binary_op_in_place_operand_errors_match_pytorch(name, form):
    call = IN_PLACE_OPERANDS[form]
    assert _message(tandem, lambda m: _binary_case(m, name, call)) == \
        _message(torch, lambda m: _binary_case(m, name, call))


def test_binary_op_errors_spelled_out():
    x = tandem.ones(2)
    with pytest.raises(TypeError, match=r"^add\(\): argument 'other' \(position 2\) must be Tensor, not str$"):
        tandem.add(x, "s")
    with pytest.raises(TypeError, match=r"^add_\(\): argument 'other' \(position 1\) must be Tensor, not NoneType$"):
        x.add_(None)
    expected = ("eq() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
                " * (Tensor input, Tensor other, *, Tensor out = None)\n"
                " * (Tensor input, Number other, *, Tensor out = None)\n")
    assert _message(tandem, lambda m: m.eq(x, "s")) == expected
    expected = ("eq_() received an invalid combination of arguments - got (tuple), but expected one of:\n"
                " * (Tensor other)\n"
                "      didn't match because some of the arguments have invalid types: (!tuple of (int, int)!)\n"
                " * (Number other)\n"
                "      didn't match because some of the arguments have invalid types: (!tuple of (int, int)!)\n")
    assert _message(tandem, lambda m: x.eq_((1, 2))) == expected


def test_a_failing_explanation_keeps_nanobinds_message():
    """If writing PyTorch's message fails, the call still raises nanobind's TypeError (never another error)."""
    from tandem import _parser_errors

    def broken(*args):
        raise RuntimeError("explanation failed")

    tandem._C._set_refused_call_hook(broken)
    try:
        with pytest.raises(TypeError, match=r"^isclose\(\): incompatible function arguments"):
            tandem.isclose(tandem.ones(3), 1.0)
    finally:
        tandem._C._set_refused_call_hook(_parser_errors.message)
    with pytest.raises(TypeError, match=r"^isclose\(\): argument 'other' \(position 2\) must be Tensor, not float$"):
        tandem.isclose(tandem.ones(3), 1.0)


# ---- errors a binding raises itself, worded from the call as made (session 44) ---------------------------------
def _first_error(lib, call):
    try:
        call(lib, lib.ones(2, 3))
    except Exception as e:  # noqa: BLE001  (the exception is what is compared)
        return type(e).__name__, str(e).split("\nhint:")[0]
    return "no error", ""


WORDED_FROM_THE_CALL = {
    # one-int-dim reductions: a position only for a dim given by position, the function's counting input
    "argmax_function": lambda L, t: L.argmax(t, 1.5), "argmax_method": lambda L, t: t.argmax(1.5),
    "argmin_keyword": lambda L, t: L.argmin(t, dim="x"), "cumsum_function": lambda L, t: L.cumsum(t, 1.5),
    "median_keyword": lambda L, t: t.median(dim=(0,)), "mode_method": lambda L, t: t.mode(1.5),
    "kthvalue_k": lambda L, t: L.kthvalue(t, 1.5), "kthvalue_dim_keyword": lambda L, t: t.kthvalue(1, dim="a"),
    "amax_function": lambda L, t: L.amax(t, 1.5), "amin_keyword": lambda L, t: t.amin(dim="x"),
    # prod and max/min: PyTorch's listing of their overloads, or one overload's own error when only it fits
    "prod_tuple_keyword": lambda L, t: t.prod(dim=(0, 0)), "prod_tuple": lambda L, t: L.prod(t, (0,)),
    "prod_float": lambda L, t: L.prod(t, 1.5), "prod_one_overload": lambda L, t: L.prod(t, dim=[1], keepdim=True),
    "max_tuple_keyword": lambda L, t: L.max(t, dim=(0, 0)), "max_method_tuple": lambda L, t: t.max(dim=(1,)),
    "max_str": lambda L, t: L.max(t, "x"), "min_method_float": lambda L, t: t.min(1.5),
    "max_one_overload": lambda L, t: t.max(dim=1.0, keepdim=True),
    # sum and mean: a dim of another type
    "sum_float_keyword": lambda L, t: t.sum(dim=1.5), "sum_bool": lambda L, t: L.sum(t, dim=True),
    "sum_str": lambda L, t: L.sum(t, "a"), "mean_method_float": lambda L, t: t.mean(1.5),
    "mean_keepdim": lambda L, t: L.mean(t, dim=1.5, keepdim=True), "sum_dtype_as_dim": lambda L, t: L.sum(t, L.float32),
    "mean_method_dtype_as_dim": lambda L, t: t.mean(L.float64), "sum_one_overload": lambda L, t: L.sum(t, 1.5, True),
}


@pytest.mark.parametrize("name", sorted(WORDED_FROM_THE_CALL))
def test_binding_errors_are_worded_from_the_call(name):
    assert _first_error(tandem, WORDED_FROM_THE_CALL[name]) == _first_error(torch, WORDED_FROM_THE_CALL[name])


def test_a_functions_own_position_is_kept():
    """A Python function that passes an argument on by position keeps the position PyTorch's inner op names
    (torch.cdist(x, y, p=None) says "(position 3)"): only the reductions that defer their positions are reworded."""
    x = tandem.ones(2, 3)
    with pytest.raises(TypeError, match=r"^cdist\(\): argument 'p' \(position 3\) must be float, not NoneType"):
        tandem.cdist(x, x, p=None)


# ---- calls nanobind refused, explained from PyTorch's registered overloads (session 45) --------------------------
# sum and mean are one binding that also takes NumPy's names (axis=, keepdims=, dtype strings); PyTorch has two
# overloads each, and its errors know the parameters by their own names only.
FROM_PYTORCH_OVERLOADS = {
    "sum_four_positionals": lambda L, t: L.sum(t, 1, True, L.float64),
    "sum_five_positionals": lambda L, t: L.sum(t, 1, False, L.float64, None),
    "sum_method_three_positionals": lambda L, t: t.sum(1, True, L.float64),
    "mean_four_positionals": lambda L, t: L.mean(t, 1, True, L.float64),
    "mean_method_three_positionals": lambda L, t: t.mean(1, True, L.float64),
    "mean_keepdim_int": lambda L, t: L.mean(t, 1, 1),
    "mean_method_keepdim_int": lambda L, t: t.mean(1, 1),
    "mean_keepdim_str_tuple_dim": lambda L, t: L.mean(t, (0,), "a"),
    "sum_keepdim_int_tuple_dim": lambda L, t: L.sum(t, (0,), 1),
    "sum_keepdim_keyword_int": lambda L, t: L.sum(t, 1, keepdim=2),
    "sum_unknown_after_axis": lambda L, t: L.sum(t, axis=1, axes=0),
    "sum_method_unknown_after_axis": lambda L, t: t.sum(axis=1, axes=0),
    "sum_axis_then_unknown": lambda L, t: L.sum(t, axis=1, foo=2),
    "mean_axis_keepdims_then_unknown": lambda L, t: L.mean(t, axis=1, keepdims=True, bar=1),
    "sum_dim_and_axis": lambda L, t: L.sum(t, dim=1, axis=0),
    "sum_method_out": lambda L, t: t.sum(1, out=None, foo=1),
    "mean_dtype_int": lambda L, t: L.mean(t, dtype=3),
    "sum_dtype_int": lambda L, t: L.sum(t, dtype=3),
    "sum_method_dtype_list": lambda L, t: t.sum(dtype=[1]),
    "mean_dim_keepdim_dtype_int": lambda L, t: L.mean(t, 1, True, dtype=3),
    "mean_method_dtype_int": lambda L, t: t.mean(1, dtype=3),
}


@pytest.mark.parametrize("name", sorted(FROM_PYTORCH_OVERLOADS))
def test_refused_calls_are_explained_from_pytorchs_overloads(name):
    assert _first_error(tandem, FROM_PYTORCH_OVERLOADS[name]) == _first_error(torch, FROM_PYTORCH_OVERLOADS[name])


def test_registered_overloads_spelled_out():
    t = tandem.ones(2, 3)
    with pytest.raises(TypeError, match=r"^sum\(\) takes from 2 to 3 positional arguments but 4 were given$"):
        tandem.sum(t, 1, True, tandem.float64)
    with pytest.raises(TypeError, match=r"^sum\(\) got an unexpected keyword argument 'axis'$"):
        tandem.sum(t, axis=1, axes=0)
    with pytest.raises(TypeError, match=r"^mean\(\) received an invalid combination of arguments - got \(Tensor, int, "
                                        r"int\), but expected one of:\n \* \(Tensor input, \*, torch.dtype dtype = "
                                        r"None, Tensor out = None\)\n \* \(Tensor input, tuple of ints dim, bool "
                                        r"keepdim = False, \*, torch.dtype dtype = None, Tensor out = None\)\n$"):
        tandem.mean(t, 1, 1)
    assert tandem._C._parser_signatures("sum")[1] == (
        ["Tensor input", "tuple of ints dim", "bool keepdim = False"], "*, torch.dtype dtype = None, Tensor out = None")
    assert tandem._C._parser_signatures("isclose") is None


def test_numpy_names_and_dtype_strings_still_work():
    """What the binding takes beyond PyTorch (NumPy's axis=/keepdims= and dtype names) is unchanged."""
    t = tandem.ones(2, 3)
    assert tandem.sum(t, axis=1, keepdims=True).shape == (2, 1)
    assert np.sum(t, dtype="float64").dtype == tandem.float64  # NumPy's names in NumPy's calls
    assert tandem.mean(t, dtype=np.float64).dtype == tandem.float64
