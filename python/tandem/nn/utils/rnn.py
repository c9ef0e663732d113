"""Variable-length sequences, as torch.nn.utils.rnn: padding (pad_sequence, unpad_sequence), packing
(pack_padded_sequence, pack_sequence, pad_packed_sequence, unpack_sequence) and the PackedSequence tuple.

Every data movement is one gather (index_select) whose row indices are computed from the lengths with integer
tensor ops on the CPU, so gradients flow through `data` on any device and no Python loop touches values. As in
PyTorch, lengths and batch_sizes are int64 CPU tensors; sorted/unsorted indices live on the data's device."""
from collections.abc import Iterable
from typing import NamedTuple, Optional

import tandem

from ..._C import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor]
    unsorted_indices: Optional[Tensor]


class PackedSequence(PackedSequence_):
    """The time steps of a batch of sequences, concatenated longest-first: `batch_sizes[t]` sequences are still
    running at step t. Build it with pack_padded_sequence / pack_sequence rather than by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with_data(self, data, non_blocking=False):
        """self with `data` replaced; the permutations follow data's device, batch_sizes stays on the CPU."""
        if data is self.data:
            return self

        def move(t):
            return None if t is None else t.to(data.device, non_blocking=non_blocking)
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def to(self, *args, **kwargs):
        return self._with_data(self.data.to(*args, **kwargs), kwargs.get("non_blocking", False))

    def cuda(self, *args, **kwargs):
        return self._with_data(self.data.cuda(*args, **kwargs), kwargs.get("non_blocking", False))

    def cpu(self, *args, **kwargs):
        return self._with_data(self.data.cpu(*args, **kwargs))

    def pin_memory(self):
        # The permutations are pinned too; batch_sizes is only ever read on the host.
        def pin(t):
            return None if t is None else t.pin_memory()
        return type(self)(self.data.pin_memory(), self.batch_sizes, pin(self.sorted_indices),
                          pin(self.unsorted_indices))

    def double(self):
        return self.to(dtype=tandem.double)

    def float(self):
        return self.to(dtype=tandem.float)

    def half(self):
        return self.to(dtype=tandem.half)

    def long(self):
        return self.to(dtype=tandem.long)

    def int(self):
        return self.to(dtype=tandem.int)

    def short(self):
        return self.to(dtype=tandem.short)

    def char(self):
        return self.to(dtype=tandem.int8)

    def byte(self):
        return self.to(dtype=tandem.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The permutation q with q[p[i]] = i (None stays None)."""
    if permutation is None:
        return None
    positions = tandem.arange(permutation.numel(), device=permutation.device)
    return tandem.empty_like(permutation).scatter_(0, permutation, positions)


def _check_long_tensor(t):
    if t.dim() != 1 or t.device.type != "cpu" or t.dtype != tandem.int64:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {t.dim()}D {t.device} "
                           f"{t.dtype._scalar_type_name} tensor")


def _gather_rows(source, rows, shape):
    """source.index_select(0, rows) reshaped to shape: the one differentiable data movement of this module."""
    return source.index_select(0, rows.reshape(-1).to(source.device)).reshape(shape)


def _is_number(value, *, complex_ok):
    """What PyTorch's parser takes for a float (complex_ok=False) or a Number (complex_ok=True) argument: Python
    and NumPy numbers (a float also takes a 0-d tensor that does not require grad)."""
    if isinstance(value, Tensor):
        return not complex_ok and value.dim() == 0 and not value.requires_grad
    if isinstance(value, (int, float)) or (complex_ok and isinstance(value, complex)):
        return True
    kind = type(value)
    return kind.__module__ == "numpy" and isinstance(value, __import__("numbers").Number) and \
        (complex_ok or not isinstance(value, complex))


def _check_args(name, checks):
    """PyTorch's parser errors for the arguments its Python wrappers pass on positionally: (label, position, kind,
    value), kind "bool", "int", "str", "float" or "Number"."""
    from ..._dim_args import _parser_type_name
    for label, position, kind, value in checks:
        if kind == "bool":
            fits = isinstance(value, bool)
        elif kind == "int":
            fits = isinstance(value, int) and not isinstance(value, bool) or \
                (type(value).__module__ == "numpy" and hasattr(value, "__index__") and type(value).__name__ != "bool_")
        elif kind == "str":
            fits = isinstance(value, (str, bytes))
        else:
            fits = _is_number(value, complex_ok=kind == "Number")
        if not fits:
            raise TypeError(f"{name}(): argument '{label}' (position {position}) must be {kind}, not "
                            f"{_parser_type_name(value)}")


def _pad_row(like, trailing, padding_value):
    """One row of padding_value (cast to like's dtype, as PyTorch's full does) to gather padded slots from."""
    return tandem.full((1, *trailing), padding_value, dtype=like.dtype, device=like.device)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T x B x *, or B x T x * with batch_first) of sequences with the given lengths.
    enforce_sorted=True requires lengths in decreasing order; False sorts the batch and records the
    permutation in sorted_indices / unsorted_indices."""
    if not isinstance(lengths, Tensor):
        lengths = tandem.as_tensor(lengths, dtype=tandem.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=tandem.int64)

    sorted_indices = None
    if not enforce_sorted:
        # stable, so equal lengths keep their order (PyTorch's CPU sort does the same)
        lengths, sorted_indices = tandem.sort(lengths, descending=True, stable=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)

    data, batch_sizes = _pack_padded(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _pack_padded(input, lengths, batch_first):
    """(data, batch_sizes) for a time-major view of input and decreasing lengths, with PyTorch's checks."""
    if not isinstance(input, Tensor):
        from ..._dim_args import _parser_type_name
        raise TypeError("_pack_padded_sequence(): argument 'input' (position 1) must be Tensor, not "
                        f"{_parser_type_name(input)}")
    _check_args("_pack_padded_sequence", [("batch_first", 3, "bool", batch_first)])
    if batch_first:
        input = input.transpose(0, 1)
    _check_long_tensor(lengths)
    batch_size = input.size(1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if lengths.size(0) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.size(0)} "
                           f"(batch_size={batch_size})")
    host_lengths = lengths.tolist()
    if host_lengths[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(host_lengths, host_lengths[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                           "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    steps = host_lengths[0]
    if steps > input.size(0):
        # PyTorch reads past the end of input here; refuse instead.
        raise RuntimeError(f"pack_padded_sequence: the longest length ({steps}) exceeds the padded input's "
                           f"{input.size(0)} time steps")

    # running[t, b]: sequence b still has a step t. Its True cells, read row by row, are the packed order.
    running = tandem.arange(steps).unsqueeze(1) < lengths.unsqueeze(0)
    rows = running.reshape(-1).nonzero().squeeze(1)
    trailing = tuple(input.shape[2:])
    time_major = input.narrow(0, 0, steps).reshape(steps * batch_size, *trailing)
    data = _gather_rows(time_major, rows, (rows.numel(), *trailing))
    return data, running.sum(1)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: (padded batch, lengths), the batch in its original order and padded
    to total_length time steps when given."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length

    data, batch_sizes = sequence.data, sequence.batch_sizes
    _check_args("_pad_packed_sequence", [("batch_first", 3, "bool", batch_first),
                                         ("padding_value", 4, "Number", padding_value),
                                         ("total_length", 5, "int", max_seq_length)])
    _check_long_tensor(batch_sizes)
    max_batch_size = int(batch_sizes[0].item())
    # running[t, b]: slot (t, b) holds data; counting those cells row by row gives its row in data.
    running = tandem.arange(max_batch_size).unsqueeze(0) < batch_sizes.unsqueeze(1)
    position = running.to(tandem.int64).reshape(-1).cumsum(0).reshape(running.shape) - 1
    rows = tandem.where(running, position, data.size(0))  # data.size(0) is the padding row
    extra_steps = max_seq_length - batch_sizes.size(0)
    if extra_steps:
        rows = tandem.cat([rows, tandem.full((extra_steps, max_batch_size), data.size(0), dtype=tandem.int64)])

    trailing = tuple(data.shape[1:])
    source = tandem.cat([data, _pad_row(data, trailing, padding_value)])
    padded = _gather_rows(source, rows, (max_seq_length, max_batch_size, *trailing))
    lengths = running.sum(0)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices
        return padded.index_select(0 if batch_first else 1, unsorted), lengths[unsorted.cpu()]
    return padded, lengths


def _check_broadcast_copy(dst_shape, src_shape):
    """PyTorch copies each sequence into its slot with broadcasting; its error names the first bad dim."""
    ndim = max(len(dst_shape), len(src_shape))
    for i in range(ndim - 1, -1, -1):
        offset = ndim - 1 - i
        a = dst_shape[-1 - offset] if offset < len(dst_shape) else 1
        b = src_shape[-1 - offset] if offset < len(src_shape) else 1
        if a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {i}")


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of different lengths (L_i x *) into max(L) x B x * (B x max(L) x * with batch_first),
    filling with padding_value on the right or the left. Dtype, device and trailing shape come from the first
    sequence, as in PyTorch."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    from ..._dim_args import _require_tensor_list
    _require_tensor_list(sequences)  # NumPy arrays: PyTorch's TypeError from torch._C._nn.pad_sequence's parser
    _check_args("pad_sequence", [("batch_first", 2, "bool", batch_first), ("padding_value", 3, "float", padding_value),
                                 ("padding_side", 4, "str", padding_side)])
    if isinstance(padding_side, bytes):
        padding_side = padding_side.decode()
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")

    first = sequences[0]
    if first.dim() == 0:  # PyTorch slices the first sequence's sizes past its rank (a later 0-d one is size(0)'s)
        raise RuntimeError("ArrayRef: invalid slice, N = 1; size = 0")
    trailing = tuple(first.shape[1:])
    lengths = [s.size(0) for s in sequences]
    max_len = max(lengths)
    blocks = []
    for seq, length in zip(sequences, lengths):
        _check_broadcast_copy((length, *trailing), tuple(seq.shape))
        blocks.append(seq.to(device=first.device, dtype=first.dtype).expand(length, *trailing))
    source = tandem.cat(blocks + [_pad_row(first, trailing, padding_value)])

    # rows[b, t]: the row of source for step t of sequence b, or the padding row.
    lengths_t = tandem.tensor(lengths, dtype=tandem.int64)
    starts = (lengths_t.cumsum(0) - lengths_t).unsqueeze(1)
    step = tandem.arange(max_len).unsqueeze(0)
    if padding_side == "left":
        step = step - (max_len - lengths_t).unsqueeze(1)
    valid = (step >= 0).logical_and(step < lengths_t.unsqueeze(1))
    rows = tandem.where(valid, starts + step, source.size(0) - 1)
    if not batch_first:
        rows = rows.t()
    return _gather_rows(source, rows, (*rows.shape, *trailing))


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Inverse of pad_sequence for right padding: the list of sequences, each cut to its length (copies).
    Unlike PyTorch, padded_sequences is not transposed in place when batch_first=False."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    if not isinstance(lengths, Tensor):  # PyTorch builds its mask on lengths.device
        raise AttributeError(f"'{type(lengths).__name__}' object has no attribute 'device'")
    host_lengths = lengths.tolist()
    return [seq.narrow(0, 0, max(0, min(int(length), max_length))).clone()
            for seq, length in zip(padded_sequences.unbind(0), host_lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L_i x *), longest first unless enforce_sorted=False."""
    lengths = tandem.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Inverse of pack_sequence: the list of sequences in their original order."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
