"""autograd.graph against PyTorch: saved-tensors hooks (built-in formulas and custom Functions, nesting,
save_on_cpu, disable_saved_tensors_hooks, create_graph through hooks, the errors), hooks and metadata on graph
nodes (register_prehook, register_hook, metadata), register_multi_grad_hook and increment_version (forward_ad:
test_forward_ad.py)."""
import threading

import numpy as np
import pytest
import torch

import tandem

LIBS = [torch, tandem]


def _np(t):
    return None if t is None else t.detach().cpu().numpy()


def _leaf(m, values, device="cpu", dtype=None):
    return m.tensor(values, dtype=dtype or m.float64, device=device, requires_grad=True)


def test_hooks_see_what_built_in_formulas_save(device):
    def run(m, dev):
        packed, unpacked = [], []

        def pack(t):
            packed.append((tuple(t.shape), str(t.dtype).split(".")[-1], t.device.type, m.is_grad_enabled()))
            return ("box", t)

        def unpack(box):
            unpacked.append(m.is_grad_enabled())
            assert box[0] == "box"
            return box[1]

        x = _leaf(m, [[0.5, -1.0], [2.0, 0.25]], dev)
        w = _leaf(m, [[1.5, 0.5], [-0.5, 1.0]], dev)
        with m.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * w).sin() + x.exp() @ w
            loss = (y.tanh() * y).sum()
        n_packed = len(packed)
        loss.backward()
        return sorted(packed), n_packed, len(unpacked), set(unpacked), _np(x.grad), _np(w.grad)

    ref, ours = run(torch, "cpu"), run(tandem, device)
    assert ours[0] == [p[:2] + (device[:4].rstrip(":"),) + p[3:] for p in ref[0]]
    assert ours[1:4] == ref[1:4] and ours[3] == {False}
    np.testing.assert_allclose(ours[4], ref[4], rtol=1e-12)
    np.testing.assert_allclose(ours[5], ref[5], rtol=1e-12)


def test_gradients_through_copying_hooks_match_pytorch(device):
    def run(m, dev):
        x = _leaf(m, [0.3, -1.2, 2.0], dev)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone() * 1, lambda t: t + 0):
            y = (x.exp() * x.sin()).pow(2).softmax(0)
            z = m.nn.functional.linear(y.unsqueeze(0), x.view(3, 1).expand(3, 3).contiguous()).sum()
        z.backward()
        return _np(x.grad)

    np.testing.assert_allclose(run(tandem, device), run(torch, "cpu"), rtol=1e-12)


def test_create_graph_through_hooks(device):
    def run(m, dev):
        x = _leaf(m, [1.0, 2.0], dev)
        w = _leaf(m, [0.5, -1.5], dev)
        h = w * 1
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = x * x * x + h.sin() + x.exp()
        gx, gw = m.autograd.grad(y.sum(), (x, w), create_graph=True)
        (gx.sum() + gw.sum()).backward()
        return _np(gx), _np(x.grad), _np(w.grad)

    for r, o in zip(run(torch, "cpu"), run(tandem, device)):
        np.testing.assert_allclose(o, r, rtol=1e-12)


def test_custom_function_saved_tensors_go_through_hooks(device):
    def run(m, dev):
        class Mul(m.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                out = a * b
                ctx.save_for_backward(a, b, out)
                return out

            @staticmethod
            def backward(ctx, g):
                a, b, out = ctx.saved_tensors
                return g * b + 0 * out, g * a

        log = []
        a, b = _leaf(m, [1.0, 2.0], dev), _leaf(m, [3.0, -4.0], dev)
        hooks = m.autograd.graph.saved_tensors_hooks(lambda t: log.append("pack") or [t],
                                                     lambda p: log.append("unpack") or p[0])
        with hooks:
            out = Mul.apply(a, b)
        out.sum().backward()
        return log, _np(a.grad), _np(b.grad)

    ref, ours = run(torch, "cpu"), run(tandem, device)
    assert ours[0] == ref[0] == ["pack"] * 3 + ["unpack"] * 3
    np.testing.assert_allclose(ours[1], ref[1])
    np.testing.assert_allclose(ours[2], ref[2])


def test_the_innermost_hooks_apply(device):
    def run(m, dev):
        log = []
        x = _leaf(m, [1.0, 2.0], dev)
        graph = m.autograd.graph

        def pair(name):
            return graph.saved_tensors_hooks(lambda t: log.append(name) or t, lambda t: log.append("u" + name) or t)

        with pair("outer"):
            with pair("inner"):
                a = x * x
            b = x.sin()
        c = x.cos()
        (a + b + c).sum().backward()
        return log

    assert run(tandem, device) == run(torch, "cpu") == ["inner", "inner", "outer", "uouter", "uinner", "uinner"]


def test_save_on_cpu(device):
    x = _leaf(tandem, [[0.5, -1.0], [2.0, 0.25]], device)
    w = _leaf(tandem, [[1.5, 0.5], [-0.5, 1.0]], device)
    with tandem.autograd.graph.save_on_cpu(pin_memory=device != "cpu"):
        y = ((x @ w).tanh() * x).sum()
    y.backward()
    ref_x, ref_w = (torch.tensor(_np(t), requires_grad=True) for t in (x, w))
    with torch.autograd.graph.save_on_cpu():
        ((ref_x @ ref_w).tanh() * ref_x).sum().backward()
    np.testing.assert_allclose(_np(x.grad), _np(ref_x.grad), rtol=1e-12)
    np.testing.assert_allclose(_np(w.grad), _np(ref_w.grad), rtol=1e-12)
    assert x.grad.device == x.device

    seen = []
    hooks = tandem.autograd.graph.save_on_cpu()
    pack = hooks.pack_hook
    hooks.pack_hook = lambda t: seen.append(pack(t)) or seen[-1]
    with hooks:
        (x * w).sum().backward()
    assert [(str(d), p.device.type) for d, p in seen] == [(str(x.device), "cpu")] * 2


def test_no_version_check_with_hooks_as_in_pytorch(device):
    def run(m, dev):
        a = _leaf(m, [1.0, 2.0, 3.0], dev)
        b = a * 1
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            c = b * b
        with m.no_grad():
            b.mul_(2)
        c.sum().backward()
        return _np(a.grad)

    np.testing.assert_allclose(run(tandem, device), run(torch, "cpu"))


def test_hooks_are_per_thread():
    log = []
    x = _leaf(tandem, [1.0, 2.0])
    results = []

    def other():
        results.append((x * x).sum())

    with tandem.autograd.graph.saved_tensors_hooks(lambda t: log.append(1) or t, lambda t: t):
        th = threading.Thread(target=other)
        th.start()
        th.join()
    results[0].backward()
    assert log == [] and x.grad.tolist() == [2.0, 4.0]


def _first_line_error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value).split("\nhint:")[0]


def _same_error(build):
    assert _first_line_error(lambda: build(tandem)) == _first_line_error(lambda: build(torch))


def test_unpack_must_return_a_tensor():
    def build(m):
        x = _leaf(m, [1.0, 2.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = (x * x).sum()
        y.backward()
    _same_error(build)

    def build_none(m):
        x = _leaf(m, [1.0, 2.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: None, lambda t: t):
            y = x.exp().sum()
        y.backward()
    _same_error(build_none)


def test_pack_hook_must_not_modify_its_input():
    def build(m):
        x = _leaf(m, [1.0, 2.0]) * 1
        other = m.ones(2, dtype=m.float64)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(1) if not t.requires_grad else t, lambda t: t):
            x * other
    _same_error(build)


def test_errors_in_hooks_propagate_and_the_stack_unwinds():
    x = _leaf(tandem, [1.0, 2.0])

    def bad(t):
        raise ValueError("pack failed")

    with pytest.raises(ValueError, match="pack failed"):
        with tandem.autograd.graph.saved_tensors_hooks(bad, lambda t: t):
            x * x
    (x * x).sum().backward()  # no hooks left behind
    assert x.grad.tolist() == [2.0, 4.0]


def test_backward_twice_is_refused_with_hooks():
    def build(m):
        x = _leaf(m, [1.0, 2.0])
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = (x * x).sum()
        y.backward()
        y.backward()
    _same_error(build)


def test_disable_saved_tensors_hooks():
    for m in LIBS:
        graph = m.autograd.graph
        with graph.disable_saved_tensors_hooks("no hooks in here"):
            with pytest.raises(RuntimeError, match="^no hooks in here$"):
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            with graph.disable_saved_tensors_hooks("nested"):
                with pytest.raises(RuntimeError, match="^nested$"):
                    graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
            with pytest.raises(RuntimeError, match="^no hooks in here$"):  # the outer message is back
                graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):  # enabled again
            with pytest.raises(RuntimeError, match="^active$"):
                with graph.disable_saved_tensors_hooks("active"):
                    pass


# ---- hooks on graph nodes ----

def _node_hook_run(m, device, use_pre=True, use_post=True):
    log = []
    x = _leaf(m, [1.0, 2.0, 3.0], device)
    s = _leaf(m, [2.0, 2.0, 2.0], device)
    y = x * s
    z = y.exp()
    z.grad_fn.metadata["name"] = "exp"
    handles = []
    if use_pre:
        def pre(grad_outputs):
            log.append(("pre", [_np(g) for g in grad_outputs]))
            return (grad_outputs[0] * 10,)
        handles.append(z.grad_fn.register_prehook(pre))
    if use_post:
        def post(grad_inputs, grad_outputs):
            log.append(("post", [_np(g) for g in grad_inputs], [_np(g) for g in grad_outputs]))
            return (grad_inputs[0] + 1, None)
        handles.append(y.grad_fn.register_hook(post))
    z.sum().backward(retain_graph=True)
    first = (_np(x.grad), _np(s.grad))
    for h in handles:
        h.remove()
    x.grad = s.grad = None
    z.sum().backward()
    return log, first, (_np(x.grad), _np(s.grad)), z.grad_fn.metadata if m is tandem else None


@pytest.mark.parametrize("use_pre,use_post", [(True, False), (False, True), (True, True)])
def test_node_hooks_match_pytorch(device, use_pre, use_post):
    ref = _node_hook_run(torch, "cpu", use_pre, use_post)
    ours = _node_hook_run(tandem, device, use_pre, use_post)
    assert [e[0] for e in ours[0]] == [e[0] for e in ref[0]]
    for r, o in zip(ref[0], ours[0]):
        for rs, os_ in zip(r[1:], o[1:]):
            assert len(rs) == len(os_)
            for a, b in zip(rs, os_):
                assert (a is None) == (b is None)
                if a is not None:
                    np.testing.assert_allclose(b, a, rtol=1e-12)
    for r, o in zip(ref[1] + ref[2], ours[1] + ours[2]):
        assert (r is None) == (o is None)
        if r is not None:
            np.testing.assert_allclose(o, r, rtol=1e-12)
    assert ours[3] == {"name": "exp"}


def test_node_class_and_metadata():
    x = _leaf(tandem, [1.0])
    y = x * x
    node = y.grad_fn
    assert isinstance(node, tandem.autograd.graph.Node) and tandem.autograd.graph.Node is tandem.autograd.Node
    node.metadata["a"] = 1
    assert y.grad_fn.metadata == {"a": 1} and node.metadata is node.metadata
    acc = node.next_functions[0][0]
    assert isinstance(acc, tandem.autograd.graph.Node) and acc.metadata == {}


def test_accumulate_grad_node_hooks(device):
    def run(m, dev):
        log = []
        x = _leaf(m, [1.0, 2.0], dev)
        w = _leaf(m, [3.0, 4.0], dev)
        y = x * w
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("pre", [_np(g) for g in go])) or (go[0] * 2,))
        acc.register_hook(lambda gi, go: log.append(("post", len(gi), [_np(g) for g in go])))
        y.sum().backward()
        return log, _np(x.grad)

    ref, ours = run(torch, "cpu"), run(tandem, device)
    assert [(e[0], len(e[-1])) for e in ours[0]] == [(e[0], len(e[-1])) for e in ref[0]]
    assert ours[0][1][1] == ref[0][1][1] == 0
    np.testing.assert_allclose(ours[0][0][1][0], ref[0][0][1][0])
    np.testing.assert_allclose(ours[0][1][2][0], ref[0][1][2][0])
    np.testing.assert_allclose(ours[1], ref[1])


def test_node_pre_hook_sees_none_for_unused_outputs():
    def run(m):
        log = []
        a = m.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=m.float64, requires_grad=True)
        vals, vecs = m.linalg.eigh(a)
        vals.grad_fn.register_prehook(lambda go: log.append([g is None for g in go]))
        vals.grad_fn.register_hook(lambda gi, go: log.append([g is None for g in go]))
        vals.sum().backward()
        return log, _np(a.grad)

    ref, ours = run(torch), run(tandem)
    assert ours[0] == ref[0] == [[False, True], [False, True]]
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-12, atol=1e-15)


def _hook_error(m, which, result):
    x = _leaf(m, [1.0, 2.0])
    s = _leaf(m, [3.0, 4.0])
    y = x * s
    z = y.exp()

    def named_hook(*args):
        return result(*args)

    if which == "pre":
        z.grad_fn.register_prehook(named_hook)
    else:
        y.grad_fn.register_hook(named_hook)
    z.sum().backward()


@pytest.mark.parametrize("which,result", [
    ("pre", lambda go: (go[0], go[0])),
    ("pre", lambda go: go[0]),
    ("pre", lambda go: (3,)),
    ("post", lambda gi, go: (gi[0],)),
    ("post", lambda gi, go: 5),
    ("post", lambda gi, go: list(gi)),
    ("post", lambda gi, go: (3, None)),
], ids=["pre-count", "pre-not-tuple", "pre-not-tensor", "post-count", "post-int", "post-list", "post-element"])
def test_node_hook_result_errors_match_pytorch(which, result):
    _same_error(lambda m: _hook_error(m, which, result))


def test_node_hook_returning_none_keeps_the_gradient():
    for m in LIBS:
        x = _leaf(m, [1.0, 2.0])
        s = _leaf(m, [3.0, 4.0])
        y = x * s
        y.grad_fn.register_hook(lambda gi, go: (None, gi[1]))
        y.sum().backward()
        assert x.grad is None and s.grad.tolist() == [1.0, 2.0]


def test_a_hook_may_remove_itself():
    x = _leaf(tandem, [1.0, 2.0])
    y = x * x
    calls = []

    def once(go):
        calls.append(1)
        handle.remove()

    handle = y.grad_fn.register_prehook(once)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert calls == [1]


# ---- register_multi_grad_hook, increment_version ----

def _multi_run(m, mode):
    out = []
    a, b, c = (_leaf(m, [1.0, 2.0, 3.0]) for _ in range(3))
    graph = m.autograd.graph
    if mode == "all":
        handle = graph.register_multi_grad_hook(
            (a, b, c), lambda grads: out.append([None if g is None else g.tolist() for g in grads]))
    else:
        handle = graph.register_multi_grad_hook((a, b), lambda g: out.append(g.tolist()), mode="any")
    (a * b).sum().backward()
    (a * 2 + b * c).sum().backward()
    m.autograd.grad((b * c).sum(), (c,)) if mode == "any" else None
    d = a * 3  # a non-leaf among the tensors
    h2 = graph.register_multi_grad_hook((d, c), lambda grads: out.append(
        [None if g is None else g.tolist() for g in grads]))
    (d * c).sum().backward()
    handle.remove()
    h2.remove()
    (a * b * c).sum().backward()
    return out


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook_matches_pytorch(mode):
    assert _multi_run(tandem, mode) == _multi_run(torch, mode)


def test_register_multi_grad_hook_errors():
    _same_error(lambda m: m.autograd.graph.register_multi_grad_hook((_leaf(m, [1.0]),), print, mode="some"))

    def leaves_under_grad(m):
        a, b = _leaf(m, [1.0]), _leaf(m, [2.0])
        m.autograd.graph.register_multi_grad_hook((a, b), print)
        m.autograd.grad((a * b).sum(), (a,))
    _same_error(leaves_under_grad)


def test_increment_version():
    for m in LIBS:
        v = m.ones(2)
        before = v._version
        m.autograd.graph.increment_version(v)
        m.autograd.graph.increment_version([v, v])
        assert v._version == before + 3

    def message(m):
        x = _leaf(m, [1.0, 2.0])
        y = x * 1
        z = (y * y).sum()
        m.autograd.graph.increment_version(y)
        with pytest.raises(RuntimeError) as info:
            z.backward()
        return str(info.value).split(" instead.")[0]  # PyTorch then suggests anomaly mode, tandem a hint
    assert message(tandem) == message(torch)


def test_cycles_through_node_hooks_metadata_and_packed_tensors_are_collected():
    import gc

    def live():
        for _ in range(3):  # a cycle freed by one pass can release the next one
            gc.collect()
        return tandem._C._autograd_live_nodes()

    before = live()
    for _ in range(5):
        x = _leaf(tandem, [1.0, 2.0])
        y = x * x
        y.grad_fn.metadata["y"] = y
        z = y.exp()
        z.grad_fn.register_prehook(lambda go, z=z: None)
        z.grad_fn.register_hook(lambda gi, go, z=z: None)
        with tandem.autograd.graph.saved_tensors_hooks(lambda t: (t, z), lambda p: p[0]):
            w = (z * 2).sin()
        w.sum().backward(retain_graph=True)
        del x, y, z, w
    assert live() == before


def test_hooks_on_a_custom_function_node(device):
    def run(m, dev):
        class Square(m.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return 2 * a * g

        log = []
        a = _leaf(m, [1.0, -2.0], dev)
        out = Square.apply(a)
        out.grad_fn.metadata["k"] = "v"
        out.grad_fn.register_prehook(lambda go: log.append("pre") or (go[0] * 3,))
        out.grad_fn.register_hook(lambda gi, go: log.append("post") or (gi[0] + 1,))
        out.sum().backward()
        return log, _np(a.grad), dict(out.grad_fn.metadata)

    ref, ours = run(torch, "cpu"), run(tandem, device)
    assert ours[0] == ref[0] == ["pre", "post"] and ours[2] == ref[2]
    np.testing.assert_allclose(ours[1], ref[1])


@pytest.mark.parametrize("use_grad", [False, True])
def test_leaf_hooks_run_before_accumulator_pre_hooks(use_grad):
    def run(m):
        log = []
        x = _leaf(m, [1.0, 2.0])
        y = x * x
        x.register_hook(lambda g: log.append(("leaf", g.tolist())) or g * 2)
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: log.append(("acc", go[0].tolist())))
        if use_grad:
            (g,) = m.autograd.grad(y.sum(), x)
            return log, g.tolist()
        y.sum().backward()
        return log, x.grad.tolist()

    assert run(tandem) == run(torch)
