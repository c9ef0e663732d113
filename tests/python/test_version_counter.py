"""The in-place version counter (Tensor._version) as PyTorch keeps it: new tensors start at 0, views share their
base's counter, `.detach()` shares it too, and `.data` gets a counter of its own, so writes through `.data` are
not seen by autograd's saved-tensor checks (torchdiffeq's solvers write their scratch buffers that way)."""
import numpy as np
import pytest
import torch

import tandem

DEVICES = ["cpu", "cuda:0"]

# Each builds a new tensor from nothing or from `x` (a float32 tensor already written in place twice).
NEW_TENSORS = {
    "empty": lambda m, x, d: m.empty(2, device=d),
    "zeros": lambda m, x, d: m.zeros(2, 3, device=d),
    "ones": lambda m, x, d: m.ones(2, device=d),
    "full": lambda m, x, d: m.full((2,), 1.5, device=d),
    "eye": lambda m, x, d: m.eye(3, device=d),
    "arange": lambda m, x, d: m.arange(3.0, device=d),
    "linspace": lambda m, x, d: m.linspace(0, 1, 5, device=d),
    "tensor": lambda m, x, d: m.tensor([1.0, 2.0], device=d),
    "as_tensor": lambda m, x, d: m.as_tensor(np.ones(3), device=d),
    "rand": lambda m, x, d: m.rand(4, device=d),
    "randn": lambda m, x, d: m.randn(4, device=d),
    "randint": lambda m, x, d: m.randint(0, 5, (4,), device=d),
    "randperm": lambda m, x, d: m.randperm(5, device=d),
    "zeros_like": lambda m, x, d: m.zeros_like(x),
    "ones_like": lambda m, x, d: m.ones_like(x),
    "full_like": lambda m, x, d: m.full_like(x, 2.0),
    "rand_like": lambda m, x, d: m.rand_like(x),
    "randn_like": lambda m, x, d: m.randn_like(x),
    "new_zeros": lambda m, x, d: x.new_zeros(3),
    "new_ones": lambda m, x, d: x.new_ones(3),
    "new_full": lambda m, x, d: x.new_full((3,), 4.0),
    "new_tensor": lambda m, x, d: x.new_tensor([1.0]),
    "clone": lambda m, x, d: x.clone(),
    "double": lambda m, x, d: x.double(),
    "to_dtype": lambda m, x, d: x.to(m.int32),
    "to_cpu": lambda m, x, d: x.to("cpu", copy=True),
    "add": lambda m, x, d: x + 1,
    "sum": lambda m, x, d: x.sum(),
    # The same tensor or a view of it: the shared counter.
    "float_of_float": lambda m, x, d: x.float(),
    "view": lambda m, x, d: x.view(2, 2),
    "index": lambda m, x, d: x[1:],
    "detach": lambda m, x, d: x.detach(),
    "data": lambda m, x, d: x.data,
}


def _written_twice(m, device):
    x = m.zeros(4, device=device)
    x.add_(1)
    x.mul_(2)
    return x


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(NEW_TENSORS))
def test_version_of_new_tensors_views_and_data_is_pytorchs(device, name):
    build = NEW_TENSORS[name]
    expected = build(torch, _written_twice(torch, "cpu"), "cpu")._version
    mine = build(tandem, _written_twice(tandem, device), device)
    assert mine._version == expected, (name, mine._version, expected)


@pytest.mark.parametrize("device", DEVICES)
def test_views_and_detach_share_the_counter_and_data_has_its_own(device):
    def trace(m, d):
        x = m.zeros(4, device=d)
        x.add_(1)
        data = x.data
        data.add_(1)  # not seen by x
        part = data[1:]
        part.mul_(2)  # a view of .data shares .data's counter
        detached = x.detach()
        detached.sub_(1)  # seen by x
        row = x[:2]
        row.fill_(3)
        return [x._version, data._version, part._version, detached._version, row._version, x.data._version]

    assert trace(tandem, device) == trace(torch, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_setting_data_keeps_the_tensors_counter(device):
    def trace(m, d):
        x = m.zeros(3, device=d)
        before = x._version
        x.data = m.ones(3, device=d)
        return [before, x._version, x.data._version]

    assert trace(tandem, device) == trace(torch, "cpu")


@pytest.mark.parametrize("device", DEVICES)
def test_a_write_through_data_is_not_a_modified_saved_tensor(device):
    # torchdiffeq's fixed-grid and adaptive solvers: a scratch buffer's rows are written through .data while a
    # view of it is saved by the graph. PyTorch computes with what the memory holds at backward time.
    def grad(m, d):
        a = m.tensor([1.0, 2.0, 3.0], device=d, requires_grad=True)
        x = a * 1
        s = x[:2]
        y = s * s
        x.data[0] = 5
        y.sum().backward()
        return a.grad

    mine = grad(tandem, device)
    assert mine.device == tandem.device(device)
    assert mine.dtype == tandem.float32
    np.testing.assert_array_equal(mine.cpu().numpy(), grad(torch, "cpu").numpy())
    np.testing.assert_array_equal(mine.cpu().numpy(), [10.0, 4.0, 0.0])


@pytest.mark.parametrize("device", DEVICES)
def test_a_write_through_detach_still_fails_backward(device):
    def failure(m, d):
        a = m.tensor([1.0, 2.0], device=d, requires_grad=True)
        x = a * 1
        y = x * x
        x.detach().add_(1)
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
        return str(info.value)

    expected = failure(torch, "cpu")
    if device != "cpu":
        expected = expected.replace("torch.FloatTensor", "torch.cuda.FloatTensor")
    mine = failure(tandem, device)
    assert mine.split("\nhint: ")[0] == expected
    assert "is at version 1; expected version 0 instead" in mine


@pytest.mark.parametrize("device", DEVICES)
def test_parameter_updates_through_data_leave_the_parameter_at_version_0(device):
    def trace(m, d):
        p = m.nn.Parameter(m.zeros(2, device=d))
        p.data.add_(1)
        p.data.mul_(3)
        return [p._version, p.data._version, p.detach().cpu().tolist()]

    assert trace(tandem, device) == trace(torch, "cpu")
