"""What the hostile-input regression tests (test_hostile_inputs2.py, 3 and 4) share: the builders their cases make
tensors with, written once for both libraries (L is torch or tandem, d the device), and the check that runs a case
in PyTorch (the oracle, on the CPU) and in tandem on a device and compares the outcomes."""
import torch

import tandem
from oracle import assert_same_result, hostile_first_line, hostile_outcome


def T(L, values, d="cpu", dtype=None):
    return L.tensor(values, device=d, dtype=getattr(L, dtype) if dtype else None)


def X(L, shape, d="cpu", dtype="float32"):
    """Deterministic values in [-5, 5] in the given shape (both libraries see the same)."""
    n = 1
    for s in shape:
        n *= s
    k = L.arange(n, dtype=L.float64)
    return (k * k * 0.37 + k * 1.3 + 0.5).sin().mul(5.0).reshape(shape).to(device=d, dtype=getattr(L, dtype))


def assert_matches_pytorch(case, device, *, first_line=True, shape_only=False, seed=None):
    """case(L, d) does in tandem on device what it does in PyTorch on the CPU: raises the same exception type with
    PyTorch's first line (first_line=False: the type only, where PyTorch's message is not one to match), or returns
    the same values, dtype and shape (shape_only: the same dtype and shape, for random draws). seed: both
    libraries' generators are seeded with it before the case runs."""
    if seed is not None:
        torch.manual_seed(seed)
    kind, expected = hostile_outcome(case, torch, "cpu")
    if seed is not None:
        tandem.manual_seed(seed)
    got_kind, got = hostile_outcome(case, tandem, device)
    if kind == "error":
        assert got_kind == "error", f"PyTorch raises {type(expected).__name__}: {expected}; tandem returned {got!r}"
        assert type(got).__name__ == type(expected).__name__ or isinstance(got, type(expected)), (got, expected)
        if first_line:
            assert hostile_first_line(got) == hostile_first_line(expected)
        return
    assert got_kind == "value", f"PyTorch returns {expected!r}; tandem raised {got!r}"
    if shape_only:
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(expected.shape) and got.device == tandem.device(device)
    else:
        assert_same_result(got, expected, exact=False)


def fixed_cases(fixed):
    """{"table/case": case function} for (table module, case name) pairs: the cases a round fixed, which its test
    file runs against PyTorch."""
    return {f"{table.__name__.rsplit('.', 1)[1]}/{name}": getattr(table.CASES[name], "fn", table.CASES[name])
            for table, name in fixed}


def needs_cpp(tables):
    """(table module, case name) for every case whose KNOWN entry starts with "C++": the findings a round left for a
    change in C++, which its test file runs as strict xfails (so the session that makes the change sees them pass
    and removes them here and in KNOWN)."""
    return [(table, name) for table in tables for name in sorted(table.KNOWN) if table.KNOWN[name].startswith("C++")]
