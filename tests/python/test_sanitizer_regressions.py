"""Inputs on which the sanitizer build (`make test-asan`, docs/reliability.md) once found undefined behaviour.
Each case also checks the defined answer (PyTorch's, where it has one); under ASan+UBSan a regression fails
the run with the sanitizer's report."""
import numpy as np
import pytest
import torch

import tandem

I64_MAX = 2**63 - 1
I32_MAX = 2**31 - 1

# Integer arithmetic wraps (two's complement) as in PyTorch, instead of overflowing a signed type.
WRAPPING = {
    "add/int32": lambda L: L.tensor([I32_MAX, -I32_MAX - 1], dtype=L.int32) + L.tensor([1, -1], dtype=L.int32),
    "add/int64": lambda L: L.tensor([I64_MAX]) + L.tensor([I64_MAX]),
    "sub/int64": lambda L: L.tensor([-I64_MAX - 1]) - L.tensor([1]),
    "mul/int32": lambda L: L.tensor([65536, -65536], dtype=L.int32) * L.tensor([65536, 65537], dtype=L.int32),
    "mul/int64": lambda L: L.tensor([2**62, 3]) * L.tensor([4, I64_MAX]),
    "pow/int64": lambda L: L.tensor([3, -7]) ** L.tensor([50, 41]),
    "sum/int64": lambda L: L.tensor([I64_MAX, I64_MAX, 5]).sum(),
    "sum/int32_dim": lambda L: L.full((3, 2**16), I32_MAX, dtype=L.int32).sum(1),
    "prod/int64": lambda L: L.tensor([2**40, 2**40, 3]).prod(),
    "prod/int8_dim": lambda L: L.full((2, 70), -3, dtype=L.int8).prod(1),
    "cumsum/int64": lambda L: L.tensor([I64_MAX, 1, 1]).cumsum(0),
}


# Reductions over a size-0 dim give the identity; the CPU loops once divided by the empty dim's size.
EMPTY_DIM = {
    "sum/rows": lambda L: L.ones(2, 0, 3).sum(1),
    "sum/inner": lambda L: L.ones(3, 4, 0).sum(2),
    "sum/two_dims": lambda L: L.ones(2, 0, 5, 3).sum((1, 2)),
    "prod/int32": lambda L: L.ones(2, 0, 3, dtype=L.int32).prod(1),
    "sum/outer_and_inner": lambda L: L.ones(0, 5, 2).sum((0, 2)),
    "any": lambda L: L.ones(2, 0, 3).any(1),
    "logsumexp": lambda L: L.ones(2, 0, 3).logsumexp(1),
}


@pytest.mark.parametrize("name", sorted(EMPTY_DIM))
def test_reductions_over_an_empty_dim_match_torch(name, device):
    got = EMPTY_DIM[name](_on(tandem, device))
    want = EMPTY_DIM[name](torch)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert got.cpu().tolist() == want.tolist()


@pytest.mark.parametrize("name", sorted(WRAPPING))
def test_integer_overflow_wraps_like_torch(name, device):
    got = WRAPPING[name](_on(tandem, device))
    want = WRAPPING[name](torch)
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    assert got.cpu().tolist() == want.tolist()


class _on:
    """The library `lib` with tensor/full creating on `device`."""

    def __init__(self, lib, device):
        self._lib, self._device = lib, device

    def __getattr__(self, name):
        return getattr(self._lib, name)

    def tensor(self, data, **kw):
        return self._lib.tensor(data, device=self._device, **kw)

    def full(self, size, value, **kw):
        return self._lib.full(size, value, device=self._device, **kw)

    def ones(self, *size, **kw):
        return self._lib.ones(*size, device=self._device, **kw)


def _misaligned(dtype, n):
    """An n-element array whose data starts one byte past an aligned address."""
    itemsize = np.dtype(dtype).itemsize
    raw = np.arange(n * itemsize + itemsize, dtype=np.uint8)
    return np.frombuffer(raw.data, dtype=dtype, count=n, offset=1)


@pytest.mark.parametrize("make", [tandem.tensor, tandem.as_tensor])
@pytest.mark.parametrize("dtype", ["f8", "i4", "f2"])
def test_tensor_and_as_tensor_copy_misaligned_arrays(make, dtype):
    a = _misaligned(dtype, 6)
    assert not a.flags.aligned
    for view in [a, a[::2], a[::-1], a.reshape(2, 3).T]:
        t = make(view)
        assert t.data_ptr() % a.itemsize == 0
        np.testing.assert_array_equal(t.numpy(), view)
        np.testing.assert_array_equal((t + t).numpy(), view + view)


def test_from_numpy_refuses_misaligned_arrays():
    a = _misaligned("f8", 3)
    with pytest.raises(ValueError, match=r"^given numpy array is not aligned to its 8-byte elements, and a tensor "
                                         r"can only share aligned memory\.\nhint: tandem\.tensor\(a\) copies it"):
        tandem.from_numpy(a)
    shared = np.require(a, requirements="A")
    assert tandem.from_numpy(shared).data_ptr() == shared.ctypes.data
    # Nothing to read in an empty array, so its address does not matter.
    assert tandem.from_numpy(_misaligned("f8", 0)).shape == (0,)


def _odd_bools():
    return np.array([2, 0, 1, 255], np.uint8).view(np.bool_)


@pytest.mark.parametrize("make", [tandem.tensor, tandem.as_tensor])
def test_bool_arrays_with_bytes_other_than_0_and_1_are_copied_as_true_false(make):
    t = make(_odd_bools())
    assert t.dtype is tandem.bool and t.tolist() == [True, False, True, True]
    assert t.sum().item() == 3 and (~t).tolist() == [False, True, False, False]
    assert make(_odd_bools()[::-1]).tolist() == [True, True, False, True]


def test_from_numpy_refuses_bool_bytes_other_than_0_and_1():
    with pytest.raises(ValueError, match=r"^given numpy array of bools holds bytes other than 0 and 1, which a "
                                         r"tensor cannot share\.\nhint: tandem\.tensor\(a\) copies it"):
        tandem.from_numpy(_odd_bools())
    ok = np.array([1, 0, 1], np.uint8).view(np.bool_)
    assert tandem.from_numpy(ok).data_ptr() == ok.ctypes.data


def test_conv2d_padding_that_overflows_the_output_size_is_refused():
    with pytest.raises(RuntimeError, match=r"^conv2d: the output size overflows for input size 4, padding "
                                           r"4611686018427387904, dilation 1 and kernel size 2\nhint:"):
        tandem.nn.functional.conv2d(tandem.ones(1, 1, 4, 4), tandem.ones(1, 1, 2, 2), padding=2**62)


def test_arange_sizes_between_int64_extremes_without_overflow():
    # Python's range gives these four; PyTorch's int64 size arithmetic overflows (to an empty result).
    assert tandem.arange(-I64_MAX - 1, I64_MAX, 2**62).tolist() == list(range(-I64_MAX - 1, I64_MAX, 2**62))
    with pytest.raises(RuntimeError, match=r"^invalid size, possible overflow\?\nhint:"):
        tandem.arange(0, I64_MAX, 1)


def test_cat_whose_size_overflows_is_refused():
    big = tandem.ones(1).expand(2**62)
    with pytest.raises(RuntimeError, match=r"^cat: the result's size in dim 0 overflows\nhint:"):
        tandem.cat([big, big])


def test_from_dlpack_refuses_bool_bytes_other_than_0_and_1():
    msg = r"^from_dlpack\(\): the bool tensor holds bytes other than 0 and 1, which a tensor cannot share"
    with pytest.raises(ValueError, match=msg):
        tandem.from_dlpack(_odd_bools())
    with pytest.raises(ValueError, match=msg):
        tandem.from_dlpack(_odd_bools()[::2])  # strided: the 2 is an element
    # Bytes between strided elements are not elements: [::2] of [1, 2, 0, 2] is [1, 0].
    between = np.array([1, 2, 0, 2], np.uint8).view(np.bool_)[::2]
    assert tandem.from_dlpack(between).tolist() == [True, False]
    ok = np.array([1, 0, 1], np.uint8).view(np.bool_)
    shared = tandem.from_dlpack(ok)
    assert shared.tolist() == [True, False, True] and shared.data_ptr() == ok.ctypes.data
