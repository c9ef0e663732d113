"""What runs inside a DataLoader worker process: the fetch loop, its seeding, get_worker_info(), and the wrapper
that carries a worker's exception (with its traceback text) back to the main process, as PyTorch's
torch.utils.data._utils.worker."""
import itertools
import os
import random
import sys
import traceback

import tandem

# How often a waiting worker looks whether its parent is still alive, in seconds.
STATUS_CHECK_INTERVAL = 5.0

_worker_info = None


class WorkerInfo:
    """What get_worker_info() returns inside a worker: id, num_workers, seed and this worker's copy of the
    dataset. Read-only, as PyTorch."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self.__keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


def get_worker_info():
    """In a DataLoader worker process: a WorkerInfo (id, num_workers, seed, dataset). In the main process: None.
    An IterableDataset uses it to read a different shard in each worker."""
    return _worker_info


class ExceptionWrapper:
    """An exception and its traceback text, made picklable to cross from a worker to the main process."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_name = exc_info[0].__name__
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raises the original exception type with PyTorch's message: where it was caught, then the traceback."""
        msg = f"Caught {self.exc_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:  # KeyError quotes its message; this keeps the traceback readable
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except Exception:  # the type needs other arguments: the text still reaches the user
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class IterableDatasetStopIteration:
    """Sent by a worker whose copy of an IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class ResumeIteration:
    """Sent to persistent workers at the start of each new epoch (and echoed back once they are ready)."""


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last, gather):
        self.dataset, self.auto_collation, self.collate_fn, self.gather = dataset, auto_collation, collate_fn, gather

    def fetch(self, index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        if self.gather:  # TensorDataset + default collate: one index_select per tensor (see dataloader.py)
            idx = tandem.tensor(index, dtype=tandem.int64)
            return [tandem.index_select(t, 0, idx.to(t.device)) for t in self.dataset.tensors]
        getitems = getattr(self.dataset, "__getitems__", None)
        data = getitems(index) if getitems else [self.dataset[i] for i in index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last, gather):
        self.stream = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        batch = list(itertools.islice(self.stream, len(index)))
        if len(batch) < len(index):
            self.ended = True
        if not batch or (self.drop_last and len(batch) < len(index)):
            raise StopIteration
        return self.collate_fn(batch)


def _seed_worker(seed, worker_id):
    """Seeds Python's random, tandem's default generator and (if loaded) NumPy's global generator from this
    worker's seed as PyTorch's workers do, so random transforms differ between workers, repeat from run to run,
    and draw PyTorch's numbers (tandem's CPU generator is PyTorch's)."""
    random.seed(seed)
    tandem.default_generator.manual_seed(seed)  # the CPU generator only: no device is touched in a worker
    if "numpy" in sys.modules:
        import numpy as np
        np.random.seed(_numpy_seed(seed - worker_id, worker_id))


def _numpy_seed(base_seed, worker_id):
    """NumPy's seed for a worker: four 32-bit words of a SeedSequence over (worker_id, base_seed's halves, 0),
    the state PyTorch's workers seed NumPy with, so neighbouring workers' NumPy streams are unrelated."""
    import numpy as np
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32, 0]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()


def worker_loop(iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                gather, base_seed, init_fn, worker_id, num_workers, persistent_workers):
    """A worker's life: seed, run worker_init_fn, then answer (send_idx, indices) messages from index_queue with
    (send_idx, batch or ExceptionWrapper) on data_queue until told to stop (None) or the parent dies."""
    global _worker_info
    # One thread per worker, as PyTorch's workers: the workers already run side by side (and a forked child
    # cannot use the parent's OpenMP team; tandem's fork handler sets this too).
    tandem.set_num_threads(1)
    try:
        seed = base_seed + worker_id
        _seed_worker(seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        make_fetcher = _IterableFetcher if iterable else _MapFetcher
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last, gather)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        parent = os.getppid()
        iteration_end = False
        while True:
            if not index_queue._reader.poll(STATUS_CHECK_INTERVAL):  # (this worker is the queue's only reader)
                if os.getppid() != parent or done_event.is_set():  # the main process died or stopped us
                    break
                continue
            r = index_queue.get()
            if isinstance(r, ResumeIteration):
                data_queue.put((r, None))  # acknowledged: this worker has started its new epoch
                iteration_end = False
                fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last, gather)
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # no more data wanted (or none left): keep reading until the stop message
            idx, index = r
            if init_error is not None:
                data, init_error = init_error, None
            else:
                try:
                    data = fetcher.fetch(index)
                except StopIteration:
                    if not iterable:
                        raise
                    data = IterableDatasetStopIteration(worker_id)
                    iteration_end = True
                except Exception:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            _send(data_queue, idx, data, worker_id)
            del data, idx, index, r  # the batch's shared memory is freed once the main process has it
    except KeyboardInterrupt:
        pass  # the main process was interrupted; it also stops the workers


def _send(data_queue, idx, data, worker_id):
    """Puts (idx, data) on the data queue, which pickles in this thread: a batch that cannot be sent (a CUDA
    tensor from a forked worker, an unpicklable object) becomes that error in the main process, not a hang."""
    try:
        data_queue.put((idx, data))
        return
    except Exception:
        if isinstance(data, ExceptionWrapper):  # the exception's class cannot be pickled (defined in a function)
            wrapper = data
            wrapper.exc_type = RuntimeError  # keeps its name and text
        else:
            wrapper = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
    try:
        data_queue.put((idx, wrapper))
    except Exception:
        wrapper.exc_type = RuntimeError
        data_queue.put((idx, wrapper))
