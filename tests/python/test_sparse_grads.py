"""Sparse COO gradients of nn.Embedding / F.embedding / EmbeddingBag with sparse=True (python/tandem/nn/_sparse_grad.py),
their accumulation into .grad by PyTorch's rules, the optimizers that take them (SGD, Adagrad, SparseAdam, LBFGS) and
the refusal of the others, the sparse tensor's in-place add_ and norm, and clip_grad_norm_ over sparse gradients.
Each case runs in PyTorch (the oracle, on the CPU) and in tandem on every device and returns plain values."""
import warnings

import pytest

torch = pytest.importorskip("torch")

from hostile_helpers import assert_matches_pytorch  # noqa: E402

import tandem  # noqa: E402


def _table(L, d, rows=10, dim=3):
    """An Embedding(sparse=True) with deterministic weights."""
    e = L.nn.Embedding(rows, dim, sparse=True).to(d)
    with L.no_grad():
        e.weight.copy_((L.arange(rows * dim, dtype=L.float32) / 10).reshape(rows, dim).to(d))
    return e


def _parts(g):
    """A gradient as plain values: its layout, and indices/values (sparse) or elements (dense)."""
    layout = str(g.layout).split(".")[-1]
    if g.is_sparse:
        return layout, g.is_coalesced(), g._indices(), g._values()
    return layout, g


def _quiet(case):
    def run(L, d):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # PyTorch's sparse-invariants warning fires once per process
            return case(L, d)
    return run


def _embedding_grad(**kw):
    def case(L, d):
        e = L.nn.Embedding(10, 3, sparse=True, **kw).to(d)
        (e(L.tensor([[1, 2, 1], [4, 5, 2]], device=d)) * L.arange(3.0, device=d)).sum().backward()
        return _parts(e.weight.grad)
    return case


def _functional_grad(dtype):
    def case(L, d):
        w = L.ones(6, 2, device=d, requires_grad=True)
        L.nn.functional.embedding(L.tensor([5, 0, 5], device=d, dtype=getattr(L, dtype)), w, sparse=True).sum().backward()
        return _parts(w.grad)
    return case


def _accumulated(second):
    """Two backward passes: a second sparse gradient is added into the first in place. (The loss weights the rows
    so that the gradient's values are contiguous, as in training: PyTorch's CPU sum of sparse tensors merges entries
    with equal indices only then, and concatenates when the values are a broadcast, as sum()'s gradient is.)"""
    def case(L, d):
        e = _table(L, d)
        weights = L.arange(1.0, 4.0, device=d)
        (e(L.tensor([1, 1, 4], device=d)) * weights).sum().backward()
        first = e.weight.grad
        (e(L.tensor(second, device=d)) * weights[:len(second)]).sum().backward()
        return _parts(e.weight.grad), e.weight.grad is first
    return case


def _onto_dense(L, d):
    e = _table(L, d)
    e.weight.grad = L.ones(10, 3, device=d)
    e(L.tensor([1, 1, 4], device=d)).sum().backward()
    return _parts(e.weight.grad)


def _tied(order):
    """The same weight used sparsely and densely in one forward (a tied output projection)."""
    def case(L, d):
        e = _table(L, d, rows=6)
        x = L.tensor([1, 2, 1], device=d)
        if order == "sparse_first":
            loss = (e(x) @ e.weight.T).logsumexp(1).sum()
        else:
            loss = (e.weight ** 2).sum() + e(x).sum()
        loss.backward()
        return _parts(e.weight.grad)
    return case


def _sparse_then_dense(L, d):
    e = _table(L, d, rows=6)
    x = L.tensor([1, 2, 1], device=d)
    e(x).sum().backward()
    ((e.weight ** 2).sum() + e(x).sum()).backward()
    return _parts(e.weight.grad)


def _bag_grad(mode, two_d=False, **kw):
    def case(L, d):
        b = L.nn.EmbeddingBag(10, 2, mode=mode, sparse=True, **kw).to(d)
        if two_d:
            b(L.tensor([[1, 2], [4, 2]], device=d)).sum().backward()
        else:
            psw = L.tensor([0.5, 1.0, 2.0, 3.0], device=d) if mode == "sum" else None
            b(L.tensor([1, 2, 1, 4], device=d), L.tensor([0, 3], device=d), per_sample_weights=psw).sum().backward()
        return _parts(b.weight.grad)
    return case


def _autograd_grad(L, d):
    """autograd.grad reads the gradient without accumulating: tandem hands the dense equivalent (PyTorch: sparse)."""
    e = _table(L, d)
    (g,) = L.autograd.grad(e(L.tensor([1, 2, 1], device=d)).sum(), e.weight)
    return g.to_dense() if g.is_sparse else g, e.weight.grad is None


def _backward_inputs(L, d):
    e = _table(L, d)
    other = L.ones(2, device=d, requires_grad=True)
    (e(L.tensor([1, 2], device=d)).sum() * other.sum()).backward(inputs=[other])
    return e.weight.grad is None, other.grad.tolist()


def _assigned(L, d):
    """A sparse gradient assigned by hand is the grad (the object, its dtype) until replaced."""
    w = L.zeros(4, 2, device=d, requires_grad=True)
    w.grad = L.sparse_coo_tensor(L.tensor([[1, 3]], device=d), L.ones(2, 2, device=d), (4, 2))
    import gc
    gc.collect()
    return _parts(w.grad), str(w.grad.dtype).split(".")[-1]


def _assigned_wrong_dtype(L, d):
    w = L.zeros(4, 2, device=d, requires_grad=True)
    w.grad = L.sparse_coo_tensor(L.tensor([[1]], device=d), L.ones(1, 2, device=d, dtype=L.float64), (4, 2))


def _zero_grad(where):
    def case(L, d):
        e = _table(L, d)
        e(L.tensor([1, 2, 1], device=d)).sum().backward()
        g = e.weight.grad
        (L.optim.SGD(e.parameters(), lr=0.1) if where == "optimizer" else e).zero_grad(set_to_none=False)
        return _parts(e.weight.grad), e.weight.grad is g
    return case


def _clip(L, d):
    e = _table(L, d)
    (e(L.tensor([1, 2, 1], device=d)) ** 2).sum().backward()
    total = L.nn.utils.clip_grad_norm_(e.parameters(), 0.5)
    return total, _parts(e.weight.grad)


CASES = {
    "embedding/module": _embedding_grad(),
    "embedding/padding_idx": _embedding_grad(padding_idx=2),
    "embedding/negative_padding_idx": _embedding_grad(padding_idx=-5),
    "embedding/functional_int32_indices": _functional_grad("int32"),
    "embedding/functional_int64_indices": _functional_grad("int64"),
    "embedding/scale_grad_by_freq": lambda L, d: L.nn.Embedding(5, 2, sparse=True, scale_grad_by_freq=True).to(d)(
        L.tensor([1, 1], device=d)).sum().backward(),
    "accumulate/same_indices": _accumulated([1, 1, 4]),
    "accumulate/other_indices": _accumulated([7]),
    "accumulate/onto_dense": _onto_dense,
    "accumulate/tied_sparse_first": _tied("sparse_first"),
    "accumulate/tied_dense_first": _tied("dense_first"),
    "accumulate/sparse_then_dense": _sparse_then_dense,
    "backward/inputs_without_weight": _backward_inputs,
    "grad/assigned_by_hand": _assigned,
    "grad/assigned_wrong_dtype": _assigned_wrong_dtype,
    "zero_grad/optimizer": _zero_grad("optimizer"),
    "zero_grad/module": _zero_grad("module"),
    "clip_grad_norm": _clip,
    "bag/sum_per_sample_weights": _bag_grad("sum"),
    "bag/mean": _bag_grad("mean"),
    "bag/sum_padding_idx": _bag_grad("sum", padding_idx=2),
    "bag/mean_2d_padding_idx": _bag_grad("mean", two_d=True, padding_idx=2),
    "bag/max_refused": _bag_grad("max"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_gradient_matches_pytorch(name, device):
    assert_matches_pytorch(_quiet(CASES[name]), device)


def test_autograd_grad_gives_the_dense_equivalent(device):
    want, want_untouched = _quiet(_autograd_grad)(torch, "cpu")
    got, untouched = _autograd_grad(tandem, device)
    assert got.layout == tandem.strided and got.device == tandem.device(device) and untouched and want_untouched
    torch.testing.assert_close(torch.tensor(got.cpu().tolist()), want)


# ---- optimizers -------------------------------------------------------------------------------------------------
def _trained(name, kw, steps=3):
    def case(L, d):
        e = _table(L, d)
        opt = getattr(L.optim, name)(e.parameters(), lr=0.1, **kw)
        for x in [[1, 2, 1], [4, 1, 7], [1, 2, 1]][:steps]:
            opt.zero_grad()
            (e(L.tensor(x, device=d)) ** 2).sum().backward()
            opt.step((lambda x=x: (e(L.tensor(x, device=d)) ** 2).sum()) if name == "LBFGS" else None)
        state = opt.state[e.weight]
        buffer = state.get("momentum_buffer")
        return e.weight.detach(), None if buffer is None else _parts(buffer)
    return case


OPTIMIZERS = {
    "SGD": {}, "SGD/momentum": dict(momentum=0.9), "SGD/nesterov": dict(momentum=0.9, nesterov=True),
    "SGD/dampening": dict(momentum=0.9, dampening=0.5), "SGD/maximize": dict(maximize=True, momentum=0.5),
    "SGD/foreach": dict(foreach=True, momentum=0.9), "SGD/weight_decay": dict(weight_decay=0.1),
    "SGD/fused": dict(fused=True), "Adagrad": {}, "Adagrad/lr_decay_maximize": dict(lr_decay=0.1, maximize=True),
    "Adagrad/initial_accumulator": dict(initial_accumulator_value=0.5), "Adagrad/weight_decay": dict(weight_decay=0.1),
    "SparseAdam": {}, "SparseAdam/maximize_betas": dict(maximize=True, betas=(0.8, 0.9)), "LBFGS": {},
    "Adam": {}, "AdamW": {}, "Adadelta": {}, "Adamax": {}, "ASGD": {}, "NAdam": {}, "RAdam": {}, "RMSprop": {},
    "Rprop": {}, "Adafactor": {}, "Muon": {},
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_with_sparse_gradients_matches_pytorch(name, device):
    assert_matches_pytorch(_quiet(_trained(name.split("/")[0], OPTIMIZERS[name])), device)


def test_sparse_adam_refuses_a_dense_gradient_as_pytorch(device):
    def case(L, d):
        w = L.ones(3, 2, device=d, requires_grad=True)
        w.sum().backward()
        L.optim.SparseAdam([w]).step()
    assert_matches_pytorch(case, device)


# ---- the sparse tensor's add_ and norm ----------------------------------------------------------------------------
def _sp(L, d, indices, fill, dtype="float32"):
    n = len(indices)
    return L.sparse_coo_tensor(L.tensor([indices], device=d), L.full((n, 1), fill, device=d, dtype=getattr(L, dtype)),
                               (10, 1))


@pytest.mark.parametrize("a,b", [([1, 1, 4], [1, 1, 4]), ([1, 1, 4], [4, 1, 1]), ([3, 8], [5, 3]), ([3], [3, 3]),
                                 ([1, 2], []), ([], [3, 5])])
@pytest.mark.parametrize("form", ["iadd", "add_alpha", "sub_", "add", "coalesced"])
def test_sparse_sum_matches_pytorch(a, b, form, device):
    """PyTorch's CPU sum of sparse tensors with contiguous values walks both lists of entries as a merge does."""
    def case(L, d):
        x, y = _sp(L, d, a, 1.0), _sp(L, d, b, 2.0)
        before = x
        if form == "iadd":
            x += y
        elif form == "add_alpha":
            x.add_(y, alpha=0.5)
        elif form == "sub_":
            x.sub_(y)
        elif form == "add":
            x = x + y
        else:
            x = x.coalesce()
            x.add_(y.coalesce())
        return _parts(x), x is before
    assert_matches_pytorch(_quiet(case), device)


def test_sparse_sum_of_broadcast_values_concatenates_as_pytorch(device):
    """Values that are not contiguous (a broadcast): the entries are concatenated, not merged."""
    def case(L, d):
        x = L.sparse_coo_tensor(L.tensor([[1, 4]], device=d), L.ones(1, 2, device=d).expand(2, 2), (6, 2))
        x.add_(L.sparse_coo_tensor(L.tensor([[1, 4]], device=d), L.ones(2, 2, device=d), (6, 2)))
        return _parts(x)
    assert_matches_pytorch(_quiet(case), device)


@pytest.mark.parametrize("call", [
    lambda L, s, d: s.add_(L.ones(10, 1, device=d)),
    lambda L, s, d: s.add_(1),
    lambda L, s, d: s.add_(_sp(L, d, [1], 1.0, "float64")),
    lambda L, s, d: _sp(L, d, [1], 1, "int64").add_(s),
    lambda L, s, d: s.add_(L.sparse_coo_tensor(L.tensor([[1]], device=d), L.ones(1, 2, device=d), (10, 2))),
], ids=["dense", "number", "float64_into_float32", "float_into_int", "other_size"])
def test_sparse_add_in_place_errors_match_pytorch(call, device):
    assert_matches_pytorch(_quiet(lambda L, d: _parts(call(L, _sp(L, d, [1, 4], 1.0), d))), device)


@pytest.mark.parametrize("args,kw", [
    ((), {}), ((1,), {}), (("fro",), {}), ((float("inf"),), {}), ((-float("inf"),), {}), ((0,), {}), ((3,), {}),
    ((), dict(dim=(0, 1))), ((), dict(dim=(1, -2))), ((), dict(dim=0)), ((2,), dict(keepdim=True)),
    ((), dict(dtype="float64")), ((1,), dict(dtype="float64")), ((), dict(dim=(0, 1), keepdim=True)),
])
def test_sparse_norm_matches_pytorch(args, kw, device):
    def case(L, d):
        s = L.sparse_coo_tensor(L.tensor([[1, 2, 1]], device=d), L.tensor([[1., -2], [3, 4], [5, 6]], device=d), (4, 2))
        options = {k: getattr(L, v) if k == "dtype" else v for k, v in kw.items()}
        return s.norm(*args, **options), L.norm(s) if not args and not kw else None
    assert_matches_pytorch(_quiet(case), device)


# ---- a whole program: skip-gram word2vec with SparseAdam and SGD --------------------------------------------------
def _word2vec(L, d):
    class SkipGram(L.nn.Module):
        def __init__(self):
            super().__init__()
            self.center = L.nn.Embedding(20, 4, sparse=True)
            self.context = L.nn.Embedding(20, 4, sparse=True)

        def forward(self, c, o, negatives):
            v = self.center(c)
            pos = L.nn.functional.logsigmoid((v * self.context(o)).sum(1))
            neg = L.nn.functional.logsigmoid(-(self.context(negatives) @ v.unsqueeze(2)).squeeze(2)).sum(1)
            return -(pos + neg).mean()

    model = SkipGram().to(d)
    with L.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(((L.arange(80.0) * (0.37 + i)).sin() / 4).reshape(20, 4).to(d))
    opt = L.optim.SparseAdam(model.parameters(), lr=0.05)
    losses = []
    for step in range(4):
        c = L.tensor([(3 * step + k) % 20 for k in range(6)], device=d)
        o = (c + 1) % 20
        negatives = L.stack([(c * 7 + k) % 20 for k in range(3)], 1)
        opt.zero_grad()
        loss = model(c, o, negatives)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return L.tensor(losses), model.center.weight.grad._nnz(), model.center.weight.detach()


def test_word2vec_with_sparse_adam_matches_pytorch(device):
    assert_matches_pytorch(_quiet(_word2vec), device)
