"""PyTorch's argument parser on int lists (dims and sizes), optional dims, dtypes and overloaded bounds, checked against
PyTorch (the oracle, on the CPU) on every device: how a list whose first item is no int is refused (by keyword, by
position, among overloads), sizes given one by one, prod/logsumexp's required dims, torch.norm's errors (which name
linalg_vector_norm), clamp's Tensor and Number overloads, and masked_fill's value and order of checks (session 48, the
C++ findings of the hostile-input harness's round 21)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import assert_matches_pytorch  # noqa: E402

import tandem  # noqa: E402


def _x(L, d):
    return L.arange(6.0, device=d).reshape(2, 3)


# Each call is made with both libraries; PyTorch's whole message (the listing included) must match where it raises.
CALLS = {
    # a dim list whose first item is no int: one signature's error, by keyword and by position; later items
    "amax_bools_keyword": lambda L, x: L.amax(x, dim=(True, False)),
    "amax_bools_position": lambda L, x: L.amax(x, (True, False)),
    "amax_method_bools_position": lambda L, x: x.amax((True, False)),
    "amax_list_of_float": lambda L, x: L.amax(x, dim=[1.0]),
    "amax_list_of_float_position": lambda L, x: x.amax([1.0]),
    "amax_later_bool": lambda L, x: L.amax(x, dim=(0, True)),
    "amax_later_float": lambda L, x: L.amax(x, dim=(0, 1.0)),
    "amax_later_none": lambda L, x: L.amax(x, (0, None)),
    "amax_bool_tensor_item": lambda L, x: L.amax(x, dim=(L.tensor(True),)),
    "amax_float_tensor_item": lambda L, x: L.amax(x, dim=(L.tensor(1.0),)),
    "amax_1d_tensor_item": lambda L, x: L.amax(x, dim=(L.tensor([1]),)),
    "amax_tensor_of_dims": lambda L, x: L.amax(x, dim=L.tensor([0, 1])),
    "amax_bool": lambda L, x: L.amax(x, dim=True),
    "logsumexp_bools_position": lambda L, x: L.logsumexp(x, (True,)),
    "logsumexp_later_bool_repeats": lambda L, x: L.logsumexp(x, dim=[1, True]),
    "logsumexp_later_float": lambda L, x: L.logsumexp(x, (0, 1.0)),
    # the overloaded reductions: their listing
    "sum_bools_position": lambda L, x: L.sum(x, (True, False)),
    "sum_method_bools": lambda L, x: x.sum((True, False)),
    "sum_method_bools_keyword": lambda L, x: x.sum(dim=(True, False)),
    "sum_later_float": lambda L, x: L.sum(x, (0, 1.0)),
    "sum_later_str": lambda L, x: x.sum(dim=(0, "a")),
    "sum_later_bool": lambda L, x: L.sum(x, (0, True)),
    "sum_bool": lambda L, x: L.sum(x, dim=True),
    "sum_tensor_item": lambda L, x: L.sum(x, dim=[L.tensor(1)]),
    "sum_float_tensor_item": lambda L, x: L.sum(x, dim=(L.tensor(1.0),)),
    "sum_method_tensor_of_dims": lambda L, x: x.sum(L.tensor([0, 1])),
    "mean_bools": lambda L, x: L.mean(x, dim=(True, False)),
    "std_bools_method": lambda L, x: x.std(dim=(True, False)),
    "std_float": lambda L, x: L.std(x, dim=0.5),
    "var_bools_position": lambda L, x: x.var((True, False)),
    "var_float_position": lambda L, x: L.var(x, 0.5),
    "var_str": lambda L, x: x.var(dim="a"),
    "all_bools_method": lambda L, x: x.all((True,)),
    "all_float": lambda L, x: L.all(x, dim=0.5),
    "any_bools_keyword": lambda L, x: x.any(dim=(True,)),
    "any_float": lambda L, x: x.any(dim=0.5),
    "all_dtype": lambda L, x: L.all(x, 0, dtype=L.float64),
    "any_dtype_method": lambda L, x: x.any(0, dtype=L.float64),
    # torch.norm hands dim and dtype to linalg_vector_norm by position
    "norm_bools": lambda L, x: L.norm(x, 2, dim=(True, False)),
    "norm_bools_position": lambda L, x: L.norm(x, 2, (True, False)),
    "norm_method_bools": lambda L, x: x.norm(2, (True, False)),
    "norm_method_keyword_bools": lambda L, x: x.norm(p=1, dim=(True,)),
    "norm_float": lambda L, x: L.norm(x, 2, 0.5),
    "norm_method_float": lambda L, x: x.norm(2, dim=0.5),
    "norm_str": lambda L, x: L.norm(x, 2, dim="a"),
    "norm_later_float": lambda L, x: L.norm(x, 2, (0, 1.0)),
    "norm_dtype_str": lambda L, x: L.norm(x, 2, dtype="float64"),
    "norm_dim_dtype_str": lambda L, x: L.norm(x, 2, 0, dtype="float64"),
    "norm_dtype": lambda L, x: L.norm(x, 2, 0, dtype=L.float64),
    # prod has no optional dim, logsumexp requires one
    "prod_dim_none": lambda L, x: L.prod(x, dim=None),
    "prod_none_position": lambda L, x: L.prod(x, None),
    "prod_method_dim_none": lambda L, x: x.prod(dim=None),
    "prod_dim_none_keepdim": lambda L, x: L.prod(x, dim=None, keepdim=True),
    "prod_all": lambda L, x: L.prod(x),
    "prod_dim": lambda L, x: L.prod(x, 1, True),
    "logsumexp_none": lambda L, x: L.logsumexp(x, None),
    "logsumexp_none_keyword": lambda L, x: L.logsumexp(x, dim=None, keepdim=True),
    "logsumexp_no_dim": lambda L, x: L.logsumexp(x),
    "logsumexp_method_no_dim": lambda L, x: x.logsumexp(),
    "logsumexp_dims": lambda L, x: L.logsumexp(x, (0, 1)),
    # a str dtype outside a NumPy call
    "sum_dtype_str": lambda L, x: L.sum(x, 0, dtype="float64"),
    "mean_dtype_str": lambda L, x: L.mean(x, 0, dtype="float64"),
    "prod_dtype_str": lambda L, x: L.prod(x, 0, dtype="float64"),
    "sum_method_dtype_str": lambda L, x: x.sum(dtype="float64"),
    # sizes one by one whose first is no int; in a tuple; a bare int to torch.reshape
    "reshape_bool_first": lambda L, x: x.reshape(True, 6),
    "reshape_str_first": lambda L, x: x.reshape("a", 3),
    "reshape_list_first": lambda L, x: x.reshape([2.0], 3),
    "reshape_later_float": lambda L, x: x.reshape(2, 3.0),
    "reshape_later_none": lambda L, x: x.reshape(2, None),
    "reshape_float": lambda L, x: x.reshape(6.0),
    "reshape_tuple_float_first": lambda L, x: x.reshape((2.0, 3)),
    "expand_float_first": lambda L, x: x.expand(2.0, 3),
    "expand_later_float": lambda L, x: x.expand(2, 3.0),
    "permute_float_first": lambda L, x: x.permute(1.0, 0),
    "permute_later_float": lambda L, x: x.permute(1, 0.0),
    "permute_list_float": lambda L, x: x.permute([1.0, 0]),
    "repeat_float_first": lambda L, x: x.repeat(2.0, 1),
    "tile_float_first": lambda L, x: x.tile(2.0, 1),
    "flip_float_first": lambda L, x: x.flip(0.0, 1),
    "new_zeros_float_first": lambda L, x: x.new_zeros(2.0, 3),
    "new_ones_later_float": lambda L, x: x.new_ones(2, 3.0),
    "zeros_float_first": lambda L, x: L.zeros(2.0, 3),
    "ones_bool_first": lambda L, x: L.ones(True, 2),
    "zeros_later_float": lambda L, x: L.zeros(2, 3.0),
    "rand_float_first": lambda L, x: L.rand(2.0, 3),
    "randn_none_first": lambda L, x: L.randn(None, 3),
    "view_float_first": lambda L, x: x.view(2.0, 3),
    "view_later_float": lambda L, x: x.view(2, 3.0),
    "view_str": lambda L, x: x.view("float32"),
    "view_float": lambda L, x: x.view(2.0),
    "view_bool": lambda L, x: x.view(True),
    "view_none": lambda L, x: x.view(None),
    "view_float_tensor": lambda L, x: x.view(L.tensor(6.0)),
    "view_int_tensor": lambda L, x: x.view(L.tensor(6)),
    "view_dtype": lambda L, x: x.view(L.int32),
    "reshape_fn_int": lambda L, x: L.reshape(x, 6),
    "reshape_fn_int_keyword": lambda L, x: L.reshape(x, shape=6),
    "reshape_fn_float": lambda L, x: L.reshape(x, 6.0),
    "reshape_fn_tensor": lambda L, x: L.reshape(x, L.tensor(6)),
    "reshape_fn_list": lambda L, x: L.reshape(x, [3, 2]),
    "reshape_method_int": lambda L, x: x.reshape(6),
    # squeeze and narrow: their listings
    "squeeze_bool": lambda L, x: x.squeeze(True),
    "squeeze_float": lambda L, x: x.squeeze(0.0),
    "squeeze_str": lambda L, x: x.squeeze("a"),
    "squeeze_float_keyword": lambda L, x: x.squeeze(dim=0.0),
    "squeeze_tuple_float": lambda L, x: x.squeeze((0.0,)),
    "squeeze_tuple_bool": lambda L, x: x.squeeze((True,)),
    "squeeze_function_bool": lambda L, x: L.squeeze(x, True),
    "squeeze_empty_tuple": lambda L, x: x[None].squeeze(()),
    "squeeze_tensor": lambda L, x: x[None].squeeze(L.tensor(0)),
    "narrow_float_start": lambda L, x: x.narrow(0, 0.0, 1),
    "narrow_float_dim": lambda L, x: x.narrow(0.0, 0, 1),
    "narrow_float_length": lambda L, x: L.narrow(x, 0, 0, 1.0),
    "narrow_none_start": lambda L, x: x.narrow(0, None, 1),
    "narrow_str_start": lambda L, x: L.narrow(x, 0, "1", 1),
    # clamp's overloads: both bounds Tensors or both Numbers
    "clamp_number_tensor": lambda L, x: L.clamp(x, 1, x.long()),
    "clamp_tensor_number_out": lambda L, x: L.clamp(x, x.long(), 2.0, out=L.empty_like(x)),
    "clamp_method_number_tensor": lambda L, x: x.clamp(1, x),
    "clamp_keywords_number_tensor": lambda L, x: x.clamp(min=1, max=x),
    "clamp__number_tensor": lambda L, x: x.clone().clamp_(1, x),
    "clip_tensor_number": lambda L, x: L.clip(x, x, 1),
    "clip_method_tensor_number": lambda L, x: x.clip(x, 1),
    "clamp_0d_requires_grad": lambda L, x: L.clamp(x, L.tensor(1.0, requires_grad=True), 2),
    "clamp_0d_beside_number": lambda L, x: L.clamp(x, L.tensor(1.0), 4),
    "clamp_str": lambda L, x: L.clamp(x, "a"),
    "clamp_tensor_str": lambda L, x: L.clamp(x, x, "a"),
    "clamp_method_str": lambda L, x: x.clamp("a"),
    "clamp__str": lambda L, x: x.clone().clamp_("a"),
    # clamp with complex bounds or input
    "clamp_complex_min": lambda L, x: L.clamp(x, x.to(L.complex64)),
    "clamp_complex_max": lambda L, x: L.clamp(x, None, x.to(L.complex64)),
    "clamp_complex_both": lambda L, x: L.clamp(x, x.to(L.complex64), x.to(L.complex64)),
    "clamp_complex_with_real": lambda L, x: L.clamp(x, x, x.to(L.complex64)),
    "clamp_float64_complex": lambda L, x: L.clamp(x.double(), x.to(L.complex64)),
    "clamp_int_complex": lambda L, x: L.clamp(x.long(), x.to(L.complex64)),
    "clamp_bool_complex_max": lambda L, x: L.clamp(x > 2, None, x.to(L.complex64)),
    "clamp_0d_complex": lambda L, x: L.clamp(x, L.tensor(1j)),
    "clamp__complex_bound": lambda L, x: x.clone().clamp_(x.to(L.complex64)),
    "clamp__int_bound_of_float": lambda L, x: x.clone().clamp_(x.long()),
    "clamp__float_bound_of_int": lambda L, x: x.long().clamp_(x),
    "clamp_complex_input": lambda L, x: L.clamp(x.to(L.complex64), x),
    "clamp_complex_no_bounds": lambda L, x: L.clamp(x.to(L.complex64)),
    "clamp_complex_none_none": lambda L, x: L.clamp(x.to(L.complex64), None, None),
    "clamp_int_python_complex": lambda L, x: L.clamp(x.long(), 1j),
    "clamp_bool_python_complex": lambda L, x: L.clamp(x > 2, 1j),
    "clamp_float_python_complex": lambda L, x: L.clamp(x, 1j),
    "clamp_complex_python_int": lambda L, x: L.clamp(x.to(L.complex64), 1),
    # clamp's out=: a cast for Tensor bounds, the result's dtype for Number bounds
    "clamp_tensors_out_f64": lambda L, x: L.clamp(x, x, out=L.empty(2, 3, dtype=L.float64, device=x.device)),
    "clamp_tensors_out_f16": lambda L, x: L.clamp(x, x, out=L.empty(2, 3, dtype=L.float16, device=x.device)),
    "clamp_tensors_out_c64": lambda L, x: L.clamp(x, None, x, out=L.empty(2, 3, dtype=L.complex64, device=x.device)),
    "clamp_tensors_out_i64": lambda L, x: L.clamp(x, x, out=L.empty(2, 3, dtype=L.int64, device=x.device)),
    "clamp_int_tensors_out_f32": lambda L, x: L.clamp(x.long(), x.long(), out=L.empty(2, 3, device=x.device)),
    "clamp_float_int_out_i64": lambda L, x: L.clamp(x, x.long(), out=L.empty(2, 3, dtype=L.int64, device=x.device)),
    "clamp_number_out_f64": lambda L, x: L.clamp(x, 1, out=L.empty(2, 3, dtype=L.float64, device=x.device)),
    "clip_tensors_out_f64": lambda L, x: L.clip(x, x, out=L.empty(2, 3, dtype=L.float64, device=x.device)),
    # eye's, index_fill's and rand's overloads; full's size is a tuple or list; softmax's dim position
    "eye_bool": lambda L, x: L.eye(True, 3),
    "eye_float": lambda L, x: L.eye(2.0),
    "eye_float_m": lambda L, x: L.eye(2, 3.0),
    "eye_str_keyword_m": lambda L, x: L.eye(2, m="a"),
    "index_fill_int_index": lambda L, x: x.index_fill(0, 1, 2.0),
    "index_fill_list_index": lambda L, x: L.index_fill(x, 0, [1], 2.0),
    "index_fill__int_index": lambda L, x: x.clone().index_fill_(1, 0, -1.0),
    "rand_float": lambda L, x: L.rand(2.0),
    "rand_tuple_float_first": lambda L, x: L.rand((2.0, 3)),
    "randn_none": lambda L, x: L.randn(None),
    "rand_tuple_later_float": lambda L, x: L.rand((2, 3.0)),
    "full_int_size": lambda L, x: L.full(3, 1.5),
    "full_int_size_keyword": lambda L, x: L.full(size=3, fill_value=1.5),
    "full_none_size": lambda L, x: L.full(None, 1.5),
    "full_tensor_size": lambda L, x: L.full(L.tensor(3), 1.5),
    "full_size_and_bad_value": lambda L, x: L.full(3, "a"),
    "full_tuple_size": lambda L, x: L.full((2, 1), 1.5),
    "new_full_int_size": lambda L, x: x.new_full(3, 1.5),
    "new_full_list_size": lambda L, x: x.new_full([3], 1.5),
    "log_softmax_function_str": lambda L, x: L.log_softmax(x, "a"),
    "log_softmax_method_str": lambda L, x: x.log_softmax("a"),
    "softmax_keyword_float": lambda L, x: L.softmax(x, dim=1.0),
    # masked_fill without a value
    "masked_fill_no_value": lambda L, x: x.masked_fill(x > 0),
    "masked_fill_function_no_value": lambda L, x: L.masked_fill(x, x > 0),
    "masked_fill__no_value": lambda L, x: x.masked_fill_(x > 0),
    "masked_fill_mask_keyword_only": lambda L, x: x.masked_fill(mask=x > 0),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_call_matches_pytorch(name, device):
    def case(L, d):
        return CALLS[name](L, _x(L, d))
    assert_matches_pytorch(case, device)


@pytest.mark.parametrize("name", [n for n in sorted(CALLS) if "listing" in n or n.startswith(
    ("sum_", "mean_", "std_", "var_", "all_", "any_", "squeeze_", "narrow_", "view_", "clamp_number", "clamp_method",
     "clamp_keywords", "clip_", "masked_fill", "rand", "prod_dim_none", "prod_none", "eye_", "index_fill",
     "full_"))])
def test_listing_matches_pytorch_in_full(name):
    """The whole message (each overload and its "didn't match because" line), not only its first line."""
    errors = []
    for L in (torch, tandem):
        try:
            CALLS[name](L, _x(L, "cpu"))
            errors.append(None)
        except Exception as e:  # noqa: BLE001 (compared below)
            text = str(e).replace("tandem.", "torch.")
            # tandem's RuntimeErrors add a hint line; the listings (TypeErrors) are compared whole
            errors.append((type(e).__name__, text if isinstance(e, TypeError) else text.split("\n")[0]))
    assert errors[1] == errors[0]


def test_numpy_calls_keep_numpys_dtype_names():
    """np.sum(t, dtype="float64") calls t.sum(axis=None, dtype="float64", out=None): a NumPy call reads NumPy's
    dtype names (PyTorch's parser refuses them; so does tandem outside a NumPy call)."""
    t = tandem.ones(2, 3)
    assert np.sum(t, dtype="float64").dtype is tandem.float64
    assert np.mean(t, axis=0, dtype="float32").dtype is tandem.float32
    assert np.prod(t, dtype="int64").dtype is tandem.int64
    assert np.prod(t).item() == 1.0 and tuple(np.prod(t, axis=1).shape) == (2,)
    assert t.sum(axis=None, dtype=np.float64).dtype is tandem.float64
    with pytest.raises(TypeError, match=r"^sum\(\): argument 'dtype' must be torch.dtype, not str$"):
        t.sum(0, dtype="float64")


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16", "float16", "complex64", "complex128", "bool",
                                   "int64", "int32", "int16", "int8", "uint8"])
@pytest.mark.parametrize("value", [2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63 - 1, 2 ** 63 - 1, 1e300, -1e39, 300, -129,
                                   1j, 1 + 0j, float("nan"), float("inf")])
@pytest.mark.parametrize("form", ["masked_fill", "masked_fill_", "fill_", "full", "index_fill"])
def test_fill_values_convert_as_pytorchs(dtype, value, form, device):
    """A fill value converts to the tensor's dtype with PyTorch's checks: a Python int past int64 is read as uint64
    (a float, bool or complex tensor takes it, an integer one refuses it), a value past a float's range is an error
    (complex64's parts too), and each error names PyTorch's C type (uint8_t, int, c10::Half, c10::complex<float>)."""
    def case(L, d):
        x = L.zeros(2, 3, dtype=getattr(L, dtype), device=d)
        mask = L.tensor([[True, False, True]], device=d)
        if form == "full":
            return L.full((2,), value, dtype=getattr(L, dtype), device=d)
        if form == "fill_":
            return x.fill_(value)
        if form == "index_fill":
            return x.index_fill(1, L.tensor([0, 2], device=d), value)
        return getattr(x, form)(mask, value)
    assert_matches_pytorch(case, device)


# masked_fill broadcasts self and mask first; masked_fill_ checks the value's dims, the mask's dtype, that the mask
# fits self, then converts the value
MASKS = {"bool_2x3": lambda L, d: L.ones(2, 3, dtype=L.bool, device=d),
         "float_2x3": lambda L, d: L.ones(2, 3, device=d),
         "bool_4": lambda L, d: L.ones(4, dtype=L.bool, device=d),
         "float_4": lambda L, d: L.ones(4, device=d),
         "bool_2x1x3": lambda L, d: L.ones(2, 1, 3, dtype=L.bool, device=d),
         "uint8_3": lambda L, d: L.ones(3, dtype=L.uint8, device=d)}
VALUES = {"float": lambda L, d: 1.0, "vector": lambda L, d: L.ones(2, device=d), "complex": lambda L, d: 1j,
          "huge": lambda L, d: 2 ** 63, "0d_complex": lambda L, d: L.tensor(1j, device=d),
          "0d_float64": lambda L, d: L.tensor(2.0, dtype=L.float64, device=d)}
SELVES = {"f32_2x3": lambda L, d: L.zeros(2, 3, device=d), "empty_0x3": lambda L, d: L.zeros(0, 3, device=d),
          "scalar": lambda L, d: L.tensor(0.0, device=d), "u8_2x3": lambda L, d: L.zeros(2, 3, dtype=L.uint8, device=d)}


@pytest.mark.parametrize("form", ["masked_fill", "masked_fill_"])
@pytest.mark.parametrize("self_name", sorted(SELVES))
@pytest.mark.parametrize("mask", sorted(MASKS))
@pytest.mark.parametrize("value", sorted(VALUES))
def test_masked_fill_order_of_checks(form, self_name, mask, value, device):
    def case(L, d):
        return getattr(SELVES[self_name](L, d), form)(MASKS[mask](L, d), VALUES[value](L, d))
    assert_matches_pytorch(case, device)


def test_complex_bound_names_the_device_kernel(device):
    """The kernel's name carries the device, as PyTorch's kernels are named ("maximum_cuda" on a GPU)."""
    x = tandem.ones(2, 3, device=device)
    kernel = "cpu" if device == "cpu" else "cuda"
    with pytest.raises(NotImplementedError, match=f"^\"maximum_{kernel}\" not implemented for 'ComplexFloat'"):
        tandem.clamp(x, x.to(tandem.complex64))
    with pytest.raises(NotImplementedError, match=f"^\"clamp_{kernel}\" not implemented for 'ComplexDouble'"):
        tandem.clamp(x.double(), x, x.to(tandem.complex64))
