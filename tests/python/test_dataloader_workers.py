"""DataLoader(num_workers > 0) and tandem.multiprocessing: batches made in worker processes, in order, equal to the
single-process ones; seeds and get_worker_info; errors with PyTorch's messages; shutdown without zombies; tensors
that cross processes through shared memory. Workers start with fork (fast) unless a test is about spawn."""
import gc
import os
import pickle
import random
import signal
import time

import numpy as np
import pytest

import tandem
import tandem.multiprocessing as tmp
from tandem.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info

_FORK = tmp.get_context("fork")


class Samples(Dataset):
    """Sample i: a float tensor, a dict with an int and a NumPy array, and a float."""

    def __init__(self, n=10):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return tandem.full((2, 3), float(i)), {"i": i, "a": np.arange(3, dtype=np.int32) + i}, i / 2


class WorkerView(Dataset):
    """Sample i: which worker made it, that worker's seed, and one draw from each generator it seeds."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return info.id, info.num_workers, info.seed, random.random(), tandem.rand(()).item()


class Failing(Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise self.exc
        return i


def flatten(batches):
    out = []
    for t, d, f in batches:
        out.append((t.tolist(), d["i"].tolist(), d["a"].tolist(), f.tolist()))
    return out


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_batches_equal_single_process_in_order():
    one = list(DataLoader(Samples(), batch_size=3))
    many = list(DataLoader(Samples(), batch_size=3, num_workers=2, multiprocessing_context=_FORK))
    assert flatten(many) == flatten(one)
    t, d, f = many[1]
    assert (t.dtype, d["i"].dtype, d["a"].dtype, f.dtype) == (tandem.float32, tandem.int64, tandem.int32, tandem.float64)
    assert t.is_shared() and t.device.type == "cpu"


def test_shuffled_order_with_generator_equals_single_process_and_drop_last():
    def run(workers):
        g = tandem.Generator().manual_seed(7)
        kw = dict(num_workers=workers, multiprocessing_context=_FORK) if workers else {}
        return [b[0].tolist() for b in DataLoader(TensorDataset(tandem.arange(11)), batch_size=4, shuffle=True,
                                                  drop_last=True, generator=g, **kw)]
    assert run(3) == run(0)
    assert len(run(3)) == 2 and sorted(sum(run(3), [])) != list(range(8))  # shuffled, the short batch dropped


def test_len_and_prefetch_factor_default():
    loader = DataLoader(Samples(10), batch_size=4, num_workers=2)
    assert len(loader) == 3 and loader.prefetch_factor == 2 and DataLoader(Samples()).prefetch_factor is None


def test_worker_info_and_seeds_are_per_worker_and_reproducible():
    def run():
        tandem.manual_seed(123)
        return list(DataLoader(WorkerView(), batch_size=None, num_workers=2, multiprocessing_context=_FORK))
    first, second = run(), run()
    assert first == second  # tandem.manual_seed fixes the workers' seeds
    ids = [s[0] for s in first]
    assert ids == [0, 1] * 4 and all(s[1] == 2 for s in first)  # round-robin
    seed0, seed1 = first[0][2], first[1][2]
    assert seed1 == seed0 + 1
    assert first[0][3] == random.Random(seed0).random()  # Python's random is seeded with base_seed + worker id
    assert first[0][4] != first[1][4] and first[0][3] != first[1][3]  # workers draw differently
    tandem.manual_seed(124)
    other = list(DataLoader(WorkerView(), batch_size=None, num_workers=2, multiprocessing_context=_FORK))
    assert other[0][2] != seed0
    assert get_worker_info() is None  # in the main process


def test_worker_info_is_read_only_and_has_pytorch_repr():
    class Info(Dataset):
        def __len__(self):
            return 1

        def __getitem__(self, i):
            info = get_worker_info()
            try:
                info.id = 5
            except RuntimeError as e:
                return repr(info), str(e)

    (rep, err), = DataLoader(Info(), batch_size=None, num_workers=1, multiprocessing_context=_FORK)
    assert rep.startswith("WorkerInfo(id=0, num_workers=1, seed=") and ", dataset=<" in rep
    assert err == "Cannot assign attributes to WorkerInfo objects"


def test_worker_init_fn_runs_in_each_worker():
    class Tagged(Dataset):
        tag = None

        def __len__(self):
            return 4

        def __getitem__(self, i):
            return Tagged.tag

    def init(worker_id):
        Tagged.tag = f"w{worker_id}:{os.getpid() != MAIN_PID}"

    got = list(DataLoader(Tagged(), batch_size=None, num_workers=2, worker_init_fn=init, multiprocessing_context=_FORK))
    assert got == ["w0:True", "w1:True", "w0:True", "w1:True"]
    assert Tagged.tag is None  # the main process's class is untouched


MAIN_PID = os.getpid()


def test_worker_exception_is_reraised_with_its_traceback():
    with pytest.raises(ValueError) as info:
        list(DataLoader(Failing(ValueError("bad item")), batch_size=None, num_workers=2,
                        multiprocessing_context=_FORK))
    msg = str(info.value)
    assert msg.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent call "
                          "last):\n")
    assert "raise self.exc" in msg and msg.endswith("ValueError: bad item\n")


def test_worker_keyerror_keeps_type_and_unbuildable_types_become_runtime_error():
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0"):
        list(DataLoader(Failing(KeyError("k")), batch_size=None, num_workers=2, multiprocessing_context=_FORK))

    class NeedsTwo(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)

    # A class defined here cannot even be pickled to the main process: its text still arrives.
    with pytest.raises(RuntimeError, match=r"^Caught NeedsTwo in DataLoader worker process 0\.\nOriginal Traceback"):
        list(DataLoader(Failing(NeedsTwo(1, 2)), batch_size=None, num_workers=2, multiprocessing_context=_FORK))


def test_error_in_worker_init_fn_is_reported():
    def init(worker_id):
        raise ValueError(f"init {worker_id}")

    with pytest.raises(ValueError, match=r"^Caught ValueError in DataLoader worker process 0\.(.|\n)*init 0\n$"):
        list(DataLoader(Samples(4), batch_size=2, num_workers=1, worker_init_fn=init, multiprocessing_context=_FORK))


def test_timeout_raises_pytorchs_error():
    class Slow(Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            time.sleep(1.0)
            return i

    it = iter(DataLoader(Slow(), batch_size=None, num_workers=1, timeout=0.2, multiprocessing_context=_FORK))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0\.2 seconds$"):
        next(it)
    assert time.monotonic() - start < 0.9


def test_killed_worker_raises_instead_of_hanging():
    class Killer(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 1:
                os.kill(os.getpid(), signal.SIGKILL)
            return i

    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^DataLoader worker \(pid\(s\) \d+\) exited unexpectedly$"):
        list(DataLoader(Killer(), batch_size=None, num_workers=2, multiprocessing_context=_FORK))
    assert time.monotonic() - start < 5


def test_workers_are_reaped_when_exhausted_or_deleted():
    it = iter(DataLoader(Samples(20), batch_size=2, num_workers=2, multiprocessing_context=_FORK))
    next(it)
    pids = [w.pid for w in it._workers]
    assert all(alive(p) for p in pids)
    del it
    gc.collect()
    assert not any(alive(p) for p in pids)  # neither running nor zombies

    it = iter(DataLoader(Samples(4), batch_size=2, num_workers=2, multiprocessing_context=_FORK))
    pids = [w.pid for w in it._workers]
    assert len(list(it)) == 2
    assert not any(alive(p) for p in pids)


def test_iterable_dataset_each_worker_iterates_its_copy_and_can_shard():
    class Stream(IterableDataset):
        def __init__(self, shard):
            self.shard = shard

        def __iter__(self):
            info = get_worker_info()
            if not self.shard or info is None:
                return iter(range(7))
            return iter(range(info.id, 7, info.num_workers))

    sharded = [b.tolist() for b in DataLoader(Stream(True), batch_size=2, num_workers=2, multiprocessing_context=_FORK)]
    assert sharded == [[0, 2], [1, 3], [4, 6], [5]]
    copies = [b.tolist() for b in DataLoader(Stream(False), batch_size=3, num_workers=2, drop_last=True,
                                             multiprocessing_context=_FORK)]
    assert copies == [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]]  # every worker reads everything (not sharded)


def test_persistent_workers_survive_epochs_and_early_break():
    loader = DataLoader(Samples(9), batch_size=2, num_workers=2, persistent_workers=True,
                        multiprocessing_context=_FORK)
    expected = flatten(DataLoader(Samples(9), batch_size=2))
    it = iter(loader)
    pids = [w.pid for w in it._workers]
    assert flatten(it) == expected
    for b in loader:  # stop mid-epoch: the next epoch starts clean
        break
    assert flatten(loader) == expected
    assert [w.pid for w in loader._iterator._workers] == pids and all(alive(p) for p in pids)
    loader._iterator._shutdown_workers()
    assert not any(alive(p) for p in pids)


def test_out_of_order_results_when_asked():
    class Uneven(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            time.sleep(0.3 if i == 0 else 0)
            return i

    got = [b for b in DataLoader(Uneven(), batch_size=None, num_workers=2, in_order=False,
                                        multiprocessing_context=_FORK)]
    assert sorted(got) == [0, 1, 2, 3] and got[0] != 0
    got = [b for b in DataLoader(Uneven(), batch_size=None, num_workers=2, multiprocessing_context=_FORK)]
    assert got == [0, 1, 2, 3]


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_pin_memory_with_workers():
    batches = list(DataLoader(Samples(4), batch_size=2, num_workers=2, pin_memory=True, multiprocessing_context=_FORK))
    assert all(t.is_pinned() and d["i"].is_pinned() for t, d, _ in batches)
    assert flatten(batches) == flatten(DataLoader(Samples(4), batch_size=2))


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) CUDA device")
def test_cuda_tensor_from_forked_worker_is_refused():
    class OnDevice(Dataset):
        def __init__(self):
            self.x = tandem.ones(2, device="cuda:0")

        def __len__(self):
            return 2

        def __getitem__(self, i):
            return self.x

    with pytest.raises(RuntimeError, match=r"^Caught RuntimeError in DataLoader worker process 0\.(.|\n)*"
                       r"RuntimeError: Cannot re-initialize CUDA in forked subprocess\. To use CUDA with "
                       r"multiprocessing, you must use the 'spawn' start method\nhint: "):
        list(DataLoader(OnDevice(), batch_size=None, num_workers=1, timeout=20, multiprocessing_context=_FORK))


def test_spawn_context_gives_the_same_batches():
    loader = DataLoader(TensorDataset(tandem.arange(10.0), tandem.arange(10)), batch_size=4, num_workers=1,
                        multiprocessing_context="spawn")
    assert [(a.tolist(), b.tolist()) for a, b in loader] == [
        ([0.0, 1.0, 2.0, 3.0], [0, 1, 2, 3]), ([4.0, 5.0, 6.0, 7.0], [4, 5, 6, 7]), ([8.0, 9.0], [8, 9])]


def test_option_errors_match_pytorch():
    with pytest.raises(ValueError, match=r"^prefetch_factor option could only be specified in multiprocessing\.let "):
        DataLoader(Samples(), prefetch_factor=2)
    with pytest.raises(ValueError, match=r"^multiprocessing_context option should specify a valid start method in "
                       r"\['fork', 'spawn', 'forkserver'\], but got multiprocessing_context='bogus'$"):
        DataLoader(Samples(), num_workers=2, multiprocessing_context="bogus")
    with pytest.raises(ValueError, match=r"^multiprocessing_context can only be used with multi-process loading "
                       r"\(num_workers > 0\), but got num_workers=0$"):
        DataLoader(Samples(), multiprocessing_context="spawn")
    with pytest.raises(TypeError, match=r"^multiprocessing_context option should be a valid context object"):
        DataLoader(Samples(), num_workers=1, multiprocessing_context=3)


# --- tandem.multiprocessing and shared memory ---

def _child_adds(q, shared):
    x = q.get()
    x.add_(10)
    shared.mul_(2)
    q.put((x.is_shared(), x.dtype == tandem.int32))


def test_queue_moves_tensors_through_shared_memory():
    q = _FORK.Queue()
    shared = tandem.arange(6.0).reshape(2, 3).share_memory_()
    sent = tandem.ones(4, dtype=tandem.int32).share_memory_()
    p = _FORK.Process(target=_child_adds, args=(q, shared))
    p.start()
    q.put(sent)
    p.join(10)
    assert q.get(timeout=5) == (True, True)
    assert sent.tolist() == [11] * 4  # the child wrote into the same memory
    assert shared.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]


def test_queue_copies_unshared_tensors_once_and_keeps_geometry():
    q = tmp.SimpleQueue()
    t = tandem.arange(12.0).reshape(3, 4).t()[1:]  # strided view with an offset
    q.put(t)
    got = q.get()
    assert got.tolist() == t.tolist() and got.stride() == t.stride() and got.is_shared()
    assert not t.is_shared()  # the sender's tensor is left as it was


def test_share_memory_in_place():
    p = tandem.nn.Parameter(tandem.arange(4.0))
    data_before = p.tolist()
    assert not p.is_shared()
    assert p.share_memory_() is p
    assert p.is_shared() and p.requires_grad and p.tolist() == data_before
    view = p.detach()[1:]
    assert view.is_shared()
    assert tandem.ones(0).share_memory_().tolist() == []
    with pytest.raises(TypeError, match=r"^share_memory_\(\): tandem.bfloat16 tensors cannot be shared yet\nhint: "):
        tandem.ones(2, dtype=tandem.bfloat16).share_memory_()


def test_plain_pickle_copies_values(device):
    for t in [tandem.arange(6.0, device=device).reshape(2, 3), tandem.tensor([1.5, 2.5], dtype=tandem.bfloat16),
              tandem.tensor([True, False]), tandem.tensor(3)]:
        got = pickle.loads(pickle.dumps(t))
        assert (got.tolist(), got.dtype, got.shape, got.device.type) == (t.tolist(), t.dtype, t.shape,
                                                                         tandem.device(device).type if
                                                                         t.dtype == tandem.float32 else "cpu")
        assert not got.is_shared()
    w = tandem.ones(2, requires_grad=True)
    assert pickle.loads(pickle.dumps(w)).requires_grad


def _raise_in_child(i, word):
    if i == 1:
        raise ValueError(f"{word} {i}")


def test_spawn_raises_the_child_error():
    with pytest.raises(tmp.ProcessRaisedException, match=r"-- Process 1 terminated with the following error:\n"
                       r"Traceback(.|\n)*ValueError: boom 1"):
        tmp.spawn(_raise_in_child, args=("boom",), nprocs=2, start_method="fork")
    assert tmp.spawn(_raise_in_child, args=("ok",), nprocs=1, start_method="fork") is None


def test_sharing_strategies():
    assert tmp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    assert tmp.get_sharing_strategy() == "file_descriptor"
    tmp.set_sharing_strategy("file_system")
    try:
        assert tmp.get_sharing_strategy() == "file_system"
    finally:
        tmp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError, match="invalid sharing strategy 'x'"):
        tmp.set_sharing_strategy("x")
    assert tmp.Queue is not None and tmp.get_context is not None and tmp.Process is not None


def _child_steps(model):
    with tandem.no_grad():
        model.weight.add_(1)
        model.running_mean.fill_(7)


def test_module_share_memory_lets_a_child_update_the_parent_model():
    model = tandem.nn.BatchNorm1d(2)
    model.weight.grad = tandem.ones(2)
    weight = model.weight
    assert model.share_memory() is model
    assert model.weight is weight and weight.requires_grad  # the same Parameter objects, now shared
    assert all(t.is_shared() for t in [model.weight, model.bias, model.weight.grad, model.running_mean,
                                       model.running_var, model.num_batches_tracked])
    p = _FORK.Process(target=_child_steps, args=(model,))
    p.start()
    p.join(10)
    assert p.exitcode == 0
    assert model.weight.tolist() == [2.0, 2.0] and model.running_mean.tolist() == [7.0, 7.0]


def test_workers_forked_after_two_threads_ran_do_not_hang():
    """libgomp's team does not survive fork: a worker forked after the parent ran a 2-thread region used to wait
    forever at its first parallel region (found by bench/nn_bench.py). Forked children run on one thread."""
    import subprocess
    import sys
    import textwrap
    script = textwrap.dedent("""
        import tandem
        from tandem.utils.data import DataLoader, TensorDataset
        tandem.set_num_threads(2)
        a = tandem.randn(512, 512)
        (a @ a).sum().item()
        (tandem.randn(1 << 20) * 2).sum().item()   # parallel elementwise and reduction regions
        data = TensorDataset(tandem.randn(2048, 64), tandem.arange(2048))
        loader = DataLoader(data, batch_size=256, num_workers=2, multiprocessing_context="fork",
                            collate_fn=lambda items: tandem.stack([x for x, _ in items]).repeat(64, 1).exp().sum())
        print(sum(float(b) for b in loader) > 0)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "True", run.stderr


def _child_reports_device_tensor(model, q):
    q.put((str(model.weight.device), model.weight.cpu().tolist()))


@pytest.mark.skipif(not tandem.cuda.is_available(), reason="no cuda device (real or emulated)")
def test_spawned_process_receives_a_cuda_model():
    """pytorch/examples mnist_hogwild --cuda: a cuda model passed to a spawned Process. Its tensors cross as host
    copies (docs/compat.md); the copy's shared-memory descriptor was closed (the temporary freed) before the
    child started, and spawn failed with 'bad value(s) in fds_to_keep'."""
    ctx = tmp.get_context("spawn")
    model = tandem.nn.Linear(2, 1).to("cuda")
    with tandem.no_grad():
        model.weight.fill_(3)
    model.share_memory()
    q = ctx.Queue()
    p = ctx.Process(target=_child_reports_device_tensor, args=(model, q))
    p.start()
    got = q.get(timeout=120)
    p.join(60)
    assert p.exitcode == 0
    assert got == ("cuda:0", [[3.0, 3.0]])
