"""Autograd of indexing and joining: basic and advanced getitem, setitem / index_put_ on tensors with
history, cat/stack, gather/scatter, index_select/index_add, masked ops, take_along_dim, flip. Finite
differences in float64 on every device, PyTorch's gradients and node names, second derivatives, and the
integer-valued ops that never require grad."""
import pytest
import torch

import tandem
from tandem.autograd import gradcheck
from oracle import leaf, rand_values

F64 = tandem.float64


def rand(*shape, low=-1.0, high=1.0, seed=0):
    return rand_values(*shape, low=low, high=high, seed=seed, salt=13)


def torch_leaf(values, transpose=False):
    t = torch.tensor(values, dtype=torch.float64)
    if transpose:
        t = t.t()
    return t.requires_grad_()


def idx(L, values, device="cpu", dtype=None):
    """An index tensor for library L (tandem or torch)."""
    t = L.tensor(values, dtype=dtype or L.int64)
    return t.to(device) if L is tandem else t


def setitem_adv(L, x, v):
    y = x * 1
    y[idx(L, [0, 2], x.device if L is tandem else "cpu")] = v
    return y


def setitem_basic(L, x, v):
    y = x * 1
    y[1] = v
    return y


def setitem_mask(L, x, v):
    y = x * 1
    y[x > 0] = v
    return y


def index_put_acc(L, x, v):
    y = x * 1
    return y.index_put_((idx(L, [0, 0, 2], x.device if L is tandem else "cpu"),), v, accumulate=True)


def scatter_inplace(L, x, v):
    y = x * 1
    i = idx(L, [[0, 1, 2, 0]], x.device if L is tandem else "cpu")
    return y.scatter_(0, i, v)


def masked_fill_inplace(L, x):
    y = x * 1
    return y.masked_fill_(x > 0, 2.0)


def dev(L, x):
    return x.device if L is tandem else "cpu"


# (id, fn(lib, *tensors), input values)
CASES = [
    ("select", lambda L, x: x[1], [rand(3, 4)]),
    ("slices", lambda L, x: x[:, 1:3], [rand(3, 4)]),
    ("ellipsis_none_step", lambda L, x: x[..., None, ::2], [rand(3, 4)]),
    ("adv_list", lambda L, x: x[[0, 2]], [rand(3, 4)]),
    ("adv_dup", lambda L, x: x[:, idx(L, [1, 0, 1], dev(L, x))], [rand(3, 4)]),
    ("adv_pair", lambda L, x: x[idx(L, [0, 1, 0], dev(L, x)), idx(L, [1, 2, 1], dev(L, x))], [rand(3, 4)]),
    ("adv_neg", lambda L, x: x[idx(L, [-1, 0], dev(L, x))], [rand(3, 4)]),
    ("adv_mask", lambda L, x: x[x > 0], [rand(3, 4)]),
    ("adv_separated", lambda L, x: x[idx(L, [0, 1], dev(L, x)), :, idx(L, [1, 0], dev(L, x))], [rand(2, 3, 2)]),
    ("setitem_adv", setitem_adv, [rand(3, 4), rand(2, 4)]),
    ("setitem_adv_broadcast", setitem_adv, [rand(3, 4), rand(4)]),
    ("setitem_basic", setitem_basic, [rand(3, 4), rand(4)]),
    ("setitem_mask", setitem_mask, [rand(3, 4), 0.5]),
    ("index_put_accumulate", index_put_acc, [rand(3, 4), rand(3, 4)]),
    ("cat", lambda L, a, b: L.cat([a, b], 1), [rand(3, 2), rand(3, 4)]),
    ("cat_neg", lambda L, a, b: L.cat([a, b, a], -2), [rand(2, 3), rand(1, 3)]),
    ("stack", lambda L, a, b: L.stack([a, b], 1), [rand(3, 2), rand(3, 2)]),
    ("stack_neg", lambda L, a, b: L.stack([a, b, a], -1), [rand(3, 2), rand(3, 2)]),
    ("gather", lambda L, x: x.gather(1, idx(L, [[0, 0], [2, 1], [3, 3]], dev(L, x))), [rand(3, 4)]),
    ("gather_neg", lambda L, x: L.gather(x, -2, idx(L, [[0, 2, 2, 1]], dev(L, x))), [rand(3, 4)]),
    ("scatter", lambda L, x, s: x.scatter(0, idx(L, [[2, 0, 1, 2]], dev(L, x)), s), [rand(3, 4), rand(1, 4)]),
    ("scatter_value", lambda L, x: x.scatter(1, idx(L, [[0], [3], [2]], dev(L, x)), 1.5), [rand(3, 4)]),
    ("scatter_add", lambda L, x, s: x.scatter_add(1, idx(L, [[0, 0], [3, 1], [2, 2]], dev(L, x)), s),
     [rand(3, 4), rand(3, 2)]),
    ("scatter_", scatter_inplace, [rand(3, 4), rand(1, 4)]),
    ("index_select", lambda L, x: x.index_select(1, idx(L, [3, 0, 3], dev(L, x))), [rand(3, 4)]),
    ("index_select_neg", lambda L, x: L.index_select(x, -2, idx(L, [2, 2], dev(L, x))), [rand(3, 4)]),
    ("index_add", lambda L, x, s: x.index_add(0, idx(L, [2, 0, 2], dev(L, x)), s, alpha=2.0),
     [rand(3, 4), rand(3, 4)]),
    ("index_copy", lambda L, x, s: x.index_copy(1, idx(L, [3, 0], dev(L, x)), s), [rand(3, 4), rand(3, 2)]),
    ("index_copy_", lambda L, x, s: (x * 1).index_copy_(0, idx(L, [1], dev(L, x)), s), [rand(3, 4), rand(1, 4)]),
    ("index_fill", lambda L, x: x.index_fill(1, idx(L, [3, 0], dev(L, x)), -2.0), [rand(3, 4)]),
    ("index_fill_", lambda L, x: (x * 1).index_fill_(0, idx(L, [2], dev(L, x)), 1.0), [rand(3, 4)]),
    ("index_fill_tensor_value", lambda L, x, v: x.index_fill(1, idx(L, [1, 3], dev(L, x)), v), [rand(3, 4), 0.5]),
    ("take", lambda L, x: L.take(x, idx(L, [[0, 11], [5, 5]], dev(L, x))), [rand(3, 4)]),
    ("masked_fill", lambda L, x: x.masked_fill(x > 0, 0.5), [rand(3, 4)]),
    ("masked_fill_broadcast_mask",
     lambda L, x: x.masked_fill(idx(L, [True, False, True, False], dev(L, x), L.bool), -1.0), [rand(3, 4)]),
    ("masked_fill_tensor_value", lambda L, x, v: x.masked_fill(x > 0, v), [rand(3, 4), 0.25]),
    ("masked_fill_", masked_fill_inplace, [rand(3, 4)]),
    ("masked_select", lambda L, x: x.masked_select(x > 0), [rand(3, 4)]),
    ("masked_select_broadcast",
     lambda L, x: L.masked_select(x, idx(L, [[True], [False], [True]], dev(L, x), L.bool)), [rand(3, 4)]),
    ("take_along_dim", lambda L, x: L.take_along_dim(x, idx(L, [[1], [0], [3]], dev(L, x)), 1), [rand(3, 4)]),
    ("take_along_dim_flat", lambda L, x: L.take_along_dim(x, idx(L, [5, 0, 5], dev(L, x))), [rand(3, 4)]),
    ("flip", lambda L, x: x.flip(0), [rand(3, 4)]),
    ("flip_neg", lambda L, x: L.flip(x, (-1, 0)), [rand(3, 4)]),
]
IDS = [c[0] for c in CASES]


def tandem_inputs(values, device, transpose=False):
    return tuple(leaf(v, device, transpose and isinstance(v, list) and isinstance(v[0], list) and
                      i == 0) for i, v in enumerate(values))


@pytest.mark.parametrize("name,fn,values", CASES, ids=IDS)
def test_gradcheck(name, fn, values, device):
    assert gradcheck(lambda *a: fn(tandem, *a), tandem_inputs(values, device))


NONCONTIGUOUS = ["select", "slices", "adv_dup", "adv_mask", "gather", "index_select", "masked_fill",
                 "masked_select", "take_along_dim", "flip_neg"]


@pytest.mark.parametrize("name", NONCONTIGUOUS)
def test_gradcheck_noncontiguous(name, device):
    # The same shape as the contiguous case, as the transpose of a leaf of the transposed shape.
    _, fn, values = CASES[IDS.index(name)]
    x = leaf(torch.tensor(values[0]).t().tolist(), device, transpose=True)
    assert not x.is_contiguous()
    assert gradcheck(lambda a: fn(tandem, a), (x,))


@pytest.mark.parametrize("name,fn,values", CASES, ids=IDS)
def test_matches_torch(name, fn, values):
    xs = tandem_inputs(values, "cpu")
    txs = tuple(torch_leaf(v) for v in values)
    out, tout = fn(tandem, *xs), fn(torch, *txs)
    assert out.grad_fn.name() == tout.grad_fn.name()
    upstream = rand(*tout.shape, seed=4)
    out.backward(tandem.tensor(upstream, dtype=F64))
    tout.backward(torch.tensor(upstream, dtype=torch.float64))
    for x, tx in zip(xs, txs):
        torch.testing.assert_close(torch.tensor(x.grad.tolist(), dtype=torch.float64), tx.grad)


@pytest.mark.parametrize("name", ["adv_dup", "adv_mask", "gather", "index_select", "setitem_adv", "scatter",
                                  "cat", "masked_select"])
def test_second_derivatives(name, device):
    _, fn, values = CASES[IDS.index(name)]
    xs = tandem_inputs(values, device)

    def grad_of(*a):
        with tandem.enable_grad():  # gradcheck's finite differences run without grad
            out = fn(tandem, *a)
            v = tandem.tensor(rand(*out.shape, seed=6), dtype=F64, device=device)
            return tandem.autograd.grad((out * out * v).sum(), a, create_graph=True)

    assert gradcheck(grad_of, xs)


def test_setitem_on_leaf_that_requires_grad_is_refused_like_torch():
    for L in (torch, tandem):
        x = L.zeros(3, dtype=L.float64, requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            x[idx(L, [0])] = 1.0
        assert "a leaf Variable that requires grad is being used in an in-place operation." in str(e.value)


def test_setitem_value_with_grad_into_plain_tensor():
    v, tv = leaf([1.0, 2.0]), torch_leaf([1.0, 2.0])
    z, tz = tandem.zeros(3, dtype=F64), torch.zeros(3, dtype=torch.float64)
    z[tandem.tensor([2, 0])] = v * 3
    tz[torch.tensor([2, 0])] = tv * 3
    assert z.requires_grad and z.grad_fn.name() == tz.grad_fn.name()
    (z * tandem.tensor([1.0, 2.0, 3.0], dtype=F64)).sum().backward()
    (tz * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert v.grad.tolist() == tv.grad.tolist()


def test_mixed_dtype_cat_sends_each_gradient_in_its_dtype():
    a = tandem.ones(2, dtype=tandem.float32).requires_grad_()
    b = tandem.ones(3, dtype=F64).requires_grad_()
    out = tandem.cat([a, b])
    assert out.dtype == F64
    out.sum().backward()
    assert a.grad.dtype == tandem.float32 and b.grad.dtype == F64
    assert a.grad.tolist() == [1.0, 1.0]


def test_cat_skips_legacy_empty_and_non_grad_inputs():
    a = leaf(rand(2, 3))
    out = tandem.cat([tandem.zeros(0, dtype=F64), a, tandem.ones(1, 3, dtype=F64)])
    assert out.grad_fn.name() == "CatBackward0"
    out.sum().backward()
    assert a.grad.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("fn", [
    lambda x: (x > 0).nonzero(), lambda x: tandem.nonzero(x), lambda x: x.argsort(0),
    lambda x: tandem.one_hot(x.argmax(1), 4),
    lambda x: x[x > 0] > 0,
], ids=["nonzero_mask", "nonzero", "argsort", "one_hot", "compare"])
def test_nondifferentiable_outputs(fn, device):
    out = fn(leaf(rand(3, 4), device))
    assert not out.requires_grad and out.grad_fn is None


def test_plain_indexing_records_nothing():
    x = tandem.tensor(rand(3, 4), dtype=F64)
    for out in (x[[0, 1]], x.gather(1, tandem.tensor([[0], [1], [2]])), tandem.cat([x, x]), x.flip(0)):
        assert out.grad_fn is None and not out.requires_grad


def test_basic_setitem_of_grad_value_into_plain_tensor_gives_copy_slices():
    for L in (tandem, torch):
        v = L.tensor([1.0, 2.0], dtype=L.float64, requires_grad=True)
        z = L.zeros(3, 2, dtype=L.float64)
        z[1] = v * 2
        z[2, :1] = v[1:] * v[1:]
        assert z.requires_grad and z.grad_fn.name() == "torch::autograd::CopySlices"
        (z * L.tensor([[1.0, 1.0], [3.0, 4.0], [5.0, 6.0]], dtype=L.float64)).sum().backward()
        assert v.grad.tolist() == [6.0, 8.0 + 20.0]


def test_basic_setitem_into_a_shared_plain_tensor_is_refused():
    z = tandem.zeros(3, 2, dtype=F64)
    other_view = z.unbind(0)[0]  # noqa: F841 (another tensor sees z's memory: unbind's views are not tracked)
    with pytest.raises(NotImplementedError):
        z[1] = leaf([1.0, 2.0]) * 2


def test_cat_of_skipped_empty_inputs_gives_them_empty_gradients():
    for L in (tandem, torch):
        a = L.zeros(0, dtype=L.float64, requires_grad=True)
        b = L.ones(2, 3, dtype=L.float64, requires_grad=True)
        L.cat([a, a], 1).sum().backward()
        L.cat([a, b], -1).sum().backward()
        assert list(a.grad.shape) == [0] and b.grad.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("index", [Ellipsis, (), slice(None), (Ellipsis, slice(None))], ids=["...", "()", ":", "...,:"])
def test_whole_tensor_indexes_are_recorded_views(index):
    # x[...] was an unrecorded alias: it dropped requires_grad and the gradient. PyTorch records AliasBackward0
    # (SliceBackward0 for `:`).
    for lib in (tandem, torch):
        x = lib.ones(3, requires_grad=True)
        y = x[index]
        assert y.requires_grad
        (y * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    # x[..., :]: PyTorch skips the full slice (AliasBackward0), tandem records it (SliceBackward0); same gradient.
    names = {tandem.ones(2, requires_grad=True)[index].grad_fn.name(),
             torch.ones(2, requires_grad=True)[index].grad_fn.name()}
    assert names <= {"AliasBackward0", "SliceBackward0"}
    if index in (Ellipsis, (), slice(None)):
        assert len(names) == 1, names


@pytest.mark.parametrize("index", [(slice(None), [0, 2]), (Ellipsis, [1, 3]), (slice(1, 3), [0, 1])])
def test_advanced_setitem_of_grad_value_through_a_basic_view(index, device):
    # out = empty_like(x); out[:, idx] = v (nflows' coupling transforms): the slice makes a view of `out`, and the
    # advanced write into it must still reach v's gradient (PyTorch's CopySlices/IndexPutBackward0 history)
    weights = [[float(4 * r + c) for c in range(4)] for r in range(3)]
    grads = []
    for lib, dev in ((torch, "cpu"), (tandem, device)):
        out = lib.zeros(3, 4, device=dev)
        rows = out[index].shape[0]
        v = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]][:rows], device=dev).requires_grad_()
        out[index] = v * 2
        (out * lib.tensor(weights, device=dev)).sum().backward()
        grads.append(v.grad.tolist())
    assert grads[0] == grads[1]
