"""Indexing and joining ops against PyTorch: cat, stack, gather, scatter, index_select, masked ops, nonzero,
flip, take_along_dim, one_hot."""
import pytest
import torch

import tandem

import oracle

# Every test here runs once per available device; the helpers below build tandem tensors on it.
pytestmark = pytest.mark.usefixtures("on_each_device")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def make(shape, dtype="float32", seed=0, transposed=False):
    """A torch tensor and an equal tandem tensor; transposed=True gives both a non-contiguous layout."""
    g = torch.Generator().manual_seed(seed)
    ref = (torch.randint(-3, 4, shape, generator=g)).to(getattr(torch, dtype))
    mine = tandem.tensor(ref.tolist(), dtype=getattr(tandem, dtype)) if ref.numel() else tandem.zeros(
        *shape, dtype=getattr(tandem, dtype))
    if transposed and len(shape) >= 2:
        ref = ref.transpose(0, 1).contiguous().transpose(0, 1)
        mine = mine.transpose(0, 1).contiguous().transpose(0, 1)
        assert not mine.is_contiguous() or min(shape[:2]) <= 1
    return ref, mine.to(oracle.current_device)


def as_tandem(ref):
    dtype = getattr(tandem, str(ref.dtype).split(".")[-1])
    if ref.numel() == 0:
        return tandem.zeros(*ref.shape, dtype=dtype, device=oracle.current_device)
    return tandem.tensor(ref.tolist(), dtype=dtype, device=oracle.current_device)


def same(mine, ref):
    assert tuple(mine.shape) == tuple(ref.shape), (mine.shape, ref.shape)
    assert str(mine.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert mine.tolist() == ref.tolist()


def check_error(fn_ref, fn_mine):
    with pytest.raises(Exception) as ref_info:
        fn_ref()
    with pytest.raises(Exception) as mine_info:
        fn_mine()
    assert type(mine_info.value).__name__ == type(ref_info.value).__name__, (mine_info.value, ref_info.value)
    first = lambda e: str(e).splitlines()[0] if str(e) else ""  # noqa: E731
    assert first(mine_info.value) == first(ref_info.value)


# ---- cat / stack ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_all_dtypes_and_layouts(dtype, dim):
    a_ref, a = make((3, 4), dtype, 1)
    b_ref, b = make((3, 4), dtype, 2, transposed=True)
    same(tandem.cat([a, b, a], dim), torch.cat([a_ref, b_ref, a_ref], dim))
    same(tandem.concat((a, b), dim=dim), torch.concat((a_ref, b_ref), dim=dim))


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", ["bool", "uint8", "int32", "float16", "bfloat16", "float64"])
def test_cat_promotes_dtypes(da, db):
    a_ref, a = make((2, 3), da, 3)
    b_ref, b = make((1, 3), db, 4)
    same(tandem.cat([a, b]), torch.cat([a_ref, b_ref]))


def test_cat_skips_legacy_empty_and_handles_empty_slices():
    a_ref, a = make((2, 3))
    empty = tandem.zeros(0, device=oracle.current_device)
    same(tandem.cat([empty, a, empty]), torch.cat([torch.zeros(0), a_ref, torch.zeros(0)]))
    same(tandem.cat([a[:0], a]), torch.cat([a_ref[:0], a_ref]))
    same(tandem.cat([empty, empty]), torch.cat([torch.zeros(0), torch.zeros(0)]))
    same(tandem.concatenate([a, a], axis=1), torch.concatenate([a_ref, a_ref], axis=1))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_stack(dim):
    a_ref, a = make((2, 3), "int64", 5)
    b_ref, b = make((2, 3), "int64", 6, transposed=True)
    same(tandem.stack([a, b], dim), torch.stack([a_ref, b_ref], dim))
    same(tandem.stack((a,), dim=dim), torch.stack((a_ref,), dim=dim))


JOIN_ERRORS = [
    lambda lib: lib.cat([lib.zeros(2, 3), lib.zeros(3)]),
    lambda lib: lib.cat([lib.zeros(2, 4), lib.zeros(2, 3)]),
    lambda lib: lib.cat([lib.zeros(2, 4), lib.zeros(3, 4)], 1),
    lambda lib: lib.cat([]),
    lambda lib: lib.cat([lib.zeros(())]),
    lambda lib: lib.cat([lib.zeros(2)], 1),
    lambda lib: lib.stack([lib.zeros(3, 4), lib.zeros(2, 4)]),
    lambda lib: lib.stack([]),
    lambda lib: lib.stack([lib.zeros(2)], 2),
]


@pytest.mark.parametrize("case", range(len(JOIN_ERRORS)))
def test_join_errors_match_torch(case):
    check_error(lambda: JOIN_ERRORS[case](torch), lambda: JOIN_ERRORS[case](tandem))


def test_cat_result_is_fresh():
    a = tandem.ones(2)
    out = tandem.cat([a, a])
    assert not out._is_view_of(a)
    out.fill_(0)
    assert a.tolist() == [1.0, 1.0]


# ---- gather / scatter / index_select / take_along_dim ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_all_dtypes(dtype, dim):
    x_ref, x = make((4, 5), dtype, 7, transposed=True)
    idx_ref = torch.randint(0, x_ref.shape[dim], (3, 4), generator=torch.Generator().manual_seed(1))
    same(tandem.gather(x, dim, as_tandem(idx_ref)), torch.gather(x_ref, dim, idx_ref))
    same(x.gather(dim, as_tandem(idx_ref).t().contiguous().t()), x_ref.gather(dim, idx_ref.t().contiguous().t()))
    i32 = idx_ref.to(torch.int32)
    same(x.gather(dim, as_tandem(i32)), x_ref.gather(dim, i32))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_and_scatter_add(dtype, dim):
    x_ref, x = make((4, 5), dtype, 8)
    src_ref, src = make((4, 5), dtype, 9, transposed=True)
    # Distinct positions along dim for every slot of the other dim, so scatter is deterministic.
    n, other = x_ref.shape[dim], x_ref.shape[1 - dim]
    rows = [torch.randperm(n, generator=torch.Generator().manual_seed(i))[:3] for i in range(other)]
    idx_ref = torch.stack(rows, 1 - dim)
    idx = as_tandem(idx_ref)
    same(tandem.scatter(x, dim, idx, src), torch.scatter(x_ref, dim, idx_ref, src_ref))
    same(x.scatter(dim, idx, 1), x_ref.scatter(dim, idx_ref, 1))
    if dtype != "bool":
        dup_ref = torch.zeros_like(idx_ref)
        same(tandem.scatter_add(x, dim, as_tandem(dup_ref), src), torch.scatter_add(x_ref, dim, dup_ref, src_ref))
    before = x._version
    x.scatter_(dim, idx, src)
    x_ref.scatter_(dim, idx_ref, src_ref)
    same(x, x_ref)
    assert x._version > before


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_select(dtype, dim):
    x_ref, x = make((3, 4, 5), dtype, 10, transposed=True)
    for idx in ([0, 2, 2, 1], [], [-0]):
        i_ref = torch.tensor(idx, dtype=torch.int64)
        same(tandem.index_select(x, dim, as_tandem(i_ref)), torch.index_select(x_ref, dim, i_ref))
    i32 = torch.tensor([1, 0], dtype=torch.int32)
    same(x.index_select(dim, as_tandem(i32)), x_ref.index_select(dim, i32))


@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_take_along_dim(dim):
    x_ref, x = make((3, 4), "float32", 11)
    idx_ref = torch.argsort(x_ref, dim=dim if dim is not None else 0) if dim is not None else torch.tensor([0, 5, 11])
    if dim is not None:
        idx_ref = idx_ref[:, :1] if dim != 0 else idx_ref[:1]
    same(tandem.take_along_dim(x, as_tandem(idx_ref), dim), torch.take_along_dim(x_ref, idx_ref, dim))
    same(x.take_along_dim(as_tandem(idx_ref), dim=dim), x_ref.take_along_dim(idx_ref, dim=dim))


GATHER_ERRORS = [
    lambda lib, x: lib.gather(x, 0, lib.tensor([[0.0]])),
    lambda lib, x: lib.gather(x, 0, lib.tensor([[0]], dtype=lib.int16)),
    lambda lib, x: lib.gather(x, 0, lib.tensor([0])),
    lambda lib, x: lib.gather(x, 0, lib.tensor([[5]])),
    lambda lib, x: lib.gather(x, 1, lib.tensor([[-1]])),
    lambda lib, x: lib.gather(x, 0, lib.tensor([[0, 0, 0, 0, 0]])),
    lambda lib, x: lib.gather(x, 2, lib.tensor([[0]])),
    lambda lib, x: lib.index_select(x, 0, lib.tensor([5])),
    lambda lib, x: lib.index_select(x, 0, lib.tensor([-1])),
    lambda lib, x: lib.index_select(x, 0, lib.tensor([[0]])),
    lambda lib, x: lib.index_select(x, 0, lib.tensor([0.0])),
    lambda lib, x: lib.scatter(x, 0, lib.tensor([[0]]), lib.zeros(3, 4, dtype=lib.float64)),
    lambda lib, x: lib.scatter(x, 0, lib.tensor([[5]]), x),
    lambda lib, x: lib.scatter(x, 0, lib.tensor([[0, 0, 0, 0, 0]]), x),
    lambda lib, x: lib.scatter(x, 0, lib.tensor([[0.0]]), x),
    lambda lib, x: lib.scatter_add(x, 0, lib.tensor([[0.0]]), x),
    lambda lib, x: lib.take_along_dim(x, lib.tensor([[0]], dtype=lib.int32), 0),
    lambda lib, x: lib.take_along_dim(x, lib.tensor([0]), 0),
]


@pytest.mark.parametrize("case", range(len(GATHER_ERRORS)))
def test_gather_family_errors_match_torch(case):
    fn = GATHER_ERRORS[case]
    check_error(lambda: fn(torch, torch.zeros(3, 4)), lambda: fn(tandem, tandem.zeros(3, 4)))


# ---- masked ops / nonzero ----

@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_fill_and_select(dtype):
    x_ref, x = make((3, 4), dtype, 12, transposed=True)
    m_ref = torch.tensor([True, False, True, True])
    m = as_tandem(m_ref)
    for value in (2, 1.5, True):
        same(x.masked_fill(m, value), x_ref.masked_fill(m_ref, value))
    same(tandem.masked_fill(x, m, tandem.tensor(3)), torch.masked_fill(x_ref, m_ref, torch.tensor(3)))
    same(x.masked_select(m), x_ref.masked_select(m_ref))
    same(tandem.masked_select(x[0], as_tandem(m_ref.expand(3, 4))), torch.masked_select(x_ref[0], m_ref.expand(3, 4)))
    before = x._version
    x.masked_fill_(m, 0)
    x_ref.masked_fill_(m_ref, 0)
    same(x, x_ref)
    assert x._version > before


def test_masked_fill_broadcasts_out_of_place():
    x_ref, x = make((4,), "float32", 13)
    m_ref = torch.tensor([[True, False, True, False], [False] * 4])
    same(x.masked_fill(as_tandem(m_ref), -1), x_ref.masked_fill(m_ref, -1))


MASK_ERRORS = [
    lambda lib, x: x.masked_fill(lib.tensor([1, 0, 1, 0]), 1),
    lambda lib, x: x.masked_fill(lib.tensor([True, False, True, False]), lib.tensor([1])),
    lambda lib, x: x.masked_select(lib.tensor([1, 0, 1, 0])),
]


@pytest.mark.parametrize("case", range(len(MASK_ERRORS)))
def test_masked_errors_match_torch(case):
    fn = MASK_ERRORS[case]
    check_error(lambda: fn(torch, torch.zeros(3, 4)), lambda: fn(tandem, tandem.zeros(3, 4)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (5,), (3, 4), (2, 3, 4), (0, 3)])
def test_nonzero(dtype, shape):
    x_ref, x = make(shape, dtype, 14, transposed=True)
    same(tandem.nonzero(x), torch.nonzero(x_ref))
    same(x.argwhere(), x_ref.argwhere())
    mine, ref = x.nonzero(as_tuple=True), x_ref.nonzero(as_tuple=True)
    assert len(mine) == len(ref)
    for a, b in zip(mine, ref):
        same(a, b)


# ---- flip / one_hot ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dims", [(0,), (1,), (0, 2), (-1,), (), (0, 1, 2)])
def test_flip(dtype, dims):
    x_ref, x = make((2, 3, 4), dtype, 15, transposed=True)
    same(tandem.flip(x, dims), torch.flip(x_ref, dims))
    if dims:
        same(x.flip(*dims), x_ref.flip(*dims))
    check_error(lambda: x_ref.flip(0, 0), lambda: x.flip(0, 0))


def test_one_hot():
    f = torch.nn.functional.one_hot
    for data, n in [([0, 2, 1], -1), ([[1, 0], [3, 3]], 5), ([], 3), (2, 4)]:
        ref = torch.tensor(data, dtype=torch.int64)
        same(tandem.one_hot(as_tandem(ref), n), f(ref, n))
    for data, n, dtype in [([1, 2], -1, torch.int32), ([1, -2], -1, torch.int64), ([1, 5], 3, torch.int64),
                           ([], -1, torch.int64)]:
        ref = torch.tensor(data, dtype=dtype)
        check_error(lambda: f(ref, n), lambda: tandem.one_hot(as_tandem(ref), n))


def test_large_inputs_use_parallel_paths():
    x_ref, x = make((300, 257), "float32", 16, transposed=True)
    idx_ref = torch.randint(0, 300, (1000,), generator=torch.Generator().manual_seed(2))
    idx = as_tandem(idx_ref)
    same(x[idx], x_ref[idx_ref])
    same(tandem.index_select(x, 0, idx), torch.index_select(x_ref, 0, idx_ref))
    same(tandem.cat([x, x], 1), torch.cat([x_ref, x_ref], 1))
    y_ref, y = x_ref.clone(), x.clone()
    y_ref[idx_ref] = 1.0
    y[idx] = 1.0
    same(y, y_ref)


# ---- index_add_ / index_copy_ / index_fill_ / take / stacking helpers ----

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1])
def test_index_add_copy_fill(dtype, dim):
    x_ref, x = make((4, 5), dtype, 17, transposed=True)
    shape = [4, 5]
    shape[dim] = 3
    src_ref, src = make(tuple(shape), dtype, 18, transposed=True)
    dup = torch.tensor([1, 3, 1])
    uniq = torch.tensor([2, 0, 3])
    if dtype != "bool":
        same(x.index_add(dim, as_tandem(dup), src), x_ref.index_add(dim, dup, src_ref))
        same(tandem.index_add(x, dim, as_tandem(dup.int()), src, alpha=2),
             torch.index_add(x_ref, dim, dup.int(), src_ref, alpha=2))
    same(x.index_copy(dim, as_tandem(uniq), src), x_ref.index_copy(dim, uniq, src_ref))
    same(tandem.index_fill(x, dim, as_tandem(torch.tensor([-1, 0])), 1),
         torch.index_fill(x_ref, dim, torch.tensor([-1, 0]), 1))
    before = x._version
    x.index_fill_(dim, as_tandem(uniq), tandem.tensor(0))
    x_ref.index_fill_(dim, uniq, torch.tensor(0))
    x.index_copy_(dim, as_tandem(uniq[:1]), src[:1] if dim == 0 else src[:, :1])
    x_ref.index_copy_(dim, uniq[:1], src_ref[:1] if dim == 0 else src_ref[:, :1])
    same(x, x_ref)
    assert x._version > before


def test_index_add_float_alpha_and_accumulates_duplicates():
    x_ref, x = make((3,), "float32", 19)
    idx = torch.tensor([0, 0, 2, 0])
    src_ref, src = make((4,), "float32", 20)
    x_ref.index_add_(0, idx, src_ref, alpha=0.5)
    x.index_add_(0, as_tandem(idx), src, alpha=0.5)
    same(x, x_ref)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int8"])
def test_index_add_whole_rows(dtype):
    """index_add along dim 0 of contiguous rows with many duplicates (sparse @ dense's pattern): one offset and one
    vector loop per row on the CPU."""
    idx = torch.randint(0, 50, (300,), generator=torch.Generator().manual_seed(3))
    x_ref, x = make((50, 67), dtype, 22)
    src_ref, src = make((300, 67), dtype, 23)
    same(x.index_add(0, as_tandem(idx), src), x_ref.index_add(0, idx, src_ref))
    same(x.index_add(0, as_tandem(idx), src, alpha=2), x_ref.index_add(0, idx, src_ref, alpha=2))
    y_ref, y = x_ref.clone(), x.clone()
    y_ref.index_put_((idx,), src_ref, accumulate=True)
    y.index_put_((as_tandem(idx),), src, accumulate=True)
    same(y, y_ref)


@pytest.mark.parametrize("dtype", ["int64", "float16", "bool"])
def test_take(dtype):
    x_ref, x = make((3, 4), dtype, 21, transposed=True)
    for idx in ([0, 11, -1, 5], [[1, 2], [3, -12]], []):
        i_ref = torch.tensor(idx, dtype=torch.int64)
        same(tandem.take(x, as_tandem(i_ref)), torch.take(x_ref, i_ref))
        same(x.take(as_tandem(i_ref)), x_ref.take(i_ref))


@pytest.mark.parametrize("fn", ["hstack", "vstack", "dstack", "row_stack"])
@pytest.mark.parametrize("shapes", [[(3,), (2,)], [(2, 3), (2, 3)], [(), ()], [(2, 3, 1), (2, 3, 4)]])
def test_stacking_helpers(fn, shapes):
    refs, mines = zip(*[make(s, "float32", i) for i, s in enumerate(shapes)])
    try:
        expected = getattr(torch, fn)(list(refs))
    except RuntimeError:
        check_error(lambda: getattr(torch, fn)(list(refs)), lambda: getattr(tandem, fn)(list(mines)))
        return
    same(getattr(tandem, fn)(list(mines)), expected)


def test_fliplr_flipud():
    x_ref, x = make((2, 3), "int32", 22)
    same(x.fliplr(), x_ref.fliplr())
    same(tandem.flipud(x), torch.flipud(x_ref))


MORE_ERRORS = [
    lambda lib, x: x.index_add_(0, lib.tensor([[0]]), lib.ones(1, 4)),
    lambda lib, x: x.index_add_(0, lib.tensor([0]), lib.ones(1, 4, dtype=lib.float64)),
    lambda lib, x: x.index_add_(0, lib.tensor([0]), lib.ones(2, 4)),
    lambda lib, x: x.index_add_(0, lib.tensor([0]), lib.ones(1, 3)),
    lambda lib, x: x.index_add_(0, lib.tensor([5]), lib.ones(1, 4)),
    lambda lib, x: x.index_add_(0, lib.tensor([-1]), lib.ones(1, 4)),
    lambda lib, x: x.index_add_(0, lib.tensor([0.0]), lib.ones(1, 4)),
    lambda lib, x: x.index_copy_(0, lib.tensor([0], dtype=lib.int32), lib.ones(1, 4)),
    lambda lib, x: x.index_copy_(0, lib.tensor([0]), lib.ones(2, 4)),
    lambda lib, x: x.index_copy_(0, lib.tensor([0]), lib.ones(1, 4, dtype=lib.float64)),
    lambda lib, x: x.index_copy_(0, lib.tensor([7]), lib.ones(1, 4)),
    lambda lib, x: x.index_fill_(0, lib.tensor([7]), 1),
    lambda lib, x: x.index_fill_(0, lib.tensor([0], dtype=lib.int32), 1),
    lambda lib, x: x.index_fill_(0, lib.tensor([0]), lib.tensor([1.0])),
    lambda lib, x: lib.take(x, lib.tensor([12])),
    lambda lib, x: lib.take(x, lib.tensor([0], dtype=lib.int32)),
    lambda lib, x: lib.vstack([]),
    lambda lib, x: lib.hstack([lib.zeros(2), lib.zeros(3, 1)]),
    lambda lib, x: lib.fliplr(lib.zeros(2)),
    lambda lib, x: lib.flipud(lib.zeros(())),
]


@pytest.mark.parametrize("case", range(len(MORE_ERRORS)))
def test_index_select_family_errors_match_torch(case):
    fn = MORE_ERRORS[case]
    check_error(lambda: fn(torch, torch.zeros(3, 4)), lambda: fn(tandem, tandem.zeros(3, 4)))


def test_zero_dim_inputs_act_as_one_element_vectors():
    x_ref, x = torch.tensor(5.0), tandem.tensor(5.0)
    i0_ref, i0 = torch.tensor(0), tandem.tensor(0)
    same(tandem.take(x, i0), torch.take(x_ref, i0_ref))
    same(tandem.index_select(x, 0, i0), torch.index_select(x_ref, 0, i0_ref))
    same(tandem.gather(x, 0, i0), torch.gather(x_ref, 0, i0_ref))
    same(tandem.take_along_dim(x, i0), torch.take_along_dim(x_ref, i0_ref))
    same(tandem.scatter(x, 0, i0, tandem.tensor(2.0)), torch.scatter(x_ref, 0, i0_ref, torch.tensor(2.0)))
    same(tandem.flip(x, (0,)), torch.flip(x_ref, (0,)))
    same(tandem.nonzero(x), torch.nonzero(x_ref))
