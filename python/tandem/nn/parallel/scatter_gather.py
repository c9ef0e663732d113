"""tandem.nn.parallel.scatter_gather, as PyTorch's: split inputs into one chunk per device and gather outputs back,
the helpers DataParallel runs on (Captum's layer attributions import scatter from here)."""
from .data_parallel import _device_index, _gather, _scatter

__all__ = ["scatter", "scatter_kwargs", "gather"]


def scatter(inputs, target_gpus, dim=0):
    """One copy of `inputs` per device: tensors chunked along `dim`, containers mapped, anything else repeated."""
    return _scatter(inputs, [_device_index(d) for d in target_gpus], dim)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """scatter for the positional and the keyword arguments, padded to the same number of devices."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    n = max(len(scattered_inputs), len(scattered_kwargs))
    scattered_inputs.extend(() for _ in range(n - len(scattered_inputs)))
    scattered_kwargs.extend({} for _ in range(n - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def gather(outputs, target_device, dim=0):
    """The per-device outputs joined along `dim` on target_device."""
    return _gather(outputs, _device_index(target_device), dim)
