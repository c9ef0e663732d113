"""torch.nn.parallel.replicate: one copy of a module per device. Each replica is a shallow copy of every submodule
whose parameters are differentiable `.to(device)` copies of the originals (plain tensors, not Parameters, so the
gradients of a replica's outputs reach the original parameters) and whose buffers are copies on its device
(differentiable only for buffers that require grad); detach=True copies everything without history."""
from collections import OrderedDict

import tandem

__all__ = ["replicate"]


def _device(d):
    if isinstance(d, int):
        return tandem.device("cuda", d)
    d = tandem.device(d)
    return d if d.index is not None else tandem.device("cuda", tandem.cuda.current_device())


def _copies(tensors, devices, detach):
    """copies[j][i]: tensors[i] on devices[j]."""
    return [[(t.detach() if detach else t).to(d, copy=True) for t in tensors] for d in devices]


def replicate(network, devices, detach=False):
    if not devices:
        return []
    devices = [_device(d) for d in devices]
    params = list(network.parameters())
    param_copies = _copies(params, devices, detach)
    param_indices = {id(p): i for i, p in enumerate(params)}
    buffers = list(network.buffers())
    buffer_copies = [[(b if b.requires_grad and not detach else b.detach()).to(d, copy=True) for b in buffers]
                     for d in devices]
    buffer_indices = {id(b): i for i, b in enumerate(buffers)}
    modules = list(network.modules())
    module_indices = {id(m): i for i, m in enumerate(modules)}
    copies = [[m._replicate_for_data_parallel() for m in modules] for _ in devices]
    for j, replicas in enumerate(copies):
        for module, replica in zip(modules, replicas):
            replica.__dict__["_former_parameters"] = OrderedDict()
            for key, child in module._modules.items():
                replica._modules[key] = None if child is None else replicas[module_indices[id(child)]]
            for key, param in module._parameters.items():
                if param is None:
                    replica._parameters[key] = None
                    continue
                copy = param_copies[j][param_indices[id(param)]]
                setattr(replica, key, copy)
                replica._former_parameters[key] = copy
            for key, buf in module._buffers.items():
                replica._buffers[key] = None if buf is None else buffer_copies[j][buffer_indices[id(buf)]]
    return [replicas[0] for replicas in copies]
