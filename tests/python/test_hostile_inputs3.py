"""Regression tests for what the third round of the differential hostile-input harness (fuzz/hostile_diff.py, the
nn module, optim, data, serialization, reduction and conversion tables) found: one case per finding, written once
for both libraries and run with PyTorch (the oracle, on the CPU) and tandem on every device. Where PyTorch raises,
tandem raises the same exception type with PyTorch's first line (tandem may add a `hint:` line); where PyTorch
returns, tandem returns the same values, dtype and shape."""
import re
import warnings

import pytest
import torch

import tandem
from oracle import assert_same_result


def T(L, values, d="cpu", dtype=None):
    return L.tensor(values, device=d, dtype=getattr(L, dtype) if dtype else None)


def X(L, shape, d="cpu", dtype="float32"):
    """Deterministic values in [-5, 5] in the given shape (both libraries see the same)."""
    n = 1
    for s in shape:
        n *= s
    k = L.arange(n, dtype=L.float64)
    return (k * k * 0.37 + k * 1.3 + 0.5).sin().mul(5.0).reshape(shape).to(device=d, dtype=getattr(L, dtype))


def F(L):
    return L.nn.functional


def _first_line(e):
    # Kernel names and tensor types carry the device: PyTorch, the oracle, runs on the CPU.
    line = (str(e).splitlines() or [""])[0].replace("tandem.", "torch.").replace("_cuda\"", "_cpu\"")
    line = line.replace("torch.cuda.", "torch.").replace("CUDABoolType", "CPUBoolType")
    return re.sub(r", device='cuda:\d'", "", line)


def _outcome(case, lib, device):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = case(lib, device)
        if lib is tandem and device.startswith("cuda"):
            tandem.cuda.synchronize(device)
        return "value", value
    except Exception as e:  # noqa: BLE001 - the type is what the test compares
        return "error", e


def _seeded(L, module, d):
    """A module whose parameters are deterministic (both libraries' default inits draw differently)."""
    with L.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(X(L, tuple(p.shape), "cpu", str(p.dtype).split(".")[-1]) * (0.1 + 0.02 * i))
    return module.to(d)


CASES = {
    # ---- conv2d: an input without channels gives an output without channels (PyTorch's shape)
    "conv2d/zero_in_channels": lambda L, d: F(L).conv2d(X(L, (1, 0, 5, 5), d), L.ones(3, 0, 2, 2, device=d),
                                                        L.ones(3, device=d)),
    "conv2d/zero_in_channels_unbatched": lambda L, d: F(L).conv2d(X(L, (0, 5, 5), d), L.ones(3, 0, 2, 2, device=d)),
    "conv2d/zero_in_channels_groups": lambda L, d: F(L).conv2d(X(L, (2, 0, 5, 5), d), L.ones(4, 0, 2, 2, device=d),
                                                               groups=2, stride=2, padding=1),
    "conv1d/zero_in_channels": lambda L, d: F(L).conv1d(X(L, (1, 0, 5), d), L.ones(3, 0, 2, device=d)),
    "conv3d/zero_in_channels": lambda L, d: F(L).conv3d(X(L, (1, 0, 3, 4, 4), d), L.ones(3, 0, 2, 2, 2, device=d)),
    "conv2d/zero_in_channels_grads": lambda L, d: (lambda x, w, b: (
        F(L).conv2d(x, w, b).sum().backward(), x.grad, w.grad, b.grad)[1:])(
        L.ones(1, 0, 5, 5, device=d, requires_grad=True), L.ones(3, 0, 2, 2, device=d, requires_grad=True),
        L.ones(3, device=d, requires_grad=True)),
    # ---- conv2d: a zero-size kernel computed zeros; a kernel past the input and a mismatched bias
    "Conv2d/kernel_zero": lambda L, d: L.nn.Conv2d(2, 3, 0).to(d)(X(L, (1, 2, 5, 5), d)),
    "conv2d/kernel_width_zero": lambda L, d: F(L).conv2d(X(L, (1, 2, 5, 5), d), L.ones(3, 2, 2, 0, device=d)),
    "Conv2d/input_smaller_than_kernel": lambda L, d: L.nn.Conv2d(2, 3, 3).to(d)(X(L, (1, 2, 2, 2), d)),
    "Conv2d/double_input_float_bias": lambda L, d: L.nn.Conv2d(2, 3, 3).to(d)(X(L, (1, 2, 5, 5), d, "float64")),
    # ---- Python ints past the 64-bit range: PyTorch's OverflowError
    "add/scalar_past_uint64": lambda L, d: L.add(T(L, [1], d), 2**64),
    "add/scalar_below_int64": lambda L, d: L.add(T(L, [1], d), -2**63 - 1),
    "add/alpha_past_uint64": lambda L, d: L.add(T(L, [1], d), 1, alpha=2**64),
    "clamp/max_past_uint64": lambda L, d: L.clamp(T(L, [1, 5], d), 0, 2**64),
    "mul/operator_past_uint64": lambda L, d: T(L, [1], d) * 2**70,
    "masked_fill/past_uint64": lambda L, d: T(L, [1], d).masked_fill(T(L, [True], d), 2**64),
    "where/past_uint64": lambda L, d: L.where(T(L, [True], d), T(L, [1], d), -2**70),
    "alpha/past_int64": lambda L, d: L.add(T(L, [1], d), 1, alpha=2**63),
    # ---- nn modules: PyTorch's messages
    "BatchNorm2d/channels_wrong": lambda L, d: L.nn.BatchNorm2d(3).to(d)(X(L, (2, 4, 5, 5), d)),
    "batch_norm/weight_wrong": lambda L, d: F(L).batch_norm(X(L, (2, 4, 3), d), None, None, L.ones(3, device=d),
                                                            training=True),
    "BatchNorm1d/one_per_channel": lambda L, d: L.nn.BatchNorm1d(3).to(d)(X(L, (1, 3), d)),
    "GroupNorm/one_per_group": lambda L, d: F(L).group_norm(X(L, (1, 2, 1), d), 2),
    "Embedding/float_index": lambda L, d: L.nn.Embedding(5, 3).to(d)(T(L, [1.0], d)),
    "Embedding/bool_index": lambda L, d: L.nn.Embedding(5, 3).to(d)(T(L, [True], d)),
    "ConvTranspose2d/output_size_tuple": lambda L, d: L.nn.ConvTranspose2d(2, 3, 3, stride=2).to(d)(
        X(L, (1, 2, 4, 4), d), output_size=(20, 20)),
    "linear/0dim_input": lambda L, d: F(L).linear(L.tensor(1.0, device=d), L.ones(4, 3, device=d)),
    # ---- recurrent layers: an ignored third LSTM state; the cells' own checks (the GEMMs named themselves)
    "LSTM/three_states": lambda L, d: L.nn.LSTM(3, 4).to(d)(X(L, (5, 2, 3), d), (X(L, (1, 2, 4), d),) * 3),
    "GRUCell/hidden_size_wrong": lambda L, d: L.nn.GRUCell(3, 4).to(d)(X(L, (2, 3), d), X(L, (2, 3), d)),
    "LSTMCell/hidden_batch_wrong": lambda L, d: L.nn.LSTMCell(3, 4).to(d)(X(L, (2, 3), d),
                                                                          (X(L, (3, 4), d), X(L, (3, 4), d))),
    "LSTMCell/cell_size_wrong": lambda L, d: L.nn.LSTMCell(3, 4).to(d)(X(L, (2, 3), d),
                                                                       (X(L, (2, 4), d), X(L, (2, 5), d))),
    "RNNCell/input_size_wrong": lambda L, d: L.nn.RNNCell(3, 4).to(d)(X(L, (2, 5), d)),
    # ---- Module.to takes complex dtypes, as PyTorch
    "Module.to/complex": lambda L, d: _seeded(L, L.nn.Linear(2, 3), d).to(L.complex64)(
        X(L, (1, 2), d, "complex64")),
    "Module.to/int": lambda L, d: L.nn.Linear(2, 3).to(L.int64),
    # ---- sizes: PyTorch's parser messages, and a one-element integer tensor as a size
    "zeros/size_float": lambda L, d: L.zeros(1.5, device=d),
    "zeros/size_element_str": lambda L, d: L.zeros((1, "a"), device=d),
    "empty/size_float_tensor": lambda L, d: L.empty(T(L, [1.5], d), device=d),
    "zeros/size_int_tensor": lambda L, d: L.zeros(T(L, [2], d), device=d),
    "zeros/size_0dim_int_tensor": lambda L, d: L.zeros(T(L, 2, d), device=d),
}

# Cases where PyTorch's CPU and CUDA differ and the oracle runs on the CPU.
CPU_ONLY = set()


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_matches_pytorch(name, device):
    if name in CPU_ONLY and device != "cpu":
        pytest.skip("PyTorch checks this on the CPU only")
    case = CASES[name]
    kind, expected = _outcome(case, torch, "cpu")
    got_kind, got = _outcome(case, tandem, device)
    if kind == "error":
        assert got_kind == "error", f"PyTorch raises {type(expected).__name__}: {expected}; tandem returned {got!r}"
        assert type(got).__name__ == type(expected).__name__ or isinstance(got, type(expected)), (got, expected)
        assert _first_line(got) == _first_line(expected)
    else:
        assert got_kind == "value", f"PyTorch returns {expected!r}; tandem raised {got!r}"
        assert_same_result(got, expected, exact=False)
