"""tandem.testing.assert_close and make_tensor against torch.testing: the same pass/fail decisions, exception
types and messages (dtype and Size reprs say tandem where PyTorch's say torch), on every device."""
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import tandem

NAN, INF = float("nan"), float("inf")


def outcome(call):
    """(exception type, message) of call(), or None when it passes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except Exception as e:  # noqa: BLE001 - compared as a whole against PyTorch's
            return type(e), str(e)
    return None


def assert_same_outcome(case, device="cpu"):
    want = outcome(lambda: case(torch, "cpu"))
    got = outcome(lambda: case(tandem, device))
    if want is None:
        assert got is None, got
        return
    assert got is not None, f"tandem passed; PyTorch raised {want}"
    assert got[0] is want[0], (got, want)
    # tandem's Tensor class prints as tandem._C.Tensor in a type repr
    assert got[1].replace("tandem._C.", "tandem.") == want[1].replace("torch.", "tandem."), (got[1], want[1])


def t(lib, device, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype)).to(device)


TENSOR_CASES = {
    "close_passes": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0]), t(L, d, [1.0, 2.0 + 1e-6])),
    "two_mismatches": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0, 3.0]), t(L, d, [1.0, 2.5, 3.1])),
    "2d_index": lambda L, d: L.testing.assert_close(t(L, d, [[1.0, 2.0], [3.0, 4.0]]),
                                                    t(L, d, [[1.0, 2.0], [3.0, 5.0]])),
    "0d_scalar_msg": lambda L, d: L.testing.assert_close(t(L, d, 1.0), t(L, d, 2.0)),
    "int_equal_msg": lambda L, d: L.testing.assert_close(t(L, d, [1, 2], "int64"), t(L, d, [1, 3], "int64")),
    "uint8": lambda L, d: L.testing.assert_close(t(L, d, [1, 2], "uint8"), t(L, d, [1, 4], "uint8")),
    "bool": lambda L, d: L.testing.assert_close(t(L, d, [True, False], "bool"), t(L, d, [True, True], "bool")),
    "dtype_mismatch": lambda L, d: L.testing.assert_close(t(L, d, [1, 2], "int64"), t(L, d, [1.0, 2.0])),
    "dtype_unchecked": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0]), t(L, d, [1.0, 2.1], "float64"),
                                                           check_dtype=False),
    "shape_mismatch": lambda L, d: L.testing.assert_close(t(L, d, [1, 2]), t(L, d, [1, 2, 3])),
    "nan_differs": lambda L, d: L.testing.assert_close(t(L, d, [NAN]), t(L, d, [NAN])),
    "nan_equal": lambda L, d: L.testing.assert_close(t(L, d, [NAN, 1.0]), t(L, d, [NAN, 1.0]), equal_nan=True),
    "nan_vs_number": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0]), t(L, d, [1.0, NAN])),
    "inf_equal": lambda L, d: L.testing.assert_close(t(L, d, [INF, -INF]), t(L, d, [INF, -INF])),
    "inf_sign": lambda L, d: L.testing.assert_close(t(L, d, [INF]), t(L, d, [-INF])),
    "expected_zero": lambda L, d: L.testing.assert_close(t(L, d, [0.0, 0.0]), t(L, d, [1e-6, 1e-4])),
    "float16_tolerance": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0], "float16"),
                                                             t(L, d, [1.0, 2.01], "float16")),
    "bfloat16_passes": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0], "bfloat16"),
                                                           t(L, d, [1.0, 2.015], "bfloat16")),
    "float64_tolerance": lambda L, d: L.testing.assert_close(t(L, d, [1.0], "float64"),
                                                             t(L, d, [1.0 + 1e-6], "float64")),
    "rtol_only": lambda L, d: L.testing.assert_close(t(L, d, [1.0]), t(L, d, [1.1]), rtol=0.1),
    "atol_only": lambda L, d: L.testing.assert_close(t(L, d, [1.0]), t(L, d, [1.1]), atol=0.1),
    "explicit_tolerances": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0]), t(L, d, [1.0, 2.1]),
                                                               rtol=0.1, atol=0),
    "zero_tolerances_say_equal": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0]), t(L, d, [1.0, 2.1]),
                                                                     rtol=0, atol=0),
    "msg_string": lambda L, d: L.testing.assert_close(t(L, d, [1.0]), t(L, d, [2.0]), msg="custom"),
    "msg_callable": lambda L, d: L.testing.assert_close(t(L, d, [1.0]), t(L, d, [2.0]),
                                                        msg=lambda m: "Header\n\n" + m),
    "stride_checked": lambda L, d: L.testing.assert_close(L.ones(2, 3).to(d), L.ones(3, 2).to(d).t(),
                                                          check_stride=True),
    "stride_unchecked": lambda L, d: L.testing.assert_close(L.ones(2, 3).to(d), L.ones(3, 2).to(d).t()),
    "requires_grad_ignored": lambda L, d: L.testing.assert_close(t(L, d, [1.0]).requires_grad_(), t(L, d, [1.0])),
    "large_relative": lambda L, d: L.testing.assert_close(t(L, d, [1e10, 1.0]), t(L, d, [2e10, 1.0])),
    "seq_of_tensors": lambda L, d: L.testing.assert_close([t(L, d, [1.0, 2.0])], [t(L, d, [1.0, NAN])]),
    "dict_of_tensors": lambda L, d: L.testing.assert_close({"a": t(L, d, 1.0)}, {"a": t(L, d, 2.0)}),
    "nested": lambda L, d: L.testing.assert_close({"w": [t(L, d, [1.0]), (t(L, d, [2.0]),)]},
                                                  {"w": [t(L, d, [1.0]), (t(L, d, [2.5]),)]}),
    "tensor_vs_list": lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0]), [1.0, 2.0]),
    "tensor_vs_number": lambda L, d: L.testing.assert_close(1.0, t(L, d, 1.0)),
}


@pytest.mark.parametrize("name", sorted(TENSOR_CASES))
def test_tensor_cases_match_pytorch(name, device):
    assert_same_outcome(TENSOR_CASES[name], device)


PLAIN_CASES = {
    "ints": lambda L: L.testing.assert_close(1, 2),
    "floats": lambda L: L.testing.assert_close(1.0, 1.1),
    "floats_close": lambda L: L.testing.assert_close(1.0, 1.0 + 1e-8),
    "int_vs_float": lambda L: L.testing.assert_close(1, 1.0),
    "complex": lambda L: L.testing.assert_close(1 + 1j, 1 + 2j),
    "float_nan": lambda L: L.testing.assert_close(NAN, NAN),
    "float_nan_equal": lambda L: L.testing.assert_close(NAN, NAN, equal_nan=True),
    "float_to_zero": lambda L: L.testing.assert_close(1e-3, 0.0),
    "bools": lambda L: L.testing.assert_close(True, False),
    "none_none": lambda L: L.testing.assert_close(None, None),
    "none_one": lambda L: L.testing.assert_close(None, 1),
    "strings": lambda L: L.testing.assert_close("a", "b"),
    "objects": lambda L: L.testing.assert_close(object, int),
    "list_item": lambda L: L.testing.assert_close([1.0, 2.0], [1.0, 3.0]),
    "tuple_vs_list": lambda L: L.testing.assert_close((1.0, 2.0), [1.0, 2.0]),
    "length": lambda L: L.testing.assert_close([1.0, 2.0], [1.0]),
    "keys": lambda L: L.testing.assert_close({"a": 1}, {"b": 1}),
    "numpy_arrays": lambda L: L.testing.assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.1])),
    "numpy_int_arrays": lambda L: L.testing.assert_close(np.array([1, 2]), np.array([1, 2])),
    "numpy_scalars": lambda L: L.testing.assert_close(np.float64(1.0), np.float64(2.0)),
    "numpy_float32_scalar": lambda L: L.testing.assert_close(np.float32(1.0), 1.0),
    "numpy_bools": lambda L: L.testing.assert_close(np.bool_(True), False),
    "number_rtol_only": lambda L: L.testing.assert_close(1.0, 1.0, rtol=0.1),
}


@pytest.mark.parametrize("name", sorted(PLAIN_CASES))
def test_plain_cases_match_pytorch(name):
    assert_same_outcome(lambda L, d: PLAIN_CASES[name](L))


def test_tensor_vs_numpy_is_refused():
    case = lambda L, d: L.testing.assert_close(t(L, d, [1.0, 2.0], "float64"), np.array([1.0, 2.0]))  # noqa: E731
    assert_same_outcome(case)
    assert outcome(lambda: case(tandem, "cpu"))[0] is TypeError


def test_device_mismatch(device):
    if device == "cpu":
        pytest.skip("needs a second device")
    a, b = tandem.ones(2), tandem.ones(2, device=device)
    with pytest.raises(AssertionError, match=f"^The values for attribute 'device' do not match: cpu != {device}.$"):
        tandem.testing.assert_close(a, b)
    tandem.testing.assert_close(a, b, check_device=False)
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        tandem.testing.assert_close(tandem.tensor([1.0, 5.0]), tandem.tensor([1.0, 2.0], device=device),
                                    check_device=False)


def test_bigger_tensor_report_matches_pytorch(device):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, 6, generator=g)
    y = x.clone()
    y[1, 2, 3] += 1e-3
    y[3, 4, 5] = y[3, 4, 5] * 1.5
    y[0, 0, 0] = 0.0
    case = lambda L, d: L.testing.assert_close(  # noqa: E731
        (x if L is torch else tandem.tensor(x.tolist()).to(d)), (y if L is torch else tandem.tensor(y.tolist()).to(d)))
    assert_same_outcome(case, device)


def test_testing_does_not_import_torch():
    code = ("import sys, tandem, tandem.testing; tandem.testing.assert_close(tandem.ones(2), tandem.ones(2)); "
            "tandem.testing.make_tensor(2, dtype=tandem.float32, device='cpu'); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# make_tensor


@pytest.mark.parametrize("name", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                  "float32", "float64"])
def test_make_tensor_ranges(name, device):
    dtype = getattr(tandem, name)
    x = tandem.testing.make_tensor(50, 40, dtype=dtype, device=device)
    assert x.shape == (50, 40) and x.dtype == dtype and str(x.device) == device
    values = torch.tensor(x.float().tolist())
    if name == "bool":
        assert set(values.unique().tolist()) == {0.0, 1.0}
    elif name == "uint8":  # the default [-9, 10) is clamped to [0, 10)
        assert values.min() >= 0 and values.max() <= 9
    elif name in ("int8", "int16", "int32", "int64"):
        assert values.min() >= -9 and values.max() <= 9 and values.min() < 0 < values.max()
    else:
        assert values.min() >= -9 and values.max() <= 9 and values.std() > 3


def test_make_tensor_low_high_and_flags(device):
    x = tandem.testing.make_tensor((3, 4), dtype=tandem.float64, device=device, low=2, high=3, requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.shape == (3, 4)
    assert 2 <= float(x.min()) and float(x.max()) < 3
    i = tandem.testing.make_tensor([100], dtype=tandem.int64, device=device, low=0, high=2)
    assert set(i.tolist()) == {0, 1}
    n = tandem.testing.make_tensor(3, 4, dtype=tandem.float32, device=device, noncontiguous=True)
    assert n.shape == (3, 4) and not n.is_contiguous()
    z = tandem.testing.make_tensor(200, dtype=tandem.int8, device=device, low=-1, high=2, exclude_zero=True)
    assert 0 not in z.tolist()


MAKE_TENSOR_ERRORS = {
    "low_ge_high": dict(low=3, high=2),
    "nan_low": dict(low=math.nan),
    "outside_dtype": dict(dtype="uint8", low=-20, high=-10),
    "int_requires_grad": dict(dtype="int64", requires_grad=True),
}


@pytest.mark.parametrize("name", sorted(MAKE_TENSOR_ERRORS))
def test_make_tensor_errors_match_pytorch(name):
    kwargs = dict(MAKE_TENSOR_ERRORS[name])
    dtype = kwargs.pop("dtype", "float32")
    assert_same_outcome(lambda L, d: L.testing.make_tensor(3, dtype=getattr(L, dtype), device=d, **kwargs))
