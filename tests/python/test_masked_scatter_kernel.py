"""masked_scatter's device kernel (session 48: one pass, the mask's true positions numbered by a count per chunk) and
the assignment x[mask] = values that goes through it: every element width, masks with no, some and every position
true, broadcast masks, masks over leading dims, non-contiguous selves and sources, sizes that split into many chunks,
gradients, and the errors, each against PyTorch (the oracle, on the CPU)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import tandem  # noqa: E402

DTYPES = ["bool", "uint8", "int16", "float16", "bfloat16", "int32", "float32", "int64", "float64", "complex64",
          "complex128"]


def _pair(array, dtype, device):
    """The same values as a PyTorch tensor (CPU) and a tandem tensor on device."""
    t = torch.from_numpy(np.ascontiguousarray(array)).to(getattr(torch, dtype))
    return t, tandem.from_numpy(np.ascontiguousarray(array)).to(getattr(tandem, dtype)).to(device)


def _values(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 40).astype(np.float64) + 1j * rng.standard_normal(shape)


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    got = ours.cpu()
    if theirs.dtype == torch.bfloat16:
        got, theirs = got.float(), theirs.float()
    np.testing.assert_array_equal(got.numpy(), theirs.numpy())


def _real(array, dtype):
    return array if dtype.startswith("complex") else array.real


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pattern", ["none", "all", "random", "first_last"])
@pytest.mark.parametrize("in_place", [False, True])
def test_masked_scatter_every_width(dtype, pattern, in_place, device):
    shape = (37, 29)
    rng = np.random.default_rng(1)
    mask = {"none": np.zeros(shape, bool), "all": np.ones(shape, bool),
            "random": rng.random(shape) < 0.5, "first_last": np.zeros(shape, bool)}[pattern]
    mask.flat[0] = mask.flat[-1] = pattern != "none"
    x_t, x = _pair(_real(_values(shape, 2), dtype), dtype, device)
    s_t, s = _pair(_real(_values((40, 30), 3), dtype), dtype, device)  # more than needed
    m_t, m = _pair(mask, "bool", device)
    if in_place:
        x_t.masked_scatter_(m_t, s_t)
        assert x.masked_scatter_(m, s) is x
        _same(x, x_t)
    else:
        _same(x.masked_scatter(m, s), x_t.masked_scatter(m_t, s_t))
        _same(x, x_t)  # unchanged


@pytest.mark.parametrize("n", [1, 65535, 65537, 300_001, 2_000_003])
def test_masked_scatter_many_chunks(n, device):
    """Sizes around and well past the chunk size: each chunk's count must start the next one's source."""
    rng = np.random.default_rng(n)
    mask = rng.random(n) < 0.3
    x_t, x = _pair(np.zeros(n, np.float32), "float32", device)
    s_t, s = _pair(np.arange(n, dtype=np.float32), "float32", device)
    m_t, m = _pair(mask, "bool", device)
    _same(x.masked_scatter_(m, s), x_t.masked_scatter_(m_t, s_t))
    _same(x.masked_scatter(m, s), x_t.masked_scatter(m_t, s_t))


@pytest.mark.parametrize("threads", [1, 2])
def test_masked_scatter_threads_agree(threads):
    before = tandem.get_num_threads()
    tandem.set_num_threads(threads)
    try:
        mask = np.random.default_rng(5).random(1_000_003) < 0.5
        x_t, x = _pair(np.zeros(mask.size), "float64", "cpu")
        s_t, s = _pair(np.arange(mask.size, dtype=np.float64), "float64", "cpu")
        m_t, m = _pair(mask, "bool", "cpu")
        _same(x.masked_scatter(m, s), x_t.masked_scatter(m_t, s_t))
    finally:
        tandem.set_num_threads(before)


def _same_outcome(results):
    """[PyTorch's, tandem's] ("value", tensor) or ("error", (type name, first line)): the same outcome."""
    assert results[1][0] == results[0][0], results
    if results[0][0] == "error":
        assert results[1][1] == results[0][1]
    else:
        _same(results[1][1], results[0][1])


def _outcome(call):
    try:
        return "value", call()
    except Exception as e:  # noqa: BLE001 (compared by _same_outcome)
        return "error", (type(e).__name__, str(e).split("\n")[0])


FORMS = {
    "broadcast_mask_row": lambda L, x, s, m: x.masked_scatter(m[:1], s),
    "broadcast_mask_column": lambda L, x, s, m: x.masked_scatter(m[:, :1], s),
    "broadcast_self": lambda L, x, s, m: x[:1].masked_scatter(m, s),
    "transposed_self": lambda L, x, s, m: x.t().masked_scatter(m.t(), s),
    "transposed_self_in_place": lambda L, x, s, m: x.t().masked_scatter_(m.t(), s) and x,
    "strided_self_in_place": lambda L, x, s, m: x[:, ::2].masked_scatter_(m[:, ::2], s) and x,
    "strided_source": lambda L, x, s, m: x.masked_scatter(m, s.t()),
    "source_2d_order": lambda L, x, s, m: x.masked_scatter(m, s[:3, :5]),
    "source_aliases_self": lambda L, x, s, m: x.masked_scatter_(m, x.flip(0)),
    "mask_aliases_self": lambda L, x, s, m: (lambda b: b.masked_scatter_(b, L.zeros_like(b)))(x > 0),
    "short_source": lambda L, x, s, m: x.masked_scatter(m, s[:2, :2]),
    "float_mask": lambda L, x, s, m: x.masked_scatter(m.float(), s),
    "dtype_mismatch": lambda L, x, s, m: x.masked_scatter(m, s.double()),
    "bad_broadcast": lambda L, x, s, m: x.masked_scatter(m[:, :3], s),
    "in_place_grows": lambda L, x, s, m: x[:1].masked_scatter_(m, s),
    "zero_size": lambda L, x, s, m: x[:0].masked_scatter(m[:0], s),
    "0d": lambda L, x, s, m: x[0, 0].masked_scatter(m[0, 1], s),
    "uint16": lambda L, x, s, m: x.to(L.uint16).masked_scatter(m, s.to(L.uint16)),
}


@pytest.mark.parametrize("name", sorted(FORMS))
def test_masked_scatter_forms(name, device):
    mask = np.random.default_rng(7).random((6, 8)) < 0.5
    mask[0, 1] = True
    results = []
    for L, d in ((torch, "cpu"), (tandem, device)):
        x = L.arange(48.0, device=d).reshape(6, 8) - 20
        s = -L.arange(1.0, 49.0, device=d).reshape(8, 6)
        m = L.tensor(mask.tolist(), device=d)
        results.append(_outcome(lambda: FORMS[name](L, x, s, m)))
    _same_outcome(results)


ASSIGNMENTS = {
    "full_mask": lambda L, x, m, v: x.__setitem__(m, v(int(m.sum()))),
    "leading_mask": lambda L, x, m, v: x.__setitem__(m[:, 0], v(int(m[:, 0].sum()), 5)),
    "leading_mask_3d": lambda L, x, m, v: x.reshape(3, 2, 5).__setitem__(m[:, 0].reshape(3, 2),
                                                                         v(int(m[:, 0].sum()), 5)),
    "values_with_leading_ones": lambda L, x, m, v: x.__setitem__(m, v(int(m.sum())).reshape(1, 1, -1)),
    "broadcast_row": lambda L, x, m, v: x.__setitem__(m[:, 0], v(5)),
    "one_value": lambda L, x, m, v: x.__setitem__(m, v(1)),
    "too_many_values": lambda L, x, m, v: x.__setitem__(m, v(int(m.sum()) + 1)),
    "wrong_block": lambda L, x, m, v: x.__setitem__(m[:, 0], v(int(m[:, 0].sum()), 4)),
    "other_dtype": lambda L, x, m, v: x.__setitem__(m, v(int(m.sum())).double()),
    "mask_after_slice": lambda L, x, m, v: x.__setitem__((slice(None), m[0]), v(6, int(m[0].sum()))),
    "transposed_self": lambda L, x, m, v: x.t().__setitem__(m.t(), v(int(m.sum()))),
    "mask_too_long": lambda L, x, m, v: x.__setitem__(L.ones(7, dtype=L.bool, device=m.device), v(7, 5)),
    "empty_mask": lambda L, x, m, v: x.__setitem__(m & False, v(0)),
    "0d_mask": lambda L, x, m, v: x.__setitem__(m[0, 0] | True, v(1, 6, 5)),
}


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_assignment_through_a_mask(name, device):
    mask = np.random.default_rng(11).random((6, 5)) < 0.5
    mask[0, 0] = True
    results = []
    for L, d in ((torch, "cpu"), (tandem, device)):
        x = L.zeros(6, 5, device=d)
        m = L.tensor(mask.tolist(), device=d)

        def values(*shape, L=L, d=d):
            return L.arange(1.0, 1.0 + int(np.prod(shape)), device=d).reshape(shape)
        results.append(_outcome(lambda: (ASSIGNMENTS[name](L, x, m, values), x)[1]))
    _same_outcome(results)


def test_assignment_bumps_the_version_and_keeps_gradients(device):
    x = tandem.zeros(4, 3, device=device)
    m = tandem.tensor([True, False, True, True], device=device)
    v = x._version
    x[m] = tandem.ones(3, 3, device=device)
    assert x._version == v + 1
    # with history, the write is recorded (IndexPutBackward0) and the gradient reaches the values
    for L, d in ((torch, "cpu"), (tandem, device)):
        base = L.zeros(4, 3, device=d, requires_grad=True)
        values = L.arange(9.0, device=d).reshape(3, 3).requires_grad_()
        y = base * 1
        y[L.tensor([True, False, True, True], device=d)] = values * 2
        (y * L.arange(12.0, device=d).reshape(4, 3)).sum().backward()
        if L is torch:
            want = (base.grad.clone(), values.grad.clone(), type(y.grad_fn).__name__)
        else:
            assert y.grad_fn.name() == want[2]
            np.testing.assert_array_equal(base.grad.cpu().numpy(), want[0].numpy())
            np.testing.assert_array_equal(values.grad.cpu().numpy(), want[1].numpy())


def test_masked_scatter_gradients(device):
    got = []
    for L, d in ((torch, "cpu"), (tandem, device)):
        x = L.arange(12.0, device=d).reshape(3, 4).requires_grad_()
        s = L.arange(100.0, 112.0, device=d).reshape(4, 3).requires_grad_()
        m = L.tensor([[True, False, True, False]], device=d)
        (x.masked_scatter(m, s) * L.arange(12.0, device=d).reshape(3, 4)).sum().backward()
        got.append((x.grad.cpu().numpy(), s.grad.cpu().numpy()))
    np.testing.assert_array_equal(got[1][0], got[0][0])
    np.testing.assert_array_equal(got[1][1], got[0][1])
