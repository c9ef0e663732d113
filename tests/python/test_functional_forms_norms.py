"""native_batch_norm, the batch_norm_* pieces SyncBatchNorm is built from, batch_norm_update_stats,
native_group_norm and native_dropout against PyTorch: values, gradients (float64), running statistics, dtypes,
devices and errors. PyTorch runs batch_norm_stats/elemt/gather_stats/backward_* on CUDA only, so those are
checked by composing them into batch norm over two "ranks" and comparing with PyTorch's native_batch_norm."""
import pytest
import torch

import tandem
from oracle import assert_close_to_torch, from_torch


def rand(*shape, seed=0, dtype=torch.float64):
    return torch.randn(*shape, dtype=dtype, generator=torch.Generator().manual_seed(seed))


def twins(device, *tensors, grad=True):
    refs = [t.clone().requires_grad_(grad) for t in tensors]
    return refs, [from_torch(t.detach(), device).requires_grad_(grad) for t in refs]


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_native_batch_norm_matches_pytorch(device, training, affine):
    (x, w, b), (X, W, B) = twins(device, rand(4, 3, 5, seed=1), rand(3, seed=2), rand(3, seed=3))
    rm, rv = rand(3, seed=4), rand(3, seed=5).abs() + 0.5
    RM, RV = from_torch(rm, device), from_torch(rv, device)
    args = (w, b) if affine else (None, None)
    ours = (W, B) if affine else (None, None)
    want = torch.native_batch_norm(x, *args, rm, rv, training, 0.2, 1e-4)
    got = tandem.native_batch_norm(X, *ours, RM, RV, training, 0.2, 1e-4)
    assert type(got) is tuple and len(got) == 3
    for g, r in zip(got, want):
        assert_close_to_torch(g.detach(), r.detach(), device=device)
        assert g.requires_grad == r.requires_grad
    assert_close_to_torch(RM, rm, device=device)
    assert_close_to_torch(RV, rv, device=device)
    cot = rand(4, 3, 5, seed=6)
    want[0].backward(cot)
    got[0].backward(from_torch(cot, device))
    for g, r in ((X, x), (W, w), (B, b)) if affine else ((X, x),):
        assert_close_to_torch(g.grad, r.grad, device=device)


def test_native_batch_norm_statistics_dtypes_match_pytorch():
    """A 16-bit input keeps its dtype; the statistics follow float32 running statistics when given."""
    x = rand(4, 3, 2, seed=7, dtype=torch.float32).half()
    for running in ((None, None), (torch.zeros(3), torch.ones(3))):
        want = torch.native_batch_norm(x, None, None, *[r.clone() if r is not None else None for r in running],
                                       True, 0.1, 1e-5)
        got = tandem.native_batch_norm(from_torch(x), None, None,
                                       *[from_torch(r) if r is not None else None for r in running], True, 0.1, 1e-5)
        for g, r in zip(got, want):
            assert_close_to_torch(g, r, atol=2e-3, rtol=2e-3)
    # a single value per channel: no error (F.batch_norm's check is not native_batch_norm's); running_var is nan
    rm, rv = torch.zeros(3), torch.ones(3)
    RM, RV = from_torch(rm), from_torch(rv)
    torch.native_batch_norm(x[:1, :, :1].float(), None, None, rm, rv, True, 0.1, 1e-5)
    tandem.native_batch_norm(from_torch(x[:1, :, :1].float()), None, None, RM, RV, True, 0.1, 1e-5)
    assert_close_to_torch(RM, rm)
    assert_close_to_torch(RV, rv)


@pytest.mark.parametrize("case", ["no_mean", "no_var", "int", "mixed", "one_dim"])
def test_native_batch_norm_errors_match_pytorch(case):
    x, rm, rv, w, training = rand(4, 3, 5).float(), torch.zeros(3), torch.ones(3), None, True
    if case == "no_mean":
        rm, training = None, False
    elif case == "no_var":
        rv, training = None, False
    elif case == "int":
        x = x.int()
    elif case == "mixed":
        x = x.double()
        w = torch.ones(3)
    elif case == "one_dim":
        x = x[0, 0]

    def call(mod, conv):
        return mod.native_batch_norm(conv(x), conv(w), None, conv(rm), conv(rv), training, 0.1, 1e-5)

    with pytest.raises(Exception) as want:
        call(torch, lambda t: t)
    with pytest.raises(want.type) as got:
        call(tandem, lambda t: from_torch(t) if t is not None else None)
    assert str(got.value).split("\nhint:")[0] == str(want.value)  # tandem adds a hint line


def test_native_batch_norm_out():
    X = tandem.randn(4, 3, 5)
    outs = (tandem.empty(0), tandem.empty(0), tandem.empty(0))
    res = tandem.native_batch_norm(X, None, None, None, None, True, 0.1, 1e-5, out=outs)
    assert res[0] is outs[0] and tuple(outs[1].shape) == (3,)
    assert tandem.allclose(outs[0], tandem.native_batch_norm(X, None, None, None, None, True, 0.1, 1e-5)[0])


def test_sync_pieces_compose_into_batch_norm(device):
    """Two ranks of unequal size: per-rank stats, gathered with counts, normalised elementwise; the two-stage
    backward gives PyTorch's batch-norm gradients. Running statistics follow the whole batch's."""
    (x, w, b), _ = twins("cpu", rand(7, 3, 4, seed=8), rand(3, seed=9), rand(3, seed=10))
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    want = torch.native_batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5)
    cot = rand(7, 3, 4, seed=11)
    want[0].backward(cot)
    X, W, B, G = (from_torch(t.detach(), device) for t in (x, w, b, cot))
    ranks = [X[:3], X[3:]]
    stats = [tandem.batch_norm_stats(r, 1e-5) for r in ranks]
    counts = tandem.tensor([3.0 * 4, 4.0 * 4], dtype=tandem.float64, device=device)
    RM, RV = tandem.zeros(3, dtype=tandem.float64, device=device), tandem.ones(3, dtype=tandem.float64, device=device)
    mean, invstd = tandem.batch_norm_gather_stats_with_counts(
        X, tandem.stack([s[0] for s in stats]), tandem.stack([s[1] for s in stats]), RM, RV, 0.1, 1e-5, counts)
    assert_close_to_torch(mean, want[1], device=device)
    assert_close_to_torch(invstd, want[2], device=device)
    assert_close_to_torch(RM, rm, device=device)
    assert_close_to_torch(RV, rv, device=device)
    outputs = [tandem.batch_norm_elemt(r, W, B, mean, invstd, 1e-5) for r in ranks]
    assert_close_to_torch(tandem.cat(outputs), want[0].detach(), device=device)
    grads = [G[:3], G[3:]]
    reduced = [tandem.batch_norm_backward_reduce(g, r, mean, invstd, W, True, True, True) for g, r in zip(grads, ranks)]
    sum_dy, sum_dy_xmu, grad_w, grad_b = (sum(parts) for parts in zip(*reduced))
    assert_close_to_torch(grad_w, w.grad, device=device)
    assert_close_to_torch(grad_b, b.grad, device=device)
    count = tandem.tensor([12, 16], dtype=tandem.int32, device=device)
    grad_x = [tandem.batch_norm_backward_elemt(g, r, mean, invstd, W, sum_dy, sum_dy_xmu, count)
              for g, r in zip(grads, ranks)]
    assert_close_to_torch(tandem.cat(grad_x), x.grad, device=device)


def test_gather_stats_with_one_count_and_reduce_flags():
    X = tandem.randn(4, 3, 2, dtype=tandem.float64)
    m, i = tandem.batch_norm_stats(X, 1e-5)
    means, invstds = tandem.stack([m, m]), tandem.stack([i, i])
    one = tandem.batch_norm_gather_stats(X, means, invstds, None, None, 0.1, 1e-5, 8)
    two = tandem.batch_norm_gather_stats_with_counts(X, means, invstds, None, None, 0.1, 1e-5,
                                                     tandem.tensor([8.0, 8.0], dtype=tandem.float64))
    assert tandem.allclose(one[0], m) and tandem.allclose(one[1], i)
    assert tandem.allclose(one[0], two[0]) and tandem.allclose(one[1], two[1])
    G = tandem.randn(4, 3, 2, dtype=tandem.float64)
    res = tandem.batch_norm_backward_reduce(G, X, m, i, None, False, False, True)
    assert res[:3] == (None, None, None) and tandem.allclose(res[3], G.sum((0, 2)))
    half = tandem.batch_norm_stats(X.half(), 1e-5)
    assert half[0].dtype == tandem.float32 and half[1].dtype == tandem.float32


@pytest.mark.parametrize("running", [True, False])
def test_batch_norm_update_stats_matches_pytorch(device, running):
    x = rand(5, 3, 2, seed=12)
    rm, rv = (rand(3, seed=13), rand(3, seed=14).abs()) if running else (None, None)
    RM, RV = (from_torch(rm, device), from_torch(rv, device)) if running else (None, None)
    want = torch.batch_norm_update_stats(x, rm, rv, 0.3)
    got = tandem.batch_norm_update_stats(from_torch(x, device), RM, RV, 0.3)
    for g, r in zip(got, want):
        assert_close_to_torch(g, r, device=device)
        assert not g.requires_grad
    if running:
        assert_close_to_torch(RM, rm, device=device)
        assert_close_to_torch(RV, rv, device=device)


def test_native_group_norm_matches_pytorch(device):
    (x, w, b), (X, W, B) = twins(device, rand(2, 6, 5, seed=15), rand(6, seed=16), rand(6, seed=17))
    want = torch.native_group_norm(x, w, b, 2, 6, 5, 3, 1e-5)
    got = tandem.native_group_norm(X, W, B, 2, 6, 5, 3, 1e-5)
    for g, r in zip(got, want):
        assert_close_to_torch(g.detach(), r.detach(), device=device)
    # mean and rstd are differentiable outputs too
    cots = [rand(*r.shape, seed=18 + k) for k, r in enumerate(want)]
    torch.autograd.backward(list(want), cots)
    tandem.autograd.backward(list(got), [from_torch(c, device) for c in cots])
    for g, r in ((X, x), (W, w), (B, b)):
        assert_close_to_torch(g.grad, r.grad, device=device)


@pytest.mark.parametrize("case", ["numel", "groups", "weight", "int", "mixed"])
def test_native_group_norm_errors_match_pytorch(case):
    x, w, n, c, hw, g = rand(4, 3, 5).float(), None, 4, 3, 5, 3
    if case == "numel":
        hw = 6
    elif case == "groups":
        g = 2
    elif case == "weight":
        w = torch.ones(2)
    elif case == "int":
        x = x.int()
    elif case == "mixed":
        x, w = x.double(), torch.ones(3)
    with pytest.raises(Exception) as want:
        torch.native_group_norm(x, w, None, n, c, hw, g, 1e-5)
    with pytest.raises(want.type) as got:
        tandem.native_group_norm(from_torch(x), from_torch(w) if w is not None else None, None, n, c, hw, g, 1e-5)
    assert str(got.value) == str(want.value)


def test_native_dropout(device):
    X = tandem.randn(200, 50, dtype=tandem.float64, device=device, requires_grad=True)
    out, mask = tandem.native_dropout(X, 0.3, True)
    assert mask.dtype == tandem.bool and out.device == X.device
    assert abs(mask.double().mean().item() - 0.7) < 0.02
    assert tandem.allclose(out, X * mask / 0.7)
    out.sum().backward()
    assert tandem.allclose(X.grad, mask.double() / 0.7)
    out, mask = tandem.native_dropout(X, 0.3, False)
    assert tandem.equal(out, X) and out is not X and out.requires_grad and bool(mask.all())
    out, mask = tandem.native_dropout(X, 1.0, None)  # None trains
    assert not bool(mask.any()) and float(out.detach().abs().sum()) == 0.0


@pytest.mark.parametrize("p,dtype", [(1.5, torch.float32), (-0.5, torch.float32), (0.5, torch.int32)])
def test_native_dropout_errors_match_pytorch(p, dtype):
    x = torch.ones(3, dtype=dtype)
    with pytest.raises(Exception) as want:
        torch.native_dropout(x, p, True)
    with pytest.raises(want.type) as got:
        tandem.native_dropout(from_torch(x), p, True)
    assert str(got.value) == str(want.value)
