"""tandem.mps: Apple's Metal backend, which tandem does not have (`tandem.backends.mps.is_available()` is False).
The calls device-selection code makes answer as PyTorch without MPS does: no devices, manual_seed does nothing,
anything that needs the backend raises PyTorch's RuntimeError."""


def _unavailable(what):
    raise RuntimeError(f"Cannot execute {what} without MPS backend.\nhint: tandem runs on cpu and cuda devices")


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Nothing to seed without the backend (PyTorch's does nothing either)."""


def seed():
    _unavailable("getDefaultGenerator()")


def synchronize():
    _unavailable("deviceSynchronize()")


def empty_cache():
    _unavailable("emptyCache()")


def current_allocated_memory():
    _unavailable("getCurrentAllocatedMemory()")


def driver_allocated_memory():
    _unavailable("getDriverAllocatedMemory()")
