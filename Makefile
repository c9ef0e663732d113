# tandem: set-up, build, test, demo and benchmarks. `make demo` and `make test` work on a fresh Debian 12
# machine as root: they install missing apt packages, create .venv with the pinned requirements, build, run.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build
# qemu-user: tests/python/test_cpu_capability.py runs tandem on emulated older CPUs.
APT_PACKAGES := cmake ninja-build g++ ccache libopenblas-dev libgtest-dev libbenchmark-dev python3-venv qemu-user \
	openmpi-bin libopenmpi-dev libfftw3-dev libdnnl-dev
# The CUDA architectures the Makefile builds for: where a GPU is visible, its own (`native`); on a machine without
# one the CUDA code can only be compiled, so one virtual architecture (PTX, no machine code) checks that it
# compiles and links in about 60% of the nvcc time of CMake's portable default (`80-real;90`, which
# `pip install .` and a plain cmake keep; docs/reliability.md has the figures). CUDA_ARCHS=... overrides it.
CUDA_ARCHS ?= $(if $(shell nvidia-smi -L 2>/dev/null | grep -m1 '^GPU'),native,90-virtual)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DTANDEM_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES="$(CUDA_ARCHS)"
PYTEST_FLAGS ?= -q -n 2
# The test run is the same everywhere (a developer's `make test` and CI's .ci/run): two emulated CUDA devices
# make every device-parametrised test run on cpu, cuda:0 and cuda:1. On a GPU machine, `make test
# TEST_DEVICES=` tests the real GPU instead (scripts/gpu-check.sh does).
TEST_DEVICES ?= TANDEM_EMULATE_CUDA=2
COMMA := ,

.PHONY: all setup apt venv build demo test test-cpp test-python test-asan test-tsan bench format clean

all: build

setup: apt venv

# Installs only the apt packages that are missing (needs root, or nothing to install).
apt:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; apt-get update -qq && apt-get install -y -qq $$missing; \
	fi

# The venv is rebuilt when requirements-dev.txt changes.
venv: $(VENV)/.installed
$(VENV)/.installed: requirements-dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	@touch $@

build: setup
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) -DPython_EXECUTABLE=$(abspath $(PY)) >/dev/null
	cmake --build $(BUILD)

demo: build
	PYTHONPATH=python $(PY) examples/demo.py
	PYTHONPATH=python $(PY) examples/digits.py
	PYTHONPATH=python $(PY) examples/find_syncs.py
	PYTHONPATH=python $(PY) examples/char_lstm.py

# A passing run prints ctest's summary; a failing one prints the whole log (with each failure's output) and
# fails the target.
test-cpp: build
	@cd $(BUILD) && if $(TEST_DEVICES) ctest --output-on-failure -j 2 > ctest.log 2>&1; then tail -n 3 ctest.log; \
	  else cat ctest.log; exit 1; fi

test-python: build
	$(TEST_DEVICES) PYTHONPATH=python $(PY) -m pytest tests/python $(PYTEST_FLAGS)

test: test-cpp test-python

# Sanitizer runs (docs/reliability.md, "Sanitizers"): CPU-only builds (the emulated CUDA devices still run) in their
# own directories, each with its own extension in <dir>/python/tandem next to links to the Python sources. Every
# report fails the test that caused it. The Python interpreter is not instrumented, so the runtime is preloaded.
ASAN_BUILD := build-asan
TSAN_BUILD := build-tsan
# Build time is most of a sanitizer run's cost, so both build the CPU kernels once (the baseline capability: the
# vector loops and their tails are the same templates at every vector width) and at -O0, which compiles several
# times faster than -O1 for a slower test run (docs/reliability.md, "Sanitizers", has the measurements).
sanitizer-build = cmake -S . -B $(1) -G Ninja -DCMAKE_BUILD_TYPE=Release -DTANDEM_WERROR=ON -DTANDEM_CUDA=OFF \
	-DTANDEM_CPU_ARCH= -DTANDEM_CPU_CAPABILITIES=baseline -DTANDEM_SANITIZE_OPT=-O0 \
	-DTANDEM_SANITIZE=$(2) -DTANDEM_PYTHON_PACKAGE_DIR=$(abspath $(1))/python/tandem \
	-DPython_EXECUTABLE=$(abspath $(PY)) >/dev/null && cmake --build $(1)
sanitizer-ctest = cd $(1) && if $(2) $(TEST_DEVICES) ctest --output-on-failure -j 2 > ctest.log 2>&1; \
	then tail -n 3 ctest.log; else cat ctest.log; exit 1; fi
# pytest-xdist does not show a crashed worker's output, so the Python runs write reports to <dir>/reports,
# printed when the run fails, less the warnings of tests that ask for impossible sizes. Each report's head only:
# the faulting frames and their cause come first, then well over a hundred of the interpreter's own, and a log
# cut to its tail must still show the cause (tests/python/conftest.py leaves fatal signals to the sanitizer).
sanitizer-pytest = rm -rf $(1)/reports && mkdir -p $(1)/reports && \
	if $(2) $(TEST_DEVICES) PYTHONPATH=$(1)/python $(PY) -m pytest $(3) $(PYTEST_FLAGS) $(4); \
	then :; else for r in $(1)/reports/*; do grep -qv "failed to allocate" "$$r" && echo "== $$r" && head -n 48 "$$r"; done; exit 1; fi
# Tests ask for impossible sizes and expect tandem's out-of-memory error: malloc must fail, not abort.
SANITIZER_OPTIONS := allocator_may_return_null=1
UBSAN_FLAGS := print_stacktrace=1:halt_on_error=1
# LeakSanitizer runs in the C++ tests; under Python it would report the interpreter's own live objects at exit.
# libstdc++ is preloaded too: Python does not link it, and without it ASan's C++ exception interceptor finds
# nothing to forward to and aborts at the first throw.
ASAN_PYTHON_ENV := LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libstdc++.so)" \
	ASAN_OPTIONS=$(SANITIZER_OPTIONS):detect_leaks=0:log_path=$(abspath $(ASAN_BUILD))/reports/asan \
	UBSAN_OPTIONS=$(UBSAN_FLAGS):log_path=$(abspath $(ASAN_BUILD))/reports/ubsan TANDEM_SANITIZER=address
# libgomp is not built with TSan, so the ordering its barriers give looks like races: OpenMP regions run on
# one thread here, and the threads under test are the program's own (Python threads, emulated device queues).
TSAN_ENV := TSAN_OPTIONS=$(SANITIZER_OPTIONS):halt_on_error=1:second_deadlock_stack=1 OMP_NUM_THREADS=1
TSAN_PYTHON_ENV := LD_PRELOAD=$$(gcc -print-file-name=libtsan.so) OMP_NUM_THREADS=1 TANDEM_SANITIZER=thread \
	TSAN_OPTIONS=$(SANITIZER_OPTIONS):halt_on_error=1:second_deadlock_stack=1:suppressions=$(abspath tests/tsan.supp):log_path=$(abspath $(TSAN_BUILD))/reports/tsan

# The tests that fork worker processes from the test process run first, in one process without pytest-xdist:
# GCC 12's ASan runtime does not take its allocator's locks around fork() (its libasan.so exports no fork
# interceptor and calls no pthread_atfork: `nm -D`), so a child forked while another thread
# of the parent was inside malloc (xdist's execnet thread unpickles the next tests while one runs) can wait for
# good on a lock nobody will release. Twice a DataLoader worker hung that way in a full ASan run (CI stop 31,
# session 24); without xdist the test process has no thread allocating while it forks.
FORKING_TESTS := tests/python/test_dataloader_workers.py tests/python/test_fork.py \
	tests/python/test_data_samplers.py tests/python/test_programs_sweepcv.py

test-asan: setup
	$(call sanitizer-build,$(ASAN_BUILD),address$(COMMA)undefined)
	$(call sanitizer-ctest,$(ASAN_BUILD),ASAN_OPTIONS=$(SANITIZER_OPTIONS) UBSAN_OPTIONS=$(UBSAN_FLAGS))
	$(call sanitizer-pytest,$(ASAN_BUILD),$(ASAN_PYTHON_ENV),$(FORKING_TESTS),-n 0)
	$(call sanitizer-pytest,$(ASAN_BUILD),$(ASAN_PYTHON_ENV),tests/python,$(FORKING_TESTS:%=--ignore=%))

test-tsan: setup
	$(call sanitizer-build,$(TSAN_BUILD),thread)
	$(call sanitizer-ctest,$(TSAN_BUILD),$(TSAN_ENV))
	$(call sanitizer-pytest,$(TSAN_BUILD),$(TSAN_PYTHON_ENV),tests/python/test_concurrency.py)

# Fuzzing (fuzz/, docs/reliability.md "Fuzzing"): libFuzzer targets built with clang, AddressSanitizer and UBSan
# in their own directory, and atheris targets for the Python file readers. fuzz-smoke (CI) runs each target a
# fixed number of inputs with a fixed seed; fuzz runs each for FUZZ_SECONDS. A finding fails the target.
APT_PACKAGES += clang libclang-rt-14-dev libomp-14-dev
FUZZ_BUILD := build-fuzz
FUZZ_SMOKE_RUNS ?= 30000
FUZZ_SECONDS ?= 600
.PHONY: fuzz-build fuzz-smoke fuzz

fuzz-build: setup $(VENV)/.fuzz-installed
	CC=clang CXX=clang++ cmake -S fuzz -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(FUZZ_BUILD)

$(VENV)/.fuzz-installed: fuzz/requirements.txt $(VENV)/.installed
	$(PY) -m pip install -q -r fuzz/requirements.txt
	@touch $@

fuzz-smoke: fuzz-build build
	PY=$(PY) FUZZ_BUILD=$(FUZZ_BUILD) fuzz/run.sh smoke $(FUZZ_SMOKE_RUNS)

fuzz: fuzz-build build
	PY=$(PY) FUZZ_BUILD=$(FUZZ_BUILD) fuzz/run.sh long $(FUZZ_SECONDS)

bench: build
	PYTHONPATH=python $(PY) bench/run.py
	PYTHONPATH=python $(PY) bench/nn_bench.py
	PYTHONPATH=python $(PY) bench/gil_bench.py
	PYTHONPATH=python $(PY) bench/fft_bench.py

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) python/tandem/_C*.so python/tandem/_cpu_features*.so
