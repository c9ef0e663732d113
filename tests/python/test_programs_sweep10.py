"""The tenth program sweep: whole programs after Stack Overflow answers and discuss.pytorch.org threads, each
written once against a module called `torch`, run with PyTorch and with tandem standing in for it, and their
results compared. The programs live in sweep10_indexing.py (mask assignment, gather/scatter picks, nonzero/where,
sorting and unique with ties, segment ops), sweep10_reshaping.py (view versus reshape, sliding windows, expand
versus repeat, chunk/split/stack, identity and equality), sweep10_dtypes.py (division, overflow, bool arithmetic,
promotion, in-place dtype errors), sweep10_printing.py (repr of every dtype, autograd in the repr, summaries,
set_printoptions, f-strings), sweep10_numpy.py (the NumPy bridge, NumPy scalars, a NumPy-first pipeline),
sweep10_errors.py (shape, index, autograd and loss errors with their messages) and sweep10_random.py (seeding,
Generator objects, reproducible data pipelines). The focused tests below cover what they found (docs/compat.md,
"Program sweep 10")."""
import warnings

import numpy as np
import pytest

import sweep10_dtypes
import sweep10_errors
import sweep10_indexing
import sweep10_numpy
import sweep10_printing
import sweep10_random
import sweep10_reshaping
import tandem
from test_programs_sweeputil import DEFAULT_TOLERANCE, compare_with_pytorch, program_params

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep10_indexing, sweep10_reshaping, sweep10_dtypes, sweep10_printing, sweep10_numpy, sweep10_errors,
            sweep10_random)
PROGRAMS = [p for m in _MODULES for p in m.PROGRAMS]
NEEDS_CPP = {p: why for m in _MODULES for p, why in m.NEEDS_CPP.items()}
_reference = {}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", program_params(PROGRAMS, NEEDS_CPP))
def test_program_matches_pytorch(program, device):
    compare_with_pytorch(program, device, _reference, DEFAULT_TOLERANCE)


def _outcome(call):
    try:
        result = call()
    except Exception as exc:  # the error type and message are what is compared
        return type(exc).__name__, str(exc).split("\nhint:")[0]
    return "ok", str(result).replace("tandem.", "torch.")


# ---- dtype.to_complex() / dtype.to_real() ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float32", "float64", "complex64", "complex128", "int32", "int64", "uint8", "bool"])
def test_dtype_to_complex_and_to_real_match_pytorch(name):
    for method in ("to_complex", "to_real"):
        got = _outcome(lambda: getattr(getattr(tandem, name), method)())
        want = _outcome(lambda: getattr(getattr(torch, name), method)())
        assert got == want, (name, method)


def test_dtype_to_complex_of_a_16_bit_float_names_the_missing_dtype():
    # PyTorch answers complex32 / bcomplex32, which tandem does not have: a clear TypeError, not a wrong dtype
    for name in ("float16", "bfloat16"):
        with pytest.raises(TypeError, match="has no complex counterpart in tandem"):
            getattr(tandem, name).to_complex()
        assert getattr(tandem, name).to_real() == getattr(tandem, name)


# ---- in-place clamp of integer and bool tensors: PyTorch's promotion check and its two spellings ---------------
def _clamp_calls(lib):
    i = lib.tensor([1, 5, 9])
    b = lib.tensor([True, False])
    return {
        "number": lambda: i.clone().clamp_(0.5, 6),
        "number_min_kw": lambda: i.clone().clamp_(min=2.5),
        "number_max_kw": lambda: i.clone().clamp_(max=2.5),
        "clip_": lambda: i.clone().clip_(max=2.5),
        "complex": lambda: i.clone().clamp_(1j),
        "tensor_0d": lambda: i.clone().clamp_(lib.tensor(0.5)),
        "tensor_max_kw": lambda: i.clone().clamp_(max=lib.tensor(0.5)),
        "tensor_1d": lambda: i.clone().clamp_(lib.tensor([0.5, 1.0, 2.0])),
        "clamp_min_": lambda: i.clone().clamp_min_(2.5),
        "int32": lambda: i.clone().int().clamp_(0.5),
        "int16": lambda: i.clone().short().clamp_(0.5),
        "uint8": lambda: i.clone().to(lib.uint8).clamp_(0.5),
        "bool_int_bounds": lambda: b.clone().clamp_(0, 1),
        "whole_float": lambda: i.clone().clamp_(2.0),
        "fits_int": lambda: i.clone().clamp_(2, 6).tolist(),
        "fits_int_tensor": lambda: i.clone().clamp_(lib.tensor(2), lib.tensor([3, 4, 5])).tolist(),
        "bool_bound": lambda: i.clone().clamp_(True).tolist(),
        "float_self": lambda: i.clone().float().clamp_(2.5, lib.tensor(6.0)).tolist(),
        "half_self": lambda: i.clone().half().clamp_(0.5).tolist(),
        "none": lambda: i.clone().clamp_(),
    }


def test_in_place_clamp_of_integer_tensors_refuses_floating_bounds_as_pytorch():
    ours, theirs = _clamp_calls(tandem), _clamp_calls(torch)
    for key in theirs:
        assert _outcome(ours[key]) == _outcome(theirs[key]), key


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_clamp_check_on_a_device_leaves_the_tensor_alone(device):
    t = tandem.tensor([1, 5, 9], device=device)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        t.clamp_(tandem.tensor(2.5, device=device))
    assert t.tolist() == [1, 5, 9] and t._version == 0
    assert t.clamp_(2, 6) is t and t.tolist() == [2, 5, 6]


# ---- mse_loss / l1_loss warn about a target that broadcasts, as PyTorch ------------------------------------------
def _loss_warnings(lib, name, use_module):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inp, target = lib.zeros(4, 1), lib.ones(4)
        if use_module:
            loss = getattr(lib.nn, {"mse_loss": "MSELoss", "l1_loss": "L1Loss"}[name])(reduction="sum")(inp, target)
        else:
            loss = getattr(lib.nn.functional, name)(inp, target, reduction="sum")
    return loss.item(), [(w.category.__name__, str(w.message).replace("tandem.", "torch.")) for w in caught]


@pytest.mark.parametrize("use_module", [False, True])
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_regression_losses_warn_about_a_broadcasting_target_as_pytorch(name, use_module):
    assert _loss_warnings(tandem, name, use_module) == _loss_warnings(torch, name, use_module)


def test_broadcasting_warning_points_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tandem.nn.functional.mse_loss(tandem.zeros(3, 1), tandem.zeros(3))
    assert [w.filename for w in caught] == [__file__]


def test_same_sized_regression_losses_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tandem.nn.functional.mse_loss(tandem.zeros(3, 1), tandem.zeros(3, 1))
        tandem.nn.functional.l1_loss(tandem.zeros(3), tandem.zeros(3), weight=tandem.ones(3))


# ---- a CUDA tensor's repr names its device (the programs print CPU tensors, as their reference) -----------------
@pytest.mark.skipif(not tandem.cuda.is_available(), reason="needs a CUDA device (real or emulated)")
def test_repr_of_a_cuda_tensor_names_its_device_where_pytorch_does():
    cases = {"tensor([1., 2.], device='cuda:0')": tandem.tensor([1.0, 2.0], device="cuda"),
             "tensor(3, device='cuda:0')": tandem.tensor(3, device="cuda:0"),
             "tensor([], device='cuda:0', size=(0, 2))": tandem.zeros(0, 2, device="cuda"),
             "tensor([1, 1], device='cuda:0', dtype=torch.int32)": tandem.ones(2, dtype=tandem.int32, device="cuda"),
             "tensor([2., 4.], device='cuda:0', grad_fn=<MulBackward0>)":
                 tandem.tensor([1.0, 2.0], device="cuda", requires_grad=True) * 2}
    for want, t in cases.items():
        assert repr(t).replace("tandem.", "torch.") == want
