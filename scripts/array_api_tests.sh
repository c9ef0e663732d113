#!/usr/bin/env bash
# Runs data-apis/array-api-tests against tandem.array_api (or another namespace) and prints the pass count.
#   scripts/array_api_tests.sh <suite-folder> [extra pytest args...]
# <suite-folder> is a checkout of https://github.com/data-apis/array-api-tests with its `array-api` spec
# submodule filled in. Its requirements (pytest-json-report, hypothesis, ndindex) go into the venv by hand;
# they are not in requirements-dev.txt because CI cannot fetch the suite.
# Environment: ARRAY_API_TESTS_MODULE (default tandem.array_api; `numpy` gives NumPy's count with the same
# settings), MAX_EXAMPLES (default 20), PYTHON (default .venv/bin/python). The emulated CUDA devices are off,
# so the namespace is tested on cpu; hypothesis runs derandomized, so counts are reproducible. LOG=<file> keeps
# the whole pytest output (with -rf in the args, the failing tests' names) besides the summary printed here.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 <array-api-tests folder> [pytest args...]"; exit 2; }
SUITE=$(cd "$1" && pwd)
shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
[ -x "$PY" ] || PY=$(command -v python3)
[ -f "$SUITE/array-api/src/array_api_stubs/__init__.py" ] || {
  echo "$SUITE/array-api is empty: fill the spec submodule (git submodule update --init)"; exit 2; }

export ARRAY_API_TESTS_MODULE=${ARRAY_API_TESTS_MODULE:-tandem.array_api}
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
unset TANDEM_EMULATE_CUDA
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$SUITE/array_api_tests" "$SUITE/conftest.py" "$SUITE/reporting.py" "$SUITE/pytest.ini" "$WORK/"
ln -s "$SUITE/array-api" "$WORK/array-api"
# Hypothesis shrinks each failing example, ~20 s per failing test here; NO_SHRINK=1 (the default) skips that
# phase. Pass/fail counts are the same (shrinking only minimises an example already found to fail).
if [ "${NO_SHRINK:-1}" = 1 ]; then
  sed -i 's/^        deadline=deadline,$/&\n        phases=[Phase.explicit, Phase.reuse, Phase.generate],/;
          s/^from hypothesis import settings$/from hypothesis import Phase, settings/' "$WORK/conftest.py"
fi
cd "$WORK"
"$PY" -m pytest array_api_tests -q -p no:cacheprovider --max-examples "${MAX_EXAMPLES:-20}" --derandomize \
  --disable-deadline -o addopts="" --tb=no -rN "$@" | tee "${LOG:-/dev/null}" | tail -n 1
