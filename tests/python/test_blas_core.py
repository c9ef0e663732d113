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
MACHINE_CORE = _blas_core.core_for_flags(_blas_core.cpu_flags())


def _import_in_child(env_core):
    """(OPENBLAS_CORETYPE after import, OpenBLAS's kernel set) in a fresh interpreter that imports tandem."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    if env_core is not None:
        env["OPENBLAS_CORETYPE"] = env_core
    code = "import os, tandem; print(os.environ.get('OPENBLAS_CORETYPE')); print(tandem._C._blas_info()[1])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.parametrize("flags, core", [
    ({"sse2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"}, "SKYLAKEX"),
    ({"avx2", "fma", "avx512f", "avx512cd"}, "HASWELL"),  # Knights Landing's AVX-512 lacks BW/DQ/VL
    ({"sse2", "avx", "avx2", "fma"}, "HASWELL"),
    ({"sse2", "avx", "avx2"}, None),  # AVX2 without FMA: left to OpenBLAS
    ({"sse2", "sse4_2", "avx"}, None),
    (set(), None),  # not x86, or no /proc/cpuinfo
])
def test_core_for_flags(flags, core):
    assert _blas_core.core_for_flags(flags) == core


def test_cpu_flags_reads_the_first_processor(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu avx2 fma\n\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert _blas_core.cpu_flags(str(info)) == {"fpu", "avx2", "fma"}
    assert _blas_core.cpu_flags(str(tmp_path / "absent")) == set()
    (tmp_path / "arm").write_text("processor\t: 0\nFeatures\t: fp asimd\n")
    assert _blas_core.cpu_flags(str(tmp_path / "arm")) == set()


def test_chosen_while_sets_only_inside_the_block(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("flags\t\t: avx2 fma\n")
    env = {}
    with _blas_core.chosen_while(env, str(info)) as core:
        assert core == "HASWELL" and env == {"OPENBLAS_CORETYPE": "HASWELL"}
    assert env == {}
    with pytest.raises(ImportError):  # removed when the import fails too
        with _blas_core.chosen_while(env, str(info)):
            raise ImportError("x")
    assert env == {}


def test_chosen_while_keeps_the_users_choice(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("flags\t\t: avx2 fma avx512f avx512bw avx512dq avx512vl avx512cd\n")
    env = {"OPENBLAS_CORETYPE": "Prescott"}
    with _blas_core.chosen_while(env, str(info)) as core:
        assert core is None and env == {"OPENBLAS_CORETYPE": "Prescott"}
    assert env == {"OPENBLAS_CORETYPE": "Prescott"}
    env = {}
    with _blas_core.chosen_while(env, str(tmp_path / "absent")) as core:
        assert core is None and env == {}


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
