"""Regression tests for what the fuzzers (fuzz/, docs/reliability.md "Fuzzing") found: each case is the
minimised input, reduced to the call that failed, with the behaviour it has now."""
import io
import json
import struct

import pytest

import tandem


def _file(header, data=b""):
    text = json.dumps(header).encode()
    return io.BytesIO(struct.pack("<Q", len(text)) + text + data)


def _checkpoint(structure_text):
    """A file holding tensor "w" (uint8 [1]) and the given tandem.structure metadata."""
    return _file({"__metadata__": {"tandem.structure": structure_text},
                  "w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}, b"\x07")


def test_load_returns_keys_in_the_order_they_were_saved():
    # fuzz_checkpoint: save wrote the header widest dtype first, so load returned {"b", "w"} for {"w", "b"}.
    obj = {"w": tandem.ones(2, 2), "b": tandem.tensor([-1, 7]), "m": tandem.tensor([True])}
    out = io.BytesIO()
    tandem.save(obj, out)
    back = tandem.load(io.BytesIO(out.getvalue()))
    assert list(back) == ["w", "b", "m"]
    assert [back[k].tolist() for k in back] == [[[1.0, 1.0], [1.0, 1.0]], [-1, 7], [True]]


def test_checkpoint_with_a_bool_dict_key_is_refused():
    # fuzz_checkpoint: {"dict": [[true, ...]]} loaded as {True: ...}, which save then refused.
    with pytest.raises(ValueError, match="^tandem.load: malformed dict entry in the file's metadata$"):
        tandem.load(_checkpoint('{"dict": [[true, {"value": 1}]]}'))
    assert tandem.load(_checkpoint('{"dict": [[1, {"tensor": "w"}]]}'))[1].tolist() == [7]


def test_header_with_a_non_string_dtype_is_refused():
    # Was TypeError: unhashable type: 'list'.
    with pytest.raises(ValueError, match=r"^tandem.load: tensor 'a' has unsupported dtype \[1\]$"):
        tandem.load(_file({"a": {"dtype": [1], "shape": [1], "data_offsets": [0, 1]}}, b"\0"))


def test_header_shape_whose_element_count_or_strides_overflow_is_refused():
    # Was RuntimeError from the C++ tensor constructor ("numel: integer multiplication overflow", and since
    # contiguous_strides checks, "Stride calculation overflowed").
    for shape in ([2**62, 2**62, 0], [0, 2**62, 2**62]):  # element count; contiguous strides
        with pytest.raises(ValueError, match=rf"^tandem.load: tensor 'a' has a shape \[{shape[0]}, {shape[1]}, "
                                             rf"{shape[2]}\] whose element count or strides overflow int64\n"):
            tandem.load(_file({"a": {"dtype": "U8", "shape": shape, "data_offsets": [0, 0]}}))
    shape = [2**62, 0, 2**62]
    assert tandem.load(_file({"a": {"dtype": "U8", "shape": shape, "data_offsets": [0, 0]}}))["a"].shape == tuple(shape)


def test_numbers_past_pythons_digit_limit_are_refused():
    # Was a bare ValueError from int() ("Exceeds the limit (4300 digits) ..."), without tandem.load's words.
    text = b'{"a": ' + b"1" * 5000 + b"}"
    with pytest.raises(ValueError, match="^tandem.load: invalid header: not valid UTF-8 JSON"):
        tandem.load(io.BytesIO(struct.pack("<Q", len(text)) + text))
    with pytest.raises(ValueError, match="^tandem.load: malformed structure in the file's metadata$"):
        tandem.load(_checkpoint('{"value": ' + "1" * 5000 + "}"))


def test_slice_with_a_step_past_the_end():
    # fuzz_views: the stride * step overflowed. PyTorch raises here; tandem returns the one element, as NumPy.
    x = tandem.arange(8.0).reshape(4, 2)
    assert x[::2**62].tolist() == [[0.0, 1.0]]
    assert x[1:, ::2**63 - 1].tolist() == [[2.0], [4.0], [6.0]]
    assert x[:, ::2**63 - 1][:, None].tolist() == [[[0.0]], [[2.0]], [[4.0]], [[6.0]]]
    # The stride of a new dim in front of a huge one of an empty tensor overflowed.
    assert tandem.zeros(0).view(2**63 - 1, 0, 60).unsqueeze(0).shape == (1, 2**63 - 1, 0, 60)


def test_view_and_empty_shapes_that_overflow_are_refused():
    with pytest.raises(RuntimeError, match=r"^numel: integer multiplication overflow\nhint: the shape "
                                           r"\[4611686018427387904, 4, 0\] has more elements than int64 holds$"):
        tandem.zeros(0).view(2**62, 4, 0)
    with pytest.raises(RuntimeError, match="^Stride calculation overflowed\nhint: shape "):  # PyTorch's first line
        tandem.empty(0, 2**62, 4)


def test_chunk_and_split_with_huge_counts():
    assert [p.tolist() for p in tandem.arange(4).chunk(2**63 - 1)] == [[0], [1], [2], [3]]
    with pytest.raises(RuntimeError, match=r"^split_with_sizes expects split_sizes to sum exactly to 4 "):
        tandem.arange(4).split([2**63 - 1, 2])


def test_expand_gives_new_size_one_dims_pytorchs_strides():
    # test_properties found it: x.expand(1, *x.shape) gave the new dim stride 0 where PyTorch gives it the
    # contiguous stride, so an empty slice of that dim had another storage offset.
    import torch

    for shape, target in [((1,), (1, 1)), ((3,), (1, 3)), ((3,), (2, 1, 3)), ((2, 3), (1, 1, 2, 3)), ((), (1, 1)),
                          ((0,), (1, 0))]:
        t = torch.zeros(shape).expand(*target)
        x = (tandem.zeros(*shape) if shape else tandem.tensor(0.0)).expand(*target)
        assert x.stride() == t.stride(), (shape, target)
        assert x[1:].storage_offset() == t[1:].storage_offset(), (shape, target)
