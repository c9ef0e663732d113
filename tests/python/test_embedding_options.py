"""nn.Embedding / F.embedding with PyTorch's full signature: max_norm (in-place renorm), norm_type,
scale_grad_by_freq, sparse (dense gradients here), negative padding_idx, from_pretrained, reprs."""
import pytest
import torch

import tandem
from oracle import assert_same_error, from_torch, to_torch


def pair(device, freeze=False, **kw):
    w = torch.randn(6, 3, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 3
    ref = torch.nn.Embedding(6, 3, _weight=w.clone(), **kw)
    ours = tandem.nn.Embedding(6, 3, _weight=from_torch(w.clone(), device), **kw)
    return ref, ours


@pytest.mark.parametrize("kw", [dict(max_norm=1.0), dict(max_norm=2.0, norm_type=1.0), dict(scale_grad_by_freq=True),
                                dict(padding_idx=-1), dict(padding_idx=2, scale_grad_by_freq=True),
                                dict(sparse=True), dict(max_norm=1.5, padding_idx=0, scale_grad_by_freq=True)])
def test_embedding_options_match_pytorch(kw, device):
    ref, ours = pair(device, **kw)
    idx = [[0, 1, 1, 5], [2, 5, 5, 5]]
    want = ref(torch.tensor(idx))
    got = ours(tandem.tensor(idx, device=device))
    torch.testing.assert_close(to_torch(got), want)
    torch.testing.assert_close(to_torch(ours.weight.detach()), ref.weight.detach())  # renormed rows in place
    grad = torch.arange(24.0, dtype=torch.float64).reshape(2, 4, 3)
    want.backward(grad)
    got.backward(from_torch(grad, device))
    assert ours.weight.grad.is_sparse == ref.weight.grad.is_sparse  # sparse=True: a sparse COO gradient
    want_grad = ref.weight.grad.to_dense() if ref.weight.grad.is_sparse else ref.weight.grad
    got_grad = ours.weight.grad.to_dense() if ours.weight.grad.is_sparse else ours.weight.grad
    torch.testing.assert_close(to_torch(got_grad), want_grad)
    assert repr(ours) == repr(ref)


def test_from_pretrained(device):
    table = torch.randn(4, 2, dtype=torch.float64)
    ref = torch.nn.Embedding.from_pretrained(table, padding_idx=1)
    ours = tandem.nn.Embedding.from_pretrained(from_torch(table, device), padding_idx=1)
    assert ours.weight.requires_grad is False and repr(ours) == repr(ref)
    torch.testing.assert_close(to_torch(ours(tandem.tensor([3, 1], device=device))), ref(torch.tensor([3, 1])))
    assert tandem.nn.Embedding.from_pretrained(from_torch(table, device), freeze=False).weight.requires_grad


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.Embedding.from_pretrained(lib.ones(3)),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3, 2), padding_idx=5),
    lambda lib: lib.nn.functional.embedding(lib.tensor([0]), lib.ones(3, 2), padding_idx=-4),
    lambda lib: lib.nn.Embedding(3, 2, _weight=lib.ones(2, 2)),
])
def test_embedding_errors(case):
    assert_same_error(case)


def test_torch_embedding_renorm_(device):
    w = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(3)) * 4
    ours = from_torch(w.clone(), device)
    idx = [0, 2, 2]
    torch.embedding_renorm_(w, torch.tensor(idx), 1.5, 2.0)
    assert tandem.embedding_renorm_(ours, tandem.tensor(idx, device=device), 1.5, 2.0) is ours
    torch.testing.assert_close(to_torch(ours), w)
