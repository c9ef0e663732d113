"""Module hooks and the state-dict machinery, run the same way on tandem and on PyTorch (the oracle): forward
pre/post hooks with kwargs, prepend and always_call; full backward and backward-pre hooks; the global
register_module_* hooks; state-dict hooks, _metadata versions, extra state, overridden _load_from_state_dict;
get_parameter/get_buffer/set_submodule/to_empty."""
import warnings

import numpy as np
import pytest
import torch

import tandem

LIBS = [torch, tandem]


def _np(t):
    return None if t is None else t.detach().cpu().numpy()


def _linear(m, device="cpu"):
    lin = m.nn.Linear(3, 2).to(device)
    with m.no_grad():
        lin.weight.copy_(m.tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10))
        lin.bias.copy_(m.tensor([0.5, -0.5]))
    return lin


def _run_backward_hooks(m, device, input_requires_grad=True, replace=False):
    lin = _linear(m, device)
    seen = []

    def pre(mod, grad_output):
        seen.append(("pre", [_np(g) for g in grad_output]))
        return (grad_output[0] * 2,) if replace else None

    def hook(mod, grad_input, grad_output):
        seen.append(("full", [_np(g) for g in grad_input], [_np(g) for g in grad_output]))
        return tuple(None if g is None else g * 3 for g in grad_input) if replace else None

    lin.register_full_backward_pre_hook(pre)
    lin.register_full_backward_hook(hook)
    x = m.tensor(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], dtype=np.float32), device=device,
                 requires_grad=input_requires_grad)
    (lin(x) * m.tensor([1.0, -2.0], device=device)).sum().backward()
    return seen, _np(x.grad), _np(lin.weight.grad)


@pytest.mark.parametrize("input_requires_grad", [True, False])
@pytest.mark.parametrize("replace", [False, True])
def test_full_backward_hooks_match_pytorch(device, input_requires_grad, replace):
    if replace and not input_requires_grad:
        pytest.skip("PyTorch requires None from a hook whose module has no input requiring grad")
    ref = _run_backward_hooks(torch, "cpu", input_requires_grad, replace)
    got = _run_backward_hooks(tandem, device, input_requires_grad, replace)
    assert [s[0] for s in got[0]] == [s[0] for s in ref[0]]
    for g, r in zip(got[0], ref[0]):
        for ga, ra in zip(g[1:], r[1:]):
            assert len(ga) == len(ra)
            for a, b in zip(ga, ra):
                assert (a is None) == (b is None)
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=1e-6)
    for a, b in zip(got[1:], ref[1:]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-6)


class _TwoInputs:
    @staticmethod
    def make(m):
        class Mod(m.nn.Module):
            def forward(self, a, scale, b):
                return a * b * scale, a - b
        return Mod()


def test_backward_hook_with_several_inputs_and_outputs():
    results = []
    for m in LIBS:
        mod = _TwoInputs.make(m)
        got = []
        mod.register_full_backward_hook(lambda mod, gi, go: got.append(([_np(g) for g in gi], [_np(g) for g in go])))
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0, -1.0])
        p, q = mod(a, 2.0, b)
        (p.sum() + 3 * q.sum()).backward()
        results.append((got, _np(a.grad)))
    (got, ga), (ref, ra) = results[1], results[0]
    np.testing.assert_allclose(ga, ra)
    assert len(got) == len(ref) == 1
    for gl, rl in zip(got[0], ref[0]):
        assert [x is None for x in gl] == [x is None for x in rl]
        for x, y in zip(gl, rl):
            if x is not None:
                np.testing.assert_allclose(x, y)


def test_backward_hook_errors():
    for m in LIBS:
        lin = m.nn.Linear(2, 2)
        lin.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
        with pytest.raises(RuntimeError, match="Backward hook returned an invalid number of grad_input, got 2, "
                                               "but expected 1"):
            lin(m.ones(1, 2, requires_grad=True)).sum().backward()
        lin = m.nn.Linear(2, 2)
        lin.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
        with pytest.raises(RuntimeError, match="Backward pre hook returned an invalid number of grad_output, got 2, "
                                               "but expected 1"):
            lin(m.ones(1, 2, requires_grad=True)).sum().backward()
        lin = m.nn.Linear(2, 2)
        lin.register_backward_hook(lambda mod, gi, go: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
            lin.register_full_backward_hook(lambda mod, gi, go: None)


def test_forward_hooks_kwargs_prepend_and_always_call():
    logs = []
    for m in LIBS:
        log = []

        class Mod(m.nn.Module):
            def forward(self, x, *, scale=1.0):
                if scale < 0:
                    raise ValueError("negative scale")
                return x * scale

        mod = Mod()
        mod.register_forward_pre_hook(lambda mod, args: log.append("pre"))
        mod.register_forward_pre_hook(lambda mod, args: log.append("pre-first"), prepend=True)
        mod.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"scale": kwargs.get("scale", 1.0) * 10}),
                                      with_kwargs=True)
        mod.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["scale"], with_kwargs=True)
        h = mod.register_forward_hook(lambda mod, args, out: log.append(("always", out is None)), always_call=True)
        log.append(float(mod(m.tensor(2.0), scale=0.5)))
        with pytest.raises(ValueError, match="negative scale"):
            mod(m.tensor(2.0), scale=-1.0)
        h.remove()
        log.append(float(mod(m.tensor(1.0))))
        logs.append(log)
    assert logs[0] == logs[1]


def test_global_module_hooks():
    from tandem.nn.modules import module as tm
    from torch.nn.modules import module as pm
    logs = []
    for m, mm in ((torch, pm), (tandem, tm)):
        log = []
        handles = [mm.register_module_forward_pre_hook(lambda mod, args: log.append(("pre", type(mod).__name__))),
                   mm.register_module_forward_hook(lambda mod, args, out: log.append(("post", type(mod).__name__))),
                   mm.register_module_full_backward_hook(
                       lambda mod, gi, go: log.append(("bwd", type(mod).__name__, tuple(go[0].shape))))]
        try:
            seq = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.ReLU())
            seq(m.ones(1, 2, requires_grad=True)).sum().backward()
        finally:
            for h in handles:
                h.remove()
        seq(m.ones(1, 2))  # removed: no more entries
        logs.append(log)
    assert logs[0] == logs[1]


def _state_dict_log(m):
    log = []
    net = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.BatchNorm1d(2))
    net.register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))
    net[0].register_state_dict_post_hook(lambda mod, sd, prefix, meta: log.append(("post", prefix, len(sd))))
    net[1].register_load_state_dict_pre_hook(
        lambda mod, sd, prefix, meta, strict, missing, unexpected, errors: log.append(
            ("load-pre", prefix, meta.get("version"))))

    def post(mod, incompatible):
        log.append(("load-post", sorted(incompatible.missing_keys), sorted(incompatible.unexpected_keys)))
        incompatible.unexpected_keys.clear()  # post hooks may forgive keys in place

    net.register_load_state_dict_post_hook(post)
    sd = net.state_dict()
    log.append(sorted(sd._metadata.items()))
    sd["extra.weight"] = m.zeros(1)
    net.load_state_dict(sd)  # strict, but the post hook cleared the unexpected key
    return log


def test_state_dict_hooks_and_metadata_match_pytorch():
    assert _state_dict_log(tandem) == _state_dict_log(torch)


def test_extra_state_and_overridden_load_from_state_dict():
    outs = []
    for m in LIBS:
        class Counter(m.nn.Module):
            _version = 3

            def __init__(self):
                super().__init__()
                self.steps = 0
                self.w = m.nn.Parameter(m.zeros(2))

            def get_extra_state(self):
                return {"steps": self.steps}

            def set_extra_state(self, state):
                self.steps = state["steps"]

            def _load_from_state_dict(self, sd, prefix, meta, strict, missing, unexpected, errors):
                if meta.get("version", 0) < 3 and prefix + "old_w" in sd:  # a migration of an old checkpoint
                    sd[prefix + "w"] = sd.pop(prefix + "old_w")
                super()._load_from_state_dict(sd, prefix, meta, strict, missing, unexpected, errors)

        a = m.nn.Sequential(Counter())
        a[0].steps = 7
        sd = a.state_dict()
        b = m.nn.Sequential(Counter())
        b.load_state_dict(sd)
        old = {"0.old_w": m.ones(2), "0._extra_state": {"steps": 2}}
        c = m.nn.Sequential(Counter())
        c.load_state_dict(old)
        with pytest.raises(RuntimeError) as err:
            m.nn.Sequential(Counter()).load_state_dict({"0.w": m.ones(2)})
        outs.append((list(sd), b[0].steps, c[0].steps, c[0].w.tolist(), sd._metadata["0"]["version"],
                     str(err.value).splitlines()[1]))
    assert outs[0] == outs[1]


def test_scalar_parameter_from_one_element_checkpoint():
    for m in LIBS:
        mod = m.nn.Module()
        mod.s = m.nn.Parameter(m.tensor(0.0))
        mod.load_state_dict({"s": m.tensor([4.0])})
        assert mod.s.item() == 4.0 and mod.s.dim() == 0


def test_submodule_parameter_and_buffer_access():
    for m in LIBS:
        net = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.BatchNorm1d(2))
        assert net.get_parameter("0.weight") is net[0].weight
        assert net.get_buffer("1.running_mean") is net[1].running_mean
        with pytest.raises(AttributeError, match="`running_mean` is not an nn.Parameter"):
            net.get_parameter("1.running_mean")
        with pytest.raises(AttributeError, match="`weight` is not a buffer"):
            net.get_buffer("0.weight")
        with pytest.raises(AttributeError, match="Linear has no attribute `nope`"):
            net.get_parameter("0.nope")
        net.set_submodule("0", m.nn.Linear(2, 5))
        assert net[0].out_features == 5
        with pytest.raises(ValueError, match="`module` is not an nn.Module"):
            net.set_submodule("0", 3)


def test_to_empty_and_type(device):
    net = tandem.nn.Linear(2, 3)
    out = net.to_empty(device=device)
    assert out is net and net.weight.device == tandem.device(device) and net.weight.shape == (3, 2)
    net.type(tandem.float64)
    assert net.weight.dtype == tandem.float64


def test_module_pickled_without_hook_tables_still_runs():
    import pickle
    lin = tandem.nn.Linear(2, 2)
    state = dict(lin.__dict__)
    for name in list(state):
        if "hook" in name:
            del state[name]  # what a module pickled by an older tandem carries
    restored = tandem.nn.Linear.__new__(tandem.nn.Linear)
    restored.__setstate__(state)
    assert restored(tandem.ones(1, 2)).shape == (1, 2)
    assert pickle.loads(pickle.dumps(lin))(tandem.ones(1, 2)).shape == (1, 2)


def test_batchnorm_checkpoint_without_num_batches_tracked():
    for m in LIBS:
        bn = m.nn.BatchNorm1d(3)
        old = {"weight": m.ones(3) * 2, "bias": m.zeros(3), "running_mean": m.ones(3), "running_var": m.ones(3)}
        bn.load_state_dict(old)  # no _metadata: a pre-0.4 checkpoint
        assert bn.weight.tolist() == [2.0, 2.0, 2.0] and bn.num_batches_tracked.item() == 0
        sd = bn.state_dict()
        del sd["num_batches_tracked"]  # version 2 metadata: the key is required
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
            bn.load_state_dict(sd)
