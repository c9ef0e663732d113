"""Sparse CSR tensors (tandem.sparse_csr) against PyTorch on every device: construction with PyTorch's size
inference and invariant messages, repr, conversions from and to dense and COO, products with dense operands,
gradients through the values and the dense operand, scaling, sums, the errors of what CSR tensors refuse, and a
GCN step with a CSR adjacency."""
import copy
import pickle

import pytest
import torch

import tandem
from sparse_helpers import p2t, raises_like, t2p

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning",
                                        "ignore:Sparse invariant checks:UserWarning",
                                        "ignore:Validating sparse tensor invariants:UserWarning")

CROW, COL, VALUES = [0, 2, 3, 3], [0, 2, 1], [1.0, 2.0, 3.0]


def pair(device, crow=CROW, col=COL, values=VALUES, size=(3, 4), dtype="float64", index_dtype="int64"):
    """The same CSR matrix in tandem (on device) and torch (on cpu)."""
    p = torch.sparse_csr_tensor(torch.tensor(crow, dtype=getattr(torch, index_dtype)),
                                torch.tensor(col, dtype=getattr(torch, index_dtype)),
                                torch.tensor(values, dtype=getattr(torch, dtype)), size)
    t = tandem.sparse_csr_tensor(tandem.tensor(crow, dtype=getattr(tandem, index_dtype)),
                                 tandem.tensor(col, dtype=getattr(tandem, index_dtype)),
                                 tandem.tensor(values, dtype=getattr(tandem, dtype)), size, device=device)
    return t, p


def random_pair(device, n=6, m=5, density=0.4, seed=0, dtype="float64"):
    g = torch.Generator().manual_seed(seed)
    dense = torch.randn(n, m, generator=g, dtype=torch.float64) * (torch.rand(n, m, generator=g) < density)
    p = dense.to(getattr(torch, dtype)).to_sparse_csr()
    return tandem.sparse_csr_tensor(p2t(p.crow_indices(), device), p2t(p.col_indices(), device),
                                    p2t(p.values(), device), p.shape), p


def check_dense(actual, expected, device, rtol=1e-6, atol=1e-7):
    assert isinstance(actual, tandem.Tensor)
    assert str(actual.device) == device
    torch.testing.assert_close(t2p(actual), expected, rtol=rtol, atol=atol)


def check_csr(actual, expected, device, rtol=1e-6, atol=1e-7):
    """Same size, dtype, device and the same three parts (index dtypes included)."""
    assert isinstance(actual, tandem.sparse.SparseCsrTensor)
    assert actual.layout is tandem.sparse_csr and actual.is_sparse_csr and not actual.is_sparse
    assert tuple(actual.shape) == tuple(expected.shape)
    assert str(actual.device) == device
    for part in ("crow_indices", "col_indices"):
        a, e = getattr(actual, part)(), getattr(expected, part)()
        assert str(a.device) == device
        assert t2p(a).dtype == e.dtype and t2p(a).tolist() == e.tolist()
    torch.testing.assert_close(t2p(actual.values()), expected.values(), rtol=rtol, atol=atol)


# ---- construction -------------------------------------------------------------------------------------------------

def test_layout_object_and_dense_methods():
    assert repr(tandem.sparse_csr) == "tandem.sparse_csr" and tandem.sparse_csr is not tandem.sparse_coo
    assert pickle.loads(pickle.dumps(tandem.sparse_csr)) is tandem.sparse_csr
    x = tandem.ones(2, 3)
    assert not x.is_sparse_csr
    for name in ("crow_indices", "col_indices"):
        raises_like(lambda: getattr(torch.ones(2, 3), name)(), lambda: getattr(x, name)())


def test_construction_and_accessors(device):
    t, p = pair(device)
    check_csr(t, p, device)
    assert t._nnz() == 3 and t.dim() == 2 and t.ndim == 2 and t.numel() == 12 and len(t) == 3
    assert t.size() == tandem.Size([3, 4]) and t.size(-1) == 4 and t.shape == (3, 4)
    assert t.sparse_dim() == 2 and t.dense_dim() == 0
    assert t.dtype == tandem.float64 and t.is_cuda == device.startswith("cuda")
    assert tandem.is_tensor(t) and isinstance(t, tandem.Tensor)
    assert not t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None
    raises_like(lambda: p.size(5), lambda: t.size(5), IndexError)


@pytest.mark.parametrize("args", [
    (CROW, COL, VALUES, None),                   # size inferred: (rows, largest column + 1)
    ([0, 0, 0], [], [], (2, 2)),                 # no entries
    ([0], [], [], None),                         # 0 x 0
    ([0, 1, 3], [4, 0, 2], [1, 2, 3], (2, 7)),   # integer values
])
def test_size_inference_and_inputs(device, args):
    crow, col, values, size = args
    size = () if size is None else (size,)  # PyTorch takes no size=None
    integer = bool(values) and isinstance(values[0], int)
    p = torch.sparse_csr_tensor(torch.tensor(crow, dtype=torch.long), torch.tensor(col, dtype=torch.long),
                                torch.tensor(values, dtype=torch.int64 if integer else torch.float32), *size)
    t = tandem.sparse_csr_tensor(tandem.tensor(crow, dtype=tandem.int64), tandem.tensor(col, dtype=tandem.int64),
                                 tandem.tensor(values, dtype=tandem.int64 if integer else tandem.float32), *size,
                                 device=device)
    check_csr(t, p, device)


def test_empty_index_lists_are_int64(device):
    # PyTorch keeps the float32 of torch.tensor([]) as col_indices' dtype (a tensor it then cannot check).
    t = tandem.sparse_csr_tensor([0, 0, 0], [], [], (2, 2), device=device)
    assert t.col_indices().dtype == tandem.int64 and t.crow_indices().dtype == tandem.int64
    check_dense(t.to_dense(), torch.zeros(2, 2), device)


def test_index_dtypes_lists_and_dtype(device):
    t, p = pair(device, index_dtype="int32", dtype="float32")
    check_csr(t, p, device)  # int32 indices stay int32, as in PyTorch
    p = torch.sparse_csr_tensor([0, 1], [0], [5.0], dtype=torch.float16)
    t = tandem.sparse_csr_tensor([0, 1], [0], [5.0], dtype=tandem.float16, device=device)
    check_csr(t, p, device)
    check_dense(t.to_dense(), p.to_dense(), device)


# (crow, col, values, size): each breaks one invariant; tandem checks all but the sorted-rows one always.
BROKEN = [
    (CROW, COL, VALUES, (2, 4)),         # crow_indices too long for 2 rows
    ([1, 2, 3, 3], COL, VALUES, (3, 4)),  # does not start at 0
    ([0, 2, 3, 4], COL, VALUES, (3, 4)),  # does not end at nnz
    ([0, 2, 1, 3], COL, VALUES, (3, 4)),  # a row with a negative count
    ([0, 3, 3, 3], COL, VALUES, (3, 2)),  # a row with more entries than columns
    (CROW, [0, -1, 1], VALUES, (3, 4)),   # a negative column
    (CROW, COL, VALUES, (3, 2)),         # a column past the end
    (CROW, COL, VALUES[:2], (3, 4)),     # values shorter than col_indices
]


@pytest.mark.parametrize("case", range(len(BROKEN)))
def test_invariants_checked_with_pytorch_messages(device, case):
    crow, col, values, size = BROKEN[case]

    def make(lib, dev, **kwargs):
        return lib.sparse_csr_tensor(lib.tensor(crow), lib.tensor(col), lib.tensor(values), size, device=dev,
                                     **kwargs)

    raises_like(lambda: make(torch, "cpu", check_invariants=True), lambda: make(tandem, device))
    raises_like(lambda: make(torch, "cpu", check_invariants=True), lambda: make(tandem, device, check_invariants=True))


def test_sorted_rows_checked_on_request(device):
    for col in ([2, 0, 1], [0, 0, 1]):  # unsorted, repeated
        def make(lib, dev, **kwargs):
            return lib.sparse_csr_tensor(lib.tensor(CROW), lib.tensor(col), lib.tensor(VALUES), (3, 4), device=dev,
                                         **kwargs)

        raises_like(lambda: make(torch, "cpu", check_invariants=True), lambda: make(tandem, device,
                                                                                  check_invariants=True))
        # Accepted without the request, as in PyTorch; repeated columns add up, as PyTorch's to_dense does.
        check_dense(make(tandem, device).to_dense(), make(torch, "cpu").to_dense(), device)


def test_construction_errors(device):
    crow, col, values = torch.tensor(CROW), torch.tensor(COL), torch.tensor(VALUES)
    tcrow, tcol, tvalues = (p2t(x, device) for x in (crow, col, values))
    raises_like(lambda: torch.sparse_csr_tensor(crow.float(), col, values, (3, 4), check_invariants=True),
                lambda: tandem.sparse_csr_tensor(tcrow.float(), tcol, tvalues, (3, 4)))
    raises_like(lambda: torch.sparse_csr_tensor(crow, col.int(), values, (3, 4), check_invariants=True),
                lambda: tandem.sparse_csr_tensor(tcrow, tcol.int(), tvalues, (3, 4)))
    raises_like(lambda: torch.sparse_csr_tensor(crow.short(), col.short(), values, (3, 4), check_invariants=True),
                lambda: tandem.sparse_csr_tensor(tcrow.short(), tcol.short(), tvalues, (3, 4)))
    raises_like(lambda: torch.sparse_csr_tensor(crow, col[None], values, (3, 4), check_invariants=True),
                lambda: tandem.sparse_csr_tensor(tcrow, tcol[None], tvalues, (3, 4)))
    for size in ((3, 4, 5), (3,)):
        raises_like(lambda: torch.sparse_csr_tensor(crow, col, values, size, check_invariants=True),
                    lambda: tandem.sparse_csr_tensor(tcrow, tcol, tvalues, size))
    raises_like(lambda: torch.sparse_csr_tensor(crow, col, values.long(), (3, 4), requires_grad=True),
                lambda: tandem.sparse_csr_tensor(tcrow, tcol, tvalues.long(), (3, 4), requires_grad=True))
    raises_like(lambda: torch.sparse_csr_tensor(crow, col, values, [3, 4.5]),
                lambda: tandem.sparse_csr_tensor(tcrow, tcol, tvalues, [3, 4.5]), TypeError)
    raises_like(lambda: torch.sparse_csr_tensor(crow, col, values, (3, 2**62)),
                lambda: tandem.sparse_csr_tensor(tcrow, tcol, tvalues, (3, 2**62)))
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -3: \[-3, 4\]"):
        tandem.sparse_csr_tensor(tcrow, tcol, tvalues, (-3, 4))
    with pytest.raises(NotImplementedError, match="batched CSR tensors are not supported"):
        tandem.sparse_csr_tensor(tcrow[None], tcol[None], tvalues[None], (1, 3, 4))
    with pytest.raises(RuntimeError, match=r"dense dimensionalities \(=0 \+ 2 \+ 1\) but got 2"):
        tandem.sparse_csr_tensor(tcrow, tcol, tvalues[:, None], (3, 4))  # PyTorch builds it and misreads it later
    if device != "cpu":
        with pytest.raises(RuntimeError, match=r"device of crow_indices \(cpu\) must match device of values "
                                               rf"\({device}\)"):
            tandem.sparse_csr_tensor(tcrow.cpu(), tcol, tvalues, (3, 4))


def test_hybrid_csr(device):
    """Values with dense dims (PyTorch Geometric's GAT returns its attention heads this way): construction, repr,
    conversions, sums, scaling and transposes as PyTorch's; products refuse them, as PyTorch's do."""
    values = torch.arange(12, dtype=torch.float64).reshape(3, 2, 2)
    p = torch.sparse_csr_tensor(torch.tensor(CROW), torch.tensor(COL), values)
    t = tandem.sparse_csr_tensor(tandem.tensor(CROW, device=device), tandem.tensor(COL, device=device),
                                 p2t(values, device))
    assert t.shape == p.shape == (3, 3, 2, 2) and t.dense_dim() == p.dense_dim() == 2 and t.sparse_dim() == 2
    check_dense(t.to_dense(), p.to_dense(), device)
    check_dense(t.to_sparse_coo().to_dense(), p.to_sparse_coo().to_dense(), device)
    check_dense(t.sum(), p.sum(), device)
    check_dense((t * 2).to_dense(), (p * 2).to_dense(), device)
    if device == "cpu":
        assert repr(t).replace("tandem.", "torch.") == repr(p)
    sized = tandem.sparse_csr_tensor(t.crow_indices(), t.col_indices(), t.values(), (3, 5, 2, 2))
    assert sized.shape == (3, 5, 2, 2)
    raises_like(lambda: p.t(), lambda: t.t())
    coo_p, coo = p.to_sparse_coo(), t.to_sparse_coo()
    for convert in (lambda x: x.to_sparse_csr(), lambda x: x.to_sparse_csc()):  # a hybrid COO tensor converts
        got, want = convert(coo), convert(coo_p)
        assert got.shape == want.shape and repr(got.layout).split(".")[1] == repr(want.layout).split(".")[1]
        check_dense(got.to_dense(), want.to_dense(), device)
    raises_like(lambda: p @ torch.ones(3, 2, dtype=torch.float64),
                lambda: t @ tandem.ones(3, 2, dtype=tandem.float64, device=device))


def test_repr_matches_pytorch():
    for kwargs in ({}, {"dtype": "float32"}, {"index_dtype": "int32"}, {"crow": [0, 0, 0], "col": [], "values": [],
                                                                          "size": (2, 2)}):
        t, p = pair("cpu", **kwargs)
        assert repr(t) == repr(p).replace("torch.", "tandem.")
    t, p = random_pair("cpu", n=12, m=12, density=0.7)
    assert repr(t) == repr(p).replace("torch.", "tandem.")
    t, p = pair("cpu")
    t.requires_grad_()
    p.requires_grad_()
    assert repr(t) == repr(p).replace("torch.", "tandem.")
    assert str(t * 2).endswith("layout=tandem.sparse_csr, grad_fn=<MulBackward0>)")


def test_repr_on_cuda(device):
    if device == "cpu":
        pytest.skip("the device= suffix")
    t, _ = pair(device, dtype="float32")
    assert repr(t) == ("tensor(crow_indices=tensor([0, 2, 3, 3]),\n       col_indices=tensor([0, 2, 1]),\n"
                       f"       values=tensor([1., 2., 3.]), device='{device}', size=(3, 4), nnz=3,\n"
                       "       layout=tandem.sparse_csr)")


# ---- conversions --------------------------------------------------------------------------------------------------

def test_conversions(device):
    d = torch.tensor([[0.0, 1.5, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 4.0, 0.0]], dtype=torch.float64)
    x = p2t(d, device)
    check_csr(x.to_sparse_csr(), d.to_sparse_csr(), device)
    check_csr(x.to_sparse(layout=tandem.sparse_csr), d.to_sparse(layout=torch.sparse_csr), device)
    check_csr(x.to_sparse().to_sparse_csr(), d.to_sparse().to_sparse_csr(), device)
    # An uncoalesced COO tensor: duplicates summed on the way.
    i, v = torch.tensor([[2, 0, 2, 0], [1, 3, 1, 0]]), torch.tensor([1.0, 2.0, 3.0, 4.0])
    coo_p = torch.sparse_coo_tensor(i, v, (3, 4))
    coo_t = tandem.sparse_coo_tensor(p2t(i), p2t(v), (3, 4), device=device)
    check_csr(coo_t.to_sparse_csr(), coo_p.to_sparse_csr(), device)
    check_csr(coo_t.to_sparse(layout=tandem.sparse_csr), coo_p.to_sparse(layout=torch.sparse_csr), device)
    t, p = pair(device)
    check_dense(t.to_dense(), p.to_dense(), device)
    for fn in (lambda a: a.to_sparse_coo(), lambda a: a.to_sparse(), lambda a: a.to_sparse(2)):
        coo = fn(t)
        assert isinstance(coo, tandem.sparse.SparseCooTensor) and coo.is_coalesced()
        assert t2p(coo.indices()).tolist() == fn(p).indices().tolist()
        check_dense(coo.values(), fn(p).values(), device)
    assert t.to_sparse_csr() is t and t.to_sparse(layout=tandem.sparse_csr) is t
    check_dense(t.to_sparse(layout=tandem.sparse_coo).to_dense(), p.to_dense(), device)


def test_conversion_errors(device):
    t, p = pair(device)
    x = tandem.ones(3, 4, device=device)
    raises_like(lambda: torch.ones(3, 4).to_sparse_csr(dense_dim=1), lambda: x.to_sparse_csr(dense_dim=1))
    raises_like(lambda: torch.ones(3, 4).to_sparse(layout=torch.sparse_csr, blocksize=(1, 1)),
                lambda: x.to_sparse(layout=tandem.sparse_csr, blocksize=(1, 1)))
    raises_like(lambda: p.to_sparse_csr(dense_dim=1), lambda: t.to_sparse_csr(dense_dim=1))
    raises_like(lambda: p.to_sparse(1), lambda: t.to_sparse(1))
    raises_like(lambda: p.to_dense(torch.float32), lambda: t.to_dense(tandem.float32))
    coo3 = ([[0, 1], [1, 0], [0, 0]], [1.0, 2.0], (2, 2, 1))
    raises_like(lambda: torch.sparse_coo_tensor(*coo3).to_sparse_csr(),
                lambda: tandem.sparse_coo_tensor(*coo3, device=device).to_sparse_csr())
    with pytest.raises(RuntimeError, match=r"to_sparse_csr\(\): expected a 2-d tensor, got 3-d"):
        tandem.ones(2, 3, 4, device=device).to_sparse_csr()
    assert x.to_sparse(layout=tandem.sparse_csc).layout is tandem.sparse_csc  # tests/python/test_programs_sweep22.py
    with pytest.raises(NotImplementedError, match="layout=tandem.sparse_bsr is not supported"):
        t.to_sparse(layout=tandem.layout("sparse_bsr"))


def test_moves_and_copies(device):
    t, p = pair(device)
    check_csr(t.to(tandem.float32), p.to(torch.float32), device)
    check_csr(t.float(), p.float(), device)
    check_csr(t.cpu(), p, "cpu")
    check_csr(t.to("cpu").to(device), p, device)
    check_csr(t.cpu().cuda(1) if device == "cuda:1" else t, p, device)
    check_csr(t.clone(), p, device)
    check_csr(t.detach(), p, device)
    assert t.cpu().to(t) is not None and str(t.cpu().to(t).device) == device
    r = t.detach().requires_grad_()
    assert r.requires_grad and r.is_leaf and not t.requires_grad
    r.requires_grad = False
    assert not r.requires_grad
    raises_like(lambda: p.numpy(), lambda: t.numpy(), TypeError)
    raises_like(lambda: p.is_contiguous(), lambda: t.is_contiguous())


def test_pickle_deepcopy_save_and_load(device, tmp_path):
    t, p = pair(device)
    check_csr(pickle.loads(pickle.dumps(t)), p, device)
    r = t.detach().requires_grad_()
    c = copy.deepcopy(r)
    check_csr(c, p, device)
    assert c.requires_grad and c.is_leaf and c.values() is not r.values()
    path = tmp_path / "csr.pt"
    tandem.save({"adj": t}, path)
    loaded = torch.load(path, weights_only=True, map_location="cpu")["adj"]
    assert loaded.layout is torch.sparse_csr
    torch.testing.assert_close(loaded.to_dense(), p.to_dense())
    torch.save({"adj": p.to(torch.float32)}, path)
    check_csr(tandem.load(path, map_location=device)["adj"], p.to(torch.float32), device)


def test_saved_by_a_custom_function(device):
    """A custom Function may ctx.save_for_backward a CSR tensor: it is saved as its parts and rebuilt."""
    def spmm(lib):
        class CsrSpmm(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a @ b

            @staticmethod
            def backward(ctx, grad_output):
                a, _ = ctx.saved_tensors
                assert a.layout is lib.sparse_csr
                return None, a.to_dense().t() @ grad_output

        return CsrSpmm

    t, p = pair(device)
    b = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
    tb = p2t(b, device).requires_grad_()
    (spmm(torch).apply(p, b) ** 2).sum().backward()
    (spmm(tandem).apply(t, tb) ** 2).sum().backward()
    check_dense(tb.grad, b.grad, device)


# ---- math ---------------------------------------------------------------------------------------------------------

def test_products(device):
    t, p = random_pair(device)
    b = torch.randn(5, 3, dtype=torch.float64)
    tb = p2t(b, device)
    expected = p @ b
    check_dense(t @ tb, expected, device)
    check_dense(tandem.mm(t, tb), expected, device)
    check_dense(tandem.spmm(t, tb), expected, device)
    check_dense(tandem.matmul(t, tb), expected, device)
    check_dense(tandem.sparse.mm(t, tb), torch.sparse.mm(p, b), device)
    check_dense(t.mm(tb), expected, device)
    vec = torch.randn(5, dtype=torch.float64)
    check_dense(t.matmul(p2t(vec, device)), p.matmul(vec), device)
    check_dense(t @ p2t(vec, device), p @ vec, device)
    left = torch.randn(2, 6, dtype=torch.float64)
    check_dense(p2t(left, device) @ t, left @ p, device)
    check_dense(tandem.mm(p2t(left, device), t), torch.mm(left, p), device)
    q = p.to_dense().t().contiguous().to_sparse_csr()
    tq = p2t(p.to_dense().t().contiguous(), device).to_sparse_csr()
    # csr @ csr -> csr: tandem's rows come sorted by column (PyTorch's kernel leaves them in another order).
    product = t @ tq
    check_csr(product, (p @ q).to_dense().to_sparse_csr(), device)
    check_dense(product.to_dense(), (p @ q).to_dense(), device)
    base = torch.randn(6, 3, dtype=torch.float64)
    tbase = p2t(base, device)
    check_dense(tandem.addmm(tbase, t, tb), torch.addmm(base, p, b), device)
    check_dense(tandem.addmm(tbase, t, tb, beta=2, alpha=-0.5), torch.addmm(base, p, b, beta=2, alpha=-0.5), device)
    check_dense(tandem.addmm(tbase[0], t, tb, beta=0), torch.addmm(base[0], p, b, beta=0), device)
    check_dense(tandem.sparse.addmm(tbase, t, tb, beta=0.5, alpha=2), torch.sparse.addmm(base, p, b, beta=0.5,
                                                                                          alpha=2), device)


def test_product_errors(device):
    t, p = pair(device)
    raises_like(lambda: torch.mm(p, torch.ones(3, 2, dtype=torch.float64)),
                lambda: tandem.mm(t, tandem.ones(3, 2, dtype=tandem.float64, device=device)))
    raises_like(lambda: torch.mm(p, torch.ones(4, 2)), lambda: tandem.mm(t, tandem.ones(4, 2, device=device)))
    raises_like(lambda: torch.mm(p, torch.ones(4, dtype=torch.float64)),
                lambda: tandem.mm(t, tandem.ones(4, dtype=tandem.float64, device=device)), IndexError)
    raises_like(lambda: torch.mm(torch.ones(3, 2, dtype=torch.float64), p),
                lambda: tandem.mm(tandem.ones(3, 2, dtype=tandem.float64, device=device), t))
    with pytest.raises(TypeError, match=r"mm\(\): out= is not supported with a sparse operand"):
        tandem.mm(t, tandem.ones(4, 2, dtype=tandem.float64, device=device), out=tandem.empty(3, 2))
    with pytest.raises(TypeError, match=r"addmm\(\): of the operands only mat1 may be sparse"):
        tandem.addmm(t, tandem.ones(3, 3), tandem.ones(3, 4))
    raises_like(lambda: torch.sparse.mm(p, torch.ones(4, 2, dtype=torch.float64), "prod"),
                lambda: tandem.sparse.mm(t, tandem.ones(4, 2, dtype=tandem.float64, device=device), "prod"))
    raises_like(lambda: torch.sparse.mm(p.to_sparse_coo(), torch.ones(4, 2, dtype=torch.float64), "sum"),
                lambda: tandem.sparse.mm(t.to_sparse_coo(), tandem.ones(4, 2, dtype=tandem.float64, device=device),
                                         "sum"), NotImplementedError, device)


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin", "max", "min"])
def test_mm_reduce(device, reduce):
    """torch.sparse.mm(csr, dense, reduce): values and both gradients as PyTorch's (distinct products, so the
    max and min are unique)."""
    t, p = pair(device)
    values_p = p.values().detach().clone().requires_grad_()
    csr_p = torch.sparse_csr_tensor(p.crow_indices(), p.col_indices(), values_p, p.shape)
    dense_p = (torch.arange(8, dtype=torch.float64).reshape(4, 2) * 1.5 - 2).requires_grad_()
    values, dense = p2t(values_p.detach(), device).requires_grad_(), p2t(dense_p.detach(), device).requires_grad_()
    csr = tandem.sparse_csr_tensor(t.crow_indices(), t.col_indices(), values, t.shape)
    out_p, out = torch.sparse.mm(csr_p, dense_p, reduce), tandem.sparse.mm(csr, dense, reduce)
    check_dense(out, out_p, device)
    (out_p * torch.arange(6.0, dtype=torch.float64).reshape(3, 2)).sum().backward()
    (out * tandem.arange(6.0, dtype=tandem.float64, device=device).reshape(3, 2)).sum().backward()
    check_dense(values.grad, values_p.grad, device)
    check_dense(dense.grad, dense_p.grad, device)


def test_gradients(device):
    # Through values given to the constructor (a non-leaf CSR tensor, as in PyTorch) and the dense operand.
    values = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 2, dtype=torch.float64, requires_grad=True)
    base = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    p = torch.sparse_csr_tensor(torch.tensor(CROW), torch.tensor(COL), values, (3, 4))
    (torch.addmm(base, p, b, beta=0.5, alpha=2).sin().sum() + (p @ b).sum() + (p * 3).to_dense().pow(2).sum()
     ).backward()
    tvalues, tb, tbase = (p2t(x, device).requires_grad_() for x in (values, b, base))
    t = tandem.sparse_csr_tensor(tandem.tensor(CROW), tandem.tensor(COL), tvalues, (3, 4), device=device)
    assert not t.is_leaf and t.requires_grad
    (tandem.addmm(tbase, t, tb, beta=0.5, alpha=2).sin().sum() + (t @ tb).sum() + (t * 3).to_dense().pow(2).sum()
     ).backward()
    for actual, expected in ((tvalues, values), (tb, b), (tbase, base)):
        check_dense(actual.grad, expected.grad, device)


def test_gradient_to_the_dense_source(device):
    d = torch.tensor([[0.0, 1.5, 0.0, -2.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 4.0, 0.0]], dtype=torch.float64,
                     requires_grad=True)
    x = p2t(d, device).requires_grad_()
    weight = torch.arange(12.0, dtype=torch.float64).reshape(3, 4)
    (d.to_sparse_csr().to_dense() * weight).sum().backward()
    (x.to_sparse_csr().to_dense() * p2t(weight, device)).sum().backward()
    check_dense(x.grad, d.grad, device)
    # Through a product the gradient reaches the stored elements only (PyTorch's mm backward gives a dense one).
    x.grad = None
    b = torch.arange(8.0, dtype=torch.float64).reshape(4, 2)
    (x.to_sparse_csr() @ p2t(b, device)).sum().backward()
    check_dense(x.grad, (d != 0) * b.sum(1), device)


def test_leaf_gradient(device):
    t, p = pair(device)
    t.requires_grad_()
    p.requires_grad_()
    weight = torch.arange(12.0, dtype=torch.float64).reshape(3, 4)
    (p.to_dense() * weight).sum().backward()
    (t.to_dense() * p2t(weight, device)).sum().backward()
    check_csr(t.grad, p.grad, device)  # on the leaf's pattern, as PyTorch's to_dense gives it
    t.grad = None
    assert t.grad is None


def test_scaling_elementwise_and_sum(device):
    t, p = pair(device)
    check_csr(t * 2, p * 2, device)
    check_csr(2 * t, 2 * p, device)
    check_csr(t * tandem.tensor(2.0, dtype=tandem.float64, device=device), p * torch.tensor(2.0, dtype=torch.float64),
              device)
    # PyTorch 2.15 refuses csr / number ("unsupported tensor layout: SparseCsr"); tandem scales the values.
    check_csr(t / 4, p * 0.25, device)
    check_csr(t.div(4), p * 0.25, device)
    check_csr(-t, -p, device)
    check_csr(t.sin(), p.sin(), device)
    check_csr(t.relu(), p.relu(), device)
    check_dense(t.sum(), p.sum(), device)
    check_dense(tandem.sparse.sum(t), p.sum(), device)  # PyTorch's torch.sparse.sum refuses CSR (it coalesces)
    check_dense(t.sum(dtype=tandem.float32), p.sum(dtype=torch.float32), device)
    ti, pi = pair(device, dtype="int64", values=[1, 2, 3])
    check_dense(ti.sum(), pi.sum(), device)
    raises_like(lambda: p.sum(0), lambda: t.sum(0))
    with pytest.raises(NotImplementedError, match=r"sum\(dim, keepdim=True\) of a sparse CSR tensor"):
        t.sum(0, keepdim=True)
    with pytest.raises(RuntimeError, match=r"Sparse division requires a scalar or zero-dim dense tensor divisor "
                                           r"\(got shape \[3, 4\] for divisor\)"):
        t / tandem.ones(3, 4, device=device)
    # by a dense matrix of its size: the values times its entries at the pattern (sweep 17; it was refused)
    check_csr(t * tandem.full((3, 4), 3.0, device=device), p * torch.full((3, 4), 3.0), device)


def test_transposes_are_csc(device):
    t, p = pair(device)
    for fn in (lambda a: a.t(), lambda a: a.transpose(0, 1)):
        got, want = fn(t), fn(p)
        assert got.layout is tandem.sparse_csc and want.layout is torch.sparse_csc
        for name in ("ccol_indices", "row_indices", "values"):
            assert getattr(got, name)() is getattr(t, {"ccol_indices": "crow_indices", "row_indices": "col_indices",
                                                       "values": "values"}[name])()  # no copy
            assert t2p(getattr(got, name)()).tolist() == getattr(want, name)().tolist()
        check_dense(got.to_dense(), want.to_dense(), device)
        assert fn(got).layout is tandem.sparse_csr
    assert t.transpose(1, -1) is t
    if device == "cpu":
        raises_like(lambda: p.T, lambda: t.T, NotImplementedError)


def test_dense_ops_refuse(device):
    t, p = pair(device)
    backend = "SparseCsrCUDA" if device != "cpu" else "SparseCsrCPU"
    # A CSR tensor is a Tensor: functions with a sparse form take it (tandem.relu(t) is t.relu(), dense + t is
    # dense), the others refuse it with PyTorch's NotImplementedError.
    check_csr(tandem.relu(t), torch.relu(p), device)
    check_dense(tandem.ones(3, 4, device=device).add(t), torch.ones(3, 4, dtype=p.dtype).add(p), device)
    with pytest.raises(NotImplementedError, match=f"Could not run 'aten::cat' with arguments from the '{backend}'"):
        tandem.cat([t])  # PyTorch's cat of CSR tensors fails too (with a RuntimeError)
    with pytest.raises(NotImplementedError, match=f"Could not run 'aten::exp' with arguments from the '{backend}' "
                                                  "backend"):
        t.exp()
    with pytest.raises(NotImplementedError, match="aten::index"):
        t[0]
    with pytest.raises(AttributeError, match="'SparseCsrTensor' object has no attribute 'nonsense'"):
        t.nonsense  # noqa: B018


def test_dense_products_unchanged():
    a, b = tandem.ones(2, 3), tandem.ones(3, 4)
    out = tandem.empty(2, 4)
    assert tandem.mm(a, b, out=out) is out and out.tolist() == [[3.0] * 4] * 2
    assert tandem.matmul(a, b).tolist() == [[3.0] * 4] * 2
    assert tandem.addmm(tandem.ones(2, 4), a, b, beta=2).tolist() == [[5.0] * 4] * 2


def test_gcn_layer_with_a_csr_adjacency(device):
    """A 2-layer GCN step as graph code writes it with a CSR adjacency: the loss and the weights' gradients match
    PyTorch's."""
    g = torch.Generator().manual_seed(3)
    n, f, hidden, classes = 9, 5, 4, 3
    edges = torch.randint(0, n, (2, 20), generator=g)
    adj = torch.zeros(n, n, dtype=torch.float64)
    adj[edges[0], edges[1]] = 1.0
    adj = adj + torch.eye(n, dtype=torch.float64)
    adj = adj / adj.sum(1, keepdim=True)
    x = torch.randn(n, f, generator=g, dtype=torch.float64)
    labels = torch.randint(0, classes, (n,), generator=g)
    w1 = torch.randn(f, hidden, generator=g, dtype=torch.float64, requires_grad=True)
    w2 = torch.randn(hidden, classes, generator=g, dtype=torch.float64, requires_grad=True)

    def step(lib, adj_csr, x, w1, w2, labels):
        h = lib.relu(lib.sparse.mm(adj_csr, x @ w1))
        out = adj_csr @ (h @ w2)
        loss = lib.nn.functional.cross_entropy(out, labels)
        loss.backward()
        return loss

    expected = step(torch, adj.to_sparse_csr(), x, w1, w2, labels)
    tw1, tw2 = p2t(w1, device).requires_grad_(), p2t(w2, device).requires_grad_()
    loss = step(tandem, p2t(adj, device).to_sparse_csr(), p2t(x, device), tw1, tw2, p2t(labels, device))
    check_dense(loss, expected.detach(), device)
    check_dense(tw1.grad, w1.grad, device)
    check_dense(tw2.grad, w2.grad, device)
