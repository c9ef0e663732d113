"""CPU capabilities (kernels/cpu_capability.h, docs/core.md "CPU capabilities"): the CPU kernels are built
once per capability and one is chosen at import. Every capability this machine runs computes the same battery
of ops in its own process; results must agree with the baseline build's bit for bit (integers, comparisons,
exact ops) or within the documented bound (floating-point math: FMA contraction and the vector width change
the rounding of polynomials and the order of sums).

Run as a script (`python test_cpu_capability.py OUT.npz`) it writes the battery's results for the capability
its environment selects.
"""
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tandem
from tandem.backends import cpu as backends_cpu

ROOT = pathlib.Path(__file__).resolve().parents[2]
INFO = backends_cpu.capability_info()
RUNNABLE = [c for c in ("baseline", "avx2", "avx512") if c in INFO["supported"] and c in INFO["built"]]

# Documented bounds (docs/core.md): float elementwise results of two capabilities differ by at most this many
# units in the last place, or by 8 machine epsilons absolute (results that come out of a cancellation, such
# as gelu's 1 + erf(x) for negative x, carry the absolute error of the terms); reductions (sums in another
# order) by this relative amount.
ELEMENTWISE_ULPS = {"float32": 4, "float64": 4, "float16": 1, "bfloat16": 1}
ABSOLUTE_EPS = 8
EPS = {"float32": 2.0**-23, "float64": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7}
# A reduction over n standard-normal terms may differ by rtol * n absolute (rtol of the sum of magnitudes).
REDUCTION_RTOL = {"float32": 1e-6, "float64": 1e-14, "float16": 1e-3, "bfloat16": 8e-3}


def battery():
    """name -> numpy result, over sizes that cover every vector tail (0-70 elements) and long rows."""
    rng = np.random.default_rng(7)
    out = {}
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 88.5, -104.0, 1e30, -1e30, 0.5, -0.5,
                         2.5, -2.5, 1e4, -1e4, 3.0e38, 1e-7], np.float64)
    unary = [n for n, rule, _ in tandem._C._unary_ops()]
    binary = [n for n, rule, _ in tandem._C._binary_ops()]
    float_rules = {n: rule for n, rule, _ in tandem._C._unary_ops()}
    # PyTorch has no float16/bfloat16 kernels for torch.special's Bessel functions and polynomials (refused)
    no_half = {"bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
               "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
               "spherical_bessel_j0", "airy_ai"} | {n for n in binary if "_polynomial_" in n}
    tensor_only = {"igamma", "igammac"}  # no Python-number operand (PyTorch's TypeError)
    for dtype in ("float32", "float64", "float16", "bfloat16"):
        for n in (1, 7, 8, 15, 17, 33, 64, 70, 1000, 4099):
            x = np.concatenate([rng.standard_normal(n) * 4, specials])
            t = tandem.tensor(x, dtype=getattr(tandem, dtype))
            for name in unary:
                if float_rules[name] == "Integral" or (name in no_half and dtype in ("float16", "bfloat16")):
                    continue
                out[f"unary/{name}/{dtype}/{n}"] = getattr(tandem, name)(t).float().numpy()
            y = tandem.tensor(np.concatenate([rng.standard_normal(n) * 3, specials[::-1]]),
                              dtype=getattr(tandem, dtype))
            for name in binary:
                if name.startswith("bitwise") or name in ("gcd", "lcm"):  # integer-only
                    continue
                if name in no_half and dtype in ("float16", "bfloat16"):
                    continue
                r = getattr(tandem, name)(t, y)
                out[f"binary/{name}/{dtype}/{n}"] = r.float().numpy() if r.dtype != tandem.bool else r.numpy()
                if name in tensor_only:
                    continue
                out[f"binary_scalar/{name}/{dtype}/{n}"] = getattr(tandem, name)(t, 1.5).float().numpy() \
                    if r.dtype != tandem.bool else getattr(tandem, name)(t, 1.5).numpy()
            finite = tandem.tensor(rng.standard_normal((3, n)), dtype=getattr(tandem, dtype))
            for name, fn in {"sum": lambda v: v.sum(1), "mean": lambda v: v.mean(1), "amax": lambda v: v.amax(1),
                             "amin": lambda v: v.amin(1), "sum_all": lambda v: v.sum(), "sum_dim0": lambda v: v.sum(0),
                             "softmax": lambda v: v.softmax(1), "log_softmax": lambda v: v.log_softmax(1),
                             "cumsum": lambda v: v.cumsum(1), "prod": lambda v: (v * 0.01 + 1).prod(1)}.items():
                out[f"reduce/{name}/{dtype}/{n}"] = fn(finite).float().numpy()
            out[f"exact/argmax/{dtype}/{n}"] = t.argmax(0).numpy()
            out[f"exact/argmin/{dtype}/{n}"] = t.argmin(0).numpy()
            out[f"exact/any/{dtype}/{n}"] = finite.gt(1).any(1).numpy()
            out[f"exact/all/{dtype}/{n}"] = finite.gt(-3).all(1).numpy()
            out[f"exact/sort/{dtype}/{n}"] = finite.sort(1)[0].float().numpy()
            f = tandem.nn.functional
            for name, fn in {"elu": f.elu, "leaky_relu": f.leaky_relu, "softplus": f.softplus,
                             "gelu_tanh": lambda v: f.gelu(v, approximate="tanh")}.items():
                out[f"unary/{name}/{dtype}/{n}"] = fn(t).float().numpy()
    for dtype in ("int8", "uint8", "int16", "int32", "int64"):
        info = np.iinfo(dtype)
        x = rng.integers(max(info.min, -1000), min(info.max, 1000), 4099).astype(dtype)
        y = rng.integers(1, min(info.max, 100), 4099).astype(dtype)
        t, u = tandem.from_numpy(x), tandem.from_numpy(y)
        for name in ("add", "sub", "mul", "floor_divide", "remainder", "maximum", "minimum", "bitwise_and",
                     "bitwise_xor", "eq", "lt"):
            out[f"exact/{name}/{dtype}"] = getattr(tandem, name)(t, u).numpy()
        for name in ("neg", "abs", "sign", "bitwise_not"):
            out[f"exact/{name}/{dtype}"] = getattr(tandem, name)(t).numpy()
        out[f"exact/sum/{dtype}"] = t.sum().numpy()
        out[f"exact/amax/{dtype}"] = t.reshape(17, -1).amax(1).numpy() if 4099 % 17 == 0 else t.amax().numpy()
        out[f"exact/argmax/{dtype}"] = t.argmax().numpy()
        out[f"exact/index/{dtype}"] = t[tandem.from_numpy(rng.integers(0, 4099, 500))].numpy()
    # masked_scatter's element widths (AVX-512 expands 4- and 8-byte elements a vector at a time), tails included
    mask = tandem.from_numpy(rng.random(70001) < 0.4)
    for dtype in ("uint8", "int16", "float32", "float64"):
        base = tandem.zeros(70001, dtype=getattr(tandem, dtype))
        out[f"exact/masked_scatter/{dtype}"] = base.masked_scatter(mask, tandem.arange(70001).to(base.dtype)).numpy()
    a = tandem.tensor(rng.standard_normal((37, 29)), dtype=tandem.float32)
    b = tandem.tensor(rng.standard_normal((29, 41)), dtype=tandem.float32)
    out["reduce/matmul/float32"] = (a @ b).numpy()
    # 16-bit products: a matrix-vector product (widened in blocks, summed in float lanes) and a matrix product
    # (widened copies through float32's BLAS), each with a transposed operand as a Linear layer has.
    for dtype in ("float16", "bfloat16"):
        h = getattr(tandem, dtype)
        out[f"reduce/matmul_vector/{dtype}/300"] = (a[:1].to(h) @ b.to(h)).float().numpy()
        out[f"reduce/matmul_rows/{dtype}/300"] = tandem.nn.functional.linear(a.to(h), b.t().to(h)).float().numpy()
    return out


def ulp_distance(a, b, dtype):
    """Units in the last place between two arrays of `dtype` values (stored as float32 or float64)."""
    if dtype in ("float16", "bfloat16"):
        a = a.astype(np.float32)
        b = b.astype(np.float32)
        shift = 13 if dtype == "float16" else 16  # their values are exact in float32; compare their own ulps
        ia, ib = a.view(np.int32).astype(np.int64) >> shift, b.view(np.int32).astype(np.int64) >> shift
    else:
        bits = np.int32 if a.dtype == np.float32 else np.int64
        ia, ib = a.view(bits).astype(np.int64), b.view(bits).astype(np.int64)
    # Ordered integers: negative floats count down from zero.
    ia = np.where(ia < 0, np.iinfo(np.int64).min - ia if a.dtype == np.float64 else -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, np.iinfo(np.int64).min - ib if b.dtype == np.float64 else -(ib & 0x7FFFFFFF), ib)
    return np.abs(ia - ib)


def run_battery(capability, tmp_path, cpu_model=None):
    """The battery's results in a fresh process with TANDEM_CPU_CAPABILITY=capability (None: unset), under
    qemu's user-mode emulation of `cpu_model` when given."""
    out = tmp_path / f"{capability}-{cpu_model}.npz"
    env = dict(os.environ)
    env.pop("TANDEM_CPU_CAPABILITY", None)
    if capability:
        env["TANDEM_CPU_CAPABILITY"] = capability
    command = [sys.executable, __file__, str(out)]
    if cpu_model:
        command = ["qemu-x86_64", "-cpu", cpu_model] + command
    r = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout, dict(np.load(out))


def assert_within_documented_bounds(base, other, label):
    """Every entry of `other` matches `base` exactly or within the documented bounds."""
    assert other.keys() == base.keys()
    compared = 0
    for key, want in base.items():
        got = other[key]
        kind, dtype = key.split("/")[0], key.split("/")[2] if key.count("/") >= 2 else ""
        assert got.dtype == want.dtype and got.shape == want.shape, key
        if kind == "exact" or want.dtype.kind in "biu":
            np.testing.assert_array_equal(got, want, err_msg=f"{label}: {key}")
            continue
        assert (np.isnan(want) == np.isnan(got)).all(), f"{label}: {key}: NaN in different places"
        ok = ~np.isnan(want)
        if kind == "reduce":
            n = int(key.split("/")[3]) if key.count("/") >= 3 else 29
            rtol = REDUCTION_RTOL[dtype]
            np.testing.assert_allclose(got[ok], want[ok], rtol=rtol, atol=rtol * n, err_msg=f"{label}: {key}")
            continue
        g, w = got[ok], want[ok]
        ulps = ulp_distance(g, w, dtype) if ok.any() else np.zeros(0, np.int64)
        with np.errstate(invalid="ignore"):
            close = (ulps <= ELEMENTWISE_ULPS[dtype]) | (np.abs(g.astype(np.float64) - w) <= ABSOLUTE_EPS * EPS[dtype])
        assert close.all(), (f"{label}: {key}: {int(ulps[~close].max())} ulps from the baseline build at "
                             f"{w[~close][0]!r} -> {g[~close][0]!r}")
        compared += 1
    assert compared > 1000  # the comparison ran over the floating-point ops


@pytest.mark.skipif(len(RUNNABLE) < 2, reason="this machine runs only one CPU capability")
def test_every_capability_agrees_with_the_baseline(tmp_path):
    results = {}
    for capability in RUNNABLE:
        stdout, results[capability] = run_battery(capability, tmp_path)
        assert f"chosen={capability}" in stdout
    for capability in RUNNABLE[1:]:
        assert_within_documented_bounds(results["baseline"], results[capability], capability)


# Older CPUs, emulated: qemu's user mode runs the interpreter and tandem on a CPU model without AVX (Nehalem:
# SSE4.2) and one with AVX2 but no AVX-512 (Haswell), raising SIGILL at the first instruction the model lacks.
# Import picks the capability from the model's CPUID, and the battery gives the native run's results.
@pytest.mark.skipif(shutil.which("qemu-x86_64") is None or os.uname().machine != "x86_64",
                    reason="needs qemu-user on x86-64 (make setup installs it)")
@pytest.mark.skipif(bool(os.environ.get("TANDEM_SANITIZER")),
                    reason="the sanitizer runtime preloaded into qemu itself is not supported")
@pytest.mark.parametrize("cpu_model,expected", [("Nehalem", "baseline"), ("Haswell", "avx2")])
def test_runs_on_an_emulated_older_cpu(cpu_model, expected, tmp_path):
    if expected not in INFO["built"]:
        pytest.skip(f"this build has no {expected} kernels")
    # tandem imports NumPy, so the model must run NumPy itself: some NumPy wheels (2.4.6's, seen on an AVX-512
    # host) die with SIGILL on qemu's Nehalem before tandem loads. That is NumPy's floor, not tandem's.
    probe = subprocess.run(["qemu-x86_64", "-cpu", cpu_model, sys.executable, "-c", "import numpy"],
                           capture_output=True, text=True, timeout=600)
    if probe.returncode != 0 and "Illegal instruction" in probe.stderr + str(probe.returncode):
        pytest.skip(f"NumPy {np.__version__} itself does not run on qemu's {cpu_model} model (illegal instruction)")
    assert probe.returncode == 0, probe.stderr[-2000:]
    stdout, emulated = run_battery(None, tmp_path, cpu_model)
    assert f"chosen={expected}" in stdout
    # OpenBLAS's kernels follow the emulated model's CPUID too (tandem/_blas_core.py), not the host's
    # /proc/cpuinfo: Haswell's for the AVX2 model, OpenBLAS's own pick (no AVX-512 kernels) for Nehalem.
    blas = stdout.split("blas=")[1].split()[0]
    assert blas not in ("SkylakeX", "Cooperlake", "SapphireRapids")
    if expected == "avx2" and "DYNAMIC_ARCH" in tandem._C._blas_info()[0]:
        assert blas == "Haswell"
    _, native = run_battery("baseline", tmp_path)
    assert_within_documented_bounds(native, emulated, f"{cpu_model} ({expected})")


def test_capability_names_follow_pytorch():
    assert backends_cpu.get_cpu_capability() == {"baseline": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}[
        INFO["chosen"]]
    assert "baseline" in INFO["supported"] and "baseline" in INFO["built"]
    assert set(INFO["supported"]) <= {"baseline", "avx2", "avx512"}
    if not os.environ.get("TANDEM_CPU_CAPABILITY"):
        assert INFO["chosen"] == RUNNABLE[-1]  # the best this CPU runs
        assert INFO["note"] == ""


def run_with(value, code="import tandem.backends.cpu as c; print(c.capability_info()['chosen'])"):
    env = dict(os.environ, TANDEM_CPU_CAPABILITY=value)
    return subprocess.run([sys.executable, "-W", "always", "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)


def test_forcing_each_runnable_capability():
    for capability in RUNNABLE:
        r = run_with(capability.upper())  # names are case-insensitive
        assert r.returncode == 0 and r.stdout.split() == [capability] and "Warning" not in r.stderr, r.stderr
    r = run_with("default")  # PyTorch's name for the baseline
    assert r.stdout.split() == ["baseline"] and "Warning" not in r.stderr


def test_unknown_name_warns_and_uses_the_best():
    r = run_with("avx9000")
    assert r.returncode == 0 and r.stdout.split() == [RUNNABLE[-1]]
    assert ("RuntimeWarning: TANDEM_CPU_CAPABILITY=avx9000 is not a CPU capability (baseline, avx2 or avx512); "
            f"using {RUNNABLE[-1]}") in r.stderr


@pytest.mark.skipif("avx512" in INFO["supported"], reason="this CPU runs AVX-512")
def test_a_capability_the_cpu_lacks_warns_and_falls_back():
    r = run_with("avx512", "import tandem; print(tandem.ones(100).exp().sum().item())")
    assert r.returncode == 0 and abs(float(r.stdout) - 271.8281828) < 1e-3
    # A build without AVX-512 kernels (the sanitizer builds compile fewer capabilities) says that instead.
    reason = ("this CPU cannot run avx512 instructions" if "avx512" in INFO["built"] else
              "this build has no avx512 kernels (CMake's TANDEM_CPU_CAPABILITIES)")
    assert f"RuntimeWarning: TANDEM_CPU_CAPABILITY=avx512: {reason}; using {RUNNABLE[-1]}" in r.stderr, r.stderr


def test_kernel_sources_keep_their_code_inside_the_capability_region():
    # kernels/cpu/isa_region.h: every file of src/kernels/cpu puts its code between the region macros, after
    # all its #includes (a header first included inside a region would give shared code AVX instructions).
    for path in sorted((ROOT / "src/kernels/cpu").glob("*")):
        if path.name == "isa_region.h":
            continue
        text = path.read_text()
        begins, ends = text.count("TANDEM_CPU_KERNELS_BEGIN"), text.count("TANDEM_CPU_KERNELS_END")
        assert begins >= 1 and begins == ends, f"{path.name}: unbalanced or missing capability region"
        assert "namespace tandem::cpu {" not in text, f"{path.name}: code outside the capability region"
        inside = False
        for line in text.splitlines():
            if line.startswith("TANDEM_CPU_KERNELS_BEGIN"):
                inside = True
            elif line.startswith("TANDEM_CPU_KERNELS_END"):
                inside = False
            elif inside and line.startswith("#include") and not line.endswith('.def"'):
                pytest.fail(f"{path.name}: {line} inside the capability region")


if __name__ == "__main__":
    results = battery()
    np.savez(sys.argv[1], **results)
    print(f"chosen={backends_cpu.capability_info()['chosen']} entries={len(results)} "
          f"blas={tandem._C._blas_info()[1]}")


def test_every_capability_draws_pytorchs_normals():
    """The float32 Box-Muller kernel (kernels/cpu/cpu_stream_kernels.cpp) is built per capability: each gives
    PyTorch's randn bits (the baseline's lanes take a libm fma each, the others one instruction)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(11)
    want = torch.randn(4099).numpy().tobytes().hex()
    code = "import tandem; tandem.manual_seed(11); print(tandem.randn(4099).numpy().tobytes().hex())"
    for capability in RUNNABLE:
        r = run_with(capability, code)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == want, capability
