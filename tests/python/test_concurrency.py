"""Threads: long kernels let other Python threads run, and tandem used from 8 threads at once gives each
thread the answer it gets alone (ops, autograd, optimizer steps, NumPy/DLPack round trips, device streams).

`make test-tsan` runs this file under ThreadSanitizer."""
import threading
import time

import numpy as np
import pytest

import tandem
from tandem import _C

THREADS = 8


def run_in_threads(fn, n=THREADS):
    """Runs fn(i) on n threads started together; re-raises the first failure."""
    errors, start = [], threading.Barrier(n)

    def body(i):
        try:
            start.wait()
            fn(i)
        except BaseException as e:  # noqa: BLE001 - reported below with its thread
            errors.append((i, e))

    threads = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        i, e = errors[0]
        raise AssertionError(f"thread {i} failed: {e!r}") from e


# ---- the interpreter lock around long work ----


@pytest.mark.parametrize(
    "name, op",
    [
        ("matmul", lambda: tandem.ones(512, 512) @ tandem.ones(512, 512)),
        ("sum", lambda: tandem.ones(1 << 20).sum()),
        ("sum_dim", lambda: tandem.ones(1024, 1024).sum(dim=1)),
        ("softmax", lambda: tandem.softmax(tandem.ones(1024, 1024), dim=1)),
        ("exp", lambda: tandem.ones(1 << 20).exp()),
        ("clone", lambda: tandem.ones(1 << 20).clone()),
        ("transpose_copy", lambda: tandem.ones(1024, 1024).t().contiguous()),
        ("cast", lambda: tandem.ones(1 << 20).to(tandem.float64)),
        ("argmax", lambda: tandem.ones(1 << 20).argmax()),
    ],
)
def test_long_cpu_work_releases_the_interpreter_lock(name, op):
    _C._reset_long_work_stats()
    op()
    released, _ = _C._long_work_stats()
    assert released >= 1, f"{name} held the interpreter lock throughout"


def test_small_ops_keep_the_interpreter_lock():
    # Dropping and retaking the lock costs more than a small op: below the threshold nothing is released.
    a = tandem.ones(100)
    _C._reset_long_work_stats()
    for _ in range(100):
        (a + a).sum()
        a @ a
    assert _C._long_work_stats()[0] == 0


def test_second_thread_keeps_running_during_a_long_matmul():
    # The counter thread stamps the time every few thousand steps. With the lock held for the whole product
    # no stamp can fall well inside it; released, the thread runs throughout.
    a = tandem.randn(2048, 2048)
    a @ a  # warm up (BLAS threads, allocator)
    stamps, stop, ready = [], threading.Event(), threading.Event()

    def count():
        ready.set()
        n = 0
        while not stop.is_set():
            n += 1
            if n % 2000 == 0:
                stamps.append(time.perf_counter())

    t = threading.Thread(target=count)
    t.start()
    ready.wait()
    try:
        for _ in range(5):  # long enough to leave a wide middle window
            t0 = time.perf_counter()
            a @ a
            t1 = time.perf_counter()
            if t1 - t0 > 0.06:
                break
        else:
            pytest.skip("matmul too fast here to leave a window")
    finally:
        stop.set()
        t.join()
    margin = 0.02  # thread switches around the call itself take at most a few switch intervals (5 ms)
    inside = [s for s in stamps if t0 + margin < s < t1 - margin]
    assert len(inside) >= 3, (t1 - t0, len(stamps))


def test_two_threads_compute_side_by_side():
    # Each thread's products run with the lock dropped, so the two are inside a long region at the same time.
    mats = [tandem.randn(768, 768) for _ in range(2)]
    _C._reset_long_work_stats()

    def work(i):
        for _ in range(20):
            mats[i] @ mats[i]

    run_in_threads(work, n=2)
    released, peak = _C._long_work_stats()
    assert released >= 40
    assert peak == 2


# ---- correctness from 8 threads ----


def test_elementwise_and_reductions_from_threads():
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((256, 300)).astype(np.float32) for _ in range(THREADS)]
    shared = tandem.from_numpy(rng.standard_normal((256, 300)).astype(np.float32))

    def work(i):
        x = tandem.from_numpy(inputs[i])
        for _ in range(30):
            y = (x * 2 + shared).exp().sum(dim=1)
            np.testing.assert_allclose(
                y.numpy(), np.exp(inputs[i] * 2 + shared.numpy()).sum(axis=1), rtol=1e-5
            )
            assert x.argmax().item() == int(inputs[i].argmax())
            big = tandem.from_numpy(np.full(1 << 16, i, dtype=np.int64))
            assert big.sum().item() == i << 16

    run_in_threads(work)


def test_matmul_from_threads():
    rng = np.random.default_rng(1)
    mats = [rng.standard_normal((200, 200)) for _ in range(THREADS)]

    def work(i):
        a = tandem.from_numpy(mats[i])
        for _ in range(10):
            np.testing.assert_allclose((a @ a).numpy(), mats[i] @ mats[i], rtol=1e-10, atol=1e-10)

    run_in_threads(work)


def test_autograd_from_threads():
    def work(i):
        for _ in range(20):
            w = tandem.full((64, 64), float(i + 1), requires_grad=True)
            x = tandem.ones(64, 64)
            loss = (x @ w).tanh().sum() + (w * w).sum()
            loss.backward()
            expected = x.t() @ (1 - (x @ w.detach()).tanh() ** 2) + 2 * w.detach()
            assert tandem.allclose(w.grad, expected)
            g = tandem.autograd.grad((w * 3).sum(), w)[0]
            assert g.eq(3).all().item()

    run_in_threads(work)


def test_grad_mode_is_per_thread():
    # no_grad on one thread leaves the others recording, as in PyTorch.
    inside, go = threading.Event(), threading.Event()
    seen = {}

    def quiet():
        with tandem.no_grad():
            inside.set()
            go.wait()
            seen["quiet"] = tandem.is_grad_enabled()

    t = threading.Thread(target=quiet)
    t.start()
    inside.wait()
    w = tandem.ones(2, requires_grad=True)
    seen["main"] = (w * 2).requires_grad
    go.set()
    t.join()
    assert seen == {"quiet": False, "main": True}


def test_optimizer_steps_from_threads():
    def work(i):
        model = tandem.nn.Linear(16, 4)
        with tandem.no_grad():
            model.weight.fill_(0.5)
            model.bias.zero_()
        opt = tandem.optim.Adam(model.parameters(), lr=0.01)
        x = tandem.ones(8, 16) * (i + 1)
        for _ in range(25):
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
        return model

    results = {}
    run_in_threads(lambda i: results.__setitem__(i, work(i)))
    # Each thread's run equals the same run done alone.
    for i in (0, 3, 7):
        alone = work(i)
        assert tandem.equal(results[i].weight, alone.weight)
        assert tandem.equal(results[i].bias, alone.bias)


def test_numpy_and_dlpack_round_trips_from_threads():
    def work(i):
        for k in range(200):
            a = np.arange(1000, dtype=np.float32) + i * 1000 + k
            t = tandem.from_numpy(a)
            back = t.numpy()
            assert back.ctypes.data == a.ctypes.data  # shared, not copied
            d = tandem.from_dlpack(np.from_dlpack(t))
            assert d.data_ptr() == t.data_ptr()
            assert float(d[-1]) == a[-1]
            assert np.array_equal(tandem.tensor(a).numpy(), a)

    run_in_threads(work)


def test_random_numbers_from_threads_are_the_draws_of_one_stream():
    # The default generator is shared: 8 threads drawing at once get disjoint draws, together exactly the
    # numbers one thread gets from the same seed (in another order).
    tandem.manual_seed(123)
    out = [None] * (THREADS * 4)

    def work(i):
        for k in range(4):
            out[i * 4 + k] = tandem.rand(1000).numpy()

    run_in_threads(work)
    tandem.manual_seed(123)
    serial = [tandem.rand(1000).numpy() for _ in range(THREADS * 4)]
    np.testing.assert_array_equal(np.sort(np.concatenate(out)), np.sort(np.concatenate(serial)))


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_device_streams_from_threads():
    n_dev = tandem.cuda.device_count()

    def work(i):
        dev = f"cuda:{i % n_dev}"
        stream = tandem.cuda.Stream(device=dev)
        host = np.arange(1 << 16, dtype=np.float32) * (i + 1)
        with tandem.cuda.stream(stream):
            x = tandem.from_numpy(host).to(dev)
            for _ in range(10):
                y = (x * 2 - x).sum()
            stream.synchronize()
        assert y.device == tandem.device(dev)
        assert y.item() == float(host.astype(np.float64).sum())
        assert np.array_equal(x.cpu().numpy(), host)

    run_in_threads(work)


class _Identity(tandem.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_graphs_with_python_nodes_released_by_a_device_stream():
    # A kernel queued on a device keeps its inputs alive until it has run; when the program has dropped them
    # meanwhile, the stream's worker thread releases the last reference, and with it the input's grad_fn. For a
    # Function's node or a hook that means Python objects: they must be released under the GIL (this crashed
    # with "PyThreadState_Get: the function must be called with the GIL held" before).
    x = tandem.ones(256, 256, device="cuda:0", requires_grad=True)
    busy = tandem.ones(600, 600, device="cuda:0")
    for _ in range(60):
        busy.matmul(busy)  # keeps the stream busy, so the kernels below are still queued at the del
        y = _Identity.apply(x)
        y.register_hook(lambda g: g)
        z = y.exp()
        del y, z
    tandem.cuda.synchronize()
    y = _Identity.apply(x)
    y.exp().sum().backward()
    assert x.grad is not None and x.grad.device == tandem.device("cuda:0")
