"""Integer division by zero on a device: checked without making the host wait per op, raised as
ZeroDivisionError at the next synchronising crossing (a blocking copy to the host, a synchronize), as CUDA
reports device-side asserts. On the CPU it raises at once, as in PyTorch."""
import pytest

import tandem

DEVICES = [f"cuda:{i}" for i in range(tandem.cuda.device_count())] if tandem.cuda.is_available() else []
pytestmark = pytest.mark.skipif(not DEVICES, reason="needs a (real or emulated) CUDA device")


@pytest.fixture(params=DEVICES)
def cuda_device(request):
    yield request.param
    tandem.cuda.synchronize(request.param)  # no pending check leaks into the next test


@pytest.mark.parametrize("op", [lambda a, b: a // b, lambda a, b: a % b, tandem.floor_divide, tandem.remainder,
                                lambda a, b: a.floor_divide_(b)])
def test_zero_divisor_raises_at_the_next_sync_not_at_the_op(op, cuda_device):
    a = tandem.tensor([7, 8, 9], device=cuda_device)
    b = tandem.tensor([2, 0, 4], device=cuda_device)
    tandem.cuda.synchronize(cuda_device)
    tandem.cuda.reset_transfer_stats()
    c = op(a, b)  # queued: the host does not wait for the device here
    stats = tandem.cuda.transfer_stats()
    assert stats["device_to_host_copies"] == 0 and stats["synchronizations"] == 0
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError\nhint: an integer (floor_divide|remainder) on "
                                           + cuda_device):
        c.cpu()
    # Reported once, then cleared; the kernel wrote 0 where the divisor was 0.
    assert c.cpu().tolist()[1] == 0
    assert c.device == tandem.device(cuda_device) and c.dtype == tandem.int64


def test_the_check_accumulates_until_a_sync(cuda_device):
    a = tandem.tensor([7, 8], device=cuda_device)
    bad = a // tandem.tensor([0, 1], device=cuda_device)
    for _ in range(3):
        a = a // tandem.tensor([1, 1], device=cuda_device)  # later divisions without a zero do not hide it
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        tandem.cuda.synchronize(cuda_device)
    tandem.cuda.synchronize(cuda_device)  # cleared
    assert a.tolist() == [7, 8] and bad.tolist() == [0, 8]


def test_no_zero_no_error_and_the_extremes_wrap_like_pytorch(cuda_device):
    lo = -2**63
    a = tandem.tensor([lo, 7, -7], device=cuda_device)
    assert (a // -1).tolist() == [lo, -7, 7]
    assert (a % -1).tolist() == [0, 0, 0]
    assert (a // tandem.tensor([-1, 2, 2], device=cuda_device)).tolist() == [lo, 3, -4]
    assert (-a).tolist() == [lo, -7, 7] and a.abs().tolist() == [lo, 7, 7]


def test_cpu_still_raises_at_once():
    with pytest.raises(RuntimeError, match="^ZeroDivisionError"):
        tandem.tensor([1, 2]) // tandem.tensor([1, 0])
    lo = -2**31
    a = tandem.tensor([lo, 5], dtype=tandem.int32)
    assert (a // -1).tolist() == [lo, -5] and (a % -1).tolist() == [0, 0]
    assert (tandem.tensor([-2**63]) // -1).tolist() == [-2**63]
