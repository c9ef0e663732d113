"""tandem.nn.utils.rnn against torch.nn.utils.rnn: padding, packing and unpacking in every layout (values in
float64), the PackedSequence fields (batch_sizes an int64 CPU tensor, permutations on the data's device),
gradients through the data, device/dtype moves, and every error's type and message."""
import pytest
import torch
from torch.nn.utils import rnn as trnn

import tandem
from oracle import assert_same, from_torch, rand_values
from tandem.nn.utils import rnn

LENGTHS = [3, 1, 4, 4, 2]  # unsorted, with a tie


def sequences(lengths, trailing=(2,), device="cpu", seed=0):
    """(tandem leaves on device, torch leaves) holding the same float64 values, one per length."""
    ours, theirs = [], []
    for i, n in enumerate(lengths):
        t = torch.tensor(rand_values(n, *trailing, seed=seed + i), dtype=torch.float64).reshape(n, *trailing)
        theirs.append(t.requires_grad_())
        ours.append(from_torch(t.detach(), device).requires_grad_())
    return ours, theirs


def weights_like(t, device):
    """A fixed non-uniform weighting, so a backward pass checks where each gradient lands."""
    w = torch.arange(1, t.numel() + 1, dtype=torch.float64).reshape(t.shape).sin()
    return from_torch(w, device), w


def assert_grads(ours, theirs, device):
    for o, t in zip(ours, theirs):
        assert_same(o.grad, t.grad, device=device)


def assert_packed(ours, theirs, device):
    assert isinstance(ours, rnn.PackedSequence)
    assert_same(ours.data.detach(), theirs.data.detach(), device=device)
    assert_same(ours.batch_sizes, theirs.batch_sizes, device="cpu")
    for o, t in [(ours.sorted_indices, theirs.sorted_indices), (ours.unsorted_indices, theirs.unsorted_indices)]:
        assert (o is None) == (t is None)
        if t is not None:
            assert_same(o, t, device=device)


def error_of(call):
    with pytest.raises(Exception) as excinfo:
        call()
    return type(excinfo.value), str(excinfo.value).splitlines()[0].replace("torch.", "tandem.")


# ---------------------------------------------------------------- pad_sequence / unpad_sequence

@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_values_and_grads(batch_first, padding_side, device):
    ours, theirs = sequences(LENGTHS, device=device)
    out = rnn.pad_sequence(ours, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    expected = trnn.pad_sequence(theirs, batch_first=batch_first, padding_value=-1.5, padding_side=padding_side)
    assert_same(out.detach(), expected.detach(), device=device)
    w, tw = weights_like(expected, device)
    (out * w).sum().backward()
    (expected * tw).sum().backward()
    assert_grads(ours, theirs, device)


@pytest.mark.parametrize("case", ["one_dim", "no_trailing_shape_scalar_rows", "int_with_float_padding",
                                  "dtype_of_first", "broadcast_into_slot", "tensor_as_iterable", "zero_length"])
def test_pad_sequence_cases(case):
    make = {
        "one_dim": lambda L: [L.tensor([1.0, 2.0]), L.tensor([3.0]), L.tensor([4.0, 5.0, 6.0])],
        "no_trailing_shape_scalar_rows": lambda L: [L.ones(2, 1, 3), L.zeros(4, 1, 3)],
        "int_with_float_padding": lambda L: [L.tensor([1, 2, 3]), L.tensor([4])],
        "dtype_of_first": lambda L: [L.tensor([1, 2]), L.tensor([0.5, 1.5, 2.5])],
        "broadcast_into_slot": lambda L: [L.ones(2, 3), L.tensor([1.0, 2.0, 3.0])],
        "tensor_as_iterable": lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
        "zero_length": lambda L: [L.zeros(0, 2), L.ones(2, 2)],
    }[case]
    for kwargs in [{}, {"batch_first": True, "padding_value": 7.5, "padding_side": "left"}]:
        assert_same(rnn.pad_sequence(make(tandem), **kwargs), trnn.pad_sequence(make(torch), **kwargs))


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence(batch_first, device):
    ours, theirs = sequences(LENGTHS, device=device)
    padded = rnn.pad_sequence(ours, batch_first=batch_first)
    t_padded = trnn.pad_sequence(theirs, batch_first=batch_first)
    lengths = torch.tensor(LENGTHS)
    got = rnn.unpad_sequence(padded, tandem.tensor(LENGTHS), batch_first=batch_first)
    expected = trnn.unpad_sequence(t_padded, lengths, batch_first=batch_first)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g.detach(), e.detach(), device=device)
    sum((g * (i + 1)).sum() for i, g in enumerate(got)).backward()
    sum((e * (i + 1)).sum() for i, e in enumerate(expected)).backward()
    assert_grads(ours, theirs, device)
    # PyTorch transposes the caller's tensor in place when batch_first=False; tandem leaves it alone.
    assert tuple(padded.shape) == ((5, 4, 2) if batch_first else (4, 5, 2))


# ---------------------------------------------------------------- packing and unpacking

@pytest.mark.parametrize("lengths_as_tensor", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_unsorted_roundtrip(batch_first, lengths_as_tensor, device):
    ours, theirs = sequences(LENGTHS, trailing=(3,), device=device)
    padded = rnn.pad_sequence(ours, batch_first=batch_first)
    t_padded = trnn.pad_sequence(theirs, batch_first=batch_first)
    lengths = tandem.tensor(LENGTHS) if lengths_as_tensor else LENGTHS
    t_lengths = torch.tensor(LENGTHS) if lengths_as_tensor else LENGTHS
    packed = rnn.pack_padded_sequence(padded, lengths, batch_first=batch_first, enforce_sorted=False)
    t_packed = trnn.pack_padded_sequence(t_padded, t_lengths, batch_first=batch_first, enforce_sorted=False)
    assert_packed(packed, t_packed, device)

    for kwargs in [{}, {"total_length": 6, "padding_value": 9.0}]:
        out, out_lengths = rnn.pad_packed_sequence(packed, batch_first=batch_first, **kwargs)
        t_out, t_out_lengths = trnn.pad_packed_sequence(t_packed, batch_first=batch_first, **kwargs)
        assert_same(out.detach(), t_out.detach(), device=device)
        assert_same(out_lengths, t_out_lengths, device="cpu")

    w, tw = weights_like(t_out, device)
    (out * w).sum().backward()
    (t_out * tw).sum().backward()
    assert_grads(ours, theirs, device)


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sorted(batch_first, device):
    lengths = sorted(LENGTHS, reverse=True)
    ours, theirs = sequences(lengths, trailing=(), device=device)
    padded = rnn.pad_sequence(ours, batch_first=batch_first)
    t_padded = trnn.pad_sequence(theirs, batch_first=batch_first)
    packed = rnn.pack_padded_sequence(padded, lengths, batch_first=batch_first)
    t_packed = trnn.pack_padded_sequence(t_padded, lengths, batch_first=batch_first)
    assert_packed(packed, t_packed, device)
    w, tw = weights_like(t_packed.data, device)
    (packed.data * w).sum().backward()
    (t_packed.data * tw).sum().backward()
    assert_grads(ours, theirs, device)


def test_pack_padded_ignores_extra_padding():
    """Time steps beyond the longest length are dropped, as in PyTorch."""
    x = torch.tensor(rand_values(6, 2, 3), dtype=torch.float64)
    packed = rnn.pack_padded_sequence(from_torch(x), [4, 2])
    assert_packed(packed, trnn.pack_padded_sequence(x, [4, 2]), "cpu")


@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pack_and_unpack_sequence(enforce_sorted, device):
    lengths = LENGTHS if not enforce_sorted else sorted(LENGTHS, reverse=True)
    ours, theirs = sequences(lengths, device=device)
    packed = rnn.pack_sequence(ours, enforce_sorted=enforce_sorted)
    t_packed = trnn.pack_sequence(theirs, enforce_sorted=enforce_sorted)
    assert_packed(packed, t_packed, device)
    got, expected = rnn.unpack_sequence(packed), trnn.unpack_sequence(t_packed)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert_same(g.detach(), e.detach(), device=device)
    sum((g * (i + 1)).sum() for i, g in enumerate(got)).backward()
    sum((e * (i + 1)).sum() for i, e in enumerate(expected)).backward()
    assert_grads(ours, theirs, device)


def test_invert_permutation():
    perm = [3, 0, 4, 1, 2]
    assert_same(rnn.invert_permutation(tandem.tensor(perm)), trnn.invert_permutation(torch.tensor(perm)))
    assert rnn.invert_permutation(None) is None


# ---------------------------------------------------------------- PackedSequence

def _packed(device="cpu"):
    ours, _ = sequences(LENGTHS, device=device)
    return rnn.pack_sequence(ours, enforce_sorted=False)


def test_packed_sequence_is_a_named_tuple():
    packed = _packed()
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert packed._fields == trnn.PackedSequence._fields
    assert data is packed.data and batch_sizes is packed.batch_sizes
    assert sorted_indices is packed.sorted_indices and unsorted_indices is packed.unsorted_indices
    assert repr(packed).startswith("PackedSequence(data=tensor(")
    # constructors PyTorch accepts: unsorted_indices derived, and the (data, batch_sizes) pair form
    rebuilt = rnn.PackedSequence(data, batch_sizes, sorted_indices)
    assert_same(rebuilt.unsorted_indices, to_torch_long(unsorted_indices))
    pair = rnn.PackedSequence((data, batch_sizes))
    assert pair.data is data and pair.sorted_indices is None and pair.unsorted_indices is None


def to_torch_long(t):
    return torch.tensor(t.tolist(), dtype=torch.int64)


def test_packed_sequence_moves(device):
    packed = _packed()
    moved = packed.to(device)
    assert moved.data.device == tandem.device(device) and moved.is_cuda == (device != "cpu")
    assert moved.sorted_indices.device == moved.data.device == moved.unsorted_indices.device
    assert moved.batch_sizes is packed.batch_sizes  # always on the CPU
    assert packed.to("cpu") is packed  # nothing to move: the same object, as in PyTorch
    back = moved.cpu()
    assert back.data.device.type == "cpu" and back.sorted_indices.device.type == "cpu"
    if device != "cpu":
        on_gpu = packed.cuda(tandem.device(device).index)
        assert on_gpu.data.device == tandem.device(device) and on_gpu.unsorted_indices.device == on_gpu.data.device


@pytest.mark.parametrize("method,dtype", [("double", "float64"), ("float", "float32"), ("half", "float16"),
                                          ("long", "int64"), ("int", "int32"), ("short", "int16"),
                                          ("char", "int8"), ("byte", "uint8")])
def test_packed_sequence_dtype_methods(method, dtype):
    packed = _packed()
    converted = getattr(packed, method)()
    assert converted.data.dtype == getattr(tandem, dtype)
    assert converted.sorted_indices.dtype == tandem.int64 and converted.batch_sizes.dtype == tandem.int64
    assert packed.to(dtype=tandem.float64) is packed


def test_gradient_through_packed_data_on_device(device):
    ours, theirs = sequences(LENGTHS, device=device)
    out, _ = rnn.pad_packed_sequence(rnn.pack_sequence(ours, enforce_sorted=False).to(tandem.float32).double())
    t_out, _ = trnn.pad_packed_sequence(trnn.pack_sequence(theirs, enforce_sorted=False).to(torch.float32).double())
    (out * out).sum().backward()
    (t_out * t_out).sum().backward()
    for o, t in zip(ours, theirs):
        assert_same(o.grad, t.grad, device=device, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------- errors: same type and first line as PyTorch

def _x(L, *shape):
    return L.ones(*shape, dtype=L.float64)


def _rnn(L):
    return rnn if L is tandem else trnn


ERRORS = {
    "unsorted_lengths": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4, 3), [2, 3, 1]),
    "unsorted_pack_sequence": lambda L: _rnn(L).pack_sequence([_x(L, 2), _x(L, 3)]),
    "zero_length": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4, 3), [3, 2, 0]),
    "negative_length_unsorted": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4, 3), [3, -1, 2],
                                                                       enforce_sorted=False),
    "lengths_count": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4, 3), [3, 2]),
    "lengths_count_batch_first": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4, 3), [3, 2], batch_first=True),
    "lengths_2d": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4, 3), L.tensor([[3, 2, 1]])),
    "empty_input": lambda L: _rnn(L).pack_padded_sequence(_x(L, 0, 3), []),
    "one_dim_input": lambda L: _rnn(L).pack_padded_sequence(_x(L, 4), [3]),
    "total_length_too_short": lambda L: _rnn(L).pad_packed_sequence(
        _rnn(L).pack_padded_sequence(_x(L, 4, 3), [3, 2, 1]), total_length=2),
    "empty_sequence_list": lambda L: _rnn(L).pad_sequence([]),
    "empty_pack_sequence": lambda L: _rnn(L).pack_sequence([]),
    "not_iterable": lambda L: _rnn(L).pad_sequence(5),
    "bad_padding_side": lambda L: _rnn(L).pad_sequence([_x(L, 2), _x(L, 3)], padding_side="middle"),
    "trailing_mismatch": lambda L: _rnn(L).pad_sequence([_x(L, 2, 3), _x(L, 3, 2)]),
    "trailing_mismatch_batch_first": lambda L: _rnn(L).pad_sequence([_x(L, 2, 4, 3), _x(L, 3, 5, 3)],
                                                                     batch_first=True),
    "packed_sequence_without_batch_sizes": lambda L: _rnn(L).PackedSequence(_x(L, 3)),
    "unpad_lengths_mismatch": lambda L: _rnn(L).unpad_sequence(_x(L, 3, 2), L.tensor([3, 2, 1])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_pytorch(name):
    assert error_of(lambda: ERRORS[name](tandem)) == error_of(lambda: ERRORS[name](torch))


def test_device_errors():
    """What PyTorch (without a GPU here) cannot show: lengths and batch_sizes must stay on the CPU."""
    if not tandem.cuda.is_available():
        pytest.skip("needs a (real or emulated) cuda device")
    x = tandem.ones(4, 3, device="cuda:0")
    with pytest.raises(RuntimeError, match=r"^'lengths' argument should be a 1D CPU int64 tensor, but got 1D "
                                           r"cuda:0 Long tensor$"):
        rnn.pack_padded_sequence(x, tandem.tensor([3, 2, 1], device="cuda:0"))
    with pytest.raises(ValueError, match=r"^batch_sizes should always be on CPU\. Instances of PackedSequence"):
        rnn.PackedSequence(x, tandem.tensor([3, 1], device="cuda:0"))
    packed = rnn.pack_padded_sequence(x, [3, 2, 1])
    assert packed.data.device == x.device and packed.batch_sizes.device.type == "cpu"


def test_lengths_longer_than_input_are_refused():
    """PyTorch reads past the padded input here; tandem refuses with a message naming both sizes."""
    with pytest.raises(RuntimeError, match=r"the longest length \(5\) exceeds the padded input's 4 time steps"):
        rnn.pack_padded_sequence(tandem.ones(4, 3), [5, 2, 1])
