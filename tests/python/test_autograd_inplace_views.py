"""In-place writes through views of tensors that need grad: gradients must match PyTorch's (CopySlices and
view replay), whichever view is written and whichever view is read afterwards."""
import pytest
import torch

import tandem


def _views_of_b(L):
    """(name, make_view(b)) for views of a 3x4 tensor b, including views of views."""
    return [
        ("row", lambda b: b[1]),
        ("col", lambda b: b[:, 2]),
        ("t_row", lambda b: b.t()[1]),
        ("t_row_of_t", lambda b: b.t().t()[2]),
        ("slice_step", lambda b: b[::2, 1::2]),
        ("narrow_then_select", lambda b: b[1:][0]),
        ("flat", lambda b: b.view(12)[3:7]),
        ("whole_t", lambda b: b.t()),
        ("unsqueeze", lambda b: b.unsqueeze(0)[0, 2]),
    ]


WRITES = {
    "mul_": lambda v, w: v.mul_(3),
    "add_tensor": lambda v, w: v.add_(w[0, 0] * 5),
    "copy_": lambda v, w: v.copy_((w[0, 0] * 7).expand(v.shape)),
    "fill_": lambda v, w: v.fill_(2.5),
    "clamp_": lambda v, w: v.clamp_(min=3.0),
}

READS = {
    "base": lambda b, keep: b,
    "earlier_t": lambda b, keep: keep,  # a view taken before the write, read after it
    "square": lambda b, keep: b * b,
}


@pytest.mark.parametrize("read", sorted(READS))
@pytest.mark.parametrize("write", sorted(WRITES))
@pytest.mark.parametrize("view", [n for n, _ in _views_of_b(torch)])
def test_inplace_write_through_a_view_matches_pytorch(view, write, read, device):
    results = []
    for L, dev in ((torch, "cpu"), (tandem, device)):
        make = dict(_views_of_b(L))[view]
        w = L.arange(1.0, 13.0, dtype=L.float64).reshape(3, 4).to(dev).requires_grad_()
        b = w * 2
        keep = b.t()
        WRITES[write](make(b), w)
        out = READS[read](b, keep)
        (out * L.arange(out.numel(), dtype=L.float64).to(dev).reshape(out.shape)).sum().backward()
        results.append(w.grad.tolist())
    assert results[1] == results[0]


def test_a_view_taken_before_its_base_changed_replays_the_base():
    for L in (torch, tandem):
        w = L.ones(3, 3, requires_grad=True)
        a = w * 2
        b = a[1]
        a.mul_(2)
        b.sum().backward()
        assert w.grad.tolist() == [[0.0] * 3, [4.0] * 3, [0.0] * 3]
        assert b.grad_fn.name() == "AsStridedBackward0"


def test_second_order_through_an_inplace_view_write():
    grads = []
    for L in (torch, tandem):
        w = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
        a = w * w
        a[0].mul_(w[1, 1])
        (g,) = L.autograd.grad(a.sum(), w, create_graph=True)
        (g * g).sum().backward()
        grads.append(w.grad.tolist())
    assert grads[1] == grads[0]
