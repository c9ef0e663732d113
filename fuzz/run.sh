#!/usr/bin/env bash
# Runs every fuzz target over its committed corpus (fuzz/corpus/<target>, never written) plus a scratch
# corpus that collects what the run discovers.
#   fuzz/run.sh smoke RUNS     each target RUNS inputs (the corpus included), fixed seed, fresh scratch
#                              corpus: the same inputs on every machine (CI: make fuzz-smoke)
#   fuzz/run.sh long SECONDS   each target SECONDS of fuzzing, random seed, scratch corpus kept in
#                              build-fuzz/corpus/<target> from run to run (make fuzz)
# Needs make fuzz-build (the C++ targets) and make build (the extension the Python targets load). PY is the
# Python with atheris; FUZZ_PYTHONPATH the directory holding the tandem package to test (default python).
# A finding fails the run and leaves its input in build-fuzz/artifacts/ (rerun: the target with that file).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:?usage: fuzz/run.sh smoke RUNS | long SECONDS}
amount=${2:?usage: fuzz/run.sh smoke RUNS | long SECONDS}
PY=${PY:-.venv/bin/python}
BUILD=${FUZZ_BUILD:-build-fuzz}
PACKAGE_PATH=${FUZZ_PYTHONPATH:-python}
CPP_TARGETS="fuzz_views fuzz_indexing fuzz_dlpack"
PY_TARGETS="fuzz_safetensors fuzz_checkpoint"

case $mode in
  smoke) limit=(-runs="$amount" -seed=1) scratch=$BUILD/corpus-smoke; rm -rf "$scratch" ;;
  long) limit=(-max_total_time="$amount") scratch=$BUILD/corpus ;;
  *) echo "fuzz/run.sh: unknown mode $mode" >&2; exit 2 ;;
esac
# A sanitizer report shows its stack; UBSan's own reports abort (the targets are built that way).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
mkdir -p "$BUILD/artifacts" "$BUILD/logs"

status=0
for target in $CPP_TARGETS $PY_TARGETS; do
  mkdir -p "$scratch/$target"
  args=("${limit[@]}" -artifact_prefix="$BUILD/artifacts/$target-" "$scratch/$target" "fuzz/corpus/$target")
  [[ -f fuzz/dict/${target#fuzz_}.dict ]] && args=(-dict="fuzz/dict/${target#fuzz_}.dict" "${args[@]}")
  if [[ " $CPP_TARGETS " == *" $target "* ]]; then
    cmd=("$BUILD/$target" "${args[@]}")
  else
    cmd=(env PYTHONPATH="$PACKAGE_PATH:fuzz" "$PY" "fuzz/$target.py" "${args[@]}")
  fi
  log="$BUILD/logs/$target.log"
  start=$SECONDS
  if "${cmd[@]}" > "$log" 2>&1; then
    summary=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | awk '{print substr($1, 2) " inputs, coverage " $4}')
    echo "$target: ok, $summary, $((SECONDS - start)) s"
  else
    echo "$target: FINDING (log: $log)"
    grep -v '^INFO: Instrumenting' "$log" | tail -n 40
    status=1
  fi
done
exit $status
