"""torch.nn.parallel.scatter_gather: split a batch over CUDA devices and put per-device results back together.
Tensors are split into chunks along `dim` (tensor.chunk, so fewer chunks than devices when the batch is small) and
moved with the differentiable `.to`, so gradients flow back to the input; other objects are shared by reference.
The containers follow PyTorch's rules: tuples, lists, namedtuples and dicts are walked, one result per device."""
import warnings

import tandem

from ..._C import Tensor

__all__ = ["scatter", "scatter_kwargs", "gather"]


def _is_namedtuple(obj):
    return isinstance(obj, tuple) and hasattr(obj, "_asdict") and hasattr(obj, "_fields")


def _cuda_device(d):
    if isinstance(d, int):
        return tandem.device("cuda", d)
    d = tandem.device(d)
    return d if d.index is not None else tandem.device("cuda", tandem.cuda.current_device())


def scatter(inputs, target_gpus, dim=0):
    """One copy of `inputs` per device of `target_gpus`, its tensors split along `dim` (a tuple of chunks for a
    single tensor, a list otherwise, as in PyTorch)."""
    devices = [_cuda_device(d) for d in target_gpus]

    def scatter_map(obj):
        if isinstance(obj, Tensor):
            return tuple(c.to(d) for c, d in zip(obj.chunk(len(devices), dim), devices))
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(scatter_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(scatter_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(scatter_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(scatter_map, obj.items()))]
        return [obj for _ in devices]

    return scatter_map(inputs)


def scatter_kwargs(inputs, kwargs, target_gpus, dim=0):
    """scatter() for the positional and the keyword arguments of a call, padded to the same number of devices."""
    scattered_inputs = scatter(inputs, target_gpus, dim) if inputs else []
    scattered_kwargs = scatter(kwargs, target_gpus, dim) if kwargs else []
    if len(scattered_inputs) < len(scattered_kwargs):
        scattered_inputs.extend(() for _ in range(len(scattered_kwargs) - len(scattered_inputs)))
    elif len(scattered_kwargs) < len(inputs):
        scattered_kwargs.extend({} for _ in range(len(scattered_inputs) - len(scattered_kwargs)))
    return tuple(scattered_inputs), tuple(scattered_kwargs)


def _gather_tensors(target_device, dim, tensors):
    if any(t.device.type == "cpu" for t in tensors):
        raise AssertionError("Gather function not implemented for CPU tensors")
    if target_device == "cpu" or target_device == -1:
        target = tandem.device("cpu")
    else:
        target = _cuda_device(target_device)
    if all(t.dim() == 0 for t in tensors) and dim == 0:
        warnings.warn("Was asked to gather along dimension 0, but all input tensors were scalars; will instead "
                      "unsqueeze and return a vector.")
        tensors = [t.view(1) for t in tensors]
    return tandem.cat([t.to(target) for t in tensors], dim)


def gather(outputs, target_device, dim=0):
    """The per-device `outputs` as one object on `target_device` (an index, a device, or "cpu"/-1 for the host):
    tensors concatenated along `dim`, containers rebuilt with their gathered items."""

    def gather_map(outputs):
        out = outputs[0]
        if isinstance(out, Tensor):
            return _gather_tensors(target_device, dim, outputs)
        if out is None:
            return None
        if isinstance(out, dict):
            if not all(len(out) == len(d) for d in outputs):
                raise ValueError("All dicts must have the same number of keys")
            return type(out)((k, gather_map([d[k] for d in outputs])) for k in out)
        if _is_namedtuple(out):
            return type(out)._make(map(gather_map, zip(*outputs, strict=True)))
        return type(out)(map(gather_map, zip(*outputs, strict=True)))

    return gather_map(outputs)
