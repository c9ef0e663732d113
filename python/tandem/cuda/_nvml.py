"""torch.cuda's NVML readings: device_memory_used, memory_usage, utilization, temperature, power_draw, clock_rate
and list_gpu_processes.

As in PyTorch they need nvidia-ml-py (``import pynvml``): without it each raises PyTorch's ModuleNotFoundError
(list_gpu_processes returns PyTorch's message instead), on every kind of device, so a program behaves the same on
an emulated device as on a GPU machine without the package. On a real device they ask NVML, mapping the CUDA
ordinal through CUDA_VISIBLE_DEVICES. An emulated device has no NVML entry and no sensors: device_memory_used and
list_gpu_processes report what tandem's allocator holds there (all an emulated device's memory belongs to this
process), and the sensor readings raise a RuntimeError that says so.
"""
import os

from .. import _C

__all__ = ["device_memory_used", "memory_usage", "utilization", "temperature", "power_draw", "clock_rate",
           "list_gpu_processes"]

_MISSING = "nvidia-ml-py does not seem to be installed or it can't be imported."


def _import_pynvml():
    try:
        import pynvml  # noqa: PLC0415  (optional: only these readings need it)
    except ImportError as error:
        raise ModuleNotFoundError(_MISSING) from error
    return pynvml


def _is_emulated(index):
    return _C._cuda_properties(index)["is_emulated"]


def _visible_ordinals(pynvml):
    """The NVML indices CUDA_VISIBLE_DEVICES exposes, in CUDA ordinal order (all devices when it is unset).
    Like CUDA, the list ends at the first entry that is not a valid index; "GPU-..." entries are UUID prefixes."""
    value = os.environ.get("CUDA_VISIBLE_DEVICES")
    count = pynvml.nvmlDeviceGetCount()
    if value is None:
        return list(range(count))
    uuids = None
    ordinals = []
    for entry in (part.strip() for part in value.split(",")):
        if entry.startswith("GPU-") or entry.startswith("MIG-"):
            if uuids is None:
                uuids = [_text(pynvml.nvmlDeviceGetUUID(pynvml.nvmlDeviceGetHandleByIndex(i))) for i in range(count)]
            matches = [i for i, uuid in enumerate(uuids) if uuid.startswith(entry)]
            if len(matches) != 1:
                break
            ordinals.append(matches[0])
        elif entry.isdigit() and int(entry) < count:
            ordinals.append(int(entry))
        else:
            break
    return ordinals


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _nvml_handle(pynvml, index):
    """(NVML handle, NVML index) of CUDA ordinal ``index``."""
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError_DriverNotLoaded as error:
        raise RuntimeError("cuda driver can't be loaded, is cuda enabled?") from error
    visible = _visible_ordinals(pynvml)
    if index < 0 or index >= len(visible):
        raise RuntimeError(f"device {index} is not visible (CUDA_VISIBLE_DEVICES={visible})")
    return pynvml.nvmlDeviceGetHandleByIndex(visible[index]), visible[index]


def _reading(device, what, read):
    """NVML's ``read(pynvml, handle)`` for ``device``; ``what`` names the reading in the emulated device's error."""
    pynvml = _import_pynvml()
    index = _C._cuda_device_index(device)
    if _is_emulated(index):
        raise RuntimeError(f"cuda:{index} is an emulated device: it has no sensor for {what}\n"
                           "hint: NVML readings need a real GPU; tandem.cuda.memory_stats() and "
                           "tandem.cuda.mem_get_info() work on every device")
    return read(pynvml, _nvml_handle(pynvml, index)[0])


def device_memory_used(device=None) -> int:
    """Bytes of device memory in use, as nvidia-smi reports them (on an emulated device: what tandem reserved)."""
    pynvml = _import_pynvml()
    index = _C._cuda_device_index(device)
    if _is_emulated(index):
        free, total = _C._cuda_mem_get_info(index)
        return total - free
    return pynvml.nvmlDeviceGetMemoryInfo(_nvml_handle(pynvml, index)[0]).used


def memory_usage(device=None) -> int:
    """Percent of the last sample period during which device memory was read or written."""
    return _reading(device, "memory usage", lambda nvml, h: nvml.nvmlDeviceGetUtilizationRates(h).memory)


def utilization(device=None) -> int:
    """Percent of the last sample period during which a kernel ran on the device."""
    return _reading(device, "utilization", lambda nvml, h: nvml.nvmlDeviceGetUtilizationRates(h).gpu)


def temperature(device=None) -> int:
    """The GPU die's temperature in degrees Celsius."""
    return _reading(device, "temperature", lambda nvml, h: nvml.nvmlDeviceGetTemperature(h, 0))


def power_draw(device=None) -> int:
    """The device's power draw in milliwatts."""
    return _reading(device, "power draw", lambda nvml, h: nvml.nvmlDeviceGetPowerUsage(h))


def clock_rate(device=None) -> int:
    """The SM clock in MHz."""
    return _reading(device, "clock rate", lambda nvml, h: nvml.nvmlDeviceGetClockInfo(h, 1))


def list_gpu_processes(device=None) -> str:
    """The processes using the device and their memory, one line each (PyTorch's format)."""
    try:
        pynvml = _import_pynvml()
    except ModuleNotFoundError:
        return "pynvml module not found, please install nvidia-ml-py"
    index = shown = _C._cuda_device_index(device)
    if _is_emulated(index):
        reserved = _C._cuda_memory_stats(index)["reserved_bytes.all.current"]
        procs = [(os.getpid(), reserved)] if reserved else []
    else:
        try:
            handle, shown = _nvml_handle(pynvml, index)  # PyTorch prints the NVML index
        except RuntimeError as error:
            if isinstance(error.__cause__, pynvml.NVMLError_DriverNotLoaded):
                return "cuda driver can't be loaded, is cuda enabled?"
            raise
        procs = [(p.pid, p.usedGpuMemory) for p in pynvml.nvmlDeviceGetComputeRunningProcesses(handle)]
    lines = [f"GPU:{shown}"]
    if not procs:
        lines.append("no processes are running")
    for pid, used in procs:
        lines.append(f"process {pid:>10d} uses {used / (1024 * 1024):>12.3f} MB GPU memory")
    return "\n".join(lines)
