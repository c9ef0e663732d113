"""tandem.xpu: Intel GPUs, which tandem does not drive. Device-selection code asks these (`torch.xpu.is_available()`,
`get_device_module("xpu")`); they answer as PyTorch built without XPU does: no devices, seeding and cache calls
do nothing, anything that needs a device raises PyTorch's AssertionError."""

_NOT_COMPILED = "Torch not compiled with XPU enabled\nhint: tandem runs on cpu and cuda devices"


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def is_bf16_supported(including_emulation=True):
    return False


def manual_seed(seed):
    """Nothing to seed without a device (PyTorch defers it the same way)."""


def manual_seed_all(seed):
    """Nothing to seed without a device."""


def seed():
    """Nothing to seed without a device."""


def seed_all():
    """Nothing to seed without a device."""


def empty_cache():
    """No cache without a device."""


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def _needs_device(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


current_device = set_device = synchronize = get_device_name = get_device_properties = current_stream = _needs_device
