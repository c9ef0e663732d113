"""The grad_fn names of RNN / LSTM / GRU outputs and final states against PyTorch's native implementation (oneDNN
off: with it PyTorch's CPU LSTM output is a MkldnnRnnLayerBackward0 node, with cuDNN a CudnnRnnBackward0 one), on
every device: the output is a stack of the steps (StackBackward0), the directions' concatenation when
bidirectional (CatBackward0), PackedSequence data the steps' rows (CatBackward0); final states are stacks."""
import pytest
import torch

import tandem

# PyTorch's note about oneDNN on Intel GPUs, given when the test turns oneDNN off for the oracle.
pytestmark = pytest.mark.filterwarnings("ignore:TF32 acceleration on top of oneDNN:UserWarning")

X = [[[0.5, -1.0, 2.0]] * 2] * 4  # (L=4, N=2, F=3)

CONFIGS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("RNN", {"bidirectional": True}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"batch_first": True}),
    ("LSTM", {"proj_size": 2}), ("LSTM", {"bidirectional": True, "batch_first": True}),
    ("GRU", {}), ("GRU", {"num_layers": 2}), ("GRU", {"bidirectional": True, "bias": False}),
]


def names(output, state):
    """grad_fn names of the output and of each final state."""
    states = state if isinstance(state, tuple) else (state,)
    data = output.data if hasattr(output, "batch_sizes") else output
    return [t.grad_fn.name() for t in (data, *states)]


def run(lib, device, cls, kwargs, form):
    torch.manual_seed(0)
    module = getattr(lib.nn, cls)(3, 5, **kwargs)
    x = lib.tensor(X)
    if lib is tandem:
        module, x = module.to(device), x.to(device)
    x = INPUTS[form](lib, x.transpose(0, 1) if kwargs.get("batch_first") else x)
    return names(*module(x))


INPUTS = {
    "batched": lambda lib, x: x,
    "unbatched": lambda lib, x: x[:, 0],
    "packed": lambda lib, x: lib.nn.utils.rnn.pack_padded_sequence(x, [4, 2], enforce_sorted=False),
}


@pytest.mark.parametrize("cls,kwargs", CONFIGS, ids=lambda c: c if isinstance(c, str) else str(c))
@pytest.mark.parametrize("form", list(INPUTS))
def test_output_and_state_grad_fn_names_are_pytorchs(device, cls, kwargs, form):
    if form != "batched" and kwargs.get("batch_first"):
        pytest.skip("batch_first changes only the batched form")
    with torch.backends.mkldnn.flags(enabled=False):
        expected = run(torch, "cpu", cls, kwargs, form)
    assert run(tandem, device, cls, kwargs, form) == expected
