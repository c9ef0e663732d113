"""nn.utils.rnn and the recurrent layers with packed and padded inputs, beyond nn_recurrent.py (which holds the
plain tensor forms): pack_padded_sequence with lengths unsorted, zero, past the sequence, negative, as a float,
bool, cuda or 2-d tensor, as a list of floats, with enforce_sorted both ways and batch_first; pad_packed_sequence
with total_length shorter than the longest, padding values of odd types; pad_sequence of empty lists, mixed
ranks, dtypes and trailing sizes, padding_side; pack_sequence and unpack/unpad of odd inputs; RNN/LSTM/GRU run on
packed sequences with hidden states of the wrong batch, with proj_size, bidirectional and batch_first; the cells
with 0-size batches; the modules' constructor checks that reach forward (nonlinearity, dropout with one layer)."""
from . import R, T


def U(L):
    return L.nn.utils.rnn


def seqs(L, d, lengths=(3, 2, 1), feat=2, dtype="float32"):
    return [R(L, (n, feat), d, dtype) for n in lengths]


def padded(L, d, T_=3, B=3, feat=2, batch_first=False):
    return R(L, (B, T_, feat) if batch_first else (T_, B, feat), d, "float32")


def pack(lengths, T_=3, B=3, **kw):
    def fn(L, d):
        p = U(L).pack_padded_sequence(padded(L, d, T_, B, batch_first=kw.get("batch_first", False)),
                                      lengths(L, d) if callable(lengths) else lengths, **kw)
        return p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices
    return fn


def round_trip(lengths, total_length=None, **kw):
    def fn(L, d):
        p = U(L).pack_padded_sequence(padded(L, d, 3, 3, batch_first=kw.get("batch_first", False)), lengths, **kw)
        out, lens = U(L).pad_packed_sequence(p, batch_first=kw.get("batch_first", False), total_length=total_length)
        return out, lens
    return fn


def rnn_packed(cls, lengths=(3, 2, 1), h=None, **kw):
    def fn(L, d):
        L.manual_seed(0)
        m = getattr(L.nn, cls)(2, 3, **kw).to(d)
        for p in m.parameters():
            with L.no_grad():
                p.copy_(R(L, tuple(p.shape), d, "float32", 0.5))
        p = U(L).pack_padded_sequence(padded(L, d, 3, 3, batch_first=kw.get("batch_first", False)), list(lengths),
                                      batch_first=kw.get("batch_first", False), enforce_sorted=False)
        out, hn = m(p) if h is None else m(p, h(L, d))
        o, lens = U(L).pad_packed_sequence(out, batch_first=kw.get("batch_first", False))
        return o, lens, hn
    return fn


CASES = {
    # pack_padded_sequence: lengths
    "pack/ok": pack([3, 2, 1]),
    "pack/ok_tensor_lengths": pack(lambda L, d: L.tensor([3, 2, 1])),
    "pack/unsorted_enforced": pack([1, 3, 2]),
    "pack/unsorted_not_enforced": pack([1, 3, 2], enforce_sorted=False),
    "pack/zero_length": pack([3, 2, 0]),
    "pack/zero_length_unsorted": pack([0, 3, 2], enforce_sorted=False),
    "pack/all_zero": pack([0, 0, 0], enforce_sorted=False),
    "pack/length_past_seq": pack([4, 2, 1]),
    "pack/negative_length": pack([3, 2, -1]),
    "pack/too_few_lengths": pack([3, 2]),
    "pack/too_many_lengths": pack([3, 2, 1, 1]),
    "pack/float_lengths_list": pack([3.0, 2.0, 1.0]),
    "pack/float_lengths_tensor": pack(lambda L, d: L.tensor([3.0, 2.0, 1.0])),
    "pack/bool_lengths_tensor": pack(lambda L, d: L.tensor([True, True, True])),
    "pack/lengths_2d": pack(lambda L, d: L.tensor([[3, 2, 1]])),
    "pack/lengths_0d": pack(lambda L, d: L.tensor(3), B=1),
    "pack/lengths_int32": pack(lambda L, d: L.tensor([3, 2, 1], dtype=L.int32)),
    "pack/lengths_on_device": pack(lambda L, d: L.tensor([3, 2, 1], device=d)),
    "pack/lengths_none": pack(None),
    "pack/lengths_str": pack("321"),
    "pack/batch_first": pack([3, 2, 1], batch_first=True),
    "pack/batch_first_past": pack([3, 3, 4], batch_first=True, enforce_sorted=False),
    "pack/duplicate_lengths": pack([2, 2, 2]),
    "pack/input_1d": lambda L, d: U(L).pack_padded_sequence(R(L, (3,), d, "float32"), [3]).data,
    "pack/input_0d": lambda L, d: U(L).pack_padded_sequence(L.tensor(1.0, device=d), [1]).data,
    "pack/input_2d": lambda L, d: U(L).pack_padded_sequence(R(L, (3, 2), d, "float32"), [3, 1]).data,
    "pack/input_empty_batch": lambda L, d: U(L).pack_padded_sequence(R(L, (3, 0, 2), d, "float32"), []).data,
    "pack/input_int": lambda L, d: U(L).pack_padded_sequence(T(L, [[1, 2], [3, 4]], d), [2, 1]).data,
    "pack/input_list": lambda L, d: U(L).pack_padded_sequence([[1.0, 2.0]], [1]),
    # pad_packed_sequence
    "unpack/ok": round_trip([3, 2, 1]),
    "unpack/total_length_longer": round_trip([3, 2, 1], total_length=5),
    "unpack/total_length_shorter": round_trip([3, 2, 1], total_length=2),
    "unpack/total_length_zero": round_trip([3, 2, 1], total_length=0),
    "unpack/total_length_float": round_trip([3, 2, 1], total_length=4.0),
    "unpack/total_length_negative": round_trip([3, 2, 1], total_length=-1),
    "unpack/batch_first": round_trip([3, 1, 2], batch_first=True, enforce_sorted=False),
    "unpack/padding_value_nan": lambda L, d: U(L).pad_packed_sequence(
        U(L).pack_padded_sequence(padded(L, d), [3, 2, 1]), padding_value=float("nan"))[0],
    "unpack/padding_value_int": lambda L, d: U(L).pad_packed_sequence(
        U(L).pack_padded_sequence(padded(L, d), [3, 2, 1]), padding_value=7)[0],
    "unpack/not_packed": lambda L, d: U(L).pad_packed_sequence(padded(L, d)),
    "unpack/tuple_not_packed": lambda L, d: U(L).pad_packed_sequence((padded(L, d), L.tensor([3, 2, 1]))),
    # pad_sequence
    "pad_sequence/ok": lambda L, d: U(L).pad_sequence(seqs(L, d)),
    "pad_sequence/batch_first": lambda L, d: U(L).pad_sequence(seqs(L, d), batch_first=True, padding_value=-1.0),
    "pad_sequence/empty_list": lambda L, d: U(L).pad_sequence([]),
    "pad_sequence/one": lambda L, d: U(L).pad_sequence(seqs(L, d, (2,))),
    "pad_sequence/zero_length_member": lambda L, d: U(L).pad_sequence(seqs(L, d, (2, 0))),
    "pad_sequence/all_zero_length": lambda L, d: U(L).pad_sequence(seqs(L, d, (0, 0))),
    "pad_sequence/trailing_differ": lambda L, d: U(L).pad_sequence([R(L, (2, 3), d), R(L, (2, 4), d)]),
    "pad_sequence/rank_differ": lambda L, d: U(L).pad_sequence([R(L, (2, 3), d), R(L, (2,), d)]),
    "pad_sequence/0d_members": lambda L, d: U(L).pad_sequence([L.tensor(1.0, device=d), L.tensor(2.0, device=d)]),
    "pad_sequence/dtypes_differ": lambda L, d: U(L).pad_sequence([R(L, (2,), d), R(L, (3,), d, "float32")]),
    "pad_sequence/int_members_float_pad": lambda L, d: U(L).pad_sequence([T(L, [1, 2], d), T(L, [3], d)],
                                                                          padding_value=0.5),
    "pad_sequence/bool_members": lambda L, d: U(L).pad_sequence([T(L, [True], d), T(L, [False, True], d)]),
    "pad_sequence/padding_left": lambda L, d: U(L).pad_sequence(seqs(L, d), padding_side="left"),
    "pad_sequence/padding_side_bad": lambda L, d: U(L).pad_sequence(seqs(L, d), padding_side="middle"),
    "pad_sequence/tensor_not_list": lambda L, d: U(L).pad_sequence(R(L, (3, 2), d)),
    "pad_sequence/list_of_lists": lambda L, d: U(L).pad_sequence([[1.0, 2.0], [3.0]]),
    "pad_sequence/tuple": lambda L, d: U(L).pad_sequence(tuple(seqs(L, d))),
    "pad_sequence/padding_value_str": lambda L, d: U(L).pad_sequence(seqs(L, d), padding_value="x"),
    # pack_sequence / unpack_sequence / unpad_sequence
    "pack_sequence/ok": lambda L, d: U(L).pack_sequence(seqs(L, d)).data,
    "pack_sequence/unsorted": lambda L, d: U(L).pack_sequence(seqs(L, d, (1, 3, 2))).data,
    "pack_sequence/unsorted_free": lambda L, d: U(L).pack_sequence(seqs(L, d, (1, 3, 2)), enforce_sorted=False).data,
    "pack_sequence/empty": lambda L, d: U(L).pack_sequence([]),
    "pack_sequence/zero_length_member": lambda L, d: U(L).pack_sequence(seqs(L, d, (2, 0))),
    "unpack_sequence/ok": lambda L, d: U(L).unpack_sequence(U(L).pack_sequence(seqs(L, d, (1, 3, 2)),
                                                                               enforce_sorted=False)),
    "unpad_sequence/ok": lambda L, d: U(L).unpad_sequence(U(L).pad_sequence(seqs(L, d)), T(L, [3, 2, 1])),
    "unpad_sequence/lengths_past": lambda L, d: U(L).unpad_sequence(U(L).pad_sequence(seqs(L, d)), T(L, [5, 2, 1])),
    "unpad_sequence/lengths_list": lambda L, d: U(L).unpad_sequence(U(L).pad_sequence(seqs(L, d)), [3, 2, 1]),
    "PackedSequence/direct_bad_batch_sizes": lambda L, d: U(L).PackedSequence(R(L, (6, 2), d), T(L, [3, 2, 2])).data,
    "PackedSequence/to_double": lambda L, d: U(L).pack_sequence(seqs(L, d)).double().data,
    "PackedSequence/is_cuda": lambda L, d: U(L).pack_sequence(seqs(L, "cpu")).is_cuda,
    # recurrent layers on packed input
    "RNN/packed": rnn_packed("RNN"),
    "LSTM/packed": rnn_packed("LSTM"),
    "GRU/packed": rnn_packed("GRU"),
    "LSTM/packed_bidirectional": rnn_packed("LSTM", bidirectional=True),
    "GRU/packed_two_layers_batch_first": rnn_packed("GRU", num_layers=2, batch_first=True),
    "LSTM/packed_proj": rnn_packed("LSTM", proj_size=2),
    "RNN/packed_hidden_ok": rnn_packed("RNN", h=lambda L, d: L.zeros(1, 3, 3, device=d)),
    "RNN/packed_hidden_wrong_batch": rnn_packed("RNN", h=lambda L, d: L.zeros(1, 2, 3, device=d)),
    "RNN/packed_hidden_2d": rnn_packed("RNN", h=lambda L, d: L.zeros(3, 3, device=d)),
    "LSTM/packed_hidden_wrong": rnn_packed("LSTM", h=lambda L, d: (L.zeros(1, 3, 3, device=d),
                                                                     L.zeros(1, 3, 2, device=d))),
    "LSTM/packed_proj_hidden_wrong": rnn_packed("LSTM", proj_size=2, h=lambda L, d: (L.zeros(1, 3, 3, device=d),
                                                                                       L.zeros(1, 3, 3, device=d))),
    "RNN/packed_zero_length": rnn_packed("RNN", lengths=(3, 0, 1)),
    "RNN/nonlinearity_bad": lambda L, d: L.nn.RNN(2, 3, nonlinearity="sigmoid"),
    "RNN/mode_dropout_one_layer": lambda L, d: repr(L.nn.GRU(2, 3, dropout=0.5)),
    "RNN/dropout_past_one": lambda L, d: L.nn.LSTM(2, 3, dropout=1.5),
    "RNN/proj_size_negative": lambda L, d: L.nn.LSTM(2, 3, proj_size=-1),
    "RNN/proj_size_on_gru": lambda L, d: L.nn.GRU(2, 3, proj_size=2),
    "RNN/proj_size_ge_hidden": lambda L, d: L.nn.LSTM(2, 3, proj_size=3),
    "RNN/hidden_zero": lambda L, d: L.nn.RNN(2, 0),
    "RNN/num_layers_zero": lambda L, d: L.nn.RNN(2, 3, num_layers=0),
    "RNN/num_layers_float": lambda L, d: L.nn.RNN(2, 3, num_layers=2.0),
    "RNNCell/zero_batch": lambda L, d: L.nn.RNNCell(2, 3).to(d)(L.zeros(0, 2, device=d)).shape,
    "LSTMCell/zero_batch": lambda L, d: [t.shape for t in L.nn.LSTMCell(2, 3).to(d)(L.zeros(0, 2, device=d))],
    "GRUCell/hidden_1d_for_1d": lambda L, d: L.nn.GRUCell(2, 3).to(d)(L.zeros(2, device=d),
                                                                        L.zeros(3, device=d)).shape,
    "GRUCell/hidden_2d_for_1d": lambda L, d: L.nn.GRUCell(2, 3).to(d)(L.zeros(2, device=d), L.zeros(1, 3, device=d)),
    "RNN/zero_batch_input": lambda L, d: L.nn.RNN(2, 3).to(d)(L.zeros(4, 0, 2, device=d))[0].shape,
    "LSTM/zero_time_input": lambda L, d: L.nn.LSTM(2, 3).to(d)(L.zeros(0, 2, 2, device=d))[0].shape,
}

_PAST = ("by design: a length past the padded input's time steps is refused; PyTorch's pack_padded_sequence returns a "
         "PackedSequence whose batch_sizes count more rows than its data holds (a later pad_packed_sequence or RNN "
         "reads past them)")
_PACKED_HIDDEN = ("tandem checks a packed input's hidden state as the padded form's (PyTorch's message, naming the "
                  "state and its expected size); PyTorch's packed LSTM path skips that check and its kernel says "
                  "'got an incorrect number of RNN parameters'")
# pack/lengths_none (tensor(None, dtype=int64) read the leaf for a dtype) is PyTorch's TypeError since session 45
KNOWN = {
    "pack/length_past_seq": _PAST,
    "pack/batch_first_past": _PAST,
    "pack/lengths_on_device": "PyTorch's own CUDA refuses lengths on the GPU with the same message; the oracle runs on "
                              "the CPU, where the lengths are CPU tensors",
    "LSTM/packed_hidden_wrong": _PACKED_HIDDEN,
    "LSTM/packed_proj_hidden_wrong": _PACKED_HIDDEN,
}
