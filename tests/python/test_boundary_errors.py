"""Typed boundary errors (DeviceMismatchError, HostConversionError, OutOfMemoryError): their attributes, their
place in the exception hierarchy, PyTorch's first lines, and allocation sites in OOM errors and
memory_summary(). CUDA parts run on real or emulated devices (TANDEM_EMULATE_CUDA=2)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import tandem

needs_cuda = pytest.mark.skipif(not tandem.cuda.is_available(), reason="no CUDA device (set TANDEM_EMULATE_CUDA=2)")
needs_two = pytest.mark.skipif(tandem.cuda.device_count() < 2, reason="needs two CUDA devices")

MISMATCH = "Expected all tensors to be on the same device, but found at least two devices, {} and {}!"
DEVICE_TO_NUMPY = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
                   "memory first.")


def first_line(exc):
    return str(exc).splitlines()[0]


def test_error_classes_keep_pytorchs_bases():
    assert issubclass(tandem.DeviceMismatchError, RuntimeError)
    assert issubclass(tandem.HostConversionError, TypeError)
    assert not issubclass(tandem.HostConversionError, RuntimeError)
    assert issubclass(tandem.RequiresGradConversionError, tandem.HostConversionError)
    assert issubclass(tandem.RequiresGradConversionError, RuntimeError)
    assert tandem.cuda.OutOfMemoryError is tandem.OutOfMemoryError
    assert issubclass(tandem.cuda.OutOfMemoryError, RuntimeError)
    assert issubclass(torch.cuda.OutOfMemoryError, RuntimeError)  # the base PyTorch uses


@needs_cuda
@pytest.mark.parametrize("call, op, operand", [
    (lambda g, c: g + c, "add", "other"),
    (lambda g, c: c * g, "mul", "input"),
    (lambda g, c: tandem.mm(g, c), "mm", "mat2"),
    (lambda g, c: c @ g, "mm", "input"),
    (lambda g, c: tandem.index_select(g, 0, tandem.tensor([0, 1])), "index_select", "index"),
    (lambda g, c: tandem.where(c > 0, g, g), "where", "condition"),
], ids=["add", "mul", "mm", "matmul", "index_select", "where"])
def test_device_mismatch_carries_op_operand_devices_and_fix(call, op, operand):
    g = tandem.ones(2, 2, device="cuda:0")
    c = tandem.ones(2, 2)
    with pytest.raises(tandem.DeviceMismatchError) as info:
        call(g, c)
    e = info.value
    assert isinstance(e, RuntimeError)
    assert e.op == op and e.operand == operand
    assert e.expected_device == tandem.device("cuda:0")
    assert e.fix == f"{operand} = {operand}.to('cuda:0')"
    assert set(e.devices) == {tandem.device("cuda:0"), tandem.device("cpu")} and len(e.devices) == 2
    assert first_line(e) == MISMATCH.format(*e.devices)
    hint = str(e).splitlines()[1]
    assert hint.startswith("hint:") and e.fix in hint


@needs_cuda
def test_module_on_cuda_with_a_cpu_batch_is_a_device_mismatch_naming_the_batch():
    model = tandem.nn.Linear(3, 2).cuda()
    with pytest.raises(tandem.DeviceMismatchError) as info:
        model(tandem.ones(4, 3))
    assert info.value.devices == (tandem.device("cpu"), tandem.device("cuda:0"))
    assert info.value.expected_device == "cuda:0"
    assert "x = x.to(device)" in str(info.value)


@needs_two
def test_mismatch_between_two_devices_moves_the_second_operand():
    with pytest.raises(tandem.DeviceMismatchError) as info:
        tandem.ones(2, device="cuda:0") + tandem.ones(2, device="cuda:1")
    e = info.value
    assert e.devices == (tandem.device("cuda:0"), tandem.device("cuda:1"))
    assert (e.operand, e.expected_device, e.fix) == ("other", tandem.device("cuda:0"), "other = other.to('cuda:0')")
    assert first_line(e) == MISMATCH.format("cuda:0", "cuda:1")


@needs_cuda
@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("convert", [lambda t: t.numpy(), np.asarray], ids=["numpy", "asarray"])
def test_device_tensor_to_numpy_is_a_host_conversion_error(convert, requires_grad):
    t = tandem.ones(2, 3, device="cuda", requires_grad=requires_grad)
    with pytest.raises(tandem.HostConversionError) as info:
        convert(t)
    e = info.value
    assert type(e) is tandem.HostConversionError and isinstance(e, TypeError) and not isinstance(e, RuntimeError)
    assert first_line(e) == DEVICE_TO_NUMPY
    assert (e.device, e.shape, e.dtype, e.requires_grad, e.reason) == (
        tandem.device("cuda:0"), (2, 3), tandem.float32, requires_grad, "device")
    assert e.fix == ("t.detach().cpu().numpy()" if requires_grad else "t.cpu().numpy()")
    assert e.fix in str(e)


@pytest.mark.parametrize("convert", [lambda t: t.numpy(), np.asarray], ids=["numpy", "asarray"])
def test_requires_grad_to_numpy_keeps_pytorchs_runtime_error(convert):
    with pytest.raises(RuntimeError) as expected:
        convert(torch.ones(3, dtype=torch.float64, requires_grad=True))
    t = tandem.ones(3, dtype=tandem.float64, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        convert(t)
    e = info.value
    assert isinstance(e, tandem.RequiresGradConversionError) and isinstance(e, tandem.HostConversionError)
    assert first_line(e) == first_line(expected.value)
    assert (e.device, e.shape, e.dtype, e.requires_grad, e.reason, e.fix) == (
        tandem.device("cpu"), (3,), tandem.float64, True, "requires_grad", "t.detach().numpy()")


def test_errors_without_details_still_have_the_attributes():
    with pytest.raises(tandem.OutOfMemoryError) as info:
        tandem.empty(10**13)  # a host allocation: no device figures
    assert info.value.requested_bytes is None and info.value.largest_allocations is None


def run_script(tmp_path, body, memory="64MiB"):
    """Runs `body` as tmp_path/script.py in a fresh interpreter with one capped emulated device."""
    (tmp_path / "script.py").write_text(textwrap.dedent(body))
    env = dict(os.environ, TANDEM_EMULATE_CUDA="1", TANDEM_EMULATE_CUDA_MEMORY=memory)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [os.path.dirname(os.path.dirname(tandem.__file__)),
                                                    env.get("PYTHONPATH", "")] if p)
    out = subprocess.run([sys.executable, "script.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_out_of_memory_error_carries_the_figures_and_allocation_sites(tmp_path):
    out = run_script(tmp_path, """\
        import tandem
        MiB = 1 << 20
        tandem.cuda.memory.record_allocation_sites(True)
        kept = tandem.empty(40 * MiB // 4, device="cuda")
        small = tandem.empty(8 * MiB // 4, device="cuda")
        try:
            tandem.empty(32 * MiB // 4, device="cuda")
        except tandem.cuda.OutOfMemoryError as e:
            assert isinstance(e, RuntimeError)
            assert e.device == "cuda:0" and e.requested_bytes == 32 * MiB and e.total_bytes == 64 * MiB
            assert e.allocated_bytes == 48 * MiB and e.reserved_bytes >= e.allocated_bytes
            assert e.free_bytes == e.total_bytes - e.reserved_bytes
            assert e.largest_allocations == [(40 * MiB, "script.py:4"), (8 * MiB, "script.py:5")], e.largest_allocations
            lines = str(e).splitlines()
            assert lines[0] == ("CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a total capacity of "
                                "64.00 MiB of which 16.00 MiB is free. Of the allocated memory 48.00 MiB is "
                                "allocated by tandem, and 0 bytes is reserved by tandem but unallocated."), lines[0]
            assert lines[1].startswith("hint: largest live allocations on cuda:0: 40.00 MiB at script.py:4, "
                                       "8.00 MiB at script.py:5; " + e.fix), lines[1]
            assert "allocated:" in lines[2] and "reserved:" in lines[2] and "free:" in lines[2]
        summary = tandem.cuda.memory_summary()
        assert "script.py:4" in summary and "script.py:5" in summary, summary
        assert "reserved:" in summary and "free:" in summary
        print("ok")
    """)
    assert out.strip() == "ok"


def test_allocation_sites_name_the_users_line_not_tandems_and_stop_when_off(tmp_path):
    out = run_script(tmp_path, """\
        import tandem
        assert not tandem.cuda.memory.is_recording_allocation_sites()
        before = tandem.empty(1 << 20, device="cuda")
        tandem.cuda.memory.record_allocation_sites(True)
        model = tandem.nn.Linear(1024, 2048).cuda()
        sites = dict((b, s) for b, s in tandem.cuda.memory.largest_allocations(count=10))
        assert sites[4 << 20] is None, sites  # `before` predates recording
        assert sites[8 << 20] == "script.py:5", sites  # made in tandem/nn, named at the user's call
        assert "(site not recorded)" in tandem.cuda.memory_summary()
        tandem.cuda.memory.record_allocation_sites(False)
        assert all(s is None for _, s in tandem.cuda.memory.largest_allocations())
        try:
            tandem.empty(60 << 20, device="cuda")
        except tandem.cuda.OutOfMemoryError as e:
            assert "record_allocation_sites(True)" in str(e).splitlines()[1]
            assert all(site is None for _, site in e.largest_allocations)
        print("ok")
    """)
    assert out.strip() == "ok"
