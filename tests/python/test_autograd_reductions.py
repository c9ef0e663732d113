"""Autograd of the reductions, scans and sorts: finite differences in float64 on every device (keepdim,
negative dims, non-contiguous inputs, ties, zeros), PyTorch's gradients and node names, second derivatives,
and outputs that never require grad."""
import math

import pytest
import torch

import tandem
from tandem.autograd import gradcheck
from oracle import leaf, rand_values

F64 = tandem.float64


def rand(*shape, low=-1.0, high=1.0, seed=0):
    return rand_values(*shape, low=low, high=high, seed=seed, salt=11)


def torch_leaf(values, transpose=False):
    t = torch.tensor(values, dtype=torch.float64)
    if transpose:
        t = t.t()
    return t.requires_grad_()


# (id, fn(lib, x), input values); fn is written once for tandem and torch.
CASES = [
    ("sum_all", lambda L, x: x.sum(), rand(3, 4)),
    ("sum_dim", lambda L, x: x.sum(1), rand(3, 4)),
    ("sum_dims_keepdim", lambda L, x: x.sum((0, -1), keepdim=True), rand(2, 3, 4)),
    ("sum_0d", lambda L, x: x.sum(), 1.5),
    ("mean_all", lambda L, x: x.mean(), rand(3, 4)),
    ("mean_neg_dim", lambda L, x: x.mean(-1), rand(3, 4)),
    ("mean_keepdim", lambda L, x: x.mean(0, keepdim=True), rand(3, 4)),
    ("prod_all", lambda L, x: x.prod(), rand(2, 3, low=0.5, high=1.5)),
    ("prod_dim", lambda L, x: x.prod(1), rand(3, 4, low=-1.5, high=1.5)),
    ("prod_one_zero", lambda L, x: x.prod(-1, keepdim=True), [[0.0, 2.0, 3.0], [1.0, 0.5, 2.0]]),
    ("prod_two_zeros", lambda L, x: x.prod(1), [[0.0, 2.0, 0.0], [1.0, 0.0, 2.0]]),
    ("prod_all_zero", lambda L, x: x.prod(), [[0.0, 2.0], [1.5, 3.0]]),
    ("amax_dim", lambda L, x: x.amax(1), rand(3, 4)),
    ("amin_dims", lambda L, x: x.amin((0, -1), keepdim=True), rand(2, 3, 4)),
    ("amax_ties", lambda L, x: x.amax(-1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
    ("max_all", lambda L, x: x.max(), rand(3, 4)),
    ("min_all_ties", lambda L, x: x.min(), [[1.0, -2.0], [-2.0, 0.5]]),
    ("max_dim", lambda L, x: x.max(1)[0], rand(3, 4)),
    ("min_dim_keepdim", lambda L, x: x.min(-1, keepdim=True).values, rand(3, 4)),
    ("var_all", lambda L, x: x.var(), rand(3, 4)),
    ("var_dim_corr0", lambda L, x: x.var(0, correction=0), rand(3, 4)),
    ("std_dim", lambda L, x: x.std(1), rand(3, 4)),
    ("std_keepdim", lambda L, x: x.std(-1, keepdim=True), rand(3, 4)),
    ("norm_2", lambda L, x: x.norm(), rand(3, 4)),
    ("norm_fro", lambda L, x: x.norm(p="fro"), rand(3, 4)),
    ("norm_1_dim", lambda L, x: x.norm(1, dim=1), rand(3, 4)),
    ("norm_inf", lambda L, x: x.norm(float("inf"), dim=-1), rand(3, 4)),
    ("norm_3", lambda L, x: x.norm(3, dim=0, keepdim=True), rand(3, 4)),
    ("norm_1_5", lambda L, x: x.norm(1.5), rand(3, 4, low=0.2, high=1.0)),
    ("logsumexp", lambda L, x: L.logsumexp(x, 1), rand(3, 4)),
    ("logsumexp_keepdim", lambda L, x: L.logsumexp(x, (0, -1), keepdim=True), rand(2, 3, 4)),
    ("softmax", lambda L, x: L.softmax(x, 1), rand(3, 4)),
    ("softmax_neg", lambda L, x: x.softmax(-2), rand(3, 4)),
    ("log_softmax", lambda L, x: L.log_softmax(x, -1), rand(3, 4)),
    ("log_softmax_0", lambda L, x: x.log_softmax(0), rand(3, 4)),
    ("cumsum", lambda L, x: x.cumsum(0), rand(3, 4)),
    ("cumsum_neg", lambda L, x: L.cumsum(x, -1), rand(3, 4)),
    ("sort", lambda L, x: x.sort(1)[0], rand(3, 4)),
    ("sort_desc", lambda L, x: x.sort(0, descending=True).values, rand(3, 4)),
    ("topk", lambda L, x: x.topk(2, dim=1)[0], rand(3, 4)),
    ("topk_smallest", lambda L, x: x.topk(2, dim=0, largest=False).values, rand(3, 4)),
]
IDS = [c[0] for c in CASES]
# Inputs with ties or exact zeros have kinks there: checked against PyTorch only.
NO_FD = {"amax_ties", "min_all_ties"}


@pytest.mark.parametrize("name,fn,values", CASES, ids=IDS)
def test_gradcheck(name, fn, values, device):
    if name in NO_FD:
        pytest.skip("not differentiable at ties")
    assert gradcheck(lambda x: fn(tandem, x), (leaf(values, device),))


MATRIX_CASES = [c for c in CASES if c[0] not in NO_FD and len(torch.tensor(c[2]).shape) == 2]


@pytest.mark.parametrize("name,fn,values", MATRIX_CASES, ids=[c[0] for c in MATRIX_CASES])
def test_gradcheck_noncontiguous(name, fn, values, device):
    # The transpose of a leaf of the transposed shape: same values, non-contiguous.
    values = torch.tensor(values).t().tolist()
    assert gradcheck(lambda x: fn(tandem, x), (leaf(values, device, transpose=True),))


@pytest.mark.parametrize("name,fn,values", CASES, ids=IDS)
def test_matches_torch(name, fn, values):
    x, tx = leaf(values), torch_leaf(values)
    out, tout = fn(tandem, x), fn(torch, tx)
    assert out.grad_fn.name() == tout.grad_fn.name()
    upstream = rand(*tout.shape, seed=3) if tout.dim() else 0.7
    out.backward(tandem.tensor(upstream, dtype=F64))
    tout.backward(torch.tensor(upstream, dtype=torch.float64))
    torch.testing.assert_close(torch.tensor(x.grad.tolist(), dtype=torch.float64), tx.grad)


def test_float32_grads_and_dtype_argument():
    x = tandem.tensor(rand(3, 4), dtype=tandem.float32).requires_grad_()
    tx = torch.tensor(rand(3, 4), dtype=torch.float32).requires_grad_()
    for fn in (lambda L, a: L.softmax(a, 1, dtype=L.float64), lambda L, a: a.sum(1, dtype=L.float64)):
        x.grad = None
        tx.grad = None
        fn(tandem, x).sum().backward()
        fn(torch, tx).sum().backward()
        assert x.grad.dtype == tandem.float32
        torch.testing.assert_close(torch.tensor(x.grad.tolist()), tx.grad)


def second_order_check(fn, x):
    v = tandem.tensor(rand(*fn(x).shape, seed=5) if fn(x).dim() else 0.9, dtype=F64, device=x.device)

    def grad_of(a):
        with tandem.enable_grad():  # gradcheck's finite differences run without grad
            (g,) = tandem.autograd.grad(fn(a), a, v, create_graph=True)
        return g

    assert gradcheck(grad_of, (x,))


@pytest.mark.parametrize("fn", [
    lambda x: tandem.softmax(x, 1),
    lambda x: tandem.log_softmax(x, 0),
    lambda x: tandem.logsumexp(x, 1),
    lambda x: x.norm(),
    lambda x: x.norm(3, dim=1),
    lambda x: x.prod(1),
    lambda x: x.var(0),
    lambda x: x.std(),
    lambda x: x.cumsum(1),
    lambda x: x.mean(-1) * x.sum(0).sum(),
    lambda x: x.sort(1)[0] * x,
], ids=["softmax", "log_softmax", "logsumexp", "norm", "norm3", "prod", "var", "std", "cumsum", "mean_sum",
        "sort"])
def test_second_derivatives(fn, device):
    second_order_check(fn, leaf(rand(3, 4, low=0.2, high=1.0), device))


def test_second_derivative_matches_torch():
    x, tx = leaf(rand(3, 4)), torch_leaf(rand(3, 4))
    (g,) = tandem.autograd.grad(tandem.logsumexp(x, 1).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(torch.logsumexp(tx, 1).sum(), tx, create_graph=True)
    (gg,) = tandem.autograd.grad((g * g).sum(), x)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tx)
    torch.testing.assert_close(torch.tensor(gg.tolist(), dtype=torch.float64), tgg)


@pytest.mark.parametrize("fn", [
    lambda x: x.argmax(), lambda x: x.argmin(1), lambda x: x.argsort(1), lambda x: x.all(),
    lambda x: x.any(0), lambda x: x.max(1)[1], lambda x: x.min(0).indices, lambda x: x.sort(1)[1],
    lambda x: x.topk(2)[1], lambda x: x > 0,
], ids=["argmax", "argmin", "argsort", "all", "any", "max_indices", "min_indices", "sort_indices",
        "topk_indices", "gt"])
def test_nondifferentiable_outputs(fn, device):
    out = fn(leaf(rand(3, 4), device))
    assert not out.requires_grad
    assert out.grad_fn is None


def test_broadcast_gradients_are_summed_by_sum():
    # The engine reduces broadcast gradients with sum(keepdim) (sum_to); it stays differentiable.
    a, b = leaf(rand(3, 1)), leaf(rand(4))
    assert gradcheck(lambda p, q: p * q, (a, b))
    second_order_check(lambda p: p * p * tandem.tensor(rand(3, 4), dtype=F64), a)


def test_no_node_without_grad():
    x = tandem.tensor(rand(3, 4), dtype=F64)
    for out in (x.sum(), x.softmax(1), x.norm(), x.max(1)[0], x.var()):
        assert out.grad_fn is None and not out.requires_grad
    with tandem.no_grad():
        assert leaf(rand(3, 4)).sum(1).grad_fn is None


def test_requires_grad_error_text_matches_torch():
    for make in (lambda L: L.tensor([1, 2], requires_grad=True),
                 lambda L: L.zeros(2, dtype=L.int64, requires_grad=True)):
        with pytest.raises(RuntimeError) as te:
            make(torch)
        with pytest.raises(RuntimeError) as e:
            make(tandem)
        assert str(e.value).splitlines()[0] == str(te.value).splitlines()[0]


def test_zero_norm_gradient_is_zero():
    x = leaf([0.0, 0.0])
    x.norm().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert not any(math.isnan(v) for v in x.grad.tolist())


def test_nan_results_of_max_and_amax_match_torch():
    for L in (tandem, torch):
        x = L.tensor([1.0, float("nan"), 2.0], dtype=L.float64, requires_grad=True)
        x.max().backward()
        assert x.grad.tolist() == [0.0, 1.0, 0.0]
        x.grad = None
        x.amax(0).backward()  # x == NaN matches nothing: 0/0 everywhere, as PyTorch
        assert all(math.isnan(v) for v in x.grad.tolist())


def test_zero_norm_order_gives_no_gradient_like_torch():
    for L in (tandem, torch):
        x = L.tensor([[1.0, 0.0], [2.0, 3.0]], dtype=L.float64, requires_grad=True)
        out = x.norm(0, dim=1)
        assert out.grad_fn.name() == "LinalgVectorNormBackward0"
        (out * 1).sum().backward()
        assert x.grad is None
