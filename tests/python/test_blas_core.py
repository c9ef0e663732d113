"""OpenBLAS's kernel set follows the CPU's instruction sets (tandem/_blas_core.py): an OpenBLAS older than the CPU
must not fall back to its generic kernels, an OPENBLAS_CORETYPE the user set wins, and the variable does not
outlive tandem's import (NumPy's OpenBLAS makes its own choice)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tandem
from tandem import _blas_core

CONFIG, CORE = tandem._C._blas_info()
DYNAMIC = "DYNAMIC_ARCH" in CONFIG  # a build for one CPU ignores OPENBLAS_CORETYPE
MACHINE_CORE = _blas_core.core_for_capability(_blas_core.cpu_capability())


def _import_in_child(env_core, prefix=()):
    """(OPENBLAS_CORETYPE after import, OpenBLAS's kernel set) in a fresh interpreter that imports tandem."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if env_core is not None:
        env["OPENBLAS_CORETYPE"] = env_core
    code = "import os, tandem; print(os.environ.get('OPENBLAS_CORETYPE')); print(tandem._C._blas_info()[1])"
    out = subprocess.run([*prefix, sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


@pytest.mark.parametrize("capability, core", [("avx512", "SKYLAKEX"), ("avx2", "HASWELL"), ("baseline", None),
                                              (None, None)])
def test_core_for_capability(capability, core):
    assert _blas_core.core_for_capability(capability) == core


def test_capability_is_tandems_own():
    # the same CPUID reading as the kernels' choice (kernels/cpu_features.h), before _C loads
    assert _blas_core.cpu_capability() == tandem.backends.cpu.capability_info()["supported"][-1]


def test_chosen_while_sets_only_inside_the_block():
    env = {}
    with _blas_core.chosen_while(env, "avx2") as core:
        assert core == "HASWELL" and env == {"OPENBLAS_CORETYPE": "HASWELL"}
    assert env == {}
    with pytest.raises(ImportError):  # removed when the import fails too
        with _blas_core.chosen_while(env, "avx512"):
            raise ImportError("x")
    assert env == {}
    with _blas_core.chosen_while(env, "baseline") as core:
        assert core is None and env == {}


def test_chosen_while_keeps_the_users_choice():
    env = {"OPENBLAS_CORETYPE": "Prescott"}
    with _blas_core.chosen_while(env, "avx512") as core:
        assert core is None and env == {"OPENBLAS_CORETYPE": "Prescott"}
    assert env == {"OPENBLAS_CORETYPE": "Prescott"}


@pytest.mark.skipif(not DYNAMIC or MACHINE_CORE is None, reason="OpenBLAS built for one CPU, or a CPU left to it")
def test_import_runs_the_kernels_for_this_cpu():
    env_after, core = _import_in_child(None)
    assert env_after == "None"  # not left for NumPy's OpenBLAS or child processes to inherit
    assert core.upper() == MACHINE_CORE
    assert CORE.upper() == MACHINE_CORE  # this test process too


@pytest.mark.skipif(not DYNAMIC or MACHINE_CORE is None, reason="OpenBLAS built for one CPU, or a CPU left to it")
def test_users_coretype_wins():
    env_after, core = _import_in_child("Prescott")
    assert (env_after, core) == ("Prescott", "Prescott")


def test_config_show_names_the_blas_kernels():
    line = next(x for x in tandem.__config__.show().splitlines() if x.startswith("  - BLAS: "))
    if CONFIG:
        assert line == f"  - BLAS: {CONFIG} (kernels: {CORE})" and CONFIG.startswith("OpenBLAS ")
    else:
        assert line == "  - BLAS: none (portable matrix product loops)"


def test_products_and_lapack_agree_with_numpy_under_the_chosen_kernels():
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((96, 80)), rng.standard_normal((80, 70))
    np.testing.assert_allclose((tandem.from_numpy(a) @ tandem.from_numpy(b)).numpy(), a @ b, rtol=1e-12, atol=1e-12)
    s = rng.standard_normal((64, 64))
    x = tandem.linalg.solve(tandem.from_numpy(s), tandem.from_numpy(b[:64]))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(s, b[:64]), rtol=1e-9, atol=1e-9)
