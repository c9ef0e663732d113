"""The DDP reducer used once a communication hook is registered (``ddp.register_comm_hook(state, hook)``).

The C++ reducer (src/distributed/reducer.cpp) all-reduces its buckets itself and has no place to call Python,
so with a hook DDP switches to this one: the same buckets (the C++ reducer's bucket_indices), each parameter's
post-accumulate-grad hook copying its gradient into the bucket's flat buffer, and a full bucket handed to
``hook(state, GradBucket)``, in bucket order on every rank. The hook returns a Future of the reduced buffer; after
the last bucket the reducer waits for them all and writes the results into ``.grad``. The bookkeeping is Python,
the arithmetic tandem ops (copy into the buffer, the hook's collective)."""
import tandem
from tandem.distributed.grad_bucket import GradBucket
from tandem.futures import Future


class CommHookReducer:
    def __init__(self, params, names, bucket_indices, hook, state):
        self._params, self._names = params, names
        self._hook, self._state = hook, state
        self._buckets = []
        self._bucket_of = {}
        for b, indices in enumerate(bucket_indices):
            offsets, at = [], 0
            for i in indices:
                offsets.append(at)
                at += params[i].numel()
                self._bucket_of[i] = b
            self._buckets.append({"params": list(indices), "offsets": offsets, "numel": at, "flat": None})
        self._handles = [p.register_post_accumulate_grad_hook(self._ready_hook(i)) for i, p in enumerate(params)]
        self._require_sync = True
        self._expect = False
        self._started = False
        self.reductions = 0

    def _ready_hook(self, i):
        def ready(param):
            self._mark_ready(i)
        return ready

    def remove_hooks(self):
        for h in self._handles:
            h.remove()

    def bucket_indices(self):
        return [list(b["params"]) for b in self._buckets]

    def set_require_sync(self, sync):
        self._require_sync = sync

    def prepare_for_backward(self, outputs):
        if self._started:
            self._started = False
            missing = " ".join(f"{self._names[i]} (index {i})" for i in range(len(self._params))
                               if not self._ready[i])
            raise RuntimeError("Expected to have finished reduction in the prior iteration before starting a new "
                               "one. This error indicates that your module has parameters that were not used in "
                               "producing loss. Parameters which did not receive grad for rank "
                               f"{tandem.distributed.get_rank()}: {missing}\nhint: with a communication hook, "
                               "every parameter must take part in the loss on every rank")
        self._ready = [False] * len(self._params)
        for b in self._buckets:
            b["pending"] = len(b["params"])
            b["future"] = None
        self._next = 0
        self._expect = self._require_sync

    def _mark_ready(self, i):
        if not self._expect:
            return  # no_sync(), or a backward without a DDP forward before it
        if self._ready[i]:
            raise RuntimeError(f"Expected to mark a variable ready only once. Parameter {self._names[i]} (index {i}) "
                               "got a gradient twice in one iteration.\nhint: call backward once per forward, or "
                               "use no_sync() for the extra backward passes")
        self._started = True
        self._ready[i] = True
        b = self._buckets[self._bucket_of[i]]
        p = self._params[i]
        if b["flat"] is None:
            b["flat"] = tandem.empty(b["numel"], dtype=p.dtype, device=p.device)
        offset = b["offsets"][b["params"].index(i)]
        with tandem.no_grad():
            b["flat"][offset:offset + p.numel()].copy_(p.grad.reshape(-1))
        b["pending"] -= 1
        while self._next < len(self._buckets) and self._buckets[self._next]["pending"] == 0:
            self._launch(self._next)
            self._next += 1
        if self._next == len(self._buckets):
            self._finalize()

    def _launch(self, index):
        b = self._buckets[index]
        bucket = GradBucket(index, b["flat"], [self._params[i] for i in b["params"]], b["offsets"],
                            index == len(self._buckets) - 1)
        with tandem.no_grad():
            future = self._hook(self._state, bucket)
        if not isinstance(future, Future):
            raise RuntimeError("Communication hook: return annotation should be torch.futures.Future[torch.Tensor]."
                               f"\nhint: the hook returned {type(future).__name__}; return e.g. "
                               "dist.all_reduce(t, async_op=True).get_future().then(...)")
        b["future"] = future

    def _finalize(self):
        self._expect = False
        self._started = False
        with tandem.no_grad():
            for b in self._buckets:
                result = b["future"].wait()
                if isinstance(result, (list, tuple)):
                    result = result[0]
                if not isinstance(result, tandem.Tensor) or result.numel() != b["numel"]:
                    raise RuntimeError(f"Communication hook: the Future must hold a tensor of the bucket's "
                                       f"{b['numel']} elements, got {result!r}")
                for i, offset in zip(b["params"], b["offsets"]):
                    p = self._params[i]
                    p.grad.copy_(result[offset:offset + p.numel()].view(p.shape))
        self.reductions += 1
