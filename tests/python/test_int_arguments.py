"""Int arguments (dims, sizes, counts) read as PyTorch's argument parser reads them: an int, a NumPy integer or a
0-dim integer tensor is taken; a bool (an int subclass, which nanobind's caster took) is a TypeError; a value
outside int64 is PyTorch's ValueError. python/src/int_caster.h does it for every int64_t binding argument,
int_arg (python/src/tensor.cpp) for the bindings that take a Python object, _dim_args._int for compositions."""
import numpy as np
import pytest
import torch

import tandem

DEVICES = ["cpu", "cuda:0"]

# Calls that PyTorch refuses with a TypeError when a dim, size or count is a bool (tandem ran each of them,
# reading True as 1, before python/src/int_caster.h).
BOOL_AS_INT = {
    "narrow": lambda T, x: x.narrow(True, 0, 1),
    "sort": lambda T, x: x.sort(dim=True),
    "size": lambda T, x: x.size(True),
    "stride": lambda T, x: x.stride(True),
    "transpose": lambda T, x: x.transpose(True, 0),
    "transpose_dim1": lambda T, x: x.transpose(0, True),
    "select": lambda T, x: x.select(True, 0),
    "unsqueeze": lambda T, x: x.unsqueeze(True),
    "split": lambda T, x: x.split(True),
    "split_dim": lambda T, x: x.split(1, True),
    "chunk": lambda T, x: x.chunk(True),
    "index_select": lambda T, x: x.index_select(True, T.tensor([0], device=x.device)),
    "gather": lambda T, x: x.gather(True, T.zeros(2, 1, dtype=T.long, device=x.device)),
    "cat": lambda T, x: T.cat([x, x], True),
    "stack": lambda T, x: T.stack([x, x], True),
    "unbind": lambda T, x: x.unbind(True),
    "diff": lambda T, x: x.diff(dim=True),
    "diff_n": lambda T, x: x.diff(n=True),
    "flatten": lambda T, x: x.flatten(True),
    "unflatten": lambda T, x: x.unflatten(True, (3, 1)),
    "tensor_split": lambda T, x: x.tensor_split(2, True),
    "softmax": lambda T, x: x.softmax(True),
    "cumsum": lambda T, x: x.cumsum(True),
    "kthvalue": lambda T, x: x.kthvalue(True),
    "unfold": lambda T, x: x.unfold(True, 1, 1),
    "randint": lambda T, x: T.randint(True, (2,)),
    "multinomial": lambda T, x: T.multinomial(x.abs() + 1, True),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(BOOL_AS_INT))
def test_a_bool_is_not_an_int_argument(name, device):
    call = BOOL_AS_INT[name]
    with pytest.raises(TypeError):
        call(torch, torch.ones(2, 3))
    with pytest.raises(TypeError):
        call(tandem, tandem.ones(2, 3, device=device))


@pytest.mark.parametrize("device", DEVICES)
def test_int_arguments_name_the_argument_and_the_type(device):
    x = tandem.ones(2, 3, device=device)
    cases = [
        (lambda: x.size(True), "size(): argument 'dim' (position 1) must be int, not bool"),
        (lambda: x.stride(1.0), "stride(): argument 'dim' (position 1) must be int, not float"),
        (lambda: x.transpose(0, True), "transpose(): argument 'dim1' (position 2) must be int, not bool"),
        (lambda: x.split(True), "split(): argument 'split_size' (position 1) must be int, not bool"),
        (lambda: x.kthvalue(tandem.tensor(1.0)), "kthvalue(): argument 'k' (position 1) must be int, not Tensor"),
        (lambda: x.unflatten(True, (3, 1)), "unflatten(): argument 'dim' (position 1) must be int, not bool"),
        (lambda: x.diff(dim=True), "diff(): argument 'dim' must be int, not bool"),
        (lambda: x.softmax(True), "softmax(): argument 'dim' (position 1) must be int, not bool"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value).split("\n")[0] == message
    # PyTorch's own first lines where they are the same
    t = torch.ones(2, 3)
    for call in (lambda x: x.size(True), lambda x: x.transpose(0, True), lambda x: x.kthvalue(x.new_tensor(1.0))):
        with pytest.raises(TypeError) as theirs:
            call(t)
        with pytest.raises(TypeError) as ours:
            call(x)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]


@pytest.mark.parametrize("device", DEVICES)
def test_index_objects_are_int_arguments(device):
    # NumPy integers and 0-dim integer tensors go through __index__, as in PyTorch.
    x = tandem.arange(6.0, device=device).reshape(2, 3)
    t = torch.arange(6.0).reshape(2, 3)
    for dim in (np.int64(1), np.int32(-1), np.uint8(0)):
        assert x.size(dim) == t.size(dim)
        assert x.transpose(dim, 0).shape == t.transpose(dim, 0).shape
        assert x.select(dim, 1).tolist() == t.select(dim, 1).tolist()
        assert x.narrow(dim, 0, 1).tolist() == t.narrow(dim, 0, 1).tolist()
        assert x.diff(dim=dim).tolist() == t.diff(dim=dim).tolist()
        assert x.unsqueeze(dim).shape == t.unsqueeze(dim).shape
    one = tandem.tensor(1)
    assert x.size(one) == 3 and x.kthvalue(one, 1).values.tolist() == [0.0, 3.0]
    assert x.cumsum(one).tolist() == t.cumsum(torch.tensor(1)).tolist()
    assert x.split(2, dim=np.int64(1))[0].shape == (2, 2)
    # a dim list takes one-element integer tensors of any rank, as PyTorch's int-list parser does
    assert x.sum(tandem.tensor([1])).tolist() == t.sum(torch.tensor([1])).tolist()
    assert x.sum((tandem.tensor(0),)).tolist() == t.sum((torch.tensor(0),)).tolist()
    with pytest.raises(TypeError):
        x.sum((True,))
    with pytest.raises(TypeError):
        t.sum((True,))


@pytest.mark.parametrize("device", DEVICES)
def test_an_int_outside_int64_is_a_value_error(device):
    x = tandem.ones(2, 3, device=device)
    t = torch.ones(2, 3)
    for call in (lambda x: x.size(2**70), lambda x: x.kthvalue(2**70), lambda x: x.unfold(0, 2**70, 1)):
        with pytest.raises(ValueError) as theirs:
            call(t)
        with pytest.raises(ValueError) as ours:
            call(x)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0] == "Overflow when unpacking long long"


def test_bool_overloads_still_take_bools():
    # keepdim, largest, sorted, ... are bool parameters: the int caster refusing bool changes nothing there, and
    # an overload taking a bool is still preferred for a bool.
    x = tandem.tensor([[3.0, 1.0, 2.0]])
    assert x.sum(1, True).shape == (1, 1)
    assert x.topk(2, 1, False, True).values.tolist() == [[1.0, 2.0]]
    assert x.sort(1, True).values.tolist() == [[3.0, 2.0, 1.0]]
    assert tandem.full((2,), True).dtype == tandem.bool
    assert (x > 1).sum().item() == 2


@pytest.mark.parametrize("device", DEVICES)
def test_size_lists_read_ints_and_index_objects(device):
    # to_shape reads exact ints directly and anything else through __index__ (NumPy ints, 0-dim int tensors)
    x = tandem.arange(24.0, device=device)
    t = torch.arange(24.0)
    shapes = [(2, 12), [3, 8], (np.int64(4), -1), [tandem.tensor(6), np.int32(4)], (2, 3, 4)]
    for shape in shapes:
        theirs = [s if not isinstance(s, tandem.Tensor) else torch.tensor(s.item()) for s in shape]
        assert x.view(shape).shape == t.view(theirs).shape
        assert x.view(*shape).shape == t.view(*theirs).shape
        assert x.reshape(shape).shape == t.reshape(theirs).shape
    m = x.view(2, 3, 4)
    assert m.permute([2, 0, np.int64(1)]).shape == (4, 2, 3)
    assert m.expand(np.int64(2), 2, 3, 4).shape == (2, 2, 3, 4)


@pytest.mark.parametrize("device", DEVICES)
def test_size_list_errors_name_the_argument_as_pytorch(device):
    x = tandem.ones(2, 3, device=device)
    t = torch.ones(2, 3)
    calls = [
        lambda x: x.view(2**70),                 # Overflow, PyTorch's unclosed quote included
        lambda x: x.permute(0, 2**70),
        lambda x: x.permute(None),               # 'dims', not 'size'
        lambda x: x.flip(True),
        lambda x: x.reshape((2, 3.0)),
        lambda x: x.reshape(x.new_tensor([2, 3])),
    ]
    for call in calls:
        with pytest.raises(TypeError) as theirs:
            call(t)
        with pytest.raises(TypeError) as ours:
            call(x)
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
    with pytest.raises(TypeError, match=r"^view\(\): argument 'size' failed to unpack the object at pos 1 with "
                                        r"error \"Overflow when unpacking long long$"):
        x.view(2**70)


def test_a_list_changed_by_an_index_method_is_read_safely():
    # The list is read through a tuple copy: an element whose __index__ empties the list cannot leave the loop
    # reading freed items.
    sizes = []

    class Shrinking:
        def __index__(self):
            sizes.clear()
            return 3

    sizes.extend([2, Shrinking()])
    assert tandem.ones(6).view(sizes).shape == (2, 3)
