"""The out= sweep: every public PyTorch function (torch.*, torch.linalg.*, torch.special.*, torch.fft.*) whose ATen
op has an out overload, and that tandem provides, is called with out= in PyTorch and in tandem on each device:
tandem must return the out tensor itself (each of a tuple of outs), resize it to PyTorch's shape and fill it with
PyTorch's values and dtype. out_sweep.py builds the list and the calls; its NO_PYTHON_OUT and SKIP (each with a
reason, also listed in docs/compat.md) are checked here too, so a function can only leave the sweep with a
reason."""
import warnings

import pytest
import torch

import tandem

import out_sweep
import out_sweep_run

OUT_FUNCTIONS = sorted(n for n in out_sweep.out_overloads() if out_sweep.resolve(tandem, n) is not None)
SWEPT = [n for n in OUT_FUNCTIONS if n not in out_sweep.NO_PYTHON_OUT and n not in out_sweep.SKIP]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # deprecation notes of chain_matmul, lu_solve, ... are not under test
        warnings.simplefilter("ignore")
        yield


def test_the_sweep_has_its_functions():
    # ATen's schemas must yield the functions this project knows (a broken enumeration would pass vacuously).
    for name in ("mm", "matmul", "sum", "sort", "cat", "linalg.solve", "special.erf", "fft.fft", "arange"):
        assert name in SWEPT
    assert len(SWEPT) > 300
    assert not set(out_sweep.SKIP) & out_sweep.NO_PYTHON_OUT
    assert all(reason for reason in out_sweep.SKIP.values())
    assert set(out_sweep.WIDER_OUT_DIFFERENCES) <= set(SWEPT)


@pytest.mark.parametrize("name", SWEPT)
def test_out_matches_pytorch(name, device):
    reference = out_sweep_run.torch_reference(name)
    assert reference is not None, f"no sample call of {name} that PyTorch accepts with out= (add one to CALLS)"
    out_sweep_run.check(name, *reference, device)


@pytest.mark.parametrize("name", [n for n in SWEPT if n not in out_sweep.WIDER_OUT_DIFFERENCES
                                  and n.split(".")[-1] not in out_sweep.RANDOM])
def test_wider_out_matches_pytorch(name, device):
    # A float64 out for a float32 result: cast into it or refused with the op's own message, as in PyTorch.
    out_sweep_run.check_wider_out(name, *out_sweep_run.torch_reference(name), device)


@pytest.mark.parametrize("name", sorted(n for n in out_sweep.NO_PYTHON_OUT if n in OUT_FUNCTIONS))
def test_pytorch_takes_no_out_there(name):
    fn = out_sweep.resolve(torch, name)
    calls = out_sweep_run.sample_calls(name)
    if not calls:
        pytest.skip(f"no sample call of {name}")
    args, kwargs = calls[0]
    result = fn(*args, **kwargs)
    with pytest.raises(TypeError):
        fn(*args, **kwargs, out=out_sweep_run.empty_outs(result, torch, "cpu"))
