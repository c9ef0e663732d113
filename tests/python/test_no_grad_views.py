"""In-place writes through views made while autograd was off (under no_grad or inference_mode, or later from
such a view) are refused with grad mode on when the write would have to be recorded, as PyTorch refuses them
(src/autograd/node.cpp, check_no_grad_view_write): otherwise the base's gradient would silently miss the
write. Every case runs in PyTorch and tandem; outcome (result or error type and message) must match."""
import pytest
import torch

import tandem

LIBS = [torch, tandem]
DEVICES = ["cpu", "cuda:0"]


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001  (the outcome itself is compared)
        return (type(e).__name__, str(e).split("\nhint:")[0])


def nonleaf(lib, *shape):
    return lib.ones(*shape, requires_grad=True).clone()


def under(lib, mode, base, view):
    """view(base) made inside a no_grad (or inference_mode) block; base made before it, outside."""
    with (lib.no_grad() if mode == "no_grad" else lib.inference_mode()):
        return view(base)


CASES = {
    # refused: the base requires grad (a leaf or not), whatever is written
    "nonleaf_base_mul_": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b[0:2]).mul_(2),
    "leaf_base_mul_": lambda lib: under(lib, "no_grad", lib.ones(3, requires_grad=True), lambda b: b[0:2]).mul_(2),
    "fill_": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 3), lambda b: b[0]).fill_(1.0),
    "copy_": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 3), lambda b: b[0]).copy_(lib.ones(3)),
    "zero_": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 3), lambda b: b.t()).zero_(),
    "view_then_add_": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 3), lambda b: b.view(6)).add_(1),
    "unbind": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 3), lambda b: b.unbind(0)[0]).mul_(2),
    "expand": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b.expand(2, 3))[0].mul_(2),
    "as_strided": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b.as_strided((2,), (1,))).mul_(2),
    "unfold": lambda lib: under(lib, "no_grad", nonleaf(lib, 4), lambda b: b.unfold(0, 2, 1))[0].mul_(2),
    "diagonal": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 2), lambda b: b.diagonal()).mul_(2),
    # a view made later from such a view names the op that made it
    "view_of_view_slice": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b[0:2])[0:1].mul_(2),
    "view_of_view_unsqueeze": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b[0:2]).unsqueeze(0).mul_(2),
    "setitem_through_view": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 3), lambda b: b[0]).__setitem__(0, 5.0),
    "diagonal_then_slice": lambda lib: under(lib, "no_grad", nonleaf(lib, 2, 2), lambda b: b.diagonal())[0:1].mul_(2),
    # refused: a plain base, but the value written requires grad (the base would take its history)
    "plain_base_value_with_grad": lambda lib: under(lib, "no_grad", lib.ones(3), lambda b: b[0:2]).add_(
        lib.ones(2, requires_grad=True)),
    "requires_grad_base_value_with_grad": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b[0:2]).add_(
        lib.ones(2, requires_grad=True)),
    # inference mode's own message
    "inference_mode_view": lambda lib: under(lib, "inference", nonleaf(lib, 3), lambda b: b[0:2]).mul_(2),
}

ALLOWED = {
    "plain_base_plain_value": lambda lib: under(lib, "no_grad", lib.ones(3), lambda b: b[0:2]).mul_(2).tolist(),
    "inference_mode_plain_base": lambda lib: under(lib, "inference", lib.ones(3), lambda b: b[0:2]).mul_(2).tolist(),
    "detached_base": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b.detach()[0:2]).mul_(2).tolist(),
    "written_inside_no_grad_too": lambda lib: _written_in_no_grad(lib),
    "dot_data": lambda lib: under(lib, "no_grad", nonleaf(lib, 3), lambda b: b[0:2]).data.mul_(2).tolist(),
    "view_made_with_grad_on": lambda lib: _view_made_with_grad_on(lib),
}


def _written_in_no_grad(lib):
    view = under(lib, "no_grad", nonleaf(lib, 3), lambda b: b[0:2])
    with lib.no_grad():
        view.mul_(2)
    return view.tolist()


def _view_made_with_grad_on(lib):
    base = nonleaf(lib, 3)
    view = base[0:2]
    view.mul_(2)
    base.sum().backward()
    return view.tolist()


@pytest.mark.parametrize("case", CASES)
def test_refused_as_pytorch_refuses(case):
    expected, got = (outcome(lambda: CASES[case](lib)) for lib in LIBS)
    assert expected[0] == "RuntimeError"
    assert got == expected


@pytest.mark.parametrize("case", ALLOWED)
def test_allowed_as_pytorch_allows(case):
    expected, got = (outcome(lambda: ALLOWED[case](lib)) for lib in LIBS)
    assert expected[0] == "ok"
    assert got == expected


def test_the_refusal_leaves_the_base_untouched_and_has_a_hint():
    base = nonleaf(tandem, 3)
    with tandem.no_grad():
        view = base[0:2]
    with pytest.raises(RuntimeError) as info:
        view.mul_(5)
    assert base.tolist() == [1.0, 1.0, 1.0]
    assert "\nhint: make the view outside the no_grad block" in str(info.value)


def test_cuda_views_are_refused_too():
    if not tandem.cuda.is_available():
        pytest.skip("no (emulated) cuda device")
    base = tandem.ones(3, device="cuda:0", requires_grad=True).clone()
    with tandem.no_grad():
        view = base[1:]
    with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
        view.add_(1)


# A reshape that has to copy returns a new tensor (PyTorch's _unsafe_view), not a view: made under no_grad, it
# takes in-place writes of values that require grad afterwards, as PyTorch's does. Its grad_fn is PyTorch's.
@pytest.mark.parametrize("device", DEVICES)
def test_reshape_copy_made_under_no_grad_is_no_view(device):
    for lib, dev in ((torch, "cpu"), (tandem, device)):
        w = lib.ones(2, device=dev, requires_grad=True)
        with lib.no_grad():
            r = lib.arange(12.0, device=dev).reshape(3, 4).t().reshape(-1)
            s = lib.stack([lib.zeros(2, device=dev), lib.ones(2, device=dev)])
        assert r._base is None and s._base is None
        r[0:2] = w * 3
        s[0] = w * 2
        (r.sum() + s.sum()).backward()
        assert w.grad.tolist() == [5.0, 5.0]
        assert r[:4].tolist() == [3.0, 3.0, 8.0, 1.0]
    x = tandem.ones(3, 4, requires_grad=True)
    assert x.t().reshape(-1).grad_fn.name() == "UnsafeViewBackward0"
    assert torch.ones(3, 4, requires_grad=True).t().reshape(-1).grad_fn.name() == "UnsafeViewBackward0"
