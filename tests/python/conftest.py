"""Shared pytest fixtures: the devices every op test runs on."""
import pytest

import tandem


def available_devices():
    """cpu always; each cuda device when a real or emulated one is available."""
    devices = ["cpu"]
    cuda = getattr(tandem, "cuda", None)
    if cuda is not None and cuda.is_available():
        devices += [f"cuda:{i}" for i in range(cuda.device_count())]
    return devices


@pytest.fixture(params=available_devices())
def device(request):
    return request.param
