"""Inference tensors against PyTorch: what inference_mode marks (new memory made inside; views and detached
aliases of it; not views of normal tensors), what PyTorch refuses outside the mode (in-place writes and out=,
saving for backward, requires_grad), what it allows (reading, out-of-place ops, clone, numpy), and
inference_mode(False) inside a block."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tandem  # noqa: E402
from hostile_helpers import assert_matches_pytorch  # noqa: E402


def _made_inside(L, d):
    normal = L.ones(3, device=d)
    with L.inference_mode():
        made = L.ones(3, device=d)
        made.add_(1)  # inside the mode in-place writes are fine
        normal.add_(1)
        results = {"made": made, "computed": normal * 2, "view_of_normal": normal[1:], "detach_of_normal":
                   normal.detach(), "clone_of_normal": normal.clone(), "from_list": L.tensor([1.0], device=d),
                   "requires_grad_inside": L.ones(2, device=d).requires_grad_()}
        flags = {"mode": L.is_inference_mode_enabled(), "grad": L.is_grad_enabled()}
        with L.inference_mode(False):
            flags["nested_off"] = [L.is_inference_mode_enabled(), L.is_grad_enabled(), L.ones(1, device=d).is_inference()]
    flags.update({name: t.is_inference() for name, t in results.items()})
    made = results["made"]
    flags.update({"view": made[1:].is_inference(), "detach": made.detach().is_inference(),
                  "data": made.data.is_inference(), "clone": made.clone().is_inference(),
                  "out_of_place": (made * 2).is_inference(), "contiguous": made.contiguous().is_inference(),
                  "to_float64": made.double().is_inference(), "sum": made.sum().item(),
                  "numpy": float(made.cpu().numpy().sum()), "requires_grad_inside":
                  results["requires_grad_inside"].requires_grad, "after": L.is_inference_mode_enabled()})
    return flags


def test_what_inference_mode_marks_matches_pytorch(device):
    assert_matches_pytorch(_made_inside, device)


def _inference(L, d):
    with L.inference_mode():
        return L.arange(3.0, device=d)


OUTSIDE = {
    "add_": lambda L, d: _inference(L, d).add_(1),
    "view_fill_": lambda L, d: _inference(L, d)[0].fill_(1),
    "setitem": lambda L, d: _inference(L, d).__setitem__(0, 5.0),
    "out": lambda L, d: L.add(L.ones(3, device=d), 1, out=_inference(L, d)),
    "copy_": lambda L, d: _inference(L, d).copy_(L.ones(3, device=d)),
    "zero_": lambda L, d: _inference(L, d).zero_(),
    "no_grad_add_": lambda L, d: (lambda t: L.no_grad()(lambda: t.add_(1))())(_inference(L, d)),
    "requires_grad_": lambda L, d: _inference(L, d).requires_grad_(),
    "requires_grad_attr": lambda L, d: setattr(_inference(L, d), "requires_grad", True),
    "requires_grad_false_ok": lambda L, d: _inference(L, d).requires_grad_(False),
    "parameter": lambda L, d: L.nn.Parameter(_inference(L, d)),
    "saved_for_backward": lambda L, d: (L.ones(3, device=d, requires_grad=True) * _inference(L, d)).sum().backward(),
    "not_saved_ok": lambda L, d: (lambda w: ((w + _inference(L, d)).sum().backward(), w.grad)[1])(
        L.ones(3, device=d, requires_grad=True)),
    "clone_then_train_ok": lambda L, d: (lambda w: ((w * _inference(L, d).clone()).sum().backward(), w.grad)[1])(
        L.ones(3, device=d, requires_grad=True)),
    "out_of_place_ok": lambda L, d: _inference(L, d) * 2 + 1,
    "copy_into_normal_ok": lambda L, d: L.zeros(3, device=d).copy_(_inference(L, d)),
    "linear_layer": lambda L, d: L.nn.functional.linear(_inference(L, d), L.ones(2, 3, device=d, requires_grad=True)),
}


@pytest.mark.parametrize("name", sorted(OUTSIDE))
def test_inference_tensors_outside_the_mode_match_pytorch(name, device):
    assert_matches_pytorch(OUTSIDE[name], device)


def test_inference_tensor_keeps_its_values_and_numpy_shares_them():
    with tandem.inference_mode():
        t = tandem.arange(4.0)
        a = t.numpy()
    assert t.is_inference() and a.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert np.shares_memory(a, t.numpy())
    with tandem.inference_mode():
        from_numpy = tandem.from_numpy(np.ones(2))
    assert from_numpy.is_inference() and not tandem.from_numpy(np.ones(2)).is_inference()


def test_inference_mode_decorator_marks_results():
    @tandem.inference_mode()
    def predict(x):
        return x * 2

    out = predict(tandem.ones(2))
    assert out.is_inference() and not out.requires_grad
    with pytest.raises(RuntimeError, match="^Inplace update to inference tensor outside InferenceMode is not allowed"):
        out.mul_(2)
    assert out.tolist() == [2.0, 2.0]
