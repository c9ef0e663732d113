"""Helpers the sparse tensor tests (test_sparse.py, test_sparse_csr.py) share: moving dense tensors between tandem
and torch, and comparing the errors the two raise."""
import pytest

import oracle


def t2p(x):
    """A tandem dense tensor as a torch CPU tensor (values, dtype, shape)."""
    return oracle.to_torch(x.detach().cpu())


def p2t(x, device="cpu"):
    return oracle.from_torch(x.detach(), device)


def raises_like(torch_fn, tandem_fn, exc=RuntimeError, device="cpu"):
    """tandem raises what torch raises: the same type and first line (for PyTorch's "Could not run" errors, the
    first sentence: PyTorch goes on about its dispatcher). torch runs on the CPU: with a cuda device, its backend
    names (SparseCPU) are read as the device's (SparseCUDA)."""
    with pytest.raises(exc) as expected:
        torch_fn()
    with pytest.raises(exc) as actual:
        tandem_fn()
    actual_line, expected_line = str(actual.value).split("\n")[0], str(expected.value).split("\n")[0]
    if device != "cpu":
        expected_line = expected_line.replace("CPU' backend", "CUDA' backend")
    if actual_line.startswith("Could not run"):
        expected_line = expected_line[:len(actual_line)]
    assert actual_line == expected_line
