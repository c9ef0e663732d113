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


# retain_grad() follows the tensor across in-place writes (PyTorch moves it to the new grad_fn): y.grad is the
# gradient of y's value after the write, whether y itself, a view of it, or its base was written. as_strided_ is not
# a write: the retained gradient stays that of y's old geometry, as PyTorch's.
RETAIN_CASES = {
    "self_written": lambda L, y: (y.retain_grad(), y.mul_(2), y)[2],
    "retained_twice": lambda L, y: (y.retain_grad(), y.add_(1), y.retain_grad(), y.mul_(2), y)[4],
    "view_of_it_written": lambda L, y: (y.retain_grad(), y[0].mul_(3), y)[2],
    "view_retained_base_written": lambda L, y: (lambda v: (v.retain_grad(), y.mul_(5), v)[2])(y[1]),
    "as_strided_": lambda L, y: (y.retain_grad(), y.as_strided_((3,), (1,)), y)[2],
    "written_twice_through_views": lambda L, y: (y.retain_grad(), y[0].mul_(3), y[1].add_(y[0]), y)[3],
}


@pytest.mark.parametrize("case", sorted(RETAIN_CASES))
def test_retain_grad_follows_inplace_writes(case, device):
    results = []
    for L, d in ((torch, "cpu"), (tandem, device)):
        x = L.arange(6.0, dtype=L.float64, device=d).reshape(2, 3).requires_grad_()
        retained = RETAIN_CASES[case](L, x * 1)
        w = L.arange(1.0, retained.numel() + 1, dtype=L.float64, device=d).reshape(retained.shape)
        (retained * w).sum().backward()
        results.append((retained.grad.tolist(), x.grad.tolist(), str(retained.grad.device)))
    assert results[0][:2] == results[1][:2] and results[1][2] == device


@pytest.mark.parametrize("op", ["mul", "pow", "exp_then_mul"])
def test_backward_through_a_saved_tensor_detached_in_place_is_refused(op, device):
    """As PyTorch: an input with history that a node saved, cut from the graph by detach_(), cannot be used."""
    x = tandem.arange(1.0, 4.0, device=device).requires_grad_()
    y = x * 2
    z = {"mul": lambda: y * y, "pow": lambda: y ** 3, "exp_then_mul": lambda: y.exp() * y}[op]()
    y.detach_()
    assert y.grad_fn is None and not y.requires_grad
    with pytest.raises(RuntimeError, match=r"^Trying to use a saved tensor that has been detached in-place, i\.e\. "
                       r"with \.detach_\(\)\.This is not supported, please use out-of-place `\.detach\(\)` "
                       r"instead\nhint: \w+Backward0 saved this tensor"):
        z.sum().backward()
    # Saved outputs, leaves and out-of-place detach() are unaffected.
    x.grad = None
    y = x * 2
    z = y.exp()  # saves its output
    z2 = (y * x)  # saves y and x
    y.detach()
    (z.sum() + z2.sum()).backward()
    ref = torch.arange(1.0, 4.0).requires_grad_()
    ry = ref * 2
    (ry.exp().sum() + (ry * ref).sum()).backward()
    assert x.grad.tolist() == ref.grad.tolist()


# A leaf whose shape changes under no_grad after the graph used it: PyTorch's AccumulateGrad copies the first
# gradient into the leaf's current shape (broadcast, or copy_'s size error); a later one is added in place.
RESHAPED_LEAF = {
    "t_": lambda L, x: x.t_(),
    "unsqueeze_": lambda L, x: x.unsqueeze_(0),
    "data_other_shape": lambda L, x: setattr(x, "data", L.zeros(5, dtype=x.dtype, device=x.device)),
    "data_broadcastable": lambda L, x: setattr(x, "data", L.zeros(2, 3, 4, dtype=x.dtype, device=x.device)),
    "data_same_shape": lambda L, x: setattr(x, "data", L.zeros(3, 4, dtype=x.dtype, device=x.device)),
    "data_transposed_layout": lambda L, x: setattr(x, "data", L.zeros(4, 3, dtype=x.dtype, device=x.device).t()),
}


def _outcome(fn):
    try:
        return ("value", fn())
    except RuntimeError as e:
        return ("error", str(e).split("\nhint:")[0])


@pytest.mark.parametrize("change", sorted(RESHAPED_LEAF))
@pytest.mark.parametrize("twice", [False, True])
def test_leaf_reshaped_under_no_grad_gets_pytorchs_gradient(change, twice, device):
    results = []
    for L, d in ((torch, "cpu"), (tandem, device)):
        x = L.arange(12.0, dtype=L.float64, device=d).reshape(3, 4).requires_grad_()
        w = L.arange(1.0, 13.0, dtype=L.float64, device=d).reshape(3, 4)
        y = x * w
        if twice:
            (x * 2.0).sum().backward()  # a first gradient of the old shape is already there
        with L.no_grad():
            RESHAPED_LEAF[change](L, x)

        def run():
            y.sum().backward()
            return (x.grad.tolist(), tuple(x.grad.shape), x.grad.stride(), str(x.grad.dtype).split(".")[1])
        results.append(_outcome(run))
    assert results[0] == results[1]
