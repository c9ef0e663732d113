"""torch.mv / Tensor.mv with a sparse COO or CSR matrix against PyTorch on every device: values, dtype, device,
gradients to the matrix's values and the vector, PyTorch's errors, and a PageRank power iteration written as
tutorials write it."""
import pytest
import torch

import tandem
from sparse_helpers import p2t, raises_like, t2p

pytestmark = pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning",
                                        "ignore:Sparse invariant checks:UserWarning")

INDICES, VALUES, SIZE = [[0, 1, 1, 2], [2, 0, 2, 1]], [1.0, 2.0, 3.0, -4.0], (3, 3)


def pair(device, layout):
    """The same matrix in tandem (on device, values requiring grad) and torch, with its values leaf."""
    vp = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    vt = p2t(vp.detach(), device).requires_grad_()
    p = torch.sparse_coo_tensor(torch.tensor(INDICES), vp, SIZE)
    t = tandem.sparse_coo_tensor(tandem.tensor(INDICES), vt, SIZE, device=device)
    if layout == "csr":
        p, t = p.coalesce().to_sparse_csr(), t.coalesce().to_sparse_csr()
    return t, p, vt, vp


@pytest.mark.parametrize("layout", ["coo", "csr"])
@pytest.mark.parametrize("call", ["function", "method"])
def test_mv_values_and_gradients(device, layout, call):
    t, p, vt, vp = pair(device, layout)
    xp = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
    xt = p2t(xp.detach(), device).requires_grad_()
    yt = tandem.mv(t, xt) if call == "function" else t.mv(xt)
    yp = torch.mv(p, xp) if call == "function" else p.mv(xp)
    assert isinstance(yt, tandem.Tensor) and yt.dtype == tandem.float64 and str(yt.device) == device
    assert t2p(yt).tolist() == yp.tolist()
    (yt * tandem.tensor([1.0, 2.0, 3.0], dtype=tandem.float64, device=device)).sum().backward()
    (yp * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert t2p(xt.grad).tolist() == xp.grad.tolist()
    assert t2p(vt.grad).tolist() == vp.grad.tolist()


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_mv_errors(device, layout):
    t, p, _, _ = pair(device, layout)
    for vec in (torch.ones(4, dtype=torch.float64), torch.ones(3, 1, dtype=torch.float64), torch.ones(3)):
        raises_like(lambda: torch.mv(p, vec), lambda: tandem.mv(t, p2t(vec, device)))
    with pytest.raises(TypeError, match="argument 'vec' \\(position 2\\) must be Tensor, not int"):
        tandem.mv(t, 3)
    with pytest.raises(TypeError, match="out= is not supported with a sparse operand"):
        tandem.mv(t, tandem.ones(3, dtype=tandem.float64, device=device), out=tandem.empty(3, device=device))
    assert tandem.mv(tandem.ones(2, 3), tandem.ones(3)).tolist() == [3.0, 3.0]  # the dense path is unchanged


def pagerank(lib, edges, n, layout, device=None):
    src, dst = lib.tensor(edges)
    if device is not None:
        src, dst = src.to(device), dst.to(device)
    out_degree = lib.zeros(n, device=src.device).index_add_(0, src, lib.ones(src.shape[0], device=src.device))
    m = lib.sparse_coo_tensor(lib.stack([dst, src]), 1.0 / out_degree[src], (n, n)).coalesce()
    m = m.to_sparse_csr() if layout == "csr" else m
    r, deltas = lib.full((n,), 1.0 / n, device=src.device), []
    for _ in range(15):
        r_new = 0.85 * lib.mv(m, r) + 0.15 / n
        r_new = r_new / r_new.sum()
        deltas.append((r_new - r).abs().sum().item())
        r = r_new
    return deltas, lib.topk(r, 3).indices.tolist()


@pytest.mark.parametrize("layout", ["coo", "csr"])
def test_pagerank_power_iteration_as_pytorch(device, layout):
    g = torch.Generator().manual_seed(0)
    edges = torch.randint(0, 20, (2, 60), generator=g).tolist()
    expected_deltas, expected_top = pagerank(torch, edges, 20, layout)
    deltas, top = pagerank(tandem, edges, 20, layout, device)
    torch.testing.assert_close(torch.tensor(deltas), torch.tensor(expected_deltas), rtol=1e-4, atol=1e-6)
    assert top == expected_top
