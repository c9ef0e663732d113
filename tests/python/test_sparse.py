"""Sparse COO tensors (tandem.sparse) against PyTorch on every device: construction, repr, coalesce, conversions,
products, elementwise ops, sums, softmax, gradients through the values and the dense operands, errors, and a GCN
trained for a few steps giving PyTorch's losses."""
import copy
import pickle

import numpy as np
import pytest
import torch

import tandem
from sparse_helpers import p2t, raises_like, t2p

# PyTorch's notes about its own sparse support, not about the results compared here.
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning",
                                        "ignore:Sparse CSR tensor support:UserWarning",
                                        "ignore:Validating sparse tensor invariants:UserWarning",
                                        "ignore:torch.sparse.SparseTensor:UserWarning",
                                        "ignore:tandem.sparse.SparseTensor:UserWarning")

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, 1.0, -2.0]


def pair(device, indices=INDICES, values=VALUES, size=(3, 3), dtype="float32"):
    """The same sparse tensor in tandem (on device) and torch (on cpu)."""
    p = torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values, dtype=getattr(torch, dtype)), size)
    t = tandem.sparse_coo_tensor(tandem.tensor(indices), tandem.tensor(values, dtype=getattr(tandem, dtype)), size,
                                 device=device)
    return t, p


def random_pair(device, n=7, m=5, nnz=20, seed=0, dtype="float32"):
    g = torch.Generator().manual_seed(seed)
    indices = torch.stack([torch.randint(0, n, (nnz,), generator=g), torch.randint(0, m, (nnz,), generator=g)])
    values = torch.randn(nnz, generator=g, dtype=torch.float64).to(getattr(torch, dtype))
    return pair(device, indices.tolist(), values.tolist(), (n, m), dtype)


def check_dense(actual, expected, device, rtol=1e-5, atol=1e-6):
    assert isinstance(actual, tandem.Tensor)
    assert str(actual.device) == device
    torch.testing.assert_close(t2p(actual), expected, rtol=rtol, atol=atol, equal_nan=True)


def check_sparse(actual, expected, device, rtol=1e-5, atol=1e-6):
    """Same size, dtype, device, coalesced flag and elements; once coalesced, the same indices and values."""
    assert isinstance(actual, tandem.sparse.SparseCooTensor)
    assert actual.is_sparse and actual.layout is tandem.sparse_coo
    assert tuple(actual.shape) == tuple(expected.shape)
    assert str(actual.device) == device
    assert actual.is_coalesced() == expected.is_coalesced()
    assert (actual.sparse_dim(), actual.dense_dim()) == (expected.sparse_dim(), expected.dense_dim())
    check_dense(actual.to_dense(), expected.to_dense(), device, rtol, atol)
    a, e = actual.coalesce(), expected.coalesce()
    assert t2p(a.indices()).tolist() == e.indices().tolist()
    torch.testing.assert_close(t2p(a.values()), e.values(), rtol=rtol, atol=atol, equal_nan=True)


# ---- construction and printing -----------------------------------------------------------------------------------

def test_layout_objects():
    assert repr(tandem.sparse_coo) == "tandem.sparse_coo" and repr(tandem.strided) == "tandem.strided"
    assert tandem.sparse_coo is not tandem.strided
    assert pickle.loads(pickle.dumps(tandem.sparse_coo)) is tandem.sparse_coo
    x = tandem.ones(2, 3)
    assert x.layout is tandem.strided and not x.is_sparse
    assert x.to_dense() is x and x.sparse_dim() == 0 and x.dense_dim() == 2
    for name in ("coalesce", "is_coalesced", "indices", "values"):
        raises_like(lambda: getattr(torch.ones(2, 3), name)(), lambda: getattr(x, name)())
    for name in ("_indices", "_values"):
        raises_like(lambda: getattr(torch.ones(2, 3), name)(), lambda: getattr(x, name)(), NotImplementedError)


def test_construction_basics(device):
    t, p = pair(device)
    check_sparse(t, p, device)
    assert t._nnz() == 5 and t.dim() == 2 and t.ndim == 2 and t.numel() == 9 and len(t) == 3
    assert t.size() == tandem.Size([3, 3]) and t.size(-1) == 3 and t.shape == (3, 3)
    assert t.dtype == tandem.float32 and t.is_cuda == device.startswith("cuda") and t.is_cpu == (device == "cpu")
    assert t._indices().dtype == tandem.int64 and t._values().dtype == tandem.float32
    assert isinstance(t, tandem.sparse.SparseCooTensor) and tandem.is_tensor(t)
    assert t.type() == ("tandem.cuda.sparse.FloatTensor" if device != "cpu" else "tandem.sparse.FloatTensor")
    assert not t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None


def test_size_inferred_and_inputs(device):
    # Lists, NumPy int32 indices (as pytorch/examples' GCN passes them), dtype= converting the values.
    edges = np.array([[0, 1], [2, 0], [3, 3]], dtype=np.int32)
    p = torch.sparse_coo_tensor(edges.T, torch.ones(3), (4, 4), dtype=torch.int64)
    t = tandem.sparse_coo_tensor(edges.T, tandem.ones(3, device=device), (4, 4), dtype=tandem.int64)
    check_sparse(t, p, device)
    p = torch.sparse_coo_tensor([[0, 4], [1, 0]], [1.5, 2.5])
    t = tandem.sparse_coo_tensor([[0, 4], [1, 0]], [1.5, 2.5], device=device)
    check_sparse(t, p, device)
    # Hybrid: values with a dense dim; size inferred from the indices and the values' trailing dims.
    p = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.arange(6.).reshape(2, 3))
    t = tandem.sparse_coo_tensor(tandem.tensor([[0, 2]]), tandem.arange(6.).reshape(2, 3), device=device)
    check_sparse(t, p, device)
    empty_p = torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.long), torch.empty(0), (2, 2))
    empty_t = tandem.sparse_coo_tensor(tandem.empty(2, 0, dtype=tandem.int64), tandem.empty(0), (2, 2),
                                       device=device)
    check_sparse(empty_t, empty_p, device)
    assert tuple(tandem.sparse_coo_tensor(tandem.empty(2, 0, dtype=tandem.int64), tandem.empty(0)).shape) == (0, 0)


def test_legacy_constructors(device):
    # Kipf's pygcn: torch.sparse.FloatTensor(indices, values, shape).
    i, v = torch.tensor(INDICES), torch.tensor(VALUES)
    t = tandem.sparse.FloatTensor(p2t(i, device), p2t(v, device), tandem.Size([3, 3]))
    check_sparse(t, torch.sparse.FloatTensor(i, v, torch.Size([3, 3])), device)
    check_sparse(tandem.sparse.LongTensor(p2t(i, device), p2t(v.long(), device)), torch.sparse.LongTensor(i, v.long()),
                 device)
    check_sparse(tandem.sparse.DoubleTensor(2, 3), torch.sparse.DoubleTensor(2, 3), "cpu")
    check_sparse(tandem.sparse.FloatTensor(), torch.sparse.FloatTensor(), "cpu")
    assert isinstance(tandem.sparse.FloatTensor(2, 3), tandem.sparse.FloatTensor)
    assert not isinstance(tandem.sparse.DoubleTensor(2, 3), tandem.sparse.FloatTensor)
    assert not isinstance(tandem.ones(2), tandem.sparse.FloatTensor)
    raises_like(lambda: torch.sparse.FloatTensor([1, 2]), lambda: tandem.sparse.FloatTensor([1, 2]), TypeError)
    with pytest.warns(UserWarning, match=r"tandem.sparse.SparseTensor\(indices, values, shape, \*, device=\) is "
                      r"deprecated.  Please use tandem.sparse_coo_tensor\(indices, values, shape, dtype=, device=\)"):
        tandem.sparse.FloatTensor(p2t(i), p2t(v), (3, 3))


def test_is_coalesced_argument():
    t = tandem.sparse_coo_tensor([[0, 1], [2, 0]], [1.0, 2.0], (2, 3), is_coalesced=True)
    assert t.is_coalesced() and t.indices().tolist() == [[0, 1], [2, 0]]
    with pytest.raises(RuntimeError, match="is_coalesced=True but the indices are not sorted and unique"):
        tandem.sparse_coo_tensor([[1, 0], [0, 2]], [1.0, 2.0], (2, 3), is_coalesced=True)


def test_repr_matches_pytorch():
    cases = [(INDICES, VALUES, (3, 3), "float32"), ([[0, 1], [1, 0]], [1, 2], (2, 2), "int64"),
             ([[0, 1], [1, 0]], [1, 2], (2, 2), "int32"), ([[0, 1], [1, 0]], [1.25, 2], (2, 2), "float64")]
    for indices, values, size, dtype in cases:
        t, p = pair("cpu", indices, values, size, dtype)
        assert repr(t) == repr(p).replace("torch.", "tandem.")
        assert str(t.coalesce()) == str(p.coalesce()).replace("torch.", "tandem.")
    p = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.ones(2, 3))
    t = tandem.sparse_coo_tensor(tandem.tensor([[0, 1]]), tandem.ones(2, 3))
    assert repr(t) == repr(p).replace("torch.", "tandem.")
    p = torch.sparse_coo_tensor(torch.empty(2, 0, dtype=torch.long), torch.empty(0), (2, 3))
    t = tandem.sparse_coo_tensor(tandem.empty(2, 0, dtype=tandem.int64), tandem.empty(0), (2, 3))
    assert repr(t) == repr(p).replace("torch.", "tandem.")
    p = torch.sparse_coo_tensor(torch.tensor(INDICES), torch.tensor(VALUES), (3, 3), requires_grad=True)
    t = tandem.sparse_coo_tensor(tandem.tensor(INDICES), tandem.tensor(VALUES), (3, 3), requires_grad=True)
    assert repr(t) == repr(p).replace("torch.", "tandem.")
    cuda = tandem.sparse_coo_tensor(tandem.tensor([[0]]), tandem.tensor([1.0]), (2,))
    if tandem.cuda.is_available():
        cuda = cuda.cuda()
        assert repr(cuda).endswith("       device='cuda:0', size=(2,), nnz=1, layout=tandem.sparse_coo)")


@pytest.mark.parametrize("case", ["nnz", "len_size", "negative", "out_of_range_row", "out_of_range_col",
                                  "values_size", "indices_1d"])
def test_construction_errors_match_pytorch(device, case):
    i, v = torch.tensor(INDICES), torch.tensor(VALUES)
    ti, tv = tandem.tensor(INDICES, device=device), tandem.tensor(VALUES, device=device)
    args = {"nnz": ((i, v[:3], (3, 3)), (ti, tv[:3], (3, 3))),
            "len_size": ((i, v, (3,)), (ti, tv, (3,))),
            "negative": ((-i, v, (3, 3)), (-ti, tv, (3, 3))),
            "out_of_range_row": ((i, v, (2, 3)), (ti, tv, (2, 3))),
            "out_of_range_col": ((i, v, (3, 2)), (ti, tv, (3, 2))),
            "values_size": ((i[:1], torch.ones(5, 3), (3, 4)), (ti[:1], tandem.ones(5, 3, device=device), (3, 4))),
            "indices_1d": ((i[0], v), (ti[0], tv))}[case]
    # tandem always checks the indices; PyTorch does under check_invariants=True.
    raises_like(lambda: torch.sparse_coo_tensor(*args[0], check_invariants=True),
                lambda: tandem.sparse_coo_tensor(*args[1]))


def test_construction_errors_tandem(device):
    values = tandem.tensor(VALUES, device=device)
    with pytest.raises(RuntimeError, match="indices must be an int64 tensor\nhint: the indices are tandem.float32"):
        tandem.sparse_coo_tensor(tandem.tensor(INDICES, dtype=tandem.float32, device=device), values, (3, 3))
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -3"):
        tandem.sparse_coo_tensor(tandem.tensor(INDICES, device=device), values, (3, -3))
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        tandem.sparse_coo_tensor(tandem.tensor(INDICES), tandem.tensor([1, 2, 3, 4, 5]), requires_grad=True)
    # int32 indices convert, as in PyTorch.
    t = tandem.sparse_coo_tensor(tandem.tensor(INDICES, dtype=tandem.int32, device=device), values, (3, 3))
    assert t._indices().dtype == tandem.int64
    if device != "cpu":
        with pytest.raises(RuntimeError, match=rf"device of indices \(cpu\) must match device of values \({device}\)"):
            tandem.sparse_coo_tensor(tandem.tensor(INDICES), values, (3, 3))
    with pytest.raises(TypeError, match="SparseCooTensor cannot be constructed directly"):
        tandem.sparse.SparseCooTensor()


# ---- coalesce, conversions, transposes ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_coalesce(device, dtype):
    t, p = random_pair(device, dtype=dtype, seed=3)
    assert not t.is_coalesced()
    raises_like(lambda: p.indices(), lambda: t.indices())
    raises_like(lambda: p.values(), lambda: t.values())
    c = t.coalesce()
    check_sparse(c, p.coalesce(), device)
    assert c.coalesce() is c and c.values().dtype == getattr(tandem, dtype)


def test_coalesce_bool_and_hybrid(device):
    t, p = pair(device, values=[True, False, True, True, False], dtype="bool")
    check_sparse(t.coalesce(), p.coalesce(), device)
    p = torch.sparse_coo_tensor(torch.tensor([[1, 0, 1]]), torch.arange(6.).reshape(3, 2), (2, 2))
    t = tandem.sparse_coo_tensor(tandem.tensor([[1, 0, 1]]), tandem.arange(6.).reshape(3, 2), (2, 2), device=device)
    check_sparse(t.coalesce(), p.coalesce(), device)


def test_to_dense_and_to_sparse(device):
    t, p = random_pair(device, seed=1)
    check_dense(t.to_dense(), p.to_dense(), device)
    raises_like(lambda: p.to_dense(torch.float64), lambda: t.to_dense(tandem.float64))
    d = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])
    td = p2t(d, device)
    for args in [(), (1,), (2,)]:
        check_sparse(td.to_sparse(*args), d.to_sparse(*args), device)
    check_sparse(td.to_sparse_coo(), d.to_sparse_coo(), device)
    check_sparse(td.to_sparse(layout=tandem.sparse_coo), d.to_sparse(layout=torch.sparse_coo), device)
    for scalar in (3.0, 0.0):
        check_sparse(p2t(torch.tensor(scalar), device).to_sparse(), torch.tensor(scalar).to_sparse(), device)
    h = torch.zeros(3, 2, 2)
    h[1, 0, 1] = 4.0
    check_sparse(p2t(h, device).to_sparse(1), h.to_sparse(1), device)
    check_sparse(p2t(h, device).to_sparse(dense_dim=1), h.to_sparse(dense_dim=1), device)
    s = td.to_sparse()
    assert s.to_sparse() is s and s.to_sparse_coo() is s
    raises_like(lambda: d.to_sparse(3), lambda: td.to_sparse(3))
    raises_like(lambda: d.to_sparse(0), lambda: td.to_sparse(0))
    raises_like(lambda: d.to_sparse().to_sparse(1), lambda: s.to_sparse(1))


def test_transpose(device):
    t, p = random_pair(device, seed=2)
    check_sparse(t.t(), p.t(), device)
    check_sparse(t.transpose(0, 1), p.transpose(0, 1), device)
    check_sparse(t.T, p.T, device)
    check_sparse(t.coalesce().t(), p.coalesce().t(), device)
    p3 = torch.sparse_coo_tensor(torch.tensor([[0, 1], [1, 0], [2, 2]]), torch.ones(2), (2, 2, 3))
    t3 = tandem.sparse_coo_tensor(tandem.tensor([[0, 1], [1, 0], [2, 2]]), tandem.ones(2), (2, 2, 3), device=device)
    check_sparse(t3.transpose(0, 2), p3.transpose(0, 2), device)
    raises_like(lambda: p3.t(), lambda: t3.t())
    ph = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.ones(2, 3))
    th = tandem.sparse_coo_tensor(tandem.tensor([[0, 1]]), tandem.ones(2, 3), device=device)
    raises_like(lambda: ph.transpose(0, 1), lambda: th.transpose(0, 1))
    raises_like(lambda: p.transpose(0, 2), lambda: t.transpose(0, 2), IndexError)


def test_to_devices_and_dtypes(device):
    t, p = pair(device)
    check_sparse(t.double(), p.double(), device)
    check_sparse(t.to(tandem.float64), p.to(torch.float64), device)
    check_sparse(t.long(), p.long(), device)
    check_sparse(t.cpu(), p, "cpu")
    assert t.to(device) is t and t.to(tandem.float32) is t
    copied = t.to(device, copy=True)
    assert copied._indices() is not t._indices() and copied._values() is not t._values()
    check_sparse(copied, p, device)
    if tandem.cuda.is_available():
        check_sparse(t.cuda(), p, "cuda:0")
        if tandem.cuda.device_count() > 1:
            check_sparse(t.to("cuda:1"), p, "cuda:1")
        check_sparse(t.cpu().to(t.cuda()), p, "cuda:0")
    c = t.clone()
    assert c._values() is not t._values()
    check_sparse(c, p, device)
    check_sparse(copy.deepcopy(t), p, device)
    check_sparse(pickle.loads(pickle.dumps(t.cpu())), p, "cpu")
    assert t.type(tandem.float64).dtype == tandem.float64


def test_save_and_load_with_pytorch(tmp_path, device):
    t, p = random_pair(device, seed=30)
    path = tmp_path / "sparse.pt"
    tandem.save({"adj": t, "coalesced": t.coalesce(), "x": tandem.ones(2)}, path)
    loaded = torch.load(path, weights_only=True, map_location="cpu")
    assert loaded["adj"].layout is torch.sparse_coo and not loaded["adj"].is_coalesced()
    torch.testing.assert_close(loaded["adj"].cpu().to_dense(), p.to_dense())
    assert loaded["coalesced"].is_coalesced() and loaded["x"].tolist() == [1.0, 1.0]
    torch.save({"adj": p, "coalesced": p.coalesce()}, path)
    back = tandem.load(path, map_location=device)
    check_sparse(back["adj"], p, device)
    check_sparse(back["coalesced"], p.coalesce(), device)
    torch.save(p.to_sparse_csc(), path)
    with pytest.raises(NotImplementedError, match="a sparse tensor of layout torch.sparse_csc"):
        tandem.load(path)


# ---- products ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_sparse_dense_products(device, dtype):
    t, p = random_pair(device, dtype=dtype, seed=4)
    g = torch.Generator().manual_seed(5)
    d = (torch.randn(5, 3, generator=g) * 4).to(getattr(torch, dtype))
    td = p2t(d, device)
    expected = torch.sparse.mm(p, d)
    for actual in [tandem.sparse.mm(t, td), tandem.mm(t, td), tandem.spmm(t, td), t @ td, tandem.matmul(t, td),
                   t.mm(td), t.matmul(td)]:
        check_dense(actual, expected, device)
    check_dense(t @ td[:, 0], p @ d[:, 0], device)
    check_dense(tandem.matmul(t, td[:, 0]), torch.matmul(p, d[:, 0]), device)
    left = (torch.randn(4, 7, generator=g) * 4).to(getattr(torch, dtype))
    tl = p2t(left, device)
    for actual in [tl @ t, tandem.mm(tl, t), tandem.sparse.mm(tl, t), tandem.matmul(tl, t)]:
        check_dense(actual, left @ p, device)
    check_dense(tl[0] @ t, left[0] @ p, device)


def test_linear_takes_a_sparse_input(device):
    d = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]])
    lin = torch.nn.Linear(3, 2)
    tlin = tandem.nn.Linear(3, 2).to(device)
    with tandem.no_grad():
        tlin.weight.copy_(p2t(lin.weight, device))
        tlin.bias.copy_(p2t(lin.bias, device))
    x = p2t(d, device).to_sparse()
    check_dense(tlin(x), lin(d.to_sparse()), device)
    check_dense(tandem.nn.functional.linear(x, tlin.weight), torch.nn.functional.linear(d.to_sparse(), lin.weight),
                device)
    tlin(x).sum().backward()
    lin(d.to_sparse()).sum().backward()
    torch.testing.assert_close(t2p(tlin.weight.grad), lin.weight.grad)


def test_sparse_sparse_mm(device):
    a, pa = random_pair(device, n=6, m=5, nnz=12, seed=6)
    b, pb = random_pair(device, n=5, m=4, nnz=9, seed=7)
    check_sparse(tandem.sparse.mm(a, b), torch.sparse.mm(pa, pb), device)
    check_sparse(tandem.mm(a, b), torch.mm(pa, pb), device)
    check_sparse(a @ b, pa @ pb, device)
    raises_like(lambda: torch.sparse.mm(pa, pa), lambda: tandem.sparse.mm(a, a))


def test_addmm(device):
    t, p = random_pair(device, seed=8)
    g = torch.Generator().manual_seed(9)
    d, base, row = torch.randn(5, 3, generator=g), torch.randn(7, 3, generator=g), torch.randn(3, generator=g)
    td, tbase, trow = p2t(d, device), p2t(base, device), p2t(row, device)
    check_dense(tandem.sparse.addmm(tbase, t, td), torch.sparse.addmm(base, p, d), device)
    check_dense(tandem.sparse.addmm(tbase, t, td, beta=0.5, alpha=-2.0),
                torch.sparse.addmm(base, p, d, beta=0.5, alpha=-2.0), device)
    check_dense(tandem.addmm(trow, t, td, beta=2, alpha=3), torch.addmm(row, p, d, beta=2, alpha=3), device)
    check_dense(tandem.addmm(tbase, t, td, beta=0), torch.addmm(base, p, d, beta=0), device)
    check_dense(tandem.addmm(tbase, tbase[:, :1].expand(7, 5), td), torch.addmm(base, base[:, :1].expand(7, 5), d),
                device)  # the dense path is untouched


def test_product_errors(device):
    t, p = random_pair(device)
    x = tandem.ones(4, 2, device=device)
    raises_like(lambda: torch.sparse.mm(p, torch.ones(4, 2)), lambda: tandem.sparse.mm(t, x))
    raises_like(lambda: torch.mm(p, torch.ones(4, 2)), lambda: tandem.mm(t, x))
    raises_like(lambda: p @ torch.ones(4, 2), lambda: t @ x)
    raises_like(lambda: torch.sparse.mm(p, torch.ones(5, 2, dtype=torch.float64)),
                lambda: tandem.sparse.mm(t, tandem.ones(5, 2, dtype=tandem.float64, device=device)))
    raises_like(lambda: torch.sparse.mm(p, torch.ones(5)), lambda: tandem.sparse.mm(t, tandem.ones(5)), IndexError)
    ph = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.ones(2, 3))
    th = tandem.sparse_coo_tensor(tandem.tensor([[0, 1]]), tandem.ones(2, 3), device=device)
    raises_like(lambda: torch.sparse.mm(ph, torch.ones(3, 2)), lambda: tandem.sparse.mm(th, tandem.ones(3, 2)))
    with pytest.raises(TypeError, match="must be Tensor, not str"):
        tandem.matmul(t, "x")
    with pytest.raises(TypeError):
        t @ "x"


# ---- elementwise ops and reductions --------------------------------------------------------------------------------

def test_add_sub(device):
    a, pa = random_pair(device, seed=10)
    b, pb = random_pair(device, seed=11)
    check_sparse(a + b, pa + pb, device)
    check_sparse(a.coalesce() + b.coalesce(), pa.coalesce() + pb.coalesce(), device)
    check_sparse(a.add(b, alpha=2), pa.add(pb, alpha=2), device)
    check_sparse(a - b, pa - pb, device)
    check_sparse(a.sub(b, alpha=3), pa.sub(pb, alpha=3), device)
    check_sparse(a + b.double(), pa + pb.double(), device)
    d = torch.arange(35.0).reshape(7, 5)
    td = p2t(d, device)
    check_dense(td + a, d + pa, device)
    check_dense(td - a, d - pa, device)
    check_dense(td.long() + a, d.long() + pa, device)
    check_dense(tandem.eye(7, 5, device=device) + a.long(), torch.eye(7, 5) + pa.long(), device)
    raises_like(lambda: pa + d, lambda: a + td)
    raises_like(lambda: pa + 1, lambda: a + 1)
    raises_like(lambda: 1 + pa, lambda: 1 + a)
    raises_like(lambda: pa + pa.t(), lambda: a + a.t())
    raises_like(lambda: torch.ones(5) + pa, lambda: tandem.ones(5, device=device) + a)


def test_mul_div_neg(device):
    a, pa = random_pair(device, seed=12)
    b, pb = random_pair(device, seed=13)
    check_sparse(a * 2.5, pa * 2.5, device)
    check_sparse(3 * a, 3 * pa, device)
    check_sparse(a * tandem.tensor(2.0, device=device), pa * torch.tensor(2.0), device)
    check_sparse(a.coalesce() * 2, pa.coalesce() * 2, device)
    # The entries both hold. (PyTorch's kernel also keeps explicit zeros when an operand is uncoalesced.)
    check_sparse(a * b, pa.coalesce() * pb.coalesce(), device)
    check_dense((a * b).to_dense(), (pa * pb).to_dense(), device)
    d = torch.arange(35.0).reshape(7, 5)
    check_sparse(a * p2t(d, device), pa * d, device)
    check_sparse(p2t(d, device) * a, d * pa, device)
    check_sparse(a * p2t(d[0], device), pa * d[0], device)
    check_sparse(a / 4, pa / 4, device)
    check_sparse(a.long() / 2, pa.long() / 2, device)
    check_sparse(-a, -pa, device)
    check_sparse(a.neg(), pa.neg(), device)
    raises_like(lambda: pa / pa, lambda: a / a)
    raises_like(lambda: pa / d, lambda: a / p2t(d, device))
    c = a.clone()
    c.mul_(2)
    check_sparse(c, pa * 2, device)
    c.div_(4)
    check_sparse(c, pa / 2, device)
    c.zero_()
    assert c._nnz() == 0 and c.is_coalesced() and c.to_dense().abs().sum().item() == 0


def test_hybrid_arithmetic(device):
    pi, pv = torch.tensor([[2, 0, 2]]), torch.arange(6.0).reshape(3, 2) - 2
    p = torch.sparse_coo_tensor(pi, pv, (4, 2))
    t = tandem.sparse_coo_tensor(p2t(pi), p2t(pv), (4, 2), device=device)
    check_sparse(t + t, p + p, device)
    check_sparse(t * 3, p * 3, device)
    check_sparse(t * p2t(torch.arange(8.0).reshape(4, 2), device), p * torch.arange(8.0).reshape(4, 2), device)
    check_sparse(t.coalesce() * t.coalesce(), p.coalesce() * p.coalesce(), device)
    check_sparse(t.abs(), p.abs(), device)
    check_dense(t.sum(), p.sum(), device)
    check_sparse(tandem.sparse.sum(t, 1), torch.sparse.sum(p, 1), device)


@pytest.mark.parametrize("name", ["abs", "relu", "sqrt", "sin", "tanh", "sign", "expm1", "log1p", "floor", "neg"])
def test_zero_preserving_unary(device, name):
    a, pa = random_pair(device, seed=14)
    check_sparse(getattr(a, name)(), getattr(pa, name)(), device, atol=1e-5)


def test_pow(device):
    a, pa = random_pair(device, seed=15)
    check_sparse(a.pow(2), pa.pow(2), device)
    check_sparse(a ** 3, pa ** 3, device)
    with pytest.raises(RuntimeError, match="^pow: cannot raise to zeroth power on sparse tensor"):  # PyTorch's
        a.pow(0)
    with pytest.raises(RuntimeError, match="exponent must be a positive number"):
        a.pow(-1)


def test_sum(device):
    a, pa = random_pair(device, seed=16)
    check_dense(tandem.sparse.sum(a), torch.sparse.sum(pa), device)
    check_dense(a.sum(), pa.sum(), device)
    check_dense(tandem.sparse.sum(a, (0, 1)), torch.sparse.sum(pa, (0, 1)), device)
    for dim in [0, 1, -1]:
        check_sparse(tandem.sparse.sum(a, dim), torch.sparse.sum(pa, dim), device)
        check_sparse(a.sum(dim), pa.sum(dim), device)
    # PyTorch marks this one uncoalesced though its indices are unique; tandem's is coalesced.
    check_sparse(a.sum(0, keepdim=True), pa.sum(0, keepdim=True).coalesce(), device)
    check_dense(tandem.sparse.sum(a, dtype=tandem.float64), torch.sparse.sum(pa, dtype=torch.float64), device)
    assert tandem.sparse.sum(a.int()).dtype == tandem.int64
    ph = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1]]), torch.arange(9.).reshape(3, 3), (2, 3))
    th = tandem.sparse_coo_tensor(tandem.tensor([[0, 1, 1]]), tandem.arange(9.).reshape(3, 3), (2, 3), device=device)
    check_dense(tandem.sparse.sum(th, 0), torch.sparse.sum(ph, 0), device)
    check_sparse(tandem.sparse.sum(th, 1), torch.sparse.sum(ph, 1), device)
    raises_like(lambda: torch.sparse.sum(pa, 2), lambda: tandem.sparse.sum(a, 2), IndexError)
    raises_like(lambda: torch.sparse.sum(pa, (0, 0)), lambda: tandem.sparse.sum(a, (0, 0)))


@pytest.mark.parametrize("log", [False, True])
def test_softmax(device, log):
    fn_t = tandem.sparse.log_softmax if log else tandem.sparse.softmax
    fn_p = torch.sparse.log_softmax if log else torch.sparse.softmax
    a, pa = random_pair(device, seed=17)
    for dim in [0, 1, -1]:
        check_sparse(fn_t(a, dim), fn_p(pa, dim).coalesce(), device)
    check_sparse(fn_t(a, 1, dtype=tandem.float64), fn_p(pa, 1, dtype=torch.float64).coalesce(), device)
    p3 = torch.sparse_coo_tensor(torch.tensor([[0, 1, 1, 0], [1, 0, 0, 1], [2, 2, 0, 0]]),
                                 torch.tensor([1.0, 2.0, 3.0, -1.0]), (2, 2, 3))
    t3 = tandem.sparse_coo_tensor(p2t(p3._indices()), p2t(p3._values()), (2, 2, 3), device=device)
    for dim in range(3):
        check_sparse(fn_t(t3, dim), fn_p(p3, dim).coalesce(), device)
    ph = torch.sparse_coo_tensor(torch.tensor([[0, 1]]), torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]]), (3, 3))
    th = tandem.sparse_coo_tensor(p2t(ph._indices()), p2t(ph._values()), (3, 3), device=device)
    for dim in range(2):
        check_sparse(fn_t(th, dim), fn_p(ph, dim).coalesce(), device)
    # Few entries among many slices: the slices are numbered with unique() instead of by position.
    pw = torch.sparse_coo_tensor(torch.tensor([[5, 99999, 5, 7], [0, 2, 1, 1]]), torch.tensor([1.0, 2.0, 3.0, 4.0]),
                                 (100000, 3))
    tw = tandem.sparse_coo_tensor(p2t(pw._indices()), p2t(pw._values()), (100000, 3), device=device)
    check_sparse(fn_t(tw, 1), fn_p(pw, 1).coalesce(), device)
    raises_like(lambda: fn_p(pa, 2), lambda: fn_t(a, 2), IndexError)
    raises_like(lambda: fn_p(pa.long(), 1), lambda: fn_t(a.long(), 1), NotImplementedError)


# ---- autograd ------------------------------------------------------------------------------------------------------

def grads_pair(device, seed=20):
    """Values requiring grad (as GAT's attention weights) and a dense operand requiring grad, in both libraries."""
    g = torch.Generator().manual_seed(seed)
    indices = torch.stack([torch.randint(0, 6, (15,), generator=g), torch.randint(0, 5, (15,), generator=g)])
    pv = torch.randn(15, generator=g, dtype=torch.float64).requires_grad_()
    px = torch.randn(5, 3, generator=g, dtype=torch.float64).requires_grad_()
    tv = p2t(pv, device).requires_grad_()
    tx = p2t(px, device).requires_grad_()
    ps = torch.sparse_coo_tensor(indices, pv, (6, 5))
    ts = tandem.sparse_coo_tensor(p2t(indices, device), tv, (6, 5))
    return (ts, tv, tx), (ps, pv, px)


@pytest.mark.parametrize("op", ["mm", "matmul", "addmm", "to_dense", "coalesce", "softmax", "log_softmax", "sum_dim",
                                "mul_dense", "add", "transpose", "sparse_sparse"])
def test_gradients_through_values_and_dense_operand(device, op):
    (ts, tv, tx), (ps, pv, px) = grads_pair(device)
    w = torch.arange(18, dtype=torch.float64).reshape(6, 3) / 7
    tw = p2t(w, device)
    forward = {
        "mm": lambda lib, s, x, w: (lib.sparse.mm(s, x) * w).sum(),
        "matmul": lambda lib, s, x, w: (s @ x * w).sum(),
        "addmm": lambda lib, s, x, w: (lib.sparse.addmm(w, s, x, beta=0.5, alpha=2) ** 2).sum(),
        "to_dense": lambda lib, s, x, w: (s.to_dense() ** 2).sum(),
        "coalesce": lambda lib, s, x, w: (s.coalesce().values() ** 2).sum(),
        "softmax": lambda lib, s, x, w: (lib.sparse.softmax(s, 1).to_dense() @ x * w).sum(),
        "log_softmax": lambda lib, s, x, w: (lib.sparse.log_softmax(s, 0).to_dense() * w[:, :1]).sum(),
        "sum_dim": lambda lib, s, x, w: (lib.sparse.sum(s, 1).to_dense() * w[:, 0]).sum(),
        "mul_dense": lambda lib, s, x, w: ((s * (w @ x.t())).to_dense() ** 2).sum(),
        "add": lambda lib, s, x, w: ((s + s * 2).to_dense() * (w @ x.t())).sum(),
        "transpose": lambda lib, s, x, w: (s.t() @ w * x[:, :1]).sum(),
        "sparse_sparse": lambda lib, s, x, w: (lib.sparse.mm(s, s.t()).to_dense() * (w @ w.t())).sum(),
    }[op]
    forward(torch, ps, px, w).backward()
    loss = forward(tandem, ts, tx, tw)
    loss.backward()
    torch.testing.assert_close(t2p(tv.grad), pv.grad)
    if px.grad is not None:
        torch.testing.assert_close(t2p(tx.grad), px.grad)
    else:
        assert tx.grad is None


def test_gradients_through_to_sparse(device):
    d = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -3.0]], dtype=torch.float64, requires_grad=True)
    td = p2t(d, device).requires_grad_()
    w = torch.arange(3.0, dtype=torch.float64).reshape(3, 1)
    (torch.sparse.mm(d.to_sparse(), w) ** 2).sum().backward()
    (tandem.sparse.mm(td.to_sparse(), p2t(w, device)) ** 2).sum().backward()
    torch.testing.assert_close(t2p(td.grad), d.grad)


def test_sparse_leaf_grad(device):
    p = torch.sparse_coo_tensor(torch.tensor(INDICES), torch.tensor(VALUES), (3, 3), requires_grad=True)
    t = tandem.sparse_coo_tensor(tandem.tensor(INDICES), tandem.tensor(VALUES), (3, 3), requires_grad=True,
                                 device=device)
    assert t.is_leaf and t.requires_grad and t.grad is None
    x = torch.arange(6.0).reshape(3, 2)
    torch.sparse.mm(p, x).sum().backward()
    tandem.sparse.mm(t, p2t(x, device)).sum().backward()
    check_sparse(t.grad, p.grad.coalesce(), device)  # PyTorch's indices are unique too, its flag says otherwise
    t.grad = None
    assert t.grad is None
    # requires_grad_ on a plain sparse tensor leaves the tensor its values came from alone.
    values = tandem.tensor(VALUES, device=device)
    s = tandem.sparse_coo_tensor(tandem.tensor(INDICES, device=device), values, (3, 3)).coalesce().requires_grad_()
    assert s.requires_grad and not values.requires_grad
    (s.to_dense() * 2).sum().backward()
    assert t2p(s.grad.values()).tolist() == [2.0] * 4
    # A sparse tensor made from values that require grad is not a leaf: the values' own leaf gets the gradient.
    (ts, tv, _), _ = grads_pair(device)
    assert not ts.is_leaf and ts.grad_fn is not None and ts.detach().grad_fn is None


def special_spmm(lib):
    """pyGAT's SpecialSpmmFunction: a custom Function that saves a sparse tensor for its backward."""

    class SpecialSpmm(lib.autograd.Function):
        @staticmethod
        def forward(ctx, indices, values, shape, b):
            a = lib.sparse_coo_tensor(indices, values, shape)
            ctx.save_for_backward(a, b)
            ctx.N = shape[0]
            return lib.matmul(a, b)

        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            grad_values = grad_b = None
            if ctx.needs_input_grad[1]:
                grad_a_dense = grad_output.matmul(b.t())
                edge_idx = a._indices()[0, :] * ctx.N + a._indices()[1, :]
                grad_values = grad_a_dense.view(-1)[edge_idx]
            if ctx.needs_input_grad[3]:
                grad_b = a.t().matmul(grad_output)
            return None, grad_values, None, grad_b

    return SpecialSpmm


def test_sparse_tensor_saved_by_a_custom_function(device):
    (_, tv, tx), (_, pv, px) = grads_pair(device)
    g = torch.Generator().manual_seed(21)
    indices = torch.stack([torch.randint(0, 6, (15,), generator=g), torch.randint(0, 5, (15,), generator=g)])
    w = torch.arange(18, dtype=torch.float64).reshape(6, 3)
    (special_spmm(torch).apply(indices, pv, torch.Size([6, 5]), px) * w).sum().backward()
    out = special_spmm(tandem).apply(p2t(indices, device), tv, tandem.Size([6, 5]), tx)
    assert out.grad_fn.name() == "SpecialSpmmBackward"
    (out * p2t(w, device)).sum().backward()
    torch.testing.assert_close(t2p(tv.grad), pv.grad)
    torch.testing.assert_close(t2p(tx.grad), px.grad)


# ---- what sparse tensors refuse --------------------------------------------------------------------------------------

def test_refusals(device):
    t, p = pair(device)
    if device == "cpu":
        raises_like(lambda: p.exp(), lambda: t.exp(), NotImplementedError)
        raises_like(lambda: p == p, lambda: t == t, NotImplementedError)
    else:
        with pytest.raises(NotImplementedError, match="Could not run 'aten::exp' with arguments from the 'SparseCUDA'"):
            t.exp()
    with pytest.raises(NotImplementedError, match="call .to_dense\\(\\) first"):
        t.view(-1)
    # A sparse tensor is a Tensor: public functions without a sparse form refuse it as PyTorch's do.
    raises_like(lambda: torch.exp(p), lambda: tandem.exp(t), NotImplementedError, device)
    with pytest.raises(NotImplementedError, match="Could not run 'aten::exp'"):
        tandem.exp(t)
    dense, dense_p = tandem.ones(3, 3, device=device), torch.ones(3, 3)
    check_dense(dense.add(t), dense_p.add(p), device)
    raises_like(lambda: dense_p / p, lambda: dense / t, RuntimeError, device)
    assert tandem.is_tensor(dense) and not tandem.is_tensor([1])
    raises_like(lambda: p.numpy(), lambda: t.numpy(), TypeError)
    with pytest.raises(TypeError, match="Use Tensor.to_dense\\(\\) first"):
        np.asarray(t)
    raises_like(lambda: bool(p), lambda: bool(t))
    raises_like(lambda: p.item(), lambda: t.item())
    with pytest.raises(NotImplementedError):
        t[0]
    with pytest.raises(AttributeError):
        t.no_such_attribute
    assert hash(t) == hash(t)


# ---- end to end: a GCN as pytorch/examples writes it -----------------------------------------------------------------

def gcn_program(lib, device, features, adj_indices, weights, steps=5):
    """Kipf & Welling's 2-layer GCN on a normalised adjacency (D^-1/2 (A + I) D^-1/2) built as pytorch/examples/gcn
    builds it; returns the training losses. The same code runs with lib = torch or tandem."""
    nn, F = lib.nn, lib.nn.functional

    class GraphConv(nn.Module):
        def __init__(self, kernel, bias):
            super().__init__()
            self.kernel = nn.Parameter(kernel)
            self.bias = nn.Parameter(bias)

        def forward(self, x, adj):
            support = lib.mm(x, self.kernel)
            return lib.spmm(adj, support) + self.bias

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.gc1 = GraphConv(*weights[:2])
            self.gc2 = GraphConv(*weights[2:])

        def forward(self, x, adj):
            x = F.relu(self.gc1(x, adj))
            return F.log_softmax(self.gc2(x, adj), dim=1)

    n = features.shape[0]
    adj = lib.sparse_coo_tensor(adj_indices, lib.ones(adj_indices.shape[1], device=device), (n, n), dtype=lib.int64)
    adj = lib.eye(n, device=device) + adj  # self loops: dense + sparse
    degree = lib.diag(lib.sqrt(1 / lib.sum(adj, dim=1))).to_sparse()
    adj = (degree @ adj @ degree).to_sparse()
    features = lib.diag(1 / features.sum(1)).to_sparse() @ features
    labels = lib.arange(n, device=device) % weights[3].shape[0]
    model = GCN()
    optimizer = lib.optim.Adam(model.parameters(), lr=0.05, weight_decay=5e-4)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = F.nll_loss(model(features.to_sparse(), adj)[: n // 2], labels[: n // 2])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def test_gcn_trains_like_pytorch(device):
    g = torch.Generator().manual_seed(0)
    n, f, hidden, classes = 30, 12, 8, 3
    features = (torch.rand(n, f, generator=g) < 0.3).float() + torch.eye(n, f)
    edges = torch.randint(0, n, (2, 60), generator=g)
    edges = edges[:, edges[0] != edges[1]]
    weights = [torch.randn(f, hidden, generator=g) * 0.3, torch.zeros(hidden),
               torch.randn(hidden, classes, generator=g) * 0.3, torch.zeros(classes)]
    expected = gcn_program(torch, "cpu", features, edges.numpy().astype(np.int32), [w.clone() for w in weights])
    actual = gcn_program(tandem, device, p2t(features, device), edges.numpy().astype(np.int32),
                         [p2t(w, device) for w in weights])
    np.testing.assert_allclose(actual, expected, rtol=2e-5, atol=2e-6)
    assert expected[-1] < expected[0]


def test_sparse_operand_refuses_out_and_unknown_keywords(device):
    a = tandem.ones((3, 3), device=device)
    t, _ = pair(device)
    for name, args in (("mm", (t, a)), ("matmul", (t, a)), ("addmm", (a, t, a))):
        with pytest.raises(TypeError, match=f"^{name}\\(\\): out= is not supported with a sparse operand\n"):
            getattr(tandem, name)(*args, out=tandem.empty((3, 3), device=device))
        with pytest.raises(TypeError, match=f"^{name}\\(\\) got an unexpected keyword argument 'bogus'$"):
            getattr(tandem, name)(*args, bogus=1)
    # The dense path is the C++ function's, keywords and all.
    torch.testing.assert_close(t2p(tandem.addmm(a, a, a, beta=2, alpha=0.5)), torch.full((3, 3), 3.5))
