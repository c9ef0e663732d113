"""tandem.utils.flop_counter.FlopCounterMode against PyTorch's: the same totals and per-op counts (PyTorch's op
names) for products, convolutions, attention and einsum, forward and backward, per-module counts, and the table."""
import contextlib
import io
import warnings

import pytest

import tandem

torch = pytest.importorskip("torch")
import torch.utils.flop_counter  # noqa: E402  (PyTorch imports it lazily)


def counted(lib, build, backward=False):
    """Global per-op counts (op names as text) of build() run inside the counter, seeded the same way."""
    counter_type = lib.utils.flop_counter.FlopCounterMode
    lib.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with counter_type(display=False) as counter:
            out = build(lib)
            if backward:
                (out[0] if isinstance(out, tuple) else out).sum().backward()
    counts = counter.get_flop_counts().get("Global", {})
    assert counter.get_total_flops() == sum(counts.values())
    return sorted((str(op), n) for op, n in counts.items())


def r(lib, *shape, grad=False):
    return lib.randn(*shape, requires_grad=grad)


CASES = {
    "linear 3-D with bias": lambda t: t.nn.functional.linear(r(t, 2, 3, 4), r(t, 5, 4), r(t, 5)),
    "linear without bias": lambda t: t.nn.functional.linear(r(t, 2, 3, 4), r(t, 5, 4)),
    "3-D @ 2-D": lambda t: r(t, 2, 3, 4) @ r(t, 4, 5),
    "2-D @ 3-D": lambda t: r(t, 3, 4) @ r(t, 2, 4, 5),
    "broadcast batch": lambda t: r(t, 2, 1, 3, 4) @ r(t, 1, 2, 4, 5),
    "mv, dot, vm": lambda t: (r(t, 3, 4) @ r(t, 4), r(t, 4) @ r(t, 4), r(t, 4) @ r(t, 4, 5)),
    "mm, bmm, addmm, baddbmm": lambda t: (t.mm(r(t, 2, 3), r(t, 3, 4)), t.bmm(r(t, 2, 3, 4), r(t, 2, 4, 5)),
                                           t.addmm(r(t, 3, 5), r(t, 3, 4), r(t, 4, 5)),
                                           t.baddbmm(r(t, 2, 3, 5), r(t, 2, 3, 4), r(t, 2, 4, 5)),
                                           r(t, 2, 3).mm(r(t, 3, 4))),
    "conv1d groups stride": lambda t: t.nn.functional.conv1d(r(t, 2, 4, 10), r(t, 6, 2, 3), groups=2, stride=2,
                                                            padding=1),
    "conv2d same": lambda t: t.nn.functional.conv2d(r(t, 2, 3, 10, 10), r(t, 4, 3, 3, 3), r(t, 4), padding="same"),
    "conv3d dilation": lambda t: t.nn.functional.conv3d(r(t, 1, 2, 5, 5, 5), r(t, 3, 2, 2, 2, 2), dilation=2),
    "conv_transpose2d": lambda t: t.nn.functional.conv_transpose2d(r(t, 2, 4, 5, 5), r(t, 4, 3, 3, 3), stride=2),
    "einsum chain": lambda t: t.einsum("ij,jk,kl->il", r(t, 2, 3), r(t, 3, 4), r(t, 4, 5)),
    "einsum batched": lambda t: t.einsum("bij,bjk->bik", r(t, 2, 3, 4), r(t, 2, 4, 5)),
    "sdpa fused": lambda t: t.nn.functional.scaled_dot_product_attention(r(t, 1, 2, 3, 4), r(t, 1, 2, 5, 4),
                                                                         r(t, 1, 2, 5, 4)),
    "sdpa math (head sizes differ)": lambda t: t.nn.functional.scaled_dot_product_attention(
        r(t, 1, 2, 3, 4), r(t, 1, 2, 5, 4), r(t, 1, 2, 5, 6)),
    "sdpa math (dropout)": lambda t: t.nn.functional.scaled_dot_product_attention(
        r(t, 1, 2, 3, 4), r(t, 1, 2, 5, 4), r(t, 1, 2, 5, 4), dropout_p=0.5),
    "MultiheadAttention": lambda t: t.nn.MultiheadAttention(8, 2)(r(t, 3, 1, 8), r(t, 3, 1, 8), r(t, 3, 1, 8)),
    "cells": lambda t: (t.nn.LSTMCell(4, 3)(r(t, 2, 4)), t.nn.GRUCell(4, 3)(r(t, 2, 4)),
                        t.nn.RNNCell(4, 3)(r(t, 2, 4))),
    "RNN and GRU": lambda t: (t.nn.RNN(4, 3)(r(t, 5, 2, 4)), t.nn.GRU(4, 3, num_layers=2)(r(t, 5, 2, 4))),
    "LSTM with projection": lambda t: t.nn.LSTM(4, 3, proj_size=2)(r(t, 5, 2, 4)),
    "LSTM packed": lambda t: t.nn.LSTM(4, 3, bidirectional=True)(
        t.nn.utils.rnn.pack_padded_sequence(r(t, 5, 2, 4), [5, 3])),
    "bilinear, tensordot, multi_dot": lambda t: (
        t.nn.functional.bilinear(r(t, 2, 3), r(t, 2, 4), r(t, 5, 3, 4)),
        t.tensordot(r(t, 2, 3, 4), r(t, 4, 3, 5), dims=([1, 2], [1, 0])),
        t.linalg.multi_dot([r(t, 2, 3), r(t, 3, 4), r(t, 4, 5)])),
}


@pytest.mark.parametrize("name", CASES)
def test_forward_counts_match_pytorch(name):
    assert counted(tandem, CASES[name]) == counted(torch, CASES[name])


BACKWARD_CASES = {
    "conv1d, both gradients": lambda t: t.nn.functional.conv1d(r(t, 2, 4, 10, grad=True), r(t, 6, 2, 3, grad=True),
                                                               groups=2),
    "conv1d, weight gradient only": lambda t: t.nn.functional.conv1d(r(t, 2, 4, 10), r(t, 6, 2, 3, grad=True),
                                                                     groups=2),
    "conv_transpose2d": lambda t: t.nn.functional.conv_transpose2d(r(t, 2, 4, 5, 5, grad=True),
                                                                   r(t, 4, 3, 3, 3, grad=True), stride=2),
    "mm, first operand only": lambda t: r(t, 3, 4, grad=True) @ r(t, 4, 5),
    "linear": lambda t: t.nn.functional.linear(r(t, 2, 3, 4, grad=True), r(t, 5, 4, grad=True), r(t, 5, grad=True)),
    "bmm": lambda t: t.bmm(r(t, 2, 3, 4, grad=True), r(t, 2, 4, 5, grad=True)),
    "sdpa fused": lambda t: t.nn.functional.scaled_dot_product_attention(
        r(t, 1, 2, 3, 4, grad=True), r(t, 1, 2, 5, 4), r(t, 1, 2, 5, 4)),
    "sdpa math, query only": lambda t: t.nn.functional.scaled_dot_product_attention(
        r(t, 1, 2, 3, 4, grad=True), r(t, 1, 2, 5, 4), r(t, 1, 2, 5, 6)),
    "sdpa math, all": lambda t: t.nn.functional.scaled_dot_product_attention(
        r(t, 1, 2, 3, 4, grad=True), r(t, 1, 2, 5, 4, grad=True), r(t, 1, 2, 5, 6, grad=True)),
    "transformer encoder": lambda t: t.nn.TransformerEncoder(
        t.nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0), 2)(r(t, 10, 3, 32)),
    "small CNN": lambda t: t.nn.functional.cross_entropy(t.nn.Sequential(
        t.nn.Conv2d(1, 8, 3, padding=1), t.nn.ReLU(), t.nn.MaxPool2d(2), t.nn.Conv2d(8, 16, 3, stride=2),
        t.nn.Flatten(), t.nn.Linear(16 * 3 * 3, 10))(r(t, 4, 1, 14, 14)), t.tensor([1, 2, 3, 4])),
}


@pytest.mark.parametrize("name", BACKWARD_CASES)
def test_forward_and_backward_counts_match_pytorch(name):
    assert counted(tandem, BACKWARD_CASES[name], backward=True) == \
        counted(torch, BACKWARD_CASES[name], backward=True)


def test_plain_lstm_counts_its_products():
    # PyTorch's CPU LSTM without projection on a padded input is one fused op it has no formula for (0 flops);
    # tandem counts the products its step-by-step path runs, the figure PyTorch gives for a packed input.
    assert counted(torch, lambda t: t.nn.LSTM(4, 3)(r(t, 5, 2, 4))) == []
    rows, gates = 5 * 2, 4 * 3
    assert counted(tandem, lambda t: t.nn.LSTM(4, 3)(r(t, 5, 2, 4))) == [("aten.addmm", rows * 2 * (4 + 3) * gates)]


def test_per_module_counts_match_pytorch():
    def run(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1, self.fc2, self.conv = lib.nn.Linear(8, 16), lib.nn.Linear(16, 4), lib.nn.Conv2d(3, 4, 3)

            def forward(self, x, img):
                return self.fc2(lib.relu(self.fc1(x))).sum() + self.conv(img).sum()

        with lib.utils.flop_counter.FlopCounterMode(display=False) as counter:
            Net()(lib.randn(5, 8), lib.randn(2, 3, 10, 10))
        return {module: sorted((str(op), n) for op, n in counts.items())
                for module, counts in counter.get_flop_counts().items()}

    ours = run(tandem)
    assert ours == run(torch)
    assert list(ours) == ["Global", "Net", "Net.fc1", "Net.fc2", "Net.conv"]


def test_table_and_arguments():
    model = tandem.nn.Sequential(tandem.nn.Conv2d(1, 8, 3), tandem.nn.Flatten(), tandem.nn.Linear(8 * 12 * 12, 10))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        with tandem.utils.flop_counter.FlopCounterMode(depth=1) as counter:
            model(tandem.randn(2, 1, 14, 14))
    lines = printed.getvalue().splitlines()
    assert lines[0].split() == ["Module", "FLOP", "%", "Total"]
    assert lines[2].split() == ["Global", "87.552K", "100.00%"]
    assert lines[3].split() == ["-", "aten.convolution", "41.472K", "47.37%"]
    assert lines[5].split() == ["Sequential", "87.552K", "100.00%"]
    assert not any("Sequential.0" in line for line in lines)  # deeper than depth=1
    assert counter.get_total_flops() == 41472 + 2 * 2 * 1152 * 10
    assert "Sequential.0" in counter.get_table(depth=2)
    with pytest.warns(UserWarning, match="mods argument is not needed anymore"):
        tandem.utils.flop_counter.FlopCounterMode(model, display=False)
    with pytest.raises(NotImplementedError, match="custom_mapping"):
        tandem.utils.flop_counter.FlopCounterMode(custom_mapping={"x": None})
    assert tandem.utils.flop_counter.FlopCounterMode(display=False).get_total_flops() == 0


def test_backward_outside_the_counter_is_not_counted():
    x = tandem.randn(3, 4, requires_grad=True)
    with tandem.utils.flop_counter.FlopCounterMode(display=False) as counter:
        y = (x @ tandem.randn(4, 5)).sum()
    y.backward()
    assert counter.get_total_flops() == 2 * 3 * 4 * 5


def test_a_failing_call_inside_the_counter_raises_and_counts_nothing():
    with tandem.utils.flop_counter.FlopCounterMode(display=False) as counter:
        with pytest.raises(RuntimeError):
            tandem.mm(tandem.randn(2, 3), tandem.randn(4, 5))
        tandem.mm(tandem.randn(2, 3), tandem.randn(3, 4))
    assert counter.get_flop_counts() == {"Global": {tandem.ops.aten.mm: 2 * 2 * 3 * 4}}
