"""Anomaly mode (tandem.autograd.detect_anomaly / set_detect_anomaly) against PyTorch's: the NaN check's error
(type, text, node name, output index), the warning with the forward traceback that precedes any error of a node,
check_nan=False, the switches and their restoring, and a training loop run with anomaly mode on."""
import warnings

import pytest
import torch

import tandem

NAN_CASES = {
    # (x / x) at 0: the gradient of the divisor is -x/x^2 = nan (output 1 of DivBackward0)
    "div": lambda lib, x: (x / x).sum(),
    # 0 * inf reaches MulBackward0's output 0
    "mul": lambda lib, x: ((x * lib.tensor([float("inf"), 1.0, 1.0], dtype=x.dtype, device=x.device)) * 0).sum(),
    "log": lambda lib, x: (x.log() * 0).sum(),
    "sqrt": lambda lib, x: (x.sqrt() * 0).sum(),
    "pow": lambda lib, x: (x ** 0.5 * 0).sum(),
    "linear": lambda lib, x: lib.nn.functional.linear(x.view(1, 3), x.view(1, 3) / 0 * 0).sum(),
    # the classic: where() masks the value but not the gradient of log at 0 (0 / 0)
    "where_log": lambda lib, x: lib.where(x > 0, x.log(), x).sum(),
}


def run_nan_case(lib, case, device="cpu"):
    """(error message, warning messages) of a backward pass in anomaly mode."""
    x = lib.tensor([0.0, 1.0, 2.0], device=device, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            loss = case(lib, x)
            with pytest.raises(RuntimeError) as excinfo:
                loss.backward()
    return str(excinfo.value), [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


@pytest.mark.parametrize("name", list(NAN_CASES))
def test_nan_error_and_warning_match_torch(name, device):
    error, warned = run_nan_case(tandem, NAN_CASES[name], device)
    want_error, want_warned = run_nan_case(torch, NAN_CASES[name])
    assert error == want_error
    assert error.startswith("Function '") and error.endswith("th output.")
    assert warned[0] == want_warned[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime "
                                           "and should only be enabled for debugging.")
    # PyTorch's message ends with a note on where in its C++ sources the warning was issued; the rest is the same
    node = error.split("'")[1]
    head = f"Error detected in {node}. Traceback of forward call that caused the error:\n"
    assert warned[1].startswith(head) and want_warned[1].startswith(head)
    # the traceback is that of the forward call: it names this file and the case's line
    assert __file__ in warned[1] and "loss = case(lib, x)" in warned[1]
    # the frames in this file from run_nan_case on are PyTorch's (the libraries' own Python frames differ, and so
    # do the lines calling run_nan_case)
    def forward_frames(message):
        frames = message[message.index("in run_nan_case"):].split(" (Triggered internally")[0].split('  File "')
        return [f for f in frames if f.startswith(__file__) or f.startswith("in run_nan_case")]
    assert forward_frames(warned[1]) == forward_frames(want_warned[1])


def test_error_from_a_custom_function_is_preceded_by_the_warning():
    class Fails(tandem.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward failed on purpose")

    x = tandem.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tandem.autograd.detect_anomaly():
            y = Fails.apply(x).sum()  # the forward line the warning shows
            with pytest.raises(ValueError, match="^backward failed on purpose$"):
                y.backward()
    messages = [str(w.message) for w in caught]
    assert messages[1].startswith("Error detected in FailsBackward. Traceback of forward call that caused the "
                                  "error:\n")
    assert "y = Fails.apply(x).sum()  # the forward line the warning shows" in messages[1]


def test_node_created_before_anomaly_mode_has_no_traceback():
    x = tandem.zeros(2, requires_grad=True)
    loss = (x / x).sum()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tandem.autograd.set_detect_anomaly(True):
            with pytest.raises(RuntimeError,
                               match=r"^Function 'DivBackward0' returned nan values in its 1th output\.$"):
                loss.backward()
    assert [str(w.message) for w in caught] == [
        "Error detected in DivBackward0. No forward pass information available. Enable detect anomaly during "
        "forward pass for more information."]


@pytest.mark.parametrize("lib", [tandem, torch])
def test_check_nan_false_lets_nan_through(lib, device):
    if lib is torch:
        device = "cpu"
    x = lib.tensor([0.0, 1.0], device=device, requires_grad=True)
    with lib.autograd.set_detect_anomaly(True, check_nan=False):
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
        (x / x).sum().backward()
    assert x.grad.isnan().tolist() == [True, False]
    assert not lib.is_anomaly_enabled() and lib.is_anomaly_check_nan_enabled()


def test_off_by_default_and_nan_passes_silently(device):
    assert not tandem.is_anomaly_enabled() and not tandem.autograd.is_anomaly_enabled()
    x = tandem.tensor([0.0, 1.0], device=device, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (x / x).sum().backward()
    assert x.grad.isnan().tolist() == [True, False]


@pytest.mark.parametrize("lib", [tandem, torch])
def test_switches_set_and_restore(lib):
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
    lib.autograd.set_detect_anomaly(True)
    assert lib.is_anomaly_enabled()
    with lib.autograd.set_detect_anomaly(False):
        assert not lib.is_anomaly_enabled()
    assert lib.is_anomaly_enabled()
    lib.autograd.set_detect_anomaly(False)
    with pytest.warns(UserWarning, match="^Anomaly Detection has been enabled"):
        manager = lib.autograd.detect_anomaly(check_nan=False)
    assert not lib.is_anomaly_enabled()  # only entering the block turns it on
    with manager:
        assert lib.is_anomaly_enabled() and not lib.is_anomaly_check_nan_enabled()
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
    lib.set_anomaly_enabled(True, False)
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (True, False)
    lib.set_anomaly_enabled(False)
    assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)


def train(lib, steps=5):
    """A small regression training loop with anomaly mode on; returns the losses and the final weights."""
    lib.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    data = lib.tensor(torch.randn(16, 4, generator=g).tolist())
    target = lib.tensor(torch.randn(16, 1, generator=g).tolist())
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.tensor(torch.randn(tuple(p.shape), generator=g).tolist()) * 0.3)
    opt = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly():
            for _ in range(steps):
                opt.zero_grad()
                loss = lib.nn.functional.mse_loss(model(data), target)
                loss.backward()
                opt.step()
                losses.append(loss.item())
    return losses, [p.detach() for p in model.parameters()]


def test_training_loop_with_anomaly_mode_matches_torch():
    losses, weights = train(tandem)
    want_losses, want_weights = train(torch)
    assert losses == pytest.approx(want_losses, rel=1e-5)
    for w, v in zip(weights, want_weights):
        assert w.flatten().tolist() == pytest.approx(v.flatten().tolist(), rel=1e-4, abs=1e-6)


def test_double_backward_in_anomaly_mode():
    x = tandem.tensor([0.5, 2.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with tandem.autograd.detect_anomaly():
            (g,) = tandem.autograd.grad((x ** 3).sum(), x, create_graph=True)
            (gg,) = tandem.autograd.grad(g.sum(), x)
    assert gg.tolist() == pytest.approx([3.0, 12.0])
