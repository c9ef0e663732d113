"""The fifth program sweep: short but whole programs from domains the earlier sweeps left out (scientific ML,
audio and sequences, probabilistic models, structured prediction and geometry, applied models), each written
once against a module called `torch` the way tutorials write them, run with PyTorch and with tandem standing in
for it, and their results compared. The programs live in sweep5_science.py, sweep5_signals.py,
sweep5_probabilistic.py, sweep5_structured.py and sweep5_applied.py; the fixes for what they found have their
focused tests in test_programs_sweep5_fixes.py (see docs/compat.md, "Program sweep 5")."""

import sweep5_applied
import sweep5_probabilistic
import sweep5_science
import sweep5_signals
import sweep5_structured
import tandem
from test_programs_sweeputil import program_test

DEVICES = ["cpu"] + (["cuda"] if tandem.cuda.is_available() else [])

_MODULES = (sweep5_science, sweep5_signals, sweep5_probabilistic, sweep5_structured, sweep5_applied)

# float32 programs: the two libraries sum and fuse in different orders (about 1e-7 relative per op), and a few
# optimiser steps amplify that; 1e-4 relative stays far below a real difference (a wrong op or a missed step moves
# a loss by 1e-2 or more). Programs that branch on float comparisons (LBFGS line searches) run in float64.
test_program_matches_pytorch = program_test(_MODULES, DEVICES)
