"""Shared pytest fixtures: the devices every op test runs on."""
import os

import pytest

import oracle
import tandem

# pytest rewrites the asserts of test files only; these helpers' asserts came from test files and keep pytest's
# detailed failure messages this way (registered here, before any test file imports them).
pytest.register_assert_rewrite("hostile_helpers", "sparse_helpers")


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """Under a sanitizer, fatal signals go to the sanitizer: pytest's faulthandler would catch them first and
    re-raise them, and the report would name its raise() as the fault and lose the cause. Its per-test timeout
    (faulthandler_timeout, the hang guard) does not need the fatal-signal handlers and stays."""
    if os.environ.get("TANDEM_SANITIZER"):
        import faulthandler

        faulthandler.disable()


def available_devices():
    """cpu always; each cuda device when a real or emulated one is available."""
    devices = ["cpu"]
    cuda = getattr(tandem, "cuda", None)
    if cuda is not None and cuda.is_available():
        devices += [f"cuda:{i}" for i in range(cuda.device_count())]
    # Under a sanitizer (make test-asan/test-tsan) device-parametrised tests run on cpu and cuda:0 only: an
    # emulated cuda:1 runs the same code with another ordinal, and the tests that move data between devices name
    # cuda:1 themselves, so they still run. TANDEM_SANITIZER_ALL_DEVICES=1 keeps every device.
    if os.environ.get("TANDEM_SANITIZER") and not os.environ.get("TANDEM_SANITIZER_ALL_DEVICES"):
        devices = devices[:2]
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


@pytest.fixture
def needs_fft_library(request):
    """For the FFT test files: skips a test whose device has no FFT library (a build without FFTW, e.g. a machine
    without libfftw3-dev); test_fft.py checks the error such a build raises."""
    device = request.getfixturevalue("device") if "device" in request.fixturenames else "cpu"
    if not tandem._C._fft_library(device) and request.node.originalname != "test_built_without_fft_library":
        pytest.skip(f"tandem was built without an FFT library for {device}")


@pytest.fixture(autouse=True)
def _pytorch_distribution_validation_restored():
    """Importing torch._dynamo (PyTorch's eager flex_attention, torch.compile) turns PyTorch's distribution
    argument validation off for the whole process; a later reference run in the same worker (a Categorical's
    log_prob of an out-of-range value) would then behave differently. Restored after every test."""
    import sys  # noqa: PLC0415
    torch = sys.modules.get("torch")
    saved = torch.distributions.Distribution._validate_args if torch and hasattr(torch, "distributions") else None
    yield
    if saved is not None:
        torch.distributions.Distribution.set_default_validate_args(saved)
