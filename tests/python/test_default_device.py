"""tandem.set_default_device / get_default_device and `with tandem.device(...)`: factories without device=
follow the default (per thread, as in PyTorch); explicit devices, *_like factories and from_numpy do not."""
import threading

import numpy as np
import pytest

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) cuda device")


@pytest.fixture(autouse=True)
def restore_default():
    yield
    tandem.set_default_device(None)


def test_default_is_cpu_and_none_restores_it():
    assert tandem.get_default_device() == tandem.device("cpu")
    tandem.set_default_device("cpu")
    assert repr(tandem.get_default_device()) == "device(type='cpu')"
    tandem.set_default_device(None)
    assert tandem.zeros(2).device == tandem.device("cpu")


FACTORIES = [
    lambda: tandem.zeros(2, 3), lambda: tandem.ones(2), lambda: tandem.empty(4), lambda: tandem.full((2,), 7.0),
    lambda: tandem.tensor([1.0, 2.0]), lambda: tandem.arange(5), lambda: tandem.linspace(0, 1, 5),
    lambda: tandem.eye(3), lambda: tandem.randn(3), lambda: tandem.rand(3), lambda: tandem.randint(0, 5, (3,)),
    lambda: tandem.randperm(4),
]


@needs_cuda
@pytest.mark.parametrize("make", FACTORIES)
def test_factories_follow_the_default(make):
    tandem.set_default_device("cuda:0")
    t = make()
    assert t.device == tandem.device("cuda:0")
    tandem.set_default_device(None)
    assert make().device == tandem.device("cpu")


@needs_cuda
def test_explicit_devices_like_factories_and_from_numpy_ignore_it():
    x = tandem.ones(3)
    tandem.set_default_device("cuda:0")
    assert tandem.zeros(2, device="cpu").device.type == "cpu"
    assert tandem.zeros_like(x).device.type == "cpu"
    assert tandem.from_numpy(np.ones(2)).device.type == "cpu"


@needs_cuda
def test_device_as_context_manager_nests_and_restores():
    with tandem.device("cuda:0") as d:
        assert d == tandem.device("cuda:0")
        assert tandem.get_default_device() == tandem.device("cuda:0")
        assert tandem.zeros(1).device == tandem.device("cuda:0")
        with tandem.device("cpu"):
            assert tandem.zeros(1).device.type == "cpu"
        assert tandem.zeros(1).device == tandem.device("cuda:0")
    assert tandem.get_default_device() == tandem.device("cpu")
    with pytest.raises(ValueError):
        with tandem.device("cuda:0"):
            raise ValueError("leaving by an exception restores too")
    assert tandem.zeros(1).device.type == "cpu"


@needs_cuda
def test_modules_are_built_on_the_default_device_and_train():
    tandem.set_default_device("cuda:0")
    tandem.manual_seed(0)
    model = tandem.nn.Sequential(tandem.nn.Linear(4, 8), tandem.nn.ReLU(), tandem.nn.Linear(8, 2))
    assert all(p.device == tandem.device("cuda:0") for p in model.parameters())
    opt = tandem.optim.Adam(model.parameters(), lr=0.1)
    x, y = tandem.randn(16, 4), tandem.randint(0, 2, (16,))
    first = None
    for _ in range(20):
        opt.zero_grad()
        loss = tandem.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        first = first if first is not None else loss.item()
    assert loss.item() < first


@needs_cuda
def test_the_default_is_per_thread():
    tandem.set_default_device("cuda:0")
    seen = []
    worker = threading.Thread(target=lambda: seen.append(tandem.zeros(1).device))
    worker.start()
    worker.join()
    assert seen == [tandem.device("cpu")]
    assert tandem.zeros(1).device == tandem.device("cuda:0")


def test_bad_devices_raise():
    with pytest.raises(RuntimeError, match="Expected one of"):
        tandem.set_default_device("gpu")
    assert tandem.get_default_device() == tandem.device("cpu")
