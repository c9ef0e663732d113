# tandem: set-up, build, test, demo and benchmarks. `make demo` and `make test` work on a fresh Debian 12
# machine as root: they install missing apt packages, create .venv with the pinned requirements, build, run.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build
APT_PACKAGES := cmake ninja-build g++ ccache libopenblas-dev libgtest-dev libbenchmark-dev python3-venv
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release -DTANDEM_WERROR=ON
PYTEST_FLAGS ?= -q -n 2
# The test run is the same everywhere (a developer's `make test` and CI's .ci/run): two emulated CUDA devices
# make every device-parametrised test run on cpu, cuda:0 and cuda:1. On a GPU machine, `make test
# TEST_DEVICES=` tests the real GPU instead (scripts/gpu-check.sh does).
TEST_DEVICES ?= TANDEM_EMULATE_CUDA=2

.PHONY: all setup apt venv build demo test test-cpp test-python bench format clean

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

# A passing run prints ctest's summary; a failing one prints the whole log (with each failure's output) and
# fails the target.
test-cpp: build
	@cd $(BUILD) && if $(TEST_DEVICES) ctest --output-on-failure -j 2 > ctest.log 2>&1; then tail -n 3 ctest.log; \
	  else cat ctest.log; exit 1; fi

test-python: build
	$(TEST_DEVICES) PYTHONPATH=python $(PY) -m pytest tests/python $(PYTEST_FLAGS)

test: test-cpp test-python

bench: build
	PYTHONPATH=python $(PY) bench/run.py
	PYTHONPATH=python $(PY) bench/nn_bench.py

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD) python/tandem/_C*.so
