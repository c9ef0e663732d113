"""The nineteenth program sweep: generative models (a VQ-VAE with an EMA codebook, PixelCNN, a Glow step, MADE/MAF,
an R1-regularised GAN, rectified flow, a beta-VAE/IWAE), timm/HuggingFace building blocks (SE/ECA/CBAM with
stochastic depth, logits processors, beam search with a KV cache, grouped-query attention, layer-decay parameter
groups with the newer clipping utilities, a mixture of experts), model surgery and introspection (hook ordering,
module traversal, BN fusion, structured pruning, state-dict migration), NumPy-heavy code (NumPy scalars, NumPy
functions on tensors, from_numpy edge cases, rng pipelines), self-supervised losses (BYOL/SimSiam, VICReg, triplet
mining, margin softmax losses and SupCon, DINO and Sinkhorn) and PyTorch-1.x-era code (Variable, the typed
constructors, resize_/new_*, grad modes, the old loss arguments, set_default_tensor_type), each program written once
against a module called `torch`, run with PyTorch and with tandem standing in for it, and their results compared.
The focused tests below cover what they found (docs/compat.md, "Program sweep 19")."""
import pytest

import sweep19_blocks
import sweep19_generative
import sweep19_legacy
import sweep19_numpy
import sweep19_ssl
import sweep19_surgery
import tandem
from test_programs_sweeputil import program_test, same_outcome

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep19_generative, sweep19_blocks, sweep19_surgery, sweep19_numpy, sweep19_ssl, sweep19_legacy)


test_program_matches_pytorch = program_test(_MODULES, DEVICES)
