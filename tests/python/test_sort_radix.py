"""sort/argsort/topk against PyTorch on the paths of the CPU sort kernel (src/kernels/cpu/sort_kernels.cpp):
comparison sort below 64 elements a row per key byte (256 for float32), LSD radix sort from there, a single row split across threads from
131072 elements, and topk's select-then-sort when k is at most 1/16 of the row. Values carry many ties, NaNs,
infinities and both zeros, so PyTorch's orders (NaN largest, -0.0 tied with 0.0, stable positions) are checked
exactly, including the sign of each zero in the values."""
import pytest
import torch

import tandem
from oracle import DTYPE_NAMES, FLOAT_NAMES, from_torch, tdtype, to_torch, torch_dtype

RADIX_MIN_PER_BYTE = 64  # the radix path starts at 64 * itemsize elements a row (bool: 1 byte)
PARALLEL_ROW_MIN = 1 << 17


def tied_values(n, name, seed=0):
    """n values of dtype `name` with many duplicates; floats also hold NaN, +-inf, 0.0 and -0.0."""
    g = torch.Generator().manual_seed(seed + n)
    if name == "bool":
        return torch.rand(n, generator=g) > 0.5
    if name not in FLOAT_NAMES:
        info = torch.iinfo(torch_dtype(name))
        x = torch.randint(-20, 20, (n,), generator=g)
        x = torch.where(torch.rand(n, generator=g) < 0.05, torch.tensor(info.min), x)  # the key's extremes
        x = torch.where(torch.rand(n, generator=g) < 0.05, torch.tensor(info.max), x)
        return x.clamp(info.min, info.max).to(torch_dtype(name))
    x = torch.randint(-8, 8, (n,), generator=g).double() / 4
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, -float("nan")], dtype=torch.float64)
    pick = torch.randint(0, 30, (n,), generator=g)
    x = torch.where(pick < len(specials), specials[pick.clamp(max=len(specials) - 1)], x)
    return x.to(torch_dtype(name))


def assert_bitwise_values(got, expected, zero_signs=True):
    """Equal values with NaN where PyTorch has NaN and (with zero_signs) each zero's sign as PyTorch's."""
    got = to_torch(got)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.is_floating_point:
        assert torch.equal(got.isnan(), expected.isnan())
        keep = ~expected.isnan()
        assert torch.equal(got[keep], expected[keep])
        if zero_signs:
            assert torch.equal(got[keep].signbit(), expected[keep].signbit())
    else:
        assert torch.equal(got, expected)


def check_sort(x, device, dim=-1, descending=False, stable=True):
    t = from_torch(x, device)
    values, indices = tandem.sort(t, dim=dim, descending=descending, stable=stable)
    expected = torch.sort(x, dim=dim, descending=descending, stable=True)
    assert values.device == tandem.device(device) and indices.dtype == tandem.int64
    assert_bitwise_values(values, expected.values)
    # Every tandem sort is stable, which is also a valid unstable result: the positions are PyTorch's stable ones.
    assert torch.equal(to_torch(indices), expected.indices)
    assert torch.equal(to_torch(tandem.argsort(t, dim=dim, descending=descending, stable=stable)), expected.indices)


@pytest.mark.parametrize("name", DTYPE_NAMES)
@pytest.mark.parametrize("offset", [-1, 0, 1, 5000])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_around_radix_threshold(name, offset, descending, device):
    n = RADIX_MIN_PER_BYTE * torch.empty(0, dtype=torch_dtype(name)).element_size() + offset
    check_sort(tied_values(n, name), device, descending=descending, stable=True)


@pytest.mark.parametrize("name", ["float32", "int64", "float16"])
@pytest.mark.parametrize("stable", [False, True])
@pytest.mark.parametrize("descending", [False, True])
def test_unstable_flag_gives_the_stable_order(name, stable, descending, device):
    check_sort(tied_values(3000, name, seed=1), device, descending=descending, stable=stable)


@pytest.mark.parametrize("name", ["float32", "float64", "int32", "bfloat16"])
@pytest.mark.parametrize("threads", [1, 2])
def test_single_long_row_split_across_threads(name, threads, device):
    old = tandem.get_num_threads()
    tandem.set_num_threads(threads)
    try:
        for n in (PARALLEL_ROW_MIN - 1, PARALLEL_ROW_MIN + 3):
            check_sort(tied_values(n, name, seed=2), device, descending=False)
        check_sort(tied_values(PARALLEL_ROW_MIN + 3, name, seed=3), device, descending=True)
    finally:
        tandem.set_num_threads(old)


@pytest.mark.parametrize("name", ["float32", "int16", "float64"])
@pytest.mark.parametrize("dim", [0, 1])
def test_matrix_rows_along_each_dim(name, dim, device):
    x = tied_values(300 * 257, name, seed=4).reshape(300, 257)
    check_sort(x, device, dim=dim)
    check_sort(x.t(), device, dim=dim, descending=True)  # a transposed (non-contiguous) input


def test_special_values_order(device):
    nan, inf = float("nan"), float("inf")
    row = [0.0, -0.0, nan, -nan, 1.0, -0.0, 0.0, -inf, inf, -1.0, nan, -5e-324, 5e-324]
    x = torch.tensor(row * 50, dtype=torch.float64)  # 650 elements: the radix path; the head: comparison sort
    for descending in (False, True):
        check_sort(x, device, descending=descending)
        check_sort(x[:13], device, descending=descending)


@pytest.mark.parametrize("name", ["float32", "int64", "float16"])
@pytest.mark.parametrize("k", [1, 7, 62, 63, 400, 999, 1000])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_select_and_sort_paths(name, k, largest, device):
    # k <= 1000 // 16 = 62 selects first; larger k sorts the whole row.
    x = tied_values(1000, name, seed=5)
    values, indices = tandem.topk(from_torch(x, device), k, largest=largest)
    expected = torch.topk(x, k, largest=largest)
    # PyTorch's topk picks any of tied elements, so which zero (-0.0 or 0.0) comes out is open.
    assert_bitwise_values(values, expected.values, zero_signs=False)
    # PyTorch leaves the order of tied positions open; tandem gives them in position order.
    got = to_torch(indices)
    assert_bitwise_values(values, x[got])
    assert len(set(got.tolist())) == k
    groups = {}  # tied positions by value; all NaNs tie, and -0.0 == 0.0 as a dict key
    for p in got.tolist():
        v = x[p].item()
        groups.setdefault("nan" if v != v else v, []).append(p)
    assert all(g == sorted(g) for g in groups.values())


@pytest.mark.parametrize("name", ["float32", "uint8"])
def test_large_values_round_trip_through_keys(name, device):
    # Values come back from the keys: every distinct value must survive the key and its inverse.
    g = torch.Generator().manual_seed(6)
    if name == "uint8":
        x = torch.randint(0, 256, (4000,), generator=g, dtype=torch.uint8)
    else:
        x = (torch.randn(4000, generator=g) * torch.logspace(-40, 38, 4000)).float()
    check_sort(x, device)
    check_sort(x, device, descending=True)


def test_empty_and_single(device):
    for shape in [(0,), (1,), (3, 0), (0, 4)]:
        v, i = tandem.sort(tandem.zeros(*shape, device=device), dim=-1)
        assert tuple(v.shape) == shape and tuple(i.shape) == shape
    v, i = tandem.sort(tandem.tensor(2.5, device=device))
    assert v.item() == 2.5 and i.item() == 0
    assert tdtype("float32") == v.dtype
