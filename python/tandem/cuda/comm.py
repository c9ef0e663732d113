"""tandem.cuda.comm, as torch.cuda.comm (torch.nn.parallel.comm): copy tensors to, split them across, gather
and sum them from several CUDA devices, with PyTorch's arguments, results and errors. Every transfer is one of
tandem's counted device copies, so they work across emulated devices as on real ones.

broadcast_coalesced and reduce_add_coalesced copy tensor by tensor: buffer_size (PyTorch's coalescing buffer)
is accepted and does not change the results."""
import warnings

from ._utils import get_device_index as _device_index

__all__ = ["broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter", "gather"]


def _cuda():
    from .. import cuda  # noqa: PLC0415
    return cuda


def _on(index):
    return "cpu" if index == -1 else f"cuda:{index}"


def _check_cuda_outputs(out):
    for i, t in enumerate(out):
        if not t.is_cuda:
            raise RuntimeError(f"Expected all output tensors to be CUDA tensors, but output tensor at index {i} has "
                               f"device '{t.device}'")


def broadcast(tensor, devices=None, *, out=None):
    """Copies of ``tensor`` on each of ``devices`` (the tensor itself on its own device), or copied into the
    tensors of ``out``; exactly one of the two is given."""
    if (devices is None) == (out is None):
        raise RuntimeError(f"Exactly one of 'devices' and 'out' must be specified, but got devices={devices} and "
                           f"out={out}")
    if devices is not None:
        devices = [_device_index(d) for d in devices]
        if tensor.is_cuda and devices and tensor.get_device() != devices[0]:
            raise RuntimeError("device of broadcasted tensor must appear as the first on devices list")
        return tuple(tensor if tensor.is_cuda and tensor.get_device() == d else tensor.to(_on(d), copy=True)
                     for d in devices)
    _check_cuda_outputs(out)
    for i, t in enumerate(out):
        if t.shape != tensor.shape:
            raise RuntimeError(f"Expected all output tensors to have the same shape as the source {list(tensor.shape)}"
                               f", but output tensor at index {i} has shape {list(t.shape)}")
    for t in out:
        t.copy_(tensor)
    return tuple(out)


def broadcast_coalesced(tensors, devices, buffer_size=10485760):
    """Copies of every tensor (all on ``devices[0]``) on each device: one list per device, the first holding the
    tensors themselves."""
    devices = [_device_index(d) for d in devices]
    for t in tensors:
        if t.get_device() != devices[0]:
            raise RuntimeError(f"All tensors must be on devices[0]: {devices[0]}")
    return [list(tensors)] + [[t.to(_on(d), copy=True) for t in tensors] for d in devices[1:]]


def reduce_add(inputs, destination=None):
    """The elementwise sum of tensors from several devices, on ``destination`` (the current device by default),
    which must hold one of them."""
    destination = _device_index(destination, optional=True)
    size = inputs[0].shape
    root = None
    for i, t in enumerate(inputs):
        if t.device.type == "cpu":
            raise AssertionError(f"reduce_add expects all inputs to be on GPUs, but input {i} is on CPU")
        if t.get_device() == destination:
            root = i
        if t.shape != size:
            got, expected = "x".join(map(str, t.shape)), "x".join(map(str, size))
            raise ValueError(f"input {i} has invalid size: got {got}, but expected {expected}")
    if root is None:
        raise RuntimeError("reduce_add expects destination to be on the same GPU with one of the tensors")
    if len(inputs) == 1:
        return inputs[0]
    others = [t for i, t in enumerate(inputs) if i != root]
    result = inputs[root] + others[0].to(inputs[root].device)
    for t in others[1:]:
        result.add_(t.to(inputs[root].device))
    return result


def reduce_add_coalesced(inputs, destination=None, buffer_size=10485760):
    """reduce_add of each position across the per-device sequences in ``inputs``: a tuple of sums."""
    return tuple(reduce_add(list(group), destination) for group in zip(*inputs, strict=True))


def scatter(tensor, devices=None, chunk_sizes=None, dim=0, streams=None, *, out=None):
    """Splits ``tensor`` along ``dim`` (equal chunks, or ``chunk_sizes``) and copies chunk i to devices[i] (on
    streams[i] when given); or into the tensors of ``out``, whose sizes give the chunks."""
    cuda = _cuda()
    if out is None:
        devices = [_device_index(d) for d in devices]
        if chunk_sizes is None:
            chunks = tensor.chunk(len(devices), dim)
        else:
            chunk_sizes = list(chunk_sizes)
            if len(chunk_sizes) != len(devices):
                raise RuntimeError(f"Expected devices and chunk_sizes to be of same length, but got len(devices) = "
                                   f"{len(devices)} and len(chunk_sizes) = {len(chunk_sizes)}")
            if sum(chunk_sizes) != tensor.shape[dim]:
                raise RuntimeError(f"Expected chunk sizes to sum to {tensor.shape[dim]}, but got {sum(chunk_sizes)}")
            chunks = tensor.split(chunk_sizes, dim)
        targets = [_on(d) for d in devices[:len(chunks)]]
    else:
        if devices is not None:
            raise RuntimeError(f"'devices' must not be specified when 'out' is specified, but got devices={devices}")
        if chunk_sizes is not None:
            raise RuntimeError(f"'chunk_sizes' must not be specified when 'out' is specified, but got "
                               f"chunk_sizes={chunk_sizes}")
        _check_cuda_outputs(out)
        sizes = [t.shape[dim] for t in out]
        if sum(sizes) != tensor.shape[dim]:
            raise RuntimeError(f"Expected the sizes of the output tensors along dim {dim} to sum to "
                               f"{tensor.shape[dim]}, but got {sum(sizes)}")
        chunks = tensor.split(sizes, dim)
        targets = list(out)
    results = []
    for i, (chunk, target) in enumerate(zip(chunks, targets)):
        with cuda.stream(streams[i] if streams else None):
            if isinstance(target, str):
                results.append(chunk.to(target))
            else:
                results.append(target.copy_(chunk))
    return tuple(results)


def gather(tensors, dim=0, destination=None, *, out=None):
    """Concatenates tensors from several devices along ``dim`` on ``destination`` (a device, "cpu" or the
    current CUDA device by default), or into ``out``."""
    tensors = list(tensors)
    if out is not None and destination is not None:
        raise RuntimeError(f"'destination' must not be specified when 'out' is specified, but got "
                           f"destination={destination}")
    if not tensors:
        raise RuntimeError("Expected at least one tensor to gather from")
    quote = "'" if out is not None else ""
    for i, t in enumerate(tensors):
        if not t.is_cuda:
            raise RuntimeError(f"Expected all input tensors to be CUDA tensors, but tensor at index {i} has device "
                               f"{quote}{t.device}{quote}")
    if out is None:
        if destination == -1:
            warnings.warn('Using -1 to represent CPU tensor is deprecated. Please use a device object or string '
                          'instead, e.g., "cpu".', FutureWarning, stacklevel=2)
        target = _on(_device_index(destination, allow_cpu=True, optional=True))
    else:
        target = out.device
    from .. import cat  # noqa: PLC0415
    ndim = tensors[0].dim()
    d = dim + ndim if dim < 0 else dim
    for i, t in enumerate(tensors):
        if t.dim() != ndim or any(a != b for k, (a, b) in enumerate(zip(t.shape, tensors[0].shape)) if k != d):
            raise RuntimeError(f"Input tensor at index {i} has invalid shape {list(t.shape)}, but expected "
                               f"{[s if k != d else t.shape[d] for k, s in enumerate(tensors[0].shape)]}")
    result = cat([t.to(target) for t in tensors], d)
    if out is None:
        return result
    if out.shape != result.shape:
        raise RuntimeError(f"Expected out tensor to have shape {list(result.shape)}, but got {list(out.shape)}")
    return out.copy_(result)
