"""Layout conversions and comparisons of dense, COO and CSR tensors against PyTorch on every device:
to_sparse(layout=, blocksize=, dense_dim=) and to_sparse_csr(dense_dim) give PyTorch's results (layout=strided
included) and refuse PyTorch's argument combinations with its messages; comparing a CSR tensor is PyTorch's
RuntimeError, a COO tensor's its "Could not run" error naming the Scalar or Tensor overload; .to() takes no layout."""
import pytest
import torch

import tandem
from sparse_helpers import p2t, raises_like, t2p

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning",
                                        "ignore:Sparse invariant checks:UserWarning")

DENSE = [[0.0, 1.5, 0.0], [-2.0, 0.0, 3.0]]


def sources(device):
    """(name, tandem tensor, torch tensor) for the same matrix as dense, COO and CSR, and a COO tensor with one
    sparse dim (hybrid)."""
    d = torch.tensor(DENSE, dtype=torch.float64)
    x = p2t(d, device)
    hybrid_p = torch.sparse_coo_tensor([[0, 1]], torch.ones(2, 3), (2, 3))
    hybrid_t = tandem.sparse_coo_tensor([[0, 1]], tandem.ones(2, 3), (2, 3), device=device)
    return [("dense", x, d), ("coo", x.to_sparse(), d.to_sparse()), ("csr", x.to_sparse_csr(), d.to_sparse_csr()),
            ("hybrid", hybrid_t, hybrid_p)]


def check_same(actual, expected, device):
    """Same layout, size, dtype, device and elements."""
    assert repr(actual.layout).partition(".")[2] == repr(expected.layout).partition(".")[2]
    assert tuple(actual.shape) == tuple(expected.shape) and str(actual.device) == device
    dense_a = actual if actual.layout is tandem.strided else actual.to_dense()
    dense_e = expected if expected.layout is torch.strided else expected.to_dense()
    assert t2p(dense_a).dtype == dense_e.dtype and t2p(dense_a).tolist() == dense_e.tolist()


LAYOUTS = [None, "sparse_coo", "sparse_csr", "strided"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_to_sparse_with_a_layout_converts_as_pytorch(device, layout):
    for name, t, p in sources(device):
        t_layout, p_layout = (getattr(tandem, layout), getattr(torch, layout)) if layout else (None, None)
        try:
            expected = p.to_sparse(layout=p_layout)
        except RuntimeError:
            raises_like(lambda: p.to_sparse(layout=p_layout), lambda: t.to_sparse(layout=t_layout))
            continue
        check_same(t.to_sparse(layout=t_layout), expected, device)
        # PyTorch returns the tensor itself when it already has the layout.
        assert (t.to_sparse(layout=t_layout) is t) == (expected is p), name


def test_to_sparse_strided_is_to_dense_with_gradients(device):
    """Gradients reach the stored entries as through to_dense(): PyTorch's to_sparse(layout=strided) also sends
    them to the unstored zeros (its masked_grad=False), which tandem's sparse tensors do not (docs/compat.md)."""
    d = torch.tensor(DENSE, dtype=torch.float64, requires_grad=True)
    x = p2t(d.detach(), device).requires_grad_()
    for convert in (lambda a: a.to_sparse(), lambda a: a.to_sparse_csr()):
        (convert(x).to_sparse(layout=tandem.strided) * 2).sum().backward()
        (convert(d).to_dense() * 2).sum().backward()
        assert str(x.grad.device) == device and t2p(x.grad).tolist() == d.grad.tolist()
        x.grad, d.grad = None, None


ARGUMENTS = [dict(blocksize=(1, 1)), dict(blocksize=(1,)), dict(blocksize=(0, 1)), dict(dense_dim=0),
             dict(dense_dim=1), dict(dense_dim=2), dict(dense_dim=-1), dict(blocksize=(1, 1), dense_dim=0)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kwargs", ARGUMENTS, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_to_sparse_arguments_refused_or_taken_as_pytorch(device, layout, kwargs):
    for name, t, p in sources(device):
        t_layout, p_layout = (getattr(tandem, layout), getattr(torch, layout)) if layout else (None, None)
        try:
            expected = p.to_sparse(layout=p_layout, **kwargs)
        except RuntimeError:
            raises_like(lambda: p.to_sparse(layout=p_layout, **kwargs),
                        lambda: t.to_sparse(layout=t_layout, **kwargs))
            continue
        check_same(t.to_sparse(layout=t_layout, **kwargs), expected, device)


@pytest.mark.parametrize("dense_dim", [None, 0, 1, -1])
def test_to_sparse_csr_dense_dim_as_pytorch(device, dense_dim):
    for name, t, p in sources(device):
        try:
            expected = p.to_sparse_csr(dense_dim)
        except RuntimeError:
            raises_like(lambda: p.to_sparse_csr(dense_dim), lambda: t.to_sparse_csr(dense_dim))
            continue
        check_same(t.to_sparse_csr(dense_dim), expected, device)
    raises_like(lambda: torch.ones(3).to_sparse_csr(0), lambda: tandem.ones(3, device=device).to_sparse_csr(0))


def test_to_takes_no_layout(device):
    # Tensor.to has no layout= in PyTorch: a program converts with to_sparse(layout=...) / to_dense().
    for name, t, p in sources(device):
        with pytest.raises(TypeError):
            p.to(layout=torch.sparse_csr)
        with pytest.raises(TypeError, match="layout"):
            t.to(layout=tandem.sparse_csr)


COMPARISONS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
               ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
METHODS = ["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal",
           "eq_", "lt_", "greater_", "not_equal_"]


def operands(t, p, device):
    """(tandem operand, torch operand) pairs a comparison takes: a number, a 0-d and a 2-d dense tensor, itself."""
    return [(1, 1), (1.5, 1.5), (tandem.tensor(1.0, device=device), torch.tensor(1.0)),
            (tandem.ones(2, 3, device=device), torch.ones(2, 3)), (t, p)]


@pytest.mark.parametrize("op", list(COMPARISONS))
def test_comparing_sparse_tensors_raises_as_pytorch(device, op):
    compare = COMPARISONS[op]
    for name, t, p in sources(device)[1:3]:
        exc = RuntimeError if name == "csr" else NotImplementedError
        for other_t, other_p in operands(t, p, device):
            raises_like(lambda: compare(p, other_p), lambda: compare(t, other_t), exc, device)
            # dense < coo: PyTorch's error names lt, tandem's the reflected gt (the dense operator is C++'s).
            if name == "csr" or not isinstance(other_t, tandem.Tensor):
                raises_like(lambda: compare(other_p, p), lambda: compare(other_t, t), exc, device)
        # Anything else: == and != by identity, the ordering ones Python's TypeError.
        assert (t == None) is (p == None) is False and (t != "a") is (p != "a") is True  # noqa: E711
        with pytest.raises(TypeError, match="not supported between instances"):
            compare(t, None) if op not in ("==", "!=") else t < None


@pytest.mark.parametrize("method", METHODS)
def test_comparison_methods_raise_as_pytorch(device, method):
    for name, t, p in sources(device)[1:3]:
        exc = RuntimeError if name == "csr" else NotImplementedError
        for other_t, other_p in operands(t, p, device):
            raises_like(lambda: getattr(p, method)(other_p), lambda: getattr(t, method)(other_t), exc,
                        device)
        with pytest.raises(TypeError):
            getattr(p, method)(None)
        with pytest.raises(TypeError, match="argument 'other' must be Tensor or Number, not NoneType"):
            getattr(t, method)(None)


def test_csr_comparison_message_and_hint(device):
    t = p2t(torch.tensor(DENSE), device).to_sparse_csr()
    with pytest.raises(RuntimeError) as info:
        t < 1  # noqa: B015
    assert str(info.value) == ("unsupported tensor layout: SparseCsr\nhint: compare the stored values (t.values()) or "
                               "the dense form (t.to_dense())")
    assert (t.values() < 2).tolist() == [True, True, False]
    assert hash(t) == hash(t) and {t: 1}[t] == 1  # still hashable by identity
