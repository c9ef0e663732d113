"""DataLoader, as in PyTorch (default_collate and default_convert: _utils/collate.py). With num_workers=0
batches are built in the calling thread; with num_workers > 0 in worker processes (_multiprocessing_iter.py,
_worker.py)."""
import collections.abc
import itertools
import math
import multiprocessing
import os
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import tandem
import tandem.multiprocessing  # noqa: F401  (registers how tensors cross processes: through shared memory)

from ..._C import Tensor
from ._iter_base import _BaseDataLoaderIter
from ._utils.collate import default_collate, default_convert
from ._multiprocessing_iter import MultiProcessingDataLoaderIter

_MultiProcessingDataLoaderIter = MultiProcessingDataLoaderIter  # PyTorch's name
# PyTorch's annotation aliases, which libraries import to type their own loaders (opacus' DPDataLoader)
_T = TypeVar("_T")
_T_co = TypeVar("_T_co", covariant=True)
_worker_init_fn_t = Callable[[int], None]
_collate_fn_t = Callable[[list[_T]], Any]
from ._worker import get_worker_info  # noqa: F401  (re-exported by utils.data)
from .dataset import IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler


def pin_memory(data):
    """``data`` with every CPU tensor in it copied to pinned memory (dicts, namedtuples, tuples and lists kept;
    tensors already on a device stay as they are)."""
    if isinstance(data, Tensor):
        return data.pin_memory() if data.device.type == "cpu" else data
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return {k: pin_memory(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(v) for v in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(v) for v in data)
    if isinstance(data, list):
        return [pin_memory(v) for v in data]
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data


class DataLoader:
    """Iterates over ``dataset`` in batches. With ``pin_memory=True`` every batch's tensors come out in pinned
    memory (so ``.cuda(non_blocking=True)`` on them is asynchronous). With ``num_workers > 0`` each batch is
    fetched and collated in one of that many worker processes (started with ``multiprocessing_context``, fork
    by default on Linux), each holding its own copy of the dataset; batches come back through shared memory,
    in order unless ``in_order=False``."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.multiprocessing_context = _start_context(multiprocessing_context, num_workers)
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified shuffle option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(
                    f"DataLoader with IterableDataset: expected unspecified sampler option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                                 f"batch_sampler={batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        self.dataset = dataset
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.prefetch_factor = 2 if prefetch_factor is None and num_workers > 0 else prefetch_factor
        self.worker_init_fn, self.persistent_workers, self.in_order = worker_init_fn, persistent_workers, in_order
        self.pin_memory_device = pin_memory_device
        self.generator = generator
        self._iterator = None  # the live worker pool, kept across epochs with persistent_workers
        user_sampler = sampler is not None or batch_sampler is not None
        if sampler is None and self._iterable:
            sampler = _InfiniteConstantSampler()
        elif sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        self.sampler = sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_sampler = batch_sampler
        # the batches tandem may gather in one index_select per tensor: its own batch sampler over its own sampler,
        # as long as nobody swapped it (timm's MultiEpochsDataLoader sets batch_sampler to a repeating one)
        self._own_batch_sampler = None if user_sampler else batch_sampler
        self._auto_collation = batch_sampler is not None
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if self._auto_collation else default_convert)
        self.check_worker_number_rationality()
        self.__initialized = True

    def __setattr__(self, attr, val):
        # PyTorch's: what the batches were built from cannot change once the loader exists (loader.batch_size = 64
        # would otherwise be silently ignored by the batch sampler already made; program sweep 21)
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    def check_worker_number_rationality(self):
        """PyTorch's warning when num_workers exceeds the CPUs this process may run on (checked at construction
        and each time a worker pool starts, as PyTorch)."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        max_workers = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        if max_workers is not None and self.num_workers <= max_workers:
            return
        if max_workers is None:
            suggestion = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            suggestion = (f"Our suggested max number of worker in current system is {max_workers}"
                          f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, which is smaller "
                          "than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {suggestion} "
                      "Please be aware that excessive worker creation might get DataLoader running slow or even "
                      "freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
                      stacklevel=2)

    def __len__(self):
        if self._iterable:  # the dataset's own length, in batches
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
            return n
        return len(self.batch_sampler) if self._auto_collation else len(self.sampler)

    def __iter__(self):
        # Every new iterator comes from _get_iterator, which libraries override to wrap it (as in PyTorch).
        if self.num_workers > 0 and self.persistent_workers:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return MultiProcessingDataLoaderIter(self)

    def _pins_memory(self):
        """Whether a new iterator pins its batches. As PyTorch, `pin_memory` keeps the value given and each new
        iterator (not the constructor: a loader never iterated stays quiet) warns when there is no accelerator."""
        if self.pin_memory and not tandem.cuda.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=3)
            return False
        return self.pin_memory

    def _index_sampler(self):
        """What the main process draws per batch: lists of indices (or one index without auto-collation)."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def _new_base_seed(self):
        """The seed of one epoch's workers (worker i seeds its generators with it + i), drawn from ``generator``
        (the default generator when None), so tandem.manual_seed makes worker randomness reproducible."""
        return int(tandem.empty((), dtype=tandem.int64).random_(generator=self.generator).item())

    def _batches(self):
        if self._iterable:
            return self._stream_batches()
        if self._auto_collation and self._can_gather_batches():
            return self._gathered_batches()
        if self._auto_collation:
            return (self.collate_fn(self._fetch(batch)) for batch in self.batch_sampler)
        return (self.collate_fn(self.dataset[i]) for i in self.sampler)

    def _fetch(self, indices):
        """The samples at `indices`: through the dataset's __getitems__ when it has one (as PyTorch's fetcher)."""
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            return getitems(indices)
        return [self.dataset[i] for i in indices]

    def _stream_batches(self):
        stream = iter(self.dataset)
        if not self._auto_collation:
            yield from (self.collate_fn(sample) for sample in stream)
            return
        while True:
            batch = list(itertools.islice(stream, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield self.collate_fn(batch)

    # A TensorDataset with the default collate gets each batch with one gather per tensor instead of
    # indexing sample by sample and stacking: the same tensors, without a Python loop over samples.
    def _can_gather_batches(self):
        own = self._own_batch_sampler
        return (isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate and own is not None
                and self.batch_sampler is own and own.sampler is self.sampler)

    def _gathered_batches(self):
        order = self.sampler.order()
        n, bs = order.numel(), self.batch_size
        end = n - n % bs if self.drop_last else n
        for start in range(0, end, bs):
            idx = order.narrow(0, start, min(bs, n - start))
            yield [tandem.index_select(t, 0, idx.to(t.device)) for t in self.dataset.tensors]


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """One epoch's batches made in this process (PyTorch's class name): an iterator with the loader's len()."""

    def __init__(self, loader):
        super().__init__(loader)
        # PyTorch draws every iterator's base seed, workers or not: the same stream consumption, so the draws
        # after it (a shuffling sampler's seed, the model's dropout) are PyTorch's.
        self._base_seed = loader._new_base_seed()
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        batches = loader._batches()
        self._batches = (pin_memory(b) for b in batches) if loader._pins_memory() else batches

    def __next__(self):
        return next(self._batches)


class _InfiniteConstantSampler:
    """The sampler an IterableDataset gets: yields None forever (the dataset decides what comes next)."""

    def __iter__(self):
        while True:
            yield None


def _start_context(context, num_workers):
    """The multiprocessing context workers start in (None: multiprocessing's default), checked as PyTorch."""
    if context is None:
        return None
    if num_workers <= 0:
        raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                         f"but got num_workers={num_workers}")
    if isinstance(context, str):
        valid = multiprocessing.get_all_start_methods()
        if context not in valid:
            raise ValueError(f"multiprocessing_context option should specify a valid start method in {valid!r}, "
                             f"but got multiprocessing_context={context!r}")
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError("multiprocessing_context option should be a valid context object or a string specifying "
                        f"the start method, but got multiprocessing_context={context}")
    return context
