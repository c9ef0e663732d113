"""Shared pytest fixtures: the devices every op test runs on."""
import pytest

import oracle
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


@pytest.fixture(params=available_devices())
def on_each_device(request):
    """For modules whose helpers build tensors on oracle.current_device: run each test once per device."""
    oracle.current_device = request.param
    yield request.param
    oracle.current_device = "cpu"
