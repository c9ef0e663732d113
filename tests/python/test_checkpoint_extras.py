"""utils.checkpoint beyond checkpoint()/checkpoint_sequential (those are in test_runtime_modules.py), against
PyTorch: CheckpointFunction (the reentrant Function), the decorator form, the determinism check and
CheckpointError, debug / early-stop switches, get_device_states / set_device_states / DefaultDeviceType, and the
selective-checkpointing API (its classes, its argument errors, and tandem's NotImplementedError)."""
import functools
import warnings

import numpy as np
import pytest
import torch

import tandem

LIBS = [torch, tandem]


def _np(t):
    return t.detach().cpu().numpy()


def _dev(m, device):
    return device if m is tandem else "cpu"  # PyTorch here runs on the CPU only


def _segment(m):
    def f(a, w):
        return (a.sin() * w).exp().sum(dim=1), (a * w).tanh()
    return f


def _inputs(m, device):
    a = m.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=m.float64, device=_dev(m, device),
                 requires_grad=True)
    w = m.tensor([0.3, -0.2, 0.7], dtype=m.float64, device=_dev(m, device), requires_grad=True)
    return a, w


def _values_and_grads(m, device, run):
    a, w = _inputs(m, device)
    s, t = run(m, a, w)
    (s.pow(2).sum() + (t * 3).sum()).backward()
    return [_np(v) for v in (s, t, a.grad, w.grad)], (s, t)


def _assert_same(got, want):
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


# ---- CheckpointFunction ----

def test_checkpoint_function_matches_pytorch(device):
    results = []
    for m in LIBS:
        values, (s, t) = _values_and_grads(
            m, device, lambda m, a, w: m.utils.checkpoint.CheckpointFunction.apply(_segment(m), True, a, w))
        assert s.grad_fn.name() == "CheckpointFunctionBackward"
        assert s.device.type == _dev(m, device).split(":")[0]
        results.append(values)
    _assert_same(results[1], results[0])
    plain, _ = _values_and_grads(tandem, device, lambda m, a, w: _segment(m)(a, w))
    _assert_same(results[1], plain)


def test_reentrant_checkpoint_is_checkpoint_function(device):
    for m in LIBS:
        a, w = _inputs(m, device)
        s, _ = m.utils.checkpoint.checkpoint(_segment(m), a, w, use_reentrant=True)
        assert s.grad_fn.name() == "CheckpointFunctionBackward"


def test_checkpoint_function_warnings_and_errors_match_pytorch():
    for m in LIBS:
        ck = m.utils.checkpoint
        # The validity warning comes from forward, so also under no_grad.
        for grad_mode in (m.enable_grad, m.no_grad):
            with grad_mode(), pytest.warns(UserWarning) as record:
                out = ck.CheckpointFunction.apply(lambda v: v * 2, False, m.ones(2))
            assert [str(r.message) for r in record] == [
                "None of the inputs have requires_grad=True. Gradients will be None"]
            assert out.tolist() == [2.0, 2.0]
        x = m.ones(3, requires_grad=True)
        out = ck.CheckpointFunction.apply(lambda v: v.detach() * 2, True, x)
        with pytest.raises(RuntimeError) as err:
            out.sum().backward()
        assert str(err.value) == "none of output has requires_grad=True, this checkpoint() is not necessary"


# ---- the decorator form ----

def test_checkpoint_without_a_function_is_a_decorator(device):
    results = []
    for m in LIBS:
        decorate = m.utils.checkpoint.checkpoint(use_reentrant=False, preserve_rng_state=False)
        wrapped = decorate(_segment(m))
        assert wrapped.__name__ == "f" and wrapped.__wrapped__.__name__ == "f"
        values, _ = _values_and_grads(m, device, lambda m, a, w: wrapped(a, w=w))
        results.append(values)
    _assert_same(results[1], results[0])


def test_checkpoint_decorator_on_a_method(device):
    grads = []
    for m in LIBS:
        class Block(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = m.nn.Linear(3, 2, dtype=m.float64)

            @m.utils.checkpoint.checkpoint(use_reentrant=False)
            def forward(self, v, scale=1.0):
                return self.lin(v).tanh() * scale

        block = Block().to(_dev(m, device))
        with m.no_grad():
            block.lin.weight.copy_(m.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]], dtype=m.float64))
            block.lin.bias.copy_(m.tensor([0.05, -0.05], dtype=m.float64))
        a, _ = _inputs(m, device)
        out = block(a, scale=2.0)
        out.pow(2).sum().backward()
        grads.append([_np(out), _np(a.grad), _np(block.lin.weight.grad), _np(block.lin.bias.grad)])
    _assert_same(grads[1], grads[0])


def test_checkpoint_decorator_errors_and_warnings_match_pytorch():
    for m in LIBS:
        ck = m.utils.checkpoint
        with pytest.raises(ValueError) as err:
            ck.checkpoint(use_reentrant=False, scale=2.0)
        assert str(err.value) == "Unexpected keyword arguments: scale"
        wrapped = ck.checkpoint()(lambda v: v * 2)
        with pytest.warns(UserWarning, match="^torch.utils.checkpoint: the use_reentrant parameter should be "
                                             "passed explicitly.") as record:
            wrapped(m.ones(2, requires_grad=True))
        assert record[0].filename == __file__  # reported at the caller, as PyTorch's


# ---- the determinism check ----

def _changing_segment(outputs):
    """A function whose result changes between the forward and the recompute: outputs[i] on call i."""
    calls = []

    def f(a):
        calls.append(None)
        return outputs[len(calls) - 1](a)
    return f


def test_determinism_check_metadata_mismatch_raises_checkpoint_error(device):
    f = _changing_segment([lambda a: a[:2] * 2, lambda a: (a[:3] * 2).float()])
    x = tandem.ones(4, dtype=tandem.float64, device=device, requires_grad=True)
    out = tandem.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
    with pytest.raises(tandem.utils.checkpoint.CheckpointError) as err:
        out.sum().backward()
    assert isinstance(err.value, RuntimeError)
    dev = repr(tandem.device(device))
    assert str(err.value) == (
        "torch.utils.checkpoint: Recomputed values for the following tensors have different metadata than during "
        "the forward pass.\n"
        "tensor at position 0:\n"
        f"saved metadata: {{'shape': tandem.Size([2]), 'dtype': tandem.float64, 'device': {dev}}}\n"
        f"recomputed metadata: {{'shape': tandem.Size([3]), 'dtype': tandem.float32, 'device': {dev}}}\n"
        ".\n"
        "hint: tandem compares the checkpointed function's tensor outputs (position: the output's index); make the "
        "function's shapes, dtypes and devices the same on every call, or pass determinism_check=\"none\"")


def test_debug_adds_the_operator_logs_to_a_checkpoint_error(device):
    def failing_backward(ck):
        f = _changing_segment([lambda a: a.sin()[:2], lambda a: a.sin().exp()[:3]])
        out = ck.checkpoint(f, tandem.ones(4, device=device, requires_grad=True), use_reentrant=False, debug=True)
        with pytest.raises(ck.CheckpointError) as err:
            out.sum().backward()
        return str(err.value)

    ck = tandem.utils.checkpoint
    message = failing_backward(ck)
    assert message.startswith("torch.utils.checkpoint: Recomputed values for the following tensors have different "
                              "metadata than during the forward pass.\n")
    error, logs = message.split("\n\nOperations executed during the original forward:\n\n")
    forward_log, recompute_log = logs.split("\n\nOperations executed during recomputation:\n\n")
    assert error.endswith('determinism_check="none"')
    interesting = {"aten::sin", "aten::exp", "aten::slice"}
    assert [op for op in forward_log.split("\n") if op in interesting] == ["aten::sin", "aten::slice"]
    assert [op for op in recompute_log.split("\n") if op in interesting] == ["aten::sin", "aten::exp", "aten::slice"]
    with tandem.autograd.profiler.profile():  # only one profile records at a time: the user's keeps running
        message = failing_backward(ck)
    assert "Operations executed during the original forward:\n\n(not recorded: another profile was running)" in message
    with ck.set_checkpoint_debug_enabled(False):
        assert "Operations executed" not in failing_backward(ck)
    # The recording contexts can be entered by each backward of a retained graph.
    x = tandem.ones(3, device=device, requires_grad=True)
    out = ck.checkpoint(lambda a: a.sin() * 2, x, use_reentrant=False, debug=True)
    out.sum().backward(retain_graph=True)
    out.sum().backward()
    np.testing.assert_allclose(_np(x.grad), [4 * np.cos(1.0)] * 3, rtol=1e-6)


def test_determinism_check_count_mismatch_and_opt_out(device):
    f = _changing_segment([lambda a: a * 2, lambda a: (a * 2, a * 3)])
    x = tandem.ones(4, device=device, requires_grad=True)
    out = tandem.utils.checkpoint.checkpoint(f, x, use_reentrant=False)
    with pytest.raises(tandem.utils.checkpoint.CheckpointError) as err:
        out.sum().backward()
    assert str(err.value).startswith(
        "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
        "recomputation.\nNumber of tensors saved during forward: 1\nNumber of tensors saved during "
        "recomputation: 2.\nhint: ")
    # Values may differ between the calls (only metadata is checked): the gradient is the recompute's.
    f = _changing_segment([lambda a: a * 2, lambda a: a * 5])
    for check in ("default", "none"):
        f = _changing_segment([lambda a: a * 2, lambda a: a * 5])
        x = tandem.ones(4, device=device, requires_grad=True)
        out = tandem.utils.checkpoint.checkpoint(f, x, use_reentrant=False, determinism_check=check)
        assert out.tolist() == [2.0] * 4
        out.sum().backward()
        assert x.grad.tolist() == [5.0] * 4


def test_checkpoint_option_errors_match_pytorch():
    for m in LIBS:
        ck = m.utils.checkpoint
        x = m.ones(2, requires_grad=True)

        def f(v):
            return v * 2

        with pytest.raises(ValueError) as err:
            ck.checkpoint(f, x, use_reentrant=False, determinism_check="values")
        assert str(err.value) == "determinism_check should be one of ['default', 'none'], but got values"
        # The reentrant variant never checks, so it does not look at the option.
        assert ck.checkpoint(f, x, use_reentrant=True, determinism_check="values").tolist() == [2.0, 2.0]
        with pytest.raises(ValueError) as err:
            ck.checkpoint(f, x, use_reentrant=False, debug=True, context_fn=lambda: ck.noop_context_fn())
        assert str(err.value) == "debug=True is incompatible with non-default context_fn"
        with ck.set_checkpoint_debug_enabled(True):
            with pytest.raises(ValueError, match="^debug=True is incompatible with non-default context_fn$"):
                ck.checkpoint(f, x, use_reentrant=False, context_fn=lambda: ck.noop_context_fn())
            with ck.set_checkpoint_debug_enabled(None):  # defer to the call's own debug
                ck.checkpoint(f, x, use_reentrant=False, context_fn=lambda: ck.noop_context_fn())
        with ck.set_checkpoint_debug_enabled(False):
            out = ck.checkpoint(f, x, use_reentrant=False, debug=True, context_fn=lambda: ck.noop_context_fn())
        assert out.tolist() == [2.0, 2.0]
        with pytest.raises(ValueError) as err:
            ck.checkpoint(f, x, use_reentrant=True, debug=True)
        assert str(err.value) == ("Passing `context_fn`, `debug`, or `respect_saved_tensors_hooks` is only "
                                  "supported when use_reentrant=False.")


def test_debug_and_early_stop_switches_keep_the_gradients(device):
    results = []
    for m in LIBS:
        ck = m.utils.checkpoint

        def run(m, a, w):
            with ck.set_checkpoint_early_stop(False):
                return ck.checkpoint(_segment(m), a, w, use_reentrant=False, debug=True, early_stop=False)

        values, _ = _values_and_grads(m, device, run)
        results.append(values)
    _assert_same(results[1], results[0])


# ---- device states ----

def test_device_states_of_cpu_tensors_are_empty_as_pytorchs():
    for m in LIBS:
        ck = m.utils.checkpoint
        assert ck.get_device_states(m.ones(2), [m.zeros(1)], {"k": 3}) == ([], [])
        ck.set_device_states([], [])  # nothing to set


def test_device_states_round_trip_on_cuda():
    if not tandem.cuda.is_available():
        pytest.skip("needs a CUDA device (real or emulated)")
    ck = tandem.utils.checkpoint
    last = tandem.cuda.device_count() - 1
    a = tandem.ones(2, device=f"cuda:{last}")
    ids, states = ck.get_device_states(a, [tandem.ones(1, device="cuda:0"), a], 1.5)
    assert ids == [last, 0, last]  # one entry per tensor, as PyTorch's
    for i, state in zip(ids, states):
        assert tandem.equal(state, tandem.cuda.get_rng_state(i))
    first = [tandem.rand(3, device=f"cuda:{i}") for i in (0, last)]
    ck.set_device_states(ids, states, device_type="cuda")
    again = [tandem.rand(3, device=f"cuda:{i}") for i in (0, last)]
    assert all(tandem.equal(p, q) for p, q in zip(first, again))
    ck.set_device_states(ids[:1], states[:1])  # the default device type is cuda here
    assert tandem.equal(tandem.rand(3, device=f"cuda:{last}"), first[1])


def test_default_device_type():
    for m in LIBS:
        cls = m.utils.checkpoint.DefaultDeviceType
        saved = cls._default_device_type
        try:
            cls._default_device_type = None
            assert cls.get_device_type() == ("cuda" if m.cuda.is_available() else "cpu")
            cls.set_device_type("cpu")
            assert cls.get_device_type() == "cpu"
            cls.set_device_type()
            assert cls.get_device_type() == "cuda"
        finally:
            cls._default_device_type = saved


# ---- selective activation checkpointing ----

def test_checkpoint_policy_and_context_match_pytorch():
    names = [[(p.name, p.value) for p in m.utils.checkpoint.CheckpointPolicy] for m in LIBS]
    assert names[1] == names[0]
    for m in LIBS:
        ck = m.utils.checkpoint
        ctx = ck.SelectiveCheckpointContext(is_recompute=False)
        assert (ctx.is_recompute, ctx.op_output) == (False, None)
        assert ck.SelectiveCheckpointContext(is_recompute=True, op_output=3).op_output == 3
        with pytest.raises(TypeError):
            ck.SelectiveCheckpointContext(False)


def test_selective_checkpoint_argument_errors_match_pytorch():
    for m in LIBS:
        ck = m.utils.checkpoint
        with pytest.raises(TypeError) as err:
            ck.create_selective_checkpoint_contexts(3)
        assert str(err.value) == "policy_fn_or_list must be either a function or a list of ops."
        for op in (3, "mm"):
            with pytest.raises(ValueError) as err:
                ck.create_selective_checkpoint_contexts([op])
            assert str(err.value) == (f"Expected op in `op_list` to be an OpOverload but got: {op} of type "
                                      f"{type(op)}. ")


def test_selective_checkpoint_is_refused_with_the_gap_named():
    ck = tandem.utils.checkpoint
    message = ("tandem.utils.checkpoint.create_selective_checkpoint_contexts: selective activation checkpointing "
               "needs a per-op dispatch hook (PyTorch's TorchDispatchMode) to save or recompute each op's output, "
               "and tandem has none\nhint: checkpoint(fn, ..., use_reentrant=False) without context_fn recomputes "
               "every op (the policy PREFER_RECOMPUTE for all); to keep an op's output, compute it outside the "
               "checkpointed function and pass it in")

    def policy(ctx, op, *args, **kwargs):
        return ck.CheckpointPolicy.PREFER_RECOMPUTE

    with pytest.raises(NotImplementedError) as err:
        ck.create_selective_checkpoint_contexts(policy)
    assert str(err.value) == message
    x = tandem.ones(2, requires_grad=True)
    with pytest.raises(NotImplementedError, match="^tandem.utils.checkpoint.create_selective_checkpoint_contexts"):
        ck.checkpoint(lambda v: v.sin(), x, use_reentrant=False,
                      context_fn=functools.partial(ck.create_selective_checkpoint_contexts, policy))


def test_module_lists_pytorchs_names():
    missing = set(torch.utils.checkpoint.__all__) - set(tandem.utils.checkpoint.__all__)
    assert missing == {"SAC_IGNORED_OPS", "GraphExecGroup"}  # torch ops / compile-side grouping (docs/compat.md)
    for name in tandem.utils.checkpoint.__all__:
        assert hasattr(tandem.utils.checkpoint, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert issubclass(tandem.utils.checkpoint.CheckpointError, RuntimeError)
