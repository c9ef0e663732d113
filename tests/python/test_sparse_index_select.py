"""SparseCooTensor.index_select against PyTorch on every device: the same entries in the same order (so
uncoalesced results match), along sparse and dense dims, repeated and empty indices, gradients to the values,
and PyTorch's errors."""
import pytest
import torch

import tandem
from sparse_helpers import p2t, raises_like, t2p

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")

INDICES, VALUES = [[0, 1, 1, 2, 0], [2, 0, 2, 1, 2]], [1.0, 2.0, 3.0, 4.0, 5.0]  # (0, 2) twice


def pair(device, coalesce):
    vp = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    vt = p2t(vp.detach(), device).requires_grad_()
    p = torch.sparse_coo_tensor(torch.tensor(INDICES), vp, (3, 3))
    t = tandem.sparse_coo_tensor(tandem.tensor(INDICES), vt, (3, 3), device=device)
    return (t.coalesce(), p.coalesce(), vt, vp) if coalesce else (t, p, vt, vp)


def check_same(actual, expected, device):
    """Same size, entries in the same order, values, dtype, device and coalesced flag."""
    assert tuple(actual.shape) == tuple(expected.shape) and str(actual.device) == device
    assert actual.is_coalesced() == expected.is_coalesced()
    assert t2p(actual._indices()).tolist() == expected._indices().tolist()
    assert t2p(actual._values()).dtype == expected._values().dtype
    assert t2p(actual._values()).tolist() == expected._values().tolist()


@pytest.mark.parametrize("coalesce", [False, True])
@pytest.mark.parametrize("dim,index", [(0, [2, 0]), (1, [2, 2, 0]), (0, [1, 1]), (-1, [1]), (0, [])])
def test_index_select_as_pytorch(device, coalesce, dim, index):
    t, p, vt, vp = pair(device, coalesce)
    dim_p = dim % 2  # PyTorch 2.15 fails on a negative dim of a sparse tensor ("Cannot access data pointer")
    expected = p.index_select(dim_p, torch.tensor(index, dtype=torch.long))
    actual = t.index_select(dim, tandem.tensor(index, dtype=tandem.int64, device=device))
    check_same(actual, expected, device)
    # Gradients reach the values (PyTorch's sparse index_select has no backward: its index_add_ is dense-only),
    # as through the dense form's index_select.
    weights = torch.arange(1.0, expected.shape[0] * 3 + 1, dtype=torch.float64).reshape(-1, 3)
    (p.to_dense().index_select(dim_p, torch.tensor(index, dtype=torch.long)) * weights).sum().backward()
    (actual.to_dense() * p2t(weights, device)).sum().backward()
    assert str(vt.grad.device) == device and t2p(vt.grad).tolist() == vp.grad.tolist()


def test_index_select_along_a_dense_dim(device):
    values = [[1.0, 2.0], [3.0, 4.0]]
    p = torch.sparse_coo_tensor([[0, 2]], torch.tensor(values), (3, 2))
    t = tandem.sparse_coo_tensor([[0, 2]], tandem.tensor(values), (3, 2), device=device)
    index = [1, 1, 0]
    check_same(t.index_select(1, tandem.tensor(index, device=device)), p.index_select(1, torch.tensor(index)), device)


def test_index_select_errors(device):
    t, p, _, _ = pair(device, False)
    for dim, index in ((0, torch.tensor([3])), (0, torch.tensor([0.0])), (0, torch.tensor([[0]])),
                       (0, torch.tensor([0], dtype=torch.int32)), (0, torch.tensor(1)), (2, torch.tensor([0]))):
        raises_like(lambda: p.index_select(dim, index), lambda: t.index_select(dim, p2t(index, device)), IndexError)
    with pytest.raises(IndexError, match="index contains -1 that is out of range for tensor of size \\[3, 3\\]"):
        t.index_select(0, tandem.tensor([-1], device=device))
