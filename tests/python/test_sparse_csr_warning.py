"""PyTorch's "Sparse CSR tensor support is in beta state" warning: given when the first CSR tensor of a process is
made (by any constructor, conversion or op), at the user's line, again only under set_warn_always(True); checked
against PyTorch running the same program in a fresh process, and on every device."""
import json
import os
import subprocess
import sys
import warnings

import pytest

import tandem
from tandem.sparse import _beta_warning

FIRST_SENTENCE = "Sparse CSR tensor support is in beta state."

# Each step makes tensors; the program prints, per step, the warnings it gave (first sentence, category, line).
PROGRAM = """
import json, sys, warnings
import {lib} as torch
warnings.simplefilter("always")
steps = {{
    "coo": lambda: torch.ones(2, 2).to_sparse(),
    "sparse_csr_tensor": lambda: torch.sparse_csr_tensor([0, 1, 2], [0, 1], [1.0, 2.0], check_invariants=False),
    "to_sparse_csr": lambda: torch.ones(2, 2).to_sparse_csr(),
    "warn_always": lambda: torch.set_warn_always(True),
    "to_sparse(layout)": lambda: torch.ones(2, 2).to_sparse(layout=torch.sparse_csr),
    "coo.to_sparse_csr": lambda: torch.ones(2, 2).to_sparse().to_sparse_csr(),
    "csr * 2": lambda: torch.ones(2, 2).to_sparse_csr() * 2,
}}
given = {{}}
for name, step in steps.items():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step()
    given[name] = [(str(w.message).split(". ")[0] + ".", w.category.__name__, w.filename == "<string>")
                   for w in caught]
print(json.dumps(given))
"""


def run(lib):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(tandem.__file__)))
    out = subprocess.run([sys.executable, "-c", PROGRAM.format(lib=lib)], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_warned_as_pytorch_in_a_fresh_process():
    expected = run("torch")
    assert expected["sparse_csr_tensor"] == [[FIRST_SENTENCE, "UserWarning", True]]  # what the oracle says
    assert run("tandem") == expected


def test_warned_once_at_the_callers_line(device, monkeypatch):
    monkeypatch.setattr(_beta_warning, "_warned", [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tandem.ones(2, 3, device=device).to_sparse()
        assert caught == []  # COO tensors are not beta
        csr = tandem.ones(2, 3, device=device).to_sparse_csr()
        (csr * 2).to_sparse_coo().to_sparse_csr()
    assert [str(w.message) for w in caught] == [_beta_warning.MESSAGE]
    assert caught[0].category is UserWarning and caught[0].filename == __file__
    assert str(csr.device) == device and csr.layout is tandem.sparse_csr


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning")
def test_ignored_by_pytorchs_filter(monkeypatch):
    monkeypatch.setattr(_beta_warning, "_warned", [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta state")
        tandem.ones(2, 2).to_sparse_csr()
    assert caught == []
