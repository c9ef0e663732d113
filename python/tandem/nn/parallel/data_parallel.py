"""DataParallel in one process, as torch.nn.DataParallel: the batch is split along `dim` over device_ids, each
chunk runs on its device with the parameters copied there through differentiable `.to` (so gradients flow back to
the module's own parameters on device_ids[0]), and the outputs are gathered on output_device. Chunks run one after
another (tandem has no per-device worker threads), so this is about API compatibility, not speed; prefer
DistributedDataParallel for multi-device training."""
import tandem

from ..modules.module import Module
from .replicate import replicate
from .scatter_gather import gather, scatter_kwargs

__all__ = ["DataParallel", "data_parallel"]


def _device_index(d):
    if isinstance(d, int):
        return d
    d = tandem.device(d)
    return d.index if d.index is not None else tandem.cuda.current_device()


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
        return scatter_kwargs(inputs, kwargs, device_ids, dim=self.dim)

    def parallel_apply(self, devices, inputs, kwargs_tup):
        """Runs the module on each chunk: on device_ids[0] the module itself (so in-place buffer updates there are
        kept, as in PyTorch), on each other device a replica (nn.parallel.replicate: its own module objects, whose
        parameters are differentiable copies). Per-module state that hooks keep between forward and backward
        (captum's DeepLift stores each activation's input and output on the module) is then per device, as with
        PyTorch's replicas."""
        others = [d for d in devices if d != self.device_ids[0]]
        replicas = dict(zip(others, replicate(self.module, others, not tandem.is_grad_enabled())))
        outputs = []
        for device, args, kwargs in zip(devices, inputs, kwargs_tup):
            with tandem.cuda.device(device):
                outputs.append(replicas.get(device, self.module)(*args, **kwargs))
        return outputs

    def gather(self, outputs, output_device):
        return gather(outputs, output_device, dim=self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form: DataParallel(module, device_ids, output_device, dim)(*inputs, **module_kwargs)."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    return DataParallel(module, device_ids, output_device, dim)(*inputs, **(module_kwargs or {}))
