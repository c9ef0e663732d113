"""float32 products around and above 2**20 multiply-adds (the size from which the CPU hands them to oneDNN's
sgemm where the build has it, docs/core.md "Matrix products"), checked against float64 NumPy: every
transposition of the operands, strided operands, alpha/beta of addmm, an out= buffer holding NaN that beta = 0
must not read, batches, gradients, at 1 and 2 threads. The values must hold with or without oneDNN."""
import numpy as np
import pytest

import tandem

SHAPES = [(64, 256, 64), (64, 1024, 192), (129, 257, 65), (512, 64, 1024), (1, 4096, 300), (300, 1, 4096)]


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def close(got, want, k):
    # float32 accumulation over k terms of size ~1: a relative bound that grows like sqrt(k) for random signs
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-5 * np.sqrt(k), atol=2e-5 * np.sqrt(k))


@pytest.fixture(params=[1, 2])
def threads(request):
    before = tandem.get_num_threads()
    tandem.set_num_threads(request.param)
    yield request.param
    tandem.set_num_threads(before)


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_transposed_operands(threads, m, n, k, ta, tb):
    rng = np.random.default_rng(m * n + k)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    A, B = tandem.from_numpy(a), tandem.from_numpy(b)
    got = (A.t() if ta else A) @ (B.t() if tb else B)
    assert got.dtype == tandem.float32 and got.shape == (m, n) and got.device.type == "cpu"
    close(got, reference(a.T if ta else a, b.T if tb else b), k)


def test_strided_operands_and_column_slices(threads):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((128, 600)).astype(np.float32)
    b = rng.standard_normal((600, 900)).astype(np.float32)
    A, B = tandem.from_numpy(a), tandem.from_numpy(b)
    got = A[:, 10:522] @ B[10:522, 100:700]  # leading dimensions larger than the column counts
    close(got, reference(a[:, 10:522], b[10:522, 100:700]), 512)
    got = A[::2, :512] @ B[:512, ::3]  # a column stride of 3: copied before the product
    close(got, reference(a[::2, :512], b[:512, ::3]), 512)


def test_addmm_alpha_beta_and_out_holding_nan(threads):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((96, 512)).astype(np.float32)
    b = rng.standard_normal((512, 256)).astype(np.float32)
    c = rng.standard_normal((96, 256)).astype(np.float32)
    A, B, C = (tandem.from_numpy(x) for x in (a, b, c))
    close(tandem.addmm(C, A, B, beta=0.5, alpha=2.0), 0.5 * c + 2.0 * reference(a, b), 512)
    out = tandem.full((96, 256), float("nan"))
    tandem.mm(A, B, out=out)  # beta = 0: the NaN already in out must not reach the result
    assert not out.isnan().any()
    close(out, reference(a, b), 512)
    close(tandem.addmm(tandem.full((96, 256), float("nan")), A, B, beta=0.0), reference(a, b), 512)


@pytest.mark.parametrize("batch", [1, 3, 16])
def test_batched_products(threads, batch):
    rng = np.random.default_rng(batch)
    a = rng.standard_normal((batch, 64, 256)).astype(np.float32)
    b = rng.standard_normal((batch, 256, 128)).astype(np.float32)
    got = tandem.bmm(tandem.from_numpy(a), tandem.from_numpy(b))
    close(got, np.einsum("bik,bkj->bij", a.astype(np.float64), b.astype(np.float64)), 256)
    shared = rng.standard_normal((256, 128)).astype(np.float32)  # one matrix broadcast over the batch
    got = tandem.from_numpy(a) @ tandem.from_numpy(shared)
    close(got, a.astype(np.float64) @ shared.astype(np.float64), 256)


def test_gradients_of_a_large_product_match_float64():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((128, 512)).astype(np.float32)
    b = rng.standard_normal((512, 96)).astype(np.float32)
    g = rng.standard_normal((128, 96)).astype(np.float32)
    A = tandem.from_numpy(a).requires_grad_()
    B = tandem.from_numpy(b).requires_grad_()
    (A @ B).backward(tandem.from_numpy(g))
    close(A.grad, g.astype(np.float64) @ b.T.astype(np.float64), 96)
    close(B.grad, a.T.astype(np.float64) @ g.astype(np.float64), 128)
