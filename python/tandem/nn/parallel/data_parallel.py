"""DataParallel in one process, as torch.nn.DataParallel: the batch is split along `dim` over device_ids, each
chunk runs on its device with the parameters copied there through differentiable `.to` (so gradients flow back to
the module's own parameters on device_ids[0]), and the outputs are gathered on output_device. Chunks run one after
another (tandem has no per-device worker threads), so this is about API compatibility, not speed; prefer
DistributedDataParallel for multi-device training."""
import tandem

from ..._C import Tensor
from ..modules.module import Module
from ..utils.stateless import _functional_call as functional_call

__all__ = ["DataParallel", "data_parallel"]


def _device_index(d):
    if isinstance(d, int):
        return d
    d = tandem.device(d)
    return d.index if d.index is not None else tandem.cuda.current_device()


def _scatter(obj, devices, dim):
    """One copy of `obj` per device, tensors split into chunks along `dim` (PyTorch's scatter rules)."""
    if isinstance(obj, Tensor):
        chunks = obj.chunk(len(devices), dim)
        return [c.to(f"cuda:{d}") for c, d in zip(chunks, devices)]
    if isinstance(obj, tuple) and len(obj) > 0:
        return [tuple(parts) for parts in zip(*(_scatter(o, devices, dim) for o in obj))]
    if isinstance(obj, list) and len(obj) > 0:
        return [list(parts) for parts in zip(*(_scatter(o, devices, dim) for o in obj))]
    if isinstance(obj, dict) and len(obj) > 0:
        return [dict(zip(obj.keys(), parts)) for parts in zip(*(_scatter(o, devices, dim) for o in obj.values()))]
    return [obj for _ in devices]


def _gather(outputs, target, dim):
    first = outputs[0]
    if isinstance(first, Tensor):
        moved = [o.to(f"cuda:{target}") for o in outputs]
        if all(o.dim() == 0 for o in moved):
            return tandem.stack(moved)  # PyTorch warns and unsqueezes scalars; the result is the same vector
        return tandem.cat(moved, dim)
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((k, _gather([o[k] for o in outputs], target, dim)) for k in first)
    return type(first)(map(lambda parts: _gather(list(parts), target, dim), zip(*outputs)))


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if not tandem.cuda.is_available():
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(tandem.cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.device_ids = [_device_index(x) for x in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = tandem.device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(f"module must have its parameters and buffers on device {self.src_device_obj} "
                                   f"(device_ids[0]) but found one of them on device: {t.device}")
        inputs, module_kwargs = self.scatter(inputs, kwargs, self.device_ids)
        if not inputs and not module_kwargs:
            inputs, module_kwargs = ((),), ({},)
        if len(self.device_ids) == 1:
            return self.module(*inputs[0], **module_kwargs[0])
        outputs = self.parallel_apply(self.device_ids[:len(inputs)], inputs, module_kwargs)
        return self.gather(outputs, self.output_device)

    def scatter(self, inputs, kwargs, device_ids):
        # Fewer chunks than devices when the batch is small: only the devices that got a chunk run.
        from .scatter_gather import scatter_kwargs  # noqa: PLC0415 (it builds on this file's helpers)
        return scatter_kwargs(inputs, kwargs, device_ids, self.dim)

    def parallel_apply(self, devices, inputs, kwargs_tup):
        """Runs the module on each chunk with its parameters/buffers moved to the chunk's device (replicas on
        device_ids[0] use the module's own tensors, so in-place buffer updates there are kept, as in PyTorch)."""
        named = dict(self.module.named_parameters(remove_duplicate=False))
        named.update(dict(self.module.named_buffers(remove_duplicate=False)))
        outputs = []
        for device, args, kwargs in zip(devices, inputs, kwargs_tup):
            if device == self.device_ids[0]:
                outputs.append(self.module(*args, **kwargs))
                continue
            moved = {k: v.to(f"cuda:{device}") for k, v in named.items()}
            outputs.append(functional_call(self.module, moved, tuple(args), kwargs))
        return outputs

    def gather(self, outputs, output_device):
        return _gather(outputs, output_device, self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form: DataParallel(module, device_ids, output_device, dim)(*inputs, **module_kwargs)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
