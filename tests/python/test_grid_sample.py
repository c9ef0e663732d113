"""F.affine_grid and F.grid_sample against PyTorch on every device: values and float64 gradients for the input
and the grid in every mode / padding / align_corners combination PyTorch supports (4-d and 5-d), warnings and
errors."""
import warnings

import pytest
import torch

import tandem
from oracle import assert_same, from_torch, raised

F, TF = tandem.nn.functional, torch.nn.functional


def _cases():
    for nd in (2, 3):
        for mode in ("bilinear", "nearest", "bicubic"):  # 3-d bicubic is PyTorch's tricubic (4 x 4 x 4 taps)
            for pad in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    yield nd, mode, pad, ac


@pytest.mark.parametrize("nd,mode,pad,align", list(_cases()))
def test_grid_sample_values_and_grads(device, nd, mode, pad, align):
    g = torch.Generator().manual_seed(nd * 100 + len(mode) * 10 + len(pad) + align)
    spatial = [4, 5] if nd == 2 else [3, 4, 5]
    out_sp = [3, 6] if nd == 2 else [2, 3, 4]
    x = torch.randn(2, 3, *spatial, dtype=torch.float64, generator=g).requires_grad_()
    # Coordinates well outside [-1, 1] exercise padding; reflection folds them several times.
    grid = (torch.rand(2, *out_sp, nd, dtype=torch.float64, generator=g) * 3.4 - 1.7).requires_grad_()
    want = TF.grid_sample(x, grid, mode=mode, padding_mode=pad, align_corners=align)
    w = torch.randn(want.shape, dtype=torch.float64, generator=g)
    (want * w).sum().backward()
    tx = from_torch(x.detach(), device).requires_grad_()
    tg = from_torch(grid.detach(), device).requires_grad_()
    got = F.grid_sample(tx, tg, mode=mode, padding_mode=pad, align_corners=align)
    assert got.device == tandem.device(device)
    assert_same(got, want.detach())
    (got * from_torch(w, device)).sum().backward()
    assert_same(tx.grad, x.grad)
    # nearest gives the grid a zero gradient, in PyTorch and here (a tensor of zeros, not None)
    assert_same(tg.grad, grid.grad)


def test_grid_sample_float32_and_gradcheck(device):
    g = torch.Generator().manual_seed(3)
    x = torch.randn(1, 2, 5, 4, generator=g)
    grid = torch.rand(1, 3, 3, 2, generator=g) * 2 - 1
    want = TF.grid_sample(x, grid, align_corners=False)
    got = F.grid_sample(from_torch(x, device), from_torch(grid, device), align_corners=False)
    assert_same(got, want, rtol=1e-5, atol=1e-6)
    tx = from_torch(x.double(), device).requires_grad_()
    tg = from_torch(grid.double() * 0.9, device).requires_grad_()
    assert tandem.autograd.gradcheck(lambda a, b: F.grid_sample(a, b, padding_mode="border", align_corners=True),
                                     (tx, tg))


@pytest.mark.parametrize("size,align", [((2, 3, 4, 5), False), ((2, 3, 4, 5), True), ((2, 1, 1, 3), False),
                                        ((2, 3, 2, 4, 5), False), ((2, 3, 2, 4, 5), True)])
def test_affine_grid(device, size, align):
    g = torch.Generator().manual_seed(len(size))
    shape = (2, 2, 3) if len(size) == 4 else (2, 3, 4)
    theta = torch.randn(shape, dtype=torch.float64, generator=g).requires_grad_()
    want = TF.affine_grid(theta, size, align_corners=align)
    w = torch.randn(want.shape, dtype=torch.float64, generator=g)
    (want * w).sum().backward()
    tt = from_torch(theta.detach(), device).requires_grad_()
    got = F.affine_grid(tt, size, align_corners=align)
    assert_same(got, want.detach())
    (got * from_torch(w, device)).sum().backward()
    assert_same(tt.grad, theta.grad)


def test_spatial_transformer_composition(device):
    """affine_grid then grid_sample, as the spatial-transformer tutorial: gradient reaches theta."""
    g = torch.Generator().manual_seed(7)
    x = torch.randn(2, 1, 6, 6, dtype=torch.float64, generator=g)
    theta = (torch.eye(2, 3, dtype=torch.float64).expand(2, 2, 3) + 0.1 * torch.randn(2, 2, 3, dtype=torch.float64,
                                                                                       generator=g)).requires_grad_()
    want = TF.grid_sample(x, TF.affine_grid(theta, x.size(), align_corners=False), align_corners=False)
    want.square().sum().backward()
    tt = from_torch(theta.detach(), device).requires_grad_()
    tx = from_torch(x, device)
    got = F.grid_sample(tx, F.affine_grid(tt, tx.size(), align_corners=False), align_corners=False)
    got.square().sum().backward()
    assert_same(got, want.detach())
    assert_same(tt.grad, theta.grad)


def test_align_corners_default_warns():
    x, grid = tandem.zeros(1, 1, 2, 2), tandem.zeros(1, 1, 1, 2)
    for call in (lambda: F.grid_sample(x, grid), lambda: F.affine_grid(tandem.zeros(1, 2, 3), (1, 1, 2, 2))):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        assert [str(w.message) for w in caught] == [
            "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please "
            "specify align_corners=True if the old behavior is desired. See the documentation of grid_sample for "
            "details."]


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), mode="foo"),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), padding_mode="foo"),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 3)),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 3, 3), lib.zeros(2, 2, 2)),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(2, 2, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 3, 3), (1, 1, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3, dtype=lib.int32), (1, 1, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2, 2, 2)),
    lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3), (1, 1, 2, 2)),
])
def test_errors(case):
    want, got = raised(lambda: case(torch)), raised(lambda: case(tandem))
    assert want is not None and isinstance(got, type(want)), (got, want)
    assert str(got).split("\nhint:")[0] == str(want).replace("torch.", "tandem.")
