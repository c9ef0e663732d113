"""F.grouped_mm and tandem.segment_reduce against PyTorch 2.15: values, gradients, dtypes, devices, errors."""
import pytest
import torch
import torch.nn.functional as TF

import tandem
import tandem.nn.functional as F
from oracle import assert_close_to_torch, from_torch, to_torch

I32 = torch.int32


def _pair(x, device, grad=False):
    t = from_torch(x, device)
    return (x.clone().requires_grad_(), t.requires_grad_()) if grad else (x, t)


# ---- grouped_mm ----

GROUPED_CASES = {  # name: (mat_a shape, mat_b shape, offs, the region PyTorch writes (rows/cols it leaves unset))
    "2d_3d": ((10, 8), (3, 8, 16), [3, 6, 8], (slice(0, 8),)),
    "2d_3d_empty_group": ((10, 8), (3, 8, 16), [3, 3, 10], (slice(None),)),
    "3d_2d": ((3, 4, 8), (8, 16), [2, 5, 9], (slice(None), slice(0, 9))),
    "2d_2d": ((8, 16), (16, 8), [3, 6, 8], (slice(None),)),
    "3d_3d": ((3, 4, 8), (3, 8, 16), None, (slice(None),)),
}


@pytest.mark.parametrize("case", GROUPED_CASES)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_grouped_mm_values_and_grads(case, dtype, device):
    a_shape, b_shape, offs, written = GROUPED_CASES[case]
    gen = torch.Generator().manual_seed(0)
    tdt = getattr(torch, dtype)
    a, ta = _pair(torch.randn(a_shape, generator=gen).to(tdt), device, grad=True)
    b, tb = _pair(torch.randn(b_shape, generator=gen).to(tdt), device, grad=True)
    o, to = (None, None) if offs is None else _pair(torch.tensor(offs, dtype=I32), device)
    want = TF.grouped_mm(a, b, offs=o)
    got = F.grouped_mm(ta, tb, offs=to)
    tol = dict(atol=1e-4, rtol=1e-4) if dtype == "float32" else dict(atol=0.1, rtol=0.02)
    assert got.dtype == getattr(tandem, dtype) and tuple(got.shape) == tuple(want.shape)
    assert got.device == tandem.device(device)
    torch.testing.assert_close(to_torch(got.detach().cpu())[written], want.detach()[written], **tol)
    # PyTorch's backward wants a dense gradient; zero it where PyTorch leaves the output unset
    grad = torch.zeros(want.shape, dtype=tdt)
    grad[written] = torch.randn(want.shape, generator=gen).to(tdt)[written]
    want.backward(grad)
    got.backward(from_torch(grad, device))
    # rows/cols of an operand that no group reads get no gradient in tandem (PyTorch leaves them unset)
    for t_grad, p_grad, mat in ((ta.grad, a.grad, a), (tb.grad, b.grad, b)):
        region = _read_region(case, mat is a, mat.shape, offs)
        torch.testing.assert_close(to_torch(t_grad.cpu())[region], p_grad[region], **tol)


def _read_region(case, is_a, shape, offs):
    if case == "2d_3d" and is_a:
        return (slice(0, offs[-1]),)
    if case == "3d_2d" and not is_a:
        return (slice(None), slice(0, offs[-1]))
    if case == "2d_2d":
        return (slice(None), slice(0, offs[-1])) if is_a else (slice(0, offs[-1]),)
    return (slice(None),)


def test_grouped_mm_unwritten_rows_are_zero(device):
    a = tandem.ones(10, 8, device=device)
    b = tandem.ones(2, 8, 8, device=device)
    out = F.grouped_mm(a, b, offs=tandem.tensor([3, 6], dtype=tandem.int32, device=device))
    assert out[6:].abs().sum().item() == 0 and out[:6].min().item() == 8


def test_grouped_mm_overlapping_offsets_follow_pytorchs_loop():
    """Decreasing and negative offsets cut slices as PyTorch's loop does; a later group overwrites an earlier."""
    gen = torch.Generator().manual_seed(1)
    a, b = torch.randn(10, 8, generator=gen), torch.randn(3, 8, 16, generator=gen)
    for offs in ([3, 1, 8], [-3, 6, 8], [3, 6, 14]):
        want = TF.grouped_mm(a, b, offs=torch.tensor(offs, dtype=I32))
        got = F.grouped_mm(from_torch(a), from_torch(b), offs=tandem.tensor(offs, dtype=tandem.int32))
        end = min(max(o % 10 if o < 0 else o for o in offs), 10)
        torch.testing.assert_close(to_torch(got)[:end], want[:end], atol=1e-5, rtol=1e-5)


def test_grouped_mm_column_major_operand():
    gen = torch.Generator().manual_seed(2)
    a, w = torch.randn(10, 8, generator=gen), torch.randn(3, 16, 8, generator=gen)
    offs = torch.tensor([3, 6, 10], dtype=I32)
    want = TF.grouped_mm(a, w.transpose(-2, -1), offs=offs)
    got = F.grouped_mm(from_torch(a), from_torch(w).transpose(-2, -1), offs=from_torch(offs))
    assert_close_to_torch(got, want, atol=1e-5, rtol=1e-5)


BF = torch.bfloat16
GROUPED_ERRORS = {
    "double": lambda: ((torch.randn(8, 8, dtype=torch.double), torch.randn(3, 8, 8)), {}),
    "int_b": lambda: ((torch.randn(8), torch.ones(3, 8, 8, dtype=torch.int32)), {}),
    "mixed": lambda: ((torch.randn(8, 8, dtype=BF), torch.randn(3, 8, 8)), {}),
    "1d": lambda: ((torch.randn(8), torch.randn(3, 8, 8)), {"offs": torch.tensor([1], dtype=I32)}),
    "4d_b": lambda: ((torch.randn(8, 8), torch.randn(1, 3, 8, 8)), {"offs": torch.tensor([1], dtype=I32)}),
    "contraction": lambda: ((torch.randn(8, 12), torch.randn(3, 8, 8)), {"offs": torch.tensor([1], dtype=I32)}),
    "unaligned": lambda: ((torch.randn(8, 6), torch.randn(3, 6, 8)), {"offs": torch.tensor([1], dtype=I32)}),
    "strided": lambda: ((torch.randn(8, 16)[:, ::2], torch.randn(3, 8, 8)), {"offs": torch.tensor([1], dtype=I32)}),
    "no_offs": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)), {}),
    "offs_3d_3d": lambda: ((torch.randn(3, 4, 8), torch.randn(3, 8, 8)), {"offs": torch.tensor([1], dtype=I32)}),
    "offs_2d": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)), {"offs": torch.tensor([[1]], dtype=I32)}),
    "offs_int64": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)), {"offs": torch.tensor([1, 2, 3])}),
    "bias": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)),
                     {"offs": torch.tensor([1, 2, 3], dtype=I32), "bias": torch.randn(8)}),
    "out_dtype": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)),
                          {"offs": torch.tensor([1, 2, 3], dtype=I32), "out_dtype": torch.float16}),
    "groups": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)), {"offs": torch.tensor([1, 2], dtype=I32)}),
    "groups_3d_2d": lambda: ((torch.randn(2, 4, 8), torch.randn(8, 8)), {"offs": torch.tensor([1, 2, 3], dtype=I32)}),
    "batch": lambda: ((torch.randn(2, 4, 8), torch.randn(3, 8, 8)), {}),
    "not_tensor_a": lambda: ((1, torch.randn(3, 8, 8)), {}),
    "not_tensor_b": lambda: ((torch.randn(8, 8), [1.0]), {}),
    "not_tensor_offs": lambda: ((torch.randn(8, 8), torch.randn(3, 8, 8)), {"offs": [1, 2, 3]}),
}


def _to_tandem_args(args, kwargs, device="cpu"):
    conv = (lambda v: from_torch(v, device) if isinstance(v, torch.Tensor)
            else getattr(tandem, str(v).split(".")[-1]) if isinstance(v, torch.dtype) else v)
    return [conv(v) for v in args], {k: conv(v) for k, v in kwargs.items()}


def _strided_like(x, t):
    """A tandem view with x's strides when x is a non-contiguous view of a wider tensor (here: every other column)."""
    if x.is_contiguous():
        return t
    return from_torch(x._base).to(t.device)[:, ::2]


@pytest.mark.parametrize("case", GROUPED_ERRORS)
def test_grouped_mm_errors_match_pytorch(case, device):
    args, kwargs = GROUPED_ERRORS[case]()
    with pytest.raises(Exception) as want:
        TF.grouped_mm(*args, **kwargs)
    targs, tkwargs = _to_tandem_args(args, kwargs, device)
    targs = [_strided_like(x, t) if isinstance(x, torch.Tensor) else t for x, t in zip(args, targs)]
    with pytest.raises(type(want.value)) as got:
        F.grouped_mm(*targs, **tkwargs)
    assert str(got.value) == str(want.value)


def test_grouped_mm_exported():
    assert "grouped_mm" in F.__all__ and F.grouped_mm is tandem.nn.functional.grouped_mm


# ---- segment_reduce ----

REDUCTIONS = ["sum", "mean", "max", "min", "prod", "amax", "amin"]


def _segment_data(gen):
    d = torch.randn(7, 3, generator=gen).round(decimals=1)
    d[1, 0] = d[0, 0]  # a tie for max/min
    d[4, 1] = 0.0  # a zero for prod's gradient
    return d


@pytest.mark.parametrize("reduce", REDUCTIONS)
@pytest.mark.parametrize("initial", [None, 0.5])
@pytest.mark.parametrize("form", ["lengths", "offsets"])
def test_segment_reduce_values_and_grads(reduce, initial, form, device):
    gen = torch.Generator().manual_seed(3)
    data = _segment_data(gen)
    lengths = torch.tensor([2, 0, 4, 1])
    bounds = {"lengths": lengths} if form == "lengths" else {"offsets": torch.tensor([0, 2, 2, 6, 7])}
    d, td = _pair(data, device, grad=True)
    want = torch.segment_reduce(d, reduce, initial=initial, **bounds)
    got = tandem.segment_reduce(td, reduce, initial=initial, **{k: from_torch(v, device) for k, v in bounds.items()})
    assert_close_to_torch(got.detach().cpu(), want.detach(), atol=1e-5, rtol=1e-5)
    assert got.device == tandem.device(device)
    grad = torch.rand(want.shape, generator=gen) + 0.5  # positive: PyTorch averages only positive tied gradients
    want.backward(grad)
    got.backward(from_torch(grad, device))
    assert_close_to_torch(td.grad.cpu(), d.grad, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "prod"])
def test_segment_reduce_dtypes(dtype, reduce, device):
    data = torch.arange(1.0, 13.0).reshape(6, 2).div(4).to(getattr(torch, dtype))
    lengths = torch.tensor([3, 0, 3], dtype=torch.int32)
    want = torch.segment_reduce(data, reduce, lengths=lengths)
    got = tandem.segment_reduce(from_torch(data, device), reduce, lengths=from_torch(lengths, device))
    assert_close_to_torch(got.cpu(), want, atol=1e-2, rtol=1e-2)


def test_segment_reduce_inner_axis_and_nan(device):
    gen = torch.Generator().manual_seed(4)
    data = torch.randn(2, 5, 3, generator=gen)
    data[1, 2, 0] = float("nan")
    lengths = torch.tensor([[2, 3], [1, 4]])
    for reduce in ("sum", "max", "min", "mean"):
        for axis in (1, -2):
            d, td = _pair(data, device, grad=True)
            want = torch.segment_reduce(d, reduce, lengths=lengths, axis=axis)
            got = tandem.segment_reduce(td, reduce, lengths=from_torch(lengths, device), axis=axis)
            assert_close_to_torch(got.detach().cpu(), want.detach())
    offsets = torch.tensor([[0, 2, 5], [1, 1, 5]])
    want = torch.segment_reduce(data, "sum", offsets=offsets, axis=1)
    assert_close_to_torch(tandem.segment_reduce(from_torch(data, device), "sum", offsets=from_torch(offsets, device),
                                                axis=1).cpu(), want)


def test_segment_reduce_unsafe_and_partial_offsets():
    data = torch.arange(12.0).reshape(6, 2)
    for kwargs in ({"lengths": torch.tensor([2, 2]), "unsafe": True}, {"offsets": torch.tensor([1, 2, 4])},
                   {"offsets": torch.tensor([0])}, {"lengths": torch.tensor([1, 5]), "offsets": torch.tensor([0, 2, 6])},
                   {"lengths": torch.tensor([], dtype=torch.long), "unsafe": True}):
        want = torch.segment_reduce(data, "sum", **kwargs)
        got = tandem.segment_reduce(from_torch(data), "sum",
                                    **{k: from_torch(v) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()})
        assert_close_to_torch(got, want)


SEGMENT_ERRORS = {
    "none": ("sum", {}),
    "indices": ("sum", {"indices": torch.tensor([0, 0, 1])}),
    "bad_reduce": ("foo", {"lengths": torch.tensor([3.0])}),
    "negative": ("sum", {"lengths": torch.tensor([4, -1])}),
    "negative_unsafe": ("sum", {"lengths": torch.tensor([4, -1]), "unsafe": True}),
    "sum_mismatch": ("sum", {"lengths": torch.tensor([1, 1])}),
    "float_lengths": ("sum", {"lengths": torch.tensor([1.0, 2.0])}),
    "int16_lengths": ("sum", {"lengths": torch.tensor([1, 2], dtype=torch.int16)}),
    "float_offsets": ("sum", {"offsets": torch.tensor([0.0, 3.0])}),
    "decreasing_offsets": ("sum", {"offsets": torch.tensor([0, 2, 1, 3])}),
    "empty_offsets": ("sum", {"offsets": torch.tensor([], dtype=torch.long)}),
    "empty_lengths": ("sum", {"lengths": torch.tensor([], dtype=torch.long)}),
    "axis_not_last": ("sum", {"lengths": torch.tensor([1, 1]), "axis": 1}),
    "axis_range": ("sum", {"lengths": torch.tensor([3]), "axis": 2}),
    "lengths_dims": ("sum", {"lengths": torch.tensor([[[3]]])}),
    "lengths_list": ("sum", {"lengths": [1, 2]}),
    "axis_float": ("sum", {"lengths": torch.tensor([3]), "axis": 1.0}),
    "unsafe_int": ("sum", {"lengths": torch.tensor([3]), "unsafe": 1}),
    "initial_str": ("sum", {"lengths": torch.tensor([3]), "initial": "x"}),
    "reduce_int": (1, {"lengths": torch.tensor([3])}),
}


@pytest.mark.parametrize("case", SEGMENT_ERRORS)
def test_segment_reduce_errors_match_pytorch(case, device):
    reduce, kwargs = SEGMENT_ERRORS[case]
    data = torch.arange(6.0).reshape(3, 2)
    with pytest.raises(Exception) as want:
        torch.segment_reduce(data, reduce, **kwargs)
    tkwargs = {k: from_torch(v, device) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    with pytest.raises(type(want.value)) as got:
        tandem.segment_reduce(from_torch(data, device), reduce, **tkwargs)
    assert str(got.value).split("\nhint:")[0] == str(want.value)


def test_segment_reduce_data_dtype_errors():
    for data in (torch.arange(6).reshape(3, 2), torch.ones(3, 2, dtype=torch.bool)):
        with pytest.raises(NotImplementedError) as want:
            torch.segment_reduce(data, "sum", lengths=torch.tensor([3]))
        with pytest.raises(NotImplementedError) as got:
            tandem.segment_reduce(from_torch(data), "sum", lengths=tandem.tensor([3]))
        assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match=r"argument 'data' \(position 1\) must be Tensor, not list"):
        tandem.segment_reduce([1.0], "sum", lengths=tandem.tensor([1]))
    with pytest.raises(TypeError, match="takes 2 positional arguments"):
        tandem.segment_reduce(tandem.ones(3), "sum", tandem.tensor([3]))


def test_segment_reduce_lengths_shape_and_device_checked():
    with pytest.raises(RuntimeError, match="expected lengths/offsets of shape"):
        tandem.segment_reduce(tandem.ones(2, 3), "sum", lengths=tandem.tensor([[3]]), axis=1)
    with pytest.raises(RuntimeError, match="get_device"):
        tandem.segment_reduce(tandem.ones(3, device="cuda"), "sum", lengths=tandem.tensor([3]))
