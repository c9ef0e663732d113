"""The twenty-second program sweep: vision transformers and image-text models (ViT patch embeddings and positional
interpolation, MAE masking, Swin windows, SigLIP, CLIP zero-shot, a Perceiver, ToMe merging), diffusion samplers and
normalizing flows (DDPM with a cosine schedule, DDIM with eta and classifier-free guidance, DPM-Solver++(2M), DDIM
inversion, RealNVP with ActNorm, rational-quadratic splines, planar flows), compression by hand (int8 integer
matmuls, fake quantisation with straight-through estimators, LoRA injection and merging, GPTQ, k-means weight
sharing, binary/ternary networks, NF4 packing), numerical methods (GP hyperparameters, a sparse GP, stochastic Lanczos
quadrature, randomized SVD and Householder QR, GMRES and PCG, Sinkhorn and sliced Wasserstein, differentiable
sorting), sequences (PatchTST, DLinear, sliding windows, contrastive search with a KV cache, min-p/typical sampling,
diverse beam search, CTC alignment, FT-Transformer) and training infrastructure (activation checkpointing, an exact
resume with accumulation/clipping/EMA, state_dict prefix surgery, model and optimizer printing, custom samplers,
IterableDataset pipelines, parameter-vector utilities), each program written once against a module called `torch`,
run with PyTorch and with tandem standing in for it, and their results compared. The focused tests below cover what
they found (docs/compat.md, "Program sweep 22")."""
import pytest

import sweep22_compression
import sweep22_generative
import sweep22_infra
import sweep22_numerics
import sweep22_sequences
import sweep22_vision
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep22_vision, sweep22_generative, sweep22_compression, sweep22_numerics, sweep22_sequences,
            sweep22_infra)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)


# ---- to_sparse(layout=sparse_csc) and CSC.to_sparse(...) --------------------------------------------------------------
def _source(L, kind, d):
    dense = L.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], device=d)
    return {"dense": dense, "coo": dense.to_sparse_coo(), "csr": dense.to_sparse_csr(),
            "csc": dense.to_sparse_csc()}[kind]


_TO_SPARSE_ARGS = {
    "default": {}, "csc": {"layout": "sparse_csc"}, "csr": {"layout": "sparse_csr"}, "coo": {"layout": "sparse_coo"},
    "strided": {"layout": "strided"}, "sparse_dim_2": {"sparse_dim": 2}, "sparse_dim_1": {"sparse_dim": 1},
    "dense_dim": {"dense_dim": 0}, "blocksize": {"blocksize": (1, 1)},
    "csc_dense_dim": {"layout": "sparse_csc", "dense_dim": 0}, "csc_blocksize": {"layout": "sparse_csc", "blocksize": (1, 1)},
    "csr_blocksize": {"layout": "sparse_csr", "blocksize": (1, 1)}, "strided_dense_dim": {"layout": "strided", "dense_dim": 0},
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("args", list(_TO_SPARSE_ARGS))
@pytest.mark.parametrize("kind", ["dense", "coo", "csr", "csc"])
def test_to_sparse_reaches_every_layout(kind, args, device):
    """Tensor.to_sparse(layout=sparse_csc) converts a dense, COO or CSR matrix to CSC (it was refused as "no CSC"
    after the CSC layout arrived), and a CSC tensor's to_sparse takes PyTorch's arguments with PyTorch's checks
    (its blocksize/dense_dim/sparse_dim errors named COO, or were ignored)."""
    def run(L, d):
        kw = {k: getattr(L, v) if k == "layout" else v for k, v in _TO_SPARSE_ARGS[args].items()}
        source = _source(L, kind, d)
        out = source.to_sparse(**kw)
        return [str(out.layout), out.device == source.device, out.to_dense()]
    same_outcome(run, device)


@pytest.mark.parametrize("device", DEVICES)
def test_to_sparse_csc_parts_and_gradient(device):
    """The CSC result has PyTorch's compressed parts; gradients reach the dense source's stored entries (tandem's
    sparse autograd runs through the values: docs/compat.md, "Program sweep 22")."""
    x = tandem.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], device=device, requires_grad=True)
    s = x.to_sparse(layout=tandem.sparse_csc)
    assert s.ccol_indices().tolist() == [0, 1, 2, 3] and s.row_indices().tolist() == [1, 0, 1]
    assert s.values().tolist() == [2.0, 1.0, 3.0] and s.device == x.device
    (s @ tandem.ones(3, 2, device=device)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [2.0, 0.0, 2.0]]
    with pytest.raises(NotImplementedError, match=r"layout=tandem.sparse_bsr is not supported\nhint: tandem has "
                                                  r"the strided, sparse_coo, sparse_csr and sparse_csc layouts"):
        x.to_sparse(layout=tandem.layout("sparse_bsr"))
