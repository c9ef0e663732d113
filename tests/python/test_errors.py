"""The bad-input table: each case raises the same exception type and first line as PyTorch, the process
never crashes, and tandem adds a hint where it can name the fix. Cross-checked against torch in the test."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import tandem

CASES = {
    "item of many": lambda m: m.ones(2).item(),
    "bool of many": lambda m: bool(m.ones(2)),
    "ragged list": lambda m: m.tensor([[1, 2], [3]]),
    "dim out of range": lambda m: m.ones(2, 3).sum(dim=5),
    "index out of range": lambda m: m.ones(3)[5],
    "too many indices": lambda m: m.ones(2, 2)[0, 0, 0],
    "matmul shapes": lambda m: m.ones(2, 3) @ m.ones(4, 5),
    "view of transposed": lambda m: m.ones(2, 3).t().view(6),
    "cat ndims": lambda m: m.cat([m.ones(2, 2), m.ones(2)]),
    "string data": lambda m: m.tensor("abc"),
    "transpose dim": lambda m: m.ones(2, 3).transpose(0, 5),
    "reshape size": lambda m: m.ones(6).reshape(4, 2),
    "unsqueeze dim": lambda m: m.ones(2).unsqueeze(3),
    "expand size": lambda m: m.ones(3).expand(2, 4),
    "float index": lambda m: m.ones(3)[1.5],
    "broadcast": lambda m: m.ones(2, 3) + m.ones(4),
    "integer division by zero": lambda m: m.tensor([1, 2]) // m.tensor([1, 0]),
    "mean of ints": lambda m: m.tensor([1, 2]).mean(),
    "negative numel": lambda m: m.empty(-1),
    "select 0-dim": lambda m: m.tensor(1.0)[0],
    "gather index dtype": lambda m: m.ones(3).gather(0, m.tensor([0.0])),
}


@pytest.mark.parametrize("name", list(CASES))
def test_error_matches_pytorch(name):
    fn = CASES[name]
    with pytest.raises(Exception) as expected:
        fn(torch)
    with pytest.raises(Exception) as got:
        fn(tandem)
    assert type(got.value) is type(expected.value) or isinstance(got.value, type(expected.value)), (
        type(got.value), type(expected.value))
    torch_first = str(expected.value).splitlines()[0]
    ours = str(got.value).splitlines()
    assert ours[0] == torch_first.replace("torch.", "tandem.")
    for line in ours[1:]:
        assert line.startswith(("hint:", " ")) or line == "", line


def test_unknown_dtype_is_a_type_error_naming_the_fix():
    with pytest.raises(TypeError, match="^ones\\(\\): argument 'dtype' must be torch.dtype, not str\nhint: NumPy dtypes "
                                        "and strings are not dtypes here; use tandem.float32"):
        tandem.ones(2, dtype="float33")
    with pytest.raises(TypeError, match="dtype must be a tandem.dtype"):  # a function without PyTorch's form
        tandem.arange(3, dtype="float33")


@pytest.mark.parametrize("call", [
    lambda L: L.full((2,), 1.0, dtype="float32"), lambda L: L.zeros_like(L.ones(2), dtype=np.float32),
    lambda L: L.full_like(L.ones(2), 1.0, dtype=np.dtype("float64")), lambda L: L.ones(2).new_full((2,), 1.0, dtype="x"),
    lambda L: L.ones(2).new_empty(2, dtype=np.int64), lambda L: L.as_tensor([1.0], dtype=np.float32),
    lambda L: L.as_tensor(np.ones(2), dtype=np.dtype("float64")), lambda L: L.tensor([1], dtype=np.int8),
])
def test_factory_dtype_errors_name_the_function_as_pytorch(call):
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(tandem)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
    assert "hint: NumPy dtypes and strings are not dtypes here" in str(ours.value)


def test_view_error_hints_reshape():
    with pytest.raises(RuntimeError) as info:
        tandem.ones(2, 3).t().view(6)
    assert "hint: x.reshape(6)" in str(info.value)


def test_huge_allocation_is_out_of_memory_and_the_process_keeps_working():
    with pytest.raises(tandem.OutOfMemoryError) as info:
        tandem.empty(10**13)
    assert isinstance(info.value, RuntimeError)
    assert str(info.value).startswith("DefaultCPUAllocator: not enough memory: you tried to allocate")
    assert (tandem.ones(3) + 1).tolist() == [2.0, 2.0, 2.0]


def test_bad_inputs_never_crash_the_interpreter():
    # Each line must raise a Python exception; a crash would kill the child process.
    code = "\n".join([
        "import tandem, numpy as np",
        "bad = [lambda: tandem.ones(2)[10], lambda: tandem.ones(2).view(-1, -1),",
        "       lambda: tandem.from_numpy(np.ones(3)[::-1]), lambda: tandem.tensor([[1], [2, 3]]),",
        "       lambda: tandem.ones(2, 2) @ tandem.ones(3), lambda: tandem.empty(2**62),",
        "       lambda: tandem.ones(3).gather(0, tandem.tensor([5])), lambda: tandem.zeros(0).max(),",
        "       lambda: tandem.ones(2).expand(3, 3), lambda: tandem.arange(0, 10, 0)]",
        "n = 0",
        "for f in bad:",
        "    try: f()",
        "    except Exception: n += 1",
        "print(n)",
    ])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "10"
