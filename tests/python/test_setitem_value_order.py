"""Tensor.__setitem__ against PyTorch over index forms (ints, slices, a negative step, 0-d and 1-d masks, int64
and int32 index tensors, tuples mixing them) and values (numbers, complex, NaN, out-of-range ints, 0-d tensors of
another dtype, objects that are no number): PyTorch reads the value before the index (a list is "can't assign a
list" whatever the index), writes a number through one int64 index or a 0-d mask with index_fill_ (its complex
refusal), and writes a one-element value through one mask with masked_fill_ (converted as a number, so its
dtype need not match). Also complex numbers into bool tensors (true unless 0, no warning), as PyTorch."""
import warnings

import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import assert_matches_pytorch  # noqa: E402

import tandem  # noqa: E402

INDEXES = {
    "int": lambda L, d: 0, "int_past": lambda L, d: 10, "false": lambda L, d: False, "true": lambda L, d: True,
    "ellipsis": lambda L, d: ..., "none": lambda L, d: None, "step_negative": lambda L, d: slice(None, None, -1),
    "row_step_negative": lambda L, d: (0, slice(None, None, -1)),
    "mask_0d_true": lambda L, d: L.tensor(True, device=d), "mask_0d_false": lambda L, d: L.tensor(False, device=d),
    "uint8_0d": lambda L, d: L.tensor(1, dtype=L.uint8, device=d),
    "mask_0d_then_slice": lambda L, d: (L.tensor(True, device=d), slice(None)),
    "slice_then_mask_0d": lambda L, d: (slice(None), L.tensor(True, device=d)),
    "two_masks_0d": lambda L, d: (L.tensor(True, device=d), L.tensor(True, device=d)),
    "mask_0d_and_long": lambda L, d: (L.tensor(True, device=d), L.tensor([0], device=d)),
    "long_1d": lambda L, d: L.tensor([0, 1], device=d), "long_2d": lambda L, d: L.tensor([[0]], device=d),
    "int32_1d": lambda L, d: L.tensor([0], dtype=L.int32, device=d),
    "two_longs": lambda L, d: (L.tensor([0], device=d), L.tensor([1], device=d)),
    "slice_long": lambda L, d: (slice(None), L.tensor([1], device=d)),
    "mask_rows": lambda L, d: L.tensor([True, False], device=d),
    "mask_whole": lambda L, d: L.tensor([[True, False, True]] * 2, device=d),
    "mask_rows_then_slice": lambda L, d: (L.tensor([True, False], device=d), slice(None)),
    "uint8_rows": lambda L, d: L.tensor([1, 0], dtype=L.uint8, device=d),
}
VALUES = {
    "str": lambda L, d: "s", "none": lambda L, d: None, "list": lambda L, d: [1], "object": lambda L, d: object(),
    "huge_int": lambda L, d: 2 ** 70, "complex": lambda L, d: 1 + 2j, "nan": lambda L, d: float("nan"),
    "three": lambda L, d: 3, "float_0d": lambda L, d: L.tensor(3.5), "complex_0d": lambda L, d: L.tensor(2j),
    "int_1": lambda L, d: L.tensor([7]),
}


def _case(index, value, dtype):
    def case(L, d):
        x = L.zeros((2, 3), dtype=getattr(L, dtype), device=d)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # uint8 masks' deprecation
            x[INDEXES[index](L, d)] = VALUES[value](L, d)
        return x
    return case


CASES = {f"{dtype}/{index}/{value}": _case(index, value, dtype)
         for dtype in ("float32", "int64", "bool") for index in INDEXES for value in VALUES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_setitem_matches_pytorch(name, device):
    assert_matches_pytorch(CASES[name], device)


@pytest.mark.parametrize("make", [
    lambda L: L.zeros(3, dtype=L.bool).fill_(2j),
    lambda L: L.zeros(3, dtype=L.bool).masked_fill(L.tensor([True, False, True]), 2j),
    lambda L: L.full((2,), 2j, dtype=L.bool),
    lambda L: L.full((2,), 0j, dtype=L.bool),
    lambda L: L.tensor([2j, 0j]).bool(),
    lambda L: L.zeros(2, dtype=L.bool).copy_(L.tensor([0j, 1e-30j])),
])
def test_complex_into_bool_is_nonzero_without_warning(make):
    expected = make(torch).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch's copy warns for real targets only
        got = make(tandem)
    assert got.dtype == tandem.bool and got.tolist() == expected


def test_complex_into_float_still_warns():
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        assert tandem.tensor([1 + 2j]).float().tolist() == [1.0]


def test_masked_put_converts_a_one_element_value():
    """index_put_ of a one-element CPU value through one mask is masked_fill_ in PyTorch: dtypes need not match;
    through an int64 index they must."""
    x = tandem.zeros(2, 3, dtype=tandem.int64)
    x.index_put_((tandem.tensor([True, False]),), tandem.tensor(3.7))
    assert x.tolist() == [[3, 3, 3], [0, 0, 0]] and x.dtype == tandem.int64
    with pytest.raises(RuntimeError, match="^Index put requires the source and destination dtypes match, got Long "
                                           "for the destination and Float for the source."):
        x.index_put_((tandem.tensor([0]),), tandem.tensor(3.7))


@pytest.mark.parametrize("shape, mask_shape", [((4, 5), (4, 5)), ((4, 5, 3), (4, 5)), ((4, 5, 3), (4,)),
                                               ((4, 5), (5,)), ((0, 3), (0, 3))])
@pytest.mark.parametrize("value", [2.5, "0d", "0d_int", 1 + 0j])
def test_mask_fill_shortcut_matches_pytorch(shape, mask_shape, value, device):
    """x[mask] = number with one bool mask (setitem's masked_fill_ shortcut, no nonzero() expansion): the values
    PyTorch writes, over leading dims, with trailing dims, a wrong-size mask (PyTorch's IndexError), empty."""
    def case(L, d):
        g = torch.Generator().manual_seed(len(shape) * 10 + len(mask_shape))
        x = L.tensor(torch.randn(shape, generator=g).tolist(), device=d)
        mask = L.tensor((torch.rand(mask_shape, generator=g) > 0.5).tolist(), dtype=L.bool, device=d)
        v = {"0d": L.tensor(-1.0), "0d_int": L.tensor(7)}.get(value, value) if isinstance(value, str) else value
        x[mask] = v
        return x
    assert_matches_pytorch(case, device)


def test_mask_fill_shortcut_keeps_history_and_warnings(device):
    """A number written through a mask is PyTorch's masked_fill_ (MaskedFillBackward0; through a view, the base's
    history and AsStridedBackward0); a tensor value with history goes through index_put_ (IndexPutBackward0, the
    value's gradient); an expanded tensor warns as PyTorch's masked_fill_."""
    mask = tandem.tensor([True, False, True], device=device)
    x = tandem.ones(3, requires_grad=True, device=device)
    y = x * 2
    y[mask] = 0.0
    assert y.grad_fn.name() == "MaskedFillBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 2.0, 0.0]
    v = tandem.tensor(5.0, requires_grad=True, device=device)
    y = x * 2
    y[mask] = v
    assert y.grad_fn.name() == "IndexPutBackward0"
    y.sum().backward()
    assert v.grad.item() == 2.0
    w = (x * 2).view(3, 1)
    w[mask] = 1.0
    assert w.grad_fn.name() == "AsStridedBackward0" and w._base is not None
    e = tandem.zeros(1, device=device).expand(3)
    with pytest.warns(UserWarning, match="masked_fill_"):
        e[tandem.tensor([True, False, False], device=device)] = 1.0
    assert e.tolist() == [1.0, 1.0, 1.0]
