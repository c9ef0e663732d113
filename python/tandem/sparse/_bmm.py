"""torch.bmm / Tensor.bmm for a batch of sparse COO matrices (3 sparse dims) times a dense batch: batched graph
code keeps one adjacency per graph of a mini-batch in one sparse tensor and multiplies it with the node features
(torch.bmm(adj, x)). The result is dense, as PyTorch's. Each entry (b, i, j, v) adds v * x[b, j] to row (b, i) of
the output, with one index_select and one index_add over the flattened batch, so autograd reaches the sparse
operand's values and the dense one."""
from . import _autocast, _coo
from ._base import is_dense
from ._math import _check_dtypes


def _check(self, mat2):
    if self.dense_dim() != 0:
        raise RuntimeError(f"bmm_sparse: Tensor 'self' must have 0 dense dims, but has {self.dense_dim()}")
    if self.sparse_dim() != 3:
        raise RuntimeError(f"bmm_sparse: Tensor 'self' must have 3 sparse dims, but has {self.sparse_dim()}")
    if not is_dense(mat2):
        raise RuntimeError("bmm_sparse: Tensor 'mat2' must be dense")
    if mat2.dim() != 3:
        raise RuntimeError(f"bmm_sparse: Tensor 'mat2' must have 3 dims, but has {mat2.dim()}")
    if self.shape[0] != mat2.shape[0]:
        raise RuntimeError("bmm_sparse: 'self.size(0)' and 'mat2.size(0)' must match")
    if self.shape[2] != mat2.shape[1]:
        raise RuntimeError("bmm_sparse: 'self.size(2)' and 'mat2.size(1)' must match")
    _check_dtypes(self, mat2)


def rbmm(self, dense):
    """dense.bmm(sparse): PyTorch has no kernel for a sparse mat2 and says so with bmm_sparse's check."""
    raise RuntimeError("bmm_sparse: Tensor 'mat2' must be dense")


def bmm(self, mat2):
    """self (batch x n x m, sparse COO) @ mat2 (batch x m x p, dense): a dense batch x n x p tensor."""
    if type(self) is not _coo.SparseCooTensor:
        raise self._refuse("bmm")
    self, mat2 = _autocast.lower(self, mat2)  # bmm is autocast-listed in PyTorch
    _check(self, mat2)
    batch, n, m = self.shape
    p = mat2.shape[2]
    b, i, j = self._idx.unbind(0)
    gathered = mat2.reshape(batch * m, p).index_select(0, b * m + j) * self._vals.unsqueeze(1)
    out = mat2.new_zeros((batch * n, p))
    return out.index_add(0, b * n + i, gathered).reshape(batch, n, p)
