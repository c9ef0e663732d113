"""PyTorch's device-argument rule for torch.cuda and torch.cuda.comm (torch._utils._get_device_index)."""
from .. import _C


def get_device_index(device, optional=False, allow_cpu=False):
    """An int as is; a device or its string needs an index unless ``optional`` (then the current CUDA device, or
    -1 when no CUDA device can be used); a cpu device is -1 when ``allow_cpu`` and a ValueError otherwise."""
    if isinstance(device, str):
        device = _C.device(device)
    if isinstance(device, _C.device):
        if device.type == "cpu":
            if not allow_cpu:
                raise ValueError(f"Expected a non cpu device, but got: {device}")
            return -1
        if device.index is not None:
            return device.index
    elif isinstance(device, int):
        return device
    if optional and (device is None or isinstance(device, _C.device)):
        from . import current_device, is_available  # noqa: PLC0415  (tandem.cuda imports this module)
        return current_device() if is_available() else -1
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:{device}")
