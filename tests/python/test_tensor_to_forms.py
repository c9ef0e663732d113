"""Tensor.to's argument forms as PyTorch's parser reads them (python/src/cuda.cpp, tensor_to): to(device=None,
dtype=None, non_blocking=False, copy=False), to(dtype, non_blocking=False, copy=False), to(other,
non_blocking=False, copy=False), each with a keyword-only memory_format; a Python float/bool/complex stands for a
0-dim CPU tensor of its type. Every call runs in both libraries: results (dtype, device, strides, identity) or the
exact error type and message must match."""
import pytest
import torch

import tandem

CALLS = {
    "dtype": lambda lib, x: x.to(lib.float16),
    "dtype_flags": lambda lib, x: x.to(lib.float16, True, True),
    "dtype_kw_flags": lambda lib, x: x.to(lib.float16, non_blocking=True, copy=True),
    "dtype_memory_format": lambda lib, x: x.to(lib.float16, memory_format=lib.channels_last),
    "dtype_memory_format_none": lambda lib, x: x.to(lib.float16, memory_format=None),
    "python_types": lambda lib, x: [x.to(t).dtype for t in (float, int, bool, complex)],
    "device_str": lambda lib, x: x.to("cpu"),
    "device_dtype": lambda lib, x: x.to("cpu", lib.float64),
    "device_python_type": lambda lib, x: x.to("cpu", float),
    "device_none_dtype": lambda lib, x: x.to(None, lib.int32),
    "none_none_flags": lambda lib, x: x.to(None, None, True, True),
    "device_obj_none": lambda lib, x: x.to(lib.device("cpu"), None),
    "device_dtype_flag": lambda lib, x: x.to(lib.device("cpu"), lib.float16, False),
    "device_kw_flags": lambda lib, x: x.to(lib.device("cpu"), non_blocking=True, copy=True),
    "keywords": lambda lib, x: x.to(device="cpu", dtype=lib.int32, copy=True),
    "keyword_python_type": lambda lib, x: x.to(dtype=float),
    "keyword_memory_format": lambda lib, x: x.to(memory_format=lib.channels_last),
    "keyword_preserve": lambda lib, x: x.to(None, lib.float16, memory_format=lib.preserve_format),
    "no_change_is_self": lambda lib, x: x.to(lib.float32) is x,
    "copy_is_new": lambda lib, x: x.to(lib.float32, copy=True) is x,
    "none": lambda lib, x: x.to(None) is x,
    "other": lambda lib, x: x.to(x.double()),
    "other_flag": lambda lib, x: x.to(x.double(), True),
    "float_scalar": lambda lib, x: x.to(1.5),
    "bool_scalar": lambda lib, x: x.to(True),
    "complex_scalar": lambda lib, x: x.to(1j),
    "float_scalar_flag": lambda lib, x: x.to(1.5, True),
    # refused as PyTorch refuses them
    "memory_format_positional": lambda lib, x: x.to(lib.channels_last),
    "dtype_memory_format_positional": lambda lib, x: x.to(lib.float16, lib.channels_last),
    "two_strings": lambda lib, x: x.to("cpu", "float"),
    "two_dtypes": lambda lib, x: x.to(lib.float16, lib.float32),
    "other_dtype": lambda lib, x: x.to(x, lib.float16),
    "int_flag": lambda lib, x: x.to(lib.float16, True, 3),
    "dtype_four_positional": lambda lib, x: x.to(lib.float16, False, False, lib.channels_last),
    "five_positional": lambda lib, x: x.to("cpu", lib.float16, True, False, True),
    "copy_int": lambda lib, x: x.to(lib.float16, copy=3),
    "memory_format_int": lambda lib, x: x.to(device="cpu", memory_format=3),
    "dtype_device_kw": lambda lib, x: x.to(lib.float16, device="cpu"),
    "dtype_twice": lambda lib, x: x.to(lib.float16, dtype=lib.float32),
    "other_dtype_kw": lambda lib, x: x.to(x, dtype=lib.float16),
    "device_twice": lambda lib, x: x.to("cpu", device="cpu"),
    "unknown_keyword": lambda lib, x: x.to(dtype=lib.float16, device="cpu", copy=True, foo=1),
    "non_blocking_none": lambda lib, x: x.to("cpu", non_blocking=None),
    "device_as_dtype": lambda lib, x: x.to(device=lib.float16),
    "bad_device_string": lambda lib, x: x.to("float"),
}


def outcome(lib, name):
    x = lib.arange(24.0).reshape(1, 2, 3, 4)
    try:
        r = CALLS[name](lib, x)
    except Exception as e:  # noqa: BLE001  (the outcome is compared)
        return (type(e).__name__, str(e).split("\nhint:")[0].replace("torch.", "T.").replace("tandem.", "T."))
    if isinstance(r, (lib.Tensor,)):
        return ("tensor", str(r.dtype).split(".")[-1], r.device.type, r.stride(), r.tolist())
    if isinstance(r, list):
        return ("list", [str(d).split(".")[-1] for d in r])
    return ("value", r)


@pytest.mark.parametrize("name", list(CALLS))
def test_to_forms_as_pytorch(name):
    theirs = outcome(torch, name)
    ours = outcome(tandem, name)
    if name == "bad_device_string":  # both refuse the string; the device types listed differ
        assert ours[0] == theirs[0] == "RuntimeError"
        assert ours[1].startswith("Expected one of cpu, cuda") and "device string: float" in ours[1]
        return
    assert ours == theirs


def test_to_on_an_emulated_device_keeps_the_forms():
    x = tandem.arange(6.0, device="cuda:0").reshape(2, 3)
    assert x.to(1.5).device.type == "cpu" and x.to(1.5).dtype == tandem.float64  # a CPU scalar's device
    assert x.to(tandem.float16, True, False).device == tandem.device("cuda:0")
    assert x.to("cpu", tandem.int32, False, True).tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match=r"got \(torch.dtype, bool, int\)"):
        x.to(tandem.float16, True, 3)
