"""tandem.utils.swap_tensors and the tandem.__future__ switches nn.Module's conversions and load_state_dict read,
checked against PyTorch's behaviour (requirements-dev.txt)."""
import weakref

import pytest

import tandem
from tandem import __future__ as future


@pytest.fixture(autouse=True)
def default_switches():
    yield
    future.set_swap_module_params_on_conversion(False)
    future.set_overwrite_module_params_on_conversion(False)


def test_swap_exchanges_data_class_and_attributes_keeping_identity():
    a = tandem.ones(2)
    b = tandem.nn.Parameter(tandem.zeros(3, dtype=tandem.float64))
    a.note = "a's"
    ids = id(a), id(b)
    tandem.utils.swap_tensors(a, b)
    assert (id(a), id(b)) == ids
    assert type(a) is tandem.nn.Parameter and type(b) is tandem.Tensor
    assert a.dtype == tandem.float64 and a.tolist() == [0.0, 0.0, 0.0] and a.requires_grad
    assert b.dtype == tandem.float32 and b.tolist() == [1.0, 1.0] and not b.requires_grad
    assert b.note == "a's" and not hasattr(a, "note")


def test_swap_refuses_weakrefs_and_shared_tensors_as_pytorch():
    a, b = tandem.ones(2), tandem.zeros(2)
    ref = weakref.ref(a)
    with pytest.raises(RuntimeError, match="^Cannot swap t1 because it has weakref associated with it$"):
        tandem.utils.swap_tensors(a, b)
    with pytest.raises(RuntimeError, match="^Cannot swap t2 because it has weakref associated with it$"):
        tandem.utils.swap_tensors(b, a)
    del ref
    x = tandem.ones(3, requires_grad=True)
    y = x * x  # the graph saved x: a second holder of its implementation besides the gradient accumulator
    with pytest.raises(RuntimeError, match="^Expected use_count of t1 to be 1 or 2 with an AccumulateGrad node "
                                           "but got 4 make sure you are not holding references"):
        tandem.utils.swap_tensors(x, tandem.zeros(3))
    del y
    tandem.utils.swap_tensors(x, b)
    assert x.tolist() == [0.0, 0.0] and b.tolist() == [1.0, 1.0, 1.0] and b.requires_grad


def test_swap_refuses_different_slots():
    class Slotted(tandem.Tensor):
        __slots__ = ("extra",)

    plain = tandem.ones(1)
    slotted = tandem.zeros(1).as_subclass(Slotted)
    with pytest.raises(RuntimeError, match="^Cannot swap t1 and t2 if they have different slots$"):
        tandem.utils.swap_tensors(plain, slotted)


def _trained_linear():
    tandem.manual_seed(0)
    model = tandem.nn.Linear(3, 2)
    model(tandem.ones(1, 3)).sum().backward()
    return model


@pytest.mark.parametrize("mode", ["default", "swap"])
def test_conversion_keeps_parameter_objects_so_optimizers_follow(mode):
    future.set_swap_module_params_on_conversion(mode == "swap")
    model = _trained_linear()
    weight = model.weight
    opt = tandem.optim.SGD(model.parameters(), lr=0.5)
    model.double()
    assert model.weight is weight and type(weight) is tandem.nn.Parameter
    assert weight.dtype == tandem.float64 and weight.requires_grad
    assert weight.grad.dtype == tandem.float64 and weight.grad.tolist() == [[1.0] * 3] * 2
    before = weight.detach().clone()
    opt.step()
    assert (before - weight).flatten().tolist() == pytest.approx([0.5] * 6)


def test_overwrite_gives_the_module_new_parameters():
    future.set_overwrite_module_params_on_conversion(True)
    assert future.get_overwrite_module_params_on_conversion() is True
    model = _trained_linear()
    weight = model.weight
    model.double()
    assert model.weight is not weight and type(model.weight) is tandem.nn.Parameter
    assert model.weight.dtype == tandem.float64 and weight.dtype == tandem.float32
    assert model.weight.grad.dtype == tandem.float64 and weight.grad.dtype == tandem.float32
    assert model.weight.flatten().tolist() == pytest.approx(weight.flatten().tolist())


def test_swap_switch_wins_over_overwrite():
    future.set_swap_module_params_on_conversion(True)
    future.set_overwrite_module_params_on_conversion(True)
    model = tandem.nn.Linear(2, 2)
    weight = model.weight
    model.double()
    assert model.weight is weight and weight.dtype == tandem.float64


def test_swap_failure_names_the_parameter():
    future.set_swap_module_params_on_conversion(True)
    model = tandem.nn.Linear(2, 2)
    ref = weakref.ref(model.weight)
    with pytest.raises(RuntimeError, match=r"^_apply\(\): Couldn't swap Linear.weight$") as info:
        model.double()
    assert str(info.value.__cause__) == "Cannot swap t1 because it has weakref associated with it"
    assert ref() is model.weight


def test_load_state_dict_swaps_through_module_load():
    future.set_swap_module_params_on_conversion(True)
    assert future.get_swap_module_params_on_conversion() is True
    model = tandem.nn.Linear(3, 2)
    weight = model.weight
    state = {k: v.double() + 1 for k, v in model.state_dict().items()}
    model.load_state_dict(state)  # copy_ into the existing dtype, then swapped in
    assert model.weight is weight and weight.dtype == tandem.float32 and weight.requires_grad
    assert weight.flatten().tolist() == pytest.approx(state["weight"].flatten().tolist())
    model.load_state_dict(state, assign=True)  # the checkpoint's tensor, detached
    assert model.weight is weight and weight.dtype == tandem.float64 and weight.requires_grad
    assert type(weight) is tandem.nn.Parameter


def test_module_load_returning_an_input_is_refused():
    future.set_swap_module_params_on_conversion(True)

    class Returning(tandem.nn.Parameter):
        def module_load(self, other, assign=False):
            return other

    model = tandem.nn.Linear(2, 2)
    model.weight = Returning(model.weight.detach())
    with pytest.raises(RuntimeError, match="module_load returned one of self or other, please .detach"):
        model.load_state_dict({k: v.clone() for k, v in model.state_dict().items()})


def test_module_load_defaults():
    target = tandem.zeros(2)
    source = tandem.ones(2, requires_grad=True)
    copied = target.module_load(source)
    assert copied.tolist() == [1.0, 1.0] and target.tolist() == [1.0, 1.0] and not copied.requires_grad
    assigned = tandem.zeros(2).module_load(source, assign=True)
    assert assigned.tolist() == [1.0, 1.0] and not assigned.requires_grad
