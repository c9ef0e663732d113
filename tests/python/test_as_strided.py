"""as_strided, as_strided_ and as_strided_scatter against PyTorch: views of the same memory, PyTorch's
bounds checks and errors (hostile geometries raise, never read past the storage), gradients on every device."""
import pytest
import torch

import tandem
from oracle import assert_same, assert_same_error, to_torch
from tandem.autograd import gradcheck

GEOMETRIES = [
    ((2, 2), (1, 2), None),
    ((3, 2), (1, 1), None),  # overlapping elements
    ((4, 2), (1, 2), 0),  # reaches the last element exactly
    ((2, 2), (3, 1), 1),
    ((), (), 5),
    ((0, 2), (1, 1), 7),  # no elements: any offset
    ((2, 2), (0, 1), 2),  # a broadcast dim
    ((6,), (1,), None),
]


@pytest.mark.parametrize("size,stride,offset", GEOMETRIES)
def test_as_strided_values_and_sharing(device, size, stride, offset):
    src = torch.arange(6.0)
    a = tandem.arange(6.0, device=device)
    got = tandem.as_strided(a, size, stride, offset)
    want = torch.as_strided(src, size, stride, offset)
    assert_same(got.cpu(), want)
    assert got.stride() == want.stride() and got.storage_offset() == want.storage_offset()
    assert got.device == a.device
    assert got.untyped_storage().data_ptr() == a.untyped_storage().data_ptr()
    method = a.as_strided(size, stride, offset) if offset is not None else a.as_strided(size, stride)
    assert_same(method.cpu(), want)


def test_as_strided_is_a_view_that_writes_through(device):
    a = tandem.zeros(6, device=device)
    v = a.as_strided((2, 2), (1, 2), 1)
    v.fill_(3)
    assert a.cpu().tolist() == [0, 3, 3, 3, 3, 0]


def test_as_strided_default_offset_is_the_inputs(device):
    a = tandem.arange(6.0, device=device)[2:]
    assert a.as_strided((2,), (1,)).tolist() == [2.0, 3.0]
    assert a.as_strided((2,), (1,)).storage_offset() == 2
    assert a.as_strided(size=(2,), stride=(1,), storage_offset=1).tolist() == [1.0, 2.0]
    t = tandem.zeros(2, 3, device=device).t()
    assert tandem.as_strided(t, [2, 2], [1, 2]).storage_offset() == 0


BAD = [
    ((2, 2), (1,), None),  # length mismatch
    ((2, 2), (-1, 2), None),  # negative stride
    ((-2, 2), (1, 2), None),  # negative size
    ((2, 2), (1, 2), -1),  # negative offset
    ((3,), (1,), 5),  # past the end
    ((4, 2), (1, 3), 0),
    ((2**62, 2**62), (1, 2), None),  # hostile sizes
    ((2, 2), (2**62, 2**62), None),  # hostile strides
    ((2, 2), (1, 1), 2**62),  # hostile offset
    ((2, 2), (1, 1), 2**63 - 1),
    ((2**31, 2**31), (2**31, 1), 0),
]


@pytest.mark.parametrize("size,stride,offset", BAD)
def test_as_strided_refuses_like_pytorch(device, size, stride, offset):
    def case(lib):
        return lib.as_strided(lib.arange(6.0), size, stride, offset)

    assert_same_error(case)
    a = tandem.arange(6.0, device=device)
    with pytest.raises(RuntimeError):
        a.as_strided(size, stride, offset)
    with pytest.raises(RuntimeError):
        a.as_strided_(size, stride, offset)
    assert a.shape == (6,) and a.stride() == (1,)  # a failed as_strided_ leaves the tensor alone


def test_as_strided_checks_the_whole_storage_not_the_view(device):
    base = tandem.arange(6.0, device=device)
    view = base[:2]
    assert view.as_strided((6,), (1,), 0).cpu().tolist() == [0, 1, 2, 3, 4, 5]
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        view.as_strided((7,), (1,), 0)


def test_as_strided_dtypes(device):
    for name in ["int64", "int8", "bool", "float16", "complex64", "uint16"]:
        src = torch.arange(6).to(getattr(torch, name))
        a = tandem.arange(6, device=device).to(getattr(tandem, name))
        assert_same(a.as_strided((2, 2), (2, 1), 1).cpu(), src.as_strided((2, 2), (2, 1), 1))
        assert_same_error(lambda lib: lib.arange(6).to(getattr(lib, name)).as_strided((7,), (1,)))


def test_as_strided_inplace(device):
    b = tandem.zeros(6, device=device)
    r = b.as_strided_((2, 2), (1, 2), 1)
    assert r is b
    assert b.shape == (2, 2) and b.stride() == (1, 2) and b.storage_offset() == 1
    assert tandem.as_strided_(tandem.zeros(3, device=device), (2,), (1,)).shape == (2,)
    assert_same_error(lambda lib: lib.zeros(6).as_strided_((20,), (1,)))
    assert_same_error(lambda lib: lib.zeros(6, requires_grad=True).as_strided_((2,), (1,)))


def test_as_strided_inplace_keeps_history():
    x = tandem.arange(6.0, requires_grad=True)
    y = x * 1
    y.as_strided_((2,), (2,), 1)
    assert y.grad_fn.name() == "AsStridedBackward1"
    y.sum().backward()
    tx = torch.arange(6.0, requires_grad=True)
    ty = tx * 1
    ty.as_strided_((2,), (2,), 1)
    ty.sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()


@pytest.mark.parametrize("size,stride,offset", [((3, 2), (1, 1), 0), ((2, 2), (1, 2), 1), ((2,), (0,), 2),
                                                ((2, 3), (3, 1), 0), ((0, 3), (1, 1), 0)])
def test_as_strided_gradient_matches_pytorch(device, size, stride, offset):
    x = tandem.arange(6.0, dtype=tandem.float64, device=device).requires_grad_()
    tx = torch.arange(6.0, dtype=torch.float64, requires_grad=True)
    y = x.as_strided(size, stride, offset)
    ty = tx.as_strided(size, stride, offset)
    assert y.grad_fn.name() == type(ty.grad_fn).__name__ == "AsStridedBackward0"
    w = torch.arange(1.0, ty.numel() + 1, dtype=torch.float64).reshape(ty.shape)
    (ty * w).sum().backward()
    (y * tandem.tensor(w.tolist(), dtype=tandem.float64, device=device).reshape(y.shape)).sum().backward()
    assert x.grad.cpu().tolist() == tx.grad.tolist()


def test_as_strided_gradient_of_an_overlapping_input_is_shared_out():
    # The input itself reads memory twice (expand): PyTorch divides each storage element's gradient among them.
    x = tandem.arange(6.0, requires_grad=True)
    tx = torch.arange(6.0, requires_grad=True)
    x.expand(2, 6).as_strided((2,), (1,)).sum().backward()
    tx.expand(2, 6).as_strided((2,), (1,)).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist()


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 1), ((3, 2), (1, 1), 0), ((2, 2), (2, 1), 0)])
def test_as_strided_gradcheck(device, size, stride, offset):
    x = tandem.tensor([0.3, -1.2, 2.5, 0.7, -0.4, 1.1], dtype=tandem.float64, device=device).requires_grad_()
    assert gradcheck(lambda t: t.as_strided(size, stride, offset), (x,))
    # through a non-contiguous input
    m = tandem.tensor([[0.3, -1.2, 2.5], [0.7, -0.4, 1.1]], dtype=tandem.float64, device=device).requires_grad_()
    assert gradcheck(lambda t: t.t().as_strided((2, 2), (1, 3), 1), (m,))


def test_inplace_write_into_an_as_strided_view_of_a_non_leaf(device):
    x = tandem.arange(6.0, device=device).requires_grad_()
    tx = torch.arange(6.0, requires_grad=True)
    for lib, t in ((tandem, x), (torch, tx)):
        y = t * 2
        v = y.as_strided((2,), (2,), 1)
        v.mul_(3)
        y.sum().backward()
    assert x.grad.cpu().tolist() == tx.grad.tolist()


SCATTER = [((2, 2), (1, 2), None), ((2, 2), (1, 2), 1), ((3,), (2,), 0)]


@pytest.mark.parametrize("size,stride,offset", SCATTER)
def test_as_strided_scatter_matches_pytorch(device, size, stride, offset):
    src_shape = size
    want = torch.as_strided_scatter(torch.zeros(6), torch.arange(1.0, 1 + torch.Size(src_shape).numel())
                                    .reshape(src_shape), size, stride, offset)
    x = tandem.zeros(6, device=device)
    s = tandem.arange(1.0, 1 + tandem.Size(src_shape).numel(), device=device).reshape(src_shape)
    got = tandem.as_strided_scatter(x, s, size, stride, offset)
    assert_same(got.cpu(), want)
    assert x.cpu().tolist() == [0.0] * 6  # a copy: the input is unchanged
    assert_same(x.as_strided_scatter(s, size, stride, offset).cpu(), want)


def test_as_strided_scatter_keeps_the_inputs_layout():
    want = torch.as_strided_scatter(torch.zeros(2, 3).t(), torch.ones(2, 2), (2, 2), (1, 2))
    got = tandem.as_strided_scatter(tandem.zeros(2, 3).t(), tandem.ones(2, 2), (2, 2), (1, 2))
    assert_same(got, want)
    assert got.stride() == want.stride()
    assert_same(tandem.as_strided_scatter(tandem.zeros(6)[1:], tandem.ones(2, 2), (2, 2), (1, 2)),
                torch.as_strided_scatter(torch.zeros(6)[1:], torch.ones(2, 2), (2, 2), (1, 2)))


def test_as_strided_scatter_errors():
    assert_same_error(lambda lib: lib.as_strided_scatter(lib.zeros(6), lib.ones(3, 2), (2, 2), (1, 2)))
    assert_same_error(lambda lib: lib.as_strided_scatter(lib.zeros(6), lib.ones(2, 2), (4, 2), (1, 2)))
    assert_same_error(lambda lib: lib.as_strided_scatter(lib.zeros(6), lib.ones(2, 2), (40, 2), (1, 2)))
    assert_same_error(lambda lib: lib.as_strided_scatter(lib.zeros(6), lib.ones(2, 2), (2, 2), (-1, 2)))


def test_as_strided_scatter_gradient(device):
    x = tandem.arange(6.0, dtype=tandem.float64, device=device).requires_grad_()
    s = tandem.ones(2, 2, dtype=tandem.float64, device=device).requires_grad_()
    tx = torch.arange(6.0, dtype=torch.float64, requires_grad=True)
    ts = torch.ones(2, 2, dtype=torch.float64, requires_grad=True)
    out = tandem.as_strided_scatter(x * 1, s * 1, (2, 2), (1, 2), 1)
    tout = torch.as_strided_scatter(tx * 1, ts * 1, (2, 2), (1, 2), 1)
    assert out.grad_fn.name() == type(tout.grad_fn).__name__
    w = torch.arange(1.0, 7.0, dtype=torch.float64)
    (tout * w).sum().backward()
    (out * tandem.tensor(w.tolist(), dtype=tandem.float64, device=device)).sum().backward()
    # PyTorch 2.15's gradient for the input is the region's (it fails its own gradcheck); tandem's is the
    # gradient outside the region, where the output still holds the input's values (docs/compat.md).
    assert x.grad.cpu().tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 6.0]
    assert s.grad.cpu().tolist() == ts.grad.tolist()
    assert gradcheck(lambda a, b: tandem.as_strided_scatter(a, b, (2, 2), (1, 2), 1), (x, s))


def test_as_strided_keeps_the_memory_alive(device):
    v = tandem.arange(6.0, device=device).as_strided((3,), (2,), 0)
    import gc

    gc.collect()
    big = [tandem.full((6,), 7.0, device=device) for _ in range(4)]  # reuse freed blocks if any were freed
    assert v.cpu().tolist() == [0.0, 2.0, 4.0]
    del big


def test_as_strided_values_match_torch_for_random_geometries():
    g = torch.Generator().manual_seed(0)
    base_t = torch.arange(40.0)
    base = tandem.arange(40.0)
    for _ in range(200):
        nd = int(torch.randint(0, 4, (1,), generator=g))
        size = [int(v) for v in torch.randint(0, 5, (nd,), generator=g)]
        stride = [int(v) for v in torch.randint(0, 9, (nd,), generator=g)]
        offset = int(torch.randint(0, 45, (1,), generator=g))
        try:
            want = to_torch(base.as_strided(size, stride, offset))
        except RuntimeError as e:
            with pytest.raises(RuntimeError) as te:
                base_t.as_strided(size, stride, offset)
            assert str(e).split("\nhint:")[0] == str(te.value)
            continue
        assert torch.equal(want, base_t.as_strided(size, stride, offset))


def test_as_strided_complex_gradients(device):
    x = tandem.tensor([0.3 + 1j, -1.2, 2.5 - 0.5j, 0.7j, -0.4, 1.1], dtype=tandem.complex128,
                      device=device).requires_grad_()
    assert gradcheck(lambda t: t.as_strided((3, 2), (1, 1), 0), (x,))
    s = tandem.tensor([[1j, 2.0], [3.0, -1j]], dtype=tandem.complex128, device=device).requires_grad_()
    assert gradcheck(lambda a, b: tandem.as_strided_scatter(a, b, (2, 2), (1, 2), 1), (x, s))


def test_as_strided_double_backward():
    from tandem.autograd import gradgradcheck

    x = tandem.tensor([0.3, -1.2, 2.5, 0.7, -0.4, 1.1], dtype=tandem.float64).requires_grad_()
    assert gradgradcheck(lambda t: t.as_strided((3, 2), (1, 1), 0).pow(2), (x,))


def test_diagonal_of_a_strided_matrix_is_a_view(device):
    # Rows with gaps do not flatten into one dim: the diagonal is an as_strided view (it was a copy).
    for offset in (0, 1, -1):
        base = tandem.arange(24.0, dtype=tandem.float64, device=device).reshape(4, 6)
        m = base[:, ::2]
        tm = torch.arange(24.0, dtype=torch.float64).reshape(4, 6)[:, ::2]
        d = m.diagonal(offset)
        assert_same(d.cpu(), tm.diagonal(offset))
        assert d.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
        d.fill_(-1.0)
        tm.diagonal(offset).fill_(-1.0)
        assert_same(m.cpu(), tm)
        x = tandem.arange(24.0, dtype=tandem.float64, device=device).reshape(4, 6).requires_grad_()
        assert gradcheck(lambda t: t[:, ::2].diagonal(offset) * 2, (x,))


def test_as_strided_gradients_match_torch_for_random_geometries():
    # Inputs that are themselves views (offsets, transposes, expands) and outputs that overlap.
    g = torch.Generator().manual_seed(1)
    inputs = [lambda lib, b: b[3:].view(3, 4), lambda lib, b: b[1:13].view(3, 4).t(),
              lambda lib, b: b[2:6].expand(3, 4), lambda lib, b: b.view(3, 5)[:, 1:]]
    checked = 0
    for _ in range(120):
        make = inputs[int(torch.randint(0, len(inputs), (1,), generator=g))]
        nd = int(torch.randint(1, 3, (1,), generator=g))
        size = [int(v) for v in torch.randint(1, 4, (nd,), generator=g)]
        stride = [int(v) for v in torch.randint(0, 4, (nd,), generator=g)]
        offset = int(torch.randint(0, 6, (1,), generator=g))
        tb = torch.arange(15.0, dtype=torch.float64, requires_grad=True)
        b = tandem.arange(15.0, dtype=tandem.float64).requires_grad_()
        try:
            ty = make(torch, tb).as_strided(size, stride, offset)
        except RuntimeError:
            continue
        y = make(tandem, b).as_strided(size, stride, offset)
        w = torch.arange(1.0, ty.numel() + 1, dtype=torch.float64).reshape(ty.shape)
        (ty * w).sum().backward()
        (y * tandem.tensor(w.tolist(), dtype=tandem.float64).reshape(y.shape)).sum().backward()
        torch.testing.assert_close(torch.tensor(b.grad.tolist(), dtype=torch.float64), tb.grad)
        checked += 1
    assert checked > 50
