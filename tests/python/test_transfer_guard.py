"""tandem.transfer_guard and tandem.cuda.set_sync_debug_mode on (emulated) cuda devices."""
import logging
import sys
import threading
import warnings

import pytest

import tandem

pytestmark = pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a (real or emulated) cuda device")

LOGGER = "tandem.transfer_guard"


@pytest.fixture(autouse=True)
def reset_guard():
    yield
    tandem.transfer_guard("allow")


def cuda_scalar():
    return tandem.tensor(1.5, device="cuda:0")


def asarray_allowed(t):
    import numpy as np
    with tandem.allow_host_conversion():
        return np.asarray(t)


# name -> (direction, explicit, (make inputs, make exactly that crossing from them)); inputs are made before
# the guard is set.
def _crossings():
    def prepared(make, act):
        return make, act

    nothing = lambda: ()  # noqa: E731
    vec = lambda: (tandem.tensor([1.0, 2.0], device="cuda:0"),)  # noqa: E731
    scalar = lambda: (cuda_scalar(),)  # noqa: E731
    return {
        "print": ("device_to_host", False, prepared(vec, repr)),
        "bool": ("device_to_host", False, prepared(scalar, bool)),
        "float": ("device_to_host", False, prepared(scalar, float)),
        "int": ("device_to_host", False, prepared(scalar, int)),
        "tensor(cuda scalar)": ("device_to_host", False, prepared(scalar, lambda s: tandem.tensor([s, s]))),
        "value read inside an op": ("device_to_host", False, prepared(
            lambda: (tandem.ones(3, device="cuda:0"), tandem.ones(3, device="cuda:0")), tandem.equal)),
        "index bounds check": ("device_to_host", False, prepared(
            lambda: (tandem.ones(3, device="cuda:0"), tandem.tensor([0, 2], device="cuda:0")), lambda x, i: x[i])),
        "boolean mask": ("device_to_host", False, prepared(vec, lambda v: v[v > 1])),
        "x[:] = cpu tensor": ("host_to_device", False, prepared(
            lambda: (tandem.ones(3, device="cuda:0"), tandem.ones(3)), lambda x, v: x.__setitem__(slice(None), v))),
        ".item()": ("device_to_host", True, prepared(scalar, lambda s: s.item())),
        ".tolist()": ("device_to_host", True, prepared(vec, lambda v: v.tolist())),
        ".cpu()": ("device_to_host", True, prepared(vec, lambda v: v.cpu())),
        ".to(cpu)": ("device_to_host", True, prepared(vec, lambda v: v.to("cpu"))),
        ".numpy(force=True)": ("device_to_host", True, prepared(vec, lambda v: v.numpy(force=True))),
        "np.asarray in allow_host_conversion": ("device_to_host", False, prepared(vec, asarray_allowed)),
        "cpu.copy_(cuda)": ("device_to_host", True, prepared(
            lambda: (tandem.zeros(2), tandem.ones(2, device="cuda:0")), lambda d, s: d.copy_(s))),
        ".cuda()": ("host_to_device", True, prepared(lambda: (tandem.ones(2),), lambda v: v.cuda())),
        ".to(cuda)": ("host_to_device", True, prepared(lambda: (tandem.ones(2),), lambda v: v.to("cuda:0"))),
        "tensor(device=cuda)": ("host_to_device", True, prepared(
            nothing, lambda: tandem.tensor([1.0], device="cuda:0"))),
        "cuda.copy_(cpu)": ("host_to_device", True, prepared(
            lambda: (tandem.zeros(2, device="cuda:0"), tandem.ones(2)), lambda d, s: d.copy_(s))),
        ".to(cuda:1)": ("device_to_device", True, prepared(vec, lambda v: v.to("cuda:1"))),
        "cuda.synchronize()": ("sync", True, prepared(nothing, tandem.cuda.synchronize)),
    }


CROSSINGS = _crossings()
LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]
OTHER = {"device_to_host": "host_to_device", "host_to_device": "device_to_host",
         "device_to_device": "sync", "sync": "device_to_device"}


def expected(level, explicit):
    if level == "allow" or (explicit and level in ("log", "disallow")):
        return "pass"
    return "log" if level.startswith("log") else "raise"


@pytest.mark.parametrize("which", ["same", "all", "other"])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(CROSSINGS))
def test_level_direction_table(name, level, which, caplog):
    direction, explicit, (make, act) = CROSSINGS[name]
    if name == ".to(cuda:1)" and tandem.cuda.device_count() < 2:
        pytest.skip("needs two cuda devices")
    guarded = {"same": direction, "all": "all", "other": OTHER[direction]}[which]
    want = expected(level, explicit) if which != "other" else "pass"
    caplog.set_level(logging.WARNING, logger=LOGGER)
    args = make()
    with tandem.transfer_guard(level, guarded):
        if want == "raise":
            with pytest.raises(tandem.TransferGuardError) as info:
                act(*args)
            assert info.value.direction == direction and info.value.explicit == explicit
        else:
            act(*args)
    logged = [r for r in caplog.records if r.name == LOGGER]
    if want == "log":
        assert logged and all(direction in r.getMessage() for r in logged)
        assert all(f"{__file__}:" in r.getMessage() for r in logged)
    else:
        assert not logged


def test_error_names_the_crossing_the_tensor_and_the_line():
    x = cuda_scalar()
    with tandem.transfer_guard("disallow"):
        with pytest.raises(tandem.TransferGuardError) as info:
            line = sys._getframe().f_lineno; bool(x)  # noqa: E702
    e = info.value
    assert isinstance(e, RuntimeError)
    first, hint = str(e).split("\n")
    assert "implicit device_to_host transfer" in first and "by bool()" in first
    assert "shape ()" in first and "tandem.float32" in first and "cuda:0" in first
    assert f"{__file__}:{line}" in first
    assert hint.startswith("hint:") and 'tandem.transfer_guard("allow", "device_to_host")' in hint
    assert (e.direction, e.explicit, e.op, e.shape, e.source, e.target, e.nbytes, e.level) == (
        "device_to_host", False, "bool()", (), "cuda:0", "cpu", 4, "disallow")
    assert (e.filename, e.lineno) == (__file__, line)


def test_explicit_refusal_hint_names_the_level():
    x = tandem.ones(2, 3, device="cuda:0")
    with tandem.transfer_guard("disallow_explicit", "device_to_host"):
        with pytest.raises(tandem.TransferGuardError, match=r"explicit device_to_host .* by \.cpu\(\)") as info:
            x.cpu()
    assert info.value.shape == (2, 3) and "'disallow_explicit'" in info.value.hint


def test_refused_crossing_moves_and_counts_nothing():
    x = tandem.ones(3, device="cuda:0")
    before = tandem.cuda.transfer_stats()["device_to_host_copies"]
    with tandem.transfer_guard("disallow_explicit"):
        with pytest.raises(tandem.TransferGuardError):
            x.cpu()
    assert tandem.cuda.transfer_stats()["device_to_host_copies"] == before


def test_nested_allow_reallows_and_restores():
    x = cuda_scalar()
    with tandem.transfer_guard("disallow"):
        with tandem.transfer_guard("allow"):
            assert bool(x)
            with tandem.transfer_guard("disallow", "device_to_host"):
                with pytest.raises(tandem.TransferGuardError):
                    bool(x)
            assert float(x) == 1.5
        with pytest.raises(tandem.TransferGuardError):
            bool(x)
    assert bool(x)


def test_global_setter_lasts_until_changed():
    x = cuda_scalar()
    tandem.transfer_guard("disallow", "device_to_host")
    assert tandem.get_transfer_guard("device_to_host") == "disallow"
    assert tandem.get_transfer_guard("host_to_device") == "allow"
    with pytest.raises(tandem.TransferGuardError):
        bool(x)
    assert x.item() == 1.5  # explicit
    tandem.transfer_guard("allow")
    assert bool(x)


def test_settings_are_per_thread():
    x = cuda_scalar()
    seen = {}

    def other():
        seen["level"] = tandem.get_transfer_guard("device_to_host")
        seen["value"] = bool(x)  # the main thread's disallow does not apply here
        tandem.transfer_guard("disallow")  # nor does this leak back
        try:
            bool(x)
        except tandem.TransferGuardError:
            seen["refused"] = True

    with tandem.transfer_guard("disallow"):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        with pytest.raises(tandem.TransferGuardError):
            bool(x)
    assert seen == {"level": "allow", "value": True, "refused": True}
    assert bool(x)


def test_log_writes_one_line_per_crossing(caplog):
    x = cuda_scalar()
    caplog.set_level(logging.WARNING, logger=LOGGER)
    with tandem.transfer_guard("log"):
        for _ in range(3):
            float(x)
    lines = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    assert len(lines) == 3 and all("\n" not in m and "by float()" in m for m in lines)


def test_cpu_tensors_never_cross():
    with tandem.transfer_guard("disallow_explicit"):
        x = tandem.ones(3)
        assert bool(x[0]) and x.tolist() == [1.0, 1.0, 1.0] and repr(x) == "tensor([1., 1., 1.])"
        assert x.cpu() is x


def test_unknown_level_and_direction():
    with pytest.raises(ValueError, match="unknown level"):
        tandem.transfer_guard("forbid")
    with pytest.raises(ValueError, match="unknown direction"):
        tandem.transfer_guard("log", "to_gpu")
    with pytest.raises(ValueError, match="name one direction"):
        tandem.get_transfer_guard("all")


def test_sync_debug_mode_error_and_default():
    x = cuda_scalar()
    assert tandem.cuda.get_sync_debug_mode() == 0
    tandem.cuda.set_sync_debug_mode("error")
    assert tandem.cuda.get_sync_debug_mode() == 2
    with pytest.raises(tandem.TransferGuardError, match="implicit device_to_host"):
        bool(x)
    with pytest.raises(tandem.TransferGuardError, match="explicit device_to_host"):
        x.item()  # as in PyTorch, explicit syncs are flagged too
    with pytest.raises(tandem.TransferGuardError, match="explicit sync"):
        tandem.cuda.synchronize()
    assert tandem.ones(2).cuda().shape == (2,)  # host_to_device is not a sync
    with tandem.transfer_guard("allow"):  # a nested region re-allows
        assert x.item() == 1.5
    tandem.cuda.set_sync_debug_mode("default")
    assert tandem.cuda.get_sync_debug_mode() == 0 and bool(x)


def test_sync_debug_mode_warn_points_at_the_line():
    x = cuda_scalar()
    tandem.cuda.set_sync_debug_mode(1)
    assert tandem.cuda.get_sync_debug_mode() == 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno; float(x)  # noqa: E702
    tandem.cuda.set_sync_debug_mode(0)
    assert len(caught) == 1 and issubclass(caught[0].category, UserWarning)
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)
    assert "implicit device_to_host" in str(caught[0].message)
    tandem.cuda.set_sync_debug_mode("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.item()
    tandem.cuda.set_sync_debug_mode("default")
    assert len(caught) == 1 and "explicit device_to_host" in str(caught[0].message)


def test_sync_debug_mode_rejects_unknown_modes():
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        tandem.cuda.set_sync_debug_mode("loud")
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        tandem.cuda.set_sync_debug_mode(3)
