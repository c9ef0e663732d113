"""Bad and unusual inputs, table-driven, with PyTorch as the oracle: each case is one expression written once
for both libraries. Where PyTorch raises, tandem must raise the same exception type with PyTorch's first line
(tandem may add a `hint:` line); where PyTorch returns, tandem must return the same values, dtype and shape."""
import pytest
import torch

import tandem


def _first_line(e):
    return str(e).splitlines()[0] if str(e) else ""


def _outcome(fn, lib):
    try:
        return "value", fn(lib, lib.nn.functional)
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return "error", e


def _same_value(got, expected):
    if isinstance(expected, torch.Tensor):
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        assert tuple(got.shape) == tuple(expected.shape)
        as_torch = torch.tensor(got.tolist(), dtype=expected.dtype).reshape(expected.shape)
        torch.testing.assert_close(as_torch, expected, rtol=0, atol=0, equal_nan=True)
    elif isinstance(expected, (tuple, list)) and not isinstance(expected, torch.Size):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _same_value(g, e)
    else:
        assert tuple(got) == tuple(expected) if isinstance(expected, torch.Size) else got == expected


CASES = {
    # F.one_hot: class values must lie in [0, num_classes), int64 only.
    "one_hot/too_large": lambda L, F: F.one_hot(L.tensor([0, 3]), 3),
    "one_hot/negative": lambda L, F: F.one_hot(L.tensor([-1, 0]), 3),
    "one_hot/zero_classes": lambda L, F: F.one_hot(L.tensor([0, 1]), 0),
    "one_hot/negative_classes": lambda L, F: F.one_hot(L.tensor([0, 1]), -2),
    "one_hot/inferred": lambda L, F: F.one_hot(L.tensor([2, 0])),
    "one_hot/float": lambda L, F: F.one_hot(L.tensor([0.0, 1.0]), 3),
    "one_hot/empty_inferred": lambda L, F: F.one_hot(L.tensor([], dtype=L.long)),
    "one_hot/empty": lambda L, F: F.one_hot(L.tensor([], dtype=L.long), 3),
    "one_hot/2d": lambda L, F: F.one_hot(L.tensor([[1], [0]]), 2),
    # Pooling strides: zero is refused, None and [] mean the kernel size.
    "max_pool2d/stride_0": lambda L, F: F.max_pool2d(L.ones(1, 1, 4, 4), 2, stride=0),
    "max_pool2d/stride_pair_0": lambda L, F: F.max_pool2d(L.ones(1, 1, 4, 4), 2, stride=(1, 0)),
    "max_pool2d/stride_empty": lambda L, F: F.max_pool2d(L.arange(16.0).reshape(1, 1, 4, 4), 2, stride=[]),
    "avg_pool2d/stride_0": lambda L, F: F.avg_pool2d(L.ones(1, 1, 4, 4), 2, stride=0),
    "MaxPool2d/stride_0": lambda L, F: L.nn.MaxPool2d(2, stride=0)(L.ones(1, 1, 4, 4)),
    "AvgPool2d/stride_0": lambda L, F: L.nn.AvgPool2d(2, stride=0)(L.ones(1, 1, 4, 4)),
    # Class weights of the wrong length.
    "nll_loss/weight_long": lambda L, F: F.nll_loss(L.zeros(2, 3), L.tensor([0, 1]), weight=L.ones(5)),
    "nll_loss/weight_2d": lambda L, F: F.nll_loss(L.zeros(2, 3), L.tensor([0, 1]), weight=L.ones(3, 1)),
    "nll_loss/weight_short": lambda L, F: F.nll_loss(L.zeros(2, 3), L.tensor([0, 1]), weight=L.ones(2)),
    "cross_entropy/weight_long": lambda L, F: F.cross_entropy(L.zeros(2, 3), L.tensor([0, 1]), weight=L.ones(5)),
    "cross_entropy/probs_weight_long": lambda L, F: F.cross_entropy(L.zeros(2, 3), L.full((2, 3), 1 / 3),
                                                                    weight=L.ones(4)),
    "CrossEntropyLoss/weight_long": lambda L, F: L.nn.CrossEntropyLoss(weight=L.ones(4))(L.zeros(2, 3),
                                                                                        L.tensor([0, 1])),
    # Integer division edge cases: INT_MIN / -1 wraps, division by zero raises on the CPU.
    "floor_divide/int64_min_by_minus_1": lambda L, F: L.tensor([-2**63, 7]) // -1,
    "remainder/int64_min_by_minus_1": lambda L, F: L.tensor([-2**63, 7]) % -1,
    "floor_divide/int32_min_tensor": lambda L, F: L.tensor([-2**31], dtype=L.int32) // L.tensor([-1], dtype=L.int32),
    "remainder/int32_min_tensor": lambda L, F: L.tensor([-2**31], dtype=L.int32) % L.tensor([-1], dtype=L.int32),
    "neg/int64_min": lambda L, F: -L.tensor([-2**63]),
    "abs/int64_min": lambda L, F: L.tensor([-2**63, -3]).abs(),
    "floor_divide/by_zero": lambda L, F: L.tensor([1, 2]) // L.tensor([1, 0]),
    "remainder/by_zero_scalar": lambda L, F: L.tensor([1, 2]) % 0,
}

# Values that do not fit the dtype they are written into: PyTorch's checked conversion.
_FILLS = [(300, "int8"), (-129, "int8"), (127, "int8"), (256, "uint8"), (-1, "uint8"), (-255, "uint8"),
          (-256, "uint8"), (70000, "int16"), (2**40, "int32"), (2.9e9, "int32"), (float("nan"), "int32"),
          (float("inf"), "int8"), (float("-inf"), "int64"), (2.5, "int32"), (1e40, "float32"), (-1e39, "float32"),
          (float("inf"), "float32"), (70000.0, "float16"), (65504.0, "float16"), (1e300, "bfloat16"), (70000.0, "bfloat16"), (5, "bool"), (True, "int8"),
          (2**63 - 1, "int64"), (-2**63, "int64")]
for _v, _d in _FILLS:
    CASES[f"full/{_v}/{_d}"] = lambda L, F, v=_v, d=_d: L.full((2,), v, dtype=getattr(L, d))
    CASES[f"fill_/{_v}/{_d}"] = lambda L, F, v=_v, d=_d: L.zeros(2, dtype=getattr(L, d)).fill_(v)
    CASES[f"tensor/{_v}/{_d}"] = lambda L, F, v=_v, d=_d: L.tensor([v], dtype=getattr(L, d))

CASES.update({
    # A NaN bound makes every element NaN.
    "clamp/min_nan": lambda L, F: L.clamp(L.tensor([1.0, 2.0]), min=float("nan")),
    "clamp/max_nan": lambda L, F: L.clamp(L.tensor([1.0, 2.0]), max=float("nan")),
    "clamp_/min_nan": lambda L, F: L.tensor([1.0, -2.0]).clamp_(min=float("nan"), max=1.0),
    "clamp/nan_float64": lambda L, F: L.tensor([1.0], dtype=L.float64).clamp(-1.0, float("nan")),
    # Sizes whose element count overflows 64 bits are refused, whatever makes them.
    "expand/overflow": lambda L, F: L.ones(1, 1, 5).expand(2**40, 2**40, 5),
    "view/overflow": lambda L, F: L.ones(0).view(2**62, 2**62, 0),
    "reshape/overflow": lambda L, F: L.ones(4).reshape(2**62, 2**62, 0),
    "expand/fine": lambda L, F: L.ones(1, 3).expand(4, 3),
    "zeros/negative": lambda L, F: L.zeros(-1),
    "zeros/beyond_int64": lambda L, F: L.zeros(2**63),
    # Memory overlap between what an op writes and what it reads (PyTorch's rules).
    "copy_/own_transpose": lambda L, F: (lambda a: a.copy_(a.t()))(L.arange(9.0).reshape(3, 3)),
    "add_/own_transpose": lambda L, F: (lambda a: a.add_(a.t()))(L.arange(9.0).reshape(3, 3)),
    "copy_/shifted_slice": lambda L, F: (lambda a: a[1:].copy_(a[:-1]))(L.arange(5.0)),
    "mul_/shifted_slice": lambda L, F: (lambda a: a[1:].mul_(a[:-1]))(L.arange(5.0)),
    "add_/expanded_output": lambda L, F: L.zeros(3).expand(2, 3).add_(1),
    "fill_/expanded_output": lambda L, F: L.zeros(3).expand(2, 3).copy_(L.ones(2, 3)),
    "copy_/itself": lambda L, F: (lambda a: a.copy_(a))(L.arange(3.0)),
    "add_/itself": lambda L, F: (lambda a: a.add_(a))(L.arange(3.0)),
    "copy_/disjoint_step_slices": lambda L, F: (lambda a: (a[::2].copy_(a[1::2]), a)[1])(L.arange(6.0)),
    "copy_/disjoint_halves": lambda L, F: (lambda a: (a[:3].copy_(a[3:]), a)[1])(L.arange(6.0)),
})

# Where tandem's first line intentionally differs from PyTorch's (same exception type): the case and why.
DIFFERENT_WORDING = {
    "zeros/beyond_int64": "PyTorch names its C++ unpacking function; tandem says which argument kinds do not fit",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_matches_pytorch(name):
    fn = CASES[name]
    kind, expected = _outcome(fn, torch)
    got_kind, got = _outcome(fn, tandem)
    if kind == "error":
        assert got_kind == "error", f"PyTorch raises {type(expected).__name__}: {expected}; tandem returned {got!r}"
        assert type(got).__name__ == type(expected).__name__, (got, expected)
        if name not in DIFFERENT_WORDING:
            assert _first_line(got) == _first_line(expected)
    else:
        assert got_kind == "value", f"PyTorch returns {expected!r}; tandem raised {got!r}"
        _same_value(got, expected)


def _run_child(code):
    """Runs `code` in a fresh interpreter (a crash there fails the test instead of killing the runner)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)


def test_huge_thread_counts_are_capped_not_fatal():
    r = _run_child("import os, tandem\n"
                   "tandem.set_num_threads(100000)\n"
                   "n = tandem.get_num_threads()\n"
                   "assert 1 <= n <= 4 * max(os.cpu_count(), 1), n\n"
                   "print(tandem.ones(10**7).sum().item(), tandem.ones(300, 40000).sum(1)[0].item())\n"
                   "tandem.set_num_threads(1)\n"
                   "assert tandem.get_num_threads() == 1\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["10000000.0", "40000.0"]
