"""Tensor.__getitem__ / __setitem__ against PyTorch: index forms, views, broadcasting, errors."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import tandem

import oracle

# Every test here runs once per available device; the helpers below build tandem tensors on it.
pytestmark = pytest.mark.usefixtures("on_each_device")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def pair(shape, dtype="int64", layout="contiguous"):
    """The same values as a torch tensor and a tandem tensor, optionally in a non-contiguous layout."""
    n = 1
    for s in shape:
        n *= s
    base = torch.arange(n).reshape(shape) % 7 - 2
    if layout == "transposed" and len(shape) >= 2:
        base = base.transpose(0, -1).contiguous().transpose(0, -1)
    ref = base.to(getattr(torch, dtype))
    mine = tandem.tensor(ref.contiguous().tolist(), dtype=getattr(tandem, dtype)) if n else tandem.zeros(
        *shape, dtype=getattr(tandem, dtype))
    if layout == "transposed" and len(shape) >= 2:
        mine = mine.transpose(0, -1).contiguous().transpose(0, -1)
    elif layout == "strided":
        # A view with gaps: every other element of a bigger tensor.
        big_ref = torch.zeros(*shape[:-1], shape[-1] * 2, dtype=ref.dtype)
        big_ref[..., ::2] = ref
        big = tandem.tensor(big_ref.tolist(), dtype=getattr(tandem, dtype), device=oracle.current_device)
        return big_ref[..., ::2], big[..., ::2]
    return ref, mine.to(oracle.current_device)


def same(mine, ref):
    assert isinstance(mine, tandem.Tensor)
    assert tuple(mine.shape) == tuple(ref.shape), (mine.shape, ref.shape)
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert mine.tolist() == ref.tolist()


def lib_index(spec, lib):
    """Builds an index for torch or tandem from a spec: ('t', data) -> int tensor, ('m', data) -> bool mask."""
    if isinstance(spec, tuple) and len(spec) == 2 and spec[0] in ("t", "m", "i32"):
        kind, data = spec
        dtype = {"t": lib.int64, "m": lib.bool, "i32": lib.int32}[kind]
        return lib.tensor(data, dtype=dtype)
    if isinstance(spec, tuple):
        return tuple(lib_index(s, lib) for s in spec)
    return spec


S = slice
INDEX_FORMS = [
    0, -1, 3, (1, 2), (1, 2, 3), (-1, -2, -3),
    S(None), S(1, 3), S(None, None, 2), S(-3, None), S(1, -1, 3), S(10, 20), S(-100, 100), (S(None), S(1, 4, 2)),
    (..., 1), (1, ...), (..., S(None, 2)), (1, ..., 2), ..., (..., 0, ...), (None, ..., None, ...),
    None, (None, 0), (0, None, S(None), None), (..., None), (None, ..., None),
    True, False, (0, True), (True, 1, False),
    [0, 2], [-1, 0, 0], [], ([0, 1], [1, 2]), ([[0], [1]], [0, 2]),
    ("t", [1, 0]), ("i32", [1, 3]), ("t", [[0, 1], [2, 3]]), ("t", 2),
    (S(None), [0, 2]), (S(None), S(None), [0, 5, 1]), ([0, 1], S(None), [1, 2]), ([0, 1], 1, [2, 3]),
    (S(None), [0, 1], [2, 3]), (S(None), [[0], [1]], [2, 3]), (0, [1, 2], [3, 4]), (None, [0, 1], S(None), [1, 2]),
    ("m", [True, False, True, False]), (S(None), ("m", [True, False, True, False, True])),
    ("m", [[True, False, True, False, True]] * 3 + [[False] * 5]), (..., ("m", [True] * 3 + [False] * 3)),
    (("m", [True, False, True, False]), [0, 1]), ([1], ("m", [[True, False, True, False, True, False]] * 5)),
    (1, ("m", [False] * 5)), ("m", True), ("m", False),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("spec", INDEX_FORMS, ids=repr)
def test_getitem_matches_torch(spec, layout):
    ref, mine = pair((4, 5, 6), layout=layout)
    same(mine[lib_index(spec, tandem)], ref[lib_index(spec, torch)])


@pytest.mark.parametrize("dtype", DTYPES)
def test_getitem_all_dtypes(dtype):
    ref, mine = pair((3, 4), dtype)
    for spec in [1, (S(None), 2), ([0, 2], S(1, 3)), ("m", [True, False, True])]:
        same(mine[lib_index(spec, tandem)], ref[lib_index(spec, torch)])


def test_zero_dim_and_empty_tensors():
    ref, mine = pair((), "float32")
    for spec in [None, ..., (), True, False, (None, None)]:
        same(mine[spec], ref[spec])
    ref, mine = pair((0, 3))
    for spec in [S(None), (S(None), 1), ([],), (S(None), [0, 2])]:
        same(mine[lib_index(spec, tandem)], ref[lib_index(spec, torch)])


def test_numpy_and_tensor_scalars_index_like_ints():
    import numpy as np

    ref, mine = pair((4, 5))
    same(mine[np.int64(2)], ref[2])
    same(mine[tandem.tensor(3)], ref[3])
    same(mine[1, tandem.tensor(-1)], ref[1, -1])
    same(mine[S(tandem.tensor(1), tandem.tensor(3))], ref[1:3])
    same(mine[np.array([0, 3, 3])], ref[torch.tensor([0, 3, 3])])
    same(mine[np.array([True, False, True, True]), np.array(1)], ref[torch.tensor([True, False, True, True]), 1])


def test_numpy_index_arrays_keep_their_dtype_as_pytorch():
    device = oracle.current_device
    # PyTorch reads a NumPy index array as a tensor of its dtype: a uint8 array is a (deprecated) mask, not the
    # positions its values name; other integer and float arrays index positions (floats truncated).
    ref = torch.arange(12.0).reshape(3, 4)
    mine = tandem.arange(12.0, device=device).reshape(3, 4)
    for index in (np.array([1, 0, 1], dtype=np.uint8), np.array(1, dtype=np.uint8), np.array(0, dtype=np.uint8),
                  (np.array([[1, 0, 1, 1]] * 3, dtype=np.uint8),), np.array([0, 2], dtype=np.int32),
                  np.array([[0, 1]], dtype=np.int16), np.array([0.5, 1.7]), np.array([], dtype=np.float64),
                  np.array([2, 0], dtype=np.uint64), np.array([True, False, True])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            theirs = ref[index]
        with warnings.catch_warnings(record=True) as ours_caught:
            warnings.simplefilter("always")
            got = mine[index]
        assert got.shape == theirs.shape and got.dtype == tandem.float32 and got.device.type == device[:4]
        assert got.cpu().tolist() == theirs.tolist(), index
        assert [str(w.message).split(" (Triggered")[0] for w in ours_caught] == \
            [str(w.message).split(" (Triggered")[0] for w in caught], index
    x = tandem.zeros(3, device=device)
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype "
                                           "unsigned char"):
        x[np.array([1, 0, 1], dtype=np.uint8)] = 5.0  # as PyTorch, whose number assignment is masked_fill_
    with pytest.warns(UserWarning, match="^indexing with dtype torch.uint8 is now deprecated"):
        x[np.array([1, 0, 1], dtype=np.uint8)] = tandem.tensor([5.0, 6.0], device=device)
    assert x.cpu().tolist() == [5.0, 0.0, 6.0]
    name = type(np.True_).__module__ + "." + type(np.True_).__name__  # numpy.bool (NumPy 2), numpy.bool_ (1.x)
    for index in (np.True_, (0, np.False_)):
        with pytest.raises(IndexError, match=r"^only integers, slices \(`:`\), ellipsis \(`\.\.\.`\), None and long or "
                                             rf"byte Variables are valid indices \(got {name}\)$"):
            mine[index]
    assert mine[True].shape == (1, 3, 4) and mine[0, False].shape == (0, 4)


def test_basic_indexing_returns_views_sharing_memory():
    x = tandem.zeros(4, 5)
    for view in [x[1], x[1:3], x[:, ::2], x[None, ..., 2], x[...], x[()]]:
        assert view._is_view_of(x)
    v = x[1:3, ::2]
    v.fill_(7)
    ref = torch.zeros(4, 5)
    ref[1:3, ::2] = 7
    assert x.tolist() == ref.tolist()
    row = x[3]
    row[1] = 5.0
    assert x[3, 1].item() == 5.0
    y = x[...]
    assert y is not x and y._is_view_of(x)


def test_advanced_indexing_copies():
    x = tandem.zeros(4, 5)
    y = x[[0, 1]]
    assert not y._is_view_of(x)
    y.fill_(1)
    assert x.tolist() == [[0.0] * 5] * 4


SET_FORMS = [
    0, -1, (1, 2), S(1, 3), (S(None), S(None, None, 2)), (..., 1), (None, 1), [0, 2], ([0, 1], [1, 2]),
    (S(None), [0, 3]), ([0, 2], S(None), [1, 2]), ("m", [True, False, True, True]), (S(None), ("m", [True] * 5)),
    ("m", [[True, False, True, False, True]] * 4), ([[0], [1]], [0, 1]), True, False, ...,
]


@pytest.mark.parametrize("spec", SET_FORMS, ids=repr)
@pytest.mark.parametrize("value", ["number", "float_number", "tensor0d", "row", "full"])
def test_setitem_matches_torch(spec, value):
    ref, mine = pair((4, 5, 3), "float32", layout="transposed")
    target_shape = ref[lib_index(spec, torch)].shape
    if value == "number":
        rv, mv = 5, 5
    elif value == "float_number":
        rv, mv = -2.5, -2.5
    elif value == "tensor0d":
        rv, mv = torch.tensor(9.0), tandem.tensor(9.0)
    elif value == "row":
        last = target_shape[-1] if len(target_shape) else 1
        data = [float(i) for i in range(last)]
        rv, mv = torch.tensor(data), tandem.tensor(data, device=mine.device)
    else:
        rv = (torch.arange(max(1, ref[lib_index(spec, torch)].numel())).float()[: ref[lib_index(spec, torch)].numel()]
              .reshape(target_shape))
        # on mine's device: PyTorch's index_put_ moves only a 0-dim value across devices
        mv = tandem.tensor(rv.tolist(), device=mine.device) if rv.numel() else tandem.zeros(*target_shape,
                                                                                             device=mine.device)
    before = mine._version
    ref[lib_index(spec, torch)] = rv
    mine[lib_index(spec, tandem)] = mv
    assert mine.tolist() == ref.tolist()
    assert (mine._version > before) == (spec is not False)


@pytest.mark.parametrize("dtype", DTYPES)
def test_setitem_converts_value_dtype(dtype):
    ref, mine = pair((3, 4), dtype)
    src_ref = torch.tensor([1.75, -1.0, 0.0, 3.0])
    src = tandem.tensor(src_ref.tolist())
    ref[1] = src_ref.to(ref.dtype)
    mine[1] = src
    ref[[0, 2], 1:3] = 1
    mine[[0, 2], 1:3] = 1
    assert mine.tolist() == ref.tolist()


def test_setitem_drops_leading_unit_dims_and_handles_overlap():
    ref, mine = pair((3, 4), "float32")
    ref[0] = torch.ones(1, 1, 4)
    mine[0] = tandem.ones(1, 1, 4)
    ref[1:3] = ref[0:2].clone()
    mine[1:3] = mine[0:2]
    ref[[0, 1]] = ref[1].clone()
    mine[[0, 1]] = mine[1]
    assert mine.tolist() == ref.tolist()


def test_setitem_writes_through_views_to_base():
    base = tandem.zeros(3, 4)
    view = base[1:]
    view[:, 2] = 8
    view[[0], [0]] = 3
    ref = torch.zeros(3, 4)
    ref[1:][:, 2] = 8
    ref[1:][[0], [0]] = 3
    assert base.tolist() == ref.tolist()


def test_index_put_accumulate():
    ref = torch.zeros(5)
    mine = tandem.zeros(5)
    idx = [0, 1, 1, 4, 1]
    ref.index_put_((torch.tensor(idx),), torch.ones(5), accumulate=True)
    mine.index_put_((tandem.tensor(idx),), tandem.ones(5), accumulate=True)
    assert mine.tolist() == ref.tolist()


def check_error(fn_ref, fn_mine):
    with pytest.raises(Exception) as ref_info:
        fn_ref()
    with pytest.raises(Exception) as mine_info:
        fn_mine()
    assert type(mine_info.value).__name__ == type(ref_info.value).__name__, (mine_info.value, ref_info.value)
    # tandem names its own classes where PyTorch names torch's ("a torch.FloatTensor").
    first = lambda e: str(e).splitlines()[0].replace("torch.", "tandem.") if str(e) else ""  # noqa: E731
    assert first(mine_info.value) == first(ref_info.value)


def _set(x, idx, v):
    x[idx] = v


ERROR_CASES = [
    lambda lib, x: x[5],
    lambda lib, x: x[-4],
    lambda lib, x: x[:, 4],
    lambda lib, x: x[0, 0, 0],
    lambda lib, x: x[..., 5],
    lambda lib, x: x[::-1],
    lambda lib, x: x[:, ::-2],
    lambda lib, x: x[1.5],
    lambda lib, x: x["a"],
    lambda lib, x: x[[5]],
    lambda lib, x: x[:, [0, -7]],
    lambda lib, x: x[[0, 1], [0, 1, 2]],
    lambda lib, x: x[lib.tensor([True, False])],
    lambda lib, x: x[lib.tensor([1.0])],
    lambda lib, x: lib.tensor(3)[0],
    lambda lib, x: lib.tensor(3)[0, 0],
    lambda lib, x: _set(x, 7, 1),
    lambda lib, x: _set(x, lib.tensor([0, 1]), lib.ones(3)),
    lambda lib, x: _set(x, [0, 1], lib.ones(4, dtype=lib.int32)),
    lambda lib, x: _set(x, 0, lib.ones(3)),
    lambda lib, x: _set(x, 0, "a"),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_indexing_errors_match_torch(case):
    fn = ERROR_CASES[case]
    check_error(lambda: fn(torch, torch.zeros(3, 4)), lambda: fn(tandem, tandem.zeros(3, 4)))


def test_too_many_indices_message():
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        tandem.zeros(2, 2)[0, 0, 0]


index_item = st.one_of(
    st.integers(-4, 3),
    st.builds(slice, st.one_of(st.none(), st.integers(-6, 6)), st.one_of(st.none(), st.integers(-6, 6)),
              st.one_of(st.none(), st.integers(1, 3))),
    st.just(None),
    st.lists(st.integers(-4, 3), min_size=1, max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(index_item, max_size=4), st.booleans(), st.booleans())
def test_random_index_tuples_match_torch(items, with_ellipsis, transposed):
    ref, mine = pair((4, 4, 4), layout="transposed" if transposed else "contiguous")
    if with_ellipsis:
        items = items[:1] + [...] + items[1:]
    # Lists of several lengths must broadcast; keep lengths equal so every combination is valid in both.
    lists = [i for i in items if isinstance(i, list)]
    if lists:
        n = len(lists[0])
        items = [i[:1] * n if isinstance(i, list) and len(i) != n else i for i in items]
    idx = tuple(items)
    try:
        expected = ref[idx]
    except (IndexError, ValueError, RuntimeError) as e:
        with pytest.raises(type(e)):
            mine[idx]
        return
    same(mine[idx], expected)
    ref[idx] = -9
    mine[idx] = -9
    assert mine.tolist() == ref.tolist()


def test_non_contiguous_index_tensors_and_index_put_masks():
    ref, mine = pair((4, 5))
    idx_ref = torch.tensor([[0, 1, 2], [3, 2, 1]]).t()
    idx = tandem.tensor([[0, 1, 2], [3, 2, 1]]).t()
    assert not idx.is_contiguous()
    same(mine[idx], ref[idx_ref])
    same(mine[:, idx], ref[:, idx_ref])
    mask_ref = torch.tensor([[True, False, True, False, True]] * 4)
    mine.index_put_((tandem.tensor(mask_ref.tolist()),), tandem.tensor(-1))
    ref.index_put_((mask_ref,), torch.tensor(-1))
    same(mine, ref)
    # Distinct positions: which duplicate wins is unspecified in PyTorch too.
    mine[idx[:2, :1], 0] = tandem.tensor([[7], [8]], dtype=tandem.int64, device=mine.device)
    ref[idx_ref[:2, :1], 0] = torch.tensor([[7], [8]])
    same(mine, ref)


masks = st.lists(st.booleans(), min_size=4, max_size=4)


@settings(max_examples=80, deadline=None)
@given(masks, st.sampled_from([0, 1, 2]), st.sampled_from(["number", "row", "column"]))
def test_random_mask_setitem_matches_torch(mask, where, value):
    ref, mine = pair((4, 4, 4), "float32", layout="transposed")
    idx = [S(None)] * where + [mask]
    idx_ref = tuple(torch.tensor(i) if isinstance(i, list) else i for i in idx)
    idx_mine = tuple(tandem.tensor(i) if isinstance(i, list) else i for i in idx)
    same(mine[idx_mine], ref[idx_ref])
    shape = ref[idx_ref].shape
    if value == "number":
        rv, mv = 3.5, 3.5
    elif value == "row":
        rv = torch.arange(shape[-1], dtype=torch.float32)
        mv = tandem.tensor(rv.tolist(), device=mine.device) if rv.numel() else tandem.zeros(0, device=mine.device)
    else:
        rv = torch.arange(4, dtype=torch.float32).reshape(4, *([1] * (len(shape) - 1)))
        if len(shape) == 0 or shape[0] != 4:
            return
        mv = tandem.tensor(rv.tolist(), device=mine.device)
    ref[idx_ref] = rv
    mine[idx_mine] = mv
    assert mine.tolist() == ref.tolist()


SEQUENCE_INDICES = [
    lambda L: range(2), lambda L: (slice(None), range(1, 3)), lambda L: [L.tensor([0, 1]), L.tensor([1, 2])],
    lambda L: [[0, 1], [1, 2]], lambda L: [0, slice(None), 2], lambda L: [None, 0], lambda L: [Ellipsis, 1],
    lambda L: [0, 1], lambda L: np.array([[0, 1], [1, 0]]), lambda L: [range(2)], lambda L: [0, L.tensor(1)],
    lambda L: [0] * 40, lambda L: [np.array([0, 1])], lambda L: [[True, False]],
]


@pytest.mark.parametrize("make_index", SEQUENCE_INDICES)
def test_ranges_and_sequences_index_as_pytorch(make_index):
    # Ranges are index data; a short non-tuple sequence holding a tensor, sequence, slice, None or Ellipsis is
    # read as a tuple of indices with PyTorch's deprecation warning (PyTorch 2.15 still does this).
    def run(L, dev):
        t = L.arange(24).reshape(2, 3, 4).to(dev)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            values = t[make_index(L)].tolist()
            t[make_index(L)] = 0
        # PyTorch's C++ warnings end with where they were triggered.
        return values, t.tolist(), [str(w.message).split(" (Triggered internally")[0] for w in caught
                                    if w.category is UserWarning]

    assert run(tandem, oracle.current_device) == run(torch, "cpu")


def test_tensor_from_ranges():
    assert tandem.tensor(range(3)).tolist() == [0, 1, 2] and tandem.tensor(range(3)).dtype == tandem.int64
    assert tandem.tensor([range(2), range(2)]).tolist() == [[0, 1], [0, 1]]
    assert tandem.tensor(range(0)).shape == (0,)
