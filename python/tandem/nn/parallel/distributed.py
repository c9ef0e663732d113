"""DistributedDataParallel: PyTorch's DDP over tandem.distributed.

The reducer (src/distributed/reducer.cpp) does the work: parameters in buckets, each bucket all-reduced as soon
as backward has produced all its gradients (hooked on the autograd engine's gradient accumulation), so
communication overlaps the rest of backward. This module only starts an iteration at each forward.
"""
import contextlib
import dataclasses

import tandem
import tandem.distributed as dist
from tandem import _C
from tandem.nn.modules.module import Module
from tandem._accelerator_memory import _get_device_index
from tandem.nn.parallel._move_inputs import to_kwargs
from tandem.nn.parallel.comm_hook_reducer import CommHookReducer

_DEFAULT_BUCKET_CAP_MB = 25


def _output_tensors(value, found):
    """Every tensor in a forward's result (tuples, lists, dicts, namedtuples, dataclasses)."""
    if isinstance(value, tandem.Tensor):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _output_tensors(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            _output_tensors(v, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _output_tensors(getattr(value, f.name), found)
    return found


def _refuse_sparse_gradients(module):
    """The reducer averages what the autograd engine accumulates; a sparse gradient (nn.Embedding(sparse=True)) is
    accumulated outside it (nn/_sparse_grad.py), so its parameter would never be averaged (with
    find_unused_parameters=True the ranks would drift apart silently): refused up front."""
    from tandem.nn.modules.embedding_bag import EmbeddingBag
    from tandem.nn.modules.linear import Embedding

    sparse = [name or type(m).__name__ for name, m in module.named_modules()
              if isinstance(m, (Embedding, EmbeddingBag)) and m.sparse and m.weight.requires_grad]
    if sparse:
        raise NotImplementedError(
            f"DistributedDataParallel does not average sparse gradients in tandem yet: {', '.join(sparse)} "
            "uses sparse=True\nhint: construct the embedding with sparse=False (its dense gradient is averaged as "
            "the others are)")


class DistributedDataParallel(Module):
    """Wraps ``module`` so that every rank's backward leaves the same, averaged gradients: parameters and
    buffers are broadcast from rank 0 at construction, buffers again before each forward
    (``broadcast_buffers``), and gradients are averaged in ``bucket_cap_mb`` buckets during backward.
    ``no_sync()`` accumulates gradients locally; ``find_unused_parameters=True`` allows parameters that some
    forward does not use."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None):
        super().__init__()
        if not dist.is_initialized():
            raise ValueError(dist.distributed_c10d._NOT_INITIALIZED + dist.distributed_c10d._NOT_INITIALIZED_HINT)
        self.module = module
        pg = process_group if process_group is not None else dist.group.WORLD
        self.process_group = pg
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.dim = dim
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        _refuse_sparse_gradients(module)
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        devices = {p.device for _, p in named}
        if len(devices) > 1:
            raise ValueError(f"DistributedDataParallel's input module must be on the same type of devices, but "
                             f"input module parameters locate in {sorted(str(d) for d in devices)}.")
        self.device_type = next(iter(devices)).type
        self._set_device_ids(device_ids, output_device, devices)
        self._root = dist.get_global_rank(pg, 0)
        if init_sync:
            self._sync_states()
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        if cap_mb <= 0:
            raise ValueError(f"bucket_cap_mb must be positive, got {bucket_cap_mb}")
        self.reducer = _C._Reducer.create([p for _, p in named], [n for n, _ in named],
                                          pg._impl_for(named[0][1]), int(cap_mb * 1024 * 1024),
                                          bool(find_unused_parameters))
        self._named_params = named
        self._comm_hook = None

    def register_comm_hook(self, state, hook):
        """From now on each gradient bucket goes through ``hook(state, bucket)`` (a ``dist.GradBucket``), which
        returns a Future of the bucket's reduced buffer, e.g. default_hooks.allreduce_hook or fp16_compress_hook.
        Register it before the first backward; once per DDP."""
        if not callable(hook):
            raise TypeError(f"Communication hook must be callable, got {type(hook).__name__}")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if self.find_unused_parameters:
            raise NotImplementedError(
                "register_comm_hook with find_unused_parameters=True is not supported by tandem yet\nhint: use "
                "every parameter in the loss and leave find_unused_parameters False, or drop the hook")
        params = [p for _, p in self._named_params]
        names = [n for n, _ in self._named_params]
        # The C++ reducer all-reduces on its own; with a hook, the Python reducer takes over its buckets (the
        # C++ one removes its gradient hooks when it is freed).
        self.reducer = CommHookReducer(params, names, self.reducer.bucket_indices(), hook, state)
        self._comm_hook = hook

    def _set_device_ids(self, device_ids, output_device, devices):
        """PyTorch's rules: device ids (as indices) only for a module on one accelerator device; forward then
        moves its arguments to device_ids[0]."""
        if not device_ids or self.device_type == "cpu":
            if device_ids or output_device:
                raise ValueError(
                    "DistributedDataParallel device_ids and output_device arguments only work with "
                    "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                    f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
            self.device_ids = None
            self.output_device = None
            return
        self.device_ids = [_get_device_index(d, True) for d in device_ids]
        self.output_device = _get_device_index(device_ids[0] if output_device is None else output_device, True)

    def to_kwargs(self, inputs, kwargs, device_id):
        """``inputs`` and ``kwargs`` with their tensors moved to this module's device type, index device_id."""
        return to_kwargs(inputs, kwargs, tandem.device(self.device_type, device_id))

    def _sync_states(self):
        """Rank 0's parameters and buffers on every rank (a shape mismatch raises on every rank)."""
        with tandem.no_grad():
            for t in [*self.module.parameters(), *self.module.buffers()]:
                dist.broadcast(t, src=self._root, group=self.process_group)

    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers:
            with tandem.no_grad():
                for b in self.module.buffers():
                    dist.broadcast(b, src=self._root, group=self.process_group)
        if self.device_ids and (inputs or kwargs):
            (inputs,), (kwargs,) = self.to_kwargs(inputs, kwargs, self.device_ids[0])
        output = self.module(*inputs, **kwargs)
        if tandem.is_grad_enabled():
            self.reducer.set_require_sync(self.require_backward_grad_sync)
            self.reducer.prepare_for_backward(
                _output_tensors(output, []) if self.find_unused_parameters else [])
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward only accumulates gradients locally; the first backward after it averages the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _bucket_indices(self):
        return self.reducer.bucket_indices()
