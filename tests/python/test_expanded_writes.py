"""Writes into expanded tensors (a stride of 0: several elements share one memory location), as PyTorch allows
and refuses them: fill_ from a number and zero_ (and scalar assignment, which fills) write one value into every element, so
the order does not matter and they are allowed; element-wise writes (add_, copy_, tensor assignment, scatter,
random fills) would make the result depend on the order and are refused with PyTorch's message."""
import numpy as np
import pytest
import torch

import tandem

DEVICES = ["cpu", "cuda:0"]
MESSAGE = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
           "location. Please clone() the tensor before performing the operation.")

CASES = {
    "fill_": lambda lib, x: x.fill_(2.5),
    "fill_tensor": lambda lib, x: x.fill_(lib.tensor(1.5)),  # from a tensor PyTorch refuses
    "zero_": lambda lib, x: x.zero_(),
    "setitem_scalar_column": lambda lib, x: x.__setitem__((slice(None), 0), 5.0),
    "setitem_scalar_slice": lambda lib, x: x.__setitem__((slice(None), slice(1, 3)), 2.0),
    "setitem_scalar_all": lambda lib, x: x.__setitem__(Ellipsis, -1.0),
    "setitem_row": lambda lib, x: x.__setitem__(1, 7.0),  # a row of the expanded dim: no stride 0 left
    "setitem_tensor": lambda lib, x: x.__setitem__((slice(None), 1), lib.tensor(4.0)),
    "add_": lambda lib, x: x.add_(1),
    "mul_": lambda lib, x: x.mul_(2),
    "copy_": lambda lib, x: x.copy_(lib.ones(3, 4, device=x.device)),
    "uniform_": lambda lib, x: x.uniform_(),
    "index_copy_": lambda lib, x: x.index_copy_(0, lib.tensor([0], device=x.device), lib.ones(1, 4, device=x.device)),
}


def outcome(lib, device, case):
    base = lib.arange(3.0).reshape(3, 1)
    x = base.to(device).expand(3, 4)
    try:
        CASES[case](lib, x)
    except RuntimeError as e:
        return ("error", str(e).split("\n")[0])
    return ("ok", x.cpu().tolist(), x.stride())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(CASES))
def test_writes_into_expanded_tensors_as_pytorch(case, device):
    theirs = outcome(torch, "cpu", case)
    assert outcome(tandem, device, case) == theirs
    if theirs[0] == "error":
        assert theirs[1] == MESSAGE


@pytest.mark.parametrize("device", DEVICES)
def test_fill_writes_each_shared_location_once_and_leaves_the_rest(device):
    base = tandem.zeros(2, 3, device=device)
    x = base[:, :1].expand(2, 5)  # column 0 of base, seen 5 times
    x.fill_(3.0)
    np.testing.assert_array_equal(base.cpu().numpy(), [[3, 0, 0], [3, 0, 0]])
    assert base._version == x._version == 1
    y = tandem.zeros(4, dtype=tandem.int16, device=device)[1:2].expand(2, 3, 5)  # a scalar seen 30 times
    y.fill_(-7)
    assert y.cpu().tolist() == [[[-7] * 5] * 3] * 2 and y.dtype == tandem.int16


def test_fill_of_an_expanded_view_of_a_graph_tensor_records_as_pytorch():
    for lib in (torch, tandem):
        a = lib.ones(3, requires_grad=True)
        b = a.clone().unsqueeze(1).expand(3, 4)
        b.fill_(2.0)
        assert b.tolist() == [[2.0] * 4] * 3 and b.grad_fn.name() == "AsStridedBackward0"
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            b.sum().backward()  # PyTorch's backward writes into the expanded gradient too


def test_fill_of_a_read_only_expanded_array_is_still_refused():
    arr = np.zeros((2, 1), dtype=np.float32)
    arr.flags.writeable = False
    with pytest.warns(UserWarning):
        x = tandem.from_numpy(arr).expand(2, 3)
    with pytest.raises(RuntimeError, match="read-only"):
        x.fill_(1.0)
