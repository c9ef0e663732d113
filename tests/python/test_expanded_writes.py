"""Writes into expanded tensors (a stride of 0: several elements share one memory location), as PyTorch allows
and refuses them: fill_ from a number and zero_ (and scalar assignment, which fills) write one value into every element, so
the order does not matter and they are allowed; element-wise writes (add_, copy_, tensor assignment, scatter,
random fills) would make the result depend on the order and are refused with PyTorch's message. masked_fill_,
index_fill_ and index_put_ (and the assignments that run them) write with PyTorch's deprecation warning."""
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


# Writes PyTorch lets through with a deprecation warning (they write a value only where selected): masked_fill_,
# index_fill_, index_put_, and the advanced-index assignments that run them. The warning names the op PyTorch's
# indexing would run (t[mask] = number: masked_fill_; t[index] = number: index_fill_; the rest: index_put_).
def _i(lib, device, *values):
    return lib.tensor(values, device=device)


WARNED_CASES = {
    "masked_fill_": lambda lib, x, d: x.masked_fill_(lib.tensor([True, False, True, False], device=d), 5.0),
    "masked_fill_0d_tensor": lambda lib, x, d: x.masked_fill_(lib.tensor([[False], [True], [False]], device=d),
                                                              lib.tensor(-1.0, device=d)),
    "masked_fill_mask_varies_along_shared_dim": lambda lib, x, d: x.masked_fill_(
        lib.tensor([[True, False, False, False], [False, False, False, False], [False, False, True, True]],
                   device=d), 9.0),
    "masked_fill_nothing": lambda lib, x, d: x.masked_fill_(lib.zeros(3, 4, dtype=lib.bool, device=d), 9.0),
    "index_fill_shared_dim": lambda lib, x, d: x.index_fill_(1, _i(lib, d, 2), 7.0),
    "index_fill_other_dim": lambda lib, x, d: x.index_fill_(0, _i(lib, d, 0, 2), 7.0),
    "index_fill_0d_tensor": lambda lib, x, d: x.index_fill_(1, _i(lib, d, 0), lib.tensor(3.0, device=d)),
    "index_fill_empty_index": lambda lib, x, d: x.index_fill_(1, lib.tensor([], dtype=lib.long, device=d), 7.0),
    "index_put_one_value": lambda lib, x, d: x.index_put_((_i(lib, d, 1),), lib.tensor(9.0, device=d)),
    "index_put_accumulate": lambda lib, x, d: x.index_put_((_i(lib, d, 0, 2), _i(lib, d, 1, 3)),
                                                           lib.tensor([1.0, 2.0], device=d), accumulate=True),
    "index_put_accumulate_shared": lambda lib, x, d: x.index_put_(
        (_i(lib, d, 1, 1), _i(lib, d, 0, 3)), lib.tensor([10.0, 20.0], device=d), accumulate=True),
    "setitem_index_number": lambda lib, x, d: x.__setitem__(_i(lib, d, 0), 4.0),
    "setitem_list_number": lambda lib, x, d: x.__setitem__([2], 4.0),
    "setitem_column_index_number": lambda lib, x, d: x.__setitem__((slice(None), _i(lib, d, 1)), 4.0),
    "setitem_mask_number": lambda lib, x, d: x.__setitem__(lib.tensor([True, False, True], device=d), -2.0),
    "setitem_2d_mask_number": lambda lib, x, d: x.__setitem__(lib.eye(3, 4, dtype=lib.bool, device=d), 6.0),
    "setitem_index_0d_tensor": lambda lib, x, d: x.__setitem__(_i(lib, d, 1), lib.tensor(4.0, device=d)),
    "setitem_two_indices_number": lambda lib, x, d: x.__setitem__((_i(lib, d, 0), _i(lib, d, 3)), 8.0),
    "setitem_mask_0d_tensor": lambda lib, x, d: x.__setitem__(lib.tensor([False, True, False], device=d),
                                                              lib.tensor(4.0, device=d)),
    "setitem_mask_one_element_tensor": lambda lib, x, d: x.__setitem__(lib.tensor([True, True, False], device=d),
                                                                       lib.tensor([4.0], device=d)),
    "setitem_mask_and_index_number": lambda lib, x, d: x.__setitem__((lib.tensor([True, False, True], device=d),
                                                                      _i(lib, d, 0)), 4.0),
    "setitem_index_bool_value": lambda lib, x, d: x.__setitem__(_i(lib, d, 1), True),
}


def warned_outcome(lib, device, case):
    import warnings
    base = lib.arange(3.0).reshape(3, 1)
    x = base.to(device).expand(3, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        WARNED_CASES[case](lib, x, device if lib is tandem else "cpu")
    messages = [str(w.message).split(" (Triggered internally")[0] for w in caught]
    return x.cpu().tolist(), x.stride(), messages, [w.category for w in caught]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(WARNED_CASES))
def test_selective_writes_into_expanded_tensors_warn_and_write_as_pytorch(case, device):
    theirs = warned_outcome(torch, "cpu", case)
    ours = warned_outcome(tandem, device, case)
    assert ours == theirs
    assert theirs[2] and all(m.startswith("Use of ") for m in theirs[2]) and set(theirs[3]) == {UserWarning}


@pytest.mark.parametrize("device", DEVICES)
def test_an_expanded_write_turned_into_an_error_by_a_warnings_filter_writes_nothing(device):
    import warnings
    base = tandem.zeros(3, device=device)
    x = base.expand(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match=r"^Use of masked_fill_ on expanded tensors is deprecated\. Please "
                                              r"clone\(\) the tensor before performing this operation\. This also "
                                              r"applies to advanced indexing e\.g\. tensor\[mask\] = scalar$"):
            x.masked_fill_(tandem.tensor([True, False, True], device=device), 5.0)
    # PyTorch raises the warning after its write; tandem raises before it, so nothing changed.
    assert base.cpu().tolist() == [0.0, 0.0, 0.0] and base._version == 0


@pytest.mark.parametrize("device", DEVICES)
def test_elementwise_writes_into_expanded_tensors_are_still_refused(device):
    x = tandem.zeros(3, device=device).expand(2, 3)
    for write in (lambda: x.masked_scatter_(tandem.tensor([True, False, True], device=device), tandem.ones(6, device=device)),
                  lambda: x.scatter_(1, tandem.tensor([[0], [0]], device=device), 3.0),
                  lambda: x.clamp_(0, 0.5)):
        with pytest.raises(RuntimeError, match=r"^unsupported operation: more than one element of the written-to"):
            write()
