"""Batch normalisation's kernels (ops/batch_norm.h) and group normalisation over them (ops/group_norm.h): F.batch_norm's values, running statistics and gradients
against PyTorch in float64 for every layout the CPU kernels split on (runs that fill a vector, short runs walked
as columns), 16-bit inputs with float32 parameters, evaluation mode, second derivatives, PyTorch's dtype and
size errors, and tandem.native_batch_norm's saved statistics."""
import numpy as np
import pytest
import torch

import tandem

SHAPES = [(8, 5), (4, 3, 7), (2, 3, 33), (3, 4, 5, 6), (2, 2, 2, 2, 3), (5, 17, 1), (2, 3, 16), (1, 2, 40)]
TOL = {"float32": 1e-4, "float64": 1e-10, "float16": 1e-2, "bfloat16": 8e-2}


def _run(lib, xs, dtype, training, affine, device="cpu"):
    F = lib.nn.functional
    channels = xs.shape[1]
    half = dtype in ("float16", "bfloat16")
    param = lib.float32 if half else getattr(lib, dtype)
    x = lib.tensor(xs, dtype=getattr(lib, dtype), device=device).requires_grad_()
    w = lib.tensor(np.linspace(0.5, 1.5, channels), dtype=param, device=device).requires_grad_() if affine else None
    b = lib.tensor(np.linspace(-1, 1, channels), dtype=param, device=device).requires_grad_() if affine else None
    rm = lib.tensor(np.linspace(0, 0.3, channels), dtype=param, device=device)
    rv = lib.tensor(np.linspace(1, 2, channels), dtype=param, device=device)
    y = F.batch_norm(x, rm, rv, w, b, training, 0.1, 1e-5)
    y.backward(lib.tensor(np.cos(np.arange(xs.size)).reshape(xs.shape), dtype=x.dtype, device=device))
    results = [y, rm, rv, x.grad] + ([w.grad, b.grad] if affine else [])
    return [(str(t.dtype).split(".")[1], t.detach().double().cpu().numpy()) for t in results]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("training", [True, False])
def test_values_statistics_and_gradients_match_pytorch(device, shape, dtype, training):
    xs = np.random.default_rng(len(shape) * 7 + shape[-1]).standard_normal(shape) * 3 + 10  # a large mean
    for affine in (True, False):
        ours = _run(tandem, xs, dtype, training, affine, device)
        theirs = _run(torch, xs, dtype, training, affine)
        for (our_dtype, a), (their_dtype, b) in zip(ours, theirs):
            assert our_dtype == their_dtype
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype])


def test_a_convolution_sized_batch_matches_pytorch_in_float64(device):
    xs = np.random.default_rng(3).standard_normal((4, 16, 12, 12))
    ours, theirs = _run(tandem, xs, "float64", True, True, device), _run(torch, xs, "float64", True, True)
    for (_, a), (_, b) in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("training", [True, False])
def test_second_derivatives(device, training):
    x = tandem.randn(3, 2, 4, dtype=tandem.float64, device=device, requires_grad=True)
    w = tandem.rand(2, dtype=tandem.float64, device=device, requires_grad=True)
    b = tandem.rand(2, dtype=tandem.float64, device=device, requires_grad=True)
    rm = tandem.rand(2, dtype=tandem.float64, device=device)
    rv = tandem.rand(2, dtype=tandem.float64, device=device) + 0.5

    def f(x, w, b):
        return tandem.nn.functional.batch_norm(x, rm.clone(), rv.clone(), w, b, training, 0.0, 1e-5)

    assert tandem.autograd.gradcheck(f, (x, w, b))
    assert tandem.autograd.gradgradcheck(f, (x, w, b))


def test_grad_fn_and_its_edges_are_pytorchs():
    for lib in (tandem, torch):
        x = lib.randn(4, 3, 2, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        y = lib.nn.functional.batch_norm(x, lib.zeros(3), lib.ones(3), w, lib.zeros(3), True)
        assert y.grad_fn.name() == "NativeBatchNormBackward0"
        edges = y.grad_fn.next_functions
        assert [fn.name() if fn is not None else None for fn, _ in edges] == [
            "torch::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad", None]


def test_native_batch_norm_returns_pytorchs_saved_statistics():
    xs = np.random.default_rng(0).standard_normal((4, 3, 5))
    for dtype, param in [("float32", "float32"), ("float16", "float32"), ("bfloat16", "bfloat16")]:
        for training in (True, False):
            got = []
            for lib in (tandem, torch):
                p = getattr(lib, param)
                outs = lib.native_batch_norm(lib.tensor(xs, dtype=getattr(lib, dtype)), lib.ones(3, dtype=p),
                                             lib.zeros(3, dtype=p), lib.zeros(3, dtype=p), lib.ones(3, dtype=p),
                                             training, 0.1, 1e-5)
                got.append([(str(t.dtype).split(".")[1], tuple(t.shape), t.double().numpy()) for t in outs])
            for (d1, s1, a), (d2, s2, b) in zip(*got):
                assert (d1, s1) == (d2, s2)
                np.testing.assert_allclose(a, b, rtol=1e-2, atol=1e-2)


def test_native_batch_norm_backward_matches_pytorch():
    xs = np.random.default_rng(1).standard_normal((4, 3, 5))
    gs = np.random.default_rng(2).standard_normal((4, 3, 5))
    for training in (True, False):
        got = []
        for lib in (tandem, torch):
            x, g = lib.tensor(xs), lib.tensor(gs)
            f64 = lib.float64
            w, rm, rv = lib.linspace(0.5, 1.5, 3, dtype=f64), lib.zeros(3, dtype=f64), lib.ones(3, dtype=f64)
            _, mean, invstd = lib.native_batch_norm(x, w, None, rm, rv, training, 0.1, 1e-5)
            backward = tandem._C._native_batch_norm_backward if lib is tandem else torch.ops.aten.native_batch_norm_backward
            grads = backward(g, x, w, rm, rv, mean, invstd, training, 1e-5, [True, True, True])
            got.append([t.numpy() for t in grads])
        for a, b in zip(*got):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_an_empty_batch_passes_through_and_updates_nothing():
    for lib in (tandem, torch):
        rm, rv = lib.zeros(3), lib.ones(3)
        y = lib.nn.functional.batch_norm(lib.randn(0, 3, 5), rm, rv, training=True)
        assert tuple(y.shape) == (0, 3, 5)
        assert rm.tolist() == [0.0] * 3 and rv.tolist() == [1.0] * 3


def test_the_same_result_at_every_thread_count():
    x = tandem.randn(8, 6, 50, dtype=tandem.float32)
    results = []
    for threads in (1, 2):
        old = tandem.get_num_threads()
        tandem.set_num_threads(threads)
        try:
            xg = x.clone().requires_grad_()
            y = tandem.nn.functional.batch_norm(xg, None, None, training=True)
            y.backward(tandem.ones_like(y))
            results.append((y.detach().numpy(), xg.grad.numpy()))
        finally:
            tandem.set_num_threads(old)
    for a, b in zip(*results):
        assert np.array_equal(a, b)


def _error(lib, call):
    try:
        call(lib)
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e).split("\n")[0].replace("tandem.", "torch.")
    return None


@pytest.mark.parametrize("case", [
    "float32_weight_float64", "float32_bias_float64", "float32_running_mean_half", "float64_params_float32",
    "half_running_mean_half", "half_weight_float64", "long_input", "one_dim_input", "wrong_channels",
    "eval_without_running_stats", "one_value_per_channel", "eps_zero_training", "eps_negative_eval",
    "running_mean_list"])
def test_errors_match_pytorch(case):
    def call(lib):
        F = lib.nn.functional
        x = lib.randn(4, 3, 2)
        p = {n: (lib.ones(3) if n in ("w", "rv") else lib.zeros(3)) for n in ("w", "b", "rm", "rv")}
        kw = dict(training=True)
        if case == "float32_weight_float64":
            p["w"] = p["w"].double()
        elif case == "float32_bias_float64":
            p["b"] = p["b"].double()
        elif case == "float32_running_mean_half":
            p["rm"] = p["rm"].half()
        elif case == "float64_params_float32":
            x = x.double()
        elif case == "half_running_mean_half":
            x, p["rm"] = x.half(), p["rm"].half()
        elif case == "half_weight_float64":
            x, p["w"] = x.half(), p["w"].double()
        elif case == "long_input":
            x = x.long()
        elif case == "one_dim_input":
            x = lib.randn(3)
        elif case == "wrong_channels":
            x = lib.randn(4, 5, 2)
        elif case == "eval_without_running_stats":
            p["rm"] = p["rv"] = None
            kw = dict(training=False)
        elif case == "one_value_per_channel":
            x = lib.randn(1, 3)
        elif case == "eps_zero_training":
            kw["eps"] = 0.0
        elif case == "eps_negative_eval":
            kw = dict(training=False, eps=-1.0)
        elif case == "running_mean_list":
            p["rm"] = [0.0, 0.0, 0.0]
        return F.batch_norm(x, p["rm"], p["rv"], p["w"], p["b"], **kw)

    ours, theirs = _error(tandem, call), _error(torch, call)
    assert theirs is not None
    assert ours == theirs


GROUP_SHAPES = [(2, 6, 5), (3, 4, 2, 3), (1, 8, 40), (4, 6, 1), (2, 2, 16, 16)]


@pytest.mark.parametrize("shape", GROUP_SHAPES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_matches_pytorch(device, shape, dtype, affine):
    """float32 weight and bias with a 16-bit input (mixed precision): the output keeps the input dtype and the
    parameter gradients stay float32, as in PyTorch."""
    xs = np.random.default_rng(shape[1]).standard_normal(shape) * 2 + 5
    got = []
    for lib, dev in ((tandem, device), (torch, "cpu")):
        x = lib.tensor(xs, dtype=getattr(lib, dtype), device=dev).requires_grad_()
        params = [lib.tensor(np.linspace(a, b, shape[1]), dtype=lib.float32, device=dev).requires_grad_()
                  for a, b in ((0.5, 1.5), (-1, 1))] if affine else [None, None]
        if dtype == "float32" or not affine:
            params = [p if p is None else p.detach().to(getattr(lib, dtype)).requires_grad_() for p in params]
        y = lib.nn.functional.group_norm(x, 2, *params, eps=1e-5)
        y.backward(lib.tensor(np.sin(np.arange(xs.size)).reshape(shape), dtype=y.dtype, device=dev))
        results = [y, x.grad] + ([p.grad for p in params] if affine else [])
        got.append([(str(t.dtype).split(".")[1], t.detach().double().cpu().numpy()) for t in results])
    for (d1, a), (d2, b) in zip(*got):
        assert d1 == d2
        np.testing.assert_allclose(a, b, rtol=TOL[dtype], atol=TOL[dtype])


def test_group_norm_second_derivatives_and_node(device):
    x = tandem.randn(2, 4, 3, dtype=tandem.float64, device=device, requires_grad=True)
    w = tandem.rand(4, dtype=tandem.float64, device=device, requires_grad=True)
    b = tandem.rand(4, dtype=tandem.float64, device=device, requires_grad=True)

    def f(x, w, b):
        return tandem.nn.functional.group_norm(x, 2, w, b)

    assert f(x, w, b).grad_fn.name() == "NativeGroupNormBackward0"
    assert tandem.autograd.gradcheck(f, (x, w, b))
    assert tandem.autograd.gradgradcheck(f, (x, w, b))


def test_group_norm_errors_match_pytorch():
    cases = [lambda L: L.nn.functional.group_norm(L.randn(2, 6, 3), 4),
             lambda L: L.nn.functional.group_norm(L.randn(2, 6, 3), 3, L.ones(5)),
             lambda L: L.nn.functional.group_norm(L.randn(2, 6, 3), 3, L.ones(6, dtype=L.float64)),
             lambda L: L.nn.functional.group_norm(L.randn(2, 6, 3).double(), 3, L.ones(6)),
             lambda L: L.nn.functional.group_norm(L.ones(2, 6, 3, dtype=L.int64), 3)]
    for case in cases:
        ours, theirs = _error(tandem, case), _error(torch, case)
        assert theirs is not None and ours == theirs


def test_native_batch_norm_backward_refuses_statistics_of_another_size():
    x, g, w = tandem.randn(4, 3, 5), tandem.randn(4, 3, 5), tandem.ones(3)
    with pytest.raises(RuntimeError, match="^save_mean should contain 3 elements on cpu"):
        tandem._C._native_batch_norm_backward(g, x, w, None, None, tandem.zeros(2), tandem.ones(3), True, 1e-5,
                                              [True, True, True])
    with pytest.raises(RuntimeError, match="^native_batch_norm_backward: grad_out has shape"):
        tandem._C._native_batch_norm_backward(g[:2], x, w, None, None, tandem.zeros(3), tandem.ones(3), True, 1e-5,
                                              [True, True, True])
