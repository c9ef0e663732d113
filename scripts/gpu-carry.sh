#!/usr/bin/env bash
# Prepares .gpu-carry/ (git-ignored) on a machine with internet, for the GPU check on a machine without it:
# GoogleTest's sources (that machine may lack the -dev package), the pure-Python test dependencies and
# nanobind at the versions pinned in requirements-dev.txt, and Debian's OpenBLAS (BLAS + LAPACK) and FFTW packages
# as .debs, which gpu-check.sh unpacks into a private folder where the machine has no cblas.h / fftw3.h (without
# them tandem.linalg's CPU decompositions are missing and the CPU linalg tests fail for a reason that is not a bug). The device tool carries the folder along:
#   run(command="scripts/gpu-check.sh $OUT", carry=[".gpu-carry"])
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
GTEST_SRC=${GTEST_SRC:-/usr/src/googletest}
[ -f "$GTEST_SRC/CMakeLists.txt" ] || { echo "no GoogleTest sources at $GTEST_SRC (apt-get install libgtest-dev)"; exit 1; }

pin() {  # the version requirements-dev.txt pins, else the one installed in the venv
  local v
  v=$(grep -i "^$1==" requirements-dev.txt | head -n1 | cut -d= -f3)
  [ -n "$v" ] || v=$("$PY" -m pip show "$1" 2>/dev/null | awk '/^Version:/{print $2}')
  echo "$1${v:+==$v}"
}

rm -rf .gpu-carry
mkdir -p .gpu-carry/wheels
cp -r "$GTEST_SRC" .gpu-carry/googletest
# Pure-Python packages (any Python 3), plus safetensors' abi3 wheel for the GPU machine's Python 3.12.
"$PY" -m pip download -q --no-deps -d .gpu-carry/wheels \
  "$(pin hypothesis)" "$(pin sortedcontainers)" "$(pin attrs)" "$(pin pytest-xdist)" "$(pin execnet)" \
  "$(pin nanobind)"
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --platform manylinux2014_x86_64 -d .gpu-carry/wheels "$(pin safetensors)"
"$PY" -m pip install -q --no-deps --no-compile --target .gpu-carry/pylib .gpu-carry/wheels/*.whl
rm -rf .gpu-carry/wheels
mkdir -p .gpu-carry/debs
(cd .gpu-carry/debs && apt-get download -q libopenblas0-pthread libopenblas-pthread-dev libgfortran5 libquadmath0 \
  libfftw3-dev libfftw3-single3 libfftw3-double3 2>/dev/null)
du -sh .gpu-carry
