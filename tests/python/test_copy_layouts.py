"""Copies between layouts that disagree on the innermost dim (the CPU copy kernel's tiled path: runs of 8 along
the output's unit-stride dim by blocks of 64 rows): every element lands where NumPy puts it, for sizes around the
tile edges, batches of matrices, casts and every dtype kind, on every device."""
import numpy as np
import pytest

import tandem

SHAPES = [(8, 8), (9, 17), (64, 65), (130, 7), (7, 130), (200, 129)]
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int64", "uint8", "bool", "complex64"]


def source(shape, dtype, device):
    n = int(np.prod(shape))
    values = np.arange(n).reshape(shape)
    if dtype == "bool":
        return tandem.tensor(values % 3 == 0, device=device), values % 3 == 0
    if dtype == "complex64":
        v = (values + 1j * (n - values)).astype(np.complex64)
        return tandem.tensor(v, device=device), v
    ref = (values % 100).astype("float32" if dtype == "bfloat16" else dtype)
    return tandem.tensor(ref, dtype=getattr(tandem, dtype), device=device), ref


def host(t):
    return t.cpu().float().numpy() if t.dtype == tandem.bfloat16 else t.cpu().numpy()


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_transposed_contiguous_and_transposed_destination(shape, dtype, device):
    x, ref = source(shape, dtype, device)
    y = x.t().contiguous()
    assert y.is_contiguous() and y.shape == (shape[1], shape[0]) and y.dtype == x.dtype and y.device == x.device
    np.testing.assert_array_equal(host(y), ref.T)
    out = tandem.zeros(shape[1], shape[0], dtype=x.dtype, device=device)
    out.t().copy_(x)  # the destination is the transposed side
    np.testing.assert_array_equal(host(out), ref.T)


@pytest.mark.parametrize("perm", [(0, 2, 1), (2, 1, 0), (1, 2, 0), (2, 0, 1)])
def test_batched_permutes(perm, device):
    ref = np.arange(3 * 70 * 65, dtype=np.float32).reshape(3, 70, 65)
    x = tandem.tensor(ref, device=device)
    y = x.permute(*perm).contiguous()
    assert y.shape == tuple(ref.transpose(perm).shape)
    np.testing.assert_array_equal(y.cpu().numpy(), ref.transpose(perm))
    # A strided (sliced) source inside a batch: the tiles use both operands' strides, not only unit ones.
    z = x[:, ::2, 1:].transpose(1, 2).contiguous()
    np.testing.assert_array_equal(z.cpu().numpy(), ref[:, ::2, 1:].transpose(0, 2, 1))


@pytest.mark.parametrize("src,dst", [("float64", "float32"), ("int64", "float32"), ("float32", "int32"),
                                     ("float32", "float16"), ("uint8", "float64"), ("float32", "bool")])
def test_casting_copy_across_layouts(src, dst, device):
    ref = (np.arange(66 * 70).reshape(66, 70) % 50 - 10).astype(src)
    x = tandem.tensor(ref, device=device)
    out = tandem.empty(70, 66, dtype=getattr(tandem, dst), device=device)
    out.copy_(x.t())
    np.testing.assert_array_equal(out.cpu().numpy(), ref.T.astype(dst))
    y = x.t().to(getattr(tandem, dst)).contiguous()
    np.testing.assert_array_equal(y.cpu().numpy(), ref.T.astype(dst))


def test_overlapping_transposed_copy_is_refused():
    x = tandem.arange(256.0).reshape(16, 16)
    with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the "
                                           "written-to tensor refer to a single memory location"):
        x.copy_(x.t())


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "bool"])
def test_column_broadcast_fills_rows(shape, dtype, device):
    """A column repeated across the rows (stride 0 along the output's unit-stride dim, unit stride along the
    rows: attention's per-row offsets, a bias over channels) is no transpose: each row is filled with its value.
    Also cast on the way, into a batch, and into a transposed destination."""
    rows, cols = shape
    column, ref = source((rows, 1), dtype, device)
    out = tandem.empty(shape, dtype=column.dtype, device=device)
    out.copy_(column.expand(rows, cols))
    np.testing.assert_array_equal(host(out), np.broadcast_to(ref, shape))
    wide = tandem.empty(shape, dtype=tandem.float64, device=device).copy_(column.expand(rows, cols))
    np.testing.assert_array_equal(wide.cpu().numpy(), np.broadcast_to(ref, shape).astype(np.float64))
    batch = tandem.empty((3, rows, cols), dtype=column.dtype, device=device)
    batch.copy_(column.expand(3, rows, cols))
    np.testing.assert_array_equal(host(batch), np.broadcast_to(ref, (3, rows, cols)))
    transposed = tandem.empty((cols, rows), dtype=column.dtype, device=device).t()
    transposed.copy_(column.expand(rows, cols))
    np.testing.assert_array_equal(host(transposed.contiguous()), np.broadcast_to(ref, shape))
