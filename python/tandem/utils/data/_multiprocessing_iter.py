"""The DataLoader iterator with worker processes (num_workers > 0), as PyTorch's _MultiProcessingDataLoaderIter.

The main process hands out batches of indices round-robin, one index queue per worker, keeping up to
prefetch_factor batches per worker in flight; workers send (send_idx, batch) back on one data queue, and batches
are returned in send order (in_order=True) or as they come. Tensors in a batch cross through shared memory
(tandem.multiprocessing). The main process waits on the data pipe and on every worker's exit sentinel at once,
so a dead worker is reported at once instead of hanging, and `timeout` bounds each wait.
"""
import multiprocessing.connection
import os
import time
import weakref

import tandem

from . import _worker
from ._iter_base import _BaseDataLoaderIter


class MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        self._shutdown, self._workers = True, []  # until the workers start
        super().__init__(loader)
        self._dataset = loader.dataset
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._in_order = loader.in_order
        self._pin_memory = loader._pins_memory()
        self._iterable = loader._iterable
        self._ctx = ctx = loader.multiprocessing_context or tandem.multiprocessing.get_context()
        self._worker_result_queue = ctx.SimpleQueue()
        self._done_event = ctx.Event()
        self._index_queues = []
        # Drawn before the sampler's first index, as PyTorch's iterator draws it: the same stream consumption
        # as with num_workers=0, so a shuffling sampler gives the same batches either way.
        self._base_seed = loader._new_base_seed()
        self._reset(loader, first_iter=True)

    def _start_workers(self, loader, ctx, base_seed):
        # Made before the first start, so workers started before a failing start() are stopped too.
        self._shutdown = False
        self._finalizer = weakref.finalize(self, _stop_workers, os.getpid(), self._workers, self._index_queues,
                                           self._worker_result_queue, self._done_event)
        for i in range(self._num_workers):
            # A SimpleQueue writes in the caller's thread: a Queue's feeder thread may already be finalized when
            # the iterator is collected as garbage, and the stop message would then never leave.
            index_queue = ctx.SimpleQueue()
            w = ctx.Process(target=_worker.worker_loop, daemon=True, args=(
                self._iterable, self._dataset, index_queue, self._worker_result_queue, self._done_event,
                loader._auto_collation, loader.collate_fn, loader.drop_last, loader._can_gather_batches(),
                base_seed, loader.worker_init_fn, i, self._num_workers, loader.persistent_workers))
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(loader._index_sampler())
        self._next_index = next(self._sampler_iter, _NO_INDEX)
        self._send_idx = 0   # next batch index to hand out
        self._rcvd_idx = 0   # next batch index to return
        self._task_info = {}  # send_idx -> (worker_id,) while in flight, (worker_id, data) once received early
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = iter(_cycle(self._num_workers))
        if first_iter:
            self._start_workers(loader, self._ctx, self._base_seed)
        else:  # persistent workers: restart each one's epoch and wait until all have. As in PyTorch, they keep
            # their random state (what worker_init_fn seeded goes on), and no new base seed is drawn
            for q in self._index_queues:
                q.put(_worker.ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _worker.ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        index, self._next_index = self._next_index, next(self._sampler_iter, _NO_INDEX)
        if index is _NO_INDEX:
            return
        for _ in range(self._num_workers):  # the next worker still taking work
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                break
        else:
            return  # every worker has ended its stream
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._send_idx += 1

    def _get_data(self):
        """The next (idx, data) message from any worker; RuntimeError on timeout or when a worker died."""
        reader = self._worker_result_queue._reader
        deadline = None if self._timeout <= 0 else time.monotonic() + self._timeout
        while True:
            wait_for = None if deadline is None else max(0.0, deadline - time.monotonic())
            sentinels = [w.sentinel for w in self._workers]
            ready = multiprocessing.connection.wait([reader] + sentinels, timeout=wait_for)
            if reader in ready:  # data first: a worker may have sent its last batch and then died
                return self._worker_result_queue.get()
            if ready:
                failed = [w for w in self._workers if not w.is_alive()]
                if failed:
                    self._shutdown_workers()
                    pids = ", ".join(str(w.pid) for w in failed)
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly")
                continue
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def __next__(self):
        data = self._next_data()
        if self._pin_memory:
            from .dataloader import pin_memory
            data = pin_memory(data)
        return data

    def _next_data(self):
        while True:
            # Skip batches that will never come: given to a worker whose stream ended before it got to them.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None and (len(info) == 2 or self._workers_status[info[0]]):
                    break
                self._task_info.pop(self._rcvd_idx, None)
                self._rcvd_idx += 1
            else:
                if not self._loader.persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:  # already here (it came out of order)
                data = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process_data(data)
            idx, data = self._get_data()
            if isinstance(data, _worker.IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False  # that worker's copy of the dataset is used up
                self._task_info.pop(idx, None)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx and self._in_order:
                self._task_info[idx] += (data,)  # keep it until its turn
                continue
            self._task_info.pop(idx, None)
            if idx == self._rcvd_idx:
                self._rcvd_idx += 1
            return self._process_data(data)

    def _process_data(self, data):
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self):
        """Stops and reaps the workers (see _stop_workers). Idempotent; also runs when the iterator is collected
        and at interpreter exit (weakref.finalize)."""
        if not self._shutdown:
            self._shutdown = True
            self._finalizer()


def _stop_workers(owner_pid, workers, index_queues, result_queue, done_event):
    """Stops the workers and reaps them (no zombies): stop messages first, then join, then terminate any that hang;
    then closes the queues.

    This is a weakref.finalize callback rather than __del__, because the finalizer holds the workers and queues:
    when the iterator dies in a reference cycle (an exception's traceback holds its frames), the garbage collector
    runs the __del__ of every object in the cycle in no set order, and a queue's Connection.__del__ closes its
    descriptor without marking it closed, so closing the queue again here closed that number twice: EBADF, or
    worse, some other pipe or socket that had just reused the number. Held by the finalizer, the queues and
    processes are not part of the garbage and are intact when this runs.

    Only the process that started the workers acts. A process forked later (another loader's worker, any fork)
    inherits the finalizer, and if the iterator was uncollected garbage at fork time, the child's garbage
    collector fires it there at whatever allocation triggers a collection, even inside an import. Acting there
    would stop the parent's workers, and Process.is_alive() raises "can only test a child process"; the
    unraisable-exception report of that can import modules, and an import nested inside importlib's module-lock
    acquire breaks its bookkeeping on Python < 3.12 (KeyError in _ModuleLock.acquire), which killed the worker.
    """
    if os.getpid() != owner_pid:
        return  # an inherited copy: the workers and pipes belong to the parent
    try:
        done_event.set()
        for q in index_queues:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + _worker.STATUS_CHECK_INTERVAL
        for w in workers:
            while w.is_alive() and time.monotonic() < deadline:
                _drain(result_queue)  # a worker blocked writing a batch to a full pipe can then exit
                w.join(0.05)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in index_queues:
            q.close()
        result_queue.close()
    finally:
        workers.clear()


def _drain(result_queue):
    try:
        while result_queue._reader.poll():
            result_queue._reader.recv_bytes()  # dropped unread (its fds were never taken)
    except (OSError, EOFError):
        pass


_NO_INDEX = object()  # the sampler is exhausted


def _cycle(n):
    while True:
        yield from range(n)
