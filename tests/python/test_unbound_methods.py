"""Tensor and device methods called unbound on another object (tandem.Tensor.add_([1], 1)) raise Python's
TypeError for a method descriptor, never crash: the methods that return the very same Python object bind
`self` as a plain handle, which nanobind does not check."""
import pytest

import tandem

CALLS = [
    ("__iadd__", lambda o: tandem.Tensor.__iadd__(o, 1)),
    ("requires_grad_", lambda o: tandem.Tensor.requires_grad_(o)),
    ("detach_", lambda o: tandem.Tensor.detach_(o)),
    ("numpy", lambda o: tandem.Tensor.numpy(o)),
    ("cpu", lambda o: tandem.Tensor.cpu(o)),
    ("cuda", lambda o: tandem.Tensor.cuda(o)),
    ("to", lambda o: tandem.Tensor.to(o, tandem.float64)),
    ("pin_memory", lambda o: tandem.Tensor.pin_memory(o)),
    ("contiguous", lambda o: tandem.Tensor.contiguous(o)),
    ("clone", lambda o: tandem.Tensor.clone(o)),
    ("__iter__", lambda o: tandem.Tensor.__iter__(o)),
    ("__deepcopy__", lambda o: tandem.Tensor.__deepcopy__(o, {})),
    ("conj", lambda o: tandem.Tensor.conj(o)),
    # The in-place methods bound through returning_self (python/src/bindings.h).
    ("add_", lambda o: tandem.Tensor.add_(o, 1)),
    ("mul_", lambda o: tandem.Tensor.mul_(o, 2)),
    ("neg_", lambda o: tandem.Tensor.neg_(o)),
    ("fill_", lambda o: tandem.Tensor.fill_(o, 0)),
    ("zero_", lambda o: tandem.Tensor.zero_(o)),
    ("copy_", lambda o: tandem.Tensor.copy_(o, tandem.ones(2))),
    ("clamp_", lambda o: tandem.Tensor.clamp_(o, 0, 1)),
    ("masked_fill_", lambda o: tandem.Tensor.masked_fill_(o, tandem.ones(2, dtype=tandem.bool), 0)),
    ("uniform_", lambda o: tandem.Tensor.uniform_(o)),
    ("bernoulli_", lambda o: tandem.Tensor.bernoulli_(o, 0.5)),
    ("cumsum_", lambda o: tandem.Tensor.cumsum_(o, 0)),
    ("polygamma_", lambda o: tandem.Tensor.polygamma_(o, 1)),
    ("index_fill_", lambda o: tandem.Tensor.index_fill_(o, 0, tandem.tensor([0]), 1.0)),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[c[0] for c in CALLS])
@pytest.mark.parametrize("other", [[1.0, 2.0], 3, "x"])
def test_tensor_methods_refuse_other_objects(name, call, other):
    with pytest.raises(TypeError, match=rf"^descriptor '{name}' for 'tandem._C.TensorBase' objects doesn't apply "
                                        rf"to a '{type(other).__name__}' object$"):
        call(other)


def test_bound_calls_still_return_self():
    t = tandem.ones(3)
    assert t.sub_(1) is t and t.requires_grad_() is t and t.detach_() is t
    assert t.cpu() is t and t.float() is t


def test_device_methods_refuse_other_objects():
    for name in ("__enter__", "__reduce__"):
        with pytest.raises(TypeError, match=rf"^descriptor '{name}' for 'tandem.device' objects doesn't apply"):
            getattr(tandem.device, name)([1])
    with tandem.device("cpu") as d:
        assert d == tandem.device("cpu")
