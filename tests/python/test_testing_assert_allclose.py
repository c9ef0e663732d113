"""testing.assert_allclose, PyTorch's deprecated predecessor of assert_close, against PyTorch: its FutureWarning
(reported at the caller), its tolerance table, equal_nan=True, dtype-agnostic comparison, conversion of
non-tensors, msg, and the errors it passes on from assert_close."""
import warnings

import numpy as np
import pytest
import torch

import tandem

LIBS = [torch, tandem]

WARNING = ("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
           "Please use `torch.testing.assert_close()` instead. You can find detailed upgrade instructions in "
           "https://github.com/pytorch/pytorch/issues/61844.")

CASES = {
    "float32-within": lambda m, d: (m.tensor([1., 2.], device=d), [1., 2.0001], {}),
    "float32-outside": lambda m, d: (m.tensor([1., 2.], device=d), [1., 2.001], {}),
    "nan-equal-by-default": lambda m, d: (m.tensor([1., float("nan")], device=d), [1., float("nan")], {}),
    "nan-unequal": lambda m, d: (m.tensor([1., float("nan")], device=d), [1., float("nan")], {"equal_nan": False}),
    "dtypes-may-differ": lambda m, d: (m.tensor([1, 2], device=d), m.tensor([1., 2.], device=d), {}),
    "python-ints": lambda m, d: (1, 1.4, {}),
    "python-floats": lambda m, d: (1.0, 1.00001, {}),
    "float64-table": lambda m, d: (m.tensor([1., 2.], dtype=m.float64, device=d), [1., 2.00001], {}),
    "float16-table": lambda m, d: (m.tensor([1., 2.], dtype=m.float16, device=d), [1., 2.002], {}),
    "bfloat16-exact": lambda m, d: (m.tensor([1., 2.], dtype=m.bfloat16, device=d), [1., 2.], {}),
    "msg": lambda m, d: (m.tensor([1., 2.], device=d), [1., 3.], {"msg": "custom"}),
    "explicit-tolerances": lambda m, d: (m.tensor([1., 2.], device=d), [1., 3.], {"rtol": 0.5, "atol": 0.}),
    "rtol-without-atol": lambda m, d: (m.tensor([1., 2.], device=d), [1., 3.], {"rtol": 0.5}),
    "numpy-expected": lambda m, d: (m.tensor([1., 2.], device=d), np.array([1., 2.]), {}),
    "shape-mismatch": lambda m, d: (m.tensor([1., 2.], device=d), [1., 2., 3.], {}),
}


def _outcome(m, case, device):
    actual, expected, kwargs = CASES[case](m, device)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            m.testing.assert_allclose(actual, expected, **kwargs)
            result = None
        except Exception as e:  # noqa: BLE001  (the outcome is compared)
            result = (type(e), str(e).replace("torch.", "").replace("tandem.", ""))
    assert [(r.category, str(r.message), r.filename) for r in record] == [(FutureWarning, WARNING, __file__)]
    return result


@pytest.mark.parametrize("case", sorted(CASES))
def test_assert_allclose_matches_pytorch(case):
    assert _outcome(tandem, case, "cpu") == _outcome(torch, case, "cpu")


def test_assert_allclose_on_every_device(device):
    with pytest.warns(FutureWarning):
        tandem.testing.assert_allclose(tandem.tensor([1., 2.], device=device),
                                       tandem.tensor([1., 2.0001], dtype=tandem.float64, device=device))
    if device == "cpu":
        return
    # A non-tensor `expected` becomes a CPU tensor (PyTorch's torch.tensor(expected, dtype=actual.dtype)), and
    # devices are checked: comparing a CUDA tensor with a list fails, as in PyTorch.
    for expected in (tandem.ones(2), [1.0, 1.0]):
        with pytest.warns(FutureWarning), pytest.raises(AssertionError) as err:
            tandem.testing.assert_allclose(tandem.ones(2, device=device), expected)
        assert str(err.value) == f"The values for attribute 'device' do not match: {device} != cpu."


def test_assert_allclose_is_exported():
    for m in LIBS:
        assert callable(m.testing.assert_allclose)
    assert "assert_allclose" in tandem.testing.__all__
