#!/usr/bin/env bash
# The GPU check (issue 5), for a machine with an NVIDIA GPU and no internet: builds tandem with CUDA for that
# GPU, runs the C++ tests and the whole Python suite on the real cuda device, runs the GPU benchmarks against
# PyTorch (and CuPy) side by side, and writes gpu-check.md (summary) and gpu-check.json into OUTDIR, with the
# logs in logs.tar.gz beside them (the device tool returns at most 8 files: OUTDIR holds gpu-check.md/.json,
# gpu-bench.md/.json and logs.tar.gz, refreshed after every step so a run cut short still returns what it did).
# What the machine may lack comes prepared in .gpu-carry/ (scripts/gpu-carry.sh). Exit status 0 only when
# everything passed.
#
# Usage: scripts/gpu-check.sh OUTDIR
#   GPU_CHECK_DEADLINE_S=N: every step ends by N seconds after the start (the device tool's call limit is 600 s);
#     a step that has no time left is not run (reported as "not run").
#   GPU_CHECK_REHEARSAL=1 runs it on a machine without a GPU (checks the script: cuda tests skip, no benchmarks).
#   GPU_CHECK_CARRIED_LIBS=1 uses the carried OpenBLAS/FFTW even where the machine has its own (to rehearse that).
set -uo pipefail
OUT=$(mkdir -p "${1:?usage: scripts/gpu-check.sh OUTDIR}" && cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PY=${PYTHON:-python3}
CARRY=$ROOT/.gpu-carry
BUILD=$ROOT/build-gpu
JOBS=$(nproc)
export PYTHONPATH=$ROOT/python${PYTHONPATH:+:$PYTHONPATH}
[ -d "$CARRY/pylib" ] && export PYTHONPATH=$PYTHONPATH:$CARRY/pylib  # after the machine's own packages
unset TANDEM_EMULATE_CUDA TANDEM_EMULATE_CUDA_MEMORY
T0=$(date +%s)
DEADLINE=${GPU_CHECK_DEADLINE_S:-0}
LOGS=$(mktemp -d)
declare -A STATUS SECONDS_TAKEN

# A rehearsal on a small machine gets more time per step; the real check must fit its 8 minutes.
SCALE=1
[ -n "${GPU_CHECK_REHEARSAL:-}" ] && SCALE=6

save_logs() { tar -czf "$OUT/logs.tar.gz" -C "$LOGS" . 2>/dev/null; }

# step NAME TIMEOUT_S CMD...: runs CMD with its output in $LOGS/NAME.log, recording status and seconds; within
# GPU_CHECK_DEADLINE_S when set (keeping 20 s for the summary).
step() {
  local name=$1 limit=$(( $2 * SCALE )); shift 2
  local t=$(date +%s)
  if [ "$DEADLINE" -gt 0 ]; then
    local left=$(( DEADLINE - 20 - (t - T0) ))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 5 ]; then echo "== $name: no time left" >&2; return 124; fi
  fi
  echo "== $name (limit ${limit} s)" >&2
  timeout --kill-after=10 "$limit" "$@" >"$LOGS/$name.log" 2>&1
  local rc=$?
  STATUS[$name]=$rc
  SECONDS_TAKEN[$name]=$(( $(date +%s) - t ))
  tail -n 3 "$LOGS/$name.log" >&2
  save_logs
  return $rc
}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1 || true
  nvcc --version 2>&1 | tail -n 2
  cmake --version | head -n 1
  "$PY" - <<'PYEOF'
import platform, importlib
print("python", platform.python_version())
for m in ("numpy", "torch", "cupy", "nanobind", "pytest", "xdist", "hypothesis"):
    try:
        print(m, getattr(importlib.import_module(m), "__version__", "?"))
    except Exception as e:
        print(m, "absent", type(e).__name__)
PYEOF
  ldconfig -p 2>/dev/null | grep -E "libopenblas|libfftw3\.|libfftw3f\." | head -n 4
} >"$LOGS/environment.log" 2>&1

# OpenBLAS (BLAS + LAPACK) and FFTW: the machine's own, else Debian's packages carried as .debs, unpacked into a
# private folder (never into /) and found through CMake's search paths and LD_LIBRARY_PATH.
LIB_ARGS=()
have_header() { [ -e "/usr/include/$1" ] || [ -e "/usr/include/x86_64-linux-gnu/$1" ]; }
if [ -d "$CARRY/debs" ] && { [ -n "${GPU_CHECK_CARRIED_LIBS:-}" ] || ! have_header cblas.h || ! have_header fftw3.h; }; then
  SYSROOT=$(mktemp -d)
  for deb in "$CARRY"/debs/*.deb; do dpkg -x "$deb" "$SYSROOT"; done
  LIBDIR=$SYSROOT/usr/lib/x86_64-linux-gnu
  LIB_ARGS=(-DBLA_VENDOR=OpenBLAS -DCMAKE_LIBRARY_PATH="$LIBDIR/openblas-pthread;$LIBDIR"
            -DCMAKE_INCLUDE_PATH="$SYSROOT/usr/include" -DCMAKE_CXX_FLAGS="-isystem $SYSROOT/usr/include/x86_64-linux-gnu/openblas-pthread")
  export LD_LIBRARY_PATH=$LIBDIR/openblas-pthread:$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "using the carried OpenBLAS and FFTW from $SYSROOT" >>"$LOGS/environment.log"
fi

# Only the GPU that is here: one architecture builds fast (CMake's portable default is sm_80 + sm_90 + PTX).
ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
ARCH=${ARCH:-90}
NB_DIR=$("$PY" -m nanobind --cmake_dir 2>/dev/null)
GTEST_ARGS=()
[ -d "$CARRY/googletest" ] && GTEST_ARGS=(-DTANDEM_GTEST_SOURCE_DIR="$CARRY/googletest")

step configure 120 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTANDEM_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DPython_EXECUTABLE="$(command -v "$PY")" -Dnanobind_DIR="$NB_DIR" \
  "${GTEST_ARGS[@]}" "${LIB_ARGS[@]}"
if [ "${STATUS[configure]}" = 0 ]; then
  step build 300 cmake --build "$BUILD" -j "$JOBS"
fi
if [ "${STATUS[build]:-1}" = 0 ]; then
  step cpp_tests 120 "$BUILD/tandem_tests" --gtest_brief=1
  step cuda_device 60 "$PY" -c "
import tandem
print('is_available', tandem.cuda.is_available(), 'device_count', tandem.cuda.device_count())
assert tandem.cuda.is_available(), 'tandem sees no CUDA device'
p = tandem.cuda.get_device_properties(0)
print(p)
assert not getattr(p, 'emulated', False), 'the cuda device is emulated'
x = tandem.arange(10, device='cuda').float()
assert (x * 2).sum().item() == 90.0
"
  # The tests run even when the device check failed: which ones pass on cuda is what the next session needs.
  # Workers get 2 OpenMP threads each (this project's usual machine); a hanging test is stopped after 120 s.
  PYTEST_ARGS=(-q -p no:cacheprovider --durations=25 --junitxml="$LOGS/pytest.xml" -o junit_family=xunit1)
  "$PY" -c "import xdist" 2>/dev/null && PYTEST_ARGS+=(-n "$(( JOBS > 12 ? 12 : JOBS ))")
  "$PY" -c "import pytest_timeout" 2>/dev/null && PYTEST_ARGS+=(--timeout=120)
  OMP_NUM_THREADS=2 step python_tests 240 "$PY" -m pytest tests/python "${PYTEST_ARGS[@]}"
  if [ -z "${GPU_CHECK_REHEARSAL:-}" ] && [ "${STATUS[cuda_device]}" = 0 ]; then
    step gpu_bench 200 "$PY" bench/gpu_bench.py --out "$OUT"
    # NCCL with world size 1 (exit 2: this build has no MPI/NCCL, e.g. no Open MPI on the GPU machine).
    step nccl 60 "$PY" tests/distributed/nccl_single.py
  fi
fi

TOTAL=$(( $(date +%s) - T0 ))
STEPS=(configure build cpp_tests cuda_device python_tests gpu_bench nccl)
status_json=$(for s in "${STEPS[@]}"; do printf '"%s": {"status": %s, "seconds": %s},' "$s" "${STATUS[$s]:-null}" "${SECONDS_TAKEN[$s]:-null}"; done)
"$PY" - "$OUT" "$LOGS" "$TOTAL" "{${status_json%,}}" <<'PYEOF'
import json, os, re, sys
out, logs, total, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
def read(name):
    p = os.path.join(out if name.startswith("gpu-bench") else logs, name)
    return open(p, errors="replace").read() if os.path.exists(p) else ""
env = read("environment.log").strip()
tests = read("python_tests.log")
summary_line = next((l for l in reversed(tests.splitlines()) if re.search(r"\d+ (passed|failed)", l)), "")
failures = [l for l in tests.splitlines() if l.startswith(("FAILED", "ERROR"))]
# nccl exits 2 when the build has no MPI/NCCL (the GPU machine may lack Open MPI): reported, not a failure.
ok = all(v["status"] == 0 or (k == "nccl" and v["status"] == 2) for k, v in steps.items()
         if v["status"] is not None) and \
    steps["python_tests"]["status"] is not None
bench = read("gpu-bench.md")
lines = ["# GPU check", "", f"Result: **{'PASS' if ok else 'FAIL'}** in {total} s.", "", "```", env, "```", "",
         "| step | exit status | seconds |", "|---|---:|---:|"]
lines += [f"| {k} | {v['status'] if v['status'] is not None else 'not run'} | {v['seconds'] or ''} |"
          for k, v in steps.items()]
lines += ["", f"Python tests: {summary_line or 'no summary (see python_tests.log)'}"]
cpp = read("cpp_tests.log").strip().splitlines()
lines += [f"C++ tests: {cpp[-1] if cpp else 'not run'}", ""]
if failures:
    lines += ["## Failing tests", ""] + [f"- {f}" for f in failures[:100]] + [""]
if steps["build"]["status"] not in (0, None):
    lines += ["## Build errors (last lines)", "", "```"] + read("build.log").splitlines()[-60:] + ["```", ""]
if bench:
    lines += [bench.replace("# GPU benchmarks", "## GPU benchmarks", 1)]
open(os.path.join(out, "gpu-check.md"), "w").write("\n".join(lines) + "\n")
json.dump({"ok": ok, "seconds": total, "steps": steps, "python_tests": summary_line, "failures": failures,
           "environment": env.splitlines()}, open(os.path.join(out, "gpu-check.json"), "w"), indent=1)
print("\n".join(lines[:12]))
sys.exit(0 if ok else 1)
PYEOF
rc=$?
save_logs
exit $rc
