"""The tenth program sweep: whole programs after Stack Overflow answers and discuss.pytorch.org threads, each
written once against a module called `torch`, run with PyTorch and with tandem standing in for it, and their
results compared. The programs live in sweep10_indexing.py (mask assignment, gather/scatter picks,
nonzero/where, sorting and unique with ties, segment ops). The focused tests below cover what they found
(docs/compat.md, "Program sweep 10")."""
import numpy as np
import pytest

import sweep10_indexing
import tandem
from test_programs_sweeputil import DEFAULT_TOLERANCE, compare_with_pytorch, program_params

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])
_MODULES = (sweep10_indexing,)
PROGRAMS = [p for m in _MODULES for p in m.PROGRAMS]
NEEDS_CPP = {p: why for m in _MODULES for p, why in m.NEEDS_CPP.items()}
_reference = {}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("program", program_params(PROGRAMS, NEEDS_CPP))
def test_program_matches_pytorch(program, device):
    compare_with_pytorch(program, device, _reference, DEFAULT_TOLERANCE)
