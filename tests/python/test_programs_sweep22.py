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
