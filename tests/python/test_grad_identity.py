"""`.grad` is one Python object per gradient, as in PyTorch: read twice it is the same object, an assigned
gradient is returned as that object (attributes included), and a new gradient (after set_to_none) is a new one.
The cache holding the objects is weak: it keeps no gradient alive."""
import gc
import weakref

import tandem


def trained(device):
    p = tandem.ones(3, device=device, requires_grad=True)
    (p * 2).sum().backward()
    return p


def test_the_same_object_on_every_read(device):
    p = trained(device)
    g = p.grad
    assert p.grad is g and p.grad is p.grad
    g.note = "kept"
    assert p.grad.note == "kept"
    (p * 3).sum().backward()  # accumulates in place: still the same tensor and object
    assert p.grad is g and g.tolist() == [5.0, 5.0, 5.0] and g.device == p.device


def test_an_assigned_gradient_is_returned_as_itself(device):
    p = tandem.zeros(2, device=device, requires_grad=True)
    g = tandem.full((2,), 7.0, device=device)
    p.grad = g
    assert p.grad is g
    p.grad = None
    assert p.grad is None


def test_a_new_gradient_is_a_new_object():
    p = trained("cpu")
    first = p.grad
    p.grad = None
    (p * 2).sum().backward()
    assert p.grad is not first and p.grad is p.grad and first.tolist() == [2.0, 2.0, 2.0]


def test_the_cache_keeps_no_gradient_alive():
    p = trained("cpu")
    g = p.grad
    ref = weakref.ref(g)
    del g
    p.grad = None
    gc.collect()
    assert ref() is None


def test_many_gradients_come_and_go():
    # Every step a new gradient object (zero_grad(set_to_none=True)); the objects die with their gradients.
    p = tandem.ones(4, requires_grad=True)
    refs = []
    for _ in range(300):
        (p * 2).sum().backward()
        refs.append(weakref.ref(p.grad))
        p.grad = None
    gc.collect()
    assert all(r() is None for r in refs)


def test_module_conversion_swaps_a_held_gradient():
    # swap mode swaps .grad too; holding it used to count as a second holder (a new object on every read).
    from tandem import __future__ as future
    future.set_swap_module_params_on_conversion(True)
    try:
        model = tandem.nn.Linear(3, 2)
        model(tandem.ones(1, 3)).sum().backward()
        held = model.weight.grad
        model.double()
        assert model.weight.grad is held and held.dtype == tandem.float64
    finally:
        future.set_swap_module_params_on_conversion(False)


def test_retained_non_leaf_gradient():
    x = tandem.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    assert y.grad is y.grad and y.grad.tolist() == [1.0, 1.0]
