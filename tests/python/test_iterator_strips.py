"""The elementwise iterator hands kernels 1-D strips; along dim 1 it steps each operand's pointer instead of
recomputing its offset (kernels/tensor_iterator.h). Strips of a few elements, ranges that start and end in the
middle of a strip (two threads split at arbitrary points), broadcast and transposed operands: exact values
against NumPy, on every device."""
import numpy as np
import pytest

import tandem

SHAPES_AND_ORDERS = [((1000, 8, 8), (0, 2, 1)), ((3, 5, 7, 11), (3, 1, 0, 2)), ((70001, 3), (1, 0)),
                     ((2, 40000), (1, 0)), ((9, 1, 4099), (2, 0, 1)), ((6, 6, 6, 6, 6), (4, 2, 0, 3, 1))]


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    old = tandem.get_num_threads()
    tandem.set_num_threads(request.param)
    yield request.param
    tandem.set_num_threads(old)


@pytest.mark.parametrize("shape,order", SHAPES_AND_ORDERS, ids=[str(s) for s, _ in SHAPES_AND_ORDERS])
def test_permuted_copies_and_binary_ops(device, threads, shape, order):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(tuple(shape[i] for i in order)).astype(np.float32)
    ta = tandem.from_numpy(a).to(device)
    tb = tandem.from_numpy(b).to(device)
    pa = ta.permute(*order)
    np.testing.assert_array_equal(pa.contiguous().cpu().numpy(), np.ascontiguousarray(a.transpose(order)))
    np.testing.assert_array_equal((pa + tb).cpu().numpy(), a.transpose(order) + b)
    np.testing.assert_array_equal((tb * pa).cpu().numpy(), b * a.transpose(order))
    # a strided output: write through the permuted view
    out = tandem.zeros(shape, device=device)
    out.permute(*order).copy_(tb)
    np.testing.assert_array_equal(out.cpu().numpy(), np.transpose(b, np.argsort(order)))


def test_broadcast_rows_against_a_transposed_operand(device, threads):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 3001)).astype(np.float64)
    row = rng.standard_normal((1, 5)).astype(np.float64)
    got = tandem.from_numpy(a).to(device).mT + tandem.from_numpy(row).to(device)
    np.testing.assert_array_equal(got.cpu().numpy(), a.T + row)
    np.testing.assert_allclose(got.sum(0).cpu().numpy(), (a.T + row).sum(0), rtol=1e-12)
