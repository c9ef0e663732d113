"""torch.nn.parallel.parallel_apply: modules[i](*inputs[i], **kwargs_tup[i]) with devices[i] current. tandem runs
the replicas one after another on the calling thread (it has no per-device worker threads), so grad mode and
autocast are the caller's; an exception in a replica is raised again as PyTorch does, naming the replica."""
import sys

import tandem

from ..._C import Tensor
from ...utils.data._worker import ExceptionWrapper

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj):
    """The first tensor found in `obj` (a tensor, or nested lists, tuples and dicts), else None."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for result in map(get_a_var, obj):
            if isinstance(result, Tensor):
                return result
    if isinstance(obj, dict):
        for result in map(get_a_var, obj.items()):
            if isinstance(result, Tensor):
                return result
    return None


def _device_index(device):
    if device is None or isinstance(device, int):
        return device
    device = tandem.device(device)
    return device.index if device.index is not None else tandem.cuda.current_device()


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """The outputs of modules[i] on inputs[i] (a tuple or list of positional arguments, or the only argument),
    each run with its device current (devices[i], else the device of the first tensor in its input)."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs "
                             f"{len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of kwargs_tup "
                                 f"{len(kwargs_tup)}")
    else:
        kwargs_tup = ({},) * len(modules)
    if devices is not None:
        if len(modules) != len(devices):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of devices "
                                 f"{len(devices)}")
    else:
        devices = [None] * len(modules)
    if not tandem.cuda.is_available():
        raise AssertionError("No available accelerator found.")
    outputs = []
    for i, (module, input, kwargs, device) in enumerate(zip(modules, inputs, kwargs_tup, devices)):
        device = _device_index(device)
        if device is None:
            t = get_a_var(input)
            if t is None:
                raise AssertionError(f"in replica {i}, no device was provided and no tensor input was found; "
                                     "device cannot be resolved")
            device = t.get_device()
        if not isinstance(input, (list, tuple)):
            input = (input,)
        try:
            with tandem.cuda.device(device):
                outputs.append(module(*input, **kwargs))
        except Exception:
            ExceptionWrapper(sys.exc_info(), where=f"in replica {i} on device {device}").reraise()
    return outputs
