"""Refusals fixed in C++ in session 42, against PyTorch: the argument parser's "received an invalid combination of
arguments" for where and masked_fill (with PyTorch's overload list and "didn't match because" lines, where
nanobind said "incompatible function arguments"), index_put_'s refusal of one uint8 mask with a one-element CPU
value (PyTorch's masked_fill_ dispatch), and in-place writes through a view of a custom Function's view output
(PyTorch's IN_CUSTOM_FUNCTION views)."""
import warnings

import pytest
import torch

import tandem

LIBS = [torch, tandem]


def _dev(m, device):
    return device if m is tandem else "cpu"  # PyTorch here runs on the CPU only


def _outcome(m, device, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uint8 indexing's deprecation warning
        try:
            r = call(m, _dev(m, device))
        except Exception as e:  # noqa: BLE001 - the comparison is the point
            return type(e).__name__, str(e).split("\nhint:")[0]
    return "ok", r.tolist() if isinstance(r, m.Tensor) else r


def _x(m, d):
    return m.arange(12.0, device=d).reshape(3, 4)


def _mask(m, d):
    return (m.arange(12, device=d).reshape(3, 4) % 3) == 0


PARSER_CALLS = {
    "where_two_args": lambda m, d: m.where(_mask(m, d), _x(m, d)),
    "where_input_none": lambda m, d: m.where(_mask(m, d), None, _x(m, d)),
    "where_other_none": lambda m, d: m.where(_mask(m, d), _x(m, d), None),
    "where_input_str": lambda m, d: m.where(_mask(m, d), "a", _x(m, d)),
    "where_both_numbers": lambda m, d: m.where(_mask(m, d), 1.5, 0),
    "where_number_and_tensor": lambda m, d: m.where(_mask(m, d), 2, _x(m, d)),
    "masked_fill_str": lambda m, d: _x(m, d).masked_fill(_mask(m, d), "7"),
    "masked_fill_none": lambda m, d: _x(m, d).masked_fill(_mask(m, d), None),
    "masked_fill_inplace_none": lambda m, d: _x(m, d).masked_fill_(_mask(m, d), None),
    "masked_fill_function_str": lambda m, d: m.masked_fill(_x(m, d), _mask(m, d), "7"),
    "masked_fill_number": lambda m, d: _x(m, d).masked_fill(_mask(m, d), 7),
    "masked_fill_bool_value": lambda m, d: _x(m, d).masked_fill(_mask(m, d), True),
    "masked_fill_0d_tensor": lambda m, d: _x(m, d).masked_fill(_mask(m, d), m.tensor(-1.0)),
}


@pytest.mark.parametrize("call", list(PARSER_CALLS))
def test_parser_refusals_match_pytorch(call, device):
    expected, got = (_outcome(m, device, PARSER_CALLS[call]) for m in LIBS)
    assert got == expected


U8 = "uint8"
PUT_CALLS = {
    "one_value_uint8_mask": lambda m, d: _x(m, d)[:, 0].index_put_((m.tensor([1, 0, 1], dtype=m.uint8, device=d),),
                                                                   m.tensor(5.0)),
    "one_value_uint8_mask_out_of_place": lambda m, d: _x(m, d)[:, 0].index_put(
        (m.tensor([1, 0, 1], dtype=m.uint8, device=d),), m.tensor([5.0])),
    "setitem_uint8_mask": lambda m, d: (lambda t: (t.__setitem__(m.tensor([1, 0, 1], dtype=m.uint8, device=d),
                                                                 5.0), t)[1])(_x(m, d)[:, 0].clone()),
    "accumulate_goes_ahead": lambda m, d: _x(m, d)[:, 0].index_put_(
        (m.tensor([1, 0, 1], dtype=m.uint8, device=d),), m.tensor(5.0), accumulate=True),
    "several_values_go_ahead": lambda m, d: _x(m, d)[:, 0].index_put_(
        (m.tensor([1, 0, 1], dtype=m.uint8, device=d),), m.tensor([5.0, 6.0])),
    "bool_mask_goes_ahead": lambda m, d: _x(m, d)[:, 0].index_put_(
        (m.tensor([True, False, True], device=d),), m.tensor(5.0)),
    "two_indices_go_ahead": lambda m, d: _x(m, d).index_put_(
        (m.tensor([1, 0, 1], dtype=m.uint8, device=d), m.tensor([0, 1], device=d)), m.tensor(5.0)),
}


@pytest.mark.parametrize("call", list(PUT_CALLS))
def test_index_put_through_one_uint8_mask_matches_pytorch(call):
    """Compared on the CPU: PyTorch takes the masked_fill_ route only for a CPU value and a mask on self's device."""
    expected, got = (_outcome(m, "cpu", PUT_CALLS[call]) for m in LIBS)
    assert got == expected


def test_index_put_of_a_device_value_through_a_uint8_mask_goes_ahead(device):
    """On a GPU the 0-dim value is on the device, so the put is not routed through masked_fill_ (as PyTorch's)."""
    if device == "cpu":
        pytest.skip("the CPU case is the refusal above")
    x = tandem.zeros(3, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x.index_put_((tandem.tensor([1, 0, 1], dtype=tandem.uint8, device=device),), tandem.tensor(5.0, device=device))
    assert x.tolist() == [5.0, 0.0, 5.0]


def _window(m):
    class Window(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[..., 1:-1]

        @staticmethod
        def backward(ctx, g):
            return m.nn.functional.pad(g, (1, 1))

    return Window


VIEW_WRITES = {
    "output": lambda m, o: o.mul_(2),
    "view": lambda m, o: o.view(-1).mul_(2),
    "select": lambda m, o: o[0].add_(1),
    "slice_of_select": lambda m, o: o[0][0:1].add_(1),
    "transpose": lambda m, o: o.t().add_(1),
    "view_of_a_computed_value": lambda m, o: o.exp().view(-1).add_(1),
    "under_no_grad": lambda m, o: m.no_grad().__enter__() or o.view(-1).add_(1),
}


@pytest.mark.parametrize("write", list(VIEW_WRITES))
def test_writes_through_views_of_a_custom_functions_view_match_pytorch(write, device):
    def call(m, d):
        x = m.arange(6.0, device=d).view(2, 3).requires_grad_()
        try:
            VIEW_WRITES[write](m, _window(m).apply(x))
        finally:
            m.set_grad_enabled(True)
        return "written"

    expected, got = (_outcome(m, device, call) for m in LIBS)
    assert got == expected
